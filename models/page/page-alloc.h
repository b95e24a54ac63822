/* page-alloc.h - the simulated page allocator and physical memory map.
 *
 * It owns simulated physical memory: for each NUMA node of the machine a
 * contiguous range [node * node_bytes, node * node_bytes + managed bytes)
 * holding, in order,
 *   - the node's memmap: one struct page (SIM_STRUCT_PAGE_SIZE bytes) per
 *     page frame of the node, so sim_page_struct() is plain arithmetic and
 *     the struct page of a page lives on the page's own node;
 *   - a static area for kernel data the models place with
 *     sim_page_static_alloc(): struct kmem_cache, per-CPU areas, zone and
 *     per-CPU pageset structures, list heads (bump allocated, never freed);
 *   - the buddy-managed page frames.
 * The allocator follows mm/page_alloc.c of the selected era: a buddy
 * allocator per zone under zone->lock and per-CPU pagesets (2.6.2x:
 * order-0 hot/cold lists with high/batch; 6.18: lists for orders 0..3 with
 * batch and high), compound-page setup that touches each tail struct page,
 * and zeroing for __GFP_ZERO.  Every access it makes goes through SimOp to
 * the cache model.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc.h"
#include "sim/config/machine.h"

G_BEGIN_DECLS

#define SIM_STRUCT_PAGE_SIZE 64

typedef enum {
  SIM_PAGE_ERA_2_6_23,     /* order-0 hot/cold pcp lists, no migratetypes */
  SIM_PAGE_ERA_2_6_32,     /* one pcp with per-migratetype lists, order 0 */
  SIM_PAGE_ERA_6_18,       /* pcp lists for orders 0..3 */
} SimPageEra;

/* The pageset era of a kernel version ("2.6.23", "2.6.34", "6.18", ...):
 * 2.6.1x-2.6.2x hot/cold order-0 lists, 2.6.3x-4.x per-migratetype
 * order-0 lists, newer kernels lists up to order 3. */
SimPageEra sim_page_era_for_kernel (const char *kernel);

typedef struct {
  SimPageEra era;
  guint64    managed_bytes;  /* per node, page-frame area; default 1 GiB;
                                a multiple of 4 MiB (an order-10 block) */
  guint64    static_bytes;   /* per node, static area; default 16 MiB, or
                                4 MiB + 128 KiB per CPU of the node when
                                that is more (rounded up to 4 MiB) */
} SimPageParams;

typedef struct SimPageAlloc SimPageAlloc;

/* Counters (one list: names printed by reports come from here). */
#define SIM_PAGE_STATS(X)                                                    \
  X (alloc,                 "alloc")           /* page allocations (any order) */ \
  X (free,                  "free")                                          \
  X (alloc_failed,          "alloc_failed")                                  \
  X (pcp_hits,              "pcp_hits")        /* served from a pcp list */  \
  X (pcp_refills,           "pcp_refills")     /* rmqueue_bulk calls */      \
  X (pcp_drains,            "pcp_drains")      /* free_pcppages_bulk calls */ \
  X (buddy_allocs,          "buddy_allocs")    /* blocks taken from buddy */ \
  X (buddy_frees,           "buddy_frees")     /* blocks returned to buddy */ \
  X (buddy_merges,          "buddy_merges")                              \
  X (buddy_splits,          "buddy_splits")                              \
  X (zone_lock_acquisitions,"zone_lock_acquisitions")                    \
  X (zone_lock_wait_cycles, "zone_lock_wait_cycles")                     \
  X (pages_zeroed,          "pages_zeroed")                              \
  X (pages_peak,            "pages_peak")      /* most pages allocated at once */ \
  X (pages_in_use,          "pages_in_use")    /* allocated now (at the end: end of run) */

typedef struct {
#define SIM_PAGE_STAT_FIELD(f, name) guint64 f;
  SIM_PAGE_STATS (SIM_PAGE_STAT_FIELD)
#undef SIM_PAGE_STAT_FIELD
} SimPageStats;

SimPageAlloc *sim_page_alloc_new   (const SimMachine *m, SimMemSys *mem,
                                    const SimPageParams *p, GError **error);
void          sim_page_alloc_free  (SimPageAlloc *pa);

/* Allocate 2^@order contiguous pages on @node (SIM_NUMA_NO_NODE: the
 * CPU's node; other nodes are tried next unless SIM_GFP_THISNODE; node
 * numbers past the last node wrap) for op->cpu.  @gfp: SIM_GFP_* bits;
 * SIM_GFP_ZERO zeroes the pages; SIM_GFP_WAIT lets a failing allocation
 * drain every CPU's pagesets and retry; @compound sets up a compound page
 * (head + tails) when order > 0.  Returns the physical address of the
 * first page, 0 when no memory is left (counted in alloc_failed). */
