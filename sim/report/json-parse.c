/* json-parse.c - recursive-descent JSON reader; see json-parse.h.
 *
 * Follows RFC 8259 for what it accepts (no comments, no trailing commas,
 * no NaN); \u escapes are decoded to UTF-8, surrogate pairs joined.
 * Duplicate keys are kept as written: the accessors return the first.
 */
#include "sim/report/json-parse.h"
#include "sim/core/errors.h"
#include "sim/core/json.h"

#include <stdarg.h>
#include <string.h>

typedef struct {
  const char *p, *end;
  const char *origin;
  const char *line_start;
  guint line;
  int depth;
} Parser;

static SimJsonValue *
value_new (SimJsonKind kind)
{
  SimJsonValue *v = g_new0 (SimJsonValue, 1);
  v->kind = kind;
  if (kind == SIM_JSON_ARRAY || kind == SIM_JSON_OBJECT)
    v->items = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_json_value_free);
  if (kind == SIM_JSON_OBJECT)
    v->keys = g_ptr_array_new_with_free_func (g_free);
  return v;
}

void
sim_json_value_free (SimJsonValue *v)
{
  if (v == NULL)
    return;
  g_free (v->text);
  if (v->items)
    g_ptr_array_unref (v->items);
  if (v->keys)
    g_ptr_array_unref (v->keys);
  g_free (v);
}

static void G_GNUC_PRINTF (3, 4)
fail (Parser *ps, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  guint col = (guint) g_utf8_strlen (ps->line_start, ps->p - ps->line_start) + 1;
  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED, "%s:%u:%u: %s",
               ps->origin, ps->line, col, msg);
}

static void
skip_ws (Parser *ps)
{
  while (ps->p < ps->end)
    {
      char c = *ps->p;
      if (c == '\n')
        {
          ps->line++;
          ps->line_start = ps->p + 1;
        }
      else if (c != ' ' && c != '\t' && c != '\r')
        return;
      ps->p++;
    }
}

static const char *
describe (Parser *ps)
{
  return ps->p >= ps->end ? "the end of the input" : "this character";
}

static gboolean
hex4 (Parser *ps, guint *out)
{
  if (ps->end - ps->p < 4)
    return FALSE;
  guint v = 0;
  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (ps->p[i]);
      if (d < 0)
        return FALSE;
      v = v * 16 + (guint) d;
    }
  ps->p += 4;
  *out = v;
  return TRUE;
}

static char *
parse_string (Parser *ps, GError **error)
{
  /* *ps->p == '"' */
  ps->p++;
  GString *s = g_string_new (NULL);
  while (ps->p < ps->end && *ps->p != '"')
    {
      guchar c = (guchar) *ps->p;
      if (c < 0x20)
        {
          fail (ps, error, "control character in a string (expected \\n, \\t, ... escapes)");
          goto bad;
        }
      if (c != '\\')
        {
          g_string_append_c (s, (char) c);
          ps->p++;
          continue;
        }
      ps->p++;
      if (ps->p >= ps->end)
        break;
      char e = *ps->p++;
      switch (e)
        {
        case '"': g_string_append_c (s, '"'); break;
        case '\\': g_string_append_c (s, '\\'); break;
        case '/': g_string_append_c (s, '/'); break;
        case 'b': g_string_append_c (s, '\b'); break;
        case 'f': g_string_append_c (s, '\f'); break;
        case 'n': g_string_append_c (s, '\n'); break;
        case 'r': g_string_append_c (s, '\r'); break;
        case 't': g_string_append_c (s, '\t'); break;
        case 'u':
          {
            guint u;
            if (!hex4 (ps, &u))
              {
                fail (ps, error, "expected four hex digits after \\u");
                goto bad;
              }
            if (u >= 0xd800 && u < 0xdc00)
              {
                guint lo;
                if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u'
                    || (ps->p += 2, !hex4 (ps, &lo)) || lo < 0xdc00 || lo >= 0xe000)
                  {
                    fail (ps, error, "expected a low surrogate \\uDC00..\\uDFFF");
                    goto bad;
                  }
                u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
              }
            else if (u >= 0xdc00 && u < 0xe000)
              {
                fail (ps, error, "lone low surrogate \\u%04X", u);
                goto bad;
              }
            if (u == 0)
              {
                fail (ps, error, "\\u0000 is not supported in strings");
                goto bad;
              }
            g_string_append_unichar (s, (gunichar) u);
            break;
          }
        default:
          ps->p--;
          fail (ps, error, "unknown escape \\%c", e);
          goto bad;
        }
    }
  if (ps->p >= ps->end)
    {
      fail (ps, error, "unterminated string (expected '\"' before the end of the input)");
      goto bad;
    }
  ps->p++;
  return g_string_free (s, FALSE);
