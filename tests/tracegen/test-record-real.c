/* test-record-real.c - "slabsim record" on the real tracefs: only as root
 * with a tracefs that exists and is writable (CI may be a container
 * without one); otherwise the whole executable is skipped, saying why.
 * The second test records through trace-cmd (skipped without it). */
#include "tests/testutil.h"
#include "traces/reader.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

static const char *
tracefs_root (void)
{
  if (g_file_test ("/sys/kernel/tracing/trace", G_FILE_TEST_EXISTS))
    return "/sys/kernel/tracing";
  if (g_file_test ("/sys/kernel/debug/tracing/trace", G_FILE_TEST_EXISTS))
    return "/sys/kernel/debug/tracing";
  return NULL;
}

static void
test_record_true (void **state)
{
  (void) state;
  g_autofree char *out = tu_write_temp (".trace.gz", "", 0);
  g_autofree char *err = NULL;
  int st = tu_run (NULL, &err, (const char *[]) { "record", "-o", out, "--buffer-kb", "4096",
                                                  "--", "ls", "/", NULL });
  if (st != 0)
    print_error ("stderr: %s\n", err);
  assert_int_equal (st, 0);
  tu_assert_contains (err, "lost events: ");
  g_autoptr (GFile) f = g_file_new_for_path (out);
  g_autoptr (GFileInputStream) in = g_file_read (f, NULL, NULL);
  assert_non_null (in);
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) cin = g_converter_input_stream_new (G_INPUT_STREAM (in), G_CONVERTER (z));
  g_autoptr (GDataInputStream) d = g_data_input_stream_new (cin);
  g_autofree char *first = g_data_input_stream_read_line (d, NULL, NULL, NULL);
  assert_non_null (first);
  assert_string_equal (first, "# tracer: nop");
  guint kmem = 0, other = 0;
  for (;;)
    {
      g_autofree char *l = g_data_input_stream_read_line (d, NULL, NULL, NULL);
      if (l == NULL)
        break;
      if (l[0] == '#' || strstr (l, "[LOST ") || l[0] == '\0')
        continue;
      if (g_regex_match_simple ("\\] .* (kmalloc|kfree|kmem_cache_alloc|kmem_cache_free|"
                                "mm_page_alloc|mm_page_free|mm_page_free_batched|"
                                "mm_page_pcpu_drain): ", l, 0, 0))
        {
          kmem++;
          /* nohash-ptr was on while the text was formatted */
          if (strstr (l, " ptr=0000000") && !strstr (l, " ptr=0000000000000000"))
            {
              print_error ("hashed pointer in: %s\n", l);
              fail ();
            }
        }
      else
        other++;
    }
  assert_int_equal (other, 0);
  fprintf (stderr, "# %u kmem lines recorded\n", kmem);
  /* What record writes, the readers read and the models replay. */
  g_autofree char *err2 = NULL;
  st = tu_run (NULL, &err2, (const char *[]) { "trace", "info", out, NULL });
  if (st != 0)
    print_error ("trace info: %s\n", err2);
  assert_int_equal (st, 0);
  g_clear_pointer (&err2, g_free);
  st = tu_run (NULL, &err2, (const char *[]) { "run", "--check", "--machine", "nehalem-ep-2s",
                                               out, NULL });
  if (st != 0)
    print_error ("run: %s\n", err2);
  assert_int_equal (st, 0);
  g_unlink (out);
}

/* --via trace-cmd on the real tracefs: a trace.dat of kmem events that
 * the reader reads. */
static void
test_record_via_tracecmd (void **state)
{
  (void) state;
  g_autofree char *tc = g_find_program_in_path ("trace-cmd");
  if (tc == NULL)
    {
      fprintf (stderr, "# trace-cmd is not installed: --via trace-cmd not tried\n");
      skip ();
    }
  g_autofree char *dir = g_dir_make_tmp ("slabsim-record-real-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "t.dat", NULL);
  g_autofree char *err = NULL;
  int st = tu_run (NULL, &err, (const char *[]) { "record", "--via", "trace-cmd", "-o", out,
                                                  "--buffer-kb", "4096", "--", "ls", "/", NULL });
  if (st != 0)
    print_error ("stderr: %s\n", err);
  assert_int_equal (st, 0);
  tu_assert_contains (err, "(trace-cmd extract)");
#ifdef HAVE_LIBTRACECMD
  GError *error = NULL;
  g_autoptr (SimTraceReader) r = sim_trace_reader_open (out, &error);
  assert_null (error);
  assert_int_equal (sim_trace_reader_format (r), SIM_TRACE_FORMAT_TRACE_CMD_DAT);
  SimTraceEvent ev;
  guint64 n = 0;
  while (sim_trace_reader_next (r, &ev, &error))
    n++;
  assert_null (error);
  assert_true (n > 0);
  /* only the kmem events we enabled were recorded */
  assert_int_equal (g_hash_table_size (sim_trace_reader_stats (r)->other_events), 0);
  fprintf (stderr, "# %" G_GUINT64_FORMAT " kmem events in the trace.dat\n", n);
#endif
  g_unlink (out);
  g_rmdir (dir);
}

int
main (void)
{
  const char *root = tracefs_root ();
  if (geteuid () != 0)
    {
      printf ("1..0 # SKIP not root: record needs root for tracefs writes\n");
      return 0;
    }
  if (root == NULL)
    {
      printf ("1..0 # SKIP no tracefs at /sys/kernel/tracing or /sys/kernel/debug/tracing "
              "(a container without tracefs?)\n");
      return 0;
    }
  g_autofree char *on = g_build_filename (root, "tracing_on", NULL);
  if (access (on, W_OK) != 0)
    {
      printf ("1..0 # SKIP %s is not writable (read-only tracefs)\n", on);
      return 0;
    }
  g_autofree char *ev = g_build_filename (root, "events/kmem/kmalloc/enable", NULL);
  if (!g_file_test (ev, G_FILE_TEST_EXISTS))
    {
      printf ("1..0 # SKIP this kernel has no kmem:kmalloc event under %s\n", root);
      return 0;
    }
  g_unsetenv ("SLABSIM_TRACEFS");
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_record_true),
    cmocka_unit_test (test_record_via_tracecmd),
  };
  return cmocka_run_group_tests_name ("record-real", tests, NULL, NULL);
}
