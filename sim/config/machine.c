/* machine.c - the machine schema: YAML description -> SimMachine.
 *
 * A machine file describes one shared-memory box the way the models need
 * it (see docs/machines.md for every key): the CPU topology and how Linux
 * numbers its CPUs, a chain of cache levels from the core outwards, the
 * coherence protocol with its transfer latencies, and the memory nodes.
 * The values in configs/machines/ come from vendor manuals, measurements
 * and simulator configurations cited in each file; this loader only checks
 * that a description makes a machine, it does not know any real part.
 *
 * Everything is driven by the SimField tables below: the same table
 * validates a file, fills defaults, prints the effective machine
 * (sim_machine_to_yaml) and is what the documentation test compares
 * docs/machines.md against.  What the tables cannot express (the next:
 * chain between levels, the CPU map, cache geometry) is checked by hand
 * after the typed load, always pointing at the offending scalar.
 *
 * Left out on purpose: instruction caches and TLBs (no slab effect worth
 * the cost), per-level MSHRs and bandwidth, asymmetric topologies (every
 * socket has the same number of cores), more than one memory node per
 * socket (sub-NUMA clustering).
 */
#include "sim/config/machine-schema.h"
#include "sim/config/yaml-tree.h"
#include "sim/core/errors.h"
#include "models/cache/memsys.h"
#include "slabsim-config.h"

#include <string.h>

static const char *const builtin_names[] = {
  "nehalem-ep-2s", "core2-quad", "opteron-2s", "sapphire-rapids-2s",
  /* The hardware of the published slab_test tables (../shared/measurements). */
  "pentium4", "athlon64-x2", "haswell", "ivybridge-ep", "broadwell-ep", "zen1",
  NULL
};

const char *const *
sim_machine_builtin_names (void)
{
  return builtin_names;
}

/* ------------------------------------------------------------- schema */

static const char *const repl_names[] = { "lru", "plru", "random", NULL };
static const char *const incl_names[] = { "non-inclusive", "inclusive", "exclusive", NULL };
static const char *const coh_names[] = { "mesi", "mesif", "moesi", NULL };

/* Linux CPU numbering presets; the formulas are in number_cpus(). */
typedef enum {
  NUMBERING_SOCKET_MAJOR,
  NUMBERING_SOCKET_INTERLEAVED,
  NUMBERING_SMT_ADJACENT,
} Numbering;
static const char *const numbering_names[] = {
  "socket-major", "socket-interleaved", "smt-adjacent", NULL
};

typedef struct {
  guint sockets, cores_per_socket, threads_per_core;
  int   numbering;
} TopoSpec;

typedef struct {
  SimCacheLevelSpec spec;
  char *next;
} CacheSpec;

typedef struct {
  guint cpu, socket, core, thread;
} CpuSpec;

static const SimField root_fields[] = {
  { "name", SIM_FIELD_STRING, SIM_FIELD_REQUIRED, SIM_FIELD_AT (SimMachine, name), NULL,
    0, 0, NULL, "string", "short name, as used by --machine" },
  { "description", SIM_FIELD_STRING, 0, SIM_FIELD_AT (SimMachine, description), "",
    0, 0, NULL, "string", "one line for \"slabsim machine list\"" },
  { "frequency", SIM_FIELD_FREQUENCY, SIM_FIELD_REQUIRED, SIM_FIELD_AT (SimMachine, frequency_ghz),
    NULL, 0, 0, NULL, "frequency", "core clock; converts every latency given in ns to cycles" },
  { "tsc", SIM_FIELD_FREQUENCY, 0, SIM_FIELD_AT (SimMachine, tsc_ghz), NULL, 0, 0, NULL,
    "frequency", "rate of the time-stamp counter (the cycles get_cycles() and slab-test print); "
    "default: the core clock" },
  { "topology", SIM_FIELD_CUSTOM, SIM_FIELD_REQUIRED, -1, 0, NULL, 0, 0, NULL, "mapping",
    "sockets, cores and threads, and how Linux numbers the CPUs" },
  { "caches", SIM_FIELD_CUSTOM, SIM_FIELD_REQUIRED, -1, 0, NULL, 0, 0, NULL, "mapping",
    "cache levels by name, chained from the core outwards by next:" },
  { "coherence", SIM_FIELD_CUSTOM, SIM_FIELD_REQUIRED, -1, 0, NULL, 0, 0, NULL, "mapping",
    "coherence protocol and cache-to-cache transfer latencies" },
  { "memory", SIM_FIELD_CUSTOM, SIM_FIELD_REQUIRED, -1, 0, NULL, 0, 0, NULL, "mapping",
    "NUMA layout and DRAM latencies" },
  { "seed", SIM_FIELD_UINT, 0, SIM_FIELD_AT (SimMachine, seed), "1", 0, 0, NULL,
    "integer", "seed of the PRNG used by random replacement" },
  { "rcu_grace_period_us", SIM_FIELD_UINT, 0, SIM_FIELD_AT (SimMachine, rcu_grace_period_us),
    "16000", 1, 60000000, NULL, "integer",
    "RCU grace period in microseconds of the workload's clock, after which kfree_rcu and "
    "call_rcu callbacks run; default: the median measured on recording-vm "
    "(docs/models/slub.md, kfree_rcu)" },
  { "core", SIM_FIELD_CUSTOM, 0, -1, 0, NULL, 0, 0, NULL, "mapping",
    "the core's timing: cycles per instruction, misses in flight, store buffer, "
    "instruction costs (absent: the serial model)" },
};

