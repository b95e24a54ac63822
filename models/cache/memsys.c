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
 * Cachegrind mode (caches.md §2.4, §2.5) is a separate small path in
 * memsys-cg.c: D1 and LL, LRU, no coherence, no write-backs, the LL looked
 * up only on a D1 miss, a straddling access one reference with at most one
 * miss per level.
 *
 * Files: this one holds the full mode's directory, line movement, access
 * path, entry points and invariant checker; memsys-internal.h the state and
 * the inline set primitives; memsys-build.c construction and queries;
 * memsys-cg.c Cachegrind mode.
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
 *  - Core-valid bits (Nehalem's own scheme): on a machine with one
 *    inclusive shared level per socket of at most 64 cores and no victim
 *    private level (SimMemSys.corevalid), a line that only one socket
 *    holds has no directory entry: the socket's copy of the shared level
 *    keeps, beside its tag, which of the socket's cores hold it, its owner
 *    and its forwarder (CvLine).  Only lines that several sockets hold
 *    are in the directory, and their shared copies carry ST_XS.  A miss
 *    that hits the socket's shared level, a private copy's departure and
 *    a shared-level eviction then read the line they probe anyway instead
 *    of a directory slot; a shared-level miss probes the other sockets'
 *    copies.  The coherence rules are the same code either way: it runs on
 *    the directory's entry or on one built on the stack from the CvLine
 *    (cv_ent, cv_settle), so both give the same results
 *    (tests/cache/test-corevalid.c compares them access by access).
 *    They are opt-in (SLABSIM_COREVALID=1): measured, they cost more host
 *    instructions than the directory probes they save.
 *  - A full-mode access is: an L1 probe (the fast path ends there on a hit
 *    with permission); on a miss, probes outwards until a level hits, a
 *    directory lookup if no private level had it, then fills inwards, each
 *    fill evicting a victim whose departure may touch the next level (dirty
 *    write-back), the directory (the core no longer holds it) or the levels
 *    above (inclusive back-invalidation).  A private miss thus does 4-10 set
 *    probes and 0-3 directory probes (an L1 line's ST_INL2 bit spares the
 *    L2 probe for a clean L1 victim the core's L2 still holds, on machines
 *    with two private levels and no victim L2); the set primitives are
 *    specialised for 8 and 16 ways (SSE2 tag compare, fixed-size LRU moves)
 *    because they are most of the work, and the arrays over 2 MiB ask for
 *    huge pages.
 *  - The miss path exists twice (SH_ANY, SH_3L below): once for any
 *    machine and once for the common shape (private 8-way L1 and L2, one
 *    inclusive 16-way L3, one directory mask word), whose counts are then
 *    constants, so its level loops unroll and its set primitives need no
 *    dispatch on the ways: about a third fewer host instructions a miss.
 *    docs/perf/cachesim.md has the measured profile.
 */
#include "models/cache/memsys-internal.h"
#include "sim/core/errors.h"

/* ---- The miss path's shape ---------------------------------------------- */

/* Every function of the miss path below takes a shape @sh, a constant at
 * each call: SH_ANY reads the hierarchy's counts (levels, private levels,
 * ways, mask words, inclusion) from the state, as any machine needs; SH_3L
 * is the common machine, whose counts are then constants (sim_memsys_new
 * sets SimMemSys.shape when they hold): a private L1 and L2 of 8 ways, the
 * L2 non-inclusive (so L1 lines carry ST_INL2), one shared inclusive L3 of
 * 16 ways per socket or group, and at most 64 domains (one mask word).
 * With constants the level loops unroll, the set primitives compare 8 or
 * 16 tags without a dispatch, and a directory entry is three words, so
 * copying one is three moves instead of a memcpy call.  The instances of
 * the two shapes compute the same things: only where the counts come from
 * differs. */
enum { SH_ANY = 0, SH_3L = 1 };

static ALWAYS_INLINE guint
sh_levels (const SimMemSys *ms, guint sh)
{
  return sh == SH_3L ? 3 : ms->n_levels;
}

static ALWAYS_INLINE guint
sh_private (const SimMemSys *ms, guint sh)
{
  return sh == SH_3L ? 2 : ms->n_private;
}

static ALWAYS_INLINE guint
sh_words (const SimMemSys *ms, guint sh)
{
  return sh == SH_3L ? 1 : ms->mask_words;
}

static ALWAYS_INLINE gsize
sh_stride (const SimMemSys *ms, guint sh)
{
  return sh == SH_3L ? 3 : ms->dir_stride;
}

static ALWAYS_INLINE gboolean
sh_inl2 (const SimMemSys *ms, guint sh)
{
  return sh == SH_3L ? TRUE : ms->inl2;
}

static ALWAYS_INLINE gboolean
sh_is_private (const SimMemSys *ms, guint sh, guint l)
{
  return sh == SH_3L ? l < 2 : ms->lv[l].private_;
}

static ALWAYS_INLINE SimInclusion
sh_incl (const SimMemSys *ms, guint sh, guint l)
{
  if (sh == SH_3L && l == 1)
    return SIM_INCL_NINE;
  if (sh == SH_3L && l == 2)
    return SIM_INCL_INCLUSIVE;
  return ms->lv[l].incl;
}

/* Level @l's ways as a constant, or 0: the primitives then dispatch on
 * L->ways (WAYS_DISPATCH). */
static ALWAYS_INLINE guint
sh_ways (guint sh, guint l)
{
  return sh == SH_3L ? (l == 2 ? 16 : 8) : 0;
}

/* Does @ms have the SH_3L shape?  (sim_memsys_new stores the answer in
 * SimMemSys.shape_3l.) */
gboolean
memsys_shape_3l (const SimMemSys *ms)
{
  return ms->n_levels == 3 && ms->n_private == 2 && ms->mask_words == 1 && ms->inl2
         && ms->lv[0].ways == 8 && ms->lv[1].ways == 8 && ms->lv[2].ways == 16
         && ms->lv[1].incl == SIM_INCL_NINE && ms->lv[2].incl == SIM_INCL_INCLUSIVE
         && ms->lv[0].private_ && ms->lv[1].private_ && !ms->lv[2].private_
         && ms->dir_stride == 3;
}

/* The set primitives with @n ways as a constant, or 0 for L->ways. */
static ALWAYS_INLINE int
find_way_k (const Level *L, gsize base, guint64 block, guint n)
{
  return n ? find_way_n (L->tag + base, block, n) : find_way (L, base, block);
}

static ALWAYS_INLINE gsize
set_base_k (const Level *L, guint inst, guint64 block, guint n)
{
  return ((gsize) inst * L->sets + (block & L->set_mask)) * (n ? n : L->ways);
}

static ALWAYS_INLINE gsize
core_set_base_k (const SimMemSys *ms, guint l, guint core, guint64 block, guint n)
{
  const Level *L = &ms->lv[l];
  return ms->core_row[l][core] + (gsize) (block & L->set_mask) * (n ? n : L->ways);
}

/* With @n constant, a PLRU set's index is base / n: a constant shift. */
static ALWAYS_INLINE void
touch_k (Level *L, gsize base, guint way, guint n)
{
  if (!n)
    touch (L, base, way);
  else if (L->repl == SIM_REPL_LRU)
    rank_touch_n (RANK (L, base), way, n);
  else if (L->repl == SIM_REPL_PLRU)
    plru_touch (L, base / n, way);
}

/* plru_victim with the tree's depth a constant: a table's load (up to
 * PLRU_VIC_MAX_WAYS ways) or a walk that unrolls. */
static ALWAYS_INLINE guint
plru_victim_n (const Level *L, gsize set_index, guint n)
{
  guint64 bits = L->plru[set_index];
  if (n <= PLRU_VIC_MAX_WAYS)
    return plru_victim_of (L, bits, n);
  guint node = 0, way = 0;
  for (guint span = n; span > 1; span >>= 1)
    {
      guint right = (guint) (bits >> node) & 1;
      way |= right * (span >> 1);
      node = 2 * node + 1 + right;
    }
  return way;
}

static ALWAYS_INLINE guint
lru_victim_k (const Level *L, gsize base, guint n)
{
  return n ? rank_last_n (RANK (L, base), n) : lru_victim (L, base);
}

static ALWAYS_INLINE guint
victim_way_k (Level *L, gsize base, guint n)
{
  if (!n)
    return victim_way (L, base);
  if (L->repl == SIM_REPL_LRU)
    return rank_last_n (RANK (L, base), n);
  int empty = L->repl == SIM_REPL_PLRU && plru_valid_kept (n)
                ? plru_empty_way (L, base / n, n)
                : find_way_n (L->tag + base, NO_LINE, n);
  if (empty >= 0)
    return (guint) empty;
  if (L->repl == SIM_REPL_PLRU)
    return plru_victim_n (L, base / n, n);
  return (guint) sim_rng_below (&L->rng, L->ways);
}

static ALWAYS_INLINE void
remove_way_k (Level *L, gsize base, guint way, guint n)
{
  if (!n)
    {
      remove_way (L, base, way);
      return;
    }
  if (L->repl == SIM_REPL_LRU)
    rank_remove_n (RANK (L, base), way, n);
  else if (L->repl == SIM_REPL_PLRU)
    plru_empty (L, base / n, way, n);
  L->tag[base + way] = NO_LINE;
  ST (L, base)[way] = 0;
}

/* ---- Directory --------------------------------------------------------- */

/* Neighbouring lines get neighbouring slots: the hash scatters chunks of
 * 2^DIR_CHUNK_BITS lines and keeps the lines of a chunk in order, so that
 * the live entries of a working set share host cache lines (24-byte
 * entries) instead of taking one host line each (DIR_CHUNK_BITS,
 * memsys-internal.h). */
static inline guint64
dir_hash (const SimMemSys *ms, guint64 block)
{
  guint64 chunk = block >> DIR_CHUNK_BITS;
  guint64 h = (chunk * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> ms->dir_shift;
  return (h << DIR_CHUNK_BITS) | (block & ((1u << DIR_CHUNK_BITS) - 1));
}

/* A directory slot's key: the line's complement, so that the empty slot
 * (NO_LINE, never a line) is the key 0 of a zeroed table. */
#define DIR_EMPTY 0
static ALWAYS_INLINE guint64
dir_key (guint64 block)
{
  return ~block;
}

static ALWAYS_INLINE guint64
dir_block (const DirEnt *e)
{
  return ~e->key;
}

static inline guint64 *
dir_bits_of (SimMemSys *ms, DirEnt *e)
{
  (void) ms;
  return e->mask;
}

static ALWAYS_INLINE DirEnt *
dir_at_k (SimMemSys *ms, guint64 i, guint sh)
{
  return (DirEnt *) (ms->dir + i * sh_stride (ms, sh));
}

static inline DirEnt *
dir_at (SimMemSys *ms, guint64 i)
{
  return dir_at_k (ms, i, SH_ANY);
}

static ALWAYS_INLINE DirEnt *
dir_find_k (SimMemSys *ms, guint64 block, guint sh)
{
  guint64 i = dir_hash (ms, block), key = dir_key (block);
  for (;;)
    {
      DirEnt *e = dir_at_k (ms, i, sh);
      if (e->key == key)
        return e;
      if (e->key == DIR_EMPTY)
        return NULL;
      i = (i + 1) & ms->dir_cap_mask;
    }
}

static DirEnt *
dir_find (SimMemSys *ms, guint64 block)
{
  return dir_find_k (ms, block, SH_ANY);
}

/* dir_get_k from @block's home slot @i (dir_hash), which a caller that
 * prefetched the slot has at hand. */
static ALWAYS_INLINE DirEnt *
dir_get_at_k (SimMemSys *ms, guint64 block, guint64 i, guint sh)
{
  guint64 key = dir_key (block);
  for (;;)
    {
      DirEnt *e = dir_at_k (ms, i, sh);
      if (e->key == key)
        return e;
      if (e->key == DIR_EMPTY)
        {
          /* Sized for every cache line at once; more means a lost update,
           * and probing a full table would never end. */
          if (G_UNLIKELY (++ms->dir_count > ms->dir_cap_mask))
            g_error ("memsys: directory overflow (a line was not removed)");
          e->key = key;
          e->owner = -1;
          e->fwd = -1;
          return e;
        }
      i = (i + 1) & ms->dir_cap_mask;
    }
}

static ALWAYS_INLINE DirEnt *
dir_get_k (SimMemSys *ms, guint64 block, guint sh)
{
  return dir_get_at_k (ms, block, dir_hash (ms, block), sh);
}

static G_GNUC_NO_INLINE DirEnt *
dir_get (SimMemSys *ms, guint64 block)
{
  return dir_get_k (ms, block, SH_ANY);
}

static ALWAYS_INLINE void
dir_delete_k (SimMemSys *ms, DirEnt *e, guint sh)
{
  gsize stride = sh_stride (ms, sh);
  guint64 i = (guint64) ((guint64 *) e - ms->dir) / stride, j = i;
  guint64 mask = ms->dir_cap_mask;
  gsize bytes = stride * sizeof (guint64);
  for (;;)
    {
      j = (j + 1) & mask;
      DirEnt *ej = dir_at_k (ms, j, sh);
      if (ej->key == DIR_EMPTY)
        break;
      guint64 k = dir_hash (ms, dir_block (ej));
      /* Move j back into the hole at i unless its home lies in (i, j]. */
      gboolean stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays)
        continue;
      memcpy (dir_at_k (ms, i, sh), ej, bytes);
      i = j;
    }
  memset (dir_at_k (ms, i, sh), 0, bytes);   /* key DIR_EMPTY */
  ms->dir_count--;
}

static G_GNUC_NO_INLINE void
dir_delete_any (SimMemSys *ms, DirEnt *e)
{
  dir_delete_k (ms, e, SH_ANY);
}

static G_GNUC_NO_INLINE void
dir_delete_3l (SimMemSys *ms, DirEnt *e)
{
  dir_delete_k (ms, e, SH_3L);
}

static ALWAYS_INLINE void
dir_delete (SimMemSys *ms, DirEnt *e, guint sh)
{
  if (sh == SH_3L)
    dir_delete_3l (ms, e);
  else
    dir_delete_any (ms, e);
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

static ALWAYS_INLINE gboolean
bits_empty (const SimMemSys *ms, const guint64 *b, guint sh)
{
  for (guint i = 0; i < sh_words (ms, sh); i++)
    if (b[i])
      return FALSE;
  return TRUE;
}

/* Drop @dom from the holders of @block; deletes the entry when nobody
 * holds the line any more. */
static ALWAYS_INLINE void
dir_drop (SimMemSys *ms, guint64 block, guint dom, guint sh)
{
  DirEnt *e = dir_find_k (ms, block, sh);
  if (e == NULL)
    return;
  guint64 *b = dir_bits_of (ms, e);
  bit_clear (b, dom);
  if (e->owner == (gint32) dom)
    e->owner = -1;
  if (e->fwd == (gint32) dom)
    e->fwd = -1;
  if (bits_empty (ms, b, sh))
    dir_delete (ms, e, sh);
}

/* ---- Core-valid bits (SimMemSys.corevalid) ------------------------------- */

/* On a core-valid machine (one inclusive shared level per socket) a line
 * that only one socket holds keeps its holders in that socket's copy of
 * the shared level (CvLine: the socket's cores as bits, the owner and the
 * forwarder) and has no directory entry; a line that several sockets hold
 * has ST_XS in each socket's copy and its entry in the directory, as on
 * any machine.  The miss path works on a DirEnt either way: the
 * directory's, or one built on the stack from the CvLine (cv_ent) and
 * written back (cv_store); cv_settle picks the form the line has after the
 * access.  So a miss or a departure whose holders are all in one socket
 * reads and writes the shared level's line it probes anyway, not the
 * directory's cold slot. */

/* A DirEnt on the stack. */
typedef struct {
  guint64 w[2 + CV_MAX_WORDS];
} CvEnt;

/* The core-valid level: the one shared level. */
static ALWAYS_INLINE guint
cv_lvl (const SimMemSys *ms, guint sh)
{
  return sh_private (ms, sh);
}

/* Put a socket's core bits @cv (bit c: core @first + c) into holders @b. */
static ALWAYS_INLINE void
cv_bits_put (guint64 *b, guint first, guint64 cv)
{
  guint wi = first / 64, s = first % 64;
  b[wi] |= cv << s;
  if (s && (cv >> (64 - s)))
    b[wi + 1] |= cv >> (64 - s);
}

/* The bits of cores @first .. @first + @cps - 1 in holders @b (@words). */
static ALWAYS_INLINE guint64
cv_bits_get (const guint64 *b, guint first, guint cps, guint words)
{
  guint wi = first / 64, s = first % 64;
  guint64 v = b[wi] >> s;
  if (s && wi + 1 < words)
    v |= b[wi + 1] << (64 - s);
  return cps >= 64 ? v : v & ((G_GUINT64_CONSTANT (1) << cps) - 1);
}

/* The entry of @block held by @socket alone as its CvLine @c says (@c NULL:
 * held by nobody), built in @buf. */
static ALWAYS_INLINE DirEnt *
cv_ent (const SimMemSys *ms, CvEnt *buf, guint64 block, guint socket, const CvLine *c,
        guint sh)
{
  DirEnt *e = (DirEnt *) buf->w;
  e->key = dir_key (block);
  for (guint i = 0; i < sh_words (ms, sh); i++)
    e->mask[i] = 0;
  if (c == NULL)
    {
      e->owner = -1;
      e->fwd = -1;
      return e;
    }
  e->owner = c->owner;
  e->fwd = c->fwd;
  cv_bits_put (e->mask, socket * ms->m->cores_per_socket, c->cv);
  bit_set (e->mask, ms->lv[cv_lvl (ms, sh)].dom_base + socket);
  return e;
}

/* Write entry @e of a line that only @socket holds into its CvLine. */
static ALWAYS_INLINE void
cv_store (const SimMemSys *ms, CvLine *c, const DirEnt *e, guint socket, guint sh)
{
  guint cps = ms->m->cores_per_socket;
  c->cv = cv_bits_get (e->mask, socket * cps, cps, sh_words (ms, sh));
  c->owner = e->owner;
  c->fwd = e->fwd;
}

/* Is @e in the directory (not built on the stack)? */
static ALWAYS_INLINE gboolean
cv_in_dir (const SimMemSys *ms, const DirEnt *e)
{
  const guint64 *p = (const guint64 *) e;
  return p >= ms->dir && p < ms->dir + (ms->dir_cap_mask + 1) * ms->dir_stride;
}

/* Does holders @b name another socket's copy of the shared level than
 * @socket's?  Returns how many sockets' copies it names in all, and in
 * *@one the last of them. */
static ALWAYS_INLINE guint
cv_sockets (const SimMemSys *ms, const guint64 *b, guint *one, guint sh)
{
  guint base = ms->lv[cv_lvl (ms, sh)].dom_base, n = 0;
  for (guint t = 0; t < ms->m->sockets; t++)
    if (bit_test (b, base + t))
      {
        n++;
        *one = t;
      }
  return n;
}

static ALWAYS_INLINE gboolean
cv_others (const SimMemSys *ms, const guint64 *b, guint socket, guint sh)
{
  guint base = ms->lv[cv_lvl (ms, sh)].dom_base;
  for (guint t = 0; t < ms->m->sockets; t++)
    if (t != socket && bit_test (b, base + t))
      return TRUE;
  return FALSE;
}

/* A miss in @socket's copy of the shared level: who holds @block?  The
 * other sockets' copies say: one with ST_XS has the line's directory entry
 * (returned); one without holds it alone (its entry built in @buf, and
 * *@other its tag index); none: nobody (an empty entry in @buf). */
static ALWAYS_INLINE DirEnt *
cv_lookup_miss (SimMemSys *ms, guint socket, guint64 block, CvEnt *buf, gssize *other,
                guint sh)
{
  guint lc = cv_lvl (ms, sh);
  Level *L = &ms->lv[lc];
  guint n = sh_ways (sh, lc);
  for (guint t = 0; t < ms->m->sockets; t++)
    {
      if (t == socket)
        continue;
      gsize base = set_base_k (L, t, block, n);
      int w = find_way_k (L, base, block, n);
      if (w < 0)
        continue;
      if (ST (L, base)[w] & ST_XS)
        return dir_find_k (ms, block, sh);
      *other = (gssize) (base + (guint) w);
      return cv_ent (ms, buf, block, t, &ms->cvl[base + (guint) w], sh);
    }
  return cv_ent (ms, buf, block, socket, NULL, sh);
}

/* After the coherence actions of an access of a core of @socket to
 * @block, whose entry is @e: give the line the form it now needs.  @own:
 * the socket's copy of the shared level holds the line in set @base, way
 * @way; if not, that copy is filled next (fill_level stores the returned
 * entry there).  @other is cv_lookup_miss's.  Returns the entry the fill
 * uses, NULL if there is none. */
static ALWAYS_INLINE DirEnt *
cv_settle (SimMemSys *ms, guint socket, guint64 block, DirEnt *e, gboolean own, gsize base,
           guint way, gssize other, CvEnt *buf, guint sh)
{
  Level *L = &ms->lv[cv_lvl (ms, sh)];
  gboolean in_dir = cv_in_dir (ms, e);
  gboolean shared = cv_others (ms, e->mask, socket, sh);
  if (own)
    {
      if (in_dir && shared)
        return NULL;
      cv_store (ms, &ms->cvl[base + way], e, socket, sh);
      if (in_dir)
        {
          /* The other sockets' copies are gone: the line is ours alone. */
          ST (L, base)[way] &= (guint8) ~ST_XS;
          dir_delete (ms, e, sh);
        }
      return NULL;
    }
  if (in_dir && !shared)
    {
      /* A write took the line from the other sockets: it becomes ours. */
      memcpy (buf->w, e, sh_stride (ms, sh) * sizeof (guint64));
      dir_delete (ms, e, sh);
      return (DirEnt *) buf->w;
    }
  if (!in_dir && shared && other >= 0)
    {
      /* A read of another socket's line: now in two sockets. */
      DirEnt *d = dir_get_k (ms, block, sh);
      memcpy (d->mask, e->mask, sh_words (ms, sh) * sizeof (guint64));
      d->owner = e->owner;
      d->fwd = e->fwd;
      gsize o = (gsize) other;
      ST (L, o - o % L->ways)[o % L->ways] |= ST_XS;
      return d;
    }
  return e;
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

/* Where one private level of a core holds a line: its set and way (-1:
 * not there).  A coherence action that reads a core's copies and then
 * changes them (the owner's downgrade, the requester's upgrade) finds them
 * once and keeps the spots: nothing in between moves lines in that core's
 * private sets. */
typedef struct {
  gsize base;
  int   way;
} Spot;

/* Find @core's private copies of @block (spot[l] for every private level);
 * returns the union of their state bits (EXCL is the same in every copy;
 * DIRTY may sit in any of them). */
static ALWAYS_INLINE guint8
core_locate (const SimMemSys *ms, guint core, guint64 block, Spot *spot, guint sh)
{
  guint8 bits = 0;
#pragma GCC unroll 2
  for (guint l = 0; l < sh_private (ms, sh); l++)
    {
      const Level *L = &ms->lv[l];
      gsize base = set_base_k (L, core, block, sh_ways (sh, l));
      int w = find_way_k (L, base, block, sh_ways (sh, l));
      spot[l] = (Spot) { base, w };
      if (w >= 0)
        bits |= ST (L, base)[w];
    }
  return bits;
}

/* Change the state bits of the copies core_locate found.  (GCC cannot see
 * that access_slow calls this only for an owner whose spots it located, and
 * zeroing the array on every miss to quiet it would cost more than the
 * second probes this saves.) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
static ALWAYS_INLINE void
spots_update (SimMemSys *ms, const Spot *spot, guint8 clear, guint8 set, guint sh)
{
#pragma GCC unroll 2
  for (guint l = 0; l < sh_private (ms, sh); l++)
    if (spot[l].way >= 0)
      {
        guint8 *s = ms->lv[l].st + 2 * spot[l].base + (gsize) spot[l].way;   /* ST () */
        *s = (guint8) ((*s & ~clear) | set);
      }
}
#pragma GCC diagnostic pop

/* Remove @block from every private level of @core; returns whether any copy
 * was dirty.  Leaves the directory alone. */
static ALWAYS_INLINE gboolean
core_purge (SimMemSys *ms, guint core, guint64 block, guint sh)
{
  gboolean dirty = FALSE;
#pragma GCC unroll 2
  for (guint l = 0; l < sh_private (ms, sh); l++)
    {
      Level *L = &ms->lv[l];
      gsize base = set_base_k (L, core, block, sh_ways (sh, l));
      int w = find_way_k (L, base, block, sh_ways (sh, l));
      if (w >= 0)
        {
          dirty |= (ST (L, base)[w] & ST_DIRTY) != 0;
          remove_way_k (L, base, (guint) w, sh_ways (sh, l));
        }
    }
  return dirty;
}

/* Remove @block from shared instance @inst of level @l; returns dirtiness
 * (-1 if it was not there). */
static ALWAYS_INLINE int
shared_purge (SimMemSys *ms, guint l, guint inst, guint64 block, guint sh)
{
  Level *L = &ms->lv[l];
  guint n = sh_ways (sh, l);
  gsize base = set_base_k (L, inst, block, n);
  int w = find_way_k (L, base, block, n);
  if (w < 0)
    return -1;
  int dirty = (ST (L, base)[w] & ST_DIRTY) != 0;
  remove_way_k (L, base, (guint) w, n);
  return dirty;
}

/* Domain @dom -> (level, instance) for shared domains. */
static ALWAYS_INLINE guint
dom_level_k (const SimMemSys *ms, guint dom, guint *inst, guint sh)
{
  for (guint l = sh_levels (ms, sh) - 1; l >= sh_private (ms, sh); l--)
    if (dom >= ms->lv[l].dom_base)
      {
        *inst = dom - ms->lv[l].dom_base;
        return l;
      }
  g_assert_not_reached ();
}

static guint
dom_level (const SimMemSys *ms, guint dom, guint *inst)
{
  return dom_level_k (ms, dom, inst, SH_ANY);
}

/* A dirty line leaving level @l of @core's path (core = G_MAXUINT for a
 * shared instance's own path, given by @inst at level @l): mark the next copy
 * outwards dirty, or it reaches DRAM.  Returns the level of that copy
 * (n_levels for DRAM). */
static ALWAYS_INLINE guint
push_dirty_out (SimMemSys *ms, guint l, guint core, guint inst, guint64 block, guint sh)
{
#pragma GCC unroll 3
  for (guint j = l + 1; j < sh_levels (ms, sh); j++)
    {
      Level *L = &ms->lv[j];
      guint i = core != G_MAXUINT ? inst_of (ms, j, core)
                                  : inst / (L->group / ms->lv[l].group);
      gsize base = set_base_k (L, i, block, sh_ways (sh, j));
      int w = find_way_k (L, base, block, sh_ways (sh, j));
      if (w >= 0)
        {
          ST (L, base)[w] |= ST_DIRTY;
          return j;
        }
    }
  return sh_levels (ms, sh);
}

/* After a core's private copy left level @gone, fix ownership: a
 * socket-level copy on the core's path takes over if the core owned the
 * line.  Level @gone is not searched again: the line has just left it. */
static ALWAYS_INLINE void
core_lost_line (SimMemSys *ms, guint core, guint64 block, guint gone, guint sh)
{
#pragma GCC unroll 2
  for (guint l = 0; l < sh_private (ms, sh); l++)
    {
      if (l == gone)
        continue;
      Level *L = &ms->lv[l];
      gsize base = set_base_k (L, core, block, sh_ways (sh, l));
      int w = find_way_k (L, base, block, sh_ways (sh, l));
      if (w >= 0)
        {
          if (gone == 1 && sh_inl2 (ms, sh))   /* l is 0: its copy is no longer in L2 */
            ST (L, base)[w] &= (guint8) ~ST_INL2;
          return;
        }
    }
  if (ms->corevalid)
    {
      /* The socket's copy of the shared level holds the line (inclusion);
       * if only this socket does, its CvLine has the holders. */
      guint lc = cv_lvl (ms, sh);
      Level *L = &ms->lv[lc];
      gsize base = core_set_base_k (ms, lc, core, block, sh_ways (sh, lc));
      int w = find_way_k (L, base, block, sh_ways (sh, lc));
      if (G_LIKELY (w >= 0) && !(ST (L, base)[w] & ST_XS))
        {
          CvLine *c = &ms->cvl[base + (guint) w];
          c->cv &= ~(G_GUINT64_CONSTANT (1) << (core % ms->m->cores_per_socket));
          if (c->fwd == (gint32) core)
            c->fwd = -1;
          if (c->owner == (gint32) core)
            c->owner = (gint32) (L->dom_base + inst_of (ms, lc, core));
          return;
        }
    }
  DirEnt *e = dir_find_k (ms, block, sh);
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
#pragma GCC unroll 2
      for (guint l = sh_private (ms, sh); l < sh_levels (ms, sh); l++)
        {
          guint d = ms->lv[l].dom_base + inst_of (ms, l, core);
          if (bit_test (b, d))
            {
              e->owner = (gint32) d;
              break;
            }
        }
    }
  if (bits_empty (ms, b, sh))
    dir_delete (ms, e, sh);
}

