/* page-events.h - the trace's page traffic that is not the recording
 * kernel's slab pages (run --page-events replay, the default).
 *
 * A kmem trace's mm_page_alloc / mm_page_free events are of two kinds:
 *   - slab pages: the block SLUB's allocate_slab took for a new slab (or a
 *     large kmalloc's pages), found as in traces/decisions.h (the first slab
 *     allocation on the allocating CPU lies in the block).  The model takes
 *     and frees its own slab pages, so these are not replayed;
 *   - the rest: page cache, anonymous pages, page tables, pipe buffers...
 *     They share the pcp lists and the zone lock with the slab pages, so
 *     the replay allocates and frees them through the model's page
 *     allocator, on the event's CPU, with the event's order and __GFP_ZERO /
 *     __GFP_COMP, unless --page-events ignore.
 * Telling the two apart needs the allocations that follow a page event, so
 * a first pass over the trace (this module) collects the ordinals of the
 * mm_page_alloc events that became slabs; the replay counts mm_page_alloc
 * events (those with a pfn) in the same order.
 */
#pragma once

#include <glib.h>
#include "traces/stream.h"

G_BEGIN_DECLS

typedef struct {
  GHashTable *slab_allocs;        /* ordinal + 1 of each slab-page mm_page_alloc (a set) */
  guint64 page_allocs;            /* mm_page_alloc events with a pfn */
  /* Or (slab_allocs NULL) the answers for one chunk of the trace, the
   * pipelined run's (sim/run/prepass.h): ordinals base .. base + n - 1,
   * slab[i] != 0 for a slab page. */
  guint64 base, n;
  const guint8 *slab;
} SimPageClass;

/* The pass, fed by the caller with the trace's events in order (the
 * replay's one decode, sim/run/prepass.h): @out is filled as it goes,
 * and complete after finish (which frees the collector). */
typedef struct _SimPageClassCollector SimPageClassCollector;
SimPageClassCollector *sim_page_class_collector_new (SimPageClass *out);
void sim_page_class_collector_feed (SimPageClassCollector *c, const SimTraceStrings *strs,
                                    const SimTraceEvent *ev, guint n);
void sim_page_class_collector_finish (SimPageClassCollector *c);
void sim_page_class_collector_free (SimPageClassCollector *c);

/* Read @trace once (its own decode) and classify its page allocations.
 * Errors are the reader's. */
gboolean sim_page_class_collect (const char *trace, gboolean lenient, SimPageClass *out,
                                 GError **error);
void     sim_page_class_clear   (SimPageClass *c);

/* Whether page allocation @ordinal (0-based, in trace order) was a slab's. */
static inline gboolean
sim_page_class_is_slab (const SimPageClass *c, guint64 ordinal)
{
  if (c->slab_allocs)
    return g_hash_table_contains (c->slab_allocs, GSIZE_TO_POINTER ((gsize) ordinal + 1));
  g_assert (ordinal >= c->base && ordinal - c->base < c->n);
  return c->slab[ordinal - c->base] != 0;
}

G_END_DECLS
