/* decisions.c - allocator decisions read from a kmem event stream; see
 * decisions.h for the metrics and their limits. */
#include "traces/decisions.h"

#include "sim/core/idmap.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ORDER     11          /* buddy orders 0..10 */
#define KMALLOC_MAX_CACHE 8192    /* 6.18: larger kmallocs are page allocations */

typedef struct {
  guint64 last_freed;             /* ptr + 0: none */
  guint64 last_slab;              /* head pfn + 1: none */
} PerCpu;

typedef struct {
  SimDecisionCache pub;
  SimIdMap *distinct;             /* head pfn set */
  GArray *cpu;                    /* PerCpu */
} Cache;

/* A block known to be a slab: packed as cache index << 8 | old << 7 | order. */
#define SLAB_PACK(c, old, o)  ((((guint64) (c)) << 8) | ((old) ? 0x80u : 0u) | (o))
#define SLAB_CACHE(v)         ((guint) ((v) >> 8))
#define SLAB_OLD(v)           (((v) & 0x80u) != 0)
#define SLAB_ORDER(v)         ((guint) ((v) & 0x7fu))
/* A block allocated and not yet claimed: cpu << 8 | order. */
#define PEND_PACK(cpu, o)     ((((guint64) (cpu)) << 8) | (o))

struct _SimDecisions {
  GPtrArray *caches;              /* Cache*, first appearance */
  GHashTable *by_name;            /* name -> index + 1 */
  SimIdMap *live;                 /* ptr -> cache index + 1 */
  SimIdMap *slabs;                /* head pfn -> SLAB_PACK + 1 */
  SimIdMap *pending;              /* head pfn -> PEND_PACK + 1 */
  SimDecisionTotals totals;
  GArray *sorted;                 /* SimDecisionCache, for callers */
  /* sim_decisions_track_slab_pages: the ordinal of each page allocation,
   * and the set that receives those that became slabs. */
  GHashTable *slab_page_set;      /* ordinal + 1, caller's */
  SimIdMap *pend_ordinal;         /* head pfn -> ordinal + 1 */
  guint64 page_alloc_ordinal;
  /* sim_decisions_event's memo of which cache an event names, so that an
   * allocation neither prints a kmalloc class name nor hashes a string:
   * by interned cache id (the strings of memo_strs; 0: not yet looked up),
   * and by kmalloc type and size.  Both hold cache index + 1, and name a
   * cache that sim_decisions_cache_name + cache_index would find: an
   * interned string never changes, nor does a cache's index. */
  const SimTraceStrings *memo_strs;
  GArray *by_cache_id;            /* guint32, indexed by cache id */
  guint32 *by_kmalloc;            /* [type][bytes_alloc], KMALLOC_TYPES x (KMALLOC_MAX_CACHE + 1) */
  guint32 kmalloc_large;
  gboolean slab_pages_only;       /* sim_decisions_slab_pages_only */
};

#define KMALLOC_TYPES 4

static void
cache_free (gpointer p)
{
  Cache *c = p;
  g_free (c->pub.name);
  sim_idmap_free (c->distinct);
  g_array_unref (c->cpu);
  g_free (c);
}

SimDecisions *
sim_decisions_new (void)
{
  SimDecisions *d = g_new0 (SimDecisions, 1);
  d->caches = g_ptr_array_new_with_free_func (cache_free);
  d->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d->slabs = sim_idmap_new (sizeof (SimIdPair), 0);
  d->pending = sim_idmap_new (sizeof (SimIdPair), 0);
  d->live = sim_idmap_new (sizeof (SimIdPair), 0);
  return d;
}

void
sim_decisions_free (SimDecisions *d)
{
  if (d == NULL)
    return;
  g_ptr_array_unref (d->caches);
  g_hash_table_destroy (d->by_name);
  sim_idmap_free (d->live);
  sim_idmap_free (d->slabs);
  sim_idmap_free (d->pending);
  sim_idmap_free (d->pend_ordinal);
  if (d->sorted)
    g_array_unref (d->sorted);
  if (d->by_cache_id)
    g_array_unref (d->by_cache_id);
  g_free (d->by_kmalloc);
  g_free (d);
}

