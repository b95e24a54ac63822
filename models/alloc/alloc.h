/* alloc.h - what every allocator model shares: simulated addresses, the
 * running cost of one operation (SimOp), and the allocator ops table.
 *
 * An allocator model (SLUB of an era, SLAB, SLQB) is one file with one
 * SimAllocOps table.  It keeps its kernel structures at simulated
 * addresses (kmem_cache, per-CPU data, struct page in the vmemmap, the
 * free pointer inside each object, list heads, locks) and issues every load
 * and store the kernel code would make through the sim_op_* calls below,
 * which send it to the cache model (models/cache/memsys.h) and combine the
 * latencies in time with the core timing model (SimOp, SimCoreState).  Locks are engine resources (sim/core/engine.h): taking
 * one held by another CPU makes this operation wait.
 *
 * A SimOp is the execution of one allocator call on one CPU (see below and
 * docs/models/timing.md for how it keeps time).
 */
#pragma once

#include <glib.h>
#include "sim/core/engine.h"
#include "sim/core/rcu.h"
#include "models/cache/memsys.h"
#include "models/alloc/alloc-spec.h"

G_BEGIN_DECLS

typedef guint64 SimAddr;                  /* simulated physical address */
#define SIM_PAGE_SHIFT 12
#define SIM_PAGE_SIZE  (1u << SIM_PAGE_SHIFT)

/* The running cost of one operation, in cycles by where they went:
 * instructions (the plain instructions of the path times the core's cycles
 * per instruction, plus the costs of the special instructions the path
 * runs: atomics, irq save/restore, ...), memory stalls (waiting for a
 * loaded value, a full store buffer or fill buffers, a locked
 * instruction's drain) and lock waits.  They add up to the operation's
 * time: every advance of SimOp.t is charged to exactly one of them. */
typedef struct {
  guint64 instr;                /* cycles */
  guint64 n_instr;              /* plain instructions counted (not cycles) */
  guint64 mem_cycles;
  guint64 lock_wait;
  guint32 accesses;
} SimCost;

/* The time a loaded value is ready.  A load whose address comes from an
 * earlier load names that load's token; SIM_TOK_NOW: the address is known
 * (a per-CPU pointer, a field of a structure already in a register). */
typedef SimTime SimTok;
#define SIM_TOK_NOW ((SimTok) 0)

#define SIM_CORE_SB_LINES 128                 /* buckets of the forwarding index */

/* What a CPU's core still has in flight between two allocator calls: the
 * core timing model's pipeline state (docs/models/timing.md), one per CPU,
 * kept by the memory system (sim_memsys_core_slot) so that one call's
 * misses, buffered stores and unfinished instructions overlap with the
 * next call's work, as they do on an out-of-order core running a loop of
 * calls.  Times are absolute (the CPU's timeline). */
typedef struct {
  guint64  seq;                           /* instructions dispatched so far */
  SimTime  t_hi;                          /* the latest time an op reached */
  SimTok   loads_done;                    /* when every load issued so far is ready */
  SimTok   retired;                       /* when every instruction dispatched so far is done */
  SimTime  miss_floor;                    /* the latest miss's issue time */
  guint    n_miss;                        /* misses in flight: their completion times */
  SimTime  miss[SIM_CORE_MAX_MISSES];
  guint    sb_head, sb_n;                 /* buffered stores, a ring */
  SimTime  sb_last;                       /* the youngest store's commit time */
  SimTime  sb[SIM_CORE_MAX_STORES];       /* commit times */
  SimTime  sb_data[SIM_CORE_MAX_STORES];  /* when each store's data is ready */
  SimAddr  sb_addr[SIM_CORE_MAX_STORES];
  guint32  sb_size[SIM_CORE_MAX_STORES];
  /* An index for store-to-load forwarding (host speed only, no state of
   * the model): stores are numbered 1, 2, ... as they enter the buffer
   * (sb_pushed: the youngest's number; the ring slot of number k is
   * (k - 1) mod SIM_CORE_MAX_STORES, so sb_head + sb_n = sb_pushed in the
   * ring), and sb_line[b] is the number of the youngest store that touched
   * a cache line whose number is b modulo SIM_CORE_SB_LINES.  A load whose
   * lines' buckets name no store still in the buffer reads the cache
   * without a scan. */
  guint64  sb_pushed;
  guint64  sb_line[SIM_CORE_SB_LINES];
  /* The same buckets by time (host speed only): sb_line_commit[b] is the
   * commit time of the youngest store that touched a line of bucket b
   * (0: none since the pipeline last started empty).  Commit times rise
   * strictly through the buffer, so a load of one line whose bucket's time
   * is not after the load's issue finds every store to its line committed:
   * it reads the cache, whatever the buffer still holds.  That makes the
   * buffer's contents matter only when it looks full: committed stores are
   * forgotten then (sb_make_room), not on every store. */
  SimTime  sb_line_commit[SIM_CORE_SB_LINES];
  /* The reorder window: instruction seq's result is ready at ready (kept
   * as a running maximum: instructions retire in order). */
  guint    rob_head, rob_n;
  guint64  rob_tail_seq;                  /* the youngest entry's seq; G_MAXUINT64 when empty */
  /* Dispatch may go up to (not including) instruction rob_stop without
   * waiting for the window: the oldest entry's seq + rob_size, or
   * G_MAXUINT64 when the window is empty (host speed only: the window test
   * is one compare).  rob_size is the core's rob. */
  guint64  rob_stop;
  guint64  rob_size;
  guint64  rob_seq[SIM_CORE_MAX_ROB];
  SimTime  rob_ready[SIM_CORE_MAX_ROB];
} SimCoreState;

