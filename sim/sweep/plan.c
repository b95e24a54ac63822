/* plan.c - sweep files expanded into points; see sweep.h and docs/sweeps.md.
 *
 * The file is a YAML mapping:
 *
 *   name: slub-order
 *   trace: ../../traces/samples/udp-4k.trace.gz    # or a list: a grid axis
 *   machine: nehalem-ep-2s                          # or a list
 *   set: [machine.numa=false]                       # fixed --set overrides
 *   allocator: slub@2.6.34                          # or a list
 *   replay: ordered                                 # or a list
 *   touch: line                                     # or a list
 *   axes:
 *     - grid: { slub_max_order: 0..3, slub_min_objects: [4, 8, 16, 32] }
 *     - zip:  { a: [1, 2], b: [x, y] }              # paired, equal lengths
 *     - list: [ { a: 1, b: x }, { a: 2 } ]          # explicit combinations
 *
 * Points are the cartesian product of the top-level lists (in the order
 * above) and the axes (in file order), the first outermost.  A parameter
 * key is one of trace, machine, allocator, replay, touch; machine.KEY (a
 * --set override of the machine); or else a parameter of the allocator,
 * appended to its spec.  Everything is checked here, before any point
 * runs: machines are loaded with their overrides and every distinct
 * allocator spec is instantiated once, so a typo fails in a second with
 * the position of the value in the file rather than an hour into a sweep.
 */
#include "sim/sweep/sweep.h"
#include "sim/core/errors.h"
#include "sim/core/engine.h"
#include "models/alloc/alloc-spec.h"
#include "models/cache/memsys.h"
#include "models/page/page-alloc.h"

#include <string.h>

G_DEFINE_QUARK (slabsim-sweep-error-quark, sim_sweep_error)

/* The most points a sweep may have (docs/testing.md, "Limits").  Checked on
 * the product of the axes' lengths before anything is expanded: three axes
 * of 0..100000 would otherwise grow until memory runs out. */
#define MAX_POINTS SIM_SWEEP_MAX_POINTS

/* @a * @b, saturating at G_MAXUINT64. */
static guint64
mul_sat (guint64 a, guint64 b)
{
  return b != 0 && a > G_MAXUINT64 / b ? G_MAXUINT64 : a * b;
}

/* "3 x 1000 x 1000 = 3000000" for @lens. */
static char *
product_text (const guint64 *lens, guint n)
{
  GString *s = g_string_new (NULL);
  guint64 prod = 1;
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? " x " : "", lens[i]);
      prod = mul_sat (prod, lens[i]);
    }
  if (prod == G_MAXUINT64)
    g_string_append (s, " = more than 2^64");
  else
    g_string_append_printf (s, " = %" G_GUINT64_FORMAT, prod);
  return g_string_free (s, FALSE);
}

static const char *const point_keys[] = { "trace", "machine", "allocator", "replay", "touch", NULL };
static const char *const replay_names[] = { "ordered", "timed", NULL };
static const char *const touch_names[] = { "none", "line", "object", NULL };

/* One parameter assignment with the node it came from. */
typedef struct {
  const char *key;
  char *value;
  const SimYamlNode *node;
} Assign;

/* One axis: a list of combinations, each a GPtrArray of Assign. */
typedef GPtrArray Axis;

static void
assign_free (gpointer p)
{
  Assign *a = p;
  g_free (a->value);
  g_free (a);
}

static GPtrArray *
combo_new (void)
{
  return g_ptr_array_new_with_free_func (assign_free);
}

static void
combo_add (GPtrArray *combo, const char *key, const char *value, const SimYamlNode *node)
{
  Assign *a = g_new0 (Assign, 1);
  a->key = key;
  a->value = g_strdup (value);
  a->node = node;
  g_ptr_array_add (combo, a);
}

/* The values of @node: a scalar (an integer range "A..B" expands), or a
 * non-empty sequence of scalars.  Returns a GPtrArray of Assign with @key. */
