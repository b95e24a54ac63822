/* memsys-internal.h - what the files of the cache model share.
 *
 * The model (interface: memsys.h) is split along its own seams:
 *
 *   memsys.c        full mode: the essay on what is modelled and how the
 *                   state is kept, the coherence directory, moving lines
 *                   (fills, evictions, back-invalidations), one access,
 *                   the entry points and the invariant checker;
 *   memsys-build.c  construction: the machine and level checks, the
 *                   arrays (host huge pages), the per-core tables, the
 *                   queries and counters read by reports;
 *   memsys-cg.c     Cachegrind-compatible mode: D1 and LL in
 *                   move-to-front order, its batch loop and constructor;
 *                   memsys-cg-loop.h its lookups and loop, memsys-cg-avx2.c
 *                   the loop built with -mavx2 (for hosts with AVX2).
 *
 * Here: the state (Level, DirEnt, struct SimMemSys), the per-line state
 * bits and the set primitives every probe uses (set_base, find_way, the
 * LRU rank and PLRU helpers, touch, victim_way, remove_way).  They are
 * static inline or always_inline on purpose: the full mode's hit and miss
 * paths are a few dozen of them with constant associativities, and a call
 * per primitive would cost more than the primitive.  Nothing here is part
 * of the interface.
 */
#pragma once

#include "models/cache/memsys.h"
#include "sim/core/rng.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define NO_LINE G_MAXUINT64

/* Per-line state bits. */
#define ST_DIRTY 0x1u   /* newer than the next level / memory */
#define ST_EXCL  0x2u   /* private caches only: the core has E/M permission */
#define ST_INL2  0x4u   /* L1 only, on machines with SimMemSys.inl2: the core's
                           L2 holds the line too */
#define ST_XS    0x8u   /* the core-valid level only (SimMemSys.corevalid): more
                           than one socket's copy of the level holds the line, and
                           its holders are in the directory, not in its CvLine */

/* What an inclusive shared level with core-valid bits (SimMemSys.corevalid)
 * keeps per way for a line that only its socket holds: the holders among
 * its socket's cores, and the line's owner and MESIF forwarder as the
 * directory would (DirEnt): such a line has no directory entry.  Ignored
 * while the way is empty or its state has ST_XS. */
typedef struct {
  guint64 cv;                  /* bit c: core (socket's first core + c) holds the
                                  line in a private level; exact */
  gint32  owner;               /* domain holding E/M/O, or -1 */
  gint32  fwd;                 /* MESIF forwarder domain, or -1 */
} CvLine;

/* The most directory words a core-valid machine has (SimMemSys.corevalid):
 * the miss path builds a line's entry on the stack from its CvLine. */
#define CV_MAX_WORDS 8

typedef struct {
  guint          sets, ways, line_shift;
  guint64        set_mask;
  SimReplPolicy  repl;
  SimInclusion   incl;
  guint          latency;
  guint          group;        /* cores per instance; 1 = private */
  guint          n_inst;
  guint          inst_per_socket;
  guint          dom_base;     /* shared levels: domain id of instance 0 */
  gboolean       private_;
  guint64       *tag;          /* [n_inst * sets * ways], NO_LINE = empty */
  guint8        *st;           /* [n_inst * sets * 2 * ways]: per set, the
                                  ways' state bytes, then (LRU) their recency
                                  ranks, 0 = most recent; ST() and RANK() */
  gboolean       ranked;       /* LRU in full mode: the ranks are kept */
  guint64       *plru;         /* [n_inst * sets], PLRU only */
  guint64       *plru_tab;     /* [ways][2]: a touch's and-mask, or-mask */
  guint8        *plru_vic;     /* PLRU of at most PLRU_VIC_MAX_WAYS ways: [2^(ways-1)]
                                  the victim way of each tree (plru_victim_of) */
  guint          way_shift;    /* PLRU only: log2 (ways), set index = base >> it */
  SimRng         rng;
} Level;

/* A directory entry with its holder bitmap inline (mask_words words), so
 * that a probe touches one host cache line, not two. */
/* Where a CPU's sets of one level start (memsys.c's sim_memsys_access_refs:
 * its look-ahead hint and L1 probe): its instance's first tag and first
 * state byte, and the tag index of the first set (core_row). */
