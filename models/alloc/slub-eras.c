/* slub-eras.c - the SLUB eras: which kernel each row follows, and the
 * names the model shares across its files (CONFIG_SLUB_STATS counter
 * names, 6.18's stat[] slots, the path table keys).
 *
 * Which kernel.  One row per modelled mm/slub.c (2.6.23, 2.6.33, 2.6.34,
 * 6.18) with the layout facts of that kernel's structures; the comments
 * at each row say which header they come from; 7.0 is the 7.x
 * snapshot slub-7.c follows.  Each row points at its era's ops table
 * (SlubEraOps): the 2.6 eras and 6.18 share the classic paths of slub.c,
 * whose differences these flags choose; 7.x has its own.  The rows of
 * 2.6.34 and 6.18 are in slub-internal.h, so that slub.c can compile its
 * fast paths once more for each of them with the flags as constants (the
 * same code, fewer host instructions).
 */
#include "models/alloc/slub-internal.h"

const SlubEra slub_eras[] = {
  { "2.6.23", SIM_SLUB_2_6_23, TRUE,  TRUE,  FALSE, FALSE, FALSE, FALSE, TRUE,  2, 192, 0,
    PCPU_PACKED, 0, 100, FALSE, &slub_classic_ops },
  /* x86-64 include/linux/slub_def.h with SLUB_DEBUG, NUMA and SMP.
   * kmem_cache_cpu {freelist 0, page 8, node 16, offset 20, objsize 24,
   * stat[] 28}; kmem_cache {flags 0, size 8, objsize 12, offset 16,
   * oo 24 (an unsigned long), local_node 32..95 {list_lock, nr_partial,
   * partial, nr_slabs, total_objects, full}, max, min, allocflags,
   * refcount, ctor, inuse, align, min_partial, name, list, kobj (64
   * bytes), remote_node_defrag_ratio, node[] 240, cpu_slab[]}. */
  { "2.6.33", SIM_SLUB_2_6_33, FALSE, TRUE,  TRUE,  FALSE, FALSE, TRUE,  TRUE,  0, 240, 28,
    PCPU_STATIC_ARRAY, 32, 1000, FALSE, &slub_classic_ops },
  /* kmem_cache_cpu {freelist 0, page 8, node 16, stat[] 20}; kmem_cache
   * {cpu_slab 0, flags 8, size 16, objsize 20, offset 24, oo 32,
   * local_node 40..103, ... as 2.6.33 ..., node[] 248}: the fast path's
   * s->cpu_slab and s->offset share line 0 with local_node.list_lock,
   * nr_partial and the partial list head. */
  SLUB_ERA_ROW_2_6_34,
  SLUB_ERA_ROW_6_18,
  /* mm/slab.h of 7.x: kmem_cache {cpu_sheaves 0, flags 8, min_partial
   * 16, size 24, object_size 28, reciprocal_size 32, offset 40,
   * sheaf_capacity 44, oo 48, ...}, per_node[] {barn, node} after the
   * fixed part (the model keeps 6.18's 256 bytes for it); the counters
   * live in their own per-CPU kmem_cache_stats (stat[] at 0). */
  { "7.0",    SIM_SLUB_7_0,    FALSE, FALSE, FALSE, TRUE,  FALSE, TRUE,  FALSE, 0, 256, 0,
    PCPU_DYNAMIC, 0, 1000, TRUE, &slub_7_ops },
};

const guint slub_n_eras = G_N_ELEMENTS (slub_eras);

const char *const path_keys[N_PATHS] = { SLUB_PATHS (SIM_PATH_KEY_) };

const char *const stat_names[SIM_SLUB_N_STATS] = {
#define SLUB_STAT_NAME(e, n, slot, slot7) n,
  SIM_SLUB_STATS (SLUB_STAT_NAME)
#undef SLUB_STAT_NAME
};

/* Where each counter sits in 6.18's kmem_cache_cpu stat[] array. */
const guint8 stat_slot_618[SIM_SLUB_N_STATS] = {
#define SLUB_STAT_SLOT(e, n, slot, slot7) slot,
  SIM_SLUB_STATS (SLUB_STAT_SLOT)
#undef SLUB_STAT_SLOT
};

const char *
sim_slub_stat_name (SimSlubStat st)
{
  g_return_val_if_fail (st < SIM_SLUB_N_STATS, NULL);
  return stat_names[st];
}

/* enum stat_item of the 7.x mm/slub.c, in its order, and each counter's
 * slot there (0xff: none). */
const SimSlubStat slub_stats_7[] = {
  SIM_SLUB_ALLOC_FASTPATH, SIM_SLUB_ALLOC_SLOWPATH, SIM_SLUB_FREE_RCU_SHEAF,
  SIM_SLUB_FREE_RCU_SHEAF_FAIL, SIM_SLUB_FREE_FASTPATH, SIM_SLUB_FREE_SLOWPATH,
  SIM_SLUB_FREE_ADD_PARTIAL, SIM_SLUB_FREE_REMOVE_PARTIAL, SIM_SLUB_ALLOC_SLAB,
  SIM_SLUB_ALLOC_NODE_MISMATCH, SIM_SLUB_FREE_SLAB, SIM_SLUB_ORDER_FALLBACK,
  SIM_SLUB_CMPXCHG_DOUBLE_FAIL, SIM_SLUB_SHEAF_FLUSH, SIM_SLUB_SHEAF_REFILL,
  SIM_SLUB_SHEAF_ALLOC, SIM_SLUB_SHEAF_FREE, SIM_SLUB_BARN_GET, SIM_SLUB_BARN_GET_FAIL,
  SIM_SLUB_BARN_PUT, SIM_SLUB_BARN_PUT_FAIL, SIM_SLUB_SHEAF_PREFILL_FAST,
  SIM_SLUB_SHEAF_PREFILL_SLOW, SIM_SLUB_SHEAF_PREFILL_OVERSIZE, SIM_SLUB_SHEAF_RETURN_FAST,
  SIM_SLUB_SHEAF_RETURN_SLOW,
};
const guint slub_n_stats_7 = G_N_ELEMENTS (slub_stats_7);

const guint8 stat_slot_7[SIM_SLUB_N_STATS] = {
#define SLUB_STAT_SLOT7(e, n, slot, slot7) slot7,
  SIM_SLUB_STATS (SLUB_STAT_SLOT7)
#undef SLUB_STAT_SLOT7
};

/* The 7.x sysfs names in that order, from the one list of names. */
const char *const *
slub_stat_names_7 (void)
{
  static const char *names[G_N_ELEMENTS (slub_stats_7)];
  static gsize done;
  if (g_once_init_enter (&done))
    {
      for (guint k = 0; k < G_N_ELEMENTS (slub_stats_7); k++)
        names[k] = stat_names[slub_stats_7[k]];
      g_once_init_leave (&done, 1);
    }
  return names;
}
