/* test-cachesim-cli.c - "slabsim cachesim" in Cachegrind mode: output shape
 * (text and json), plain = gzip = stdin, and every bad input giving its
 * file:line error and exit code (a plain trace truncated while it is read
 * too).  (Full mode needs a machine file, see
 * test-cachesim-machine.c.) */
#include "tests/testutil.h"
#include "models/cache/din.h"
#include "sim/cli/cli.h"

#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

static const char trace_text[] =
  "# a tiny trace\n"
  "r 1000 8\n"
  "w 0x1008 8\n"
  "i 400000 4\n"
  "r 103c 8\n"          /* straddles lines 0x1000 and 0x1040 */
  "m 2000 4\n"          /* RMW: one read for Cachegrind */
  "\n"
  "0 3000 8\n"          /* Dinero's numeric labels */
  "1 3000 8 0\n"        /* optional CPU field */
  "2 400004 4\n";

static char *
gzip_bytes (const char *data, gsize len, gsize *out_len)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) conv = g_converter_output_stream_new (mem, G_CONVERTER (z));
  gsize written;
  assert_true (g_output_stream_write_all (conv, data, len, &written, NULL, NULL));
  assert_true (g_output_stream_close (conv, NULL, NULL));
  *out_len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem));
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (mem));
}

static char *
run_cg (const char *path, const char *format, int expect_rc)
{
  char *out = NULL;
  int rc = tu_run (&out, NULL, (const char *[]) { "cachesim", "--compat", "cachegrind",
                                                  "--D1", "1024,2,64", "--LL", "8192,4,64",
                                                  "--format", format, path, NULL });
  assert_int_equal (rc, expect_rc);
  return out;
}

static void
test_json_shape (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".din", trace_text, -1);
  g_autofree char *out = run_cg (path, "json", 0);
  /* 6 data refs: reads 0x1000, 0x103c, m 0x2000, 0 0x3000 -> Dr 4;
   * writes 0x1008, 1 0x3000 -> Dw 2.  Misses by hand: 0x1000 miss, 0x1008
   * hit, 0x103c (line 0x1040 new) miss, 0x2000 miss, 0x3000 miss, then hit. */
  tu_assert_contains (out, "\"Dr\": 4,");
  tu_assert_contains (out, "\"D1mr\": 4,");
  tu_assert_contains (out, "\"DLmr\": 4,");
  tu_assert_contains (out, "\"Dw\": 2,");
  tu_assert_contains (out, "\"D1mw\": 0,");
  tu_assert_contains (out, "\"DLmw\": 0}");
  tu_assert_contains (out, "\"I\": 2,");
  tu_assert_contains (out, "\"refs\": 6,");
  assert_true (g_str_has_prefix (out, "{") && g_str_has_suffix (out, "}\n"));
  g_unlink (path);
}

static void
test_text_shape (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".din", trace_text, -1);
  g_autofree char *out = run_cg (path, "text", 0);
  tu_assert_contains (out, "model    cachegrind: D1 1024,2,64  LL 8192,4,64");
  tu_assert_contains (out, "6 data accesses (3 reads, 2 writes, 1 rmw)");
  tu_assert_contains (out, "2 instruction fetches not simulated");
  tu_assert_contains (out, "miss%");
  tu_assert_contains (out, "\nD1 ");
  tu_assert_contains (out, "\nLL ");
  g_unlink (path);
}

static void
test_gzip_and_stdin_equal_plain (void **state)
{
  (void) state;
  g_autofree char *plain = tu_write_temp (".din", trace_text, -1);
  gsize zlen;
  g_autofree char *z = gzip_bytes (trace_text, strlen (trace_text), &zlen);
  g_autofree char *gz = tu_write_temp (".din.gz", z, (gssize) zlen);
  g_autofree char *a = run_cg (plain, "json", 0);
  g_autofree char *b = run_cg (gz, "json", 0);
  assert_string_equal (a, b);
  g_autofree char *c = NULL;
  int rc = tu_run_stdin (&c, NULL, trace_text,
                         (const char *[]) { "cachesim", "--compat", "cachegrind", "--D1",
                                            "1024,2,64", "--LL", "8192,4,64", "--format",
                                            "json", "-", NULL });
  assert_int_equal (rc, 0);
  assert_string_equal (a, c);
  g_unlink (plain);
  g_unlink (gz);
}

