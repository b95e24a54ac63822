/* decisions.h - what an allocator decided, read from a stream of kmem events.
 *
 * A trace recorded with unhashed pointers records the recording kernel's
 * allocator decisions (../shared/reference/validation.md); the replay's own
 * events (the model's addresses and page traffic) record the model's.  One
 * SimDecisions reads either stream the same way, so the two can be put side
 * by side (`slabsim validate`, docs/validation.md), and a trace emitted by
 * the replay reads back exactly as the replay saw it.
 *
 * Per cache it counts:
 *   new_slabs     an mm_page_alloc block (pfn, order) whose first slab
 *                 allocation on the allocating CPU lies in
 *                 [PAGE_OFFSET + (pfn << 12), + (4096 << order)): SLUB's
 *                 allocate_slab, a slab of order k covering 2^k pages;
 *   freed_slabs   mm_page_free of such a block's head pfn (free_slab);
 *   freed_old_slabs  mm_page_free of a block that held objects of the cache
 *                 but was allocated before recording started;
 *   lifo_reuse    allocations that return the object most recently freed to
 *                 this cache on this CPU (and not handed out since): the
 *                 per-CPU freelist or sheaf at work;
 *   same_slab     allocations from the slab of the previous allocation of
 *                 this cache on this CPU (runs through one slab);
 *   distinct_slabs  slabs any allocation came from.
 * and over the stream the pcp drains (mm_page_pcpu_drain, one per block).
 *
 * A slab that existed before the stream started is found from its objects:
 * its extent is guessed from the cache's order (that of its new slabs, else
 * 0), buddy blocks being aligned to their order.  Pointers outside the
 * direct map (hashed pointers, vmalloc) are counted as unplaced and take no
 * part in the slab metrics.  Objects freed that were never allocated are
 * counted (unknown_frees) and otherwise ignored.
 */
#pragma once

#include <glib.h>
#include "traces/stream.h"

G_BEGIN_DECLS

/* x86-64's direct map of physical memory (4-level paging: page_offset_base
 * and its 64 TiB), where a slab object's address lives and a page
 * allocation's pfn maps to */
#define SIM_DIRECT_MAP_BASE G_GUINT64_CONSTANT (0xffff888000000000)
#define SIM_DIRECT_MAP_END  G_GUINT64_CONSTANT (0xffffc88000000000)

static inline gboolean
sim_in_direct_map (guint64 ptr)
{
  return ptr >= SIM_DIRECT_MAP_BASE && ptr < SIM_DIRECT_MAP_END;
}

typedef struct {
  char   *name;
  guint64 allocs, frees;
  guint64 new_slabs, freed_slabs, freed_old_slabs;
  guint64 lifo_reuse, same_slab, distinct_slabs;
  guint64 unplaced;          /* allocations outside the direct map */
  guint64 implicit;          /* allocations of a pointer still live */
  gint    order;             /* order of its last new slab, -1 none seen */
} SimDecisionCache;

typedef struct {
  guint64 page_allocs, page_frees;
  guint64 pcp_drains;        /* blocks drained (mm_page_pcpu_drain events) */
  guint64 pcp_drain_pages;   /* pages in them */
  guint64 unknown_frees;
  guint64 unplaced;
} SimDecisionTotals;

typedef struct _SimDecisions SimDecisions;

SimDecisions *sim_decisions_new (void);
void sim_decisions_free (SimDecisions *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimDecisions, sim_decisions_free)

/* A slab allocation of @ptr (virtual, direct-map form) in cache @cache on
 * @cpu.  An allocation of a pointer still live frees it first on @cpu (the
 * untraced free the kernel made; traces/account.h). */
void sim_decisions_alloc     (SimDecisions *d, guint cpu, const char *cache, guint64 ptr);
void sim_decisions_obj_free  (SimDecisions *d, guint cpu, guint64 ptr);
void sim_decisions_page_alloc (SimDecisions *d, guint cpu, guint64 pfn, guint order);
void sim_decisions_page_free (SimDecisions *d, guint64 pfn, guint order);
void sim_decisions_pcp_drain (SimDecisions *d, guint order);

/* Feed one trace event (slab and page events; others are ignored).  The
 * cache is named by sim_decisions_cache_name. */
void sim_decisions_event (SimDecisions *d, const SimTraceStrings *r, const SimTraceEvent *ev);

/* The cache a trace event's object belongs to, as the 6.18 kernel names
 * it: name= for kmem_cache_alloc ("unnamed-<bytes_req>" without one); for
 * kmalloc the size class by bytes_alloc with the kernel's kmalloc_type
 * prefix (dma-kmalloc-, kmalloc-rcl-, kmalloc-cg- from __GFP_DMA,
 * __GFP_RECLAIMABLE, __GFP_ACCOUNT) and "kmalloc-large" above 8 KiB (page
 * allocations).  Returns @buf or the reader's string. */
const char *sim_decisions_cache_name (const SimTraceStrings *r, const SimTraceEvent *ev,
                                      char *buf, gsize n);

/* Record which page allocations became slabs: every call of
 * sim_decisions_page_alloc from now on has an ordinal (0, 1, ... in call
 * order; sim_decisions_event calls it for each mm_page_alloc with a pfn),
 * and when its block is claimed as a new slab (or a large kmalloc's pages)
 * ordinal + 1 is added to @set (a g_direct_hash set of GSIZE_TO_POINTER,
 * owned by the caller).  The replay uses it to tell the recording kernel's
 * slab pages from the trace's other page traffic (sim/run/page-events.h). */
void sim_decisions_track_slab_pages (SimDecisions *d, GHashTable *set);

/* Keep only what decides which page allocations become slabs (the set of
 * sim_decisions_track_slab_pages, caches' orders and the page counts):
 * the per-cache metrics, frees and unplaced/unknown counts are then not
 * kept.  For a caller that wants nothing else (the replay's pre-pass,
 * sim/run/page-events.c): it saves a live-object map. */
void sim_decisions_slab_pages_only (SimDecisions *d);

/* The caches, sorted by name (valid until the next call that feeds). */
const SimDecisionCache *sim_decisions_caches (SimDecisions *d, guint *n);
const SimDecisionCache *sim_decisions_cache (SimDecisions *d, const char *name);
const SimDecisionTotals *sim_decisions_totals (SimDecisions *d);

G_END_DECLS
