/* test-corevalid.c - directed tests of who holds a line in an inclusive
 * L3 (memsys.c: the per-core valid bits that an inclusive L3 per socket
 * keeps in its lines, and the directory that remains for lines more than
 * one socket holds).  The counts and latencies are derived by hand from
 * the model's rules (memsys.c's essay); they hold whichever way the holders
 * are recorded, so the same tests ran against the directory-only model.
 *
 * The machine: 2 sockets x 4 cores, no SMT (CPU n is core n; CPUs 0-3 on
 * socket 0, 4-7 on socket 1), a private L1 of 1 KiB (8 ways: the common
 * shape's constant-ways miss path; 4 ways: any machine's), a private L2 of
 * 4 KiB 8-way (8 sets: lines 512 bytes apart share an L1 and an L2 set),
 * an inclusive L3 of 16 KiB 16-way per socket (16 sets: lines 1 KiB apart
 * share an L3 set; lines an odd multiple of 512 bytes from A do not share
 * A's).  After each step sim_memsys_check must pass.  The bits are opt-in
 * (SLABSIM_COREVALID=1), which main() sets for every test but test_gate's
 * check of the default. */
#include "tests/testutil.h"
#include "tests/cache/machines.h"
#include "models/cache/memsys.h"
#include "models/cache/memsys-internal.h"

#define A 0x1000u      /* home node 0; L3 set 0 */

enum { L1 = 4, L2 = 10, L3 = 40 };

static SimMachine *
cv_machine (SimCoherence coh, guint l1_ways)
{
  SimMachine *m = tm_new (2, 4, 1, coh);
  tm_level (m, "L1d", 1024, l1_ways, SIM_REPL_LRU, SIM_INCL_NINE, 1, L1);
  tm_level (m, "L2", 4096, 8, SIM_REPL_LRU, SIM_INCL_NINE, 1, L2);
  tm_level (m, "L3", 16384, 16, SIM_REPL_LRU, SIM_INCL_INCLUSIVE, 0, L3);
  return m;
}

static guint32
acc (SimMemSys *ms, guint cpu, guint64 addr, SimAccKind k)
{
  guint32 lat = sim_memsys_access (ms, cpu, addr, 8, k);
  tm_assert_memsys_ok (ms);
  return lat;
}

/* Does @cpu's core hold @addr in a private level? */
static gboolean
in_private (SimMemSys *ms, guint cpu, guint64 addr)
{
  return sim_memsys_holds (ms, cpu, 0, addr) || sim_memsys_holds (ms, cpu, 1, addr);
}

/* @cpu reads 8 lines that share A's L1 and L2 sets but not its L3 set:
 * A leaves the core's private levels by conflict, its L3 keeps it. */
static void
lose_by_conflict (SimMemSys *ms, guint cpu, guint64 a)
{
  for (guint j = 0; j < 8; j++)
    acc (ms, cpu, a + (2 * j + 1) * 512, SIM_ACC_READ);
  assert_false (in_private (ms, cpu, a));
  assert_true (sim_memsys_holds (ms, cpu, 2, a));
}

/* @cpu reads 16 new lines of A's L3 set: the last one evicts A (the least
 * recently used line there) from the L3 of @cpu's socket. */
static void
flood_l3_set (SimMemSys *ms, guint cpu, guint64 a, guint64 salt)
{
  for (guint j = 1; j <= 16; j++)
    {
      if (j == 16)
        assert_true (sim_memsys_holds (ms, cpu, 2, a));
      acc (ms, cpu, a + salt + j * 1024, SIM_ACC_READ);
    }
  assert_false (sim_memsys_holds (ms, cpu, 2, a));
}

static guint64
back_inv (SimMemSys *ms, guint cpu)
{
  return sim_memsys_cpu_stats (ms, cpu)->back_invalidations;
}

/* Two cores read-share A; one loses it by conflict misses.  Its holder
 * bit must go: the other's write then invalidates nobody and costs the
 * L3's latency (an upgrade), and a read back finds the writer's M copy. */
