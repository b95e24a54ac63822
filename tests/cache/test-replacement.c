/* test-replacement.c - replacement policies, write-backs and inclusion on
 * one core, with expectations derived by hand in the comments. */
#include "tests/testutil.h"
#include "tests/cache/machines.h"
#include "models/cache/memsys.h"
#include "models/cache/memsys-internal.h"   /* memsys_cg_set_simd, the tag arrays */
#include "sim/core/errors.h"

#include <string.h>

#define LINE(i) ((guint64) (i) * 64)

/* One socket, one core, levels added by the caller. */
static SimMachine *
one_core (void)
{
  return tm_new (1, 1, 1, SIM_COH_MESI);
}

static void
rd (SimMemSys *ms, guint64 addr)
{
  sim_memsys_access (ms, 0, addr, 8, SIM_ACC_READ);
}

static void
wr (SimMemSys *ms, guint64 addr)
{
  sim_memsys_access (ms, 0, addr, 8, SIM_ACC_WRITE);
}

/* Assert that level 0 holds exactly the lines whose bit is set in @mask
 * among lines 0..n-1. */
static void
assert_holds (SimMemSys *ms, guint l, guint n, guint32 mask)
{
  for (guint i = 0; i < n; i++)
    {
      gboolean want = (mask >> i) & 1;
      if (sim_memsys_holds (ms, 0, l, LINE (i)) != want)
        {
          print_error ("line %u: expected %s in level %u\n", i, want ? "present" : "absent", l);
          fail ();
        }
    }
}

static void
test_lru_order (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 256, 4, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);   /* one set */
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  for (guint i = 0; i < 4; i++)
    rd (ms, LINE (i));            /* A B C D */
  rd (ms, LINE (0));              /* A is MRU: B is now LRU */
  rd (ms, LINE (4));              /* E evicts B */
  assert_holds (ms, 0, 6, 0x1d);  /* A C D E */
  rd (ms, LINE (2));              /* order now C E A D */
  rd (ms, LINE (5));              /* F evicts D */
  assert_holds (ms, 0, 6, 0x35);  /* A C E F */
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->level[0].misses[SIM_ACC_READ], 6);
}

/* The LRU levels keep a recency rank per way (lines never move between
 * ways): a reference move-to-front model of one core's L1 (one set) over an
 * inclusive L2 must hold exactly the same lines after every access of a
 * random read/write sequence, including the L1 lines the L2's evictions
 * back-invalidate (a rank removal), for 8 and 16 ways (the SSE2 rank
 * updates) and 12 (the byte loop).  Reference order of one access, as the
 * model does it: an L1 hit reorders L1 only; a miss reorders or fills the
 * L2 set first (its victim leaves L1 too), then fills L1. */
#define REF_MAX 64

typedef struct {
  guint64 line[REF_MAX];   /* most recent first */
  guint   n, cap;
} RefSet;

static gboolean
ref_find_remove (RefSet *s, guint64 x)
{
  for (guint i = 0; i < s->n; i++)
    if (s->line[i] == x)
      {
        memmove (s->line + i, s->line + i + 1, (s->n - i - 1) * sizeof (guint64));
        s->n--;
        return TRUE;
      }
  return FALSE;
}

/* Put @x first; returns the line pushed out, or G_MAXUINT64. */
static guint64
ref_push (RefSet *s, guint64 x)
{
  guint64 out = G_MAXUINT64;
  if (s->n == s->cap)
    out = s->line[--s->n];
  memmove (s->line + 1, s->line, s->n * sizeof (guint64));
  s->line[0] = x;
  s->n++;
  return out;
}

