/* slub-check.c - what the SLUB model shows of itself: cache info for
 * reports and tests, and the invariant checker behind --check.
 *
 * Which kernel.  The checks are the kernel's own invariants, as
 * validate_slab_cache and the SLUB_DEBUG consistency checks of mm/slub.c
 * state them (inuse against the freelist, slabs on the list their state
 * says, nr_partial against the list), plus the model's
 * bookkeeping (every live object in exactly one place, sheaves within
 * their capacity and the barn lists within the counts).
 *
 * What it leaves out.  It reads the model's state directly and costs no
 * simulated memory traffic: the kernel's checks run only with
 * slub_debug, which the model does not model.
 */
#include "models/alloc/slub-internal.h"

/* ------------------------------------------------------------------ */
/* Introspection and the invariant checker                            */

guint
sim_slub_n_caches (const SimSlub *m)
{
  return m->caches->len;
}

guint64
sim_slub_large_pages (const SimSlub *m)
{
  return m->large_pages;
}

void
sim_slub_cache_info (const SimSlub *m, SimCacheId id, SimSlubCacheInfo *out)
{
  g_return_if_fail (id < m->caches->len);
  const SlubCache *s = g_ptr_array_index (m->caches, id);
  memset (out, 0, sizeof *out);
  out->name = s->name;
  out->g = s->g;
  GPtrArray *al = g_ptr_array_new ();
  for (guint i = 0; i < s->aliases->len; i++)
    g_ptr_array_add (al, g_ptr_array_index (s->aliases, i));
  g_ptr_array_add (al, NULL);
  out->aliases = (const char *const *) g_ptr_array_free (al, FALSE);
  for (guint n = 0; n < m->n_nodes; n++)
    {
      out->slabs += s->node[n].nr_slabs;
      out->partial_slabs += s->node[n].nr_partial;
      out->total_objects += s->node[n].total_objects;
    }
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      if (s->cpu[cpu].slab)
        out->cpu_slabs++;
      for (Slab *p = s->cpu[cpu].partial; p; p = p->next)
        out->cpu_partial_slabs++;
    }
  out->live_objects = s->live;
  out->sheaf_capacity = s->sheaf_capacity;
  if (s->pcs)
    {
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        {
          out->sheaf_objects += s->pcs[cpu].main->size
                                + (s->pcs[cpu].spare ? s->pcs[cpu].spare->size : 0);
          out->rcu_sheaf_objects += s->pcs[cpu].rcu_free ? s->pcs[cpu].rcu_free->size : 0;
        }
      for (const GList *l = s->rcu_inflight.head; l; l = l->next)
        out->rcu_sheaf_objects += ((const Sheaf *) l->data)->size;
      for (guint n = 0; n < m->n_nodes; n++)
        {
          out->barn_full += s->barn[n].full.length;
          out->barn_empty += s->barn[n].empty.length;
          for (GList *l = s->barn[n].full.head; l; l = l->next)
            out->sheaf_objects += ((const Sheaf *) l->data)->size;
        }
    }
  memcpy (out->stat, s->stat, sizeof s->stat);
}

void
sim_slub_cache_info_clear (SimSlubCacheInfo *info)
{
  g_free ((gpointer) info->aliases);
  info->aliases = NULL;
}

/* Walk a freelist chain of @slab; returns its length, or -1 on a cycle or
 * an index out of range. */
static gint
chain_length (const Slab *slab, guint16 head, guint8 *seen)
{
  gint n = 0;
  for (guint16 it = head; it != NIL; it = slab->next_free[it])
    {
      if (it >= slab->objects || seen[it])
        return -1;
      seen[it] = 1;
      n++;
    }
  return n;
}

static gboolean
check_one_sheaf (const SimSlub *m, const SlubCache *s, const Sheaf *sh, const char *where,
                 GHashTable *in_sheaf, guint64 *count, GError **error)
{
  if (sh->size > s->sheaf_capacity)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                   "%s: %s sheaf holds %u objects, capacity %u", s->name, where, sh->size,
                   s->sheaf_capacity);
      return FALSE;
    }
  for (guint i = 0; i < sh->size; i++)
    {
      SimAddr a = sh->objects[i];
      const Slab *sl = slab_at (m, sim_page_head (m->env.pages, a));
      if (sl == NULL || sl->s != s || (a - sl->base) % s->g.size != 0
          || (a - sl->base) / s->g.size >= sl->objects)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: %s sheaf holds %#" G_GINT64_MODIFIER "x, not an object of the cache",
                       s->name, where, a);
          return FALSE;
        }
      if (!g_hash_table_add (in_sheaf, GSIZE_TO_POINTER (a)))
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: object %#" G_GINT64_MODIFIER "x is in a sheaf twice (%s)",
                       s->name, a, where);
          return FALSE;
        }
    }
  *count += sh->size;
  return TRUE;
}

