/* slub-internal.h - what the files of the SLUB model share.
 *
 * The model is split along mm/slub.c's own seams (the essay of each file
 * says which part of the kernel it follows):
 *
 *   slub.c          the allocation and free paths (slab_alloc_node,
 *                   ___slab_alloc, slab_free, __slab_free), kmalloc,
 *                   flush_all and the ops table;
 *   slub-node.c     the slab side: new_slab/discard_slab, the node
 *                   partial lists, deactivation, 6.18's cpu partial
 *                   slabs, get_partial and get_any_partial;
 *   slub-sheaves.c  6.18's per-CPU sheaves and the node barn;
 *   slub-rcu.c      kfree_rcu: the rcu_free sheaf and its RCU callback;
 *   slub-create.c   kmem_cache_create, boot, the model's lifetime;
 *   slub-check.c    introspection and the invariant checker;
 *   slub-eras.c     the era table, the stat names, the path keys;
 *   slub-7.c        SLUB 7.x's own paths (sheaves for every cache, no
 *                   cpu slabs), reached through its ops table;
 *   slub-size.c     sizes, orders and merging (calculate_sizes and
 *                   friends), used by geometry too.
 *
 * Nothing here is part of the model's interface (slub.h is): the state
 * struct, the era table, the field offsets, and the small helpers through
 * which every simulated access to a kernel structure goes.
 */
#pragma once

#include "models/alloc/slub.h"

#include "models/page/page-alloc.h"
#include "models/alloc/kmalloc-classes.h"
#include "models/alloc/paths.h"
#include "sim/core/errors.h"
#include "sim/core/idmap.h"

#include <string.h>

#define NIL 0xffffu                       /* end of a freelist */

/* ------------------------------------------------------------------ */
/* Eras                                                                */

typedef struct {
  const char *name;
  SimSlubEraId id;
  gboolean page_lockless;        /* 2.6.23: freelist in struct page */
  gboolean cpu_ptr_array;        /* 2.6.23/33: s->cpu_slab[cpu] in kmem_cache */
  gboolean cpu_has_offset;       /* 2.6.33: c->offset, c->objsize */
  gboolean tid;                  /* 6.18: cmpxchg (freelist, tid) */
  gboolean cpu_partial;          /* 6.18: per-CPU partial slabs */
  gboolean stats;                /* CONFIG_SLUB_STATS exists */
  gboolean slab_lock;            /* slab_lock (page bit spinlock) around slab state */
  guint    min_partial_fixed;    /* 2.6.23: MIN_PARTIAL; 0 = per cache */
  guint    kmem_cache_size;      /* bytes before the node[] and cpu_slab[] arrays */
  guint    cpu_stat_offset;      /* offset of stat[] in kmem_cache_cpu */
  guint    pcpu_layout;          /* where kmem_cache_cpu lives (PCPU_*) */
  guint    local_node;           /* offset of kmem_cache.local_node; 0 = none */
  guint    defrag_ratio;         /* kmem_cache_open's (remote_node_)defrag_ratio */
  gboolean sheaves_all;          /* 7.x: every cache has sheaves, no cpu slab */
  const struct SlubEraOps *ops;  /* the era's paths (below) */
} SlubEra;

