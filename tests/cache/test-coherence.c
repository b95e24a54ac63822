/* test-coherence.c - directed coherence tests with hand-derived counts and
 * latencies (caches.md §5.6: there is no trace-driven oracle for
 * coherence).  Machines come from machines.h: tm_2x2 is 2 sockets x 2 cores
 * (CPUs 0,1 on socket 0; 2,3 on socket 1) with private L1/L2 and an
 * inclusive L3 per socket; tm_core2 is one socket of 4 cores with an L2 per
 * core pair. */
#include "tests/testutil.h"
#include "tests/cache/machines.h"
#include "models/cache/memsys.h"
#include "models/cache/memsys-internal.h"   /* memsys_shape_3l */

#define A 0x1000u      /* home node 0 */

static guint32
acc (SimMemSys *ms, guint cpu, guint64 addr, SimAccKind k)
{
  return sim_memsys_access (ms, cpu, addr, 8, k);
}

/* Cores 0 and 1 of one socket write one line in turn.  The first write
 * comes from DRAM; every later one finds the line modified in the other
 * core (snooped through the inclusive L3): a local HITM, one invalidation. */
static void
run_pingpong (guint cpu_a, guint cpu_b, guint64 off_b, guint lat, gboolean cross)
{
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESIF);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  for (guint i = 0; i < 10; i++)
    {
      guint cpu = i % 2 ? cpu_b : cpu_a;
      guint32 l = acc (ms, cpu, A + (i % 2 ? off_b : 0), SIM_ACC_WRITE);
      assert_int_equal (l, i == 0 ? TM_DRAM_LOCAL : lat);
    }
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.hitm, 9);
  assert_int_equal (t.invalidations_sent, 9);
  assert_int_equal (t.invalidations_received, 9);
  assert_int_equal (t.cross_socket, cross ? 9 : 0);
  assert_int_equal (t.dram_local + t.dram_remote, 1);
  const SimCpuMemStats *a = sim_memsys_cpu_stats (ms, cpu_a);
  const SimCpuMemStats *b = sim_memsys_cpu_stats (ms, cpu_b);
  assert_int_equal (a->invalidations_sent, 4);
  assert_int_equal (b->invalidations_sent, 5);
  assert_int_equal (a->invalidations_received, 5);
  assert_int_equal (a->cycles, TM_DRAM_LOCAL + 4 * lat);
  assert_int_equal (b->cycles, 5 * lat);
  assert_int_equal (a->level[0].misses[SIM_ACC_WRITE], 5);
  /* The L3 misses only when the line is not in the requester's socket. */
  assert_int_equal (t.level[2].misses[SIM_ACC_WRITE], cross ? 10 : 1);
  assert_int_equal (t.back_invalidations, 0);
}

static void
test_pingpong_same_socket (void **state)
{
  (void) state;
  run_pingpong (0, 1, 0, TM_LOCAL_HITM, FALSE);
}

static void
test_pingpong_cross_socket (void **state)
{
  (void) state;
  run_pingpong (0, 2, 0, TM_REMOTE_HITM, TRUE);
}

/* Two CPUs writing different words of one line behave exactly like a
 * ping-pong on the line. */
static void
test_false_sharing (void **state)
{
  (void) state;
  run_pingpong (0, 1, 8, TM_LOCAL_HITM, FALSE);
}

/* Reads by CPUs 0, 1 (socket 0) and 2 (socket 1), then CPU 0 writes.
 * CPU 1 finds the line E in core 0: a local clean transfer; CPU 2 gets it
 * from the MESIF forwarder (core 1) across the link, or from DRAM (home
 * node 0, remote for CPU 2) under MESI.  The write is an upgrade from S:
 * two invalidations (cores 1 and 2), no data, the cost of a cross-socket
 * invalidation round trip. */
