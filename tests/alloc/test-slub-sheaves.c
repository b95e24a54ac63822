/* test-slub-sheaves.c - the per-CPU sheaves of SLUB 6.18
 * (models/alloc/slub.c, docs/models/slub.md): LIFO allocation from the
 * main sheaf, refills through the classic paths, main/spare swaps, the
 * barn and its limit of 10 full sheaves, the NUMA bypasses, caches and
 * eras without sheaves left as they were, the invariant checker under a
 * random mix, and a replay of a real trace. */
#include "tests/alloc/slub-fix.h"
#include "models/alloc/slub.h"
#include "models/page/page-alloc.h"
#include "sim/config/machine.h"
#include "sim/core/rng.h"

#include <stdlib.h>
#include <string.h>

#define CAP 32


/* The first allocation finds main empty, no spare and an empty barn
 * (barn_get_fail), so it fills a newly allocated sheaf with 32 objects
 * through the classic paths (sheaf_refill 32: one slow path for the new
 * slab, 31 from the cpu freelist); the old empty main goes to the barn.
 * Allocations then pop the sheaf from the top: the refill stored the
 * objects in ascending order, so they come out descending, and a freed
 * object comes back first. */
static void
test_lifo_and_refill (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@6.18");
  guint n_cpus = f->w.machine->n_cpus;
  SimCacheId id = cache (f, "test_sheaf_256", 256, CAP);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_int_equal (in.sheaf_capacity, CAP);
  /* A cache with sheaves is never merged: it keeps its own name. */
  assert_string_equal (in.name, "test_sheaf_256");
  /* init_percpu_sheaves: one empty main sheaf per CPU. */
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_ALLOC], n_cpus);

  SimAddr objs[8];
  alloc_n (f, id, 0, objs, 8);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET_FAIL], 1);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_ALLOC], n_cpus + 1);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_REFILL], CAP);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLOWPATH], 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLAB], 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_FASTPATH], CAP - 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_PCS], 8);
  assert_int_equal (in.live_objects, 8);
  assert_int_equal (in.sheaf_objects, CAP - 8);
  assert_int_equal (in.barn_empty, 1);
  for (guint i = 1; i < 8; i++)
    assert_true (objs[i] == objs[i - 1] - in.g.size);
  check (f);

  free1 (f, 0, objs[3]);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_PCS], 1);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FASTPATH] + in.stat[SIM_SLUB_FREE_SLOWPATH], 0);
  assert_true (alloc1 (f, id, 0, SIM_NUMA_NO_NODE, SIM_GFP_WAIT) == objs[3]);
  check (f);

  /* An allocation that may not sleep on a CPU whose sheaves are empty
   * (and a barn with no full sheaf) cannot refill: it takes the classic
   * paths and is not counted as a sheaf allocation. */
  guint64 pcs_before = in.stat[SIM_SLUB_ALLOC_PCS] + 1;
  alloc1 (f, id, 1, SIM_NUMA_NO_NODE, 0);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_PCS], pcs_before);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET_FAIL], 2);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLOWPATH], 2);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_REFILL], CAP);
  check (f);
  fix_free (f);
}

/* When the main sheaf runs dry again, the empty sheaf parked in the barn
 * is refilled: no new sheaf, sheaf_refill counts 32 more objects. */
static void
test_refill_reuses_barn_empty (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@6.18");
  guint n_cpus = f->w.machine->n_cpus;
  SimCacheId id = cache (f, "test_sheaf_256", 256, CAP);
  SimAddr objs[3 * CAP];
  alloc_n (f, id, 0, objs, CAP + 1);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_REFILL], 2 * CAP);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET_FAIL], 2);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_ALLOC], n_cpus + 1);
  assert_int_equal (in.barn_empty, 1);
  assert_int_equal (in.sheaf_objects, CAP - 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_PCS], CAP + 1);
  check (f);
  fix_free (f);
}

/* Frees fill main; a full main takes an empty sheaf from the barn and
 * becomes the spare; with both full and no empty sheaf in the barn a new
 * empty sheaf is allocated and the full main goes to the barn
 * (barn_put).  Another CPU of the node whose sheaves are empty then
 * trades its empty main for that full sheaf (barn_get).  Allocating on
 * the first CPU swaps the full spare in when main runs dry; freeing with
 * main full and the spare not full swaps them back. */