/* Where each CPU's kmem_cache_cpu is placed.
 *
 * PCPU_PACKED: one bump allocation per cache and CPU from the CPU's node
 * static area (the placement of the 2.6.23 and 6.18 models).
 *
 * PCPU_STATIC_ARRAY (2.6.33): mm/slub.c's DEFINE_PER_CPU(struct
 * kmem_cache_cpu [NR_KMEM_CACHE_CPU], kmem_cache_cpu), 100 structures in
 * each CPU's own per-CPU unit, handed out in cache creation order
 * (init_alloc_cpu_cpu pushes them on a free list from the last to the
 * first), packed at sizeof (struct kmem_cache_cpu); past 100 caches,
 * kmalloc_node (ALIGN (sizeof, cache_line_size ())) on the CPU's node.
 *
 * PCPU_KMALLOC_STATIC (2.6.34): the kmalloc caches' structures come from
 * DEFINE_PER_CPU(struct kmem_cache_cpu, kmalloc_percpu[KMALLOC_CACHES])
 * indexed by kmalloc index (boot-time creation, before the per-CPU
 * allocator works), every other cache's from alloc_percpu, packed at the
 * structure's 8-byte alignment in the unit's dynamic part.
 *
 * PCPU_DYNAMIC (6.18): every cache's structure from
 * __alloc_percpu (sizeof (struct kmem_cache_cpu), 2 * sizeof (void *)),
 * packed at 16-byte alignment (the freelist/tid pair is cmpxchg16b'd) in
 * the unit's dynamic part, in cache creation order.
 *
 * In all three kernels a CPU's unit is its own: two CPUs' kmem_cache_cpu
 * never share a cache line. */
enum { PCPU_PACKED, PCPU_STATIC_ARRAY, PCPU_KMALLOC_STATIC, PCPU_DYNAMIC };

#define NR_KMEM_CACHE_CPU 100
#define PCPU_UNIT_SIZE    (64u * 1024)


/* 2.6.33/2.6.34 have 18 stat items: the model's list without
 * ALLOC_NODE_MISMATCH and DEACTIVATE_BYPASS (later kernels'). */
#define CLASSIC_2_6_N_STATS 18
#define CC_OFFSET_2_6_33    20             /* c->offset, c->objsize */

/* Field offsets inside kmem_cache that the paths read.  kmem_cache's
 * first line holds cpu_slab (2.6.34+), flags, size, object_size and
 * offset; the node[] pointer array follows the fixed part, and in
 * 2.6.23/2.6.33 the cpu_slab[NR_CPUS] array comes last. */
#define KC_CPU_SLAB   0
#define KC_OFFSET     24

/* kmem_cache_cpu fields (2.6.33/34: freelist, page, node, [offset,
 * objsize]; 6.18: freelist, tid, slab, partial). */
#define CC_FREELIST   0
#define CC_PAGE       8
#define CC_TID        8
#define CC_SLAB_618   16
#define CC_PARTIAL    24

/* kmem_cache_node: list_lock, nr_partial, partial list head; 6.18's
 * barn pointer last. */
#define KN_LOCK       0
#define KN_NR_PARTIAL 8
#define KN_PARTIAL    16
#define KN_NR_SLABS   32        /* nr_slabs, then total_objects (SLUB_DEBUG) */
#define KN_BARN       56

/* 6.18 sheaves.  kmem_cache: cpu_sheaves follows cpu_slab;
 * sheaf_capacity after cpu_partial_slabs. */
#define KC_CPU_SHEAVES     8
#define KC_SHEAF_CAPACITY  48
/* slab_sheaf: {rcu_head | barn_list | capacity}, cache, size, node,
 * objects[]. */
#define SH_BARN_LIST  0
#define SH_RCU_HEAD   0
#define SH_CACHE      16
#define SH_SIZE       24
#define SH_NODE       28
#define SH_OBJECTS    32
/* slub_percpu_sheaves: local_trylock_t (its acquired byte), main, spare,
 * rcu_free. */
#define PCS_LOCK      0
#define PCS_MAIN      8
#define PCS_SPARE     16
#define PCS_RCU_FREE  24
#define PCS_SIZE      32
/* node_barn: lock, sheaves_full, sheaves_empty, nr_full, nr_empty. */
#define BARN_LOCK     0
#define BARN_FULL     8
#define BARN_EMPTY    24
#define BARN_NR_FULL  40
#define BARN_NR_EMPTY 44
#define BARN_SIZE     48        /* sizeof (struct node_barn) */

