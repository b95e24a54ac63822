/* slqb.c - SLQB, Nick Piggin's queued slab allocator (2008-2010).
 *
 * Which kernel.  SLQB was never merged into mainline; it was posted to
 * linux-mm ("[patch] SLQB slab allocator", January 2009) and carried in
 * linux-next through Pekka Enberg's slab tree.  The model follows the
 * linux-next mm/slqb.c and include/linux/slqb_def.h as ported in the
 * commit "Add SLQB" (shared/reference/allocators.md §0, key TQ; the same
 * text is in the torvalds/linux network at c3242d25d0ad).  That file uses
 * gfp_allowed_mask and kmem_cache_init_late, interfaces of 2.6.31, hence
 * the kernel name "2.6.31-slqb".  x86-64 with 4 KiB pages, MAX_ORDER 11,
 * L1_CACHE_BYTES 64 (so kmalloc-192 exists and kmalloc-96 does not),
 * CONFIG_SMP, CONFIG_NUMA exactly when the machine has more than one node,
 * SLQB_DEBUG off.
 *
 * What the model keeps.  Per cache and CPU a kmem_cache_cpu: its
 * kmem_cache_list (the LIFO object freelist {nr, head, tail}, the partial
 * page list with nr_partial and nr_slabs, page_lock, the remote_free queue
 * {lock, list} other CPUs flush into, remote_free_check), colour_next,
 * and the outgoing remote batch rlist with its target remote_cache_list.
 * On NUMA a kmem_cache_node per node (a kmem_cache_list plus list_lock)
 * serves node-specific allocations for other nodes.  Every slab page is a
 * struct slqb_page {inuse, list, freelist, lru}; every object's free
 * pointer is kept, so every list is a real chain through the objects, in
 * the kernel's order.  The paths are those of mm/slqb.c:
 * __cache_list_get_object (pop the LIFO; on a miss with remote_free_check
 * claim the whole remote_free list, flushing one batch if that passes
 * hiwater), __cache_list_get_page (one object from the first partial
 * page), __slab_alloc_page (a new coloured page linked into this CPU's
 * list, or the node list when the page landed on another node),
 * __remote_slab_alloc for other nodes, __slab_free (a node-local object
 * goes onto this CPU's LIFO whoever allocated it, a freelist over hiwater
 * flushes freebatch objects: to their pages if the page is this list's,
 * else into the rlist; an off-node object goes to the rlist at once),
 * slab_free_to_remote / flush_remote_free_cache (rlist flushed at
 * freebatch or when the target list changes; a target whose remote_free
 * already holds more than hiwater/2 objects gets them freed synchronously
 * to its pages; otherwise the batch is spliced on and remote_free_check
 * set when the queue crosses freebatch), and cache_trim_worker every 3 s
 * per CPU on the engine's clock.  Every load and store those paths make
 * on kmem_cache, the cpu_slab[]/node_slab[] arrays, kmem_cache_cpu and
 * kmem_cache_list fields, struct page, the free pointer inside objects,
 * the remote_free queues and lock words goes to the cache model at the
 * structure's simulated address; the CONFIG_SLQB_STATS counters live in
 * each kmem_cache_list, so with slqb_stats=1 every increment is a
 * read-modify-write there.  Locks (page_lock, remote_free.lock,
 * list_lock) are engine resources.
 *
 * What it leaves out.  Debugging (red zones, poisoning, tracking), memory
 * policies and cpusets (alternate_nid, mem spread), memoryless nodes, CPU
 * and memory hotplug, kmem_cache_destroy/shrink, RCU-delayed freeing of
 * SLAB_DESTROY_BY_RCU slabs (freed at once), the DMA kmalloc caches
 * (__GFP_DMA is served by the normal ones), constructors' own work, and
 * interrupts: an operation runs to completion on its CPU.  kfree and
 * kmem_cache_free take their own paths: kfree finds the cache through
 * virt_to_head_slqb_page and page->list->cache; kmem_cache_free is handed
 * it and reads struct page only for a NUMA cache (SLAB_NUMA, set when the
 * machine has more than one node).  kmalloc(0) is served as
 * kmalloc(1) instead of returning ZERO_SIZE_PTR.  A cache created twice
 * under one name returns the first (the kernel refuses the duplicate).
 */
#include "models/alloc/slqb.h"
#include "models/alloc/paths.h"
#include "models/page/page-alloc.h"
#include "sim/core/errors.h"
#include "sim/core/idmap.h"

#include <stdarg.h>
#include <string.h>

#define MAX_ORDER        11
#define KMALLOC_SHIFT_LOW 3
#define KMALLOC_SHIFT_HIGH (SIM_PAGE_SHIFT + 9)       /* 2 MiB */
#define N_KMALLOC        (KMALLOC_SHIFT_HIGH + 1)

/* struct slqb_page over struct page. */
#define PG_FLAGS     0
#define PG_INUSE     12
#define PG_LIST      16
#define PG_FREELIST  24
#define PG_LRU       32

/* struct kmem_cache_list (cacheline aligned; remote_free is its own
 * cacheline-aligned member, stats[] follow). */
#define KL_FREELIST_NR    0
#define KL_FREELIST_HEAD  8
#define KL_FREELIST_TAIL  16
#define KL_REMOTE_CHECK   24
#define KL_CACHE          32
#define KL_NR_PARTIAL     40
#define KL_PARTIAL        48
#define KL_NR_SLABS       64
#define KL_PAGE_LOCK      72
#define KL_RF_LOCK        128
#define KL_RF_NR          136
#define KL_RF_HEAD        144
#define KL_RF_TAIL        152
#define KL_STATS          192
#define KL_SIZE           320     /* with CONFIG_SLQB_STATS */
/* Without CONFIG_SLQB_STATS stats[] is not there: what follows the list
 * in kmem_cache_cpu / kmem_cache_node sits this much lower (kl_off). */
#define KL_STATS_BYTES    (KL_SIZE - KL_STATS)

/* struct kmem_cache_cpu: the list, then colour_next, rlist,
 * remote_cache_list; struct kmem_cache_node: the list, then list_lock. */
#define KCC_COLOUR_NEXT   (KL_SIZE + 0)
#define KCC_RLIST_NR      (KL_SIZE + 8)
#define KCC_RLIST_HEAD    (KL_SIZE + 16)
#define KCC_RLIST_TAIL    (KL_SIZE + 24)
#define KCC_REMOTE_LIST   (KL_SIZE + 32)
#define KCC_SIZE          (KL_SIZE + 64)
#define KN_LIST_LOCK      (KL_SIZE + 0)
#define KN_SIZE           (KL_SIZE + 64)

/* struct kmem_cache. */
#define KC_FLAGS          0
#define KC_HIWATER        8
#define KC_FREEBATCH      12
#define KC_CPU_SLAB       16
#define KC_OFFSET         28
#define KC_NODE_SLAB      40
#define KC_SIZE           48
#define KC_COLOUR         60
#define KC_STRUCT_SIZE    128

/* The kernel paths whose instructions the model charges, one row each in
 * every era's table configs/paths/slqb-ERA.tsv (models/alloc/paths.h,
 * docs/models/paths.md).  Memory latency comes on top, from the cache
 * model. */
#define SLQB_PATHS(X)                                                                       \
  X (FAST_ALLOC,    "fast_alloc")       /* slab_alloc + __slab_alloc, irq save/restore */   \
  X (FAST_FREE,     "fast_free")        /* slab_free + __slab_free */                       \
  X (GET_PAGE,      "get_page")         /* __cache_list_get_page */                         \
  X (CLAIM,         "claim")            /* claim_remote_free_list */                        \
  X (NEW_SLAB,      "new_slab")         /* __slab_alloc_page + new_slab_page bookkeeping */ \
  X (INIT_OBJECT,   "init_object")      /* threading one object into the page freelist */   \
  X (FREE_SLAB,     "free_slab")        /* free_slab */                                     \
  X (FLUSH,         "flush")            /* flush_free_list entry and exit */                \
  X (FLUSH_OBJECT,  "flush_object")     /* one object of a flush loop */                    \
  X (OBJ_TO_PAGE,   "obj_to_page")      /* free_object_to_page */                           \
  X (PARTIAL_OP,    "partial_op")       /* list_add / list_del on the partial list */       \
  X (TO_REMOTE,     "to_remote")        /* slab_free_to_remote */                           \
  X (FLUSH_RFREE,   "flush_rfree")      /* flush_remote_free_cache */                       \
  X (REMOTE_ALLOC,  "remote_alloc")     /* __remote_slab_alloc(_node) */                    \
  X (TRIM_CACHE,    "trim_cache")       /* cache_trim_worker, per cache */                  \
  X (KMALLOC_INDEX, "kmalloc_index")    /* get_slab */                                      \
  X (VIRT_TO_PAGE,  "virt_to_page")     /* virt_to_head_page arithmetic */

SIM_PATHS_DEFINE (SLQB_PATHS)

static const char *const stat_names[SIM_SLQB_N_STATS] = {
#define SLQB_STAT_NAME(e, n) n,
  SIM_SLQB_STATS (SLQB_STAT_NAME)
#undef SLQB_STAT_NAME
};

const char *
sim_slqb_stat_name (SimSlqbStat st)
{
  g_return_val_if_fail (st < SIM_SLQB_N_STATS, NULL);
  return stat_names[st];
}

/* ------------------------------------------------------------------ */
/* State                                                               */

typedef struct SlqbPage SlqbPage;
typedef struct SlqbCache SlqbCache;
typedef struct CacheList CacheList;

