/* slub.c - SLUB, as in Linux 2.6.23, 2.6.33, 2.6.34 and 6.18.
 *
 * Which kernel.  The allocator paths follow mm/slub.c of each era
 * (shared/reference/allocators.md §1 and the kernel trees cited there):
 *
 *   2.6.23  The per-CPU slab is a bare struct page pointer in the
 *           kmem_cache (cpu_slab[NR_CPUS]); the lockless freelist lives in
 *           struct page (page->lockless_freelist), so the fast paths read
 *           kmem_cache, struct page and the object.  No statistics in that
 *           kernel (the counters below are kept anyway, with 2.6.34's
 *           meaning, and cost no simulated memory traffic), MIN_PARTIAL 2,
 *           no per-cache min_partial.
 *   2.6.33  struct kmem_cache_cpu {freelist, page, node, offset, objsize,
 *           stat[]} reached through kmem_cache's cpu_slab[NR_CPUS] pointer
 *           array: the layout just before commit 9dfc6e68bfe6e.  The
 *           structures come from each CPU's static kmem_cache_cpu[100]
 *           array in cache-creation order.
 *   2.6.34  The same kmem_cache_cpu, minus offset/objsize, in the per-CPU
 *           area reached with this_cpu operations (kmalloc caches: the
 *           static kmalloc_percpu[] by kmalloc index; others:
 *           alloc_percpu); the fast path reads s->cpu_slab and s->offset
 *           from kmem_cache's first line.  min_partial per cache.
 *           Both kernels embed node 0's kmem_cache_node in kmem_cache
 *           (local_node), on the line after offset and oo, and keep the
 *           kmalloc caches' kmem_caches in one static array; the eras
 *           table gives the field offsets of both structures
 *           (docs/case-studies/003-hackbench-this-cpu.md).  The node[] and
 *           cpu_slab[] arrays are sized by the simulated machine, not by a
 *           kernel config's MAX_NUMNODES and NR_CPUS.
 *   6.18    kmem_cache_cpu {freelist, tid, slab, partial, lock, stat[]};
 *           the fast paths are a cmpxchg of (freelist, tid); per-CPU
 *           partial slabs (cpu_partial_slabs) that are not frozen; slab
 *           state changes by cmpxchg on (freelist, counters); the node
 *           list_lock only where the kernel takes it.  Caches created
 *           with a sheaf_capacity (vm_area_struct and maple_node, 32) also
 *           have per-CPU sheaves in front of all that (below).
 *
 * What the model keeps.  Every slab's objects, free pointers, inuse and
 * frozen state, the per-CPU freelist, the per-node partial lists in their
 * kernel order (head/tail insertion), the cpu partial chain, and the
 * CONFIG_SLUB_STATS counters with their sysfs names, incremented where
 * that era's code increments them.  Every load and store the kernel code
 * makes on those structures goes to the cache model at the structure's
 * simulated address: kmem_cache, kmem_cache_cpu, kmem_cache_node (list
 * head and list_lock), struct page (one 64-byte line in the vmemmap), the
 * free pointer word inside each object, and the object itself when it is
 * zeroed for __GFP_ZERO.  Locks (node list_lock, the slab lock of the
 * 2.6 eras) are engine resources: a CPU that finds one held waits.
 *
 * Sheaves (6.18, Vlastimil Babka's "SLUB percpu sheaves").  A cache made
 * with kmem_cache_args.sheaf_capacity has, per CPU, a slub_percpu_sheaves
 * {lock, main, spare, rcu_free} in the per-CPU area, and per node a
 * node_barn {lock, sheaves_full, sheaves_empty, nr_full, nr_empty}.  A
 * sheaf is a slab_sheaf {barn_list, cache, size, node, objects[]} that the
 * kernel kzallocs (struct_size of capacity pointers: 288 bytes for 32,
 * so kmalloc-512), and so does the model, through its own kmalloc: the
 * sheaves show up as kmalloc-512 allocations, as they do in the kernel.
 * Allocation pops objects[--size] of main (alloc_from_pcs); an empty main
 * is swapped with a non-empty spare, traded in the barn for a full sheaf
 * (barn_get), or, when the caller may sleep, refilled through
 * __kmem_cache_alloc_bulk, which takes objects one by one from the cpu
 * freelist and ___slab_alloc, the classic paths and counters.  Free pushes
 * objects[size++] (free_to_pcs); a full main is swapped with a non-full
 * spare, traded in the barn for an empty sheaf (barn_put) unless the barn
 * holds MAX_FULL_SHEAVES (-E2BIG: the spare is flushed to the slabs by
 * __kmem_cache_free_bulk and reused), else a new empty sheaf is
 * allocated, and as a last resort main is flushed in batches of
 * PCS_BATCH_MAX.  Only objects of the local node go into sheaves, and an
 * allocation for another node bypasses them.  Every access to the sheaf
 * (size, objects[] entries), to slub_percpu_sheaves (lock byte, main,
 * spare) and to the barn (lock, list heads, counts, list links in the
 * sheaves) goes to the cache model; the barn lock is an engine lock, the
 * per-CPU local_trylock a byte that never fails here (no interrupts).
 * The node_barn itself is placed in its node's static area like
 * kmem_cache_node (the kernel kmalloc_node()s it at cache creation).
 * Left out: kfree_rcu's rcu_free sheaf (traces do not tell kfree_rcu from
 * kfree), the prefilled-sheaf API (kmem_cache_prefill_sheaf, used by the
 * maple tree for preallocation; traces show its objects as ordinary
 * allocations), kmem_cache_shrink's barn_shrink, and strict_numa
 * mempolicies.
 *
 * What it leaves out.  Debug caches (red zones, poisoning, user tracking:
 * SLUB_DEBUG off), memcg accounting, freelist randomisation and hardening
 * (CONFIG_SLAB_FREELIST_RANDOM/HARDENED off: freelists are in ascending
 * address order, pointers stored plainly), pfmemalloc, kmem_cache_shrink,
 * memory policies and cpusets in get_any_partial's zonelist walk (it is
 * modelled: another node's partial slab before a new page, gated by
 * remote_node_defrag_ratio against the simulated clock as the kernel
 * gates it against get_cycles()), the parts of sheaves listed above, and
 * interrupts: an operation runs to completion on its CPU,
 * so the races the kernel re-checks for (a cpu slab appearing while
 * interrupts were enabled) never happen and cmpxchg never fails.
 */
#include "models/alloc/slub.h"
#include "models/page/page-alloc.h"
#include "models/alloc/kmalloc-classes.h"
#include "models/alloc/paths.h"
#include "sim/core/errors.h"

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

static const SlubEra eras[] = {
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
#define SH_SIZE       24
#define SH_OBJECTS    32
/* slub_percpu_sheaves: local_trylock_t (its acquired byte), main, spare,
 * rcu_free. */
#define PCS_LOCK      0
#define PCS_MAIN      8
#define PCS_SPARE     16
#define PCS_SIZE      32
/* node_barn: lock, sheaves_full, sheaves_empty, nr_full, nr_empty. */
#define BARN_LOCK     0
#define BARN_FULL     8
#define BARN_EMPTY    24
#define BARN_NR_FULL  40
#define BARN_NR_EMPTY 44

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

SIM_PATHS_DEFINE (SLUB_PATHS)

/* ------------------------------------------------------------------ */
/* State                                                               */

typedef struct SlubCache SlubCache;
typedef struct Slab Slab;

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
  SimAddr *objects;         /* capacity entries */
} Sheaf;

/* slub_percpu_sheaves of one CPU. */
typedef struct {
  Sheaf   *main;            /* never NULL */
  Sheaf   *spare;           /* NULL, empty or full */
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
  guint      sheaf_capacity; /* 0: no sheaves */
  Pcs       *pcs;           /* per CPU, NULL without sheaves */
  Barn      *barn;          /* per node, NULL without sheaves */
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
  GHashTable    *slab_of;   /* slab base address -> Slab */
  GHashTable    *large;     /* pass-through page address -> order */
  guint64        large_pages;
  /* 2.6.33/2.6.34 placement (PCPU_STATIC_ARRAY, PCPU_KMALLOC_STATIC). */
  SimAddr       *pcpu_unit;     /* each CPU's per-CPU unit */
  guint          pcpu_slots;    /* 2.6.33: kmem_cache_cpu[] slots handed out */
  guint          pcpu_dyn;      /* 2.6.34: bytes of the dynamic part used */
  SimAddr        kmalloc_kc;    /* the static kmalloc_caches[] array */
};

static const char *const stat_names[SIM_SLUB_N_STATS] = {
#define SLUB_STAT_NAME(e, n, slot) n,
  SIM_SLUB_STATS (SLUB_STAT_NAME)
#undef SLUB_STAT_NAME
};

