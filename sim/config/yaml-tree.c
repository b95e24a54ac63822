/* yaml-tree.c - libyaml documents turned into trees with positions.
 *
 * We use libyaml's document API (yaml_parser_load) because configuration
 * files are small and a tree is far easier to validate than an event
 * stream.  The raw libyaml document has three traps that this layer
 * removes before any schema code sees the data:
 *
 *  - marks are 0-based; users and editors want 1-based "file:line:col:";
 *  - a mapping may hold the same key twice (the loader keeps both pairs
 *    silently); we reject the second one and point at both;
 *  - an alias is the *same* node as its anchor, so a document can grow
 *    exponentially ("billion laughs") or even contain itself.  We copy
 *    every alias into its own subtree, so each node has one parent and a
 *    dotted path, and we bound both the total number of nodes after
 *    expansion and the nesting depth.  A node reached through an alias keeps
 *    the anchor's position; messages say so.
 *
 * Scalars stay strings here.  The typed getters convert them (sizes with
 * binary units, frequencies, latencies in cycles or nanoseconds, booleans,
 * enums) and report the scalar's own position when they cannot.  The
 * libyaml tag resolution (!!int and so on) is deliberately ignored: YAML
 * 1.1's implicit typing ("no" is false, "0x10" is an int, "1:30" is
 * sexagesimal) is a source of surprises, and our schemas know what type
 * each key wants.
 */
#include "sim/config/yaml-tree.h"
#include "sim/core/errors.h"

#include <yaml.h>
#include <errno.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- nodes */

static void
node_free (SimYamlNode *n)
{
  if (n == NULL)
    return;
  if (n->children)
    {
      for (guint i = 0; i < n->children->len; i++)
        node_free (g_ptr_array_index (n->children, i));
      g_ptr_array_free (n->children, TRUE);
    }
  if (n->index)
    g_hash_table_destroy (n->index);
  g_free (n->key);
  g_free (n->scalar);
  g_free (n);
}

void
sim_yaml_doc_free (SimYamlDoc *doc)
{
  if (doc == NULL)
    return;
  node_free (doc->root);
  g_ptr_array_free (doc->origins, TRUE);
  g_free (doc);
}

static SimYamlNode *
node_new (SimYamlKind kind, const char *origin, guint line, guint col)
{
  SimYamlNode *n = g_new0 (SimYamlNode, 1);
  n->kind = kind;
  n->origin = origin;
  n->line = line;
  n->col = col;
  if (kind != SIM_YAML_SCALAR)
    n->children = g_ptr_array_new ();
  return n;
}

/* Below this many keys a scan is cheaper than hashing (every section of a
 * real file is below it); from it on, the mapping keeps an index, so a
 * mapping of n keys loads in O(n), not O(n^2). */
#define INDEX_MIN_KEYS 16

SimYamlNode *
sim_yaml_lookup (const SimYamlNode *map, const char *key)
{
  if (map == NULL || map->kind != SIM_YAML_MAPPING)
    return NULL;
  if (map->index)
    return g_hash_table_lookup (map->index, key);
  for (guint i = 0; i < map->children->len; i++)
    {
      SimYamlNode *c = g_ptr_array_index (map->children, i);
      if (strcmp (c->key, key) == 0)
        return c;
    }
  return NULL;
}

/* Append @child (its key set) to mapping @map, keeping the index.  The
 * index's keys are the children's own key strings. */
static void
map_add (SimYamlNode *map, SimYamlNode *child)
{
  child->parent = map;
  g_ptr_array_add (map->children, child);
  if (map->index)
    g_hash_table_insert (map->index, child->key, child);
  else if (map->children->len >= INDEX_MIN_KEYS)
    {
      map->index = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < map->children->len; i++)
        {
          SimYamlNode *c = g_ptr_array_index (map->children, i);
          g_hash_table_insert (map->index, c->key, c);
        }
    }
}

static void
path_append (GString *s, const SimYamlNode *n)
{
  if (n->parent == NULL)
    return;
  path_append (s, n->parent);
  if (s->len)
    g_string_append_c (s, '.');
  if (n->key)
    g_string_append (s, n->key);
  else
    {
      guint idx = 0;
      g_ptr_array_find (n->parent->children, n, &idx);
      g_string_append_printf (s, "%u", idx);
    }
}

char *
sim_yaml_path (const SimYamlNode *node)
{
  GString *s = g_string_new (NULL);
  path_append (s, node);
  return g_string_free (s, FALSE);
}

