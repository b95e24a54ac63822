/* alloc.c - helpers shared by the allocator models; see alloc.h. */
#include "models/alloc/alloc.h"

/* ------------------------------------------------------------------ */
/* The core timing model (see SimOp in alloc.h).                        */

/* An L1d miss wants a fill buffer at @ti: the first time at or after @ti
 * when fewer than fill_buffers misses are in flight.  Records the miss
 * (done at issue + @lat) and returns its issue time. */
static SimTime
fb_issue (SimOp *op, SimTime ti, guint32 lat)
{
  guint lim = MIN (op->core->fill_buffers, SIM_CORE_MAX_MISSES);
  /* Fill buffers are handed out in program order: no miss issues before
   * the one before it (which also keeps the table a true picture of every
   * time from miss_floor on). */
  ti = MAX (ti, op->miss_floor);
  for (;;)
    {
      guint k = 0;
      SimTime earliest = G_MAXUINT64;
      for (guint i = 0; i < op->n_miss; i++)
        if (op->miss[i] > ti)
          {
            earliest = MIN (earliest, op->miss[i]);
            op->miss[k++] = op->miss[i];
          }
      op->n_miss = k;
      if (k < lim)
        break;
      ti = earliest;
    }
  op->miss[op->n_miss++] = ti + lat;
  op->miss_floor = ti;
  return ti;
}

/* Forget stores that have committed by now; if the buffer is still full,
 * stall until its oldest store commits. */
static void
sb_make_room (SimOp *op)
{
  guint cap = MIN (op->core->store_buffer, SIM_CORE_MAX_STORES);
  for (;;)
    {
      while (op->sb_n && op->sb[op->sb_head] <= op->t)
        {
          op->sb_head = (op->sb_head + 1) % SIM_CORE_MAX_STORES;
          op->sb_n--;
        }
      if (op->sb_n < cap)
        return;
      sim_op_stall (op, op->sb[op->sb_head]);
    }
}

/* Stores commit to L1d in program order, one per cycle at most. */
static void
sb_push (SimOp *op, SimTime done)
{
  SimTime commit = MAX (done, op->sb_last + 1);
  op->sb[(op->sb_head + op->sb_n) % SIM_CORE_MAX_STORES] = commit;
  op->sb_n++;
  op->sb_last = commit;
}

/* Everything a serial access does: wait for @after, then for the access. */
static SimTok
serial_wait (SimOp *op, SimTok after, guint32 lat)
{
  sim_op_stall (op, after);
  op->t += lat;
  op->cost.mem_cycles += lat;
  op->last = op->loads_done = MAX (op->loads_done, op->t);
  return op->t;
}

SimTok
sim_op_load (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimTok after)
{
  guint32 lat = sim_memsys_access_class (op->mem, op->cpu, addr, size, SIM_ACC_READ, cls);
  op->cost.accesses++;
  if (op->serial)
    return serial_wait (op, after, lat);
  SimTime ti = MAX (op->t, after);
  if (lat > op->hit_latency)
    ti = fb_issue (op, ti, lat);
  SimTok ready = ti + lat;
  op->last = ready;
  op->loads_done = MAX (op->loads_done, ready);
  return ready;
}

void
sim_op_store (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimTok after)
{
  guint32 lat = sim_memsys_access_class (op->mem, op->cpu, addr, size, SIM_ACC_WRITE, cls);
  op->cost.accesses++;
  if (op->core->store_buffer == 0)
    {
      /* No store buffer: the store waits for its data and its line. */
      sim_op_stall (op, after);
      op->t += lat;
      op->cost.mem_cycles += lat;
      return;
    }
  sb_make_room (op);
  /* The line is requested (RFO) once the store's data and address are
   * known; a miss holds a fill buffer like a load's. */
  SimTime ready = MAX (op->t, after);
  if (lat > op->hit_latency)
    ready = fb_issue (op, ready, lat);
  sb_push (op, ready + lat);
}

void
sim_op_drain (SimOp *op)
{
  SimTime until = op->loads_done;
  if (op->sb_n)
    until = MAX (until, op->sb_last);
  sim_op_stall (op, until);
  op->sb_n = 0;
  op->n_miss = 0;
}

SimTok
sim_op_atomic (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimXCost x)
{
  sim_op_drain (op);
  guint32 lat = sim_memsys_access_class (op->mem, op->cpu, addr, size, SIM_ACC_RMW, cls);
  op->cost.accesses++;
  op->t += lat;
  op->cost.mem_cycles += lat;
  sim_op_xcost (op, x);
  op->last = op->loads_done = op->t;
  return op->t;
}

