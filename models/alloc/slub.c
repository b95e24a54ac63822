/* slub.c - SLUB, as in Linux 2.6.23, 2.6.33, 2.6.34 and 6.18 (7.x:
 * slub-7.c, which shares this file's entry points and kmalloc).
 *
 * Which kernel.  The allocator paths follow mm/slub.c of each era
 * (shared/reference/allocators.md §1 and the kernel trees cited there):
 *
 *   2.6.23  The per-CPU slab is a bare struct page pointer in the
 *           kmem_cache (cpu_slab[NR_CPUS]); the lockless freelist lives in
 *           struct page (page->lockless_freelist), so the fast paths read
 *           kmem_cache, struct page and the object.  No statistics in that
 *           kernel (the counters below are kept anyway, with 2.6.34's
 *           meaning, and cost no simulated memory traffic), MIN_PARTIAL 2,
 *           no per-cache min_partial.
 *   2.6.33  struct kmem_cache_cpu {freelist, page, node, offset, objsize,
 *           stat[]} reached through kmem_cache's cpu_slab[NR_CPUS] pointer
 *           array: the layout just before commit 9dfc6e68bfe6e.  The
 *           structures come from each CPU's static kmem_cache_cpu[100]
 *           array in cache-creation order.
 *   2.6.34  The same kmem_cache_cpu, minus offset/objsize, in the per-CPU
 *           area reached with this_cpu operations (kmalloc caches: the
 *           static kmalloc_percpu[] by kmalloc index; others:
 *           alloc_percpu); the fast path reads s->cpu_slab and s->offset
 *           from kmem_cache's first line.  min_partial per cache.
 *           Both kernels embed node 0's kmem_cache_node in kmem_cache
 *           (local_node), on the line after offset and oo, and keep the
 *           kmalloc caches' kmem_caches in one static array; the eras
 *           table gives the field offsets of both structures
 *           (docs/case-studies/003-hackbench-this-cpu.md).  The node[] and
 *           cpu_slab[] arrays are sized by the simulated machine, not by a
 *           kernel config's MAX_NUMNODES and NR_CPUS.
 *   6.18    kmem_cache_cpu {freelist, tid, slab, partial, lock, stat[]};
 *           the fast paths are a cmpxchg of (freelist, tid); per-CPU
 *           partial slabs (cpu_partial_slabs) that are not frozen; slab
 *           state changes by cmpxchg on (freelist, counters); the node
 *           list_lock only where the kernel takes it.  Caches created
 *           with a sheaf_capacity (vm_area_struct and maple_node, 32) also
 *           have per-CPU sheaves in front of all that (below).
 *
 * What the model keeps.  Every slab's objects, free pointers, inuse and
 * frozen state, the per-CPU freelist, the per-node partial lists in their
 * kernel order (head/tail insertion), the cpu partial chain, and the
 * CONFIG_SLUB_STATS counters with their sysfs names, incremented where
 * that era's code increments them.  Every load and store the kernel code
 * makes on those structures goes to the cache model at the structure's
 * simulated address: kmem_cache, kmem_cache_cpu, kmem_cache_node (list
 * head and list_lock), struct page (one 64-byte line in the vmemmap), the
 * free pointer word inside each object, and the object itself when it is
 * zeroed for __GFP_ZERO.  Locks (node list_lock, the slab lock of the
 * 2.6 eras) are engine resources: a CPU that finds one held waits.
 *
 * Sheaves (6.18, Vlastimil Babka's "SLUB percpu sheaves") are in
 * slub-sheaves.c, whose essay says what of them is kept and what not.
 *
 * The files.  This one has the paths an allocation and a free take
 * (slab_alloc_node / __slab_alloc / ___slab_alloc, slab_free /
 * do_slab_free / __slab_free), kmalloc, flush_all and the ops table;
 * slub-node.c the slab and node side, slub-sheaves.c the sheaves and
 * barns, slub-create.c cache creation and the model's lifetime,
 * slub-check.c introspection and the invariant checker, slub-eras.c the
 * era table (slub-internal.h says what they share).
 *
 * What it leaves out.  Debug caches (red zones, poisoning, user tracking:
 * SLUB_DEBUG off), memcg accounting, freelist randomisation and hardening
 * (CONFIG_SLAB_FREELIST_RANDOM/HARDENED off: freelists are in ascending
 * address order, pointers stored plainly), pfmemalloc, kmem_cache_shrink,
 * memory policies and cpusets in get_any_partial's zonelist walk (it is
 * modelled: another node's partial slab before a new page, gated by
 * remote_node_defrag_ratio against the simulated clock as the kernel
 * gates it against get_cycles()), the parts of sheaves listed above, and
 * interrupts: an operation runs to completion on its CPU,
 * so the races the kernel re-checks for (a cpu slab appearing while
 * interrupts were enabled) never happen and cmpxchg never fails.
 */
#include "models/alloc/slub.h"
#include "models/alloc/slub-internal.h"

/* ------------------------------------------------------------------ */
/* Allocation                                                          */

static inline gboolean
node_match (const Slab *slab, gint node)
{
  return node == SIM_NUMA_NO_NODE || slab->node == (guint) node;
}

