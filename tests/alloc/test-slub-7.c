/* test-slub-7.c - SLUB 7.x, sheaves for every cache (models/alloc/slub-7.c,
 * docs/models/slub.md): one directed test per rule — the capacity rule,
 * kmalloc caches' sheaves after bootstrap, no cpu slabs, the bulk refill
 * from partial slabs, spare swap and barn get/put with its limit, flush
 * to the slabs, remote-node frees straight to their slabs, min_partial
 * discard, the 7.x counter list, the simulator knobs, and the invariant
 * checker under a random mix. */
#include "tests/alloc/slub-fix.h"
#include "models/alloc/slub.h"
#include "models/page/page-alloc.h"
#include "sim/config/machine.h"
#include "sim/core/rng.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>




static SimCacheId
kcache (Fix *f, gsize size)
{
  SimCacheId id = sim_slub_kmalloc_cache (f->slub, size, 0);
  assert_true (id != SIM_CACHE_NONE);
  return id;
}

/* calculate_sheaf_capacity: 60 / 26 / 12 / 4 by s->size, grown so that
 * the slab_sheaf (32 bytes + 8 per object) fills its kmalloc bucket:
 * 60 fills kmalloc-512 exactly, 26 grows to 28 (kmalloc-256), 12 fills
 * kmalloc-128, 4 kmalloc-64; never below kmem_cache_args.sheaf_capacity. */
static void
test_capacity_rule (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@7.x");
  struct { guint size, args, want; } cases[] = {
    { 64, 0, 60 }, { 192, 0, 60 }, { 256, 0, 28 }, { 1000, 0, 28 }, { 1024, 0, 12 },
    { 2048, 0, 12 }, { 4096, 0, 4 }, { 256, 32, 32 }, { 64, 32, 60 }, { 64, 100, 100 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *name = g_strdup_printf ("test7_%u_%u", cases[i].size, cases[i].args);
      SimCacheId id = cache (f, name, cases[i].size, cases[i].args);
      SimSlubCacheInfo in;
      info (f, id, &in);
      if (in.sheaf_capacity != cases[i].want)
        {
          print_error ("%s: capacity %u, expected %u\n", name, in.sheaf_capacity, cases[i].want);
          fail ();
        }
      g_free (name);
    }
  fix_free (f);
}

/* Every kmalloc cache has sheaves once the model is made
 * (bootstrap_kmalloc_sheaves), their sheaves kmalloc'ed: kmalloc-512
 * holds one 60-object sheaf per CPU for each cache of capacity 60. */
static void
test_kmalloc_bootstrap (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@7.x");
  guint n_cpus = f->w.machine->n_cpus;
  SimSlubCacheInfo in;
  guint n_cap60 = 0;
  for (guint i = 0; i < sim_slub_n_caches (f->slub); i++)
    {
      sim_slub_cache_info (f->slub, i, &in);
      assert_true (in.sheaf_capacity > 0);
      /* One main sheaf per CPU, and possibly more: the barns are
       * kmalloc'ed (kmalloc-64) without NO_RECURSE, so kmalloc-64 may
       * have refilled a sheaf while later caches got theirs. */
      assert_true (in.stat[SIM_SLUB_SHEAF_ALLOC] >= n_cpus);
      if (in.sheaf_capacity == 60)
        n_cap60++;
      sim_slub_cache_info_clear (&in);
    }
  assert_true (n_cap60 >= 6);
  info (f, kcache (f, 512), &in);
  assert_int_equal (in.g.object_size, 512);
  assert_true (in.live_objects >= (guint64) n_cap60 * n_cpus);
  /* The kmalloc-512 sheaves themselves came from its slabs (no recursion
   * into its own sheaves while it had none). */
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET_FAIL], 0);
  check (f);
  fix_free (f);
}

/* The first allocation: main empty, no spare, no full sheaf in the barn
 * (barn_get_fail), so a new empty sheaf is allocated and refilled in bulk
 * from a new slab (alloc_slab, sheaf_refill = capacity, no alloc_slowpath:
 * a refill is not one); the old empty main becomes the spare.  No CPU
 * ever holds a slab. */
