/* reader-private.h - the reader's state, shared by the text and native decoders.
 * Not an API: only the reader's own files (traces/reader*.c, traces/native.c)
 * include it. */
#pragma once

#include "traces/reader.h"

G_BEGIN_DECLS

/* Interned strings: ids are 1-based and dense, in order of first appearance,
 * so a native writer can store them in that order and a native reader gets
 * the same ids back. */
typedef struct {
  GStringChunk *chunk;
  GPtrArray    *strs;     /* id - 1 -> const char* (NUL-terminated) */
  GArray       *lens;     /* id - 1 -> guint32 length */
  GArray       *gfp;      /* id - 1 -> guint32 SIM_GFP bits (computed lazily: ~0u = not yet) */
  guint32      *slots;    /* open addressing: 0 = empty, else id */
  guint32       mask;     /* slots - 1 (power of two) */
} SimStrtab;

void    sim_strtab_init (SimStrtab *t);
void    sim_strtab_clear (SimStrtab *t);
guint32 sim_strtab_intern (SimStrtab *t, const char *s, gsize len);
/* Append @s as the next id (native reader); returns the id. */
guint32 sim_strtab_append (SimStrtab *t, const char *s, gsize len);
guint32 sim_strtab_gfp (SimStrtab *t, guint32 id);

/* perf.data read through `perf script` (traces/reader-perf.c). */
typedef struct _SimPerfScript SimPerfScript;

struct _SimTraceReader {
  GInputStream  *in;
  SimPerfScript *perf;     /* the perf script child whose output @in is, or NULL */
  char          *name;
  SimTraceFormat format;
  SimTraceFormat source_format;
  gboolean       lenient;
  gboolean       eof;
  gboolean       done;
  GError        *sticky;   /* an error already reported stays reported */

  /* The read buffer: bytes [pos, end) are unread. */
  char   *buf;
  gsize   cap, pos, end;
  guint64 consumed;        /* bytes before buf[0] in the (decompressed) stream */
  guint64 lineno;          /* lines completed before buf[pos] */
  guint64 unrecognised;    /* non-comment lines that were not events or markers */

  SimStrtab     strs;
  SimTraceStats stats;

  /* Native decoding state (traces/native.c). */
  struct {
    guint64   block;       /* blocks read */
    guint32   left;        /* records left in the current event block */
    const guint8 *p, *e;   /* the current event block's unread records (in buf) */
    guint64   ts, line, ptr;
    guint64   block_offset;
    guint64   records;
    gboolean  trailer;
    /* The spool variant (traces/native.h): records coded against the
     * block's previous record of their kind (all zero at its start). */
    gboolean  spool;
    SimTraceEvent prev[SIM_TRACE_N_KINDS];
  } nat;

  /* The text parser's memo of interned strings (traces/reader.c,
   * intern_memo): per field, a direct-mapped table of ids keyed by the
   * string's length and first and last bytes, so that a repeated call_site,
   * gfp_flags, cache name or task name costs one compare instead of a hash
   * of the whole string.  0 = empty. */
  guint32 memo[4][256];

  /* The fast path's memos (traces/reader-fast.c), made at its first line. */
  struct _SimTraceFast *fast;
  /* Every line through the careful parser (tests compare the two). */
  gboolean careful_only;

  /* The text parser's guess of each event kind's field order
   * (traces/reader.c, parse_fields): the key id seen after key id i last
   * time, 0 = none yet.  Only a guess: every key is still checked. */
  guint8 next_key[SIM_TRACE_N_KINDS][16];

  /* A trace-cmd trace.dat (traces/reader-tracecmd.c); NULL otherwise. */
  struct _SimTraceDat *dat;
};

/* The text parser's fast path (traces/reader-fast.c): TRUE with @ev read
 * when the line [@p, @e) (no newline) has the common shape and reads
 * without a doubt; FALSE, with nothing changed but field-order guesses,
 * when the careful parser must read it. */
gboolean sim_trace_fast_line (SimTraceReader *r, const char *p, const char *e, SimTraceEvent *ev);
typedef struct _SimTraceFast SimTraceFast;
void     sim_trace_fast_free (SimTraceFast *f);
/* Lines the fast path has read (tests), and of them through its line memo. */
guint64  sim_trace_fast_accepted (SimTraceReader *r);
guint64  sim_trace_fast_line_hits (SimTraceReader *r);

/* Ensure at least @need unread bytes (fewer only at end of input); returns
 * the number available, or -1 with @error set. */
gssize sim_trace_reader_fill (SimTraceReader *r, gsize need, GError **error);

/* Native decoding (traces/native.c). */
gboolean sim_trace_native_open (SimTraceReader *r, GError **error);
gboolean sim_trace_native_next (SimTraceReader *r, SimTraceEvent *ev, GError **error);
/* Up to @max events into @ev (fewer at the end or on an error, which sets
 * @error after the events before it). */
guint    sim_trace_native_next_n (SimTraceReader *r, SimTraceEvent *ev, guint max,
                                  GError **error);

/* perf.data (traces/reader-perf.c): the magic; start `perf script` on the
 * file @path names (@f opened it) and return its output; at the end of that
 * output, wait for perf and turn a failure or an empty output (@bytes read
 * in all) into an error. */
gboolean      sim_trace_perf_magic (const void *p, gsize n);
GInputStream *sim_trace_perf_open (SimTraceReader *r, const char *path, GFile *f, GError **error);
gboolean      sim_trace_perf_finish (SimTraceReader *r, guint64 bytes, GError **error);
void          sim_trace_perf_free (SimPerfScript *p);

void sim_trace_stats_add_other (SimTraceStats *s, const char *name, gsize len, guint64 n);

/* trace-cmd's trace.dat (traces/reader-tracecmd.c): a child process
 * prints its records as `trace-cmd report -t` does, and r->in becomes that
 * text (read by the text parser).  Open from @file when it is a regular
 * file, else from a copy of the rest of r->in; without libtracecmd in the
 * build, an error saying so.  _finish waits for the child at the end of its
 * text (FALSE with @error when it failed or crashed). */
gboolean sim_trace_dat_open (SimTraceReader *r, const char *file, GError **error);
gboolean sim_trace_dat_finish (SimTraceReader *r, GError **error);
void     sim_trace_dat_close (SimTraceReader *r);



G_END_DECLS
