/* test-untraced-bound.c - the untraced-free inference keeps what is live,
 * not what the trace has seen (sim/run/untraced.c, issue 12), and gives
 * exactly the answers it gave when it kept everything (the old pass,
 * tests/run/untraced-ref.c):
 *   - every SimUntracedFree and counter equal the old pass's on every
 *     bundled sample, the shared traces and a generated hackbench trace,
 *     at three grace periods, and on traces whose timestamps run
 *     backwards (by more than the window: only where a kfree_rcu goes
 *     may differ, and the collector says so);
 *   - on a generated trace whose live set is constant, the collector's
 *     high-water marks (lifetime records, pages, timestamps kept) are the
 *     same when the trace is 10x longer;
 *   - a kfree_rcu placed at the window's edge: evidence exactly one grace
 *     period after events with equal timestamps, and clipped to its
 *     allocation; the final watermark (sim_untraced_collector_final_before)
 *     never passes a free collected later. */
#include "tests/testutil.h"
#include "tests/run/untraced-ref.h"

#include <string.h>
#include <glib/gstdio.h>

static SimTraceStream *
open_ok (const char *path)
{
  GError *error = NULL;
  SimTraceStreamOptions so = { 0 };
  SimTraceStream *st = sim_trace_stream_open (path, &so, &error);
  if (st == NULL)
    {
      print_error ("%s: %s\n", path, error->message);
      fail ();
    }
  return st;
}

/* Both passes over @path; the new one's stats into @stats (may be NULL);
 * asserts the answers are equal, and that each free the new one collects
 * is placed at or after the watermark (final_before) it published before
 * the chunk that found it.  Returns the number of frees. */
