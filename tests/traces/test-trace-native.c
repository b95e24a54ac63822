/* test-trace-native.c - the native format: a converted trace reads back
 * event for event, trace info gives the same JSON (but "format"), and
 * corruption is detected and named. */
#include "tests/testutil.h"
#include "tests/traces/one-kmalloc.h"
#include "traces/reader.h"
#include "traces/native.h"

#include <string.h>
#include <glib/gstdio.h>

static char *
convert (const char *in)
{
  g_autofree char *dir = g_dir_make_tmp ("slabsim-native-XXXXXX", NULL);
  assert_non_null (dir);
  char *out = g_build_filename (dir, "t.slabsim", NULL);
  g_autofree char *o = NULL, *err = NULL;
  int rc = tu_run (&o, &err, (const char *[]) { "trace", "convert", in, "-o", out, NULL });
  if (rc != 0)
    print_error ("convert: %s\n", err);
  assert_int_equal (rc, 0);
  tu_assert_contains (o, " events");
  return out;
}

static void
remove_converted (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_unlink (path);
  g_rmdir (dir);
}

static char *
info_json (const char *path)
{
  char *out = NULL;
  g_autofree char *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "trace", "info", "--format", "json", path, NULL });
  if (rc != 0)
    print_error ("info: %s\n", err);
  assert_int_equal (rc, 0);
  return out;
}

/* The JSON without its "format" line. */
static char *
without_format (const char *json)
{
  g_auto (GStrv) lines = g_strsplit (json, "\n", -1);
  GString *s = g_string_new (NULL);
  for (char **l = lines; *l; l++)
    if (strstr (*l, "\"format\":") == NULL)
      g_string_append_printf (s, "%s\n", *l);
  return g_string_free (s, FALSE);
}

static void
round_trip (const char *sample)
{
  g_autofree char *rel = g_build_filename ("traces", "samples", sample, NULL);
  g_autofree char *in = tu_source_path (rel);
  g_autofree char *nat = convert (in);
  g_autofree char *a = info_json (in), *b = info_json (nat);
  tu_assert_contains (b, "\"format\": \"native\"");
  g_autofree char *a2 = without_format (a), *b2 = without_format (b);
  assert_string_equal (a2, b2);

  /* event for event, every field */
  GError *error = NULL;
  g_autoptr (SimTraceReader) rt = sim_trace_reader_open (in, &error);
  g_autoptr (SimTraceReader) rn = sim_trace_reader_open (nat, &error);
  assert_non_null (rt);
  assert_non_null (rn);
  assert_int_equal (sim_trace_reader_format (rn), SIM_TRACE_FORMAT_NATIVE);
  SimTraceEvent et, en;
  guint64 n = 0;
  while (sim_trace_reader_next (rt, &et, &error))
    {
      assert_true (sim_trace_reader_next (rn, &en, &error));
      if (memcmp (&et, &en, sizeof et) != 0)
        {
          print_error ("event %" G_GUINT64_FORMAT " (line %" G_GUINT64_FORMAT ") differs\n", n, et.line);
          fail ();
        }
      n++;
    }
  assert_null (error);
  assert_false (sim_trace_reader_next (rn, &en, &error));
  assert_null (error);
  assert_int_equal (sim_trace_reader_source_format (rn), sim_trace_reader_format (rt));
  for (guint32 id = 1; id <= sim_trace_reader_n_strings (rt); id++)
    assert_string_equal (sim_trace_reader_string (rt, id), sim_trace_reader_string (rn, id));

  /* compact: the text takes ~180 bytes an event, the native file < 32 */
  GStatBuf sn;
  assert_int_equal (g_stat (nat, &sn), 0);
  assert_true (n > 0 && (guint64) sn.st_size < n * 32);
  remove_converted (nat);
}

static void test_rt_hackbench (void **s) { (void) s; round_trip ("hackbench-T-g2-l50.trace.gz"); }
static void test_rt_udp (void **s) { (void) s; round_trip ("udp-4k.trace.gz"); }
static void test_rt_perf (void **s) { (void) s; round_trip ("hackbench-T-g1-l50.perf-script.gz"); }

