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

/* HZ by era.  kernel/Kconfig.hz has offered 100, 250, 300 and 1000 with
 * default HZ_250 since 2.6.13, unchanged in every modelled era; what an
 * x86-64 build of the era gets from `make defconfig` differs:
 *   - up to 2.6.23, arch/x86_64/defconfig: CONFIG_HZ_250=y (2.6.18-rc4 and
 *     2.6.22-rc2 copies read; 2.6.23 is the last release of that tree);
 *   - from the i386/x86_64 merge on, arch/x86/configs/x86_64_defconfig:
 *     CONFIG_HZ_1000=y (2.6.30-rc2's copy, and today's savedefconfig form).
 * So 2.6.23 is 250 and the later modelled eras (2.6.31, 2.6.33, 2.6.34,
 * 6.18, 7.x) are 1000.  A kernel version is compared numerically; a word
 * that is no version (an allocator's own era name) counts as a late era. */
guint
sim_kernel_hz (const char *kernel)
{
  /* Leading numbers of "2.6.31-slqb": 2, 6, 31. */
  guint64 v[3] = { 0, 0, 0 };
  const char *s = kernel ? kernel : "";
  for (guint i = 0; i < 3 && g_ascii_isdigit (*s); i++)
    {
      char *end;
      v[i] = g_ascii_strtoull (s, &end, 10);
      s = *end == '.' ? end + 1 : "";
    }
  if (v[0] == 0)
    return 1000;
  gboolean before_merge = v[0] < 2 || (v[0] == 2 && (v[1] < 6 || (v[1] == 6 && v[2] <= 23)));
  return before_merge ? 250 : 1000;
}

gboolean
sim_alloc_param_hz (const SimAllocParam *p, guint *out, GError **error)
{
  static const guint choices[] = { 100, 250, 300, 1000 };
  guint v;
  if (!sim_alloc_param_uint (p, 100000, &v, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (choices); i++)
    if (v == choices[i])
      {
        *out = v;
        return TRUE;
      }
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
               "parameter \"%s\": %u is not a timer frequency the kernel offers "
               "(kernel/Kconfig.hz: 100, 250, 300 or 1000)", p->key, v);
  return FALSE;
}
