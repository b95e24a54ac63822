/* gen-slab-test.c - the kmem events of Christoph Lameter's slab_test module
 * (the loops "slabsim slab-test" runs, sim/run/slab-test.h), as a trace.
 *
 * The workload: `insmod slab_test.ko` on CPU 0 kmallocs its array v[] of
 * L (--loops, the module's TEST_COUNT, default 10000) pointers, then runs
 * test 1 (for each size 8..16384: L kmallocs, then L kfrees) and test 2
 * (for each size: L kmalloc+kfree pairs), and kfrees v[].  Then the
 * concurrent section: on every CPU a thread "test<cpu>" kzallocs its own
 * v[], and for each size 8..4096 all threads do L kmallocs, wait for each
 * other, then L kfrees ("Kmalloc N*alloc N*free"); then for each size L
 * kmalloc+kfree pairs ("Kmalloc N*(alloc free)"); a thread kfrees its v[]
 * at the end of every test and the next test starts when all have.
 *
 * Call sites are the module's functions.  Left out: the module's "Remote
 * free" and "1 alloc N free" tests (slabsim slab-test does not run them
 * either), kthread creation and exit (task_struct, stacks: the module
 * starts fresh threads for every test, here one thread per CPU serves all
 * of them), module loading itself.  So the counts are exact:
 * 1 + 12*L + 12*L + (20 * (1 + L)) per CPU allocations, as many frees.
 */
#include "traces/gen/gen-common.h"

#define N_SIZES       12         /* 8 .. PAGE_SIZE << 2 */
#define N_SIZES_CONC  10         /* 8 .. PAGE_SIZE */
#define N_CONC_TESTS  (2 * N_SIZES_CONC)

typedef struct {
  guint    count;
  guint    ncpus;
  gboolean single_done;          /* insmod finished tests 1 and 2 */
  guint    test;                 /* the concurrent test running */
  guint    phase1_done;          /* threads past phase 1 of it */
  guint    test_done;            /* threads finished with it */
} StShared;

typedef enum { S_ARRAY, S_ALLOC, S_FREE, S_PAIR, S_ARRAY_FREE, S_WAIT, S_END } StState;

typedef struct {
  StShared *sh;
  StState   st;
  guint     size_idx;
  guint     i;
  guint     test;                /* concurrent: the test this thread is in */
  guint64   v;                   /* v[] */
  guint64  *obj;                 /* the objects v[] holds */
} StTask;

static const char *
gfp (SimGen *g)
{
  return sim_gen_gfp (g, "GFP_KERNEL");
}

static void
task_free (gpointer p)
{
  StTask *s = p;
  g_free (s->obj);
  g_free (s);
}

/* insmod: slab_test_init's single-thread part. */
static SimGenStep
insmod_step (SimGen *g, SimGenTask *t)
{
  StTask *s = t->data;
  guint n = s->sh->count;
  guint size = 8u << s->size_idx;
  switch (s->st)
    {
    case S_ARRAY:
      s->v = sim_gen_kmalloc (g, t, (gsize) n * 8, "slab_test_init+0x2a/0x3c0", gfp (g),
                              FALSE, FALSE);
      s->st = S_ALLOC;
      break;
    case S_ALLOC:                /* 1. Kmalloc: Repeatedly allocate then free test */
      s->obj[s->i] = sim_gen_kmalloc (g, t, size, "slab_test_init+0x7e/0x3c0", gfp (g),
                                      FALSE, FALSE);
      if (++s->i == n)
        s->i = 0, s->st = S_FREE;
      break;
    case S_FREE:
      sim_gen_kfree (g, t, s->obj[s->i], "slab_test_init+0x10b/0x3c0");
      if (++s->i == n)
        {
          s->i = 0;
          if (++s->size_idx == N_SIZES)
            s->size_idx = 0, s->st = S_PAIR;
          else
            s->st = S_ALLOC;
        }
      break;
    case S_PAIR:                 /* 2. Kmalloc: alloc/free test */
      {
        guint64 p = sim_gen_kmalloc (g, t, size, "slab_test_init+0x1c3/0x3c0", gfp (g),
                                     FALSE, FALSE);
        sim_gen_kfree (g, t, p, "slab_test_init+0x1cb/0x3c0");
        if (++s->i == n)
          {
            s->i = 0;
            if (++s->size_idx == N_SIZES)
              s->st = S_ARRAY_FREE;
          }
      }
      break;
    case S_ARRAY_FREE:
      sim_gen_kfree (g, t, s->v, "slab_test_init+0x25d/0x3c0");
      s->sh->single_done = TRUE;
      return SIM_GEN_DONE;
    default:
      return SIM_GEN_DONE;
    }
  return SIM_GEN_RAN;
}