static const SimField topo_fields[] = {
  { "sockets", SIM_FIELD_UINT, SIM_FIELD_REQUIRED, SIM_FIELD_AT (TopoSpec, sockets), NULL,
    1, SIM_MACHINE_MAX_CPUS, NULL, "integer", "number of sockets (= NUMA nodes when memory.numa)" },
  { "cores_per_socket", SIM_FIELD_UINT, SIM_FIELD_REQUIRED,
    SIM_FIELD_AT (TopoSpec, cores_per_socket), NULL, 1, SIM_MACHINE_MAX_CPUS, NULL, "integer",
    "cores in each socket" },
  { "threads_per_core", SIM_FIELD_UINT, 0, SIM_FIELD_AT (TopoSpec, threads_per_core), "1",
    1, SIM_MACHINE_MAX_CPUS, NULL, "integer", "SMT threads per core" },
  { "numbering", SIM_FIELD_ENUM, 0, SIM_FIELD_AT (TopoSpec, numbering), "socket-major",
    0, 0, numbering_names, "enum", "how Linux numbers the CPUs (formulas below)" },
  { "cpus", SIM_FIELD_CUSTOM, 0, -1, 0, NULL, 0, 0, NULL, "sequence",
    "explicit CPU map, one {cpu, socket, core, thread} per CPU; overrides numbering" },
};

static const SimField cpu_fields[] = {
  { "cpu", SIM_FIELD_UINT, SIM_FIELD_REQUIRED, SIM_FIELD_AT (CpuSpec, cpu), NULL, 0, 0, NULL,
    "integer", "Linux CPU number" },
  { "socket", SIM_FIELD_UINT, SIM_FIELD_REQUIRED, SIM_FIELD_AT (CpuSpec, socket), NULL, 0, 0,
    NULL, "integer", "socket, 0-based" },
  { "core", SIM_FIELD_UINT, SIM_FIELD_REQUIRED, SIM_FIELD_AT (CpuSpec, core), NULL, 0, 0, NULL,
    "integer", "core within its socket, 0-based" },
  { "thread", SIM_FIELD_UINT, SIM_FIELD_REQUIRED, SIM_FIELD_AT (CpuSpec, thread), NULL, 0, 0,
    NULL, "integer", "SMT thread within its core, 0-based" },
};

static const SimField cache_fields[] = {
  { "size", SIM_FIELD_SIZE, SIM_FIELD_REQUIRED, SIM_FIELD_AT (CacheSpec, spec.size), NULL,
    0, 0, NULL, "size", "capacity of one instance: ways x line x a power-of-two number of sets" },
  { "ways", SIM_FIELD_UINT, SIM_FIELD_REQUIRED, SIM_FIELD_AT (CacheSpec, spec.ways), NULL,
    0, 0, NULL, "integer", "associativity, at least 1" },
  { "line", SIM_FIELD_SIZE, 0, SIM_FIELD_AT (CacheSpec, spec.line), "64", 0, 0, NULL, "size",
    "line size; a power of two >= 16, the same at every level" },
  { "latency", SIM_FIELD_LATENCY, SIM_FIELD_REQUIRED, SIM_FIELD_AT (CacheSpec, spec.latency),
    NULL, 0, 0, NULL, "latency", "load-to-use hit latency" },
  { "shared", SIM_FIELD_CUSTOM, 0, -1, 0, "core", 0, 0, NULL, "core|socket|integer",
    "who shares one instance: a core (and its SMT threads), a socket, or N consecutive cores" },
  { "replacement", SIM_FIELD_ENUM, 0, SIM_FIELD_AT (CacheSpec, spec.replacement), "lru",
    0, 0, repl_names, "enum", "victim choice; plru needs a power-of-two ways" },
  { "inclusion", SIM_FIELD_ENUM, 0, SIM_FIELD_AT (CacheSpec, spec.inclusion), "non-inclusive",
    0, 0, incl_names, "enum", "relation to the levels closer to the core" },
  { "next", SIM_FIELD_STRING, 0, SIM_FIELD_AT (CacheSpec, next), "memory", 0, 0, NULL,
    "name", "the next level outwards, or memory" },
};

static const SimField coherence_fields[] = {
  { "protocol", SIM_FIELD_ENUM, SIM_FIELD_REQUIRED, SIM_FIELD_AT (SimMachine, coherence), NULL,
    0, 0, coh_names, "enum", "MESI, Intel's MESIF or AMD's MOESI" },
  { "local_clean", SIM_FIELD_LATENCY, SIM_FIELD_REQUIRED,
    SIM_FIELD_AT (SimMachine, lat_local_clean), NULL, 0, 0, NULL, "latency",
    "load served from another core of the same socket, line clean" },
  { "local_hitm", SIM_FIELD_LATENCY, SIM_FIELD_REQUIRED,
    SIM_FIELD_AT (SimMachine, lat_local_hitm), NULL, 0, 0, NULL, "latency",
    "load served from another core of the same socket, line modified there" },
  { "remote_clean", SIM_FIELD_LATENCY, SIM_FIELD_REQUIRED,
    SIM_FIELD_AT (SimMachine, lat_remote_clean), NULL, 0, 0, NULL, "latency",
    "load served from a cache of another socket, line clean" },
  { "remote_hitm", SIM_FIELD_LATENCY, SIM_FIELD_REQUIRED,
    SIM_FIELD_AT (SimMachine, lat_remote_hitm), NULL, 0, 0, NULL, "latency",
    "load served from a cache of another socket, line modified there" },
};

static const SimField memory_fields[] = {
  { "numa", SIM_FIELD_BOOL, SIM_FIELD_REQUIRED, SIM_FIELD_AT (SimMachine, numa), NULL,
    0, 0, NULL, "boolean", "one memory node per socket (true) or one interleaved node (false)" },
  { "node_size", SIM_FIELD_SIZE, SIM_FIELD_REQUIRED, SIM_FIELD_AT (SimMachine, node_bytes), NULL,
    4096, 0, NULL, "size", "memory per node" },
  { "local_latency", SIM_FIELD_LATENCY, SIM_FIELD_REQUIRED,
    SIM_FIELD_AT (SimMachine, lat_dram_local), NULL, 0, 0, NULL, "latency",
    "load from the DRAM of the CPU's own node" },
  { "remote_latency", SIM_FIELD_LATENCY, SIM_FIELD_REQUIRED,
    SIM_FIELD_AT (SimMachine, lat_dram_remote), NULL, 0, 0, NULL, "latency",
    "load from the DRAM of another node" },
};

