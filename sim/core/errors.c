/* errors.c - error domains; see errors.h. */
#include "sim/core/errors.h"

G_DEFINE_QUARK (slabsim-usage-error-quark, sim_usage_error)
G_DEFINE_QUARK (slabsim-config-error-quark, sim_config_error)
G_DEFINE_QUARK (slabsim-trace-error-quark, sim_trace_error)
G_DEFINE_QUARK (slabsim-model-error-quark, sim_model_error)

int
sim_error_exit_code (const GError *error)
{
  if (error == NULL)
    return SIM_EXIT_OK;
  if (error->domain == SIM_USAGE_ERROR || error->domain == SIM_CONFIG_ERROR ||
      error->domain == G_OPTION_ERROR)
    return SIM_EXIT_USAGE;
  return SIM_EXIT_FAILURE;
}
