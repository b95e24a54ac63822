/* memsys.c - set-associative cache hierarchy with MESI/MESIF/MOESI coherence
 * over every core and socket of a SimMachine, and NUMA DRAM.
 *
 * What is modelled
 *  - Every level of SimMachine.levels as one or more cache instances: private
 *    per core (shared_cores 1; the core's SMT threads share it), one per socket
 *    (0) or one per group of N consecutive cores of a socket (Core 2's L2).
 *    Private levels must come first (L1, maybe L2); shared ones follow.
 *  - Replacement per level: true LRU (move-to-front order inside each set,
 *    Cachegrind's own scheme, so Cachegrind mode matches it bit for bit),
 *    tree pseudo-LRU (ways - 1 bits per set), random (the machine's seeded
 *    PRNG, one stream per level).  Empty ways are always filled first.
 *  - Write-back, write-allocate.  A dirty victim is counted as one write-back
 *    at the level that evicts it and makes the next copy on its way out dirty
 *    (or goes to DRAM).
 *  - Inclusion per level (caches.md §5.3): inclusive levels back-invalidate
 *    the copies above them on eviction (Nehalem L3); NINE levels are filled
 *    on a miss and leave the levels above alone; exclusive levels are filled
 *    only with the victims of the level above and give a line up on a hit
 *    (Opteron L2 and its victim L3).
 *  - Coherence: a directory (a hash on the line address, holding only lines
 *    that some cache holds, so its size is bounded by the total cache
 *    capacity) records which "domains" hold each line - a domain is one
 *    core's private caches or one shared-cache instance - plus the owner
 *    (E/M/O holder) and, under MESIF, the forwarder.  The per-line state
 *    bytes of the private caches carry EXCL (E or M permission) and DIRTY,
 *    so an L1 hit with permission never looks at the directory: that is the
 *    fast path.  The directory is consulted only when a core misses all its
 *    private levels or must upgrade a shared line.
 *    States: M = EXCL+DIRTY, E = EXCL, S, O (MOESI: dirty, shared, owner
 *    supplies), F (MESIF: the most recent clean sharer supplies other
 *    sockets).  Under MESI a clean shared line in another socket does not
 *    supply data: it comes from DRAM.  A read of a line another domain owns
 *    downgrades the owner (M -> S with a write-back to its socket's shared
 *    level or DRAM under MESI/MESIF; M -> O under MOESI).  A write or RMW
 *    invalidates every other domain's copy; an upgrade from S moves no data.
 *  - Latency: the hit latency of the level that served the access, or the
 *    machine's lat_local_clean/hitm when another core (or shared cache) of
 *    the same socket supplied the line, lat_remote_clean/hitm when another
 *    socket did, or lat_dram_local/remote by the address's home node.  A
 *    line owned exclusively (E/M) by another core of the socket is snooped
 *    even when the requester's L3 holds it (Nehalem's "L3 hit, clean in
 *    another core").  An upgrade costs the first shared level's latency
 *    (the coherence point), or lat_remote_clean if copies in another socket
 *    had to be invalidated.  An access straddling lines returns the largest
 *    per-line latency (the lines are fetched in parallel).
 *
 * What is not modelled: prefetchers, queues, bandwidth and contention, the
 * timing of concurrent requests (accesses are applied one at a time in trace
 * order), TLBs, instruction caches, non-temporal stores, snoop-filter
 * capacity separate from the caches, Opteron's L3 keeping shared lines,
 * adaptive L3 replacement.  Only the requester's own stack is charged for
 * level accesses; events in another core's caches (invalidations,
 * back-invalidations received, their write-backs) are charged to that core's
 * first CPU.
 *
 * Cachegrind mode (caches.md §2.4, §2.5) is a separate small path: D1 and
 * LL, LRU, no coherence, no write-backs, the LL looked up only on a D1 miss,
 * a straddling access one reference with at most one miss per level.
 *
 * How the state is kept, and what that costs on the host
 *  - Each level is one tag array and one byte array, set-major over all
 *    its instances (a set's ways are adjacent).  The byte array holds per
 *    set the ways' state bytes and then, for LRU, their recency ranks, so
 *    that a touch rewrites one set's ranks (one SSE2 register) instead of
 *    moving its tags and states, and the ranks share the states' host line.
 *    Cachegrind mode keeps its sets in move-to-front order instead.
 *  - The directory is an open-addressing hash with linear probing and
 *    backward-shift deletion, sized at construction for every line of every
 *    cache, so it never grows and never fills.  Its hash scatters chunks of
 *    8 neighbouring lines and keeps each chunk's lines in consecutive slots,
 *    so a working set's entries share host cache lines.
 *  - A full-mode access is: an L1 probe (the fast path ends there on a hit
 *    with permission); on a miss, probes outwards until a level hits, a
 *    directory lookup if no private level had it, then fills inwards, each
 *    fill evicting a victim whose departure may touch the next level (dirty
 *    write-back), the directory (the core no longer holds it) or the levels
 *    above (inclusive back-invalidation).  A private miss thus does 4-10 set
 *    probes and 1-3 directory probes (an L1 line's ST_INL2 bit spares the
 *    L2 probe for a clean L1 victim the core's L2 still holds, on machines
 *    with two private levels and no victim L2); the set primitives are
 *    specialised for 8 and 16 ways (SSE2 tag compare, fixed-size LRU moves)
 *    because they are most of the work, and the arrays over 2 MiB ask for
 *    huge pages.
 *    docs/perf/cachesim.md has the measured profile.
 */
#include "models/cache/memsys.h"
#include "sim/core/errors.h"
#include "sim/core/rng.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif

#define NO_LINE G_MAXUINT64

/* Per-line state bits. */
#define ST_DIRTY 0x1u   /* newer than the next level / memory */
#define ST_EXCL  0x2u   /* private caches only: the core has E/M permission */
#define ST_INL2  0x4u   /* L1 only, on machines with SimMemSys.inl2: the core's
                           L2 holds the line too */

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
  guint          way_shift;    /* PLRU only: log2 (ways), set index = base >> it */
  SimRng         rng;
} Level;

/* A directory entry with its holder bitmap inline (mask_words words), so
 * that a probe touches one host cache line, not two. */
typedef struct {
  guint64 block;               /* NO_LINE = empty slot */
  gint32  owner;               /* domain holding E/M/O, or -1 */
  gint32  fwd;                 /* MESIF forwarder domain, or -1 */
  guint64 mask[];              /* holder domains */
} DirEnt;

struct SimMemSys {
  SimMemSysMode      mode;
  const SimMachine  *m;
  guint              n_cpus, n_levels, n_private, n_cores, n_dom;
  guint              line_shift;
  Level              lv[SIM_MACHINE_MAX_LEVELS];
  guint             *core_of;      /* [n_cpus] machine-wide core */
  guint             *cpu_of_core;  /* [n_cores] first CPU of each core */
  guint             *dom_socket;   /* [n_dom] */
  SimCpuMemStats    *stats;        /* [n_cpus] */
  /* Directory: open addressing, linear probing, backward-shift deletion. */
  guint64           *dir;          /* [dir_cap * dir_stride] words of DirEnt */
  gsize              dir_stride;   /* words per entry: 2 + mask_words */
  guint             *inst_tab[SIM_MACHINE_MAX_LEVELS];  /* [n_cores] instance */
  guint64            dir_cap_mask;
  guint64            dir_count;    /* live entries, < capacity by construction */
  guint              dir_bits, mask_words;
  /* Exactly two private levels and an L2 that is not a victim cache: L1
   * lines carry ST_INL2, so a clean L1 victim still in L2 needs no L2 probe
   * to know that the core keeps it. */
  gboolean           inl2;
  guint64           *path;         /* [n_cores][mask_words]: the core's shared domains */
  /* Per CPU, the core timing model's pipeline state (models/alloc/alloc.h:
   * what is still in flight when one allocator call ends and the next
   * begins); allocated by its first user, g_free'd here. */
  gpointer          *core_state;   /* [n_cpus] */
};

/* ---- Host memory --------------------------------------------------------- */

/* The directory and the shared levels' tag arrays are megabytes that every
 * private miss probes at random: with 4 KiB host pages nearly each probe is
 * also a TLB miss and a page walk, which cost as much as the cache miss
 * itself.  Large arrays are therefore aligned to 2 MiB and offered to the
 * kernel as transparent huge pages (a hint: where THP is off this is plain
 * aligned memory).  Contents are zeroed; free with big_free(). */
#define BIG_ALIGN ((gsize) 2 << 20)

/* NULL when the host refuses (the caller says what for): a machine with
 * caches too big for this host is an error to report, not an abort. */
