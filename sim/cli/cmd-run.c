/* cmd-run.c - "slabsim run": replay a trace through one or more allocators. */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "sim/config/machine.h"
#include "sim/run/replay.h"
#include "sim/run/cpu-map.h"
#include "sim/report/run-report.h"
#include "sim/report/views.h"
#include "sim/sweep/progress.h"
#include "sim/config/yaml-tree.h"
#include "traces/reader.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  SimProgress bar;
  char *label;
  guint64 total;        /* events of the first run: the next ones replay as many */
} RunProgress;

static void
on_progress (guint64 events, gpointer data)
{
  RunProgress *rp = data;
  sim_progress_update (&rp->bar, rp->label, events, rp->total, "events");
}

/* --view: the view of each allocator's results, one after the other
 * ("== slub@2.6.34 (params)" between them when there are several). */
static gboolean
write_view (const SimView *v, const SimReplayResult *results, guint n, SimFormat fmt,
            const char *output, GError **error)
{
  GString *o = g_string_new (NULL);
  gboolean ok = TRUE;
  if (fmt == SIM_FORMAT_JSON)
    {
      SimJson j;
      sim_json_init (&j, o);
      sim_json_begin_object (&j);
      sim_json_key (&j, "views");
      sim_json_begin_array (&j);
      for (guint i = 0; i < n && ok; i++)
        ok = sim_view_json (v, &results[i], &j, error);
      sim_json_end_array (&j);
      sim_json_end_object (&j);
      g_string_append_c (o, '\n');
    }
  else
    for (guint i = 0; i < n && ok; i++)
      {
        g_autofree char *t = sim_view_text (v, &results[i], error);
        ok = t != NULL;
        if (ok && n > 1)
          g_string_append_printf (o, "%s== %s@%s (%s)\n", i ? "\n" : "", results[i].allocator,
                                  results[i].kernel, results[i].params ? results[i].params : "");
        if (ok)
          g_string_append (o, t);
      }
  if (ok)
    ok = sim_output_write (output, o->str, (gssize) o->len, error);
  if (!ok)
    g_prefix_error (error, "run: ");
  g_string_free (o, TRUE);
  return ok;
}

/* Whether the trace names cache @name (kmem_cache_alloc/free's name=, or
 * "unnamed-SIZE", the replay's name for a cache event without one): read
 * until it turns up, so a good name costs a few events.  When it does not,
 * every name the trace has is added to @names for the suggestion. */
