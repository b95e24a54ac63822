/* replay.c - trace replay through one allocator model; see replay.h.
 *
 * What the replay decides, and why:
 *  - Caches are created when the trace first names them, with the flags
 *    their kernel gives them (sim/run/kernel-caches.c) and the object size
 *    the event reports (bytes_req of kmem_cache_alloc is s->object_size).
 *    Events without name= (kernels before 6.18 for kmem_cache_alloc) go
 *    to a cache per object size, "unnamed-<bytes_req>".
 *  - kmalloc events go through the model's own kmalloc (its size classes
 *    and pass-through threshold), with bytes_req as the requested size.
 *  - An allocation of a pointer that is still live means the kernel freed
 *    it on an untraced path: the old object is freed first, on the
 *    allocating CPU (traces/account.h, docs/traces.md).
 *  - Failed allocations, kfree(NULL) and frees of objects allocated before
 *    the trace started are not replayed; they are counted.
 *  - The recording kernel's own allocations (6.18's obj_exts vectors and
 *    sheaves, memcg vectors of older kernels: traces/internal.h) and their
 *    frees are not workload: they are left out for every era and counted.
 *    A model whose kernel makes such allocations makes its own (slub@6.18
 *    allocates its sheaves and obj_exts vectors, docs/models/slub.md).
 *  - Trace CPU t runs on machine CPU map[t] (--cpu-map; the default is
 *    compact: socket 0 first, one thread per core first, sim/run/cpu-map.h),
 *    so a 2-CPU recording replays on two cores of one socket.
 *  - An event without a CPU (a per-task perf recording prints none) runs
 *    on trace CPU 0 and is counted (events_without_cpu).
 *  - A kmalloc larger than the model's kernel serves (ops->kmalloc_max:
 *    KMALLOC_MAX_SIZE, 2 MiB for SLQB) returned NULL in that kernel: it is
 *    counted as refused, and the kfree (or implicit free) of its pointer
 *    is counted as a free of a refused allocation, not replayed.
 *  - Frees the trace shows only by their consequences (a pointer coming
 *    back, a freed slab page, a destroyed maple tree: sim/run/untraced.h)
 *    are made where the evidence puts them, as kfree or kfree_rcu; RCU
 *    callbacks run when their grace period has passed on the trace's
 *    clock (sim/core/rcu.h).
 *  - The trace's page events: the recording kernel's slab pages are not
 *    replayed (the model takes its own); the rest (page cache, anonymous
 *    pages, page tables) are allocated and freed through the model's page
 *    allocator on the event's CPU, so its pcp lists and zone lock see the
 *    competition the kernel's saw (--page-events ignore leaves them out;
 *    both kinds are counted).  mm_page_pcpu_drain is the kernel's decision,
 *    counted, not replayed (sim/run/page-events.h).
 */
#include "sim/run/replay.h"
#include "sim/run/kernel-caches.h"
#include "sim/core/errors.h"
#include "sim/core/idmap.h"
#include "models/alloc/alloc-spec.h"
#include "traces/stream.h"
#include "traces/account.h"
#include "traces/internal.h"
#include "traces/decisions.h"
#include "sim/run/emit.h"
#include "sim/run/warm.h"
#include "sim/run/untraced.h"
#include "sim/run/cpu-map.h"
#include "sim/run/page-events.h"
#include "sim/run/prepass.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* Cycle histograms: exact counts below 1024 cycles, then 64 buckets per
 * power of two — deterministic, bounded, and within 1/64 above 1024. */

#define HIST_EXACT 1024
#define HIST_SUB   64
#define HIST_LOGS  40
#define HIST_N     (HIST_EXACT + HIST_LOGS * HIST_SUB)

static void
hist_init (SimCycleHist *h)
{
  memset (h, 0, sizeof *h);
  h->buckets = g_new0 (guint64, HIST_N);
}

static inline guint
hist_index (guint64 v)
{
  if (v < HIST_EXACT)
    return (guint) v;
  guint lg = g_bit_storage (v) - 1;          /* >= 10 */
  guint sub = (guint) ((v >> (lg - 6)) & (HIST_SUB - 1));
  guint idx = HIST_EXACT + (lg - 10) * HIST_SUB + sub;
  return MIN (idx, HIST_N - 1);
}

static guint64
hist_value (guint idx)
{
  if (idx < HIST_EXACT)
    return idx;
  guint lg = (idx - HIST_EXACT) / HIST_SUB + 10;
  guint sub = (idx - HIST_EXACT) % HIST_SUB;
  return ((guint64) 1 << lg) + ((guint64) sub << (lg - 6));
}

static inline void
hist_add (SimCycleHist *h, guint64 v)
{
  h->count++;
  h->total += v;
  h->max = MAX (h->max, v);
  h->buckets[hist_index (v)]++;
}

guint64
sim_cycle_hist_percentile (const SimCycleHist *h, double pct)
{
  if (h->count == 0 || h->buckets == NULL)
    return 0;
  guint64 rank = (guint64) ((pct / 100.0) * (double) h->count + 0.999999);
  if (rank == 0)
    rank = 1;
  guint64 seen = 0;
  for (guint i = 0; i < HIST_N; i++)
    {
      seen += h->buckets[i];
      if (seen >= rank)
        return MIN (hist_value (i), h->max);
    }
  return h->max;
}

void
sim_replay_result_clear (SimReplayResult *r)
{
  g_free (r->allocator);
  g_free (r->kernel);
  g_free (r->params);
  sim_alloc_report_clear (&r->alloc);
  g_free (r->mem_per_cpu);
  g_free (r->alloc_cycles.buckets);
  g_free (r->free_cycles.buckets);
  g_free (r->cpu_map);
  g_free (r->trace_cpu_used);
  memset (r, 0, sizeof *r);
}

/* ------------------------------------------------------------------ */

/* What the replay did with a live trace object, in its accounting entry's
 * user word (traces/account.h): the model's address, or one of these. */
#define LIVE_SKIPPED  0       /* not replayed (the entry was just made) */
#define LIVE_INTERNAL 1       /* the recording kernel's own allocation */
#define LIVE_REFUSED  2       /* a kmalloc the model's kernel returns NULL for */
/* Model addresses are object addresses, never below a page. */

/* A lane's word for a live trace object when the lanes share one
 * accounting (sim_trace_account_slot; the lanes' feed below): what the
 * accounting entry holds otherwise. */
typedef struct {
  guint64 user;               /* as SimLiveObject.user */
  guint64 bytes_alloc;
} LaneSlot;

struct _SimReplay {
  const SimReplayOptions *opt;
  const SimAllocOps *ops;
  gpointer model;
  SimMemSys *mem;
  SimPageAlloc *pages;
  SimEngine *eng;
  const SimTraceStrings *strs;
  const char *trace;          /* the trace's name in messages (the stream's) */
  char *trace_arg;            /* as the caller named it */
  SimTraceAccount *acct;      /* the one map of live trace objects (NULL: shared) */
  /* Shared accounting (several lanes): the feeding thread's slot of each
   * event and of each untraced free (SIM_ACCOUNT_NO_SLOT: not live) index
   * this lane's words; acct is NULL. */
  gboolean shared;
  LaneSlot *slots;
  guint32 n_slots;
  const guint32 *untraced_slots;  /* by index into untraced->frees */
  SimIdMap *warm_addr;        /* --warm: ptr -> model address of objects placed before */
  GHashTable *cache_of;       /* cache name -> SimCacheId + 1 (creation) */
  GArray *cache_by_id;        /* string id of name= -> SimCacheId + 1 (0: not yet) */
  SimIdMap *cache_by_size;    /* bytes_req -> SimCacheId, events without name= */
  GArray *site_kind;          /* call_site string id -> SITE_* bits (0: not looked at yet) */
  SimAllocSpec *spec;
  gboolean failed;            /* fed an event that failed: fed no more */
  guint64 n_read;
  guint64 checked_at;         /* out->events at the last --check-every check */
  guint64 first_ts;
  gboolean have_first_ts;
  SimTime last_start;         /* start of the previous operation (ordered replay) */
  SimReplayResult *out;
  SimCpuMap map;              /* trace CPU -> machine CPU (--cpu-map) */
  /* The model's decisions as trace events (opt->modelled, opt->emit). */
  GString *page_lines;        /* page events of the running operation, for emit */
  guint64 cur_ts;             /* timestamp of the trace event being replayed */
  gboolean warming;           /* placing warm objects: not part of the replay */
  /* Grace periods on the trace's clock, and the frees the trace shows only
   * by their consequences (sim/run/untraced.h), made in order. */
  SimRcu *rcu;
  SimAllocEnv env;            /* what the model was given (call_rcu frees) */
  const SimUntracedSet *untraced;
  guint next_untraced;
  guint64 untraced_due;       /* before_index of frees[next_untraced]; G_MAXUINT64: none */
  guint64 n_events;           /* events fed so far: the next one's ordinal */
  /* The trace's page events (sim/run/page-events.h). */
  const SimPageClass *page_class;  /* which mm_page_alloc events were slab pages */
  guint64 page_ordinal;       /* mm_page_alloc events with a pfn so far */
  SimIdMap *trace_pages;      /* trace pfn -> TP_PACK, other pages live in the trace */
  SimIdMap *slab_pages;       /* trace pfns of the recording kernel's live slab pages */
  SimIdMap *freed_pages;      /* trace pfns freed and not allocated since */
};
typedef struct _SimReplay Replay;

/* The page allocator's observer: the model's page traffic, as the kernel's
 * page tracepoints would print it. */
static void
on_page_event (SimPageEvent kind, guint cpu, SimAddr addr, guint order, gpointer data)
{
  Replay *rp = data;
  if (rp->warming)
    return;
  guint64 pfn = addr >> SIM_PAGE_SHIFT;
  SimDecisions *d = rp->opt->modelled;
  SimEmitPage ek = SIM_EMIT_PAGE_ALLOC;
  switch (kind)
    {
    case SIM_PAGE_EV_ALLOC:
      if (d)
        sim_decisions_page_alloc (d, cpu, pfn, order);
      ek = SIM_EMIT_PAGE_ALLOC;
      break;
    case SIM_PAGE_EV_FREE:
      if (d)
        sim_decisions_page_free (d, pfn, order);
      ek = SIM_EMIT_PAGE_FREE;
      break;
    case SIM_PAGE_EV_PCP_DRAIN:
      if (d)
        sim_decisions_pcp_drain (d, order);
      ek = SIM_EMIT_PCP_DRAIN;
      break;
    }
  /* The emitted trace numbers CPUs as the input did, so that it replays
   * the same under the same map. */
  if (rp->opt->emit)
    sim_trace_emit_page_line (rp->page_lines, ek, rp->map.to_trace[cpu], rp->cur_ts, pfn, order);
}

static void
flush_page_lines (Replay *rp)
{
  if (rp->opt->emit && rp->page_lines->len)
    {
      sim_trace_emit_raw (rp->opt->emit, rp->page_lines->str, rp->page_lines->len);
      g_string_truncate (rp->page_lines, 0);
    }
}


