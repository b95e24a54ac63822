/* slub-7.c - SLUB 7.x: sheaves for every cache, no cpu slabs.
 *
 * Which kernel.  mm/slub.c and mm/slab.h after Vlastimil Babka's "slab:
 * replace cpu (partial) slabs with sheaves" (v4, January 2026, queued
 * for the 7.0 merge window): the newer of the two snapshots the archive
 * holds (about 320k characters, an annotated copy of the 7.x development
 * tree that already has kmalloc_nolock, per_node[] {barn, node} and the
 * kmalloc token parameters).  The archive does not say which tag it was
 * cut from; the era is named 7.0, the first release with the series, and
 * slub@7.x selects it.  shared/reference/slub-7.md lists the changes.
 *
 * What it follows.  slab_alloc_node: alloc_from_pcs, then ___slab_alloc
 * without a cpu slab: get_from_partial (get_from_partial_node takes one
 * object from the first partial slab with a cmpxchg of (freelist,
 * counters) under list_lock, get_from_any_partial the other nodes behind
 * remote_node_defrag_ratio), else new_slab and alloc_from_new_slab,
 * which puts the rest of the new slab on the partial list.  A request
 * for another node tries that node with __GFP_THISNODE first.
 * slab_free: an object of this CPU's node goes to free_to_pcs, any other
 * (and anything the sheaves refuse) to __slab_free: a lockless cmpxchg of
 * (freelist, counters), list_lock taken only when the slab was full (it
 * goes on the partial list, at the tail) or becomes empty (discarded
 * when the node holds min_partial partial slabs already).  The sheaves
 * and barns are slub-sheaves.c's, shared with 6.18; 7.x refills them with
 * refill_objects (below: whole freelists taken from partial slabs with
 * get_partial_node_bulk and get_freelist_nofreeze, the local node, then
 * the others, then new slabs) and flushes them with __kmem_cache_free_bulk
 * straight to __slab_free.  Every cache gets sheaves (capacity by
 * calculate_sheaf_capacity, slub-create.c) except kmem_cache and
 * kmem_cache_node; the kmalloc caches get theirs after bootstrap, through
 * the model's own kmalloc.  Counters are 7.x's enum stat_item, in its
 * order, in the per-CPU kmem_cache_stats.
 *
 * What it leaves out.  Debug caches and SLUB_TINY (none are modelled),
 * kmalloc_nolock / kfree_nolock and their deferred frees, pfmemalloc
 * slabs, strict_numa, freelist randomisation (objects in address order),
 * the prefilled-sheaf API, barn_shrink and kmem_cache_shrink (kfree_rcu's
 * rcu_free sheaf is modelled, for 6.18 and 7.x alike, in slub-rcu.c).  A
 * cache without sheaves (the boot caches) goes straight to ___slab_alloc:
 * the failing trylock on its bootstrap sheaf is charged as the read of
 * s->cpu_sheaves only.  new_slab threads the whole freelist before alloc_from_new_slab
 * takes objects from it, one free pointer store per taken object more
 * than build_slab_freelist makes.  As everywhere in the model, an
 * operation runs to completion on its CPU: the cmpxchg never fails, a
 * trylock never fails, and the races the kernel re-checks for after
 * dropping a lock do not happen.
 */
#include "models/alloc/slub-internal.h"

/* s->per_node[nid].node, the pointer get_node() loads. */
static inline SlubNode *
get_node_7 (SimSlub *m, SimOp *op, SlubCache *s, guint nid)
{
  rd_kc (op, s, KC7_PER_NODE (m, nid) + 8);
  return &s->node[nid];
}

/* get_from_partial_node: one object of the first partial slab. */
static Slab *
get_from_partial_node_7 (SimSlub *m, SimOp *op, SlubCache *s, SlubNode *n, guint16 *out)
{
  (void) s;                      /* the kernel's argument; only debug caches use it */
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (n->nr_partial == 0)
    return NULL;
  node_lock (op, n);
  sim_op_read (op, n->addr + KN_PARTIAL, 8, SIM_MEM_CACHE_META);
  Slab *slab = n->head;
  if (slab)
    {
      /* old = (freelist, counters); new.freelist = get_freepointer. */
      rd_page (op, slab);
      guint16 obj = slab->freelist;
      rd_freeptr (op, slab, obj);
      slab->freelist = slab->next_free[obj];
      slab->inuse++;
      rmw_page (op, slab);
      *out = obj;
      if (slab->freelist == NIL)
        remove_partial (m, op, n, slab);
    }
  node_unlock (op, n);
  return slab;
}

/* remote_node_defrag_ratio against the call's start on the simulated
 * clock, as get_any_partial of 6.18 (slub-node.c). */
