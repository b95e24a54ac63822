/* cmd-trace.c - "slabsim trace SUB": sub-verb table (info, convert and gen),
 * and the info and convert sub-verbs over traces/ (reader, account, native). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "traces/info.h"
#include "traces/kmem-stat.h"
#include "traces/native.h"

#include <stdio.h>

static gboolean
one_operand (int argc, char **argv, const char *what, GError **error)
{
  if (argc == 2)
    return TRUE;
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
               "%s: expected exactly one %s (try \"slabsim %s --help\")", argv[0], what, argv[0]);
  return FALSE;
}

/* Diagnostics a user should see even when the summary goes to a file. */
static void
warn_about (SimTraceInfo *info)
{
  const SimTraceStats *s = sim_trace_info_stats (info);
  const char *name = sim_trace_info_name (info);
  if (sim_trace_stats_hashed (s))
    fprintf (stderr, "slabsim: warning: %s: pointers look hashed (tracefs hash-ptr was on): "
             "allocs and frees still pair, but address locality is lost; record with "
             "\"echo nohash-ptr > trace_options\"\n", name);
  if (s->lost_events || s->lost_markers)
    fprintf (stderr, "slabsim: warning: %s: the tracer lost %" G_GUINT64_FORMAT
             " events (%" G_GUINT64_FORMAT " LOST markers): expect unknown frees and "
             "objects that look live\n", name, s->lost_events,
             s->lost_markers);
  if (s->malformed_lines)
    fprintf (stderr, "slabsim: warning: %s: skipped %" G_GUINT64_FORMAT " malformed lines\n",
             name, s->malformed_lines);
}

static gboolean
cmd_info (int argc, char **argv, GError **error)
{
  g_autofree char *format = NULL, *sort = NULL;
  gboolean lenient = FALSE, caller = FALSE, alloc = FALSE, page = FALSE;
  gint lines = -1;
  GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "Output format: text (default) or json", "FMT" },
    { "lenient", 0, 0, G_OPTION_ARG_NONE, &lenient,
      "Skip and count malformed lines instead of failing", NULL },
    { "caller", 0, 0, G_OPTION_ARG_NONE, &caller,
      "perf kmem stat --caller: per call site Total_alloc/Per, Total_req/Per, Hit, Ping-pong, Frag",
      NULL },
    { "alloc", 0, 0, G_OPTION_ARG_NONE, &alloc,
      "perf kmem stat --alloc: the same per object pointer (per PFN with --page)", NULL },
    { "page", 0, 0, G_OPTION_ARG_NONE, &page,
      "perf kmem stat --page: the page allocator's events (summary, orders, with --caller/--alloc "
      "its tables)", NULL },
    { "sort", 's', 0, G_OPTION_ARG_STRING, &sort,
      "Sort keys, comma-separated: ptr, callsite, bytes, hit, pingpong, frag (default frag,hit,bytes); "
      "with --page: page, callsite, bytes, hit, order, migtype, gfp (default bytes,hit)", "KEYS" },
    { "lines", 'l', 0, G_OPTION_ARG_INT, &lines, "Print only N lines of each table", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], "TRACE",
    "Summarise a kmem trace: events, exact alloc/free pairing, per-cache totals.\n"
    "TRACE is ftrace or perf script text (gzip or not), a perf.data (read through\n"
    "perf script), or a slabsim native trace.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  SimFormat fmt = SIM_FORMAT_TEXT;
  if (format && !sim_cli_format (format, SIM_FORMAT_MASK (SIM_FORMAT_TEXT) |
                                 SIM_FORMAT_MASK (SIM_FORMAT_JSON), &fmt, error))
    return FALSE;
  if (!one_operand (argc, argv, "TRACE", error))
    return FALSE;
  if (caller || alloc || page || sort || lines >= 0)
    {
      /* perf kmem stat's tables: perf's text, or the same rows as JSON. */
      if (!sim_kmem_stat_check_sort (sort, page, error))
        return FALSE;
      if (lines == 0 || lines < -1)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "trace info: -l takes a number of lines of 1 or more, not %d", lines);
          return FALSE;
        }
      /* perf kmem stat with neither table prints its summary only; -s or
       * -l alone mean the call-site table. */
      if (!caller && !alloc && !page)
        caller = TRUE;
      SimKmemStatOptions ko = { .caller = caller, .alloc = alloc, .page = page, .sort = sort,
                                .lines = lines, .lenient = lenient };
      g_autofree char *kout = fmt == SIM_FORMAT_JSON ? sim_kmem_stat_json (argv[1], &ko, error)
                                                     : sim_kmem_stat_text (argv[1], &ko, error);
      if (kout == NULL)
        return FALSE;
      fputs (kout, stdout);
      return TRUE;
    }
  g_autoptr (SimTraceInfo) info = sim_trace_info_collect (argv[1], lenient, error);
  if (info == NULL)
    return FALSE;
  warn_about (info);
  g_autofree char *out = fmt == SIM_FORMAT_JSON ? sim_trace_info_json (info)
                                                : sim_trace_info_text (info);
  fputs (out, stdout);
  return TRUE;
}

static gboolean
cmd_convert (int argc, char **argv, GError **error)
{
  g_autofree char *output = NULL;
  gboolean lenient = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "The native trace to write", "OUT" },
    { "lenient", 0, 0, G_OPTION_ARG_NONE, &lenient,
      "Skip and count malformed lines instead of failing", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], "TRACE",
    "Convert a kmem trace into slabsim's native binary format (docs/trace-format.md),\n"
    "which every command reads many times faster than the text.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  if (!one_operand (argc, argv, "TRACE", error))
    return FALSE;
  if (output == NULL)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "%s: expected -o OUT, the native trace to write", argv[0]);
      return FALSE;
    }
  guint64 events = 0;
  if (!sim_native_convert (argv[1], output, lenient, &events, error))
    return FALSE;
  printf ("%s: %" G_GUINT64_FORMAT " events\n", output, events);
  return TRUE;
}

static const SimVerb subs[] = {
  { "info", "summarise a kmem trace: events, alloc/free pairing, caches", cmd_info },
  { "convert", "convert a kmem trace to slabsim's native binary format", cmd_convert },
  { "gen", "generate a synthetic kmem trace as a kernel of an era would print it", sim_cmd_trace_gen },
  { NULL, NULL, NULL }
};

gboolean
sim_cmd_trace (int argc, char **argv, GError **error)
{
  return sim_cli_dispatch_sub ("trace", subs, argc, argv, error);
}
