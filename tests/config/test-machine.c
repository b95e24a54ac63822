/* test-machine.c - the machine loader: the bundled machines and their
 * resolved values, the show -> load round trip, --set overrides, one
 * bad-input case per validation rule (exact file:line:col and key), and
 * the documentation naming every key of the schema tables. */
#include "tests/testutil.h"
#include "sim/config/machine-schema.h"
#include "sim/core/errors.h"
#include "sim/core/rng.h"

#include <string.h>
#include <glib/gstdio.h>

static SimMachine *
load_ok (const char *name, const char *const *overrides)
{
  GError *error = NULL;
  SimMachine *m = sim_machine_load (name, overrides, &error);
  if (m == NULL)
    {
      print_error ("%s: %s\n", name, error->message);
      fail ();
    }
  return m;
}

static void
test_bundled_load (void **state)
{
  (void) state;
  const char *const *names = sim_machine_builtin_names ();
  guint n = 0;
  for (; names[n]; n++)
    {
      g_autoptr (SimMachine) m = load_ok (names[n], NULL);
      assert_string_equal (m->name, names[n]);
      assert_true (strlen (m->description) > 10);
      assert_int_equal (m->n_cpus, m->sockets * m->cores_per_socket * m->threads_per_core);
      assert_true (m->n_levels >= 2);
      tu_assert_contains (m->source, "configs/machines/");
    }
  assert_int_equal (n, 10);
  /* Every bundled name is also found by the directory scan. */
  g_auto (GStrv) avail = sim_machine_available ();
  for (guint i = 0; i < n; i++)
    assert_true (g_strv_contains ((const char *const *) avail, names[i]));
}

static void
test_nehalem_values (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = load_ok ("nehalem-ep-2s", NULL);
  assert_int_equal (m->n_cpus, 16);
  assert_int_equal (m->sockets, 2);
  /* socket-interleaved: cpu = thread*8 + core*2 + socket. */
  assert_int_equal (m->cpus[0].socket, 0);
  assert_int_equal (m->cpus[1].socket, 1);
  assert_int_equal (m->cpus[1].core, 0);
  assert_int_equal (m->cpus[2].socket, 0);
  assert_int_equal (m->cpus[2].core, 1);
  assert_int_equal (m->cpus[7].socket, 1);
  assert_int_equal (m->cpus[7].core, 3);
  assert_int_equal (m->cpus[8].thread, 1);
  assert_int_equal (m->cpus[8].socket, 0);
  assert_int_equal (m->cpus[8].core, 0);
  assert_int_equal (sim_machine_core_of (m, 15), 7);
  assert_int_equal (m->n_levels, 3);
  assert_string_equal (m->levels[0].name, "L1d");
  assert_true (m->levels[0].size == 32 * 1024);
  assert_int_equal (m->levels[0].latency, 4);
  assert_int_equal (m->levels[0].shared_cores, 1);
  assert_string_equal (m->levels[2].name, "L3");
  assert_true (m->levels[2].size == 8u << 20);
  assert_int_equal (m->levels[2].ways, 16);
  assert_int_equal (m->levels[2].inclusion, SIM_INCL_INCLUSIVE);
  assert_int_equal (m->levels[2].shared_cores, 0);
  assert_int_equal (m->coherence, SIM_COH_MESIF);
  assert_int_equal (m->lat_local_hitm, 75);
  assert_true (m->numa);
  /* 60 ns and 100 ns at 2.93 GHz. */
  assert_int_equal (m->lat_dram_local, 176);
  assert_int_equal (m->lat_dram_remote, 293);
  assert_true (m->seed == 1);
}

static void
test_other_machines (void **state)
{
  (void) state;
  g_autoptr (SimMachine) c2 = load_ok ("core2-quad", NULL);
  assert_int_equal (c2->n_cpus, 4);
  assert_int_equal (c2->n_levels, 2);
  assert_int_equal (c2->levels[1].shared_cores, 2);
  assert_true (c2->levels[1].size == 4u << 20);
  assert_false (c2->numa);
  assert_int_equal (c2->coherence, SIM_COH_MESI);
  assert_int_equal (c2->lat_dram_local, 192);    /* 80 ns at 2.4 GHz */

  g_autoptr (SimMachine) op = load_ok ("opteron-2s", NULL);
  assert_int_equal (op->n_cpus, 8);
  assert_int_equal (op->cpus[3].socket, 0);       /* socket-major */
  assert_int_equal (op->cpus[4].socket, 1);
  assert_int_equal (op->cpus[4].core, 0);
  assert_int_equal (op->levels[0].ways, 2);
  assert_int_equal (op->levels[1].inclusion, SIM_INCL_EXCLUSIVE);
  assert_true (op->levels[2].size == 6u << 20);   /* 48 ways x 2048 sets */
  assert_int_equal (op->coherence, SIM_COH_MOESI);

  g_autoptr (SimMachine) spr = load_ok ("sapphire-rapids-2s", NULL);
  assert_int_equal (spr->n_cpus, 128);
  assert_int_equal (spr->cpus[31].socket, 0);
  assert_int_equal (spr->cpus[32].socket, 1);
  assert_int_equal (spr->cpus[64].socket, 0);
  assert_int_equal (spr->cpus[64].thread, 1);
  assert_true (spr->levels[0].size == 48 * 1024);
}

