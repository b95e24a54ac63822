/* test-run.c - "slabsim run" end to end on the real traces in
 * traces/samples: every SLUB era replays every trace with the invariant
 * checker on, the replay accounts for every event exactly as "trace info"
 * does, output is deterministic, the text report matches its golden file,
 * and bad input gives the documented errors. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <string.h>
#include <stdlib.h>

static const char *const traces[] = {
  "traces/samples/hackbench-T-g2-l50.trace.gz",
  "traces/samples/udp-4k.trace.gz",
  "traces/samples/hackbench-T-g1-l50.perf-script.gz",
};

static char *
run_json (const char *trace, const char *spec)
{
  g_autofree char *path = tu_source_path (trace);
  char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "run", "--check", "--check-every", "10000",
                                                  "--format", "json", "-a", spec, path, NULL });
  if (rc != 0)
    {
      print_error ("run %s %s: exit %d\n%s\n", spec, trace, rc, err);
      fail ();
    }
  g_free (err);
  return out;
}

/* Every allocator model and era on every trace: --check stays clean and the replay's counts
 * equal the trace's exact accounting. */
static void
test_every_era_every_trace (void **state)
{
  (void) state;
  const char *eras[] = { "slub@2.6.23", "slub@2.6.33", "slub@2.6.34", "slub@6.18",
                         "slab@2.6.23", "slab@2.6.34", "slqb" };
  for (guint t = 0; t < G_N_ELEMENTS (traces); t++)
    for (guint e = 0; e < G_N_ELEMENTS (eras); e++)
      {
        g_autofree char *js = run_json (traces[t], eras[e]);
        const char *trace_block = "\"trace\": {";
        guint64 allocs = tu_json_uint (js, trace_block, "allocs");
        guint64 failed = tu_json_uint (js, trace_block, "failed_allocs");
        guint64 same = tu_json_uint (js, trace_block, "same_cpu_frees");
        guint64 cross = tu_json_uint (js, trace_block, "cross_cpu_frees");
        guint64 nulls = tu_json_uint (js, trace_block, "null_frees");
        guint64 unknown = tu_json_uint (js, trace_block, "unknown_frees");
        guint64 implicit = tu_json_uint (js, trace_block, "implicit_frees");
        const char *rb = "\"replay\": {";
        guint64 int_allocs = tu_json_uint (js, rb, "skipped_internal_allocs");
        guint64 int_frees = tu_json_uint (js, rb, "skipped_internal_frees");
        assert_int_equal (tu_json_uint (js, rb, "allocs") + tu_json_uint (js, rb, "skipped_failed_allocs")
                          + int_allocs, allocs);
        assert_int_equal (tu_json_uint (js, rb, "skipped_failed_allocs"), failed);
        assert_int_equal (tu_json_uint (js, rb, "skipped_null_frees"), nulls);
        /* Every free is replayed, or unknown, or the recording kernel's own
         * (of an internal allocation, explicit or implicit, or an unknown
         * one from __free_slab). */
        /* Frees the trace shows only by their consequences
         * (sim/run/untraced.h) are replayed too: those seen by a pointer
         * coming back stand in for implicit frees, those seen by a freed
         * page or a destroyed maple tree come on top, less the ones whose
         * pointer came back later (the trace counts those as implicit) and
         * the ones the trace then freed itself (that free finds nothing). */
        assert_int_equal (tu_json_uint (js, rb, "frees") + tu_json_uint (js, rb, "implicit_frees")
                          + tu_json_uint (js, rb, "untraced_page_frees")
                          + tu_json_uint (js, rb, "untraced_kfree_rcu")
                          + tu_json_uint (js, rb, "skipped_unknown_frees") + int_frees,
                          same + cross + implicit + unknown
                          + tu_json_uint (js, rb, "untraced_by_page_free")
                          + tu_json_uint (js, rb, "untraced_by_mm_destroy")
                          - tu_json_uint (js, rb, "untraced_reused_after")
                          - tu_json_uint (js, rb, "untraced_contradicted"));
        assert_true (tu_json_uint (js, rb, "implicit_frees") <= implicit);
        assert_true (tu_json_uint (js, rb, "skipped_unknown_frees") <= unknown);
        /* The shared 6.18 recordings' obj_exts vectors (alloc_slab_obj_exts
         * call sites, counted with grep) are left out for every era. */
        static const guint64 obj_exts_allocs[] = { 2215, 0, 1214 };
        assert_int_equal (int_allocs, obj_exts_allocs[t]);
        /* Work was done and cost something. */
        assert_true (tu_json_uint (js, "\"timing\": {", "alloc_cycles_total") > 0);
        assert_true (tu_json_uint (js, "\"l1d\": {", "accesses") > 0);
      }
}