/* test<cpu>: test_func running the concurrent tests' p1 and p2. */
static SimGenStep
thread_step (SimGen *g, SimGenTask *t)
{
  StTask *s = t->data;
  StShared *sh = s->sh;
  guint n = sh->count;
  gboolean pair = s->test >= N_SIZES_CONC;
  guint size = 8u << (s->test % N_SIZES_CONC);
  switch (s->st)
    {
    case S_WAIT:                 /* the next test starts when every thread is done */
      if (!sh->single_done || sh->test != s->test)
        return SIM_GEN_BLOCKED;
      s->st = S_ARRAY;
      return thread_step (g, t);
    case S_ARRAY:
      s->v = sim_gen_kmalloc (g, t, (gsize) n * 8, "test_func+0x4e/0x120",
                              sim_gen_gfp (g, "GFP_KERNEL|__GFP_ZERO"), FALSE, FALSE);
      s->i = 0;
      s->st = pair ? S_PAIR : S_ALLOC;
      break;
    case S_ALLOC:                /* kmalloc_alloc_then_free_test_p1 */
      s->obj[s->i] = sim_gen_kmalloc (g, t, size, "kmalloc_alloc_then_free_test_p1+0x2b/0x60",
                                      gfp (g), FALSE, FALSE);
      if (++s->i == n)
        {
          s->i = 0;
          s->st = S_FREE;
          sh->phase1_done++;
        }
      break;
    case S_FREE:                 /* kmalloc_alloc_then_free_test_p2, after the barrier */
      if (sh->phase1_done < sh->ncpus)
        return SIM_GEN_BLOCKED;
      sim_gen_kfree (g, t, s->obj[s->i], "kmalloc_alloc_then_free_test_p2+0x2a/0x50");
      if (++s->i == n)
        s->st = S_ARRAY_FREE;
      break;
    case S_PAIR:                 /* kmalloc_alloc_free_test_p1 */
      {
        guint64 p = sim_gen_kmalloc (g, t, size, "kmalloc_alloc_free_test_p1+0x27/0x50",
                                     gfp (g), FALSE, FALSE);
        sim_gen_kfree (g, t, p, "kmalloc_alloc_free_test_p1+0x32/0x50");
        if (++s->i == n)
          {
            s->st = S_ARRAY_FREE;
            sh->phase1_done++;
          }
      }
      break;
    case S_ARRAY_FREE:
      if (sh->phase1_done < sh->ncpus)   /* phase 2 of a pair test: nothing to do */
        return SIM_GEN_BLOCKED;
      sim_gen_kfree (g, t, s->v, "test_func+0xcd/0x120");
      s->st = S_END;
      if (++sh->test_done == sh->ncpus)
        {
          sh->test_done = 0;
          sh->phase1_done = 0;
          sh->test++;
        }
      break;
    case S_END:
      if (sh->test == s->test)
        return SIM_GEN_BLOCKED;
      if (++s->test == N_CONC_TESTS)
        return SIM_GEN_DONE;
      s->st = S_WAIT;
      return thread_step (g, t);
    default:
      return SIM_GEN_DONE;
    }
  return SIM_GEN_RAN;
}

static gboolean
setup (SimGen *g, const SimGenOptions *o, GError **error)
{
  (void) error;
  StShared *sh = g_new0 (StShared, 1);
  sh->count = o->loops;
  sh->ncpus = sim_gen_ncpus (g);
  sim_gen_own (g, sh, g_free);
  StTask *ins = g_new0 (StTask, 1);
  ins->sh = sh;
  ins->st = S_ARRAY;
  ins->obj = g_new0 (guint64, o->loops);
  SimGenTask *t = sim_gen_spawn (g, "insmod", 0, insmod_step, ins);
  t->destroy = task_free;
  for (guint c = 0; c < sh->ncpus; c++)
    {
      StTask *s = g_new0 (StTask, 1);
      s->sh = sh;
      s->st = S_WAIT;
      s->obj = g_new0 (guint64, o->loops);
      g_autofree char *comm = g_strdup_printf ("test%u", c);
      SimGenTask *th = sim_gen_spawn (g, comm, c, thread_step, s);
      th->destroy = task_free;
    }
  return TRUE;
}

const SimGenWorkload sim_gen_slab_test = {
  "slab-test", "the slab_test module: tests 1 and 2 on CPU 0, then the concurrent tests on every CPU",
  0, 10000, 0, setup
};