static void
share_then_lose (guint l1_ways)
{
  g_autoptr (SimMachine) m = cv_machine (SIM_COH_MESIF, l1_ways);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_READ), TM_DRAM_LOCAL);
  assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), TM_LOCAL_CLEAN);   /* core 0 had it E */
  lose_by_conflict (ms, 0, A);
  assert_true (in_private (ms, 1, A));
  assert_int_equal (acc (ms, 1, A, SIM_ACC_WRITE), L3);
  assert_int_equal (sim_memsys_cpu_stats (ms, 1)->invalidations_sent, 0);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->invalidations_received, 0);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_READ), TM_LOCAL_HITM);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.hitm, 1);
  assert_int_equal (t.back_invalidations, 0);
  assert_int_equal (t.cross_socket, 0);
}

static void
test_share_then_lose_by_conflict (void **state)
{
  (void) state;
  share_then_lose (8);
  share_then_lose (4);
}

/* Cores 0, 1 and 2 read A; core 0 loses it by conflict; core 3 evicts it
 * from the L3.  Exactly the cores still holding it (1 and 2) are
 * back-invalidated, one count each; a clean line writes nothing back.  A
 * dirty owner's copy goes back to DRAM through the L3: one write-back,
 * charged to the CPU whose access evicted it. */
static void
l3_eviction (guint l1_ways)
{
  g_autoptr (SimMachine) m = cv_machine (SIM_COH_MESIF, l1_ways);
  {
    g_autoptr (SimMemSys) ms = tm_memsys_new (m);
    for (guint c = 0; c < 3; c++)
      acc (ms, c, A, SIM_ACC_READ);
    lose_by_conflict (ms, 0, A);
    flood_l3_set (ms, 3, A, 0);
    assert_int_equal (back_inv (ms, 0), 0);
    assert_int_equal (back_inv (ms, 1), 1);
    assert_int_equal (back_inv (ms, 2), 1);
    assert_int_equal (back_inv (ms, 3), 0);
    for (guint c = 0; c < 4; c++)
      assert_false (in_private (ms, c, A));
    assert_int_equal (sim_memsys_cpu_stats (ms, 3)->level[2].writebacks, 0);
    /* Nobody has it any more. */
    assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), TM_DRAM_LOCAL);
  }
  {
    g_autoptr (SimMemSys) ms = tm_memsys_new (m);
    acc (ms, 0, A, SIM_ACC_READ);
    assert_int_equal (acc (ms, 1, A, SIM_ACC_WRITE), TM_LOCAL_CLEAN);   /* E in core 0 */
    assert_int_equal (sim_memsys_cpu_stats (ms, 0)->invalidations_received, 1);
    flood_l3_set (ms, 3, A, 0);
    assert_int_equal (back_inv (ms, 0), 0);
    assert_int_equal (back_inv (ms, 1), 1);
    assert_int_equal (sim_memsys_cpu_stats (ms, 3)->level[2].writebacks, 1);
    assert_int_equal (acc (ms, 0, A, SIM_ACC_READ), TM_DRAM_LOCAL);
  }
}

static void
test_l3_eviction_purges_holders (void **state)
{
  (void) state;
  l3_eviction (8);
  l3_eviction (4);
}

/* A read from the other socket makes the line held by two sockets: a
 * write in the first socket must then reach the other socket's cores and
 * L3, and the other socket's next read finds the writer's M copy. */
