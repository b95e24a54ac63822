/* memsys.h - the simulated memory system: every private and shared cache of
 * every core and socket, coherence between them, and NUMA DRAM.
 *
 * Modelled: set-associative levels private per core, per core group or per
 * socket; LRU, tree-PLRU or seeded random replacement; write-back,
 * write-allocate; inclusive (back-invalidating), NINE or exclusive (victim)
 * levels; MESI, MESIF or MOESI through an exact directory consulted only on
 * private misses and upgrades; latencies from the machine's table (level hit,
 * local/remote clean/HITM transfer, local/remote DRAM by home node).
 * Not modelled: prefetchers, queueing, bandwidth and contention (each access
 * is applied alone, in program order, with a fixed latency; which accesses
 * overlap in time is the core model's business, models/alloc/alloc.h),
 * TLBs, instruction caches, snoop-filter capacity.  docs/models/cache.md
 * defines every counter and transition; models/cache/memsys.c's essay says
 * how the state is kept.
 *
 * One entry point serves every model: sim_memsys_access() takes a CPU, an
 * address, a size and a kind, updates every cache and coherence state the
 * access touches, and returns its latency in cycles.  An access that
 * straddles lines touches each line (full mode); in Cachegrind mode it
 * follows Cachegrind's own rule (one reference, at most one miss).
 *
 * Accesses may carry a class (SimMemClass) saying what was touched, so that
 * reports can split misses by structure ("by_structure").
 */
#pragma once

#include <glib.h>
#include "sim/config/machine.h"

G_BEGIN_DECLS

typedef enum {
  SIM_ACC_READ,
  SIM_ACC_WRITE,
  SIM_ACC_RMW,            /* read-modify-write (atomic ops, cmpxchg):
                             needs ownership like a write, counted as one */
  SIM_ACC_N
} SimAccKind;

/* What an access touched, for attribution of misses. */
typedef enum {
  SIM_MEM_OTHER,          /* unclassified (cachesim traces) */
  SIM_MEM_CPU_SLAB,       /* per-CPU allocator data (kmem_cache_cpu, array_cache) */
  SIM_MEM_CACHE_META,     /* struct kmem_cache, per-node data, list heads */
  SIM_MEM_STRUCT_PAGE,    /* struct page / struct slab */
  SIM_MEM_FREEPTR,        /* the free pointer inside an object, bufctl */
  SIM_MEM_OBJECT,         /* the caller's use of object data */
  SIM_MEM_LOCK,           /* lock words */
  SIM_MEM_PAGE_ALLOC,     /* page-allocator data (zones, pcp lists, pages) */
  SIM_MEM_N_CLASSES
} SimMemClass;

typedef struct SimMemSys SimMemSys;

typedef enum {
  SIM_MEMSYS_FULL,        /* the machine's hierarchy with coherence */
  SIM_MEMSYS_CACHEGRIND,  /* Cachegrind's model: D1 + LL, LRU, see below */
} SimMemSysMode;

/* Counters per CPU and per level.  For a shared level the counters are
 * kept per requesting CPU too.  "accesses" counts references that reached
 * this level (an L2 access is an L1 miss). */
typedef struct {
  guint64 accesses[SIM_ACC_N];
  guint64 misses[SIM_ACC_N];
  guint64 writebacks;          /* dirty lines written to the next level/DRAM */
} SimLevelStats;

typedef struct {
  SimLevelStats level[SIM_MACHINE_MAX_LEVELS];
  guint64 invalidations_sent;  /* copies in other caches invalidated */
  guint64 invalidations_received;
  guint64 back_invalidations;  /* received because an inclusive level evicted */
  guint64 hitm;                /* data supplied modified by another core's cache */
  guint64 cross_socket;        /* transfers from another socket's caches */
  guint64 dram_local;
  guint64 dram_remote;
  guint64 cycles;              /* total latency returned */
  guint64 class_misses[SIM_MEM_N_CLASSES][SIM_MACHINE_MAX_LEVELS];
} SimCpuMemStats;

