/* memsys-cg-loop.h - Cachegrind mode's lookups and batch loop, shared by
 * memsys-cg.c (every host) and memsys-cg-avx2.c (the same loop compiled
 * with -mavx2, called only when the host has AVX2).  What is modelled is
 * memsys-cg.c's essay; everything here is always_inline, so that each
 * file's loop gets the ways as constants and its own instruction set.
 * Nothing here is part of the interface. */
#pragma once

#include "models/cache/memsys-internal.h"
#ifdef __AVX2__
#include <immintrin.h>
#endif

/* The 16-way LL lookup's forms past way 1 (cg_ref_16): the search loop,
 * branch-free with SSE2, branch-free with AVX2.  All leave the same set. */
enum { CG_LOOP, CG_SSE2, CG_AVX2 };

/* Look up one block in a set of @n ways, install it on a miss
 * (Cachegrind's move-to-front LRU); returns TRUE on a miss.  Inlined with a
 * constant @n for the common associativities, so that the search unrolls
 * and the shift of a miss, or of a hit below the front, is a fixed-size
 * move (a hit's through a jump on its way, one case per length) instead of
 * a memmove call. */
/* t[1 .. k] = t[0 .. k-1] for a constant @k of 1 to 15.  GCC calls memmove
 * for such an overlapping move even when its size is a constant; here it is
 * done in pairs of ways (16-byte loads, all before the first store, then
 * the stores one way up), which the compiler keeps in vector registers. */
static ALWAYS_INLINE void
cg_shift_k (guint64 *t, guint k)
{
  if (k == 1)
    {
      t[1] = t[0];
      return;
    }
  guint64 pair[8][2];
  guint np = (k + 1) / 2;               /* the last pair is t[k-2], t[k-1] */
#pragma GCC unroll 8
  for (guint j = 0; j < np; j++)
    memcpy (pair[j], t + MIN (2 * j, k - 2), sizeof pair[j]);
#pragma GCC unroll 8
  for (guint j = 0; j < np; j++)
    memcpy (t + 1 + MIN (2 * j, k - 2), pair[j], sizeof pair[j]);
}

/* The miss's shift: every way but the last moves one up.  Other (or
 * run-time) way counts than 4 to 16 use memmove. */
static ALWAYS_INLINE void
cg_shift_all (guint64 *t, guint n)
{
  guint k = n - 1;                      /* ways that move */
  if (!__builtin_constant_p (n) || n < 4 || n > 16)
    memmove (t + 1, t, k * sizeof (guint64));
  else
    cg_shift_k (t, k);
}

/* t[1 .. w] = t[0 .. w-1] for a hit in way @w of @n: one case per length,
 * each a fixed-size move, for constant @n up to 16. */
static ALWAYS_INLINE void
cg_shift_hit (guint64 *t, guint w, guint n)
{
  if (!__builtin_constant_p (n) || n > 16)
    {
      memmove (t + 1, t, w * sizeof (guint64));
      return;
    }
  switch (w)
    {
#define SHIFT(k) case k: if (k < n) cg_shift_k (t, k); break;
    SHIFT (1) SHIFT (2) SHIFT (3) SHIFT (4) SHIFT (5) SHIFT (6) SHIFT (7) SHIFT (8)
    SHIFT (9) SHIFT (10) SHIFT (11) SHIFT (12) SHIFT (13) SHIFT (14) SHIFT (15)
#undef SHIFT
    default: break;
    }
}

/* Look up @block in the @n ways of set @t from way @first on (the ways
 * before it are known not to hold it) and move it to the front. */
static ALWAYS_INLINE gboolean
cg_ref_from (guint64 *t, guint64 block, guint n, guint first)
{
  guint w = n;
#pragma GCC unroll 16
  for (guint i = first; i < n; i++)
    if (t[i] == block)
      {
        w = i;
        break;
      }
  if (w == n)
    {
      cg_shift_all (t, n);
      t[0] = block;
      return TRUE;
    }
  cg_shift_hit (t, w, n);
  t[0] = block;
  return FALSE;
}