/* Where each counter sits in 6.18's kmem_cache_cpu stat[] array. */
static const guint8 stat_slot_618[SIM_SLUB_N_STATS] = {
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
  return sim_machine_socket_of (m->env.machine, cpu) % m->n_nodes;
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
stat_add (SimSlub *m, SimOp *op, SlubCache *s, SimSlubStat item, guint v)
{
  s->stat[item] += v;
  if (m->era->stats && m->p.stats)
    {
      guint slot = (guint) item;
      if (m->era->id == SIM_SLUB_6_18)
        slot = stat_slot_618[item];
      else if (m->era->pcpu_layout != PCPU_PACKED)
        slot = item < SIM_SLUB_ALLOC_NODE_MISMATCH ? (guint) item
               : item <= SIM_SLUB_DEACTIVATE_REMOTE_FREES ? (guint) item - 1
               : CLASSIC_2_6_N_STATS - 1;     /* ORDER_FALLBACK */
      /* c->stat[si]++ (2.6.x, irqs off) / raw_cpu_inc (6.18): an
       * unlocked increment in memory. */
      sim_op_rmw_local (op, s->cpu[op->cpu].addr + m->era->cpu_stat_offset + 4 * slot, 4,
                        SIM_MEM_CPU_SLAB, SIM_X_THIS_CPU_OP, SIM_TOK_NOW);
    }
}

static inline void
stat (SimSlub *m, SimOp *op, SlubCache *s, SimSlubStat item)
{
  stat_add (m, op, s, item, 1);
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

static void
node_lock (SimOp *op, SlubNode *n)
{
  sim_op_lock (op, &n->list_lock, n->addr + KN_LOCK);
}

static void
node_unlock (SimOp *op, SlubNode *n)
{
  sim_op_unlock (op, &n->list_lock, n->addr + KN_LOCK);
}

/* ------------------------------------------------------------------ */
/* Partial lists                                                       */

static void
add_partial (SimSlub *m, SimOp *op, SlubNode *n, Slab *slab, gboolean tail)
{
  sim_op_path (op, &m->path[P_PARTIAL_OP]);
  /* list_add touches the list head, the neighbour's list links and the
   * slab's own struct page; nr_partial++. */
  sim_op_write (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  sim_op_write (op, n->addr + KN_PARTIAL, 16, SIM_MEM_CACHE_META);
  Slab *nb = tail ? n->tail : n->head;
  if (nb)
    sim_op_write (op, nb->page + 24, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_write (op, slab->page + 24, 16, SIM_MEM_STRUCT_PAGE);

  slab->prev = slab->next = NULL;
  if (tail)
    {
      slab->prev = n->tail;
      if (n->tail)
        n->tail->next = slab;
      else
        n->head = slab;
      n->tail = slab;
    }
  else
    {
      slab->next = n->head;
      if (n->head)
        n->head->prev = slab;
      else
        n->tail = slab;
      n->head = slab;
    }
  n->nr_partial++;
  slab->where = WHERE_NODE_PARTIAL;
}

static void
remove_partial (SimSlub *m, SimOp *op, SlubNode *n, Slab *slab)
{
  g_assert (slab->where == WHERE_NODE_PARTIAL);
  sim_op_path (op, &m->path[P_PARTIAL_OP]);
  sim_op_write (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (slab->prev)
    sim_op_write (op, slab->prev->page + 24, 8, SIM_MEM_STRUCT_PAGE);
  else
    sim_op_write (op, n->addr + KN_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (slab->next)
    sim_op_write (op, slab->next->page + 32, 8, SIM_MEM_STRUCT_PAGE);
  else
    sim_op_write (op, n->addr + KN_PARTIAL + 8, 8, SIM_MEM_CACHE_META);
  sim_op_read (op, slab->page + 24, 16, SIM_MEM_STRUCT_PAGE);

  if (slab->prev)
    slab->prev->next = slab->next;
  else
    n->head = slab->next;
  if (slab->next)
    slab->next->prev = slab->prev;
  else
    n->tail = slab->prev;
  slab->prev = slab->next = NULL;
  n->nr_partial--;
  slab->where = WHERE_NONE;
}

/* ------------------------------------------------------------------ */
/* Slab creation and destruction                                       */

static Slab *
new_slab (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp)
{
  sim_op_path (op, &m->path[P_NEW_SLAB]);
  /* allocate_slab: first the preferred order with __GFP_NORETRY, then
   * the minimum order (s->min) — ORDER_FALLBACK. */
  guint order = s->g.order, objects = s->g.objects;
  SimAddr base = sim_page_alloc (m->env.pages, op, order, node,
                                 gfp & ~SIM_GFP_ZERO, order > 0 || m->era->tid);
  if (base == 0 && s->g.min_order != s->g.order)
    {
      order = s->g.min_order;
      objects = s->g.min_objects;
      base = sim_page_alloc (m->env.pages, op, order, node, gfp & ~SIM_GFP_ZERO,
                             order > 0 || m->era->tid);
      if (base != 0)
        stat (m, op, s, SIM_SLUB_ORDER_FALLBACK);
    }
  if (base == 0)
    return NULL;

  Slab *slab = g_malloc0 (sizeof (Slab) + objects * sizeof (guint16));
  slab->base = base;
  slab->page = sim_page_struct (m->env.pages, base);
  slab->s = s;
  slab->objects = (guint16) objects;
  slab->order = (guint8) order;
  slab->node = (guint16) (sim_page_node_of (m->env.pages, base) % m->n_nodes);
  sim_lock_init (&slab->lock, "slab_lock");
  g_hash_table_insert (m->slab_of, GSIZE_TO_POINTER (base), slab);

  /* Set up struct page (PG_slab, slab, offset/objects, freelist) and
   * thread the freelist in ascending address order: one store of the
   * free pointer into every object. */
  wr_page (op, slab);
  for (guint i = 0; i < objects; i++)
    {
      slab->next_free[i] = (i + 1 < objects) ? (guint16) (i + 1) : NIL;
      sim_op_path (op, &m->path[P_INIT_OBJECT]);
      wr_freeptr (op, slab, i);
    }
  slab->freelist = 0;
  slab->inuse = 0;

  SlubNode *n = node_of_slab (s, slab);
  /* inc_slabs_node: atomic counters in kmem_cache_node */
  sim_op_atomic (op, n->addr + KN_NR_SLABS, 8, SIM_MEM_CACHE_META, SIM_X_LOCK_CMPXCHG);
  n->nr_slabs++;
  n->total_objects += objects;
  return slab;
}

static void
discard_slab (SimSlub *m, SimOp *op, Slab *slab)
{
  SlubCache *s = slab->s;
  SlubNode *n = node_of_slab (s, slab);
  sim_op_path (op, &m->path[P_DISCARD_SLAB]);
  sim_op_atomic (op, n->addr + KN_NR_SLABS, 8, SIM_MEM_CACHE_META, SIM_X_LOCK_CMPXCHG);
  n->nr_slabs--;
  n->total_objects -= slab->objects;
  wr_page (op, slab);                /* __ClearPageSlab, reset mapcount */
  g_hash_table_remove (m->slab_of, GSIZE_TO_POINTER (slab->base));
  sim_page_free (m->env.pages, op, slab->base, slab->order);
  g_free (slab);
}

/* ------------------------------------------------------------------ */
/* Deactivation and cpu partial lists                                  */

static void
unfreeze_2_6 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, gboolean tail)
{
  SlubNode *n = node_of_slab (s, slab);
  guint min_partial = m->era->min_partial_fixed ? m->era->min_partial_fixed : s->g.min_partial;

  slab->frozen = 0;
  slab->where = WHERE_NONE;
  wr_page (op, slab);                          /* ClearSlabFrozen */
  /* 2.6.23's unfreeze_slab has no tail argument: a slab with free
   * objects goes to the head (add_partial is list_add); only empty ones
   * go to the tail (add_partial_tail). */
  if (m->era->id == SIM_SLUB_2_6_23)
    tail = FALSE;
  if (slab->inuse)
    {
      if (slab->freelist != NIL)
        {
          node_lock (op, n);
          add_partial (m, op, n, slab, tail);
          node_unlock (op, n);
          stat (m, op, s, tail ? SIM_SLUB_DEACTIVATE_TO_TAIL : SIM_SLUB_DEACTIVATE_TO_HEAD);
        }
      else
        stat (m, op, s, SIM_SLUB_DEACTIVATE_FULL);
      slab_unlock (m, op, slab);
    }
  else
    {
      stat (m, op, s, SIM_SLUB_DEACTIVATE_EMPTY);
      sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
      if (n->nr_partial < min_partial)
        {
          /* Keep a few empty slabs, at the tail so they are used last. */
          node_lock (op, n);
          add_partial (m, op, n, slab, TRUE);
          node_unlock (op, n);
          slab_unlock (m, op, slab);
        }
      else
        {
          slab_unlock (m, op, slab);
          stat (m, op, s, SIM_SLUB_FREE_SLAB);
          discard_slab (m, op, slab);
        }
    }
}

/* deactivate_slab of 2.6.23/33/34: give the cpu freelist back to the
 * slab one object at a time, then unfreeze. */
static void
deactivate_2_6 (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c)
{
  Slab *slab = c->slab;
  gboolean tail = TRUE;
  sim_op_path (op, &m->path[P_DEACTIVATE]);
  rd_page (op, slab);
  if (slab->freelist != NIL)
    stat (m, op, s, SIM_SLUB_DEACTIVATE_REMOTE_FREES);
  while (c->freelist != NIL)
    {
      guint16 obj = c->freelist;
      sim_op_path (op, &m->path[P_MOVE_OBJECT]);
      rd_freeptr (op, slab, obj);
      c->freelist = slab->next_free[obj];
      slab->next_free[obj] = slab->freelist;
      wr_freeptr (op, slab, obj);
      slab->freelist = obj;
      slab->inuse--;
      tail = FALSE;
    }
  wr_page (op, slab);
  if (m->era->page_lockless)
    wr_page (op, slab);                        /* page->lockless_freelist = NULL */
  else
    wr_cpu (op, c, CC_FREELIST);
  c->slab = NULL;
  if (m->era->cpu_ptr_array && m->era->page_lockless)
    sim_op_write (op, s->addr + m->era->kmem_cache_size + 8 * m->n_nodes + 8 * op->cpu, 8,
                  SIM_MEM_CACHE_META);         /* s->cpu_slab[cpu] = NULL */
  else
    wr_cpu (op, c, CC_PAGE);
  unfreeze_2_6 (m, op, s, slab, tail);
}

/* deactivate_slab of 6.18: splice the cpu freelist onto the slab's with
 * one cmpxchg, unfreezing it, then file the slab. */
static void
deactivate_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 freelist)
{
  SlubNode *n = node_of_slab (s, slab);
  gboolean tail = FALSE;
  sim_op_path (op, &m->path[P_DEACTIVATE]);
  rd_page (op, slab);
  if (slab->freelist != NIL)
    {
      stat (m, op, s, SIM_SLUB_DEACTIVATE_REMOTE_FREES);
      tail = TRUE;
    }
  /* Stage one: walk the cpu freelist to count it and find its tail. */
  guint free_delta = 0;
  guint16 last = NIL;
  for (guint16 it = freelist; it != NIL; it = slab->next_free[it])
    {
      sim_op_path (op, &m->path[P_MOVE_OBJECT]);
      rd_freeptr (op, slab, it);
      last = it;
      free_delta++;
    }
  /* Stage two: splice and unfreeze. */
  if (last != NIL)
    {
      slab->next_free[last] = slab->freelist;
      wr_freeptr (op, slab, last);
      slab->freelist = freelist;
      slab->inuse -= free_delta;
    }
  rmw_page (op, slab);
  slab->frozen = 0;
  slab->where = WHERE_NONE;

  /* Stage three: file it. */
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (slab->inuse == 0 && n->nr_partial >= s->g.min_partial)
    {
      stat (m, op, s, SIM_SLUB_DEACTIVATE_EMPTY);
      discard_slab (m, op, slab);
      stat (m, op, s, SIM_SLUB_FREE_SLAB);
    }
  else if (slab->freelist != NIL)
    {
      node_lock (op, n);
      add_partial (m, op, n, slab, tail);
      node_unlock (op, n);
      stat (m, op, s, tail ? SIM_SLUB_DEACTIVATE_TO_TAIL : SIM_SLUB_DEACTIVATE_TO_HEAD);
    }
  else
    stat (m, op, s, SIM_SLUB_DEACTIVATE_FULL);
}

/* __put_partials (6.18): move a cpu partial chain to the node lists. */
static void
put_partials_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *chain)
{
  SlubNode *n = NULL;
  Slab *discard = NULL;
  while (chain)
    {
      Slab *slab = chain;
      chain = slab->next;
      SlubNode *sn = node_of_slab (s, slab);
      if (sn != n)
        {
          if (n)
            node_unlock (op, n);
          n = sn;
          node_lock (op, n);
        }
      sim_op_path (op, &m->path[P_CPU_PARTIAL_OP]);
      rd_page (op, slab);
      slab->next = NULL;
      slab->where = WHERE_NONE;
      if (slab->inuse == 0 && n->nr_partial >= s->g.min_partial)
        {
          slab->next = discard;
          discard = slab;
        }
      else
        {
          add_partial (m, op, n, slab, TRUE);
          stat (m, op, s, SIM_SLUB_FREE_ADD_PARTIAL);
        }
    }
  if (n)
    node_unlock (op, n);
  while (discard)
    {
      Slab *slab = discard;
      discard = slab->next;
      stat (m, op, s, SIM_SLUB_DEACTIVATE_EMPTY);
      discard_slab (m, op, slab);
      stat (m, op, s, SIM_SLUB_FREE_SLAB);
    }
}

/* put_cpu_partial (6.18): push @slab on this CPU's partial chain; with
 * @drain, a chain already at cpu_partial_slabs goes to the node first. */
static void
put_cpu_partial_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, gboolean drain)
{
  CpuSlab *c = &s->cpu[op->cpu];
  Slab *old = c->partial, *to_put = NULL;
  guint slabs = 0;
  sim_op_path (op, &m->path[P_CPU_PARTIAL_OP]);
  rd_cpu (op, c, CC_PARTIAL);
  if (old)
    {
      rd_page (op, old);                       /* oldslab->slabs */
      if (drain && old->chain_len >= s->g.cpu_partial_slabs)
        {
          to_put = old;
          old = NULL;
        }
      else
        slabs = old->chain_len;
    }
  slabs++;
  slab->chain_len = (guint16) slabs;
  slab->next = old;
  slab->prev = NULL;
  slab->where = WHERE_CPU_PARTIAL;
  slab->cpu = (guint16) op->cpu;
  wr_page (op, slab);
  c->partial = slab;
  wr_cpu (op, c, CC_PARTIAL);
  if (to_put)
    {
      put_partials_618 (m, op, s, to_put);
      stat (m, op, s, SIM_SLUB_CPU_PARTIAL_DRAIN);
    }
}

/* ------------------------------------------------------------------ */
/* get_partial                                                         */

static Slab *
get_partial_node (SimSlub *m, SimOp *op, SlubCache *s, SlubNode *n)
{
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (n->nr_partial == 0)
    return NULL;
  node_lock (op, n);
  Slab *first = NULL;
  guint moved = 0;
  sim_op_read (op, n->addr + KN_PARTIAL, 8, SIM_MEM_CACHE_META);
  for (Slab *slab = n->head, *next; slab; slab = next)
    {
      next = slab->next;
      rd_page (op, slab);
      remove_partial (m, op, n, slab);
      if (!m->era->tid)
        {
          /* 2.6: lock_and_freeze_slab takes the first that trylocks;
           * nothing else holds a slab lock here, so the first. */
          slab_lock (m, op, slab);
          slab->frozen = 1;
          wr_page (op, slab);
          first = slab;
          break;
        }
      if (first == NULL)
        {
          first = slab;
          stat (m, op, s, SIM_SLUB_ALLOC_FROM_PARTIAL);
          if (s->g.cpu_partial_slabs == 0)
            break;
        }
      else
        {
          put_cpu_partial_618 (m, op, s, slab, FALSE);
          stat (m, op, s, SIM_SLUB_CPU_PARTIAL_NODE);
          if (++moved > s->g.cpu_partial_slabs / 2)
            break;
        }
    }
  node_unlock (op, n);
  return first;
}

/* get_any_partial (CONFIG_NUMA): take a partial slab from another node
 * rather than a new page, when the other node has more than min_partial
 * of them.  remote_node_defrag_ratio (2.6.23: defrag_ratio) gates it:
 * attempted unless get_cycles() % 1024 > ratio, i.e. about 98 % of the
 * time with 6.18's and 2.6.34's 1000, 10 % with 2.6.23's 100.  get_cycles()
 * is the TSC; here it is the simulated clock, in cycles, at which the
 * allocation call began (the phase of the read within 1024 cycles is as
 * arbitrary in the kernel; the call's start keeps it deterministic and
 * independent of how the path before it is costed).  The zonelist is that
 * of the CPU's node (slab_node / mempolicy_slab_node with no mempolicy):
 * nearest first, the CPU's own node, then the others in the order
 * build_zonelists gives equal distances (the nodes after it, then those
 * before).  One Normal zone per node is walked. */
static Slab *
get_any_partial (SimSlub *m, SimOp *op, SlubCache *s)
{
  if (m->n_nodes < 2)
    return NULL;                     /* !CONFIG_NUMA, or one node */
  sim_op_path (op, &m->path[P_ANY_PARTIAL]);
  rd_kc (op, s, m->era->kmem_cache_size - 8);  /* s->remote_node_defrag_ratio */
  guint ratio = m->era->defrag_ratio;
  SimTime tsc = op->t - sim_op_cycles (op);      /* the call's start */
  if (ratio == 0 || tsc % 1024 > ratio)
    return NULL;
  guint min_partial = m->era->min_partial_fixed ? m->era->min_partial_fixed : s->g.min_partial;
  guint local = node_of_cpu (m, op->cpu);
  for (guint k = 0; k < m->n_nodes; k++)
    {
      guint nid = (local + k) % m->n_nodes;
      SlubNode *n = &s->node[nid];
      sim_op_path (op, &m->path[P_ANY_PARTIAL_ZONE]);
      rd_kc (op, s, m->era->kmem_cache_size + 8 * nid);  /* get_node (s, nid) */
      sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
      if (n->nr_partial > min_partial)
        {
          Slab *slab = get_partial_node (m, op, s, n);
          if (slab)
            return slab;
        }
    }
  return NULL;
}

/* get_partial: the requested node (the CPU's for NUMA_NO_NODE), then,
 * unless __GFP_THISNODE (6.18: only when a node was asked for), any
 * node. */
static Slab *
get_partial (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp)
{
  guint nid = node == SIM_NUMA_NO_NODE ? node_of_cpu (m, op->cpu) : (guint) node % m->n_nodes;
  rd_kc (op, s, m->era->kmem_cache_size + 8 * nid);      /* s->node[nid] */
  Slab *slab = get_partial_node (m, op, s, &s->node[nid]);
  gboolean thisnode = (gfp & SIM_GFP_THISNODE)
                      && (!m->era->tid || node != SIM_NUMA_NO_NODE);
  if (slab || thisnode)
    return slab;
  return get_any_partial (m, op, s);
}

/* ------------------------------------------------------------------ */
/* Allocation                                                          */

static inline gboolean
node_match (const Slab *slab, gint node)
{
  return node == SIM_NUMA_NO_NODE || slab->node == (guint) node;
}

/* The load of this CPU's kmem_cache_cpu pointer: s->cpu_slab (the per-CPU
 * offset is in a register), or s->cpu_slab[cpu] in the eras with an array
 * (2.6.23: the cpu slab page's), issued once @after is ready. */
static SimTok
ld_cpu_slab (SimSlub *m, SimOp *op, SlubCache *s, SimTok after)
{
  if (m->era->cpu_ptr_array)
    return sim_op_load (op, s->addr + m->era->kmem_cache_size + 8 * m->n_nodes + 8 * op->cpu, 8,
                        SIM_MEM_CACHE_META, after);
  return ld_kc (op, s, KC_CPU_SLAB, after);
}

static guint16
take_slab_freelist (SimSlub *m, SimOp *op, CpuSlab *c, Slab *slab)
{
  /* load_freelist / get_freelist: the first object is returned, the rest
   * becomes the cpu freelist; the slab looks fully used meanwhile. */
  sim_op_path (op, &m->path[P_LOAD_FREELIST]);
  guint16 obj = slab->freelist;
  rd_freeptr (op, slab, obj);
  c->freelist = slab->next_free[obj];
  slab->freelist = NIL;
  slab->inuse = slab->objects;
  if (m->era->tid)
    rmw_page (op, slab);
  else
    wr_page (op, slab);
  if (m->era->page_lockless)
    wr_page (op, slab);
  else
    wr_cpu (op, c, CC_FREELIST);
  return obj;
}

static void
install_cpu_slab (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c, Slab *slab)
{
  c->slab = slab;
  c->node = slab->node;
  slab->frozen = 1;
  slab->where = WHERE_CPU;
  slab->cpu = (guint16) op->cpu;
  if (m->era->cpu_ptr_array && m->era->page_lockless)
    sim_op_write (op, s->addr + m->era->kmem_cache_size + 8 * m->n_nodes + 8 * op->cpu, 8,
                  SIM_MEM_CACHE_META);
  else
    wr_cpu (op, c, m->era->tid ? CC_SLAB_618 : CC_PAGE);
}

/* __slab_alloc of the 2.6 eras. */
static Slab *
slow_alloc_2_6 (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c, gint node,
                guint32 gfp, guint16 *out)
{
  sim_op_path (op, &m->path[P_SLOW_ALLOC]);
  Slab *slab = c->slab;
  if (slab)
    {
      slab_lock (m, op, slab);
      rd_page (op, slab);
      if (node_match (slab, node))
        {
          stat (m, op, s, SIM_SLUB_ALLOC_REFILL);
          if (slab->freelist != NIL)
            goto load;
        }
      deactivate_2_6 (m, op, s, c);
    }
  slab = get_partial (m, op, s, node, gfp);
  if (slab)
    {
      install_cpu_slab (m, op, s, c, slab);
      stat (m, op, s, SIM_SLUB_ALLOC_FROM_PARTIAL);
      goto load;
    }
  slab = new_slab (m, op, s, node, gfp);
  if (slab == NULL)
    return NULL;
  stat (m, op, s, SIM_SLUB_ALLOC_SLAB);
  slab_lock (m, op, slab);
  install_cpu_slab (m, op, s, c, slab);
load:
  *out = take_slab_freelist (m, op, c, slab);
  c->node = slab->node;
  slab_unlock (m, op, slab);
  stat (m, op, s, SIM_SLUB_ALLOC_SLOWPATH);
  return slab;
}

/* ___slab_alloc of 6.18. */
static Slab *
slow_alloc_618 (SimSlub *m, SimOp *op, SlubCache *s, CpuSlab *c, gint node,
                guint32 gfp, guint16 *out)
{
  sim_op_path (op, &m->path[P_SLOW_ALLOC]);
  stat (m, op, s, SIM_SLUB_ALLOC_SLOWPATH);
  Slab *slab = c->slab;
  rd_cpu (op, c, CC_SLAB_618);
  if (slab)
    {
      if (!node_match (slab, node))
        {
          stat (m, op, s, SIM_SLUB_ALLOC_NODE_MISMATCH);
          guint16 fl = c->freelist;
          c->slab = NULL;
          c->freelist = NIL;
          c->tid++;
          rmw_cpu (op, c, CC_FREELIST, 16, op->last);
          deactivate_618 (m, op, s, slab, fl);
        }
      else
        {
          rd_page (op, slab);
          if (slab->freelist != NIL)
            {
              stat (m, op, s, SIM_SLUB_ALLOC_REFILL);
              *out = take_slab_freelist (m, op, c, slab);
              slab->frozen = 1;
              c->tid++;
              return slab;
            }
          /* get_freelist found nothing: the slab is full and simply
           * forgotten (it is on no list and unfrozen). */
          rmw_page (op, slab);
          slab->frozen = 0;
          slab->where = WHERE_NONE;
          c->slab = NULL;
          c->tid++;
          wr_cpu (op, c, CC_SLAB_618);
          stat (m, op, s, SIM_SLUB_DEACTIVATE_BYPASS);
        }
    }

  /* new_slab: first the cpu partial chain. */
  while (c->partial)
    {
      rd_cpu (op, c, CC_PARTIAL);
      slab = c->partial;
      rd_page (op, slab);
      /* slub_set_percpu_partial: the next slab keeps the chain length it
       * was given when it was pushed, which is still right. */
      c->partial = slab->next;
      wr_cpu (op, c, CC_PARTIAL);
      slab->next = NULL;
      if (node_match (slab, node))
        {
          install_cpu_slab (m, op, s, c, slab);
          *out = take_slab_freelist (m, op, c, slab);
          stat (m, op, s, SIM_SLUB_CPU_PARTIAL_ALLOC);
          c->tid++;
          return slab;
        }
      slab->where = WHERE_NONE;
      put_partials_618 (m, op, s, slab);
    }

  slab = get_partial (m, op, s, node, gfp);
  if (slab == NULL)
    {
      slab = new_slab (m, op, s, node, gfp);
      if (slab == NULL)
        return NULL;
      stat (m, op, s, SIM_SLUB_ALLOC_SLAB);
    }
  install_cpu_slab (m, op, s, c, slab);
  *out = take_slab_freelist (m, op, c, slab);
  c->tid++;
  return slab;
}

static void
zero_object (SimOp *op, SlubCache *s, SimAddr addr)
{
  sim_op_touch_range (op, addr, s->g.object_size, SIM_ACC_WRITE, SIM_MEM_OBJECT);
}

static gboolean alloc_from_pcs (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp,
                                SimAddr *out);

SimAddr
sim_slub_cache_alloc (SimSlub *m, SimOp *op, SimCacheId id, gint node, guint32 gfp)
{
  g_return_val_if_fail (id < m->caches->len, 0);
  SlubCache *s = g_ptr_array_index (m->caches, id);
  CpuSlab *c = &s->cpu[op->cpu];
  const SlubEra *e = m->era;

  /* 6.18 slab_alloc_node: the sheaves first; what they cannot serve falls
   * through to the classic paths. */
  SimAddr from_pcs;
  if (s->pcs && alloc_from_pcs (m, op, s, node, gfp, &from_pcs))
    {
      if (gfp & SIM_GFP_ZERO)
        zero_object (op, s, from_pcs);
      s->live++;
      return from_pcs;
    }

  sim_op_path (op, &m->path[P_FAST_ALLOC]);
  /* Before the lockless fast path (2.6.39) slab_alloc ran with irqs off. */
  if (!e->tid)
    sim_op_irqsave (op);
  /* The dependency chain of the fast path: the kmem_cache_cpu pointer, then
   * c->freelist (c->tid in the same line) and the free pointer's offset
   * independently, then the object's free pointer, whose address is the
   * freelist head: the pointer chase that serialises. */
  SimTok t_c = ld_cpu_slab (m, op, s, SIM_TOK_NOW);
  SimTok t_fl;
  Slab *slab = c->slab;
  if (e->page_lockless)
    {
      sim_op_use (op, t_c);
      if (slab)
        rd_page (op, slab);                    /* page->lockless_freelist */
      t_fl = op->t;
    }
  else
    t_fl = ld_cpu (op, c, CC_FREELIST, 8, t_c);

  guint16 obj;
  if (slab && c->freelist != NIL && node_match (slab, node))
    {
      /* Fast path: pop the cpu freelist. */
      SimTok t_off = op->t;
      if (e->cpu_has_offset)
        t_off = ld_cpu (op, c, CC_OFFSET_2_6_33, 8, t_c);   /* c->offset, c->objsize */
      else if (!e->page_lockless)
        t_off = ld_kc (op, s, KC_OFFSET, SIM_TOK_NOW);     /* s->offset */
      obj = c->freelist;
      SimTok t_next = ld_freeptr (op, slab, obj, MAX (t_fl, t_off));
      c->freelist = slab->next_free[obj];
      if (e->tid)
        {
          rmw_cpu (op, c, CC_FREELIST, 16, t_next);  /* cmpxchg (freelist, tid) */
          c->tid++;
        }
      else if (e->page_lockless)
        {
          sim_op_use (op, t_next);
          wr_page (op, slab);
        }
      else
        sim_op_store (op, c->addr + CC_FREELIST, 8, SIM_MEM_CPU_SLAB, t_next);
      stat (m, op, s, SIM_SLUB_ALLOC_FASTPATH);
      /* The caller gets the object: its address must be there. */
      sim_op_use (op, t_fl);
    }
  else
    {
      slab = e->tid ? slow_alloc_618 (m, op, s, c, node, gfp, &obj)
                    : slow_alloc_2_6 (m, op, s, c, node, gfp, &obj);
      if (slab == NULL)
        {
          if (!e->tid)
            sim_op_irqrestore (op);
          return 0;
        }
    }
  if (!e->tid)
    sim_op_irqrestore (op);                    /* before the __GFP_ZERO memset */
  SimAddr addr = obj_addr (slab, obj);
  if (gfp & SIM_GFP_ZERO)
    zero_object (op, s, addr);
  s->live++;
  return addr;
}

/* ------------------------------------------------------------------ */
/* Free                                                                */

static void
slow_free_2_6 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 obj)
{
  sim_op_path (op, &m->path[P_SLOW_FREE]);
  stat (m, op, s, SIM_SLUB_FREE_SLOWPATH);
  slab_lock (m, op, slab);
  rd_page (op, slab);
  guint16 prior = slab->freelist;
  slab->next_free[obj] = prior;
  wr_freeptr (op, slab, obj);
  slab->freelist = obj;
  slab->inuse--;
  wr_page (op, slab);
  if (slab->frozen)
    {
      stat (m, op, s, SIM_SLUB_FREE_FROZEN);
      slab_unlock (m, op, slab);
      return;
    }
  SlubNode *n = node_of_slab (s, slab);
  if (slab->inuse == 0)
    {
      if (prior != NIL)
        {
          node_lock (op, n);
          remove_partial (m, op, n, slab);
          node_unlock (op, n);
          stat (m, op, s, SIM_SLUB_FREE_REMOVE_PARTIAL);
        }
      slab_unlock (m, op, slab);
      stat (m, op, s, SIM_SLUB_FREE_SLAB);
      discard_slab (m, op, slab);
      return;
    }
  if (prior == NIL)
    {
      /* A full slab gets a free object: onto the partial list (2.6.23
       * inserted at the head, 2.6.34 at the tail). */
      node_lock (op, n);
      add_partial (m, op, n, slab, m->era->id != SIM_SLUB_2_6_23);
      node_unlock (op, n);
      stat (m, op, s, SIM_SLUB_FREE_ADD_PARTIAL);
    }
  slab_unlock (m, op, slab);
}

/* __slab_free of 6.18 for a chain head..tail of @cnt objects of @slab
 * already linked through their free pointers (one object from slab_free,
 * a detached freelist from a bulk free). */
static void
slow_free_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 head, guint16 tail,
               guint cnt)
{
  sim_op_path (op, &m->path[P_SLOW_FREE]);
  stat (m, op, s, SIM_SLUB_FREE_SLOWPATH);
  rd_page (op, slab);
  guint16 prior = slab->freelist;
  gboolean was_frozen = slab->frozen;
  /* kmem_cache_has_cpu_partial: CONFIG_SLUB_CPU_PARTIAL and no debug,
   * whatever cpu_partial says; cpu_partial=0 only makes every chain one
   * slab long (put_cpu_partial drains the old one first). */
  gboolean has_cpu_partial = m->era->cpu_partial;
  SlubNode *n = NULL;
  gboolean on_node_partial = FALSE;

  if ((slab->inuse == cnt || prior == NIL) && !was_frozen
      && (!has_cpu_partial || prior != NIL))
    {
      n = node_of_slab (s, slab);
      node_lock (op, n);
      on_node_partial = slab->where == WHERE_NODE_PARTIAL;
    }
  slab->next_free[tail] = prior;
  wr_freeptr (op, slab, tail);
  slab->freelist = head;
  slab->inuse -= cnt;
  rmw_page (op, slab);                         /* slab_update_freelist */

  if (n == NULL)
    {
      if (was_frozen)
        stat (m, op, s, SIM_SLUB_FREE_FROZEN);
      else if (has_cpu_partial && prior == NIL)
        {
          put_cpu_partial_618 (m, op, s, slab, TRUE);
          stat (m, op, s, SIM_SLUB_CPU_PARTIAL_FREE);
        }
      return;
    }
  if (prior != NIL && !on_node_partial)
    {
      /* On a cpu partial chain: not ours to move. */
      node_unlock (op, n);
      return;
    }
  sim_op_read (op, n->addr + KN_NR_PARTIAL, 8, SIM_MEM_CACHE_META);
  if (slab->inuse == 0 && n->nr_partial >= s->g.min_partial)
    {
      if (prior != NIL)
        {
          remove_partial (m, op, n, slab);
          stat (m, op, s, SIM_SLUB_FREE_REMOVE_PARTIAL);
        }
      node_unlock (op, n);
      stat (m, op, s, SIM_SLUB_FREE_SLAB);
      discard_slab (m, op, slab);
      return;
    }
  if (!has_cpu_partial && prior == NIL)
    {
      add_partial (m, op, n, slab, TRUE);
      stat (m, op, s, SIM_SLUB_FREE_ADD_PARTIAL);
    }
  node_unlock (op, n);
}

