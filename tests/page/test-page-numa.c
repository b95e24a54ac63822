/* test-page-numa.c - the physical memory map across nodes: pages from the
 * CPU's node, struct page and static data on the right node, the
 * non-NUMA single node, and zone->lock contention between CPUs. */
#include "page-test.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define PG  ((SimAddr) SIM_PAGE_SIZE)

/* Node n's range starts at n * node_bytes: memmap, static area, frames. */
static void
test_layout (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 0, TRUE);
  for (guint n = 0; n < 2; n++)
    {
      SimAddr head = sim_page_free_list_head (e->pa, n, 10);
      assert_int_equal (sim_page_node_of (e->pa, head), n);
      assert_true (head >= n * e->m.node_bytes);
      assert_true (head < n * e->m.node_bytes + 2 * GiB);
      assert_int_equal (head % (4 * MiB), 0);
      /* The memmap starts the node: struct page = base + pfn * 64. */
      SimAddr sp = sim_page_struct (e->pa, head + 123);
      assert_int_equal (sp, n * e->m.node_bytes
                            + ((head - n * e->m.node_bytes) >> SIM_PAGE_SHIFT) * 64);
      assert_int_equal (sim_page_struct (e->pa, head + PG), sp + SIM_STRUCT_PAGE_SIZE);
      assert_int_equal (sim_memsys_home_node (e->mem, sp), n);
      SimAddr lock = sim_page_zone_lock_addr (e->pa, n);
      assert_int_equal (sim_memsys_home_node (e->mem, lock), n);
      assert_true (lock > sp || n == 0 || lock > n * e->m.node_bytes);
    }
  pt_env_free (e);
}

/* Allocations with no node come from the CPU's node; an explicit node
 * wins; struct page lives on the page's node. */
static void
test_pages_from_cpu_node (void **state)
{
  (void) state;
  SimOp op;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_32, 0, TRUE);
  for (guint cpu = 0; cpu < 4; cpu++)
    {
      SimAddr a = pt_alloc (e, cpu, cpu % 2 ? 2 : 0);
      guint want = sim_machine_socket_of (&e->m, cpu);
      assert_int_equal (sim_page_node_of (e->pa, a), want);
      assert_int_equal (sim_memsys_home_node (e->mem, a), want);
      assert_int_equal (sim_memsys_home_node (e->mem, sim_page_struct (e->pa, a)), want);
    }
  SimAddr r = pt_alloc_full (e, &op, 0, 0, 1, 0, FALSE);
  assert_int_equal (sim_page_node_of (e->pa, r), 1);
  assert_int_equal (sim_memsys_home_node (e->mem, sim_page_struct (e->pa, r)), 1);
  /* The remote page went through CPU 0's pageset for node 1's zone. */
  assert_int_equal (pt_pcp (e, 0, 1).count, 30);
  pt_assert_check (e);
  pt_env_free (e);
}

/* Static data: aligned, on the requested node, bump allocated. */
static void
test_static_alloc (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 64 * MiB, TRUE);
  SimAddr a = sim_page_static_alloc (e->pa, 1, 100, 4096);
  SimAddr b = sim_page_static_alloc (e->pa, 1, 8, 8);
  SimAddr c = sim_page_static_alloc (e->pa, 1, 64, 64);
  SimAddr d = sim_page_static_alloc (e->pa, 0, 24, 256);
  assert_int_equal (a % 4096, 0);
  assert_int_equal (b, a + 104);
  assert_int_equal (c % 64, 0);
  assert_true (c >= b + 8);
  assert_int_equal (d % 256, 0);
  assert_int_equal (sim_page_node_of (e->pa, a), 1);
  assert_int_equal (sim_memsys_home_node (e->mem, a), 1);
  assert_int_equal (sim_memsys_home_node (e->mem, d), 0);
  /* Static data is below the buddy frames and above the memmap. */
  assert_true (a < sim_page_free_list_head (e->pa, 1, 10));
  assert_true (d < sim_page_free_list_head (e->pa, 0, 10));
  assert_true (d > sim_page_struct (e->pa, sim_page_free_list_head (e->pa, 0, 10)));
  /* Anything in the static area is its own "head". */
  assert_int_equal (sim_page_head (e->pa, a + 5), a);
  pt_env_free (e);
}

/* static_bytes sizes the static area; the frames follow it. */
static void
test_static_size (void **state)
{
  (void) state;
  PtEnv e;
  GError *error = NULL;
  pt_machine (&e, TRUE);
  SimMemSys *mem = sim_memsys_new (&e.m, &error);
  assert_non_null (mem);
  SimPageParams p = { .era = SIM_PAGE_ERA_6_18, .managed_bytes = 64 * MiB,
                      .static_bytes = 30 * MiB };
  SimPageAlloc *pa = sim_page_alloc_new (&e.m, mem, &p, &error);
  assert_non_null (pa);
  /* memmap: (32 + 64) MiB / 63 rounds up to 4 MiB; static 30 -> 32 MiB. */
  assert_int_equal (sim_page_free_list_head (pa, 0, 10), 36 * MiB);
  assert_int_equal (sim_page_free_list_head (pa, 1, 10), e.m.node_bytes + 36 * MiB);
  SimAddr big = sim_page_static_alloc (pa, 1, 20 * MiB, 4096);
  assert_int_not_equal (big, 0);
  assert_true (big + 20 * MiB <= e.m.node_bytes + 36 * MiB);
  sim_page_alloc_free (pa);
  sim_memsys_free (mem);
}