void
sim_yaml_error (GError **error, const SimYamlNode *node, gboolean at_key,
                gint code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);

  GString *s = g_string_new (NULL);
  guint line = node->line, col = node->col;
  /* A block collection starts at its first entry; its key is where a
   * reader looks for "the topology section". */
  if (node->key && node->key_line
      && (at_key || node->kind != SIM_YAML_SCALAR))
    line = node->key_line, col = node->key_col;
  if (line)
    g_string_append_printf (s, "%s:%u:%u: ", node->origin, line, col);
  else
    g_string_append_printf (s, "%s: ", node->origin);
  /* For a key error, name the mapping holding it; the message names the
   * key itself. */
  const SimYamlNode *p = at_key ? node->parent : node;
  g_autofree char *path = p ? sim_yaml_path (p) : g_strdup ("");
  if (*path)
    g_string_append_printf (s, "%s: ", path);
  g_string_append (s, msg);
  if (node->via_alias && !at_key)
    g_string_append (s, " (value reached through an alias; the position is its anchor's)");
  g_set_error_literal (error, SIM_CONFIG_ERROR, code, s->str);
  g_string_free (s, TRUE);
}

/* -------------------------------------------------------------- loading */

typedef struct {
  yaml_document_t *ydoc;
  const char      *origin;
  guint            n_nodes;
  guint8          *seen;     /* per libyaml node: visited once already */
} Conv;

static SimYamlNode *
convert (Conv *c, yaml_node_t *yn, gboolean via_alias, guint depth, GError **error)
{
  guint line = yn->start_mark.line + 1, col = yn->start_mark.column + 1;
  gsize idx = (gsize) (yn - c->ydoc->nodes.start);
  if (c->seen[idx])
    via_alias = TRUE;
  c->seen[idx] = 1;
  if (++c->n_nodes > SIM_YAML_MAX_NODES)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                   "%s:%u:%u: document too large: more than %u nodes once aliases are expanded",
                   c->origin, line, col, SIM_YAML_MAX_NODES);
      return NULL;
    }
  if (depth > SIM_YAML_MAX_DEPTH)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                   "%s:%u:%u: nesting deeper than %u levels (or an alias that contains itself)",
                   c->origin, line, col, SIM_YAML_MAX_DEPTH);
      return NULL;
    }

  SimYamlNode *n = NULL;
  switch (yn->type)
    {
    case YAML_SCALAR_NODE:
      n = node_new (SIM_YAML_SCALAR, c->origin, line, col);
      n->scalar = g_strndup ((const char *) yn->data.scalar.value, yn->data.scalar.length);
      n->quoted = yn->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE
                  || yn->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
      break;

    case YAML_SEQUENCE_NODE:
      n = node_new (SIM_YAML_SEQUENCE, c->origin, line, col);
      for (yaml_node_item_t *it = yn->data.sequence.items.start;
           it < yn->data.sequence.items.top; it++)
        {
          SimYamlNode *child = convert (c, yaml_document_get_node (c->ydoc, *it),
                                        via_alias, depth + 1, error);
          if (child == NULL)
            goto fail;
          child->parent = n;
          g_ptr_array_add (n->children, child);
        }
      break;

    case YAML_MAPPING_NODE:
      n = node_new (SIM_YAML_MAPPING, c->origin, line, col);
      for (yaml_node_pair_t *p = yn->data.mapping.pairs.start;
           p < yn->data.mapping.pairs.top; p++)
        {
          yaml_node_t *yk = yaml_document_get_node (c->ydoc, p->key);
          guint kl = yk->start_mark.line + 1, kc = yk->start_mark.column + 1;
          if (yk->type != YAML_SCALAR_NODE)
            {
              g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                           "%s:%u:%u: mapping keys must be scalars", c->origin, kl, kc);
              goto fail;
            }
          g_autofree char *key = g_strndup ((const char *) yk->data.scalar.value,
                                            yk->data.scalar.length);
          SimYamlNode *first = sim_yaml_lookup (n, key);
          if (first)
            {
              g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_DUPLICATE_KEY,
                           "%s:%u:%u: duplicate key \"%s\" (first at %u:%u)",
                           c->origin, kl, kc, key, first->key_line, first->key_col);
              goto fail;
            }
          SimYamlNode *child = convert (c, yaml_document_get_node (c->ydoc, p->value),
                                        via_alias, depth + 1, error);
          if (child == NULL)
            goto fail;
          child->key = g_steal_pointer (&key);
          child->key_line = kl;
          child->key_col = kc;
          map_add (n, child);
        }
      break;

    case YAML_NO_NODE:
    default:
      n = node_new (SIM_YAML_SCALAR, c->origin, line, col);
      n->scalar = g_strdup ("");
      break;
    }
  n->via_alias = via_alias;
  return n;

