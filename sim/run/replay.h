/* replay.h - replay a kmem trace through one allocator model on a fresh
 * machine ("slabsim run").
 *
 * Data flow: the trace reader yields events; the accounting
 * (traces/account.h) says what each one means (a free of a live object, an
 * implicit free of a pointer allocated again, a NULL or unknown free); the
 * replay maps the trace's pointers to the model's simulated addresses and
 * calls the model on the event's CPU.  Each call runs as a SimOp starting
 * at that CPU's clock; its cost (instructions, memory latency from the
 * cache model, lock waits) advances the clock.
 *
 *   ordered  events are applied in trace order, each on its CPU's clock,
 *            which advances only by the cost of that CPU's operations.
 *   timed    an event is not applied before its trace timestamp (converted
 *            to cycles at the machine's frequency): a CPU idles until then.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc.h"
#include "models/page/page-alloc.h"
#include "sim/config/machine.h"
#include "traces/decisions.h"
#include "sim/run/emit.h"
#include "sim/run/warm.h"
#include "sim/run/untraced.h"
#include "sim/run/page-events.h"
#include "traces/stream.h"
#include "traces/info.h"

G_BEGIN_DECLS

typedef enum { SIM_REPLAY_ORDERED, SIM_REPLAY_TIMED } SimReplayMode;

/* --page-events: the trace's page traffic other than the recording
 * kernel's slab pages (sim/run/page-events.h). */
typedef enum { SIM_PAGE_EVENTS_REPLAY, SIM_PAGE_EVENTS_IGNORE } SimPageEventsMode;

typedef struct {
  const SimMachine *machine;
  SimReplayMode     mode;
  SimTouch          touch;
  guint64           check_every;   /* run the invariant checker every N events; 0 = only at the end */
  gboolean          check;         /* run it at all */
  gboolean          per_cpu;       /* keep per-CPU memory counters in the result */
  gboolean          lenient;       /* skip malformed trace lines */
  /* --warm unknown-frees: objects the trace frees but never allocated are
   * placed in slabs before the replay (sim/run/warm.h). */
  gboolean          warm;
  /* --cpu-map LIST: trace CPU -> machine CPU (sim/run/cpu-map.h); NULL:
   * compact, socket 0 first, one thread per core first. */
  const char       *cpu_map;
  SimPageEventsMode page_events;   /* default (0): replay */
  /* Fed the model's decisions as trace events (model addresses in
   * direct-map form, its page traffic): `slabsim validate`.  NULL: none. */
  SimDecisions     *modelled;
  /* Written the replay as an ftrace-text trace (run --emit-trace). */
  SimTraceEmit     *emit;
  /* Called every 65536 trace events with the slab events replayed so far
   * (NULL: never).  The replay itself never prints. */
  void            (*progress) (guint64 events, gpointer user_data);
  gpointer          progress_data;
  /* Read the events from this file (a native conversion of the trace,
   * sim/sweep/) instead; messages still name the trace.  NULL: the trace. */
  const char       *read_path;
  /* The decoded-trace cache (traces/stream.h): its directory, NULL = off,
   * and its bound in bytes (0: the default). */
  const char       *trace_cache;
  guint64           trace_cache_max;
  /* sim_replay_run_many: when set, *info is made the trace's summary
   * (traces/info.h) from the same decode (run --format json). */
  SimTraceInfo    **info;
} SimReplayOptions;

/* Cycle distribution of one kind of operation. */
typedef struct {
  guint64 count;
  guint64 total;
  guint64 max;
  guint64 *buckets;               /* see replay.c: exact below 1024, then 1/64 steps */
} SimCycleHist;

guint64 sim_cycle_hist_percentile (const SimCycleHist *h, double pct);

