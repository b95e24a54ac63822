/* test-run-report.c - "slabsim report" of a multi-allocator run (issue 13
 * item 1): one axis, the allocator, with unique labels in full; golden
 * text and Markdown of a fixed fixture (tests/golden/report/run-fixture.json,
 * slab, slub@2.6.34, slqb, slub@6.18 twice with different parameters);
 * a browser-free check of the HTML page; caches matched across eras. */
#include "tests/testutil.h"
#include "sim/report/report-data.h"
#include "sim/report/json-parse.h"

#include <string.h>

static char *
fixture (void)
{
  return tu_source_path ("tests/golden/report/run-fixture.json");
}

static void
test_golden_text_md (void **state)
{
  (void) state;
  g_autofree char *fx = fixture ();
  g_autofree char *txt = NULL, *md = NULL;
  assert_int_equal (tu_run (&txt, NULL, (const char *[]) { "report", fx, "--format", "text", NULL }), 0);
  assert_true (tu_golden_matches ("tests/golden/report/run-report.txt", txt));
  assert_int_equal (tu_run (&md, NULL, (const char *[]) { "report", fx, "--format", "md", NULL }), 0);
  assert_true (tu_golden_matches ("tests/golden/report/run-report.md", md));
  /* The man page's promise: at most 100 columns. */
  g_auto (GStrv) lines = g_strsplit (txt, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (strlen (lines[i]) > 100)
      {
        print_error ("line %u has %zu columns: %s\n", i + 1, strlen (lines[i]), lines[i]);
        fail ();
      }
  /* One varying parameter, the allocator, and no stray parameter columns. */
  tu_assert_contains (txt, "varying:   allocator\n");
  assert_null (strstr (txt, "min_objects=-"));
  assert_null (strstr (txt, "(null)"));
  /* One allocator twice: told apart by the parameter that differs. */
  tu_assert_contains (txt, "slub@6.18:slub_max_order=1");
  tu_assert_contains (txt, "slub@6.18:slub_max_order=3");
}

/* The HTML page, checked without a browser. */
static void
test_html (void **state)
{
  (void) state;
  g_autofree char *fx = fixture ();
  g_autofree char *html = NULL;
  assert_int_equal (tu_run (&html, NULL, (const char *[]) { "report", fx, "--format", "html", NULL }), 0);
  assert_null (strstr (html, "(null)"));
  assert_null (strstr (html, ">n/a<"));
  assert_null (strstr (html, "n/a"));
  /* Labels in full, as whole text elements. */
  const char *labels[] = { "slab@2.6.34", "slub@2.6.34", "slqb@2.6.31-slqb",
                           "slub@6.18:slub_max_order=3", "slub@6.18:slub_max_order=1" };
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      g_autofree char *el = g_strdup_printf (">%s</text>", labels[i]);
      tu_assert_contains (html, el);
      g_autofree char *tip = g_strdup_printf ("<title>%s: ", labels[i]);
      tu_assert_contains (html, tip);
    }
  /* Busiest caches matched across eras: SLAB's size-8192 is SLUB's
   * kmalloc-8192; skbuff_head_cache is in 2.6.34's merged :t-0000256. */
  tu_assert_contains (html, "<title>slub@2.6.34: kmalloc-8192 alloc fastpath ");
  tu_assert_contains (html, "<title>slub@2.6.34: :t-0000256 alloc fastpath ");
  tu_assert_contains (html, "<title>slqb@2.6.31-slqb: kmalloc-8192 alloc fastpath ");
  /* A comparison draws bars, not one-row heat maps, and no grid. */
  tu_assert_contains (html, "<h2>Side by side</h2>");
  assert_null (strstr (html, "Over the sweep grid"));
  /* Unique column headers: the allocator column only once. */
  assert_int_equal (tu_count (html, "<th class=\"p\">allocator</th>"), 1);
  /* The memory hierarchy below L1, cost in ns, peak and end-of-run memory. */
  tu_assert_contains (html, "L2 misses per operation");
  tu_assert_contains (html, "L3 misses per operation");
  tu_assert_contains (html, "remote DRAM accesses per 1000 ops");
  tu_assert_contains (html, "HITM transfers per 1000 ops");
  tu_assert_contains (html, "slab memory KiB, peak");
  tu_assert_contains (html, "slab memory KiB, end of run");
  tu_assert_contains (html, "<h2>Memory against cycles</h2>");
  /* Winner cards state their threshold; print CSS keeps every column. */
  tu_assert_contains (html, "differs from the baseline by at least 1.0%");
  tu_assert_contains (html, "@media print{");
  tu_assert_contains (html, "overflow:visible");
  /* Self-contained. */
  assert_null (strstr (html, "<script"));
  assert_null (strstr (html, "http://www.w3.org/1999/xlink"));

  /* A threshold above every difference: no winner named. */
  g_autofree char *h2 = NULL;
  assert_int_equal (tu_run (&h2, NULL, (const char *[]) { "report", fx, "--format", "html",
                                                          "--threshold", "999", NULL }), 0);
  assert_int_equal (tu_count (h2, "no result beats the baseline by 999.0% or more"), 4);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "report", fx, "--threshold", "-1", NULL }), 2);
  tu_assert_contains (err, "--threshold");
}