/* The execution of one allocator call on one CPU: it starts at that CPU's
 * clock and accumulates time as instructions run, memory is touched and
 * locks are waited for; the caller advances the CPU's clock by the total.
 *
 * Timing is a first-order interval model (docs/models/timing.md): t is
 * where the next instruction dispatches, at the core's cpi (no faster than
 * its width).  A load issues at t (or when the value its address comes
 * from is ready, or when the store it reads from has its data) and its
 * value is ready latency cycles later, without holding up dispatch.  A
 * value the code uses (sim_op_use) must be ready before the instruction
 * a reorder window later dispatches: dispatch stalls only when the window
 * is full behind an unfinished instruction.  L1d misses in flight are
 * limited by the core's fill buffers.  A store enters the store buffer and
 * costs nothing unless the buffer is full; a locked instruction waits for
 * everything before it and drains the store buffer.  All of that is
 * per-CPU state that outlives the call (SimCoreState).  A core with rob 0
 * is in order: a use waits at once.  On a machine without a core: section
 * (and in Cachegrind mode) everything is serial, as slabsim charged before
 * this model existed. */
typedef struct {
  SimMemSys *mem;
  guint      cpu;
  SimTime    t;                           /* running time of the operation */
  SimCost    cost;
  const SimCoreSpec *core;
  guint      hit_latency;                 /* longer = an L1d miss */
  gboolean   serial;                      /* fill_buffers 1: no overlap at all */
  guint      instr_frac;                  /* milli-cycles of instructions not yet charged */
  SimTok     last;                        /* the latest load's token */
  SimTok     loads_done;                  /* serial model: when every load is ready */
  SimCoreState *cs;                       /* the CPU's pipeline (not serial) */
  /* Set-up work outside the measured run (boot caches, cache creation,
   * per-CPU sheaves set-up): its memory accesses warm the caches as they
   * would, but it takes no time on anyone's timeline, so its locks are
   * neither waited for nor left busy in any CPU's future, and it leaves
   * nothing in the CPU's pipeline (it runs serial). */
  gboolean   uncharged;
  /* Copies of the core's parameters for the hot path (host speed only):
   * rob is core->rob when the op keeps a pipeline (cs), else 0 (in
   * order); sb_cap and fb_lim are the store buffer and fill buffers,
   * bounded by what SimCoreState holds. */
  guint      rob;
  guint      cpi_milli;
  guint      sb_cap;
  guint      fb_lim;
} SimOp;

/* Begin an operation on @cpu at @now (the CPU's clock). */
void sim_op_begin (SimOp *op, SimMemSys *mem, guint cpu, SimTime now);

/* An operation whose cost no clock is charged (see SimOp.uncharged). */
void sim_op_begin_uncharged (SimOp *op, SimMemSys *mem, guint cpu, SimTime now);

static inline guint64
sim_op_cycles (const SimOp *op)
{
  return op->cost.instr + op->cost.mem_cycles + op->cost.lock_wait;
}