typedef struct {
  const guint64 *tag;
  const guint8  *st;
  gsize          row;
} HintRow;

/* A CPU's L1 as the L1 probe needs it (memsys.c, access_line_at): its
 * core's L1 instance's first tag, state byte and PLRU word, its counters
 * the tag index of the instance's first set (core_row[0]) and the CPU, so that a
 * hit finds its set and counters from one row (one shift to index) instead
 * of the level's arrays, the core's row and a multiply by the counters'
 * size.  One host cache line per CPU. */
typedef struct {
  guint64        *tag;
  guint8         *st;
  guint64        *plru;         /* PLRU only, else NULL */
  SimCpuMemStats *stats;
  gsize           row;
  guint           cpu;          /* this row's CPU and its core, for the miss path */
  guint           core;
  guint           pad_[4];
} L1Row;
G_STATIC_ASSERT (sizeof (L1Row) == 64);

typedef struct {
  guint64 key;                 /* ~block (dir_key), 0 = empty slot: a zeroed
                                  table is empty, so building one writes nothing */
  gint32  owner;               /* domain holding E/M/O, or -1 */
  gint32  fwd;                 /* MESIF forwarder domain, or -1 */
  guint64 mask[];              /* holder domains */
} DirEnt;

struct SimMemSys {
  SimMemSysMode      mode;
  gboolean           cg_deep;      /* Cachegrind mode: the last batch's LL hits were
                                      mostly past way 1 (memsys-cg.c's choice of LL code) */
  guint8             cg_simd;      /* Cachegrind mode: the host's fastest 16-way lookup
                                      (memsys-cg-loop.h's CG_*) */
  const SimMachine  *m;
  guint              n_cpus, n_levels, n_private, n_cores, n_dom;
  guint              line_shift;
  guint              line_bytes;   /* 1 << line_shift: an access straddles lines when its
                                      offset in the line plus its size pass it */
  guint64            line_mask;    /* line_bytes - 1 */
  /* line_bytes + 1 in full mode with an 8-way L1, else 0: an access takes
   * the one-line 8-way fast path when its offset in the line plus its size
   * stay below it, one compare for "full mode, 8 ways and not straddling"
   * (memsys.c, sim_memsys_access_class). */
  guint64            fast_end;
  Level              lv[SIM_MACHINE_MAX_LEVELS];
  guint             *core_of;      /* [n_cpus] machine-wide core */
  guint             *cpu_of_core;  /* [n_cores] first CPU of each core */
  guint             *dom_socket;   /* [n_dom] */
  SimCpuMemStats    *stats;        /* [n_cpus] */
  /* Directory: open addressing, linear probing, backward-shift deletion. */
  guint64           *dir;          /* [dir_cap * dir_stride] words of DirEnt */
  gsize              dir_stride;   /* words per entry: 2 + mask_words */
  guint             *inst_tab[SIM_MACHINE_MAX_LEVELS];  /* [n_cores] instance */
  /* [n_cores]: the tag index of the core's instance's first set, so that
   * a set's base on the core's path is one load, an and and a multiply
   * (core_set_base) instead of an instance lookup and two multiplies. */
  gsize             *core_row[SIM_MACHINE_MAX_LEVELS];
  L1Row             *l1;           /* [n_cpus], full mode: each CPU's L1 (L1Row) */
  guint64            dir_cap_mask;
  guint64            dir_count;    /* live entries, < capacity by construction */
  guint              dir_bits, mask_words;
  guint              dir_shift;    /* dir_hash's: 64 - (dir_bits - DIR_CHUNK_BITS) */
  /* Exactly two private levels and an L2 that is not a victim cache: L1
   * lines carry ST_INL2, so a clean L1 victim still in L2 needs no L2 probe
   * to know that the core keeps it. */
  gboolean           inl2;
  /* The miss path's common shape (memsys.c, memsys_shape_3l): its instance
   * with the counts as constants serves this machine. */
  gboolean           shape_3l;
  /* One shared level, inclusive, one instance per socket of at most 64
   * cores, no exclusive private level (memsys-build.c, memsys_corevalid):
   * that level's lines carry their socket's holders (CvLine, cvl[tag index])
   * and only lines that several sockets hold are in the directory
   * (memsys.c's essay). */
  gboolean           corevalid;
  CvLine            *cvl;          /* [tag index of lv[n_private]] when corevalid */
  guint64           *path;         /* [n_cores][mask_words]: the core's shared domains */
  guint64           *sock_dom;     /* [sockets][mask_words]: the domains of each socket */
  /* Per CPU, the core timing model's pipeline state (models/alloc/alloc.h:
   * what is still in flight when one allocator call ends and the next
   * begins); allocated by its first user, g_free'd here. */
  gpointer          *core_state;   /* [n_cpus] */
  /* [n_cpus * n_levels], full mode: built by the first batch of
   * sim_memsys_access_refs, so that its look-ahead hint finds a CPU's set
   * with one load per level. */
  HintRow           *hint_row;
};