static void
run_read_share (SimCoherence coh)
{
  g_autoptr (SimMachine) m = tm_2x2 (coh);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_READ), TM_DRAM_LOCAL);
  assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), TM_LOCAL_CLEAN);
  assert_int_equal (acc (ms, 2, A, SIM_ACC_READ),
                    coh == SIM_COH_MESIF ? TM_REMOTE_CLEAN : TM_DRAM_REMOTE);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_WRITE), TM_REMOTE_CLEAN);
  const SimCpuMemStats *s0 = sim_memsys_cpu_stats (ms, 0);
  assert_int_equal (s0->invalidations_sent, 2);
  assert_int_equal (s0->level[0].misses[SIM_ACC_WRITE], 0);   /* an upgrade */
  assert_int_equal (sim_memsys_cpu_stats (ms, 1)->invalidations_received, 1);
  assert_int_equal (sim_memsys_cpu_stats (ms, 2)->invalidations_received, 1);
  assert_int_equal (sim_memsys_cpu_stats (ms, 3)->invalidations_received, 0);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.hitm, 0);
  assert_int_equal (t.cross_socket, coh == SIM_COH_MESIF ? 1 : 0);
  assert_int_equal (t.dram_remote, coh == SIM_COH_MESIF ? 0 : 1);
  assert_false (sim_memsys_holds (ms, 1, 0, A));
  assert_false (sim_memsys_holds (ms, 2, 2, A));        /* socket 1's L3 too */
  /* Now CPU 3 reads the modified line from the other socket. */
  assert_int_equal (acc (ms, 3, A, SIM_ACC_READ), TM_REMOTE_HITM);
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.hitm, 1);
}

static void
test_read_share_then_write_mesif (void **state)
{
  (void) state;
  run_read_share (SIM_COH_MESIF);
}

static void
test_read_share_then_write_mesi (void **state)
{
  (void) state;
  run_read_share (SIM_COH_MESI);
}

/* CPU 0 writes, CPU 2 (other socket) reads: remote HITM.  MOESI keeps the
 * dirty line in core 0 as Owned, and the owner supplies every later reader
 * (CPU 3 remote HITM, CPU 1 local HITM) with no write-back.  MESI writes
 * the line back to socket 0's L3 on the first transfer; later readers hit
 * their own L3. */
static void
test_moesi_owned (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MOESI);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_WRITE), TM_DRAM_LOCAL);
  assert_int_equal (acc (ms, 2, A, SIM_ACC_READ), TM_REMOTE_HITM);
  assert_int_equal (acc (ms, 3, A, SIM_ACC_READ), TM_REMOTE_HITM);
  assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), TM_LOCAL_HITM);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.hitm, 3);
  assert_int_equal (t.cross_socket, 2);
  guint64 wb = 0;
  for (guint l = 0; l < 3; l++)
    wb += t.level[l].writebacks;
  assert_int_equal (wb, 0);
  /* Core 0 still reads its own (Owned) copy from L1. */
  assert_int_equal (acc (ms, 0, A, SIM_ACC_READ), 4);
}

static void
test_mesi_writeback_on_share (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESI);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_WRITE), TM_DRAM_LOCAL);
  assert_int_equal (acc (ms, 2, A, SIM_ACC_READ), TM_REMOTE_HITM);
  assert_int_equal (acc (ms, 3, A, SIM_ACC_READ), 40);
  assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), 40);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.hitm, 1);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->level[1].writebacks, 1);
}

/* Socket 0's L3: 16 KiB, 8 ways, 32 sets, so lines 2 KiB apart share a
 * set.  CPU 0 writes A (set 0); CPU 1 then reads 8 other lines of set 0:
 * the 8th evicts A (LRU; CPU 0's hits never refresh L3), which
 * back-invalidates CPU 0's L1 and L2 copies and writes the dirty data back
 * (one L3 write-back, charged to CPU 1 whose access caused it). */
static void
test_inclusive_l3_back_invalidation (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESIF);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  const guint64 a = 0;
  acc (ms, 0, a, SIM_ACC_WRITE);
  for (guint k = 1; k <= 7; k++)
    acc (ms, 1, a + k * 2048, SIM_ACC_READ);
  assert_true (sim_memsys_holds (ms, 0, 0, a));
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->back_invalidations, 0);
  acc (ms, 1, a + 8 * 2048, SIM_ACC_READ);
  assert_false (sim_memsys_holds (ms, 0, 0, a));
  assert_false (sim_memsys_holds (ms, 0, 1, a));
  assert_false (sim_memsys_holds (ms, 0, 2, a));
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->back_invalidations, 1);
  assert_int_equal (sim_memsys_cpu_stats (ms, 1)->back_invalidations, 0);
  assert_int_equal (sim_memsys_cpu_stats (ms, 1)->level[2].writebacks, 1);
  assert_int_equal (acc (ms, 0, a, SIM_ACC_READ), TM_DRAM_LOCAL);
}

