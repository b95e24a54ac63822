/* test-slab-test.c - "slabsim slab-test": every bundled machine runs the
 * module's tests with every allocator model, the text is the module's
 * lines (parsed with the printk formats of tests/slab_test.c, 2009), the
 * JSON carries one object per (test, size), cycles are TSC cycles, output
 * is deterministic, and bad options are usage errors. */
#include "tests/testutil.h"
#include "sim/config/machine.h"

#include <string.h>
#include <glib/gstdio.h>

#define COUNT "40"
#define N_SIZES 12             /* 8 .. 16384 */
#define N_SIZES_CONC 10        /* 8 .. 4096 */

static char *
slab_test (const char *const *args, int want_rc)
{
  GPtrArray *a = g_ptr_array_new ();
  g_ptr_array_add (a, (gpointer) "slab-test");
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (a, (gpointer) args[i]);
  g_ptr_array_add (a, NULL);
  char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *const *) a->pdata);
  g_ptr_array_free (a, TRUE);
  if (rc != want_rc)
    {
      print_error ("slab-test: exit %d, wanted %d\n%s\n", rc, want_rc, err);
      fail ();
    }
  if (want_rc != 0)
    {
      g_free (out);
      return err;
    }
  g_free (err);
  return out;
}

/* Check the module's text: headings in order, one line per size in the
 * module's form, the concurrent lines with one entry per CPU. */
static void
check_text (const char *text, guint n_cpus, const char *count)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GRegex) repeat = g_regex_new ("^(\\d+) times kmalloc\\((\\d+)\\) -> (\\d+) cycles "
                                           "kfree -> (\\d+) cycles$", 0, 0, NULL);
  g_autoptr (GRegex) pair = g_regex_new ("^(\\d+) times kmalloc\\((\\d+)\\)/kfree -> (\\d+) cycles$",
                                         0, 0, NULL);
  g_autoptr (GRegex) conc = g_regex_new ("^Kmalloc N\\*alloc N\\*free\\((\\d+)\\):((?: \\d+=\\d+/\\d+)+)"
                                         " Average=(\\d+)/(\\d+)$", 0, 0, NULL);
  g_autoptr (GRegex) conc_pair = g_regex_new ("^Kmalloc N\\*\\(alloc free\\)\\((\\d+)\\):"
                                              "((?: \\d+=\\d+)+) Average=(\\d+)$", 0, 0, NULL);
  const char *const head[] = { "test init", "Single thread testing", "=====================",
                               "1. Kmalloc: Repeatedly allocate then free test" };
  guint i = 0;
  for (; i < G_N_ELEMENTS (head); i++)
    assert_string_equal (lines[i], head[i]);
  for (guint32 size = 8, k = 0; k < N_SIZES; k++, size <<= 1, i++)
    {
      g_autoptr (GMatchInfo) mi = NULL;
      if (!g_regex_match (repeat, lines[i], 0, &mi))
        {
          print_error ("not a test 1 line: \"%s\"\n", lines[i]);
          fail ();
        }
      g_autofree char *n = g_match_info_fetch (mi, 1), *sz = g_match_info_fetch (mi, 2);
      g_autofree char *a = g_match_info_fetch (mi, 3), *f = g_match_info_fetch (mi, 4);
      assert_string_equal (n, count);
      assert_int_equal (g_ascii_strtoull (sz, NULL, 10), size);
      /* Every call costs something. */
      assert_true (g_ascii_strtoull (a, NULL, 10) > 0);
      assert_true (g_ascii_strtoull (f, NULL, 10) > 0);
    }
  assert_string_equal (lines[i++], "2. Kmalloc: alloc/free test");
  for (guint32 size = 8, k = 0; k < N_SIZES; k++, size <<= 1, i++)
    {
      g_autoptr (GMatchInfo) mi = NULL;
      if (!g_regex_match (pair, lines[i], 0, &mi))
        {
          print_error ("not a test 2 line: \"%s\"\n", lines[i]);
          fail ();
        }
      g_autofree char *sz = g_match_info_fetch (mi, 2), *c = g_match_info_fetch (mi, 3);
      assert_int_equal (g_ascii_strtoull (sz, NULL, 10), size);
      assert_true (g_ascii_strtoull (c, NULL, 10) > 0);
    }
  assert_string_equal (lines[i++], "Concurrent allocs");
  assert_string_equal (lines[i++], "=================");
  for (guint pass = 0; pass < 2; pass++)
    for (guint32 size = 8, k = 0; k < N_SIZES_CONC; k++, size <<= 1, i++)
      {
        g_autoptr (GMatchInfo) mi = NULL;
        if (!g_regex_match (pass ? conc_pair : conc, lines[i], 0, &mi))
          {
            print_error ("not a concurrent line: \"%s\"\n", lines[i]);
            fail ();
          }
        g_autofree char *sz = g_match_info_fetch (mi, 1), *cpus = g_match_info_fetch (mi, 2);
        assert_int_equal (g_ascii_strtoull (sz, NULL, 10), size);
        /* " 0=a/b 1=c/d ...": one entry per CPU, in CPU order. */
        g_auto (GStrv) ent = g_strsplit (cpus + 1, " ", -1);
        assert_int_equal (g_strv_length (ent), n_cpus);
        for (guint c = 0; c < n_cpus; c++)
          assert_int_equal (g_ascii_strtoull (ent[c], NULL, 10), c);
      }
  assert_string_equal (lines[i], "");
  assert_null (lines[i + 1]);
}

