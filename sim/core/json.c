/* json.c - see json.h. */
#include "sim/core/json.h"

#include <math.h>

void
sim_json_init (SimJson *j, GString *out)
{
  j->out = out;
  j->depth = 0;
  j->first[0] = TRUE;
  j->after_key = FALSE;
}

static void
newline (SimJson *j)
{
  g_string_append_c (j->out, '\n');
  for (int i = 0; i < j->depth; i++)
    g_string_append (j->out, "  ");
}

/* Before a value or a key: the comma and indentation it needs. */
static void
before_item (SimJson *j)
{
  if (j->after_key)
    {
      j->after_key = FALSE;
      return;
    }
  if (j->depth > 0)
    {
      if (!j->first[j->depth])
        g_string_append_c (j->out, ',');
      j->first[j->depth] = FALSE;
      newline (j);
    }
}

static void
open (SimJson *j, char c)
{
  g_return_if_fail (j->depth + 1 < SIM_JSON_MAX_DEPTH);
  before_item (j);
  g_string_append_c (j->out, c);
  j->depth++;
  j->first[j->depth] = TRUE;
}

static void
close (SimJson *j, char c)
{
  g_return_if_fail (j->depth > 0);
  gboolean empty = j->first[j->depth];
  j->depth--;
  if (!empty)
    newline (j);
  g_string_append_c (j->out, c);
  if (j->depth == 0)
    g_string_append_c (j->out, '\n');
}

void sim_json_begin_object (SimJson *j) { open (j, '{'); }
void sim_json_end_object (SimJson *j) { close (j, '}'); }
void sim_json_begin_array (SimJson *j) { open (j, '['); }
void sim_json_end_array (SimJson *j) { close (j, ']'); }

void
sim_json_escape (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) s; *p; p++)
    switch (*p)
      {
      case '"':  g_string_append (out, "\\\""); break;
      case '\\': g_string_append (out, "\\\\"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      default:
        if (*p < 0x20 || *p == 0x7f)
          g_string_append_printf (out, "\\u%04x", *p);
        else
          g_string_append_c (out, *p);
      }
  g_string_append_c (out, '"');
}

void
sim_json_key (SimJson *j, const char *key)
{
  before_item (j);
  sim_json_escape (j->out, key);
  g_string_append (j->out, ": ");
  j->after_key = TRUE;
}

void
sim_json_string (SimJson *j, const char *s)
{
  before_item (j);
  sim_json_escape (j->out, s);
}

void
sim_json_uint (SimJson *j, guint64 v)
{
  before_item (j);
  g_string_append_printf (j->out, "%" G_GUINT64_FORMAT, v);
}

void
sim_json_int (SimJson *j, gint64 v)
{
  before_item (j);
  g_string_append_printf (j->out, "%" G_GINT64_FORMAT, v);
}

void
sim_json_double (SimJson *j, double v, int decimals)
{
  before_item (j);
  if (!isfinite (v))
    {
      g_string_append (j->out, "null");
      return;
    }
  char fmt[16], buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_snprintf (fmt, sizeof fmt, "%%.%df", CLAMP (decimals, 0, 17));
  g_string_append (j->out, g_ascii_formatd (buf, sizeof buf, fmt, v));
}

void
sim_json_bool (SimJson *j, gboolean v)
{
  before_item (j);
  g_string_append (j->out, v ? "true" : "false");
}

void
sim_json_null (SimJson *j)
{
  before_item (j);
  g_string_append (j->out, "null");
}