static void
test_rt_stats (void **state)
{
  (void) state;
  /* lost, skipped, malformed and other events survive conversion */
  const char *t =
    "# tracer: nop\n"
    "  cat-1 [001] ..... 1.000001: kmem_cache_alloc: call_site=a+0x1/0x2 ptr=00000000e70e10e0 name=names_cache bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
    "CPU:1 [LOST 42 EVENTS]\n"
    "  cat-1 [001] ..... 1.000002: sched_switch: prev_comm=cat\n"
    "  cat-1 [001] ..... 1.000003: kfree: call_site=a+0x1/0x2 ptr=zz\n"
    "  cat-1 [000] ..... 1.000004: kmem_cache_free: call_site=a+0x1/0x2 ptr=00000000e70e10e0 name=names_cache\n";
  g_autofree char *in = tu_write_temp (".trace", t, -1);
  g_autofree char *nat = NULL;
  {
    g_autofree char *dir = g_dir_make_tmp ("slabsim-native-XXXXXX", NULL);
    nat = g_build_filename (dir, "t.slabsim", NULL);
    assert_int_equal (tu_run (NULL, NULL, (const char *[]) { "trace", "convert", "--lenient", in, "-o", nat, NULL }), 0);
  }
  char *a = NULL, *b = NULL;
  assert_int_equal (tu_run (&a, NULL, (const char *[]) { "trace", "info", "--format", "json", "--lenient", in, NULL }), 0);
  assert_int_equal (tu_run (&b, NULL, (const char *[]) { "trace", "info", "--format", "json", nat, NULL }), 0);
  tu_assert_contains (b, "\"lost_events\": 42,");
  tu_assert_contains (b, "\"malformed_lines\": 1,");
  tu_assert_contains (b, "\"sched_switch\": 1");
  tu_assert_contains (b, "\"hashed_pointers\": true");
  g_autofree char *a2 = without_format (a), *b2 = without_format (b);
  assert_string_equal (a2, b2);
  g_free (a);
  g_free (b);
  g_unlink (in);
  remove_converted (nat);
}

static void
test_corruption (void **state)
{
  (void) state;
  g_autofree char *in = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *nat = convert (in);
  g_autofree char *data = NULL;
  gsize len;
  assert_true (g_file_get_contents (nat, &data, &len, NULL));
  assert_true (len > 100000);

  /* a flipped bit in the middle: the block is named by number and offset */
  data[len / 2] ^= 0x10;
  g_autofree char *bad = tu_write_temp (".slabsim", data, len);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "trace", "info", bad, NULL }), 1);
  tu_assert_contains (err, "checksum mismatch");
  tu_assert_contains (err, ": block ");
  tu_assert_contains (err, " at byte ");
  data[len / 2] ^= 0x10;

  /* cut short */
  g_autofree char *cut = tu_write_temp (".slabsim", data, len - 100);
  g_autofree char *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "trace", "info", cut, NULL }), 1);
  tu_assert_contains (err2, "truncated?");

  /* cut at a block boundary: the trailer is missing */
  g_autofree char *hdr = tu_write_temp (".slabsim", data, 16);
  g_autofree char *err3 = NULL;
  assert_int_equal (tu_run (NULL, &err3, (const char *[]) { "trace", "info", hdr, NULL }), 1);
  tu_assert_contains (err3, "block 1 at byte 16: the file ends without its trailer block");

  /* a future version */
  data[8] = 99;
  g_autofree char *ver = tu_write_temp (".slabsim", data, len);
  g_autofree char *err4 = NULL;
  assert_int_equal (tu_run (NULL, &err4, (const char *[]) { "trace", "info", ver, NULL }), 1);
  tu_assert_contains (err4, "native trace version 99, expected 1");
  data[8] = 1;

  /* trailing garbage after the trailer */
  g_autofree char *more = g_malloc (len + 4);
  memcpy (more, data, len);
  memcpy (more + len, "junk", 4);
  g_autofree char *tail = tu_write_temp (".slabsim", more, len + 4);
  g_autofree char *err5 = NULL;
  assert_int_equal (tu_run (NULL, &err5, (const char *[]) { "trace", "info", tail, NULL }), 1);
  tu_assert_contains (err5, "unexpected data after the trailer block");

  g_unlink (bad);
  g_unlink (cut);
  g_unlink (hdr);
  g_unlink (ver);
  g_unlink (tail);
  remove_converted (nat);
}

/* A record whose CPU is neither 0..2^31-1 nor "none" (-1) is a corrupt
 * record named by number, not a CPU read as a negative number. */
static void
test_bad_cpu_record (void **state)
{
  (void) state;
  GError *error = NULL;
  g_autoptr (SimTraceReader) r = tt_one_kmalloc_reader (FALSE);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (SimNativeWriter) w = sim_native_writer_new (mem, r, NULL);
  SimTraceEvent ev;
  assert_true (sim_trace_reader_next (r, &ev, &error));
  ev.cpu = G_MININT32;                 /* stored as the pattern 0x80000000 */
  assert_true (sim_native_writer_add (w, &ev, NULL));
  assert_true (sim_native_writer_finish (w, NULL));
  g_autoptr (GBytes) b = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  g_autoptr (GInputStream) back_in = g_memory_input_stream_new_from_bytes (b);
  g_autoptr (SimTraceReader) back = sim_trace_reader_new (back_in, "n", SIM_TRACE_FORMAT_AUTO, &error);
  assert_non_null (back);
  assert_false (sim_trace_reader_next (back, &ev, &error));
  assert_non_null (error);
  tu_assert_contains (error->message, "expected a CPU number from 0 to 2147483647 (or none), found 2147483648");
  g_clear_error (&error);
}