bad:
  g_string_free (s, TRUE);
  return NULL;
}

static SimJsonValue *parse_value (Parser *ps, GError **error);

/* One or more digits, skipped; without one, the error "expected a
 * digit@what". */
static gboolean
digits (Parser *ps, const char *what, GError **error)
{
  if (ps->p >= ps->end || !g_ascii_isdigit (*ps->p))
    {
      fail (ps, error, "expected a digit%s", what);
      return FALSE;
    }
  while (ps->p < ps->end && g_ascii_isdigit (*ps->p))
    ps->p++;
  return TRUE;
}

static SimJsonValue *
parse_number (Parser *ps, GError **error)
{
  const char *start = ps->p;
  if (ps->p < ps->end && *ps->p == '-')
    ps->p++;
  if (ps->p < ps->end && *ps->p == '0')
    ps->p++;                    /* no leading zeros: "01" ends after the 0 */
  else if (!digits (ps, "", error))
    return NULL;
  if (ps->p < ps->end && *ps->p == '.')
    {
      ps->p++;
      if (!digits (ps, " after the decimal point", error))
        return NULL;
    }
  if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E'))
    {
      ps->p++;
      if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
        ps->p++;
      if (!digits (ps, " in the exponent", error))
        return NULL;
    }
  SimJsonValue *v = value_new (SIM_JSON_NUMBER);
  v->text = g_strndup (start, ps->p - start);
  v->num = g_ascii_strtod (v->text, NULL);
  return v;
}

static gboolean
literal (Parser *ps, const char *word)
{
  gsize n = strlen (word);
  if ((gsize) (ps->end - ps->p) >= n && memcmp (ps->p, word, n) == 0)
    {
      ps->p += n;
      return TRUE;
    }
  return FALSE;
}

static SimJsonValue *
parse_container (Parser *ps, gboolean object, GError **error)
{
  if (++ps->depth > SIM_JSON_PARSE_MAX_DEPTH)
    {
      fail (ps, error, "nested deeper than %d levels", SIM_JSON_PARSE_MAX_DEPTH);
      return NULL;
    }
  ps->p++;
  char close = object ? '}' : ']';
  SimJsonValue *v = value_new (object ? SIM_JSON_OBJECT : SIM_JSON_ARRAY);
  skip_ws (ps);
  if (ps->p < ps->end && *ps->p == close)
    {
      ps->p++;
      ps->depth--;
      return v;
    }
  for (;;)
    {
      skip_ws (ps);
      if (object)
        {
          if (ps->p >= ps->end || *ps->p != '"')
            {
              fail (ps, error, "expected a key in double quotes, found %s", describe (ps));
              goto bad;
            }
          char *key = parse_string (ps, error);
          if (key == NULL)
            goto bad;
          g_ptr_array_add (v->keys, key);
          skip_ws (ps);
          if (ps->p >= ps->end || *ps->p != ':')
            {
              fail (ps, error, "expected ':' after the key \"%s\"", key);
              goto bad;
            }
          ps->p++;
        }
      SimJsonValue *item = parse_value (ps, error);
      if (item == NULL)
        goto bad;
      g_ptr_array_add (v->items, item);
      skip_ws (ps);
      if (ps->p < ps->end && *ps->p == ',')
        {
          ps->p++;
          continue;
        }
      if (ps->p < ps->end && *ps->p == close)
        {
          ps->p++;
          break;
        }
      fail (ps, error, "expected ',' or '%c', found %s", close, describe (ps));
      goto bad;
    }
  ps->depth--;
  return v;
bad:
  sim_json_value_free (v);
  return NULL;
}

static SimJsonValue *
parse_value (Parser *ps, GError **error)
{
  skip_ws (ps);
  if (ps->p >= ps->end)
    {
      fail (ps, error, "expected a value, found the end of the input");
      return NULL;
    }
  char c = *ps->p;
  if (c == '{' || c == '[')
    return parse_container (ps, c == '{', error);
  if (c == '"')
    {
      char *s = parse_string (ps, error);
      if (s == NULL)
        return NULL;
      SimJsonValue *v = value_new (SIM_JSON_STRING);
      v->text = s;
      return v;
    }
  if (c == '-' || g_ascii_isdigit (c))
    return parse_number (ps, error);
  if (literal (ps, "true") || literal (ps, "false"))
    {
      SimJsonValue *v = value_new (SIM_JSON_BOOL);
      v->b = ps->p[-1] == 'e' && ps->p[-2] == 'u';
      return v;
    }
  if (literal (ps, "null"))
    return value_new (SIM_JSON_NULL);
  fail (ps, error, "expected a JSON value (object, array, string, number, true, false or null)");
  return NULL;
}

