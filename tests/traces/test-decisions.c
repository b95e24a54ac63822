/* test-decisions.c - the rules of traces/decisions.c, one by one, and the
 * recognition of the recording kernel's internal allocations
 * (traces/internal.c), in-process. */
#include "tests/testutil.h"
#include "traces/decisions.h"
#include "traces/internal.h"

#include <string.h>

#define VA(pfn, off) (SIM_DIRECT_MAP_BASE + ((guint64) (pfn) << 12) + (off))

/* An order-2 block taken on CPU 0 and then holding the cache's first
 * object is one new slab covering 4 pages; its mm_page_free frees it. */
static void
test_new_and_freed_slab_by_order (void **state)
{
  (void) state;
  g_autoptr (SimDecisions) d = sim_decisions_new ();
  sim_decisions_page_alloc (d, 0, 0x1000, 2);
  /* An object in the block's last page: still the same slab. */
  sim_decisions_alloc (d, 0, "c", VA (0x1003, 0x100));
  sim_decisions_alloc (d, 0, "c", VA (0x1000, 0x000));
  const SimDecisionCache *c = sim_decisions_cache (d, "c");
  assert_int_equal (c->new_slabs, 1);
  assert_int_equal (c->order, 2);
  assert_int_equal (c->distinct_slabs, 1);
  assert_int_equal (c->same_slab, 1);
  /* A page free of a non-head pfn is not this slab. */
  sim_decisions_page_free (d, 0x1001, 0);
  assert_int_equal (c->freed_slabs, 0);
  sim_decisions_obj_free (d, 0, VA (0x1003, 0x100));
  sim_decisions_obj_free (d, 0, VA (0x1000, 0x000));
  sim_decisions_page_free (d, 0x1000, 2);
  assert_int_equal (c->freed_slabs, 1);
  assert_int_equal (c->frees, 2);
  /* The pfn reused for another slab later is a new, distinct slab. */
  sim_decisions_page_alloc (d, 0, 0x1000, 2);
  sim_decisions_alloc (d, 0, "c", VA (0x1000, 0x40));
  assert_int_equal (c->new_slabs, 2);
  assert_int_equal (c->distinct_slabs, 2);
}

/* The block must be claimed on the CPU that took it; a block never claimed
 * (page cache) is no slab; an object outside every known block belongs to
 * a pre-existing slab whose extent comes from the cache's order. */
static void
test_claim_rules (void **state)
{
  (void) state;
  g_autoptr (SimDecisions) d = sim_decisions_new ();
  sim_decisions_page_alloc (d, 1, 0x2000, 0);
  sim_decisions_alloc (d, 0, "c", VA (0x2000, 0));
  const SimDecisionCache *c = sim_decisions_cache (d, "c");
  assert_int_equal (c->new_slabs, 0);        /* CPU 1's page, CPU 0's object */
  sim_decisions_page_alloc (d, 0, 0x3000, 1);
  sim_decisions_page_free (d, 0x3000, 1);    /* never held an object */
  assert_int_equal (c->freed_slabs, 0);
  assert_int_equal (c->freed_old_slabs, 0);
  /* Order learnt from a new slab: objects of old slabs group by it. */
  sim_decisions_page_alloc (d, 0, 0x4000, 1);
  sim_decisions_alloc (d, 0, "c", VA (0x4001, 0));
  assert_int_equal (c->order, 1);
  sim_decisions_alloc (d, 0, "c", VA (0x5000, 0));
  sim_decisions_alloc (d, 0, "c", VA (0x5001, 0));
  assert_int_equal (c->distinct_slabs, 3);   /* 0x2000, 0x4000, 0x5000 */
  sim_decisions_page_free (d, 0x5000, 1);
  assert_int_equal (c->freed_old_slabs, 1);
  assert_int_equal (c->freed_slabs, 0);
  /* Hashed / non-direct-map pointers take no part. */
  sim_decisions_alloc (d, 0, "c", 0x12345678);
  assert_int_equal (c->unplaced, 1);
  assert_int_equal (sim_decisions_totals (d)->unplaced, 1);
}

/* LIFO: an allocation returning the object last freed to the cache on this
 * CPU; a free on another CPU or of another cache does not count. */
static void
test_lifo (void **state)
{
  (void) state;
  g_autoptr (SimDecisions) d = sim_decisions_new ();
  sim_decisions_alloc (d, 0, "c", VA (0x10, 0));
  sim_decisions_alloc (d, 0, "c", VA (0x10, 64));
  sim_decisions_obj_free (d, 0, VA (0x10, 0));
  sim_decisions_alloc (d, 0, "c", VA (0x10, 0));          /* LIFO */
  sim_decisions_obj_free (d, 1, VA (0x10, 64));
  sim_decisions_alloc (d, 0, "c", VA (0x10, 64));         /* freed on CPU 1 */
  sim_decisions_alloc (d, 1, "k", VA (0x20, 0));
  sim_decisions_obj_free (d, 1, VA (0x20, 0));
  sim_decisions_alloc (d, 1, "c", VA (0x20, 0));          /* another cache */
  /* An allocation of a live pointer frees it first on this CPU. */
  sim_decisions_alloc (d, 0, "c", VA (0x10, 0));
  const SimDecisionCache *c = sim_decisions_cache (d, "c");
  assert_int_equal (c->lifo_reuse, 2);
  assert_int_equal (c->implicit, 1);
  assert_int_equal (c->allocs, 6);
  sim_decisions_obj_free (d, 0, VA (0x99, 0));
  assert_int_equal (sim_decisions_totals (d)->unknown_frees, 1);
  sim_decisions_pcp_drain (d, 3);
  sim_decisions_pcp_drain (d, 0);
  assert_int_equal (sim_decisions_totals (d)->pcp_drains, 2);
  assert_int_equal (sim_decisions_totals (d)->pcp_drain_pages, 9);
}