/* The load of this CPU's kmem_cache_cpu pointer: s->cpu_slab (the per-CPU
 * offset is in a register), or s->cpu_slab[cpu] in the eras with an array
 * (2.6.23: the cpu slab page's), issued once @after is ready. */
static inline SimTok
ld_cpu_slab (SimSlub *m, const SlubEra *e, SimOp *op, SlubCache *s, SimTok after)
{
  if (e->cpu_ptr_array)
    return sim_op_load (op, s->addr + e->kmem_cache_size + 8 * m->n_nodes + 8 * op->cpu, 8,
                        SIM_MEM_CACHE_META, after);
  return ld_kc (op, s, KC_CPU_SLAB, after);
}

static guint16
take_slab_freelist (SimSlub *m, SimOp *op, CpuSlab *c, Slab *slab)
{
  /* load_freelist / get_freelist: the first object is returned, the rest
   * becomes the cpu freelist; the slab looks fully used meanwhile. */
  sim_op_path (op, &m->path[P_LOAD_FREELIST]);
  guint16 obj = slab->freelist;
  rd_freeptr (op, slab, obj);
  c->freelist = slab->next_free[obj];
  slab->freelist = NIL;
  slab->inuse = slab->objects;
  if (m->era->tid)
    rmw_page (op, slab);
  else
    wr_page (op, slab);
  if (m->era->page_lockless)
    wr_page (op, slab);
  else
    wr_cpu (op, c, CC_FREELIST);
  return obj;
}

static void
install_cpu_slab (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c, Slab *slab)
{
  c->slab = slab;
  c->node = slab->node;
  slab->frozen = 1;
  slab->where = WHERE_CPU;
  slab->cpu = (guint16) op->cpu;
  if (m->era->cpu_ptr_array && m->era->page_lockless)
    sim_op_write (op, s->addr + m->era->kmem_cache_size + 8 * m->n_nodes + 8 * op->cpu, 8,
                  SIM_MEM_CACHE_META);
  else
    wr_cpu (op, c, m->era->tid ? CC_SLAB_618 : CC_PAGE);
}

/* __slab_alloc of the 2.6 eras. */
static Slab *
slow_alloc_2_6 (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c, gint node,
                guint32 gfp, guint16 *out)
{
  sim_op_path (op, &m->path[P_SLOW_ALLOC]);
  Slab *slab = c->slab;
  if (slab)
    {
      slab_lock (m, op, slab);
      rd_page (op, slab);
      if (node_match (slab, node))
        {
          stat (m, op, s, SIM_SLUB_ALLOC_REFILL);
          if (slab->freelist != NIL)
            goto load;
        }
      deactivate_2_6 (m, op, s, c);
    }
  slab = get_partial (m, op, s, node, gfp);
  if (slab)
    {
      install_cpu_slab (m, op, s, c, slab);
      stat (m, op, s, SIM_SLUB_ALLOC_FROM_PARTIAL);
      goto load;
    }
  slab = new_slab (m, op, s, node, gfp);
  if (slab == NULL)
    return NULL;
  stat (m, op, s, SIM_SLUB_ALLOC_SLAB);
  slab_lock (m, op, slab);
  install_cpu_slab (m, op, s, c, slab);
load:
  *out = take_slab_freelist (m, op, c, slab);
  c->node = slab->node;
  slab_unlock (m, op, slab);
  stat (m, op, s, SIM_SLUB_ALLOC_SLOWPATH);
  return slab;
}

/* ___slab_alloc of 6.18. */
Slab *
slow_alloc_618 (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c, gint node,
                guint32 gfp, guint16 *out)
{
  sim_op_path (op, &m->path[P_SLOW_ALLOC]);
  stat (m, op, s, SIM_SLUB_ALLOC_SLOWPATH);
  Slab *slab = c->slab;
  rd_cpu (op, c, CC_SLAB_618);
  if (slab)
    {
      if (!node_match (slab, node))
        {
          stat (m, op, s, SIM_SLUB_ALLOC_NODE_MISMATCH);
          guint16 fl = c->freelist;
          c->slab = NULL;
          c->freelist = NIL;
          c->tid++;
          rmw_cpu (op, c, CC_FREELIST, 16, op->last);
          deactivate_618 (m, op, s, slab, fl);
        }
      else
        {
          rd_page (op, slab);
          if (slab->freelist != NIL)
            {
              stat (m, op, s, SIM_SLUB_ALLOC_REFILL);
              *out = take_slab_freelist (m, op, c, slab);
              slab->frozen = 1;
              c->tid++;
              return slab;
            }
          /* get_freelist found nothing: the slab is full and simply
           * forgotten (it is on no list and unfrozen). */
          rmw_page (op, slab);
          slab->frozen = 0;
          slab->where = WHERE_NONE;
          c->slab = NULL;
          c->tid++;
          wr_cpu (op, c, CC_SLAB_618);
          stat (m, op, s, SIM_SLUB_DEACTIVATE_BYPASS);
        }
    }

  /* new_slab: first the cpu partial chain. */
  while (c->partial)
    {
      rd_cpu (op, c, CC_PARTIAL);
      slab = c->partial;
      rd_page (op, slab);
      /* slub_set_percpu_partial: the next slab keeps the chain length it
       * was given when it was pushed, which is still right. */
      c->partial = slab->next;
      wr_cpu (op, c, CC_PARTIAL);
      slab->next = NULL;
      if (node_match (slab, node))
        {
          install_cpu_slab (m, op, s, c, slab);
          *out = take_slab_freelist (m, op, c, slab);
          stat (m, op, s, SIM_SLUB_CPU_PARTIAL_ALLOC);
          c->tid++;
          return slab;
        }
      slab->where = WHERE_NONE;
      put_partials_618 (m, op, s, slab);
    }

  slab = get_partial (m, op, s, node, gfp);
  if (slab == NULL)
    {
      slab = new_slab (m, op, s, node, gfp);
      if (slab == NULL)
        return NULL;
      stat (m, op, s, SIM_SLUB_ALLOC_SLAB);
    }
  install_cpu_slab (m, op, s, c, slab);
  *out = take_slab_freelist (m, op, c, slab);
  c->tid++;
  return slab;
}

