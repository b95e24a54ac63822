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

/* The instructions whose cost dominates the allocators' short paths,
 * charged by the models through sim_op_xcost() and friends
 * (models/alloc/alloc.h).  Cycles each, beyond the memory access the
 * instruction makes (the cache model charges that); per microarchitecture
 * in the machine file's core.costs (docs/machines.md, docs/models/timing.md).
 * X (enum suffix, "yaml key", "what") */
#define SIM_XCOSTS(X)                                                              \
  X (LOCK_CMPXCHG,    "lock_cmpxchg",    "a locked read-modify-write: lock cmpxchg, lock xadd, lock inc") \
  X (CMPXCHG,         "cmpxchg",         "cmpxchg without lock (cmpxchg_local)")     \
  X (CMPXCHG8B,       "cmpxchg8b",       "cmpxchg8b without lock")                   \
  X (CMPXCHG16B,      "cmpxchg16b",      "cmpxchg16b without lock (this_cpu_cmpxchg_double)") \
  X (LOCK_CMPXCHG16B, "lock_cmpxchg16b", "lock cmpxchg16b (cmpxchg_double on struct page)") \
  X (IRQ_SAVE,        "irq_save",        "local_irq_save: pushf; pop; cli")          \
  X (IRQ_RESTORE,     "irq_restore",     "local_irq_restore: push; popf")            \
  X (PREEMPT,         "preempt",         "preempt_disable or preempt_enable: one inc/dec of preempt_count") \
  X (THIS_CPU_OP,     "this_cpu_op",     "a gs-prefixed per-CPU read-modify-write (this_cpu_inc)") \
  X (SPIN_LOCK,       "spin_lock",       "uncontended spin_lock fast path, beyond its atomic's access") \
  X (SPIN_UNLOCK,     "spin_unlock",     "spin_unlock fast path")                    \
  X (BIT_SPIN_LOCK,   "bit_spin_lock",   "bit_spin_lock fast path (lock bts)")       \
  X (BIT_SPIN_UNLOCK, "bit_spin_unlock", "__bit_spin_unlock (a plain store)")       \
  X (CALL,            "call",            "a function call and its return, beyond the instructions counted")

typedef enum {
#define SIM_XCOST_ENUM(e, key, doc) SIM_X_##e,
  SIM_XCOSTS (SIM_XCOST_ENUM)
#undef SIM_XCOST_ENUM
  SIM_X_N
} SimXCost;

/* Most misses and stores a SimOp tracks in flight (bounds the YAML). */
#define SIM_CORE_MAX_MISSES 64
#define SIM_CORE_MAX_STORES 256
#define SIM_CORE_MAX_ROB     1024

/* The core's timing parameters (docs/models/timing.md).  A machine file
 * without a core: section gets the serial model: one cycle per
 * instruction, one miss at a time, no store buffer, no extra cost for any
 * instruction; these defaults are what slabsim charged before the core
 * model existed. */
typedef struct {
  guint   cpi_milli;          /* cycles per plain instruction x 1000 (>= 1000 / width) */
  guint   width;              /* instructions dispatched per cycle at best */
  guint   rob;                /* reorder window, instructions (0: in order, a use waits) */
  guint   fill_buffers;       /* L1d misses in flight at once (>= 1) */
  guint   store_buffer;       /* store buffer entries (0 = stores serial) */
  guint   cost[SIM_X_N];      /* cycles, SimXCost */
} SimCoreSpec;

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
  guint64  rcu_grace_period_us; /* kfree_rcu / call_rcu delay on the workload's clock */

  SimCoreSpec core;           /* instruction costs, MLP, store buffer */
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

/* SHA-256 (hex) of that YAML without its comment lines, which name the
 * file it came from: a copy of a machine elsewhere is the same machine
 * (run's provenance "machine_resolved_sha256", the sweep's input hash). */
char       *sim_machine_sha256 (const SimMachine *m);

/* Names of the bundled machines (NULL-terminated, static). */
const char *const *sim_machine_builtin_names (void);

/* The serial core model (see SimCoreSpec), for machines without core: and
 * for Cachegrind mode. */
const SimCoreSpec *sim_core_spec_serial (void);
/* The YAML key of an instruction cost ("lock_cmpxchg"). */
const char *sim_xcost_name (SimXCost x);

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
