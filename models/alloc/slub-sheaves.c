/* slub-sheaves.c - SLUB's per-CPU sheaves and node barns, as in Linux 6.18.
 *
 * Which kernel.  mm/slub.c of 6.18 (Vlastimil Babka's "SLUB percpu
 * sheaves" series): alloc_from_pcs, free_to_pcs, __pcs_replace_empty_main,
 * __pcs_replace_full_main, the barn_* functions, sheaf_flush_*, and the
 * bulk paths they refill and flush through (__kmem_cache_alloc_bulk,
 * __kmem_cache_free_bulk).  The classic paths below them (___slab_alloc,
 * __slab_free) are slub.c's.
 *
 * The model.  A cache made
 * with kmem_cache_args.sheaf_capacity has, per CPU, a slub_percpu_sheaves
 * {lock, main, spare, rcu_free} in the per-CPU area, and per node a
 * node_barn {lock, sheaves_full, sheaves_empty, nr_full, nr_empty}.  A
 * sheaf is a slab_sheaf {barn_list, cache, size, node, objects[]} that the
 * kernel kzallocs (struct_size of capacity pointers: 288 bytes for 32,
 * so kmalloc-512), and so does the model, through its own kmalloc: the
 * sheaves show up as kmalloc-512 allocations, as they do in the kernel.
 * Allocation pops objects[--size] of main (alloc_from_pcs); an empty main
 * is swapped with a non-empty spare, traded in the barn for a full sheaf
 * (barn_get), or, when the caller may sleep, refilled through
 * __kmem_cache_alloc_bulk, which takes objects one by one from the cpu
 * freelist and ___slab_alloc, the classic paths and counters.  Free pushes
 * objects[size++] (free_to_pcs); a full main is swapped with a non-full
 * spare, traded in the barn for an empty sheaf (barn_put) unless the barn
 * holds MAX_FULL_SHEAVES (-E2BIG: the spare is flushed to the slabs by
 * __kmem_cache_free_bulk and reused), else a new empty sheaf is
 * allocated, and as a last resort main is flushed in batches of
 * PCS_BATCH_MAX.  Only objects of the local node go into sheaves, and an
 * allocation for another node bypasses them.  Every access to the sheaf
 * (size, objects[] entries), to slub_percpu_sheaves (lock byte, main,
 * spare) and to the barn (lock, list heads, counts, list links in the
 * sheaves) goes to the cache model; the barn lock is an engine lock, the
 * per-CPU local_trylock a byte that never fails here (no interrupts).
 * The node_barn itself is placed in its node's static area like
 * kmem_cache_node (the kernel kmalloc_node()s it at cache creation).
 * kfree_rcu's rcu_free sheaf is slub-rcu.c's.  Left out: the prefilled-sheaf API (kmem_cache_prefill_sheaf, used by the
 * maple tree for preallocation; traces show its objects as ordinary
 * allocations), kmem_cache_shrink's barn_shrink, and strict_numa
 * mempolicies.
 *
 */
#include "models/alloc/slub-internal.h"

/* ------------------------------------------------------------------ */
/* 6.18 sheaves                                                        */


/* alloc_empty_sheaf: kzalloc (struct_size (sheaf, objects, capacity)). */
Sheaf *
alloc_empty_sheaf (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp)
{
  /* 7.x: a kmalloc cache's sheaf is kmalloc'ed with
   * SLAB_ALLOC_NO_RECURSE, under which no sheaf is allocated: no
   * recursion into the same cache, no deep stack of kmalloc sizes. */
  if (m->era->sheaves_all && m->no_recurse)
    return NULL;
  if (m->era->sheaves_all && s->is_kmalloc)
    m->no_recurse++;
  gsize size = SH_OBJECTS + 8 * (gsize) s->sheaf_capacity;
  SimAddr a = sim_slub_kmalloc (m, op, size, SIM_NUMA_NO_NODE, gfp | SIM_GFP_ZERO);
  if (m->era->sheaves_all && s->is_kmalloc)
    m->no_recurse--;
  if (a == 0)
    return NULL;
  /* The kernel's trace shows it as a kmalloc from __alloc_empty_sheaf. */
  if (m->env.internal)
    m->env.internal (m->env.internal_data, op->cpu, a, size, "__alloc_empty_sheaf", FALSE);
  Sheaf *sh = g_new0 (Sheaf, 1);
  sh->addr = a;
  sh->objects = g_new0 (SimAddr, s->sheaf_capacity);
  sh->cache = s;
  sim_op_write (op, a + SH_CACHE, 8, SIM_MEM_CPU_SLAB);  /* sheaf->cache = s */
  stat (m, op, s, SIM_SLUB_SHEAF_ALLOC);
  return sh;
}

