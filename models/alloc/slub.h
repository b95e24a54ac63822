/* slub.h - the SLUB model's interface (models/alloc/slub*.c; slub-internal.h says which file holds what).
 *
 * The run driver reaches it through its SimAllocOps table; tests call the
 * functions below directly to drive single paths.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc.h"
#include "models/alloc/alloc-spec.h"
#include "models/alloc/slub-size.h"

G_BEGIN_DECLS

typedef enum {
  SIM_SLUB_2_6_23,
  SIM_SLUB_2_6_33,
  SIM_SLUB_2_6_34,
  SIM_SLUB_6_18,
  SIM_SLUB_7_0,                   /* slub@7.0, also slub@7.x: sheaves for every cache */
} SimSlubEraId;

/* CONFIG_SLUB_STATS counters: the kernel's enum stat_item, its sysfs file
 * name, its index in 6.18's enum (the slot of the counter in 6.18's
 * kmem_cache_cpu stat[] array, which puts ALLOC_PCS, FREE_PCS and the
 * rcu_free counters among the classic ones), and its index in 7.x's enum
 * (0xff: not a 7.x counter; 7.x reorders the list, drops the cpu slab
 * ones, and counts sheaf hits as ALLOC_FASTPATH / FREE_FASTPATH).  The classic counters come
 * first so that the older eras, which have only those, report a prefix of
 * the list; the 6.18-only counters of the sheaves follow. */
#define SIM_SLUB_STATS(X)                                        \
  X (ALLOC_FASTPATH,          "alloc_fastpath",           1,    0)    \
  X (ALLOC_SLOWPATH,          "alloc_slowpath",           2,    1)    \
  X (FREE_FASTPATH,           "free_fastpath",            6,    4)    \
  X (FREE_SLOWPATH,           "free_slowpath",            7,    5)    \
  X (FREE_FROZEN,             "free_frozen",              8, 0xff)    \
  X (FREE_ADD_PARTIAL,        "free_add_partial",         9,    6)    \
  X (FREE_REMOVE_PARTIAL,     "free_remove_partial",     10,    7)    \
  X (ALLOC_FROM_PARTIAL,      "alloc_from_partial",      11, 0xff)    \
  X (ALLOC_SLAB,              "alloc_slab",              12,    8)    \
  X (ALLOC_REFILL,            "alloc_refill",            13, 0xff)    \
  X (ALLOC_NODE_MISMATCH,     "alloc_node_mismatch",     14,    9)    \
  X (FREE_SLAB,               "free_slab",               15,   10)    \
  X (CPUSLAB_FLUSH,           "cpuslab_flush",           16, 0xff)    \
  X (DEACTIVATE_FULL,         "deactivate_full",         17, 0xff)    \
  X (DEACTIVATE_EMPTY,        "deactivate_empty",        18, 0xff)    \
  X (DEACTIVATE_TO_HEAD,      "deactivate_to_head",      19, 0xff)    \
  X (DEACTIVATE_TO_TAIL,      "deactivate_to_tail",      20, 0xff)    \
  X (DEACTIVATE_REMOTE_FREES, "deactivate_remote_frees", 21, 0xff)    \
  X (DEACTIVATE_BYPASS,       "deactivate_bypass",       22, 0xff)    \
  X (ORDER_FALLBACK,          "order_fallback",          23,   11)    \
  X (CMPXCHG_DOUBLE_CPU_FAIL, "cmpxchg_double_cpu_fail", 24, 0xff)    \
  X (CMPXCHG_DOUBLE_FAIL,     "cmpxchg_double_fail",     25,   12)    \
  X (CPU_PARTIAL_ALLOC,       "cpu_partial_alloc",       26, 0xff)    \
  X (CPU_PARTIAL_FREE,        "cpu_partial_free",        27, 0xff)    \
  X (CPU_PARTIAL_NODE,        "cpu_partial_node",        28, 0xff)    \
  X (CPU_PARTIAL_DRAIN,       "cpu_partial_drain",       29, 0xff)    \
  X (ALLOC_PCS,               "alloc_cpu_sheaf",          0, 0xff)    \
  X (FREE_PCS,                "free_cpu_sheaf",           3, 0xff)    \
  X (FREE_RCU_SHEAF,          "free_rcu_sheaf",           4,    2)    \
  X (FREE_RCU_SHEAF_FAIL,     "free_rcu_sheaf_fail",      5,    3)    \
  X (SHEAF_FLUSH,             "sheaf_flush",             30,   13)    \
  X (SHEAF_REFILL,            "sheaf_refill",            31,   14)    \
  X (SHEAF_ALLOC,             "sheaf_alloc",             32,   15)    \
  X (SHEAF_FREE,              "sheaf_free",              33,   16)    \
  X (BARN_GET,                "barn_get",                34,   17)    \
  X (BARN_GET_FAIL,           "barn_get_fail",           35,   18)    \
  X (BARN_PUT,                "barn_put",                36,   19)    \
  X (BARN_PUT_FAIL,           "barn_put_fail",           37,   20)    \
  X (SHEAF_PREFILL_FAST,      "sheaf_prefill_fast",      38,   21)    \
  X (SHEAF_PREFILL_SLOW,      "sheaf_prefill_slow",      39,   22)    \
  X (SHEAF_PREFILL_OVERSIZE,  "sheaf_prefill_oversize",  40,   23)    \
  X (SHEAF_RETURN_FAST,       "sheaf_return_fast",       41,   24)    \
  X (SHEAF_RETURN_SLOW,       "sheaf_return_slow",       42,   25)

