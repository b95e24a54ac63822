/* slab.c - SLAB, as in Linux 2.6.23 and 2.6.34 (mm/slab.c).
 *
 * Which kernel.  The paths follow mm/slab.c of 2.6.34 and 2.6.23 (read in
 * the trees cited by shared/reference/allocators.md §0, T34 and T23); the
 * two differ in almost nothing the model can see:
 *
 *   2.6.23  transfer_objects() marks the receiving array touched, so a
 *           refill from the shared array touches the CPU's array (which
 *           the refill does anyway) and an alien drain into a node's shared
 *           array marks that shared array touched (it then survives one
 *           reap untouched-drain).
 *   2.6.34  transfer_objects() touches nothing; cache_alloc_refill marks
 *           the shared array touched when it took objects from it.
 * Everything else the model does (array caches, shared and alien arrays,
 * slab lists, colouring, on/off-slab management, calculate_slab_order,
 * enable_cpucache, cache_reap) is the same text in both.
 *
 * What the model keeps.  struct kmem_cache with array[NR_CPUS] (one
 * pointer per CPU; NR_CPUS = the machine's CPU count), the tunables and
 * nodelists[]; one struct array_cache per CPU (avail, limit, batchcount,
 * touched, lock, entry[]) placed on the CPU's node; per node a kmem_list3
 * (slabs_partial, slabs_full, slabs_free, free_objects, free_limit,
 * colour_next, list_lock, shared, alien, next_reap, free_touched), its
 * shared array (shared * batchcount entries) and, on NUMA machines, one
 * alien array per other node (limit 12); struct slab {list, colouroff,
 * s_mem, inuse, free, nodeid} followed by the kmem_bufctl_t array, inside
 * the slab (after the colour offset) or off-slab in an object of the
 * general cache that fits (allocated and freed through this model, as
 * alloc_slabmgmt and slab_destroy do); the struct page of every slab page
 * carrying the cache and slab pointers (slab_map_pages).  The array
 * caches, kmem_list3 and alien pointer arrays, which the kernel kmallocs
 * on their node once per cache, get kmalloc-sized slots in pages of that
 * node taken from the page allocator (not objects of the general caches,
 * whose counts stay the workload's); kmem_cache (from cache_cache, not
 * modelled) and malloc_sizes[] sit in the static area of node 0.
 *
 * Every load and store those paths make on these structures goes to the
 * cache model at the structure's simulated address: array_cache fields
 * and entries (SIM_MEM_CPU_SLAB), bufctl entries (SIM_MEM_FREEPTR),
 * struct page (SIM_MEM_STRUCT_PAGE), kmem_cache / kmem_list3 / struct slab
 * and the list links in it (SIM_MEM_CACHE_META), lock words (SIM_MEM_LOCK).
 * list_lock and the alien array locks are engine locks.
 *
 * Periodic work.  cache_reap runs on every CPU: first ~1 s after the
 * model starts, then every REAPTIMEOUT_CPUC = 2 s, as the kernel's
 * round_jiffies_relative places it (whole seconds minus 3 jiffies per CPU
 * number).  Jiffies tick at the era's HZ (sim_kernel_hz: 250 for 2.6.23,
 * 1000 for 2.6.34, as x86-64's defconfig of each sets it), or hz=N.  For every cache, each run drains one of its node's
 * alien arrays (round robin over the nodes), drains the CPU's array unless
 * it was touched, and when its node's next_reap (every 4 s,
 * REAPTIMEOUT_LIST3, first jittered by the kmem_cache address) has passed,
 * drains the node's shared array and destroys some free slabs.
 * With an engine (env->eng) these are engine events; without one (unit
 * tests) nothing runs until sim_slab_reap() is called.
 *
 * Counting.  The STATS counters exist only in CONFIG_DEBUG_SLAB kernels,
 * whose debug features this model leaves out; they are kept here at no
 * simulated cost unless slab_stats=1, which charges their updates (atomic
 * increments on the shared kmem_cache line) as a STATS kernel makes them.
 *
 * What it leaves out.  Debugging (red zones, poisoning, user store,
 * FORCED_DEBUG, the DEBUG limit cap of 32), kmemleak/kmemcheck, CPU and
 * memory hotplug, kmem_cache_shrink/destroy, mempolicy and cpuset
 * spreading (alternate_node_alloc), SLAB_DESTROY_BY_RCU's deferred page
 * freeing (pages are freed at once), the cache_chain_mutex (cache_reap's
 * trylock always succeeds), the bootstrap array caches (every cache has its
 * final tunables from the start), cache_cache itself, and interrupts: an
 * operation runs to completion on its CPU.  ZONE_DMA does not exist in the
 * page model: the size-N(DMA) caches take normal pages.
 */
#include "models/alloc/slab.h"
#include "models/alloc/paths.h"
#include "models/page/page-alloc.h"
#include "sim/core/errors.h"
#include "sim/core/idmap.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* Eras and constants                                                  */

typedef struct {
  const char *name;
  SimSlabEraId id;
  gboolean transfer_touches;     /* 2.6.23: transfer_objects sets to->touched */
  /* L1_CACHE_BYTES of a generic x86-64 build, which decides size-96/192
   * (kmalloc_sizes.h): 2.6.23's arch/x86_64/Kconfig X86_L1_CACHE_BYTES is
   * 128 for GENERIC_CPU; 2.6.34's arch/x86/Kconfig.cpu
   * X86_L1_CACHE_SHIFT is 6 for GENERIC_CPU. */
  guint    l1_cache_bytes;
  /* 2.6.23's kmem_cache_free starts with BUG_ON(virt_to_cache(objp) !=
   * cachep), outside any debug option; 2.6.34's has no such check. */
  gboolean cache_free_checks;
} SlabEra;

static const SlabEra eras[] = {
  { "2.6.34", SIM_SLAB_2_6_34, FALSE, 64, FALSE },
  { "2.6.23", SIM_SLAB_2_6_23, TRUE, 128, TRUE },
};

/* In seconds: times the model's HZ (m->hz) gives the kernel's jiffies. */
#define REAPTIMEOUT_CPUC_S  2u
#define REAPTIMEOUT_LIST3_S 4u
#define BATCHREFILL_LIMIT   16u
#define ALIEN_LIMIT         12u
#define BYTES_PER_WORD      8u
#define KMALLOC_SHIFT_HIGH  22u       /* MAX_ORDER 11 + PAGE_SHIFT 12 - 1 */
#define KMALLOC_MAX_SIZE    (1u << KMALLOC_SHIFT_HIGH)
#define KMALLOC_MAX_ORDER   (KMALLOC_SHIFT_HIGH - SIM_PAGE_SHIFT)
#define BREAK_GFP_ORDER_HI  1u
#define BREAK_GFP_ORDER_LO  0u
#define BUFCTL_END          G_MAXUINT32
#define SLAB_LIMIT          (G_MAXUINT32 - 3)
#define SLAB_DESC_SIZE      48u       /* sizeof (struct slab) on 64-bit */
#define BUFCTL_SIZE         4u        /* sizeof (kmem_bufctl_t) */

/* struct kmem_cache: array[NR_CPUS] first, then these (offsets from the
 * end of array[]). */
#define KC_BATCHCOUNT   0
#define KC_LIMIT        4
#define KC_SHARED       8
#define KC_BUFFER_SIZE  12
#define KC_RECIPROCAL   16
#define KC_FLAGS        20
#define KC_NUM          24
#define KC_GFPORDER     28
#define KC_COLOUR       40
#define KC_COLOUR_OFF   48
#define KC_SLABP_CACHE  56
#define KC_SLAB_SIZE    64
#define KC_CTOR         72
#define KC_FIXED_SIZE   104          /* up to nodelists[] without STATS */
#define KC_STATS        104          /* num_active .. node_overflow (10 longs) */
#define KC_ATOMIC_STATS 184          /* allochit, allocmiss, freehit, freemiss */
#define KC_STATS_SIZE   104          /* the STATS/DEBUG block */

/* struct array_cache */
#define AC_AVAIL        0
#define AC_LIMIT        4
#define AC_BATCHCOUNT   8
#define AC_TOUCHED      12
#define AC_LOCK         16
#define AC_ENTRY        24

/* struct kmem_list3 */
#define L3_PARTIAL      0
#define L3_FULL         16
#define L3_FREE         32
#define L3_FREE_OBJECTS 48
#define L3_FREE_LIMIT   56
#define L3_COLOUR_NEXT  60
#define L3_LIST_LOCK    64
#define L3_SHARED       72
#define L3_ALIEN        80
#define L3_NEXT_REAP    88
#define L3_FREE_TOUCHED 96
#define L3_SIZE         104

/* struct slab */
#define SL_LIST         0
#define SL_COLOUROFF    16
#define SL_S_MEM        24
#define SL_INUSE        32            /* inuse and free share 8 bytes */
#define SL_NODEID       40

/* struct page: flags, then lru (cache and slab pointers) */
#define PG_FLAGS        0
#define PG_LRU          40

/* The kernel paths whose instructions the model charges, one row each in
 * every era's table configs/paths/slab-ERA.tsv (models/alloc/paths.h,
 * docs/models/paths.md).  Memory latency comes on top, from the cache
 * model. */
#define SLAB_PATHS(X)                                                                       \
  X (FAST_ALLOC,    "fast_alloc")       /* __cache_alloc + ____cache_alloc hit, irq save */ \
  X (FAST_FREE,     "fast_free")        /* kmem_cache_free + __cache_free hit */            \
  X (KFREE,         "kfree")            /* kfree's virt_to_cache beyond __cache_free */     \
  X (KMALLOC_STEP,  "kmalloc_step")     /* one step of __find_general_cachep's walk */      \
  X (VIRT_TO_PAGE,  "virt_to_page")     /* virt_to_page arithmetic */                       \
  X (REFILL,        "refill")           /* cache_alloc_refill entry and exit */             \
  X (TRANSFER,      "transfer")         /* transfer_objects */                              \
  X (MOVE_ENTRY,    "move_entry")       /* one pointer copied by memcpy/memmove */          \
  X (GET_OBJ,       "get_obj")          /* slab_get_obj */                                  \
  X (PUT_OBJ,       "put_obj")          /* slab_put_obj incl. the reciprocal divide */      \
  X (LIST_OP,       "list_op")          /* list_add / list_del */                           \
  X (FREE_BLOCK,    "free_block")       /* free_block per object beside put_obj */          \
  X (FLUSH,         "flush")            /* cache_flusharray */                              \
  X (ALIEN,         "alien")            /* cache_free_alien */                              \
  X (DRAIN_ALIEN,   "drain_alien")      /* __drain_alien_cache */                           \
  X (GROW,          "grow")             /* cache_grow bookkeeping beside the page alloc */  \
  X (MAP_PAGE,      "map_page")         /* slab_map_pages / __SetPageSlab per page */       \
  X (INIT_OBJ,      "init_obj")         /* cache_init_objs per object */                    \
  X (DESTROY,       "destroy")          /* slab_destroy + kmem_freepages */                 \
  X (NODE_ALLOC,    "node_alloc")       /* ____cache_alloc_node */                          \
  X (DRAIN_ARRAY,   "drain_array")      /* drain_array */                                   \
  X (REAP_CACHE,    "reap_cache")       /* cache_reap's per-cache loop body */              \
  X (REAP,          "reap")             /* cache_reap entry, trylock, reschedule */

SIM_PATHS_DEFINE (SLAB_PATHS)

static const char *const stat_names[SIM_SLAB_N_STATS] = {
#define SLAB_STAT_NAME(e, n) n,
  SIM_SLAB_STATS (SLAB_STAT_NAME)
#undef SLAB_STAT_NAME
};

const char *
sim_slab_stat_name (SimSlabStat st)
{
  g_return_val_if_fail (st < SIM_SLAB_N_STATS, NULL);
  return stat_names[st];
}

/* ------------------------------------------------------------------ */
/* State                                                               */

typedef struct SlabCache SlabCache;
typedef struct Slab Slab;

enum { LIST_NONE, LIST_PARTIAL, LIST_FULL, LIST_FREE };

struct Slab {
  SimAddr    pages;         /* first page of the slab */
  SimAddr    s_mem;         /* first object */
  SimAddr    desc;          /* struct slab */
  SlabCache *c;
  Slab      *prev, *next;   /* the list it is on */
  guint32    colouroff;
  guint32    inuse;
  guint32    free;          /* bufctl index of the first free object */
  guint16    nodeid;
  guint8     list;
  guint32    bufctl[];
};

typedef struct {
  SimAddr  addr;
  guint    avail, limit, batchcount, touched;
  SimAddr *entry;
  SimLock  lock;            /* used by alien arrays */
} ArrayCache;

typedef struct {
  Slab    *head, *tail;
  guint64  n;
} SlabList;

