/* paths.c - loading the per-era path tables (paths.h, docs/models/paths.md).
 *
 * A table is tab-separated text: '#' lines are comments, the first other
 * line is the header naming the columns below in this order, every further
 * line one path.  The parser is strict because the numbers are the cost
 * model: a row must have every column, counts are plain decimal numbers,
 * the method is one we document, and every path the model charges must
 * have exactly one row.
 */
#include "models/alloc/paths.h"
#include "models/alloc/paths-resources.h"
#include "sim/core/errors.h"

#include <stdlib.h>
#include <string.h>

const guint sim_path_special_instrs[SIM_PATH_N_SPECIAL] = {
  [SIM_PATH_LOCKED]   = 1,
  [SIM_PATH_CX16]     = 1,
  [SIM_PATH_IRQ]      = 5,
  [SIM_PATH_THIS_CPU] = 1,
  [SIM_PATH_PREEMPT]  = 2,
};

enum { COL_PATH, COL_KERNEL, COL_INSTR, COL_LOCKED, COL_CX16, COL_IRQ, COL_THIS_CPU,
       COL_PREEMPT, COL_METHOD, COL_SOURCE, N_COLS };

static const char *const columns[N_COLS] = {
  "path", "kernel", "instr", "locked", "cx16", "irq", "this_cpu", "preempt", "method", "source",
};

/* objdump: counted from a compiled kernel by scripts/count-paths;
 * source: counted from the era's C source with the rule of
 * docs/models/paths.md; estimate: a hand estimate still to be counted. */
static const char *const methods[] = { "objdump", "source", "estimate", NULL };

#define MAX_COUNT 100000u

static gboolean
parse_count (const char *file, guint line, guint col, const char *s, guint32 *out,
             GError **error)
{
  guint64 v = 0;
  gboolean ok = *s != '\0' && strlen (s) <= 6;
  for (const char *p = s; ok && *p; p++)
    if (*p >= '0' && *p <= '9')
      v = v * 10 + (guint) (*p - '0');
    else
      ok = FALSE;
  if (!ok || v > MAX_COUNT)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "%s:%u: column '%s': expected a count 0..%u, got '%s'", file, line,
                   columns[col], MAX_COUNT, s);
      return FALSE;
    }
  *out = (guint32) v;
  return TRUE;
}

static gboolean
parse_row (const char *file, guint line, char **f, SimPathRow *row, GError **error)
{
  if (*f[COL_PATH] == '\0' || *f[COL_KERNEL] == '\0' || *f[COL_SOURCE] == '\0')
    {
      guint col = *f[COL_PATH] == '\0' ? COL_PATH : *f[COL_KERNEL] == '\0' ? COL_KERNEL
                                                                         : COL_SOURCE;
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "%s:%u: column '%s' is empty (expected the path's key, the kernel "
                   "path and where its count comes from)", file, line, columns[col]);
      return FALSE;
    }
  if (!g_strv_contains (methods, f[COL_METHOD]))
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "%s:%u: column 'method': expected objdump, source or estimate, got '%s'",
                   file, line, f[COL_METHOD]);
      return FALSE;
    }
  SimPathCost c = { 0 };
  if (!parse_count (file, line, COL_INSTR, f[COL_INSTR], &c.instr, error))
    return FALSE;
  c.total = c.instr;
  for (guint i = 0; i < SIM_PATH_N_SPECIAL; i++)
    {
      if (!parse_count (file, line, COL_LOCKED + i, f[COL_LOCKED + i], &c.special[i], error))
        return FALSE;
      c.total += c.special[i] * sim_path_special_instrs[i];
    }
  row->path = g_strdup (f[COL_PATH]);
  row->kernel = g_strdup (f[COL_KERNEL]);
  row->method = g_strdup (f[COL_METHOD]);
  row->source = g_strdup (f[COL_SOURCE]);
  row->line = line;
  row->cost = c;
  return TRUE;
}

static void
row_clear (gpointer p)
{
  SimPathRow *r = p;
  g_free (r->path);
  g_free (r->kernel);
  g_free (r->method);
  g_free (r->source);
}