/* sim_decisions_slab_pages_only keeps what decides the slab pages: on the
 * sample traces (every stream's events through sim_decisions_event, the
 * memo of cache names included) it finds the same page allocations
 * becoming slabs as the full reading, and the same page counts. */
static void
test_slab_pages_only (void **state)
{
  (void) state;
  const char *traces[] = { "traces/samples/hackbench-T-g2-l50.trace.gz",
                           "traces/samples/udp-4k.trace.gz",
                           "traces/samples/vma-churn-8x2000.trace.gz" };
  for (guint t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *path = tu_source_path (traces[t]);
      SimTraceStreamOptions so = { 0 };
      g_autoptr (SimTraceStream) st = sim_trace_stream_open (path, &so, NULL);
      assert_non_null (st);
      g_autoptr (GHashTable) full_set = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_autoptr (GHashTable) lean_set = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_autoptr (SimDecisions) full = sim_decisions_new ();
      g_autoptr (SimDecisions) lean = sim_decisions_new ();
      sim_decisions_track_slab_pages (full, full_set);
      sim_decisions_track_slab_pages (lean, lean_set);
      sim_decisions_slab_pages_only (lean);
      const SimTraceEvent *ev;
      guint n;
      while (sim_trace_stream_next (st, &ev, &n, NULL))
        for (guint i = 0; i < n; i++)
          {
            sim_decisions_event (full, sim_trace_stream_strings (st), &ev[i]);
            sim_decisions_event (lean, sim_trace_stream_strings (st), &ev[i]);
          }
      assert_true (g_hash_table_size (full_set) > 0);
      assert_int_equal (g_hash_table_size (lean_set), g_hash_table_size (full_set));
      GHashTableIter it;
      gpointer k;
      g_hash_table_iter_init (&it, full_set);
      while (g_hash_table_iter_next (&it, &k, NULL))
        assert_true (g_hash_table_contains (lean_set, k));
      assert_int_equal (sim_decisions_totals (lean)->page_allocs,
                        sim_decisions_totals (full)->page_allocs);
      assert_int_equal (sim_decisions_totals (lean)->page_frees,
                        sim_decisions_totals (full)->page_frees);
      /* the caches' orders, which guess an old slab's extent */
      guint nf, nl;
      const SimDecisionCache *cf = sim_decisions_caches (full, &nf);
      const SimDecisionCache *cl = sim_decisions_caches (lean, &nl);
      assert_int_equal (nl, nf);
      for (guint i = 0; i < nf; i++)
        {
          assert_string_equal (cl[i].name, cf[i].name);
          assert_int_equal (cl[i].order, cf[i].order);
          assert_int_equal (cl[i].new_slabs, cf[i].new_slabs);
        }
    }
}

static void
test_internal_sites (void **state)
{
  (void) state;
  assert_true (sim_trace_internal_alloc_site ("alloc_slab_obj_exts+0x58/0x110"));
  assert_true (sim_trace_internal_alloc_site ("alloc_slab_obj_exts+0x58"));
  assert_true (sim_trace_internal_alloc_site ("alloc_slab_obj_exts"));
  assert_true (sim_trace_internal_alloc_site ("memcg_alloc_slab_cgroups.isra.0+0x1/0x2"));
  assert_true (sim_trace_internal_alloc_site ("__alloc_empty_sheaf+0x10/0x80"));
  assert_false (sim_trace_internal_alloc_site ("alloc_slab_obj_extsx+0x1"));
  assert_false (sim_trace_internal_alloc_site ("__alloc_skb+0x1/0x2"));
  assert_false (sim_trace_internal_alloc_site ("0xffffffff81234567"));
  assert_false (sim_trace_internal_alloc_site (NULL));
  assert_false (sim_trace_internal_alloc_site (""));
  assert_true (sim_trace_internal_free_site ("__free_slab+0x87/0xf0"));
  assert_true (sim_trace_internal_free_site ("free_empty_sheaf+0x1"));
  assert_false (sim_trace_internal_free_site ("kfree_skb+0x1/0x2"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_new_and_freed_slab_by_order),
    cmocka_unit_test (test_claim_rules),
    cmocka_unit_test (test_lifo),
    cmocka_unit_test (test_slab_pages_only),
    cmocka_unit_test (test_internal_sites),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