static gpointer
big_alloc0 (gsize bytes)
{
  if (bytes < BIG_ALIGN)
    return g_try_malloc0 (MAX (bytes, 1));
  gsize rounded = (bytes + BIG_ALIGN - 1) & ~(BIG_ALIGN - 1);
  void *p = NULL;
  if (posix_memalign (&p, BIG_ALIGN, rounded) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise (p, rounded, MADV_HUGEPAGE);
#endif
  memset (p, 0, bytes);
  return p;
}

static void
big_free (gpointer p)
{
  free (p);   /* g_malloc0 and posix_memalign memory both go to free() */
}

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
 * level_init precomputes them (plru_tab) and a touch, which every L1 hit
 * of a PLRU L1 makes, is one and-or instead of a walk down the tree. */
static void
plru_tab_init (Level *L)
{
  L->plru_tab = g_new0 (guint64, 2 * (gsize) L->ways);
  for (guint way = 0; way < L->ways; way++)
    {
      guint64 clr = 0, set = 0;
      guint node = 0;
      for (guint span = L->ways; span > 1; span >>= 1)
        {
          guint half = span >> 1;
          gboolean right = (way & half) != 0;
          if (right)
            clr |= G_GUINT64_CONSTANT (1) << node;
          else
            set |= G_GUINT64_CONSTANT (1) << node;
          node = 2 * node + (right ? 2 : 1);
        }
      L->plru_tab[2 * way] = ~clr;
      L->plru_tab[2 * way + 1] = set;
    }
}

static inline void
plru_touch (Level *L, gsize set_index, guint way)
{
  const guint64 *t = L->plru_tab + 2 * way;
  L->plru[set_index] = (L->plru[set_index] & t[0]) | t[1];
}

static inline guint
plru_victim (const Level *L, gsize set_index)
{
  guint64 bits = L->plru[set_index];
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
  /* The lowest empty way, searched like a tag. */
  int empty = find_way (L, base, NO_LINE);
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
  L->tag[base + way] = NO_LINE;
  ST (L, base)[way] = 0;
}

static gboolean
is_pow2 (guint64 v)
{
  return v && (v & (v - 1)) == 0;
}

gboolean
sim_memsys_check_level (const SimCacheLevelSpec *spec, guint *sets, const char **key,
                        GError **error)
{
  const char *k = NULL;
  if (spec->ways == 0)
    {
      k = "ways";
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "ways must be at least 1");
    }
  else if (spec->ways > SIM_MEMSYS_MAX_WAYS)
    {
      k = "ways";
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "%u ways: the cache model supports at most %u", spec->ways,
                   SIM_MEMSYS_MAX_WAYS);
    }
  else if (spec->line < 16 || !is_pow2 (spec->line))
    {
      k = "line";
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "line %u bytes: expected a power of two of at least 16", spec->line);
    }
  else if (spec->replacement == SIM_REPL_PLRU
           && (!is_pow2 (spec->ways) || spec->ways > SIM_MEMSYS_MAX_PLRU_WAYS))
    {
      k = "replacement";
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "plru needs a power-of-two number of ways up to %u (this level has %u)",
                   SIM_MEMSYS_MAX_PLRU_WAYS, spec->ways);
    }
  if (k)
    {
      if (key)
        *key = k;
      return FALSE;
    }
  /* The set index is a bit field of the line address, so the number of
   * sets must be a power of two; the size and the ways need not be
   * (48 KiB 12-way, 3 MiB 12-way and 1.25 MiB 20-way all have 2^n sets). */
  guint64 per_set = (guint64) spec->ways * spec->line;
  guint64 n = spec->size / per_set;
  if (key)
    *key = "size";
  if (spec->size == 0 || spec->size % per_set != 0)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "size %" G_GUINT64_FORMAT " bytes is not a whole number of sets of "
                   "ways (%u) x line (%u) = %" G_GUINT64_FORMAT " bytes",
                   spec->size, spec->ways, spec->line, per_set);
      return FALSE;
    }
  if (!is_pow2 (n))
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "number of sets (%" G_GUINT64_FORMAT " = size / (%u ways x %u-byte "
                   "lines)) must be a power of two: the cache model indexes sets with "
                   "address bits", n, spec->ways, spec->line);
      return FALSE;
    }
  if (n > SIM_MEMSYS_MAX_SETS)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "number of sets (%" G_GUINT64_FORMAT ") is more than the cache model "
                   "indexes (at most 2^31)", n);
      return FALSE;
    }
  if (key)
    *key = NULL;
  if (sets)
    *sets = (guint) n;
  return TRUE;
}

static gboolean
level_init (Level *L, const SimCacheLevelSpec *spec, guint n_inst, GError **error)
{
  guint sets = 0;
  if (!sim_memsys_check_level (spec, &sets, NULL, error))
    {
      g_prefix_error (error, "cache %s: ", spec->name ? spec->name : "?");
      return FALSE;
    }
  L->sets = sets;
  L->ways = spec->ways;
  L->line_shift = (guint) g_bit_nth_lsf (spec->line, -1);
  L->set_mask = L->sets - 1;
  L->repl = spec->replacement;
  L->incl = spec->inclusion;
  L->latency = spec->latency;
  L->n_inst = n_inst;
  gsize n = (gsize) n_inst * L->sets * L->ways;
  L->tag = big_alloc0 (n * sizeof (guint64));
  L->st = L->tag ? big_alloc0 (2 * n) : NULL;
  if (L->repl == SIM_REPL_PLRU && L->st)
    L->plru = g_try_new0 (guint64, (gsize) n_inst * L->sets);
  if (L->tag == NULL || L->st == NULL || (L->repl == SIM_REPL_PLRU && L->plru == NULL))
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_HOST_MEMORY,
                   "cache %s: the host cannot give the %" G_GUINT64_FORMAT " bytes of its "
                   "%u instance(s) x %u sets x %u ways", spec->name ? spec->name : "?",
                   (guint64) n * 10, n_inst, L->sets, L->ways);
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    L->tag[i] = NO_LINE;
  if (L->repl == SIM_REPL_PLRU)
    {
      plru_tab_init (L);
      L->way_shift = (guint) g_bit_nth_lsf (L->ways, -1);
    }
  return TRUE;
}

/* Full mode's LRU levels: every set starts with way i at rank i (all
 * empty, so any order would do; this one is the move-to-front order's). */
static void
level_init_ranks (Level *L)
{
  if (L->repl != SIM_REPL_LRU)
    return;
  L->ranked = TRUE;
  gsize n = (gsize) L->n_inst * L->sets * L->ways;
  for (gsize base = 0; base < n; base += L->ways)
    for (guint w = 0; w < L->ways; w++)
      RANK (L, base)[w] = (guint8) w;
}

static guint
inst_of_slow (const SimMemSys *ms, guint l, guint core)
{
  const Level *L = &ms->lv[l];
  if (L->private_)
    return core;
  guint cps = ms->m->cores_per_socket;
  return (core / cps) * L->inst_per_socket + (core % cps) / L->group;
}

static inline guint
inst_of (const SimMemSys *ms, guint l, guint core)
{
  return ms->inst_tab[l][core];
}

/* ---- Construction ------------------------------------------------------ */

static SimMemSys *
memsys_alloc (SimMemSysMode mode, guint n_cpus)
{
  SimMemSys *ms = g_new0 (SimMemSys, 1);
  ms->mode = mode;
  ms->n_cpus = n_cpus;
  ms->stats = g_new0 (SimCpuMemStats, n_cpus);
  ms->core_state = g_new0 (gpointer, n_cpus);
  return ms;
}

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
    if (!level_init (&ms->lv[l], &spec[l], 1, error))
      return NULL;
  return g_steal_pointer (&ms);
}

static guint
group_of_spec (const SimMachine *m, const SimCacheLevelSpec *s)
{
  if (s->shared_cores == 0 || s->shared_cores > m->cores_per_socket)
    return m->cores_per_socket;
  return s->shared_cores;
}

static guint
group_of_level (const SimMachine *m, const SimCacheLevelSpec *s)
{
  return s->shared_cores == 1 ? 1 : group_of_spec (m, s);
}

/* Instances of a level: one per core when private, else per group of a
 * socket (rounded up). */
static guint
n_inst_of_level (const SimMachine *m, const SimCacheLevelSpec *s)
{
  guint group = group_of_level (m, s);
  if (s->shared_cores == 1)
    return m->sockets * m->cores_per_socket;
  return m->sockets * ((m->cores_per_socket + group - 1) / group);
}

/* Slots of the directory (a power of two >= 1.5 x @lines). */
static guint
dir_bits_for (guint64 lines)
{
  guint bits = 4;
  while ((G_GUINT64_CONSTANT (1) << bits) < lines + lines / 2)
    bits++;
  return bits;
}

static gboolean
fault_at (SimMemSysFault *fault, int level, const char *key)
{
  if (fault)
    fault->level = level, fault->key = key;
  return FALSE;
}

