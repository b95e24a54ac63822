/* test-page-events.c - the trace's page traffic other than its slab pages
 * goes through the model's page allocator (--page-events, default replay;
 * sim/run/page-events.h).
 *
 *  - A slab page (mm_page_alloc whose block the next allocation on that CPU
 *    lands in) is not replayed, nor is its free; the model takes its own.
 *  - Other pages are allocated and freed in the model on their CPU: its
 *    page allocator counts them, its pcp lists hold them; --page-events
 *    ignore leaves them out; both kinds are counted either way.
 *  - mm_page_free then mm_page_free_batched of one page is one free; a free
 *    of a page the trace never allocated is counted, not replayed; the
 *    kernel's mm_page_pcpu_drain is counted, not replayed.
 *  - On the shared traces the slab pages are exactly the new slabs
 *    validate's recorded side finds, and slab + other = every mm_page_alloc. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <string.h>

#define L(cpu, ts, body) "           task-1     [00" #cpu "] .....   100." ts ": " body "\n"

static const char trace_text[] =
  "# tracer: nop\n"
  /* the recording kernel's slab page, then the first object in it */
  L (0, "000001", "mm_page_alloc: page=ffffea0004000000 pfn=0x100000 order=0 migratetype=0 "
                  "gfp_flags=GFP_KERNEL|__GFP_COMP")
  L (0, "000002", "kmem_cache_alloc: call_site=foo_new+0x1/0x2 ptr=ffff888100000000 name=foo "
                  "bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false")
  /* three anonymous pages on CPU 0, two on CPU 1, one order-2 block */
  L (0, "000003", "mm_page_alloc: page=ffffea0004000040 pfn=0x200001 order=0 migratetype=1 "
                  "gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP")
  L (0, "000004", "mm_page_alloc: page=ffffea0004000080 pfn=0x200002 order=0 migratetype=1 "
                  "gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP")
  L (0, "000005", "mm_page_alloc: page=ffffea00040000c0 pfn=0x200003 order=0 migratetype=1 "
                  "gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP")
  L (1, "000006", "mm_page_alloc: page=ffffea0004000100 pfn=0x200004 order=0 migratetype=0 "
                  "gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP")
  L (1, "000007", "mm_page_alloc: page=ffffea0004000200 pfn=0x200008 order=2 migratetype=0 "
                  "gfp_flags=GFP_KERNEL|__GFP_COMP")
  L (1, "000008", "mm_page_alloc: page=ffffea0004000140 pfn=0x200005 order=0 migratetype=1 "
                  "gfp_flags=GFP_HIGHUSER_MOVABLE")
  /* the slab's object freed, then the slab page */
  L (0, "000009", "kmem_cache_free: call_site=foo_del+0x1/0x2 ptr=ffff888100000000 name=foo")
  L (0, "000010", "mm_page_free: page=ffffea0004000000 pfn=0x100000 order=0")
  /* free_unref_folios: mm_page_free, then mm_page_free_batched, of each */
  L (0, "000011", "mm_page_free: page=ffffea0004000040 pfn=0x200001 order=0")
  L (0, "000012", "mm_page_free: page=ffffea0004000080 pfn=0x200002 order=0")
  L (0, "000013", "mm_page_free_batched: page=ffffea0004000040 pfn=0x200001 order=0")
  L (0, "000014", "mm_page_free_batched: page=ffffea0004000080 pfn=0x200002 order=0")
  L (1, "000015", "mm_page_free: page=ffffea0004000200 pfn=0x200008 order=2")
  /* a page from before the trace, and a drain the kernel made */
  L (1, "000016", "mm_page_free: page=ffffea0004100000 pfn=0x300000 order=0")
  L (1, "000017", "mm_page_pcpu_drain: page=ffffea0004100000 pfn=0x300000 order=0 "
                  "migratetype=1");

static char *
run_json (const char *path, const char *mode, const char *emit)
{
  char *out = NULL;
  g_autofree char *err = NULL;
  const char *args[] = { "run", "--check", "--format", "json", "-m", "recording-vm",
                         "--page-events", mode, path, emit ? "--emit-trace" : NULL, emit, NULL };
  int rc = tu_run (&out, &err, args);
  if (rc != 0)
    {
      print_error ("run: exit %d: %s\n", rc, err);
      fail ();
    }
  return out;
}

