/* report-data.c - results read back for "slabsim report"; see report-data.h. */
#include "sim/report/report-data.h"
#include "sim/core/errors.h"

#include <math.h>
#include <string.h>

static void
entry_free (SimReportEntry *e)
{
  g_free (e->id);
  g_ptr_array_unref (e->keys);
  g_ptr_array_unref (e->values);
  g_free (e->machine);
  g_free (e->trace);
  g_free (e->spec);
  g_free (e->label);
  g_free (e->version);
  g_free (e->trace_sha256);
  g_free (e->machine_file);
  g_free (e->machine_sha256);
  if (e->alloc_params)
    g_ptr_array_unref (e->alloc_params);
  g_free (e);
}

SimReportData *
sim_report_data_new (void)
{
  SimReportData *d = g_new0 (SimReportData, 1);
  d->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  d->docs = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_json_value_free);
  d->axes = g_ptr_array_new_with_free_func (g_free);
  d->threshold = 1.0;
  return d;
}

void
sim_report_data_free (SimReportData *d)
{
  if (d == NULL)
    return;
  g_ptr_array_unref (d->entries);
  g_ptr_array_unref (d->docs);
  g_ptr_array_unref (d->axes);
  g_free (d->title);
  g_free (d);
}

const char *
sim_report_entry_param (const SimReportEntry *e, const char *key)
{
  for (guint i = 0; i < e->keys->len; i++)
    if (strcmp (g_ptr_array_index (e->keys, i), key) == 0)
      return g_ptr_array_index (e->values, i);
  return NULL;
}

static SimReportEntry *
entry_new (void)
{
  SimReportEntry *e = g_new0 (SimReportEntry, 1);
  e->keys = g_ptr_array_new_with_free_func (g_free);
  e->values = g_ptr_array_new_with_free_func (g_free);
  return e;
}

static void
entry_set (SimReportEntry *e, const char *key, const char *value)
{
  g_ptr_array_add (e->keys, g_strdup (key));
  g_ptr_array_add (e->values, g_strdup (value));
}

static void
add_title (SimReportData *d, const char *t)
{
  if (d->title && (strcmp (d->title, t) == 0 || strstr (d->title, t)))
    return;
  char *n = d->title ? g_strdup_printf ("%s + %s", d->title, t) : g_strdup (t);
  g_free (d->title);
  d->title = n;
}

/* Reports read few keys of a result; the per-cache counters and the
 * misses by structure are most of its bytes.  Dropping them keeps a
 * report over thousands of points in memory. */
static void
drop_key (SimJsonValue *obj, const char *key)
{
  if (obj == NULL || obj->kind != SIM_JSON_OBJECT)
    return;
  for (guint i = obj->keys->len; i-- > 0;)
    if (strcmp (g_ptr_array_index (obj->keys, i), key) == 0)
      {
        g_ptr_array_remove_index (obj->keys, i);
        g_ptr_array_remove_index (obj->items, i);
      }
}

static void
slim_result (SimJsonValue *r)
{
  SimJsonValue *caches = sim_json_get (r, "caches");
  for (guint i = 0; i < sim_json_len (caches); i++)
    drop_key (sim_json_item (caches, i), "stats");
  drop_key (sim_json_get (r, "memory"), "by_structure");
  drop_key (r, "memory_per_cpu");
}

