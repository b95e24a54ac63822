/* test-trace-tracecmd.c - trace-cmd's trace.dat (traces/reader-tracecmd.c):
 * the committed sample (file version 7, zstd), the same file as version 6
 * gzip-compressed, and its `trace-cmd report -t` text read as the very same
 * events; `run` of the .dat equals `run` of the text and its golden; cut,
 * flipped and foreign headers are errors naming the file, never a crash;
 * trace-cmd report's dropped-event markers count in text as in the .dat;
 * libtracecmd's child is this program started afresh, so other threads
 * busy in malloc cannot leave it a held lock.
 * Without libtracecmd in the build: the error that says how to convert. */
#include "tests/testutil.h"
#include "traces/reader.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#define SAMPLE "traces/samples/hackbench-T-g1-l2"

#ifdef HAVE_LIBTRACECMD

static SimTraceReader *
open_sample (const char *suffix)
{
  g_autofree char *rel = g_strconcat (SAMPLE, suffix, NULL);
  g_autofree char *path = tu_source_path (rel);
  GError *error = NULL;
  SimTraceReader *r = sim_trace_reader_open (path, &error);
  if (r == NULL)
    print_error ("%s: %s\n", path, error->message);
  assert_non_null (r);
  return r;
}

/* Every field and every interned string of two readers' events agree. */
static void
assert_same_events (SimTraceReader *a, SimTraceReader *b)
{
  SimTraceEvent ea, eb;
  GError *error = NULL;
  guint64 n = 0;
  for (;;)
    {
      gboolean ga = sim_trace_reader_next (a, &ea, &error);
      assert_null (error);
      gboolean gb = sim_trace_reader_next (b, &eb, &error);
      assert_null (error);
      assert_int_equal (ga, gb);
      if (!ga)
        break;
      n++;
      if (ea.ts_ns != eb.ts_ns || ea.ptr != eb.ptr || ea.pfn != eb.pfn || ea.kind != eb.kind ||
          ea.cpu != eb.cpu || ea.pid != eb.pid || ea.bytes_req != eb.bytes_req ||
          ea.bytes_alloc != eb.bytes_alloc || ea.call_site != eb.call_site ||
          ea.node != eb.node || ea.order != eb.order || ea.migratetype != eb.migratetype ||
          ea.accounted != eb.accounted || ea.gfp != eb.gfp)
        {
          print_error ("event %" G_GUINT64_FORMAT " differs (%s at %" G_GUINT64_FORMAT
                       " vs %s at %" G_GUINT64_FORMAT ")\n", n, sim_trace_kind_name (ea.kind),
                       ea.ts_ns, sim_trace_kind_name (eb.kind), eb.ts_ns);
          fail ();
        }
      assert_string_equal (sim_trace_reader_string (a, ea.cache_id),
                           sim_trace_reader_string (b, eb.cache_id));
      assert_string_equal (sim_trace_reader_string (a, ea.call_site_id),
                           sim_trace_reader_string (b, eb.call_site_id));
      assert_string_equal (sim_trace_reader_string (a, ea.gfp_id),
                           sim_trace_reader_string (b, eb.gfp_id));
      assert_string_equal (sim_trace_reader_string (a, ea.comm_id),
                           sim_trace_reader_string (b, eb.comm_id));
      /* ids in the same order of first appearance, as a native writer keeps them */
      assert_int_equal (ea.cache_id, eb.cache_id);
      assert_int_equal (ea.comm_id, eb.comm_id);
    }
  const SimTraceStats *sa = sim_trace_reader_stats (a), *sb = sim_trace_reader_stats (b);
  assert_int_equal (sa->events, n);
  assert_int_equal (sb->events, n);
  assert_memory_equal (sa->by_kind, sb->by_kind, sizeof sa->by_kind);
  assert_int_equal (sa->lost_events, sb->lost_events);
  assert_int_equal (sa->lost_markers, sb->lost_markers);
  assert_int_equal (g_hash_table_size (sa->other_events), g_hash_table_size (sb->other_events));
}

