/* test-clamp-warn.c - a parameter the kernel's parameter code clamps
 * (setup_slub_max_order(): slub_max_order=99 is MAX_PAGE_ORDER, 10) is
 * run as the kernel would run it and said on stderr by every verb that
 * takes an allocator spec: run, validate, sweep and geometry
 * (sim/cli/params.c, one place).  A value in range says nothing. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <string.h>

static char *trace;

static int
setup (void **state)
{
  (void) state;
  trace = tu_trace_gen ("hackbench", "6.18", (const char *[]) { "--loops", "5", NULL });
  return trace ? 0 : -1;
}

static int
teardown (void **state)
{
  (void) state;
  g_unlink (trace);
  g_free (trace);
  return 0;
}

static const char warn_tail[] = "slub@6.18: slub_max_order=99 is 10 in effect, as the kernel's "
                                "parameter code sets it\n";

static void
test_run (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "-a", "slub@6.18:slub_max_order=99",
                                                          trace, NULL }), 0);
  g_autofree char *want = g_strconcat ("slabsim run: warning: ", warn_tail, NULL);
  tu_assert_contains (err, want);
}

static void
test_validate (void **state)
{
  (void) state;
  g_autofree char *err = NULL, *err3 = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "validate", "-a",
                                                          "slub@6.18:slub_max_order=99", trace,
                                                          NULL }), 0);
  g_autofree char *want = g_strconcat ("slabsim validate: warning: ", warn_tail, NULL);
  tu_assert_contains (err, want);
  assert_int_equal (tu_count (err, "warning:"), 1);
  assert_int_equal (tu_run (NULL, &err3, (const char *[]) { "validate", "-a",
                                                           "slub@6.18:slub_max_order=3", trace,
                                                           NULL }), 0);
  assert_null (strstr (err3, "in effect"));
}

static void
test_geometry (void **state)
{
  (void) state;
  g_autofree char *tsv = tu_write_temp (".tsv", "name\tobject_size\talign\tflags\nfoo\t200\t8\t-\n", -1);
  g_autofree char *out = NULL, *err = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "geometry", "-a",
                                                          "slub@6.18:slub_max_order=99", tsv,
                                                          NULL }), 0);
  g_autofree char *want = g_strconcat ("slabsim geometry: warning: ", warn_tail, NULL);
  tu_assert_contains (err, want);
  tu_assert_contains (out, "foo\t200\t");
  /* 6.x's slab_ spelling sets the same variable and is named as given. */
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "geometry", "-a",
                                                           "slub@6.18:slab_max_order=12", tsv,
                                                           NULL }), 0);
  tu_assert_contains (err2, "slabsim geometry: warning: slub@6.18: slab_max_order=12 is 10 in effect");
  /* In range: the same table, nothing said. */
  assert_int_equal (tu_run (&out3, &err3, (const char *[]) { "geometry", "-a",
                                                            "slub@6.18:slub_max_order=10", tsv,
                                                            NULL }), 0);
  assert_string_equal (err3, "");
  assert_string_equal (out3, out);
  g_unlink (tsv);
}

/* Before the points run, once per spec (two of the four points clamp). */
static void
test_sweep (void **state)
{
  (void) state;
  g_autofree char *yaml = g_strdup_printf ("name: clamp\ntrace: %s\nallocator: slub@6.18\naxes:\n"
                                           "  - grid:\n      slub_max_order: [3, 99]\n"
                                           "      slub_min_objects: [4, 8]\n", trace);
  g_autofree char *plan = tu_write_temp (".yaml", yaml, -1);
  g_autofree char *dir = g_dir_make_tmp ("slabsim-clamp-XXXXXX", NULL);
  g_autofree char *out_dir = g_build_filename (dir, "out", NULL);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "sweep", plan, "-o", out_dir, NULL }), 0);
  assert_int_equal (tu_count (err, "slabsim sweep: warning: slub@6.18: slub_max_order=99 is 10 in "
                                   "effect"), 2);
  assert_null (strstr (err, "slub_max_order=3 is"));
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  assert_int_equal (system (cmd), 0);
  g_unlink (plan);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_run),
    cmocka_unit_test (test_validate),
    cmocka_unit_test (test_geometry),
    cmocka_unit_test (test_sweep),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