/* A line of a sweep. */
static gboolean
add_sweep_line (SimReportData *d, SimJsonValue *v, const char *where, GError **error)
{
  /* Checked from its text: a float cast out of range is undefined. */
  guint64 index;
  if (!sim_json_get_uint (v, "index", 0, G_MAXUINT32, where, &index, error))
    return FALSE;
  SimReportEntry *e = entry_new ();
  e->id = g_strdup (sim_json_str (sim_json_get (v, "id"), NULL));
  e->index = (guint) index;
  const SimJsonValue *params = sim_json_get (v, "params");
  for (guint i = 0; i < sim_json_len (params); i++)
    {
      const SimJsonValue *pv = sim_json_item (params, i);
      entry_set (e, g_ptr_array_index (params->keys, i),
                 pv->kind == SIM_JSON_STRING ? pv->text : pv->text ? pv->text : "");
    }
  e->result = sim_json_get (v, "result");
  slim_result ((SimJsonValue *) e->result);
  e->machine = g_strdup (sim_json_str (sim_json_get_path (v, "machine", "name", NULL), "?"));
  e->trace = g_strdup (sim_json_str (sim_json_get (v, "trace"), "?"));
  e->spec = g_strdup (sim_json_str (sim_json_get (v, "spec"), "?"));
  e->version = g_strdup (sim_json_str (sim_json_get_path (v, "tool", "version", NULL), NULL));
  const SimJsonValue *axes = sim_json_get (v, "axes");
  for (guint i = 0; i < sim_json_len (axes); i++)
    {
      const char *a = sim_json_str (sim_json_item (axes, i), NULL);
      gboolean have = FALSE;
      for (guint k = 0; a && k < d->axes->len; k++)
        have |= strcmp (g_ptr_array_index (d->axes, k), a) == 0;
      if (a && !have)
        g_ptr_array_add (d->axes, g_strdup (a));
    }
  add_title (d, sim_json_str (sim_json_get (v, "sweep"), "sweep"));
  g_ptr_array_add (d->entries, e);  return TRUE;
}

/* The results of "slabsim run --format json". */
static void
add_run (SimReportData *d, SimJsonValue *v)
{
  const SimJsonValue *results = sim_json_get (v, "results");
  /* run's JSON describes the trace (format, counts) but not its path. */
  const char *trace_path = sim_json_str (sim_json_get_path (v, "provenance", "trace_path", NULL),
                                        sim_json_str (sim_json_get_path (v, "trace", "path", NULL), NULL));
  g_autofree char *trace_desc = NULL;
  if (trace_path == NULL && sim_json_get (v, "trace"))
    {
      g_autofree char *events = sim_report_num (sim_json_number (sim_json_get_path (v, "trace", "events", NULL), 0), 0);
      trace_desc = g_strdup_printf ("%s trace of %s events",
                                    sim_json_str (sim_json_get_path (v, "trace", "format", NULL), "a"),
                                    events);
      trace_path = trace_desc;
    }
  for (guint i = 0; i < sim_json_len (results); i++)
    {
      const SimJsonValue *r = sim_json_item (results, i);
      SimReportEntry *e = entry_new ();
      e->index = d->entries->len;
      g_autofree char *alloc = g_strdup_printf ("%s@%s", sim_json_str (sim_json_get (r, "allocator"), "?"),
                                                sim_json_str (sim_json_get (r, "kernel"), "?"));
      entry_set (e, "allocator", alloc);
      GString *spec = g_string_new (alloc);
      const SimJsonValue *params = sim_json_get (r, "params");
      /* An allocator's parameters are not axes: each era has its own set,
       * and a comparison of allocators would become a grid of mostly
       * empty cells.  They tell results of one allocator apart instead
       * (sim_report_data_finish). */
      e->alloc_params = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; k < sim_json_len (params); k++)
        {
          const SimJsonValue *pv = sim_json_item (params, k);
          const char *val = pv->kind == SIM_JSON_BOOL ? (pv->b ? "true" : "false")
                            : pv->text ? pv->text : "";
          g_ptr_array_add (e->alloc_params, g_strdup_printf ("%s=%s",
                                                             (char *) g_ptr_array_index (params->keys, k),
                                                             val));
          g_string_append_printf (spec, "%s%s=%s", k ? "," : ":",
                                  (char *) g_ptr_array_index (params->keys, k), val);
        }
      entry_set (e, "replay", sim_json_str (sim_json_get_path (v, "tool", "replay", NULL), "?"));
      entry_set (e, "touch", sim_json_str (sim_json_get_path (v, "tool", "touch", NULL), "?"));
      e->spec = g_string_free (spec, FALSE);
      e->result = r;
      slim_result ((SimJsonValue *) r);
      e->machine = g_strdup (sim_json_str (sim_json_get_path (v, "machine", "name", NULL), "?"));
      e->trace = g_strdup (trace_path ? trace_path : "?");
      const SimJsonValue *prov = sim_json_get (v, "provenance");
      e->version = g_strdup (sim_json_str (sim_json_get (prov, "slabsim_version"),
                                           sim_json_str (sim_json_get_path (v, "tool", "version", NULL), NULL)));
      e->trace_sha256 = g_strdup (sim_json_str (sim_json_get (prov, "trace_sha256"), NULL));
      e->machine_file = g_strdup (sim_json_str (sim_json_get (prov, "machine_file"), NULL));
      e->machine_sha256 = g_strdup (sim_json_str (sim_json_get (prov, "machine_file_sha256"), NULL));
      entry_set (e, "machine", e->machine);
      g_ptr_array_add (d->entries, e);
    }
  add_title (d, "run");
}

