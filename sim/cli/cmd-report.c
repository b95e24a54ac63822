/* cmd-report.c - "slabsim report": results as HTML/SVG, text or Markdown. */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "sim/report/report-data.h"
#include "sim/report/sweep-report.h"

#include <stdio.h>
#include <string.h>

static gboolean
pick_format (const char *fmt, const char *output, SimReportFormat *out, GError **error)
{
  static const struct { const char *name; SimReportFormat f; } names[] = {
    { "text", SIM_REPORT_TEXT }, { "txt", SIM_REPORT_TEXT }, { "md", SIM_REPORT_MARKDOWN },
    { "markdown", SIM_REPORT_MARKDOWN }, { "html", SIM_REPORT_HTML }, { "svg", SIM_REPORT_SVG },
  };
  const char *want = fmt;
  if (want == NULL && output && strcmp (output, "-") != 0)
    {
      const char *dot = strrchr (output, '.');
      want = dot ? dot + 1 : NULL;
      if (want == NULL)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "report: cannot tell the format of \"%s\" (name it .html, .svg, .txt "
                       "or .md, or give --format)", output);
          return FALSE;
        }
    }
  if (want == NULL)
    {
      *out = SIM_REPORT_TEXT;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (want, names[i].name) == 0)
      {
        *out = names[i].f;
        return TRUE;
      }
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
               "report: unknown format \"%s\" (expected html, svg, text or md)", want);
  return FALSE;
}

gboolean
sim_cmd_report (int argc, char **argv, GError **error)
{
  g_autofree char *output = NULL, *format = NULL, *baseline = NULL;
  g_auto (GStrv) metric_names = NULL;
  gboolean list_metrics = FALSE;
  double threshold = 1.0;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the report to FILE; .html, .svg, .txt or .md picks the format "
      "(default: text on standard output)", "FILE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "html, svg, text or md, whatever the file name", "FMT" },
    { "baseline", 'b', 0, G_OPTION_ARG_STRING, &baseline,
      "Compare against this point: its id (or a prefix of 4+ digits) or index "
      "(default: the first)", "ID|INDEX" },
    { "metric", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &metric_names,
      "Metric to tabulate and map (repeatable, or comma-separated; see --list-metrics)", "NAME" },
    { "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &threshold,
      "Differences below PCT %change count as the same: no winner card, grey in the charts "
      "(default 1)", "PCT" },
    { "list-metrics", 0, 0, G_OPTION_ARG_NONE, &list_metrics, "List the metrics and exit", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], "RESULTS...",
    "Render results - sweep directories, merged JSONL files, \"slabsim run --format json\"\n"
    "outputs - as a self-contained HTML page with SVG charts (heat maps over the sweep\n"
    "grid, fast paths of the busiest caches, cycles per operation, %change tables), an\n"
    "SVG heat map, fixed-width text for mail, or Markdown.\n"
    "Example: slabsim report out/slub-order -o slub-order.html");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  guint n_all;
  const SimReportMetric *all = sim_report_metrics (&n_all);
  if (list_metrics)
    {
      for (guint i = 0; i < n_all; i++)
        printf ("%-18s %s (%s is better)\n", all[i].name, all[i].title,
                all[i].higher_is_better ? "higher" : "lower");
      return TRUE;
    }
  if (argc < 2)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "report: expected at least one RESULTS file or directory");
      return FALSE;
    }
  if (!(threshold >= 0 && threshold < 1000))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "report: --threshold takes a %%change from 0 to 1000, not %g", threshold);
      return FALSE;
    }
  SimReportFormat fmt;
  if (!pick_format (format, output, &fmt, error))
    return FALSE;
  GPtrArray *metrics = NULL;
  if (metric_names)
    {
      metrics = g_ptr_array_new ();
      for (guint i = 0; metric_names[i]; i++)
        {
          g_auto (GStrv) parts = g_strsplit (metric_names[i], ",", -1);
          for (guint k = 0; parts[k]; k++)
            {
              if (*parts[k] == '\0')
                continue;
              const SimReportMetric *m = sim_report_metric_lookup (parts[k]);
              if (m == NULL)
                {
                  GString *names = g_string_new (NULL);
                  for (guint j = 0; j < n_all; j++)
                    g_string_append_printf (names, "%s%s", j ? ", " : "", all[j].name);
                  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                               "report: unknown metric \"%s\" (expected one of: %s)", parts[k],
                               names->str);
                  g_string_free (names, TRUE);
                  g_ptr_array_unref (metrics);
                  return FALSE;
                }
              g_ptr_array_add (metrics, (gpointer) m);
            }
        }
      g_ptr_array_add (metrics, NULL);
    }
  g_autoptr (SimReportData) data = sim_report_data_new ();
  data->threshold = threshold;
  gboolean ok = sim_output_check (output, error);
  for (int i = 1; i < argc && ok; i++)
    ok = sim_report_data_add (data, argv[i], error);
  if (ok)
    ok = sim_report_data_finish (data, baseline, error);
  if (ok)
    {
      g_autofree char *out = sim_report_render (data, fmt, metrics
                                                ? (const SimReportMetric *const *) metrics->pdata
                                                : NULL);
      ok = sim_output_write (output, out, -1, error);
    }
  if (metrics)
    g_ptr_array_unref (metrics);
  if (!ok)
    g_prefix_error (error, "report: ");
  return ok;
}
