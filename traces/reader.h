/* reader.h - one kmem trace event at a time, whatever the kernel printed it with.
 *
 * A SimTraceReader turns a kernel allocation trace into a stream of
 * SimTraceEvent.  It reads the text the kernel's kmem tracepoints print
 * (include/trace/events/kmem.h of 2.6.3x to 6.18) in the three shapes users
 * have it in: tracefs `trace` / `trace_pipe` text and `trace-cmd report`
 * output (both "ftrace" text), and `perf script` text of `perf record -e
 * kmem:*`.  Either may be gzip-compressed.  It also reads slabsim's own
 * binary "native" format (traces/native.h, docs/trace-format.md), which
 * `slabsim trace convert` writes for fast re-replay, and a perf.data file
 * through `perf script` run as a subprocess when perf is on the PATH
 * (traces/reader-perf.c).  The format is sniffed from the content, never
 * from the file name.
 *
 * Fields are found by name, so the field sets of every era read the same way:
 * no name= before 6.18 (kmem_cache_alloc) / 5.12 (kmem_cache_free), node= and
 * accounted= only in recent kernels, the *_node events before 6.1, and the
 * page events' 2.6.3x names (mm_page_free_direct, mm_pagevec_free).  It
 * reads trace-cmd's trace.dat too, through libtracecmd when the build has it
 * (traces/reader-tracecmd.c: the same events as its `trace-cmd report -t`
 * text).  What the reader leaves out: xz/zstd compression, perf.data without
 * perf, and merging per-CPU trace_pipe_raw streams.
 *
 * Memory is bounded by the distinct strings of a trace (call sites, cache
 * names, gfp strings, task names), never by its length: lines are parsed in
 * place in one read buffer.  The reader never prints; diagnostics are in
 * SimTraceStats and errors are GErrors (SIM_TRACE_ERROR) naming
 * "file:line: expected ...".
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/* Event kinds.  The names (sim_trace_kind_name) are the kernel's event names;
 * the 2.6.3x page-free names keep their own kinds so a summary can say what the
 * trace contained. */
#define SIM_TRACE_KINDS(X)                                   \
  X (KMALLOC,                "kmalloc")                      \
  X (KMALLOC_NODE,           "kmalloc_node")                 \
  X (CACHE_ALLOC,            "kmem_cache_alloc")             \
  X (CACHE_ALLOC_NODE,       "kmem_cache_alloc_node")        \
  X (KFREE,                  "kfree")                        \
  X (CACHE_FREE,             "kmem_cache_free")              \
  X (PAGE_ALLOC,             "mm_page_alloc")                \
  X (PAGE_FREE,              "mm_page_free")                 \
  X (PAGE_FREE_BATCHED,      "mm_page_free_batched")         \
  X (PAGE_PCPU_DRAIN,        "mm_page_pcpu_drain")           \
  X (PAGE_ALLOC_ZONE_LOCKED, "mm_page_alloc_zone_locked")    \
  X (PAGE_FREE_DIRECT,       "mm_page_free_direct")          \
  X (PAGEVEC_FREE,           "mm_pagevec_free")

typedef enum {
#define SIM_TRACE_KIND_ENUM(id, name) SIM_TRACE_##id,
  SIM_TRACE_KINDS (SIM_TRACE_KIND_ENUM)
#undef SIM_TRACE_KIND_ENUM
  SIM_TRACE_N_KINDS
} SimTraceKind;

const char *sim_trace_kind_name (SimTraceKind kind);
/* The kind whose kernel event name is @name (@len bytes), or -1. */
int sim_trace_kind_from_name (const char *name, gsize len);

static inline gboolean
sim_trace_kind_is_slab_alloc (SimTraceKind k)
{
  return k == SIM_TRACE_KMALLOC || k == SIM_TRACE_KMALLOC_NODE ||
         k == SIM_TRACE_CACHE_ALLOC || k == SIM_TRACE_CACHE_ALLOC_NODE;
}