static gboolean
add_doc (SimReportData *d, SimJsonValue *v, const char *where, GError **error)
{
  if (sim_json_get (v, "results"))
    add_run (d, v);
  else if (sim_json_get (v, "result") && sim_json_get (v, "params"))
    {
      if (!add_sweep_line (d, v, where, error))
        {
          sim_json_value_free (v);
          return FALSE;
        }
    }
  else
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: neither a sweep result line nor \"slabsim run --format json\" output",
                   where);
      sim_json_value_free (v);
      return FALSE;
    }
  g_ptr_array_add (d->docs, v);
  return TRUE;
}

static gboolean
add_file (SimReportData *d, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;
  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  /* One JSON document (run output, pretty-printed) or JSON lines. */
  const char *p = text;
  while (p < text + len && g_ascii_isspace (*p))
    p++;
  const char *nl = memchr (p, '\n', text + len - p);
  gboolean one_doc = nl == NULL || (nl - p == 1 && *p == '{');
  if (one_doc)
    {
      SimJsonValue *v = sim_json_parse (text, (gssize) len, path, 1, error);
      return v && add_doc (d, v, path, error);
    }
  guint lineno = 0;
  p = text;
  while (p < text + len)
    {
      nl = memchr (p, '\n', text + len - p);
      const char *stop = nl ? nl : text + len;
      lineno++;
      const char *q = p;
      while (q < stop && g_ascii_isspace (*q))
        q++;
      if (q < stop)
        {
          SimJsonValue *v = sim_json_parse (p, stop - p, path, lineno, error);
          g_autofree char *where = g_strdup_printf ("%s:%u", path, lineno);
          if (v == NULL || !add_doc (d, v, where, error))
            return FALSE;
        }
      p = nl ? nl + 1 : stop;
    }
  return TRUE;
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
sim_report_sweep_point_files (const char *dir, GError **error)
{
  g_autofree char *pdir = g_build_filename (dir, "points", NULL);
  GDir *d = g_dir_open (pdir, 0, error);
  if (d == NULL)
    {
      g_prefix_error (error, "%s is not a sweep directory: ", dir);
      return NULL;
    }
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".jsonl"))
      g_ptr_array_add (names, g_build_filename (pdir, name, NULL));
  g_dir_close (d);
  g_ptr_array_sort (names, cmp_str);
  return names;
}

gboolean
sim_report_data_add (SimReportData *d, const char *path, GError **error)
{
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "%s: no such file or directory", path);
      return FALSE;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return add_file (d, path, error);
  GPtrArray *names = sim_report_sweep_point_files (path, error);
  if (names == NULL)
    return FALSE;
  gboolean ok = TRUE;
  for (guint i = 0; i < names->len && ok; i++)
    ok = add_file (d, g_ptr_array_index (names, i), error);
  g_ptr_array_unref (names);
  return ok;
}

