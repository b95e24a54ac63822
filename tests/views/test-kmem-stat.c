/* test-kmem-stat.c - "trace info --caller / --alloc / --page" as perf kmem
 * stat prints them: directed numbers on a small trace (hits, bytes,
 * ping-pong, frag, sort keys, -l), the same numbers as JSON, goldens
 * on a real one in text and JSON (tests/golden/views/kmem-*.{txt,json};
 * scripts/regen-goldens), usage errors. */
#include "tests/testutil.h"
#include "sim/report/json-parse.h"

#include <glib/gstdio.h>
#include <string.h>

/* Two kmallocs from one site on CPU 0, one freed on CPU 1 (a ping-pong),
 * one kmem_cache_alloc elsewhere; a page allocation and its free. */
static const char small[] =
  "# tracer: nop\n"
  "  t-1 [000] ..... 1.000001: kmalloc: call_site=foo+0x10/0x80 ptr=ffff888100001000 bytes_req=10 bytes_alloc=16 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
  "  t-1 [000] ..... 1.000002: kmalloc: call_site=foo+0x10/0x80 ptr=ffff888100001010 bytes_req=10 bytes_alloc=16 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
  "  t-1 [001] ..... 1.000003: kfree: call_site=bar+0x5/0x20 ptr=ffff888100001000\n"
  "  t-1 [000] ..... 1.000004: kfree: call_site=bar+0x5/0x20 ptr=ffff888100001010\n"
  "  t-1 [000] ..... 1.000005: kmem_cache_alloc: call_site=baz+0x1/0x9 ptr=ffff888100002000 name=filp bytes_req=192 bytes_alloc=192 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
  "  t-1 [000] ..... 1.000006: mm_page_alloc: page=ffffea0004414b40 pfn=0x11052d order=1 migratetype=0 gfp_flags=GFP_KERNEL\n"
  "  t-1 [000] ..... 1.000007: mm_page_free: page=ffffea0004414b40 pfn=0x11052d order=1\n";

static void
test_directed (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".trace", small, -1);
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "trace", "info", "--caller", path, NULL });
  if (rc)
    print_error ("%s\n", err);
  assert_int_equal (rc, 0);
  tu_assert_contains (out, " Callsite                           | Total_alloc/Per | Total_req/Per   "
                           "| Hit      | Ping-pong | Frag\n");
  /* foo: 32 bytes in 2 hits, 20 requested, 1 ping-pong, 37.5% frag. */
  tu_assert_contains (out, " foo+10                             |        32/16    |        20/10    "
                           "|        2 |         1 | 37.500%\n");
  tu_assert_contains (out, " baz+1                              |       192/192   |       192/192   "
                           "|        1 |         0 |  0.000%\n");
  /* Default sort frag first: foo before baz. */
  assert_true (strstr (out, " foo+10") < strstr (out, " baz+1"));
  tu_assert_contains (out, "Total bytes requested: 212\n");
  tu_assert_contains (out, "Total bytes allocated: 224\n");
  tu_assert_contains (out, "Total bytes freed:     32\n");
  tu_assert_contains (out, "Cross CPU allocations: 1/3\n");
  g_clear_pointer (&out, g_free);
  /* -s bytes puts baz first; -l 1 keeps one row and says so. */
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "trace", "info", "--caller", "-s", "bytes",
                                                           "-l", "1", path, NULL }), 0);
  tu_assert_contains (out, " baz+1 ");
  assert_null (strstr (out, " foo+10 "));
  tu_assert_contains (out, " ...                                | ...");
  g_clear_pointer (&out, g_free);
  /* --alloc: per pointer, the freed-elsewhere one has the ping-pong. */
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "trace", "info", "--alloc", "-s", "ptr",
                                                           path, NULL }), 0);
  tu_assert_contains (out, " Alloc Ptr                          |");
  tu_assert_contains (out, " 0xffff888100001000                 |        16/16    |        10/10    "
                           "|        1 |         1 | 37.500%\n");
  g_clear_pointer (&out, g_free);
  /* --page: an order-1 unmovable allocation, freed. */
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "trace", "info", "--page", "--alloc", path,
                                                           NULL }), 0);
  tu_assert_contains (out, "SUMMARY (page allocator)");
  tu_assert_contains (out, "Total allocation requests     :                1   [                8 KB ]\n");
  tu_assert_contains (out, "Total alloc+freed requests    :                1\n");
  tu_assert_contains (out, "    1             1             .");
  tu_assert_contains (out, "UNMOVABL");
  tu_assert_contains (out, " 1115437 ");
  g_unlink (path);
}

