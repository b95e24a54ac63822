/* test-man.c - docs/slabsim.1 documents every verb and every long option,
 * and with the README's "Using it" every view and input.
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

/* The README's "## Using it" section, up to the next heading. */
static char *
readme_using_it (void)
{
  g_autofree char *path = tu_source_path ("README.md");
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  const char *p = strstr (text, "## Using it");
  assert_non_null (p);
  const char *e = strstr (p + 3, "\n## ");
  return g_strndup (p, e ? (gsize) (e - p) : strlen (p));
}

/* Every view `run --view` takes (the list its own error prints, so a new
 * view must be documented), perf kmem stat's three tables of trace info,
 * and the inputs beyond text (perf.data, the native format), in both the
 * man page and the README's "Using it". */
static void
test_views_and_inputs_listed (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "--view", "?", trace, NULL }), 2);
  const char *list = strstr (err, "expected one of: ");
  assert_non_null (list);
  g_autofree char *names = g_strndup (list + 17, strcspn (list + 17, ")"));
  g_auto (GStrv) views = g_strsplit (names, ", ", -1);
  assert_true (g_strv_length (views) >= 7);
  g_autofree char *readme = readme_using_it ();
  for (guint i = 0; views[i]; i++)
    {
      /* slabinfo-r=CACHE: the man page sets CACHE in italics. */
      g_autofree char *name = g_strndup (views[i], strcspn (views[i], "="));
      if (strchr (views[i], '='))
        {
          g_free (name);
          name = g_strndup (views[i], strcspn (views[i], "=") + 1);
        }
      GString *roff = g_string_new (NULL);
      for (const char *c = name; *c; c++)
        {
          if (*c == '-')
            g_string_append_c (roff, '\\');
          g_string_append_c (roff, *c);
        }
      if (!strstr (man, roff->str))
        {
          print_error ("docs/slabsim.1 does not list the view \"%s\"\n", views[i]);
          fail ();
        }
      g_string_free (roff, TRUE);
      if (!strstr (readme, views[i]))
        {
          print_error ("README.md's \"Using it\" does not list the view \"%s\"\n", views[i]);
          fail ();
        }
    }
  static const char *const kmem[] = { "--caller", "--alloc", "--page", NULL };
  for (guint i = 0; kmem[i]; i++)
    if (!strstr (readme, kmem[i]))
      {
        print_error ("README.md's \"Using it\" does not show trace info %s\n", kmem[i]);
        fail ();
      }
  static const char *const inputs[] = { "perf.data", "perf script", "native", NULL };
  for (guint i = 0; inputs[i]; i++)
    {
      if (!strstr (man, inputs[i]))
        {
          print_error ("docs/slabsim.1 does not name the input \"%s\"\n", inputs[i]);
          fail ();
        }
      if (!strstr (readme, inputs[i]))
        {
          print_error ("README.md's \"Using it\" does not name the input \"%s\"\n", inputs[i]);
          fail ();
        }
    }
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
    cmocka_unit_test (test_views_and_inputs_listed),
  };
  int rc = cmocka_run_group_tests_name ("man", tests, NULL, NULL);
  g_free (man);
  return rc;
}
