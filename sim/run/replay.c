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
 *    allocates its sheaves; it makes no obj_exts vectors, docs/models/slub.md).
 *  - Trace CPU t runs on machine CPU map[t] (--cpu-map; the default is
 *    compact: socket 0 first, one thread per core first, sim/run/cpu-map.h),
 *    so a 2-CPU recording replays on two cores of one socket.
 *  - An event without a CPU (a per-task perf recording prints none) runs
 *    on trace CPU 0 and is counted (events_without_cpu).
 *  - A kmalloc larger than the model's kernel serves (ops->kmalloc_max:
 *    KMALLOC_MAX_SIZE, 2 MiB for SLQB) returned NULL in that kernel: it is
 *    counted as refused, and the kfree (or implicit free) of its pointer
 *    is counted as a free of a refused allocation, not replayed.
 *  - Page-allocator events of the trace are not replayed: the model's
 *    own page allocator serves the slabs, and other page users are outside
 *    the allocator under test.
 */
#include "sim/run/replay.h"
#include "sim/run/kernel-caches.h"
#include "sim/core/errors.h"
#include "models/alloc/alloc-spec.h"
#include "traces/reader.h"
#include "traces/account.h"
#include "traces/internal.h"
#include "traces/decisions.h"
#include "sim/run/emit.h"
#include "sim/run/warm.h"
#include "sim/run/untraced.h"
#include "sim/run/cpu-map.h"

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

static guint
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

static void
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

typedef struct {
  const SimReplayOptions *opt;
  const SimAllocOps *ops;
  gpointer model;
  SimMemSys *mem;
  SimPageAlloc *pages;
  SimEngine *eng;
  SimTraceReader *reader;
  SimTraceAccount *acct;
  GHashTable *addr_of;        /* trace ptr -> model address */
  GHashTable *cache_of;       /* cache name -> SimCacheId + 1 */
  GHashTable *internal;       /* trace ptrs of live internal allocations (a set) */
  GHashTable *refused;        /* trace ptrs of live kmallocs the model refused */
  guint64 first_ts;
  gboolean have_first_ts;
  SimTime last_start;         /* start of the previous operation (ordered replay) */
  SimReplayResult *out;
  SimCpuMap map;              /* trace CPU -> machine CPU (--cpu-map) */
  /* The model's decisions as trace events (opt->modelled, opt->emit). */
  GString *page_lines;        /* page events of the running operation, for emit */
  guint64 cur_ts;             /* timestamp of the trace event being replayed */
  gboolean warming;           /* placing warm objects: not part of the replay */
  /* Grace periods on the trace's clock, and the frees the trace shows
   * only by their consequences (sim/run/untraced.h). */
  SimRcu *rcu;
  SimAllocEnv env;            /* what the model was given (for call_rcu frees) */
  SimUntracedSet untraced;
  guint next_untraced;
  GHashTable *line_of;        /* trace ptr -> line of the allocation replayed for it */
} Replay;

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
static void
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

static void
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
      sim_op_access (op, addr, (guint32) MIN (size, 8), kind, SIM_MEM_OBJECT);
      break;
    case SIM_TOUCH_OBJECT:
      sim_op_touch_range (op, addr, size, kind, SIM_MEM_OBJECT);
      break;
    }
}

/* What a free is: a trace event, the replay's implicit free before an
 * allocation of a live pointer, or a free the trace shows only by its
 * consequences (sim/run/untraced.h), made as kfree or as kfree_rcu. */
typedef enum { FREE_TRACED, FREE_TRACED_RCU, FREE_IMPLICIT, FREE_UNTRACED, FREE_UNTRACED_RCU } FreeHow;