/* A trace whose line 2 is @bad must fail with "FILE:2: expected WHAT". */
static void
expect_trace_error (const char *bad, const char *what)
{
  g_autofree char *text = g_strconcat ("r 1000 8\n", bad, "r 2000 8\n", NULL);
  g_autofree char *path = tu_write_temp (".din", text, -1);
  g_autofree char *err = NULL;
  int rc = tu_run (NULL, &err, (const char *[]) { "cachesim", "--compat", "cachegrind",
                                                  path, NULL });
  assert_int_equal (rc, 1);
  g_autofree char *want = g_strdup_printf ("slabsim: %s:2: expected ", path);
  tu_assert_contains (err, want);
  tu_assert_contains (err, what);
  g_unlink (path);
}

static void
test_bad_lines (void **state)
{
  (void) state;
  expect_trace_error ("x 1000 8\n", "an operation r, w, i, m");
  expect_trace_error ("r 10g0 8\n", "a hexadecimal address");
  expect_trace_error ("r 0x 8\n", "a hexadecimal address");
  expect_trace_error ("r 1000\n", "a hexadecimal size after the address");
  expect_trace_error ("r 1000 0\n", "a hexadecimal size between 1 and ffffffff");
  expect_trace_error ("r 1000 zz\n", "a hexadecimal size");
  expect_trace_error ("r 11112222333344445 8\n", "a hexadecimal address of at most 64 bits");
  expect_trace_error ("r 1000 8 cpu1\n", "a decimal CPU number");
  expect_trace_error ("r 1000 8 1 extra\n", "at most four fields");
  expect_trace_error ("rw 1000 8\n", "followed by a blank");
}

/* A cut last line (no newline, fields missing) names its line. */
static void
test_cut_line (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".din", "r 1000 8\nw 20", -1);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "cachesim", "--compat",
                                                          "cachegrind", path, NULL }), 1);
  g_autofree char *want = g_strdup_printf ("%s:2: expected a hexadecimal size", path);
  tu_assert_contains (err, want);
  g_unlink (path);
  g_autofree char *path2 = tu_write_temp (".din", "r 1000 8\nw", -1);
  g_autofree char *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "cachesim", "--compat",
                                                           "cachegrind", path2, NULL }), 1);
  g_autofree char *want2 = g_strdup_printf ("%s:2: expected a hexadecimal address", path2);
  tu_assert_contains (err2, want2);
  g_unlink (path2);
}

static void
test_truncated_gzip (void **state)
{
  (void) state;
  GString *big = g_string_new (NULL);
  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (big, "r %x 8\n", i * 64);
  gsize zlen;
  g_autofree char *z = gzip_bytes (big->str, big->len, &zlen);
  g_string_free (big, TRUE);
  g_autofree char *path = tu_write_temp (".din.gz", z, (gssize) (zlen / 2));
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "cachesim", "--compat",
                                                          "cachegrind", path, NULL }), 1);
  g_autofree char *want = g_strdup_printf ("slabsim: %s:", path);
  tu_assert_contains (err, want);
  tu_assert_contains (err, "truncated or corrupt");
  g_unlink (path);
}

static void
expect_usage_error (const char *const *args, const char *msg)
{
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, args), 2);
  tu_assert_contains (err, msg);
}

static void
test_bad_geometry_options (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".din", trace_text, -1);
#define CG(opt, val) (const char *[]) { "cachesim", "--compat", "cachegrind", opt, val, path, NULL }
  expect_usage_error (CG ("--D1", "32768,0,64"), "--D1 32768,0,64: expected");
  expect_usage_error (CG ("--D1", "30000,8,64"), "power-of-two number of sets");
  expect_usage_error (CG ("--D1", "98304,8,64"), "power-of-two number of sets");
  expect_usage_error (CG ("--D1", "32768,8,8"), "line of at least 16 bytes");
  expect_usage_error (CG ("--D1", "32768,8,0"), "expected SIZE,ASSOC,LINE");
  expect_usage_error (CG ("--LL", "32768,8,48"), "--LL 32768,8,48: expected");
  expect_usage_error (CG ("--LL", "32768,3,64"), "power-of-two number of sets");
  expect_usage_error (CG ("--D1", "32768,8"), "expected SIZE,ASSOC,LINE");
  expect_usage_error (CG ("--D1", "a,b,c"), "expected SIZE,ASSOC,LINE");
  expect_usage_error (CG ("--format", "csv"), "unknown format");
