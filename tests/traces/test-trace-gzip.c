/* test-trace-gzip.c - gzip input of several members (sim/core/gzip-input.h):
 * a trace split into members reads as the single-member file does, for the
 * kmem trace readers (trace info, ftrace and perf script) and the din reader
 * of cachesim; garbage after a member and a truncated member are errors. */
#include "tests/testutil.h"
#include "sim/core/gzip-input.h"

#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

static GBytes *
gunzip_file (const char *path)
{
  GError *e = NULL;
  g_autoptr (GFile) f = g_file_new_for_path (path);
  g_autoptr (GFileInputStream) in = g_file_read (f, NULL, &e);
  g_assert_no_error (e);
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) cin = g_converter_input_stream_new (G_INPUT_STREAM (in),
                                                              G_CONVERTER (z));
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  assert_true (g_output_stream_splice (mem, cin, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL,
                                       &e) >= 0);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
}

static void
gzip_append (GByteArray *out, const char *data, gsize len)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) c = g_converter_output_stream_new (mem, G_CONVERTER (z));
  GError *e = NULL;
  assert_true (g_output_stream_write_all (c, data, len, NULL, NULL, &e));
  assert_true (g_output_stream_close (c, NULL, &e));
  g_byte_array_append (out, g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)),
                       (guint) g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem)));
}

/* @sample re-compressed as @parts members, split at line boundaries (an
 * empty member in the middle too, which gzip -d accepts); a new file. */
static char *
split_members (const char *sample, guint parts)
{
  g_autofree char *src = tu_source_path (sample);
  g_autoptr (GBytes) text = gunzip_file (src);
  gsize len;
  const char *t = g_bytes_get_data (text, &len);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  gsize from = 0;
  for (guint i = 1; i <= parts; i++)
    {
      gsize to = i == parts ? len : len * i / parts;
      while (to < len && t[to - 1] != '\n')
        to++;
      gzip_append (out, t + from, to - from);
      if (i == 1)
        gzip_append (out, "", 0);
      from = to;
    }
  const char *suffix = strrchr (sample, '/') + 1;
  g_autofree char *name = g_strdup_printf ("-%s", suffix);
  return tu_write_temp (name, (const char *) out->data, (gssize) out->len);
}

/* stdout of slabsim @args with @path as the last argument, with @path
 * replaced by "TRACE" so two files can be compared. */
