/* test-yaml-tree.c - the generic YAML layer: positions, syntax errors,
 * duplicate keys, alias bounds, typed scalars with units, suggestions and
 * --set overrides. */
#include "tests/testutil.h"
#include "sim/config/yaml-tree.h"
#include "sim/core/errors.h"

#include <string.h>
#include <glib/gstdio.h>

static SimYamlDoc *
load (const char *text)
{
  GError *error = NULL;
  SimYamlDoc *doc = sim_yaml_load_data (text, strlen (text), "t.yaml", &error);
  if (doc == NULL)
    {
      print_error ("unexpected error: %s\n", error->message);
      fail ();
    }
  return doc;
}

/* The message of loading @text, which must fail. */
static char *
load_error (const char *text)
{
  GError *error = NULL;
  SimYamlDoc *doc = sim_yaml_load_data (text, strlen (text), "t.yaml", &error);
  assert_null (doc);
  assert_non_null (error);
  assert_true (error->domain == SIM_CONFIG_ERROR);
  char *msg = g_strdup (error->message);
  g_error_free (error);
  return msg;
}

static void
test_marks (void **state)
{
  (void) state;
  g_autoptr (SimYamlDoc) doc = load ("a: 1\nb:\n  c: [x, y]\n  d:   hello\n");
  SimYamlNode *b = sim_yaml_lookup (doc->root, "b");
  assert_non_null (b);
  assert_int_equal (b->key_line, 2);
  assert_int_equal (b->key_col, 1);
  SimYamlNode *c = sim_yaml_lookup (b, "c");
  assert_int_equal (c->kind, SIM_YAML_SEQUENCE);
  assert_int_equal (c->line, 3);
  assert_int_equal (c->col, 6);
  SimYamlNode *y = g_ptr_array_index (c->children, 1);
  assert_string_equal (y->scalar, "y");
  assert_int_equal (y->line, 3);
  assert_int_equal (y->col, 10);
  g_autofree char *path = sim_yaml_path (y);
  assert_string_equal (path, "b.c.1");
  SimYamlNode *d = sim_yaml_lookup (b, "d");
  assert_int_equal (d->col, 8);
  assert_int_equal (d->key_col, 3);
  /* Errors at a node carry its position and path. */
  GError *error = NULL;
  sim_yaml_error (&error, d, FALSE, SIM_CONFIG_ERROR_BAD_VALUE, "bad %d", 7);
  assert_string_equal (error->message, "t.yaml:4:8: b.d: bad 7");
  g_clear_error (&error);
  sim_yaml_error (&error, d, TRUE, SIM_CONFIG_ERROR_UNKNOWN_KEY, "key");
  assert_string_equal (error->message, "t.yaml:4:3: b: key");
  g_clear_error (&error);
}

static void
test_empty_document (void **state)
{
  (void) state;
  g_autoptr (SimYamlDoc) doc = load ("# only a comment\n");
  assert_null (doc->root);
}

static void
test_syntax_errors (void **state)
{
  (void) state;
  g_autofree char *a = load_error ("a: 1\nb: [1, 2\nc: 3\n");
  assert_string_equal (a, "t.yaml:3:2: did not find expected ',' or ']' "
                          "(while parsing a flow sequence started at 2:4)");
  g_autofree char *b = load_error ("a: 1\n b: 2\n");
  assert_string_equal (b, "t.yaml:2:3: mapping values are not allowed in this context");
  /* Reader errors have an offset only; we still give line and column. */
  g_autofree char *c = load_error ("a: 1\nb: \xff\n");
  assert_string_equal (c, "t.yaml:2:4: invalid leading UTF-8 octet (byte 0xff)");
  g_autofree char *d = load_error ("a: 1\n---\nb: 2\n");
  assert_string_equal (d, "t.yaml:3:1: a second YAML document; expected exactly one");
  g_autofree char *e = load_error ("a: *nope\n");
  tu_assert_contains (e, "t.yaml:1:4: found undefined alias");
  g_autofree char *f = load_error ("? [a, b]\n: 1\n");
  assert_string_equal (f, "t.yaml:1:3: mapping keys must be scalars");
}