fail:
  node_free (n);
  return NULL;
}

/* libyaml's reader errors carry a byte offset, not a mark. */
static void
offset_to_mark (const char *data, gsize len, gsize offset, guint *line, guint *col)
{
  *line = 1;
  *col = 1;
  for (gsize i = 0; i < offset && i < len; i++)
    {
      if (data[i] == '\n')
        (*line)++, *col = 1;
      else
        (*col)++;
    }
}

static void
syntax_error (GError **error, const yaml_parser_t *p, const char *data, gsize len,
              const char *origin)
{
  const char *problem = p->problem ? p->problem : "syntax error";
  guint line, col;
  switch (p->error)
    {
    case YAML_MEMORY_ERROR:
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                   "%s: out of memory while parsing", origin);
      return;
    case YAML_READER_ERROR:
      offset_to_mark (data, len, p->problem_offset, &line, &col);
      if (p->problem_value != -1)
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                     "%s:%u:%u: %s (byte 0x%02x)", origin, line, col, problem,
                     (guint) p->problem_value & 0xff);
      else
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                     "%s:%u:%u: %s", origin, line, col, problem);
      return;
    default:
      line = (guint) p->problem_mark.line + 1;
      col = (guint) p->problem_mark.column + 1;
      if (p->context)
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                     "%s:%u:%u: %s (%s started at %u:%u)", origin, line, col, problem,
                     p->context, (guint) p->context_mark.line + 1,
                     (guint) p->context_mark.column + 1);
      else
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                     "%s:%u:%u: %s", origin, line, col, problem);
      return;
    }
}

/* Read the stream's events once, refusing it as soon as it nests deeper
 * or holds more nodes than the tree may.  libyaml's document loader
 * recurses per level and is quadratic in the depth (100k nested "[" never
 * finish), so the limits must hold before it runs; the events themselves
 * cost little and stop at the first level too many.  Syntax errors are
 * left to the loader, which reports them the same way. */
static gboolean
prescan (const char *data, gsize len, const char *origin, GError **error)
{
  yaml_parser_t parser;
  if (!yaml_parser_initialize (&parser))
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                   "%s: out of memory while parsing", origin);
      return FALSE;
    }
  yaml_parser_set_input_string (&parser, (const unsigned char *) data, len);
  gboolean ok = TRUE, done = FALSE;
  guint open = 0, nodes = 0;
  while (ok && !done)
    {
      yaml_event_t ev;
      if (!yaml_parser_parse (&parser, &ev))
        break;
      guint line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
      gboolean node = FALSE;
      switch (ev.type)
        {
        case YAML_STREAM_END_EVENT:
          done = TRUE;
          break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
          node = TRUE;
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          open--;
          break;
        case YAML_SCALAR_EVENT:
        case YAML_ALIAS_EVENT:
          node = TRUE;
          break;
        default:
          break;
        }
      if (node)
        {
          /* Same rule as convert(): a node below 64 ancestors is too deep
           * (mapping keys are counted too, which only moves the mark). */
          if (open > SIM_YAML_MAX_DEPTH)
            {
              g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                           "%s:%u:%u: nesting deeper than %u levels", origin, line, col,
                           SIM_YAML_MAX_DEPTH);
              ok = FALSE;
            }
          /* Keys are events but not tree nodes: twice the tree's limit. */
          else if (++nodes > 2 * SIM_YAML_MAX_NODES)
            {
              g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                           "%s:%u:%u: document too large: more than %u nodes",
                           origin, line, col, SIM_YAML_MAX_NODES);
              ok = FALSE;
            }
          if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
            open++;
        }
      yaml_event_delete (&ev);
    }
  yaml_parser_delete (&parser);
  return ok;
}

