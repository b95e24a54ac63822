/* warm.h - the objects a trace frees but never allocated ("--warm
 * unknown-frees").
 *
 * They existed before recording started.  A cold model skips their frees,
 * so it never gets their slots back and takes new slabs the recording
 * kernel did not need.  A warm start allocates them in the model before the
 * replay, so their frees are replayed.  Layout (sim/run/replay.c): per cache,
 * in address order, each on the CPU that later frees it.  Objects that
 * shared a slab in the recording kernel then share one in the model, and
 * the slabs they fill are full, as most of a long-running kernel's slabs
 * are (its partial lists hold the few exceptions, which the trace cannot
 * tell apart from the objects live throughout and never seen).
 *
 * The cache of a kmem_cache_free comes from its name= (sizes from the
 * cache's allocations in the trace); a kfree carries neither name nor
 * size, so it is placed by the page it lies in: the cache (or kmalloc size
 * class) of the trace's other allocations in that page.  Objects with no
 * such evidence, and frees from the allocator's own functions
 * (traces/internal.h), are left out and counted.
 */
#pragma once

#include <glib.h>
#include "traces/stream.h"

G_BEGIN_DECLS

typedef struct {
  guint64 ptr;
  guint   cpu;               /* of the free */
  char   *cache;             /* kmem_cache name, NULL for a kmalloc */
  guint64 bytes_req, bytes_alloc;
  guint32 gfp;               /* SIM_GFP bits of an allocation of that class */
} SimWarmObject;

typedef struct {
  GArray *objects;           /* SimWarmObject, sorted by (cache, ptr) */
  guint64 unplaced;          /* unknown frees with no cache evidence */
} SimWarmSet;

/* The pass, fed by the caller with the trace's events in order (the
 * replay's one decode, sim/run/prepass.h). */
typedef struct _SimWarmCollector SimWarmCollector;
SimWarmCollector *sim_warm_collector_new (void);
void sim_warm_collector_feed (SimWarmCollector *w, const SimTraceStrings *strs,
                              const SimTraceEvent *ev, guint n);
/* The set (sorted) into @out; frees @w. */
void sim_warm_collector_finish (SimWarmCollector *w, SimWarmSet *out);
void sim_warm_collector_free (SimWarmCollector *w);

/* Read @trace once (its own decode) and collect its warm objects. */
gboolean sim_warm_collect (const char *trace, gboolean lenient, SimWarmSet *out, GError **error);
void sim_warm_set_clear (SimWarmSet *s);

G_END_DECLS
