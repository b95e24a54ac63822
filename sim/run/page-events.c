/* page-events.c - which page allocations of a trace were slab pages; see
 * page-events.h. */
#include "sim/run/page-events.h"
#include "traces/decisions.h"
#include "traces/stream.h"

#include <string.h>

struct _SimPageClassCollector {
  SimDecisions *d;
  SimPageClass *out;
};

SimPageClassCollector *
sim_page_class_collector_new (SimPageClass *out)
{
  memset (out, 0, sizeof *out);
  out->slab_allocs = g_hash_table_new (g_direct_hash, g_direct_equal);
  SimPageClassCollector *c = g_new0 (SimPageClassCollector, 1);
  c->out = out;
  /* The same reading validate's recorded side makes: a block is a slab
   * when its cache's first object lands in it on the allocating CPU. */
  c->d = sim_decisions_new ();
  sim_decisions_track_slab_pages (c->d, out->slab_allocs);
  sim_decisions_slab_pages_only (c->d);
  return c;
}

void
sim_page_class_collector_feed (SimPageClassCollector *c, const SimTraceStrings *strs,
                               const SimTraceEvent *ev, guint n)
{
  for (guint i = 0; i < n; i++)
    sim_decisions_event (c->d, strs, &ev[i]);
}

void
sim_page_class_collector_free (SimPageClassCollector *c)
{
  if (c == NULL)
    return;
  sim_decisions_free (c->d);
  g_free (c);
}

void
sim_page_class_collector_finish (SimPageClassCollector *c)
{
  c->out->page_allocs = sim_decisions_totals (c->d)->page_allocs;
  sim_page_class_collector_free (c);
}

gboolean
sim_page_class_collect (const char *trace, gboolean lenient, SimPageClass *out, GError **error)
{
  memset (out, 0, sizeof *out);
  SimTraceStreamOptions so = { .lenient = lenient };
  g_autoptr (SimTraceStream) st = sim_trace_stream_open (trace, &so, error);
  if (st == NULL)
    return FALSE;
  SimPageClassCollector *c = sim_page_class_collector_new (out);
  const SimTraceEvent *evs;
  guint n;
  GError *local = NULL;
  while (sim_trace_stream_next (st, &evs, &n, &local))
    sim_page_class_collector_feed (c, sim_trace_stream_strings (st), evs, n);
  sim_page_class_collector_finish (c);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

void
sim_page_class_clear (SimPageClass *c)
{
  if (c->slab_allocs)
    g_hash_table_destroy (c->slab_allocs);
  memset (c, 0, sizeof *c);
}
