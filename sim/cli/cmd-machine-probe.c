/* cmd-machine-probe.c - "slabsim machine probe": a machine YAML for the host.
 *
 * Everything structural comes from sysfs, the kernel's own view of the box:
 *
 *   cpuN/topology/{physical_package_id,core_id,thread_siblings_list}
 *       sockets, cores per socket, threads per core and how Linux numbers
 *       them (a numbering preset when one matches, else an explicit cpus:
 *       list);
 *   cpuN/cache/indexM/{level,type,size,ways_of_associativity,
 *                      coherency_line_size,shared_cpu_list}
 *       the data and unified levels of cpu0, and from the CPUs sharing each
 *       one whether it is per core, per socket or per group of cores;
 *   node/nodeN/{cpulist,meminfo}
 *       NUMA nodes and their size.
 *
 * sysfs says nothing about latencies, inclusion or replacement.  Latencies
 * are measured by a pointer chase (one random cyclic permutation of the
 * lines of a buffer sized to fit each level, nanoseconds per dependent load
 * converted to cycles with the frequency) unless --no-measure; what is not
 * measured is written with "# estimate" and what the estimate rests on, so
 * nobody mistakes it for a measurement.  The cost of a line modified in
 * another core (local_hitm, and remote_hitm across sockets) is measured by
 * a core-to-core ping-pong: two threads pinned to two CPUs bounce one cache
 * line, each waiting for the other's store; half a round trip is one
 * transfer of a modified line.  It runs only on the host's own /sys (a
 * --sysfs tree describes another machine, whose CPUs cannot be pinned) and
 * says so when the CPUs cannot be pinned.  Inclusion, replacement and the
 * cost of a clean line in another core are always estimates.
 *
 * The YAML is loaded with the machine loader before anything is written, so
 * the output always loads with "slabsim machine show".  --sysfs ROOT points
 * at another tree (tests/data/sysfs-* for the tests); then /proc is not read
 * either, so the output depends only on the tree.
 */
/* sched_setaffinity, cpu_set_t */
#define _GNU_SOURCE 1
#include "sim/cli/cli.h"
#include "sim/config/machine.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MAX_CPUS 1024
#define MAX_LEVELS 4

typedef struct
{
  int package, core_id, socket, core, thread;
} ProbeCpu;

typedef struct
{
  guint level;
  char name[8];
  guint64 size;                 /* as sysfs says */
  guint ways, line;
  guint sharing;                /* CPUs in shared_cpu_list */
  guint64 model_size;           /* what the file says (a valid geometry) */
  guint model_ways;
  char *geometry_note;          /* why model_* differ from sysfs, or NULL */
  double measured_ns;           /* < 0: not measured */
} ProbeCache;

typedef struct
{
  const char *root;
  gboolean host_proc;           /* root is /sys: /proc may be read too */
  guint n_cpus;
  ProbeCpu cpus[MAX_CPUS];
  guint sockets, cores, threads;
  guint n_levels;
  ProbeCache levels[MAX_LEVELS];
  guint n_nodes;
  gboolean nodes_are_sockets;
  guint64 node_bytes;           /* 0: unknown */
  double ghz;
  char *freq_source;
  double mem_ns;                /* < 0: not measured */
  /* Ping-pong pairs (cpu0 and another core of its socket; cpu0 and a CPU
   * of another socket), -1 when the machine has none, and what was found:
   * nanoseconds one way (< 0: not measured, why in *_why). */
  int local_peer, remote_peer;
  double local_hitm_ns, remote_hitm_ns;
  char *local_why, *remote_why;
} Probe;

/* ---- reading sysfs ---------------------------------------------------- */

static char *
read_text (const char *path, GError **error)
{
  char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  return g_strstrip (text);
}

static gboolean
read_uint (const char *path, guint64 *out, GError **error)
{
  g_autofree char *t = read_text (path, error);
  if (t == NULL)
    return FALSE;
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull (t, &end, 10);
  if (end == t || errno != 0)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                   "%s: expected a number, got \"%s\"", path, t);
      return FALSE;
    }
  /* sysfs cache sizes are "32K"; anything after the digits is a unit. */
  if (*end == 'K')
    v <<= 10;
  else if (*end == 'M')
    v <<= 20;
  else if (*end != '\0')
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                   "%s: expected a number, got \"%s\"", path, t);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* A cpulist ("0-3,8-11") into a sorted list of CPU numbers.  Returns the
 * count, or -1 with @error set. */