static inline gboolean
sim_trace_kind_is_slab_free (SimTraceKind k)
{
  return k == SIM_TRACE_KFREE || k == SIM_TRACE_CACHE_FREE;
}

static inline gboolean
sim_trace_kind_is_kmalloc (SimTraceKind k)
{
  return k == SIM_TRACE_KMALLOC || k == SIM_TRACE_KMALLOC_NODE;
}

/* The __GFP_* bits we care about, as our own bit positions (the kernel's
 * numeric values change between eras; the names do not).  Composite names
 * such as GFP_KERNEL expand to their parts. */
#define SIM_GFP_FLAGS(X)                    \
  X (DMA,            "__GFP_DMA")           \
  X (HIGHMEM,        "__GFP_HIGHMEM")       \
  X (DMA32,          "__GFP_DMA32")         \
  X (MOVABLE,        "__GFP_MOVABLE")       \
  X (RECLAIMABLE,    "__GFP_RECLAIMABLE")   \
  X (HIGH,           "__GFP_HIGH")          \
  X (IO,             "__GFP_IO")            \
  X (FS,             "__GFP_FS")            \
  X (ZERO,           "__GFP_ZERO")          \
  X (ATOMIC,         "__GFP_ATOMIC")        \
  X (DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM") \
  X (KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM") \
  X (WRITE,          "__GFP_WRITE")         \
  X (NOWARN,         "__GFP_NOWARN")        \
  X (RETRY_MAYFAIL,  "__GFP_RETRY_MAYFAIL") \
  X (NOFAIL,         "__GFP_NOFAIL")        \
  X (NORETRY,        "__GFP_NORETRY")       \
  X (MEMALLOC,       "__GFP_MEMALLOC")      \
  X (COMP,           "__GFP_COMP")          \
  X (NOMEMALLOC,     "__GFP_NOMEMALLOC")    \
  X (HARDWALL,       "__GFP_HARDWALL")      \
  X (THISNODE,       "__GFP_THISNODE")      \
  X (ACCOUNT,        "__GFP_ACCOUNT")       \
  X (WAIT,           "__GFP_WAIT")

enum {
#define SIM_GFP_BIT_ENUM(id, name) SIM_GFP_BIT_##id,
  SIM_GFP_FLAGS (SIM_GFP_BIT_ENUM)
#undef SIM_GFP_BIT_ENUM
  SIM_GFP_N_BITS
};
#define SIM_GFP(id) (1u << SIM_GFP_BIT_##id)

/* Parse a printed gfp_flags string ("GFP_KERNEL|__GFP_ZERO", old
 * "GFP_KERNEL|GFP_ZERO", "GFP_NOWAIT") into SIM_GFP bits; unknown names and
 * raw numbers contribute nothing. */
guint32 sim_trace_gfp_parse (const char *s, gsize len);

/* One event.  Fields an event does not carry are 0, or -1 where 0 is a valid
 * value (node, order, migratetype, accounted). */
typedef struct {
  guint64 ts_ns;          /* timestamp: seconds.fraction of the trace clock, in ns */
  guint64 ptr;            /* object (slab events) or struct page pointer (page events) */
  guint64 call_site;      /* numeric call site when printed as an address, else 0 */
  guint64 pfn;            /* page events */
  guint64 bytes_req;
  guint64 bytes_alloc;
  guint64 line;           /* source line (text) or record number (native), for diagnostics */
  SimTraceKind kind;
  gint32  cpu;
  gint32  pid;            /* -1 when the trace has none */
  gint32  node;           /* node= (-1: any, or not printed) */
  gint32  order;          /* page events; -1 otherwise */
  gint32  migratetype;    /* page events; -1 otherwise */
  gint32  accounted;      /* accounted= : 1 true, 0 false, -1 not printed */
  guint32 gfp;            /* SIM_GFP bits */
  guint32 gfp_id;         /* interned raw gfp_flags string, 0 = none */
  guint32 cache_id;       /* interned name=, 0 = the event has no name= */
  guint32 call_site_id;   /* interned call_site text, 0 = none */
  guint32 comm_id;        /* interned task name, 0 = none */
} SimTraceEvent;