static void
test_first_alloc_refills_no_cpu_slab (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@7.x");
  SimCacheId id = cache (f, "test7_256", 256, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint cap = in.sheaf_capacity;
  assert_int_equal (cap, 28);
  SimAddr objs[8];
  alloc_n (f, id, 0, objs, 8);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET_FAIL], 1);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_REFILL], cap);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLAB], 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLOWPATH], 0);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_FASTPATH], 8);
  assert_int_equal (in.sheaf_objects, cap - 8);
  assert_int_equal (in.barn_empty, 0);               /* the old main is the spare */
  assert_int_equal (in.cpu_slabs + in.cpu_partial_slabs, 0);
  /* The new slab keeps the rest of its objects on the partial list. */
  assert_int_equal (in.partial_slabs, 1);
  check (f);
  free_n (f, 0, objs, 8);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FASTPATH], 8);
  assert_int_equal (in.stat[SIM_SLUB_FREE_SLOWPATH], 0);
  check (f);
  fix_free (f);
}

/* refill_objects takes whole freelists of partial slabs (the local node
 * first): with partial slabs holding free objects, a refill makes no new
 * slab, and the slab whose freelist was more than needed goes back to
 * the partial list with the rest. */
static void
test_bulk_refill_from_partial (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@7.x:sim_barn_max_full=0");
  SimCacheId id = cache (f, "test7_256", 256, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint cap = in.sheaf_capacity, per = in.g.objects;
  /* Allocate four slabs' worth on CPU 0, free them all on CPU 1: with no
   * room in the barn, CPU 1's full sheaves go back to the slabs. */
  guint n = 4 * per;
  SimAddr *objs = g_new (SimAddr, n);
  alloc_n (f, id, 0, objs, n);
  free_n (f, 1, objs, n);
  info (f, id, &in);
  assert_true (in.stat[SIM_SLUB_SHEAF_FLUSH] > 0);
  assert_true (in.stat[SIM_SLUB_BARN_PUT_FAIL] > 0);
  assert_true (in.partial_slabs > 0);
  guint64 slabs = in.stat[SIM_SLUB_ALLOC_SLAB], refill = in.stat[SIM_SLUB_SHEAF_REFILL];
  /* CPU 2 starts empty: its refill comes from the partial slabs. */
  SimAddr a = alloc1 (f, id, 2, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLAB], slabs);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_REFILL], refill + cap);
  check (f);
  free1 (f, 2, a);
  check (f);
  g_free (objs);
  fix_free (f);
}

/* Frees fill main; a full main trades places with an empty sheaf from
 * the barn or is swapped with a non-full spare; with both full the full
 * main goes to the barn (barn_put) for an empty one, and another CPU of
 * the node with empty sheaves takes it (barn_get). */
static void
test_spare_swap_and_barn (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@7.x");
  SimCacheId id = cache (f, "test7_256", 256, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint cap = in.sheaf_capacity;
  SimAddr *objs = g_new (SimAddr, 4 * cap);
  alloc_n (f, id, 0, objs, 4 * cap);
  free_n (f, 0, objs, 2 * cap);
  info (f, id, &in);
  assert_int_equal (in.sheaf_objects, 2 * cap);      /* main and spare full */
  guint64 put = in.stat[SIM_SLUB_BARN_PUT];
  free1 (f, 0, objs[2 * cap]);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT], put + 1);
  assert_int_equal (in.barn_full, 1);
  check (f);
  guint64 get = in.stat[SIM_SLUB_BARN_GET];
  alloc1 (f, id, 1, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET], get + 1);
  assert_int_equal (in.barn_full, 0);
  check (f);
  g_free (objs);
  fix_free (f);
}

/* The barn holds at most 10 full sheaves (MAX_FULL_SHEAVES): past that
 * a full spare is flushed to the slabs (barn_put_fail, sheaf_flush);
 * sim_barn_max_full moves the limit. */
static void
test_barn_limit (void **state)
{
  (void) state;
  const char *specs[] = { "slub@7.x", "slub@7.x:sim_barn_max_full=2" };
  guint limits[] = { 10, 2 };
  for (guint k = 0; k < 2; k++)
    {
      Fix *f = fix_new (specs[k]);
      SimCacheId id = cache (f, "test7_64", 64, 0);
      SimSlubCacheInfo in;
      info (f, id, &in);
      guint cap = in.sheaf_capacity;
      guint n = (limits[k] + 4) * cap;
      SimAddr *objs = g_new (SimAddr, n);
      alloc_n (f, id, 0, objs, n);
      free_n (f, 1, objs, n);
      info (f, id, &in);
      assert_int_equal (in.barn_full, limits[k]);
      assert_true (in.stat[SIM_SLUB_BARN_PUT_FAIL] > 0);
      assert_true (in.stat[SIM_SLUB_SHEAF_FLUSH] >= cap);
      check (f);
      g_free (objs);
      fix_free (f);
    }
}

