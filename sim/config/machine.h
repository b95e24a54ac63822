/* machine.h - a simulated machine: CPU topology, cache levels, coherence,
 * memory.  Loaded from YAML (configs/machines/NAME.yaml, docs/machines.md);
 * every field below is resolved at load time: sizes in bytes, latencies in
 * core cycles (a "60ns" in the file is converted with the machine's
 * frequency), the CPU map filled for every Linux CPU number.
 *
 * This struct is the contract between the configuration loader
 * (sim/config/machine.c) and the models (models/cache/memsys.c, the
 * allocator models).  Models read it and never change it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SIM_MACHINE_MAX_LEVELS 4
#define SIM_MACHINE_MAX_CPUS   1024

typedef enum {
  SIM_REPL_LRU,
  SIM_REPL_PLRU,          /* tree pseudo-LRU; ways must be a power of two */
  SIM_REPL_RANDOM,        /* victim from the machine's seeded PRNG */
} SimReplPolicy;

/* How a level relates to the levels above it (closer to the core). */
typedef enum {
  SIM_INCL_NINE,          /* non-inclusive non-exclusive: filled on a miss,
                             evictions do not touch the levels above */
  SIM_INCL_INCLUSIVE,     /* holds everything above; an eviction
                             back-invalidates the copies above */
  SIM_INCL_EXCLUSIVE,     /* victim cache: filled only by evictions from
                             above; a hit moves the line up and out */
} SimInclusion;

typedef enum {
  SIM_COH_MESI,
  SIM_COH_MESIF,          /* Intel: a clean shared line has one forwarder */
  SIM_COH_MOESI,          /* AMD: a dirty line can be shared (Owned) */
} SimCoherence;

typedef struct {
  char          *name;        /* "L1d", "L2", "L3" */
  guint64        size;        /* bytes: ways * line * sets, sets a power of
                                 two (so a power of two when ways is) */
  guint          ways;        /* >= 1 */
  guint          line;        /* bytes, power of two, >= 16; all levels equal */
  SimReplPolicy  replacement;
  SimInclusion   inclusion;
  /* Sharing scope: how many cores share one instance of this level.
   * 1 = private to a core (its SMT threads share it); 0 = one instance per
   * socket; N = groups of N consecutive cores of a socket (Core 2's L2). */
  guint          shared_cores;
  guint          latency;     /* hit latency, cycles (load-to-use) */
} SimCacheLevelSpec;

typedef struct {
  guint socket;               /* 0-based */
  guint core;                 /* core index within its socket */
  guint thread;               /* SMT thread within its core */
} SimCpuPlace;

typedef struct {
  char   *name;               /* "nehalem-ep-2s" */
  char   *description;
  char   *source;             /* file it was loaded from, or "(builtin)" */
  double  frequency_ghz;      /* converts ns to cycles */
  double  tsc_ghz;            /* rate of the TSC (get_cycles()); = frequency_ghz unless given */

  /* Topology. */
  guint   sockets;
  guint   cores_per_socket;
  guint   threads_per_core;
  guint   n_cpus;             /* sockets * cores_per_socket * threads_per_core */
  SimCpuPlace *cpus;          /* [n_cpus], indexed by Linux CPU number */

  /* Caches, from the core outwards (levels[0] is L1d). */
  guint   n_levels;
  SimCacheLevelSpec levels[SIM_MACHINE_MAX_LEVELS];

  /* Coherence and transfer latencies, cycles, total load-to-use. */
  SimCoherence coherence;
  guint   lat_local_clean;    /* line clean in another core of the socket */
  guint   lat_local_hitm;     /* line modified in another core of the socket */
  guint   lat_remote_clean;   /* line found in a cache of another socket */
  guint   lat_remote_hitm;    /* line modified in a cache of another socket */

  /* Memory.  With numa, node n is socket n and owns the n-th contiguous
   * node_bytes of the physical address space (addresses past the last node
   * wrap modulo the nodes); without numa, memory is one node interleaved
   * over the sockets page by page and every DRAM access costs the mean of
   * local and remote latency. */
  gboolean numa;
  guint64  node_bytes;        /* bytes of memory per node */
  guint    lat_dram_local;    /* cycles */
  guint    lat_dram_remote;   /* cycles */

  guint64  seed;              /* for random replacement */
} SimMachine;

/* Load a machine by name (a file configs/machines/NAME.yaml found in the
 * source tree, the installed data dir or $SLABSIM_MACHINE_PATH) or by path,
 * then apply "--set" overrides ("machine.KEY=VALUE" or "KEY=VALUE", dotted
 * paths into the YAML document).  Errors: SIM_CONFIG_ERROR with
 * "file:line:col: message". */
SimMachine *sim_machine_load  (const char *name_or_path,
                               const char *const *overrides,
                               GError **error);
/* Parse a machine from a YAML string; @origin names it in messages. */
SimMachine *sim_machine_load_data (const char *yaml, gsize len,
                                   const char *origin,
                                   const char *const *overrides,
                                   GError **error);
void        sim_machine_free  (SimMachine *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimMachine, sim_machine_free)

/* The effective machine, every default filled, as YAML that loads back to
 * the same machine ("slabsim machine show"). */
char       *sim_machine_to_yaml (const SimMachine *m);

/* Names of the bundled machines (NULL-terminated, static). */
const char *const *sim_machine_builtin_names (void);

/* Helpers over the resolved topology. */
static inline guint
sim_machine_socket_of (const SimMachine *m, guint cpu)
{
  return m->cpus[cpu].socket;
}
/* A machine-wide core index: socket * cores_per_socket + core. */
static inline guint
sim_machine_core_of (const SimMachine *m, guint cpu)
{
  return m->cpus[cpu].socket * m->cores_per_socket + m->cpus[cpu].core;
}

G_END_DECLS
