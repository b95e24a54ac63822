/* test-prepass-pipe.c - the pipelined pre-pass (sim/run/prepass.h, issue
 * 12): with a thread to spare, `run` starts the replays while the pre-pass
 * is still reading, and the bytes out are those of the serial run.
 *   - On the bundled samples the chunks' answers, one after the other, are
 *     the complete pre-pass's (page classes and untraced frees), and the
 *     spool read while it is written hands out the trace's events.
 *   - A page allocation whose answer is final only at the end of the trace:
 *     if it stays open it is not a slab's, and the pipeline was exact; if
 *     a slab claims it after its chunk was handed out, the pipeline says so
 *     and the run replays again from the final answers (--jobs 1 and 2 give
 *     the same bytes either way, and the claim counts).
 *   - An untraced free placed in a chunk already handed out (timestamps out
 *     of order) does the same.
 *   - A trace error after the replays started gives the serial run's error
 *     and exit status. */
#include "tests/testutil.h"
#include "sim/run/prepass.h"
#include "sim/run/replay.h"

#include <string.h>
#include <glib/gstdio.h>

#define GP_NS 16000000ull        /* the machines' default grace period */
#define FILLER 50000             /* events: three decoded chunks and more */

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
  tu_assert_ok (st != NULL, error);
  return st;
}

/* Run the pipe over @path to its end, reading the follower beside it and
 * checking its events against a fresh reading; the chunks' answers
 * against the complete ones.  Returns whether the pipe was exact. */
static gboolean
pipe_over_first (const char *path, guint64 *chunks_out, guint64 *first_read)
{
  g_autoptr (SimTraceStream) first = open_ok (path, TRUE);
  g_autoptr (SimTraceStream) fresh = open_ok (path, FALSE);
  SimPrepassOptions po = { .grace_period_ns = GP_NS };
  SimPrepassPipe *pp = sim_prepass_pipe_start (first, &po);
  GError *error = NULL;
  g_autoptr (SimTraceStream) fol = sim_trace_stream_follow (first, &error);
  tu_assert_ok (fol != NULL, error);
  guint64 total = 0;
  for (;;)
    {
      const SimTraceEvent *ea, *eb;
      guint na, nb;
      gboolean ma = sim_trace_stream_next (fol, &ea, &na, &error);
      assert_null (error);
      gboolean mb = sim_trace_stream_next (fresh, &eb, &nb, &error);
      assert_null (error);
      assert_int_equal (ma, mb);
      if (!ma)
        break;
      assert_int_equal (na, nb);
      assert_memory_equal (ea, eb, na * sizeof *ea);
      total += na;
    }
  SimPrepass pre;
  gboolean exact;
  tu_assert_ok (sim_prepass_pipe_finish (pp, &pre, &exact, &error), error);
  guint64 p = 0, at = 0, ords = 0;
  if (exact)
    for (const SimPrepassChunk *c; (c = sim_prepass_pipe_chunk (pp, p)) != NULL; p++)
      {
        assert_int_equal (c->first, at);
        at += c->n_events;
        assert_int_equal (c->pages.base, ords);
        for (guint64 o = 0; o < c->pages.n; o++)
          assert_int_equal (c->pages.slab[o] != 0,
                            g_hash_table_contains (pre.pages.slab_allocs,
                                                   GSIZE_TO_POINTER ((gsize) (ords + o + 1))));
        ords += c->pages.n;
        for (guint i = 0; i < c->untraced.frees->len; i++)
          {
            const SimUntracedFree *f = &g_array_index (c->untraced.frees, SimUntracedFree, i);
            assert_true (f->before_index >= c->first);
          }
      }
  if (exact)
    {
      assert_int_equal (at, total);
      assert_int_equal (ords, pre.pages.page_allocs);
    }
  if (chunks_out)
    *chunks_out = p;
  if (first_read)
    *first_read = sim_prepass_pipe_first_read (pp);
  sim_prepass_clear (&pre);
  sim_prepass_pipe_free (pp);
  return exact;
}

static gboolean
pipe_over (const char *path, guint64 *chunks_out)
{
  return pipe_over_first (path, chunks_out, NULL);
}

