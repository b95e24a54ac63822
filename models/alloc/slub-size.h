/* slub-size.h - SLUB's cache sizing code, era by era.
 *
 * Given what kmem_cache_create() receives (object size, alignment, flags,
 * constructor) and the boot parameters (slub_min_order, slub_max_order,
 * slub_min_objects, slub_nomerge) this computes what the kernel's
 * calculate_sizes(), calculate_order() and kmem_cache_open() /
 * do_kmem_cache_create() compute: the object stride, the free-pointer
 * offset, the slab order and objects per slab, the fallback order, the
 * per-node min_partial and the per-CPU partial limit.  The full SLUB model
 * builds its caches from these numbers.  See docs/models/slub-sizing.md.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc-spec.h"

G_BEGIN_DECLS

/* Cache flags, the subset of SLAB_* that changes geometry or merging. */
typedef enum {
  SIM_SLUB_HWCACHE_ALIGN   = 1u << 0,  /* SLAB_HWCACHE_ALIGN */
  SIM_SLUB_TYPESAFE_BY_RCU = 1u << 1,  /* SLAB_DESTROY_BY_RCU before 4.13 */
  SIM_SLUB_FREEPTR_OFFSET  = 1u << 2,  /* kmem_cache_args.use_freeptr_offset (6.12+) */
  SIM_SLUB_CTOR            = 1u << 3,  /* the creator passed a constructor */
  SIM_SLUB_RECLAIM_ACCOUNT = 1u << 4,  /* SLAB_RECLAIM_ACCOUNT */
  SIM_SLUB_CACHE_DMA       = 1u << 5,  /* SLAB_CACHE_DMA */
  /* Internal: set for the kmalloc caches themselves. */
  SIM_SLUB_KMALLOC         = 1u << 8,  /* SLAB_KMALLOC (6.18 alignment rule) */
  SIM_SLUB_NO_MERGE        = 1u << 9,  /* SLAB_NO_MERGE, or usersize != 0 */
  SIM_SLUB_BOOT_CACHE      = 1u << 10, /* create_boot_cache(): kmem_cache, kmem_cache_node */
} SimSlubFlags;

/* The user-visible flags, in the order the TSV and the docs list them. */
#define SIM_SLUB_USER_FLAGS                                              \
  X (SIM_SLUB_HWCACHE_ALIGN,   "hwcache_align")                          \
  X (SIM_SLUB_TYPESAFE_BY_RCU, "typesafe_by_rcu")                        \
  X (SIM_SLUB_FREEPTR_OFFSET,  "freeptr_offset")                         \
  X (SIM_SLUB_CTOR,            "ctor")                                   \
  X (SIM_SLUB_RECLAIM_ACCOUNT, "reclaim_account")                        \
  X (SIM_SLUB_CACHE_DMA,       "cache_dma")

/* How calculate_order() searches. */
typedef enum {
  SIM_SLUB_ORDER_2_6_23,  /* fractions 8,4; min_objects halved; MAX_ORDER inclusive */
  SIM_SLUB_ORDER_2_6_34,  /* fractions 16,8,4; min_objects decremented */
  SIM_SLUB_ORDER_6_18,    /* min order from min_objects, fractions 16,8,4,2 */
} SimSlubOrderRule;

/* Where calculate_sizes() puts the free pointer when nothing forces it
 * behind the object. */
typedef enum {
  SIM_SLUB_FREEPTR_FIRST_WORD,   /* offset 0 (up to 5.6) */
  SIM_SLUB_FREEPTR_MIDDLE,       /* ALIGN_DOWN(object_size / 2, 8) (5.7+) */
} SimSlubFreeptrRule;

typedef enum {
  SIM_SLUB_HWALIGN_HALF_LINE,    /* line size if object > line/2, else nothing */
  SIM_SLUB_HWALIGN_SHRINK,       /* halve the line while object <= line/2 */
} SimSlubHwalignRule;

typedef enum {
  SIM_SLUB_MIN_PARTIAL_FIXED,      /* the constant MIN_PARTIAL */
  SIM_SLUB_MIN_PARTIAL_ILOG2,      /* clamp(ilog2(size), MIN, MAX) */
  SIM_SLUB_MIN_PARTIAL_HALF_ILOG2, /* clamp(ilog2(size) / 2, MIN, MAX) */
} SimSlubMinPartialRule;

/* Which caches get per-CPU sheaves, and how many objects a sheaf holds. */
typedef enum {
  SIM_SLUB_SHEAVES_NONE,           /* no sheaves (before 6.18) */
  SIM_SLUB_SHEAVES_OPT_IN,         /* 6.18: kmem_cache_args.sheaf_capacity, else none */
  SIM_SLUB_SHEAVES_ALL,            /* 7.x: calculate_sheaf_capacity() for every cache */
} SimSlubSheafRule;

