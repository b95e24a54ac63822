/* machine.c - placeholder; the YAML machine loader lands here. */
#include "sim/config/machine.h"
#include "sim/core/errors.h"

SimMachine *
sim_machine_load (const char *name_or_path, const char *const *overrides, GError **error)
{
  (void) overrides;
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_NOT_FOUND,
               "machine \"%s\": loader not implemented yet", name_or_path);
  return NULL;
}

void
sim_machine_free (SimMachine *m)
{
  if (m == NULL)
    return;
  g_free (m->name);
  g_free (m->description);
  g_free (m->source);
  g_free (m->cpus);
  for (guint i = 0; i < m->n_levels; i++)
    g_free (m->levels[i].name);
  g_free (m);
}
