/* test-gen-replay.c - what "trace gen" writes, every allocator model
 * replays with its invariant checker on: each workload, in the trace
 * format of an old and a modern kernel. */
#include "tests/testutil.h"

#include <glib/gstdio.h>

static void
test_generated_traces_replay (void **state)
{
  (void) state;
  const char *workloads[] = { "hackbench", "netperf-udp", "tbench", "kbuild" };
  const char *kernels[] = { "2.6.34", "6.18" };
  const char *allocators[] = { "slub@2.6.34", "slub@6.18", "slqb" };
  for (guint w = 0; w < G_N_ELEMENTS (workloads); w++)
    for (guint k = 0; k < G_N_ELEMENTS (kernels); k++)
      {
        g_autofree char *trace = tu_write_temp (".txt.gz", "", 0);
        g_autofree char *err = NULL;
        int rc = tu_run (NULL, &err, (const char *[]) { "trace", "gen", workloads[w], "--cpus", "8",
                                                        "--kernel", kernels[k], "--loops", "5",
                                                        "-o", trace, NULL });
        if (rc != 0)
          print_error ("gen %s %s: %s\n", workloads[w], kernels[k], err);
        assert_int_equal (rc, 0);
        for (guint a = 0; a < G_N_ELEMENTS (allocators); a++)
          {
            g_autofree char *out = NULL, *err2 = NULL;
            rc = tu_run (&out, &err2, (const char *[]) { "run", "--check", "--check-every", "1000",
                                                         "-a", allocators[a], trace, NULL });
            if (rc != 0)
              print_error ("run %s on %s %s: %s\n", allocators[a], workloads[w], kernels[k], err2);
            assert_int_equal (rc, 0);
            tu_assert_contains (out, "Replay: ");
          }
        g_unlink (trace);
      }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_generated_traces_replay),
  };
  return cmocka_run_group_tests_name ("gen-replay", tests, NULL, NULL);
}