/* Nanoseconds beside cycles, at the machine's frequency. */
static void
test_ns_metric (void **state)
{
  (void) state;
  g_autofree char *fx = fixture ();
  g_autofree char *txt = NULL;
  assert_int_equal (tu_run (&txt, NULL, (const char *[]) { "report", fx, "-m",
                                                           "alloc_cycles,alloc_ns", NULL }), 0);
  tu_assert_contains (txt, "alloc ns");
  g_autofree char *js = NULL;
  gsize len;
  assert_true (g_file_get_contents (fx, &js, &len, NULL));
  tu_assert_contains (js, "\"frequency_ghz\": ");
  tu_assert_contains (js, "\"alloc_ns_mean\": ");
  tu_assert_contains (js, "\"footprint_peak_bytes\": ");
}

/* SLAB's size-512 is SLUB's kmalloc-512 and 6.18's kmalloc-1k is
 * kmalloc-1024; a merged cache is found by any name it serves. */
static void
test_cache_matching (void **state)
{
  (void) state;
  const char *json = "{\"caches\": ["
                     "{\"name\": \"kmalloc-512\", \"aliases\": []},"
                     "{\"name\": \"kmalloc-1k\", \"aliases\": []},"
                     "{\"name\": \":t-0000256\", \"aliases\": [\"kmalloc-256\", \"skbuff_head_cache\"]},"
                     "{\"name\": \"size-64(DMA)\", \"aliases\": []}]}";
  g_autoptr (GError) error = NULL;
  SimJsonValue *v = sim_json_parse (json, -1, "test", 1, &error);
  assert_non_null (v);
  const SimJsonValue *c = sim_report_find_cache (v, "size-512");
  assert_non_null (c);
  assert_string_equal (sim_json_str (sim_json_get (c, "name"), ""), "kmalloc-512");
  c = sim_report_find_cache (v, "size-1024");
  assert_non_null (c);
  assert_string_equal (sim_json_str (sim_json_get (c, "name"), ""), "kmalloc-1k");
  c = sim_report_find_cache (v, "skbuff_head_cache");
  assert_non_null (c);
  assert_string_equal (sim_json_str (sim_json_get (c, "name"), ""), ":t-0000256");
  c = sim_report_find_cache (v, "size-256");
  assert_non_null (c);
  assert_string_equal (sim_json_str (sim_json_get (c, "name"), ""), ":t-0000256");
  assert_null (sim_report_find_cache (v, "size-64"));
  g_autofree char *k = sim_report_cache_key ("kmalloc-8k");
  assert_string_equal (k, "kmalloc-8192");
  sim_json_value_free (v);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_golden_text_md),
    cmocka_unit_test (test_html),
    cmocka_unit_test (test_ns_metric),
    cmocka_unit_test (test_cache_matching),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
