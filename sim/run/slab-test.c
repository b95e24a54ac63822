/* slab-test.c - the slab_test module's loops driven through an allocator
 * model; see slab-test.h.
 *
 * What the module does and how each step is simulated:
 *  - Every loop iteration is one allocator call, run as a SimOp on its CPU
 *    at that CPU's clock; the module's own accesses in the iteration
 *    (*p = 22 after kmalloc, *p = 23 before kfree, the v[i] slot written
 *    after kmalloc and read before kfree) go to the cache model in the same
 *    SimOp.  The loop counter, compare and branch are not charged: two or
 *    three instructions a superscalar core overlaps with the call.
 *  - get_cycles() before and after a loop reads the CPU's clock, so a loop's
 *    time also holds any periodic work the model ran on that CPU meanwhile
 *    (SLAB's cache_reap), as on the real machine.
 *  - The array v[] is kmalloc'd through the model before the timed loops
 *    (test 1, 2) and kzalloc'd by each CPU's thread (concurrent tests), as
 *    the module does; its allocation is outside the timed window.
 *  - The concurrent tests: the module starts one kthread per online CPU
 *    and releases them together (complete_all); phase 2 starts when every
 *    thread has finished phase 1.  Here every CPU's next iteration is an
 *    engine event at that CPU's clock, so the CPUs' calls interleave in
 *    simulated time order (ties by CPU number) and contend for locks and
 *    cache lines as they would; each barrier moves every clock to the
 *    latest one.  Thread creation, the completions and kthread_stop are not
 *    simulated; they are outside the timed windows.
 *  - --test kmem_cache (not the module's, not in the default set): the
 *    loop of Jesper Brouer's time_bench_kmem_cache1, one kmem_cache_alloc
 *    and kmem_cache_free of a 256-byte object of its own cache per
 *    iteration, the "fastpath" figure of the calibration tables S04, S14,
 *    S15, S17 and S19 (docs/models/timing.md).
 *  - Left out: the module's "Remote free test" and "1 alloc N free test",
 *    which the published tables do not report.
 */
#include "sim/run/slab-test.h"
#include "sim/core/errors.h"
#include "models/alloc/alloc-spec.h"
#include "models/page/page-alloc.h"

#include <string.h>

guint64
sim_slab_test_op_cycles (const SimOp *op)
{
  return sim_op_cycles (op);
}

guint64
sim_slab_test_tsc (const SimMachine *m, guint64 core_cycles)
{
  double tsc = m->tsc_ghz > 0 ? m->tsc_ghz : m->frequency_ghz;
  if (tsc == m->frequency_ghz)
    return core_cycles;
  return (guint64) ((double) core_cycles * tsc / m->frequency_ghz);
}

const char *
sim_slab_test_row_name (SimSlabTestRowKind kind)
{
  switch (kind)
    {
    case SIM_SLAB_TEST_ROW_REPEAT:          return "repeat";
    case SIM_SLAB_TEST_ROW_PAIR:            return "pair";
    case SIM_SLAB_TEST_ROW_CONCURRENT:      return "concurrent";
    case SIM_SLAB_TEST_ROW_CONCURRENT_PAIR: return "concurrent-pair";
    case SIM_SLAB_TEST_ROW_CACHE_PAIR:      return "kmem-cache";
    }
  return "?";
}

gboolean
sim_slab_test_parse_tests (const char *list, guint *mask, GError **error)
{
  static const struct { const char *name; guint bit; } names[] = {
    { "repeat", SIM_SLAB_TEST_REPEAT },
    { "pair", SIM_SLAB_TEST_PAIR },
    { "concurrent", SIM_SLAB_TEST_CONCURRENT },
    { "kmem_cache", SIM_SLAB_TEST_CACHE },
  };
  g_auto (GStrv) parts = g_strsplit (list, ",", -1);
  guint m = 0;
  for (guint i = 0; parts[i]; i++)
    {
      const char *p = g_strstrip (parts[i]);
      guint bit = 0;
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        if (strcmp (p, names[k].name) == 0)
          bit = names[k].bit;
      if (bit == 0)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "--test: unknown test \"%s\" (expected a comma-separated list of: "
                       "repeat, pair, concurrent, kmem_cache)", p);
          return FALSE;
        }
      m |= bit;
    }
  if (m == 0)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "--test: no test named (expected repeat, pair, concurrent or kmem_cache)");
      return FALSE;
    }
  *mask = m;
  return TRUE;
}