/* The model's allocations for itself (SimInternalObserver): into its
 * decisions and emitted trace as the recording kernel's are in its trace,
 * the page traffic they caused first. */
static void
on_internal (gpointer data, guint cpu, SimAddr addr, gsize size, const char *fn,
             gboolean is_free)
{
  Replay *rp = data;
  /* Nothing before the model exists (its boot: 7.x's kmalloc sheaves) or
   * while warm objects are placed. */
  if (rp->warming || rp->model == NULL)
    return;
  if (is_free)
    rp->out->model_internal_frees++;
  else
    rp->out->model_internal_allocs++;
  guint64 vaddr = SIM_DIRECT_MAP_BASE + addr;
  guint64 bytes_alloc = is_free ? 0 : rp->ops->ksize (rp->model, addr);
  SimDecisions *d = rp->opt->modelled;
  if (d && is_free)
    sim_decisions_obj_free (d, cpu, vaddr);
  else if (d)
    {
      char nb[64];
      SimTraceEvent ev = { .kind = SIM_TRACE_KMALLOC, .bytes_req = size,
                           .bytes_alloc = bytes_alloc };
      sim_decisions_alloc (d, cpu, sim_decisions_cache_name (rp->strs, &ev, nb, sizeof nb),
                           vaddr);
    }
  if (rp->opt->emit)
    {
      flush_page_lines (rp);
      sim_trace_emit_internal (rp->opt->emit, rp->map.to_trace[cpu], rp->cur_ts, fn, vaddr, size,
                               bytes_alloc, is_free);
    }
}


static guint32
model_gfp (guint32 trace_gfp)
{
  guint32 g = 0;
  if (trace_gfp & SIM_GFP (ZERO))
    g |= SIM_GFP_ZERO;
  if (trace_gfp & SIM_GFP (DMA))
    g |= SIM_GFP_DMA;
  if (trace_gfp & SIM_GFP (THISNODE))
    g |= SIM_GFP_THISNODE;
  if (trace_gfp & SIM_GFP (RECLAIMABLE))
    g |= SIM_GFP_RECLAIMABLE;
  if (trace_gfp & SIM_GFP (ACCOUNT))
    g |= SIM_GFP_ACCOUNT;
  if (trace_gfp & (SIM_GFP (DIRECT_RECLAIM) | SIM_GFP (WAIT)))
    g |= SIM_GFP_WAIT;
  return g;
}

/* Timed replay: @cpu does not start the event before its timestamp. */
static void
op_sync_timed (Replay *rp, guint cpu, guint64 ts_ns)
{
  if (!rp->have_first_ts)
    {
      rp->first_ts = ts_ns;
      rp->have_first_ts = TRUE;
    }
  guint64 rel = ts_ns >= rp->first_ts ? ts_ns - rp->first_ts : 0;
  sim_engine_cpu_sync (rp->eng, cpu, (SimTime) ((double) rel * rp->opt->machine->frequency_ghz));
}

/* Start an operation on @cpu at its clock (replay_event has already
 * synced the clock to the event in timed mode). */
static inline void
op_start (Replay *rp, SimOp *op, guint cpu, guint64 ts_ns)
{
  (void) ts_ns;
  /* Ordered replay: the trace says this event happened after the previous
   * one, so it cannot start before that one started.  Without this, CPU
   * clocks drift apart and a lock released "late" by a busy CPU would
   * make an idle CPU wait for time that never overlapped. */
  if (rp->opt->mode == SIM_REPLAY_ORDERED)
    sim_engine_cpu_sync (rp->eng, cpu, rp->last_start);
  sim_op_begin (op, rp->mem, cpu, sim_engine_cpu_clock (rp->eng, cpu));
  rp->last_start = op->t;
}

static inline void
op_finish (Replay *rp, SimOp *op, SimCycleHist *hist)
{
  guint64 c = sim_op_cycles (op);
  sim_engine_cpu_advance (rp->eng, op->cpu, c);
  rp->out->lock_wait_cycles += op->cost.lock_wait;
  if (hist == &rp->out->alloc_cycles)
    {
      rp->out->alloc_instr += op->cost.instr;
      rp->out->alloc_mem_cycles += op->cost.mem_cycles;
    }
  else if (hist == &rp->out->free_cycles)
    {
      rp->out->free_instr += op->cost.instr;
      rp->out->free_mem_cycles += op->cost.mem_cycles;
    }
  if (hist)
    hist_add (hist, c);
}

static void
touch_object (Replay *rp, SimOp *op, SimAddr addr, gsize size, SimAccKind kind)
{
  switch (rp->opt->touch)
    {
    case SIM_TOUCH_NONE:
      break;
    case SIM_TOUCH_LINE:
      /* sim_op_access of a read or a write, in line (every replayed
       * allocation and free touches its object) */
      if (kind == SIM_ACC_READ)
        sim_op_read (op, addr, (guint32) MIN (size, 8), SIM_MEM_OBJECT);
      else
        sim_op_write (op, addr, (guint32) MIN (size, 8), SIM_MEM_OBJECT);
      break;
    case SIM_TOUCH_OBJECT:
      sim_op_touch_range (op, addr, size, kind, SIM_MEM_OBJECT);
      break;
    }
}

/* What a free is: a trace event (kfree_rcu when slabsim's own emitted
 * trace says so), the replay's implicit free before an allocation of a
 * live pointer, or a free the trace shows only by its consequences
 * (sim/run/untraced.h), made as kfree or as kfree_rcu. */
typedef enum {
  FREE_TRACED, FREE_TRACED_RCU, FREE_IMPLICIT, FREE_UNTRACED, FREE_UNTRACED_RCU
} FreeHow;

/* Free the model's object at @addr (the trace's @ptr was at it). */
static gboolean
replay_free (Replay *rp, const SimTraceEvent *ev, guint cpu, SimAddr addr, guint64 bytes,
             FreeHow how, GError **error)
{
  guint64 ts = ev->ts_ns;
  gboolean implicit = how != FREE_TRACED && how != FREE_TRACED_RCU;
  gboolean rcu = how == FREE_UNTRACED_RCU || how == FREE_TRACED_RCU;
  /* kmem_cache_free and kfree are different kernel paths (the first is
   * handed the cache); a free the trace did not show (implicit) is taken
   * as kfree. */
  gboolean cache_free = !implicit && ev->kind == SIM_TRACE_CACHE_FREE;
  if (bytes == 0)
    /* A warm object: the trace never said its size. */
    bytes = MAX (rp->ops->ksize (rp->model, addr), 8);
  SimOp op;
  op_start (rp, &op, cpu, ts);
  /* The caller reads the object before freeing it. */
  touch_object (rp, &op, addr, bytes, SIM_ACC_READ);
  gboolean ok;
  if (rcu && rp->ops->kfree_rcu)
    ok = rp->ops->kfree_rcu (rp->model, &op, addr);
  else if (rcu)
    ok = sim_alloc_call_rcu_free (&rp->env, &op, rp->ops->free, rp->model, addr);
  else
    ok = cache_free ? rp->ops->cache_free (rp->model, &op, addr)
                    : rp->ops->free (rp->model, &op, addr);
  if (!ok)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                   "%s: free of %#" G_GINT64_MODIFIER "x that the model does not own",
                   rp->ops->name, addr);
      return FALSE;
    }
  op_finish (rp, &op, &rp->out->free_cycles);
  switch (how)
    {
    case FREE_TRACED:
    case FREE_TRACED_RCU:
      rp->out->frees_replayed++;
      break;
    case FREE_IMPLICIT:
      rp->out->implicit_frees_replayed++;
      break;
    case FREE_UNTRACED:
      rp->out->untraced_page_frees++;
      break;
    case FREE_UNTRACED_RCU:
      rp->out->untraced_kfree_rcu++;
      break;
    }
  guint64 vaddr = SIM_DIRECT_MAP_BASE + addr;
  if (rp->opt->modelled)
    sim_decisions_obj_free (rp->opt->modelled, cpu, vaddr);
  if (rp->opt->emit)
    {
      /* kfree / kmem_cache_free trace before the free itself: the line
       * first, then the page frees it caused. */
      if (rcu)
        sim_trace_emit_kfree_rcu (rp->opt->emit, rp->strs, ev, rp->map.to_trace[cpu], vaddr);
      else if (implicit || (ev->kind == SIM_TRACE_CACHE_FREE && ev->cache_id == 0))
        sim_trace_emit_kfree (rp->opt->emit, rp->strs, ev, rp->map.to_trace[cpu], vaddr);
      else
        sim_trace_emit_slab (rp->opt->emit, rp->strs, ev, rp->map.to_trace[cpu],
                             sim_trace_strings_get (rp->strs, ev->cache_id), vaddr, TRUE);
      flush_page_lines (rp);
    }
  return TRUE;
}

/* The replay's name of a kmem_cache event's cache: name=, or a cache per
 * object size for events without one. */
static const char *
cache_name_of (Replay *rp, const SimTraceEvent *ev, char *buf, gsize n)
{
  const char *name = ev->cache_id ? sim_trace_strings_get (rp->strs, ev->cache_id) : NULL;
  if (name == NULL || *name == '\0')
    {
      g_snprintf (buf, n, "unnamed-%" G_GUINT64_FORMAT, ev->bytes_req);
      name = buf;
    }
  return name;
}

static SimCacheId cache_create_for (Replay *rp, const char *name, const SimTraceEvent *ev,
                                    GError **error);

/* The model's cache of a kmem_cache event: by the string id of its name=
 * (or its object size without one), so no name is hashed per event.  In
 * line in both replay_event variants (GCC left it out of line once there
 * were two: +1.3 M instructions on the bundled trace). */
static inline __attribute__ ((always_inline)) SimCacheId
cache_for (Replay *rp, const SimTraceEvent *ev, GError **error)
{
  /* A name= seen before (only named caches are in cache_by_id). */
  if (G_LIKELY (ev->cache_id && ev->cache_id < rp->cache_by_id->len))
    {
      guint v = g_array_index (rp->cache_by_id, guint, ev->cache_id);
      if (v)
        return v - 1;
    }
  gboolean named = ev->cache_id && *sim_trace_strings_get (rp->strs, ev->cache_id);
  guint v = 0;
  if (named && ev->cache_id < rp->cache_by_id->len)
    v = g_array_index (rp->cache_by_id, guint, ev->cache_id);
  else if (!named)
    {
      const SimIdPair *p = sim_idmap_lookup (rp->cache_by_size, ev->bytes_req);
      v = p ? (guint) p->value + 1 : 0;
    }
  if (v)
    return v - 1;
  char buf[64];
  SimCacheId id = cache_create_for (rp, cache_name_of (rp, ev, buf, sizeof buf), ev, error);
  if (id == SIM_CACHE_NONE)
    return id;
  if (named)
    {
      if (ev->cache_id >= rp->cache_by_id->len)
        g_array_set_size (rp->cache_by_id, ev->cache_id + 1);
      g_array_index (rp->cache_by_id, guint, ev->cache_id) = id + 1;
    }
  else
    sim_idmap_set (rp->cache_by_size, ev->bytes_req, id);
  return id;
}