/* The core section.  Defaults are the serial model (SimCoreSpec). */
static const SimField core_fields[] = {
  { "cpi", SIM_FIELD_CUSTOM, 0, -1, 0, "1.0", 0, 0, NULL, "number",
    "cycles per plain instruction, 0.05 to 20 and at least 1/width (the instruction counts of the paths times this)" },
  { "width", SIM_FIELD_UINT, 0, SIM_FIELD_AT (SimCoreSpec, width), "1", 1, 16, NULL, "integer",
    "instructions the core dispatches per cycle at best (its rename/dispatch width)" },
  { "rob", SIM_FIELD_UINT, 0, SIM_FIELD_AT (SimCoreSpec, rob), "0", 0, SIM_CORE_MAX_ROB, NULL,
    "integer",
    "reorder buffer entries: how far dispatch runs ahead of an unfinished instruction; 0 = in order" },
  { "fill_buffers", SIM_FIELD_UINT, 0, SIM_FIELD_AT (SimCoreSpec, fill_buffers), "1",
    1, SIM_CORE_MAX_MISSES, NULL, "integer",
    "L1d misses in flight at once (line fill buffers, miss address buffers); 1 = serial" },
  { "store_buffer", SIM_FIELD_UINT, 0, SIM_FIELD_AT (SimCoreSpec, store_buffer), "0",
    0, SIM_CORE_MAX_STORES, NULL, "integer",
    "store buffer entries; 0 = every store waits for its own latency" },
  { "costs", SIM_FIELD_CUSTOM, 0, -1, 0, NULL, 0, 0, NULL, "mapping",
    "cycles of the instructions below, beyond their memory access; each defaults to 0" },
};

static const SimField cost_fields[] = {
#define COST_FIELD(e, key, doc)                                                      \
  { key, SIM_FIELD_LATENCY, 0, G_STRUCT_OFFSET (SimCoreSpec, cost[SIM_X_##e]), sizeof (guint), \
    "0", 0, 0, NULL, "latency", doc },
  SIM_XCOSTS (COST_FIELD)
#undef COST_FIELD
};

static const SimCoreSpec serial_core = { .cpi_milli = 1000, .width = 1, .fill_buffers = 1 };

const SimCoreSpec *
sim_core_spec_serial (void)
{
  return &serial_core;
}

const char *
sim_xcost_name (SimXCost x)
{
  g_return_val_if_fail (x < SIM_X_N, NULL);
  return cost_fields[x].key;
}

static const SimSchemaSection sections[] = {
  { "", root_fields, G_N_ELEMENTS (root_fields) },
  { "topology", topo_fields, G_N_ELEMENTS (topo_fields) },
  { "topology.cpus[]", cpu_fields, G_N_ELEMENTS (cpu_fields) },
  { "caches.NAME", cache_fields, G_N_ELEMENTS (cache_fields) },
  { "coherence", coherence_fields, G_N_ELEMENTS (coherence_fields) },
  { "memory", memory_fields, G_N_ELEMENTS (memory_fields) },
  { "core", core_fields, G_N_ELEMENTS (core_fields) },
  { "core.costs", cost_fields, G_N_ELEMENTS (cost_fields) },
  { NULL, NULL, 0 },
};

const SimSchemaSection *
sim_machine_schema (void)
{
  return sections;
}

static gboolean
fields_have (const SimField *f, guint n, const char *key)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (f[i].key, key) == 0)
      return TRUE;
  return FALSE;
}

/* --set may create a key the schema knows but the file left to its
 * default; everything else must already exist. */
static gboolean
known_path (const char *const *s, guint n, gpointer user_data)
{
  const SimYamlDoc *doc = user_data;
  if (n == 1)
    return fields_have (root_fields, G_N_ELEMENTS (root_fields), s[0]);
  if (n == 2 && strcmp (s[0], "topology") == 0)
    return fields_have (topo_fields, G_N_ELEMENTS (topo_fields), s[1]);
  if (n == 2 && strcmp (s[0], "coherence") == 0)
    return fields_have (coherence_fields, G_N_ELEMENTS (coherence_fields), s[1]);
  if (n == 2 && strcmp (s[0], "memory") == 0)
    return fields_have (memory_fields, G_N_ELEMENTS (memory_fields), s[1]);
  if (n == 2 && strcmp (s[0], "core") == 0)
    return fields_have (core_fields, G_N_ELEMENTS (core_fields), s[1]);
  if (n == 3 && strcmp (s[0], "core") == 0 && strcmp (s[1], "costs") == 0)
    return fields_have (cost_fields, G_N_ELEMENTS (cost_fields), s[2]);
  if (n == 3 && strcmp (s[0], "caches") == 0)
    return sim_yaml_lookup (sim_yaml_lookup (doc->root, "caches"), s[1]) != NULL
           && fields_have (cache_fields, G_N_ELEMENTS (cache_fields), s[2]);
  return FALSE;
}

/* ------------------------------------------------------------ topology */

