/* params.c - what the verbs say about the parameters a model holds.
 *
 * An allocator spec's parameter is run as the kernel's parameter code
 * would set it: setup_slub_max_order() makes slub_max_order=99 the page
 * allocator's highest order (10), 6.x's setup_slub_min_order() raises the
 * maximum with the minimum.  The run is right, but a user who asked for 99
 * must be told.  The model's canonical parameters ("key=value,...", what
 * its ops->params prints) are compared here with the spec's, so no model
 * prints and run, validate, sweep and geometry say it the same way.
 */
#include "sim/cli/cli.h"
#include "models/alloc/alloc-spec.h"
#include "sim/run/replay.h"

#include <stdio.h>
#include <string.h>

void
sim_cli_warn_held_params (const char *verb, const char *spec_text, const char *allocator,
                          const char *kernel, const char *held)
{
  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (spec_text, NULL);
  if (spec == NULL || held == NULL)
    return;
  g_auto (GStrv) have = g_strsplit (held, ",", -1);
  for (guint i = 0; i < spec->params->len; i++)
    {
      const SimAllocParam *p = &g_array_index (spec->params, SimAllocParam, i);
      if (p->value == NULL)
        continue;
      /* SLUB's 6.x slab_* spellings set the slub_* variables. */
      g_autofree char *alias = g_str_has_prefix (p->key, "slab_") && strcmp (allocator, "slub") == 0
                               ? g_strconcat ("slub_", p->key + 5, NULL) : NULL;
      for (char **h = have; *h; h++)
        {
          const char *eq = strchr (*h, '=');
          if (eq == NULL)
            continue;
          gsize klen = (gsize) (eq - *h);
          gboolean same_key = (strlen (p->key) == klen && strncmp (*h, p->key, klen) == 0)
                              || (alias && strlen (alias) == klen && strncmp (*h, alias, klen) == 0);
          if (same_key && strcmp (eq + 1, p->value) != 0)
            fprintf (stderr, "slabsim %s: warning: %s@%s: %s=%s is %s in effect, as the "
                     "kernel's parameter code sets it\n", verb, allocator, kernel, p->key,
                     p->value, eq + 1);
        }
    }
}

gboolean
sim_cli_warn_spec (const char *verb, const char *spec_text, const SimMachine *machine)
{
  /* Only a parameter given a value can be held at another: a spec without
   * one costs no model (making one allocates the machine's cache model). */
  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (spec_text, NULL);
  gboolean valued = FALSE;
  for (guint i = 0; spec && i < spec->params->len; i++)
    valued |= g_array_index (spec->params, SimAllocParam, i).value != NULL;
  if (!valued)
    return spec != NULL;
  SimReplayOptions opt = { .machine = machine };
  SimReplayResult res;
  SimReplay *rp = sim_replay_new (spec_text, &opt, &res, NULL);
  gboolean made = rp != NULL;
  if (made)
    sim_cli_warn_held_params (verb, spec_text, res.allocator, res.kernel, res.params);
  sim_replay_free (rp);
  sim_replay_result_clear (&res);
  return made;
}