static void
assert_same_machine (const SimMachine *a, const SimMachine *b)
{
  assert_string_equal (a->name, b->name);
  assert_string_equal (a->description, b->description);
  assert_true (a->frequency_ghz == b->frequency_ghz);
  assert_int_equal (a->sockets, b->sockets);
  assert_int_equal (a->cores_per_socket, b->cores_per_socket);
  assert_int_equal (a->threads_per_core, b->threads_per_core);
  assert_int_equal (a->n_cpus, b->n_cpus);
  assert_memory_equal (a->cpus, b->cpus, a->n_cpus * sizeof (SimCpuPlace));
  assert_int_equal (a->n_levels, b->n_levels);
  for (guint i = 0; i < a->n_levels; i++)
    {
      const SimCacheLevelSpec *x = &a->levels[i], *y = &b->levels[i];
      assert_string_equal (x->name, y->name);
      assert_true (x->size == y->size);
      assert_int_equal (x->ways, y->ways);
      assert_int_equal (x->line, y->line);
      assert_int_equal (x->replacement, y->replacement);
      assert_int_equal (x->inclusion, y->inclusion);
      assert_int_equal (x->shared_cores, y->shared_cores);
      assert_int_equal (x->latency, y->latency);
    }
  assert_int_equal (a->coherence, b->coherence);
  assert_int_equal (a->lat_local_clean, b->lat_local_clean);
  assert_int_equal (a->lat_local_hitm, b->lat_local_hitm);
  assert_int_equal (a->lat_remote_clean, b->lat_remote_clean);
  assert_int_equal (a->lat_remote_hitm, b->lat_remote_hitm);
  assert_int_equal (a->numa, b->numa);
  assert_true (a->node_bytes == b->node_bytes);
  assert_int_equal (a->lat_dram_local, b->lat_dram_local);
  assert_int_equal (a->lat_dram_remote, b->lat_dram_remote);
  assert_true (a->seed == b->seed);
}

/* The YAML after its first line, which names the source. */
static const char *
body (const char *yaml)
{
  const char *nl = strchr (yaml, '\n');
  return nl ? nl + 1 : yaml;
}

static void
round_trip (const SimMachine *m)
{
  g_autofree char *yaml = sim_machine_to_yaml (m);
  GError *error = NULL;
  g_autoptr (SimMachine) back = sim_machine_load_data (yaml, strlen (yaml), "shown.yaml",
                                                       NULL, &error);
  if (back == NULL)
    {
      print_error ("%s\n---\n%s\n", error->message, yaml);
      fail ();
    }
  assert_same_machine (m, back);
  g_autofree char *again = sim_machine_to_yaml (back);
  assert_string_equal (body (yaml), body (again));
}

static void
test_round_trip (void **state)
{
  (void) state;
  for (const char *const *n = sim_machine_builtin_names (); *n; n++)
    {
      g_autoptr (SimMachine) m = load_ok (*n, NULL);
      round_trip (m);
    }
  /* A map no preset matches is printed as an explicit list, and a
   * non-default sharing group as a number. */
  static const char yaml[] =
    "name: odd\nfrequency: 2930MHz\n"
    "topology:\n  sockets: 1\n  cores_per_socket: 2\n"
    "  cpus: [{cpu: 0, socket: 0, core: 1, thread: 0}, {cpu: 1, socket: 0, core: 0, thread: 0}]\n"
    "caches:\n  L1d: {size: 16K, ways: 4, latency: 2, next: \"my cache\"}\n"
    "  \"my cache\": {size: 64K, ways: 4, latency: 3 cycles, shared: 2}\n"
    "coherence: {protocol: mesi, local_clean: 1, local_hitm: 2, remote_clean: 3, remote_hitm: 4}\n"
    "memory: {numa: no, node_size: 1G, local_latency: 61.3ns, remote_latency: 61.3ns}\n";
  GError *error = NULL;
  g_autoptr (SimMachine) m = sim_machine_load_data (yaml, strlen (yaml), "odd.yaml", NULL,
                                                    &error);
  assert_non_null (m);
  assert_int_equal (m->cpus[0].core, 1);
  assert_int_equal (m->levels[1].shared_cores, 2);
  g_autofree char *shown = sim_machine_to_yaml (m);
  tu_assert_contains (shown, "    - {cpu: 0, socket: 0, core: 1, thread: 0}\n");
  tu_assert_contains (shown, "  \"my cache\":\n");
  tu_assert_contains (shown, "    shared: 2\n");
  tu_assert_contains (shown, "description: \"\"\n");
  tu_assert_contains (shown, "    replacement: lru\n");
  tu_assert_contains (shown, "  local_latency: 180  # cycles\n");
  round_trip (m);
}

