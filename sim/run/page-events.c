/* page-events.c - which page allocations of a trace were slab pages; see
 * page-events.h. */
#include "sim/run/page-events.h"
#include "traces/decisions.h"
#include "traces/stream.h"

#include <string.h>

gboolean
sim_page_class_collect (const char *trace, gboolean lenient, SimPageClass *out, GError **error)
{
  memset (out, 0, sizeof *out);
  out->slab_allocs = g_hash_table_new (g_direct_hash, g_direct_equal);
  SimTraceStreamOptions so = { .lenient = lenient };
  g_autoptr (SimTraceStream) st = sim_trace_stream_open (trace, &so, error);
  if (st == NULL)
    return FALSE;
  const SimTraceStrings *strs = sim_trace_stream_strings (st);
  /* The same reading validate's recorded side makes: a block is a slab
   * when its cache's first object lands in it on the allocating CPU. */
  g_autoptr (SimDecisions) d = sim_decisions_new ();
  sim_decisions_track_slab_pages (d, out->slab_allocs);
  const SimTraceEvent *evs;
  guint n;
  GError *local = NULL;
  while (sim_trace_stream_next (st, &evs, &n, &local))
    for (guint i = 0; i < n; i++)
      sim_decisions_event (d, strs, &evs[i]);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  out->page_allocs = sim_decisions_totals (d)->page_allocs;
  return TRUE;
}

void
sim_page_class_clear (SimPageClass *c)
{
  if (c->slab_allocs)
    g_hash_table_destroy (c->slab_allocs);
  memset (c, 0, sizeof *c);
}
