/* page-alloc.c - the simulated page allocator: the physical memory map of
 * every node, a buddy allocator per zone and the per-CPU pagesets of three
 * kernel eras.
 *
 * What it models.  Each NUMA node (one node when the machine is not NUMA)
 * owns one ZONE_NORMAL laid out as page-alloc.h describes: memmap, static
 * area, buddy frames.  The buddy allocator follows mm/page_alloc.c:
 * free_area[11] lists, __rmqueue takes the head of the first non-empty list
 * at or above the order and expand() gives the upper halves back to the
 * lower lists (at their heads); __free_one_page merges with the buddy
 * (pfn ^ 1 << order) while it is a free block of the same order and puts
 * the result at the list head -- in 6.18 at the tail when the next-order
 * buddy is free (buddy_merge_likely).  All of it runs under zone->lock, an
 * engine SimLock whose lock word sits in the zone structure in the node's
 * static area.  In front of the buddy sit the per-CPU pagesets of the era:
 *   2.6.23  order 0 only, a hot and a cold list (free_hot_cold_page,
 *           buffered_rmqueue, rmqueue_bulk, free_pages_bulk);
 *   2.6.32  order 0 only, one pcp with per-migratetype lists and
 *           free_pcppages_bulk's round robin (also 2.6.34);
 *   6.18    lists for orders 0..3, alloc_factor/free_count scaling, high
 *           auto-tuned between high_min and high_max (nr_pcp_high), the
 *           free_high path for consecutive high-order frees.
 * Every load and store the kernel code makes on the zone, the pcp
 * structure, the list heads and the struct pages (the block itself, the
 * neighbours whose list links change, the buddy it inspects, every tail of
 * a compound page) goes through SimOp to the cache model; instruction
 * counts come from the table below (docs/models/page.md).
 *
 * Simplifications (see docs/models/page.md): one migratetype (UNMOVABLE;
 * the simulated list addresses are those of the UNMOVABLE lists, so the
 * cache footprint is right); no watermarks, reclaim, compaction or
 * migratetype fallback -- an allocation fails when its zones' lists cannot
 * serve it, after draining every CPU's pagesets if it may sleep
 * (SIM_GFP_WAIT); no zones other than ZONE_NORMAL; the 2.6.23 cold list exists
 * but is never used (the models never ask for cold pages); no THP pcp
 * lists in 6.18; high decay (decay_pcp_high from vmstat) is not modelled.
 *
 * Host bookkeeping is compact: one state byte and two 32-bit list links
 * per frame.  Only the first frame of a free buddy block carries state;
 * frames inside it are "don't care", so splitting and merging are O(1)
 * host work and sim_page_check reconstructs coverage from the lists.
 */
#include "models/page/page-alloc.h"
#include "models/alloc/paths.h"
#include "sim/core/errors.h"

/* ---- Instructions of the kernel paths: one row each in every era's table
 * configs/paths/page-ERA.tsv (models/alloc/paths.h, docs/models/paths.md). ---- */
#define PAGE_PATHS(X)                    \
  X (ALLOC_ENTRY,    "alloc_entry"     ) \
  X (ZONE_FALLBACK,  "zone_fallback"   ) \
  X (SLOWPATH,       "slowpath"        ) \
  X (FREE_ENTRY,     "free_entry"      ) \
  X (LOCK,           "lock"            ) \
  X (PCP_ALLOC,      "pcp_alloc"       ) \
  X (PCP_FREE,       "pcp_free"        ) \
  X (PCP_TUNE,       "pcp_tune"        ) \
  X (RMQUEUE_ORDER,  "rmqueue_order"   ) \
  X (RMQUEUE_TAKE,   "rmqueue_take"    ) \
  X (EXPAND_STEP,    "expand_step"     ) \
  X (FREE_ONE,       "free_one"        ) \
  X (MERGE_STEP,     "merge_step"      ) \
  X (MERGE_TAKE,     "merge_take"      ) \
  X (BULK_PAGE,      "bulk_page"       ) \
  X (RR_LIST,        "rr_list"         ) \
  X (PREP_NEW,       "prep_new"        ) \
  X (CHECK_PAGE,     "check_page"      ) \
  X (COMPOUND,       "compound"        ) \
  X (COMPOUND_TAIL,  "compound_tail"   ) \
  X (ZERO_LINE,      "zero_line"       )

SIM_PATHS_DEFINE (PAGE_PATHS)

/* ---- Kernel constants. ---- */
#define PA_MAX_ORDER        SIM_PAGE_MAX_ORDER    /* orders 0..10 (MAX_ORDER 11, 6.18's
                                      MAX_PAGE_ORDER 10 inclusive) */
#define PA_PCP_ORDERS_618   4      /* PAGE_ALLOC_COSTLY_ORDER 3 */
#define PA_NR_PCP_LISTS_618 14     /* 3 migratetypes x 4 orders + 2 THP */
#define PA_PCPTYPES         3      /* MIGRATE_PCPTYPES */
#define PA_BATCH_SCALE_MAX  5      /* CONFIG_PCP_BATCH_SCALE_MAX */
#define PA_HIGH_FRACTION    8      /* MIN_PERCPU_PAGELIST_HIGH_FRACTION */
#define PA_WMARK_SCALE      10     /* watermark_scale_factor default */
#define PA_PCPF_PREV_FREE_HIGH_ORDER 1u
#define PA_PCPF_FREE_HIGH_BATCH      2u

#define PA_BLOCK_BYTES  ((guint64) SIM_PAGE_SIZE << (PA_MAX_ORDER - 1))  /* 4 MiB */
#define PA_DEFAULT_MANAGED (1ull << 30)
#define PA_DEFAULT_STATIC  (16ull << 20)
/* The static area grows with the CPUs of a node: the kernel sizes its
 * per-CPU first chunk per possible CPU (pcpu_embed_first_chunk gives each
 * CPU a unit on its node), and the models keep per-CPU structures there
 * (SLUB's 64 KiB per-CPU unit and the per-CPU data of caches past it).
 * 4 MiB of node-wide data plus 128 KiB per CPU, when that is more than
 * the 16 MiB default: every bundled machine keeps 16 MiB, a node of
 * 512 CPUs gets 68 MiB. */
#define PA_STATIC_BASE     (4ull << 20)
#define PA_STATIC_PER_CPU  (128ull << 10)
#define PA_NIL G_MAXUINT32

/* struct page field offsets.  A struct page is one 64-byte line in every
 * era and the memmap is line aligned, so only the line matters to the
 * cache model; the offsets follow 6.18's layout for readability. */
#define SP_FLAGS      0
#define SP_LRU        8          /* lru / buddy_list / pcp_list; compound_head */
#define SP_PRIVATE    40         /* buddy order, pcp migratetype */
#define SP_REFCOUNT   52

/* Frame states (one byte per frame): kind in bits 5..7, compound bit 4,
 * order in bits 0..3. */
enum {
  PA_ST_NONE = 0,        /* inside a free buddy block, or never a head */
  PA_ST_FREE = 1,        /* first frame of a free buddy block */
  PA_ST_PCP = 2,         /* first frame of a block on a pcp list */
  PA_ST_ALLOC = 3,       /* first frame of an allocated block */
  PA_ST_TAIL = 4,        /* tail of an allocated compound page */
};
#define ST_MAKE(kind, order, comp) ((guint8) (((kind) << 5) | ((comp) ? 0x10 : 0) | (order)))
#define ST_KIND(s)   ((s) >> 5)
#define ST_ORDER(s)  ((s) & 0x0f)
#define ST_COMP(s)   (((s) & 0x10) != 0)

typedef struct {
  guint32 head, tail;
  guint32 count;             /* blocks on the list */
} PaList;

/* One per-CPU pageset as the model keeps it.  2.6.23 uses two (hot,
 * cold) with lists[0]; 2.6.32 one with lists[0] (the UNMOVABLE list);
 * 6.18 one with lists[order] for orders 0..3. */
typedef struct {
  SimAddr addr;              /* simulated struct per_cpu_pages */
  gint    count;             /* pages */
  gint    high, batch;
  gint    high_min, high_max;
  gint    alloc_factor, free_count;
  guint   flags;
  PaList  lists[PA_PCP_ORDERS_618];
} PaPcp;

typedef struct {
  guint    node;
  SimAddr  base;             /* node range start: the memmap */
  SimAddr  static_start, static_cur, static_end;
  SimAddr  managed_start;    /* first buddy frame */
  guint32  n_frames;         /* buddy frames */
  guint8  *state;            /* [n_frames] */
  guint32 *next, *prev;      /* [n_frames] intrusive links */
  PaList   free_list[PA_MAX_ORDER];
  guint64  nr_free_pages;    /* pages in the buddy lists */
  SimLock  lock;
  char    *lock_name;
  /* Simulated struct zone. */
  SimAddr  zone_addr;        /* first line: watermarks */
  SimAddr  pageset_ptr;      /* zone->pageset[] (2.6.x) / per_cpu_pageset */
  SimAddr  lock_addr;
  SimAddr  free_area_addr;
  guint    free_area_stride;
  /* Parameters computed at start-up. */
  gint     batch, high_min, high_max;
  guint64  low_wmark;
} PaZone;

