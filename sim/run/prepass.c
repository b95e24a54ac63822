/* prepass.c - the page classes, untraced frees and warm set from one
 * decode; see prepass.h. */
#include "sim/run/prepass.h"

#include <string.h>

gboolean
sim_prepass_read (SimTraceStream *stream, const SimPrepassOptions *opt, SimPrepass *out,
                  GError **error)
{
  memset (out, 0, sizeof *out);
  const SimTraceStrings *strs = sim_trace_stream_strings (stream);
  SimPageClassCollector *pc = sim_page_class_collector_new (&out->pages);
  SimUntracedCollector *uc = sim_untraced_collector_new (opt->grace_period_ns);
  SimWarmCollector *wc = opt->warm ? sim_warm_collector_new () : NULL;
  const SimTraceEvent *ev;
  guint n;
  GError *local = NULL;
  while (sim_trace_stream_next (stream, &ev, &n, &local))
    {
      sim_page_class_collector_feed (pc, strs, ev, n);
      sim_untraced_collector_feed (uc, strs, ev, n);
      if (wc)
        sim_warm_collector_feed (wc, strs, ev, n);
      if (opt->info)
        sim_trace_info_add (opt->info, ev, n);
    }
  sim_page_class_collector_finish (pc);
  if (local)
    {
      sim_untraced_collector_free (uc);
      sim_warm_collector_free (wc);
      sim_prepass_clear (out);
      g_propagate_error (error, local);
      return FALSE;
    }
  sim_untraced_collector_finish (uc, &out->untraced);
  if (wc)
    {
      sim_warm_collector_finish (wc, &out->warm);
      out->have_warm = TRUE;
    }
  return TRUE;
}

void
sim_prepass_clear (SimPrepass *p)
{
  sim_page_class_clear (&p->pages);
  sim_untraced_set_clear (&p->untraced);
  if (p->have_warm)
    sim_warm_set_clear (&p->warm);
  memset (p, 0, sizeof *p);
}
