/* gen-common.h - shared machinery of the synthetic kmem trace generators.
 *
 * A generator ("hackbench", "netperf-udp", ...) is a table entry naming a
 * setup function.  Setup creates tasks (comm, pid, CPU, a step function and
 * private state); the common scheduler then runs the machine: it always
 * advances the CPU whose clock is furthest behind, lets that CPU run its
 * current task for one step (a step emits a handful of kmem events at the
 * CPU's clock, each advancing it by a plausible cost), and switches to the
 * next runnable task on the CPU when the current one blocks.  Because the
 * CPU with the smallest clock always moves next, any state a step reads
 * (a socket queue, a deferred-free list) holds only what other CPUs did at
 * earlier times, and events can be merged into the single time-ordered
 * stream tracefs prints.
 *
 * Addresses come from one slab-like allocator per cache: per-CPU LIFO
 * stacks of free objects (bounded, overflowing in batches to a per-node
 * pool) in front of slabs carved out of pages of the node of the CPU, so
 * objects of one cache share pages and a freed object is the next one its
 * CPU hands out; an emptied slab goes back to the pages when its node has
 * plenty of other free objects (SLUB's discard_slab).  The page allocator is a per-node bump pointer with
 * per-order LIFO reuse.  What the kernel era changes (field sets, pointer
 * and call-site rendering, kmalloc size classes, skb sizes, direct-map
 * base) lives in SimGenEra; the writer (gen-writer.c) prints the lines.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "sim/core/rng.h"

G_BEGIN_DECLS

#define SIM_GEN_KVER(a, b, c) (((a) << 16) | ((b) << 8) | (c))

/* How tracefs prints the line prefix and header. */
typedef enum {
  SIM_GEN_PREFIX_OLD,      /* < 3.3: comm-pid [cpu] ts:, no flag column */
  SIM_GEN_PREFIX_IRQINFO,  /* 3.3 .. 5.10: 4 flag columns, pid %-5d */
  SIM_GEN_PREFIX_MODERN,   /* >= 5.11: 5 flag columns (migrate-disable), pid %-7d */
} SimGenPrefix;

typedef struct {
  guint    version;            /* SIM_GEN_KVER */
  char     text[16];           /* as given: "2.6.34" */
  SimGenPrefix prefix;
  gboolean bh_label;           /* header says irqs-off/BH-disabled (>= 5.18) */
  gboolean symbolic_call_site; /* %pS call sites (>= 5.4), else %lx */
  gboolean node_everywhere;    /* >= 6.1: node= on every alloc, no *_node events */
  gboolean accounted;          /* >= 6.0: accounted= */
  gboolean name_on_free;       /* >= 5.12: kmem_cache_free name= */
  gboolean name_on_alloc;      /* >= 6.18: kmem_cache_alloc name= */
  gboolean pfn_hex;            /* >= 5.14: pfn=0x%lx */
  gboolean page_free_renamed;  /* >= 3.3: mm_page_free (else mm_page_free_direct) */
  gboolean null_as_zeros;      /* >= 4.15: NULL prints as zeros, else (null) */
  guint64  page_offset;        /* direct map base */
  guint    kmalloc_max;        /* largest kmalloc cache; larger goes to pages */
  guint    shinfo;             /* sizeof (struct skb_shared_info) */
  gboolean shinfo_aligned;     /* >= 3.2: SKB_DATA_ALIGN(sizeof shinfo) */
  gboolean skb_roundup;        /* >= 6.2: kmalloc_size_roundup before kmalloc */
  guint    sk_buff_size;       /* sizeof (struct sk_buff) */
} SimGenEra;

/* Parse "2.6.34", "4.19", "6.18"; FALSE with a usage error otherwise. */
gboolean sim_gen_era_parse (const char *text, SimGenEra *era, GError **error);
/* kmalloc size class of @size in @era (0 if it goes to the page allocator). */
guint    sim_gen_kmalloc_class (const SimGenEra *era, gsize size);
/* bytes __alloc_skb asks kmalloc for, for a linear size of @size. */
guint    sim_gen_skb_data_req (const SimGenEra *era, gsize size);

typedef struct {
  const char *workload;
  guint    cpus;
  guint    groups;
  guint    loops;
  guint    size;
  guint    sockets;
  guint64  seed;
  gboolean processes;          /* hackbench -p instead of -T */
  gboolean random_placement;
  gboolean page_events;
  SimGenEra era;
} SimGenOptions;

typedef enum { SIM_GEN_CTX_TASK, SIM_GEN_CTX_SOFTIRQ } SimGenCtx;

typedef struct _SimGen SimGen;
typedef struct _SimGenTask SimGenTask;
typedef struct _SimGenCache SimGenCache;

typedef enum { SIM_GEN_RAN, SIM_GEN_BLOCKED, SIM_GEN_DONE } SimGenStep;
typedef SimGenStep (*SimGenStepFn) (SimGen *g, SimGenTask *t);

struct _SimGenTask {
  const char  *comm;     /* interned */
  int          pid;
  guint        cpu;
  SimGenCtx    ctx;
  gboolean     done;
  SimGenStepFn step;
  gpointer     data;     /* freed with destroy (g_free when NULL) at the end */
  GDestroyNotify destroy;
  int          state;
};