#define MAX_FULL_SHEAVES  10
#define MAX_EMPTY_SHEAVES 10
#define PCS_BATCH_MAX     32

/* The kernel paths whose instructions the model charges, one row each in
 * every era's table configs/paths/slub-ERA.tsv (models/alloc/paths.h,
 * docs/models/paths.md).  Memory latency comes on top, from the cache
 * model. */
#define SLUB_PATHS(X)                                                        \
  X (FAST_ALLOC,     "fast_alloc")     /* slab_alloc(_node) fast path */      \
  X (FAST_FREE,      "fast_free")      /* slab_free / do_slab_free fast path */ \
  X (SLOW_ALLOC,     "slow_alloc")     /* __slab_alloc entry and exit */      \
  X (SLOW_FREE,      "slow_free")      /* __slab_free */                      \
  X (LOAD_FREELIST,  "load_freelist")  /* taking a slab's freelist for the cpu */ \
  X (DEACTIVATE,     "deactivate")     /* deactivate_slab / unfreeze_slab */  \
  X (MOVE_OBJECT,    "move_object")    /* one object moved between freelists */ \
  X (PARTIAL_OP,     "partial_op")     /* add_partial / remove_partial */     \
  X (NEW_SLAB,       "new_slab")       /* new_slab beside the page allocator */ \
  X (INIT_OBJECT,    "init_object")    /* threading one object into the freelist */ \
  X (DISCARD_SLAB,   "discard_slab")   /* discard_slab + __free_slab */       \
  X (CPU_PARTIAL_OP, "cpu_partial_op") /* put_cpu_partial / __put_partials */ \
  X (KMALLOC_INDEX,  "kmalloc_index")  /* size to cache lookup */             \
  X (VIRT_TO_PAGE,   "virt_to_page")   /* virt_to_head_page / virt_to_slab */ \
  X (PCS_OP,         "pcs_op")         /* alloc_from_pcs / free_to_pcs */     \
  X (SHEAF_SWAP,     "sheaf_swap")     /* exchanging main and spare */        \
  X (BARN_OP,        "barn_op")        /* one barn get/put under its lock */  \
  X (BULK_OBJECT,    "bulk_object")    /* one object of a bulk alloc or free */ \
  X (ANY_PARTIAL,    "any_partial")    /* get_any_partial: get_cycles, the ratio test */ \
  X (ANY_PARTIAL_ZONE, "any_partial_zone") /* one zonelist entry of get_any_partial */
/* P_* and N_PATHS; the keys (path_keys) are in slub-eras.c. */
enum { SLUB_PATHS (SIM_PATH_ENUM_) N_PATHS };
extern const char *const path_keys[N_PATHS];

extern const SlubEra slub_eras[];
extern const guint slub_n_eras;

/* ------------------------------------------------------------------ */
/* State                                                               */

typedef struct SlubCache SlubCache;
typedef struct Slab Slab;

/* kmalloc sizes up to this one find their cache in a table (SimSlub); the
 * kernel's size_index[] covers the same range. */
#define SLUB_KMALLOC_SMALL 192

enum { WHERE_NONE, WHERE_NODE_PARTIAL, WHERE_CPU, WHERE_CPU_PARTIAL };

struct Slab {
  SimAddr    base;          /* first object */
  SimAddr    page;          /* its struct page (head) */
  SlubCache *s;
  Slab      *prev, *next;   /* node partial list, or cpu partial chain */
  SimLock    lock;          /* slab_lock (2.6 eras) */
  guint16    objects;
  guint16    inuse;         /* page->inuse as the kernel keeps it */
  guint16    freelist;      /* page->freelist */
  guint16    node;
  guint16    cpu;           /* while WHERE_CPU or WHERE_CPU_PARTIAL */
  guint16    chain_len;     /* 6.18 slab->slabs on a cpu partial chain head */
  guint8     order;
  guint8     frozen;
  guint8     where;
  SimAddr    obj_exts;      /* 6.10+: its slabobj_ext vector (a kmalloc), 0: none */
  guint16    next_free[];   /* the free pointer stored in each object */
};

