/* test-case-004.c - docs/case-studies/004-sheaves-7x-vs-618.md: SLUB 7.x
 * (sheaves for every cache) against 6.18.  Each test checks one of the
 * page's claims as the page states it: a direction, or the threshold the
 * page quotes (7.x's fast-path share >= 99 %, about half the frees off
 * the sheaves when a 2-CPU recording's CPUs sit on two sockets), on the
 * recorded hackbench-T-g1 trace and on generated hackbench. */
#include "tests/cases/case-util.h"

typedef struct {
  double allocs, frees, alloc_slow, free_slow;
  double l1_percpu, l1_freeptr;
  double alloc_p50, free_p99, lock_wait, footprint;
} Side;

static double
sum_stat (const char *from, const char *to, const char *key)
{
  g_autofree char *anchor = g_strdup_printf ("\"%s\": ", key);
  double s = 0;
  for (const char *p = from; (p = strstr (p, anchor)) && (to == NULL || p < to); p++)
    s += g_ascii_strtod (p + strlen (anchor), NULL);
  return s;
}

/* The two results of one `run -a slub@6.18 -a slub@7.x`. */
static void
sides (const char *js, Side *s618, Side *s7)
{
  const char *a = strstr (js, "\"kernel\": \"6.18\"");
  const char *b = strstr (js, "\"kernel\": \"7.0\"");
  assert_non_null (a);
  assert_non_null (b);
  assert_true (a < b);
  Side *out[] = { s618, s7 };
  const char *from[] = { a, b }, *to[] = { b, NULL };
  for (int i = 0; i < 2; i++)
    {
      g_autofree char *part = to[i] ? g_strndup (from[i], (gsize) (to[i] - from[i]))
                                    : g_strdup (from[i]);
      Side *s = out[i];
      s->allocs = (double) tu_json_uint (part, "\"replay\": {", "allocs");
      s->frees = (double) (tu_json_uint (part, "\"replay\": {", "frees")
                           + tu_json_uint (part, "\"replay\": {", "implicit_frees"));
      s->alloc_slow = sum_stat (part, NULL, "alloc_slowpath");
      s->free_slow = sum_stat (part, NULL, "free_slowpath");
      s->l1_percpu = cu_l1_of (part, "cpu_slab");
      s->l1_freeptr = cu_l1_of (part, "freeptr");
      s->alloc_p50 = (double) tu_json_uint (part, "\"timing\": {", "alloc_cycles_p50");
      s->free_p99 = (double) tu_json_uint (part, "\"timing\": {", "free_cycles_p99");
      s->lock_wait = (double) tu_json_uint (part, "\"timing\": {", "lock_wait_cycles");
      s->footprint = (double) tu_json_uint (part, NULL, "footprint_bytes");
    }
}

static char *
run_both (const char *trace, const char *machine, const char *cpu_map)
{
  char *out = NULL;
  g_autofree char *err = NULL;
  int rc = cpu_map
    ? tu_run (&out, &err, (const char *[]) { "run", "--format", "json", "-m", machine,
                                             "--cpu-map", cpu_map, "-a", "slub@6.18", "-a",
                                             "slub@7.x", trace, NULL })
    : tu_run (&out, &err, (const char *[]) { "run", "--format", "json", "-m", machine, "-a",
                                             "slub@6.18", "-a", "slub@7.x", trace, NULL });
  if (rc != 0)
    {
      print_error ("run: %s\n", err);
      fail ();
    }
  return out;
}

/* Items 1, 3, 4, 5 on the recording machine. */
static void
test_recorded_one_node (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/hackbench-T-g1-l50.perf-script.gz");
  g_autofree char *js = run_both (trace, "recording-vm", NULL);
  Side a, b;
  sides (js, &a, &b);
  g_printerr ("alloc fast %.1f%% -> %.1f%%, free fast %.1f%% -> %.1f%%; per-CPU misses %.0f -> "
              "%.0f, free-pointer misses %.0f -> %.0f; alloc p50 %.0f -> %.0f, free p99 %.0f -> "
              "%.0f; slab bytes %.0f -> %.0f\n", 100 - 100 * a.alloc_slow / a.allocs,
              100 - 100 * b.alloc_slow / b.allocs, 100 - 100 * a.free_slow / a.frees,
              100 - 100 * b.free_slow / b.frees, a.l1_percpu, b.l1_percpu, a.l1_freeptr,
              b.l1_freeptr, a.alloc_p50, b.alloc_p50, a.free_p99, b.free_p99, a.footprint,
              b.footprint);
  /* 1: the sheaf is the fast path for nearly everything; 6.18's is not. */
  assert_true (b.alloc_slow <= 0.01 * b.allocs);
  assert_true (a.alloc_slow > 0.01 * a.allocs);
  assert_true (b.free_slow <= 0.01 * b.frees);
  assert_true (a.free_slow > b.free_slow);
  /* 3: misses move from the slabs' freelists to the per-CPU sheaves. */
  assert_true (b.l1_freeptr < a.l1_freeptr);
  assert_true (b.l1_percpu > a.l1_percpu);
  /* 4: a cheaper median allocation, a longer free tail. */
  assert_true (b.alloc_p50 < a.alloc_p50);
  assert_true (b.free_p99 > a.free_p99);
  /* 5: more slab memory held at the end. */
  assert_true (b.footprint > a.footprint);
}

/* Item 2: the same recording with its CPUs on two sockets: a cross-CPU
 * free is then a free of the other node's object, which 7.x sends past
 * the sheaves to __slab_free.  So 7.x's slow frees are the trace's
 * cross-CPU frees (the trace's own count, "cross_cpu_frees"), give or take
 * the ~10 % the page allows for sheaf flushes and frees of objects whose
 * allocating CPU the model placed on the other node. */
static void
test_recorded_two_sockets (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/hackbench-T-g1-l50.perf-script.gz");
  g_autofree char *js = run_both (trace, "nehalem-ep-2s", "0,1");
  Side a, b;
  sides (js, &a, &b);
  g_printerr ("two sockets: 7.x free fast %.1f%%, alloc fast %.1f%%\n",
              100 - 100 * b.free_slow / b.frees, 100 - 100 * b.alloc_slow / b.allocs);
  double cross = (double) tu_json_uint (js, "\"trace\": {", "cross_cpu_frees");
  g_printerr ("cross-CPU frees in the trace %.0f, 7.x slow frees %.0f\n", cross, b.free_slow);
  assert_true (b.alloc_slow <= 0.01 * b.allocs);
  assert_true (b.free_slow >= 0.9 * cross && b.free_slow <= 1.1 * cross);
}

/* Item 2's lock waits: generated hackbench on 16 CPUs over 2 sockets. */
static void
test_generated_two_sockets_locks (void **state)
{
  (void) state;
  g_autofree char *trace = tu_trace_gen ("hackbench", "6.18",
                                         (const char *[]) { "--cpus", "16", "--machine-sockets",
                                                            "2", NULL });
  g_autofree char *js = run_both (trace, "nehalem-ep-2s", NULL);
  Side a, b;
  sides (js, &a, &b);
  g_printerr ("generated hackbench 16 CPUs: lock waits %.0f -> %.0f cycles\n", a.lock_wait,
              b.lock_wait);
  assert_true (b.lock_wait > a.lock_wait);
  g_unlink (trace);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_recorded_one_node),
    cmocka_unit_test (test_recorded_two_sockets),
    cmocka_unit_test (test_generated_two_sockets_locks),
  };
  return cmocka_run_group_tests_name ("case-004", tests, NULL, NULL);
}
