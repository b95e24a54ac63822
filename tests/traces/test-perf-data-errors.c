/* test-perf-data-errors.c - a perf.data is read through `perf script`
 * (traces/reader-perf.c); what slabsim says when that cannot work.
 *
 * A stand-in `perf` (a shell script first on the PATH) plays each failure,
 * so these run without perf or root: perf missing, perf exiting non-zero,
 * perf killed half-way, perf printing nothing or no kmem event, a perf.data on a pipe, a
 * compressed perf.data, and the way perf is called.  The "perf.data" is the
 * 16 bytes of a pipe-mode header: the stand-in never reads it. */
#include "tests/testutil.h"
#include "sim/core/errors.h"
#include "traces/reader.h"

#include <glib/gstdio.h>
#include <string.h>

static char *dir;        /* the stand-in perf's folder */
static char *data;       /* a file that starts like a perf.data */
static char *old_path;

static const char perf_head[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };

static int
setup (void **state)
{
  (void) state;
  dir = g_dir_make_tmp ("slabsim-fake-perf-XXXXXX", NULL);
  data = tu_write_temp (".perf.data", perf_head, sizeof perf_head);
  old_path = g_strdup (g_getenv ("PATH"));
  return dir && data ? 0 : -1;
}

static int
teardown (void **state)
{
  (void) state;
  g_autofree char *perf = g_build_filename (dir, "perf", NULL);
  g_autofree char *args = g_build_filename (dir, "args", NULL);
  g_unlink (perf);
  g_unlink (args);
  g_rmdir (dir);
  g_unlink (data);
  g_setenv ("PATH", old_path, TRUE);
  g_free (dir);
  g_free (data);
  g_free (old_path);
  return 0;
}

/* Put a `perf` whose body is @script first on the PATH. */
static void
fake_perf (const char *script)
{
  g_autofree char *perf = g_build_filename (dir, "perf", NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\n%s\n", script);
  assert_true (g_file_set_contents (perf, text, -1, NULL));
  assert_int_equal (g_chmod (perf, 0755), 0);
  g_autofree char *path = g_strdup_printf ("%s:%s", dir, old_path);
  g_setenv ("PATH", path, TRUE);
}

static void
test_perf_missing (void **state)
{
  (void) state;
  g_setenv ("PATH", "/nonexistent", TRUE);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", data, NULL }), 1);
  g_autofree char *want = g_strdup_printf ("%s: perf.data needs perf on the PATH", data);
  tu_assert_contains (err, want);
  tu_assert_contains (err, "perf script -i FILE > FILE.txt");
}

static void
test_perf_fails (void **state)
{
  (void) state;
  fake_perf ("echo >&2; echo '  Error: this perf.data is broken  ' >&2; echo 'more' >&2; exit 3");
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "trace", "info", data, NULL }), 1);
  /* Its first line that says something, trimmed. */
  g_autofree char *want = g_strdup_printf ("%s: perf script failed (exit status 3): "
                                           "Error: this perf.data is broken\n", data);
  tu_assert_contains (err, want);
}

/* A perf that printed half a trace and died: the half is not a trace. */
static void
test_perf_killed (void **state)
{
  (void) state;
  fake_perf ("echo ' cat 1 [000] 1.000001: kmem:kfree: call_site=f+0x1 ptr=0xffff888100000000'\n"
             "kill -9 $$");
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "run", data, NULL }), 1);
  tu_assert_contains (err, "perf script was killed by signal 9");
  assert_string_equal (out, "");
}

static void
test_perf_prints_nothing (void **state)
{
  (void) state;
  fake_perf ("echo 'no samples here' >&2; exit 0");
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", data, NULL }), 1);
  tu_assert_contains (err, "perf script printed nothing: expected kmem tracepoint samples");
  tu_assert_contains (err, "perf said: no samples here");
}

/* A perf.data of other events: said, not taken for an empty trace. */
static void
test_perf_other_events (void **state)
{
  (void) state;
  fake_perf ("echo '   ls 7 [000] 2.000001:     250000 cpu-clock:      7f8a384f9c78 f+0x5e8 (/lib/ld.so)'\n"
             "echo '   ls 7 [000] 2.000002:     250000 cpu-clock:      7f8a384f9c78 f+0x5e8 (/lib/ld.so)'");
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", data, NULL }), 1);
  g_autofree char *want = g_strdup_printf ("%s: no kmem tracepoint samples in this perf.data (perf "
                                           "script printed 2 lines, none a kmem event); record "
                                           "with perf record -e 'kmem:*'\n", data);
  tu_assert_contains (err, want);
}

