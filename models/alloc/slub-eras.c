/* slub-eras.c - the SLUB eras: which kernel each row follows, and the
 * names the model shares across its files (CONFIG_SLUB_STATS counter
 * names, 6.18's stat[] slots, the path table keys).
 *
 * Which kernel.  One row per modelled mm/slub.c (2.6.23, 2.6.33, 2.6.34,
 * 6.18) with the layout facts of that kernel's structures; the comments
 * at each row say which header they come from.  What differs between
 * eras in code (the slow paths) is chosen by these flags in slub.c and
 * slub-node.c.
 */
#include "models/alloc/slub-internal.h"

const SlubEra slub_eras[] = {
  { "2.6.23", SIM_SLUB_2_6_23, TRUE,  TRUE,  FALSE, FALSE, FALSE, FALSE, TRUE,  2, 192, 0,
    PCPU_PACKED, 0, 100 },
  /* x86-64 include/linux/slub_def.h with SLUB_DEBUG, NUMA and SMP.
   * kmem_cache_cpu {freelist 0, page 8, node 16, offset 20, objsize 24,
   * stat[] 28}; kmem_cache {flags 0, size 8, objsize 12, offset 16,
   * oo 24 (an unsigned long), local_node 32..95 {list_lock, nr_partial,
   * partial, nr_slabs, total_objects, full}, max, min, allocflags,
   * refcount, ctor, inuse, align, min_partial, name, list, kobj (64
   * bytes), remote_node_defrag_ratio, node[] 240, cpu_slab[]}. */
  { "2.6.33", SIM_SLUB_2_6_33, FALSE, TRUE,  TRUE,  FALSE, FALSE, TRUE,  TRUE,  0, 240, 28,
    PCPU_STATIC_ARRAY, 32, 1000 },
  /* kmem_cache_cpu {freelist 0, page 8, node 16, stat[] 20}; kmem_cache
   * {cpu_slab 0, flags 8, size 16, objsize 20, offset 24, oo 32,
   * local_node 40..103, ... as 2.6.33 ..., node[] 248}: the fast path's
   * s->cpu_slab and s->offset share line 0 with local_node.list_lock,
   * nr_partial and the partial list head. */
  { "2.6.34", SIM_SLUB_2_6_34, FALSE, FALSE, FALSE, FALSE, FALSE, TRUE,  TRUE,  0, 248, 20,
    PCPU_KMALLOC_STATIC, 40, 1000 },
  { "6.18",   SIM_SLUB_6_18,   FALSE, FALSE, FALSE, TRUE,  TRUE,  TRUE,  FALSE, 0, 256, 48,
    PCPU_DYNAMIC, 0, 1000 },
};

const guint slub_n_eras = G_N_ELEMENTS (slub_eras);

const char *const path_keys[N_PATHS] = { SLUB_PATHS (SIM_PATH_KEY_) };

const char *const stat_names[SIM_SLUB_N_STATS] = {
#define SLUB_STAT_NAME(e, n, slot) n,
  SIM_SLUB_STATS (SLUB_STAT_NAME)
#undef SLUB_STAT_NAME
};

/* Where each counter sits in 6.18's kmem_cache_cpu stat[] array. */
const guint8 stat_slot_618[SIM_SLUB_N_STATS] = {
#define SLUB_STAT_SLOT(e, n, slot) slot,
  SIM_SLUB_STATS (SLUB_STAT_SLOT)
#undef SLUB_STAT_SLOT
};

const char *
sim_slub_stat_name (SimSlubStat st)
{
  g_return_val_if_fail (st < SIM_SLUB_N_STATS, NULL);
  return stat_names[st];
}