gboolean
sim_memsys_check_machine (const SimMachine *m, guint64 *host_bytes, SimMemSysFault *fault,
                          GError **error)
{
  g_return_val_if_fail (m != NULL, FALSE);
  if (m->n_cpus == 0 || m->n_cpus > SIM_MACHINE_MAX_CPUS || m->cpus == NULL
      || m->sockets == 0 || m->cores_per_socket == 0
      || m->n_levels == 0 || m->n_levels > SIM_MACHINE_MAX_LEVELS)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "expected 1..%u CPUs, sockets, cores and 1..%u cache levels",
                   SIM_MACHINE_MAX_CPUS, SIM_MACHINE_MAX_LEVELS);
      return fault_at (fault, -1, NULL);
    }
  for (guint c = 0; c < m->n_cpus; c++)
    if (m->cpus[c].socket >= m->sockets || m->cpus[c].core >= m->cores_per_socket)
      {
        g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                     "CPU %u is placed outside the topology", c);
        return fault_at (fault, -1, NULL);
      }
  if (m->numa && m->node_bytes == 0)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "numa needs node_bytes > 0");
      return fault_at (fault, -1, NULL);
    }
  /* Private levels first, then shared ones whose groups nest; one line
   * size; the L1 filled on misses. */
  guint prev_group = 1, n_private = 0, n_dom = m->sockets * m->cores_per_socket;
  guint64 lines = 0, bytes = 0, level_lines[SIM_MACHINE_MAX_LEVELS] = { 0 };
  for (guint l = 0; l < m->n_levels; l++)
    {
      const SimCacheLevelSpec *s = &m->levels[l];
      const char *key = NULL;
      guint sets = 0;
      if (!sim_memsys_check_level (s, &sets, &key, error))
        return fault_at (fault, (int) l, key);
      guint group = group_of_level (m, s);
      if (s->shared_cores == 1)
        {
          if (n_private != l)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                           "a private level (shared: core) cannot follow a shared one: "
                           "private levels come first");
              return fault_at (fault, (int) l, "shared");
            }
          n_private++;
        }
      else if (l == 0 || group % prev_group)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                       l == 0 ? "the first level must be private (shared: core)"
                              : "groups of %u cores do not nest in the groups of %u of the "
                                "level before", group, prev_group);
          return fault_at (fault, (int) l, "shared");
        }
      if (l == 0 && s->inclusion == SIM_INCL_EXCLUSIVE)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                       "the first level cannot be exclusive: it is filled on every miss");
          return fault_at (fault, (int) l, "inclusion");
        }
      if (s->line != m->levels[0].line)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                       "line %u differs from the %u bytes of the first level",
                       s->line, m->levels[0].line);
          return fault_at (fault, (int) l, "line");
        }
      prev_group = group;
      guint n_inst = n_inst_of_level (m, s);
      if (s->shared_cores != 1)
        n_dom += n_inst;
      level_lines[l] = (guint64) n_inst * sets * s->ways;
      lines += level_lines[l];
      /* Tag, state byte and rank byte (kept by LRU levels only). */
      bytes += level_lines[l] * (sizeof (guint64) + 2);
      if (s->replacement == SIM_REPL_PLRU)
        bytes += (guint64) n_inst * sets * sizeof (guint64);
    }
  guint bits = dir_bits_for (lines);
  guint64 stride = 2 + (n_dom + 63) / 64;
  guint64 dir_bytes = bits < 58 ? (G_GUINT64_CONSTANT (1) << bits) * stride * sizeof (guint64)
                                : G_MAXUINT64;
  bytes = dir_bytes > G_MAXUINT64 - bytes ? G_MAXUINT64 : bytes + dir_bytes;
  if (host_bytes)
    *host_bytes = bytes;
  if (bytes > SIM_MEMSYS_MAX_HOST_BYTES)
    {
      guint big = 0;
      for (guint l = 1; l < m->n_levels; l++)
        if (level_lines[l] > level_lines[big])
          big = l;
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "the cache model would need %" G_GUINT64_FORMAT " MiB of host memory "
                   "for %" G_GUINT64_FORMAT " cache lines (at most %" G_GUINT64_FORMAT
                   " MiB); this level holds the most: %" G_GUINT64_FORMAT " lines in %u "
                   "instance(s)", bytes >> 20, lines, SIM_MEMSYS_MAX_HOST_BYTES >> 20,
                   level_lines[big], n_inst_of_level (m, &m->levels[big]));
      return fault_at (fault, (int) big, "size");
    }
  return TRUE;
}

SimMemSys *
sim_memsys_new (const SimMachine *m, GError **error)
{
  g_return_val_if_fail (m != NULL, NULL);
  SimMemSysFault fault = { -1, NULL };
  if (!sim_memsys_check_machine (m, NULL, &fault, error))
    {
      if (fault.level >= 0)
        g_prefix_error (error, "machine %s: cache %s: ", m->name ? m->name : "?",
                        m->levels[fault.level].name ? m->levels[fault.level].name : "?");
      else
        g_prefix_error (error, "machine %s: ", m->name ? m->name : "?");
      return NULL;
    }
  g_autoptr (SimMemSys) ms = memsys_alloc (SIM_MEMSYS_FULL, m->n_cpus);
  ms->m = m;
  ms->n_levels = m->n_levels;
  ms->n_cores = m->sockets * m->cores_per_socket;
  ms->n_private = 0;
  for (guint l = 0; l < m->n_levels; l++)
    {
      const SimCacheLevelSpec *s = &m->levels[l];
      guint group = group_of_level (m, s);
      if (s->shared_cores == 1)
        ms->n_private++;
      guint ips = (m->cores_per_socket + group - 1) / group;
      if (!level_init (&ms->lv[l], s, n_inst_of_level (m, s), error))
        {
          g_prefix_error (error, "machine %s: ", m->name ? m->name : "?");
          return NULL;
        }
      level_init_ranks (&ms->lv[l]);
      ms->lv[l].group = group;
      ms->lv[l].private_ = s->shared_cores == 1;
      ms->lv[l].inst_per_socket = ms->lv[l].private_ ? m->cores_per_socket : ips;
      sim_rng_init (&ms->lv[l].rng, m->seed, l);
    }
  ms->line_shift = ms->lv[0].line_shift;
  ms->inl2 = ms->n_private == 2 && ms->lv[1].incl != SIM_INCL_EXCLUSIVE;

  /* Domains: cores first, then every shared instance. */
  ms->n_dom = ms->n_cores;
  for (guint l = ms->n_private; l < ms->n_levels; l++)
    {
      ms->lv[l].dom_base = ms->n_dom;
      ms->n_dom += ms->lv[l].n_inst;
    }
  ms->dom_socket = g_new (guint, ms->n_dom);
  for (guint c = 0; c < ms->n_cores; c++)
    ms->dom_socket[c] = c / m->cores_per_socket;
  for (guint l = ms->n_private; l < ms->n_levels; l++)
    for (guint i = 0; i < ms->lv[l].n_inst; i++)
      ms->dom_socket[ms->lv[l].dom_base + i] = i / ms->lv[l].inst_per_socket;

  ms->core_of = g_new (guint, m->n_cpus);
  ms->cpu_of_core = g_new (guint, ms->n_cores);
  for (guint c = 0; c < ms->n_cores; c++)
    ms->cpu_of_core[c] = G_MAXUINT;
  for (guint c = 0; c < m->n_cpus; c++)
    {
      guint core = sim_machine_core_of (m, c);
      ms->core_of[c] = core;
      if (ms->cpu_of_core[core] == G_MAXUINT)
        ms->cpu_of_core[core] = c;
    }
  for (guint c = 0; c < ms->n_cores; c++)
    if (ms->cpu_of_core[c] == G_MAXUINT)
      ms->cpu_of_core[c] = 0;   /* a core without CPUs never holds lines */

  /* The directory never holds more lines than all caches together. */
  guint64 lines = 0;
  for (guint l = 0; l < ms->n_levels; l++)
    lines += (guint64) ms->lv[l].n_inst * ms->lv[l].sets * ms->lv[l].ways;
  ms->dir_bits = dir_bits_for (lines);
  guint64 cap = G_GUINT64_CONSTANT (1) << ms->dir_bits;
  ms->dir_cap_mask = cap - 1;
  ms->mask_words = (ms->n_dom + 63) / 64;
  ms->dir_stride = 2 + ms->mask_words;
  ms->dir = big_alloc0 (cap * ms->dir_stride * sizeof (guint64));
  if (ms->dir == NULL)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_HOST_MEMORY,
                   "machine %s: the host cannot give the %" G_GUINT64_FORMAT " bytes of "
                   "the coherence directory (%" G_GUINT64_FORMAT " slots)",
                   m->name ? m->name : "?", cap * ms->dir_stride * sizeof (guint64), cap);
      return NULL;
    }
  for (guint64 i = 0; i < cap; i++)
    ms->dir[i * ms->dir_stride] = NO_LINE;
  ms->path = g_new0 (guint64, (gsize) ms->n_cores * ms->mask_words);
  for (guint c = 0; c < ms->n_cores; c++)
    for (guint l = ms->n_private; l < ms->n_levels; l++)
      {
        guint d = ms->lv[l].dom_base + inst_of_slow (ms, l, c);
        ms->path[(gsize) c * ms->mask_words + d / 64] |= G_GUINT64_CONSTANT (1) << (d % 64);
      }
  /* Instance of every level for every core, so the hot path never divides. */
  for (guint l = 0; l < ms->n_levels; l++)
    {
      ms->inst_tab[l] = g_new (guint, ms->n_cores);
      for (guint c = 0; c < ms->n_cores; c++)
        ms->inst_tab[l][c] = inst_of_slow (ms, l, c);
    }
  return g_steal_pointer (&ms);
}

