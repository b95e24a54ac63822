/* slub.h - the SLUB model's interface (models/alloc/slub.c).
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
} SimSlubEraId;

/* CONFIG_SLUB_STATS counters, with their sysfs file names. */
#define SIM_SLUB_STATS(X)                                    \
  X (ALLOC_FASTPATH,          "alloc_fastpath")              \
  X (ALLOC_SLOWPATH,          "alloc_slowpath")              \
  X (FREE_FASTPATH,           "free_fastpath")               \
  X (FREE_SLOWPATH,           "free_slowpath")               \
  X (FREE_FROZEN,             "free_frozen")                 \
  X (FREE_ADD_PARTIAL,        "free_add_partial")            \
  X (FREE_REMOVE_PARTIAL,     "free_remove_partial")         \
  X (ALLOC_FROM_PARTIAL,      "alloc_from_partial")          \
  X (ALLOC_SLAB,              "alloc_slab")                  \
  X (ALLOC_REFILL,            "alloc_refill")                \
  X (ALLOC_NODE_MISMATCH,     "alloc_node_mismatch")         \
  X (FREE_SLAB,               "free_slab")                   \
  X (CPUSLAB_FLUSH,           "cpuslab_flush")               \
  X (DEACTIVATE_FULL,         "deactivate_full")             \
  X (DEACTIVATE_EMPTY,        "deactivate_empty")            \
  X (DEACTIVATE_TO_HEAD,      "deactivate_to_head")          \
  X (DEACTIVATE_TO_TAIL,      "deactivate_to_tail")          \
  X (DEACTIVATE_REMOTE_FREES, "deactivate_remote_frees")     \
  X (DEACTIVATE_BYPASS,       "deactivate_bypass")           \
  X (ORDER_FALLBACK,          "order_fallback")              \
  X (CMPXCHG_DOUBLE_CPU_FAIL, "cmpxchg_double_cpu_fail")     \
  X (CMPXCHG_DOUBLE_FAIL,     "cmpxchg_double_fail")         \
  X (CPU_PARTIAL_ALLOC,       "cpu_partial_alloc")           \
  X (CPU_PARTIAL_FREE,        "cpu_partial_free")            \
  X (CPU_PARTIAL_NODE,        "cpu_partial_node")            \
  X (CPU_PARTIAL_DRAIN,       "cpu_partial_drain")

typedef enum {
#define SIM_SLUB_STAT_ENUM(e, n) SIM_SLUB_##e,
  SIM_SLUB_STATS (SIM_SLUB_STAT_ENUM)
#undef SIM_SLUB_STAT_ENUM
  SIM_SLUB_N_STATS
} SimSlubStat;

const char *sim_slub_stat_name (SimSlubStat st);

/* Parameters beyond the kernel's boot parameters (those are parsed by
 * slub-size.c): pass_through=off|BYTES, cpu_partial=N, min_partial=N,
 * slub_stats=0|1. */
typedef struct {
  gint64   pass_through;         /* -1 = the era's rule, 0 = never, else bytes */
  gint     cpu_partial;          /* -1 = computed */
  gint     min_partial;          /* -1 = computed */
  gboolean stats;                /* CONFIG_SLUB_STATS: counters cost memory traffic */
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
SimAddr    sim_slub_kmalloc     (SimSlub *m, SimOp *op, gsize size, gint node,
                                 guint32 gfp);
/* kfree / kmem_cache_free; FALSE if @addr is not a live object. */
gboolean   sim_slub_free        (SimSlub *m, SimOp *op, SimAddr addr);
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
  guint64 stat[SIM_SLUB_N_STATS];
} SimSlubCacheInfo;
void       sim_slub_cache_info  (const SimSlub *m, SimCacheId id, SimSlubCacheInfo *out);
/* Free the strings in @info (aliases). */
void       sim_slub_cache_info_clear (SimSlubCacheInfo *info);
gboolean   sim_slub_check       (const SimSlub *m, GError **error);
guint64    sim_slub_large_pages (const SimSlub *m);

G_END_DECLS