/* The sheaves of @s: main never NULL, sizes within capacity, barn lists
 * holding full sheaves (at most MAX_FULL_SHEAVES) and empty ones. */
static gboolean
check_sheaves (const SimSlub *m, const SlubCache *s, GHashTable *in_sheaf, guint64 *count,
               GError **error)
{
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      const Pcs *pcs = &s->pcs[cpu];
      if (pcs->main == NULL || pcs->main == pcs->spare)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: cpu %u: main sheaf missing or also the spare", s->name, cpu);
          return FALSE;
        }
      if (!check_one_sheaf (m, s, pcs->main, "main", in_sheaf, count, error)
          || (pcs->spare && !check_one_sheaf (m, s, pcs->spare, "spare", in_sheaf, count, error)))
        return FALSE;
      /* kfree_rcu's sheaf leaves the CPU the moment it fills. */
      if (pcs->rcu_free && pcs->rcu_free->size >= s->sheaf_capacity)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: cpu %u: rcu_free sheaf is full but still the CPU's", s->name, cpu);
          return FALSE;
        }
      if (pcs->rcu_free && (pcs->rcu_free == pcs->main || pcs->rcu_free == pcs->spare
                            || !check_one_sheaf (m, s, pcs->rcu_free, "rcu_free", in_sheaf,
                                                 count, error)))
        {
          if (error && *error == NULL)
            g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                         "%s: cpu %u: rcu_free sheaf is also main or spare", s->name, cpu);
          return FALSE;
        }
    }
  /* Sheaves waiting for their grace period: their objects are neither
   * handed out nor free. */
  for (const GList *l = s->rcu_inflight.head; l; l = l->next)
    if (!check_one_sheaf (m, s, l->data, "rcu (in a grace period)", in_sheaf, count, error))
      return FALSE;
  for (guint n = 0; n < m->n_nodes; n++)
    {
      const Barn *b = &s->barn[n];
      if (b->full.length > m->p.barn_max_full)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: node %u barn holds %u full sheaves (at most %u)", s->name, n,
                       b->full.length, m->p.barn_max_full);
          return FALSE;
        }
      for (const GList *l = b->full.head; l; l = l->next)
        {
          const Sheaf *sh = l->data;
          if (sh->size != s->sheaf_capacity)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: node %u barn: a sheaf on the full list holds %u of %u",
                           s->name, n, sh->size, s->sheaf_capacity);
              return FALSE;
            }
          if (!check_one_sheaf (m, s, sh, "barn", in_sheaf, count, error))
            return FALSE;
        }
      for (const GList *l = b->empty.head; l; l = l->next)
        if (((const Sheaf *) l->data)->size != 0)
          {
            g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                         "%s: node %u barn: a sheaf on the empty list is not empty", s->name, n);
            return FALSE;
          }
    }
  return TRUE;
}