/* The .dat, its version-6 twin and its report text: one event stream.  The
 * counts are the sample's (traces/samples/README.md). */
static void
test_same_as_report (void **state)
{
  (void) state;
  g_autoptr (SimTraceReader) dat = open_sample (".dat");
  g_autoptr (SimTraceReader) txt = open_sample (".report.gz");
  assert_int_equal (sim_trace_reader_format (dat), SIM_TRACE_FORMAT_TRACE_CMD_DAT);
  assert_int_equal (sim_trace_reader_format (txt), SIM_TRACE_FORMAT_TRACE_CMD);
  assert_string_equal (sim_trace_format_name (SIM_TRACE_FORMAT_TRACE_CMD_DAT), "trace-cmd-dat");
  assert_same_events (dat, txt);
  const SimTraceStats *s = sim_trace_reader_stats (dat);
  assert_int_equal (s->events, 8748);
  assert_int_equal (s->by_kind[SIM_TRACE_CACHE_ALLOC], 2363);
  assert_int_equal (s->by_kind[SIM_TRACE_KFREE], 1315);
  assert_int_equal (s->by_kind[SIM_TRACE_PAGE_FREE_BATCHED], 726);
  assert_int_equal (s->lost_events, 0);

  g_autoptr (SimTraceReader) v7 = open_sample (".dat");
  g_autoptr (SimTraceReader) v6 = open_sample (".v6.dat.gz");
  assert_int_equal (sim_trace_reader_format (v6), SIM_TRACE_FORMAT_TRACE_CMD_DAT);
  assert_same_events (v7, v6);
}

/* From a memory stream (as the fuzzer reads): copied to a temporary file. */
static void
test_memory_stream (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (SAMPLE ".dat");
  g_autofree char *data = NULL;
  gsize len = 0;
  assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (data, len, NULL);
  GError *error = NULL;
  g_autoptr (SimTraceReader) r = sim_trace_reader_new (in, "mem.dat", SIM_TRACE_FORMAT_AUTO,
                                                       &error);
  assert_null (error);
  g_autoptr (SimTraceReader) f = open_sample (".dat");
  assert_same_events (r, f);
}

/* The child that runs libtracecmd is this program started afresh, not a
 * fork of it: while the reader is open (from the main thread, whose task id
 * is the pid), its one child's command line is the
 * child's marker (a fork would show this test's own). */
static void
test_child_is_exec (void **state)
{
  (void) state;
  g_autofree char *kids = NULL;
  g_autofree char *task = g_strdup_printf ("/proc/self/task/%d/children", (int) getpid ());
  if (!g_file_get_contents (task, &kids, NULL, NULL))
    skip ();                    /* a kernel without CONFIG_PROC_CHILDREN */
  g_clear_pointer (&kids, g_free);
  g_autoptr (SimTraceReader) r = open_sample (".dat");
  assert_true (g_file_get_contents (task, &kids, NULL, NULL));
  int pid = atoi (kids);
  assert_true (pid > 0);
  g_autofree char *cl = g_strdup_printf ("/proc/%d/cmdline", pid);
  g_autofree char *cmd = NULL;
  gsize len = 0;
  assert_true (g_file_get_contents (cl, &cmd, &len, NULL));
  assert_string_equal (cmd, "slabsim: trace.dat report");
  assert_int_equal (len, strlen ("slabsim: trace.dat report") + 1);
}

/* Other threads busy in malloc while readers start children (a fork here
 * could copy an allocator lock held by one of them); and the child's marker
 * in this process's own environment changes nothing. */
static volatile gint busy_stop;

static gpointer
busy_alloc (gpointer data)
{
  (void) data;
  guint64 n = 0;
  while (!g_atomic_int_get (&busy_stop))
    {
      void *p[16];
      for (int i = 0; i < 16; i++)
        p[i] = g_malloc (16 + (n++ % 4096));
      for (int i = 0; i < 16; i++)
        g_free (p[i]);
    }
  return NULL;
}

