/* test-slub-rcu.c - kfree_rcu in SLUB 6.18 (models/alloc/slub-rcu.c,
 * docs/models/slub.md "kfree_rcu"): objects go into the CPU's rcu_free
 * sheaf, a full one is handed to call_rcu, and after the grace period it
 * goes to the barn as a full sheaf or, with MAX_FULL_SHEAVES there, back
 * to the slabs; what cannot use the sheaf is freed after a grace period
 * through kvfree_call_rcu's batching. */
#include "tests/alloc/world.h"
#include "models/alloc/slub.h"
#include "sim/core/rcu.h"

#include <string.h>

#define CAP 32
#define GP  1000000              /* ns: any grace period; the tests move the clock */

typedef struct {
  TuWorld w;
  SimSlub *slub;
  SimRcu *rcu;
  SimOp op;
} Fix;

static Fix *
fix_new_on (const char *const *overrides)
{
  Fix *f = g_new0 (Fix, 1);
  GError *error = NULL;
  tu_world_init (&f->w, "slub@6.18", overrides, 0, TRUE);
  f->rcu = sim_rcu_new (GP);
  f->w.env.rcu = f->rcu;
  f->slub = sim_slub_new (f->w.spec, &f->w.env, &error);
  tu_world_assert_model (f->slub, error);
  return f;
}

static Fix *
fix_new (void)
{
  return fix_new_on ((const char *[]) { "numa=false", NULL });
}

static void
fix_free (Fix *f)
{
  sim_slub_free_model (f->slub);
  sim_rcu_free (f->rcu);
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
cache (Fix *f, const char *name, guint32 capacity)
{
  SimCacheSpec spec = { .name = name, .object_size = 256, .sheaf_capacity = capacity };
  GError *error = NULL;
  SimCacheId id = sim_slub_cache_create (f->slub, on (f, 0), &spec, &error);
  assert_true (id != SIM_CACHE_NONE);
  return id;
}

static SimSlubCacheInfo
info (Fix *f, SimCacheId id)
{
  SimSlubCacheInfo in;
  sim_slub_cache_info (f->slub, id, &in);
  sim_slub_cache_info_clear (&in);
  return in;
}

static void
check (Fix *f)
{
  GError *error = NULL;
  if (!sim_slub_check (f->slub, &error))
    {
      print_error ("invariant: %s\n", error->message);
      fail ();
    }
}

static void
alloc_n (Fix *f, SimCacheId id, guint cpu, SimAddr *objs, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      objs[i] = sim_slub_cache_alloc (f->slub, on (f, cpu), id, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
      assert_true (objs[i] != 0);
    }
}

static void
kfree_rcu_n (Fix *f, guint cpu, const SimAddr *objs, guint n)
{
  for (guint i = 0; i < n; i++)
    assert_true (sim_slub_kfree_rcu (f->slub, on (f, cpu), objs[i]));
}

/* The grace period of everything queued so far ends. */
static void
grace_period (Fix *f)
{
  sim_rcu_set_now (f->rcu, sim_rcu_now (f->rcu) + GP);
  sim_rcu_run (f->rcu);
}

/* An object kfree_rcu'd is the cache's no longer (live drops at once) but
 * cannot be handed out again before its grace period: it sits in the
 * CPU's rcu_free sheaf.  The first kfree_rcu finds no rcu_free sheaf and
 * no empty spare: the barn's empty sheaf (the old main, parked there when
 * the first allocation refilled) becomes it. */
static void
test_into_rcu_free_sheaf (void **state)
{
  (void) state;
  Fix *f = fix_new ();
  SimCacheId id = cache (f, "rcu_256", CAP);
  SimAddr a[4];
  alloc_n (f, id, 0, a, 4);
  SimSlubCacheInfo in = info (f, id);
  guint64 sheaf_before = in.sheaf_objects, barn_empty = in.barn_empty;
  assert_int_equal (barn_empty, 1);
  kfree_rcu_n (f, 0, a, 1);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLUB_FREE_RCU_SHEAF], 1);
  assert_int_equal (in.stat[SIM_SLUB_FREE_PCS], 0);
  assert_int_equal (in.rcu_sheaf_objects, 1);
  assert_int_equal (in.sheaf_objects, sheaf_before);   /* main did not get it */
  assert_int_equal (in.barn_empty, barn_empty - 1);
  assert_int_equal (in.live_objects, 3);
  assert_int_equal (sim_rcu_pending (f->rcu), 0);       /* not full: nothing queued */
  /* The next allocation is not the object just freed (a plain kfree would
   * have made it LIFO's first choice). */
  SimAddr b = sim_slub_cache_alloc (f->slub, on (f, 0), id, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
  assert_true (b != 0 && b != a[0]);
  check (f);
  fix_free (f);
}