static void
test_swap_and_barn_put_get (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@6.18");
  guint n_cpus = f->w.machine->n_cpus;
  SimCacheId id = cache (f, "test_sheaf_256", 256, CAP);
  SimAddr objs[4 * CAP];
  alloc_n (f, id, 0, objs, 4 * CAP);
  SimSlubCacheInfo in;
  info (f, id, &in);
  /* Four refills, the same two sheaves taking turns through the barn. */
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_REFILL], 4 * CAP);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_ALLOC], n_cpus + 1);
  assert_int_equal (in.sheaf_objects, 0);
  assert_int_equal (in.barn_empty, 1);

  free_n (f, 0, objs, 2 * CAP);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_PCS], 2 * CAP);
  assert_int_equal (in.barn_empty, 0);               /* taken as the new main */
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT], 0);
  assert_int_equal (in.sheaf_objects, 2 * CAP);      /* main and spare full */

  free1 (f, 0, objs[2 * CAP]);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT], 1);
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT_FAIL], 0);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_ALLOC], n_cpus + 2);
  assert_int_equal (in.barn_full, 1);
  check (f);

  /* CPU 1 (same node): main empty, no spare, a full sheaf in the barn. */
  SimAddr b = alloc1 (f, id, 1, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET], 1);
  assert_int_equal (in.barn_full, 0);
  assert_int_equal (in.barn_empty, 1);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_REFILL], 4 * CAP);
  /* The barn's sheaf was CPU 0's second full main: its top object is the
   * 64th freed there. */
  assert_true (b == objs[2 * CAP - 1]);
  check (f);

  /* CPU 0: main holds one object, the spare is full. */
  alloc1 (f, id, 0, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
  guint64 get_fail = in.stat[SIM_SLUB_BARN_GET_FAIL];
  SimAddr c = alloc1 (f, id, 0, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET_FAIL], get_fail);    /* the swap sufficed */
  assert_true (c == objs[CAP - 1]);                             /* the spare's top */
  assert_int_equal (in.sheaf_objects, 2 * CAP - 2);
  /* main (31 left) and spare (empty): frees go to main; once it is full
   * the empty spare is swapped in. */
  guint64 put = in.stat[SIM_SLUB_BARN_PUT];
  free1 (f, 0, c);
  free1 (f, 0, b);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT], put);
  assert_int_equal (in.sheaf_objects, 2 * CAP);
  check (f);
  fix_free (f);
}

/* The barn takes at most 10 full sheaves: past that a full main with a
 * full spare flushes the spare to the slabs (barn_put_fail, sheaf_flush
 * counts its objects, which go through the classic free paths) and
 * reuses it as the empty main. */
static void
test_barn_limit_flushes (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@6.18");
  guint n_cpus = f->w.machine->n_cpus;
  SimCacheId id = cache (f, "test_sheaf_256", 256, CAP);
  enum { N = 14 * CAP };
  SimAddr *objs = g_new (SimAddr, N);
  alloc_n (f, id, 0, objs, N);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_REFILL], N);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET_FAIL], 14);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_PCS], N);
  guint64 classic_frees = in.stat[SIM_SLUB_FREE_FASTPATH] + in.stat[SIM_SLUB_FREE_SLOWPATH];
  assert_int_equal (classic_frees, 0);

  free_n (f, 0, objs, N);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_PCS], N);
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT], 10);
  assert_int_equal (in.barn_full, 10);
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT_FAIL], 2);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_FLUSH], 2 * CAP);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FASTPATH] + in.stat[SIM_SLUB_FREE_SLOWPATH] > 0, 1);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_ALLOC], n_cpus + 1 + 10);
  assert_int_equal (in.sheaf_objects, 12 * CAP);
  assert_int_equal (in.live_objects, 0);
  check (f);

  /* flush_all empties every CPU's sheaves (not the barn) and frees the
   * spare sheaf. */
  sim_slub_flush_all (f->slub, on (f, 0));
  info (f, id, &in);
  assert_int_equal (in.sheaf_objects, 10 * CAP);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_FLUSH], 4 * CAP);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_FREE], 1);
  check (f);
  g_free (objs);
  fix_free (f);
}

/* Two nodes: a free of an object of the other node bypasses the sheaves;
 * an allocation for the other node bypasses them; one for the local node
 * uses them. */