/* Parse one document; *root is NULL for an empty stream. */
static gboolean
load_root (const char *data, gsize len, const char *origin, SimYamlNode **root,
           GError **error)
{
  yaml_parser_t parser;
  yaml_document_t ydoc;
  gboolean ok = FALSE;

  *root = NULL;
  if (len > SIM_YAML_MAX_BYTES)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                   "%s: document too large: %" G_GSIZE_FORMAT " bytes (at most %u)",
                   origin, len, SIM_YAML_MAX_BYTES);
      return FALSE;
    }
  if (!prescan (data, len, origin, error))
    return FALSE;
  if (!yaml_parser_initialize (&parser))
    g_error ("yaml_parser_initialize: out of memory");
  yaml_parser_set_input_string (&parser, (const unsigned char *) data, len);
  if (!yaml_parser_load (&parser, &ydoc))
    {
      syntax_error (error, &parser, data, len, origin);
      goto out;
    }
  yaml_node_t *yroot = yaml_document_get_root_node (&ydoc);
  if (yroot)
    {
      Conv c = { &ydoc, origin, 0, NULL };
      c.seen = g_malloc0 ((gsize) (ydoc.nodes.top - ydoc.nodes.start) + 1);
      *root = convert (&c, yroot, FALSE, 0, error);
      g_free (c.seen);
    }
  yaml_document_delete (&ydoc);
  if (yroot && *root == NULL)
    goto out;
  if (yroot)
    {
      /* A second document would be silently ignored otherwise. */
      yaml_document_t next;
      if (!yaml_parser_load (&parser, &next))
        {
          syntax_error (error, &parser, data, len, origin);
          goto out;
        }
      yaml_node_t *r2 = yaml_document_get_root_node (&next);
      if (r2)
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                     "%s:%u:%u: a second YAML document; expected exactly one",
                     origin, (guint) r2->start_mark.line + 1,
                     (guint) r2->start_mark.column + 1);
      yaml_document_delete (&next);
      if (r2)
        goto out;
    }
  ok = TRUE;
out:
  if (!ok)
    {
      node_free (*root);
      *root = NULL;
    }
  yaml_parser_delete (&parser);
  return ok;
}

SimYamlDoc *
sim_yaml_load_data (const char *data, gsize len, const char *origin, GError **error)
{
  g_return_val_if_fail (data != NULL || len == 0, NULL);
  SimYamlDoc *doc = g_new0 (SimYamlDoc, 1);
  doc->origins = g_ptr_array_new_with_free_func (g_free);
  char *org = g_strdup (origin ? origin : "(string)");
  g_ptr_array_add (doc->origins, org);
  if (!load_root (data ? data : "", len, org, &doc->root, error))
    {
      sim_yaml_doc_free (doc);
      return NULL;
    }
  return doc;
}

SimYamlDoc *
sim_yaml_load_file (const char *path, GError **error)
{
  /* Read at most one byte past the limit, so a huge file (or /dev/zero)
   * is refused without being read whole. */
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    {
      int e = errno;
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_NOT_FOUND,
                   "%s: cannot read: %s", path,
                   e == ENOENT ? "no such file" : g_strerror (e));
      return NULL;
    }
  gsize cap = (gsize) SIM_YAML_MAX_BYTES + 1, len = 0;
  g_autofree char *data = g_malloc (cap);
  while (len < cap)
    {
      size_t got = fread (data + len, 1, cap - len, f);
      if (got == 0)
        break;
      len += got;
    }
  gboolean failed = ferror (f) != 0;
  int e = errno;
  fclose (f);
  if (failed)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_NOT_FOUND,
                   "%s: cannot read: %s", path, g_strerror (e));
      return NULL;
    }
  if (len > SIM_YAML_MAX_BYTES)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_PARSE,
                   "%s: document too large: more than %u bytes", path, SIM_YAML_MAX_BYTES);
      return NULL;
    }
  return sim_yaml_load_data (data, len, path, error);
}

/* --------------------------------------------------------- suggestions */

guint
sim_yaml_levenshtein (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  guint *row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];
      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          guint best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
          best = MIN (best, up + 1);
          best = MIN (best, row[j - 1] + 1);
          row[j] = best;
          diag = up;
        }
    }
  guint d = row[lb];
  g_free (row);
  return d;
}

const char *
sim_yaml_nearest (const char *word, const char *const *candidates, guint n)
{
  /* A typo changes a couple of characters; beyond a third of the word the
   * "suggestion" is noise. */
  guint limit = MAX (2, (guint) strlen (word) / 3);
  const char *best = NULL;
  guint best_d = G_MAXUINT;
  for (guint i = 0; i < n; i++)
    {
      guint d = sim_yaml_levenshtein (word, candidates[i]);
      if (d < best_d)
        best_d = d, best = candidates[i];
    }
  return best_d <= limit ? best : NULL;
}