void
free_empty_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh)
{
  g_assert (sh->size == 0);
  if (m->env.internal)
    m->env.internal (m->env.internal_data, op->cpu, sh->addr, 0, "free_empty_sheaf", TRUE);
  sim_slub_free (m, op, sh->addr);
  stat (m, op, s, SIM_SLUB_SHEAF_FREE);
  g_free (sh->objects);
  g_free (sh);
}

/* do_slab_free of 6.18 for a detached chain: onto the cpu freelist when
 * the slab is this CPU's (free_fastpath counts the objects), else
 * __slab_free. */
void
do_slab_free_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 head,
                  guint16 tail, guint cnt)
{
  CpuSlab *c = &s->cpu[op->cpu];
  rd_kc (op, s, KC_CPU_SLAB);
  rd_cpu (op, c, CC_TID);
  rd_cpu (op, c, CC_SLAB_618);
  if (slab != c->slab)
    {
      slow_free_618 (m, op, s, slab, head, tail, cnt);
      return;
    }
  rd_cpu (op, c, CC_FREELIST);
  slab->next_free[tail] = c->freelist;
  wr_freeptr (op, slab, tail);
  c->freelist = head;
  rmw_cpu (op, c, CC_FREELIST, 16, op->last);           /* cmpxchg (freelist, tid) */
  c->tid++;
  stat_add (m, op, s, SIM_SLUB_FREE_FASTPATH, cnt);
}

/* __kmem_cache_free_bulk: build_detached_freelist takes the last object,
 * gathers the other objects of its slab from the end of @p (giving up
 * after three of other slabs) into one chain, and frees that chain with
 * do_slab_free; repeat until @p is empty. */
static void
kmem_cache_free_bulk_sheaf (SimSlub *m, SimOp *op, SlubCache *s, SimAddr *p, guint size)
{
  while (size > 0)
    {
      sim_op_path (op, &m->path[P_BULK_OBJECT]);
      SimAddr object = p[--size];
      Slab *slab = slab_of_addr (m, op, object);
      g_assert (slab != NULL && slab->s == s);
      guint16 idx = (guint16) ((object - slab->base) / s->g.size);
      guint16 head = idx, tail = idx;
      guint cnt = 1;
      slab->next_free[idx] = NIL;
      wr_freeptr (op, slab, idx);
      guint same = size, lookahead = 3;
      while (size > 0)
        {
          sim_op_path (op, &m->path[P_BULK_OBJECT]);
          object = p[--size];
          if (slab_of_addr (m, op, object) == slab)
            {
              idx = (guint16) ((object - slab->base) / s->g.size);
              slab->next_free[idx] = head;
              wr_freeptr (op, slab, idx);
              head = idx;
              cnt++;
              same--;
              if (size != same)
                {
                  SimAddr t = p[size];
                  p[size] = p[same];
                  p[same] = t;
                }
              continue;
            }
          if (--lookahead == 0)
            break;
        }
      size = same;
      m->era->ops->free_chain (m, op, s, slab, head, tail, cnt);
    }
}

/* __kmem_cache_alloc_bulk of 6.18: objects one at a time from the cpu
 * freelist (alloc_fastpath each), ___slab_alloc when it runs dry.  The
 * addresses go to @p and their stores to the sheaf slots from @slot0.
 * Returns @size, or 0 after giving back what it got on failure. */
