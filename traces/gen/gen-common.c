/* gen-common.c - era table, scheduler, slab-like address allocator and
 * output of the synthetic trace generators.  See gen-common.h for the
 * model; docs/trace-gen.md for the per-era choices and their sources.
 */
#include "traces/gen/gen-common.h"
#include "traces/gen/gen-writer.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "traces/native.h"

#include <string.h>
#include <glib/gstdio.h>

static const SimGenWorkload *const workloads[] = {
  &sim_gen_hackbench,
  &sim_gen_netperf_udp,
  &sim_gen_tbench,
  &sim_gen_kbuild,
  &sim_gen_slab_test,
  NULL
};

const SimGenWorkload *const *
sim_gen_workloads (void)
{
  return workloads;
}

const SimGenWorkload *
sim_gen_workload_find (const char *name)
{
  for (guint i = 0; workloads[i]; i++)
    if (g_strcmp0 (workloads[i]->name, name) == 0)
      return workloads[i];
  return NULL;
}

char *
sim_gen_workload_names (void)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; workloads[i]; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", workloads[i]->name);
  return g_string_free (s, FALSE);
}

/* ---- kernel eras ---- */

gboolean
sim_gen_era_parse (const char *text, SimGenEra *era, GError **error)
{
  guint64 part[3] = { 0, 0, 0 };
  guint n = 0;
  const char *p = text;
  while (n < 3)
    {
      char *end = NULL;
      if (!g_ascii_isdigit (*p))
        break;
      part[n++] = g_ascii_strtoull (p, &end, 10);
      p = end;
      /* a dot must be followed by another number */
      if (*p != '.' || !g_ascii_isdigit (p[1]))
        break;
      p++;
    }
  gboolean ok = *p == '\0' && n >= 2 && part[0] < 256 && part[1] < 256 && part[2] < 256;
  if (ok && part[0] == 2)
    ok = part[1] == 6 && n == 3 && part[2] >= 23 && part[2] <= 39;
  else if (ok)
    ok = (part[0] == 3 && part[1] <= 19) || (part[0] == 4 && part[1] <= 20)
         || (part[0] == 5 && part[1] <= 19) || (part[0] == 6 && part[1] <= 18);
  if (!ok)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "--kernel: \"%s\" is not a kernel version this generator knows "
                   "(expected 2.6.23 ... 2.6.39, 3.0 ... 3.19, 4.0 ... 4.20, "
                   "5.0 ... 5.19 or 6.0 ... 6.18, e.g. 2.6.34 or 6.18)", text);
      return FALSE;
    }
  memset (era, 0, sizeof *era);
  guint v = SIM_GEN_KVER ((guint) part[0], (guint) part[1], (guint) part[2]);
  era->version = v;
  g_strlcpy (era->text, text, sizeof era->text);
  era->prefix = v < SIM_GEN_KVER (3, 3, 0) ? SIM_GEN_PREFIX_OLD
              : v < SIM_GEN_KVER (5, 11, 0) ? SIM_GEN_PREFIX_IRQINFO
              : SIM_GEN_PREFIX_MODERN;
  era->bh_label = v >= SIM_GEN_KVER (5, 18, 0);
  era->symbolic_call_site = v >= SIM_GEN_KVER (5, 4, 0);
  era->node_everywhere = v >= SIM_GEN_KVER (6, 1, 0);
  era->accounted = v >= SIM_GEN_KVER (6, 0, 0);
  era->name_on_free = v >= SIM_GEN_KVER (5, 12, 0);
  era->name_on_alloc = v >= SIM_GEN_KVER (6, 18, 0);
  era->pfn_hex = v >= SIM_GEN_KVER (5, 14, 0);
  era->page_free_renamed = v >= SIM_GEN_KVER (3, 3, 0);
  era->null_as_zeros = v >= SIM_GEN_KVER (4, 15, 0);
  era->page_offset = v >= SIM_GEN_KVER (4, 20, 0) ? G_GUINT64_CONSTANT (0xffff888000000000)
                                                  : G_GUINT64_CONSTANT (0xffff880000000000);
  /* allocators.md 1.6: 2.6.23 had kmalloc caches up to 4 MiB, 2.6.24
   * passed > PAGE_SIZE/2 to the page allocator, 2.6.25-29 kept
   * kmalloc-4096, then kmalloc-8192 is the largest cache. */
  era->kmalloc_max = v < SIM_GEN_KVER (2, 6, 24) ? 4u << 20
                   : v < SIM_GEN_KVER (2, 6, 25) ? 2048
                   : v < SIM_GEN_KVER (2, 6, 30) ? 4096 : 8192;
  /* sizeof (struct skb_shared_info) on x86-64: 312 before the DMA and
   * timestamp fields (2.6.23), 496 with dma_head/dma_maps[] and hwtstamps
   * (2.6.28-2.6.33, layout computed, not measured), 344 in 2.6.34 (read in
   * the source), 320 from 3.x on (6.18 agrees with the real traces). */
  era->shinfo = v < SIM_GEN_KVER (2, 6, 28) ? 312
              : v < SIM_GEN_KVER (2, 6, 34) ? 496
              : v < SIM_GEN_KVER (3, 0, 0) ? 344 : 320;
  era->shinfo_aligned = v >= SIM_GEN_KVER (3, 2, 0);
  era->skb_roundup = v >= SIM_GEN_KVER (6, 2, 0);
  era->sk_buff_size = v < SIM_GEN_KVER (5, 0, 0) ? 232 : 224;
  return TRUE;
}

guint
sim_gen_kmalloc_class (const SimGenEra *era, gsize size)
{
  if (size > era->kmalloc_max)
    return 0;
  if (size <= 8)
    return 8;
  if (size > 64 && size <= 96)
    return 96;
  if (size > 128 && size <= 192)
    return 192;
  guint c = 8;
  while (c < size)
    c <<= 1;
  return c;
}

#define SKB_ALIGN64(x) (((x) + 63u) & ~63u)

guint
sim_gen_skb_data_req (const SimGenEra *era, gsize size)
{
  guint s = SKB_ALIGN64 ((guint) size);
  s += era->shinfo_aligned ? SKB_ALIGN64 (era->shinfo) : era->shinfo;
  if (era->skb_roundup)
    {
      guint c = sim_gen_kmalloc_class (era, s);
      if (c)
        s = c;
    }
  return s;
}

/* ---- generator state ---- */

