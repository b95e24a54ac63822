/* test-case-001.c - docs/case-studies/001-kbuild-slqb-slub-slab.md: SLAB,
 * SLUB 2.6.34 and SLQB on generated kernel-build traces (2.6.29 and 6.18
 * formats) on the seed's Core 2 Quad.  What is asserted is what the thread
 * supports, SLAB cheapest (its system times: SLAB 192.6 s against SLQB
 * 194.8 s and SLUB 195.0 s, the same sign in elapsed time; the SLQB-SLUB
 * margin of 0.1 % has the other sign in elapsed time and is not asserted;
 * no ratio window, the thread timed whole builds), and the page's account
 * of where SLUB's extra cycles come from.  The recorded traces' orders are
 * the model's own results, which no seed speaks to: not asserted. */
#include "tests/cases/case-util.h"


static double
per_op (const char *js, const char *what)
{
  g_autofree char *key = g_strdup_printf ("%s_instructions", what);
  return (double) tu_json_uint (js, "\"timing\": {", key);
}

static void
check_kbuild (const char *kernel)
{
  g_autofree char *trace = tu_trace_gen ("kbuild", kernel, (const char *[]) { "--cpus", "4", NULL });
  g_autofree char *slab = cu_run (trace, "core2-quad", "line", "slab");
  g_autofree char *slub = cu_run (trace, "core2-quad", "line", "slub@2.6.34");
  g_autofree char *slqb = cu_run (trace, "core2-quad", "line", "slqb");
  double a = cu_cycles (slab), u = cu_cycles (slub), q = cu_cycles (slqb);
  double ia = per_op (slab, "alloc") + per_op (slab, "free");
  double iu = per_op (slub, "alloc") + per_op (slub, "free");
  double share = 1.0 - (iu - ia) / (u - a);
  double fa = cu_l1_of (slab, "freeptr"), fu = cu_l1_of (slub, "freeptr");
  double pa = cu_l1_of (slab, "struct_page"), pu = cu_l1_of (slub, "struct_page");
  g_printerr ("kbuild %s: slab %.0f, slub %.0f (%.2fx), slqb %.0f (%.2fx); memory share of the "
              "slub-slab gap %.0f%%; freeptr misses %.0f / %.0f, struct page %.0f / %.0f\n",
              kernel, a, u, u / a, q, q / a, 100 * share, fa, fu, pa, pu);
  /* The seed's order: SLAB cheapest (the thread's system times; its
   * SLQB-SLUB margin, 0.2 s of 195 s, is within its noise, so their order
   * is not checked; it gives no allocator cycles, so no ratio window). The
   * page's explanation: SLUB's free-pointer and struct page misses exceed
   * SLAB's. */
  assert_true (a < q && a < u);
  assert_true (fu > fa);
  assert_true (pu > pa);

  /* Without the caller's touches SLAB's object misses go, SLUB's free
   * pointer misses stay.  The page said the cycle gap widens; that was the
   * serial model's output, not the seed's, and under the out-of-order
   * timing model (misses nothing waits for overlap within and across
   * calls) it narrows on the 2.6.29 format (1.74x -> 1.67x): printed, not
   * asserted, until the case study is retaken on the final model.  What
   * still holds is the misses' side: SLUB's free-pointer misses do not
   * fall without the touches. */
  g_autofree char *slab0 = cu_run (trace, "core2-quad", "none", "slab");
  g_autofree char *slub0 = cu_run (trace, "core2-quad", "none", "slub@2.6.34");
  double a0 = cu_cycles (slab0), u0 = cu_cycles (slub0);
  g_printerr ("  touch none: slab %.0f, slub %.0f (%.2fx)\n", a0, u0, u0 / a0);
  assert_true (cu_l1_of (slub0, "freeptr") >= fu);
  g_unlink (trace);
}

static void
test_kbuild_2_6_29 (void **state)
{
  (void) state;
  check_kbuild ("2.6.29");
}

static void
test_kbuild_6_18 (void **state)
{
  (void) state;
  check_kbuild ("6.18");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kbuild_2_6_29),
    cmocka_unit_test (test_kbuild_6_18),
  };
  return cmocka_run_group_tests_name ("case-001-kbuild", tests, NULL, NULL);
}
