/* kmalloc-classes.c - kmalloc size classes and the page-allocator
 * pass-through, by kernel era.
 *
 * Follows kmalloc_index() / get_slab() / kmalloc_slab() and the size_index
 * table (mm/slub.c 2.6.23 and 2.6.34, mm/slab_common.c 6.18), the creation
 * order of kmem_cache_init() / create_kmalloc_caches(), and the kmalloc
 * alignment rules: ARCH_KMALLOC_MINALIGN (8 on x86-64) up to 2.6.34; in
 * 6.18 create_boot_cache() raises it to the largest power of two dividing
 * the size (so kmalloc-96 is 32-aligned, kmalloc-192 64-aligned) and the
 * normal kmalloc caches carry SLAB_NO_MERGE because CONFIG_MEMCG is set in
 * every distribution kernel.
 *
 * Left out: the DMA, reclaimable (kmalloc-rcl-*), cgroup (kmalloc-cg-*) and
 * random (kmalloc-rnd-*) copies, which share the geometry of the normal
 * caches except for their flags; the NUMA "kmem_cache_node" cache that
 * 2.6.x kept at index 0; architectures with KMALLOC_MIN_SIZE above 8.
 */
#include "models/alloc/kmalloc-classes.h"
#include "sim/core/errors.h"

#include <stdlib.h>
#include <string.h>

#define KMALLOC_MIN_SIZE 8u
#define KMALLOC_SHIFT_LOW 3u
#define ARCH_KMALLOC_MINALIGN 8u

/* size_index[(size - 1) / 8] for sizes 1..192 (identical in all three eras
 * with KMALLOC_MIN_SIZE 8). */
static const guint8 size_index[24] = {
  3, 4, 5, 5, 6, 6, 6, 6,      /*   8 ..  64 */
  1, 1, 1, 1, 7, 7, 7, 7,      /*  72 .. 128 */
  2, 2, 2, 2, 2, 2, 2, 2,      /* 136 .. 192 */
};

static guint
fls64_ (guint64 x)
{
  return x ? 64 - (guint) __builtin_clzll (x) : 0;
}

guint
sim_kmalloc_index_size (guint index)
{
  if (index == 1)
    return 96;
  if (index == 2)
    return 192;
  return 1u << index;
}

guint64
sim_kmalloc_max_size (const SimSlubEra *era)
{
  if (!era->kmalloc_passthrough)
    return MIN (1ull << era->kmalloc_shift_high, 1ull << era->kmalloc_shift_max);
  return MIN (1ull << era->kmalloc_shift_max,
              (1ull << era->page_shift) << era->max_page_order);
}

SimKmallocClass
sim_kmalloc_classify (const SimSlubEra *era, guint64 size)
{
  SimKmallocClass c = { SIM_KMALLOC_ZERO, 0, 0, 0 };
  g_return_val_if_fail (era != NULL, c);
  if (size == 0)
    return c;

  guint64 top = 1ull << era->kmalloc_shift_high;
  guint64 max = 1ull << era->kmalloc_shift_max;
  if (size > top)
    {
      guint order = fls64_ ((size - 1) >> era->page_shift);
      if (!era->kmalloc_passthrough || size > max || order > era->max_page_order)
        {
          c.kind = SIM_KMALLOC_FAIL;
          return c;
        }
      c.kind = SIM_KMALLOC_LARGE;
      c.order = order;
      c.bytes = (1ull << era->page_shift) << order;
      return c;
    }
  c.kind = SIM_KMALLOC_CACHE;
  c.index = size <= 192 ? size_index[(size - 1) / 8] : fls64_ (size - 1);
  /* The 96/192 caches exist for KMALLOC_MIN_SIZE 8 in every era; with a
   * larger minimum the kernel patches size_index instead. */
  c.bytes = sim_kmalloc_index_size (c.index);
  return c;
}

char *
sim_kmalloc_cache_name (const SimSlubEra *era, guint index)
{
  guint size = sim_kmalloc_index_size (index);
  if (era->kmalloc_short_names && size >= 1024)
    {
      if (size >= 1024 * 1024)
        return g_strdup_printf ("kmalloc-%uM", size >> 20);
      return g_strdup_printf ("kmalloc-%uk", size >> 10);
    }
  return g_strdup_printf ("kmalloc-%u", size);
}

