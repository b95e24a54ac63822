/* test-paths.c - the per-era path tables (models/alloc/paths.h,
 * configs/paths/, docs/models/paths.md): the parser's errors name the
 * file and line, every compiled-in table loads exactly what it says for
 * every path its model charges, and each model's fast allocation charges
 * exactly its table's fast-path count. */
#include "tests/alloc/world.h"
#include "models/alloc/paths.h"
#include "sim/core/errors.h"

#include <stdlib.h>
#include <string.h>

#define HDR "path\tkernel\tinstr\tlocked\tcx16\tirq\tthis_cpu\tpreempt\tmethod\tsource\n"

static const char *const two_keys[] = { "fast", "slow" };

static void
expect_error (const char *text, const char *want)
{
  SimPathCost c[2];
  GError *error = NULL;
  assert_false (sim_paths_parse ("t.tsv", text, two_keys, 2, c, &error));
  assert_non_null (error);
  assert_true (error->domain == SIM_CONFIG_ERROR);
  if (strstr (error->message, want) == NULL)
    {
      print_error ("got '%s', want '%s'\n", error->message, want);
      fail ();
    }
  g_error_free (error);
}

static void
test_parse_counts (void **state)
{
  (void) state;
  SimPathCost c[2];
  GError *error = NULL;
  const char *text = "# comment\n" HDR
                     "slow\tf2\t40\t1\t0\t1\t0\t0\tsource\tmm/x.c@1:f2\n"
                     "\n"
                     "fast\tf1\t12\t0\t1\t0\t2\t1\tobjdump\tvmlinux:f1\n";
  assert_true (sim_paths_parse ("t.tsv", text, two_keys, 2, c, &error));
  assert_null (error);
  assert_int_equal (c[0].instr, 12);
  assert_int_equal (c[0].special[SIM_PATH_CX16], 1);
  assert_int_equal (c[0].special[SIM_PATH_THIS_CPU], 2);
  assert_int_equal (c[0].special[SIM_PATH_PREEMPT], 1);
  /* Every special operation counts its x86-64 instructions. */
  assert_int_equal (c[0].total, 12 + 1 + 2 + 2);
  assert_int_equal (c[1].instr, 40);
  assert_int_equal (c[1].total, 40 + 1 + 5);
}

static void
test_parse_errors (void **state)
{
  (void) state;
  expect_error ("", "t.tsv: no header line");
  expect_error ("path\tkernel\n", "t.tsv:1: expected the header line path<TAB>kernel");
  expect_error ("#\n" HDR "fast\tf\t1\t0\t0\t0\t0\t0\tsource\n",
                "t.tsv:3: expected 10 tab-separated columns, got 9");
  expect_error (HDR "fast\tf\t1x\t0\t0\t0\t0\t0\tsource\ts\n",
                "t.tsv:2: column 'instr': expected a count 0..100000, got '1x'");
  expect_error (HDR "fast\tf\t1\t0\t-1\t0\t0\t0\tsource\ts\n",
                "t.tsv:2: column 'cx16': expected a count");
  expect_error (HDR "fast\tf\t1\t0\t0\t0\t0\t0\tguess\ts\n",
                "t.tsv:2: column 'method': expected objdump, source or estimate, got 'guess'");
  expect_error (HDR "fast\t\t1\t0\t0\t0\t0\t0\tsource\ts\n", "t.tsv:2: column 'kernel' is empty");
  expect_error (HDR "fast\tf\t1\t0\t0\t0\t0\t0\tsource\ts\nfast\tf\t2\t0\t0\t0\t0\t0\tsource\ts\n",
                "t.tsv:3: path 'fast' has a row already (line 2)");
  expect_error (HDR "fast\tf\t1\t0\t0\t0\t0\t0\tsource\ts\nmid\tf\t2\t0\t0\t0\t0\t0\tsource\ts\n",
                "t.tsv:3: unknown path 'mid' (the model charges: fast, slow)");
  expect_error (HDR "fast\tf\t1\t0\t0\t0\t0\t0\tsource\ts\n", "t.tsv: no row for path 'slow'");
  /* The compiled-in tables are named as their source file. */
  SimPathCost c[2];
  GError *error = NULL;
  assert_false (sim_paths_load ("slub-6.18", two_keys, 2, c, &error));
  assert_non_null (strstr (error->message, "configs/paths/slub-6.18.tsv:"));
  g_clear_error (&error);
  assert_false (sim_paths_load ("slub-9.9", two_keys, 2, c, &error));
  assert_non_null (strstr (error->message, "no path table 'slub-9.9'"));
  g_clear_error (&error);
}

/* A table's rows, read here independently of the parser: the test's own
 * split of the text on tabs. */
static guint
own_count (const char *table, const char *path, guint col)
{
  g_autofree char *file = NULL;
  g_autoptr (GBytes) b = sim_paths_table_bytes (table, &file);
  assert_non_null (b);
  g_auto (GStrv) lines = g_strsplit (g_bytes_get_data (b, NULL), "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
      if (lines[i][0] != '#' && g_strv_length (f) == 10 && strcmp (f[0], path) == 0)
        return (guint) strtoul (f[col], NULL, 10);
    }
  print_error ("%s: no row %s\n", file, path);
  fail ();
  return 0;
}

