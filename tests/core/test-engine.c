/* test-engine.c - event ordering, cancellation, clocks and locks. */
#include "tests/testutil.h"
#include "sim/core/engine.h"

typedef struct {
  GString *log;
} Ctx;

static void
record (SimEngine *eng, gpointer data, guint64 arg)
{
  Ctx *c = data;
  g_string_append_printf (c->log, "%" G_GUINT64_FORMAT "@%" G_GUINT64_FORMAT " ",
                          arg, sim_engine_now (eng));
}

static void
test_order_by_time_cpu_seq (void **state)
{
  (void) state;
  SimEngine *eng = sim_engine_new (4);
  Ctx c = { g_string_new (NULL) };
  /* Same time on CPUs 2 and 1: CPU 1 first; same time and CPU: the order
   * of scheduling. */
  sim_engine_schedule (eng, 10, 2, record, &c, 1);
  sim_engine_schedule (eng, 10, 1, record, &c, 2);
  sim_engine_schedule (eng, 5, 3, record, &c, 3);
  sim_engine_schedule (eng, 10, 1, record, &c, 4);
  sim_engine_schedule (eng, 20, 0, record, &c, 5);
  assert_int_equal (sim_engine_run (eng, 10), 4);
  assert_string_equal (c.log->str, "3@5 2@10 4@10 1@10 ");
  assert_int_equal (sim_engine_pending (eng), 1);
  assert_int_equal (sim_engine_run (eng, SIM_TIME_NEVER), 1);
  assert_int_equal (sim_engine_now (eng), 20);
  g_string_free (c.log, TRUE);
  sim_engine_free (eng);
}

static void
test_cancel (void **state)
{
  (void) state;
  SimEngine *eng = sim_engine_new (1);
  Ctx c = { g_string_new (NULL) };
  sim_engine_schedule (eng, 1, 0, record, &c, 1);
  guint64 id = sim_engine_schedule (eng, 2, 0, record, &c, 2);
  sim_engine_schedule (eng, 3, 0, record, &c, 3);
  assert_true (sim_engine_cancel (eng, id));
  assert_false (sim_engine_cancel (eng, id));
  assert_false (sim_engine_cancel (eng, 999));
  assert_int_equal (sim_engine_pending (eng), 2);
  assert_int_equal (sim_engine_run (eng, SIM_TIME_NEVER), 2);
  assert_string_equal (c.log->str, "1@1 3@3 ");
  g_string_free (c.log, TRUE);
  sim_engine_free (eng);
}

/* Events scheduled from inside an event run in the same deterministic
 * order, however many there are. */
static void
chain (SimEngine *eng, gpointer data, guint64 arg)
{
  Ctx *c = data;
  g_string_append_printf (c->log, "%" G_GUINT64_FORMAT " ", arg);
  if (arg < 5)
    sim_engine_schedule (eng, sim_engine_now (eng) + 1, (guint) (arg % 2), chain, c, arg + 1);
}

static void
test_self_scheduling (void **state)
{
  (void) state;
  SimEngine *eng = sim_engine_new (2);
  Ctx c = { g_string_new (NULL) };
  sim_engine_schedule (eng, 0, 0, chain, &c, 0);
  sim_engine_run (eng, SIM_TIME_NEVER);
  assert_string_equal (c.log->str, "0 1 2 3 4 5 ");
  assert_int_equal (sim_engine_now (eng), 5);
  g_string_free (c.log, TRUE);
  sim_engine_free (eng);
}

static void
test_clocks (void **state)
{
  (void) state;
  SimEngine *eng = sim_engine_new (2);
  assert_int_equal (sim_engine_cpu_advance (eng, 0, 100), 100);
  sim_engine_cpu_sync (eng, 0, 50);          /* never backwards */
  assert_int_equal (sim_engine_cpu_clock (eng, 0), 100);
  sim_engine_cpu_sync (eng, 1, 70);
  assert_int_equal (sim_engine_cpu_clock (eng, 1), 70);
  assert_int_equal (sim_engine_max_clock (eng), 100);
  sim_engine_free (eng);
}

static void
test_lock_contention (void **state)
{
  (void) state;
  SimLock l;
  sim_lock_init (&l, "list_lock");
  /* CPU 0 holds it from 100 to 150. */
  assert_int_equal (sim_lock_acquire (&l, 0, 100), 100);
  sim_lock_release (&l, 0, 150);
  /* CPU 1 asks at 120: waits 30 cycles. */
  assert_int_equal (sim_lock_acquire (&l, 1, 120), 150);
  sim_lock_release (&l, 1, 160);
  /* CPU 0 asks at 200: free, no wait. */
  assert_int_equal (sim_lock_acquire (&l, 0, 200), 200);
  sim_lock_release (&l, 0, 210);
  assert_int_equal (l.acquisitions, 3);
  assert_int_equal (l.contended, 1);
  assert_int_equal (l.wait_cycles, 30);
  assert_int_equal (l.hold_cycles, 50 + 10 + 10);
}

/* A CPU never waits for its own release: CPU 0's clock can be behind a
 * release it made (work outside the measured run); another CPU's release
 * in between still makes it wait. */
static void
test_lock_own_release (void **state)
{
  (void) state;
  SimLock l;
  sim_lock_init (&l, "zone->lock");
  assert_int_equal (sim_lock_acquire (&l, 0, 100), 100);
  sim_lock_release (&l, 0, 500);
  assert_true (sim_lock_busy (&l, 1, 200));
  assert_false (sim_lock_busy (&l, 0, 200));
  /* CPU 0 asks at 200, before its own release at 500: no wait. */
  assert_int_equal (sim_lock_acquire (&l, 0, 200), 200);
  sim_lock_release (&l, 0, 300);
  assert_int_equal (l.contended, 0);
  assert_int_equal (l.wait_cycles, 0);
  /* CPU 1 takes it at 250 (waits until 300) and releases at 400: now
   * CPU 0 asking at 350 waits for CPU 1. */
  assert_int_equal (sim_lock_acquire (&l, 1, 250), 300);
  sim_lock_release (&l, 1, 400);
  assert_int_equal (sim_lock_acquire (&l, 0, 350), 400);
  sim_lock_release (&l, 0, 410);
  assert_int_equal (l.contended, 2);
  assert_int_equal (l.wait_cycles, 50 + 50);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_order_by_time_cpu_seq),
    cmocka_unit_test (test_cancel),
    cmocka_unit_test (test_self_scheduling),
    cmocka_unit_test (test_clocks),
    cmocka_unit_test (test_lock_contention),
    cmocka_unit_test (test_lock_own_release),
  };
  return cmocka_run_group_tests_name ("engine", tests, NULL, NULL);
}
