/* kmalloc-classes.h - kmalloc size classes and the large-kmalloc
 * pass-through, by kernel era.
 *
 * kmalloc(size) picks a cache by index: index 1 is kmalloc-96, index 2
 * kmalloc-192, index i >= 3 is kmalloc-(1 << i).  Sizes up to 192 go
 * through the size_index table (so 65..96 land in kmalloc-96), larger ones
 * through fls(size - 1).  Above the largest cache a request either goes to
 * the page allocator (2.6.24+) or fails (2.6.23 above KMALLOC_MAX_SIZE).
 */
#pragma once

#include <glib.h>
#include "models/alloc/slub-size.h"

G_BEGIN_DECLS

typedef enum {
  SIM_KMALLOC_ZERO,    /* size 0: ZERO_SIZE_PTR, no memory */
  SIM_KMALLOC_CACHE,   /* served by a kmalloc cache */
  SIM_KMALLOC_LARGE,   /* passed through to the page allocator */
  SIM_KMALLOC_FAIL,    /* larger than the kernel can serve: NULL */
} SimKmallocKind;

typedef struct {
  SimKmallocKind kind;
  guint index;         /* kmalloc_caches[] index (SIM_KMALLOC_CACHE) */
  guint64 bytes;       /* bytes_alloc: cache object size, or PAGE_SIZE << order */
  guint order;         /* page order of a large kmalloc */
} SimKmallocClass;

/* Where kmalloc(@size) goes in @era (x86-64, KMALLOC_MIN_SIZE 8). */
SimKmallocClass sim_kmalloc_classify (const SimSlubEra *era, guint64 size);
/* The largest size kmalloc serves in @era: the largest cache without the
 * pass-through (2.6.23: KMALLOC_MAX_SIZE = 1 << KMALLOC_SHIFT_HIGH), else
 * the smaller of KMALLOC_MAX_SIZE and the largest page-allocator block
 * (PAGE_SIZE << MAX_ORDER-1, MAX_PAGE_ORDER in 6.x): 4 MiB in every era on
 * x86-64.  sim_kmalloc_classify() says SIM_KMALLOC_FAIL exactly above it. */
guint64 sim_kmalloc_max_size (const SimSlubEra *era);
/* Object size of kmalloc cache @index (1 -> 96, 2 -> 192, i -> 1 << i). */
guint sim_kmalloc_index_size (guint index);
/* The cache's name in @era: "kmalloc-1024" (2.6.x) or "kmalloc-1k" (4.20+). */
char *sim_kmalloc_cache_name (const SimSlubEra *era, guint index);
/* The indexes of @era's kmalloc caches in creation order (96, 192, 8, 16...). */
GArray *sim_kmalloc_cache_indexes (const SimSlubEra *era);
/* kmem_cache_create() arguments the kernel uses for kmalloc cache @index;
 * @name_out receives the name (free with g_free). */
void sim_kmalloc_cache_args (const SimSlubEra *era, guint index,
                             SimSlubCacheArgs *args, char **name_out);
/* Create @era's kmalloc caches in @set in the kernel's order. */
gboolean sim_kmalloc_create_caches (SimSlubCacheSet *set, GError **error);

/* The pass-through timeline: for each kernel range, the largest kmalloc
 * cache and the size above which kmalloc goes to the page allocator
 * (0 = never). */
typedef struct {
  const char *first;          /* first kernel of the range, "2.6.24" */
  guint64 largest_cache;
  guint64 passthrough_above;  /* 0 = no pass-through */
  const char *note;
} SimKmallocEpoch;

const SimKmallocEpoch *sim_kmalloc_epochs (void);   /* NULL-terminated */
/* The epoch covering @kernel ("2.6.27"); errors for unparsable versions
 * and kernels before SLUB (2.6.22). */
const SimKmallocEpoch *sim_kmalloc_epoch_for (const char *kernel, GError **error);

G_END_DECLS
