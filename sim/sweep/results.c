/* results.c - read and merge the JSON lines of sweeps; see sweep.h.
 *
 * Merge is the check that makes sharding safe: every point of the plan
 * exactly once, all from one plan.  It writes the lines as they were read,
 * ordered by index, so merging the shards of a run gives the bytes of the
 * unsharded run's results.jsonl.
 */
#include "sim/sweep/sweep.h"
#include "sim/report/json-parse.h"
#include "sim/report/report-data.h"

#include <string.h>

void
sim_sweep_line_free (SimSweepLine *l)
{
  if (l == NULL)
    return;
  g_free (l->text);
  g_free (l->id);
  g_free (l->plan);
  g_free (l->where);
  g_free (l);
}

/* Parse the lines of @text (from @origin) and append them. */
static gboolean
read_text (const char *text, gsize len, const char *origin, GPtrArray *lines, GError **error)
{
  const char *p = text, *end = text + len;
  guint lineno = 0;
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *stop = nl ? nl : end;
      lineno++;
      const char *q = p;
      while (q < stop && g_ascii_isspace (*q))
        q++;
      if (q < stop)
        {
          g_autoptr (SimJsonValue) v = sim_json_parse (p, stop - p, origin, lineno, error);
          if (v == NULL)
            return FALSE;
          const char *id = sim_json_str (sim_json_get (v, "id"), NULL);
          const SimJsonValue *idx = sim_json_get (v, "index");
          const SimJsonValue *np = sim_json_get (v, "points");
          const char *plan = sim_json_str (sim_json_get (v, "plan"), NULL);
          if (id == NULL || idx == NULL || np == NULL || plan == NULL
              || sim_json_get (v, "result") == NULL)
            {
              g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_MISMATCH,
                           "%s:%u: not a sweep result line (expected the keys id, index, "
                           "points, plan and result)", origin, lineno);
              return FALSE;
            }
          /* Numbers are checked before use: a crafted -5 must not become
           * four billion points to look for. */
          g_autofree char *where = g_strdup_printf ("%s:%u", origin, lineno);
          guint64 index, n_points;
          if (!sim_json_get_uint (v, "points", 1, SIM_SWEEP_MAX_POINTS, where, &n_points, error)
              || !sim_json_get_uint (v, "index", 0, G_MAXUINT32, where, &index, error))
            return FALSE;
          SimSweepLine *l = g_new0 (SimSweepLine, 1);
          GString *t = g_string_new (NULL);
          sim_json_write_compact (t, v);
          g_string_append_c (t, '\n');
          l->text = g_string_free (t, FALSE);
          l->id = g_strdup (id);
          l->index = (guint) index;
          l->n_points = (guint) n_points;
          l->plan = g_strdup (plan);
          l->where = g_steal_pointer (&where);
          g_ptr_array_add (lines, l);
        }
      p = nl ? nl + 1 : end;
    }
  return TRUE;
}

static gboolean
read_file (const char *path, GPtrArray *lines, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;
  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  return read_text (text, len, path, lines, error);
}

gboolean
sim_sweep_read_lines (const char *path, GPtrArray *lines, GError **error)
{
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return read_file (path, lines, error);
  GPtrArray *names = sim_report_sweep_point_files (path, error);
  if (names == NULL)
    return FALSE;
  gboolean ok = TRUE;
  for (guint i = 0; i < names->len && ok; i++)
    ok = read_file (g_ptr_array_index (names, i), lines, error);
  g_ptr_array_unref (names);
  return ok;
}

static gint
cmp_index (gconstpointer a, gconstpointer b)
{
  const SimSweepLine *x = *(SimSweepLine *const *) a, *y = *(SimSweepLine *const *) b;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return strcmp (x->where, y->where);
}

