/* test-slub-size.c - SLUB's sizing rules, one era at a time.
 *
 * Expected values come from the kernel sources (worked by hand in the
 * comments), the seed messages (2007 tbench, 2010 hackbench slabinfo) and
 * the order table in shared/reference/allocators.md §1.3, which its author
 * computed with an independent re-implementation.
 */
#include "tests/testutil.h"
#include "models/alloc/slub-size.h"
#include "models/alloc/kmalloc-classes.h"
#include "sim/core/errors.h"
#include <string.h>

static SimSlubConfig
cfg_for (const char *kernel, guint cpus)
{
  SimSlubConfig cfg;
  const SimSlubEra *era = sim_slub_era_lookup (kernel, NULL);
  assert_non_null (era);
  sim_slub_config_init (&cfg, era, cpus);
  return cfg;
}

static SimSlubGeometry
geo (const SimSlubConfig *cfg, guint size, guint align, guint flags)
{
  SimSlubCacheArgs a = { "test", size, align, flags, 0 };
  SimSlubGeometry g;
  g_autoptr (GError) error = NULL;
  if (!sim_slub_calculate (cfg, &a, &g, &error))
    {
      print_error ("%s\n", error->message);
      fail ();
    }
  return g;
}

static SimSlubGeometry
kmalloc_geo (const SimSlubConfig *cfg, guint index)
{
  SimSlubCacheArgs a;
  g_autofree char *name = NULL;
  sim_kmalloc_cache_args (cfg->era, index, &a, &name);
  SimSlubGeometry g;
  assert_true (sim_slub_calculate (cfg, &a, &g, NULL));
  return g;
}

/* Seed 000 (Sep 2007, 2.6.23-rc4, 16 CPUs): "kmalloc-4096 order is 1 which
 * means one slab consists of 2 objects"; the fix was booting with
 * slub_max_order=3 slub_min_objects=8. */
static void
test_seed_2623_kmalloc_4096 (void **state)
{
  (void) state;
  SimSlubConfig cfg = cfg_for ("2.6.23", 16);
  SimSlubGeometry g = kmalloc_geo (&cfg, 12);
  assert_int_equal (g.size, 4096);
  assert_int_equal (g.order, 1);
  assert_int_equal (g.objects, 2);
  cfg.max_order = 3;
  cfg.min_objects = 8;
  g = kmalloc_geo (&cfg, 12);
  assert_int_equal (g.order, 3);
  assert_int_equal (g.objects, 8);
}

/* Seed 003 (Mar 2010, 2.6.34-rc1, 2-socket Nehalem = 16 CPUs): slabinfo
 * shows :t-0001024 at O=3 and :t-0000256 at O=1; 4*(fls(16)+1) = 24
 * objects wanted, so 32 objects each. */
static void
test_seed_2634_hackbench (void **state)
{
  (void) state;
  SimSlubConfig cfg = cfg_for ("2.6.34", 16);
  SimSlubGeometry g = kmalloc_geo (&cfg, 8);
  assert_int_equal (g.order, 1);
  assert_int_equal (g.objects, 32);
  g = kmalloc_geo (&cfg, 10);
  assert_int_equal (g.order, 3);
  assert_int_equal (g.objects, 32);
  g_autofree char *id = sim_slub_unique_id (cfg.era, &g);
  assert_string_equal (id, ":t-0001024");
}

/* allocators.md §1.3: orders for nr_cpu_ids 1/2/4/8/64, 2.6.34 and 6.18
 * alike; 2.6.23 ignores the CPU count. */