/* A pointer to an object: its page and index; pg == NULL is NULL. */
typedef struct {
  SlqbPage *pg;
  guint32   idx;
} Obj;

#define OBJ_NULL ((Obj) { NULL, 0 })

/* struct kmlist */
typedef struct {
  guint64 nr;
  Obj     head, tail;
} KmList;

struct SlqbPage {
  SimAddr    base;          /* page_address */
  SimAddr    page;          /* its struct page */
  SlqbCache *s;
  CacheList *list;          /* page->list */
  SlqbPage  *prev, *next;   /* page->lru on the partial list */
  guint32    objects;
  guint32    inuse;         /* page->inuse */
  guint32    colour;        /* offset of the first object */
  guint32    node;
  Obj        freelist;      /* page->freelist */
  guint8     order;
  guint8     on_partial;
  guint8    *out;           /* [objects] handed out (model bookkeeping) */
  guint8    *mark;          /* [objects] scratch for the checker */
  Obj        next_free[];   /* the free pointer stored in each object */
};

struct CacheList {
  KmList      freelist;
  gboolean    remote_free_check;
  guint64     nr_partial;
  guint64     nr_slabs;
  SlqbPage   *partial_head, *partial_tail;
  SimLock     page_lock;
  SimLock     rf_lock;
  KmList      remote_free;
  SimAddr     addr;
  SimMemClass cls;          /* per-CPU data, or node data */
  guint       no_stats;     /* KL_STATS_BYTES without CONFIG_SLQB_STATS, else 0 */
  guint64     stat[SIM_SLQB_N_STATS];
};

typedef struct {
  CacheList  list;          /* must stay first: lists are found from it */
  guint      colour_next;
  KmList     rlist;
  CacheList *remote_cache_list;
} CpuSlab;

typedef struct {
  CacheList list;
  SimLock   list_lock;
} NodeSlab;

struct SlqbCache {
  char           *name;
  SimSlqbGeometry g;
  guint32         flags;
  SimAddr         addr;         /* struct kmem_cache */
  SimAddr         cpu_array;    /* s->cpu_slab[] */
  SimAddr         node_array;   /* s->node_slab[] */
  CpuSlab        *cpu;
  NodeSlab       *node;         /* NULL without NUMA */
  guint64         live;
};

struct SimSlqb {
  SimAllocEnv  env;
  SimPathCost  path[N_PATHS];   /* configs/paths/slqb-2.6.31.tsv, by P_* */
  SimSlqbParams p;
  guint        n_nodes;
  guint        line;
  guint64      cycles_per_sec;
  GPtrArray   *caches;          /* SlqbCache*, owned */
  GHashTable  *by_name;         /* name -> SlqbCache */
  SimIdMap    *page_of;         /* page address -> SlqbPage* (SimIdPair) */
  SlqbCache   *kmalloc[N_KMALLOC];
  SimCacheId   kmalloc_id[N_KMALLOC];
  guint64     *trim_event;      /* [n_cpus] pending engine event ids */
};

/* ------------------------------------------------------------------ */
/* Simulated accesses                                                  */

static inline SimAddr
obj_addr (const SlqbPage *pg, guint idx)
{
  return pg->base + pg->colour + (SimAddr) idx * pg->s->g.size;
}

static inline gboolean
obj_null (Obj o)
{
  return o.pg == NULL;
}

static inline Obj
get_fp (Obj o)
{
  return o.pg->next_free[o.idx];
}

static inline void
rd_fp (SimOp *op, Obj o)
{
  sim_op_read (op, obj_addr (o.pg, o.idx) + o.pg->s->g.offset, 8, SIM_MEM_FREEPTR);
}

static inline void
set_fp (SimOp *op, Obj o, Obj next)
{
  o.pg->next_free[o.idx] = next;
  sim_op_write (op, obj_addr (o.pg, o.idx) + o.pg->s->g.offset, 8, SIM_MEM_FREEPTR);
}

static inline void
rd_kc (SimOp *op, const SlqbCache *s, guint off)
{
  sim_op_read (op, s->addr + off, 8, SIM_MEM_CACHE_META);
}

/* Offset @off (laid out with stats[]) in the structure of list @l. */
static inline SimAddr
kl_off (const CacheList *l, guint off)
{
  return l->addr + (off >= KL_SIZE ? off - l->no_stats : off);
}

static inline void
rd_l (SimOp *op, const CacheList *l, guint off, guint size)
{
  sim_op_read (op, kl_off (l, off), size, l->cls);
}

static inline void
wr_l (SimOp *op, const CacheList *l, guint off, guint size)
{
  sim_op_write (op, kl_off (l, off), size, l->cls);
}

static inline void
rd_pg (SimOp *op, const SlqbPage *pg, guint off, guint size)
{
  sim_op_read (op, pg->page + off, size, SIM_MEM_STRUCT_PAGE);
}

static inline void
wr_pg (SimOp *op, const SlqbPage *pg, guint off, guint size)
{
  sim_op_write (op, pg->page + off, size, SIM_MEM_STRUCT_PAGE);
}

static inline void
stat_add (SimSlqb *m, SimOp *op, CacheList *l, SimSlqbStat item, guint64 n)
{
  l->stat[item] += n;
  if (m->p.stats)
    sim_op_access (op, l->addr + KL_STATS + 8 * item, 8, SIM_ACC_RMW, l->cls);
}

static inline void
stat_inc (SimSlqb *m, SimOp *op, CacheList *l, SimSlqbStat item)
{
  stat_add (m, op, l, item, 1);
}

static inline void
lock_at (SimOp *op, SimLock *lock, const CacheList *l, guint off)
{
  sim_op_lock (op, lock, kl_off (l, off));
}

static inline void
unlock_at (SimOp *op, SimLock *lock, const CacheList *l, guint off)
{
  sim_op_unlock (op, lock, kl_off (l, off));
}

guint
sim_slqb_node_of_cpu (const SimSlqb *m, guint cpu)
{
  if (m->n_nodes == 1)
    return 0;
  /* A socket is a node (n_nodes is the sockets): no division unless a
   * socket number wraps. */
  guint socket = sim_machine_socket_of (m->env.machine, cpu);
  return G_LIKELY (socket < m->n_nodes) ? socket : socket % m->n_nodes;
}

/* get_cpu_slab: s->cpu_slab, then the array element. */
static inline __attribute__ ((always_inline)) CpuSlab *
get_cpu_slab (SimOp *op, SlqbCache *s)
{
  rd_kc (op, s, KC_CPU_SLAB);
  sim_op_read (op, s->cpu_array + 8 * op->cpu, 8, SIM_MEM_CACHE_META);
  return &s->cpu[op->cpu];
}

static NodeSlab *
get_node_slab (SimOp *op, SlqbCache *s, guint node)
{
  rd_kc (op, s, KC_NODE_SLAB);
  sim_op_read (op, s->node_array + 8 * node, 8, SIM_MEM_CACHE_META);
  return &s->node[node];
}

/* virt_to_head_slqb_page of an object: the flags of its own struct page
 * and, inside a compound page's tail, the head's. */
