/* alloc.c - helpers shared by the allocator models; see alloc.h. */
#include "models/alloc/alloc.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* The core timing model (see SimOp and SimCoreState in alloc.h).       */

/* The reorder window is empty (what the window tests and the push's
 * merge compare with names no instruction). */
static inline void
window_empty (SimCoreState *cs)
{
  cs->rob_n = 0;
  cs->rob_stop = G_MAXUINT64;
  cs->rob_tail_seq = G_MAXUINT64;
}

static void
core_reset (SimCoreState *cs, SimTime now)
{
  cs->seq = 0;
  cs->t_hi = now;
  cs->loads_done = cs->retired = now;
  cs->miss_floor = now;
  cs->n_miss = 0;
  /* Empty, keeping the stores' numbering (sb_pushed): the index's
   * entries all name stores no longer in the buffer. */
  cs->sb_head = (guint) (cs->sb_pushed & (SIM_CORE_MAX_STORES - 1));
  cs->sb_n = 0;
  cs->sb_last = now;
  /* Those stores' commit times may lie after @now: cleared, so that the
   * time index does not send loads the long way for them (it would only
   * cost a scan that finds nothing: the buffer is empty). */
  memset (cs->sb_line_commit, 0, sizeof cs->sb_line_commit);
  cs->rob_head = 0;
  window_empty (cs);
}

/* A CPU's pipeline as its memory system's slot holds it: the state, and
 * the SimOp an operation on that CPU begins as (the core's parameters
 * copied once, host speed only: sim_op_begin is a copy, not three calls
 * into the memory system and a dozen stores). */
typedef struct {
  SimCoreState cs;
  SimOp        proto;
} CoreSlot;

static G_GNUC_NO_INLINE void
op_begin_slow (SimOp *op, SimMemSys *mem, guint cpu, SimTime now, gpointer *slot)
{
  const SimCoreSpec *core = sim_memsys_core (mem);
  op->mem = mem;
  op->cpu = cpu;
  op->t = now;
  op->cost = (SimCost) { 0 };
  op->core = core;
  op->hit_latency = sim_memsys_hit_latency (mem);
  op->serial = core->fill_buffers <= 1;
  op->instr_frac = 0;
  op->last = op->loads_done = now;
  op->uncharged = FALSE;
  op->cs = NULL;
  op->rob = 0;
  op->cpi_milli = core->cpi_milli;
  op->sb_cap = MIN (core->store_buffer, SIM_CORE_MAX_STORES);
  op->fb_lim = MIN (core->fill_buffers, SIM_CORE_MAX_MISSES);
  if (op->serial)
    return;
  CoreSlot *cslot = g_new0 (CoreSlot, 1);
  *slot = cslot;
  core_reset (&cslot->cs, now);
  cslot->cs.rob_size = core->rob;
  op->cs = &cslot->cs;
  op->rob = core->rob;
  cslot->proto = *op;
}

void
sim_op_begin (SimOp *op, SimMemSys *mem, guint cpu, SimTime now)
{
  gpointer *slot = sim_memsys_core_slot (mem, cpu);
  CoreSlot *cslot = *slot;
  if (G_UNLIKELY (cslot == NULL))
    {
      /* The CPU's first operation, or a serial core (no pipeline). */
      op_begin_slow (op, mem, cpu, now, slot);
      return;
    }
  *op = cslot->proto;
  op->t = now;
  op->last = op->loads_done = now;
  /* A CPU's clock only moves forward; an operation that starts before the
   * latest time its pipeline reached is on another timeline (a unit test
   * driving calls by hand): it starts with nothing in flight. */
  if (now < cslot->cs.t_hi)
    core_reset (&cslot->cs, now);
}

void
sim_op_begin_uncharged (SimOp *op, SimMemSys *mem, guint cpu, SimTime now)
{
  sim_op_begin (op, mem, cpu, now);
  /* Set-up work takes no time: it runs serial on a private clock and
   * leaves nothing in the CPU's pipeline. */
  op->uncharged = TRUE;
  op->serial = TRUE;
  op->cs = NULL;
  op->rob = 0;
}

static inline void
note_time (SimOp *op)
{
  if (op->cs && op->t > op->cs->t_hi)
    op->cs->t_hi = op->t;
}

/* note_time where the op is known to keep a pipeline. */
static inline void
note_time_cs (SimOp *op, SimCoreState *cs)
{
  if (op->t > cs->t_hi)
    cs->t_hi = op->t;
}

