/* cmd-merge.c - "slabsim merge": join the shards of a sweep into one JSONL. */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "sim/sweep/sweep.h"

#include <stdio.h>
#include <string.h>

gboolean
sim_cmd_merge (int argc, char **argv, GError **error)
{
  g_autofree char *output = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the merged JSON lines to FILE (default: standard output)", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], "DIR|FILE...",
    "Check that sweep results (sweep directories or JSONL files) hold every point of\n"
    "one plan exactly once, and write them ordered by point index: the merge of the\n"
    "shards of a sweep is byte for byte the unsharded run's results.jsonl.\n"
    "Example: slabsim merge out/shard-* -o results.jsonl");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  if (argc < 2)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "merge: expected at least one sweep DIR or JSONL file");
      return FALSE;
    }
  GPtrArray *lines = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_sweep_line_free);
  gboolean ok = sim_output_check (output, error);
  for (int i = 1; i < argc && ok; i++)
    ok = sim_sweep_read_lines (argv[i], lines, error);
  GString *out = g_string_new (NULL);
  if (ok)
    ok = sim_sweep_merge (lines, (const char *const *) argv + 1, out, error);
  if (ok)
    ok = sim_output_write (output, out->str, (gssize) out->len, error);
  if (!ok)
    g_prefix_error (error, "merge: ");
  g_string_free (out, TRUE);
  g_ptr_array_unref (lines);
  return ok;
}