static gboolean
defrag_ratio_allows (SimSlub *m, SimOp *op, SlubCache *s)
{
  if (m->n_nodes < 2)
    return FALSE;
  sim_op_path (op, &m->path[P_ANY_PARTIAL]);
  rd_kc (op, s, m->era->kmem_cache_size - 8);
  guint ratio = m->era->defrag_ratio;
  SimTime tsc = op->t - sim_op_cycles (op);
  return ratio != 0 && tsc % 1024 <= ratio;
}

/* get_from_any_partial: the zonelist of the CPU's node, nearest first. */
static Slab *
get_from_any_partial_7 (SimSlub *m, SimOp *op, SlubCache *s, guint16 *out)
{
  if (!defrag_ratio_allows (m, op, s))
    return NULL;
  guint local = node_of_cpu (m, op->cpu);
  for (guint k = 0; k < m->n_nodes; k++)
    {
      guint nid = (local + k) % m->n_nodes;
      sim_op_path (op, &m->path[P_ANY_PARTIAL_ZONE]);
      SlubNode *n = get_node_7 (m, op, s, nid);
      sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
      if (n->nr_partial > s->g.min_partial)
        {
          Slab *slab = get_from_partial_node_7 (m, op, s, n, out);
          if (slab)
            return slab;
        }
    }
  return NULL;
}

static Slab *
get_from_partial_7 (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp, guint16 *out)
{
  guint nid = node == SIM_NUMA_NO_NODE ? node_of_cpu (m, op->cpu) : (guint) node % m->n_nodes;
  Slab *slab = get_from_partial_node_7 (m, op, s, get_node_7 (m, op, s, nid), out);
  if (slab || (node != SIM_NUMA_NO_NODE && (gfp & SIM_GFP_THISNODE)))
    return slab;
  return get_from_any_partial_7 (m, op, s, out);
}

/* alloc_from_new_slab: the first @count objects of a fresh slab to @p
 * (their sheaf slots from @slot0, unless 0), the rest stays its freelist
 * and the slab goes on the partial list at the head. */
static guint
alloc_from_new_slab_7 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, SimAddr *p,
                       SimAddr slot0, guint count)
{
  gboolean needs_add_partial = TRUE;
  if (count >= slab->objects)
    {
      needs_add_partial = FALSE;
      count = slab->objects;
    }
  for (guint i = 0; i < count; i++)
    {
      p[i] = obj_addr (slab, i);
      if (slot0)
        {
          sim_op_path (op, &m->path[P_BULK_OBJECT]);
          sim_op_write (op, slot0 + 8 * (SimAddr) i, 8, SIM_MEM_CPU_SLAB);
        }
    }
  slab->inuse = (guint16) count;
  slab->freelist = count < slab->objects ? (guint16) count : NIL;
  wr_page (op, slab);
  if (needs_add_partial)
    {
      SlubNode *n = node_of_slab (s, slab);
      node_lock (op, n);
      add_partial (m, op, n, slab, FALSE);
      node_unlock (op, n);
    }
  return count;
}

/* ___slab_alloc of 7.x. */
static Slab *
slow_alloc_7 (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp, guint16 *out)
{
  sim_op_path (op, &m->path[P_SLOW_ALLOC]);
  stat (m, op, s, SIM_SLUB_ALLOC_SLOWPATH);
  gboolean try_thisnode = TRUE;
  for (;;)
    {
      guint32 trynode = gfp;
      gboolean first_try = node != SIM_NUMA_NO_NODE && !(gfp & SIM_GFP_THISNODE) && try_thisnode;
      if (first_try)
        trynode = (gfp & ~SIM_GFP_WAIT) | SIM_GFP_THISNODE;   /* GFP_NOWAIT | __GFP_THISNODE */
      Slab *slab = get_from_partial_7 (m, op, s, node, trynode, out);
      if (slab)
        return slab;
      slab = new_slab (m, op, s, node, trynode);
      if (slab == NULL)
        {
          if (first_try)
            {
              try_thisnode = FALSE;
              continue;
            }
          return NULL;
        }
      stat (m, op, s, SIM_SLUB_ALLOC_SLAB);
      SimAddr a;
      alloc_from_new_slab_7 (m, op, s, slab, &a, 0, 1);
      *out = 0;
      return slab;
    }
}

