/* cmd-sweep.c - "slabsim sweep": run a parameter sweep into a directory. */
#include "sim/cli/cli.h"
#include "traces/stream.h"
#include "sim/core/errors.h"
#include "sim/sweep/sweep.h"
#include "sim/sweep/progress.h"

#include <stdio.h>
#include <string.h>

static gboolean
parse_shard (const char *s, const char *what, guint *shard, guint *n, GError **error)
{
  guint64 i, k;
  g_auto (GStrv) parts = g_strsplit (s, "/", 2);
  if (g_strv_length (parts) != 2
      || !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT32, &i, NULL)
      || !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT32, &k, NULL) || i >= k)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "sweep: %s \"%s\" is not I/N with 0 <= I < N (shards are numbered from 0)",
                   what, s);
      return FALSE;
    }
  *shard = (guint) i;
  *n = (guint) k;
  return TRUE;
}

/* Slurm job arrays: SLURM_ARRAY_TASK_ID counts from the array's first
 * index (--array=0-7 or 1-8 alike), SLURM_ARRAY_TASK_COUNT is N. */
static gboolean
shard_from_slurm (guint *shard, guint *n, gboolean *found, GError **error)
{
  const char *id = g_getenv ("SLURM_ARRAY_TASK_ID");
  const char *count = g_getenv ("SLURM_ARRAY_TASK_COUNT");
  const char *min = g_getenv ("SLURM_ARRAY_TASK_MIN");
  *found = FALSE;
  if (id == NULL || count == NULL)
    return TRUE;
  guint64 i, k, lo = 0;
  if (!g_ascii_string_to_unsigned (id, 10, 0, G_MAXUINT32, &i, NULL)
      || !g_ascii_string_to_unsigned (count, 10, 1, G_MAXUINT32, &k, NULL)
      || (min && !g_ascii_string_to_unsigned (min, 10, 0, G_MAXUINT32, &lo, NULL))
      || i < lo || i - lo >= k)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "sweep: SLURM_ARRAY_TASK_ID=%s, SLURM_ARRAY_TASK_MIN=%s and "
                   "SLURM_ARRAY_TASK_COUNT=%s do not give a shard (use a contiguous --array "
                   "range, or --shard I/N)", id, min ? min : "(unset)", count);
      return FALSE;
    }
  *shard = (guint) (i - lo);
  *n = (guint) k;
  *found = TRUE;
  return TRUE;
}

static void
on_progress (guint done, guint total, gpointer data)
{
  sim_progress_update (data, "sweep", done, total, "points");
}

gboolean
sim_cmd_sweep (int argc, char **argv, GError **error)
{
  g_autofree char *output = NULL, *shard_s = NULL;
  gint jobs = 1;
  gboolean list = FALSE, trace_cache = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Directory for the results (created; finished points in it are skipped)", "DIR" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Run N points at once (default 1)", "N" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &shard_s,
      "Run only the points whose index % N == I (I from 0; default from "
      "SLURM_ARRAY_TASK_ID/COUNT, else 0/1)", "I/N" },
    { "trace-cache", 0, 0, G_OPTION_ARG_NONE, &trace_cache,
      "Keep the decoded traces in the decoded-trace cache (also SLABSIM_TRACE_CACHE=1; "
      "docs/performance.md)", NULL },
    { "list", 0, 0, G_OPTION_ARG_NONE, &list,
      "Print the plan (index, id, allocator spec, parameters) and run nothing", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], "SWEEP.yaml",
    "Expand a sweep file (traces, machines, allocators and grid/zip/list axes over\n"
    "allocator parameters, machine keys, touch and replay) into points, run them on N\n"
    "threads and write one JSON line per point into DIR/points/ID.jsonl, and all of\n"
    "them by index into DIR/results.jsonl.  See docs/sweeps.md and docs/cluster.md.\n"
    "Example: slabsim sweep configs/sweeps/slub-order.yaml --jobs 4 -o out/");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  if (argc != 2)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "sweep: expected exactly one SWEEP.yaml (try \"slabsim sweep --help\")");
      return FALSE;
    }
  if (jobs < 1 || jobs > 4096)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "sweep: --jobs takes 1..4096, not %d", jobs);
      return FALSE;
    }
  if (output == NULL && !list)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   "sweep: -o DIR is required");
      return FALSE;
    }
  SimSweepRunOptions opt = { .jobs = (guint) jobs, .shard = 0, .n_shards = 1 };
  g_autofree char *cache_dir = NULL;
  if (trace_cache || sim_trace_cache_env_enabled ())
    {
      cache_dir = sim_trace_cache_default_dir ();
      opt.trace_cache = cache_dir;
      opt.trace_cache_max = sim_trace_cache_default_max ();
    }
  if (shard_s)
    {
      if (!parse_shard (shard_s, "--shard", &opt.shard, &opt.n_shards, error))
        return FALSE;
    }
  else
    {
      gboolean found;
      if (!shard_from_slurm (&opt.shard, &opt.n_shards, &found, error))
        return FALSE;
    }

  g_autoptr (SimSweepPlan) plan = sim_sweep_plan_load (argv[1], error);
  if (plan == NULL)
    return FALSE;
  if (list)
    {
      for (guint i = 0; i < plan->points->len; i++)
        {
          const SimSweepPoint *p = g_ptr_array_index (plan->points, i);
          printf ("%u\t%s\t%s", p->index, p->id, p->spec);
          for (guint k = 0; plan->axes[k]; k++)
            printf ("\t%s=%s", plan->axes[k], sim_sweep_point_get (p, plan->axes[k]));
          printf ("\n");
        }
      return TRUE;
    }
  /* A clamped parameter is said before the points run, once per spec. */
  {
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
    for (guint i = 0; i < plan->points->len; i++)
      {
        const SimSweepPoint *p = g_ptr_array_index (plan->points, i);
        if (p->index % opt.n_shards != opt.shard || !g_hash_table_add (seen, p->spec))
          continue;
        sim_cli_warn_spec ("sweep", p->spec, g_ptr_array_index (plan->machines, p->machine));
      }
  }
  SimProgress prog;
  sim_progress_init (&prog);
  opt.progress = on_progress;
  opt.progress_data = &prog;
  gboolean ok = sim_sweep_run (plan, output, &opt, error);
  sim_progress_finish (&prog);
  if (!ok)
    g_prefix_error (error, "sweep: ");
  else if (prog.enabled)
    fprintf (stderr, "sweep %s: %u points ran, %u already done (shard %u/%u of %u points)\n",
             plan->name, opt.ran, opt.skipped, opt.shard, opt.n_shards, plan->points->len);
  return ok;
}