typedef struct {
  SimAddr     addr;         /* struct kmem_list3 */
  SlabList    lists[4];     /* indexed by LIST_* (NONE unused) */
  guint64     free_objects;
  guint       free_limit;
  guint       colour_next;
  SimLock     list_lock;
  ArrayCache *shared;
  ArrayCache **alien;       /* [n_nodes], NULL when no alien caches */
  SimAddr     alien_addr;   /* the pointer array */
  guint64     next_reap;    /* jiffies */
  gboolean    free_touched;
} Node;

struct SlabCache {
  char      *name;
  SimCacheId id;
  guint32    object_size;
  guint32    buffer_size;
  guint32    align;
  guint32    flags;         /* SIM_SLAB_* */
  gboolean   off_slab;
  gboolean   general;       /* a size-N cache: freed through kfree */
  guint32    num, gfporder;
  guint32    colour, colour_off;
  guint32    slab_size;
  SlabCache *slabp_cache;
  guint      limit, batchcount, shared;
  SimAddr    addr;          /* struct kmem_cache */
  SimAddr    fixed;         /* end of array[] */
  guint      nodelists_off;
  ArrayCache **array;       /* [n_cpus] */
  Node      *node;          /* [n_nodes] */
  guint64    stat[SIM_SLAB_N_STATS];
  guint64    live;
};

typedef struct {
  char *name;               /* NULL = every cache */
  gint  limit, batchcount, shared;   /* -1 = not given */
} Tune;

struct SimSlab {
  const SlabEra *era;
  SimPathCost    path[N_PATHS];     /* the era's table, by P_* */
  char          *kernel;
  SimAllocEnv    env;
  guint          n_nodes;
  guint          line;              /* cache_line_size() */
  guint          break_gfp_order;   /* slab_break_gfp_order */
  gboolean       use_alien;
  gboolean       noalien_given;
  gboolean       stats_cost;        /* slab_stats=1 */
  Tune           all;               /* limit=, batchcount=, shared= */
  GArray        *tunes;             /* Tune, from slabinfo= */
  GPtrArray     *caches;            /* SlabCache*, by id (creation order) */
  GHashTable    *by_name;
  SimIdMap      *slab_of;           /* page address -> Slab* (SimIdPair; slab_at) */
  /* malloc_sizes[]: {cs_size, cs_cachep, cs_dmacachep} */
  guint          n_sizes;
  guint32       *sizes;
  SlabCache    **size_cache, **size_dma_cache;
  SimAddr        malloc_sizes_addr;
  guint          hz;                /* CONFIG_HZ: the era's, or hz= */
  guint64        cycles_per_jiffy;
  guint         *reap_node;         /* per CPU slab_reap_node */
  guint64       *reap_event;        /* per CPU pending event id */
  guint         *cpus_on_node;
  /* Backing store of the per-cache structures the kernel kmallocs on a
   * node (array caches, kmem_list3, alien pointer arrays): pages of that
   * node carved in kmalloc-sized slots. */
  SimAddr       *arena_base;
  guint64       *arena_used, *arena_size;
};

