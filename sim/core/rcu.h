/* rcu.h - RCU grace periods on the workload's clock.
 *
 * call_rcu(head, fn) runs fn after a grace period, in softirq on the CPU
 * that queued it (callbacks are not offloaded: CONFIG_RCU_NOCB_CPU without
 * rcu_nocbs= in the recording kernel), in the order they were queued.  A
 * grace period passes in wall-clock time, while the workload's user space
 * runs too, so the clock here is the workload's own: the trace timestamps
 * (nanoseconds) the replay hands in with sim_rcu_set_now(), not the
 * simulated cycles of the allocator's work, which leave out everything
 * between two allocator calls.  A callback queued at t is ready at t + the
 * grace period; sim_rcu_run() runs every ready callback, oldest first
 * (queued times never decrease, so ready times do not either).  What runs
 * the callback (its SimOp, which CPU's clock it advances) is the caller's
 * business: the callback gets the CPU.
 *
 * Left out: expedited and lazy grace periods (call_rcu_hurry vs the lazy
 * default of CONFIG_RCU_LAZY, which only applies to offloaded CPUs), the
 * variation of grace-period length with load, and callback batching limits
 * (blimit): every ready callback runs at once.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct SimRcu SimRcu;
/* A callback: @data and @arg as given to sim_rcu_call, @cpu the CPU that
 * queued it. */
typedef void (*SimRcuFn) (gpointer data, guint cpu, guint64 arg);

SimRcu  *sim_rcu_new      (guint64 grace_period_ns);
/* Pending callbacks are dropped without running; their @drop (if any) is
 * called on their data. */
void     sim_rcu_free     (SimRcu *rcu);
guint64  sim_rcu_grace_period (const SimRcu *rcu);
/* The workload's clock; never moves backwards (an earlier time is ignored). */
void     sim_rcu_set_now  (SimRcu *rcu, guint64 now_ns);
guint64  sim_rcu_now      (const SimRcu *rcu);
/* call_rcu on @cpu at the current time.  @drop (NULL: none) frees @data
 * if the callback never runs (sim_rcu_free with it pending). */
void     sim_rcu_call     (SimRcu *rcu, guint cpu, SimRcuFn fn, gpointer data, guint64 arg,
                           GDestroyNotify drop);
/* Run the callbacks whose grace period has ended; a callback may queue
 * more (they wait for their own grace period).  Returns how many ran. */
guint64  sim_rcu_run      (SimRcu *rcu);
/* sim_rcu_set_now (@now_ns) and sim_rcu_run in one call. */
guint64  sim_rcu_advance  (SimRcu *rcu, guint64 now_ns);
/* rcu_barrier(): run every pending callback now, whatever its time. */
guint64  sim_rcu_barrier  (SimRcu *rcu);
gsize    sim_rcu_pending  (const SimRcu *rcu);
guint64  sim_rcu_invoked  (const SimRcu *rcu);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimRcu, sim_rcu_free)

G_END_DECLS