static void
test_order_table (void **state)
{
  (void) state;
  static const struct { guint size; guint o[5]; guint o2623; } rows[] = {
    { 8,    { 0, 0, 0, 0, 0 }, 0 },
    { 64,   { 0, 0, 0, 0, 0 }, 0 },
    { 128,  { 0, 0, 0, 0, 0 }, 0 },
    { 192,  { 0, 0, 0, 0, 1 }, 0 },
    { 256,  { 0, 0, 0, 1, 1 }, 0 },
    { 512,  { 0, 1, 1, 2, 2 }, 0 },
    { 1024, { 1, 2, 2, 3, 3 }, 0 },
    { 2048, { 2, 3, 3, 3, 3 }, 1 },
    { 4096, { 3, 3, 3, 3, 3 }, 1 },
    { 8192, { 3, 3, 3, 3, 3 }, 1 },
  };
  static const guint cpus[5] = { 1, 2, 4, 8, 64 };
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    for (guint c = 0; c < 5; c++)
      {
        SimSlubConfig a = cfg_for ("2.6.34", cpus[c]);
        SimSlubConfig b = cfg_for ("6.18", cpus[c]);
        SimSlubConfig o = cfg_for ("2.6.23", cpus[c]);
        assert_int_equal (sim_slub_calculate_order (&a, rows[r].size), rows[r].o[c]);
        assert_int_equal (sim_slub_calculate_order (&b, rows[r].size), rows[r].o[c]);
        assert_int_equal (sim_slub_calculate_order (&o, rows[r].size), rows[r].o2623);
      }
}

static void
test_hwcache_alignment (void **state)
{
  (void) state;
  const SimSlubEra *e23 = sim_slub_era_lookup ("2.6.23", NULL);
  const SimSlubEra *e34 = sim_slub_era_lookup ("2.6.34", NULL);
  const SimSlubEra *e618 = sim_slub_era_lookup ("6.18", NULL);
  /* 2.6.23: the line only for objects above half a line. */
  assert_int_equal (sim_slub_calculate_alignment (e23, SIM_SLUB_HWCACHE_ALIGN, 0, 20), 8);
  assert_int_equal (sim_slub_calculate_alignment (e23, SIM_SLUB_HWCACHE_ALIGN, 0, 32), 8);
  assert_int_equal (sim_slub_calculate_alignment (e23, SIM_SLUB_HWCACHE_ALIGN, 0, 33), 64);
  assert_int_equal (sim_slub_calculate_alignment (e23, SIM_SLUB_HWCACHE_ALIGN, 128, 200), 128);
  /* Later: the line halves while the object fits in half of it. */
  for (const SimSlubEra *e = e34; e; e = (e == e34 ? e618 : NULL))
    {
      assert_int_equal (sim_slub_calculate_alignment (e, SIM_SLUB_HWCACHE_ALIGN, 0, 8), 8);
      assert_int_equal (sim_slub_calculate_alignment (e, SIM_SLUB_HWCACHE_ALIGN, 0, 10), 16);
      assert_int_equal (sim_slub_calculate_alignment (e, SIM_SLUB_HWCACHE_ALIGN, 0, 20), 32);
      assert_int_equal (sim_slub_calculate_alignment (e, SIM_SLUB_HWCACHE_ALIGN, 0, 32), 32);
      assert_int_equal (sim_slub_calculate_alignment (e, SIM_SLUB_HWCACHE_ALIGN, 0, 33), 64);
      assert_int_equal (sim_slub_calculate_alignment (e, SIM_SLUB_HWCACHE_ALIGN, 128, 33), 128);
      assert_int_equal (sim_slub_calculate_alignment (e, 0, 0, 33), 8);
      assert_int_equal (sim_slub_calculate_alignment (e, 0, 4, 33), 8);
    }
  /* A 20-byte hwcache object: 24-byte slots in 2.6.23, 32 later. */
  SimSlubConfig c23 = cfg_for ("2.6.23", 1), c618 = cfg_for ("6.18", 1);
  assert_int_equal (geo (&c23, 20, 0, SIM_SLUB_HWCACHE_ALIGN).size, 24);
  assert_int_equal (geo (&c618, 20, 0, SIM_SLUB_HWCACHE_ALIGN).size, 32);
  assert_int_equal (geo (&c618, 184, 0, SIM_SLUB_HWCACHE_ALIGN).size, 192);
}

