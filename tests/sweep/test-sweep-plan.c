/* test-sweep-plan.c - sweep files: expansion, stable ids, errors. */
#include "tests/testutil.h"
#include "sim/sweep/sweep.h"
#include "sim/core/errors.h"

#include <string.h>
#include <glib/gstdio.h>

static char *trace_path;

static SimSweepPlan *
load (const char *yaml, GError **error)
{
  g_autofree char *text = g_strdup_printf ("trace: %s\n%s", trace_path, yaml);
  return sim_sweep_plan_load_data (text, strlen (text), "t.yaml", NULL, error);
}

static SimSweepPlan *
load_ok (const char *yaml)
{
  GError *error = NULL;
  SimSweepPlan *p = load (yaml, &error);
  if (p == NULL)
    print_error ("%s\n", error->message);
  assert_non_null (p);
  return p;
}

static SimSweepPoint *
point (SimSweepPlan *p, guint i)
{
  return g_ptr_array_index (p->points, i);
}

static void
test_grid_counts_and_order (void **state)
{
  (void) state;
  g_autoptr (SimSweepPlan) p = load_ok ("allocator: slub@2.6.34\naxes:\n  - grid:\n"
                                        "      slub_max_order: 0..3\n"
                                        "      slub_min_objects: [4, 8, 16, 32]\n");
  assert_int_equal (p->points->len, 16);
  /* First key outermost. */
  assert_string_equal (sim_sweep_point_get (point (p, 1), "slub_max_order"), "0");
  assert_string_equal (sim_sweep_point_get (point (p, 1), "slub_min_objects"), "8");
  assert_string_equal (sim_sweep_point_get (point (p, 4), "slub_max_order"), "1");
  assert_string_equal (point (p, 5)->spec, "slub@2.6.34:slub_max_order=1,slub_min_objects=8");
  assert_string_equal (p->axes[0], "slub_max_order");
  assert_string_equal (p->axes[1], "slub_min_objects");
  assert_null (p->axes[2]);
  /* Defaults are part of every point. */
  assert_string_equal (sim_sweep_point_get (point (p, 0), "touch"), "line");
  assert_string_equal (sim_sweep_point_get (point (p, 0), "machine"), "nehalem-ep-2s");
}

static void
test_zip_and_list_counts (void **state)
{
  (void) state;
  g_autoptr (SimSweepPlan) z = load_ok ("axes:\n  - zip: {slub_max_order: [0, 1, 3], "
                                        "slub_min_objects: [4, 8, 16]}\n");
  assert_int_equal (z->points->len, 3);
  assert_string_equal (sim_sweep_point_get (point (z, 2), "slub_min_objects"), "16");
  g_autoptr (SimSweepPlan) l = load_ok ("touch: [none, line]\naxes:\n  - list:\n"
                                        "      - {slub_max_order: 1}\n"
                                        "      - {slub_max_order: 2, machine.numa: false}\n"
                                        "  - grid: {replay: [ordered, timed]}\n");
  /* 2 touch x 2 list items x 2 replay modes */
  assert_int_equal (l->points->len, 8);
  assert_string_equal (sim_sweep_point_get (point (l, 0), "touch"), "none");
  assert_null (sim_sweep_point_get (point (l, 0), "machine.numa"));
  assert_string_equal (sim_sweep_point_get (point (l, 2), "machine.numa"), "false");
  assert_int_equal (point (l, 3)->mode, SIM_REPLAY_TIMED);
  /* Varying keys: those of axes: in file order, then the top-level lists. */
  assert_int_equal (g_strv_length (l->axes), 4);
  assert_string_equal (l->axes[0], "slub_max_order");
  assert_string_equal (l->axes[1], "machine.numa");
  assert_string_equal (l->axes[2], "replay");
  assert_string_equal (l->axes[3], "touch");
  /* Two machines: as given, and with numa off. */
  assert_int_equal (l->machines->len, 2);
  assert_false (((SimMachine *) g_ptr_array_index (l->machines, point (l, 2)->machine))->numa);
}

