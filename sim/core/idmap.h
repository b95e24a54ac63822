/* idmap.h - a compact map keyed by a 64-bit id (a pointer, a pfn, a
 * string id), for the replay's per-event lookups.
 *
 * Why not GHashTable: the replay looks up or changes a map on almost every
 * trace event (the live object of a free, the model's slab of an address,
 * a trace page, a kmalloc size's cache), and GHashTable was 6-7 % of
 * `slabsim run` on the bundled hackbench trace and more on 16-CPU traces
 * (perf, docs/performance.md "Issue 12: one map for the live objects").
 * Each GHashTable lookup is an indirect call to the hash function, a
 * probe of its hash array, a second array for the keys and a third for the
 * values (three cache lines), an indirect call to the equality function
 * for 64-bit keys (which are themselves g_new'd, one allocation an entry),
 * and its removal leaves tombstones that it cleans up by rehashing.  Here
 * an entry is one record in one array: the 64-bit key first, the caller's
 * payload after it (SimIdPair's value, or a whole struct such as the
 * accounting's SimLiveObject), so a lookup is one multiply, usually one
 * cache line, and a compare, inlined into the caller.
 *
 * The layout: open addressing with linear probing; the home slot of a key
 * is the top bits of key * 2^64/phi (Fibonacci hashing: consecutive pfns
 * and 64-byte-aligned pointers spread evenly).  Key 0 marks an empty slot,
 * so the one entry of key 0, if any, lives beside the array.  Deletion
 * shifts the later members of the probe run back into the hole (no
 * tombstones), so probe runs stay as short as the load allows however
 * many objects a long trace makes and frees.  The array doubles past 3/4
 * full and halves below 1/8 full (never below its first size), so memory
 * follows the live entries, not the trace's length.
 *
 * Rules for callers: an entry pointer (from lookup or insert) is valid
 * until the next insert or remove on the map.  Iteration visits entries in
 * slot order, which depends on the keys and on the history of the map:
 * never let it reach output; sort (sim_idmap_sorted) where order matters.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint8  *slots;         /* (mask + 1) * esize bytes; key 0 = empty */
  guint64  mask;          /* slots - 1, a power of two minus one */
  guint    shift;         /* 64 - log2 (slots) */
  guint32  esize;         /* bytes an entry, the guint64 key first */
  guint32  eshift;        /* log2 (esize) */
  guint64  count;         /* entries in the array (key 0's not included) */
  guint64  min_slots;     /* never shrink below this */
  gboolean has_zero;      /* the entry of key 0 exists */
  guint8  *zero;          /* its record, esize bytes */
} SimIdMap;

/* The common entry: an id and one 64-bit value. */
typedef struct {
  guint64 key;
  guint64 value;
} SimIdPair;

/* A map of @entry_size-byte entries (a power of two from 8 to 256: the
 * guint64 key first, then the payload, padded); room for @expected
 * entries before it grows. */
SimIdMap *sim_idmap_new (gsize entry_size, guint64 expected);
void sim_idmap_free (SimIdMap *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimIdMap, sim_idmap_free)