/* ---- Cache arrays ------------------------------------------------------ */

static inline gsize
set_base (const Level *L, guint inst, guint64 block)
{
  return ((gsize) inst * L->sets + (block & L->set_mask)) * L->ways;
}

/* A set's state bytes and LRU ranks share one array (and so, for 8 and 16
 * ways, one host cache line), so that every probe that reads the states
 * has the ranks at hand: @base is the set's tag index. */
#define ST(L, base)   ((L)->st + 2 * (base))
#define RANK(L, base) ((L)->st + 2 * (base) + (L)->ways)

/* Set primitives.  Every private miss runs a dozen of them, so they are
 * written for a constant associativity @n and dispatched on the common ones
 * (ALWAYS_INLINE makes the constant reach the loops): the tag search then
 * compares all ways without an early exit (a line sits in at most one way,
 * so the lowest match is the match) and the LRU shifts become fixed-size
 * selects instead of memmove calls with a data-dependent length, both of
 * which cost a mispredicted branch per call. */
#define ALWAYS_INLINE inline __attribute__ ((always_inline))
#define WAYS_DISPATCH(ways, CALL) \
  switch (ways)                   \
    {                             \
    case 8:  CALL (8); break;     \
    case 16: CALL (16); break;    \
    default: CALL (ways); break;  \
    }

#ifdef __SSE2__
/* Eight ways at once with SSE2, which has no 64-bit compare: compare the
 * 32-bit halves, pack the 16 results into one byte each, and keep the ways
 * whose two halves both matched. */
static ALWAYS_INLINE guint32
match8_sse2 (const guint64 *t, guint64 block)
{
  __m128i b = _mm_set1_epi64x ((long long) block);
  __m128i c0 = _mm_cmpeq_epi32 (_mm_loadu_si128 ((const __m128i *) t), b);
  __m128i c1 = _mm_cmpeq_epi32 (_mm_loadu_si128 ((const __m128i *) (t + 2)), b);
  __m128i c2 = _mm_cmpeq_epi32 (_mm_loadu_si128 ((const __m128i *) (t + 4)), b);
  __m128i c3 = _mm_cmpeq_epi32 (_mm_loadu_si128 ((const __m128i *) (t + 6)), b);
  __m128i p = _mm_packs_epi16 (_mm_packs_epi32 (c0, c1), _mm_packs_epi32 (c2, c3));
  guint32 m = (guint32) _mm_movemask_epi8 (p);
  return m & (m >> 1) & 0x5555u;     /* bit 2w: way w matched */
}
#endif

static ALWAYS_INLINE int
find_way_n (const guint64 *t, guint64 block, guint n)
{
#ifdef __SSE2__
  if (n == 8 || n == 16)
    {
      guint32 h = match8_sse2 (t, block);
      if (n == 16)
        h |= match8_sse2 (t + 8, block) << 16;
      return h ? __builtin_ctz (h) / 2 : -1;
    }
#endif
  guint32 hits = 0;
  for (guint w = 0; w < n && w < 32; w++)
    hits |= (guint32) (t[w] == block) << w;
  if (hits)
    return __builtin_ctz (hits);
  for (guint w = 32; w < n; w++)
    if (t[w] == block)
      return (int) w;
  return -1;
}

static inline int
find_way (const Level *L, gsize base, guint64 block)
{
  const guint64 *t = L->tag + base;
  int w;
#define FIND(n) w = find_way_n (t, block, n)
  WAYS_DISPATCH (L->ways, FIND);
#undef FIND
  return w;
}