static Slab *
slab_of_addr (SimSlub *m, SimOp *op, SimAddr addr)
{
  /* virt_to_head_page: read the page's flags (PageTail) and for a tail
   * page its head pointer. */
  sim_op_path (op, &m->path[P_VIRT_TO_PAGE]);
  SimAddr head = sim_page_head (m->env.pages, addr);
  SimAddr pg = sim_page_struct (m->env.pages, addr);
  sim_op_read (op, pg, 8, SIM_MEM_STRUCT_PAGE);
  if (head != (addr & ~(SimAddr) (SIM_PAGE_SIZE - 1)))
    sim_op_read (op, sim_page_struct (m->env.pages, head), 8, SIM_MEM_STRUCT_PAGE);
  return g_hash_table_lookup (m->slab_of, GSIZE_TO_POINTER (head));
}

static gboolean free_to_pcs (SimSlub *m, SimOp *op, SlubCache *s, SimAddr addr);

static void
slab_free (SimSlub *m, SimOp *op, Slab *slab, SimAddr addr)
{
  SlubCache *s = slab->s;
  CpuSlab *c = &s->cpu[op->cpu];
  const SlubEra *e = m->era;
  guint16 obj = (guint16) ((addr - slab->base) / s->g.size);

  /* 6.18 slab_free: only objects of this CPU's node go to the sheaves. */
  if (s->pcs && slab->node == node_of_cpu (m, op->cpu) && free_to_pcs (m, op, s, addr))
    {
      s->live--;
      return;
    }

  sim_op_path (op, &m->path[P_FAST_FREE]);
  if (!e->tid)
    sim_op_irqsave (op);                       /* 2.6.x slab_free: irqs off */
  /* s came from the object's struct page (the previous load); c->freelist
   * (c->slab, c->tid beside it) and the offset are independent of each
   * other; the object's free pointer is stored with the old head. */
  SimTok t_c = ld_cpu_slab (m, op, s, op->last);
  SimTok t_fl = t_c;
  if (!e->page_lockless)
    t_fl = ld_cpu (op, c, CC_FREELIST, 8, t_c);   /* c->page / c->slab, c->freelist */
  if (e->pcpu_layout == PCPU_STATIC_ARRAY || e->pcpu_layout == PCPU_KMALLOC_STATIC)
    {
      SimTok t_pg = ld_cpu (op, c, CC_PAGE, 12, t_c);     /* c->page, c->node */
      t_fl = MAX (t_fl, t_pg);
    }
  s->live--;
  if (slab == c->slab)
    {
      SimTok t_off = t_c;
      if (e->cpu_has_offset)
        t_off = ld_cpu (op, c, CC_OFFSET_2_6_33, 8, t_c);
      else if (!e->page_lockless)
        t_off = ld_kc (op, s, KC_OFFSET, SIM_TOK_NOW);
      slab->next_free[obj] = c->freelist;
      st_freeptr (op, slab, obj, MAX (t_fl, t_off));
      c->freelist = obj;
      if (e->tid)
        {
          rmw_cpu (op, c, CC_FREELIST, 16, t_fl);
          c->tid++;
        }
      else if (e->page_lockless)
        {
          sim_op_use (op, t_c);
          wr_page (op, slab);
        }
      else
        sim_op_store (op, c->addr + CC_FREELIST, 8, SIM_MEM_CPU_SLAB, t_c);
      stat (m, op, s, SIM_SLUB_FREE_FASTPATH);
      if (!e->tid)
        sim_op_irqrestore (op);
      return;
    }
  /* The slow path's decisions wait for what the fast path loaded. */
  sim_op_use (op, t_fl);
  if (e->tid)
    slow_free_618 (m, op, s, slab, obj, obj, 1);
  else
    slow_free_2_6 (m, op, s, slab, obj);
  if (!e->tid)
    sim_op_irqrestore (op);
}