/* Events with every varint length (1 to 10 bytes) in every field, over
 * several blocks, read back alike one at a time and in batches of any size
 * (sim_trace_reader_next_n); a block that claims one record more than it
 * holds fails at the same record, with the same message, either way. */
static GBytes *
extremes_file (SimTraceEvent *evs, guint n, gboolean one_more)
{
  GError *error = NULL;
  g_autoptr (SimTraceReader) r = tt_one_kmalloc_reader (FALSE);
  SimTraceEvent ev;
  assert_true (sim_trace_reader_next (r, &ev, &error));
  guint32 nstr = sim_trace_reader_n_strings (r);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (SimNativeWriter) w = sim_native_writer_new (mem, r, NULL);
  guint64 x = 0x9e3779b97f4a7c15u;
  for (guint i = 0; i < n; i++)
    {
      /* values of 7i bits for field lengths that differ from field to field */
#define V(k) ((x = x * 6364136223846793005u + 1442695040888963407u) >> (63 - ((i + (k)) % 64)))
      SimTraceEvent e = { 0 };
      e.kind = (SimTraceKind) ((i + V (0)) % SIM_TRACE_N_KINDS);
      e.cpu = i % 5 == 0 ? -1 : (gint32) (V (1) & G_MAXINT32);
      e.ts_ns = V (2);
      e.line = V (3);
      e.ptr = V (4);
      e.call_site_id = (guint32) (V (5) % (nstr + 1));
      e.call_site = V (6);
      e.bytes_req = V (7);
      e.bytes_alloc = V (8);
      e.gfp = (guint32) V (9);
      e.gfp_id = (guint32) (V (10) % (nstr + 1));
      e.cache_id = (guint32) (V (11) % (nstr + 1));
      e.comm_id = (guint32) (V (12) % (nstr + 1));
      e.pid = (gint32) V (13);
      e.node = (gint32) V (14);
      e.order = (gint32) V (15);
      e.migratetype = (gint32) V (16);
      e.accounted = (gint32) V (17);
      e.pfn = V (18);
#undef V
      evs[i] = e;
      assert_true (sim_native_writer_add (w, &e, NULL));
    }
  assert_true (sim_native_writer_finish (w, NULL));
  GBytes *b = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  if (!one_more)
    return b;
  /* the first event block (after the header and the S block) claims one
   * record more, its checksum still right */
  gsize len;
  guint8 *d = g_bytes_unref_to_data (b, &len);
  guint8 *h = d + SIM_NATIVE_HEADER_SIZE;
  while (h[0] != SIM_NATIVE_BLOCK_EVENTS_TYPE)
    h += SIM_NATIVE_BLOCK_HEADER_SIZE + (h[4] | h[5] << 8 | h[6] << 16 | (guint32) h[7] << 24);
  h[8]++;
  return g_bytes_new_take (d, len);
}

static SimTraceReader *
open_bytes (GBytes *b)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (b);
  GError *error = NULL;
  SimTraceReader *r = sim_trace_reader_new (in, "x.slabsim", SIM_TRACE_FORMAT_AUTO, &error);
  assert_non_null (r);
  return r;
}

