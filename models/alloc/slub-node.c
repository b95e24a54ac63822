/* slub-node.c - the slab side of SLUB: slabs, node partial lists,
 * deactivation, 6.18's per-CPU partial slabs, get_partial.
 *
 * Which kernel.  mm/slub.c of each era (2.6.23, 2.6.33, 2.6.34, 6.18):
 * new_slab/allocate_slab and discard_slab/__free_slab beside the page
 * allocator model; add_partial/remove_partial with the kernel's head or
 * tail insertion; deactivate_slab (unfreeze_slab in the 2.6 eras, the
 * cmpxchg of (freelist, counters) in 6.18); put_cpu_partial and
 * __put_partials of 6.18; get_partial_node, get_any_partial (the
 * zonelist walk gated by remote_node_defrag_ratio) and get_partial.
 * The node list_lock is an engine lock, taken where the kernel takes it.
 *
 * What it leaves out.  The zonelist walk ignores memory policies and
 * cpusets; slabs are never pfmemalloc; the free objects of a new slab
 * are threaded in ascending address order (no freelist randomisation).
 * slub.c's essay says what the model as a whole leaves out.
 */
#include "models/alloc/slub-internal.h"

/* ------------------------------------------------------------------ */
/* Partial lists                                                       */

void
add_partial (SimSlub *m, SimOp *op, SlubNode *n, Slab *slab, gboolean tail)
{
  sim_op_path (op, &m->path[P_PARTIAL_OP]);
  /* list_add touches the list head, the neighbour's list links and the
   * slab's own struct page; nr_partial++. */
  sim_op_write (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  sim_op_write (op, n->addr + KN_PARTIAL, 16, SIM_MEM_CACHE_META);
  Slab *nb = tail ? n->tail : n->head;
  if (nb)
    sim_op_write (op, nb->page + 24, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_write (op, slab->page + 24, 16, SIM_MEM_STRUCT_PAGE);

  slab->prev = slab->next = NULL;
  if (tail)
    {
      slab->prev = n->tail;
      if (n->tail)
        n->tail->next = slab;
      else
        n->head = slab;
      n->tail = slab;
    }
  else
    {
      slab->next = n->head;
      if (n->head)
        n->head->prev = slab;
      else
        n->tail = slab;
      n->head = slab;
    }
  n->nr_partial++;
  slab->where = WHERE_NODE_PARTIAL;
}

void
remove_partial (SimSlub *m, SimOp *op, SlubNode *n, Slab *slab)
{
  g_assert (slab->where == WHERE_NODE_PARTIAL);
  sim_op_path (op, &m->path[P_PARTIAL_OP]);
  sim_op_write (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (slab->prev)
    sim_op_write (op, slab->prev->page + 24, 8, SIM_MEM_STRUCT_PAGE);
  else
    sim_op_write (op, n->addr + KN_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (slab->next)
    sim_op_write (op, slab->next->page + 32, 8, SIM_MEM_STRUCT_PAGE);
  else
    sim_op_write (op, n->addr + KN_PARTIAL + 8, 8, SIM_MEM_CACHE_META);
  sim_op_read (op, slab->page + 24, 16, SIM_MEM_STRUCT_PAGE);

  if (slab->prev)
    slab->prev->next = slab->next;
  else
    n->head = slab->next;
  if (slab->next)
    slab->next->prev = slab->prev;
  else
    n->tail = slab->prev;
  slab->prev = slab->next = NULL;
  n->nr_partial--;
  slab->where = WHERE_NONE;
}

/* ------------------------------------------------------------------ */
/* Slab creation and destruction                                       */

Slab *
new_slab (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp)
{
  sim_op_path (op, &m->path[P_NEW_SLAB]);
  /* allocate_slab: first the preferred order with __GFP_NORETRY, then
   * the minimum order (s->min) — ORDER_FALLBACK. */
  guint order = s->g.order, objects = s->g.objects;
  SimAddr base = sim_page_alloc (m->env.pages, op, order, node,
                                 gfp & ~SIM_GFP_ZERO, order > 0 || m->era->tid);
  if (base == 0 && s->g.min_order != s->g.order)
    {
      order = s->g.min_order;
      objects = s->g.min_objects;
      base = sim_page_alloc (m->env.pages, op, order, node, gfp & ~SIM_GFP_ZERO,
                             order > 0 || m->era->tid);
      if (base != 0)
        stat (m, op, s, SIM_SLUB_ORDER_FALLBACK);
    }
  if (base == 0)
    return NULL;

  Slab *slab = g_malloc0 (sizeof (Slab) + objects * sizeof (guint16));
  slab->base = base;
  slab->page = sim_page_struct (m->env.pages, base);
  slab->s = s;
  slab->objects = (guint16) objects;
  slab->order = (guint8) order;
  slab->node = (guint16) (sim_page_node_of (m->env.pages, base) % m->n_nodes);
  sim_lock_init (&slab->lock, "slab_lock");
  sim_idmap_set (m->slab_of, base, (gsize) slab);

  /* Set up struct page (PG_slab, slab, offset/objects, freelist) and
   * thread the freelist in ascending address order: one store of the
   * free pointer into every object. */
  wr_page (op, slab);
  for (guint i = 0; i < objects; i++)
    {
      slab->next_free[i] = (i + 1 < objects) ? (guint16) (i + 1) : NIL;
      sim_op_path (op, &m->path[P_INIT_OBJECT]);
      wr_freeptr (op, slab, i);
    }
  slab->freelist = 0;
  slab->inuse = 0;

  SlubNode *n = node_of_slab (s, slab);
  /* inc_slabs_node: atomic counters in kmem_cache_node */
  sim_op_atomic (op, n->addr + KN_NR_SLABS, 8, SIM_MEM_CACHE_META, SIM_X_LOCK_CMPXCHG);
  n->nr_slabs++;
  n->total_objects += objects;
  return slab;
}

void
discard_slab (SimSlub *m, SimOp *op, Slab *slab)
{
  SlubCache *s = slab->s;
  SlubNode *n = node_of_slab (s, slab);
  sim_op_path (op, &m->path[P_DISCARD_SLAB]);
  sim_op_atomic (op, n->addr + KN_NR_SLABS, 8, SIM_MEM_CACHE_META, SIM_X_LOCK_CMPXCHG);
  n->nr_slabs--;
  n->total_objects -= slab->objects;
  wr_page (op, slab);                /* __ClearPageSlab, reset mapcount */
  if (slab->obj_exts)
    {
      /* unaccount_slab -> free_slab_obj_exts: kfree of the vector */
      SimAddr v = slab->obj_exts;
      slab->obj_exts = 0;
      if (m->env.internal)
        m->env.internal (m->env.internal_data, op->cpu, v, 0, "__free_slab", TRUE);
      sim_slub_free (m, op, v);
    }
  sim_idmap_remove (m->slab_of, slab->base, NULL);
  sim_page_free (m->env.pages, op, slab->base, slab->order);
  g_free (slab);
}

/* ------------------------------------------------------------------ */
/* Deactivation and cpu partial lists                                  */

static void
unfreeze_2_6 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, gboolean tail)
{
  SlubNode *n = node_of_slab (s, slab);
  guint min_partial = m->era->min_partial_fixed ? m->era->min_partial_fixed : s->g.min_partial;

  slab->frozen = 0;
  slab->where = WHERE_NONE;
  wr_page (op, slab);                          /* ClearSlabFrozen */
  /* 2.6.23's unfreeze_slab has no tail argument: a slab with free
   * objects goes to the head (add_partial is list_add); only empty ones
   * go to the tail (add_partial_tail). */
  if (m->era->id == SIM_SLUB_2_6_23)
    tail = FALSE;
  if (slab->inuse)
    {
      if (slab->freelist != NIL)
        {
          node_lock (op, n);
          add_partial (m, op, n, slab, tail);
          node_unlock (op, n);
          stat (m, op, s, tail ? SIM_SLUB_DEACTIVATE_TO_TAIL : SIM_SLUB_DEACTIVATE_TO_HEAD);
        }
      else
        stat (m, op, s, SIM_SLUB_DEACTIVATE_FULL);
      slab_unlock (m, op, slab);
    }
  else
    {
      stat (m, op, s, SIM_SLUB_DEACTIVATE_EMPTY);
      sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
      if (n->nr_partial < min_partial)
        {
          /* Keep a few empty slabs, at the tail so they are used last. */
          node_lock (op, n);
          add_partial (m, op, n, slab, TRUE);
          node_unlock (op, n);
          slab_unlock (m, op, slab);
        }
      else
        {
          slab_unlock (m, op, slab);
          stat (m, op, s, SIM_SLUB_FREE_SLAB);
          discard_slab (m, op, slab);
        }
    }
}

/* deactivate_slab of 2.6.23/33/34: give the cpu freelist back to the
 * slab one object at a time, then unfreeze. */
void
deactivate_2_6 (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c)
{
  Slab *slab = c->slab;
  gboolean tail = TRUE;
  sim_op_path (op, &m->path[P_DEACTIVATE]);
  rd_page (op, slab);
  if (slab->freelist != NIL)
    stat (m, op, s, SIM_SLUB_DEACTIVATE_REMOTE_FREES);
  while (c->freelist != NIL)
    {
      guint16 obj = c->freelist;
      sim_op_path (op, &m->path[P_MOVE_OBJECT]);
      rd_freeptr (op, slab, obj);
      c->freelist = slab->next_free[obj];
      slab->next_free[obj] = slab->freelist;
      wr_freeptr (op, slab, obj);
      slab->freelist = obj;
      slab->inuse--;
      tail = FALSE;
    }
  wr_page (op, slab);
  if (m->era->page_lockless)
    wr_page (op, slab);                        /* page->lockless_freelist = NULL */
  else
    wr_cpu (op, c, CC_FREELIST);
  c->slab = NULL;
  if (m->era->cpu_ptr_array && m->era->page_lockless)
    sim_op_write (op, s->addr + m->era->kmem_cache_size + 8 * m->n_nodes + 8 * op->cpu, 8,
                  SIM_MEM_CACHE_META);         /* s->cpu_slab[cpu] = NULL */
  else
    wr_cpu (op, c, CC_PAGE);
  unfreeze_2_6 (m, op, s, slab, tail);
}

/* deactivate_slab of 6.18: splice the cpu freelist onto the slab's with
 * one cmpxchg, unfreezing it, then file the slab. */
void
deactivate_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 freelist)
{
  SlubNode *n = node_of_slab (s, slab);
  gboolean tail = FALSE;
  sim_op_path (op, &m->path[P_DEACTIVATE]);
  rd_page (op, slab);
  if (slab->freelist != NIL)
    {
      stat (m, op, s, SIM_SLUB_DEACTIVATE_REMOTE_FREES);
      tail = TRUE;
    }
  /* Stage one: walk the cpu freelist to count it and find its tail. */
  guint free_delta = 0;
  guint16 last = NIL;
  for (guint16 it = freelist; it != NIL; it = slab->next_free[it])
    {
      sim_op_path (op, &m->path[P_MOVE_OBJECT]);
      rd_freeptr (op, slab, it);
      last = it;
      free_delta++;
    }
  /* Stage two: splice and unfreeze. */
  if (last != NIL)
    {
      slab->next_free[last] = slab->freelist;
      wr_freeptr (op, slab, last);
      slab->freelist = freelist;
      slab->inuse -= free_delta;
    }
  rmw_page (op, slab);
  slab->frozen = 0;
  slab->where = WHERE_NONE;

  /* Stage three: file it. */
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (slab->inuse == 0 && n->nr_partial >= s->g.min_partial)
    {
      stat (m, op, s, SIM_SLUB_DEACTIVATE_EMPTY);
      discard_slab (m, op, slab);
      stat (m, op, s, SIM_SLUB_FREE_SLAB);
    }
  else if (slab->freelist != NIL)
    {
      node_lock (op, n);
      add_partial (m, op, n, slab, tail);
      node_unlock (op, n);
      stat (m, op, s, tail ? SIM_SLUB_DEACTIVATE_TO_TAIL : SIM_SLUB_DEACTIVATE_TO_HEAD);
    }
  else
    stat (m, op, s, SIM_SLUB_DEACTIVATE_FULL);
}

/* __put_partials (6.18): move a cpu partial chain to the node lists. */
void
put_partials_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *chain)
{
  SlubNode *n = NULL;
  Slab *discard = NULL;
  while (chain)
    {
      Slab *slab = chain;
      chain = slab->next;
      SlubNode *sn = node_of_slab (s, slab);
      if (sn != n)
        {
          if (n)
            node_unlock (op, n);
          n = sn;
          node_lock (op, n);
        }
      sim_op_path (op, &m->path[P_CPU_PARTIAL_OP]);
      rd_page (op, slab);
      slab->next = NULL;
      slab->where = WHERE_NONE;
      if (slab->inuse == 0 && n->nr_partial >= s->g.min_partial)
        {
          slab->next = discard;
          discard = slab;
        }
      else
        {
          add_partial (m, op, n, slab, TRUE);
          stat (m, op, s, SIM_SLUB_FREE_ADD_PARTIAL);
        }
    }
  if (n)
    node_unlock (op, n);
  while (discard)
    {
      Slab *slab = discard;
      discard = slab->next;
      stat (m, op, s, SIM_SLUB_DEACTIVATE_EMPTY);
      discard_slab (m, op, slab);
      stat (m, op, s, SIM_SLUB_FREE_SLAB);
    }
}

/* put_cpu_partial (6.18): push @slab on this CPU's partial chain; with
 * @drain, a chain already at cpu_partial_slabs goes to the node first. */
void
put_cpu_partial_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, gboolean drain)
{
  CpuSlab *c = &s->cpu[op->cpu];
  Slab *old = c->partial, *to_put = NULL;
  guint slabs = 0;
  sim_op_path (op, &m->path[P_CPU_PARTIAL_OP]);
  rd_cpu (op, c, CC_PARTIAL);
  if (old)
    {
      rd_page (op, old);                       /* oldslab->slabs */
      if (drain && old->chain_len >= s->g.cpu_partial_slabs)
        {
          to_put = old;
          old = NULL;
        }
      else
        slabs = old->chain_len;
    }
  slabs++;
  slab->chain_len = (guint16) slabs;
  slab->next = old;
  slab->prev = NULL;
  slab->where = WHERE_CPU_PARTIAL;
  slab->cpu = (guint16) op->cpu;
  wr_page (op, slab);
  c->partial = slab;
  wr_cpu (op, c, CC_PARTIAL);
  if (to_put)
    {
      put_partials_618 (m, op, s, to_put);
      stat (m, op, s, SIM_SLUB_CPU_PARTIAL_DRAIN);
    }
}

