/* test-prepass.c - one decode per run (sim/run/prepass.h, issue 12):
 *   - the pre-pass fed from one stream gives the answers of the three
 *     separate passes (page classes, untraced frees, warm set) on the
 *     bundled samples, whose page events, maple trees and unknown frees
 *     exercise all three;
 *   - a second reading of a kept stream (sim_trace_stream_again) hands
 *     out the events, string ids and strings of the first, for a text
 *     trace (through the spool) and a native one;
 *   - a run of four allocators (warm start and the trace summary too)
 *     decodes a text trace once, and a native trace is never spooled. */
#include "tests/testutil.h"
#include "sim/run/prepass.h"
#include "sim/run/replay.h"
#include "traces/native.h"

#include <string.h>
#include <glib/gstdio.h>

#define GP_NS 16000000ull        /* any grace period: both sides get the same */

static const char *samples[] = {
  "traces/samples/hackbench-T-g2-l50.trace.gz",
  "traces/samples/hackbench-T-g1-l50.perf-script.gz",
  "traces/samples/vma-churn-8x2000.trace.gz",
  "traces/samples/udp-4k.trace.gz",
};

static SimTraceStream *
open_ok (const char *path, gboolean keep)
{
  GError *error = NULL;
  SimTraceStreamOptions so = { .keep = keep };
  SimTraceStream *st = sim_trace_stream_open (path, &so, &error);
  if (st == NULL)
    {
      print_error ("%s: %s\n", path, error->message);
      fail ();
    }
  return st;
}

static void
assert_pages_equal (const SimPageClass *a, const SimPageClass *b)
{
  assert_int_equal (a->page_allocs, b->page_allocs);
  assert_int_equal (g_hash_table_size (a->slab_allocs), g_hash_table_size (b->slab_allocs));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, a->slab_allocs);
  while (g_hash_table_iter_next (&it, &k, NULL))
    assert_true (g_hash_table_contains (b->slab_allocs, k));
}

static void
assert_untraced_equal (const SimUntracedSet *a, const SimUntracedSet *b)
{
  assert_int_equal (a->by_reuse, b->by_reuse);
  assert_int_equal (a->by_page_free, b->by_page_free);
  assert_int_equal (a->by_mm_destroy, b->by_mm_destroy);
  assert_int_equal (a->reused_after, b->reused_after);
  assert_int_equal (a->contradicted, b->contradicted);
  assert_int_equal (a->frees->len, b->frees->len);
  for (guint i = 0; i < a->frees->len; i++)
    {
      const SimUntracedFree *x = &g_array_index (a->frees, SimUntracedFree, i);
      const SimUntracedFree *y = &g_array_index (b->frees, SimUntracedFree, i);
      assert_int_equal (x->ts_ns, y->ts_ns);
      assert_int_equal (x->ptr, y->ptr);
      assert_int_equal (x->alloc_line, y->alloc_line);
      assert_int_equal (x->before_index, y->before_index);
      assert_int_equal (x->cpu, y->cpu);
      assert_int_equal (x->kind, y->kind);
      assert_int_equal (x->evidence, y->evidence);
    }
}

static void
assert_warm_equal (const SimWarmSet *a, const SimWarmSet *b)
{
  assert_int_equal (a->unplaced, b->unplaced);
  assert_int_equal (a->objects->len, b->objects->len);
  for (guint i = 0; i < a->objects->len; i++)
    {
      const SimWarmObject *x = &g_array_index (a->objects, SimWarmObject, i);
      const SimWarmObject *y = &g_array_index (b->objects, SimWarmObject, i);
      assert_int_equal (x->ptr, y->ptr);
      assert_int_equal (x->cpu, y->cpu);
      assert_string_equal (x->cache ? x->cache : "(kmalloc)", y->cache ? y->cache : "(kmalloc)");
      assert_int_equal (x->bytes_req, y->bytes_req);
      assert_int_equal (x->bytes_alloc, y->bytes_alloc);
      assert_int_equal (x->gfp, y->gfp);
    }
}

static void
test_one_pass_equals_three (void **state)
{
  (void) state;
  guint64 frees = 0, warm = 0, slab_pages = 0;
  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    {
      g_autofree char *path = tu_source_path (samples[s]);
      GError *error = NULL;
      SimPageClass pages;
      SimUntracedSet untraced;
      SimWarmSet ws;
      tu_assert_ok (sim_page_class_collect (path, FALSE, &pages, &error), error);
      tu_assert_ok (sim_untraced_collect (path, FALSE, GP_NS, &untraced, &error), error);
      tu_assert_ok (sim_warm_collect (path, FALSE, &ws, &error), error);

      g_autoptr (SimTraceStream) st = open_ok (path, FALSE);
      SimPrepass pre;
      SimPrepassOptions po = { .warm = TRUE, .grace_period_ns = GP_NS };
      tu_assert_ok (sim_prepass_read (st, &po, &pre, &error), error);
      assert_true (pre.have_warm);
      assert_pages_equal (&pre.pages, &pages);
      assert_pages_equal (&pages, &pre.pages);
      assert_untraced_equal (&pre.untraced, &untraced);
      assert_warm_equal (&pre.warm, &ws);
      frees += untraced.frees->len;
      warm += ws.objects->len;
      slab_pages += g_hash_table_size (pages.slab_allocs);
      sim_prepass_clear (&pre);
      sim_page_class_clear (&pages);
      sim_untraced_set_clear (&untraced);
      sim_warm_set_clear (&ws);
    }
  /* The samples exercise every collector: the comparison was not of
   * empty sets. */
  assert_true (frees > 0);
  assert_true (warm > 0);
  assert_true (slab_pages > 0);
}