/* What the replay needs to know of a call site, remembered per string id
 * (every event asks; the string is looked at once). */
#define SITE_KNOWN          0x1   /* the other bits are set */
#define SITE_INTERNAL_ALLOC 0x2   /* traces/internal.h */
#define SITE_INTERNAL_FREE  0x4
#define SITE_KFREE_RCU      0x8   /* slabsim's own emitted kfree_rcu (emit.h) */

static G_GNUC_NO_INLINE guint8
site_look (Replay *rp, guint32 id)
{
  if (id >= rp->site_kind->len)
    g_array_set_size (rp->site_kind, id + 1);
  const char *site = sim_trace_strings_get (rp->strs, id);
  guint8 k = SITE_KNOWN;
  if (sim_trace_internal_alloc_site (site))
    k |= SITE_INTERNAL_ALLOC;
  if (sim_trace_internal_free_site (site))
    k |= SITE_INTERNAL_FREE;
  if (site && strcmp (site, SIM_EMIT_KFREE_RCU_SITE) == 0)
    k |= SITE_KFREE_RCU;
  g_array_index (rp->site_kind, guint8, id) = k;
  return k;
}

/* The SITE_* bits of call site @id. */
static inline guint8
site_kind (Replay *rp, guint32 id)
{
  if (G_LIKELY (id < rp->site_kind->len))
    {
      guint8 k = g_array_index (rp->site_kind, guint8, id);
      if (G_LIKELY (k != 0))
        return k;
    }
  return site_look (rp, id);
}

/* Cache @name, created on first use from @ev's sizes (only bytes_req,
 * bytes_alloc, cpu and line are read). */
static SimCacheId
cache_create_for (Replay *rp, const char *name, const SimTraceEvent *ev, GError **error)
{
  gpointer v = g_hash_table_lookup (rp->cache_of, name);
  if (v)
    return GPOINTER_TO_UINT (v) - 1;

  /* kmem_cache_create() takes an unsigned int size (size_t before 4.16,
   * stored in an int): a cache of 4 GiB objects cannot exist, and no
   * allocator's sizing accepts one; say so rather than truncate. */
  guint64 object_size = ev->bytes_req ? ev->bytes_req : ev->bytes_alloc;
  if (object_size > G_MAXUINT32)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                   "%s:%" G_GUINT64_FORMAT ": cache %s: object size %" G_GUINT64_FORMAT
                   " is larger than any slab cache can hold (expected at most %u, the "
                   "kernel's unsigned int object size)",
                   rp->trace, ev->line, name, object_size, G_MAXUINT32);
      return SIM_CACHE_NONE;
    }
  const SimKernelCache *kc = sim_kernel_cache_lookup (name);
  SimCacheSpec spec = {
    .name = name,
    .object_size = (guint32) object_size,
    .align = kc ? kc->align : 0,
    .flags = kc ? kc->flags : 0,
    .sheaf_capacity = kc ? kc->sheaf_capacity : 0,
  };
  /* A cache the table does not know: its stride (bytes_alloc) says
   * whether the kernel aligned it to cache lines. */
  if (kc == NULL && ev->bytes_req % 64 != 0
      && ev->bytes_alloc == ((ev->bytes_req + 63) & ~(guint64) 63))
    spec.flags |= SIM_SLAB_HWCACHE_ALIGN;
  /* Cache creation happened at boot, before the trace: its cost is not
   * charged to any CPU's clock and it takes no time on the timeline, so
   * the locks it takes (zone lock, list_lock of the kmalloc cache of 6.18's
   * sheaves) are neither waited for nor left busy in any CPU's future
   * (SimOp.uncharged).  Its memory accesses run on the event's CPU. */
  SimOp op;
  guint tc = ev->cpu >= 0 ? (guint) ev->cpu : 0;
  guint cpu = tc < rp->map.given ? rp->map.to_machine[tc] : rp->map.to_machine[0];
  sim_op_begin_uncharged (&op, rp->mem, cpu, sim_engine_cpu_clock (rp->eng, cpu));
  GError *local = NULL;
  SimCacheId id = rp->ops->cache_create (rp->model, &op, &spec, &local);
  if (id == SIM_CACHE_NONE)
    {
      g_propagate_prefixed_error (error, local, "%s:%" G_GUINT64_FORMAT ": cache %s: ",
                                  rp->trace, ev->line, name);
      return SIM_CACHE_NONE;
    }
  g_hash_table_insert (rp->cache_of, g_strdup (name), GUINT_TO_POINTER (id + 1));
  rp->out->caches_created++;
  return id;
}

/* The free (explicit or implicit) of a live trace object: @user is its
 * word (SimLiveObject.user), @bytes_alloc its size. */
static gboolean
free_live (Replay *rp, const SimTraceEvent *ev, guint cpu, guint64 user, guint64 bytes_alloc,
           FreeHow how, GError **error)
{
  switch (user)
    {
    case LIVE_REFUSED:
      /* kfree of what kmalloc refused: the caller got NULL, so this frees
       * no object of the model */
      rp->out->skipped_refused_frees++;
      return TRUE;
    case LIVE_INTERNAL:
      rp->out->skipped_internal_frees++;
      return TRUE;
    case LIVE_SKIPPED:
      return TRUE;
    default:
      return replay_free (rp, ev, cpu, (SimAddr) user, bytes_alloc, how, error);
    }
}

/* RCU callbacks whose grace period has ended by @ts_ns (the trace's
 * clock) run first, each on the CPU that queued it. */
static void
run_rcu (Replay *rp, guint64 ts_ns)
{
  if (sim_rcu_advance (rp->rcu, ts_ns))
    flush_page_lines (rp);
}

/* When the next untraced free is due (rp->untraced_due). */
static void
untraced_next_due (Replay *rp)
{
  const GArray *fr = rp->untraced ? rp->untraced->frees : NULL;
  rp->untraced_due = fr && rp->next_untraced < fr->len
    ? g_array_index (fr, SimUntracedFree, rp->next_untraced).before_index : G_MAXUINT64;
}

/* The frees the trace shows only by their consequences (untraced.h) due
 * before the event of ordinal rp->n_events (@ev NULL: all that are left).
 * Each frees the pointer's current object, which is the lifetime it ends:
 * it is placed after that lifetime's allocation and no later than the
 * event that ends it.  The object is marked so its later free or reuse
 * finds nothing to do. */
static gboolean
apply_untraced_due (Replay *rp, const SimTraceEvent *ev, GError **error)
{
  const GArray *fr = rp->untraced ? rp->untraced->frees : NULL;
  while (fr && rp->next_untraced < fr->len)
    {
      const SimUntracedFree *f = &g_array_index (fr, SimUntracedFree, rp->next_untraced);
      if (ev && f->before_index > rp->n_events)
        break;
      /* The object live at @f's pointer now: the accounting's entry, or
       * the lane's word of the slot the feeding thread found for it at
       * this point of the trace. */
      guint64 *word, bytes;
      if (rp->shared)
        {
          guint32 s = rp->untraced_slots[rp->next_untraced++];
          if (s == SIM_ACCOUNT_NO_SLOT)
            continue;
          word = &rp->slots[s].user;
          bytes = rp->slots[s].bytes_alloc;
        }
      else
        {
          rp->next_untraced++;
          SimLiveObject *o = sim_trace_account_lookup (rp->acct, f->ptr);
          if (o == NULL)
            continue;
          word = &o->user;
          bytes = o->bytes_alloc;
        }
      guint tcpu = f->cpu < rp->map.given ? f->cpu : 0;
      guint cpu = rp->map.to_machine[tcpu];
      if (rp->opt->mode == SIM_REPLAY_TIMED)
        op_sync_timed (rp, cpu, f->ts_ns);
      run_rcu (rp, f->ts_ns);
      rp->cur_ts = f->ts_ns;
      SimTraceEvent fe = { .ts_ns = f->ts_ns, .ptr = f->ptr, .kind = SIM_TRACE_KFREE,
                           .cpu = (gint32) tcpu, .pid = -1, .node = -1, .order = -1,
                           .migratetype = -1, .accounted = -1,
                           .line = ev ? ev->line : 0 };
      FreeHow how = f->kind == SIM_UNTRACED_KFREE_RCU ? FREE_UNTRACED_RCU : FREE_UNTRACED;
      if (!free_live (rp, &fe, cpu, *word, bytes, how, error))
        {
          untraced_next_due (rp);
          return FALSE;
        }
      *word = LIVE_SKIPPED;
    }
  untraced_next_due (rp);
  return TRUE;
}

/* apply_untraced_due when a free is due (checked in line: the replay asks
 * before every event, and few are; untraced_due says when the next is). */
static inline gboolean
apply_untraced (Replay *rp, const SimTraceEvent *ev, GError **error)
{
  if (ev)
    {
      if (G_LIKELY (rp->untraced_due > rp->n_events))
        return TRUE;
    }
  else
    {
      const GArray *fr = rp->untraced ? rp->untraced->frees : NULL;
      if (fr == NULL || rp->next_untraced >= fr->len)
        return TRUE;
    }
  return apply_untraced_due (rp, ev, error);
}

/* The error of an event whose CPU the map has no machine CPU for. */
static G_GNUC_NO_INLINE gboolean
event_cpu_unmapped (Replay *rp, const SimTraceEvent *ev, GError **error)
{
  if (rp->map.compact)
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                 "%s:%" G_GUINT64_FORMAT ": event on CPU %d, but machine %s has %u CPUs "
                 "(choose a machine with more CPUs)",
                 rp->trace, ev->line, ev->cpu,
                 rp->opt->machine->name, rp->opt->machine->n_cpus);
  else
    /* The list is too short for this trace: a usage error (exit 2). */
    g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                 "%s:%" G_GUINT64_FORMAT ": event on CPU %d, but --cpu-map gives a machine "
                 "CPU for %u trace CPU%s only (list one for every CPU of the trace)",
                 rp->trace, ev->line, ev->cpu, rp->map.given,
                 rp->map.given == 1 ? "" : "s");
  return FALSE;
}

/* The machine CPU of @ev (sim/run/cpu-map.h), with the model's periodic
 * work due on it run first.  FALSE with @error when the map has no CPU for
 * it.  In line: every event begins here. */
