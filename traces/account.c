/* account.c - exact alloc/free pairing; see account.h for the definitions.
 *
 * Follows perf kmem stat's pairing (tools/perf/builtin-kmem.c): an alloc
 * remembers its CPU, a free looks up the pointer and is "ping-pong" when the
 * CPUs differ.  Unlike perf kmem, a pointer is forgotten at its free, so a
 * double free counts as unknown, and an allocation of a still-live pointer
 * is counted as an implicit free of the old object (perf kmem silently
 * overwrites it).  The live set is an open-addressing table with linear
 * probing and backward-shift deletion: no tombstones, so lookups stay short
 * however long the trace.
 */
#include "traces/account.h"

#include <string.h>

struct _SimTraceAccount {
  SimAccountCounts counts;
  SimLiveObject   *slots;     /* ptr 0 = empty */
  guint64          mask;
  guint64          live;
  GArray          *caches;    /* SimAccountCache */
  GHashTable      *cache_ix;  /* key (guint64*) -> index + 1 */
  guint64          last_key;  /* one-entry memo of the last cache looked up (0: none) */
  guint32          last_ix;
};

static inline guint64
slot_of (const SimTraceAccount *a, guint64 ptr)
{
  guint64 h = ptr * 0x9e3779b97f4a7c15ull;
  return (h ^ (h >> 29)) & a->mask;
}

SimTraceAccount *
sim_trace_account_new (void)
{
  SimTraceAccount *a = g_new0 (SimTraceAccount, 1);
  a->mask = 4095;
  a->slots = g_new0 (SimLiveObject, a->mask + 1);
  a->caches = g_array_new (FALSE, TRUE, sizeof (SimAccountCache));
  a->cache_ix = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  a->last_key = 0;            /* no key is 0: ids start at 1, size classes have bit 63 */
  return a;
}

void
sim_trace_account_free (SimTraceAccount *a)
{
  if (a == NULL)
    return;
  g_free (a->slots);
  g_array_free (a->caches, TRUE);
  g_hash_table_unref (a->cache_ix);
  g_free (a);
}

static SimLiveObject *
find (SimTraceAccount *a, guint64 ptr)
{
  for (guint64 i = slot_of (a, ptr);; i = (i + 1) & a->mask)
    {
      if (a->slots[i].ptr == ptr)
        return &a->slots[i];
      if (a->slots[i].ptr == 0)
        return NULL;
    }
}

static SimLiveObject *
insert (SimTraceAccount *a, const SimLiveObject *o)
{
  if ((a->live + 1) * 4 > (a->mask + 1) * 3)
    {
      SimLiveObject *old = a->slots;
      guint64 n = a->mask + 1;
      a->mask = n * 2 - 1;
      a->slots = g_new0 (SimLiveObject, a->mask + 1);
      for (guint64 i = 0; i < n; i++)
        if (old[i].ptr)
          {
            guint64 j = slot_of (a, old[i].ptr);
            while (a->slots[j].ptr)
              j = (j + 1) & a->mask;
            a->slots[j] = old[i];
          }
      g_free (old);
    }
  guint64 j = slot_of (a, o->ptr);
  while (a->slots[j].ptr)
    j = (j + 1) & a->mask;
  a->slots[j] = *o;
  a->live++;
  return &a->slots[j];
}

static void
remove_slot (SimTraceAccount *a, SimLiveObject *s)
{
  guint64 i = s - a->slots;
  /* backward-shift: pull later members of the probe run into the hole */
  for (guint64 j = (i + 1) & a->mask; a->slots[j].ptr; j = (j + 1) & a->mask)
    {
      guint64 home = slot_of (a, a->slots[j].ptr);
      /* move j to i if home is cyclically outside (i, j] */
      if (((j - home) & a->mask) >= ((j - i) & a->mask))
        {
          a->slots[i] = a->slots[j];
          i = j;
        }
    }
  a->slots[i].ptr = 0;
  a->live--;
}

static guint32
cache_index (SimTraceAccount *a, guint64 key)
{
  if (key == a->last_key)
    return a->last_ix;
  gpointer v = g_hash_table_lookup (a->cache_ix, &key);
  guint32 ix;
  if (v)
    ix = GPOINTER_TO_UINT (v) - 1;
  else
    {
      SimAccountCache c = { .key = key };
      g_array_append_val (a->caches, c);
      ix = a->caches->len - 1;
      guint64 *k = g_new (guint64, 1);
      *k = key;
      g_hash_table_insert (a->cache_ix, k, GUINT_TO_POINTER (ix + 1));
    }
  a->last_key = key;
  a->last_ix = ix;
  return ix;
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
      SimLiveObject *old = find (a, ev->ptr);
      if (old)
        {
          res->implicit = TRUE;
          res->implicit_old = *old;
          c->implicit_frees++;
          c->bytes_freed += old->bytes_alloc;
          cache_at (a, old->cache)->implicit_frees++;
          remove_slot (a, old);
        }
      SimLiveObject o = { .ptr = ev->ptr, .bytes_alloc = ev->bytes_alloc, .cpu = ev->cpu,
                          .cache = ix };
      res->live = insert (a, &o);
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
      remove_slot (a, o);
    }
}

const SimAccountCounts *
sim_trace_account_counts (SimTraceAccount *a)
{
  a->counts.live_at_end = a->live;
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