/* NUMA: node n owns the n-th GiB, wrapping; without numa, pages alternate
 * between the sockets and every DRAM access costs the mean latency. */
static void
test_dram_numa (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESIF);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  const guint64 G = G_GUINT64_CONSTANT (1) << 30;
  assert_int_equal (sim_memsys_home_node (ms, 0), 0);
  assert_int_equal (sim_memsys_home_node (ms, G - 1), 0);
  assert_int_equal (sim_memsys_home_node (ms, G), 1);
  assert_int_equal (sim_memsys_home_node (ms, 2 * G), 0);
  assert_int_equal (sim_memsys_home_node (ms, 3 * G + 5), 1);
  assert_int_equal (acc (ms, 0, G, SIM_ACC_READ), TM_DRAM_REMOTE);
  assert_int_equal (acc (ms, 0, 2 * G, SIM_ACC_READ), TM_DRAM_LOCAL);
  assert_int_equal (acc (ms, 2, 2 * G + 64, SIM_ACC_READ), TM_DRAM_REMOTE);
  assert_int_equal (acc (ms, 2, 3 * G, SIM_ACC_WRITE), TM_DRAM_LOCAL);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->dram_local, 1);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->dram_remote, 1);
  assert_int_equal (sim_memsys_cpu_stats (ms, 2)->dram_local, 1);
  assert_int_equal (sim_memsys_cpu_stats (ms, 2)->dram_remote, 1);
}

static void
test_dram_interleaved (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESIF);
  m->numa = FALSE;
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  const guint mean = (TM_DRAM_LOCAL + TM_DRAM_REMOTE) / 2;
  assert_int_equal (sim_memsys_home_node (ms, 0), 0);
  assert_int_equal (sim_memsys_home_node (ms, 4096), 1);
  assert_int_equal (sim_memsys_home_node (ms, 8192 + 100), 0);
  assert_int_equal (acc (ms, 0, 0, SIM_ACC_READ), mean);
  assert_int_equal (acc (ms, 0, 4096, SIM_ACC_READ), mean);
  assert_int_equal (acc (ms, 0, 8192, SIM_ACC_READ), mean);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->dram_local, 2);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->dram_remote, 1);
}

/* Core 2 Quad: L2 shared per core pair (cores 0,1 and 2,3), MESI.
 *  CPU 0 writes A: DRAM.
 *  CPU 1 reads: hit in the pair's L2 but core 0 has it M: local HITM; core
 *    0 writes it back into the pair's L2 (an L1 write-back for CPU 0).
 *  CPU 2 reads: the other pair's L2 holds it dirty: local HITM, written
 *    back to memory (an L2 write-back charged to CPU 2).
 *  CPU 3 reads: its pair's L2 (filled for CPU 2) serves it.
 *  CPU 3 writes: upgrade, invalidating cores 0, 1 and 2 (3 invalidations)
 *    at the cost of its L2, the coherence point. */
static void
test_core2_pairs (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_core2 ();
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_WRITE), TM_DRAM_LOCAL);
  assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), TM_LOCAL_HITM);
  assert_int_equal (acc (ms, 2, A, SIM_ACC_READ), TM_LOCAL_HITM);
  assert_int_equal (acc (ms, 3, A, SIM_ACC_READ), 14);
  assert_int_equal (acc (ms, 3, A, SIM_ACC_WRITE), 14);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.hitm, 2);
  assert_int_equal (t.cross_socket, 0);
  assert_int_equal (sim_memsys_cpu_stats (ms, 3)->invalidations_sent, 3);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->level[0].writebacks, 1);
  assert_int_equal (sim_memsys_cpu_stats (ms, 2)->level[1].writebacks, 1);
  assert_false (sim_memsys_holds (ms, 0, 1, A));    /* pair 0's L2 copy dropped */
  assert_true (sim_memsys_holds (ms, 2, 1, A));     /* the writer's pair keeps it */
  assert_int_equal (acc (ms, 0, A, SIM_ACC_READ), TM_LOCAL_HITM);
}

