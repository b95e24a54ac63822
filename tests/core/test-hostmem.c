/* test-hostmem.c - large arrays for tables probed at random
 * (sim/core/hostmem.h): zeroed at every size, 2 MiB arrays aligned to
 * 2 MiB, a refused size is NULL (not an abort) from the try variant, and
 * an idmap grown past the threshold and shrunk back keeps its entries. */
#include "tests/testutil.h"
#include "sim/core/hostmem.h"
#include "sim/core/idmap.h"

static gboolean
all_zero (const guint8 *p, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (p[i] != 0)
      return FALSE;
  return TRUE;
}

static void
test_sizes (void **state)
{
  (void) state;
  const gsize sizes[] = { 0, 1, 4096, SIM_HOSTMEM_HUGE - 8, SIM_HOSTMEM_HUGE,
                          SIM_HOSTMEM_HUGE + 24, 3 * SIM_HOSTMEM_HUGE };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      guint8 *p = sim_hostmem_alloc0 (sizes[i]);
      assert_non_null (p);
      assert_true (all_zero (p, sizes[i]));
      if (sizes[i] >= SIM_HOSTMEM_HUGE)
        assert_true (((guintptr) p & (SIM_HOSTMEM_HUGE - 1)) == 0);
      if (sizes[i] > 0)
        p[sizes[i] - 1] = 1;    /* the whole size is writable */
      sim_hostmem_free (p);
    }
  sim_hostmem_free (NULL);
}

static void
test_refused (void **state)
{
  (void) state;
  /* rounding up to 2 MiB would wrap: refused before any allocation (a
   * size the host merely lacks is refused by posix_memalign, which ASan
   * turns into an abort, so it is not asked here) */
  assert_null (sim_hostmem_try_alloc0 (G_MAXSIZE - 4096));
}

static void
test_idmap_across_threshold (void **state)
{
  (void) state;
  /* 32-byte entries: 2^17 slots are 4 MiB, past the threshold */
  g_autoptr (SimIdMap) m = sim_idmap_new (32, 0);
  const guint64 N = 120000;
  for (guint64 i = 1; i <= N; i++)
    {
      guint64 *e = sim_idmap_insert (m, i << 6, NULL);
      e[1] = i;
      e[3] = ~i;
    }
  assert_true ((m->mask + 1) * 32 >= SIM_HOSTMEM_HUGE);
  assert_true (((guintptr) m->slots & (SIM_HOSTMEM_HUGE - 1)) == 0);
  for (guint64 i = 1; i <= N; i++)
    {
      const guint64 *e = sim_idmap_lookup (m, i << 6);
      assert_non_null (e);
      assert_true (e[1] == i && e[2] == 0 && e[3] == ~i);
    }
  for (guint64 i = 1; i <= N - 10; i++)
    assert_true (sim_idmap_remove (m, i << 6, NULL));
  assert_true ((m->mask + 1) * 32 < SIM_HOSTMEM_HUGE);
  for (guint64 i = N - 9; i <= N; i++)
    assert_true (((const guint64 *) sim_idmap_lookup (m, i << 6))[1] == i);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sizes),
    cmocka_unit_test (test_refused),
    cmocka_unit_test (test_idmap_across_threshold),
  };
  return cmocka_run_group_tests_name ("hostmem", tests, NULL, NULL);
}