/* The load half of an unlocked read-modify-write; waited for. */
static void
rmw_load (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimTok after)
{
  guint32 lat = sim_memsys_access_class (op->mem, op->cpu, addr, size, SIM_ACC_RMW, cls);
  op->cost.accesses++;
  if (op->serial)
    {
      serial_wait (op, after, lat);
      return;
    }
  SimTime ti = MAX (op->t, after);
  if (lat > op->hit_latency)
    ti = fb_issue (op, ti, lat);
  sim_op_stall (op, ti + lat);
  op->last = op->loads_done = MAX (op->loads_done, op->t);
}

/* Its store half: the line is owned now, the store commits at once when
 * the buffer lets it. */
static void
rmw_store (SimOp *op)
{
  if (op->core->store_buffer == 0)
    return;
  sb_make_room (op);
  sb_push (op, op->t);
}

SimTok
sim_op_rmw_local (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimXCost x,
                  SimTok after)
{
  rmw_load (op, addr, size, cls, after);
  sim_op_xcost (op, x);
  rmw_store (op);
  return op->t;
}

void
sim_op_access (SimOp *op, SimAddr addr, guint32 size, SimAccKind kind, SimMemClass cls)
{
  switch (kind)
    {
    case SIM_ACC_READ:
      sim_op_read (op, addr, size, cls);
      return;
    case SIM_ACC_WRITE:
      sim_op_write (op, addr, size, cls);
      return;
    case SIM_ACC_RMW:
    default:
      rmw_load (op, addr, size, cls, op->last);
      rmw_store (op);
      return;
    }
}

void
sim_op_touch_range (SimOp *op, SimAddr addr, guint64 len, SimAccKind kind, SimMemClass cls)
{
  /* One access per cache line the range covers, as a memset/memcpy loop
   * would (the hardware does it in wider stores, but every line is
   * touched once).  The lines' addresses are known up front: they do not
   * wait for each other, only for what the range's address came from. */
  if (len == 0)
    return;
  SimTok after = op->last;
  SimTok all = op->t;
  SimAddr end = addr + len;
  SimAddr a = addr & ~(SimAddr) 63;
  for (; a < end; a += 64)
    {
      SimAddr s = MAX (a, addr);
      SimAddr e = MIN (a + 64, end);
      guint32 n = (guint32) (e - s);
      if (kind == SIM_ACC_READ)
        {
          SimTok r = sim_op_load (op, s, n, cls, after);
          all = MAX (all, r);
        }
      else if (kind == SIM_ACC_WRITE)
        sim_op_store (op, s, n, cls, after);
      else
        sim_op_access (op, s, n, kind, cls);
    }
  if (kind == SIM_ACC_READ)
    sim_op_use (op, all);
}

void
sim_alloc_report_init (SimAllocReport *r)
{
  r->rows = g_array_new (FALSE, TRUE, sizeof (SimAllocCacheRow));
  r->large_pages = 0;
}

void
sim_alloc_report_clear (SimAllocReport *r)
{
  if (r->rows == NULL)
    return;
  for (guint i = 0; i < r->rows->len; i++)
    {
      SimAllocCacheRow *row = &g_array_index (r->rows, SimAllocCacheRow, i);
      g_free (row->name);
      g_strfreev (row->aliases);
      g_free (row->stats);
    }
  g_array_unref (r->rows);
  r->rows = NULL;
}

/* ------------------------------------------------------------------ */
/* Deferred work: RCU callbacks                                          */

void
sim_alloc_deferred_begin (const SimAllocEnv *env, SimOp *op, guint cpu)
{
  sim_op_begin (op, env->mem, cpu, env->eng ? sim_engine_cpu_clock (env->eng, cpu) : 0);
}

void
sim_alloc_deferred_end (const SimAllocEnv *env, SimOp *op)
{
  if (env->eng)
    sim_engine_cpu_advance (env->eng, op->cpu, sim_op_cycles (op));
}

typedef struct {
  const SimAllocEnv *env;
  SimAllocFreeFn free;
  gpointer m;
  SimAddr addr;
} RcuFree;

static void
rcu_free_cb (gpointer data, guint cpu, guint64 arg)
{
  (void) arg;
  RcuFree *r = data;
  SimOp op;
  sim_alloc_deferred_begin (r->env, &op, cpu);
  /* The object was the model's when it was queued; nothing can have freed
   * it since (the caller gave it up). */
  gboolean ok = r->free (r->m, &op, r->addr);
  g_assert (ok);
  sim_alloc_deferred_end (r->env, &op);
  g_free (r);
}

gboolean
sim_alloc_call_rcu_free (const SimAllocEnv *env, SimOp *op, SimAllocFreeFn free, gpointer m,
                         SimAddr addr)
{
  if (env->rcu == NULL)
    return free (m, op, addr);
  RcuFree *r = g_new (RcuFree, 1);
  *r = (RcuFree) { .env = env, .free = free, .m = m, .addr = addr };
  sim_rcu_call (env->rcu, op->cpu, rcu_free_cb, r, 0, g_free);
  return TRUE;
}