/* Wait (a memory stall) until @until. */
static inline void
sim_op_stall (SimOp *op, SimTime until)
{
  if (until > op->t)
    {
      op->cost.mem_cycles += until - op->t;
      op->t = until;
    }
}

/* Charge @n plain instructions of kernel code at the core's cycles per
 * instruction (fractions carried to the next charge); dispatch stops where
 * the reorder window is full behind an unfinished instruction. */
void sim_op_instr (SimOp *op, guint n);

/* Charge one special instruction (or idiom) of the machine's cost table:
 * SIM_X_IRQ_SAVE, SIM_X_PREEMPT, SIM_X_CALL, ...  Microcoded (irq
 * save/restore, call/ret, preempt count, spin unlock), it holds dispatch
 * for its cost and is one entry of the reorder window.  Inline below: the
 * common case (a pipeline whose window does not stop this one
 * instruction) is a few stores; the rest is sim_op_xcost_slow. */
static inline void sim_op_xcost (SimOp *op, SimXCost x);
void sim_op_xcost_slow (SimOp *op, guint cycles);

static inline void
sim_op_xcost (SimOp *op, SimXCost x)
{
  guint c = op->core->cost[x];
  SimCoreState *cs = op->cs;
  /* op->rob is only set when the op keeps a pipeline (cs).  The window is
   * clear for one more instruction (alloc.c window_clear): dispatch moves
   * on by one, then the cost is charged and the CPU's latest time noted. */
  if (G_LIKELY (op->rob != 0) && G_LIKELY (cs->seq < cs->rob_stop))
    {
      cs->seq++;
      op->t += c;
      op->cost.instr += c;
      if (op->t > cs->t_hi)
        cs->t_hi = op->t;
      return;
    }
  sim_op_xcost_slow (op, c);
}

static inline void sim_op_irqsave    (SimOp *op) { sim_op_xcost (op, SIM_X_IRQ_SAVE); }
static inline void sim_op_irqrestore (SimOp *op) { sim_op_xcost (op, SIM_X_IRQ_RESTORE); }
static inline void sim_op_preempt    (SimOp *op) { sim_op_xcost (op, SIM_X_PREEMPT); }
static inline void sim_op_call       (SimOp *op) { sim_op_xcost (op, SIM_X_CALL); }

/* The code uses a loaded value (a branch on it, an address made of it, the
 * value returned): what follows depends on it.  In order (serial, rob 0):
 * wait for it.  Out of order: the instruction that uses it cannot retire
 * before it is ready, so dispatch stalls for it only once the reorder
 * window is full; later unannotated accesses depend on it. */
static inline void sim_op_use (SimOp *op, SimTok tok);

/* Wait until every instruction dispatched so far has finished (its loads
 * and RMWs are back; buffered stores may still be committing): a
 * serialising point, and what a test reads a call's full latency at. */
void sim_op_retire (SimOp *op);

/* The reorder window: instruction @seq is done at @ready.  Kept as a
 * running maximum (retirement is in order); entries of one instruction
 * merge, and a full ring merges into its youngest entry (which only makes
 * the window stall a little earlier).  The youngest entry's ready time is
 * always retired (only this function writes either while the window holds
 * entries), so a push that does not raise retired and would merge changes
 * nothing.  An empty window's rob_tail_seq names no instruction, so the
 * one compare with seq says whether there is an entry to merge into.
 *
 * A push that does not raise retired stalls nobody either when it would
 * add an entry: that entry's ready time would be retired, which the
 * youngest entry, older, already holds, so dispatch has waited for it by
 * the time it reaches the new one (and an empty window's retired has
 * passed: dispatch waited for it as the window emptied).  It is dropped,
 * unless the ring could fill (a window of SIM_CORE_MAX_ROB - 1 or more:
 * rob entries of distinct instructions, plus the youngest), where the
 * count of entries decides when pushes merge. */
static inline void
sim_core_rob_push (SimCoreState *cs, SimTime ready)
{
  guint n = cs->rob_n;
  if (ready <= cs->retired)
    {
      if (G_LIKELY (cs->rob_size < SIM_CORE_MAX_ROB - 1)
          || cs->rob_tail_seq == cs->seq || n == SIM_CORE_MAX_ROB)
        return;
    }
  else
    {
      cs->retired = ready;
      if (cs->rob_tail_seq == cs->seq || G_UNLIKELY (n == SIM_CORE_MAX_ROB))
        {
          cs->rob_ready[(cs->rob_head + n - 1) & (SIM_CORE_MAX_ROB - 1)] = ready;
          return;
        }
    }
  guint i = (cs->rob_head + n) & (SIM_CORE_MAX_ROB - 1);
  cs->rob_seq[i] = cs->seq;
  cs->rob_ready[i] = cs->retired;
  cs->rob_tail_seq = cs->seq;
  cs->rob_n = n + 1;
  if (n == 0)
    cs->rob_stop = cs->seq + cs->rob_size;
}

