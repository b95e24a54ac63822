/* test-provenance.c - what a result says about where it came from (issue
 * 13 items 5 and 6): run JSON records the trace path and SHA-256, the
 * slabsim version and the machine file's hash, and reports show them; a
 * merged cache names every cache it serves, the tracepoints' name first. */
#include "tests/testutil.h"

#include <glib/gstdio.h>
#include <string.h>

static const char *const trace = "traces/samples/udp-4k.trace.gz";

static char *
file_sha256 (const char *path)
{
  g_autofree char *data = NULL;
  gsize len;
  assert_true (g_file_get_contents (path, &data, &len, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, len);
}

static void
test_run_json_provenance (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (trace);
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "run", "--format", "json", "-a", "slub@2.6.34",
                                                  path, NULL });
  assert_int_equal (rc, 0);
  g_autofree char *sum = file_sha256 (path);
  g_autofree char *want = g_strdup_printf ("\"trace_sha256\": \"%s\"", sum);
  tu_assert_contains (out, want);
  g_autofree char *want_path = g_strdup_printf ("\"trace_path\": \"%s\"", path);
  tu_assert_contains (out, want_path);
  tu_assert_contains (out, "\"slabsim_version\": \"");
  g_autofree char *mpath = tu_source_path ("configs/machines/nehalem-ep-2s.yaml");
  g_autofree char *msum = file_sha256 (mpath);
  g_autofree char *want_m = g_strdup_printf ("\"machine_file_sha256\": \"%s\"", msum);
  tu_assert_contains (out, want_m);
  tu_assert_contains (out, "\"machine_file\": \"nehalem-ep-2s.yaml\"");
  gsize len;
  g_autofree char *data = NULL;
  assert_true (g_file_get_contents (path, &data, &len, NULL));
  assert_int_equal (tu_json_uint (out, "\"provenance\"", "trace_bytes"), len);

  /* A --set override changes the resolved machine's hash, not the file's. */
  g_autofree char *out2 = NULL;
  rc = tu_run (&out2, NULL, (const char *[]) { "run", "--format", "json", "-a", "slub@2.6.34",
                                               "--set", "machine.numa=false", path, NULL });
  assert_int_equal (rc, 0);
  tu_assert_contains (out2, want_m);
  const char *r1 = strstr (out, "\"machine_resolved_sha256\": \"");
  const char *r2 = strstr (out2, "\"machine_resolved_sha256\": \"");
  assert_non_null (r1);
  assert_non_null (r2);
  assert_false (strncmp (r1, r2, 95) == 0);

  /* The report shows them, in text and HTML. */
  g_autofree char *json = tu_write_temp (".json", out, -1);
  g_autofree char *txt = NULL, *html = NULL;
  assert_int_equal (tu_run (&txt, NULL, (const char *[]) { "report", json, NULL }), 0);
  tu_assert_contains (txt, sum);
  tu_assert_contains (txt, msum);
  tu_assert_contains (txt, "slabsim:      0.");
  assert_int_equal (tu_run (&html, NULL, (const char *[]) { "report", json, "--format", "html",
                                                            NULL }), 0);
  tu_assert_contains (html, sum);
  tu_assert_contains (html, msum);
  g_unlink (json);
}

/* The resolved machine's hash names the machine, not where its file lies:
 * the bundled machine by name, by path, and a copy of its file in a
 * temporary directory give the same machine_resolved_sha256. */
static char *
resolved_hash (const char *trace_path, const char *machine)
{
  g_autofree char *out = NULL;
  int rc = tu_run (&out, NULL, (const char *[]) { "run", "--format", "json", "-a", "slub@2.6.34",
                                                  "--machine", machine, trace_path, NULL });
  assert_int_equal (rc, 0);
  const char *k = strstr (out, "\"machine_resolved_sha256\": \"");
  assert_non_null (k);
  k += strlen ("\"machine_resolved_sha256\": \"");
  assert_non_null (strchr (k, '"'));
  return g_strndup (k, (gsize) (strchr (k, '"') - k));
}

static void
test_resolved_hash_ignores_path (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (trace);
  g_autofree char *mpath = tu_source_path ("configs/machines/nehalem-ep-2s.yaml");
  g_autofree char *data = NULL;
  gsize len;
  assert_true (g_file_get_contents (mpath, &data, &len, NULL));
  g_autofree char *copy = tu_write_temp (".yaml", data, (gssize) len);
  g_autofree char *by_name = resolved_hash (path, "nehalem-ep-2s");
  g_autofree char *by_path = resolved_hash (path, mpath);
  g_autofree char *by_copy = resolved_hash (path, copy);
  g_unlink (copy);
  assert_int_equal (strlen (by_name), 64);
  assert_string_equal (by_name, by_path);
  assert_string_equal (by_name, by_copy);
}

/* 2.6.34 on 16 CPUs merges kmalloc-256, maple_node and skbuff_head_cache
 * into :t-0000256: every one of those names is listed (the first cache
 * created first: the name the tracepoints print), in JSON and in text. */
static void
test_merged_cache_names (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path (trace);
  g_autofree char *js = NULL, *txt = NULL;
  assert_int_equal (tu_run (&js, NULL, (const char *[]) { "run", "--format", "json", "-a",
                                                          "slub@2.6.34", path, NULL }), 0);
  const char *c = strstr (js, "\"name\": \":t-0000256\"");
  assert_non_null (c);
  const char *al = strstr (c, "\"aliases\": [");
  assert_non_null (al);
  const char *end = strchr (al, ']');
  g_autofree char *list = g_strndup (al, end - al);
  tu_assert_contains (list, "\"kmalloc-256\"");
  tu_assert_contains (list, "\"skbuff_head_cache\"");
  /* kmalloc-256 was created first (at boot): it leads. */
  assert_true (strstr (list, "kmalloc-256") < strstr (list, "skbuff_head_cache"));
  assert_int_equal (tu_run (&txt, NULL, (const char *[]) { "run", "-a", "slub@2.6.34", path,
                                                           NULL }), 0);
  tu_assert_contains (txt, "Merged caches and the names they serve:");
  tu_assert_contains (txt, ":t-0000256");
  const char *line = strstr (txt, "  :t-0000256 ");
  assert_non_null (line);
  const char *nl = strchr (line, '\n');
  g_autofree char *l = g_strndup (line, nl - line);
  tu_assert_contains (l, "kmalloc-256");
  tu_assert_contains (l, "skbuff_head_cache");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_run_json_provenance),
    cmocka_unit_test (test_resolved_hash_ignores_path),
    cmocka_unit_test (test_merged_cache_names),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
