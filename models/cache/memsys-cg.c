/* memsys-cg.c - the Cachegrind-compatible mode of the cache model
 * (`slabsim cachesim --compat cachegrind`; the shared reference caches.md
 * §2.4, §2.5).
 *
 * What it models is Cachegrind's own cache simulation, so that its miss
 * counts match Cachegrind's exactly: one CPU, a D1 and an LL, both LRU in
 * move-to-front order (a set's tags are kept most recent first, and a hit
 * or a fill moves tags down), write-allocate, no coherence, no write-backs,
 * no latencies.  The LL is looked up only on a D1 miss; a reference that
 * straddles lines is one reference with at most one miss per level; a
 * modify counts as a read.  Left out, as Cachegrind leaves them out: the
 * instruction cache (din "i" records are counted by the CLI, not
 * simulated) and every effect of other CPUs.
 *
 * The state is the full mode's (memsys-internal.h: a tag array per level;
 * the state bytes are unused), built by sim_memsys_new_cachegrind here;
 * memsys.c's entry points hand Cachegrind-mode calls to memsys_cg_access
 * and memsys_cg_access_refs (sim_memsys_prefetch inlines cg_prefetch from
 * memsys-internal.h).  The lookups and the batch loop are in
 * memsys-cg-loop.h.  The loop has a copy with Cachegrind's default ways (8
 * and 16) as constants, and prefetches the host lines of the sets
 * REFS_AHEAD references ahead (cg_prefetch_n).  A 16-way lookup has forms
 * with the same result, a loop and branch-free SSE2 and AVX2 ones, and
 * each batch takes the one that suits where the previous batch's LL hits
 * were (cg_ref_16); the AVX2 form runs in a copy of the loop built with
 * -mavx2 (memsys-cg-avx2.c), chosen when the host has AVX2, where the
 * 8-way D1 is looked up with AVX2 too (cg_ref_8_avx2).  Every form leaves
 * the same sets (test-replacement's test_cachegrind_simd_forms_agree).
 */
#include "models/cache/memsys-cg-loop.h"

/* sim_memsys_access_class's Cachegrind side. */
guint32
memsys_cg_access (SimMemSys *ms, guint64 addr, guint32 size, SimAccKind kind,
                  SimMemClass cls)
{
  guint deep = 0;
  cg_apply (ms, addr, size, kind, cls, 0, 0, CG_LOOP, &deep);
  return 0;
}


/* sim_memsys_access_refs's Cachegrind side: Cachegrind's default geometry
 * (and --D1/--LL of the same ways) gets its own copies of the loop with the
 * ways as constants, the AVX2 one when the host has it.  After each batch,
 * the LL code of the next one (cg_ref_16): branch-free when more than half
 * of this batch's LL references got past way 1. */
void
memsys_cg_access_refs (SimMemSys *ms, const SimMemRef *refs, gsize n)
{
  const guint64 *acc = ms->stats[0].level[1].accesses;
  guint64 ll0 = acc[SIM_ACC_READ] + acc[SIM_ACC_WRITE];
  guint simd = ms->cg_deep ? ms->cg_simd : CG_LOOP;
  guint deep;
  if (ms->lv[0].ways == 8 && ms->lv[1].ways == 16)
    switch (simd)
      {
#ifdef SIM_CG_AVX2
      case CG_AVX2: deep = memsys_cg_refs_avx2 (ms, refs, n, TRUE); break;
#endif
      case CG_SSE2: deep = cg_refs (ms, refs, n, 8, 16, CG_SSE2); break;
      default:
#ifdef SIM_CG_AVX2
        if (ms->cg_simd == CG_AVX2)
          deep = memsys_cg_refs_avx2 (ms, refs, n, FALSE);
        else
#endif
          deep = cg_refs (ms, refs, n, 8, 16, CG_LOOP);
        break;
      }
  else
    deep = cg_refs (ms, refs, n, 0, 0, MIN (simd, (guint) CG_SSE2));
  ms->cg_deep = 2 * (guint64) deep > acc[SIM_ACC_READ] + acc[SIM_ACC_WRITE] - ll0;
}

/* The fastest form of the 16-way lookup this host runs (CG_*). */
static guint
cg_host_simd (void)
{
#ifdef SIM_CG_AVX2
  if (__builtin_cpu_supports ("avx2"))
    return CG_AVX2;
#endif
#ifdef __SSE2__
  return CG_SSE2;
#else
  return CG_LOOP;
#endif
}

guint
memsys_cg_set_simd (SimMemSys *ms, guint simd)
{
  g_return_val_if_fail (ms->mode == SIM_MEMSYS_CACHEGRIND, CG_LOOP);
  ms->cg_simd = (guint8) MIN (simd, cg_host_simd ());
  return ms->cg_simd;
}

/* ---- Construction -------------------------------------------------------- */

SimMemSys *
sim_memsys_new_cachegrind (guint64 d1_size, guint d1_ways, guint d1_line,
                           guint64 ll_size, guint ll_ways, guint ll_line,
                           GError **error)
{
  SimCacheLevelSpec spec[2] = {
    { (char *) "D1", d1_size, d1_ways, d1_line, SIM_REPL_LRU, SIM_INCL_NINE, 1, 0 },
    { (char *) "LL", ll_size, ll_ways, ll_line, SIM_REPL_LRU, SIM_INCL_NINE, 1, 0 },
  };
  g_autoptr (SimMemSys) ms = memsys_alloc (SIM_MEMSYS_CACHEGRIND, 1);
  ms->n_levels = 2;
  for (guint l = 0; l < 2; l++)
    if (!memsys_level_init (&ms->lv[l], &spec[l], 1, error))
      return NULL;
  ms->cg_simd = (guint8) cg_host_simd ();
  return g_steal_pointer (&ms);
}

