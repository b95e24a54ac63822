/* memsys-build.c - building the cache model from a SimMachine, and what
 * reports read back from it.
 *
 * sim_memsys_check_machine and sim_memsys_check_level say whether a machine
 * can be modelled (private levels first, nesting groups of cores, one line
 * size, power-of-two sets, bounded host memory) before anything is
 * allocated, so that a bad machine file is an error naming the level and
 * key.  sim_memsys_new then lays out every level as one tag array and one
 * state/rank byte array over all its instances (memsys-internal.h), the
 * directory sized for every line of every cache (memsys.c), the coherence
 * domains and their sockets, and the per-core tables (level instance,
 * shared-domain path, first CPU) that keep divisions off the access path.
 * The arrays over 2 MiB are offered to the host as transparent huge pages.
 * The rest of the file is the queries: geometry, holds, counters, the home
 * node of an address.  Cachegrind mode's constructor is in memsys-cg.c.
 */
#include "models/cache/memsys-internal.h"
#include "sim/core/errors.h"

#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* ---- Host memory --------------------------------------------------------- */

/* The directory and the shared levels' tag arrays are megabytes that every
 * private miss probes at random: with 4 KiB host pages nearly each probe is
 * also a TLB miss and a page walk, which cost as much as the cache miss
 * itself.  Large arrays are therefore aligned to 2 MiB and offered to the
 * kernel as transparent huge pages (a hint: where THP is off this is plain
 * aligned memory).  Contents are zeroed; free with big_free(). */
#define BIG_ALIGN ((gsize) 2 << 20)

/* NULL when the host refuses (the caller says what for): a machine with
 * caches too big for this host is an error to report, not an abort.  The
 * memory comes from calloc, which knows when it is fresh from the kernel
 * (already zero: nothing is written, and pages the model never uses are
 * never touched) and clears only memory it reuses; a memset here wrote
 * every byte of the directory (12 MiB for nehalem-ep-2s) once more.  It is
 * over-allocated so that the array can start on an @align boundary, with
 * calloc's pointer stored just below it for big_free. */