static void
test_threads_allocating (void **state)
{
  (void) state;
  g_setenv ("SLABSIM_TRACE_DAT_CHILD", "1", TRUE);
  g_atomic_int_set (&busy_stop, 0);
  GThread *t[2];
  for (int i = 0; i < 2; i++)
    t[i] = g_thread_new ("busy", busy_alloc, NULL);
  for (int round = 0; round < 12; round++)
    {
      g_autoptr (SimTraceReader) r = open_sample (".dat");
      SimTraceEvent e;
      GError *error = NULL;
      while (sim_trace_reader_next (r, &e, &error))
        ;
      assert_null (error);
      assert_int_equal (sim_trace_reader_stats (r)->events, 8748);
    }
  g_atomic_int_set (&busy_stop, 1);
  for (int i = 0; i < 2; i++)
    g_thread_join (t[i]);
  g_unsetenv ("SLABSIM_TRACE_DAT_CHILD");
}

/* `run` of the .dat prints what `run` of its report text prints (but the
 * first line, which names the file), and that is the golden. */
static void
test_run_golden (void **state)
{
  (void) state;
  g_autofree char *dat = tu_source_path (SAMPLE ".dat");
  g_autofree char *txt = tu_source_path (SAMPLE ".report.gz");
  g_autofree char *o1 = NULL, *o2 = NULL, *e1 = NULL, *e2 = NULL;
  assert_int_equal (tu_run (&o1, &e1, (const char *[]) { "run", "-a", "slub@6.18", "-a", "slab",
                                                          dat, NULL }), 0);
  assert_int_equal (tu_run (&o2, &e2, (const char *[]) { "run", "-a", "slub@6.18", "-a", "slab",
                                                          txt, NULL }), 0);
  const char *b1 = strchr (o1, '\n'), *b2 = strchr (o2, '\n');
  assert_non_null (b1);
  assert_non_null (b2);
  assert_string_equal (b1, b2);
  assert_true (tu_golden_matches ("tests/golden/run-tracecmd-dat.txt", b1 + 1));
}

/* A reader over @len bytes of @data, drained; returns the error (or NULL). */
static GError *
read_all (const char *data, gsize len, gboolean lenient)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (data, len, NULL);
  GError *error = NULL;
  g_autoptr (SimTraceReader) r = sim_trace_reader_new (in, "bad.dat", SIM_TRACE_FORMAT_AUTO,
                                                       &error);
  if (r == NULL)
    return error;
  sim_trace_reader_set_lenient (r, lenient);
  SimTraceEvent ev;
  while (sim_trace_reader_next (r, &ev, &error))
    ;
  return error;
}

/* Cut anywhere in the headers: an error naming the file; a flipped byte
 * anywhere: an error or a trace, never a crash. */
