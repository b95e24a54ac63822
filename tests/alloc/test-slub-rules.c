/* test-slub-rules.c - directed tests, one per SLUB rule, driving the model
 * call by call and checking its counters against what the kernel code of
 * the era does (models/alloc/slub.c, docs/models/slub.md). */
#include "tests/alloc/world.h"
#include "models/alloc/slub.h"
#include "models/page/page-alloc.h"
#include "sim/config/machine.h"

#include <string.h>

typedef struct {
  TuWorld w;
  SimSlub *slub;
  SimOp op;
} Fix;

static Fix *
fix_new_on (const char *spec_text, guint64 managed_bytes, const char *const *overrides)
{
  Fix *f = g_new0 (Fix, 1);
  GError *error = NULL;
  tu_world_init (&f->w, spec_text, overrides, managed_bytes, FALSE);
  f->slub = sim_slub_new (f->w.spec, &f->w.env, &error);
  tu_world_assert_model (f->slub, error);
  f->w.model = f->slub;
  return f;
}

static Fix *
fix_new (const char *spec_text, guint64 managed_bytes)
{
  return fix_new_on (spec_text, managed_bytes, NULL);
}

static void
fix_free (Fix *f)
{
  sim_slub_free_model (f->slub);
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
  SimCacheId id = sim_slub_cache_create (f->slub, on (f, 0), &spec, &error);
  assert_true (id != SIM_CACHE_NONE);
  return id;
}

static void
info (Fix *f, SimCacheId id, SimSlubCacheInfo *out)
{
  sim_slub_cache_info (f->slub, id, out);
  sim_slub_cache_info_clear (out);
}

/* The first allocation on a CPU takes a new slab (slow path); the rest of
 * that slab comes from the cpu freelist (fast path); objects are handed
 * out in ascending address order. */
static void
test_fastpath_from_cpu_slab (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@2.6.34", 0);
  SimCacheId id = cache (f, "test_256", 256, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint per_slab = in.g.objects;
  assert_true (per_slab >= 16);
  SimAddr objs[64];
  tu_world_alloc_n (&f->w, id, 0, objs, per_slab);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLAB], 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLOWPATH], 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_FASTPATH], per_slab - 1);
  for (guint i = 1; i < per_slab; i++)
    assert_true (objs[i] == objs[i - 1] + in.g.size);
  tu_world_check (&f->w);
  /* Frees on the same CPU go to the cpu freelist (fast) and come back
   * LIFO. */
  tu_world_free_n (&f->w, 0, &objs[per_slab - 4], 4);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FASTPATH], 4);
  SimAddr again = sim_slub_cache_alloc (f->slub, on (f, 0), id, -1, 0);
  assert_true (again == objs[per_slab - 1]);
  tu_world_check (&f->w);
  fix_free (f);
}

/* 2.6.34: a free from another CPU into a cpu slab is a frozen free; when
 * the cpu freelist runs dry, the slab's own freelist (those remote frees)
 * is taken: alloc_refill. */
static void
test_frozen_free_and_refill (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@2.6.34", 0);
  SimCacheId id = cache (f, "test_512", 512, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint per_slab = in.g.objects;
  SimAddr objs[128];
  tu_world_alloc_n (&f->w, id, 0, objs, per_slab);            /* cpu 0's slab now fully handed out */
  tu_world_free_n (&f->w, 1, objs, 3);                        /* cpu 1 frees three of them */
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_SLOWPATH], 3);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FROZEN], 3);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FASTPATH], 0);
  tu_world_check (&f->w);
  SimAddr a = sim_slub_cache_alloc (f->slub, on (f, 0), id, -1, 0);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_REFILL], 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLAB], 1);     /* no new slab needed */
  assert_true (a == objs[2]);                    /* the last freed is the freelist head */
  tu_world_check (&f->w);
  fix_free (f);
}

/* 2.6.34 deactivate_slab: a slab whose cpu freelist still had objects goes
 * to the head of the partial list (hot); one with only remote frees goes to
 * the tail.  Empty slabs are kept while nr_partial < min_partial. */