/* sim_op_use of an in-order op (rob 0): wait for @tok. */
void sim_op_use_in_order (SimOp *op, SimTok tok);

static inline void
sim_op_use (SimOp *op, SimTok tok)
{
  if (op->rob == 0)
    {
      sim_op_use_in_order (op, tok);
      return;
    }
  sim_core_rob_push (op->cs, tok);
  op->last = MAX (op->last, tok);
}

/* A load that does not hold up dispatch: it issues when @after is ready
 * (SIM_TOK_NOW: at once) and a fill buffer is free if it misses; returns
 * when its value is ready.  The serial model waits for it here. */
static inline SimTok sim_op_load (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls,
                                  SimTok after);
/* A store whose data or address is ready at @after: into the store buffer
 * (waits only for a free entry); serial model: waits for its latency. */
static inline void sim_op_store (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls,
                                 SimTok after);

/* The timing half of a load or a store, once the cache model has given its
 * latency @lat.  sim_op_load and sim_op_store are the cache model's call
 * and then this one (a leaf on its common path), so a model's access is
 * two calls without a frame of their own in between (host speed only). */
SimTok sim_op_load_done  (SimOp *op, SimAddr addr, guint32 size, guint32 lat, SimTok after);
void   sim_op_store_done (SimOp *op, SimAddr addr, guint32 size, guint32 lat, SimTok after);

static inline SimTok
sim_op_load (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimTok after)
{
  guint32 lat = sim_memsys_access_class (op->mem, op->cpu, addr, size, SIM_ACC_READ, cls);
  return sim_op_load_done (op, addr, size, lat, after);
}

static inline void
sim_op_store (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimTok after)
{
  guint32 lat = sim_memsys_access_class (op->mem, op->cpu, addr, size, SIM_ACC_WRITE, cls);
  sim_op_store_done (op, addr, size, lat, after);
}
/* A locked read-modify-write (lock cmpxchg, lock xadd, atomic_inc,
 * cmpxchg_double): waits for every load in flight and drains the store
 * buffer, then its access, then @x's cost.  Returns the old value's token
 * (ready at once: the instruction waited for it). */
SimTok sim_op_atomic (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls, SimXCost x);
/* An unlocked read-modify-write of @x's kind (this_cpu_cmpxchg_double =
 * SIM_X_CMPXCHG16B, this_cpu_inc = SIM_X_THIS_CPU_OP): its load part
 * depends on @after and is waited for, its store part is buffered. */
SimTok sim_op_rmw_local (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls,
                         SimXCost x, SimTok after);
/* mfence, or the implicit drain of a serialising instruction. */
void   sim_op_drain (SimOp *op);

/* One load/store/RMW the kernel code makes, unannotated: a read depends on
 * the previous load and is waited for; a write is a store after it; an RMW
 * is an unlocked one with no cost of its own.  The serial default. */
void   sim_op_access (SimOp *op, SimAddr addr, guint32 size, SimAccKind kind, SimMemClass cls);

static inline void
sim_op_read (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls)
{
  SimTok t = sim_op_load (op, addr, size, cls, op->last);
  /* With a reorder window the load has just put its value into the
   * window and into op->last: the use would change nothing. */
  if (op->rob == 0)
    sim_op_use_in_order (op, t);
}

static inline void
sim_op_write (SimOp *op, SimAddr addr, guint32 size, SimMemClass cls)
{
  sim_op_store (op, addr, size, cls, op->last);
}

/* Touch [addr, addr+len) in 64-byte steps (memset, memcpy of an object):
 * the lines are independent of each other; reads are all waited for at the
 * end, writes go through the store buffer. */
void sim_op_touch_range (SimOp *op, SimAddr addr, guint64 len, SimAccKind kind,
                         SimMemClass cls);

/* The engine side of taking a lock: wait until no other CPU holds it.
 * Uncharged work only touches the lock word. */
