/* test-man.c - docs/slabsim.1 documents every verb and every long option.
 *
 * The verbs come from "slabsim help", sub-verbs from "slabsim VERB --help"
 * and the options from each one's --help, so a new option without a man
 * page entry fails here. */
#include "tests/testutil.h"

#include <stdio.h>
#include <string.h>

static char *man;

/* Names listed under @heading in a usage text: "  NAME  summary" lines. */
static GPtrArray *
listed (const char *help, const char *heading)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *p = strstr (help, heading);
  if (p == NULL)
    return names;
  g_auto (GStrv) lines = g_strsplit (p, "\n", -1);
  for (guint i = 1; lines[i] && lines[i][0] == ' '; i++)
    {
      g_auto (GStrv) w = g_strsplit_set (g_strstrip (lines[i]), " ", 2);
      if (w[0] && *w[0])
        g_ptr_array_add (names, g_strdup (w[0]));
    }
  return names;
}

/* The man page spells options "\-\-name" (roff escapes of "-"). */
static gboolean
man_has_option (const char *opt)
{
  GString *roff = g_string_new ("\\-\\-");
  for (const char *p = opt; *p; p++)
    {
      if (*p == '-')
        g_string_append_c (roff, '\\');
      g_string_append_c (roff, *p);
    }
  gboolean found = strstr (man, roff->str) != NULL;
  g_string_free (roff, TRUE);
  return found;
}

static guint checked;

static void
check_options (const char *cmd, const char *help)
{
  for (const char *p = help; (p = strstr (p, "--")); )
    {
      p += 2;
      gsize n = strspn (p, "abcdefghijklmnopqrstuvwxyz0123456789-");
      if (n == 0)
        continue;
      g_autofree char *opt = g_strndup (p, n);
      p += n;
      /* GOption's own. */
      if (g_str_has_prefix (opt, "help"))
        continue;
      checked++;
      if (!man_has_option (opt))
        {
          print_error ("docs/slabsim.1 does not document \"slabsim %s --%s\"\n", cmd, opt);
          fail ();
        }
    }
}

static void
check_verb (const char *verb)
{
  g_autofree char *vroff = g_strdup_printf (".SS \"%s", verb);
  g_autofree char *vroff2 = g_strdup_printf (".SS %s", verb);
  if (!strstr (man, vroff) && !strstr (man, vroff2))
    {
      print_error ("docs/slabsim.1 has no .SS section for the verb \"%s\"\n", verb);
      fail ();
    }
  g_autofree char *out = NULL;
  tu_run (&out, NULL, (const char *[]) { verb, "--help", NULL });
  assert_non_null (out);
  if (strstr (out, "Subcommands:"))
    {
      g_autoptr (GPtrArray) subs = listed (out, "Subcommands:");
      assert_true (subs->len > 0);
      for (guint i = 0; i < subs->len; i++)
        {
          const char *sub = g_ptr_array_index (subs, i);
          g_autofree char *name = g_strdup_printf ("%s %s", verb, sub);
          g_autofree char *sroff = g_strdup_printf (".SS \"%s", name);
          if (!strstr (man, sroff))
            {
              print_error ("docs/slabsim.1 has no .SS section for \"%s\"\n", name);
              fail ();
            }
          g_autofree char *sout = NULL;
          tu_run (&sout, NULL, (const char *[]) { verb, sub, "--help", NULL });
          check_options (name, sout ? sout : "");
        }
    }
  else
    check_options (verb, out);
}

static void
test_every_verb_and_option (void **state)
{
  (void) state;
  g_autofree char *help = NULL;
  assert_int_equal (tu_run (&help, NULL, (const char *[]) { "help", NULL }), 0);
  g_autoptr (GPtrArray) verbs = listed (help, "Verbs:");
  assert_true (verbs->len >= 10);
  for (guint i = 0; i < verbs->len; i++)
    check_verb (g_ptr_array_index (verbs, i));
  /* The options really were found (a parser that finds none passes
   * vacuously). */
  assert_true (checked > 30);
}

static void
test_man_page_shape (void **state)
{
  (void) state;
  tu_assert_contains (man, ".TH SLABSIM 1");
  tu_assert_contains (man, ".SH EXIT STATUS");
  tu_assert_contains (man, ".SH SYNOPSIS");
  /* Plain ASCII roff: every '-' in an option is escaped. */
  assert_null (strstr (man, "\n--"));
}

int
main (void)
{
  g_autofree char *path = tu_source_path ("docs/slabsim.1");
  if (!g_file_get_contents (path, &man, NULL, NULL))
    {
      /* The page is installed and documents every option: a checkout
       * without it is broken, not a reason to skip. */
      printf ("1..1\nnot ok 1 - %s not found\n", path);
      return 1;
    }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_verb_and_option),
    cmocka_unit_test (test_man_page_shape),
  };
  int rc = cmocka_run_group_tests_name ("man", tests, NULL, NULL);
  g_free (man);
  return rc;
}