static int
read_cpulist (const char *path, guint *cpus, guint max, GError **error)
{
  g_autofree char *t = read_text (path, error);
  if (t == NULL)
    return -1;
  int n = 0;
  g_auto (GStrv) parts = g_strsplit (t, ",", -1);
  for (char **p = parts; *p; p++)
    {
      if (**p == '\0')
        continue;
      guint64 a, b;
      char *end = NULL;
      a = g_ascii_strtoull (*p, &end, 10);
      if (end == *p)
        goto bad;
      b = a;
      if (*end == '-')
        {
          char *s = end + 1;
          b = g_ascii_strtoull (s, &end, 10);
          if (end == s)
            goto bad;
        }
      if (*end != '\0' || b < a || b >= MAX_CPUS)
        goto bad;
      for (guint64 c = a; c <= b; c++)
        {
          if ((guint) n >= max)
            goto bad;
          cpus[n++] = (guint) c;
        }
    }
  return n;
bad:
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
               "%s: expected a CPU list such as 0-3,8-11 (CPUs below %d), got \"%s\"",
               path, MAX_CPUS, t);
  return -1;
}

static int
cmp_int (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

static gboolean
probe_topology (Probe *p, GError **error)
{
  g_autofree char *dir = g_build_filename (p->root, "devices/system/cpu", NULL);
  guint n = 0;
  for (guint c = 0; c < MAX_CPUS; c++)
    {
      g_autofree char *topo = g_strdup_printf ("%s/cpu%u/topology", dir, c);
      if (!g_file_test (topo, G_FILE_TEST_IS_DIR))
        break;
      n++;
    }
  if (n == 0)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                   "%s/cpu0/topology: no such directory (is %s a sysfs tree?)", dir, p->root);
      return FALSE;
    }
  p->n_cpus = n;

  int pkgs[MAX_CPUS];
  for (guint c = 0; c < n; c++)
    {
      guint64 v;
      g_autofree char *f1 = g_strdup_printf ("%s/cpu%u/topology/physical_package_id", dir, c);
      if (!read_uint (f1, &v, error))
        return FALSE;
      p->cpus[c].package = (int) v;
      g_autofree char *f2 = g_strdup_printf ("%s/cpu%u/topology/core_id", dir, c);
      if (!read_uint (f2, &v, error))
        return FALSE;
      p->cpus[c].core_id = (int) v;
      pkgs[c] = p->cpus[c].package;
    }

  /* Sockets: distinct package ids, numbered in increasing order. */
  qsort (pkgs, n, sizeof *pkgs, cmp_int);
  int uniq[MAX_CPUS];
  guint n_pkg = 0;
  for (guint i = 0; i < n; i++)
    if (n_pkg == 0 || uniq[n_pkg - 1] != pkgs[i])
      uniq[n_pkg++] = pkgs[i];
  p->sockets = n_pkg;

  /* Cores: distinct core ids within each package, in increasing order (they
   * are often sparse: 0,1,2,8,9,10). */
  p->cores = 0;
  for (guint s = 0; s < n_pkg; s++)
    {
      int ids[MAX_CPUS];
      guint k = 0;
      for (guint c = 0; c < n; c++)
        if (p->cpus[c].package == uniq[s])
          ids[k++] = p->cpus[c].core_id;
      qsort (ids, k, sizeof *ids, cmp_int);
      guint cores = 0;
      int cid[MAX_CPUS];
      for (guint i = 0; i < k; i++)
        if (cores == 0 || cid[cores - 1] != ids[i])
          cid[cores++] = ids[i];
      if (s > 0 && cores != p->cores)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                       "%s: package %d has %u cores but package %d has %u; the machine "
                       "schema needs the same number in every socket", dir, uniq[s], cores,
                       uniq[0], p->cores);
          return FALSE;
        }
      p->cores = cores;
      for (guint c = 0; c < n; c++)
        if (p->cpus[c].package == uniq[s])
          {
            p->cpus[c].socket = (int) s;
            for (guint i = 0; i < cores; i++)
              if (cid[i] == p->cpus[c].core_id)
                p->cpus[c].core = (int) i;
          }
    }

  /* Threads: the position of each CPU among its core's siblings. */
  p->threads = 0;
  for (guint c = 0; c < n; c++)
    {
      guint sib[MAX_CPUS];
      g_autofree char *f = g_strdup_printf ("%s/cpu%u/topology/thread_siblings_list", dir, c);
      int k = read_cpulist (f, sib, MAX_CPUS, error);
      if (k < 0)
        return FALSE;
      if (c > 0 && (guint) k != p->threads)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                       "%s: cpu%u has %d SMT threads but cpu0 has %u; the machine schema "
                       "needs the same number in every core (a hybrid part?)", dir, c, k,
                       p->threads);
          return FALSE;
        }
      p->threads = (guint) k;
      p->cpus[c].thread = -1;
      for (int i = 0; i < k; i++)
        if (sib[i] == c)
          p->cpus[c].thread = i;
      if (p->cpus[c].thread < 0)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                       "%s: cpu%u is not in its own thread_siblings_list", dir, c);
          return FALSE;
        }
    }
  if ((guint64) p->sockets * p->cores * p->threads != n)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                   "%s: %u CPUs are not %u sockets x %u cores x %u threads (CPUs offline?)",
                   dir, n, p->sockets, p->cores, p->threads);
      return FALSE;
    }
  return TRUE;
}

