/* test-page-pcp.c - the per-CPU pagesets of each era: batch and high
 * values, refill by batch, draining at high from the list tail, which
 * orders use the pcp, 6.18's alloc_factor/free_count scaling, the drain
 * size clamp and the free_high path. */
#include "page-test.h"

#define PG ((SimAddr) SIM_PAGE_SIZE)

/* Allocate @n order-@order blocks on @cpu into @out. */
static void
alloc_n (PtEnv *e, guint cpu, guint order, guint n, SimAddr *out)
{
  for (guint i = 0; i < n; i++)
    {
      out[i] = pt_alloc (e, cpu, order);
      assert_int_not_equal (out[i], 0);
    }
}

/* 2.6.23 zone_batchsize: 31 for a 1 GiB zone; hot high 186, cold 62/15. */
static void
test_2623_params (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 0, TRUE);
  SimPagePcpInfo p = pt_pcp (e, 0, 0);
  assert_int_equal (p.batch, 31);
  assert_int_equal (p.high, 186);
  assert_int_equal (p.cold_high, 62);
  assert_int_equal (p.cold_batch, 15);
  /* The pcp lives in the CPU's per-CPU area on the CPU's node. */
  assert_int_equal (sim_page_node_of (e->pa, pt_pcp (e, 2, 0).addr), 1);
  assert_int_equal (sim_memsys_home_node (e->mem, pt_pcp (e, 2, 0).addr), 1);
  pt_env_free (e);

  /* 256 MiB: 64 / 4 = 16, 16 + 8 = 24 -> 15. */
  e = pt_env_new (SIM_PAGE_ERA_2_6_23, 256ull << 20, TRUE);
  assert_int_equal (pt_pcp (e, 0, 0).batch, 15);
  assert_int_equal (pt_pcp (e, 0, 0).high, 90);
  pt_env_free (e);
}

/* 2.6.23: an empty pcp refills by batch (31) under zone->lock, then 30
 * allocations are pcp hits; the 32nd refills again. */
static void
test_2623_refill (void **state)
{
  (void) state;
  SimAddr a[32];
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 0, TRUE);
  const SimPageStats *s = sim_page_stats (e->pa);
  alloc_n (e, 0, 0, 1, a);
  assert_int_equal (s->pcp_refills, 1);
  assert_int_equal (s->zone_lock_acquisitions, 1);
  assert_int_equal (s->buddy_allocs, 31);
  assert_int_equal (pt_pcp (e, 0, 0).count, 30);
  alloc_n (e, 0, 0, 30, a + 1);
  assert_int_equal (s->pcp_hits, 30);
  assert_int_equal (s->zone_lock_acquisitions, 1);
  assert_int_equal (pt_pcp (e, 0, 0).count, 0);
  /* Pages come off the head in the order rmqueue_bulk queued them. */
  for (guint i = 1; i < 31; i++)
    assert_int_equal (a[i], a[0] + i * PG);
  alloc_n (e, 0, 0, 1, a + 31);
  assert_int_equal (s->pcp_refills, 2);
  assert_int_equal (s->zone_lock_acquisitions, 2);
  assert_int_equal (pt_pcp (e, 0, 0).count, 30);
  pt_assert_check (e);
  pt_env_free (e);
}

/* 2.6.23 and 2.6.32: frees go to the head; reaching high (186) frees one
 * batch (31) from the tail, i.e. the pages freed first. */
static void
run_drain_at_high (SimPageEra era)
{
  SimAddr a[186];
  PtEnv *e = pt_env_new (era, 0, TRUE);
  const SimPageStats *s = sim_page_stats (e->pa);
  alloc_n (e, 0, 0, 186, a);
  guint64 locks = s->zone_lock_acquisitions;
  /* CPU 1's pcp is empty: 185 frees stay on it. */
  for (guint i = 0; i < 185; i++)
    pt_free (e, 1, a[i], 0);
  SimPagePcpInfo p = pt_pcp (e, 1, 0);
  assert_int_equal (p.count, 185);
  assert_int_equal (p.list_tail[0], a[0]);
  assert_int_equal (p.list_head[0], a[184]);
  assert_int_equal (s->pcp_drains, 0);
  assert_int_equal (s->zone_lock_acquisitions, locks);
  pt_free (e, 1, a[185], 0);
  p = pt_pcp (e, 1, 0);
  assert_int_equal (p.count, 186 - 31);
  assert_int_equal (s->pcp_drains, 1);
  assert_int_equal (s->zone_lock_acquisitions, locks + 1);
  assert_int_equal (p.list_tail[0], a[31]);
  assert_int_equal (p.list_head[0], a[185]);
  pt_assert_check (e);
  pt_env_free (e);
}

