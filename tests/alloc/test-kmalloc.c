/* test-kmalloc.c - kmalloc size classes, cache lists and pass-through. */
#include "tests/testutil.h"
#include "models/alloc/kmalloc-classes.h"
#include "sim/core/errors.h"
#include <string.h>

static const SimSlubEra *
era (const char *k)
{
  const SimSlubEra *e = sim_slub_era_lookup (k, NULL);
  assert_non_null (e);
  return e;
}

static void
expect_cache (const SimSlubEra *e, guint64 size, guint index, guint64 bytes)
{
  SimKmallocClass c = sim_kmalloc_classify (e, size);
  if (c.kind != SIM_KMALLOC_CACHE || c.index != index || c.bytes != bytes)
    {
      print_error ("%s: kmalloc(%" G_GUINT64_FORMAT ") gave kind %d index %u bytes %"
                   G_GUINT64_FORMAT ", expected cache %u of %" G_GUINT64_FORMAT "\n",
                   e->kernel, size, c.kind, c.index, c.bytes, index, bytes);
      fail ();
    }
}

static void
test_boundaries_all_eras (void **state)
{
  (void) state;
  static const char *const kernels[] = { "2.6.23", "2.6.34", "6.18" };
  for (guint k = 0; k < 3; k++)
    {
      const SimSlubEra *e = era (kernels[k]);
      assert_int_equal (sim_kmalloc_classify (e, 0).kind, SIM_KMALLOC_ZERO);
      expect_cache (e, 1, 3, 8);
      expect_cache (e, 8, 3, 8);
      expect_cache (e, 9, 4, 16);
      expect_cache (e, 24, 5, 32);
      expect_cache (e, 64, 6, 64);
      expect_cache (e, 65, 1, 96);
      expect_cache (e, 96, 1, 96);
      expect_cache (e, 97, 7, 128);
      expect_cache (e, 128, 7, 128);
      expect_cache (e, 129, 2, 192);
      expect_cache (e, 192, 2, 192);
      expect_cache (e, 193, 8, 256);
      expect_cache (e, 4095, 12, 4096);
      expect_cache (e, 4096, 12, 4096);
      expect_cache (e, 4097, 13, 8192);
      expect_cache (e, 8192, 13, 8192);
    }
}

static void
test_large_by_era (void **state)
{
  (void) state;
  /* 2.6.23: caches up to 4 MiB, nothing passes through, beyond fails. */
  const SimSlubEra *e = era ("2.6.23");
  expect_cache (e, 8193, 14, 16384);
  expect_cache (e, 4u << 20, 22, 4u << 20);
  assert_int_equal (sim_kmalloc_classify (e, (4u << 20) + 1).kind, SIM_KMALLOC_FAIL);
  /* 2.6.34 and 6.18: above 8 KiB the page allocator, get_order(size). */
  for (guint k = 0; k < 2; k++)
    {
      e = era (k ? "6.18" : "2.6.34");
      SimKmallocClass c = sim_kmalloc_classify (e, 8193);
      assert_int_equal (c.kind, SIM_KMALLOC_LARGE);
      assert_int_equal (c.order, 2);
      assert_int_equal (c.bytes, 16384);
      c = sim_kmalloc_classify (e, 4u << 20);
      assert_int_equal (c.kind, SIM_KMALLOC_LARGE);
      assert_int_equal (c.order, 10);
      assert_int_equal (sim_kmalloc_classify (e, (4u << 20) + 1).kind, SIM_KMALLOC_FAIL);
    }
}

