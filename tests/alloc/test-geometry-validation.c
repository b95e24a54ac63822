/* test-geometry-validation.c - "slabsim geometry" against real
 * /sys/kernel/slab numbers of a 2-CPU 6.18 kernel
 * (shared/validation/slub-6.18-2cpu-geometry-examples.tsv).
 *
 * The input rows are built from the shared file's own columns (object_size,
 * align, and the flag columns), so the test follows the file if rows are
 * added; tests/data keeps a copy of the derived input.  Every output column
 * must equal the shared one: slab_size, order, objs_per_slab, cpu_partial,
 * min_partial, sheaf_capacity, and with --long also align.  maple_node,
 * the 6.18 cache with a sheaf capacity, is checked against the sysfs of
 * the recording VM (tests/data/slub-6.18-2cpu-sheaf-caches.tsv).
 */
#include "tests/testutil.h"
#include <stdio.h>
#include <string.h>

static char *shared_tsv;

static int
column (char **header, const char *name)
{
  for (int i = 0; header[i]; i++)
    if (strcmp (header[i], name) == 0)
      return i;
  print_error ("shared TSV has no column %s\n", name);
  fail ();
  return -1;
}

/* Every row of @tsv (the shared file's columns; '#' lines skipped) run
 * through "geometry -a slub@6.18 -c 2 --long" must give its slab_size,
 * order, objs_per_slab, cpu_partial, min_partial, sheaf_capacity and
 * align.  Returns the geometry output of the short form. */
static char *
check_table (const char *tsv, guint min_rows)
{
  g_auto (GStrv) all = g_strsplit (tsv, "\n", -1);
  GPtrArray *rowsv = g_ptr_array_new ();
  for (guint i = 0; all[i]; i++)
    if (all[i][0] != '#' && all[i][0] != '\0')
      g_ptr_array_add (rowsv, all[i]);
  g_ptr_array_add (rowsv, NULL);
  char **lines = (char **) rowsv->pdata;
  g_auto (GStrv) h = g_strsplit (lines[0], "\t", -1);
  int c_name = column (h, "name"), c_os = column (h, "object_size"),
      c_ss = column (h, "slab_size"), c_al = column (h, "align"),
      c_order = column (h, "order"), c_objs = column (h, "objs_per_slab"),
      c_cp = column (h, "cpu_partial"), c_mp = column (h, "min_partial"),
      c_sheaf = column (h, "sheaf_capacity"),
      c_hw = column (h, "hwcache_align"), c_rcu = column (h, "destroy_by_rcu"),
      c_rec = column (h, "reclaim_account"), c_ctor = column (h, "ctor"),
      c_dma = column (h, "cache_dma");

  GString *input = g_string_new ("name\tobject_size\talign\tflags\n");
  GString *expect = g_string_new ("name\tobject_size\tslab_size\torder\tobjs_per_slab\tcpu_partial"
                                  "\tmin_partial\tsheaf_capacity\talign\n");
  guint rows = 0;
  for (guint i = 1; lines[i]; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
      assert_true (g_strv_length (f) == g_strv_length (h));
      GString *flags = g_string_new (NULL);
      if (strcmp (f[c_hw], "1") == 0)
        g_string_append (flags, ",hwcache_align");
      if (strcmp (f[c_rcu], "1") == 0)
        g_string_append (flags, ",typesafe_by_rcu");
      if (strcmp (f[c_rec], "1") == 0)
        g_string_append (flags, ",reclaim_account");
      if (strcmp (f[c_ctor], "-") != 0)
        g_string_append (flags, ",ctor");
      if (strcmp (f[c_dma], "1") == 0)
        g_string_append (flags, ",cache_dma");
      /* sysfs shows s->sheaf_capacity; in 6.18 that is the creator's
       * kmem_cache_args.sheaf_capacity, so a non-zero one is given back
       * as the request. */
      if (strcmp (f[c_sheaf], "0") != 0)
        g_string_append_printf (flags, ",sheaf_capacity=%s", f[c_sheaf]);
      /* The shared align column is s->align, which calculate_alignment()
       * leaves unchanged when given back as the requested alignment. */
      g_string_append_printf (input, "%s\t%s\t%s\t%s\n", f[c_name], f[c_os], f[c_al],
                              flags->len ? flags->str + 1 : "-");
      g_string_free (flags, TRUE);
      g_string_append_printf (expect, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f[c_name], f[c_os],
                              f[c_ss], f[c_order], f[c_objs], f[c_cp], f[c_mp], f[c_sheaf],
                              f[c_al]);
      rows++;
    }
  assert_true (rows >= min_rows);
  g_ptr_array_free (rowsv, TRUE);

  g_autofree char *path = tu_write_temp (".tsv", input->str, -1);
  char *out = NULL;
  int rc = tu_run (&out, NULL, (const char *[]) { "geometry", "--allocator", "slub@6.18",
                                                  "--cpus", "2", path, NULL });
  assert_int_equal (rc, 0);
  /* --long adds align inuse offset min_order min_objs cpu_partial_slabs
   * after sheaf_capacity: keep the first nine columns. */
  g_autofree char *out_long = NULL;
  rc = tu_run (&out_long, NULL, (const char *[]) { "geometry", "-a", "slub@6.18", "-c", "2",
                                                   "--long", path, NULL });
  assert_int_equal (rc, 0);
  GString *got = g_string_new (NULL);
  g_auto (GStrv) ol = g_strsplit (out_long, "\n", -1);
  for (guint i = 0; ol[i] && ol[i][0]; i++)
    {
      g_auto (GStrv) f = g_strsplit (ol[i], "\t", 10);
      for (int k = 0; k < 9; k++)
        g_string_append_printf (got, "%s%s", k ? "\t" : "", f[k]);
      g_string_append_c (got, '\n');
    }
  if (strcmp (got->str, expect->str) != 0)
    print_error ("expected:\n%s\ngot:\n%s\n", expect->str, got->str);
  assert_string_equal (got->str, expect->str);
  g_string_free (input, TRUE);
  g_string_free (expect, TRUE);
  g_string_free (got, TRUE);
  return out;
}