/* LRU order as a rank per way (0 = most recent, ways - 1 = the victim)
 * instead of tags kept in recency order: a touch, fill or removal then
 * rewrites one set's rank bytes (one SSE2 register for 8 or 16 ways)
 * instead of shifting its tags and state bytes.  The ranks of a set are a
 * permutation of 0..ways-1 and empty ways hold the highest ones, so the
 * rank-(ways-1) way is an empty way if the set has one, else the least
 * recently used line: exactly the line the move-to-front order keeps last
 * (the model's results do not depend on which physical way a line is in).
 * sim_memsys_check verifies both properties. */

/* Make way @w the most recent: every rank below its old one ages by one. */
static ALWAYS_INLINE void
rank_touch_n (guint8 *r, guint w, guint n)
{
  guint8 rw = r[w];
  if (rw == 0)
    return;
#ifdef __SSE2__
  if (n == 8 || n == 16)
    {
      __m128i v = n == 8 ? _mm_loadl_epi64 ((const __m128i *) r)
                         : _mm_loadu_si128 ((const __m128i *) r);
      /* Ranks are below 128, so the signed byte compare is exact; lanes
       * past n are never stored. */
      __m128i older = _mm_cmplt_epi8 (v, _mm_set1_epi8 ((char) rw));
      v = _mm_sub_epi8 (v, older);          /* older is -1 in each such lane */
      if (n == 8)
        _mm_storel_epi64 ((__m128i *) r, v);
      else
        _mm_storeu_si128 ((__m128i *) r, v);
      r[w] = 0;
      return;
    }
#endif
  for (guint i = 0; i < n; i++)
    r[i] = (guint8) (r[i] + (r[i] < rw));
  r[w] = 0;
}

/* Empty way @w's rank becomes the highest; the ranks above its old one
 * move up by one. */
static ALWAYS_INLINE void
rank_remove_n (guint8 *r, guint w, guint n)
{
  guint8 rw = r[w];
#ifdef __SSE2__
  if (n == 8 || n == 16)
    {
      __m128i v = n == 8 ? _mm_loadl_epi64 ((const __m128i *) r)
                         : _mm_loadu_si128 ((const __m128i *) r);
      __m128i newer = _mm_cmpgt_epi8 (v, _mm_set1_epi8 ((char) rw));
      v = _mm_add_epi8 (v, newer);          /* newer is -1 in each such lane */
      if (n == 8)
        _mm_storel_epi64 ((__m128i *) r, v);
      else
        _mm_storeu_si128 ((__m128i *) r, v);
      r[w] = (guint8) (n - 1);
      return;
    }
#endif
  for (guint i = 0; i < n; i++)
    r[i] = (guint8) (r[i] - (r[i] > rw));
  r[w] = (guint8) (n - 1);
}

/* The way of rank n - 1: the next victim (an empty way if there is one). */
static ALWAYS_INLINE guint
rank_last_n (const guint8 *r, guint n)
{
#ifdef __SSE2__
  if (n == 8 || n == 16)
    {
      __m128i v = n == 8 ? _mm_loadl_epi64 ((const __m128i *) r)
                         : _mm_loadu_si128 ((const __m128i *) r);
      guint32 m = (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, _mm_set1_epi8 ((char) (n - 1))));
      return (guint) __builtin_ctz (m | (1u << (n - 1)));   /* exactly one lane matches */
    }
#endif
  for (guint i = 0; i + 1 < n; i++)
    if (r[i] == n - 1)
      return i;
  return n - 1;
}

static inline guint
lru_victim (const Level *L, gsize base)
{
  guint w;
#define LAST(n) w = rank_last_n (RANK (L, base), n)
  WAYS_DISPATCH (L->ways, LAST);
#undef LAST
  return w;
}

/* Tree-PLRU: node i has children 2i+1, 2i+2; a bit set means the victim
 * is in the right subtree.  A touch points every node on the path away from
 * the touched way: the nodes and directions depend only on the way, so
 * memsys_level_init precomputes them (plru_tab) and a touch, which every L1
 * hit of a PLRU L1 makes, is one and-or instead of a walk down the tree. */