static void
test_batch_extremes (void **state)
{
  (void) state;
  const guint n = 3 * SIM_NATIVE_BLOCK_EVENTS + 123;
  g_autofree SimTraceEvent *want = g_new (SimTraceEvent, n);
  g_autofree SimTraceEvent *got = g_new (SimTraceEvent, n + 1);
  g_autoptr (GBytes) good = extremes_file (want, n, FALSE);
  static const guint batches[] = { 0, 1, 3, 4095, 4096, 5000, 20000 };
  for (guint b = 0; b < G_N_ELEMENTS (batches); b++)
    {
      g_autoptr (SimTraceReader) r = open_bytes (good);
      GError *error = NULL;
      guint k = 0;
      if (batches[b] == 0)        /* one at a time */
        while (k <= n && sim_trace_reader_next (r, &got[k], &error))
          k++;
      else
        for (guint m; (m = sim_trace_reader_next_n (r, got + k, MIN (batches[b], n + 1 - k),
                                                   &error)) > 0; k += m)
          ;
      assert_null (error);
      assert_int_equal (k, n);
      for (guint i = 0; i < n; i++)
        {
          want[i].line = got[i].line;   /* the record number, not what was written */
          if (memcmp (&want[i], &got[i], sizeof got[i]) != 0)
            {
              print_error ("batch %u: event %u differs\n", batches[b], i);
              fail ();
            }
        }
      assert_int_equal (sim_trace_reader_stats (r)->events, n);
      assert_int_equal (sim_trace_reader_next_n (r, got, 10, &error), 0);
      assert_null (error);
    }

  g_autoptr (GBytes) bad = extremes_file (want, n, TRUE);
  g_autofree char *msg = NULL;
  for (guint b = 0; b < G_N_ELEMENTS (batches); b++)
    {
      g_autoptr (SimTraceReader) r = open_bytes (bad);
      GError *error = NULL;
      guint k = 0;
      if (batches[b] == 0)
        while (sim_trace_reader_next (r, &got[k], &error))
          k++;
      else
        while (error == NULL)
          {
            guint m = sim_trace_reader_next_n (r, got + k, MIN (batches[b], n + 1 - k), &error);
            if (m == 0)
              break;
            k += m;
          }
      assert_non_null (error);
      /* the block's records all read, then the one it does not hold */
      assert_int_equal (k, SIM_NATIVE_BLOCK_EVENTS);
      if (msg == NULL)
        msg = g_strdup (error->message);
      assert_string_equal (error->message, msg);
      g_clear_error (&error);
      /* the error stays */
      assert_int_equal (sim_trace_reader_next_n (r, got, 10, &error), 0);
      assert_non_null (error);
      g_clear_error (&error);
    }
  tu_assert_contains (msg, "x.slabsim: block 2 at byte ");
  tu_assert_contains (msg, "record 4096 ");
}

static void
test_crc32 (void **state)
{
  (void) state;
  /* the standard check value of CRC-32/IEEE */
  assert_int_equal (sim_native_crc32 (0, "123456789", 9), 0xcbf43926u);

  /* Every length and alignment against the bit-at-a-time definition, and
   * a checksum continued over two pieces equals the whole one (whichever
   * implementation the build uses: ISA-L's or the tables). */
  guint8 buf[600];
  guint32 x = 12345;
  for (guint i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) ((x = x * 1103515245u + 12345u) >> 16);
  for (gsize off = 0; off < 9; off++)
    for (gsize len = 0; len + off <= sizeof buf; len += 1 + len / 8)
      {
        guint32 c = ~0u;
        for (gsize i = 0; i < len; i++)
          {
            c ^= buf[off + i];
            for (int k = 0; k < 8; k++)
              c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
          }
        c = ~c;
        assert_int_equal (sim_native_crc32 (0, buf + off, len), c);
        gsize half = len / 3;
        assert_int_equal (sim_native_crc32 (sim_native_crc32 (0, buf + off, half),
                                            buf + off + half, len - half), c);
      }
}

/* A malformed line fails the conversion whether or not the caller asks
 * for the error (a sweep's decode-once passes none): no native file of the
 * lines before it is left to replay. */
static void
test_convert_bad_line (void **state)
{
  (void) state;
  g_autofree char *dir = g_dir_make_tmp ("test-native-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.trace", NULL);
  g_autofree char *out = g_build_filename (dir, "bad.slabtr", NULL);
  assert_true (g_file_set_contents (bad,
    "  bash-1  [000] .....   1.000001: kfree: call_site=a+0x1/0x2 ptr=ffff888100000000\n"
    "  bash-1  [000] .....   1.000002: kfree: call_site=a+0x1/0x2 ptr=zfff888100000000\n", -1, NULL));
  assert_false (sim_native_convert (bad, out, FALSE, NULL, NULL));
  assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  GError *error = NULL;
  assert_false (sim_native_convert (bad, out, FALSE, NULL, &error));
  assert_non_null (error);
  tu_assert_contains (error->message, "bad.trace:2: expected a hexadecimal pointer");
  g_clear_error (&error);
  assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  guint64 n = 0;
  assert_true (sim_native_convert (bad, out, TRUE, &n, NULL));   /* lenient: the good line */
  assert_int_equal (n, 1);
  g_unlink (out);
  g_unlink (bad);
  g_rmdir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_rt_hackbench),
    cmocka_unit_test (test_rt_udp),
    cmocka_unit_test (test_rt_perf),
    cmocka_unit_test (test_rt_stats),
    cmocka_unit_test (test_corruption),
    cmocka_unit_test (test_bad_cpu_record),
    cmocka_unit_test (test_batch_extremes),
    cmocka_unit_test (test_crc32),
    cmocka_unit_test (test_convert_bad_line),
  };
  return cmocka_run_group_tests_name ("trace-native", tests, NULL, NULL);
}