/* ------------------------------------------------------------------ */
/* get_partial                                                         */

static Slab *
get_partial_node (SimSlub *m, SimOp *op, SlubCache *s, SlubNode *n)
{
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (n->nr_partial == 0)
    return NULL;
  node_lock (op, n);
  Slab *first = NULL;
  guint moved = 0;
  sim_op_read (op, n->addr + KN_PARTIAL, 8, SIM_MEM_CACHE_META);
  for (Slab *slab = n->head, *next; slab; slab = next)
    {
      next = slab->next;
      rd_page (op, slab);
      remove_partial (m, op, n, slab);
      if (!m->era->tid)
        {
          /* 2.6: lock_and_freeze_slab takes the first that trylocks;
           * nothing else holds a slab lock here, so the first. */
          slab_lock (m, op, slab);
          slab->frozen = 1;
          wr_page (op, slab);
          first = slab;
          break;
        }
      if (first == NULL)
        {
          first = slab;
          stat (m, op, s, SIM_SLUB_ALLOC_FROM_PARTIAL);
          if (s->g.cpu_partial_slabs == 0)
            break;
        }
      else
        {
          put_cpu_partial_618 (m, op, s, slab, FALSE);
          stat (m, op, s, SIM_SLUB_CPU_PARTIAL_NODE);
          if (++moved > s->g.cpu_partial_slabs / 2)
            break;
        }
    }
  node_unlock (op, n);
  return first;
}

