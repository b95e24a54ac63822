/* test-stdin.c - a trace piped to standard input ("-") reads as the same
 * trace in a file would, although run and validate read it more than once
 * (sim/core/stdin.h spools the pipe).  The trace is far bigger than a pipe
 * buffer, so a second read of the pipe itself would find it drained. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <string.h>

static char *text;    /* a generated trace, ftrace text */
static char *path;    /* the same bytes in a file */

static int
setup (void **state)
{
  (void) state;
  if (tu_run (&text, NULL, (const char *[]) { "trace", "gen", "hackbench", "--seed", "1",
                                              "--loops", "20", "-o", "-", NULL }) != 0)
    return -1;
  path = tu_write_temp (".txt", text, -1);
  return 0;
}

static int
teardown (void **state)
{
  (void) state;
  g_unlink (path);
  g_free (path);
  g_free (text);
  return 0;
}

static void
test_run_pipe_equals_file (void **state)
{
  (void) state;
  assert_true (strlen (text) > 1 << 20);
  g_autofree char *piped = NULL, *file = NULL, *err = NULL;
  assert_int_equal (tu_run_stdin (&piped, &err, text, (const char *[]) { "run", "-a", "slub@6.18",
                                                                         "-a", "slab", "-", NULL }), 0);
  assert_int_equal (tu_run (&file, NULL, (const char *[]) { "run", "-a", "slub@6.18", "-a", "slab",
                                                            path, NULL }), 0);
  assert_string_equal (tu_after_first_line (piped), tu_after_first_line (file));
}

static void
test_run_json_pipe_provenance (void **state)
{
  (void) state;
  g_autofree char *piped = NULL, *file = NULL;
  assert_int_equal (tu_run_stdin (&piped, NULL, text, (const char *[]) { "run", "--format", "json",
                                                                         "-", NULL }), 0);
  assert_int_equal (tu_run (&file, NULL, (const char *[]) { "run", "--format", "json", path, NULL }), 0);
  /* The hash is of the bytes that came down the pipe: the file's. */
  g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
  tu_assert_contains (piped, sum);
  tu_assert_contains (file, sum);
}

static void
test_validate_pipe (void **state)
{
  (void) state;
  g_autofree char *piped = NULL, *file = NULL;
  assert_int_equal (tu_run_stdin (&piped, NULL, text, (const char *[]) { "validate", "-", NULL }), 0);
  assert_int_equal (tu_run (&file, NULL, (const char *[]) { "validate", path, NULL }), 0);
  /* Every line but those naming the trace agrees. */
  g_auto (GStrv) a = g_strsplit (piped, "\n", -1), b = g_strsplit (file, "\n", -1);
  assert_int_equal (g_strv_length (a), g_strv_length (b));
  guint same = 0;
  for (guint i = 0; a[i]; i++)
    if (strcmp (a[i], b[i]) == 0)
      same++;
    else
      assert_true (strstr (b[i], path) != NULL);
  assert_true (same > 3);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_run_pipe_equals_file),
    cmocka_unit_test (test_run_json_pipe_provenance),
    cmocka_unit_test (test_validate_pipe),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