gboolean
sim_yaml_expect (const SimYamlNode *node, SimYamlKind kind, GError **error)
{
  static const char *const names[] = { "a scalar", "a sequence", "a mapping" };
  if (node->kind == kind)
    return TRUE;
  sim_yaml_error (error, node, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                  "expected %s, got %s", names[kind], names[node->kind]);
  return FALSE;
}

gboolean
sim_yaml_check_keys (const SimYamlNode *map, const char *const *valid, GError **error)
{
  if (!sim_yaml_expect (map, SIM_YAML_MAPPING, error))
    return FALSE;
  guint n_valid = g_strv_length ((char **) valid);
  for (guint i = 0; i < map->children->len; i++)
    {
      SimYamlNode *c = g_ptr_array_index (map->children, i);
      if (g_strv_contains (valid, c->key))
        continue;
      const char *near = sim_yaml_nearest (c->key, valid, n_valid);
      if (near)
        sim_yaml_error (error, c, TRUE, SIM_CONFIG_ERROR_UNKNOWN_KEY,
                        "unknown key \"%s\" (did you mean \"%s\"?)", c->key, near);
      else
        {
          g_autofree char *list = g_strjoinv (", ", (char **) valid);
          sim_yaml_error (error, c, TRUE, SIM_CONFIG_ERROR_UNKNOWN_KEY,
                          "unknown key \"%s\" (valid keys: %s)", c->key, list);
        }
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------- typed scalars */

static const char *
scalar_of (const SimYamlNode *n, const char *what, GError **error)
{
  if (n->kind != SIM_YAML_SCALAR)
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "expected %s, got a %s", what,
                      n->kind == SIM_YAML_MAPPING ? "mapping" : "sequence");
      return NULL;
    }
  return n->scalar;
}

gboolean
sim_yaml_get_string (const SimYamlNode *n, char **out, GError **error)
{
  const char *s = scalar_of (n, "a string", error);
  if (s == NULL)
    return FALSE;
  *out = g_strdup (s);
  return TRUE;
}

static const char *
skip_space (const char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

/* Leading unsigned integer; FALSE on no digits, a sign or overflow. */
static gboolean
parse_u64 (const char *s, guint64 *out, const char **end)
{
  s = skip_space (s);
  if (!g_ascii_isdigit (*s))
    return FALSE;
  guint base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && g_ascii_isxdigit (s[2]))
    base = 16;
  errno = 0;
  char *e = NULL;
  guint64 v = g_ascii_strtoull (s, &e, base);
  if (errno == ERANGE || e == s)
    return FALSE;
  *out = v;
  *end = e;
  return TRUE;
}

static gboolean
is_negative (const char *s)
{
  s = skip_space (s);
  return s[0] == '-' && (g_ascii_isdigit (s[1]) || s[1] == '.');
}

gboolean
sim_yaml_get_uint (const SimYamlNode *n, guint64 min, guint64 max, guint64 *out,
                   GError **error)
{
  const char *s = scalar_of (n, "an integer", error);
  if (s == NULL)
    return FALSE;
  guint64 v;
  const char *end;
  if (is_negative (s))
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "%s is negative; expected an integer >= %" G_GUINT64_FORMAT, s, min);
      return FALSE;
    }
  if (!parse_u64 (s, &v, &end) || *skip_space (end) != '\0')
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "expected an integer, got \"%s\"", s);
      return FALSE;
    }
  if (v < min || v > max)
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "%" G_GUINT64_FORMAT " is out of range (expected %" G_GUINT64_FORMAT
                      "..%" G_GUINT64_FORMAT ")", v, min, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
sim_yaml_get_bool (const SimYamlNode *n, gboolean *out, GError **error)
{
  static const char *const yes[] = { "true", "yes", "on" };
  static const char *const no[] = { "false", "no", "off" };
  const char *s = scalar_of (n, "a boolean", error);
  if (s == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (yes); i++)
    {
      if (g_ascii_strcasecmp (s, yes[i]) == 0)
        return *out = TRUE, TRUE;
      if (g_ascii_strcasecmp (s, no[i]) == 0)
        return *out = FALSE, TRUE;
    }
  sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                  "expected a boolean (true/false/yes/no), got \"%s\"", s);
  return FALSE;
}