SimAddr sim_page_alloc   (SimPageAlloc *pa, SimOp *op, guint order, gint node,
                          guint32 gfp, gboolean compound);
void    sim_page_free    (SimPageAlloc *pa, SimOp *op, SimAddr addr, guint order);

/* An observer of the page allocator's decisions, as the kernel's page
 * tracepoints would print them: every block handed out (mm_page_alloc) or
 * given back (mm_page_free) by sim_page_alloc / sim_page_free, and every
 * block a pcp drain returns to the buddy lists (mm_page_pcpu_drain, once per
 * block).  The replay uses it to compare with a recording and to emit a
 * trace (sim/run/replay.c); it must not call back into the allocator. */
typedef enum {
  SIM_PAGE_EV_ALLOC,
  SIM_PAGE_EV_FREE,
  SIM_PAGE_EV_PCP_DRAIN,
} SimPageEvent;

typedef void (*SimPageObserver) (SimPageEvent ev, guint cpu, SimAddr addr, guint order,
                                 gpointer data);
/* Set (or with @fn NULL clear) the observer. */
void sim_page_set_observer (SimPageAlloc *pa, SimPageObserver fn, gpointer data);

/* Address of the struct page describing the page that holds @addr. */
SimAddr sim_page_struct  (const SimPageAlloc *pa, SimAddr addr);
/* The head page's address for any address inside a compound page
 * allocated by sim_page_alloc (virt_to_head_page); the page itself
 * otherwise. */
SimAddr sim_page_head    (const SimPageAlloc *pa, SimAddr addr);
guint   sim_page_node_of (const SimPageAlloc *pa, SimAddr addr);
/* sim_page_head (@addr), with sim_page_struct (@addr) in *@page_struct and
 * sim_page_struct of the head in *@head_struct: virt_to_head_page's
 * lookups in one call. */
SimAddr sim_page_head_structs (const SimPageAlloc *pa, SimAddr addr, SimAddr *page_struct,
                               SimAddr *head_struct);

/* Static kernel data on @node (numbers past the last node wrap: without
 * NUMA everything is on node 0), aligned to @align (a power of two).
 * Never freed; exhausting the static area is a programmer error
 * (g_critical, returns 0). */
SimAddr sim_page_static_alloc (SimPageAlloc *pa, guint node, guint64 size, guint64 align);

const SimPageStats *sim_page_stats (const SimPageAlloc *pa);
/* Pages currently allocated (not free in buddy or pcp lists). */
guint64 sim_page_allocated (const SimPageAlloc *pa);
/* Invariant check: buddy lists consistent, no page both free and
 * allocated, counts add up. */
gboolean sim_page_check (const SimPageAlloc *pa, GError **error);

/* Introspection for tests and reports (no simulated traffic). */
#define SIM_PAGE_MAX_ORDER  11   /* orders 0..10 */
#define SIM_PAGE_PCP_ORDERS 4    /* 6.18 pcp lists for orders 0..3 */

typedef struct {
  SimAddr addr;                  /* simulated struct per_cpu_pages */
  gint    count, high, batch;    /* the (hot) pcp */
  gint    high_min, high_max;    /* 6.18 */
  gint    alloc_factor, free_count;
  gint    cold_count, cold_high, cold_batch;   /* 2.6.23 cold pcp */
  guint   list_len[SIM_PAGE_PCP_ORDERS];       /* blocks per list: [0] in
                                                  2.6.x, [order] in 6.18 */
  SimAddr list_head[SIM_PAGE_PCP_ORDERS];      /* 0 when empty */
  SimAddr list_tail[SIM_PAGE_PCP_ORDERS];
} SimPagePcpInfo;

guint    sim_page_n_nodes        (const SimPageAlloc *pa);
/* Blocks on the buddy free list of @order on @node, and its head block. */
guint64  sim_page_nr_free        (const SimPageAlloc *pa, guint node, guint order);
SimAddr  sim_page_free_list_head (const SimPageAlloc *pa, guint node, guint order);
/* @cpu's pageset for @node's zone. */
gboolean sim_page_pcp_info       (const SimPageAlloc *pa, guint cpu, guint node,
                                  SimPagePcpInfo *out);
SimAddr  sim_page_zone_lock_addr (const SimPageAlloc *pa, guint node);
/* Test hook: corrupt the bookkeeping of the frame at @addr (marks it
 * allocated without unlinking it) so that sim_page_check must fail. */
void     sim_page_test_corrupt   (SimPageAlloc *pa, SimAddr addr);

G_END_DECLS