/* An object of another node's slab is freed straight to its slab
 * (free_slowpath, no free_fastpath); an allocation for another node
 * bypasses the sheaves (alloc_node_mismatch) and is served by that
 * node's slabs. */
static void
test_remote_free_to_slab (void **state)
{
  (void) state;
  Fix *f = fix_new_on ("slub@7.x", NULL);
  assert_true (f->w.machine->numa && f->w.machine->sockets == 2);
  guint b = 0;
  for (guint cpu = 0; cpu < f->w.machine->n_cpus && b == 0; cpu++)
    if (sim_machine_socket_of (f->w.machine, cpu) != sim_machine_socket_of (f->w.machine, 0))
      b = cpu;
  assert_true (b != 0);
  gint node_b = (gint) (sim_machine_socket_of (f->w.machine, b) % 2);
  SimCacheId id = cache (f, "test7_256", 256, 0);
  SimAddr objs[4];
  alloc_n (f, id, 0, objs, 4);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint64 fast = in.stat[SIM_SLUB_FREE_FASTPATH];
  free_n (f, b, objs, 2);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FASTPATH], fast);
  assert_int_equal (in.stat[SIM_SLUB_FREE_SLOWPATH], 2);
  free_n (f, 0, objs + 2, 2);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FASTPATH], fast + 2);
  SimAddr r = alloc1 (f, id, 0, node_b, SIM_GFP_WAIT);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_NODE_MISMATCH], 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLOWPATH], 1);
  assert_int_equal (sim_page_node_of (f->w.pages, sim_page_head (f->w.pages, r)) % 2,
                    (guint) node_b);
  check (f);
  free1 (f, 0, r);
  check (f);
  fix_free (f);
}

/* A slab that becomes empty is discarded once the node holds
 * min_partial partial slabs (free_slab, free_remove_partial), kept
 * otherwise; sim_sheaf_capacity=0 turns the sheaves off so every free
 * reaches __slab_free. */
static void
test_min_partial_discard (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@7.x:sim_sheaf_capacity=0,min_partial=2");
  SimCacheId id = cache (f, "test7_256", 256, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_int_equal (in.sheaf_capacity, 0);
  guint per = in.g.objects, n = 3 * per;
  SimAddr *objs = g_new (SimAddr, n);
  alloc_n (f, id, 0, objs, n);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLAB], 3);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLOWPATH], n);
  free_n (f, 0, objs, n);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_SLOWPATH], n);
  assert_int_equal (in.stat[SIM_SLUB_FREE_ADD_PARTIAL], 3);
  /* The first slab to empty stays (one partial slab, below min_partial
   * 2), the other two go (the node's count includes the slab itself). */
  assert_int_equal (in.stat[SIM_SLUB_FREE_SLAB], 2);
  assert_int_equal (in.slabs, 1);
  check (f);
  g_free (objs);
  fix_free (f);
}

/* The report lists 7.x's own counters, in its enum stat_item order. */
static void
test_stat_names (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@7.x");
  assert_string_equal (sim_alloc_slub_ops ()->kernel (f->slub), "7.0");
  SimAllocReport r;
  sim_alloc_report_init (&r);
  sim_alloc_slub_ops ()->report (f->slub, &r);
  assert_true (r.rows->len > 0);
  SimAllocCacheRow *row = &g_array_index (r.rows, SimAllocCacheRow, 0);
  assert_int_equal (row->n_stats, 26);
  const char *want[] = { "alloc_fastpath", "alloc_slowpath", "free_rcu_sheaf",
                         "free_rcu_sheaf_fail", "free_fastpath", "free_slowpath" };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    assert_string_equal (row->stat_names[i], want[i]);
  assert_string_equal (row->stat_names[13], "sheaf_flush");
  assert_string_equal (row->stat_names[25], "sheaf_return_slow");
  for (guint i = 0; i < row->n_stats; i++)
    {
      assert_null (strstr (row->stat_names[i], "cpu_partial"));
      assert_null (strstr (row->stat_names[i], "deactivate"));
    }
  sim_alloc_report_clear (&r);
  fix_free (f);
}

/* The simulator knobs: a capacity for every cache or per cache, and
 * bad values refused with the expected form. */