typedef struct {
  Slab    *slab;            /* c->page / c->slab (2.6.23: s->cpu_slab[cpu]) */
  guint16  freelist;        /* c->freelist (2.6.23: page->lockless_freelist) */
  gint     node;            /* c->node */
  guint64  tid;
  Slab    *partial;         /* 6.18: c->partial chain */
  SimAddr  addr;            /* kmem_cache_cpu */
} CpuSlab;

typedef struct {
  Slab    *head, *tail;     /* the partial list in kernel order */
  guint64  nr_partial;
  guint64  nr_slabs;
  guint64  total_objects;
  SimLock  list_lock;
  SimAddr  addr;            /* kmem_cache_node */
} SlubNode;

/* A slab_sheaf: its simulated address and the object addresses it holds
 * (objects[0..size), LIFO at the top). */
typedef struct {
  SimAddr  addr;
  guint    size;
  guint    node;            /* sheaf->node: set when handed to call_rcu */
  SimAddr *objects;         /* capacity entries */
  struct SlubCache *cache;  /* sheaf->cache */
} Sheaf;

/* slub_percpu_sheaves of one CPU. */
typedef struct {
  Sheaf   *main;            /* never NULL */
  Sheaf   *spare;           /* NULL, empty or full */
  Sheaf   *rcu_free;        /* kfree_rcu's sheaf being filled, or NULL */
  SimAddr  addr;
} Pcs;

/* node_barn: the lists are stacks (list_add and list_first_entry), head
 * first. */
typedef struct {
  GQueue   full, empty;
  SimLock  lock;
  SimAddr  addr;
} Barn;

struct SlubCache {
  SimCacheId id;            /* its index in SimSlub.caches */
  SimSlubGeometry g;
  SimSlubCache *sc;         /* the sizing code's cache (name, aliases) */
  char      *name;          /* as slabinfo shows it */
  GPtrArray *aliases;       /* names merged into this cache */
  guint32    flags;
  SimAddr    addr;          /* struct kmem_cache */
  CpuSlab   *cpu;
  SlubNode  *node;
  guint64    stat[SIM_SLUB_N_STATS];
  guint64    live;          /* objects handed out and not freed */
  gboolean   is_kmalloc;    /* SLAB_KMALLOC */
  guint      sheaf_capacity; /* 0: no sheaves */
  Pcs       *pcs;           /* per CPU, NULL without sheaves */
  Barn      *barn;          /* per node, NULL without sheaves */
  GQueue     rcu_inflight;  /* full rcu_free sheaves handed to call_rcu */
};

struct SimSlub {
  const SlubEra *era;
  SimPathCost    path[N_PATHS]; /* the era's table, by P_* */
  SimSlubExtras  p;
  SimSlubConfig  cfg;       /* the sizing era and boot parameters */
  SimSlubCacheSet *set;     /* caches as kmem_cache_create made them */
  GHashTable    *model_of;  /* SimSlubCache* -> SlubCache* */
  SlubCache    **kmalloc;   /* by kmalloc index */
  guint          n_kmalloc;
  char          *kernel;
  SimAllocEnv    env;
  guint          n_nodes;
  GPtrArray     *caches;    /* SlubCache*, owned */
  GHashTable    *by_name;   /* name (incl. aliases) -> SlubCache */
  SimIdMap      *slab_of;   /* slab base address -> Slab* (SimIdPair; slab_at) */
  SimIdMap      *large;     /* pass-through page address -> order (SimIdPair) */
  guint64        large_pages;
  /* 2.6.33/2.6.34 placement (PCPU_STATIC_ARRAY, PCPU_KMALLOC_STATIC). */
  SimAddr       *pcpu_unit;     /* each CPU's per-CPU unit */
  guint          pcpu_slots;    /* 2.6.33: kmem_cache_cpu[] slots handed out */
  guint          pcpu_dyn;      /* 2.6.34: bytes of the dynamic part used */
  SimAddr        kmalloc_kc;    /* the static kmalloc_caches[] array */
  guint          no_recurse;    /* 7.x: inside a kmalloc cache's sheaf allocation */
  /* Host speed only, no state of the model: */
  Slab          *alloc_slab;    /* the slab of alloc_addr, the object the classic */
  SimAddr        alloc_addr;    /* alloc path returned last (alloc_slab NULL: none yet) */
  guint64        kmalloc_max;   /* sim_kmalloc_max_size (cfg.era), fixed at creation */
  /* sim_slub_kmalloc_cache of sizes 1..SLUB_KMALLOC_SMALL by (size - 1) / 8,
   * filled once the kmalloc caches exist (kmalloc_small_ready). */
  gboolean       kmalloc_small_ready;
  SimCacheId     kmalloc_small[SLUB_KMALLOC_SMALL / 8];
};