/* get_any_partial (CONFIG_NUMA): take a partial slab from another node
 * rather than a new page, when the other node has more than min_partial
 * of them.  remote_node_defrag_ratio (2.6.23: defrag_ratio) gates it:
 * attempted unless get_cycles() % 1024 > ratio, i.e. about 98 % of the
 * time with 6.18's and 2.6.34's 1000, 10 % with 2.6.23's 100.  get_cycles()
 * is the TSC; here it is the simulated clock, in cycles, at which the
 * allocation call began (the phase of the read within 1024 cycles is as
 * arbitrary in the kernel; the call's start keeps it deterministic and
 * independent of how the path before it is costed).  The zonelist is that
 * of the CPU's node (slab_node / mempolicy_slab_node with no mempolicy):
 * nearest first, the CPU's own node, then the others in the order
 * build_zonelists gives equal distances (the nodes after it, then those
 * before).  One Normal zone per node is walked. */
static Slab *
get_any_partial (SimSlub *m, SimOp *op, SlubCache *s)
{
  if (m->n_nodes < 2)
    return NULL;                     /* !CONFIG_NUMA, or one node */
  sim_op_path (op, &m->path[P_ANY_PARTIAL]);
  rd_kc (op, s, m->era->kmem_cache_size - 8);  /* s->remote_node_defrag_ratio */
  guint ratio = m->era->defrag_ratio;
  SimTime tsc = op->t - sim_op_cycles (op);      /* the call's start */
  if (ratio == 0 || tsc % 1024 > ratio)
    return NULL;
  guint min_partial = m->era->min_partial_fixed ? m->era->min_partial_fixed : s->g.min_partial;
  guint local = node_of_cpu (m, op->cpu);
  for (guint k = 0; k < m->n_nodes; k++)
    {
      guint nid = (local + k) % m->n_nodes;
      SlubNode *n = &s->node[nid];
      sim_op_path (op, &m->path[P_ANY_PARTIAL_ZONE]);
      rd_kc (op, s, m->era->kmem_cache_size + 8 * nid);  /* get_node (s, nid) */
      sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
      if (n->nr_partial > min_partial)
        {
          Slab *slab = get_partial_node (m, op, s, n);
          if (slab)
            return slab;
        }
    }
  return NULL;
}

/* get_partial: the requested node (the CPU's for NUMA_NO_NODE), then,
 * unless __GFP_THISNODE (6.18: only when a node was asked for), any
 * node. */
Slab *
get_partial (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp)
{
  guint nid = node == SIM_NUMA_NO_NODE ? node_of_cpu (m, op->cpu) : (guint) node % m->n_nodes;
  rd_kc (op, s, m->era->kmem_cache_size + 8 * nid);      /* s->node[nid] */
  Slab *slab = get_partial_node (m, op, s, &s->node[nid]);
  gboolean thisnode = (gfp & SIM_GFP_THISNODE)
                      && (!m->era->tid || node != SIM_NUMA_NO_NODE);
  if (slab || thisnode)
    return slab;
  return get_any_partial (m, op, s);
}