/* Every bundled machine loads and runs every test in the module's form. */
static void
test_every_machine (void **state)
{
  (void) state;
  const char *const *names = sim_machine_builtin_names ();
  guint n = 0;
  for (; names[n]; n++)
    {
      GError *error = NULL;
      g_autoptr (SimMachine) m = sim_machine_load (names[n], NULL, &error);
      assert_null (error);
      assert_non_null (m);
      assert_true (m->tsc_ghz > 0);
      g_autofree char *out = slab_test ((const char *[]) { "-m", names[n], "--count", COUNT,
                                                            NULL }, 0);
      check_text (out, m->n_cpus, COUNT);
    }
  /* The six machines of the published tables are bundled, each with its
   * TSC at the nominal clock. */
  const char *const want[] = { "pentium4", "athlon64-x2", "haswell", "ivybridge-ep",
                               "broadwell-ep", "zen1" };
  const double ghz[] = { 3.0, 2.0, 4.0, 2.4, 3.6, 3.0 };
  const guint cpus[] = { 2, 2, 8, 48, 12, 16 };
  for (guint w = 0; w < G_N_ELEMENTS (want); w++)
    {
      assert_true (g_strv_contains (names, want[w]));
      g_autoptr (SimMachine) m = sim_machine_load (want[w], NULL, NULL);
      assert_non_null (m);
      assert_true (m->tsc_ghz == ghz[w]);
      assert_int_equal (m->n_cpus, cpus[w]);
    }
}

/* The geometry the calibration machines' comments promise. */
static void
test_calibration_machines (void **state)
{
  (void) state;
  g_autoptr (SimMachine) p4 = sim_machine_load ("pentium4", NULL, NULL);
  assert_int_equal (p4->n_levels, 2);               /* no L3 */
  assert_int_equal (p4->levels[0].size, 16 * 1024);
  assert_int_equal (p4->levels[0].ways, 8);
  assert_int_equal (p4->threads_per_core, 2);
  g_autoptr (SimMachine) k8 = sim_machine_load ("athlon64-x2", NULL, NULL);
  assert_int_equal (k8->levels[0].size, 64 * 1024);
  assert_int_equal (k8->levels[0].ways, 2);
  assert_int_equal (k8->levels[1].inclusion, SIM_INCL_EXCLUSIVE);
  assert_int_equal (k8->levels[1].ways, 16);
  g_autoptr (SimMachine) hsw = sim_machine_load ("haswell", NULL, NULL);
  assert_int_equal (hsw->levels[2].size, 8 * 1024 * 1024);
  assert_int_equal (hsw->levels[2].inclusion, SIM_INCL_INCLUSIVE);
  /* 30 MiB and 15 MiB L3s: the real 20 ways give non-power-of-two sets;
   * the files keep the capacity with 15 ways. */
  g_autoptr (SimMachine) ivb = sim_machine_load ("ivybridge-ep", NULL, NULL);
  assert_int_equal (ivb->sockets, 2);
  assert_int_equal (ivb->levels[2].size, 30ull * 1024 * 1024);
  assert_int_equal (ivb->levels[2].ways, 15);
  g_autoptr (SimMachine) bdw = sim_machine_load ("broadwell-ep", NULL, NULL);
  assert_int_equal (bdw->levels[2].size, 15ull * 1024 * 1024);
  g_autoptr (SimMachine) zen = sim_machine_load ("zen1", NULL, NULL);
  assert_int_equal (zen->levels[1].size, 512 * 1024);
  assert_int_equal (zen->levels[2].size, 8 * 1024 * 1024);
  assert_int_equal (zen->levels[2].shared_cores, 4);  /* one L3 per CCX */
  assert_int_equal (zen->levels[2].inclusion, SIM_INCL_EXCLUSIVE);
}