void
sim_memsys_free (SimMemSys *ms)
{
  if (ms == NULL)
    return;
  for (guint l = 0; l < ms->n_levels; l++)
    {
      big_free (ms->lv[l].tag);
      big_free (ms->lv[l].st);
      g_free (ms->lv[l].plru);
      g_free (ms->lv[l].plru_tab);
    }
  g_free (ms->core_of);
  g_free (ms->cpu_of_core);
  g_free (ms->dom_socket);
  g_free (ms->path);
  g_free (ms->stats);
  if (ms->core_state)
    for (guint c = 0; c < ms->n_cpus; c++)
      g_free (ms->core_state[c]);
  g_free (ms->core_state);
  big_free (ms->dir);
  for (guint l = 0; l < ms->n_levels; l++)
    g_free (ms->inst_tab[l]);
  g_free (ms);
}

SimMemSysMode
sim_memsys_mode (const SimMemSys *ms)
{
  return ms->mode;
}

guint
sim_memsys_n_cpus (const SimMemSys *ms)
{
  return ms->n_cpus;
}

guint
sim_memsys_n_levels (const SimMemSys *ms)
{
  return ms->n_levels;
}

const SimMachine *
sim_memsys_machine (const SimMemSys *ms)
{
  return ms->m;
}

const SimCoreSpec *
sim_memsys_core (const SimMemSys *ms)
{
  /* A machine built in code rather than loaded (tests) leaves core zeroed:
   * it gets the serial model too. */
  return ms->m && ms->m->core.cpi_milli ? &ms->m->core : sim_core_spec_serial ();
}

gpointer *
sim_memsys_core_slot (SimMemSys *ms, guint cpu)
{
  g_return_val_if_fail (cpu < ms->n_cpus, NULL);
  return &ms->core_state[cpu];
}

guint
sim_memsys_hit_latency (const SimMemSys *ms)
{
  return ms->n_levels ? ms->lv[0].latency : 0;
}

void
sim_memsys_level_geometry (const SimMemSys *ms, guint l, guint64 *size, guint *ways,
                           guint *line)
{
  g_return_if_fail (l < ms->n_levels);
  const Level *L = &ms->lv[l];
  *size = (guint64) L->sets * L->ways << L->line_shift;
  *ways = L->ways;
  *line = 1u << L->line_shift;
}

gboolean
sim_memsys_holds (const SimMemSys *ms, guint cpu, guint l, guint64 addr)
{
  g_return_val_if_fail (cpu < ms->n_cpus && l < ms->n_levels, FALSE);
  const Level *L = &ms->lv[l];
  guint inst = ms->mode == SIM_MEMSYS_CACHEGRIND ? 0 : inst_of (ms, l, ms->core_of[cpu]);
  guint64 block = addr >> L->line_shift;
  return find_way (L, set_base (L, inst, block), block) >= 0;
}

const SimCpuMemStats *
sim_memsys_cpu_stats (const SimMemSys *ms, guint cpu)
{
  g_return_val_if_fail (cpu < ms->n_cpus, NULL);
  return &ms->stats[cpu];
}

void
sim_memsys_total_stats (const SimMemSys *ms, SimCpuMemStats *out)
{
  /* Every field is a guint64 counter, so the struct sums as an array. */
  G_STATIC_ASSERT (sizeof (SimCpuMemStats) % sizeof (guint64) == 0);
  memset (out, 0, sizeof *out);
  guint64 *o = (guint64 *) out;
  for (guint c = 0; c < ms->n_cpus; c++)
    {
      const guint64 *s = (const guint64 *) &ms->stats[c];
      for (gsize i = 0; i < sizeof *out / sizeof (guint64); i++)
        o[i] += s[i];
    }
}

guint
sim_memsys_home_node (const SimMemSys *ms, guint64 addr)
{
  const SimMachine *m = ms->m;
  if (m == NULL || m->sockets <= 1)
    return 0;
  if (m->numa)
    return (guint) ((addr / m->node_bytes) % m->sockets);
  return (guint) ((addr >> 12) % m->sockets);
}

const char *
sim_mem_class_name (SimMemClass cls)
{
  static const char *const names[SIM_MEM_N_CLASSES] = {
    "other", "cpu_slab", "cache_meta", "struct_page", "freeptr", "object",
    "lock", "page_alloc",
  };
  return (guint) cls < SIM_MEM_N_CLASSES ? names[cls] : "?";
}

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

static guint32
cg_access (SimMemSys *ms, guint64 addr, guint32 size, SimAccKind kind,
           SimMemClass cls)
{
  cg_apply (ms, addr, size, kind, cls, 0, 0);
  return 0;
}

/* Cachegrind mode's two sets of @addr. */
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

/* A batch in Cachegrind mode, with the levels' ways @n1, @n2 as constants
 * (or 0).  The refs' CPU fields are not looked at: one CPU, as under
 * Cachegrind. */
static ALWAYS_INLINE void
cg_refs (SimMemSys *ms, const SimMemRef *refs, gsize n, guint n1, guint n2)
{
  for (gsize i = 0; i < n; i++)
    {
      if (i + REFS_AHEAD < n)
        cg_prefetch (ms, refs[i + REFS_AHEAD].addr);
      const SimMemRef *r = &refs[i];
      g_return_if_fail (r->kind < SIM_ACC_N);
      cg_apply (ms, r->addr, r->size, (SimAccKind) r->kind, SIM_MEM_OTHER, n1, n2);
    }
}

/* ---- Directory --------------------------------------------------------- */

/* Neighbouring lines get neighbouring slots: the hash scatters chunks of
 * 2^DIR_CHUNK_BITS lines and keeps the lines of a chunk in order, so that
 * the live entries of a working set share host cache lines (24-byte
 * entries) instead of taking one host line each. */
#define DIR_CHUNK_BITS 3

static inline guint64
dir_hash (const SimMemSys *ms, guint64 block)
{
  guint64 chunk = block >> DIR_CHUNK_BITS;
  guint64 h = (chunk * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15))
              >> (64 - (ms->dir_bits - DIR_CHUNK_BITS));
  return (h << DIR_CHUNK_BITS) | (block & ((1u << DIR_CHUNK_BITS) - 1));
}

static inline guint64 *
dir_bits_of (SimMemSys *ms, DirEnt *e)
{
  (void) ms;
  return e->mask;
}

static inline DirEnt *
dir_at (SimMemSys *ms, guint64 i)
{
  return (DirEnt *) (ms->dir + i * ms->dir_stride);
}

static DirEnt *
dir_find (SimMemSys *ms, guint64 block)
{
  guint64 i = dir_hash (ms, block);
  for (;;)
    {
      DirEnt *e = dir_at (ms, i);
      if (e->block == block)
        return e;
      if (e->block == NO_LINE)
        return NULL;
      i = (i + 1) & ms->dir_cap_mask;
    }
}

static DirEnt *
dir_get (SimMemSys *ms, guint64 block)
{
  guint64 i = dir_hash (ms, block);
  for (;;)
    {
      DirEnt *e = dir_at (ms, i);
      if (e->block == block)
        return e;
      if (e->block == NO_LINE)
        {
          /* Sized for every cache line at once; more means a lost update,
           * and probing a full table would never end. */
          if (G_UNLIKELY (++ms->dir_count > ms->dir_cap_mask))
            g_error ("memsys: directory overflow (a line was not removed)");
          e->block = block;
          e->owner = -1;
          e->fwd = -1;
          return e;
        }
      i = (i + 1) & ms->dir_cap_mask;
    }
}

static void
dir_delete (SimMemSys *ms, DirEnt *e)
{
  guint64 i = (guint64) ((guint64 *) e - ms->dir) / ms->dir_stride, j = i;
  guint64 mask = ms->dir_cap_mask;
  gsize bytes = ms->dir_stride * sizeof (guint64);
  for (;;)
    {
      j = (j + 1) & mask;
      DirEnt *ej = dir_at (ms, j);
      if (ej->block == NO_LINE)
        break;
      guint64 k = dir_hash (ms, ej->block);
      /* Move j back into the hole at i unless its home lies in (i, j]. */
      gboolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays)
        continue;
      memcpy (dir_at (ms, i), ej, bytes);
      i = j;
    }
  memset (dir_at (ms, i), 0, bytes);
  dir_at (ms, i)->block = NO_LINE;
  ms->dir_count--;
}