/* Found by fuzz-machine: a name or description holding, through an
 * escape, a character YAML does not allow raw (C1 controls such as U+0080)
 * or folds (NEL) was printed raw by machine show, which then did not load
 * back (or loaded as another string). */
static void
test_round_trip_escaped_strings (void **state)
{
  (void) state;
  static const char *const texts[] = {
    "\"a\\x85b\"", "\"a\\x80\\x9fb\"", "\"\\u2028\\u2029\"", "\"\\uFEFFx\\uFFFE\"",
    "\"tab\\there \\\" \\\\ \\x7f\"", "\"caf\u00e9 \u65e5\u672c\"",
  };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autofree char *set = g_strdup_printf ("description=%s", texts[i]);
      g_autofree char *name = g_strdup_printf ("name=%s", texts[i]);
      g_autoptr (SimMachine) m = load_ok ("nehalem-ep-2s", (const char *[]) { set, name, NULL });
      round_trip (m);
    }
}

static void
test_overrides (void **state)
{
  (void) state;
  g_autoptr (SimMachine) a = load_ok ("nehalem-ep-2s",
                                      (const char *[]) { "machine.numa=false", NULL });
  assert_false (a->numa);
  g_autoptr (SimMachine) b = load_ok ("nehalem-ep-2s", (const char *[]) { "numa=false", NULL });
  assert_false (b->numa);
  g_autoptr (SimMachine) c = load_ok ("nehalem-ep-2s",
                                      (const char *[]) { "caches.L2.size=512K",
                                                         "topology.sockets=1",
                                                         "memory.local_latency=30ns",
                                                         NULL });
  assert_true (c->levels[1].size == 512 * 1024);
  assert_int_equal (c->n_cpus, 8);
  assert_int_equal (c->lat_dram_local, 88);
  /* A key the file leaves to its default can be set. */
  g_autoptr (SimMachine) d = load_ok ("nehalem-ep-2s",
                                      (const char *[]) { "caches.L2.replacement=random",
                                                         "machine.seed=9", NULL });
  assert_int_equal (d->levels[1].replacement, SIM_REPL_RANDOM);
  assert_true (d->seed == 9);

  GError *error = NULL;
  assert_null (sim_machine_load ("nehalem-ep-2s",
                                 (const char *[]) { "memory.nmua=false", NULL }, &error));
  assert_true (g_error_matches (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY));
  assert_string_equal (error->message, "--set memory.nmua=false: no key \"memory.nmua\" "
                                       "(did you mean \"memory.numa\"?)");
  g_clear_error (&error);
  assert_null (sim_machine_load ("nehalem-ep-2s",
                                 (const char *[]) { "caches.L4.size=1M", NULL }, &error));
  assert_string_equal (error->message, "--set caches.L4.size=1M: no key \"caches.L4.size\" "
                                       "(did you mean \"caches.L2.size\"?)");
  g_clear_error (&error);
  assert_null (sim_machine_load ("nehalem-ep-2s", (const char *[]) { "numa", NULL }, &error));
  assert_true (g_error_matches (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE));
  g_clear_error (&error);
  /* Validation runs on the result. */
  assert_null (sim_machine_load ("nehalem-ep-2s",
                                 (const char *[]) { "caches.L2.size=500K", NULL }, &error));
  assert_string_equal (error->message, "--set caches.L2.size=500K: caches.L2.size: number "
                                       "of sets (1000 = size / (8 ways x 64-byte lines)) "
                                       "must be a power of two: the cache model indexes "
                                       "sets with address bits");
  g_clear_error (&error);
  assert_null (sim_machine_load ("nehalem-ep-2s",
                                 (const char *[]) { "coherence.protocol=mosi", NULL }, &error));
  assert_string_equal (error->message, "--set coherence.protocol=mosi: coherence.protocol: "
                                       "unknown value \"mosi\" (expected one of: mesi, mesif, "
                                       "moesi)");
  g_clear_error (&error);
}

static void
test_unknown_machine (void **state)
{
  (void) state;
  GError *error = NULL;
  assert_null (sim_machine_load ("nehalem", NULL, &error));
  assert_true (g_error_matches (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_NOT_FOUND));
  tu_assert_contains (error->message, "unknown machine \"nehalem\" (did you mean "
                                      "\"nehalem-ep-2s\"?)");
  tu_assert_contains (error->message, "athlon64-x2, broadwell-ep, core2-quad, haswell, "
                                      "ivybridge-ep, nehalem-ep-2s, opteron-2s, pentium4, ");
  tu_assert_contains (error->message, ", zen1)");
  g_clear_error (&error);
  assert_null (sim_machine_load ("/nonexistent/m.yaml", NULL, &error));
  assert_string_equal (error->message, "/nonexistent/m.yaml: cannot read: no such file");
  g_clear_error (&error);
}