static inline gboolean
event_prologue (Replay *rp, const SimTraceEvent *ev, guint *cpu_out, GError **error)
{
  /* No CPU printed (perf script of a per-task recording): the documented
   * rule (docs/traces.md) runs the event on CPU 0 and counts it. */
  if (G_UNLIKELY (ev->cpu < 0))
    rp->out->events_without_cpu++;
  else if (G_UNLIKELY ((guint) ev->cpu >= rp->map.given))
    {
      *cpu_out = 0;
      return event_cpu_unmapped (rp, ev, error);
    }
  guint tcpu = ev->cpu < 0 ? 0 : (guint) ev->cpu;
  rp->out->trace_cpu_used[tcpu] = 1;
  /* The machine CPU that replays this trace CPU (sim/run/cpu-map.h). */
  guint cpu = rp->map.to_machine[tcpu];
  /* Periodic work of the model (SLAB's cache_reap, SLQB's trim) whose
   * time has come on this CPU's clock runs first. */
  if (rp->opt->mode == SIM_REPLAY_TIMED)
    op_sync_timed (rp, cpu, ev->ts_ns);
  rp->cur_ts = ev->ts_ns;
  sim_engine_run (rp->eng, sim_engine_cpu_clock (rp->eng, cpu));
  flush_page_lines (rp);
  run_rcu (rp, ev->ts_ns);
  *cpu_out = cpu;
  return TRUE;
}

/* Trace page pfn -> what the replay holds for it: the model's block
 * address | order << 4 | 1 (address 0 with --page-events ignore). */
#define TP_PACK(addr, order) ((addr) | ((guint64) (order) << 4) | 1u)
#define TP_ADDR(v)           ((v) & ~(guint64) 0xfff)
#define TP_ORDER(v)          ((guint) (((v) >> 4) & 0xff))

/* Free the model's block for a trace page (replayed pages only). */
static void
free_trace_page (Replay *rp, guint cpu, guint64 v)
{
  if (TP_ADDR (v) == 0)
    return;
  SimOp op;
  op_start (rp, &op, cpu, rp->cur_ts);
  sim_page_free (rp->pages, &op, TP_ADDR (v), TP_ORDER (v));
  guint64 c = sim_op_cycles (&op);
  sim_engine_cpu_advance (rp->eng, cpu, c);
  rp->out->page_event_cycles += c;
  flush_page_lines (rp);
}

/* A page event (in line in both replay_event variants, as cache_for). */
static inline __attribute__ ((always_inline)) gboolean
replay_page_event (Replay *rp, const SimTraceEvent *ev, GError **error)
{
  gboolean is_alloc = ev->kind == SIM_TRACE_PAGE_ALLOC;
  if (ev->kind == SIM_TRACE_PAGE_PCPU_DRAIN)
    {
      /* The recording kernel's decision, not workload: the model drains
       * its own pcp lists (validate compares the two). */
      rp->out->pcp_drain_events++;
      return TRUE;
    }
  if (!is_alloc && ev->kind != SIM_TRACE_PAGE_FREE && ev->kind != SIM_TRACE_PAGE_FREE_BATCHED
      && ev->kind != SIM_TRACE_PAGE_FREE_DIRECT && ev->kind != SIM_TRACE_PAGEVEC_FREE)
    return TRUE;
  /* As traces/decisions.c reads them: a page event without pfn says
   * nothing about which block. */
  if (ev->pfn == 0 && ev->ptr == 0)
    return TRUE;
  guint cpu;
  if (!event_prologue (rp, ev, &cpu, error))
    return FALSE;
  guint64 pfn = ev->pfn;
  guint64 key = pfn;
  guint order = ev->order > 0 ? (guint) ev->order : 0;
  if (!is_alloc)
    {
      guint64 v;
      if (sim_idmap_take (rp->trace_pages, key, &v))
        {
          rp->out->other_page_frees++;
          if (TP_ADDR (v))
            rp->out->page_frees_replayed++;
          free_trace_page (rp, cpu, v);
        }
      else if (sim_idmap_remove (rp->slab_pages, key, NULL))
        rp->out->slab_page_frees++;
      else if (sim_idmap_remove (rp->freed_pages, key, NULL))
        {
          /* 6.18's free_unref_folios traces mm_page_free (in
           * free_pages_prepare) and then mm_page_free_batched for the
           * same page; older kernels the other way round.  One free. */
          rp->out->page_frees_repeated++;
          return TRUE;
        }
      else
        rp->out->page_frees_unknown++;
      sim_idmap_insert (rp->freed_pages, key, NULL);
      return TRUE;
    }

  guint64 ordinal = rp->page_ordinal++;
  sim_idmap_remove (rp->freed_pages, key, NULL);
  guint64 old;
  if (sim_idmap_take (rp->trace_pages, key, &old))
    {
      /* Allocated again without a free in the trace (a lost event): the
       * model gives the old block back first. */
      rp->out->page_implicit_frees++;
      free_trace_page (rp, cpu, old);
    }
  if (rp->page_class && sim_page_class_is_slab (rp->page_class, ordinal))
    {
      /* The recording kernel's slab (or large kmalloc) pages: the model
       * takes its own. */
      rp->out->slab_page_allocs++;
      sim_idmap_insert (rp->slab_pages, key, NULL);
      return TRUE;
    }
  sim_idmap_remove (rp->slab_pages, key, NULL);
  rp->out->other_page_allocs++;
  if (rp->opt->page_events == SIM_PAGE_EVENTS_IGNORE || order >= SIM_PAGE_MAX_ORDER)
    {
      sim_idmap_set (rp->trace_pages, key, TP_PACK (0, 0));
      return TRUE;
    }
  SimOp op;
  op_start (rp, &op, cpu, ev->ts_ns);
  /* No node in the event: the CPU's node, as alloc_pages() without one. */
  SimAddr addr = sim_page_alloc (rp->pages, &op, order, SIM_NUMA_NO_NODE, model_gfp (ev->gfp),
                                 (ev->gfp & SIM_GFP (COMP)) != 0);
  if (addr == 0)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_OUT_OF_MEMORY,
                   "%s:%" G_GUINT64_FORMAT ": simulated memory exhausted replaying the trace's "
                   "page allocation (order %u); the machine's memory per node is too small for "
                   "this trace, or try --page-events ignore",
                   rp->trace, ev->line, order);
      return FALSE;
    }
  guint64 c = sim_op_cycles (&op);
  sim_engine_cpu_advance (rp->eng, cpu, c);
  rp->out->page_event_cycles += c;
  rp->out->page_allocs_replayed++;
  sim_idmap_set (rp->trace_pages, key, TP_PACK (addr, order));
  flush_page_lines (rp);
  return TRUE;
}

/* Replay one event.  @shared (a constant where this is in line): the
 * accounting was done on the feeding thread and @slot is the event's
 * (sim_trace_account_slot), naming this lane's word of the object;
 * otherwise the lane's own accounting says what the event means. */
static inline __attribute__ ((always_inline)) gboolean
replay_event_as (Replay *rp, const SimTraceEvent *ev, gboolean shared, guint32 slot,
                 GError **error)
{
  SimAccountResult res;
  if (!shared)
    sim_trace_account_event (rp->acct, ev, &res);
  gboolean is_alloc = sim_trace_kind_is_slab_alloc (ev->kind);
  gboolean is_free = sim_trace_kind_is_slab_free (ev->kind);
  if (!is_alloc && !is_free)
    return replay_page_event (rp, ev, error);
  rp->out->events++;
  guint cpu;
  if (!event_prologue (rp, ev, &cpu, error))
    return FALSE;

  if (is_free)
    {
      /* What the accounting tells apart for the replay: a free of a live
       * object (here SIM_FREE_SAME_CPU stands for either CPU), a NULL
       * pointer, or an unknown one. */
      SimFreeClass fc = !shared ? res.free_class
                        : slot != SIM_ACCOUNT_NO_SLOT ? SIM_FREE_SAME_CPU
                        : ev->ptr == 0 ? SIM_FREE_NULL : SIM_FREE_UNKNOWN;
      switch (fc)
        {
        case SIM_FREE_NULL:
          rp->out->skipped_null_frees++;
          return TRUE;
        case SIM_FREE_UNKNOWN:
          {
            guint64 a;
            if (rp->warm_addr && sim_idmap_take (rp->warm_addr, ev->ptr, &a))
              {
                rp->out->warm_frees++;
                return replay_free (rp, ev, cpu, (SimAddr) a, 0, FREE_TRACED, error);
              }
          }
          if (site_kind (rp, ev->call_site_id) & SITE_INTERNAL_FREE)
            rp->out->skipped_internal_frees++;
          else
            rp->out->skipped_unknown_frees++;
          return TRUE;
        default:
          {
            /* A kfree_rcu of slabsim's own emitted trace (emit.h). */
            gboolean rcu = ev->kind == SIM_TRACE_KFREE
                           && (site_kind (rp, ev->call_site_id) & SITE_KFREE_RCU);
            FreeHow how = rcu ? FREE_TRACED_RCU : FREE_TRACED;
            if (shared)
              return free_live (rp, ev, cpu, rp->slots[slot].user, rp->slots[slot].bytes_alloc,
                                how, error);
            return free_live (rp, ev, cpu, res.freed.user, res.freed.bytes_alloc, how, error);
          }
        }
    }

  /* Shared: this lane's word of the object's slot (none for a failed
   * allocation). */
  LaneSlot *ls = shared && slot != SIM_ACCOUNT_NO_SLOT
    ? &rp->slots[slot & ~SIM_ACCOUNT_SLOT_IMPLICIT] : NULL;
  if (shared ? (slot & SIM_ACCOUNT_SLOT_IMPLICIT) != 0 : res.implicit)
    {
      guint64 user = shared ? ls->user : res.implicit_old.user;
      guint64 bytes = shared ? ls->bytes_alloc : res.implicit_old.bytes_alloc;
      if (!free_live (rp, ev, cpu, user, bytes, FREE_IMPLICIT, error))
        return FALSE;
    }
  if (ev->ptr == 0)
    {
      rp->out->skipped_failed_allocs++;
      return TRUE;
    }
  /* The entry the accounting just made for this object (res.live), or the
   * lane's word of its slot, made the same way: it keeps what the replay
   * did with the object, so its free finds the model's address. */
  guint64 *word;
  if (shared)
    {
      ls->user = LIVE_SKIPPED;
      ls->bytes_alloc = ev->bytes_alloc;
      word = &ls->user;
    }
  else
    word = &res.live->user;
  if (site_kind (rp, ev->call_site_id) & SITE_INTERNAL_ALLOC)
    {
      *word = LIVE_INTERNAL;
      rp->out->skipped_internal_allocs++;
      return TRUE;
    }

  /* A kmalloc larger than the kernel serves returns NULL there (the
   * recording kernel was configured differently, or the trace is made
   * up): counted as refused, and the later kfree of its pointer frees
   * nothing.  Never truncated, never an out-of-memory error. */
  if (sim_trace_kind_is_kmalloc (ev->kind) && ev->bytes_req > rp->ops->kmalloc_max (rp->model))
    {
      rp->out->refused_allocs++;
      *word = LIVE_REFUSED;
      return TRUE;
    }

  gint node = ev->node >= 0 ? ev->node : SIM_NUMA_NO_NODE;
  guint32 gfp = model_gfp (ev->gfp);
  /* accounted= (6.18) is __GFP_ACCOUNT or a SLAB_ACCOUNT cache: either
   * way memcg charges the object. */
  if (ev->accounted > 0)
    gfp |= SIM_GFP_ACCOUNT;
  SimCacheId id = SIM_CACHE_NONE;
  if (!sim_trace_kind_is_kmalloc (ev->kind))
    {
      id = cache_for (rp, ev, error);
      if (id == SIM_CACHE_NONE)
        return FALSE;
    }
  SimOp op;
  op_start (rp, &op, cpu, ev->ts_ns);
  SimAddr addr = id == SIM_CACHE_NONE
    ? rp->ops->kmalloc (rp->model, &op, ev->bytes_req, node, gfp)
    : rp->ops->cache_alloc (rp->model, &op, id, node, gfp);
  if (addr == 0)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_OUT_OF_MEMORY,
                   "%s:%" G_GUINT64_FORMAT ": simulated memory exhausted (%s, %" G_GUINT64_FORMAT
                   " bytes); the machine's memory per node is too small for this trace",
                   rp->trace, ev->line, rp->ops->name, ev->bytes_req);
      return FALSE;
    }
  touch_object (rp, &op, addr, ev->bytes_req, SIM_ACC_WRITE);
  op_finish (rp, &op, &rp->out->alloc_cycles);
  *word = addr;
  /* A warm object of this pointer (a double free's) is forgotten: the
   * trace's object has its address now. */
  if (rp->warm_addr)
    sim_idmap_remove (rp->warm_addr, ev->ptr, NULL);
  rp->out->allocs_replayed++;
  guint64 vaddr = SIM_DIRECT_MAP_BASE + addr;
  if (rp->opt->modelled)
    {
      char nb[64];
      sim_decisions_alloc (rp->opt->modelled, cpu,
                           sim_decisions_cache_name (rp->strs, ev, nb, sizeof nb), vaddr);
    }
  if (rp->opt->emit)
    {
      /* The allocation's page traffic, then its kmalloc line. */
      char nb[64];
      flush_page_lines (rp);
      sim_trace_emit_slab (rp->opt->emit, rp->strs, ev, rp->map.to_trace[cpu],
                           id == SIM_CACHE_NONE ? NULL : cache_name_of (rp, ev, nb, sizeof nb),
                           vaddr, FALSE);
    }
  return TRUE;
}

