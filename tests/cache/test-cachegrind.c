/* test-cachegrind.c - Cachegrind cross-check (caches.md §2): build the
 * shared walk.c, write its address trace natively, run the same walk under
 * valgrind --tool=cachegrind, read the counts of the loop's own source line
 * (as run.sh does) and require "slabsim cachesim --compat cachegrind" to
 * give the same six counters exactly, for an aligned stream (geometry A)
 * and a line-straddling one (geometry B, OFFSET 60). */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#define NLINES "32768"
#define NACC   "300000"
#define SEED   "12345"
#define WPCT   "30"

static const char *const counter_names[] = { "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw" };

typedef struct {
  char *dir;        /* temporary directory */
  char *walk;       /* built walk executable */
  char *walk_src;
  int   loop_line;
} Fixture;

static Fixture fx;

static gboolean
run_argv (const char *const *argv, char **out, GError **error)
{
  int status = 0;
  char *err = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                     out, &err, &status, error))
    return FALSE;
  gboolean ok = g_spawn_check_wait_status (status, error);
  if (!ok)
    print_error ("%s failed:\n%s\n", argv[0], err ? err : "");
  g_free (err);
  return ok;
}

/* The source line of the loop's store, as run.sh finds it. */
static int
find_loop_line (const char *src)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (src, &text, NULL, NULL))
    return -1;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (int i = 0; lines[i]; i++)
    if (strstr (lines[i], "volatile uint64_t *)p = x"))
      return i + 1;
  return -1;
}

/* Sum the events of @line within fn=walk of a cachegrind.out file. */
static gboolean
read_cachegrind (const char *path, int line, guint64 out[6])
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  int col[6] = { -1, -1, -1, -1, -1, -1 };
  gboolean in_walk = FALSE, found = FALSE;
  memset (out, 0, 6 * sizeof (guint64));
  for (int i = 0; lines[i]; i++)
    {
      const char *l = lines[i];
      if (g_str_has_prefix (l, "events:"))
        {
          g_auto (GStrv) ev = g_strsplit_set (l + 7, " ", -1);
          int k = 0;
          for (int j = 0; ev[j]; j++)
            {
              if (!*ev[j])
                continue;
              for (int c = 0; c < 6; c++)
                if (strcmp (ev[j], counter_names[c]) == 0)
                  col[c] = k;
              k++;
            }
        }
      else if (g_str_has_prefix (l, "fn="))
        in_walk = strcmp (l + 3, "walk") == 0;
      else if (in_walk && g_ascii_isdigit (l[0]))
        {
          g_auto (GStrv) f = g_strsplit (l, " ", -1);
          if (atoi (f[0]) != line)
            continue;
          found = TRUE;
          guint n = g_strv_length (f);
          for (int c = 0; c < 6; c++)
            if (col[c] >= 0 && (guint) col[c] + 1 < n)
              out[c] += g_ascii_strtoull (f[col[c] + 1], NULL, 10);
        }
    }
  for (int c = 0; c < 6; c++)
    if (col[c] < 0)
      return FALSE;
  return found;
}

static void
cross_check (const char *d1, const char *ll, const char *offset)
{
  GError *error = NULL;
  g_autofree char *trace = g_build_filename (fx.dir, "trace.txt", NULL);
  g_autofree char *cgout = g_build_filename (fx.dir, "cg.out", NULL);
  /* Native run: writes the trace (the buffer is 4 MiB aligned, so the
   * different base address under valgrind maps every line to the same set). */
  const char *walk_argv[] = { fx.walk, NLINES, NACC, SEED, WPCT, offset, "8", trace, NULL };
  assert_true (run_argv (walk_argv, NULL, &error));
  g_autofree char *d1opt = g_strdup_printf ("--D1=%s", d1);
  g_autofree char *llopt = g_strdup_printf ("--LL=%s", ll);
  g_autofree char *outopt = g_strdup_printf ("--cachegrind-out-file=%s", cgout);
  const char *vg_argv[] = { "valgrind", "--tool=cachegrind", "--cache-sim=yes",
                            "--I1=32768,8,64", d1opt, llopt, outopt, fx.walk, NLINES,
                            NACC, SEED, WPCT, offset, "8", "-", NULL };
  assert_true (run_argv (vg_argv, NULL, &error));
  guint64 want[6] = { 0 };
  assert_true (read_cachegrind (cgout, fx.loop_line, want));
  g_autofree char *out = NULL;
  int rc = tu_run (&out, NULL, (const char *[]) { "cachesim", "--compat", "cachegrind",
                                                  "--D1", d1, "--LL", ll, "--format", "json",
                                                  trace, NULL });
  assert_int_equal (rc, 0);
  for (int c = 0; c < 6; c++)
    {
      guint64 got = tu_json_uint (out, NULL, counter_names[c]);
      if (got != want[c])
        print_error ("%s: slabsim %" G_GUINT64_FORMAT ", cachegrind %" G_GUINT64_FORMAT "\n",
                     counter_names[c], got, want[c]);
      assert_int_equal (got, want[c]);
    }
  /* Not a vacuous comparison: the stream misses at both levels. */
  assert_true (want[1] > 0 && want[2] > 0 && want[4] > 0 && want[5] > 0);
  g_unlink (trace);
  g_unlink (cgout);
}

static void
test_geometry_a_aligned (void **state)
{
  (void) state;
  cross_check ("32768,8,64", "1048576,16,64", "0");
}

static void
test_geometry_b_straddling (void **state)
{
  (void) state;
  cross_check ("16384,4,64", "262144,8,64", "60");
}

static const char *
skip_reason (void)
{
  static char reason[256];
  g_autofree char *vg = g_find_program_in_path ("valgrind");
  g_autofree char *cc = g_find_program_in_path ("cc");
  if (vg == NULL)
    return "valgrind not installed";
  if (cc == NULL)
    return "no C compiler (cc)";
  fx.walk_src = g_build_filename (tu_shared_dir (), "validation", "cachegrind", "walk.c", NULL);
  if (!g_file_test (fx.walk_src, G_FILE_TEST_EXISTS))
    {
      g_snprintf (reason, sizeof reason, "%s not found", fx.walk_src);
      return reason;
    }
  fx.loop_line = find_loop_line (fx.walk_src);
  if (fx.loop_line < 0)
    return "walk.c has no loop store line";
  GError *error = NULL;
  fx.dir = g_dir_make_tmp ("slabsim-cg-XXXXXX", &error);
  if (fx.dir == NULL)
    return "cannot make a temporary directory";
  fx.walk = g_build_filename (fx.dir, "walk", NULL);
  const char *cc_argv[] = { "cc", "-O2", "-g", "-o", fx.walk, fx.walk_src, NULL };
  if (!run_argv (cc_argv, NULL, &error))
    return "cannot build walk.c";
  return NULL;
}

int
main (void)
{
  const char *why = skip_reason ();
  if (why)
    {
      printf ("1..0 # SKIP %s\n", why);
      return 0;
    }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_geometry_a_aligned),
    cmocka_unit_test (test_geometry_b_straddling),
  };
  int rc = cmocka_run_group_tests_name ("cache-cachegrind", tests, NULL, NULL);
  g_unlink (fx.walk);
  g_rmdir (fx.dir);
  g_free (fx.walk);
  g_free (fx.dir);
  g_free (fx.walk_src);
  return rc;
}
