/* cmd-validate.c - "slabsim validate": the recording kernel's allocator
 * decisions beside a model's (docs/validation.md). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/config/machine.h"
#include "sim/run/validate.h"
#include "sim/run/cpu-map.h"
#include "sim/report/validate-report.h"
#include "sim/core/output.h"

#include <stdio.h>
#include <string.h>

/* The machine for a trace that names none: the bundled recording VM for
 * traces with 6.18's field set (the shared traces' kernel), else the
 * project default. */
static const char *
default_machine (const char *trace, gboolean lenient, GError **error)
{
  g_autoptr (SimTraceReader) r = sim_trace_reader_open (trace, error);
  if (r == NULL)
    return NULL;
  sim_trace_reader_set_lenient (r, lenient);
  SimTraceEvent ev;
  while (sim_trace_reader_next (r, &ev, error))
    if (ev.kind == SIM_TRACE_CACHE_ALLOC)
      return ev.cache_id && ev.accounted >= 0 ? "recording-vm" : SIM_CLI_DEFAULT_MACHINE;
  if (error && *error)
    return NULL;
  return "recording-vm";
}

gboolean
sim_cmd_validate (int argc, char **argv, GError **error)
{
  g_autofree char *machine_name = NULL, *format = NULL, *output = NULL, *allocator = NULL;
  g_autofree char *cpu_map = NULL, *page_events = NULL;
  g_auto (GStrv) sets = NULL;
  gboolean lenient = FALSE;
  GOptionEntry entries[] = {
    { "allocator", 'a', 0, G_OPTION_ARG_STRING, &allocator,
      "Allocator spec NAME[@KERNEL][:PARAM=VALUE,...] (default slub, i.e. slub@6.18)", "SPEC" },
    { "machine", 'm', 0, G_OPTION_ARG_STRING, &machine_name,
      "Machine name or YAML file (default recording-vm for 6.18 traces, else nehalem-ep-2s)",
      "M" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a machine key, e.g. machine.numa=false (repeatable)", "KEY=VALUE" },
    { "cpu-map", 0, 0, G_OPTION_ARG_STRING, &cpu_map,
      "Machine CPU for each trace CPU, e.g. 0,2 (default compact: socket 0 first, one "
      "thread per core first)", "LIST" },
    { "page-events", 0, 0, G_OPTION_ARG_STRING, &page_events,
      "replay (default) or ignore the trace's page traffic other than its slab pages", "MODE" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or json", "FMT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the report to FILE", "FILE" },
    { "lenient", 0, 0, G_OPTION_ARG_NONE, &lenient, "Skip malformed trace lines", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], "TRACE",
    "Replay a trace recorded with unhashed pointers and put side by side, per cache, what the\n"
    "recording kernel decided (read from the trace) and what the model decided, from a cold\n"
    "start and with --warm unknown-frees: new and freed slabs, per-CPU LIFO reuse, same-slab\n"
    "runs, distinct slabs; and pcp drains.  Busy caches (>= 20 new slabs recorded) agree when\n"
    "new and freed slabs are within 3% or 2 slabs.\n"
    "Example: slabsim validate traces/samples/hackbench-T-g2-l50.trace.gz");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  if (argc != 2)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "validate: expected exactly one TRACE (try \"slabsim validate --help\")");
      return FALSE;
    }
  SimFormat fmt = SIM_FORMAT_TEXT;
  if (format && !sim_cli_format (format, SIM_FORMAT_MASK (SIM_FORMAT_TEXT) |
                                 SIM_FORMAT_MASK (SIM_FORMAT_JSON), &fmt, error))
    return FALSE;
  /* Three replays and the recorded side all read the trace. */
  if (!sim_cli_before_replay ("validate", output, argv[1], error))
    return FALSE;
  const char *mname = machine_name;
  if (mname == NULL && (mname = default_machine (argv[1], lenient, error)) == NULL)
    return FALSE;
  g_autoptr (SimMachine) machine = sim_machine_load (mname, (const char *const *) sets, error);
  if (machine == NULL)
    return FALSE;
  guint pmode = SIM_PAGE_EVENTS_REPLAY;
  if (!sim_cli_choice ("validate", "--page-events", page_events, sim_cli_page_events_names,
                       &pmode, error))
    return FALSE;
  SimCpuMap map;
  if (!sim_cpu_map_init (&map, machine, cpu_map, error))
    {
      g_prefix_error (error, "validate: ");
      return FALSE;
    }
  sim_cpu_map_clear (&map);
  SimReplayOptions opt = { .machine = machine, .mode = SIM_REPLAY_ORDERED,
                           .touch = SIM_TOUCH_LINE, .lenient = lenient, .cpu_map = cpu_map,
                           .page_events = pmode };
  SimValidation v;
  gboolean ok = sim_validate_run (argv[1], allocator ? allocator : "slub", &opt, &v, error);
  if (ok)
    sim_cli_warn_held_params ("validate", allocator ? allocator : "slub", v.allocator, v.kernel,
                              v.cold_res.params);
  if (ok)
    {
      g_autofree char *text = fmt == SIM_FORMAT_JSON ? sim_validate_report_json (&v)
                                                     : sim_validate_report_text (&v);
      if (!sim_output_write (output, text, -1, error))
        {
          g_prefix_error (error, "validate: ");
          ok = FALSE;
        }
    }
  sim_validation_clear (&v);
  return ok;
}
