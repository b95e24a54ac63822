/* slab-check.c - what the SLAB model shows of itself: cache, array and
 * node info for reports and tests, and the invariant checker behind
 * --check.
 *
 * Which kernel.  The numbers are those of /proc/slabinfo's s_show of
 * mm/slab.c (active objects as the sum of inuse over the three lists,
 * shared_avail, the tunables) and the STATS counters; the checks are the
 * invariants mm/slab.c keeps (inuse against the bufctl chain, each slab
 * on the list its inuse says, free_objects against the slabs), plus the
 * model's bookkeeping (every object in exactly one place: an array, a
 * slab's free chain, or handed out).
 *
 * What it leaves out.  It reads the model's state directly and costs no
 * simulated memory traffic: the kernel has no such walk outside
 * CONFIG_DEBUG_SLAB's check_slabp, which the model does not model.
 */
#include "models/alloc/slab-internal.h"

/* ------------------------------------------------------------------ */
/* Introspection                                                       */

guint
sim_slab_n_caches (const SimSlab *m)
{
  return m->caches->len;
}

SimCacheId
sim_slab_cache_by_name (const SimSlab *m, const char *name)
{
  SlabCache *c = g_hash_table_lookup (m->by_name, name);
  return c ? c->id : SIM_CACHE_NONE;
}

static void
active_objs (const SlabCache *c, guint n_nodes, guint64 *slabs, guint64 lists[4],
             guint64 *active)
{
  *slabs = *active = 0;
  memset (lists, 0, 4 * sizeof (guint64));
  for (guint nd = 0; nd < n_nodes; nd++)
    for (guint l = LIST_PARTIAL; l <= LIST_FREE; l++)
      {
        lists[l] += c->node[nd].lists[l].n;
        *slabs += c->node[nd].lists[l].n;
        for (const Slab *s = c->node[nd].lists[l].head; s; s = s->next)
          *active += s->inuse;
      }
}

void
sim_slab_cache_info (const SimSlab *m, SimCacheId id, SimSlabCacheInfo *out)
{
  g_return_if_fail (id < m->caches->len);
  const SlabCache *c = g_ptr_array_index (m->caches, id);
  memset (out, 0, sizeof *out);
  out->name = c->name;
  out->object_size = c->object_size;
  out->buffer_size = c->buffer_size;
  out->align = c->align;
  out->num = c->num;
  out->gfporder = c->gfporder;
  out->colour = c->colour;
  out->colour_off = c->colour_off;
  out->slab_size = c->slab_size;
  out->off_slab = c->off_slab;
  out->slabp_cache = c->slabp_cache ? c->slabp_cache->name : NULL;
  out->limit = c->limit;
  out->batchcount = c->batchcount;
  out->shared = c->shared;
  out->shared_limit = c->node[0].shared ? c->node[0].shared->limit : 0;
  /* s_show's shared_avail: the objects waiting in every node's shared array. */
  for (guint nd = 0; nd < m->n_nodes; nd++)
    if (c->node[nd].shared)
      out->shared_avail += c->node[nd].shared->avail;
  for (guint nd = 0; nd < m->n_nodes && out->alien_limit == 0; nd++)
    if (c->node[nd].alien)
      for (guint r = 0; r < m->n_nodes; r++)
        if (c->node[nd].alien[r])
          out->alien_limit = c->node[nd].alien[r]->limit;
  guint64 lists[4];
  active_objs (c, m->n_nodes, &out->slabs, lists, &out->active_objs);
  out->partial_slabs = lists[LIST_PARTIAL];
  out->full_slabs = lists[LIST_FULL];
  out->free_slabs = lists[LIST_FREE];
  out->live = c->live;
  memcpy (out->stat, c->stat, sizeof c->stat);
}

static void
array_info (const ArrayCache *ac, SimSlabArrayInfo *out)
{
  out->avail = ac->avail;
  out->limit = ac->limit;
  out->batchcount = ac->batchcount;
  out->touched = ac->touched;
}

gboolean
sim_slab_cpu_array (const SimSlab *m, SimCacheId id, guint cpu, SimSlabArrayInfo *out)
{
  if (id >= m->caches->len || cpu >= m->env.n_cpus)
    return FALSE;
  array_info (((SlabCache *) g_ptr_array_index (m->caches, id))->array[cpu], out);
  return TRUE;
}

gboolean
sim_slab_shared_array (const SimSlab *m, SimCacheId id, guint node, SimSlabArrayInfo *out)
{
  if (id >= m->caches->len || node >= m->n_nodes)
    return FALSE;
  const ArrayCache *ac = ((SlabCache *) g_ptr_array_index (m->caches, id))->node[node].shared;
  if (ac == NULL)
    return FALSE;
  array_info (ac, out);
  return TRUE;
}