/* The 32nd kfree_rcu fills the sheaf: it leaves the CPU for call_rcu.
 * After the grace period rcu_free_sheaf puts it in the barn as a full
 * sheaf (barn_put), and once main runs dry it comes back through barn_get:
 * the last object kfree_rcu'd is the first handed out. */
static void
test_full_sheaf_to_barn_after_grace_period (void **state)
{
  (void) state;
  Fix *f = fix_new ();
  SimCacheId id = cache (f, "rcu_256", CAP);
  SimAddr a[CAP];
  alloc_n (f, id, 0, a, CAP);                 /* empties the first full sheaf */
  kfree_rcu_n (f, 0, a, CAP);
  SimSlubCacheInfo in = info (f, id);
  assert_int_equal (in.stat[SIM_SLUB_FREE_RCU_SHEAF], CAP);
  assert_int_equal (sim_rcu_pending (f->rcu), 1);
  assert_int_equal (in.rcu_sheaf_objects, CAP);       /* in flight */
  assert_int_equal (in.barn_full, 0);
  guint64 put = in.stat[SIM_SLUB_BARN_PUT];
  check (f);
  /* Half a grace period later nothing has happened. */
  sim_rcu_set_now (f->rcu, GP / 2);
  sim_rcu_run (f->rcu);
  assert_int_equal (sim_rcu_pending (f->rcu), 1);
  grace_period (f);
  assert_int_equal (sim_rcu_pending (f->rcu), 0);
  in = info (f, id);
  assert_int_equal (in.rcu_sheaf_objects, 0);
  assert_int_equal (in.barn_full, 1);
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT], put + 1);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_FLUSH], 0);
  check (f);
  /* main is empty: the barn's full sheaf is taken (barn_get) and its top,
   * the last kfree_rcu'd object, comes out first. */
  guint64 get = in.stat[SIM_SLUB_BARN_GET];
  SimAddr b = sim_slub_cache_alloc (f->slub, on (f, 0), id, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLUB_BARN_GET], get + 1);
  assert_true (b == a[CAP - 1]);
  check (f);
  fix_free (f);
}

/* With MAX_FULL_SHEAVES (10) full sheaves in the barn, an rcu_free sheaf
 * whose grace period ends is flushed to the slabs instead (barn_put_fail,
 * sheaf_flush += 32), and the empty sheaf goes to the barn. */
static void
test_barn_full_flushes (void **state)
{
  (void) state;
  Fix *f = fix_new ();
  SimCacheId id = cache (f, "rcu_256", CAP);
  enum { N = 12 * CAP };
  SimAddr *a = g_new (SimAddr, N);
  alloc_n (f, id, 0, a, N);
  for (guint k = 0; k < 10; k++)
    {
      kfree_rcu_n (f, 0, a + k * CAP, CAP);
      grace_period (f);
    }
  SimSlubCacheInfo in = info (f, id);
  assert_int_equal (in.barn_full, 10);
  guint64 empty = in.barn_empty, fail = in.stat[SIM_SLUB_BARN_PUT_FAIL];
  guint64 flushed = in.stat[SIM_SLUB_SHEAF_FLUSH];
  kfree_rcu_n (f, 0, a + 10 * CAP, CAP);
  grace_period (f);
  in = info (f, id);
  assert_int_equal (in.barn_full, 10);
  assert_int_equal (in.stat[SIM_SLUB_BARN_PUT_FAIL], fail + 1);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_FLUSH], flushed + CAP);
  assert_int_equal (in.barn_empty, empty + 1);
  check (f);
  g_free (a);
  fix_free (f);
}