/* --format json: the rows and summaries the text prints, by name. */
static void
test_directed_json (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".trace", small, -1);
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "trace", "info", "--caller", "--alloc", "-s",
                                                  "bytes", "-l", "1", "--format", "json", path, NULL });
  if (rc)
    print_error ("%s\n", err);
  assert_int_equal (rc, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (SimJsonValue) v = sim_json_parse (out, -1, "out", 1, &error);
  assert_non_null (v);
  assert_string_equal (sim_json_str (sim_json_get (v, "view"), ""), "perf-kmem");
  assert_int_equal (sim_json_len (sim_json_get (v, "sort")), 1);
  assert_int_equal ((int) sim_json_number (sim_json_get (v, "lines"), -1), 1);
  /* -l 1 keeps one row of three, and says how many there were. */
  assert_int_equal ((int) sim_json_number (sim_json_get (v, "caller_rows"), -1), 2);
  SimJsonValue *callers = sim_json_get (v, "caller");
  assert_int_equal (sim_json_len (callers), 1);
  SimJsonValue *baz = sim_json_item (callers, 0);
  assert_string_equal (sim_json_str (sim_json_get (baz, "callsite"), ""), "baz+1");
  assert_int_equal ((int) sim_json_number (sim_json_get (baz, "bytes_alloc"), -1), 192);
  assert_int_equal ((int) sim_json_number (sim_json_get (baz, "hit"), -1), 1);
  assert_int_equal ((int) sim_json_number (sim_json_get (v, "alloc_rows"), -1), 3);
  SimJsonValue *p = sim_json_item (sim_json_get (v, "alloc"), 0);
  assert_string_equal (sim_json_str (sim_json_get (p, "ptr"), ""), "0xffff888100002000");
  assert_string_equal (sim_json_str (sim_json_get (p, "callsite"), ""), "baz+1");
  SimJsonValue *sum = sim_json_get (v, "summary");
  assert_int_equal ((int) sim_json_number (sim_json_get (sum, "bytes_req"), -1), 212);
  assert_int_equal ((int) sim_json_number (sim_json_get (sum, "bytes_alloc"), -1), 224);
  assert_int_equal ((int) sim_json_number (sim_json_get (sum, "bytes_freed"), -1), 32);
  assert_int_equal ((int) sim_json_number (sim_json_get (sum, "cross_cpu_allocs"), -1), 1);
  assert_int_equal ((int) sim_json_number (sim_json_get (sum, "allocs"), -1), 3);
  g_clear_pointer (&out, g_free);
  /* Default sort: foo (37.5% frag, one ping-pong) first. */
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "trace", "info", "--caller", "--format",
                                                           "json", path, NULL }), 0);
  g_autoptr (SimJsonValue) v2 = sim_json_parse (out, -1, "out", 1, &error);
  assert_non_null (v2);
  assert_null (sim_json_get (v2, "alloc"));
  SimJsonValue *foo = sim_json_item (sim_json_get (v2, "caller"), 0);
  assert_string_equal (sim_json_str (sim_json_get (foo, "callsite"), ""), "foo+10");
  assert_int_equal ((int) sim_json_number (sim_json_get (foo, "bytes_alloc_per_hit"), -1), 16);
  assert_int_equal ((int) sim_json_number (sim_json_get (foo, "bytes_req_per_hit"), -1), 10);
  assert_int_equal ((int) sim_json_number (sim_json_get (foo, "pingpong"), -1), 1);
  assert_true (sim_json_number (sim_json_get (foo, "frag_pct"), -1) == 37.5);
  g_clear_pointer (&out, g_free);
  /* --page: the order-1 unmovable allocation, freed, by PFN. */
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "trace", "info", "--page", "--alloc",
                                                           "--format", "json", path, NULL }), 0);
  g_autoptr (SimJsonValue) v3 = sim_json_parse (out, -1, "out", 1, &error);
  assert_non_null (v3);
  assert_string_equal (sim_json_str (sim_json_get (v3, "view"), ""), "perf-kmem-page");
  SimJsonValue *pg = sim_json_item (sim_json_get (v3, "alloc"), 0);
  assert_int_equal ((int) sim_json_number (sim_json_get (pg, "pfn"), -1), 1115437);
  assert_int_equal ((int) sim_json_number (sim_json_get (pg, "order"), -1), 1);
  assert_string_equal (sim_json_str (sim_json_get (pg, "migratetype"), ""), "unmovable");
  assert_string_equal (sim_json_str (sim_json_get (pg, "gfp_flags"), ""), "GFP_KERNEL");
  SimJsonValue *ps = sim_json_get (v3, "summary");
  assert_int_equal ((int) sim_json_number (sim_json_get (ps, "alloc_requests"), -1), 1);
  assert_int_equal ((int) sim_json_number (sim_json_get (ps, "alloc_kb"), -1), 8);
  assert_int_equal ((int) sim_json_number (sim_json_get (ps, "alloc_freed_requests"), -1), 1);
  SimJsonValue *o1 = sim_json_item (sim_json_get (v3, "orders"), 1);
  assert_int_equal ((int) sim_json_number (sim_json_get (o1, "order"), -1), 1);
  assert_int_equal ((int) sim_json_number (sim_json_get (o1, "unmovable"), -1), 1);
  assert_int_equal ((int) sim_json_number (sim_json_get (o1, "movable"), -1), 0);
  g_unlink (path);
}