gboolean
sim_slub_free (SimSlub *m, SimOp *op, SimAddr addr)
{
  Slab *slab = slab_of_addr (m, op, addr);
  if (slab == NULL)
    {
      /* Not a slab page: a large kmalloc passed through to the page
       * allocator (kfree -> put_page / free_large_kmalloc). */
      gpointer order;
      if (!g_hash_table_lookup_extended (m->large, GSIZE_TO_POINTER (addr), NULL, &order))
        return FALSE;
      g_hash_table_remove (m->large, GSIZE_TO_POINTER (addr));
      m->large_pages -= 1u << GPOINTER_TO_UINT (order);
      sim_page_free (m->env.pages, op, addr, GPOINTER_TO_UINT (order));
      return TRUE;
    }
  rd_page (op, slab);                          /* page->slab / slab->slab_cache */
  slab_free (m, op, slab, addr);
  return TRUE;
}

/* kmem_cache_free: the cache is the caller's; slab_free still needs the
 * slab (virt_to_head_page / virt_to_slab), but not page->slab. */
gboolean
sim_slub_cache_free (SimSlub *m, SimOp *op, SimAddr addr)
{
  Slab *slab = slab_of_addr (m, op, addr);
  if (slab == NULL)
    return FALSE;          /* kmem_cache_free of a page is a kernel bug */
  slab_free (m, op, slab, addr);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* 6.18 sheaves                                                        */

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

/* alloc_empty_sheaf: kzalloc (struct_size (sheaf, objects, capacity)). */
static Sheaf *
alloc_empty_sheaf (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp)
{
  SimAddr a = sim_slub_kmalloc (m, op, SH_OBJECTS + 8 * (gsize) s->sheaf_capacity,
                                SIM_NUMA_NO_NODE, gfp | SIM_GFP_ZERO);
  if (a == 0)
    return NULL;
  Sheaf *sh = g_new0 (Sheaf, 1);
  sh->addr = a;
  sh->objects = g_new0 (SimAddr, s->sheaf_capacity);
  sim_op_write (op, a + 16, 8, SIM_MEM_CPU_SLAB);        /* sheaf->cache = s */
  stat (m, op, s, SIM_SLUB_SHEAF_ALLOC);
  return sh;
}

static void
free_empty_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh)
{
  g_assert (sh->size == 0);
  sim_slub_free (m, op, sh->addr);
  stat (m, op, s, SIM_SLUB_SHEAF_FREE);
  g_free (sh->objects);
  g_free (sh);
}

/* do_slab_free of 6.18 for a detached chain: onto the cpu freelist when
 * the slab is this CPU's (free_fastpath counts the objects), else
 * __slab_free. */
static void
do_slab_free_618 (SimSlub *m, SimOp *op, SlubCache *s, Slab *slab, guint16 head,
                  guint16 tail, guint cnt)
{
  CpuSlab *c = &s->cpu[op->cpu];
  rd_kc (op, s, KC_CPU_SLAB);
  rd_cpu (op, c, CC_TID);
  rd_cpu (op, c, CC_SLAB_618);
  if (slab != c->slab)
    {
      slow_free_618 (m, op, s, slab, head, tail, cnt);
      return;
    }
  rd_cpu (op, c, CC_FREELIST);
  slab->next_free[tail] = c->freelist;
  wr_freeptr (op, slab, tail);
  c->freelist = head;
  rmw_cpu (op, c, CC_FREELIST, 16, op->last);           /* cmpxchg (freelist, tid) */
  c->tid++;
  stat_add (m, op, s, SIM_SLUB_FREE_FASTPATH, cnt);
}

/* __kmem_cache_free_bulk: build_detached_freelist takes the last object,
 * gathers the other objects of its slab from the end of @p (giving up
 * after three of other slabs) into one chain, and frees that chain with
 * do_slab_free; repeat until @p is empty. */
static void
kmem_cache_free_bulk_618 (SimSlub *m, SimOp *op, SlubCache *s, SimAddr *p, guint size)
{
  while (size > 0)
    {
      sim_op_path (op, &m->path[P_BULK_OBJECT]);
      SimAddr object = p[--size];
      Slab *slab = slab_of_addr (m, op, object);
      g_assert (slab != NULL && slab->s == s);
      guint16 idx = (guint16) ((object - slab->base) / s->g.size);
      guint16 head = idx, tail = idx;
      guint cnt = 1;
      slab->next_free[idx] = NIL;
      wr_freeptr (op, slab, idx);
      guint same = size, lookahead = 3;
      while (size > 0)
        {
          sim_op_path (op, &m->path[P_BULK_OBJECT]);
          object = p[--size];
          if (slab_of_addr (m, op, object) == slab)
            {
              idx = (guint16) ((object - slab->base) / s->g.size);
              slab->next_free[idx] = head;
              wr_freeptr (op, slab, idx);
              head = idx;
              cnt++;
              same--;
              if (size != same)
                {
                  SimAddr t = p[size];
                  p[size] = p[same];
                  p[same] = t;
                }
              continue;
            }
          if (--lookahead == 0)
            break;
        }
      size = same;
      do_slab_free_618 (m, op, s, slab, head, tail, cnt);
    }
}

/* __kmem_cache_alloc_bulk of 6.18: objects one at a time from the cpu
 * freelist (alloc_fastpath each), ___slab_alloc when it runs dry.  The
 * addresses go to @p and their stores to the sheaf slots from @slot0.
 * Returns @size, or 0 after giving back what it got on failure. */
static guint
kmem_cache_alloc_bulk_618 (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp, SimAddr *p,
                           guint size, SimAddr slot0)
{
  CpuSlab *c = &s->cpu[op->cpu];
  rd_kc (op, s, KC_CPU_SLAB);
  for (guint i = 0; i < size; i++)
    {
      sim_op_path (op, &m->path[P_BULK_OBJECT]);
      rd_cpu (op, c, CC_FREELIST);
      if (c->freelist == NIL)
        {
          c->tid++;
          wr_cpu (op, c, CC_TID);
          guint16 obj;
          Slab *slab = slow_alloc_618 (m, op, s, c, SIM_NUMA_NO_NODE, gfp, &obj);
          if (slab == NULL)
            {
              kmem_cache_free_bulk_618 (m, op, s, p, i);
              return 0;
            }
          p[i] = obj_addr (slab, obj);
        }
      else
        {
          Slab *slab = c->slab;
          guint16 obj = c->freelist;
          rd_freeptr (op, slab, obj);
          c->freelist = slab->next_free[obj];
          wr_cpu (op, c, CC_FREELIST);
          p[i] = obj_addr (slab, obj);
          stat (m, op, s, SIM_SLUB_ALLOC_FASTPATH);
        }
      sim_op_write (op, slot0 + 8 * (SimAddr) i, 8, SIM_MEM_CPU_SLAB);
    }
  c->tid++;
  wr_cpu (op, c, CC_TID);
  return size;
}

/* refill_sheaf: fill to capacity; FALSE (-ENOMEM) if memory ran out. */
static gboolean
refill_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh, guint32 gfp)
{
  guint to_fill = s->sheaf_capacity - sh->size;
  if (to_fill == 0)
    return TRUE;
  guint filled = kmem_cache_alloc_bulk_618 (m, op, s, gfp, sh->objects + sh->size, to_fill,
                                            sheaf_slot (sh, sh->size));
  sh->size += filled;
  sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  stat_add (m, op, s, SIM_SLUB_SHEAF_REFILL, filled);
  return filled == to_fill;
}

static Sheaf *
alloc_full_sheaf (SimSlub *m, SimOp *op, SlubCache *s, guint32 gfp)
{
  Sheaf *sh = alloc_empty_sheaf (m, op, s, gfp);
  if (sh == NULL)
    return NULL;
  if (!refill_sheaf (m, op, s, sh, gfp))
    {
      free_empty_sheaf (m, op, s, sh);
      return NULL;
    }
  return sh;
}

/* sheaf_flush_unused: every object of a sheaf no CPU uses back to the
 * slabs. */
static void
sheaf_flush_unused (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh)
{
  if (sh->size == 0)
    return;
  stat_add (m, op, s, SIM_SLUB_SHEAF_FLUSH, sh->size);
  sim_op_touch_range (op, sheaf_slot (sh, 0), 8 * (guint64) sh->size, SIM_ACC_READ,
                      SIM_MEM_CPU_SLAB);
  kmem_cache_free_bulk_618 (m, op, s, sh->objects, sh->size);
  sh->size = 0;
  sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
}

/* sheaf_flush_main: main's objects back to the slabs in batches of
 * PCS_BATCH_MAX copied (under the pcs lock) to an on-stack array. */