static void
run_lru_reference (guint l1_ways, guint l2_sets, guint l2_ways, guint64 seed)
{
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", (guint64) l1_ways * 64, l1_ways, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  tm_level (m, "L2", (guint64) l2_sets * l2_ways * 64, l2_ways, SIM_REPL_LRU,
            SIM_INCL_INCLUSIVE, 1, 10);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  RefSet l1 = { .cap = l1_ways }, l2[8];
  assert_true (l2_sets <= 8 && l1_ways <= REF_MAX && l2_ways <= REF_MAX);
  for (guint i = 0; i < l2_sets; i++)
    l2[i] = (RefSet) { .cap = l2_ways };
  guint universe = 3 * l2_sets * l2_ways;
  guint64 x = seed, back_inv = 0;
  for (guint i = 0; i < 20000; i++)
    {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      /* Half the accesses to a few hot lines, so L1 hits at every rank. */
      guint64 line = (x >> 40) % 2 ? (x >> 20) % (l1_ways / 2) : (x >> 20) % universe;
      if ((x >> 50) % 3)
        rd (ms, LINE (line));
      else
        wr (ms, LINE (line));
      if (ref_find_remove (&l1, line))
        ref_push (&l1, line);
      else
        {
          RefSet *s2 = &l2[line % l2_sets];
          if (!ref_find_remove (s2, line))
            {
              guint64 out = ref_push (s2, line);
              if (out != G_MAXUINT64 && ref_find_remove (&l1, out))
                back_inv++;
            }
          else
            ref_push (s2, line);
          ref_push (&l1, line);
        }
      for (guint64 y = 0; y < universe; y++)
        {
          gboolean in1 = FALSE, in2 = FALSE;
          for (guint k = 0; k < l1.n; k++)
            in1 |= l1.line[k] == y;
          for (guint k = 0; k < l2[y % l2_sets].n; k++)
            in2 |= l2[y % l2_sets].line[k] == y;
          if (sim_memsys_holds (ms, 0, 0, LINE (y)) != in1
              || sim_memsys_holds (ms, 0, 1, LINE (y)) != in2)
            {
              print_error ("%u ways: after %u accesses, line %" G_GUINT64_FORMAT
                           ": model L1 %d L2 %d, reference %d %d\n", l1_ways, i + 1, y,
                           sim_memsys_holds (ms, 0, 0, LINE (y)),
                           sim_memsys_holds (ms, 0, 1, LINE (y)), in1, in2);
              fail ();
            }
        }
    }
  assert_true (back_inv >= 50);   /* the removals were exercised */
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->back_invalidations, back_inv);
  tm_assert_memsys_ok (ms);
}

static void
test_lru_ranks_match_reference (void **state)
{
  (void) state;
  run_lru_reference (8, 4, 8, 1);
  run_lru_reference (16, 2, 16, 2);
  run_lru_reference (12, 4, 4, 3);
  run_lru_reference (16, 8, 4, 4);
}

/* Tree-PLRU, bit set = victim on the right, a touch points the path away.
 * 4 ways filled 0..3 leave every bit 0; victims then come in the order
 * way 0, 2, 1, 3 (A, C, B, D). */
static void
test_plru_4 (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 256, 4, SIM_REPL_PLRU, SIM_INCL_NINE, 1, 4);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  for (guint i = 0; i < 4; i++)
    rd (ms, LINE (i));
  assert_holds (ms, 0, 8, 0x0f);
  rd (ms, LINE (4));
  assert_holds (ms, 0, 8, 0x1e);  /* A out */
  rd (ms, LINE (5));
  assert_holds (ms, 0, 8, 0x3a);  /* C out */
  rd (ms, LINE (6));
  assert_holds (ms, 0, 8, 0x78);  /* B out */
  rd (ms, LINE (7));
  assert_holds (ms, 0, 8, 0xf0);  /* D out */
}

/* 8 ways: after filling 0..7 all bits are 0; the victims are then ways
 * 0, 4, 2, 6, 1 (bit-reversed order). */
static void
test_plru_8 (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 512, 8, SIM_REPL_PLRU, SIM_INCL_NINE, 1, 4);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  for (guint i = 0; i < 8; i++)
    rd (ms, LINE (i));
  static const guint victims[] = { 0, 4, 2, 6, 1 };
  guint32 mask = 0xff;
  for (guint k = 0; k < G_N_ELEMENTS (victims); k++)
    {
      rd (ms, LINE (8 + k));
      mask = (mask & ~(1u << victims[k])) | (1u << (8 + k));
      assert_holds (ms, 0, 16, mask);
    }
}

/* The PLRU victim of every tree, walked here by the rule above (bit set =
 * the victim is in the right subtree; node i's children are 2i+1, 2i+2),
 * against the model's: its table for trees of up to 8 ways
 * (plru_victim_of, memsys-internal.h) and its walk for larger ones. */
