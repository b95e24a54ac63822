/* test-page-buddy.c - the buddy allocator: exact split and merge
 * sequences, buddy address arithmetic, LIFO reuse, compound pages,
 * __GFP_ZERO, out of memory, random mixes under sim_page_check. */
#include "page-test.h"
#include "sim/core/rng.h"

#define MiB (1ull << 20)
#define PG  ((SimAddr) SIM_PAGE_SIZE)

/* A fresh zone of 64 MiB holds 16 order-10 blocks and nothing else. */
static void
test_fresh_zone (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 64 * MiB, TRUE);
  assert_int_equal (sim_page_n_nodes (e->pa), 2);
  for (guint n = 0; n < 2; n++)
    for (guint o = 0; o < SIM_PAGE_MAX_ORDER; o++)
      assert_int_equal (sim_page_nr_free (e->pa, n, o), o == 10 ? 16 : 0);
  assert_int_equal (sim_page_allocated (e->pa), 0);
  pt_assert_check (e);
  pt_env_free (e);
}

/* Order 1 from a fresh zone (2.6.23: straight to the buddy): the head
 * order-10 block is split down, one upper half left on each order 1..9;
 * freeing it merges everything back. */
static void
test_split_merge_order1 (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 64 * MiB, TRUE);
  SimAddr top = sim_page_free_list_head (e->pa, 0, 10);
  SimAddr a = pt_alloc (e, 0, 1);
  assert_int_equal (a, top);
  for (guint o = 0; o < SIM_PAGE_MAX_ORDER; o++)
    {
      guint64 want = o == 10 ? 15 : o == 0 ? 0 : 1;
      assert_int_equal (sim_page_nr_free (e->pa, 0, o), want);
      if (o >= 1 && o <= 9)
        /* expand() left the upper half of each split on the lower list. */
        assert_int_equal (sim_page_free_list_head (e->pa, 0, o), a + (PG << o));
    }
  const SimPageStats *s = sim_page_stats (e->pa);
  assert_int_equal (s->buddy_splits, 9);
  assert_int_equal (s->buddy_allocs, 1);
  assert_int_equal (s->zone_lock_acquisitions, 1);
  assert_int_equal (s->pcp_refills, 0);
  assert_int_equal (sim_page_allocated (e->pa), 2);
  pt_assert_check (e);

  pt_free (e, 0, a, 1);
  for (guint o = 0; o < SIM_PAGE_MAX_ORDER; o++)
    assert_int_equal (sim_page_nr_free (e->pa, 0, o), o == 10 ? 16 : 0);
  assert_int_equal (s->buddy_merges, 9);
  assert_int_equal (sim_page_free_list_head (e->pa, 0, 10), top);
  assert_int_equal (sim_page_allocated (e->pa), 0);
  pt_assert_check (e);
  pt_env_free (e);
}

/* Order 0 from a fresh 1 GiB 2.6.23 zone: rmqueue_bulk takes 31 pages
 * one by one, which leaves exactly one free block on order 0 and on orders
 * 5..9 (pages 0..30 of the top block taken, 31 alone, 32..63 order 5...). */
static void
test_split_order0_bulk (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 0, TRUE);
  SimAddr top = sim_page_free_list_head (e->pa, 0, 10);
  SimAddr a = pt_alloc (e, 0, 0);
  assert_int_equal (a, top);
  static const guint64 want[11] = { 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 255 };
  for (guint o = 0; o < SIM_PAGE_MAX_ORDER; o++)
    assert_int_equal (sim_page_nr_free (e->pa, 0, o), want[o]);
  assert_int_equal (sim_page_free_list_head (e->pa, 0, 0), top + 31 * PG);
  assert_int_equal (sim_page_free_list_head (e->pa, 0, 5), top + 32 * PG);
  SimPagePcpInfo p = pt_pcp (e, 0, 0);
  assert_int_equal (p.count, 30);
  assert_int_equal (p.list_head[0], top + PG);
  assert_int_equal (p.list_tail[0], top + 30 * PG);
  pt_assert_check (e);
  pt_env_free (e);
}

