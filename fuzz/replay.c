/* replay.c - a standalone driver for the fuzz targets: runs
 * LLVMFuzzerTestOneInput over every file of the corpus directories given on
 * the command line, so the corpus is a regression test in every build
 * (including the sanitizer build) without libFuzzer. */
#include "tests/testutil.h"
#include "fuzz/fuzz-common.h"

#include <string.h>

static char **dirs;

static void
test_replay_corpus (void **state)
{
  (void) state;
  guint files = 0;
  for (char **d = dirs; *d; d++)
    {
      g_autoptr (GDir) dir = g_dir_open (*d, 0, NULL);
      assert_non_null (dir);
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;
      while ((name = g_dir_read_name (dir)) != NULL)
        if (name[0] != '.')
          g_ptr_array_add (names, g_strdup (name));
      for (guint i = 0; i < names->len; i++)
        {
          g_autofree char *path = g_build_filename (*d, g_ptr_array_index (names, i), NULL);
          g_autofree char *data = NULL;
          gsize len;
          assert_true (g_file_get_contents (path, &data, &len, NULL));
          assert_int_equal (LLVMFuzzerTestOneInput ((const uint8_t *) data, len), 0);
          files++;
        }
    }
  /* the corpus is there: a missing directory must not pass silently */
  assert_true (files >= 20);
}

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) d = g_ptr_array_new ();
  for (int i = 1; i < argc; i++)
    g_ptr_array_add (d, argv[i]);
  g_ptr_array_add (d, NULL);
  dirs = (char **) d->pdata;
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_replay_corpus),
  };
  return cmocka_run_group_tests_name ("fuzz-replay", tests, NULL, NULL);
}
