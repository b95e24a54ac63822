/* cmd-trace-gen.c - "slabsim trace gen WORKLOAD -o FILE": synthetic kmem
 * traces in the ftrace text of a kernel era (traces/gen/, docs/trace-gen.md). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "traces/gen/gen-common.h"

#include <stdio.h>
#include <string.h>

static gboolean
usage (GError **error, const char *verb, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
usage (GError **error, const char *verb, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
               "%s: %s (try \"slabsim %s --help\")", verb, msg, verb);
  return FALSE;
}

/* Parse a positive count; @what names the option. */
static gboolean
count (const char *verb, const char *what, const char *s, guint min, guint max,
       guint *out, GError **error)
{
  if (s == NULL || sim_cli_uint_in (s, min, max, out))
    return TRUE;
  return usage (error, verb, "%s: \"%s\" is not a whole number in %u..%u", what, s, min, max);
}

gboolean
sim_cmd_trace_gen (int argc, char **argv, GError **error)
{
  const char *verb = argv[0];
  g_autofree char *cpus = NULL, *groups = NULL, *loops = NULL, *size = NULL;
  g_autofree char *kernel = NULL, *seed = NULL, *sockets = NULL, *output = NULL;
  g_autofree char *format = NULL;
  gboolean random_place = FALSE, no_pages = FALSE;
  GOptionEntry entries[] = {
    { "cpus", 0, 0, G_OPTION_ARG_STRING, &cpus, "CPUs of the machine (default 2)", "N" },
    { "groups", 0, 0, G_OPTION_ARG_STRING, &groups,
      "groups / pairs / make jobs (hackbench 1, netperf-udp 1, tbench 4, kbuild 4)", "G" },
    { "loops", 0, 0, G_OPTION_ARG_STRING, &loops,
      "loops / datagrams / rounds / compiles per job / slab-test count (50, 20000, 1000, 50, 10000)", "L" },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size,
      "message size in bytes (hackbench 100, netperf-udp 4096, tbench 4096)", "BYTES" },
    { "kernel", 0, 0, G_OPTION_ARG_STRING, &kernel,
      "kernel version whose trace format and sizes to use (default 6.18)", "VERSION" },
    { "seed", 0, 0, G_OPTION_ARG_STRING, &seed, "seed of the generator (default 1)", "S" },
    { "machine-sockets", 0, 0, G_OPTION_ARG_STRING, &sockets,
      "sockets (NUMA nodes) the CPUs are split over (default 1)", "K" },
    { "random-placement", 0, 0, G_OPTION_ARG_NONE, &random_place,
      "place tasks on CPUs at random (seeded) instead of round-robin", NULL },
    { "no-page-events", 0, 0, G_OPTION_ARG_NONE, &no_pages,
      "leave out mm_page_alloc/mm_page_free lines", NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "text (ftrace, the default) or native (slabsim's binary format, as \"trace convert\" "
      "writes it, without the text ever being stored)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "output file (gzip-compressed when it ends in .gz; - for standard output, as \"run -\" "
      "reads it)", "FILE" },
    { NULL }
  };
  g_autofree char *names = sim_gen_workload_names ();
  g_autofree char *summary = g_strdup_printf (
    "Write a synthetic kmem trace (ftrace text) of WORKLOAD, one of: %s.\n"
    "See docs/trace-gen.md for the model of each workload.", names);
  g_autoptr (GOptionContext) ctx = sim_cli_context (verb, "WORKLOAD", summary);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, verb, &argc, &argv, error))
    return FALSE;

  if (argc < 2)
    return usage (error, verb, "a workload is required (one of: %s)", names);
  if (argc > 2)
    return usage (error, verb, "unexpected argument \"%s\"", argv[2]);
  const SimGenWorkload *w = sim_gen_workload_find (argv[1]);
  if (w == NULL)
    return usage (error, verb, "unknown workload \"%s\" (expected one of: %s)", argv[1], names);
  if (output == NULL)
    return usage (error, verb, "an output file is required (-o FILE)");
  gboolean native = FALSE;
  if (format && strcmp (format, "native") == 0)
    native = TRUE;
  else if (format && strcmp (format, "text") != 0)
    return usage (error, verb, "--format: \"%s\" is not text or native", format);
  if (native && g_str_has_suffix (output, ".gz"))
    return usage (error, verb, "--format native is not gzip-compressed: name the output "
                  "without .gz");

  SimGenOptions o = { 0 };
  o.workload = w->name;
  o.cpus = 2;
  o.groups = w->default_groups;
  o.loops = w->default_loops;
  o.size = w->default_size;
  o.sockets = 1;
  o.seed = 1;
  o.random_placement = random_place;
  o.page_events = !no_pages;
  if (!count (verb, "--cpus", cpus, 1, 4096, &o.cpus, error)
      || !count (verb, "--groups", groups, 1, 100000, &o.groups, error)
      || !count (verb, "--loops", loops, 1, 100000000, &o.loops, error)
      || !count (verb, "--size", size, 1, 65000, &o.size, error)
      || !count (verb, "--machine-sockets", sockets, 1, 64, &o.sockets, error))
    return FALSE;
  if (groups && w->default_groups == 0)
    return usage (error, verb, "--groups does not apply to %s", w->name);
  if (size && w->default_size == 0)
    return usage (error, verb, "--size does not apply to %s", w->name);
  if (o.sockets > o.cpus)
    return usage (error, verb, "--machine-sockets %u is more than --cpus %u", o.sockets, o.cpus);
  if (seed)
    {
      char *end = NULL;
      o.seed = g_ascii_strtoull (seed, &end, 0);
      if (*seed == '\0' || *seed == '-' || *end != '\0')
        return usage (error, verb, "--seed: \"%s\" is not an unsigned number", seed);
    }
  if (!sim_gen_era_parse (kernel ? kernel : "6.18", &o.era, error))
    {
      g_prefix_error (error, "%s: ", verb);
      return FALSE;
    }

  /* Refuse a directory or an unwritable folder before generating. */
  if (!sim_output_check (output, error))
    {
      g_prefix_error (error, "%s: ", verb);
      return FALSE;
    }
  SimGenStats st;
  if (!(native ? sim_gen_run_native (&o, output, &st, error)
              : sim_gen_run (&o, output, &st, error)))
    {
      g_prefix_error (error, "%s: ", verb);
      return FALSE;
    }
  fprintf (stderr,
           "%s: %" G_GUINT64_FORMAT " events (%" G_GUINT64_FORMAT " allocs, %" G_GUINT64_FORMAT
           " frees, %" G_GUINT64_FORMAT " cross-CPU, %" G_GUINT64_FORMAT " page allocs) -> %s\n",
           w->name, st.events, st.allocs, st.frees, st.cross_cpu_frees, st.page_allocs, output);
  return TRUE;
}