guint
kmem_cache_alloc_bulk_618 (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp, SimAddr *p,
                           guint size, SimAddr slot0)
{
  CpuSlab *c = &s->cpu[op->cpu];
  rd_kc (op, s, KC_CPU_SLAB);
  for (guint i = 0; i < size; i++)
    {
      sim_op_path (op, &m->path[P_BULK_OBJECT]);
      rd_cpu (op, c, CC_FREELIST);
      if (c->freelist == NIL)
        {
          c->tid++;
          wr_cpu (op, c, CC_TID);
          guint16 obj;
          Slab *slab = slow_alloc_618 (m, op, s, c, SIM_NUMA_NO_NODE, gfp, &obj);
          if (slab == NULL)
            {
              kmem_cache_free_bulk_sheaf (m, op, s, p, i);
              return 0;
            }
          p[i] = obj_addr (slab, obj);
        }
      else
        {
          Slab *slab = c->slab;
          guint16 obj = c->freelist;
          rd_freeptr (op, slab, obj);
          c->freelist = slab->next_free[obj];
          wr_cpu (op, c, CC_FREELIST);
          p[i] = obj_addr (slab, obj);
          stat (m, op, s, SIM_SLUB_ALLOC_FASTPATH);
        }
      sim_op_write (op, slot0 + 8 * (SimAddr) i, 8, SIM_MEM_CPU_SLAB);
    }
  c->tid++;
  wr_cpu (op, c, CC_TID);
  return size;
}

/* refill_sheaf: fill to capacity; FALSE (-ENOMEM) if memory ran out. */
static gboolean
refill_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh, guint32 gfp)
{
  guint to_fill = s->sheaf_capacity - sh->size;
  if (to_fill == 0)
    return TRUE;
  guint filled = m->era->ops->bulk_alloc (m, op, s, gfp, sh->objects + sh->size, to_fill,
                                          sheaf_slot (sh, sh->size));
  sh->size += filled;
  sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  stat_add (m, op, s, SIM_SLUB_SHEAF_REFILL, filled);
  return filled == to_fill;
}

static Sheaf *
alloc_full_sheaf (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp)
{
  Sheaf *sh = alloc_empty_sheaf (m, op, s, gfp);
  if (sh == NULL)
    return NULL;
  if (!refill_sheaf (m, op, s, sh, gfp))
    {
      free_empty_sheaf (m, op, s, sh);
      return NULL;
    }
  return sh;
}

/* sheaf_flush_unused: every object of a sheaf no CPU uses back to the
 * slabs. */
void
sheaf_flush_unused (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh)
{
  if (sh->size == 0)
    return;
  stat_add (m, op, s, SIM_SLUB_SHEAF_FLUSH, sh->size);
  sim_op_touch_range (op, sheaf_slot (sh, 0), 8 * (guint64) sh->size, SIM_ACC_READ,
                      SIM_MEM_CPU_SLAB);
  kmem_cache_free_bulk_sheaf (m, op, s, sh->objects, sh->size);
  sh->size = 0;
  sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
}

/* sheaf_flush_main: main's objects back to the slabs in batches of
 * PCS_BATCH_MAX copied (under the pcs lock) to an on-stack array. */