static void
number_cpus (SimMachine *m, Numbering how)
{
  guint S = m->sockets, C = m->cores_per_socket, T = m->threads_per_core;
  for (guint s = 0; s < S; s++)
    for (guint c = 0; c < C; c++)
      for (guint t = 0; t < T; t++)
        {
          guint cpu = 0;
          switch (how)
            {
            case NUMBERING_SOCKET_MAJOR:       cpu = t * S * C + s * C + c; break;
            case NUMBERING_SOCKET_INTERLEAVED: cpu = t * S * C + c * S + s; break;
            case NUMBERING_SMT_ADJACENT:       cpu = (s * C + c) * T + t; break;
            }
          m->cpus[cpu] = (SimCpuPlace) { s, c, t };
        }
}

static gboolean
load_cpu_list (SimMachine *m, const SimYamlNode *list, GError **error)
{
  if (!sim_yaml_expect (list, SIM_YAML_SEQUENCE, error))
    return FALSE;
  const SimYamlNode **by_cpu = g_new0 (const SimYamlNode *, m->n_cpus);
  GHashTable *places = g_hash_table_new (g_direct_hash, g_direct_equal);
  gboolean ok = FALSE;
  for (guint i = 0; i < list->children->len; i++)
    {
      const SimYamlNode *item = g_ptr_array_index (list->children, i);
      CpuSpec c = { 0 };
      if (!sim_yaml_expect (item, SIM_YAML_MAPPING, error)
          || !sim_schema_load (item, cpu_fields, G_N_ELEMENTS (cpu_fields), &c, 0, error))
        goto out;
      struct { const char *key; guint v, limit; const char *what; } checks[] = {
        { "cpu", c.cpu, m->n_cpus, "CPUs" },
        { "socket", c.socket, m->sockets, "sockets" },
        { "core", c.core, m->cores_per_socket, "cores per socket" },
        { "thread", c.thread, m->threads_per_core, "threads per core" },
      };
      for (guint k = 0; k < G_N_ELEMENTS (checks); k++)
        if (checks[k].v >= checks[k].limit)
          {
            sim_yaml_error (error, sim_yaml_lookup (item, checks[k].key), FALSE,
                            SIM_CONFIG_ERROR_INVALID,
                            "%s %u is out of range (the topology has %u %s: 0..%u)",
                            checks[k].key, checks[k].v, checks[k].limit, checks[k].what,
                            checks[k].limit - 1);
            goto out;
          }
      const SimYamlNode *cpu_node = sim_yaml_lookup (item, "cpu");
      if (by_cpu[c.cpu])
        {
          const SimYamlNode *first = sim_yaml_lookup (by_cpu[c.cpu], "cpu");
          sim_yaml_error (error, cpu_node, FALSE, SIM_CONFIG_ERROR_INVALID,
                          "cpu %u is listed twice (first at %u:%u)", c.cpu,
                          first->line, first->col);
          goto out;
        }
      guint place = (c.socket * m->cores_per_socket + c.core) * m->threads_per_core + c.thread;
      gpointer prev = g_hash_table_lookup (places, GUINT_TO_POINTER (place + 1));
      if (prev)
        {
          sim_yaml_error (error, item, FALSE, SIM_CONFIG_ERROR_INVALID,
                          "socket %u core %u thread %u is already cpu %u",
                          c.socket, c.core, c.thread, GPOINTER_TO_UINT (prev) - 1);
          goto out;
        }
      g_hash_table_insert (places, GUINT_TO_POINTER (place + 1), GUINT_TO_POINTER (c.cpu + 1));
      by_cpu[c.cpu] = item;
      m->cpus[c.cpu] = (SimCpuPlace) { c.socket, c.core, c.thread };
    }
  for (guint cpu = 0; cpu < m->n_cpus; cpu++)
    if (by_cpu[cpu] == NULL)
      {
        sim_yaml_error (error, list, FALSE, SIM_CONFIG_ERROR_INVALID,
                        "cpu %u is missing (the list must give every CPU 0..%u exactly once)",
                        cpu, m->n_cpus - 1);
        goto out;
      }
  ok = TRUE;
out:
  g_hash_table_destroy (places);
  g_free (by_cpu);
  return ok;
}

static gboolean
load_topology (SimMachine *m, const SimYamlNode *node, GError **error)
{
  TopoSpec t = { 0 };
  if (!sim_yaml_expect (node, SIM_YAML_MAPPING, error)
      || !sim_schema_load (node, topo_fields, G_N_ELEMENTS (topo_fields), &t, 0, error))
    return FALSE;
  guint64 n = (guint64) t.sockets * t.cores_per_socket * t.threads_per_core;
  if (n > SIM_MACHINE_MAX_CPUS)
    {
      sim_yaml_error (error, node, FALSE, SIM_CONFIG_ERROR_INVALID,
                      "%" G_GUINT64_FORMAT " CPUs (sockets * cores_per_socket * "
                      "threads_per_core); at most %u are supported", n, SIM_MACHINE_MAX_CPUS);
      return FALSE;
    }
  m->sockets = t.sockets;
  m->cores_per_socket = t.cores_per_socket;
  m->threads_per_core = t.threads_per_core;
  m->n_cpus = (guint) n;
  m->cpus = g_new0 (SimCpuPlace, m->n_cpus);
  const SimYamlNode *list = sim_yaml_lookup (node, "cpus");
  if (list)
    return load_cpu_list (m, list, error);
  number_cpus (m, (Numbering) t.numbering);
  return TRUE;
}

/* -------------------------------------------------------------- caches */