void
sim_slab_test_result_clear (SimSlabTestResult *r)
{
  g_free (r->allocator);
  g_free (r->kernel);
  g_free (r->params);
  g_free (r->machine);
  if (r->rows)
    {
      for (guint i = 0; i < r->rows->len; i++)
        {
          SimSlabTestRow *row = &g_array_index (r->rows, SimSlabTestRow, i);
          g_free (row->cpu_p1);
          g_free (row->cpu_p2);
        }
      g_array_free (r->rows, TRUE);
    }
  memset (r, 0, sizeof *r);
}

/* ------------------------------------------------------------------ */

/* What a loop iteration does. */
typedef enum {
  STEP_ALLOC_KEEP,      /* p = kmalloc(size); *p = x; v[i] = p; */
  STEP_FREE_KEPT,       /* p = v[i]; *p = x; kfree(p); */
  STEP_ALLOC_FREE,      /* p = kmalloc(size); [*p = x;] kfree(p); */
  STEP_CACHE_PAIR,      /* p = kmem_cache_alloc(c, GFP_ATOMIC); kmem_cache_free(c, p); */
} Step;

typedef struct World World;

/* One CPU's thread of the module. */
typedef struct {
  World   *w;
  guint    cpu;
  SimAddr  v;           /* simulated address of v[] */
  SimAddr *obj;         /* host copy of v[]: the objects' addresses */
  guint    i;           /* next iteration */
  gboolean active;
} Thread;

struct World {
  const SimSlabTestOptions *opt;
  const SimMachine *m;
  const SimAllocOps *ops;
  gpointer model;
  SimMemSys *mem;
  SimPageAlloc *pages;
  SimEngine *eng;
  Thread *thr;          /* [n_cpus] */
  /* The loop being run. */
  Step     step;
  guint32  size;
  gboolean touch;       /* the iteration writes the object (not test 2) */
  guint    remaining;   /* threads still in the loop */
  GError  *error;       /* the first failure; stops every loop */
  guint64  lock_wait;
  SimCacheId cache;     /* time_bench_kmem_cache1's cache */
};

static void
op_start (World *w, SimOp *op, guint cpu)
{
  sim_op_begin (op, w->mem, cpu, sim_engine_cpu_clock (w->eng, cpu));
}

static void
op_finish (World *w, SimOp *op)
{
  sim_engine_cpu_advance (w->eng, op->cpu, sim_slab_test_op_cycles (op));
  w->lock_wait += op->cost.lock_wait;
}