static SimAddr
slab_alloc_7 (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp)
{
  SimAddr addr;
  if (s->pcs && alloc_from_pcs (m, op, s, node, gfp, &addr))
    {
      if (gfp & SIM_GFP_ZERO)
        sim_op_touch_range (op, addr, s->g.object_size, SIM_ACC_WRITE, SIM_MEM_OBJECT);
      s->live++;
      return addr;
    }
  if (s->pcs == NULL)
    rd_kc (op, s, KC7_CPU_SHEAVES);           /* the bootstrap sheaf's trylock */
  guint16 obj;
  Slab *slab = slow_alloc_7 (m, op, s, node, gfp, &obj);
  if (slab == NULL)
    return 0;
  addr = obj_addr (slab, obj);
  if (gfp & SIM_GFP_ZERO)
    sim_op_touch_range (op, addr, s->g.object_size, SIM_ACC_WRITE, SIM_MEM_OBJECT);
  s->live++;
  return addr;
}

/* __slab_free of 7.x for the chain head..tail of @cnt objects. */
static void
slow_free_7 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 head, guint16 tail,
             guint cnt)
{
  sim_op_path (op, &m->path[P_SLOW_FREE]);
  rd_page (op, slab);
  guint16 prior = slab->freelist;
  gboolean was_full = prior == NIL;
  guint new_inuse = slab->inuse - cnt;
  SlubNode *n = NULL;
  gboolean on_node_partial = FALSE;
  if (new_inuse == 0 || was_full)
    {
      /* Speculatively take list_lock before the cmpxchg. */
      n = node_of_slab (s, slab);
      node_lock (op, n);
      on_node_partial = slab->where == WHERE_NODE_PARTIAL;
    }
  slab->next_free[tail] = prior;
  wr_freeptr (op, slab, tail);
  slab->freelist = head;
  slab->inuse = (guint16) new_inuse;
  rmw_page (op, slab);                         /* slab_update_freelist */
  if (n == NULL)
    return;                                    /* stays on the partial list */
  if (!was_full && !on_node_partial)
    {
      node_unlock (op, n);
      return;
    }
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (new_inuse == 0 && n->nr_partial >= s->g.min_partial)
    {
      if (!was_full)
        {
          remove_partial (m, op, n, slab);
          stat (m, op, s, SIM_SLUB_FREE_REMOVE_PARTIAL);
        }
      node_unlock (op, n);
      stat (m, op, s, SIM_SLUB_FREE_SLAB);
      discard_slab (m, op, slab);
      return;
    }
  if (was_full)
    {
      add_partial (m, op, n, slab, TRUE);
      stat (m, op, s, SIM_SLUB_FREE_ADD_PARTIAL);
    }
  node_unlock (op, n);
}

static void
slab_free_7 (SimSlub *m, SimOp *op, Slab *slab, SimAddr addr)
{
  SlubCache *s = slab->s;
  /* can_free_to_pcs: only objects of this CPU's node. */
  if (s->pcs && slab->node == node_of_cpu (m, op->cpu) && free_to_pcs (m, op, s, addr))
    {
      s->live--;
      return;
    }
  s->live--;
  guint16 obj = (guint16) ((addr - slab->base) / s->g.size);
  slow_free_7 (m, op, s, slab, obj, obj, 1);
  stat (m, op, s, SIM_SLUB_FREE_SLOWPATH);
}

/* __refill_objects_node: whole freelists of partial slabs of @n, at
 * least @min objects and no more than @max (get_partial_node_bulk picks
 * the slabs under list_lock; their freelists are then taken without it,
 * the surplus of the last one given back, and the slabs not emptied go
 * back to the tail of the list). */
static guint
refill_objects_node_7 (SimSlub *m, SimOp *op, SlubCache *s, SimAddr *p, SimAddr slot0,
                       guint min, guint max, SlubNode *n)
{
  (void) s;
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (n->nr_partial == 0)
    return 0;
  GPtrArray *taken = g_ptr_array_new ();
  guint total_free = 0;
  node_lock (op, n);
  sim_op_read (op, n->addr + KN_PARTIAL, 8, SIM_MEM_CACHE_META);
  for (Slab *slab = n->head, *next; slab; slab = next)
    {
      next = slab->next;
      rd_page (op, slab);                      /* READ_ONCE (slab->counters) */
      guint slab_free = slab->objects - slab->inuse;
      if (total_free >= min && total_free + slab_free > max)
        break;
      remove_partial (m, op, n, slab);         /* clear_node_partial_state + list move */
      g_ptr_array_add (taken, slab);
      total_free += slab_free;
      if (total_free >= max)
        break;
    }
  node_unlock (op, n);

  guint refilled = 0, i = 0;
  GPtrArray *back = g_ptr_array_new ();
  for (; i < taken->len; i++)
    {
      Slab *slab = g_ptr_array_index (taken, i);
      /* get_freelist_nofreeze: (freelist, counters) := (NULL, full). */
      rd_page (op, slab);
      guint count = slab->objects - slab->inuse;
      guint16 obj = slab->freelist;
      slab->freelist = NIL;
      slab->inuse = slab->objects;
      rmw_page (op, slab);
      while (count && refilled < max)
        {
          sim_op_path (op, &m->path[P_BULK_OBJECT]);
          p[refilled] = obj_addr (slab, obj);
          rd_freeptr (op, slab, obj);
          sim_op_write (op, slot0 + 8 * (SimAddr) refilled, 8, SIM_MEM_CPU_SLAB);
          obj = slab->next_free[obj];
          refilled++;
          count--;
        }
      if (count)
        {
          /* __slab_try_return_freelist: the slab is still full here. */
          rd_page (op, slab);
          slab->freelist = obj;
          slab->inuse = (guint16) (slab->inuse - count);
          rmw_page (op, slab);
          g_ptr_array_add (back, slab);
          i++;
          break;
        }
      if (refilled >= max)
        {
          i++;
          break;
        }
    }
  for (; i < taken->len; i++)
    g_ptr_array_add (back, g_ptr_array_index (taken, i));
  if (back->len)
    {
      node_lock (op, n);
      for (guint j = 0; j < back->len; j++)
        add_partial (m, op, n, g_ptr_array_index (back, j), TRUE);
      node_unlock (op, n);
    }
  g_ptr_array_unref (back);
  g_ptr_array_unref (taken);
  return refilled;
}

