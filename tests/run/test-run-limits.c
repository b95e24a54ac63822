/* test-run-limits.c - what "slabsim run" does at the edges of what a kernel
 * or a machine can be: kmalloc sizes at and above each model's
 * KMALLOC_MAX_SIZE (docs/models/), 64-bit sizes kept 64-bit through
 * the text and native readers, and the largest machine (1024 CPUs)
 * through every allocator and era with the invariant checker on. */
#include "tests/testutil.h"

#include <string.h>
#include <unistd.h>

/* Each model/era and the largest kmalloc its kernel serves (x86-64, 4 KiB
 * pages, MAX_ORDER 11): SLUB and SLAB follow KMALLOC_MAX_SIZE = 4 MiB
 * (2.6.23: the kmalloc-4194304 cache; later SLUB: the page allocator up
 * to order 10); SLQB's get_slab() stops at 1 << (PAGE_SHIFT + 9). */
static const struct { const char *spec; guint64 max; } limits[] = {
  { "slub@2.6.23", 4194304 }, { "slub@2.6.33", 4194304 }, { "slub@2.6.34", 4194304 },
  { "slub@6.18", 4194304 }, { "slab@2.6.23", 4194304 }, { "slab@2.6.34", 4194304 },
  { "slqb", 2097152 },
};

#define HUGE_SIZE G_GUINT64_CONSTANT (4294967360)   /* 2^32 + 64 */

static char *
kmalloc_line (guint64 ts, const char *ptr, guint64 size)
{
  return g_strdup_printf ("  bash-1  [000] .....   1.%06" G_GUINT64_FORMAT ": kmalloc: "
                          "call_site=a+0x1/0x2 ptr=%s bytes_req=%" G_GUINT64_FORMAT
                          " bytes_alloc=%" G_GUINT64_FORMAT " gfp_flags=GFP_KERNEL\n",
                          ts, ptr, size, size);
}

static char *
kfree_line (guint64 ts, const char *ptr)
{
  return g_strdup_printf ("  bash-1  [000] .....   1.%06" G_GUINT64_FORMAT ": kfree: "
                          "call_site=a+0x1/0x2 ptr=%s\n", ts, ptr);
}

/* kmalloc(max), kmalloc(max + 1), kmalloc(2^32 + 64), then their kfrees. */
static char *
limit_trace (guint64 max)
{
  g_autofree char *a = kmalloc_line (1, "ffff888100000000", max);
  g_autofree char *b = kmalloc_line (2, "ffff888200000000", max + 1);
  g_autofree char *c = kmalloc_line (3, "ffff888300000000", HUGE_SIZE);
  g_autofree char *fa = kfree_line (4, "ffff888100000000");
  g_autofree char *fb = kfree_line (5, "ffff888200000000");
  g_autofree char *fc = kfree_line (6, "ffff888300000000");
  g_autofree char *all = g_strconcat (a, b, c, fa, fb, fc, NULL);
  return tu_write_temp (".trace", all, -1);
}

static char *
run_json_ok (const char *trace, const char *spec, const char *const *extra)
{
  GPtrArray *args = g_ptr_array_new ();
  const char *base[] = { "run", "--check", "--format", "json", "-a", spec };
  for (guint i = 0; i < G_N_ELEMENTS (base); i++)
    g_ptr_array_add (args, (char *) base[i]);
  for (const char *const *e = extra; e && *e; e++)
    g_ptr_array_add (args, (char *) *e);
  g_ptr_array_add (args, (char *) trace);
  g_ptr_array_add (args, NULL);
  char *out = NULL;
  g_autofree char *err = NULL;
  int rc = tu_run (&out, &err, (const char *const *) args->pdata);
  g_ptr_array_free (args, TRUE);
  if (rc != 0)
    {
      print_error ("run -a %s %s: exit %d\n%s\n", spec, trace, rc, err);
      fail ();
    }
  /* nothing on stderr but --check's account of what it checked: no GLib
   * warning, no critical */
  g_auto (GStrv) lines = g_strsplit (err ? err : "", "\n", -1);
  for (char **l = lines; *l; l++)
    if (**l && !g_str_has_prefix (*l, "slabsim run: --check: "))
      {
        print_error ("unexpected on stderr: %s\n", *l);
        fail ();
      }
  tu_assert_contains (err, "all held");
  return out;
}

