/* engine.c - event queue, per-CPU clocks and locks; see engine.h. */
#include "sim/core/engine.h"

typedef struct {
  SimTime    at;
  guint      cpu;
  guint64    seq;              /* also the event id */
  SimEventFn fn;
  gpointer   data;
  guint64    arg;
} SimEvent;
G_STATIC_ASSERT (G_STRUCT_OFFSET (SimEvent, at) == 0);   /* sim_engine_run reads it in line */

struct SimEngine {
  /* First, as engine.h's SimEngineHot_ (the inline clock accessors). */
  guint     n_cpus;
  SimTime  *clock;             /* per-CPU clocks */
  GArray   *heap;              /* of SimEvent, min-heap on (at, cpu, seq) */
  SimTime   now;
  guint64   next_seq;
  GHashTable *cancelled;       /* ids cancelled but still in the heap */
};
G_STATIC_ASSERT (G_STRUCT_OFFSET (struct SimEngine, n_cpus) == G_STRUCT_OFFSET (SimEngineHot_, n_cpus)
                 && G_STRUCT_OFFSET (struct SimEngine, clock) == G_STRUCT_OFFSET (SimEngineHot_, clock)
                 && G_STRUCT_OFFSET (struct SimEngine, heap) == G_STRUCT_OFFSET (SimEngineHot_, heap));

static inline gboolean
ev_before (const SimEvent *a, const SimEvent *b)
{
  if (a->at != b->at)
    return a->at < b->at;
  if (a->cpu != b->cpu)
    return a->cpu < b->cpu;
  return a->seq < b->seq;
}

SimEngine *
sim_engine_new (guint n_cpus)
{
  g_return_val_if_fail (n_cpus > 0, NULL);
  SimEngine *eng = g_new0 (SimEngine, 1);
  eng->n_cpus = n_cpus;
  eng->clock = g_new0 (SimTime, n_cpus);
  eng->heap = g_array_new (FALSE, FALSE, sizeof (SimEvent));
  eng->cancelled = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  eng->next_seq = 1;
  return eng;
}

void
sim_engine_free (SimEngine *eng)
{
  if (eng == NULL)
    return;
  g_array_unref (eng->heap);
  g_hash_table_destroy (eng->cancelled);
  g_free (eng->clock);
  g_free (eng);
}

guint
sim_engine_n_cpus (const SimEngine *eng)
{
  return eng->n_cpus;
}

static void
heap_push (GArray *heap, const SimEvent *ev)
{
  g_array_append_val (heap, *ev);
  SimEvent *h = (SimEvent *) heap->data;
  gsize i = heap->len - 1;
  while (i > 0)
    {
      gsize parent = (i - 1) / 2;
      if (!ev_before (&h[i], &h[parent]))
        break;
      SimEvent tmp = h[i];
      h[i] = h[parent];
      h[parent] = tmp;
      i = parent;
    }
}

static SimEvent
heap_pop (GArray *heap)
{
  SimEvent *h = (SimEvent *) heap->data;
  SimEvent top = h[0];
  h[0] = h[heap->len - 1];
  g_array_set_size (heap, heap->len - 1);
  gsize n = heap->len, i = 0;
  for (;;)
    {
      gsize l = 2 * i + 1, r = l + 1, m = i;
      if (l < n && ev_before (&h[l], &h[m]))
        m = l;
      if (r < n && ev_before (&h[r], &h[m]))
        m = r;
      if (m == i)
        break;
      SimEvent tmp = h[i];
      h[i] = h[m];
      h[m] = tmp;
      i = m;
    }
  return top;
}

guint64
sim_engine_schedule (SimEngine *eng, SimTime at, guint cpu, SimEventFn fn,
                     gpointer data, guint64 arg)
{
  g_return_val_if_fail (cpu < eng->n_cpus, 0);
  g_return_val_if_fail (fn != NULL, 0);
  SimEvent ev = { at, cpu, eng->next_seq++, fn, data, arg };
  heap_push (eng->heap, &ev);
  return ev.seq;
}

gboolean
sim_engine_cancel (SimEngine *eng, guint64 id)
{
  /* Lazy deletion: mark the id and drop the event when it surfaces. */
  SimEvent *h = (SimEvent *) eng->heap->data;
  for (guint i = 0; i < eng->heap->len; i++)
    if (h[i].seq == id)
      {
        if (g_hash_table_contains (eng->cancelled, &id))
          return FALSE;
        guint64 *key = g_new (guint64, 1);
        *key = id;
        g_hash_table_add (eng->cancelled, key);
        return TRUE;
      }
  return FALSE;
}

gsize
sim_engine_pending (const SimEngine *eng)
{
  return eng->heap->len - g_hash_table_size (eng->cancelled);
}

SimTime
sim_engine_next_time (const SimEngine *eng)
{
  /* Cancelled events may sit on top; they only make this an early bound,
   * which is what callers use it for. */
  if (eng->heap->len == 0)
    return SIM_TIME_NEVER;
  return ((const SimEvent *) eng->heap->data)[0].at;
}

gboolean
sim_engine_step (SimEngine *eng)
{
  while (eng->heap->len > 0)
    {
      SimEvent ev = heap_pop (eng->heap);
      if (g_hash_table_size (eng->cancelled) > 0 &&
          g_hash_table_remove (eng->cancelled, &ev.seq))
        continue;
      if (ev.at > eng->now)
        eng->now = ev.at;
      ev.fn (eng, ev.data, ev.arg);
      return TRUE;
    }
  return FALSE;
}

guint64
sim_engine_run_due_ (SimEngine *eng, SimTime until)
{
  guint64 n = 0;
  while (eng->heap->len > 0 && sim_engine_next_time (eng) <= until)
    if (sim_engine_step (eng))
      n++;
  return n;
}

SimTime
sim_engine_now (const SimEngine *eng)
{
  return eng->now;
}

SimTime
sim_engine_max_clock (const SimEngine *eng)
{
  SimTime m = 0;
  for (guint i = 0; i < eng->n_cpus; i++)
    m = MAX (m, eng->clock[i]);
  return m;
}

void
sim_lock_init (SimLock *lock, const char *name)
{
  *lock = (SimLock) { .name = name, .holder = -1, .released_by = -1 };
}

gboolean
sim_lock_busy (const SimLock *lock, guint cpu, SimTime now)
{
  if (lock->busy_until <= now)
    return FALSE;
  /* Held right now (inside an operation), or released in @cpu's future by
   * another CPU.  A release in its future by @cpu itself is not a wait:
   * nobody else had the lock in between (they would have become
   * released_by). */
  gint by = lock->holder >= 0 ? lock->holder : lock->released_by;
  return by != (gint) cpu;
}

SimTime
sim_lock_acquire (SimLock *lock, guint cpu, SimTime now)
{
  SimTime got = now;
  lock->acquisitions++;
  if (sim_lock_busy (lock, cpu, now))
    {
      /* Held by another CPU until busy_until: spin until then. */
      lock->contended++;
      lock->wait_cycles += lock->busy_until - now;
      got = lock->busy_until;
    }
  lock->holder = (gint) cpu;
  lock->acquired_at = got;
  lock->busy_until = SIM_TIME_NEVER;   /* held until released */
  return got;
}

void
sim_lock_release (SimLock *lock, guint cpu, SimTime at)
{
  g_return_if_fail (lock->holder == (gint) cpu);
  if (at < lock->acquired_at)
    at = lock->acquired_at;
  lock->hold_cycles += at - lock->acquired_at;
  lock->busy_until = at;
  lock->released_by = (gint) cpu;
  lock->holder = -1;
}