typedef struct {
  guint64 clock;
  GArray *queue;        /* SimGenEvent, time-ordered */
  guint   qhead;
  SimGenTask *current;
  guint64 slice_end;    /* the current task yields after this time */
  guint   scan;         /* round-robin start in g->tasks */
  gboolean parked;      /* no task at all: out of the race until one comes */
  gboolean idle;        /* did not run when last stepped */
  guint64 parked_clock; /* its clock when parked */
} SimGenCpu;

struct _SimGenCache {
  const char *name;     /* interned ("kmalloc-512" for kmalloc caches) */
  guint  object_size, size, order, per_slab;
  gboolean kmalloc;
  GArray **cpu_free;    /* per CPU LIFO stack of guint64 */
  GArray **node_free;   /* per node pool */
  guint64 *slab_next, *slab_end;  /* per CPU current slab */
};

/* A slab: how many of its objects users hold. */
typedef struct {
  guint inuse;
  guint64 exts;         /* memcg obj_exts vector (6.10+), 0: none yet */
} SimGenSlab;

typedef struct {
  SimGenCache *cache;   /* NULL: large kmalloc pages */
  guint        cpu;     /* allocating CPU */
  guint        order;
} SimGenObj;

/* The live objects and the slabs, keyed by address: open addressing with
 * linear probing and the values in the slots.  These two lookups run for
 * every event, and a GHashTable (a hash call, a malloc'd value per entry)
 * was a third of the generator's time.  Keys are never 0 (no object or slab
 * lives at address 0), so 0 marks an empty slot.  Nothing iterates the map,
 * so its order cannot reach the output. */
typedef struct {
  guint64 key;
  union {
    SimGenObj  obj;
    SimGenSlab slab;
  };
} SimGenSlot;

typedef struct {
  SimGenSlot *slots;
  guint64     mask;     /* capacity - 1 (a power of two) */
  guint64     n;
  guint       shift;    /* 64 - log2 (capacity) */
} SimGenMap;

static void
map_init (SimGenMap *m)
{
  m->mask = 1023;
  m->shift = 64 - 10;
  m->n = 0;
  m->slots = g_new0 (SimGenSlot, m->mask + 1);
}

