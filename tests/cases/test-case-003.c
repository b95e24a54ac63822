/* test-case-003.c - docs/case-studies/003-hackbench-this-cpu.md: SLUB of
 * 2.6.33 against 2.6.34 (commit 9dfc6e68bfe6e, this_cpu operations) on
 * hackbench, in L1d misses. */
#include "tests/cases/case-util.h"

static const char kmalloc1k[] = "\"name\": \"kmalloc-1024\"";

static void
test_hackbench_generated (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("hackbench", "2.6.33",
                                   (const char *[]) { "--cpus", "16", "--groups", "8", "--loops",
                                                      "50", "--machine-sockets", "2", NULL });
  g_autofree char *a = cu_run (trace, "nehalem-ep-2s", "line", "slub@2.6.33");
  g_autofree char *b = cu_run (trace, "nehalem-ep-2s", "line", "slub@2.6.34");
  double la = cu_l1_misses (a), lb = cu_l1_misses (b);
  double ka = cu_l1_of (a, "cache_meta"), kb = cu_l1_of (b, "cache_meta");
  double ca = cu_cycles (a), cb = cu_cycles (b);
  g_printerr ("hackbench 16 CPUs: L1d misses %.0f -> %.0f (%+.1f%%); kmem_cache misses %.0f -> %.0f;"
              " allocator cycles %+.1f%%\n", la, lb, 100 * (lb - la) / la, ka, kb,
              100 * (cb - ca) / ca);
  /* The page: +8 to +20 % allocator L1d misses (the seed: +4.3 % over the
   * whole system), kmem_cache's misses at least 4x, allocator cycles +2
   * to +10 % (the seed: hackbench 3-7 % slower), the same fast-path rates
   * (the commit changed where things are, not which path is taken). */
  assert_true (lb >= 1.08 * la && lb <= 1.20 * la);
  assert_true (kb >= 4 * ka);
  assert_true (cb >= 1.02 * ca && cb <= 1.10 * ca);
  /* The fast-path rates stay close, not equal: get_any_partial gates on
   * get_cycles() (the simulated clock) and CPUs interleave by simulated
   * time, so a change of costs alone moves which allocations find a
   * partial slab.  PROVISIONAL: 2 points until case study 003 is retaken
   * with the current model and says where this bound comes from. */
  gint64 fa = tu_json_uint (a, kmalloc1k, "alloc_fast_pct"), fb = tu_json_uint (b, kmalloc1k, "alloc_fast_pct");
  gint64 ga = tu_json_uint (a, kmalloc1k, "free_fast_pct"), gb = tu_json_uint (b, kmalloc1k, "free_fast_pct");
  assert_true (ABS (fa - fb) <= 2);
  assert_true (ABS (ga - gb) <= 2);
  g_unlink (trace);
}

static void
test_hackbench_recorded (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/hackbench-T-g2-l50.trace.gz");
  g_autofree char *a = cu_run (trace, "nehalem-ep-2s", "line", "slub@2.6.33");
  g_autofree char *b = cu_run (trace, "nehalem-ep-2s", "line", "slub@2.6.34");
  double la = cu_l1_misses (a), lb = cu_l1_misses (b);
  g_printerr ("hackbench-T-g2-l50: L1d misses %.0f -> %.0f (%+.1f%%)\n", la, lb,
              100 * (lb - la) / la);
  /* The page: +1 to +5 %. */
  assert_true (lb >= 1.01 * la && lb <= 1.05 * la);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_hackbench_generated),
    cmocka_unit_test (test_hackbench_recorded),
  };
  return cmocka_run_group_tests_name ("case-003-hackbench", tests, NULL, NULL);
}