static void
test_machine_path (void **state)
{
  (void) state;
  g_autofree char *dir = g_dir_make_tmp ("slabsim-machines-XXXXXX", NULL);
  g_autofree char *src = tu_source_path ("configs/machines/core2-quad.yaml");
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (src, &text, NULL, NULL));
  g_autofree char *dst = g_build_filename (dir, "my-box.yaml", NULL);
  assert_true (g_file_set_contents (dst, text, -1, NULL));
  g_setenv ("SLABSIM_MACHINE_PATH", dir, TRUE);
  g_autoptr (SimMachine) m = load_ok ("my-box", NULL);
  assert_string_equal (m->source, dst);
  g_auto (GStrv) avail = sim_machine_available ();
  assert_true (g_strv_contains ((const char *const *) avail, "my-box"));
  g_unsetenv ("SLABSIM_MACHINE_PATH");
  g_unlink (dst);
  g_rmdir (dir);
}

/* ---------------------------------------------------------- bad input */

/* A small valid machine; each bad case replaces one of its lines. */
static const char *const base_lines[] = {
  "name: t",                                                               /* 1 */
  "frequency: 2GHz",                                                       /* 2 */
  "topology:",                                                             /* 3 */
  "  sockets: 2",                                                          /* 4 */
  "  cores_per_socket: 2",                                                 /* 5 */
  "  threads_per_core: 1",                                                 /* 6 */
  "caches:",                                                               /* 7 */
  "  L1d: {size: 32K, ways: 8, latency: 4, next: L2}",                     /* 8 */
  "  L2: {size: 1M, ways: 16, latency: 20, shared: socket}",               /* 9 */
  "coherence: {protocol: mesi, local_clean: 10, local_hitm: 10, remote_clean: 20, remote_hitm: 20}",
  "memory: {numa: true, node_size: 1G, local_latency: 50ns, remote_latency: 80ns}",
  NULL
};

/* Load the base machine with line @line (1-based) replaced by @text (which
 * may hold several lines, or be "" to drop it; expect_bad_n replaces
 * @n_lines lines) from a temporary file; the
 * load must fail with exactly "PATH:LINE:COL: @msg", where COL is where
 * @col_of first occurs in line @err_line of the file. */
static void
expect_bad_n (int line, int n_lines, const char *text, int err_line, const char *col_of,
              const char *msg)
{
  GString *s = g_string_new (NULL);
  for (int i = 0; base_lines[i]; i++)
    if (i + 1 == line)
      {
        if (*text)
          g_string_append_printf (s, "%s\n", text);
      }
    else if (i + 1 < line || i + 1 >= line + n_lines)
      g_string_append_printf (s, "%s\n", base_lines[i]);
  g_auto (GStrv) lines = g_strsplit (s->str, "\n", -1);
  assert_true (err_line >= 1 && (guint) err_line <= g_strv_length (lines));
  const char *hit = strstr (lines[err_line - 1], col_of);
  if (hit == NULL)
    {
      print_error ("\"%s\" not in line %d: %s\n", col_of, err_line, lines[err_line - 1]);
      fail ();
    }
  int col = (int) (hit - lines[err_line - 1]) + 1;
  g_autofree char *path = tu_write_temp (".yaml", s->str, -1);
  g_string_free (s, TRUE);
  GError *error = NULL;
  SimMachine *m = sim_machine_load (path, NULL, &error);
  if (m != NULL)
    {
      print_error ("loaded, expected: %s\n", msg);
      sim_machine_free (m);
      fail ();
    }
  assert_true (error->domain == SIM_CONFIG_ERROR);
  g_autofree char *want = g_strdup_printf ("%s:%d:%d: %s", path, err_line, col, msg);
  if (strcmp (error->message, want) != 0)
    {
      print_error ("got:      %s\nexpected: %s\n", error->message, want);
      fail ();
    }
  g_error_free (error);
  g_unlink (path);
}

static void
expect_bad (int line, const char *text, int err_line, const char *col_of, const char *msg)
{
  expect_bad_n (line, 1, text, err_line, col_of, msg);
}

static void
test_base_is_valid (void **state)
{
  (void) state;
  GString *s = g_string_new (NULL);
  for (int i = 0; base_lines[i]; i++)
    g_string_append_printf (s, "%s\n", base_lines[i]);
  GError *error = NULL;
  g_autoptr (SimMachine) m = sim_machine_load_data (s->str, s->len, "base.yaml", NULL, &error);
  g_string_free (s, TRUE);
  assert_non_null (m);
  assert_int_equal (m->n_cpus, 4);
  assert_int_equal (m->n_levels, 2);
  assert_int_equal (m->lat_dram_remote, 160);
}

