/* test-cli.c - the command line's contract: --version, help, exit codes. */
#include "tests/testutil.h"
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include <string.h>

static void
test_version (void **state)
{
  (void) state;
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "--version", NULL }), 0);
  tu_assert_contains (out, "slabsim ");
}

static void
test_no_args_is_usage_error (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { NULL }), 2);
  tu_assert_contains (err, "Usage:");
}

static void
test_unknown_verb (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "frobnicate", NULL }), 2);
  tu_assert_contains (err, "slabsim: unknown verb \"frobnicate\"");
}

static void
test_help_lists_verbs (void **state)
{
  (void) state;
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "help", NULL }), 0);
  tu_assert_contains (out, "cachesim");
  tu_assert_contains (out, "machine");
  tu_assert_contains (out, "trace");
}

static void
test_help_verb_equals_verb_help (void **state)
{
  (void) state;
  g_autofree char *a = NULL, *b = NULL;
  assert_int_equal (tu_run (&a, NULL, (const char *[]) { "help", "cachesim", NULL }), 0);
  assert_int_equal (tu_run (&b, NULL, (const char *[]) { "cachesim", "--help", NULL }), 0);
  assert_string_equal (a, b);
  tu_assert_contains (a, "slabsim cachesim");
}

static void
test_bad_option_is_usage_error (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "cachesim", "--no-such-option", NULL }), 2);
  tu_assert_contains (err, "slabsim: cachesim:");
}

/* sim_cli_choice: one option word to its index, for run's --replay,
 * --touch, --page-events and --warm and validate's --page-events. */
static void
test_choice (void **state)
{
  (void) state;
  static const char *const two[] = { "ordered", "timed", NULL };
  static const char *const three[] = { "none", "line", "object", NULL };
  guint i = 7;
  assert_true (sim_cli_choice ("run", "--replay", NULL, two, &i, NULL));
  assert_int_equal (i, 7);               /* not given: the caller's default stays */
  assert_true (sim_cli_choice ("run", "--replay", "timed", two, &i, NULL));
  assert_int_equal (i, 1);
  assert_true (sim_cli_choice ("run", "--touch", "none", three, &i, NULL));
  assert_int_equal (i, 0);
  assert_true (sim_cli_choice ("run", "--touch", "object", three, &i, NULL));
  assert_int_equal (i, 2);
  assert_true (sim_cli_choice ("validate", "--page-events", "ignore",
                               sim_cli_page_events_names, &i, NULL));
  assert_int_equal (i, 1);

  g_autoptr (GError) e2 = NULL, e3 = NULL, e0 = NULL;
  i = 7;
  assert_false (sim_cli_choice ("run", "--replay", "fast", two, &i, &e2));
  assert_int_equal (i, 7);
  assert_true (g_error_matches (e2, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION));
  assert_string_equal (e2->message, "run: --replay takes ordered or timed, not \"fast\"");
  assert_false (sim_cli_choice ("run", "--touch", "Line", three, &i, &e3));
  assert_string_equal (e3->message, "run: --touch takes none, line or object, not \"Line\"");
  assert_false (sim_cli_choice ("validate", "--page-events", "", sim_cli_page_events_names, &i,
                                &e0));
  assert_string_equal (e0->message, "validate: --page-events takes replay or ignore, not \"\"");
}

/* Each verb's option words, through the whole command line: a bad one is a
 * usage error (exit 2) before any trace is read (with --machine given,
 * validate does not read the trace for its default machine first). */