static void
test_knobs (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@7.x:sim_sheaf_capacity=test7_a:8+test7_b:0");
  SimSlubCacheInfo in;
  info (f, cache (f, "test7_a", 256, 32), &in);
  assert_int_equal (in.sheaf_capacity, 8);
  /* (A cache asking for a capacity is never merged: the knob applies to
   * it by its own name.) */
  info (f, cache (f, "test7_b", 256, 32), &in);
  assert_int_equal (in.sheaf_capacity, 0);
  info (f, cache (f, "test7_c", 256, 0), &in);
  assert_int_equal (in.sheaf_capacity, 28);
  fix_free (f);

  f = fix_new ("slub@7.x:sim_sheaf_capacity=16");
  info (f, cache (f, "test7_c", 256, 0), &in);
  assert_int_equal (in.sheaf_capacity, 16);
  info (f, kcache (f, 64), &in);
  assert_int_equal (in.sheaf_capacity, 16);
  fix_free (f);

  f = fix_new ("slub@6.18:sim_sheaf_capacity=8");
  info (f, cache (f, "maple_node", 256, 32), &in);
  assert_int_equal (in.sheaf_capacity, 8);
  info (f, cache (f, "test7_c", 256, 0), &in);
  assert_int_equal (in.sheaf_capacity, 0);
  fix_free (f);

  const char *bad[] = { "slub@7.x:sim_sheaf_capacity=x:", "slub@7.x:sim_barn_max_full=-1",
                        "slub@2.6.34:sim_sheaf_capacity=4" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      TuWorld w;
      GError *error = NULL;
      tu_world_init (&w, bad[i], (const char *[]) { "numa=false", NULL }, 0, FALSE);
      SimSlub *m = sim_slub_new (w.spec, &w.env, &error);
      assert_null (m);
      assert_non_null (error);
      assert_non_null (strstr (error->message, "sim_"));
      g_error_free (error);
      tu_world_clear (&w);
    }
}

/* Producer / consumer: allocations on CPUs 0-1, frees on CPUs 2-3 (one
 * node) move full sheaves through the barn and flush the surplus; then a
 * random mix on every CPU of both nodes, some allocations for a given
 * node.  Every invariant holds throughout; flush_all empties the
 * sheaves. */
static void
test_checker_random_mix (void **state)
{
  (void) state;
  for (guint phase = 0; phase < 2; phase++)
    {
      /* Phase 0 with room for one full sheaf in the barn, so that the
       * producer/consumer imbalance also flushes sheaves to the slabs. */
      Fix *f = phase == 0 ? fix_new ("slub@7.x:sim_barn_max_full=1")
                          : fix_new_on ("slub@7.x", NULL);
      SimCacheId id = cache (f, "test7_256", 256, 0);
      guint n_cpus = f->w.machine->n_cpus;
      SimRng rng;
      sim_rng_init (&rng, 7, phase);
      GPtrArray *live = g_ptr_array_new ();
      for (guint i = 0; i < 30000; i++)
        {
          gboolean do_alloc = live->len == 0 || sim_rng_below (&rng, 100) < 52;
          guint cpu = phase == 0 ? (guint) sim_rng_below (&rng, 2) + (do_alloc ? 0 : 2)
                                 : (guint) sim_rng_below (&rng, n_cpus);
          if (do_alloc)
            {
              gint node = phase == 1 && sim_rng_below (&rng, 10) == 0
                          ? (gint) sim_rng_below (&rng, 2) : SIM_NUMA_NO_NODE;
              SimAddr a = alloc1 (f, id, cpu, node, SIM_GFP_WAIT);
              g_ptr_array_add (live, GSIZE_TO_POINTER (a));
            }
          else
            {
              guint k = sim_rng_below (&rng, live->len);
              free1 (f, cpu, GPOINTER_TO_SIZE (g_ptr_array_index (live, k)));
              g_ptr_array_remove_index_fast (live, k);
            }
          if (i % 5000 == 0)
            check (f);
        }
      check (f);
      SimSlubCacheInfo in;
      info (f, id, &in);
      if (phase == 0)
        {
          assert_true (in.stat[SIM_SLUB_BARN_GET] > 0 && in.stat[SIM_SLUB_BARN_PUT] > 0);
          assert_true (in.stat[SIM_SLUB_SHEAF_FLUSH] > 0);
        }
      else
        assert_true (in.stat[SIM_SLUB_FREE_SLOWPATH] > 0);     /* remote frees */
      assert_int_equal (in.live_objects, live->len);
      sim_slub_flush_all (f->slub, on (f, 0));
      info (f, id, &in);
      assert_int_equal (in.sheaf_objects, in.barn_full ? in.sheaf_objects : 0);
      check (f);
      g_ptr_array_unref (live);
      fix_free (f);
    }
}

/* run -a slub@6.18 -a slub@7.x --check on every shared trace (the
 * shared recordings, or the repository's copies of them): both models
 * keep their invariants, and 7.x reports its own counters. */
