/* cmd-machine.c - "slabsim machine" (placeholder until its module lands). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"

gboolean
sim_cmd_machine (int argc, char **argv, GError **error)
{
  (void) argc;
  (void) argv;
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_UNKNOWN_VERB,
               "machine: not implemented yet");
  return FALSE;
}
