/* test-record.c - "slabsim record" against a fake tracefs tree: the whole
 * control sequence (which files get which values, in which order), the
 * restore, the copy (gzip), lost-event counting and the errors. */
#include "tests/testutil.h"

#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

static char *root;

static void
put (const char *rel, const char *contents)
{
  g_autofree char *p = g_build_filename (root, rel, NULL);
  g_autofree char *dir = g_path_get_dirname (p);
  g_mkdir_with_parents (dir, 0755);
  assert_true (g_file_set_contents (p, contents, -1, NULL));
}

static char *
get (const char *rel)
{
  g_autofree char *p = g_build_filename (root, rel, NULL);
  char *s = NULL;
  assert_true (g_file_get_contents (p, &s, NULL, NULL));
  return s;
}

/* A tree like /sys/kernel/tracing with four of the eight default events
 * (an older kernel) and per-CPU stats. */
static int
make_tree (void **state)
{
  (void) state;
  root = g_dir_make_tmp ("slabsim-fake-tracefs-XXXXXX", NULL);
  assert_non_null (root);
  put ("trace", "stale contents from an earlier session\n");
  put ("trace_options", "print-parent\nnosym-offset\nhash-ptr\nnoraw\n");
  put ("buffer_size_kb", "7 (expanded: 1408)\n");
  put ("tracing_on", "0\n");
  const char *ev[] = { "kmalloc", "kfree", "kmem_cache_alloc", "kmem_cache_free" };
  for (guint i = 0; i < G_N_ELEMENTS (ev); i++)
    {
      g_autofree char *rel = g_strdup_printf ("events/kmem/%s/enable", ev[i]);
      put (rel, "0\n");
    }
  put ("per_cpu/cpu0/stats", "entries: 10\noverrun: 3\ncommit overrun: 0\n");
  put ("per_cpu/cpu1/stats", "entries: 12\noverrun: 2\ncommit overrun: 0\n");
  g_setenv ("SLABSIM_TRACEFS", root, TRUE);
  return 0;
}

static int
drop_tree (void **state)
{
  (void) state;
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
  (void) !system (cmd);
  g_free (root);
  return 0;
}

static const char *const fixture =
  "# tracer: nop\n"
  "#\n"
  "              sh-4242    [001] .....   100.000001: kmalloc: call_site=f+0x1/0x2 ptr=ffff888100000000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
  "CPU:1 [LOST 7 EVENTS]\n"
  "              sh-4242    [001] .....   100.000002: kfree: call_site=g+0x1/0x2 ptr=ffff888100000000\n";

static void
test_sequence (void **state)
{
  (void) state;
  g_autofree char *fx = tu_write_temp (".txt", fixture, -1);
  g_autofree char *out = tu_write_temp (".trace.gz", "", 0);
  g_autofree char *append = g_strdup_printf ("test \"$(cat '%s/tracing_on')\" = 1 && cat '%s' >> '%s/trace'",
                                             root, fx, root);
  g_autofree char *err = NULL;
  int st = tu_run (NULL, &err, (const char *[]) { "record", "-v", "-o", out, "--buffer-kb", "4096",
                                                  "--", "sh", "-c", append, NULL });
  if (st != 0)
    print_error ("stderr: %s\n", err);
  assert_int_equal (st, 0);
  /* the writes, in order */
  const char *expected =
    "record: echo nohash-ptr > trace_options\n"
    "record: echo 4096 > buffer_size_kb\n"
    "record: echo '' > trace\n"
    "record: echo 1 > events/kmem/kmalloc/enable\n"
    "record: echo 1 > events/kmem/kfree/enable\n"
    "record: echo 1 > events/kmem/kmem_cache_alloc/enable\n"
    "record: echo 1 > events/kmem/kmem_cache_free/enable\n"
    "record: echo 1 > tracing_on\n"
    "record: echo 0 > tracing_on\n"
    "record: echo 0 > events/kmem/kmalloc/enable\n"
    "record: echo 0 > events/kmem/kfree/enable\n"
    "record: echo 0 > events/kmem/kmem_cache_alloc/enable\n"
    "record: echo 0 > events/kmem/kmem_cache_free/enable\n"
    "record: echo hash-ptr > trace_options\n"
    "record: echo 1408 > buffer_size_kb\n";
  tu_assert_contains (err, expected);
  tu_assert_contains (err, "warning: event kmem:mm_page_alloc does not exist on this kernel; skipped");
  tu_assert_contains (err, "warning: event kmem:mm_page_pcpu_drain does not exist on this kernel; skipped");
  tu_assert_contains (err, "2 lines from");
  tu_assert_contains (err, "lost events: 7 (overrun 5, LOST markers 7)");
  /* the tree is back as it was (the fake files keep the last write) */
  g_autofree char *opts = get ("trace_options");
  assert_string_equal (opts, "hash-ptr\n");
  /* "7 (expanded: 1408)": the size the buffer was going to have */
  g_autofree char *kb = get ("buffer_size_kb");
  assert_string_equal (kb, "1408\n");
  g_autofree char *on = get ("tracing_on");
  assert_string_equal (on, "0\n");
  g_autofree char *en = get ("events/kmem/kfree/enable");
  assert_string_equal (en, "0\n");
  /* the output is the cleared buffer plus what the command produced,
   * gzip-compressed */
  g_autofree char *gz = NULL;
  gsize len = 0;
  assert_true (g_file_get_contents (out, &gz, &len, NULL));
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  char buf[4096];
  gsize rd = 0, wr = 0;
  GConverterResult r = g_converter_convert (G_CONVERTER (z), gz, len, buf, sizeof buf - 1,
                                            G_CONVERTER_INPUT_AT_END, &rd, &wr, NULL);
  assert_int_equal (r, G_CONVERTER_FINISHED);
  buf[wr] = '\0';
  assert_string_equal (buf, fixture);
  g_unlink (out);
  g_unlink (fx);
}

