/* test-report.c - "slabsim report": golden text, Markdown and SVG from a
 * fixed fixture (tests/golden/report/fixture.jsonl, a real sweep), a
 * self-contained HTML page, run JSON input, baselines; the JSON reader.
 *
 * The tests only compare; scripts/regen-goldens rewrites the goldens. */
#include "tests/testutil.h"
#include "sim/report/json-parse.h"
#include "sim/report/report-data.h"

#include <string.h>
#include <glib/gstdio.h>

static char *
golden_path (const char *name)
{
  g_autofree char *rel = g_strdup_printf ("tests/golden/report/%s", name);
  return tu_source_path (rel);
}

static void
check_golden (const char *name, const char *const *args)
{
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, args);
  if (rc != 0)
    print_error ("%s\n", err);
  assert_int_equal (rc, 0);
  g_autofree char *rel = g_strdup_printf ("tests/golden/report/%s", name);
  assert_true (tu_golden_matches (rel, out));
}

/* A golden comparison never writes the golden, even with the variable that
 * once made the tests rewrite them set in the environment: a mismatch is a
 * mismatch, and the file is untouched. */
static void
test_golden_never_rewritten (void **state)
{
  (void) state;
  g_autofree char *path = golden_path ("report.txt");
  g_autofree char *before = NULL;
  assert_true (g_file_get_contents (path, &before, NULL, NULL));
  g_setenv ("SLABSIM_UPDATE_GOLDEN", "1", TRUE);
  gboolean same = tu_golden_matches ("tests/golden/report/report.txt", "not the report\n");
  g_unsetenv ("SLABSIM_UPDATE_GOLDEN");
  assert_false (same);
  g_autofree char *after = NULL;
  assert_true (g_file_get_contents (path, &after, NULL, NULL));
  assert_string_equal (before, after);
}

static void
test_golden_text (void **state)
{
  (void) state;
  g_autofree char *fx = golden_path ("fixture.jsonl");
  check_golden ("report.txt", (const char *[]) { "report", fx, "--format", "text", NULL });
  /* Fixed width for mail: no line over 100 columns. */
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "report", fx, NULL }), 0);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    assert_true (strlen (lines[i]) <= 100);
}

static void
test_golden_markdown (void **state)
{
  (void) state;
  g_autofree char *fx = golden_path ("fixture.jsonl");
  check_golden ("report.md", (const char *[]) { "report", fx, "--format", "md", "--baseline", "2",
                                                NULL });
}

static void
test_golden_svg (void **state)
{
  (void) state;
  g_autofree char *fx = golden_path ("fixture.jsonl");
  check_golden ("heatmap.svg", (const char *[]) { "report", fx, "--format", "svg",
                                                  "--metric", "alloc_fast_pct", NULL });
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "report", fx, "--format", "svg", NULL }), 0);
  assert_true (g_str_has_prefix (out, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  assert_true (g_str_has_suffix (out, "</svg>\n"));
}

static void
assert_self_contained (const char *html)
{
  static const char *const banned[] = { "http", "<script", "<link", "@import", "url(", "src=", NULL };
  g_autofree char *low = g_ascii_strdown (html, -1);
  for (guint i = 0; banned[i]; i++)
    if (strstr (low, banned[i]))
      {
        print_error ("HTML contains \"%s\"\n", banned[i]);
        fail ();
      }
}

static void
test_html_self_contained (void **state)
{
  (void) state;
  g_autofree char *fx = golden_path ("fixture.jsonl");
  g_autofree char *dir = g_dir_make_tmp ("slabsim-report-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "r.html", NULL);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "report", fx, "-o", path, NULL }), 0);
  assert_string_equal (out, "");
  g_autofree char *html = NULL;
  assert_true (g_file_get_contents (path, &html, NULL, NULL));
  assert_true (g_str_has_prefix (html, "<!DOCTYPE html>"));
  assert_self_contained (html);
  /* A heat map per default metric and the three other charts (busiest
   * caches, cycles, memory against cycles). */
  guint svgs = 0;
  for (const char *p = html; (p = strstr (p, "<svg")); p++)
    svgs++;
  assert_int_equal (svgs, 4 + 3);
  tu_assert_contains (html, "alloc fastpath %");
  tu_assert_contains (html, "Cycles per operation");
  /* Same bytes twice. */
  g_autofree char *out2 = NULL;
  assert_int_equal (tu_run (&out2, NULL, (const char *[]) { "report", fx, "--format", "html", NULL }), 0);
  assert_string_equal (out2, html);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_baseline_by_id_and_index (void **state)
{
  (void) state;
  g_autofree char *fx = golden_path ("fixture.jsonl");
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (fx, &text, NULL, NULL));
  /* The id of point 3 (the fourth line). */
  const char *l = text;
  for (int i = 0; i < 3; i++)
    l = strchr (l, '\n') + 1;
  g_autofree char *id = g_strndup (l + strlen ("{\"id\":\""), 16);
  g_autofree char *prefix = g_strndup (id, 6);
  g_autofree char *a = NULL, *b = NULL, *err = NULL;
  assert_int_equal (tu_run (&a, NULL, (const char *[]) { "report", fx, "--baseline", "3", NULL }), 0);
  assert_int_equal (tu_run (&b, NULL, (const char *[]) { "report", fx, "--baseline", prefix, NULL }), 0);
  assert_string_equal (a, b);
  tu_assert_contains (a, id);
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "report", fx, "--baseline", "99", NULL }), 2);
  tu_assert_contains (err, "--baseline 99: no point");
  g_autofree char *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "report", fx, "--metric", "fast", NULL }), 2);
  tu_assert_contains (err2, "unknown metric \"fast\"");
}

