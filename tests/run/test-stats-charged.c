/* test-stats-charged.c - the allocators' statistics counters are charged
 * as the kernel config says: CONFIG_SLUB_STATS, SLAB's STATS
 * (CONFIG_DEBUG_SLAB) and CONFIG_SLQB_STATS are default n, so only
 * slub_stats=1 / slab_stats=1 / slqb_stats=1 make their updates cost
 * simulated time.  The counters are counted and reported either way, and
 * the report (text and JSON) says whether they were charged. */
#include "tests/testutil.h"

#include <string.h>
#include <glib/gstdio.h>

typedef struct {
  const char *spec;
  const char *param;
  const char *config;
} Model;

static const Model models[] = {
  { "slub@2.6.33", "slub_stats", "CONFIG_SLUB_STATS" },
  { "slub@2.6.34", "slub_stats", "CONFIG_SLUB_STATS" },
  { "slub@6.18",   "slub_stats", "CONFIG_SLUB_STATS" },
  { "slab@2.6.23", "slab_stats", "STATS of CONFIG_DEBUG_SLAB" },
  { "slab@2.6.34", "slab_stats", "STATS of CONFIG_DEBUG_SLAB" },
  { "slqb",        "slqb_stats", "CONFIG_SLQB_STATS" },
};

/* The JSON of result @i (0-based) of a run: from its "allocator" key to
 * the next one. */
static char *
result_json (const char *json, guint i)
{
  const char *p = json;
  for (guint k = 0; k <= i; k++)
    {
      p = strstr (p + 1, "\"allocator\": ");
      assert_non_null (p);
    }
  const char *end = strstr (p + 1, "\"allocator\": ");
  return end ? g_strndup (p, end - p) : g_strdup (p);
}

/* The sum of every "alloc": N of the caches in @json. */
static guint64
sum_allocs (const char *json)
{
  guint64 n = 0;
  for (const char *p = strstr (json, "\"alloc\": "); p; p = strstr (p + 1, "\"alloc\": "))
    n += g_ascii_strtoull (p + strlen ("\"alloc\": "), NULL, 10);
  return n;
}

static void
test_default_off_param_on (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("netperf-udp", "2.6.34",
                                         (const char *[]) { "--cpus", "2", "--loops", "300", NULL });
  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    {
      const Model *md = &models[i];
      g_autofree char *on = g_strdup_printf ("%s:%s=1", md->spec, md->param);
      g_autofree char *json = NULL, *text = NULL, *err = NULL;
      int rc = tu_run (&json, &err, (const char *[]) { "run", "--format", "json", "-a", md->spec,
                                                       "-a", on, trace, NULL });
      if (rc != 0)
        print_error ("%s: %s\n", md->spec, err);
      assert_int_equal (rc, 0);
      g_autofree char *off_js = result_json (json, 0);
      g_autofree char *on_js = result_json (json, 1);
      /* The report says it. */
      g_autofree char *cfg = g_strdup_printf ("\"config\": \"%s\"", md->config);
      g_autofree char *par = g_strdup_printf ("\"param\": \"%s\"", md->param);
      tu_assert_contains (off_js, cfg);
      tu_assert_contains (off_js, par);
      tu_assert_contains (off_js, "\"charged\": false");
      tu_assert_contains (on_js, "\"charged\": true");
      /* Counted either way: the allocation counts of every cache agree
       * and are not zero. */
      guint64 a_off = sum_allocs (off_js);
      guint64 a_on = sum_allocs (on_js);
      assert_true (a_off > 0);
      assert_int_equal (a_off, a_on);
      /* Charged only when asked. */
      guint64 c_off = tu_json_uint (off_js, "\"timing\"", "alloc_cycles_total")
                      + tu_json_uint (off_js, "\"timing\"", "free_cycles_total");
      guint64 c_on = tu_json_uint (on_js, "\"timing\"", "alloc_cycles_total")
                     + tu_json_uint (on_js, "\"timing\"", "free_cycles_total");
      g_printerr ("%s: %" G_GUINT64_FORMAT " cycles, %s=1: %" G_GUINT64_FORMAT "\n", md->spec,
                  c_off, md->param, c_on);
      assert_true (c_on > c_off);

      rc = tu_run (&text, NULL, (const char *[]) { "run", "-a", md->spec, "-a", on, trace, NULL });
      assert_int_equal (rc, 0);
      g_autofree char *t_off = g_strdup_printf ("Counters (%s): counted, not charged (%s=0)",
                                                md->config, md->param);
      g_autofree char *t_on = g_strdup_printf ("Counters (%s): counted, charged (%s=1)",
                                               md->config, md->param);
      tu_assert_contains (text, t_off);
      tu_assert_contains (text, t_on);
    }
  g_unlink (trace);
}

/* SLUB 2.6.23 predates CONFIG_SLUB_STATS (2.6.25): nothing to charge, and
 * asking for it is a configuration error. */
static void
test_slub_2_6_23_has_none (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("netperf-udp", "2.6.23",
                                         (const char *[]) { "--cpus", "2", "--loops", "50", NULL });
  g_autofree char *json = NULL, *err = NULL;
  int rc = tu_run (&json, NULL, (const char *[]) { "run", "--format", "json", "-a", "slub@2.6.23",
                                                   trace, NULL });
  assert_int_equal (rc, 0);
  tu_assert_contains (json, "\"config\": null");
  tu_assert_contains (json, "\"charged\": false");
  assert_true (sum_allocs (json) > 0);
  rc = tu_run (NULL, &err, (const char *[]) { "run", "-a", "slub@2.6.23:slub_stats=1", trace, NULL });
  assert_int_equal (rc, 2);
  tu_assert_contains (err, "no CONFIG_SLUB_STATS");
  g_unlink (trace);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_default_off_param_on),
    cmocka_unit_test (test_slub_2_6_23_has_none),
  };
  return cmocka_run_group_tests_name ("stats-charged", tests, NULL, NULL);
}