static void
test_freeptr_placement (void **state)
{
  (void) state;
  SimSlubConfig c23 = cfg_for ("2.6.23", 1), c34 = cfg_for ("2.6.34", 1),
                c618 = cfg_for ("6.18", 1);
  SimSlubGeometry g;
  /* Plain caches overlay the free pointer on the free object. */
  g = geo (&c23, 100, 0, 0);
  assert_int_equal (g.offset, 0);
  assert_int_equal (g.inuse, 104);
  assert_int_equal (g.size, 104);
  g = geo (&c34, 100, 0, 0);
  assert_int_equal (g.offset, 0);
  g = geo (&c618, 100, 0, 0);
  assert_int_equal (g.offset, 48);        /* ALIGN_DOWN(100 / 2, 8) */
  assert_int_equal (g.size, 104);
  g = geo (&c618, 8, 0, 0);
  assert_int_equal (g.offset, 0);
  /* A constructor or RCU puts it behind the object in every era. */
  for (guint f = 0; f < 2; f++)
    {
      guint flag = f ? SIM_SLUB_CTOR : SIM_SLUB_TYPESAFE_BY_RCU;
      g = geo (&c23, 100, 0, flag);
      assert_int_equal (g.offset, 104);
      assert_int_equal (g.size, 112);
      g = geo (&c34, 100, 0, flag);
      assert_int_equal (g.offset, 104);
      g = geo (&c618, 100, 0, flag);
      assert_int_equal (g.offset, 104);
      assert_int_equal (g.inuse, 104);
      assert_int_equal (g.size, 112);
    }
  /* 6.12+: an RCU cache may name a word inside the object instead. */
  SimSlubCacheArgs a = { "rcu", 100, 0, SIM_SLUB_TYPESAFE_BY_RCU | SIM_SLUB_FREEPTR_OFFSET, 16 };
  assert_true (sim_slub_calculate (&c618, &a, &g, NULL));
  assert_int_equal (g.offset, 16);
  assert_int_equal (g.size, 104);
  /* ... but a ctor still wins. */
  a.flags |= SIM_SLUB_CTOR;
  assert_true (sim_slub_calculate (&c618, &a, &g, NULL));
  assert_int_equal (g.offset, 104);
}

static void
expect_model_error (const SimSlubConfig *cfg, SimSlubCacheArgs a, const char *needle)
{
  SimSlubGeometry g;
  g_autoptr (GError) error = NULL;
  assert_false (sim_slub_calculate (cfg, &a, &g, &error));
  assert_true (g_error_matches (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM));
  tu_assert_contains (error->message, needle);
}

static void
test_invalid_caches (void **state)
{
  (void) state;
  SimSlubConfig c34 = cfg_for ("2.6.34", 1), c618 = cfg_for ("6.18", 1);
  guint rf = SIM_SLUB_TYPESAFE_BY_RCU | SIM_SLUB_FREEPTR_OFFSET;
  expect_model_error (&c34, (SimSlubCacheArgs) { "x", 100, 0, rf, 16 }, "does not exist in 2.6.34");
  expect_model_error (&c618, (SimSlubCacheArgs) { "x", 100, 0, SIM_SLUB_FREEPTR_OFFSET, 16 },
                      "needs typesafe_by_rcu");
  expect_model_error (&c618, (SimSlubCacheArgs) { "x", 100, 0, rf, 100 }, "below the object size");
  expect_model_error (&c618, (SimSlubCacheArgs) { "x", 100, 0, rf, 12 }, "multiple of 8");
  expect_model_error (&c618, (SimSlubCacheArgs) { "x", 0, 0, 0, 0 }, "object size 0");
  expect_model_error (&c618, (SimSlubCacheArgs) { "x", (4u << 20) + 1, 0, 0, 0 }, "KMALLOC_MAX_SIZE");
  expect_model_error (&c618, (SimSlubCacheArgs) { "x", 100, 24, 0, 0 }, "not a power of two");
}