/* SMT threads share their core's caches: no coherence traffic between
 * them. */
static void
test_smt_siblings_share (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_new (1, 2, 2, SIM_COH_MESIF);
  tm_level (m, "L1d", 1024, 2, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  tm_level (m, "L3", 8192, 8, SIM_REPL_LRU, SIM_INCL_INCLUSIVE, 0, 40);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_WRITE), TM_DRAM_LOCAL);
  assert_int_equal (acc (ms, 1, A, SIM_ACC_WRITE), 4);
  assert_int_equal (acc (ms, 2, A, SIM_ACC_READ), TM_LOCAL_HITM);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.invalidations_sent, 0);
  assert_int_equal (t.hitm, 1);
}

/* A non-inclusive L2 drops a line its L1 keeps hitting (L1 hits do not
 * refresh L2): the L1 copy must learn that it is now the core's only one,
 * so that when it leaves L1 later, clean, the core stops being a holder.
 * Lines 1 KiB apart share the L1 set and the L2 set of tm_2x2. */
static void
test_l2_drops_line_l1_keeps (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESIF);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  acc (ms, 0, A, SIM_ACC_READ);
  for (guint k = 1; k <= 4; k++)
    {
      acc (ms, 0, A + k * 1024, SIM_ACC_READ);
      acc (ms, 0, A, SIM_ACC_READ);      /* an L1 hit */
    }
  assert_true (sim_memsys_holds (ms, 0, 0, A));
  assert_false (sim_memsys_holds (ms, 0, 1, A));
  tm_assert_memsys_ok (ms);
  acc (ms, 0, A + 5 * 1024, SIM_ACC_READ);
  acc (ms, 0, A + 6 * 1024, SIM_ACC_READ);   /* A leaves L1, clean */
  assert_false (sim_memsys_holds (ms, 0, 0, A));
  assert_true (sim_memsys_holds (ms, 0, 2, A));
  tm_assert_memsys_ok (ms);
  /* Core 1 reads it: the socket's L3 serves it, no other core is snooped. */
  assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), 40);
}

/* Many lines through many CPUs on machines of every shape: after every
 * few thousand accesses the directory and the caches must agree
 * (sim_memsys_check), and the totals must add up. */
static void
stress (SimMachine *m)
{
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  guint64 x = 12345;
  for (guint i = 0; i < 100000; i++)
    {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      guint cpu = (guint) ((x >> 58) % m->n_cpus);
      guint64 addr = ((x >> 20) % 3000) * 64 + ((x >> 40) % 4 ? 0 : 60)
                     + ((x >> 44) % 2) * (G_GUINT64_CONSTANT (1) << 30);
      SimAccKind k = (SimAccKind) ((x >> 33) % 3);
      sim_memsys_access (ms, cpu, addr, 8, k);
      if (i % 5000 == 4999)
        {
          GError *error = NULL;
          if (!sim_memsys_check (ms, &error))
            {
              print_error ("after %u accesses: %s\n", i + 1, error->message);
              fail ();
            }
        }
    }
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.invalidations_sent, t.invalidations_received);
  assert_true (t.hitm > 0);
  assert_true (t.level[0].accesses[0] + t.level[0].accesses[1] + t.level[0].accesses[2]
               >= 100000);
}

/* sim_memsys_prefetch is a host hint: two memory systems given the same
 * accesses, one of them also prefetch hints for other addresses and CPUs
 * (one out of range) before each, return the same latencies and end with
 * the same counters, in full mode and in Cachegrind mode. */
static void
same_with_prefetch (SimMemSys *a, SimMemSys *b, guint n_cpus)
{
  guint64 x = 999;
  for (guint i = 0; i < 50000; i++)
    {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      guint cpu = (guint) ((x >> 58) % n_cpus);
      guint64 addr = ((x >> 20) % 5000) * 64 + ((x >> 40) % 4 ? 0 : 60);
      SimAccKind k = (SimAccKind) ((x >> 33) % 3);
      sim_memsys_prefetch (b, (cpu + 1) % n_cpus, addr ^ 0x1fc0);
      sim_memsys_prefetch (b, n_cpus, addr);
      sim_memsys_prefetch (b, cpu, addr);
      guint32 la = sim_memsys_access (a, cpu, addr, 8, k);
      guint32 lb = sim_memsys_access (b, cpu, addr, 8, k);
      assert_int_equal (la, lb);
    }
  for (guint c = 0; c < sim_memsys_n_cpus (a); c++)
    assert_memory_equal (sim_memsys_cpu_stats (a, c), sim_memsys_cpu_stats (b, c),
                         sizeof (SimCpuMemStats));
}

