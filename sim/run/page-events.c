/* page-events.c - which page allocations of a trace were slab pages; see
 * page-events.h. */
#include "sim/run/page-events.h"
#include "traces/decisions.h"
#include "traces/reader.h"

#include <string.h>

gboolean
sim_page_class_collect (const char *trace, gboolean lenient, SimPageClass *out, GError **error)
{
  memset (out, 0, sizeof *out);
  out->slab_allocs = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (SimTraceReader) r = sim_trace_reader_open (trace, error);
  if (r == NULL)
    return FALSE;
  sim_trace_reader_set_lenient (r, lenient);
  /* The same reading validate's recorded side makes: a block is a slab
   * when its cache's first object lands in it on the allocating CPU. */
  g_autoptr (SimDecisions) d = sim_decisions_new ();
  sim_decisions_track_slab_pages (d, out->slab_allocs);
  SimTraceEvent ev;
  GError *local = NULL;
  while (sim_trace_reader_next (r, &ev, &local))
    sim_decisions_event (d, r, &ev);
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