/* The events of @a and @b (and the strings they name) are the same. */
static void
assert_same_events (SimTraceStream *a, SimTraceStream *b)
{
  guint64 total = 0;
  for (;;)
    {
      const SimTraceEvent *ea, *eb;
      guint na, nb;
      GError *error = NULL;
      gboolean ma = sim_trace_stream_next (a, &ea, &na, &error);
      assert_null (error);
      gboolean mb = sim_trace_stream_next (b, &eb, &nb, &error);
      assert_null (error);
      assert_int_equal (ma, mb);
      if (!ma)
        break;
      assert_int_equal (na, nb);
      for (guint i = 0; i < na; i++)
        {
          assert_memory_equal (&ea[i], &eb[i], sizeof ea[i]);
          const SimTraceStrings *sa = sim_trace_stream_strings (a);
          const SimTraceStrings *sb = sim_trace_stream_strings (b);
          guint32 ids[] = { ea[i].cache_id, ea[i].call_site_id, ea[i].gfp_id, ea[i].comm_id };
          for (guint k = 0; k < G_N_ELEMENTS (ids); k++)
            assert_string_equal (sim_trace_strings_get (sa, ids[k]),
                                 sim_trace_strings_get (sb, ids[k]));
        }
      total += na;
    }
  assert_true (total > SIM_TRACE_CHUNK);      /* more than one chunk */
}

static void
check_again (const char *path, guint spools)
{
  guint text0, native0, text1, native1;
  sim_trace_stream_counts (&text0, &native0);
  g_autoptr (SimTraceStream) first = open_ok (path, TRUE);
  const SimTraceEvent *ev;
  guint n;
  GError *error = NULL;
  while (sim_trace_stream_next (first, &ev, &n, &error))
    ;
  assert_null (error);
  g_autoptr (SimTraceStream) again = sim_trace_stream_again (first, &error);
  tu_assert_ok (again != NULL, error);
  assert_string_equal (sim_trace_stream_name (again), sim_trace_stream_name (first));
  assert_int_equal (sim_trace_stream_format (again), sim_trace_stream_format (first));
  sim_trace_stream_counts (&text1, &native1);
  /* a text trace: decoded once, then its spool; a native one: read twice */
  assert_int_equal (text1 - text0, spools);
  assert_int_equal (native1 - native0, spools ? 1 : 2);
  g_autoptr (SimTraceStream) fresh = open_ok (path, FALSE);
  assert_same_events (again, fresh);
}

static void
test_again_text_and_native (void **state)
{
  (void) state;
  g_autofree char *text = tu_source_path (samples[0]);
  check_again (text, 1);
  g_autofree char *native = tu_write_temp (".slabtr", "", 0);
  GError *error = NULL;
  tu_assert_ok (sim_native_convert (text, native, FALSE, NULL, &error), error);
  check_again (native, 0);
  g_unlink (native);
}

static void
test_run_decodes_once (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (samples[2]);
  GError *error = NULL;
  g_autoptr (SimMachine) m = sim_machine_load ("nehalem-ep-2s", NULL, &error);
  tu_assert_ok (m != NULL, error);
  g_autoptr (SimTraceInfo) info = NULL;
  SimReplayOptions opt = { .machine = m, .warm = TRUE, .info = &info };
  const char *specs[] = { "slab", "slub@2.6.34", "slub@6.18", "slqb" };
  SimReplayResult res[4] = { 0 };
  guint text0, native0, text1, native1;
  sim_trace_stream_counts (&text0, &native0);
  tu_assert_ok (sim_replay_run_many (path, specs, 4, &opt, 2, res, &error), error);
  sim_trace_stream_counts (&text1, &native1);
  assert_int_equal (text1 - text0, 1);       /* the text, parsed once */
  assert_int_equal (native1 - native0, 1);   /* its spool, read by all four */
  assert_non_null (info);
  guint64 events = res[0].events;
  assert_true (events > 0);
  for (guint i = 0; i < 4; i++)
    {
      assert_true (res[i].warm_objects > 0);
      assert_int_equal (res[i].events, events);
      sim_replay_result_clear (&res[i]);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_one_pass_equals_three),
    cmocka_unit_test (test_again_text_and_native),
    cmocka_unit_test (test_run_decodes_once),
  };
  return cmocka_run_group_tests_name ("prepass", tests, NULL, NULL);
}