static void
test_ids_stable_and_key_order_free (void **state)
{
  (void) state;
  g_autoptr (SimSweepPlan) a = load_ok ("allocator: slub@2.6.34\ntouch: line\naxes:\n"
                                        "  - grid: {slub_max_order: [0, 1], slub_min_objects: [4, 8]}\n");
  g_autoptr (SimSweepPlan) b = load_ok ("axes:\n  - grid: {slub_min_objects: [4, 8], "
                                        "slub_max_order: [0, 1]}\nallocator: slub@2.6.34\n");
  assert_int_equal (a->points->len, 4);
  assert_int_equal (b->points->len, 4);
  /* Same set of ids whatever the order of the keys (b runs the grid
   * the other way round, so the indexes differ). */
  for (guint i = 0; i < 4; i++)
    {
      gboolean found = FALSE;
      for (guint k = 0; k < 4; k++)
        found |= strcmp (point (a, i)->id, point (b, k)->id) == 0;
      assert_true (found);
    }
  assert_string_equal (point (a, 1)->id, point (b, 2)->id);
  /* The id is the SHA-256 of the canonical text, which names everything. */
  g_autofree char *canon = g_strdup_printf ("allocator=slub@2.6.34\nmachine=nehalem-ep-2s\n"
                                            "replay=ordered\nslub_max_order=0\nslub_min_objects=8\n"
                                            "touch=line\ntrace=%s\n", trace_path);
  assert_string_equal (point (a, 1)->canonical, canon);
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canon, -1);
  sha[16] = '\0';
  assert_string_equal (point (a, 1)->id, sha);
  /* Loading again gives the same ids and plan id. */
  g_autoptr (SimSweepPlan) c = load_ok ("allocator: slub@2.6.34\ntouch: line\naxes:\n"
                                        "  - grid: {slub_max_order: [0, 1], slub_min_objects: [4, 8]}\n");
  assert_string_equal (a->plan_id, c->plan_id);
  assert_string_equal (point (a, 3)->id, point (c, 3)->id);
}

static void
expect_error (const char *yaml, gint code, const char *needle)
{
  GError *error = NULL;
  SimSweepPlan *p = load (yaml, &error);
  if (p)
    sim_sweep_plan_free (p);
  assert_null (p);
  assert_non_null (error);
  if (error->domain != SIM_CONFIG_ERROR || (code >= 0 && error->code != code))
    print_error ("domain/code %u/%d: %s\n", error->domain, error->code, error->message);
  assert_true (error->domain == SIM_CONFIG_ERROR);
  if (code >= 0)
    assert_int_equal (error->code, code);
  tu_assert_contains (error->message, needle);
  g_error_free (error);
}

static void
test_errors (void **state)
{
  (void) state;
  /* Line 1 is the trace the helper adds. */
  expect_error ("allocater: slub\n", SIM_CONFIG_ERROR_UNKNOWN_KEY,
                "t.yaml:2:1: unknown key \"allocater\" (did you mean \"allocator\"?)");
  expect_error ("axes:\n  - gird: {slub_max_order: [1]}\n", SIM_CONFIG_ERROR_UNKNOWN_KEY,
                "t.yaml:3:5: axes.0: unknown key \"gird\" (did you mean \"grid\"?)");
  expect_error ("axes:\n  - grid: {slub_max_order: []}\n", SIM_CONFIG_ERROR_BAD_VALUE,
                "t.yaml:3:12: axes.0.grid.slub_max_order: empty list of values");
  expect_error ("axes: []\n", SIM_CONFIG_ERROR_BAD_VALUE, "t.yaml:2:1: axes: empty list of axes");
  /* Each node that needs entries: the wrong kind, then an empty one. */
  expect_error ("axes: {grid: 1}\n", -1, "t.yaml:2:1: axes: expected a sequence, got a mapping");
  expect_error ("axes:\n  - grid: {}\n", SIM_CONFIG_ERROR_BAD_VALUE,
                "t.yaml:3:5: axes.0.grid: empty grid (expected KEY: [VALUES...] entries)");
  expect_error ("axes:\n  - zip: {}\n", SIM_CONFIG_ERROR_BAD_VALUE,
                "t.yaml:3:5: axes.0.zip: empty zip (expected KEY: [VALUES...] entries)");
  expect_error ("axes:\n  - grid: [1]\n", -1, "t.yaml:3:5: axes.0.grid: expected a mapping, got a sequence");
  expect_error ("axes:\n  - list: []\n", SIM_CONFIG_ERROR_BAD_VALUE,
                "t.yaml:3:5: axes.0.list: empty list (expected mappings of KEY: VALUE, one per point)");
  expect_error ("axes:\n  - list: {a: 1}\n", -1, "t.yaml:3:5: axes.0.list: expected a sequence, got a mapping");
  expect_error ("axes:\n  - list: [{}]\n", SIM_CONFIG_ERROR_BAD_VALUE,
                "t.yaml:3:12: axes.0.list.0: empty point (expected KEY: VALUE entries)");
  expect_error ("axes:\n  - list: [1]\n", -1, "t.yaml:3:12: axes.0.list.0: expected a mapping, got a scalar");
  expect_error ("axes:\n  - zip: {slub_max_order: [1, 2], slub_min_objects: [4]}\n",
                SIM_CONFIG_ERROR_BAD_VALUE, "zipped lists must have equal lengths");
  expect_error ("allocator: slub@2.6.34\naxes:\n  - grid: {slub_max_ordr: [1]}\n",
                SIM_CONFIG_ERROR_BAD_VALUE,
                "t.yaml:4:12: axes.0.grid.slub_max_ordr: allocator slub@2.6.34:slub_max_ordr=1: ");
  expect_error ("allocator: slub@2.6.34\naxes:\n  - grid: {slub_max_ordr: [1]}\n", -1,
                "unknown parameter \"slub_max_ordr\"");
  expect_error ("axes:\n  - grid: {slub_max_order: [1]}\n  - list: [{slub_max_order: 2}]\n",
                SIM_CONFIG_ERROR_DUPLICATE_KEY, "parameter \"slub_max_order\" is already set at 3:12");
  expect_error ("touch: lines\n", SIM_CONFIG_ERROR_BAD_VALUE,
                "t.yaml:2:8: touch: unknown touch \"lines\" (expected one of: none, line, object)");
  expect_error ("axes:\n  - grid: {machine.nuam: [true]}\n", -1, "t.yaml:3:27: --set machine.nuam=true: no key");
  expect_error ("axes:\n  - grid: {slub_max_order: 3..1}\n", SIM_CONFIG_ERROR_BAD_VALUE,
                "bad range \"3..1\"");
}

