/* schema.h - declarative key tables over yaml-tree nodes.
 *
 * A section of a configuration file (a YAML mapping) is described by a
 * static table of SimField: key, type, where the value goes in a C struct,
 * default, range, and a line of documentation.  One table drives
 * validation (unknown keys with a suggestion, missing required keys, typed
 * conversion with positions), default filling and the canonical YAML
 * output, so none of them can drift from the others.  Keys whose shape is
 * richer than a scalar (a nested section, a list) are SIM_FIELD_CUSTOM:
 * the table still names and documents them, the loader reads them itself.
 */
#pragma once

#include <glib.h>
#include "sim/config/yaml-tree.h"

G_BEGIN_DECLS

typedef enum {
  SIM_FIELD_STRING,     /* char *, owned by the struct */
  SIM_FIELD_UINT,       /* guint or guint64 (see width) */
  SIM_FIELD_BOOL,       /* gboolean */
  SIM_FIELD_SIZE,       /* bytes with binary units; guint or guint64 */
  SIM_FIELD_ENUM,       /* an int-sized C enum, values in enum_names order */
  SIM_FIELD_FREQUENCY,  /* double, GHz */
  SIM_FIELD_LATENCY,    /* guint, cycles ("60ns" converted) */
  SIM_FIELD_CUSTOM,     /* read and written by the section's loader */
} SimFieldType;

#define SIM_FIELD_REQUIRED 1u

typedef struct {
  const char  *key;
  SimFieldType type;
  guint        flags;        /* SIM_FIELD_REQUIRED */
  gssize       offset;       /* in the destination struct; -1 for CUSTOM */
  guint        width;        /* sizeof the destination (UINT, SIZE) */
  const char  *def;          /* default as YAML text, NULL if none */
  guint64      min, max;     /* UINT range; SIZE uses min only */
  const char *const *enum_names;
  const char  *type_doc;     /* "size", "latency", "mapping", ... */
  const char  *doc;
} SimField;

#define SIM_FIELD_AT(type, member) G_STRUCT_OFFSET (type, member), sizeof (((type *) 0)->member)

/* Check @map's keys against @fields (unknown keys, missing required keys)
 * and convert every non-custom field into @dest, defaults filled.  @ghz
 * converts nanosecond latencies (read the frequency first). */
gboolean sim_schema_load (const SimYamlNode *map, const SimField *fields, guint n,
                          gpointer dest, double ghz, GError **error);
/* The value of @f in @src as YAML text (NULL for CUSTOM). */
char    *sim_schema_format (const SimField *f, gconstpointer src);
/* Helpers shared by loaders. */
char    *sim_schema_format_size (guint64 bytes);
char    *sim_schema_quote (const char *s);

G_END_DECLS
