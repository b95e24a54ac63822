/* slab-grow.c - the slab side of SLAB: the three slab lists of a node,
 * cache_grow and slab_destroy.
 *
 * Which kernel.  mm/slab.c of 2.6.34 and 2.6.23: the slabs_partial,
 * slabs_full and slabs_free lists of struct kmem_list3 (list_add at the
 * head or list_add_tail, list_del, each touching the neighbours' links);
 * cache_grow with its colour choice under list_lock, kmem_getpages
 * (__SetPageSlab on every page: SLAB does not ask for __GFP_COMP),
 * alloc_slabmgmt (struct slab and its kmem_bufctl_t array at the colour
 * offset, or off-slab in an object of slabp_cache), slab_map_pages
 * (page->lru holds the cache and the slab) and cache_init_objs (the
 * constructor's write of each object and the bufctl chain); slab_destroy
 * with kmem_freepages.  slab_get_obj and slab_put_obj on the bufctl
 * array and list_add_slab, which the array paths run once per object, are
 * static inlines in slab-internal.h.
 *
 * What it leaves out.  The debug layout (red zones, poisoning, the user
 * store word), kmemcheck's shadow pages, SLAB_DESTROY_BY_RCU's deferred
 * freeing (slab_destroy frees the pages at once), and the local_irq_enable
 * around the page allocation in cache_grow (interrupts are not modelled).
 */
#include "models/alloc/slab-internal.h"

/* ------------------------------------------------------------------ */
/* Slab lists                                                          */

void
list_del_slab (SimSlab *m, SimOp *op, Node *n, Slab *s)
{
  g_assert (s->list != LIST_NONE);
  SlabList *l = &n->lists[s->list];
  SimAddr head = list_head_addr (n, s->list);
  sim_op_path (op, &m->path[P_LIST_OP]);
  desc_rd (op, s, SL_LIST, 16);
  /* prev->next = next; next->prev = prev */
  sim_op_write (op, s->prev ? s->prev->desc + SL_LIST : head, 8, SIM_MEM_CACHE_META);
  sim_op_write (op, s->next ? s->next->desc + SL_LIST + 8 : head + 8, 8, SIM_MEM_CACHE_META);
  if (s->prev)
    s->prev->next = s->next;
  else
    l->head = s->next;
  if (s->next)
    s->next->prev = s->prev;
  else
    l->tail = s->prev;
  s->prev = s->next = NULL;
  s->list = LIST_NONE;
  l->n--;
}

/* ------------------------------------------------------------------ */
/* Slab creation and destruction                                       */

static void
map_slab_pages (SimSlab *m, Slab *s, gboolean add)
{
  for (guint i = 0; i < (1u << s->c->gfporder); i++)
    {
      SimAddr key = s->pages + ((SimAddr) i << SIM_PAGE_SHIFT);
      if (add)
        sim_idmap_set (m->slab_of, key, (gsize) s);
      else
        sim_idmap_remove (m->slab_of, key, NULL);
    }
}

/* One write of @size bytes at @off in the struct page of every page of
 * the slab at @pages: SLAB's slabs are not compound pages, so
 * __SetPageSlab, __ClearPageSlab and slab_map_pages visit each page. */
static void
write_slab_pages (SimSlab *m, SimOp *op, SlabCache *c, SimAddr pages, guint off, guint size)
{
  for (guint i = 0; i < (1u << c->gfporder); i++)
    {
      sim_op_path (op, &m->path[P_MAP_PAGE]);
      sim_op_write (op, sim_page_struct (m->env.pages, pages + ((SimAddr) i << SIM_PAGE_SHIFT))
                        + off, size, SIM_MEM_STRUCT_PAGE);
    }
}

static void
kmem_freepages (SimSlab *m, SimOp *op, SlabCache *c, SimAddr pages)
{
  /* __ClearPageSlab on every page, then free_pages. */
  write_slab_pages (m, op, c, pages, PG_FLAGS, 8);
  sim_page_free (m->env.pages, op, pages, c->gfporder);
}