typedef enum {
#define SIM_SLUB_STAT_ENUM(e, n, slot, slot7) SIM_SLUB_##e,
  SIM_SLUB_STATS (SIM_SLUB_STAT_ENUM)
#undef SIM_SLUB_STAT_ENUM
  SIM_SLUB_N_STATS
} SimSlubStat;

/* The counters every era reports; 6.18 reports all SIM_SLUB_N_STATS. */
#define SIM_SLUB_N_CLASSIC_STATS SIM_SLUB_ALLOC_PCS

const char *sim_slub_stat_name (SimSlubStat st);

/* Parameters beyond the kernel's boot parameters (those are parsed by
 * slub-size.c): pass_through=off|BYTES, cpu_partial=N, min_partial=N,
 * slub_stats=0|1, and the sim_ knobs below. */
typedef struct {
  gint64   pass_through;         /* -1 = the era's rule, 0 = never, else bytes */
  gint     cpu_partial;          /* -1 = computed */
  gint     min_partial;          /* -1 = computed */
  gboolean stats;                /* CONFIG_SLUB_STATS: counters cost memory traffic */
  /* Simulator knobs for design reviews (not kernel parameters; their
   * names start with sim_): sim_sheaf_capacity=N or =CACHE:N+CACHE:N,
   * sim_barn_max_full=N, sim_barn_max_empty=N. */
  gint     sheaf_capacity;       /* -1 = the kernel's rule; else every sheaf cache's */
  GHashTable *sheaf_capacity_of; /* cache name -> capacity; NULL = none given */
  guint    barn_max_full;        /* MAX_FULL_SHEAVES unless sim_barn_max_full */
  guint    barn_max_empty;       /* MAX_EMPTY_SHEAVES unless sim_barn_max_empty */
} SimSlubExtras;

typedef struct SimSlub SimSlub;

/* "slub@2.6.34:slub_max_order=3,..." already split by alloc-spec.c. */
SimSlub   *sim_slub_new        (const SimAllocSpec *spec, const SimAllocEnv *env,
                                GError **error);
void       sim_slub_free_model (SimSlub *m);

/* kmem_cache_create; merging by the era's rules may return an existing
 * cache's id.  @op pays for the kernel's setup accesses. */
SimCacheId sim_slub_cache_create (SimSlub *m, SimOp *op, const SimCacheSpec *spec,
                                  GError **error);
/* The kmalloc cache serving @size, or SIM_CACHE_NONE for pass-through. */
SimCacheId sim_slub_kmalloc_cache (SimSlub *m, gsize size, guint32 gfp);
const SimAllocOps *sim_alloc_slub_ops (void);

SimAddr    sim_slub_cache_alloc (SimSlub *m, SimOp *op, SimCacheId id, gint node,
                                 guint32 gfp);
/* The largest kmalloc @m serves (sim_kmalloc_max_size of its era). */
guint64    sim_slub_kmalloc_max (SimSlub *m);
SimAddr    sim_slub_kmalloc     (SimSlub *m, SimOp *op, gsize size, gint node,
                                 guint32 gfp);
/* kfree / kmem_cache_free; FALSE if @addr is not a live object. */
gboolean   sim_slub_free        (SimSlub *m, SimOp *op, SimAddr addr);
/* kmem_cache_free of @addr (the cache is the caller's): see the model's essay. */
gboolean   sim_slub_cache_free (SimSlub *m, SimOp *op, SimAddr addr);
/* kfree_rcu (kvfree_call_rcu): into the CPU's rcu_free sheaf for a cache
 * with sheaves (slub-rcu.c), else freed after a grace period of
 * env->rcu; FALSE if @addr is not the model's. */
gboolean   sim_slub_kfree_rcu  (SimSlub *m, SimOp *op, SimAddr addr);
/* flush_all: deactivate every CPU's slab (and 6.18's cpu partials). */
void       sim_slub_flush_all   (SimSlub *m, SimOp *op);

/* Introspection for reports and tests. */
guint      sim_slub_n_caches    (const SimSlub *m);
typedef struct {
  const char *name;
  const char *const *aliases;      /* NULL-terminated; may be empty */
  SimSlubGeometry g;
  guint64 slabs;
  guint64 partial_slabs;           /* on node partial lists */
  guint64 cpu_slabs;               /* installed as cpu slabs */
  guint64 cpu_partial_slabs;
  guint64 total_objects;
  guint64 live_objects;            /* handed out and not freed */
  guint32 sheaf_capacity;          /* 6.18 sheaves; 0 = none */
  guint64 sheaf_objects;           /* objects held in main, spare and barn sheaves */
  guint64 rcu_sheaf_objects;       /* in rcu_free sheaves: filling, or waiting for a grace period */
  guint64 barn_full, barn_empty;   /* sheaves in the barns, all nodes */
  guint64 stat[SIM_SLUB_N_STATS];
} SimSlubCacheInfo;
void       sim_slub_cache_info  (const SimSlub *m, SimCacheId id, SimSlubCacheInfo *out);
/* Free the strings in @info (aliases). */
void       sim_slub_cache_info_clear (SimSlubCacheInfo *info);
gboolean   sim_slub_check       (const SimSlub *m, GError **error);
guint64    sim_slub_large_pages (const SimSlub *m);

/* The parameters a slub spec for era @kernel accepts (NULL-terminated,
 * g_strfreev; NULL for an unknown era): the ops table's param_names. */
char **sim_alloc_slub_param_names (const char *kernel);

G_END_DECLS