static inline guint64
sim_idmap_home_ (const SimIdMap *m, guint64 key)
{
  return (key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> m->shift;
}

static inline guint64 *
sim_idmap_slot_ (const SimIdMap *m, guint64 i)
{
  return (guint64 *) (gpointer) (m->slots + (i << m->eshift));
}

/* The entry of @key, or NULL. */
static inline gpointer
sim_idmap_lookup (const SimIdMap *m, guint64 key)
{
  if (G_UNLIKELY (key == 0))
    return m->has_zero ? m->zero : NULL;
  for (guint64 i = sim_idmap_home_ (m, key);; i = (i + 1) & m->mask)
    {
      guint64 *e = sim_idmap_slot_ (m, i);
      if (*e == key)
        return e;
      if (*e == 0)
        return NULL;
    }
}

/* Ask the host to load @key's home slot: a caller that knows which keys
 * it will look up a few events from now hides the load's latency behind
 * the work between.  On long traces the maps of live objects are far
 * larger than the host's caches and their probes are random, so that
 * first load is a miss to host memory; a hint, with no effect on any
 * result (a prefetch never faults, and the slot may have moved by then). */
static inline void
sim_idmap_prefetch (const SimIdMap *m, guint64 key)
{
  __builtin_prefetch (sim_idmap_slot_ (m, sim_idmap_home_ (m, key)));
}

static inline gboolean
sim_idmap_contains (const SimIdMap *m, guint64 key)
{
  return sim_idmap_lookup (m, key) != NULL;
}

/* Zero the payload of entry @e (the key is set by the caller): the common
 * sizes without a call to memset. */
static inline void
sim_idmap_clear_payload_ (const SimIdMap *m, guint64 *e)
{
  if (m->esize == 16)
    e[1] = 0;
  else if (m->esize == 32)
    e[1] = e[2] = e[3] = 0;
  else
    for (guint32 w = 1; w < m->esize / 8; w++)
      e[w] = 0;
}

/* sim_idmap_insert when key 0 or the array must grow first. */
gpointer sim_idmap_insert_slow_ (SimIdMap *m, guint64 key, gboolean *existed);

/* The entry of @key, made (zero-filled after the key) if it was not there;
 * *@existed (may be NULL) says which.  In line: one probe finds the entry
 * or the empty slot it goes to (the replay and the pre-pass insert on
 * almost every event). */
static inline gpointer
sim_idmap_insert (SimIdMap *m, guint64 key, gboolean *existed)
{
  if (G_LIKELY (key != 0))
    for (guint64 i = sim_idmap_home_ (m, key);; i = (i + 1) & m->mask)
      {
        guint64 *e = sim_idmap_slot_ (m, i);
        if (*e == key)
          {
            if (existed)
              *existed = TRUE;
            return e;
          }
        if (*e == 0)
          {
            if (G_UNLIKELY ((m->count + 1) * 4 > (m->mask + 1) * 3))
              break;
            if (existed)
              *existed = FALSE;
            sim_idmap_clear_payload_ (m, e);
            *e = key;
            m->count++;
            return e;
          }
      }
  return sim_idmap_insert_slow_ (m, key, existed);
}
/* Remove @key's entry, copying it to @out (esize bytes, may be NULL) first;
 * FALSE if there was none. */
gboolean sim_idmap_remove (SimIdMap *m, guint64 key, gpointer out);
/* Remove the entry @e that lookup or insert just returned. */
void sim_idmap_remove_entry (SimIdMap *m, gpointer e);
void sim_idmap_clear (SimIdMap *m);

static inline guint64
sim_idmap_size (const SimIdMap *m)
{
  return m->count + (m->has_zero ? 1 : 0);
}

/* Iteration in slot order (see above): *@cursor starts at 0; returns the
 * next entry or NULL at the end.  The map must not change meanwhile. */
gpointer sim_idmap_next (const SimIdMap *m, guint64 *cursor);
/* The entries' pointers sorted by key (free with g_ptr_array_unref). */
GPtrArray *sim_idmap_sorted (const SimIdMap *m);

/* SimIdPair maps: the value of @key, or @missing. */
static inline guint64
sim_idmap_get (const SimIdMap *m, guint64 key, guint64 missing)
{
  const SimIdPair *p = sim_idmap_lookup (m, key);
  return p ? p->value : missing;
}

/* Set @key's value (inserting or replacing). */
static inline void
sim_idmap_set (SimIdMap *m, guint64 key, guint64 value)
{
  SimIdPair *p = sim_idmap_insert (m, key, NULL);
  p->value = value;
}

/* Remove @key, its value in *@value (may be NULL); FALSE if absent. */
static inline gboolean
sim_idmap_take (SimIdMap *m, guint64 key, guint64 *value)
{
  SimIdPair *p = sim_idmap_lookup (m, key);
  if (p == NULL)
    return FALSE;
  if (value)
    *value = p->value;
  sim_idmap_remove_entry (m, p);
  return TRUE;
}

G_END_DECLS