static inline __attribute__ ((always_inline)) void
virt_to_head (SimSlqb *m, SimOp *op, Obj o)
{
  sim_op_path (op, &m->path[P_VIRT_TO_PAGE]);
  SimAddr a = obj_addr (o.pg, o.idx);
  SimAddr pg = sim_page_struct (m->env.pages, a);
  sim_op_read (op, pg + PG_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  if (pg != o.pg->page)
    rd_pg (op, o.pg, PG_FLAGS, 8);
}

/* ------------------------------------------------------------------ */
/* Partial lists                                                       */

static void
partial_add (SimSlqb *m, SimOp *op, CacheList *l, SlqbPage *pg)
{
  /* list_add: at the head. */
  sim_op_path (op, &m->path[P_PARTIAL_OP]);
  wr_l (op, l, KL_PARTIAL, 8);
  if (l->partial_head)
    wr_pg (op, l->partial_head, PG_LRU + 8, 8);
  else
    wr_l (op, l, KL_PARTIAL + 8, 8);
  wr_pg (op, pg, PG_LRU, 16);
  pg->prev = NULL;
  pg->next = l->partial_head;
  if (l->partial_head)
    l->partial_head->prev = pg;
  else
    l->partial_tail = pg;
  l->partial_head = pg;
  pg->on_partial = 1;
}

static void
partial_del (SimSlqb *m, SimOp *op, CacheList *l, SlqbPage *pg)
{
  g_assert (pg->on_partial);
  sim_op_path (op, &m->path[P_PARTIAL_OP]);
  rd_pg (op, pg, PG_LRU, 16);
  if (pg->prev)
    wr_pg (op, pg->prev, PG_LRU, 8);
  else
    wr_l (op, l, KL_PARTIAL, 8);
  if (pg->next)
    wr_pg (op, pg->next, PG_LRU + 8, 8);
  else
    wr_l (op, l, KL_PARTIAL + 8, 8);
  if (pg->prev)
    pg->prev->next = pg->next;
  else
    l->partial_head = pg->next;
  if (pg->next)
    pg->next->prev = pg->prev;
  else
    l->partial_tail = pg->prev;
  pg->prev = pg->next = NULL;
  pg->on_partial = 0;
}

/* ------------------------------------------------------------------ */
/* Slab pages                                                          */

static SlqbPage *
new_slab_page (SimSlqb *m, SimOp *op, SlqbCache *s, guint32 gfp, gint node, guint colour)
{
  guint32 pgfp = gfp & ~SIM_GFP_ZERO;
  if (s->flags & SIM_SLAB_RECLAIM_ACCOUNT)
    pgfp |= SIM_GFP_RECLAIMABLE;
  if (s->flags & SIM_SLAB_CACHE_DMA)
    pgfp |= SIM_GFP_DMA;
  SimAddr base = sim_page_alloc (m->env.pages, op, s->g.order, node, pgfp, s->g.order > 0);
  if (base == 0)
    return NULL;

  guint n = s->g.objects;
  SlqbPage *pg = g_malloc0 (sizeof (SlqbPage) + n * sizeof (Obj) + 2 * n);
  pg->base = base;
  pg->page = sim_page_struct (m->env.pages, base);
  pg->s = s;
  pg->objects = n;
  pg->colour = colour;
  pg->order = (guint8) s->g.order;
  pg->node = sim_page_node_of (m->env.pages, base) % m->n_nodes;
  pg->out = (guint8 *) &pg->next_free[n];
  pg->mark = pg->out + n;
  sim_idmap_set (m->page_of, base, (gsize) pg);

  /* PG_slab, then the objects threaded in address order from the colour
   * offset: one store of the free pointer into each. */
  wr_pg (op, pg, PG_FLAGS, 8);
  for (guint i = 0; i < n; i++)
    {
      sim_op_path (op, &m->path[P_INIT_OBJECT]);
      set_fp (op, (Obj) { pg, i }, i + 1 < n ? (Obj) { pg, i + 1 } : OBJ_NULL);
    }
  pg->freelist = (Obj) { pg, 0 };
  pg->inuse = 0;
  wr_pg (op, pg, PG_INUSE, 20);
  return pg;
}

static void
free_slab (SimSlqb *m, SimOp *op, SlqbPage *pg)
{
  sim_op_path (op, &m->path[P_FREE_SLAB]);
  wr_pg (op, pg, PG_FLAGS, 8);            /* reset mapcount, clear PG_slab */
  sim_idmap_remove (m->page_of, pg->base, NULL);
  sim_page_free (m->env.pages, op, pg->base, pg->order);
  g_free (pg);
}

/* free_object_to_page; TRUE when the page was freed.  The caller holds
 * l->page_lock. */
static gboolean
free_object_to_page (SimSlqb *m, SimOp *op, SlqbCache *s, CacheList *l, SlqbPage *pg, Obj o)
{
  g_assert (pg->list == l);
  sim_op_path (op, &m->path[P_OBJ_TO_PAGE]);
  rd_pg (op, pg, PG_INUSE, 20);
  set_fp (op, o, pg->freelist);
  pg->freelist = o;
  pg->inuse--;
  wr_pg (op, pg, PG_INUSE, 20);
  if (pg->inuse == 0)
    {
      if (s->g.objects > 1)
        {
          l->nr_partial--;
          partial_del (m, op, l, pg);
        }
      l->nr_slabs--;
      wr_l (op, l, KL_NR_PARTIAL, 32);
      free_slab (m, op, pg);
      stat_inc (m, op, l, SIM_SLQB_FLUSH_SLAB_FREE);
      return TRUE;
    }
  if (pg->inuse + 1 == s->g.objects)
    {
      l->nr_partial++;
      wr_l (op, l, KL_NR_PARTIAL, 8);
      partial_add (m, op, l, pg);
      stat_inc (m, op, l, SIM_SLQB_FLUSH_SLAB_PARTIAL);
    }
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Remote freeing                                                      */

static void
flush_remote_free_cache (SimSlqb *m, SimOp *op, SlqbCache *s, CpuSlab *c)
{
  CacheList *cl = &c->list;
  KmList *src = &c->rlist;
  rd_l (op, cl, KCC_RLIST_NR, 8);
  guint64 nr = src->nr;
  if (nr == 0)
    return;
  sim_op_path (op, &m->path[P_FLUSH_RFREE]);
  stat_inc (m, op, cl, SIM_SLQB_FLUSH_RFREE_LIST);
  stat_add (m, op, cl, SIM_SLQB_FLUSH_RFREE_LIST_OBJECTS, nr);

  rd_l (op, cl, KCC_REMOTE_LIST, 8);
  CacheList *dst = c->remote_cache_list;
  rd_l (op, dst, KL_RF_NR, 8);
  rd_kc (op, s, KC_HIWATER);
  if (dst->remote_free.nr > (s->g.hiwater >> 1))
    {
      /* The owner is not draining its queue: free synchronously to the
       * pages under its page_lock. */
      rd_l (op, cl, KCC_RLIST_HEAD, 8);
      Obj head = src->head;
      lock_at (op, &dst->page_lock, dst, KL_PAGE_LOCK);
      do
        {
          Obj o = head;
          g_assert (!obj_null (o));
          sim_op_path (op, &m->path[P_FLUSH_OBJECT]);
          rd_fp (op, o);
          head = get_fp (o);
          virt_to_head (m, op, o);
          free_object_to_page (m, op, s, dst, o.pg, o);
          nr--;
        }
      while (nr);
      unlock_at (op, &dst->page_lock, dst, KL_PAGE_LOCK);
      src->head = src->tail = OBJ_NULL;
      src->nr = 0;
      wr_l (op, cl, KCC_RLIST_NR, 24);
      return;
    }

  lock_at (op, &dst->rf_lock, dst, KL_RF_LOCK);
  rd_l (op, dst, KL_RF_HEAD, 16);
  rd_l (op, cl, KCC_RLIST_HEAD, 16);
  if (obj_null (dst->remote_free.head))
    {
      dst->remote_free.head = src->head;
      wr_l (op, dst, KL_RF_HEAD, 8);
    }
  else
    set_fp (op, dst->remote_free.tail, src->head);
  dst->remote_free.tail = src->tail;
  wr_l (op, dst, KL_RF_TAIL, 8);
  src->head = src->tail = OBJ_NULL;
  src->nr = 0;
  wr_l (op, cl, KCC_RLIST_NR, 24);

  rd_kc (op, s, KC_FREEBATCH);
  gboolean set = dst->remote_free.nr < s->g.freebatch;
  dst->remote_free.nr += nr;
  wr_l (op, dst, KL_RF_NR, 8);
  if (dst->remote_free.nr >= s->g.freebatch && set)
    {
      /* The one store into the owner's hot line: only when the queue
       * crosses freebatch. */
      dst->remote_free_check = TRUE;
      wr_l (op, dst, KL_REMOTE_CHECK, 4);
    }
  unlock_at (op, &dst->rf_lock, dst, KL_RF_LOCK);
}

static void
slab_free_to_remote (SimSlqb *m, SimOp *op, SlqbCache *s, Obj o, CpuSlab *c)
{
  CacheList *cl = &c->list;
  sim_op_path (op, &m->path[P_TO_REMOTE]);
  rd_pg (op, o.pg, PG_LIST, 8);
  rd_l (op, cl, KCC_REMOTE_LIST, 8);
  if (o.pg->list != c->remote_cache_list)
    {
      flush_remote_free_cache (m, op, s, c);
      c->remote_cache_list = o.pg->list;
      wr_l (op, cl, KCC_REMOTE_LIST, 8);
    }
  KmList *r = &c->rlist;
  rd_l (op, cl, KCC_RLIST_NR, 24);
  if (obj_null (r->head))
    {
      r->head = o;
      wr_l (op, cl, KCC_RLIST_HEAD, 8);
    }
  else
    set_fp (op, r->tail, o);
  set_fp (op, o, OBJ_NULL);
  r->tail = o;
  r->nr++;
  wr_l (op, cl, KCC_RLIST_NR, 24);
  rd_kc (op, s, KC_FREEBATCH);
  if (r->nr >= s->g.freebatch)
    flush_remote_free_cache (m, op, s, c);
}

/* ------------------------------------------------------------------ */
/* The LIFO freelist                                                   */

static void
flush_free_list (SimSlqb *m, SimOp *op, SlqbCache *s, CacheList *l)
{
  rd_l (op, l, KL_FREELIST_NR, 8);
  guint64 nr = l->freelist.nr;
  if (nr == 0)
    return;
  sim_op_path (op, &m->path[P_FLUSH]);
  rd_kc (op, s, KC_FREEBATCH);
  nr = MIN ((guint64) s->g.freebatch, nr);
  stat_inc (m, op, l, SIM_SLQB_FLUSH_FREE_LIST);
  stat_add (m, op, l, SIM_SLQB_FLUSH_FREE_LIST_OBJECTS, nr);

  l->freelist.nr -= nr;
  rd_l (op, l, KL_FREELIST_HEAD, 8);
  Obj head = l->freelist.head;
  gboolean locked = FALSE;
  do
    {
      Obj o = head;
      g_assert (!obj_null (o));
      sim_op_path (op, &m->path[P_FLUSH_OBJECT]);
      rd_fp (op, o);
      head = get_fp (o);
      virt_to_head (m, op, o);
      rd_pg (op, o.pg, PG_LIST, 8);
      if (o.pg->list != l)
        {
          if (locked)
            {
              unlock_at (op, &l->page_lock, l, KL_PAGE_LOCK);
              locked = FALSE;
            }
          CpuSlab *c = get_cpu_slab (op, s);
          slab_free_to_remote (m, op, s, o, c);
          stat_inc (m, op, l, SIM_SLQB_FLUSH_FREE_LIST_REMOTE);
        }
      else
        {
          if (!locked)
            {
              lock_at (op, &l->page_lock, l, KL_PAGE_LOCK);
              locked = TRUE;
            }
          free_object_to_page (m, op, s, l, o.pg, o);
        }
      nr--;
    }
  while (nr);
  if (locked)
    unlock_at (op, &l->page_lock, l, KL_PAGE_LOCK);

  l->freelist.head = head;
  wr_l (op, l, KL_FREELIST_NR, 16);
  if (l->freelist.nr == 0)
    {
      l->freelist.tail = OBJ_NULL;
      wr_l (op, l, KL_FREELIST_TAIL, 8);
    }
}

static void
claim_remote_free_list (SimSlqb *m, SimOp *op, SlqbCache *s, CacheList *l)
{
  (void) s;
  rd_l (op, l, KL_RF_NR, 8);
  if (l->remote_free.nr == 0)
    return;
  sim_op_path (op, &m->path[P_CLAIM]);
  lock_at (op, &l->rf_lock, l, KL_RF_LOCK);
  l->remote_free_check = FALSE;
  wr_l (op, l, KL_REMOTE_CHECK, 4);
  Obj head = l->remote_free.head, tail = l->remote_free.tail;
  guint64 nr = l->remote_free.nr;
  rd_l (op, l, KL_RF_NR, 24);
  l->remote_free.head = l->remote_free.tail = OBJ_NULL;
  l->remote_free.nr = 0;
  wr_l (op, l, KL_RF_NR, 24);
  unlock_at (op, &l->rf_lock, l, KL_RF_LOCK);

  rd_l (op, l, KL_FREELIST_NR, 24);
  if (l->freelist.nr == 0)
    l->freelist.head = head;
  else
    set_fp (op, l->freelist.tail, head);
  l->freelist.tail = tail;
  l->freelist.nr += nr;
  wr_l (op, l, KL_FREELIST_NR, 24);
  stat_inc (m, op, l, SIM_SLQB_CLAIM_REMOTE_LIST);
  stat_add (m, op, l, SIM_SLQB_CLAIM_REMOTE_LIST_OBJECTS, nr);
}

static inline __attribute__ ((always_inline)) gboolean
pop_freelist (SimOp *op, CacheList *l, Obj *out)
{
  rd_l (op, l, KL_FREELIST_NR, 16);
  Obj o = l->freelist.head;
  if (obj_null (o))
    return FALSE;
  g_assert (l->freelist.nr > 0);
  rd_fp (op, o);
  l->freelist.head = get_fp (o);
  l->freelist.nr--;
  if (l->freelist.nr == 0)
    l->freelist.tail = OBJ_NULL;   /* the kernel leaves it stale; unused at nr 0 */
  wr_l (op, l, KL_FREELIST_NR, 16);
  *out = o;
  return TRUE;
}

/* __cache_list_get_object */
static gboolean
cache_list_get_object (SimSlqb *m, SimOp *op, SlqbCache *s, CacheList *l, Obj *out)
{
  if (pop_freelist (op, l, out))
    return TRUE;
  rd_l (op, l, KL_REMOTE_CHECK, 4);
  if (!l->remote_free_check)
    return FALSE;
  claim_remote_free_list (m, op, s, l);
  rd_kc (op, s, KC_HIWATER);
  if (l->freelist.nr > s->g.hiwater)
    flush_free_list (m, op, s, l);
  return pop_freelist (op, l, out);
}

/* __cache_list_get_page: the caller holds l->page_lock. */
static gboolean
cache_list_get_page_locked (SimSlqb *m, SimOp *op, SlqbCache *s, CacheList *l, Obj *out)
{
  rd_l (op, l, KL_NR_PARTIAL, 8);
  if (l->nr_partial == 0)
    return FALSE;
  sim_op_path (op, &m->path[P_GET_PAGE]);
  rd_l (op, l, KL_PARTIAL, 8);
  SlqbPage *pg = l->partial_head;
  rd_pg (op, pg, PG_INUSE, 20);
  if (pg->inuse + 1 == s->g.objects)
    {
      l->nr_partial--;
      wr_l (op, l, KL_NR_PARTIAL, 8);
      partial_del (m, op, l, pg);
    }
  pg->inuse++;
  Obj o = pg->freelist;
  g_assert (!obj_null (o));
  rd_fp (op, o);
  pg->freelist = get_fp (o);
  wr_pg (op, pg, PG_INUSE, 20);
  stat_inc (m, op, l, SIM_SLQB_ALLOC_SLAB_FILL);
  *out = o;
  return TRUE;
}

static gboolean
cache_list_get_page (SimSlqb *m, SimOp *op, SlqbCache *s, CacheList *l, Obj *out)
{
  rd_l (op, l, KL_NR_PARTIAL, 8);
  if (l->nr_partial == 0)
    return FALSE;
  lock_at (op, &l->page_lock, l, KL_PAGE_LOCK);
  gboolean ok = cache_list_get_page_locked (m, op, s, l, out);
  unlock_at (op, &l->page_lock, l, KL_PAGE_LOCK);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Allocation                                                          */

static gboolean
slab_alloc_page (SimSlqb *m, SimOp *op, SlqbCache *s, guint32 gfp, gint node, Obj *out)
{
  sim_op_path (op, &m->path[P_NEW_SLAB]);
  CpuSlab *c = get_cpu_slab (op, s);
  rd_l (op, &c->list, KCC_COLOUR_NEXT, 4);
  rd_kc (op, s, KC_COLOUR);
  guint colour = c->colour_next;
  c->colour_next += s->g.colour_off;
  if (c->colour_next >= s->g.colour_range)
    c->colour_next = 0;
  wr_l (op, &c->list, KCC_COLOUR_NEXT, 4);

  SlqbPage *pg = new_slab_page (m, op, s, gfp, node, colour);
  if (pg == NULL)
    return FALSE;

  guint here = sim_slqb_node_of_cpu (m, op->cpu);
  NodeSlab *n = NULL;
  CacheList *l;
  if (m->n_nodes == 1 || pg->node == here)
    l = &c->list;
  else
    {
      n = get_node_slab (op, s, pg->node);
      l = &n->list;
    }
  pg->list = l;
  wr_pg (op, pg, PG_LIST, 8);
  if (n)
    lock_at (op, &n->list_lock, l, KN_LIST_LOCK);
  lock_at (op, &l->page_lock, l, KL_PAGE_LOCK);
  l->nr_slabs++;
  l->nr_partial++;
  wr_l (op, l, KL_NR_PARTIAL, 32);
  partial_add (m, op, l, pg);
  stat_inc (m, op, l, SIM_SLQB_ALLOC);
  stat_inc (m, op, l, SIM_SLQB_ALLOC_SLAB_NEW);
  gboolean ok = cache_list_get_page_locked (m, op, s, l, out);
  g_assert (ok);
  unlock_at (op, &l->page_lock, l, KL_PAGE_LOCK);
  if (n)
    unlock_at (op, &n->list_lock, l, KN_LIST_LOCK);
  return ok;
}

static gboolean
remote_slab_alloc_node (SimSlqb *m, SimOp *op, SlqbCache *s, guint32 gfp, guint node, Obj *out)
{
  sim_op_path (op, &m->path[P_REMOTE_ALLOC]);
  NodeSlab *n = get_node_slab (op, s, node);
  CacheList *l = &n->list;
  lock_at (op, &n->list_lock, l, KN_LIST_LOCK);
  if (!cache_list_get_object (m, op, s, l, out)
      && !cache_list_get_page (m, op, s, l, out))
    {
      unlock_at (op, &n->list_lock, l, KN_LIST_LOCK);
      return slab_alloc_page (m, op, s, gfp, (gint) node, out);
    }
  stat_inc (m, op, l, SIM_SLQB_ALLOC);
  unlock_at (op, &n->list_lock, l, KN_LIST_LOCK);
  return TRUE;
}

static gboolean
remote_slab_alloc (SimSlqb *m, SimOp *op, SlqbCache *s, guint32 gfp, guint node, Obj *out)
{
  if (remote_slab_alloc_node (m, op, s, gfp, node, out))
    return TRUE;
  if (gfp & SIM_GFP_THISNODE)
    return FALSE;
  /* The zonelist of the local node: local first, then the others in
   * order (the machines here have at most a few equidistant nodes). */
  guint here = sim_slqb_node_of_cpu (m, op->cpu);
  for (guint i = 0; i < m->n_nodes; i++)
    if (remote_slab_alloc_node (m, op, s, gfp, (here + i) % m->n_nodes, out))
      return TRUE;
  return FALSE;
}

/* __slab_alloc */
static gboolean
slab_alloc (SimSlqb *m, SimOp *op, SlqbCache *s, guint32 gfp, gint node, Obj *out)
{
  guint here = sim_slqb_node_of_cpu (m, op->cpu);
  if (m->n_nodes > 1 && node != SIM_NUMA_NO_NODE && (guint) node != here)
    return remote_slab_alloc (m, op, s, gfp, (guint) node, out);

  CpuSlab *c = get_cpu_slab (op, s);
  CacheList *l = &c->list;
  if (cache_list_get_object (m, op, s, l, out)
      || cache_list_get_page (m, op, s, l, out))
    {
      stat_inc (m, op, l, SIM_SLQB_ALLOC);
      return TRUE;
    }
  if (slab_alloc_page (m, op, s, gfp, node, out))
    return TRUE;
  if (m->n_nodes > 1)
    return remote_slab_alloc (m, op, s, gfp, here, out);
  return FALSE;
}

SimAddr
sim_slqb_cache_alloc (SimSlqb *m, SimOp *op, SimCacheId id, gint node, guint32 gfp)
{
  g_return_val_if_fail (id < m->caches->len, 0);
  SlqbCache *s = g_ptr_array_index (m->caches, id);
  if (m->n_nodes == 1)
    node = SIM_NUMA_NO_NODE;            /* !CONFIG_NUMA: kmem_cache_alloc_node is kmem_cache_alloc */
  else if (node != SIM_NUMA_NO_NODE)
    node = (gint) ((guint) node % m->n_nodes);
  sim_op_path (op, &m->path[P_FAST_ALLOC]);
  Obj o;
  sim_op_irqsave (op);                         /* slab_alloc: local_irq_save */
  gboolean got = slab_alloc (m, op, s, gfp, node, &o);
  sim_op_irqrestore (op);
  if (!got)
    return 0;
  g_assert (!o.pg->out[o.idx]);
  o.pg->out[o.idx] = 1;
  s->live++;
  SimAddr addr = obj_addr (o.pg, o.idx);
  if (gfp & SIM_GFP_ZERO)
    sim_op_touch_range (op, addr, s->g.object_size, SIM_ACC_WRITE, SIM_MEM_OBJECT);
  return addr;
}

/* ------------------------------------------------------------------ */
/* Free                                                                */

/* __slab_free */
static void
slab_free (SimSlqb *m, SimOp *op, SlqbCache *s, Obj o)
{
  sim_op_path (op, &m->path[P_FAST_FREE]);
  sim_op_irqsave (op);                         /* slab_free: local_irq_save */
  CpuSlab *c = get_cpu_slab (op, s);
  CacheList *l = &c->list;
  stat_inc (m, op, l, SIM_SLQB_FREE);
  o.pg->out[o.idx] = 0;
  s->live--;
  if (m->n_nodes == 1 || o.pg->node == sim_slqb_node_of_cpu (m, op->cpu))
    {
      /* Every node-local object, whichever CPU allocated it. */
      rd_l (op, l, KL_FREELIST_NR, 16);
      set_fp (op, o, l->freelist.head);
      l->freelist.head = o;
      if (l->freelist.nr == 0)
        l->freelist.tail = o;
      l->freelist.nr++;
      wr_l (op, l, KL_FREELIST_NR, 24);
      rd_kc (op, s, KC_HIWATER);
      if (l->freelist.nr > s->g.hiwater)
        flush_free_list (m, op, s, l);
    }
  else
    {
      slab_free_to_remote (m, op, s, o, c);
      stat_inc (m, op, l, SIM_SLQB_FREE_REMOTE);
    }
  sim_op_irqrestore (op);
}

/* The page and index of a live object at @addr, or FALSE. */
static gboolean
lookup_object (const SimSlqb *m, SimAddr addr, Obj *out)
{
  SlqbPage *pg = (SlqbPage *) (gsize) sim_idmap_get (m->page_of,
                                                     sim_page_head (m->env.pages, addr), 0);
  if (pg == NULL || addr < pg->base + pg->colour)
    return FALSE;
  SimAddr off = addr - pg->base - pg->colour;
  guint32 size = pg->s->g.size;
  if (off % size != 0 || off / size >= pg->objects)
    return FALSE;
  guint idx = (guint) (off / size);
  if (!pg->out[idx])
    return FALSE;
  *out = (Obj) { pg, idx };
  return TRUE;
}

gboolean
sim_slqb_free (SimSlqb *m, SimOp *op, SimAddr addr)
{
  Obj o;
  if (!lookup_object (m, addr, &o))
    return FALSE;
  /* kfree: virt_to_head_slqb_page, then page->list->cache (a load from
   * the owning list, which may be another CPU's kmem_cache_cpu). */
  virt_to_head (m, op, o);
  rd_pg (op, o.pg, PG_LIST, 8);
  rd_l (op, o.pg->list, KL_CACHE, 8);
  slab_free (m, op, o.pg->s, o);
  return TRUE;
}

gboolean
sim_slqb_cache_free (SimSlqb *m, SimOp *op, SimAddr addr)
{
  Obj o;
  if (!lookup_object (m, addr, &o))
    return FALSE;
  /* kmem_cache_free: the cache comes from the caller.  The page is looked
   * up only for a SLAB_NUMA cache (num_possible_nodes() > 1), where
   * __slab_free compares its node with this CPU's; page->list is never
   * read. */
  if (m->n_nodes > 1)
    virt_to_head (m, op, o);
  slab_free (m, op, o.pg->s, o);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* kmalloc                                                             */

static guint
kmalloc_index (gsize size)
{
  /* get_slab with KMALLOC_MIN_SIZE 8 and L1_CACHE_BYTES 64: 65..96 go
   * to kmalloc-128, 129..192 to kmalloc-192 (index 2). */
  if (size <= 8)
    return 3;
  if (size <= 192)
    {
      static const guint8 size_index[24] = {
        3, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 2, 2, 2, 2, 2, 2, 2, 2,
      };
      return size_index[(size - 1) / 8];
    }
  if (size > ((gsize) 1 << KMALLOC_SHIFT_HIGH))
    return 0;
  return (guint) g_bit_storage (size - 1);
}

SimCacheId
sim_slqb_kmalloc_cache (SimSlqb *m, gsize size)
{
  guint idx = kmalloc_index (MAX (size, 1));
  if (idx == 0 || m->kmalloc[idx] == NULL)
    return SIM_CACHE_NONE;
  return m->kmalloc_id[idx];
}

guint64
sim_slqb_kmalloc_max (SimSlqb *m)
{
  (void) m;
  return (guint64) 1 << KMALLOC_SHIFT_HIGH;
}

SimAddr
sim_slqb_kmalloc (SimSlqb *m, SimOp *op, gsize size, gint node, guint32 gfp)
{
  sim_op_path (op, &m->path[P_KMALLOC_INDEX]);
  SimCacheId id = sim_slqb_kmalloc_cache (m, size);
  if (id == SIM_CACHE_NONE)
    return 0;                           /* no pass-through: kmalloc fails */
  return sim_slqb_cache_alloc (m, op, id, node, gfp);
}

/* ------------------------------------------------------------------ */
/* The trim worker                                                     */

void
sim_slqb_trim (SimSlqb *m, SimOp *op)
{
  /* cache_trim_worker: for every cache, one batch of this node's list
   * (NUMA), then kmem_cache_trim_percpu: claim the remote list, flush one
   * batch of the LIFO, flush the outgoing rlist. */
  guint here = sim_slqb_node_of_cpu (m, op->cpu);
  for (guint i = 0; i < m->caches->len; i++)
    {
      SlqbCache *s = g_ptr_array_index (m->caches, i);
      sim_op_path (op, &m->path[P_TRIM_CACHE]);
      if (m->n_nodes > 1)
        {
          NodeSlab *n = get_node_slab (op, s, here);
          CacheList *l = &n->list;
          lock_at (op, &n->list_lock, l, KN_LIST_LOCK);
          claim_remote_free_list (m, op, s, l);
          flush_free_list (m, op, s, l);
          unlock_at (op, &n->list_lock, l, KN_LIST_LOCK);
        }
      CpuSlab *c = get_cpu_slab (op, s);
      claim_remote_free_list (m, op, s, &c->list);
      flush_free_list (m, op, s, &c->list);
      flush_remote_free_cache (m, op, s, c);
    }
}

static void
trim_event (SimEngine *eng, gpointer data, guint64 arg)
{
  SimSlqb *m = data;
  guint cpu = (guint) arg;
  SimTime at = sim_engine_now (eng);
  SimTime t = MAX (at, sim_engine_cpu_clock (eng, cpu));
  SimOp op;
  sim_op_begin (&op, m->env.mem, cpu, t);
  sim_slqb_trim (m, &op);
  sim_engine_cpu_sync (eng, cpu, t);
  sim_engine_cpu_advance (eng, cpu, sim_op_cycles (&op));
  /* schedule_delayed_work (round_jiffies_relative (3 * HZ)) */
  m->trim_event[cpu] = sim_engine_schedule (eng, at + 3 * m->cycles_per_sec, cpu,
                                            trim_event, m, cpu);
}

static void
start_trim_timers (SimSlqb *m)
{
  m->trim_event = g_new0 (guint64, m->env.n_cpus);
  if (m->env.eng == NULL)
    return;
  /* start_cpu_timer: __round_jiffies_relative (HZ, cpu) rounds to a whole
   * second less a skew of 3 jiffies per CPU (m->p.hz jiffies a second), so
   * CPUs do not all run at once. */
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      guint64 skew = (3 * (guint64) cpu * m->cycles_per_sec / m->p.hz) % m->cycles_per_sec;
      m->trim_event[cpu] = sim_engine_schedule (m->env.eng, m->cycles_per_sec - skew, cpu,
                                                trim_event, m, cpu);
    }
}

/* ------------------------------------------------------------------ */
/* Geometry: calculate_sizes                                           */

static guint
slab_order (const SimSlqbParams *p, guint size, guint max_order, guint frac)
{
  guint order = 0;
  guint bits = g_bit_storage (size - 1);        /* fls (size - 1) */
  if (bits > SIM_PAGE_SHIFT)
    order = bits - SIM_PAGE_SHIFT;
  order = MAX (order, p->min_order);
  for (; order <= max_order; order++)
    {
      guint64 slab_size = (guint64) SIM_PAGE_SIZE << order;
      guint64 objects = slab_size / size;
      if (objects == 0)
        continue;
      if (order < MAX_ORDER && objects < p->min_objects)
        continue;
      guint64 waste = slab_size - objects * size;
      if (waste * frac <= slab_size)
        break;
    }
  return order;
}

gboolean
sim_slqb_geometry (const SimSlqbParams *p, guint32 object_size, guint32 align, guint32 flags,
                   guint line, SimSlqbGeometry *g, GError **error)
{
  memset (g, 0, sizeof *g);
  if (object_size < 8)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "object size %u is below the size of a pointer (8)", object_size);
      return FALSE;
    }
  if (object_size > ((guint32) SIM_PAGE_SIZE << (MAX_ORDER - 1)))
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "object size %u does not fit an order-%d slab", object_size, MAX_ORDER - 1);
      return FALSE;
    }
  g->object_size = object_size;
  guint32 size = (object_size + 7) & ~7u;
  g->inuse = size;
  g->offset = 0;
  if (flags & (SIM_SLAB_TYPESAFE_BY_RCU | SIM_SLAB_CTOR))
    {
      /* The free pointer may not overlay the object. */
      g->offset = size;
      size += 8;
    }
  /* calculate_alignment */
  guint32 a = align;
  if (flags & SIM_SLAB_HWCACHE_ALIGN)
    {
      guint32 ralign = line;
      while (object_size <= ralign / 2)
        ralign /= 2;
      a = MAX (a, ralign);
    }
  a = MAX (a, 8u);
  a = (a + 7) & ~7u;
  g->align = a;
  size = (size + a - 1) / a * a;
  g->size = size;

  /* calculate_order */
  guint order = slab_order (p, size, 1, 4);
  if (order > 1)
    order = slab_order (p, size, MAX_ORDER - 1, 0);
  if (order >= MAX_ORDER)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "no slab order up to %d holds %u objects of %u bytes "
                   "(slqb_min_objects=%u)", MAX_ORDER - 1, MAX (p->min_objects, 1u), size,
                   p->min_objects);
      return FALSE;
    }
  g->order = order;
  g->objects = (guint32) (((guint64) SIM_PAGE_SIZE << order) / size);
  guint32 fb = MAX (4 * SIM_PAGE_SIZE / size, MIN (256u, 64 * SIM_PAGE_SIZE / size));
  g->freebatch = fb ? fb : 1;
  g->hiwater = g->freebatch << 2;
  if (p->freebatch >= 0)
    g->freebatch = (guint32) p->freebatch;
  if (p->hiwater >= 0)
    g->hiwater = (guint32) p->hiwater;
  /* kmem_cache_open: colour by cache lines (or the requested alignment)
   * across the space left over. */
  g->colour_off = MAX (line, align);
  g->colour_range = (guint32) ((((guint64) SIM_PAGE_SIZE << order)) - (guint64) g->objects * size);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Cache creation                                                      */

