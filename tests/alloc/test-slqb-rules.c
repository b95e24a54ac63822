/* test-slqb-rules.c - directed tests, one per SLQB rule, driving the model
 * call by call and checking its queues and counters against what
 * mm/slqb.c does (models/alloc/slqb.c, docs/models/slqb.md).
 *
 * On nehalem-ep-2s CPUs alternate between the sockets: CPUs 0 and 2 are
 * on node 0, CPU 1 on node 1. */
#include "tests/alloc/world.h"
#include "models/alloc/slqb.h"
#include "models/page/page-alloc.h"
#include "sim/config/machine.h"
#include "sim/core/errors.h"
#include "sim/core/rng.h"

#include <string.h>

typedef struct {
  TuWorld w;
  SimSlqb *slqb;
  SimOp op;
} Fix;

static Fix *
fix_new_full (const char *spec_text, const char *const *overrides, gboolean engine)
{
  Fix *f = g_new0 (Fix, 1);
  GError *error = NULL;
  tu_world_init (&f->w, spec_text, overrides, 0, engine);
  f->slqb = sim_slqb_new (f->w.spec, &f->w.env, &error);
  tu_world_assert_model (f->slqb, error);
  f->w.model = f->slqb;
  return f;
}

static Fix *
fix_new (const char *spec_text, gboolean numa)
{
  static const char *const flat[] = { "numa=false", NULL };
  return fix_new_full (spec_text, numa ? NULL : flat, FALSE);
}

static void
fix_free (Fix *f)
{
  sim_slqb_free_model (f->slqb);
  tu_world_clear (&f->w);
  g_free (f);
}

static SimOp *
on (Fix *f, guint cpu)
{
  sim_op_begin (&f->op, f->w.mem, cpu, 0);
  return &f->op;
}

static SimCacheId
cache (Fix *f, const char *name, guint size, guint32 flags)
{
  SimCacheSpec spec = { .name = name, .object_size = size, .flags = flags };
  GError *error = NULL;
  SimCacheId id = sim_slqb_cache_create (f->slqb, on (f, 0), &spec, &error);
  if (id == SIM_CACHE_NONE)
    print_error ("%s\n", error->message);
  assert_true (id != SIM_CACHE_NONE);
  return id;
}

static SimSlqbCacheInfo
info (Fix *f, SimCacheId id)
{
  SimSlqbCacheInfo in;
  sim_slqb_cache_info (f->slqb, id, &in);
  return in;
}

static SimSlqbListInfo
list_of (Fix *f, SimCacheId id, gint cpu)
{
  SimSlqbListInfo li;
  sim_slqb_list_info (f->slqb, id, cpu, &li);
  return li;
}

/* calculate_sizes / calculate_order by hand (4 KiB pages, 64-byte lines):
 *   256, HWCACHE_ALIGN: align 64, size 256; order 0 holds 16 with no waste.
 *     freebatch = max(16384/256 = 64, min(256, 262144/256 = 1024)) = 256,
 *     hiwater = 4 * 256 = 1024.
 *   700: size 704; order 0 holds 5 (3520), waste 576, 576*4 <= 4096: order 0;
 *     colour_range 576.
 *   1400: order 0 holds 2, waste 1296*4 = 5184 > 4096; order 1 holds 5
 *     (7000), waste 1192*4 = 4768 <= 8192: order 1, 5 objects.
 *   3000: order 0 waste 1096*4 > 4096, order 1 waste 2192*4 > 8192, so
 *     slab_order(size, 1, 4) gives 2 and the second pass (frac 0) takes
 *     order 0 with one object; freebatch = max(5, min(256, 87)) = 87,
 *     hiwater 348.
 *   3000 with slqb_min_objects=4: orders 0 (1) and 1 (2) hold too few,
 *     order 2 holds 5: order 2.
 *   8192: fls(8191) = 13, so order 1 with one object; freebatch
 *     max(2, min(256, 32)) = 32, hiwater 128.
 *   100 with a constructor: the free pointer moves behind the object:
 *     offset 104, size 112.
 *   20, HWCACHE_ALIGN: ralign 64 -> 32 (20 <= 32) and stops (20 > 16):
 *     size 32. */