static void
zero_object (SimOp *op, SlubCache *s, SimAddr addr)
{
  sim_op_touch_range (op, addr, s->g.object_size, SIM_ACC_WRITE, SIM_MEM_OBJECT);
}

/* slab_alloc_node of the 2.6 eras and 6.18, for @m's era @e (m->era, or
 * the same row as a constant: see the instances below). */
static inline __attribute__ ((always_inline)) SimAddr
slab_alloc_era (SimSlub *m, const SlubEra *e, SimOp *op, SlubCache *s, gint node, guint32 gfp)
{
  CpuSlab *c = &s->cpu[op->cpu];

  /* 6.18 slab_alloc_node: the sheaves first; what they cannot serve falls
   * through to the classic paths. */
  SimAddr from_pcs;
  if (s->pcs && alloc_from_pcs (m, op, s, node, gfp, &from_pcs))
    {
      if (gfp & SIM_GFP_ZERO)
        zero_object (op, s, from_pcs);
      s->live++;
      return from_pcs;
    }

  sim_op_path (op, &m->path[P_FAST_ALLOC]);
  /* Before the lockless fast path (2.6.39) slab_alloc ran with irqs off. */
  if (!e->tid)
    sim_op_irqsave (op);
  /* The dependency chain of the fast path: the kmem_cache_cpu pointer, then
   * c->freelist (c->tid in the same line) and the free pointer's offset
   * independently, then the object's free pointer, whose address is the
   * freelist head: the pointer chase that serialises. */
  SimTok t_c = ld_cpu_slab (m, e, op, s, SIM_TOK_NOW);
  SimTok t_fl;
  Slab *slab = c->slab;
  if (e->page_lockless)
    {
      sim_op_use (op, t_c);
      if (slab)
        rd_page (op, slab);                    /* page->lockless_freelist */
      t_fl = op->t;
    }
  else
    t_fl = ld_cpu (op, c, CC_FREELIST, 8, t_c);

  guint16 obj;
  if (slab && c->freelist != NIL && node_match (slab, node))
    {
      /* Fast path: pop the cpu freelist. */
      SimTok t_off = op->t;
      if (e->cpu_has_offset)
        t_off = ld_cpu (op, c, CC_OFFSET_2_6_33, 8, t_c);   /* c->offset, c->objsize */
      else if (!e->page_lockless)
        t_off = ld_kc (op, s, KC_OFFSET, SIM_TOK_NOW);     /* s->offset */
      obj = c->freelist;
      SimTok t_next = ld_freeptr (op, slab, obj, MAX (t_fl, t_off));
      c->freelist = slab->next_free[obj];
      if (e->tid)
        {
          rmw_cpu (op, c, CC_FREELIST, 16, t_next);  /* cmpxchg (freelist, tid) */
          c->tid++;
        }
      else if (e->page_lockless)
        {
          sim_op_use (op, t_next);
          wr_page (op, slab);
        }
      else
        sim_op_store (op, c->addr + CC_FREELIST, 8, SIM_MEM_CPU_SLAB, t_next);
      stat_era (m, e, op, s, SIM_SLUB_ALLOC_FASTPATH);
      /* The caller gets the object: its address must be there. */
      sim_op_use (op, t_fl);
    }
  else
    {
      slab = e->tid ? slow_alloc_618 (m, op, s, c, node, gfp, &obj)
                    : slow_alloc_2_6 (m, op, s, c, node, gfp, &obj);
      if (slab == NULL)
        {
          if (!e->tid)
            sim_op_irqrestore (op);
          return 0;
        }
    }
  if (!e->tid)
    sim_op_irqrestore (op);                    /* before the __GFP_ZERO memset */
  SimAddr addr = obj_addr (slab, obj);
  m->alloc_slab = slab;
  m->alloc_addr = addr;
  if (gfp & SIM_GFP_ZERO)
    zero_object (op, s, addr);
  s->live++;
  return addr;
}

/* The era rows the classic paths are compiled for as constants
 * (slub-internal.h); every other classic era reads m->era. */
static const SlubEra era_2_6_34 = SLUB_ERA_ROW_2_6_34;
static const SlubEra era_618 = SLUB_ERA_ROW_6_18;

