/* run.c - run a sweep's points on a pool of worker threads; see sweep.h.
 *
 * Each worker replays one point at a time with its own model, memory
 * system and trace reader; the machines are loaded once by the plan and
 * only read.  A trace that two or more points replay is decoded once per
 * process, before the workers start, into slabsim's native format (a
 * private temporary file, or the decoded-trace cache's entry); the points
 * then read that, about 7x faster than the text, and it names the trace in
 * every message.  Memory stays bounded by the workers: a decoded trace is
 * on disk, not in RAM.  sim_replay_run keeps no state outside its arguments (the
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
#include "sim/core/json.h"
#include "traces/stream.h"

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

char *
sim_sweep_point_line (const SimSweepPlan *plan, const SimSweepPoint *p,
                      const SimReplayResult *res, const SimSweepInputs *in)
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
  sim_run_report_json_tool (&j, p->mode, p->touch);
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
  if (in)
    {
      sim_json_key (&j, "inputs");
      sim_json_begin_object (&j);
      sim_json_key (&j, "trace_sha256");
      sim_json_string (&j, sim_sweep_inputs_trace (in, p));
      sim_json_key (&j, "machine_sha256");
      sim_json_string (&j, sim_sweep_inputs_machine (in, p));
      sim_json_end_object (&j);
    }
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
  const SimSweepInputs *inputs;
  const char *dir;
  GHashTable *decoded;          /* trace_path -> native file its points read */
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
                           .mode = p->mode, .touch = p->touch,
                           .read_path = g_hash_table_lookup (st->decoded, p->trace_path) };
  SimReplayResult res;
  GError *error = NULL;
  gboolean ok = sim_replay_run (p->trace_path, p->spec, &opt, &res, &error);
  if (ok)
    {
      g_autofree char *line = sim_sweep_point_line (st->plan, p, &res, st->inputs);
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

/* Whether @p's file holds a result of this point computed from the
 * inputs as they are now.  NULL: yes (*text is the line, when asked for);
 * else why not, or "" when there is no file.  An older slabsim recorded no
 * inputs: such a point is run again. */
static char *
point_stale (const SimSweepPlan *plan, const SimSweepInputs *in, const SimSweepPoint *p,
             const char *dir, char **text_out)
{
  g_autofree char *path = point_file (dir, p);
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return g_strdup ("");
  if (len == 0)
    return g_strdup ("its file is empty");
  const char *nl = memchr (text, '\n', len);
  if (nl == NULL || (gsize) (nl - text) != len - 1)
    return g_strdup ("its file is not one whole line (truncated?)");
  GError *e = NULL;
  g_autoptr (SimJsonValue) v = sim_json_parse (text, (gssize) len, path, 1, &e);
  if (v == NULL)
    {
      char *why = g_strdup_printf ("its file does not parse (%s)", e->message);
      g_error_free (e);
      return why;
    }
  guint64 index;
  if (g_strcmp0 (sim_json_str (sim_json_get (v, "id"), NULL), p->id) != 0
      || g_strcmp0 (sim_json_str (sim_json_get (v, "plan"), NULL), plan->plan_id) != 0
      || !sim_json_get_uint (v, "index", 0, G_MAXUINT32, "", &index, NULL) || index != p->index
      || sim_json_get (v, "result") == NULL)
    return g_strdup ("its file is not this point's result line");
  const SimJsonValue *inputs = sim_json_get (v, "inputs");
  if (inputs == NULL)
    return g_strdup ("its file records no inputs (an older slabsim wrote it)");
  if (g_strcmp0 (sim_json_str (sim_json_get (inputs, "trace_sha256"), NULL),
                 sim_sweep_inputs_trace (in, p)) != 0)
    return g_strdup_printf ("trace %s changed since it ran", p->trace);
  if (g_strcmp0 (sim_json_str (sim_json_get (inputs, "machine_sha256"), NULL),
                 sim_sweep_inputs_machine (in, p)) != 0)
    return g_strdup_printf ("machine %s changed since it ran",
                            sim_sweep_point_get (p, "machine"));
  if (text_out)
    *text_out = g_steal_pointer (&text);
  return NULL;
}

/* results.jsonl: every valid, current point present in the directory, by
 * index; a broken or stale file (another shard's, or one whose rerun
 * failed) is left out and said so. */
static gboolean
write_results (const SimSweepPlan *plan, const SimSweepInputs *in, const char *dir,
               guint *present, GError **error)
{
  GString *o = g_string_new (NULL);
  *present = 0;
  for (guint i = 0; i < plan->points->len; i++)
    {
      const SimSweepPoint *p = g_ptr_array_index (plan->points, i);
      g_autofree char *text = NULL;
      g_autofree char *why = point_stale (plan, in, p, dir, &text);
      if (why == NULL)
        {
          g_string_append (o, text);
          (*present)++;
        }
      else if (*why)
        g_printerr ("slabsim: sweep: point %u (%s): %s; left out of results.jsonl\n",
                    p->index, p->id, why);
    }
  g_autofree char *path = g_build_filename (dir, "results.jsonl", NULL);
  gboolean ok = sim_output_write (path, o->str, (gssize) o->len, error);
  g_string_free (o, TRUE);
  return ok;
}

/* Decode each trace that two or more of @todo's points replay, once: into
 * the decoded-trace cache when it is on, else into @tmpdir (made on first
 * use).  A trace that does not decode is left to its points, which report
 * its error as they would have.  Returns trace_path -> native path. */
static GHashTable *
decode_traces (GPtrArray *todo, const SimSweepRunOptions *opt, char **tmpdir)
{
  GHashTable *decoded = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GHashTable) uses = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < todo->len; i++)
    {
      const SimSweepPoint *p = g_ptr_array_index (todo, i);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (uses, p->trace_path));
      g_hash_table_insert (uses, p->trace_path, GUINT_TO_POINTER (n + 1));
    }
  for (guint i = 0; i < todo->len; i++)
    {
      const SimSweepPoint *p = g_ptr_array_index (todo, i);
      if (GPOINTER_TO_UINT (g_hash_table_lookup (uses, p->trace_path)) < 2
          || g_hash_table_contains (decoded, p->trace_path))
        continue;
      char *nat = NULL;
      if (opt->trace_cache)
        nat = sim_trace_cache_prepare (p->trace_path, opt->trace_cache, opt->trace_cache_max,
                                       FALSE, NULL);
      else
        {
          if (*tmpdir == NULL)
            *tmpdir = g_dir_make_tmp ("slabsim-sweep-XXXXXX", NULL);
          if (*tmpdir)
            {
              g_autofree char *name = g_strdup_printf ("%u.slabtr",
                                                       g_hash_table_size (decoded));
              g_autofree char *dest = g_build_filename (*tmpdir, name, NULL);
              nat = sim_trace_decode_to (p->trace_path, dest, NULL);
            }
        }
      if (nat)
        g_hash_table_insert (decoded, p->trace_path, nat);
      else
        /* not decodable: each point meets the trace's error itself */
        g_hash_table_insert (uses, p->trace_path, GUINT_TO_POINTER (1));
    }
  return decoded;
}