static gint
cmp_entry (gconstpointer a, gconstpointer b)
{
  const SimReportEntry *x = *(SimReportEntry *const *) a, *y = *(SimReportEntry *const *) b;
  if (x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return g_strcmp0 (x->id, y->id);
}

const char *
sim_report_short_key (const char *k)
{
  static const char *const prefixes[] = { "slub_", "slab_", "slqb_", "machine.", NULL };
  for (guint i = 0; prefixes[i]; i++)
    if (g_str_has_prefix (k, prefixes[i]) && k[strlen (prefixes[i])])
      return k + strlen (prefixes[i]);
  return k;
}

static const char *
param_key_end (const char *kv)
{
  const char *eq = strchr (kv, '=');
  return eq ? eq : kv + strlen (kv);
}

/* Does @kv's key have another value among the run results of @base? */
static gboolean
param_differs (const SimReportData *d, const char *base, const char *kv)
{
  gsize klen = param_key_end (kv) - kv;
  for (guint i = 0; i < d->entries->len; i++)
    {
      const SimReportEntry *o = g_ptr_array_index (d->entries, i);
      if (o->alloc_params == NULL || g_strcmp0 (sim_report_entry_param (o, "allocator"), base))
        continue;
      const char *val = NULL;
      for (guint k = 0; k < o->alloc_params->len && !val; k++)
        {
          const char *okv = g_ptr_array_index (o->alloc_params, k);
          if (strncmp (okv, kv, klen) == 0 && (okv[klen] == '=' || okv[klen] == '\0'))
            val = okv;
        }
      if (val == NULL || strcmp (val, kv) != 0)
        return TRUE;
    }
  return FALSE;
}

/* Run results: the allocator is the one axis, its value "slub@6.18" or,
 * when one allocator appears with different parameters,
 * "slub@6.18:slub_max_order=1" - only the parameters that differ among
 * that allocator's results, so every column header is unique and short. */
static void
fold_run_params (SimReportData *d)
{
  GPtrArray *labels = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < d->entries->len; i++)
    {
      SimReportEntry *e = g_ptr_array_index (d->entries, i);
      if (e->alloc_params == NULL)
        {
          g_ptr_array_add (labels, NULL);
          continue;
        }
      const char *base = sim_report_entry_param (e, "allocator");
      GString *l = g_string_new (base);
      guint n = 0;
      for (guint k = 0; k < e->alloc_params->len; k++)
        {
          const char *kv = g_ptr_array_index (e->alloc_params, k);
          if (param_differs (d, base, kv))
            g_string_append_printf (l, "%s%s", n++ ? "," : ":", kv);
        }
      g_ptr_array_add (labels, g_string_free (l, FALSE));
    }
  for (guint i = 0; i < d->entries->len; i++)
    {
      SimReportEntry *e = g_ptr_array_index (d->entries, i);
      const char *l = g_ptr_array_index (labels, i);
      for (guint k = 0; l && k < e->keys->len; k++)
        if (strcmp (g_ptr_array_index (e->keys, k), "allocator") == 0)
          {
            g_free (g_ptr_array_index (e->values, k));
            g_ptr_array_index (e->values, k) = g_strdup (l);
          }
    }
  g_ptr_array_unref (labels);
}