gboolean
sim_slab_alien_array (const SimSlab *m, SimCacheId id, guint node, guint remote,
                      SimSlabArrayInfo *out)
{
  if (id >= m->caches->len || node >= m->n_nodes || remote >= m->n_nodes)
    return FALSE;
  const Node *n = &((SlabCache *) g_ptr_array_index (m->caches, id))->node[node];
  if (n->alien == NULL || n->alien[remote] == NULL)
    return FALSE;
  array_info (n->alien[remote], out);
  return TRUE;
}

gboolean
sim_slab_node_info (const SimSlab *m, SimCacheId id, guint node, SimSlabNodeInfo *out)
{
  if (id >= m->caches->len || node >= m->n_nodes)
    return FALSE;
  const Node *n = &((SlabCache *) g_ptr_array_index (m->caches, id))->node[node];
  out->partial = n->lists[LIST_PARTIAL].n;
  out->full = n->lists[LIST_FULL].n;
  out->free = n->lists[LIST_FREE].n;
  out->free_objects = n->free_objects;
  out->free_limit = n->free_limit;
  out->colour_next = n->colour_next;
  out->free_touched = n->free_touched;
  out->next_reap = n->next_reap;
  return TRUE;
}

gboolean
sim_slab_object_slab (const SimSlab *m, SimAddr obj, SimAddr *pages, SimAddr *s_mem,
                      guint *colouroff, guint *node)
{
  const Slab *s = slab_at (m, obj & ~(SimAddr) (SIM_PAGE_SIZE - 1));
  if (s == NULL)
    return FALSE;
  if (pages)
    *pages = s->pages;
  if (s_mem)
    *s_mem = s->s_mem;
  if (colouroff)
    *colouroff = s->colouroff;
  if (node)
    *node = s->nodeid;
  return TRUE;
}