static ALWAYS_INLINE gboolean
cg_ref_n (guint64 *t, guint64 block, guint n)
{
  if (t[0] == block)
    return FALSE;
  return cg_ref_from (t, block, n, 1);
}

#ifdef __SSE2__
/* cg_keep16[w][i]: all ones where a hit in way w leaves way i in place
 * (the ways after it). */
#define KEEP(w, i) ((i) > (w) ? G_MAXUINT64 : 0)
#define KEEP_ROW(w) { KEEP (w, 0), KEEP (w, 1), KEEP (w, 2), KEEP (w, 3), KEEP (w, 4), \
    KEEP (w, 5), KEEP (w, 6), KEEP (w, 7), KEEP (w, 8), KEEP (w, 9), KEEP (w, 10), \
    KEEP (w, 11), KEEP (w, 12), KEEP (w, 13), KEEP (w, 14), KEEP (w, 15) }
static const guint64 cg_keep16[16][16] __attribute__ ((aligned (16))) = {
  KEEP_ROW (0), KEEP_ROW (1), KEEP_ROW (2), KEEP_ROW (3), KEEP_ROW (4), KEEP_ROW (5),
  KEEP_ROW (6), KEEP_ROW (7), KEEP_ROW (8), KEEP_ROW (9), KEEP_ROW (10), KEEP_ROW (11),
  KEEP_ROW (12), KEEP_ROW (13), KEEP_ROW (14), KEEP_ROW (15),
};
#undef KEEP_ROW
#undef KEEP

/* Ways 2 to 15 of a 16-way set without a branch on where the block is:
 * where a hit lands in a full 16-way set can be as good as random
 * (gen-20m's LL hits are spread evenly over the 16 ways), and then the
 * search loop's exit and the shift's jump are each a mispredicted branch.
 * The ways are compared eight 32-bit pairs at a time; the move to front is
 * a blend of the set and the set shifted one way up, for the ways up to
 * the hit (all but the last on a miss), so that every set write is the
 * same eight 16-byte stores.  About 85 instructions: dearer than the
 * loop when the hit is near the front (see cg_ref_16). */
static ALWAYS_INLINE gboolean
cg_ref_16_sse (guint64 *t, guint64 block)
{
  __m128i b = _mm_set1_epi64x ((gint64) block);
  __m128i v[8];
#pragma GCC unroll 8
  for (guint j = 0; j < 8; j++)
    v[j] = _mm_loadu_si128 ((const __m128i *) (t + 2 * j));
  /* One bit per 32-bit half, way i at bits 2i and 2i + 1. */
  __m128i lo = _mm_packs_epi16 (_mm_packs_epi32 (_mm_cmpeq_epi32 (v[0], b),
                                                 _mm_cmpeq_epi32 (v[1], b)),
                                _mm_packs_epi32 (_mm_cmpeq_epi32 (v[2], b),
                                                 _mm_cmpeq_epi32 (v[3], b)));
  __m128i hi = _mm_packs_epi16 (_mm_packs_epi32 (_mm_cmpeq_epi32 (v[4], b),
                                                 _mm_cmpeq_epi32 (v[5], b)),
                                _mm_packs_epi32 (_mm_cmpeq_epi32 (v[6], b),
                                                 _mm_cmpeq_epi32 (v[7], b)));
  guint32 m = (guint32) _mm_movemask_epi8 (lo) | (guint32) _mm_movemask_epi8 (hi) << 16;
  m &= (m >> 1) & 0x55555555u;
  /* The hit's way, or 15 on a miss (the last way drops out). */
  guint w = (guint) __builtin_ctz (m | 0x40000000u) >> 1;
  const __m128i *keep = (const __m128i *) cg_keep16[w];
  /* Ways 0 and 1 (w >= 2): the new block and the old way 0. */
  _mm_storeu_si128 ((__m128i *) t, _mm_unpacklo_epi64 (b, v[0]));
#pragma GCC unroll 7
  for (guint j = 1; j < 8; j++)
    {
      /* (t[2j - 1], t[2j]) */
      __m128i up = _mm_castpd_si128 (_mm_shuffle_pd (_mm_castsi128_pd (v[j - 1]),
                                                     _mm_castsi128_pd (v[j]), 1));
      _mm_storeu_si128 ((__m128i *) (t + 2 * j),
                        _mm_xor_si128 (up, _mm_and_si128 (_mm_xor_si128 (up, v[j]), keep[j])));
    }
  return m == 0;
}
#endif