/* The slab that page @page belongs to, or NULL. */
static inline Slab *
slab_at (const SimSlab *m, SimAddr page)
{
  return (Slab *) (gsize) sim_idmap_get (m->slab_of, page, 0);
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static inline guint
node_of_cpu (const SimSlab *m, guint cpu)
{
  if (m->n_nodes == 1)
    return 0;
  return sim_machine_socket_of (m->env.machine, cpu) % m->n_nodes;
}

static inline guint64
jiffies_at (const SimSlab *m, SimTime t)
{
  return t / m->cycles_per_jiffy;
}

static inline SimAddr
obj_addr (const Slab *s, guint idx)
{
  return s->s_mem + (SimAddr) idx * s->c->buffer_size;
}

static inline void
rd_kc (SimOp *op, const SlabCache *c, guint off, guint size)
{
  sim_op_read (op, c->fixed + off, size, SIM_MEM_CACHE_META);
}

/* cachep->array[smp_processor_id()] */
static inline ArrayCache *
cpu_cache_get (SimOp *op, const SlabCache *c)
{
  sim_op_read (op, c->addr + 8 * op->cpu, 8, SIM_MEM_CACHE_META);
  return c->array[op->cpu];
}

/* cachep->nodelists[node] */
static inline Node *
nodelist (SimOp *op, const SlabCache *c, guint node)
{
  sim_op_read (op, c->addr + c->nodelists_off + 8 * node, 8, SIM_MEM_CACHE_META);
  return &c->node[node];
}

static inline void
ac_rd (SimOp *op, const ArrayCache *ac, guint off, guint size)
{
  sim_op_read (op, ac->addr + off, size, SIM_MEM_CPU_SLAB);
}

static inline void
ac_wr (SimOp *op, const ArrayCache *ac, guint off, guint size)
{
  sim_op_write (op, ac->addr + off, size, SIM_MEM_CPU_SLAB);
}

static inline SimAddr
ac_entry_addr (const ArrayCache *ac, guint i)
{
  return ac->addr + AC_ENTRY + 8 * (SimAddr) i;
}

static inline void
l3_rd (SimOp *op, const Node *n, guint off, guint size)
{
  sim_op_read (op, n->addr + off, size, SIM_MEM_CACHE_META);
}

static inline void
l3_wr (SimOp *op, const Node *n, guint off, guint size)
{
  sim_op_write (op, n->addr + off, size, SIM_MEM_CACHE_META);
}

static inline void
desc_rd (SimOp *op, const Slab *s, guint off, guint size)
{
  sim_op_read (op, s->desc + off, size, SIM_MEM_CACHE_META);
}

static inline void
desc_wr (SimOp *op, const Slab *s, guint off, guint size)
{
  sim_op_write (op, s->desc + off, size, SIM_MEM_CACHE_META);
}

static inline SimAddr
bufctl_addr (const Slab *s, guint i)
{
  return s->desc + SLAB_DESC_SIZE + (SimAddr) BUFCTL_SIZE * i;
}

static void
list_lock (SimOp *op, Node *n)
{
  sim_op_lock (op, &n->list_lock, n->addr + L3_LIST_LOCK);
}

static void
list_unlock (SimOp *op, Node *n)
{
  sim_op_unlock (op, &n->list_lock, n->addr + L3_LIST_LOCK);
}

/* STATS_INC_* : free of simulated cost unless slab_stats=1, then the
 * update of the counter in kmem_cache (atomic for the four hit/miss
 * counters). */
static void
stat_add (SimSlab *m, SimOp *op, SlabCache *c, SimSlabStat st, guint64 v)
{
  c->stat[st] += v;
  /* STATS_SET_HIGH follows every STATS_INC_ACTIVE */
  if (st == SIM_SLAB_NUM_ACTIVE && c->stat[st] > c->stat[SIM_SLAB_HIGH_MARK])
    c->stat[SIM_SLAB_HIGH_MARK] = c->stat[st];
  if (!m->stats_cost || st == SIM_SLAB_SLABS_DESTROYED)
    return;
  guint off;
  SimAccKind kind = SIM_ACC_RMW;
  switch (st)
    {
    case SIM_SLAB_ALLOCHIT:  off = KC_ATOMIC_STATS; break;
    case SIM_SLAB_ALLOCMISS: off = KC_ATOMIC_STATS + 4; break;
    case SIM_SLAB_FREEHIT:   off = KC_ATOMIC_STATS + 8; break;
    case SIM_SLAB_FREEMISS:  off = KC_ATOMIC_STATS + 12; break;
    default:
      off = KC_STATS + 8 * (guint) (st - SIM_SLAB_NUM_ACTIVE);
      kind = SIM_ACC_WRITE;
      break;
    }
  if (kind == SIM_ACC_RMW)        /* atomic_inc: a locked instruction */
    sim_op_atomic (op, c->fixed + off, 4, SIM_MEM_CACHE_META, SIM_X_LOCK_CMPXCHG);
  else
    sim_op_access (op, c->fixed + off, 8, kind, SIM_MEM_CACHE_META);
}

static inline void
stat (SimSlab *m, SimOp *op, SlabCache *c, SimSlabStat st)
{
  stat_add (m, op, c, st, 1);
}

static void
stat_dec_active (SimSlab *m, SimOp *op, SlabCache *c)
{
  c->stat[SIM_SLAB_NUM_ACTIVE]--;
  if (m->stats_cost)
    sim_op_write (op, c->fixed + KC_STATS, 8, SIM_MEM_CACHE_META);
}

/* ------------------------------------------------------------------ */
/* Slab lists                                                          */

static SimAddr
list_head_addr (const Node *n, guint list)
{
  switch (list)
    {
    case LIST_PARTIAL: return n->addr + L3_PARTIAL;
    case LIST_FULL:    return n->addr + L3_FULL;
    default:           return n->addr + L3_FREE;
    }
}

static void
list_del_slab (SimSlab *m, SimOp *op, Node *n, Slab *s)
{
  g_assert (s->list != LIST_NONE);
  SlabList *l = &n->lists[s->list];
  SimAddr head = list_head_addr (n, s->list);
  sim_op_path (op, &m->path[P_LIST_OP]);
  desc_rd (op, s, SL_LIST, 16);
  /* prev->next = next; next->prev = prev */
  sim_op_write (op, s->prev ? s->prev->desc + SL_LIST : head, 8, SIM_MEM_CACHE_META);
  sim_op_write (op, s->next ? s->next->desc + SL_LIST + 8 : head + 8, 8, SIM_MEM_CACHE_META);
  if (s->prev)
    s->prev->next = s->next;
  else
    l->head = s->next;
  if (s->next)
    s->next->prev = s->prev;
  else
    l->tail = s->prev;
  s->prev = s->next = NULL;
  s->list = LIST_NONE;
  l->n--;
}

static void
list_add_slab (SimSlab *m, SimOp *op, Node *n, Slab *s, guint list, gboolean tail)
{
  g_assert (s->list == LIST_NONE);
  SlabList *l = &n->lists[list];
  SimAddr head = list_head_addr (n, list);
  sim_op_path (op, &m->path[P_LIST_OP]);
  desc_wr (op, s, SL_LIST, 16);
  if (tail)
    {
      /* between head->prev and head */
      sim_op_read (op, head + 8, 8, SIM_MEM_CACHE_META);
      sim_op_write (op, l->tail ? l->tail->desc + SL_LIST : head, 8, SIM_MEM_CACHE_META);
      sim_op_write (op, head + 8, 8, SIM_MEM_CACHE_META);
      s->prev = l->tail;
      s->next = NULL;
      if (l->tail)
        l->tail->next = s;
      else
        l->head = s;
      l->tail = s;
    }
  else
    {
      sim_op_read (op, head, 8, SIM_MEM_CACHE_META);
      sim_op_write (op, l->head ? l->head->desc + SL_LIST + 8 : head + 8, 8, SIM_MEM_CACHE_META);
      sim_op_write (op, head, 8, SIM_MEM_CACHE_META);
      s->next = l->head;
      s->prev = NULL;
      if (l->head)
        l->head->prev = s;
      else
        l->tail = s;
      l->head = s;
    }
  s->list = (guint8) list;
  l->n++;
}

/* ------------------------------------------------------------------ */
/* Objects within a slab                                               */

/* virt_to_slab / virt_to_cache: the struct page of the object's page
 * holds both pointers (page->lru). */
static Slab *
virt_to_slab (SimSlab *m, SimOp *op, SimAddr obj)
{
  sim_op_path (op, &m->path[P_VIRT_TO_PAGE]);
  SimAddr page = obj & ~(SimAddr) (SIM_PAGE_SIZE - 1);
  SimAddr pg = sim_page_struct (m->env.pages, page);
  sim_op_read (op, pg + PG_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_read (op, pg + PG_LRU, 16, SIM_MEM_STRUCT_PAGE);
  return slab_at (m, page);
}

static SimAddr
slab_get_obj (SimSlab *m, SimOp *op, Slab *s)
{
  sim_op_path (op, &m->path[P_GET_OBJ]);
  desc_rd (op, s, SL_INUSE, 8);
  desc_rd (op, s, SL_S_MEM, 8);
  SimAddr obj = obj_addr (s, s->free);
  sim_op_read (op, bufctl_addr (s, s->free), BUFCTL_SIZE, SIM_MEM_FREEPTR);
  s->inuse++;
  s->free = s->bufctl[s->free];
  desc_wr (op, s, SL_INUSE, 8);
  return obj;
}

static void
slab_put_obj (SimSlab *m, SimOp *op, Slab *s, SimAddr obj)
{
  sim_op_path (op, &m->path[P_PUT_OBJ]);
  desc_rd (op, s, SL_S_MEM, 8);
  guint idx = (guint) ((obj - s->s_mem) / s->c->buffer_size);
  desc_rd (op, s, SL_INUSE, 8);
  s->bufctl[idx] = s->free;
  sim_op_write (op, bufctl_addr (s, idx), BUFCTL_SIZE, SIM_MEM_FREEPTR);
  s->free = idx;
  s->inuse--;
  desc_wr (op, s, SL_INUSE, 8);
}

/* ------------------------------------------------------------------ */
/* Slab creation and destruction                                       */

static SimAddr cache_alloc_node (SimSlab *m, SimOp *op, SlabCache *c, gint nodeid,
                                 guint32 gfp);
static void    cache_free (SimSlab *m, SimOp *op, SlabCache *c, SimAddr obj);

static void
map_slab_pages (SimSlab *m, Slab *s, gboolean add)
{
  for (guint i = 0; i < (1u << s->c->gfporder); i++)
    {
      SimAddr key = s->pages + ((SimAddr) i << SIM_PAGE_SHIFT);
      if (add)
        sim_idmap_set (m->slab_of, key, (gsize) s);
      else
        sim_idmap_remove (m->slab_of, key, NULL);
    }
}

static void
kmem_freepages (SimSlab *m, SimOp *op, SlabCache *c, SimAddr pages)
{
  /* __ClearPageSlab on every page, then free_pages. */
  for (guint i = 0; i < (1u << c->gfporder); i++)
    {
      sim_op_path (op, &m->path[P_MAP_PAGE]);
      sim_op_write (op, sim_page_struct (m->env.pages, pages + ((SimAddr) i << SIM_PAGE_SHIFT))
                        + PG_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
    }
  sim_page_free (m->env.pages, op, pages, c->gfporder);
}

static SimAddr
kmem_getpages (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp, gint nodeid)
{
  guint32 pgfp = gfp & (SIM_GFP_WAIT | SIM_GFP_THISNODE);
  if (c->flags & SIM_SLAB_RECLAIM_ACCOUNT)
    pgfp |= SIM_GFP_RECLAIMABLE;
  /* Not __GFP_COMP: every page of a slab is mapped on its own. */
  SimAddr a = sim_page_alloc (m->env.pages, op, c->gfporder, nodeid, pgfp, FALSE);
  if (a == 0)
    return 0;
  for (guint i = 0; i < (1u << c->gfporder); i++)
    {
      sim_op_path (op, &m->path[P_MAP_PAGE]);
      sim_op_write (op, sim_page_struct (m->env.pages, a + ((SimAddr) i << SIM_PAGE_SHIFT))
                        + PG_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
    }
  return a;
}

static void
slab_destroy (SimSlab *m, SimOp *op, SlabCache *c, Slab *s)
{
  sim_op_path (op, &m->path[P_DESTROY]);
  desc_rd (op, s, SL_COLOUROFF, 16);          /* s_mem - colouroff */
  SimAddr pages = s->pages, desc = s->desc;
  map_slab_pages (m, s, FALSE);
  stat (m, op, c, SIM_SLAB_SLABS_DESTROYED);
  g_free (s);
  kmem_freepages (m, op, c, pages);
  if (c->off_slab)
    cache_free (m, op, c->slabp_cache, desc);
}

/* cache_grow: one new slab on @nodeid's free list.  @pages: already
 * allocated pages (fallback_alloc), else 0. */
static gboolean
cache_grow (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp, guint nodeid, SimAddr pages)
{
  sim_op_path (op, &m->path[P_GROW]);
  Node *n = nodelist (op, c, nodeid);
  list_lock (op, n);
  l3_rd (op, n, L3_COLOUR_NEXT, 4);
  rd_kc (op, c, KC_COLOUR, 16);
  guint offset = n->colour_next;
  n->colour_next++;
  if (n->colour_next >= c->colour)
    n->colour_next = 0;
  l3_wr (op, n, L3_COLOUR_NEXT, 4);
  list_unlock (op, n);
  offset *= c->colour_off;

  if (pages == 0)
    pages = kmem_getpages (m, op, c, gfp, (gint) nodeid);
  if (pages == 0)
    return FALSE;

  /* alloc_slabmgmt */
  SimAddr desc;
  guint colouroff = offset;
  if (c->off_slab)
    {
      /* kmem_cache_alloc_node without the constraint flags: the
       * management may come from another node if this one is full. */
      desc = cache_alloc_node (m, op, c->slabp_cache, (gint) nodeid,
                               gfp & ~(SIM_GFP_ZERO | SIM_GFP_THISNODE));
      if (desc == 0)
        {
          kmem_freepages (m, op, c, pages);
          return FALSE;
        }
    }
  else
    {
      desc = pages + offset;
      colouroff += c->slab_size;
    }
  Slab *s = g_malloc0 (sizeof (Slab) + c->num * sizeof (guint32));
  s->pages = pages;
  s->desc = desc;
  s->c = c;
  s->colouroff = colouroff;
  s->s_mem = pages + colouroff;
  s->nodeid = (guint16) nodeid;
  s->free = 0;
  desc_wr (op, s, SL_COLOUROFF, 16);
  desc_wr (op, s, SL_INUSE, 8);
  desc_wr (op, s, SL_NODEID, 2);

  /* slab_map_pages: page->lru.next = cache, page->lru.prev = slab */
  for (guint i = 0; i < (1u << c->gfporder); i++)
    {
      sim_op_path (op, &m->path[P_MAP_PAGE]);
      sim_op_write (op, sim_page_struct (m->env.pages, pages + ((SimAddr) i << SIM_PAGE_SHIFT))
                        + PG_LRU, 16, SIM_MEM_STRUCT_PAGE);
    }
  map_slab_pages (m, s, TRUE);

  /* cache_init_objs: the constructor writes each object; bufctl[i] = i+1 */
  for (guint i = 0; i < c->num; i++)
    {
      sim_op_path (op, &m->path[P_INIT_OBJ]);
      if (c->flags & SIM_SLAB_CTOR)
        sim_op_write (op, obj_addr (s, i), MIN (c->buffer_size, 64u), SIM_MEM_OBJECT);
      s->bufctl[i] = i + 1 < c->num ? i + 1 : BUFCTL_END;
      sim_op_write (op, bufctl_addr (s, i), BUFCTL_SIZE, SIM_MEM_FREEPTR);
    }

  list_lock (op, n);
  list_add_slab (m, op, n, s, LIST_FREE, TRUE);
  stat (m, op, c, SIM_SLAB_GROWN);
  n->free_objects += c->num;
  l3_wr (op, n, L3_FREE_OBJECTS, 8);
  list_unlock (op, n);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Moving objects between arrays and slabs                             */

/* transfer_objects: up to @max entries from the top of @from onto @to. */
static guint
transfer_objects (SimSlab *m, SimOp *op, ArrayCache *to, ArrayCache *from, guint max)
{
  sim_op_path (op, &m->path[P_TRANSFER]);
  ac_rd (op, from, AC_AVAIL, 4);
  ac_rd (op, to, AC_AVAIL, 8);
  guint nr = MIN (MIN (from->avail, max), to->limit - to->avail);
  if (nr == 0)
    return 0;
  sim_op_path_n (op, &m->path[P_MOVE_ENTRY], nr);
  sim_op_touch_range (op, ac_entry_addr (from, from->avail - nr), 8 * nr, SIM_ACC_READ,
                      SIM_MEM_CPU_SLAB);
  sim_op_touch_range (op, ac_entry_addr (to, to->avail), 8 * nr, SIM_ACC_WRITE,
                      SIM_MEM_CPU_SLAB);
  memcpy (&to->entry[to->avail], &from->entry[from->avail - nr], nr * sizeof (SimAddr));
  from->avail -= nr;
  to->avail += nr;
  ac_wr (op, from, AC_AVAIL, 4);
  ac_wr (op, to, AC_AVAIL, 4);
  if (m->era->transfer_touches)
    {
      to->touched = 1;
      ac_wr (op, to, AC_TOUCHED, 4);
    }
  return nr;
}

/* free_block: give @nr objects back to their slabs on @node (list_lock
 * held).  @objs lives at simulated @objs_addr (0: on the stack). */
static void
free_block (SimSlab *m, SimOp *op, SlabCache *c, const SimAddr *objs, SimAddr objs_addr,
            guint nr, guint node)
{
  Node *n = nodelist (op, c, node);
  for (guint i = 0; i < nr; i++)
    {
      sim_op_path (op, &m->path[P_FREE_BLOCK]);
      if (objs_addr)
        sim_op_read (op, objs_addr + 8 * (SimAddr) i, 8, SIM_MEM_CPU_SLAB);
      SimAddr obj = objs[i];
      Slab *s = virt_to_slab (m, op, obj);
      g_assert (s != NULL && s->c == c && s->nodeid == node);
      list_del_slab (m, op, n, s);
      slab_put_obj (m, op, s, obj);
      stat_dec_active (m, op, c);
      n->free_objects++;
      l3_wr (op, n, L3_FREE_OBJECTS, 8);
      if (s->inuse == 0)
        {
          l3_rd (op, n, L3_FREE_LIMIT, 4);
          if (n->free_objects > n->free_limit)
            {
              n->free_objects -= c->num;
              l3_wr (op, n, L3_FREE_OBJECTS, 8);
              slab_destroy (m, op, c, s);
            }
          else
            list_add_slab (m, op, n, s, LIST_FREE, FALSE);
        }
      else
        /* To the tail: the longest time for the other objects to come
         * back too. */
        list_add_slab (m, op, n, s, LIST_PARTIAL, TRUE);
    }
}

/* Remove the first @nr entries of @ac, sliding the rest down (memmove). */
static void
ac_shift (SimSlab *m, SimOp *op, ArrayCache *ac, guint nr)
{
  ac->avail -= nr;
  ac_wr (op, ac, AC_AVAIL, 4);
  if (ac->avail)
    {
      sim_op_path_n (op, &m->path[P_MOVE_ENTRY], ac->avail);
      sim_op_touch_range (op, ac_entry_addr (ac, nr), 8 * (SimAddr) ac->avail, SIM_ACC_READ,
                          SIM_MEM_CPU_SLAB);
      sim_op_touch_range (op, ac_entry_addr (ac, 0), 8 * (SimAddr) ac->avail, SIM_ACC_WRITE,
                          SIM_MEM_CPU_SLAB);
      memmove (&ac->entry[0], &ac->entry[nr], ac->avail * sizeof (SimAddr));
    }
}

static void
drain_alien_one (SimSlab *m, SimOp *op, SlabCache *c, ArrayCache *ac, guint node)
{
  /* __drain_alien_cache: into the remote node's shared array first, the
   * rest back to the remote slabs. */
  sim_op_path (op, &m->path[P_DRAIN_ALIEN]);
  Node *rn = nodelist (op, c, node);
  ac_rd (op, ac, AC_AVAIL, 4);
  if (ac->avail == 0)
    return;
  list_lock (op, rn);
  l3_rd (op, rn, L3_SHARED, 8);
  if (rn->shared)
    transfer_objects (m, op, rn->shared, ac, ac->limit);
  free_block (m, op, c, ac->entry, ac_entry_addr (ac, 0), ac->avail, node);
  ac->avail = 0;
  ac_wr (op, ac, AC_AVAIL, 4);
  list_unlock (op, rn);
}

/* cache_free_alien: TRUE when @obj belongs to another node and was dealt
 * with here. */
static gboolean
cache_free_alien (SimSlab *m, SimOp *op, SlabCache *c, SimAddr obj)
{
  Slab *s = virt_to_slab (m, op, obj);
  desc_rd (op, s, SL_NODEID, 2);
  guint node = node_of_cpu (m, op->cpu);
  guint nodeid = s->nodeid;
  if (nodeid == node)
    return FALSE;
  sim_op_path (op, &m->path[P_ALIEN]);
  Node *n = nodelist (op, c, node);
  stat (m, op, c, SIM_SLAB_NODE_FREES);
  l3_rd (op, n, L3_ALIEN, 8);
  if (n->alien && n->alien[nodeid])
    {
      ArrayCache *alien = n->alien[nodeid];
      sim_op_read (op, n->alien_addr + 8 * nodeid, 8, SIM_MEM_CACHE_META);
      sim_op_lock (op, &alien->lock, alien->addr + AC_LOCK);
      ac_rd (op, alien, AC_AVAIL, 8);
      if (alien->avail == alien->limit)
        {
          stat (m, op, c, SIM_SLAB_NODE_OVERFLOW);
          drain_alien_one (m, op, c, alien, nodeid);
        }
      alien->entry[alien->avail] = obj;
      sim_op_write (op, ac_entry_addr (alien, alien->avail), 8, SIM_MEM_CPU_SLAB);
      alien->avail++;
      ac_wr (op, alien, AC_AVAIL, 4);
      sim_op_unlock (op, &alien->lock, alien->addr + AC_LOCK);
    }
  else
    {
      Node *rn = nodelist (op, c, nodeid);
      list_lock (op, rn);
      free_block (m, op, c, &obj, 0, 1, nodeid);
      list_unlock (op, rn);
    }
  return TRUE;
}

static void
cache_flusharray (SimSlab *m, SimOp *op, SlabCache *c, ArrayCache *ac)
{
  sim_op_path (op, &m->path[P_FLUSH]);
  guint node = node_of_cpu (m, op->cpu);
  ac_rd (op, ac, AC_BATCHCOUNT, 4);
  guint batchcount = ac->batchcount;
  Node *n = nodelist (op, c, node);
  list_lock (op, n);
  l3_rd (op, n, L3_SHARED, 8);
  gboolean done = FALSE;
  if (n->shared)
    {
      ArrayCache *sh = n->shared;
      ac_rd (op, sh, AC_AVAIL, 8);
      guint max = sh->limit - sh->avail;
      if (max)
        {
          if (batchcount > max)
            batchcount = max;
          sim_op_path_n (op, &m->path[P_MOVE_ENTRY], batchcount);
          sim_op_touch_range (op, ac_entry_addr (ac, 0), 8 * (SimAddr) batchcount,
                              SIM_ACC_READ, SIM_MEM_CPU_SLAB);
          sim_op_touch_range (op, ac_entry_addr (sh, sh->avail), 8 * (SimAddr) batchcount,
                              SIM_ACC_WRITE, SIM_MEM_CPU_SLAB);
          memcpy (&sh->entry[sh->avail], &ac->entry[0], batchcount * sizeof (SimAddr));
          sh->avail += batchcount;
          ac_wr (op, sh, AC_AVAIL, 4);
          done = TRUE;
        }
    }
  if (!done)
    free_block (m, op, c, ac->entry, ac_entry_addr (ac, 0), batchcount, node);
  /* STATS: max_freeable = the longest slabs_free seen here. */
  if (n->lists[LIST_FREE].n > c->stat[SIM_SLAB_MAX_FREEABLE])
    {
      c->stat[SIM_SLAB_MAX_FREEABLE] = n->lists[LIST_FREE].n;
      if (m->stats_cost)
        sim_op_write (op, c->fixed + KC_STATS + 8 * (SIM_SLAB_MAX_FREEABLE - SIM_SLAB_NUM_ACTIVE),
                      8, SIM_MEM_CACHE_META);
    }
  list_unlock (op, n);
  ac_shift (m, op, ac, batchcount);
}

/* ------------------------------------------------------------------ */
/* Allocation                                                          */

static SimAddr
cache_alloc_refill (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp)
{
  sim_op_path (op, &m->path[P_REFILL]);
  for (;;)
    {
      guint node = node_of_cpu (m, op->cpu);
      ArrayCache *ac = cpu_cache_get (op, c);
      ac_rd (op, ac, AC_AVAIL, 16);
      guint batchcount = ac->batchcount;
      if (!ac->touched && batchcount > BATCHREFILL_LIMIT)
        batchcount = BATCHREFILL_LIMIT;
      Node *n = nodelist (op, c, node);
      list_lock (op, n);
      l3_rd (op, n, L3_SHARED, 8);
      gboolean done = FALSE;
      if (n->shared && transfer_objects (m, op, ac, n->shared, batchcount))
        {
          if (!m->era->transfer_touches)
            {
              n->shared->touched = 1;
              ac_wr (op, n->shared, AC_TOUCHED, 4);
            }
          done = TRUE;
        }
      while (!done && batchcount > 0)
        {
          l3_rd (op, n, L3_PARTIAL, 8);
          Slab *s = n->lists[LIST_PARTIAL].head;
          if (s == NULL)
            {
              n->free_touched = TRUE;
              l3_wr (op, n, L3_FREE_TOUCHED, 4);
              l3_rd (op, n, L3_FREE, 8);
              s = n->lists[LIST_FREE].head;
              if (s == NULL)
                break;
            }
          rd_kc (op, c, KC_NUM, 4);
          while (s->inuse < c->num && batchcount > 0)
            {
              batchcount--;
              stat (m, op, c, SIM_SLAB_NUM_ALLOCATIONS);
              stat (m, op, c, SIM_SLAB_NUM_ACTIVE);
              SimAddr obj = slab_get_obj (m, op, s);
              ac->entry[ac->avail] = obj;
              sim_op_write (op, ac_entry_addr (ac, ac->avail), 8, SIM_MEM_CPU_SLAB);
              ac->avail++;
            }
          list_del_slab (m, op, n, s);
          list_add_slab (m, op, n, s, s->free == BUFCTL_END ? LIST_FULL : LIST_PARTIAL, FALSE);
        }
      if (!done)
        {
          /* must_grow: */
          n->free_objects -= ac->avail;
          l3_wr (op, n, L3_FREE_OBJECTS, 8);
          ac_wr (op, ac, AC_AVAIL, 4);
        }
      list_unlock (op, n);
      if (ac->avail == 0)
        {
          gboolean x = cache_grow (m, op, c, gfp | SIM_GFP_THISNODE, node, 0);
          if (!x && ac->avail == 0)
            return 0;
          if (ac->avail == 0)
            continue;
        }
      ac->touched = 1;
      ac->avail--;
      ac_wr (op, ac, AC_AVAIL, 16);
      sim_op_read (op, ac_entry_addr (ac, ac->avail), 8, SIM_MEM_CPU_SLAB);
      return ac->entry[ac->avail];
    }
}

/* ____cache_alloc */
static SimAddr
cache_alloc_local (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp)
{
  ArrayCache *ac = cpu_cache_get (op, c);
  ac_rd (op, ac, AC_AVAIL, 4);
  if (ac->avail)
    {
      stat (m, op, c, SIM_SLAB_ALLOCHIT);
      ac->touched = 1;
      ac_wr (op, ac, AC_TOUCHED, 4);
      ac->avail--;
      sim_op_read (op, ac_entry_addr (ac, ac->avail), 8, SIM_MEM_CPU_SLAB);
      ac_wr (op, ac, AC_AVAIL, 4);
      return ac->entry[ac->avail];
    }
  stat (m, op, c, SIM_SLAB_ALLOCMISS);
  return cache_alloc_refill (m, op, c, gfp);
}

static SimAddr node_alloc (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp, guint nodeid);

/* fallback_alloc: any node's free objects, else pages from anywhere. */
static SimAddr
fallback_alloc (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp)
{
  if (gfp & SIM_GFP_THISNODE)
    return 0;
  guint local = node_of_cpu (m, op->cpu);
  for (;;)
    {
      for (guint i = 0; i < m->n_nodes; i++)
        {
          guint nid = (local + i) % m->n_nodes;
          Node *n = nodelist (op, c, nid);
          l3_rd (op, n, L3_FREE_OBJECTS, 8);
          if (n->free_objects)
            {
              SimAddr obj = node_alloc (m, op, c, gfp | SIM_GFP_THISNODE, nid);
              if (obj)
                return obj;
            }
        }
      SimAddr pages = kmem_getpages (m, op, c, gfp & ~SIM_GFP_THISNODE, (gint) local);
      if (pages == 0)
        return 0;
      guint nid = sim_page_node_of (m->env.pages, pages) % m->n_nodes;
      if (!cache_grow (m, op, c, gfp, nid, pages))
        return 0;
      SimAddr obj = node_alloc (m, op, c, gfp | SIM_GFP_THISNODE, nid);
      if (obj)
        return obj;
    }
}

/* ____cache_alloc_node: one object straight from @nodeid's lists. */
static SimAddr
node_alloc (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp, guint nodeid)
{
  sim_op_path (op, &m->path[P_NODE_ALLOC]);
  Node *n = nodelist (op, c, nodeid);
  for (;;)
    {
      list_lock (op, n);
      l3_rd (op, n, L3_PARTIAL, 8);
      Slab *s = n->lists[LIST_PARTIAL].head;
      if (s == NULL)
        {
          n->free_touched = TRUE;
          l3_wr (op, n, L3_FREE_TOUCHED, 4);
          l3_rd (op, n, L3_FREE, 8);
          s = n->lists[LIST_FREE].head;
        }
      if (s)
        {
          stat (m, op, c, SIM_SLAB_NODE_ALLOCS);
          stat (m, op, c, SIM_SLAB_NUM_ACTIVE);
          SimAddr obj = slab_get_obj (m, op, s);
          n->free_objects--;
          l3_wr (op, n, L3_FREE_OBJECTS, 8);
          list_del_slab (m, op, n, s);
          list_add_slab (m, op, n, s, s->free == BUFCTL_END ? LIST_FULL : LIST_PARTIAL, FALSE);
          list_unlock (op, n);
          return obj;
        }
      list_unlock (op, n);
      if (!cache_grow (m, op, c, gfp | SIM_GFP_THISNODE, nodeid, 0))
        return fallback_alloc (m, op, c, gfp);
    }
}

/* __cache_alloc / __cache_alloc_node without the debug and trace hooks. */
static SimAddr
cache_alloc_node (SimSlab *m, SimOp *op, SlabCache *c, gint nodeid, guint32 gfp)
{
  sim_op_path (op, &m->path[P_FAST_ALLOC]);
  sim_op_irqsave (op);                         /* local_irq_save in __cache_alloc */
  guint local = node_of_cpu (m, op->cpu);
  SimAddr obj = 0;
  if (nodeid == SIM_NUMA_NO_NODE)
    {
      /* __do_cache_alloc */
      obj = cache_alloc_local (m, op, c, gfp);
      if (obj == 0)
        obj = node_alloc (m, op, c, gfp, local);
    }
  else
    {
      guint nid = (guint) nodeid % m->n_nodes;
      if (nid == local)
        obj = cache_alloc_local (m, op, c, gfp);
      if (obj == 0)
        obj = node_alloc (m, op, c, gfp, nid);
    }
  sim_op_irqrestore (op);                      /* before the __GFP_ZERO memset */
  if (obj == 0)
    return 0;
  if (gfp & SIM_GFP_ZERO)
    {
      rd_kc (op, c, KC_BUFFER_SIZE, 4);
      sim_op_touch_range (op, obj, c->buffer_size, SIM_ACC_WRITE, SIM_MEM_OBJECT);
    }
  c->live++;
  return obj;
}

SimAddr
sim_slab_cache_alloc (SimSlab *m, SimOp *op, SimCacheId id, gint node, guint32 gfp)
{
  g_return_val_if_fail (id < m->caches->len, 0);
  return cache_alloc_node (m, op, g_ptr_array_index (m->caches, id), node, gfp);
}

/* ------------------------------------------------------------------ */
/* Free                                                                */

/* __cache_free */
static void
cache_free (SimSlab *m, SimOp *op, SlabCache *c, SimAddr obj)
{
  sim_op_path (op, &m->path[P_FAST_FREE]);
  /* kmem_cache_free and kfree run __cache_free between local_irq_save
   * and local_irq_restore. */
  sim_op_irqsave (op);
  c->live--;
  ArrayCache *ac = cpu_cache_get (op, c);
  if (m->n_nodes > 1 && cache_free_alien (m, op, c, obj))
    {
      sim_op_irqrestore (op);
      return;
    }
  ac_rd (op, ac, AC_AVAIL, 8);
  if (ac->avail < ac->limit)
    stat (m, op, c, SIM_SLAB_FREEHIT);
  else
    {
      stat (m, op, c, SIM_SLAB_FREEMISS);
      cache_flusharray (m, op, c, ac);
    }
  ac->entry[ac->avail] = obj;
  sim_op_write (op, ac_entry_addr (ac, ac->avail), 8, SIM_MEM_CPU_SLAB);
  ac->avail++;
  ac_wr (op, ac, AC_AVAIL, 4);
  sim_op_irqrestore (op);
}

/* virt_to_cache: the cache pointer in the object's struct page
 * (page->lru.next); the kfree row counts it with kfree's own test. */
static void
virt_to_cache (SimSlab *m, SimOp *op, SimAddr page)
{
  sim_op_path (op, &m->path[P_KFREE]);
  SimAddr pg = sim_page_struct (m->env.pages, page);
  sim_op_read (op, pg + PG_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_read (op, pg + PG_LRU, 8, SIM_MEM_STRUCT_PAGE);
}

gboolean
sim_slab_free (SimSlab *m, SimOp *op, SimAddr addr)
{
  SimAddr page = addr & ~(SimAddr) (SIM_PAGE_SIZE - 1);
  Slab *s = slab_at (m, page);
  if (s == NULL || addr < s->s_mem)
    return FALSE;
  SlabCache *c = s->c;
  if ((addr - s->s_mem) % c->buffer_size != 0 || (addr - s->s_mem) / c->buffer_size >= c->num)
    return FALSE;
  /* kfree finds the cache through struct page (virt_to_cache:
   * virt_to_head_page, page_get_cache). */
  virt_to_cache (m, op, page);
  cache_free (m, op, c, addr);
  return TRUE;
}

/* kmem_cache_free; FALSE if @addr is not an object slot of the model's. */
gboolean
sim_slab_cache_free (SimSlab *m, SimOp *op, SimAddr addr)
{
  SimAddr page = addr & ~(SimAddr) (SIM_PAGE_SIZE - 1);
  Slab *s = slab_at (m, page);
  if (s == NULL || addr < s->s_mem)
    return FALSE;
  SlabCache *c = s->c;
  if ((addr - s->s_mem) % c->buffer_size != 0 || (addr - s->s_mem) / c->buffer_size >= c->num)
    return FALSE;
  /* kmem_cache_free is handed the cache; 2.6.23 still looks it up in
   * struct page to check it (BUG_ON), 2.6.34 does not. */
  if (m->era->cache_free_checks)
    virt_to_cache (m, op, page);
  cache_free (m, op, c, addr);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* kmalloc                                                             */

static SlabCache *
find_general_cachep (SimSlab *m, SimOp *op, gsize size, guint32 gfp)
{
  guint i = 0;
  for (;; i++)
    {
      if (op)
        {
          sim_op_path (op, &m->path[P_KMALLOC_STEP]);
          sim_op_read (op, m->malloc_sizes_addr + 24 * (SimAddr) i, 8, SIM_MEM_CACHE_META);
        }
      if (i == m->n_sizes || size <= m->sizes[i])
        break;
    }
  if (i == m->n_sizes)
    return NULL;
  if (op)
    sim_op_read (op, m->malloc_sizes_addr + 24 * (SimAddr) i + ((gfp & SIM_GFP_DMA) ? 16 : 8),
                 8, SIM_MEM_CACHE_META);
  return (gfp & SIM_GFP_DMA) ? m->size_dma_cache[i] : m->size_cache[i];
}

SimCacheId
sim_slab_kmalloc_cache (SimSlab *m, gsize size, guint32 gfp)
{
  SlabCache *c = find_general_cachep (m, NULL, MAX (size, 1), gfp);
  return c ? c->id : SIM_CACHE_NONE;
}

guint64
sim_slab_kmalloc_max (SimSlab *m)
{
  return m->n_sizes ? m->sizes[m->n_sizes - 1] : 0;
}

SimAddr
sim_slab_kmalloc (SimSlab *m, SimOp *op, gsize size, gint node, guint32 gfp)
{
  /* SLAB of these eras has no page-allocator pass-through: above the
   * largest general cache kmalloc fails.
   *
   * slab_def.h's kmalloc picks the cache at compile time when the size is
   * a constant (__builtin_constant_p): one load of
   * malloc_sizes[i].cs_cachep (cs_dmacachep for GFP_DMA), then
   * kmem_cache_alloc; only a variable size goes through __kmalloc and
   * __find_general_cachep's walk.  A trace cannot tell the two apart;
   * most kmalloc call sites pass a constant (sizeof a structure), so the
   * model charges the compile-time path for every kmalloc
   * (docs/models/slab.md). */
  SlabCache *c = find_general_cachep (m, NULL, MAX (size, 1), gfp);
  if (c == NULL)
    return 0;
  guint i = 0;
  while (m->sizes[i] < MAX (size, 1))
    i++;
  sim_op_read (op, m->malloc_sizes_addr + 24 * (SimAddr) i + ((gfp & SIM_GFP_DMA) ? 16 : 8), 8,
               SIM_MEM_CACHE_META);
  return cache_alloc_node (m, op, c, node, gfp);
}

/* ------------------------------------------------------------------ */
/* cache_reap                                                          */

static void
drain_array (SimSlab *m, SimOp *op, SlabCache *c, Node *n, ArrayCache *ac, gboolean force,
             guint node)
{
  sim_op_path (op, &m->path[P_DRAIN_ARRAY]);
  if (ac == NULL)
    return;
  ac_rd (op, ac, AC_AVAIL, 16);
  if (ac->avail == 0)
    return;
  if (ac->touched && !force)
    {
      ac->touched = 0;
      ac_wr (op, ac, AC_TOUCHED, 4);
      return;
    }
  list_lock (op, n);
  if (ac->avail)
    {
      guint tofree = force ? ac->avail : (ac->limit + 4) / 5;
      if (tofree > ac->avail)
        tofree = (ac->avail + 1) / 2;
      free_block (m, op, c, ac->entry, ac_entry_addr (ac, 0), tofree, node);
      ac_shift (m, op, ac, tofree);
    }
  list_unlock (op, n);
}

static guint
drain_freelist (SimSlab *m, SimOp *op, SlabCache *c, Node *n, guint tofree)
{
  guint nr = 0;
  while (nr < tofree)
    {
      l3_rd (op, n, L3_FREE, 16);
      if (n->lists[LIST_FREE].n == 0)
        break;
      list_lock (op, n);
      Slab *s = n->lists[LIST_FREE].tail;
      list_del_slab (m, op, n, s);
      n->free_objects -= c->num;
      l3_wr (op, n, L3_FREE_OBJECTS, 8);
      list_unlock (op, n);
      slab_destroy (m, op, c, s);
      nr++;
    }
  return nr;
}

static void
reap_alien (SimSlab *m, SimOp *op, SlabCache *c, Node *n)
{
  guint node = m->reap_node[op->cpu];
  l3_rd (op, n, L3_ALIEN, 8);
  if (n->alien == NULL)
    return;
  ArrayCache *ac = n->alien[node];
  sim_op_read (op, n->alien_addr + 8 * node, 8, SIM_MEM_CACHE_META);
  if (ac == NULL)
    return;
  ac_rd (op, ac, AC_AVAIL, 4);
  if (ac->avail == 0)
    return;
  /* spin_trylock_irq: skip when another CPU holds it now. */
  sim_op_access (op, ac->addr + AC_LOCK, 4, SIM_ACC_RMW, SIM_MEM_LOCK);
  if (!op->uncharged && sim_lock_busy (&ac->lock, op->cpu, op->t))
    return;
  if (!op->uncharged)
    sim_lock_acquire (&ac->lock, op->cpu, op->t);
  drain_alien_one (m, op, c, ac, node);
  sim_op_unlock (op, &ac->lock, ac->addr + AC_LOCK);
}

void
sim_slab_reap (SimSlab *m, SimOp *op)
{
  sim_op_path (op, &m->path[P_REAP]);
  guint node = node_of_cpu (m, op->cpu);
  /* cache_chain is newest first (list_add). */
  for (guint i = m->caches->len; i-- > 0;)
    {
      SlabCache *c = g_ptr_array_index (m->caches, i);
      sim_op_path (op, &m->path[P_REAP_CACHE]);
      Node *n = nodelist (op, c, node);
      reap_alien (m, op, c, n);
      drain_array (m, op, c, n, cpu_cache_get (op, c), FALSE, node);
      l3_rd (op, n, L3_NEXT_REAP, 8);
      guint64 jiffies = jiffies_at (m, op->t);
      if (n->next_reap > jiffies)
        continue;
      n->next_reap = jiffies + REAPTIMEOUT_LIST3_S * m->hz;
      l3_wr (op, n, L3_NEXT_REAP, 8);
      drain_array (m, op, c, n, n->shared, FALSE, node);
      l3_rd (op, n, L3_FREE_TOUCHED, 4);
      if (n->free_touched)
        {
          n->free_touched = FALSE;
          l3_wr (op, n, L3_FREE_TOUCHED, 4);
        }
      else
        {
          rd_kc (op, c, KC_NUM, 4);
          guint freed = drain_freelist (m, op, c, n,
                                        (n->free_limit + 5 * c->num - 1) / (5 * c->num));
          stat_add (m, op, c, SIM_SLAB_REAPED, freed);
        }
    }
  /* next_reap_node: round robin over the nodes. */
  m->reap_node[op->cpu] = (m->reap_node[op->cpu] + 1) % m->n_nodes;
}

/* __round_jiffies: to a whole second (down within the first quarter),
 * skewed by 3 jiffies per CPU so the CPUs do not reap in lockstep. */
static guint64
round_jiffies (guint64 j, guint cpu, guint64 now, guint hz)
{
  guint64 original = j;
  j += 3 * (guint64) cpu;
  guint64 rem = j % hz;
  j = rem < hz / 4 ? j - rem : j - rem + hz;
  j -= 3 * (guint64) cpu;
  return j <= now ? original : j;
}

static void reap_event (SimEngine *eng, gpointer data, guint64 arg);

static void
schedule_reap (SimSlab *m, guint cpu, guint64 jiffies_now, guint64 delay)
{
  guint64 at = round_jiffies (jiffies_now + delay, cpu, jiffies_now, m->hz);
  m->reap_event[cpu] = sim_engine_schedule (m->env.eng, at * m->cycles_per_jiffy, cpu,
                                            reap_event, m, cpu);
}

static void
reap_event (SimEngine *eng, gpointer data, guint64 arg)
{
  SimSlab *m = data;
  guint cpu = (guint) arg;
  m->reap_event[cpu] = 0;
  sim_engine_cpu_sync (eng, cpu, sim_engine_now (eng));
  SimOp op;
  sim_op_begin (&op, m->env.mem, cpu, sim_engine_cpu_clock (eng, cpu));
  sim_slab_reap (m, &op);
  sim_engine_cpu_advance (eng, cpu, sim_op_cycles (&op));
  schedule_reap (m, cpu, jiffies_at (m, op.t), REAPTIMEOUT_CPUC_S * m->hz);
}

guint64
sim_slab_cycles_per_jiffy (const SimSlab *m)
{
  return m->cycles_per_jiffy;
}

guint
sim_slab_hz (const SimSlab *m)
{
  return m->hz;
}

/* ------------------------------------------------------------------ */
/* Cache creation                                                      */

/* cache_estimate */
static void
cache_estimate (guint order, guint32 size, guint32 align, gboolean off_slab,
                guint64 *left_over, guint32 *num)
{
  guint64 slab = (guint64) SIM_PAGE_SIZE << order;
  guint64 nr, mgmt;
  if (off_slab)
    {
      mgmt = 0;
      nr = slab / size;
    }
  else
    {
      nr = (slab - SLAB_DESC_SIZE) / (size + BUFCTL_SIZE);
      if (((SLAB_DESC_SIZE + nr * BUFCTL_SIZE + align - 1) / align * align) + nr * size > slab)
        nr--;
      mgmt = (SLAB_DESC_SIZE + nr * BUFCTL_SIZE + align - 1) / align * align;
    }
  if (nr > SLAB_LIMIT)
    nr = SLAB_LIMIT;
  *num = (guint32) nr;
  *left_over = slab - nr * size - mgmt;
}

static guint64
calculate_slab_order (SimSlab *m, SlabCache *c, guint32 size, guint32 align)
{
  guint64 left_over = 0;
  for (guint order = 0; order <= KMALLOC_MAX_ORDER; order++)
    {
      guint32 num;
      guint64 remainder;
      cache_estimate (order, size, align, c->off_slab, &remainder, &num);
      if (num == 0)
        continue;
      if (c->off_slab)
        {
          /* cache_grow must not loop: the bufctl array has to fit in a
           * general cache smaller than the object. */
          guint64 offslab_limit = (size - SLAB_DESC_SIZE) / BUFCTL_SIZE;
          if (num > offslab_limit)
            break;
        }
      c->num = num;
      c->gfporder = order;
      left_over = remainder;
      if (c->flags & SIM_SLAB_RECLAIM_ACCOUNT)
        break;
      if (order >= m->break_gfp_order)
        break;
      if (left_over * 8 <= ((guint64) SIM_PAGE_SIZE << order))
        break;
    }
  return left_over;
}

/* enable_cpucache's defaults, then the user's tunings. */
static void
choose_tunables (SimSlab *m, SlabCache *c)
{
  guint limit;
  if (c->buffer_size > 131072)
    limit = 1;
  else if (c->buffer_size > SIM_PAGE_SIZE)
    limit = 8;
  else if (c->buffer_size > 1024)
    limit = 24;
  else if (c->buffer_size > 256)
    limit = 54;
  else
    limit = 120;
  guint shared = (c->buffer_size <= SIM_PAGE_SIZE && m->env.n_cpus > 1) ? 8 : 0;
  guint batchcount = (limit + 1) / 2;

  const Tune *tunes[2] = { &m->all, NULL };
  for (guint i = 0; i < m->tunes->len; i++)
    if (strcmp (g_array_index (m->tunes, Tune, i).name, c->name) == 0)
      tunes[1] = &g_array_index (m->tunes, Tune, i);
  for (guint i = 0; i < 2; i++)
    {
      const Tune *t = tunes[i];
      if (t == NULL)
        continue;
      if (t->limit >= 0)
        {
          limit = (guint) t->limit;
          batchcount = (limit + 1) / 2;
        }
      if (t->batchcount >= 0)
        batchcount = (guint) t->batchcount;
      if (t->shared >= 0)
        shared = (guint) t->shared;
    }
  /* A global batchcount above a cache's own limit: the kernel refuses
   * such a tuning, the model clamps it to the limit. */
  if (batchcount > limit)
    batchcount = limit;
  c->limit = limit;
  c->batchcount = batchcount;
  c->shared = shared;
}

/* kmalloc_node for the allocator's own structures: the slot the general
 * cache for @size would give (same size class and alignment), carved from
 * pages of @node taken from the page allocator.  (The kernel takes them
 * from the size-N caches; keeping them apart keeps the general caches'
 * counts those of the workload.) */
static SimAddr
kmalloc_node_meta (SimSlab *m, SimOp *op, guint node, guint64 size)
{
  guint64 slot = 32;
  while (slot < size)
    slot = slot == 128 ? 192 : slot == 192 ? 256 : slot * 2;
  guint64 align = MIN (slot, 64);
  guint64 used = (m->arena_used[node] + align - 1) & ~(align - 1);
  if (m->arena_base[node] == 0 || used + slot > m->arena_size[node])
    {
      guint order = 4;                    /* 64 KiB at a time */
      while (((guint64) SIM_PAGE_SIZE << order) < slot)
        order++;
      SimAddr base = sim_page_alloc (m->env.pages, op, order, (gint) node,
                                     SIM_GFP_THISNODE, FALSE);
      if (base == 0)
        base = sim_page_alloc (m->env.pages, op, order, (gint) node, 0, FALSE);
      if (base == 0)
        /* No page left at all: the static area still holds it. */
        return sim_page_static_alloc (m->env.pages, node, slot, align);
      m->arena_base[node] = base;
      m->arena_size[node] = (guint64) SIM_PAGE_SIZE << order;
      used = 0;
    }
  m->arena_used[node] = used + slot;
  return m->arena_base[node] + used;
}

static ArrayCache *
array_cache_new (SimSlab *m, SimOp *op, guint node, guint entries, guint batchcount)
{
  ArrayCache *ac = g_new0 (ArrayCache, 1);
  ac->limit = entries;
  ac->batchcount = batchcount;
  ac->entry = g_new0 (SimAddr, MAX (entries, 1));
  /* kmalloc_node(sizeof (void *) * entries + sizeof (struct array_cache)) */
  ac->addr = kmalloc_node_meta (m, op, node, AC_ENTRY + 8 * (guint64) entries);
  sim_lock_init (&ac->lock, "array_cache");
  return ac;
}

static void
array_cache_free (ArrayCache *ac)
{
  if (ac == NULL)
    return;
  g_free (ac->entry);
  g_free (ac);
}

static SlabCache *
cache_new (SimSlab *m, SimOp *op, const SimCacheSpec *spec, gboolean general, GError **error)
{
  guint32 flags = spec->flags;
  guint32 size = spec->object_size;
  if (size < BYTES_PER_WORD || size > KMALLOC_MAX_SIZE)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "slab: kmem_cache_create(\"%s\"): object size %u outside %u..%u",
                   spec->name, size, BYTES_PER_WORD, KMALLOC_MAX_SIZE);
      return NULL;
    }
  if (spec->align & (spec->align - 1))
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "slab: kmem_cache_create(\"%s\"): alignment %u is not a power of two",
                   spec->name, spec->align);
      return NULL;
    }
  size = (size + BYTES_PER_WORD - 1) & ~(BYTES_PER_WORD - 1);
  guint32 ralign;
  if (flags & SIM_SLAB_HWCACHE_ALIGN)
    {
      ralign = m->line;
      while (size <= ralign / 2)
        ralign /= 2;
    }
  else
    ralign = BYTES_PER_WORD;
  if (ralign < spec->align)
    ralign = spec->align;
  guint32 align = ralign;

  SlabCache *c = g_new0 (SlabCache, 1);
  c->name = g_strdup (spec->name);
  c->object_size = spec->object_size;
  c->flags = flags;
  c->general = general;
  c->align = align;
  /* Off-slab management for objects of PAGE_SIZE/8 and more (all general
   * caches below 512 bytes exist by then, so slab_early_init is over). */
  c->off_slab = size >= (SIM_PAGE_SIZE >> 3);
  size = (size + align - 1) / align * align;
  guint64 left_over = calculate_slab_order (m, c, size, align);
  if (c->num == 0)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "slab: kmem_cache_create(\"%s\"): no slab order holds an object of %u bytes",
                   spec->name, size);
      g_free (c->name);
      g_free (c);
      return NULL;
    }
  guint32 slab_size = (c->num * BUFCTL_SIZE + SLAB_DESC_SIZE + align - 1) / align * align;
  if (c->off_slab && left_over >= slab_size)
    {
      /* Room enough after all: back on-slab, at the expense of colours. */
      c->off_slab = FALSE;
      left_over -= slab_size;
    }
  if (c->off_slab)
    slab_size = c->num * BUFCTL_SIZE + SLAB_DESC_SIZE;
  c->colour_off = MAX (m->line, align);
  c->colour = (guint32) (left_over / c->colour_off);
  c->slab_size = slab_size;
  c->buffer_size = size;
  if (c->off_slab)
    {
      c->slabp_cache = find_general_cachep (m, NULL, slab_size, 0);
      if (c->slabp_cache == NULL || c->slabp_cache == c)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                       "slab: kmem_cache_create(\"%s\"): no general cache for %u bytes of "
                       "off-slab management", spec->name, slab_size);
          g_free (c->name);
          g_free (c);
          return NULL;
        }
    }
  choose_tunables (m, c);

  /* The structures: kmem_cache on node 0, per node a kmem_list3, its
   * shared array and alien arrays, per CPU an array_cache on the CPU's
   * node. */
  guint kc_fixed = 8 * m->env.n_cpus;
  c->nodelists_off = kc_fixed + KC_FIXED_SIZE + (m->stats_cost ? KC_STATS_SIZE : 0);
  guint kc_size = c->nodelists_off + 8 * m->n_nodes;
  c->addr = sim_page_static_alloc (m->env.pages, 0, kc_size, m->line);
  c->fixed = c->addr + kc_fixed;
  sim_op_touch_range (op, c->addr, kc_size, SIM_ACC_WRITE, SIM_MEM_CACHE_META);

  c->array = g_new0 (ArrayCache *, m->env.n_cpus);
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      c->array[cpu] = array_cache_new (m, op, node_of_cpu (m, cpu), c->limit, c->batchcount);
      ac_wr (op, c->array[cpu], AC_AVAIL, 24);
    }
  c->node = g_new0 (Node, m->n_nodes);
  guint64 jiffies = jiffies_at (m, op->t);
  for (guint nd = 0; nd < m->n_nodes; nd++)
    {
      Node *n = &c->node[nd];
      n->addr = kmalloc_node_meta (m, op, nd, L3_SIZE);
      sim_lock_init (&n->list_lock, "list_lock");
      guint64 list3 = REAPTIMEOUT_LIST3_S * m->hz;
      n->next_reap = jiffies + list3 + c->addr % list3;
      n->free_limit = (1 + m->cpus_on_node[nd]) * c->batchcount + c->num;
      if (c->shared)
        {
          n->shared = array_cache_new (m, op, nd, c->shared * c->batchcount, 0xbaadf00du);
          ac_wr (op, n->shared, AC_AVAIL, 24);
        }
      if (m->use_alien && m->n_nodes > 1)
        {
          guint alimit = c->limit > 1 ? ALIEN_LIMIT : c->limit;
          n->alien = g_new0 (ArrayCache *, m->n_nodes);
          n->alien_addr = kmalloc_node_meta (m, op, nd, 8 * m->n_nodes);
          for (guint r = 0; r < m->n_nodes; r++)
            if (r != nd)
              {
                n->alien[r] = array_cache_new (m, op, nd, alimit, 0xbaadf00du);
                ac_wr (op, n->alien[r], AC_AVAIL, 24);
              }
        }
      sim_op_touch_range (op, n->addr, L3_SIZE, SIM_ACC_WRITE, SIM_MEM_CACHE_META);
    }
  c->id = m->caches->len;
  g_ptr_array_add (m->caches, c);
  g_hash_table_insert (m->by_name, c->name, c);
  return c;
}