gboolean
sim_slab_test_corrupt (SimSlab *m, SimCacheId id, guint cpu)
{
  g_return_val_if_fail (id < m->caches->len && cpu < m->env.n_cpus, FALSE);
  ArrayCache *ac = ((SlabCache *) g_ptr_array_index (m->caches, id))->array[cpu];
  if (ac->avail == 0 || ac->avail >= ac->limit)
    return FALSE;
  ac->entry[ac->avail] = ac->entry[ac->avail - 1];
  ac->avail++;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The invariant checker                                               */

static gboolean
check_fail (GError **error, const SlabCache *c, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
check_fail (GError **error, const SlabCache *c, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT, "slab: %s: %s", c->name, msg);
  return FALSE;
}

/* Record the objects of one array: each must be an object of @c on node
 * @node (or any node if @node < 0), seen nowhere else. */
static gboolean
check_array (const SimSlab *m, const SlabCache *c, const ArrayCache *ac, gint node,
             const char *what, GHashTable *seen, GHashTable *in_arrays, GError **error)
{
  if (ac->avail > ac->limit)
    return check_fail (error, c, "%s: avail %u above limit %u", what, ac->avail, ac->limit);
  for (guint i = 0; i < ac->avail; i++)
    {
      SimAddr obj = ac->entry[i];
      const Slab *s = object_slab (m, obj);
      if (s == NULL || s->c != c)
        return check_fail (error, c, "%s: entry %u (%#" G_GINT64_MODIFIER "x) is not an object "
                           "of this cache", what, i, obj);
      if (node >= 0 && s->nodeid != (guint) node)
        return check_fail (error, c, "%s: object %#" G_GINT64_MODIFIER "x of node %u",
                           what, obj, s->nodeid);
      if (!g_hash_table_add (seen, GSIZE_TO_POINTER (obj)))
        return check_fail (error, c, "object %#" G_GINT64_MODIFIER "x is in two places (%s)",
                           obj, what);
      guint cnt = GPOINTER_TO_UINT (g_hash_table_lookup (in_arrays, s));
      g_hash_table_insert (in_arrays, (gpointer) s, GUINT_TO_POINTER (cnt + 1));
    }
  return TRUE;
}

static gboolean
check_cache (const SimSlab *m, const SlabCache *c, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) in_arrays = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      g_autofree char *what = g_strdup_printf ("cpu %u array", cpu);
      if (!check_array (m, c, c->array[cpu], m->n_nodes > 1 ? (gint) node_of_cpu (m, cpu) : -1,
                        what, seen, in_arrays, error))
        return FALSE;
    }
  for (guint nd = 0; nd < m->n_nodes; nd++)
    {
      const Node *n = &c->node[nd];
      if (n->shared)
        {
          g_autofree char *what = g_strdup_printf ("node %u shared array", nd);
          if (!check_array (m, c, n->shared, (gint) nd, what, seen, in_arrays, error))
            return FALSE;
        }
      if (n->alien)
        for (guint r = 0; r < m->n_nodes; r++)
          if (n->alien[r])
            {
              g_autofree char *what = g_strdup_printf ("node %u alien array of node %u", nd, r);
              if (!check_array (m, c, n->alien[r], (gint) r, what, seen, in_arrays, error))
                return FALSE;
            }
    }

  guint64 in_slabs_used = 0, in_arrays_total = g_hash_table_size (seen);
  for (guint nd = 0; nd < m->n_nodes; nd++)
    {
      const Node *n = &c->node[nd];
      guint64 free_objects = 0;
      for (guint l = LIST_PARTIAL; l <= LIST_FREE; l++)
        {
          guint64 cnt = 0;
          const Slab *prev = NULL;
          for (const Slab *s = n->lists[l].head; s; prev = s, s = s->next)
            {
              cnt++;
              if (s->c != c || s->list != l || s->prev != prev || s->nodeid != nd)
                return check_fail (error, c, "node %u: slab %#" G_GINT64_MODIFIER "x misfiled",
                                   nd, s->pages);
              guint want = s->inuse == 0 ? LIST_FREE : s->inuse == c->num ? LIST_FULL
                                                                          : LIST_PARTIAL;
              if (want != l)
                return check_fail (error, c, "node %u: slab %#" G_GINT64_MODIFIER "x with "
                                   "inuse %u of %u on the wrong list", nd, s->pages, s->inuse,
                                   c->num);
              /* Walk the bufctl chain: num - inuse free objects, each free
               * object in no array and not handed out. */
              guint nfree = 0;
              g_autofree guint8 *mark = g_malloc0 (c->num);
              for (guint32 it = s->free; it != BUFCTL_END; it = s->bufctl[it])
                {
                  if (it >= c->num || mark[it] || nfree > c->num)
                    return check_fail (error, c, "slab %#" G_GINT64_MODIFIER "x: bufctl chain "
                                       "corrupt", s->pages);
                  mark[it] = 1;
                  nfree++;
                  SimAddr obj = obj_addr (s, it);
                  if (!g_hash_table_add (seen, GSIZE_TO_POINTER (obj)))
                    return check_fail (error, c, "object %#" G_GINT64_MODIFIER "x is free in its "
                                       "slab and in an array", obj);
                }
              if (nfree + s->inuse != c->num)
                return check_fail (error, c, "slab %#" G_GINT64_MODIFIER "x: inuse %u but %u "
                                   "free of %u", s->pages, s->inuse, nfree, c->num);
              guint arr = GPOINTER_TO_UINT (g_hash_table_lookup (in_arrays, s));
              if (arr > s->inuse)
                return check_fail (error, c, "slab %#" G_GINT64_MODIFIER "x: %u objects in "
                                   "arrays but inuse %u", s->pages, arr, s->inuse);
              in_slabs_used += s->inuse;
              free_objects += nfree;
            }
          if (cnt != n->lists[l].n || n->lists[l].tail != prev)
            return check_fail (error, c, "node %u: list count %" G_GUINT64_FORMAT " but %"
                               G_GUINT64_FORMAT " slabs linked", nd, n->lists[l].n, cnt);
        }
      if (free_objects != n->free_objects)
        return check_fail (error, c, "node %u: free_objects %" G_GUINT64_FORMAT " but %"
                           G_GUINT64_FORMAT " free in slabs", nd, n->free_objects, free_objects);
    }
  if (in_slabs_used != in_arrays_total + c->live)
    return check_fail (error, c, "%" G_GUINT64_FORMAT " objects in use in slabs but %"
                       G_GUINT64_FORMAT " in arrays + %" G_GUINT64_FORMAT " handed out",
                       in_slabs_used, in_arrays_total, c->live);
  if (c->stat[SIM_SLAB_NUM_ACTIVE] != in_slabs_used)
    return check_fail (error, c, "num_active %" G_GUINT64_FORMAT " but %" G_GUINT64_FORMAT
                       " in use in slabs", c->stat[SIM_SLAB_NUM_ACTIVE], in_slabs_used);
  return TRUE;
}

gboolean
sim_slab_check (const SimSlab *m, GError **error)
{
  guint64 mapped = 0;
  for (guint i = 0; i < m->caches->len; i++)
    {
      const SlabCache *c = g_ptr_array_index (m->caches, i);
      if (!check_cache (m, c, error))
        return FALSE;
      guint64 slabs = 0, lists[4], active;
      active_objs (c, m->n_nodes, &slabs, lists, &active);
      mapped += slabs << c->gfporder;
    }
  if (mapped != sim_idmap_size (m->slab_of))
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                   "slab: %" G_GUINT64_FORMAT " slab pages on lists but %" G_GUINT64_FORMAT
                   " mapped", mapped, sim_idmap_size (m->slab_of));
      return FALSE;
    }
  return TRUE;
}