/* Every allocator model and era runs the module. */
static void
test_every_allocator (void **state)
{
  (void) state;
  const char *specs[] = { "slub@2.6.23", "slub@2.6.33", "slub@2.6.34", "slub@6.18",
                          "slab@2.6.23", "slab@2.6.34", "slqb" };
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autofree char *out = slab_test ((const char *[]) { "-m", "core2-quad", "-a", specs[i],
                                                            "--count", COUNT, NULL }, 0);
      check_text (out, 4, COUNT);
    }
}

/* JSON: one object per (test, size) with the printed value and its exact
 * mean; --test selects sections, and the text then holds only theirs. */
static void
test_json_and_selection (void **state)
{
  (void) state;
  g_autofree char *js = slab_test ((const char *[]) { "-m", "core2-quad", "--count", COUNT,
                                                       "--test", "repeat,concurrent",
                                                       "--format", "json", NULL }, 0);
  assert_int_equal (tu_json_uint (js, NULL, "count"), 40);
  assert_int_equal (tu_json_uint (js, NULL, "cpus"), 4);
  guint repeat = 0, pair = 0, conc = 0, conc_pair = 0;
  for (const char *p = js; (p = strstr (p, "\"test\": \"")); p++)
    {
      p += strlen ("\"test\": \"");
      if (g_str_has_prefix (p, "repeat\""))
        repeat++;
      else if (g_str_has_prefix (p, "pair\""))
        pair++;
      else if (g_str_has_prefix (p, "concurrent\""))
        conc++;
      else if (g_str_has_prefix (p, "concurrent-pair\""))
        conc_pair++;
    }
  assert_int_equal (repeat, N_SIZES);
  assert_int_equal (pair, 0);
  assert_int_equal (conc, N_SIZES_CONC);
  assert_int_equal (conc_pair, N_SIZES_CONC);
  const char *first = strstr (js, "\"test\": \"repeat\"");
  assert_non_null (first);
  assert_int_equal (tu_json_uint (first, NULL, "size"), 8);
  assert_true (tu_json_uint (first, NULL, "alloc_cycles") > 0);
  tu_assert_contains (first, "\"alloc_cycles_exact\": ");
  tu_assert_contains (first, "\"free_cycles_exact\": ");
  tu_assert_contains (js, "\"per_cpu\": [");

  g_autofree char *txt = slab_test ((const char *[]) { "-m", "core2-quad", "--count", COUNT,
                                                        "--test", "pair", NULL }, 0);
  assert_true (g_str_has_prefix (txt, "test init\nSingle thread testing\n"
                                 "=====================\n2. Kmalloc: alloc/free test\n"
                                 "40 times kmalloc(8)/kfree -> "));
  assert_null (strstr (txt, "Concurrent"));
  assert_null (strstr (txt, "1. Kmalloc"));
}

/* The printed cycles are TSC cycles: a TSC at half the core clock prints
 * half the cycles of the same simulated run (to the truncation). */