static void
init_list (const SimSlqb *m, CacheList *l, SimAddr addr, SimMemClass cls)
{
  memset (l, 0, sizeof *l);
  l->addr = addr;
  l->cls = cls;
  l->no_stats = m->p.stats ? 0 : KL_STATS_BYTES;
  sim_lock_init (&l->page_lock, "page_lock");
  sim_lock_init (&l->rf_lock, "remote_free.lock");
}

static SlqbCache *
cache_new (SimSlqb *m, SimOp *op, const char *name, const SimSlqbGeometry *g, guint32 flags)
{
  SlqbCache *s = g_new0 (SlqbCache, 1);
  s->name = g_strdup (name);
  s->g = *g;
  s->flags = flags;
  s->addr = sim_page_static_alloc (m->env.pages, 0, KC_STRUCT_SIZE, 64);
  s->cpu_array = sim_page_static_alloc (m->env.pages, 0, 8 * m->env.n_cpus, 64);
  s->cpu = g_new0 (CpuSlab, m->env.n_cpus);
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      /* alloc_kmem_cache_cpu: kmem_cache_alloc_node on the CPU's node. */
      SimAddr a = sim_page_static_alloc (m->env.pages, sim_slqb_node_of_cpu (m, cpu),
                                         KCC_SIZE - (m->p.stats ? 0 : KL_STATS_BYTES), 64);
      init_list (m, &s->cpu[cpu].list, a, SIM_MEM_CPU_SLAB);
    }
  if (m->n_nodes > 1)
    {
      s->node_array = sim_page_static_alloc (m->env.pages, 0, 8 * m->n_nodes, 64);
      s->node = g_new0 (NodeSlab, m->n_nodes);
      for (guint n = 0; n < m->n_nodes; n++)
        {
          SimAddr a = sim_page_static_alloc (m->env.pages, n,
                                             KN_SIZE - (m->p.stats ? 0 : KL_STATS_BYTES), 64);
          init_list (m, &s->node[n].list, a, SIM_MEM_CACHE_META);
          sim_lock_init (&s->node[n].list_lock, "list_lock");
        }
    }
  /* kmem_cache_open writes the structure and the per-CPU structures. */
  sim_op_touch_range (op, s->addr, KC_STRUCT_SIZE, SIM_ACC_WRITE, SIM_MEM_CACHE_META);
  g_ptr_array_add (m->caches, s);
  g_hash_table_insert (m->by_name, s->name, s);
  return s;
}