static void
test_plru_victim_every_tree (void **state)
{
  (void) state;
  static const guint ways[] = { 2, 4, 8, 16 };
  for (guint k = 0; k < G_N_ELEMENTS (ways); k++)
    {
      g_autoptr (SimMachine) m = one_core ();
      tm_level (m, "L1d", 64 * ways[k] * 4, ways[k], SIM_REPL_PLRU, SIM_INCL_NINE, 1, 4);
      g_autoptr (SimMemSys) ms = tm_memsys_new (m);
      Level *L = &ms->lv[0];
      assert_int_equal (L->plru_vic != NULL, ways[k] <= PLRU_VIC_MAX_WAYS);
      guint n_trees = 1u << (ways[k] - 1);
      for (guint t = 0; t < n_trees; t += ways[k] <= 8 ? 1 : 97)
        {
          guint node = 0, lo = 0, span = ways[k];
          while (span > 1)
            {
              span /= 2;
              if (t & (1u << node))
                {
                  lo += span;
                  node = 2 * node + 2;
                }
              else
                node = 2 * node + 1;
            }
          /* The valid bits above the tree do not change the victim. */
          L->plru[0] = (guint64) t | (G_GUINT64_CONSTANT (0xffff) << PLRU_VALID);
          assert_int_equal (plru_victim (L, 0), lo);
          if (L->plru_vic)
            assert_int_equal (plru_victim_of (L, L->plru[0], ways[k]), lo);
        }
    }
}

static guint32
random_run (guint64 seed)
{
  g_autoptr (SimMachine) m = one_core ();
  m->seed = seed;
  tm_level (m, "L1d", 256, 4, SIM_REPL_RANDOM, SIM_INCL_NINE, 1, 4);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  for (guint i = 0; i < 200; i++)
    rd (ms, LINE ((i * 7) % 31));
  guint32 mask = 0;
  for (guint i = 0; i < 31; i++)
    if (sim_memsys_holds (ms, 0, 0, LINE (i)))
      mask |= 1u << i;
  return mask;
}

static void
test_random_reproducible (void **state)
{
  (void) state;
  guint32 a = random_run (42), b = random_run (42);
  assert_int_equal (a, b);
  assert_int_equal (__builtin_popcount (a), 4);
  /* The seed matters: over a few seeds not every run leaves the same set. */
  gboolean differs = FALSE;
  for (guint64 s = 1; s < 8 && !differs; s++)
    differs = random_run (s) != a;
  assert_true (differs);
}

/* One set of 2 ways: each dirty victim is one write-back, clean ones none. */
static void
test_writebacks_one_level (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 128, 2, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  wr (ms, LINE (0));
  wr (ms, LINE (1));
  rd (ms, LINE (2));            /* evicts dirty 0 */
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->level[0].writebacks, 1);
  rd (ms, LINE (3));            /* evicts dirty 1 */
  rd (ms, LINE (4));            /* evicts clean 2 */
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->level[0].writebacks, 2);
}

/* L1 one set of 2 ways, L2 one set of 4: A written, evicted from L1 (one
 * write-back, L2's copy turns dirty), then L2 evicts A as its LRU line
 * (the write-back did not refresh it): one write-back at L2. */
static void
test_writebacks_two_levels (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 128, 2, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  tm_level (m, "L2", 256, 4, SIM_REPL_LRU, SIM_INCL_NINE, 1, 10);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  wr (ms, LINE (0));
  rd (ms, LINE (1));
  rd (ms, LINE (2));
  const SimCpuMemStats *s = sim_memsys_cpu_stats (ms, 0);
  assert_int_equal (s->level[0].writebacks, 1);
  assert_int_equal (s->level[1].writebacks, 0);
  rd (ms, LINE (3));
  rd (ms, LINE (4));
  assert_false (sim_memsys_holds (ms, 0, 1, LINE (0)));
  assert_int_equal (s->level[1].writebacks, 1);
  assert_int_equal (s->level[1].accesses[SIM_ACC_READ] + s->level[1].accesses[SIM_ACC_WRITE], 5);
}

/* L1 one set of 4 ways over an L2 of one set of 2: C pushes A out of L2.
 * NINE leaves L1's copy; inclusive back-invalidates it. */