static inline void
sim_op_lock_wait (SimOp *op, SimLock *lock)
{
  if (op->uncharged)
    return;
  SimTime got = sim_lock_acquire (lock, op->cpu, op->t);
  op->cost.lock_wait += got - op->t;
  op->t = got;
}

/* Spinlock at simulated address @word: the locked atomic on the lock word
 * (with the spin_lock fast path's cost) goes to the cache model; if another
 * CPU holds the lock until t, wait until t.  Uncharged work only touches
 * the lock word. */
static inline void
sim_op_lock (SimOp *op, SimLock *lock, SimAddr word)
{
  sim_op_atomic (op, word, 4, SIM_MEM_LOCK, SIM_X_SPIN_LOCK);
  sim_op_lock_wait (op, lock);
}

/* spin_unlock: a store to the lock word (x86 has no locked op here). */
static inline void
sim_op_unlock (SimOp *op, SimLock *lock, SimAddr word)
{
  sim_op_store (op, word, 4, SIM_MEM_LOCK, SIM_TOK_NOW);
  sim_op_xcost (op, SIM_X_SPIN_UNLOCK);
  if (!op->uncharged)
    sim_lock_release (lock, op->cpu, op->t);
}

/* bit_spin_lock / __bit_spin_unlock (SLUB's slab_lock before 3.x): lock
 * bts on a flag word, released by a plain store. */
static inline void
sim_op_bit_lock (SimOp *op, SimLock *lock, SimAddr word)
{
  sim_op_atomic (op, word, 8, SIM_MEM_LOCK, SIM_X_BIT_SPIN_LOCK);
  sim_op_lock_wait (op, lock);
}

static inline void
sim_op_bit_unlock (SimOp *op, SimLock *lock, SimAddr word)
{
  sim_op_store (op, word, 8, SIM_MEM_LOCK, SIM_TOK_NOW);
  sim_op_xcost (op, SIM_X_BIT_SPIN_UNLOCK);
  if (!op->uncharged)
    sim_lock_release (lock, op->cpu, op->t);
}

/* GFP bits the models look at (values are ours, not the kernel's). */
#define SIM_GFP_ZERO      (1u << 0)
#define SIM_GFP_DMA       (1u << 1)
#define SIM_GFP_THISNODE  (1u << 2)
#define SIM_GFP_RECLAIMABLE (1u << 3)
#define SIM_GFP_ACCOUNT   (1u << 4)
#define SIM_GFP_WAIT      (1u << 5)   /* may sleep (GFP_KERNEL) */

#define SIM_NUMA_NO_NODE  (-1)

G_END_DECLS

/* ------------------------------------------------------------------ */
/* The allocator ops table.                                            */

G_BEGIN_DECLS

typedef struct SimPageAlloc SimPageAlloc;
typedef guint32 SimCacheId;
#define SIM_CACHE_NONE G_MAXUINT32

/* Cache creation flags (the kernel's SLAB_* flags that matter here). */
#define SIM_SLAB_HWCACHE_ALIGN    (1u << 0)
#define SIM_SLAB_TYPESAFE_BY_RCU  (1u << 1)
#define SIM_SLAB_CTOR             (1u << 2)
#define SIM_SLAB_RECLAIM_ACCOUNT  (1u << 3)
#define SIM_SLAB_CACHE_DMA        (1u << 4)
#define SIM_SLAB_FREEPTR_OFFSET   (1u << 5)
#define SIM_SLAB_ACCOUNT          (1u << 6)
#define SIM_SLAB_PANIC            (1u << 7)
/* Created with kmem_cache_create_usercopy (a usercopy region): such
 * caches are never merged from 4.16 on (slab_unmergeable: s->usersize). */
#define SIM_SLAB_USERCOPY         (1u << 8)

typedef struct {
  const char *name;            /* "skbuff_head_cache" */
  guint32     object_size;
  guint32     align;           /* requested alignment, 0 = default */
  guint32     flags;           /* SIM_SLAB_* */
  /* kmem_cache_args.sheaf_capacity (6.18): per-CPU sheaves of this many
   * objects; 0 = none.  Models without sheaves ignore it. */
  guint32     sheaf_capacity;
} SimCacheSpec;