static void
test_missing_trace_and_cli_exit_code (void **state)
{
  (void) state;
  GError *error = NULL;
  SimSweepPlan *p = sim_sweep_plan_load_data ("machine: nehalem-ep-2s\n", 22, "u.yaml", NULL, &error);
  assert_null (p);
  tu_assert_contains (error->message, "u.yaml:1:1: missing key \"trace\"");
  g_clear_error (&error);
  p = sim_sweep_plan_load_data ("trace: no/such.trace\n", 21, "v.yaml", NULL, &error);
  assert_null (p);
  tu_assert_contains (error->message, "v.yaml:1:8: trace: trace \"no/such.trace\" not found");
  g_clear_error (&error);

  g_autofree char *yaml = tu_write_temp (".yaml", "trace: x\nfoo: 1\n", -1);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "sweep", yaml, "-o", "/nonexistent", NULL }), 2);
  tu_assert_contains (err, ":2:1: unknown key \"foo\"");
  g_unlink (yaml);
}

/* Two identical points are refused (and the message's copy of their
 * parameters is not leaked: the sanitized run checks leaks). */
static void
test_identical_points (void **state)
{
  (void) state;
  GError *error = NULL;
  SimSweepPlan *p = load ("allocator: slub@6.18\naxes:\n  - list: [ {slub_max_order: 1}, "
                          "{slub_max_order: 1} ]\n", &error);
  assert_null (p);
  tu_assert_contains (error->message, "points 0 and 1 have the same parameters");
  tu_assert_contains (error->message, "slub_max_order=1 ");
  g_clear_error (&error);
}

/* The number of points is capped before anything is expanded, and the
 * error names the product (issue 9 item 9: three axes of 0..100000 grew
 * until memory ran out). */
static void
test_point_cap (void **state)
{
  (void) state;
  GError *error = NULL;
  SimSweepPlan *p = load ("axes:\n  - grid: { a: 0..100000, b: 0..100000, c: 0..100000 }\n",
                          &error);
  assert_null (p);
  g_assert_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID);
  tu_assert_contains (error->message, "t.yaml:3:5: axes.0.grid: this grid has "
                      "100001 x 100001 x 100001 = 1000030000300001 points; "
                      "a sweep may have at most 1000000");
  g_clear_error (&error);
  /* Across axes: each small, the product too big. */
  p = load ("axes:\n  - grid: { slub_min_objects: 0..999 }\n  - grid: { slub_max_order: 0..9 }\n"
            "  - zip: { x: 0..999, y: 0..999 }\n", &error);
  assert_null (p);
  tu_assert_contains (error->message, "t.yaml: the sweep has 1000 x 10 x 1000 = 10000000 points");
  g_clear_error (&error);
  /* Overflow of the product is reported, not wrapped. */
  GString *y = g_string_new ("axes:\n");
  for (guint i = 0; i < 5; i++)
    g_string_append_printf (y, "  - grid: { k%u: 0..100000 }\n", i);
  p = load (y->str, &error);
  g_string_free (y, TRUE);
  assert_null (p);
  tu_assert_contains (error->message, "= more than 2^64 points");
  g_clear_error (&error);
}

int
main (void)
{
  trace_path = tu_source_path ("traces/samples/udp-4k.trace.gz");
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_grid_counts_and_order),
    cmocka_unit_test (test_zip_and_list_counts),
    cmocka_unit_test (test_ids_stable_and_key_order_free),
    cmocka_unit_test (test_errors),
    cmocka_unit_test (test_missing_trace_and_cli_exit_code),
    cmocka_unit_test (test_identical_points),
    cmocka_unit_test (test_point_cap),
  };
  int rc = cmocka_run_group_tests_name ("sweep-plan", tests, NULL, NULL);
  g_free (trace_path);
  return rc;
}