/* The slab whose first page is at @base, or NULL. */
static inline Slab *
slab_at (const SimSlub *m, SimAddr base)
{
  return (Slab *) (gsize) sim_idmap_get (m->slab_of, base, 0);
}

/* One ops table per era: the paths an allocation, a free and a flush
 * take, and the two bulk operations the sheaves refill and flush
 * through.  The 2.6 eras and 6.18 share the classic paths (slub.c, the
 * era flags choose within them); 7.x has its own (slub-7.c). */
typedef struct SlubEraOps {
  /* slab_alloc_node: an object of @s, or 0. */
  SimAddr (*alloc) (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp);
  /* slab_free of @addr, an object of @slab. */
  void    (*free) (SimSlub *m, SimOp *op, Slab *slab, SimAddr addr);
  /* flush_cpu_slab / flush_cpu_sheaves for @s on op->cpu. */
  void    (*flush_cpu) (SimSlub *m, SimOp *op, SlubCache *s);
  /* Fill @p[0..size) (stores to the sheaf slots from @slot0); returns
   * how many it got. */
  guint   (*bulk_alloc) (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp, SimAddr *p,
                         guint size, SimAddr slot0);
  /* Free a detached freelist head..tail of @cnt objects of @slab. */
  void    (*free_chain) (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 head,
                         guint16 tail, guint cnt);
} SlubEraOps;

extern const SlubEraOps slub_classic_ops;    /* slub.c: 2.6.23, 2.6.33 */
extern const SlubEraOps slub_2_6_34_ops;     /* slub.c: the classic paths for 2.6.34 */
extern const SlubEraOps slub_618_ops;        /* slub.c: the classic paths for 6.18 */
extern const SlubEraOps slub_7_ops;          /* slub-7.c */

/* Two rows of the era table (slub-eras.c, whose comments say where the
 * numbers come from), here so that slub.c can compile the classic fast
 * paths once for each of these eras with its flags as constants: the same
 * code and the same decisions, without reading the flags on every call
 * (host speed only).  The fields are SlubEra's, in its order. */
#define SLUB_ERA_ROW_2_6_34                                                  \
  { "2.6.34", SIM_SLUB_2_6_34, FALSE, FALSE, FALSE, FALSE, FALSE, TRUE,  TRUE,  0, 248, 20, \
    PCPU_KMALLOC_STATIC, 40, 1000, FALSE, &slub_2_6_34_ops }
#define SLUB_ERA_ROW_6_18                                                    \
  { "6.18",   SIM_SLUB_6_18,   FALSE, FALSE, FALSE, TRUE,  TRUE,  TRUE,  FALSE, 0, 256, 48, \
    PCPU_DYNAMIC, 0, 1000, FALSE, &slub_618_ops }
G_GNUC_INTERNAL guint slub_sheaf_capacity_7 (SimSlub *m, const SlubCache *s, guint args_capacity);