static void
test_bad_cache_geometry (void **state)
{
  (void) state;
  expect_bad (8, "  L1d: {size: 3000, ways: 8, latency: 4, next: L2}", 8, "3000",
              "caches.L1d.size: size 3000 bytes is not a whole number of sets of ways (8) "
              "x line (64) = 512 bytes");
  expect_bad (8, "  L1d: {size: 32K, ways: 0, latency: 4, next: L2}", 8, "0,",
              "caches.L1d.ways: ways must be at least 1");
  expect_bad (8, "  L1d: {size: 32K, ways: 3, latency: 4, next: L2}", 8, "32K",
              "caches.L1d.size: size 32768 bytes is not a whole number of sets of ways (3) "
              "x line (64) = 192 bytes");
  expect_bad (8, "  L1d: {size: 64, ways: 2, latency: 4, next: L2}", 8, "64,",
              "caches.L1d.size: size 64 bytes is not a whole number of sets of ways (2) "
              "x line (64) = 128 bytes");
  /* Issue 9 item 13: the rule is about the number of sets, and says so. */
  expect_bad (9, "  L2: {size: 3M, ways: 16, latency: 20, shared: socket}", 9, "3M",
              "caches.L2.size: number of sets (3072 = size / (16 ways x 64-byte lines)) must "
              "be a power of two: the cache model indexes sets with address bits");
  /* Rules the cache model used to apply only when a run started (exit 1). */
  expect_bad (8, "  L1d: {size: 32K, ways: 512, line: 16, latency: 4, next: L2}", 8, "512",
              "caches.L1d.ways: 512 ways: the cache model supports at most 255");
  expect_bad (9, "  L2: {size: 1M, ways: 128, latency: 20, shared: socket, replacement: plru}",
              9, "plru", "caches.L2.replacement: plru needs a power-of-two number of ways up "
              "to 64 (this level has 128)");
  expect_bad (8, "  L1d: {size: 32K, ways: 8, latency: 4, next: L2, inclusion: exclusive}", 8,
              "exclusive", "caches.L1d.inclusion: the first level cannot be exclusive: it is "
              "filled on every miss");
  expect_bad (8, "  L1d: {size: 32K, ways: 8, latency: 4, next: L2, shared: socket}", 8,
              "socket", "caches.L1d.shared: the first level must be private (shared: core)");
  expect_bad_n (8, 2, "  L1d: {size: 32K, ways: 8, latency: 4, next: L2}\n"
                "  L2: {size: 1M, ways: 16, latency: 20, shared: socket, next: L3}\n"
                "  L3: {size: 1M, ways: 16, latency: 20}", 10, "L3",
                "caches.L3: a private level (shared: core) cannot follow a shared one: "
                "private levels come first");
  /* Issue 9 item 8: 2^32 sets used to truncate to 0 in the model. */
  expect_bad (9, "  L2: {size: 256G, ways: 1, latency: 20, shared: socket}", 9, "256G",
              "caches.L2.size: number of sets (4294967296) is more than the cache model "
              "indexes (at most 2^31)");
  /* ... and 64G per socket, 16 ways, is 2^26 sets: legal, but 2 x 2^30 lines
   * would need some 116 GiB of host memory. */
  expect_bad (9, "  L2: {size: 64G, ways: 16, latency: 20, shared: socket}", 9, "64G",
              "caches.L2.size: the cache model would need 118784 MiB of host memory for "
              "2147485696 cache lines (at most 8192 MiB); this level holds the most: "
              "2147483648 lines in 2 instance(s)");
  expect_bad (8, "  L1d: {size: 32K, ways: 8, line: 8, latency: 4, next: L2}", 8, "8, lat",
              "caches.L1d.line: line 8 bytes: expected a power of two of at least 16");
  expect_bad (9, "  L2: {size: 1M, ways: 16, line: 128, latency: 20, shared: socket}", 9,
              "128", "caches.L2.line: line 128 differs from the 64 bytes of level \"L1d\"; "
              "every level must use the same line size");
  expect_bad (8, "  L1d: {size: 48K, ways: 12, latency: 4, replacement: plru, next: L2}", 8,
              "plru", "caches.L1d.replacement: plru needs a power-of-two number of ways up "
              "to 64 (this level has 12)");
  expect_bad (9, "  L2: {size: 1M, ways: 16, latency: 20, shared: 3}", 9, "3}",
              "caches.L2.shared: groups of 3 cores do not divide the 2 cores of a socket");
  expect_bad (9, "  L2: {size: 1M, ways: 16, latency: 20, shared: everyone}", 9, "everyone",
              "caches.L2.shared: expected core, socket or a number of cores, got \"everyone\"");
}

/* Real sizes that are not powers of two load when their sets are one:
 * 3 MiB 12-way (4096 sets), 1.25 MiB 20-way (1024), 48 KiB 12-way (64). */