static gboolean
load_shared (SimMachine *m, const SimYamlNode *level, guint *out, GError **error)
{
  const SimYamlNode *v = sim_yaml_lookup (level, "shared");
  if (v == NULL)
    return *out = 1, TRUE;
  if (v->kind == SIM_YAML_SCALAR && strcmp (v->scalar, "core") == 0)
    return *out = 1, TRUE;
  if (v->kind == SIM_YAML_SCALAR && strcmp (v->scalar, "socket") == 0)
    return *out = 0, TRUE;
  if (v->kind != SIM_YAML_SCALAR || !g_ascii_isdigit (*v->scalar))
    {
      if (v->kind == SIM_YAML_SCALAR && g_str_has_prefix (v->scalar, "-"))
        sim_yaml_error (error, v, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                        "%s is negative; expected core, socket or a number of cores", v->scalar);
      else
        sim_yaml_error (error, v, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                        "expected core, socket or a number of cores, got \"%s\"",
                        v->kind == SIM_YAML_SCALAR ? v->scalar : "(not a scalar)");
      return FALSE;
    }
  guint64 n;
  if (!sim_yaml_get_uint (v, 1, SIM_MACHINE_MAX_CPUS, &n, error))
    return FALSE;
  if (m->cores_per_socket % n != 0)
    {
      sim_yaml_error (error, v, FALSE, SIM_CONFIG_ERROR_INVALID,
                      "groups of %" G_GUINT64_FORMAT " cores do not divide the %u cores "
                      "of a socket", n, m->cores_per_socket);
      return FALSE;
    }
  *out = (guint) n;
  return TRUE;
}

/* Geometry checks on one level, each at the scalar at fault (or at the
 * level's key when the value is a default).  The rules are the cache
 * model's (sim_memsys_check_level): what loads here is what it builds. */
static gboolean
check_geometry (const SimYamlNode *level, const SimCacheLevelSpec *c, GError **error)
{
  const char *key = NULL;
  GError *local = NULL;
  if (sim_memsys_check_level (c, NULL, &key, &local))
    return TRUE;
  const SimYamlNode *at = key ? sim_yaml_lookup (level, key) : NULL;
  sim_yaml_error (error, at ? at : level, FALSE, SIM_CONFIG_ERROR_INVALID, "%s",
                  local->message);
  g_error_free (local);
  return FALSE;
}

static gboolean
load_caches (SimMachine *m, const SimYamlNode *node, GError **error)
{
  if (!sim_yaml_expect (node, SIM_YAML_MAPPING, error))
    return FALSE;
  guint k = node->children->len;
  if (k == 0)
    {
      sim_yaml_error (error, node, FALSE, SIM_CONFIG_ERROR_INVALID,
                      "at least one cache level is needed");
      return FALSE;
    }
  if (k > SIM_MACHINE_MAX_LEVELS)
    {
      const SimYamlNode *extra = g_ptr_array_index (node->children, SIM_MACHINE_MAX_LEVELS);
      sim_yaml_error (error, extra, TRUE, SIM_CONFIG_ERROR_INVALID,
                      "level \"%s\" is one too many: at most %u cache levels are supported",
                      extra->key, SIM_MACHINE_MAX_LEVELS);
      return FALSE;
    }

  CacheSpec specs[SIM_MACHINE_MAX_LEVELS] = { 0 };
  const SimYamlNode *nodes[SIM_MACHINE_MAX_LEVELS];
  int next_of[SIM_MACHINE_MAX_LEVELS];     /* index, or -1 for memory */
  int pred_of[SIM_MACHINE_MAX_LEVELS];
  gboolean ok = FALSE;
  const char *names[SIM_MACHINE_MAX_LEVELS + 1] = { 0 };

  for (guint i = 0; i < k; i++)
    {
      nodes[i] = g_ptr_array_index (node->children, i);
      names[i] = nodes[i]->key;
      pred_of[i] = -1;
    }
  for (guint i = 0; i < k; i++)
    {
      const SimYamlNode *lv = nodes[i];
      if (strcmp (lv->key, "memory") == 0 || *lv->key == '\0')
        {
          sim_yaml_error (error, lv, TRUE, SIM_CONFIG_ERROR_INVALID,
                          "\"%s\" cannot name a cache level", lv->key);
          goto out;
        }
      if (!sim_yaml_expect (lv, SIM_YAML_MAPPING, error)
          || !sim_schema_load (lv, cache_fields, G_N_ELEMENTS (cache_fields), &specs[i],
                               m->frequency_ghz, error)
          || !load_shared (m, lv, &specs[i].spec.shared_cores, error)
          || !check_geometry (lv, &specs[i].spec, error))
        goto out;
      if (i > 0 && specs[i].spec.line != specs[0].spec.line)
        {
          const SimYamlNode *line = sim_yaml_lookup (lv, "line");
          sim_yaml_error (error, line ? line : lv, line == NULL, SIM_CONFIG_ERROR_INVALID,
                          "line %u differs from the %u bytes of level \"%s\"; every level "
                          "must use the same line size", specs[i].spec.line,
                          specs[0].spec.line, nodes[0]->key);
          goto out;
        }
    }

  /* The next: chain.  Each level names at most one successor and is named
   * by at most one predecessor; exactly one level (the L1) has none. */
  for (guint i = 0; i < k; i++)
    {
      const SimYamlNode *nx = sim_yaml_lookup (nodes[i], "next");
      next_of[i] = -1;
      if (strcmp (specs[i].next, "memory") == 0)
        continue;
      for (guint j = 0; j < k; j++)
        if (strcmp (specs[i].next, names[j]) == 0)
          next_of[i] = (int) j;
      if (next_of[i] < 0)
        {
          const char *near = sim_yaml_nearest (specs[i].next, names, k);
          g_autofree char *list = g_strjoinv (", ", (char **) names);
          sim_yaml_error (error, nx, FALSE, SIM_CONFIG_ERROR_INVALID,
                          "no cache level named \"%s\"%s%s%s (levels: %s; or memory)",
                          specs[i].next, near ? " (did you mean \"" : "", near ? near : "",
                          near ? "\"?)" : "", list);
          goto out;
        }
      if (next_of[i] == (int) i)
        {
          sim_yaml_error (error, nx, FALSE, SIM_CONFIG_ERROR_INVALID,
                          "level \"%s\" names itself as next: the chain is a cycle", names[i]);
          goto out;
        }
      int j = next_of[i];
      if (pred_of[j] >= 0)
        {
          sim_yaml_error (error, nx, FALSE, SIM_CONFIG_ERROR_INVALID,
                          "\"%s\" is already the next level of \"%s\"; the levels must form "
                          "a single chain", names[j], names[pred_of[j]]);
          goto out;
        }
      pred_of[j] = (int) i;
    }
  int top = -1;
  for (guint i = 0; i < k; i++)
    if (pred_of[i] < 0)
      {
        if (top >= 0)
          {
            sim_yaml_error (error, nodes[i], TRUE, SIM_CONFIG_ERROR_INVALID,
                            "levels \"%s\" and \"%s\" both have no predecessor; exactly one "
                            "level (the one closest to the core) may be named by no next:",
                            names[top], names[i]);
            goto out;
          }
        top = (int) i;
      }
  gboolean on_chain[SIM_MACHINE_MAX_LEVELS] = { 0 };
  m->n_levels = 0;
  for (int i = top; i >= 0; i = next_of[i])
    {
      on_chain[i] = TRUE;
      m->levels[m->n_levels] = specs[i].spec;
      m->levels[m->n_levels].name = g_strdup (names[i]);
      m->n_levels++;
    }
  for (guint i = 0; i < k; i++)
    if (!on_chain[i])
      {
        /* Off the chain with a predecessor each: a cycle. */
        GString *cyc = g_string_new (names[i]);
        for (int j = next_of[i]; j != (int) i; j = next_of[j])
          g_string_append_printf (cyc, " -> %s", names[j]);
        g_string_append_printf (cyc, " -> %s", names[i]);
        sim_yaml_error (error, sim_yaml_lookup (nodes[pred_of[i]], "next"), FALSE,
                        SIM_CONFIG_ERROR_INVALID, "the next: chain has a cycle (%s)",
                        cyc->str);
        g_string_free (cyc, TRUE);
        goto out;
      }
  ok = TRUE;
out:
  for (guint i = 0; i < k; i++)
    g_free (specs[i].next);
  return ok;
}