/* 6.10+ with memcg (the recording kernel of the shared traces):
 * memcg_slab_post_alloc_hook charges an accounted object (__GFP_ACCOUNT,
 * or a SLAB_ACCOUNT cache: the trace's accounted=true) in its slab's
 * slabobj_ext vector, which the slab gets at its first accounted object
 * (alloc_slab_obj_exts: kcalloc_node of one entry per object on the
 * slab's node, without __GFP_ACCOUNT so it is never charged itself; 8
 * bytes an entry with CONFIG_MEMCG and no allocation profiling: the
 * shared traces' vectors are 8 x objects).  The vector is kfree'd when the
 * slab is (free_slab_obj_exts from __free_slab).  The kernel makes it
 * eagerly in allocate_slab for SLAB_ACCOUNT caches; the model has no
 * SLAB_ACCOUNT flag, so every slab gets it at its first accounted object,
 * within the same allocation. */
#define SLAB_OBJ_EXT_SIZE 8

static void
obj_exts_account (SimSlub *m, SimOp *op, SimAddr addr, guint32 gfp, Slab *slab)
{
  /* @slab: the object's slab when the allocation path had it at hand, the
   * one the page lookup finds (host speed only); NULL: look it up. */
  if (slab == NULL)
    slab = slab_at (m, sim_page_head (m->env.pages, addr));
  if (slab == NULL)
    return;                    /* a large kmalloc: its pages are charged, no vector */
  if (slab->obj_exts == 0)
    {
      gsize size = (gsize) slab->objects * SLAB_OBJ_EXT_SIZE;
      SimAddr v = sim_slub_kmalloc (m, op, size, slab->node,
                                    (gfp & ~SIM_GFP_ACCOUNT) | SIM_GFP_ZERO);
      if (v == 0)
        return;                /* the kernel marks the failure and goes on uncharged */
      slab->obj_exts = v;
      if (m->env.internal)
        m->env.internal (m->env.internal_data, op->cpu, v, size, "alloc_slab_obj_exts", FALSE);
      sim_op_write (op, slab->page + 40, 8, SIM_MEM_STRUCT_PAGE);   /* slab->obj_exts */
    }
  guint idx = (guint) ((addr - slab->base) / slab->s->g.size);
  /* obj_exts[off].objcg = objcg */
  sim_op_write (op, slab->obj_exts + (SimAddr) idx * SLAB_OBJ_EXT_SIZE, 8, SIM_MEM_CACHE_META);
}

/* memcg_slab_free_hook: the object's entry is read (and cleared when it
 * was charged). */
static inline void
obj_exts_uncharge (SimOp *op, const Slab *slab, SimAddr addr)
{
  if (slab->obj_exts == 0)
    return;
  guint idx = (guint) ((addr - slab->base) / slab->s->g.size);
  sim_op_read (op, slab->obj_exts + (SimAddr) idx * SLAB_OBJ_EXT_SIZE, 8, SIM_MEM_CACHE_META);
}

SimAddr
sim_slub_cache_alloc (SimSlub *m, SimOp *op, SimCacheId id, gint node, guint32 gfp)
{
  g_return_val_if_fail (id < m->caches->len, 0);
  SlubCache *s = g_ptr_array_index (m->caches, id);
  m->alloc_slab = NULL;
  SimAddr a = m->era->ops->alloc (m, op, s, node, gfp);
  /* An allocation nested in this one (a sheaf's kmalloc) leaves its own
   * object's slab there: only the slab noted for @a is @a's. */
  if (a && (gfp & SIM_GFP_ACCOUNT) && m->era->id >= SIM_SLUB_6_18)
    obj_exts_account (m, op, a, gfp, m->alloc_addr == a ? m->alloc_slab : NULL);
  return a;
}

/* ------------------------------------------------------------------ */
/* Free                                                                */

static void
slow_free_2_6 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 obj)
{
  sim_op_path (op, &m->path[P_SLOW_FREE]);
  stat (m, op, s, SIM_SLUB_FREE_SLOWPATH);
  slab_lock (m, op, slab);
  rd_page (op, slab);
  guint16 prior = slab->freelist;
  slab->next_free[obj] = prior;
  wr_freeptr (op, slab, obj);
  slab->freelist = obj;
  slab->inuse--;
  wr_page (op, slab);
  if (slab->frozen)
    {
      stat (m, op, s, SIM_SLUB_FREE_FROZEN);
      slab_unlock (m, op, slab);
      return;
    }
  SlubNode *n = node_of_slab (s, slab);
  if (slab->inuse == 0)
    {
      if (prior != NIL)
        {
          node_lock (op, n);
          remove_partial (m, op, n, slab);
          node_unlock (op, n);
          stat (m, op, s, SIM_SLUB_FREE_REMOVE_PARTIAL);
        }
      slab_unlock (m, op, slab);
      stat (m, op, s, SIM_SLUB_FREE_SLAB);
      discard_slab (m, op, slab);
      return;
    }
  if (prior == NIL)
    {
      /* A full slab gets a free object: onto the partial list (2.6.23
       * inserted at the head, 2.6.34 at the tail). */
      node_lock (op, n);
      add_partial (m, op, n, slab, m->era->id != SIM_SLUB_2_6_23);
      node_unlock (op, n);
      stat (m, op, s, SIM_SLUB_FREE_ADD_PARTIAL);
    }
  slab_unlock (m, op, slab);
}