/* Dispatch time of @n instructions at cpi, charged to instructions. */
static inline void
advance_instr (SimOp *op, guint64 n)
{
  guint64 milli = (guint64) op->instr_frac + n * op->cpi_milli;
  guint64 c = milli / 1000;
  op->instr_frac = (guint) (milli - c * 1000);
  op->t += c;
  op->cost.instr += c;
}

#define ROB_MASK (SIM_CORE_MAX_ROB - 1)
#define SB_MASK  (SIM_CORE_MAX_STORES - 1)
#define SB_LINE_SHIFT 6
#define SB_LINE_MASK (SIM_CORE_SB_LINES - 1)
G_STATIC_ASSERT ((SIM_CORE_SB_LINES & SB_LINE_MASK) == 0);
/* [addr, addr+size) is within one line (an empty range: the line of addr,
 * which a store that overlaps it must cover). */
#define SB_ONE_LINE(addr, size) \
  (((addr) & ((1u << SB_LINE_SHIFT) - 1)) + (guint64) (size) <= (1u << SB_LINE_SHIFT))
G_STATIC_ASSERT ((SIM_CORE_MAX_ROB & ROB_MASK) == 0);
G_STATIC_ASSERT ((SIM_CORE_MAX_STORES & SB_MASK) == 0);

/* The reorder window's entries (sim_core_rob_push, alloc.h). */
#define rob_push sim_core_rob_push

/* Dispatch instructions up to (not including) number @target: instruction
 * k cannot dispatch before instruction k - rob has finished.  For an op
 * with a pipeline and a reorder window (op->rob). */
static inline void
dispatch_to (SimOp *op, SimCoreState *cs, guint64 target, gboolean charge)
{
  guint64 rob = op->rob;
  guint64 seq = cs->seq;
  guint head = cs->rob_head, n = cs->rob_n;
  while (n && cs->rob_seq[head] + rob < target)
    {
      /* An entry ready by now stalls nobody, wherever dispatch has got to
       * (time only grows): it leaves the window without dispatching up to
       * the instruction that waits for it, since dispatch time charged in
       * pieces is the same as charged at once (advance_instr carries the
       * fractions). */
      SimTime ready = cs->rob_ready[head];
      if (ready > op->t)
        {
          guint64 at = cs->rob_seq[head] + rob;   /* the instruction that waits */
          if (at > seq)
            {
              if (charge)
                advance_instr (op, at - seq);
              seq = at;
            }
          sim_op_stall (op, ready);
        }
      head = (head + 1) & ROB_MASK;
      n--;
    }
  cs->rob_head = head;
  if (n)
    {
      cs->rob_n = n;
      cs->rob_stop = cs->rob_seq[head] + rob;
    }
  else
    window_empty (cs);
  if (target > seq)
    {
      if (charge)
        advance_instr (op, target - seq);
      seq = target;
    }
  cs->seq = seq;
  note_time_cs (op, cs);
}

/* Whether dispatching up to (not including) number @target waits for no
 * entry of the window: the oldest unfinished instruction is less than a
 * window behind it. */
static inline gboolean
window_clear (const SimCoreState *cs, guint64 target)
{
  return target <= cs->rob_stop;
}


static G_GNUC_NO_INLINE void
instr_slow (SimOp *op, guint n)
{
  SimCoreState *cs = op->cs;
  if (op->rob == 0)
    {
      advance_instr (op, n);
      if (cs)
        cs->seq += n;
      return;
    }
  dispatch_to (op, cs, cs->seq + n, TRUE);
}

void
sim_op_instr (SimOp *op, guint n)
{
  op->cost.n_instr += n;
  SimCoreState *cs = op->cs;
  /* dispatch_to when the window holds nothing that stops these n (its
   * loop would not run): out of line otherwise, so the common path needs
   * no frame. */
  if (G_LIKELY (op->rob != 0) && G_LIKELY (window_clear (cs, cs->seq + n)))
    {
      advance_instr (op, n);
      cs->seq += n;
      note_time_cs (op, cs);
      return;
    }
  instr_slow (op, n);
}

/* A special instruction of @c cycles (sim_op_xcost, alloc.h, whose inline
 * part has handled a pipeline with a clear window): it holds dispatch for
 * its cost; it is one entry of the window. */