static gboolean
sheaf_flush_main (SimSlub *m, SimOp *op, SlubCache *s)
{
  Pcs *pcs = &s->pcs[op->cpu];
  SimAddr batch_objs[PCS_BATCH_MAX];
  gboolean ret = FALSE;
  guint remaining;
  do
    {
      pcs_lock (op, pcs);
      Sheaf *sh = pcs->main;
      sim_op_read (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
      sim_op_read (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
      guint batch = MIN (PCS_BATCH_MAX, sh->size);
      sh->size -= batch;
      sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
      if (batch)
        sim_op_touch_range (op, sheaf_slot (sh, sh->size), 8 * (guint64) batch, SIM_ACC_READ,
                            SIM_MEM_CPU_SLAB);
      memcpy (batch_objs, sh->objects + sh->size, batch * sizeof (SimAddr));
      remaining = sh->size;
      pcs_unlock (op, pcs);
      kmem_cache_free_bulk_618 (m, op, s, batch_objs, batch);
      stat_add (m, op, s, SIM_SLUB_SHEAF_FLUSH, batch);
      ret = TRUE;
    }
  while (remaining);
  return ret;
}

/* The barn's lists: list_add at the head, list_first_entry from it; the
 * links live in the sheaves' first 16 bytes. */
static void
barn_list_push (SimOp *op, Barn *b, GQueue *q, guint head_off, Sheaf *sh)
{
  Sheaf *first = g_queue_peek_head (q);
  sim_op_write (op, sh->addr + SH_BARN_LIST, 16, SIM_MEM_CPU_SLAB);
  sim_op_write (op, b->addr + head_off, 8, SIM_MEM_CACHE_META);
  if (first)
    sim_op_write (op, first->addr + SH_BARN_LIST + 8, 8, SIM_MEM_CPU_SLAB);
  else
    sim_op_write (op, b->addr + head_off + 8, 8, SIM_MEM_CACHE_META);
  g_queue_push_head (q, sh);
}

static Sheaf *
barn_list_pop (SimOp *op, Barn *b, GQueue *q, guint head_off)
{
  Sheaf *sh = g_queue_pop_head (q);
  Sheaf *next = g_queue_peek_head (q);
  sim_op_read (op, b->addr + head_off, 8, SIM_MEM_CACHE_META);
  sim_op_read (op, sh->addr + SH_BARN_LIST, 16, SIM_MEM_CPU_SLAB);
  sim_op_write (op, b->addr + head_off, 8, SIM_MEM_CACHE_META);
  if (next)
    sim_op_write (op, next->addr + SH_BARN_LIST + 8, 8, SIM_MEM_CPU_SLAB);
  else
    sim_op_write (op, b->addr + head_off + 8, 8, SIM_MEM_CACHE_META);
  return sh;
}

static inline void
barn_lock (SimSlub *m, SimOp *op, Barn *b)
{
  sim_op_path (op, &m->path[P_BARN_OP]);
  sim_op_lock (op, &b->lock, b->addr + BARN_LOCK);
}

static inline void
barn_unlock (SimOp *op, Barn *b)
{
  sim_op_unlock (op, &b->lock, b->addr + BARN_LOCK);
}

/* get_barn: the barn of this CPU's memory node, through s->node[]. */
static Barn *
get_barn (SimSlub *m, SimOp *op, SlubCache *s)
{
  guint nid = node_of_cpu (m, op->cpu);
  rd_kc (op, s, m->era->kmem_cache_size + 8 * nid);
  sim_op_read (op, s->node[nid].addr + KN_BARN, 8, SIM_MEM_CACHE_META);
  return &s->barn[nid];
}

static Sheaf *
barn_get_empty_sheaf (SimSlub *m, SimOp *op, Barn *b)
{
  Sheaf *sh = NULL;
  barn_lock (m, op, b);
  sim_op_read (op, b->addr + BARN_NR_EMPTY, 4, SIM_MEM_CACHE_META);
  if (b->empty.length)
    {
      sh = barn_list_pop (op, b, &b->empty, BARN_EMPTY);
      sim_op_write (op, b->addr + BARN_NR_EMPTY, 4, SIM_MEM_CACHE_META);
    }
  barn_unlock (op, b);
  return sh;
}

/* The undo paths: no limit checked, as in the kernel. */
static void
barn_put_sheaf (SimSlub *m, SimOp *op, Barn *b, Sheaf *sh, gboolean full)
{
  barn_lock (m, op, b);
  barn_list_push (op, b, full ? &b->full : &b->empty, full ? BARN_FULL : BARN_EMPTY, sh);
  sim_op_access (op, b->addr + (full ? BARN_NR_FULL : BARN_NR_EMPTY), 4, SIM_ACC_RMW,
                 SIM_MEM_CACHE_META);
  barn_unlock (op, b);
}

/* barn_replace_empty_sheaf: a full sheaf for @empty, or NULL. */
static Sheaf *
barn_replace_empty_sheaf (SimSlub *m, SimOp *op, Barn *b, Sheaf *empty)
{
  Sheaf *full = NULL;
  barn_lock (m, op, b);
  sim_op_read (op, b->addr + BARN_NR_FULL, 4, SIM_MEM_CACHE_META);
  if (b->full.length)
    {
      full = barn_list_pop (op, b, &b->full, BARN_FULL);
      barn_list_push (op, b, &b->empty, BARN_EMPTY, empty);
      sim_op_write (op, b->addr + BARN_NR_FULL, 8, SIM_MEM_CACHE_META);
    }
  barn_unlock (op, b);
  return full;
}

typedef enum { BARN_OK, BARN_E2BIG, BARN_ENOMEM } BarnResult;

/* barn_replace_full_sheaf: an empty sheaf for @full, unless the barn
 * already holds MAX_FULL_SHEAVES (-E2BIG) or has no empty one (-ENOMEM). */
static BarnResult
barn_replace_full_sheaf (SimSlub *m, SimOp *op, Barn *b, Sheaf *full, Sheaf **empty)
{
  BarnResult r = BARN_OK;
  barn_lock (m, op, b);
  sim_op_read (op, b->addr + BARN_NR_FULL, 8, SIM_MEM_CACHE_META);
  if (b->full.length >= MAX_FULL_SHEAVES)
    r = BARN_E2BIG;
  else if (b->empty.length == 0)
    r = BARN_ENOMEM;
  else
    {
      *empty = barn_list_pop (op, b, &b->empty, BARN_EMPTY);
      barn_list_push (op, b, &b->full, BARN_FULL, full);
      sim_op_write (op, b->addr + BARN_NR_FULL, 8, SIM_MEM_CACHE_META);
    }
  barn_unlock (op, b);
  return r;
}

static inline void
swap_main_spare (SimSlub *m, SimOp *op, Pcs *pcs)
{
  sim_op_path (op, &m->path[P_SHEAF_SWAP]);
  Sheaf *t = pcs->main;
  pcs->main = pcs->spare;
  pcs->spare = t;
  sim_op_write (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
}

/* __pcs_replace_empty_main.  Called with the pcs locked and main empty;
 * TRUE with it locked and main non-empty, FALSE with it unlocked. */
static gboolean
pcs_replace_empty_main (SimSlub *m, SimOp *op, SlubCache *s, Pcs *pcs, guint32 gfp)
{
  sim_op_read (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
  if (pcs->spare)
    sim_op_read (op, pcs->spare->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  if (pcs->spare && pcs->spare->size > 0)
    {
      swap_main_spare (m, op, pcs);
      return TRUE;
    }
  Barn *barn = get_barn (m, op, s);
  Sheaf *full = barn_replace_empty_sheaf (m, op, barn, pcs->main);
  if (full)
    {
      stat (m, op, s, SIM_SLUB_BARN_GET);
      pcs->main = full;
      sim_op_write (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
      return TRUE;
    }
  stat (m, op, s, SIM_SLUB_BARN_GET_FAIL);

  gboolean can_alloc = (gfp & SIM_GFP_WAIT) != 0;
  Sheaf *empty = NULL;
  if (can_alloc)
    {
      if (pcs->spare)
        {
          empty = pcs->spare;
          pcs->spare = NULL;
          sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
        }
      else
        empty = barn_get_empty_sheaf (m, op, barn);
    }
  pcs_unlock (op, pcs);
  if (!can_alloc)
    return FALSE;

  if (empty)
    {
      if (refill_sheaf (m, op, s, empty, gfp))
        full = empty;
      else
        /* Out of memory (the bulk alloc gave back what it got): the
         * kernel does not bother with the barn. */
        free_empty_sheaf (m, op, s, empty);
    }
  else
    full = alloc_full_sheaf (m, op, s, gfp);
  if (full == NULL)
    return FALSE;

  pcs_lock (op, pcs);
  sim_op_read (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  if (pcs->main->size == 0)
    {
      barn_put_sheaf (m, op, barn, pcs->main, FALSE);
      pcs->main = full;
      sim_op_write (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
      return TRUE;
    }
  /* Only reachable in the kernel after an interrupt or a migration
   * refilled this CPU's sheaves meanwhile; kept for fidelity. */
  if (pcs->spare == NULL)
    {
      pcs->spare = full;
      sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
      return TRUE;
    }
  if (pcs->spare->size == 0)
    {
      barn_put_sheaf (m, op, barn, pcs->spare, FALSE);
      pcs->spare = full;
      sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
      return TRUE;
    }
  barn_put_sheaf (m, op, barn, full, TRUE);
  stat (m, op, s, SIM_SLUB_BARN_PUT);
  return TRUE;
}

/* alloc_from_pcs.  FALSE: fall through to the classic paths. */
static gboolean
alloc_from_pcs (SimSlub *m, SimOp *op, SlubCache *s, gint node, guint32 gfp, SimAddr *out)
{
  guint local = node_of_cpu (m, op->cpu);
  gboolean node_requested = node != SIM_NUMA_NO_NODE;
  /* The sheaves hold local objects: a request for another node goes
   * straight to the slabs. */
  if (node_requested && (guint) node % m->n_nodes != local)
    return FALSE;

  Pcs *pcs = &s->pcs[op->cpu];
  sim_op_path (op, &m->path[P_PCS_OP]);
  rd_kc (op, s, KC_CPU_SHEAVES);
  pcs_lock (op, pcs);
  sim_op_read (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  if (pcs->main->size == 0 && !pcs_replace_empty_main (m, op, s, pcs, gfp))
    return FALSE;

  Sheaf *sh = pcs->main;
  SimAddr obj = sh->objects[sh->size - 1];
  sim_op_read (op, sheaf_slot (sh, sh->size - 1), 8, SIM_MEM_CPU_SLAB);
  if (node_requested)
    {
      /* folio_nid (virt_to_folio (object)): the object may be remote
       * after all (a migration while the lock was dropped). */
      SimAddr head = sim_page_head (m->env.pages, obj);
      sim_op_read (op, sim_page_struct (m->env.pages, head), 8, SIM_MEM_STRUCT_PAGE);
      if (sim_page_node_of (m->env.pages, head) % m->n_nodes != (guint) node % m->n_nodes)
        {
          pcs_unlock (op, pcs);
          return FALSE;
        }
    }
  sh->size--;
  sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  pcs_unlock (op, pcs);
  stat (m, op, s, SIM_SLUB_ALLOC_PCS);
  *out = obj;
  return TRUE;
}

/* __pcs_install_empty_sheaf: main is full and @empty is ours. */
static void
pcs_install_empty_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Pcs *pcs, Sheaf *empty)
{
  sim_op_read (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
  if (pcs->spare == NULL)
    {
      pcs->spare = pcs->main;
      pcs->main = empty;
      sim_op_write (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
      return;
    }
  Barn *barn = get_barn (m, op, s);
  if (pcs->main->size < s->sheaf_capacity)
    {
      barn_put_sheaf (m, op, barn, empty, FALSE);
      return;
    }
  if (pcs->spare->size < s->sheaf_capacity)
    {
      swap_main_spare (m, op, pcs);
      barn_put_sheaf (m, op, barn, empty, FALSE);
      return;
    }
  /* barn_replace_full_sheaf found no empty sheaf and one was allocated:
   * the full main goes to the barn after all. */
  barn_put_sheaf (m, op, barn, pcs->main, TRUE);
  stat (m, op, s, SIM_SLUB_BARN_PUT);
  pcs->main = empty;
  sim_op_write (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
}

/* __pcs_replace_full_main.  Called with the pcs locked and main full;
 * TRUE with it locked and room in main, FALSE with it unlocked. */
static gboolean
pcs_replace_full_main (SimSlub *m, SimOp *op, SlubCache *s, Pcs *pcs)
{
  for (;;)
    {
      Barn *barn = get_barn (m, op, s);
      gboolean put_fail = FALSE;
      Sheaf *empty = NULL;
      sim_op_read (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
      if (pcs->spare == NULL)
        {
          empty = barn_get_empty_sheaf (m, op, barn);
          if (empty)
            {
              pcs->spare = pcs->main;
              pcs->main = empty;
              sim_op_write (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
              return TRUE;
            }
        }
      else
        {
          sim_op_read (op, pcs->spare->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
          if (pcs->spare->size < s->sheaf_capacity)
            {
              swap_main_spare (m, op, pcs);
              return TRUE;
            }
          BarnResult r = barn_replace_full_sheaf (m, op, barn, pcs->main, &empty);
          if (r == BARN_OK)
            {
              stat (m, op, s, SIM_SLUB_BARN_PUT);
              pcs->main = empty;
              sim_op_write (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
              return TRUE;
            }
          if (r == BARN_E2BIG)
            {
              /* Too many full sheaves in the barn: the (full) spare goes
               * back to the slabs and becomes the empty sheaf. */
              Sheaf *to_flush = pcs->spare;
              stat (m, op, s, SIM_SLUB_BARN_PUT_FAIL);
              pcs->spare = NULL;
              sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
              pcs_unlock (op, pcs);
              sheaf_flush_unused (m, op, s, to_flush);
              pcs_lock (op, pcs);
              pcs_install_empty_sheaf (m, op, s, pcs, to_flush);
              return TRUE;
            }
          put_fail = TRUE;
        }

      /* alloc_empty: a new empty sheaf with GFP_NOWAIT. */
      pcs_unlock (op, pcs);
      empty = alloc_empty_sheaf (m, op, s, 0);
      if (empty)
        {
          pcs_lock (op, pcs);
          pcs_install_empty_sheaf (m, op, s, pcs, empty);
          return TRUE;
        }
      if (put_fail)
        stat (m, op, s, SIM_SLUB_BARN_PUT_FAIL);
      /* Last resort: flush main to the slabs. */
      if (!sheaf_flush_main (m, op, s))
        return FALSE;
      pcs_lock (op, pcs);
      sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
      if (pcs->main->size < s->sheaf_capacity)
        return TRUE;
    }
}

/* free_to_pcs.  FALSE: the caller frees to the slab. */
static gboolean
free_to_pcs (SimSlub *m, SimOp *op, SlubCache *s, SimAddr addr)
{
  Pcs *pcs = &s->pcs[op->cpu];
  sim_op_path (op, &m->path[P_PCS_OP]);
  rd_kc (op, s, KC_CPU_SHEAVES);
  pcs_lock (op, pcs);
  sim_op_read (op, pcs->addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  rd_kc (op, s, KC_SHEAF_CAPACITY);
  if (pcs->main->size == s->sheaf_capacity && !pcs_replace_full_main (m, op, s, pcs))
    return FALSE;
  Sheaf *sh = pcs->main;
  sh->objects[sh->size] = addr;
  sim_op_write (op, sheaf_slot (sh, sh->size), 8, SIM_MEM_CPU_SLAB);
  sh->size++;
  sim_op_write (op, sh->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  pcs_unlock (op, pcs);
  stat (m, op, s, SIM_SLUB_FREE_PCS);
  return TRUE;
}

/* pcs_flush_all (flush_cpu_slab's first step): the spare is flushed and
 * freed, main flushed; the barn is left alone. */
static void
pcs_flush_all (SimSlub *m, SimOp *op, SlubCache *s)
{
  Pcs *pcs = &s->pcs[op->cpu];
  /* has_pcs_used */
  sim_op_read (op, pcs->addr + PCS_MAIN, 16, SIM_MEM_CPU_SLAB);
  sim_op_read (op, pcs->main->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  if (pcs->spare == NULL && pcs->main->size == 0)
    return;
  pcs_lock (op, pcs);
  Sheaf *spare = pcs->spare;
  pcs->spare = NULL;
  sim_op_write (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
  pcs_unlock (op, pcs);
  if (spare)
    {
      sheaf_flush_unused (m, op, s, spare);
      free_empty_sheaf (m, op, s, spare);
    }
  sheaf_flush_main (m, op, s);
}

/* ------------------------------------------------------------------ */
/* kmalloc                                                             */

guint64
sim_slub_kmalloc_max (SimSlub *m)
{
  return sim_kmalloc_max_size (m->cfg.era);
}

SimAddr
sim_slub_kmalloc (SimSlub *m, SimOp *op, gsize size, gint node, guint32 gfp)
{
  /* Above KMALLOC_MAX_SIZE (2.6.23: no cache; later: an order above
   * MAX_ORDER-1, which __alloc_pages refuses) the kernel returns NULL. */
  if (size > sim_slub_kmalloc_max (m))
    return 0;
  sim_op_path (op, &m->path[P_KMALLOC_INDEX]);
  SimCacheId id = sim_slub_kmalloc_cache (m, size, gfp);
  if (id != SIM_CACHE_NONE)
    return sim_slub_cache_alloc (m, op, id, node, gfp);
  /* Pass-through: a compound allocation straight from the page
   * allocator. */
  guint order = 0;
  while (((gsize) SIM_PAGE_SIZE << order) < size)
    order++;
  SimAddr a = sim_page_alloc (m->env.pages, op, order, node, gfp, TRUE);
  if (a)
    {
      g_hash_table_insert (m->large, GSIZE_TO_POINTER (a), GUINT_TO_POINTER (order));
      m->large_pages += 1u << order;
    }
  return a;
}

/* ------------------------------------------------------------------ */
/* flush_all                                                           */

void
sim_slub_flush_all (SimSlub *m, SimOp *op)
{
  /* The IPI runs flush_cpu_slab on every CPU; the simulation charges the
   * work to @op's CPU but touches each CPU's structures. */
  guint self = op->cpu;
  for (guint i = 0; i < m->caches->len; i++)
    {
      SlubCache *s = g_ptr_array_index (m->caches, i);
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        {
          CpuSlab *c = &s->cpu[cpu];
          op->cpu = cpu;
          if (s->pcs)
            pcs_flush_all (m, op, s);
          if (c->slab)
            {
              stat (m, op, s, SIM_SLUB_CPUSLAB_FLUSH);
              if (m->era->tid)
                {
                  Slab *slab = c->slab;
                  guint16 fl = c->freelist;
                  c->slab = NULL;
                  c->freelist = NIL;
                  c->tid++;
                  deactivate_618 (m, op, s, slab, fl);
                }
              else
                {
                  slab_lock (m, op, c->slab);
                  deactivate_2_6 (m, op, s, c);
                }
            }
          if (c->partial)
            {
              Slab *chain = c->partial;
              c->partial = NULL;
              put_partials_618 (m, op, s, chain);
            }
        }
    }
  op->cpu = self;
}

/* ------------------------------------------------------------------ */
/* Introspection and the invariant checker                            */

guint
sim_slub_n_caches (const SimSlub *m)
{
  return m->caches->len;
}

guint64
sim_slub_large_pages (const SimSlub *m)
{
  return m->large_pages;
}

void
sim_slub_cache_info (const SimSlub *m, SimCacheId id, SimSlubCacheInfo *out)
{
  g_return_if_fail (id < m->caches->len);
  const SlubCache *s = g_ptr_array_index (m->caches, id);
  memset (out, 0, sizeof *out);
  out->name = s->name;
  out->g = s->g;
  GPtrArray *al = g_ptr_array_new ();
  for (guint i = 0; i < s->aliases->len; i++)
    g_ptr_array_add (al, g_ptr_array_index (s->aliases, i));
  g_ptr_array_add (al, NULL);
  out->aliases = (const char *const *) g_ptr_array_free (al, FALSE);
  for (guint n = 0; n < m->n_nodes; n++)
    {
      out->slabs += s->node[n].nr_slabs;
      out->partial_slabs += s->node[n].nr_partial;
      out->total_objects += s->node[n].total_objects;
    }
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      if (s->cpu[cpu].slab)
        out->cpu_slabs++;
      for (Slab *p = s->cpu[cpu].partial; p; p = p->next)
        out->cpu_partial_slabs++;
    }
  out->live_objects = s->live;
  out->sheaf_capacity = s->sheaf_capacity;
  if (s->pcs)
    {
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        out->sheaf_objects += s->pcs[cpu].main->size
                              + (s->pcs[cpu].spare ? s->pcs[cpu].spare->size : 0);
      for (guint n = 0; n < m->n_nodes; n++)
        {
          out->barn_full += s->barn[n].full.length;
          out->barn_empty += s->barn[n].empty.length;
          for (GList *l = s->barn[n].full.head; l; l = l->next)
            out->sheaf_objects += ((const Sheaf *) l->data)->size;
        }
    }
  memcpy (out->stat, s->stat, sizeof s->stat);
}

void
sim_slub_cache_info_clear (SimSlubCacheInfo *info)
{
  g_free ((gpointer) info->aliases);
  info->aliases = NULL;
}

/* Walk a freelist chain of @slab; returns its length, or -1 on a cycle or
 * an index out of range. */
static gint
chain_length (const Slab *slab, guint16 head, guint8 *seen)
{
  gint n = 0;
  for (guint16 it = head; it != NIL; it = slab->next_free[it])
    {
      if (it >= slab->objects || seen[it])
        return -1;
      seen[it] = 1;
      n++;
    }
  return n;
}

static gboolean
check_one_sheaf (const SimSlub *m, const SlubCache *s, const Sheaf *sh, const char *where,
                 GHashTable *in_sheaf, guint64 *count, GError **error)
{
  if (sh->size > s->sheaf_capacity)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                   "%s: %s sheaf holds %u objects, capacity %u", s->name, where, sh->size,
                   s->sheaf_capacity);
      return FALSE;
    }
  for (guint i = 0; i < sh->size; i++)
    {
      SimAddr a = sh->objects[i];
      const Slab *sl = g_hash_table_lookup (m->slab_of,
                                            GSIZE_TO_POINTER (sim_page_head (m->env.pages, a)));
      if (sl == NULL || sl->s != s || (a - sl->base) % s->g.size != 0
          || (a - sl->base) / s->g.size >= sl->objects)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: %s sheaf holds %#" G_GINT64_MODIFIER "x, not an object of the cache",
                       s->name, where, a);
          return FALSE;
        }
      if (!g_hash_table_add (in_sheaf, GSIZE_TO_POINTER (a)))
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: object %#" G_GINT64_MODIFIER "x is in a sheaf twice (%s)",
                       s->name, a, where);
          return FALSE;
        }
    }
  *count += sh->size;
  return TRUE;
}

/* The sheaves of @s: main never NULL, sizes within capacity, barn lists
 * holding full sheaves (at most MAX_FULL_SHEAVES) and empty ones. */
static gboolean
check_sheaves (const SimSlub *m, const SlubCache *s, GHashTable *in_sheaf, guint64 *count,
               GError **error)
{
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      const Pcs *pcs = &s->pcs[cpu];
      if (pcs->main == NULL || pcs->main == pcs->spare)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: cpu %u: main sheaf missing or also the spare", s->name, cpu);
          return FALSE;
        }
      if (!check_one_sheaf (m, s, pcs->main, "main", in_sheaf, count, error)
          || (pcs->spare && !check_one_sheaf (m, s, pcs->spare, "spare", in_sheaf, count, error)))
        return FALSE;
    }
  for (guint n = 0; n < m->n_nodes; n++)
    {
      const Barn *b = &s->barn[n];
      if (b->full.length > MAX_FULL_SHEAVES)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: node %u barn holds %u full sheaves (at most %d)", s->name, n,
                       b->full.length, MAX_FULL_SHEAVES);
          return FALSE;
        }
      for (const GList *l = b->full.head; l; l = l->next)
        {
          const Sheaf *sh = l->data;
          if (sh->size != s->sheaf_capacity)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: node %u barn: a sheaf on the full list holds %u of %u",
                           s->name, n, sh->size, s->sheaf_capacity);
              return FALSE;
            }
          if (!check_one_sheaf (m, s, sh, "barn", in_sheaf, count, error))
            return FALSE;
        }
      for (const GList *l = b->empty.head; l; l = l->next)
        if (((const Sheaf *) l->data)->size != 0)
          {
            g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                         "%s: node %u barn: a sheaf on the empty list is not empty", s->name, n);
            return FALSE;
          }
    }
  return TRUE;
}

gboolean
sim_slub_check (const SimSlub *m, GError **error)
{
  /* Every object is in exactly one place: on its slab's freelist, on the
   * owning CPU's freelist, in a sheaf (6.18), or handed out; slab counts, list membership and
   * frozen state agree with where each slab sits. */
  GHashTable *accounted = g_hash_table_new (g_direct_hash, g_direct_equal);
  gboolean ok = TRUE;
  for (guint i = 0; i < m->caches->len && ok; i++)
    {
      const SlubCache *s = g_ptr_array_index (m->caches, i);
      guint64 free_objs = 0, total = 0, slabs = 0;
      for (guint n = 0; n < m->n_nodes; n++)
        {
          const SlubNode *nd = &s->node[n];
          guint64 cnt = 0;
          const Slab *prev = NULL;
          for (const Slab *sl = nd->head; sl; prev = sl, sl = sl->next)
            {
              cnt++;
              if (sl->where != WHERE_NODE_PARTIAL || sl->frozen || sl->prev != prev
                  || sl->node != n || sl->s != s)
                {
                  g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                               "%s: node %u partial list: slab %#" G_GINT64_MODIFIER "x misfiled",
                               s->name, n, sl->base);
                  ok = FALSE;
                  break;
                }
              g_hash_table_add (accounted, (gpointer) sl);
            }
          if (!ok)
            break;
          if (cnt != nd->nr_partial || nd->tail != prev)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: node %u: nr_partial %" G_GUINT64_FORMAT " but %" G_GUINT64_FORMAT
                           " slabs listed", s->name, n, nd->nr_partial, cnt);
              ok = FALSE;
              break;
            }
          slabs += nd->nr_slabs;
          total += nd->total_objects;
        }
      for (guint cpu = 0; cpu < m->env.n_cpus && ok; cpu++)
        {
          const CpuSlab *c = &s->cpu[cpu];
          if (c->slab && (c->slab->where != WHERE_CPU || !c->slab->frozen
                          || c->slab->cpu != cpu || c->slab->s != s))
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: cpu %u: cpu slab not frozen or not marked as its", s->name, cpu);
              ok = FALSE;
            }
          if (!c->slab && c->freelist != NIL)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: cpu %u: freelist without a cpu slab", s->name, cpu);
              ok = FALSE;
            }
          for (const Slab *p = c->partial; p && ok; p = p->next)
            if (p->where != WHERE_CPU_PARTIAL || p->cpu != cpu || p->frozen)
              {
                g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                             "%s: cpu %u: cpu partial slab misfiled", s->name, cpu);
                ok = FALSE;
              }
        }
      if (!ok)
        break;

      /* Objects held in sheaves (main, spare, barn): each a real object of
       * this cache, in at most one sheaf slot. */
      GHashTable *in_sheaf = g_hash_table_new (g_direct_hash, g_direct_equal);
      guint64 sheaf_objs = 0;
      if (s->pcs)
        ok = check_sheaves (m, s, in_sheaf, &sheaf_objs, error);
      if (!ok)
        {
          g_hash_table_destroy (in_sheaf);
          break;
        }

      /* Every slab of this cache: object conservation. */
      guint64 seen_slabs = 0, seen_objects = 0, inuse_sum = 0;
      GHashTableIter it;
      gpointer key, val;
      g_hash_table_iter_init (&it, m->slab_of);
      while (g_hash_table_iter_next (&it, &key, &val) && ok)
        {
          const Slab *sl = val;
          if (sl->s != s)
            continue;
          seen_slabs++;
          seen_objects += sl->objects;
          guint8 *seen = g_malloc0 (sl->objects);
          gint onslab = chain_length (sl, sl->freelist, seen);
          gint oncpu = 0;
          if (sl->where == WHERE_CPU)
            oncpu = chain_length (sl, s->cpu[sl->cpu].freelist, seen);
          guint free_in_sheaf = G_MAXUINT;
          for (guint k = 0; k < sl->objects && g_hash_table_size (in_sheaf); k++)
            if (seen[k] && g_hash_table_contains (in_sheaf, GSIZE_TO_POINTER (obj_addr (sl, k))))
              free_in_sheaf = k;
          g_free (seen);
          if (free_in_sheaf != G_MAXUINT)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: object %#" G_GINT64_MODIFIER "x is both free and in a sheaf",
                           s->name, obj_addr (sl, free_in_sheaf));
              ok = FALSE;
              break;
            }
          if (onslab < 0 || oncpu < 0)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: slab %#" G_GINT64_MODIFIER "x: freelist corrupt (cycle, shared "
                           "object or index out of range)", s->name, sl->base);
              ok = FALSE;
              break;
            }
          /* The kernel's inuse counts cpu-freelist objects as used. */
          if (sl->inuse + onslab != sl->objects)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: slab %#" G_GINT64_MODIFIER "x: inuse %u + free %d != objects %u",
                           s->name, sl->base, sl->inuse, onslab, sl->objects);
              ok = FALSE;
              break;
            }
          inuse_sum += sl->inuse - oncpu;
          free_objs += onslab + oncpu;
          if (sl->where == WHERE_NONE && (sl->freelist != NIL || sl->frozen))
            {
              /* Off every list is only for full, unfrozen slabs. */
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: slab %#" G_GINT64_MODIFIER "x has free objects but is on no list",
                           s->name, sl->base);
              ok = FALSE;
              break;
            }
          if (sl->where == WHERE_NODE_PARTIAL && !g_hash_table_contains (accounted, sl))
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: slab marked partial is not on its node list", s->name);
              ok = FALSE;
              break;
            }
        }
      g_hash_table_destroy (in_sheaf);
      if (!ok)
        break;
      if (seen_slabs != slabs || seen_objects != total)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: %" G_GUINT64_FORMAT " slabs counted, %" G_GUINT64_FORMAT " exist",
                       s->name, slabs, seen_slabs);
          ok = FALSE;
          break;
        }
      if (inuse_sum != s->live + sheaf_objs)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "%s: %" G_GUINT64_FORMAT " objects in use in slabs but %" G_GUINT64_FORMAT
                       " handed out and %" G_GUINT64_FORMAT " in sheaves",
                       s->name, inuse_sum, s->live, sheaf_objs);
          ok = FALSE;
          break;
        }
      (void) free_objs;
    }
  g_hash_table_destroy (accounted);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Creation                                                            */