/* Told of each allocation a model makes for itself (6.18's sheaves; the
 * kernel's kmalloc of them from __alloc_empty_sheaf) and of its free, as
 * the kernel's kmalloc / kfree tracepoints would show it: @site is the
 * kernel function that called kmalloc or kfree (the trace's call_site),
 * @size the size asked (0 for a free), @addr the model's address, @cpu the
 * CPU of the operation.  The replay writes them into an emitted trace and
 * the model's decisions (`validate`), where the recording kernel's own
 * allocations are too.  It must not call back into the model. */
typedef void (*SimInternalObserver) (gpointer data, guint cpu, SimAddr addr, gsize size,
                                     const char *site, gboolean is_free);

/* What an allocator model may use: the machine, its memory system and the
 * page allocator below the slab layer. */
typedef struct {
  const SimMachine *machine;
  SimMemSys        *mem;
  SimPageAlloc     *pages;
  /* The engine, for periodic work (SLAB's cache_reap every 2 s per CPU,
   * SLQB's trim worker): a model schedules an event on a CPU at a
   * simulated time; the replay runs every event whose time has come
   * before it applies the next trace event.  The event's handler starts a
   * SimOp at max(event time, that CPU's clock) and advances the CPU's
   * clock by the op's cost (sim_engine_cpu_sync + sim_engine_cpu_advance).
   * NULL in unit tests that drive a model call by call. */
  SimEngine        *eng;
  /* Grace periods for kfree_rcu / call_rcu (sim/core/rcu.h), on the
   * workload's clock that the replay sets; NULL in drivers without one
   * (slab-test, unit tests that do not ask for it): RCU-deferred frees
   * then happen at once. */
  SimRcu           *rcu;
  guint             n_cpus;
  guint64           seed;
  SimInternalObserver internal;     /* NULL: nobody listens */
  gpointer          internal_data;
} SimAllocEnv;

/* The touch model: what the caller does with an object (docs/models/). */
typedef enum {
  SIM_TOUCH_NONE,              /* nothing beyond the allocator's own accesses */
  SIM_TOUCH_LINE,              /* one write of the first line on alloc, one read before free */
  SIM_TOUCH_OBJECT,            /* every line of the object */
} SimTouch;

/* One cache as a report shows it: geometry, slabinfo-style counts and the
 * model's own counters (CONFIG_SLUB_STATS names for SLUB, SLAB's STATS
 * names for SLAB, ...).  alloc_fast/free_fast are what slabinfo's %Fast
 * divides. */
typedef struct {
  char    *name;
  char   **aliases;              /* NULL-terminated */
  guint32  object_size;
  guint32  slab_size;            /* the object stride */
  guint32  order;
  guint32  objs_per_slab;
  guint64  alloc, free;          /* alloc_fastpath + alloc_slowpath, ... */
  guint64  alloc_fast, free_fast;
  guint64  objects;              /* in use, as slabinfo counts them */
  guint64  slabs;
  guint64  order_fallback;
  guint64  bytes;                /* slabs * (PAGE_SIZE << order) */
  /* What slabinfo, slabtop and /proc/slabinfo show beyond the above
   * (sim/report/views.c); read from the model's state, never used by it. */
  char    *proc_name;            /* /proc/slabinfo's name (SLUB: s->name, the
                                  * first cache of a merged one); NULL: name */
  guint64  total_objects;        /* num_objs: objects in all slabs */
  guint64  partial_slabs;        /* on node partial lists */
  guint64  cpu_slabs;            /* SLUB: cpu slabs and cpu partial slabs */
  guint64  objects_partial;      /* objects in use in partial slabs */
  guint64  active_slabs;         /* /proc/slabinfo's (SLAB: not free) */
  guint32  align;
  guint32  flags;                /* SIM_SLAB_* the cache was created with */
  guint32  limit, batchcount, shared;  /* SLAB's tunables; 0 elsewhere */
  guint64  shared_avail;         /* SLAB: objects in the shared arrays */
  guint    n_stats;
  const char *const *stat_names; /* static, n_stats entries */
  guint64 *stats;
} SimAllocCacheRow;

