/* test-single-cpu-locks.c - on a trace whose events all run on one CPU no
 * lock can ever be waited for: there is nobody to wait for.  Every
 * allocator model in every era it models (taken from the registry, so a
 * new era is covered without editing this file) replays single-CPU traces
 * on both 2-socket machines, in both replay modes, and every lock wait
 * counter the report has must be 0.  A wait here is phantom cost: a CPU
 * waiting for its own earlier release, or for a lock that set-up work
 * outside the measured run (boot caches, cache creation, 6.18's per-CPU
 * sheaves) left busy in the future. */
#include "tests/testutil.h"
#include "models/alloc/alloc.h"

#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

/* -a SPEC for every allocator and era, NULL-terminated after @prefix. */
static GPtrArray *
all_specs_args (const char *const *prefix)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  for (const char *const *p = prefix; *p; p++)
    g_ptr_array_add (a, g_strdup (*p));
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    for (const char *const *k = (*o)->kernels; *k; k++)
      {
        g_ptr_array_add (a, g_strdup ("-a"));
        g_ptr_array_add (a, g_strdup_printf ("%s@%s", (*o)->name, *k));
      }
  return a;
}

/* Every "...wait_cycles": N in @json is 0; returns how many there were. */
static guint
assert_no_waits (const char *json, const char *what)
{
  guint n = 0;
  for (const char *p = strstr (json, "wait_cycles\": "); p; p = strstr (p + 1, "wait_cycles\": "))
    {
      guint64 v = g_ascii_strtoull (p + strlen ("wait_cycles\": "), NULL, 10);
      if (v != 0)
        {
          /* Name the result: the last "allocator"/"kernel" before it. */
          g_autofree char *head = g_strndup (json, p - json);
          const char *k = g_strrstr (head, "\"kernel\": ");
          const char *a = g_strrstr (head, "\"allocator\": ");
          print_error ("%s: %.40s %.30s: %.40s\n", what, a ? a : "?", k ? k : "?", p - 12 > json ? p - 12 : p);
          fail ();
        }
      n++;
    }
  return n;
}

static void
run_all (const char *trace, const char *machine, const char *mode, const char *what)
{
  g_autoptr (GPtrArray) args = all_specs_args ((const char *[]) { "run", "--format", "json",
                                                                  "--machine", machine, "--replay",
                                                                  mode, NULL });
  g_ptr_array_add (args, g_strdup (trace));
  g_ptr_array_add (args, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *const *) args->pdata);
  if (rc != 0)
    print_error ("%s: %s\n", what, err);
  assert_int_equal (rc, 0);
  guint n_models = 0;
  for (const SimAllocOps *const *o = sim_alloc_models (); *o; o++)
    for (const char *const *k = (*o)->kernels; *k; k++)
      n_models++;
  /* Two counters per result (engine locks, zone lock): none may be missed. */
  assert_int_equal (assert_no_waits (out, what), 2 * n_models);
}

static void
test_generated_single_cpu (void **state)
{
  (void) state;
  const char *workloads[] = { "hackbench", "netperf-udp", "tbench", "kbuild" };
  const char *kernels[] = { "2.6.23", "6.18" };
  for (guint w = 0; w < G_N_ELEMENTS (workloads); w++)
    for (guint k = 0; k < G_N_ELEMENTS (kernels); k++)
      {
        g_autofree char *trace = tu_trace_gen (workloads[w], kernels[k],
                                               (const char *[]) { "--cpus", "1", "--loops", "4",
                                                                  NULL });
        g_autofree char *what = g_strdup_printf ("%s %s", workloads[w], kernels[k]);
        /* Timed replay on the larger machine for half of them, to keep
         * the test within seconds. */
        if (k == 0)
          run_all (trace, "nehalem-ep-2s", "ordered", what);
        else
          run_all (trace, "sapphire-rapids-2s", "timed", what);
        g_unlink (trace);
      }
}

/* The recorded udp-4k trace (2 CPUs, nearly all on CPU 0) with every event moved to CPU 0:
 * sender and receiver on one CPU, the case issue 10 found the phantom
 * zone-lock wait in (SLAB waited 91,783 cycles on nehalem-ep-2s). */
static void
test_recorded_udp_on_one_cpu (void **state)
{
  (void) state;
  g_autofree char *src = g_build_filename (tu_shared_dir (), "traces", "udp-4k.trace.gz", NULL);
  if (!g_file_test (src, G_FILE_TEST_EXISTS))
    {
      print_message ("no %s: skipped\n", src);
      skip ();
    }
  g_autoptr (GFile) f = g_file_new_for_path (src);
  g_autoptr (GFileInputStream) raw = g_file_read (f, NULL, NULL);
  assert_non_null (raw);
  g_autoptr (GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) plain = g_converter_input_stream_new (G_INPUT_STREAM (raw),
                                                                 G_CONVERTER (dec));
  g_autoptr (GDataInputStream) in = g_data_input_stream_new (plain);
  GString *text = g_string_new (NULL);
  char *line;
  guint moved = 0;
  while ((line = g_data_input_stream_read_line (in, NULL, NULL, NULL)) != NULL)
    {
      /* "  task-pid     [001] ....." : the first "[NNN]" is the CPU. */
      char *cpu = line[0] != '#' ? strstr (line, "] ") : NULL;
      if (cpu && cpu - line >= 4 && cpu[-4] == '[' && strncmp (cpu - 3, "000", 3) != 0)
        {
          memcpy (cpu - 3, "000", 3);
          moved++;
        }
      g_string_append (text, line);
      g_string_append_c (text, '\n');
      g_free (line);
    }
  assert_true (moved > 0);
  g_autofree char *trace = tu_write_temp (".txt", text->str, (gssize) text->len);
  g_string_free (text, TRUE);
  run_all (trace, "nehalem-ep-2s", "ordered", "udp-4k on CPU 0");
  run_all (trace, "sapphire-rapids-2s", "ordered", "udp-4k on CPU 0");
  g_unlink (trace);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_generated_single_cpu),
    cmocka_unit_test (test_recorded_udp_on_one_cpu),
  };
  return cmocka_run_group_tests_name ("single-cpu-locks", tests, NULL, NULL);
}