/* The numbering preset that matches every CPU, or NULL (docs/machines.md). */
static const char *
numbering_preset (const Probe *p)
{
  static const char *const names[] = { "socket-major", "socket-interleaved", "smt-adjacent" };
  guint S = p->sockets, C = p->cores, T = p->threads;
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      gboolean all = TRUE;
      for (guint c = 0; c < p->n_cpus && all; c++)
        {
          guint s = (guint) p->cpus[c].socket, co = (guint) p->cpus[c].core,
                t = (guint) p->cpus[c].thread, want;
          if (k == 0)
            want = t * S * C + s * C + co;
          else if (k == 1)
            want = t * S * C + co * S + s;
          else
            want = (s * C + co) * T + t;
          all = want == c;
        }
      if (all)
        return names[k];
    }
  return NULL;
}

/* A capacity the schema takes: ways x line x a power-of-two number of sets.
 * sysfs gives what the hardware says; odd ones (a 30 MiB 20-way L3) keep
 * their capacity with the nearest way count that makes the sets a power of
 * two, as the bundled machines do; failing that the size is rounded down. */
static void
fit_geometry (ProbeCache *l)
{
  guint64 lines = l->size / l->line;
  l->model_size = l->size;
  l->model_ways = l->ways;
  if (lines % l->ways == 0 && ((lines / l->ways) & (lines / l->ways - 1)) == 0
      && l->size % l->line == 0)
    return;
  guint64 odd = lines;
  while (odd > 0 && odd % 2 == 0)
    odd /= 2;
  if (lines > 0 && l->size % l->line == 0 && odd <= 255)
    {
      guint best = 0;
      for (guint64 w = odd; w <= 255 && w <= lines; w *= 2)
        if (best == 0 || (w > l->ways ? w - l->ways : l->ways - w)
                         < (best > l->ways ? best - l->ways : l->ways - best))
          best = (guint) w;
      if (best)
        {
          l->model_ways = best;
          l->geometry_note = g_strdup_printf ("sysfs: %u ways; %u keeps the capacity with a "
                                              "power-of-two number of sets", l->ways, best);
          return;
        }
    }
  guint64 sets = 1;
  while (sets * 2 * l->ways * l->line <= l->size)
    sets *= 2;
  l->model_size = sets * l->ways * l->line;
  l->geometry_note = g_strdup_printf ("sysfs: %" G_GUINT64_FORMAT " bytes, rounded down to a "
                                      "power-of-two number of sets", l->size);
}

static gboolean
probe_caches (Probe *p, GError **error)
{
  g_autofree char *dir = g_build_filename (p->root, "devices/system/cpu/cpu0/cache", NULL);
  p->n_levels = 0;
  for (guint i = 0; i < 32; i++)
    {
      g_autofree char *idx = g_strdup_printf ("%s/index%u", dir, i);
      if (!g_file_test (idx, G_FILE_TEST_IS_DIR))
        break;
      g_autofree char *tf = g_build_filename (idx, "type", NULL);
      g_autofree char *type = read_text (tf, error);
      if (type == NULL)
        return FALSE;
      if (strcmp (type, "Instruction") == 0)
        continue;               /* the model follows data only */
      if (strcmp (type, "Data") != 0 && strcmp (type, "Unified") != 0)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                       "%s: expected Data, Instruction or Unified, got \"%s\"", tf, type);
          return FALSE;
        }
      if (p->n_levels == MAX_LEVELS)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                       "%s: more than %d data cache levels (the schema's limit)", dir,
                       MAX_LEVELS);
          return FALSE;
        }
      ProbeCache *l = &p->levels[p->n_levels];
      memset (l, 0, sizeof *l);
      l->measured_ns = -1;
      guint64 v;
      g_autofree char *f1 = g_build_filename (idx, "level", NULL);
      g_autofree char *f2 = g_build_filename (idx, "size", NULL);
      g_autofree char *f3 = g_build_filename (idx, "ways_of_associativity", NULL);
      g_autofree char *f4 = g_build_filename (idx, "coherency_line_size", NULL);
      g_autofree char *f5 = g_build_filename (idx, "shared_cpu_list", NULL);
      if (!read_uint (f1, &v, error))
        return FALSE;
      l->level = (guint) v;
      if (!read_uint (f2, &l->size, error))
        return FALSE;
      if (!read_uint (f3, &v, error))
        return FALSE;
      l->ways = (guint) v;
      if (!read_uint (f4, &v, error))
        return FALSE;
      l->line = (guint) v;
      guint cpus[MAX_CPUS];
      int k = read_cpulist (f5, cpus, MAX_CPUS, error);
      if (k < 0)
        return FALSE;
      l->sharing = (guint) k;
      if (l->ways == 0 || l->ways > 255 || l->line < 16 || (l->line & (l->line - 1))
          || l->size < (guint64) l->ways * l->line)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                       "%s: a %" G_GUINT64_FORMAT "-byte cache of %u ways and %u-byte lines "
                       "cannot be modelled (1-255 ways, a power-of-two line of 16 bytes or more)",
                       idx, l->size, l->ways, l->line);
          return FALSE;
        }
      g_snprintf (l->name, sizeof l->name, "L%u%s", l->level,
                  strcmp (type, "Data") == 0 ? "d" : "");
      fit_geometry (l);
      p->n_levels++;
    }
  if (p->n_levels == 0)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                   "%s: no data or unified cache (no index*/ directories)", dir);
      return FALSE;
    }
  /* Closest to the core first. */
  for (guint i = 1; i < p->n_levels; i++)
    for (guint j = i; j > 0 && p->levels[j].level < p->levels[j - 1].level; j--)
      {
        ProbeCache t = p->levels[j];
        p->levels[j] = p->levels[j - 1];
        p->levels[j - 1] = t;
      }
  for (guint i = 0; i < p->n_levels; i++)
    if (p->levels[i].line != p->levels[0].line)
      {
        g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_INVALID,
                     "%s: line size %u of %s differs from %u of %s (the model needs one)",
                     dir, p->levels[i].line, p->levels[i].name, p->levels[0].line,
                     p->levels[0].name);
        return FALSE;
      }
  return TRUE;
}