static void
test_duplicate_keys (void **state)
{
  (void) state;
  g_autofree char *a = load_error ("size: 32K\nways: 8\nline: 64\nways: 4\n");
  assert_string_equal (a, "t.yaml:4:1: duplicate key \"ways\" (first at 2:1)");
  g_autofree char *b = load_error ("L1d: {size: 32K, ways: 8,\n      ways: 4}\n");
  assert_string_equal (b, "t.yaml:2:7: duplicate key \"ways\" (first at 1:18)");
}

static void
test_alias_bound (void **state)
{
  (void) state;
  /* Ten to the sixth leaves from a few lines: must be refused, not built. */
  GString *s = g_string_new ("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
  for (int i = 1; i <= 6; i++)
    {
      g_string_append_printf (s, "a%d: &a%d [", i, i);
      for (int k = 0; k < 10; k++)
        g_string_append_printf (s, "%s*a%d", k ? ", " : "", i - 1);
      g_string_append (s, "]\n");
    }
  g_autofree char *a = load_error (s->str);
  g_string_free (s, TRUE);
  tu_assert_contains (a, "document too large: more than 100000 nodes once aliases are expanded");
  tu_assert_contains (a, "t.yaml:");
  /* An alias inside its own anchor. */
  g_autofree char *b = load_error ("a: &a [*a]\n");
  assert_string_equal (b, "t.yaml:1:4: nesting deeper than 64 levels "
                          "(or an alias that contains itself)");
  /* Small aliases are fine; the copy keeps the anchor's position and says
   * so in errors. */
  g_autoptr (SimYamlDoc) doc = load ("x: &v 12X\ny: *v\n");
  SimYamlNode *x = sim_yaml_lookup (doc->root, "x");
  SimYamlNode *y = sim_yaml_lookup (doc->root, "y");
  assert_false (x->via_alias);
  assert_true (y->via_alias);
  assert_ptr_not_equal (x, y);
  guint64 v;
  GError *error = NULL;
  assert_false (sim_yaml_get_size (y, &v, &error));
  assert_string_equal (error->message,
                       "t.yaml:1:4: y: expected a size such as 4096, 32K, 32KiB or 8MB, "
                       "got \"12X\" (value reached through an alias; the position is its "
                       "anchor's)");
  g_clear_error (&error);
}

/* Issue 9 item 10: documents past the limits are refused early, with the
 * limit in the message.  Before the fix, 100k nested flow sequences never
 * came back from libyaml's loader and a mapping of ~100k keys took minutes
 * (a linear scan per key); both finish here in a fraction of a second,
 * which the test's time-out (not a timer) guards. */
static void
test_document_limits (void **state)
{
  (void) state;
  /* 100k nested "[": refused at the first level too many, at its mark. */
  const gsize deep = 100000;
  g_autofree char *nest = g_malloc (2 * deep + 1);
  memset (nest, '[', deep);
  memset (nest + deep, ']', deep);
  nest[2 * deep] = '\0';
  g_autofree char *a = load_error (nest);
  assert_string_equal (a, "t.yaml:1:66: nesting deeper than 64 levels");
  /* 64 levels load; 65 do not (a scalar under 65 collections). */
  GString *ok = g_string_new (NULL);
  for (int i = 0; i < 64; i++)
    g_string_append_c (ok, '[');
  g_string_append_c (ok, 'x');
  for (int i = 0; i < 64; i++)
    g_string_append_c (ok, ']');
  g_autoptr (SimYamlDoc) d64 = load (ok->str);
  g_string_prepend_c (ok, '[');
  g_string_append_c (ok, ']');
  g_autofree char *b = load_error (ok->str);
  tu_assert_contains (b, "nesting deeper than 64 levels");
  g_string_free (ok, TRUE);
  /* Deep block mappings too. */
  GString *blk = g_string_new (NULL);
  for (int i = 0; i < 70; i++)
    g_string_append_printf (blk, "%*sk%d:\n", 2 * i, "", i);
  g_autofree char *c = load_error (blk->str);
  tu_assert_contains (c, "nesting deeper than 64 levels");
  g_string_free (blk, TRUE);

  /* Bytes: one past the limit is refused before parsing (a valid comment,
   * so only the size can be at fault). */
  gsize big = SIM_YAML_MAX_BYTES + 1;
  g_autofree char *huge = g_malloc (big + 1);
  memset (huge, ' ', big);
  huge[0] = '#';
  huge[big] = '\0';
  g_autofree char *d = load_error (huge);
  g_autofree char *want = g_strdup_printf ("t.yaml: document too large: %" G_GSIZE_FORMAT
                                           " bytes (at most %u)", big, SIM_YAML_MAX_BYTES);
  assert_string_equal (d, want);
  /* From a file, without reading it whole. */
  g_autofree char *path = tu_write_temp (".yaml", huge, (gssize) big);
  GError *error = NULL;
  assert_null (sim_yaml_load_file (path, &error));
  g_autofree char *want_f = g_strdup_printf ("%s: document too large: more than %u bytes",
                                             path, SIM_YAML_MAX_BYTES);
  assert_string_equal (error->message, want_f);
  g_clear_error (&error);
  g_unlink (path);
  huge[big - 1] = '\0';   /* exactly the limit: an empty document */
  GError *e2 = NULL;
  g_autoptr (SimYamlDoc) at_limit = sim_yaml_load_data (huge, big - 1, "t.yaml", &e2);
  assert_null (e2);
  assert_null (at_limit->root);
}

static void
test_many_keys (void **state)
{
  (void) state;
  /* The largest mapping the node limit allows (the root counts as one). */
  const guint n = SIM_YAML_MAX_NODES - 1;
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "key%u: %u\n", i, i);
  GError *error = NULL;
  g_autoptr (SimYamlDoc) doc = sim_yaml_load_data (s->str, s->len, "t.yaml", &error);
  assert_null (error);
  assert_int_equal (doc->root->children->len, n);
  for (guint i = 0; i < n; i += 997)
    {
      char key[32];
      g_snprintf (key, sizeof key, "key%u", i);
      SimYamlNode *v = sim_yaml_lookup (doc->root, key);
      assert_non_null (v);
      assert_int_equal (g_ascii_strtoull (v->scalar, NULL, 10), i);
    }
  assert_null (sim_yaml_lookup (doc->root, "key"));
  /* Overrides keep the index right: a replaced value, a created key. */
  assert_true (sim_yaml_apply_override (doc, "key5=five", NULL, NULL, NULL, &error));
  assert_string_equal (sim_yaml_lookup (doc->root, "key5")->scalar, "five");
  /* An unknown key searches every path once (this used to be quadratic
   * too), and still suggests. */
  assert_false (sim_yaml_apply_override (doc, "kye7=1", NULL, NULL, NULL, &error));
  tu_assert_contains (error->message, "no key \"kye7\" (did you mean");
  g_clear_error (&error);
  /* A duplicate far down is still found, pointing at the first. */
  g_string_truncate (s, 0);
  for (guint i = 0; i < 50000; i++)
    g_string_append_printf (s, "key%u: %u\n", i, i);
  g_string_append (s, "key37777: again\n");
  g_autofree char *dup = load_error (s->str);
  assert_string_equal (dup, "t.yaml:50001:1: duplicate key \"key37777\" (first at 37778:1)");
  g_string_free (s, TRUE);

  /* One more value than the tree may hold: refused, fast. */
  GString *t = g_string_new (NULL);
  for (guint i = 0; i < SIM_YAML_MAX_NODES; i++)
    g_string_append_printf (t, "k%u: 1\n", i);
  g_autofree char *over = load_error (t->str);
  tu_assert_contains (over, "document too large: more than 100000 nodes");
  g_string_free (t, TRUE);

  /* A sequence of 99999 items with an unknown --set: paths built once. */
  GString *q = g_string_new ("list:\n");
  for (guint i = 0; i < SIM_YAML_MAX_NODES - 2; i++)
    g_string_append (q, "- 1\n");
  g_autoptr (SimYamlDoc) ldoc = sim_yaml_load_data (q->str, q->len, "t.yaml", &error);
  assert_null (error);
  assert_false (sim_yaml_apply_override (ldoc, "lsit.5=2", NULL, NULL, NULL, &error));
  tu_assert_contains (error->message, "no key \"lsit.5\"");
  g_clear_error (&error);
  g_string_free (q, TRUE);
}