static void
test_geometry_by_hand (void **state)
{
  (void) state;
  SimSlqbParams p = { .min_order = 0, .min_objects = 1, .hiwater = -1, .freebatch = -1 };
  SimSlqbGeometry g;
  assert_true (sim_slqb_geometry (&p, 256, 0, SIM_SLAB_HWCACHE_ALIGN, 64, &g, NULL));
  assert_int_equal (g.size, 256);
  assert_int_equal (g.order, 0);
  assert_int_equal (g.objects, 16);
  assert_int_equal (g.freebatch, 256);
  assert_int_equal (g.hiwater, 1024);

  assert_true (sim_slqb_geometry (&p, 700, 0, 0, 64, &g, NULL));
  assert_int_equal (g.size, 704);
  assert_int_equal (g.order, 0);
  assert_int_equal (g.objects, 5);
  assert_int_equal (g.colour_range, 576);
  assert_int_equal (g.colour_off, 64);

  assert_true (sim_slqb_geometry (&p, 1400, 0, 0, 64, &g, NULL));
  assert_int_equal (g.order, 1);
  assert_int_equal (g.objects, 5);

  assert_true (sim_slqb_geometry (&p, 3000, 0, 0, 64, &g, NULL));
  assert_int_equal (g.order, 0);
  assert_int_equal (g.objects, 1);
  assert_int_equal (g.freebatch, 87);
  assert_int_equal (g.hiwater, 348);

  SimSlqbParams p4 = p;
  p4.min_objects = 4;
  assert_true (sim_slqb_geometry (&p4, 3000, 0, 0, 64, &g, NULL));
  assert_int_equal (g.order, 2);
  assert_int_equal (g.objects, 5);

  assert_true (sim_slqb_geometry (&p, 8192, 0, 0, 64, &g, NULL));
  assert_int_equal (g.order, 1);
  assert_int_equal (g.objects, 1);
  assert_int_equal (g.freebatch, 32);
  assert_int_equal (g.hiwater, 128);

  assert_true (sim_slqb_geometry (&p, 100, 0, SIM_SLAB_CTOR, 64, &g, NULL));
  assert_int_equal (g.offset, 104);
  assert_int_equal (g.size, 112);

  assert_true (sim_slqb_geometry (&p, 20, 0, SIM_SLAB_HWCACHE_ALIGN, 64, &g, NULL));
  assert_int_equal (g.size, 32);

  /* Too small for a free pointer, and too many objects for any order. */
  GError *error = NULL;
  assert_false (sim_slqb_geometry (&p, 4, 0, 0, 64, &g, &error));
  g_clear_error (&error);
  SimSlqbParams big = p;
  big.min_objects = 5000;
  assert_false (sim_slqb_geometry (&big, 4096, 0, 0, 64, &g, &error));
  assert_true (g_error_matches (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM));
  g_clear_error (&error);
}

/* Objects come one at a time from the page (no batch refill: each is
 * alloc_slab_fill, the first also alloc_slab_new); frees go onto the
 * CPU's LIFO and come back last-in first-out without touching pages. */
static void
test_lifo_reuse (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb", FALSE);
  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr objs[16];
  tu_world_alloc_n (&f->w, id, 0, objs, 16);
  SimSlqbCacheInfo in = info (f, id);
  assert_int_equal (in.stat[SIM_SLQB_ALLOC], 16);
  assert_int_equal (in.stat[SIM_SLQB_ALLOC_SLAB_NEW], 1);
  assert_int_equal (in.stat[SIM_SLQB_ALLOC_SLAB_FILL], 16);
  assert_int_equal (in.slabs, 1);
  assert_int_equal (in.partial_slabs, 0);        /* full pages leave the list */
  for (guint i = 1; i < 16; i++)
    assert_true (objs[i] == objs[i - 1] + 256);
  tu_world_check (&f->w);

  tu_world_free_n (&f->w, 0, objs + 10, 4);                    /* 10, 11, 12, 13 */
  SimSlqbListInfo li = list_of (f, id, 0);
  assert_int_equal (li.freelist_nr, 4);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLQB_FREE], 4);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_FREE_LIST], 0);
  assert_int_equal (in.inuse_objects, 16);        /* queued objects count as in use */
  assert_true (sim_slqb_cache_alloc (f->slqb, on (f, 0), id, -1, 0) == objs[13]);
  assert_true (sim_slqb_cache_alloc (f->slqb, on (f, 0), id, -1, 0) == objs[12]);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLQB_ALLOC], 18);
  assert_int_equal (in.stat[SIM_SLQB_ALLOC_SLAB_FILL], 16);
  tu_world_check (&f->w);

  /* A free on another CPU of the same node goes onto that CPU's LIFO
   * (not a remote free) and is reused there. */
  assert_true (sim_slqb_free (f->slqb, on (f, 2), objs[0]));
  li = list_of (f, id, 2);
  assert_int_equal (li.freelist_nr, 1);
  assert_int_equal (li.stat[SIM_SLQB_FREE_REMOTE], 0);
  assert_true (sim_slqb_cache_alloc (f->slqb, on (f, 2), id, -1, 0) == objs[0]);
  tu_world_check (&f->w);
  fix_free (f);
}

/* A freelist past hiwater flushes freebatch objects from its head to
 * their pages: a full page becomes partial, an emptied one is freed. */
