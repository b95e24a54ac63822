/* schema.c - table-driven validation and formatting of YAML sections.
 *
 * Defaults are written in the tables as YAML text and go through the same
 * converters as the file's values, so "line: 64" in a file and the default
 * "64" cannot mean different things, and the documentation can quote the
 * default verbatim.
 */
#include "sim/config/schema.h"
#include "sim/core/errors.h"

#include <string.h>

static void
store_uint (gpointer dest, const SimField *f, guint64 v)
{
  gpointer p = (char *) dest + f->offset;
  if (f->width == sizeof (guint64))
    *(guint64 *) p = v;
  else
    *(guint *) p = (guint) v;
}

static guint64
load_uint (gconstpointer src, const SimField *f)
{
  gconstpointer p = (const char *) src + f->offset;
  return f->width == sizeof (guint64) ? *(const guint64 *) p : *(const guint *) p;
}

static gboolean
convert (const SimYamlNode *v, const SimField *f, gpointer dest, double ghz, GError **error)
{
  gpointer p = (char *) dest + f->offset;
  guint64 u;
  switch (f->type)
    {
    case SIM_FIELD_STRING:
      {
        char *s;
        if (!sim_yaml_get_string (v, &s, error))
          return FALSE;
        g_free (*(char **) p);
        *(char **) p = s;
        return TRUE;
      }
    case SIM_FIELD_UINT:
      {
        guint64 max = f->max ? f->max : (f->width == sizeof (guint64) ? G_MAXUINT64 : G_MAXUINT);
        if (!sim_yaml_get_uint (v, f->min, max, &u, error))
          return FALSE;
        store_uint (dest, f, u);
        return TRUE;
      }
    case SIM_FIELD_BOOL:
      return sim_yaml_get_bool (v, (gboolean *) p, error);
    case SIM_FIELD_SIZE:
      if (!sim_yaml_get_size (v, &u, error))
        return FALSE;
      if (u < f->min)
        {
          sim_yaml_error (error, v, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                          "%s is too small (at least %" G_GUINT64_FORMAT " bytes)",
                          v->scalar, f->min);
          return FALSE;
        }
      if (f->width != sizeof (guint64) && u > G_MAXUINT)
        {
          sim_yaml_error (error, v, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                          "%s is too large", v->scalar);
          return FALSE;
        }
      store_uint (dest, f, u);
      return TRUE;
    case SIM_FIELD_ENUM:
      {
        guint e;
        if (!sim_yaml_get_enum (v, f->enum_names, &e, error))
          return FALSE;
        *(int *) p = (int) e;
        return TRUE;
      }
    case SIM_FIELD_FREQUENCY:
      return sim_yaml_get_frequency (v, (double *) p, error);
    case SIM_FIELD_LATENCY:
      return sim_yaml_get_latency (v, ghz, (guint *) p, error);
    case SIM_FIELD_CUSTOM:
    default:
      return TRUE;
    }
}

gboolean
sim_schema_load (const SimYamlNode *map, const SimField *fields, guint n,
                 gpointer dest, double ghz, GError **error)
{
  const char **valid = g_new0 (const char *, n + 1);
  for (guint i = 0; i < n; i++)
    valid[i] = fields[i].key;
  gboolean ok = sim_yaml_check_keys (map, valid, error);
  g_free (valid);
  if (!ok)
    return FALSE;

  for (guint i = 0; i < n; i++)
    {
      const SimField *f = &fields[i];
      const SimYamlNode *v = sim_yaml_lookup (map, f->key);
      if (v == NULL && (f->flags & SIM_FIELD_REQUIRED))
        {
          sim_yaml_error (error, map, FALSE, SIM_CONFIG_ERROR_MISSING_KEY,
                          "missing required key \"%s\"", f->key);
          return FALSE;
        }
      if (f->type == SIM_FIELD_CUSTOM)
        continue;
      if (v)
        {
          if (!convert (v, f, dest, ghz, error))
            return FALSE;
        }
      else if (f->def)
        {
          SimYamlNode d = { .kind = SIM_YAML_SCALAR, .origin = "(default)",
                            .scalar = (char *) f->def };
          if (!convert (&d, f, dest, ghz, error))
            return FALSE;
        }
    }
  return TRUE;
}

char *
sim_schema_format_size (guint64 bytes)
{
  static const char *const units[] = { "", "KiB", "MiB", "GiB", "TiB" };
  guint u = 0;
  while (u + 1 < G_N_ELEMENTS (units) && bytes >= 1024 && bytes % 1024 == 0)
    bytes /= 1024, u++;
  return g_strdup_printf ("%" G_GUINT64_FORMAT "%s", bytes, units[u]);
}

/* A double-quoted YAML scalar that reads back as @s.  Besides quotes and
 * backslashes, everything YAML does not allow raw in a file (C0 and C1
 * controls, DEL, U+FFFE/U+FFFF) and what a reader would fold or drop
 * (NEL, the line and paragraph separators, a byte-order mark) is
 * escaped: a scalar may hold them through an escape, and "machine show"
 * must print what loads back to the same value. */
char *
sim_schema_quote (const char *s)
{
  GString *q = g_string_new ("\"");
  const char *c = s ? s : "";
  while (*c)
    {
      gunichar u = g_utf8_get_char_validated (c, -1);
      if (u == (gunichar) -1 || u == (gunichar) -2)
        {
          /* not UTF-8 (libyaml never hands us such text): keep the bytes */
          g_string_append_printf (q, "\\x%02x", (guchar) *c);
          c++;
          continue;
        }
      const char *next = g_utf8_next_char (c);
      if (u == '"' || u == '\\')
        g_string_append_printf (q, "\\%c", (char) u);
      else if (u < 0x20 || (u >= 0x7f && u <= 0x9f))
        g_string_append_printf (q, "\\x%02x", (guint) u);
      else if (u == 0x2028)
        g_string_append (q, "\\L");
      else if (u == 0x2029)
        g_string_append (q, "\\P");
      else if (u == 0xfeff || u == 0xfffe || u == 0xffff)
        g_string_append_printf (q, "\\u%04X", (guint) u);
      else
        g_string_append_len (q, c, next - c);
      c = next;
    }
  g_string_append_c (q, '"');
  return g_string_free (q, FALSE);
}

char *
sim_schema_format (const SimField *f, gconstpointer src)
{
  gconstpointer p = (const char *) src + f->offset;
  switch (f->type)
    {
    case SIM_FIELD_STRING:
      return sim_schema_quote (*(char *const *) p);
    case SIM_FIELD_UINT:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, load_uint (src, f));
    case SIM_FIELD_BOOL:
      return g_strdup (*(const gboolean *) p ? "true" : "false");
    case SIM_FIELD_SIZE:
      return sim_schema_format_size (load_uint (src, f));
    case SIM_FIELD_ENUM:
      return g_strdup (f->enum_names[*(const int *) p]);
    case SIM_FIELD_FREQUENCY:
      {
        g_autofree char *d = sim_yaml_format_double (*(const double *) p);
        return g_strdup_printf ("%sGHz", d);
      }
    case SIM_FIELD_LATENCY:
      return g_strdup_printf ("%u", *(const guint *) p);
    case SIM_FIELD_CUSTOM:
    default:
      return NULL;
    }
}