typedef struct {
  GArray  *rows;                 /* SimAllocCacheRow */
  guint64  large_pages;          /* pages held by pass-through kmallocs */
  /* The statistics counters (rows' stats) are counted in every run; they
   * cost simulated time only when the kernel would be built with them:
   * @stats_config is that option ("CONFIG_SLUB_STATS"; NULL when the era
   * has none), @stats_param the boot parameter that turns it on
   * ("slub_stats"), @stats_charged whether the run charged them. */
  const char *stats_config;
  const char *stats_param;
  gboolean    stats_charged;
  /* The text report lists each cache's non-zero counters, sysfs-style
   * (SLUB 7.x, whose counter list is new). */
  gboolean    stats_in_text;
} SimAllocReport;

void sim_alloc_report_init  (SimAllocReport *r);
void sim_alloc_report_clear (SimAllocReport *r);

/* The allocator ops table: one per model file.  @m is the model's state
 * returned by create(). */
typedef struct {
  const char *name;                     /* "slub" */
  const char *const *kernels;           /* eras it models; [0] is the default */
  gpointer   (*create)       (const SimAllocSpec *spec, const SimAllocEnv *env,
                              GError **error);
  void       (*destroy)      (gpointer m);
  const char*(*kernel)       (gpointer m);
  /* The parameters in effect, "key=value,..." canonical form. */
  char      *(*params)       (gpointer m);
  SimCacheId (*cache_create) (gpointer m, SimOp *op, const SimCacheSpec *spec,
                              GError **error);
  SimAddr    (*cache_alloc)  (gpointer m, SimOp *op, SimCacheId id, gint node,
                              guint32 gfp);
  SimAddr    (*kmalloc)      (gpointer m, SimOp *op, gsize size, gint node,
                              guint32 gfp);
  /* The largest kmalloc the model's kernel can serve (its KMALLOC_MAX_SIZE,
   * or the allocator's own lower limit): a larger kmalloc returns NULL in
   * the kernel, so kmalloc() of the model returns 0 for it without
   * touching anything, and the replay counts it as refused. */
  guint64    (*kmalloc_max)  (gpointer m);
  /* kfree; FALSE if @addr is not the model's. */
  gboolean   (*free)         (gpointer m, SimOp *op, SimAddr addr);
  /* kmem_cache_free: the caller hands the cache in, so the kernel need not
   * find it through struct page as kfree does; same contract as free. */
  gboolean   (*cache_free)   (gpointer m, SimOp *op, SimAddr addr);
  /* kfree_rcu (kvfree_call_rcu): the object is freed after a grace period
   * by whatever path the model's kernel takes (SLUB 6.18+: the rcu_free
   * sheaf).  NULL: the model has nothing of its own, and the caller uses
   * sim_alloc_call_rcu_free() with free(), the call_rcu + kfree callback
   * of the kernels before kfree_rcu batching.  Same contract as free. */
  gboolean   (*kfree_rcu)    (gpointer m, SimOp *op, SimAddr addr);
  /* Object size the model really gives a kmalloc of @size (ksize), 0 for
   * pass-through; used to size caller touches. */
  gsize      (*ksize)        (gpointer m, SimAddr addr);
  gboolean   (*check)        (gpointer m, GError **error);
  void       (*report)       (gpointer m, SimAllocReport *out);
  /* The parameters era @kernel (one of @kernels) accepts, NULL-terminated
   * (free with g_strfreev): the same table create() checks a spec
   * against, so "slabsim list params" and its errors cannot disagree. */
  char     **(*param_names)  (const char *kernel);
} SimAllocOps;

/* The ops entries that only forward to a model's typed API; each entry
 * the caller calls (kmalloc, kmem_cache_alloc, kfree) is one function call
 * (SIM_X_CALL: the call and return beyond the instructions counted; the
 * calls inside a path are in its instruction counts).
 * Forwarders: the entries that only forward to a model's typed API
 * (PREFIX_new, PREFIX_free_model, PREFIX_cache_create, PREFIX_cache_alloc,
 * PREFIX_kmalloc, PREFIX_kmalloc_max, PREFIX_free, PREFIX_cache_free, PREFIX_check): every
 * model names its API
 * the same way, so one macro writes the forwarders and a model file keeps
 * only the entries that do something of their own (kernel, params, ksize,
 * report). */