static void
test_odd_sizes_with_pow2_sets (void **state)
{
  (void) state;
  static const char *const sets[][3] = {
    { "caches.L2.size=3M", "caches.L2.ways=12", "seed=1" },
    { "caches.L2.size=1280K", "caches.L2.ways=20", "seed=1" },
    { "caches.L1d.size=48K", "caches.L1d.ways=12", "caches.L1d.replacement=lru" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sets); i++)
    {
      GError *error = NULL;
      const char *const o[] = { sets[i][0], sets[i][1], sets[i][2], NULL };
      g_autoptr (SimMachine) m = sim_machine_load ("nehalem-ep-2s", o, &error);
      if (m == NULL)
        {
          print_error ("%s %s: %s\n", sets[i][0], sets[i][1], error->message);
          fail ();
        }
    }
}

static void
test_bad_chain (void **state)
{
  (void) state;
  /* A cycle off the main chain. */
  expect_bad (9, "  L2: {size: 1M, ways: 16, latency: 20, next: memory}\n"
                 "  L3: {size: 2M, ways: 16, latency: 40, next: L4}\n"
                 "  L4: {size: 4M, ways: 16, latency: 50, next: L3}", 11, "L3}",
              "caches.L4.next: the next: chain has a cycle (L3 -> L4 -> L3)");
  expect_bad (9, "  L2: {size: 1M, ways: 16, latency: 20, next: L3}\n"
                 "  L3: {size: 2M, ways: 16, latency: 40, next: L2}", 10, "L2}",
              "caches.L3.next: \"L2\" is already the next level of \"L1d\"; the levels "
              "must form a single chain");
  /* Every level in the cycle: no first level at all. */
  expect_bad (9, "  L2: {size: 1M, ways: 16, latency: 20, next: L1d}", 9, "L1d}",
              "caches.L2.next: the next: chain has a cycle (L1d -> L2 -> L1d)");
  expect_bad (9, "  L2: {size: 1M, ways: 16, latency: 20, next: L2}", 9, "L2}",
              "caches.L2.next: level \"L2\" names itself as next: the chain is a cycle");
  expect_bad (8, "  L1d: {size: 32K, ways: 8, latency: 4, next: L3}", 8, "L3}",
              "caches.L1d.next: no cache level named \"L3\" (did you mean \"L2\"?) "
              "(levels: L1d, L2; or memory)");
  expect_bad (8, "  L1d: {size: 32K, ways: 8, latency: 4}", 9, "L2:",
              "caches: levels \"L1d\" and \"L2\" both have no predecessor; exactly one level "
              "(the one closest to the core) may be named by no next:");
  expect_bad (9, "  L2: {size: 1M, ways: 16, latency: 20, shared: socket}\n"
                 "  L1i: {size: 32K, ways: 8, latency: 4, next: L2}", 10, "L2}",
              "caches.L1i.next: \"L2\" is already the next level of \"L1d\"; the levels "
              "must form a single chain");
  expect_bad (9, "  L2: {size: 1M, ways: 16, latency: 20, next: L3}\n"
                 "  L3: {size: 2M, ways: 16, latency: 30, next: L4}\n"
                 "  L4: {size: 4M, ways: 16, latency: 40, next: L5}\n"
                 "  L5: {size: 8M, ways: 16, latency: 50}", 12, "L5:",
              "caches: level \"L5\" is one too many: at most 4 cache levels are supported");
  expect_bad (9, "  memory: {size: 1M, ways: 16, latency: 20}", 9, "memory",
              "caches: \"memory\" cannot name a cache level");
}

static void
test_bad_cpus (void **state)
{
  (void) state;
  const char *twice = "  cpus: [{cpu: 0, socket: 0, core: 0, thread: 0}, "
                      "{cpu: 0, socket: 1, core: 0, thread: 0}]";
  expect_bad (6, twice, 6, "0, socket: 1", "topology.cpus.1.cpu: cpu 0 is listed twice "
              "(first at 6:16)");
  const char *gap = "  cpus: [{cpu: 0, socket: 0, core: 0, thread: 0}, "
                    "{cpu: 1, socket: 0, core: 1, thread: 0}, "
                    "{cpu: 3, socket: 1, core: 1, thread: 0}]";
  expect_bad (6, gap, 6, "cpus", "topology.cpus: cpu 2 is missing (the list must give every "
              "CPU 0..3 exactly once)");
  expect_bad (6, "  cpus: [{cpu: 4, socket: 0, core: 0, thread: 0}]", 6, "4,",
              "topology.cpus.0.cpu: cpu 4 is out of range (the topology has 4 CPUs: 0..3)");
  expect_bad (6, "  cpus: [{cpu: 0, socket: 2, core: 0, thread: 0}]", 6, "2,",
              "topology.cpus.0.socket: socket 2 is out of range (the topology has 2 "
              "sockets: 0..1)");
  expect_bad (6, "  cpus: [{cpu: 0, socket: 0, core: 5, thread: 0}]", 6, "5,",
              "topology.cpus.0.core: core 5 is out of range (the topology has 2 cores per "
              "socket: 0..1)");
  expect_bad (6, "  cpus: [{cpu: 0, socket: 0, core: 0, thread: 1}]", 6, "1}",
              "topology.cpus.0.thread: thread 1 is out of range (the topology has 1 threads "
              "per core: 0..0)");
  expect_bad (6, "  cpus: [{cpu: 0, socket: 0, core: 0, thread: 0}, "
                 "{cpu: 1, socket: 0, core: 0, thread: 0}]", 6, "{cpu: 1",
              "topology.cpus.1: socket 0 core 0 thread 0 is already cpu 0");
  expect_bad (6, "  cpus: [{cpu: 0, socket: 0, core: 0}]", 6, "{cpu",
              "topology.cpus.0: missing required key \"thread\"");
  expect_bad (6, "  cpus: 4", 6, "4", "topology.cpus: expected a sequence, got a scalar");
  expect_bad (6, "  numbering: socket-majr", 6, "socket-majr",
              "topology.numbering: unknown value \"socket-majr\" (expected one of: "
              "socket-major, socket-interleaved, smt-adjacent)");
}