/* __slab_free of 6.18 for a chain head..tail of @cnt objects of @slab
 * already linked through their free pointers (one object from slab_free,
 * a detached freelist from a bulk free). */
void
slow_free_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 head, guint16 tail,
               guint cnt)
{
  /* Only 6.18 comes here (the tid free path and its sheaves): its row as
   * constants, which must then be m's. */
  g_assert (m->era->id == SIM_SLUB_6_18);
  const SlubEra *e = &era_618;
  sim_op_path (op, &m->path[P_SLOW_FREE]);
  stat_era (m, e, op, s, SIM_SLUB_FREE_SLOWPATH);
  rd_page (op, slab);
  guint16 prior = slab->freelist;
  gboolean was_frozen = slab->frozen;
  /* kmem_cache_has_cpu_partial: CONFIG_SLUB_CPU_PARTIAL and no debug,
   * whatever cpu_partial says; cpu_partial=0 only makes every chain one
   * slab long (put_cpu_partial drains the old one first). */
  gboolean has_cpu_partial = e->cpu_partial;
  SlubNode *n = NULL;
  gboolean on_node_partial = FALSE;

  if ((slab->inuse == cnt || prior == NIL) && !was_frozen
      && (!has_cpu_partial || prior != NIL))
    {
      n = node_of_slab (s, slab);
      node_lock (op, n);
      on_node_partial = slab->where == WHERE_NODE_PARTIAL;
    }
  slab->next_free[tail] = prior;
  wr_freeptr (op, slab, tail);
  slab->freelist = head;
  slab->inuse -= cnt;
  rmw_page (op, slab);                         /* slab_update_freelist */

  if (n == NULL)
    {
      if (was_frozen)
        stat_era (m, e, op, s, SIM_SLUB_FREE_FROZEN);
      else if (has_cpu_partial && prior == NIL)
        {
          put_cpu_partial_618 (m, op, s, slab, TRUE);
          stat_era (m, e, op, s, SIM_SLUB_CPU_PARTIAL_FREE);
        }
      return;
    }
  if (prior != NIL && !on_node_partial)
    {
      /* On a cpu partial chain: not ours to move. */
      node_unlock (op, n);
      return;
    }
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (slab->inuse == 0 && n->nr_partial >= s->g.min_partial)
    {
      if (prior != NIL)
        {
          remove_partial (m, op, n, slab);
          stat_era (m, e, op, s, SIM_SLUB_FREE_REMOVE_PARTIAL);
        }
      node_unlock (op, n);
      stat_era (m, e, op, s, SIM_SLUB_FREE_SLAB);
      discard_slab (m, op, slab);
      return;
    }
  if (!has_cpu_partial && prior == NIL)
    {
      add_partial (m, op, n, slab, TRUE);
      stat_era (m, e, op, s, SIM_SLUB_FREE_ADD_PARTIAL);
    }
  node_unlock (op, n);
}

Slab *
slab_of_addr (SimSlub *m, SimOp *op, SimAddr addr)
{
  /* virt_to_head_page: read the page's flags (PageTail) and for a tail
   * page its head pointer. */
  sim_op_path (op, &m->path[P_VIRT_TO_PAGE]);
  SimAddr pg, head_pg;
  SimAddr head = sim_page_head_structs (m->env.pages, addr, &pg, &head_pg);
  sim_op_read (op, pg, 8, SIM_MEM_STRUCT_PAGE);
  if (head != (addr & ~(SimAddr) (SIM_PAGE_SIZE - 1)))
    sim_op_read (op, head_pg, 8, SIM_MEM_STRUCT_PAGE);
  return slab_at (m, head);
}

/* slab_free of the 2.6 eras and 6.18, for @m's era @e (as in
 * slab_alloc_era). */
