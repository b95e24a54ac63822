/* slab-internal.h - what the files of the SLAB model share.
 *
 * The model is split along mm/slab.c's own seams (the essay at the top of
 * each file says which part of the kernel it follows and what it leaves
 * out):
 *
 *   slab.c          the allocation and free entry points (__cache_alloc,
 *                   ____cache_alloc, ____cache_alloc_node and
 *                   fallback_alloc; __cache_free, kfree,
 *                   kmem_cache_free), kmalloc and the ops table;
 *   slab-array.c    the per-CPU array caches and the shared and alien
 *                   arrays: cache_alloc_refill, cache_flusharray,
 *                   free_block, transfer_objects, cache_free_alien,
 *                   __drain_alien_cache, and cache_reap with
 *                   drain_array and drain_freelist;
 *   slab-grow.c     the slab side: the three slab lists, cache_grow
 *                   (kmem_getpages, alloc_slabmgmt, slab_map_pages,
 *                   cache_init_objs) and slab_destroy;
 *   slab-create.c   kmem_cache_create and its sizing (cache_estimate,
 *                   calculate_slab_order, enable_cpucache), the general
 *                   caches of kmem_cache_init, the parameters, the
 *                   model's lifetime;
 *   slab-check.c    introspection and the invariant checker.
 *
 * Nothing here is part of the model's interface (slab.h is): the era
 * table's type, the field offsets of the kernel structures, the state
 * structs, and the small helpers through which every simulated access to
 * those structures goes.  The helpers the allocation and free paths run
 * once per object (the access helpers, list_lock, the STATS updates,
 * slab_get_obj and slab_put_obj on the bufctl array) are static inline
 * here, so a path split over two files costs no more calls than it did in
 * one.
 */
#pragma once

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

/* The P_* indices; the key strings (path_keys) are slab-create.c's, which
 * loads the table. */
enum { SLAB_PATHS (SIM_PATH_ENUM_) N_PATHS };

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

/* The slab whose object slot @addr is (the start of one of its num
 * objects), or NULL: what kfree, kmem_cache_free and the checker accept
 * as an object of the model's. */
static inline Slab *
object_slab (const SimSlab *m, SimAddr addr)
{
  Slab *s = slab_at (m, addr & ~(SimAddr) (SIM_PAGE_SIZE - 1));
  if (s == NULL || addr < s->s_mem)
    return NULL;
  const SlabCache *c = s->c;
  if ((addr - s->s_mem) % c->buffer_size != 0 || (addr - s->s_mem) / c->buffer_size >= c->num)
    return NULL;
  return s;
}

/* ------------------------------------------------------------------ */
/* What the files call in each other                                   */

/* slab.c: __cache_alloc_node / kmem_cache_free for a cache of the model
 * (off-slab management is an object of a general cache). */
G_GNUC_INTERNAL SimAddr cache_alloc_node (SimSlab *m, SimOp *op, SlabCache *c, gint nodeid,
                                          guint32 gfp);
G_GNUC_INTERNAL void    cache_free (SimSlab *m, SimOp *op, SlabCache *c, SimAddr obj);
/* slab.c: __find_general_cachep; @op NULL charges nothing. */
G_GNUC_INTERNAL SlabCache *find_general_cachep (SimSlab *m, SimOp *op, gsize size, guint32 gfp);

/* slab-array.c */
G_GNUC_INTERNAL SimAddr cache_alloc_refill (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp);
G_GNUC_INTERNAL void    cache_flusharray (SimSlab *m, SimOp *op, SlabCache *c, ArrayCache *ac);
G_GNUC_INTERNAL gboolean cache_free_alien (SimSlab *m, SimOp *op, SlabCache *c, SimAddr obj);
/* The first cache_reap of @cpu, @delay jiffies after @jiffies_now. */
G_GNUC_INTERNAL void    schedule_reap (SimSlab *m, guint cpu, guint64 jiffies_now, guint64 delay);

/* slab-grow.c */
G_GNUC_INTERNAL void    list_del_slab (SimSlab *m, SimOp *op, Node *n, Slab *s);
G_GNUC_INTERNAL SimAddr kmem_getpages (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp,
                                       gint nodeid);
G_GNUC_INTERNAL gboolean cache_grow (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp,
                                     guint nodeid, SimAddr pages);
G_GNUC_INTERNAL void    slab_destroy (SimSlab *m, SimOp *op, SlabCache *c, Slab *s);

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static inline guint
node_of_cpu (const SimSlab *m, guint cpu)
{
  if (m->n_nodes == 1)
    return 0;
  /* A socket is a node (n_nodes is the sockets): no division unless a
   * socket number wraps. */
  guint socket = sim_machine_socket_of (m->env.machine, cpu);
  return G_LIKELY (socket < m->n_nodes) ? socket : socket % m->n_nodes;
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

/* The slab to take objects from: the first partial one, else the first
 * free one, whose list is then marked touched for the reaper (the partial
 * and free list walks of cache_alloc_refill and ____cache_alloc_node;
 * later kernels call it get_first_slab).  NULL when both are empty. */
static inline Slab *
first_slab (SimOp *op, Node *n)
{
  l3_rd (op, n, L3_PARTIAL, 8);
  Slab *s = n->lists[LIST_PARTIAL].head;
  if (s == NULL)
    {
      n->free_touched = TRUE;
      l3_wr (op, n, L3_FREE_TOUCHED, 4);
      l3_rd (op, n, L3_FREE, 8);
      s = n->lists[LIST_FREE].head;
    }
  return s;
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

static inline void
list_lock (SimOp *op, Node *n)
{
  sim_op_lock (op, &n->list_lock, n->addr + L3_LIST_LOCK);
}

static inline void
list_unlock (SimOp *op, Node *n)
{
  sim_op_unlock (op, &n->list_lock, n->addr + L3_LIST_LOCK);
}

/* STATS_INC_* : free of simulated cost unless slab_stats=1, then the
 * update of the counter in kmem_cache (atomic for the four hit/miss
 * counters). */
static inline void
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

static inline void
stat_dec_active (SimSlab *m, SimOp *op, SlabCache *c)
{
  c->stat[SIM_SLAB_NUM_ACTIVE]--;
  if (m->stats_cost)
    sim_op_write (op, c->fixed + KC_STATS, 8, SIM_MEM_CACHE_META);
}

/* ------------------------------------------------------------------ */
/* Slab lists                                                          */

/* list_add and list_add_tail of a slab on one of @n's lists: inline,
 * because cache_alloc_refill, ____cache_alloc_node and free_block move a
 * slab between lists once per object they take or give back;
 * list_del_slab is slab-grow.c's. */
static inline SimAddr
list_head_addr (const Node *n, guint list)
{
  switch (list)
    {
    case LIST_PARTIAL: return n->addr + L3_PARTIAL;
    case LIST_FULL:    return n->addr + L3_FULL;
    default:           return n->addr + L3_FREE;
    }
}

static inline void
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
static inline Slab *
virt_to_slab (SimSlab *m, SimOp *op, SimAddr obj)
{
  sim_op_path (op, &m->path[P_VIRT_TO_PAGE]);
  SimAddr page = obj & ~(SimAddr) (SIM_PAGE_SIZE - 1);
  SimAddr pg = sim_page_struct (m->env.pages, page);
  sim_op_read (op, pg + PG_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_read (op, pg + PG_LRU, 16, SIM_MEM_STRUCT_PAGE);
  return slab_at (m, page);
}

static inline SimAddr
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

static inline void
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