static gpointer
big_alloc0 (gsize bytes)
{
  gsize align = bytes < BIG_ALIGN ? 64 : BIG_ALIGN;
  gsize rounded = (MAX (bytes, 1) + align - 1) & ~(align - 1);
  if (rounded < bytes || rounded > G_MAXSIZE - align)
    return NULL;
  char *raw = calloc (1, rounded + align);
  if (raw == NULL)
    return NULL;
  char *p = (char *) (((guintptr) raw + sizeof (gpointer) + align - 1) & ~(guintptr) (align - 1));
  ((gpointer *) p)[-1] = raw;
#ifdef MADV_HUGEPAGE
  if (align == BIG_ALIGN)
    madvise (p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

static void
big_free (gpointer p)
{
  if (p)
    free (((gpointer *) p)[-1]);
}

/* Tree-PLRU's touch table: per way, the and-mask and or-mask that point
 * every node on its path away from it (memsys-internal.h, plru_touch). */
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
  /* The victim of every tree, for the levels whose tree is small enough
   * (memsys-internal.h, plru_victim_of): the walk down the tree, once. */
  if (L->ways <= PLRU_VIC_MAX_WAYS)
    {
      guint n_trees = 1u << (L->ways - 1);
      L->plru_vic = g_new0 (guint8, n_trees);
      for (guint t = 0; t < n_trees; t++)
        {
          guint node = 0, way = 0;
          for (guint span = L->ways; span > 1; span >>= 1)
            {
              guint right = (t >> node) & 1;
              way |= right * (span >> 1);
              node = 2 * node + 1 + right;
            }
          L->plru_vic[t] = (guint8) way;
        }
    }
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

gboolean
memsys_level_init (Level *L, const SimCacheLevelSpec *spec, guint n_inst, GError **error)
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

/* ---- Construction ------------------------------------------------------ */

/* Does the full-mode machine of @ms keep core-valid bits in its shared
 * level (SimMemSys.corevalid)?  The common shape of Nehalem and its
 * successors: exactly one shared level, after the private ones, inclusive,
 * one instance per socket of at most 64 cores (one CvLine word), no
 * exclusive (victim) private level, and few enough directory words for the
 * miss path's entry on the stack.  Every other machine keeps every line's
 * holders in the directory.  The bits are opt-in, SLABSIM_COREVALID=1:
 * both ways give the same results, and on the bundled hackbench trace the
 * bits cost more host instructions than the directory probes they save
 * (run -a slub@6.18 --jobs 1: 1,155.8 M with them, 1,115.2 M without;
 * docs/perf/corevalid-12.md), so the default keeps the directory. */
static gboolean
memsys_corevalid (const SimMemSys *ms)
{
  if (ms->mode != SIM_MEMSYS_FULL || ms->n_private == 0 || ms->n_levels != ms->n_private + 1)
    return FALSE;
  const Level *L = &ms->lv[ms->n_private];
  if (L->incl != SIM_INCL_INCLUSIVE || L->inst_per_socket != 1
      || L->group != ms->m->cores_per_socket || ms->m->cores_per_socket > 64
      || ms->mask_words > CV_MAX_WORDS)
    return FALSE;
  for (guint l = 1; l < ms->n_private; l++)
    if (ms->lv[l].incl == SIM_INCL_EXCLUSIVE)
      return FALSE;
  const char *on = g_getenv ("SLABSIM_COREVALID");
  return on != NULL && strcmp (on, "1") == 0;
}

SimMemSys *
memsys_alloc (SimMemSysMode mode, guint n_cpus)
{
  SimMemSys *ms = g_new0 (SimMemSys, 1);
  ms->mode = mode;
  ms->n_cpus = n_cpus;
  ms->stats = g_new0 (SimCpuMemStats, n_cpus);
  ms->core_state = g_new0 (gpointer, n_cpus);
  return ms;
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
      if (!memsys_level_init (&ms->lv[l], s, n_inst_of_level (m, s), error))
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
  ms->line_bytes = 1u << ms->line_shift;
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
  ms->dir_shift = 64 - (ms->dir_bits - DIR_CHUNK_BITS);
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
  /* Zeroed: every slot empty (DirEnt.key). */
  ms->path = g_new0 (guint64, (gsize) ms->n_cores * ms->mask_words);
  for (guint c = 0; c < ms->n_cores; c++)
    for (guint l = ms->n_private; l < ms->n_levels; l++)
      {
        guint d = ms->lv[l].dom_base + inst_of_slow (ms, l, c);
        ms->path[(gsize) c * ms->mask_words + d / 64] |= G_GUINT64_CONSTANT (1) << (d % 64);
      }
  ms->sock_dom = g_new0 (guint64, (gsize) m->sockets * ms->mask_words);
  for (guint d = 0; d < ms->n_dom; d++)
    ms->sock_dom[(gsize) ms->dom_socket[d] * ms->mask_words + d / 64]
      |= G_GUINT64_CONSTANT (1) << (d % 64);
  /* Instance of every level for every core, so the hot path never divides. */
  for (guint l = 0; l < ms->n_levels; l++)
    {
      ms->inst_tab[l] = g_new (guint, ms->n_cores);
      ms->core_row[l] = g_new (gsize, ms->n_cores);
      for (guint c = 0; c < ms->n_cores; c++)
        {
          ms->inst_tab[l][c] = inst_of_slow (ms, l, c);
          ms->core_row[l][c] = set_base (&ms->lv[l], ms->inst_tab[l][c], 0);
        }
    }
  ms->l1 = g_aligned_alloc0 (m->n_cpus, sizeof (L1Row), 64);
  for (guint c = 0; c < m->n_cpus; c++)
    {
      Level *L1 = &ms->lv[0];
      gsize row = ms->core_row[0][ms->core_of[c]];
      ms->l1[c] = (L1Row) { L1->tag + row, ST (L1, row),
                            L1->plru ? L1->plru + row / L1->ways : NULL, &ms->stats[c], row,
                            c, ms->core_of[c], { 0 } };
    }
  ms->line_mask = ms->line_bytes - 1;
  ms->fast_end = ms->mode == SIM_MEMSYS_FULL && ms->lv[0].ways == 8 ? ms->line_bytes + 1 : 0;
  ms->shape_3l = ms->mode == SIM_MEMSYS_FULL && memsys_shape_3l (ms);
  ms->corevalid = memsys_corevalid (ms);
  if (ms->corevalid)
    {
      const Level *L = &ms->lv[ms->n_private];
      gsize n = (gsize) L->n_inst * L->sets * L->ways;
      ms->cvl = big_alloc0 (n * sizeof (CvLine));
      if (ms->cvl == NULL)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_HOST_MEMORY,
                       "machine %s: the host cannot give the %" G_GSIZE_FORMAT " bytes of "
                       "the %s's core-valid bits", m->name ? m->name : "?",
                       n * sizeof (CvLine), m->levels[ms->n_private].name);
          return NULL;
        }
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
      g_free (ms->lv[l].plru_vic);
    }
  g_free (ms->core_of);
  g_free (ms->cpu_of_core);
  g_free (ms->dom_socket);
  g_free (ms->path);
  g_free (ms->sock_dom);
  g_free (ms->stats);
  if (ms->core_state)
    for (guint c = 0; c < ms->n_cpus; c++)
      g_free (ms->core_state[c]);
  g_free (ms->core_state);
  g_free (ms->hint_row);
  g_aligned_free (ms->l1);
  big_free (ms->dir);
  big_free (ms->cvl);
  for (guint l = 0; l < ms->n_levels; l++)
    {
      g_free (ms->inst_tab[l]);
      g_free (ms->core_row[l]);
    }
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