/* Every compiled-in table parses, and the parser's numbers are the text's. */
static void
test_tables_load_exactly (void **state)
{
  (void) state;
  g_auto (GStrv) tables = sim_paths_tables ();
  assert_int_equal (g_strv_length (tables), 11);
  for (guint t = 0; tables[t]; t++)
    {
      g_autofree char *file = NULL;
      g_autoptr (GBytes) b = sim_paths_table_bytes (tables[t], &file);
      GError *error = NULL;
      g_autoptr (GArray) rows = sim_paths_rows (file, g_bytes_get_data (b, NULL), &error);
      if (rows == NULL)
        {
          print_error ("%s\n", error->message);
          fail ();
        }
      assert_true (rows->len > 0);
      for (guint r = 0; r < rows->len; r++)
        {
          const SimPathRow *row = &g_array_index (rows, SimPathRow, r);
          assert_int_equal (row->cost.instr, own_count (tables[t], row->path, 2));
          guint total = row->cost.instr;
          for (guint k = 0; k < SIM_PATH_N_SPECIAL; k++)
            {
              assert_int_equal (row->cost.special[k], own_count (tables[t], row->path, 3 + k));
              total += row->cost.special[k] * sim_path_special_instrs[k];
            }
          assert_int_equal (row->cost.total, total);
        }
    }
}

/* Every model of every era loads its table: creation fails if a path it
 * charges has no row or a row names a path it does not charge. */
static void
test_every_era_has_every_path (void **state)
{
  (void) state;
  guint n = 0;
  for (const SimAllocOps *const *ops = sim_alloc_models (); *ops; ops++)
    for (const char *const *k = (*ops)->kernels; *k; k++)
      {
        g_autofree char *spec = g_strdup_printf ("%s@%s", (*ops)->name, *k);
        TuWorld w;
        tu_world_init (&w, spec, NULL, 0, FALSE);
        GError *error = NULL;
        gpointer m = w.ops->create (w.spec, &w.env, &error);
        tu_world_assert_model (m, error);
        w.ops->destroy (m);
        tu_world_clear (&w);
        n++;
      }
  /* slub 5 eras, slab 2, slqb 1 (each world also loads its page table). */
  assert_int_equal (n, 8);
}

/* After one allocation and its free, the next allocation of the cache is
 * the fast path and charges exactly the table's fast_alloc instructions. */
static void
check_fast_alloc (const char *spec, const char *table)
{
  TuWorld w;
  tu_world_init (&w, spec, NULL, 0, FALSE);
  GError *error = NULL;
  w.model = w.ops->create (w.spec, &w.env, &error);
  tu_world_assert_model (w.model, error);
  SimCacheSpec cs = { .name = "paths_test", .object_size = 64 };
  sim_op_begin (&w.op, w.mem, 0, 0);
  SimCacheId id = w.ops->cache_create (w.model, &w.op, &cs, &error);
  assert_true (id != SIM_CACHE_NONE);
  SimAddr obj;
  tu_world_alloc_n (&w, id, 0, &obj, 1);
  tu_world_free_n (&w, 0, &obj, 1);
  tu_world_alloc_n (&w, id, 0, &obj, 1);
  guint want = own_count (table, "fast_alloc", 2);
  for (guint k = 0; k < SIM_PATH_N_SPECIAL; k++)
    want += own_count (table, "fast_alloc", 3 + k) * sim_path_special_instrs[k];
  /* Instructions counted, not cycles: the machine's cpi and special
   * instruction costs (docs/models/timing.md) price them. */
  if (w.op.cost.n_instr != want)
    {
      print_error ("%s: fast alloc charged %" G_GUINT64_FORMAT " instructions, %s says %u\n",
                   spec, w.op.cost.n_instr, table, want);
      fail ();
    }
  tu_world_free_n (&w, 0, &obj, 1);
  tu_world_check (&w);
  w.ops->destroy (w.model);
  tu_world_clear (&w);
}

static void
test_slub_fast_alloc (void **state)
{
  (void) state;
  static const char *const eras[] = { "2.6.23", "2.6.33", "2.6.34", "6.18" };
  for (guint i = 0; i < G_N_ELEMENTS (eras); i++)
    {
      g_autofree char *spec = g_strdup_printf ("slub@%s", eras[i]);
      g_autofree char *table = g_strdup_printf ("slub-%s", eras[i]);
      check_fast_alloc (spec, table);
    }
}

static void
test_slab_fast_alloc (void **state)
{
  (void) state;
  check_fast_alloc ("slab@2.6.23", "slab-2.6.23");
  check_fast_alloc ("slab@2.6.34", "slab-2.6.34");
}

static void
test_slqb_fast_alloc (void **state)
{
  (void) state;
  check_fast_alloc ("slqb", "slqb-2.6.31");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_parse_counts),
    cmocka_unit_test (test_parse_errors),
    cmocka_unit_test (test_tables_load_exactly),
    cmocka_unit_test (test_every_era_has_every_path),
    cmocka_unit_test (test_slub_fast_alloc),
    cmocka_unit_test (test_slab_fast_alloc),
    cmocka_unit_test (test_slqb_fast_alloc),
  };
  return cmocka_run_group_tests_name ("paths", tests, NULL, NULL);
}
