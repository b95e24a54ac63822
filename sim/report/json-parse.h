/* json-parse.h - a small JSON reader for slabsim's own outputs.
 *
 * "slabsim report" and "slabsim merge" read what "run --format json" and
 * "sweep" wrote: a recursive-descent parser builds a tree of SimJsonValue
 * (objects keep their keys in document order; numbers keep their text so
 * that merge writes them back byte for byte).  Errors name "origin:line:col"
 * and what was expected.  Not a general-purpose library: no streaming, depth
 * limited to SIM_JSON_PARSE_MAX_DEPTH.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SIM_JSON_PARSE_MAX_DEPTH 64

typedef enum {
  SIM_JSON_NULL,
  SIM_JSON_BOOL,
  SIM_JSON_NUMBER,
  SIM_JSON_STRING,
  SIM_JSON_ARRAY,
  SIM_JSON_OBJECT,
} SimJsonKind;

typedef struct _SimJsonValue SimJsonValue;
struct _SimJsonValue {
  SimJsonKind kind;
  gboolean    b;
  double      num;
  char       *text;      /* STRING: the decoded string; NUMBER: as written */
  GPtrArray  *items;     /* ARRAY items, OBJECT values (of SimJsonValue) */
  GPtrArray  *keys;      /* OBJECT keys (char *), parallel to items */
};

/* Parse one JSON value from @data (@len bytes, -1 = NUL-terminated); only
 * whitespace may follow it.  Errors: SIM_TRACE_ERROR_MALFORMED. */
SimJsonValue *sim_json_parse (const char *data, gssize len, const char *origin,
                              guint first_line, GError **error);
void          sim_json_value_free (SimJsonValue *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimJsonValue, sim_json_value_free)

/* Member @key of object @v, or NULL (also when @v is NULL or no object). */
SimJsonValue *sim_json_get (const SimJsonValue *v, const char *key);
/* Follow a path of keys ("timing", "alloc_cycles_mean", NULL). */
SimJsonValue *sim_json_get_path (const SimJsonValue *v, ...) G_GNUC_NULL_TERMINATED;
/* The value as a number/string, or @fallback when absent or of another kind. */
double        sim_json_number (const SimJsonValue *v, double fallback);
const char   *sim_json_str (const SimJsonValue *v, const char *fallback);
/* Member @key of object @v as a whole number in @lo..@hi, read from its
 * text (digits only: no sign, fraction or exponent, so no float is ever
 * cast out of range).  FALSE with SIM_TRACE_ERROR_MALFORMED "@where: ..."
 * naming the key, the range and what was found, also when it is missing. */
gboolean      sim_json_get_uint (const SimJsonValue *v, const char *key, guint64 lo,
                                 guint64 hi, const char *where, guint64 *out,
                                 GError **error);
/* Number of items of an array or object (0 otherwise). */
guint         sim_json_len (const SimJsonValue *v);
SimJsonValue *sim_json_item (const SimJsonValue *v, guint i);

/* Append @v to @out on one line, no spaces: the JSON-lines form. */
void          sim_json_write_compact (GString *out, const SimJsonValue *v);

G_END_DECLS