#undef CG
  expect_usage_error ((const char *[]) { "cachesim", "--compat", "dinero", path, NULL },
                      "--compat dinero: expected cachegrind");
  expect_usage_error ((const char *[]) { "cachesim", "--D1", "1024,2,64", path, NULL },
                      "need --compat cachegrind");
  expect_usage_error ((const char *[]) { "cachesim", NULL }, "exactly one TRACE");
  g_unlink (path);
}

static void
test_missing_file (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "cachesim", "--compat", "cachegrind",
                                                          "/nonexistent/trace.din", NULL }), 1);
  tu_assert_contains (err, "slabsim: /nonexistent/trace.din: ");
}

/* Full mode in this branch: the loader may be missing; either way the
 * command must fail cleanly with a configuration error or succeed. */
static void
test_full_mode_clean_exit (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".din", trace_text, -1);
  g_autofree char *err = NULL;
  int rc = tu_run (NULL, &err, (const char *[]) { "cachesim", "--machine", "no-such-machine",
                                                  path, NULL });
  assert_int_equal (rc, 2);
  tu_assert_contains (err, "slabsim: cachesim: ");
  g_unlink (path);
}

/* A trace over many of the reader's batches (4096 accesses) and turns of
 * its ring (8 batches), every line shape, 16 CPUs. */
static char *
long_trace (guint n, guint bad_at, const char *bad)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (12);
  GString *s = g_string_new ("# long\n");
  for (guint i = 2; i <= n; i++)
    {
      if (i == bad_at)
        {
          g_string_append (s, bad);
          continue;
        }
      guint64 a = (guint64) g_rand_int_range (r, 0, 1 << 20) * 8;
      guint k = (guint) g_rand_int_range (r, 0, 100), cpu = (guint) g_rand_int_range (r, 0, 16);
      if (k == 0)
        g_string_append (s, "\n");
      else if (k < 5)
        g_string_append_printf (s, "i %" G_GINT64_MODIFIER "x 4\n", a);
      else if (k < 8)
        g_string_append_printf (s, "m 0x%" G_GINT64_MODIFIER "x 8 %u\n", a, cpu);
      else if (k < 40)
        g_string_append_printf (s, "w %" G_GINT64_MODIFIER "x %x %u\n", a + k % 61, 1 + k % 8,
                                cpu);
      else
        g_string_append_printf (s, "r %" G_GINT64_MODIFIER "x 8 %u\n", a, cpu);
    }
  return g_string_free (s, FALSE);
}

static char *
run_args (const char *const *args, int expect_rc, char **err_out)
{
  char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, args);
  if (rc != expect_rc)
    print_error ("rc %d: %s\n", rc, err);
  assert_int_equal (rc, expect_rc);
  if (err_out)
    *err_out = err;
  else
    g_free (err);
  return out;
}

/* The reader thread changes no byte: --jobs 1 and 2 give the same text
 * and JSON, in Cachegrind mode (small caches, so it misses) and
 * in full mode on a 16-CPU machine; plain, gzip and stdin alike. */
