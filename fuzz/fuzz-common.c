/* fuzz-common.c - feed one input to the reader and the accounting.
 *
 * Each input is read twice, strictly and leniently, from a memory stream
 * with the format forced (gzip is still sniffed, so the decompressor is
 * fuzzed too).  Errors are expected; crashes, leaks and sanitizer reports
 * are what the fuzzer hunts.  A native input is also written back out and
 * re-read, so the writer meets whatever the decoder accepted. */
#include "fuzz/fuzz-common.h"
#include "traces/account.h"
#include "traces/native.h"
#include "sim/core/errors.h"

static void
drain (SimTraceReader *r, gboolean rewrite)
{
  g_autoptr (SimTraceAccount) acc = sim_trace_account_new ();
  g_autoptr (GOutputStream) mem = rewrite ? g_memory_output_stream_new_resizable () : NULL;
  g_autoptr (SimNativeWriter) w = rewrite ? sim_native_writer_new (mem, r, NULL) : NULL;
  SimTraceEvent ev;
  GError *error = NULL;
  while (sim_trace_reader_next (r, &ev, &error))
    {
      sim_trace_account_event (acc, &ev, NULL);
      if (w)
        sim_native_writer_add (w, &ev, NULL);
      (void) sim_trace_reader_string (r, ev.cache_id);
    }
  /* a failed reader stays failed */
  if (error)
    {
      g_clear_error (&error);
      g_assert_false (sim_trace_reader_next (r, &ev, &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
      return;
    }
  if (w && sim_native_writer_finish (w, NULL))
    {
      g_autoptr (GBytes) b = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
      g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (b);
      g_autoptr (SimTraceReader) back = sim_trace_reader_new (in, "rewrite", SIM_TRACE_FORMAT_AUTO, &error);
      /* what we wrote must read back without error, with the same count */
      g_assert_no_error (error);
      guint64 n = 0;
      while (sim_trace_reader_next (back, &ev, &error))
        n++;
      g_assert_no_error (error);
      g_assert_cmpuint (n, ==, sim_trace_reader_stats (r)->events);
    }
}

int
sim_fuzz_run (const uint8_t *data, size_t size, SimTraceFormat format)
{
  /* a GLib warning or critical is a bug: abort so libFuzzer keeps the input */
  sim_install_fatal_log_writer (TRUE);
  for (int lenient = 0; lenient < 2; lenient++)
    {
      g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (data, size, NULL);
      GError *error = NULL;
      g_autoptr (SimTraceReader) r = sim_trace_reader_new (in, "fuzz", format, &error);
      if (r == NULL)
        {
          g_clear_error (&error);
          continue;
        }
      sim_trace_reader_set_lenient (r, lenient);
      drain (r, lenient == 1);
    }
  return 0;
}