static void
cross_socket (guint l1_ways)
{
  g_autoptr (SimMachine) m = cv_machine (SIM_COH_MESIF, l1_ways);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_int_equal (acc (ms, 0, A, SIM_ACC_WRITE), TM_DRAM_LOCAL);
  assert_int_equal (acc (ms, 4, A, SIM_ACC_READ), TM_REMOTE_HITM);
  /* M -> S with a write-back to socket 0's L3, which now owns the dirty
   * copy; socket 1's L3 hit does not snoop it. */
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->level[1].writebacks, 1);
  assert_int_equal (acc (ms, 5, A, SIM_ACC_READ), L3);
  assert_true (sim_memsys_holds (ms, 4, 2, A));
  /* Core 1's write hits its L3 and invalidates cores 0, 4, 5 and
   * socket 1's L3. */
  assert_int_equal (acc (ms, 1, A, SIM_ACC_WRITE), L3);
  assert_int_equal (sim_memsys_cpu_stats (ms, 1)->invalidations_sent, 3);
  for (guint c = 0; c < 8; c++)
    assert_int_equal (sim_memsys_cpu_stats (ms, c)->invalidations_received,
                      c == 0 || c == 4 || c == 5);
  assert_false (sim_memsys_holds (ms, 4, 2, A));
  assert_false (in_private (ms, 0, A));
  assert_int_equal (acc (ms, 4, A, SIM_ACC_READ), TM_REMOTE_HITM);
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_int_equal (t.cross_socket, 2);
  assert_int_equal (t.hitm, 2);
}

/* The MESIF forwarder outlives its socket's partner: socket 0 reads A,
 * socket 1 reads it (core 4 becomes the forwarder), socket 0's L3 evicts
 * it.  A read from socket 0 is then served by core 4 (remote clean); if
 * core 4 has lost the line first, nobody forwards and DRAM serves it. */
static void
forwarder (guint l1_ways, gboolean fwd_leaves)
{
  g_autoptr (SimMachine) m = cv_machine (SIM_COH_MESIF, l1_ways);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  acc (ms, 0, A, SIM_ACC_READ);
  assert_int_equal (acc (ms, 4, A, SIM_ACC_READ), TM_REMOTE_CLEAN);   /* E in core 0 */
  flood_l3_set (ms, 1, A, 0);
  assert_int_equal (back_inv (ms, 0), 1);
  assert_true (sim_memsys_holds (ms, 4, 0, A));
  if (fwd_leaves)
    lose_by_conflict (ms, 4, A);
  assert_int_equal (acc (ms, 2, A, SIM_ACC_READ), fwd_leaves ? TM_DRAM_LOCAL : TM_REMOTE_CLEAN);
  /* Under MESIF core 2 is the forwarder now; the line is shared by two
   * sockets again, so core 5's write invalidates across them. */
  assert_int_equal (acc (ms, 5, A, SIM_ACC_WRITE), L3);
  assert_int_equal (sim_memsys_cpu_stats (ms, 2)->invalidations_received, 1);
  assert_false (sim_memsys_holds (ms, 2, 2, A));
}

/* A dirty line shared by both sockets whose copy in socket 1 goes (socket
 * 1's L3 evicts it): socket 0's L3 stays the owner of the dirty data, so
 * core 1's read is an L3 hit and socket 0's own L3 eviction writes it back. */
static void
owner_survives (guint l1_ways, SimCoherence coh)
{
  g_autoptr (SimMachine) m = cv_machine (coh, l1_ways);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  acc (ms, 0, A, SIM_ACC_WRITE);
  assert_int_equal (acc (ms, 4, A, SIM_ACC_READ), TM_REMOTE_HITM);
  flood_l3_set (ms, 5, A, 0);
  assert_int_equal (back_inv (ms, 4), 1);
  if (coh == SIM_COH_MOESI)
    {
      /* Core 0 kept the dirty line as O and still supplies it. */
      assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), TM_LOCAL_HITM);
      lose_by_conflict (ms, 0, A);
    }
  else
    assert_int_equal (acc (ms, 1, A, SIM_ACC_READ), L3);
  lose_by_conflict (ms, 1, A);
  guint64 wb = sim_memsys_cpu_stats (ms, 2)->level[2].writebacks;
  flood_l3_set (ms, 2, A, 0);
  assert_int_equal (sim_memsys_cpu_stats (ms, 2)->level[2].writebacks, wb + 1);
}

static void
test_cross_socket_state (void **state)
{
  (void) state;
  for (guint w = 4; w <= 8; w += 4)
    {
      cross_socket (w);
      forwarder (w, FALSE);
      forwarder (w, TRUE);
      owner_survives (w, SIM_COH_MESIF);
      owner_survives (w, SIM_COH_MESI);
      owner_survives (w, SIM_COH_MOESI);
    }
}

