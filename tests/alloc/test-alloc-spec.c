/* test-alloc-spec.c - the allocator spec string and SLUB's boot parameters. */
#include "tests/testutil.h"
#include "models/alloc/alloc-spec.h"
#include "models/alloc/slub-size.h"
#include "sim/core/errors.h"
#include <string.h>

static void
test_parse_full (void **state)
{
  (void) state;
  g_autoptr (GError) error = NULL;
  g_autoptr (SimAllocSpec) s =
    sim_alloc_spec_parse ("slub@2.6.23:slub_max_order=3,slub_min_objects=8,slub_nomerge", &error);
  assert_non_null (s);
  assert_string_equal (s->name, "slub");
  assert_string_equal (s->kernel, "2.6.23");
  assert_int_equal (s->params->len, 3);
  SimAllocParam *p = &g_array_index (s->params, SimAllocParam, 0);
  assert_string_equal (p->key, "slub_max_order");
  assert_string_equal (p->value, "3");
  p = &g_array_index (s->params, SimAllocParam, 2);
  assert_string_equal (p->key, "slub_nomerge");
  assert_null (p->value);
}

static void
test_parse_plain (void **state)
{
  (void) state;
  g_autoptr (SimAllocSpec) s = sim_alloc_spec_parse ("slub", NULL);
  assert_non_null (s);
  assert_null (s->kernel);
  assert_int_equal (s->params->len, 0);
}

static void
expect_parse_error (const char *text, const char *needle)
{
  g_autoptr (GError) error = NULL;
  SimAllocSpec *s = sim_alloc_spec_parse (text, &error);
  assert_null (s);
  assert_non_null (error);
  assert_true (g_error_matches (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE));
  tu_assert_contains (error->message, needle);
  tu_assert_contains (error->message, "expected NAME[@KERNEL]");
}

static void
test_parse_errors (void **state)
{
  (void) state;
  expect_parse_error ("", "empty allocator name");
  expect_parse_error ("@6.18", "empty allocator name");
  expect_parse_error ("slub@", "empty kernel version");
  expect_parse_error ("slub@6 18", "is not a version");
  expect_parse_error ("slub:", "empty parameter list");
  expect_parse_error ("slub:slub_max_order=3,", "empty parameter");
  expect_parse_error ("slub:=3", "empty parameter");
  expect_parse_error ("slub:slub_max_order=", "has an empty value");
  expect_parse_error ("slub:a=1,a=2", "given twice");
  expect_parse_error ("sl ub", "is not an allocator name");
}

static void
test_param_uint (void **state)
{
  (void) state;
  SimAllocParam p = { (char *) "slub_max_order", (char *) "x3" };
  guint v = 0;
  g_autoptr (GError) error = NULL;
  assert_false (sim_alloc_param_uint (&p, 10, &v, &error));
  tu_assert_contains (error->message, "\"x3\" is not a number from 0 to 10");
  g_clear_error (&error);
  p.value = NULL;
  assert_false (sim_alloc_param_uint (&p, 10, &v, &error));
  tu_assert_contains (error->message, "needs a value");
  g_clear_error (&error);
  p.value = (char *) "7";
  assert_true (sim_alloc_param_uint (&p, 10, &v, &error));
  assert_int_equal (v, 7);
}

static gboolean
config (const char *text, guint cpus, SimSlubConfig *cfg, GError **error)
{
  g_autoptr (SimAllocSpec) s = sim_alloc_spec_parse (text, error);
  return s && sim_slub_config_from_spec (cfg, s, cpus, error);
}

static void
test_slub_defaults (void **state)
{
  (void) state;
  SimSlubConfig cfg;
  assert_true (config ("slub", 2, &cfg, NULL));
  assert_string_equal (cfg.era->kernel, "6.18");
  assert_int_equal (cfg.max_order, 3);
  assert_int_equal (cfg.min_objects, 0);
  assert_true (config ("slub@2.6.23", 16, &cfg, NULL));
  assert_int_equal (cfg.max_order, 1);
  assert_int_equal (cfg.min_objects, 4);
  assert_int_equal (cfg.nr_cpus, 16);
  assert_true (config ("slub@2.6.34", 16, &cfg, NULL));
  assert_int_equal (cfg.max_order, 3);
  assert_int_equal (cfg.min_objects, 0);
  assert_false (cfg.nomerge);
}

static void
test_slub_unknown_era (void **state)
{
  (void) state;
  SimSlubConfig cfg;
  g_autoptr (GError) error = NULL;
  assert_false (config ("slub@5.10", 1, &cfg, &error));
  assert_int_equal (sim_error_exit_code (error), 2);
  tu_assert_contains (error->message, "unknown kernel \"5.10\"");
  tu_assert_contains (error->message, "2.6.23");
  tu_assert_contains (error->message, "2.6.34");
  tu_assert_contains (error->message, "6.18");
  g_clear_error (&error);
  assert_false (config ("slab@6.18", 1, &cfg, &error));
  tu_assert_contains (error->message, "unknown allocator \"slab\"");
}

