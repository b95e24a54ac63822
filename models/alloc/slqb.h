/* slqb.h - the SLQB model's interface (models/alloc/slqb.c).
 *
 * The run driver reaches it through its SimAllocOps table; tests call the
 * functions below directly to drive single paths and look at the per-CPU
 * and per-node queues.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc.h"
#include "models/alloc/alloc-spec.h"

G_BEGIN_DECLS

/* CONFIG_SLQB_STATS counters (enum stat_item of slqb_def.h), with the
 * sysfs file names slqbinfo reads. */
#define SIM_SLQB_STATS(X)                                             \
  X (ALLOC,                     "alloc")                              \
  X (ALLOC_SLAB_FILL,           "alloc_slab_fill")                    \
  X (ALLOC_SLAB_NEW,            "alloc_slab_new")                     \
  X (FREE,                      "free")                               \
  X (FREE_REMOTE,               "free_remote")                        \
  X (FLUSH_FREE_LIST,           "flush_free_list")                    \
  X (FLUSH_FREE_LIST_OBJECTS,   "flush_free_list_objects")            \
  X (FLUSH_FREE_LIST_REMOTE,    "flush_free_list_remote")             \
  X (FLUSH_SLAB_PARTIAL,        "flush_slab_partial")                 \
  X (FLUSH_SLAB_FREE,           "flush_slab_free")                    \
  X (FLUSH_RFREE_LIST,          "flush_rfree_list")                   \
  X (FLUSH_RFREE_LIST_OBJECTS,  "flush_rfree_list_objects")           \
  X (CLAIM_REMOTE_LIST,         "claim_remote_list")                  \
  X (CLAIM_REMOTE_LIST_OBJECTS, "claim_remote_list_objects")

typedef enum {
#define SIM_SLQB_STAT_ENUM(e, n) SIM_SLQB_##e,
  SIM_SLQB_STATS (SIM_SLQB_STAT_ENUM)
#undef SIM_SLQB_STAT_ENUM
  SIM_SLQB_N_STATS
} SimSlqbStat;

const char *sim_slqb_stat_name (SimSlqbStat st);

/* The kernel SLQB's code came from (see the essay in slqb.c). */
#define SIM_SLQB_KERNEL "2.6.31-slqb"

/* Parameters: the boot parameters slqb_min_order= and slqb_min_objects=,
 * the per-cache sysfs tunables hiwater and freebatch applied to every
 * cache, slqb_stats=0|1 (CONFIG_SLQB_STATS: whether the counters cost
 * simulated memory traffic) and hz=N (CONFIG_HZ, which places the trim
 * timers; default the era's, sim_kernel_hz). */
typedef struct {
  guint    min_order;            /* slqb_min_order, default 0 */
  guint    min_objects;          /* slqb_min_objects, default 1 */
  gint     hiwater;              /* -1 = calculate_sizes' 4 * freebatch */
  gint     freebatch;            /* -1 = calculate_sizes' rule by size */
  gboolean stats;
  guint    hz;                   /* CONFIG_HZ: sim_kernel_hz of the era, or hz= */
} SimSlqbParams;

/* One cache's layout as calculate_sizes() makes it. */
typedef struct {
  guint32 object_size;           /* s->objsize */
  guint32 size;                  /* s->size: the object stride */
  guint32 inuse;                 /* s->inuse: offset to the metadata */
  guint32 offset;                /* s->offset: free pointer */
  guint32 align;                 /* the alignment calculate_alignment gave */
  guint32 order;
  guint32 objects;
  guint32 colour_off, colour_range;
  guint32 freebatch, hiwater;
} SimSlqbGeometry;

/* calculate_sizes() for an object of @object_size with requested @align
 * and SIM_SLAB_* @flags on a machine whose cache line is @line bytes;
 * FALSE (and @error) when no order up to MAX_ORDER-1 fits. */
gboolean sim_slqb_geometry (const SimSlqbParams *p, guint32 object_size, guint32 align,
                            guint32 flags, guint line, SimSlqbGeometry *out,
                            GError **error);