static void
test_threads_same_bytes (void **state)
{
  (void) state;
  g_autofree char *text = long_trace (60000, 0, NULL);
  g_autofree char *path = tu_write_temp (".din", text, -1);
  gsize zlen;
  g_autofree char *z = gzip_bytes (text, strlen (text), &zlen);
  g_autofree char *gz = tu_write_temp (".din.gz", z, (gssize) zlen);
  const char *const modes[][7] = {
    { "--compat", "cachegrind", "--D1", "4096,8,64", "--LL", "65536,16,64", NULL },
    { "--compat", "cachegrind", "--D1", "2048,2,32", "--LL", "16384,4,64", NULL },
    { "--machine", "nehalem-ep-2s", "--per-cpu", NULL },
    { "--machine", "nehalem-ep-2s", NULL },
  };
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    for (guint f = 0; f < 2; f++)
      {
        g_autofree char *base = NULL;
        for (guint j = 0; j < 2; j++)
          {
            g_autoptr (GPtrArray) args = g_ptr_array_new ();
            g_ptr_array_add (args, (gpointer) "cachesim");
            for (guint i = 0; modes[m][i]; i++)
              g_ptr_array_add (args, (gpointer) modes[m][i]);
            g_ptr_array_add (args, (gpointer) (f ? "--format=json" : "--format=text"));
            g_ptr_array_add (args, (gpointer) (j == 0 ? "--jobs=1" : "--jobs=2"));
            g_ptr_array_add (args, (gpointer) (m % 2 ? gz : path));
            g_ptr_array_add (args, NULL);
            g_autofree char *out = run_args ((const char *const *) args->pdata, 0, NULL);
            if (j == 0)
              base = g_steal_pointer (&out);
            else
              assert_string_equal (out, base);
          }
        tu_assert_contains (base, f ? "{\"mode\": " : "data accesses");
      }
  /* Standard input through the reader thread. */
  g_autofree char *a = run_args ((const char *[]) { "cachesim", "--compat", "cachegrind",
                                                    "--jobs", "1", path, NULL }, 0, NULL);
  g_autofree char *b = NULL;
  assert_int_equal (tu_run_stdin (&b, NULL, text, (const char *[]) { "cachesim", "--compat",
                                  "cachegrind", "--jobs", "2", "-", NULL }), 0);
  g_autofree char *a_std = g_strdup (a);
  /* Only the trace's name differs. */
  g_autofree char *name = g_strdup_printf ("trace    %s:", path);
  g_autofree char *fixed = NULL;
  {
    g_auto (GStrv) parts = g_strsplit (a_std, name, 2);
    fixed = g_strjoinv ("trace    <stdin>:", parts);
  }
  assert_string_equal (fixed, b);
  g_unlink (path);
  g_unlink (gz);
}

/* Errors found by the reader thread name their line, deep in the trace,
 * exactly as without it; nothing goes to standard output. */