/* guint64-keyed tables of guint64 values, 0 meaning absent. */
static inline guint64
map_get (const SimIdMap *t, guint64 key)
{
  return sim_idmap_get (t, key, 0);
}

static inline void
map_set (SimIdMap *t, guint64 key, guint64 value)
{
  sim_idmap_set (t, key, value);
}

static inline gboolean
map_del (SimIdMap *t, guint64 key)
{
  return sim_idmap_remove (t, key, NULL);
}

/* The block of @t (head pfn -> packed value with the order in its low 7
 * bits, + 1) that contains @pfn: buddy blocks are aligned to their order. */
static guint64
block_containing (const SimIdMap *t, guint64 pfn, guint64 *head)
{
  for (guint k = 0; k < MAX_ORDER; k++)
    {
      guint64 h = pfn & ~((G_GUINT64_CONSTANT (1) << k) - 1);
      guint64 v = map_get (t, h);
      if (v && pfn < h + (G_GUINT64_CONSTANT (1) << ((v - 1) & 0x7f)))
        {
          *head = h;
          return v;

        }
    }
  return 0;
}

static guint
cache_index (SimDecisions *d, const char *name)
{
  gpointer v = g_hash_table_lookup (d->by_name, name);
  if (v)
    return GPOINTER_TO_UINT (v) - 1;
  Cache *c = g_new0 (Cache, 1);
  c->pub.name = g_strdup (name);
  c->pub.order = -1;
  c->distinct = sim_idmap_new (8, 0);
  c->cpu = g_array_new (FALSE, TRUE, sizeof (PerCpu));
  g_ptr_array_add (d->caches, c);
  guint idx = d->caches->len - 1;
  g_hash_table_insert (d->by_name, g_strdup (name), GUINT_TO_POINTER (idx + 1));
  return idx;
}

static PerCpu *
per_cpu (Cache *c, guint cpu)
{
  if (cpu >= c->cpu->len)
    g_array_set_size (c->cpu, cpu + 1);
  return &g_array_index (c->cpu, PerCpu, cpu);
}

void
sim_decisions_obj_free (SimDecisions *d, guint cpu, guint64 ptr)
{
  SimIdPair *e = sim_idmap_lookup (d->live, ptr);
  if (e == NULL)
    {
      d->totals.unknown_frees++;
      return;
    }
  guint64 v = e->value;
  sim_idmap_remove_entry (d->live, e);
  Cache *c = g_ptr_array_index (d->caches, v - 1);
  c->pub.frees++;
  per_cpu (c, cpu)->last_freed = ptr;
}

static void alloc_in (SimDecisions *d, guint cpu, guint ci, guint64 ptr);

void
sim_decisions_alloc (SimDecisions *d, guint cpu, const char *cache, guint64 ptr)
{
  if (ptr == 0)
    return;
  alloc_in (d, cpu, cache_index (d, cache), ptr);
}

/* An object of cache @ci at page @pfn outside every known slab: the block
 * just taken on this CPU holds the cache's first object (allocate_slab),
 * or, with no such block, a slab from before the stream (or one whose page
 * event was lost) with its extent from the cache's order.  Returns the
 * slab's head page. */
static inline guint64
place_slab (SimDecisions *d, Cache *c, guint ci, guint cpu, guint64 pfn)
{
  guint64 head = 0;
  guint64 pend = block_containing (d->pending, pfn, &head);
  if (pend && ((pend - 1) >> 8) == cpu)
    {
      guint order = (guint) ((pend - 1) & 0x7f);
      map_del (d->pending, head);
      if (d->slab_page_set)
        {
          guint64 ord = map_get (d->pend_ordinal, head);
          if (ord)
            g_hash_table_add (d->slab_page_set, GSIZE_TO_POINTER ((gsize) ord));
          map_del (d->pend_ordinal, head);
        }
      map_set (d->slabs, head, SLAB_PACK (ci, FALSE, order) + 1);
      c->pub.new_slabs++;
      c->pub.order = (gint) order;
      return head;
    }
  guint order = c->pub.order >= 0 ? (guint) c->pub.order : 0;
  head = pfn & ~((G_GUINT64_CONSTANT (1) << order) - 1);
  map_set (d->slabs, head, SLAB_PACK (ci, TRUE, order) + 1);
  return head;
}

