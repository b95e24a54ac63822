/* yaml-tree.h - YAML documents as trees whose nodes remember where they came
 * from, plus typed conversion of scalars.  Generic: the machine, allocator
 * and sweep loaders all build on it; nothing here knows a schema.
 *
 * Every error is a SIM_CONFIG_ERROR whose message starts with
 * "file:line:col: " (1-based) and, for a node inside a mapping, the dotted
 * key path ("caches.L2.size: ").  Nodes created by a --set override carry
 * the override text as origin and no line ("--set memory.numa=x: ...").
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SIM_YAML_SCALAR,
  SIM_YAML_SEQUENCE,
  SIM_YAML_MAPPING,
} SimYamlKind;

typedef struct _SimYamlNode SimYamlNode;
struct _SimYamlNode {
  SimYamlKind  kind;
  const char  *origin;      /* file name or "--set K=V"; owned by the doc */
  guint        line, col;   /* 1-based; line 0 = no position (override) */
  gboolean     via_alias;   /* reached through *alias: marks are the anchor's */
  gboolean     quoted;      /* scalar written in quotes */
  char        *key;         /* set when this node is a mapping value */
  guint        key_line, key_col;
  char        *scalar;      /* SIM_YAML_SCALAR */
  GPtrArray   *children;    /* SEQUENCE items, MAPPING values (->key set),
                               in document order */
  SimYamlNode *parent;
  GHashTable  *index;       /* MAPPING of many keys: key -> child, so a
                               lookup (and the duplicate check while
                               loading) is not a scan; NULL when small */
};

typedef struct {
  SimYamlNode *root;        /* NULL for an empty document */
  GPtrArray   *origins;     /* strings the nodes' origin fields point to */
} SimYamlDoc;

/* Limits against hostile documents (docs/machines.md, "Limits").  The
 * bytes are checked before parsing, depth and node count while libyaml's
 * events are read (before its document loader, which is quadratic in the
 * nesting), and the node count again once aliases are expanded ("billion
 * laughs"). */
#define SIM_YAML_MAX_BYTES (4u << 20)
#define SIM_YAML_MAX_NODES 100000
#define SIM_YAML_MAX_DEPTH 64

SimYamlDoc  *sim_yaml_load_file (const char *path, GError **error);
SimYamlDoc  *sim_yaml_load_data (const char *data, gsize len,
                                 const char *origin, GError **error);
void         sim_yaml_doc_free  (SimYamlDoc *doc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimYamlDoc, sim_yaml_doc_free)

/* The value of @key in mapping @map, or NULL (also when @map is not a
 * mapping). */
SimYamlNode *sim_yaml_lookup    (const SimYamlNode *map, const char *key);
/* Dotted path of @node from the root ("caches.L2.size", "topology.cpus.3");
 * "" for the root. */
char        *sim_yaml_path      (const SimYamlNode *node);
/* Set a SIM_CONFIG_ERROR @code at @node: "origin:line:col: path: message".
 * at_key: use the position of the node's key rather than of its value. */
void         sim_yaml_error     (GError **error, const SimYamlNode *node,
                                 gboolean at_key, gint code,
                                 const char *fmt, ...) G_GNUC_PRINTF (5, 6);

/* Edit distance, and the candidate nearest to @word if it is close enough
 * to be a plausible typo (NULL otherwise). */
guint        sim_yaml_levenshtein (const char *a, const char *b);
const char  *sim_yaml_nearest   (const char *word, const char *const *candidates,
                                 guint n_candidates);

/* Reject keys of mapping @map not in @valid (NULL-terminated), suggesting
 * the nearest valid key. */
gboolean     sim_yaml_check_keys (const SimYamlNode *map, const char *const *valid,
                                  GError **error);
gboolean     sim_yaml_expect    (const SimYamlNode *node, SimYamlKind kind,
                                 GError **error);

/* Typed scalars.  Each fails with the scalar's position and what was
 * expected. */
gboolean sim_yaml_get_string (const SimYamlNode *n, char **out, GError **error);
/* Decimal or 0x hex integer in [min, max]. */
gboolean sim_yaml_get_uint   (const SimYamlNode *n, guint64 min, guint64 max,
                              guint64 *out, GError **error);
/* true/false/yes/no/on/off, any case. */
gboolean sim_yaml_get_bool   (const SimYamlNode *n, gboolean *out, GError **error);
/* Bytes: "4096", "32K", "32KB", "32KiB", "8M", "16G", "1T"; units are
 * binary (K = 1024) whatever the spelling. */
gboolean sim_yaml_get_size   (const SimYamlNode *n, guint64 *out, GError **error);
/* Index into @names (NULL-terminated); the error lists them all. */
gboolean sim_yaml_get_enum   (const SimYamlNode *n, const char *const *names,
                              guint *out, GError **error);
/* "2.93GHz", "2930MHz" -> GHz. */
gboolean sim_yaml_get_frequency (const SimYamlNode *n, double *ghz, GError **error);
/* "4", "4 cycles" -> 4; "60ns" -> round(60 * ghz) cycles. */
gboolean sim_yaml_get_latency (const SimYamlNode *n, double ghz, guint *cycles,
                               GError **error);

/* Parsers behind the getters, for callers that hold a bare string. */
gboolean sim_yaml_parse_size (const char *s, guint64 *out);
gboolean sim_yaml_parse_frequency (const char *s, double *ghz);

/* --set overrides.  @assignment is "PATH=VALUE" with PATH dotted
 * ("caches.L2.size"; a sequence item by its index, "topology.cpus.3.core");
 * a leading "@prefix." is dropped.  VALUE is parsed as YAML (so
 * "{size: 1M, ways: 8}" replaces a whole mapping).  Resolution:
 *   1. the path exists in the document: its value is replaced;
 *   2. @known says the path is valid in the schema: it is created;
 *   3. exactly one path in the document ends with PATH ("numa" for
 *      "memory.numa"): that one is replaced;
 *   otherwise an error names the key and suggests the nearest path. */
typedef gboolean (*SimYamlKnownPath) (const char *const *segments, guint n,
                                      gpointer user_data);
gboolean sim_yaml_apply_override (SimYamlDoc *doc, const char *assignment,
                                  const char *prefix, SimYamlKnownPath known,
                                  gpointer user_data, GError **error);

/* Shortest decimal text that reads back as exactly @v ("2.93"). */
char    *sim_yaml_format_double (double v);

G_END_DECLS
