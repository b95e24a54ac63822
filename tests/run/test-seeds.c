/* test-seeds.c - the seed threads' numbers that the SLUB model must show
 * (shared/seeds/): generated traces of the seed workloads replayed on a
 * 16-CPU Nehalem-EP. */
#include "tests/testutil.h"

#include <string.h>
#include <glib/gstdio.h>

static char *
run_mapped (const char *trace, const char *spec, const char *cpu_map)
{
  char *out = NULL;
  g_autofree char *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "run", "--check", "--format", "json",
                                                  "--machine", "nehalem-ep-2s",
                                                  "--cpu-map", cpu_map, "-a", spec,
                                                  trace, NULL });
  if (rc != 0)
    {
      print_error ("run: %s\n", err);
      fail ();
    }
  return out;
}

/* The default placement (compact: socket 0 first). */
static char *
run (const char *trace, const char *spec)
{
  return run_mapped (trace, spec, "compact");
}

/* Seed 003 (hackbench, 2.6.34-rc1 on a 2-socket Nehalem): slabinfo showed
 * :t-0001024 and :t-0000256 with 94% alloc and 1% free fastpath.  The
 * trace is generated with 2.6.33's skb sizes — 34-rc1 still had them —
 * which put 100-byte messages' data in kmalloc-1024. */
static void
test_seed_003_hackbench_shape (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("hackbench", "2.6.33",
                                         (const char *[]) { "--cpus", "16",
                                                            "--groups", "4", "--loops", "20", NULL });
  g_autofree char *js = run (trace, "slub@2.6.34");
  const char *data = "\"name\": \"kmalloc-1024\"";
  guint64 afast = tu_json_uint (js, data, "alloc_fast_pct");
  guint64 ffast = tu_json_uint (js, data, "free_fast_pct");
  g_printerr ("kmalloc-1024: alloc fastpath %" G_GUINT64_FORMAT "%%, free fastpath %"
                 G_GUINT64_FORMAT "%%\n", afast, ffast);
  assert_true (afast >= 80);
  assert_true (ffast <= 10);
  assert_int_equal (tu_json_uint (js, data, "order"), 3);
  assert_int_equal (tu_json_uint (js, data, "objs_per_slab"), 32);
  /* The skb heads merge with kmalloc-256. */
  const char *head = "\"name\": \":t-0000256\"";
  assert_int_equal (tu_json_uint (js, head, "order"), 1);
  assert_true (tu_json_uint (js, head, "alloc_fast_pct") >= 80);
  g_unlink (trace);
}

/* Seed 000 (tbench, 2.6.23 on 16 CPUs): kmalloc-4096 was order 1 with 2
 * objects per slab; slub_max_order=3,slub_min_objects=8 makes it order 3
 * with 8, and more of its allocations take the fast path. */
static void
test_seed_000_tbench_orders (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("tbench", "2.6.23",
                                         (const char *[]) { "--cpus", "16",
                                                            "--groups", "8", "--loops", "100", NULL });
  g_autofree char *a = run (trace, "slub@2.6.23");
  g_autofree char *b = run (trace, "slub@2.6.23:slub_max_order=3,slub_min_objects=8");
  const char *k = "\"name\": \"kmalloc-4096\"";
  assert_int_equal (tu_json_uint (a, k, "order"), 1);
  assert_int_equal (tu_json_uint (a, k, "objs_per_slab"), 2);
  assert_int_equal (tu_json_uint (b, k, "order"), 3);
  assert_int_equal (tu_json_uint (b, k, "objs_per_slab"), 8);
  guint64 fa = tu_json_uint (a, k, "alloc_fast_pct"), fb = tu_json_uint (b, k, "alloc_fast_pct");
  g_printerr ("kmalloc-4096 alloc fastpath: %" G_GUINT64_FORMAT "%% at order 1, %"
                 G_GUINT64_FORMAT "%% at order 3\n", fa, fb);
  assert_true (fb > fa);
  g_unlink (trace);
}

static guint64
op_cycles (const char *js)
{
  return tu_json_uint (js, "\"timing\": {", "alloc_cycles_total")
         + tu_json_uint (js, "\"timing\": {", "free_cycles_total");
}

/* Seed 002 (netperf UDP-U-4k, 2009): with SLUB's page-allocator
 * pass-through of the 8 KiB skb data buffers SLAB ran far faster; keeping
 * 8 KiB objects in slabs (2.6.30's SLUB_MAX_SIZE = 2 pages) nearly closed
 * the gap.  On the 2009 pattern (sender and receiver on two CPUs, the
 * receiver freeing; trace gen netperf-udp --kernel 2.6.30) the model
 * shows both; on the recorded 6.18 trace, whose UDP path frees on the
 * sending CPU, pass-through still costs more than SLAB
 * (docs/case-studies/002-netperf-udp-4k.md). */
static void
test_seed_002_netperf_pass_through (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("netperf-udp", "2.6.30",
                                         (const char *[]) { "--cpus", "16",
                                                            "--loops", "5000", NULL });
  /* The window below was set with the machine's own numbering, which puts
   * the pair's CPUs 0 and 1 on the two sockets of nehalem-ep-2s (every
   * free crosses the interconnect); the seed does not say where its pairs
   * ran.  With the compact default (both on socket 0) slub comes out at
   * 0.88x slab: reported (issue 11 item 5), not widened. */
  g_autofree char *slab = run_mapped (trace, "slab", "0-15");
  g_autofree char *slub = run_mapped (trace, "slub@2.6.34", "0-15");
  g_autofree char *pass = run_mapped (trace, "slub@2.6.34:pass_through=4096", "0-15");
  double s = (double) op_cycles (slab), u = (double) op_cycles (slub), p = (double) op_cycles (pass);
  g_printerr ("netperf-udp 2.6.30 pattern: slab %.0f, slub %.0f (%.2fx), pass-through %.0f (%.2fx)\n",
              s, u, u / s, p, p / s);
  assert_true (p >= 1.15 * s);
  assert_true (u <= 1.10 * s && u >= 0.90 * s);
  g_unlink (trace);

  g_autofree char *real = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *slab2 = run (real, "slab");
  g_autofree char *pass2 = run (real, "slub@2.6.34:pass_through=4096");
  s = (double) op_cycles (slab2);
  p = (double) op_cycles (pass2);
  g_printerr ("udp-4k.trace.gz: slab %.0f, pass-through %.0f (%.2fx)\n", s, p, p / s);
  assert_true (p >= 1.15 * s);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_seed_003_hackbench_shape),
    cmocka_unit_test (test_seed_000_tbench_orders),
    cmocka_unit_test (test_seed_002_netperf_pass_through),
  };
  return cmocka_run_group_tests_name ("seeds", tests, NULL, NULL);
}
