/* test-cpu-map.c - trace CPU -> machine CPU (--cpu-map, sim/run/cpu-map.h).
 *
 *  - compact order: socket 0 first, one thread per core first, whatever the
 *    machine's numbering (nehalem-ep-2s is socket-interleaved: CPU 1 is on
 *    socket 1);
 *  - a LIST maps trace CPU i to its i-th entry and is completed to a
 *    permutation; bad entries, CPUs the machine lacks and duplicates are
 *    usage errors naming the entry;
 *  - the replay runs each trace CPU on its machine CPU, reports the map and
 *    the notes (fewer CPUs than the machine, several sockets), and a trace
 *    CPU past the LIST is a usage error (exit 2). */
#include "tests/testutil.h"
#include "sim/run/cpu-map.h"
#include "sim/run/replay.h"
#include "sim/core/errors.h"

#include <string.h>

static void
test_compact (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = sim_machine_load ("nehalem-ep-2s", NULL, NULL);
  assert_non_null (m);
  assert_int_equal (m->n_cpus, 16);
  SimCpuMap map;
  assert_true (sim_cpu_map_init (&map, m, NULL, NULL));
  assert_true (map.compact);
  assert_int_equal (map.given, 16);
  /* socket-interleaved: cpu = thread * 8 + core * 2 + socket */
  const guint want[16] = { 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15 };
  for (guint t = 0; t < 16; t++)
    {
      assert_int_equal (map.to_machine[t], want[t]);
      assert_int_equal (map.to_trace[want[t]], t);
    }
  /* The first cores' first threads: all on socket 0, one thread per core. */
  for (guint t = 0; t < 4; t++)
    {
      assert_int_equal (m->cpus[map.to_machine[t]].socket, 0);
      assert_int_equal (m->cpus[map.to_machine[t]].thread, 0);
      assert_int_equal (m->cpus[map.to_machine[t]].core, t);
    }
  sim_cpu_map_clear (&map);

  /* A socket-major machine with SMT: the siblings come after every core. */
  g_autoptr (SimMachine) h = sim_machine_load ("haswell", NULL, NULL);
  assert_non_null (h);
  assert_true (sim_cpu_map_init (&map, h, "compact", NULL));
  for (guint t = 0; t < h->n_cpus; t++)
    assert_int_equal (map.to_machine[t], t);
  sim_cpu_map_clear (&map);
}

