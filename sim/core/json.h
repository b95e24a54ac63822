/* json.h - a small JSON writer: pretty-printed, escaped, locale-independent.
 *
 * Keys are written in the order the caller gives them, so output is as
 * deterministic as the caller.  Numbers never go through the C locale:
 * integers are printed with G_GUINT64_FORMAT, fractions with
 * g_ascii_formatd.  Not a parser; no dependency beyond GLib.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SIM_JSON_MAX_DEPTH 32

typedef struct {
  GString *out;
  int      depth;
  gboolean first[SIM_JSON_MAX_DEPTH];
  gboolean after_key;
} SimJson;

void sim_json_init (SimJson *j, GString *out);
void sim_json_begin_object (SimJson *j);
void sim_json_end_object (SimJson *j);
void sim_json_begin_array (SimJson *j);
void sim_json_end_array (SimJson *j);
void sim_json_key (SimJson *j, const char *key);
void sim_json_string (SimJson *j, const char *s);
void sim_json_uint (SimJson *j, guint64 v);
void sim_json_int (SimJson *j, gint64 v);
/* @v with @decimals digits after the point (NaN and infinities print null). */
void sim_json_double (SimJson *j, double v, int decimals);
void sim_json_bool (SimJson *j, gboolean v);
void sim_json_null (SimJson *j);

/* Append @s to @out as a JSON string literal (quotes included). */
void sim_json_escape (GString *out, const char *s);

G_END_DECLS