/* Buddies are pfn ^ (1 << order): two order-3 blocks in a row are
 * buddies; freeing both merges all the way back up. */
static void
test_buddy_arithmetic (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 64 * MiB, TRUE);
  SimAddr a = pt_alloc (e, 0, 3);
  SimAddr b = pt_alloc (e, 0, 3);
  assert_int_equal (b, a + 8 * PG);
  assert_int_equal (sim_page_nr_free (e->pa, 0, 3), 0);
  pt_free (e, 0, a, 3);
  /* b is allocated: no merge, a waits on the order-3 list. */
  assert_int_equal (sim_page_nr_free (e->pa, 0, 3), 1);
  assert_int_equal (sim_page_free_list_head (e->pa, 0, 3), a);
  assert_int_equal (sim_page_stats (e->pa)->buddy_merges, 0);
  pt_free (e, 0, b, 3);
  assert_int_equal (sim_page_stats (e->pa)->buddy_merges, 7);
  for (guint o = 0; o < SIM_PAGE_MAX_ORDER; o++)
    assert_int_equal (sim_page_nr_free (e->pa, 0, o), o == 10 ? 16 : 0);
  pt_assert_check (e);
  pt_env_free (e);
}

/* A block freed is at the head of its list and the next allocation of
 * that order gets it back (buddy and pcp). */
static void
test_lifo_reuse (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 64 * MiB, TRUE);
  SimAddr x = pt_alloc (e, 0, 2);
  SimAddr y = pt_alloc (e, 0, 2);   /* keeps x from merging */
  pt_free (e, 0, x, 2);
  assert_int_equal (pt_alloc (e, 0, 2), x);

  SimAddr p = pt_alloc (e, 1, 0), q = pt_alloc (e, 1, 0);
  pt_free (e, 1, p, 0);
  pt_free (e, 1, q, 0);
  assert_int_equal (pt_alloc (e, 1, 0), q);
  assert_int_equal (pt_alloc (e, 1, 0), p);
  (void) y;
  pt_assert_check (e);
  pt_env_free (e);
}

/* 6.18's buddy_merge_likely: a block whose combined block's buddy is free
 * goes to the tail of its list; 2.6.x always adds at the head. */
static void
run_merge_likely (SimPageEra era, gboolean expect_tail)
{
  PtEnv *e = pt_env_new (era, 64 * MiB, TRUE);
  SimAddr a = pt_alloc (e, 0, 4);
  SimAddr b = pt_alloc (e, 0, 4), c = pt_alloc (e, 0, 4), d = pt_alloc (e, 0, 4);
  SimAddr x = pt_alloc (e, 0, 4);
  assert_int_equal (b, a + 16 * PG);
  assert_int_equal (x, a + 64 * PG);
  /* Order 4 now holds a+80; c and d merge into a free order-5 block. */
  assert_int_equal (sim_page_free_list_head (e->pa, 0, 4), a + 80 * PG);
  pt_free (e, 0, c, 4);
  pt_free (e, 0, d, 4);
  assert_int_equal (sim_page_free_list_head (e->pa, 0, 5), a + 32 * PG);
  /* b cannot merge (a is allocated) but its order-5 neighbour is free. */
  pt_free (e, 0, b, 4);
  assert_int_equal (sim_page_nr_free (e->pa, 0, 4), 2);
  assert_int_equal (sim_page_free_list_head (e->pa, 0, 4),
                    expect_tail ? a + 80 * PG : b);
  pt_assert_check (e);
  pt_env_free (e);
}

static void
test_merge_likely_tail (void **state)
{
  (void) state;
  run_merge_likely (SIM_PAGE_ERA_6_18, TRUE);
  run_merge_likely (SIM_PAGE_ERA_2_6_23, FALSE);
  run_merge_likely (SIM_PAGE_ERA_2_6_32, FALSE);
}