/* ---------------------------------------------------------------- core */

static gboolean
parse_cpi (const SimYamlNode *v, guint *milli, GError **error)
{
  if (v->kind != SIM_YAML_SCALAR)
    {
      sim_yaml_error (error, v, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "expected a number of cycles per instruction, e.g. 0.8");
      return FALSE;
    }
  char *end = NULL;
  double d = g_ascii_strtod (v->scalar, &end);
  if (end == v->scalar || *end != '\0' || !(d >= 0.05 && d <= 20.0))
    {
      sim_yaml_error (error, v, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "\"%s\" is not a number of cycles per instruction between 0.05 and 20",
                      v->scalar);
      return FALSE;
    }
  *milli = (guint) (d * 1000.0 + 0.5);
  return TRUE;
}

/* core: is optional; without it (or without a key of it) the serial
 * model's value applies. */
static gboolean
load_core (SimMachine *m, const SimYamlNode *node, GError **error)
{
  m->core = serial_core;
  if (node == NULL)
    return TRUE;
  if (!sim_yaml_expect (node, SIM_YAML_MAPPING, error)
      || !sim_schema_load (node, core_fields, G_N_ELEMENTS (core_fields), &m->core,
                           m->frequency_ghz, error))
    return FALSE;
  const SimYamlNode *cpi = sim_yaml_lookup (node, "cpi");
  if (cpi && !parse_cpi (cpi, &m->core.cpi_milli, error))
    return FALSE;
  /* A core cannot dispatch faster than its width: cpi >= 1/width. */
  if (m->core.cpi_milli * m->core.width < 1000)
    {
      const SimYamlNode *at = cpi ? cpi : node;
      sim_yaml_error (error, at, FALSE, SIM_CONFIG_ERROR_BAD_VALUE,
                      "cpi %u.%03u is below 1/width (width %u): a core cannot dispatch "
                      "more than width instructions a cycle",
                      m->core.cpi_milli / 1000, m->core.cpi_milli % 1000, m->core.width);
      return FALSE;
    }
  const SimYamlNode *costs = sim_yaml_lookup (node, "costs");
  if (costs
      && (!sim_yaml_expect (costs, SIM_YAML_MAPPING, error)
          || !sim_schema_load (costs, cost_fields, G_N_ELEMENTS (cost_fields), &m->core,
                               m->frequency_ghz, error)))
    return FALSE;
  return TRUE;
}

/* ------------------------------------------------------------- loading */

static gboolean
load_section (SimMachine *m, const SimYamlNode *root, const char *key,
              const SimField *fields, guint n, GError **error)
{
  const SimYamlNode *node = sim_yaml_lookup (root, key);
  return sim_yaml_expect (node, SIM_YAML_MAPPING, error)
         && sim_schema_load (node, fields, n, m, m->frequency_ghz, error);
}

/* A machine without tsc: a constant TSC at the core clock. */
static gboolean
fill_tsc (SimMachine *m)
{
  if (m->tsc_ghz <= 0)
    m->tsc_ghz = m->frequency_ghz;
  return TRUE;
}

/* Whatever else the cache model would refuse (how levels are arranged, the
 * host memory of all of them), found now rather than when a run starts, at
 * the key at fault: a config error, like every other. */
static gboolean
check_model (const SimMachine *m, const SimYamlNode *root, GError **error)
{
  SimMemSysFault fault = { -1, NULL };
  GError *local = NULL;
  if (sim_memsys_check_machine (m, NULL, &fault, &local))
    return TRUE;
  const SimYamlNode *at = root;
  gboolean at_key = FALSE;
  if (fault.level >= 0)
    {
      const SimYamlNode *lv = sim_yaml_lookup (sim_yaml_lookup (root, "caches"),
                                               m->levels[fault.level].name);
      const SimYamlNode *k = fault.key ? sim_yaml_lookup (lv, fault.key) : NULL;
      at = k ? k : lv;
      /* a default (no key in the file): the level, at its name */
    }
  sim_yaml_error (error, at, at_key, SIM_CONFIG_ERROR_INVALID, "%s", local->message);
  g_error_free (local);
  return FALSE;
}

