/* stream.h - a trace decoded once, handed out in chunks: the one interface
 * between traces/ and everything that replays or summarises a trace.
 *
 * A SimTraceStream opens a trace (any format the reader reads), decodes it
 * once, and hands out its events in chunks of up to SIM_TRACE_CHUNK
 * SimTraceEvent.  Several consumers (the allocators of one `slabsim run`)
 * replay the same chunk side by side on a thread pool; nobody parses the
 * text twice.  Memory is bounded, not proportional to the trace: the stream
 * holds two chunks (the one being replayed and the one being decoded), so
 * a chunk is valid until the call to sim_trace_stream_next after the one
 * that follows the call which returned it (with N buffers: until N - 1
 * more calls have returned).
 *
 * Strings (cache names, call sites, gfp text, task names) live in a
 * SimTraceStrings table that only grows and never moves an entry: a
 * consumer may read any id of a chunk it has been handed while the stream
 * decodes the next chunk on another thread.
 *
 * The decoded-trace cache (opt-in, docs/performance.md): with a cache
 * directory, the stream keys the trace by the SHA-256 of its bytes (plus
 * the native format version, slabsim's version and --lenient).  A hit reads
 * the cached native file instead of the text; a miss decodes the text and
 * writes the native file beside the replay (temporary name, renamed when
 * complete), then trims the directory to its size bound, least recently
 * used first.  A changed trace has another hash, so it is never served from
 * an older entry.  Standard input is never cached.
 */
#pragma once

#include "traces/reader.h"

G_BEGIN_DECLS

#define SIM_TRACE_CHUNK 16384
#define SIM_TRACE_MAX_BUFFERS 16

/* ---- strings ------------------------------------------------------------ */

typedef struct _SimTraceStrings SimTraceStrings;

/* String @id (1-based); "" for 0 or an id not (yet) defined. */
const char *sim_trace_strings_get (const SimTraceStrings *t, guint32 id);
guint32 sim_trace_strings_len (const SimTraceStrings *t, guint32 id);
guint32 sim_trace_strings_count (const SimTraceStrings *t);

/* ---- the stream ----------------------------------------------------------- */

typedef struct {
  gboolean    lenient;        /* skip malformed text lines (trace info's --lenient) */
  const char *read_path;      /* read this file instead of the trace (a native
                               * conversion of it); messages still name the trace */
  const char *cache_dir;      /* the decoded-trace cache, NULL: off */
  guint64     cache_max;      /* its bound in bytes (0: SIM_TRACE_CACHE_MAX_DEFAULT) */
  gboolean    keep;           /* the events will be read again (sim_trace_stream_again) */
} SimTraceStreamOptions;

#define SIM_TRACE_CACHE_MAX_DEFAULT (G_GUINT64_CONSTANT (2048) << 20)

typedef struct _SimTraceStream SimTraceStream;

SimTraceStream *sim_trace_stream_open (const char *path, const SimTraceStreamOptions *opt,
                                       GError **error);
/* Streams are shared by reference (a summary keeps its stream's strings):
 * free drops one. */
SimTraceStream *sim_trace_stream_ref (SimTraceStream *s);
void sim_trace_stream_free (SimTraceStream *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimTraceStream, sim_trace_stream_free)

/* Keep @n chunk buffers (2 to SIM_TRACE_MAX_BUFFERS, default 2) so that
 * consumers may lag the decoder by up to @n - 1 chunks; before the first
 * next. */
void sim_trace_stream_set_buffers (SimTraceStream *s, guint n);

/* The next chunk: TRUE with *ev and *n (n >= 1), or FALSE at the end
 * (error unset) or on a trace error.  Events before an error are handed
 * out first; the error comes with the call after them. */
gboolean sim_trace_stream_next (SimTraceStream *s, const SimTraceEvent **ev, guint *n,
                                GError **error);

const SimTraceStrings *sim_trace_stream_strings (SimTraceStream *s);
/* The trace as the user named it ("(stdin)" for "-"). */
const char *sim_trace_stream_name (SimTraceStream *s);
/* The reader's statistics so far (complete once next returned FALSE). */
const SimTraceStats *sim_trace_stream_stats (SimTraceStream *s);
/* The format the trace is in (a cached trace: the format of its source). */
SimTraceFormat sim_trace_stream_format (SimTraceStream *s);
/* TRUE when the events come from the decoded-trace cache. */
gboolean sim_trace_stream_cached (SimTraceStream *s);

/* A second reading of a stream opened with keep, once it has read to its
 * end without an error: the same events, string ids, name and format,
 * without decoding the text again.  A text trace's events were written to
 * an unlinked native spool file as they were decoded (about 27 bytes an
 * event, in $TMPDIR, gone when the stream is freed); a native trace (or
 * the native file the stream read instead: read_path, a cache entry) is
 * read again.  If the spool could not be written (no space), the trace is
 * decoded again.  Statistics: the first reading's are the trace's. */
SimTraceStream *sim_trace_stream_again (SimTraceStream *s, GError **error);

/* A second reading that may start while @s is still being read on another
 * thread (sim/run/replay.c's pipeline): the spool of a text trace read as
 * it is written (a read waits for the events @s has flushed at the end of
 * each chunk it handed out, and never reads past them), or the native
 * source opened again.  The events are @s's, in chunks of the same size.
 * If @s meets a trace error or abandons its spool, a read of the follower
 * fails (SIM_TRACE_ERROR_IO); the caller then reports @s's error.  NULL
 * (no error) when there is nothing to follow: no spool (stdin, no space). */
SimTraceStream *sim_trace_stream_follow (SimTraceStream *s, GError **error);

/* How many readers streams have opened in this process: text decodes and
 * native reads (tests count the passes over a trace with it). */
void sim_trace_stream_counts (guint *text_decodes, guint *native_reads);

/* ---- the decoded-trace cache ---------------------------------------------- */

/* Where the cache lives: $SLABSIM_TRACE_CACHE_DIR, else
 * $XDG_CACHE_HOME/slabsim/traces (~/.cache/slabsim/traces).  Free with g_free. */
char *sim_trace_cache_default_dir (void);
/* Its bound: $SLABSIM_TRACE_CACHE_MAX_MB MiB, else SIM_TRACE_CACHE_MAX_DEFAULT. */
guint64 sim_trace_cache_default_max (void);
/* Whether $SLABSIM_TRACE_CACHE turns the cache on (set, not "" or "0"). */
gboolean sim_trace_cache_env_enabled (void);
/* The native file a replay of @trace may read instead of it (messages
 * still name the trace): @trace itself when it is native, else @dest after
 * decoding @trace into it (strict, not --lenient).  NULL with @error when
 * the trace does not decode. */
char *sim_trace_decode_to (const char *trace, const char *dest, GError **error);
/* The same through the decoded-trace cache in @dir (bound @max bytes, 0:
 * the default): its entry for @trace's bytes, made when missing. */
char *sim_trace_cache_prepare (const char *trace, const char *dir, guint64 max,
                               gboolean lenient, GError **error);
/* The SHA-256 (hex) of the bytes of @path. */
char *sim_trace_file_sha256 (const char *path, GError **error);

G_END_DECLS