/* refill_objects: the local node, the others, then new slabs. */
static guint
refill_objects_7 (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp, SimAddr *p, guint size,
                  SimAddr slot0)
{
  guint local = node_of_cpu (m, op->cpu);
  guint min = size, max = size;
  guint refilled = refill_objects_node_7 (m, op, s, p, slot0, min, max,
                                          get_node_7 (m, op, s, local));
  if (refilled >= min)
    return refilled;
  if (defrag_ratio_allows (m, op, s))
    for (guint k = 0; k < m->n_nodes && refilled < min; k++)
      {
        guint nid = (local + k) % m->n_nodes;
        sim_op_path (op, &m->path[P_ANY_PARTIAL_ZONE]);
        SlubNode *n = get_node_7 (m, op, s, nid);
        sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
        if (n->nr_partial <= s->g.min_partial)
          continue;
        refilled += refill_objects_node_7 (m, op, s, p + refilled, slot0 + 8 * (SimAddr) refilled,
                                           min - refilled, max - refilled, n);
      }
  while (refilled < min)
    {
      Slab *slab = new_slab (m, op, s, (gint) local, gfp);
      if (slab == NULL)
        break;
      stat (m, op, s, SIM_SLUB_ALLOC_SLAB);
      refilled += alloc_from_new_slab_7 (m, op, s, slab, p + refilled,
                                         slot0 + 8 * (SimAddr) refilled, max - refilled);
    }
  return refilled;
}

static void
flush_cpu_7 (SimSlub *m, SimOp *op, SlubCache *s)
{
  if (s->pcs)
    pcs_flush_all (m, op, s);
}

const SlubEraOps slub_7_ops = {
  .alloc = slab_alloc_7,
  .free = slab_free_7,
  .flush_cpu = flush_cpu_7,
  .bulk_alloc = refill_objects_7,
  .free_chain = slow_free_7,
};

/* calculate_sheaf_capacity: by s->size, grown to fill the kmalloc
 * bucket of the slab_sheaf, at least what kmem_cache_args asked; the
 * boot caches get none.  The sim_ knobs replace the rule. */
guint
slub_sheaf_capacity_7 (SimSlub *m, const SlubCache *s, guint args_capacity)
{
  if (strcmp (s->sc->name, "kmem_cache") == 0 || strcmp (s->sc->name, "kmem_cache_node") == 0)
    return 0;
  gpointer v;
  if (m->p.sheaf_capacity_of
      && g_hash_table_lookup_extended (m->p.sheaf_capacity_of, s->sc->name, NULL, &v))
    return GPOINTER_TO_UINT (v);
  if (m->p.sheaf_capacity >= 0)
    return (guint) m->p.sheaf_capacity;
  guint size = s->g.size;
  guint capacity = size >= SIM_PAGE_SIZE ? 4 : size >= 1024 ? 12 : size >= 256 ? 26 : 60;
  gsize bytes = SH_OBJECTS + 8 * (gsize) capacity;
  SimCacheId id = sim_slub_kmalloc_cache (m, bytes, 0);       /* kmalloc_size_roundup */
  if (id != SIM_CACHE_NONE)
    {
      const SlubCache *k = g_ptr_array_index (m->caches, id);
      bytes = k->g.object_size;
    }
  capacity = (guint) ((bytes - SH_OBJECTS) / 8);
  return MAX (capacity, args_capacity);
}