static gboolean
replay_free (Replay *rp, const SimTraceEvent *ev, guint cpu, guint64 ptr, guint64 bytes,
             FreeHow how, GError **error)
{
  guint64 ts = ev->ts_ns;
  gboolean implicit = how != FREE_TRACED && how != FREE_TRACED_RCU;
  gboolean rcu = how == FREE_UNTRACED_RCU || how == FREE_TRACED_RCU;
  /* kmem_cache_free and kfree are different kernel paths (the first is
   * handed the cache); a free the trace did not show (implicit) is taken
   * as kfree. */
  gboolean cache_free = !implicit && ev->kind == SIM_TRACE_CACHE_FREE;
  gpointer addrp;
  if (g_hash_table_remove (rp->internal, GSIZE_TO_POINTER (ptr)))
    {
      rp->out->skipped_internal_frees++;
      return TRUE;
    }
  if (!g_hash_table_steal_extended (rp->addr_of, GSIZE_TO_POINTER (ptr), NULL, &addrp))
    return TRUE;       /* an allocation the replay skipped */
  SimAddr addr = (SimAddr) GPOINTER_TO_SIZE (addrp);
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
        sim_trace_emit_kfree_rcu (rp->opt->emit, rp->reader, ev, rp->map.to_trace[cpu], vaddr);
      else if (implicit || (ev->kind == SIM_TRACE_CACHE_FREE && ev->cache_id == 0))
        sim_trace_emit_kfree (rp->opt->emit, rp->reader, ev, rp->map.to_trace[cpu], vaddr);
      else
        sim_trace_emit_slab (rp->opt->emit, rp->reader, ev, rp->map.to_trace[cpu],
                             sim_trace_reader_string (rp->reader, ev->cache_id), vaddr, TRUE);
      flush_page_lines (rp);
    }
  return TRUE;
}

/* The replay's name of a kmem_cache event's cache: name=, or a cache per
 * object size for events without one. */
static const char *
cache_name_of (Replay *rp, const SimTraceEvent *ev, char *buf, gsize n)
{
  const char *name = ev->cache_id ? sim_trace_reader_string (rp->reader, ev->cache_id) : NULL;
  if (name == NULL || *name == '\0')
    {
      g_snprintf (buf, n, "unnamed-%" G_GUINT64_FORMAT, ev->bytes_req);
      name = buf;
    }
  return name;
}

static SimCacheId cache_create_for (Replay *rp, const char *name, const SimTraceEvent *ev,
                                    GError **error);

static SimCacheId
cache_for (Replay *rp, const SimTraceEvent *ev, GError **error)
{
  char buf[64];
  return cache_create_for (rp, cache_name_of (rp, ev, buf, sizeof buf), ev, error);
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
                   sim_trace_reader_name (rp->reader), ev->line, name, object_size, G_MAXUINT32);
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
                                  sim_trace_reader_name (rp->reader), ev->line, name);
      return SIM_CACHE_NONE;
    }
  g_hash_table_insert (rp->cache_of, g_strdup (name), GUINT_TO_POINTER (id + 1));
  rp->out->caches_created++;
  return id;
}

/* RCU callbacks whose grace period has ended by @ts_ns (the trace's
 * clock) run first, each on the CPU that queued it. */
static void
run_rcu (Replay *rp, guint64 ts_ns)
{
  sim_rcu_set_now (rp->rcu, ts_ns);
  if (sim_rcu_run (rp->rcu))
    flush_page_lines (rp);
}

/* The frees the trace shows only by their consequences
 * (sim/run/untraced.h) whose time comes before @ts_ns (all of them at the
 * end of the trace): each on its CPU, if the lifetime it ends is still the
 * pointer's current one in the replay. */
static gboolean
apply_untraced (Replay *rp, guint64 ts_ns, gboolean all, GError **error)
{
  GArray *fr = rp->untraced.frees;
  while (fr && rp->next_untraced < fr->len)
    {
      const SimUntracedFree *f = &g_array_index (fr, SimUntracedFree, rp->next_untraced);
      if (!all && f->ts_ns >= ts_ns)
        break;
      rp->next_untraced++;
      gpointer line;
      if (!g_hash_table_lookup_extended (rp->line_of, GSIZE_TO_POINTER (f->ptr), NULL, &line)
          || GPOINTER_TO_SIZE (line) != f->alloc_line
          || !g_hash_table_contains (rp->addr_of, GSIZE_TO_POINTER (f->ptr)))
        continue;
      guint tcpu = f->cpu < rp->opt->machine->n_cpus ? f->cpu : 0;
      guint cpu = rp->map.to_machine[tcpu];
      if (rp->opt->mode == SIM_REPLAY_TIMED)
        op_sync_timed (rp, cpu, f->ts_ns);
      run_rcu (rp, f->ts_ns);
      SimTraceEvent ev = { .ts_ns = f->ts_ns, .ptr = f->ptr, .kind = SIM_TRACE_KFREE,
                           .cpu = (gint32) tcpu, .pid = -1, .node = -1, .order = -1,
                           .migratetype = -1, .accounted = -1, .line = f->alloc_line };
      rp->cur_ts = f->ts_ns;
      if (!replay_free (rp, &ev, cpu, f->ptr, 0,
                        f->kind == SIM_UNTRACED_KFREE_RCU ? FREE_UNTRACED_RCU : FREE_UNTRACED,
                        error))
        return FALSE;
      /* The trace's accountant still holds the pointer live: its next
       * allocation will look implicit there, and replay_free then finds
       * nothing of the model's to free. */
    }
  return TRUE;
}