typedef struct SimSlqb SimSlqb;

/* "slqb@2.6.31-slqb:hiwater=...,freebatch=..." already split by
 * alloc-spec.c.  With env->eng, every CPU's cache_trim_worker is
 * scheduled (first at about 1 s, then every 3 s); the engine must outlive
 * the model. */
SimSlqb   *sim_slqb_new        (const SimAllocSpec *spec, const SimAllocEnv *env,
                                GError **error);
void       sim_slqb_free_model (SimSlqb *m);
const SimAllocOps *sim_alloc_slqb_ops (void);

/* kmem_cache_create; a name already created returns that cache. */
SimCacheId sim_slqb_cache_create (SimSlqb *m, SimOp *op, const SimCacheSpec *spec,
                                  GError **error);
/* The kmalloc cache serving @size, or SIM_CACHE_NONE above the largest
 * (2 MiB: kmalloc then fails; SLQB has no page pass-through). */
SimCacheId sim_slqb_kmalloc_cache (SimSlqb *m, gsize size);

SimAddr    sim_slqb_cache_alloc (SimSlqb *m, SimOp *op, SimCacheId id, gint node,
                                 guint32 gfp);
/* The largest kmalloc SLQB serves: 1 << KMALLOC_SHIFT_SLQB_HIGH = 2 MiB
 * (get_slab() returns NULL above it, so kmalloc does). */
guint64    sim_slqb_kmalloc_max (SimSlqb *m);
SimAddr    sim_slqb_kmalloc     (SimSlqb *m, SimOp *op, gsize size, gint node,
                                 guint32 gfp);
/* kfree / kmem_cache_free; FALSE if @addr is not a live object. */
gboolean   sim_slqb_free        (SimSlqb *m, SimOp *op, SimAddr addr);
/* kmem_cache_free of @addr (the cache is the caller's): see the model's essay. */
gboolean   sim_slqb_cache_free (SimSlqb *m, SimOp *op, SimAddr addr);
/* One run of cache_trim_worker on op->cpu, over every cache. */
void       sim_slqb_trim        (SimSlqb *m, SimOp *op);

/* Introspection for reports and tests (no simulated traffic). */
guint      sim_slqb_n_caches    (const SimSlqb *m);
typedef struct {
  const char *name;
  SimSlqbGeometry g;
  guint64 slabs;                   /* sum of nr_slabs over all lists */
  guint64 partial_slabs;
  guint64 inuse_objects;           /* slabinfo's active objects */
  guint64 live_objects;            /* handed out and not freed */
  guint64 stat[SIM_SLQB_N_STATS];  /* summed over every list */
} SimSlqbCacheInfo;
void       sim_slqb_cache_info  (const SimSlqb *m, SimCacheId id, SimSlqbCacheInfo *out);

/* One kmem_cache_list (a CPU's, or with @cpu < 0 node -@cpu-1's). */
typedef struct {
  guint64  freelist_nr;
  guint64  remote_free_nr;
  gboolean remote_free_check;
  guint64  nr_partial;
  guint64  nr_slabs;
  guint64  rlist_nr;               /* CPU lists: the outgoing batch */
  guint    colour_next;
  guint64  stat[SIM_SLQB_N_STATS];
} SimSlqbListInfo;
void       sim_slqb_list_info   (const SimSlqb *m, SimCacheId id, gint cpu,
                                 SimSlqbListInfo *out);
/* The NUMA node of @cpu as the model sees it. */
guint      sim_slqb_node_of_cpu (const SimSlqb *m, guint cpu);

gboolean   sim_slqb_check       (const SimSlqb *m, GError **error);
/* Test hook: make @cpu's freelist count of cache @id disagree with its
 * list, so that sim_slqb_check must fail. */
void       sim_slqb_test_corrupt (SimSlqb *m, SimCacheId id, guint cpu);

/* The parameters a slqb spec for era @kernel accepts (NULL-terminated,
 * g_strfreev; NULL for an unknown era): the ops table's param_names. */
char **sim_alloc_slqb_param_names (const char *kernel);

G_END_DECLS
