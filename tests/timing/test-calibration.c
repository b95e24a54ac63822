/* test-calibration.c - the timing model against one published table of
 * ../shared/measurements/slab-test-calibration.tsv (docs/models/timing.md,
 * "Tests per table").  argv[1] names the table; the test runs slabsim
 * slab-test with that table's machine, allocator and era (the same mapping
 * as scripts/fit-timing.py: keep the two in step) and checks every point
 * against the table within the table's own noise.  Tables whose CPU is not
 * named are compared in shape (each series divided by its geometric mean). */
#include "tests/testutil.h"

#include <math.h>
#include <string.h>

typedef struct {
  const char *id, *machine, *alloc;
  gboolean shape;
  double tol;            /* the table's noise, relative */
  guint count;           /* TEST_COUNT of the simulated run */
} Table;

/* 0.09: the largest difference between S01's two runs of one
 * configuration, the set's only repeated run.  A table that posts two
 * measures of the same kmem_cache_alloc+free loop in one run (time_bench's
 * fastpath row and slab_bulk_test's bulk=1 fallback) shows its own noise
 * in their spread, |a - b| / mean: S08-SLUB 178/127 -> 0.33, S08-SLAB
 * 174/89 -> 0.65, S15-p5 43/58 -> 0.30, S19 96/115 -> 0.18. */
static const Table tables[] = {
  /* 2.6.24-rc SLUB: 2.6.23 with 2.6.24-rc's __kmalloc pass-through of sizes
   * above PAGE_SIZE / 2 (scripts/fit-timing.py says where that is from). */
  { "S01-P4-HEAD-r1", "pentium4", "slub@2.6.23:pass_through=2048,slub_stats=0", FALSE, 0.09, 10000 },
  { "S01-P4-HEAD-r2", "pentium4", "slub@2.6.23:pass_through=2048,slub_stats=0", FALSE, 0.09, 10000 },
  { "S01-AMD64-base", "athlon64-x2", "slub@2.6.23:pass_through=2048,slub_stats=0", FALSE, 0.09,
    10000 },
  { "S02-SLAB-before", "broadwell-ep", "slab@2.6.34", TRUE, 0.09, 10000 },
  { "S03-SLUB-before", "broadwell-ep", "slub@6.18:slub_stats=0", TRUE, 0.09, 10000 },
  { "S04-SLUB-before", "ivybridge-ep", "slub@6.18:slub_stats=0", TRUE, 0.09, 10000 },
  { "S06-SLUB-before", "nehalem-ep-2s", "slub@2.6.34:slub_stats=0", TRUE, 0.09, 10000 },
  { "S07-A-base", "haswell", "slub@6.18:slub_stats=0", TRUE, 0.09, 10000 },
  { "S08-SLUB-orig", "zen1", "slub@6.18:slub_stats=0", FALSE, 0.33, 10000 },
  { "S08-SLAB-orig", "zen1", "slab@2.6.34", FALSE, 0.65, 10000 },
  { "S09-SLAB-base", "nehalem-ep-2s", "slab@2.6.34", TRUE, 0.09, 10000 },
  { "S10-SLUB-before", "haswell", "slub@6.18:slub_stats=0", TRUE, 0.09, 10000 },
  { "S12-SLAB-before", "broadwell-ep", "slab@2.6.34", TRUE, 0.09, 10000 },
  { "S14-SLUB-base", "ivybridge-ep", "slub@6.18:slub_stats=0", FALSE, 0.09, 10000 },
  { "S15-SLUB-p2-infra", "haswell", "slub@6.18:slub_stats=0", FALSE, 0.09, 10000 },
  { "S15-SLUB-p5-bulkfree", "haswell", "slub@6.18:slub_stats=0", FALSE, 0.30, 10000 },
  { "S17-SLUB-nomemcg", "haswell", "slub@6.18:slub_stats=0", FALSE, 0.09, 10000 },
  { "S19-SLAB-bulk-simple-sep", "haswell", "slab@2.6.34", FALSE, 0.18, 10000 },
};

static const Table *the_table;

typedef struct {
  char   test[16];
  guint  size;
  char   what[8];        /* alloc, free, pair */
  double measured, simulated;
} Point;

static gboolean
fastpath_row (const char *test, const char *notes)
{
  if (strcmp (test, "other") == 0)
    return strstr (notes, "kmem fastpath reuse") || strstr (notes, "fast-path loop")
           || strstr (notes, "normal (non-bulk) fastpath");
  if (strcmp (test, "bulk") == 0)
    return g_str_has_prefix (notes, "bulk=1;") && strstr (notes, "variant=fallback");
  return FALSE;
}

static void
add (GArray *pts, const char *test, guint size, const char *what, const char *v)
{
  Point p = { .size = size, .measured = g_ascii_strtod (v, NULL) };
  g_strlcpy (p.test, test, sizeof p.test);
  g_strlcpy (p.what, what, sizeof p.what);
  g_array_append_val (pts, p);
}