static gboolean
replay_event (Replay *rp, const SimTraceEvent *ev, GError **error)
{
  SimAccountResult res;
  sim_trace_account_event (rp->acct, ev, &res);
  gboolean is_alloc = sim_trace_kind_is_slab_alloc (ev->kind);
  gboolean is_free = sim_trace_kind_is_slab_free (ev->kind);
  if (!is_alloc && !is_free)
    return TRUE;
  rp->out->events++;
  /* No CPU printed (perf script of a per-task recording): the documented
   * rule (docs/traces.md) runs the event on CPU 0 and counts it. */
  if (ev->cpu < 0)
    rp->out->events_without_cpu++;
  else if ((guint) ev->cpu >= rp->map.given)
    {
      if (rp->map.compact)
        g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                     "%s:%" G_GUINT64_FORMAT ": event on CPU %d, but machine %s has %u CPUs "
                     "(choose a machine with more CPUs)",
                     sim_trace_reader_name (rp->reader), ev->line, ev->cpu,
                     rp->opt->machine->name, rp->opt->machine->n_cpus);
      else
        /* The list is too short for this trace: a usage error (exit 2). */
        g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                     "%s:%" G_GUINT64_FORMAT ": event on CPU %d, but --cpu-map gives a machine "
                     "CPU for %u trace CPU%s only (list one for every CPU of the trace)",
                     sim_trace_reader_name (rp->reader), ev->line, ev->cpu, rp->map.given,
                     rp->map.given == 1 ? "" : "s");
      return FALSE;
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

  if (is_free)
    {
      switch (res.free_class)
        {
        case SIM_FREE_NULL:
          rp->out->skipped_null_frees++;
          return TRUE;
        case SIM_FREE_UNKNOWN:
          if (rp->opt->warm && g_hash_table_contains (rp->addr_of, GSIZE_TO_POINTER (ev->ptr)))
            {
              rp->out->warm_frees++;
              return replay_free (rp, ev, cpu, ev->ptr, 0, FREE_TRACED, error);
            }
          if (sim_trace_internal_free_site (sim_trace_reader_string (rp->reader,
                                                                     ev->call_site_id)))
            rp->out->skipped_internal_frees++;
          else
            rp->out->skipped_unknown_frees++;
          return TRUE;
        default:
          if (g_hash_table_remove (rp->refused, GSIZE_TO_POINTER (ev->ptr)))
            {
              /* kfree of what kmalloc refused: the caller got NULL, so
               * this frees no object of the model */
              rp->out->skipped_refused_frees++;
              return TRUE;
            }
          {
            /* A kfree_rcu of slabsim's own emitted trace (emit.h). */
            const char *site = sim_trace_reader_string (rp->reader, ev->call_site_id);
            gboolean rcu = ev->kind == SIM_TRACE_KFREE && site
                           && strcmp (site, SIM_EMIT_KFREE_RCU_SITE) == 0;
            return replay_free (rp, ev, cpu, ev->ptr, res.freed.bytes_alloc,
                                rcu ? FREE_TRACED_RCU : FREE_TRACED, error);
          }
        }
    }

  if (res.implicit && g_hash_table_remove (rp->refused, GSIZE_TO_POINTER (res.implicit_old.ptr)))
    rp->out->skipped_refused_frees++;
  else if (res.implicit
           && !replay_free (rp, ev, cpu, res.implicit_old.ptr, res.implicit_old.bytes_alloc,
                            FREE_IMPLICIT, error))
    return FALSE;
  if (ev->ptr == 0)
    {
      rp->out->skipped_failed_allocs++;
      return TRUE;
    }
  if (sim_trace_internal_alloc_site (sim_trace_reader_string (rp->reader, ev->call_site_id)))
    {
      g_hash_table_add (rp->internal, GSIZE_TO_POINTER (ev->ptr));
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
      g_hash_table_add (rp->refused, GSIZE_TO_POINTER (ev->ptr));
      return TRUE;
    }

  gint node = ev->node >= 0 ? ev->node : SIM_NUMA_NO_NODE;
  guint32 gfp = model_gfp (ev->gfp);
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
                   sim_trace_reader_name (rp->reader), ev->line, rp->ops->name, ev->bytes_req);
      return FALSE;
    }
  touch_object (rp, &op, addr, ev->bytes_req, SIM_ACC_WRITE);
  op_finish (rp, &op, &rp->out->alloc_cycles);
  g_hash_table_insert (rp->addr_of, GSIZE_TO_POINTER (ev->ptr), GSIZE_TO_POINTER (addr));
  g_hash_table_insert (rp->line_of, GSIZE_TO_POINTER (ev->ptr), GSIZE_TO_POINTER (ev->line));
  rp->out->allocs_replayed++;
  guint64 vaddr = SIM_DIRECT_MAP_BASE + addr;
  if (rp->opt->modelled)
    {
      char nb[64];
      sim_decisions_alloc (rp->opt->modelled, cpu,
                           sim_decisions_cache_name (rp->reader, ev, nb, sizeof nb), vaddr);
    }
  if (rp->opt->emit)
    {
      /* The allocation's page traffic, then its kmalloc line. */
      char nb[64];
      flush_page_lines (rp);
      sim_trace_emit_slab (rp->opt->emit, rp->reader, ev, rp->map.to_trace[cpu],
                           id == SIM_CACHE_NONE ? NULL : cache_name_of (rp, ev, nb, sizeof nb),
                           vaddr, FALSE);
    }
  return TRUE;
}