struct SimPageAlloc {
  const SimMachine *m;
  SimPathCost path[N_PATHS]; /* the era's table, by P_* */
  SimMemSys  *mem;
  SimPageEra  era;
  guint       n_nodes;
  guint       n_cpus;
  /* The node of an address, (addr / node_bytes) % n_nodes, as a shift
   * and a mask when both are powers of two (every bundled machine), so
   * the lookups every free makes divide nothing (host speed only):
   * node_shift 0 means divide; a machine without NUMA has mask 0 (node 0
   * for every address) and shift 63 (any but 0). */
  guint       node_shift;
  guint       node_mask;
  guint64     managed_bytes, static_bytes;
  PaZone     *zones;         /* [n_nodes] */
  PaPcp      *pcp;           /* [n_cpus][n_nodes][2] */
  guint64     allocated_pages;
  SimPageStats stats;
  SimPageObserver observer;  /* sim_page_set_observer; NULL: none */
  gpointer    observer_data;
};

/* ---- Small helpers. ---- */

static inline PaPcp *
pa_pcp (SimPageAlloc *pa, guint cpu, guint node, guint which)
{
  return &pa->pcp[((gsize) cpu * pa->n_nodes + node) * 2 + which];
}

static inline guint
pa_cpu_node (const SimPageAlloc *pa, guint cpu)
{
  if (!pa->m->numa)
    return 0;
  guint socket = sim_machine_socket_of (pa->m, cpu);
  return G_LIKELY (socket < pa->n_nodes) ? socket : socket % pa->n_nodes;
}

static inline SimAddr
pa_frame_addr (const PaZone *z, guint32 f)
{
  return z->managed_start + ((SimAddr) f << SIM_PAGE_SHIFT);
}

static inline SimAddr
pa_frame_struct (const PaZone *z, guint32 f)
{
  return z->base + ((pa_frame_addr (z, f) - z->base) >> SIM_PAGE_SHIFT) * SIM_STRUCT_PAGE_SIZE;
}

static inline SimAddr
pa_free_head_addr (const PaZone *z, guint order)
{
  return z->free_area_addr + (SimAddr) order * z->free_area_stride;
}

static inline SimAddr
pa_nr_free_addr (const PaZone *z, guint order)
{
  /* nr_free follows the free_list[MIGRATE_TYPES] array. */
  return pa_free_head_addr (z, order) + z->free_area_stride - 8;
}

/* Where the model's pcp list @i lives inside the simulated struct. */
static SimAddr
pa_pcp_list_addr (const SimPageAlloc *pa, const PaPcp *p, guint i)
{
  switch (pa->era)
    {
    case SIM_PAGE_ERA_2_6_23:
      return p->addr + 16;                 /* {count, high, batch, list} */
    case SIM_PAGE_ERA_2_6_32:
      return p->addr + 16;                 /* lists[MIGRATE_UNMOVABLE] */
    case SIM_PAGE_ERA_6_18:
    default:
      return p->addr + 32 + 16 * (SimAddr) (PA_PCPTYPES * i);
    }
}

/* 6.18 struct per_cpu_pages field offsets. */
#define PCP618_LOCK   0
#define PCP618_COUNT  4
#define PCP618_HIGH   8
#define PCP618_HMIN   12
#define PCP618_BATCH  20
#define PCP618_FLAGS  24
#define PCP618_AFACT  25
#define PCP618_FCOUNT 28
#define PCP618_LISTS  32
#define PCP618_SIZE   (PCP618_LISTS + 16 * PA_NR_PCP_LISTS_618)

/* ---- Intrusive lists with the kernel's memory traffic. ---- */

/* The host side of list_add / list_add_tail: link frame @f into @l. */
static inline void
pa_link (PaZone *z, PaList *l, guint32 f, gboolean tail)
{
  if (tail)
    {
      z->next[f] = PA_NIL;
      z->prev[f] = l->tail;
      if (l->tail != PA_NIL)
        z->next[l->tail] = f;
      else
        l->head = f;
      l->tail = f;
    }
  else
    {
      z->prev[f] = PA_NIL;
      z->next[f] = l->head;
      if (l->head != PA_NIL)
        z->prev[l->head] = f;
      else
        l->tail = f;
      l->head = f;
    }
  l->count++;
}

/* list_add / list_add_tail of frame @f on @l whose head is at @head. */
static void
pa_list_add (PaZone *z, SimOp *op, PaList *l, SimAddr head, guint32 f, gboolean tail)
{
  sim_op_read (op, head, 16, SIM_MEM_PAGE_ALLOC);
  sim_op_write (op, pa_frame_struct (z, f) + SP_LRU, 16, SIM_MEM_STRUCT_PAGE);
  guint32 nb = tail ? l->tail : l->head;
  if (nb != PA_NIL)
    sim_op_write (op, pa_frame_struct (z, nb) + SP_LRU + (tail ? 0 : 8), 8,
                  SIM_MEM_STRUCT_PAGE);
  sim_op_write (op, head + (tail ? 8 : 0), nb == PA_NIL ? 16 : 8, SIM_MEM_PAGE_ALLOC);

  pa_link (z, l, f, tail);
}

/* list_del: read the entry's links, write the neighbours (or the head). */
static void
pa_list_del (PaZone *z, SimOp *op, PaList *l, SimAddr head, guint32 f)
{
  sim_op_read (op, pa_frame_struct (z, f) + SP_LRU, 16, SIM_MEM_STRUCT_PAGE);
  guint32 n = z->next[f], p = z->prev[f];
  if (p != PA_NIL)
    sim_op_write (op, pa_frame_struct (z, p) + SP_LRU, 8, SIM_MEM_STRUCT_PAGE);
  else
    sim_op_write (op, head, 8, SIM_MEM_PAGE_ALLOC);
  if (n != PA_NIL)
    sim_op_write (op, pa_frame_struct (z, n) + SP_LRU + 8, 8, SIM_MEM_STRUCT_PAGE);
  else
    sim_op_write (op, head + 8, 8, SIM_MEM_PAGE_ALLOC);

  if (p != PA_NIL)
    z->next[p] = n;
  else
    l->head = n;
  if (n != PA_NIL)
    z->prev[n] = p;
  else
    l->tail = p;
  z->next[f] = z->prev[f] = PA_NIL;
  l->count--;
}

/* ---- zone->lock. ---- */

static void
pa_zone_lock (SimPageAlloc *pa, PaZone *z, SimOp *op)
{
  guint64 before = op->cost.lock_wait;
  sim_op_path (op, &pa->path[P_LOCK]);
  /* 6.18 takes zone->lock with spin_lock_irqsave; the 2.6 eras run the
   * whole allocation or free with irqs off (sim_page_alloc). */
  if (pa->era == SIM_PAGE_ERA_6_18)
    sim_op_irqsave (op);
  sim_op_lock (op, &z->lock, z->lock_addr);
  pa->stats.zone_lock_acquisitions++;
  pa->stats.zone_lock_wait_cycles += op->cost.lock_wait - before;
}

static void
pa_zone_unlock (SimPageAlloc *pa, PaZone *z, SimOp *op)
{
  sim_op_path (op, &pa->path[P_LOCK]);
  sim_op_unlock (op, &z->lock, z->lock_addr);
  if (pa->era == SIM_PAGE_ERA_6_18)
    sim_op_irqrestore (op);
}

/* ---- The buddy allocator (caller holds zone->lock). ---- */