static inline gboolean
bit_test (const guint64 *b, guint d)
{
  return (b[d >> 6] >> (d & 63)) & 1;
}

static inline void
bit_set (guint64 *b, guint d)
{
  b[d >> 6] |= G_GUINT64_CONSTANT (1) << (d & 63);
}

static inline void
bit_clear (guint64 *b, guint d)
{
  b[d >> 6] &= ~(G_GUINT64_CONSTANT (1) << (d & 63));
}

static gboolean
bits_empty (const SimMemSys *ms, const guint64 *b)
{
  for (guint i = 0; i < ms->mask_words; i++)
    if (b[i])
      return FALSE;
  return TRUE;
}

/* Drop @dom from the holders of @block; deletes the entry when nobody
 * holds the line any more. */
static void
dir_drop (SimMemSys *ms, guint64 block, guint dom)
{
  DirEnt *e = dir_find (ms, block);
  if (e == NULL)
    return;
  guint64 *b = dir_bits_of (ms, e);
  bit_clear (b, dom);
  if (e->owner == (gint32) dom)
    e->owner = -1;
  if (e->fwd == (gint32) dom)
    e->fwd = -1;
  if (bits_empty (ms, b))
    dir_delete (ms, e);
}


/* ---- Full mode: moving lines ------------------------------------------- */

static void insert_line (SimMemSys *ms, guint l, guint inst, guint64 block,
                         guint8 bits, guint cpu);
static void victim_fill (SimMemSys *ms, guint l, guint inst, guint64 block,
                         guint8 bits, guint cpu);

/* Does @core still hold @block in any private level? */
static gboolean
core_holds (const SimMemSys *ms, guint core, guint64 block)
{
  for (guint l = 0; l < ms->n_private; l++)
    if (find_way (&ms->lv[l], set_base (&ms->lv[l], core, block), block) >= 0)
      return TRUE;
  return FALSE;
}

/* The union of @core's private copies' state bits (EXCL is the same in
 * every copy; DIRTY may sit in any of them). */
static guint8
core_bits (const SimMemSys *ms, guint core, guint64 block)
{
  guint8 bits = 0;
  for (guint l = 0; l < ms->n_private; l++)
    {
      const Level *L = &ms->lv[l];
      gsize base = set_base (L, core, block);
      int w = find_way (L, base, block);
      if (w >= 0)
        bits |= ST (L, base)[w];
    }
  return bits;
}

static void
core_update_bits (SimMemSys *ms, guint core, guint64 block, guint8 clear, guint8 set)
{
  for (guint l = 0; l < ms->n_private; l++)
    {
      Level *L = &ms->lv[l];
      gsize base = set_base (L, core, block);
      int w = find_way (L, base, block);
      if (w >= 0)
        ST (L, base)[w] = (guint8) ((ST (L, base)[w] & ~clear) | set);
    }
}

/* Remove @block from every private level of @core; returns whether any copy
 * was dirty.  Leaves the directory alone. */
static gboolean
core_purge (SimMemSys *ms, guint core, guint64 block)
{
  gboolean dirty = FALSE;
  for (guint l = 0; l < ms->n_private; l++)
    {
      Level *L = &ms->lv[l];
      gsize base = set_base (L, core, block);
      int w = find_way (L, base, block);
      if (w >= 0)
        {
          dirty |= (ST (L, base)[w] & ST_DIRTY) != 0;
          remove_way (L, base, (guint) w);
        }
    }
  return dirty;
}

/* Remove @block from shared instance @inst of level @l; returns dirtiness
 * (-1 if it was not there). */
static int
shared_purge (SimMemSys *ms, guint l, guint inst, guint64 block)
{
  Level *L = &ms->lv[l];
  gsize base = set_base (L, inst, block);
  int w = find_way (L, base, block);
  if (w < 0)
    return -1;
  int dirty = (ST (L, base)[w] & ST_DIRTY) != 0;
  remove_way (L, base, (guint) w);
  return dirty;
}

/* Domain @dom -> (level, instance) for shared domains. */
static guint
dom_level (const SimMemSys *ms, guint dom, guint *inst)
{
  for (guint l = ms->n_levels - 1; l >= ms->n_private; l--)
    if (dom >= ms->lv[l].dom_base)
      {
        *inst = dom - ms->lv[l].dom_base;
        return l;
      }
  g_assert_not_reached ();
}

/* A dirty line leaving level @l of @core's path (core = G_MAXUINT for a
 * shared instance's own path, given by @inst at level @l): mark the next copy
 * outwards dirty, or it reaches DRAM.  Returns the level of that copy
 * (n_levels for DRAM). */
static guint
push_dirty_out (SimMemSys *ms, guint l, guint core, guint inst, guint64 block)
{
  for (guint j = l + 1; j < ms->n_levels; j++)
    {
      Level *L = &ms->lv[j];
      guint i = core != G_MAXUINT ? inst_of (ms, j, core)
                                  : inst / (L->group / ms->lv[l].group);
      gsize base = set_base (L, i, block);
      int w = find_way (L, base, block);
      if (w >= 0)
        {
          ST (L, base)[w] |= ST_DIRTY;
          return j;
        }
    }
  return ms->n_levels;
}

/* After a core's private copy left level @gone, fix ownership: a
 * socket-level copy on the core's path takes over if the core owned the
 * line.  Level @gone is not searched again: the line has just left it. */
static void
core_lost_line (SimMemSys *ms, guint core, guint64 block, guint gone)
{
  for (guint l = 0; l < ms->n_private; l++)
    {
      if (l == gone)
        continue;
      Level *L = &ms->lv[l];
      gsize base = set_base (L, core, block);
      int w = find_way (L, base, block);
      if (w >= 0)
        {
          if (gone == 1 && ms->inl2)   /* l is 0: its copy is no longer in L2 */
            ST (L, base)[w] &= (guint8) ~ST_INL2;
          return;
        }
    }
  DirEnt *e = dir_find (ms, block);
  if (e == NULL)
    return;
  guint64 *b = dir_bits_of (ms, e);
  gboolean owned = e->owner == (gint32) core;
  bit_clear (b, core);
  if (e->fwd == (gint32) core)
    e->fwd = -1;
  if (owned)
    {
      e->owner = -1;
      for (guint l = ms->n_private; l < ms->n_levels; l++)
        {
          guint d = ms->lv[l].dom_base + inst_of (ms, l, core);
          if (bit_test (b, d))
            {
              e->owner = (gint32) d;
              break;
            }
        }
    }
  if (bits_empty (ms, b))
    dir_delete (ms, e);
}

/* An inclusive level @l evicted @block from instance @inst: every copy
 * above it within its scope goes.  Returns whether one was dirty. */
static gboolean
back_invalidate (SimMemSys *ms, guint l, guint inst, guint64 block)
{
  gboolean dirty = FALSE;
  const Level *L = &ms->lv[l];
  if (L->private_)
    {
      gboolean hit = FALSE;
      for (guint j = 0; j < l; j++)
        {
          Level *U = &ms->lv[j];
          gsize base = set_base (U, inst, block);
          int w = find_way (U, base, block);
          if (w >= 0)
            {
              dirty |= (ST (U, base)[w] & ST_DIRTY) != 0;
              remove_way (U, base, (guint) w);
              hit = TRUE;
            }
        }
      if (hit)
        ms->stats[ms->cpu_of_core[inst]].back_invalidations++;
      return dirty;
    }
  DirEnt *e = dir_find (ms, block);
  if (e == NULL)
    return FALSE;
  guint64 *b = dir_bits_of (ms, e);
  guint cps = ms->m->cores_per_socket;
  guint socket = inst / L->inst_per_socket;
  guint first = socket * cps + (inst % L->inst_per_socket) * L->group;
  for (guint c = first; c < first + L->group && c < (socket + 1) * cps; c++)
    if (bit_test (b, c))
      {
        dirty |= core_purge (ms, c, block);
        bit_clear (b, c);
        if (e->owner == (gint32) c)
          e->owner = -1;
        if (e->fwd == (gint32) c)
          e->fwd = -1;
        ms->stats[ms->cpu_of_core[c]].back_invalidations++;
      }
  for (guint j = ms->n_private; j < l; j++)
    {
      guint ratio = L->group / ms->lv[j].group;
      for (guint i = inst * ratio; i < (inst + 1) * ratio && i < ms->lv[j].n_inst; i++)
        {
          guint d = ms->lv[j].dom_base + i;
          if (!bit_test (b, d))
            continue;
          int dd = shared_purge (ms, j, i, block);
          dirty |= dd > 0;
          bit_clear (b, d);
          if (e->owner == (gint32) d)
            e->owner = -1;
        }
    }
  return dirty;
}

/* A valid line (@block, @bits) was evicted from instance @inst of level
 * @l.  @cpu is the requester whose access caused it. */