static void
test_slub_unknown_param (void **state)
{
  (void) state;
  SimSlubConfig cfg;
  g_autoptr (GError) error = NULL;
  assert_false (config ("slub@6.18:slub_max_orders=3", 1, &cfg, &error));
  assert_true (g_error_matches (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY));
  tu_assert_contains (error->message, "unknown parameter \"slub_max_orders\"");
  tu_assert_contains (error->message, "slub_min_order, slub_max_order, slub_min_objects, slub_nomerge");
  tu_assert_contains (error->message, "slab_max_order");
  g_clear_error (&error);
  /* The slab_* spellings are accepted in every era as aliases of the
   * slub_* variables (in 2.6.x kernels only slub_* existed). */
  assert_true (config ("slub@2.6.23:slab_max_order=3", 1, &cfg, &error));
  assert_int_equal (cfg.max_order, 3);
  assert_true (config ("slub@2.6.34:slab_nomerge", 1, &cfg, &error));
  assert_true (cfg.nomerge);
  /* One variable given under both names is a repeated parameter. */
  assert_false (config ("slub@2.6.34:slab_max_order=2,slub_max_order=3", 1, &cfg, &error));
  g_clear_error (&error);
  assert_true (config ("slub@6.18:slab_max_order=2,slab_min_objects=5,slab_nomerge", 1, &cfg, &error));
  assert_int_equal (cfg.max_order, 2);
  assert_int_equal (cfg.min_objects, 5);
  assert_true (cfg.nomerge);
}

static void
test_slub_param_values (void **state)
{
  (void) state;
  SimSlubConfig cfg;
  g_autoptr (GError) error = NULL;
  /* Both spellings set one variable. */
  assert_false (config ("slub@6.18:slub_max_order=2,slab_max_order=3", 1, &cfg, &error));
  tu_assert_contains (error->message, "already given");
  g_clear_error (&error);
  /* 2.6.34 and 6.18 clamp slub_max_order to the highest page order. */
  assert_true (config ("slub@2.6.34:slub_max_order=20", 1, &cfg, NULL));
  assert_int_equal (cfg.max_order, 10);
  assert_true (config ("slub@6.18:slub_max_order=20", 1, &cfg, NULL));
  assert_int_equal (cfg.max_order, 10);
  /* 2.6.23 does not: refuse rather than model failing slab allocations. */
  assert_false (config ("slub@2.6.23:slub_max_order=11", 1, &cfg, &error));
  tu_assert_contains (error->message, "expected 0 to 10");
  g_clear_error (&error);
  /* 6.x setup_slub_min_order raises the maximum, setup_slub_max_order
   * lowers the minimum: order of parameters matters as on the kernel
   * command line. */
  assert_true (config ("slub@6.18:slub_min_order=5", 1, &cfg, NULL));
  assert_int_equal (cfg.min_order, 5);
  assert_int_equal (cfg.max_order, 5);
  assert_true (config ("slub@6.18:slub_min_order=5,slub_max_order=2", 1, &cfg, NULL));
  assert_int_equal (cfg.min_order, 2);
  assert_int_equal (cfg.max_order, 2);
  assert_true (config ("slub@2.6.34:slub_min_order=5", 1, &cfg, NULL));
  assert_int_equal (cfg.max_order, 3);
  assert_false (config ("slub@6.18:slub_min_objects=lots", 1, &cfg, &error));
  tu_assert_contains (error->message, "\"lots\" is not a number");
  g_clear_error (&error);
  assert_false (config ("slub@6.18:slub_nomerge=2", 1, &cfg, &error));
  tu_assert_contains (error->message, "takes no value");
  g_clear_error (&error);
  assert_true (config ("slub@6.18:slub_nomerge=1,slab_merge", 1, &cfg, NULL));
  assert_false (cfg.nomerge);
}

/* HZ by era: what an x86-64 defconfig of each modelled era sets
 * (arch/x86_64/defconfig CONFIG_HZ_250 up to 2.6.23, x86_64_defconfig
 * CONFIG_HZ_1000 after the merge). */
static void
test_kernel_hz (void **state)
{
  (void) state;
  assert_int_equal (sim_kernel_hz ("2.6.23"), 250);
  assert_int_equal (sim_kernel_hz ("2.6.22.19"), 250);
  assert_int_equal (sim_kernel_hz ("2.6.31-slqb"), 1000);
  assert_int_equal (sim_kernel_hz ("2.6.33"), 1000);
  assert_int_equal (sim_kernel_hz ("2.6.34"), 1000);
  assert_int_equal (sim_kernel_hz ("6.18"), 1000);
  assert_int_equal (sim_kernel_hz ("7.x"), 1000);
  assert_int_equal (sim_kernel_hz (NULL), 1000);
  guint hz = 0;
  SimAllocParam ok = { (char *) "hz", (char *) "300" }, bad = { (char *) "hz", (char *) "200" };
  assert_true (sim_alloc_param_hz (&ok, &hz, NULL));
  assert_int_equal (hz, 300);
  g_autoptr (GError) error = NULL;
  assert_false (sim_alloc_param_hz (&bad, &hz, &error));
  tu_assert_contains (error->message, "100, 250, 300 or 1000");
  assert_int_equal (hz, 300);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_parse_full),
    cmocka_unit_test (test_parse_plain),
    cmocka_unit_test (test_parse_errors),
    cmocka_unit_test (test_param_uint),
    cmocka_unit_test (test_slub_defaults),
    cmocka_unit_test (test_slub_unknown_era),
    cmocka_unit_test (test_slub_unknown_param),
    cmocka_unit_test (test_slub_param_values),
    cmocka_unit_test (test_kernel_hz),
  };
  return cmocka_run_group_tests_name ("alloc-spec", tests, NULL, NULL);
}