static gboolean
kmalloc_or_fail (World *w, SimOp *op, gsize size, SimAddr *out)
{
  *out = w->ops->kmalloc (w->model, op, size, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
  if (*out != 0)
    return TRUE;
  if (w->error == NULL)
    g_set_error (&w->error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_OUT_OF_MEMORY,
                 "slab-test: %s: kmalloc(%" G_GSIZE_FORMAT ") on CPU %u failed: simulated "
                 "memory exhausted (machine %s; try a smaller --count)",
                 w->ops->name, size, op->cpu, w->m->name);
  return FALSE;
}

static gboolean
kfree_or_fail (World *w, SimOp *op, SimAddr addr)
{
  if (w->ops->free (w->model, op, addr))
    return TRUE;
  if (w->error == NULL)
    g_set_error (&w->error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                 "slab-test: %s: kfree of %#" G_GINT64_MODIFIER "x that the model does not own",
                 w->ops->name, addr);
  return FALSE;
}

/* One iteration of the current loop on @t's CPU. */
static gboolean
iterate (World *w, Thread *t)
{
  SimOp op;
  SimAddr p;
  guint i = t->i;
  op_start (w, &op, t->cpu);
  switch (w->step)
    {
    case STEP_ALLOC_KEEP:
      if (!kmalloc_or_fail (w, &op, w->size, &p))
        return FALSE;
      sim_op_write (&op, p, 1, SIM_MEM_OBJECT);
      sim_op_write (&op, t->v + 8ull * i, 8, SIM_MEM_OTHER);
      t->obj[i] = p;
      op_finish (w, &op);
      break;
    case STEP_FREE_KEPT:
      sim_op_read (&op, t->v + 8ull * i, 8, SIM_MEM_OTHER);
      sim_op_write (&op, t->obj[i], 1, SIM_MEM_OBJECT);
      if (!kfree_or_fail (w, &op, t->obj[i]))
        return FALSE;
      op_finish (w, &op);
      break;
    case STEP_ALLOC_FREE:
      if (!kmalloc_or_fail (w, &op, w->size, &p))
        return FALSE;
      if (w->touch)
        sim_op_write (&op, p, 1, SIM_MEM_OBJECT);
      op_finish (w, &op);
      op_start (w, &op, t->cpu);
      if (!kfree_or_fail (w, &op, p))
        return FALSE;
      op_finish (w, &op);
      break;
    case STEP_CACHE_PAIR:
      p = w->ops->cache_alloc (w->model, &op, w->cache, SIM_NUMA_NO_NODE, 0);
      if (p == 0)
        {
          if (w->error == NULL)
            g_set_error (&w->error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_OUT_OF_MEMORY,
                         "slab-test: %s: kmem_cache_alloc on CPU %u failed: simulated memory "
                         "exhausted (machine %s)", w->ops->name, op.cpu, w->m->name);
          return FALSE;
        }
      op_finish (w, &op);
      op_start (w, &op, t->cpu);
      if (!w->ops->cache_free (w->model, &op, p))
        {
          if (w->error == NULL)
            g_set_error (&w->error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT,
                         "slab-test: %s: kmem_cache_free of %#" G_GINT64_MODIFIER "x that the "
                         "model does not own", w->ops->name, p);
          return FALSE;
        }
      op_finish (w, &op);
      break;
    }
  t->i++;
  return TRUE;
}

/* The engine event of a thread's next iteration. */
static void
on_iteration (SimEngine *eng, gpointer data, guint64 arg)
{
  (void) arg;
  Thread *t = data;
  World *w = t->w;
  if (w->error != NULL || !t->active)
    return;
  sim_engine_cpu_sync (eng, t->cpu, sim_engine_now (eng));
  if (!iterate (w, t) || t->i == w->opt->count)
    {
      t->active = FALSE;
      w->remaining--;
      return;
    }
  sim_engine_schedule (eng, sim_engine_cpu_clock (eng, t->cpu), t->cpu, on_iteration, t, 0);
}

/* Every clock moves to the latest one: a barrier (complete_all). */
static SimTime
barrier (World *w, guint n_cpus)
{
  SimTime t = 0;
  for (guint c = 0; c < n_cpus; c++)
    t = MAX (t, sim_engine_cpu_clock (w->eng, c));
  for (guint c = 0; c < n_cpus; c++)
    sim_engine_cpu_sync (w->eng, c, t);
  return t;
}

/* Run one loop on CPUs 0..n_threads-1, all starting together; per-CPU
 * loop times (core cycles) into @cycles. */
static gboolean
run_loop (World *w, guint n_threads, Step step, gboolean touch, guint64 *cycles,
          GError **error)
{
  w->step = step;
  w->touch = touch;
  w->remaining = n_threads;
  SimTime start = barrier (w, n_threads);
  for (guint c = 0; c < n_threads; c++)
    {
      Thread *t = &w->thr[c];
      t->i = 0;
      t->active = TRUE;
      sim_engine_schedule (w->eng, start, c, on_iteration, t, 0);
    }
  /* Periodic model work (cache_reap) keeps the queue non-empty forever:
   * step only until every thread is done. */
  while (w->remaining > 0 && w->error == NULL && sim_engine_step (w->eng))
    ;
  if (w->error)
    {
      g_propagate_error (error, w->error);
      w->error = NULL;
      return FALSE;
    }
  for (guint c = 0; c < n_threads; c++)
    cycles[c] = sim_engine_cpu_clock (w->eng, c) - start;
  return TRUE;
}

/* v = kmalloc(count * sizeof (void *)) on @t's CPU, untimed; kzalloc
 * also zeroes it. */
static gboolean
thread_alloc_v (World *w, Thread *t, gboolean zero, GError **error)
{
  SimOp op;
  sim_engine_run (w->eng, sim_engine_cpu_clock (w->eng, t->cpu));
  op_start (w, &op, t->cpu);
  gsize bytes = (gsize) w->opt->count * 8;
  if (!kmalloc_or_fail (w, &op, bytes, &t->v))
    {
      g_propagate_prefixed_error (error, w->error, "the array v[]: ");
      w->error = NULL;
      return FALSE;
    }
  if (zero)
    sim_op_touch_range (&op, t->v, bytes, SIM_ACC_WRITE, SIM_MEM_OTHER);
  op_finish (w, &op);
  return TRUE;
}

static gboolean
thread_free_v (World *w, Thread *t, GError **error)
{
  SimOp op;
  op_start (w, &op, t->cpu);
  gboolean ok = kfree_or_fail (w, &op, t->v);
  op_finish (w, &op);
  t->v = 0;
  if (!ok)
    {
      g_propagate_error (error, w->error);
      w->error = NULL;
    }
  return ok;
}

static SimSlabTestRow *
add_row (SimSlabTestResult *out, SimSlabTestRowKind kind, guint32 size)
{
  SimSlabTestRow row = { .kind = kind, .size = size };
  g_array_append_val (out->rows, row);
  return &g_array_index (out->rows, SimSlabTestRow, out->rows->len - 1);
}

static gboolean
single_thread_tests (World *w, SimSlabTestResult *out, GError **error)
{
  Thread *t = &w->thr[0];
  if (!thread_alloc_v (w, t, FALSE, error))
    return FALSE;
  guint64 c1, c2;
  if (w->opt->tests & SIM_SLAB_TEST_REPEAT)
    for (guint32 size = SIM_SLAB_TEST_MIN_SIZE; size <= SIM_SLAB_TEST_MAX_SIZE; size <<= 1)
      {
        w->size = size;
        if (!run_loop (w, 1, STEP_ALLOC_KEEP, TRUE, &c1, error)
            || !run_loop (w, 1, STEP_FREE_KEPT, TRUE, &c2, error))
          return FALSE;
        SimSlabTestRow *row = add_row (out, SIM_SLAB_TEST_ROW_REPEAT, size);
        row->p1 = sim_slab_test_tsc (w->m, c1);
        row->p2 = sim_slab_test_tsc (w->m, c2);
      }
  if (w->opt->tests & SIM_SLAB_TEST_PAIR)
    for (guint32 size = SIM_SLAB_TEST_MIN_SIZE; size <= SIM_SLAB_TEST_MAX_SIZE; size <<= 1)
      {
        w->size = size;
        if (!run_loop (w, 1, STEP_ALLOC_FREE, FALSE, &c1, error))
          return FALSE;
        SimSlabTestRow *row = add_row (out, SIM_SLAB_TEST_ROW_PAIR, size);
        row->p1 = sim_slab_test_tsc (w->m, c1);
      }
  if (w->opt->tests & SIM_SLAB_TEST_CACHE)
    {
      /* time_bench_kmem_cache1: kmem_cache_create("time_bench_kmem_cache1",
       * 256, 0, SLAB_HWCACHE_ALIGN, NULL) outside the timed loop (set-up
       * work, uncharged), then N alloc+free pairs. */
      SimOp op;
      sim_op_begin_uncharged (&op, w->mem, t->cpu, sim_engine_cpu_clock (w->eng, t->cpu));
      SimCacheSpec cs = { .name = "time_bench_kmem_cache1",
                          .object_size = SIM_SLAB_TEST_CACHE_SIZE,
                          .flags = SIM_SLAB_HWCACHE_ALIGN };
      w->cache = w->ops->cache_create (w->model, &op, &cs, error);
      if (w->cache == SIM_CACHE_NONE)
        return FALSE;
      w->size = SIM_SLAB_TEST_CACHE_SIZE;
      if (!run_loop (w, 1, STEP_CACHE_PAIR, FALSE, &c1, error))
        return FALSE;
      SimSlabTestRow *row = add_row (out, SIM_SLAB_TEST_ROW_CACHE_PAIR, SIM_SLAB_TEST_CACHE_SIZE);
      row->p1 = sim_slab_test_tsc (w->m, c1);
    }
  return thread_free_v (w, t, error);
}

/* do_concurrent_test(): every CPU's thread kzallocs its v[], phase 1,
 * barrier, phase 2 (if any), kfree(v). */
static gboolean
concurrent_test (World *w, SimSlabTestResult *out, SimSlabTestRowKind kind, guint32 size,
                 GError **error)
{
  guint n = w->m->n_cpus;
  for (guint c = 0; c < n; c++)
    if (!thread_alloc_v (w, &w->thr[c], TRUE, error))
      return FALSE;
  g_autofree guint64 *c1 = g_new0 (guint64, n);
  g_autofree guint64 *c2 = g_new0 (guint64, n);
  w->size = size;
  gboolean ok = kind == SIM_SLAB_TEST_ROW_CONCURRENT
    ? run_loop (w, n, STEP_ALLOC_KEEP, TRUE, c1, error)
      && run_loop (w, n, STEP_FREE_KEPT, TRUE, c2, error)
    : run_loop (w, n, STEP_ALLOC_FREE, TRUE, c1, error);
  if (!ok)
    return FALSE;
  SimSlabTestRow *row = add_row (out, kind, size);
  row->cpu_p1 = g_new0 (guint64, n);
  for (guint c = 0; c < n; c++)
    row->cpu_p1[c] = sim_slab_test_tsc (w->m, c1[c]);
  if (kind == SIM_SLAB_TEST_ROW_CONCURRENT)
    {
      row->cpu_p2 = g_new0 (guint64, n);
      for (guint c = 0; c < n; c++)
        row->cpu_p2[c] = sim_slab_test_tsc (w->m, c2[c]);
    }
  for (guint c = 0; c < n; c++)
    if (!thread_free_v (w, &w->thr[c], error))
      return FALSE;
  barrier (w, n);
  return TRUE;
}

gboolean
sim_slab_test_run (const char *spec_text, const SimSlabTestOptions *opt,
                   SimSlabTestResult *out, GError **error)
{
  memset (out, 0, sizeof *out);
  out->rows = g_array_new (FALSE, TRUE, sizeof (SimSlabTestRow));
  g_return_val_if_fail (opt->count > 0, FALSE);

  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (spec_text, error);
  if (spec == NULL)
    return FALSE;
  const SimAllocOps *ops = sim_alloc_model_find (spec->name, error);
  if (ops == NULL)
    return FALSE;

  const SimMachine *m = opt->machine;
  World w = { .opt = opt, .m = m, .ops = ops };
  gboolean ok = FALSE;
  w.mem = sim_memsys_new (m, error);
  if (w.mem == NULL)
    goto done;
  w.eng = sim_engine_new (m->n_cpus);
  SimPageParams pp = { .era = sim_page_era_for_kernel (spec->kernel ? spec->kernel
                                                                    : ops->kernels[0]) };
  w.pages = sim_page_alloc_new (m, w.mem, &pp, error);
  if (w.pages == NULL)
    goto done;
  SimAllocEnv env = { .machine = m, .mem = w.mem, .pages = w.pages, .eng = w.eng,
                      .n_cpus = m->n_cpus, .seed = m->seed };
  w.model = ops->create (spec, &env, error);
  if (w.model == NULL)
    goto done;
  out->allocator = g_strdup (ops->name);
  out->kernel = g_strdup (ops->kernel (w.model));
  out->params = ops->params (w.model);
  out->machine = g_strdup (m->name);
  out->count = opt->count;
  out->n_cpus = m->n_cpus;
  out->frequency_ghz = m->frequency_ghz;
  out->tsc_ghz = m->tsc_ghz > 0 ? m->tsc_ghz : m->frequency_ghz;
  out->tests = opt->tests;

  w.thr = g_new0 (Thread, m->n_cpus);
  for (guint c = 0; c < m->n_cpus; c++)
    {
      w.thr[c].w = &w;
      w.thr[c].cpu = c;
      w.thr[c].obj = g_new0 (SimAddr, opt->count);
    }

  if ((opt->tests & (SIM_SLAB_TEST_REPEAT | SIM_SLAB_TEST_PAIR | SIM_SLAB_TEST_CACHE))
      && !single_thread_tests (&w, out, error))
    goto done;
  if (opt->tests & SIM_SLAB_TEST_CONCURRENT)
    {
      for (guint32 size = SIM_SLAB_TEST_MIN_SIZE; size <= SIM_SLAB_TEST_MAX_SIZE_CONC; size <<= 1)
        if (!concurrent_test (&w, out, SIM_SLAB_TEST_ROW_CONCURRENT, size, error))
          goto done;
      for (guint32 size = SIM_SLAB_TEST_MIN_SIZE; size <= SIM_SLAB_TEST_MAX_SIZE_CONC; size <<= 1)
        if (!concurrent_test (&w, out, SIM_SLAB_TEST_ROW_CONCURRENT_PAIR, size, error))
          goto done;
    }
  if (!ops->check (w.model, error) || !sim_page_check (w.pages, error))
    {
      g_prefix_error (error, "slab-test: invariant check at the end: ");
      goto done;
    }
  out->lock_wait_cycles = w.lock_wait;
  ok = TRUE;

done:
  if (w.thr)
    {
      for (guint c = 0; c < m->n_cpus; c++)
        g_free (w.thr[c].obj);
      g_free (w.thr);
    }
  if (w.model)
    ops->destroy (w.model);
  if (w.pages)
    sim_page_alloc_free (w.pages);
  if (w.eng)
    sim_engine_free (w.eng);
  if (w.mem)
    sim_memsys_free (w.mem);
  return ok;
}