/* Lines only one socket touches never enter the directory: their holders
 * are in the L3's core-valid bits.  A read from the other socket puts the
 * line there; a write that takes it back to one socket removes it. */
static void
test_one_socket_lines_skip_directory (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = cv_machine (SIM_COH_MESIF, 8);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_true (ms->corevalid);
  guint64 x = 5;
  for (guint i = 0; i < 4000; i++)
    {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      acc (ms, (guint) (x >> 62), A + ((x >> 20) % 600) * 64,
           (x >> 40) % 3 ? SIM_ACC_READ : SIM_ACC_WRITE);
    }
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  assert_true (t.back_invalidations > 0);
  assert_int_equal (ms->dir_count, 0);
  acc (ms, 0, A, SIM_ACC_READ);
  acc (ms, 4, A, SIM_ACC_READ);
  assert_int_equal (ms->dir_count, 1);
  acc (ms, 0, A, SIM_ACC_WRITE);
  assert_int_equal (ms->dir_count, 0);
}

/* Which machines keep core-valid bits: one inclusive shared level per
 * socket of at most 64 cores after private levels that are not victim
 * caches, when SLABSIM_COREVALID=1 asks for them; none by default. */
static void
test_gate (void **state)
{
  (void) state;
  struct { guint l1_ways; SimInclusion l2, l3; guint l3_cores; gboolean cv; } v[] = {
    { 8, SIM_INCL_NINE, SIM_INCL_INCLUSIVE, 0, TRUE },
    { 4, SIM_INCL_INCLUSIVE, SIM_INCL_INCLUSIVE, 0, TRUE },
    { 8, SIM_INCL_NINE, SIM_INCL_NINE, 0, FALSE },
    { 8, SIM_INCL_EXCLUSIVE, SIM_INCL_INCLUSIVE, 0, FALSE },
    { 8, SIM_INCL_NINE, SIM_INCL_EXCLUSIVE, 0, FALSE },
    { 8, SIM_INCL_NINE, SIM_INCL_INCLUSIVE, 2, FALSE },   /* an L3 per core pair */
  };
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    {
      g_autoptr (SimMachine) m = cv_machine (SIM_COH_MOESI, v[i].l1_ways);
      m->levels[1].inclusion = v[i].l2;
      m->levels[2].inclusion = v[i].l3;
      m->levels[2].shared_cores = v[i].l3_cores;
      g_autoptr (SimMemSys) ms = tm_memsys_new (m);
      assert_int_equal (ms->corevalid, v[i].cv);
    }
  g_autoptr (SimMachine) m = cv_machine (SIM_COH_MESIF, 8);
  g_unsetenv ("SLABSIM_COREVALID");
  SimMemSys *off = tm_memsys_new (m);
  g_setenv ("SLABSIM_COREVALID", "1", TRUE);
  assert_false (off->corevalid);
  sim_memsys_free (off);
}

/* The oracle: the same random accesses through a memory system that keeps
 * core-valid bits and one that keeps every holder in the directory
 * (corevalid cleared before the first access) give the same latency on
 * every access and the same counters; both stay consistent. */