gboolean
sim_slub_check (const SimSlub *m, GError **error)
{
  /* Every object is in exactly one place: on its slab's freelist, on the
   * owning CPU's freelist, in a sheaf (6.18), or handed out; slab counts, list membership and
   * frozen state agree with where each slab sits. */
  GHashTable *accounted = g_hash_table_new (g_direct_hash, g_direct_equal);
  /* The slabs in address order, so which fault is named first never
   * depends on the map's layout. */
  g_autoptr (GPtrArray) by_base = sim_idmap_sorted (m->slab_of);
  gboolean ok = TRUE;
  for (guint i = 0; i < m->caches->len && ok; i++)
    {
      const SlubCache *s = g_ptr_array_index (m->caches, i);
      guint64 free_objs = 0, total = 0, slabs = 0;
      for (guint n = 0; n < m->n_nodes; n++)
        {
          const SlubNode *nd = &s->node[n];
          guint64 cnt = 0;
          const Slab *prev = NULL;
          for (const Slab *sl = nd->head; sl; prev = sl, sl = sl->next)
            {
              cnt++;
              if (sl->where != WHERE_NODE_PARTIAL || sl->frozen || sl->prev != prev
                  || sl->node != n || sl->s != s)
                {
                  g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                               "%s: node %u partial list: slab %#" G_GINT64_MODIFIER "x misfiled",
                               s->name, n, sl->base);
                  ok = FALSE;
                  break;
                }
              g_hash_table_add (accounted, (gpointer) sl);
            }
          if (!ok)
            break;
          if (cnt != nd->nr_partial || nd->tail != prev)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: node %u: nr_partial %" G_GUINT64_FORMAT " but %" G_GUINT64_FORMAT
                           " slabs listed", s->name, n, nd->nr_partial, cnt);
              ok = FALSE;
              break;
            }
          slabs += nd->nr_slabs;
          total += nd->total_objects;
        }
      for (guint cpu = 0; cpu < m->env.n_cpus && ok; cpu++)
        {
          const CpuSlab *c = &s->cpu[cpu];
          if (c->slab && (c->slab->where != WHERE_CPU || !c->slab->frozen
                          || c->slab->cpu != cpu || c->slab->s != s))
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: cpu %u: cpu slab not frozen or not marked as its", s->name, cpu);
              ok = FALSE;
            }
          if (!c->slab && c->freelist != NIL)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: cpu %u: freelist without a cpu slab", s->name, cpu);
              ok = FALSE;
            }
          for (const Slab *p = c->partial; p && ok; p = p->next)
            if (p->where != WHERE_CPU_PARTIAL || p->cpu != cpu || p->frozen)
              {
                g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                             "%s: cpu %u: cpu partial slab misfiled", s->name, cpu);
                ok = FALSE;
              }
        }
      if (!ok)
        break;

      /* Objects held in sheaves (main, spare, barn): each a real object of
       * this cache, in at most one sheaf slot. */
      GHashTable *in_sheaf = g_hash_table_new (g_direct_hash, g_direct_equal);
      guint64 sheaf_objs = 0;
      if (s->pcs)
        ok = check_sheaves (m, s, in_sheaf, &sheaf_objs, error);
      if (!ok)
        {
          g_hash_table_destroy (in_sheaf);
          break;
        }

      /* Every slab of this cache: object conservation. */
      guint64 seen_slabs = 0, seen_objects = 0, inuse_sum = 0;
      for (guint bi = 0; bi < by_base->len && ok; bi++)
        {
          const Slab *sl = (const Slab *) (gsize) ((const SimIdPair *) by_base->pdata[bi])->value;
          if (sl->s != s)
            continue;
          seen_slabs++;
          seen_objects += sl->objects;
          guint8 *seen = g_malloc0 (sl->objects);
          gint onslab = chain_length (sl, sl->freelist, seen);
          gint oncpu = 0;
          if (sl->where == WHERE_CPU)
            oncpu = chain_length (sl, s->cpu[sl->cpu].freelist, seen);
          guint free_in_sheaf = G_MAXUINT;
          for (guint k = 0; k < sl->objects && g_hash_table_size (in_sheaf); k++)
            if (seen[k] && g_hash_table_contains (in_sheaf, GSIZE_TO_POINTER (obj_addr (sl, k))))
              free_in_sheaf = k;
          g_free (seen);
          if (free_in_sheaf != G_MAXUINT)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: object %#" G_GINT64_MODIFIER "x is both free and in a sheaf",
                           s->name, obj_addr (sl, free_in_sheaf));
              ok = FALSE;
              break;
            }
          if (onslab < 0 || oncpu < 0)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: slab %#" G_GINT64_MODIFIER "x: freelist corrupt (cycle, shared "
                           "object or index out of range)", s->name, sl->base);
              ok = FALSE;
              break;
            }
          /* The kernel's inuse counts cpu-freelist objects as used. */
          if (sl->inuse + onslab != sl->objects)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: slab %#" G_GINT64_MODIFIER "x: inuse %u + free %d != objects %u",
                           s->name, sl->base, sl->inuse, onslab, sl->objects);
              ok = FALSE;
              break;
            }
          inuse_sum += sl->inuse - oncpu;
          free_objs += onslab + oncpu;
          if (sl->where == WHERE_NONE && (sl->freelist != NIL || sl->frozen))
            {
              /* Off every list is only for full, unfrozen slabs. */
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: slab %#" G_GINT64_MODIFIER "x has free objects but is on no list",
                           s->name, sl->base);
              ok = FALSE;
              break;
            }
          if (sl->where == WHERE_NODE_PARTIAL && !g_hash_table_contains (accounted, sl))
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: slab marked partial is not on its node list", s->name);
              ok = FALSE;
              break;
            }
        }
      g_hash_table_destroy (in_sheaf);
      if (!ok)
        break;
      if (seen_slabs != slabs || seen_objects != total)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: %" G_GUINT64_FORMAT " slabs counted, %" G_GUINT64_FORMAT " exist",
                       s->name, slabs, seen_slabs);
          ok = FALSE;
          break;
        }
      if (inuse_sum != s->live + sheaf_objs)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: %" G_GUINT64_FORMAT " objects in use in slabs but %" G_GUINT64_FORMAT
                       " handed out and %" G_GUINT64_FORMAT " in sheaves",
                       s->name, inuse_sum, s->live, sheaf_objs);
          ok = FALSE;
          break;
        }
      (void) free_objs;
    }
  g_hash_table_destroy (accounted);
  return ok;
}