/* alloc_in for sim_decisions_slab_pages_only: what decides which blocks
 * are slabs, the same steps as below without the metrics (no live map,
 * per-CPU state or distinct set: none of them feeds back into it). */
static void
slab_pages_alloc (SimDecisions *d, guint cpu, guint ci, guint64 ptr)
{
  if (!sim_in_direct_map (ptr))
    return;
  guint64 pfn = (ptr - SIM_DIRECT_MAP_BASE) >> 12;
  guint64 head = 0;
  if (block_containing (d->slabs, pfn, &head))
    return;
  place_slab (d, g_ptr_array_index (d->caches, ci), ci, cpu, pfn);
}

/* sim_decisions_alloc of @ptr (not 0) in the cache of index @ci (looking
 * a cache up only ever adds one, so it may come before the implicit
 * free). */
static void
alloc_in (SimDecisions *d, guint cpu, guint ci, guint64 ptr)
{
  if (d->slab_pages_only)
    {
      slab_pages_alloc (d, cpu, ci, ptr);
      return;
    }
  /* One probe of the live map: a pointer still live is freed first (what
   * sim_decisions_obj_free does, the entry reused in place). */
  gboolean implicit;
  SimIdPair *e = sim_idmap_insert (d->live, ptr, &implicit);
  if (implicit)
    {
      Cache *old = g_ptr_array_index (d->caches, e->value - 1);
      old->pub.frees++;
      per_cpu (old, cpu)->last_freed = ptr;
    }
  e->value = ci + 1;
  Cache *c = g_ptr_array_index (d->caches, ci);
  if (implicit)
    c->pub.implicit++;
  c->pub.allocs++;
  PerCpu *pc = per_cpu (c, cpu);
  if (pc->last_freed == ptr)
    {
      c->pub.lifo_reuse++;
      pc->last_freed = 0;
    }
  if (!sim_in_direct_map (ptr))
    {
      c->pub.unplaced++;
      d->totals.unplaced++;
      pc->last_slab = 0;
      return;
    }
  guint64 pfn = (ptr - SIM_DIRECT_MAP_BASE) >> 12;
  guint64 head = 0;
  guint64 v = block_containing (d->slabs, pfn, &head);
  if (v == 0)
    head = place_slab (d, c, ci, cpu, pfn);
  if (pc->last_slab == head + 1)
    {
      /* the previous allocation's slab is in distinct already: only
       * sim_decisions_page_free takes a head out of it, and it clears the
       * per-CPU last_slab that names it */
      c->pub.same_slab++;
      return;
    }
  gboolean seen;
  sim_idmap_insert (c->distinct, head, &seen);
  if (!seen)
    c->pub.distinct_slabs++;
  pc->last_slab = head + 1;
}

void
sim_decisions_page_alloc (SimDecisions *d, guint cpu, guint64 pfn, guint order)
{
  d->totals.page_allocs++;
  guint64 ordinal = d->page_alloc_ordinal++;
  if (order >= MAX_ORDER)
    return;
  /* A block handed out again after a free we did not see (or a stale
   * guess of an old slab) starts over. */
  map_del (d->slabs, pfn);
  map_set (d->pending, pfn, PEND_PACK (cpu, order) + 1);
  if (d->slab_page_set)
    map_set (d->pend_ordinal, pfn, ordinal + 1);
}