static void
test_bad_keys_and_values (void **state)
{
  (void) state;
  expect_bad (4, "", 3, "topology",
              "topology: missing required key \"sockets\"");
  expect_bad (2, "", 1, "name", "missing required key \"frequency\"");
  expect_bad (8, "  L1d: {size: 32K, wyas: 8, latency: 4, next: L2}", 8, "wyas",
              "caches.L1d: unknown key \"wyas\" (did you mean \"ways\"?)");
  expect_bad (8, "  L1d: {size: 32K, latency: 4, next: L2}", 8, "L1d",
              "caches.L1d: missing required key \"ways\"");
  expect_bad (10, "coherence: {protocol: mesiff, local_clean: 10, local_hitm: 10, "
                  "remote_clean: 20, remote_hitm: 20}", 10, "mesiff",
              "coherence.protocol: unknown value \"mesiff\" (expected one of: mesi, mesif, "
              "moesi)");
  expect_bad (8, "  L1d: {size: 32K, ways: 8, latency: 4, inclusion: inclusiv, next: L2}", 8,
              "inclusiv", "caches.L1d.inclusion: unknown value \"inclusiv\" (expected one of: "
              "non-inclusive, inclusive, exclusive)");
  expect_bad (4, "  sockets: -2", 4, "-2",
              "topology.sockets: -2 is negative; expected an integer >= 1");
  expect_bad (8, "  L1d: {size: -32K, ways: 8, latency: 4, next: L2}", 8, "-32K",
              "caches.L1d.size: size -32K is negative");
  expect_bad (8, "  L1d: {size: 32K, ways: 8, latency: -4, next: L2}", 8, "-4",
              "caches.L1d.latency: latency -4 is negative");
  expect_bad (4, "  sockets: 0", 4, "0",
              "topology.sockets: 0 is out of range (expected 1..1024)");
  expect_bad (5, "  cores_per_socket: 1000", 3, "topology",
              "topology: 2000 CPUs (sockets * cores_per_socket * threads_per_core); at most "
              "1024 are supported");
  expect_bad (11, "memory: {numa: maybe, node_size: 1G, local_latency: 50ns, "
                  "remote_latency: 80ns}", 11, "maybe",
              "memory.numa: expected a boolean (true/false/yes/no), got \"maybe\"");
  expect_bad (2, "frequency: 2.0", 2, "2.0", "frequency: expected a positive frequency such as "
              "2.93GHz or 2400MHz, got \"2.0\"");
  expect_bad_n (7, 3, "caches: {}", 7, "caches", "caches: at least one cache level is needed");
  expect_bad (10, "coherence: mesi", 10, "mesi", "coherence: expected a mapping, got a scalar");
  expect_bad (1, "name: t\nname: u", 2, "name", "duplicate key \"name\" (first at 1:1)");
  expect_bad (6, "  threads_per_core: [1", 7, ":",
              "did not find expected ',' or ']' (while parsing a flow sequence started at 6:21)");
  expect_bad (1, "- a list", 2, "frequency", "did not find expected '-' indicator "
              "(while parsing a block collection started at 1:1)");
}

static void
test_empty_and_odd_documents (void **state)
{
  (void) state;
  GError *error = NULL;
  assert_null (sim_machine_load_data ("", 0, "e.yaml", NULL, &error));
  assert_string_equal (error->message, "e.yaml:1:1: empty document; a machine needs name, "
                                       "frequency, topology, caches, coherence and memory");
  g_clear_error (&error);
  assert_null (sim_machine_load_data ("[1, 2]", 6, "s.yaml", NULL, &error));
  assert_string_equal (error->message, "s.yaml:1:1: expected a mapping, got a sequence");
  g_clear_error (&error);
  /* Bytes that are not YAML at all never crash the loader. */
  static const char junk[] = "\x00\x01{{[[::\t- &&** !!binary |\n\xc3";
  assert_null (sim_machine_load_data (junk, sizeof junk - 1, "j.yaml", NULL, &error));
  tu_assert_contains (error->message, "j.yaml:");
  g_clear_error (&error);
}

