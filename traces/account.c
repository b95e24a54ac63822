/* account.c - exact alloc/free pairing; see account.h for the definitions.
 *
 * Follows perf kmem stat's pairing (tools/perf/builtin-kmem.c): an alloc
 * remembers its CPU, a free looks up the pointer and is "ping-pong" when the
 * CPUs differ.  Unlike perf kmem, a pointer is forgotten at its free, so a
 * double free counts as unknown, and an allocation of a still-live pointer
 * is counted as an implicit free of the old object (perf kmem silently
 * overwrites it).  The live set and the cache index are sim/core/idmap.h
 * maps (open addressing, backward-shift deletion, no tombstones), so
 * lookups stay short however long the trace and no key is allocated.
 */
#include "traces/account.h"

#include "sim/core/idmap.h"

#include <string.h>

/* idmap entries are a power of two in size: the live object must stay 32
 * bytes (the key, ptr, first). */
G_STATIC_ASSERT (sizeof (SimLiveObject) == 32 && G_STRUCT_OFFSET (SimLiveObject, ptr) == 0);

struct _SimTraceAccount {
  SimAccountCounts counts;
  SimIdMap        *live;      /* ptr -> SimLiveObject (ptr 0 never live) */
  GArray          *caches;    /* SimAccountCache */
  SimIdMap        *cache_ix;  /* key -> index (SimIdPair), keys from ACCOUNT_DIRECT_IDS on */
  GArray          *ix_by_id;  /* cache_id below ACCOUNT_DIRECT_IDS -> index + 1 (0: none) */
  guint64          last_key;  /* one-entry memo of the last cache looked up (0: none) */
  guint32          last_ix;
};

SimTraceAccount *
sim_trace_account_new (void)
{
  SimTraceAccount *a = g_new0 (SimTraceAccount, 1);
  a->live = sim_idmap_new (sizeof (SimLiveObject), 3072);
  a->caches = g_array_new (FALSE, TRUE, sizeof (SimAccountCache));
  a->cache_ix = sim_idmap_new (sizeof (SimIdPair), 0);
  a->ix_by_id = g_array_new (FALSE, TRUE, sizeof (guint32));
  a->last_key = 0;            /* no key is 0: ids start at 1, size classes have bit 63 */
  return a;
}

void
sim_trace_account_free (SimTraceAccount *a)
{
  if (a == NULL)
    return;
  sim_idmap_free (a->live);
  g_array_free (a->caches, TRUE);
  sim_idmap_free (a->cache_ix);
  g_array_free (a->ix_by_id, TRUE);
  g_free (a);
}

static inline SimLiveObject *
find (SimTraceAccount *a, guint64 ptr)
{
  return sim_idmap_lookup (a->live, ptr);
}

/* Cache ids are string ids, small and dense: those below this index an
 * array (every allocation looks its cache up); size classes and larger ids
 * go to the map.  Indices are handed out in order of first sight either way. */
#define ACCOUNT_DIRECT_IDS (1u << 16)

static G_GNUC_NO_INLINE guint32
cache_index_slow (SimTraceAccount *a, guint64 key)
{
  guint32 ix;
  if (key < ACCOUNT_DIRECT_IDS)
    {
      if (key >= a->ix_by_id->len)
        g_array_set_size (a->ix_by_id, (guint) key + 1);
      guint32 *v = &g_array_index (a->ix_by_id, guint32, key);
      if (*v == 0)
        {
          SimAccountCache c = { .key = key };
          g_array_append_val (a->caches, c);
          *v = a->caches->len;
        }
      ix = *v - 1;
    }
  else
    {
      gboolean existed;
      SimIdPair *p = sim_idmap_insert (a->cache_ix, key, &existed);
      if (!existed)
        {
          SimAccountCache c = { .key = key };
          g_array_append_val (a->caches, c);
          p->value = a->caches->len - 1;
        }
      ix = (guint32) p->value;
    }
  a->last_key = key;
  a->last_ix = ix;
  return ix;
}

/* The index of cache @key, made on first sight: the memo and the array in
 * line, since every allocation asks. */