static SimCacheId
cache_id (const SimSlqb *m, const SlqbCache *s)
{
  for (guint i = 0; i < m->caches->len; i++)
    if (g_ptr_array_index (m->caches, i) == s)
      return i;
  return SIM_CACHE_NONE;
}

SimCacheId
sim_slqb_cache_create (SimSlqb *m, SimOp *op, const SimCacheSpec *spec, GError **error)
{
  SlqbCache *existing = g_hash_table_lookup (m->by_name, spec->name);
  if (existing)
    return cache_id (m, existing);
  SimSlqbGeometry g;
  if (!sim_slqb_geometry (&m->p, spec->object_size, spec->align, spec->flags, m->line, &g,
                          error))
    {
      g_prefix_error (error, "slqb: kmem_cache_create (\"%s\"): ", spec->name);
      return SIM_CACHE_NONE;
    }
  return cache_id (m, cache_new (m, op, spec->name, &g, spec->flags));
}

/* ------------------------------------------------------------------ */
/* Introspection and the invariant checker                            */

guint
sim_slqb_n_caches (const SimSlqb *m)
{
  return m->caches->len;
}

static void
add_list_counts (SimSlqbCacheInfo *out, const SlqbCache *s, const CacheList *l)
{
  out->slabs += l->nr_slabs;
  out->partial_slabs += l->nr_partial;
  out->inuse_objects += (l->nr_slabs - l->nr_partial) * s->g.objects;
  for (const SlqbPage *pg = l->partial_head; pg; pg = pg->next)
    out->inuse_objects += pg->inuse;
  for (guint i = 0; i < SIM_SLQB_N_STATS; i++)
    out->stat[i] += l->stat[i];
}