/* One workload: setup creates the tasks from the options. */
typedef struct {
  const char *name;
  const char *summary;
  guint default_groups, default_loops, default_size;
  gboolean (*setup) (SimGen *g, const SimGenOptions *o, GError **error);
} SimGenWorkload;

/* The workloads (one file each); a new one is added here, to the table
 * in gen-common.c and to traces/gen/meson.build. */
extern const SimGenWorkload sim_gen_hackbench;
extern const SimGenWorkload sim_gen_netperf_udp;
extern const SimGenWorkload sim_gen_tbench;
extern const SimGenWorkload sim_gen_kbuild;
extern const SimGenWorkload sim_gen_slab_test;

/* The workload table, NULL-terminated. */
const SimGenWorkload *const *sim_gen_workloads (void);
const SimGenWorkload *sim_gen_workload_find (const char *name);
/* "hackbench, netperf-udp, ..." for messages; free with g_free. */
char *sim_gen_workload_names (void);

/* Counts the generator keeps while it emits (the tests compare them with
 * the documented model). */
typedef struct {
  guint64 events, allocs, frees, null_frees, cross_cpu_frees, silent_frees;
  guint64 page_allocs, page_frees;
} SimGenStats;

/* Run @o's workload and write the trace to @path (gzip when it ends in
 * ".gz").  @stats may be NULL. */
gboolean sim_gen_run (const SimGenOptions *o, const char *path,
                      SimGenStats *stats, GError **error);

/* The same, in slabsim's native format (traces/native.h): the text is
 * parsed as it is generated, never stored, so the file is byte for byte
 * what `trace convert` makes of sim_gen_run's text. */
gboolean sim_gen_run_native (const SimGenOptions *o, const char *path,
                             SimGenStats *stats, GError **error);
/* The trace text of @o as a stream, generated as it is read (header
 * entries line 0/0: the count is not known ahead); NULL with @error set.
 * Reading fails with the generator's error if it deadlocks. */
GInputStream *sim_gen_stream_new (const SimGenOptions *o, GError **error);
/* Counts so far (final once the stream is at its end). */
const SimGenStats *sim_gen_stream_stats (GInputStream *stream);

/* ---- for generators ---- */
const SimGenOptions *sim_gen_options (SimGen *g);
SimRng      *sim_gen_rng (SimGen *g);
guint        sim_gen_ncpus (SimGen *g);
/* Create a task on @cpu; @comm is interned. */
SimGenTask  *sim_gen_spawn (SimGen *g, const char *comm, guint cpu,
                            SimGenStepFn step, gpointer data);
/* The @i-th pair of a two-sided workload (sender and receiver, client and
 * server): @comm_a running @step_a on placement slot 2i, then @comm_b
 * running @step_b on slot 2i + 1, both on @data, which the caller owns
 * through sim_gen_own (the tasks leave it alone). */
void         sim_gen_spawn_pair (SimGen *g, guint i, const char *comm_a, SimGenStepFn step_a,
                                 const char *comm_b, SimGenStepFn step_b, gpointer data);
/* Keep @data until the run ends, then @destroy it. */
void         sim_gen_own (SimGen *g, gpointer data, GDestroyNotify destroy);
/* A task's destroy for data owned through sim_gen_own and shared by
 * several tasks: freeing the task leaves it alone. */
void         sim_gen_not_owned (gpointer data);
/* Move @t to @cpu (it continues there at that CPU's clock). */
void         sim_gen_migrate (SimGen *g, SimGenTask *t, guint cpu);
/* CPU for the @i-th of @n tasks: round-robin, or seeded random with
 * --random-placement. */
guint        sim_gen_place (SimGen *g, guint i);
/* Current time of @cpu in ns, and advancing it (work without events). */
guint64      sim_gen_now (SimGen *g, guint cpu);
void         sim_gen_spend (SimGen *g, guint cpu, guint64 ns);
/* @flags ("GFP_KERNEL|__GFP_ZERO") as @g's era prints them (interned). */
const char  *sim_gen_gfp (SimGen *g, const char *flags);
/* A uniformly jittered cost in [lo, hi] ns. */
guint64      sim_gen_cost (SimGen *g, guint64 lo, guint64 hi);
/* Declare and look up a named cache (object_size = bytes_req). */
SimGenCache *sim_gen_cache (SimGen *g, const char *name, guint object_size,
                            guint size, guint order);

/* Events.  @site is "symbol+0xoff/0xlen" (printed as a raw address on
 * eras before %pS); @gfp the symbolic flags; @node_api selects the
 * *_node events on eras that have them. */
guint64 sim_gen_cache_alloc (SimGen *g, SimGenTask *t, SimGenCache *c,
                             const char *site, const char *gfp,
                             gboolean node_api, gboolean accounted);
guint64 sim_gen_kmalloc (SimGen *g, SimGenTask *t, gsize bytes_req,
                         const char *site, const char *gfp,
                         gboolean node_api, gboolean accounted);
/* kfree of @ptr (0 prints a NULL kfree). */
void    sim_gen_kfree (SimGen *g, SimGenTask *t, guint64 ptr, const char *site);
void    sim_gen_cache_free (SimGen *g, SimGenTask *t, guint64 ptr,
                            const char *site);
/* A free the kernel does on a path without a tracepoint (bulk free of
 * the per-CPU skb cache): the object is reusable, no line is printed. */
void    sim_gen_free_silent (SimGen *g, SimGenTask *t, guint64 ptr);

G_END_DECLS