static void
test_run_json_input (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *json = NULL;
  assert_int_equal (tu_run (&json, NULL, (const char *[]) { "run", "--format", "json", "-a", "slub@2.6.34",
                                                            "-a", "slub@6.18", trace, NULL }), 0);
  g_autofree char *path = tu_write_temp (".json", json, -1);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "report", path, NULL }), 0);
  tu_assert_contains (out, "slabsim report: run (2 results)");
  tu_assert_contains (out, "slub@6.18");
  tu_assert_contains (out, "%change");
  g_autofree char *html = NULL;
  assert_int_equal (tu_run (&html, NULL, (const char *[]) { "report", path, "--format", "html", NULL }), 0);
  assert_self_contained (html);
  g_unlink (path);
  /* Not a result: a clear error. */
  g_autofree char *bad = tu_write_temp (".jsonl", "{\"a\": 1}\n{\"b\": [1,}\n", -1);
  g_autofree char *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "report", bad, NULL }), 2);
  tu_assert_contains (err2, ":1: neither a sweep result line");
  g_unlink (bad);
}

/* sim_report_find_cache's order: the exact name before an earlier cache of
 * the same kmalloc class, the class before an alias, and an alias (of the
 * class) last. */
static void
test_find_cache (void **state)
{
  (void) state;
  static const char json[] =
    "{\"caches\": [{\"name\": \"size-512\"}, {\"name\": \"kmalloc-512\"},"
    " {\"name\": \":t-0000256\", \"aliases\": [\"kmalloc-256\", \"foo\", \"kmalloc-1k\"]},"
    " {\"name\": \"kmalloc-1024\"}, {\"name\": \"foo-2\", \"aliases\": [\"foo\"]}]}";
  g_autoptr (GError) error = NULL;
  g_autoptr (SimJsonValue) r = sim_json_parse (json, -1, "t", 1, &error);
  assert_non_null (r);
  static const struct { const char *name; int want; } cases[] = {
    { "size-512", 0 }, { "kmalloc-512", 1 },          /* exact, whatever the order */
    { "size-1024", 3 }, { "kmalloc-1k", 3 },          /* the class beats the alias */
    { "size-256", 2 }, { "foo", 2 },                  /* aliases: the first cache that has one */
    { ":t-0000256", 2 }, { "bar", -1 }, { "kmalloc-64", -1 },
  };
  const SimJsonValue *caches = sim_json_get (r, "caches");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const SimJsonValue *c = sim_report_find_cache (r, cases[i].name);
      if (cases[i].want < 0)
        assert_null (c);
      else
        assert_ptr_equal (c, sim_json_item (caches, (guint) cases[i].want));
    }
  g_autoptr (SimJsonValue) none = sim_json_parse ("{}", -1, "t", 1, &error);
  assert_null (sim_report_find_cache (none, "kmalloc-8"));
}