/* The recording kernel's own allocations: an obj_exts vector and its free
 * from __free_slab, a sheaf, an unknown __free_slab free; none reaches the
 * model, each is counted, and workload around them is replayed. */
static void
test_internal_filtered (void **state)
{
  (void) state;
  const char *trace =
    "  a-1 [000] ..... 1.000001: kmalloc: call_site=alloc_slab_obj_exts+0x58/0x110 ptr=ffff888100001000 bytes_req=128 bytes_alloc=128 gfp_flags=GFP_KERNEL|__GFP_ZERO node=0 accounted=false\n"
    "  a-1 [000] ..... 1.000002: kmalloc: call_site=foo+0x1/0x2 ptr=ffff888100002000 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
    "  a-1 [000] ..... 1.000003: kmalloc: call_site=__alloc_empty_sheaf+0x1/0x2 ptr=ffff888100003000 bytes_req=288 bytes_alloc=512 gfp_flags=GFP_KERNEL|__GFP_ZERO node=-1 accounted=false\n"
    "  a-1 [000] ..... 1.000004: kfree: call_site=__free_slab+0x87/0xf0 ptr=ffff888100001000\n"
    "  a-1 [000] ..... 1.000005: kfree: call_site=__free_slab+0x87/0xf0 ptr=ffff888100009000\n"
    "  a-1 [000] ..... 1.000006: kfree: call_site=bar+0x1/0x2 ptr=ffff888100002000\n"
    "  a-1 [000] ..... 1.000007: kfree: call_site=free_empty_sheaf.isra.0+0x1/0x2 ptr=ffff888100003000\n"
    "  a-1 [000] ..... 1.000008: kfree: call_site=bar+0x1/0x2 ptr=ffff888100008000\n";
  g_autofree char *path = tu_write_temp (".trace", trace, -1);
  const char *eras[] = { "slub@2.6.34", "slub@6.18", "slab", "slqb" };
  for (guint e = 0; e < G_N_ELEMENTS (eras); e++)
    {
      g_autofree char *js = NULL;
      assert_int_equal (tu_run (&js, NULL, (const char *[]) { "run", "--check", "--format", "json",
                                                              "-a", eras[e], path, NULL }), 0);
      const char *rb = "\"replay\": {";
      assert_int_equal (tu_json_uint (js, rb, "allocs"), 1);
      assert_int_equal (tu_json_uint (js, rb, "frees"), 1);
      assert_int_equal (tu_json_uint (js, rb, "skipped_internal_allocs"), 2);
      assert_int_equal (tu_json_uint (js, rb, "skipped_internal_frees"), 3);
      assert_int_equal (tu_json_uint (js, rb, "skipped_unknown_frees"), 1);
    }
  g_autofree char *txt = NULL;
  assert_int_equal (tu_run (&txt, NULL, (const char *[]) { "run", path, NULL }), 0);
  assert_non_null (strstr (txt, "own allocations left out: 2 allocs, 3 frees"));
  g_unlink (path);
}

/* Same inputs, same bytes out. */
static void
test_deterministic (void **state)
{
  (void) state;
  g_autofree char *a = run_json (traces[1], "slub@6.18");
  g_autofree char *b = run_json (traces[1], "slub@6.18");
  assert_string_equal (a, b);
}

