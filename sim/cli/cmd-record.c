/* cmd-record.c - placeholder until its module lands. */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"

gboolean
sim_cmd_record (int argc, char **argv, GError **error)
{
  GOptionEntry entries[] = { { NULL } };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], NULL, NULL);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_UNKNOWN_VERB,
               "%s: not implemented yet", argv[0]);
  return FALSE;
}