static void
test_drain_at_high_2623 (void **state)
{
  (void) state;
  run_drain_at_high (SIM_PAGE_ERA_2_6_23);
}

static void
test_drain_at_high_2632 (void **state)
{
  (void) state;
  run_drain_at_high (SIM_PAGE_ERA_2_6_32);
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_32, 0, TRUE);
  SimPagePcpInfo p = pt_pcp (e, 3, 1);
  assert_int_equal (p.batch, 31);
  assert_int_equal (p.high, 186);
  pt_env_free (e);
}

/* Order > 0 never touches the pcp before 6.18; in 6.18 orders 1..3 do
 * and order 4 does not. */
static void
test_high_order_pcp (void **state)
{
  (void) state;
  SimPageEra old[] = { SIM_PAGE_ERA_2_6_23, SIM_PAGE_ERA_2_6_32 };
  for (guint i = 0; i < G_N_ELEMENTS (old); i++)
    {
      PtEnv *e = pt_env_new (old[i], 0, TRUE);
      SimAddr a = pt_alloc (e, 0, 1);
      const SimPageStats *s = sim_page_stats (e->pa);
      assert_int_equal (s->pcp_refills, 0);
      assert_int_equal (s->zone_lock_acquisitions, 1);
      assert_int_equal (pt_pcp (e, 0, 0).count, 0);
      pt_free (e, 0, a, 1);
      assert_int_equal (s->zone_lock_acquisitions, 2);
      assert_int_equal (pt_pcp (e, 0, 0).count, 0);
      pt_env_free (e);
    }

  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 0, TRUE);
  const SimPageStats *s = sim_page_stats (e->pa);
  SimAddr a = pt_alloc (e, 0, 1);
  /* nr_pcp_alloc for order 1: max(batch >> 1, 2) = 31 blocks. */
  SimPagePcpInfo p = pt_pcp (e, 0, 0);
  assert_int_equal (s->pcp_refills, 1);
  assert_int_equal (p.list_len[1], 30);
  assert_int_equal (p.count, 60);
  assert_int_equal (p.list_head[1], a + 2 * PG);
  pt_free (e, 0, a, 1);
  p = pt_pcp (e, 0, 0);
  assert_int_equal (p.list_len[1], 31);
  assert_int_equal (p.list_head[1], a);
  /* Order 3: max(63 >> 3, 2) = 7 blocks. */
  pt_alloc (e, 0, 3);
  assert_int_equal (pt_pcp (e, 0, 0).list_len[3], 6);
  guint64 refills = s->pcp_refills;
  pt_alloc (e, 0, 4);
  assert_int_equal (s->pcp_refills, refills);
  pt_assert_check (e);
  pt_env_free (e);
}

/* 6.18: batch 63; high_min = max(low_wmark / 2 CPUs, 4 batch), high_max
 * = max(managed / 8 / 2 CPUs, 4 batch).  Two 1 GiB nodes: min_free_kbytes
 * = sqrt(2 GiB in KiB * 16) = 5792, 1448 pages, 724 per zone; low = 724 +
 * max(181, 262) = 986. */
static void
test_618_params (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 0, TRUE);
  SimPagePcpInfo p = pt_pcp (e, 1, 0);
  assert_int_equal (p.batch, 63);
  assert_int_equal (p.high_min, 493);
  assert_int_equal (p.high_max, 16384);
  assert_int_equal (p.high, 493);
  pt_env_free (e);

  /* One node, four CPUs sharing it: 2 GiB / 8 / 4 and 1 GiB of memory:
   * min_free_kbytes 4096, 1024 pages, low = 1024 + 262 = 1286. */
  e = pt_env_new (SIM_PAGE_ERA_6_18, 0, FALSE);
  assert_int_equal (sim_page_n_nodes (e->pa), 1);
  p = pt_pcp (e, 3, 0);
  assert_int_equal (p.batch, 63);
  assert_int_equal (p.high_min, 1286 / 4);
  assert_int_equal (p.high_max, 262144 / 8 / 4);
  pt_env_free (e);
}

/* 6.18 refill: nr_pcp_alloc grows with alloc_factor: 63, then 126, and
 * an auto-tuned pcp raises its high by each refill's batch ("if we had
 * larger pcp->high, we could avoid to allocate from zone"): 493 + 63,
 * then + 126. */