#ifdef __AVX2__
/* cg_ref_16_sse with AVX2 (memsys-cg-avx2.c's copy of the batch loop, taken
 * when the host has it): the sixteen ways in four 256-bit registers, one
 * 64-bit compare each, the hit's way by ctz of the four 4-bit masks (15 on
 * a miss), and the move to front as a blend of each register with itself
 * rotated one way up (its last way from the register before, the new block
 * into way 0), keeping the ways past the hit.  About 45 instructions
 * against the SSE2 form's 85, still with no branch on where the block is. */
static ALWAYS_INLINE gboolean
cg_ref_16_avx2 (guint64 *t, guint64 block)
{
  const __m256i b = _mm256_set1_epi64x ((gint64) block);
  __m256i v[4];
  guint m = 0;
#pragma GCC unroll 4
  for (guint j = 0; j < 4; j++)
    {
      v[j] = _mm256_loadu_si256 ((const __m256i *) (t + 4 * j));
      __m256i eq = _mm256_cmpeq_epi64 (v[j], b);
      m |= (guint) _mm256_movemask_pd (_mm256_castsi256_pd (eq)) << (4 * j);
    }
  guint w = (guint) __builtin_ctz (m | 0x8000u);
  const __m256i wv = _mm256_set1_epi64x ((gint64) w);
  /* Way i before the move is way i + 1 after it; "way -1" is the block. */
  __m256i prev = b;
#pragma GCC unroll 4
  for (guint j = 0; j < 4; j++)
    {
      /* (t[4j + 3], t[4j], t[4j + 1], t[4j + 2]), then lane 0 from the
       * register before: (t[4j - 1], t[4j], t[4j + 1], t[4j + 2]). */
      __m256i rot = _mm256_permute4x64_epi64 (v[j], _MM_SHUFFLE (2, 1, 0, 3));
      __m256i up = _mm256_blend_epi32 (rot, prev, 0x03);
      prev = rot;
      const __m256i idx = _mm256_set_epi64x (4 * j + 3, 4 * j + 2, 4 * j + 1, 4 * j);
      __m256i keep = _mm256_cmpgt_epi64 (idx, wv);   /* the ways past the hit */
      _mm256_storeu_si256 ((__m256i *) (t + 4 * j), _mm256_blendv_epi8 (up, v[j], keep));
    }
  return m == 0;
}
#endif

#ifdef __AVX2__
/* An 8-way set (the D1) with AVX2, way 0 known not to hold @block: both
 * registers compared at once; a miss (90 % of gen-20m's and caches.md
 * walk's D1 lookups) is then three stores, the set moved one way up by
 * two overlapping 32-byte moves, where the loop compares way by way and
 * moves pairs of ways; a hit moves to front as cg_ref_16_avx2 does. */