void
sim_slqb_cache_info (const SimSlqb *m, SimCacheId id, SimSlqbCacheInfo *out)
{
  g_return_if_fail (id < m->caches->len);
  const SlqbCache *s = g_ptr_array_index (m->caches, id);
  memset (out, 0, sizeof *out);
  out->name = s->name;
  out->g = s->g;
  /* gather_stats: every CPU's list, then every node's. */
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    add_list_counts (out, s, &s->cpu[cpu].list);
  for (guint n = 0; s->node && n < m->n_nodes; n++)
    add_list_counts (out, s, &s->node[n].list);
  out->live_objects = s->live;
}

void
sim_slqb_list_info (const SimSlqb *m, SimCacheId id, gint cpu, SimSlqbListInfo *out)
{
  g_return_if_fail (id < m->caches->len);
  const SlqbCache *s = g_ptr_array_index (m->caches, id);
  memset (out, 0, sizeof *out);
  const CacheList *l;
  if (cpu >= 0)
    {
      g_return_if_fail ((guint) cpu < m->env.n_cpus);
      const CpuSlab *c = &s->cpu[cpu];
      l = &c->list;
      out->rlist_nr = c->rlist.nr;
      out->colour_next = c->colour_next;
    }
  else
    {
      guint n = (guint) (-cpu - 1);
      g_return_if_fail (s->node != NULL && n < m->n_nodes);
      l = &s->node[n].list;
    }
  out->freelist_nr = l->freelist.nr;
  out->remote_free_nr = l->remote_free.nr;
  out->remote_free_check = l->remote_free_check;
  out->nr_partial = l->nr_partial;
  out->nr_slabs = l->nr_slabs;
  memcpy (out->stat, l->stat, sizeof out->stat);
}

void
sim_slqb_test_corrupt (SimSlqb *m, SimCacheId id, guint cpu)
{
  g_return_if_fail (id < m->caches->len && cpu < m->env.n_cpus);
  SlqbCache *s = g_ptr_array_index (m->caches, id);
  s->cpu[cpu].list.freelist.nr++;
}

static gboolean
bad (GError **error, const SlqbCache *s, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
bad (GError **error, const SlqbCache *s, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT, "slqb: %s: %s", s->name, msg);
  g_free (msg);
  return FALSE;
}

/* Walk @nr objects of a chain from @list's head, marking each; every
 * object must be of @s, free, unmarked and (with @owner) on a page of
 * @owner; the chain must end there and @tail must be its last. */