/* The ids of the plan's points by index, from a sweep directory's plan.json. */
static GPtrArray *
plan_ids (const char *const *dirs, const char *plan)
{
  for (guint i = 0; dirs && dirs[i]; i++)
    {
      g_autofree char *path = g_build_filename (dirs[i], "plan.json", NULL);
      g_autofree char *text = NULL;
      gsize len;
      if (!g_file_get_contents (path, &text, &len, NULL))
        continue;
      g_autoptr (SimJsonValue) v = sim_json_parse (text, (gssize) len, path, 1, NULL);
      if (v == NULL || g_strcmp0 (sim_json_str (sim_json_get (v, "plan"), NULL), plan) != 0)
        continue;
      GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);
      const SimJsonValue *list = sim_json_get (v, "list");
      for (guint k = 0; k < sim_json_len (list); k++)
        g_ptr_array_add (ids, g_strdup (sim_json_str (sim_json_get (sim_json_item (list, k),
                                                                    "id"), "?")));
      return ids;
    }
  return NULL;
}

gboolean
sim_sweep_merge (GPtrArray *lines, const char *const *plan_dirs, GString *out, GError **error)
{
  if (lines->len == 0)
    {
      g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_INCOMPLETE,
                   "no sweep results to merge");
      return FALSE;
    }
  g_ptr_array_sort (lines, cmp_index);
  const SimSweepLine *first = g_ptr_array_index (lines, 0);
  for (guint i = 1; i < lines->len; i++)
    {
      const SimSweepLine *l = g_ptr_array_index (lines, i);
      if (strcmp (l->plan, first->plan) != 0 || l->n_points != first->n_points)
        {
          g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_MISMATCH,
                       "%s: point %s belongs to plan %s (%u points), but %s is of plan %s "
                       "(%u points): results of different sweeps cannot be merged",
                       l->where, l->id, l->plan, l->n_points, first->where, first->plan,
                       first->n_points);
          return FALSE;
        }
    }
  /* Duplicates: the same index twice (equal ids, or a corrupt line). */
  GString *dups = g_string_new (NULL);
  guint n_dups = 0;
  for (guint i = 1; i < lines->len; i++)
    {
      const SimSweepLine *a = g_ptr_array_index (lines, i - 1), *b = g_ptr_array_index (lines, i);
      if (a->index == b->index)
        {
          n_dups++;
          g_string_append_printf (dups, "%s  point %u (%s) at %s and %s", dups->len ? "\n" : "",
                                  b->index, b->id, a->where, b->where);
        }
      else if (b->index >= first->n_points)
        break;
    }
  if (n_dups)
    {
      g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_DUPLICATE,
                   "%u duplicate point%s (merge each shard once):\n%s", n_dups,
                   n_dups == 1 ? "" : "s", dups->str);
      g_string_free (dups, TRUE);
      return FALSE;
    }
  g_string_free (dups, TRUE);
  const SimSweepLine *last = g_ptr_array_index (lines, lines->len - 1);
  if (last->index >= first->n_points)
    {
      g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_MISMATCH,
                   "%s: point index %u is out of range (the plan has %u points)", last->where,
                   last->index, first->n_points);
      return FALSE;
    }
  if (lines->len != first->n_points)
    {
      GPtrArray *ids = plan_ids (plan_dirs, first->plan);
      GString *miss = g_string_new (NULL);
      guint n_miss = 0, k = 0;
      for (guint idx = 0; idx < first->n_points; idx++)
        {
          while (k < lines->len && ((SimSweepLine *) g_ptr_array_index (lines, k))->index < idx)
            k++;
          if (k < lines->len && ((SimSweepLine *) g_ptr_array_index (lines, k))->index == idx)
            continue;
          if (n_miss++ < 50)
            {
              if (ids && idx < ids->len)
                g_string_append_printf (miss, "%s%u (%s)", miss->len ? ", " : "", idx,
                                        (char *) g_ptr_array_index (ids, idx));
              else
                g_string_append_printf (miss, "%s%u", miss->len ? ", " : "", idx);
            }
        }
      g_set_error (error, SIM_SWEEP_ERROR, SIM_SWEEP_ERROR_INCOMPLETE,
                   "%u of %u points missing (plan %s): %s%s%s", n_miss, first->n_points,
                   first->plan, miss->str, n_miss > 50 ? ", ..." : "",
                   ids ? "" : " (no plan.json given: points named by index)");
      g_string_free (miss, TRUE);
      if (ids)
        g_ptr_array_unref (ids);
      return FALSE;
    }
  for (guint i = 0; i < lines->len; i++)
    g_string_append (out, ((SimSweepLine *) g_ptr_array_index (lines, i))->text);
  return TRUE;
}