gboolean
sim_yaml_parse_size (const char *s, guint64 *out)
{
  guint64 v;
  const char *e;
  if (!parse_u64 (s, &v, &e))
    return FALSE;
  e = skip_space (e);
  guint shift = 0;
  switch (g_ascii_toupper (*e))
    {
    case 'K': shift = 10; e++; break;
    case 'M': shift = 20; e++; break;
    case 'G': shift = 30; e++; break;
    case 'T': shift = 40; e++; break;
    default: break;
    }
  /* "K", "KB", "KiB" (and "B" alone) all mean the same binary unit:
   * cache and memory sizes are powers of two, nobody means 32000. */
  if (shift && (e[0] == 'i' || e[0] == 'I') && (e[1] == 'B' || e[1] == 'b'))
    e += 2;
  else if (*e == 'B' || *e == 'b')
    e++;
  if (*skip_space (e) != '\0')
    return FALSE;
  if (shift && v > (G_MAXUINT64 >> shift))
    return FALSE;
  *out = v << shift;
  return TRUE;
}

gboolean
sim_yaml_get_size (const SimYamlNode *n, guint64 *out, GError **error)
{
  const char *s = scalar_of (n, "a size", error);
  if (s == NULL)
    return FALSE;
  if (is_negative (s))
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "size %s is negative", s);
      return FALSE;
    }
  if (!sim_yaml_parse_size (s, out))
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "expected a size such as 4096, 32K, 32KiB or 8MB, got \"%s\"", s);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_yaml_get_enum (const SimYamlNode *n, const char *const *names, guint *out,
                   GError **error)
{
  g_autofree char *list = g_strjoinv (", ", (char **) names);
  g_autofree char *what = g_strdup_printf ("one of %s", list);
  const char *s = scalar_of (n, what, error);
  if (s == NULL)
    return FALSE;
  for (guint i = 0; names[i]; i++)
    if (strcmp (s, names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                  "unknown value \"%s\" (expected one of: %s)", s, list);
  return FALSE;
}

/* A leading non-negative decimal number (fraction allowed). */
static gboolean
parse_number (const char *s, double *out, const char **end)
{
  s = skip_space (s);
  if (!g_ascii_isdigit (*s) && !(*s == '.' && g_ascii_isdigit (s[1])))
    return FALSE;
  char *e = NULL;
  errno = 0;
  double v = g_ascii_strtod (s, &e);
  if (errno == ERANGE || e == s || !isfinite (v))
    return FALSE;
  /* strtod also reads "0x1p3" and "1e5"; accept the latter only. */
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    return FALSE;
  *out = v;
  *end = skip_space (e);
  return TRUE;
}

gboolean
sim_yaml_parse_frequency (const char *s, double *ghz)
{
  double v;
  const char *e;
  if (!parse_number (s, &v, &e))
    return FALSE;
  double scale;
  if (g_ascii_strcasecmp (e, "GHz") == 0)
    scale = 1.0;
  else if (g_ascii_strcasecmp (e, "MHz") == 0)
    scale = 1e-3;
  else
    return FALSE;
  v *= scale;
  if (!(v > 0.0))
    return FALSE;
  *ghz = v;
  return TRUE;
}

gboolean
sim_yaml_get_frequency (const SimYamlNode *n, double *ghz, GError **error)
{
  const char *s = scalar_of (n, "a frequency", error);
  if (s == NULL)
    return FALSE;
  if (!sim_yaml_parse_frequency (s, ghz))
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "expected a positive frequency such as 2.93GHz or 2400MHz, got \"%s\"", s);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_yaml_get_latency (const SimYamlNode *n, double ghz, guint *cycles, GError **error)
{
  const char *s = scalar_of (n, "a latency", error);
  if (s == NULL)
    return FALSE;
  double v;
  const char *e;
  if (is_negative (s))
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "latency %s is negative", s);
      return FALSE;
    }
  if (!parse_number (s, &v, &e))
    goto bad;
  if (*e == '\0' || g_ascii_strcasecmp (e, "cycles") == 0
      || g_ascii_strcasecmp (e, "cycle") == 0)
    {
      if (v != floor (v))
        {
          sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                          "latency %s: cycles must be a whole number", s);
          return FALSE;
        }
    }
  else if (g_ascii_strcasecmp (e, "ns") == 0)
    {
      g_return_val_if_fail (ghz > 0.0, FALSE);
      v = floor (v * ghz + 0.5);
    }
  else
    goto bad;
  if (v > (double) G_MAXUINT32)
    {
      sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "latency %s is too large", s);
      return FALSE;
    }
  *cycles = (guint) v;
  return TRUE;