static void
test_hiwater_flush_and_empty_pages (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb:hiwater=8,freebatch=4", FALSE);
  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr objs[32];
  tu_world_alloc_n (&f->w, id, 0, objs, 32);                   /* pages A (0..15), B (16..31) */
  guint64 pages_before = sim_page_allocated (f->w.pages);
  tu_world_free_n (&f->w, 0, objs, 8);
  assert_int_equal (list_of (f, id, 0).freelist_nr, 8);
  assert_int_equal (info (f, id).stat[SIM_SLQB_FLUSH_FREE_LIST], 0);
  /* The 9th free passes hiwater 8: objects 8, 7, 6, 5 go back to A. */
  tu_world_free_n (&f->w, 0, objs + 8, 1);
  SimSlqbCacheInfo in = info (f, id);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_FREE_LIST], 1);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_FREE_LIST_OBJECTS], 4);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_SLAB_PARTIAL], 1);
  assert_int_equal (in.partial_slabs, 1);
  assert_int_equal (list_of (f, id, 0).freelist_nr, 5);
  tu_world_check (&f->w);
  /* Frees 10..32 flush at 13, 17, 21, 25 and 29: 6 flushes, 24 objects;
   * left on the LIFO: 31, 30, 29, 4, 3, 2, 1, 0. */
  tu_world_free_n (&f->w, 0, objs + 9, 23);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_FREE_LIST], 6);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_FREE_LIST_OBJECTS], 24);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_SLAB_PARTIAL], 2);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_SLAB_FREE], 0);
  assert_int_equal (list_of (f, id, 0).freelist_nr, 8);
  assert_int_equal (in.slabs, 2);
  tu_world_check (&f->w);

  /* The trim worker flushes one batch: 31, 30, 29 empty B (freed at
   * once), 4 goes to A.  A second run empties A. */
  sim_slqb_trim (f->slqb, on (f, 0));
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_SLAB_FREE], 1);
  assert_int_equal (in.slabs, 1);
  assert_int_equal (list_of (f, id, 0).freelist_nr, 4);
  tu_world_check (&f->w);
  sim_slqb_trim (f->slqb, on (f, 0));
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLQB_FLUSH_SLAB_FREE], 2);
  assert_int_equal (in.slabs, 0);
  assert_int_equal (in.partial_slabs, 0);
  assert_int_equal (list_of (f, id, 0).freelist_nr, 0);
  assert_int_equal (sim_page_allocated (f->w.pages), pages_before - 2);
  tu_world_check (&f->w);
  fix_free (f);
}

/* NUMA: frees of node-0 objects on a node-1 CPU are batched on its
 * rlist and spliced onto the owner's remote_free every freebatch; the
 * owner is told (remote_free_check) when its queue crosses freebatch;
 * once the queue holds more than hiwater/2 the batch is freed straight to
 * the pages.  The owner claims the whole queue at its next miss. */
static void
test_remote_batching_and_claim (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb:hiwater=16,freebatch=4", TRUE);
  assert_int_equal (sim_slqb_node_of_cpu (f->slqb, 0), 0);
  assert_int_equal (sim_slqb_node_of_cpu (f->slqb, 1), 1);
  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr objs[16];
  tu_world_alloc_n (&f->w, id, 0, objs, 16);
  assert_int_equal (sim_page_node_of (f->w.pages, objs[0]), 0);

  tu_world_free_n (&f->w, 1, objs, 3);
  SimSlqbListInfo c1 = list_of (f, id, 1), c0 = list_of (f, id, 0);
  assert_int_equal (c1.rlist_nr, 3);
  assert_int_equal (c1.stat[SIM_SLQB_FREE_REMOTE], 3);
  assert_int_equal (c1.freelist_nr, 0);
  assert_int_equal (c0.remote_free_nr, 0);
  tu_world_check (&f->w);

  tu_world_free_n (&f->w, 1, objs + 3, 1);                     /* rlist reaches freebatch */
  c1 = list_of (f, id, 1);
  c0 = list_of (f, id, 0);
  assert_int_equal (c1.rlist_nr, 0);
  assert_int_equal (c1.stat[SIM_SLQB_FLUSH_RFREE_LIST], 1);
  assert_int_equal (c1.stat[SIM_SLQB_FLUSH_RFREE_LIST_OBJECTS], 4);
  assert_int_equal (c0.remote_free_nr, 4);
  assert_true (c0.remote_free_check);
  tu_world_check (&f->w);

  tu_world_free_n (&f->w, 1, objs + 4, 8);                     /* queue 8, then 12 (not > 8 before) */
  assert_int_equal (list_of (f, id, 0).remote_free_nr, 12);
  tu_world_free_n (&f->w, 1, objs + 12, 4);                    /* 12 > hiwater/2: synchronous */
  c0 = list_of (f, id, 0);
  assert_int_equal (c0.remote_free_nr, 12);
  assert_int_equal (c0.stat[SIM_SLQB_FLUSH_SLAB_PARTIAL], 1);
  assert_int_equal (c0.nr_partial, 1);
  assert_int_equal (list_of (f, id, 1).stat[SIM_SLQB_FLUSH_RFREE_LIST], 4);
  tu_world_check (&f->w);

  /* CPU 0's LIFO is empty and the flag is set: the next allocation
   * claims all 12, first freed first. */
  SimAddr a = sim_slqb_cache_alloc (f->slqb, on (f, 0), id, -1, 0);
  assert_true (a == objs[0]);
  c0 = list_of (f, id, 0);
  assert_int_equal (c0.stat[SIM_SLQB_CLAIM_REMOTE_LIST], 1);
  assert_int_equal (c0.stat[SIM_SLQB_CLAIM_REMOTE_LIST_OBJECTS], 12);
  assert_int_equal (c0.remote_free_nr, 0);
  assert_false (c0.remote_free_check);
  assert_int_equal (c0.freelist_nr, 11);
  tu_world_check (&f->w);
  fix_free (f);
}