void
sim_op_xcost_slow (SimOp *op, guint c)
{
  SimCoreState *cs = op->cs;
  if (op->rob)
    {
      if (G_LIKELY (window_clear (cs, cs->seq + 1)))
        cs->seq++;                /* dispatch_to, whose note_time the one below covers */
      else
        dispatch_to (op, cs, cs->seq + 1, FALSE);
    }
  else if (cs)
    cs->seq++;
  op->t += c;
  op->cost.instr += c;
  note_time (op);
}

void
sim_op_use_in_order (SimOp *op, SimTok tok)
{
  sim_op_stall (op, tok);
  note_time (op);
}

void
sim_op_retire (SimOp *op)
{
  if (op->cs == NULL)
    {
      sim_op_stall (op, op->loads_done);
      return;
    }
  sim_op_stall (op, MAX (op->cs->retired, op->cs->loads_done));
  window_empty (op->cs);
  note_time (op);
}

/* The first time at or after *@pti when fewer than @lim misses of the
 * table are in flight (into *@pti); forgets the misses done by then and
 * returns how many are left. */
static G_GNUC_NO_INLINE guint
fb_wait (SimCoreState *cs, guint lim, SimTime *pti)
{
  SimTime ti = *pti;
  guint n = cs->n_miss;
  for (;;)
    {
      guint k = 0;
      SimTime earliest = G_MAXUINT64;
      for (guint i = 0; i < n; i++)
        {
          SimTime m = cs->miss[i];
          if (m > ti)
            {
              earliest = MIN (earliest, m);
              cs->miss[k++] = m;
            }
        }
      n = k;
      if (k < lim)
        break;
      ti = earliest;
    }
  *pti = ti;
  return n;
}

/* An L1d miss wants a fill buffer at @ti: the first time at or after @ti
 * when fewer than fill_buffers misses are in flight.  Records the miss
 * (done at issue + @lat) and returns its issue time. */
static inline SimTime
fb_issue (SimOp *op, SimCoreState *cs, SimTime ti, guint32 lat)
{
  /* Fill buffers are handed out in program order: no miss issues before
   * the one before it, so ti never goes below miss_floor and a miss done
   * by then is done for every later one too.  The table is only cleared
   * of such misses when it looks full (fb_wait): while fewer than
   * fill_buffers entries are in it, done or not, one is free. */
  ti = MAX (ti, cs->miss_floor);
  guint n = cs->n_miss;
  if (G_UNLIKELY (n >= op->fb_lim))
    n = fb_wait (cs, op->fb_lim, &ti);
  cs->miss[n] = ti + lat;
  cs->n_miss = n + 1;
  cs->miss_floor = ti;
  return ti;
}

/* Make room for a store: if the buffer looks full, forget the stores that
 * have committed by now, and if it is still full, stall until its oldest
 * store commits.  (Committed stores are only forgotten here: until the
 * buffer looks full they stall nothing, and forwarding tells them by their
 * commit times; SimCoreState.sb_line_commit.) */
static inline void
sb_make_room (SimOp *op, SimCoreState *cs)
{
  guint cap = op->sb_cap;
  guint head = cs->sb_head, n = cs->sb_n;
  if (G_LIKELY (n < cap))
    return;
  for (;;)
    {
      while (n && cs->sb[head] <= op->t)
        {
          head = (head + 1) & SB_MASK;
          n--;
        }
      if (n < cap)
        break;
      sim_op_stall (op, cs->sb[head]);
    }
  cs->sb_head = head;
  cs->sb_n = n;
}

/* Store number @k, committing at @commit, touches the lines of
 * [addr, addr+size), more than one. */
static G_GNUC_NO_INLINE void
sb_index_lines (SimCoreState *cs, SimAddr addr, guint32 size, guint64 k, SimTime commit)
{
  SimAddr first = addr >> SB_LINE_SHIFT;
  SimAddr last = (addr + size - 1) >> SB_LINE_SHIFT;
  for (SimAddr l = first; l <= last && l - first < SIM_CORE_SB_LINES; l++)
    {
      cs->sb_line[l & SB_LINE_MASK] = k;
      cs->sb_line_commit[l & SB_LINE_MASK] = commit;
    }
}

/* A store enters the buffer: its data is ready at @data, its line owned at
 * @owned.  Stores commit to L1d in program order, one per cycle at most,
 * after they retire (after every instruction before them is done). */