static void
test_json_parse (void **state)
{
  (void) state;
  GError *error = NULL;
  g_autoptr (SimJsonValue) v = sim_json_parse ("{\"a\": [1, -2.5e3, true, null],\n \"b\": \"x\\u00e9\\n\"}",
                                               -1, "t", 1, &error);
  assert_non_null (v);
  assert_int_equal (sim_json_len (sim_json_get (v, "a")), 4);
  assert_true (sim_json_number (sim_json_item (sim_json_get (v, "a"), 1), 0) == -2500.0);
  assert_string_equal (sim_json_str (sim_json_get (v, "b"), NULL), "x\xc3\xa9\n");
  GString *s = g_string_new (NULL);
  sim_json_write_compact (s, v);
  assert_string_equal (s->str, "{\"a\":[1,-2.5e3,true,null],\"b\":\"x\xc3\xa9\\n\"}");
  g_string_free (s, TRUE);
  SimJsonValue *bad = sim_json_parse ("{\"a\": 1,\n  \"b\" 2}", -1, "f.json", 1, &error);
  assert_null (bad);
  tu_assert_contains (error->message, "f.json:2:7: expected ':' after the key \"b\"");
  g_clear_error (&error);
  bad = sim_json_parse ("[1, 2", -1, "g", 5, &error);
  assert_null (bad);
  tu_assert_contains (error->message, "g:5:6: expected ',' or ']'");
  g_clear_error (&error);
  bad = sim_json_parse ("01", -1, "h", 1, &error);
  assert_null (bad);
  g_clear_error (&error);
  /* A number's three runs of digits: each must have one, at the column
   * where it is missing. */
  static const struct { const char *text, *msg; } nums[] = {
    { "[-]", "n:1:3: expected a digit" },
    { "[-x]", "n:1:3: expected a digit" },
    { "[1.]", "n:1:4: expected a digit after the decimal point" },
    { "{\"a\": 1.x}", "n:1:9: expected a digit after the decimal point" },
    { "[1e]", "n:1:4: expected a digit in the exponent" },
    { "[1E-x]", "n:1:5: expected a digit in the exponent" },
    { "[-01]", "n:1:4: expected ',' or ']'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (nums); i++)
    {
      bad = sim_json_parse (nums[i].text, -1, "n", 1, &error);
      assert_null (bad);
      tu_assert_contains (error->message, nums[i].msg);
      g_clear_error (&error);
    }
  g_autoptr (SimJsonValue) ok = sim_json_parse ("[-0, 0.25, 2.5e+3, 10E-1, 7]", -1, "n", 1, &error);
  assert_non_null (ok);
  static const double want[] = { 0.0, 0.25, 2500.0, 1.0, 7.0 };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    assert_true (sim_json_number (sim_json_item (ok, i), -1) == want[i]);
}

/* The fixture with @from replaced by @to in its second line. */
static char *
crafted (const char *from, const char *to)
{
  g_autofree char *fx = golden_path ("fixture.jsonl");
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (fx, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  assert_non_null (strstr (lines[1], from));
  g_auto (GStrv) parts = g_strsplit (lines[1], from, 2);
  g_free (lines[1]);
  lines[1] = g_strjoin (to, parts[0], parts[1], NULL);
  g_autofree char *out = g_strjoinv ("\n", lines);
  return tu_write_temp (".jsonl", out, -1);
}

/* Numbers of result lines are checked from their text: negative,
 * fractional, out of range or not numbers at all are an error naming the
 * file and line, exit 1, in merge and report alike (issue 9 item 11:
 * UBSan float-cast overflows, a 26 s loop on "points": -5). */
static void
test_crafted_numbers (void **state)
{
  (void) state;
  static const struct { const char *to, *key, *found; gboolean report; } cases[] = {
    { "\"index\":-1", "index", "not -1", TRUE },
    { "\"index\":1.5", "index", "not 1.5", TRUE },
    { "\"index\":1e0", "index", "not 1e0", TRUE },
    { "\"index\":4294967296", "index", "not 4294967296", TRUE },
    { "\"index\":1e300", "index", "not 1e300", TRUE },
    { "\"index\":\"1\"", "index", "not a string", TRUE },
    { "\"points\":-5", "points", "not -5", FALSE },
    { "\"points\":0", "points", "not 0", FALSE },
    { "\"points\":4294967302", "points", "not 4294967302", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *from = strcmp (cases[i].key, "index") == 0 ? "\"index\":1" : "\"points\":6";
      g_autofree char *path = crafted (from, cases[i].to);
      g_autofree char *want = g_strdup_printf ("%s:2: \"%s\" must be a whole number from",
                                               path, cases[i].key);
      g_autofree char *out = NULL, *err = NULL;
      assert_int_equal (tu_run (&out, &err, (const char *[]) { "merge", path, NULL }), 1);
      tu_assert_contains (err, want);
      tu_assert_contains (err, cases[i].found);
      if (cases[i].report)
        {
          g_autofree char *out2 = NULL, *err2 = NULL;
          assert_int_equal (tu_run (&out2, &err2, (const char *[]) { "report", path, NULL }), 1);
          tu_assert_contains (err2, want);
          tu_assert_contains (err2, cases[i].found);
        }
      g_unlink (path);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_golden_never_rewritten),
    cmocka_unit_test (test_golden_text),
    cmocka_unit_test (test_golden_markdown),
    cmocka_unit_test (test_golden_svg),
    cmocka_unit_test (test_html_self_contained),
    cmocka_unit_test (test_baseline_by_id_and_index),
    cmocka_unit_test (test_find_cache),
    cmocka_unit_test (test_run_json_input),
    cmocka_unit_test (test_json_parse),
    cmocka_unit_test (test_crafted_numbers),
  };
  return cmocka_run_group_tests_name ("report", tests, NULL, NULL);
}