static void
test_numa_bypass (void **state)
{
  (void) state;
  Fix *f = fix_new_on ("slub@6.18", NULL);
  assert_true (f->w.machine->numa && f->w.machine->sockets == 2);
  guint a = 0, b = 0;
  for (guint cpu = 0; cpu < f->w.machine->n_cpus; cpu++)
    if (sim_machine_socket_of (f->w.machine, cpu) != sim_machine_socket_of (f->w.machine, 0))
      {
        b = cpu;
        break;
      }
  assert_true (b != 0);
  gint node_a = (gint) (sim_machine_socket_of (f->w.machine, a) % 2);
  gint node_b = (gint) (sim_machine_socket_of (f->w.machine, b) % 2);
  SimCacheId id = cache (f, "test_sheaf_256", 256, CAP);
  SimAddr objs[4];
  alloc_n (f, id, a, objs, 4);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_PCS], 4);

  free_n (f, b, objs, 2);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_PCS], 0);
  assert_int_equal (in.stat[SIM_SLUB_FREE_SLOWPATH], 2);
  free_n (f, a, objs + 2, 2);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_PCS], 2);

  guint64 slow = in.stat[SIM_SLUB_ALLOC_SLOWPATH] + in.stat[SIM_SLUB_ALLOC_FASTPATH];
  SimAddr r = alloc1 (f, id, a, node_b, SIM_GFP_WAIT);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_PCS], 4);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLOWPATH] + in.stat[SIM_SLUB_ALLOC_FASTPATH],
                    slow + 1);
  SimAddr l = alloc1 (f, id, a, node_a, SIM_GFP_WAIT);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_PCS], 5);
  assert_true (l == objs[3]);
  check (f);
  free1 (f, a, r);
  free1 (f, a, l);
  check (f);
  fix_free (f);
}

/* A seeded mix of allocations and frees on @id, on CPUs picked among the
 * first @n_cpus of each socket, in phases of 3000 operations that
 * mostly allocate, then mostly free; with @with_nodes some allocations
 * ask for a node, some may not sleep. */
static void
random_mix (Fix *f, SimCacheId id, guint n_ops, guint64 seed, guint n_cpus,
            gboolean with_nodes, gboolean with_flush, gboolean checks)
{
  SimRng rng;
  sim_rng_init (&rng, seed, 7);
  GArray *live = g_array_new (FALSE, FALSE, sizeof (SimAddr));
  GArray *cpus = g_array_new (FALSE, FALSE, sizeof (guint));
  guint per_socket[8] = { 0 };
  for (guint cpu = 0; cpu < f->w.machine->n_cpus; cpu++)
    {
      guint sk = sim_machine_socket_of (f->w.machine, cpu) % 8;
      if (per_socket[sk]++ < n_cpus)
        g_array_append_val (cpus, cpu);
    }
  for (guint i = 0; i < n_ops; i++)
    {
      guint cpu = g_array_index (cpus, guint, sim_rng_below (&rng, cpus->len));
      guint r = (guint) sim_rng_below (&rng, 100);
      guint bias = (i / 3000) % 2 ? 25 : 75;
      if (live->len == 0 || r < bias)
        {
          gint node = SIM_NUMA_NO_NODE;
          if (with_nodes && sim_rng_below (&rng, 8) == 0)
            node = (gint) sim_rng_below (&rng, 2);
          guint32 gfp = sim_rng_below (&rng, 4) ? SIM_GFP_WAIT : 0;
          SimAddr a = alloc1 (f, id, cpu, node, gfp);
          g_array_append_val (live, a);
        }
      else
        {
          guint k = (guint) sim_rng_below (&rng, live->len);
          free1 (f, cpu, g_array_index (live, SimAddr, k));
          g_array_remove_index_fast (live, k);
        }
      if (with_flush && sim_rng_below (&rng, 5000) == 0)
        {
          sim_slub_flush_all (f->slub, on (f, cpu));
          done (f);
        }
      if (checks && i % 500 == 0)
        check (f);
    }
  g_array_free (live, TRUE);
  g_array_free (cpus, TRUE);
}

/* Caches without a capacity run exactly as before: the same sequence on
 * a plain cache gives the same counters and the same cycles whether or
 * not a cache with sheaves exists beside it; and in the eras before 6.18
 * a sheaf_capacity changes nothing at all. */
