/* test-idmap.c - the 64-bit-id map (sim/core/idmap.h): insert, lookup,
 * remove with backward shift, growth and shrinking, colliding keys, key 0,
 * whole-struct entries, and long random runs against a reference map. */
#include "tests/testutil.h"
#include "sim/core/idmap.h"
#include "sim/core/rng.h"

/* No empty slot may sit between a key's home and its slot, and every
 * entry must be found where lookup looks (the backward-shift invariant). */
static void
assert_consistent (const SimIdMap *m)
{
  guint64 n = 0;
  for (guint64 i = 0; i <= m->mask; i++)
    {
      guint64 k = *sim_idmap_slot_ (m, i);
      if (k == 0)
        continue;
      n++;
      for (guint64 j = sim_idmap_home_ (m, k); j != i; j = (j + 1) & m->mask)
        assert_true (*sim_idmap_slot_ (m, j) != 0);
      assert_ptr_equal (sim_idmap_lookup (m, k), sim_idmap_slot_ (m, i));
    }
  assert_true (n == m->count);
  assert_true (m->count * 4 <= (m->mask + 1) * 3);
}

static void
test_basic (void **state)
{
  (void) state;
  g_autoptr (SimIdMap) m = sim_idmap_new (sizeof (SimIdPair), 0);
  assert_true (sim_idmap_size (m) == 0);
  assert_null (sim_idmap_lookup (m, 42));
  assert_true (sim_idmap_get (m, 42, 7) == 7);
  sim_idmap_set (m, 42, 1000);
  sim_idmap_set (m, 0xffff888000001000ull, 2000);
  assert_true (sim_idmap_size (m) == 2);
  assert_true (sim_idmap_get (m, 42, 0) == 1000);
  assert_true (sim_idmap_get (m, 0xffff888000001000ull, 0) == 2000);
  /* set replaces */
  sim_idmap_set (m, 42, 1001);
  assert_true (sim_idmap_size (m) == 2);
  assert_true (sim_idmap_get (m, 42, 0) == 1001);
  /* insert reports whether the key was there, and zero-fills a new entry */
  gboolean existed = TRUE;
  SimIdPair *p = sim_idmap_insert (m, 43, &existed);
  assert_false (existed);
  assert_true (p->key == 43 && p->value == 0);
  p = sim_idmap_insert (m, 43, &existed);
  assert_true (existed);
  guint64 v = 0;
  assert_true (sim_idmap_take (m, 42, &v));
  assert_true (v == 1001);
  assert_false (sim_idmap_take (m, 42, &v));
  assert_false (sim_idmap_remove (m, 12345, NULL));
  SimIdPair out;
  assert_true (sim_idmap_remove (m, 43, &out));
  assert_true (out.key == 43);
  assert_true (sim_idmap_size (m) == 1);
  assert_consistent (m);
  sim_idmap_clear (m);
  assert_true (sim_idmap_size (m) == 0);
  assert_null (sim_idmap_lookup (m, 0xffff888000001000ull));
}

static void
test_key_zero (void **state)
{
  (void) state;
  g_autoptr (SimIdMap) m = sim_idmap_new (sizeof (SimIdPair), 0);
  assert_false (sim_idmap_contains (m, 0));
  sim_idmap_set (m, 0, 5);
  sim_idmap_set (m, 1, 6);
  assert_true (sim_idmap_contains (m, 0));
  assert_true (sim_idmap_get (m, 0, 99) == 5);
  assert_true (sim_idmap_size (m) == 2);
  /* iteration sees it once */
  guint64 cur = 0, seen = 0, sum = 0;
  for (SimIdPair *e; (e = sim_idmap_next (m, &cur)) != NULL; seen++)
    sum += e->value;
  assert_true (seen == 2 && sum == 11);
  guint64 v;
  assert_true (sim_idmap_take (m, 0, &v));
  assert_true (v == 5);
  assert_false (sim_idmap_contains (m, 0));
  assert_true (sim_idmap_size (m) == 1);
  /* made again, it starts zero-filled */
  gboolean existed = TRUE;
  SimIdPair *p = sim_idmap_insert (m, 0, &existed);
  assert_false (existed);
  assert_true (p->value == 0);
  sim_idmap_clear (m);
  assert_false (sim_idmap_contains (m, 0));
}

/* Keys whose home slots are the same: found in the run, and removing one
 * from the middle of a run keeps the others reachable (backward shift),
 * including runs that wrap past the array's end. */
