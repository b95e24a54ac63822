/* test-trace-errors.c - every kind of bad input gives "file:line: expected
 * ..." and exit 1 (usage errors exit 2); --lenient skips and counts. */
#include "tests/testutil.h"

#include <string.h>
#include <glib/gstdio.h>

static const char good[] =
  "  bash-1  [000] .....   1.000001: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n";

static int
info (const char *path, gboolean lenient, char **out, char **err)
{
  if (lenient)
    return tu_run (out, err, (const char *[]) { "trace", "info", "--format", "json",
                                                "--lenient", path, NULL });
  return tu_run (out, err, (const char *[]) { "trace", "info", "--format", "json", path, NULL });
}

/* Run info on @contents; expect exit 1 and @msg in stderr, which must start
 * with "slabsim: PATH". */
static void
expect_error (const char *suffix, const char *contents, gssize len, const char *msg)
{
  g_autofree char *path = tu_write_temp (suffix, contents, len);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (info (path, FALSE, &out, &err), 1);
  g_autofree char *prefix = g_strdup_printf ("slabsim: %s", path);
  tu_assert_contains (err, prefix);
  tu_assert_contains (err, msg);
  g_unlink (path);
}

static void
test_malformed_field (void **state)
{
  (void) state;
  g_autofree char *t = g_strconcat (good,
    "  bash-1  [000] .....   1.000002: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=abc bytes_alloc=8 gfp_flags=GFP_KERNEL\n", NULL);
  expect_error (".trace", t, -1,
                ":2: expected a non-negative decimal size after bytes_req=, got \"abc\"");
}

static void
test_negative_size (void **state)
{
  (void) state;
  expect_error (".trace",
    "  bash-1  [000] .....   1.000002: kmem_cache_alloc: call_site=a+0x1/0x2 ptr=ffff888100000040 name=x bytes_req=8 bytes_alloc=-64 gfp_flags=GFP_KERNEL\n", -1,
    ":1: expected a non-negative decimal size after bytes_alloc=, got \"-64\"");
}

static void
test_bad_pointer (void **state)
{
  (void) state;
  expect_error (".trace",
    "  bash-1  [000] .....   1.000002: kfree: call_site=a+0x1/0x2 ptr=ffffzz\n", -1,
    ":1: expected a hexadecimal pointer or (null) after ptr=, got \"ffffzz\"");
}

static void
test_line_cut (void **state)
{
  (void) state;
  g_autofree char *t = g_strconcat (good, good,
    "  bash-1  [000] .....   1.000003: kmalloc: call_site=a+0x1/0x2 ptr=ffff8881", NULL);
  expect_error (".trace", t, -1, ":3: expected field bytes_req= in a kmalloc event "
                "(the last line has no newline: is the file truncated?)");
}

static void
test_missing_field (void **state)
{
  (void) state;
  expect_error (".trace", "  bash-1  [000] .....   1.000003: mm_page_alloc: order=0 migratetype=0 gfp_flags=GFP_KERNEL\n",
                -1, ":1: expected field pfn= in a mm_page_alloc event");
}

static void
test_binary_garbage (void **state)
{
  (void) state;
  guint8 junk[4096];
  guint32 x = 12345;
  for (gsize i = 0; i < sizeof junk; i++)
    {
      x = x * 1103515245u + 12345u;
      junk[i] = x >> 24;
    }
  junk[0] = 0x00;   /* not the gzip or native magic */
  expect_error (".bin", (const char *) junk, sizeof junk, "not a kmem trace: binary data at byte 0");
}

static void
test_binary_line_mid_file (void **state)
{
  (void) state;
  /* the first 64 KiB are text; garbage after that is caught line by line */
  GString *s = g_string_new (NULL);
  while (s->len < 70000)
    g_string_append (s, good);
  g_string_append (s, "\x01\x02\x03 garbage\n");
  guint lines = 0;
  for (gsize i = 0; i < s->len; i++)
    lines += s->str[i] == '\n';
  g_autofree char *msg = g_strdup_printf (":%u: expected a trace line, found binary data", lines);
  expect_error (".trace", s->str, s->len, msg);
  g_string_free (s, TRUE);
}

static void
test_truncated_gzip (void **state)
{
  (void) state;
  g_autofree char *gz = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *data = NULL;
  gsize len;
  assert_true (g_file_get_contents (gz, &data, &len, NULL));
  expect_error (".gz", data, len / 2, "truncated compressed stream");
}

static void
test_no_events (void **state)
{
  (void) state;
  expect_error (".txt", "hello world\nthis is not a trace\n", -1,
                "expected kmem trace events (ftrace or perf script text), found none in 2 lines");
}

static void
test_missing_file (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  assert_int_equal (info ("/nonexistent/x.trace", FALSE, NULL, &err), 1);
  tu_assert_contains (err, "slabsim: /nonexistent/x.trace:");
}

static void
test_usage (void **state)
{
  (void) state;
  g_autofree char *err = NULL, *err2 = NULL, *err3 = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "trace", "info", NULL }), 2);
  tu_assert_contains (err, "expected exactly one TRACE");
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "trace", "info", "--format", "csv", "x", NULL }), 2);
  tu_assert_contains (err2, "unknown format \"csv\"");
  assert_int_equal (tu_run (NULL, &err3, (const char *[]) { "trace", "convert", "x", NULL }), 2);
  tu_assert_contains (err3, "expected -o OUT");
}

