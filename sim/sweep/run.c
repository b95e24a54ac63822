/* run.c - run a sweep's points on a pool of worker threads; see sweep.h.
 *
 * Each worker replays one point at a time with its own model, memory
 * system and trace reader; the machines are loaded once by the plan and
 * only read.  sim_replay_run keeps no state outside its arguments (the
 * allocator registry and the native reader's CRC table are initialised
 * under g_once), so points run in parallel give the bytes they give alone.
 *
 * Output files are written whole to a temporary name in the same directory
 * and renamed (sim/core/output.h), so a point's file is either absent or
 * complete, whatever the number of workers, shards or interrupted reruns.
 */
#include "sim/sweep/sweep.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "sim/report/run-report.h"
#include "sim/report/json-parse.h"
#include "traces/json.h"
#include "slabsim-config.h"

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

char *
sim_sweep_point_line (const SimSweepPlan *plan, const SimSweepPoint *p,
                      const SimReplayResult *res)
{
  const SimMachine *m = g_ptr_array_index (plan->machines, p->machine);
  GString *pretty = g_string_new (NULL);
  SimJson j;
  sim_json_init (&j, pretty);
  sim_json_begin_object (&j);
  sim_json_key (&j, "id");
  sim_json_string (&j, p->id);
  sim_json_key (&j, "index");
  sim_json_uint (&j, p->index);
  sim_json_key (&j, "points");
  sim_json_uint (&j, plan->points->len);
  sim_json_key (&j, "plan");
  sim_json_string (&j, plan->plan_id);
  sim_json_key (&j, "sweep");
  sim_json_string (&j, plan->name);
  sim_json_key (&j, "axes");
  sim_json_begin_array (&j);
  for (guint i = 0; plan->axes[i]; i++)
    sim_json_string (&j, plan->axes[i]);
  sim_json_end_array (&j);
  sim_json_key (&j, "params");
  sim_json_begin_object (&j);
  for (guint i = 0; i < p->params->len; i++)
    {
      SimSweepParam *sp = &g_array_index (p->params, SimSweepParam, i);
      sim_json_key (&j, sp->key);
      sim_json_string (&j, sp->value);
    }
  sim_json_end_object (&j);
  sim_json_key (&j, "spec");
  sim_json_string (&j, p->spec);
  sim_json_key (&j, "tool");
  sim_json_begin_object (&j);
  sim_json_key (&j, "name");
  sim_json_string (&j, "slabsim");
  sim_json_key (&j, "version");
  sim_json_string (&j, SLABSIM_VERSION);
  sim_json_key (&j, "replay");
  sim_json_string (&j, p->mode == SIM_REPLAY_TIMED ? "timed" : "ordered");
  sim_json_key (&j, "touch");
  sim_json_string (&j, p->touch == SIM_TOUCH_NONE ? "none"
                   : p->touch == SIM_TOUCH_LINE ? "line" : "object");
  sim_json_end_object (&j);
  sim_json_key (&j, "machine");
  sim_json_begin_object (&j);
  sim_json_key (&j, "name");
  sim_json_string (&j, m->name);
  sim_json_key (&j, "cpus");
  sim_json_uint (&j, m->n_cpus);
  sim_json_key (&j, "sockets");
  sim_json_uint (&j, m->sockets);
  sim_json_key (&j, "numa");
  sim_json_bool (&j, m->numa);
  sim_json_end_object (&j);
  sim_json_key (&j, "trace");
  sim_json_string (&j, p->trace);
  sim_json_key (&j, "result");
  sim_run_report_json_result (&j, m, res);
  sim_json_end_object (&j);

  /* The writer pretty-prints; a JSON line is the same value on one line. */
  g_autoptr (SimJsonValue) v = sim_json_parse (pretty->str, (gssize) pretty->len, "(line)", 1, NULL);
  g_string_free (pretty, TRUE);
  g_return_val_if_fail (v != NULL, NULL);
  GString *out = g_string_new (NULL);
  sim_json_write_compact (out, v);
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}

