/* test-kmem-stat.c - "trace info --caller / --alloc / --page" as perf kmem
 * stat prints them: directed numbers on a small trace (hits, bytes,
 * ping-pong, frag, sort keys, -l), goldens on a real one
 * (tests/golden/views/kmem-*.txt; scripts/regen-goldens), usage errors. */
#include "tests/testutil.h"

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

static void
test_golden (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  static const struct { const char *golden; const char *args[6]; } cases[] = {
    { "kmem-caller.txt", { "--caller", "-l", "20", NULL } },
    { "kmem-alloc.txt", { "--alloc", "-s", "hit,bytes", "-l", "10", NULL } },
    { "kmem-page.txt", { "--page", "--caller", NULL } },
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
  g_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL;
  assert_int_equal (tu_run (NULL, &e1, (const char *[]) { "trace", "info", "--caller", "-s", "size",
                                                          trace, NULL }), 2);
  tu_assert_contains (e1, "unknown sort key \"size\"");
  tu_assert_contains (e1, "pingpong");
  assert_int_equal (tu_run (NULL, &e2, (const char *[]) { "trace", "info", "--caller", "-l", "0",
                                                          trace, NULL }), 2);
  tu_assert_contains (e2, "-l");
  assert_int_equal (tu_run (NULL, &e3, (const char *[]) { "trace", "info", "--caller", "--format",
                                                          "json", trace, NULL }), 2);
  tu_assert_contains (e3, "text tables");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_directed),
    cmocka_unit_test (test_golden),
    cmocka_unit_test (test_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