/* Exactly KMALLOC_MAX_SIZE is served; one byte more, and 2^32 + 64 (which
 * a 32-bit size would read as 64), return NULL as in the kernel: counted
 * as refused, their kfrees free nothing, and the run is clean. */
static void
test_kmalloc_max_every_model (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      g_autofree char *path = limit_trace (limits[i].max);
      g_autofree char *js = run_json_ok (path, limits[i].spec, NULL);
      const char *rb = "\"replay\": {";
      assert_int_equal (tu_json_uint (js, rb, "allocs"), 1);
      assert_int_equal (tu_json_uint (js, rb, "frees"), 1);
      assert_int_equal (tu_json_uint (js, rb, "refused_allocs"), 2);
      assert_int_equal (tu_json_uint (js, rb, "skipped_refused_frees"), 2);
      assert_int_equal (tu_json_uint (js, rb, "skipped_unknown_frees"), 0);
      /* the trace's own accounting keeps the 64-bit size */
      assert_int_equal (tu_json_uint (js, "\"trace\": {", "bytes_req"),
                        limits[i].max + limits[i].max + 1 + HUGE_SIZE);
      unlink (path);
    }
}

/* The same trace converted to the native format replays the same: sizes
 * are varints there, 64-bit like the text. */
static void
test_native_keeps_64bit_sizes (void **state)
{
  (void) state;
  g_autofree char *path = limit_trace (4194304);
  g_autofree char *nat = g_strconcat (path, ".slabsim", NULL);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "trace", "convert", path, "-o", nat,
                                                           NULL }), 0);
  g_autofree char *a = run_json_ok (path, "slub", NULL);
  g_autofree char *b = run_json_ok (nat, "slub", NULL);
  const char *rb = "\"replay\": {";
  assert_int_equal (tu_json_uint (b, rb, "refused_allocs"), 2);
  assert_int_equal (tu_json_uint (a, "\"trace\": {", "bytes_req"),
                    tu_json_uint (b, "\"trace\": {", "bytes_req"));
  unlink (path);
  unlink (nat);
}

/* A kmem_cache_alloc whose object is 2^32 + 64 bytes names a cache no
 * kernel can create: a clear error naming the line, never a 64-byte cache. */
static void
test_cache_object_too_large (void **state)
{
  (void) state;
  const char *t =
    "  bash-1  [000] .....   1.000001: kmem_cache_alloc: call_site=a+0x1/0x2 "
    "ptr=ffff888100000000 bytes_req=4294967360 bytes_alloc=4294967360 gfp_flags=GFP_KERNEL\n";
  g_autofree char *path = tu_write_temp (".trace", t, -1);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", path, NULL }), 1);
  g_autofree char *where = g_strdup_printf ("%s:1:", path);
  tu_assert_contains (err, where);
  tu_assert_contains (err, "object size 4294967360");
  assert_null (strstr (err, "CRITICAL"));
  unlink (path);
}

/* A perf script line without [cpu] (a per-task recording) has no CPU: the
 * documented rule replays it on CPU 0 and counts it (docs/traces.md). */
static void
test_missing_cpu_runs_on_cpu0 (void **state)
{
  (void) state;
  const char *t =
    "            perf 31103  1637.361340:            kmem:kmalloc: call_site=a+0x1 "
    "ptr=0xffff888100000000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n"
    "            perf 31103  1637.361341:            kmem:kfree: call_site=a+0x1 "
    "ptr=0xffff888100000000\n";
  g_autofree char *path = tu_write_temp (".txt", t, -1);
  g_autofree char *js = run_json_ok (path, "slub", NULL);
  const char *rb = "\"replay\": {";
  assert_int_equal (tu_json_uint (js, rb, "events_without_cpu"), 2);
  assert_int_equal (tu_json_uint (js, rb, "allocs"), 1);
  assert_int_equal (tu_json_uint (js, rb, "frees"), 1);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "run", path, NULL }), 0);
  tu_assert_contains (out, "2 events had no CPU in the trace");
  unlink (path);
}