static inline void
plru_touch (Level *L, gsize set_index, guint way)
{
  const guint64 *t = L->plru_tab + 2 * way;
  L->plru[set_index] = (L->plru[set_index] & t[0]) | t[1];
}

/* A PLRU set of at most 32 ways keeps, beside its tree (ways - 1 bits),
 * which ways hold a line: bit PLRU_VALID + w of the same word.  A fill then
 * finds an empty way in the word it reads for the victim anyway instead of
 * comparing every tag with NO_LINE; a touch's masks leave those bits alone.
 * sim_memsys_check verifies them against the tags. */
#define PLRU_VALID 32

static ALWAYS_INLINE gboolean
plru_valid_kept (guint ways)
{
  return ways <= 32;
}

/* The set index of tag index @base: a shift, or a division by a constant
 * @n (the ways, or 0 for L->ways). */
static ALWAYS_INLINE gsize
plru_set (const Level *L, gsize base, guint n)
{
  return n ? base / n : base >> L->way_shift;
}

/* A line entered way @way: it becomes valid and the most recent. */
static ALWAYS_INLINE void
plru_fill (Level *L, gsize set_index, guint way, guint ways)
{
  const guint64 *t = L->plru_tab + 2 * way;
  guint64 v = plru_valid_kept (ways) ? G_GUINT64_CONSTANT (1) << (PLRU_VALID + way) : 0;
  L->plru[set_index] = (L->plru[set_index] & t[0]) | t[1] | v;
}

/* Way @way was emptied. */
static ALWAYS_INLINE void
plru_empty (Level *L, gsize set_index, guint way, guint ways)
{
  if (plru_valid_kept (ways))
    L->plru[set_index] &= ~(G_GUINT64_CONSTANT (1) << (PLRU_VALID + way));
}

/* The lowest empty way of a set whose valid bits are kept, or -1. */
static ALWAYS_INLINE int
plru_empty_way (const Level *L, gsize set_index, guint ways)
{
  guint64 valid = L->plru[set_index] >> PLRU_VALID;
  guint64 full = (G_GUINT64_CONSTANT (1) << ways) - 1;
  return valid == full ? -1 : __builtin_ctzll (~valid);
}

/* Up to 8 ways (every bundled PLRU L1) a tree has at most 7 bits, and its
 * victim is one load from a 128-byte table instead of a walk down the
 * tree (a dependent shift, and, or and add per level). */
#define PLRU_VIC_MAX_WAYS 8

/* The victim of a tree of @ways ways (at most PLRU_VIC_MAX_WAYS) in
 * @bits, the set's PLRU word. */
static ALWAYS_INLINE guint
plru_victim_of (const Level *L, guint64 bits, guint ways)
{
  return L->plru_vic[bits & ((G_GUINT64_CONSTANT (1) << (ways - 1)) - 1)];
}

static inline guint
plru_victim (const Level *L, gsize set_index)
{
  guint64 bits = L->plru[set_index];
  if (L->ways <= PLRU_VIC_MAX_WAYS)
    return plru_victim_of (L, bits, L->ways);
  guint node = 0, way = 0;
  for (guint span = L->ways; span > 1; span >>= 1)
    {
      gboolean right = (bits >> node) & 1;
      if (right)
        way |= span >> 1;
      node = 2 * node + (right ? 2 : 1);
    }
  return way;
}

/* Make @way the most recently used (lines never move between ways). */
static inline void
touch (Level *L, gsize base, guint way)
{
  switch (L->repl)
    {
    case SIM_REPL_LRU:
#define FRONT(n) rank_touch_n (RANK (L, base), way, n)
      WAYS_DISPATCH (L->ways, FRONT);
#undef FRONT
      return;
    case SIM_REPL_PLRU:
      plru_touch (L, base >> L->way_shift, way);
      return;
    case SIM_REPL_RANDOM:
      return;
    }
}

/* The way a new line goes into: an empty way if any, else the policy's
 * victim (for LRU the way of the last rank; empty ways hold the last ranks). */