SimJsonValue *
sim_json_parse (const char *data, gssize len, const char *origin, guint first_line,
                GError **error)
{
  g_return_val_if_fail (data != NULL, NULL);
  if (len < 0)
    len = (gssize) strlen (data);
  Parser ps = { .p = data, .end = data + len, .origin = origin ? origin : "(json)",
                .line_start = data, .line = first_line ? first_line : 1 };
  SimJsonValue *v = parse_value (&ps, error);
  if (v == NULL)
    return NULL;
  skip_ws (&ps);
  if (ps.p < ps.end)
    {
      fail (&ps, error, "unexpected text after the JSON value");
      sim_json_value_free (v);
      return NULL;
    }
  return v;
}

SimJsonValue *
sim_json_get (const SimJsonValue *v, const char *key)
{
  if (v == NULL || v->kind != SIM_JSON_OBJECT)
    return NULL;
  for (guint i = 0; i < v->keys->len; i++)
    if (strcmp (g_ptr_array_index (v->keys, i), key) == 0)
      return g_ptr_array_index (v->items, i);
  return NULL;
}

SimJsonValue *
sim_json_get_path (const SimJsonValue *v, ...)
{
  va_list ap;
  va_start (ap, v);
  const char *key;
  SimJsonValue *cur = (SimJsonValue *) v;
  while (cur && (key = va_arg (ap, const char *)))
    cur = sim_json_get (cur, key);
  va_end (ap);
  return cur;
}

double
sim_json_number (const SimJsonValue *v, double fallback)
{
  return v && v->kind == SIM_JSON_NUMBER ? v->num : fallback;
}

gboolean
sim_json_get_uint (const SimJsonValue *v, const char *key, guint64 lo, guint64 hi,
                   const char *where, guint64 *out, GError **error)
{
  const SimJsonValue *n = sim_json_get (v, key);
  const char *text = n && n->kind == SIM_JSON_NUMBER ? n->text : NULL;
  guint64 x = 0;
  gboolean ok = text && *text && strspn (text, "0123456789") == strlen (text)
                && (text[0] != '0' || text[1] == '\0')
                && g_ascii_string_to_unsigned (text, 10, lo, hi, &x, NULL);
  if (!ok)
    {
      g_autofree char *found = n == NULL ? g_strdup ("it is missing")
        : text ? g_strdup_printf ("not %s", text)
        : g_strdup_printf ("not a %s", n->kind == SIM_JSON_STRING ? "string"
                                       : n->kind == SIM_JSON_ARRAY ? "list"
                                       : n->kind == SIM_JSON_OBJECT ? "object"
                                       : n->kind == SIM_JSON_BOOL ? "boolean" : "null");
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s: \"%s\" must be a whole number from %" G_GUINT64_FORMAT " to %"
                   G_GUINT64_FORMAT ", %s", where, key, lo, hi, found);
      return FALSE;
    }
  *out = x;
  return TRUE;
}

const char *
sim_json_str (const SimJsonValue *v, const char *fallback)
{
  return v && v->kind == SIM_JSON_STRING ? v->text : fallback;
}

guint
sim_json_len (const SimJsonValue *v)
{
  return v && v->items ? v->items->len : 0;
}

SimJsonValue *
sim_json_item (const SimJsonValue *v, guint i)
{
  return v && v->items && i < v->items->len ? g_ptr_array_index (v->items, i) : NULL;
}

void
sim_json_write_compact (GString *out, const SimJsonValue *v)
{
  switch (v->kind)
    {
    case SIM_JSON_NULL:
      g_string_append (out, "null");
      break;
    case SIM_JSON_BOOL:
      g_string_append (out, v->b ? "true" : "false");
      break;
    case SIM_JSON_NUMBER:
      g_string_append (out, v->text);
      break;
    case SIM_JSON_STRING:
      sim_json_escape (out, v->text);
      break;
    case SIM_JSON_ARRAY:
    case SIM_JSON_OBJECT:
      g_string_append_c (out, v->kind == SIM_JSON_ARRAY ? '[' : '{');
      for (guint i = 0; i < v->items->len; i++)
        {
          if (i)
            g_string_append_c (out, ',');
          if (v->keys)
            {
              sim_json_escape (out, g_ptr_array_index (v->keys, i));
              g_string_append_c (out, ':');
            }
          sim_json_write_compact (out, g_ptr_array_index (v->items, i));
        }
      g_string_append_c (out, v->kind == SIM_JSON_ARRAY ? ']' : '}');
      break;
    }
}