static ALWAYS_INLINE gboolean
cg_ref_8_avx2 (guint64 *t, guint64 block)
{
  const __m256i b = _mm256_set1_epi64x ((gint64) block);
  __m256i v0 = _mm256_loadu_si256 ((const __m256i *) t);
  __m256i v1 = _mm256_loadu_si256 ((const __m256i *) (t + 4));
  guint m = (guint) _mm256_movemask_pd (_mm256_castsi256_pd (_mm256_cmpeq_epi64 (v0, b)))
            | (guint) _mm256_movemask_pd (_mm256_castsi256_pd (_mm256_cmpeq_epi64 (v1, b))) << 4;
  if (G_LIKELY (m == 0))
    {
      /* Both loads before the stores: t[4..7] = t[3..6], t[1..4] = t[0..3]. */
      __m256i mid = _mm256_loadu_si256 ((const __m256i *) (t + 3));
      _mm256_storeu_si256 ((__m256i *) (t + 4), mid);
      _mm256_storeu_si256 ((__m256i *) (t + 1), v0);
      t[0] = block;
      return TRUE;
    }
  guint w = (guint) __builtin_ctz (m);
  const __m256i wv = _mm256_set1_epi64x ((gint64) w);
  __m256i r0 = _mm256_permute4x64_epi64 (v0, _MM_SHUFFLE (2, 1, 0, 3));
  __m256i r1 = _mm256_permute4x64_epi64 (v1, _MM_SHUFFLE (2, 1, 0, 3));
  __m256i up0 = _mm256_blend_epi32 (r0, b, 0x03), up1 = _mm256_blend_epi32 (r1, r0, 0x03);
  __m256i k0 = _mm256_cmpgt_epi64 (_mm256_set_epi64x (3, 2, 1, 0), wv);
  __m256i k1 = _mm256_cmpgt_epi64 (_mm256_set_epi64x (7, 6, 5, 4), wv);
  _mm256_storeu_si256 ((__m256i *) t, _mm256_blendv_epi8 (up0, v0, k0));
  _mm256_storeu_si256 ((__m256i *) (t + 4), _mm256_blendv_epi8 (up1, v1, k1));
  return FALSE;
}
#endif

/* 16 ways (the default LL): ways 0 and 1 first, by branches; the rest with
 * the loop (@simd CG_LOOP) or branch-free (cg_ref_16_sse, cg_ref_16_avx2).
 * *@deep counts the lookups that get past way 1, from which
 * memsys_cg_access_refs picks @simd per batch: a walk whose LL hits are
 * nearly all in the first ways (caches.md's walk: 85 % in ways 0 and 1,
 * most of the rest in 2 and 3) wants the loop, a trace whose hits are
 * spread over the set (gen-20m: 87 % past way 1) the branch-free code.
 * All give the same set, so the choice changes no result. */
static ALWAYS_INLINE gboolean
cg_ref_16 (guint64 *t, guint64 block, guint simd, guint *deep)
{
  if (t[0] == block)
    return FALSE;
  if (t[1] == block)
    {
      t[1] = t[0];
      t[0] = block;
      return FALSE;
    }
  (*deep)++;
#ifdef __AVX2__
  if (simd == CG_AVX2)
    return cg_ref_16_avx2 (t, block);
#endif
#ifdef __SSE2__
  if (simd == CG_SSE2)
    return cg_ref_16_sse (t, block);
#endif
  return cg_ref_from (t, block, 16, 2);
}

/* The set of @block in level @L; @n its ways when the caller knows them
 * (a constant), 0 to dispatch on L->ways here.  @simd, @deep: cg_ref_16. */
static ALWAYS_INLINE gboolean
cg_ref (Level *L, guint64 block, guint n, guint simd, guint *deep)
{
  if (n == 16)
    return cg_ref_16 (L->tag + (gsize) (block & L->set_mask) * 16, block, simd, deep);
#ifdef __AVX2__
  if (n == 8)
    {
      guint64 *t = L->tag + (gsize) (block & L->set_mask) * 8;
      return t[0] != block && cg_ref_8_avx2 (t, block);
    }
#endif
  if (n)
    return cg_ref_n (L->tag + (gsize) (block & L->set_mask) * n, block, n);
  guint64 *t = L->tag + set_base (L, 0, block);
  switch (L->ways)
    {
    case 4:  return cg_ref_n (t, block, 4);
    case 8:  return cg_ref_n (t, block, 8);
    case 16: return cg_ref_16 (t, block, simd, deep);
    default: return cg_ref_n (t, block, L->ways);
    }
}

/* One reference: D1 for every line it touches, then (on a D1 miss of any of
 * them) the LL for every line.  @n1, @n2: the levels' ways, or 0 (see
 * cg_ref); @simd, @deep: cg_ref_16. */
