/* test-machine-probe-real.c - "slabsim machine probe --no-measure" on this
 * host's /sys, loaded back with "machine show".  Skipped where /sys has no
 * cache information (not Linux, or a container hiding it).  Nothing timed. */
#include "tests/testutil.h"
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

static void
test_probe_host (void **state)
{
  (void) state;
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "machine", "probe", "--no-measure", NULL });
  if (rc != 0)
    fprintf (stderr, "%s", err);
  assert_int_equal (rc, 0);
  tu_assert_contains (out, "  L1d:\n");
  /* Every CPU sysfs lists is in the topology. */
  guint n = 0;
  for (;; n++)
    {
      g_autofree char *d = g_strdup_printf ("/sys/devices/system/cpu/cpu%u/topology", n);
      if (!g_file_test (d, G_FILE_TEST_IS_DIR))
        break;
    }
  const char *s = strstr (out, "  sockets: "), *c = strstr (out, "  cores_per_socket: "),
             *t = strstr (out, "  threads_per_core: ");
  assert_non_null (s);
  assert_non_null (c);
  assert_non_null (t);
  guint64 product = g_ascii_strtoull (s + 11, NULL, 10) * g_ascii_strtoull (c + 20, NULL, 10)
                    * g_ascii_strtoull (t + 20, NULL, 10);
  assert_int_equal (product, n);
  g_autofree char *path = tu_write_temp (".yaml", out, -1);
  g_autofree char *shown = NULL;
  assert_int_equal (tu_run (&shown, NULL, (const char *[]) { "machine", "show", path, NULL }), 0);
  tu_assert_contains (shown, "  sockets: ");
  g_unlink (path);
}

int
main (void)
{
  const char *probe = "/sys/devices/system/cpu/cpu0/cache/index0/size";
  if (!g_file_test (probe, G_FILE_TEST_EXISTS))
    {
      printf ("1..0 # SKIP %s not found: no cache information in /sys\n", probe);
      return 0;
    }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_probe_host),
  };
  return cmocka_run_group_tests_name ("machine-probe-real", tests, NULL, NULL);
}
