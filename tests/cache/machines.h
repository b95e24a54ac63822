/* machines.h - SimMachine structs built in C for the cache tests, so that
 * the directed tests do not depend on the YAML loader.  Latencies are
 * distinct numbers so that a latency names the path that served an access:
 * 65/75 local clean/HITM, 200/250 remote clean/HITM, 180/280 DRAM.  Also
 * the memory system on such a machine and its invariant check, failing
 * the test with the model's message. */
#pragma once

#include "tests/testutil.h"
#include "sim/config/machine.h"
#include "models/cache/memsys.h"

enum {
  TM_LOCAL_CLEAN = 65, TM_LOCAL_HITM = 75,
  TM_REMOTE_CLEAN = 200, TM_REMOTE_HITM = 250,
  TM_DRAM_LOCAL = 180, TM_DRAM_REMOTE = 280,
};

/* CPU numbers run socket by socket, core by core, thread by thread. */
static inline SimMachine *
tm_new (guint sockets, guint cores, guint threads, SimCoherence coh)
{
  SimMachine *m = g_new0 (SimMachine, 1);
  m->name = g_strdup ("test");
  m->description = g_strdup ("built by tests/cache/machines.h");
  m->source = g_strdup ("(test)");
  m->frequency_ghz = 1.0;
  m->sockets = sockets;
  m->cores_per_socket = cores;
  m->threads_per_core = threads;
  m->n_cpus = sockets * cores * threads;
  m->cpus = g_new0 (SimCpuPlace, m->n_cpus);
  for (guint c = 0; c < m->n_cpus; c++)
    {
      m->cpus[c].socket = c / (cores * threads);
      m->cpus[c].core = (c / threads) % cores;
      m->cpus[c].thread = c % threads;
    }
  m->coherence = coh;
  m->lat_local_clean = TM_LOCAL_CLEAN;
  m->lat_local_hitm = TM_LOCAL_HITM;
  m->lat_remote_clean = TM_REMOTE_CLEAN;
  m->lat_remote_hitm = TM_REMOTE_HITM;
  m->numa = TRUE;
  m->node_bytes = G_GUINT64_CONSTANT (1) << 30;
  m->lat_dram_local = TM_DRAM_LOCAL;
  m->lat_dram_remote = TM_DRAM_REMOTE;
  m->seed = 1;
  return m;
}

static inline void
tm_level (SimMachine *m, const char *name, guint64 size, guint ways,
          SimReplPolicy repl, SimInclusion incl, guint shared_cores, guint latency)
{
  SimCacheLevelSpec *s = &m->levels[m->n_levels++];
  s->name = g_strdup (name);
  s->size = size;
  s->ways = ways;
  s->line = 64;
  s->replacement = repl;
  s->inclusion = incl;
  s->shared_cores = shared_cores;
  s->latency = latency;
}

/* 2 sockets x 2 cores: L1 1 KiB 2-way (4), L2 4 KiB 4-way (10), both
 * private; L3 16 KiB 8-way per socket, inclusive (40). */
static inline SimMachine *
tm_2x2 (SimCoherence coh)
{
  SimMachine *m = tm_new (2, 2, 1, coh);
  tm_level (m, "L1d", 1024, 2, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  tm_level (m, "L2", 4096, 4, SIM_REPL_LRU, SIM_INCL_NINE, 1, 10);
  tm_level (m, "L3", 16384, 8, SIM_REPL_LRU, SIM_INCL_INCLUSIVE, 0, 40);
  return m;
}

/* Core 2 Quad-like: 1 socket x 4 cores, private L1 (3), L2 16 KiB 8-way
 * shared by each core pair (14), MESI. */
static inline SimMachine *
tm_core2 (void)
{
  SimMachine *m = tm_new (1, 4, 1, SIM_COH_MESI);
  tm_level (m, "L1d", 1024, 2, SIM_REPL_LRU, SIM_INCL_NINE, 1, 3);
  tm_level (m, "L2", 16384, 8, SIM_REPL_LRU, SIM_INCL_NINE, 2, 14);
  return m;
}

/* The memory system of @m; the test fails if it cannot be built. */
static inline SimMemSys *
tm_memsys_new (SimMachine *m)
{
  GError *error = NULL;
  SimMemSys *ms = sim_memsys_new (m, &error);
  if (ms == NULL)
    {
      print_error ("sim_memsys_new: %s\n", error->message);
      fail ();
    }
  return ms;
}

/* Fail the test with sim_memsys_check's message when @ms breaks one of
 * the model's invariants. */
static inline void
tm_assert_memsys_ok (SimMemSys *ms)
{
  GError *error = NULL;
  if (!sim_memsys_check (ms, &error))
    {
      print_error ("%s\n", error->message);
      fail ();
    }
}