static void
test_618_refill_scaling (void **state)
{
  (void) state;
  SimAddr a[64];
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 0, TRUE);
  alloc_n (e, 0, 0, 1, a);
  SimPagePcpInfo p = pt_pcp (e, 0, 0);
  assert_int_equal (p.count, 62);
  assert_int_equal (p.alloc_factor, 1);
  assert_int_equal (p.high, 493 + 63);
  alloc_n (e, 0, 0, 63, a);
  p = pt_pcp (e, 0, 0);
  assert_int_equal (sim_page_stats (e->pa)->pcp_refills, 2);
  assert_int_equal (p.count, 125);
  assert_int_equal (p.alloc_factor, 2);
  assert_int_equal (p.high, 493 + 63 + 126);
  /* A free halves alloc_factor. */
  pt_free (e, 0, a[0], 0);
  assert_int_equal (pt_pcp (e, 0, 0).alloc_factor, 1);
  pt_assert_check (e);
  pt_env_free (e);
}

/* 6.18 drain size: clamp(free_count, batch, high - batch), from the
 * tails, and high grows to free_count + batch (auto-tuning). */
static void
test_618_drain_clamp (void **state)
{
  (void) state;
  enum { N = 1100 };
  SimAddr *a = g_new (SimAddr, N);
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 0, TRUE);
  const SimPageStats *s = sim_page_stats (e->pa);
  alloc_n (e, 0, 0, N, a);
  for (guint i = 0; i < 492; i++)
    pt_free (e, 1, a[i], 0);
  assert_int_equal (s->pcp_drains, 0);
  pt_free (e, 1, a[492], 0);
  SimPagePcpInfo p = pt_pcp (e, 1, 0);
  /* free_count 493 clamped to high - batch = 430. */
  assert_int_equal (s->pcp_drains, 1);
  assert_int_equal (p.count, 63);
  assert_int_equal (p.high, 493 + 63);
  assert_int_equal (p.free_count, 493);
  assert_int_equal (p.list_tail[0], a[430]);
  /* Next drain at 556 with free_count 986: clamp to 556 - 63 = 493. */
  guint i = 493;
  while (s->pcp_drains == 1)
    pt_free (e, 1, a[i++], 0);
  assert_int_equal (i, 493 + 493);
  p = pt_pcp (e, 1, 0);
  assert_int_equal (p.count, 63);
  assert_int_equal (p.high, 986 + 63);
  pt_assert_check (e);
  pt_env_free (e);

  /* Lower bound: allocations halve free_count; a drain then frees batch. */
  e = pt_env_new (SIM_PAGE_ERA_6_18, 0, TRUE);
  s = sim_page_stats (e->pa);
  alloc_n (e, 0, 0, N, a);
  for (i = 0; i < 492; i++)
    pt_free (e, 1, a[i], 0);
  for (guint k = 0; k < 10; k++)
    pt_alloc (e, 1, 0);
  p = pt_pcp (e, 1, 0);
  assert_int_equal (p.free_count, 0);
  assert_int_equal (p.count, 482);
  for (i = 492; pt_pcp (e, 1, 0).count < 493 && s->pcp_drains == 0; i++)
    pt_free (e, 1, a[i], 0);
  assert_int_equal (s->pcp_drains, 1);
  p = pt_pcp (e, 1, 0);
  assert_int_equal (p.count, 493 - 63);
  assert_int_equal (p.high, 493);
  pt_assert_check (e);
  pt_env_free (e);
  g_free (a);
}

/* 6.18 free_high: consecutive order-1 frees without allocations drain
 * the pcp entirely once free_count >= batch + high_min / 2. */
static void
test_618_free_high (void **state)
{
  (void) state;
  enum { N = 300 };
  SimAddr a[N];
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 0, TRUE);
  const SimPageStats *s = sim_page_stats (e->pa);
  alloc_n (e, 0, 1, N, a);
  guint i = 0;
  while (s->pcp_drains == 0 && i < N)
    pt_free (e, 1, a[i++], 1);
  /* free_count grows by 2 a free: the 155th makes 310 >= 63 + 246 on
   * the next free, with at least batch pages on the pcp. */
  assert_int_equal (i, 156);
  SimPagePcpInfo p = pt_pcp (e, 1, 0);
  assert_int_equal (p.count, 0);
  assert_int_equal (p.high, 493);
  while (i < N)
    pt_free (e, 1, a[i++], 1);
  p = pt_pcp (e, 1, 0);
  assert_true (p.count < 63 + 2);
  assert_true (s->pcp_drains >= 2);
  pt_assert_check (e);
  pt_env_free (e);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_2623_params),
    cmocka_unit_test (test_2623_refill),
    cmocka_unit_test (test_drain_at_high_2623),
    cmocka_unit_test (test_drain_at_high_2632),
    cmocka_unit_test (test_high_order_pcp),
    cmocka_unit_test (test_618_params),
    cmocka_unit_test (test_618_refill_scaling),
    cmocka_unit_test (test_618_drain_clamp),
    cmocka_unit_test (test_618_free_high),
  };
  return cmocka_run_group_tests_name ("page-pcp", tests, NULL, NULL);
}
