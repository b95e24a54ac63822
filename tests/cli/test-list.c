/* test-list.c - "slabsim list ..." prints what the code accepts, the man
 * page lists the same, and a parameter an era does not have is refused.
 *
 * The expected lists come from the tables themselves (the allocator
 * registry, each model's param_names, the machine catalogue, the report
 * metrics), so the test fails when the command or the man page drifts
 * from what a spec, --machine or --metric really takes. */
#include "tests/testutil.h"
#include "models/alloc/alloc.h"
#include "sim/config/machine-schema.h"
#include "sim/report/report-data.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

static char *man;

/* The roff of the man page with "\-" unescaped, so names compare plainly. */
static char *
man_text (void)
{
  g_autofree char *path = tu_source_path ("docs/slabsim.1");
  g_autofree char *raw = NULL;
  assert_true (g_file_get_contents (path, &raw, NULL, NULL));
  GString *s = g_string_new (NULL);
  for (const char *p = raw; *p; p++)
    if (!(p[0] == '\\' && p[1] == '-'))
      g_string_append_c (s, *p);
  return g_string_free (s, FALSE);
}

static char *
list (const char *what, const char *arg)
{
  char *out = NULL;
  int rc = tu_run (&out, NULL, (const char *[]) { "list", what, arg, NULL });
  assert_int_equal (rc, 0);
  assert_non_null (out);
  return out;
}

static void
test_kernels_and_allocators (void **state)
{
  (void) state;
  g_autofree char *kernels = list ("kernels", NULL);
  g_autofree char *allocs = list ("allocators", NULL);
  guint n = 0;
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    {
      tu_assert_contains (allocs, (*o)->name);
      for (guint i = 0; (*o)->kernels[i]; i++, n++)
        {
          g_autofree char *spec = g_strdup_printf ("%s@%s%s\n", (*o)->name, (*o)->kernels[i],
                                                   i == 0 ? " (default)" : "");
          tu_assert_contains (kernels, spec);
          g_autofree char *bare = g_strdup_printf ("%s@%s", (*o)->name, (*o)->kernels[i]);
          tu_assert_contains (man, bare);
        }
    }
  g_auto (GStrv) lines = g_strsplit (kernels, "\n", -1);
  assert_int_equal (g_strv_length (lines) - 1, n);
  assert_true (n >= 8);
}

static void
test_params (void **state)
{
  (void) state;
  g_autofree char *out = list ("params", NULL);
  guint n = 0;
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    for (guint i = 0; (*o)->kernels[i]; i++)
      {
        g_auto (GStrv) names = (*o)->param_names ((*o)->kernels[i]);
        assert_non_null (names);
        g_autofree char *joined = g_strjoinv (" ", names);
        g_autofree char *line = g_strdup_printf ("%s@%s %s\n", (*o)->name, (*o)->kernels[i], joined);
        tu_assert_contains (out, line);
        for (char **p = names; *p; p++, n++)
          tu_assert_contains (man, *p);
      }
  assert_true (n > 40);
  /* The era decides: 2.6.23 has neither cpu_partial nor the sheaf knobs,
   * 6.18 has both, 7.x no cpu_partial. */
  g_autofree char *old = list ("params", "slub@2.6.23");
  assert_null (strstr (old, "cpu_partial"));
  assert_null (strstr (old, "min_partial"));
  assert_null (strstr (old, "sim_sheaf_capacity"));
  g_autofree char *new = list ("params", "slub@6.18");
  tu_assert_contains (new, " cpu_partial ");
  tu_assert_contains (new, " sim_sheaf_capacity ");
  g_autofree char *seven = list ("params", "slub@7.0");
  assert_null (strstr (seven, "cpu_partial"));
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "list", "params", "slub@9.9", NULL }), 2);
  tu_assert_contains (err, "9.9");
}

/* A parameter the era has no variable for is a configuration error
 * naming the parameter and the era, where it used to be ignored. */
static void
test_param_the_era_lacks (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("netperf-udp", "2.6.23",
                                         (const char *[]) { "--cpus", "2", "--loops", "5", NULL });
  static const char *const bad[][2] = {
    { "slub@2.6.23:cpu_partial=30", "cpu_partial" },
    { "slub@2.6.23:min_partial=5", "min_partial" },
    { "slub@2.6.34:sim_barn_max_full=2", "sim_barn_max_full" },
    { "slub@7.x:cpu_partial=30", "cpu_partial" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *err = NULL;
      int rc = tu_run (NULL, &err, (const char *[]) { "run", "-a", bad[i][0], trace, NULL });
      assert_int_equal (rc, 2);
      tu_assert_contains (err, bad[i][1]);
      tu_assert_contains (err, "does not exist in this kernel");
      g_autofree char *era = g_strndup (bad[i][0], strchr (bad[i][0], ':') - bad[i][0]);
      tu_assert_contains (err, strcmp (era, "slub@7.x") == 0 ? "slub@7.0" : era);
    }
  /* Where the era has it, it is accepted. */
  assert_int_equal (tu_run (NULL, NULL, (const char *[]) { "run", "-a", "slub@6.18:cpu_partial=30",
                                                          trace, NULL }), 0);
  g_unlink (trace);
}

static void
test_machines_and_metrics (void **state)
{
  (void) state;
  g_autofree char *machines = list ("machines", NULL);
  g_auto (GStrv) names = sim_machine_available ();
  assert_true (g_strv_length (names) >= 10);
  for (char **m = names; *m; m++)
    {
      g_autofree char *line = g_strdup_printf ("%s\n", *m);
      tu_assert_contains (machines, line);
      tu_assert_contains (man, *m);
    }
  g_autofree char *metrics = list ("metrics", NULL);
  guint n;
  const SimReportMetric *mt = sim_report_metrics (&n);
  assert_true (n >= 10);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *head = g_strdup_printf ("%s ", mt[i].name);
      tu_assert_contains (metrics, head);
      tu_assert_contains (metrics, mt[i].title);
      tu_assert_contains (man, mt[i].name);
    }
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "list", "colours", NULL }), 2);
  tu_assert_contains (err, "colours");
}

int
main (void)
{
  man = man_text ();
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kernels_and_allocators),
    cmocka_unit_test (test_params),
    cmocka_unit_test (test_param_the_era_lacks),
    cmocka_unit_test (test_machines_and_metrics),
  };
  int rc = cmocka_run_group_tests_name ("cli-list", tests, NULL, NULL);
  g_free (man);
  return rc;
}