typedef enum {
  SIM_SLUB_CPU_PARTIAL_NONE,       /* no per-CPU partial lists (before 3.2) */
  SIM_SLUB_CPU_PARTIAL_HALF_FULL,  /* 6/24/52/120 objects, slabs assumed half full (5.16+) */
} SimSlubCpuPartialRule;

/* One kernel era: every constant and rule of the sizing code that differs
 * between kernels.  A new version is a new row in slub-size.c. */
typedef struct {
  const char *kernel;               /* "2.6.23" */
  const char *summary;
  guint page_shift;                 /* 12 */
  guint cache_line;                 /* cache_line_size(): 64 */
  guint max_page_order;             /* highest order the page allocator gives */
  guint default_min_order;
  guint default_max_order;
  guint default_min_objects;        /* 0 = automatic from the CPU count */
  guint max_objs_per_slab;          /* 65535 (u16) or 32767 (u15) */
  SimSlubOrderRule      order_rule;
  gboolean              order_fallback;   /* s->min exists (2.6.26+) */
  SimSlubFreeptrRule    freeptr_rule;
  gboolean              freeptr_offset_arg; /* kmem_cache_args.freeptr_offset */
  SimSlubHwalignRule    hwalign_rule;
  guint                 arch_slab_minalign;
  SimSlubMinPartialRule min_partial_rule;
  guint                 min_partial, max_partial;
  SimSlubCpuPartialRule cpu_partial_rule;
  SimSlubSheafRule      sheaf_rule;
  gboolean              merge_oldest_first; /* list_for_each_entry_reverse */
  gboolean              id_letter_t;        /* 't' = !SLAB_NOTRACK (2.6.31-4.14) */
  gboolean              slab_spelling;      /* slab_max_order= etc. (6.1+) */
  gboolean              merge_param;        /* slab_merge / slub_merge exist */
  gboolean              orders_adjust;      /* setup_slub_{min,max}_order keep min <= max */
  /* kmalloc (kmalloc-classes.c) */
  guint kmalloc_shift_high;         /* largest kmalloc cache is 1 << this */
  guint kmalloc_shift_max;          /* KMALLOC_MAX_SIZE = 1 << this */
  guint kmalloc_96_max_min_size;    /* kmalloc-96 exists if KMALLOC_MIN_SIZE <= this */
  guint kmalloc_192_max_min_size;
  gboolean kmalloc_passthrough;     /* sizes above the top cache go to the page allocator */
  gboolean kmalloc_short_names;     /* kmalloc-1k rather than kmalloc-1024 (4.20+) */
  gboolean kmalloc_pow2_align;      /* SLAB_KMALLOC: align to largest 2^n dividing size */
  gboolean kmalloc_unmergeable;     /* CONFIG_MEMCG sets SLAB_NO_MERGE on kmalloc-* */
} SimSlubEra;

/* The eras this model knows, NULL-kernel terminated; the first is the
 * default of a plain "slub". */
const SimSlubEra *sim_slub_eras (void);
/* The era for @kernel (NULL = default); the error lists the known ones. */
const SimSlubEra *sim_slub_era_lookup (const char *kernel, GError **error);

/* Boot parameters and machine facts the sizing code reads. */
typedef struct {
  const SimSlubEra *era;
  guint min_order;           /* slub_min_order */
  guint max_order;           /* slub_max_order */
  guint min_objects;         /* slub_min_objects, 0 = automatic */
  gboolean nomerge;          /* slub_nomerge */
  guint nr_cpus;             /* num_present_cpus() = nr_cpu_ids */
} SimSlubConfig;

/* Defaults of @era for a machine of @nr_cpus CPUs. */
void sim_slub_config_init (SimSlubConfig *cfg, const SimSlubEra *era, guint nr_cpus);
/* Apply the spec's parameters in order, as the kernel's __setup handlers
 * would; an unknown parameter is an error listing the valid ones. */
gboolean sim_slub_config_apply (SimSlubConfig *cfg, const SimAllocSpec *spec,
                                GError **error);
/* "slub[@K][:...]" -> config: looks up the era and applies parameters. */
gboolean sim_slub_config_from_spec (SimSlubConfig *cfg, const SimAllocSpec *spec,
                                    guint nr_cpus, GError **error);
/* The parameter names @era accepts, comma separated (free with g_free). */
char *sim_slub_param_names (const SimSlubEra *era);