static inline void
sb_push (SimCoreState *cs, SimAddr addr, guint32 size, SimTime data, SimTime owned)
{
  /* (@owned is never before @data: the line is asked for once the data is
   * there, or the data is the line's old value.) */
  SimTime commit = MAX (owned, MAX (cs->sb_last + 1, cs->retired));
  guint i = (cs->sb_head + cs->sb_n) & SB_MASK;
  cs->sb[i] = commit;
  cs->sb_data[i] = data;
  cs->sb_addr[i] = addr;
  cs->sb_size[i] = size;
  cs->sb_n++;
  cs->sb_last = commit;
  guint64 k = ++cs->sb_pushed;
  if (G_LIKELY (SB_ONE_LINE (addr, size)))
    {
      guint b = (addr >> SB_LINE_SHIFT) & SB_LINE_MASK;
      cs->sb_line[b] = k;
      cs->sb_line_commit[b] = commit;
    }
  else
    sb_index_lines (cs, addr, size, k, commit);
}

/* Store-to-load forwarding, step one: the number of the youngest
 * buffered store that touched a line of [addr, addr+size) by the index
 * (sb_line), or 0 when none of the stores in the buffer did.  A load over
 * more than two lines names the youngest store. */
static inline guint64
sb_candidate (const SimCoreState *cs, SimAddr addr, guint32 size)
{
  guint64 oldest = cs->sb_pushed - cs->sb_n;     /* in the buffer: numbers above */
  SimAddr first = addr >> SB_LINE_SHIFT;
  guint64 from;
  if (G_LIKELY (SB_ONE_LINE (addr, size)))
    from = cs->sb_line[first & SB_LINE_MASK];
  else
    {
      SimAddr last = (addr + size - 1) >> SB_LINE_SHIFT;
      if (last - first == 1)
        from = MAX (cs->sb_line[first & SB_LINE_MASK], cs->sb_line[last & SB_LINE_MASK]);
      else
        from = cs->sb_pushed;
    }
  return from > oldest ? from : 0;
}

/* Step two: the youngest buffered store that overlaps [addr, addr+size)
 * and has not committed by @ti, scanning from store number @from down;
 * its data's ready time, or 0 when the load reads the cache.
 *
 * Commit times rise strictly from the oldest store to the youngest
 * (sb_push: each commits after the one before it), so the stores not
 * committed by @ti are the youngest ones: the scan stops at the first
 * store committed by then, since the youngest overlapping store at or
 * behind it is committed too (the load reads the cache).  For the same
 * reason it may start at @from: the stores younger than it do not touch
 * the load's lines, and if one of them has committed by @ti, so has every
 * store from @from down (the answer is the cache either way). */
static inline SimTime
sb_scan (const SimCoreState *cs, guint64 from, SimAddr addr, guint32 size, SimTime ti)
{
  SimAddr end = addr + size;
  guint i = (guint) from;                         /* one past its slot */
  for (guint64 k = from - (cs->sb_pushed - cs->sb_n); k-- > 0;)
    {
      i = (i - 1) & SB_MASK;
      if (cs->sb[i] <= ti)
        return 0;
      if (cs->sb_addr[i] < end && addr < cs->sb_addr[i] + cs->sb_size[i])
        return MAX (cs->sb_data[i], 1);
    }
  return 0;
}

/* Store-to-load forwarding: the youngest buffered store that overlaps
 * [addr, addr+size) and has not committed by @ti; its data's ready time,
 * or 0 when the load reads the cache. */