static void
test_min_partial (void **state)
{
  (void) state;
  SimSlubConfig c23 = cfg_for ("2.6.23", 1), c34 = cfg_for ("2.6.34", 1),
                c618 = cfg_for ("6.18", 1);
  /* 2.6.23: the constant MIN_PARTIAL. */
  assert_int_equal (geo (&c23, 8, 0, 0).min_partial, 2);
  assert_int_equal (geo (&c23, 65536, 0, 0).min_partial, 2);
  /* 2.6.34: clamp(ilog2(size), 5, 10). */
  assert_int_equal (geo (&c34, 8, 0, 0).min_partial, 5);
  assert_int_equal (geo (&c34, 64, 0, 0).min_partial, 6);
  assert_int_equal (geo (&c34, 1000, 0, 0).min_partial, 9);
  assert_int_equal (geo (&c34, 1024, 0, 0).min_partial, 10);
  assert_int_equal (geo (&c34, 8192, 0, 0).min_partial, 10);
  /* 6.18: clamp(ilog2(size) / 2, 5, 10). */
  assert_int_equal (geo (&c618, 2048, 0, 0).min_partial, 5);
  assert_int_equal (geo (&c618, 4096, 0, 0).min_partial, 6);
  assert_int_equal (geo (&c618, 65536, 0, 0).min_partial, 8);
  assert_int_equal (geo (&c618, 4u << 20, 0, 0).min_partial, 10);
}