/* 7.x kmem_cache (mm/slab.h): cpu_sheaves first, sheaf_capacity beside
 * offset on line 0, per_node[] {barn, node} after the fixed part. */
#define KC7_CPU_SHEAVES    0
#define KC7_SHEAF_CAPACITY 44
#define KC7_PER_NODE(m, nid) ((m)->era->kmem_cache_size + 16 * (nid))

/* The 7.x counters in the order of that kernel's enum stat_item (their
 * slot in the per-CPU kmem_cache_stats), and each counter's slot there
 * (0xff: not a 7.x counter). */
extern const SimSlubStat slub_stats_7[];
extern const guint slub_n_stats_7;
extern const guint8 stat_slot_7[SIM_SLUB_N_STATS];
G_GNUC_INTERNAL const char *const *slub_stat_names_7 (void);   /* sysfs names, in that order */

/* Counter names and 6.18 stat[] slots, by SimSlubStat (slub-eras.c). */
extern const char *const stat_names[SIM_SLUB_N_STATS];
extern const guint8 stat_slot_618[SIM_SLUB_N_STATS];

/* ------------------------------------------------------------------ */
/* Small helpers: simulated accesses to each structure                 */

static inline SimAddr
obj_addr (const Slab *slab, guint idx)
{
  return slab->base + (SimAddr) idx * slab->s->g.size;
}

static inline guint
node_of_cpu (const SimSlub *m, guint cpu)
{
  if (m->n_nodes == 1)
    return 0;
  /* A socket is a node (n_nodes is the sockets): no division unless a
   * socket number wraps. */
  guint socket = sim_machine_socket_of (m->env.machine, cpu);
  return G_LIKELY (socket < m->n_nodes) ? socket : socket % m->n_nodes;
}

static inline void
rd_kc (SimOp *op, const SlubCache *s, guint off)
{
  sim_op_read (op, s->addr + off, 8, SIM_MEM_CACHE_META);
}

static inline void
rd_cpu (SimOp *op, const CpuSlab *c, guint off)
{
  sim_op_read (op, c->addr + off, 8, SIM_MEM_CPU_SLAB);
}

static inline void
wr_cpu (SimOp *op, const CpuSlab *c, guint off)
{
  sim_op_write (op, c->addr + off, 8, SIM_MEM_CPU_SLAB);
}

/* this_cpu_cmpxchg_double / this_cpu_cmpxchg128 on (freelist, tid): an
 * unlocked cmpxchg16b, gs-prefixed, once @after (its operands) is ready. */
static inline void
rmw_cpu (SimOp *op, const CpuSlab *c, guint off, guint size, SimTok after)
{
  sim_op_rmw_local (op, c->addr + off, size, SIM_MEM_CPU_SLAB, SIM_X_CMPXCHG16B, after);
}

/* The same loads as rd_kc/rd_cpu/rd_freeptr, annotated: issued once
 * @after (where the address comes from) is ready, not waited for. */
static inline SimTok
ld_kc (SimOp *op, const SlubCache *s, guint off, SimTok after)
{
  return sim_op_load (op, s->addr + off, 8, SIM_MEM_CACHE_META, after);
}

static inline SimTok
ld_cpu (SimOp *op, const CpuSlab *c, guint off, guint size, SimTok after)
{
  return sim_op_load (op, c->addr + off, size, SIM_MEM_CPU_SLAB, after);
}

static inline void
rd_page (SimOp *op, const Slab *slab)
{
  sim_op_read (op, slab->page, 8, SIM_MEM_STRUCT_PAGE);
}

static inline void
wr_page (SimOp *op, const Slab *slab)
{
  sim_op_write (op, slab->page, 8, SIM_MEM_STRUCT_PAGE);
}