static void
test_deactivate_head_tail (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@2.6.34", 0);
  SimCacheId id = cache (f, "test_1024", 1024, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint per_slab = in.g.objects;
  SimAddr *objs = g_new (SimAddr, per_slab * 3);
  /* Slab A: fully allocated on cpu 0, then one object freed locally (stays
   * on the cpu freelist). */
  tu_world_alloc_n (&f->w, id, 0, objs, per_slab);
  tu_world_free_n (&f->w, 0, &objs[per_slab - 1], 1);
  /* Take one more object and then force a new slab: draining the cpu
   * freelist first. */
  tu_world_alloc_n (&f->w, id, 0, &objs[per_slab - 1], 1);
  /* Now slab A is exhausted; a remote free makes its page freelist
   * non-empty, then cpu 0's next alloc refills from it. */
  tu_world_free_n (&f->w, 2, &objs[0], 2);
  tu_world_alloc_n (&f->w, id, 0, &objs[per_slab], 1);        /* refill: takes objs[1], cpu freelist = objs[0] */
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_REFILL], 1);
  /* Exhaust and deactivate: next alloc uses the last cpu freelist object,
   * then a new slab is needed and A is deactivated full. */
  tu_world_alloc_n (&f->w, id, 0, &objs[per_slab + 1], 2);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_DEACTIVATE_FULL], 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_SLAB], 2);
  tu_world_check (&f->w);
  /* flush_all with objects on the cpu freelist: to the head. */
  sim_slub_flush_all (f->slub, on (f, 0));
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_CPUSLAB_FLUSH], 1);
  assert_int_equal (in.stat[SIM_SLUB_DEACTIVATE_TO_HEAD], 1);
  assert_int_equal (in.partial_slabs, 1);
  tu_world_check (&f->w);
  g_free (objs);
  fix_free (f);
}

/* __slab_free of 2.6.34: a full slab that gets a free goes to the partial
 * list tail (free_add_partial); the slab emptied by the last free is
 * discarded straight away (free_remove_partial + free_slab). */
static void
test_free_add_and_remove_partial (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@2.6.34", 0);
  SimCacheId id = cache (f, "test_2048", 2048, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint per_slab = in.g.objects;
  SimAddr *objs = g_new (SimAddr, per_slab * 2);
  tu_world_alloc_n (&f->w, id, 0, objs, per_slab * 2);        /* slab A full and deactivated, B cpu slab */
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_DEACTIVATE_FULL], 1);
  tu_world_free_n (&f->w, 1, objs, 1);                        /* A: full -> partial */
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_ADD_PARTIAL], 1);
  assert_int_equal (in.partial_slabs, 1);
  tu_world_free_n (&f->w, 1, &objs[1], per_slab - 1);         /* A empties */
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_FREE_REMOVE_PARTIAL], 1);
  assert_int_equal (in.stat[SIM_SLUB_FREE_SLAB], 1);
  assert_int_equal (in.slabs, 1);
  tu_world_check (&f->w);
  g_free (objs);
  fix_free (f);
}

/* Empty slabs at deactivation are kept while nr_partial < min_partial
 * (5 on 2.6.34) and freed after that. */
static void
test_empty_retention_min_partial (void **state)
{
  (void) state;
  /* One node, so every CPU's slab lands on the same partial list. */
  Fix *f = fix_new_on ("slub@2.6.34", 0, (const char *[]) { "numa=false", NULL });
  SimCacheId id = cache (f, "test_4096", 4096, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_int_equal (in.g.min_partial, 10);        /* clamp(ilog2(4096) = 12, 5, 10) */
  guint mp = in.g.min_partial;
  /* Give each of several CPUs one slab, allocate one object each and free
   * it again: at flush the slabs are empty. */
  SimAddr obj[16];
  for (guint cpu = 0; cpu < mp + 2; cpu++)
    {
      obj[cpu] = sim_slub_cache_alloc (f->slub, on (f, cpu), id, -1, 0);
      assert_true (sim_slub_free (f->slub, on (f, cpu), obj[cpu]));
    }
  sim_slub_flush_all (f->slub, on (f, 0));
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_DEACTIVATE_EMPTY], mp + 2);
  assert_int_equal (in.partial_slabs, mp);
  assert_int_equal (in.stat[SIM_SLUB_FREE_SLAB], 2);
  tu_world_check (&f->w);
  fix_free (f);
}