static void
pa_set_buddy_order (PaZone *z, SimOp *op, guint32 f, guint order)
{
  /* set_page_order: page->private = order, PG_buddy / PageBuddy. */
  sim_op_write (op, pa_frame_struct (z, f) + SP_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_write (op, pa_frame_struct (z, f) + SP_PRIVATE, 8, SIM_MEM_STRUCT_PAGE);
  z->state[f] = ST_MAKE (PA_ST_FREE, order, FALSE);
}

static void
pa_free_area_add (PaZone *z, SimOp *op, guint32 f, guint order, gboolean tail)
{
  pa_list_add (z, op, &z->free_list[order], pa_free_head_addr (z, order), f, tail);
  sim_op_access (op, pa_nr_free_addr (z, order), 8, SIM_ACC_RMW, SIM_MEM_PAGE_ALLOC);
  z->nr_free_pages += 1u << order;
}

static void
pa_free_area_del (PaZone *z, SimOp *op, guint32 f, guint order)
{
  pa_list_del (z, op, &z->free_list[order], pa_free_head_addr (z, order), f);
  sim_op_access (op, pa_nr_free_addr (z, order), 8, SIM_ACC_RMW, SIM_MEM_PAGE_ALLOC);
  /* rmv_page_order: clear PG_buddy and private. */
  sim_op_write (op, pa_frame_struct (z, f) + SP_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  z->state[f] = PA_ST_NONE;
  z->nr_free_pages -= 1u << order;
}

/* __rmqueue_smallest + expand.  Returns the first frame or PA_NIL. */
static guint32
pa_rmqueue (SimPageAlloc *pa, PaZone *z, SimOp *op, guint order)
{
  for (guint o = order; o < PA_MAX_ORDER; o++)
    {
      sim_op_path (op, &pa->path[P_RMQUEUE_ORDER]);
      PaList *l = &z->free_list[o];
      if (l->head == PA_NIL)
        {
          /* list_empty(): one read of the head. */
          sim_op_read (op, pa_free_head_addr (z, o), 8, SIM_MEM_PAGE_ALLOC);
          continue;
        }
      guint32 f = l->head;
      sim_op_path (op, &pa->path[P_RMQUEUE_TAKE]);
      pa_free_area_del (z, op, f, o);
      pa->stats.buddy_allocs++;
      for (guint h = o; h > order; h--)
        {
          guint32 half = f + (1u << (h - 1));
          sim_op_path (op, &pa->path[P_EXPAND_STEP]);
          pa_free_area_add (z, op, half, h - 1, FALSE);
          pa_set_buddy_order (z, op, half, h - 1);
          pa->stats.buddy_splits++;
        }
      return f;
    }
  return PA_NIL;
}

/* Is frame @b the head of a free buddy block of @order?  page_is_buddy
 * reads the candidate's struct page. */
static gboolean
pa_is_buddy (PaZone *z, SimOp *op, guint32 b, guint order)
{
  sim_op_read (op, pa_frame_struct (z, b) + SP_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_read (op, pa_frame_struct (z, b) + SP_PRIVATE, 8, SIM_MEM_STRUCT_PAGE);
  return b < z->n_frames && z->state[b] == ST_MAKE (PA_ST_FREE, order, FALSE);
}

/* __free_one_page. */
static void
pa_free_one (SimPageAlloc *pa, PaZone *z, SimOp *op, guint32 f, guint order)
{
  sim_op_path (op, &pa->path[P_FREE_ONE]);
  pa->stats.buddy_frees++;
  guint32 buddy = PA_NIL;
  while (order < PA_MAX_ORDER - 1)
    {
      buddy = f ^ (1u << order);
      sim_op_path (op, &pa->path[P_MERGE_STEP]);
      if (!pa_is_buddy (z, op, buddy, order))
        break;
      sim_op_path (op, &pa->path[P_MERGE_TAKE]);
      pa_free_area_del (z, op, buddy, order);
      f &= buddy;
      order++;
      buddy = PA_NIL;
      pa->stats.buddy_merges++;
    }
  pa_set_buddy_order (z, op, f, order);

  gboolean to_tail = FALSE;
  if (pa->era == SIM_PAGE_ERA_6_18 && buddy != PA_NIL && order < PA_MAX_ORDER - 2)
    {
      /* buddy_merge_likely: if the block this one would form with its
       * buddy has a free buddy itself, queue at the tail so it is less
       * likely to be allocated before the merge happens. */
      guint32 higher = (f & buddy) ^ (1u << (order + 1));
      to_tail = pa_is_buddy (z, op, higher, order + 1);
    }
  pa_free_area_add (z, op, f, order, to_tail);
}

/* ---- struct page preparation. ---- */

/* prep_new_page / post_alloc_hook, __GFP_ZERO and prep_compound_page. */
static void
pa_prep_new (SimPageAlloc *pa, PaZone *z, SimOp *op, guint32 f, guint order,
             guint32 gfp, gboolean compound)
{
  guint n = 1u << order;
  sim_op_path (op, &pa->path[P_PREP_NEW]);
  if (pa->era == SIM_PAGE_ERA_2_6_32)
    {
      /* check_new_page on every page of the block. */
      for (guint i = 0; i < n; i++)
        {
          sim_op_path (op, &pa->path[P_CHECK_PAGE]);
          sim_op_read (op, pa_frame_struct (z, f + i) + SP_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
        }
    }
  else if (pa->era == SIM_PAGE_ERA_2_6_23)
    {
      sim_op_path (op, &pa->path[P_CHECK_PAGE]);
      sim_op_read (op, pa_frame_struct (z, f) + SP_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
    }
  /* set_page_private(0), set_page_refcounted, flags cleared. */
  sim_op_write (op, pa_frame_struct (z, f) + SP_PRIVATE, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_write (op, pa_frame_struct (z, f) + SP_REFCOUNT, 4, SIM_MEM_STRUCT_PAGE);

  if (gfp & SIM_GFP_ZERO)
    {
      /* clear_highpage on each page: the data the caller receives. */
      guint64 bytes = (guint64) n << SIM_PAGE_SHIFT;
      sim_op_path_n (op, &pa->path[P_ZERO_LINE], (guint) (bytes / 64));
      sim_op_touch_range (op, pa_frame_addr (z, f), bytes, SIM_ACC_WRITE, SIM_MEM_OBJECT);
      pa->stats.pages_zeroed += n;
    }

  gboolean comp = compound && order > 0;
  z->state[f] = ST_MAKE (PA_ST_ALLOC, order, comp);
  if (comp)
    {
      sim_op_path (op, &pa->path[P_COMPOUND]);
      /* Head: PG_head; page[1]: order and destructor (2.6.x) or the folio
       * fields (6.18; page[2] too from order 2). */
      sim_op_write (op, pa_frame_struct (z, f) + SP_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
      for (guint i = 1; i < n; i++)
        {
          sim_op_path (op, &pa->path[P_COMPOUND_TAIL]);
          /* PG_tail + first_page (2.6.x) / compound_head (6.18). */
          sim_op_write (op, pa_frame_struct (z, f + i) + SP_LRU, 16, SIM_MEM_STRUCT_PAGE);
          z->state[f + i] = ST_MAKE (PA_ST_TAIL, order, TRUE);
        }
      sim_op_write (op, pa_frame_struct (z, f + 1) + SP_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
      if (pa->era == SIM_PAGE_ERA_6_18 && order > 1)
        sim_op_write (op, pa_frame_struct (z, f + 2) + SP_LRU, 16, SIM_MEM_STRUCT_PAGE);
    }
}

/* destroy_compound_page: the order in page[1] (2.6.x), then each tail's
 * first_page / compound_head checked and cleared.  2.6.x does this in
 * __free_one_page, under zone->lock; 6.18 in free_pages_prepare. */
static void
pa_destroy_compound (SimPageAlloc *pa, PaZone *z, SimOp *op, guint32 f, guint order)
{
  if (pa->era != SIM_PAGE_ERA_6_18)
    sim_op_read (op, pa_frame_struct (z, f + 1) + SP_LRU, 16, SIM_MEM_STRUCT_PAGE);
  for (guint i = 1; i < 1u << order; i++)
    {
      sim_op_path (op, &pa->path[P_COMPOUND_TAIL]);
      sim_op_read (op, pa_frame_struct (z, f + i) + SP_LRU, 8, SIM_MEM_STRUCT_PAGE);
      z->state[f + i] = PA_ST_NONE;
    }
}

/* free_pages_prepare / free_pages_check on every page of the block. */
static void
pa_free_prepare (SimPageAlloc *pa, PaZone *z, SimOp *op, guint32 f, guint order,
                 gboolean compound)
{
  guint n = 1u << order;
  sim_op_read (op, pa_frame_struct (z, f) + SP_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_path (op, &pa->path[P_CHECK_PAGE]);
  sim_op_access (op, pa_frame_struct (z, f) + SP_FLAGS, 8, SIM_ACC_RMW, SIM_MEM_STRUCT_PAGE);
  if (compound && pa->era == SIM_PAGE_ERA_6_18)
    pa_destroy_compound (pa, z, op, f, order);
  for (guint i = 1; i < n; i++)
    {
      sim_op_path (op, &pa->path[P_CHECK_PAGE]);
      sim_op_access (op, pa_frame_struct (z, f + i) + SP_FLAGS, 8, SIM_ACC_RMW,
                     SIM_MEM_STRUCT_PAGE);
    }
  z->state[f] = PA_ST_NONE;
}

/* ---- Per-CPU pagesets. ---- */

/* The zone->pageset[cpu] pointer (2.6.x) or per_cpu_pageset (6.18). */
static void
pa_pcp_lookup (SimPageAlloc *pa, PaZone *z, SimOp *op)
{
  SimAddr a = z->pageset_ptr;
  if (pa->era != SIM_PAGE_ERA_6_18)
    a += 8 * (SimAddr) op->cpu;
  sim_op_read (op, a, 8, SIM_MEM_PAGE_ALLOC);
}

static SimAddr
pa_pcp_count_addr (const SimPageAlloc *pa, const PaPcp *p)
{
  return p->addr + (pa->era == SIM_PAGE_ERA_6_18 ? PCP618_COUNT : 0);
}

/* rmqueue_bulk: @count blocks of @order moved to the tail of pcp list @li
 * under zone->lock.  Returns the number moved. */
static guint
pa_rmqueue_bulk (SimPageAlloc *pa, PaZone *z, SimOp *op, PaPcp *p, guint li,
                 guint order, guint count)
{
  guint i;
  pa->stats.pcp_refills++;
  pa_zone_lock (pa, z, op);
  for (i = 0; i < count; i++)
    {
      guint32 f = pa_rmqueue (pa, z, op, order);
      if (f == PA_NIL)
        break;
      sim_op_path (op, &pa->path[P_BULK_PAGE]);
      pa_list_add (z, op, &p->lists[li], pa_pcp_list_addr (pa, p, li), f, TRUE);
      if (pa->era != SIM_PAGE_ERA_2_6_23)
        /* set_page_private(page, migratetype) / pcp migratetype. */
        sim_op_write (op, pa_frame_struct (z, f) + SP_PRIVATE, 8, SIM_MEM_STRUCT_PAGE);
      z->state[f] = ST_MAKE (PA_ST_PCP, order, FALSE);
    }
  pa_zone_unlock (pa, z, op);
  return i;
}

/* Unlink the tail block of pcp list @li and give it to the buddy. */
static void
pa_pcp_drain_one (SimPageAlloc *pa, PaZone *z, SimOp *op, PaPcp *p, guint li, guint order)
{
  guint32 f = p->lists[li].tail;
  if (pa->observer)
    pa->observer (SIM_PAGE_EV_PCP_DRAIN, op->cpu, pa_frame_addr (z, f), order,
                  pa->observer_data);
  sim_op_path (op, &pa->path[P_BULK_PAGE]);
  pa_list_del (z, op, &p->lists[li], pa_pcp_list_addr (pa, p, li), f);
  z->state[f] = PA_ST_NONE;
  p->count -= 1 << order;
  pa_free_one (pa, z, op, f, order);
}

/* free_pages_bulk (2.6.23) / free_pcppages_bulk (2.6.32, 6.18). */
static void
pa_pcp_free_bulk (SimPageAlloc *pa, PaZone *z, SimOp *op, PaPcp *p, gint count, guint pindex)
{
  pa->stats.pcp_drains++;
  pa_zone_lock (pa, z, op);
  switch (pa->era)
    {
    case SIM_PAGE_ERA_2_6_23:
      while (count-- > 0 && p->lists[0].tail != PA_NIL)
        pa_pcp_drain_one (pa, z, op, p, 0, 0);
      break;
    case SIM_PAGE_ERA_2_6_32:
      {
        /* Round robin over the MIGRATE_PCPTYPES lists, a growing run from
         * each non-empty list's tail.  Only the UNMOVABLE list holds pages
         * here, but the empty lists' heads are still read. */
        guint mt = 0;
        gint batch_free = 0;
        while (count > 0 && p->lists[0].tail != PA_NIL)
          {
            do
              {
                batch_free++;
                if (++mt == PA_PCPTYPES)
                  mt = 0;
                sim_op_path (op, &pa->path[P_RR_LIST]);
                sim_op_read (op, p->addr + 16 + 16 * mt, 8, SIM_MEM_PAGE_ALLOC);
              }
            while (mt != 0);
            do
              pa_pcp_drain_one (pa, z, op, p, 0, 0);
            while (--count && --batch_free && p->lists[0].tail != PA_NIL);
          }
        break;
      }
    case SIM_PAGE_ERA_6_18:
    default:
      {
        /* The list just used first, then round robin over all 14
         * pcp lists, each drained from its tail until empty. */
        count = MIN (count, p->count);
        gint real = (gint) (PA_PCPTYPES * pindex) - 1;
        while (count > 0)
          {
            guint li;
            for (;;)
              {
                if (++real > PA_NR_PCP_LISTS_618 - 1)
                  real = 0;
                sim_op_path (op, &pa->path[P_RR_LIST]);
                sim_op_read (op, p->addr + PCP618_LISTS + 16 * (SimAddr) real, 8,
                             SIM_MEM_PAGE_ALLOC);
                li = (guint) real / PA_PCPTYPES;
                if (real % PA_PCPTYPES == 0 && li < PA_PCP_ORDERS_618
                    && p->lists[li].head != PA_NIL)
                  break;
              }
            do
              {
                pa_pcp_drain_one (pa, z, op, p, li, li);
                count -= 1 << li;
              }
            while (count > 0 && p->lists[li].head != PA_NIL);
          }
        break;
      }
    }
  pa_zone_unlock (pa, z, op);
}

/* 6.18 nr_pcp_high without reclaim or ZONE_BELOW_HIGH (no watermarks). */
static gint
pa_nr_pcp_high (PaPcp *p, gint batch, gboolean free_high)
{
  gint high = p->high = CLAMP (p->high, p->high_min, p->high_max);
  if (high == 0)
    return 0;
  if (free_high)
    {
      p->high = MAX (high - (batch << PA_BATCH_SCALE_MAX), p->high_min);
      return 0;
    }
  if (p->high_min == p->high_max)
    return high;
  if (p->count >= high)
    {
      gint need = p->free_count + batch;
      if (p->high < need)
        p->high = CLAMP (need, p->high_min, p->high_max);
    }
  return high;
}

static gint
pa_nr_pcp_free (PaPcp *p, gint batch, gint high, gboolean free_high)
{
  if (free_high)
    return MIN (p->count, batch << PA_BATCH_SCALE_MAX);
  if (high < batch)
    return 1;
  return CLAMP (p->free_count, batch, high - batch);
}

static gint
pa_nr_pcp_alloc (PaPcp *p, guint order)
{
  gint base = p->batch;
  gint high = p->high = CLAMP (p->high, p->high_min, p->high_max);
  if (high < base)
    return 1;
  gint batch = order ? base : base << p->alloc_factor;
  /* "If we had larger pcp->high, we could avoid to allocate from zone":
   * an auto-tuned pcp grows its high by the batch it refills (the model
   * has no watermarks, so ZONE_BELOW_HIGH is never set). */
  if (p->high_min != p->high_max)
    high = p->high = MIN (high + batch, p->high_max);
  if (!order)
    {
      gint max_nr = MAX (high - p->count - base, base);
      if (batch <= max_nr && p->alloc_factor < PA_BATCH_SCALE_MAX)
        p->alloc_factor++;
      batch = MIN (batch, max_nr);
    }
  if (batch > 1)
    batch = MAX (batch >> order, 2);
  return batch;
}

static gboolean
pa_pcp_order_ok (const SimPageAlloc *pa, guint order)
{
  return pa->era == SIM_PAGE_ERA_6_18 ? order < PA_PCP_ORDERS_618 : order == 0;
}

/* Allocation through the pcp of op->cpu for zone @z. */
static guint32
pa_pcp_alloc (SimPageAlloc *pa, PaZone *z, SimOp *op, guint order)
{
  PaPcp *p = pa_pcp (pa, op->cpu, z->node, 0);   /* hot */
  guint li = pa->era == SIM_PAGE_ERA_6_18 ? order : 0;
  SimAddr cnt = pa_pcp_count_addr (pa, p);
  gboolean refilled = FALSE;

  sim_op_path (op, &pa->path[P_PCP_ALLOC]);
  pa_pcp_lookup (pa, z, op);
  if (pa->era == SIM_PAGE_ERA_6_18)
    {
      /* pcp_spin_trylock; free_count >>= 1. */
      sim_op_access (op, p->addr + PCP618_LOCK, 4, SIM_ACC_RMW, SIM_MEM_LOCK);
      sim_op_access (op, p->addr + PCP618_FCOUNT, 2, SIM_ACC_RMW, SIM_MEM_PAGE_ALLOC);
      p->free_count >>= 1;
    }
  sim_op_read (op, cnt, 4, SIM_MEM_PAGE_ALLOC);
  sim_op_read (op, pa_pcp_list_addr (pa, p, li), 8, SIM_MEM_PAGE_ALLOC);
  if (p->lists[li].head == PA_NIL)
    {
      guint want;
      if (pa->era == SIM_PAGE_ERA_6_18)
        {
          sim_op_path (op, &pa->path[P_PCP_TUNE]);
          sim_op_read (op, p->addr + PCP618_HIGH, 16, SIM_MEM_PAGE_ALLOC);
          sim_op_read (op, p->addr + PCP618_BATCH, 8, SIM_MEM_PAGE_ALLOC);
          gint af = p->alloc_factor;
          want = (guint) pa_nr_pcp_alloc (p, order);
          if (af != p->alloc_factor)
            sim_op_write (op, p->addr + PCP618_AFACT, 1, SIM_MEM_PAGE_ALLOC);
        }
      else
        {
          sim_op_read (op, p->addr + 8, 4, SIM_MEM_PAGE_ALLOC);   /* batch */
          want = (guint) p->batch;
        }
      guint got = pa_rmqueue_bulk (pa, z, op, p, li, order, want);
      p->count += (gint) (got << order);
      sim_op_write (op, cnt, 4, SIM_MEM_PAGE_ALLOC);
      refilled = TRUE;
      if (got == 0)
        {
          if (pa->era == SIM_PAGE_ERA_6_18)
            sim_op_write (op, p->addr + PCP618_LOCK, 4, SIM_MEM_LOCK);
          return PA_NIL;
        }
    }
  guint32 f = p->lists[li].head;
  pa_list_del (z, op, &p->lists[li], pa_pcp_list_addr (pa, p, li), f);
  p->count -= 1 << order;
  sim_op_write (op, cnt, 4, SIM_MEM_PAGE_ALLOC);
  z->state[f] = PA_ST_NONE;
  if (pa->era == SIM_PAGE_ERA_6_18)
    sim_op_write (op, p->addr + PCP618_LOCK, 4, SIM_MEM_LOCK);
  if (!refilled)
    pa->stats.pcp_hits++;
  return f;
}

/* Freeing through the pcp of op->cpu for zone @z. */
static void
pa_pcp_free (SimPageAlloc *pa, PaZone *z, SimOp *op, guint32 f, guint order)
{
  PaPcp *p = pa_pcp (pa, op->cpu, z->node, 0);   /* free_hot_page */
  guint li = pa->era == SIM_PAGE_ERA_6_18 ? order : 0;
  SimAddr cnt = pa_pcp_count_addr (pa, p);

  sim_op_path (op, &pa->path[P_PCP_FREE]);
  pa_pcp_lookup (pa, z, op);
  if (pa->era != SIM_PAGE_ERA_2_6_23)
    /* get_pageblock_migratetype (the pageblock bitmap, in the zone's
     * static data) and set_page_private. */
    sim_op_write (op, pa_frame_struct (z, f) + SP_PRIVATE, 8, SIM_MEM_STRUCT_PAGE);

  if (pa->era != SIM_PAGE_ERA_6_18)
    {
      pa_list_add (z, op, &p->lists[0], pa_pcp_list_addr (pa, p, 0), f, FALSE);
      z->state[f] = ST_MAKE (PA_ST_PCP, 0, FALSE);
      p->count++;
      sim_op_access (op, cnt, 4, SIM_ACC_RMW, SIM_MEM_PAGE_ALLOC);
      sim_op_read (op, p->addr + 4, 8, SIM_MEM_PAGE_ALLOC);   /* high, batch */
      if (p->count >= p->high)
        {
          pa_pcp_free_bulk (pa, z, op, p, p->batch, 0);
          sim_op_write (op, cnt, 4, SIM_MEM_PAGE_ALLOC);
        }
      return;
    }

  /* 6.18 free_frozen_page_commit. */
  sim_op_access (op, p->addr + PCP618_LOCK, 4, SIM_ACC_RMW, SIM_MEM_LOCK);
  sim_op_access (op, p->addr + PCP618_AFACT, 1, SIM_ACC_RMW, SIM_MEM_PAGE_ALLOC);
  p->alloc_factor >>= 1;
  pa_list_add (z, op, &p->lists[li], pa_pcp_list_addr (pa, p, li), f, FALSE);
  z->state[f] = ST_MAKE (PA_ST_PCP, order, FALSE);
  p->count += 1 << order;
  sim_op_access (op, cnt, 4, SIM_ACC_RMW, SIM_MEM_PAGE_ALLOC);
  sim_op_read (op, p->addr + PCP618_BATCH, 8, SIM_MEM_PAGE_ALLOC);   /* batch, flags */

  gint batch = p->batch;
  gboolean free_high = FALSE;
  guint old_flags = p->flags;
  if (order > 0)
    {
      free_high = p->free_count >= batch + p->high_min / 2
                  && (p->flags & PA_PCPF_PREV_FREE_HIGH_ORDER)
                  && (!(p->flags & PA_PCPF_FREE_HIGH_BATCH) || p->count >= batch);
      p->flags |= PA_PCPF_PREV_FREE_HIGH_ORDER;
    }
  else
    p->flags &= ~PA_PCPF_PREV_FREE_HIGH_ORDER;
  if (p->flags != old_flags)
    sim_op_write (op, p->addr + PCP618_FLAGS, 1, SIM_MEM_PAGE_ALLOC);
  if (p->free_count < (batch << PA_BATCH_SCALE_MAX))
    {
      p->free_count += 1 << order;
      sim_op_write (op, p->addr + PCP618_FCOUNT, 2, SIM_MEM_PAGE_ALLOC);
    }

  sim_op_path (op, &pa->path[P_PCP_TUNE]);
  sim_op_read (op, p->addr + PCP618_HIGH, 12, SIM_MEM_PAGE_ALLOC);
  gint old_high = p->high;
  gint high = pa_nr_pcp_high (p, batch, free_high);
  if (p->high != old_high)
    sim_op_write (op, p->addr + PCP618_HIGH, 4, SIM_MEM_PAGE_ALLOC);
  if (p->count >= high)
    {
      gint n = pa_nr_pcp_free (p, batch, high, free_high);
      pa_pcp_free_bulk (pa, z, op, p, n, li);
      sim_op_write (op, cnt, 4, SIM_MEM_PAGE_ALLOC);
    }
  sim_op_write (op, p->addr + PCP618_LOCK, 4, SIM_MEM_LOCK);
}

/* drain_all_pages on the slow path: every CPU spills its pagesets back to
 * the buddy, each on its own CPU (the work runs there, so the traffic and
 * the zone->lock acquisitions are that CPU's), starting when the request
 * is made.  The requester waits for the last one (flush_work); the wait is
 * counted with the lock waits.  Returns TRUE when any page moved. */
static gboolean
pa_drain_all (SimPageAlloc *pa, SimOp *op)
{
  SimTime done = op->t;
  gboolean moved = FALSE;
  for (guint c = 0; c < pa->n_cpus; c++)
    for (guint n = 0; n < pa->n_nodes; n++)
      for (guint w = 0; w < 2; w++)
        {
          PaPcp *p = pa_pcp (pa, c, n, w);
          if (p->count == 0)
            continue;
          SimOp rop;
          sim_op_begin (&rop, op->mem, c, op->t);
          rop.uncharged = op->uncharged;
          pa_pcp_free_bulk (pa, &pa->zones[n], &rop, p, p->count, 0);
          sim_op_write (&rop, pa_pcp_count_addr (pa, p), 4, SIM_MEM_PAGE_ALLOC);
          done = MAX (done, rop.t);
          moved = TRUE;
        }
  op->cost.lock_wait += done - op->t;
  op->t = done;
  return moved;
}

/* ---- Public entry points. ---- */

/* sim_page_node_of without the argument check, for the lookups every
 * free and accounted allocation makes. */
static inline guint
pa_node_of (const SimPageAlloc *pa, SimAddr addr)
{
  if (G_LIKELY (pa->node_shift != 0))
    return (guint) (addr >> pa->node_shift) & pa->node_mask;
  return pa->m->numa ? (guint) ((addr / pa->m->node_bytes) % pa->n_nodes) : 0;
}

static PaZone *
pa_zone_of (const SimPageAlloc *pa, SimAddr addr, guint32 *frame)
{
  guint node = pa_node_of (pa, addr);
  PaZone *z = &pa->zones[node];
  if (addr < z->managed_start)
    return NULL;
  guint64 f = (addr - z->managed_start) >> SIM_PAGE_SHIFT;
  if (f >= z->n_frames)
    return NULL;
  *frame = (guint32) f;
  return z;
}

static SimAddr page_alloc (SimPageAlloc *pa, SimOp *op, guint order, gint node,
                           guint32 gfp, gboolean compound);

/* 2.6.x: buffered_rmqueue runs with irqs off (local_irq_save for the pcp,
 * spin_lock_irqsave for the buddy lists), and so do free_hot_cold_page and
 * __free_pages_ok: the irq save/restore pair the machine prices. */
SimAddr
sim_page_alloc (SimPageAlloc *pa, SimOp *op, guint order, gint node,
                guint32 gfp, gboolean compound)
{
  g_return_val_if_fail (pa != NULL && op != NULL, 0);
  g_return_val_if_fail (order < PA_MAX_ORDER, 0);
  g_return_val_if_fail (op->cpu < pa->n_cpus, 0);
  gboolean irq = pa->era != SIM_PAGE_ERA_6_18;
  if (irq)
    sim_op_irqsave (op);
  SimAddr a = page_alloc (pa, op, order, node, gfp, compound);
  if (irq)
    sim_op_irqrestore (op);
  return a;
}

static SimAddr
page_alloc (SimPageAlloc *pa, SimOp *op, guint order, gint node, guint32 gfp,
            gboolean compound)
{
  guint pref = node < 0 ? pa_cpu_node (pa, op->cpu) : (guint) node % pa->n_nodes;
  guint tries = (gfp & SIM_GFP_THISNODE) ? 1 : pa->n_nodes;
  gboolean drained = FALSE;
  sim_op_path (op, &pa->path[P_ALLOC_ENTRY]);

retry:
  for (guint i = 0; i < tries; i++)
    {
      PaZone *z = &pa->zones[(pref + i) % pa->n_nodes];
      if (i > 0)
        sim_op_path (op, &pa->path[P_ZONE_FALLBACK]);
      /* zone_watermark_ok: the watermark line and the free page count. */
      sim_op_read (op, z->zone_addr, 8, SIM_MEM_PAGE_ALLOC);

      guint32 f;
      if (pa_pcp_order_ok (pa, order))
        f = pa_pcp_alloc (pa, z, op, order);
      else
        {
          pa_zone_lock (pa, z, op);
          f = pa_rmqueue (pa, z, op, order);
          pa_zone_unlock (pa, z, op);
        }
      if (f == PA_NIL)
        continue;

      pa_prep_new (pa, z, op, f, order, gfp, compound);
      pa->allocated_pages += 1u << order;
      pa->stats.alloc++;
      /* Statistics only: the peak and current holding the reports show
       * as slab memory (peak and end of run). */
      pa->stats.pages_in_use = pa->allocated_pages;
      pa->stats.pages_peak = MAX (pa->stats.pages_peak, pa->allocated_pages);
      if (pa->observer)
        pa->observer (SIM_PAGE_EV_ALLOC, op->cpu, pa_frame_addr (z, f), order,
                      pa->observer_data);
      return pa_frame_addr (z, f);
    }
  /* A sleeping allocation would reclaim (nothing to reclaim here) and
   * then drain every CPU's pagesets before giving up. */
  if ((gfp & SIM_GFP_WAIT) && !drained)
    {
      drained = TRUE;
      sim_op_path (op, &pa->path[P_SLOWPATH]);
      if (pa_drain_all (pa, op))
        goto retry;
    }
  pa->stats.alloc_failed++;
  return 0;
}

void
sim_page_free (SimPageAlloc *pa, SimOp *op, SimAddr addr, guint order)
{
  g_return_if_fail (pa != NULL && op != NULL);
  g_return_if_fail (order < PA_MAX_ORDER);
  g_return_if_fail (op->cpu < pa->n_cpus);
  guint32 f = 0;
  PaZone *z = pa_zone_of (pa, addr, &f);
  g_return_if_fail (z != NULL);
  g_return_if_fail ((addr & (SIM_PAGE_SIZE - 1)) == 0);
  guint8 st = z->state[f];
  g_return_if_fail (ST_KIND (st) == PA_ST_ALLOC && ST_ORDER (st) == order);

  if (pa->observer)
    pa->observer (SIM_PAGE_EV_FREE, op->cpu, addr, order, pa->observer_data);
  sim_op_path (op, &pa->path[P_FREE_ENTRY]);
  gboolean irq = pa->era != SIM_PAGE_ERA_6_18;
  if (irq)
    sim_op_irqsave (op);
  pa_free_prepare (pa, z, op, f, order, ST_COMP (st));
  pa->allocated_pages -= 1u << order;
  pa->stats.free++;
  pa->stats.pages_in_use = pa->allocated_pages;

  if (pa_pcp_order_ok (pa, order))
    /* Compound pages reach the pcp only in 6.18, already destroyed. */
    pa_pcp_free (pa, z, op, f, order);
  else
    {
      pa_zone_lock (pa, z, op);
      if (ST_COMP (st) && pa->era != SIM_PAGE_ERA_6_18)
        pa_destroy_compound (pa, z, op, f, order);
      pa_free_one (pa, z, op, f, order);
      pa_zone_unlock (pa, z, op);
    }
  if (irq)
    sim_op_irqrestore (op);
}

void
sim_page_set_observer (SimPageAlloc *pa, SimPageObserver fn, gpointer data)
{
  g_return_if_fail (pa != NULL);
  pa->observer = fn;
  pa->observer_data = data;
}

guint
sim_page_node_of (const SimPageAlloc *pa, SimAddr addr)
{
  g_return_val_if_fail (pa != NULL, 0);
  return pa_node_of (pa, addr);
}

SimAddr
sim_page_struct (const SimPageAlloc *pa, SimAddr addr)
{
  g_return_val_if_fail (pa != NULL, 0);
  const PaZone *z = &pa->zones[pa_node_of (pa, addr)];
  g_return_val_if_fail (addr >= z->base, 0);
  guint64 pfn = (addr - z->base) >> SIM_PAGE_SHIFT;
  g_return_val_if_fail (pfn * SIM_STRUCT_PAGE_SIZE < z->static_start - z->base, 0);
  return z->base + pfn * SIM_STRUCT_PAGE_SIZE;
}

SimAddr
sim_page_head (const SimPageAlloc *pa, SimAddr addr)
{
  g_return_val_if_fail (pa != NULL, 0);
  SimAddr page = addr & ~(SimAddr) (SIM_PAGE_SIZE - 1);
  guint32 f;
  PaZone *z = pa_zone_of (pa, addr, &f);
  if (z == NULL)
    return page;
  guint8 st = z->state[f];
  if (ST_KIND (st) != PA_ST_TAIL)
    return page;
  /* Blocks are naturally aligned within the zone (the zone starts on a
   * 4 MiB boundary), so the head is the frame rounded down to the order. */
  return pa_frame_addr (z, f & ~((1u << ST_ORDER (st)) - 1));
}

SimAddr
sim_page_head_structs (const SimPageAlloc *pa, SimAddr addr, SimAddr *page_struct,
                       SimAddr *head_struct)
{
  /* sim_page_head and sim_page_struct in one: the zone found once (the
   * head is in the zone of @addr).  Every free asks (virt_to_head_page). */
  const PaZone *z = &pa->zones[pa_node_of (pa, addr)];
  SimAddr page = addr & ~(SimAddr) (SIM_PAGE_SIZE - 1);
  SimAddr head = page;
  if (addr >= z->managed_start)
    {
      guint64 f = (addr - z->managed_start) >> SIM_PAGE_SHIFT;
      if (f < z->n_frames)
        {
          guint8 st = z->state[f];
          if (ST_KIND (st) == PA_ST_TAIL)
            head = pa_frame_addr (z, (guint32) f & ~((1u << ST_ORDER (st)) - 1));
        }
    }
  if (G_UNLIKELY (addr < z->base
                  || ((addr - z->base) >> SIM_PAGE_SHIFT) * SIM_STRUCT_PAGE_SIZE
                     >= z->static_start - z->base))
    {
      /* Not a page of the map: the same complaint as sim_page_struct's. */
      *page_struct = sim_page_struct (pa, addr);
      *head_struct = sim_page_struct (pa, head);
      return head;
    }
  *page_struct = z->base + ((addr - z->base) >> SIM_PAGE_SHIFT) * SIM_STRUCT_PAGE_SIZE;
  *head_struct = z->base + ((head - z->base) >> SIM_PAGE_SHIFT) * SIM_STRUCT_PAGE_SIZE;
  return head;
}

SimAddr
sim_page_static_alloc (SimPageAlloc *pa, guint node, guint64 size, guint64 align)
{
  g_return_val_if_fail (pa != NULL, 0);
  g_return_val_if_fail (align != 0 && (align & (align - 1)) == 0, 0);
  /* Node numbers past the last node wrap, as in sim_page_alloc: a model
   * may place per-CPU data by socket on a machine without NUMA. */
  node %= pa->n_nodes;
  PaZone *z = &pa->zones[node];
  SimAddr a = (z->static_cur + align - 1) & ~(align - 1);
  if (a + size > z->static_end || a + size < a)
    {
      g_critical ("sim_page_static_alloc: static area of node %u exhausted "
                  "(%" G_GUINT64_FORMAT " bytes asked, %" G_GUINT64_FORMAT " left)",
                  node, size, (guint64) (z->static_end - MIN (a, z->static_end)));
      return 0;
    }
  z->static_cur = a + size;
  return a;
}

const SimPageStats *
sim_page_stats (const SimPageAlloc *pa)
{
  g_return_val_if_fail (pa != NULL, NULL);
  return &pa->stats;
}

guint64
sim_page_allocated (const SimPageAlloc *pa)
{
  g_return_val_if_fail (pa != NULL, 0);
  return pa->allocated_pages;
}

/* ---- Set-up. ---- */

static guint
pa_fls (guint64 x)
{
  guint n = 0;
  while (x)
    {
      n++;
      x >>= 1;
    }
  return n;
}

static guint64
pa_int_sqrt (guint64 x)
{
  guint64 r = 0, bit = 1ull << 62;
  while (bit > x)
    bit >>= 2;
  while (bit)
    {
      if (x >= r + bit)
        {
          x -= r + bit;
          r = (r >> 1) + bit;
        }
      else
        r >>= 1;
      bit >>= 2;
    }
  return r;
}

/* zone_batchsize of the era. */
static gint
pa_zone_batchsize (SimPageEra era, guint64 pages)
{
  guint64 b;
  if (era == SIM_PAGE_ERA_6_18)
    b = MIN (pages >> 10, (1024 * 1024) / SIM_PAGE_SIZE);
  else
    b = MIN (pages / 1024, (512 * 1024) / SIM_PAGE_SIZE);
  b /= 4;
  if (b < 1)
    b = 1;
  /* rounddown_pow_of_two(b + b/2) - 1; 2.6.x writes it with fls(). */
  return (gint) ((1ull << (pa_fls (b + b / 2) - 1)) - 1);
}

/* CPUs sharing one instance of the last cache level (6.18 cacheinfo's
 * per_cpu_data_slice_size = LLC size / CPUs sharing it). */
static guint64
pa_llc_slice (const SimMachine *m)
{
  if (m->n_levels == 0)
    return 0;
  const SimCacheLevelSpec *l = &m->levels[m->n_levels - 1];
  guint cores = l->shared_cores == 0 ? m->cores_per_socket : l->shared_cores;
  guint cpus = MAX (1u, cores * MAX (1u, m->threads_per_core));
  return l->size / cpus;
}

static void
pa_zone_layout (SimPageAlloc *pa, PaZone *z)
{
  guint mts = pa->era == SIM_PAGE_ERA_2_6_23 ? 1 : 5;   /* MIGRATE_TYPES */
  z->free_area_stride = 16 * mts + 8;
  SimAddr zone = sim_page_static_alloc (pa, z->node, 64, 64);
  z->zone_addr = zone;
  if (pa->era == SIM_PAGE_ERA_6_18)
    {
      z->pageset_ptr = sim_page_static_alloc (pa, z->node, 64, 64);
      /* CACHELINE_PADDING, then free_area[], then flags and lock. */
      guint64 fa = (guint64) z->free_area_stride * PA_MAX_ORDER;
      z->free_area_addr = sim_page_static_alloc (pa, z->node, fa + 16, 64);
      z->lock_addr = z->free_area_addr + fa + 8;
    }
  else
    {
      z->pageset_ptr = sim_page_static_alloc (pa, z->node, 8 * (guint64) pa->n_cpus, 64);
      /* lock, then free_area[] on the same lines. */
      guint64 fa = (guint64) z->free_area_stride * PA_MAX_ORDER;
      z->lock_addr = sim_page_static_alloc (pa, z->node, 8 + fa, 64);
      z->free_area_addr = z->lock_addr + 8;
    }
}

static void
pa_watermarks (SimPageAlloc *pa)
{
  /* calculate_min_free_kbytes and __setup_per_zone_wmarks (6.18): only
   * the low watermark is used, for the pcp's high_min. */
  guint64 total_pages = (guint64) pa->n_nodes * pa->zones[0].n_frames;
  guint64 kbytes = total_pages * (SIM_PAGE_SIZE >> 10);
  guint64 min_kb = CLAMP (pa_int_sqrt (kbytes * 16), 128, 262144);
  guint64 pages_min = min_kb >> (SIM_PAGE_SHIFT - 10);
  for (guint n = 0; n < pa->n_nodes; n++)
    {
      PaZone *z = &pa->zones[n];
      guint64 tmp = pages_min * z->n_frames / total_pages;
      guint64 gap = MAX (tmp >> 2, (guint64) z->n_frames * PA_WMARK_SCALE / 10000);
      z->low_wmark = tmp + gap;
    }
}

SimPageAlloc *
sim_page_alloc_new (const SimMachine *m, SimMemSys *mem, const SimPageParams *p,
                    GError **error)
{
  g_return_val_if_fail (m != NULL && mem != NULL && p != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  guint64 managed = p->managed_bytes ? p->managed_bytes : PA_DEFAULT_MANAGED;
  guint64 stat = p->static_bytes;
  if (stat == 0)
    {
      guint nodes = m->numa ? MAX (1u, m->sockets) : 1;
      guint64 cpus_per_node = (m->n_cpus + nodes - 1) / nodes;
      stat = MAX (PA_DEFAULT_STATIC, PA_STATIC_BASE + cpus_per_node * PA_STATIC_PER_CPU);
    }
  if (p->era > SIM_PAGE_ERA_6_18)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "page allocator: unknown era %d", (int) p->era);
      return NULL;
    }
  if (managed % PA_BLOCK_BYTES != 0 || managed / SIM_PAGE_SIZE > G_MAXUINT32 / 2)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "page allocator: managed memory per node (%" G_GUINT64_FORMAT
                   " bytes) must be a multiple of 4 MiB (an order-10 block) "
                   "and below 8 TiB", managed);
      return NULL;
    }
  stat = (stat + PA_BLOCK_BYTES - 1) / PA_BLOCK_BYTES * PA_BLOCK_BYTES;
  /* memmap covering [base, base + memmap + static + managed). */
  guint64 memmap = ((stat + managed) / (SIM_PAGE_SIZE / SIM_STRUCT_PAGE_SIZE - 1) + 1
                    + PA_BLOCK_BYTES - 1) / PA_BLOCK_BYTES * PA_BLOCK_BYTES;
  guint64 node_span = memmap + stat + managed;
  guint n_nodes = m->numa ? MAX (1u, m->sockets) : 1;
  guint64 room = m->numa ? m->node_bytes : m->node_bytes * MAX (1u, m->sockets);
  if (m->n_cpus == 0 || m->cpus == NULL)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                   "page allocator: machine %s has no CPUs",
                   m->name ? m->name : "(unnamed)");
      return NULL;
    }
  if (room < node_span)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                   "page allocator: machine %s has %" G_GUINT64_FORMAT
                   " bytes per node, but the page allocator needs %" G_GUINT64_FORMAT
                   " (memmap %" G_GUINT64_FORMAT " + static %" G_GUINT64_FORMAT
                   " + managed %" G_GUINT64_FORMAT ")",
                   m->name ? m->name : "(unnamed)", room, node_span, memmap, stat,
                   managed);
      return NULL;
    }

  SimPageAlloc *pa = g_new0 (SimPageAlloc, 1);
  static const char *const tables[] = {
    [SIM_PAGE_ERA_2_6_23] = "page-2.6.23",
    [SIM_PAGE_ERA_2_6_32] = "page-2.6.32",
    [SIM_PAGE_ERA_6_18]   = "page-6.18",
  };
  if (!sim_paths_load (tables[p->era], path_keys, N_PATHS, pa->path, error))
    {
      g_free (pa);
      return NULL;
    }
  pa->m = m;
  pa->mem = mem;
  pa->era = p->era;
  pa->n_nodes = n_nodes;
  pa->n_cpus = m->n_cpus;
  if (!m->numa)
    {
      pa->node_shift = 63;
      pa->node_mask = 0;
    }
  else if (m->node_bytes > 1 && (m->node_bytes & (m->node_bytes - 1)) == 0
           && (n_nodes & (n_nodes - 1)) == 0)
    {
      pa->node_shift = (guint) __builtin_ctzll (m->node_bytes);
      pa->node_mask = n_nodes - 1;
    }
  pa->managed_bytes = managed;
  pa->static_bytes = stat;
  pa->zones = g_new0 (PaZone, n_nodes);
  pa->pcp = g_new0 (PaPcp, (gsize) m->n_cpus * n_nodes * 2);

  /* Boot-time frees leave the order-10 blocks in ascending order from the
   * tail in 2.6.x (each merged block lands at the head, the highest last)
   * and from the head in 6.18 (__free_pages_core uses FPI_TO_TAIL). */
  gboolean boot_to_tail = p->era == SIM_PAGE_ERA_6_18;

  for (guint n = 0; n < n_nodes; n++)
    {
      PaZone *z = &pa->zones[n];
      z->node = n;
      z->base = m->numa ? (SimAddr) n * m->node_bytes : 0;
      z->static_start = z->static_cur = z->base + memmap;
      z->static_end = z->static_start + stat;
      z->managed_start = z->static_end;
      z->n_frames = (guint32) (managed / SIM_PAGE_SIZE);
      z->state = g_new0 (guint8, z->n_frames);
      z->next = g_new (guint32, z->n_frames);
      z->prev = g_new (guint32, z->n_frames);
      for (guint o = 0; o < PA_MAX_ORDER; o++)
        z->free_list[o] = (PaList) { PA_NIL, PA_NIL, 0 };
      z->lock_name = g_strdup_printf ("zone-lock-node%u", n);
      sim_lock_init (&z->lock, z->lock_name);
      pa_zone_layout (pa, z);

      guint top = PA_MAX_ORDER - 1;
      PaList *l = &z->free_list[top];
      for (guint32 f = 0; f < z->n_frames; f += 1u << top)
        {
          /* Host-only: no simulated traffic for boot. */
          z->state[f] = ST_MAKE (PA_ST_FREE, top, FALSE);
          pa_link (z, l, f, boot_to_tail);
          z->nr_free_pages += 1u << top;
        }
    }

  pa_watermarks (pa);
  guint64 slice = pa_llc_slice (m);
  for (guint n = 0; n < n_nodes; n++)
    {
      PaZone *z = &pa->zones[n];
      guint split = 0;
      for (guint c = 0; c < m->n_cpus; c++)
        if (pa_cpu_node (pa, c) == n)
          split++;
      if (split == 0)
        split = m->n_cpus;
      z->batch = pa_zone_batchsize (p->era, z->n_frames);
      if (p->era == SIM_PAGE_ERA_6_18)
        z->batch = MAX (1, z->batch);
      z->high_min = (gint) MAX (z->low_wmark / split, 4 * (guint64) z->batch);
      z->high_max = (gint) MAX ((guint64) z->n_frames / PA_HIGH_FRACTION / split,
                                4 * (guint64) z->batch);
    }

  /* Per-CPU pagesets: in each CPU's per-CPU area, on the CPU's node. */
  for (guint c = 0; c < m->n_cpus; c++)
    for (guint n = 0; n < n_nodes; n++)
      {
        PaZone *z = &pa->zones[n];
        guint cn = pa_cpu_node (pa, c);
        for (guint w = 0; w < 2; w++)
          {
            PaPcp *pp = pa_pcp (pa, c, n, w);
            for (guint i = 0; i < PA_PCP_ORDERS_618; i++)
              pp->lists[i] = (PaList) { PA_NIL, PA_NIL, 0 };
            /* setup_pageset: batch = max(1, batch) (2.6.x); 6.18 takes
             * max(1, zone_batchsize()) before computing high. */
            pp->batch = MAX (1, z->batch);
          }
        PaPcp *hot = pa_pcp (pa, c, n, 0), *cold = pa_pcp (pa, c, n, 1);
        switch (p->era)
          {
          case SIM_PAGE_ERA_2_6_23:
            hot->addr = sim_page_static_alloc (pa, cn, 64, 64);
            cold->addr = hot->addr + 32;
            hot->high = 6 * z->batch;
            cold->high = 2 * z->batch;
            cold->batch = MAX (1, z->batch / 2);
            break;
          case SIM_PAGE_ERA_2_6_32:
            hot->addr = sim_page_static_alloc (pa, cn, 64, 64);
            hot->high = 6 * z->batch;
            break;
          case SIM_PAGE_ERA_6_18:
          default:
            hot->addr = sim_page_static_alloc (pa, cn, PCP618_SIZE, 64);
            hot->high_min = z->high_min;
            hot->high_max = z->high_max;
            hot->high = z->high_min;
            if ((slice >> SIM_PAGE_SHIFT) > 3 * (guint64) z->batch)
              hot->flags |= PA_PCPF_FREE_HIGH_BATCH;
            break;
          }
      }
  return pa;
}

void
sim_page_alloc_free (SimPageAlloc *pa)
{
  if (pa == NULL)
    return;
  for (guint n = 0; n < pa->n_nodes; n++)
    {
      g_free (pa->zones[n].state);
      g_free (pa->zones[n].next);
      g_free (pa->zones[n].prev);
      g_free (pa->zones[n].lock_name);
    }
  g_free (pa->zones);
  g_free (pa->pcp);
  g_free (pa);
}

/* ---- Introspection for tests and reports. ---- */

guint64
sim_page_nr_free (const SimPageAlloc *pa, guint node, guint order)
{
  g_return_val_if_fail (pa != NULL && node < pa->n_nodes && order < PA_MAX_ORDER, 0);
  return pa->zones[node].free_list[order].count;
}

SimAddr
sim_page_free_list_head (const SimPageAlloc *pa, guint node, guint order)
{
  g_return_val_if_fail (pa != NULL && node < pa->n_nodes && order < PA_MAX_ORDER, 0);
  const PaZone *z = &pa->zones[node];
  return z->free_list[order].head == PA_NIL ? 0 : pa_frame_addr (z, z->free_list[order].head);
}

gboolean
sim_page_pcp_info (const SimPageAlloc *pa, guint cpu, guint node, SimPagePcpInfo *out)
{
  g_return_val_if_fail (pa != NULL && out != NULL, FALSE);
  g_return_val_if_fail (cpu < pa->n_cpus && node < pa->n_nodes, FALSE);
  const PaPcp *p = &pa->pcp[((gsize) cpu * pa->n_nodes + node) * 2];
  const PaZone *z = &pa->zones[node];
  *out = (SimPagePcpInfo) {
    .count = p->count, .high = p->high, .batch = p->batch,
    .high_min = p->high_min, .high_max = p->high_max,
    .alloc_factor = p->alloc_factor, .free_count = p->free_count,
    .cold_count = p[1].count, .cold_high = p[1].high, .cold_batch = p[1].batch,
    .addr = p->addr,
  };
  for (guint i = 0; i < SIM_PAGE_PCP_ORDERS; i++)
    {
      out->list_len[i] = p->lists[i].count;
      out->list_head[i] = p->lists[i].head == PA_NIL ? 0 : pa_frame_addr (z, p->lists[i].head);
      out->list_tail[i] = p->lists[i].tail == PA_NIL ? 0 : pa_frame_addr (z, p->lists[i].tail);
    }
  return TRUE;
}

SimAddr
sim_page_zone_lock_addr (const SimPageAlloc *pa, guint node)
{
  g_return_val_if_fail (pa != NULL && node < pa->n_nodes, 0);
  return pa->zones[node].lock_addr;
}

guint
sim_page_n_nodes (const SimPageAlloc *pa)
{
  g_return_val_if_fail (pa != NULL, 0);
  return pa->n_nodes;
}

void
sim_page_test_corrupt (SimPageAlloc *pa, SimAddr addr)
{
  g_return_if_fail (pa != NULL);
  guint32 f;
  PaZone *z = pa_zone_of (pa, addr, &f);
  g_return_if_fail (z != NULL);
  /* Mark the frame as the head of an allocated order-0 page without
   * taking it off any list: the state every check must catch. */
  z->state[f] = ST_MAKE (PA_ST_ALLOC, 0, FALSE);
}

/* ---- Invariant check (O(frames): tests and debugging only). ---- */

static gboolean
pa_check_list (const PaZone *z, const PaList *l, guint8 *cover, guint kind,
               gint order_or_any, const char *what, guint64 *pages, GError **error)
{
  guint32 n = 0, prev = PA_NIL;
  for (guint32 f = l->head; f != PA_NIL; f = z->next[f])
    {
      if (f >= z->n_frames || n > z->n_frames)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT, "node %u %s: broken link", z->node, what);
          return FALSE;
        }
      if (z->prev[f] != prev)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT, "node %u %s: frame %u prev link wrong",
                       z->node, what, f);
          return FALSE;
        }
      guint8 st = z->state[f];
      guint o = ST_ORDER (st);
      if (ST_KIND (st) != kind || (order_or_any >= 0 && o != (guint) order_or_any))
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "node %u %s: frame %u has state 0x%02x", z->node, what, f, st);
          return FALSE;
        }
      if ((f & ((1u << o) - 1)) != 0 || f + (1u << o) > z->n_frames)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT, "node %u %s: frame %u misaligned for order %u",
                       z->node, what, f, o);
          return FALSE;
        }
      for (guint32 i = f; i < f + (1u << o); i++)
        {
          if (cover[i])
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "node %u %s: frame %u is in two blocks", z->node, what, i);
              return FALSE;
            }
          cover[i] = i == f ? 3 : 1;
        }
      *pages += 1u << o;
      prev = f;
      n++;
    }
  if (prev != l->tail || n != l->count)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT, "node %u %s: %u blocks linked, count says %u",
                   z->node, what, n, l->count);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_page_check (const SimPageAlloc *pa, GError **error)
{
  g_return_val_if_fail (pa != NULL, FALSE);
  guint64 alloc_pages = 0;
  for (guint n = 0; n < pa->n_nodes; n++)
    {
      const PaZone *z = &pa->zones[n];
      g_autofree guint8 *cover = g_new0 (guint8, z->n_frames);
      guint64 free_pages = 0;
      for (guint o = 0; o < PA_MAX_ORDER; o++)
        {
          char what[32];
          g_snprintf (what, sizeof what, "free_area[%u]", o);
          if (!pa_check_list (z, &z->free_list[o], cover, PA_ST_FREE, (gint) o, what,
                              &free_pages, error))
            return FALSE;
        }
      if (free_pages != z->nr_free_pages)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                       "node %u: %" G_GUINT64_FORMAT " pages on free lists, nr_free says %"
                       G_GUINT64_FORMAT, n, free_pages, z->nr_free_pages);
          return FALSE;
        }
      /* A free block must not have a free buddy of the same order. */
      for (guint o = 0; o + 1 < PA_MAX_ORDER; o++)
        for (guint32 f = z->free_list[o].head; f != PA_NIL; f = z->next[f])
          if (z->state[f ^ (1u << o)] == ST_MAKE (PA_ST_FREE, o, FALSE))
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "node %u: free buddies %u and %u of order %u not merged",
                           n, f, f ^ (1u << o), o);
              return FALSE;
            }
      for (guint c = 0; c < pa->n_cpus; c++)
        for (guint w = 0; w < 2; w++)
          {
            const PaPcp *p = &pa->pcp[((gsize) c * pa->n_nodes + n) * 2 + w];
            guint64 pages = 0;
            for (guint i = 0; i < PA_PCP_ORDERS_618; i++)
              {
                char what[48];
                g_snprintf (what, sizeof what, "cpu %u pcp%s list %u", c, w ? " cold" : "", i);
                if (!pa_check_list (z, &p->lists[i], cover, PA_ST_PCP,
                                    pa->era == SIM_PAGE_ERA_6_18 ? (gint) i : 0,
                                    what, &pages, error))
                  return FALSE;
              }
            if (pages != (guint64) p->count)
              {
                g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                             "node %u cpu %u pcp: %" G_GUINT64_FORMAT " pages listed, count %d",
                             n, c, pages, p->count);
                return FALSE;
              }
          }
      /* Allocated blocks: every head covers its frames, tails agree. */
      for (guint32 f = 0; f < z->n_frames; f++)
        {
          guint8 st = z->state[f];
          guint k = ST_KIND (st), o = ST_ORDER (st);
          if (k == PA_ST_ALLOC)
            {
              if ((f & ((1u << o) - 1)) != 0 || f + (1u << o) > z->n_frames)
                {
                  g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                               "node %u: allocated frame %u misaligned for order %u", n, f, o);
                  return FALSE;
                }
              for (guint32 i = f; i < f + (1u << o); i++)
                {
                  if (cover[i])
                    {
                      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                                   "node %u: frame %u is both allocated and free", n, i);
                      return FALSE;
                    }
                  if (i > f && ST_COMP (st) && z->state[i] != ST_MAKE (PA_ST_TAIL, o, TRUE))
                    {
                      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                                   "node %u: compound tail %u of %u wrong", n, i, f);
                      return FALSE;
                    }
                  cover[i] = 2;
                }
              alloc_pages += 1u << o;
            }
          else if (k == PA_ST_FREE && cover[f] != 3)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "node %u: frame %u marked free but on no list", n, f);
              return FALSE;
            }
          else if (k == PA_ST_PCP && cover[f] != 3)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "node %u: frame %u marked pcp but on no list", n, f);
              return FALSE;
            }
        }
      for (guint32 f = 0; f < z->n_frames; f++)
        if (!cover[f])
          {
            g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                         "node %u: frame %u is neither free nor allocated", n, f);
            return FALSE;
          }
    }
  if (alloc_pages != pa->allocated_pages)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                   "%" G_GUINT64_FORMAT " pages allocated, the counter says %" G_GUINT64_FORMAT,
                   alloc_pages, pa->allocated_pages);
      return FALSE;
    }
  return TRUE;
}

SimPageEra
sim_page_era_for_kernel (const char *kernel)
{
  if (kernel == NULL)
    return SIM_PAGE_ERA_6_18;
  if (g_str_has_prefix (kernel, "2.6.2") || g_str_has_prefix (kernel, "2.6.1"))
    return SIM_PAGE_ERA_2_6_23;
  if (g_str_has_prefix (kernel, "2.6.") || g_str_has_prefix (kernel, "3.")
      || g_str_has_prefix (kernel, "4."))
    return SIM_PAGE_ERA_2_6_32;
  return SIM_PAGE_ERA_6_18;
}