/* The name slabinfo shows: a merged cache (more than one user) by its
 * unique id (":t-0000256"), any other cache by its own name — what
 * rename_slabs() in tools/slub/slabinfo.c does without -f. */
static char *
display_name (SimSlub *m, const SimSlubCache *sc)
{
  if (sc->refcount > 1)
    return sim_slub_cache_sysfs_name (m->set, sc);
  return g_strdup (sc->name);
}

/* Place the kernel structures of a new cache: kmem_cache on node 0,
 * kmem_cache_node on each node, kmem_cache_cpu in each CPU's per-CPU
 * area (its node's static area). */
static SlubCache *
model_cache_new (SimSlub *m, SimOp *op, SimSlubCache *sc, guint sheaf_capacity,
                 gint kmalloc_index, GError **error)
{
  SlubCache *s = g_new0 (SlubCache, 1);
  s->sc = sc;
  s->g = sc->geo;
  if (m->p.cpu_partial >= 0 && m->era->cpu_partial)
    {
      s->g.cpu_partial = (guint) m->p.cpu_partial;
      s->g.cpu_partial_slabs = s->g.objects ? (s->g.cpu_partial * 2 + s->g.objects - 1) / s->g.objects : 0;
    }
  if (!m->era->cpu_partial)
    s->g.cpu_partial = s->g.cpu_partial_slabs = 0;
  if (m->p.min_partial >= 0)
    s->g.min_partial = (guint) m->p.min_partial;
  s->name = display_name (m, sc);
  s->aliases = g_ptr_array_new_with_free_func (g_free);
  s->flags = sc->geo.flags;

  guint kc_size = m->era->kmem_cache_size + 8 * m->n_nodes
                  + (m->era->cpu_ptr_array ? 8 * m->env.n_cpus : 0);
  const SlubEra *e = m->era;
  if ((e->pcpu_layout == PCPU_STATIC_ARRAY || e->pcpu_layout == PCPU_KMALLOC_STATIC)
      && kmalloc_index >= 0)
    {
      /* kmalloc_caches[] is a static array of struct kmem_cache: one
       * cache's tail shares a line with the next one's head. */
      if (m->kmalloc_kc == 0)
        m->kmalloc_kc = sim_page_static_alloc (m->env.pages, 0,
                                               (guint64) m->n_kmalloc * kc_size, 64);
      s->addr = m->kmalloc_kc + (guint64) kmalloc_index * kc_size;
    }
  else
    s->addr = sim_page_static_alloc (m->env.pages, 0, kc_size, 64);
  s->node = g_new0 (SlubNode, m->n_nodes);
  for (guint n = 0; n < m->n_nodes; n++)
    {
      /* 2.6.33/34 embed node 0's kmem_cache_node in kmem_cache (local_node:
       * kmalloc caches always use it for node 0, other caches for the node
       * of their kmem_cache, node 0 here). */
      if (n == 0 && e->local_node)
        s->node[n].addr = s->addr + e->local_node;
      else
        s->node[n].addr = sim_page_static_alloc (m->env.pages, n, 64, 64);
      sim_lock_init (&s->node[n].list_lock, "list_lock");
    }
  guint n_stats = e->id == SIM_SLUB_6_18 ? SIM_SLUB_N_STATS
                  : e->pcpu_layout != PCPU_PACKED ? CLASSIC_2_6_N_STATS
                  : SIM_SLUB_N_CLASSIC_STATS;
  /* stat[] is in kmem_cache_cpu only in a CONFIG_SLUB_STATS build. */
  guint cc_size = e->cpu_stat_offset + (e->stats && m->p.stats ? 4 * n_stats : 0);
  if (cc_size < 24)
    cc_size = 24;
  cc_size = (cc_size + 7) & ~7u;                /* sizeof, pointer-aligned */
  s->cpu = g_new0 (CpuSlab, m->env.n_cpus);
  if (e->pcpu_layout != PCPU_PACKED && m->pcpu_unit == NULL)
    {
      /* kmem_cache_init's first cache, kmalloc_caches[0] (the
       * kmem_cache_node cache, not a cache the model replays), takes slot
       * 0 of 2.6.33's array and index 0 of 2.6.34's.  6.18's boot caches
       * (kmem_cache, kmem_cache_node) take the first dynamic bytes. */
      m->pcpu_slots = 1;
      if (e->pcpu_layout == PCPU_DYNAMIC)
        m->pcpu_dyn = 2 * ((cc_size + 15) & ~15u);
      m->pcpu_unit = g_new0 (SimAddr, m->env.n_cpus);
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        m->pcpu_unit[cpu] = sim_page_static_alloc (m->env.pages, node_of_cpu (m, cpu),
                                                   PCPU_UNIT_SIZE, 4096);
    }
  /* The per-CPU unit: 2.6.33's kmem_cache_cpu[NR_KMEM_CACHE_CPU], or
   * 2.6.34's kmalloc_percpu[] followed by the alloc_percpu area. */
  guint64 off = 0;
  gboolean in_unit = FALSE;
  if (e->pcpu_layout == PCPU_STATIC_ARRAY && m->pcpu_slots < NR_KMEM_CACHE_CPU)
    {
      off = (guint64) m->pcpu_slots++ * cc_size;
      in_unit = TRUE;
    }
  else if (e->pcpu_layout == PCPU_KMALLOC_STATIC)
    {
      guint64 statics = (guint64) m->n_kmalloc * cc_size;
      if (kmalloc_index >= 0)
        off = (guint64) kmalloc_index * cc_size;
      else
        {
          off = statics + m->pcpu_dyn;
          m->pcpu_dyn += cc_size;
        }
      in_unit = off + cc_size <= PCPU_UNIT_SIZE;
    }
  else if (e->pcpu_layout == PCPU_DYNAMIC)
    {
      off = (m->pcpu_dyn + 15) & ~(guint64) 15;
      m->pcpu_dyn = (guint) (off + cc_size);
      in_unit = off + cc_size <= PCPU_UNIT_SIZE;
    }
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      s->cpu[cpu].freelist = NIL;
      s->cpu[cpu].node = -1;
      s->cpu[cpu].tid = cpu;
      if (in_unit)
        s->cpu[cpu].addr = m->pcpu_unit[cpu] + off;
      else if (e->pcpu_layout != PCPU_PACKED)
        /* 2.6.33's table overflow: kmalloc_node of a cache-line-aligned
         * structure on the CPU's node. */
        s->cpu[cpu].addr = sim_page_static_alloc (m->env.pages, node_of_cpu (m, cpu),
                                                  (cc_size + 63) & ~63u, 64);
      else
        s->cpu[cpu].addr = sim_page_static_alloc (m->env.pages, node_of_cpu (m, cpu),
                                                  cc_size, 8);
    }
  /* kmem_cache_open writes the structure. */
  sim_op_touch_range (op, s->addr, kc_size, SIM_ACC_WRITE, SIM_MEM_CACHE_META);
  if (sheaf_capacity > 0)
    {
      /* init_kmem_cache_nodes gives each node a barn; init_percpu_sheaves
       * an empty main sheaf to each CPU, all kzalloc'ed on the creating
       * CPU. */
      s->sheaf_capacity = sheaf_capacity;
      s->barn = g_new0 (Barn, m->n_nodes);
      for (guint n = 0; n < m->n_nodes; n++)
        {
          s->barn[n].addr = sim_page_static_alloc (m->env.pages, n, 64, 64);
          sim_lock_init (&s->barn[n].lock, "barn_lock");
          g_queue_init (&s->barn[n].full);
          g_queue_init (&s->barn[n].empty);
          sim_op_touch_range (op, s->barn[n].addr, 64, SIM_ACC_WRITE, SIM_MEM_CACHE_META);
        }
      s->pcs = g_new0 (Pcs, m->env.n_cpus);
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        s->pcs[cpu].addr = sim_page_static_alloc (m->env.pages, node_of_cpu (m, cpu),
                                                  PCS_SIZE, 8);
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        {
          s->pcs[cpu].main = alloc_empty_sheaf (m, op, s, SIM_GFP_WAIT);
          if (s->pcs[cpu].main == NULL)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_OUT_OF_MEMORY,
                           "simulated memory exhausted allocating the sheaves of %s; the "
                           "machine's memory per node is too small", s->name);
              for (guint j = 0; j < cpu; j++)
                free_empty_sheaf (m, op, s, s->pcs[j].main);
              g_free (s->pcs);
              g_free (s->barn);
              g_free (s->cpu);
              g_free (s->node);
              g_ptr_array_unref (s->aliases);
              g_free (s->name);
              g_free (s);
              return NULL;
            }
          sim_op_write (op, s->pcs[cpu].addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
        }
    }
  s->id = m->caches->len;
  g_ptr_array_add (m->caches, s);
  g_hash_table_insert (m->model_of, sc, s);
  g_hash_table_insert (m->by_name, g_strdup (sc->name), s);
  return s;
}

