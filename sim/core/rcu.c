/* rcu.c - RCU grace periods on the workload's clock; see rcu.h. */
#include "sim/core/rcu.h"

typedef struct {
  guint64  ready;            /* queued time + grace period */
  SimRcuFn fn;
  gpointer data;
  guint64  arg;
  GDestroyNotify drop;
  guint    cpu;
} Callback;

struct SimRcu {
  guint64 gp;
  guint64 now;
  GQueue  pending;           /* Callback *, in queueing order = ready order */
  guint64 invoked;
};

SimRcu *
sim_rcu_new (guint64 grace_period_ns)
{
  SimRcu *rcu = g_new0 (SimRcu, 1);
  rcu->gp = grace_period_ns;
  g_queue_init (&rcu->pending);
  return rcu;
}

void
sim_rcu_free (SimRcu *rcu)
{
  if (rcu == NULL)
    return;
  Callback *cb;
  while ((cb = g_queue_pop_head (&rcu->pending)))
    {
      if (cb->drop)
        cb->drop (cb->data);
      g_free (cb);
    }
  g_free (rcu);
}

guint64
sim_rcu_grace_period (const SimRcu *rcu)
{
  return rcu->gp;
}

void
sim_rcu_set_now (SimRcu *rcu, guint64 now_ns)
{
  if (now_ns > rcu->now)
    rcu->now = now_ns;
}

guint64
sim_rcu_now (const SimRcu *rcu)
{
  return rcu->now;
}

void
sim_rcu_call (SimRcu *rcu, guint cpu, SimRcuFn fn, gpointer data, guint64 arg,
              GDestroyNotify drop)
{
  Callback *cb = g_new (Callback, 1);
  *cb = (Callback) { .ready = rcu->now + rcu->gp, .fn = fn, .data = data, .arg = arg,
                     .drop = drop, .cpu = cpu };
  g_queue_push_tail (&rcu->pending, cb);
}

static guint64
run_until (SimRcu *rcu, gboolean all)
{
  guint64 n = 0;
  Callback *cb;
  /* A callback that queues another puts it at the tail with a later ready
   * time, so the loop stops at it unless @all (rcu_barrier waits for those
   * too). */
  while ((cb = g_queue_peek_head (&rcu->pending)) && (all || cb->ready <= rcu->now))
    {
      g_queue_pop_head (&rcu->pending);
      Callback c = *cb;
      g_free (cb);
      c.fn (c.data, c.cpu, c.arg);
      n++;
      rcu->invoked++;
    }
  return n;
}

guint64
sim_rcu_run (SimRcu *rcu)
{
  return run_until (rcu, FALSE);
}

guint64
sim_rcu_advance (SimRcu *rcu, guint64 now_ns)
{
  if (now_ns > rcu->now)
    rcu->now = now_ns;
  /* The replay asks before every event; a callback is rarely due. */
  const GList *head = rcu->pending.head;
  if (head == NULL || ((const Callback *) head->data)->ready > rcu->now)
    return 0;
  return run_until (rcu, FALSE);
}

guint64
sim_rcu_barrier (SimRcu *rcu)
{
  return run_until (rcu, TRUE);
}

gsize
sim_rcu_pending (const SimRcu *rcu)
{
  return rcu->pending.length;
}

guint64
sim_rcu_invoked (const SimRcu *rcu)
{
  return rcu->invoked;
}