gboolean
sim_report_data_finish (SimReportData *d, const char *baseline, GError **error)
{
  if (d->entries->len == 0)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION, "no results to report");
      return FALSE;
    }
  /* Sweep lines keep their point order; run results follow in input order. */
  gboolean all_sweep = TRUE;
  for (guint i = 0; i < d->entries->len; i++)
    all_sweep &= ((SimReportEntry *) g_ptr_array_index (d->entries, i))->id != NULL;
  if (all_sweep)
    g_ptr_array_sort (d->entries, cmp_entry);
  else
    for (guint i = 0; i < d->entries->len; i++)
      ((SimReportEntry *) g_ptr_array_index (d->entries, i))->index = i;

  fold_run_params (d);

  /* Varying parameters: the sweep's axes first (if they vary), then any
   * other parameter whose value differs, by name. */
  GHashTable *all_keys = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *order = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < d->axes->len; i++)
    g_ptr_array_add (order, g_strdup (g_ptr_array_index (d->axes, i)));
  GPtrArray *rest = g_ptr_array_new ();
  for (guint i = 0; i < d->entries->len; i++)
    {
      SimReportEntry *e = g_ptr_array_index (d->entries, i);
      for (guint k = 0; k < e->keys->len; k++)
        if (!g_hash_table_contains (all_keys, g_ptr_array_index (e->keys, k)))
          {
            g_hash_table_add (all_keys, g_ptr_array_index (e->keys, k));
            g_ptr_array_add (rest, g_ptr_array_index (e->keys, k));
          }
    }
  g_ptr_array_sort (rest, cmp_str);
  for (guint i = 0; i < rest->len; i++)
    {
      gboolean dup = FALSE;
      for (guint k = 0; k < order->len; k++)
        dup |= strcmp (g_ptr_array_index (order, k), g_ptr_array_index (rest, i)) == 0;
      if (!dup)
        g_ptr_array_add (order, g_strdup (g_ptr_array_index (rest, i)));
    }
  g_ptr_array_unref (rest);
  g_hash_table_destroy (all_keys);
  g_ptr_array_set_size (d->axes, 0);
  for (guint k = 0; k < order->len; k++)
    {
      const char *key = g_ptr_array_index (order, k);
      const char *first = sim_report_entry_param (g_ptr_array_index (d->entries, 0), key);
      gboolean varies = FALSE;
      for (guint i = 1; i < d->entries->len && !varies; i++)
        varies = g_strcmp0 (first, sim_report_entry_param (g_ptr_array_index (d->entries, i), key)) != 0;
      if (varies)
        g_ptr_array_add (d->axes, g_strdup (key));
    }
  g_ptr_array_unref (order);

  for (guint i = 0; i < d->entries->len; i++)
    {
      SimReportEntry *e = g_ptr_array_index (d->entries, i);
      GString *l = g_string_new (NULL);
      for (guint k = 0; k < d->axes->len; k++)
        {
          const char *key = g_ptr_array_index (d->axes, k);
          const char *v = sim_report_entry_param (e, key);
          if (strcmp (key, "allocator") == 0)
            g_string_append_printf (l, "%s%s", l->len ? " " : "", v ? v : "-");
          else
            g_string_append_printf (l, "%s%s=%s", l->len ? " " : "", sim_report_short_key (key),
                                    v ? v : "-");
        }
      if (l->len == 0)
        g_string_append_printf (l, "#%u", e->index);
      e->label = g_string_free (l, FALSE);
    }

  d->baseline = 0;
  if (baseline)
    {
      guint64 n;
      gboolean found = FALSE;
      for (guint i = 0; i < d->entries->len && !found; i++)
        {
          SimReportEntry *e = g_ptr_array_index (d->entries, i);
          if (e->id && strlen (baseline) >= 4 && g_str_has_prefix (e->id, baseline))
            {
              d->baseline = i;
              found = TRUE;
            }
        }
      if (!found && g_ascii_string_to_unsigned (baseline, 10, 0, G_MAXUINT32, &n, NULL))
        for (guint i = 0; i < d->entries->len && !found; i++)
          if (((SimReportEntry *) g_ptr_array_index (d->entries, i))->index == n)
            {
              d->baseline = i;
              found = TRUE;
            }
      if (!found)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "--baseline %s: no point has that id (or id prefix of 4+ digits) or index "
                       "(indexes 0..%u)", baseline,
                       ((SimReportEntry *) g_ptr_array_index (d->entries, d->entries->len - 1))->index);
          return FALSE;
        }
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Metrics                                                             */