static void
test_threads_errors_at_line (void **state)
{
  (void) state;
  struct { guint at; const char *bad, *mode, *want; } cases[] = {
    { 77777, "r 1000 0\n", "cachegrind", "expected a hexadecimal size between 1 and ffffffff" },
    { 40961, "w 1000 8 16\n", "full",
      "expected a CPU below 16 (the machine's CPU count), got 16" },
    { 99999, "r 10g0 8\n", "full", "expected a hexadecimal address" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *text = long_trace (cases[c].at + 10, cases[c].at, cases[c].bad);
      g_autofree char *path = tu_write_temp (".din", text, -1);
      g_autofree char *want = g_strdup_printf ("slabsim: %s:%u: %s", path, cases[c].at,
                                               cases[c].want);
      gboolean cg = strcmp (cases[c].mode, "cachegrind") == 0;
      for (guint j = 1; j <= 2; j++)
        {
          g_autofree char *jobs = g_strdup_printf ("--jobs=%u", j);
          const char *args[] = { "cachesim", cg ? "--compat" : "--machine",
                                 cg ? "cachegrind" : "nehalem-ep-2s", jobs, path, NULL };
          g_autofree char *err = NULL;
          g_autofree char *out = run_args (args, 1, &err);
          tu_assert_contains (err, want);
          assert_string_equal (out, "");
        }
      g_unlink (path);
    }
  /* A cut gzip stream through the thread. */
  g_autofree char *text = long_trace (60000, 0, NULL);
  gsize zlen;
  g_autofree char *z = gzip_bytes (text, strlen (text), &zlen);
  g_autofree char *gz = tu_write_temp (".din.gz", z, (gssize) (zlen * 2 / 3));
  g_autofree char *e1 = NULL, *e2 = NULL;
  g_autofree char *o1 = run_args ((const char *[]) { "cachesim", "--compat", "cachegrind",
                                                     "--jobs", "1", gz, NULL }, 1, &e1);
  g_autofree char *o2 = run_args ((const char *[]) { "cachesim", "--compat", "cachegrind",
                                                     "--jobs", "2", gz, NULL }, 1, &e2);
  tu_assert_contains (e2, "truncated or corrupt");
  assert_string_equal (e1, e2);
  g_unlink (gz);
  expect_usage_error ((const char *[]) { "cachesim", "--jobs", "-1", "-", NULL },
                      "--jobs takes a positive number");
}

/* din.c's window hook: truncate the trace before its second window (of
 * 4 MiB) to a size inside it. */
#define SHRINK_TO ((4u << 20) + 1000003)
static void
shrink_at_second_window (const char *name, guint64 offset, gpointer user_data)
{
  (void) name;
  if (offset > 0)
    assert_int_equal (truncate ((const char *) user_data, SHRINK_TO), 0);
}

/* A plain trace that another process truncates while cachesim reads it
 * from its mapping: an error naming the file and where (exit 1, nothing
 * on standard output), not a SIGBUS.  The truncation is made
 * deterministic by din.c's window hook, so the verb runs in a child of
 * this test (sim_cli_main, as main() runs it) rather than through
 * tu_run. */
static void
test_trace_shrinks_while_read (void **state)
{
  (void) state;
  g_autofree char *text = long_trace (600000, 0, NULL);
  gsize len = strlen (text), at = SHRINK_TO;
  assert_true (len > SHRINK_TO + 1000);
  while (text[at - 1] != '\n')
    at--;
  for (guint j = 1; j <= 2; j++)
    {
      g_autofree char *path = tu_write_temp (".din", text, -1);
      g_autofree char *out_path = tu_write_temp (".out", "", 0);
      g_autofree char *err_path = tu_write_temp (".err", "", 0);
      g_autofree char *jobs = g_strdup_printf ("--jobs=%u", j);
      pid_t pid = fork ();
      assert_true (pid >= 0);
      if (pid == 0)
        {
          int o = open (out_path, O_WRONLY | O_TRUNC), e = open (err_path, O_WRONLY | O_TRUNC);
          if (o < 0 || e < 0 || dup2 (o, 1) < 0 || dup2 (e, 2) < 0)
            _exit (99);
          sim_din_set_window_hook (shrink_at_second_window, path);
          char *argv[] = { (char *) "slabsim", (char *) "cachesim", (char *) "--compat",
                           (char *) "cachegrind", jobs, path, NULL };
          int rc = sim_cli_main (6, argv);
          fflush (stdout);
          fflush (stderr);
          _exit (rc);
        }
      int status = 0;
      assert_int_equal (waitpid (pid, &status, 0), pid);
      assert_true (WIFEXITED (status));
      assert_int_equal (WEXITSTATUS (status), 1);
      g_autofree char *out = NULL, *err = NULL;
      assert_true (g_file_get_contents (out_path, &out, NULL, NULL));
      assert_true (g_file_get_contents (err_path, &err, NULL, NULL));
      g_autofree char *want = g_strdup_printf ("slabsim: %s: file shrank while being read "
                                               "(at byte %" G_GSIZE_FORMAT "; %" G_GSIZE_FORMAT
                                               " bytes when opened, %u now)\n",
                                               path, at, len, SHRINK_TO);
      assert_string_equal (err, want);
      assert_string_equal (out, "");
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_json_shape),
    cmocka_unit_test (test_text_shape),
    cmocka_unit_test (test_gzip_and_stdin_equal_plain),
    cmocka_unit_test (test_bad_lines),
    cmocka_unit_test (test_cut_line),
    cmocka_unit_test (test_truncated_gzip),
    cmocka_unit_test (test_bad_geometry_options),
    cmocka_unit_test (test_missing_file),
    cmocka_unit_test (test_full_mode_clean_exit),
    cmocka_unit_test (test_threads_same_bytes),
    cmocka_unit_test (test_threads_errors_at_line),
    cmocka_unit_test (test_trace_shrinks_while_read),
  };
  return cmocka_run_group_tests_name ("cache-cachesim-cli", tests, NULL, NULL);
}