static char *
point_file (const char *dir, const SimSweepPoint *p)
{
  g_autofree char *name = g_strdup_printf ("%s.jsonl", p->id);
  return g_build_filename (dir, "points", name, NULL);
}

typedef struct {
  const SimSweepPlan *plan;
  const char *dir;
  GMutex lock;
  GCond cond;
  guint done;
  guint failed;
  GError *first_error;
} RunState;

static void
run_point (gpointer data, gpointer user_data)
{
  SimSweepPoint *p = data;
  RunState *st = user_data;
  SimReplayOptions opt = { .machine = g_ptr_array_index (st->plan->machines, p->machine),
                           .mode = p->mode, .touch = p->touch };
  SimReplayResult res;
  GError *error = NULL;
  gboolean ok = sim_replay_run (p->trace_path, p->spec, &opt, &res, &error);
  if (ok)
    {
      g_autofree char *line = sim_sweep_point_line (st->plan, p, &res);
      g_autofree char *path = point_file (st->dir, p);
      ok = sim_output_write (path, line, -1, &error);
    }
  sim_replay_result_clear (&res);
  g_mutex_lock (&st->lock);
  st->done++;
  if (!ok)
    {
      st->failed++;
      g_autofree char *params = g_strdelimit (g_strdup (p->canonical), "\n", ' ');
      g_strchomp (params);
      /* Every failure is reported; the first is also the run's error. */
      g_printerr ("slabsim: sweep: point %u (%s: %s): %s\n", p->index, p->id, params,
                  error->message);
      if (st->first_error == NULL)
        st->first_error = g_error_new (SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_POINT,
                                       "point %u (%s) failed: %s", p->index, p->id,
                                       error->message);
      g_error_free (error);
    }
  g_cond_signal (&st->cond);
  g_mutex_unlock (&st->lock);
}

/* plan.json: what the directory holds, for merge to name missing points.
 * Every shard writes the same bytes, so concurrent renames are harmless. */
static gboolean
write_plan (const SimSweepPlan *plan, const char *dir, GError **error)
{
  GString *o = g_string_new (NULL);
  SimJson j;
  sim_json_init (&j, o);
  sim_json_begin_object (&j);
  sim_json_key (&j, "sweep");
  sim_json_string (&j, plan->name);
  sim_json_key (&j, "plan");
  sim_json_string (&j, plan->plan_id);
  sim_json_key (&j, "points");
  sim_json_uint (&j, plan->points->len);
  sim_json_key (&j, "list");
  sim_json_begin_array (&j);
  for (guint i = 0; i < plan->points->len; i++)
    {
      const SimSweepPoint *p = g_ptr_array_index (plan->points, i);
      sim_json_begin_object (&j);
      sim_json_key (&j, "index");
      sim_json_uint (&j, p->index);
      sim_json_key (&j, "id");
      sim_json_string (&j, p->id);
      sim_json_key (&j, "spec");
      sim_json_string (&j, p->spec);
      sim_json_end_object (&j);
    }
  sim_json_end_array (&j);
  sim_json_end_object (&j);
  g_autofree char *path = g_build_filename (dir, "plan.json", NULL);
  gboolean ok = sim_output_write (path, o->str, (gssize) o->len, error);
  g_string_free (o, TRUE);
  return ok;
}

/* A directory already used by another plan is refused: its points would
 * carry another plan id and merge could not tell them apart. */
static gboolean
check_dir_plan (const SimSweepPlan *plan, const char *dir, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "plan.json", NULL);
  g_autofree char *text = NULL;
  gsize len;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return TRUE;
  g_autoptr (SimJsonValue) v = sim_json_parse (text, (gssize) len, path, 1, error);
  if (v == NULL)
    return FALSE;
  const char *other = sim_json_str (sim_json_get (v, "plan"), "");
  if (strcmp (other, plan->plan_id) != 0)
    {
      g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_MISMATCH,
                   "%s holds the results of another plan (%s, sweep \"%s\"; this one is %s): "
                   "use a new output directory", dir, other,
                   sim_json_str (sim_json_get (v, "sweep"), "?"), plan->plan_id);
      return FALSE;
    }
  return TRUE;
}