static void
remove_tmpdir (char *tmpdir, GHashTable *decoded)
{
  if (tmpdir == NULL)
    return;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, decoded);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (g_str_has_prefix (v, tmpdir))
      g_unlink (v);
  g_rmdir (tmpdir);
  g_free (tmpdir);
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
  SimSweepInputs *inputs = sim_sweep_inputs_new (plan, dir, error);
  if (inputs == NULL)
    return FALSE;

  GPtrArray *todo = g_ptr_array_new ();
  opt->ran = opt->skipped = opt->failed = 0;
  for (guint i = 0; i < plan->points->len; i++)
    {
      SimSweepPoint *p = g_ptr_array_index (plan->points, i);
      if (p->index % opt->n_shards != opt->shard)
        continue;
      g_autofree char *why = point_stale (plan, inputs, p, dir, NULL);
      if (why == NULL)
        opt->skipped++;
      else
        {
          if (*why)
            g_printerr ("slabsim: sweep: point %u (%s): %s; running it again\n", p->index,
                        p->id, why);
          g_ptr_array_add (todo, p);
        }
    }

  char *tmpdir = NULL;
  RunState st = { .plan = plan, .inputs = inputs, .dir = dir,
                  .decoded = decode_traces (todo, opt, &tmpdir) };
  opt->decoded = g_hash_table_size (st.decoded);
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
  remove_tmpdir (tmpdir, st.decoded);
  g_hash_table_unref (st.decoded);
  g_ptr_array_unref (todo);
  g_mutex_clear (&st.lock);
  g_cond_clear (&st.cond);

  guint present = 0;
  gboolean written = write_results (plan, inputs, dir, &present, st.first_error ? NULL : error);
  sim_sweep_inputs_free (inputs);
  if (!written && !st.first_error)
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