static gboolean
sheaf_flush_main (SimSlub *m, SimOp *op, SlubCache *s)
{
  Pcs *pcs = &s->pcs[op->cpu];
  SimAddr batch_objs[PCS_BATCH_MAX];
  gboolean ret = FALSE;
  guint remaining;
  do
    {
      pcs_lock (op, pcs);
      Sheaf *sh = pcs->main;
      sim_op_read (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
      sim_op_read (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
      guint batch = MIN (PCS_BATCH_MAX, sh->size);
      sh->size -= batch;
      sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
      if (batch)
        sim_op_touch_range (op, sheaf_slot (sh, sh->size), 8 * (guint64) batch, SIM_ACC_READ,
                            SIM_MEM_CPU_SLAB);
      memcpy (batch_objs, sh->objects + sh->size, batch * sizeof (SimAddr));
      remaining = sh->size;
      pcs_unlock (op, pcs);
      kmem_cache_free_bulk_sheaf (m, op, s, batch_objs, batch);
      stat_add (m, op, s, SIM_SLUB_SHEAF_FLUSH, batch);
      ret = TRUE;
    }
  while (remaining);
  return ret;
}

/* The barn's lists: list_add at the head, list_first_entry from it; the
 * links live in the sheaves' first 16 bytes. */
static void
barn_list_push (SimOp *op, Barn *b, GQueue *q, guint head_off, Sheaf *sh)
{
  Sheaf *first = g_queue_peek_head (q);
  sim_op_write (op, sh->addr + SH_BARN_LIST, 16, SIM_MEM_CPU_SLAB);
  sim_op_write (op, b->addr + head_off, 8, SIM_MEM_CACHE_META);
  if (first)
    sim_op_write (op, first->addr + SH_BARN_LIST + 8, 8, SIM_MEM_CPU_SLAB);
  else
    sim_op_write (op, b->addr + head_off + 8, 8, SIM_MEM_CACHE_META);
  g_queue_push_head (q, sh);
}

static Sheaf *
barn_list_pop (SimOp *op, Barn *b, GQueue *q, guint head_off)
{
  Sheaf *sh = g_queue_pop_head (q);
  Sheaf *next = g_queue_peek_head (q);
  sim_op_read (op, b->addr + head_off, 8, SIM_MEM_CACHE_META);
  sim_op_read (op, sh->addr + SH_BARN_LIST, 16, SIM_MEM_CPU_SLAB);
  sim_op_write (op, b->addr + head_off, 8, SIM_MEM_CACHE_META);
  if (next)
    sim_op_write (op, next->addr + SH_BARN_LIST + 8, 8, SIM_MEM_CPU_SLAB);
  else
    sim_op_write (op, b->addr + head_off + 8, 8, SIM_MEM_CACHE_META);
  return sh;
}

void
barn_lock (SimSlub *m, SimOp *op, Barn *b)
{
  sim_op_path (op, &m->path[P_BARN_OP]);
  sim_op_lock (op, &b->lock, b->addr + BARN_LOCK);
}

static inline void
barn_unlock (SimOp *op, Barn *b)
{
  sim_op_unlock (op, &b->lock, b->addr + BARN_LOCK);
}

/* get_barn: the barn of this CPU's memory node, through s->node[]. */
Barn *
get_barn (SimSlub *m, SimOp *op, SlubCache *s)
{
  guint nid = node_of_cpu (m, op->cpu);
  if (m->era->sheaves_all)
    {
      rd_kc (op, s, KC7_PER_NODE (m, nid));            /* s->per_node[nid].barn */
      return &s->barn[nid];
    }
  rd_kc (op, s, m->era->kmem_cache_size + 8 * nid);
  sim_op_read (op, s->node[nid].addr + KN_BARN, 8, SIM_MEM_CACHE_META);
  return &s->barn[nid];
}

Sheaf *
barn_get_empty_sheaf (SimSlub *m, SimOp *op, Barn *b)
{
  Sheaf *sh = NULL;
  barn_lock (m, op, b);
  sim_op_read (op, b->addr + BARN_NR_EMPTY, 4, SIM_MEM_CACHE_META);
  if (b->empty.length)
    {
      sh = barn_list_pop (op, b, &b->empty, BARN_EMPTY);
      sim_op_write (op, b->addr + BARN_NR_EMPTY, 4, SIM_MEM_CACHE_META);
    }
  barn_unlock (op, b);
  return sh;
}

/* The undo paths: no limit checked, as in the kernel. */
void
barn_put_sheaf (SimSlub *m, SimOp *op, Barn *b, Sheaf *sh, gboolean full)
{
  barn_lock (m, op, b);
  barn_list_push (op, b, full ? &b->full : &b->empty, full ? BARN_FULL : BARN_EMPTY, sh);
  sim_op_access (op, b->addr + (full ? BARN_NR_FULL : BARN_NR_EMPTY), 4, SIM_ACC_RMW,
                 SIM_MEM_CACHE_META);
  barn_unlock (op, b);
}

/* barn_replace_empty_sheaf: a full sheaf for @empty, or NULL. */
static Sheaf *
barn_replace_empty_sheaf (SimSlub *m, SimOp *op, Barn *b, Sheaf *empty)
{
  Sheaf *full = NULL;
  barn_lock (m, op, b);
  sim_op_read (op, b->addr + BARN_NR_FULL, 4, SIM_MEM_CACHE_META);
  if (b->full.length)
    {
      full = barn_list_pop (op, b, &b->full, BARN_FULL);
      barn_list_push (op, b, &b->empty, BARN_EMPTY, empty);
      sim_op_write (op, b->addr + BARN_NR_FULL, 8, SIM_MEM_CACHE_META);
    }
  barn_unlock (op, b);
  return full;
}

typedef enum { BARN_OK, BARN_E2BIG, BARN_ENOMEM } BarnResult;

/* barn_replace_full_sheaf: an empty sheaf for @full, unless the barn
 * already holds MAX_FULL_SHEAVES (-E2BIG) or has no empty one (-ENOMEM). */
static BarnResult
barn_replace_full_sheaf (SimSlub *m, SimOp *op, Barn *b, Sheaf *full, Sheaf **empty)
{
  BarnResult r = BARN_OK;
  barn_lock (m, op, b);
  sim_op_read (op, b->addr + BARN_NR_FULL, 8, SIM_MEM_CACHE_META);
  if (b->full.length >= m->p.barn_max_full)
    r = BARN_E2BIG;
  else if (b->empty.length == 0)
    r = BARN_ENOMEM;
  else
    {
      *empty = barn_list_pop (op, b, &b->empty, BARN_EMPTY);
      barn_list_push (op, b, &b->full, BARN_FULL, full);
      sim_op_write (op, b->addr + BARN_NR_FULL, 8, SIM_MEM_CACHE_META);
    }
  barn_unlock (op, b);
  return r;
}

static inline void
swap_main_spare (SimSlub *m, SimOp *op, Pcs *pcs)
{
  sim_op_path (op, &m->path[P_SHEAF_SWAP]);
  Sheaf *t = pcs->main;
  pcs->main = pcs->spare;
  pcs->spare = t;
  sim_op_write (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
}

/* __pcs_replace_empty_main.  Called with the pcs locked and main empty;
 * TRUE with it locked and main non-empty, FALSE with it unlocked. */
static gboolean
pcs_replace_empty_main (SimSlub *m, SimOp *op, SlubCache *s, Pcs *pcs, guint32 gfp)
{
  sim_op_read (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
  if (pcs->spare)
    sim_op_read (op, pcs->spare->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  if (pcs->spare && pcs->spare->size > 0)
    {
      swap_main_spare (m, op, pcs);
      return TRUE;
    }
  Barn *barn = get_barn (m, op, s);
  Sheaf *full = barn_replace_empty_sheaf (m, op, barn, pcs->main);
  if (full)
    {
      stat (m, op, s, SIM_SLUB_BARN_GET);
      pcs->main = full;
      sim_op_write (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
      return TRUE;
    }
  stat (m, op, s, SIM_SLUB_BARN_GET_FAIL);

  /* 6.18 refills only when the caller may block; 7.x whenever it may
   * spin (every caller but kmalloc_nolock, which traces do not show). */
  gboolean can_alloc = m->era->sheaves_all || (gfp & SIM_GFP_WAIT) != 0;
  Sheaf *empty = NULL;
  if (can_alloc)
    {
      if (pcs->spare)
        {
          empty = pcs->spare;
          pcs->spare = NULL;
          sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
        }
      else
        empty = barn_get_empty_sheaf (m, op, barn);
    }
  pcs_unlock (op, pcs);
  if (!can_alloc)
    return FALSE;

  if (m->era->sheaves_all)
    {
      /* 7.x: a new empty sheaf if there was none, refilled in bulk; on
       * failure what it got goes back to the slabs. */
      if (empty == NULL)
        empty = alloc_empty_sheaf (m, op, s, gfp);
      if (empty == NULL)
        return FALSE;
      if (!refill_sheaf (m, op, s, empty, gfp))
        {
          sheaf_flush_unused (m, op, s, empty);
          free_empty_sheaf (m, op, s, empty);
          return FALSE;
        }
      full = empty;
    }
  else if (empty)
    {
      if (refill_sheaf (m, op, s, empty, gfp))
        full = empty;
      else
        /* Out of memory (the bulk alloc gave back what it got): the
         * kernel does not bother with the barn. */
        free_empty_sheaf (m, op, s, empty);
    }
  else
    full = alloc_full_sheaf (m, op, s, gfp);
  if (full == NULL)
    return FALSE;

  pcs_lock (op, pcs);
  sim_op_read (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  if (pcs->main->size == 0)
    {
      /* 7.x keeps the empty main as the spare when there is none (the
       * spare was the sheaf just refilled); 6.18 gives it to the barn. */
      if (m->era->sheaves_all && pcs->spare == NULL)
        {
          pcs->spare = pcs->main;
          sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
        }
      else
        barn_put_sheaf (m, op, barn, pcs->main, FALSE);
      pcs->main = full;
      sim_op_write (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
      return TRUE;
    }
  /* Only reachable in the kernel after an interrupt or a migration
   * refilled this CPU's sheaves meanwhile; kept for fidelity. */
  if (pcs->spare == NULL)
    {
      pcs->spare = full;
      sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
      return TRUE;
    }
  if (pcs->spare->size == 0)
    {
      barn_put_sheaf (m, op, barn, pcs->spare, FALSE);
      pcs->spare = full;
      sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
      return TRUE;
    }
  barn_put_sheaf (m, op, barn, full, TRUE);
  stat (m, op, s, SIM_SLUB_BARN_PUT);
  return TRUE;
}

/* alloc_from_pcs.  FALSE: fall through to the classic paths. */
gboolean
alloc_from_pcs (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp, SimAddr *out)
{
  guint local = node_of_cpu (m, op->cpu);
  gboolean node_requested = node != SIM_NUMA_NO_NODE;
  /* The sheaves hold local objects: a request for another node goes
   * straight to the slabs. */
  if (node_requested && (guint) node % m->n_nodes != local)
    {
      if (m->era->sheaves_all)
        stat (m, op, s, SIM_SLUB_ALLOC_NODE_MISMATCH);
      return FALSE;
    }

  Pcs *pcs = &s->pcs[op->cpu];
  /* 7.x: this is slab_alloc_node's / slab_free's fast path, the
   * table's fast_alloc / fast_free. */
  sim_op_path (op, &m->path[m->era->sheaves_all ? P_FAST_ALLOC : P_PCS_OP]);
  rd_kc (op, s, m->era->sheaves_all ? KC7_CPU_SHEAVES : KC_CPU_SHEAVES);
  pcs_lock (op, pcs);
  sim_op_read (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  if (pcs->main->size == 0 && !pcs_replace_empty_main (m, op, s, pcs, gfp))
    return FALSE;

  Sheaf *sh = pcs->main;
  SimAddr obj = sh->objects[sh->size - 1];
  sim_op_read (op, sheaf_slot (sh, sh->size - 1), 8, SIM_MEM_CPU_SLAB);
  if (node_requested)
    {
      /* folio_nid (virt_to_folio (object)): the object may be remote
       * after all (a migration while the lock was dropped). */
      SimAddr head = sim_page_head (m->env.pages, obj);
      sim_op_read (op, sim_page_struct (m->env.pages, head), 8, SIM_MEM_STRUCT_PAGE);
      if (sim_page_node_of (m->env.pages, head) % m->n_nodes != (guint) node % m->n_nodes)
        {
          pcs_unlock (op, pcs);
          if (m->era->sheaves_all)
            stat (m, op, s, SIM_SLUB_ALLOC_NODE_MISMATCH);
          return FALSE;
        }
    }
  sh->size--;
  sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  pcs_unlock (op, pcs);
  stat (m, op, s, m->era->sheaves_all ? SIM_SLUB_ALLOC_FASTPATH : SIM_SLUB_ALLOC_PCS);
  *out = obj;
  return TRUE;
}

/* __pcs_install_empty_sheaf: main is full and @empty is ours. */
static void
pcs_install_empty_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Pcs *pcs, Sheaf *empty)
{
  sim_op_read (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
  if (pcs->spare == NULL)
    {
      pcs->spare = pcs->main;
      pcs->main = empty;
      sim_op_write (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
      return;
    }
  Barn *barn = get_barn (m, op, s);
  if (pcs->main->size < s->sheaf_capacity)
    {
      barn_put_sheaf (m, op, barn, empty, FALSE);
      return;
    }
  if (pcs->spare->size < s->sheaf_capacity)
    {
      swap_main_spare (m, op, pcs);
      barn_put_sheaf (m, op, barn, empty, FALSE);
      return;
    }
  /* barn_replace_full_sheaf found no empty sheaf and one was allocated:
   * the full main goes to the barn after all. */
  barn_put_sheaf (m, op, barn, pcs->main, TRUE);
  stat (m, op, s, SIM_SLUB_BARN_PUT);
  pcs->main = empty;
  sim_op_write (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
}

/* __pcs_replace_full_main.  Called with the pcs locked and main full;
 * TRUE with it locked and room in main, FALSE with it unlocked. */
static gboolean
pcs_replace_full_main (SimSlub *m, SimOp *op, SlubCache *s, Pcs *pcs)
{
  for (;;)
    {
      Barn *barn = get_barn (m, op, s);
      gboolean put_fail = FALSE;
      Sheaf *empty = NULL;
      sim_op_read (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
      if (pcs->spare == NULL)
        {
          empty = barn_get_empty_sheaf (m, op, barn);
          if (empty)
            {
              pcs->spare = pcs->main;
              pcs->main = empty;
              sim_op_write (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
              return TRUE;
            }
        }
      else
        {
          sim_op_read (op, pcs->spare->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
          if (pcs->spare->size < s->sheaf_capacity)
            {
              swap_main_spare (m, op, pcs);
              return TRUE;
            }
          BarnResult r = barn_replace_full_sheaf (m, op, barn, pcs->main, &empty);
          if (r == BARN_OK)
            {
              stat (m, op, s, SIM_SLUB_BARN_PUT);
              pcs->main = empty;
              sim_op_write (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
              return TRUE;
            }
          if (r == BARN_E2BIG)
            {
              /* Too many full sheaves in the barn: the (full) spare goes
               * back to the slabs and becomes the empty sheaf. */
              Sheaf *to_flush = pcs->spare;
              stat (m, op, s, SIM_SLUB_BARN_PUT_FAIL);
              pcs->spare = NULL;
              sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
              pcs_unlock (op, pcs);
              sheaf_flush_unused (m, op, s, to_flush);
              pcs_lock (op, pcs);
              pcs_install_empty_sheaf (m, op, s, pcs, to_flush);
              return TRUE;
            }
          put_fail = TRUE;
        }

      /* alloc_empty: a new empty sheaf with GFP_NOWAIT. */
      pcs_unlock (op, pcs);
      empty = alloc_empty_sheaf (m, op, s, 0);
      if (empty)
        {
          pcs_lock (op, pcs);
          pcs_install_empty_sheaf (m, op, s, pcs, empty);
          return TRUE;
        }
      if (put_fail)
        stat (m, op, s, SIM_SLUB_BARN_PUT_FAIL);
      /* Last resort: flush main to the slabs. */
      if (!sheaf_flush_main (m, op, s))
        return FALSE;
      pcs_lock (op, pcs);
      sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
      if (pcs->main->size < s->sheaf_capacity)
        return TRUE;
    }
}

/* free_to_pcs.  FALSE: the caller frees to the slab. */
gboolean
free_to_pcs (SimSlub *m, SimOp *op, SlubCache *s, SimAddr addr)
{
  Pcs *pcs = &s->pcs[op->cpu];
  sim_op_path (op, &m->path[m->era->sheaves_all ? P_FAST_FREE : P_PCS_OP]);
  rd_kc (op, s, m->era->sheaves_all ? KC7_CPU_SHEAVES : KC_CPU_SHEAVES);
  pcs_lock (op, pcs);
  sim_op_read (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  rd_kc (op, s, m->era->sheaves_all ? KC7_SHEAF_CAPACITY : KC_SHEAF_CAPACITY);
  if (pcs->main->size == s->sheaf_capacity && !pcs_replace_full_main (m, op, s, pcs))
    return FALSE;
  Sheaf *sh = pcs->main;
  sh->objects[sh->size] = addr;
  sim_op_write (op, sheaf_slot (sh, sh->size), 8, SIM_MEM_CPU_SLAB);
  sh->size++;
  sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  pcs_unlock (op, pcs);
  stat (m, op, s, m->era->sheaves_all ? SIM_SLUB_FREE_FASTPATH : SIM_SLUB_FREE_PCS);
  return TRUE;
}

/* pcs_flush_all (flush_cpu_slab's first step): the spare is flushed and
 * freed, the rcu_free sheaf handed to RCU, main flushed; the barn is left
 * alone. */
void
pcs_flush_all (SimSlub *m, SimOp *op, SlubCache *s)
{
  Pcs *pcs = &s->pcs[op->cpu];
  /* has_pcs_used */
  sim_op_read (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->addr + PCS_RCU_FREE, 8, SIM_MEM_CPU_SLAB);
  if (pcs->spare == NULL && pcs->rcu_free == NULL && pcs->main->size == 0)
    return;
  pcs_lock (op, pcs);
  Sheaf *spare = pcs->spare, *rcu_free = pcs->rcu_free;
  pcs->spare = NULL;
  pcs->rcu_free = NULL;
  sim_op_write (op, pcs->addr + PCS_SPARE, 16, SIM_MEM_CPU_SLAB);
  pcs_unlock (op, pcs);
  if (spare)
    {
      sheaf_flush_unused (m, op, s, spare);
      free_empty_sheaf (m, op, s, spare);
    }
  /* A partly filled rcu_free sheaf still waits for its grace period:
   * call_rcu (rcu_free_sheaf_nobarn), which flushes and frees it. */
  if (rcu_free)
    call_rcu_sheaf (m, op, s, rcu_free, FALSE);
  sheaf_flush_main (m, op, s);
}