/* A claim that leaves more than hiwater on the LIFO flushes a batch at
 * once (__cache_list_get_object); here the whole claimed queue goes back
 * to its page, the LIFO is empty again and the object comes from the
 * page: the last one pushed there. */
static void
test_claim_past_hiwater_flushes (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb:hiwater=4,freebatch=5", TRUE);
  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr objs[16];
  tu_world_alloc_n (&f->w, id, 0, objs, 16);
  tu_world_free_n (&f->w, 1, objs, 5);                         /* one batch of 5 to CPU 0's queue */
  SimSlqbListInfo c0 = list_of (f, id, 0);
  assert_int_equal (c0.remote_free_nr, 5);
  assert_true (c0.remote_free_check);
  SimAddr a = sim_slqb_cache_alloc (f->slqb, on (f, 0), id, -1, 0);
  c0 = list_of (f, id, 0);
  assert_int_equal (c0.stat[SIM_SLQB_CLAIM_REMOTE_LIST_OBJECTS], 5);
  assert_int_equal (c0.stat[SIM_SLQB_FLUSH_FREE_LIST], 1);
  assert_int_equal (c0.stat[SIM_SLQB_FLUSH_FREE_LIST_OBJECTS], 5);
  assert_int_equal (c0.stat[SIM_SLQB_FLUSH_SLAB_PARTIAL], 1);
  assert_int_equal (c0.stat[SIM_SLQB_ALLOC_SLAB_FILL], 17);
  assert_int_equal (c0.freelist_nr, 0);
  assert_true (a == objs[4]);
  tu_world_check (&f->w);
  fix_free (f);
}

/* Objects of another CPU's pages on this CPU's LIFO go, when flushed, to
 * the rlist (flush_free_list_remote) and from there to the owner. */
static void
test_flush_sends_foreign_objects_remote (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb:hiwater=4,freebatch=2", FALSE);
  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr objs[5];
  tu_world_alloc_n (&f->w, id, 0, objs, 5);
  tu_world_free_n (&f->w, 3, objs, 5);                         /* 5 > 4: flush 2 */
  SimSlqbListInfo c3 = list_of (f, id, 3);
  assert_int_equal (c3.stat[SIM_SLQB_FLUSH_FREE_LIST], 1);
  assert_int_equal (c3.stat[SIM_SLQB_FLUSH_FREE_LIST_REMOTE], 2);
  /* Two objects reach freebatch on the rlist and go to CPU 0's queue. */
  assert_int_equal (c3.rlist_nr, 0);
  assert_int_equal (c3.stat[SIM_SLQB_FLUSH_RFREE_LIST], 1);
  SimSlqbListInfo c0 = list_of (f, id, 0);
  assert_int_equal (c0.remote_free_nr, 2);
  assert_true (c0.remote_free_check);
  assert_int_equal (info (f, id).stat[SIM_SLQB_FREE_REMOTE], 0);
  tu_world_check (&f->w);
  fix_free (f);
}

/* The trim worker as an engine event: every CPU's first run near 1 s,
 * then every 3 s; each run claims, flushes one batch and flushes the
 * rlist, and costs the CPU simulated time. */
