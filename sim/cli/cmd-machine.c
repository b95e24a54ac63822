/* cmd-machine.c - "slabsim machine show|list|probe": machine descriptions.
 *
 * "show" prints the effective machine (after --set overrides, every
 * default filled, latencies in cycles) as YAML that loads back to the same
 * machine, so a run can be reproduced from its printed configuration.
 * "probe" (cmd-machine-probe.c) writes one for the host from sysfs.
 */
#include "sim/cli/cli.h"
#include "sim/config/machine-schema.h"
#include "sim/core/errors.h"

#include <stdio.h>

static gboolean
cmd_show (int argc, char **argv, GError **error)
{
  g_auto (GStrv) sets = NULL;
  GOptionEntry entries[] = {
    { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a key of the machine, e.g. caches.L2.size=512K (repeatable)", "KEY=VALUE" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], "[NAME|FILE]",
    "Print the effective machine description as YAML, every default filled.\n"
    "NAME is a bundled machine (see \"slabsim machine list\"); default " SIM_CLI_DEFAULT_MACHINE ".");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  if (argc > 2)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: expected at most one machine, got \"%s\" and \"%s\"",
                   argv[0], argv[1], argv[2]);
      return FALSE;
    }
  g_autoptr (SimMachine) m = sim_machine_load (argc == 2 ? argv[1] : SIM_CLI_DEFAULT_MACHINE,
                                               (const char *const *) sets, error);
  if (m == NULL)
    return FALSE;
  g_autofree char *yaml = sim_machine_to_yaml (m);
  fputs (yaml, stdout);
  return TRUE;
}

static gboolean
cmd_list (int argc, char **argv, GError **error)
{
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], NULL,
    "List the machines found in $SLABSIM_MACHINE_PATH, the source tree and the\n"
    "installed data directory, with their descriptions.");
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  if (!sim_cli_at_most_args (argv[0], argc, argv, 0, error))
    return FALSE;
  g_auto (GStrv) names = sim_machine_available ();
  guint broken = 0;
  for (char **n = names; *n; n++)
    {
      GError *local = NULL;
      g_autoptr (SimMachine) m = sim_machine_load (*n, NULL, &local);
      if (m == NULL)
        {
          printf ("%-20s (does not load)\n", *n);
          fprintf (stderr, "slabsim: %s\n", local->message);
          g_error_free (local);
          broken++;
          continue;
        }
      printf ("%-20s %s\n", *n, m->description);
    }
  if (broken)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                   "%s: %u machine file%s did not load", argv[0], broken,
                   broken == 1 ? "" : "s");
      return FALSE;
    }
  return TRUE;
}

static const SimVerb subs[] = {
  { "show", "print a machine with every default filled", cmd_show },
  { "list", "list the available machines", cmd_list },
  { "probe", "write a machine YAML for this host from sysfs", sim_cmd_machine_probe },
  { NULL, NULL, NULL }
};

gboolean
sim_cmd_machine (int argc, char **argv, GError **error)
{
  return sim_cli_dispatch_sub ("machine", subs, argc, argv, error);
}