/* A one-scalar document "v: TEXT" and its value node. */
static SimYamlNode *
scalar_doc (const char *text, SimYamlDoc **doc)
{
  g_autofree char *yaml = g_strdup_printf ("v: %s\n", text);
  *doc = load (yaml);
  return sim_yaml_lookup ((*doc)->root, "v");
}

static void
test_sizes (void **state)
{
  (void) state;
  static const struct { const char *text; guint64 bytes; } ok[] = {
    { "4096", 4096 }, { "64B", 64 }, { "32K", 32768 }, { "32k", 32768 },
    { "32KB", 32768 }, { "32KiB", 32768 }, { "32 KiB", 32768 }, { "8M", 8u << 20 },
    { "8MB", 8u << 20 }, { "8MiB", 8u << 20 }, { "16G", G_GUINT64_CONSTANT (16) << 30 },
    { "1T", G_GUINT64_CONSTANT (1) << 40 }, { "0x100", 256 }, { "\"2M\"", 2u << 20 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      SimYamlDoc *doc;
      SimYamlNode *n = scalar_doc (ok[i].text, &doc);
      guint64 v = 0;
      GError *error = NULL;
      if (!sim_yaml_get_size (n, &v, &error))
        {
          print_error ("%s: %s\n", ok[i].text, error->message);
          fail ();
        }
      assert_true (v == ok[i].bytes);
      sim_yaml_doc_free (doc);
    }
  static const struct { const char *text; const char *msg; } bad[] = {
    { "32X", "t.yaml:1:4: v: expected a size such as 4096, 32K, 32KiB or 8MB, got \"32X\"" },
    { "1.5M", "t.yaml:1:4: v: expected a size such as 4096, 32K, 32KiB or 8MB, got \"1.5M\"" },
    { "-1", "t.yaml:1:4: v: size -1 is negative" },
    { "99999999999999999999", "t.yaml:1:4: v: expected a size" },
    { "17179869184G", "t.yaml:1:4: v: expected a size" },
    { "[1]", "t.yaml:1:1: v: expected a size, got a sequence" },
    { "''", "t.yaml:1:4: v: expected a size" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      SimYamlDoc *doc;
      SimYamlNode *n = scalar_doc (bad[i].text, &doc);
      guint64 v;
      GError *error = NULL;
      assert_false (sim_yaml_get_size (n, &v, &error));
      tu_assert_contains (error->message, bad[i].msg);
      g_error_free (error);
      sim_yaml_doc_free (doc);
    }
}

static void
test_integers_and_booleans (void **state)
{
  (void) state;
  SimYamlDoc *doc;
  GError *error = NULL;
  guint64 v;
  SimYamlNode *n = scalar_doc ("12", &doc);
  assert_true (sim_yaml_get_uint (n, 0, 100, &v, &error));
  assert_true (v == 12);
  assert_false (sim_yaml_get_uint (n, 0, 10, &v, &error));
  assert_string_equal (error->message, "t.yaml:1:4: v: 12 is out of range (expected 0..10)");
  g_clear_error (&error);
  sim_yaml_doc_free (doc);

  n = scalar_doc ("-3", &doc);
  assert_false (sim_yaml_get_uint (n, 1, 100, &v, &error));
  assert_string_equal (error->message, "t.yaml:1:4: v: -3 is negative; expected an integer >= 1");
  g_clear_error (&error);
  sim_yaml_doc_free (doc);

  n = scalar_doc ("1.5", &doc);
  assert_false (sim_yaml_get_uint (n, 0, 100, &v, &error));
  assert_string_equal (error->message, "t.yaml:1:4: v: expected an integer, got \"1.5\"");
  g_clear_error (&error);
  sim_yaml_doc_free (doc);

  static const struct { const char *text; gboolean v; } bools[] = {
    { "true", TRUE }, { "false", FALSE }, { "yes", TRUE }, { "no", FALSE },
    { "YES", TRUE }, { "False", FALSE }, { "on", TRUE }, { "off", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bools); i++)
    {
      gboolean b = !bools[i].v;
      n = scalar_doc (bools[i].text, &doc);
      assert_true (sim_yaml_get_bool (n, &b, NULL));
      assert_int_equal (b, bools[i].v);
      sim_yaml_doc_free (doc);
    }
  gboolean b;
  n = scalar_doc ("maybe", &doc);
  assert_false (sim_yaml_get_bool (n, &b, &error));
  assert_string_equal (error->message,
                       "t.yaml:1:4: v: expected a boolean (true/false/yes/no), got \"maybe\"");
  g_clear_error (&error);
  sim_yaml_doc_free (doc);
}

static void
test_enums (void **state)
{
  (void) state;
  static const char *const names[] = { "mesi", "mesif", "moesi", NULL };
  SimYamlDoc *doc;
  GError *error = NULL;
  guint e = 9;
  SimYamlNode *n = scalar_doc ("moesi", &doc);
  assert_true (sim_yaml_get_enum (n, names, &e, &error));
  assert_int_equal (e, 2);
  sim_yaml_doc_free (doc);
  n = scalar_doc ("mosi", &doc);
  assert_false (sim_yaml_get_enum (n, names, &e, &error));
  assert_string_equal (error->message,
                       "t.yaml:1:4: v: unknown value \"mosi\" (expected one of: mesi, mesif, moesi)");
  g_clear_error (&error);
  sim_yaml_doc_free (doc);
}

static void
test_latencies_and_frequencies (void **state)
{
  (void) state;
  static const struct { const char *text; double ghz; guint cycles; } ok[] = {
    { "4", 2.0, 4 }, { "4 cycles", 2.0, 4 }, { "4cycles", 2.0, 4 }, { "1 cycle", 2.0, 1 },
    { "60ns", 2.93, 176 }, { "60 ns", 2.93, 176 }, { "66ns", 2.66, 176 },
    { "100ns", 2.93, 293 }, { "0.5ns", 2.0, 1 }, { "0", 2.0, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      SimYamlDoc *doc;
      SimYamlNode *n = scalar_doc (ok[i].text, &doc);
      guint c = 12345;
      assert_true (sim_yaml_get_latency (n, ok[i].ghz, &c, NULL));
      if (c != ok[i].cycles)
        {
          print_error ("%s at %g GHz: %u cycles, expected %u\n", ok[i].text, ok[i].ghz, c,
                       ok[i].cycles);
          fail ();
        }
      sim_yaml_doc_free (doc);
    }
  static const struct { const char *text; const char *msg; } bad[] = {
    { "4.5", "t.yaml:1:4: v: latency 4.5: cycles must be a whole number" },
    { "60ms", "t.yaml:1:4: v: expected a latency such as 4, \"4 cycles\" or 60ns, got \"60ms\"" },
    { "-1", "t.yaml:1:4: v: latency -1 is negative" },
    { "fast", "t.yaml:1:4: v: expected a latency" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      SimYamlDoc *doc;
      SimYamlNode *n = scalar_doc (bad[i].text, &doc);
      guint c;
      GError *error = NULL;
      assert_false (sim_yaml_get_latency (n, 2.0, &c, &error));
      tu_assert_contains (error->message, bad[i].msg);
      g_error_free (error);
      sim_yaml_doc_free (doc);
    }

  static const struct { const char *text; double ghz; } freqs[] = {
    { "2.93GHz", 2.93 }, { "2.93 GHz", 2.93 }, { "2.4ghz", 2.4 }, { "2400MHz", 2.4 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (freqs); i++)
    {
      SimYamlDoc *doc;
      SimYamlNode *n = scalar_doc (freqs[i].text, &doc);
      double g = 0;
      assert_true (sim_yaml_get_frequency (n, &g, NULL));
      assert_true (g > freqs[i].ghz - 1e-12 && g < freqs[i].ghz + 1e-12);
      sim_yaml_doc_free (doc);
    }
  static const char *const bad_freqs[] = { "2.93", "0GHz", "-2GHz", "fastGHz", "3 THz" };
  for (guint i = 0; i < G_N_ELEMENTS (bad_freqs); i++)
    {
      SimYamlDoc *doc;
      SimYamlNode *n = scalar_doc (bad_freqs[i], &doc);
      double g;
      GError *error = NULL;
      assert_false (sim_yaml_get_frequency (n, &g, &error));
      tu_assert_contains (error->message, "t.yaml:1:4: v: expected a positive frequency");
      g_error_free (error);
      sim_yaml_doc_free (doc);
    }
}

static void
test_suggestions (void **state)
{
  (void) state;
  assert_int_equal (sim_yaml_levenshtein ("ways", "ways"), 0);
  assert_int_equal (sim_yaml_levenshtein ("wyas", "ways"), 2);
  assert_int_equal (sim_yaml_levenshtein ("", "abc"), 3);
  assert_int_equal (sim_yaml_levenshtein ("kitten", "sitting"), 3);
  static const char *const keys[] = { "size", "ways", "line", "latency", NULL };
  assert_string_equal (sim_yaml_nearest ("wyas", keys, 4), "ways");
  assert_string_equal (sim_yaml_nearest ("latncy", keys, 4), "latency");
  assert_null (sim_yaml_nearest ("frobnicate", keys, 4));

  g_autoptr (SimYamlDoc) doc = load ("L1d:\n  size: 32K\n  wyas: 8\n");
  GError *error = NULL;
  assert_false (sim_yaml_check_keys (sim_yaml_lookup (doc->root, "L1d"), keys, &error));
  assert_string_equal (error->message,
                       "t.yaml:3:3: L1d: unknown key \"wyas\" (did you mean \"ways\"?)");
  g_clear_error (&error);
  g_autoptr (SimYamlDoc) doc2 = load ("zzzzzz: 1\n");
  assert_false (sim_yaml_check_keys (doc2->root, keys, &error));
  assert_string_equal (error->message, "t.yaml:1:1: unknown key \"zzzzzz\" "
                                       "(valid keys: size, ways, line, latency)");
  g_clear_error (&error);
}

static void
test_overrides (void **state)
{
  (void) state;
  g_autoptr (SimYamlDoc) doc = load ("memory:\n  numa: true\ncaches:\n  L1d: {size: 32K}\n"
                                     "  L2: {size: 256K}\nlist: [a, b]\n");
  GError *error = NULL;
  /* Exact path, with and without the prefix. */
  assert_true (sim_yaml_apply_override (doc, "machine.memory.numa=false", "machine", NULL,
                                        NULL, &error));
  SimYamlNode *numa = sim_yaml_lookup (sim_yaml_lookup (doc->root, "memory"), "numa");
  assert_string_equal (numa->scalar, "false");
  assert_int_equal (numa->line, 0);
  g_autofree char *p = sim_yaml_path (numa);
  assert_string_equal (p, "memory.numa");
  /* Unique suffix. */
  assert_true (sim_yaml_apply_override (doc, "numa=yes", "machine", NULL, NULL, &error));
  numa = sim_yaml_lookup (sim_yaml_lookup (doc->root, "memory"), "numa");
  assert_string_equal (numa->scalar, "yes");
  assert_true (sim_yaml_apply_override (doc, "machine.numa=no", "machine", NULL, NULL, &error));
  numa = sim_yaml_lookup (sim_yaml_lookup (doc->root, "memory"), "numa");
  assert_string_equal (numa->scalar, "no");
  /* Nested key, sequence index, and a flow mapping as value. */
  assert_true (sim_yaml_apply_override (doc, "caches.L2.size=512K", NULL, NULL, NULL, &error));
  SimYamlNode *l2 = sim_yaml_lookup (sim_yaml_lookup (doc->root, "caches"), "L2");
  assert_string_equal (sim_yaml_lookup (l2, "size")->scalar, "512K");
  assert_true (sim_yaml_apply_override (doc, "list.1=c", NULL, NULL, NULL, &error));
  SimYamlNode *list = sim_yaml_lookup (doc->root, "list");
  assert_string_equal (((SimYamlNode *) g_ptr_array_index (list->children, 1))->scalar, "c");
  assert_true (sim_yaml_apply_override (doc, "caches.L1d={size: 64K, ways: 2}", NULL, NULL,
                                        NULL, &error));
  SimYamlNode *l1 = sim_yaml_lookup (sim_yaml_lookup (doc->root, "caches"), "L1d");
  assert_int_equal (l1->kind, SIM_YAML_MAPPING);
  assert_string_equal (sim_yaml_lookup (l1, "ways")->scalar, "2");
  assert_string_equal (l1->key, "L1d");

  /* Errors. */
  assert_false (sim_yaml_apply_override (doc, "memory.nmua=false", NULL, NULL, NULL, &error));
  assert_string_equal (error->message, "--set memory.nmua=false: no key \"memory.nmua\" "
                                       "(did you mean \"memory.numa\"?)");
  g_clear_error (&error);
  assert_false (sim_yaml_apply_override (doc, "nmua=false", NULL, NULL, NULL, &error));
  assert_string_equal (error->message, "--set nmua=false: no key \"nmua\" "
                                       "(did you mean \"memory.numa\"?)");
  g_clear_error (&error);
  assert_false (sim_yaml_apply_override (doc, "size=1M", NULL, NULL, NULL, &error));
  assert_string_equal (error->message, "--set size=1M: key \"size\" is ambiguous "
                                       "(it could be caches.L1d.size, caches.L2.size)");
  g_clear_error (&error);
  assert_false (sim_yaml_apply_override (doc, "numa", NULL, NULL, NULL, &error));
  assert_true (g_error_matches (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE));
  assert_string_equal (error->message, "--set \"numa\": expected KEY=VALUE "
                                       "(for example caches.L2.size=512K)");
  g_clear_error (&error);
  assert_false (sim_yaml_apply_override (doc, "a..b=1", NULL, NULL, NULL, &error));
  tu_assert_contains (error->message, "empty key");
  g_clear_error (&error);
  assert_false (sim_yaml_apply_override (doc, "numa=[1, 2", NULL, NULL, NULL, &error));
  tu_assert_contains (error->message, "--set numa=[1, 2:");
  g_clear_error (&error);
}

static gboolean
known_seed (const char *const *segs, guint n, gpointer data)
{
  (void) data;
  return n == 1 && strcmp (segs[0], "seed") == 0;
}

/* Issue 9 item 7: every malformed key is a usage error naming the
 * --set, never a crash (" =1" used to reach replace_node with the root,
 * which has no parent), and the document is left as it was. */
static void
test_override_malformed_keys (void **state)
{
  (void) state;
  static const struct { const char *set, *want; } cases[] = {
    { " =1", "--set \" =1\": the key before '=' is empty; expected KEY=VALUE" },
    { "  =x", "--set \"  =x\": the key before '=' is empty" },
    { "\t=x", "the key before '=' is empty" },
    { "=1", "--set \"=1\": expected KEY=VALUE" },
    { "numa", "--set \"numa\": expected KEY=VALUE" },
    { "", "expected KEY=VALUE" },
    { "a..b=1", "--set a..b=1: empty key segment in \"a..b\"" },
    { "memory.=1", "--set memory.=1: empty key segment in \"memory.\"" },
    { ".memory=1", "empty key segment in \".memory\"" },
    { "memory. .numa=1", "empty key segment in \"memory. .numa\"" },
    { "machine.=1", "empty key segment in \"machine.\"" },
    { ".=1", "empty key segment" },
    { "memory .numa=1", "--set memory .numa=1: no key \"memory .numa\" "
                        "(did you mean \"memory.numa\"?)" },
    { "mem ory=1", "no key \"mem ory\" (did you mean \"memory\"?)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (SimYamlDoc) doc = load ("memory:\n  numa: true\n");
      GError *error = NULL;
      assert_false (sim_yaml_apply_override (doc, cases[i].set, "machine", known_seed, NULL,
                                             &error));
      assert_non_null (error);
      assert_true (error->domain == SIM_CONFIG_ERROR);
      tu_assert_contains (error->message, cases[i].want);
      g_clear_error (&error);
      SimYamlNode *numa = sim_yaml_lookup (sim_yaml_lookup (doc->root, "memory"), "numa");
      assert_non_null (numa);
      assert_string_equal (numa->scalar, "true");
      assert_int_equal (doc->root->children->len, 1);
    }
  /* Blanks around the whole key are still trimmed. */
  g_autoptr (SimYamlDoc) doc = load ("memory:\n  numa: true\n");
  GError *error = NULL;
  assert_true (sim_yaml_apply_override (doc, " memory.numa =false", NULL, NULL, NULL, &error));
  assert_string_equal (sim_yaml_lookup (sim_yaml_lookup (doc->root, "memory"), "numa")->scalar,
                       "false");
}

static void
test_override_creates_known_key (void **state)
{
  (void) state;
  g_autoptr (SimYamlDoc) doc = load ("name: x\n");
  GError *error = NULL;
  assert_true (sim_yaml_apply_override (doc, "seed=5", NULL, known_seed, NULL, &error));
  assert_string_equal (sim_yaml_lookup (doc->root, "seed")->scalar, "5");
  assert_false (sim_yaml_apply_override (doc, "sede=5", NULL, known_seed, NULL, &error));
  assert_string_equal (error->message, "--set sede=5: no key \"sede\" (did you mean \"seed\"?)");
  g_clear_error (&error);
}

static void
test_format_double (void **state)
{
  (void) state;
  static const double v[] = { 2.93, 2.4, 0.1, 3.0, 2.9300000000000002, 1e-3 * 2930 };
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    {
      g_autofree char *s = sim_yaml_format_double (v[i]);
      assert_true (g_ascii_strtod (s, NULL) == v[i]);
    }
  g_autofree char *a = sim_yaml_format_double (2.93);
  assert_string_equal (a, "2.93");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_marks),
    cmocka_unit_test (test_empty_document),
    cmocka_unit_test (test_syntax_errors),
    cmocka_unit_test (test_duplicate_keys),
    cmocka_unit_test (test_alias_bound),
    cmocka_unit_test (test_document_limits),
    cmocka_unit_test (test_many_keys),
    cmocka_unit_test (test_sizes),
    cmocka_unit_test (test_integers_and_booleans),
    cmocka_unit_test (test_enums),
    cmocka_unit_test (test_latencies_and_frequencies),
    cmocka_unit_test (test_suggestions),
    cmocka_unit_test (test_overrides),
    cmocka_unit_test (test_override_creates_known_key),
    cmocka_unit_test (test_override_malformed_keys),
    cmocka_unit_test (test_format_double),
  };
  return cmocka_run_group_tests_name ("yaml-tree", tests, NULL, NULL);
}
