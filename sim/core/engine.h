/* engine.h - the discrete-event core: simulated time, per-CPU clocks, an
 * event queue ordered by (time, cpu, sequence), and shared resources.
 *
 * Time is counted in simulated CPU cycles of the modelled machine.  Every
 * CPU has its own clock, which only moves forward: an operation performed
 * on a CPU advances that CPU's clock by its cost (instructions, memory
 * latency returned by the cache model, lock waits).  Events (trace records
 * released at their time, periodic work such as SLAB's cache_reap) are kept
 * in a binary heap whose key is (time, cpu, sequence number); the sequence
 * number is the order of scheduling, so two events at the same time on the
 * same CPU always run in the order they were scheduled and the result never
 * depends on the heap's internal layout.  Nothing here reads the wall clock.
 *
 * Shared resources are spinlocks with a busy-until time (SimLock): a CPU that
 * wants a lock held by another CPU until t waits until t, and the wait is
 * counted as contention.  A lock remembers who released it last: a CPU never
 * waits for its own release (its clock can be behind a release it made only
 * when work outside any charged operation ran on it, and a CPU cannot wait
 * for itself), only for another CPU's.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef guint64 SimTime;                /* simulated cycles since start */
#define SIM_TIME_NEVER G_MAXUINT64

typedef struct SimEngine SimEngine;
typedef void (*SimEventFn) (SimEngine *eng, gpointer data, guint64 arg);

/* The first members of the engine (engine.c), which the per-event calls
 * below read in line: the replay asks for a clock and runs due events on
 * every trace event.  Not for use outside these accessors. */
typedef struct {
  guint    n_cpus;
  SimTime *clock;
  GArray  *heap;               /* the queue; an event's time is its first member */
} SimEngineHot_;

SimEngine *sim_engine_new       (guint n_cpus);
void       sim_engine_free      (SimEngine *eng);
guint      sim_engine_n_cpus    (const SimEngine *eng);

/* Schedule @fn(@data, @arg) at time @at on @cpu; returns an id for
 * sim_engine_cancel().  @at may be in the past: the event then runs next. */
guint64    sim_engine_schedule  (SimEngine *eng, SimTime at, guint cpu,
                                 SimEventFn fn, gpointer data, guint64 arg);
/* Cancel a pending event; FALSE if it already ran or never existed. */
gboolean   sim_engine_cancel    (SimEngine *eng, guint64 id);
gsize      sim_engine_pending   (const SimEngine *eng);

/* Run events in order while their time is <= @until (SIM_TIME_NEVER: until
 * the queue is empty).  Returns the number of events run. */
guint64    sim_engine_run_due_  (SimEngine *eng, SimTime until);
static inline guint64
sim_engine_run (SimEngine *eng, SimTime until)
{
  const SimEngineHot_ *h = (const SimEngineHot_ *) (gconstpointer) eng;
  if (h->heap->len == 0 || *(const SimTime *) (gconstpointer) h->heap->data > until)
    return 0;
  return sim_engine_run_due_ (eng, until);
}
/* Run exactly one event, if any; FALSE when the queue is empty. */
gboolean   sim_engine_step      (SimEngine *eng);
/* Time of the earliest pending event, or SIM_TIME_NEVER. */
SimTime    sim_engine_next_time (const SimEngine *eng);

/* Global time: the time of the event being (or last) run. */
SimTime    sim_engine_now       (const SimEngine *eng);

/* Per-CPU clocks. */
static inline SimTime
sim_engine_cpu_clock (const SimEngine *eng, guint cpu)
{
  const SimEngineHot_ *h = (const SimEngineHot_ *) (gconstpointer) eng;
  g_return_val_if_fail (cpu < h->n_cpus, 0);
  return h->clock[cpu];
}
/* Move @cpu's clock forward to @t if it is behind (never backwards). */
static inline void
sim_engine_cpu_sync (SimEngine *eng, guint cpu, SimTime t)
{
  const SimEngineHot_ *h = (const SimEngineHot_ *) (gconstpointer) eng;
  g_return_if_fail (cpu < h->n_cpus);
  if (h->clock[cpu] < t)
    h->clock[cpu] = t;
}
/* Advance @cpu's clock by @cycles; returns the new clock. */
static inline SimTime
sim_engine_cpu_advance (SimEngine *eng, guint cpu, guint64 cycles)
{
  const SimEngineHot_ *h = (const SimEngineHot_ *) (gconstpointer) eng;
  g_return_val_if_fail (cpu < h->n_cpus, 0);
  h->clock[cpu] += cycles;
  return h->clock[cpu];
}
/* The largest per-CPU clock: the simulated makespan. */
SimTime    sim_engine_max_clock (const SimEngine *eng);

/* A spinlock as a shared resource. */
typedef struct {
  const char *name;          /* for reports; not owned */
  SimTime busy_until;        /* released at this time */
  gint    holder;            /* CPU holding it, -1 when free */
  gint    released_by;       /* CPU that released it last, -1 never */
  guint64 acquisitions;
  guint64 contended;         /* acquisitions that had to wait */
  guint64 wait_cycles;       /* total cycles spent waiting */
  guint64 hold_cycles;       /* total cycles held */
  SimTime acquired_at;
} SimLock;

void    sim_lock_init    (SimLock *lock, const char *name);
/* @cpu asks for @lock at its time @now; returns the time at which it holds
 * the lock (>= @now).  The caller advances its clock to that time. */
SimTime sim_lock_acquire (SimLock *lock, guint cpu, SimTime now);
/* Release at time @at (the holder's clock after its critical section). */
void    sim_lock_release (SimLock *lock, guint cpu, SimTime at);
/* Would @cpu asking at @now have to wait (another CPU holds it then)?
 * For trylock paths. */
gboolean sim_lock_busy   (const SimLock *lock, guint cpu, SimTime now);

G_END_DECLS