static inline guint32
cache_index (SimTraceAccount *a, guint64 key)
{
  if (key == a->last_key)
    return a->last_ix;
  /* The array only grows for keys below ACCOUNT_DIRECT_IDS. */
  if (key < a->ix_by_id->len)
    {
      guint32 v = g_array_index (a->ix_by_id, guint32, key);
      if (v != 0)
        {
          a->last_key = key;
          a->last_ix = v - 1;
          return v - 1;
        }
    }
  return cache_index_slow (a, key);
}

static inline SimAccountCache *
cache_at (SimTraceAccount *a, guint32 ix)
{
  return &g_array_index (a->caches, SimAccountCache, ix);
}

void
sim_trace_account_event (SimTraceAccount *a, const SimTraceEvent *ev, SimAccountResult *res)
{
  SimAccountResult dummy;
  if (res == NULL)
    res = &dummy;
  res->free_class = SIM_FREE_NONE;
  res->implicit = FALSE;
  res->live = NULL;
  SimAccountCounts *c = &a->counts;

  if (sim_trace_kind_is_slab_alloc (ev->kind))
    {
      guint64 key = ev->cache_id ? ev->cache_id : (SIM_ACCOUNT_KEY_SIZE_CLASS | ev->bytes_alloc);
      guint32 ix = cache_index (a, key);
      SimAccountCache *cs = cache_at (a, ix);
      c->allocs++;
      c->bytes_req += ev->bytes_req;
      c->bytes_alloc += ev->bytes_alloc;
      cs->allocs++;
      cs->bytes_req += ev->bytes_req;
      cs->bytes_alloc += ev->bytes_alloc;
      if (ev->ptr == 0)
        {
          c->failed_allocs++;
          return;
        }
      /* One probe: the new object's entry, or the still-live old one of
       * the same pointer, which the new object then takes over. */
      gboolean existed;
      SimLiveObject *o = sim_idmap_insert (a->live, ev->ptr, &existed);
      if (existed)
        {
          res->implicit = TRUE;
          res->implicit_old = *o;
          c->implicit_frees++;
          c->bytes_freed += o->bytes_alloc;
          cache_at (a, o->cache)->implicit_frees++;
          o->user = 0;
        }
      o->bytes_alloc = ev->bytes_alloc;
      o->cpu = ev->cpu;
      o->cache = ix;
      res->live = o;
    }
  else if (sim_trace_kind_is_slab_free (ev->kind))
    {
      c->frees++;
      SimLiveObject *o = ev->ptr ? find (a, ev->ptr) : NULL;
      if (o == NULL)
        {
          if (ev->ptr == 0)
            {
              c->null_frees++;
              res->free_class = SIM_FREE_NULL;
            }
          else
            {
              c->unknown_frees++;
              res->free_class = SIM_FREE_UNKNOWN;
            }
          if (ev->cache_id)
            cache_at (a, cache_index (a, ev->cache_id))->frees++;
          return;
        }
      SimAccountCache *cs = cache_at (a, o->cache);
      cs->frees++;
      c->bytes_freed += o->bytes_alloc;
      res->freed = *o;
      if (o->cpu == ev->cpu)
        {
          c->same_cpu_frees++;
          res->free_class = SIM_FREE_SAME_CPU;
        }
      else
        {
          c->cross_cpu_frees++;
          cs->cross_cpu_frees++;
          res->free_class = SIM_FREE_CROSS_CPU;
        }
      sim_idmap_remove_entry (a->live, o);
    }
}

void
sim_trace_account_prefetch (SimTraceAccount *a, guint64 ptr)
{
  sim_idmap_prefetch (a->live, ptr);
}

const SimAccountCounts *
sim_trace_account_counts (SimTraceAccount *a)
{
  a->counts.live_at_end = sim_idmap_size (a->live);
  return &a->counts;
}

const SimAccountCache *
sim_trace_account_caches (SimTraceAccount *a, guint *n)
{
  *n = a->caches->len;
  return (const SimAccountCache *) (gpointer) a->caches->data;
}

SimLiveObject *
sim_trace_account_lookup (SimTraceAccount *a, guint64 ptr)
{
  return ptr ? find (a, ptr) : NULL;
}
