/* test-machine-probe.c - "slabsim machine probe" against fake sysfs trees:
 * topology, caches, NUMA nodes and frequency read the way sysfs spells
 * them, the result loads with "machine show", bad trees are refused with
 * the file named.  --no-measure throughout: nothing here is timed. */
#include "tests/testutil.h"
#include <string.h>
#include <glib/gstdio.h>

/* tests/data/sysfs-2s-odd: 2 packages x 2 cores (core ids 0 and 4) x 2
 * threads numbered cpu = (core x 2 + package) x 2 + thread, which no preset
 * matches; 48K 12-way L1d, an L1i, 1280K 10-way L2 per core, 30M 20-way L3
 * per package; one node per package of 16 GiB; cpufreq 3.0 GHz. */
static void
test_fake_tree (void **state)
{
  (void) state;
  g_autofree char *root = tu_source_path ("tests/data/sysfs-2s-odd");
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "machine", "probe", "--no-measure",
                                                           "--sysfs", root, NULL }), 0);
  assert_string_equal (err, "");
  tu_assert_contains (out, "frequency: 3000MHz ");
  tu_assert_contains (out, "  sockets: 2\n  cores_per_socket: 2\n  threads_per_core: 2\n");
  /* Sparse core id 4 is core 1; the explicit list, since no preset fits. */
  tu_assert_contains (out, "    - {cpu: 2, socket: 1, core: 0, thread: 0}\n");
  tu_assert_contains (out, "    - {cpu: 5, socket: 0, core: 1, thread: 1}\n");
  assert_null (strstr (out, "numbering:"));
  /* The instruction cache is left out; levels in order, chained. */
  assert_null (strstr (out, "L1i"));
  tu_assert_contains (out, "  L1d:\n    size: 48K\n    ways: 12\n    line: 64\n");
  tu_assert_contains (out, "  L2:\n    size: 1280K\n    ways: 10\n");
  /* 30 MiB 20-way has 24576 sets: kept as 15 ways x 32768 sets, and said. */
  tu_assert_contains (out, "    size: 30M    # sysfs: 20 ways; 15 keeps");
  tu_assert_contains (out, "    ways: 15\n");
  tu_assert_contains (out, "    shared: socket\n    inclusion: non-inclusive    # estimate");
  tu_assert_contains (out, "    next: memory\n");
  tu_assert_contains (out, "  numa: true\n  node_size: 16G ");
  /* Nothing measured, every latency an estimate. */
  assert_null (strstr (out, "measured on"));
  tu_assert_contains (out, "    latency: 4                 # estimate");
  tu_assert_contains (out, "  local_latency: 90ns           # estimate");
  /* The ping-pong pairs: cpu0 with cpu4 (socket 0, core id 4: another
   * core, not its SMT sibling cpu1) and with cpu2 (socket 1). */
  tu_assert_contains (out, "  local_hitm: 70                # estimate; ping-pong cpu0-cpu4 "
                           "not measured (--no-measure)\n");
  tu_assert_contains (out, "  remote_hitm: 120ns            # estimate; ping-pong cpu0-cpu2 "
                           "not measured (--no-measure)\n");

  /* -o writes the same bytes (but the date line), and it loads. */
  g_autofree char *dir = g_dir_make_tmp ("probe-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "host.yaml", NULL);
  assert_int_equal (tu_run (NULL, NULL, (const char *[]) { "machine", "probe", "--no-measure",
                                                           "--sysfs", root, "-o", file,
                                                           NULL }), 0);
  g_autofree char *written = NULL;
  assert_true (g_file_get_contents (file, &written, NULL, NULL));
  assert_string_equal (strchr (strchr (written, '\n') + 1, '\n'),
                       strchr (strchr (out, '\n') + 1, '\n'));
  g_autofree char *shown = NULL;
  assert_int_equal (tu_run (&shown, NULL, (const char *[]) { "machine", "show", file, NULL }), 0);
  tu_assert_contains (shown, "  numa: true\n");
  tu_assert_contains (shown, "    size: 30MiB\n");
  g_unlink (file);
  g_rmdir (dir);
}

static void
put (const char *root, const char *rel, const char *text)
{
  g_autofree char *path = g_build_filename (root, rel, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  assert_int_equal (g_mkdir_with_parents (dir, 0755), 0);
  assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* One socket, 4 cores, no SMT, an L2 per pair of cores (Core 2 style), no
 * node directory (a kernel without NUMA), no cpufreq: a preset numbering,
 * "shared: 2", one node, and the frequency an estimate. */
static char *
make_tree (const char *l2_shared)
{
  char *root = g_dir_make_tmp ("sysfs-XXXXXX", NULL);
  for (int c = 0; c < 4; c++)
    {
      char d[96], v[16];
      g_snprintf (d, sizeof d, "devices/system/cpu/cpu%d/", c);
      g_snprintf (v, sizeof v, "%d", c);
      g_autofree char *a = g_strconcat (d, "topology/physical_package_id", NULL);
      g_autofree char *b = g_strconcat (d, "topology/core_id", NULL);
      g_autofree char *s = g_strconcat (d, "topology/thread_siblings_list", NULL);
      put (root, a, "0\n");
      put (root, b, v);
      put (root, s, v);
      static const char *const f[] = { "level", "type", "size", "ways_of_associativity",
                                       "coherency_line_size", "shared_cpu_list" };
      const char *l1[] = { "1", "Data", "32K", "8", "64", v };
      const char *l2[] = { "2", "Unified", "4096K", "16", "64",
                           l2_shared ? l2_shared : (c < 2 ? "0-1" : "2-3") };
      for (int i = 0; i < 6; i++)
        {
          g_autofree char *p1 = g_strconcat (d, "cache/index0/", f[i], NULL);
          g_autofree char *p2 = g_strconcat (d, "cache/index1/", f[i], NULL);
          put (root, p1, l1[i]);
          put (root, p2, l2[i]);
        }
    }
  return root;
}

static void
rm_tree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  if (d == NULL)
    {
      g_unlink (path);
      return;
    }
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      g_autofree char *sub = g_build_filename (path, name, NULL);
      rm_tree (sub);
    }
  g_dir_close (d);
  g_rmdir (path);
}

