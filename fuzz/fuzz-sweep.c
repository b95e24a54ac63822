/* fuzz-sweep.c - libFuzzer target: sweep plans (sim/sweep/plan.c).  The
 * input is a plan file, resolved against configs/sweeps/ as if it lived
 * there, so the bundled plans' relative trace paths work.  Loading a plan
 * expands its axes, loads every distinct machine with its overrides and
 * builds each allocator model once (the fuzz build caps the cache model's
 * host memory, SIM_MEMSYS_MAX_HOST_BYTES, below the fuzzer's RSS limit).
 * Errors are expected; a plan that loads must have points numbered in
 * order, each with an id and one of the plan's machines. */
#include "fuzz/fuzz-yaml.h"
#include "sim/sweep/sweep.h"
#include "slabsim-config.h"

#include "sim/core/errors.h"

#include <string.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* a GLib warning or critical is a bug: abort so libFuzzer keeps the input */
  sim_install_fatal_log_writer (TRUE);
  g_autoptr (GPtrArray) parts = sim_fuzz_split (data, size);
  gsize len = 0;
  const char *yaml = g_bytes_get_data (g_ptr_array_index (parts, 0), &len);
  g_autofree char *base = g_build_filename (SLABSIM_SOURCE_DIR, "configs", "sweeps", NULL);
  GError *error = NULL;
  g_autoptr (SimSweepPlan) plan = sim_sweep_plan_load_data (yaml, len, "fuzz-sweep.yaml",
                                                            base, &error);
  if (plan == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->message[0] != '\0');
      g_clear_error (&error);
      return 0;
    }
  g_assert_no_error (error);
  for (guint i = 0; i < plan->points->len; i++)
    {
      const SimSweepPoint *p = g_ptr_array_index (plan->points, i);
      g_assert_cmpuint (p->index, ==, i);
      g_assert_cmpuint (p->machine, <, plan->machines->len);
      g_assert_cmpuint (strlen (p->id), ==, SIM_SWEEP_ID_LEN);
    }
  return 0;
}