static void
test_prefetch_changes_nothing (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESIF);
  g_autoptr (SimMemSys) a = tm_memsys_new (m);
  g_autoptr (SimMemSys) b = tm_memsys_new (m);
  same_with_prefetch (a, b, m->n_cpus);
  GError *error = NULL;
  assert_true (sim_memsys_check (b, &error));
  g_autoptr (SimMemSys) ca = sim_memsys_new_cachegrind (4096, 4, 64, 65536, 16, 64, &error);
  g_autoptr (SimMemSys) cb = sim_memsys_new_cachegrind (4096, 4, 64, 65536, 16, 64, &error);
  assert_non_null (ca);
  assert_non_null (cb);
  same_with_prefetch (ca, cb, 1);
}

/* sim_memsys_access_refs in full mode (its loops: an 8-way L1 with an 8-
 * and a 16-way level after it, with the ways as constants; any other
 * 8-way L1; other L1s) against one sim_memsys_access per reference: the
 * same counters after every batch (batches of 1 to 300 references, some
 * straddling two lines, on every CPU), and a consistent state at the end. */
static void
same_in_batches (SimMachine *m)
{
  GError *error = NULL;
  g_autoptr (SimMemSys) a = tm_memsys_new (m);
  g_autoptr (SimMemSys) b = tm_memsys_new (m);
  guint64 x = 4242;
  SimMemRef refs[300];
  for (guint round = 0; round < 300; round++)
    {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      guint n = round % 9 == 0 ? 1 : 1 + (guint) ((x >> 33) % 300);
      for (guint i = 0; i < n; i++)
        {
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
          guint cpu = (guint) ((x >> 58) % m->n_cpus);
          guint64 addr = ((x >> 20) % 3000) * 64 + ((x >> 40) % 8 ? 8 : 60);   /* 60: straddles */
          SimAccKind k = (SimAccKind) ((x >> 33) % 3);
          refs[i] = (SimMemRef) { addr, 8, (guint16) cpu, (guint8) k, 0 };
          sim_memsys_access (a, cpu, addr, 8, k);
        }
      sim_memsys_access_refs (b, refs, n);
      for (guint c = 0; c < m->n_cpus; c++)
        if (memcmp (sim_memsys_cpu_stats (a, c), sim_memsys_cpu_stats (b, c),
                    sizeof (SimCpuMemStats)) != 0)
          {
            print_error ("machine %s: CPU %u differs after batch %u\n", m->name, c, round);
            fail ();
          }
    }
  assert_true (sim_memsys_check (b, &error));
}

static void
test_batches_match_single_accesses (void **state)
{
  (void) state;
  /* 8 / 8 / 16 ways: the loop with constant ways. */
  g_autoptr (SimMachine) m1 = tm_new (2, 2, 2, SIM_COH_MESIF);
  tm_level (m1, "L1d", 2048, 8, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  tm_level (m1, "L2", 8192, 8, SIM_REPL_LRU, SIM_INCL_NINE, 1, 10);
  tm_level (m1, "L3", 65536, 16, SIM_REPL_LRU, SIM_INCL_INCLUSIVE, 0, 40);
  same_in_batches (m1);
  /* An 8-way L1, other outer levels: the loop over the levels. */
  g_autoptr (SimMachine) m2 = tm_new (1, 4, 1, SIM_COH_MESI);
  tm_level (m2, "L1d", 2048, 8, SIM_REPL_PLRU, SIM_INCL_NINE, 1, 3);
  tm_level (m2, "L2", 16384, 4, SIM_REPL_LRU, SIM_INCL_NINE, 2, 14);
  same_in_batches (m2);
  /* A 2-way L1: one call per reference. */
  g_autoptr (SimMachine) m3 = tm_2x2 (SIM_COH_MOESI);
  same_in_batches (m3);
}

static void
test_stress_inclusive_mesif (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESIF);
  stress (m);
}