static void
test_cache_lists (void **state)
{
  (void) state;
  g_autoptr (GArray) a = sim_kmalloc_cache_indexes (era ("2.6.23"));
  assert_int_equal (a->len, 22);                  /* 96, 192, 8 .. 4M */
  assert_int_equal (g_array_index (a, guint, 0), 1);
  assert_int_equal (g_array_index (a, guint, a->len - 1), 22);
  g_autoptr (GArray) b = sim_kmalloc_cache_indexes (era ("2.6.34"));
  assert_int_equal (b->len, 13);                  /* 96, 192, 8 .. 8192 */
  assert_int_equal (g_array_index (b, guint, b->len - 1), 13);
  g_autoptr (GArray) c = sim_kmalloc_cache_indexes (era ("6.18"));
  assert_int_equal (c->len, 13);

  g_autofree char *n1 = sim_kmalloc_cache_name (era ("2.6.34"), 10);
  assert_string_equal (n1, "kmalloc-1024");
  g_autofree char *n2 = sim_kmalloc_cache_name (era ("6.18"), 10);
  assert_string_equal (n2, "kmalloc-1k");
  g_autofree char *n3 = sim_kmalloc_cache_name (era ("6.18"), 13);
  assert_string_equal (n3, "kmalloc-8k");
  g_autofree char *n4 = sim_kmalloc_cache_name (era ("6.18"), 1);
  assert_string_equal (n4, "kmalloc-96");
  g_autofree char *n5 = sim_kmalloc_cache_name (era ("2.6.23"), 22);
  assert_string_equal (n5, "kmalloc-4194304");
}

static void
test_kmalloc_alignment (void **state)
{
  (void) state;
  SimSlubCacheArgs a;
  g_autofree char *n1 = NULL, *n2 = NULL, *n3 = NULL;
  /* 6.18 create_boot_cache(): largest power of two dividing the size. */
  sim_kmalloc_cache_args (era ("6.18"), 1, &a, &n1);
  assert_int_equal (a.align, 32);
  assert_true (a.flags & SIM_SLUB_NO_MERGE);
  sim_kmalloc_cache_args (era ("6.18"), 2, &a, &n2);
  assert_int_equal (a.align, 64);
  /* 2.6.x: ARCH_KMALLOC_MINALIGN, mergeable. */
  sim_kmalloc_cache_args (era ("2.6.34"), 1, &a, &n3);
  assert_int_equal (a.align, 8);
  assert_int_equal (a.flags, 0);
}

static void
test_passthrough_timeline (void **state)
{
  (void) state;
  static const struct { const char *k; guint64 largest, above; } rows[] = {
    { "2.6.22", 4u << 20, 0 }, { "2.6.23", 4u << 20, 0 }, { "2.6.23.17", 4u << 20, 0 },
    { "2.6.24", 2048, 2048 }, { "2.6.25", 4096, 4096 }, { "2.6.29", 4096, 4096 },
    { "2.6.30", 8192, 8192 }, { "2.6.34", 8192, 8192 }, { "3.0", 8192, 8192 },
    { "6.18", 8192, 8192 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      const SimKmallocEpoch *ep = sim_kmalloc_epoch_for (rows[i].k, NULL);
      assert_non_null (ep);
      assert_int_equal (ep->largest_cache, rows[i].largest);
      assert_int_equal (ep->passthrough_above, rows[i].above);
    }
  g_autoptr (GError) error = NULL;
  assert_null (sim_kmalloc_epoch_for ("2.6.21", &error));
  tu_assert_contains (error->message, "predates SLUB");
  g_clear_error (&error);
  assert_null (sim_kmalloc_epoch_for ("two.six", &error));
  tu_assert_contains (error->message, "is not a version");
  /* The eras agree with the timeline. */
  static const char *const kernels[] = { "2.6.23", "2.6.34", "6.18" };
  for (guint k = 0; k < 3; k++)
    {
      const SimSlubEra *e = era (kernels[k]);
      const SimKmallocEpoch *ep = sim_kmalloc_epoch_for (kernels[k], NULL);
      assert_int_equal (1ull << e->kmalloc_shift_high, ep->largest_cache);
      assert_int_equal (e->kmalloc_passthrough, ep->passthrough_above != 0);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_boundaries_all_eras),
    cmocka_unit_test (test_large_by_era),
    cmocka_unit_test (test_cache_lists),
    cmocka_unit_test (test_kmalloc_alignment),
    cmocka_unit_test (test_passthrough_timeline),
  };
  return cmocka_run_group_tests_name ("kmalloc", tests, NULL, NULL);
}