/* kfree_rcu of an object of a cache without sheaves takes kvfree_call_rcu's
 * own batching: nothing in any sheaf, the object still counted in use
 * until the grace period ends, then a plain free. */
static void
test_no_sheaves_deferred_free (void **state)
{
  (void) state;
  Fix *f = fix_new ();
  SimCacheId id = cache (f, "plain_256", 0);
  SimAddr a[2];
  alloc_n (f, id, 0, a, 2);
  kfree_rcu_n (f, 0, a, 1);
  SimSlubCacheInfo in = info (f, id);
  assert_int_equal (in.live_objects, 2);
  assert_int_equal (in.stat[SIM_SLUB_FREE_RCU_SHEAF], 0);
  assert_int_equal (sim_rcu_pending (f->rcu), 1);
  guint64 frees = in.stat[SIM_SLUB_FREE_FASTPATH] + in.stat[SIM_SLUB_FREE_SLOWPATH];
  grace_period (f);
  in = info (f, id);
  assert_int_equal (in.live_objects, 1);
  assert_int_equal (in.stat[SIM_SLUB_FREE_FASTPATH] + in.stat[SIM_SLUB_FREE_SLOWPATH], frees + 1);
  check (f);
  fix_free (f);
}

/* An object of another node never enters this CPU's rcu_free sheaf
 * (kfree_rcu_sheaf checks slab_nid against numa_mem_id); it is freed after
 * the grace period by the batching path. */
static void
test_remote_node_bypasses_sheaf (void **state)
{
  (void) state;
  Fix *f = fix_new_on (NULL);              /* nehalem-ep-2s: two nodes */
  guint n_cpus = f->w.machine->n_cpus;
  guint remote_cpu = 0;
  for (guint c = 0; c < n_cpus; c++)
    if (sim_machine_socket_of (f->w.machine, c) != sim_machine_socket_of (f->w.machine, 0))
      {
        remote_cpu = c;
        break;
      }
  assert_true (remote_cpu != 0);
  SimCacheId id = cache (f, "rcu_256", CAP);
  SimAddr a[1];
  alloc_n (f, id, 0, a, 1);
  kfree_rcu_n (f, remote_cpu, a, 1);
  SimSlubCacheInfo in = info (f, id);
  assert_int_equal (in.stat[SIM_SLUB_FREE_RCU_SHEAF], 0);
  assert_int_equal (in.rcu_sheaf_objects, 0);
  assert_int_equal (sim_rcu_pending (f->rcu), 1);
  grace_period (f);
  in = info (f, id);
  assert_int_equal (in.live_objects, 0);
  check (f);
  fix_free (f);
}

/* flush_all hands a partly filled rcu_free sheaf to call_rcu with the
 * no-barn callback: after the grace period its objects are back in the
 * slabs and the sheaf is freed (sheaf_free), not parked in the barn. */
static void
test_flush_all_rcu_free (void **state)
{
  (void) state;
  Fix *f = fix_new ();
  SimCacheId id = cache (f, "rcu_256", CAP);
  SimAddr a[5];
  alloc_n (f, id, 0, a, 5);
  kfree_rcu_n (f, 0, a, 5);
  sim_slub_flush_all (f->slub, on (f, 0));
  SimSlubCacheInfo in = info (f, id);
  assert_int_equal (in.rcu_sheaf_objects, 5);
  assert_int_equal (sim_rcu_pending (f->rcu), 1);
  guint64 sheaf_free = in.stat[SIM_SLUB_SHEAF_FREE], barn_empty = in.barn_empty;
  guint64 flushed = in.stat[SIM_SLUB_SHEAF_FLUSH];
  check (f);
  grace_period (f);
  in = info (f, id);
  assert_int_equal (in.rcu_sheaf_objects, 0);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_FLUSH], flushed + 5);
  assert_int_equal (in.stat[SIM_SLUB_SHEAF_FREE], sheaf_free + 1);
  assert_int_equal (in.barn_empty, barn_empty);
  check (f);
  fix_free (f);
}