static void
same_as_directory (SimMachine *m, guint n, guint lines)
{
  g_autoptr (SimMemSys) a = tm_memsys_new (m);
  g_autoptr (SimMemSys) b = tm_memsys_new (m);
  assert_true (a->corevalid);
  b->corevalid = FALSE;
  guint64 x = 777;
  for (guint i = 0; i < n; i++)
    {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      guint cpu = (guint) ((x >> 58) % m->n_cpus);
      /* Mostly lines of the CPU's own socket's range, some shared. */
      guint64 line = (x >> 20) % lines;
      if ((x >> 12) % 4)
        line = line / 2 * 2 + m->cpus[cpu].socket % 2;
      guint64 addr = line * 64 + ((x >> 40) % 8 ? 0 : 60);
      SimAccKind k = (SimAccKind) ((x >> 33) % 3);
      guint32 la = sim_memsys_access (a, cpu, addr, 8, k);
      guint32 lb = sim_memsys_access (b, cpu, addr, 8, k);
      if (la != lb)
        {
          print_error ("%s: access %u (CPU %u, %#" G_GINT64_MODIFIER "x): latency %u, "
                       "directory only %u\n", m->name, i, cpu, addr, la, lb);
          fail ();
        }
      if (i % 4000 == 3999)
        {
          tm_assert_memsys_ok (a);
          tm_assert_memsys_ok (b);
        }
    }
  for (guint c = 0; c < m->n_cpus; c++)
    assert_memory_equal (sim_memsys_cpu_stats (a, c), sim_memsys_cpu_stats (b, c),
                         sizeof (SimCpuMemStats));
  SimCpuMemStats t;
  sim_memsys_total_stats (a, &t);
  assert_true (t.back_invalidations > 0);
  assert_true (t.cross_socket > 0);
  assert_true (t.hitm > 0);
}

static void
test_same_as_directory (void **state)
{
  (void) state;
  SimCoherence coh[] = { SIM_COH_MESIF, SIM_COH_MESI, SIM_COH_MOESI };
  for (guint c = 0; c < 3; c++)
    for (guint w = 4; w <= 8; w += 4)
      {
        g_autoptr (SimMachine) m = cv_machine (coh[c], w);
        if (c == 1)
          {
            m->levels[0].replacement = SIM_REPL_PLRU;
            m->levels[2].replacement = SIM_REPL_RANDOM;
          }
        if (c == 2 && w == 4)
          m->levels[1].inclusion = SIM_INCL_INCLUSIVE;
        same_as_directory (m, 60000, 2000);
      }
  {
    /* Three sockets of two cores with two threads each. */
    g_autoptr (SimMachine) m = tm_new (3, 2, 2, SIM_COH_MESIF);
    tm_level (m, "L1d", 1024, 8, SIM_REPL_PLRU, SIM_INCL_NINE, 1, L1);
    tm_level (m, "L2", 4096, 8, SIM_REPL_LRU, SIM_INCL_NINE, 1, L2);
    tm_level (m, "L3", 16384, 16, SIM_REPL_LRU, SIM_INCL_INCLUSIVE, 0, L3);
    same_as_directory (m, 60000, 2000);
  }
  {
    /* Two levels: a private L1 under an inclusive L2 per socket. */
    g_autoptr (SimMachine) m = tm_new (2, 3, 1, SIM_COH_MOESI);
    tm_level (m, "L1d", 1024, 4, SIM_REPL_LRU, SIM_INCL_NINE, 1, L1);
    tm_level (m, "L2", 8192, 8, SIM_REPL_LRU, SIM_INCL_INCLUSIVE, 0, L2);
    same_as_directory (m, 60000, 1500);
  }
  {
    /* 2 x 40 cores: 82 domains in two mask words, socket 1's core bits
     * straddling them. */
    g_autoptr (SimMachine) m = tm_new (2, 40, 1, SIM_COH_MESIF);
    tm_level (m, "L1d", 1024, 8, SIM_REPL_LRU, SIM_INCL_NINE, 1, L1);
    tm_level (m, "L2", 4096, 8, SIM_REPL_LRU, SIM_INCL_NINE, 1, L2);
    tm_level (m, "L3", 65536, 16, SIM_REPL_LRU, SIM_INCL_INCLUSIVE, 0, L3);
    same_as_directory (m, 60000, 6000);
  }
}

int
main (void)
{
  g_setenv ("SLABSIM_COREVALID", "1", TRUE);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_share_then_lose_by_conflict),
    cmocka_unit_test (test_l3_eviction_purges_holders),
    cmocka_unit_test (test_cross_socket_state),
    cmocka_unit_test (test_one_socket_lines_skip_directory),
    cmocka_unit_test (test_gate),
    cmocka_unit_test (test_same_as_directory),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