static guint32
slub_flags (const SimSlub *m, guint32 f)
{
  guint32 r = 0;
  if ((f & SIM_SLAB_USERCOPY) && m->era->id == SIM_SLUB_6_18)
    r |= SIM_SLUB_NO_MERGE;
  if (f & SIM_SLAB_HWCACHE_ALIGN)
    r |= SIM_SLUB_HWCACHE_ALIGN;
  if (f & SIM_SLAB_TYPESAFE_BY_RCU)
    r |= SIM_SLUB_TYPESAFE_BY_RCU;
  if (f & SIM_SLAB_CTOR)
    r |= SIM_SLUB_CTOR;
  if (f & SIM_SLAB_RECLAIM_ACCOUNT)
    r |= SIM_SLUB_RECLAIM_ACCOUNT;
  if (f & SIM_SLAB_CACHE_DMA)
    r |= SIM_SLUB_CACHE_DMA;
  if (f & SIM_SLAB_FREEPTR_OFFSET)
    r |= SIM_SLUB_FREEPTR_OFFSET;
  return r;
}

SimCacheId
sim_slub_cache_create (SimSlub *m, SimOp *op, const SimCacheSpec *spec, GError **error)
{
  SlubCache *existing = g_hash_table_lookup (m->by_name, spec->name);
  if (existing)
    return existing->id;
  SimSlubCacheArgs args = {
    .name = spec->name,
    .object_size = spec->object_size,
    .align = spec->align,
    .flags = slub_flags (m, spec->flags),
  };
  if ((spec->flags & SIM_SLAB_FREEPTR_OFFSET) && m->cfg.era->freeptr_offset_arg)
    args.freeptr_offset = 0;
  /* Sheaves are 6.18's and need a non-debug cache (the model has no debug
   * caches).  A cache with sheaves is never merged (slab_unmergeable
   * tests s->cpu_sheaves; __kmem_cache_create_args skips the alias
   * search when sheaf_capacity is set). */
  guint sheaf_capacity = m->era->id == SIM_SLUB_6_18 ? spec->sheaf_capacity : 0;
  if (sheaf_capacity > 0)
    args.flags |= SIM_SLUB_NO_MERGE;
  gboolean merged = FALSE;
  SimSlubCache *sc = sim_slub_cache_set_create (m->set, &args, &merged, error);
  if (sc == NULL)
    return SIM_CACHE_NONE;
  SlubCache *s = g_hash_table_lookup (m->model_of, sc);
  if (s == NULL)
    {
      s = model_cache_new (m, op, sc, sheaf_capacity, -1, error);
      if (s == NULL)
        return SIM_CACHE_NONE;
    }
  else
    {
      /* Merged: the kernel keeps one kmem_cache; the new name becomes an
       * alias (and slabinfo shows the unique id). */
      g_ptr_array_add (s->aliases, g_strdup (spec->name));
      g_hash_table_insert (m->by_name, g_strdup (spec->name), s);
      g_free (s->name);
      s->name = display_name (m, sc);
    }
  return s->id;
}

