/* test-cli.c - the command line's contract: --version, help, exit codes. */
#include "tests/testutil.h"
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
  };
  return cmocka_run_group_tests_name ("cli", tests, NULL, NULL);
}