static void
run_inclusion (SimInclusion incl, gboolean l1_keeps, guint64 back_inv)
{
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 256, 4, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  tm_level (m, "L2", 128, 2, SIM_REPL_LRU, incl, 1, 10);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  rd (ms, LINE (0));
  rd (ms, LINE (1));
  rd (ms, LINE (2));
  assert_false (sim_memsys_holds (ms, 0, 1, LINE (0)));
  assert_int_equal (sim_memsys_holds (ms, 0, 0, LINE (0)), l1_keeps);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->back_invalidations, back_inv);
  /* Reading A again: an L1 hit (4 cycles) or a miss down to DRAM. */
  assert_int_equal (sim_memsys_access (ms, 0, LINE (0), 8, SIM_ACC_READ),
                    l1_keeps ? 4 : TM_DRAM_LOCAL);
}

static void
test_nine (void **state)
{
  (void) state;
  run_inclusion (SIM_INCL_NINE, TRUE, 0);
}

static void
test_inclusive_back_invalidates (void **state)
{
  (void) state;
  run_inclusion (SIM_INCL_INCLUSIVE, FALSE, 1);
}

/* L1 1 KiB 2-way (8 sets) over an exclusive direct-mapped 1 KiB L2 (16
 * sets).  Lines 0, 512, 1024 share L1 set 0; 0 and 1024 share L2 set 0,
 * 512 sits in L2 set 8. */
static void
test_exclusive (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 1024, 2, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  tm_level (m, "L2", 1024, 1, SIM_REPL_LRU, SIM_INCL_EXCLUSIVE, 1, 10);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  assert_int_equal (sim_memsys_access (ms, 0, 0, 8, SIM_ACC_READ), TM_DRAM_LOCAL);
  assert_int_equal (sim_memsys_access (ms, 0, 512, 8, SIM_ACC_READ), TM_DRAM_LOCAL);
  /* Demand fills skip the victim level. */
  assert_false (sim_memsys_holds (ms, 0, 1, 0));
  assert_false (sim_memsys_holds (ms, 0, 1, 512));
  assert_int_equal (sim_memsys_access (ms, 0, 1024, 8, SIM_ACC_READ), TM_DRAM_LOCAL);
  /* L1's victim (0) went to L2. */
  assert_true (sim_memsys_holds (ms, 0, 1, 0));
  assert_false (sim_memsys_holds (ms, 0, 0, 0));
  /* An L2 hit moves 0 up and out; L1's new victim 512 goes down. */
  assert_int_equal (sim_memsys_access (ms, 0, 0, 8, SIM_ACC_READ), 10);
  assert_false (sim_memsys_holds (ms, 0, 1, 0));
  assert_true (sim_memsys_holds (ms, 0, 0, 0));
  assert_true (sim_memsys_holds (ms, 0, 1, 512));
  assert_int_equal (sim_memsys_access (ms, 0, 1024, 8, SIM_ACC_READ), 4);
  assert_int_equal (sim_memsys_access (ms, 0, 512, 8, SIM_ACC_READ), 10);
  assert_true (sim_memsys_holds (ms, 0, 1, 0));     /* L1 victim again */
  const SimCpuMemStats *s = sim_memsys_cpu_stats (ms, 0);
  assert_int_equal (s->level[1].accesses[SIM_ACC_READ], 5);
  assert_int_equal (s->level[1].misses[SIM_ACC_READ], 3);
}

/* Straddling accesses touch both lines in full mode. */
static void
test_straddle_full (void **state)
{
  (void) state;
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 1024, 2, SIM_REPL_LRU, SIM_INCL_NINE, 1, 4);
  g_autoptr (SimMemSys) ms = tm_memsys_new (m);
  sim_memsys_access (ms, 0, 60, 8, SIM_ACC_READ);
  assert_true (sim_memsys_holds (ms, 0, 0, 0));
  assert_true (sim_memsys_holds (ms, 0, 0, 64));
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->level[0].accesses[SIM_ACC_READ], 2);
  assert_int_equal (sim_memsys_cpu_stats (ms, 0)->cycles, TM_DRAM_LOCAL);
}

/* Cachegrind mode: a straddling access is one reference and one miss,
 * and the LL sees both lines. */