static void
test_samples_exact (void **state)
{
  (void) state;
  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    {
      g_autofree char *path = tu_source_path (samples[s]);
      guint64 chunks = 0;
      assert_true (pipe_over (path, &chunks));
      assert_true (chunks >= 2);
    }
}

/* The replays wait for the first chunk: the stream's first chunks are
 * small (128, 256, ... 8192 events, then SIM_TRACE_CHUNK), and the pre-pass
 * hands the first out as soon as it has read SIM_TRACE_CHUNK events past it
 * and an event a grace period later than its last (checked every 1024
 * events).  On the bundled trace that is ~19 % into it, not ~47 % as with
 * whole chunks checked at their ends. */
static void
test_first_chunk_early (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (samples[0]);
  g_autoptr (SimTraceStream) st = open_ok (path, FALSE);
  GArray *ts = g_array_new (FALSE, FALSE, sizeof (guint64));
  const SimTraceEvent *ev;
  guint n, c = 0, last = 0;
  GError *error = NULL;
  while (sim_trace_stream_next (st, &ev, &n, &error))
    {
      if (c > 0)
        assert_int_equal (last, c < 8 ? 128u << (c - 1) : SIM_TRACE_CHUNK);
      for (guint i = 0; i < n; i++)
        g_array_append_val (ts, ev[i].ts_ns);
      last = n;
      c++;
    }
  assert_null (error);
  assert_true (c > 8);
  guint64 max0 = 0;
  for (guint i = 0; i < 128; i++)
    max0 = MAX (max0, g_array_index (ts, guint64, i));
  /* the first event that lets chunk 0 go */
  guint j = 128 + SIM_TRACE_CHUNK - 1;
  while (j < ts->len && g_array_index (ts, guint64, j) < max0 + GP_NS)
    j++;
  assert_true (j < ts->len / 4);
  guint64 first = 0;
  assert_true (pipe_over_first (path, NULL, &first));
  assert_true (first > j);
  assert_true (first <= j + 1 + 1024);
  g_array_unref (ts);
}

/* slabsim run --format json --jobs @jobs [@extra] @trace: exit status,
 * stdout and stderr. */
static int
run_jobs (const char *trace, const char *jobs, const char *extra, char **out, char **err)
{
  const char *args[] = { "run", "--format", "json", "--jobs", jobs, extra ? extra : trace,
                         extra ? trace : NULL, NULL };
  return tu_run (out, err, args);
}

/* --jobs 1 (serial) and 2 (pipelined) give the same status and bytes;
 * the pipelined run's JSON returned. */
static char *
assert_jobs_same (const char *trace, int want_rc)
{
  char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  int r1 = run_jobs (trace, "1", NULL, &o1, &e1);
  int r2 = run_jobs (trace, "2", NULL, &o2, &e2);
  if (r1 != want_rc)
    print_error ("exit %d\n%s\n", r1, e1);
  assert_int_equal (r1, want_rc);
  assert_int_equal (r2, r1);
  assert_string_equal (o2, o1);
  assert_string_equal (e2, e1);
  g_free (o1);
  g_free (e1);
  g_free (e2);
  return o2;
}

/* A text trace: @head, FILLER kmalloc/kfree events on CPU 1 (1 us apart
 * from 100.000100), then @tail. */
static char *
directed (const char *head, const char *tail)
{
  GString *t = g_string_new ("# tracer: nop\n");
  g_string_append (t, head);
  for (guint i = 0; i < FILLER; i += 2)
    {
      guint64 us = 100 + i;
      g_string_append_printf (t, "           task-1     [001] .....   %" G_GUINT64_FORMAT
                              ".%06" G_GUINT64_FORMAT ": kmalloc: call_site=foo+0x1/0x2 "
                              "ptr=ffff888200001000 bytes_req=64 bytes_alloc=64 "
                              "gfp_flags=GFP_KERNEL node=-1 accounted=false\n",
                              100 + us / 1000000, us % 1000000);
      g_string_append_printf (t, "           task-1     [001] .....   %" G_GUINT64_FORMAT
                              ".%06" G_GUINT64_FORMAT ": kfree: call_site=bar+0x1/0x2 "
                              "ptr=ffff888200001000\n",
                              100 + (us + 1) / 1000000, (us + 1) % 1000000);
    }
  g_string_append (t, tail);
  char *path = tu_write_temp (".trace", t->str, (gssize) t->len);
  g_string_free (t, TRUE);
  return path;
}