static inline __attribute__ ((always_inline)) void
slab_free_era (SimSlub *m, const SlubEra *e, SimOp *op, Slab *slab, SimAddr addr)
{
  SlubCache *s = slab->s;
  CpuSlab *c = &s->cpu[op->cpu];
  guint16 obj = (guint16) ((addr - slab->base) / s->g.size);

  /* 6.18 slab_free: only objects of this CPU's node go to the sheaves. */
  if (s->pcs && slab->node == node_of_cpu (m, op->cpu) && free_to_pcs (m, op, s, addr))
    {
      s->live--;
      return;
    }

  sim_op_path (op, &m->path[P_FAST_FREE]);
  if (!e->tid)
    sim_op_irqsave (op);                       /* 2.6.x slab_free: irqs off */
  /* s came from the object's struct page (the previous load); c->freelist
   * (c->slab, c->tid beside it) and the offset are independent of each
   * other; the object's free pointer is stored with the old head. */
  SimTok t_c = ld_cpu_slab (m, e, op, s, op->last);
  SimTok t_fl = t_c;
  if (!e->page_lockless)
    t_fl = ld_cpu (op, c, CC_FREELIST, 8, t_c);   /* c->page / c->slab, c->freelist */
  if (e->pcpu_layout == PCPU_STATIC_ARRAY || e->pcpu_layout == PCPU_KMALLOC_STATIC)
    {
      SimTok t_pg = ld_cpu (op, c, CC_PAGE, 12, t_c);     /* c->page, c->node */
      t_fl = MAX (t_fl, t_pg);
    }
  s->live--;
  if (slab == c->slab)
    {
      SimTok t_off = t_c;
      if (e->cpu_has_offset)
        t_off = ld_cpu (op, c, CC_OFFSET_2_6_33, 8, t_c);
      else if (!e->page_lockless)
        t_off = ld_kc (op, s, KC_OFFSET, SIM_TOK_NOW);
      slab->next_free[obj] = c->freelist;
      st_freeptr (op, slab, obj, MAX (t_fl, t_off));
      c->freelist = obj;
      if (e->tid)
        {
          rmw_cpu (op, c, CC_FREELIST, 16, t_fl);
          c->tid++;
        }
      else if (e->page_lockless)
        {
          sim_op_use (op, t_c);
          wr_page (op, slab);
        }
      else
        sim_op_store (op, c->addr + CC_FREELIST, 8, SIM_MEM_CPU_SLAB, t_c);
      stat_era (m, e, op, s, SIM_SLUB_FREE_FASTPATH);
      if (!e->tid)
        sim_op_irqrestore (op);
      return;
    }
  /* The slow path's decisions wait for what the fast path loaded. */
  sim_op_use (op, t_fl);
  if (e->tid)
    slow_free_618 (m, op, s, slab, obj, obj, 1);
  else
    slow_free_2_6 (m, op, s, slab, obj);
  if (!e->tid)
    sim_op_irqrestore (op);
}

/* The instances of the classic paths: NAME reads era row ERA (m->era, or
 * a constant row), and its ops table is slub_NAME_ops. */
#define SLUB_CLASSIC_INSTANCE(NAME, ERA)                                      \
  static SimAddr                                                              \
  slab_alloc_##NAME (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp) \
  { return slab_alloc_era (m, (ERA), op, s, node, gfp); }                     \
  static void                                                                 \
  slab_free_##NAME (SimSlub *m, SimOp *op, Slab *slab, SimAddr addr)          \
  { slab_free_era (m, (ERA), op, slab, addr); }

SLUB_CLASSIC_INSTANCE (classic, m->era)
SLUB_CLASSIC_INSTANCE (2_6_34, &era_2_6_34)
SLUB_CLASSIC_INSTANCE (618, &era_618)

gboolean
sim_slub_free (SimSlub *m, SimOp *op, SimAddr addr)
{
  Slab *slab = slab_of_addr (m, op, addr);
  if (slab == NULL)
    {
      /* Not a slab page: a large kmalloc passed through to the page
       * allocator (kfree -> put_page / free_large_kmalloc). */
      guint64 order;
      if (!sim_idmap_take (m->large, addr, &order))
        return FALSE;
      m->large_pages -= 1u << order;
      sim_page_free (m->env.pages, op, addr, (guint) order);
      return TRUE;
    }
  rd_page (op, slab);                          /* page->slab / slab->slab_cache */
  obj_exts_uncharge (op, slab, addr);
  m->era->ops->free (m, op, slab, addr);
  return TRUE;
}

/* kmem_cache_free: the cache is the caller's; slab_free still needs the
 * slab (virt_to_head_page / virt_to_slab), but not page->slab. */
