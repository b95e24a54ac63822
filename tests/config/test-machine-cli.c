/* test-machine-cli.c - "slabsim machine show|list" end to end: output,
 * exit codes and messages. */
#include "tests/testutil.h"
#include <string.h>
#include <glib/gstdio.h>

static void
test_show_default (void **state)
{
  (void) state;
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "machine", "show", NULL }), 0);
  tu_assert_contains (out, "name: \"nehalem-ep-2s\"\n");
  tu_assert_contains (out, "  numbering: socket-interleaved\n");
  tu_assert_contains (out, "  local_latency: 176  # cycles\n");
  assert_string_equal (err, "");
}

static void
test_show_output_loads_back (void **state)
{
  (void) state;
  static const char *const names[] = {
    "nehalem-ep-2s", "core2-quad", "opteron-2s", "sapphire-rapids-2s"
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *a = NULL, *b = NULL;
      assert_int_equal (tu_run (&a, NULL, (const char *[]) { "machine", "show", names[i],
                                                             NULL }), 0);
      g_autofree char *path = tu_write_temp (".yaml", a, -1);
      assert_int_equal (tu_run (&b, NULL, (const char *[]) { "machine", "show", path, NULL }), 0);
      /* Identical but for the first line, which names the source. */
      assert_string_equal (strchr (a, '\n'), strchr (b, '\n'));
      g_unlink (path);
    }
}

static void
test_show_set (void **state)
{
  (void) state;
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "machine", "show", "--set",
                                                           "machine.numa=false", "-s",
                                                           "caches.L2.size=512K",
                                                           "opteron-2s", NULL }), 0);
  tu_assert_contains (out, "  numa: false\n");
  tu_assert_contains (out, "    size: 512KiB\n");
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "machine", "show", "--set",
                                                           "memory.nmua=false", NULL }), 2);
  assert_string_equal (err, "slabsim: --set memory.nmua=false: no key \"memory.nmua\" "
                            "(did you mean \"memory.numa\"?)\n");
  g_autofree char *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "machine", "show", "--set",
                                                            "numa", NULL }), 2);
  tu_assert_contains (err2, "expected KEY=VALUE");
}

/* Issue 9 item 7: a blank key crashed both verbs (SIGSEGV); now a usage
 * error, exit 2, before any trace is read. */
static void
test_set_blank_key (void **state)
{
  (void) state;
  static const char *const sets[] = { " =1", "  =x", "a..b=1", "caches.=1", "=1", "x" };
  for (guint i = 0; i < G_N_ELEMENTS (sets); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      assert_int_equal (tu_run (&out, &err, (const char *[]) { "machine", "show", "--set",
                                                               sets[i], NULL }), 2);
      assert_string_equal (out, "");
      tu_assert_contains (err, "slabsim: --set ");
      g_autofree char *err2 = NULL;
      assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "run", "--set", sets[i],
                                                                "/nonexistent.trace", NULL }),
                        2);
      tu_assert_contains (err2, "slabsim: --set ");
    }
}

static void
test_bad_file (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".yaml", "name: x\nfrequency: 2GHz\nfrequency: 3GHz\n", -1);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "machine", "show", path, NULL }), 2);
  g_autofree char *want = g_strdup_printf ("slabsim: %s:3:1: duplicate key \"frequency\" "
                                           "(first at 2:1)\n", path);
  assert_string_equal (err, want);
  assert_string_equal (out, "");
  g_unlink (path);

  g_autofree char *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "machine", "show",
                                                            "/nonexistent/x.yaml", NULL }), 2);
  assert_string_equal (err2, "slabsim: /nonexistent/x.yaml: cannot read: no such file\n");
}

static void
test_unknown_name (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "machine", "show", "pentium4",
                                                           NULL }), 2);
  tu_assert_contains (err, "slabsim: unknown machine \"pentium4\"");
  tu_assert_contains (err, "available: core2-quad, nehalem-ep-2s, opteron-2s, "
                           "sapphire-rapids-2s");
}

static void
test_list (void **state)
{
  (void) state;
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "machine", "list", NULL }), 0);
  tu_assert_contains (out, "core2-quad           Core 2 Quad Q6600");
  tu_assert_contains (out, "nehalem-ep-2s        Nehalem-EP");
  tu_assert_contains (out, "opteron-2s ");
  tu_assert_contains (out, "sapphire-rapids-2s ");
}

static void
test_usage (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "machine", NULL }), 2);
  tu_assert_contains (err, "a subcommand is required");
  g_autofree char *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "machine", "show", "a", "b",
                                                            NULL }), 2);
  tu_assert_contains (err2, "expected at most one machine");
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "help", "machine", "show", NULL }), 0);
  tu_assert_contains (out, "--set");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_show_default),
    cmocka_unit_test (test_show_output_loads_back),
    cmocka_unit_test (test_show_set),
    cmocka_unit_test (test_bad_file),
    cmocka_unit_test (test_set_blank_key),
    cmocka_unit_test (test_unknown_name),
    cmocka_unit_test (test_list),
    cmocka_unit_test (test_usage),
  };
  return cmocka_run_group_tests_name ("machine-cli", tests, NULL, NULL);
}