#define PAGE_ALLOC_CPU0 \
  "           task-1     [000] .....   100.000001: mm_page_alloc: page=ffffea0004000000 " \
  "pfn=0x100000 order=0 migratetype=0 gfp_flags=GFP_KERNEL|__GFP_COMP\n"
#define CLAIM_CPU0 \
  "           task-1     [000] .....   100.090000: kmem_cache_alloc: call_site=foo_new+0x1/0x2 " \
  "ptr=ffff888100000040 name=foo bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 " \
  "accounted=false\n"

static void
test_page_open_to_the_end (void **state)
{
  (void) state;
  /* Never claimed: not a slab page, and the chunk handed out said so. */
  g_autofree char *open = directed (PAGE_ALLOC_CPU0, "");
  assert_true (pipe_over (open, NULL));
  g_autofree char *j = assert_jobs_same (open, 0);
  assert_non_null (strstr (j, "\"slab_page_allocs\": 0"));
  assert_non_null (strstr (j, "\"other_page_allocs\": 1"));
  /* Claimed by the last event, long after its chunk was handed out as
   * not a slab's: the pipe says it was not exact, the run replays again,
   * and the page is the slab's. */
  g_autofree char *late = directed (PAGE_ALLOC_CPU0, CLAIM_CPU0);
  assert_false (pipe_over (late, NULL));
  g_autofree char *k = assert_jobs_same (late, 0);
  assert_non_null (strstr (k, "\"slab_page_allocs\": 1"));
  assert_non_null (strstr (k, "\"other_page_allocs\": 0"));
  g_unlink (open);
  g_unlink (late);
}

static void
test_untraced_out_of_order (void **state)
{
  (void) state;
  /* An object never freed, then its page freed with a time from before
   * the filler: the untraced free is placed in the first chunk, handed
   * out long before.  (The inference looks back a grace period plus the
   * most the timestamps ran back: the first event, 20 ms ahead, makes
   * that reach the first chunk.) */
  g_autofree char *t = directed (
    "           task-1     [001] .....   100.020000: kfree: call_site=bar+0x1/0x2 "
    "ptr=0000000000000000\n"
    "           task-1     [000] .....   100.000001: kmalloc: call_site=foo+0x1/0x2 "
    "ptr=ffff888100000040 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 "
    "accounted=false\n",
    "           task-1     [000] .....   100.000005: mm_page_free: page=ffffea0004000000 "
    "pfn=0x100000 order=0\n");
  assert_false (pipe_over (t, NULL));
  g_autofree char *j = assert_jobs_same (t, 0);
  assert_non_null (strstr (j, "\"untraced_by_page_free\": 1"));
  g_unlink (t);
}

static void
test_error_after_start (void **state)
{
  (void) state;
  /* The replays have started (three chunks handed out) when the pre-pass
   * meets the bad line: the serial run's error, naming its line. */
  g_autofree char *t = directed (PAGE_ALLOC_CPU0,
                                 "           task-1     [000] .....   100.090000: kmalloc: "
                                 "call_site=foo+0x1/0x2 ptr=zzz\n");
  char *o1 = NULL, *e1 = NULL;
  int r1 = run_jobs (t, "1", NULL, &o1, &e1);
  assert_int_equal (r1, 1);
  g_autofree char *line = g_strdup_printf (":%d", FILLER + 3);
  assert_non_null (strstr (e1, line));
  g_free (assert_jobs_same (t, 1));
  g_free (o1);
  g_free (e1);
  g_unlink (t);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_samples_exact),
    cmocka_unit_test (test_first_chunk_early),
    cmocka_unit_test (test_page_open_to_the_end),
    cmocka_unit_test (test_untraced_out_of_order),
    cmocka_unit_test (test_error_after_start),
  };
  return cmocka_run_group_tests_name ("prepass-pipe", tests, NULL, NULL);
}