gboolean
sim_slub_cache_free (SimSlub *m, SimOp *op, SimAddr addr)
{
  Slab *slab = slab_of_addr (m, op, addr);
  if (slab == NULL)
    return FALSE;          /* kmem_cache_free of a page is a kernel bug */
  obj_exts_uncharge (op, slab, addr);
  m->era->ops->free (m, op, slab, addr);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* kmalloc                                                             */

guint64
sim_slub_kmalloc_max (SimSlub *m)
{
  return m->kmalloc_max;
}

SimAddr
sim_slub_kmalloc (SimSlub *m, SimOp *op, gsize size, gint node, guint32 gfp)
{
  /* Above KMALLOC_MAX_SIZE (2.6.23: no cache; later: an order above
   * MAX_ORDER-1, which __alloc_pages refuses) the kernel returns NULL. */
  if (size > sim_slub_kmalloc_max (m))
    return 0;
  sim_op_path (op, &m->path[P_KMALLOC_INDEX]);
  SimCacheId id = sim_slub_kmalloc_cache (m, size, gfp);
  if (id != SIM_CACHE_NONE)
    return sim_slub_cache_alloc (m, op, id, node, gfp);
  /* Pass-through: a compound allocation straight from the page
   * allocator. */
  guint order = 0;
  while (((gsize) SIM_PAGE_SIZE << order) < size)
    order++;
  SimAddr a = sim_page_alloc (m->env.pages, op, order, node, gfp, TRUE);
  if (a)
    {
      sim_idmap_set (m->large, a, order);
      m->large_pages += 1u << order;
    }
  return a;
}

/* ------------------------------------------------------------------ */
/* flush_all                                                           */

/* flush_cpu_slab of the 2.6 eras and 6.18 (6.18: the sheaves first). */
static void
flush_cpu_classic (SimSlub *m, SimOp *op, SlubCache *s)
{
  CpuSlab *c = &s->cpu[op->cpu];
  if (s->pcs)
    pcs_flush_all (m, op, s);
  if (c->slab)
    {
      stat (m, op, s, SIM_SLUB_CPUSLAB_FLUSH);
      if (m->era->tid)
        {
          Slab *slab = c->slab;
          guint16 fl = c->freelist;
          c->slab = NULL;
          c->freelist = NIL;
          c->tid++;
          deactivate_618 (m, op, s, slab, fl);
        }
      else
        {
          slab_lock (m, op, c->slab);
          deactivate_2_6 (m, op, s, c);
        }
    }
  if (c->partial)
    {
      Slab *chain = c->partial;
      c->partial = NULL;
      put_partials_618 (m, op, s, chain);
    }
}

void
sim_slub_flush_all (SimSlub *m, SimOp *op)
{
  /* The IPI runs flush_cpu_slab on every CPU; the simulation charges the
   * work to @op's CPU but touches each CPU's structures. */
  guint self = op->cpu;
  for (guint i = 0; i < m->caches->len; i++)
    {
      SlubCache *s = g_ptr_array_index (m->caches, i);
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        {
          op->cpu = cpu;
          m->era->ops->flush_cpu (m, op, s);
        }
    }
  op->cpu = self;
}

/* ------------------------------------------------------------------ */
/* The ops table                                                       */

SIM_ALLOC_OPS_FORWARDERS (sim_slub)

static const char *
ops_kernel (gpointer m)
{
  return ((SimSlub *) m)->kernel;
}

static char *
ops_params (gpointer mp)
{
  SimSlub *m = mp;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "slub_min_order=%u,slub_max_order=%u,slub_min_objects=%u",
                          m->cfg.min_order, m->cfg.max_order, m->cfg.min_objects);
  if (m->cfg.nomerge)
    g_string_append (s, ",slub_nomerge");
  if (m->p.pass_through == 0)
    g_string_append (s, ",pass_through=off");
  else if (m->p.pass_through > 0)
    g_string_append_printf (s, ",pass_through=%" G_GINT64_FORMAT, m->p.pass_through);
  if (m->p.cpu_partial >= 0)
    g_string_append_printf (s, ",cpu_partial=%d", m->p.cpu_partial);
  if (m->p.min_partial >= 0)
    g_string_append_printf (s, ",min_partial=%d", m->p.min_partial);
  g_string_append_printf (s, ",slub_stats=%d", m->p.stats ? 1 : 0);
  /* The simulator's own knobs, when set (not kernel parameters). */
  if (m->p.sheaf_capacity >= 0)
    g_string_append_printf (s, ",sim_sheaf_capacity=%d", m->p.sheaf_capacity);
  if (m->p.sheaf_capacity_of)
    {
      GList *keys = g_list_sort (g_hash_table_get_keys (m->p.sheaf_capacity_of),
                                 (GCompareFunc) strcmp);
      g_string_append (s, ",sim_sheaf_capacity=");
      for (GList *l = keys; l; l = l->next)
        g_string_append_printf (s, "%s%s:%u", l == keys ? "" : "+", (char *) l->data,
                                GPOINTER_TO_UINT (g_hash_table_lookup (m->p.sheaf_capacity_of,
                                                                       l->data)));
      g_list_free (keys);
    }
  if (m->p.barn_max_full != MAX_FULL_SHEAVES)
    g_string_append_printf (s, ",sim_barn_max_full=%u", m->p.barn_max_full);
  if (m->p.barn_max_empty != MAX_EMPTY_SHEAVES)
    g_string_append_printf (s, ",sim_barn_max_empty=%u", m->p.barn_max_empty);
  return g_string_free (s, FALSE);
}

static gsize
ops_ksize (gpointer mp, SimAddr addr)
{
  SimSlub *m = mp;
  Slab *slab = slab_at (m, sim_page_head (m->env.pages, addr));
  return slab ? slab->s->g.object_size : 0;
}