static inline void
rmw_page (SimOp *op, const Slab *slab)
{
  /* cmpxchg_double on (freelist, counters) in 6.18: lock cmpxchg16b */
  sim_op_atomic (op, slab->page + 16, 16, SIM_MEM_STRUCT_PAGE, SIM_X_LOCK_CMPXCHG16B);
}

static inline void
rd_freeptr (SimOp *op, const Slab *slab, guint idx)
{
  sim_op_read (op, obj_addr (slab, idx) + slab->s->g.offset, 8, SIM_MEM_FREEPTR);
}

/* get_freepointer: its address is the object's (a loaded value) plus
 * s->offset. */
static inline SimTok
ld_freeptr (SimOp *op, const Slab *slab, guint idx, SimTok after)
{
  return sim_op_load (op, obj_addr (slab, idx) + slab->s->g.offset, 8, SIM_MEM_FREEPTR, after);
}

static inline void
wr_freeptr (SimOp *op, const Slab *slab, guint idx)
{
  sim_op_write (op, obj_addr (slab, idx) + slab->s->g.offset, 8, SIM_MEM_FREEPTR);
}

/* set_freepointer with its data (the old freelist head) ready at @after. */
static inline void
st_freeptr (SimOp *op, const Slab *slab, guint idx, SimTok after)
{
  sim_op_store (op, obj_addr (slab, idx) + slab->s->g.offset, 8, SIM_MEM_FREEPTR, after);
}

/* stat(s, item): the counter is a per-CPU unsigned in kmem_cache_cpu, so
 * with CONFIG_SLUB_STATS each increment is a read-modify-write there. */
static inline void
stat_add_era (SimSlub *m, const SlubEra *e, SimOp *op, SlubCache *s, SimSlubStat item, guint v)
{
  s->stat[item] += v;
  if (e->stats && m->p.stats)
    {
      guint slot = (guint) item;
      if (e->id == SIM_SLUB_6_18)
        slot = stat_slot_618[item];
      else if (e->sheaves_all)
        {
          slot = stat_slot_7[item];
          g_assert (slot != 0xff);
        }
      else if (e->pcpu_layout != PCPU_PACKED)
        slot = item < SIM_SLUB_ALLOC_NODE_MISMATCH ? (guint) item
               : item <= SIM_SLUB_DEACTIVATE_REMOTE_FREES ? (guint) item - 1
               : CLASSIC_2_6_N_STATS - 1;     /* ORDER_FALLBACK */
      /* c->stat[si]++ (2.6.x, irqs off) / raw_cpu_inc (6.18): an
       * unlocked increment in memory. */
      sim_op_rmw_local (op, s->cpu[op->cpu].addr + e->cpu_stat_offset + 4 * slot, 4,
                        SIM_MEM_CPU_SLAB, SIM_X_THIS_CPU_OP, SIM_TOK_NOW);
    }
}

/* @m's era is @e: a path compiled for one era passes its constant row. */
static inline void
stat_era (SimSlub *m, const SlubEra *e, SimOp *op, SlubCache *s, SimSlubStat item)
{
  stat_add_era (m, e, op, s, item, 1);
}

static inline void
stat_add (SimSlub *m, SimOp *op, SlubCache *s, SimSlubStat item, guint v)
{
  stat_add_era (m, m->era, op, s, item, v);
}

static inline void
stat (SimSlub *m, SimOp *op, SlubCache *s, SimSlubStat item)
{
  stat_add_era (m, m->era, op, s, item, 1);
}

static inline void
slab_lock (SimSlub *m, SimOp *op, Slab *slab)
{
  if (m->era->slab_lock)
    sim_op_bit_lock (op, &slab->lock, slab->page);        /* bit_spin_lock(PG_locked) */
}

static inline void
slab_unlock (SimSlub *m, SimOp *op, Slab *slab)
{
  if (m->era->slab_lock)
    sim_op_bit_unlock (op, &slab->lock, slab->page);      /* __bit_spin_unlock */
}

