/* test-trace-counts.c - `slabsim trace info` on the three real traces gives
 * exactly the counts of shared/traces/README.md, and a plain copy of a trace
 * gives the same JSON as the gzip file. */
#include "tests/testutil.h"

#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

typedef struct {
  const char *file;
  const char *format;
  guint64 allocs, frees, same, cross, null, unknown, implicit, live;
} Expect;

static const Expect expected[] = {
  { "hackbench-T-g2-l50.trace.gz", "ftrace", 84176, 83706, 49609, 33680, 396, 21, 4, 883 },
  { "udp-4k.trace.gz", "ftrace", 40258, 40263, 20021, 148, 20087, 7, 19905, 184 },
  { "hackbench-T-g1-l50.perf-script.gz", "perf-script", 42207, 42618, 20752, 21033, 437, 396, 4, 418 },
};

static char *
info_json (const char *path)
{
  g_autofree char *err = NULL;
  char *out = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "trace", "info", "--format", "json", path, NULL });
  if (rc != 0)
    print_error ("trace info %s: exit %d: %s\n", path, rc, err);
  assert_int_equal (rc, 0);
  return out;
}

static void
check_key (const char *json, const char *key, guint64 v)
{
  g_autofree char *needle = g_strdup_printf ("\n  \"%s\": %" G_GUINT64_FORMAT ",", key, v);
  tu_assert_contains (json, needle);
}

static void
check_trace (const Expect *e)
{
  g_autofree char *rel = g_build_filename ("traces", "samples", e->file, NULL);
  g_autofree char *path = tu_source_path (rel);
  g_autofree char *json = info_json (path);
  check_key (json, "allocs", e->allocs);
  check_key (json, "frees", e->frees);
  check_key (json, "same_cpu_frees", e->same);
  check_key (json, "cross_cpu_frees", e->cross);
  check_key (json, "null_frees", e->null);
  check_key (json, "unknown_frees", e->unknown);
  check_key (json, "implicit_frees", e->implicit);
  check_key (json, "live_at_end", e->live);
  check_key (json, "failed_allocs", 0);
  check_key (json, "lost_events", 0);
  check_key (json, "malformed_lines", 0);
  check_key (json, "cpus", 2);
  tu_assert_contains (json, "\"hashed_pointers\": false");
  g_autofree char *fmt = g_strdup_printf ("\"format\": \"%s\"", e->format);
  tu_assert_contains (json, fmt);
  /* the partition of frees is exact */
  assert_true (e->same + e->cross + e->null + e->unknown == e->frees);
}

static void test_hackbench_g2 (void **state) { (void) state; check_trace (&expected[0]); }
static void test_udp_4k (void **state) { (void) state; check_trace (&expected[1]); }
static void test_perf_script (void **state) { (void) state; check_trace (&expected[2]); }

static void
test_event_counts (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path ("traces/samples/hackbench-T-g2-l50.trace.gz");
  g_autofree char *json = info_json (path);
  /* 173,126 events in the README; the header says entries-written: 173126 */
  check_key (json, "events", 173126);
  tu_assert_contains (json, "\"kmalloc\": 42471");
  tu_assert_contains (json, "\"kmem_cache_free\": 40982");
  tu_assert_contains (json, "\"names_cache\": {");
  tu_assert_contains (json, "\"kmalloc-64\": {");
}

static void
test_gzip_equals_plain (void **state)
{
  (void) state;
  g_autofree char *gz = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autoptr (GFile) f = g_file_new_for_path (gz);
  g_autoptr (GInputStream) raw = G_INPUT_STREAM (g_file_read (f, NULL, NULL));
  assert_non_null (raw);
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (z));
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  assert_true (g_output_stream_splice (mem, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, NULL) > 0);
  gsize len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem));
  g_autofree char *plain = tu_write_temp (".txt",
    g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)), len);
  g_autofree char *a = info_json (gz);
  g_autofree char *b = info_json (plain);
  assert_string_equal (a, b);
  g_unlink (plain);

  /* and from standard input ("-") */
  g_autofree char *text = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)), len);
  g_autofree char *c = NULL;
  assert_int_equal (tu_run_stdin (&c, NULL, text,
                                  (const char *[]) { "trace", "info", "--format", "json", "-", NULL }), 0);
  assert_string_equal (a, c);
}

static void
test_text_summary (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "trace", "info", path, NULL }), 0);
  tu_assert_contains (out, "SUMMARY (SLAB allocator)");
  tu_assert_contains (out, "Cross CPU allocations: 148/40258");
  tu_assert_contains (out, "implicit_frees          19905");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_hackbench_g2),
    cmocka_unit_test (test_udp_4k),
    cmocka_unit_test (test_perf_script),
    cmocka_unit_test (test_event_counts),
    cmocka_unit_test (test_gzip_equals_plain),
    cmocka_unit_test (test_text_summary),
  };
  return cmocka_run_group_tests_name ("trace-counts", tests, NULL, NULL);
}