/* Mutated machine files (bytes flipped, deleted, duplicated, YAML
 * punctuation inserted) must load or fail with a positioned message, never
 * crash; the sanitizer build checks the memory side.  Deterministic. */
static void
test_mutations_never_crash (void **state)
{
  (void) state;
  static const char punct[] = ":-[]{},&*!|>'\"%@`#\n \t";
  g_autofree char *src = tu_source_path ("configs/machines/nehalem-ep-2s.yaml");
  g_autofree char *orig = NULL;
  gsize len;
  assert_true (g_file_get_contents (src, &orig, &len, NULL));
  SimRng rng;
  sim_rng_init (&rng, 20261130, 0);
  guint loaded = 0, failed = 0;
  for (int iter = 0; iter < 3000; iter++)
    {
      GString *s = g_string_new_len (orig, (gssize) len);
      guint edits = 1 + (guint) sim_rng_below (&rng, 4);
      for (guint e = 0; e < edits && s->len > 1; e++)
        {
          gsize pos = (gsize) sim_rng_below (&rng, s->len);
          switch (sim_rng_below (&rng, 4))
            {
            case 0:
              s->str[pos] = (char) sim_rng_below (&rng, 256);
              break;
            case 1:
              {
                /* MIN evaluates its arguments twice: draw first. */
                gsize n = 1 + (gsize) sim_rng_below (&rng, 8);
                g_string_erase (s, (gssize) pos, (gssize) MIN (s->len - pos, n));
              }
              break;
            case 2:
              g_string_insert_c (s, (gssize) pos, punct[sim_rng_below (&rng, sizeof punct - 1)]);
              break;
            default:
              {
                gsize from = (gsize) sim_rng_below (&rng, s->len);
                gsize n = 1 + (gsize) sim_rng_below (&rng, 40);
                n = MIN (s->len - from, n);
                g_autofree char *chunk = g_strndup (s->str + from, n);
                g_string_insert (s, (gssize) pos, chunk);
              }
            }
        }
      GError *error = NULL;
      SimMachine *m = sim_machine_load_data (s->str, s->len, "fuzz.yaml", NULL, &error);
      if (m)
        {
          loaded++;
          g_autofree char *yaml = sim_machine_to_yaml (m);
          g_autoptr (SimMachine) back = sim_machine_load_data (yaml, strlen (yaml), "again",
                                                               NULL, NULL);
          assert_non_null (back);
          assert_int_equal (back->n_cpus, m->n_cpus);
          sim_machine_free (m);
        }
      else
        {
          failed++;
          assert_true (error->domain == SIM_CONFIG_ERROR);
          assert_true (g_str_has_prefix (error->message, "fuzz.yaml"));
          g_error_free (error);
        }
      g_string_free (s, TRUE);
    }
  /* Both outcomes happen: the mutations are neither all harmless nor all
   * fatal. */
  assert_true (loaded > 100);
  assert_true (failed > 100);
}

static void
test_docs_name_every_key (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path ("docs/machines.md");
  g_autofree char *doc = NULL;
  assert_true (g_file_get_contents (path, &doc, NULL, NULL));
  for (const SimSchemaSection *s = sim_machine_schema (); s->path; s++)
    for (guint i = 0; i < s->n_fields; i++)
      {
        const SimField *f = &s->fields[i];
        g_autofree char *row = g_strdup_printf ("| `%s` |", f->key);
        tu_assert_contains (doc, row);
        if (f->def && *f->def)
          {
            g_autofree char *def = g_strdup_printf ("`%s`", f->def);
            tu_assert_contains (doc, def);
          }
        for (guint k = 0; f->enum_names && f->enum_names[k]; k++)
          {
            g_autofree char *e = g_strdup_printf ("`%s`", f->enum_names[k]);
            tu_assert_contains (doc, e);
          }
      }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_bundled_load),
    cmocka_unit_test (test_nehalem_values),
    cmocka_unit_test (test_other_machines),
    cmocka_unit_test (test_round_trip),
    cmocka_unit_test (test_round_trip_escaped_strings),
    cmocka_unit_test (test_overrides),
    cmocka_unit_test (test_unknown_machine),
    cmocka_unit_test (test_machine_path),
    cmocka_unit_test (test_base_is_valid),
    cmocka_unit_test (test_bad_cache_geometry),
    cmocka_unit_test (test_odd_sizes_with_pow2_sets),
    cmocka_unit_test (test_bad_chain),
    cmocka_unit_test (test_bad_cpus),
    cmocka_unit_test (test_bad_keys_and_values),
    cmocka_unit_test (test_empty_and_odd_documents),
    cmocka_unit_test (test_mutations_never_crash),
    cmocka_unit_test (test_docs_name_every_key),
  };
  return cmocka_run_group_tests_name ("machine", tests, NULL, NULL);
}