GArray *
sim_paths_rows (const char *file, const char *text, GError **error)
{
  g_return_val_if_fail (file && text, NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (SimPathRow));
  g_array_set_clear_func (rows, row_clear);
  gboolean header = FALSE;
  for (guint i = 0; lines[i]; i++)
    {
      guint line = i + 1;
      const char *l = lines[i];
      if (*l == '\0' || *l == '#')
        continue;
      g_auto (GStrv) f = g_strsplit (l, "\t", -1);
      guint n = g_strv_length (f);
      if (!header)
        {
          for (guint c = 0; c < N_COLS; c++)
            if (n != N_COLS || strcmp (f[c], columns[c]) != 0)
              {
                g_autofree char *want = g_strjoinv ("<TAB>", (char **) columns);
                g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                             "%s:%u: expected the header line %s", file, line, want);
                return NULL;
              }
          header = TRUE;
          continue;
        }
      if (n != N_COLS)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                       "%s:%u: expected %u tab-separated columns, got %u", file, line,
                       (guint) N_COLS, n);
          return NULL;
        }
      for (guint r = 0; r < rows->len; r++)
        if (strcmp (g_array_index (rows, SimPathRow, r).path, f[COL_PATH]) == 0)
          {
            g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_DUPLICATE_KEY,
                         "%s:%u: path '%s' has a row already (line %u)", file, line,
                         f[COL_PATH], g_array_index (rows, SimPathRow, r).line);
            return NULL;
          }
      SimPathRow row = { 0 };
      if (!parse_row (file, line, f, &row, error))
        return NULL;
      g_array_append_val (rows, row);
    }
  if (!header)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                   "%s: no header line", file);
      return NULL;
    }
  return g_steal_pointer (&rows);
}

gboolean
sim_paths_parse (const char *file, const char *text, const char *const *keys, guint n_keys,
                 SimPathCost *out, GError **error)
{
  g_return_val_if_fail (keys && out, FALSE);
  g_autoptr (GArray) rows = sim_paths_rows (file, text, error);
  if (rows == NULL)
    return FALSE;
  g_autofree gboolean *seen = g_new0 (gboolean, MAX (n_keys, 1));
  for (guint r = 0; r < rows->len; r++)
    {
      const SimPathRow *row = &g_array_index (rows, SimPathRow, r);
      guint k;
      for (k = 0; k < n_keys; k++)
        if (strcmp (row->path, keys[k]) == 0)
          break;
      if (k == n_keys)
        {
          g_autoptr (GString) known = g_string_new (NULL);
          for (guint i = 0; i < n_keys; i++)
            g_string_append_printf (known, "%s%s", i ? ", " : "", keys[i]);
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY,
                       "%s:%u: unknown path '%s' (the model charges: %s)", file, row->line,
                       row->path, known->str);
          return FALSE;
        }
      seen[k] = TRUE;
      out[k] = row->cost;
    }
  for (guint k = 0; k < n_keys; k++)
    if (!seen[k])
      {
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_MISSING_KEY,
                     "%s: no row for path '%s'", file, keys[k]);
        return FALSE;
      }
  return TRUE;
}

GBytes *
sim_paths_table_bytes (const char *table, char **file)
{
  g_autofree char *name = g_strdup_printf ("/org/slabsim/paths/%s.tsv", table);
  GBytes *b = g_resource_lookup_data (sim_paths_get_resource (), name,
                                      G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (b && file)
    *file = g_strdup_printf ("configs/paths/%s.tsv", table);
  return b;
}

gboolean
sim_paths_load (const char *table, const char *const *keys, guint n_keys, SimPathCost *out,
                GError **error)
{
  g_autofree char *file = NULL;
  g_autoptr (GBytes) b = sim_paths_table_bytes (table, &file);
  if (b == NULL)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_NOT_FOUND,
                   "no path table '%s' (configs/paths/%s.tsv) in this build", table, table);
      return FALSE;
    }
  /* GResource data is NUL-terminated. */
  return sim_paths_parse (file, g_bytes_get_data (b, NULL), keys, n_keys, out, error);
}

static int
cmp_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char **
sim_paths_tables (void)
{
  char **names = g_resource_enumerate_children (sim_paths_get_resource (), "/org/slabsim/paths/",
                                                G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (names == NULL)                       /* no tables compiled in */
    return g_new0 (char *, 1);
  for (guint i = 0; names[i]; i++)
    if (g_str_has_suffix (names[i], ".tsv"))
      names[i][strlen (names[i]) - 4] = '\0';
  qsort (names, g_strv_length (names), sizeof (char *), cmp_names);
  return names;
}