static SimMachine *
machine_from_doc (SimYamlDoc *doc, const char *origin, const char *const *overrides,
                  GError **error)
{
  for (const char *const *o = overrides; o && *o; o++)
    if (!sim_yaml_apply_override (doc, *o, "machine", known_path, doc, error))
      return NULL;
  if (doc->root == NULL)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_MISSING_KEY,
                   "%s:1:1: empty document; a machine needs name, frequency, topology, "
                   "caches, coherence and memory", origin);
      return NULL;
    }
  g_autoptr (SimMachine) m = g_new0 (SimMachine, 1);
  m->source = g_strdup (origin);
  const SimYamlNode *root = doc->root;
  if (!sim_yaml_expect (root, SIM_YAML_MAPPING, error)
      || !sim_schema_load (root, root_fields, G_N_ELEMENTS (root_fields), m, 0, error)
      || !fill_tsc (m)
      || !load_topology (m, sim_yaml_lookup (root, "topology"), error)
      || !load_caches (m, sim_yaml_lookup (root, "caches"), error)
      || !load_section (m, root, "coherence", coherence_fields,
                        G_N_ELEMENTS (coherence_fields), error)
      || !load_section (m, root, "memory", memory_fields, G_N_ELEMENTS (memory_fields), error)
      || !load_core (m, sim_yaml_lookup (root, "core"), error)
      || !check_model (m, root, error))
    return NULL;
  return g_steal_pointer (&m);
}

SimMachine *
sim_machine_load_data (const char *yaml, gsize len, const char *origin,
                       const char *const *overrides, GError **error)
{
  g_return_val_if_fail (yaml != NULL || len == 0, NULL);
  if (origin == NULL)
    origin = "(string)";
  g_autoptr (SimYamlDoc) doc = sim_yaml_load_data (yaml, len, origin, error);
  if (doc == NULL)
    return NULL;
  return machine_from_doc (doc, origin, overrides, error);
}

GStrv
sim_machine_search_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new ();
  const char *env = g_getenv ("SLABSIM_MACHINE_PATH");
  if (env)
    {
      g_auto (GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);
      for (char **p = parts; *p; p++)
        if (**p)
          g_ptr_array_add (dirs, g_strdup (*p));
    }
  g_ptr_array_add (dirs, g_build_filename (SLABSIM_SOURCE_DIR, "configs", "machines", NULL));
  g_ptr_array_add (dirs, g_build_filename (SLABSIM_DATADIR, "machines", NULL));
  g_ptr_array_add (dirs, NULL);
  return (GStrv) g_ptr_array_free (dirs, FALSE);
}

static int
cmp_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GStrv
sim_machine_available (void)
{
  g_auto (GStrv) dirs = sim_machine_search_dirs ();
  GPtrArray *names = g_ptr_array_new ();
  for (char **d = dirs; *d; d++)
    {
      GDir *dir = g_dir_open (*d, 0, NULL);
      if (dir == NULL)
        continue;
      const char *f;
      while ((f = g_dir_read_name (dir)))
        if (g_str_has_suffix (f, ".yaml") && strlen (f) > 5)
          {
            char *name = g_strndup (f, strlen (f) - 5);
            if (g_ptr_array_find_with_equal_func (names, name, g_str_equal, NULL))
              g_free (name);
            else
              g_ptr_array_add (names, name);
          }
      g_dir_close (dir);
    }
  g_ptr_array_sort (names, cmp_names);
  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_free (names, FALSE);
}

char *
sim_machine_find (const char *name_or_path, GError **error)
{
  if (strchr (name_or_path, G_DIR_SEPARATOR) || g_str_has_suffix (name_or_path, ".yaml")
      || g_str_has_suffix (name_or_path, ".yml"))
    return g_strdup (name_or_path);
  g_auto (GStrv) dirs = sim_machine_search_dirs ();
  g_autofree char *file = g_strconcat (name_or_path, ".yaml", NULL);
  for (char **d = dirs; *d; d++)
    {
      char *path = g_build_filename (*d, file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return path;
      g_free (path);
    }
  if (g_file_test (name_or_path, G_FILE_TEST_IS_REGULAR))
    return g_strdup (name_or_path);
  g_auto (GStrv) names = sim_machine_available ();
  g_autofree char *list = g_strjoinv (", ", names);
  const char *near = sim_yaml_nearest (name_or_path, (const char *const *) names,
                                       g_strv_length (names));
  for (char **n = names; *n && near == NULL; n++)
    if (g_str_has_prefix (*n, name_or_path))
      near = *n;
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_NOT_FOUND,
               "unknown machine \"%s\"%s%s%s (available: %s)", name_or_path,
               near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "",
               *list ? list : "none found");
  return NULL;
}

SimMachine *
sim_machine_load (const char *name_or_path, const char *const *overrides, GError **error)
{
  g_return_val_if_fail (name_or_path != NULL, NULL);
  g_autofree char *path = sim_machine_find (name_or_path, error);
  if (path == NULL)
    return NULL;
  g_autoptr (SimYamlDoc) doc = sim_yaml_load_file (path, error);
  if (doc == NULL)
    return NULL;
  return machine_from_doc (doc, path, overrides, error);
}

void
sim_machine_free (SimMachine *m)
{
  if (m == NULL)
    return;
  g_free (m->name);
  g_free (m->description);
  g_free (m->source);
  g_free (m->cpus);
  for (guint i = 0; i < m->n_levels; i++)
    g_free (m->levels[i].name);
  g_free (m);
}