/* results.jsonl: every point present in the directory, by index. */
static gboolean
write_results (const SimSweepPlan *plan, const char *dir, guint *present, GError **error)
{
  GString *o = g_string_new (NULL);
  *present = 0;
  for (guint i = 0; i < plan->points->len; i++)
    {
      const SimSweepPoint *p = g_ptr_array_index (plan->points, i);
      g_autofree char *path = point_file (dir, p);
      g_autofree char *text = NULL;
      if (g_file_get_contents (path, &text, NULL, NULL))
        {
          g_string_append (o, text);
          (*present)++;
        }
    }
  g_autofree char *path = g_build_filename (dir, "results.jsonl", NULL);
  gboolean ok = sim_output_write (path, o->str, (gssize) o->len, error);
  g_string_free (o, TRUE);
  return ok;
}

gboolean
sim_sweep_run (const SimSweepPlan *plan, const char *dir, SimSweepRunOptions *opt,
               GError **error)
{
  g_return_val_if_fail (opt->n_shards >= 1 && opt->shard < opt->n_shards, FALSE);
  g_autofree char *pdir = g_build_filename (dir, "points", NULL);
  if (g_mkdir_with_parents (pdir, 0777) != 0)
    {
      int e = errno;
      g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_IO, "cannot create %s: %s",
                   pdir, g_strerror (e));
      return FALSE;
    }
  if (!check_dir_plan (plan, dir, error) || !write_plan (plan, dir, error))
    return FALSE;

  GPtrArray *todo = g_ptr_array_new ();
  opt->ran = opt->skipped = opt->failed = 0;
  for (guint i = 0; i < plan->points->len; i++)
    {
      SimSweepPoint *p = g_ptr_array_index (plan->points, i);
      if (p->index % opt->n_shards != opt->shard)
        continue;
      g_autofree char *path = point_file (dir, p);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        opt->skipped++;
      else
        g_ptr_array_add (todo, p);
    }

  RunState st = { .plan = plan, .dir = dir };
  g_mutex_init (&st.lock);
  g_cond_init (&st.cond);
  if (todo->len > 0)
    {
      GThreadPool *pool = g_thread_pool_new (run_point, &st, (gint) MAX (opt->jobs, 1), TRUE,
                                             NULL);
      /* Queued in index order: with one worker the points run in order. */
      for (guint i = 0; i < todo->len; i++)
        g_thread_pool_push (pool, g_ptr_array_index (todo, i), NULL);
      g_mutex_lock (&st.lock);
      guint reported = G_MAXUINT;
      while (st.done < todo->len)
        {
          if (opt->progress && reported != st.done)
            {
              reported = st.done;
              guint d = st.done;
              g_mutex_unlock (&st.lock);
              opt->progress (d, todo->len, opt->progress_data);
              g_mutex_lock (&st.lock);
              continue;
            }
          g_cond_wait (&st.cond, &st.lock);
        }
      g_mutex_unlock (&st.lock);
      g_thread_pool_free (pool, FALSE, TRUE);
      if (opt->progress)
        opt->progress (todo->len, todo->len, opt->progress_data);
    }
  opt->ran = todo->len - st.failed;
  opt->failed = st.failed;
  g_ptr_array_unref (todo);
  g_mutex_clear (&st.lock);
  g_cond_clear (&st.cond);

  guint present = 0;
  if (!write_results (plan, dir, &present, st.first_error ? NULL : error) && !st.first_error)
    return FALSE;
  if (st.first_error)
    {
      if (st.failed > 1)
        g_prefix_error (&st.first_error, "%u points failed; first: ", st.failed);
      g_propagate_error (error, st.first_error);
      return FALSE;
    }
  return TRUE;
}
