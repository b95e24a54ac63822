/* idmap.c - the 64-bit-id map; the layout and why are in idmap.h. */
#include "sim/core/idmap.h"
#include "sim/core/hostmem.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SLOTS 16

/* Copy entry @src to @dst: the common sizes without a call to memcpy. */
static inline void
copy_entry (const SimIdMap *m, guint64 *dst, const guint64 *src)
{
  if (m->esize == 16)
    {
      dst[0] = src[0];
      dst[1] = src[1];
    }
  else if (m->esize == 32)
    {
      dst[0] = src[0];
      dst[1] = src[1];
      dst[2] = src[2];
      dst[3] = src[3];
    }
  else
    memcpy (dst, src, m->esize);
}

static void
alloc_slots (SimIdMap *m, guint64 n)
{
  /* n and esize are powers of two below 2^40 and 2^9 (no overflow); a
   * long trace's maps are megabytes probed at random (hostmem.h). */
  m->slots = sim_hostmem_alloc0 (n * m->esize);
  m->mask = n - 1;
  m->shift = 64 - (guint) g_bit_storage (n - 1);
  m->count = 0;
}

SimIdMap *
sim_idmap_new (gsize entry_size, guint64 expected)
{
  g_return_val_if_fail (entry_size >= 8 && entry_size <= 256
                        && (entry_size & (entry_size - 1)) == 0, NULL);
  SimIdMap *m = g_new0 (SimIdMap, 1);
  m->esize = (guint32) entry_size;
  m->eshift = (guint32) g_bit_storage (entry_size) - 1;
  guint64 n = MIN_SLOTS;
  while (n / 4 * 3 < expected)
    n *= 2;
  m->min_slots = n;
  alloc_slots (m, n);
  m->zero = g_malloc0 (entry_size);
  return m;
}

void
sim_idmap_free (SimIdMap *m)
{
  if (m == NULL)
    return;
  sim_hostmem_free (m->slots);
  g_free (m->zero);
  g_free (m);
}

/* Move every entry into a fresh array of @n slots. */
static void
resize (SimIdMap *m, guint64 n)
{
  guint8 *old = m->slots;
  guint64 old_n = m->mask + 1, count = m->count;
  alloc_slots (m, n);
  for (guint64 i = 0; i < old_n; i++)
    {
      const guint64 *e = (const guint64 *) (gconstpointer) (old + (i << m->eshift));
      if (*e == 0)
        continue;
      guint64 j = sim_idmap_home_ (m, *e);
      while (*sim_idmap_slot_ (m, j) != 0)
        j = (j + 1) & m->mask;
      copy_entry (m, sim_idmap_slot_ (m, j), e);
    }
  m->count = count;
  sim_hostmem_free (old);
}

/* Key 0, or a new key when the array is full enough to grow: the inline
 * sim_idmap_insert found no entry of @key (the probe is made again here,
 * after the resize). */
gpointer
sim_idmap_insert_slow_ (SimIdMap *m, guint64 key, gboolean *existed)
{
  if (key == 0)
    {
      if (existed)
        *existed = m->has_zero;
      if (!m->has_zero)
        {
          memset (m->zero, 0, m->esize);
          m->has_zero = TRUE;
        }
      return m->zero;
    }
  if (existed)
    *existed = FALSE;
  if ((m->count + 1) * 4 > (m->mask + 1) * 3)
    resize (m, (m->mask + 1) * 2);
  guint64 i = sim_idmap_home_ (m, key);
  while (*sim_idmap_slot_ (m, i) != 0)
    i = (i + 1) & m->mask;
  guint64 *e = sim_idmap_slot_ (m, i);
  sim_idmap_clear_payload_ (m, e);
  *e = key;
  m->count++;
  return e;
}

void
sim_idmap_remove_entry (SimIdMap *m, gpointer entry)
{
  if (entry == (gpointer) m->zero)
    {
      m->has_zero = FALSE;
      return;
    }
  guint64 i = (guint64) ((guint8 *) entry - m->slots) >> m->eshift;
  /* Backward shift: walk the rest of the probe run and pull back into the
   * hole every entry whose home is not cyclically inside (hole, j]; such an
   * entry's probe from home passed the hole, so it must not be left behind
   * an empty slot. */
  for (guint64 j = (i + 1) & m->mask;; j = (j + 1) & m->mask)
    {
      guint64 *e = sim_idmap_slot_ (m, j);
      if (*e == 0)
        break;
      guint64 home = sim_idmap_home_ (m, *e);
      if (((j - home) & m->mask) >= ((j - i) & m->mask))
        {
          copy_entry (m, sim_idmap_slot_ (m, i), e);
          i = j;
        }
    }
  *sim_idmap_slot_ (m, i) = 0;
  m->count--;
  if (m->mask + 1 > m->min_slots && m->count * 8 < m->mask + 1)
    resize (m, (m->mask + 1) / 2);
}

gboolean
sim_idmap_remove (SimIdMap *m, guint64 key, gpointer out)
{
  gpointer e = sim_idmap_lookup (m, key);
  if (e == NULL)
    return FALSE;
  if (out)
    memcpy (out, e, m->esize);
  sim_idmap_remove_entry (m, e);
  return TRUE;
}

void
sim_idmap_clear (SimIdMap *m)
{
  sim_hostmem_free (m->slots);
  alloc_slots (m, m->min_slots);
  m->has_zero = FALSE;
}

gpointer
sim_idmap_next (const SimIdMap *m, guint64 *cursor)
{
  /* Cursor 0 is key 0's entry, then slot c - 1. */
  if (*cursor == 0)
    {
      (*cursor)++;
      if (m->has_zero)
        return m->zero;
    }
  for (; *cursor <= m->mask + 1; (*cursor)++)
    {
      guint64 *e = sim_idmap_slot_ (m, *cursor - 1);
      if (*e != 0)
        {
          (*cursor)++;
          return e;
        }
    }
  return NULL;
}

static gint
by_key (gconstpointer a, gconstpointer b)
{
  guint64 x = **(const guint64 *const *) a, y = **(const guint64 *const *) b;
  return x < y ? -1 : x > y;
}

GPtrArray *
sim_idmap_sorted (const SimIdMap *m)
{
  GPtrArray *a = g_ptr_array_sized_new ((guint) sim_idmap_size (m));
  guint64 cur = 0;
  for (gpointer e; (e = sim_idmap_next (m, &cur)) != NULL;)
    g_ptr_array_add (a, e);
  g_ptr_array_sort (a, by_key);
  return a;
}