static void
test_small_trace (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".trace", trace_text, -1);
  g_autofree char *emit = g_strconcat (path, ".emit", NULL);
  g_autofree char *rep = run_json (path, "replay", emit);
  g_autofree char *ign = run_json (path, "ignore", NULL);
  const char *pe = "\"page_events\": {";
  for (int i = 0; i < 2; i++)
    {
      const char *js = i == 0 ? rep : ign;
      /* Both kinds counted, whatever the mode. */
      assert_int_equal (tu_json_uint (js, pe, "slab_page_allocs"), 1);
      assert_int_equal (tu_json_uint (js, pe, "slab_page_frees"), 1);
      assert_int_equal (tu_json_uint (js, pe, "other_page_allocs"), 6);
      assert_int_equal (tu_json_uint (js, pe, "other_page_frees"), 3);
      assert_int_equal (tu_json_uint (js, pe, "frees_repeated"), 2);
      assert_int_equal (tu_json_uint (js, pe, "frees_unknown"), 1);
      assert_int_equal (tu_json_uint (js, pe, "pcp_drain_events"), 1);
    }
  tu_assert_contains (rep, "\"mode\": \"replay\"");
  tu_assert_contains (ign, "\"mode\": \"ignore\"");
  assert_int_equal (tu_json_uint (rep, pe, "allocs_replayed"), 6);
  assert_int_equal (tu_json_uint (rep, pe, "frees_replayed"), 3);
  assert_true (tu_json_uint (rep, pe, "cycles") > 0);
  assert_int_equal (tu_json_uint (ign, pe, "allocs_replayed"), 0);
  assert_int_equal (tu_json_uint (ign, pe, "frees_replayed"), 0);
  assert_int_equal (tu_json_uint (ign, pe, "cycles"), 0);
  /* The model's page allocator saw the six other allocations and three
   * frees on top of its own slab page. */
  const char *pa = "\"page_allocator\": {";
  guint64 a_rep = tu_json_uint (rep, pa, "alloc"), a_ign = tu_json_uint (ign, pa, "alloc");
  guint64 f_rep = tu_json_uint (rep, pa, "free"), f_ign = tu_json_uint (ign, pa, "free");
  assert_int_equal (a_rep, a_ign + 6);
  assert_int_equal (f_rep, f_ign + 3);
  /* __GFP_ZERO pages are zeroed by the model: 3 of them (a page each). */
  assert_int_equal (tu_json_uint (rep, pa, "pages_zeroed"),
                    tu_json_uint (ign, pa, "pages_zeroed") + 3);
  /* The emitted trace holds the model's page traffic, the replayed pages
   * included (2 + 6 allocations; the slab's free and 3 others), and reads
   * back with the same classification. */
  g_autofree char *etext = NULL;
  assert_true (g_file_get_contents (emit, &etext, NULL, NULL));
  guint n_alloc = 0, n_free = 0;
  for (const char *p = etext; (p = strstr (p, "mm_page_alloc:")); p++)
    n_alloc++;
  for (const char *p = etext; (p = strstr (p, "mm_page_free:")); p++)
    n_free++;
  assert_int_equal (n_alloc, a_rep);
  assert_int_equal (n_free, f_rep);
  g_autofree char *back = run_json (emit, "replay", NULL);
  assert_int_equal (tu_json_uint (back, pe, "other_page_allocs"), 6);
  assert_int_equal (tu_json_uint (back, pe, "slab_page_allocs"), a_ign);
  g_unlink (emit);
  g_unlink (path);

  /* A bad mode is a usage error. */
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "--page-events", "all",
                                                           "x.trace", NULL }), 2);
  tu_assert_contains (err, "--page-events takes replay or ignore, not \"all\"");
}

/* The shared traces: slab pages = the recorded side's new slabs; slab +
 * other = every mm_page_alloc of the trace (by grep, shared/traces). */
static void
test_shared_traces (void **state)
{
  (void) state;
  static const struct { const char *trace; guint64 page_allocs; } traces[] = {
    { "traces/samples/hackbench-T-g2-l50.trace.gz", 2517 },
    { "traces/samples/hackbench-T-g1-l50.perf-script.gz", 1375 },
    { "traces/samples/udp-4k.trace.gz", 112 },
  };
  for (guint t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *path = tu_source_path (traces[t].trace);
      g_autofree char *js = NULL;
      assert_int_equal (tu_run (&js, NULL, (const char *[]) { "validate", "--format", "json",
                                                              path, NULL }), 0);
      const char *pe = "\"page_events\": {";
      guint64 slab = tu_json_uint (js, pe, "slab_page_allocs");
      guint64 other = tu_json_uint (js, pe, "other_page_allocs");
      assert_int_equal (slab + other, traces[t].page_allocs);
      assert_int_equal (tu_json_uint (js, pe, "allocs_replayed"), other);
      /* Sum of the recorded new slabs over the caches. */
      guint64 sum = 0;
      for (const char *p = js; (p = strstr (p, "\"recorded\": {")); p++)
        sum += tu_json_uint (p, NULL, "new_slabs");
      assert_int_equal (slab, sum);
      assert_true (other > 0);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_small_trace),
    cmocka_unit_test (test_shared_traces),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
