/* validate-report.c - text and JSON of `slabsim validate`; see
 * validate-report.h. */
#include "sim/report/validate-report.h"
#include "sim/core/json.h"

#include <string.h>

static guint64
pct10 (guint64 part, guint64 whole)
{
  /* tenths of a percent, rounded */
  return whole ? (part * 1000 + whole / 2) / whole : 0;
}

static void
fmt_pct (char *buf, gsize n, const SimDecisionCache *c, guint64 part)
{
  if (c == NULL || c->allocs == 0)
    g_strlcpy (buf, "-", n);
  else
    {
      guint64 t = pct10 (part, c->allocs);
      g_snprintf (buf, n, "%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, t / 10, t % 10);
    }
}

#define V(c, f) ((c) ? (c)->f : 0)

char *
sim_validate_summary (const SimValidation *v)
{
  const SimDecisionTotals *rt = sim_decisions_totals (v->rec);
  const SimDecisionTotals *ct = sim_decisions_totals (v->cold);
  const SimDecisionTotals *wt = sim_decisions_totals (v->warm);
  return g_strdup_printf ("validate %s: %s@%s on %s: %u busy caches (>= %d new slabs), new and "
                          "freed slabs within 3%% or 2 slabs: %u cold, %u warm; pcp drains "
                          "recorded %" G_GUINT64_FORMAT ", model %" G_GUINT64_FORMAT " cold / %"
                          G_GUINT64_FORMAT " warm",
                          v->trace, v->allocator, v->kernel, v->machine->name, v->busy,
                          SIM_VALIDATE_BUSY, v->agree_cold, v->agree_warm, rt->pcp_drains,
                          ct->pcp_drains, wt->pcp_drains);
}

char *
sim_validate_report_text (const SimValidation *v)
{
  GString *o = g_string_new (NULL);
  g_string_append_printf (o, "Validate %s against %s@%s on %s (%u CPUs)\n", v->trace,
                          v->allocator, v->kernel, v->machine->name, v->machine->n_cpus);
  g_string_append (o, "recorded: the kernel's decisions read from the trace; cold: the model "
                      "from empty; warm: with --warm unknown-frees\n\n");
  g_string_append_printf (o, "%-22s %8s | %6s %6s %6s | %6s %6s %6s | %5s %5s | %5s %5s | %5s %5s | %s\n",
                          "cache", "allocs", "new", "cold", "warm", "freed", "cold", "warm",
                          "lifo%", "model", "same%", "model", "slabs", "model", "agree");
  for (guint i = 0; i < v->rows->len; i++)
    {
      const SimValidateRow *r = &g_array_index (v->rows, SimValidateRow, i);
      guint64 allocs = r->rec ? r->rec->allocs : V (r->cold, allocs);
      if (allocs == 0 && V (r->cold, new_slabs) == 0 && V (r->rec, new_slabs) == 0)
        continue;
      char l1[16], l2[16], s1[16], s2[16];
      fmt_pct (l1, sizeof l1, r->rec, V (r->rec, lifo_reuse));
      fmt_pct (l2, sizeof l2, r->cold, V (r->cold, lifo_reuse));
      fmt_pct (s1, sizeof s1, r->rec, V (r->rec, same_slab));
      fmt_pct (s2, sizeof s2, r->cold, V (r->cold, same_slab));
      const char *agree = !r->busy ? "" : r->agree_cold && r->agree_warm ? "yes"
                        : r->agree_cold ? "cold" : r->agree_warm ? "warm" : "NO";
      g_string_append_printf (o, "%-22s %8" G_GUINT64_FORMAT " | %6" G_GUINT64_FORMAT " %6"
                              G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT " | %6" G_GUINT64_FORMAT
                              " %6" G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT " | %5s %5s | %5s %5s"
                              " | %5" G_GUINT64_FORMAT " %5" G_GUINT64_FORMAT " | %s\n",
                              r->name, allocs, V (r->rec, new_slabs), V (r->cold, new_slabs),
                              V (r->warm, new_slabs), V (r->rec, freed_slabs),
                              V (r->cold, freed_slabs), V (r->warm, freed_slabs), l1, l2, s1, s2,
                              V (r->rec, distinct_slabs), V (r->cold, distinct_slabs), agree);
    }
  gboolean any = FALSE;
  for (guint i = 0; i < v->rows->len; i++)
    {
      const SimValidateRow *r = &g_array_index (v->rows, SimValidateRow, i);
      if (r->why == NULL)
        continue;
      if (!any)
        g_string_append (o, "\nFar off:\n");
      any = TRUE;
      g_string_append_printf (o, "  %s%s: %s\n", r->name, r->busy ? "" : " (not busy)", r->why);
    }
  const SimDecisionTotals *rt = sim_decisions_totals (v->rec);
  const SimDecisionTotals *ct = sim_decisions_totals (v->cold);
  const SimDecisionTotals *wt = sim_decisions_totals (v->warm);
  g_string_append_printf (o, "\nPcp drains (blocks): recorded %" G_GUINT64_FORMAT ", model %"
                          G_GUINT64_FORMAT " cold, %" G_GUINT64_FORMAT " warm\n",
                          rt->pcp_drains, ct->pcp_drains, wt->pcp_drains);
  g_string_append (o, "\nWhat the trace cannot tell:\n");
  for (guint i = 0; i < v->notes->len; i++)
    g_string_append_printf (o, "  - %s\n", (const char *) g_ptr_array_index (v->notes, i));
  g_autofree char *sum = sim_validate_summary (v);
  g_string_append_printf (o, "\n%s\n", sum);
  return g_string_free (o, FALSE);
}

static void
side_json (SimJson *j, const char *key, const SimDecisionCache *c)
{
  sim_json_key (j, key);
  if (c == NULL)
    {
      sim_json_null (j);
      return;
    }
  sim_json_begin_object (j);
#define U(k, f) do { sim_json_key (j, k); sim_json_uint (j, c->f); } while (0)
  U ("allocs", allocs);
  U ("frees", frees);
  U ("new_slabs", new_slabs);
  U ("freed_slabs", freed_slabs);
  U ("freed_old_slabs", freed_old_slabs);
  U ("lifo_reuse", lifo_reuse);
  U ("same_slab", same_slab);
  U ("distinct_slabs", distinct_slabs);
  U ("implicit", implicit);
  U ("unplaced", unplaced);
#undef U
  sim_json_key (j, "order");
  sim_json_int (j, c->order);
  sim_json_end_object (j);
}

static void
totals_json (SimJson *j, const char *key, const SimDecisionTotals *t)
{
  sim_json_key (j, key);
  sim_json_begin_object (j);
  sim_json_key (j, "page_allocs");
  sim_json_uint (j, t->page_allocs);
  sim_json_key (j, "page_frees");
  sim_json_uint (j, t->page_frees);
  sim_json_key (j, "pcp_drains");
  sim_json_uint (j, t->pcp_drains);
  sim_json_key (j, "pcp_drain_pages");
  sim_json_uint (j, t->pcp_drain_pages);
  sim_json_key (j, "unknown_frees");
  sim_json_uint (j, t->unknown_frees);
  sim_json_end_object (j);
}

char *
sim_validate_report_json (const SimValidation *v)
{
  GString *out = g_string_new (NULL);
  SimJson j;
  sim_json_init (&j, out);
  sim_json_begin_object (&j);
  sim_json_key (&j, "trace");
  sim_json_string (&j, v->trace);
  sim_json_key (&j, "allocator");
  sim_json_string (&j, v->allocator);
  sim_json_key (&j, "kernel");
  sim_json_string (&j, v->kernel);
  sim_json_key (&j, "machine");
  sim_json_string (&j, v->machine->name);
  sim_json_key (&j, "trace_618");
  sim_json_bool (&j, v->trace_618);
  sim_json_key (&j, "busy_threshold");
  sim_json_uint (&j, SIM_VALIDATE_BUSY);
  sim_json_key (&j, "busy");
  sim_json_uint (&j, v->busy);
  sim_json_key (&j, "agree_cold");
  sim_json_uint (&j, v->agree_cold);
  sim_json_key (&j, "agree_warm");
  sim_json_uint (&j, v->agree_warm);
  sim_json_key (&j, "warm_objects");
  sim_json_uint (&j, v->warm_res.warm_objects);
  sim_json_key (&j, "warm_unplaced");
  sim_json_uint (&j, v->warm_res.warm_unplaced);
  sim_json_key (&j, "skipped_internal_allocs");
  sim_json_uint (&j, v->cold_res.skipped_internal_allocs);
  /* The trace's page events as the (cold) replay classified them. */
  sim_json_key (&j, "page_events");
  sim_json_begin_object (&j);
  sim_json_key (&j, "mode");
  sim_json_string (&j, v->cold_res.page_events_replayed ? "replay" : "ignore");
  sim_json_key (&j, "slab_page_allocs");
  sim_json_uint (&j, v->cold_res.slab_page_allocs);
  sim_json_key (&j, "slab_page_frees");
  sim_json_uint (&j, v->cold_res.slab_page_frees);
  sim_json_key (&j, "other_page_allocs");
  sim_json_uint (&j, v->cold_res.other_page_allocs);
  sim_json_key (&j, "other_page_frees");
  sim_json_uint (&j, v->cold_res.other_page_frees);
  sim_json_key (&j, "allocs_replayed");
  sim_json_uint (&j, v->cold_res.page_allocs_replayed);
  sim_json_key (&j, "frees_replayed");
  sim_json_uint (&j, v->cold_res.page_frees_replayed);
  sim_json_end_object (&j);
  totals_json (&j, "recorded_totals", sim_decisions_totals (v->rec));
  totals_json (&j, "cold_totals", sim_decisions_totals (v->cold));
  totals_json (&j, "warm_totals", sim_decisions_totals (v->warm));
  sim_json_key (&j, "caches");
  sim_json_begin_array (&j);
  for (guint i = 0; i < v->rows->len; i++)
    {
      const SimValidateRow *r = &g_array_index (v->rows, SimValidateRow, i);
      sim_json_begin_object (&j);
      sim_json_key (&j, "name");
      sim_json_string (&j, r->name);
      sim_json_key (&j, "busy");
      sim_json_bool (&j, r->busy);
      sim_json_key (&j, "agree_cold");
      sim_json_bool (&j, r->agree_cold);
      sim_json_key (&j, "agree_warm");
      sim_json_bool (&j, r->agree_warm);
      sim_json_key (&j, "internal_allocs");
      sim_json_uint (&j, r->internal_allocs);
      side_json (&j, "recorded", r->rec);
      side_json (&j, "cold", r->cold);
      side_json (&j, "warm", r->warm);
      sim_json_key (&j, "why");
      if (r->why)
        sim_json_string (&j, r->why);
      else
        sim_json_null (&j);
      sim_json_end_object (&j);
    }
  sim_json_end_array (&j);
  sim_json_key (&j, "notes");
  sim_json_begin_array (&j);
  for (guint i = 0; i < v->notes->len; i++)
    sim_json_string (&j, g_ptr_array_index (v->notes, i));
  sim_json_end_array (&j);
  sim_json_key (&j, "summary");
  g_autofree char *sum = sim_validate_summary (v);
  sim_json_string (&j, sum);
  sim_json_end_object (&j);
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}