static char *
run_on (const char *const *args, const char *path)
{
  GPtrArray *a = g_ptr_array_new ();
  for (const char *const *p = args; *p; p++)
    g_ptr_array_add (a, (gpointer) *p);
  g_ptr_array_add (a, (gpointer) path);
  g_ptr_array_add (a, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int st = tu_run (&out, &err, (const char *const *) a->pdata);
  g_ptr_array_free (a, TRUE);
  if (st != 0)
    {
      print_error ("slabsim on %s: exit %d: %s\n", path, st, err);
      fail ();
    }
  g_auto (GStrv) pieces = g_strsplit (out, path, -1);
  g_autofree char *joined = g_strjoinv ("TRACE", pieces);
  /* run's provenance hashes the file's bytes, which the re-compression
   * changes on purpose: every other byte must agree. */
  g_auto (GStrv) lines = g_strsplit (joined, "\n", -1);
  GString *kept = g_string_new (NULL);
  for (guint i = 0; lines[i]; i++)
    if (!strstr (lines[i], "\"trace_sha256\"") && !strstr (lines[i], "\"trace_bytes\""))
      g_string_append_printf (kept, "%s\n", lines[i]);
  return g_string_free (kept, FALSE);
}

static void
same_output (const char *sample, const char *const *args)
{
  g_autofree char *orig = tu_source_path (sample);
  g_autofree char *split = split_members (sample, 3);
  g_autofree char *a = run_on (args, orig);
  g_autofree char *b = run_on (args, split);
  assert_string_equal (a, b);
  g_unlink (split);
}

static void
test_trace_info_ftrace (void **state)
{
  (void) state;
  same_output ("traces/samples/hackbench-T-g2-l50.trace.gz",
               (const char *[]) { "trace", "info", "--format", "json", NULL });
}

static void
test_trace_info_perf_script (void **state)
{
  (void) state;
  same_output ("traces/samples/hackbench-T-g1-l50.perf-script.gz",
               (const char *[]) { "trace", "info", "--format", "json", NULL });
}

static void
test_run (void **state)
{
  (void) state;
  same_output ("traces/samples/udp-4k.trace.gz",
               (const char *[]) { "run", "--format", "json", NULL });
}

static void
test_cachesim_din (void **state)
{
  (void) state;
  same_output ("traces/samples/walk-200k.din.gz",
               (const char *[]) { "cachesim", "--format", "json", NULL });
}

/* The stream itself: members counted, zero padding ignored, garbage and
 * truncation are errors. */
static GBytes *
read_all (const guint8 *data, gsize len, guint *members, GError **error)
{
  g_autoptr (GInputStream) mem = g_memory_input_stream_new_from_data (data, (gssize) len, NULL);
  g_autoptr (GInputStream) gz = sim_gzip_input_new (mem);
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  /* Small reads, so member ends fall inside a read. */
  char buf[7];
  for (;;)
    {
      gssize n = g_input_stream_read (gz, buf, sizeof buf, NULL, error);
      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      g_output_stream_write_all (out, buf, (gsize) n, NULL, NULL, NULL);
    }
  *members = sim_gzip_input_members (gz);
  g_output_stream_close (out, NULL, NULL);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

static void
test_stream (void **state)
{
  (void) state;
  g_autoptr (GByteArray) a = g_byte_array_new ();
  gzip_append (a, "one\n", 4);
  gzip_append (a, "two\n", 4);
  gzip_append (a, "three\n", 6);
  guint members = 0;
  GError *error = NULL;
  g_autoptr (GBytes) got = read_all (a->data, a->len, &members, &error);
  g_assert_no_error (error);
  assert_int_equal (members, 3);
  assert_int_equal (g_bytes_get_size (got), 14);
  assert_memory_equal (g_bytes_get_data (got, NULL), "one\ntwo\nthree\n", 14);

  /* Zero padding after the last member (tape blocks) is ignored. */
  g_autoptr (GByteArray) padded = g_byte_array_new ();
  g_byte_array_append (padded, a->data, a->len);
  static const guint8 zeros[512];
  g_byte_array_append (padded, zeros, sizeof zeros);
  g_autoptr (GBytes) got2 = read_all (padded->data, padded->len, &members, &error);
  g_assert_no_error (error);
  assert_int_equal (g_bytes_get_size (got2), 14);

  /* Garbage after a member. */
  g_autoptr (GByteArray) junk = g_byte_array_new ();
  g_byte_array_append (junk, a->data, a->len);
  g_byte_array_append (junk, (const guint8 *) "junk", 4);
  g_autoptr (GBytes) bad = read_all (junk->data, junk->len, &members, &error);
  assert_null (bad);
  tu_assert_contains (error->message, "not gzip after gzip member 3");
  g_clear_error (&error);

  /* A member cut short. */
  g_autoptr (GBytes) cut = read_all (a->data, a->len - 5, &members, &error);
  assert_null (cut);
  assert_non_null (error);
  tu_assert_contains (error->message, "member 3");
  g_clear_error (&error);
}

/* Bad data and a bad check value are errors with GIO's words, whichever
 * inflater the build uses (ISA-L or zlib, sim/core/gzip-input.c). */
static void
test_stream_corrupt (void **state)
{
  (void) state;
  GString *text = g_string_new (NULL);
  for (guint i = 0; i < 3000; i++)
    g_string_append_printf (text, "line %u of some text\n", i * 7919u);
  g_autoptr (GByteArray) a = g_byte_array_new ();
  gzip_append (a, text->str, text->len);
  guint members = 0;
  GError *error = NULL;

  /* The CRC-32 in the trailer (the 8 bytes before the end: CRC, length). */
  g_autoptr (GByteArray) crc = g_byte_array_new ();
  g_byte_array_append (crc, a->data, a->len);
  crc->data[crc->len - 8] ^= 0x55;
  g_autoptr (GBytes) b1 = read_all (crc->data, crc->len, &members, &error);
  assert_null (b1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  tu_assert_contains (error->message, "Invalid compressed data");
  g_clear_error (&error);

  /* A block type that does not exist (BTYPE 11) in the first block header,
   * right after the 10-byte gzip header. */
  g_autoptr (GByteArray) blk = g_byte_array_new ();
  g_byte_array_append (blk, a->data, a->len);
  blk->data[10] |= 0x06;
  g_autoptr (GBytes) b2 = read_all (blk->data, blk->len, &members, &error);
  assert_null (b2);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  tu_assert_contains (error->message, "Invalid compressed data");
  g_clear_error (&error);
  g_string_free (text, TRUE);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_trace_info_ftrace),
    cmocka_unit_test (test_trace_info_perf_script),
    cmocka_unit_test (test_run),
    cmocka_unit_test (test_cachesim_din),
    cmocka_unit_test (test_stream),
    cmocka_unit_test (test_stream_corrupt),
  };
  return cmocka_run_group_tests_name ("trace-gzip", tests, NULL, NULL);
}