static GArray *
read_points (const char *id)
{
  g_autofree char *path = g_build_filename (tu_shared_dir (), "measurements",
                                            "slab-test-calibration.tsv", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_auto (GStrv) head = g_strsplit (lines[0], "\t", -1);
  gint col[16];
  const char *names[] = { "table_id", "test", "size", "alloc_cycles", "free_cycles",
                          "pair_cycles", "concurrent_alloc", "concurrent_free", "notes" };
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      col[k] = -1;
      for (guint i = 0; head[i]; i++)
        if (strcmp (head[i], names[k]) == 0)
          col[k] = (gint) i;
      assert_true (col[k] >= 0);
    }
  GArray *pts = g_array_new (FALSE, TRUE, sizeof (Point));
  for (guint l = 1; lines[l]; l++)
    {
      g_auto (GStrv) f = g_strsplit (lines[l], "\t", -1);
      if (g_strv_length (f) <= (guint) col[8] || strcmp (f[col[0]], id) != 0)
        continue;
      const char *test = f[col[1]];
      guint size = (guint) g_ascii_strtoull (f[col[2]], NULL, 10);
      if (strcmp (test, "repeat") == 0)
        {
          add (pts, "repeat", size, "alloc", f[col[3]]);
          add (pts, "repeat", size, "free", f[col[4]]);
        }
      else if (strcmp (test, "pair") == 0)
        add (pts, "pair", size, "pair", f[col[5]]);
      else if (strcmp (test, "concurrent") == 0 && *f[col[6]] && strcmp (id, "S07-A-base") != 0)
        {
          add (pts, "concurrent", size, "alloc", f[col[6]]);
          add (pts, "concurrent", size, "free", f[col[7]]);
        }
      else if (fastpath_row (test, f[col[8]]) && *f[col[5]])
        add (pts, "kmem-cache", 256, "pair", f[col[5]]);   /* time_bench_kmem_cache1 */
    }
  return pts;
}

/* The "_exact" value of @what for (@test, @size) in slab-test's JSON. */
static double
json_point (const char *js, const char *test, guint size, const char *what)
{
  g_autofree char *t = g_strdup_printf ("\"test\": \"%s\",\n      \"size\": %u,", test, size);
  const char *p = strstr (js, t);
  if (p == NULL)
    fail_msg ("no %s %u in slab-test's output", test, size);
  g_autofree char *k = g_strdup_printf ("\"%s_cycles_exact\": ", what);
  const char *v = strstr (p, k);
  const char *next = strstr (p + 1, "\"test\": ");
  if (v == NULL || (next && v > next))
    fail_msg ("no %s for %s %u", k, test, size);
  return g_ascii_strtod (v + strlen (k), NULL);
}

static void
normalise (GArray *pts, gboolean simulated)
{
  double s = 0;
  for (guint i = 0; i < pts->len; i++)
    {
      Point *p = &g_array_index (pts, Point, i);
      s += log (simulated ? p->simulated : p->measured);
    }
  double gm = exp (s / pts->len);
  for (guint i = 0; i < pts->len; i++)
    {
      Point *p = &g_array_index (pts, Point, i);
      if (simulated)
        p->simulated /= gm;
      else
        p->measured /= gm;
    }
}

static void
test_table (void **state)
{
  (void) state;
  const Table *t = the_table;
  GArray *pts = read_points (t->id);
  if (pts == NULL)
    skip ();                    /* no ../shared/measurements here */
  assert_true (pts->len > 0);
  gboolean want[4] = { FALSE };
  for (guint i = 0; i < pts->len; i++)
    {
      const char *x = g_array_index (pts, Point, i).test;
      want[strcmp (x, "repeat") == 0 ? 0 : strcmp (x, "pair") == 0 ? 1
           : strcmp (x, "concurrent") == 0 ? 2 : 3] = TRUE;
    }
  GString *list_s = g_string_new (NULL);
  const char *names[] = { "repeat", "pair", "concurrent", "kmem_cache" };
  for (guint k = 0; k < 4; k++)
    if (want[k])
      g_string_append_printf (list_s, "%s%s", list_s->len ? "," : "", names[k]);
  g_autofree char *list = g_string_free (list_s, FALSE);
  g_autofree char *count = g_strdup_printf ("%u", t->count);
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "slab-test", "--machine", t->machine, "--allocator", t->alloc,
                         "--test", list, "--count", count, "--format", "json", NULL };
  int rc = tu_run (&out, &err, args);
  if (rc != 0)
    fail_msg ("slab-test failed (%d): %s", rc, err);
  for (guint i = 0; i < pts->len; i++)
    {
      Point *p = &g_array_index (pts, Point, i);
      p->simulated = json_point (out, p->test, p->size, p->what);
    }
  if (t->shape)
    {
      normalise (pts, FALSE);
      normalise (pts, TRUE);
    }
  guint bad = 0;
  double worst = 0;
  for (guint i = 0; i < pts->len; i++)
    {
      Point *p = &g_array_index (pts, Point, i);
      double r = p->simulated / p->measured - 1;
      worst = MAX (worst, fabs (r));
      if (fabs (r) > t->tol)
        {
          bad++;
          print_message ("%s %s %u %s: simulated %.3g, table %.3g (%+.0f%%, noise %.0f%%)\n",
                         t->id, p->test, p->size, p->what, p->simulated, p->measured,
                         100 * r, 100 * t->tol);
        }
    }
  print_message ("%s: %u of %u points outside the table's noise; worst %.0f%%\n", t->id, bad,
                 pts->len, 100 * worst);
  g_array_unref (pts);
  assert_int_equal (bad, 0);
}

int
main (int argc, char **argv)
{
  for (guint i = 0; argc > 1 && i < G_N_ELEMENTS (tables); i++)
    if (strcmp (tables[i].id, argv[1]) == 0)
      the_table = &tables[i];
  if (the_table == NULL)
    {
      g_printerr ("usage: test-calibration TABLE-ID\n");
      return 2;
    }
  const struct CMUnitTest t[] = { cmocka_unit_test (test_table) };
  return cmocka_run_group_tests_name (the_table->id, t, NULL, NULL);
}
