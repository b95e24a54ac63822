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
 * memsys-internal.h).  The batch loop has a copy
 * with Cachegrind's default ways (8 and 16) as constants, and prefetches
 * the host lines of the sets REFS_AHEAD references ahead (cg_prefetch_n).
 */
#include "models/cache/memsys-internal.h"

/* ---- Cachegrind mode ---------------------------------------------------- */

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

static ALWAYS_INLINE gboolean
cg_ref_n (guint64 *t, guint64 block, guint n)
{
  if (t[0] == block)
    return FALSE;
  guint w = n;
#pragma GCC unroll 16
  for (guint i = 1; i < n; i++)
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

/* The set of @block in level @L; @n its ways when the caller knows them
 * (a constant), 0 to dispatch on L->ways here. */
static ALWAYS_INLINE gboolean
cg_ref (Level *L, guint64 block, guint n)
{
  if (n)
    return cg_ref_n (L->tag + (gsize) (block & L->set_mask) * n, block, n);
  guint64 *t = L->tag + set_base (L, 0, block);
  switch (L->ways)
    {
    case 4:  return cg_ref_n (t, block, 4);
    case 8:  return cg_ref_n (t, block, 8);
    case 16: return cg_ref_n (t, block, 16);
    default: return cg_ref_n (t, block, L->ways);
    }
}

/* One reference: D1 for every line it touches, then (on a D1 miss of any of
 * them) the LL for every line.  @n1, @n2: the levels' ways, or 0 (see
 * cg_ref). */
static ALWAYS_INLINE void
cg_apply (SimMemSys *ms, guint64 addr, guint32 size, SimAccKind kind, SimMemClass cls,
          guint n1, guint n2)
{
  SimCpuMemStats *st = &ms->stats[0];
  /* Cachegrind books a modify as a read. */
  SimAccKind k = kind == SIM_ACC_RMW ? SIM_ACC_READ : kind;
  Level *d1 = &ms->lv[0], *ll = &ms->lv[1];
  guint64 last = addr + (size ? size - 1 : 0);
  guint64 b1 = addr >> d1->line_shift, b2 = last >> d1->line_shift;
  gboolean miss;
  st->level[0].accesses[k]++;
  if (G_LIKELY (b1 == b2))
    miss = cg_ref (d1, b1, n1);
  else
    {
      miss = FALSE;
      for (guint64 b = b1; b <= b2; b++)
        miss |= cg_ref (d1, b, n1);
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
    miss = cg_ref (ll, b1, n2);
  else
    {
      miss = FALSE;
      for (guint64 b = b1; b <= b2; b++)
        miss |= cg_ref (ll, b, n2);
    }
  if (miss)
    {
      st->level[1].misses[k]++;
      st->class_misses[cls][1]++;
    }
}

/* sim_memsys_access_class's Cachegrind side. */
guint32
memsys_cg_access (SimMemSys *ms, guint64 addr, guint32 size, SimAccKind kind,
                  SimMemClass cls)
{
  cg_apply (ms, addr, size, kind, cls, 0, 0);
  return 0;
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
 * (or 0).  The refs' CPU fields are not looked at: one CPU, as under
 * Cachegrind. */
static ALWAYS_INLINE void
cg_refs (SimMemSys *ms, const SimMemRef *refs, gsize n, guint n1, guint n2)
{
  for (gsize i = 0; i < n; i++)
    {
      if (i + REFS_AHEAD < n)
        cg_prefetch_n (ms, refs[i + REFS_AHEAD].addr, n1, n2);
      const SimMemRef *r = &refs[i];
      g_return_if_fail (r->kind < SIM_ACC_N);
      cg_apply (ms, r->addr, r->size, (SimAccKind) r->kind, SIM_MEM_OTHER, n1, n2);
    }
}

/* sim_memsys_access_refs's Cachegrind side: Cachegrind's default geometry
 * (and --D1/--LL of the same ways) gets its own copy of the loop with the
 * ways as constants. */
void
memsys_cg_access_refs (SimMemSys *ms, const SimMemRef *refs, gsize n)
{
  if (ms->lv[0].ways == 8 && ms->lv[1].ways == 16)
    cg_refs (ms, refs, n, 8, 16);
  else
    cg_refs (ms, refs, n, 0, 0);
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
  return g_steal_pointer (&ms);
}