/* The call: perf's default tracepoint fields named explicitly, the file on
 * its standard input; what it prints is read as perf script text. */
static void
test_perf_call (void **state)
{
  (void) state;
  g_autofree char *args = g_build_filename (dir, "args", NULL);
  g_autofree char *script = g_strdup_printf (
      "echo \"$@\" > '%s'\n"
      "head -c 8 | grep -q PERFILE2 || exit 9\n"
      "echo '   true 7 [001] 2.000001:   kmem:kmalloc: call_site=f+0x1 ptr=0xffff888100000000 "
      "bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL'\n"
      "echo '   true 7 [001] 2.000002:   kmem:kfree: call_site=f+0x2 ptr=0xffff888100000000'",
      args);
  fake_perf (script);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "trace", "info", data, NULL }), 0);
  tu_assert_contains (out, "Events: 2 on 1 CPUs");
  tu_assert_contains (out, "(perf-script)");
  g_autofree char *called = NULL;
  assert_true (g_file_get_contents (args, &called, NULL, NULL));
  assert_string_equal (called, "script --force -F trace:comm,tid,cpu,time,event,trace -i /dev/stdin\n");
}

/* Through a shell: `cat FILE | slabsim ARGS` (a real pipe on stdin). */
static int
run_piped (const char *file, const char *args, char **err)
{
  g_autofree char *cmd = g_strdup_printf ("cat '%s' | '%s' %s", file, tu_exe (), args);
  int status = -1;
  g_autoptr (GError) e = NULL;
  assert_true (g_spawn_sync (NULL, (char *[]) { "/bin/sh", "-c", cmd, NULL }, NULL, 0, NULL,
                             NULL, NULL, err, &status, &e));
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* `run -` spools standard input, so perf can read the copy; a verb that
 * reads its input once does not, and says what to do. */
static void
test_perf_data_on_pipe (void **state)
{
  (void) state;
  fake_perf ("head -c 8 | grep -q PERFILE2 || exit 9\n"
             "echo '   true 7 [001] 2.000001:   kmem:kmalloc: call_site=f+0x1 ptr=0xffff888100000000 "
             "bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL'");
  g_autofree char *err = NULL, *err2 = NULL;
  assert_int_equal (run_piped (data, "run -", &err), 0);
  assert_int_equal (run_piped (data, "trace info -", &err2), 1);
  tu_assert_contains (err2, "(stdin): a perf.data on a pipe cannot be read (perf needs the file): "
                            "give its path");
}

static void
test_compressed_perf_data (void **state)
{
  (void) state;
  fake_perf ("exit 0");
  g_autofree char *gz = g_strdup_printf ("%s.gz", data);
  g_autofree char *cmd = g_strdup_printf ("gzip -c '%s' > '%s'", data, gz);
  assert_int_equal (system (cmd), 0);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", gz, NULL }), 1);
  g_unlink (gz);
  tu_assert_contains (err, "a compressed perf.data cannot be read (perf needs the file): "
                           "decompress it first");
}

/* A reader on a stream has no file for perf to open. */
static void
test_stream_refused (void **state)
{
  (void) state;
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (perf_head, sizeof perf_head, NULL);
  g_autoptr (GError) error = NULL;
  SimTraceReader *r = sim_trace_reader_new (in, "mem", SIM_TRACE_FORMAT_AUTO, &error);
  assert_null (r);
  assert_true (g_error_matches (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED));
  assert_string_equal (error->message, "mem: a perf.data can only be read from a file");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_perf_missing),
    cmocka_unit_test (test_perf_fails),
    cmocka_unit_test (test_perf_killed),
    cmocka_unit_test (test_perf_prints_nothing),
    cmocka_unit_test (test_perf_other_events),
    cmocka_unit_test (test_perf_call),
    cmocka_unit_test (test_perf_data_on_pipe),
    cmocka_unit_test (test_compressed_perf_data),
    cmocka_unit_test (test_stream_refused),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
