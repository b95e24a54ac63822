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
  GArray          *ix_by_size;/* size class bytes_alloc / 8 (a multiple of 8 below
                               * ACCOUNT_DIRECT_SIZES) -> index + 1 (0: none) */
  /* sim_trace_account_slot: slots handed out so far, and those free again
   * (a stack: the last freed is the next taken). */
  guint32          n_slots;
  guint32          n_free, free_cap;
  guint32         *free_slots;
};

SimTraceAccount *
sim_trace_account_new (void)
{
  SimTraceAccount *a = g_new0 (SimTraceAccount, 1);
  a->live = sim_idmap_new (sizeof (SimLiveObject), 3072);
  a->caches = g_array_new (FALSE, TRUE, sizeof (SimAccountCache));
  a->cache_ix = sim_idmap_new (sizeof (SimIdPair), 0);
  a->ix_by_id = g_array_new (FALSE, TRUE, sizeof (guint32));
  a->ix_by_size = g_array_new (FALSE, TRUE, sizeof (guint32));
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
  g_array_free (a->ix_by_size, TRUE);
  g_free (a->free_slots);
  g_free (a);
}

static inline SimLiveObject *
find (SimTraceAccount *a, guint64 ptr)
{
  return sim_idmap_lookup (a->live, ptr);
}

/* Cache ids are string ids, small and dense: those below this index an
 * array (every allocation looks its cache up).  Likewise the size classes
 * of events without name= (kmalloc's, and kmem_cache events of kernels
 * before 6.18): multiples of 8, and kmalloc's caches end at 8 KiB (bigger
 * ones are pages), so bytes_alloc / 8 below ACCOUNT_DIRECT_SIZES indexes a
 * second array (at most 32 KiB).  In the map they cost a call and a probe,
 * on 39 k of the bundled trace's 126 k lookups (a one-entry memo of the
 * last key before both missed on 112 k: a trace's allocations alternate
 * caches; without it the lookups cost 0.6 M instructions less).  Other
 * keys go to the map.  Indices are handed out in order of first sight
 * whichever way. */
#define ACCOUNT_DIRECT_IDS   (1u << 16)
#define ACCOUNT_DIRECT_SIZES (1u << 16)

/* The array slot of @key (index + 1, 0: none yet) if it has one, the
 * array grown to take it; NULL: the key goes to the map. */
static guint32 *
cache_direct (SimTraceAccount *a, guint64 key)
{
  GArray *arr;
  guint64 i;
  if (key < ACCOUNT_DIRECT_IDS)
    arr = a->ix_by_id, i = key;
  else if ((key ^ SIM_ACCOUNT_KEY_SIZE_CLASS) < ACCOUNT_DIRECT_SIZES && key % 8 == 0)
    arr = a->ix_by_size, i = (key ^ SIM_ACCOUNT_KEY_SIZE_CLASS) / 8;
  else
    return NULL;
  if (i >= arr->len)
    g_array_set_size (arr, (guint) i + 1);
  return &g_array_index (arr, guint32, i);
}

static G_GNUC_NO_INLINE guint32
cache_index_slow (SimTraceAccount *a, guint64 key)
{
  guint32 ix;
  guint32 *v = cache_direct (a, key);
  if (v)
    {
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
  return ix;
}

/* The index of cache @key, made on first sight: the arrays in line,
 * since every allocation asks. */
static inline guint32
cache_index (SimTraceAccount *a, guint64 key)
{
  /* The arrays only grow for the keys they take (cache_direct). */
  guint32 v = 0;
  if (key < a->ix_by_id->len)
    v = g_array_index (a->ix_by_id, guint32, key);
  else if ((key ^ SIM_ACCOUNT_KEY_SIZE_CLASS) / 8 < a->ix_by_size->len && key % 8 == 0)
    v = g_array_index (a->ix_by_size, guint32, (key ^ SIM_ACCOUNT_KEY_SIZE_CLASS) / 8);
  if (v != 0)
    return v - 1;
  return cache_index_slow (a, key);
}

static inline SimAccountCache *
cache_at (SimTraceAccount *a, guint32 ix)
{
  return &g_array_index (a->caches, SimAccountCache, ix);
}

/* sim_trace_account_event's work, in line in it and in
 * sim_trace_account_slot (which reads only a few of @res's fields: the
 * compiler drops the others' stores there). */
static inline __attribute__ ((always_inline)) void
account_event (SimTraceAccount *a, const SimTraceEvent *ev, SimAccountResult *res)
{
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
sim_trace_account_event (SimTraceAccount *a, const SimTraceEvent *ev, SimAccountResult *res)
{
  SimAccountResult dummy;
  account_event (a, ev, res ? res : &dummy);
}

static G_GNUC_NO_INLINE void
free_slots_grow (SimTraceAccount *a)
{
  a->free_cap = a->free_cap ? 2 * a->free_cap : 1024;
  a->free_slots = g_renew (guint32, a->free_slots, a->free_cap);
}

static inline __attribute__ ((always_inline)) guint32
account_slot (SimTraceAccount *a, const SimTraceEvent *ev)
{
  SimAccountResult res;
  account_event (a, ev, &res);
  if (res.live)
    {
      /* The accounting zeroed a taken-over entry's word: it keeps the old
       * object's slot, which the consumer frees before it reuses it. */
      if (res.implicit)
        {
          guint32 slot = (guint32) res.implicit_old.user;
          res.live->user = slot;
          return slot | SIM_ACCOUNT_SLOT_IMPLICIT;
        }
      guint32 slot;
      if (a->n_free)
        slot = a->free_slots[--a->n_free];
      else
        {
          /* Each live object holds a slot, and each is a 32-byte entry of
           * the map: the host's memory runs out long before the slots. */
          g_assert (a->n_slots < SIM_ACCOUNT_NO_SLOT);
          slot = a->n_slots++;
        }
      res.live->user = slot;
      return slot;
    }
  if (res.free_class == SIM_FREE_SAME_CPU || res.free_class == SIM_FREE_CROSS_CPU)
    {
      if (G_UNLIKELY (a->n_free == a->free_cap))
        free_slots_grow (a);
      a->free_slots[a->n_free++] = (guint32) res.freed.user;
      return (guint32) res.freed.user;
    }
  return SIM_ACCOUNT_NO_SLOT;
}

guint32
sim_trace_account_slot (SimTraceAccount *a, const SimTraceEvent *ev)
{
  return account_slot (a, ev);
}

void
sim_trace_account_slots (SimTraceAccount *a, const SimTraceEvent *ev, guint n, guint32 *slots)
{
  for (guint i = 0; i < n; i++)
    {
      if (i + SIM_ACCOUNT_PREFETCH_AHEAD < n)
        sim_idmap_prefetch (a->live, ev[i + SIM_ACCOUNT_PREFETCH_AHEAD].ptr);
      slots[i] = account_slot (a, &ev[i]);
    }
}

guint32
sim_trace_account_slot_of (SimTraceAccount *a, guint64 ptr)
{
  const SimLiveObject *o = sim_trace_account_lookup (a, ptr);
  return o ? (guint32) o->user : SIM_ACCOUNT_NO_SLOT;
}

guint32
sim_trace_account_n_slots (const SimTraceAccount *a)
{
  return a->n_slots;
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