/* Without a workload clock (no SimRcu) the callback runs at once: the
 * full sheaf is in the barn right after the 32nd kfree_rcu. */
static void
test_without_rcu_clock (void **state)
{
  (void) state;
  Fix *f = g_new0 (Fix, 1);
  GError *error = NULL;
  tu_world_init (&f->w, "slub@6.18", (const char *[]) { "numa=false", NULL }, 0, TRUE);
  f->slub = sim_slub_new (f->w.spec, &f->w.env, &error);
  tu_world_assert_model (f->slub, error);
  SimCacheId id = cache (f, "rcu_256", CAP);
  SimAddr a[CAP];
  alloc_n (f, id, 0, a, CAP);
  kfree_rcu_n (f, 0, a, CAP);
  SimSlubCacheInfo in = info (f, id);
  assert_int_equal (in.barn_full, 1);
  assert_int_equal (in.rcu_sheaf_objects, 0);
  check (f);
  fix_free (f);
}

/* The grace-period clock: callbacks run oldest first once their period
 * has passed, one queued by a callback waits for its own, rcu_barrier
 * runs everything, and the clock never goes back. */
static int order_seen[4], n_seen;

static void
note_cb (gpointer data, guint cpu, guint64 arg)
{
  (void) data;
  order_seen[n_seen++] = (int) (arg * 10 + cpu);
  if (arg == 1)
    sim_rcu_call (data, cpu, note_cb, data, 3, NULL);
}

static void
test_rcu_clock (void **state)
{
  (void) state;
  g_autoptr (SimRcu) rcu = sim_rcu_new (100);
  n_seen = 0;
  sim_rcu_set_now (rcu, 1000);
  sim_rcu_call (rcu, 1, note_cb, rcu, 1, NULL);
  sim_rcu_set_now (rcu, 1050);
  sim_rcu_call (rcu, 0, note_cb, rcu, 2, NULL);
  sim_rcu_set_now (rcu, 1099);
  assert_int_equal (sim_rcu_run (rcu), 0);
  sim_rcu_set_now (rcu, 500);                       /* ignored */
  assert_int_equal (sim_rcu_now (rcu), 1099);
  sim_rcu_set_now (rcu, 1100);
  assert_int_equal (sim_rcu_run (rcu), 1);          /* the first only */
  assert_int_equal (order_seen[0], 11);
  assert_int_equal (sim_rcu_pending (rcu), 2);      /* the second, and the one it queued */
  sim_rcu_set_now (rcu, 1150);
  assert_int_equal (sim_rcu_run (rcu), 1);
  assert_int_equal (order_seen[1], 20);
  assert_int_equal (sim_rcu_barrier (rcu), 1);      /* queued at 1100, ready at 1200 */
  assert_int_equal (order_seen[2], 31);
  assert_int_equal (sim_rcu_invoked (rcu), 3);
  /* Dropped callbacks have their data freed. */
  sim_rcu_call (rcu, 0, note_cb, g_malloc (8), 9, g_free);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_into_rcu_free_sheaf),
    cmocka_unit_test (test_full_sheaf_to_barn_after_grace_period),
    cmocka_unit_test (test_barn_full_flushes),
    cmocka_unit_test (test_no_sheaves_deferred_free),
    cmocka_unit_test (test_remote_node_bypasses_sheaf),
    cmocka_unit_test (test_flush_all_rcu_free),
    cmocka_unit_test (test_without_rcu_clock),
    cmocka_unit_test (test_rcu_clock),
  };
  return cmocka_run_group_tests_name ("slub-rcu", tests, NULL, NULL);
}