static G_GNUC_NO_INLINE void
evict (SimMemSys *ms, guint l, guint inst, guint64 block, guint8 bits, guint cpu)
{
  Level *L = &ms->lv[l];
  gboolean dirty = (bits & ST_DIRTY) != 0;
  if (L->incl == SIM_INCL_INCLUSIVE && l > 0)
    dirty |= back_invalidate (ms, l, inst, block);
  if (L->private_)
    {
      guint core = inst;
      if (dirty)
        ms->stats[cpu].level[l].writebacks++;
      if (l + 1 < ms->n_levels && ms->lv[l + 1].incl == SIM_INCL_EXCLUSIVE)
        {
          /* The victim level takes every line the level above drops. */
          guint ni = inst_of (ms, l + 1, core);
          guint8 nb = (guint8) (dirty ? ST_DIRTY : 0);
          if (ms->lv[l + 1].private_)
            nb |= bits & ST_EXCL;
          else
            {
              DirEnt *e = dir_get (ms, block);
              bit_set (dir_bits_of (ms, e), ms->lv[l + 1].dom_base + ni);
            }
          victim_fill (ms, l + 1, ni, block, nb, cpu);
        }
      else if (dirty && push_dirty_out (ms, l, core, 0, block) < ms->n_private)
        return;   /* our own next private level took it: the core still holds it */
      core_lost_line (ms, core, block, l);
      return;
    }
  /* Shared instance. */
  if (dirty)
    ms->stats[cpu].level[l].writebacks++;
  guint dom = L->dom_base + inst;
  if (l + 1 < ms->n_levels && ms->lv[l + 1].incl == SIM_INCL_EXCLUSIVE)
    {
      guint ni = inst / (ms->lv[l + 1].group / L->group);
      DirEnt *e = dir_get (ms, block);
      bit_set (dir_bits_of (ms, e), ms->lv[l + 1].dom_base + ni);
      if (e->owner == (gint32) dom)
        e->owner = (gint32) (ms->lv[l + 1].dom_base + ni);
      victim_fill (ms, l + 1, ni, block, (guint8) (dirty ? ST_DIRTY : 0), cpu);
    }
  else if (dirty)
    push_dirty_out (ms, l, G_MAXUINT, inst, block);
  dir_drop (ms, block, dom);
}

/* A victim arriving at an exclusive level that another core's victim may
 * already have put there: merge instead of holding the line twice. */
static void
victim_fill (SimMemSys *ms, guint l, guint inst, guint64 block, guint8 bits, guint cpu)
{
  Level *L = &ms->lv[l];
  gsize base = set_base (L, inst, block);
  int w = find_way (L, base, block);
  if (w >= 0)
    {
      ST (L, base)[w] |= bits;
      touch (L, base, (guint) w);
      return;
    }
  insert_line (ms, l, inst, block, bits, cpu);
}

/* Put @block into instance @inst of level @l (not present there), evicting
 * as needed.  The caller has already recorded the holder in the directory. */
static ALWAYS_INLINE void
insert_line_at (SimMemSys *ms, guint l, guint inst, gsize base, guint64 block, guint8 bits,
                guint cpu)
{
  Level *L = &ms->lv[l];
  guint w = victim_way (L, base);
  guint64 vb = L->tag[base + w];
  guint8 vbits = ST (L, base)[w];
  /* The new line replaces the victim before the victim is evicted: the
   * eviction may recurse into this level and must find the set whole. */
  L->tag[base + w] = block;
  ST (L, base)[w] = bits;
  if (L->repl != SIM_REPL_RANDOM)
    touch (L, base, w);
  /* Most L1 victims are clean and still in the core's L2: nothing changes,
   * and the (out-of-line) eviction is not called at all. */
  if (vb != NO_LINE && (l != 0 || (vbits & (ST_INL2 | ST_DIRTY)) != ST_INL2))
    evict (ms, l, inst, vb, vbits, cpu);
}

static ALWAYS_INLINE void
insert_line (SimMemSys *ms, guint l, guint inst, guint64 block, guint8 bits, guint cpu)
{
  insert_line_at (ms, l, inst, set_base (&ms->lv[l], inst, block), block, bits, cpu);
}

/* ---- Full mode: one line ------------------------------------------------ */

static guint
dram_latency (SimMemSys *ms, guint cpu, guint64 block, SimCpuMemStats *st)
{
  const SimMachine *m = ms->m;
  guint64 addr = block << ms->line_shift;
  guint node = sim_memsys_home_node (ms, addr);
  if (node == m->cpus[cpu].socket)
    st->dram_local++;
  else
    st->dram_remote++;
  if (!m->numa && m->sockets > 1)
    return (m->lat_dram_local + m->lat_dram_remote) / 2;
  return node == m->cpus[cpu].socket ? m->lat_dram_local : m->lat_dram_remote;
}

/* Is @dom one of @core's own shared instances? */
static inline gboolean
on_path (const SimMemSys *ms, guint core, guint dom)
{
  return bit_test (ms->path + (gsize) core * ms->mask_words, dom);
}

/* Invalidate every copy outside @core's path; returns whether one was in
 * another socket. */
static gboolean
invalidate_others (SimMemSys *ms, DirEnt *e, guint core, SimCpuMemStats *st)
{
  guint64 *b = dir_bits_of (ms, e);
  guint my_socket = ms->dom_socket[core];
  gboolean remote = FALSE;
  for (guint wi = 0; wi < ms->mask_words; wi++)
    {
      guint64 word = b[wi];
      while (word)
        {
          guint d = wi * 64 + (guint) __builtin_ctzll (word);
          word &= word - 1;
          if (d == core || on_path (ms, core, d))
            continue;
          remote |= ms->dom_socket[d] != my_socket;
          if (d < ms->n_cores)
            {
              core_purge (ms, d, e->block);
              st->invalidations_sent++;
              ms->stats[ms->cpu_of_core[d]].invalidations_received++;
            }
          else
            {
              guint inst;
              guint l = dom_level (ms, d, &inst);
              shared_purge (ms, l, inst, e->block);
            }
          bit_clear (b, d);
        }
    }
  e->owner = -1;
  e->fwd = -1;
  return remote;
}