static GPtrArray *
values_of (const SimYamlNode *node, const char *key, GError **error)
{
  GPtrArray *vals = combo_new ();
  if (node->kind == SIM_YAML_SCALAR)
    {
      const char *s = node->scalar;
      /* A range is digits..digits; anything else (a path with "..") is a value. */
      const char *dots = node->quoted ? NULL : strstr (s, "..");
      if (dots && (dots == s || !g_ascii_isdigit (dots[-1]) || !g_ascii_isdigit (dots[2])
                   || strspn (s, "0123456789") != (gsize) (dots - s)))
        dots = NULL;
      if (dots)
        {
          g_autofree char *lo_s = g_strndup (s, dots - s);
          guint64 lo, hi;
          if (!g_ascii_string_to_unsigned (g_strstrip (lo_s), 10, 0, G_MAXUINT32, &lo, NULL)
              || !g_ascii_string_to_unsigned (dots + 2, 10, 0, G_MAXUINT32, &hi, NULL)
              || hi < lo || hi - lo > 100000)
            {
              sim_yaml_error (error, node, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                              "bad range \"%s\" (expected FIRST..LAST, unsigned integers, "
                              "FIRST <= LAST)", s);
              g_ptr_array_unref (vals);
              return NULL;
            }
          for (guint64 v = lo; v <= hi; v++)
            {
              char buf[32];
              g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, v);
              combo_add (vals, key, buf, node);
            }
        }
      else
        combo_add (vals, key, s, node);
      return vals;
    }
  if (node->kind != SIM_YAML_SEQUENCE)
    {
      sim_yaml_error (error, node, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "expected a value or a list of values for \"%s\"", key);
      g_ptr_array_unref (vals);
      return NULL;
    }
  if (node->children->len == 0)
    {
      sim_yaml_error (error, node, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "empty list of values for \"%s\" (give at least one)", key);
      g_ptr_array_unref (vals);
      return NULL;
    }
  for (guint i = 0; i < node->children->len; i++)
    {
      const SimYamlNode *c = g_ptr_array_index (node->children, i);
      if (c->kind != SIM_YAML_SCALAR)
        {
          sim_yaml_error (error, c, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                          "expected a scalar value for \"%s\"", key);
          g_ptr_array_unref (vals);
          return NULL;
        }
      combo_add (vals, key, c->scalar, c);
    }
  return vals;
}

/* An axis of one key: one combination per value. */
static Axis *
axis_from_values (GPtrArray *vals)
{
  Axis *axis = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < vals->len; i++)
    {
      Assign *a = g_ptr_array_index (vals, i);
      GPtrArray *combo = combo_new ();
      combo_add (combo, a->key, a->value, a->node);
      g_ptr_array_add (axis, combo);
    }
  return axis;
}

/* Product of two axes (@a outer). */
static Axis *
axis_product (Axis *a, Axis *b)
{
  Axis *out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < a->len; i++)
    for (guint j = 0; j < b->len; j++)
      {
        GPtrArray *combo = combo_new ();
        GPtrArray *ca = g_ptr_array_index (a, i), *cb = g_ptr_array_index (b, j);
        for (guint k = 0; k < ca->len; k++)
          {
            Assign *x = g_ptr_array_index (ca, k);
            combo_add (combo, x->key, x->value, x->node);
          }
        for (guint k = 0; k < cb->len; k++)
          {
            Assign *x = g_ptr_array_index (cb, k);
            combo_add (combo, x->key, x->value, x->node);
          }
        g_ptr_array_add (out, combo);
      }
  return out;
}

typedef struct {
  const char *origin;
  char *base_dir;
  GPtrArray *axes;              /* of Axis */
  GHashTable *axis_key_node;    /* key -> first node (duplicate check) */
  GPtrArray *axis_order;        /* keys varying in axes:, file order */
  GPtrArray *top_order;         /* top-level lists (trace: [a, b]), after them */
  gboolean in_axes;
  SimSweepPlan *plan;
} Loader;

static gboolean
claim_key (Loader *ld, const char *key, const SimYamlNode *node, gboolean varies,
           GError **error)
{
  const SimYamlNode *prev = g_hash_table_lookup (ld->axis_key_node, key);
  if (prev)
    {
      sim_yaml_error (error, node, TRUE, SIM_CONFIG_ERROR_DUPLICATE_KEY,
                      "parameter \"%s\" is already set at %u:%u (a parameter may vary "
                      "in one axis only)", key, prev->key_line ? prev->key_line : prev->line,
                      prev->key_line ? prev->key_col : prev->col);
      return FALSE;
    }
  g_hash_table_insert (ld->axis_key_node, (gpointer) key, (gpointer) node);
  if (varies)
    g_ptr_array_add (ld->in_axes ? ld->axis_order : ld->top_order,
                     g_strdup (key));
  return TRUE;
}

/* @node as a @kind (sim_yaml_expect's error otherwise) with at least one
 * entry; an empty one is a BAD_VALUE error at the node, worded by @fmt. */
static gboolean
expect_entries (const SimYamlNode *node, SimYamlKind kind, GError **error,
                const char *fmt, ...) G_GNUC_PRINTF (4, 5);

