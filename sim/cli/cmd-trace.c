/* cmd-trace.c - "slabsim trace" (placeholder until its module lands). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"

gboolean
sim_cmd_trace (int argc, char **argv, GError **error)
{
  (void) argc;
  (void) argv;
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_UNKNOWN_VERB,
               "trace: not implemented yet");
  return FALSE;
}