/* An inclusive level @l evicted @block from instance @inst: every copy
 * above it within its scope goes.  Returns whether one was dirty. */
static ALWAYS_INLINE gboolean
back_invalidate (SimMemSys *ms, guint l, guint inst, guint64 block, guint sh)
{
  gboolean dirty = FALSE;
  const Level *L = &ms->lv[l];
  if (sh_is_private (ms, sh, l))
    {
      gboolean hit = FALSE;
      for (guint j = 0; j < l; j++)
        {
          Level *U = &ms->lv[j];
          gsize base = set_base_k (U, inst, block, sh_ways (sh, j));
          int w = find_way_k (U, base, block, sh_ways (sh, j));
          if (w >= 0)
            {
              dirty |= (ST (U, base)[w] & ST_DIRTY) != 0;
              remove_way_k (U, base, (guint) w, sh_ways (sh, j));
              hit = TRUE;
            }
        }
      if (hit)
        ms->stats[ms->cpu_of_core[inst]].back_invalidations++;
      return dirty;
    }
  DirEnt *e = dir_find_k (ms, block, sh);
  if (e == NULL)
    return FALSE;
  guint64 *b = dir_bits_of (ms, e);
  guint cps = ms->m->cores_per_socket;
  guint socket = inst / L->inst_per_socket;
  guint first = socket * cps + (inst % L->inst_per_socket) * L->group;
  for (guint c = first; c < first + L->group && c < (socket + 1) * cps; c++)
    if (bit_test (b, c))
      {
        dirty |= core_purge (ms, c, block, sh);
        bit_clear (b, c);
        if (e->owner == (gint32) c)
          e->owner = -1;
        if (e->fwd == (gint32) c)
          e->fwd = -1;
        ms->stats[ms->cpu_of_core[c]].back_invalidations++;
      }
  for (guint j = sh_private (ms, sh); j < l; j++)
    {
      guint ratio = L->group / ms->lv[j].group;
      for (guint i = inst * ratio; i < (inst + 1) * ratio && i < ms->lv[j].n_inst; i++)
        {
          guint d = ms->lv[j].dom_base + i;
          if (!bit_test (b, d))
            continue;
          int dd = shared_purge (ms, j, i, block, sh);
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
static ALWAYS_INLINE void
evict_k (SimMemSys *ms, guint l, guint inst, guint64 block, guint8 bits, guint cpu, guint sh)
{
  Level *L = &ms->lv[l];
  gboolean dirty = (bits & ST_DIRTY) != 0;
  if (sh_incl (ms, sh, l) == SIM_INCL_INCLUSIVE && l > 0)
    dirty |= back_invalidate (ms, l, inst, block, sh);
  if (sh_is_private (ms, sh, l))
    {
      guint core = inst;
      if (dirty)
        ms->stats[cpu].level[l].writebacks++;
      if (l + 1 < sh_levels (ms, sh) && sh_incl (ms, sh, l + 1) == SIM_INCL_EXCLUSIVE)
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
      else if (dirty && push_dirty_out (ms, l, core, 0, block, sh) < sh_private (ms, sh))
        return;   /* our own next private level took it: the core still holds it */
      core_lost_line (ms, core, block, l, sh);
      return;
    }
  /* Shared instance. */
  if (dirty)
    ms->stats[cpu].level[l].writebacks++;
  guint dom = L->dom_base + inst;
  if (l + 1 < sh_levels (ms, sh) && sh_incl (ms, sh, l + 1) == SIM_INCL_EXCLUSIVE)
    {
      guint ni = inst / (ms->lv[l + 1].group / L->group);
      DirEnt *e = dir_get (ms, block);
      bit_set (dir_bits_of (ms, e), ms->lv[l + 1].dom_base + ni);
      if (e->owner == (gint32) dom)
        e->owner = (gint32) (ms->lv[l + 1].dom_base + ni);
      victim_fill (ms, l + 1, ni, block, (guint8) (dirty ? ST_DIRTY : 0), cpu);
    }
  else if (dirty)
    push_dirty_out (ms, l, G_MAXUINT, inst, block, sh);
  dir_drop (ms, block, dom, sh);
}

/* Instance @inst (socket) of the core-valid level evicted @block (state
 * @bits, CvLine @vc): the socket's holders are back-invalidated, as
 * back_invalidate does for a directory entry (ascending cores, one count
 * each), and a line other sockets still hold leaves the directory entry
 * to them, or to the one socket left as its CvLine.  The level is the
 * last: a dirty line goes to DRAM. */
static ALWAYS_INLINE void
evict_cv_k (SimMemSys *ms, guint inst, guint64 block, guint8 bits, const CvLine *vc, guint cpu,
            guint sh)
{
  guint lc = cv_lvl (ms, sh);
  Level *L = &ms->lv[lc];
  gboolean dirty = (bits & ST_DIRTY) != 0;
  if (!(bits & ST_XS))
    {
      guint first = inst * ms->m->cores_per_socket;
      for (guint64 v = vc->cv; v; v &= v - 1)
        {
          guint c = first + (guint) __builtin_ctzll (v);
          dirty |= core_purge (ms, c, block, sh);
          ms->stats[ms->cpu_of_core[c]].back_invalidations++;
        }
      if (dirty)
        ms->stats[cpu].level[lc].writebacks++;
      return;
    }
  dirty |= back_invalidate (ms, lc, inst, block, sh);
  if (dirty)
    ms->stats[cpu].level[lc].writebacks++;
  DirEnt *e = dir_find_k (ms, block, sh);
  if (e == NULL)
    return;
  guint dom = L->dom_base + inst;
  bit_clear (e->mask, dom);
  if (e->owner == (gint32) dom)
    e->owner = -1;
  if (e->fwd == (gint32) dom)
    e->fwd = -1;
  guint t = 0;
  guint left = cv_sockets (ms, e->mask, &t, sh);
  if (left == 1)
    {
      /* One socket holds it now: its copy takes the holders. */
      gsize base = set_base_k (L, t, block, sh_ways (sh, lc));
      int w = find_way_k (L, base, block, sh_ways (sh, lc));
      if (G_LIKELY (w >= 0))
        {
          cv_store (ms, &ms->cvl[base + (guint) w], e, t, sh);
          ST (L, base)[w] &= (guint8) ~ST_XS;
          dir_delete (ms, e, sh);
        }
    }
  else if (left == 0 && bits_empty (ms, e->mask, sh))
    dir_delete (ms, e, sh);
}

static G_GNUC_NO_INLINE void
evict_cv_any (SimMemSys *ms, guint inst, guint64 block, guint8 bits, const CvLine *vc, guint cpu)
{
  evict_cv_k (ms, inst, block, bits, vc, cpu, SH_ANY);
}

static G_GNUC_NO_INLINE void
evict_cv_3l (SimMemSys *ms, guint inst, guint64 block, guint8 bits, const CvLine *vc, guint cpu)
{
  evict_cv_k (ms, inst, block, bits, vc, cpu, SH_3L);
}

/* The evictions: one out of line for any machine, and for SH_3L one per
 * level, where the level is a constant too: an L1 victim is rarely evicted
 * at all (ST_INL2) and an L3 victim back-invalidates, both out of line;
 * an L2 victim, one per L2 fill, only checks the L1 and the directory, so
 * its eviction is inlined into the fill. */
static G_GNUC_NO_INLINE void
evict (SimMemSys *ms, guint l, guint inst, guint64 block, guint8 bits, guint cpu)
{
  evict_k (ms, l, inst, block, bits, cpu, SH_ANY);
}

static G_GNUC_NO_INLINE void
evict_3l_0 (SimMemSys *ms, guint inst, guint64 block, guint8 bits, guint cpu)
{
  evict_k (ms, 0, inst, block, bits, cpu, SH_3L);
}

static G_GNUC_NO_INLINE void
evict_3l_2 (SimMemSys *ms, guint inst, guint64 block, guint8 bits, guint cpu)
{
  evict_k (ms, 2, inst, block, bits, cpu, SH_3L);
}

static ALWAYS_INLINE void
evict_sh (SimMemSys *ms, guint l, guint inst, guint64 block, guint8 bits, guint cpu, guint sh)
{
  if (sh != SH_3L)
    evict (ms, l, inst, block, bits, cpu);
  else if (l == 0)
    evict_3l_0 (ms, inst, block, bits, cpu);
  else if (l == 1)
    evict_k (ms, 1, inst, block, bits, cpu, SH_3L);   /* every L2 fill's victim: inline */
  else
    evict_3l_2 (ms, inst, block, bits, cpu);
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
static ALWAYS_INLINE guint
insert_line_at (SimMemSys *ms, guint l, guint inst, gsize base, guint64 block, guint8 bits,
                guint cpu, guint sh)
{
  Level *L = &ms->lv[l];
  guint n = sh_ways (sh, l);
  guint w = victim_way_k (L, base, n);
  guint64 vb = L->tag[base + w];
  guint8 vbits = ST (L, base)[w];
  /* The new line replaces the victim before the victim is evicted: the
   * eviction may recurse into this level and must find the set whole. */
  L->tag[base + w] = block;
  ST (L, base)[w] = bits;
  if (L->repl == SIM_REPL_PLRU)
    plru_fill (L, plru_set (L, base, n), w, n ? n : L->ways);
  else if (L->repl == SIM_REPL_LRU)
    touch_k (L, base, w, n);
  if (vb == NO_LINE)
    return w;
  /* Most L1 victims are still in the core's L2 (ST_INL2): a clean one
   * changes nothing, and a dirty one only marks the L2 copy dirty, as
   * evict's push_dirty_out would (SimMemSys.inl2 rules out a victim L2);
   * neither calls the out-of-line eviction. */
  if (l == 0 && (vbits & ST_INL2))
    {
      if (!(vbits & ST_DIRTY))
        return w;
      Level *N = &ms->lv[1];
      gsize nbase = core_set_base_k (ms, 1, inst, vb, sh_ways (sh, 1));
      int nw = find_way_k (N, nbase, vb, sh_ways (sh, 1));
      if (G_LIKELY (nw >= 0))
        {
          ms->stats[cpu].level[0].writebacks++;
          ST (N, nbase)[nw] |= ST_DIRTY;
          return w;
        }
    }
  if (ms->corevalid && l == cv_lvl (ms, sh))
    {
      /* The victim's holders are in its CvLine, which the new line's
       * replaces once the fill returns. */
      CvLine vc = ms->cvl[base + w];
      if (sh == SH_3L)
        evict_cv_3l (ms, inst, vb, vbits, &vc, cpu);
      else
        evict_cv_any (ms, inst, vb, vbits, &vc, cpu);
      return w;
    }
  evict_sh (ms, l, inst, vb, vbits, cpu, sh);
  return w;
}

static void
insert_line (SimMemSys *ms, guint l, guint inst, guint64 block, guint8 bits, guint cpu)
{
  insert_line_at (ms, l, inst, set_base (&ms->lv[l], inst, block), block, bits, cpu, SH_ANY);
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
static ALWAYS_INLINE gboolean
on_path (const SimMemSys *ms, guint core, guint dom, guint sh)
{
  return bit_test (ms->path + (gsize) core * sh_words (ms, sh), dom);
}

/* Word @wi of a domain bitmap with only @core's bit set (0 if the bit is
 * in another word). */
static ALWAYS_INLINE guint64
self_bit (guint wi, guint core)
{
  return wi == core / 64 ? G_GUINT64_CONSTANT (1) << (core % 64) : 0;
}

/* Does word @wi of holders @b name a domain of @set other than @core?  One
 * and per word instead of a walk over the holders. */
static ALWAYS_INLINE gboolean
others_in (const guint64 *b, const guint64 *set, guint wi, guint core)
{
  return (b[wi] & set[wi] & ~self_bit (wi, core)) != 0;
}

/* Invalidate every copy outside @core's path; returns whether one was in
 * another socket. */
static ALWAYS_INLINE gboolean
invalidate_others_k (SimMemSys *ms, DirEnt *e, guint core, SimCpuMemStats *st, guint sh)
{
  guint64 *b = dir_bits_of (ms, e);
  guint my_socket = ms->dom_socket[core];
  gboolean remote = FALSE;
  const guint64 *path = ms->path + (gsize) core * sh_words (ms, sh);
  for (guint wi = 0; wi < sh_words (ms, sh); wi++)
    {
      /* The holders outside the core's path, in ascending order. */
      guint64 word = b[wi] & ~path[wi];
      if (wi == core / 64)
        word &= ~(G_GUINT64_CONSTANT (1) << (core % 64));
      while (word)
        {
          guint d = wi * 64 + (guint) __builtin_ctzll (word);
          word &= word - 1;
          remote |= ms->dom_socket[d] != my_socket;
          if (d < ms->n_cores)
            {
              core_purge (ms, d, dir_block (e), sh);
              st->invalidations_sent++;
              ms->stats[ms->cpu_of_core[d]].invalidations_received++;
            }
          else
            {
              guint inst;
              guint l = dom_level_k (ms, d, &inst, sh);
              shared_purge (ms, l, inst, dir_block (e), sh);
            }
          bit_clear (b, d);
        }
    }
  e->owner = -1;
  e->fwd = -1;
  return remote;
}

static G_GNUC_NO_INLINE gboolean
invalidate_others_any (SimMemSys *ms, DirEnt *e, guint core, SimCpuMemStats *st)
{
  return invalidate_others_k (ms, e, core, st, SH_ANY);
}

static G_GNUC_NO_INLINE gboolean
invalidate_others_3l (SimMemSys *ms, DirEnt *e, guint core, SimCpuMemStats *st)
{
  return invalidate_others_k (ms, e, core, st, SH_3L);
}

static ALWAYS_INLINE gboolean
invalidate_others (SimMemSys *ms, DirEnt *e, guint core, SimCpuMemStats *st, guint sh)
{
  return sh == SH_3L ? invalidate_others_3l (ms, e, core, st)
                     : invalidate_others_any (ms, e, core, st);
}

/* Level @l's instance on @core's path: the core itself for a private level. */
static ALWAYS_INLINE guint
inst_of_k (const SimMemSys *ms, guint l, guint core, guint sh)
{
  return sh == SH_3L && l < 2 ? core : inst_of (ms, l, core);
}

/* The outer probe of access_slow at level @l: counts it, and on a hit
 * records where (returns TRUE); on a miss starts the host loads the fill's
 * eviction will need. */
static ALWAYS_INLINE gboolean
probe_level (SimMemSys *ms, guint l, guint core, guint64 block, SimAccKind kind,
             SimMemClass cls, SimCpuMemStats *st, const gsize *bases, int *hit,
             gsize *hit_base, guint *hit_way, guint8 *hit_bits, guint64 *slot, guint sh)
{
  Level *L = &ms->lv[l];
  gsize base = bases[l];
  /* Only a miss in every private level needs the directory (most
   * private misses hit the next private level): fetch its slot
   * when the first shared level is probed, overlapping the two, and
   * keep its index (*@slot) for the lookup. */
  if (l == sh_private (ms, sh) && !ms->corevalid)
    {
      *slot = dir_hash (ms, block);
      __builtin_prefetch (dir_at_k (ms, *slot, sh));
    }
  st->level[l].accesses[kind]++;
  int w = find_way_k (L, base, block, sh_ways (sh, l));
  if (w >= 0)
    {
      *hit = (int) l;
      *hit_base = base;
      *hit_way = (guint) w;
      *hit_bits = ST (L, base)[w];
      return TRUE;
    }
  st->level[l].misses[kind]++;
  st->class_misses[cls][l]++;
  /* The fill will evict this set's LRU line; its directory entry
   * and next set are cold, so fetch them while we go on. */
  guint vw = L->repl == SIM_REPL_LRU ? lru_victim_k (L, base, sh_ways (sh, l)) : 0;
  guint64 v = L->repl == SIM_REPL_LRU ? L->tag[base + vw] : NO_LINE;
  if (v != NO_LINE && l + 1 >= sh_private (ms, sh))
    {
      /* On a core-valid machine the L2 victim's departure reads the next
       * set, and the shared level's victim its CvLine. */
      if (!ms->corevalid)
        __builtin_prefetch (dir_at_k (ms, dir_hash (ms, v), sh));
      else if (l == cv_lvl (ms, sh))
        __builtin_prefetch (ms->cvl + base + vw);
      if (l + 1 < sh_levels (ms, sh) && l + 1 < SIM_MACHINE_MAX_LEVELS)
        {
          const Level *N = &ms->lv[l + 1];
          __builtin_prefetch (N->tag + core_set_base_k (ms, l + 1, core, v, sh_ways (sh, l + 1)));
        }
    }
  return FALSE;
}

/* One fill of access_slow: @block goes into level @l of @core's path (set
 * @base); @l1_bits are the L1 copy's bits beyond EXCL.  *@fill_e is the
 * line's directory entry while it cannot have moved, or NULL. */
static ALWAYS_INLINE void
fill_level (SimMemSys *ms, guint l, guint core, guint cpu, guint64 block, gsize base,
            gboolean excl, guint8 l1_bits, DirEnt **fill_e, guint sh)
{
  Level *L = &ms->lv[l];
  if (l > 0 && sh_incl (ms, sh, l) == SIM_INCL_EXCLUSIVE)
    return;
  guint inst = inst_of_k (ms, l, core, sh);
  guint8 bits = 0;
  if (sh_is_private (ms, sh, l))
    bits = (guint8) ((excl ? ST_EXCL : 0) | (l == 0 ? l1_bits : 0));
  else if (ms->corevalid)
    {
      /* The core-valid level: cv_settle's entry, in the directory (the
       * line is in other sockets too) or the new line's CvLine. */
      DirEnt *e = *fill_e;
      bit_set (e->mask, L->dom_base + inst);
      if (cv_in_dir (ms, e))
        insert_line_at (ms, l, inst, base, block, ST_XS, cpu, sh);
      else
        {
          guint w = insert_line_at (ms, l, inst, base, block, 0, cpu, sh);
          cv_store (ms, &ms->cvl[base + w], e, inst, sh);
        }
      *fill_e = NULL;
      return;
    }
  else
    {
      DirEnt *e = *fill_e ? *fill_e : dir_get_k (ms, block, sh);
      bit_set (dir_bits_of (ms, e), L->dom_base + inst);
    }
  insert_line_at (ms, l, inst, base, block, bits, cpu, sh);
  *fill_e = NULL;   /* the eviction may have moved entries */
}

static ALWAYS_INLINE guint
access_slow (SimMemSys *ms, guint cpu, guint core, SimCpuMemStats *st, guint64 block,
             SimAccKind kind, SimMemClass cls, int l1_way, gsize l1_base, guint sh)
{
  const SimMachine *m = ms->m;
  gboolean write = kind != SIM_ACC_READ;
  int hit = -1;                 /* level of our own path holding the line */
  guint8 hit_bits = 0;
  gsize hit_base = 0;           /* and where: coherence actions below never */
  guint hit_way = 0;            /* move lines in our own path's sets */
  /* Every level's set on the core's path (filled below the hit level). */
  gsize bases[SIM_MACHINE_MAX_LEVELS];
  bases[0] = l1_base;
  /* @block's directory home slot once the first shared probe computed it
   * (G_MAXUINT64: not yet). */
  guint64 slot = G_MAXUINT64;

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
      if (sh == SH_3L)
        {
          bases[1] = core_set_base_k (ms, 1, core, block, sh_ways (sh, 1));
          __builtin_prefetch (ms->lv[1].tag + bases[1]);
          bases[2] = core_set_base_k (ms, 2, core, block, sh_ways (sh, 2));
          __builtin_prefetch (ms->lv[2].tag + bases[2]);
          if (!probe_level (ms, 1, core, block, kind, cls, st, bases, &hit, &hit_base,
                            &hit_way, &hit_bits, &slot, sh))
            probe_level (ms, 2, core, block, kind, cls, st, bases, &hit, &hit_base,
                         &hit_way, &hit_bits, &slot, sh);
        }
      else
        {
          for (guint l = 1; l < ms->n_levels; l++)
            {
              bases[l] = core_set_base (ms, l, core, block);
              __builtin_prefetch (ms->lv[l].tag + bases[l]);
            }
          for (guint l = 1; l < ms->n_levels; l++)
            if (probe_level (ms, l, core, block, kind, cls, st, bases, &hit, &hit_base,
                             &hit_way, &hit_bits, &slot, sh))
              break;
        }
    }

  guint lat;
  gboolean private_hit = hit >= 0 && sh_is_private (ms, sh, (guint) hit);
  gboolean excl = FALSE;
  /* The directory entry of @block while it is known not to have moved
   * (nothing inserted or deleted since): the first shared fill uses it
   * instead of looking it up again. */
  DirEnt *fill_e = NULL;
  /* A core-valid machine's entry of a line one socket holds (cv_ent). */
  CvEnt cvbuf;

  if (private_hit && (!write || (hit_bits & ST_EXCL)))
    {
      /* Our own private caches have it with permission. */
      lat = ms->lv[hit].latency;
      excl = (hit_bits & ST_EXCL) != 0;
    }
  else if (private_hit)
    {
      /* Upgrade from S/O/F: invalidations, no data. */
      DirEnt *e;
      gsize cb = 0;
      int cw = -1;
      if (ms->corevalid)
        {
          /* The line's holders: the socket's copy of the shared level has
           * it (inclusion), with them or with ST_XS. */
          guint lc = cv_lvl (ms, sh);
          const Level *C = &ms->lv[lc];
          cb = core_set_base_k (ms, lc, core, block, sh_ways (sh, lc));
          cw = find_way_k (C, cb, block, sh_ways (sh, lc));
          if (G_UNLIKELY (cw < 0))
            g_error ("memsys: a private copy is missing from its inclusive level");
          e = ST (C, cb)[cw] & ST_XS
                ? dir_find_k (ms, block, sh)
                : cv_ent (ms, &cvbuf, block, ms->dom_socket[core], &ms->cvl[cb + (guint) cw], sh);
        }
      else
        e = dir_get_k (ms, block, sh);
      gboolean remote = invalidate_others (ms, e, core, st, sh);
      bit_set (dir_bits_of (ms, e), core);
      e->owner = (gint32) core;
      if (ms->corevalid)
        cv_settle (ms, ms->dom_socket[core], block, e, TRUE, cb, (guint) cw, -1, &cvbuf, sh);
      if (remote)
        lat = m->lat_remote_clean;
      else if (sh_private (ms, sh) < sh_levels (ms, sh))
        lat = ms->lv[sh_private (ms, sh)].latency;
      else
        lat = ms->lv[hit].latency;
      Spot spot[SIM_MACHINE_MAX_LEVELS];
      core_locate (ms, core, block, spot, sh);
      spots_update (ms, spot, 0, ST_EXCL, sh);
      excl = TRUE;
    }
  else
    {
      /* Not in our private caches: ask the directory who has it, or on a
       * core-valid machine the socket's copy of the shared level (a hit),
       * else the other sockets' copies. */
      guint my_socket = ms->dom_socket[core];
      DirEnt *e;
      gssize cv_other = -1;
      if (!ms->corevalid)
        e = dir_get_at_k (ms, block, slot != G_MAXUINT64 ? slot : dir_hash (ms, block), sh);
      else if (hit >= 0)
        e = hit_bits & ST_XS
              ? dir_find_k (ms, block, sh)
              : cv_ent (ms, &cvbuf, block, my_socket, &ms->cvl[hit_base + hit_way], sh);
      else
        e = cv_lookup_miss (ms, my_socket, block, &cvbuf, &cv_other, sh);
      guint64 *b = dir_bits_of (ms, e);
      gint32 owner = e->owner;
      gboolean owner_dirty = FALSE, owner_excl = FALSE, supplies = FALSE;
      /* A core owner's copies, found once for its downgrade below. */
      Spot ospot[SIM_MACHINE_MAX_LEVELS];
      if (owner >= 0 && !on_path (ms, core, (guint) owner, sh))
        {
          guint od = (guint) owner;
          if (od < ms->n_cores)
            {
              guint8 ob = core_locate (ms, od, block, ospot, sh);
              owner_dirty = (ob & ST_DIRTY) != 0;
              owner_excl = (ob & ST_EXCL) != 0;
            }
          else
            {
              guint inst;
              guint ol = dom_level_k (ms, od, &inst, sh);
              const Level *O = &ms->lv[ol];
              gsize base = set_base_k (O, inst, block, sh_ways (sh, ol));
              int w = find_way_k (O, base, block, sh_ways (sh, ol));
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
          const guint64 *mine = ms->sock_dom + (gsize) my_socket * sh_words (ms, sh);
          for (guint wi = 0; wi < sh_words (ms, sh); wi++)
            if (others_in (b, mine, wi, core))
              {
                local = TRUE;
                break;
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
          invalidate_others (ms, e, core, st, sh);
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
                  spots_update (ms, ospot, (guint8) (ST_EXCL | (keep ? 0 : ST_DIRTY)), 0, sh);
                  if (owner_dirty && !keep)
                    {
                      /* Written back to the owner's shared level, which then
                       * holds the socket's dirty copy, or to DRAM. */
                      ms->stats[ms->cpu_of_core[od]].level[sh_private (ms, sh) - 1].writebacks++;
                      e->owner = -1;
#pragma GCC unroll 2
                      for (guint l = sh_private (ms, sh); l < sh_levels (ms, sh); l++)
                        {
                          guint i = inst_of (ms, l, od);
                          if (bit_test (b, ms->lv[l].dom_base + i))
                            {
                              Level *S = &ms->lv[l];
                              gsize base = set_base_k (S, i, block, sh_ways (sh, l));
                              int w = find_way_k (S, base, block, sh_ways (sh, l));
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
                      guint ol = dom_level_k (ms, od, &inst, sh);
                      Level *O = &ms->lv[ol];
                      gsize base = set_base_k (O, inst, block, sh_ways (sh, ol));
                      int w = find_way_k (O, base, block, sh_ways (sh, ol));
                      if (w >= 0)
                        ST (O, base)[w] &= (guint8) ~ST_DIRTY;
                      ms->stats[cpu].level[ol].writebacks++;
                    }
                  e->owner = -1;
                }
            }
          /* Exclusive if nobody outside our own path holds it. */
          excl = TRUE;
          const guint64 *path = ms->path + (gsize) core * sh_words (ms, sh);
          for (guint wi = 0; wi < sh_words (ms, sh); wi++)
            if (b[wi] & ~path[wi] & ~self_bit (wi, core))
              {
                excl = FALSE;
                break;
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
      fill_e = ms->corevalid ? cv_settle (ms, my_socket, block, e, hit >= 0, hit_base, hit_way,
                                          cv_other, &cvbuf, sh)
                             : e;
    }

  /* Fill: the levels between the core and the one that served it. */
  guint top = hit >= 0 ? (guint) hit : sh_levels (ms, sh);
  guint8 dirty_from_hit = 0;
  /* An L1 fill follows an L2 hit or an L2 fill (inl2 rules out a victim L2),
   * and nothing in between takes the line out of L2. */
  guint8 inl2 = sh_inl2 (ms, sh) ? ST_INL2 : 0;
  if (hit > 0 && sh != SH_3L && ms->lv[hit].incl == SIM_INCL_EXCLUSIVE)
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
      if (sh == SH_3L && hit == 2)
        touch_k (H, hit_base, hit_way, sh_ways (sh, 2));
      else if (sh == SH_3L)
        touch_k (H, hit_base, hit_way, sh_ways (sh, 0));   /* L1 and L2: 8 ways */
      else
        touch (H, hit_base, hit_way);
    }
  guint8 l1_bits = (guint8) ((write ? ST_DIRTY : 0) | dirty_from_hit | inl2);
  if (sh == SH_3L)
    {
      if (top > 2)
        fill_level (ms, 2, core, cpu, block, bases[2], excl, l1_bits, &fill_e, sh);
      if (top > 1)
        fill_level (ms, 1, core, cpu, block, bases[1], excl, l1_bits, &fill_e, sh);
      if (top > 0)
        fill_level (ms, 0, core, cpu, block, bases[0], excl, l1_bits, &fill_e, sh);
    }
  else
    for (guint l = top; l-- > 0;)
      fill_level (ms, l, core, cpu, block, bases[l], excl, l1_bits, &fill_e, sh);
  return lat;
}

/* What the L1 probe hands the miss path, packed into one word so that the
 * call is a tail call (at most six integer arguments, none on the stack):
 * the fast path then needs none of the register saves the miss path makes.
 * The kind, the class, the L1 way (+1; 0 = not in L1) and whether the
 * latency goes to the CPU's cycles (not for the lines of a straddling
 * access, whose largest latency is added once). */
#define MISS_KIND(p)   ((SimAccKind) ((p) & 0x3u))
#define MISS_CLASS(p)  ((SimMemClass) (((p) >> 2) & 0xfu))
#define MISS_WAY(p)    ((int) (((p) >> 6) & 0x1ffu) - 1)
#define MISS_COUNT     0x8000u
#define MISS_WAY_PACK(way) ((guint) ((way) + 1) << 6)
#define MISS_PACK(kind, cls, way, count) \
  ((guint) (kind) | (guint) (cls) << 2 | MISS_WAY_PACK (way) | (count))
G_STATIC_ASSERT (SIM_ACC_N <= 4 && SIM_MEM_N_CLASSES <= 16 && SIM_MEMSYS_MAX_WAYS < 0x1ff);

static G_GNUC_NO_INLINE guint32
access_miss (SimMemSys *ms, const L1Row *r, guint64 block, guint packed)
{
  guint cpu = r->cpu, core = r->core;
  gsize set = (gsize) (block & ms->lv[0].set_mask);
  guint32 lat;
  /* Two instances of the miss path: the common shape's with its counts as
   * constants, and any machine's. */
  if (G_LIKELY (ms->shape_3l))
    lat = access_slow (ms, cpu, core, r->stats, block, MISS_KIND (packed), MISS_CLASS (packed),
                       MISS_WAY (packed), r->row + set * sh_ways (SH_3L, 0), SH_3L);
  else
    lat = access_slow (ms, cpu, core, r->stats, block, MISS_KIND (packed), MISS_CLASS (packed),
                       MISS_WAY (packed), r->row + set * ms->lv[0].ways, SH_ANY);
  if (packed & MISS_COUNT)
    r->stats->cycles += lat;
  return lat;
}

/* rank_touch_n for an 8-way L1 hit, the ranks written back as one 8-byte
 * store (the hit way's 0 folded in) instead of a vector store and a byte
 * store: the next probe of the set loads the eight ranks, and a load that
 * spans two pending stores is not forwarded from the store buffer (it
 * waits for both to retire), whereas one that matches a single store is. */
static ALWAYS_INLINE void
l1_rank_touch8 (guint8 *r, guint w)
{
  guint8 rw = r[w];
  if (rw == 0)
    return;
#ifdef __SSE2__
  __m128i v = _mm_loadl_epi64 ((const __m128i *) r);
  __m128i b = _mm_set1_epi8 ((char) rw);
  /* Ranks below rw age by one, rank rw (way w's) becomes 0. */
  v = _mm_andnot_si128 (_mm_cmpeq_epi8 (v, b), _mm_sub_epi8 (v, _mm_cmplt_epi8 (v, b)));
  _mm_storel_epi64 ((__m128i *) r, v);
#else
  rank_touch_n (r, w, 8);
#endif
}

/* Make L1 way @way of the set at @off (tag index within the CPU's row @r)
 * the most recent; @n the L1's ways as a constant, or 0. */
static ALWAYS_INLINE void
l1_touch (Level *L, const L1Row *r, gsize off, guint way, guint n)
{
  /* PLRU first: most bundled machines' L1s are PLRU. */
  if (!n)
    touch (L, r->row + off, way);
  else if (L->repl == SIM_REPL_PLRU)
    {
      const guint64 *t = L->plru_tab + 2 * way;
      guint64 *p = r->plru + off / n;
      *p = (*p & t[0]) | t[1];
    }
  else if (L->repl == SIM_REPL_LRU && n == 8)
    l1_rank_touch8 (r->st + 2 * off + n, way);
  else if (L->repl == SIM_REPL_LRU)
    rank_touch_n (r->st + 2 * off + n, way, n);
}

/* One line of the CPU whose L1 row is @r; @p is MISS_PACK of the access's
 * kind, class, no way yet and whether its latency goes to the CPU's cycles
 * (MISS_COUNT): what the miss path needs in one register, which leaves the
 * hit path fewer values to keep (it saves three registers, not five).  @n
 * is the L1's ways as a constant (or 0).  The set, its states and the
 * counters come from the row; only a miss needs the set's index in the
 * level, and access_miss computes it. */
static ALWAYS_INLINE guint32
access_line_at (SimMemSys *ms, const L1Row *r, guint64 block, guint p, guint n)
{
  Level *L = &ms->lv[0];
  SimAccKind kind = MISS_KIND (p);
  gsize off = (gsize) (block & L->set_mask) * (n ? n : L->ways);
  SimCpuMemStats *st = r->stats;
  st->level[0].accesses[kind]++;
  int w = n ? find_way_n (r->tag + off, block, n) : find_way (L, r->row + off, block);
  if (G_LIKELY (w >= 0))
    {
      guint8 *sp = r->st + 2 * off;
      guint8 s = sp[w];
      if (kind == SIM_ACC_READ || (s & ST_EXCL))
        {
          /* The fast path: a hit with permission; E -> M is silent. */
          if (kind != SIM_ACC_READ)
            sp[w] = s | ST_DIRTY;
          /* A hit on LRU's most recent way changes no rank (the touch
           * returns at once); PLRU must still point its tree away from
           * the way just used. */
          l1_touch (L, r, off, (guint) w, n);
          if (p & MISS_COUNT)
            st->cycles += L->latency;
          return L->latency;
        }
    }
  return access_miss (ms, r, block, p + MISS_WAY_PACK (w));
}

/* access_line_at with the CPU's row. */
static ALWAYS_INLINE guint32
access_line (SimMemSys *ms, guint cpu, guint64 block, SimAccKind kind, SimMemClass cls,
             guint count, guint n)
{
  return access_line_at (ms, &ms->l1[cpu], block, MISS_PACK (kind, cls, -1, count), n);
}

/* The line of an access's last byte (a size of 0 counts as 1). */
static ALWAYS_INLINE guint64
last_block (const SimMemSys *ms, guint64 addr, guint32 size)
{
  return (addr + (size ? size - 1 : 0)) >> ms->line_shift;
}

/* Does the access end in another line than it starts in, i.e. is
 * last_block () past addr's line?  Its offset in the line plus its size
 * pass the line: one and, one add and one compare.  (Sizes 0 and 1 never
 * straddle; an access whose end wraps past 2^64 straddles, as before.) */
static ALWAYS_INLINE gboolean
straddles (const SimMemSys *ms, guint64 addr, guint32 size)
{
  return (addr & ms->line_mask) + size > ms->line_bytes;
}

/* An access straddling lines: kept out of line, so that the common
 * one-line access needs no loop state. */
static G_GNUC_NO_INLINE guint32
access_straddle (SimMemSys *ms, guint cpu, guint64 b1, guint64 b2, SimAccKind kind,
                 SimMemClass cls)
{
  guint32 lat = access_line (ms, cpu, b1, kind, cls, 0, 0);
  for (guint64 b = b1 + 1; b <= b2; b++)
    {
      guint32 l = access_line (ms, cpu, b, kind, cls, 0, 0);   /* not inside MAX() */
      lat = MAX (lat, l);
    }
  ms->stats[cpu].cycles += lat;
  return lat;
}

/* Every access that is not a one-line access of full mode through an
 * 8-way L1: Cachegrind mode, straddling accesses, other L1s.  Out of line,
 * so that the fast path's few registers are all sim_memsys_access_class
 * saves. */
static G_GNUC_NO_INLINE guint32
access_other (SimMemSys *ms, guint cpu, guint64 addr, guint32 size, SimAccKind kind,
              SimMemClass cls)
{
  if (ms->mode == SIM_MEMSYS_CACHEGRIND)
    return memsys_cg_access (ms, addr, size, kind, cls);
  guint64 b1 = addr >> ms->line_shift;
  if (straddles (ms, addr, size))
    return access_straddle (ms, cpu, b1, last_block (ms, addr, size), kind, cls);
  return access_line (ms, cpu, b1, kind, cls, MISS_COUNT, 0);
}

guint32
sim_memsys_access_class (SimMemSys *ms, guint cpu, guint64 addr, guint32 size,
                         SimAccKind kind, SimMemClass cls)
{
  g_return_val_if_fail (ms != NULL && cpu < ms->n_cpus && (guint) kind < SIM_ACC_N
                        && (guint) cls < SIM_MEM_N_CLASSES, 0);
  /* Full mode, an 8-way L1 (every bundled machine's) and one line, in one
   * compare (SimMemSys.fast_end). */
  if (G_LIKELY ((addr & ms->line_mask) + size < ms->fast_end))
    return access_line (ms, cpu, addr >> ms->line_shift, kind, cls, MISS_COUNT, 8);
  return access_other (ms, cpu, addr, size, kind, cls);
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
    prefetch_set (&ms->lv[l], core_set_base (ms, l, core, block));
  __builtin_prefetch (ms->dir + dir_hash (ms, block) * ms->dir_stride);
}

/* The per-CPU rows of the batch hint (SimMemSys.hint_row). */
static const HintRow *
hint_rows (SimMemSys *ms)
{
  if (ms->hint_row == NULL)
    {
      ms->hint_row = g_new (HintRow, (gsize) ms->n_cpus * ms->n_levels);
      for (guint c = 0; c < ms->n_cpus; c++)
        for (guint l = 0; l < ms->n_levels; l++)
          {
            const Level *L = &ms->lv[l];
            gsize row = ms->core_row[l][ms->core_of[c]];
            ms->hint_row[c * ms->n_levels + l] = (HintRow) { L->tag + row, ST (L, row), row };
          }
    }
  return ms->hint_row;
}

/* One level's host lines of the batch hint, with the level's ways @n as a
 * constant (or 0 for L->ways). */
static ALWAYS_INLINE void
hint_level (const Level *L, const HintRow *row, guint64 block, guint n)
{
  guint ways = n ? n : L->ways;
  gsize i = (gsize) (block & L->set_mask) * ways;
  __builtin_prefetch (row->tag + i);
  if (ways > 8)
    __builtin_prefetch (row->tag + i + ways - 1);
  __builtin_prefetch (row->st + 2 * i);
}

/* sim_memsys_prefetch's full-mode work for a batch, with the CPU's rows at
 * hand (no core lookup, no instance row per level, no mode or CPU test),
 * and without the L1: a core's L1 tags and states (5 KiB for 32 KiB 8-way)
 * stay in the host's caches, and leaving them out measured faster
 * (docs/perf/cghit-12.md).  @w2, @w3: the ways of a three-level machine's
 * L2 and L3 as constants, or 0 for any machine (a loop over its levels). */
static ALWAYS_INLINE void
hint_batch (const SimMemSys *ms, const HintRow *row, guint64 block, guint w2, guint w3)
{
  if (w2)
    {
      hint_level (&ms->lv[1], &row[1], block, w2);
      hint_level (&ms->lv[2], &row[2], block, w3);
    }
  else
    for (guint l = 1; l < ms->n_levels; l++)
      hint_level (&ms->lv[l], &row[l], block, 0);
  __builtin_prefetch (ms->dir + dir_hash (ms, block) * ms->dir_stride);
}

/* A full-mode batch through an 8-way L1: the hint REFS_AHEAD references
 * ahead and the access inlined (no call per reference unless it misses
 * L1).  @w2, @w3: see hint_batch. */
static ALWAYS_INLINE void
refs_full (SimMemSys *ms, const SimMemRef *refs, gsize n, guint w2, guint w3)
{
  const HintRow *rows = hint_rows (ms);
  guint nl = w2 ? 3 : ms->n_levels;
  for (gsize i = 0; i < n; i++)
    {
      if (i + REFS_AHEAD < n)
        {
          const SimMemRef *a = &refs[i + REFS_AHEAD];
          /* A bad CPU is caught when its turn comes. */
          if (G_LIKELY (a->cpu < ms->n_cpus))
            hint_batch (ms, rows + (gsize) a->cpu * nl, a->addr >> ms->line_shift, w2, w3);
        }
      const SimMemRef *r = &refs[i];
      g_return_if_fail (r->cpu < ms->n_cpus && r->kind < SIM_ACC_N);
      guint64 b1 = r->addr >> ms->line_shift;
      if (G_UNLIKELY (straddles (ms, r->addr, r->size)))
        access_straddle (ms, r->cpu, b1, last_block (ms, r->addr, r->size),
                         (SimAccKind) r->kind, SIM_MEM_OTHER);
      else
        {
          access_line (ms, r->cpu, b1, (SimAccKind) r->kind, SIM_MEM_OTHER, MISS_COUNT, 8);
        }
    }
}

void
sim_memsys_access_refs (SimMemSys *ms, const SimMemRef *refs, gsize n)
{
  g_return_if_fail (ms != NULL && (refs != NULL || n == 0));
  if (ms->mode == SIM_MEMSYS_CACHEGRIND)
    {
      memsys_cg_access_refs (ms, refs, n);
      return;
    }
  /* Every bundled machine's L1 has 8 ways; most have three levels of 8,
   * 8 and 16 (Nehalem, Haswell, Zen 1). */
  if (ms->lv[0].ways == 8)
    {
      if (ms->n_levels == 3 && ms->lv[1].ways == 8 && ms->lv[2].ways == 16)
        refs_full (ms, refs, n, 8, 16);
      else
        refs_full (ms, refs, n, 0, 0);
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

/* The entry of @block: the directory's, or on a core-valid machine that
 * of the one socket whose shared copy holds it without ST_XS (built in
 * @buf); NULL if there is none. */
static DirEnt *
check_entry (SimMemSys *ms, guint64 block, CvEnt *buf)
{
  if (!ms->corevalid)
    return dir_find (ms, block);
  const Level *L = &ms->lv[ms->n_private];
  for (guint t = 0; t < ms->m->sockets; t++)
    {
      gsize base = set_base (L, t, block);
      int w = find_way (L, base, block);
      if (w < 0)
        continue;
      if (ST (L, base)[w] & ST_XS)
        return dir_find (ms, block);
      return cv_ent (ms, buf, block, t, &ms->cvl[base + (guint) w], SH_ANY);
    }
  return NULL;
}

/* A core-valid machine's shared level (SimMemSys.corevalid): a line with
 * ST_XS is in the directory, which names at least two sockets' copies, each
 * with ST_XS; a line without is in no other socket's copy and not in the
 * directory, its core-valid bits are exactly the socket's cores that hold
 * it, and its owner and forwarder hold it. */
static gboolean
check_corevalid (SimMemSys *ms, GError **error)
{
  guint lc = ms->n_private, cps = ms->m->cores_per_socket;
  const Level *L = &ms->lv[lc];
  for (guint i = 0; i < L->n_inst; i++)
    for (gsize k = (gsize) i * L->sets * L->ways; k < (gsize) (i + 1) * L->sets * L->ways; k++)
      {
        guint64 b = L->tag[k];
        if (b == NO_LINE)
          continue;
        guint dom = L->dom_base + i;
        guint8 bits = ST (L, k - k % L->ways)[k % L->ways];
        DirEnt *e = dir_find (ms, b);
        guint t = 0;
        if (bits & ST_XS)
          {
            if (e == NULL)
              return check_fail (error, "line with ST_XS not in the directory", b, dom);
            if (cv_sockets (ms, e->mask, &t, SH_ANY) < 2)
              return check_fail (error, "directory entry of a line one socket holds", b, dom);
            for (guint s = 0; s < ms->m->sockets; s++)
              if (bit_test (e->mask, L->dom_base + s))
                {
                  gsize sb = set_base (L, s, b);
                  int sw = find_way (L, sb, b);
                  if (sw < 0 || !(ST (L, sb)[sw] & ST_XS))
                    return check_fail (error, "a holding socket's copy lacks ST_XS", b,
                                       L->dom_base + s);
                }
            continue;
          }
        if (e != NULL)
          return check_fail (error, "line of one socket in the directory", b, dom);
        for (guint s = 0; s < ms->m->sockets; s++)
          if (s != i && find_way (L, set_base (L, s, b), b) >= 0)
            return check_fail (error, "line in two sockets without ST_XS", b, dom);
        const CvLine *c = &ms->cvl[k];
        if (cps < 64 && (c->cv >> cps))
          return check_fail (error, "core-valid bit beyond the socket's cores", b, dom);
        for (guint j = 0; j < cps; j++)
          if ((gboolean) ((c->cv >> j) & 1) != core_holds (ms, i * cps + j, b))
            return check_fail (error, "core-valid bit differs from the core's copies", b,
                               i * cps + j);
        if (c->owner >= 0 && (guint) c->owner != dom
            && !((guint) c->owner >= i * cps && (guint) c->owner < (i + 1) * cps
                 && ((c->cv >> ((guint) c->owner - i * cps)) & 1)))
          return check_fail (error, "owner is not a holder", b, (guint) c->owner);
        if (c->fwd >= 0
            && !((guint) c->fwd >= i * cps && (guint) c->fwd < (i + 1) * cps
                 && ((c->cv >> ((guint) c->fwd - i * cps)) & 1)))
          return check_fail (error, "forwarder is not a holder", b, (guint) c->fwd);
      }
  return TRUE;
}

gboolean
sim_memsys_check (const SimMemSys *ms, GError **error)
{
  if (ms->mode == SIM_MEMSYS_CACHEGRIND)
    return TRUE;
  SimMemSys *w = (SimMemSys *) ms;   /* lookups only; dir_find does not write */
  CvEnt buf;
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
                if (L->repl == SIM_REPL_PLRU && plru_valid_kept (L->ways)
                    && ((L->plru[k / L->ways] >> (PLRU_VALID + way)) & 1) != (b != NO_LINE))
                  return check_fail (error, "PLRU valid bit differs from the way's tag", b, i);
                if (b == NO_LINE)
                  continue;
                if ((b & L->set_mask) != set)
                  return check_fail (error, "line in the wrong set", b, i);
                guint dom = L->private_ ? i : L->dom_base + i;
                if ((ST (L, k - way)[way] & ST_XS) && !(ms->corevalid && l == ms->n_private))
                  return check_fail (error, "ST_XS outside the core-valid level", b, dom);
                DirEnt *e = check_entry (w, b, &buf);
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
                /* Inclusion: every inclusive level further out on the
                 * copy's path holds it too (what back-invalidation keeps). */
                for (guint j = l + 1; j < ms->n_levels; j++)
                  {
                    const Level *J = &ms->lv[j];
                    if (J->incl != SIM_INCL_INCLUSIVE)
                      continue;
                    guint ji = L->private_ ? inst_of (ms, j, i) : i / (J->group / L->group);
                    if (find_way (J, set_base (J, ji, b), b) < 0)
                      return check_fail (error, "copy missing from an inclusive level on its path",
                                         b, dom);
                  }
              }
          }
    }
  /* Every directory holder holds the line; owners hold it. */
  guint64 entries = 0;
  for (guint64 s = 0; s <= ms->dir_cap_mask; s++)
    {
      DirEnt *e = dir_at (w, s);
      if (e->key == DIR_EMPTY)
        continue;
      guint64 block = dir_block (e);
      entries++;
      gboolean any = FALSE;
      for (guint d = 0; d < ms->n_dom; d++)
        {
          if (!bit_test (e->mask, d))
            continue;
          any = TRUE;
          gboolean held;
          if (d < ms->n_cores)
            held = core_holds (ms, d, block);
          else
            {
              guint inst;
              guint l = dom_level (ms, d, &inst);
              const Level *L = &ms->lv[l];
              held = find_way (L, set_base (L, inst, block), block) >= 0;
            }
          if (!held)
            return check_fail (error, "directory holder without the line", block, d);
        }
      if (!any)
        return check_fail (error, "directory entry without holders", block, 0);
      if (e->owner >= 0 && !bit_test (e->mask, (guint) e->owner))
        return check_fail (error, "owner is not a holder", block, (guint) e->owner);
      if (dir_find (w, block) != e)
        return check_fail (error, "directory entry unreachable", block, 0);
    }
  if (entries != ms->dir_count)
    return check_fail (error, "directory entry count is off", 0, 0);
  return !ms->corevalid || check_corevalid (w, error);
}