static void
test_trim_worker_events (void **state)
{
  (void) state;
  Fix *f = fix_new_full ("slqb", NULL, TRUE);
  guint n = f->w.machine->n_cpus;
  assert_int_equal (sim_engine_pending (f->w.eng), n);
  guint64 sec = (guint64) (f->w.machine->frequency_ghz * 1e9 + 0.5);
  assert_true (sim_engine_next_time (f->w.eng) <= sec);
  assert_true (sim_engine_next_time (f->w.eng) > sec / 2);

  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr objs[16];
  tu_world_alloc_n (&f->w, id, 0, objs, 16);
  tu_world_free_n (&f->w, 0, objs, 16);                        /* below hiwater 1024: stays queued */
  assert_int_equal (list_of (f, id, 0).freelist_nr, 16);
  assert_int_equal (info (f, id).slabs, 1);

  assert_int_equal (sim_engine_run (f->w.eng, sec / 2), 0);
  assert_int_equal (sim_engine_run (f->w.eng, sec), n);
  assert_int_equal (list_of (f, id, 0).freelist_nr, 0);
  assert_int_equal (info (f, id).slabs, 0);       /* the flush emptied the page */
  assert_true (sim_engine_cpu_clock (f->w.eng, 0) >= sec - sec / 10);
  assert_int_equal (sim_engine_pending (f->w.eng), n);
  /* Next round three seconds later. */
  assert_int_equal (sim_engine_run (f->w.eng, 3 * sec), 0);
  assert_int_equal (sim_engine_run (f->w.eng, 4 * sec), n);
  tu_world_check (&f->w);
  fix_free (f);
}

/* The trim timers' skew is 3 jiffies per CPU: at the era's HZ (2.6.31's
 * x86-64 defconfig: 1000) the last of 16 CPUs starts 45 ms before the
 * second, at hz=100 450 ms. */
