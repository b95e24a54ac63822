/* cmd-trace.c - "slabsim trace SUB": sub-verb table (info, convert and gen). */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"

static const SimVerb subs[] = {
  { "gen", "generate a synthetic kmem trace as a kernel of an era would print it", sim_cmd_trace_gen },
  { NULL, NULL, NULL }
};

gboolean
sim_cmd_trace (int argc, char **argv, GError **error)
{
  return sim_cli_dispatch_sub ("trace", subs, argc, argv, error);
}
