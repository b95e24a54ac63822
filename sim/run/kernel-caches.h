/* kernel-caches.h - how the kernel creates the caches traces name.
 *
 * A trace names a cache (name=skbuff_head_cache) and gives its object size
 * (bytes_req of kmem_cache_alloc is s->object_size) but not the flags it
 * was created with, which change its geometry (SLAB_HWCACHE_ALIGN) and
 * whether it may be merged (a constructor, SLAB_TYPESAFE_BY_RCU).  This
 * table gives the flags of the caches real traces contain, read from the
 * kmem_cache_create() calls of the kernel; docs/models/kernel-caches.md
 * lists them with their sources.  A cache not in the table is created
 * with no flags and the trace's object size.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc.h"

G_BEGIN_DECLS

typedef struct {
  const char *name;
  guint32     align;       /* requested alignment (0 = none) */
  guint32     flags;       /* SIM_SLAB_* */
  const char *created_in;  /* the kernel function that creates it */
  guint32     sheaf_capacity; /* kmem_cache_args.sheaf_capacity in 6.18 (0 = none) */
  /* How the recording kernel frees the objects it frees with no kmem
   * tracepoint (sim/run/untraced.h): SIM_KC_UNTRACED_MAPLE_TREE for the
   * nodes of the mm maple tree (kfree_rcu while the mm lives, a bulk free
   * when its tree is destroyed), 0 when unknown. */
  guint32     untraced_free;
} SimKernelCache;

enum { SIM_KC_UNTRACED_UNKNOWN = 0, SIM_KC_UNTRACED_MAPLE_TREE = 1 };

/* The entry for @name, or NULL. */
const SimKernelCache *sim_kernel_cache_lookup (const char *name);
const SimKernelCache *sim_kernel_caches (guint *n);

G_END_DECLS