static ALWAYS_INLINE void
cg_apply (SimMemSys *ms, guint64 addr, guint32 size, SimAccKind kind, SimMemClass cls,
          guint n1, guint n2, guint simd, guint *deep)
{
  SimCpuMemStats *st = &ms->stats[0];
  /* Cachegrind books a modify as a read. */
  SimAccKind k = kind == SIM_ACC_RMW ? SIM_ACC_READ : kind;
  Level *d1 = &ms->lv[0], *ll = &ms->lv[1];
  guint64 last = addr + (size ? size - 1 : 0);
  guint64 b1 = addr >> d1->line_shift, b2 = last >> d1->line_shift;
  gboolean miss;
  guint d1_deep = 0;   /* only the LL's count */
  st->level[0].accesses[k]++;
  if (G_LIKELY (b1 == b2))
    miss = cg_ref (d1, b1, n1, CG_LOOP, &d1_deep);
  else
    {
      miss = FALSE;
      for (guint64 b = b1; b <= b2; b++)
        miss |= cg_ref (d1, b, n1, CG_LOOP, &d1_deep);
    }
  if (!miss)
    return;
  st->level[0].misses[k]++;
  st->class_misses[cls][0]++;
  st->level[1].accesses[k]++;
  /* The whole reference goes to the LL: every line is looked up there. */
  b1 = addr >> ll->line_shift;
  b2 = last >> ll->line_shift;
  if (G_LIKELY (b1 == b2))
    miss = cg_ref (ll, b1, n2, simd, deep);
  else
    {
      miss = FALSE;
      for (guint64 b = b1; b <= b2; b++)
        miss |= cg_ref (ll, b, n2, simd, deep);
    }
  if (miss)
    {
      st->level[1].misses[k]++;
      st->class_misses[cls][1]++;
    }
}

/* The host lines of @addr's two sets, for the batch loop: cg_prefetch with
 * the ways @n1, @n2 as constants (or 0).  ALWAYS_INLINE: as a plain static
 * inline function GCC judged cg_prefetch free of side effects and dropped
 * the call from the loop, so that the batches went without a prefetch (no
 * prefetch instruction in the loop's code).  The D1's tags are prefetched
 * only when they may not stay in the host's L1 (the default D1's are
 * 4 KiB). */
static ALWAYS_INLINE void
cg_prefetch_n (const SimMemSys *ms, guint64 addr, guint n1, guint n2)
{
  const Level *d1 = &ms->lv[0], *ll = &ms->lv[1];
  if (n1 == 0 || (gsize) d1->sets * n1 * sizeof (guint64) > 16 * 1024)
    {
      const guint64 *t = d1->tag + set_base (d1, 0, addr >> d1->line_shift);
      __builtin_prefetch (t);
      if (d1->ways > 8)
        __builtin_prefetch (t + d1->ways - 1);
    }
  guint64 block = addr >> ll->line_shift;
  guint ways = n2 ? n2 : ll->ways;
  const guint64 *t = ll->tag + (gsize) (block & ll->set_mask) * ways;
  __builtin_prefetch (t);
  if (ways > 8)
    __builtin_prefetch (t + ways - 1);
}

/* A batch in Cachegrind mode, with the levels' ways @n1, @n2 as constants
 * (or 0) and @simd for cg_ref_16.  The refs' CPU fields are not looked at:
 * one CPU, as under Cachegrind.  Returns the LL lookups that got past way
 * 1 (cg_ref_16). */
static ALWAYS_INLINE guint
cg_refs (SimMemSys *ms, const SimMemRef *refs, gsize n, guint n1, guint n2, guint simd)
{
  guint deep = 0;
  for (gsize i = 0; i < n; i++)
    {
      if (i + REFS_AHEAD < n)
        cg_prefetch_n (ms, refs[i + REFS_AHEAD].addr, n1, n2);
      const SimMemRef *r = &refs[i];
      g_return_val_if_fail (r->kind < SIM_ACC_N, deep);
      cg_apply (ms, r->addr, r->size, (SimAccKind) r->kind, SIM_MEM_OTHER, n1, n2, simd, &deep);
    }
  return deep;
}