static void
test_plain_and_old_eras_unchanged (void **state)
{
  (void) state;
  /* 6.18: the plain cache alone, then next to a sheaf cache that is
   * created but not used (its boot sheaves come from kmalloc-512). */
  Fix *f1 = fix_new ("slub@6.18");
  SimCacheId p1 = cache (f1, "test_plain_192", 192, 0);
  random_mix (f1, p1, 4000, 11, 16, FALSE, TRUE, FALSE);
  Fix *f2 = fix_new ("slub@6.18");
  cache (f2, "test_sheaf_256", 256, CAP);
  SimCacheId p2 = cache (f2, "test_plain_192", 192, 0);
  f2->cycles = 0;
  random_mix (f2, p2, 4000, 11, 16, FALSE, TRUE, FALSE);
  SimSlubCacheInfo i1, i2;
  info (f1, p1, &i1);
  info (f2, p2, &i2);
  assert_int_equal (i1.sheaf_capacity, 0);
  assert_memory_equal (i1.stat, i2.stat, sizeof i1.stat);
  assert_int_equal (i1.stat[SIM_SLUB_ALLOC_PCS] + i1.stat[SIM_SLUB_FREE_PCS]
                    + i1.stat[SIM_SLUB_SHEAF_ALLOC], 0);
  assert_true (i1.stat[SIM_SLUB_ALLOC_FASTPATH] > 0);
  check (f1);
  check (f2);
  fix_free (f1);
  fix_free (f2);

  /* Every older era: capacity 32 or 0, the same counters and cycles. */
  const char *const eras[] = { "slub@2.6.23", "slub@2.6.33", "slub@2.6.34" };
  for (guint e = 0; e < G_N_ELEMENTS (eras); e++)
    {
      Fix *a = fix_new (eras[e]);
      Fix *b = fix_new (eras[e]);
      SimCacheId ia = cache (a, "test_vma", 176, 0);
      SimCacheId ib = cache (b, "test_vma", 176, CAP);
      a->cycles = b->cycles = 0;
      random_mix (a, ia, 3000, 5, 16, FALSE, TRUE, FALSE);
      random_mix (b, ib, 3000, 5, 16, FALSE, TRUE, FALSE);
      SimSlubCacheInfo x, y;
      info (a, ia, &x);
      info (b, ib, &y);
      assert_int_equal (y.sheaf_capacity, 0);
      assert_memory_equal (x.stat, y.stat, sizeof x.stat);
      for (guint s = SIM_SLUB_N_CLASSIC_STATS; s < SIM_SLUB_N_STATS; s++)
        assert_int_equal (y.stat[s], 0);
      assert_true (a->cycles == b->cycles);
      assert_true (a->cycles > 0);
      check (b);
      fix_free (a);
      fix_free (b);
    }
}

/* The checker accounts for objects held in sheaves: clean after a seeded
 * mix on two nodes with node requests, non-sleeping allocations and
 * flushes; and every allocated object is in exactly one place. */
static void
test_checker_random_mix (void **state)
{
  (void) state;
  Fix *f = fix_new_on ("slub@6.18", NULL);
  SimCacheId id = cache (f, "test_sheaf_256", 256, CAP);
  SimCacheId small = cache (f, "test_sheaf_64", 64, 8);
  random_mix (f, id, 20000, 42, 2, TRUE, TRUE, TRUE);
  random_mix (f, small, 5000, 43, 2, TRUE, TRUE, TRUE);
  check (f);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_true (in.stat[SIM_SLUB_ALLOC_PCS] > 0);
  assert_true (in.stat[SIM_SLUB_FREE_PCS] > 0);
  assert_true (in.stat[SIM_SLUB_BARN_GET] > 0);
  assert_true (in.stat[SIM_SLUB_BARN_PUT] > 0);
  assert_true (in.stat[SIM_SLUB_SHEAF_FLUSH] > 0);
  assert_true (in.stat[SIM_SLUB_SHEAF_REFILL] > 0);
  sim_slub_flush_all (f->slub, on (f, 0));
  check (f);
  fix_free (f);
}

/* slabsim run on a real 6.18 trace: vm_area_struct and maple_node have
 * sheaves, the run's invariant check passes, and vm_area_struct is
 * served from its sheaves. */
static void
test_replay_trace (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/hackbench-T-g2-l50.trace.gz");
  char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "run", "--check", "-a", "slub@6.18",
                                                  "--format", "json", trace, NULL });
  if (rc != 0)
    print_error ("%s\n", err);
  assert_int_equal (rc, 0);
  const char *vma = strstr (out, "\"name\": \"vm_area_struct\"");
  assert_non_null (vma);
  const char *pcs = strstr (vma, "\"alloc_cpu_sheaf\": ");
  assert_non_null (pcs);
  /* Still inside vm_area_struct's entry: before the next cache. */
  const char *next = strstr (vma + 1, "\"name\": ");
  assert_true (next == NULL || pcs < next);
  long n = strtol (pcs + strlen ("\"alloc_cpu_sheaf\": "), NULL, 10);
  assert_true (n > 0);
  /* The older eras have no sheaf counters. */
  g_free (out);
  g_free (err);
  rc = tu_run (&out, &err, (const char *[]) { "run", "-a", "slub@2.6.34", "--format", "json",
                                              trace, NULL });
  assert_int_equal (rc, 0);
  assert_null (strstr (out, "alloc_cpu_sheaf"));
  g_free (out);
  g_free (err);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_lifo_and_refill),
    cmocka_unit_test (test_refill_reuses_barn_empty),
    cmocka_unit_test (test_swap_and_barn_put_get),
    cmocka_unit_test (test_barn_limit_flushes),
    cmocka_unit_test (test_numa_bypass),
    cmocka_unit_test (test_plain_and_old_eras_unchanged),
    cmocka_unit_test (test_checker_random_mix),
    cmocka_unit_test (test_replay_trace),
  };
  return cmocka_run_group_tests_name ("slub-sheaves", tests, NULL, NULL);
}