/* The replay of one event with the lane's own accounting, and with the
 * feeding thread's (two or more lanes). */
static gboolean
replay_event (Replay *rp, const SimTraceEvent *ev, GError **error)
{
  return replay_event_as (rp, ev, FALSE, 0, error);
}

static gboolean
replay_event_shared (Replay *rp, const SimTraceEvent *ev, guint32 slot, GError **error)
{
  return replay_event_as (rp, ev, TRUE, slot, error);
}

/* --warm unknown-frees: allocate the objects the trace frees but never
 * allocated before the replay starts (layout and why: sim/run/warm.h).
 * Their operations run on the CPU that will free them and advance its
 * clock (they happened before the trace, but the locks they took must see
 * one timeline); they are not in the cycle histograms, and the model's
 * decisions and emitted trace start after them. */
static gboolean
place_warm (Replay *rp, const SimWarmSet *ws, GError **error)
{
  gboolean ok = TRUE;
  rp->warming = TRUE;
  rp->warm_addr = sim_idmap_new (sizeof (SimIdPair), ws->objects->len);
  rp->out->warm_unplaced = ws->unplaced;
  for (guint i = 0; i < ws->objects->len && ok; i++)
    {
      const SimWarmObject *o = &g_array_index (ws->objects, SimWarmObject, i);
      if (o->cpu >= rp->map.given)
        {
          rp->out->warm_unplaced++;
          continue;
        }
      guint cpu = rp->map.to_machine[o->cpu];
      SimTraceEvent ev = { .bytes_req = o->bytes_req, .bytes_alloc = o->bytes_alloc,
                           .cpu = (gint32) o->cpu };
      SimCacheId id = SIM_CACHE_NONE;
      if (o->cache)
        {
          id = cache_create_for (rp, o->cache, &ev, error);
          if (id == SIM_CACHE_NONE)
            {
              ok = FALSE;
              break;
            }
        }
      SimOp op;
      sim_op_begin (&op, rp->mem, cpu, sim_engine_cpu_clock (rp->eng, cpu));
      guint32 gfp = model_gfp (o->gfp);
      SimAddr addr = id == SIM_CACHE_NONE
        ? rp->ops->kmalloc (rp->model, &op, o->bytes_req, SIM_NUMA_NO_NODE, gfp)
        : rp->ops->cache_alloc (rp->model, &op, id, SIM_NUMA_NO_NODE, gfp);
      if (addr == 0)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_OUT_OF_MEMORY,
                       "%s: --warm: simulated memory exhausted placing %u objects",
                       rp->trace_arg, ws->objects->len);
          ok = FALSE;
          break;
        }
      sim_engine_cpu_advance (rp->eng, cpu, sim_op_cycles (&op));
      sim_idmap_set (rp->warm_addr, o->ptr, addr);
      rp->out->warm_objects++;
    }
  rp->warming = FALSE;
  return ok;
}

static gboolean
run_check (Replay *rp, GError **error)
{
  if (!rp->ops->check (rp->model, error))
    return FALSE;
  if (!sim_page_check (rp->pages, error))
    return FALSE;
  rp->out->checks++;
  return TRUE;
}

void
sim_replay_free (SimReplay *rp)
{
  if (rp == NULL)
    return;
  if (rp->warm_addr)
    sim_idmap_free (rp->warm_addr);
  if (rp->cache_of)
    g_hash_table_destroy (rp->cache_of);
  if (rp->cache_by_size)
    sim_idmap_free (rp->cache_by_size);
  if (rp->cache_by_id)
    g_array_free (rp->cache_by_id, TRUE);
  if (rp->site_kind)
    g_array_free (rp->site_kind, TRUE);
  if (rp->page_lines)
    g_string_free (rp->page_lines, TRUE);
  if (rp->trace_pages)
    sim_idmap_free (rp->trace_pages);
  if (rp->slab_pages)
    sim_idmap_free (rp->slab_pages);
  if (rp->freed_pages)
    sim_idmap_free (rp->freed_pages);
  if (rp->acct)
    sim_trace_account_free (rp->acct);
  g_free (rp->slots);
  if (rp->model)
    rp->ops->destroy (rp->model);
  /* After the model: callbacks still pending are dropped, never run. */
  sim_rcu_free (rp->rcu);
  if (rp->pages)
    sim_page_alloc_free (rp->pages);
  if (rp->eng)
    sim_engine_free (rp->eng);
  if (rp->mem)
    sim_memsys_free (rp->mem);
  if (rp->spec)
    sim_alloc_spec_free (rp->spec);
  sim_cpu_map_clear (&rp->map);
  g_free (rp->trace_arg);
  g_free (rp);
}

SimReplay *
sim_replay_new (const char *spec_text, const SimReplayOptions *opt, SimReplayResult *out,
                GError **error)
{
  memset (out, 0, sizeof *out);
  hist_init (&out->alloc_cycles);
  hist_init (&out->free_cycles);
  sim_alloc_report_init (&out->alloc);

  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (spec_text, error);
  if (spec == NULL)
    return NULL;
  const SimAllocOps *ops = sim_alloc_model_find (spec->name, error);
  if (ops == NULL)
    return NULL;

  Replay *rp = g_new0 (Replay, 1);
  rp->opt = opt;
  rp->ops = ops;
  rp->out = out;
  rp->spec = g_steal_pointer (&spec);
  const SimMachine *m = opt->machine;
  if (!sim_cpu_map_init (&rp->map, m, opt->cpu_map, error))
    goto fail;
  out->cpu_map = g_memdup2 (rp->map.to_machine, m->n_cpus * sizeof (guint));
  out->cpu_map_given = rp->map.given;
  out->cpu_map_compact = rp->map.compact;
  out->trace_cpu_used = g_new0 (guint8, m->n_cpus);
  out->n_cpus = m->n_cpus;
  rp->mem = sim_memsys_new (m, error);
  if (rp->mem == NULL)
    goto fail;
  rp->eng = sim_engine_new (m->n_cpus);
  /* Grace periods pass on the trace's clock (sim/core/rcu.h). */
  rp->rcu = sim_rcu_new (m->rcu_grace_period_us * 1000);
  SimAllocEnv env = { .machine = m, .mem = rp->mem, .eng = rp->eng, .rcu = rp->rcu,
                      .n_cpus = m->n_cpus, .seed = m->seed, .internal = on_internal,
                      .internal_data = rp };
  SimPageParams pp = { .era = sim_page_era_for_kernel (rp->spec->kernel ? rp->spec->kernel
                                                                        : ops->kernels[0]),
                       .managed_bytes = 0 };
  rp->pages = sim_page_alloc_new (m, rp->mem, &pp, error);
  if (rp->pages == NULL)
    goto fail;
  env.pages = rp->pages;
  rp->model = ops->create (rp->spec, &env, error);
  if (rp->model == NULL)
    goto fail;
  rp->env = env;
  out->allocator = g_strdup (ops->name);
  out->kernel = g_strdup (ops->kernel (rp->model));
  out->params = ops->params (rp->model);
  rp->acct = sim_trace_account_new ();
  rp->cache_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  rp->cache_by_id = g_array_new (FALSE, TRUE, sizeof (guint));
  rp->cache_by_size = sim_idmap_new (sizeof (SimIdPair), 0);
  rp->site_kind = g_array_new (FALSE, TRUE, sizeof (guint8));
  rp->page_lines = g_string_new (NULL);
  rp->trace_pages = sim_idmap_new (sizeof (SimIdPair), 0);
  rp->slab_pages = sim_idmap_new (8, 0);
  rp->freed_pages = sim_idmap_new (8, 0);
  out->page_events_replayed = opt->page_events == SIM_PAGE_EVENTS_REPLAY;
  if (opt->modelled || opt->emit)
    sim_page_set_observer (rp->pages, on_page_event, rp);
  return rp;

fail:
  sim_replay_free (rp);
  return NULL;
}

GPtrArray *
sim_replay_cache_names (SimReplay *rp)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  SimAllocReport rep;
  sim_alloc_report_init (&rep);
  rp->ops->report (rp->model, &rep);
  for (guint i = 0; i < rep.rows->len; i++)
    {
      const SimAllocCacheRow *r = &g_array_index (rep.rows, SimAllocCacheRow, i);
      g_ptr_array_add (names, g_strdup (r->name));
      for (char **a = r->aliases; a && *a; a++)
        g_ptr_array_add (names, g_strdup (*a));
    }
  sim_alloc_report_clear (&rep);
  return names;
}

void
sim_replay_untraced_counts (SimReplay *rp, const SimUntracedSet *untraced)
{
  rp->out->untraced_by_reuse = untraced->by_reuse;
  rp->out->untraced_by_page_free = untraced->by_page_free;
  rp->out->untraced_by_mm_destroy = untraced->by_mm_destroy;
  rp->out->untraced_reused_after = untraced->reused_after;
  rp->out->untraced_contradicted = untraced->contradicted;
}