static guint64
meminfo_total (const char *path, const char *key)
{
  g_autofree char *t = NULL;
  if (!g_file_get_contents (path, &t, NULL, NULL))
    return 0;
  const char *at = strstr (t, key);
  if (at == NULL)
    return 0;
  at += strlen (key);
  while (*at == ' ' || *at == ':')
    at++;
  return g_ascii_strtoull (at, NULL, 10) << 10;   /* kB */
}

static gboolean
probe_nodes (Probe *p, GError **error)
{
  g_autofree char *dir = g_build_filename (p->root, "devices/system/node", NULL);
  p->n_nodes = 0;
  p->nodes_are_sockets = TRUE;
  p->node_bytes = 0;
  for (guint n = 0; n < MAX_CPUS; n++)
    {
      g_autofree char *f = g_strdup_printf ("%s/node%u/cpulist", dir, n);
      if (!g_file_test (f, G_FILE_TEST_EXISTS))
        break;
      guint cpus[MAX_CPUS];
      int k = read_cpulist (f, cpus, MAX_CPUS, error);
      if (k < 0)
        return FALSE;
      /* The schema's NUMA node n is socket n and holds all its CPUs. */
      guint in_socket = 0;
      for (guint c = 0; c < p->n_cpus; c++)
        in_socket += p->cpus[c].socket == (int) n;
      gboolean same = (guint) k == in_socket;
      for (int i = 0; i < k && same; i++)
        same = cpus[i] < p->n_cpus && p->cpus[cpus[i]].socket == (int) n;
      p->nodes_are_sockets &= same;
      g_autofree char *mi = g_strdup_printf ("%s/node%u/meminfo", dir, n);
      char key[32];
      g_snprintf (key, sizeof key, "Node %u MemTotal", n);
      guint64 b = meminfo_total (mi, key);
      if (b && (p->node_bytes == 0 || b < p->node_bytes))
        p->node_bytes = b;
      p->n_nodes++;
    }
  if (p->n_nodes == 0)
    p->n_nodes = 1;             /* a kernel without CONFIG_NUMA */
  if (p->node_bytes == 0 && p->host_proc)
    p->node_bytes = meminfo_total ("/proc/meminfo", "MemTotal") / p->n_nodes;
  return TRUE;
}

static void
probe_frequency (Probe *p)
{
  g_autofree char *f = g_build_filename (p->root,
                                         "devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", NULL);
  guint64 khz = 0;
  if (read_uint (f, &khz, NULL) && khz > 0)
    {
      p->ghz = (double) khz / 1e6;
      p->freq_source = g_strdup ("cpu0 cpufreq cpuinfo_max_freq");
      return;
    }
  g_autofree char *t = NULL;
  if (p->host_proc && g_file_get_contents ("/proc/cpuinfo", &t, NULL, NULL))
    {
      const char *at = strstr (t, "cpu MHz");
      if (at && (at = strchr (at, ':')))
        {
          double mhz = g_ascii_strtod (at + 1, NULL);
          if (mhz > 100)
            {
              p->ghz = mhz / 1000;
              p->freq_source = g_strdup ("/proc/cpuinfo \"cpu MHz\" of the first CPU");
              return;
            }
        }
    }
  p->ghz = 2.0;
  p->freq_source = g_strdup ("estimate: neither cpufreq nor /proc/cpuinfo gave a clock");
}

/* ---- the pointer chase ------------------------------------------------ */

