/* registry.c - the one list of allocator models.  Adding a model is one
 * file with its ops table and one line here. */
#include "models/alloc/alloc.h"
#include "models/alloc/slqb.h"
#include "models/alloc/slub.h"
#include "models/alloc/slab.h"

#include "sim/core/errors.h"

#include <string.h>

typedef const SimAllocOps *(*SimAllocOpsGetter) (void);

static const SimAllocOpsGetter getters[] = {
  sim_alloc_slub_ops,
  sim_alloc_slab_ops,
  sim_alloc_slqb_ops,
};

const SimAllocOps *const *
sim_alloc_models (void)
{
  static const SimAllocOps *models[G_N_ELEMENTS (getters) + 1];
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      for (guint i = 0; i < G_N_ELEMENTS (getters); i++)
        models[i] = getters[i] ();
      g_once_init_leave (&once, 1);
    }
  return models;
}

const SimAllocOps *
sim_alloc_model_lookup (const char *name)
{
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    if (strcmp ((*o)->name, name) == 0)
      return *o;
  return NULL;
}

const SimAllocOps *
sim_alloc_model_find (const char *name, GError **error)
{
  const SimAllocOps *ops = sim_alloc_model_lookup (name);
  if (ops)
    return ops;
  GString *names = g_string_new (NULL);
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    g_string_append_printf (names, "%s%s", names->len ? ", " : "", (*o)->name);
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
               "unknown allocator \"%s\" (known: %s)", name, names->str);
  g_string_free (names, TRUE);
  return NULL;
}