static guint
access_slow (SimMemSys *ms, guint cpu, guint core, guint64 block,
             SimAccKind kind, SimMemClass cls, int l1_way, gsize l1_base)
{
  const SimMachine *m = ms->m;
  SimCpuMemStats *st = &ms->stats[cpu];
  gboolean write = kind != SIM_ACC_READ;
  int hit = -1;                 /* level of our own path holding the line */
  guint8 hit_bits = 0;
  gsize hit_base = 0;           /* and where: coherence actions below never */
  guint hit_way = 0;            /* move lines in our own path's sets */
  /* Every level's set on the core's path (filled below the hit level). */
  gsize bases[SIM_MACHINE_MAX_LEVELS];
  bases[0] = l1_base;

  if (l1_way >= 0)
    {
      hit = 0;
      hit_base = l1_base;
      hit_way = (guint) l1_way;
      hit_bits = ST (&ms->lv[0], hit_base)[hit_way];
    }
  else
    {
      st->level[0].misses[kind]++;
      st->class_misses[cls][0]++;
      /* The outer tag sets are likely host-cache misses: start them all
       * now so that they overlap. */
      for (guint l = 1; l < ms->n_levels; l++)
        {
          const Level *L = &ms->lv[l];
          bases[l] = set_base (L, inst_of (ms, l, core), block);
          __builtin_prefetch (L->tag + bases[l]);
        }
      for (guint l = 1; l < ms->n_levels; l++)
        {
          Level *L = &ms->lv[l];
          gsize base = bases[l];
          /* Only a miss in every private level needs the directory (most
           * private misses hit the next private level): fetch its slot
           * when the first shared level is probed, overlapping the two. */
          if (l == ms->n_private)
            __builtin_prefetch (dir_at (ms, dir_hash (ms, block)));
          st->level[l].accesses[kind]++;
          int w = find_way (L, base, block);
          if (w >= 0)
            {
              hit = (int) l;
              hit_base = base;
              hit_way = (guint) w;
              hit_bits = ST (L, base)[w];
              break;
            }
          st->level[l].misses[kind]++;
          st->class_misses[cls][l]++;
          /* The fill will evict this set's LRU line; its directory entry
           * and next set are cold, so fetch them while we go on. */
          guint64 v = L->repl == SIM_REPL_LRU ? L->tag[base + lru_victim (L, base)]
                                              : NO_LINE;
          if (v != NO_LINE && l + 1 >= ms->n_private)
            {
              __builtin_prefetch (dir_at (ms, dir_hash (ms, v)));
              if (l + 1 < ms->n_levels)
                {
                  const Level *N = &ms->lv[l + 1];
                  __builtin_prefetch (N->tag + set_base (N, inst_of (ms, l + 1, core), v));
                }
            }
        }
    }

  guint lat;
  gboolean private_hit = hit >= 0 && ms->lv[hit].private_;
  gboolean excl = FALSE;
  /* The directory entry of @block while it is known not to have moved
   * (nothing inserted or deleted since): the first shared fill uses it
   * instead of looking it up again. */
  DirEnt *fill_e = NULL;

  if (private_hit && (!write || (hit_bits & ST_EXCL)))
    {
      /* Our own private caches have it with permission. */
      lat = ms->lv[hit].latency;
      excl = (hit_bits & ST_EXCL) != 0;
    }
  else if (private_hit)
    {
      /* Upgrade from S/O/F: invalidations, no data. */
      DirEnt *e = dir_get (ms, block);
      gboolean remote = invalidate_others (ms, e, core, st);
      bit_set (dir_bits_of (ms, e), core);
      e->owner = (gint32) core;
      if (remote)
        lat = m->lat_remote_clean;
      else if (ms->n_private < ms->n_levels)
        lat = ms->lv[ms->n_private].latency;
      else
        lat = ms->lv[hit].latency;
      core_update_bits (ms, core, block, 0, ST_EXCL);
      excl = TRUE;
    }
  else
    {
      /* Not in our private caches: ask the directory who has it. */
      DirEnt *e = dir_get (ms, block);
      guint64 *b = dir_bits_of (ms, e);
      guint my_socket = ms->dom_socket[core];
      gint32 owner = e->owner;
      gboolean owner_dirty = FALSE, owner_excl = FALSE, supplies = FALSE;
      if (owner >= 0 && !on_path (ms, core, (guint) owner))
        {
          guint od = (guint) owner;
          if (od < ms->n_cores)
            {
              guint8 ob = core_bits (ms, od, block);
              owner_dirty = (ob & ST_DIRTY) != 0;
              owner_excl = (ob & ST_EXCL) != 0;
            }
          else
            {
              guint inst;
              guint ol = dom_level (ms, od, &inst);
              const Level *O = &ms->lv[ol];
              gsize base = set_base (O, inst, block);
              int w = find_way (O, base, block);
              owner_dirty = w >= 0 && (ST (O, base)[w] & ST_DIRTY);
            }
          /* A copy on our own path is current unless the owner may have
           * written since (E/M); under MOESI the O owner always supplies. */
          supplies = hit < 0 || owner_excl
                     || (m->coherence == SIM_COH_MOESI && owner_dirty);
        }
      if (supplies)
        {
          guint od = (guint) owner;
          gboolean local = ms->dom_socket[od] == my_socket;
          if (local)
            lat = owner_dirty ? m->lat_local_hitm : m->lat_local_clean;
          else
            {
              lat = owner_dirty ? m->lat_remote_hitm : m->lat_remote_clean;
              st->cross_socket++;
            }
          if (owner_dirty)
            st->hitm++;
        }
      else if (hit >= 0)
        lat = ms->lv[hit].latency;
      else
        {
          /* Clean copies elsewhere: another cache of our socket supplies;
           * another socket supplies only through its MESIF forwarder. */
          gboolean local = FALSE;
          for (guint wi = 0; wi < ms->mask_words && !local; wi++)
            {
              guint64 word = b[wi];
              while (word)
                {
                  guint d = wi * 64 + (guint) __builtin_ctzll (word);
                  word &= word - 1;
                  if (ms->dom_socket[d] == my_socket && d != core)
                    {
                      local = TRUE;
                      break;
                    }
                }
            }
          if (local)
            lat = m->lat_local_clean;
          else if (m->coherence == SIM_COH_MESIF && e->fwd >= 0)
            {
              lat = m->lat_remote_clean;
              st->cross_socket++;
            }
          else
            lat = dram_latency (ms, cpu, block, st);
        }

      if (write)
        {
          invalidate_others (ms, e, core, st);
          excl = TRUE;
        }
      else
        {
          if (supplies)
            {
              /* The owner is downgraded. */
              guint od = (guint) owner;
              gboolean keep = m->coherence == SIM_COH_MOESI && owner_dirty;
              if (od < ms->n_cores)
                {
                  core_update_bits (ms, od, block,
                                    (guint8) (ST_EXCL | (keep ? 0 : ST_DIRTY)), 0);
                  if (owner_dirty && !keep)
                    {
                      /* Written back to the owner's shared level, which then
                       * holds the socket's dirty copy, or to DRAM. */
                      ms->stats[ms->cpu_of_core[od]].level[ms->n_private - 1].writebacks++;
                      e->owner = -1;
                      for (guint l = ms->n_private; l < ms->n_levels; l++)
                        {
                          guint i = inst_of (ms, l, od);
                          if (bit_test (b, ms->lv[l].dom_base + i))
                            {
                              Level *S = &ms->lv[l];
                              gsize base = set_base (S, i, block);
                              int w = find_way (S, base, block);
                              if (w >= 0)
                                ST (S, base)[w] |= ST_DIRTY;
                              e->owner = (gint32) (S->dom_base + i);
                              break;
                            }
                        }
                    }
                  else if (!keep)
                    e->owner = -1;
                }
              else if (!keep)
                {
                  if (owner_dirty)
                    {
                      guint inst;
                      guint ol = dom_level (ms, od, &inst);
                      Level *O = &ms->lv[ol];
                      gsize base = set_base (O, inst, block);
                      int w = find_way (O, base, block);
                      if (w >= 0)
                        ST (O, base)[w] &= (guint8) ~ST_DIRTY;
                      ms->stats[cpu].level[ol].writebacks++;
                    }
                  e->owner = -1;
                }
            }
          /* Exclusive if nobody outside our own path holds it. */
          excl = TRUE;
          for (guint wi = 0; wi < ms->mask_words && excl; wi++)
            {
              guint64 word = b[wi];
              while (word)
                {
                  guint d = wi * 64 + (guint) __builtin_ctzll (word);
                  word &= word - 1;
                  if (d != core && !on_path (ms, core, d))
                    {
                      excl = FALSE;
                      break;
                    }
                }
            }
        }
      bit_set (b, core);
      if (excl)
        {
          e->owner = (gint32) core;
          e->fwd = -1;
        }
      else if (m->coherence == SIM_COH_MESIF)
        e->fwd = (gint32) core;
      fill_e = e;
    }

  /* Fill: the levels between the core and the one that served it. */
  guint top = hit >= 0 ? (guint) hit : ms->n_levels;
  guint8 dirty_from_hit = 0;
  /* An L1 fill follows an L2 hit or an L2 fill (inl2 rules out a victim L2),
   * and nothing in between takes the line out of L2. */
  guint8 inl2 = ms->inl2 ? ST_INL2 : 0;
  if (hit > 0 && ms->lv[hit].incl == SIM_INCL_EXCLUSIVE)
    {
      /* A victim level gives the line up to the level above. */
      Level *H = &ms->lv[hit];
      guint inst = inst_of (ms, (guint) hit, core);
      dirty_from_hit = ST (H, hit_base)[hit_way] & ST_DIRTY;
      remove_way (H, hit_base, hit_way);
      if (!H->private_)
        {
          DirEnt *e = fill_e ? fill_e : dir_find (ms, block);
          if (e)
            {
              bit_clear (dir_bits_of (ms, e), H->dom_base + inst);
              if (e->owner == (gint32) (H->dom_base + inst))
                e->owner = (gint32) core;
            }
        }
    }
  else if (hit >= 0)
    {
      Level *H = &ms->lv[hit];
      if (hit == 0 && write)
        ST (H, hit_base)[hit_way] |= ST_DIRTY | ST_EXCL;
      touch (H, hit_base, hit_way);
    }
  for (guint l = top; l-- > 0;)
    {
      Level *L = &ms->lv[l];
      if (l > 0 && L->incl == SIM_INCL_EXCLUSIVE)
        continue;
      guint inst = inst_of (ms, l, core);
      guint8 bits = 0;
      if (L->private_)
        bits = (guint8) ((excl ? ST_EXCL : 0)
                         | (l == 0 ? (write ? ST_DIRTY : 0) | dirty_from_hit | inl2 : 0));
      else
        {
          DirEnt *e = fill_e ? fill_e : dir_get (ms, block);
          bit_set (dir_bits_of (ms, e), L->dom_base + inst);
        }
      insert_line_at (ms, l, inst, bases[l], block, bits, cpu);
      fill_e = NULL;   /* the eviction may have moved entries */
    }
  return lat;
}

static inline guint32
access_line (SimMemSys *ms, guint cpu, guint64 block, SimAccKind kind, SimMemClass cls)
{
  guint core = ms->core_of[cpu];
  Level *L = &ms->lv[0];
  gsize base = set_base (L, core, block);
  ms->stats[cpu].level[0].accesses[kind]++;
  int w = find_way (L, base, block);
  if (G_LIKELY (w >= 0))
    {
      guint8 s = ST (L, base)[w];
      if (kind == SIM_ACC_READ || (s & ST_EXCL))
        {
          /* The fast path: a hit with permission; E -> M is silent. */
          if (kind != SIM_ACC_READ)
            ST (L, base)[w] = s | ST_DIRTY;
          /* A hit on LRU's most recent way changes no rank (the touch
           * returns at once); PLRU must still point its tree away from
           * the way just used. */
          touch (L, base, (guint) w);
          return L->latency;
        }
    }
  return access_slow (ms, cpu, core, block, kind, cls, w, base);
}