/* --warm unknown-frees: allocate the objects the trace frees but never
 * allocated before the replay starts (layout and why: sim/run/warm.h).
 * Their operations run on the CPU that will free them and advance its
 * clock (they happened before the trace, but the locks they took must see
 * one timeline); they are not in the cycle histograms, and the model's
 * decisions and emitted trace start after them. */
static gboolean
place_warm (Replay *rp, const char *trace, GError **error)
{
  SimWarmSet ws;
  if (!sim_warm_collect (trace, rp->opt->lenient, &ws, error))
    return FALSE;
  gboolean ok = TRUE;
  rp->warming = TRUE;
  rp->out->warm_unplaced = ws.unplaced;
  for (guint i = 0; i < ws.objects->len && ok; i++)
    {
      const SimWarmObject *o = &g_array_index (ws.objects, SimWarmObject, i);
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
                       "%s: --warm: simulated memory exhausted placing %u objects", trace,
                       ws.objects->len);
          ok = FALSE;
          break;
        }
      sim_engine_cpu_advance (rp->eng, cpu, sim_op_cycles (&op));
      g_hash_table_insert (rp->addr_of, GSIZE_TO_POINTER (o->ptr), GSIZE_TO_POINTER (addr));
      rp->out->warm_objects++;
    }
  rp->warming = FALSE;
  sim_warm_set_clear (&ws);
  return ok;
}

static gboolean
run_check (Replay *rp, GError **error)
{
  if (!rp->ops->check (rp->model, error))
    return FALSE;
  return sim_page_check (rp->pages, error);
}