static gboolean
expect_entries (const SimYamlNode *node, SimYamlKind kind, GError **error, const char *fmt, ...)
{
  if (!sim_yaml_expect (node, kind, error))
    return FALSE;
  if (node->children->len > 0)
    return TRUE;
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  sim_yaml_error (error, node, FALSE, SIM_CONFIG_ERROR_BAD_VALUE, "%s", msg);
  return FALSE;
}

static gboolean
load_grid_or_zip (Loader *ld, const SimYamlNode *map, gboolean zip, GError **error)
{
  if (!expect_entries (map, SIM_YAML_MAPPING, error, "empty %s (expected KEY: [VALUES...] entries)",
                       zip ? "zip" : "grid"))
    return FALSE;
  Axis *acc = NULL;
  guint zip_len = 0;
  const SimYamlNode *first = NULL;
  if (!zip)
    {
      /* The size of the grid, before any of it is built. */
      g_autofree guint64 *lens = g_new0 (guint64, map->children->len);
      guint64 prod = 1;
      for (guint i = 0; i < map->children->len; i++)
        {
          const SimYamlNode *c = g_ptr_array_index (map->children, i);
          GPtrArray *vals = values_of (c, c->key, error);
          if (vals == NULL)
            return FALSE;
          lens[i] = vals->len;
          prod = mul_sat (prod, vals->len);
          g_ptr_array_unref (vals);
        }
      if (prod > MAX_POINTS)
        {
          g_autofree char *what = product_text (lens, map->children->len);
          sim_yaml_error (error, map, FALSE, SIM_CONFIG_ERROR_INVALID,
                          "this grid has %s points; a sweep may have at most %u",
                          what, MAX_POINTS);
          return FALSE;
        }
    }
  for (guint i = 0; i < map->children->len; i++)
    {
      const SimYamlNode *c = g_ptr_array_index (map->children, i);
      GPtrArray *vals = values_of (c, c->key, error);
      if (vals == NULL || !claim_key (ld, c->key, c, TRUE, error))
        {
          if (vals)
            g_ptr_array_unref (vals);
          if (acc)
            g_ptr_array_unref (acc);
          return FALSE;
        }
      if (zip)
        {
          if (acc == NULL)
            {
              acc = axis_from_values (vals);
              zip_len = vals->len;
              first = c;
            }
          else if (vals->len != zip_len)
            {
              sim_yaml_error (error, c, TRUE, SIM_CONFIG_ERROR_BAD_VALUE,
                              "zip: \"%s\" has %u values but \"%s\" has %u (zipped lists "
                              "must have equal lengths)", c->key, vals->len, first->key, zip_len);
              g_ptr_array_unref (vals);
              g_ptr_array_unref (acc);
              return FALSE;
            }
          else
            for (guint k = 0; k < vals->len; k++)
              {
                Assign *a = g_ptr_array_index (vals, k);
                combo_add (g_ptr_array_index (acc, k), a->key, a->value, a->node);
              }
        }
      else
        {
          Axis *ax = axis_from_values (vals);
          if (acc == NULL)
            acc = ax;
          else
            {
              Axis *p = axis_product (acc, ax);
              g_ptr_array_unref (acc);
              g_ptr_array_unref (ax);
              acc = p;
            }
        }
      g_ptr_array_unref (vals);
    }
  g_ptr_array_add (ld->axes, acc);
  return TRUE;
}

static gboolean
load_list (Loader *ld, const SimYamlNode *seq, GError **error)
{
  if (!expect_entries (seq, SIM_YAML_SEQUENCE, error,
                       "empty list (expected mappings of KEY: VALUE, one per point)"))
    return FALSE;
  Axis *axis = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_ptr_array_add (ld->axes, axis);
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean ok = TRUE;
  for (guint i = 0; i < seq->children->len && ok; i++)
    {
      const SimYamlNode *item = g_ptr_array_index (seq->children, i);
      if (!expect_entries (item, SIM_YAML_MAPPING, error, "empty point (expected KEY: VALUE entries)"))
        {
          ok = FALSE;
          break;
        }
      GPtrArray *combo = combo_new ();
      g_ptr_array_add (axis, combo);
      for (guint k = 0; k < item->children->len; k++)
        {
          const SimYamlNode *c = g_ptr_array_index (item->children, k);
          if (c->kind != SIM_YAML_SCALAR)
            {
              sim_yaml_error (error, c, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                              "expected one value for \"%s\" (a list point sets each key once)",
                              c->key);
              ok = FALSE;
              break;
            }
          if (!g_hash_table_contains (seen, c->key))
            {
              if (!claim_key (ld, c->key, c, TRUE, error))
                {
                  ok = FALSE;
                  break;
                }
              g_hash_table_add (seen, c->key);
            }
          combo_add (combo, c->key, c->scalar, c);
        }
    }
  g_hash_table_destroy (seen);
  return ok;
}