/* The scalar per-CPU counters of SimCpuMemStats with the names reports
 * print, defined once for every printer: X (field, "name"). */
#define SIM_MEMSYS_COHERENCE_COUNTERS(X)                 \
  X (invalidations_sent,     "invalidations_sent")       \
  X (invalidations_received, "invalidations_received")   \
  X (back_invalidations,     "back_invalidations")       \
  X (hitm,                   "hitm")                     \
  X (cross_socket,           "cross_socket")
#define SIM_MEMSYS_DRAM_COUNTERS(X)                      \
  X (dram_local,             "local")                    \
  X (dram_remote,            "remote")

/* What the model can build, checked before anything is allocated.  The
 * machine loader asks too (sim/config/machine.c), so a machine that loads
 * ("slabsim machine show") is one every verb can run: the rules live here,
 * once, next to the code that needs them (docs/machines.md, "Limits").
 *
 * Host memory: each line of every cache instance costs 10 bytes (tag,
 * state and the recency rank lru keeps), plus 8 bytes per set under plru;
 * the coherence directory has a power of two of slots >= 1.5 x all those
 * lines, each 8 x (2 + one word per 64 coherence domains) bytes.  The total
 * may not pass this cap. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/* The fuzz build (scripts/fuzz-brief) runs under a 2 GiB RSS limit, and
 * fuzz-sweep builds the machines it is given. */
#define SIM_MEMSYS_MAX_HOST_BYTES (G_GUINT64_CONSTANT (256) << 20)
#else
#define SIM_MEMSYS_MAX_HOST_BYTES (G_GUINT64_CONSTANT (8) << 30)
#endif
#define SIM_MEMSYS_MAX_WAYS       255   /* way indices are bytes */
#define SIM_MEMSYS_MAX_PLRU_WAYS  64    /* the tree's bits fit one word */
#define SIM_MEMSYS_MAX_SETS       (G_GUINT64_CONSTANT (1) << 31)

/* Where a check failed: level index into SimMachine.levels (-1: the
 * machine as a whole) and the key of that level at fault ("size", "ways",
 * "replacement", "inclusion", "shared", "line"; NULL: the level itself). */
typedef struct {
  int         level;
  const char *key;
} SimMemSysFault;

/* One level's geometry: size = sets x ways x line with a power-of-two
 * number of sets the set index can hold, a supported associativity.  On
 * success *sets is the set count.  Messages do not name the level. */
gboolean   sim_memsys_check_level    (const SimCacheLevelSpec *spec, guint *sets,
                                      const char **key, GError **error);
/* Every rule of sim_memsys_new, and the host memory it would allocate
 * (*host_bytes, may be NULL) against SIM_MEMSYS_MAX_HOST_BYTES; @fault (may
 * be NULL) says where it failed.  Messages do not name the machine. */
gboolean   sim_memsys_check_machine  (const SimMachine *m, guint64 *host_bytes,
                                      SimMemSysFault *fault, GError **error);
/* Full mode over @m (borrowed; must outlive the memsys).  Fails with
 * SIM_MODEL_ERROR_INVALID_PARAM when a check above fails, and with
 * SIM_MODEL_ERROR_HOST_MEMORY when the host cannot give the arrays. */
SimMemSys *sim_memsys_new            (const SimMachine *m, GError **error);
/* Cachegrind mode: two levels, LRU, write-allocate, LL looked up only on a
 * D1 miss, no write-back traffic, no coherence, Cachegrind's straddle rule
 * (one reference, at most one miss; on a D1 miss of either line the whole
 * access goes to the LL).  Sizes in bytes. */
SimMemSys *sim_memsys_new_cachegrind (guint64 d1_size, guint d1_ways, guint d1_line,
                                      guint64 ll_size, guint ll_ways, guint ll_line,
                                      GError **error);