void
sim_decisions_page_free (SimDecisions *d, guint64 pfn, guint order)
{
  (void) order;
  d->totals.page_frees++;
  map_del (d->pending, pfn);
  if (d->pend_ordinal)
    map_del (d->pend_ordinal, pfn);
  guint64 v = map_get (d->slabs, pfn);
  if (v == 0)
    return;
  v -= 1;
  Cache *c = g_ptr_array_index (d->caches, SLAB_CACHE (v));
  if (SLAB_OLD (v))
    c->pub.freed_old_slabs++;
  else
    c->pub.freed_slabs++;
  map_del (d->slabs, pfn);
  if (d->slab_pages_only)
    return;
  /* Allocations' "previous slab" may not outlive the slab. */
  for (guint i = 0; i < c->cpu->len; i++)
    {
      PerCpu *pc = &g_array_index (c->cpu, PerCpu, i);
      if (pc->last_slab == pfn + 1)
        pc->last_slab = 0;
    }
  /* A new slab at this head later is another slab: distinct_slabs will
   * count it again. */
  sim_idmap_remove (c->distinct, pfn, NULL);
}

void
sim_decisions_pcp_drain (SimDecisions *d, guint order)
{
  d->totals.pcp_drains++;
  d->totals.pcp_drain_pages += G_GUINT64_CONSTANT (1) << MIN (order, 20u);
}

const char *
sim_decisions_cache_name (const SimTraceStrings *r, const SimTraceEvent *ev, char *buf, gsize n)
{
  if (!sim_trace_kind_is_kmalloc (ev->kind))
    {
      const char *name = ev->cache_id ? sim_trace_strings_get (r, ev->cache_id) : NULL;
      if (name && *name)
        return name;
      g_snprintf (buf, n, "unnamed-%" G_GUINT64_FORMAT, ev->bytes_req);
      return buf;
    }
  if (ev->bytes_alloc > KMALLOC_MAX_CACHE)
    return "kmalloc-large";
  /* kmalloc_type(): DMA, then reclaimable, then accounted. */
  const char *prefix = (ev->gfp & SIM_GFP (DMA)) ? "dma-kmalloc-"
                     : (ev->gfp & SIM_GFP (RECLAIMABLE)) ? "kmalloc-rcl-"
                     : (ev->gfp & SIM_GFP (ACCOUNT)) ? "kmalloc-cg-" : "kmalloc-";
  guint64 sz = ev->bytes_alloc;
  if (sz >= 1024 && sz % 1024 == 0)
    g_snprintf (buf, n, "%s%" G_GUINT64_FORMAT "k", prefix, sz / 1024);
  else
    g_snprintf (buf, n, "%s%" G_GUINT64_FORMAT, prefix, sz);
  return buf;
}

/* The index of the cache sim_decisions_cache_name names for @ev, from
 * the memo when it can be. */
static guint
event_cache_index (SimDecisions *d, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  guint32 *slot = NULL;
  if (!sim_trace_kind_is_kmalloc (ev->kind))
    {
      guint32 id = ev->cache_id;
      /* an id not yet defined reads as "" (unnamed-<bytes_req>): no memo */
      if (id != 0 && id <= sim_trace_strings_count (r))
        {
          if (r != d->memo_strs)
            {
              if (d->by_cache_id)
                g_array_set_size (d->by_cache_id, 0);
              d->memo_strs = r;
            }
          if (d->by_cache_id == NULL)
            d->by_cache_id = g_array_new (FALSE, TRUE, sizeof (guint32));
          if (id >= d->by_cache_id->len)
            g_array_set_size (d->by_cache_id, id + 1);
          slot = &g_array_index (d->by_cache_id, guint32, id);
          /* "" is named by its bytes_req: not memoised */
          if (*slot == 0 && *sim_trace_strings_get (r, id) == '\0')
            slot = NULL;
        }
    }
  else if (ev->bytes_alloc > KMALLOC_MAX_CACHE)
    slot = &d->kmalloc_large;
  else
    {
      guint type = (ev->gfp & SIM_GFP (DMA)) ? 1
                 : (ev->gfp & SIM_GFP (RECLAIMABLE)) ? 2
                 : (ev->gfp & SIM_GFP (ACCOUNT)) ? 3 : 0;
      if (d->by_kmalloc == NULL)
        d->by_kmalloc = g_new0 (guint32, KMALLOC_TYPES * (KMALLOC_MAX_CACHE + 1));
      slot = &d->by_kmalloc[type * (KMALLOC_MAX_CACHE + 1) + ev->bytes_alloc];
    }
  if (slot && *slot)
    return *slot - 1;
  char buf[64];
  guint ci = cache_index (d, sim_decisions_cache_name (r, ev, buf, sizeof buf));
  if (slot)
    *slot = ci + 1;
  return ci;
}