static gboolean
walk_chain (const SlqbCache *s, const KmList *list, const CacheList *owner, const char *what,
            GError **error)
{
  Obj o = list->head, last = OBJ_NULL;
  for (guint64 i = 0; i < list->nr; i++)
    {
      if (obj_null (o))
        return bad (error, s, "%s: nr %" G_GUINT64_FORMAT " but the chain ends after %"
                    G_GUINT64_FORMAT, what, list->nr, i);
      if (o.pg->s != s || o.idx >= o.pg->objects)
        return bad (error, s, "%s: an object of another cache or out of range", what);
      if (o.pg->mark[o.idx] || o.pg->out[o.idx])
        return bad (error, s, "%s: object %#" G_GINT64_MODIFIER "x is also %s", what,
                    obj_addr (o.pg, o.idx), o.pg->out[o.idx] ? "handed out" : "on another list");
      if (owner && o.pg->list != owner)
        return bad (error, s, "%s: object %#" G_GINT64_MODIFIER "x belongs to another list",
                    what, obj_addr (o.pg, o.idx));
      o.pg->mark[o.idx] = 1;
      last = o;
      o = get_fp (o);
    }
  if (!obj_null (o))
    return bad (error, s, "%s: the chain goes on past nr %" G_GUINT64_FORMAT, what, list->nr);
  if (list->nr > 0 && (list->tail.pg != last.pg || list->tail.idx != last.idx))
    return bad (error, s, "%s: tail is not the last object", what);
  return TRUE;
}

static gboolean
check_list (const SlqbCache *s, const CacheList *l, const char *who, GHashTable *slabs,
            GError **error)
{
  char *what = g_strdup_printf ("%s freelist", who);
  gboolean ok = walk_chain (s, &l->freelist, NULL, what, error);
  g_free (what);
  if (!ok)
    return FALSE;
  what = g_strdup_printf ("%s remote_free", who);
  ok = walk_chain (s, &l->remote_free, l, what, error);
  g_free (what);
  if (!ok)
    return FALSE;
  guint64 n = 0;
  const SlqbPage *prev = NULL;
  for (const SlqbPage *pg = l->partial_head; pg; prev = pg, pg = pg->next)
    {
      n++;
      if (pg->list != l || !pg->on_partial || pg->prev != prev)
        return bad (error, s, "%s: partial page %#" G_GINT64_MODIFIER "x misfiled", who, pg->base);
      if (pg->inuse == 0 || pg->inuse >= pg->objects)
        return bad (error, s, "%s: partial page %#" G_GINT64_MODIFIER "x has inuse %u of %u",
                    who, pg->base, pg->inuse, pg->objects);
    }
  if (n != l->nr_partial || l->partial_tail != prev)
    return bad (error, s, "%s: nr_partial %" G_GUINT64_FORMAT " but %" G_GUINT64_FORMAT
                " pages listed", who, l->nr_partial, n);
  guint64 counted = GPOINTER_TO_SIZE (g_hash_table_lookup (slabs, l));
  if (counted != l->nr_slabs)
    return bad (error, s, "%s: nr_slabs %" G_GUINT64_FORMAT " but %" G_GUINT64_FORMAT
                " pages point to it", who, l->nr_slabs, counted);
  return TRUE;
}

static gboolean
check_cache (const SimSlqb *m, const SlqbCache *s, GPtrArray *pages, GError **error)
{
  /* @pages: this cache's pages.  Clear marks, count the pages of each
   * list, walk each page freelist. */
  GHashTable *slabs = g_hash_table_new (g_direct_hash, g_direct_equal);
  gboolean ok = TRUE;
  for (guint i = 0; i < pages->len; i++)
    {
      SlqbPage *pg = g_ptr_array_index (pages, i);
      memset (pg->mark, 0, pg->objects);
      gsize c = GPOINTER_TO_SIZE (g_hash_table_lookup (slabs, pg->list));
      g_hash_table_insert (slabs, pg->list, GSIZE_TO_POINTER (c + 1));
    }
  for (guint i = 0; i < pages->len && ok; i++)
    {
      SlqbPage *pg = g_ptr_array_index (pages, i);
      guint32 nfree = 0;
      for (Obj o = pg->freelist; !obj_null (o) && ok; o = get_fp (o))
        {
          if (o.pg != pg || o.idx >= pg->objects || pg->mark[o.idx] || pg->out[o.idx])
            ok = bad (error, s, "page %#" G_GINT64_MODIFIER "x: freelist corrupt (cycle, "
                      "foreign or handed-out object)", pg->base);
          else
            {
              pg->mark[o.idx] = 1;
              nfree++;
            }
        }
      if (ok && pg->inuse + nfree != pg->objects)
        ok = bad (error, s, "page %#" G_GINT64_MODIFIER "x: inuse %u + free %u != objects %u",
                  pg->base, pg->inuse, nfree, pg->objects);
      if (ok && pg->inuse == 0)
        ok = bad (error, s, "page %#" G_GINT64_MODIFIER "x is empty but was not freed", pg->base);
      if (ok && !pg->on_partial && pg->inuse != pg->objects)
        ok = bad (error, s, "page %#" G_GINT64_MODIFIER "x has free objects but is on no "
                  "partial list", pg->base);
    }

  for (guint cpu = 0; cpu < m->env.n_cpus && ok; cpu++)
    {
      const CpuSlab *c = &s->cpu[cpu];
      char *who = g_strdup_printf ("cpu %u", cpu);
      ok = check_list (s, &c->list, who, slabs, error);
      if (ok)
        {
          char *what = g_strdup_printf ("cpu %u rlist", cpu);
          if (c->rlist.nr > 0 && c->remote_cache_list == NULL)
            ok = bad (error, s, "%s holds objects without a target list", what);
          else
            ok = walk_chain (s, &c->rlist, c->rlist.nr ? c->remote_cache_list : NULL, what,
                             error);
          g_free (what);
        }
      g_free (who);
    }
  for (guint n = 0; s->node && n < m->n_nodes && ok; n++)
    {
      char *who = g_strdup_printf ("node %u", n);
      ok = check_list (s, &s->node[n].list, who, slabs, error);
      g_free (who);
    }

  /* Pages pointing at a list that is not this cache's. */
  if (ok)
    {
      guint64 listed = 0, total = 0;
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        listed += s->cpu[cpu].list.nr_slabs;
      for (guint n = 0; s->node && n < m->n_nodes; n++)
        listed += s->node[n].list.nr_slabs;
      total = pages->len;
      if (listed != total)
        ok = bad (error, s, "%" G_GUINT64_FORMAT " slabs counted by the lists, %"
                  G_GUINT64_FORMAT " exist", listed, total);
    }

  /* Exactly one place: every object is marked (on some list) or handed
   * out, never both (walk_chain refused both) and never neither. */
  guint64 out = 0;
  for (guint i = 0; i < pages->len && ok; i++)
    {
      SlqbPage *pg = g_ptr_array_index (pages, i);
      for (guint j = 0; j < pg->objects && ok; j++)
        {
          if (pg->out[j])
            out++;
          else if (!pg->mark[j])
            ok = bad (error, s, "object %#" G_GINT64_MODIFIER "x is neither free anywhere nor "
                      "handed out", obj_addr (pg, j));
        }
    }
  if (ok && out != s->live)
    ok = bad (error, s, "%" G_GUINT64_FORMAT " objects handed out but %" G_GUINT64_FORMAT
              " counted live", out, s->live);
  g_hash_table_destroy (slabs);
  return ok;
}

gboolean
sim_slqb_check (const SimSlqb *m, GError **error)
{
  /* One pass over every page, sorted by cache; within a cache in address
   * order, so which fault is named first never depends on the map's
   * layout. */
  GHashTable *by_cache = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                (GDestroyNotify) g_ptr_array_unref);
  g_autoptr (GPtrArray) by_base = sim_idmap_sorted (m->page_of);
  for (guint bi = 0; bi < by_base->len; bi++)
    {
      SlqbPage *pg = (SlqbPage *) (gsize) ((const SimIdPair *) by_base->pdata[bi])->value;
      GPtrArray *a = g_hash_table_lookup (by_cache, pg->s);
      if (a == NULL)
        {
          a = g_ptr_array_new ();
          g_hash_table_insert (by_cache, pg->s, a);
        }
      g_ptr_array_add (a, pg);
    }
  GPtrArray *none = g_ptr_array_new ();
  gboolean ok = TRUE;
  for (guint i = 0; i < m->caches->len && ok; i++)
    {
      const SlqbCache *s = g_ptr_array_index (m->caches, i);
      GPtrArray *pages = g_hash_table_lookup (by_cache, s);
      ok = check_cache (m, s, pages ? pages : none, error);
    }
  g_ptr_array_unref (none);
  g_hash_table_destroy (by_cache);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Creation                                                            */

/* The parameters parse_params() takes: SLQB's boot parameters, its
 * per-cache sysfs tunables applied to every cache, and hz. */
static const char *const param_list[] = {
  "slqb_min_order", "slqb_min_objects", "hiwater", "freebatch", "slqb_stats", "hz", NULL
};

char **
sim_alloc_slqb_param_names (const char *kernel)
{
  (void) kernel;
  return g_strdupv ((char **) param_list);
}

