/* untraced.h - the frees a recording shows only by their consequences.
 *
 * Some kernel free paths have no kmem tracepoint: kfree_rcu (6.18's
 * rcu_free sheaf, or kvfree_rcu's batches), kmem_cache_free_bulk and the
 * sheaf flushes it feeds, the per-CPU skb caches.  A trace then shows an
 * object allocated and never freed, until either
 *   - its pointer is allocated again (an implicit free: the replay frees
 *     the old object just before, on the allocating CPU), or
 *   - the page its slab lived on is freed (mm_page_free of the block):
 *     every object in it had been freed by then, or
 *   - (maple_node) the tree it belonged to is destroyed: exit_mmap frees
 *     a tree's nodes with kmem_cache_free_bulk and only the last with a
 *     traced kfree (call_site __mt_destroy).  Which address space a node
 *     belongs to is read from the task that allocated it and the mm_struct
 *     allocations of fork (copy_process) and exec (mm_alloc); see
 *     mm_event() in untraced.c for the rules and where they can be wrong
 *     (another maple tree destroyed by a task, a task first seen mid-life).
 * This pass reads the trace once and turns both kinds of evidence into
 * frees the replay makes (sim/run/replay.c):
 *   - for a cache whose untraced frees are kfree_rcu
 *     (SimKernelCache.untraced_free, maple_node), a kfree_rcu on the
 *     allocating CPU at the latest time the evidence allows: one grace
 *     period before the pointer came back or its page was freed, but not
 *     before its allocation.  The model then does what its kernel does
 *     with it (rcu_free sheaf, grace period, barn or slabs);
 *   - a destroyed tree's nodes: a kfree at the __mt_destroy, on its CPU
 *     (the bulk free);
 *   - for any other cache, a kfree at the page free, on the CPU that
 *     freed the page (reuse stays the replay's implicit free).
 * Only pointers in the direct map count (hashed pointers say nothing
 * about pages), and only lifetimes the trace saw begin.  Objects whose
 * pointer never returns and whose page stays allocated remain live, as
 * they would in any replay.
 * The pass holds the live lifetimes, the pages holding one and one grace
 * period of timestamps, not the trace (untraced.c says how).
 */
#pragma once

#include <glib.h>
#include "traces/stream.h"

G_BEGIN_DECLS

typedef enum {
  SIM_UNTRACED_FREE,         /* kfree at the evidence */
  SIM_UNTRACED_KFREE_RCU,    /* kfree_rcu a grace period before it */
} SimUntracedKind;

typedef enum {
  SIM_UNTRACED_BY_REUSE,     /* the pointer was allocated again */
  SIM_UNTRACED_BY_PAGE_FREE, /* its page was freed */
  SIM_UNTRACED_BY_MM_DESTROY,/* its address space's maple tree was destroyed */
} SimUntracedEvidence;

typedef struct {
  guint64 ts_ns;             /* when the replay makes the free */
  guint64 ptr;
  guint64 alloc_line;        /* the allocation whose lifetime it ends (diagnostics) */
  guint64 before_index;      /* made just before the event of this ordinal (from 0):
                              * the first after its time, but after its allocation
                              * and no later than the event that showed it */
  guint   cpu;
  SimUntracedKind kind;
  SimUntracedEvidence evidence;
} SimUntracedFree;

typedef struct {
  GArray *frees;             /* SimUntracedFree, by before_index */
  guint64 by_reuse, by_page_free, by_mm_destroy;
  /* Of the lifetimes a page free or a tree's end closed: pointers later
   * allocated again (what a trace accountant then calls implicit), and
   * pointers the trace later frees explicitly (the inference was wrong
   * about those: the replay has freed them already). */
  guint64 reused_after, contradicted;
} SimUntracedSet;

/* The pass, fed by the caller with the trace's events in order (the
 * replay's one decode, sim/run/prepass.h).  @grace_period_ns: how far
 * before the evidence a kfree_rcu is placed. */
typedef struct _SimUntracedCollector SimUntracedCollector;
SimUntracedCollector *sim_untraced_collector_new (guint64 grace_period_ns);
void sim_untraced_collector_feed (SimUntracedCollector *u, const SimTraceStrings *strs,
                                  const SimTraceEvent *ev, guint n);
/* The frees made since the previous call (in the order they were made,
 * not yet sorted): *@n of them, valid until the next feed.  The pipelined
 * run (sim/run/prepass.h) hands them to the replays as they become final. */
const SimUntracedFree *sim_untraced_collector_new_frees (SimUntracedCollector *u, guint *n);
/* Sort @frees (SimUntracedFree) into the order the replay makes them, as
 * finish does (a stable sort: frees of equal place keep their order). */
void sim_untraced_frees_sort (GArray *frees);
/* The set (sorted) into @out; frees @u. */
void sim_untraced_collector_finish (SimUntracedCollector *u, SimUntracedSet *out);
/* Abandon @u (NULL: nothing). */
void sim_untraced_collector_free (SimUntracedCollector *u);

/* Every free placed before the event of this ordinal (before_index < it)
 * has been collected: no later feed adds one there (a kfree_rcu looks back
 * at most a grace period, see untraced.c).  It follows the events fed,
 * about one grace period of trace time behind; after the last feed, every
 * free is final. */
guint64 sim_untraced_collector_final_before (const SimUntracedCollector *u);
/* The frees collected so far, in the order found (sorted only by
 * _finish); valid until the next feed. */
const GArray *sim_untraced_collector_frees (const SimUntracedCollector *u);

/* What the collector holds now (for tests and docs/perf/untraced-12.md):
 * memory follows the live objects and one grace period of events, not the
 * trace's length. */
typedef struct {
  guint64 records, records_peak; /* lifetime records live / slots ever made */
  guint64 pages;                 /* direct-map pages holding a live lifetime */
  guint64 tasks, mms;            /* tasks and address spaces tracked */
  guint64 ended;                 /* pointers closed by a page free or tree end,
                                  * not seen again (bounded by the addresses) */
  guint64 window, window_peak;   /* timestamps kept */
  guint64 frees;                 /* inferred frees so far (the output) */
  guint64 unsure;                /* placements that read past a dropped timestamp
                                  * that may have been later than theirs (only
                                  * if timestamps run backwards; 0 in order) */
} SimUntracedStats;
void sim_untraced_collector_stats (const SimUntracedCollector *u, SimUntracedStats *out);

/* Read @trace once (its own decode) and collect the set. */
gboolean sim_untraced_collect (const char *trace, gboolean lenient, guint64 grace_period_ns,
                               SimUntracedSet *out, GError **error);
void sim_untraced_set_clear (SimUntracedSet *s);

G_END_DECLS