static void
test_cachegrind_straddle (void **state)
{
  (void) state;
  GError *error = NULL;
  g_autoptr (SimMemSys) ms = sim_memsys_new_cachegrind (1024, 2, 64, 8192, 4, 64, &error);
  assert_non_null (ms);
  sim_memsys_access (ms, 0, 60, 8, SIM_ACC_READ);
  const SimCpuMemStats *s = sim_memsys_cpu_stats (ms, 0);
  assert_int_equal (s->level[0].accesses[SIM_ACC_READ], 1);
  assert_int_equal (s->level[0].misses[SIM_ACC_READ], 1);
  assert_int_equal (s->level[1].misses[SIM_ACC_READ], 1);
  assert_true (sim_memsys_holds (ms, 0, 1, 64));
  /* Line 0 hits D1, line 1 does not once evicted: the whole access goes to
   * the LL, which holds both, so it is one D1 miss and no LL miss. */
  sim_memsys_access (ms, 0, 64 + 512, 8, SIM_ACC_READ);
  sim_memsys_access (ms, 0, 64 + 1024, 8, SIM_ACC_READ);
  sim_memsys_access (ms, 0, 60, 8, SIM_ACC_RMW);
  assert_int_equal (s->level[0].accesses[SIM_ACC_READ], 4);
  assert_int_equal (s->level[0].misses[SIM_ACC_READ], 4);
  assert_int_equal (s->level[1].misses[SIM_ACC_READ], 3);
}

/* A Cachegrind-mode level for the reference: move-to-front sets. */
typedef struct {
  RefSet set[8];
  guint  sets;
} RefLevel;

/* Look @line up in @L, move it to the front; TRUE on a miss.  *@deep
 * counts the lookups that do not find it in the first two ways. */
static gboolean
ref_level_touch (RefLevel *L, guint64 line, guint *deep)
{
  RefSet *s = &L->set[line % L->sets];
  guint pos = s->n;
  for (guint k = 0; k < s->n; k++)
    if (s->line[k] == line)
      pos = k;
  *deep += pos >= 2;
  gboolean miss = !ref_find_remove (s, line);
  ref_push (s, line);
  return miss;
}

/* Cachegrind mode's batches (sim_memsys_access_refs: the loop with the
 * ways as constants for 8 and 16, the other with them at run time, and
 * the two forms of the 16-way LL lookup it picks per batch) against a
 * move-to-front reference: every counter after each batch, and which
 * lines each level holds.  The trace alternates phases whose LL hits are
 * spread over the whole set (each line as likely as any other) with
 * phases of two hot lines per LL set, twice what the D1 holds (LL hits in
 * the first ways), in
 * batches of 1 to 300 references, some straddling two lines. */