/* What kmem_cache_create() is given. */
typedef struct {
  const char *name;
  guint object_size;
  guint align;               /* requested alignment, 0 = none */
  guint flags;               /* SimSlubFlags */
  guint freeptr_offset;      /* with SIM_SLUB_FREEPTR_OFFSET */
  guint sheaf_capacity;      /* kmem_cache_args.sheaf_capacity (6.18+), 0 = none asked */
} SimSlubCacheArgs;

/* What the kernel computes. */
typedef struct {
  guint object_size;         /* s->object_size (objsize before 2.6.35) */
  guint inuse;               /* s->inuse: word-aligned object, metadata starts here */
  guint offset;              /* s->offset: free pointer within the slot */
  guint size;                /* s->size: the slot stride (sysfs slab_size) */
  guint align;               /* calculate_alignment() */
  guint order;               /* oo_order(s->oo) */
  guint objects;             /* oo_objects(s->oo) */
  guint min_order;           /* oo_order(s->min): fallback when oo fails */
  guint min_objects;         /* oo_objects(s->min) */
  guint cpu_partial;         /* s->cpu_partial (objects), 0 when absent */
  guint cpu_partial_slabs;   /* s->cpu_partial_slabs, 0 when absent */
  guint min_partial;         /* s->min_partial, or MIN_PARTIAL before per-cache values */
  guint sheaf_capacity;      /* s->sheaf_capacity: objects per sheaf, 0 = no sheaves */
  guint flags;               /* SimSlubFlags the cache ended with */
} SimSlubGeometry;

/* calculate_alignment() of @era. */
guint sim_slub_calculate_alignment (const SimSlubEra *era, guint flags, guint align,
                                    guint size);
/* calculate_order() for a slot of @size bytes; -1 where the kernel returns
 * -ENOSYS. */
int sim_slub_calculate_order (const SimSlubConfig *cfg, guint size);
/* The whole kmem_cache_open() sizing.  Errors (SIM_MODEL_ERROR_INVALID_PARAM)
 * for what the kernel would refuse: a zero or oversized object, an
 * alignment that is not a power of two, a bad freeptr_offset, no order. */
gboolean sim_slub_calculate (const SimSlubConfig *cfg, const SimSlubCacheArgs *args,
                             SimSlubGeometry *out, GError **error);

/* The sheaf capacity @era gives a cache of slot size @size created with
 * kmem_cache_args.sheaf_capacity @requested and @flags: 6.18 takes the
 * request as it is; 7.x's calculate_sheaf_capacity() starts from 4 / 12 /
 * 26 / 60 by size, grows it until struct slab_sheaf fills its kmalloc
 * bucket and keeps at least the request; boot caches get none.  kmalloc
 * caches go through the same formula with an empty request
 * (bootstrap_cache_sheaves). */
guint sim_slub_sheaf_capacity (const SimSlubEra *era, guint size, guint requested, guint flags);
/* sizeof (struct slab_sheaf) without objects[] (x86-64): 32. */
#define SIM_SLUB_SHEAF_HEADER 32u

/* create_unique_id(): the sysfs name of a mergeable cache, ":t-0000256". */
char *sim_slub_unique_id (const SimSlubEra *era, const SimSlubGeometry *g);

/* The list of caches a kernel has created, for merging (find_mergeable). */
typedef struct {
  char *name;                /* the creator's name */
  SimSlubGeometry geo;
  int refcount;              /* 1 + aliases; kmalloc caches too */
  GPtrArray *aliases;        /* names merged into it (char *) */
} SimSlubCache;

typedef struct {
  SimSlubConfig cfg;
  GPtrArray *caches;         /* SimSlubCache *, in creation order */
} SimSlubCacheSet;

SimSlubCacheSet *sim_slub_cache_set_new (const SimSlubConfig *cfg);
void sim_slub_cache_set_free (SimSlubCacheSet *set);
/* Whether @c may take aliases (slab_unmergeable() is false). */
gboolean sim_slub_cache_mergeable (const SimSlubCacheSet *set, const SimSlubCache *c);
/* kmem_cache_create(): merge into an existing cache or create a new one.
 * Returns the cache (owned by @set) and sets *@merged. */
SimSlubCache *sim_slub_cache_set_create (SimSlubCacheSet *set, const SimSlubCacheArgs *args,
                                         gboolean *merged, GError **error);
/* The sysfs directory name of @c: the unique id if mergeable, else its name. */
char *sim_slub_cache_sysfs_name (const SimSlubCacheSet *set, const SimSlubCache *c);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimSlubCacheSet, sim_slub_cache_set_free)

G_END_DECLS