gboolean
sim_replay_begin (SimReplay *rp, const char *trace, SimTraceStream *stream,
                  const SimWarmSet *warm, const SimPageClass *pages,
                  const SimUntracedSet *untraced, GError **error)
{
  rp->page_class = pages;
  rp->untraced = untraced;
  untraced_next_due (rp);
  if (untraced)
    sim_replay_untraced_counts (rp, untraced);
  rp->trace_arg = g_strdup (trace);
  rp->trace = sim_trace_stream_name (stream);
  rp->strs = sim_trace_stream_strings (stream);
  if (warm && !place_warm (rp, warm, error))
    return FALSE;
  return TRUE;
}

/* A free some events ahead: the host lines the cache model will probe for
 * the object's first line (its touch, and most models' free pointer write)
 * are loaded meanwhile (sim_memsys_prefetch).  On a long 16-CPU trace that
 * line was last written by another CPU, so its access misses every private
 * level and reads the L3 set and the directory, megabytes read at random.
 * (Hinting the free pointer's line as well, mid-object in SLUB 6.18, was
 * measured and gave nothing: docs/perf/bigreplay-12.md.)
 * The accounting's entry (hinted SIM_ACCOUNT_PREFETCH_AHEAD events before)
 * names the model's address.  Reads only: no state or result changes. */
#define REPLAY_OBJECT_AHEAD 4
G_STATIC_ASSERT (REPLAY_OBJECT_AHEAD < SIM_ACCOUNT_PREFETCH_AHEAD);

/* @slot: the event's with a shared accounting (@shared), else unused. */
static inline void
prefetch_freed_object (Replay *rp, const SimTraceEvent *ev, gboolean shared, guint32 slot)
{
  if (!sim_trace_kind_is_slab_free (ev->kind) || ev->ptr == 0 || ev->cpu < 0
      || (guint) ev->cpu >= rp->map.given)
    return;
  guint64 user;
  if (shared)
    {
      if (slot == SIM_ACCOUNT_NO_SLOT)
        return;
      /* may be an older object's word, if the slot is taken in between:
       * a hint either way */
      user = rp->slots[slot].user;
    }
  else
    {
      const SimLiveObject *o = sim_trace_account_lookup (rp->acct, ev->ptr);
      if (o == NULL)
        return;
      user = o->user;
    }
  if (user > LIVE_REFUSED)
    sim_memsys_prefetch (rp->mem, rp->map.to_machine[ev->cpu], user);
}

/* sim_replay_feed's loops, with the lane's own accounting or (@shared, a
 * constant where this is in line) with @slots, the feeding thread's slot
 * of each event. */