static void
test_trim_timer_hz (void **state)
{
  (void) state;
  const struct { const char *spec; guint hz; } cases[] = {
    { "slqb", 1000 }, { "slqb:hz=100", 100 }, { "slqb:hz=250", 250 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Fix *f = fix_new_full (cases[i].spec, NULL, TRUE);
      guint64 sec = (guint64) (f->w.machine->frequency_ghz * 1e9 + 0.5);
      guint n = f->w.machine->n_cpus;
      assert_int_equal (sim_engine_next_time (f->w.eng),
                        sec - 3 * (guint64) (n - 1) * sec / cases[i].hz);
      fix_free (f);
    }
}

/* Node-specific allocation for another node goes through that node's
 * list (__remote_slab_alloc): a new page there lands on the node list. */
static void
test_node_specific_alloc (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb", TRUE);
  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr a = sim_slqb_cache_alloc (f->slqb, on (f, 0), id, 1, 0);
  assert_true (a != 0);
  assert_int_equal (sim_page_node_of (f->w.pages, a), 1);
  SimSlqbListInfo n1 = list_of (f, id, -2);
  assert_int_equal (n1.nr_slabs, 1);
  assert_int_equal (n1.stat[SIM_SLQB_ALLOC], 1);
  assert_int_equal (n1.stat[SIM_SLQB_ALLOC_SLAB_NEW], 1);
  assert_int_equal (list_of (f, id, 0).nr_slabs, 0);
  SimAddr b = sim_slqb_cache_alloc (f->slqb, on (f, 0), id, 1, 0);
  assert_true (b == a + 256);                     /* from the node list's page */
  assert_int_equal (list_of (f, id, -2).stat[SIM_SLQB_ALLOC_SLAB_FILL], 2);
  /* A node-1 CPU frees it locally; a node-0 CPU would free it remote. */
  assert_true (sim_slqb_free (f->slqb, on (f, 1), a));
  assert_int_equal (list_of (f, id, 1).freelist_nr, 1);
  assert_true (sim_slqb_free (f->slqb, on (f, 0), b));
  assert_int_equal (list_of (f, id, 0).stat[SIM_SLQB_FREE_REMOTE], 1);
  tu_world_check (&f->w);
  fix_free (f);
}

/* New pages are coloured: each CPU advances colour_next by a cache line
 * and wraps at the leftover space. */
static void
test_colouring (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb", FALSE);
  SimCacheId id = cache (f, "test_700", 700, 0);   /* 5 per page, 576 left over */
  SimAddr objs[10];
  tu_world_alloc_n (&f->w, id, 0, objs, 10);
  assert_int_equal (objs[0] % SIM_PAGE_SIZE, 0);
  assert_int_equal (objs[5] % SIM_PAGE_SIZE, 64);
  assert_int_equal (list_of (f, id, 0).colour_next, 128);
  tu_world_check (&f->w);
  fix_free (f);
}

/* kmalloc sizes as get_slab maps them (no kmalloc-96 with 64-byte
 * lines), caches up to 2 MiB and no pass-through beyond. */
static void
test_kmalloc_classes (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb", FALSE);
  assert_int_equal (sim_slqb_n_caches (f->slqb), 20);
  static const struct { gsize size; const char *name; } cases[] = {
    { 0, "kmalloc-8" }, { 1, "kmalloc-8" }, { 8, "kmalloc-8" }, { 9, "kmalloc-16" },
    { 33, "kmalloc-64" }, { 65, "kmalloc-128" }, { 96, "kmalloc-128" },
    { 129, "kmalloc-192" }, { 192, "kmalloc-192" }, { 193, "kmalloc-256" },
    { 4097, "kmalloc-8192" }, { 2u << 20, "kmalloc-2097152" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SimCacheId id = sim_slqb_kmalloc_cache (f->slqb, cases[i].size);
      assert_true (id != SIM_CACHE_NONE);
      assert_string_equal (info (f, id).name, cases[i].name);
    }
  assert_true (sim_slqb_kmalloc_cache (f->slqb, (2u << 20) + 1) == SIM_CACHE_NONE);
  assert_true (sim_slqb_kmalloc (f->slqb, on (f, 0), (2u << 20) + 1, -1, 0) == 0);

  SimSlqbCacheInfo big = info (f, sim_slqb_kmalloc_cache (f->slqb, 2u << 20));
  assert_int_equal (big.g.order, 9);
  assert_int_equal (big.g.objects, 1);
  assert_int_equal (big.g.freebatch, 1);
  assert_int_equal (big.g.hiwater, 4);

  SimAddr a = sim_slqb_kmalloc (f->slqb, on (f, 0), 5000, -1, 0);
  assert_true (a != 0);
  assert_int_equal (sim_alloc_slqb_ops ()->ksize (f->slqb, a), 8192);
  assert_true (sim_slqb_free (f->slqb, on (f, 0), a));
  SimAllocReport rep;
  sim_alloc_report_init (&rep);
  sim_alloc_slqb_ops ()->report (f->slqb, &rep);
  assert_int_equal (rep.rows->len, 20);
  assert_int_equal (rep.large_pages, 0);
  gboolean found = FALSE;
  for (guint i = 0; i < rep.rows->len; i++)
    {
      SimAllocCacheRow *r = &g_array_index (rep.rows, SimAllocCacheRow, i);
      assert_int_equal (r->n_stats, SIM_SLQB_N_STATS);
      if (strcmp (r->name, "kmalloc-8192") == 0)
        {
          found = TRUE;
          assert_int_equal (r->alloc, 1);
          assert_int_equal (r->alloc_fast, 0);    /* a new page is not fast */
          assert_int_equal (r->free, 1);
          assert_int_equal (r->free_fast, 1);
          assert_int_equal (r->order, 1);
          assert_string_equal (r->stat_names[SIM_SLQB_CLAIM_REMOTE_LIST_OBJECTS],
                               "claim_remote_list_objects");
        }
    }
  assert_true (found);
  sim_alloc_report_clear (&rep);
  tu_world_check (&f->w);
  fix_free (f);
}

static void
expect_error (const char *spec_text, GQuark domain, const char *needle)
{
  GError *error = NULL;
  SimMachine *m = sim_machine_load ("nehalem-ep-2s", NULL, &error);
  SimMemSys *mem = sim_memsys_new (m, &error);
  SimPageParams pp = { .era = SIM_PAGE_ERA_2_6_32 };
  SimPageAlloc *pages = sim_page_alloc_new (m, mem, &pp, &error);
  SimAllocEnv env = { .machine = m, .mem = mem, .pages = pages, .n_cpus = m->n_cpus };
  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (spec_text, &error);
  assert_non_null (spec);
  SimSlqb *s = sim_slqb_new (spec, &env, &error);
  assert_null (s);
  assert_non_null (error);
  if (error->domain != domain)
    print_error ("%s: unexpected domain: %s\n", spec_text, error->message);
  assert_true (error->domain == domain);
  tu_assert_contains (error->message, needle);
  assert_int_equal (sim_error_exit_code (error), 2);
  g_error_free (error);
  sim_page_alloc_free (pages);
  sim_memsys_free (mem);
  sim_machine_free (m);
}

static void
test_parameters (void **state)
{
  (void) state;
  expect_error ("slqb:bogus=1", SIM_USAGE_ERROR,
                "slqb_min_order, slqb_min_objects, hiwater, freebatch");
  expect_error ("slqb@2.6.23", SIM_USAGE_ERROR, "2.6.31-slqb");
  expect_error ("slqb:freebatch=0", SIM_CONFIG_ERROR, "at least 1");
  expect_error ("slqb:hiwater=4,freebatch=8", SIM_CONFIG_ERROR, "hiwater");
  expect_error ("slqb:slqb_min_order=11", SIM_CONFIG_ERROR, "slqb_min_order");
  expect_error ("slqb:hiwater=x", SIM_CONFIG_ERROR, "hiwater");
  expect_error ("slqb:slqb_min_objects=5000", SIM_CONFIG_ERROR, "kmalloc-1024");
  expect_error ("slqb:hz=500", SIM_CONFIG_ERROR, "Kconfig.hz");
  expect_error ("slqb:hz", SIM_CONFIG_ERROR, "hz");

  const SimAllocOps *ops = sim_alloc_model_lookup ("slqb");
  assert_non_null (ops);
  assert_string_equal (ops->kernels[0], SIM_SLQB_KERNEL);
  Fix *f = fix_new ("slqb@2.6.31-slqb:hiwater=100,freebatch=10,slqb_min_order=1", FALSE);
  char *p = ops->params (f->slqb);
  assert_string_equal (p, "slqb_min_order=1,slqb_min_objects=1,hiwater=100,freebatch=10,"
                          "slqb_stats=0,hz=1000");
  g_free (p);
  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimSlqbCacheInfo in = info (f, id);
  assert_int_equal (in.g.order, 1);
  assert_int_equal (in.g.objects, 32);
  assert_int_equal (in.g.hiwater, 100);
  assert_int_equal (in.g.freebatch, 10);
  fix_free (f);
}

/* The checker sees a freelist count that disagrees with the chain. */
static void
test_checker_catches_corruption (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb", TRUE);
  SimCacheId id = cache (f, "test_256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr objs[8];
  tu_world_alloc_n (&f->w, id, 0, objs, 8);
  tu_world_free_n (&f->w, 0, objs, 3);
  tu_world_check (&f->w);
  sim_slqb_test_corrupt (f->slqb, id, 0);
  GError *error = NULL;
  assert_false (sim_slqb_check (f->slqb, &error));
  assert_true (g_error_matches (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT));
  tu_assert_contains (error->message, "cpu 0 freelist");
  g_error_free (error);
  fix_free (f);
}

/* __GFP_ZERO clears the object: one store per line on top of the
 * allocator's own accesses; bad frees are refused, not crashes. */
static void
test_gfp_zero_and_bad_frees (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb", FALSE);
  SimCacheId id = cache (f, "test_1024", 1024, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr warm[2];
  tu_world_alloc_n (&f->w, id, 0, warm, 2);
  tu_world_free_n (&f->w, 0, warm, 2);
  SimOp *op = on (f, 0);
  SimAddr a = sim_slqb_cache_alloc (f->slqb, op, id, -1, 0);
  guint32 plain = op->cost.accesses;
  op = on (f, 0);
  SimAddr b = sim_slqb_cache_alloc (f->slqb, op, id, -1, SIM_GFP_ZERO);
  assert_int_equal (op->cost.accesses, plain + 1024 / 64);
  assert_true (a != b);
  assert_false (sim_slqb_free (f->slqb, on (f, 0), 0x12345678));
  assert_false (sim_slqb_free (f->slqb, on (f, 0), a + 8));
  assert_true (sim_slqb_free (f->slqb, on (f, 0), a));
  assert_false (sim_slqb_free (f->slqb, on (f, 0), a));   /* double free */
  tu_world_check (&f->w);
  fix_free (f);
}

/* A random mix of allocations (some node-specific), frees on any CPU and
 * trim runs, with small watermarks so that every path runs often: the
 * invariants hold throughout, and freeing everything then trimming every
 * CPU twice (claim, flush, flush rlists, claim what those delivered)
 * returns every page. */
static void
test_random_workload_keeps_invariants (void **state)
{
  (void) state;
  Fix *f = fix_new ("slqb:hiwater=6,freebatch=3", TRUE);
  guint64 pages_before = sim_page_allocated (f->w.pages);
  SimCacheId ids[3] = { cache (f, "r_64", 64, 0), cache (f, "r_700", 700, 0),
                        cache (f, "r_3000", 3000, SIM_SLAB_CTOR) };
  GArray *live = g_array_new (FALSE, FALSE, sizeof (SimAddr));
  SimRng rng;
  sim_rng_init (&rng, 42, 0);
  guint n_cpus = f->w.machine->n_cpus;
  for (guint step = 0; step < 6000; step++)
    {
      guint cpu = (guint) sim_rng_below (&rng, n_cpus);
      guint r = (guint) sim_rng_below (&rng, 100);
      if (r < 50 || live->len == 0)
        {
          gint node = sim_rng_below (&rng, 8) == 0 ? (gint) sim_rng_below (&rng, 2) : -1;
          SimAddr a = sim_slqb_cache_alloc (f->slqb, on (f, cpu), ids[r % 3], node, 0);
          assert_true (a != 0);
          g_array_append_val (live, a);
        }
      else if (r < 98)
        {
          guint i = (guint) sim_rng_below (&rng, live->len);
          assert_true (sim_slqb_free (f->slqb, on (f, cpu), g_array_index (live, SimAddr, i)));
          g_array_remove_index_fast (live, i);
        }
      else
        sim_slqb_trim (f->slqb, on (f, cpu));
      if (step % 97 == 0)
        tu_world_check (&f->w);
    }
  tu_world_check (&f->w);
  for (guint i = 0; i < live->len; i++)
    assert_true (sim_slqb_free (f->slqb, on (f, i % n_cpus), g_array_index (live, SimAddr, i)));
  g_array_unref (live);
  tu_world_check (&f->w);
  for (guint round = 0; round < 4; round++)
    for (guint cpu = 0; cpu < n_cpus; cpu++)
      for (guint k = 0; k < 64; k++)
        sim_slqb_trim (f->slqb, on (f, cpu));
  tu_world_check (&f->w);
  for (guint i = 0; i < 3; i++)
    {
      SimSlqbCacheInfo in = info (f, ids[i]);
      assert_int_equal (in.slabs, 0);
      assert_int_equal (in.live_objects, 0);
      assert_int_equal (in.stat[SIM_SLQB_ALLOC], in.stat[SIM_SLQB_FREE]);
      assert_true (in.stat[SIM_SLQB_CLAIM_REMOTE_LIST] > 0);
      assert_true (in.stat[SIM_SLQB_FREE_REMOTE] > 0);
    }
  assert_int_equal (sim_page_allocated (f->w.pages), pages_before);
  fix_free (f);
}

/* L1d misses of @cpu on structures of class @cls so far. */
static guint64
misses (Fix *f, guint cpu, SimMemClass cls)
{
  return sim_memsys_cpu_stats (f->w.mem, cpu)->class_misses[cls][0];
}

/* kmem_cache_free and kfree take their own paths (mm/slqb.c): kfree finds
 * the cache through virt_to_head_slqb_page and page->list->cache;
 * kmem_cache_free is handed it and reads struct page only for a SLAB_NUMA
 * cache (__slab_free's node check), never page->list.  CPU 2 frees an
 * object CPU 0 allocated (same node), with struct page and CPU 0's list
 * never in CPU 2's L1: the misses there count what each path reads. */
static void
test_kmem_cache_free_path (void **state)
{
  (void) state;
  for (int numa = 0; numa <= 1; numa++)
    {
      guint64 page_miss[2], list_miss[2];
      for (int kfree = 0; kfree <= 1; kfree++)
        {
          Fix *f = fix_new ("slqb", numa);
          SimCacheId id = cache (f, "dentry", 192, 0);
          SimAddr a = sim_slqb_cache_alloc (f->slqb, on (f, 0), id, -1, 0);
          assert_true (a != 0);
          guint64 p0 = misses (f, 2, SIM_MEM_STRUCT_PAGE);
          guint64 l0 = misses (f, 2, SIM_MEM_CPU_SLAB);
          assert_true (kfree ? sim_slqb_free (f->slqb, on (f, 2), a)
                             : sim_slqb_cache_free (f->slqb, on (f, 2), a));
          page_miss[kfree] = misses (f, 2, SIM_MEM_STRUCT_PAGE) - p0;
          list_miss[kfree] = misses (f, 2, SIM_MEM_CPU_SLAB) - l0;
          /* Either way the object is on CPU 2's LIFO, counted as a free. */
          SimSlqbListInfo li = list_of (f, id, 2);
          assert_int_equal (li.freelist_nr, 1);
          assert_int_equal (li.stat[SIM_SLQB_FREE], 1);
          tu_world_check (&f->w);
          fix_free (f);
        }
      g_printerr ("%s: struct page misses kmem_cache_free %" G_GUINT64_FORMAT " kfree %"
                  G_GUINT64_FORMAT "; per-CPU list lines %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT "\n",
                  numa ? "NUMA" : "one node", page_miss[0], page_miss[1], list_miss[0], list_miss[1]);
      /* kfree: the head page (flags, then page->list). */
      assert_true (page_miss[1] >= 1);
      if (numa)
        /* SLAB_NUMA: kmem_cache_free reads the same struct page line. */
        assert_int_equal (page_miss[0], page_miss[1]);
      else
        assert_int_equal (page_miss[0], 0);
      /* page->list->cache: one load from CPU 0's kmem_cache_cpu, on kfree only. */
      assert_int_equal (list_miss[1], list_miss[0] + 1);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_geometry_by_hand),
    cmocka_unit_test (test_lifo_reuse),
    cmocka_unit_test (test_hiwater_flush_and_empty_pages),
    cmocka_unit_test (test_remote_batching_and_claim),
    cmocka_unit_test (test_claim_past_hiwater_flushes),
    cmocka_unit_test (test_flush_sends_foreign_objects_remote),
    cmocka_unit_test (test_trim_worker_events),
    cmocka_unit_test (test_trim_timer_hz),
    cmocka_unit_test (test_node_specific_alloc),
    cmocka_unit_test (test_colouring),
    cmocka_unit_test (test_kmalloc_classes),
    cmocka_unit_test (test_parameters),
    cmocka_unit_test (test_checker_catches_corruption),
    cmocka_unit_test (test_gfp_zero_and_bad_frees),
    cmocka_unit_test (test_random_workload_keeps_invariants),
    cmocka_unit_test (test_kmem_cache_free_path),
  };
  return cmocka_run_group_tests_name ("slqb-rules", tests, NULL, NULL);
}