void       sim_memsys_free           (SimMemSys *ms);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimMemSys, sim_memsys_free)

SimMemSysMode sim_memsys_mode        (const SimMemSys *ms);
guint      sim_memsys_n_cpus         (const SimMemSys *ms);
guint      sim_memsys_n_levels       (const SimMemSys *ms);

/* The one entry point: returns the latency in cycles. */
guint32    sim_memsys_access         (SimMemSys *ms, guint cpu, guint64 addr,
                                      guint32 size, SimAccKind kind);
guint32    sim_memsys_access_class   (SimMemSys *ms, guint cpu, guint64 addr,
                                      guint32 size, SimAccKind kind,
                                      SimMemClass cls);

/* One access of a batch (sim_memsys_access_refs): 16 bytes, so that a
 * trace reader can hand the model whole arrays of them. */
typedef struct {
  guint64 addr;
  guint32 size;
  guint16 cpu;            /* below sim_memsys_n_cpus (SIM_MACHINE_MAX_CPUS fits) */
  guint8  kind;           /* SimAccKind */
  guint8  reserved;       /* 0 */
} SimMemRef;

/* Apply @n accesses in order (class SIM_MEM_OTHER): the same state and
 * counters as calling sim_memsys_access for each, without a call per access;
 * the host cache sets of each access are prefetched (sim_memsys_prefetch) a
 * few accesses before it.  Latencies are added to the CPUs' cycle counters
 * as usual, not returned. */
void       sim_memsys_access_refs    (SimMemSys *ms, const SimMemRef *refs, gsize n);

/* A hint that @cpu will access @addr soon: starts the host's loads of the
 * tag and state sets (and the directory slot) that access will probe, so a
 * replay that knows its next accesses (cachesim reads them from the trace)
 * overlaps their host cache misses with the work before them.  Changes no
 * simulated state: results are the same with or without it. */
void       sim_memsys_prefetch       (const SimMemSys *ms, guint cpu, guint64 addr);

/* Counters of one CPU, and the sum over all CPUs. */
const SimCpuMemStats *sim_memsys_cpu_stats (const SimMemSys *ms, guint cpu);
void       sim_memsys_total_stats    (const SimMemSys *ms, SimCpuMemStats *out);

/* Home NUMA node of a physical address under the machine's rules. */
guint      sim_memsys_home_node      (const SimMemSys *ms, guint64 addr);

const char *sim_mem_class_name       (SimMemClass cls);

/* Does @cpu's instance of level @l hold the line of @addr?  Changes no
 * state (for tests and debugging). */
gboolean   sim_memsys_holds          (const SimMemSys *ms, guint cpu, guint l,
                                      guint64 addr);
/* Verify that the directory and every cache agree (each cached line is
 * recorded under its holder, each recorded holder has the line, owners hold
 * E/M copies).  Slow: for tests.  SIM_MODEL_ERROR_INVARIANT on failure. */
gboolean   sim_memsys_check          (const SimMemSys *ms, GError **error);
/* The machine of a full-mode memsys (NULL in Cachegrind mode), and the
 * geometry of level @l, for reports. */
const SimMachine *sim_memsys_machine (const SimMemSys *ms);
/* The core timing model of the machine (the serial model in Cachegrind
 * mode), and the first level's hit latency: a longer latency is a miss,
 * which holds a fill buffer (models/alloc/alloc.h). */
const SimCoreSpec *sim_memsys_core  (const SimMemSys *ms);
guint      sim_memsys_hit_latency    (const SimMemSys *ms);
/* @cpu's slot for the core timing model's pipeline state (a g_malloc'd
 * block the timing model allocates on first use; freed with the memsys). */
gpointer  *sim_memsys_core_slot      (SimMemSys *ms, guint cpu);
void       sim_memsys_level_geometry (const SimMemSys *ms, guint l, guint64 *size,
                                      guint *ways, guint *line);

G_END_DECLS