static void
test_stress_exclusive_moesi (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MOESI);   /* Opteron-like */
  m->levels[1].inclusion = SIM_INCL_EXCLUSIVE;
  m->levels[2].inclusion = SIM_INCL_EXCLUSIVE;
  stress (m);
}

static void
test_stress_nine_mesi_plru (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_2x2 (SIM_COH_MESI);
  m->levels[2].inclusion = SIM_INCL_NINE;
  m->levels[1].inclusion = SIM_INCL_INCLUSIVE;
  m->levels[0].replacement = SIM_REPL_PLRU;
  m->levels[2].replacement = SIM_REPL_RANDOM;
  stress (m);
}

static void
test_stress_core2_smt (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = tm_new (2, 4, 2, SIM_COH_MESI);
  tm_level (m, "L1d", 1024, 2, SIM_REPL_LRU, SIM_INCL_NINE, 1, 3);
  tm_level (m, "L2", 8192, 8, SIM_REPL_LRU, SIM_INCL_NINE, 2, 14);
  tm_level (m, "L3", 32768, 8, SIM_REPL_LRU, SIM_INCL_INCLUSIVE, 0, 30);
  stress (m);
}

/* The common shape, whose miss path is the constant-count instance
 * (memsys.c, SH_3L): private 8-way L1 and L2, an inclusive 16-way L3 per
 * socket, SMT; small sets so that every level evicts.  Under MESIF with a
 * PLRU L1 (Nehalem's), MOESI with LRU everywhere and MESI with random L2
 * and L3 replacement. */
static SimMachine *
tm_common_shape (SimCoherence coh, SimReplPolicy r1, SimReplPolicy r23)
{
  SimMachine *m = tm_new (2, 2, 2, coh);
  tm_level (m, "L1d", 1024, 8, r1, SIM_INCL_NINE, 1, 4);
  tm_level (m, "L2", 4096, 8, r23, SIM_INCL_NINE, 1, 10);
  tm_level (m, "L3", 16384, 16, r23, SIM_INCL_INCLUSIVE, 0, 40);
  return m;
}

static void
test_stress_common_shape (void **state)
{
  (void) state;
  struct { SimCoherence coh; SimReplPolicy r1, r23; } v[] = {
    { SIM_COH_MESIF, SIM_REPL_PLRU, SIM_REPL_LRU },
    { SIM_COH_MOESI, SIM_REPL_LRU, SIM_REPL_LRU },
    { SIM_COH_MESI, SIM_REPL_LRU, SIM_REPL_RANDOM },
  };
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    {
      g_autoptr (SimMachine) m = tm_common_shape (v[i].coh, v[i].r1, v[i].r23);
      g_autoptr (SimMemSys) ms = tm_memsys_new (m);
      assert_true (memsys_shape_3l (ms));
      stress (m);
    }
}

/* PLRU sets of up to 32 ways keep valid bits beside their tree (memsys-
 * internal.h, PLRU_VALID), which every path that fills or empties a way
 * must keep; sim_memsys_check (in stress) compares them with the tags.
 * PLRU at every level: the common shape (its constant-ways miss path, the
 * 16-way L3 back-invalidating), exclusive victim levels (victim fills, a
 * hit giving its line up), an inclusive private L2, and a 64-way level,
 * whose bits are not kept (the tag search instead). */
static void
test_stress_plru_valid_bits (void **state)
{
  (void) state;
  {
    g_autoptr (SimMachine) m = tm_common_shape (SIM_COH_MOESI, SIM_REPL_PLRU, SIM_REPL_PLRU);
    g_autoptr (SimMemSys) ms = tm_memsys_new (m);
    assert_true (memsys_shape_3l (ms));
    stress (m);
  }
  for (guint v = 0; v < 3; v++)
    {
      g_autoptr (SimMachine) m = tm_2x2 (v == 0 ? SIM_COH_MOESI : SIM_COH_MESIF);
      for (guint l = 0; l < 3; l++)
        m->levels[l].replacement = SIM_REPL_PLRU;
      if (v == 0)
        {
          m->levels[1].inclusion = SIM_INCL_EXCLUSIVE;
          m->levels[2].inclusion = SIM_INCL_EXCLUSIVE;
        }
      else if (v == 1)
        m->levels[1].inclusion = SIM_INCL_INCLUSIVE;
      else
        {
          m->levels[2].size = 65536;
          m->levels[2].ways = 64;
        }
      stress (m);
    }
}

