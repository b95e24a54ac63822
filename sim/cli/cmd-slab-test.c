/* cmd-slab-test.c - "slabsim slab-test": Christoph Lameter's slab_test
 * module run on a simulated machine (sim/run/slab-test.h, docs/slab-test.md). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/config/machine.h"
#include "sim/run/slab-test.h"
#include "sim/report/slab-test-report.h"

#include <stdio.h>

/* The module's TEST_COUNT. */
#define DEFAULT_COUNT 10000
#define MAX_COUNT     10000000

gboolean
sim_cmd_slab_test (int argc, char **argv, GError **error)
{
  const char *verb = argv[0];
  g_autofree char *machine_name = NULL, *allocator = NULL, *format = NULL, *tests = NULL;
  g_autofree char *count_s = NULL;
  g_auto (GStrv) sets = NULL;
  GOptionEntry entries[] = {
    { "machine", 'm', 0, G_OPTION_ARG_STRING, &machine_name,
      "Machine name or YAML file (default nehalem-ep-2s)", "M" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a machine key, e.g. machine.tsc=2.5GHz (repeatable)", "KEY=VALUE" },
    { "allocator", 'a', 0, G_OPTION_ARG_STRING, &allocator,
      "Allocator spec NAME[@KERNEL][:PARAM=VALUE,...] (default slub)", "SPEC" },
    { "count", 'n', 0, G_OPTION_ARG_STRING, &count_s,
      "Objects per loop, the module's TEST_COUNT (default 10000)", "N" },
    { "test", 't', 0, G_OPTION_ARG_STRING, &tests,
      "Comma-separated tests: repeat (test 1), pair (test 2), concurrent (default the three), "
      "kmem_cache (time_bench_kmem_cache1's alloc+free loop, not the module's)", "LIST" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      "text (default: the module's lines) or json", "FMT" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (verb, NULL,
    "Run Christoph Lameter's slab_test kernel module in the simulator: test 1 (N kmallocs of\n"
    "each size 8..16384, then N kfrees), test 2 (N kmalloc+kfree pairs) and the concurrent\n"
    "tests (N*alloc N*free and N*(alloc free) on every CPU at once, sizes 8..4096).  Prints\n"
    "the module's lines in TSC cycles, e.g. \"10000 times kmalloc(8) -> 49 cycles kfree -> 62 cycles\".\n"
    "Example: slabsim slab-test --machine core2-quad --allocator slub@2.6.34 --test repeat,pair");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, verb, &argc, &argv, error))
    return FALSE;
  if (argc > 1)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: unexpected argument \"%s\" (try \"slabsim %s --help\")", verb, argv[1],
                   verb);
      return FALSE;
    }
  SimFormat fmt = SIM_FORMAT_TEXT;
  if (format && !sim_cli_format (format, SIM_FORMAT_MASK (SIM_FORMAT_TEXT) |
                                 SIM_FORMAT_MASK (SIM_FORMAT_JSON), &fmt, error))
    {
      g_prefix_error (error, "%s: --format: ", verb);
      return FALSE;
    }
  SimSlabTestOptions opt = { .count = DEFAULT_COUNT, .tests = SIM_SLAB_TEST_ALL };
  if (count_s && !sim_cli_uint_in (count_s, 1, MAX_COUNT, &opt.count))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: --count: \"%s\" is not a whole number in 1..%u", verb, count_s, MAX_COUNT);
      return FALSE;
    }
  if (tests && !sim_slab_test_parse_tests (tests, &opt.tests, error))
    {
      g_prefix_error (error, "%s: ", verb);
      return FALSE;
    }
  g_autoptr (SimMachine) machine = sim_cli_machine_load (machine_name, (const char *const *) sets,
                                                         error);
  if (machine == NULL)
    return FALSE;
  opt.machine = machine;

  SimSlabTestResult res;
  if (!sim_slab_test_run (allocator ? allocator : "slub", &opt, &res, error))
    {
      sim_slab_test_result_clear (&res);
      return FALSE;
    }
  g_autofree char *text = fmt == SIM_FORMAT_JSON ? sim_slab_test_report_json (&res)
                                                 : sim_slab_test_report_text (&res);
  fputs (text, stdout);
  sim_slab_test_result_clear (&res);
  return TRUE;
}