static void
test_no_hash_ptr_option (void **state)
{
  (void) state;
  /* a pre-5.12 kernel: no hash-ptr in trace_options; tracing_on was 1
   * (the default): stopped first, turned back on at the end */
  put ("trace_options", "print-parent\nnoraw\n");
  put ("tracing_on", "1\n");
  g_autofree char *out = tu_write_temp (".txt", "", 0);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "record", "-v", "-o", out, "--events",
                                                           "kmalloc,kfree", "--", "true", NULL }), 0);
  assert_null (strstr (err, "trace_options"));
  tu_assert_contains (err, "warning: this kernel has no hash-ptr trace option");
  tu_assert_contains (err, "record: echo 0 > tracing_on\n"
                           "record: echo 131072 > buffer_size_kb\n");
  tu_assert_contains (err, "echo 1 > events/kmem/kmalloc/enable\n"
                           "record: echo 1 > events/kmem/kfree/enable\n"
                           "record: echo 1 > tracing_on\n");
  tu_assert_contains (err, "record: echo 0 > events/kmem/kfree/enable\n"
                           "record: echo 1408 > buffer_size_kb\n"
                           "record: echo 1 > tracing_on\n");
  g_autofree char *on = get ("tracing_on");
  assert_string_equal (on, "1\n");
  put ("tracing_on", "0\n");
  put ("trace_options", "print-parent\nnosym-offset\nhash-ptr\nnoraw\n");
  g_unlink (out);
}

static void
expect (int code, const char *needle, const char *const *args)
{
  g_autofree char *err = NULL;
  int st = tu_run (NULL, &err, args);
  if (st != code)
    print_error ("exit %d, stderr: %s\n", st, err);
  assert_int_equal (st, code);
  tu_assert_contains (err, needle);
}

static void
test_errors (void **state)
{
  (void) state;
  expect (2, "the command to record must follow \"--\"",
          (const char *[]) { "record", "-o", "x.gz", NULL });
  expect (2, "the command to record must follow \"--\"",
          (const char *[]) { "record", "-o", "x.gz", "--", NULL });
  expect (2, "unexpected argument \"ls\" before \"--\"",
          (const char *[]) { "record", "ls", "--", "true", NULL });
  expect (2, "--buffer-kb: \"0\" is not a whole number",
          (const char *[]) { "record", "--buffer-kb", "0", "--", "true", NULL });
  expect (2, "--events: \"km/alloc\" is not an event name",
          (const char *[]) { "record", "--events", "km/alloc", "--", "true", NULL });
  expect (1, "record: command not found: no-such-command-xyz",
          (const char *[]) { "record", "--", "no-such-command-xyz", NULL });
  /* none of the events exist: nothing to record */
  expect (1, "none of the requested kmem events exists",
          (const char *[]) { "record", "--events", "mm_page_alloc", "--", "true", NULL });
  g_autofree char *on = get ("tracing_on");
  assert_string_equal (on, "0\n");
  g_autofree char *opts = get ("trace_options");
  assert_string_equal (opts, "hash-ptr\n");

  g_setenv ("SLABSIM_TRACEFS", "/nonexistent-tracefs", TRUE);
  expect (1, "tracefs unavailable: SLABSIM_TRACEFS=/nonexistent-tracefs has no \"trace\" file",
          (const char *[]) { "record", "--", "true", NULL });
  /* not root (the real tracefs path): refused before anything is touched */
  g_unsetenv ("SLABSIM_TRACEFS");
  g_setenv ("SLABSIM_RECORD_EUID", "1000", TRUE);
  expect (1, "slabsim: record: record needs root (tracefs writes)",
          (const char *[]) { "record", "--", "true", NULL });
  g_unsetenv ("SLABSIM_RECORD_EUID");
  g_setenv ("SLABSIM_TRACEFS", root, TRUE);
}