/* A short trace over CPUs 0..1023 of both nodes: kmallocs of four sizes
 * and vm_area_struct objects, freed on other CPUs. */
static char *
cpu1024_trace (void)
{
  static const guint cpus[] = { 0, 1, 511, 512, 1022, 1023 };
  static const guint sizes[] = { 8, 200, 3000, 9000 };
  GString *t = g_string_new (NULL);
  guint ts = 1;
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < G_N_ELEMENTS (cpus); i++)
      for (guint j = 0; j < G_N_ELEMENTS (sizes); j++)
        {
          guint64 p = G_GUINT64_CONSTANT (0xffff888100000000) + (guint64) (i * 16 + j) * 0x1000;
          guint cpu = pass ? cpus[(i + 3) % G_N_ELEMENTS (cpus)] : cpus[i];
          if (pass == 0)
            g_string_append_printf (t,
              "  bash-1  [%04u] .....   1.%06u: kmalloc: call_site=a+0x1/0x2 ptr=%" G_GINT64_MODIFIER
              "x bytes_req=%u bytes_alloc=%u gfp_flags=GFP_KERNEL\n"
              "  bash-1  [%04u] .....   1.%06u: kmem_cache_alloc: call_site=a+0x1/0x2 ptr=%"
              G_GINT64_MODIFIER "x name=vm_area_struct bytes_req=192 bytes_alloc=192 "
              "gfp_flags=GFP_KERNEL\n", cpu, ts, p, sizes[j], sizes[j], cpu, ts + 1, p + 0x800);
          else
            g_string_append_printf (t,
              "  bash-1  [%04u] .....   1.%06u: kfree: call_site=a+0x1/0x2 ptr=%" G_GINT64_MODIFIER "x\n"
              "  bash-1  [%04u] .....   1.%06u: kmem_cache_free: call_site=a+0x1/0x2 ptr=%"
              G_GINT64_MODIFIER "x name=vm_area_struct\n", cpu, ts, p, cpu, ts + 1, p + 0x800);
          ts += 2;
        }
  char *path = tu_write_temp (".trace", t->str, -1);
  g_string_free (t, TRUE);
  return path;
}

/* The largest machine the docs allow, 1024 CPUs (2 sockets x 256 cores x 2
 * threads, NUMA and not), through every allocator and era with --check:
 * the static and per-CPU areas are sized for the machine (no "static area
 * exhausted" critical, no structure at address 0), every event replays. */
static void
test_1024_cpus_every_model (void **state)
{
  (void) state;
  g_autofree char *path = cpu1024_trace ();
  const char *const numa[] = { "memory.numa=true", "memory.numa=false" };
  for (guint n = 0; n < G_N_ELEMENTS (numa); n++)
    for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
      {
        const char *extra[] = {
          "-m", "nehalem-ep-2s", "--set", "topology.sockets=2",
          "--set", "topology.cores_per_socket=256", "--set", "topology.threads_per_core=2",
          "--set", numa[n], "--set", "caches.L1d.size=4K", "--set", "caches.L2.size=16K",
          "--set", "caches.L3.size=64K", "--check-every", "8", NULL,
        };
        g_autofree char *js = run_json_ok (path, limits[i].spec, extra);
        assert_int_equal (tu_json_uint (js, "\"machine\": {", "cpus"), 1024);
        const char *rb = "\"replay\": {";
        assert_int_equal (tu_json_uint (js, rb, "allocs"), 48);
        assert_int_equal (tu_json_uint (js, rb, "frees"), 48);
      }
  unlink (path);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kmalloc_max_every_model),
    cmocka_unit_test (test_native_keeps_64bit_sizes),
    cmocka_unit_test (test_cache_object_too_large),
    cmocka_unit_test (test_missing_cpu_runs_on_cpu0),
    cmocka_unit_test (test_1024_cpus_every_model),
  };
  return cmocka_run_group_tests_name ("run-limits", tests, NULL, NULL);
}