static void
ops_report (gpointer mp, SimAllocReport *out)
{
  SimSlub *m = mp;
  for (guint i = 0; i < m->caches->len; i++)
    {
      SimSlubCacheInfo info;
      sim_slub_cache_info (m, i, &info);
      SimAllocCacheRow row = { 0 };
      row.name = g_strdup (info.name);
      /* Every name the cache serves: a merged cache shows its unique id
       * (":0000032"), and the first name it was created under is the one
       * the kernel's tracepoints print (s->name), so it leads the list. */
      const SlubCache *sx = g_ptr_array_index (m->caches, i);
      GPtrArray *names = g_ptr_array_new ();
      if (strcmp (sx->sc->name, info.name) != 0)
        g_ptr_array_add (names, g_strdup (sx->sc->name));
      for (const char *const *a = info.aliases; a && *a; a++)
        if (strcmp (*a, sx->sc->name) != 0)
          g_ptr_array_add (names, g_strdup (*a));
      g_ptr_array_add (names, NULL);
      row.aliases = (char **) g_ptr_array_free (names, FALSE);
      row.object_size = info.g.object_size;
      row.slab_size = info.g.size;
      row.order = info.g.order;
      row.objs_per_slab = info.g.objects;
      row.alloc_fast = info.stat[SIM_SLUB_ALLOC_FASTPATH];
      row.alloc = row.alloc_fast + info.stat[SIM_SLUB_ALLOC_SLOWPATH];
      row.free_fast = info.stat[SIM_SLUB_FREE_FASTPATH];
      row.free = row.free_fast + info.stat[SIM_SLUB_FREE_SLOWPATH];
      row.slabs = info.slabs;
      row.order_fallback = info.stat[SIM_SLUB_ORDER_FALLBACK];
      /* slabinfo's Objects: total minus the free objects of node partial
       * slabs (cpu freelists count as used). */
      guint64 partial_free = 0;
      const SlubCache *s = g_ptr_array_index (m->caches, i);
      for (guint n = 0; n < m->n_nodes; n++)
        for (const Slab *sl = s->node[n].head; sl; sl = sl->next)
          partial_free += sl->objects - sl->inuse;
      row.objects = info.total_objects - partial_free;
      row.total_objects = info.total_objects;
      row.partial_slabs = info.partial_slabs;
      row.cpu_slabs = info.cpu_slabs + info.cpu_partial_slabs;
      guint64 partial_total = 0;
      for (guint n = 0; n < m->n_nodes; n++)
        for (const Slab *sl = s->node[n].head; sl; sl = sl->next)
          partial_total += sl->objects;
      row.objects_partial = partial_total - partial_free;
      row.active_slabs = info.slabs;
      row.align = info.g.align;
      row.flags = ((sx->flags & SIM_SLUB_HWCACHE_ALIGN) ? SIM_SLAB_HWCACHE_ALIGN : 0)
                  | ((sx->flags & SIM_SLUB_TYPESAFE_BY_RCU) ? SIM_SLAB_TYPESAFE_BY_RCU : 0)
                  | ((sx->flags & SIM_SLUB_RECLAIM_ACCOUNT) ? SIM_SLAB_RECLAIM_ACCOUNT : 0)
                  | ((sx->flags & SIM_SLUB_CACHE_DMA) ? SIM_SLAB_CACHE_DMA : 0);
      /* /proc/slabinfo prints s->name: the first cache's name. */
      row.proc_name = g_strdup (sx->sc->name);
      /* Slabs of a fallback order are smaller, but the report uses the
       * preferred order as slabinfo's Space does. */
      row.bytes = info.slabs * ((guint64) SIM_PAGE_SIZE << info.g.order);
      /* slabinfo's Alloc/Free and %Fast are the classic counters: 6.18's
       * tools/mm/slabinfo reads no sheaf counter, so objects served by
       * the sheaves (alloc_cpu_sheaf, free_cpu_sheaf) are not in them;
       * those counters are in the stats list. */
      if (m->era->sheaves_all)
        {
          /* 7.x's own list, in its enum stat_item order. */
          row.n_stats = slub_n_stats_7;
          row.stat_names = slub_stat_names_7 ();
          row.stats = g_new0 (guint64, SIM_SLUB_N_STATS);
          for (guint k = 0; k < slub_n_stats_7; k++)
            row.stats[k] = info.stat[slub_stats_7[k]];
        }
      else
        {
          row.n_stats = m->era->id == SIM_SLUB_6_18 ? SIM_SLUB_N_STATS : SIM_SLUB_N_CLASSIC_STATS;
          row.stat_names = stat_names;
          row.stats = g_memdup2 (info.stat, sizeof info.stat);
        }
      g_array_append_val (out->rows, row);
      sim_slub_cache_info_clear (&info);
    }
  out->large_pages = m->large_pages;
  out->stats_config = m->era->stats ? "CONFIG_SLUB_STATS" : NULL;
  out->stats_param = "slub_stats";
  out->stats_charged = m->era->stats && m->p.stats;
  out->stats_in_text = m->era->sheaves_all;
}

/* The classic paths, and the same compiled for one era each
 * (SLUB_CLASSIC_INSTANCE). */
#define SLUB_CLASSIC_OPS(NAME)                                                \
  { .alloc = slab_alloc_##NAME, .free = slab_free_##NAME, .flush_cpu = flush_cpu_classic, \
    .bulk_alloc = kmem_cache_alloc_bulk_618, .free_chain = do_slab_free_618 }

const SlubEraOps slub_classic_ops = SLUB_CLASSIC_OPS (classic);
const SlubEraOps slub_2_6_34_ops = SLUB_CLASSIC_OPS (2_6_34);
const SlubEraOps slub_618_ops = SLUB_CLASSIC_OPS (618);

static const char *const slub_kernels[] = { "6.18", "2.6.34", "2.6.33", "2.6.23", "7.0", NULL };

static gboolean
ops_kfree_rcu (gpointer m, SimOp *op, SimAddr addr)
{
  sim_op_call (op);
  return sim_slub_kfree_rcu (m, op, addr);
}

SIM_ALLOC_OPS_TABLE_RCU (slub, slub_kernels, ops_kfree_rcu)