SimCacheId
sim_slab_cache_create (SimSlab *m, SimOp *op, const SimCacheSpec *spec, GError **error)
{
  /* The kernel refuses a duplicate name; a trace that creates a cache
   * again (a module reloaded without destroying it) gets the one that
   * exists. */
  SlabCache *c = g_hash_table_lookup (m->by_name, spec->name);
  if (c == NULL)
    c = cache_new (m, op, spec, FALSE, error);
  return c ? c->id : SIM_CACHE_NONE;
}

/* kmem_cache_init: the general caches in the kernel's order (the array
 * cache and kmem_list3 sizes first, then each size and its DMA twin). */
static gboolean
create_general_caches (SimSlab *m, SimOp *op, GError **error)
{
  static const guint32 all_sizes[] = {
    32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072,
    262144, 524288, 1048576, 2097152, 4194304,
  };
  m->sizes = g_new0 (guint32, G_N_ELEMENTS (all_sizes));
  for (guint i = 0; i < G_N_ELEMENTS (all_sizes); i++)
    {
      guint32 s = all_sizes[i];
      if ((s == 96 && m->era->l1_cache_bytes >= 64) || (s == 192 && m->era->l1_cache_bytes >= 128))
        continue;
      if (s > KMALLOC_MAX_SIZE)
        continue;
      m->sizes[m->n_sizes++] = s;
    }
  m->size_cache = g_new0 (SlabCache *, m->n_sizes);
  m->size_dma_cache = g_new0 (SlabCache *, m->n_sizes);
  m->malloc_sizes_addr = sim_page_static_alloc (m->env.pages, 0, 24 * (m->n_sizes + 1), 64);

  /* INDEX_AC: sizeof (struct arraycache_init) = 32; INDEX_L3:
   * sizeof (struct kmem_list3) = 104. */
  guint index_ac = 0, index_l3 = 0;
  while (m->sizes[index_ac] < 32)
    index_ac++;
  while (m->sizes[index_l3] < L3_SIZE)
    index_l3++;
  guint order[2] = { index_ac, index_l3 };
  for (guint k = 0; k < (index_ac == index_l3 ? 1u : 2u); k++)
    {
      g_autofree char *name = g_strdup_printf ("size-%u", m->sizes[order[k]]);
      SimCacheSpec spec = { .name = name, .object_size = m->sizes[order[k]],
                            .align = 8, .flags = SIM_SLAB_HWCACHE_ALIGN | SIM_SLAB_PANIC };
      if ((m->size_cache[order[k]] = cache_new (m, op, &spec, TRUE, error)) == NULL)
        return FALSE;
    }
  for (guint i = 0; i < m->n_sizes; i++)
    {
      if (m->size_cache[i] == NULL)
        {
          g_autofree char *name = g_strdup_printf ("size-%u", m->sizes[i]);
          SimCacheSpec spec = { .name = name, .object_size = m->sizes[i],
                                .align = 8, .flags = SIM_SLAB_HWCACHE_ALIGN | SIM_SLAB_PANIC };
          if ((m->size_cache[i] = cache_new (m, op, &spec, TRUE, error)) == NULL)
            return FALSE;
        }
      g_autofree char *dname = g_strdup_printf ("size-%u(DMA)", m->sizes[i]);
      SimCacheSpec dspec = { .name = dname, .object_size = m->sizes[i], .align = 8,
                             .flags = SIM_SLAB_HWCACHE_ALIGN | SIM_SLAB_PANIC
                                      | SIM_SLAB_CACHE_DMA };
      if ((m->size_dma_cache[i] = cache_new (m, op, &dspec, TRUE, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Parameters                                                          */

/* Every era modelled takes the same ones (the tunables of
 * /proc/slabinfo, noaliencache, and the model's own slab_stats and hz). */
static const char *const param_list[] = {
  "limit", "batchcount", "shared", "slabinfo", "noaliencache", "slab_stats", "hz", NULL
};

char **
sim_alloc_slab_param_names (const char *kernel)
{
  (void) kernel;
  return g_strdupv ((char **) param_list);
}

static gboolean
bad_value (GError **error, const char *era, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
bad_value (GError **error, const char *era, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE, "slab@%s: %s", era, msg);
  return FALSE;
}

/* "NAME LIMIT BATCHCOUNT SHARED" (as written to /proc/slabinfo) or with
 * ':' between the fields; entries separated by ';'. */
static gboolean
parse_slabinfo (SimSlab *m, const char *value, GError **error)
{
  g_auto (GStrv) entries = g_strsplit (value, ";", -1);
  for (guint i = 0; entries[i]; i++)
    {
      g_strdelimit (entries[i], ":", ' ');
      g_auto (GStrv) f = g_strsplit_set (g_strstrip (entries[i]), " \t", -1);
      GPtrArray *w = g_ptr_array_new ();
      for (guint k = 0; f[k]; k++)
        if (f[k][0])
          g_ptr_array_add (w, f[k]);
      guint64 v[3] = { 0 };
      gboolean ok = w->len == 4;
      for (guint k = 0; ok && k < 3; k++)
        ok = g_ascii_string_to_unsigned (g_ptr_array_index (w, k + 1), 10, 0, 100000,
                                         &v[k], NULL);
      if (!ok)
        {
          g_ptr_array_unref (w);
          return bad_value (error, m->era->name,
                            "slabinfo entry \"%s\" is not CACHE:LIMIT:BATCHCOUNT:SHARED "
                            "(numbers up to 100000)", entries[i]);
        }
      if (v[0] < 1 || v[1] < 1 || v[1] > v[0])
        {
          g_ptr_array_unref (w);
          return bad_value (error, m->era->name,
                            "slabinfo entry \"%s\": need limit >= 1 and 1 <= batchcount <= limit",
                            entries[i]);
        }
      Tune t = { g_strdup (g_ptr_array_index (w, 0)), (gint) v[0], (gint) v[1], (gint) v[2] };
      g_ptr_array_unref (w);
      for (guint k = 0; k < m->tunes->len; k++)
        if (strcmp (g_array_index (m->tunes, Tune, k).name, t.name) == 0)
          {
            bad_value (error, m->era->name, "slabinfo: cache \"%s\" tuned twice", t.name);
            g_free (t.name);
            return FALSE;
          }
      g_array_append_val (m->tunes, t);
    }
  return TRUE;
}

static gboolean
parse_params (SimSlab *m, const SimAllocSpec *spec, GError **error)
{
  m->all = (Tune) { NULL, -1, -1, -1 };
  for (guint i = 0; i < spec->params->len; i++)
    {
      const SimAllocParam *p = &g_array_index (spec->params, SimAllocParam, i);
      guint v;
      if (strcmp (p->key, "limit") == 0 || strcmp (p->key, "batchcount") == 0
          || strcmp (p->key, "shared") == 0)
        {
          if (!sim_alloc_param_uint (p, 100000, &v, error))
            return FALSE;
          if (p->key[0] == 'l')
            {
              if (v < 1)
                return bad_value (error, m->era->name, "limit must be at least 1");
              m->all.limit = (gint) v;
            }
          else if (p->key[0] == 'b')
            {
              if (v < 1)
                return bad_value (error, m->era->name, "batchcount must be at least 1");
              m->all.batchcount = (gint) v;
            }
          else
            m->all.shared = (gint) v;
        }
      else if (strcmp (p->key, "slabinfo") == 0)
        {
          if (p->value == NULL)
            return bad_value (error, m->era->name,
                              "slabinfo needs a value (CACHE:LIMIT:BATCHCOUNT:SHARED;...)");
          if (!parse_slabinfo (m, p->value, error))
            return FALSE;
        }
      else if (strcmp (p->key, "noaliencache") == 0)
        {
          if (p->value)
            return bad_value (error, m->era->name, "noaliencache takes no value");
          m->use_alien = FALSE;
          m->noalien_given = TRUE;
        }
      else if (strcmp (p->key, "slab_stats") == 0)
        {
          if (!sim_alloc_param_uint (p, 1, &v, error))
            return FALSE;
          m->stats_cost = v != 0;
        }
      else if (strcmp (p->key, "hz") == 0)
        {
          if (!sim_alloc_param_hz (p, &m->hz, error))
            return FALSE;
        }
      else
        {
          g_autofree char *names = g_strjoinv (", ", (char **) param_list);
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "slab@%s: unknown parameter \"%s\" (expected one of: %s)",
                       m->era->name, p->key, names);
          return FALSE;
        }
    }
  if (m->all.limit >= 0 && m->all.batchcount > m->all.limit)
    return bad_value (error, m->era->name, "batchcount %d is above limit %d",
                      m->all.batchcount, m->all.limit);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Model creation                                                      */

SimSlab *
sim_slab_new (const SimAllocSpec *spec, const SimAllocEnv *env, GError **error)
{
  const char *kernel = spec->kernel ? spec->kernel : "2.6.34";
  const SlabEra *era = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (eras); i++)
    if (strcmp (eras[i].name, kernel) == 0)
      era = &eras[i];
  if (era == NULL)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "slab: no model of kernel %s (known: 2.6.34, 2.6.23)", kernel);
      return NULL;
    }
  SimSlab *m = g_new0 (SimSlab, 1);
  m->era = era;
  m->kernel = g_strdup (era->name);
  m->env = *env;
  m->n_nodes = env->machine->numa ? MAX (1u, env->machine->sockets) : 1;
  m->line = env->machine->n_levels ? env->machine->levels[0].line : 64;
  m->use_alien = m->n_nodes > 1;
  m->tunes = g_array_new (FALSE, TRUE, sizeof (Tune));
  m->caches = g_ptr_array_new ();
  m->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  m->slab_of = sim_idmap_new (sizeof (SimIdPair), 0);
  m->hz = sim_kernel_hz (era->name);
  g_autofree char *table = g_strconcat ("slab-", era->name, NULL);
  if (!sim_paths_load (table, path_keys, N_PATHS, m->path, error)
      || !parse_params (m, spec, error))
    {
      sim_slab_free_model (m);
      return NULL;
    }
  if (m->n_nodes == 1)
    m->use_alien = FALSE;
  m->cycles_per_jiffy = (guint64) (env->machine->frequency_ghz * 1e9 / m->hz + 0.5);
  if (m->cycles_per_jiffy == 0)
    m->cycles_per_jiffy = 1;
  m->cpus_on_node = g_new0 (guint, m->n_nodes);
  m->arena_base = g_new0 (SimAddr, m->n_nodes);
  m->arena_used = g_new0 (guint64, m->n_nodes);
  m->arena_size = g_new0 (guint64, m->n_nodes);
  m->reap_node = g_new0 (guint, env->n_cpus);
  m->reap_event = g_new0 (guint64, env->n_cpus);
  for (guint cpu = 0; cpu < env->n_cpus; cpu++)
    {
      m->cpus_on_node[node_of_cpu (m, cpu)]++;
      /* init_reap_node: the node after the CPU's own. */
      m->reap_node[cpu] = (node_of_cpu (m, cpu) + 1) % m->n_nodes;
    }
  /* Fragmentation resistance on small machines: order 1 only with more
   * than 32 MiB (totalram_pages). */
  guint64 pages = sim_page_allocated (env->pages);
  for (guint nd = 0; nd < sim_page_n_nodes (env->pages); nd++)
    for (guint o = 0; o < SIM_PAGE_MAX_ORDER; o++)
      pages += sim_page_nr_free (env->pages, nd, o) << o;
  m->break_gfp_order = pages > ((32u << 20) >> SIM_PAGE_SHIFT) ? BREAK_GFP_ORDER_HI
                                                                : BREAK_GFP_ORDER_LO;
  SimOp op;
  sim_op_begin_uncharged (&op, env->mem, 0, 0);
  if (!create_general_caches (m, &op, error))
    {
      g_prefix_error (error, "slab@%s: ", era->name);
      sim_slab_free_model (m);
      return NULL;
    }
  if (env->eng)
    for (guint cpu = 0; cpu < env->n_cpus; cpu++)
      schedule_reap (m, cpu, 0, m->hz);
  return m;
}

void
sim_slab_free_model (SimSlab *m)
{
  if (m == NULL)
    return;
  if (m->env.eng && m->reap_event)
    for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
      if (m->reap_event[cpu])
        sim_engine_cancel (m->env.eng, m->reap_event[cpu]);
  if (m->slab_of)
    sim_idmap_free (m->slab_of);
  for (guint i = 0; m->caches && i < m->caches->len; i++)
    {
      SlabCache *c = g_ptr_array_index (m->caches, i);
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        array_cache_free (c->array[cpu]);
      for (guint nd = 0; nd < m->n_nodes; nd++)
        {
          array_cache_free (c->node[nd].shared);
          if (c->node[nd].alien)
            for (guint r = 0; r < m->n_nodes; r++)
              array_cache_free (c->node[nd].alien[r]);
          g_free (c->node[nd].alien);
        }
      /* Every slab is on one of its node's lists. */
      for (guint nd = 0; nd < m->n_nodes; nd++)
        for (guint l = LIST_PARTIAL; l <= LIST_FREE; l++)
          for (Slab *sl = c->node[nd].lists[l].head, *next; sl; sl = next)
            {
              next = sl->next;
              g_free (sl);
            }
      g_free (c->array);
      g_free (c->node);
      g_free (c->name);
      g_free (c);
    }
  if (m->caches)
    g_ptr_array_unref (m->caches);
  if (m->by_name)
    g_hash_table_destroy (m->by_name);
  for (guint i = 0; m->tunes && i < m->tunes->len; i++)
    g_free (g_array_index (m->tunes, Tune, i).name);
  if (m->tunes)
    g_array_free (m->tunes, TRUE);
  g_free (m->sizes);
  g_free (m->size_cache);
  g_free (m->size_dma_cache);
  g_free (m->cpus_on_node);
  g_free (m->arena_base);
  g_free (m->arena_used);
  g_free (m->arena_size);
  g_free (m->reap_node);
  g_free (m->reap_event);
  g_free (m->kernel);
  g_free (m);
}

/* ------------------------------------------------------------------ */
/* Introspection                                                       */

guint
sim_slab_n_caches (const SimSlab *m)
{
  return m->caches->len;
}

SimCacheId
sim_slab_cache_by_name (const SimSlab *m, const char *name)
{
  SlabCache *c = g_hash_table_lookup (m->by_name, name);
  return c ? c->id : SIM_CACHE_NONE;
}

static void
active_objs (const SlabCache *c, guint n_nodes, guint64 *slabs, guint64 lists[4],
             guint64 *active)
{
  *slabs = *active = 0;
  memset (lists, 0, 4 * sizeof (guint64));
  for (guint nd = 0; nd < n_nodes; nd++)
    for (guint l = LIST_PARTIAL; l <= LIST_FREE; l++)
      {
        lists[l] += c->node[nd].lists[l].n;
        *slabs += c->node[nd].lists[l].n;
        for (const Slab *s = c->node[nd].lists[l].head; s; s = s->next)
          *active += s->inuse;
      }
}

void
sim_slab_cache_info (const SimSlab *m, SimCacheId id, SimSlabCacheInfo *out)
{
  g_return_if_fail (id < m->caches->len);
  const SlabCache *c = g_ptr_array_index (m->caches, id);
  memset (out, 0, sizeof *out);
  out->name = c->name;
  out->object_size = c->object_size;
  out->buffer_size = c->buffer_size;
  out->align = c->align;
  out->num = c->num;
  out->gfporder = c->gfporder;
  out->colour = c->colour;
  out->colour_off = c->colour_off;
  out->slab_size = c->slab_size;
  out->off_slab = c->off_slab;
  out->slabp_cache = c->slabp_cache ? c->slabp_cache->name : NULL;
  out->limit = c->limit;
  out->batchcount = c->batchcount;
  out->shared = c->shared;
  out->shared_limit = c->node[0].shared ? c->node[0].shared->limit : 0;
  /* s_show's shared_avail: the objects waiting in every node's shared array. */
  for (guint nd = 0; nd < m->n_nodes; nd++)
    if (c->node[nd].shared)
      out->shared_avail += c->node[nd].shared->avail;
  for (guint nd = 0; nd < m->n_nodes && out->alien_limit == 0; nd++)
    if (c->node[nd].alien)
      for (guint r = 0; r < m->n_nodes; r++)
        if (c->node[nd].alien[r])
          out->alien_limit = c->node[nd].alien[r]->limit;
  guint64 lists[4];
  active_objs (c, m->n_nodes, &out->slabs, lists, &out->active_objs);
  out->partial_slabs = lists[LIST_PARTIAL];
  out->full_slabs = lists[LIST_FULL];
  out->free_slabs = lists[LIST_FREE];
  out->live = c->live;
  memcpy (out->stat, c->stat, sizeof c->stat);
}

static void
array_info (const ArrayCache *ac, SimSlabArrayInfo *out)
{
  out->avail = ac->avail;
  out->limit = ac->limit;
  out->batchcount = ac->batchcount;
  out->touched = ac->touched;
}

gboolean
sim_slab_cpu_array (const SimSlab *m, SimCacheId id, guint cpu, SimSlabArrayInfo *out)
{
  if (id >= m->caches->len || cpu >= m->env.n_cpus)
    return FALSE;
  array_info (((SlabCache *) g_ptr_array_index (m->caches, id))->array[cpu], out);
  return TRUE;
}

gboolean
sim_slab_shared_array (const SimSlab *m, SimCacheId id, guint node, SimSlabArrayInfo *out)
{
  if (id >= m->caches->len || node >= m->n_nodes)
    return FALSE;
  const ArrayCache *ac = ((SlabCache *) g_ptr_array_index (m->caches, id))->node[node].shared;
  if (ac == NULL)
    return FALSE;
  array_info (ac, out);
  return TRUE;
}

gboolean
sim_slab_alien_array (const SimSlab *m, SimCacheId id, guint node, guint remote,
                      SimSlabArrayInfo *out)
{
  if (id >= m->caches->len || node >= m->n_nodes || remote >= m->n_nodes)
    return FALSE;
  const Node *n = &((SlabCache *) g_ptr_array_index (m->caches, id))->node[node];
  if (n->alien == NULL || n->alien[remote] == NULL)
    return FALSE;
  array_info (n->alien[remote], out);
  return TRUE;
}

gboolean
sim_slab_node_info (const SimSlab *m, SimCacheId id, guint node, SimSlabNodeInfo *out)
{
  if (id >= m->caches->len || node >= m->n_nodes)
    return FALSE;
  const Node *n = &((SlabCache *) g_ptr_array_index (m->caches, id))->node[node];
  out->partial = n->lists[LIST_PARTIAL].n;
  out->full = n->lists[LIST_FULL].n;
  out->free = n->lists[LIST_FREE].n;
  out->free_objects = n->free_objects;
  out->free_limit = n->free_limit;
  out->colour_next = n->colour_next;
  out->free_touched = n->free_touched;
  out->next_reap = n->next_reap;
  return TRUE;
}

gboolean
sim_slab_object_slab (const SimSlab *m, SimAddr obj, SimAddr *pages, SimAddr *s_mem,
                      guint *colouroff, guint *node)
{
  const Slab *s = slab_at (m, obj & ~(SimAddr) (SIM_PAGE_SIZE - 1));
  if (s == NULL)
    return FALSE;
  if (pages)
    *pages = s->pages;
  if (s_mem)
    *s_mem = s->s_mem;
  if (colouroff)
    *colouroff = s->colouroff;
  if (node)
    *node = s->nodeid;
  return TRUE;
}

gboolean
sim_slab_test_corrupt (SimSlab *m, SimCacheId id, guint cpu)
{
  g_return_val_if_fail (id < m->caches->len && cpu < m->env.n_cpus, FALSE);
  ArrayCache *ac = ((SlabCache *) g_ptr_array_index (m->caches, id))->array[cpu];
  if (ac->avail == 0 || ac->avail >= ac->limit)
    return FALSE;
  ac->entry[ac->avail] = ac->entry[ac->avail - 1];
  ac->avail++;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The invariant checker                                               */

static gboolean
check_fail (GError **error, const SlabCache *c, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
check_fail (GError **error, const SlabCache *c, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT, "slab: %s: %s", c->name, msg);
  return FALSE;
}

/* Record the objects of one array: each must be an object of @c on node
 * @node (or any node if @node < 0), seen nowhere else. */
static gboolean
check_array (const SimSlab *m, const SlabCache *c, const ArrayCache *ac, gint node,
             const char *what, GHashTable *seen, GHashTable *in_arrays, GError **error)
{
  if (ac->avail > ac->limit)
    return check_fail (error, c, "%s: avail %u above limit %u", what, ac->avail, ac->limit);
  for (guint i = 0; i < ac->avail; i++)
    {
      SimAddr obj = ac->entry[i];
      const Slab *s = slab_at (m, obj & ~(SimAddr) (SIM_PAGE_SIZE - 1));
      if (s == NULL || s->c != c || obj < s->s_mem || (obj - s->s_mem) % c->buffer_size
          || (obj - s->s_mem) / c->buffer_size >= c->num)
        return check_fail (error, c, "%s: entry %u (%#" G_GINT64_MODIFIER "x) is not an object "
                           "of this cache", what, i, obj);
      if (node >= 0 && s->nodeid != (guint) node)
        return check_fail (error, c, "%s: object %#" G_GINT64_MODIFIER "x of node %u",
                           what, obj, s->nodeid);
      if (!g_hash_table_add (seen, GSIZE_TO_POINTER (obj)))
        return check_fail (error, c, "object %#" G_GINT64_MODIFIER "x is in two places (%s)",
                           obj, what);
      guint cnt = GPOINTER_TO_UINT (g_hash_table_lookup (in_arrays, s));
      g_hash_table_insert (in_arrays, (gpointer) s, GUINT_TO_POINTER (cnt + 1));
    }
  return TRUE;
}

static gboolean
check_cache (const SimSlab *m, const SlabCache *c, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) in_arrays = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      g_autofree char *what = g_strdup_printf ("cpu %u array", cpu);
      if (!check_array (m, c, c->array[cpu], m->n_nodes > 1 ? (gint) node_of_cpu (m, cpu) : -1,
                        what, seen, in_arrays, error))
        return FALSE;
    }
  for (guint nd = 0; nd < m->n_nodes; nd++)
    {
      const Node *n = &c->node[nd];
      if (n->shared)
        {
          g_autofree char *what = g_strdup_printf ("node %u shared array", nd);
          if (!check_array (m, c, n->shared, (gint) nd, what, seen, in_arrays, error))
            return FALSE;
        }
      if (n->alien)
        for (guint r = 0; r < m->n_nodes; r++)
          if (n->alien[r])
            {
              g_autofree char *what = g_strdup_printf ("node %u alien array of node %u", nd, r);
              if (!check_array (m, c, n->alien[r], (gint) r, what, seen, in_arrays, error))
                return FALSE;
            }
    }

  guint64 in_slabs_used = 0, in_arrays_total = g_hash_table_size (seen);
  for (guint nd = 0; nd < m->n_nodes; nd++)
    {
      const Node *n = &c->node[nd];
      guint64 free_objects = 0;
      for (guint l = LIST_PARTIAL; l <= LIST_FREE; l++)
        {
          guint64 cnt = 0;
          const Slab *prev = NULL;
          for (const Slab *s = n->lists[l].head; s; prev = s, s = s->next)
            {
              cnt++;
              if (s->c != c || s->list != l || s->prev != prev || s->nodeid != nd)
                return check_fail (error, c, "node %u: slab %#" G_GINT64_MODIFIER "x misfiled",
                                   nd, s->pages);
              guint want = s->inuse == 0 ? LIST_FREE : s->inuse == c->num ? LIST_FULL
                                                                          : LIST_PARTIAL;
              if (want != l)
                return check_fail (error, c, "node %u: slab %#" G_GINT64_MODIFIER "x with "
                                   "inuse %u of %u on the wrong list", nd, s->pages, s->inuse,
                                   c->num);
              /* Walk the bufctl chain: num - inuse free objects, each free
               * object in no array and not handed out. */
              guint nfree = 0;
              g_autofree guint8 *mark = g_malloc0 (c->num);
              for (guint32 it = s->free; it != BUFCTL_END; it = s->bufctl[it])
                {
                  if (it >= c->num || mark[it] || nfree > c->num)
                    return check_fail (error, c, "slab %#" G_GINT64_MODIFIER "x: bufctl chain "
                                       "corrupt", s->pages);
                  mark[it] = 1;
                  nfree++;
                  SimAddr obj = obj_addr (s, it);
                  if (!g_hash_table_add (seen, GSIZE_TO_POINTER (obj)))
                    return check_fail (error, c, "object %#" G_GINT64_MODIFIER "x is free in its "
                                       "slab and in an array", obj);
                }
              if (nfree + s->inuse != c->num)
                return check_fail (error, c, "slab %#" G_GINT64_MODIFIER "x: inuse %u but %u "
                                   "free of %u", s->pages, s->inuse, nfree, c->num);
              guint arr = GPOINTER_TO_UINT (g_hash_table_lookup (in_arrays, s));
              if (arr > s->inuse)
                return check_fail (error, c, "slab %#" G_GINT64_MODIFIER "x: %u objects in "
                                   "arrays but inuse %u", s->pages, arr, s->inuse);
              in_slabs_used += s->inuse;
              free_objects += nfree;
            }
          if (cnt != n->lists[l].n || n->lists[l].tail != prev)
            return check_fail (error, c, "node %u: list count %" G_GUINT64_FORMAT " but %"
                               G_GUINT64_FORMAT " slabs linked", nd, n->lists[l].n, cnt);
        }
      if (free_objects != n->free_objects)
        return check_fail (error, c, "node %u: free_objects %" G_GUINT64_FORMAT " but %"
                           G_GUINT64_FORMAT " free in slabs", nd, n->free_objects, free_objects);
    }
  if (in_slabs_used != in_arrays_total + c->live)
    return check_fail (error, c, "%" G_GUINT64_FORMAT " objects in use in slabs but %"
                       G_GUINT64_FORMAT " in arrays + %" G_GUINT64_FORMAT " handed out",
                       in_slabs_used, in_arrays_total, c->live);
  if (c->stat[SIM_SLAB_NUM_ACTIVE] != in_slabs_used)
    return check_fail (error, c, "num_active %" G_GUINT64_FORMAT " but %" G_GUINT64_FORMAT
                       " in use in slabs", c->stat[SIM_SLAB_NUM_ACTIVE], in_slabs_used);
  return TRUE;
}

gboolean
sim_slab_check (const SimSlab *m, GError **error)
{
  guint64 mapped = 0;
  for (guint i = 0; i < m->caches->len; i++)
    {
      const SlabCache *c = g_ptr_array_index (m->caches, i);
      if (!check_cache (m, c, error))
        return FALSE;
      guint64 slabs = 0, lists[4], active;
      active_objs (c, m->n_nodes, &slabs, lists, &active);
      mapped += slabs << c->gfporder;
    }
  if (mapped != sim_idmap_size (m->slab_of))
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                   "slab: %" G_GUINT64_FORMAT " slab pages on lists but %" G_GUINT64_FORMAT
                   " mapped", mapped, sim_idmap_size (m->slab_of));
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The ops table                                                       */

SIM_ALLOC_OPS_FORWARDERS (sim_slab)

static const char *
ops_kernel (gpointer m)
{
  return ((SimSlab *) m)->kernel;
}

static char *
ops_params (gpointer mp)
{
  SimSlab *m = mp;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "slab_stats=%d,hz=%u", m->stats_cost ? 1 : 0, m->hz);
  if (m->all.limit >= 0)
    g_string_append_printf (s, ",limit=%d", m->all.limit);
  if (m->all.batchcount >= 0)
    g_string_append_printf (s, ",batchcount=%d", m->all.batchcount);
  if (m->all.shared >= 0)
    g_string_append_printf (s, ",shared=%d", m->all.shared);
  if (m->tunes->len)
    {
      g_string_append (s, ",slabinfo=");
      for (guint i = 0; i < m->tunes->len; i++)
        {
          const Tune *t = &g_array_index (m->tunes, Tune, i);
          g_string_append_printf (s, "%s%s:%d:%d:%d", i ? ";" : "", t->name, t->limit,
                                  t->batchcount, t->shared);
        }
    }
  if (m->noalien_given)
    g_string_append (s, ",noaliencache");
  return g_string_free (s, FALSE);
}