static void
test_reproduces_shared_geometry (void **state)
{
  (void) state;
  g_autofree char *out = check_table (shared_tsv, 18);
  /* The short form is the same rows without align. */
  tu_assert_contains (out, "TCP\t2304\t2368\t3\t13\t24\t5\t0\n");
  tu_assert_contains (out, "kmalloc-8k\t8192\t8192\t3\t4\t6\t6\t0\n");

  /* The checked-in copy of the input gives the same answer. */
  g_autofree char *copy = tu_source_path ("tests/data/slub-6.18-2cpu-geometry-input.tsv");
  g_autofree char *out2 = NULL;
  int rc = tu_run (&out2, NULL, (const char *[]) { "geometry", "-a", "slub", "--cpus", "2", copy, NULL });
  assert_int_equal (rc, 0);
  assert_string_equal (out2, out);
}

/* Sheaf capacities: every cache of the shared 6.18 list has none (its
 * sheaf_capacity column is 0 throughout, as the model gives), and
 * maple_node, read from the sysfs of the recording VM, has the 32 that
 * lib/maple_tree.c asks for, with its other geometry unchanged. */
static void
test_sheaf_capacities (void **state)
{
  (void) state;
  g_auto (GStrv) lines = g_strsplit (shared_tsv, "\n", -1);
  g_auto (GStrv) h = g_strsplit (lines[0], "\t", -1);
  int c_sheaf = column (h, "sheaf_capacity");
  guint zero = 0;
  for (guint i = 1; lines[i]; i++)
    if (lines[i][0])
      {
        g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
        zero += strcmp (f[c_sheaf], "0") == 0;
      }
  assert_int_equal (zero, 18);
  g_autofree char *path = tu_source_path ("tests/data/slub-6.18-2cpu-sheaf-caches.tsv");
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autofree char *out = check_table (text, 1);
  tu_assert_contains (out, "maple_node\t256\t256\t0\t16\t52\t5\t32\n");
}

/* The kmalloc rows of the shared file also come out of --kmalloc. */
static void
test_kmalloc_rows_match (void **state)
{
  (void) state;
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "geometry", "-a", "slub@6.18",
                                                           "-c", "2", "--kmalloc", NULL }), 0);
  g_auto (GStrv) lines = g_strsplit (shared_tsv, "\n", -1);
  guint n = 0;
  for (guint i = 1; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "kmalloc-"))
      {
        g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
        /* name object_size slab_size [align] order objs cpu_partial min_partial
         * sheaf_capacity */
        /* ... sheaf_capacity */
        g_autofree char *row = g_strdup_printf ("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f[0], f[1],
                                                f[2], f[4], f[5], f[6], f[7], f[8]);
        tu_assert_contains (out, row);
        n++;
      }
  assert_int_equal (n, 13);
}

int
main (void)
{
  g_autofree char *path = g_build_filename (tu_shared_dir (), "validation",
                                            "slub-6.18-2cpu-geometry-examples.tsv", NULL);
  if (!g_file_get_contents (path, &shared_tsv, NULL, NULL))
    {
      printf ("1..0 # SKIP %s not found\n", path);
      return 0;
    }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_reproduces_shared_geometry),
    cmocka_unit_test (test_sheaf_capacities),
    cmocka_unit_test (test_kmalloc_rows_match),
  };
  int rc = cmocka_run_group_tests_name ("geometry-validation", tests, NULL, NULL);
  g_free (shared_tsv);
  return rc;
}