SimCacheId
sim_slub_kmalloc_cache (SimSlub *m, gsize size, guint32 gfp)
{
  (void) gfp;      /* DMA kmalloc caches are not modelled: served by the normal ones */
  if (m->p.pass_through > 0 && (gint64) size > m->p.pass_through)
    return SIM_CACHE_NONE;
  SimKmallocClass k = sim_kmalloc_classify (m->cfg.era, MAX (size, 1));
  if (k.kind != SIM_KMALLOC_CACHE)
    {
      /* pass_through=off keeps large kmallocs in the largest caches the
       * era has while they fit. */
      if (m->p.pass_through == 0)
        for (guint i = 0; i < m->n_kmalloc; i++)
          if (m->kmalloc[i] && m->kmalloc[i]->g.object_size >= size)
            return m->kmalloc[i]->id;
      return SIM_CACHE_NONE;
    }
  if (k.index >= m->n_kmalloc || m->kmalloc[k.index] == NULL)
    return SIM_CACHE_NONE;
  return m->kmalloc[k.index]->id;
}

static gboolean
parse_extras (SimSlubExtras *x, const SimAllocSpec *spec, SimAllocSpec *rest, GError **error)
{
  x->pass_through = -1;
  x->cpu_partial = -1;
  x->min_partial = -1;
  /* CONFIG_SLUB_STATS is default n in every era that has it. */
  x->stats = FALSE;
  for (guint i = 0; i < spec->params->len; i++)
    {
      const SimAllocParam *p = &g_array_index (spec->params, SimAllocParam, i);
      guint v;
      if (g_strcmp0 (p->key, "pass_through") == 0)
        {
          if (g_strcmp0 (p->value, "off") == 0)
            x->pass_through = 0;
          else if (!sim_alloc_param_uint (p, G_MAXINT32, &v, error))
            return FALSE;
          else
            x->pass_through = v;
        }
      else if (g_strcmp0 (p->key, "cpu_partial") == 0)
        {
          if (!sim_alloc_param_uint (p, 100000, &v, error))
            return FALSE;
          x->cpu_partial = (gint) v;
        }
      else if (g_strcmp0 (p->key, "min_partial") == 0)
        {
          if (!sim_alloc_param_uint (p, 1000, &v, error))
            return FALSE;
          x->min_partial = (gint) v;
        }
      else if (g_strcmp0 (p->key, "slub_stats") == 0)
        {
          if (!sim_alloc_param_uint (p, 1, &v, error))
            return FALSE;
          x->stats = v != 0;
        }
      else
        {
          SimAllocParam copy = { g_strdup (p->key), g_strdup (p->value) };
          g_array_append_val (rest->params, copy);
        }
    }
  return TRUE;
}

SimSlub *
sim_slub_new (const SimAllocSpec *spec, const SimAllocEnv *env, GError **error)
{
  const char *kernel = spec->kernel ? spec->kernel : "6.18";
  const SlubEra *era = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (eras); i++)
    if (strcmp (eras[i].name, kernel) == 0)
      era = &eras[i];
  if (era == NULL)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "slub: no model of kernel %s (known: 2.6.23, 2.6.33, 2.6.34, 6.18)", kernel);
      return NULL;
    }
  SimSlub *m = g_new0 (SimSlub, 1);
  m->era = era;
  m->env = *env;
  m->kernel = g_strdup (era->name);
  m->n_nodes = env->machine->numa ? env->machine->sockets : 1;
  g_autofree char *table = g_strconcat ("slub-", era->name, NULL);
  if (!sim_paths_load (table, path_keys, N_PATHS, m->path, error))
    {
      g_free (m->kernel);
      g_free (m);
      return NULL;
    }

  /* 2.6.33 sizes its caches exactly as 2.6.34 does; only the per-CPU
   * layout differs. */
  SimAllocSpec sizing = { .name = spec->name,
                          .kernel = (char *) (era->id == SIM_SLUB_2_6_33 ? "2.6.34" : era->name),
                          .params = g_array_new (FALSE, TRUE, sizeof (SimAllocParam)) };
  gboolean ok = parse_extras (&m->p, spec, &sizing, error)
                && sim_slub_config_from_spec (&m->cfg, &sizing, env->n_cpus, error);
  for (guint i = 0; i < sizing.params->len; i++)
    {
      g_free (g_array_index (sizing.params, SimAllocParam, i).key);
      g_free (g_array_index (sizing.params, SimAllocParam, i).value);
    }
  g_array_free (sizing.params, TRUE);
  if (!ok)
    {
      /* The sizing code lists its boot parameters; the model's own come on
       * top. */
      if (error && *error && g_error_matches (*error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY)
          && g_str_has_suffix ((*error)->message, ")"))
        {
          char *msg = g_strndup ((*error)->message, strlen ((*error)->message) - 1);
          g_free ((*error)->message);
          (*error)->message = g_strconcat (msg, ", pass_through, cpu_partial, min_partial, slub_stats)",
                                           NULL);
          g_free (msg);
        }
      g_free (m->kernel);
      g_free (m);
      return NULL;
    }
  if (m->p.pass_through < 0)
    m->p.pass_through = -1;
  if (m->p.stats && !era->stats)
    {
      /* CONFIG_SLUB_STATS came with 2.6.25: there is nothing to charge. */
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "slub@%s: slub_stats=1: this kernel has no CONFIG_SLUB_STATS (added in 2.6.25)",
                   era->name);
      g_free (m->kernel);
      g_free (m);
      return NULL;
    }

  m->caches = g_ptr_array_new ();
  m->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  m->model_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  m->slab_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  m->large = g_hash_table_new (g_direct_hash, g_direct_equal);
  m->set = sim_slub_cache_set_new (&m->cfg);
  if (!sim_kmalloc_create_caches (m->set, error))
    {
      sim_slub_free_model (m);
      return NULL;
    }
  /* Mirror the kmalloc caches create_kmalloc_caches made. */
  SimOp op;
  sim_op_begin_uncharged (&op, env->mem, 0, 0);
  GArray *idx = sim_kmalloc_cache_indexes (m->cfg.era);
  guint max_index = 0;
  for (guint i = 0; i < idx->len; i++)
    max_index = MAX (max_index, g_array_index (idx, guint, i));
  m->n_kmalloc = max_index + 1;
  m->kmalloc = g_new0 (SlubCache *, m->n_kmalloc);
  for (guint i = 0; i < idx->len; i++)
    {
      guint k = g_array_index (idx, guint, i);
      char *name = sim_kmalloc_cache_name (m->cfg.era, k);
      SimSlubCache *sc = NULL;
      for (guint j = 0; j < m->set->caches->len && sc == NULL; j++)
        {
          SimSlubCache *c = g_ptr_array_index (m->set->caches, j);
          if (strcmp (c->name, name) == 0)
            sc = c;
        }
      if (sc)
        {
          SlubCache *s = g_hash_table_lookup (m->model_of, sc);
          m->kmalloc[k] = s ? s : model_cache_new (m, &op, sc, 0, (gint) k, NULL);
        }
      g_free (name);
    }
  g_array_unref (idx);
  return m;
}

static void
sheaf_destroy (Sheaf *sh)
{
  if (sh)
    {
      g_free (sh->objects);
      g_free (sh);
    }
}

void
sim_slub_free_model (SimSlub *m)
{
  if (m == NULL)
    return;
  GHashTableIter it;
  gpointer k, v;
  if (m->slab_of)
    {
      g_hash_table_iter_init (&it, m->slab_of);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_free (v);
      g_hash_table_destroy (m->slab_of);
    }
  if (m->caches)
    {
      for (guint i = 0; i < m->caches->len; i++)
        {
          SlubCache *s = g_ptr_array_index (m->caches, i);
          for (guint cpu = 0; s->pcs && cpu < m->env.n_cpus; cpu++)
            {
              sheaf_destroy (s->pcs[cpu].main);
              sheaf_destroy (s->pcs[cpu].spare);
            }
          for (guint n = 0; s->barn && n < m->n_nodes; n++)
            {
              g_queue_clear_full (&s->barn[n].full, (GDestroyNotify) sheaf_destroy);
              g_queue_clear_full (&s->barn[n].empty, (GDestroyNotify) sheaf_destroy);
            }
          g_free (s->pcs);
          g_free (s->barn);
          g_free (s->name);
          g_ptr_array_unref (s->aliases);
          g_free (s->cpu);
          g_free (s->node);
          g_free (s);
        }
      g_ptr_array_unref (m->caches);
    }
  if (m->by_name)
    g_hash_table_destroy (m->by_name);
  if (m->model_of)
    g_hash_table_destroy (m->model_of);
  if (m->large)
    g_hash_table_destroy (m->large);
  if (m->set)
    sim_slub_cache_set_free (m->set);
  g_free (m->kmalloc);
  g_free (m->pcpu_unit);
  g_free (m->kernel);
  g_free (m);
}

/* ------------------------------------------------------------------ */
/* The ops table                                                       */

SIM_ALLOC_OPS_FORWARDERS (sim_slub)

static const char *
ops_kernel (gpointer m)
{
  return ((SimSlub *) m)->kernel;
}

static char *
ops_params (gpointer mp)
{
  SimSlub *m = mp;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "slub_min_order=%u,slub_max_order=%u,slub_min_objects=%u",
                          m->cfg.min_order, m->cfg.max_order, m->cfg.min_objects);
  if (m->cfg.nomerge)
    g_string_append (s, ",slub_nomerge");
  if (m->p.pass_through == 0)
    g_string_append (s, ",pass_through=off");
  else if (m->p.pass_through > 0)
    g_string_append_printf (s, ",pass_through=%" G_GINT64_FORMAT, m->p.pass_through);
  if (m->p.cpu_partial >= 0)
    g_string_append_printf (s, ",cpu_partial=%d", m->p.cpu_partial);
  if (m->p.min_partial >= 0)
    g_string_append_printf (s, ",min_partial=%d", m->p.min_partial);
  g_string_append_printf (s, ",slub_stats=%d", m->p.stats ? 1 : 0);
  return g_string_free (s, FALSE);
}

static gsize
ops_ksize (gpointer mp, SimAddr addr)
{
  SimSlub *m = mp;
  Slab *slab = g_hash_table_lookup (m->slab_of, GSIZE_TO_POINTER (sim_page_head (m->env.pages, addr)));
  return slab ? slab->s->g.object_size : 0;
}

static void
ops_report (gpointer mp, SimAllocReport *out)
{
  SimSlub *m = mp;
  for (guint i = 0; i < m->caches->len; i++)
    {
      SimSlubCacheInfo info;
      sim_slub_cache_info (m, i, &info);
      SimAllocCacheRow row = { 0 };
      row.name = g_strdup (info.name);
      /* Every name the cache serves: a merged cache shows its unique id
       * (":0000032"), and the first name it was created under is the one
       * the kernel's tracepoints print (s->name), so it leads the list. */
      const SlubCache *sx = g_ptr_array_index (m->caches, i);
      GPtrArray *names = g_ptr_array_new ();
      if (strcmp (sx->sc->name, info.name) != 0)
        g_ptr_array_add (names, g_strdup (sx->sc->name));
      for (const char *const *a = info.aliases; a && *a; a++)
        if (strcmp (*a, sx->sc->name) != 0)
          g_ptr_array_add (names, g_strdup (*a));
      g_ptr_array_add (names, NULL);
      row.aliases = (char **) g_ptr_array_free (names, FALSE);
      row.object_size = info.g.object_size;
      row.slab_size = info.g.size;
      row.order = info.g.order;
      row.objs_per_slab = info.g.objects;
      row.alloc_fast = info.stat[SIM_SLUB_ALLOC_FASTPATH];
      row.alloc = row.alloc_fast + info.stat[SIM_SLUB_ALLOC_SLOWPATH];
      row.free_fast = info.stat[SIM_SLUB_FREE_FASTPATH];
      row.free = row.free_fast + info.stat[SIM_SLUB_FREE_SLOWPATH];
      row.slabs = info.slabs;
      row.order_fallback = info.stat[SIM_SLUB_ORDER_FALLBACK];
      /* slabinfo's Objects: total minus the free objects of node partial
       * slabs (cpu freelists count as used). */
      guint64 partial_free = 0;
      const SlubCache *s = g_ptr_array_index (m->caches, i);
      for (guint n = 0; n < m->n_nodes; n++)
        for (const Slab *sl = s->node[n].head; sl; sl = sl->next)
          partial_free += sl->objects - sl->inuse;
      row.objects = info.total_objects - partial_free;
      /* Slabs of a fallback order are smaller, but the report uses the
       * preferred order as slabinfo's Space does. */
      row.bytes = info.slabs * ((guint64) SIM_PAGE_SIZE << info.g.order);
      /* slabinfo's Alloc/Free and %Fast are the classic counters: 6.18's
       * tools/mm/slabinfo reads no sheaf counter, so objects served by
       * the sheaves (alloc_cpu_sheaf, free_cpu_sheaf) are not in them;
       * those counters are in the stats list. */
      row.n_stats = m->era->id == SIM_SLUB_6_18 ? SIM_SLUB_N_STATS : SIM_SLUB_N_CLASSIC_STATS;
      row.stat_names = stat_names;
      row.stats = g_memdup2 (info.stat, sizeof info.stat);
      g_array_append_val (out->rows, row);
      sim_slub_cache_info_clear (&info);
    }
  out->large_pages = m->large_pages;
  out->stats_config = m->era->stats ? "CONFIG_SLUB_STATS" : NULL;
  out->stats_param = "slub_stats";
  out->stats_charged = m->era->stats && m->p.stats;
}

static const char *const slub_kernels[] = { "6.18", "2.6.34", "2.6.33", "2.6.23", NULL };

SIM_ALLOC_OPS_TABLE (slub, slub_kernels)