static inline __attribute__ ((always_inline)) gboolean
replay_feed_as (Replay *rp, const SimTraceEvent *evs, guint n, gboolean shared,
                const guint32 *slots, GError **error)
{
  const SimReplayOptions *opt = rp->opt;
  if (opt->progress == NULL && !(opt->check && opt->check_every))
    {
      /* The loop below without what a run without progress and periodic
       * checks never does (the host-cache hints stay: a merge once dropped
       * them from this loop, the one a plain run takes). */
      for (guint i = 0; i < n; i++)
        {
          if (!shared && i + SIM_ACCOUNT_PREFETCH_AHEAD < n)
            sim_trace_account_prefetch (rp->acct, evs[i + SIM_ACCOUNT_PREFETCH_AHEAD].ptr);
          if (i + REPLAY_OBJECT_AHEAD < n)
            prefetch_freed_object (rp, &evs[i + REPLAY_OBJECT_AHEAD], shared,
                                   shared ? slots[i + REPLAY_OBJECT_AHEAD] : 0);
          if (!apply_untraced (rp, &evs[i], error)
              || !(shared ? replay_event_shared (rp, &evs[i], slots[i], error)
                          : replay_event (rp, &evs[i], error)))
            return FALSE;
          rp->n_events++;
        }
      return TRUE;
    }
  for (guint i = 0; i < n; i++)
    {
      const SimTraceEvent *ev = &evs[i];
      /* (shared: the feeding thread hints its own table) */
      if (!shared && i + SIM_ACCOUNT_PREFETCH_AHEAD < n)
        sim_trace_account_prefetch (rp->acct, evs[i + SIM_ACCOUNT_PREFETCH_AHEAD].ptr);
      if (i + REPLAY_OBJECT_AHEAD < n)
        prefetch_freed_object (rp, &evs[i + REPLAY_OBJECT_AHEAD], shared,
                               shared ? slots[i + REPLAY_OBJECT_AHEAD] : 0);
      if (opt->progress && (++rp->n_read & 0xffff) == 0)
        opt->progress (rp->out->events, opt->progress_data);
      if (!apply_untraced (rp, ev, error)
          || !(shared ? replay_event_shared (rp, ev, slots[i], error)
                      : replay_event (rp, ev, error)))
        return FALSE;
      rp->n_events++;
      /* Once per N replayed events: a trace event the replay skips leaves
       * the count where it was and must not check again. */
      if (opt->check && opt->check_every && rp->out->events % opt->check_every == 0
          && rp->out->events != rp->checked_at
          && (rp->checked_at = rp->out->events, !run_check (rp, error)))
        {
          g_prefix_error (error, "%s:%" G_GUINT64_FORMAT ": invariant check: ", rp->trace,
                          ev->line);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
sim_replay_feed (SimReplay *rp, const SimTraceEvent *evs, guint n, GError **error)
{
  return replay_feed_as (rp, evs, n, FALSE, NULL, error);
}

static G_GNUC_NO_INLINE gboolean
replay_feed_shared (Replay *rp, const SimTraceEvent *evs, guint n, const guint32 *slots,
                    GError **error)
{
  return replay_feed_as (rp, evs, n, TRUE, slots, error);
}

/* A chunk's answers from the pre-pass (the pipelined run). */
static void
replay_chunk_answers (Replay *rp, const SimPageClass *pages, const SimUntracedSet *untraced)
{
  rp->page_class = pages;
  rp->untraced = untraced;
  rp->next_untraced = 0;
  untraced_next_due (rp);
}

gboolean
sim_replay_feed_chunk (SimReplay *rp, const SimTraceEvent *evs, guint n,
                       const SimPageClass *pages, const SimUntracedSet *untraced,
                       GError **error)
{
  replay_chunk_answers (rp, pages, untraced);
  return sim_replay_feed (rp, evs, n, error);
}

gboolean
sim_replay_finish (SimReplay *rp, GError **error)
{
  const SimReplayOptions *opt = rp->opt;
  SimReplayResult *out = rp->out;
  const SimMachine *m = opt->machine;
  if (!apply_untraced (rp, NULL, error))
    return FALSE;
  /* Callbacks still waiting at the end: the grace periods the recording
   * stopped in the middle of. */
  out->rcu_callbacks = sim_rcu_invoked (rp->rcu);
  out->rcu_pending = sim_rcu_pending (rp->rcu);
  if (opt->check && !run_check (rp, error))
    {
      g_prefix_error (error, "%s: invariant check at the end: ", rp->trace_arg);
      return FALSE;
    }
  rp->ops->report (rp->model, &out->alloc);
  sim_memsys_total_stats (rp->mem, &out->mem);
  out->n_cpus = m->n_cpus;
  if (opt->per_cpu)
    {
      out->mem_per_cpu = g_new (SimCpuMemStats, m->n_cpus);
      for (guint c = 0; c < m->n_cpus; c++)
        out->mem_per_cpu[c] = *sim_memsys_cpu_stats (rp->mem, c);
    }
  out->pages = *sim_page_stats (rp->pages);
  out->sim_cycles = sim_engine_max_clock (rp->eng);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Read once, replay many: one stream feeds every replay ("lane") chunk by
 * chunk, after the pre-pass (sim/run/prepass.h) decoded it once.  A lane takes the chunks in
 * order, on one pool thread at a time, so a replay's events run in trace
 * order and the results are the bytes a serial replay gives whatever the
 * number of threads.  The calling thread decodes ahead while the pool
 * replays; with several lanes they may lag it by up to WINDOW - 1 chunks
 * (so a lane whose thread the host preempts does not stall the others at
 * every chunk), and only those chunk buffers exist (2 for one lane: 3.4
 * MB; WINDOW: 13.6 MB), whatever the trace's length. */

#define WINDOW 8

typedef struct _Feed Feed;

/* A chunk handed out: its events, the pre-pass's answers (the pipelined
 * run), and with a shared accounting the slot of each event and of each
 * untraced free, and the slots handed out so far. */
typedef struct {
  const SimTraceEvent *ev;
  guint n;
  const SimPrepassChunk *chunk;
  const guint32 *slots;
  const guint32 *untraced_slots;
  guint32 n_slots;
} FeedChunk;

typedef struct {
  SimReplay *rp;
  gboolean   failed;
  GError    *error;
  guint64    pos;           /* chunks this lane has taken */
  gboolean   queued;        /* on the pool, or running */
  gboolean   finishing;     /* the trace has ended: finish the replay */
  Feed      *feed;
} Lane;

struct _Feed {
  GMutex lock;
  GCond  cond;
  FeedChunk ring[WINDOW];
  guint64 published;        /* chunks decoded and handed out */
  guint   window;           /* chunk buffers, <= WINDOW */
  Lane   *lanes;
  guint   n;
  GThreadPool *pool;
  /* The accounting, done once on the feeding thread for every lane when
   * two or more were made (NULL: each lane does its own).  Each lane is
   * handed every event's slot (sim_trace_account_slot), and the slot of
   * each untraced free's pointer at the point where the lanes make it
   * (the frees of @us, from @next_us, due before event ordinal n_events). */
  SimTraceAccount *acct;
  guint64 n_events;
  const SimUntracedSet *us;
  guint next_us;
  guint32 *us_slots;
  guint32 *slot_buf[WINDOW], *us_buf[WINDOW];   /* ring[i]'s (us_buf: the pipelined run) */
  guint slot_cap[WINDOW], us_cap[WINDOW];
  guint32 *us_whole;        /* the serial run's, for the whole untraced set */
};

static gboolean
lane_active (const Lane *l)
{
  return !l->failed && l->rp;
}

/* Room in @rp's words for @n slots. */
static void
lane_slots_reserve (Replay *rp, guint32 n)
{
  if (n <= rp->n_slots)
    return;
  guint32 cap = MAX (n, MIN (2 * (guint64) rp->n_slots, SIM_ACCOUNT_NO_SLOT));
  rp->slots = g_renew (LaneSlot, rp->slots, cap);
  memset (rp->slots + rp->n_slots, 0, (cap - rp->n_slots) * sizeof (LaneSlot));
  rp->n_slots = cap;
}

/* Replay chunk @fc in @rp. */
static gboolean
lane_feed (Replay *rp, const FeedChunk *fc, GError **error)
{
  const SimPrepassChunk *c = fc->chunk;
  if (!rp->shared)
    return c ? sim_replay_feed_chunk (rp, fc->ev, fc->n, &c->pages, &c->untraced, error)
             : sim_replay_feed (rp, fc->ev, fc->n, error);
  if (c)
    replay_chunk_answers (rp, &c->pages, &c->untraced);
  rp->untraced_slots = fc->untraced_slots;
  lane_slots_reserve (rp, fc->n_slots);
  return replay_feed_shared (rp, fc->ev, fc->n, fc->slots, error);
}

/* Take the chunks published and not yet taken (one a turn when the lanes
 * outnumber the threads); then finish when asked. */
static void
lane_run (Lane *l)
{
  Feed *f = l->feed;
  g_mutex_lock (&f->lock);
  while (lane_active (l) && l->pos < f->published)
    {
      FeedChunk fc = f->ring[l->pos % f->window];
      g_mutex_unlock (&f->lock);
      gboolean ok = lane_feed (l->rp, &fc, &l->error);
      g_mutex_lock (&f->lock);
      l->failed = !ok;
      l->pos++;
      g_cond_broadcast (&f->cond);
      /* More lanes than threads: one chunk a turn.  The lane goes to
       * the back of the pool's queue (still queued), so the lanes share
       * the threads chunk by chunk and none is left alone at the end
       * with several chunks to go (docs/perf/allocs4-12.md); its own
       * chunks still run in order, one thread at a time. */
      if (f->pool && lane_active (l) && l->pos < f->published
          && (guint) g_thread_pool_get_max_threads (f->pool) < f->n)
        {
          g_thread_pool_push (f->pool, l, NULL);
          g_mutex_unlock (&f->lock);
          return;
        }
    }
  if (l->finishing && l->rp && !l->failed)
    {
      g_mutex_unlock (&f->lock);
      gboolean ok = sim_replay_finish (l->rp, &l->error);
      g_mutex_lock (&f->lock);
      l->failed = !ok;
    }
  l->finishing = FALSE;
  l->queued = FALSE;
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
}

static void
lane_job (gpointer data, gpointer user_data)
{
  (void) user_data;
  lane_run (data);
}

/* Queue every idle lane that has work (lock held); without a pool, run
 * them here (lock not held). */
static void
lanes_wake (Feed *f, gboolean locked)
{
  if (f->pool)
    {
      for (guint i = 0; i < f->n; i++)
        {
          Lane *l = &f->lanes[i];
          if (lane_active (l) && !l->queued && (l->pos < f->published || l->finishing))
            {
              l->queued = TRUE;
              g_thread_pool_push (f->pool, l, NULL);
            }
        }
    }
  else if (!locked)
    for (guint i = 0; i < f->n; i++)
      if (lane_active (&f->lanes[i]))
        lane_run (&f->lanes[i]);
}

/* The fewest chunks any lane still running has taken (lock held). */
static guint64
lanes_min_pos (Feed *f)
{
  guint64 m = f->published;
  for (guint i = 0; i < f->n; i++)
    if (lane_active (&f->lanes[i]))
      m = MIN (m, f->lanes[i].pos);
  return m;
}

/* Wait until every lane is idle with nothing left to take (lock held). */
static void
lanes_drain (Feed *f)
{
  for (;;)
    {
      gboolean busy = FALSE;
      for (guint i = 0; i < f->n; i++)
        {
          Lane *l = &f->lanes[i];
          busy |= l->queued || (lane_active (l) && (l->pos < f->published || l->finishing));
        }
      if (!busy)
        return;
      g_cond_wait (&f->cond, &f->lock);
    }
}

/* New work for the lanes (a chunk published, or finishing asked), lock
 * held: queue the idle lanes that have some and release the lock; without
 * a pool the lanes run here, after the release. */
static void
lanes_hand_out (Feed *f)
{
  lanes_wake (f, TRUE);
  g_mutex_unlock (&f->lock);
  lanes_wake (f, FALSE);
}

/* Wait, lock not held, until every lane is idle with nothing left. */
static void
lanes_wait_idle (Feed *f)
{
  g_mutex_lock (&f->lock);
  lanes_drain (f);
  g_mutex_unlock (&f->lock);
}

/* The untraced frees of f->us due before event ordinal @before (all left:
 * G_MAXUINT64): the slot of each one's pointer now, as the lanes' own
 * accounting would find it there (apply_untraced_due: the same frees in
 * the same order at the same events). */
static inline void
feed_untraced (Feed *f, guint64 before)
{
  const GArray *fr = f->us ? f->us->frees : NULL;
  while (fr && f->next_us < fr->len)
    {
      const SimUntracedFree *u = &g_array_index (fr, SimUntracedFree, f->next_us);
      if (u->before_index > before)
        break;
      f->us_slots[f->next_us++] = sim_trace_account_slot_of (f->acct, u->ptr);
    }
}

/* The shared accounting of chunk @fc (its events and @pre_chunk's untraced
 * frees, the pipelined run's; NULL: the serial run's whole set goes on),
 * into ring buffer @b. */
static void
feed_account (Feed *f, guint b, FeedChunk *fc)
{
  if (fc->chunk)
    {
      const GArray *fr = fc->chunk->untraced.frees;
      guint len = fr ? fr->len : 0;
      if (len > f->us_cap[b])
        {
          f->us_cap[b] = MAX (len, 2 * f->us_cap[b]);
          f->us_buf[b] = g_renew (guint32, f->us_buf[b], f->us_cap[b]);
        }
      f->us = &fc->chunk->untraced;
      f->us_slots = f->us_buf[b];
      f->next_us = 0;
    }
  if (fc->n > f->slot_cap[b])
    {
      f->slot_cap[b] = MAX (fc->n, SIM_TRACE_CHUNK);
      f->slot_buf[b] = g_renew (guint32, f->slot_buf[b], f->slot_cap[b]);
    }
  guint32 *slots = f->slot_buf[b];
  /* The events up to the next untraced free's due ordinal in one call,
   * then the frees due there. */
  const GArray *fr = f->us ? f->us->frees : NULL;
  guint64 first = f->n_events, end = first + fc->n;
  while (f->n_events < end)
    {
      feed_untraced (f, f->n_events);
      guint64 to = end;
      if (fr && f->next_us < fr->len)
        to = CLAMP (g_array_index (fr, SimUntracedFree, f->next_us).before_index,
                    f->n_events + 1, end);
      sim_trace_account_slots (f->acct, fc->ev + (f->n_events - first), (guint) (to - f->n_events),
                               slots + (f->n_events - first));
      f->n_events = to;
    }
  fc->slots = slots;
  fc->untraced_slots = f->us_slots;
  fc->n_slots = sim_trace_account_n_slots (f->acct);
}

/* Share one accounting among the lanes when two or more are running
 * (with one, its own costs less: no slots to hand over): @whole is the
 * serial run's untraced set (NULL: the pipelined run's come with the
 * chunks).  TRUE when shared. */
static gboolean
feed_share_begin (Feed *f, const SimUntracedSet *whole)
{
  guint live = 0;
  for (guint i = 0; i < f->n; i++)
    live += lane_active (&f->lanes[i]);
  if (live < 2)
    return FALSE;
  f->acct = sim_trace_account_new ();
  f->n_events = 0;
  f->us = whole;
  f->next_us = 0;
  g_clear_pointer (&f->us_whole, g_free);
  if (whole && whole->frees)
    f->us_whole = g_new (guint32, MAX (whole->frees->len, 1));
  f->us_slots = f->us_whole;
  for (guint i = 0; i < f->n; i++)
    {
      Replay *rp = f->lanes[i].rp;
      if (!lane_active (&f->lanes[i]))
        continue;
      rp->shared = TRUE;
      g_clear_pointer (&rp->acct, sim_trace_account_free);
      rp->untraced_slots = f->us_whole;
    }
  return TRUE;
}

/* Hand @stream's chunks to the lanes, as they take them, to its end; with
 * @pp (the pipelined run) each with the pre-pass's answers for it, waited
 * for, else @whole is the untraced set the lanes were begun with.  FALSE
 * when @pp stopped handing out answers (or they do not fit the chunk)
 * before the stream's end.  Returns with every lane idle. */
static gboolean
lanes_feed (Feed *f, SimTraceStream *stream, SimPrepassPipe *pp, const SimUntracedSet *whole,
            GError **stream_error)
{
  gboolean complete = TRUE;
  gboolean shared = feed_share_begin (f, whole);
  sim_trace_stream_set_buffers (stream, f->window);
  for (guint64 p = 0;; p++)
    {
      /* Decoding chunk p overwrites chunk p - window: every lane still
       * running must have taken it. */
      g_mutex_lock (&f->lock);
      while (f->published - lanes_min_pos (f) >= f->window)
        g_cond_wait (&f->cond, &f->lock);
      g_mutex_unlock (&f->lock);
      const SimTraceEvent *ev;
      guint k;
      if (!sim_trace_stream_next (stream, &ev, &k, stream_error))
        {
          /* The pre-pass must have read no more than the follower. */
          if (pp && *stream_error == NULL && sim_prepass_pipe_chunk (pp, p) != NULL)
            complete = FALSE;
          break;
        }
      const SimPrepassChunk *c = NULL;
      if (pp)
        {
          c = sim_prepass_pipe_chunk (pp, p);
          if (c == NULL || c->n_events != k)
            {
              complete = FALSE;
              break;
            }
        }
      FeedChunk fc = { .ev = ev, .n = k, .chunk = c };
      guint b = (guint) (p % f->window);
      if (shared)
        feed_account (f, b, &fc);
      g_mutex_lock (&f->lock);
      f->ring[b] = fc;
      f->published++;
      lanes_hand_out (f);
    }
  if (shared)
    {
      /* The frees left for the lanes' finish (sim_replay_finish), in the
       * last set handed out: after every event.  The lanes read only
       * those before them until then. */
      feed_untraced (f, G_MAXUINT64);
      g_clear_pointer (&f->acct, sim_trace_account_free);
    }
  lanes_wait_idle (f);
  return complete;
}

/* The shared accounting's buffers (after the lanes' last use). */
static void
feed_clear (Feed *f)
{
  g_clear_pointer (&f->acct, sim_trace_account_free);
  for (guint i = 0; i < WINDOW; i++)
    {
      g_clear_pointer (&f->slot_buf[i], g_free);
      g_clear_pointer (&f->us_buf[i], g_free);
      f->slot_cap[i] = f->us_cap[i] = 0;
    }
  g_clear_pointer (&f->us_whole, g_free);
}

/* Finish every lane still running (the trace has ended). */
static void
lanes_finish (Feed *f)
{
  g_mutex_lock (&f->lock);
  for (guint i = 0; i < f->n; i++)
    f->lanes[i].finishing = lane_active (&f->lanes[i]) && f->lanes[i].rp;
  lanes_hand_out (f);
  lanes_wait_idle (f);
}

/* Make the replays (again), as a serial run would start them: a replay
 * that cannot be made fails by itself; the others go on.  The number
 * made. */
static guint
lanes_make (Feed *f, const char *const *specs, const SimReplayOptions *opts,
            SimReplayResult *out)
{
  guint live = 0;
  f->published = 0;
  for (guint i = 0; i < f->n; i++)
    {
      Lane *l = &f->lanes[i];
      if (l->rp)
        sim_replay_result_clear (&out[i]);
      g_clear_pointer (&l->rp, sim_replay_free);
      g_clear_error (&l->error);
      l->pos = 0;
      l->queued = l->finishing = FALSE;
      l->rp = sim_replay_new (specs[i], &opts[i], &out[i], &l->error);
      l->failed = l->rp == NULL;
      live += !l->failed;
    }
  return live;
}

typedef enum {
  PIPE_DONE,          /* the replays ran to their ends (or failed by themselves) */
  PIPE_TRACE_ERROR,   /* the trace's error, in *trace_error */
  PIPE_AGAIN,         /* *pre is complete: replay again from it, serially */
} PipeOutcome;

/* The pipelined run (sim/run/prepass.h): the pre-pass reads @first on a
 * thread of its own while the replays follow it through the spool,
 * each chunk with the answers the pre-pass hands out for it.  On
 * PIPE_DONE *follow is the stream the replays are bound to. */
static PipeOutcome
replay_pipelined (Feed *f, const char *trace, SimTraceStream *first,
                  const SimPrepassOptions *po, SimPrepass *pre, SimTraceStream **follow,
                  GError **trace_error)
{
  SimPrepassPipe *pp = sim_prepass_pipe_start (first, po);
  GError *ferr = NULL;    /* the follower's: the pre-pass reports the trace's */
  SimTraceStream *fs = sim_trace_stream_follow (first, &ferr);
  gboolean complete = FALSE;
  if (fs)
    {
      for (guint i = 0; i < f->n; i++)
        if (!f->lanes[i].failed && !sim_replay_begin (f->lanes[i].rp, trace, fs, NULL, NULL,
                                                      NULL, &f->lanes[i].error))
          f->lanes[i].failed = TRUE;
      complete = lanes_feed (f, fs, pp, NULL, &ferr) && ferr == NULL;
    }
  g_clear_error (&ferr);
  gboolean exact;
  gboolean ok = sim_prepass_pipe_finish (pp, pre, &exact, trace_error);
  g_debug ("pipelined pre-pass: %s; the replays waited %.3f s for it",
           !ok ? "trace error" : !complete || !exact ? "replayed again" : "exact",
           sim_prepass_pipe_waited_ns (pp) / 1e9);
  PipeOutcome r = !ok ? PIPE_TRACE_ERROR : !complete || !exact ? PIPE_AGAIN : PIPE_DONE;
  if (r == PIPE_DONE)
    {
      for (guint i = 0; i < f->n; i++)
        if (lane_active (&f->lanes[i]))
          sim_replay_untraced_counts (f->lanes[i].rp, &pre->untraced);
      lanes_finish (f);
      *follow = fs;
    }
  else
    sim_trace_stream_free (fs);
  /* After the lanes' last use of the chunks' answers. */
  sim_prepass_pipe_free (pp);
  return r;
}

gboolean
sim_replay_run_many (const char *trace, const char *const *specs, guint n,
                     const SimReplayOptions *opt, guint jobs, SimReplayResult *out,
                     GError **error)
{
  g_return_val_if_fail (n >= 1, FALSE);
  Lane *lanes = g_new0 (Lane, n);
  GError *trace_error = NULL;     /* the trace's: every replay still running meets it */
  SimPrepass pre = { 0 };
  gboolean have_pre = FALSE;
  SimTraceInfo *info = NULL;
  SimTraceStream *first = NULL, *stream = NULL;
  Feed f = { .lanes = lanes, .n = n };
  g_mutex_init (&f.lock);
  g_cond_init (&f.cond);
  for (guint i = 0; i < n; i++)
    lanes[i].feed = &f;

  /* Progress is the first replay's: the others replay the same events. */
  SimReplayOptions *opts = g_new (SimReplayOptions, n);
  for (guint i = 0; i < n; i++)
    {
      opts[i] = *opt;
      if (i > 0)
        opts[i].progress = NULL;
    }
  guint live = lanes_make (&f, specs, opts, out);
  if (live == 0)
    goto resolve;
  SimTraceStreamOptions so = { .lenient = opt->lenient, .read_path = opt->read_path,
                               .cache_dir = opt->trace_cache, .cache_max = opt->trace_cache_max,
                               .keep = TRUE };
  first = sim_trace_stream_open (trace, &so, &trace_error);
  if (first == NULL)
    goto resolve;
  /* One decode for what every replay must know before its event
   * (sim/run/prepass.h): page classes, untraced frees (kfree_rcu a grace
   * period of the machine's before its evidence), the warm set, and the
   * trace's summary; the replays read the events it kept. */
  if (opt->info)
    info = sim_trace_info_new (first);
  SimPrepassOptions po = { .warm = opt->warm, .info = info,
                           .grace_period_ns = opt->machine->rcu_grace_period_us * 1000 };
  if (jobs > 0)
    f.pool = g_thread_pool_new (lane_job, NULL, (gint) MIN (jobs, n), TRUE, NULL);
  f.window = n > 1 ? WINDOW : 2;
  if (jobs >= 2 && !opt->warm)
    {
      /* A thread to spare: the replays start while the pre-pass reads
       * (the warm set needs the whole trace first). */
      gboolean *made = g_new (gboolean, n);
      for (guint i = 0; i < n; i++)
        made[i] = !lanes[i].failed;
      PipeOutcome r = replay_pipelined (&f, trace, first, &po, &pre, &stream, &trace_error);
      if (r == PIPE_TRACE_ERROR)
        /* What a serial run reports: the pre-pass met the error before
         * any replay began, so a replay's own failure since is not one. */
        for (guint i = 0; i < n; i++)
          if (made[i])
            {
              lanes[i].failed = FALSE;
              g_clear_error (&lanes[i].error);
            }
      g_free (made);
      if (r == PIPE_TRACE_ERROR)
        goto resolve;
      have_pre = TRUE;
      if (r == PIPE_DONE)
        goto done;
      if (lanes_make (&f, specs, opts, out) == 0)
        goto resolve;
    }
  else
    {
      if (!sim_prepass_read (first, &po, &pre, &trace_error))
        goto resolve;
      have_pre = TRUE;
    }
  stream = sim_trace_stream_again (first, &trace_error);
  if (stream == NULL)
    goto resolve;
  for (guint i = 0; i < n; i++)
    if (!lanes[i].failed && !sim_replay_begin (lanes[i].rp, trace, stream,
                                               pre.have_warm ? &pre.warm : NULL, &pre.pages,
                                               &pre.untraced, &lanes[i].error))
      lanes[i].failed = TRUE;
  lanes_feed (&f, stream, NULL, &pre.untraced, &trace_error);
  if (trace_error == NULL)
    lanes_finish (&f);
done:
  /* What --lenient skipped, for the report to say. */
  for (guint i = 0; i < n; i++)
    out[i].malformed_lines = sim_trace_stream_stats (first)->malformed_lines;

resolve:
  if (f.pool)
    g_thread_pool_free (f.pool, FALSE, TRUE);
  feed_clear (&f);
  /* The error a serial run reports: the first replay's own, or the
   * trace's when the first replay still running met it. */
  gboolean ok = TRUE;
  for (guint i = 0; i < n && ok; i++)
    {
      if (lanes[i].failed)
        {
          g_propagate_error (error, g_steal_pointer (&lanes[i].error));
          ok = FALSE;
        }
      else if (trace_error)
        {
          g_propagate_error (error, g_steal_pointer (&trace_error));
          ok = FALSE;
        }
    }
  for (guint i = 0; i < n; i++)
    {
      sim_replay_free (lanes[i].rp);
      g_clear_error (&lanes[i].error);
    }
  if (opt->info && ok)
    *opt->info = g_steal_pointer (&info);
  g_clear_pointer (&info, sim_trace_info_free);
  g_clear_error (&trace_error);
  g_free (lanes);
  g_free (opts);
  if (have_pre)
    sim_prepass_clear (&pre);
  sim_trace_stream_free (stream);
  sim_trace_stream_free (first);
  g_mutex_clear (&f.lock);
  g_cond_clear (&f.cond);
  return ok;
}

gboolean
sim_replay_run (const char *trace, const char *spec, const SimReplayOptions *opt,
                SimReplayResult *out, GError **error)
{
  return sim_replay_run_many (trace, &spec, 1, opt, 0, out, error);
}

guint
sim_replay_trace_cpus (const SimReplayResult *r)
{
  guint n = 0;
  for (guint t = 0; r->trace_cpu_used && t < r->n_cpus; t++)
    n += r->trace_cpu_used[t];
  return n;
}

guint
sim_replay_sockets_used (const SimReplayResult *r, const SimMachine *m)
{
  guint n = 0;
  for (guint s = 0; s < m->sockets; s++)
    for (guint t = 0; r->trace_cpu_used && t < r->n_cpus; t++)
      if (r->trace_cpu_used[t] && sim_machine_socket_of (m, r->cpu_map[t]) == s)
        {
          n++;
          break;
        }
  return n;
}

GPtrArray *
sim_replay_cpu_notes (const SimReplayResult *r, const SimMachine *m)
{
  GPtrArray *notes = g_ptr_array_new_with_free_func (g_free);
  guint used = sim_replay_trace_cpus (r);
  if (used == 0 || r->cpu_map == NULL)
    return notes;
  /* "trace CPU 0 -> cpu0 (socket 0), ..." for the CPUs with events. */
  GString *where = g_string_new (NULL);
  guint shown = 0;
  for (guint t = 0; t < r->n_cpus; t++)
    {
      if (!r->trace_cpu_used[t])
        continue;
      if (shown == 8)
        {
          g_string_append (where, ", ...");
          break;
        }
      g_string_append_printf (where, "%s%u -> cpu%u (socket %u)", shown ? ", " : "", t,
                              r->cpu_map[t], sim_machine_socket_of (m, r->cpu_map[t]));
      shown++;
    }
  const char *how = r->cpu_map_compact ? "the compact default" : "--cpu-map";
  if (used < m->n_cpus)
    g_ptr_array_add (notes, g_strdup_printf (
      "the trace used %u CPU%s, machine %s has %u: per-CPU sizing (SLUB's cpu_partial and "
      "min_objects, SLAB's array caches, the pcp high marks) follows the machine's %u CPUs, and "
      "the other %u stay idle (trace CPU %s, %s)", used, used == 1 ? "" : "s", m->name,
      m->n_cpus, m->n_cpus, m->n_cpus - used, where->str, how));
  guint sockets = sim_replay_sockets_used (r, m);
  if (sockets > 1)
    g_ptr_array_add (notes, g_strdup_printf (
      "the trace's CPUs land on %u sockets (trace CPU %s, %s): an object freed on one and "
      "reused on another crosses the interconnect, and their locks bounce between sockets; "
      "a recording from a one-socket machine replays like for like with --cpu-map on one "
      "socket", sockets, where->str, how));
  g_string_free (where, TRUE);
  return notes;
}