static double
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* Nanoseconds per dependent load walking one random cycle through every
 * line of a @bytes buffer (Sattolo's shuffle gives a single cycle, so the
 * prefetchers see no stride).  The buffer is 2 MiB aligned and offered to
 * transparent huge pages so that page walks inflate the large levels as
 * little as the host allows.  -1 when the memory is not there. */
static double
chase_ns (gsize bytes, guint line, guint64 loads)
{
  gsize n = bytes / line;
  if (n < 2)
    return -1;
  void *mem = NULL;
  if (posix_memalign (&mem, 2u << 20, bytes) != 0)
    return -1;
#ifdef MADV_HUGEPAGE
  madvise (mem, bytes, MADV_HUGEPAGE);
#endif
  char *buf = mem;
  guint32 *perm = g_try_new (guint32, n);
  if (perm == NULL)
    {
      free (mem);
      return -1;
    }
  for (gsize i = 0; i < n; i++)
    perm[i] = (guint32) i;
  GRand *r = g_rand_new_with_seed (1);
  for (gsize i = n - 1; i > 0; i--)
    {
      gsize j = (gsize) g_rand_int_range (r, 0, (gint32) i);
      guint32 t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
  g_rand_free (r);
  for (gsize i = 0; i < n; i++)
    *(void **) (buf + (gsize) i * line) = buf + (gsize) perm[i] * line;
  g_free (perm);

  void *volatile sink;
  void **q = (void **) buf;
  for (gsize i = 0; i < n; i++)     /* one lap to warm the level */
    q = *q;
  double best = -1;
  /* The fastest of many short runs: a run the scheduler interrupted, or a
   * busy sibling thread slowed, is thrown away rather than averaged in. */
  for (int rep = 0; rep < 16; rep++)
    {
      double t0 = now_ns ();
      for (guint64 i = 0; i < loads; i++)
        q = *q;
      double dt = (now_ns () - t0) / (double) loads;
      if (best < 0 || dt < best)
        best = dt;
    }
  sink = q;
  (void) sink;
  free (mem);
  return best;
}

static void
measure (Probe *p)
{
  guint line = p->levels[0].line;
  for (guint i = 0; i < p->n_levels; i++)
    {
      /* Half the level, clear of conflicts and of the neighbours sharing
       * it, but no more than four times the level inside it: enough to miss
       * there, and few pages, so TLB misses do not pass for latency. */
      gsize bytes = (gsize) (p->levels[i].size / 2);
      if (i > 0 && bytes > p->levels[i - 1].size * 4)
        bytes = (gsize) p->levels[i - 1].size * 4;
      guint64 loads = i == 0 ? 1u << 20 : i == 1 ? 1u << 19 : 1u << 18;
      p->levels[i].measured_ns = chase_ns (bytes, line, loads);
    }
  /* Memory: four times the last level, 32-256 MiB. */
  gsize mem = (gsize) MIN (MAX (p->levels[p->n_levels - 1].size * 4, (guint64) 32 << 20),
                           (guint64) 256 << 20);
  p->mem_ns = chase_ns (mem, line, 1u << 17);
}

/* ---- the core-to-core ping-pong ------------------------------------------ */

/* The pairs: cpu0 with the lowest CPU of its socket on another core (not an
 * SMT sibling: they share L1), and with the lowest CPU of another socket. */
static void
choose_pairs (Probe *p)
{
  p->local_peer = p->remote_peer = -1;
  for (guint c = 1; c < p->n_cpus; c++)
    {
      const ProbeCpu *a = &p->cpus[0], *b = &p->cpus[c];
      if (p->local_peer < 0 && b->socket == a->socket && b->core != a->core)
        p->local_peer = (int) c;
      if (p->remote_peer < 0 && b->socket != a->socket)
        p->remote_peer = (int) c;
    }
}

typedef struct
{
  /* The bounced line: alone in its cache line. */
  gint flag __attribute__ ((aligned (64)));
  char pad[64 - sizeof (gint)];
  guint cpu;                    /* the partner's */
  gint pinned;                  /* 0 starting, 1 pinned, -1 could not pin */
} PingPong;

static gboolean
pin_self (guint cpu)
{
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  return sched_setaffinity (0, sizeof set, &set) == 0;
#else
  (void) cpu;
  return FALSE;
#endif
}

/* The partner: waits for each odd value and answers with the next even
 * one; a negative value ends it. */
static gpointer
pong (gpointer data)
{
  PingPong *pp = data;
  if (!pin_self (pp->cpu))
    {
      g_atomic_int_set (&pp->pinned, -1);
      return NULL;
    }
  g_atomic_int_set (&pp->pinned, 1);
  gint want = 1;
  for (;;)
    {
      gint v;
      while ((v = g_atomic_int_get (&pp->flag)) != want)
        if (v < 0)
          return NULL;
      g_atomic_int_set (&pp->flag, want + 1);
      want += 2;
    }
}

#define PP_ROUNDS 2000          /* round trips per run */
#define PP_RUNS   48
#define PP_BUDGET_NS 3e9        /* give up after this long (a CPU kept busy elsewhere) */

/* Nanoseconds for one transfer of a modified line between @a and @b, or -1
 * with *why set. */
static double
ping_pong_ns (guint a, guint b, char **why)
{
#ifdef __linux__
  cpu_set_t saved;
  if (sched_getaffinity (0, sizeof saved, &saved) != 0)
    {
      *why = g_strdup_printf ("not measured: cannot read this thread's CPU affinity (%s)",
                              g_strerror (errno));
      return -1;
    }
  if (!pin_self (a))
    {
      *why = g_strdup_printf ("not measured: cannot pin to cpu%u (%s)", a, g_strerror (errno));
      return -1;
    }
  PingPong *pp = NULL;
  if (posix_memalign ((void **) &pp, 64, sizeof *pp) != 0)
    {
      sched_setaffinity (0, sizeof saved, &saved);
      *why = g_strdup ("not measured: out of memory");
      return -1;
    }
  memset (pp, 0, sizeof *pp);
  pp->cpu = b;
  GThread *t = g_thread_new ("ping-pong", pong, pp);
  while (g_atomic_int_get (&pp->pinned) == 0)
    g_thread_yield ();
  double best = -1;
  if (g_atomic_int_get (&pp->pinned) < 0)
    *why = g_strdup_printf ("not measured: cannot pin to cpu%u", b);
  else
    {
      gint next = 1;
      double start = now_ns ();
      gboolean late = FALSE;
      /* The fastest of many short runs, as for the chase. */
      for (int run = 0; run < PP_RUNS && !late; run++)
        {
          double t0 = now_ns ();
          for (int i = 0; i < PP_ROUNDS && !late; i++)
            {
              g_atomic_int_set (&pp->flag, next);
              guint spins = 0;
              while (g_atomic_int_get (&pp->flag) != next + 1)
                if ((++spins & 0xffff) == 0 && now_ns () - start > PP_BUDGET_NS)
                  {
                    late = TRUE;
                    break;
                  }
              next += 2;
              /* A partner descheduled between round trips makes each one
               * slow without any long spin: the budget holds over the
               * whole measurement (a check every 64 round trips). */
              if ((i & 63) == 63 && now_ns () - start > PP_BUDGET_NS)
                late = TRUE;
            }
          if (late)
            break;
          double dt = (now_ns () - t0) / PP_ROUNDS / 2;
          if (best < 0 || dt < best)
            best = dt;
        }
      if (late && best < 0)
        *why = g_strdup_printf ("not measured: cpu%u and cpu%u did not answer within %.0f s "
                                "(busy host)", a, b, PP_BUDGET_NS / 1e9);
    }
  g_atomic_int_set (&pp->flag, -1);
  g_thread_join (t);
  free (pp);
  sched_setaffinity (0, sizeof saved, &saved);
  return best;
#else
  (void) a;
  (void) b;
  *why = g_strdup ("not measured: pinning threads needs Linux");
  return -1;
#endif
}

static void
measure_coherence (Probe *p)
{
  p->local_hitm_ns = p->remote_hitm_ns = -1;
  if (p->local_peer >= 0)
    p->local_hitm_ns = ping_pong_ns (0, (guint) p->local_peer, &p->local_why);
  if (p->remote_peer >= 0)
    p->remote_hitm_ns = ping_pong_ns (0, (guint) p->remote_peer, &p->remote_why);
}

/* ---- writing ---------------------------------------------------------- */

/* Typical load-to-use figures of recent x86 parts (docs/machines.md's
 * bundled machines): the estimate when nothing was measured. */
static const guint typical_cycles[MAX_LEVELS + 1] = { 0, 4, 14, 42, 60 };

static void
put_size (GString *s, guint64 b)
{
  if (b % (1u << 30) == 0)
    g_string_append_printf (s, "%" G_GUINT64_FORMAT "G", b >> 30);
  else if (b % (1u << 20) == 0)
    g_string_append_printf (s, "%" G_GUINT64_FORMAT "M", b >> 20);
  else if (b % (1u << 10) == 0)
    g_string_append_printf (s, "%" G_GUINT64_FORMAT "K", b >> 10);
  else
    g_string_append_printf (s, "%" G_GUINT64_FORMAT, b);
}

static char *
render (const Probe *p, const char *host, const char *when, gboolean measured)
{
  GString *s = g_string_new (NULL);
  g_autofree char *mark = g_strdup_printf ("measured on %s (%s)", host, when);
  g_string_append_printf (s, "# Written by \"slabsim machine probe\" from %s on %s (%s).\n"
                          "# Structure from sysfs; latencies %s.\n", p->root, host, when,
                          measured ? "from a pointer chase where marked \"measured\""
                                   : "not measured (--no-measure): estimates");
  g_autofree char *safe = g_strdup (host);
  for (char *c = safe; *c; c++)
    if (!g_ascii_isalnum (*c) && *c != '-' && *c != '.')
      *c = '-';
  g_string_append_printf (s, "name: \"probe-%s\"\n", safe);
  g_string_append_printf (s, "description: \"%s as probed: %u socket%s x %u cores x %u "
                          "thread%s, %u NUMA node%s\"\n", safe, p->sockets,
                          p->sockets == 1 ? "" : "s", p->cores, p->threads,
                          p->threads == 1 ? "" : "s", p->n_nodes, p->n_nodes == 1 ? "" : "s");
  g_string_append_printf (s, "frequency: %.0fMHz               # %s\n", p->ghz * 1000,
                          p->freq_source);
  g_string_append (s, "\ntopology:\n");
  g_string_append_printf (s, "  sockets: %u\n  cores_per_socket: %u\n  threads_per_core: %u\n",
                          p->sockets, p->cores, p->threads);
  const char *preset = numbering_preset (p);
  if (preset)
    g_string_append_printf (s, "  numbering: %s\n", preset);
  else
    {
      g_string_append (s, "  cpus:                         # no numbering preset matches\n");
      for (guint c = 0; c < p->n_cpus; c++)
        g_string_append_printf (s, "    - {cpu: %u, socket: %d, core: %d, thread: %d}\n", c,
                                p->cpus[c].socket, p->cpus[c].core, p->cpus[c].thread);
    }

  g_string_append (s, "\ncaches:\n");
  for (guint i = 0; i < p->n_levels; i++)
    {
      const ProbeCache *l = &p->levels[i];
      g_string_append_printf (s, "  %s:\n    size: ", l->name);
      put_size (s, l->model_size);
      g_string_append_printf (s, "%s%s\n", l->geometry_note ? "    # " : "",
                              l->geometry_note ? l->geometry_note : "");
      g_string_append_printf (s, "    ways: %u\n    line: %u\n", l->model_ways, l->line);
      if (l->measured_ns > 0)
        g_string_append_printf (s, "    latency: %.0f                 # %s: %.2f ns per load "
                                "x %.3f GHz\n", MAX (1.0, round (l->measured_ns * p->ghz)),
                                mark, l->measured_ns, p->ghz);
      else
        g_string_append_printf (s, "    latency: %u                 # estimate: typical L%u "
                                "of recent x86 parts, not measured\n",
                                typical_cycles[MIN (l->level, MAX_LEVELS)], l->level);
      /* Per core when only the core's threads share it, per socket when all
       * of it does, else per group of cores. */
      if (l->sharing <= p->threads)
        g_string_append (s, "    shared: core\n");
      else if (l->sharing == p->cores * p->threads)
        g_string_append (s, "    shared: socket\n");
      else
        g_string_append_printf (s, "    shared: %u\n", l->sharing / p->threads);
      if (i > 0)
        g_string_append (s, "    inclusion: non-inclusive    # estimate: sysfs does not say\n");
      g_string_append_printf (s, "    next: %s\n",
                              i + 1 < p->n_levels ? p->levels[i + 1].name : "memory");
    }

  g_string_append (s, "\ncoherence:\n"
                   "  # sysfs does not say.  The hitm latencies from a core-to-core ping-pong\n"
                   "  # where marked (a line bounced between two pinned threads, half a round\n"
                   "  # trip); the rest estimates from the docs/machines.md example.\n"
                   "  protocol: mesi                # estimate\n");
  const ProbeCache *last = &p->levels[p->n_levels - 1];
  if (last->measured_ns > 0 && last->sharing > p->threads)
    g_string_append_printf (s, "  local_clean: %.0f               # estimate: the shared %s's "
                            "measured latency (a clean line of another core is served there)\n",
                            MAX (1.0, round (last->measured_ns * p->ghz)), last->name);
  else
    g_string_append (s, "  local_clean: 60               # estimate\n");
  char pair[64];
  if (p->local_peer < 0)
    g_string_append (s, "  local_hitm: 70                # estimate: no other core in cpu0's "
                        "socket\n");
  else if (p->local_hitm_ns > 0)
    {
      g_snprintf (pair, sizeof pair, "cpu0-cpu%d", p->local_peer);
      g_string_append_printf (s, "  local_hitm: %.0f                # %s: ping-pong %s, %.1f ns "
                              "one way x %.3f GHz\n", MAX (1.0, round (p->local_hitm_ns * p->ghz)),
                              mark, pair, p->local_hitm_ns, p->ghz);
    }
  else
    g_string_append_printf (s, "  local_hitm: 70                # estimate; ping-pong "
                            "cpu0-cpu%d %s\n", p->local_peer,
                            p->local_why ? p->local_why : "not measured (--no-measure)");
  if (p->remote_peer < 0)
    g_string_append (s, "  remote_clean: 110ns           # one socket: never used\n"
                        "  remote_hitm: 120ns            # one socket: never used\n");
  else
    {
      g_string_append (s, "  remote_clean: 110ns           # estimate\n");
      if (p->remote_hitm_ns > 0)
        g_string_append_printf (s, "  remote_hitm: %.0fns            # %s: ping-pong "
                                "cpu0-cpu%d, one way\n", p->remote_hitm_ns, mark,
                                p->remote_peer);
      else
        g_string_append_printf (s, "  remote_hitm: 120ns            # estimate; ping-pong "
                                "cpu0-cpu%d %s\n", p->remote_peer,
                                p->remote_why ? p->remote_why : "not measured (--no-measure)");
    }

  gboolean numa = p->n_nodes > 1 && p->nodes_are_sockets && p->n_nodes == p->sockets;
  g_string_append (s, "\nmemory:\n");
  if (p->n_nodes > 1 && !numa)
    g_string_append_printf (s, "  # %u nodes that are not one per socket: the schema's NUMA "
                            "needs node n = socket n\n", p->n_nodes);
  g_string_append_printf (s, "  numa: %s\n  node_size: ", numa ? "true" : "false");
  if (p->node_bytes >= 4096)
    {
      put_size (s, p->node_bytes >> 20 << 20 ? p->node_bytes >> 20 << 20 : 4096);
      g_string_append (s, "               # MemTotal (sysfs node meminfo or /proc/meminfo)\n");
    }
  else
    g_string_append (s, "1G                 # estimate: no meminfo found\n");
  if (p->mem_ns > 0)
    g_string_append_printf (s, "  local_latency: %.0fns          # %s, pointer chase\n",
                            p->mem_ns, mark);
  else
    g_string_append (s, "  local_latency: 90ns           # estimate: typical DRAM load-to-use\n");
  if (numa)
    g_string_append (s, "  remote_latency: 140ns         # estimate: not measured\n");
  else if (p->mem_ns > 0)
    g_string_append_printf (s, "  remote_latency: %.0fns          # one node: equal to local\n",
                            p->mem_ns);
  else
    g_string_append (s, "  remote_latency: 90ns          # one node: equal to local\n");
  return g_string_free (s, FALSE);
}

gboolean
sim_cmd_machine_probe (int argc, char **argv, GError **error)
{
  g_autofree char *output = NULL, *root = NULL;
  gboolean no_measure = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the YAML to FILE (default standard output)", "FILE" },
    { "sysfs", 0, 0, G_OPTION_ARG_FILENAME, &root,
      "Read the sysfs tree at ROOT (default /sys); /proc is read only with /sys", "ROOT" },
    { "no-measure", 0, 0, G_OPTION_ARG_NONE, &no_measure,
      "Measure nothing: latencies are written as estimates", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context (argv[0], NULL,
    "Write a machine description of this host: topology, NUMA nodes and caches\n"
    "from sysfs, cache and memory latencies from a pointer chase and the cost of a\n"
    "line modified in another core from a core-to-core ping-pong (about a second).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, argv[0], &argc, &argv, error))
    return FALSE;
  if (!sim_cli_at_most_args (argv[0], argc, argv, 0, error))
    return FALSE;
  if (!sim_output_check (output, error))
    return FALSE;

  g_autofree Probe *p = g_new0 (Probe, 1);
  p->root = root ? root : "/sys";
  p->host_proc = strcmp (p->root, "/sys") == 0;
  gboolean ok = probe_topology (p, error) && probe_caches (p, error) && probe_nodes (p, error);
  if (ok)
    {
      probe_frequency (p);
      p->mem_ns = -1;
      choose_pairs (p);
      p->local_hitm_ns = p->remote_hitm_ns = -1;
      if (!no_measure)
        measure (p);
      /* Pinning needs this machine's CPUs: not those of another tree. */
      if (!no_measure && p->host_proc)
        measure_coherence (p);
      else if (!no_measure)
        {
          p->local_why = g_strdup ("not measured: --sysfs describes another machine");
          p->remote_why = g_strdup (p->local_why);
        }
      g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
      g_autofree char *when = g_date_time_format (now, "%Y-%m-%d %H:%M UTC");
      g_autofree char *yaml = render (p, g_get_host_name (), when, !no_measure);
      /* Never write a file that would not load. */
      g_autoptr (SimMachine) m = sim_machine_load_data (yaml, strlen (yaml), "probe output",
                                                        NULL, error);
      ok = m != NULL && sim_output_write (output, yaml, -1, error);
    }
  for (guint i = 0; i < p->n_levels; i++)
    g_free (p->levels[i].geometry_note);
  g_free (p->freq_source);
  g_free (p->local_why);
  g_free (p->remote_why);
  return ok;
}
