/* alloc-spec.c - split "NAME[@KERNEL][:KEY[=VALUE],...]".
 *
 * The grammar is deliberately small: a name of lower-case letters, digits,
 * '_' and '-'; after '@' a kernel version of digits and dots (or any word an
 * allocator may define, such as "2009"); after ':' a comma list of
 * parameters.  A parameter without '=' is a boolean boot flag (the kernel's
 * "slub_nomerge" takes no value).  Keys may not repeat: the kernel would
 * silently let the last one win, which in a simulation is nearly always a
 * typo.
 */
#include "models/alloc/alloc-spec.h"
#include "sim/core/errors.h"

#include <string.h>

static gboolean
valid_word (const char *s, const char *extra)
{
  if (*s == '\0')
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isalnum (*s) && strchr (extra, *s) == NULL)
      return FALSE;
  return TRUE;
}

void
sim_alloc_spec_free (SimAllocSpec *spec)
{
  if (spec == NULL)
    return;
  for (guint i = 0; spec->params && i < spec->params->len; i++)
    {
      SimAllocParam *p = &g_array_index (spec->params, SimAllocParam, i);
      g_free (p->key);
      g_free (p->value);
    }
  if (spec->params)
    g_array_free (spec->params, TRUE);
  g_free (spec->name);
  g_free (spec->kernel);
  g_free (spec);
}

static gboolean
bad (GError **error, const char *text, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
bad (GError **error, const char *text, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
               "allocator \"%s\": %s (expected NAME[@KERNEL][:PARAM=VALUE,...],"
               " e.g. slub@2.6.23:slub_max_order=3)", text, what);
  return FALSE;
}

SimAllocSpec *
sim_alloc_spec_parse (const char *text, GError **error)
{
  g_return_val_if_fail (text != NULL, NULL);

  g_autoptr (SimAllocSpec) spec = g_new0 (SimAllocSpec, 1);
  spec->params = g_array_new (FALSE, TRUE, sizeof (SimAllocParam));

  const char *colon = strchr (text, ':');
  g_autofree char *head = colon ? g_strndup (text, colon - text) : g_strdup (text);
  char *at = strchr (head, '@');
  if (at)
    {
      *at = '\0';
      if (!valid_word (at + 1, "._-"))
        {
          bad (error, text, at[1] ? "kernel \"%s\" is not a version" : "empty kernel version%s",
               at + 1);
          return NULL;
        }
      spec->kernel = g_strdup (at + 1);
    }
  if (!valid_word (head, "_-"))
    {
      bad (error, text, head[0] ? "\"%s\" is not an allocator name" : "empty allocator name%s",
           head);
      return NULL;
    }
  spec->name = g_strdup (head);

  if (colon == NULL)
    return g_steal_pointer (&spec);

  if (colon[1] == '\0')
    {
      bad (error, text, "empty parameter list after \":\"");
      return NULL;
    }
  g_auto (GStrv) parts = g_strsplit (colon + 1, ",", -1);
  for (guint i = 0; parts[i]; i++)
    {
      char *eq = strchr (parts[i], '=');
      SimAllocParam p = { NULL, NULL };
      p.key = eq ? g_strndup (parts[i], eq - parts[i]) : g_strdup (parts[i]);
      if (eq)
        p.value = g_strdup (eq + 1);
      if (!valid_word (p.key, "_"))
        {
          bad (error, text, p.key[0] ? "parameter name \"%s\" is not a word"
                                     : "empty parameter%s", p.key);
          g_free (p.key);
          g_free (p.value);
          return NULL;
        }
      if (p.value && p.value[0] == '\0')
        {
          bad (error, text, "parameter \"%s\" has an empty value", p.key);
          g_free (p.key);
          g_free (p.value);
          return NULL;
        }
      for (guint j = 0; j < spec->params->len; j++)
        if (strcmp (g_array_index (spec->params, SimAllocParam, j).key, p.key) == 0)
          {
            bad (error, text, "parameter \"%s\" given twice", p.key);
            g_free (p.key);
            g_free (p.value);
            return NULL;
          }
      g_array_append_val (spec->params, p);
    }
  return g_steal_pointer (&spec);
}

gboolean
sim_alloc_param_uint (const SimAllocParam *p, guint max, guint *out, GError **error)
{
  guint64 v = 0;
  if (p->value == NULL)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "parameter \"%s\" needs a value (expected %s=N)", p->key, p->key);
      return FALSE;
    }
  if (!g_ascii_string_to_unsigned (p->value, 10, 0, max, &v, NULL))
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "parameter \"%s\": \"%s\" is not a number from 0 to %u",
                   p->key, p->value, max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}
