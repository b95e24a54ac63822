/* errors.c - error domains; see errors.h. */
#include "sim/core/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static gboolean fatal_abort;

static GLogWriterOutput
fatal_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  (void) user_data;
  if (!(level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)))
    return g_log_writer_default (level, fields, n_fields, NULL);
  const char *domain = NULL, *message = NULL;
  for (gsize i = 0; i < n_fields; i++)
    {
      if (strcmp (fields[i].key, "GLIB_DOMAIN") == 0)
        domain = fields[i].value;
      else if (strcmp (fields[i].key, "MESSAGE") == 0)
        message = fields[i].value;
    }
  const char *what = (level & G_LOG_LEVEL_ERROR) ? "error"
                   : (level & G_LOG_LEVEL_CRITICAL) ? "critical" : "warning";
  fflush (stdout);
  fprintf (stderr, "slabsim: internal error (a bug in slabsim, please report it): "
           "%s%s%s: %s\n", domain ? domain : "", domain ? " " : "", what,
           message ? message : "(no message)");
  fflush (stderr);
  if (fatal_abort)
    abort ();
  /* _exit: a critical inside a worker thread must not run exit handlers
   * concurrently with the main thread, and nothing half-computed is
   * trustworthy enough to flush. */
  _Exit (SIM_EXIT_FAILURE);
}

void
sim_install_fatal_log_writer (gboolean abort_on_fatal)
{
  static gsize once;
  if (g_once_init_enter (&once))
    {
      fatal_abort = abort_on_fatal;
      g_log_set_writer_func (fatal_writer, NULL, NULL);
      g_once_init_leave (&once, 1);
    }
}
