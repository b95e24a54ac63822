/* test-perf-data.c - a perf.data replays exactly as the text `perf script`
 * prints for it (traces/reader-perf.c runs perf script and reads its text).
 *
 * The samples were recorded as root on a 2-CPU 6.18 guest
 * (traces/samples/README.md): true-a.perf.data, system-wide (`-a`, file
 * mode), and true-pipe.perf.data, the pipe mode of `perf record -o -`.
 * Needs perf on the PATH (not root): skipped, with the reason, without it. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <string.h>

static char *perf;

/* `perf script -i DATA`, as a user would convert it, into a new temporary file. */
static char *
perf_script (const char *data)
{
  char *out = NULL, *err = NULL;
  int status = -1;
  assert_true (g_spawn_sync (NULL, (char *[]) { perf, "script", "-i", (char *) data, NULL }, NULL,
                             0, NULL, NULL, &out, &err, &status, NULL));
  if (!g_spawn_check_wait_status (status, NULL))
    print_error ("perf script -i %s: %s\n", data, err);
  assert_true (g_spawn_check_wait_status (status, NULL));
  g_free (err);
  assert_true (strlen (out) > 1000);
  char *path = tu_write_temp (".perf-script", out, -1);
  g_free (out);
  return path;
}

static void
same_replay (const char *sample)
{
  g_autofree char *data = tu_source_path (sample);
  g_autofree char *text = perf_script (data);
  const char *args[][6] = {
    { "run", "-a", "slub@6.18", "-a", "slab", NULL },
    { "trace", "info", "--caller", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (args); i++)
    {
      const char *a[8] = { 0 }, *b[8] = { 0 };
      guint n = 0;
      for (; args[i][n]; n++)
        a[n] = b[n] = args[i][n];
      a[n] = data;
      b[n] = text;
      g_autofree char *from_data = NULL, *from_text = NULL, *err = NULL;
      int st = tu_run (&from_data, &err, a);
      if (st != 0)
        print_error ("%s\n", err);
      assert_int_equal (st, 0);
      assert_int_equal (tu_run (&from_text, NULL, b), 0);
      assert_string_equal (tu_after_first_line (from_data), tu_after_first_line (from_text));
    }
  g_unlink (text);
}

static void
test_file_mode_same_as_text (void **state)
{
  (void) state;
  same_replay ("traces/samples/true-a.perf.data");
}

static void
test_pipe_mode_same_as_text (void **state)
{
  (void) state;
  same_replay ("traces/samples/true-pipe.perf.data");
}

/* Converted once to the native format, it replays the same again. */
static void
test_convert_to_native (void **state)
{
  (void) state;
  g_autofree char *data = tu_source_path ("traces/samples/true-a.perf.data");
  g_autofree char *native = tu_write_temp (".slabtr", "", 0);
  assert_int_equal (tu_run (NULL, NULL, (const char *[]) { "trace", "convert", data, "-o", native,
                                                           NULL }), 0);
  g_autofree char *a = NULL, *b = NULL;
  assert_int_equal (tu_run (&a, NULL, (const char *[]) { "run", data, NULL }), 0);
  assert_int_equal (tu_run (&b, NULL, (const char *[]) { "run", native, NULL }), 0);
  assert_string_equal (tu_after_first_line (a), tu_after_first_line (b));
  g_unlink (native);
}

/* A truncated perf.data: perf's own complaint, not a short trace. */
static void
test_truncated (void **state)
{
  (void) state;
  g_autofree char *data = tu_source_path ("traces/samples/true-a.perf.data");
  g_autofree char *bytes = NULL;
  gsize len;
  assert_true (g_file_get_contents (data, &bytes, &len, NULL));
  g_autofree char *cut = tu_write_temp (".perf.data", bytes, len / 4);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "run", cut, NULL }), 1);
  g_autofree char *want = g_strdup_printf ("slabsim: %s: perf script failed (exit status ", cut);
  tu_assert_contains (err, want);
  assert_string_equal (out, "");
  g_unlink (cut);
}

int
main (void)
{
  perf = g_find_program_in_path ("perf");
  if (perf == NULL)
    {
      printf ("1..0 # SKIP perf is not on the PATH (a perf.data is read through perf script)\n");
      return 0;
    }
  /* Debian's /usr/bin/perf is a wrapper that fails when no perf matches
   * the running kernel: that perf cannot read anything either. */
  int status = -1;
  g_autofree char *err = NULL;
  if (!g_spawn_sync (NULL, (char *[]) { perf, "version", NULL }, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                     NULL, NULL, NULL, &err, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_strdelimit (err, "\n", ' ');
      printf ("1..0 # SKIP %s does not run here: %s\n", perf, err ? err : "");
      return 0;
    }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_file_mode_same_as_text),
    cmocka_unit_test (test_pipe_mode_same_as_text),
    cmocka_unit_test (test_convert_to_native),
    cmocka_unit_test (test_truncated),
  };
  int rc = cmocka_run_group_tests (tests, NULL, NULL);
  g_free (perf);
  return rc;
}