SimAddr
kmem_getpages (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp, gint nodeid)
{
  guint32 pgfp = gfp & (SIM_GFP_WAIT | SIM_GFP_THISNODE);
  if (c->flags & SIM_SLAB_RECLAIM_ACCOUNT)
    pgfp |= SIM_GFP_RECLAIMABLE;
  /* Not __GFP_COMP: every page of a slab is mapped on its own. */
  SimAddr a = sim_page_alloc (m->env.pages, op, c->gfporder, nodeid, pgfp, FALSE);
  if (a == 0)
    return 0;
  write_slab_pages (m, op, c, a, PG_FLAGS, 8);      /* __SetPageSlab */
  return a;
}

void
slab_destroy (SimSlab *m, SimOp *op, SlabCache *c, Slab *s)
{
  sim_op_path (op, &m->path[P_DESTROY]);
  desc_rd (op, s, SL_COLOUROFF, 16);          /* s_mem - colouroff */
  SimAddr pages = s->pages, desc = s->desc;
  map_slab_pages (m, s, FALSE);
  stat (m, op, c, SIM_SLAB_SLABS_DESTROYED);
  g_free (s);
  kmem_freepages (m, op, c, pages);
  if (c->off_slab)
    cache_free (m, op, c->slabp_cache, desc);
}

/* cache_grow: one new slab on @nodeid's free list.  @pages: already
 * allocated pages (fallback_alloc), else 0. */
gboolean
cache_grow (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp, guint nodeid, SimAddr pages)
{
  sim_op_path (op, &m->path[P_GROW]);
  Node *n = nodelist (op, c, nodeid);
  list_lock (op, n);
  l3_rd (op, n, L3_COLOUR_NEXT, 4);
  rd_kc (op, c, KC_COLOUR, 16);
  guint offset = n->colour_next;
  n->colour_next++;
  if (n->colour_next >= c->colour)
    n->colour_next = 0;
  l3_wr (op, n, L3_COLOUR_NEXT, 4);
  list_unlock (op, n);
  offset *= c->colour_off;

  if (pages == 0)
    pages = kmem_getpages (m, op, c, gfp, (gint) nodeid);
  if (pages == 0)
    return FALSE;

  /* alloc_slabmgmt */
  SimAddr desc;
  guint colouroff = offset;
  if (c->off_slab)
    {
      /* kmem_cache_alloc_node without the constraint flags: the
       * management may come from another node if this one is full. */
      desc = cache_alloc_node (m, op, c->slabp_cache, (gint) nodeid,
                               gfp & ~(SIM_GFP_ZERO | SIM_GFP_THISNODE));
      if (desc == 0)
        {
          kmem_freepages (m, op, c, pages);
          return FALSE;
        }
    }
  else
    {
      desc = pages + offset;
      colouroff += c->slab_size;
    }
  Slab *s = g_malloc0 (sizeof (Slab) + c->num * sizeof (guint32));
  s->pages = pages;
  s->desc = desc;
  s->c = c;
  s->colouroff = colouroff;
  s->s_mem = pages + colouroff;
  s->nodeid = (guint16) nodeid;
  s->free = 0;
  desc_wr (op, s, SL_COLOUROFF, 16);
  desc_wr (op, s, SL_INUSE, 8);
  desc_wr (op, s, SL_NODEID, 2);

  /* slab_map_pages: page->lru.next = cache, page->lru.prev = slab */
  write_slab_pages (m, op, c, pages, PG_LRU, 16);
  map_slab_pages (m, s, TRUE);

  /* cache_init_objs: the constructor writes each object; bufctl[i] = i+1 */
  for (guint i = 0; i < c->num; i++)
    {
      sim_op_path (op, &m->path[P_INIT_OBJ]);
      if (c->flags & SIM_SLAB_CTOR)
        sim_op_write (op, obj_addr (s, i), MIN (c->buffer_size, 64u), SIM_MEM_OBJECT);
      s->bufctl[i] = i + 1 < c->num ? i + 1 : BUFCTL_END;
      sim_op_write (op, bufctl_addr (s, i), BUFCTL_SIZE, SIM_MEM_FREEPTR);
    }

  list_lock (op, n);
  list_add_slab (m, op, n, s, LIST_FREE, TRUE);
  stat (m, op, c, SIM_SLAB_GROWN);
  n->free_objects += c->num;
  l3_wr (op, n, L3_FREE_OBJECTS, 8);
  list_unlock (op, n);
  return TRUE;
}