static inline guint
victim_way (Level *L, gsize base)
{
  if (L->repl == SIM_REPL_LRU)
    return lru_victim (L, base);
  /* The lowest empty way: from the valid bits, or searched like a tag. */
  int empty = L->repl == SIM_REPL_PLRU && plru_valid_kept (L->ways)
                ? plru_empty_way (L, base >> L->way_shift, L->ways)
                : find_way (L, base, NO_LINE);
  if (empty >= 0)
    return (guint) empty;
  if (L->repl == SIM_REPL_PLRU)
    return plru_victim (L, base >> L->way_shift);
  return (guint) sim_rng_below (&L->rng, L->ways);
}

/* Empty a way; LRU gives the hole the last rank so that it is filled first. */
static inline void
remove_way (Level *L, gsize base, guint way)
{
  if (L->repl == SIM_REPL_LRU)
    {
#define DELETE(n) rank_remove_n (RANK (L, base), way, n)
      WAYS_DISPATCH (L->ways, DELETE);
#undef DELETE
    }
  else if (L->repl == SIM_REPL_PLRU)
    plru_empty (L, base >> L->way_shift, way, L->ways);
  L->tag[base + way] = NO_LINE;
  ST (L, base)[way] = 0;
}

static inline guint
inst_of (const SimMemSys *ms, guint l, guint core)
{
  return ms->inst_tab[l][core];
}

/* set_base (L, inst_of (ms, l, core), block), from the core's row. */
static inline gsize
core_set_base (const SimMemSys *ms, guint l, guint core, guint64 block)
{
  const Level *L = &ms->lv[l];
  return ms->core_row[l][core] + (gsize) (block & L->set_mask) * L->ways;
}

/* Neighbouring lines get neighbouring directory slots (memsys.c, dir_hash):
 * the hash scatters chunks of 2^DIR_CHUNK_BITS lines. */
#define DIR_CHUNK_BITS 3

/* Cachegrind mode's two sets of @addr (memsys-cg.c's batch loop and
 * sim_memsys_prefetch, which inlines it as it did before the split). */
static inline void
cg_prefetch (const SimMemSys *ms, guint64 addr)
{
  for (guint l = 0; l < 2; l++)
    {
      const Level *L = &ms->lv[l];
      const guint64 *t = L->tag + set_base (L, 0, addr >> L->line_shift);
      __builtin_prefetch (t);
      if (L->ways > 8)
        __builtin_prefetch (t + L->ways - 1);
    }
}

/* How far ahead of the access it applies a batch prefetches: far enough for
 * a host DRAM load to arrive, near enough that the prefetched lines are
 * still in the host's L1 when used. */
#define REFS_AHEAD 16

/* ---- Shared between the files ------------------------------------------ */

/* memsys-build.c: a zeroed SimMemSys of @mode; one level's arrays. */
G_GNUC_INTERNAL SimMemSys *memsys_alloc (SimMemSysMode mode, guint n_cpus);
G_GNUC_INTERNAL gboolean   memsys_level_init (Level *L, const SimCacheLevelSpec *spec,
                                              guint n_inst, GError **error);

/* memsys.c: whether the full mode's miss path can take its common shape. */
G_GNUC_INTERNAL gboolean   memsys_shape_3l (const SimMemSys *ms);

/* memsys-cg.c: Cachegrind mode's side of the entry points in memsys.c. */
G_GNUC_INTERNAL guint32 memsys_cg_access (SimMemSys *ms, guint64 addr, guint32 size,
                                          SimAccKind kind, SimMemClass cls);
G_GNUC_INTERNAL void    memsys_cg_access_refs (SimMemSys *ms, const SimMemRef *refs, gsize n);
/* memsys-cg-avx2.c (built when the compiler takes -mavx2): the batch loop
 * of the default ways with the AVX2 16-way lookup (@deep) or the loop;
 * returns the LL lookups that got past way 1.  Only for hosts with AVX2. */
G_GNUC_INTERNAL guint   memsys_cg_refs_avx2 (SimMemSys *ms, const SimMemRef *refs, gsize n,
                                             gboolean deep);
/* Tests: the 16-way lookup's form past way 1 (memsys-cg-loop.h's CG_LOOP,
 * CG_SSE2, CG_AVX2), at most the host's best; returns the one set. */
G_GNUC_INTERNAL guint   memsys_cg_set_simd (SimMemSys *ms, guint simd);