/* -------------------------------------------------------------- output */

/* A name as a YAML scalar: plain when it cannot be misread. */
static char *
yaml_name (const char *s)
{
  static const char *const special[] = {
    "true", "false", "yes", "no", "on", "off", "null", "~", NULL
  };
  gboolean plain = g_ascii_isalpha (*s) || *s == '_';
  for (const char *c = s; *c && plain; c++)
    plain = g_ascii_isalnum (*c) || *c == '_' || *c == '-' || *c == '.';
  for (guint i = 0; plain && special[i]; i++)
    if (g_ascii_strcasecmp (s, special[i]) == 0)
      plain = FALSE;
  return plain ? g_strdup (s) : sim_schema_quote (s);
}

static void
emit_fields (GString *out, const char *indent, const SimField *fields, guint n,
             gconstpointer src)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *v = sim_schema_format (&fields[i], src);
      if (v == NULL)
        continue;
      const char *unit = fields[i].type == SIM_FIELD_LATENCY ? "  # cycles" : "";
      g_string_append_printf (out, "%s%s: %s%s\n", indent, fields[i].key, v, unit);
    }
}

static gboolean
cpus_match (const SimMachine *m, Numbering how)
{
  g_autofree SimCpuPlace *want = g_new0 (SimCpuPlace, m->n_cpus);
  SimMachine tmp = *m;
  tmp.cpus = want;
  number_cpus (&tmp, how);
  return memcmp (want, m->cpus, m->n_cpus * sizeof (SimCpuPlace)) == 0;
}

static void
emit_topology (GString *out, const SimMachine *m)
{
  TopoSpec t = { m->sockets, m->cores_per_socket, m->threads_per_core, -1 };
  for (int i = 0; numbering_names[i] && t.numbering < 0; i++)
    if (cpus_match (m, (Numbering) i))
      t.numbering = i;
  g_string_append (out, "topology:\n");
  for (guint i = 0; i < G_N_ELEMENTS (topo_fields); i++)
    {
      const SimField *f = &topo_fields[i];
      if (strcmp (f->key, "numbering") == 0 && t.numbering < 0)
        continue;
      if (strcmp (f->key, "cpus") == 0 && t.numbering < 0)
        {
          g_string_append (out, "  cpus:\n");
          for (guint c = 0; c < m->n_cpus; c++)
            g_string_append_printf (out, "    - {cpu: %u, socket: %u, core: %u, thread: %u}\n",
                                    c, m->cpus[c].socket, m->cpus[c].core, m->cpus[c].thread);
          continue;
        }
      emit_fields (out, "  ", f, 1, &t);
    }
}

static void
emit_caches (GString *out, const SimMachine *m)
{
  g_string_append (out, "caches:\n");
  for (guint l = 0; l < m->n_levels; l++)
    {
      CacheSpec c = { m->levels[l], NULL };
      g_autofree char *name = yaml_name (m->levels[l].name);
      g_autofree char *next = l + 1 < m->n_levels ? yaml_name (m->levels[l + 1].name)
                                                  : g_strdup ("memory");
      g_string_append_printf (out, "  %s:\n", name);
      for (guint i = 0; i < G_N_ELEMENTS (cache_fields); i++)
        {
          const SimField *f = &cache_fields[i];
          if (strcmp (f->key, "shared") == 0)
            {
              guint s = c.spec.shared_cores;
              if (s <= 1)
                g_string_append_printf (out, "    shared: %s\n", s ? "core" : "socket");
              else
                g_string_append_printf (out, "    shared: %u\n", s);
            }
          else if (strcmp (f->key, "next") == 0)
            g_string_append_printf (out, "    next: %s\n", next);
          else
            emit_fields (out, "    ", f, 1, &c);
        }
    }
}

char *
sim_machine_to_yaml (const SimMachine *m)
{
  g_return_val_if_fail (m != NULL, NULL);
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "# Effective machine, every default filled (from %s).\n",
                          m->source ? m->source : "(unknown)");
  g_string_append (out, "# Latencies are core cycles at the frequency below.\n");
  for (guint i = 0; i < G_N_ELEMENTS (root_fields); i++)
    {
      const SimField *f = &root_fields[i];
      if (strcmp (f->key, "topology") == 0)
        emit_topology (out, m);
      else if (strcmp (f->key, "caches") == 0)
        emit_caches (out, m);
      else if (strcmp (f->key, "coherence") == 0)
        {
          g_string_append (out, "coherence:\n");
          emit_fields (out, "  ", coherence_fields, G_N_ELEMENTS (coherence_fields), m);
        }
      else if (strcmp (f->key, "memory") == 0)
        {
          g_string_append (out, "memory:\n");
          emit_fields (out, "  ", memory_fields, G_N_ELEMENTS (memory_fields), m);
        }
      else if (strcmp (f->key, "core") == 0)
        {
          g_string_append (out, "core:\n");
          g_string_append_printf (out, "  cpi: %u.%03u\n", m->core.cpi_milli / 1000,
                                  m->core.cpi_milli % 1000);
          emit_fields (out, "  ", core_fields, G_N_ELEMENTS (core_fields), &m->core);
          g_string_append (out, "  costs:\n");
          emit_fields (out, "    ", cost_fields, G_N_ELEMENTS (cost_fields), &m->core);
        }
      else
        emit_fields (out, "", f, 1, m);
    }
  return g_string_free (out, FALSE);
}

char *
sim_machine_sha256 (const SimMachine *m)
{
  g_autofree char *yaml = sim_machine_to_yaml (m);
  const char *p = yaml;
  while (*p == '#')
    {
      const char *nl = strchr (p, '\n');
      p = nl ? nl + 1 : p + strlen (p);
    }
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, p, -1);
}
