/* slab.h - the SLAB model's interface (models/alloc/slab*.c).
 *
 * The run driver reaches it through its SimAllocOps table; tests call the
 * functions below directly to drive single paths, look at the array
 * caches and slab lists, and run cache_reap by hand.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc.h"
#include "models/alloc/alloc-spec.h"

G_BEGIN_DECLS

typedef enum {
  SIM_SLAB_2_6_23,
  SIM_SLAB_2_6_34,
} SimSlabEraId;

/* SLAB's STATS counters (CONFIG_DEBUG_SLAB), with the kernel's field
 * names; the last one is the model's own (slab_destroy calls, which the
 * kernel does not count). */
#define SIM_SLAB_STATS(X)                                      \
  X (ALLOCHIT,        "allochit")                              \
  X (ALLOCMISS,       "allocmiss")                             \
  X (FREEHIT,         "freehit")                               \
  X (FREEMISS,        "freemiss")                              \
  X (NUM_ACTIVE,      "num_active")                            \
  X (NUM_ALLOCATIONS, "num_allocations")                       \
  X (HIGH_MARK,       "high_mark")                             \
  X (GROWN,           "grown")                                 \
  X (REAPED,          "reaped")                                \
  X (ERRORS,          "errors")                                \
  X (MAX_FREEABLE,    "max_freeable")                          \
  X (NODE_ALLOCS,     "node_allocs")                           \
  X (NODE_FREES,      "node_frees")                            \
  X (NODE_OVERFLOW,   "node_overflow")                         \
  X (SLABS_DESTROYED, "slabs_destroyed")

typedef enum {
#define SIM_SLAB_STAT_ENUM(e, n) SIM_SLAB_##e,
  SIM_SLAB_STATS (SIM_SLAB_STAT_ENUM)
#undef SIM_SLAB_STAT_ENUM
  SIM_SLAB_N_STATS
} SimSlabStat;

const char *sim_slab_stat_name (SimSlabStat st);

typedef struct SimSlab SimSlab;

/* "slab@2.6.34:limit=60,..." already split by alloc-spec.c. */
SimSlab   *sim_slab_new        (const SimAllocSpec *spec, const SimAllocEnv *env,
                                GError **error);
void       sim_slab_free_model (SimSlab *m);

SimCacheId sim_slab_cache_create (SimSlab *m, SimOp *op, const SimCacheSpec *spec,
                                  GError **error);
/* The general cache kmalloc(@size) uses (size-N or size-N(DMA)), or
 * SIM_CACHE_NONE above the largest. */
SimCacheId sim_slab_kmalloc_cache (SimSlab *m, gsize size, guint32 gfp);
SimAddr    sim_slab_cache_alloc  (SimSlab *m, SimOp *op, SimCacheId id, gint node,
                                  guint32 gfp);
/* The largest kmalloc @m serves: its largest general cache (size-4194304,
 * KMALLOC_MAX_SIZE); above it kmalloc returns NULL. */
guint64    sim_slab_kmalloc_max  (SimSlab *m);
SimAddr    sim_slab_kmalloc      (SimSlab *m, SimOp *op, gsize size, gint node,
                                  guint32 gfp);
/* kfree / kmem_cache_free; FALSE if @addr is not a live object. */
gboolean   sim_slab_free         (SimSlab *m, SimOp *op, SimAddr addr);
/* kmem_cache_free of @addr (the cache is the caller's): see the model's essay. */
gboolean   sim_slab_cache_free (SimSlab *m, SimOp *op, SimAddr addr);
/* cache_reap as the per-CPU delayed work runs it on op->cpu at op's start
 * time (jiffies derived from it).  The engine calls this every 2 s per
 * CPU; tests call it directly. */
void       sim_slab_reap         (SimSlab *m, SimOp *op);
/* Simulated cycles per jiffy on this machine, and the HZ behind it (the
 * era's, sim_kernel_hz, or hz=N). */
guint64    sim_slab_cycles_per_jiffy (const SimSlab *m);
guint      sim_slab_hz           (const SimSlab *m);

/* Introspection for reports and tests. */
guint      sim_slab_n_caches     (const SimSlab *m);
SimCacheId sim_slab_cache_by_name (const SimSlab *m, const char *name);

typedef struct {
  const char *name;
  guint32 object_size;          /* as created */
  guint32 buffer_size;          /* the stride */
  guint32 align;
  guint32 num;                  /* objects per slab */
  guint32 gfporder;
  guint32 colour, colour_off;
  guint32 slab_size;            /* management: struct slab + bufctl[] */
  gboolean off_slab;
  const char *slabp_cache;      /* the general cache holding off-slab management */
  guint32 limit, batchcount, shared;
  guint32 shared_limit;         /* entries of each node's shared array (0: none) */
  guint32 alien_limit;          /* entries of each alien array (0: none) */
  guint64 shared_avail;         /* objects in the nodes' shared arrays */
  guint64 slabs, full_slabs, partial_slabs, free_slabs;
  guint64 active_objs;          /* sum of inuse, as /proc/slabinfo */
  guint64 live;                 /* handed out and not freed */
  guint64 stat[SIM_SLAB_N_STATS];
} SimSlabCacheInfo;
void       sim_slab_cache_info   (const SimSlab *m, SimCacheId id, SimSlabCacheInfo *out);

typedef struct {
  guint avail, limit, batchcount, touched;
} SimSlabArrayInfo;
/* The array cache of @cpu; FALSE if @id is unknown. */
gboolean   sim_slab_cpu_array    (const SimSlab *m, SimCacheId id, guint cpu,
                                  SimSlabArrayInfo *out);
/* The shared array of @node (FALSE when the cache has none). */
gboolean   sim_slab_shared_array (const SimSlab *m, SimCacheId id, guint node,
                                  SimSlabArrayInfo *out);
/* The alien array on @node holding objects of node @remote (FALSE when
 * there is none). */
gboolean   sim_slab_alien_array  (const SimSlab *m, SimCacheId id, guint node,
                                  guint remote, SimSlabArrayInfo *out);

typedef struct {
  guint64 partial, full, free;  /* slabs on each list */
  guint64 free_objects;
  guint   free_limit;
  guint   colour_next;
  gboolean free_touched;
  guint64 next_reap;            /* jiffies */
} SimSlabNodeInfo;
gboolean   sim_slab_node_info    (const SimSlab *m, SimCacheId id, guint node,
                                  SimSlabNodeInfo *out);

/* Where the slab holding @obj starts (its pages), its s_mem, colour
 * offset (bytes before s_mem, incl. on-slab management) and node. */
gboolean   sim_slab_object_slab  (const SimSlab *m, SimAddr obj, SimAddr *pages,
                                  SimAddr *s_mem, guint *colouroff, guint *node);

gboolean   sim_slab_check        (const SimSlab *m, GError **error);

/* Test hook: push an object that is already in @cpu's array onto it once
 * more (a double free the kernel would not notice), so that
 * sim_slab_check must fail.  FALSE if the array is empty. */
gboolean   sim_slab_test_corrupt (SimSlab *m, SimCacheId id, guint cpu);

const SimAllocOps *sim_alloc_slab_ops (void);

/* The parameters a slab spec for era @kernel accepts (NULL-terminated,
 * g_strfreev; NULL for an unknown era): the ops table's param_names. */
char **sim_alloc_slab_param_names (const char *kernel);

G_END_DECLS