#define SIM_ALLOC_OPS_FORWARDERS(PREFIX)                                        \
  static gpointer                                                             \
  ops_create (const SimAllocSpec *spec, const SimAllocEnv *env, GError **error) \
  { return PREFIX##_new (spec, env, error); }                                 \
  static void                                                                 \
  ops_destroy (gpointer m)                                                    \
  { PREFIX##_free_model (m); }                                                \
  static SimCacheId                                                           \
  ops_cache_create (gpointer m, SimOp *op, const SimCacheSpec *spec,          \
                    GError **error)                                           \
  { return PREFIX##_cache_create (m, op, spec, error); }                      \
  static SimAddr                                                              \
  ops_cache_alloc (gpointer m, SimOp *op, SimCacheId id, gint node, guint32 gfp) \
  { sim_op_call (op); return PREFIX##_cache_alloc (m, op, id, node, gfp); }   \
  static SimAddr                                                              \
  ops_kmalloc (gpointer m, SimOp *op, gsize size, gint node, guint32 gfp)     \
  { sim_op_call (op); return PREFIX##_kmalloc (m, op, size, node, gfp); }     \
  static guint64                                                              \
  ops_kmalloc_max (gpointer m)                                                \
  { return PREFIX##_kmalloc_max (m); }                                        \
  static gboolean                                                             \
  ops_free (gpointer m, SimOp *op, SimAddr addr)                              \
  { sim_op_call (op); return PREFIX##_free (m, op, addr); }                   \
  static gboolean                                                             \
  ops_cache_free (gpointer m, SimOp *op, SimAddr addr)                        \
  { return PREFIX##_cache_free (m, op, addr); }                               \
  static gboolean                                                             \
  ops_check (gpointer m, GError **error)                                      \
  { return PREFIX##_check (m, error); }

/* The model's ops table and its getter sim_alloc_NAME_ops(), from the
 * forwarders above and the model's ops_kernel, ops_params, ops_ksize and
 * ops_report.  @KERNELS: the eras it models, the default first. */
#define SIM_ALLOC_OPS_TABLE(NAME, KERNELS) SIM_ALLOC_OPS_TABLE_RCU (NAME, KERNELS, NULL)
/* The same with a kfree_rcu entry of the model's own. */
#define SIM_ALLOC_OPS_TABLE_RCU(NAME, KERNELS, KFREE_RCU)                       \
  char **sim_alloc_##NAME##_param_names (const char *kernel);                 \
  static const SimAllocOps NAME##_ops = {                                     \
    .name = #NAME, .kernels = KERNELS, .kfree_rcu = KFREE_RCU,                \
    .create = ops_create, .destroy = ops_destroy,                             \
    .kernel = ops_kernel, .params = ops_params,                               \
    .cache_create = ops_cache_create, .cache_alloc = ops_cache_alloc,         \
    .kmalloc = ops_kmalloc, .kmalloc_max = ops_kmalloc_max,                   \
    .free = ops_free, .cache_free = ops_cache_free, .ksize = ops_ksize,       \
    .check = ops_check, .report = ops_report,                                 \
    .param_names = sim_alloc_##NAME##_param_names,                            \
  };                                                                          \
  const SimAllocOps *                                                         \
  sim_alloc_##NAME##_ops (void)                                               \
  {                                                                           \
    return &NAME##_ops;                                                       \
  }

/* call_rcu (head, free-callback): @free (@m, op, @addr) runs after a grace
 * period of @env->rcu on @op's CPU, as the RCU softirq there: its own
 * SimOp at that CPU's clock, whose cycles advance the clock and go to no
 * operation's histogram.  Without @env->rcu it runs now, within @op.
 * Returns FALSE only when @free says @addr is not the model's (then at
 * once). */
typedef gboolean (*SimAllocFreeFn) (gpointer m, SimOp *op, SimAddr addr);
gboolean sim_alloc_call_rcu_free (const SimAllocEnv *env, SimOp *op, SimAllocFreeFn free,
                                  gpointer m, SimAddr addr);
/* Start and finish the SimOp of a callback running on @cpu (RCU softirq,
 * periodic work): begins at @cpu's engine clock, and on finish advances
 * that clock by the op's cycles. */
void sim_alloc_deferred_begin (const SimAllocEnv *env, SimOp *op, guint cpu);
void sim_alloc_deferred_end (const SimAllocEnv *env, SimOp *op);

/* The registry: every allocator model, by name. */
const SimAllocOps *const *sim_alloc_models (void);
const SimAllocOps *sim_alloc_model_lookup (const char *name);
/* The same, or NULL with SIM_CONFIG_ERROR naming the known models. */
const SimAllocOps *sim_alloc_model_find (const char *name, GError **error);

G_END_DECLS