static void
test_shared_traces_check (void **state)
{
  (void) state;
  g_autofree char *dir = g_build_filename (tu_shared_dir (), "traces", NULL);
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    {
      g_free (dir);
      dir = tu_source_path ("traces/samples");
      d = g_dir_open (dir, 0, NULL);
    }
  assert_non_null (d);
  guint n = 0;
  for (const char *name; (name = g_dir_read_name (d)); )
    {
      if (!g_str_has_suffix (name, ".gz"))
        continue;
      g_autofree char *trace = g_build_filename (dir, name, NULL);
      char *out = NULL, *err = NULL;
      int rc = tu_run (&out, &err, (const char *[]) { "run", "-a", "slub@6.18", "-a", "slub@7.x",
                                                      "--check", "--format", "json", trace,
                                                      NULL });
      if (rc != 0)
        print_error ("%s: %s\n", name, err);
      assert_int_equal (rc, 0);
      const char *seven = strstr (out, "\"kernel\": \"7.0\"");
      assert_non_null (seven);
      assert_non_null (strstr (seven, "\"free_rcu_sheaf\": "));
      assert_null (strstr (seven, "\"cpu_partial_alloc\""));
      assert_null (strstr (seven, "\"alloc_cpu_sheaf\""));
      g_free (out);
      g_free (err);
      if (n == 0)
        {
          /* The text report lists 7.x's counters sysfs-style; 6.18's does
           * not. */
          rc = tu_run (&out, &err, (const char *[]) { "run", "-a", "slub@6.18", "-a", "slub@7.x",
                                                      trace, NULL });
          assert_int_equal (rc, 0);
          const char *c = strstr (out, "Counters by cache (/sys/kernel/slab/CACHE/, non-zero):");
          assert_non_null (c);
          assert_non_null (strstr (out, "== slub@7.0"));
          assert_true (c > strstr (out, "== slub@7.0"));
          assert_non_null (strstr (c, " sheaf_refill="));
          g_free (out);
          g_free (err);
        }
      n++;
    }
  g_dir_close (d);
  assert_true (n >= 3);
}

/* configs/sweeps/sheaves.yaml runs: its 12 points (capacity x barn
 * limit), on a small generated trace in place of its own, each with the
 * knobs in its spec. */
static void
test_sheaves_sweep (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("hackbench", "6.18",
                                         (const char *[]) { "--cpus", "4", "--loops", "2", NULL });
  /* The same sweep, on the trace just generated. */
  g_autofree char *sweep = tu_sweep_on_trace ("configs/sweeps/sheaves.yaml", trace);
  g_autofree char *dir = g_dir_make_tmp ("sheaves-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "out", NULL);
  char *err = NULL;
  int rc = tu_run (NULL, &err, (const char *[]) { "sweep", sweep, "-j", "2", "-o", out, NULL });
  if (rc != 0)
    print_error ("%s\n", err);
  assert_int_equal (rc, 0);
  g_free (err);
  g_autofree char *results_path = g_build_filename (out, "results.jsonl", NULL);
  g_autofree char *results = NULL;
  assert_true (g_file_get_contents (results_path, &results, NULL, NULL));
  guint n = 0;
  for (const char *p = results; (p = strstr (p, "\"spec\":\"slub@7.x:")); p++)
    n++;
  assert_int_equal (n, 12);
  assert_non_null (strstr (results, "sim_barn_max_full=0,sim_sheaf_capacity=60"));
  assert_non_null (strstr (results, "sim_barn_max_full=10,sim_sheaf_capacity=4"));
  g_unlink (trace);
  g_unlink (sweep);
  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", dir);
  assert_int_equal (system (rm), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_capacity_rule),
    cmocka_unit_test (test_kmalloc_bootstrap),
    cmocka_unit_test (test_first_alloc_refills_no_cpu_slab),
    cmocka_unit_test (test_bulk_refill_from_partial),
    cmocka_unit_test (test_spare_swap_and_barn),
    cmocka_unit_test (test_barn_limit),
    cmocka_unit_test (test_remote_free_to_slab),
    cmocka_unit_test (test_min_partial_discard),
    cmocka_unit_test (test_stat_names),
    cmocka_unit_test (test_knobs),
    cmocka_unit_test (test_checker_random_mix),
    cmocka_unit_test (test_shared_traces_check),
    cmocka_unit_test (test_sheaves_sweep),
  };
  return cmocka_run_group_tests_name ("slub-7", tests, NULL, NULL);
}