static inline SimTime
sb_forward (const SimCoreState *cs, SimAddr addr, guint32 size, SimTime ti)
{
  /* A load of one line whose bucket's youngest store has committed by @ti
   * reads the cache (SimCoreState.sb_line_commit). */
  if (SB_ONE_LINE (addr, size)
      && cs->sb_line_commit[(addr >> SB_LINE_SHIFT) & SB_LINE_MASK] <= ti)
    return 0;
  guint64 from = sb_candidate (cs, addr, size);
  return from ? sb_scan (cs, from, addr, size, ti) : 0;
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

/* When a load's value is ready: issued at @ti, forwarded from a buffered
 * store (at the L1d latency once the store's data is there) or from the
 * cache (a miss waits for a fill buffer). */
static inline SimTime
load_ready (SimOp *op, SimCoreState *cs, SimAddr addr, guint32 size, SimTime ti, guint32 lat)
{
  SimTime fwd = cs->sb_n ? sb_forward (cs, addr, size, ti) : 0;
  if (fwd)
    return MAX (ti, fwd) + op->hit_latency;
  if (lat > op->hit_latency)
    ti = fb_issue (op, cs, ti, lat);
  return ti + lat;
}

/* A load's value is ready at @ready: the op's latest token, and an
 * entry of the window. */
static inline SimTok
load_finish (SimOp *op, SimCoreState *cs, SimTok ready)
{
  op->last = ready;
  if (ready > cs->loads_done)
    cs->loads_done = ready;
  if (op->rob)
    rob_push (cs, ready);
  return ready;
}

/* A load that may read a buffered store or finds every fill buffer
 * taken: out of line, so that the common path needs no frame. */
static G_GNUC_NO_INLINE SimTok
load_slow (SimOp *op, SimCoreState *cs, SimAddr addr, guint32 size, SimTime ti, guint32 lat)
{
  return load_finish (op, cs, load_ready (op, cs, addr, size, ti, lat));
}

SimTok
sim_op_load_done (SimOp *op, SimAddr addr, guint32 size, guint32 lat, SimTok after)
{
  op->cost.accesses++;
  if (G_UNLIKELY (op->serial))
    return serial_wait (op, after, lat);
  SimCoreState *cs = op->cs;
  SimTime ti = MAX (op->t, after);
  gboolean miss = lat > op->hit_latency;
  /* A load within one line whose bucket's youngest store has committed by
   * @ti reads the cache (SimCoreState.sb_line_commit); anything else (a
   * store it may forward from, a load across lines, every fill buffer
   * taken) goes the long way. */
  if (G_UNLIKELY (!SB_ONE_LINE (addr, size)
                  || cs->sb_line_commit[(addr >> SB_LINE_SHIFT) & SB_LINE_MASK] > ti)
      || G_UNLIKELY (miss && cs->n_miss >= op->fb_lim))
    return load_slow (op, cs, addr, size, ti, lat);
  /* load_ready with nothing to forward and a fill buffer free (fb_issue). */
  if (miss)
    {
      ti = MAX (ti, cs->miss_floor);
      cs->miss[cs->n_miss++] = ti + lat;
      cs->miss_floor = ti;
    }
  return load_finish (op, cs, ti + lat);
}

/* A store that finds the buffer full or every fill buffer taken: out of
 * line, so that the common path needs no frame. */
static G_GNUC_NO_INLINE void
store_slow (SimOp *op, SimCoreState *cs, SimAddr addr, guint32 size, guint32 lat, SimTok after)
{
  sb_make_room (op, cs);
  /* The line is requested (RFO) once the store's data and address are
   * known; a miss holds a fill buffer like a load's. */
  SimTime data = MAX (op->t, after);
  SimTime rfo = data;
  if (lat > op->hit_latency)
    rfo = fb_issue (op, cs, rfo, lat);
  sb_push (cs, addr, size, data, rfo + lat);
  note_time_cs (op, cs);
}

void
sim_op_store_done (SimOp *op, SimAddr addr, guint32 size, guint32 lat, SimTok after)
{
  op->cost.accesses++;
  if (G_UNLIKELY (op->serial || op->sb_cap == 0))
    {
      /* No store buffer: the store waits for its data and its line. */
      sim_op_stall (op, after);
      op->t += lat;
      op->cost.mem_cycles += lat;
      return;
    }
  SimCoreState *cs = op->cs;
  /* Committed stores are forgotten only when the buffer looks full
   * (store_slow's sb_make_room). */
  gboolean miss = lat > op->hit_latency;
  if (G_UNLIKELY (cs->sb_n >= op->sb_cap) || G_UNLIKELY (miss && cs->n_miss >= op->fb_lim))
    {
      store_slow (op, cs, addr, size, lat, after);
      return;
    }
  /* store_slow with room in the buffer and a fill buffer free. */
  SimTime data = MAX (op->t, after);
  SimTime rfo = data;
  if (miss)
    {
      rfo = MAX (rfo, cs->miss_floor);
      cs->miss[cs->n_miss++] = rfo + lat;
      cs->miss_floor = rfo;
    }
  sb_push (cs, addr, size, data, rfo + lat);
  note_time_cs (op, cs);
}

void
sim_op_drain (SimOp *op)
{
  if (op->cs == NULL)
    {
      sim_op_stall (op, op->loads_done);
      return;
    }
  SimCoreState *cs = op->cs;
  SimTime until = MAX (cs->loads_done, cs->retired);
  if (cs->sb_n)
    until = MAX (until, cs->sb_last);
  sim_op_stall (op, until);
  cs->sb_head = (cs->sb_head + cs->sb_n) & SB_MASK;
  cs->sb_n = 0;
  cs->n_miss = 0;
  window_empty (cs);
  note_time_cs (op, cs);
}

SimTok
sim_op_atomic (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimXCost x)
{
  /* A locked instruction: everything before it finishes and the store
   * buffer drains, then it runs; nothing after it passes it (treated as
   * serialising, which x86 locked instructions are for memory). */
  sim_op_drain (op);
  guint32 lat = sim_memsys_access_class (op->mem, op->cpu, addr, size, SIM_ACC_RMW, cls);
  op->cost.accesses++;
  op->t += lat;
  op->cost.mem_cycles += lat;
  guint c = op->core->cost[x];
  op->t += c;
  op->cost.instr += c;
  if (op->cs)
    {
      op->cs->seq++;
      op->cs->loads_done = op->cs->retired = op->t;
    }
  op->last = op->loads_done = op->t;
  note_time (op);
  return op->t;
}

/* The load half of an unlocked read-modify-write: when the old value is
 * there.  Serial and in-order cores wait for it. */
static inline SimTime
rmw_load (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimTok after)
{
  guint32 lat = sim_memsys_access_class (op->mem, op->cpu, addr, size, SIM_ACC_RMW, cls);
  op->cost.accesses++;
  if (op->serial)
    return serial_wait (op, after, lat);
  SimCoreState *cs = op->cs;
  SimTime ready = load_ready (op, cs, addr, size, MAX (op->t, after), lat);
  if (ready > cs->loads_done)
    cs->loads_done = ready;
  if (op->rob == 0)
    {
      sim_op_stall (op, ready);
      ready = op->t;
    }
  return ready;
}

SimTok
sim_op_rmw_local (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimXCost x,
                  SimTok after)
{
  SimTime old = rmw_load (op, addr, size, cls, after);
  guint c = op->core->cost[x];
  SimCoreState *cs = op->cs;
  if (op->rob == 0)
    {
      /* In order: the instruction runs once its operand is there. */
      op->t += c;
      op->cost.instr += c;
      if (cs)
        {
          cs->seq++;
          if (op->sb_cap)
            {
              sb_make_room (op, cs);
              sb_push (cs, addr, size, op->t, op->t);
            }
        }
      op->last = op->t;
      note_time (op);
      return op->t;
    }
  /* Out of order: one slot of dispatch; its result (and the data of its
   * store half) is ready @c cycles after the old value, and the window
   * holds it until then.  (dispatch_to, whose note_time the one below
   * covers, when the window stops nothing.) */
  if (G_LIKELY (window_clear (cs, cs->seq + 1)))
    {
      advance_instr (op, 1);
      cs->seq++;
    }
  else
    dispatch_to (op, cs, cs->seq + 1, TRUE);
  SimTime done = old + c;
  rob_push (cs, done);
  if (op->sb_cap)
    {
      sb_make_room (op, cs);
      sb_push (cs, addr, size, done, done);
    }
  /* Later unannotated accesses depend on the latest value (the old
   * chain, or this result if it is later): an RMW of a counter does not
   * cut the chain they follow. */
  op->last = MAX (op->last, done);
  note_time_cs (op, cs);
  return done;
}

/* sim_op_access's RMW: out of line, so that a read or a write needs no
 * frame of its own. */
static G_GNUC_NO_INLINE void
access_rmw (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls)
{
  /* An unlocked RMW with no cost of its own (an add to memory). */
  SimTime old = rmw_load (op, addr, size, cls, op->last);
  if (op->serial)
    return;
  SimCoreState *cs = op->cs;
  if (op->rob)
    rob_push (cs, old);
  if (op->sb_cap)
    {
      sb_make_room (op, cs);
      sb_push (cs, addr, size, old, old);
    }
  op->last = MAX (op->last, old);
  note_time_cs (op, cs);
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
      access_rmw (op, addr, size, cls);
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
  r->stats_in_text = FALSE;
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
      g_free (row->proc_name);
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