/* Boot order: 2.6.x hands out the highest block first, 6.18 the lowest. */
static void
test_boot_order (void **state)
{
  (void) state;
  PtEnv *old = pt_env_new (SIM_PAGE_ERA_2_6_32, 64 * MiB, TRUE);
  PtEnv *new = pt_env_new (SIM_PAGE_ERA_6_18, 64 * MiB, TRUE);
  SimAddr lo = sim_page_free_list_head (new->pa, 0, 10);
  assert_int_equal (sim_page_free_list_head (old->pa, 0, 10), lo + 15 * (4 * MiB));
  assert_int_equal (pt_alloc (new, 0, 5), lo);
  pt_env_free (old);
  pt_env_free (new);
}

/* prep_compound_page writes every tail's struct page: the compound
 * allocation makes exactly head + tails + page[1] (+ page[2] in 6.18)
 * more accesses than the same allocation without __GFP_COMP. */
static void
run_compound (SimPageEra era, guint extra_alloc, guint extra_free)
{
  guint order = 3, n = 1u << order;
  SimOp op_plain, op_comp, fp, fc;
  PtEnv *e1 = pt_env_new (era, 64 * MiB, TRUE);
  PtEnv *e2 = pt_env_new (era, 64 * MiB, TRUE);
  SimAddr a1 = pt_alloc_full (e1, &op_plain, 0, order, SIM_NUMA_NO_NODE, 0, FALSE);
  SimAddr a2 = pt_alloc_full (e2, &op_comp, 0, order, SIM_NUMA_NO_NODE, 0, TRUE);
  assert_int_equal (a1, a2);
  assert_int_equal (op_comp.cost.accesses - op_plain.cost.accesses, extra_alloc);
  assert_true (op_comp.cost.instr > op_plain.cost.instr);
  for (guint i = 0; i < n; i++)
    {
      assert_int_equal (sim_page_head (e2->pa, a2 + i * PG + 100), a2);
      assert_int_equal (sim_page_head (e1->pa, a1 + i * PG + 100), a1 + i * PG);
      /* The lookups in one call (slab_of_addr) give the same three
       * addresses, for head and tail pages and for an ordinary page. */
      for (guint k = 0; k < 2; k++)
        {
          PtEnv *e = k ? e2 : e1;
          SimAddr a = (k ? a2 : a1) + i * PG + 100, pg = 0, hpg = 0;
          SimAddr h = sim_page_head_structs (e->pa, a, &pg, &hpg);
          assert_int_equal (h, sim_page_head (e->pa, a));
          assert_int_equal (pg, sim_page_struct (e->pa, a));
          assert_int_equal (hpg, sim_page_struct (e->pa, h));
          assert_true (k == 0 || i == 0 || hpg != pg);
        }
    }
  pt_assert_check (e2);
  pt_free_op (e1, &fp, 0, a1, order);
  pt_free_op (e2, &fc, 0, a2, order);
  assert_int_equal (fc.cost.accesses - fp.cost.accesses, extra_free);
  /* Tails are ordinary pages again. */
  assert_int_equal (sim_page_head (e2->pa, a2 + 5 * PG), a2 + 5 * PG);
  pt_assert_check (e2);
  pt_env_free (e1);
  pt_env_free (e2);
}

static void
test_compound_tails (void **state)
{
  (void) state;
  /* 2.6.x: PG_head + 7 tails + page[1] (order, destructor); free reads
   * page[1] and each tail's first_page. */
  run_compound (SIM_PAGE_ERA_2_6_23, 1 + 7 + 1, 1 + 7);
  run_compound (SIM_PAGE_ERA_2_6_32, 1 + 7 + 1, 1 + 7);
  /* 6.18: the folio fields in page[2] too; free_tail_page_prepare reads
   * each tail's compound_head. */
  run_compound (SIM_PAGE_ERA_6_18, 1 + 7 + 1 + 1, 7);
}

