/* cmd-record.c - "slabsim record [-o FILE] [--events LIST] [--buffer-kb N]
 * [--via tracefs|trace-cmd] -- COMMAND...": a kmem trace of COMMAND through
 * tracefs, as text or as trace-cmd's trace.dat (docs/record.md). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "traces/record.h"

#include <stdio.h>
#include <string.h>

gboolean
sim_cmd_record (int argc, char **argv, GError **error)
{
  const char *verb = argv[0];
  g_autofree char *output = NULL, *events = NULL, *buffer = NULL, *via = NULL;
  gboolean verbose = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "output file, gzip-compressed when it ends in .gz (default kmem.trace.gz; trace.dat with "
      "--via trace-cmd)", "FILE" },
    { "events", 0, 0, G_OPTION_ARG_STRING, &events,
      "comma-separated kmem events (default kmalloc,kfree,kmem_cache_alloc,kmem_cache_free,"
      "mm_page_alloc,mm_page_free,mm_page_free_batched,mm_page_pcpu_drain)", "LIST" },
    { "buffer-kb", 0, 0, G_OPTION_ARG_STRING, &buffer,
      "per-CPU ring buffer size in KiB (default 131072)", "N" },
    { "via", 0, 0, G_OPTION_ARG_STRING, &via,
      "tracefs (default: the trace text) or trace-cmd (a trace.dat, by trace-cmd extract)",
      "HOW" },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
      "list every tracefs write on stderr (after the run)", NULL },
    { NULL }
  };
  /* Everything after "--" is the command: hide it from GOption. */
  int sep = -1;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        sep = i;
        break;
      }
  int oargc = sep < 0 ? argc : sep;
  g_autofree char **oargv = g_new0 (char *, oargc + 1);
  memcpy (oargv, argv, oargc * sizeof (char *));
  char **pargv = oargv;
  g_autoptr (GOptionContext) ctx = sim_cli_context (verb, "-- COMMAND [ARGS...]",
    "Record the kmem trace events of the whole machine while COMMAND runs (needs root).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, verb, &oargc, &pargv, error))
    return FALSE;
  if (sep < 0 || sep + 1 >= argc)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "%s: the command to record must follow \"--\" "
                   "(e.g. slabsim record -o t.gz -- hackbench -g 1) (try \"slabsim %s --help\")",
                   verb, verb);
      return FALSE;
    }
  if (oargc > 1)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: unexpected argument \"%s\" before \"--\"", verb, pargv[1]);
      return FALSE;
    }

  SimRecordOptions o = { 0 };
  if (via && strcmp (via, "tracefs") != 0 && strcmp (via, "trace-cmd") != 0)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: --via: \"%s\" is not tracefs or trace-cmd", verb, via);
      return FALSE;
    }
  o.via_tracecmd = via && strcmp (via, "trace-cmd") == 0;
  o.output = output ? output : o.via_tracecmd ? "trace.dat" : "kmem.trace.gz";
  if (o.via_tracecmd && g_str_has_suffix (o.output, ".gz"))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: --via trace-cmd writes a trace.dat, not gzip: -o %s (name it FILE.dat)",
                   verb, o.output);
      return FALSE;
    }
  o.buffer_kb = 131072;
  if (buffer && !sim_cli_uint_in (buffer, 1, 1u << 24, &o.buffer_kb))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: --buffer-kb: \"%s\" is not a whole number in 1..16777216", verb, buffer);
      return FALSE;
    }
  g_auto (GStrv) list = events ? g_strsplit (events, ",", -1)
                               : g_strdupv ((char **) sim_record_default_events ());
  for (char **e = list; *e; e++)
    {
      g_strstrip (*e);
      const char *bad = NULL;
      if (**e == '\0')
        bad = "an empty name";
      for (const char *c = *e; !bad && *c; c++)
        if (!g_ascii_isalnum (*c) && *c != '_')
          bad = "not an event name";
      if (bad)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "%s: --events: \"%s\" is %s (expected kmem event names like kmalloc,kfree)",
                       verb, *e, bad);
          return FALSE;
        }
    }
  o.events = list;
  o.argv = argv + sep + 1;

  /* Before tracing: a bad -o must not cost a recording. */
  if (!sim_output_check (o.output, error))
    {
      g_prefix_error (error, "%s: ", verb);
      return FALSE;
    }
  SimRecordResult r = { 0 };
  gboolean ok = sim_record_run (&o, &r, error);
  for (guint i = 0; verbose && r.writes && i < r.writes->len; i++)
    fprintf (stderr, "record: %s\n", (char *) g_ptr_array_index (r.writes, i));
  for (guint i = 0; r.warnings && i < r.warnings->len; i++)
    fprintf (stderr, "slabsim: record: warning: %s\n", (char *) g_ptr_array_index (r.warnings, i));
  if (ok)
    {
      guint64 lost = MAX (r.lost_overrun, r.lost_markers);
      if (o.via_tracecmd)
        fprintf (stderr, "slabsim: record: %" G_GUINT64_FORMAT " events from %s -> %s "
                 "(trace-cmd extract); lost events: %" G_GUINT64_FORMAT " (overrun %"
                 G_GUINT64_FORMAT ", dropped in the trace.dat %" G_GUINT64_FORMAT ")\n",
                 r.lines, r.tracefs, o.output, lost, r.lost_overrun, r.lost_markers);
      else
        fprintf (stderr, "slabsim: record: %" G_GUINT64_FORMAT " lines from %s -> %s; "
                 "lost events: %" G_GUINT64_FORMAT " (overrun %" G_GUINT64_FORMAT
                 ", LOST markers %" G_GUINT64_FORMAT ")\n",
                 r.lines, r.tracefs, o.output, lost, r.lost_overrun, r.lost_markers);
      if (r.exit_status != 0)
        fprintf (stderr, "slabsim: record: warning: %s exited with status %d\n",
                 o.argv[0], r.exit_status);
    }
  else
    g_prefix_error (error, "%s: ", verb);
  sim_record_result_clear (&r);
  return ok;
}
