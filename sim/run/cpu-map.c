/* cpu-map.c - trace CPU -> machine CPU; see cpu-map.h. */
#include "sim/run/cpu-map.h"
#include "sim/core/errors.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  guint cpu, socket, thread, core;
} Place;

static int
by_compact (const void *a, const void *b)
{
  const Place *x = a, *y = b;
  if (x->socket != y->socket)
    return x->socket < y->socket ? -1 : 1;
  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->core != y->core)
    return x->core < y->core ? -1 : 1;
  return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

void
sim_cpu_map_compact_order (const SimMachine *m, guint *order)
{
  Place *p = g_new (Place, m->n_cpus);
  for (guint c = 0; c < m->n_cpus; c++)
    p[c] = (Place) { .cpu = c, .socket = m->cpus[c].socket, .thread = m->cpus[c].thread,
                     .core = m->cpus[c].core };
  qsort (p, m->n_cpus, sizeof *p, by_compact);
  for (guint i = 0; i < m->n_cpus; i++)
    order[i] = p[i].cpu;
  g_free (p);
}

/* One number of a LIST entry: digits only (of any size below 2^32, so that
 * the message can say which CPU the machine does not have). */
static gboolean
parse_cpu (const char *s, const char *end, guint64 *out)
{
  if (s == end)
    return FALSE;
  guint64 v = 0;
  for (const char *c = s; c < end; c++)
    {
      if (!g_ascii_isdigit (*c))
        return FALSE;
      v = v * 10 + (guint64) (*c - '0');
      if (v > G_MAXUINT32)
        return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
sim_cpu_map_init (SimCpuMap *map, const SimMachine *m, const char *list, GError **error)
{
  memset (map, 0, sizeof *map);
  guint n = m->n_cpus;
  guint *order = g_new (guint, n);
  sim_cpu_map_compact_order (m, order);
  map->n_cpus = n;
  map->to_machine = g_new (guint, n);
  map->to_trace = g_new (guint, n);
  if (list == NULL || strcmp (list, "compact") == 0)
    {
      memcpy (map->to_machine, order, n * sizeof *order);
      map->given = n;
      map->compact = TRUE;
    }
  else
    {
      /* machine CPU -> trace CPU + 1 of the entry that named it */
      guint *named = g_new0 (guint, n);
      guint k = 0;
      gboolean ok = TRUE;
      g_auto (GStrv) parts = g_strsplit (list, ",", -1);
      if (parts[0] == NULL)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "--cpu-map: empty list (expected machine CPUs for trace CPUs 0, 1, ... "
                       "such as 0,2 or 0-3,8-11, or compact)");
          ok = FALSE;
        }
      for (char **p = parts; ok && *p; p++)
        {
          char *e = g_strstrip (*p);
          const char *dash = strchr (e, '-');
          const char *end = e + strlen (e);
          guint64 a, b;
          if (!(dash ? parse_cpu (e, dash, &a) && parse_cpu (dash + 1, end, &b)
                     : parse_cpu (e, end, &a)))
            {
              g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                           "--cpu-map: \"%s\" is not a CPU number or range (expected a list "
                           "such as 0,2 or 0-3,8-11, or compact)", e);
              ok = FALSE;
              break;
            }
          if (!dash)
            b = a;
          if (b < a)
            {
              g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                           "--cpu-map: range \"%s\" runs backwards (expected LOW-HIGH)", e);
              ok = FALSE;
              break;
            }
          for (guint64 c = a; c <= b && ok; c++)
            {
              if (c >= n)
                {
                  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                               "--cpu-map: machine %s has no CPU %" G_GUINT64_FORMAT
                               " (it has CPUs 0-%u)", m->name, c, n - 1);
                  ok = FALSE;
                }
              else if (named[c])
                {
                  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                               "--cpu-map: machine CPU %" G_GUINT64_FORMAT " is given twice "
                               "(for trace CPUs %u and %u); each trace CPU needs its own",
                               c, named[c] - 1, k);
                  ok = FALSE;
                }
              else
                {
                  named[c] = k + 1;
                  map->to_machine[k++] = (guint) c;
                }
            }
        }
      if (ok)
        {
          map->given = k;
          /* The rest of the machine, in compact order (cpu-map.h: why). */
          for (guint i = 0; i < n; i++)
            if (!named[order[i]])
              map->to_machine[k++] = order[i];
        }
      g_free (named);
      if (!ok)
        {
          g_free (order);
          sim_cpu_map_clear (map);
          return FALSE;
        }
    }
  for (guint t = 0; t < n; t++)
    map->to_trace[map->to_machine[t]] = t;
  g_free (order);
  return TRUE;
}

void
sim_cpu_map_clear (SimCpuMap *map)
{
  g_free (map->to_machine);
  g_free (map->to_trace);
  memset (map, 0, sizeof *map);
}