/* __GFP_ZERO writes every 64-byte line of the block. */
static void
test_gfp_zero (void **state)
{
  (void) state;
  SimOp plain, zero;
  PtEnv *e1 = pt_env_new (SIM_PAGE_ERA_2_6_23, 64 * MiB, TRUE);
  PtEnv *e2 = pt_env_new (SIM_PAGE_ERA_2_6_23, 64 * MiB, TRUE);
  pt_alloc_full (e1, &plain, 0, 2, SIM_NUMA_NO_NODE, 0, FALSE);
  pt_alloc_full (e2, &zero, 0, 2, SIM_NUMA_NO_NODE, SIM_GFP_ZERO, FALSE);
  assert_int_equal (zero.cost.accesses - plain.cost.accesses, 4 * SIM_PAGE_SIZE / 64);
  assert_int_equal (zero.cost.instr - plain.cost.instr, 8 * 4 * SIM_PAGE_SIZE / 64);
  assert_int_equal (sim_page_stats (e2->pa)->pages_zeroed, 4);
  assert_int_equal (sim_page_stats (e1->pa)->pages_zeroed, 0);
  SimCpuMemStats st;
  sim_memsys_total_stats (e2->mem, &st);
  assert_true (st.class_misses[SIM_MEM_OBJECT][0] >= 4 * SIM_PAGE_SIZE / 64);
  pt_env_free (e1);
  pt_env_free (e2);
}

/* Out of memory: 0 and alloc_failed, no crash, state still consistent;
 * without __GFP_THISNODE the other node is used first. */
static void
test_out_of_memory (void **state)
{
  (void) state;
  SimOp op;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 8 * MiB, TRUE);
  SimAddr a = pt_alloc (e, 0, 10), b = pt_alloc (e, 0, 10);
  assert_int_not_equal (a, 0);
  assert_int_not_equal (b, 0);
  assert_int_equal (sim_page_node_of (e->pa, a), 0);
  assert_int_equal (pt_alloc_full (e, &op, 0, 0, 0, SIM_GFP_THISNODE, FALSE), 0);
  assert_int_equal (sim_page_stats (e->pa)->alloc_failed, 1);
  SimAddr c = pt_alloc (e, 0, 10);
  assert_int_equal (sim_page_node_of (e->pa, c), 1);
  SimAddr d = pt_alloc (e, 0, 10);
  assert_int_not_equal (d, 0);
  assert_int_equal (pt_alloc (e, 0, 10), 0);
  assert_int_equal (pt_alloc (e, 3, 0), 0);
  assert_int_equal (sim_page_stats (e->pa)->alloc_failed, 3);
  assert_int_equal (sim_page_stats (e->pa)->alloc, 4);
  assert_int_equal (sim_page_allocated (e->pa), 4 * 1024);
  pt_assert_check (e);
  pt_free (e, 0, b, 10);
  /* A tiny zone: zone_batchsize is 0, so batch 1 and high 0. */
  assert_int_equal (pt_pcp (e, 0, 0).batch, 1);
  assert_int_equal (pt_pcp (e, 0, 0).high, 0);
  SimAddr z = pt_alloc (e, 0, 0);
  assert_int_not_equal (z, 0);
  assert_int_equal (pt_pcp (e, 0, 0).count, 0);
  pt_free (e, 0, z, 0);
  assert_int_equal (pt_pcp (e, 0, 0).count, 0);
  assert_int_equal (sim_page_nr_free (e->pa, 0, 10), 1);
  pt_assert_check (e);
  pt_env_free (e);
}

/* Pages parked on another CPU's pageset are only recovered by a sleeping
 * allocation (drain_all_pages on the slow path), which then succeeds. */