/* Line numbers that differ only above bit 31 share their low 32-bit
 * halves, which a tag search comparing halves (SSE2 has no 64-bit compare:
 * memsys-internal.h, match8_sse2) must still tell apart.  Two memory
 * systems get the same random accesses, one to lines low + h * 2^32 (up to
 * four such lines in every set), the other to low + h * 2^20 (the same
 * sets and home nodes, distinct low halves): every latency and counter
 * must agree, and sim_memsys_check must hold.  The common shape's miss
 * path and a machine with the same ways that is not of that shape (L3 not
 * inclusive).  (A search of the low halves alone, confirmed by the full
 * tag, was measured and dropped: docs/perf/l2miss-12.md.) */
static void
test_tag_low_half_aliases (void **state)
{
  (void) state;
  for (guint v = 0; v < 3; v++)
    {
      g_autoptr (SimMachine) m = tm_common_shape (v == 1 ? SIM_COH_MOESI : SIM_COH_MESIF,
                                                  v == 2 ? SIM_REPL_LRU : SIM_REPL_PLRU,
                                                  SIM_REPL_LRU);
      if (v == 2)
        m->levels[2].inclusion = SIM_INCL_NINE;
      m->numa = FALSE;
      g_autoptr (SimMemSys) alias = tm_memsys_new (m);
      g_autoptr (SimMemSys) plain = tm_memsys_new (m);
      assert_int_equal (memsys_shape_3l (alias), v != 2);
      guint64 x = 777 + v;
      for (guint i = 0; i < 60000; i++)
        {
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
          guint cpu = (guint) ((x >> 58) % m->n_cpus);
          guint64 low = (x >> 20) % 1024, h = (x >> 40) % 4;
          SimAccKind k = (SimAccKind) ((x >> 33) % 3);
          guint32 la = sim_memsys_access (alias, cpu, (low + (h << 32)) * 64, 8, k);
          guint32 lp = sim_memsys_access (plain, cpu, (low + (h << 20)) * 64, 8, k);
          if (la != lp)
            {
              print_error ("access %u: latency %u with aliasing low halves, %u without\n",
                           i, la, lp);
              fail ();
            }
          if (i % 10000 == 9999)
            {
              GError *error = NULL;
              if (!sim_memsys_check (alias, &error))
                {
                  print_error ("after %u accesses: %s\n", i + 1, error->message);
                  fail ();
                }
            }
        }
      for (guint c = 0; c < m->n_cpus; c++)
        assert_memory_equal (sim_memsys_cpu_stats (alias, c), sim_memsys_cpu_stats (plain, c),
                             sizeof (SimCpuMemStats));
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_pingpong_same_socket),
    cmocka_unit_test (test_pingpong_cross_socket),
    cmocka_unit_test (test_false_sharing),
    cmocka_unit_test (test_read_share_then_write_mesif),
    cmocka_unit_test (test_read_share_then_write_mesi),
    cmocka_unit_test (test_moesi_owned),
    cmocka_unit_test (test_mesi_writeback_on_share),
    cmocka_unit_test (test_inclusive_l3_back_invalidation),
    cmocka_unit_test (test_dram_numa),
    cmocka_unit_test (test_dram_interleaved),
    cmocka_unit_test (test_core2_pairs),
    cmocka_unit_test (test_smt_siblings_share),
    cmocka_unit_test (test_l2_drops_line_l1_keeps),
    cmocka_unit_test (test_stress_inclusive_mesif),
    cmocka_unit_test (test_stress_exclusive_moesi),
    cmocka_unit_test (test_stress_nine_mesi_plru),
    cmocka_unit_test (test_stress_core2_smt),
    cmocka_unit_test (test_stress_common_shape),
    cmocka_unit_test (test_stress_plru_valid_bits),
    cmocka_unit_test (test_tag_low_half_aliases),
    cmocka_unit_test (test_prefetch_changes_nothing),
    cmocka_unit_test (test_batches_match_single_accesses),
  };
  return cmocka_run_group_tests_name ("cache-coherence", tests, NULL, NULL);
}