static void
test_collisions (void **state)
{
  (void) state;
  g_autoptr (SimIdMap) m = sim_idmap_new (sizeof (SimIdPair), 0);
  guint64 want_home = m->mask;          /* the last slot: runs wrap to 0 */
  guint64 keys[10];
  guint n = 0;
  for (guint64 k = 1; n < G_N_ELEMENTS (keys); k++)
    if (sim_idmap_home_ (m, k) == want_home)
      keys[n++] = k;
  /* 10 of 16 slots: still below 3/4 load, so no growth changes the homes */
  for (guint i = 0; i < n; i++)
    sim_idmap_set (m, keys[i], i + 100);
  assert_true (m->mask == 15);
  assert_consistent (m);
  for (guint i = 0; i < n; i++)
    assert_true (sim_idmap_get (m, keys[i], 0) == i + 100);
  /* a key of another home landed behind the run must still be found after
   * removals in front of it */
  guint64 other = 0;
  for (guint64 k = keys[n - 1] + 1;; k++)
    if (sim_idmap_home_ (m, k) == 0)
      {
        other = k;
        break;
      }
  sim_idmap_set (m, other, 7);
  assert_consistent (m);
  assert_true (sim_idmap_take (m, keys[4], NULL));
  assert_true (sim_idmap_take (m, keys[0], NULL));
  assert_consistent (m);
  assert_true (sim_idmap_get (m, other, 0) == 7);
  for (guint i = 0; i < n; i++)
    if (i != 0 && i != 4)
      assert_true (sim_idmap_get (m, keys[i], 0) == i + 100);
  assert_false (sim_idmap_contains (m, keys[0]));
  assert_false (sim_idmap_contains (m, keys[4]));
  /* removing the rest leaves only the other key, in its home slot */
  for (guint i = 1; i < n; i++)
    if (i != 4)
      assert_true (sim_idmap_take (m, keys[i], NULL));
  assert_true (sim_idmap_size (m) == 1);
  assert_consistent (m);
  assert_ptr_equal (sim_idmap_lookup (m, other), sim_idmap_slot_ (m, 0));
}

/* Growth keeps every entry; emptying the map shrinks it back to its
 * first size, so memory follows the live entries. */
static void
test_grow_and_shrink (void **state)
{
  (void) state;
  g_autoptr (SimIdMap) m = sim_idmap_new (sizeof (SimIdPair), 0);
  guint64 first = m->mask + 1;
  const guint64 N = 100000;
  for (guint64 i = 1; i <= N; i++)
    sim_idmap_set (m, i << 6, i);      /* 64-byte-aligned "pointers" */
  assert_true (sim_idmap_size (m) == N);
  assert_true ((m->mask + 1) >= N * 4 / 3);
  assert_true ((m->mask + 1) <= N * 4);
  assert_consistent (m);
  for (guint64 i = 1; i <= N; i++)
    assert_true (sim_idmap_get (m, i << 6, 0) == i);
  for (guint64 i = 1; i <= N; i++)
    assert_true (sim_idmap_take (m, i << 6, NULL));
  assert_true (sim_idmap_size (m) == 0);
  assert_true (m->mask + 1 == first);
  /* a size hint sets the floor */
  g_autoptr (SimIdMap) h = sim_idmap_new (sizeof (SimIdPair), 1000);
  assert_true (h->mask + 1 >= 1000 * 4 / 3);
  guint64 floor = h->mask + 1;
  sim_idmap_set (h, 9, 9);
  sim_idmap_take (h, 9, NULL);
  assert_true (h->mask + 1 == floor);
}

/* An entry may be a whole struct after the key. */
typedef struct {
  guint64 ptr;
  guint64 a, b;
  gint32 cpu;
  guint32 pad;
} Big;

static void
test_struct_entries (void **state)
{
  (void) state;
  g_autoptr (SimIdMap) m = sim_idmap_new (sizeof (Big), 0);
  for (guint64 i = 1; i <= 5000; i++)
    {
      Big *b = sim_idmap_insert (m, i * 4096, NULL);
      assert_true (b->a == 0 && b->b == 0 && b->cpu == 0);
      b->a = i;
      b->b = ~i;
      b->cpu = (gint32) (i % 7);
    }
  for (guint64 i = 1; i <= 5000; i += 2)
    {
      Big out;
      assert_true (sim_idmap_remove (m, i * 4096, &out));
      assert_true (out.a == i && out.b == ~i && out.cpu == (gint32) (i % 7));
    }
  assert_consistent (m);
  for (guint64 i = 2; i <= 5000; i += 2)
    {
      Big *b = sim_idmap_lookup (m, i * 4096);
      assert_non_null (b);
      assert_true (b->a == i && b->b == ~i && b->cpu == (gint32) (i % 7));
      sim_idmap_remove_entry (m, b);
    }
  assert_true (sim_idmap_size (m) == 0);
}

