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
 * pass-through of the 8 KiB skb data buffers SLAB's result was 2.3 times
 * SLUB's; keeping 8 KiB objects in slabs (2.6.30's SLUB_MAX_SIZE = 2
 * pages) left a 1 % difference, "fluctuation".  Those are netperf results
 * (the whole network stack, of which the allocator is an unknown share);
 * for allocator cycles alone they give directions: pass-through dearer
 * than SLAB, and 8 KiB kept in slabs far closer to SLAB than pass-through
 * is.  Issue 10's acceptance puts them as: pass-through at least 1.15x
 * SLAB's allocator cycles, 8 KiB kept in slabs within 10 % of SLAB, on the
 * recorded one-CPU trace.  docs/case-studies/002-netperf-udp-4k.md says
 * where the model does not show them and why, from mm/slab.c and
 * mm/slub.c. */
typedef struct {
  double slab, pass, kept;       /* allocator cycles */
} Seed002;

static Seed002
seed_002 (const char *trace, const char *cpu_map, const char *label)
{
  g_autofree char *a = run_mapped (trace, "slab@2.6.34", cpu_map);
  g_autofree char *p = run_mapped (trace, "slub@2.6.34:pass_through=4096", cpu_map);
  g_autofree char *k = run_mapped (trace, "slub@2.6.34:pass_through=8192", cpu_map);
  Seed002 r = { (double) op_cycles (a), (double) op_cycles (p), (double) op_cycles (k) };
  g_printerr ("%s: slab %.0f, pass-through %.0f (%.3fx), kept in slabs %.0f (%.3fx)\n",
              label, r.slab, r.pass, r.pass / r.slab, r.kept, r.kept / r.slab);
  return r;
}

/* The recorded single-stream trace with sender and receiver on one CPU
 * (traces/samples/udp-4k-1cpu.trace.gz): issue 10's acceptance. */
static void
test_seed_002_one_cpu (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k-1cpu.trace.gz");
  Seed002 r = seed_002 (trace, "compact", "udp-4k-1cpu");
  assert_true (r.pass >= 1.15 * r.slab);
  assert_true (r.kept <= 1.10 * r.slab && r.kept >= 0.90 * r.slab);
}

/* The recorded 2-CPU trace (udp-4k.trace.gz, 6.18's UDP path): pass-through
 * still costs more than SLAB. */
static void
test_seed_002_two_cpus (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  Seed002 r = seed_002 (trace, "compact", "udp-4k");
  assert_true (r.pass >= 1.15 * r.slab);
}

/* The 2009 pattern as the seed ran it: CPU_NUM client/server pairs
 * (16 on 16 CPUs), the receiver freeing on its own CPU (trace gen
 * netperf-udp --kernel 2.6.30).  Pass-through dearer than SLAB; keeping
 * 8 KiB in slabs closes most of that gap (the seed: from 2.3x to 1 %).
 * Within 10 % of SLAB is not asserted here: the model does not show it,
 * for the reason in the case study (SLUB's remote free locks the slab's
 * struct page, SLAB's stores into the freeing CPU's own array). */
static void
test_seed_002_2009_pattern (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("netperf-udp", "2.6.30",
                                         (const char *[]) { "--cpus", "16", "--groups", "16",
                                                            "--loops", "500", NULL });
  Seed002 r = seed_002 (trace, "compact", "netperf-udp 2.6.30 pattern, 16 pairs");
  assert_true (r.pass >= 1.15 * r.slab);
  assert_true (ABS (r.kept - r.slab) < r.pass - r.slab);
  g_unlink (trace);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_seed_003_hackbench_shape),
    cmocka_unit_test (test_seed_000_tbench_orders),
    cmocka_unit_test (test_seed_002_one_cpu),
    cmocka_unit_test (test_seed_002_two_cpus),
    cmocka_unit_test (test_seed_002_2009_pattern),
  };
  return cmocka_run_group_tests_name ("seeds", tests, NULL, NULL);
}
