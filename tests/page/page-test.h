/* page-test.h - machines and allocators shared by the page allocator
 * tests.  The machines are built in C: 2 sockets x 2 cores, one thread per
 * core, a private L1d and L2 and an L3 per socket. */
#pragma once

#include <stdio.h>
#include "tests/testutil.h"
#include "sim/core/errors.h"
#include "models/page/page-alloc.h"
#include "models/cache/memsys.h"

typedef struct {
  SimMachine   m;
  SimCpuPlace  cpus[4];
  SimMemSys   *mem;
  SimPageAlloc *pa;
  SimTime      now;    /* operations run one after the other from here */
} PtEnv;

static inline void
pt_machine (PtEnv *e, gboolean numa)
{
  SimMachine *m = &e->m;
  *m = (SimMachine) { 0 };
  m->name = (char *) "test-2s2c";
  m->description = (char *) "page allocator tests";
  m->source = (char *) "(test)";
  m->frequency_ghz = 2.0;
  m->sockets = 2;
  m->cores_per_socket = 2;
  m->threads_per_core = 1;
  m->n_cpus = 4;
  for (guint c = 0; c < 4; c++)
    e->cpus[c] = (SimCpuPlace) { .socket = c / 2, .core = c % 2, .thread = 0 };
  m->cpus = e->cpus;
  m->n_levels = 3;
  m->levels[0] = (SimCacheLevelSpec) { (char *) "L1d", 32 * 1024, 8, 64, SIM_REPL_LRU,
                                       SIM_INCL_NINE, 1, 4 };
  m->levels[1] = (SimCacheLevelSpec) { (char *) "L2", 256 * 1024, 8, 64, SIM_REPL_LRU,
                                       SIM_INCL_NINE, 1, 12 };
  m->levels[2] = (SimCacheLevelSpec) { (char *) "L3", 8 * 1024 * 1024, 16, 64, SIM_REPL_LRU,
                                       SIM_INCL_INCLUSIVE, 0, 40 };
  m->coherence = SIM_COH_MESIF;
  m->lat_local_clean = 60;
  m->lat_local_hitm = 75;
  m->lat_remote_clean = 150;
  m->lat_remote_hitm = 200;
  m->numa = numa;
  m->node_bytes = 16ull << 30;
  m->lat_dram_local = 200;
  m->lat_dram_remote = 320;
  m->seed = 1;
}

/* A machine, its memory system and a page allocator of @era with
 * @managed bytes per node (0: the default 1 GiB). */
static inline PtEnv *
pt_env_new (SimPageEra era, guint64 managed, gboolean numa)
{
  PtEnv *e = g_new0 (PtEnv, 1);
  GError *error = NULL;
  pt_machine (e, numa);
  e->mem = sim_memsys_new (&e->m, &error);
  assert_null (error);
  assert_non_null (e->mem);
  SimPageParams p = { .era = era, .managed_bytes = managed };
  e->pa = sim_page_alloc_new (&e->m, e->mem, &p, &error);
  assert_null (error);
  assert_non_null (e->pa);
  return e;
}

static inline void
pt_env_free (PtEnv *e)
{
  sim_page_alloc_free (e->pa);
  sim_memsys_free (e->mem);
  g_free (e);
}

static inline void
pt_assert_check (PtEnv *e)
{
  GError *error = NULL;
  gboolean ok = sim_page_check (e->pa, &error);
  if (!ok)
    fprintf (stderr, "sim_page_check: %s\n", error->message);
  assert_true (ok);
  assert_null (error);
}

/* One allocation / free on @cpu starting at time @t; returns the cost. */
static inline SimAddr
pt_alloc_op (PtEnv *e, SimOp *op, guint cpu, SimTime t, guint order, gint node,
             guint32 gfp, gboolean compound)
{
  sim_op_begin (op, e->mem, cpu, t);
  return sim_page_alloc (e->pa, op, order, node, gfp, compound);
}

/* Sequential operations: each starts when the previous one ended, so
 * no two overlap and no lock is ever contended. */
static inline SimAddr
pt_alloc_full (PtEnv *e, SimOp *op, guint cpu, guint order, gint node, guint32 gfp,
               gboolean compound)
{
  SimAddr a = pt_alloc_op (e, op, cpu, e->now, order, node, gfp, compound);
  e->now = op->t;
  return a;
}

static inline SimAddr
pt_alloc (PtEnv *e, guint cpu, guint order)
{
  SimOp op;
  return pt_alloc_full (e, &op, cpu, order, SIM_NUMA_NO_NODE, 0, FALSE);
}

static inline void
pt_free_op (PtEnv *e, SimOp *op, guint cpu, SimAddr a, guint order)
{
  sim_op_begin (op, e->mem, cpu, e->now);
  sim_page_free (e->pa, op, a, order);
  e->now = op->t;
}

static inline void
pt_free (PtEnv *e, guint cpu, SimAddr a, guint order)
{
  SimOp op;
  pt_free_op (e, &op, cpu, a, order);
}

static inline SimPagePcpInfo
pt_pcp (PtEnv *e, guint cpu, guint node)
{
  SimPagePcpInfo info;
  assert_true (sim_page_pcp_info (e->pa, cpu, node, &info));
  return info;
}