static void
test_list (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = sim_machine_load ("nehalem-ep-2s", NULL, NULL);
  SimCpuMap map;
  assert_true (sim_cpu_map_init (&map, m, " 5 ,1-3", NULL));
  assert_false (map.compact);
  assert_int_equal (map.given, 4);
  const guint head[4] = { 5, 1, 2, 3 };
  for (guint t = 0; t < 4; t++)
    assert_int_equal (map.to_machine[t], head[t]);
  /* Completed with the others in compact order: 0, 4, 6, ... */
  assert_int_equal (map.to_machine[4], 0);
  assert_int_equal (map.to_machine[5], 4);
  gboolean seen[16] = { FALSE };
  for (guint t = 0; t < 16; t++)
    {
      assert_false (seen[map.to_machine[t]]);
      seen[map.to_machine[t]] = TRUE;
      assert_int_equal (map.to_trace[map.to_machine[t]], t);
    }
  sim_cpu_map_clear (&map);

  static const struct { const char *list, *msg; } bad[] = {
    { "", "empty list" },
    { "0,x", "\"x\" is not a CPU number or range" },
    { "0,,1", "\"\" is not a CPU number or range" },
    { "-1", "\"-1\" is not a CPU number or range" },
    { "3-1", "range \"3-1\" runs backwards" },
    { "0,16", "machine nehalem-ep-2s has no CPU 16 (it has CPUs 0-15)" },
    { "99999999999", "\"99999999999\" is not a CPU number" },
    { "0,2,0", "machine CPU 0 is given twice (for trace CPUs 0 and 2)" },
    { "0-3,2", "machine CPU 2 is given twice (for trace CPUs 2 and 4)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *e = NULL;
      assert_false (sim_cpu_map_init (&map, m, bad[i].list, &e));
      assert_non_null (e);
      assert_true (e->domain == SIM_USAGE_ERROR);
      tu_assert_contains (e->message, bad[i].msg);
      assert_null (map.to_machine);
      g_error_free (e);
    }
}

/* A 2-CPU trace of the shared kind on a 16-CPU two-socket machine. */
static void
test_replay (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autoptr (SimMachine) m = sim_machine_load ("nehalem-ep-2s", NULL, NULL);
  SimReplayOptions opt = { .machine = m, .mode = SIM_REPLAY_ORDERED, .touch = SIM_TOUCH_LINE };
  SimReplayResult r;
  assert_true (sim_replay_run (trace, "slub@6.18", &opt, &r, NULL));
  assert_int_equal (sim_replay_trace_cpus (&r), 2);
  assert_int_equal (r.cpu_map[0], 0);
  assert_int_equal (r.cpu_map[1], 2);
  assert_int_equal (sim_replay_sockets_used (&r, m), 1);
  g_autoptr (GPtrArray) notes = sim_replay_cpu_notes (&r, m);
  assert_int_equal (notes->len, 1);
  tu_assert_contains (g_ptr_array_index (notes, 0), "the trace used 2 CPUs, machine "
                      "nehalem-ep-2s has 16");
  /* Both CPUs of one socket: nothing crosses it. */
  assert_int_equal (r.mem.cross_socket, 0);
  guint64 compact_free_cycles = r.free_cycles.total;
  sim_replay_result_clear (&r);

  /* The machine's own numbering puts trace CPU 1 on the other socket. */
  opt.cpu_map = "0,1";
  assert_true (sim_replay_run (trace, "slub@6.18", &opt, &r, NULL));
  assert_int_equal (sim_replay_sockets_used (&r, m), 2);
  g_autoptr (GPtrArray) notes2 = sim_replay_cpu_notes (&r, m);
  assert_int_equal (notes2->len, 2);
  tu_assert_contains (g_ptr_array_index (notes2, 1), "the trace's CPUs land on 2 sockets");
  assert_true (r.mem.cross_socket > 0);
  assert_true (r.free_cycles.total > compact_free_cycles);
  sim_replay_result_clear (&r);

  /* A LIST too short for the trace. */
  opt.cpu_map = "3";
  GError *e = NULL;
  assert_false (sim_replay_run (trace, "slub@6.18", &opt, &r, &e));
  assert_true (e->domain == SIM_USAGE_ERROR);
  tu_assert_contains (e->message, "event on CPU 1, but --cpu-map gives a machine CPU for 1 "
                      "trace CPU only");
  g_error_free (e);
  sim_replay_result_clear (&r);

  /* On a machine of the trace's size the compact map is the identity and
   * there is nothing to note. */
  g_autoptr (SimMachine) vm = sim_machine_load ("recording-vm", NULL, NULL);
  opt.machine = vm;
  opt.cpu_map = NULL;
  assert_true (sim_replay_run (trace, "slub@6.18", &opt, &r, NULL));
  g_autoptr (GPtrArray) notes3 = sim_replay_cpu_notes (&r, vm);
  assert_int_equal (notes3->len, 0);
  sim_replay_result_clear (&r);
}

/* The command line: usage errors exit 2 before any replay; the reports
 * carry the map and the notes. */
static void
test_cli (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *err = NULL, *err2 = NULL, *out = NULL, *vout = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "--cpu-map", "0,0", trace,
                                                           NULL }), 2);
  tu_assert_contains (err, "run: --cpu-map: machine CPU 0 is given twice");
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "validate", "--cpu-map", "2",
                                                            trace, NULL }), 2);
  tu_assert_contains (err2, "validate: --cpu-map: machine recording-vm has no CPU 2");
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "run", "--format", "json",
                                                           "--cpu-map", "0,1", trace, NULL }), 0);
  tu_assert_contains (out, "\"cpu_map\": {");
  tu_assert_contains (out, "\"compact\": false");
  tu_assert_contains (out, "\"1\": 1");
  assert_int_equal (tu_json_uint (out, "\"cpu_map\": {", "sockets_used"), 2);
  tu_assert_contains (out, "the trace's CPUs land on 2 sockets");
  assert_int_equal (tu_run (&vout, NULL, (const char *[]) { "validate", "-m", "nehalem-ep-2s",
                                                            trace, NULL }), 0);
  tu_assert_contains (vout, "the trace used 2 CPUs, machine nehalem-ep-2s has 16");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_compact),
    cmocka_unit_test (test_list),
    cmocka_unit_test (test_replay),
    cmocka_unit_test (test_cli),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
