/* cmd-list.c - "slabsim list allocators|kernels|params|machines|metrics".
 *
 * What a spec, a --machine or a --metric may name, printed from the tables
 * the code itself checks them against (the allocator registry and each
 * model's kernels and parameter tables, the machine catalogue, the report
 * model's metric table), so the lists cannot drift from what is accepted.
 * One item a line, tab-free, the name first, so a script can cut it.
 */
#include "sim/cli/cli.h"
#include "models/alloc/alloc.h"
#include "sim/config/machine-schema.h"
#include "sim/core/errors.h"
#include "sim/report/report-data.h"

#include <stdio.h>
#include <string.h>

/* Parse a sub-verb that takes no operands beyond @max_args. */
static gboolean
parse_plain (int *argc, char ***argv, const char *params, const char *summary,
             int max_args, GError **error)
{
  const char *verb = (*argv)[0];
  g_autoptr (GOptionContext) ctx = sim_cli_context (verb, params, summary);
  return sim_cli_parse (ctx, verb, argc, argv, error)
         && sim_cli_at_most_args (verb, *argc, *argv, max_args, error);
}

static gboolean
cmd_allocators (int argc, char **argv, GError **error)
{
  if (!parse_plain (&argc, &argv, NULL,
                    "List the allocator models and the kernels each one models\n"
                    "(the first is the default when a spec names none).", 0, error))
    return FALSE;
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    {
      g_autofree char *k = g_strjoinv (" ", (char **) (*o)->kernels);
      printf ("%-6s %s\n", (*o)->name, k);
    }
  return TRUE;
}

static gboolean
cmd_kernels (int argc, char **argv, GError **error)
{
  if (!parse_plain (&argc, &argv, NULL,
                    "List every allocator@kernel a spec may name, one a line.", 0, error))
    return FALSE;
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    for (guint i = 0; (*o)->kernels[i]; i++)
      printf ("%s@%s%s\n", (*o)->name, (*o)->kernels[i], i == 0 ? " (default)" : "");
  return TRUE;
}

static gboolean
cmd_params (int argc, char **argv, GError **error)
{
  if (!parse_plain (&argc, &argv, "[ALLOCATOR[@KERNEL]]",
                    "List the parameters each allocator@kernel accepts in a spec\n"
                    "(slub@6.18:slub_max_order=1), or those of one allocator or era.", 1, error))
    return FALSE;
  g_autofree char *want = argc > 1 ? g_strdup (argv[1]) : NULL;
  char *want_kernel = want ? strchr (want, '@') : NULL;
  if (want_kernel)
    *want_kernel++ = '\0';
  const SimAllocOps *only = NULL;
  if (want && (only = sim_alloc_model_find (want, error)) == NULL)
    return FALSE;
  gboolean found = FALSE;
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    {
      if (only && *o != only)
        continue;
      for (guint i = 0; (*o)->kernels[i]; i++)
        {
          if (want_kernel && strcmp (want_kernel, (*o)->kernels[i]) != 0)
            continue;
          g_auto (GStrv) names = (*o)->param_names ((*o)->kernels[i]);
          g_autofree char *list = names ? g_strjoinv (" ", names) : g_strdup ("");
          printf ("%s@%s %s\n", (*o)->name, (*o)->kernels[i], list);
          found = TRUE;
        }
    }
  if (!found)
    {
      g_autofree char *k = g_strjoinv (", ", (char **) only->kernels);
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: %s has no model of kernel %s (known: %s)", argv[0], only->name,
                   want_kernel, k);
      return FALSE;
    }
  return TRUE;
}

static gboolean
cmd_machines (int argc, char **argv, GError **error)
{
  if (!parse_plain (&argc, &argv, NULL,
                    "List the machine names --machine takes (the same catalogue as\n"
                    "\"slabsim machine list\", names only).", 0, error))
    return FALSE;
  g_auto (GStrv) names = sim_machine_available ();
  for (char **n = names; *n; n++)
    printf ("%s\n", *n);
  return TRUE;
}

static gboolean
cmd_metrics (int argc, char **argv, GError **error)
{
  if (!parse_plain (&argc, &argv, NULL,
                    "List the metrics \"slabsim report --metric\" takes, with their titles\n"
                    "and which way is better.", 0, error))
    return FALSE;
  guint n;
  const SimReportMetric *m = sim_report_metrics (&n);
  for (guint i = 0; i < n; i++)
    printf ("%-22s %-6s %s\n", m[i].name, m[i].higher_is_better ? "higher" : "lower",
            m[i].title);
  return TRUE;
}

static const SimVerb subs[] = {
  { "allocators", "the allocator models and their kernels", cmd_allocators },
  { "kernels",    "every allocator@kernel a spec may name", cmd_kernels },
  { "params",     "the parameters each allocator@kernel accepts", cmd_params },
  { "machines",   "the machine names --machine takes", cmd_machines },
  { "metrics",    "the metrics report --metric takes", cmd_metrics },
  { NULL, NULL, NULL }
};

gboolean
sim_cmd_list (int argc, char **argv, GError **error)
{
  return sim_cli_dispatch_sub ("list", subs, argc, argv, error);
}