static gboolean
parse_params (SimSlqbParams *p, const SimAllocSpec *spec, GError **error)
{
  p->min_order = 0;
  p->min_objects = 1;
  p->hiwater = -1;
  p->freebatch = -1;
  /* CONFIG_SLQB_STATS is default n (lib/Kconfig.debug of the SLQB tree). */
  p->stats = FALSE;
  p->hz = sim_kernel_hz (SIM_SLQB_KERNEL);
  for (guint i = 0; i < spec->params->len; i++)
    {
      const SimAllocParam *a = &g_array_index (spec->params, SimAllocParam, i);
      guint v;
      if (g_strcmp0 (a->key, "slqb_min_order") == 0)
        {
          if (!sim_alloc_param_uint (a, MAX_ORDER - 1, &v, error))
            return FALSE;
          p->min_order = v;
        }
      else if (g_strcmp0 (a->key, "slqb_min_objects") == 0)
        {
          if (!sim_alloc_param_uint (a, 65535, &v, error))
            return FALSE;
          p->min_objects = v;
        }
      else if (g_strcmp0 (a->key, "hiwater") == 0)
        {
          if (!sim_alloc_param_uint (a, 1000000, &v, error))
            return FALSE;
          p->hiwater = (gint) v;
        }
      else if (g_strcmp0 (a->key, "freebatch") == 0)
        {
          if (!sim_alloc_param_uint (a, 1000000, &v, error))
            return FALSE;
          if (v == 0)
            {
              g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                           "parameter \"freebatch\": must be at least 1");
              return FALSE;
            }
          p->freebatch = (gint) v;
        }
      else if (g_strcmp0 (a->key, "slqb_stats") == 0)
        {
          if (!sim_alloc_param_uint (a, 1, &v, error))
            return FALSE;
          p->stats = v != 0;
        }
      else if (g_strcmp0 (a->key, "hz") == 0)
        {
          if (!sim_alloc_param_hz (a, &p->hz, error))
            return FALSE;
        }
      else
        {
          g_autofree char *names = g_strjoinv (", ", (char **) param_list);
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "unknown parameter \"%s\" (expected one of: %s)", a->key, names);
          return FALSE;
        }
    }
  /* The sysfs store refuses a freebatch above hiwater + 1. */
  if (p->hiwater >= 0 && p->freebatch > p->hiwater + 1)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "freebatch=%d is larger than hiwater=%d + 1", p->freebatch, p->hiwater);
      return FALSE;
    }
  return TRUE;
}

SimSlqb *
sim_slqb_new (const SimAllocSpec *spec, const SimAllocEnv *env, GError **error)
{
  if (spec->kernel && strcmp (spec->kernel, SIM_SLQB_KERNEL) != 0)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "slqb: no model of kernel %s (known: %s)", spec->kernel, SIM_SLQB_KERNEL);
      return NULL;
    }
  SimSlqbParams p;
  if (!parse_params (&p, spec, error))
    {
      g_prefix_error (error, "slqb@%s: ", SIM_SLQB_KERNEL);
      return NULL;
    }
  SimSlqb *m = g_new0 (SimSlqb, 1);
  if (!sim_paths_load ("slqb-2.6.31", path_keys, N_PATHS, m->path, error))
    {
      g_free (m);
      return NULL;
    }
  m->env = *env;
  m->p = p;
  m->n_nodes = env->machine->numa && env->machine->sockets > 1 ? env->machine->sockets : 1;
  m->line = env->machine->levels[0].line ? env->machine->levels[0].line : 64;
  m->cycles_per_sec = (guint64) (env->machine->frequency_ghz * 1e9 + 0.5);
  if (m->cycles_per_sec == 0)
    m->cycles_per_sec = 1000000000;
  m->caches = g_ptr_array_new ();
  m->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  m->page_of = sim_idmap_new (sizeof (SimIdPair), 0);

  /* kmem_cache_init: kmalloc-192 (L1_CACHE_BYTES < 128), then the powers
   * of two from 8 bytes to 2 MiB; ARCH_KMALLOC_FLAGS is
   * SLAB_HWCACHE_ALIGN, ARCH_KMALLOC_MINALIGN 8. */
  SimOp op;
  sim_op_begin_uncharged (&op, env->mem, 0, 0);
  for (guint i = 2; i <= KMALLOC_SHIFT_HIGH; i++)
    {
      if (i > 2 && i < KMALLOC_SHIFT_LOW)
        continue;
      guint32 size = i == 2 ? 192 : 1u << i;
      char *name = g_strdup_printf ("kmalloc-%u", size);
      SimSlqbGeometry g;
      GError *local = NULL;
      if (!sim_slqb_geometry (&m->p, size, 8, SIM_SLAB_HWCACHE_ALIGN, m->line, &g, &local))
        {
          /* Only the boot parameters can cause this: a configuration
           * error. */
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                       "slqb@%s: %s: %s", SIM_SLQB_KERNEL, name, local->message);
          g_error_free (local);
          g_free (name);
          sim_slqb_free_model (m);
          return NULL;
        }
      m->kmalloc[i] = cache_new (m, &op, name, &g, SIM_SLAB_HWCACHE_ALIGN);
      m->kmalloc_id[i] = m->caches->len - 1;
      g_free (name);
    }
  start_trim_timers (m);
  return m;
}

void
sim_slqb_free_model (SimSlqb *m)
{
  if (m == NULL)
    return;
  if (m->trim_event && m->env.eng)
    for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
      if (m->trim_event[cpu])
        sim_engine_cancel (m->env.eng, m->trim_event[cpu]);
  g_free (m->trim_event);
  guint64 cur = 0;
  for (SimIdPair *e; (e = sim_idmap_next (m->page_of, &cur)) != NULL;)
    g_free ((gpointer) (gsize) e->value);
  sim_idmap_free (m->page_of);
  for (guint i = 0; i < m->caches->len; i++)
    {
      SlqbCache *s = g_ptr_array_index (m->caches, i);
      g_free (s->name);
      g_free (s->cpu);
      g_free (s->node);
      g_free (s);
    }
  g_ptr_array_unref (m->caches);
  g_hash_table_destroy (m->by_name);
  g_free (m);
}

/* ------------------------------------------------------------------ */
/* The ops table                                                       */

SIM_ALLOC_OPS_FORWARDERS (sim_slqb)

static const char *
ops_kernel (gpointer m)
{
  (void) m;
  return SIM_SLQB_KERNEL;
}

static char *
ops_params (gpointer mp)
{
  SimSlqb *m = mp;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "slqb_min_order=%u,slqb_min_objects=%u",
                          m->p.min_order, m->p.min_objects);
  if (m->p.hiwater >= 0)
    g_string_append_printf (s, ",hiwater=%d", m->p.hiwater);
  if (m->p.freebatch >= 0)
    g_string_append_printf (s, ",freebatch=%d", m->p.freebatch);
  g_string_append_printf (s, ",slqb_stats=%d,hz=%u", m->p.stats ? 1 : 0, m->p.hz);
  return g_string_free (s, FALSE);
}

static gsize
ops_ksize (gpointer mp, SimAddr addr)
{
  SimSlqb *m = mp;
  Obj o;
  if (!lookup_object (m, addr, &o))
    return 0;
  /* ksize: with the free pointer after the object (RCU) only up to it;
   * otherwise the whole stride. */
  const SlqbCache *s = o.pg->s;
  return (s->flags & SIM_SLAB_TYPESAFE_BY_RCU) ? s->g.inuse : s->g.size;
}

static void
ops_report (gpointer mp, SimAllocReport *out)
{
  SimSlqb *m = mp;
  for (guint i = 0; i < m->caches->len; i++)
    {
      SimSlqbCacheInfo info;
      sim_slqb_cache_info (m, i, &info);
      SimAllocCacheRow row = { 0 };
      row.name = g_strdup (info.name);
      row.aliases = g_new0 (char *, 1);
      row.object_size = info.g.object_size;
      row.slab_size = info.g.size;
      row.order = info.g.order;
      row.objs_per_slab = info.g.objects;
      /* %Fast: allocations served by the LIFO freelist (including those
       * that first claimed the remote list) are fast; every object taken
       * from a page is counted in ALLOC_SLAB_FILL (a new page's first
       * object too: __slab_alloc_page goes through __cache_list_get_page),
       * so those are ALLOC - ALLOC_SLAB_FILL.  Frees onto the LIFO are
       * fast; frees queued for another node are not. */
      row.alloc = info.stat[SIM_SLQB_ALLOC];
      row.alloc_fast = row.alloc - info.stat[SIM_SLQB_ALLOC_SLAB_FILL];
      row.free = info.stat[SIM_SLQB_FREE];
      row.free_fast = row.free - info.stat[SIM_SLQB_FREE_REMOTE];
      row.objects = info.inuse_objects;
      row.slabs = info.slabs;
      row.total_objects = info.slabs * info.g.objects;
      row.partial_slabs = info.partial_slabs;
      row.active_slabs = info.slabs;
      row.align = info.g.align;
      row.flags = ((const SlqbCache *) g_ptr_array_index (m->caches, i))->flags;
      row.order_fallback = 0;
      row.bytes = info.slabs * ((guint64) SIM_PAGE_SIZE << info.g.order);
      row.n_stats = SIM_SLQB_N_STATS;
      row.stat_names = stat_names;
      row.stats = g_memdup2 (info.stat, sizeof info.stat);
      g_array_append_val (out->rows, row);
    }
  out->large_pages = 0;
  out->stats_config = "CONFIG_SLQB_STATS";
  out->stats_param = "slqb_stats";
  out->stats_charged = m->p.stats;
}

static const char *const slqb_kernels[] = { SIM_SLQB_KERNEL, NULL };

SIM_ALLOC_OPS_TABLE (slqb, slqb_kernels)