void
sim_decisions_event (SimDecisions *d, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  guint cpu = ev->cpu >= 0 ? (guint) ev->cpu : 0;
  switch (ev->kind)
    {
    case SIM_TRACE_KMALLOC:
    case SIM_TRACE_KMALLOC_NODE:
    case SIM_TRACE_CACHE_ALLOC:
    case SIM_TRACE_CACHE_ALLOC_NODE:
      if (ev->ptr)
        alloc_in (d, cpu, event_cache_index (d, r, ev), ev->ptr);
      break;
    case SIM_TRACE_KFREE:
    case SIM_TRACE_CACHE_FREE:
      if (ev->ptr && !d->slab_pages_only)
        sim_decisions_obj_free (d, cpu, ev->ptr);
      break;
    case SIM_TRACE_PAGE_ALLOC:
      if (ev->pfn || ev->ptr)
        sim_decisions_page_alloc (d, cpu, ev->pfn, ev->order >= 0 ? (guint) ev->order : 0);
      break;
    case SIM_TRACE_PAGE_FREE:
    case SIM_TRACE_PAGE_FREE_BATCHED:
    case SIM_TRACE_PAGE_FREE_DIRECT:
    case SIM_TRACE_PAGEVEC_FREE:
      sim_decisions_page_free (d, ev->pfn, ev->order >= 0 ? (guint) ev->order : 0);
      break;
    case SIM_TRACE_PAGE_PCPU_DRAIN:
      sim_decisions_pcp_drain (d, ev->order >= 0 ? (guint) ev->order : 0);
      break;
    default:
      break;
    }
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (((const SimDecisionCache *) a)->name, ((const SimDecisionCache *) b)->name);
}

const SimDecisionCache *
sim_decisions_caches (SimDecisions *d, guint *n)
{
  if (d->sorted)
    g_array_unref (d->sorted);
  d->sorted = g_array_sized_new (FALSE, FALSE, sizeof (SimDecisionCache), d->caches->len);
  for (guint i = 0; i < d->caches->len; i++)
    {
      Cache *c = g_ptr_array_index (d->caches, i);
      g_array_append_val (d->sorted, c->pub);
    }
  g_array_sort (d->sorted, by_name);
  *n = d->sorted->len;
  return (const SimDecisionCache *) d->sorted->data;
}

const SimDecisionCache *
sim_decisions_cache (SimDecisions *d, const char *name)
{
  gpointer v = g_hash_table_lookup (d->by_name, name);
  if (v == NULL)
    return NULL;
  return &((Cache *) g_ptr_array_index (d->caches, GPOINTER_TO_UINT (v) - 1))->pub;
}

void
sim_decisions_track_slab_pages (SimDecisions *d, GHashTable *set)
{
  d->slab_page_set = set;
  if (d->pend_ordinal == NULL)
    d->pend_ordinal = sim_idmap_new (sizeof (SimIdPair), 0);
}

void
sim_decisions_slab_pages_only (SimDecisions *d)
{
  d->slab_pages_only = TRUE;
}

const SimDecisionTotals *
sim_decisions_totals (SimDecisions *d)
{
  return &d->totals;
}