static double
num (const SimJsonValue *r, const char *a, const char *b, const char *c)
{
  const SimJsonValue *v = sim_json_get (r, a);
  if (b)
    v = sim_json_get (v, b);
  if (c)
    v = sim_json_get (v, c);
  return sim_json_number (v, 0.0);
}

static double
fast_pct (const SimJsonValue *r, const char *total_key, const char *fast_key, const char *pct_key)
{
  const SimJsonValue *caches = sim_json_get (r, "caches");
  double tot = 0, fast = 0;
  for (guint i = 0; i < sim_json_len (caches); i++)
    {
      const SimJsonValue *c = sim_json_item (caches, i);
      double t = sim_json_number (sim_json_get (c, total_key), 0);
      const SimJsonValue *f = sim_json_get (c, fast_key);
      tot += t;
      /* Older outputs have only the rounded percentage. */
      fast += f ? sim_json_number (f, 0) : t * sim_json_number (sim_json_get (c, pct_key), 0) / 100.0;
    }
  return tot > 0 ? 100.0 * fast / tot : 0.0;
}

static double
ops (const SimJsonValue *r)
{
  return num (r, "replay", "allocs", NULL) + num (r, "replay", "frees", NULL)
         + num (r, "replay", "implicit_frees", NULL);
}

/* @scale times the memory counter @group.@key per operation; 0 without
 * operations. */
static double
per_op (const SimJsonValue *r, double scale, const char *group, const char *key)
{
  double o = ops (r);
  return o > 0 ? scale * num (r, "memory", group, key) / o : 0.0;
}

static double m_alloc_fast (const SimJsonValue *r) { return fast_pct (r, "alloc", "alloc_fast", "alloc_fast_pct"); }
static double m_free_fast (const SimJsonValue *r) { return fast_pct (r, "free", "free_fast", "free_fast_pct"); }
static double m_l1d_per_op (const SimJsonValue *r) { return per_op (r, 1.0, "l1d", "misses"); }
static double m_hitm_per_op (const SimJsonValue *r) { return per_op (r, 1000.0, "coherence", "hitm"); }
static double m_alloc_cyc (const SimJsonValue *r) { return num (r, "timing", "alloc_cycles_mean", NULL); }
static double m_free_cyc (const SimJsonValue *r) { return num (r, "timing", "free_cycles_mean", NULL); }
static double m_alloc_p99 (const SimJsonValue *r) { return num (r, "timing", "alloc_cycles_p99", NULL); }
static double m_free_p99 (const SimJsonValue *r) { return num (r, "timing", "free_cycles_p99", NULL); }
static double m_footprint (const SimJsonValue *r) { return num (r, "footprint_bytes", NULL, NULL) / 1024.0; }
static double m_lock_wait (const SimJsonValue *r) { return num (r, "timing", "lock_wait_cycles", NULL); }
static double m_page_allocs (const SimJsonValue *r) { return num (r, "page_allocator", "alloc", NULL); }
static double m_mcycles (const SimJsonValue *r) { return num (r, "timing", "sim_cycles", NULL) / 1e6; }
static double m_op_cycles (const SimJsonValue *r)
{
  double o = ops (r);
  return o > 0 ? (num (r, "timing", "alloc_cycles_total", NULL)
                  + num (r, "timing", "free_cycles_total", NULL)) / o : 0.0;
}
static double m_peak (const SimJsonValue *r) { return num (r, "footprint_peak_bytes", NULL, NULL) / 1024.0; }
static double m_l2_per_op (const SimJsonValue *r) { return per_op (r, 1.0, "l2", "misses"); }
static double m_l3_per_op (const SimJsonValue *r) { return per_op (r, 1.0, "l3", "misses"); }
static double m_remote_per_kop (const SimJsonValue *r) { return per_op (r, 1000.0, "dram", "remote"); }
static double m_alloc_ns (const SimJsonValue *r) { return num (r, "timing", "alloc_ns_mean", NULL); }
static double m_free_ns (const SimJsonValue *r) { return num (r, "timing", "free_ns_mean", NULL); }

