/* cmd-cachesim.c - "slabsim cachesim" (placeholder until the cache model lands). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"

gboolean
sim_cmd_cachesim (int argc, char **argv, GError **error)
{
  GOptionEntry entries[] = { { NULL } };
  g_autoptr (GOptionContext) ctx = sim_cli_context ("cachesim", "TRACE", NULL);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, "cachesim", &argc, &argv, error))
    return FALSE;
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_UNKNOWN_VERB,
               "cachesim: not implemented yet");
  return FALSE;
}