static inline guint64
map_home (const SimGenMap *m, guint64 key)
{
  return (key * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> m->shift;
}

static SimGenSlot *
map_find (SimGenMap *m, guint64 key)
{
  if (key == 0)
    return NULL;
  for (guint64 i = map_home (m, key);; i = (i + 1) & m->mask)
    {
      SimGenSlot *s = &m->slots[i];
      if (s->key == key)
        return s;
      if (s->key == 0)
        return NULL;
    }
}

static void map_grow (SimGenMap *m);

/* The slot of @key, a zeroed new one if it was absent.  The pointer is
 * good until the next map_get or map_remove. */
static SimGenSlot *
map_get (SimGenMap *m, guint64 key)
{
  g_assert (key != 0);
  if ((m->n + 1) * 4 > (m->mask + 1) * 3)
    map_grow (m);
  guint64 i = map_home (m, key);
  for (;; i = (i + 1) & m->mask)
    {
      SimGenSlot *s = &m->slots[i];
      if (s->key == key)
        return s;
      if (s->key == 0)
        break;
    }
  SimGenSlot *s = &m->slots[i];
  memset (s, 0, sizeof *s);
  s->key = key;
  m->n++;
  return s;
}

static void
map_grow (SimGenMap *m)
{
  SimGenSlot *old = m->slots;
  guint64 cap = m->mask + 1;
  m->mask = cap * 2 - 1;
  m->shift--;
  m->slots = g_new0 (SimGenSlot, cap * 2);
  for (guint64 j = 0; j < cap; j++)
    if (old[j].key)
      {
        guint64 i = map_home (m, old[j].key);
        while (m->slots[i].key)
          i = (i + 1) & m->mask;
        m->slots[i] = old[j];
      }
  g_free (old);
}

/* Remove @s (a slot of @m) by shifting later members of its probe run
 * back, so lookups never need tombstones. */
static void
map_remove_slot (SimGenMap *m, SimGenSlot *s)
{
  guint64 hole = (guint64) (s - m->slots);
  for (guint64 i = (hole + 1) & m->mask; m->slots[i].key; i = (i + 1) & m->mask)
    {
      guint64 home = map_home (m, m->slots[i].key);
      /* can the entry at i move to the hole (is hole in [home, i] cyclically)? */
      if (((i - home) & m->mask) >= ((i - hole) & m->mask))
        {
          m->slots[hole] = m->slots[i];
          hole = i;
        }
    }
  m->slots[hole].key = 0;
  m->n--;
}

/* Interning the strings generators pass (string literals, mostly) on every
 * event: g_intern_string hashes the string under a global lock.  A small
 * direct-mapped memo keyed by the caller's pointer returns the interned copy
 * after one compare of the contents (so a caller's reused buffer with other
 * text is still right). */
#define INTERN_MEMO 256
typedef struct {
  const char *key[INTERN_MEMO];
  const char *val[INTERN_MEMO];
} SimGenInternMemo;

static const char *
memo_intern (SimGenInternMemo *m, const char *s)
{
  guint h = (guint) (((guintptr) s >> 3) ^ ((guintptr) s >> 11)) & (INTERN_MEMO - 1);
  if (m->key[h] == s && (m->val[h] == s || strcmp (s, m->val[h]) == 0))
    return m->val[h];
  m->key[h] = s;
  m->val[h] = g_intern_string (s);
  return m->val[h];
}

struct _SimGen {
  SimGenOptions opts;
  const SimGenEra *era;
  SimRng rng, place_rng;
  guint ncpus, nnodes;
  SimGenCpu *cpus;
  GPtrArray *tasks;       /* live tasks */
  GPtrArray *all_tasks;   /* for freeing */
  GPtrArray *owned;       /* sim_gen_own */
  GHashTable *caches;     /* name -> SimGenCache */
  GHashTable *kmalloc;    /* class -> SimGenCache */
  SimGenMap live;         /* ptr -> SimGenObj */
  SimGenMap slabs;        /* slab base address -> SimGenSlab */
  SimGenInternMemo intern;
  SimGenInternMemo gfp_memo;  /* interned flags -> as the era prints them */
  const char *site_key[INTERN_MEMO];  /* interned call site -> its %lx address */
  guint64 site_addr[INTERN_MEMO];
  guint64 *node_next_pfn;
  GArray **free_pages;    /* [node * 11 + order]: LIFO of freed pfns */
  int next_pid;
  guint running_cpu;      /* the CPU whose task is stepping */
  guint finished;         /* tasks done but still in g->tasks */
  SimGenStats stats;
  guint64 stalls;         /* scheduler steps since a task last ran */
  GString *out;           /* formatted lines not yet written or read */
  gsize out_pos;          /* bytes of out already read (sim_gen_stream) */
};

const SimGenOptions *
sim_gen_options (SimGen *g)
{
  return &g->opts;
}

SimRng *
sim_gen_rng (SimGen *g)
{
  return &g->rng;
}

guint
sim_gen_ncpus (SimGen *g)
{
  return g->ncpus;
}

guint64
sim_gen_now (SimGen *g, guint cpu)
{
  return g->cpus[cpu].clock;
}

void
sim_gen_spend (SimGen *g, guint cpu, guint64 ns)
{
  g->cpus[cpu].clock += ns;
}

const char *
sim_gen_gfp (SimGen *g, const char *flags)
{
  const char *key = memo_intern (&g->intern, flags);
  if (g->era->version >= SIM_GEN_KVER (4, 6, 0))
    return key;
  /* interned keys keep their contents: the pointer alone identifies them */
  guint h = (guint) ((guintptr) key >> 3) & (INTERN_MEMO - 1);
  if (g->gfp_memo.key[h] == key)
    return g->gfp_memo.val[h];
  /* Before the 4.6 unification of gfp flag names (trace/events/mmflags.h)
   * the modifier bits printed without leading underscores. */
  GString *s = g_string_new (NULL);
  for (const char *p = flags; *p;)
    {
      if (g_str_has_prefix (p, "__GFP_"))
        p += 2;
      g_string_append_c (s, *p++);
    }
  const char *r = g_intern_string (s->str);
  g_string_free (s, TRUE);
  g->gfp_memo.key[h] = key;
  g->gfp_memo.val[h] = r;
  return r;
}

guint64
sim_gen_cost (SimGen *g, guint64 lo, guint64 hi)
{
  return lo + sim_rng_below (&g->rng, hi - lo + 1);
}

static guint
node_of (SimGen *g, guint cpu)
{
  /* CPUs are split into equal consecutive blocks per socket/node. */
  guint per = (g->ncpus + g->nnodes - 1) / g->nnodes;
  return cpu / per;
}

/* A task arrives on @cpu at the time of the CPU now running. */
static void
unpark (SimGen *g, guint cpu)
{
  SimGenCpu *c = &g->cpus[cpu];
  if (!c->parked)
    return;
  c->parked = FALSE;
  c->idle = FALSE;
  guint64 now = g->cpus[g->running_cpu].clock;
  if (g->cpus[g->running_cpu].parked)
    now = c->parked_clock;
  c->clock = MAX (c->parked_clock, now);
}

SimGenTask *
sim_gen_spawn (SimGen *g, const char *comm, guint cpu, SimGenStepFn step,
               gpointer data)
{
  SimGenTask *t = g_new0 (SimGenTask, 1);
  t->comm = g_intern_string (comm);
  t->pid = g->next_pid++;
  /* pid_max: 32768 by default on old kernels, 4194304 on current
   * 64-bit distributions; allocation wraps to RESERVED_PIDS (300). */
  if (g->next_pid >= (g->era->version < SIM_GEN_KVER (5, 0, 0) ? 32768 : 4194304))
    g->next_pid = 300;
  t->cpu = cpu % g->ncpus;
  t->step = step;
  t->data = data;
  g_ptr_array_add (g->tasks, t);
  g_ptr_array_add (g->all_tasks, t);
  unpark (g, t->cpu);
  return t;
}

void
sim_gen_not_owned (gpointer data)
{
  (void) data;
}

void
sim_gen_spawn_pair (SimGen *g, guint i, const char *comm_a, SimGenStepFn step_a,
                    const char *comm_b, SimGenStepFn step_b, gpointer data)
{
  SimGenTask *a = sim_gen_spawn (g, comm_a, sim_gen_place (g, 2 * i), step_a, data);
  SimGenTask *b = sim_gen_spawn (g, comm_b, sim_gen_place (g, 2 * i + 1), step_b, data);
  a->destroy = sim_gen_not_owned;
  b->destroy = sim_gen_not_owned;
}

void
sim_gen_own (SimGen *g, gpointer data, GDestroyNotify destroy)
{
  g_ptr_array_add (g->owned, data);
  g_ptr_array_add (g->owned, (gpointer) destroy);
}

void
sim_gen_migrate (SimGen *g, SimGenTask *t, guint cpu)
{
  cpu %= g->ncpus;
  if (cpu == t->cpu)
    return;
  unpark (g, cpu);
  /* The task cannot run on the new CPU before it left the old one. */
  if (g->cpus[cpu].clock < g->cpus[t->cpu].clock)
    g->cpus[cpu].clock = g->cpus[t->cpu].clock;
  if (g->cpus[t->cpu].current == t)
    g->cpus[t->cpu].current = NULL;
  t->cpu = cpu;
}

guint
sim_gen_place (SimGen *g, guint i)
{
  if (g->opts.random_placement)
    return (guint) sim_rng_below (&g->place_rng, g->ncpus);
  return i % g->ncpus;
}

/* ---- events ---- */

static void
push_event (SimGen *g, SimGenTask *t, SimGenEvent *e, guint64 lo, guint64 hi)
{
  SimGenCpu *c = &g->cpus[t->cpu];
  e->ts = c->clock;
  e->cpu = (guint16) t->cpu;
  e->comm = t->comm;
  e->pid = t->pid;
  e->ctx = (guint8) t->ctx;
  if (e->site && !g->era->symbolic_call_site)
    {
      /* the synthetic System.map address (a hash and a number parse) */
      guint h = (guint) ((guintptr) e->site >> 3) & (INTERN_MEMO - 1);
      if (g->site_key[h] != e->site)
        {
          g->site_key[h] = e->site;
          g->site_addr[h] = sim_gen_site_address (e->site);
        }
      e->site_addr = g->site_addr[h];
    }
  g_array_append_val (c->queue, *e);
  c->clock += sim_gen_cost (g, lo, hi);
  g->stats.events++;
}

static guint64
page_alloc (SimGen *g, SimGenTask *t, guint order, const char *gfp,
            guint migratetype)
{
  guint64 pfn;
  guint node = node_of (g, t->cpu);
  GArray *fl = g->free_pages[node * 11 + order];
  if (fl->len > 0)
    {
      pfn = g_array_index (fl, guint64, fl->len - 1);
      g_array_set_size (fl, fl->len - 1);
    }
  else
    {
      guint64 n = 1u << order;
      pfn = (g->node_next_pfn[node] + n - 1) & ~(n - 1);
      g->node_next_pfn[node] = pfn + n;
    }
  if (g->opts.page_events)
    {
      SimGenEvent e = { 0 };
      e.kind = SIM_GEN_EV_PAGE_ALLOC;
      e.ptr = pfn;
      e.order = (guint8) order;
      e.migratetype = (guint8) migratetype;
      e.gfp = memo_intern (&g->intern, gfp);
      push_event (g, t, &e, 150, 600);
      g->stats.page_allocs++;
    }
  return pfn;
}

static void
page_free (SimGen *g, SimGenTask *t, guint64 pfn, guint order)
{
  /* back to the free list of the node the page belongs to */
  guint node = (guint) MIN ((pfn - 0x100000) / 0x400000, (guint64) g->nnodes - 1);
  g_array_append_val (g->free_pages[node * 11 + order], pfn);
  if (g->opts.page_events)
    {
      SimGenEvent e = { 0 };
      e.kind = SIM_GEN_EV_PAGE_FREE;
      e.ptr = pfn;
      e.order = (guint8) order;
      push_event (g, t, &e, 100, 400);
      g->stats.page_frees++;
    }
}

static guint64
pfn_to_virt (SimGen *g, guint64 pfn)
{
  return g->era->page_offset + pfn * 4096;
}

static SimGenCache *
cache_new (SimGen *g, const char *name, guint object_size, guint size, guint order,
           gboolean kmalloc)
{
  SimGenCache *c = g_new0 (SimGenCache, 1);
  c->name = g_intern_string (name);
  c->object_size = object_size;
  c->size = size;
  c->order = order;
  c->per_slab = (4096u << order) / size;
  c->kmalloc = kmalloc;
  c->cpu_free = g_new0 (GArray *, g->ncpus);
  c->slab_next = g_new0 (guint64, g->ncpus);
  c->slab_end = g_new0 (guint64, g->ncpus);
  for (guint i = 0; i < g->ncpus; i++)
    c->cpu_free[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
  c->node_free = g_new0 (GArray *, g->nnodes);
  for (guint i = 0; i < g->nnodes; i++)
    c->node_free[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
  return c;
}

SimGenCache *
sim_gen_cache (SimGen *g, const char *name, guint object_size, guint size, guint order)
{
  SimGenCache *c = g_hash_table_lookup (g->caches, name);
  if (c == NULL)
    {
      c = cache_new (g, name, object_size, size, order, FALSE);
      g_hash_table_insert (g->caches, (gpointer) c->name, c);
    }
  return c;
}

static SimGenCache *
kmalloc_cache (SimGen *g, guint cls)
{
  SimGenCache *c = g_hash_table_lookup (g->kmalloc, GUINT_TO_POINTER (cls));
  if (c == NULL)
    {
      /* SLUB's order for kmalloc-N: enough objects per slab (>= 16 or
       * order 3), as calculate_order() comes out for small machines. */
      guint order = 0;
      while (order < 3 && (4096u << order) / cls < 16)
        order++;
      g_autofree char *name = g_strdup_printf ("kmalloc-%u", cls);
      c = cache_new (g, name, cls, cls, order, TRUE);
      g_hash_table_insert (g->kmalloc, GUINT_TO_POINTER (cls), c);
    }
  return c;
}

static guint64
obj_alloc (SimGen *g, SimGenTask *t, SimGenCache *c)
{
  guint cpu = t->cpu;
  GArray *st = c->cpu_free[cpu];
  if (st->len == 0)
    {
      /* Refill from the node pool, newest first. */
      GArray *pool = c->node_free[node_of (g, cpu)];
      guint n = MIN (pool->len, c->per_slab);
      for (guint i = 0; i < n; i++)
        {
          guint64 p = g_array_index (pool, guint64, pool->len - n + i);
          g_array_append_val (st, p);
        }
      g_array_set_size (pool, pool->len - n);
    }
  if (st->len > 0)
    {
      guint64 p = g_array_index (st, guint64, st->len - 1);
      g_array_set_size (st, st->len - 1);
      return p;
    }
  if (c->slab_next[cpu] >= c->slab_end[cpu])
    {
      /* SLUB asks for higher orders without direct reclaim; order-0 slabs
       * with the caller's flags (mask as 6.18 prints them). */
      const char *gfp = c->order > 0
        ? "__GFP_IO|__GFP_FS|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP|__GFP_NOMEMALLOC"
        : "GFP_KERNEL|__GFP_NOWARN|__GFP_NORETRY|__GFP_COMP";
      guint64 pfn = page_alloc (g, t, c->order, sim_gen_gfp (g, gfp), 0);
      c->slab_next[cpu] = pfn_to_virt (g, pfn);
      c->slab_end[cpu] = c->slab_next[cpu] + (guint64) c->per_slab * c->size;
    }
  guint64 p = c->slab_next[cpu];
  c->slab_next[cpu] += c->size;
  return p;
}

static guint64
slab_base (SimGenCache *c, guint64 ptr)
{
  /* slabs are naturally aligned: pfns aligned to the order, and the
   * direct map base is aligned far beyond */
  return ptr & ~((G_GUINT64_CONSTANT (4096) << c->order) - 1);
}

/* The slab's record, created on first use; good until the next slab_of
 * or discard (the map may move it). */
static SimGenSlab *
slab_of (SimGen *g, SimGenCache *c, guint64 ptr)
{
  return &map_get (&g->slabs, slab_base (c, ptr))->slab;
}

static guint64 kmalloc_node (SimGen *g, SimGenTask *t, gsize bytes_req, const char *site,
                              const char *gfp, gboolean node_api, gboolean accounted,
                              int node);

/* An object for a user.  From 6.10 the first memcg-charged object in a
 * slab makes alloc_slab_obj_exts kmalloc the slab's vector of 8-byte
 * obj_ext entries (on the slab's node), printed before the object's own
 * event as in the 6.18 traces. */
static guint64
obj_get (SimGen *g, SimGenTask *t, SimGenCache *c, gboolean accounted)
{
  guint64 p = obj_alloc (g, t, c);
  SimGenSlab *s = slab_of (g, c, p);
  s->inuse++;
  if (accounted && s->exts == 0 && g->opts.page_events
      && g->era->version >= SIM_GEN_KVER (6, 10, 0))
    {
      const char *gfp = c->order > 0
        ? "GFP_KERNEL|__GFP_ZERO|__GFP_NOWARN|__GFP_COMP|__GFP_NOMEMALLOC"
        : "GFP_KERNEL|__GFP_ZERO";
      guint64 v = kmalloc_node (g, t, (gsize) c->per_slab * 8, "alloc_slab_obj_exts+0x58/0x110",
                                sim_gen_gfp (g, gfp), TRUE, FALSE, (int) node_of (g, t->cpu));
      /* the vector's own slab may have been found through s: look again */
      slab_of (g, c, p)->exts = v;
    }
  return p;
}

/* Remove the objects of the slab at @base from @a, keeping the order of
 * the rest; *@left counts down the ones still to find.  An empty, fully
 * carved slab has all per_slab objects on the free arrays, so the search
 * stops at the last one instead of reading every array to its end (the
 * node pools hold thousands). */
static void
drop_slab_objects (GArray *a, SimGenCache *c, guint64 base, guint *left)
{
  guint64 *v = (guint64 *) a->data;
  guint i = 0, n = a->len;
  while (i < n && slab_base (c, v[i]) != base)
    i++;
  guint j = i;
  for (; i < n && *left > 0; i++)
    {
      if (slab_base (c, v[i]) != base)
        v[j++] = v[i];
      else
        --*left;
    }
  if (i == j)
    return;
  memmove (v + j, v + i, (n - i) * sizeof *v);
  g_array_set_size (a, j + (n - i));
}

static void page_free (SimGen *g, SimGenTask *t, guint64 pfn, guint order);

/* SLUB's discard_slab: an empty slab goes back to the page allocator when
 * its node keeps enough other free objects (min_partial = 5 slabs' worth)
 * and no CPU is still carving it. */
static void
maybe_discard (SimGen *g, SimGenTask *t, SimGenCache *c, guint64 ptr)
{
  guint64 base = slab_base (c, ptr);
  guint64 bytes = G_GUINT64_CONSTANT (4096) << c->order;
  GArray *pool = c->node_free[node_of (g, t->cpu)];
  if (pool->len < 6 * c->per_slab)
    return;
  for (guint i = 0; i < g->ncpus; i++)
    if (c->slab_next[i] > base && c->slab_next[i] < base + bytes)
      return;
  guint left = c->per_slab;
  for (guint i = 0; i < g->ncpus && left > 0; i++)
    drop_slab_objects (c->cpu_free[i], c, base, &left);
  for (guint i = 0; i < g->nnodes && left > 0; i++)
    drop_slab_objects (c->node_free[i], c, base, &left);
  g_assert (left == 0);   /* inuse == 0: every object is on a free array */
  SimGenSlot *s = map_find (&g->slabs, base);
  guint64 exts = s ? s->slab.exts : 0;
  if (s)
    map_remove_slot (&g->slabs, s);
  if (exts)
    sim_gen_kfree (g, t, exts, "__free_slab+0x87/0xf0");
  page_free (g, t, (base - g->era->page_offset) / 4096, c->order);
}

static void
obj_free (SimGen *g, guint cpu, SimGenCache *c, guint64 ptr)
{
  GArray *st = c->cpu_free[cpu];
  g_array_append_val (st, ptr);
  guint limit = MAX (2 * c->per_slab, 16u);
  if (st->len > limit)
    {
      /* Flush the oldest batch to the node pool (SLAB's array cache
       * overflow, SLUB's partial slabs): the CPU keeps its hot objects. */
      guint batch = limit / 2;
      GArray *pool = c->node_free[node_of (g, cpu)];
      g_array_append_vals (pool, st->data, batch);
      g_array_remove_range (st, 0, batch);
    }
}

static void
track (SimGen *g, guint64 ptr, SimGenCache *c, guint cpu, guint order)
{
  SimGenObj *o = &map_get (&g->live, ptr)->obj;
  o->cache = c;
  o->cpu = cpu;
  o->order = order;
}

guint64
sim_gen_cache_alloc (SimGen *g, SimGenTask *t, SimGenCache *c, const char *site,
                     const char *gfp, gboolean node_api, gboolean accounted)
{
  guint64 ptr = obj_get (g, t, c, accounted);
  track (g, ptr, c, t->cpu, 0);
  SimGenEvent e = { 0 };
  e.kind = node_api ? SIM_GEN_EV_CACHE_ALLOC_NODE : SIM_GEN_EV_CACHE_ALLOC;
  e.ptr = ptr;
  e.site = memo_intern (&g->intern, site);
  e.gfp = memo_intern (&g->intern, gfp);
  e.name = c->name;
  e.bytes_req = c->object_size;
  e.bytes_alloc = c->size;
  e.accounted = accounted;
  push_event (g, t, &e, 60, 250);
  g->stats.allocs++;
  return ptr;
}

guint64
sim_gen_kmalloc (SimGen *g, SimGenTask *t, gsize bytes_req, const char *site,
                 const char *gfp, gboolean node_api, gboolean accounted)
{
  return kmalloc_node (g, t, bytes_req, site, gfp, node_api, accounted, -1);
}

static guint64
kmalloc_node (SimGen *g, SimGenTask *t, gsize bytes_req, const char *site,
              const char *gfp, gboolean node_api, gboolean accounted, int node)
{
  guint cls = sim_gen_kmalloc_class (g->era, bytes_req);
  guint64 ptr;
  guint bytes_alloc;
  if (cls)
    {
      SimGenCache *c = kmalloc_cache (g, cls);
      ptr = obj_get (g, t, c, accounted);
      track (g, ptr, c, t->cpu, 0);
      bytes_alloc = cls;
    }
  else
    {
      guint order = 0;
      while ((4096u << order) < bytes_req)
        order++;
      guint64 pfn = page_alloc (g, t, order, sim_gen_gfp (g, "GFP_KERNEL|__GFP_COMP"), 0);
      ptr = pfn_to_virt (g, pfn);
      track (g, ptr, NULL, t->cpu, order);
      bytes_alloc = 4096u << order;
    }
  SimGenEvent e = { 0 };
  e.kind = node_api ? SIM_GEN_EV_KMALLOC_NODE : SIM_GEN_EV_KMALLOC;
  e.ptr = ptr;
  e.site = memo_intern (&g->intern, site);
  e.gfp = memo_intern (&g->intern, gfp);
  e.bytes_req = (guint32) bytes_req;
  e.bytes_alloc = bytes_alloc;
  e.accounted = accounted;
  e.node_plus1 = (gint16) (node + 1);
  push_event (g, t, &e, 60, 250);
  g->stats.allocs++;
  return ptr;
}

static SimGenObj
untrack (SimGen *g, guint64 ptr, SimGenTask *t)
{
  SimGenSlot *s = map_find (&g->live, ptr);
  g_assert (s != NULL);    /* a generator freed what it never allocated */
  SimGenObj o = s->obj;
  map_remove_slot (&g->live, s);
  if (o.cpu != t->cpu)
    g->stats.cross_cpu_frees++;
  return o;
}

/* The object goes back to the free stacks; an emptied slab may go back
 * to the page allocator. */
static void
obj_put (SimGen *g, SimGenTask *t, SimGenCache *c, guint64 ptr)
{
  obj_free (g, t->cpu, c, ptr);
  SimGenSlab *s = slab_of (g, c, ptr);
  g_assert (s->inuse > 0);
  if (--s->inuse == 0)
    maybe_discard (g, t, c, ptr);
}

static void
release (SimGen *g, SimGenTask *t, guint64 ptr)
{
  SimGenObj o = untrack (g, ptr, t);
  if (o.cache)
    obj_put (g, t, o.cache, ptr);
  else
    page_free (g, t, (ptr - g->era->page_offset) / 4096, o.order);
}

void
sim_gen_kfree (SimGen *g, SimGenTask *t, guint64 ptr, const char *site)
{
  SimGenEvent e = { 0 };
  e.kind = SIM_GEN_EV_KFREE;
  e.ptr = ptr;
  e.site = memo_intern (&g->intern, site);
  /* kfree is traced before the free itself (and before the NULL check). */
  push_event (g, t, &e, 50, 200);
  if (ptr == 0)
    g->stats.null_frees++;
  else
    release (g, t, ptr);
  g->stats.frees++;
}

void
sim_gen_cache_free (SimGen *g, SimGenTask *t, guint64 ptr, const char *site)
{
  SimGenSlot *o = map_find (&g->live, ptr);
  g_assert (o != NULL && o->obj.cache != NULL);
  SimGenEvent e = { 0 };
  e.kind = SIM_GEN_EV_CACHE_FREE;
  e.ptr = ptr;
  e.site = memo_intern (&g->intern, site);
  e.name = o->obj.cache->name;
  push_event (g, t, &e, 50, 200);
  release (g, t, ptr);
  g->stats.frees++;
}

void
sim_gen_free_silent (SimGen *g, SimGenTask *t, guint64 ptr)
{
  SimGenObj o = untrack (g, ptr, t);
  /* not a traced free: undo the cross-CPU count untrack made */
  if (o.cpu != t->cpu)
    g->stats.cross_cpu_frees--;
  if (o.cache)
    obj_put (g, t, o.cache, ptr);
  g->stats.silent_frees++;
}

/* ---- scheduler and output ---- */

/* Format the queued events up to @limit, in time order, onto g->out. */
static void
flush (SimGen *g, guint64 limit)
{
  for (;;)
    {
      SimGenCpu *best = NULL;
      const SimGenEvent *be = NULL;
      for (guint i = 0; i < g->ncpus; i++)
        {
          SimGenCpu *c = &g->cpus[i];
          if (c->qhead >= c->queue->len)
            continue;
          const SimGenEvent *e = &g_array_index (c->queue, SimGenEvent, c->qhead);
          if (e->ts <= limit && (be == NULL || e->ts < be->ts))
            {
              best = c;
              be = e;
            }
        }
      if (best == NULL)
        break;
      sim_gen_format_event (g->out, g->era, be);
      best->qhead++;
    }
  for (guint i = 0; i < g->ncpus; i++)
    {
      SimGenCpu *c = &g->cpus[i];
      if (c->qhead > 4096 || c->qhead == c->queue->len)
        {
          g_array_remove_range (c->queue, 0, c->qhead);
          c->qhead = 0;
        }
    }
}

static SimGenStep
run_task (SimGen *g, SimGenTask *t)
{
  SimGenStep r = t->step (g, t);
  if (r == SIM_GEN_DONE)
    {
      t->done = TRUE;
      g->finished++;
    }
  return r;
}

/* One scheduling decision: the CPU furthest behind runs a task (or idles),
 * then the events no CPU can still precede are formatted onto g->out.
 * FALSE when every task is done (all events formatted) or on a deadlock
 * (@error set). */
static gboolean
schedule_step (SimGen *g, GError **error)
{
  if (g->tasks->len == 0)
    {
      flush (g, G_MAXUINT64);
      return FALSE;
    }
    {
      guint cpu = 0;
      for (guint i = 1; i < g->ncpus; i++)
        if (g->cpus[i].clock < g->cpus[cpu].clock)
          cpu = i;
      SimGenCpu *c = &g->cpus[cpu];
      gboolean ran = FALSE;
      guint mine = 0;
      g->running_cpu = cpu;
      /* The current task keeps the CPU until it blocks. */
      if (c->current && c->clock >= c->slice_end)
        c->current = NULL;
      if (c->current && !c->current->done && c->current->cpu == cpu)
        {
          SimGenStep r = run_task (g, c->current);
          ran = r != SIM_GEN_BLOCKED;
          if (r != SIM_GEN_RAN)
            c->current = NULL;
        }
      if (!ran)
        {
          guint n = g->tasks->len;
          for (guint k = 0; k < n && !ran; k++)
            {
              guint idx = (c->scan + k) % n;
              SimGenTask *t = g_ptr_array_index (g->tasks, idx);
              if (t->done || t->cpu != cpu)
                continue;
              mine++;
              if (t == c->current)
                continue;
              /* a context switch costs the CPU some time before work */
              c->clock += sim_gen_cost (g, 400, 1500);
              SimGenStep r = run_task (g, t);
              if (r != SIM_GEN_BLOCKED)
                {
                  ran = TRUE;
                  c->current = r == SIM_GEN_RAN ? t : NULL;
                  /* a CFS-like slice of 20..120 us with many tasks */
                  c->slice_end = c->clock + sim_gen_cost (g, 20000, 120000);
                  c->scan = (idx + 1) % n;
                }
            }
        }
      c->idle = !ran;
      if (ran)
        g->stalls = 0;
      else if (mine == 0 && (c->current == NULL || c->current->done || c->current->cpu != cpu))
        {
          /* Nothing lives here: leave the race until a task arrives
           * (otherwise idle CPUs leapfrog each other in tiny steps). */
          c->parked = TRUE;
          c->parked_clock = c->clock;
          c->clock = G_MAXUINT64;
          c->current = NULL;
        }
      else
        {
          /* Idle until a CPU that is running may wake a task: the
           * earliest non-idle CPU, else the earliest other one. */
          guint64 next = G_MAXUINT64, any = G_MAXUINT64;
          for (guint i = 0; i < g->ncpus; i++)
            {
              SimGenCpu *o = &g->cpus[i];
              if (i == cpu || o->parked)
                continue;
              any = MIN (any, o->clock);
              if (!o->idle)
                next = MIN (next, o->clock);
            }
          if (next == G_MAXUINT64)
            next = any;
          if (next == G_MAXUINT64 || next <= c->clock)
            next = c->clock;
          c->clock = next + sim_gen_cost (g, 500, 2000);
          if (++g->stalls > 100000ull * g->ncpus)
            {
              g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                           "%s: every task is blocked (generator deadlock)",
                           g->opts.workload);
              return FALSE;
            }
        }
      /* Drop finished tasks (order kept for round-robin). */
      if (g->finished > 0)
        for (guint i = g->tasks->len; i-- > 0;)
          if (((SimGenTask *) g_ptr_array_index (g->tasks, i))->done)
            g_ptr_array_remove_index (g->tasks, i);
      g->finished = 0;
      guint64 limit = G_MAXUINT64;
      for (guint i = 0; i < g->ncpus; i++)
        limit = MIN (limit, g->cpus[i].clock);
      flush (g, limit);
    }
  if (g->tasks->len == 0)
    {
      flush (g, G_MAXUINT64);
      return FALSE;
    }
  return TRUE;
}

/* Run the machine to the end, writing g->out to @body whenever it holds
 * a good write's worth. */
static gboolean
schedule (SimGen *g, GOutputStream *body, GError **error)
{
  GError *local = NULL;
  gboolean more;
  do
    {
      more = schedule_step (g, &local);
      if (local)
        break;
      if (g->out->len >= (1u << 16) || !more)
        {
          if (!g_output_stream_write_all (body, g->out->str, g->out->len, NULL, NULL, error))
            return FALSE;
          g_string_truncate (g->out, 0);
        }
    }
  while (more);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

static void
cache_free_all (SimGen *g, SimGenCache *c)
{
  for (guint i = 0; i < g->ncpus; i++)
    g_array_free (c->cpu_free[i], TRUE);
  for (guint i = 0; i < g->nnodes; i++)
    g_array_free (c->node_free[i], TRUE);
  g_free (c->cpu_free);
  g_free (c->node_free);
  g_free (c->slab_next);
  g_free (c->slab_end);
  g_free (c);
}

static void
gen_free (SimGen *g)
{
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, g->caches);
  while (g_hash_table_iter_next (&it, NULL, &v))
    cache_free_all (g, v);
  g_hash_table_iter_init (&it, g->kmalloc);
  while (g_hash_table_iter_next (&it, NULL, &v))
    cache_free_all (g, v);
  g_hash_table_destroy (g->caches);
  g_hash_table_destroy (g->kmalloc);
  g_free (g->live.slots);
  g_free (g->slabs.slots);
  for (guint i = 0; i < g->all_tasks->len; i++)
    {
      SimGenTask *t = g_ptr_array_index (g->all_tasks, i);
      if (t->destroy)
        t->destroy (t->data);
      else
        g_free (t->data);
      g_free (t);
    }
  g_ptr_array_free (g->all_tasks, TRUE);
  for (guint i = 0; i + 1 < g->owned->len; i += 2)
    ((GDestroyNotify) g_ptr_array_index (g->owned, i + 1)) (g_ptr_array_index (g->owned, i));
  g_ptr_array_free (g->owned, TRUE);
  g_ptr_array_free (g->tasks, TRUE);
  for (guint i = 0; i < g->ncpus; i++)
    g_array_free (g->cpus[i].queue, TRUE);
  g_free (g->cpus);
  g_free (g->node_next_pfn);
  for (guint i = 0; i < g->nnodes * 11; i++)
    g_array_free (g->free_pages[i], TRUE);
  g_free (g->free_pages);
  g_string_free (g->out, TRUE);
  g_free (g);
}

static gboolean
write_output (const SimGenOptions *o, const char *path, const char *body_path,
              guint64 entries, guint ncpus, GError **error)
{
  /* Temporary file and rename (sim/core/output.h): a full disk leaves the
   * old file, or none, never a truncated one. */
  SimOutput *file = sim_output_open (path, error);
  if (file == NULL)
    return FALSE;
  g_autoptr (GOutputStream) out = NULL;
  if (g_str_has_suffix (path, ".gz"))
    {
      g_autoptr (GZlibCompressor) z =
        g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
      out = g_converter_output_stream_new (sim_output_stream (file), G_CONVERTER (z));
    }
  else
    out = g_object_ref (sim_output_stream (file));

  g_autoptr (GString) header = g_string_new (NULL);
  sim_gen_write_header (header, &o->era, entries, ncpus);
  gboolean ok = g_output_stream_write_all (out, header->str, header->len, NULL, NULL, error);
  if (ok)
    {
      g_autoptr (GFile) bf = g_file_new_for_path (body_path);
      g_autoptr (GFileInputStream) in = g_file_read (bf, NULL, error);
      ok = in != NULL
           && g_output_stream_splice (out, G_INPUT_STREAM (in),
                                      G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE, NULL, error) >= 0;
    }
  if (ok)
    ok = g_output_stream_close (out, NULL, error);
  g_clear_object (&out);
  if (!ok)
    {
      sim_output_abort (file);
      return FALSE;
    }
  return sim_output_commit (file, error);
}

/* Set up the machine of @o (its tasks created); NULL with @error set. */
static SimGen *
gen_new (const SimGenOptions *o, GError **error)
{
  const SimGenWorkload *w = sim_gen_workload_find (o->workload);
  g_return_val_if_fail (w != NULL && o->cpus > 0, NULL);

  SimGen *g = g_new0 (SimGen, 1);
  g->opts = *o;
  g->era = &g->opts.era;
  g->ncpus = o->cpus;
  g->nnodes = CLAMP (o->sockets, 1u, o->cpus);
  sim_rng_init (&g->rng, o->seed, 1);
  sim_rng_init (&g->place_rng, o->seed, 2);
  g->cpus = g_new0 (SimGenCpu, g->ncpus);
  /* Tracing starts some minutes after boot; the CPUs' clocks are close. */
  guint64 boot = 60 * G_GUINT64_CONSTANT (1000000000)
                 + sim_rng_below (&g->rng, 600 * G_GUINT64_CONSTANT (1000000000));
  for (guint i = 0; i < g->ncpus; i++)
    {
      g->cpus[i].queue = g_array_new (FALSE, FALSE, sizeof (SimGenEvent));
      g->cpus[i].clock = boot + sim_rng_below (&g->rng, 20000);
    }
  g->tasks = g_ptr_array_new ();
  g->all_tasks = g_ptr_array_new ();
  g->owned = g_ptr_array_new ();
  g->caches = g_hash_table_new (g_str_hash, g_str_equal);
  g->kmalloc = g_hash_table_new (g_direct_hash, g_direct_equal);
  map_init (&g->live);
  map_init (&g->slabs);
  g->node_next_pfn = g_new0 (guint64, g->nnodes);
  for (guint i = 0; i < g->nnodes; i++)
    g->node_next_pfn[i] = 0x100000 + (guint64) i * 0x400000
                          + sim_rng_below (&g->rng, 0x4000) * 16;   /* < 1 GiB into the node */
  g->free_pages = g_new0 (GArray *, g->nnodes * 11);
  for (guint i = 0; i < g->nnodes * 11; i++)
    g->free_pages[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
  g->next_pid = 1000 + (int) sim_rng_below (&g->rng, 30000);
  g->out = g_string_sized_new ((1u << 16) + 4096);
  if (!w->setup (g, &g->opts, error))
    {
      gen_free (g);
      return NULL;
    }
  return g;
}

gboolean
sim_gen_run (const SimGenOptions *o, const char *path, SimGenStats *stats,
             GError **error)
{
  g_return_val_if_fail (o != NULL && path != NULL, FALSE);

  /* The body goes to a temporary file first: the header states the number
   * of entries, known only at the end. */
  g_autoptr (GFileIOStream) tmpio = NULL;
  g_autoptr (GFile) tmp = g_file_new_tmp ("slabsim-gen-XXXXXX", &tmpio, error);
  if (tmp == NULL)
    {
      g_prefix_error (error, "%s: cannot create a temporary file: ", path);
      return FALSE;
    }
  g_autofree char *tmpl = g_file_get_path (tmp);
  SimGen *g = gen_new (o, error);
  /* schedule() writes 64 KiB at a time */
  gboolean ok = g != NULL
    && schedule (g, g_io_stream_get_output_stream (G_IO_STREAM (tmpio)), error);
  if (ok)
    ok = g_io_stream_close (G_IO_STREAM (tmpio), NULL, error);
  if (ok)
    ok = write_output (o, path, tmpl, g->stats.events, g->ncpus, error);
  g_unlink (tmpl);
  if (ok && stats)
    *stats = g->stats;
  if (g)
    gen_free (g);
  return ok;
}

/* ---- the trace as a stream, generated as it is read ---- */

/* A GInputStream whose bytes are the trace text, produced by running the
 * scheduler whenever the reader wants more: the trace exists only as the
 * few kilobytes in g->out, so a consumer in the same process (the native
 * writer, a replay) needs no temporary file of the text.  The header is
 * printed before the events are known, so its entries line says 0/0; the
 * text reader does not read that line and the native format does not keep
 * the header, so the events come out as they would from the file. */
#define SIM_TYPE_GEN_STREAM (sim_gen_stream_get_type ())
G_DECLARE_FINAL_TYPE (SimGenStream, sim_gen_stream, SIM, GEN_STREAM, GInputStream)

struct _SimGenStream {
  GInputStream parent;
  SimGen *g;
  gboolean more;        /* schedule_step has more to do */
  GError *error;        /* a deadlock, reported by every later read */
};

G_DEFINE_TYPE (SimGenStream, sim_gen_stream, G_TYPE_INPUT_STREAM)

static gssize
gen_stream_read (GInputStream *stream, void *buffer, gsize count,
                 GCancellable *cancellable, GError **error)
{
  (void) cancellable;
  SimGenStream *s = SIM_GEN_STREAM (stream);
  SimGen *g = s->g;
  if (g->out_pos == g->out->len)
    {
      g_string_truncate (g->out, 0);
      g->out_pos = 0;
      while (s->more && s->error == NULL && g->out->len < count)
        s->more = schedule_step (g, &s->error);
    }
  if (s->error)
    {
      g_propagate_error (error, g_error_copy (s->error));
      return -1;
    }
  gsize n = MIN (count, g->out->len - g->out_pos);
  memcpy (buffer, g->out->str + g->out_pos, n);
  g->out_pos += n;
  return (gssize) n;
}

static void
gen_stream_finalize (GObject *object)
{
  SimGenStream *s = SIM_GEN_STREAM (object);
  if (s->g)
    gen_free (s->g);
  g_clear_error (&s->error);
  G_OBJECT_CLASS (sim_gen_stream_parent_class)->finalize (object);
}

static void
sim_gen_stream_class_init (SimGenStreamClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gen_stream_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = gen_stream_read;
}

static void
sim_gen_stream_init (SimGenStream *s)
{
  s->more = TRUE;
}

GInputStream *
sim_gen_stream_new (const SimGenOptions *o, GError **error)
{
  g_return_val_if_fail (o != NULL, NULL);
  SimGen *g = gen_new (o, error);
  if (g == NULL)
    return NULL;
  SimGenStream *s = g_object_new (SIM_TYPE_GEN_STREAM, NULL);
  s->g = g;
  sim_gen_write_header (g->out, &o->era, 0, g->ncpus);
  return G_INPUT_STREAM (s);
}

const SimGenStats *
sim_gen_stream_stats (GInputStream *stream)
{
  return &SIM_GEN_STREAM (stream)->g->stats;
}

gboolean
sim_gen_run_native (const SimGenOptions *o, const char *path, SimGenStats *stats,
                    GError **error)
{
  g_return_val_if_fail (o != NULL && path != NULL, FALSE);
  g_autoptr (GInputStream) in = sim_gen_stream_new (o, error);
  if (in == NULL)
    return FALSE;
  g_autofree char *name = g_strdup_printf ("(trace gen %s)", o->workload);
  g_autoptr (SimTraceReader) r = sim_trace_reader_new (in, name, SIM_TRACE_FORMAT_AUTO, error);
  if (r == NULL || !sim_native_convert_reader (r, path, NULL, error))
    return FALSE;
  if (stats)
    *stats = *sim_gen_stream_stats (in);
  return TRUE;
}