GArray *
sim_kmalloc_cache_indexes (const SimSlubEra *era)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (guint));
  guint i;
  if (KMALLOC_MIN_SIZE <= era->kmalloc_96_max_min_size)
    {
      i = 1;
      g_array_append_val (a, i);
    }
  if (KMALLOC_MIN_SIZE <= era->kmalloc_192_max_min_size)
    {
      i = 2;
      g_array_append_val (a, i);
    }
  for (i = KMALLOC_SHIFT_LOW; i <= era->kmalloc_shift_high; i++)
    g_array_append_val (a, i);
  return a;
}

void
sim_kmalloc_cache_args (const SimSlubEra *era, guint index, SimSlubCacheArgs *args,
                        char **name_out)
{
  guint size = sim_kmalloc_index_size (index);
  guint align = ARCH_KMALLOC_MINALIGN;
  guint flags = 0;
  if (era->kmalloc_pow2_align)
    {
      /* create_boot_cache(): max(ARCH_KMALLOC_MINALIGN, 1 << (ffs(size) - 1)),
       * then calculate_alignment() as for any cache. */
      align = MAX (align, size & -size);
      align = sim_slub_calculate_alignment (era, SIM_SLUB_KMALLOC, align, size);
      flags |= SIM_SLUB_KMALLOC;
    }
  if (era->kmalloc_unmergeable)
    flags |= SIM_SLUB_NO_MERGE;
  char *name = sim_kmalloc_cache_name (era, index);
  memset (args, 0, sizeof *args);
  args->name = name;
  args->object_size = size;
  args->align = align;
  args->flags = flags;
  *name_out = name;
}

gboolean
sim_kmalloc_create_caches (SimSlubCacheSet *set, GError **error)
{
  g_autoptr (GArray) idx = sim_kmalloc_cache_indexes (set->cfg.era);
  for (guint k = 0; k < idx->len; k++)
    {
      SimSlubCacheArgs args;
      g_autofree char *name = NULL;
      sim_kmalloc_cache_args (set->cfg.era, g_array_index (idx, guint, k), &args, &name);
      /* Boot caches never merge: create_boot_cache() sets refcount -1
       * while the array is built, and kmalloc caches precede all others. */
      SimSlubGeometry geo;
      if (!sim_slub_calculate (&set->cfg, &args, &geo, error))
        return FALSE;
      SimSlubCache *c = g_new0 (SimSlubCache, 1);
      c->name = g_strdup (name);
      c->geo = geo;
      c->refcount = 1;
      c->aliases = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (set->caches, c);
    }
  return TRUE;
}

static const SimKmallocEpoch epochs[] = {
  { "2.6.22", 4u << 20, 0,
    "kmalloc-8 .. kmalloc-4194304; above KMALLOC_MAX_SIZE kmalloc fails" },
  { "2.6.24", 2048, 2048,
    "aadb4bc4a1f9 direct pass-through: size > PAGE_SIZE/2 goes to the page allocator" },
  { "2.6.25", 4096, 4096,
    "kmalloc-4096 back (\"Support 4k kmallocs again\"): size > PAGE_SIZE passes through" },
  { "2.6.30", 8192, 8192,
    "\"Do not pass 8k objects through to the page allocator\": size > 2*PAGE_SIZE passes through" },
  { NULL, 0, 0, NULL }
};

const SimKmallocEpoch *
sim_kmalloc_epochs (void)
{
  return epochs;
}

static gboolean
parse_version (const char *s, guint v[3])
{
  v[0] = v[1] = v[2] = 0;
  g_auto (GStrv) parts = g_strsplit (s, ".", -1);
  guint n = g_strv_length (parts);
  /* "2.6.23.17": the stable number does not move a threshold. */
  if (n < 2 || n > 4)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      guint64 x;
      if (!g_ascii_string_to_unsigned (parts[i], 10, 0, 100000, &x, NULL))
        return FALSE;
      if (i < 3)
        v[i] = (guint) x;
    }
  return TRUE;
}

static int
version_cmp (const guint a[3], const guint b[3])
{
  for (int i = 0; i < 3; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

const SimKmallocEpoch *
sim_kmalloc_epoch_for (const char *kernel, GError **error)
{
  guint v[3], e[3];
  if (kernel == NULL || !parse_version (kernel, v))
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "kernel \"%s\" is not a version (expected e.g. 2.6.27 or 6.18)",
                   kernel ? kernel : "");
      return NULL;
    }
  const SimKmallocEpoch *found = NULL;
  for (const SimKmallocEpoch *ep = epochs; ep->first; ep++)
    {
      parse_version (ep->first, e);
      if (version_cmp (v, e) >= 0)
        found = ep;
    }
  if (found == NULL)
    g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                 "kernel %s predates SLUB (expected 2.6.22 or later)", kernel);
  return found;
}