static void
test_golden (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  static const struct { const char *golden; const char *args[8]; } cases[] = {
    { "kmem-caller.txt", { "--caller", "-l", "20", NULL } },
    { "kmem-alloc.txt", { "--alloc", "-s", "hit,bytes", "-l", "10", NULL } },
    { "kmem-page.txt", { "--page", "--caller", NULL } },
    { "kmem-caller.json", { "--caller", "-l", "20", "--format", "json", NULL } },
    { "kmem-alloc.json", { "--alloc", "-s", "hit,bytes", "-l", "10", "--format", "json", NULL } },
    { "kmem-page.json", { "--page", "--caller", "--format", "json", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GPtrArray *a = g_ptr_array_new ();
      g_ptr_array_add (a, (gpointer) "trace");
      g_ptr_array_add (a, (gpointer) "info");
      for (guint k = 0; cases[i].args[k]; k++)
        g_ptr_array_add (a, (gpointer) cases[i].args[k]);
      g_ptr_array_add (a, trace);
      g_ptr_array_add (a, NULL);
      g_autofree char *out = NULL;
      assert_int_equal (tu_run (&out, NULL, (const char *const *) a->pdata), 0);
      g_ptr_array_free (a, TRUE);
      g_autofree char *rel = g_strdup_printf ("tests/golden/views/%s", cases[i].golden);
      assert_true (tu_golden_matches (rel, out));
    }
}

static void
test_errors (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL;
  assert_int_equal (tu_run (NULL, &e1, (const char *[]) { "trace", "info", "--caller", "-s", "size",
                                                          trace, NULL }), 2);
  tu_assert_contains (e1, "unknown sort key \"size\"");
  tu_assert_contains (e1, "pingpong");
  assert_int_equal (tu_run (NULL, &e2, (const char *[]) { "trace", "info", "--caller", "-l", "0",
                                                          trace, NULL }), 2);
  tu_assert_contains (e2, "-l");
  assert_int_equal (tu_run (NULL, &e3, (const char *[]) { "trace", "info", "--caller", "--format",
                                                          "html", trace, NULL }), 2);
  tu_assert_contains (e3, "html");
  /* The JSON takes the same sort keys, and refuses the same way. */
  assert_int_equal (tu_run (NULL, &e4, (const char *[]) { "trace", "info", "--page", "--format", "json",
                                                          "-s", "frag", trace, NULL }), 2);
  tu_assert_contains (e4, "unknown sort key \"frag\"");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_directed),
    cmocka_unit_test (test_directed_json),
    cmocka_unit_test (test_golden),
    cmocka_unit_test (test_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