static const SimReportMetric metrics[] = {
  { "alloc_fast_pct",    "alloc fastpath %",         "alloc f%",  2, TRUE,  m_alloc_fast },
  { "free_fast_pct",     "free fastpath %",          "free f%",   2, TRUE,  m_free_fast },
  { "l1d_misses_per_op", "L1d misses per operation", "L1d/op",    3, FALSE, m_l1d_per_op },
  { "footprint_kib",     "slab memory KiB, end of run", "KiB end", 0, FALSE, m_footprint },
  { "peak_kib",          "slab memory KiB, peak",    "KiB peak",  0, FALSE, m_peak },
  { "alloc_cycles",      "alloc cycles/op (mean)",   "alloc cyc", 1, FALSE, m_alloc_cyc },
  { "free_cycles",       "free cycles/op (mean)",    "free cyc",  1, FALSE, m_free_cyc },
  { "op_cycles",         "cycles per operation (alloc and free, mean)", "cyc/op", 1, FALSE, m_op_cycles },
  { "alloc_ns",          "alloc ns/op (mean, at the machine's clock)", "alloc ns", 1, FALSE, m_alloc_ns },
  { "free_ns",           "free ns/op (mean, at the machine's clock)", "free ns", 1, FALSE, m_free_ns },
  { "alloc_p99",         "alloc cycles p99",         "alloc p99", 0, FALSE, m_alloc_p99 },
  { "free_p99",          "free cycles p99",          "free p99",  0, FALSE, m_free_p99 },
  { "l2_misses_per_op",  "L2 misses per operation",  "L2/op",     3, FALSE, m_l2_per_op },
  { "l3_misses_per_op",  "L3 misses per operation",  "L3/op",     3, FALSE, m_l3_per_op },
  { "remote_dram_per_kop", "remote DRAM accesses per 1000 ops", "remote/k", 2, FALSE, m_remote_per_kop },
  { "hitm_per_kop",      "HITM transfers per 1000 ops", "HITM/kop", 2, FALSE, m_hitm_per_op },
  { "lock_wait_cycles",  "lock wait cycles",         "lockwait",  0, FALSE, m_lock_wait },
  { "page_allocs",       "page allocations",         "pages",     0, FALSE, m_page_allocs },
  { "sim_mcycles",       "simulated Mcycles",        "Mcycles",   3, FALSE, m_mcycles },
};

const SimReportMetric *
sim_report_metrics (guint *n)
{
  *n = G_N_ELEMENTS (metrics);
  return metrics;
}

const SimReportMetric *
sim_report_metric_lookup (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (metrics); i++)
    if (strcmp (metrics[i].name, name) == 0)
      return &metrics[i];
  return NULL;
}

typedef struct {
  const SimJsonValue *c;
  double activity;
} CacheAct;

static gint
cmp_act (gconstpointer a, gconstpointer b)
{
  const CacheAct *x = a, *y = b;
  if (x->activity != y->activity)
    return x->activity > y->activity ? -1 : 1;
  return strcmp (sim_json_str (sim_json_get (x->c, "name"), ""),
                 sim_json_str (sim_json_get (y->c, "name"), ""));
}

GPtrArray *
sim_report_busiest_caches (const SimJsonValue *result, guint max)
{
  const SimJsonValue *caches = sim_json_get (result, "caches");
  GArray *acts = g_array_new (FALSE, FALSE, sizeof (CacheAct));
  for (guint i = 0; i < sim_json_len (caches); i++)
    {
      const SimJsonValue *c = sim_json_item (caches, i);
      CacheAct a = { c, sim_json_number (sim_json_get (c, "alloc"), 0)
                        + sim_json_number (sim_json_get (c, "free"), 0) };
      if (a.activity > 0)
        g_array_append_val (acts, a);
    }
  g_array_sort (acts, cmp_act);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < acts->len && i < max; i++)
    g_ptr_array_add (names, g_strdup (sim_json_str (sim_json_get (g_array_index (acts, CacheAct, i).c,
                                                                  "name"), "?")));
  g_array_unref (acts);
  return names;
}