static gboolean
trace_names_cache (const char *trace, gboolean lenient, const char *name, GPtrArray *names,
                   gboolean *found, GError **error)
{
  *found = FALSE;
  g_autoptr (SimTraceReader) r = sim_trace_reader_open (trace, error);
  if (r == NULL)
    return FALSE;
  sim_trace_reader_set_lenient (r, lenient);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  SimTraceEvent ev;
  GError *local = NULL;
  while (sim_trace_reader_next (r, &ev, &local))
    {
      if (ev.kind != SIM_TRACE_CACHE_ALLOC && ev.kind != SIM_TRACE_CACHE_ALLOC_NODE &&
          ev.kind != SIM_TRACE_CACHE_FREE)
        continue;
      const char *s = sim_trace_reader_string (r, ev.cache_id);
      g_autofree char *unnamed = NULL;
      if (*s == '\0')
        {
          if (ev.kind == SIM_TRACE_CACHE_FREE)
            continue;
          s = unnamed = g_strdup_printf ("unnamed-%" G_GUINT64_FORMAT, ev.bytes_req);
        }
      if (strcmp (s, name) == 0)
        {
          *found = TRUE;
          return TRUE;
        }
      if (!g_hash_table_contains (seen, s))
        {
          g_hash_table_add (seen, g_strdup (s));
          g_ptr_array_add (names, g_strdup (s));
        }
    }
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

/* --view slabinfo-r=CACHE names a cache before the replay, which may take
 * minutes: a model has it at the end when it made it at boot (its kmalloc
 * caches and merged aliases, there once the model is set up) or when the
 * trace names it (made on first use).  Each allocator's model is made as
 * its replay will make it, asked for its caches and dropped; the trace is
 * read only when a model does not have the name.  A model that cannot be
 * made is left to the replay to report. */
static gboolean
check_view_cache (const char *cache, const char *trace, const char *const *specs, guint n,
                  const SimReplayOptions *opt, GError **error)
{
  g_autoptr (GPtrArray) trace_names = NULL;
  gboolean in_trace = FALSE;
  for (guint i = 0; i < n; i++)
    {
      SimReplayResult res;
      SimReplay *rp = sim_replay_new (specs[i], opt, &res, NULL);
      if (rp == NULL)
        {
          sim_replay_result_clear (&res);
          continue;
        }
      g_autoptr (GPtrArray) names = sim_replay_cache_names (rp);
      sim_replay_free (rp);
      gboolean ok = g_ptr_array_find_with_equal_func (names, cache, g_str_equal, NULL);
      if (!ok && trace_names == NULL)
        {
          trace_names = g_ptr_array_new_with_free_func (g_free);
          if (!trace_names_cache (trace, opt->lenient, cache, trace_names, &in_trace, error))
            {
              sim_replay_result_clear (&res);
              return FALSE;
            }
        }
      if (!ok && !in_trace)
        {
          for (guint k = 0; k < trace_names->len; k++)
            g_ptr_array_add (names, g_strdup (g_ptr_array_index (trace_names, k)));
          const char *near = sim_yaml_nearest (cache, (const char *const *) names->pdata, names->len);
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "run: --view slabinfo-r=%s: %s@%s has no cache of that name and the "
                       "trace names none%s%s%s", cache, res.allocator, res.kernel,
                       near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
          sim_replay_result_clear (&res);
          return FALSE;
        }
      sim_replay_result_clear (&res);
    }
  return TRUE;
}

gboolean
sim_cmd_run (int argc, char **argv, GError **error)
{
  g_autofree char *machine_name = NULL, *replay = NULL, *format = NULL, *output = NULL;
  g_autofree char *touch = NULL, *emit_path = NULL, *warm = NULL, *cpu_map = NULL;
  g_autofree char *page_events = NULL, *view_name = NULL;
  g_auto (GStrv) sets = NULL, allocators = NULL;
  gint check_every = 0, jobs = 0;
  gboolean check = FALSE, per_cpu = FALSE, lenient = FALSE, trace_cache = FALSE;
  GOptionEntry entries[] = {
    { "machine", 'm', 0, G_OPTION_ARG_STRING, &machine_name,
      "Machine name or YAML file (default nehalem-ep-2s)", "M" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets,
      "Override a machine key, e.g. machine.numa=false (repeatable)", "KEY=VALUE" },
    { "allocator", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &allocators,
      "Allocator spec NAME[@KERNEL][:PARAM=VALUE,...] (repeatable; default slub)", "SPEC" },
    { "cpu-map", 0, 0, G_OPTION_ARG_STRING, &cpu_map,
      "Machine CPU for each trace CPU, e.g. 0,2 or 0-3,8-11 (default compact: socket 0 "
      "first, one thread per core first)", "LIST" },
    { "page-events", 0, 0, G_OPTION_ARG_STRING, &page_events,
      "replay (default): the trace's page traffic other than its slab pages (page cache, "
      "anonymous pages) goes through the model's page allocator; ignore: left out", "MODE" },
    { "replay", 0, 0, G_OPTION_ARG_STRING, &replay,
      "ordered (default): trace order on per-CPU clocks; timed: not before the trace timestamp",
      "MODE" },
    { "touch", 0, 0, G_OPTION_ARG_STRING, &touch,
      "What callers do with objects: none, line (default) or object", "MODEL" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "text (default) or json", "FMT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the report to FILE", "FILE" },
    { "check", 0, 0, G_OPTION_ARG_NONE, &check,
      "Run the model's invariant checker at the end (and every N events with --check-every)", NULL },
    { "check-every", 0, 0, G_OPTION_ARG_INT, &check_every,
      "With --check, also check every N events", "N" },
    { "per-cpu", 0, 0, G_OPTION_ARG_NONE, &per_cpu, "Add per-CPU memory counters", NULL },
    { "lenient", 0, 0, G_OPTION_ARG_NONE, &lenient, "Skip malformed trace lines", NULL },
    { "emit-trace", 0, 0, G_OPTION_ARG_FILENAME, &emit_path,
      "Write the replay as an ftrace-text kmem trace with the model's addresses (gzip for .gz; "
      "one allocator)", "FILE" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      "Replay the allocators on N threads (default: the number of CPUs); the trace is "
      "decoded once whatever N, and the output is the same", "N" },
    { "trace-cache", 0, 0, G_OPTION_ARG_NONE, &trace_cache,
      "Keep the decoded trace in the decoded-trace cache, keyed by the SHA-256 of its bytes "
      "(also SLABSIM_TRACE_CACHE=1; where and how big: docs/performance.md)", NULL },
    { "view", 0, 0, G_OPTION_ARG_STRING, &view_name,
      "Print a view kernel people read instead of the report: slabinfo, slabinfo-A, "
      "slabinfo-r=CACHE, slabinfo-T, slabinfo-a, slabtop or proc-slabinfo", "VIEW" },
    { "warm", 0, 0, G_OPTION_ARG_STRING, &warm,
      "none (default) or unknown-frees: place the objects the trace frees but never allocated "
      "in slabs before the replay", "MODE" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], "TRACE",
    "Replay a kmem trace through allocator models on a simulated machine and report\n"
    "slabinfo-style fastpath counts, cache misses, lock contention and cycles per operation.\n"
    "Example: slabsim run --allocator slub@2.6.34 --allocator slub@6.18 trace.gz");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  if (argc != 2)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "run: expected exactly one TRACE (try \"slabsim run --help\")");
      return FALSE;
    }
  if (jobs < 0)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "run: --jobs takes a positive number, not %d", jobs);
      return FALSE;
    }
  if (check_every < 0 || (check_every > 0 && !check))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   check_every < 0 ? "run: --check-every takes a positive number of events, not %d"
                                   : "run: --check-every %d needs --check (it says how often "
                                     "--check runs the invariant checkers)", check_every);
      return FALSE;
    }
  SimFormat fmt = SIM_FORMAT_TEXT;
  if (format && !sim_cli_format (format, SIM_FORMAT_MASK (SIM_FORMAT_TEXT) |
                                 SIM_FORMAT_MASK (SIM_FORMAT_JSON), &fmt, error))
    return FALSE;
  SimView view = { 0 };
  gboolean have_view = FALSE;
  if (view_name)
    {
      if (!sim_view_parse (view_name, &view, error))
        {
          g_prefix_error (error, "run: ");
          return FALSE;
        }
      have_view = TRUE;
    }
  g_autofree char *view_cache = view.cache;     /* owned here, freed on every return */
  SimReplayOptions opt = { .mode = SIM_REPLAY_ORDERED, .touch = SIM_TOUCH_LINE,
                           .check = check, .check_every = check_every > 0 ? (guint64) check_every : 0,
                           .per_cpu = per_cpu, .lenient = lenient };
  /* The words in the order of the enums they stand for. */
  static const char *const replay_names[] = { "ordered", "timed", NULL };
  static const char *const touch_names[] = { "none", "line", "object", NULL };
  static const char *const warm_names[] = { "none", "unknown-frees", NULL };
  G_STATIC_ASSERT (SIM_REPLAY_TIMED == 1 && SIM_TOUCH_LINE == 1 && SIM_TOUCH_OBJECT == 2);
  guint mode = opt.mode, touch_model = opt.touch, pmode = opt.page_events, warm_mode = 0;
  if (!sim_cli_choice ("run", "--replay", replay, replay_names, &mode, error) ||
      !sim_cli_choice ("run", "--touch", touch, touch_names, &touch_model, error) ||
      !sim_cli_choice ("run", "--page-events", page_events,
                       sim_cli_page_events_names, &pmode, error) ||
      !sim_cli_choice ("run", "--warm", warm, warm_names, &warm_mode, error))
    return FALSE;
  opt.mode = mode;
  opt.touch = touch_model;
  opt.page_events = pmode;
  opt.warm = warm_mode == 1;
  if (emit_path && allocators && g_strv_length (allocators) > 1)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "run: --emit-trace writes one replay: give one --allocator");
      return FALSE;
    }
  if (emit_path && sim_cli_same_file (emit_path, argv[1]))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "run: --emit-trace %s is the input trace; refusing to replace it", emit_path);
      return FALSE;
    }
  if (emit_path && !sim_output_check (emit_path, error))
    {
      g_prefix_error (error, "run: --emit-trace: ");
      return FALSE;
    }
  /* The trace is read more than once: the decode, the provenance hash, a
   * second decode if the decoded-trace spool cannot be written. */
  if (!sim_cli_before_replay ("run", output, argv[1], error))
    return FALSE;

  g_autoptr (SimMachine) machine = sim_cli_machine_load (machine_name, (const char *const *) sets,
                                                         error);
  if (machine == NULL)
    return FALSE;
  opt.machine = machine;
  {
    /* A bad list is a usage error now, not after the first replay. */
    SimCpuMap map;
    if (!sim_cpu_map_init (&map, machine, cpu_map, error))
      {
        g_prefix_error (error, "run: ");
        return FALSE;
      }
    sim_cpu_map_clear (&map);
    opt.cpu_map = cpu_map;
  }

  const char *default_specs[] = { "slub", NULL };
  const char *const *specs = allocators ? (const char *const *) allocators : default_specs;
  guint n = g_strv_length ((char **) specs);
  if (have_view && view.kind == SIM_VIEW_SLABINFO_REPORT &&
      !check_view_cache (view.cache, argv[1], specs, n, &opt, error))
    return FALSE;
  SimReplayResult *results = g_new0 (SimReplayResult, n);
  gboolean ok = TRUE;
  RunProgress prog = { 0 };
  sim_progress_init (&prog.bar);
  if (prog.bar.enabled)
    {
      opt.progress = on_progress;
      opt.progress_data = &prog;
    }
  if (emit_path)
    {
      g_autofree char *hdr = g_strdup_printf ("emitted by slabsim run --emit-trace: %s on %s, "
                                              "replaying %s\nobject and page addresses are "
                                              "the model's (direct map 0xffff888000000000 + "
                                              "simulated physical address)", specs[0],
                                              machine->name, argv[1]);
      opt.emit = sim_trace_emit_open (emit_path, hdr, error);
      if (opt.emit == NULL)
        ok = FALSE;
    }
  g_autofree char *cache_dir = NULL;
  if (trace_cache || sim_trace_cache_env_enabled ())
    {
      cache_dir = sim_trace_cache_default_dir ();
      opt.trace_cache = cache_dir;
      opt.trace_cache_max = sim_trace_cache_default_max ();
    }
  g_autoptr (SimTraceInfo) info = NULL;
  if (fmt == SIM_FORMAT_JSON)
    opt.info = &info;
  if (ok)
    {
      prog.label = n == 1 ? g_strdup_printf ("run %s", specs[0])
                          : g_strdup_printf ("run %s and %u more", specs[0], n - 1);
      prog.bar.start_us = g_get_monotonic_time ();
      ok = sim_replay_run_many (argv[1], specs, n, &opt,
                                jobs > 0 ? (guint) jobs : g_get_num_processors (), results,
                                error);
    }
  sim_progress_finish (&prog.bar);
  if (opt.emit)
    {
      if (ok)
        ok = sim_trace_emit_close (opt.emit, error);
      else
        sim_trace_emit_abort (opt.emit);
      opt.emit = NULL;
    }
  g_free (prog.label);

  /* A trace without one kmem event has nothing to compare: an empty
   * table with exit 0 would pass for a result. */
  if (ok && n > 0 && results[0].events == 0)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_FORMAT,
                   "run: %s: no kmem events to replay (an empty trace%s)", argv[1],
                   results[0].malformed_lines ? ", every event line malformed" : "");
      ok = FALSE;
    }
  for (guint i = 0; ok && i < n; i++)
    sim_cli_warn_held_params ("run", specs[i], results[i].allocator, results[i].kernel,
                              results[i].params);
  /* Say what --check checked (diagnostics go to stderr). */
  for (guint i = 0; ok && check && i < n; i++)
    {
      g_autofree char *every = check_every > 0
        ? g_strdup_printf ("every %d events and at the end", check_every) : g_strdup ("at the end");
      fprintf (stderr, "slabsim run: --check: %s@%s: the model's invariants and the page "
               "allocator's checked %" G_GUINT64_FORMAT " time%s (%s, %" G_GUINT64_FORMAT
               " events): all held\n", results[i].allocator, results[i].kernel,
               results[i].checks, results[i].checks == 1 ? "" : "s", every, results[i].events);
    }

  /* The JSON's trace summary comes from the decode the replays use. */
  if (ok)
    {
      SimRunReport rep = { .trace = argv[1], .machine = machine, .opt = &opt, .info = info,
                           .results = results, .n_results = n };
      g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
      if (have_view)
        ok = write_view (&view, results, n, fmt, output, error);
      else if (fmt == SIM_FORMAT_JSON && !sim_run_report_provenance (&rep, keep, error))
        {
          g_prefix_error (error, "run: ");
          ok = FALSE;
        }
      g_autofree char *text = !ok || have_view ? NULL
                              : fmt == SIM_FORMAT_JSON ? sim_run_report_json (&rep)
                              : sim_run_report_text (&rep);
      /* --lenient must not hide what it dropped: the text says how many. */
      if (text && fmt == SIM_FORMAT_TEXT && lenient)
        {
          char *t = g_strdup_printf ("%s\n--lenient: skipped %" G_GUINT64_FORMAT
                                     " malformed line%s of %s\n", text, results[0].malformed_lines,
                                     results[0].malformed_lines == 1 ? "" : "s", argv[1]);
          g_free (text);
          text = t;
        }
      if (ok && !have_view)
        {
          ok = sim_output_write (output, text, -1, error);
          if (!ok)
            g_prefix_error (error, "run: ");
        }
    }
  for (guint i = 0; i < n; i++)
    sim_replay_result_clear (&results[i]);
  g_free (results);
  return ok;
}