/* Numbers that do not fit are errors naming the line, never wrapped: a
 * timestamp past 2^64 ns, a CPU that is negative or past 2^31 - 1, a size
 * of 2^63 or more.  A task name with brackets is not taken for the CPU. */
static void
test_numbers_out_of_range (void **state)
{
  (void) state;
  expect_error (".trace",
    "  bash-1  [000] .....   99999999999999999999.1: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n", -1,
    ":1: expected a timestamp of at most 18446744073.709551615 seconds (nanoseconds in 64 bits), got \"99999999999999999999.1\"");
  expect_error (".trace",
    "  bash-1  [000] .....   18446744073.709551616: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n", -1,
    ":1: expected a timestamp of at most");
  expect_error (".trace",
    "  bash-1  [-01] .....   1.000002: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n", -1,
    ":1: expected a CPU number from 0 to 2147483647 in [cpu], got \"[-01]\"");
  expect_error (".trace",
    "  bash-1  [99999999999] .....   1.000002: kfree: call_site=a+0x1/0x2 ptr=ffff888100000040\n", -1,
    ":1: expected a CPU number from 0 to 2147483647 in [cpu], got \"[99999999999]\"");
  expect_error (".trace",
    "  bash-1  [000] .....   1.000002: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=9223372036854775808 bytes_alloc=8 gfp_flags=GFP_KERNEL\n", -1,
    ":1: expected a size below 2^63 after bytes_req=, got \"9223372036854775808\"");
  /* the largest values that fit read as themselves */
  g_autofree char *path = tu_write_temp (".trace",
    "  a[-1]b-1  [007] .....   18446744073.709551615: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=9223372036854775807 bytes_alloc=9223372036854775807 gfp_flags=GFP_KERNEL\n", -1);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (info (path, FALSE, &out, &err), 0);
  assert_int_equal (tu_json_uint (out, NULL, "bytes_req"), G_GUINT64_CONSTANT (9223372036854775807));
  assert_int_equal (tu_json_uint (out, NULL, "last_ts"), G_MAXUINT64);
  g_unlink (path);
}

static void
test_unknown_kmem_event_is_skipped (void **state)
{
  (void) state;
  g_autofree char *t = g_strconcat (good,
    "  bash-1  [000] .....   1.000002: kmem_cache_alloc_bulk: call_site=a ptr=ffff888100000000 size=8\n",
    "            perf 31103 [001]  1637.361345:            kmem:mm_page_alloc_extfrag: page=0x1 pfn=0x1\n",
    NULL);
  g_autofree char *path = tu_write_temp (".trace", t, -1);
  g_autofree char *out = NULL;
  assert_int_equal (info (path, FALSE, &out, NULL), 0);
  tu_assert_contains (out, "\"kmem_cache_alloc_bulk\": 1");
  tu_assert_contains (out, "\"kmem:mm_page_alloc_extfrag\": 1");
  tu_assert_contains (out, "\"skipped_lines\": 2,");
  tu_assert_contains (out, "\"events\": 1,");
  g_unlink (path);
}

static void
test_lenient (void **state)
{
  (void) state;
  g_autofree char *t = g_strconcat (good,
    "  bash-1  [000] .....   1.000002: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000040 bytes_req=abc bytes_alloc=8 gfp_flags=GFP_KERNEL\n",
    "  bash-1  [000] .....   1.000003: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000080 bytes_req=-1 bytes_alloc=8 gfp_flags=GFP_KERNEL\n",
    "  bash-1  [001] .....   1.000004: kfree: call_site=a+0x1/0x2 ptr=ffff888100000000\n",
    "  bash-1  [001] .....   1.000005: kfree: call_site=a+0x1/0", NULL);
  g_autofree char *path = tu_write_temp (".trace", t, -1);
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (info (path, TRUE, &out, &err), 0);
  tu_assert_contains (out, "\"malformed_lines\": 3,");
  tu_assert_contains (out, "\"allocs\": 1,");
  tu_assert_contains (out, "\"cross_cpu_frees\": 1,");
  tu_assert_contains (err, "skipped 3 malformed lines");
  g_free (out);
  out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "trace", "info", "--lenient", path, NULL }), 0);
  tu_assert_contains (out, "malformed lines: 3");
  g_unlink (path);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_malformed_field),
    cmocka_unit_test (test_negative_size),
    cmocka_unit_test (test_bad_pointer),
    cmocka_unit_test (test_line_cut),
    cmocka_unit_test (test_missing_field),
    cmocka_unit_test (test_binary_garbage),
    cmocka_unit_test (test_binary_line_mid_file),
    cmocka_unit_test (test_truncated_gzip),
    cmocka_unit_test (test_no_events),
    cmocka_unit_test (test_missing_file),
    cmocka_unit_test (test_usage),
    cmocka_unit_test (test_unknown_kmem_event_is_skipped),
    cmocka_unit_test (test_numbers_out_of_range),
    cmocka_unit_test (test_lenient),
  };
  return cmocka_run_group_tests_name ("trace-errors", tests, NULL, NULL);
}
