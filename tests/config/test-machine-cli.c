/* test-machine-cli.c - "slabsim machine show|list" end to end: output,
 * exit codes and messages. */
#include "tests/testutil.h"
#include <string.h>
#include <glib/gstdio.h>
#include <sys/wait.h>

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
    "nehalem-ep-2s", "core2-quad", "opteron-2s", "sapphire-rapids-2s",
    "pentium4", "athlon64-x2", "haswell", "ivybridge-ep", "broadwell-ep", "zen1"
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

/* Issue 9 items 8 and 13: what the cache model cannot build is refused
 * when the machine loads, by machine show and run alike, as a config
 * error (exit 2) naming the --set and the level. */
static void
test_model_limits_at_load (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  static const struct { const char *a, *b, *want; } cases[] = {
    { "caches.L3.size=256G", "caches.L3.ways=1",
      "slabsim: --set caches.L3.size=256G: caches.L3.size: number of sets (4294967296)" },
    { "caches.L3.size=64G", "caches.L3.ways=16",
      "caches.L3.size: the cache model would need " },
    { "caches.L1d.ways=512", "caches.L1d.size=2M",
      "caches.L1d.ways: 512 ways: the cache model supports at most 255\n" },
    { "caches.L2.size=3M", "caches.L2.ways=16",
      "caches.L2.size: number of sets (3072 = size / (16 ways x 64-byte lines)) must be a "
      "power of two" },
    { "caches.L1d.inclusion=exclusive", "seed=2", "caches.L1d.inclusion: the first level" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL, *err2 = NULL;
      assert_int_equal (tu_run (&out, &err, (const char *[]) { "machine", "show", "--set",
                                                               cases[i].a, "--set", cases[i].b,
                                                               NULL }), 2);
      tu_assert_contains (err, cases[i].want);
      assert_string_equal (out, "");
      assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "run", "--set", cases[i].a,
                                                                "--set", cases[i].b, trace,
                                                                NULL }), 2);
      tu_assert_contains (err2, cases[i].want);
    }
}

/* A machine within the cap that this host (here: a 1 GiB address-space
 * limit) cannot hold: a clear error, exit 1, not an abort in g_error. */
static void
test_host_memory_refused (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  const char *script = "ulimit -v 1048576 || exit 77; exec \"$@\"";
  /* Under AddressSanitizer nothing starts with 1 GiB of address space. */
  int st = 0;
  const char *probe[] = { "sh", "-c", script, "sh", tu_exe (), "--version", NULL };
  g_autofree char *pout = NULL, *perr = NULL;
  assert_true (g_spawn_sync (NULL, (char **) probe, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                             &pout, &perr, &st, NULL));
  if (!g_spawn_check_wait_status (st, NULL))
    {
      print_message ("skipped: slabsim does not start under ulimit -v (sanitizer build)\n");
      return;
    }
  const char *argv[] = { "sh", "-c", script, "sh", tu_exe (), "run", "--set",
                         "caches.L3.size=1G", trace, NULL };
  g_autofree char *out = NULL, *err = NULL;
  assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                             &out, &err, &st, NULL));
  assert_true (WIFEXITED (st));
  assert_int_equal (WEXITSTATUS (st), 1);
  tu_assert_contains (err, "slabsim: machine nehalem-ep-2s: ");
  tu_assert_contains (err, "the host cannot give the ");
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
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "machine", "show", "pentium3",
                                                           NULL }), 2);
  tu_assert_contains (err, "slabsim: unknown machine \"pentium3\"");
  /* Every bundled machine, sorted. */
  tu_assert_contains (err, "available: athlon64-x2, broadwell-ep, core2-quad, haswell, "
                           "ivybridge-ep, nehalem-ep-2s, opteron-2s, pentium4, ");
  tu_assert_contains (err, "sapphire-rapids-2s");
  tu_assert_contains (err, ", zen1)");
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
    cmocka_unit_test (test_model_limits_at_load),
    cmocka_unit_test (test_host_memory_refused),
    cmocka_unit_test (test_set_blank_key),
    cmocka_unit_test (test_unknown_name),
    cmocka_unit_test (test_list),
    cmocka_unit_test (test_usage),
  };
  return cmocka_run_group_tests_name ("machine-cli", tests, NULL, NULL);
}