typedef struct {
  char *allocator;                /* "slub" */
  char *kernel;                   /* "2.6.34" */
  char *params;                   /* canonical "key=value,..." */
  SimAllocReport alloc;
  SimCpuMemStats mem;             /* summed over CPUs */
  SimCpuMemStats *mem_per_cpu;    /* [n_cpus] when per_cpu */
  guint n_cpus;
  SimPageStats pages;
  guint64 sim_cycles;             /* the largest CPU clock at the end */
  SimCycleHist alloc_cycles;
  SimCycleHist free_cycles;
  guint64 lock_wait_cycles;
  /* Where the allocator cycles went: instructions charged by the model
   * and memory latency from the cache model (lock waits above). */
  guint64 alloc_instr, alloc_mem_cycles;
  guint64 free_instr, free_mem_cycles;
  /* What the replay did with the trace's events. */
  guint64 events;
  guint64 allocs_replayed, frees_replayed, implicit_frees_replayed;
  /* Frees the trace shows only by a pointer coming back or its page being
   * freed (sim/run/untraced.h): lifetimes found each way, and the frees
   * the replay made for them, as kfree at the page free or as kfree_rcu a
   * grace period before the evidence (frees at a tree's destruction are
   * counted with the page ones: both are kfree at the evidence). */
  guint64 untraced_by_reuse, untraced_by_page_free, untraced_by_mm_destroy;
  guint64 untraced_page_frees, untraced_kfree_rcu;
  guint64 untraced_reused_after, untraced_contradicted;
  /* RCU callbacks run, and still waiting for their grace period at the end. */
  guint64 rcu_callbacks, rcu_pending;
  guint64 skipped_failed_allocs, skipped_null_frees, skipped_unknown_frees;
  /* The recording kernel's own allocations and their frees
   * (traces/internal.h), left out of the replay. */
  guint64 skipped_internal_allocs, skipped_internal_frees;
  /* The model's own allocations (SimInternalObserver: slub@6.18's
   * sheaves) and frees, cache creation included, warm start not. */
  guint64 model_internal_allocs, model_internal_frees;
  /* --warm: objects placed before the replay, their frees replayed (in
   * frees), unknown frees that could not be placed. */
  guint64 warm_objects, warm_frees, warm_unplaced;
  /* kmallocs above the model's kmalloc_max (NULL in that kernel), and the
   * frees (explicit or implicit) of their pointers */
  guint64 refused_allocs, skipped_refused_frees;
  guint64 events_without_cpu;     /* no [cpu] in the trace: replayed on CPU 0 */
  /* --lenient: trace lines skipped because they did not parse. */
  guint64 malformed_lines;
  /* --check: times the invariant checkers ran (and all held). */
  guint64 checks;
  guint64 caches_created;
  /* The trace's page events (sim/run/page-events.h).  Slab pages: the
   * recording kernel's slab and large-kmalloc blocks, never replayed (the
   * model takes its own).  Other pages: the rest, replayed through the
   * model's page allocator when page_events_replayed.  Frees of pages the
   * trace never allocated (before recording) are unknown; the second
   * tracepoint of one free (mm_page_free_batched after mm_page_free) is
   * repeated; a page allocated again without a free in between is freed
   * first (implicit).  The kernel's pcp drains are counted, not replayed. */
  gboolean page_events_replayed;
  guint64 slab_page_allocs, slab_page_frees;
  guint64 other_page_allocs, other_page_frees;
  guint64 page_allocs_replayed, page_frees_replayed;
  guint64 page_frees_unknown, page_frees_repeated, page_implicit_frees;
  guint64 pcp_drain_events;
  guint64 page_event_cycles;      /* cycles of the replayed page operations */
  /* The CPU map used: machine CPU of each trace CPU ([n_cpus]; the first
   * cpu_map_given were asked for, the rest complete the permutation), and
   * which trace CPUs had events ([n_cpus], 0 or 1). */
  guint   *cpu_map;
  guint    cpu_map_given;
  gboolean cpu_map_compact;
  guint8  *trace_cpu_used;
} SimReplayResult;

void sim_replay_result_clear (SimReplayResult *r);

/* Notes on how the trace's CPUs sit on @m (for the reports, text and
 * JSON): when it used fewer CPUs than the machine has (per-CPU sizing
 * follows the machine), and when its CPUs land on more than one socket.
 * Strings in a new array (g_free). */
GPtrArray *sim_replay_cpu_notes (const SimReplayResult *r, const SimMachine *m);
/* Trace CPUs with events, and the sockets their machine CPUs are on. */
guint sim_replay_trace_cpus (const SimReplayResult *r);
guint sim_replay_sockets_used (const SimReplayResult *r, const SimMachine *m);

/* Replay @trace through the allocator @spec ("slub@2.6.34:slub_max_order=3").
 * Errors: the trace's (SIM_TRACE_ERROR), the spec's (SIM_USAGE_ERROR /
 * SIM_MODEL_ERROR_INVALID_PARAM), a broken invariant (SIM_MODEL_ERROR). */
gboolean sim_replay_run (const char *trace, const char *spec,
                         const SimReplayOptions *opt, SimReplayResult *out,
                         GError **error);

/* Read once, replay many: decode @trace once and replay it through the
 * @n allocators @specs side by side, on a pool of @jobs threads (0: all in
 * the calling thread), into @out[0..n-1].  The results are the bytes of n
 * serial sim_replay_run calls, and so is the error: the first allocator's
 * own, or the trace's when the first allocator still running met it.  All
 * n replays are live at once (their models, memory systems and page
 * allocators); the trace is held as two chunks (traces/stream.h). */
gboolean sim_replay_run_many (const char *trace, const char *const *specs, guint n,
                              const SimReplayOptions *opt, guint jobs,
                              SimReplayResult *out, GError **error);

/* One replay, fed by the caller (sim_replay_run_many drives these). */
typedef struct _SimReplay SimReplay;
SimReplay *sim_replay_new (const char *spec, const SimReplayOptions *opt,
                           SimReplayResult *out, GError **error);
/* Bind the replay to @stream's strings and name (@trace as the caller
 * named it) and place @warm's objects (NULL: none). */
gboolean sim_replay_begin (SimReplay *rp, const char *trace, SimTraceStream *stream,
                           const SimWarmSet *warm, const SimPageClass *pages,
                           const SimUntracedSet *untraced, GError **error);
gboolean sim_replay_feed (SimReplay *rp, const SimTraceEvent *ev, guint n, GError **error);
/* The same with the answers for just these events (the pipelined run,
 * sim/run/prepass.h): @pages for their page allocations, @untraced the
 * frees placed among them; both kept until the next call (or finish). */
gboolean sim_replay_feed_chunk (SimReplay *rp, const SimTraceEvent *ev, guint n,
                                const SimPageClass *pages, const SimUntracedSet *untraced,
                                GError **error);
/* The untraced set's counters into the result (begin does it when given
 * the set; the pipelined run once the pre-pass has ended). */
void sim_replay_untraced_counts (SimReplay *rp, const SimUntracedSet *untraced);
/* The final check and the report into the result. */
gboolean sim_replay_finish (SimReplay *rp, GError **error);
void sim_replay_free (SimReplay *rp);
/* The names of the caches @rp's model has now, each cache's name then its
 * aliases (a GPtrArray of strings; free with g_ptr_array_unref).  Right
 * after sim_replay_new: the caches the era makes at boot (kmalloc caches,
 * merged aliases), before any trace event; `run --view slabinfo-r=CACHE`
 * checks its name against them before replaying. */
GPtrArray *sim_replay_cache_names (SimReplay *rp);

G_END_DECLS