static void
test_sorted (void **state)
{
  (void) state;
  g_autoptr (SimIdMap) m = sim_idmap_new (sizeof (SimIdPair), 0);
  SimRng r;
  sim_rng_init (&r, 3, 0);
  for (int i = 0; i < 2000; i++)
    sim_idmap_set (m, sim_rng_next (&r) >> 1, 1);
  sim_idmap_set (m, 0, 1);
  GPtrArray *a = sim_idmap_sorted (m);
  assert_true (a->len == sim_idmap_size (m));
  assert_true (((SimIdPair *) a->pdata[0])->key == 0);
  for (guint i = 1; i < a->len; i++)
    assert_true (((SimIdPair *) a->pdata[i - 1])->key < ((SimIdPair *) a->pdata[i])->key);
  g_ptr_array_unref (a);
}

/* Many random operations against GHashTable as the reference, on a small
 * key space (so keys collide, come back and are removed often) and with
 * keys that are pfns, pointers and 0. */
static void
random_run (guint64 seed, guint64 key_space, guint64 scale, int ops)
{
  g_autoptr (SimIdMap) m = sim_idmap_new (sizeof (SimIdPair), 0);
  GHashTable *ref = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  SimRng r;
  sim_rng_init (&r, seed, 1);
  for (int i = 0; i < ops; i++)
    {
      guint64 k = sim_rng_below (&r, key_space) * scale;
      guint64 op = sim_rng_below (&r, 10);
      guint64 *rv = g_hash_table_lookup (ref, &k);
      if (op < 5)
        {
          guint64 v = sim_rng_next (&r);
          sim_idmap_set (m, k, v);
          guint64 *kk = g_new (guint64, 1), *vv = g_new (guint64, 1);
          *kk = k;
          *vv = v;
          g_hash_table_replace (ref, kk, vv);
        }
      else if (op < 8)
        {
          guint64 v = 0;
          gboolean had = sim_idmap_take (m, k, &v);
          assert_int_equal (had, rv != NULL);
          if (rv)
            {
              assert_true (v == *rv);
              g_hash_table_remove (ref, &k);
            }
        }
      else
        {
          SimIdPair *p = sim_idmap_lookup (m, k);
          assert_int_equal (p != NULL, rv != NULL);
          if (p)
            assert_true (p->value == *rv);
        }
      assert_true (sim_idmap_size (m) == g_hash_table_size (ref));
      if (i % 4096 == 0)
        assert_consistent (m);
    }
  assert_consistent (m);
  GHashTableIter it;
  gpointer kp, vp;
  g_hash_table_iter_init (&it, ref);
  while (g_hash_table_iter_next (&it, &kp, &vp))
    assert_true (sim_idmap_get (m, *(guint64 *) kp, ~0ull) == *(guint64 *) vp);
  guint64 cur = 0, n = 0;
  for (SimIdPair *e; (e = sim_idmap_next (m, &cur)) != NULL; n++)
    {
      guint64 *rv = g_hash_table_lookup (ref, &e->key);
      assert_non_null (rv);
      assert_true (*rv == e->value);
    }
  assert_true (n == g_hash_table_size (ref));
  g_hash_table_destroy (ref);
}

static void
test_random_against_reference (void **state)
{
  (void) state;
  random_run (1, 64, 1, 200000);              /* tiny key space, key 0 included */
  random_run (2, 5000, 1, 200000);            /* consecutive pfns */
  random_run (3, 20000, 64, 200000);          /* 64-byte-aligned pointers */
  random_run (4, 1u << 20, 4096, 100000);     /* sparse pages: growth */
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_basic),
    cmocka_unit_test (test_key_zero),
    cmocka_unit_test (test_collisions),
    cmocka_unit_test (test_grow_and_shrink),
    cmocka_unit_test (test_struct_entries),
    cmocka_unit_test (test_sorted),
    cmocka_unit_test (test_random_against_reference),
  };
  return cmocka_run_group_tests_name ("idmap", tests, NULL, NULL);
}