/* Without NUMA there is one node at address 0 for every CPU. */
static void
test_single_node (void **state)
{
  (void) state;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 64 * MiB, FALSE);
  assert_int_equal (sim_page_n_nodes (e->pa), 1);
  SimAddr a = pt_alloc (e, 3, 0), b = pt_alloc (e, 0, 0);
  assert_int_equal (sim_page_node_of (e->pa, a), 0);
  assert_int_equal (sim_page_node_of (e->pa, b), 0);
  assert_true (a < 256 * MiB && b < 256 * MiB);
  /* A node number past the machine's nodes wraps, like addresses do. */
  SimOp op;
  assert_int_not_equal (pt_alloc_full (e, &op, 1, 4, 1, 0, FALSE), 0);
  SimAddr s = sim_page_static_alloc (e->pa, 1, 64, 64);
  assert_int_not_equal (s, 0);
  assert_int_equal (sim_page_node_of (e->pa, s), 0);
  pt_assert_check (e);
  pt_env_free (e);
}

/* Two CPUs that take zone->lock at overlapping times: the second waits
 * and the wait shows up in zone_lock_wait_cycles; apart, nobody waits. */
static void
test_zone_lock_contention (void **state)
{
  (void) state;
  SimOp op0, op2;
  PtEnv *e = pt_env_new (SIM_PAGE_ERA_2_6_23, 64 * MiB, TRUE);
  const SimPageStats *s = sim_page_stats (e->pa);
  /* Order 1 goes straight to the buddy under zone->lock (2.6.23). */
  SimAddr a = pt_alloc_op (e, &op0, 0, 1000, 1, 0, 0, FALSE);
  assert_int_not_equal (a, 0);
  assert_int_equal (s->zone_lock_wait_cycles, 0);
  SimAddr b = pt_alloc_op (e, &op2, 2, 1000, 1, 0, 0, FALSE);
  assert_int_not_equal (b, 0);
  assert_true (s->zone_lock_wait_cycles > 0);
  assert_int_equal (s->zone_lock_wait_cycles, op2.cost.lock_wait);
  assert_true (op2.t > op0.t);
  assert_int_equal (s->zone_lock_acquisitions, 2);

  /* Much later: no further wait. */
  guint64 waited = s->zone_lock_wait_cycles;
  SimAddr c = pt_alloc_op (e, &op0, 1, op2.t + 1000000, 1, 0, 0, FALSE);
  assert_int_not_equal (c, 0);
  assert_int_equal (op0.cost.lock_wait, 0);
  assert_int_equal (s->zone_lock_wait_cycles, waited);

  /* Different zones never contend. */
  SimAddr d = pt_alloc_op (e, &op0, 0, op2.t + 5000000, 1, 0, 0, FALSE);
  SimAddr f = pt_alloc_op (e, &op2, 2, op2.t + 5000000, 1, 1, 0, FALSE);
  assert_int_not_equal (d, 0);
  assert_int_equal (sim_page_node_of (e->pa, f), 1);
  assert_int_equal (op2.cost.lock_wait, 0);
  assert_int_equal (s->zone_lock_wait_cycles, waited);
  pt_env_free (e);
}

/* The cost of an operation is deterministic: two identical runs agree
 * on every cycle. */
static void
test_deterministic_cost (void **state)
{
  (void) state;
  guint64 cyc[2];
  for (guint r = 0; r < 2; r++)
    {
      PtEnv *e = pt_env_new (SIM_PAGE_ERA_6_18, 64 * MiB, TRUE);
      SimOp op;
      cyc[r] = 0;
      for (guint i = 0; i < 200; i++)
        {
          SimAddr a = pt_alloc_full (e, &op, i % 4, i % 3, SIM_NUMA_NO_NODE, 0, TRUE);
          cyc[r] += sim_op_cycles (&op);
          if (i % 2)
            {
              pt_free_op (e, &op, (i + 1) % 4, a, i % 3);
              cyc[r] += sim_op_cycles (&op);
            }
        }
      assert_true (cyc[r] > 0);
      pt_env_free (e);
    }
  assert_int_equal (cyc[0], cyc[1]);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_layout),
    cmocka_unit_test (test_pages_from_cpu_node),
    cmocka_unit_test (test_static_alloc),
    cmocka_unit_test (test_static_size),
    cmocka_unit_test (test_single_node),
    cmocka_unit_test (test_zone_lock_contention),
    cmocka_unit_test (test_deterministic_cost),
  };
  return cmocka_run_group_tests_name ("page-numa", tests, NULL, NULL);
}