static void
test_tsc_cycles (void **state)
{
  (void) state;
  g_autofree char *core = slab_test ((const char *[]) { "-m", "core2-quad", "--count", "1000",
                                                         "--test", "repeat", "--format", "json",
                                                         NULL }, 0);
  g_autofree char *half = slab_test ((const char *[]) { "-m", "core2-quad", "--set",
                                                         "machine.tsc=1.2GHz", "--count", "1000",
                                                         "--test", "repeat", "--format", "json",
                                                         NULL }, 0);
  const char *a = strstr (core, "\"size\": 4096");
  const char *b = strstr (half, "\"size\": 4096");
  assert_non_null (a);
  assert_non_null (b);
  guint64 ca = tu_json_uint (a, NULL, "alloc_cycles"), cb = tu_json_uint (b, NULL, "alloc_cycles");
  assert_true (ca > 10);
  assert_true (cb == ca / 2 || cb + 1 == ca / 2 || cb == (ca + 1) / 2);
  /* Without tsc, the TSC runs at the core clock. */
  g_autofree char *show = NULL;
  assert_int_equal (tu_run (&show, NULL, (const char *[]) { "machine", "show", "core2-quad",
                                                            NULL }), 0);
  tu_assert_contains (show, "\ntsc: 2.4GHz\n");
}

/* Same inputs, same bytes out. */
static void
test_deterministic (void **state)
{
  (void) state;
  const char *args[] = { "-m", "nehalem-ep-2s", "-a", "slab@2.6.34", "--count", COUNT, NULL };
  g_autofree char *a = slab_test (args, 0);
  g_autofree char *b = slab_test (args, 0);
  assert_string_equal (a, b);
}

/* trace gen slab-test writes the module's pattern as a kmem trace that
 * run replays: exactly 1 + 24 L + CPUs 20 (1 + L) allocations, as many
 * frees, every one replayed. */
static void
test_trace_gen (void **state)
{
  (void) state;
  g_autofree char *path = tu_trace_gen ("slab-test", "6.18",
                                        (const char *[]) { "--cpus", "2", "--loops", "20", NULL });
  g_autofree char *js = NULL, *err = NULL;
  int rc = tu_run (&js, &err, (const char *[]) { "run", "-m", "core2-quad", "--check",
                                                 "--format", "json", path, NULL });
  if (rc != 0)
    print_error ("run: %s\n", err);
  assert_int_equal (rc, 0);
  guint64 want = 1 + 24 * 20 + 2 * 20 * (1 + 20);
  assert_int_equal (tu_json_uint (js, "\"trace\": {", "allocs"), want);
  assert_int_equal (tu_json_uint (js, "\"replay\": {", "allocs"), want);
  assert_int_equal (tu_json_uint (js, "\"replay\": {", "frees"), want);
  g_unlink (path);
  /* --groups and --size mean nothing for it. */
  g_autofree char *e = NULL;
  assert_int_equal (tu_run (NULL, &e, (const char *[]) { "trace", "gen", "slab-test", "--groups",
                                                         "2", "-o", "x", NULL }), 2);
  tu_assert_contains (e, "--groups does not apply to slab-test");
}

/* Bad options are usage errors (exit 2) that say what was expected. */
static void
test_errors (void **state)
{
  (void) state;
  g_autofree char *e1 = slab_test ((const char *[]) { "--count", "0", NULL }, 2);
  tu_assert_contains (e1, "--count: \"0\" is not a whole number in 1..");
  g_autofree char *e2 = slab_test ((const char *[]) { "--count", "12x", NULL }, 2);
  tu_assert_contains (e2, "--count");
  g_autofree char *e3 = slab_test ((const char *[]) { "--test", "repeat,bulk", NULL }, 2);
  tu_assert_contains (e3, "unknown test \"bulk\"");
  g_autofree char *e4 = slab_test ((const char *[]) { "--format", "csv", NULL }, 2);
  tu_assert_contains (e4, "unknown format \"csv\"");
  g_autofree char *e5 = slab_test ((const char *[]) { "-a", "slob", NULL }, 2);
  tu_assert_contains (e5, "slob");
  g_autofree char *e6 = slab_test ((const char *[]) { "extra", NULL }, 2);
  tu_assert_contains (e6, "unexpected argument \"extra\"");
  g_autofree char *e7 = slab_test ((const char *[]) { "-m", "core2-quad", "--set",
                                                       "machine.tsc=fast", NULL }, 2);
  tu_assert_contains (e7, "tsc");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_machine),
    cmocka_unit_test (test_calibration_machines),
    cmocka_unit_test (test_every_allocator),
    cmocka_unit_test (test_json_and_selection),
    cmocka_unit_test (test_tsc_cycles),
    cmocka_unit_test (test_deterministic),
    cmocka_unit_test (test_trace_gen),
    cmocka_unit_test (test_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