static int
by_line (gconstpointer a, gconstpointer b)
{
  const SimUntracedFree *x = a, *y = b;
  if (x->alloc_line != y->alloc_line)
    return x->alloc_line < y->alloc_line ? -1 : 1;
  return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

/* @exact FALSE: timestamps run backwards further than the window has
 * seen, and the old pass's binary search over unordered timestamps may
 * place a free elsewhere inside its lifetime: then the frees are the same
 * but for before_index, and every such difference was counted unsure. */
static guint
compare_mode (const char *path, guint64 gp, SimUntracedStats *stats, gboolean exact)
{
  g_autoptr (SimTraceStream) st = open_ok (path);
  SimUntracedCollector *u = sim_untraced_collector_new (gp);
  RefUntracedCollector *r = ref_untraced_collector_new (gp);
  const SimTraceEvent *ev;
  guint n;
  GError *error = NULL;
  guint64 watermark = 0;
  guint done = 0;
  while (sim_trace_stream_next (st, &ev, &n, &error))
    {
      sim_untraced_collector_feed (u, sim_trace_stream_strings (st), ev, n);
      ref_untraced_collector_feed (r, sim_trace_stream_strings (st), ev, n);
      const GArray *fr = sim_untraced_collector_frees (u);
      for (; done < fr->len; done++)
        assert_true (g_array_index (fr, SimUntracedFree, done).before_index >= watermark);
      guint64 w = sim_untraced_collector_final_before (u);
      assert_true (w >= watermark);
      watermark = w;
    }
  if (error)
    {
      print_error ("%s: %s\n", path, error->message);
      fail ();
    }
  SimUntracedStats s;
  sim_untraced_collector_stats (u, &s);
  if (stats)
    *stats = s;
  if (exact)
    assert_int_equal (s.unsure, 0);
  SimUntracedSet a, b;
  sim_untraced_collector_finish (u, &a);
  ref_untraced_collector_finish (r, &b);
  guint moved = 0;
  if (!exact)
    {
      g_array_sort (a.frees, by_line);
      g_array_sort (b.frees, by_line);
      for (guint i = 0; i < a.frees->len && i < b.frees->len; i++)
        {
          SimUntracedFree *x = &g_array_index (a.frees, SimUntracedFree, i);
          const SimUntracedFree *y = &g_array_index (b.frees, SimUntracedFree, i);
          moved += x->before_index != y->before_index;
          x->before_index = y->before_index;
        }
      if (moved)
        assert_true (s.unsure > 0);
    }
  assert_int_equal (a.by_reuse, b.by_reuse);
  assert_int_equal (a.by_page_free, b.by_page_free);
  assert_int_equal (a.by_mm_destroy, b.by_mm_destroy);
  assert_int_equal (a.reused_after, b.reused_after);
  assert_int_equal (a.contradicted, b.contradicted);
  assert_int_equal (a.frees->len, b.frees->len);
  for (guint i = 0; i < a.frees->len; i++)
    {
      const SimUntracedFree *x = &g_array_index (a.frees, SimUntracedFree, i);
      const SimUntracedFree *y = &g_array_index (b.frees, SimUntracedFree, i);
      if (memcmp (x, y, sizeof *x) != 0)
        {
          print_error ("%s (gp %" G_GUINT64_FORMAT "): free %u differs: ptr %" G_GINT64_MODIFIER
                       "x/%" G_GINT64_MODIFIER "x before %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                       "\n", path, gp, i, x->ptr, y->ptr, x->before_index, y->before_index);
          fail ();
        }
    }
  guint len = exact ? a.frees->len : moved;
  sim_untraced_set_clear (&a);
  sim_untraced_set_clear (&b);
  return len;
}

static guint
compare (const char *path, guint64 gp, SimUntracedStats *stats)
{
  return compare_mode (path, gp, stats, TRUE);
}

/* The watermark between any two events: fed one event at a time, every
 * free found is placed at or after the watermark published before it. */
static void
check_watermark (const char *path, guint64 gp)
{
  g_autoptr (SimTraceStream) st = open_ok (path);
  SimUntracedCollector *u = sim_untraced_collector_new (gp);
  const SimTraceEvent *ev;
  guint n;
  GError *error = NULL;
  guint64 w = 0;
  guint done = 0;
  while (sim_trace_stream_next (st, &ev, &n, &error))
    for (guint i = 0; i < n; i++)
      {
        sim_untraced_collector_feed (u, sim_trace_stream_strings (st), &ev[i], 1);
        const GArray *fr = sim_untraced_collector_frees (u);
        for (; done < fr->len; done++)
          assert_true (g_array_index (fr, SimUntracedFree, done).before_index >= w);
        w = sim_untraced_collector_final_before (u);
      }
  assert_null (error);
  assert_true (done > 0);
  sim_untraced_collector_free (u);
}

static const char *samples[] = {
  "traces/samples/hackbench-T-g2-l50.trace.gz",
  "traces/samples/hackbench-T-g1-l50.perf-script.gz",
  "traces/samples/vma-churn-8x2000.trace.gz",
  "traces/samples/udp-4k.trace.gz",
  "traces/samples/udp-4k-1cpu.trace.gz",
};

/* trace-cmd's .dat needs libtracecmd in the build, perf.data perf(1) */
static const char *optional[] = {
  "traces/samples/hackbench-T-g1-l2.report.gz",
  "traces/samples/hackbench-T-g1-l2.dat",
  "traces/samples/hackbench-T-g1-l2.v6.dat.gz",
  "traces/samples/true-a.perf.data",
  "traces/samples/true-pipe.perf.data",
};

static const guint64 gps[] = { 1000, 16000000, 1000000000 };

static void
test_samples_equal_reference (void **state)
{
  (void) state;
  guint frees = 0;
  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    for (guint g = 0; g < G_N_ELEMENTS (gps); g++)
      {
        g_autofree char *path = tu_source_path (samples[s]);
        frees += compare (path, gps[g], NULL);
      }
  assert_true (frees > 0);
  for (guint s = 0; s < G_N_ELEMENTS (optional); s++)
    {
      g_autofree char *path = tu_source_path (optional[s]);
      SimTraceStreamOptions so = { 0 };
      GError *error = NULL;
      SimTraceStream *st = sim_trace_stream_open (path, &so, &error);
      if (st == NULL)
        {
          print_message ("# skipped %s: %s\n", optional[s], error->message);
          g_clear_error (&error);
          continue;
        }
      sim_trace_stream_free (st);
      compare (path, 16000000, NULL);
    }
  /* the shared traces, where present */
  const char *shared[] = { "hackbench-T-g1-l50.perf-script.gz", "hackbench-T-g2-l50.trace.gz",
                           "udp-4k.trace.gz" };
  const char *dir = tu_shared_dir ();
  for (guint s = 0; dir && s < G_N_ELEMENTS (shared); s++)
    {
      g_autofree char *path = g_build_filename (dir, "traces", shared[s], NULL);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        compare (path, 16000000, NULL);
    }
}

/* A generated 16-CPU hackbench trace in native format (the bench's kind). */
static void
test_generated_equal_reference (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".slabsim", "", 0);
  g_autofree char *err = NULL;
  int rc = tu_run (NULL, &err, (const char *[]) { "trace", "gen", "hackbench", "--groups", "4",
                                                  "--loops", "20", "--cpus", "16", "--seed", "1",
                                                  "--format", "native", "-o", path, NULL });
  if (rc != 0)
    print_error ("%s\n", err);
  assert_int_equal (rc, 0);
  for (guint g = 0; g < G_N_ELEMENTS (gps); g++)
    compare (path, gps[g], NULL);
  g_unlink (path);
}

/* One ftrace line on @cpu at @ns past 1 s (nanosecond timestamps). */
static void
line (GString *t, int pid, int cpu, guint64 ns, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static void
line (GString *t, int pid, int cpu, guint64 ns, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_string_append_printf (t, "  w-%d [%03d] ..... %" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT ": ",
                          pid, cpu, 1 + ns / 1000000000, ns % 1000000000);
  g_string_append_vprintf (t, fmt, ap);
  g_string_append_c (t, '\n');
  va_end (ap);
}

static void
kmalloc (GString *t, int cpu, guint64 ns, guint64 ptr)
{
  line (t, 7, cpu, ns, "kmalloc: call_site=f+0x1/0x2 ptr=%016" G_GINT64_MODIFIER "x bytes_req=64 "
        "bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false", ptr);
}

static void
kfree (GString *t, int cpu, guint64 ns, guint64 ptr)
{
  line (t, 7, cpu, ns, "kfree: call_site=g+0x1/0x2 ptr=%016" G_GINT64_MODIFIER "x", ptr);
}

static void
maple (GString *t, int pid, int cpu, guint64 ns, const char *site, guint64 ptr)
{
  line (t, pid, cpu, ns, "kmem_cache_alloc: call_site=%s+0x1/0x2 ptr=%016" G_GINT64_MODIFIER
        "x name=maple_node bytes_req=256 bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1 "
        "accounted=false", site, ptr);
}

#define BASE G_GUINT64_CONSTANT (0xffff888100000000)

/* @iters steps of a workload whose live set is constant: 128 kmalloc
 * objects freed 128 steps after their allocation, 32 maple nodes whose
 * pointers come back every 32 steps (kfree_rcu by reuse), every 100 steps
 * 4 objects left in a page that is then freed (page-free evidence), a
 * fork/exit pair every 50 steps (a tree destroyed); @back_ns > 0 makes
 * every 10th step's timestamps run that far backwards.  1 us a step. */
static char *
steady_trace (guint iters, guint64 back_ns)
{
  GString *t = g_string_new ("# tracer: nop\n");
  for (guint i = 0; i < iters; i++)
    {
      guint64 ns = 1000 * (guint64) i;
      if (back_ns && i % 10 == 9 && ns >= back_ns)
        ns -= back_ns;
      int cpu = (int) (i % 4);
      kmalloc (t, cpu, ns, BASE + 64 * (guint64) (i % 256));
      if (i >= 128)
        kfree (t, cpu, ns + 100, BASE + 64 * (guint64) ((i - 128) % 256));
      maple (t, 7, cpu, ns + 200, "mas_preallocate", BASE + 0x10000 + 256 * (guint64) (i % 32));
      if (i % 100 == 99)
        {
          guint64 pfn = 0x100020 + (i / 100) % 8;
          guint64 page = BASE + ((pfn - 0x100000) << 12);
          line (t, 7, cpu, ns + 300, "mm_page_alloc: page=ffffea0004000000 pfn=0x%" G_GINT64_MODIFIER
                "x order=0 migratetype=0 gfp_flags=GFP_KERNEL", pfn);
          for (guint k = 0; k < 4; k++)
            kmalloc (t, cpu, ns + 400, page + 64 * k);
          line (t, 7, cpu, ns + 500, "mm_page_free: page=ffffea0004000000 pfn=0x%" G_GINT64_MODIFIER
                "x order=0", pfn);
        }
      if (i % 50 == 49)
        {
          /* pid 200+: fork a child whose tree is a dup'd root and a node,
           * the child adds one and exits */
          int child = 1000 + (int) (i / 50) % 16;
          guint64 mm = BASE + 0x40000 + 0x800 * (guint64) ((i / 50) % 16);
          guint64 node = BASE + 0x60000 + 0x400 * (guint64) ((i / 50) % 16);
          line (t, 300, cpu, ns + 600, "kmem_cache_alloc: call_site=copy_process+0x1/0x2 "
                "ptr=%016" G_GINT64_MODIFIER "x name=mm_struct bytes_req=1408 bytes_alloc=1408 "
                "gfp_flags=GFP_KERNEL node=-1 accounted=true", mm);
          maple (t, 300, cpu, ns + 610, "__mt_dup", node);
          maple (t, 300, cpu, ns + 620, "mas_dup_alloc.isra.0", node + 0x100);
          maple (t, child, cpu, ns + 630, "mas_preallocate", node + 0x200);
          line (t, child, cpu, ns + 640, "kfree: call_site=__mt_destroy+0x8e/0xa0 ptr=%016"
                G_GINT64_MODIFIER "x", node);
          line (t, child, cpu, ns + 650, "kmem_cache_free: call_site=__mmdrop+0x1/0x2 ptr=%016"
                G_GINT64_MODIFIER "x name=mm_struct", mm);
        }
    }
  char *path = tu_write_temp (".trace", t->str, (gssize) t->len);
  g_string_free (t, TRUE);
  return path;
}

static void
test_memory_flat (void **state)
{
  (void) state;
  const guint64 gp = 40000;      /* 40 steps */
  SimUntracedStats s1, s10;
  g_autofree char *p1 = steady_trace (2000, 0), *p10 = steady_trace (20000, 0);
  guint f1 = compare (p1, gp, &s1), f10 = compare (p10, gp, &s10);
  /* the output grows with the trace ... */
  assert_true (f1 > 0);
  assert_true (f10 >= 9 * f1);
  /* ... what the collector holds does not */
  assert_true (s1.records_peak >= 160);
  assert_int_equal (s10.records_peak, s1.records_peak);
  assert_int_equal (s10.records, s1.records);
  assert_int_equal (s10.pages, s1.pages);
  assert_int_equal (s10.tasks, s1.tasks);
  assert_int_equal (s10.mms, s1.mms);
  assert_int_equal (s10.window_peak, s1.window_peak);
  assert_true (s1.window_peak < 1000);
  g_unlink (p1);
  g_unlink (p10);
}

/* Timestamps that run backwards: by less than a grace period, the
 * answers stay the old pass's; by 300 grace periods, the window widens
 * to what it has seen, and the first such step may place a kfree_rcu
 * elsewhere in its lifetime than the old pass's search over unordered
 * timestamps did (counted unsure); everything else stays equal. */
static void
test_backwards (void **state)
{
  (void) state;
  g_autofree char *p1 = steady_trace (3000, 20000);
  compare (p1, 40000, NULL);
  check_watermark (p1, 40000);
  g_autofree char *p2 = steady_trace (3000, 300000);
  /* this trace does reach the case: some kfree_rcu is placed elsewhere */
  assert_true (compare_mode (p2, 1000, NULL, FALSE) > 0);
  compare (p2, 40000, NULL);
  check_watermark (p2, 1000);
  g_unlink (p1);
  g_unlink (p2);
}

#define GP_EDGE 1000ull

/* Evidence exactly one grace period after events with equal timestamps:
 * they are not later than the free's time, so it goes after them, at the
 * window's first ordinal; clipped to its allocation when that is later. */
static void
test_window_edge (void **state)
{
  (void) state;
  GString *t = g_string_new ("# tracer: nop\n");
  const guint64 P = BASE + 0x2000, Q = BASE + 0x2100;
  maple (t, 7, 1, 0, "mas_preallocate", P);          /* 0 */
  kmalloc (t, 0, 5000, BASE + 0x3000);               /* 1 */
  kmalloc (t, 0, 5000, BASE + 0x3040);               /* 2 */
  kmalloc (t, 0, 6000, BASE + 0x3080);               /* 3 */
  kmalloc (t, 0, 6000, BASE + 0x30c0);               /* 4 */
  maple (t, 7, 2, 6000, "mas_preallocate", P);       /* 5: P back at 5000 + gp */
  maple (t, 7, 1, 6000, "mas_preallocate", Q);       /* 6 */
  kmalloc (t, 0, 7000, BASE + 0x3100);               /* 7 */
  maple (t, 7, 2, 7000, "mas_preallocate", Q);       /* 8: Q back gp after its allocation */
  maple (t, 7, 2, 9000, "mas_preallocate", P);       /* 9: P back long after */
  g_autofree char *path = tu_write_temp (".trace", t->str, (gssize) t->len);
  g_string_free (t, TRUE);

  g_autoptr (SimTraceStream) st = open_ok (path);
  SimUntracedCollector *u = sim_untraced_collector_new (GP_EDGE);
  const SimTraceEvent *ev;
  guint n;
  GError *error = NULL;
  guint64 ord = 0;
  while (sim_trace_stream_next (st, &ev, &n, &error))
    for (guint i = 0; i < n; i++, ord++)
      {
        sim_untraced_collector_feed (u, sim_trace_stream_strings (st), &ev[i], 1);
        guint64 w = sim_untraced_collector_final_before (u);
        /* after event 5 (6000): what is at or before 5000 has left the
         * window; after 8 (7000) also 6000's; after 9 (9000) all but 9 */
        if (ord == 5)
          assert_int_equal (w, 3);
        if (ord == 8)
          assert_int_equal (w, 7);
        if (ord == 9)
          assert_int_equal (w, 9);
      }
  assert_null (error);
  SimUntracedStats s;
  sim_untraced_collector_stats (u, &s);
  assert_int_equal (s.unsure, 0);
  SimUntracedSet set;
  sim_untraced_collector_finish (u, &set);
  assert_int_equal (set.frees->len, 3);
  const SimUntracedFree *f = &g_array_index (set.frees, SimUntracedFree, 0);
  /* P at 5: time 6000 - gp = 5000; events 1 and 2 are at 5000, not later */
  assert_true (f->ptr == P);
  assert_int_equal (f->ts_ns, 1000005000ull);
  assert_int_equal (f->before_index, 3);
  assert_int_equal (f->kind, SIM_UNTRACED_KFREE_RCU);
  assert_int_equal (f->cpu, 1);
  /* Q at 8: 7000 - gp = its allocation's 6000: after 6, before 7 */
  f = &g_array_index (set.frees, SimUntracedFree, 1);
  assert_true (f->ptr == Q);
  assert_int_equal (f->ts_ns, 1000006000ull);
  assert_int_equal (f->before_index, 7);
  /* P again at 9: 8000, after every earlier event, before the evidence */
  f = &g_array_index (set.frees, SimUntracedFree, 2);
  assert_true (f->ptr == P);
  assert_int_equal (f->ts_ns, 1000008000ull);
  assert_int_equal (f->before_index, 9);
  sim_untraced_set_clear (&set);
  compare (path, GP_EDGE, NULL);
  check_watermark (path, GP_EDGE);
  g_unlink (path);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_samples_equal_reference),
    cmocka_unit_test (test_generated_equal_reference),
    cmocka_unit_test (test_memory_flat),
    cmocka_unit_test (test_backwards),
    cmocka_unit_test (test_window_edge),
  };
  return cmocka_run_group_tests_name ("untraced-bound", tests, NULL, NULL);
}