static void
test_choice_options (void **state)
{
  (void) state;
  static const struct { const char *verb, *opt, *value, *msg; } cases[] = {
    { "run", "--replay", "fast", "run: --replay takes ordered or timed, not \"fast\"" },
    { "run", "--touch", "byte", "run: --touch takes none, line or object, not \"byte\"" },
    { "run", "--page-events", "all", "run: --page-events takes replay or ignore, not \"all\"" },
    { "run", "--warm", "all", "run: --warm takes none or unknown-frees, not \"all\"" },
    { "validate", "--page-events", "skip",
      "validate: --page-events takes replay or ignore, not \"skip\"" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *args[] = { cases[c].verb, "-m", "nehalem-ep-2s", cases[c].opt, cases[c].value,
                             "no-such.trace", NULL };
      assert_int_equal (tu_run (&out, &err, args), 2);
      tu_assert_contains (err, cases[c].msg);
      assert_true (out == NULL || *out == '\0');
    }
}

/* sim_cli_before_replay, run's and validate's: a bad -o fails before the
 * trace (a file or standard input) is read, with the verb's prefix. */
static void
test_before_replay (void **state)
{
  (void) state;
  static const char *const verbs[] = { "run", "validate" };
  for (guint v = 0; v < G_N_ELEMENTS (verbs); v++)
    for (int piped = 0; piped <= 1; piped++)
      {
        g_autofree char *out = NULL, *err = NULL;
        const char *args[] = { verbs[v], "-m", "nehalem-ep-2s", "-o", "/nonexistent-dir/x",
                               piped ? "-" : "no-such.trace", NULL };
        int rc = piped ? tu_run_stdin (&out, &err, "not a trace\n", args)
                       : tu_run (&out, &err, args);
        assert_int_equal (rc, 1);
        g_autofree char *want = g_strdup_printf ("slabsim: %s: /nonexistent-dir/x: folder "
                                                 "/nonexistent-dir", verbs[v]);
        tu_assert_contains (err, want);
        assert_null (strstr (err, "no-such.trace"));
        assert_null (strstr (err, "line 1"));
      }
}

/* sim_cli_uint_in, the whole numbers of slab-test --count, record
 * --buffer-kb and trace gen's counts. */
static void
test_uint_in (void **state)
{
  (void) state;
  static const struct { const char *s; guint min, max; gboolean ok; guint v; } cases[] = {
    { "1", 1, 10, TRUE, 1 }, { "10", 1, 10, TRUE, 10 }, { "0", 0, 10, TRUE, 0 },
    { "0", 1, 10, FALSE, 0 }, { "11", 1, 10, FALSE, 0 }, { "", 1, 10, FALSE, 0 },
    { "-1", 0, 10, FALSE, 0 }, { "5x", 1, 10, FALSE, 0 }, { "0x5", 0, 10, FALSE, 0 },
    { "16777216", 1, 1u << 24, TRUE, 16777216 }, { "4294967296", 1, G_MAXUINT, FALSE, 0 },
    { "99999999999999999999999", 1, G_MAXUINT, FALSE, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint v = 77;
      assert_int_equal (sim_cli_uint_in (cases[i].s, cases[i].min, cases[i].max, &v), cases[i].ok);
      assert_int_equal (v, cases[i].ok ? cases[i].v : 77);
    }
  /* Each caller's own words, exit 2. */
  static const struct { const char *const args[8]; const char *msg; } verbs[] = {
    { { "slab-test", "--count", "0", NULL },
      "slabsim: slab-test: --count: \"0\" is not a whole number in 1..10000000\n" },
    { { "record", "--buffer-kb", "16777217", "--", "true", NULL },
      "slabsim: record: --buffer-kb: \"16777217\" is not a whole number in 1..16777216\n" },
    { { "trace", "gen", "hackbench", "--cpus", "x", "-o", "/nonexistent-dir/x", NULL },
      "slabsim: trace gen: --cpus: \"x\" is not a whole number in 1..4096 "
      "(try \"slabsim trace gen --help\")\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (verbs); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      assert_int_equal (tu_run (&out, &err, (const char *const *) verbs[i].args), 2);
      assert_string_equal (err, verbs[i].msg);
    }
}

/* A GLib critical or warning in the program is a bug and ends the run with
 * exit 1 and a clear message, whether or not G_DEBUG makes it fatal (the
 * tests set G_DEBUG=fatal-criticals; users do not).  The hidden hook
 * SLABSIM_TEST_HOOK raises one before any verb runs. */
static void
test_critical_is_fatal (void **state)
{
  (void) state;
  g_autofree char *saved = g_strdup (g_getenv ("G_DEBUG"));
  g_unsetenv ("G_DEBUG");
  const char *levels[] = { "critical", "warning" };
  for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_setenv ("SLABSIM_TEST_HOOK", levels[i], TRUE);
      int rc = tu_run (&out, &err, (const char *[]) { "--version", NULL });
      g_unsetenv ("SLABSIM_TEST_HOOK");
      assert_int_equal (rc, 1);
      tu_assert_contains (err, "slabsim: internal error");
      tu_assert_contains (err, levels[i]);
      /* the run stopped: the verb never ran */
      assert_true (out == NULL || strstr (out, "slabsim ") == NULL);
    }
  if (saved)
    g_setenv ("G_DEBUG", saved, TRUE);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_version),
    cmocka_unit_test (test_no_args_is_usage_error),
    cmocka_unit_test (test_unknown_verb),
    cmocka_unit_test (test_help_lists_verbs),
    cmocka_unit_test (test_help_verb_equals_verb_help),
    cmocka_unit_test (test_bad_option_is_usage_error),
    cmocka_unit_test (test_critical_is_fatal),
    cmocka_unit_test (test_choice),
    cmocka_unit_test (test_choice_options),
    cmocka_unit_test (test_before_replay),
    cmocka_unit_test (test_uint_in),
  };
  return cmocka_run_group_tests_name ("cli", tests, NULL, NULL);
}