static void
test_pairs_no_numa (void **state)
{
  (void) state;
  g_autofree char *root = make_tree (NULL);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "machine", "probe", "--no-measure",
                                                           "--sysfs", root, NULL }), 0);
  tu_assert_contains (out, "  numbering: socket-major\n");
  tu_assert_contains (out, "  L2:\n    size: 4M\n");
  tu_assert_contains (out, "    shared: 2\n");
  tu_assert_contains (out, "  numa: false\n");
  tu_assert_contains (out, "frequency: 2000MHz               # estimate");
  tu_assert_contains (out, "  node_size: 1G                 # estimate");
  /* One socket: cpu0's neighbour core is cpu1; nothing remote. */
  tu_assert_contains (out, "ping-pong cpu0-cpu1 not measured (--no-measure)\n");
  tu_assert_contains (out, "  remote_hitm: 120ns            # one socket: never used\n");
  g_autofree char *path = tu_write_temp (".yaml", out, -1);
  assert_int_equal (tu_run (NULL, NULL, (const char *[]) { "machine", "show", path, NULL }), 0);
  g_unlink (path);
  rm_tree (root);
}

static void
test_bad_trees (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "machine", "probe", "--no-measure",
                                                           "--sysfs", "/nonexistent", NULL }), 2);
  assert_string_equal (err, "slabsim: /nonexistent/devices/system/cpu/cpu0/topology: no such "
                            "directory (is /nonexistent a sysfs tree?)\n");

  g_autofree char *root = make_tree ("0-x");
  g_autofree char *out = NULL, *err2 = NULL;
  assert_int_equal (tu_run (&out, &err2, (const char *[]) { "machine", "probe", "--no-measure",
                                                            "--sysfs", root, NULL }), 2);
  assert_string_equal (out, "");
  tu_assert_contains (err2, "/devices/system/cpu/cpu0/cache/index1/shared_cpu_list: expected a "
                            "CPU list such as 0-3,8-11");
  rm_tree (root);

  g_autofree char *err3 = NULL;
  assert_int_equal (tu_run (NULL, &err3, (const char *[]) { "machine", "probe", "extra",
                                                            NULL }), 2);
  tu_assert_contains (err3, "unexpected argument \"extra\"");
}

/* Measuring with another machine's tree: the chase runs on this host, but
 * no ping-pong pins CPUs the tree describes. */
static void
test_measure_fake_tree (void **state)
{
  (void) state;
  g_autofree char *root = tu_source_path ("tests/data/sysfs-2s-odd");
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "machine", "probe", "--sysfs", root,
                                                           NULL }), 0);
  tu_assert_contains (out, "  local_hitm: 70                # estimate; ping-pong cpu0-cpu4 "
                           "not measured: --sysfs describes another machine\n");
  tu_assert_contains (out, "ping-pong cpu0-cpu2 not measured: --sysfs describes another "
                           "machine\n");
}

/* For real, on this host: a cache line bounced between cpu0 and another
 * core gives local_hitm, marked as measured here (the value itself is not
 * checked: no timed tests). */
static void
test_ping_pong_host (void **state)
{
  (void) state;
#ifndef __linux__
  skip ();
#endif
  if (g_get_num_processors () < 2)
    {
      print_message ("skipped: one CPU, no core to bounce a line with\n");
      skip ();
    }
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "machine", "probe", NULL });
  if (rc != 0)
    {
      print_error ("machine probe: exit %d: %s\n", rc, err);
      fail ();
    }
  const char *hitm = strstr (out, "  local_hitm: ");
  assert_non_null (hitm);
  if (strstr (out, "no other core in cpu0's socket"))
    {
      print_message ("skipped: cpu0 has no other core in its socket (SMT siblings only)\n");
      skip ();
    }
  g_autofree char *line = g_strndup (hitm, strcspn (hitm, "\n"));
  if (strstr (line, "cannot pin") || strstr (line, "did not answer"))
    {
      print_message ("skipped: %s\n", line);
      skip ();
    }
  tu_assert_contains (line, "# measured on ");
  tu_assert_contains (line, ": ping-pong cpu0-cpu");
  assert_true (g_ascii_strtoull (hitm + strlen ("  local_hitm: "), NULL, 10) >= 1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fake_tree),
    cmocka_unit_test (test_pairs_no_numa),
    cmocka_unit_test (test_bad_trees),
    cmocka_unit_test (test_measure_fake_tree),
    cmocka_unit_test (test_ping_pong_host),
  };
  return cmocka_run_group_tests_name ("machine-probe", tests, NULL, NULL);
}