static void
test_cpu_partial (void **state)
{
  (void) state;
  SimSlubConfig c618 = cfg_for ("6.18", 2), c34 = cfg_for ("2.6.34", 2);
  SimSlubGeometry g;
  static const struct { guint size, objects, slabs; } rows[] = {
    { 248, 120, 0 }, { 256, 52, 0 }, { 1016, 52, 0 }, { 1024, 24, 0 },
    { 4088, 24, 0 }, { 4096, 6, 0 }, { 8192, 6, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g = geo (&c618, rows[i].size, 0, 0);
      assert_int_equal (g.cpu_partial, rows[i].objects);
      /* Slabs assumed half full: DIV_ROUND_UP(2 * objects, per slab). */
      assert_int_equal (g.cpu_partial_slabs, (2 * g.cpu_partial + g.objects - 1) / g.objects);
      assert_int_equal (geo (&c34, rows[i].size, 0, 0).cpu_partial, 0);
    }
  g = geo (&c618, 8, 0, 0);            /* 512 per slab: 240 / 512 -> 1 */
  assert_int_equal (g.cpu_partial_slabs, 1);
  g = geo (&c618, 2048, 0, 0);         /* 16 per slab: 48 / 16 -> 3 */
  assert_int_equal (g.cpu_partial_slabs, 3);
  /* The bands read the slot size, not the object size. */
  g = geo (&c618, 250, 0, SIM_SLUB_CTOR);
  assert_int_equal (g.size, 264);
  assert_int_equal (g.cpu_partial, 52);
}

static void
test_order_fallback (void **state)
{
  (void) state;
  SimSlubConfig c618 = cfg_for ("6.18", 2), c34 = cfg_for ("2.6.34", 16),
                c23 = cfg_for ("2.6.23", 1);
  SimSlubGeometry g;
  /* s->min is get_order(size): kmalloc-8k falls back to one order-1 page. */
  g = kmalloc_geo (&c618, 13);
  assert_int_equal (g.order, 3);
  assert_int_equal (g.objects, 4);
  assert_int_equal (g.min_order, 1);
  assert_int_equal (g.min_objects, 1);
  g = kmalloc_geo (&c34, 10);
  assert_int_equal (g.min_order, 0);
  assert_int_equal (g.min_objects, 4);
  /* 2.6.23 has no fallback geometry: min is oo. */
  g = kmalloc_geo (&c23, 12);
  assert_int_equal (g.min_order, g.order);
  /* A 40000-byte object fits no slab of slub_max_order: every era ends in
   * the single-object path at get_order(size) = 4. */
  for (guint e = 0; e < 3; e++)
    {
      SimSlubConfig *c = e == 0 ? &c618 : e == 1 ? &c34 : &c23;
      g = geo (c, 40000, 0, 0);
      assert_int_equal (g.order, 4);
      assert_int_equal (g.objects, 1);
      assert_int_equal (g.min_order, 4);
    }
  /* 2.6.23 stops at slub_max_order 1 with one object before going higher. */
  g = geo (&c23, 8192, 0, 0);
  assert_int_equal (g.order, 1);
  assert_int_equal (g.objects, 1);
  g = geo (&c23, 5000, 0, 0);          /* 8192 % 5000 = 3192: only fract 1 takes it */
  assert_int_equal (g.order, 1);
  assert_int_equal (g.objects, 1);
  /* 2.6.34 backs min_objects off one by one: 3000-byte objects with 24
   * wanted settle for 10 in order 3 (32768 % 3000 = 2768 <= 32768/8). */
  g = geo (&c34, 3000, 0, 0);
  assert_int_equal (g.order, 3);
  assert_int_equal (g.objects, 10);
}

/* Too many objects at slub_min_order: 2.6.34 and 6.18 return
 * get_order(size * MAX_OBJS_PER_PAGE) - 1, below the minimum order. */
static void
test_min_order_object_limit (void **state)
{
  (void) state;
  SimSlubConfig c34 = cfg_for ("2.6.34", 1), c618 = cfg_for ("6.18", 1);
  c34.min_order = 10;
  SimSlubGeometry g = geo (&c34, 8, 0, 0);
  assert_int_equal (g.order, 6);                 /* get_order(8 * 65535) - 1 */
  assert_int_equal (g.objects, 32768);
  c618.min_order = 10;
  c618.max_order = 10;
  g = geo (&c618, 8, 0, 0);
  assert_int_equal (g.order, 5);                 /* get_order(8 * 32767) - 1 */
  assert_int_equal (g.objects, 16384);
  /* A normal minimum order is honoured. */
  c618.min_order = 2;
  assert_int_equal (geo (&c618, 64, 0, 0).order, 2);
  /* 2.6.34 does not raise slub_max_order with slub_min_order: every search
   * up to max order 3 fails and the MAX_ORDER fallback returns order 5. */
  SimSlubConfig c = cfg_for ("2.6.34", 1);
  c.min_order = 5;
  g = geo (&c, 64, 0, 0);
  assert_int_equal (g.order, 5);
  assert_int_equal (g.objects, 2048);
  assert_int_equal (g.min_order, 0);
}

static void
test_unique_id (void **state)
{
  (void) state;
  SimSlubGeometry g = { 0 };
  g.size = 256;
  static const struct { const char *kernel; guint flags; const char *id; } rows[] = {
    { "2.6.23", 0, ":0000256" },
    { "2.6.23", SIM_SLUB_RECLAIM_ACCOUNT, ":a-0000256" },
    { "2.6.23", SIM_SLUB_CACHE_DMA | SIM_SLUB_RECLAIM_ACCOUNT, ":da-0000256" },
    { "2.6.34", 0, ":t-0000256" },
    { "2.6.34", SIM_SLUB_CACHE_DMA | SIM_SLUB_RECLAIM_ACCOUNT, ":dat-0000256" },
    { "6.18", 0, ":0000256" },
    { "6.18", SIM_SLUB_RECLAIM_ACCOUNT, ":a-0000256" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g.flags = rows[i].flags;
      g_autofree char *id = sim_slub_unique_id (sim_slub_era_lookup (rows[i].kernel, NULL), &g);
      assert_string_equal (id, rows[i].id);
    }
}

static SimSlubCache *
create (SimSlubCacheSet *set, const char *name, guint size, guint align, guint flags,
        gboolean *merged)
{
  SimSlubCacheArgs a = { name, size, align, flags, 0 };
  SimSlubCache *c = sim_slub_cache_set_create (set, &a, merged, NULL);
  assert_non_null (c);
  return c;
}

/* Sheaf capacity by era.  6.18 gives a cache the kmem_cache_args request
 * and nothing else.  The 7.x rule (calculate_sheaf_capacity, "slab: add
 * sheaves to most caches") is checked on 6.18's sizing row with the rule
 * switched, so it does not depend on which 7.x row the SLUB model adds:
 * 60 / 26 / 12 / 4 by s->size, grown until 32 + 8 * capacity fills its
 * kmalloc bucket (512 -> 60, 240 -> 256 -> 28, 128 -> 12, 64 -> 4), never
 * below the request (maple_node's 32), none for boot caches. */
static void
test_sheaf_capacity_rules (void **state)
{
  (void) state;
  const SimSlubEra *e618 = sim_slub_era_lookup ("6.18", NULL);
  const SimSlubEra *e34 = sim_slub_era_lookup ("2.6.34", NULL);
  assert_int_equal (sim_slub_sheaf_capacity (e618, 256, 32, 0), 32);
  assert_int_equal (sim_slub_sheaf_capacity (e618, 256, 0, 0), 0);
  assert_int_equal (sim_slub_sheaf_capacity (e618, 64, 0, SIM_SLUB_KMALLOC), 0);
  assert_int_equal (sim_slub_sheaf_capacity (e34, 256, 0, 0), 0);

  SimSlubEra all = *e618;
  all.sheaf_rule = SIM_SLUB_SHEAVES_ALL;
  static const struct { guint size, requested, want; } rows[] = {
    { 8, 0, 60 }, { 192, 0, 60 }, { 255, 0, 60 },
    { 256, 0, 28 }, { 1023, 0, 28 }, { 256, 32, 32 }, { 256, 20, 28 },
    { 1024, 0, 12 }, { 4095, 0, 12 },
    { 4096, 0, 4 }, { 8192, 0, 4 }, { 8192, 100, 100 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint got = sim_slub_sheaf_capacity (&all, rows[i].size, rows[i].requested, 0);
      if (got != rows[i].want)
        print_error ("size %u request %u: got %u, want %u\n", rows[i].size, rows[i].requested,
                     got, rows[i].want);
      assert_int_equal (got, rows[i].want);
    }
  assert_int_equal (sim_slub_sheaf_capacity (&all, 256, 0, SIM_SLUB_BOOT_CACHE), 0);
  assert_int_equal (sim_slub_sheaf_capacity (&all, 64, 0, SIM_SLUB_KMALLOC), 60);

  /* Through the whole sizing: the geometry carries it, and a request
   * makes the cache unmergeable in both rules. */
  SimSlubConfig cfg;
  sim_slub_config_init (&cfg, &all, 2);
  SimSlubCacheArgs a = { .name = "maple_node", .object_size = 256, .align = 256,
                         .sheaf_capacity = 32 };
  SimSlubGeometry g;
  assert_true (sim_slub_calculate (&cfg, &a, &g, NULL));
  assert_int_equal (g.sheaf_capacity, 32);
  assert_true (g.flags & SIM_SLUB_NO_MERGE);
  a.sheaf_capacity = 0;
  assert_true (sim_slub_calculate (&cfg, &a, &g, NULL));
  assert_int_equal (g.sheaf_capacity, 28);
  assert_false (g.flags & SIM_SLUB_NO_MERGE);
}

static void
test_merge_2634 (void **state)
{
  (void) state;
  SimSlubConfig cfg = cfg_for ("2.6.34", 16);
  g_autoptr (SimSlubCacheSet) set = sim_slub_cache_set_new (&cfg);
  assert_true (sim_kmalloc_create_caches (set, NULL));
  guint n = set->caches->len;
  gboolean merged;
  /* Size within a word of kmalloc-256: an alias of it. */
  SimSlubCache *c = create (set, "foo", 250, 0, 0, &merged);
  assert_true (merged);
  assert_string_equal (c->name, "kmalloc-256");
  assert_int_equal (c->refcount, 2);
  assert_string_equal (g_ptr_array_index (c->aliases, 0), "foo");
  g_autofree char *sysfs = sim_slub_cache_sysfs_name (set, c);
  assert_string_equal (sysfs, ":t-0000256");
  /* A constructor, RCU or a different reclaim flag: a cache of its own. */
  c = create (set, "withctor", 256, 0, SIM_SLUB_CTOR, &merged);
  assert_false (merged);
  g_autofree char *s2 = sim_slub_cache_sysfs_name (set, c);
  assert_string_equal (s2, "withctor");
  c = create (set, "rcu", 256, 0, SIM_SLUB_TYPESAFE_BY_RCU, &merged);
  assert_false (merged);
  SimSlubCache *r = create (set, "rec", 192, 0, SIM_SLUB_RECLAIM_ACCOUNT, &merged);
  assert_false (merged);
  g_autofree char *s3 = sim_slub_cache_sysfs_name (set, r);
  assert_string_equal (s3, ":at-0000192");
  /* ... which the next reclaimable 190-byte cache joins. */
  c = create (set, "rec2", 190, 0, SIM_SLUB_RECLAIM_ACCOUNT, &merged);
  assert_true (merged);
  assert_ptr_equal (c, r);
  assert_int_equal (set->caches->len, n + 3);
  /* A slot a word or more smaller than any cache does not merge. */
  c = create (set, "odd", 200, 0, 0, &merged);
  assert_false (merged);
  assert_int_equal (c->geo.size, 200);
}

static void
test_merge_618_and_nomerge (void **state)
{
  (void) state;
  SimSlubConfig cfg = cfg_for ("6.18", 2);
  g_autoptr (SimSlubCacheSet) set = sim_slub_cache_set_new (&cfg);
  assert_true (sim_kmalloc_create_caches (set, NULL));
  gboolean merged;
  /* kmalloc-* carry SLAB_NO_MERGE (CONFIG_MEMCG): a new cache. */
  SimSlubCache *a = create (set, "a", 248, 0, 0, &merged);
  assert_false (merged);
  g_autofree char *id = sim_slub_cache_sysfs_name (set, a);
  assert_string_equal (id, ":0000248");
  /* b's slot (248) equals a's: merged, object_size grows to the larger. */
  SimSlubCache *b = create (set, "b", 244, 0, 0, &merged);
  assert_true (merged);
  assert_ptr_equal (a, b);
  assert_int_equal (a->geo.object_size, 248);
  SimSlubCache *c = create (set, "c", 252, 0, 0, &merged);
  assert_false (merged);           /* slot 256 > 248 */
  assert_ptr_not_equal (c, a);
  /* hwcache alignment is part of the slot compared: 200 bytes aligned to
   * 64 is a 256-byte slot, exactly c's. */
  SimSlubCache *h = create (set, "h", 200, 0, SIM_SLUB_HWCACHE_ALIGN, &merged);
  assert_true (merged);
  assert_ptr_equal (h, c);
  assert_int_equal (c->refcount, 2);
  assert_int_equal (c->geo.object_size, 252);
  /* Without the alignment it is a 200-byte slot of its own. */
  h = create (set, "h2", 200, 0, 0, &merged);
  assert_false (merged);
  assert_int_equal (h->geo.size, 200);

  cfg.nomerge = TRUE;
  g_autoptr (SimSlubCacheSet) set2 = sim_slub_cache_set_new (&cfg);
  a = create (set2, "a", 248, 0, 0, &merged);
  b = create (set2, "b", 248, 0, 0, &merged);
  assert_false (merged);
  assert_ptr_not_equal (a, b);
  g_autofree char *n2 = sim_slub_cache_sysfs_name (set2, a);
  assert_string_equal (n2, "a");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_seed_2623_kmalloc_4096),
    cmocka_unit_test (test_seed_2634_hackbench),
    cmocka_unit_test (test_order_table),
    cmocka_unit_test (test_hwcache_alignment),
    cmocka_unit_test (test_freeptr_placement),
    cmocka_unit_test (test_invalid_caches),
    cmocka_unit_test (test_min_partial),
    cmocka_unit_test (test_cpu_partial),
    cmocka_unit_test (test_sheaf_capacity_rules),
    cmocka_unit_test (test_order_fallback),
    cmocka_unit_test (test_min_order_object_limit),
    cmocka_unit_test (test_unique_id),
    cmocka_unit_test (test_merge_2634),
    cmocka_unit_test (test_merge_618_and_nomerge),
  };
  return cmocka_run_group_tests_name ("slub-size", tests, NULL, NULL);
}