/* 6.18: frees into full slabs park them on the freeing CPU's partial
 * chain (cpu_partial_free); a chain at cpu_partial_slabs is drained to the
 * node list first (cpu_partial_drain); the next alloc slow path takes
 * cpu partial slabs first (cpu_partial_alloc). */
static void
test_cpu_partial_618 (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@6.18", 0);
  SimCacheId id = cache (f, "test_1024", 1024, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint per_slab = in.g.objects;
  guint limit = in.g.cpu_partial_slabs;
  assert_int_equal (in.g.cpu_partial, 24);       /* size >= 1024 */
  assert_true (limit >= 1);
  guint nslabs = limit + 3;
  SimAddr *objs = g_new (SimAddr, per_slab * nslabs);
  tu_world_alloc_n (&f->w, id, 0, objs, per_slab * nslabs);
  /* Free one object of each full slab from cpu 1. */
  for (guint s = 0; s + 1 < nslabs; s++)
    assert_true (sim_slub_free (f->slub, on (f, 1), objs[s * per_slab]));
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_CPU_PARTIAL_FREE], nslabs - 1);
  assert_true (in.stat[SIM_SLUB_CPU_PARTIAL_DRAIN] >= 1);
  assert_true (in.stat[SIM_SLUB_FREE_ADD_PARTIAL] >= limit);
  tu_world_check (&f->w);
  /* cpu 1 allocates: its partial chain serves first. */
  SimAddr a = sim_slub_cache_alloc (f->slub, on (f, 1), id, -1, 0);
  assert_true (a != 0);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_CPU_PARTIAL_ALLOC], 1);
  tu_world_check (&f->w);
  g_free (objs);
  fix_free (f);
}

/* An operation on @cpu starting at simulated time @t. */
static SimOp *
on_at (Fix *f, guint cpu, SimTime t)
{
  sim_op_begin (&f->op, f->w.mem, cpu, t);
  return &f->op;
}

/* get_any_partial on the 2-node nehalem-ep-2s (CPUs alternate between the
 * nodes: 0, 2, 4 on node 0, 1 on node 1).  CPU 1 fills @full slabs and
 * frees one object of each of the first @freed, which leaves them on node
 * 1's partial list (6.18 with cpu_partial=0: through one-slab cpu partial
 * chains, each drained to the node by the next).  Then node-0 CPUs
 * allocate: with remote_node_defrag_ratio R (2.6.23's defrag_ratio) the
 * kernel tries the other node unless get_cycles() % 1024 > R — the model's
 * get_cycles() is the operation's simulated clock — and only takes a node
 * holding more than min_partial partial slabs. */