/* The JSON carries the documented keys. */
static void
test_json_keys (void **state)
{
  (void) state;
  g_autofree char *js = run_json (traces[1], "slub@2.6.34");
  const char *keys[] = { "\"tool\"", "\"machine\"", "\"trace\"", "\"results\"", "\"allocator\"",
                         "\"kernel\"", "\"params\"", "\"caches\"", "\"aliases\"", "\"object_size\"",
                         "\"slab_size\"", "\"order\"", "\"objs_per_slab\"", "\"alloc_fast_pct\"",
                         "\"free_fast_pct\"", "\"objects\"", "\"slabs\"", "\"stats\"",
                         "\"alloc_fastpath\"", "\"free_frozen\"", "\"page_allocator\"",
                         "\"pcp_hits\"", "\"zone_lock_acquisitions\"", "\"zone_lock_wait_cycles\"",
                         "\"memory\"", "\"l1d\"", "\"l2\"", "\"l3\"", "\"dram\"", "\"local\"",
                         "\"remote\"", "\"coherence\"", "\"invalidations\"", "\"hitm\"",
                         "\"cross_socket\"", "\"by_structure\"", "\"struct_page\"", "\"timing\"",
                         "\"sim_cycles\"", "\"alloc_cycles_total\"", "\"free_cycles_total\"",
                         "\"alloc_cycles_mean\"", "\"free_cycles_mean\"", "\"alloc_cycles_p99\"",
                         "\"free_cycles_p99\"", "\"lock_wait_cycles\"" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    tu_assert_contains (js, keys[i]);
}

/* Seed 003's slabinfo: on a 16-CPU machine 2.6.34 merges the 256-byte
 * caches into :t-0000256 at order 1 with 32 objects per slab. */
static void
test_seed_003_geometry_in_run (void **state)
{
  (void) state;
  g_autofree char *js = run_json (traces[0], "slub@2.6.34");
  const char *c = strstr (js, "\"name\": \":t-0000256\"");
  assert_non_null (c);
  assert_int_equal (tu_json_uint (c, NULL, "order"), 1);
  assert_int_equal (tu_json_uint (c, NULL, "objs_per_slab"), 32);
}

/* The text report of a fixed run equals its golden file (regenerate with
 * scripts/regen-goldens after an intended model change, and say why in
 * the commit). */
static void
test_golden_text (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (traces[1]);
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "run", "-a", "slub@2.6.34", "-a", "slub@6.18",
                                                           path, NULL }), 0);
  /* The first line names the trace path, which differs between checkouts. */
  const char *body = strchr (out, '\n');
  assert_non_null (body);
  assert_true (tu_golden_matches ("tests/golden/run-udp-4k-slub.txt", body + 1));
}

static void
test_bad_input (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (traces[1]);
  char *err = NULL;
  /* Unknown allocator: usage error naming the known ones. */
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "-a", "slob", path, NULL }), 2);
  tu_assert_contains (err, "unknown allocator \"slob\"");
  tu_assert_contains (err, "slub");
  g_clear_pointer (&err, g_free);
  /* Unknown parameter: the valid ones are listed. */
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "-a", "slub@2.6.34:slub_max_ordr=3", path, NULL }), 2);
  tu_assert_contains (err, "slub_max_ordr");
  tu_assert_contains (err, "slub_max_order");
  g_clear_pointer (&err, g_free);
  /* Unknown era. */
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "-a", "slub@3.0", path, NULL }), 2);
  tu_assert_contains (err, "2.6.34");
  g_clear_pointer (&err, g_free);
  /* A trace that does not exist. */
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "/nonexistent/trace.gz", NULL }), 1);
  tu_assert_contains (err, "/nonexistent/trace.gz");
  g_clear_pointer (&err, g_free);
  /* A malformed line: file:line named, exit 1. */
  g_autofree char *bad = tu_write_temp (".txt",
    "# tracer: nop\n"
    "          bash-1     [000] .....   1.000001: kmalloc: call_site=f+0x1/0x2 ptr=ffff888100000000 bytes_req=abc bytes_alloc=64 gfp_flags=GFP_KERNEL node=-1 accounted=false\n", -1);
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", bad, NULL }), 1);
  tu_assert_contains (err, ":2:");
  g_clear_pointer (&err, g_free);
  /* A trace using a CPU the machine does not have. */
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "--set", "topology.sockets=1",
                                                           "--set", "topology.cores_per_socket=1",
                                                           "--set", "topology.threads_per_core=1",
                                                           path, NULL }), 1);
  tu_assert_contains (err, "CPU 1");
  g_clear_pointer (&err, g_free);
  /* Bad option values. */
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "--replay", "fast", path, NULL }), 2);
  g_clear_pointer (&err, g_free);
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "--touch", "all", path, NULL }), 2);
  g_clear_pointer (&err, g_free);
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", NULL }), 2);
  g_free (err);
}

/* Timed replay honours timestamps: the simulated time is at least the
 * trace's duration in cycles. */
static void
test_timed_replay (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (traces[1]);
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "run", "--replay", "timed", "--format", "json",
                                                           path, NULL }), 0);
  guint64 first = tu_json_uint (out, "\"trace\": {", "first_ts");
  guint64 last = tu_json_uint (out, "\"trace\": {", "last_ts");
  guint64 sim = tu_json_uint (out, "\"timing\": {", "sim_cycles");
  /* nehalem-ep-2s runs at 2.93 GHz. */
  assert_true ((double) sim >= (double) (last - first) * 2.93 * 0.99);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_era_every_trace),
    cmocka_unit_test (test_internal_filtered),
    cmocka_unit_test (test_deterministic),
    cmocka_unit_test (test_json_keys),
    cmocka_unit_test (test_seed_003_geometry_in_run),
    cmocka_unit_test (test_golden_text),
    cmocka_unit_test (test_bad_input),
    cmocka_unit_test (test_timed_replay),
  };
  return cmocka_run_group_tests_name ("run", tests, NULL, NULL);
}