/* The formats a reader can be on (also in "format" of trace info). */
typedef enum {
  SIM_TRACE_FORMAT_AUTO,
  SIM_TRACE_FORMAT_FTRACE,     /* tracefs trace / trace_pipe */
  SIM_TRACE_FORMAT_TRACE_CMD,  /* trace-cmd report (ftrace text with its header) */
  SIM_TRACE_FORMAT_PERF,       /* perf script */
  SIM_TRACE_FORMAT_NATIVE,
  SIM_TRACE_FORMAT_TRACE_CMD_DAT,  /* trace-cmd record's trace.dat, via libtracecmd */
} SimTraceFormat;
const char *sim_trace_format_name (SimTraceFormat f);

/* Everything the reader saw that is not an event.  The native format stores
 * these so a converted trace reports the same. */
typedef struct {
  guint64 events;              /* events returned by next() */
  guint64 by_kind[SIM_TRACE_N_KINDS];
  guint64 lost_events;         /* sum of N in LOST markers */
  guint64 lost_markers;        /* number of LOST markers */
  guint64 skipped_lines;       /* comments, headers, blank lines, other events */
  guint64 malformed_lines;     /* --lenient: lines skipped because they did not parse */
  guint64 hashed_ptrs;         /* 64-bit pointers printed with the upper 32 bits zero */
  guint64 raw_ptrs;            /* 64-bit pointers with upper bits set */
  GHashTable *other_events;    /* event name -> guint64* count, events we do not read */
} SimTraceStats;

typedef struct _SimTraceReader SimTraceReader;

/* Open @path ("-" is standard input).  Sniffs gzip and the format. */
SimTraceReader *sim_trace_reader_open (const char *path, GError **error);
/* Read from @in (a ref is taken); @name names it in messages.  @format forces
 * a format (AUTO sniffs); forcing is for fuzzing and tests. */
SimTraceReader *sim_trace_reader_new (GInputStream *in, const char *name,
                                      SimTraceFormat format, GError **error);
void sim_trace_reader_free (SimTraceReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimTraceReader, sim_trace_reader_free)

/* Lenient mode: lines that do not parse are skipped and counted in
 * malformed_lines instead of failing. */
void sim_trace_reader_set_lenient (SimTraceReader *r, gboolean lenient);

/* The next event: TRUE and *ev filled, or FALSE at the end (error unset) or on
 * an error. */
gboolean sim_trace_reader_next (SimTraceReader *r, SimTraceEvent *ev, GError **error);
/* Up to @max events into @ev: the number read, fewer than @max only at the
 * end (error unset) or on an error (set; the events before it are read).
 * The same events and errors as as many calls of sim_trace_reader_next. */
guint sim_trace_reader_next_n (SimTraceReader *r, SimTraceEvent *ev, guint max,
                               GError **error);

const SimTraceStats *sim_trace_reader_stats (SimTraceReader *r);
SimTraceFormat sim_trace_reader_format (SimTraceReader *r);
/* The source format a native file was converted from (its own format for text). */
SimTraceFormat sim_trace_reader_source_format (SimTraceReader *r);
const char *sim_trace_reader_name (SimTraceReader *r);
/* Interned string @id (1-based); "" for 0 or an unknown id. */
const char *sim_trace_reader_string (SimTraceReader *r, guint32 id);
/* Its length in bytes (a native trace's strings may hold any byte). */
guint32 sim_trace_reader_string_len (SimTraceReader *r, guint32 id);
guint32 sim_trace_reader_n_strings (SimTraceReader *r);
/* TRUE when most 64-bit pointers look hashed (docs/traces.md). */
gboolean sim_trace_stats_hashed (const SimTraceStats *s);
/* The names in other_events, sorted (free with g_ptr_array_unref; the
 * strings belong to the stats). */
GPtrArray *sim_trace_stats_other_names (const SimTraceStats *s);

G_END_DECLS