static gsize
ops_ksize (gpointer mp, SimAddr addr)
{
  SimSlab *m = mp;
  const Slab *s = slab_at (m, addr & ~(SimAddr) (SIM_PAGE_SIZE - 1));
  return s ? s->c->buffer_size : 0;
}

static void
ops_report (gpointer mp, SimAllocReport *out)
{
  SimSlab *m = mp;
  for (guint i = 0; i < m->caches->len; i++)
    {
      SimSlabCacheInfo info;
      sim_slab_cache_info (m, i, &info);
      SimAllocCacheRow row = { 0 };
      row.name = g_strdup (info.name);
      row.aliases = g_new0 (char *, 1);
      row.object_size = info.object_size;
      row.slab_size = info.buffer_size;
      row.order = info.gfporder;
      row.objs_per_slab = info.num;
      /* %Fast: the array hits.  Allocations and frees that bypass the
       * CPU's array (____cache_alloc_node for another node, frees of
       * remote objects to the alien arrays) count as slow. */
      row.alloc_fast = info.stat[SIM_SLAB_ALLOCHIT];
      row.alloc = row.alloc_fast + info.stat[SIM_SLAB_ALLOCMISS] + info.stat[SIM_SLAB_NODE_ALLOCS];
      row.free_fast = info.stat[SIM_SLAB_FREEHIT];
      row.free = row.free_fast + info.stat[SIM_SLAB_FREEMISS] + info.stat[SIM_SLAB_NODE_FREES];
      row.objects = info.active_objs;
      row.slabs = info.slabs;
      row.total_objects = info.slabs * info.num;
      row.partial_slabs = info.partial_slabs;
      row.active_slabs = info.full_slabs + info.partial_slabs;
      /* Objects in use in partial slabs: all in use less the full slabs'. */
      row.objects_partial = info.active_objs - MIN (info.active_objs, info.full_slabs * info.num);
      row.align = info.align;
      row.flags = ((const SlabCache *) g_ptr_array_index (m->caches, i))->flags;
      row.limit = info.limit;
      row.batchcount = info.batchcount;
      row.shared = info.shared;
      row.shared_avail = info.shared_avail;
      row.bytes = info.slabs * ((guint64) SIM_PAGE_SIZE << info.gfporder);
      row.n_stats = SIM_SLAB_N_STATS;
      row.stat_names = stat_names;
      row.stats = g_memdup2 (info.stat, sizeof info.stat);
      g_array_append_val (out->rows, row);
    }
  out->large_pages = 0;
  /* mm/slab.c's STATS is 1 only with CONFIG_DEBUG_SLAB (default n). */
  out->stats_config = "STATS of CONFIG_DEBUG_SLAB";
  out->stats_param = "slab_stats";
  out->stats_charged = m->stats_cost;
}

static const char *const slab_kernels[] = { "2.6.34", "2.6.23", NULL };

SIM_ALLOC_OPS_TABLE (slab, slab_kernels)