/* An access straddling lines: kept out of line, so that the common
 * one-line access needs no loop state. */
static G_GNUC_NO_INLINE guint32
access_straddle (SimMemSys *ms, guint cpu, guint64 b1, guint64 b2, SimAccKind kind,
                 SimMemClass cls)
{
  guint32 lat = access_line (ms, cpu, b1, kind, cls);
  for (guint64 b = b1 + 1; b <= b2; b++)
    {
      guint32 l = access_line (ms, cpu, b, kind, cls);   /* not inside MAX() */
      lat = MAX (lat, l);
    }
  ms->stats[cpu].cycles += lat;
  return lat;
}

guint32
sim_memsys_access_class (SimMemSys *ms, guint cpu, guint64 addr, guint32 size,
                         SimAccKind kind, SimMemClass cls)
{
  g_return_val_if_fail (ms != NULL && cpu < ms->n_cpus, 0);
  g_return_val_if_fail ((guint) kind < SIM_ACC_N && (guint) cls < SIM_MEM_N_CLASSES, 0);
  if (ms->mode == SIM_MEMSYS_CACHEGRIND)
    return cg_access (ms, addr, size, kind, cls);
  guint64 b1 = addr >> ms->line_shift;
  guint64 b2 = (addr + (size ? size - 1 : 0)) >> ms->line_shift;
  if (G_UNLIKELY (b2 != b1))
    return access_straddle (ms, cpu, b1, b2, kind, cls);
  guint32 lat = access_line (ms, cpu, b1, kind, cls);
  ms->stats[cpu].cycles += lat;
  return lat;
}

/* Every host line of one set's tags and state bytes. */
static inline void
prefetch_set (const Level *L, gsize base)
{
  const guint64 *t = L->tag + base;
  __builtin_prefetch (t);
  if (L->ways > 8)
    __builtin_prefetch (t + L->ways - 1);
  __builtin_prefetch (ST (L, base));
}

void
sim_memsys_prefetch (const SimMemSys *ms, guint cpu, guint64 addr)
{
  if (ms->mode == SIM_MEMSYS_CACHEGRIND)
    {
      cg_prefetch (ms, addr);
      return;
    }
  if (cpu >= ms->n_cpus)
    return;
  guint core = ms->core_of[cpu];
  guint64 block = addr >> ms->line_shift;
  for (guint l = 0; l < ms->n_levels; l++)
    prefetch_set (&ms->lv[l], set_base (&ms->lv[l], inst_of (ms, l, core), block));
  __builtin_prefetch (ms->dir + dir_hash (ms, block) * ms->dir_stride);
}

void
sim_memsys_access_refs (SimMemSys *ms, const SimMemRef *refs, gsize n)
{
  g_return_if_fail (ms != NULL && (refs != NULL || n == 0));
  if (ms->mode == SIM_MEMSYS_CACHEGRIND)
    {
      /* Cachegrind's default geometry (and --D1/--LL of the same ways) gets
       * its own copy of the loop with the ways as constants. */
      if (ms->lv[0].ways == 8 && ms->lv[1].ways == 16)
        cg_refs (ms, refs, n, 8, 16);
      else
        cg_refs (ms, refs, n, 0, 0);
      return;
    }
  for (gsize i = 0; i < n; i++)
    {
      if (i + REFS_AHEAD < n)
        sim_memsys_prefetch (ms, refs[i + REFS_AHEAD].cpu, refs[i + REFS_AHEAD].addr);
      const SimMemRef *r = &refs[i];
      sim_memsys_access_class (ms, r->cpu, r->addr, r->size, (SimAccKind) r->kind,
                               SIM_MEM_OTHER);
    }
}

guint32
sim_memsys_access (SimMemSys *ms, guint cpu, guint64 addr, guint32 size, SimAccKind kind)
{
  return sim_memsys_access_class (ms, cpu, addr, size, kind, SIM_MEM_OTHER);
}

/* ---- Invariants ---------------------------------------------------------- */


static gboolean
check_fail (GError **error, const char *what, guint64 block, guint dom)
{
  g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
               "memsys: line %#" G_GINT64_MODIFIER "x, domain %u: %s",
               block, dom, what);
  return FALSE;
}

/* One LRU set's ranks: each of 0..ways-1 once, and every empty way ranked
 * after every valid one (so the victim is an empty way while there is one). */
static gboolean
ranks_ok (const Level *L, gsize base)
{
  guint64 seen[4] = { 0 };   /* ways <= 255 */
  guint valid = 0;
  for (guint w = 0; w < L->ways; w++)
    {
      guint r = RANK (L, base)[w];
      if (r >= L->ways || (seen[r / 64] >> (r % 64)) & 1)
        return FALSE;
      seen[r / 64] |= G_GUINT64_CONSTANT (1) << (r % 64);
      valid += L->tag[base + w] != NO_LINE;
    }
  for (guint w = 0; w < L->ways; w++)
    if ((L->tag[base + w] != NO_LINE) != (RANK (L, base)[w] < valid))
      return FALSE;
  return TRUE;
}

gboolean
sim_memsys_check (const SimMemSys *ms, GError **error)
{
  if (ms->mode == SIM_MEMSYS_CACHEGRIND)
    return TRUE;
  SimMemSys *w = (SimMemSys *) ms;   /* lookups only; dir_find does not write */
  /* Every cached line is in the directory under its domain. */
  for (guint l = 0; l < ms->n_levels; l++)
    {
      const Level *L = &ms->lv[l];
      for (guint i = 0; i < L->n_inst; i++)
        for (guint set = 0; set < L->sets; set++)
          {
            if (L->ranked && !ranks_ok (L, ((gsize) i * L->sets + set) * L->ways))
              return check_fail (error, "LRU ranks of the set are not a permutation with "
                                 "the empty ways last", set, i);
            for (guint way = 0; way < L->ways; way++)
              {
                gsize k = ((gsize) i * L->sets + set) * L->ways + way;
                guint64 b = L->tag[k];
                if (b == NO_LINE)
                  continue;
                if ((b & L->set_mask) != set)
                  return check_fail (error, "line in the wrong set", b, i);
                guint dom = L->private_ ? i : L->dom_base + i;
                DirEnt *e = dir_find (w, b);
                if (e == NULL || !bit_test (e->mask, dom))
                  return check_fail (error, "cached but not in the directory", b, dom);
                if (L->private_ && (ST (L, k - way)[way] & ST_EXCL) && e->owner != (gint32) dom)
                  return check_fail (error, "exclusive copy but not the owner", b, dom);
                if (l == 0)
                  {
                    gboolean in_l2 = ms->inl2
                                     && find_way (&ms->lv[1], set_base (&ms->lv[1], i, b), b) >= 0;
                    if (((ST (L, k - way)[way] & ST_INL2) != 0) != in_l2)
                      return check_fail (error, "L1 copy's in-L2 bit is wrong", b, dom);
                  }
                else if (ST (L, k - way)[way] & ST_INL2)
                  return check_fail (error, "in-L2 bit outside L1", b, dom);
                for (guint way2 = way + 1; way2 < L->ways; way2++)
                  if (L->tag[k - way + way2] == b)
                    return check_fail (error, "line twice in one set", b, dom);
              }
          }
    }
  /* Every directory holder holds the line; owners hold it. */
  guint64 entries = 0;
  for (guint64 s = 0; s <= ms->dir_cap_mask; s++)
    {
      DirEnt *e = dir_at (w, s);
      if (e->block == NO_LINE)
        continue;
      entries++;
      gboolean any = FALSE;
      for (guint d = 0; d < ms->n_dom; d++)
        {
          if (!bit_test (e->mask, d))
            continue;
          any = TRUE;
          gboolean held;
          if (d < ms->n_cores)
            held = core_holds (ms, d, e->block);
          else
            {
              guint inst;
              guint l = dom_level (ms, d, &inst);
              const Level *L = &ms->lv[l];
              held = find_way (L, set_base (L, inst, e->block), e->block) >= 0;
            }
          if (!held)
            return check_fail (error, "directory holder without the line", e->block, d);
        }
      if (!any)
        return check_fail (error, "directory entry without holders", e->block, 0);
      if (e->owner >= 0 && !bit_test (e->mask, (guint) e->owner))
        return check_fail (error, "owner is not a holder", e->block, (guint) e->owner);
      if (dir_find (w, e->block) != e)
        return check_fail (error, "directory entry unreachable", e->block, 0);
    }
  if (entries != ms->dir_count)
    return check_fail (error, "directory entry count is off", 0, 0);
  return TRUE;
}