static void
run_cachegrind_batches (guint d1_ways, guint d1_sets, guint ll_sets, guint64 seed)
{
  const guint ll_ways = 16;
  GError *error = NULL;
  g_autoptr (SimMemSys) ms = sim_memsys_new_cachegrind ((guint64) d1_ways * d1_sets * 64,
                                                         d1_ways, 64,
                                                         (guint64) ll_ways * ll_sets * 64,
                                                         ll_ways, 64, &error);
  assert_non_null (ms);
  assert_true (d1_sets <= 8 && ll_sets <= 8 && d1_ways <= REF_MAX);
  RefLevel d1 = { .sets = d1_sets }, ll = { .sets = ll_sets };
  for (guint i = 0; i < 8; i++)
    {
      d1.set[i] = (RefSet) { .cap = d1_ways };
      ll.set[i] = (RefSet) { .cap = ll_ways };
    }
  guint64 acc[2][SIM_ACC_N] = { { 0 } }, miss[2][SIM_ACC_N] = { { 0 } };
  guint unused = 0, sse_batches = 0, loop_batches = 0;
  guint universe = ll_sets * ll_ways + ll_sets * ll_ways / 4;
  guint64 x = seed;
  SimMemRef refs[300];
  for (guint round = 0; round < 400; round++)
    {
      gboolean spread = round % 4 < 2;
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      guint n = round % 7 == 0 ? 1 : 1 + (guint) ((x >> 33) % 300);
      guint deep = 0;
      guint64 ll_refs = acc[1][SIM_ACC_READ] + acc[1][SIM_ACC_WRITE];
      for (guint i = 0; i < n; i++)
        {
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
          guint64 line = spread ? (x >> 20) % universe : (x >> 20) % (2 * ll_sets);
          guint64 addr = LINE (line) + ((x >> 50) % 16 == 0 ? 60 : 8);   /* 60: straddles */
          SimAccKind kind = (SimAccKind) ((x >> 44) % 3);
          refs[i] = (SimMemRef) { addr, 8, 0, (guint8) kind, 0 };
          SimAccKind k = kind == SIM_ACC_RMW ? SIM_ACC_READ : kind;
          guint64 b1 = addr / 64, b2 = (addr + 7) / 64;
          gboolean m1 = FALSE, m2 = FALSE;
          for (guint64 b = b1; b <= b2; b++)
            m1 |= ref_level_touch (&d1, b, &unused);
          acc[0][k]++;
          if (!m1)
            continue;
          miss[0][k]++;
          acc[1][k]++;
          for (guint64 b = b1; b <= b2; b++)
            m2 |= ref_level_touch (&ll, b, &deep);
          miss[1][k] += m2;
        }
      sim_memsys_access_refs (ms, refs, n);
      /* The rule by which the model picks the next batch's LL lookup. */
      ll_refs = acc[1][SIM_ACC_READ] + acc[1][SIM_ACC_WRITE] - ll_refs;
      *(2 * (guint64) deep > ll_refs ? &sse_batches : &loop_batches) += 1;
      const SimCpuMemStats *st = sim_memsys_cpu_stats (ms, 0);
      for (guint l = 0; l < 2; l++)
        for (guint k = 0; k < SIM_ACC_N; k++)
          if (st->level[l].accesses[k] != acc[l][k] || st->level[l].misses[k] != miss[l][k])
            {
              print_error ("D1 %u-way: after batch %u, level %u kind %u: model %"
                           G_GUINT64_FORMAT " accesses %" G_GUINT64_FORMAT " misses, "
                           "reference %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
                           d1_ways, round, l, k, st->level[l].accesses[k],
                           st->level[l].misses[k], acc[l][k], miss[l][k]);
              fail ();
            }
      for (guint64 y = 0; y <= universe; y++)
        {
          gboolean in[2] = { FALSE, FALSE };
          RefLevel *lv[2] = { &d1, &ll };
          for (guint l = 0; l < 2; l++)
            {
              RefSet *rs = &lv[l]->set[y % lv[l]->sets];
              for (guint k = 0; k < rs->n; k++)
                in[l] |= rs->line[k] == y;
              assert_int_equal (sim_memsys_holds (ms, 0, l, LINE (y)), in[l]);
            }
        }
    }
  /* Both forms of the LL lookup were chosen, many times each. */
  assert_true (sse_batches >= 100 && loop_batches >= 100);
}

static void
test_cachegrind_batches_match_reference (void **state)
{
  (void) state;
  run_cachegrind_batches (8, 1, 8, 1);   /* the default ways: constant-ways loop */
  run_cachegrind_batches (4, 2, 8, 2);   /* the loop with the ways at run time */
}

/* The forms of Cachegrind mode's 16-way LL lookup past way 1 (the search
 * loop, SSE2 and AVX2, the last in its own copy of the batch loop; the
 * model takes the host's best) leave the same state: the same batches
 * through one model per form this host runs, every counter and every way
 * of both levels' tag arrays (the move-to-front order, not only what is
 * held) compared after each batch.  The trace alternates phases whose LL
 * hits land anywhere in the set (the branch-free forms' case) with phases
 * of a few hot lines per set (the loop's), some references straddling. */