static void
test_drain_all_on_failure (void **state)
{
  (void) state;
  SimOp op;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 8 * MiB, TRUE);
  const SimPageStats *s = sim_page_stats (e->pa);
  SimAddr *a = g_new0 (SimAddr, 2048 + 1);   /* the failing store too */
  guint n = 0;
  while ((a[n] = pt_alloc_full (e, &op, 0, 0, 0, SIM_GFP_THISNODE, FALSE)) != 0)
    n++;
  assert_int_equal (n, 2048);
  assert_int_equal (s->alloc_failed, 1);
  for (guint i = 0; i < 30; i++)
    pt_free (e, 1, a[i], 0);
  assert_int_equal (pt_pcp (e, 1, 0).count, 30);
  assert_int_equal (pt_alloc_full (e, &op, 0, 0, 0, SIM_GFP_THISNODE, FALSE), 0);
  assert_int_equal (s->alloc_failed, 2);
  guint64 drains = s->pcp_drains;
  SimAddr b = pt_alloc_full (e, &op, 0, 0, 0, SIM_GFP_THISNODE | SIM_GFP_WAIT, FALSE);
  assert_int_not_equal (b, 0);
  assert_int_equal (s->pcp_drains, drains + 1);
  assert_int_equal (pt_pcp (e, 1, 0).count, 0);
  assert_true (op.cost.lock_wait > 0);
  assert_int_equal (s->alloc_failed, 2);
  pt_assert_check (e);
  /* Nothing left anywhere: a sleeping allocation fails too. */
  while (pt_alloc_full (e, &op, 0, 0, 0, SIM_GFP_THISNODE | SIM_GFP_WAIT, FALSE) != 0)
    ;
  assert_int_equal (s->alloc_failed, 3);
  pt_assert_check (e);
  g_free (a);
  pt_env_free (e);
}

typedef struct {
  SimAddr addr;
  guint order;
} Live;

/* Random seeded mixes of allocations and frees of orders 0..5 on four
 * CPUs and both nodes keep every invariant, and freeing everything
 * returns every page. */
static void
run_random (SimPageEra era, guint64 managed, guint64 seed)
{
  PtEnv *e = pt_env_new (era, managed, TRUE);
  SimRng rng;
  sim_rng_init (&rng, seed, 7);
  GArray *live = g_array_new (FALSE, FALSE, sizeof (Live));
  static const guint orders[] = { 0, 0, 0, 0, 1, 1, 2, 3, 3, 4, 5 };
  guint64 pages = 0;
  for (guint i = 0; i < 6000; i++)
    {
      guint cpu = (guint) sim_rng_below (&rng, 4);
      if (live->len == 0 || sim_rng_below (&rng, 100) < 62)
        {
          SimOp op;
          guint order = orders[sim_rng_below (&rng, G_N_ELEMENTS (orders))];
          gint node = (gint) sim_rng_below (&rng, 3) - 1;
          gboolean comp = sim_rng_below (&rng, 2);
          guint32 gfp = (sim_rng_below (&rng, 8) == 0 ? SIM_GFP_ZERO : 0)
                        | (sim_rng_below (&rng, 2) ? SIM_GFP_WAIT : 0);
          SimAddr a = pt_alloc_full (e, &op, cpu, order, node, gfp, comp);
          if (a)
            {
              Live l = { a, order };
              g_array_append_val (live, l);
              pages += 1u << order;
            }
        }
      else
        {
          guint k = (guint) sim_rng_below (&rng, live->len);
          Live l = g_array_index (live, Live, k);
          g_array_remove_index_fast (live, k);
          pt_free (e, cpu, l.addr, l.order);
          pages -= 1u << l.order;
        }
      if (i % 1000 == 999)
        {
          assert_int_equal (sim_page_allocated (e->pa), pages);
          pt_assert_check (e);
        }
    }
  assert_true (sim_page_stats (e->pa)->buddy_merges > 0);
  if (managed == 16 * MiB)
    /* 2 x 16 MiB hold 8192 pages: some allocations failed. */
    assert_true (sim_page_stats (e->pa)->alloc_failed > 0);
  for (guint k = 0; k < live->len; k++)
    {
      Live l = g_array_index (live, Live, k);
      pt_free (e, k % 4, l.addr, l.order);
    }
  assert_int_equal (sim_page_allocated (e->pa), 0);
  const SimPageStats *s = sim_page_stats (e->pa);
  assert_int_equal (s->alloc, s->free);
  pt_assert_check (e);
  g_array_free (live, TRUE);
  pt_env_free (e);
}

