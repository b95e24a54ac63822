/* world.c - see world.h. */
#include "tests/alloc/world.h"

void
tu_world_init (TuWorld *w, const char *spec_text, const char *const *overrides,
               guint64 managed_bytes, gboolean engine)
{
  GError *error = NULL;
  *w = (TuWorld) { 0 };
  w->spec = sim_alloc_spec_parse (spec_text, &error);
  assert_non_null (w->spec);
  const SimAllocOps *ops = sim_alloc_model_lookup (w->spec->name);
  assert_non_null (ops);
  w->ops = ops;
  w->machine = sim_machine_load ("nehalem-ep-2s", overrides, &error);
  assert_non_null (w->machine);
  w->mem = sim_memsys_new (w->machine, &error);
  assert_non_null (w->mem);
  SimPageParams pp = { .era = sim_page_era_for_kernel (w->spec->kernel ? w->spec->kernel
                                                                       : ops->kernels[0]),
                       .managed_bytes = managed_bytes };
  w->pages = sim_page_alloc_new (w->machine, w->mem, &pp, &error);
  assert_non_null (w->pages);
  if (engine)
    w->eng = sim_engine_new (w->machine->n_cpus);
  w->env = (SimAllocEnv) { .machine = w->machine, .mem = w->mem, .pages = w->pages,
                           .eng = w->eng, .n_cpus = w->machine->n_cpus, .seed = 1 };
}

void
tu_world_clear (TuWorld *w)
{
  if (w->eng)
    sim_engine_free (w->eng);
  sim_page_alloc_free (w->pages);
  sim_memsys_free (w->mem);
  sim_machine_free (w->machine);
  sim_alloc_spec_free (w->spec);
  *w = (TuWorld) { 0 };
}

void
tu_world_assert_model (gconstpointer model, GError *error)
{
  if (model == NULL)
    {
      print_error ("%s\n", error ? error->message : "model creation failed");
      fail ();
    }
}

void
tu_world_alloc_n (TuWorld *w, SimCacheId id, guint cpu, SimAddr *objs, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      sim_op_begin (&w->op, w->mem, cpu, 0);
      objs[i] = w->ops->cache_alloc (w->model, &w->op, id, SIM_NUMA_NO_NODE, 0);
      assert_true (objs[i] != 0);
    }
}

void
tu_world_free_n (TuWorld *w, guint cpu, const SimAddr *objs, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      sim_op_begin (&w->op, w->mem, cpu, 0);
      assert_true (w->ops->free (w->model, &w->op, objs[i]));
    }
}

void
tu_world_check (TuWorld *w)
{
  GError *error = NULL;
  if (!w->ops->check (w->model, &error))
    {
      print_error ("invariant: %s\n", error->message);
      fail ();
    }
}