static gboolean
load_axes (Loader *ld, const SimYamlNode *axes, GError **error)
{
  static const char *const kinds[] = { "grid", "zip", "list", NULL };
  if (!expect_entries (axes, SIM_YAML_SEQUENCE, error,
                       "empty list of axes (expected - grid: ..., - zip: ... or - list: ...)"))
    return FALSE;
  for (guint i = 0; i < axes->children->len; i++)
    {
      const SimYamlNode *ax = g_ptr_array_index (axes->children, i);
      if (!sim_yaml_check_keys (ax, kinds, error))
        return FALSE;
      if (ax->children->len != 1)
        {
          sim_yaml_error (error, ax, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                          "an axis is one of grid, zip or list (found %u keys; "
                          "write each as its own list item)", ax->children->len);
          return FALSE;
        }
      const SimYamlNode *body = g_ptr_array_index (ax->children, 0);
      gboolean ok = strcmp (body->key, "list") == 0
        ? load_list (ld, body, error)
        : load_grid_or_zip (ld, body, strcmp (body->key, "zip") == 0, error);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static char *
sha_prefix (const char *text)
{
  g_autofree char *hex = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
  return g_strndup (hex, SIM_SWEEP_ID_LEN);
}

static gint
cmp_param (gconstpointer a, gconstpointer b)
{
  return strcmp (((const SimSweepParam *) a)->key, ((const SimSweepParam *) b)->key);
}

static gboolean
is_machine_key (const char *key)
{
  return g_str_has_prefix (key, "machine.");
}

static gboolean
is_alloc_param (const char *key)
{
  return !g_strv_contains (point_keys, key) && !is_machine_key (key);
}

/* Check an allocator spec by instantiating the model on @m, the way the
 * replay does, so every error the replay would give is given now.  @mem is
 * the machine's memory system, made once per machine and shared by the
 * checks: building one (its cache arrays) costs milliseconds, ten
 * thousand specs made the plan take half a minute, and what the caches
 * hold never decides whether a model can be created.  For the same reason
 * the first try gives the page allocator 4 MiB per node instead of the
 * replay's 1 GiB (its struct page array is most of the cost); creating a
 * model needs far less, and only if that try fails is the spec checked
 * again with the replay's memory, whose answer is the one reported. */
static gboolean check_spec_with (const char *spec_text, const SimMachine *m, SimMemSys *mem,
                                 guint64 managed_bytes, GError **error);

static gboolean
check_spec (const char *spec_text, const SimMachine *m, SimMemSys *mem, GError **error)
{
  if (check_spec_with (spec_text, m, mem, 4 << 20, NULL))
    return TRUE;
  return check_spec_with (spec_text, m, mem, 0, error);
}

static gboolean
check_spec_with (const char *spec_text, const SimMachine *m, SimMemSys *mem,
                 guint64 managed_bytes, GError **error)
{
  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (spec_text, error);
  if (spec == NULL)
    return FALSE;
  const SimAllocOps *ops = sim_alloc_model_find (spec->name, error);
  if (ops == NULL)
    return FALSE;
  gboolean ok = FALSE;
  SimEngine *eng = sim_engine_new (m->n_cpus);
  SimPageParams pp = { .era = SIM_PAGE_ERA_6_18, .managed_bytes = managed_bytes };
  SimPageAlloc *pages = sim_page_alloc_new (m, mem, &pp, error);
  if (pages)
    {
      SimAllocEnv env = { .machine = m, .mem = mem, .eng = eng, .n_cpus = m->n_cpus,
                          .seed = m->seed, .pages = pages };
      gpointer model = ops->create (spec, &env, error);
      if (model)
        {
          ops->destroy (model);
          ok = TRUE;
        }
      sim_page_alloc_free (pages);
    }
  sim_engine_free (eng);
  return ok;
}

/* Turn one combination of every axis into a point. */
static gboolean
make_point (Loader *ld, GPtrArray *combo, GHashTable *machines, GHashTable *specs_ok,
            GPtrArray *mems, GError **error)
{
  SimSweepPlan *plan = ld->plan;
  SimSweepPoint *p = g_new0 (SimSweepPoint, 1);
  p->index = plan->points->len;
  p->params = g_array_new (FALSE, TRUE, sizeof (SimSweepParam));
  g_ptr_array_add (plan->points, p);

  const Assign *by_key[G_N_ELEMENTS (point_keys)] = { NULL };
  for (guint i = 0; i < combo->len; i++)
    {
      Assign *a = g_ptr_array_index (combo, i);
      SimSweepParam sp = { g_strdup (a->key), g_strdup (a->value) };
      g_array_append_val (p->params, sp);
      for (guint k = 0; point_keys[k]; k++)
        if (strcmp (a->key, point_keys[k]) == 0)
          by_key[k] = a;
    }
  g_array_sort (p->params, cmp_param);
  GString *canon = g_string_new (NULL);
  for (guint i = 0; i < p->params->len; i++)
    {
      SimSweepParam *sp = &g_array_index (p->params, SimSweepParam, i);
      g_string_append_printf (canon, "%s=%s\n", sp->key, sp->value);
    }
  p->canonical = g_string_free (canon, FALSE);
  g_autofree char *id = sha_prefix (p->canonical);
  memcpy (p->id, id, SIM_SWEEP_ID_LEN + 1);

  /* trace */
  const Assign *tr = by_key[0];
  p->trace = g_strdup (tr->value);
  p->trace_path = g_path_is_absolute (tr->value) || ld->base_dir == NULL
    ? g_strdup (tr->value) : g_build_filename (ld->base_dir, tr->value, NULL);
  if (!g_file_test (p->trace_path, G_FILE_TEST_IS_REGULAR))
    {
      sim_yaml_error (error, tr->node, FALSE, SIM_CONFIG_ERROR_NOT_FOUND,
                      "trace \"%s\" not found (%s; relative paths are relative to the "
                      "sweep file)", tr->value, p->trace_path);
      return FALSE;
    }
  /* replay, touch */
  for (guint k = 3; k <= 4; k++)
    {
      const char *const *names = k == 3 ? replay_names : touch_names;
      guint v = 0;
      for (; names[v] && strcmp (names[v], by_key[k]->value) != 0; v++)
        ;
      if (names[v] == NULL)
        {
          g_autofree char *list = g_strjoinv (", ", (char **) names);
          sim_yaml_error (error, by_key[k]->node, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                          "unknown %s \"%s\" (expected one of: %s)", point_keys[k],
                          by_key[k]->value, list);
          return FALSE;
        }
      if (k == 3)
        p->mode = v == 1 ? SIM_REPLAY_TIMED : SIM_REPLAY_ORDERED;
      else
        p->touch = v == 0 ? SIM_TOUCH_NONE : v == 1 ? SIM_TOUCH_LINE : SIM_TOUCH_OBJECT;
    }

  /* machine with its overrides (params are sorted, so the key is canonical) */
  GPtrArray *sets = g_ptr_array_new_with_free_func (g_free);
  GString *mkey = g_string_new (by_key[1]->value);
  const SimYamlNode *mnode = by_key[1]->node;
  for (guint i = 0; i < combo->len; i++)
    {
      Assign *a = g_ptr_array_index (combo, i);
      if (is_machine_key (a->key))
        {
          g_ptr_array_add (sets, g_strdup_printf ("%s=%s", a->key, a->value));
          mnode = a->node;
        }
    }
  for (guint i = 0; i < p->params->len; i++)
    {
      SimSweepParam *sp = &g_array_index (p->params, SimSweepParam, i);
      if (is_machine_key (sp->key))
        g_string_append_printf (mkey, "\n%s=%s", sp->key, sp->value);
    }
  gpointer idx;
  if (g_hash_table_lookup_extended (machines, mkey->str, NULL, &idx))
    p->machine = GPOINTER_TO_UINT (idx);
  else
    {
      g_ptr_array_add (sets, NULL);
      GError *local = NULL;
      SimMachine *m = sim_machine_load (by_key[1]->value, (const char *const *) sets->pdata,
                                        &local);
      if (m == NULL)
        {
          g_autofree char *where = g_strdup_printf ("%s:%u:%u: ", mnode->origin, mnode->line,
                                                    mnode->col);
          g_propagate_prefixed_error (error, local, "%s", where);
          g_ptr_array_unref (sets);
          g_string_free (mkey, TRUE);
          return FALSE;
        }
      p->machine = plan->machines->len;
      g_ptr_array_add (plan->machines, m);
      g_hash_table_insert (machines, g_strdup (mkey->str), GUINT_TO_POINTER (p->machine));
    }
  g_ptr_array_unref (sets);
  g_string_free (mkey, TRUE);

  /* allocator spec: the base, then its parameters in key order */
  GString *spec = g_string_new (by_key[2]->value);
  gboolean has_params = strchr (spec->str, ':') != NULL;
  for (guint i = 0; i < p->params->len; i++)
    {
      SimSweepParam *sp = &g_array_index (p->params, SimSweepParam, i);
      if (!is_alloc_param (sp->key) || g_ascii_strcasecmp (sp->value, "false") == 0)
        continue;
      g_string_append_c (spec, has_params ? ',' : ':');
      has_params = TRUE;
      if (g_ascii_strcasecmp (sp->value, "true") == 0)
        g_string_append (spec, sp->key);
      else
        g_string_append_printf (spec, "%s=%s", sp->key, sp->value);
    }
  p->spec = g_string_free (spec, FALSE);
  g_autofree char *skey = g_strdup_printf ("%u\n%s", p->machine, p->spec);
  if (!g_hash_table_contains (specs_ok, skey))
    {
      GError *local = NULL;
      const SimMachine *m = g_ptr_array_index (plan->machines, p->machine);
      while (mems->len <= p->machine)
        g_ptr_array_add (mems, NULL);
      if (g_ptr_array_index (mems, p->machine) == NULL)
        mems->pdata[p->machine] = sim_memsys_new (m, &local);
      SimMemSys *mem = g_ptr_array_index (mems, p->machine);
      if (mem == NULL || !check_spec (p->spec, m, mem, &local))
        {
          /* Point at the parameter the model complains about, if any. */
          const SimYamlNode *at = by_key[2]->node;
          for (guint i = 0; i < combo->len; i++)
            {
              Assign *a = g_ptr_array_index (combo, i);
              g_autofree char *quoted = g_strdup_printf ("\"%s\"", a->key);
              if (is_alloc_param (a->key) && strstr (local->message, quoted))
                at = a->node;
            }
          /* A value in a list: name the list's key. */
          if (at->key == NULL && at->parent && at->parent->key)
            at = at->parent;
          g_autofree char *path = sim_yaml_path (at);
          const char *near = sim_yaml_nearest (at->key ? at->key : "", point_keys,
                                               G_N_ELEMENTS (point_keys) - 1);
          g_autofree char *hint = near && at->key && strcmp (at->key, near) != 0
            ? g_strdup_printf (" (or did you mean the sweep key \"%s\"?)", near) : g_strdup ("");
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                       "%s:%u:%u: %s%sallocator %s: %s%s", at->origin,
                       at->key_line && at != by_key[2]->node ? at->key_line : at->line,
                       at->key_line && at != by_key[2]->node ? at->key_col : at->col,
                       path, *path ? ": " : "", p->spec, local->message, hint);
          g_error_free (local);
          return FALSE;
        }
      g_hash_table_add (specs_ok, g_steal_pointer (&skey));
    }
  return TRUE;
}

static void
point_free (SimSweepPoint *p)
{
  for (guint i = 0; i < p->params->len; i++)
    {
      SimSweepParam *sp = &g_array_index (p->params, SimSweepParam, i);
      g_free (sp->key);
      g_free (sp->value);
    }
  g_array_unref (p->params);
  g_free (p->canonical);
  g_free (p->trace);
  g_free (p->trace_path);
  g_free (p->spec);
  g_free (p);
}

void
sim_sweep_plan_free (SimSweepPlan *plan)
{
  if (plan == NULL)
    return;
  g_free (plan->name);
  g_free (plan->origin);
  g_ptr_array_unref (plan->points);
  g_ptr_array_unref (plan->machines);
  g_strfreev (plan->axes);
  g_free (plan);
}

const char *
sim_sweep_point_get (const SimSweepPoint *p, const char *key)
{
  for (guint i = 0; i < p->params->len; i++)
    {
      SimSweepParam *sp = &g_array_index (p->params, SimSweepParam, i);
      if (strcmp (sp->key, key) == 0)
        return sp->value;
    }
  return NULL;
}

static SimSweepPlan *
plan_from_doc (SimYamlDoc *doc, const char *origin, const char *base_dir, GError **error)
{
  static const char *const top_keys[] = {
    "name", "description", "trace", "machine", "set", "allocator", "replay", "touch",
    "axes", NULL
  };
  static const char *const defaults[] = { NULL, "nehalem-ep-2s", "slub", "ordered", "line" };
  const SimYamlNode *root = doc->root;
  if (root == NULL)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_MISSING_KEY,
                   "%s: empty sweep file (expected at least \"trace:\")", origin);
      return NULL;
    }
  if (!sim_yaml_check_keys (root, top_keys, error))
    return NULL;

  SimSweepPlan *plan = g_new0 (SimSweepPlan, 1);
  plan->origin = g_strdup (origin);
  plan->points = g_ptr_array_new_with_free_func ((GDestroyNotify) point_free);
  plan->machines = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_machine_free);
  Loader ld = { .origin = origin, .base_dir = g_strdup (base_dir), .plan = plan,
                .axes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref),
                .axis_key_node = g_hash_table_new (g_str_hash, g_str_equal),
                .axis_order = g_ptr_array_new_with_free_func (g_free),
                .top_order = g_ptr_array_new_with_free_func (g_free) };
  GHashTable *machines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *specs_ok = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean ok = FALSE;
  /* Defaults live in a little document of their own so that every
   * assignment has a node to point at. */
  g_autoptr (SimYamlDoc) defdoc = NULL;

  const SimYamlNode *name = sim_yaml_lookup (root, "name");
  if (name && !sim_yaml_get_string (name, &plan->name, error))
    goto out;
  if (plan->name == NULL)
    {
      g_autofree char *base = g_path_get_basename (origin);
      char *dot = strrchr (base, '.');
      if (dot && dot != base)
        *dot = '\0';
      plan->name = g_strdup (base);
    }
  const SimYamlNode *desc = sim_yaml_lookup (root, "description");
  if (desc && !sim_yaml_expect (desc, SIM_YAML_SCALAR, error))
    goto out;

  static const char defaults_yaml[] =
    "{trace: '', machine: nehalem-ep-2s, allocator: slub, replay: ordered, touch: line}";
  defdoc = sim_yaml_load_data (defaults_yaml, strlen (defaults_yaml), "(default)", NULL);
  for (guint k = 0; point_keys[k]; k++)
    {
      const SimYamlNode *n = sim_yaml_lookup (root, point_keys[k]);
      if (n == NULL)
        {
          if (defaults[k] == NULL)
            {
              g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_MISSING_KEY,
                           "%s:%u:%u: missing key \"trace\" (the kmem trace to replay, or "
                           "a list of them)", origin, root->line, root->col);
              goto out;
            }
          continue;     /* an axis may set it; the default comes last */
        }
      GPtrArray *vals = values_of (n, point_keys[k], error);
      if (vals == NULL || !claim_key (&ld, point_keys[k], n, vals->len > 1, error))
        {
          if (vals)
            g_ptr_array_unref (vals);
          goto out;
        }
      g_ptr_array_add (ld.axes, axis_from_values (vals));
      g_ptr_array_unref (vals);
    }
  const SimYamlNode *set = sim_yaml_lookup (root, "set");
  if (set)
    {
      GPtrArray *vals = values_of (set, "set", error);
      if (vals == NULL)
        goto out;
      Axis *fixed = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
      GPtrArray *combo = combo_new ();
      g_ptr_array_add (fixed, combo);
      g_ptr_array_add (ld.axes, fixed);
      for (guint i = 0; i < vals->len; i++)
        {
          Assign *a = g_ptr_array_index (vals, i);
          const char *eq = strchr (a->value, '=');
          if (eq == NULL || eq == a->value)
            {
              sim_yaml_error (error, a->node, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                              "expected KEY=VALUE (a machine override as --set takes it)");
              g_ptr_array_unref (vals);
              goto out;
            }
          g_autofree char *k = g_strndup (a->value, eq - a->value);
          g_autofree char *key = is_machine_key (k) ? g_strdup (k)
                                                    : g_strdup_printf ("machine.%s", k);
          /* The key string must outlive the loader's table: keep it in
           * the combo's value slot pair. */
          Assign *as = g_new0 (Assign, 1);
          as->value = g_strdup (eq + 1);
          as->node = a->node;
          as->key = g_intern_string (key);
          g_ptr_array_add (combo, as);
          if (!claim_key (&ld, as->key, a->node, FALSE, error))
            {
              g_ptr_array_unref (vals);
              goto out;
            }
        }
      g_ptr_array_unref (vals);
    }
  const SimYamlNode *axes = sim_yaml_lookup (root, "axes");
  ld.in_axes = TRUE;
  if (axes && !load_axes (&ld, axes, error))
    goto out;
  for (guint k = 0; point_keys[k]; k++)
    if (!g_hash_table_contains (ld.axis_key_node, point_keys[k]))
      {
        const SimYamlNode *n = sim_yaml_lookup (defdoc->root, point_keys[k]);
        GPtrArray *vals = values_of (n, point_keys[k], error);
        g_ptr_array_add (ld.axes, axis_from_values (vals));
        g_ptr_array_unref (vals);
      }

  /* Expand: product of every axis, first outermost; its size first. */
  {
    g_autofree guint64 *lens = g_new0 (guint64, ld.axes->len + 1);
    guint64 prod = 1;
    for (guint i = 0; i < ld.axes->len; i++)
      {
        lens[i] = ((Axis *) g_ptr_array_index (ld.axes, i))->len;
        prod = mul_sat (prod, lens[i]);
      }
    if (prod > MAX_POINTS)
      {
        /* Only the factors that vary: the fixed ones are all 1. */
        guint n = 0;
        for (guint i = 0; i < ld.axes->len; i++)
          if (lens[i] != 1)
            lens[n++] = lens[i];
        g_autofree char *what = product_text (lens, n);
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                     "%s: the sweep has %s points (the product of its lists and axes); "
                     "a sweep may have at most %u", origin, what, MAX_POINTS);
        goto out;
      }
  }
  Axis *all = NULL;
  for (guint i = 0; i < ld.axes->len; i++)
    {
      Axis *ax = g_ptr_array_index (ld.axes, i);
      if (all == NULL)
        all = g_ptr_array_ref (ax);
      else
        {
          Axis *p = axis_product (all, ax);
          g_ptr_array_unref (all);
          all = p;
        }
    }
  gboolean points_ok = TRUE;
  GPtrArray *mems = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_memsys_free);
  for (guint i = 0; all && i < all->len && points_ok; i++)
    points_ok = make_point (&ld, g_ptr_array_index (all, i), machines, specs_ok, mems, error);
  g_ptr_array_unref (mems);
  if (all)
    g_ptr_array_unref (all);
  if (!points_ok)
    goto out;

  /* Distinct points only: two combinations with equal parameters would
   * have one id. */
  GHashTable *ids = g_hash_table_new (g_str_hash, g_str_equal);
  GString *all_ids = g_string_new (NULL);
  for (guint i = 0; i < plan->points->len; i++)
    {
      SimSweepPoint *p = g_ptr_array_index (plan->points, i);
      SimSweepPoint *prev = g_hash_table_lookup (ids, p->id);
      if (prev)
        {
          g_autofree char *params = g_strchomp (g_strdelimit (g_strdup (p->canonical), "\n",
                                                              ' '));
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                       "%s: points %u and %u have the same parameters (%s); "
                       "remove the repeated value", origin, prev->index, p->index, params);
          g_hash_table_destroy (ids);
          g_string_free (all_ids, TRUE);
          goto out;
        }
      g_hash_table_insert (ids, p->id, p);
      g_string_append_printf (all_ids, "%s\n", p->id);
    }
  g_hash_table_destroy (ids);
  char *pid = sha_prefix (all_ids->str);
  memcpy (plan->plan_id, pid, SIM_SWEEP_ID_LEN + 1);
  g_free (pid);
  g_string_free (all_ids, TRUE);
  /* The axes first: reports map the first two, and a grid reads best
   * with the other lists as facets. */
  for (guint i = 0; i < ld.top_order->len; i++)
    g_ptr_array_add (ld.axis_order, g_strdup (g_ptr_array_index (ld.top_order, i)));
  g_ptr_array_add (ld.axis_order, NULL);
  plan->axes = (GStrv) g_ptr_array_steal (ld.axis_order, NULL);
  ok = TRUE;

out:
  g_hash_table_destroy (machines);
  g_hash_table_destroy (specs_ok);
  g_ptr_array_unref (ld.axes);
  g_hash_table_destroy (ld.axis_key_node);
  if (ld.axis_order)
    g_ptr_array_unref (ld.axis_order);
  g_ptr_array_unref (ld.top_order);
  g_free (ld.base_dir);
  if (!ok)
    {
      sim_sweep_plan_free (plan);
      return NULL;
    }
  return plan;
}

SimSweepPlan *
sim_sweep_plan_load_data (const char *yaml, gsize len, const char *origin,
                          const char *base_dir, GError **error)
{
  g_autoptr (SimYamlDoc) doc = sim_yaml_load_data (yaml, len, origin, error);
  if (doc == NULL)
    return NULL;
  return plan_from_doc (doc, origin, base_dir, error);
}

SimSweepPlan *
sim_sweep_plan_load (const char *path, GError **error)
{
  g_autoptr (SimYamlDoc) doc = sim_yaml_load_file (path, error);
  if (doc == NULL)
    return NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  return plan_from_doc (doc, path, dir, error);
}