static void
check_any_partial (const char *spec, guint full, guint freed, guint ratio, guint min_partial,
                   guint expect_partial)
{
  Fix *f = fix_new (spec, 0);
  SimCacheId id = cache (f, "test_1024", 1024, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint per_slab = in.g.objects;
  SimAddr *objs = g_new (SimAddr, per_slab * full);
  for (guint i = 0; i < per_slab * full; i++)
    {
      objs[i] = sim_slub_cache_alloc (f->slub, on (f, 1), id, -1, 0);
      assert_true (objs[i] != 0);
    }
  for (guint k = 0; k < freed; k++)
    assert_true (sim_slub_free (f->slub, on (f, 1), objs[k * per_slab]));
  info (f, id, &in);
  assert_int_equal (in.partial_slabs, expect_partial);
  assert_true (expect_partial > min_partial);
  guint64 slabs = in.slabs, from_partial = in.stat[SIM_SLUB_ALLOC_FROM_PARTIAL];

  /* get_cycles() % 1024 > ratio: not attempted, a new slab on node 0. */
  assert_true (sim_slub_cache_alloc (f->slub, on_at (f, 2, ratio + 1), id, -1, 0) != 0);
  info (f, id, &in);
  assert_int_equal (in.slabs, slabs + 1);
  assert_int_equal (in.partial_slabs, expect_partial);

  /* __GFP_THISNODE for node 0: never another node. */
  assert_true (sim_slub_cache_alloc (f->slub, on_at (f, 4, 0), id, 0, SIM_GFP_THISNODE) != 0);
  info (f, id, &in);
  assert_int_equal (in.slabs, slabs + 2);

  /* At a time inside the ratio: node 1's first partial slab, no new page;
   * its one free object is the one CPU 1 freed there. */
  SimAddr a = sim_slub_cache_alloc (f->slub, on_at (f, 0, 0), id, -1, 0);
  info (f, id, &in);
  assert_int_equal (in.slabs, slabs + 2);
  assert_int_equal (in.partial_slabs, expect_partial - 1);
  assert_int_equal (in.stat[SIM_SLUB_ALLOC_FROM_PARTIAL], from_partial + 1);
  gboolean one_of_freed = FALSE;
  for (guint k = 0; k < freed; k++)
    one_of_freed |= a == objs[k * per_slab];
  assert_true (one_of_freed);
  tu_world_check (&f->w);
  g_free (objs);
  fix_free (f);
}

static void
test_get_any_partial (void **state)
{
  (void) state;
  /* 2.6.34: remote_node_defrag_ratio 1000, min_partial set to 1. */
  check_any_partial ("slub@2.6.34:min_partial=1", 3, 2, 1000, 1, 2);
  /* 6.18: the same ratio; cpu_partial=0 so the slabs reach the node list. */
  check_any_partial ("slub@6.18:min_partial=1,cpu_partial=0", 4, 3, 1000, 1, 2);
  /* 2.6.23: defrag_ratio 100 and MIN_PARTIAL 2. */
  check_any_partial ("slub@2.6.23", 4, 3, 100, 2, 3);
}

/* Node 1 at exactly min_partial partial slabs is not raided, and one
 * node (numa=false) never has another to try. */
static void
test_get_any_partial_limits (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@2.6.34:min_partial=2", 0);
  SimCacheId id = cache (f, "test_1024", 1024, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  guint per_slab = in.g.objects;
  SimAddr *objs = g_new (SimAddr, per_slab * 3);
  for (guint i = 0; i < per_slab * 3; i++)
    objs[i] = sim_slub_cache_alloc (f->slub, on (f, 1), id, -1, 0);
  assert_true (sim_slub_free (f->slub, on (f, 1), objs[0]));
  assert_true (sim_slub_free (f->slub, on (f, 1), objs[per_slab]));
  info (f, id, &in);
  assert_int_equal (in.partial_slabs, 2);
  guint64 slabs = in.slabs;
  assert_true (sim_slub_cache_alloc (f->slub, on_at (f, 0, 0), id, -1, 0) != 0);
  info (f, id, &in);
  assert_int_equal (in.slabs, slabs + 1);
  assert_int_equal (in.partial_slabs, 2);
  tu_world_check (&f->w);
  g_free (objs);
  fix_free (f);
}

/* 6.18 with cpu_partial=0 keeps kmem_cache_has_cpu_partial's semantics:
 * a free into a full slab still parks it on the CPU's partial chain
 * (cpu_partial_free); the chain is only one slab long, so the next such
 * free drains the previous one to the node (cpu_partial_drain). */
static void
test_cpu_partial_zero_618 (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@6.18:cpu_partial=0", 0);
  SimCacheId id = cache (f, "test_1024", 1024, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_int_equal (in.g.cpu_partial_slabs, 0);
  guint per_slab = in.g.objects;
  SimAddr *objs = g_new (SimAddr, per_slab * 3);
  tu_world_alloc_n (&f->w, id, 0, objs, per_slab * 3);
  for (guint s = 0; s < 2; s++)
    assert_true (sim_slub_free (f->slub, on (f, 0), objs[s * per_slab]));
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_CPU_PARTIAL_FREE], 2);
  assert_int_equal (in.stat[SIM_SLUB_CPU_PARTIAL_DRAIN], 1);
  assert_int_equal (in.stat[SIM_SLUB_FREE_ADD_PARTIAL], 1);
  assert_int_equal (in.cpu_partial_slabs, 1);
  assert_int_equal (in.partial_slabs, 1);
  tu_world_check (&f->w);
  g_free (objs);
  fix_free (f);
}

/* When the preferred order cannot be had, new_slab falls back to s->min
 * (order_fallback) and the slab holds fewer objects. */
static void
test_order_fallback (void **state)
{
  (void) state;
  /* 4 MiB of managed memory per node, so fragmenting it is cheap. */
  /* One node, so the allocation cannot fall back to another node's
   * memory as the kernel's zonelist would. */
  Fix *f = fix_new_on ("slub@2.6.34", 4u << 20, (const char *[]) { "numa=false", NULL });
  SimCacheId id = cache (f, "test_1024", 1024, 0);
  SimSlubCacheInfo in;
  info (f, id, &in);
  assert_int_equal (in.g.order, 3);
  assert_int_equal (in.g.min_order, 0);
  /* Take every page of node 0, then give back every other one: no block
   * above order 0 remains. */
  GArray *pages = g_array_new (FALSE, FALSE, sizeof (SimAddr));
  for (;;)
    {
      SimAddr p = sim_page_alloc (f->w.pages, on (f, 0), 0, 0, SIM_GFP_THISNODE, FALSE);
      if (p == 0)
        break;
      g_array_append_val (pages, p);
    }
  assert_true (pages->len > 8);
  for (guint i = 0; i < pages->len; i += 2)
    sim_page_free (f->w.pages, on (f, 0), g_array_index (pages, SimAddr, i), 0);
  SimAddr a = sim_slub_cache_alloc (f->slub, on (f, 0), id, 0, 0);
  assert_true (a != 0);
  info (f, id, &in);
  assert_int_equal (in.stat[SIM_SLUB_ORDER_FALLBACK], 1);
  assert_int_equal (in.total_objects, 4);        /* one order-0 slab of 1024-byte objects */
  tu_world_check (&f->w);
  g_array_unref (pages);
  fix_free (f);
}

/* kmalloc: sizes map to the era's classes; above the pass-through
 * threshold the page allocator serves the request directly and kfree
 * gives the pages back. */
static void
test_kmalloc_classes_and_pass_through (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@2.6.34", 0);
  SimCacheId c96 = sim_slub_kmalloc_cache (f->slub, 96, 0);
  SimCacheId c97 = sim_slub_kmalloc_cache (f->slub, 97, 0);
  SimCacheId c8k = sim_slub_kmalloc_cache (f->slub, 8192, 0);
  assert_true (c96 != SIM_CACHE_NONE && c97 != SIM_CACHE_NONE && c8k != SIM_CACHE_NONE);
  assert_true (c96 != c97);
  assert_true (sim_slub_kmalloc_cache (f->slub, 8193, 0) == SIM_CACHE_NONE);
  SimAddr big = sim_slub_kmalloc (f->slub, on (f, 0), 9000, -1, 0);
  assert_true (big != 0);
  assert_int_equal (sim_slub_large_pages (f->slub), 4);   /* order 2 */
  assert_true (sim_slub_free (f->slub, on (f, 0), big));
  assert_int_equal (sim_slub_large_pages (f->slub), 0);
  fix_free (f);

  /* pass_through=4096 sends an 8 KiB kmalloc to the page allocator. */
  f = fix_new ("slub@2.6.34:pass_through=4096", 0);
  assert_true (sim_slub_kmalloc_cache (f->slub, 4096, 0) != SIM_CACHE_NONE);
  assert_true (sim_slub_kmalloc_cache (f->slub, 8192, 0) == SIM_CACHE_NONE);
  fix_free (f);
}

/* Sizes up to 192 come from a table (host speed only): every size gets
 * the smallest kmalloc cache that holds it, and a pass_through threshold
 * inside an 8-byte step still splits that step (97..100 kmalloc-128, 101
 * the page allocator). */
static void
test_kmalloc_small_sizes (void **state)
{
  (void) state;
  const char *specs[] = { "slub@2.6.23", "slub@2.6.34", "slub@6.18", "slub@7.0",
                          "slub@6.18:pass_through=100" };
  for (guint k = 0; k < G_N_ELEMENTS (specs); k++)
    {
      Fix *f = fix_new (specs[k], 0);
      gboolean limited = k == G_N_ELEMENTS (specs) - 1;
      for (gsize size = 0; size <= 200; size++)
        {
          SimCacheId id = sim_slub_kmalloc_cache (f->slub, size, 0);
          if (limited && size > 100)
            {
              assert_true (id == SIM_CACHE_NONE);
              continue;
            }
          assert_true (id != SIM_CACHE_NONE);
          SimSlubCacheInfo in;
          info (f, id, &in);
          guint want = size <= 8 ? 8 : size <= 64 ? (guint) (1u << g_bit_storage (size - 1))
                       : size <= 96 ? 96 : size <= 128 ? 128 : size <= 192 ? 192 : 256;
          assert_int_equal (in.g.object_size, want);
        }
      fix_free (f);
    }
}

/* __GFP_ZERO writes every line of the object. */
static void
test_gfp_zero_touches_object (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@6.18", 0);
  SimCacheId id = cache (f, "test_512", 512, 0);
  SimOp *op = on (f, 0);
  sim_slub_cache_alloc (f->slub, op, id, -1, 0);      /* warm: new slab */
  op = on (f, 0);
  sim_slub_cache_alloc (f->slub, op, id, -1, 0);
  guint plain = op->cost.accesses;
  op = on (f, 0);
  sim_slub_cache_alloc (f->slub, op, id, -1, SIM_GFP_ZERO);
  assert_int_equal (op->cost.accesses, plain + 512 / 64);
  fix_free (f);
}

/* Mergeable caches of compatible size share one kmem_cache; slub_nomerge
 * and constructors prevent it. */
static void
test_merging (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub@2.6.34", 0);
  SimCacheId a = cache (f, "test_a", 200, 0);
  SimCacheId b = cache (f, "test_b", 200, 0);
  SimCacheId c = cache (f, "test_c", 200, SIM_SLAB_CTOR);
  assert_true (a == b);
  assert_true (c != a);
  fix_free (f);
  f = fix_new ("slub@2.6.34:slub_nomerge", 0);
  a = cache (f, "test_a", 200, 0);
  b = cache (f, "test_b", 200, 0);
  assert_true (a != b);
  fix_free (f);
}

/* A free of something that is not an object is refused, not a crash. */
static void
test_foreign_free_refused (void **state)
{
  (void) state;
  Fix *f = fix_new ("slub", 0);
  assert_false (sim_slub_free (f->slub, on (f, 0), 0x12345678));
  fix_free (f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fastpath_from_cpu_slab),
    cmocka_unit_test (test_frozen_free_and_refill),
    cmocka_unit_test (test_deactivate_head_tail),
    cmocka_unit_test (test_free_add_and_remove_partial),
    cmocka_unit_test (test_empty_retention_min_partial),
    cmocka_unit_test (test_cpu_partial_618),
    cmocka_unit_test (test_cpu_partial_zero_618),
    cmocka_unit_test (test_get_any_partial),
    cmocka_unit_test (test_get_any_partial_limits),
    cmocka_unit_test (test_order_fallback),
    cmocka_unit_test (test_kmalloc_classes_and_pass_through),
    cmocka_unit_test (test_kmalloc_small_sizes),
    cmocka_unit_test (test_gfp_zero_touches_object),
    cmocka_unit_test (test_merging),
    cmocka_unit_test (test_foreign_free_refused),
  };
  return cmocka_run_group_tests_name ("slub-rules", tests, NULL, NULL);
}