static inline SlubNode *
node_of_slab (SlubCache *s, const Slab *slab)
{
  return &s->node[slab->node];
}

static inline void
node_lock (SimOp *op, SlubNode *n)
{
  sim_op_lock (op, &n->list_lock, n->addr + KN_LOCK);
}

static inline void
node_unlock (SimOp *op, SlubNode *n)
{
  sim_op_unlock (op, &n->list_lock, n->addr + KN_LOCK);
}


/* ------------------------------------------------------------------ */
/* Between the files                                                   */

/* slub-node.c */
G_GNUC_INTERNAL void  add_partial (SimSlub *m, SimOp *op, SlubNode *n, Slab *slab, gboolean tail);
G_GNUC_INTERNAL void  remove_partial (SimSlub *m, SimOp *op, SlubNode *n, Slab *slab);
G_GNUC_INTERNAL Slab *new_slab (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp);
G_GNUC_INTERNAL void  discard_slab (SimSlub *m, SimOp *op, Slab *slab);
G_GNUC_INTERNAL void deactivate_2_6 (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c);
G_GNUC_INTERNAL void deactivate_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 freelist);
G_GNUC_INTERNAL void put_partials_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *chain);
G_GNUC_INTERNAL void put_cpu_partial_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, gboolean drain);
G_GNUC_INTERNAL Slab *get_partial (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp);
/* slub.c */
G_GNUC_INTERNAL Slab *slow_alloc_618 (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c, gint node, guint32 gfp, guint16 *out);
G_GNUC_INTERNAL void slow_free_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 head, guint16 tail, guint cnt);
G_GNUC_INTERNAL Slab *slab_of_addr (SimSlub *m, SimOp *op, SimAddr addr);
/* slub-sheaves.c */
G_GNUC_INTERNAL Sheaf *alloc_empty_sheaf (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp);
G_GNUC_INTERNAL void free_empty_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh);
G_GNUC_INTERNAL void barn_lock (SimSlub *m, SimOp *op, Barn *b);
G_GNUC_INTERNAL gboolean alloc_from_pcs (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp, SimAddr *out);
G_GNUC_INTERNAL gboolean free_to_pcs (SimSlub *m, SimOp *op, SlubCache *s, SimAddr addr);
G_GNUC_INTERNAL void pcs_flush_all (SimSlub *m, SimOp *op, SlubCache *s);
G_GNUC_INTERNAL void do_slab_free_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab,
                                       guint16 head, guint16 tail, guint cnt);
G_GNUC_INTERNAL guint kmem_cache_alloc_bulk_618 (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp,
                                                 SimAddr *p, guint size, SimAddr slot0);
G_GNUC_INTERNAL void sheaf_flush_unused (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh);
G_GNUC_INTERNAL Barn *get_barn (SimSlub *m, SimOp *op, SlubCache *s);
G_GNUC_INTERNAL Sheaf *barn_get_empty_sheaf (SimSlub *m, SimOp *op, Barn *b);
G_GNUC_INTERNAL void barn_put_sheaf (SimSlub *m, SimOp *op, Barn *b, Sheaf *sh, gboolean full);
/* slub-rcu.c */
G_GNUC_INTERNAL void call_rcu_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh, gboolean barn);

static inline SimAddr
sheaf_slot (const Sheaf *sh, guint i)
{
  return sh->addr + SH_OBJECTS + 8 * (SimAddr) i;
}

static inline void
pcs_lock (SimOp *op, const Pcs *pcs)
{
  /* local_trylock: test and set the acquired byte; with interrupts and
   * preemption out of the model it always succeeds. */
  sim_op_access (op, pcs->addr + PCS_LOCK, 1, SIM_ACC_RMW, SIM_MEM_CPU_SLAB);
}

static inline void
pcs_unlock (SimOp *op, const Pcs *pcs)
{
  sim_op_write (op, pcs->addr + PCS_LOCK, 1, SIM_MEM_CPU_SLAB);
}