gboolean
sim_replay_run (const char *trace, const char *spec_text, const SimReplayOptions *opt,
                SimReplayResult *out, GError **error)
{
  memset (out, 0, sizeof *out);
  hist_init (&out->alloc_cycles);
  hist_init (&out->free_cycles);
  sim_alloc_report_init (&out->alloc);

  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (spec_text, error);
  if (spec == NULL)
    return FALSE;
  const SimAllocOps *ops = sim_alloc_model_find (spec->name, error);
  if (ops == NULL)
    return FALSE;

  Replay rp = { .opt = opt, .ops = ops, .out = out };
  gboolean ok = FALSE;
  const SimMachine *m = opt->machine;
  if (!sim_cpu_map_init (&rp.map, m, opt->cpu_map, error))
    goto done;
  out->cpu_map = g_memdup2 (rp.map.to_machine, m->n_cpus * sizeof (guint));
  out->cpu_map_given = rp.map.given;
  out->cpu_map_compact = rp.map.compact;
  out->trace_cpu_used = g_new0 (guint8, m->n_cpus);
  out->n_cpus = m->n_cpus;
  rp.mem = sim_memsys_new (m, error);
  if (rp.mem == NULL)
    goto done;
  rp.eng = sim_engine_new (m->n_cpus);
  /* Grace periods pass on the trace's clock (sim/core/rcu.h). */
  rp.rcu = sim_rcu_new (m->rcu_grace_period_us * 1000);
  SimAllocEnv env = { .machine = m, .mem = rp.mem, .eng = rp.eng, .rcu = rp.rcu,
                      .n_cpus = m->n_cpus, .seed = m->seed };
  SimPageParams pp = { .era = sim_page_era_for_kernel (spec->kernel ? spec->kernel : ops->kernels[0]),
                       .managed_bytes = 0 };
  rp.pages = sim_page_alloc_new (m, rp.mem, &pp, error);
  if (rp.pages == NULL)
    goto done;
  env.pages = rp.pages;
  rp.model = ops->create (spec, &env, error);
  if (rp.model == NULL)
    goto done;
  rp.env = env;
  out->allocator = g_strdup (ops->name);
  out->kernel = g_strdup (ops->kernel (rp.model));
  out->params = ops->params (rp.model);

  rp.reader = sim_trace_reader_open (trace, error);
  if (rp.reader == NULL)
    goto done;
  sim_trace_reader_set_lenient (rp.reader, opt->lenient);
  rp.acct = sim_trace_account_new ();
  rp.addr_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  rp.cache_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  rp.internal = g_hash_table_new (g_direct_hash, g_direct_equal);
  rp.refused = g_hash_table_new (g_direct_hash, g_direct_equal);
  rp.line_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  rp.page_lines = g_string_new (NULL);
  if (!sim_untraced_collect (trace, opt->lenient, m->rcu_grace_period_us * 1000, &rp.untraced,
                             error))
    goto done;
  out->untraced_by_reuse = rp.untraced.by_reuse;
  out->untraced_by_page_free = rp.untraced.by_page_free;
  out->untraced_by_mm_destroy = rp.untraced.by_mm_destroy;
  out->untraced_reused_after = rp.untraced.reused_after;
  out->untraced_contradicted = rp.untraced.contradicted;
  if (opt->modelled || opt->emit)
    sim_page_set_observer (rp.pages, on_page_event, &rp);
  if (opt->warm && !place_warm (&rp, trace, error))
    goto done;

  SimTraceEvent ev;
  GError *local = NULL;
  guint64 n_read = 0;
  while (sim_trace_reader_next (rp.reader, &ev, &local))
    {
      if (opt->progress && (++n_read & 0xffff) == 0)
        opt->progress (out->events, opt->progress_data);
      if (!apply_untraced (&rp, ev.ts_ns, FALSE, &local) || !replay_event (&rp, &ev, &local))
        break;
      if (opt->check && opt->check_every && out->events % opt->check_every == 0
          && !run_check (&rp, &local))
        {
          g_prefix_error (&local, "%s:%" G_GUINT64_FORMAT ": invariant check: ",
                          sim_trace_reader_name (rp.reader), ev.line);
          break;
        }
    }
  if (local == NULL)
    apply_untraced (&rp, 0, TRUE, &local);
  if (local)
    {
      g_propagate_error (error, local);
      goto done;
    }
  /* Callbacks still waiting at the end: the grace periods the recording
   * stopped in the middle of. */
  out->rcu_callbacks = sim_rcu_invoked (rp.rcu);
  out->rcu_pending = sim_rcu_pending (rp.rcu);
  if (opt->check && !run_check (&rp, error))
    {
      g_prefix_error (error, "%s: invariant check at the end: ", trace);
      goto done;
    }

  ops->report (rp.model, &out->alloc);
  sim_memsys_total_stats (rp.mem, &out->mem);
  out->n_cpus = m->n_cpus;
  if (opt->per_cpu)
    {
      out->mem_per_cpu = g_new (SimCpuMemStats, m->n_cpus);
      for (guint c = 0; c < m->n_cpus; c++)
        out->mem_per_cpu[c] = *sim_memsys_cpu_stats (rp.mem, c);
    }
  out->pages = *sim_page_stats (rp.pages);
  out->sim_cycles = sim_engine_max_clock (rp.eng);
  ok = TRUE;

done:
  sim_cpu_map_clear (&rp.map);
  if (rp.refused)
    g_hash_table_destroy (rp.refused);
  if (rp.cache_of)
    g_hash_table_destroy (rp.cache_of);
  if (rp.internal)
    g_hash_table_destroy (rp.internal);
  if (rp.page_lines)
    g_string_free (rp.page_lines, TRUE);
  if (rp.addr_of)
    g_hash_table_destroy (rp.addr_of);
  if (rp.acct)
    sim_trace_account_free (rp.acct);
  if (rp.reader)
    sim_trace_reader_free (rp.reader);
  if (rp.model)
    ops->destroy (rp.model);
  /* After the model: pending callbacks are dropped, never run. */
  sim_rcu_free (rp.rcu);
  sim_untraced_set_clear (&rp.untraced);
  if (rp.line_of)
    g_hash_table_destroy (rp.line_of);
  if (rp.pages)
    sim_page_alloc_free (rp.pages);
  if (rp.eng)
    sim_engine_free (rp.eng);
  if (rp.mem)
    sim_memsys_free (rp.mem);
  return ok;
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