bad:
  sim_yaml_error (error, n, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                  "expected a latency such as 4, \"4 cycles\" or 60ns, got \"%s\"", s);
  return FALSE;
}

char *
sim_yaml_format_double (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int prec = 1; prec <= 17; prec++)
    {
      char fmt[8];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  return g_strdup (buf);
}

/* ------------------------------------------------------------ overrides */

static void
set_origin (SimYamlNode *n, const char *origin)
{
  /* Positions inside a --set value are not file positions. */
  n->origin = origin;
  n->line = n->col = 0;
  n->key_line = n->key_col = 0;
  if (n->children)
    for (guint i = 0; i < n->children->len; i++)
      set_origin (g_ptr_array_index (n->children, i), origin);
}

/* Child of @n named by @seg: a key of a mapping or an index of a sequence. */
static SimYamlNode *
child_of (const SimYamlNode *n, const char *seg)
{
  if (n->kind == SIM_YAML_MAPPING)
    return sim_yaml_lookup (n, seg);
  if (n->kind == SIM_YAML_SEQUENCE)
    {
      guint64 idx;
      if (!g_ascii_string_to_unsigned (seg, 10, 0, G_MAXUINT, &idx, NULL))
        return NULL;
      return idx < n->children->len ? g_ptr_array_index (n->children, idx) : NULL;
    }
  return NULL;
}

static void
replace_node (SimYamlNode *old, SimYamlNode *new)
{
  SimYamlNode *parent = old->parent;
  guint idx = 0;
  g_ptr_array_find (parent->children, old, &idx);
  new->key = g_steal_pointer (&old->key);
  new->parent = parent;
  parent->children->pdata[idx] = new;
  if (parent->index)
    g_hash_table_insert (parent->index, new->key, new);  /* the same key string */
  node_free (old);
}

/* Every node below the root with its dotted path, built on the way down
 * (sim_yaml_path per node would search each sequence for its item: O(n^2)
 * on a long list). */
static void
collect_paths (SimYamlNode *n, GString *prefix, GPtrArray *nodes, GPtrArray *paths)
{
  if (n->children == NULL)
    return;
  gsize keep = prefix->len;
  for (guint i = 0; i < n->children->len; i++)
    {
      SimYamlNode *c = g_ptr_array_index (n->children, i);
      if (keep)
        g_string_append_c (prefix, '.');
      if (c->key)
        g_string_append (prefix, c->key);
      else
        g_string_append_printf (prefix, "%u", i);
      g_ptr_array_add (nodes, c);
      g_ptr_array_add (paths, g_strdup (prefix->str));
      collect_paths (c, prefix, nodes, paths);
      g_string_truncate (prefix, keep);
    }
}

static gboolean
path_ends_with (const char *path, const char *suffix)
{
  gsize lp = strlen (path), ls = strlen (suffix);
  if (ls > lp)
    return FALSE;
  if (strcmp (path + lp - ls, suffix) != 0)
    return FALSE;
  return ls == lp || path[lp - ls - 1] == '.';
}