static void
test_corrupt (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (SAMPLE ".dat");
  g_autofree char *data = NULL;
  gsize len = 0;
  assert_true (g_file_get_contents (path, &data, &len, NULL));
  /* the fixed head byte by byte, then 40 lengths through the file (each
   * read forks a process, so the test keeps to a hundred or so; the fuzz
   * target fuzz-tracecmd tries millions) */
  for (gsize cut = 10; cut < len; cut += cut < 40 ? 1 : len / 40)
    {
      GError *e = read_all (data, cut, FALSE);
      if (cut < 4096)
        {
          /* the headers end well past 4 KiB: a cut there cannot read */
          if (e == NULL)
            print_error ("a cut at %" G_GSIZE_FORMAT " bytes read without error\n", cut);
          assert_non_null (e);
        }
      if (e)
        {
          tu_assert_contains (e->message, "bad.dat");
          g_error_free (e);
        }
    }
  g_autofree char *copy = g_memdup2 (data, len);
  for (gsize at = 0; at < len; at += at < 4096 ? 211 : len / 20)
    {
      copy[at] ^= 0x5a;
      GError *e = read_all (copy, len, at & 1);
      g_clear_error (&e);
      copy[at] = data[at];
    }

  /* the head's checks, named */
  struct { const char *bytes; gsize len; const char *want; } heads[] = {
    { "\x17\x08\x44tracing", 10, "a version string" },
    { "\x17\x08\x44tracing" "5\0", 12, "version \"5\": expected 6 or 7" },
    { "\x17\x08\x44tracing" "6\0\0\x08\0\x30\0\0", 18, "page size that is a power of two" },
    { "\x17\x08\x44tracing" "6\0\x07\x08\0\x10\0\0", 18, "endianness 0 or 1" },
    { "\x17\x08\x44tracing" "7\0\0\x08\0\x10\0\0" "lz4\0" "1\0" "\0\0\0\0\0\0\0\0", 32,
      "compressed with \"lz4\": expected none, zstd or zlib" },
    { "\x17\x08\x44tracing" "6\0\0\x08\0\x10\0\0" "header_page\0", 30, "libtracecmd could not read" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (heads); i++)
    {
      GError *e = read_all (heads[i].bytes, heads[i].len, FALSE);
      assert_non_null (e);
      tu_assert_contains (e->message, heads[i].want);
      g_error_free (e);
    }

  /* through the command line: exit 1, the file named */
  g_autofree char *cut = tu_write_temp (".dat", data, 3000);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "trace", "info", cut, NULL }), 1);
  tu_assert_contains (err, cut);
  tu_assert_contains (err, "trace.dat");
  g_unlink (cut);
}

#else /* !HAVE_LIBTRACECMD */

static void
test_without_libtracecmd (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (SAMPLE ".dat");
  GError *error = NULL;
  SimTraceReader *r = sim_trace_reader_open (path, &error);
  assert_null (r);
  tu_assert_contains (error->message, "built without libtracecmd");
  tu_assert_contains (error->message, "trace-cmd report");
  g_error_free (error);
}

#endif

/* trace-cmd report prints a record's dropped events as "CPU:N [M EVENTS
 * DROPPED]" (or without a count): lost events and markers, as ftrace's
 * "[LOST M EVENTS]". */
static void
test_dropped_markers (void **state)
{
  (void) state;
  const char *text =
    "cpus=2\n"
    "CPU:1 [12 EVENTS DROPPED]\n"
    "            bash-1234  [001] 5000.000001000: kfree:                call_site=a+0x1 ptr=0xffff888100000000\n"
    "CPU:0 [EVENTS DROPPED]\n"
    "            bash-1234  [000] 5000.000002000: kfree:                call_site=a+0x1 ptr=0xffff888100000040\n";
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (text, strlen (text), NULL);
  GError *error = NULL;
  g_autoptr (SimTraceReader) r = sim_trace_reader_new (in, "t", SIM_TRACE_FORMAT_AUTO, &error);
  assert_null (error);
  SimTraceEvent ev;
  int n = 0;
  while (sim_trace_reader_next (r, &ev, &error))
    n++;
  assert_null (error);
  assert_int_equal (n, 2);
  const SimTraceStats *s = sim_trace_reader_stats (r);
  assert_int_equal (s->lost_markers, 2);
  assert_int_equal (s->lost_events, 12);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
#ifdef HAVE_LIBTRACECMD
    cmocka_unit_test (test_same_as_report),
    cmocka_unit_test (test_memory_stream),
    cmocka_unit_test (test_child_is_exec),
    cmocka_unit_test (test_threads_allocating),
    cmocka_unit_test (test_run_golden),
    cmocka_unit_test (test_corrupt),
#else
    cmocka_unit_test (test_without_libtracecmd),
#endif
    cmocka_unit_test (test_dropped_markers),
  };
  return cmocka_run_group_tests_name ("trace-tracecmd", tests, NULL, NULL);
}