char *
sim_report_cache_key (const char *name)
{
  const char *num = g_str_has_prefix (name, "size-") ? name + 5
                    : g_str_has_prefix (name, "kmalloc-") ? name + 8 : NULL;
  if (num && g_ascii_isdigit (*num))
    {
      char *end;
      guint64 n = g_ascii_strtoull (num, &end, 10);
      if (*end == 'k' && end[1] == '\0')
        n <<= 10;
      else if (*end == 'M' && end[1] == '\0')
        n <<= 20;
      else if (*end != '\0')
        return g_strdup (name);          /* "size-512(DMA)": its own cache */
      return g_strdup_printf ("kmalloc-%" G_GUINT64_FORMAT, n);
    }
  return g_strdup (name);
}

static gboolean
same_cache_name (const char *a, const char *b)
{
  if (a == NULL || b == NULL)
    return FALSE;
  if (strcmp (a, b) == 0)
    return TRUE;
  g_autofree char *ka = sim_report_cache_key (a), *kb = sim_report_cache_key (b);
  return strcmp (ka, kb) == 0;
}

/* Whether cache @c has an alias naming @name's kmalloc class or cache. */
static gboolean
has_alias (const SimJsonValue *c, const char *name)
{
  const SimJsonValue *aliases = sim_json_get (c, "aliases");
  for (guint k = 0; k < sim_json_len (aliases); k++)
    if (same_cache_name (sim_json_str (sim_json_item (aliases, k), NULL), name))
      return TRUE;
  return FALSE;
}

const SimJsonValue *
sim_report_find_cache (const SimJsonValue *result, const char *name)
{
  /* Three passes, each over all the caches: the cache of that name; the
   * same kmalloc class under this era's name; a merged cache with an alias
   * of it (eras name merged caches differently: ":t-0000256",
   * ":0000256"). */
  const SimJsonValue *caches = sim_json_get (result, "caches");
  for (int pass = 0; pass < 3; pass++)
    for (guint i = 0; i < sim_json_len (caches); i++)
      {
        const SimJsonValue *c = sim_json_item (caches, i);
        const char *cn = sim_json_str (sim_json_get (c, "name"), NULL);
        if (pass == 0 ? g_strcmp0 (cn, name) == 0
            : pass == 1 ? same_cache_name (cn, name) : has_alias (c, name))
          return c;
      }
  return NULL;
}

char *
sim_report_num (double v, int decimals)
{
  char fmt[8], buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_snprintf (fmt, sizeof fmt, "%%.%df", CLAMP (decimals, 0, 6));
  g_ascii_formatd (buf, sizeof buf, fmt, v);
  /* Never print "-0.0". */
  if (buf[0] == '-' && strspn (buf + 1, "0.") == strlen (buf + 1))
    return g_strdup (buf + 1);
  return g_strdup (buf);
}

char *
sim_report_change (double v, double base)
{
  if (base == 0.0)
    return g_strdup (v == 0.0 ? "0.0%" : "-");
  double pc = 100.0 * (v - base) / base;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  /* At most 7 characters with the sign and "%", as the text columns are. */
  g_ascii_formatd (buf, sizeof buf, fabs (pc) < 999.95 ? "%+.1f" : fabs (pc) < 99999.5 ? "%+.0f" : "%+.0e", pc);
  if (strcmp (buf, "-0.0") == 0 || strcmp (buf, "+0.0") == 0)
    return g_strdup ("0.0%");
  return g_strdup_printf ("%s%%", buf);
}