gboolean
sim_yaml_apply_override (SimYamlDoc *doc, const char *assignment, const char *prefix,
                         SimYamlKnownPath known, gpointer user_data, GError **error)
{
  const char *eq = strchr (assignment, '=');
  if (eq == NULL || eq == assignment)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "--set \"%s\": expected KEY=VALUE (for example caches.L2.size=512K)",
                   assignment);
      return FALSE;
    }
  char *origin = g_strdup_printf ("--set %s", assignment);
  g_ptr_array_add (doc->origins, origin);

  g_autofree char *path = g_strstrip (g_strndup (assignment, eq - assignment));
  /* An all-blank key (" =1") would split into no segment at all and name
   * the document root, which has no parent to hang a value on. */
  if (*path == '\0')
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "--set \"%s\": the key before '=' is empty; expected KEY=VALUE (for "
                   "example caches.L2.size=512K)", assignment);
      return FALSE;
    }
  g_auto (GStrv) segs = g_strsplit (path, ".", -1);
  guint n = g_strv_length (segs);
  /* Segments are taken literally (a cache level may have any name, and a
   * stray blank then gets "no key ... did you mean"), but one that is
   * empty or blank ("a..b", "caches.", "a. .b") names nothing. */
  for (guint i = 0; i < n; i++)
    if (segs[i][strspn (segs[i], " \t")] == '\0')
      {
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                     "%s: empty key segment in \"%s\" (segments are separated by "
                     "single dots, as in caches.L2.size)", origin, path);
        return FALSE;
      }
  char **s = segs;
  if (prefix && n > 1 && strcmp (s[0], prefix) == 0
      && sim_yaml_lookup (doc->root, prefix) == NULL)
    s++, n--;
  g_autofree char *dotted = g_strjoinv (".", s);

  SimYamlNode *value = NULL;
  const char *vtext = eq + 1;
  if (!load_root (vtext, strlen (vtext), origin, &value, error))
    return FALSE;
  if (value == NULL)
    {
      value = node_new (SIM_YAML_SCALAR, origin, 0, 0);
      value->scalar = g_strdup ("");
    }
  set_origin (value, origin);

  if (doc->root == NULL)
    doc->root = node_new (SIM_YAML_MAPPING, doc->origins->pdata[0], 1, 1);

  /* 1. The exact path. */
  SimYamlNode *at = doc->root;
  guint depth = 0;
  while (depth < n)
    {
      SimYamlNode *c = child_of (at, s[depth]);
      if (c == NULL)
        break;
      at = c;
      depth++;
    }
  if (depth == n)
    {
      replace_node (at, value);
      return TRUE;
    }

  /* 2. A path the schema knows: create the missing mappings. */
  if (known && at->kind == SIM_YAML_MAPPING && known ((const char *const *) s, n, user_data))
    {
      for (; depth < n; depth++)
        {
          SimYamlNode *c = depth + 1 == n ? value : node_new (SIM_YAML_MAPPING, origin, 0, 0);
          c->key = g_strdup (s[depth]);
          map_add (at, c);
          at = c;
        }
      return TRUE;
    }

  /* 3. A unique suffix ("numa" for "memory.numa"). */
  GPtrArray *nodes = g_ptr_array_new ();
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  GString *walk = g_string_new (NULL);
  collect_paths (doc->root, walk, nodes, paths);
  g_string_free (walk, TRUE);
  GPtrArray *matches = g_ptr_array_new ();
  for (guint i = 0; i < nodes->len; i++)
    if (path_ends_with (paths->pdata[i], dotted))
      g_ptr_array_add (matches, GUINT_TO_POINTER (i));
  gboolean ok = FALSE;
  if (matches->len == 1)
    {
      replace_node (nodes->pdata[GPOINTER_TO_UINT (matches->pdata[0])], value);
      value = NULL;
      ok = TRUE;
    }
  else if (matches->len > 1)
    {
      GString *list = g_string_new (NULL);
      for (guint i = 0; i < matches->len && i < 6; i++)
        g_string_append_printf (list, "%s%s", i ? ", " : "",
                                (char *) paths->pdata[GPOINTER_TO_UINT (matches->pdata[i])]);
      if (matches->len > 6)
        g_string_append (list, ", ...");
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY,
                   "%s: key \"%s\" is ambiguous (it could be %s)", origin, dotted, list->str);
      g_string_free (list, TRUE);
    }
  else
    {
      /* Suggest the path nearest to what was typed, comparing also with
       * the paths' last segments so "nmua" finds "memory.numa". */
      const char *best = NULL;
      guint best_d = G_MAXUINT;
      for (guint i = 0; i < paths->len; i++)
        {
          const char *p = paths->pdata[i];
          guint d = sim_yaml_levenshtein (dotted, p);
          const char *tail = p + strlen (p);
          for (guint k = 0; k < n && tail > p; k++)
            {
              tail--;
              while (tail > p && tail[-1] != '.')
                tail--;
            }
          d = MIN (d, sim_yaml_levenshtein (dotted, tail));
          if (d < best_d)
            best_d = d, best = p;
        }
      if (best && best_d <= MAX (2u, (guint) strlen (dotted) / 3))
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY,
                     "%s: no key \"%s\" (did you mean \"%s\"?)", origin, dotted, best);
      else
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY,
                     "%s: no key \"%s\"", origin, dotted);
    }
  g_ptr_array_free (matches, TRUE);
  g_ptr_array_free (paths, TRUE);
  g_ptr_array_free (nodes, TRUE);
  node_free (value);
  return ok;
}