static void
test_cachegrind_simd_forms_agree (void **state)
{
  (void) state;
  enum { FORMS = 3 };
  GError *error = NULL;
  SimMemSys *ms[FORMS];
  guint form[FORMS];
  for (guint f = 0; f < FORMS; f++)
    {
      /* The default ways (8 and 16: the loops with constant ways), few sets. */
      ms[f] = sim_memsys_new_cachegrind (8 * 4 * 64, 8, 64, 16 * 8 * 64, 16, 64, &error);
      assert_non_null (ms[f]);
      form[f] = memsys_cg_set_simd (ms[f], f);
      assert_true (form[f] <= f);
    }
  if (form[FORMS - 1] != FORMS - 1)
    print_message ("note: this host runs forms 0 to %u of %u only\n", form[FORMS - 1], FORMS - 1);
  const guint universe = 8 * 16 + 40;
  guint64 x = 7;
  guint deep_batches = 0;
  SimMemRef refs[300];
  for (guint round = 0; round < 600; round++)
    {
      gboolean spread = round % 6 < 3;
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      guint n = round % 5 == 0 ? 1 : 1 + (guint) ((x >> 33) % 300);
      for (guint i = 0; i < n; i++)
        {
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
          guint64 line = spread ? (x >> 20) % universe : (x >> 20) % 24;
          guint64 addr = LINE (line) + ((x >> 50) % 16 == 0 ? 60 : 8);   /* 60: straddles */
          refs[i] = (SimMemRef) { addr, 8, 0, (guint8) ((x >> 44) % 3), 0 };
        }
      deep_batches += ms[0]->cg_deep;
      for (guint f = 0; f < FORMS; f++)
        assert_int_equal (ms[f]->cg_deep, ms[0]->cg_deep);
      for (guint f = 0; f < FORMS; f++)
        sim_memsys_access_refs (ms[f], refs, n);
      const SimCpuMemStats *s0 = sim_memsys_cpu_stats (ms[0], 0);
      for (guint f = 1; f < FORMS; f++)
        {
          const SimCpuMemStats *s = sim_memsys_cpu_stats (ms[f], 0);
          assert_memory_equal (s->level, s0->level, sizeof s->level[0] * 2);
          for (guint l = 0; l < 2; l++)
            {
              const Level *L = &ms[f]->lv[l], *L0 = &ms[0]->lv[l];
              assert_memory_equal (L->tag, L0->tag, (gsize) L->sets * L->ways * sizeof (guint64));
            }
        }
    }
  /* The branch-free forms ran in many batches, and so did the loop. */
  assert_true (deep_batches >= 100 && deep_batches <= 500);
  for (guint f = 0; f < FORMS; f++)
    sim_memsys_free (ms[f]);
}

static void
test_bad_geometry (void **state)
{
  (void) state;
  GError *error = NULL;
  assert_null (sim_memsys_new_cachegrind (1000, 2, 64, 8192, 4, 64, &error));
  assert_non_null (strstr (error->message, "not a whole number of sets"));
  assert_non_null (strstr (error->message, "D1"));
  g_clear_error (&error);
  /* 3 MiB 16-way is 3072 sets: the message names the rule. */
  assert_null (sim_memsys_new_cachegrind (32768, 8, 64, 3 << 20, 16, 64, &error));
  assert_non_null (strstr (error->message, "cache LL: number of sets (3072 = size / (16 ways "
                                           "x 64-byte lines)) must be a power of two"));
  g_clear_error (&error);
  assert_null (sim_memsys_new_cachegrind (1024, 0, 64, 8192, 4, 64, &error));
  g_clear_error (&error);
  /* 48 KiB 12-way is 64 sets: a geometry, though the size is no power of two. */
  g_autoptr (SimMemSys) ok = sim_memsys_new_cachegrind (49152, 12, 64, 6291456, 48, 64, &error);
  assert_non_null (ok);
  g_autoptr (SimMachine) m = one_core ();
  tm_level (m, "L1d", 768, 3, SIM_REPL_PLRU, SIM_INCL_NINE, 1, 4);
  assert_null (sim_memsys_new (m, &error));
  assert_true (g_error_matches (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM));
  g_clear_error (&error);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_lru_order),
    cmocka_unit_test (test_plru_4),
    cmocka_unit_test (test_plru_8),
    cmocka_unit_test (test_plru_victim_every_tree),
    cmocka_unit_test (test_random_reproducible),
    cmocka_unit_test (test_writebacks_one_level),
    cmocka_unit_test (test_writebacks_two_levels),
    cmocka_unit_test (test_nine),
    cmocka_unit_test (test_inclusive_back_invalidates),
    cmocka_unit_test (test_exclusive),
    cmocka_unit_test (test_lru_ranks_match_reference),
    cmocka_unit_test (test_straddle_full),
    cmocka_unit_test (test_cachegrind_straddle),
    cmocka_unit_test (test_cachegrind_batches_match_reference),
    cmocka_unit_test (test_cachegrind_simd_forms_agree),
    cmocka_unit_test (test_bad_geometry),
  };
  return cmocka_run_group_tests_name ("cache-replacement", tests, NULL, NULL);
}