/* A script as trace-cmd (SLABSIM_TRACE_CMD): checks it is called as
 * `extract -k -o FILE` and writes the committed trace.dat sample there, or
 * fails as trace-cmd does. */
static char *
fake_tracecmd (const char *body)
{
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\n%s\n", body);
  char *path = tu_write_temp (".sh", script, -1);
  g_chmod (path, 0755);
  return path;
}

static void
test_via_tracecmd (void **state)
{
  (void) state;
  g_autofree char *sample = tu_source_path ("traces/samples/hackbench-T-g1-l2.dat");
  g_autofree char *body = g_strdup_printf (
    "[ \"$1 $2 $3\" = \"extract -k -o\" ] && [ $# = 4 ] || { echo \"bad arguments: $*\"; exit 3; }\n"
    "cp '%s' \"$4\" && echo 'CPU0 data recorded at offset=0x3000'", sample);
  g_autofree char *tc = fake_tracecmd (body);
  g_setenv ("SLABSIM_TRACE_CMD", tc, TRUE);
  g_autofree char *dir = g_dir_make_tmp ("slabsim-record-dat-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "t.dat", NULL);
  g_autofree char *err = NULL;
  int st = tu_run (NULL, &err, (const char *[]) { "record", "-v", "--via", "trace-cmd", "-o", out,
                                                  "--", "true", NULL });
  if (st != 0)
    print_error ("stderr: %s\n", err);
  assert_int_equal (st, 0);
  /* the same control sequence; extract where the copy was, before the restore */
  g_autofree char *seq = g_strdup_printf (
    "record: echo 1 > tracing_on\n"
    "record: echo 0 > tracing_on\n"
    "record: echo 0 > events/kmem/kmalloc/enable\n"
    "record: echo 0 > events/kmem/kfree/enable\n"
    "record: echo 0 > events/kmem/kmem_cache_alloc/enable\n"
    "record: echo 0 > events/kmem/kmem_cache_free/enable\n"
    "record: trace-cmd extract -k -o %s\n"
    "record: echo hash-ptr > trace_options\n"
    "record: echo 1408 > buffer_size_kb\n", out);
  tu_assert_contains (err, seq);
#ifdef HAVE_LIBTRACECMD
  /* the events counted by reading the trace.dat back (the sample's) */
  tu_assert_contains (err, "8748 events from");
#endif
  tu_assert_contains (err, "(trace-cmd extract); lost events: 5 (overrun 5, dropped in the trace.dat 0)");
  g_autofree char *want = NULL, *got = NULL;
  gsize wl = 0, gl = 0;
  assert_true (g_file_get_contents (sample, &want, &wl, NULL));
  assert_true (g_file_get_contents (out, &got, &gl, NULL));
  assert_int_equal (wl, gl);
  assert_memory_equal (want, got, wl);
  g_unlink (out);

  /* extract fails: its last line in the error, no file left (not even ours) */
  g_autofree char *bad = fake_tracecmd ("echo 'reading buffers'; echo 'trace-cmd: boom' >&2; exit 1");
  g_setenv ("SLABSIM_TRACE_CMD", bad, TRUE);
  expect (1, "trace-cmd extract failed (exit status 1): trace-cmd: boom",
          (const char *[]) { "record", "--via", "trace-cmd", "-o", out, "--", "true", NULL });
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  assert_null (g_dir_read_name (d));
  /* no trace-cmd: refused before tracefs is touched */
  g_setenv ("SLABSIM_TRACE_CMD", "/nonexistent/trace-cmd", TRUE);
  put ("tracing_on", "1\n");
  expect (1, "--via trace-cmd: /nonexistent/trace-cmd not found",
          (const char *[]) { "record", "--via", "trace-cmd", "-o", out, "--", "true", NULL });
  g_autofree char *on = get ("tracing_on");
  assert_string_equal (on, "1\n");
  put ("tracing_on", "0\n");
  g_unsetenv ("SLABSIM_TRACE_CMD");
  expect (2, "--via: \"perf\" is not tracefs or trace-cmd",
          (const char *[]) { "record", "--via", "perf", "--", "true", NULL });
  expect (2, "--via trace-cmd writes a trace.dat, not gzip: -o t.gz",
          (const char *[]) { "record", "--via", "trace-cmd", "-o", "t.gz", "--", "true", NULL });
  g_unlink (tc);
  g_unlink (bad);
  g_rmdir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sequence),
    cmocka_unit_test (test_no_hash_ptr_option),
    cmocka_unit_test (test_errors),
    cmocka_unit_test (test_via_tracecmd),
  };
  return cmocka_run_group_tests_name ("record", tests, make_tree, drop_tree);
}