static void
test_random_mix (void **state)
{
  (void) state;
  /* 16 MiB nodes run out of memory (tiny pcp: batch 1); 64 MiB nodes
   * have batch 3 and never run out. */
  run_random (SIM_PAGE_ERA_2_6_23, 16 * MiB, 1);
  run_random (SIM_PAGE_ERA_2_6_23, 64 * MiB, 4);
  run_random (SIM_PAGE_ERA_2_6_32, 64 * MiB, 2);
  run_random (SIM_PAGE_ERA_6_18, 16 * MiB, 3);
  run_random (SIM_PAGE_ERA_6_18, 64 * MiB, 5);
}

/* The check catches a frame that is both on a free list and allocated,
 * and a frame inside a free block marked allocated. */
static void
test_check_detects_corruption (void **state)
{
  (void) state;
  GError *error = NULL;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 16 * MiB, TRUE);
  SimAddr head = sim_page_free_list_head (e->pa, 1, 10);
  sim_page_test_corrupt (e->pa, head);
  assert_false (sim_page_check (e->pa, &error));
  assert_non_null (error);
  assert_true (g_error_matches (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT));
  g_clear_error (&error);
  pt_env_free (e);

  e = pt_env_new (SIM_PAGE_ERA_2_6_23, 16 * MiB, TRUE);
  sim_page_test_corrupt (e->pa, sim_page_free_list_head (e->pa, 0, 10) + 17 * PG);
  assert_false (sim_page_check (e->pa, &error));
  tu_assert_contains (error->message, "both allocated and free");
  g_clear_error (&error);
  pt_env_free (e);
}

/* Bad parameters are configuration errors, not crashes. */
static void
test_bad_params (void **state)
{
  (void) state;
  PtEnv e0;
  GError *error = NULL;
  pt_machine (&e0, TRUE);
  SimMemSys *mem = sim_memsys_new (&e0.m, &error);
  assert_non_null (mem);
  SimPageParams p = { .era = SIM_PAGE_ERA_6_18, .managed_bytes = 5 * MiB };
  assert_null (sim_page_alloc_new (&e0.m, mem, &p, &error));
  assert_true (g_error_matches (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE));
  tu_assert_contains (error->message, "multiple of 4 MiB");
  g_clear_error (&error);
  e0.m.node_bytes = 512 * MiB;
  p.managed_bytes = 512 * MiB;
  assert_null (sim_page_alloc_new (&e0.m, mem, &p, &error));
  assert_true (g_error_matches (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID));
  tu_assert_contains (error->message, "bytes per node");
  g_clear_error (&error);
  sim_memsys_free (mem);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fresh_zone),
    cmocka_unit_test (test_split_merge_order1),
    cmocka_unit_test (test_split_order0_bulk),
    cmocka_unit_test (test_buddy_arithmetic),
    cmocka_unit_test (test_lifo_reuse),
    cmocka_unit_test (test_merge_likely_tail),
    cmocka_unit_test (test_boot_order),
    cmocka_unit_test (test_compound_tails),
    cmocka_unit_test (test_gfp_zero),
    cmocka_unit_test (test_out_of_memory),
    cmocka_unit_test (test_drain_all_on_failure),
    cmocka_unit_test (test_random_mix),
    cmocka_unit_test (test_check_detects_corruption),
    cmocka_unit_test (test_bad_params),
  };
  return cmocka_run_group_tests_name ("page-buddy", tests, NULL, NULL);
}
