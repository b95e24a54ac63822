/* untraced-ref.c - the untraced-free inference as it was before issue 12
 * bounded its memory (sim/run/untraced.c at 1d6172f: every timestamp, a
 * record of every allocation, every page's allocations kept for the whole
 * trace), kept here word for word except for its names so that
 * test-untraced-bound can check that the bounded pass gives exactly its
 * answers.  Not built into slabsim. */
#include "tests/run/untraced-ref.h"
#include "sim/run/kernel-caches.h"
#include "traces/stream.h"
#include "traces/internal.h"
#include "traces/decisions.h"
#include "sim/core/idmap.h"

#include <string.h>

#define DIRECT_MAP_END G_GUINT64_CONSTANT (0xffffc88000000000)   /* 64 TiB */
#define MAX_BLOCK_ORDER 10                                        /* MAX_PAGE_ORDER */

/* An address space whose maple tree the trace shows being built and torn
 * down: the lifetimes of the nodes allocated for it. */
typedef struct {
  GArray  *lives;            /* guint indexes into Collect.lives */
  gboolean lazy;             /* made up for a task first seen mid-life */
} Mm;

typedef struct {
  guint64 ptr;
  guint64 line;
  guint64 index;             /* ordinal of its allocation event */
  guint64 ts;
  guint   cpu;
  gboolean rcu;              /* an mm maple tree node: kfree_rcu while its mm lives */
  gboolean live;
  Mm      *mm;
} Life;

/* What a task is doing with address spaces. */
typedef struct {
  Mm *cur;                   /* the mm it runs in */
  Mm *next;                  /* exec: mm_alloc'd, not yet switched to */
  Mm *fork;                  /* fork: the child's mm being duplicated */
} Task;

typedef struct {
  GArray     *lives;         /* Life */
  SimIdMap   *live_of;       /* ptr -> index into lives (SimIdPair) */
  SimIdMap   *by_page;       /* pfn -> GArray of guint (indexes into lives) */
  GHashTable *rcu_cache;     /* interned cache id -> 1 (mm tree nodes) or 2 (not) */
  GHashTable *tasks;         /* pid -> Task */
  SimIdMap   *ended;         /* ptrs whose lifetime a page free or tree end closed (a set) */
  GPtrArray  *mms;           /* Mm *, owned */
  guint64     gp;
  guint64     index;         /* ordinal of the event being read */
  GArray     *ts;            /* guint64 timestamp of every event, by ordinal */
  SimUntracedSet *out;
} Collect;

static gboolean
in_direct_map (guint64 ptr)
{
  return ptr >= SIM_DIRECT_MAP_BASE && ptr < DIRECT_MAP_END;
}

static gboolean
cache_is_rcu (Collect *c, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  if (sim_trace_kind_is_kmalloc (ev->kind) || ev->cache_id == 0)
    return FALSE;
  gpointer v = g_hash_table_lookup (c->rcu_cache, GUINT_TO_POINTER (ev->cache_id));
  if (v == NULL)
    {
      const SimKernelCache *kc = sim_kernel_cache_lookup (sim_trace_strings_get (r, ev->cache_id));
      v = GUINT_TO_POINTER (kc && kc->untraced_free == SIM_KC_UNTRACED_MAPLE_TREE ? 1 : 2);
      g_hash_table_insert (c->rcu_cache, GUINT_TO_POINTER (ev->cache_id), v);
    }
  return GPOINTER_TO_UINT (v) == 1;
}

/* The lifetime @idx ended with no free event; the evidence is @ev. */
static void
reveal (Collect *c, guint idx, const SimTraceEvent *ev, SimUntracedEvidence why)
{
  Life *l = &g_array_index (c->lives, Life, idx);
  l->live = FALSE;
  sim_idmap_remove (c->live_of, l->ptr, NULL);
  if (why == SIM_UNTRACED_BY_REUSE)
    c->out->by_reuse++;
  else if (why == SIM_UNTRACED_BY_PAGE_FREE)
    c->out->by_page_free++;
  else
    c->out->by_mm_destroy++;
  if (why != SIM_UNTRACED_BY_REUSE)
    sim_idmap_insert (c->ended, l->ptr, NULL);
  SimUntracedFree f = { .ptr = l->ptr, .alloc_line = l->line, .evidence = why };
  if (why == SIM_UNTRACED_BY_MM_DESTROY)
    {
      /* mt_destroy_walk -> mt_free_bulk: kmem_cache_free_bulk, at once,
       * on the CPU tearing the tree down. */
      f.kind = SIM_UNTRACED_FREE;
      f.cpu = ev->cpu >= 0 ? (guint) ev->cpu : 0;
      f.ts_ns = ev->ts_ns;
    }
  else if (l->rcu)
    {
      f.kind = SIM_UNTRACED_KFREE_RCU;
      f.cpu = l->cpu;
      f.ts_ns = ev->ts_ns >= l->ts + c->gp ? ev->ts_ns - c->gp : l->ts;
    }
  else if (why == SIM_UNTRACED_BY_PAGE_FREE)
    {
      f.kind = SIM_UNTRACED_FREE;
      f.cpu = ev->cpu >= 0 ? (guint) ev->cpu : 0;
      f.ts_ns = ev->ts_ns;
    }
  else
    return;                /* the replay's implicit free handles it */
  /* Where in the stream: before the first event later than its time
   * (timestamps are in order in a trace; if not, the bounds still keep it
   * inside its own lifetime), after its allocation, before the evidence. */
  guint64 lo = l->index + 1, hi = c->index;
  const guint64 *ts = (const guint64 *) (gpointer) c->ts->data;
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (ts[mid] > f.ts_ns)
        hi = mid;
      else
        lo = mid + 1;
    }
  f.before_index = lo;
  g_array_append_val (c->out->frees, f);
}

static void
mm_free (gpointer p)
{
  Mm *mm = p;
  g_array_unref (mm->lives);
  g_free (mm);
}

static Mm *
mm_new (Collect *c, gboolean lazy)
{
  Mm *mm = g_new0 (Mm, 1);
  mm->lives = g_array_new (FALSE, FALSE, sizeof (guint));
  mm->lazy = lazy;
  g_ptr_array_add (c->mms, mm);
  return mm;
}

static Task *
task_of (Collect *c, gint32 pid)
{
  Task *t = g_hash_table_lookup (c->tasks, GINT_TO_POINTER (pid));
  if (t == NULL)
    {
      t = g_new0 (Task, 1);
      g_hash_table_insert (c->tasks, GINT_TO_POINTER (pid), t);
    }
  return t;
}

/* The tree of @mm is gone: every node of it still live was freed. */
static void
mm_destroy (Collect *c, Mm *mm, const SimTraceEvent *ev)
{
  for (guint i = 0; i < mm->lives->len; i++)
    {
      guint idx = g_array_index (mm->lives, guint, i);
      Life *l = &g_array_index (c->lives, Life, idx);
      /* The root itself is the traced kfree @ev. */
      if (l->live && l->mm == mm && l->ptr != ev->ptr)
        reveal (c, idx, ev, SIM_UNTRACED_BY_MM_DESTROY);
    }
  g_array_set_size (mm->lives, 0);
}

static gboolean
site_is (const SimTraceStrings *r, const SimTraceEvent *ev, const char *fn)
{
  const char *site = sim_trace_strings_get (r, ev->call_site_id);
  gsize n = strlen (fn);
  return site && strncmp (site, fn, n) == 0 && (site[n] == '+' || site[n] == '.'
                                                || site[n] == '\0');
}

/* The address-space evidence (pids and call sites of 6.18):
 *   mm_struct from copy_process (dup_mm)  a fork: the parent's maple nodes
 *                                          from __mt_dup / mas_dup_alloc are
 *                                          the child's tree;
 *   mm_struct from mm_alloc               an exec: the task's later nodes
 *                                          are the new mm's;
 *   kfree from __mt_destroy               exit_mmap's last step: the tree
 *                                          whose root that node was is gone
 *                                          (its other nodes went through
 *                                          mt_free_bulk, untraced), and so
 *                                          is the one the task was running
 *                                          in if the trace never saw it
 *                                          begin. */
static void
mm_event (Collect *c, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  if (ev->pid < 0)
    return;
  if (ev->kind == SIM_TRACE_CACHE_ALLOC || ev->kind == SIM_TRACE_CACHE_ALLOC_NODE)
    {
      const char *name = ev->cache_id ? sim_trace_strings_get (r, ev->cache_id) : NULL;
      if (name == NULL || strcmp (name, "mm_struct") != 0)
        return;
      Task *t = task_of (c, ev->pid);
      if (site_is (r, ev, "copy_process") || site_is (r, ev, "dup_mm"))
        t->fork = mm_new (c, FALSE);
      else if (site_is (r, ev, "mm_alloc"))
        t->next = mm_new (c, FALSE);
      return;
    }
  if (ev->kind != SIM_TRACE_KFREE || !site_is (r, ev, "__mt_destroy"))
    return;
  Task *t = task_of (c, ev->pid);
  const SimIdPair *v = sim_idmap_lookup (c->live_of, ev->ptr);
  Mm *root = v ? g_array_index (c->lives, Life, v->value).mm : NULL;
  if (root)
    mm_destroy (c, root, ev);
  if (t->cur && t->cur != root && (t->cur->lazy || root == NULL))
    mm_destroy (c, t->cur, ev);
  t->cur = t->next;
  t->next = NULL;
  t->fork = NULL;
}

/* Which mm a new maple node of @ev's task belongs to. */
static Mm *
mm_for_node (Collect *c, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  if (ev->pid < 0)
    return NULL;
  Task *t = task_of (c, ev->pid);
  if ((site_is (r, ev, "__mt_dup") || site_is (r, ev, "mas_dup_alloc")
       || site_is (r, ev, "mas_dup_build")) && t->fork)
    return t->fork;
  if (t->next)
    return t->next;
  if (t->cur == NULL)
    t->cur = mm_new (c, TRUE);
  return t->cur;
}

static int
by_place (gconstpointer a, gconstpointer b)
{
  const SimUntracedFree *x = a, *y = b;
  if (x->before_index != y->before_index)
    return x->before_index < y->before_index ? -1 : 1;
  if (x->ts_ns != y->ts_ns)
    return x->ts_ns < y->ts_ns ? -1 : 1;
  /* g_array_sort is not stable: the order must not depend on it */
  if (x->alloc_line != y->alloc_line)
    return x->alloc_line < y->alloc_line ? -1 : 1;
  return 0;
}

struct _RefUntracedCollector {
  Collect        c;
  SimUntracedSet set;
};

RefUntracedCollector *
ref_untraced_collector_new (guint64 grace_period_ns)
{
  RefUntracedCollector *u = g_new0 (RefUntracedCollector, 1);
  u->set.frees = g_array_new (FALSE, FALSE, sizeof (SimUntracedFree));
  u->c = (Collect) {
    .lives = g_array_new (FALSE, FALSE, sizeof (Life)),
    .live_of = sim_idmap_new (sizeof (SimIdPair), 0),
    .by_page = sim_idmap_new (sizeof (SimIdPair), 0),
    .rcu_cache = g_hash_table_new (g_direct_hash, g_direct_equal),
    .tasks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free),
    .ended = sim_idmap_new (8, 0),
    .ts = g_array_new (FALSE, FALSE, sizeof (guint64)),
    .mms = g_ptr_array_new_with_free_func (mm_free),
    .gp = grace_period_ns,
    .out = &u->set,
  };
  return u;
}

/* One event, the c->index'th of the trace. */
static void
collect_event (Collect *c, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  g_array_append_val (c->ts, ev->ts_ns);
  mm_event (c, r, ev);
  if (sim_trace_kind_is_slab_alloc (ev->kind))
    {
      if (ev->ptr == 0)
        return;
      if (sim_idmap_remove (c->ended, ev->ptr, NULL))
        c->out->reused_after++;
      const SimIdPair *v = sim_idmap_lookup (c->live_of, ev->ptr);
      if (v)
        reveal (c, (guint) v->value, ev, SIM_UNTRACED_BY_REUSE);
      if (sim_trace_internal_alloc_site (sim_trace_strings_get (r, ev->call_site_id)))
        return;
      Life l = { .ptr = ev->ptr, .line = ev->line, .index = c->index, .ts = ev->ts_ns,
                 .cpu = ev->cpu >= 0 ? (guint) ev->cpu : 0,
                 .rcu = cache_is_rcu (c, r, ev), .live = TRUE };
      guint idx = c->lives->len;
      if (l.rcu)
        {
          l.mm = mm_for_node (c, r, ev);
          if (l.mm)
            g_array_append_val (l.mm->lives, idx);
        }
      g_array_append_val (c->lives, l);
      sim_idmap_set (c->live_of, ev->ptr, idx);
      if (in_direct_map (ev->ptr))
        {
          SimIdPair *pg = sim_idmap_insert (c->by_page, (ev->ptr - SIM_DIRECT_MAP_BASE) >> 12,
                                            NULL);
          if (pg->value == 0)
            pg->value = (gsize) g_array_new (FALSE, FALSE, sizeof (guint));
          GArray *list = (GArray *) (gsize) pg->value;
          g_array_append_val (list, idx);
        }
    }
  else if (sim_trace_kind_is_slab_free (ev->kind))
    {
      /* A free of what the evidence said was gone: the inference was
       * wrong about it (a tree's node that outlived the tree, say). */
      if (ev->ptr && sim_idmap_remove (c->ended, ev->ptr, NULL))
        c->out->contradicted++;
      guint64 v;
      if (ev->ptr && sim_idmap_take (c->live_of, ev->ptr, &v))
        g_array_index (c->lives, Life, v).live = FALSE;
    }
  else if (ev->kind == SIM_TRACE_PAGE_FREE || ev->kind == SIM_TRACE_PAGE_FREE_BATCHED
           || ev->kind == SIM_TRACE_PAGE_FREE_DIRECT || ev->kind == SIM_TRACE_PAGEVEC_FREE)
    {
      if (ev->pfn == 0 && ev->ptr == 0)
        return;
      guint order = ev->order >= 0 ? (guint) ev->order : 0;
      if (order > MAX_BLOCK_ORDER)
        return;
      for (guint64 p = ev->pfn; p < ev->pfn + (G_GUINT64_CONSTANT (1) << order); p++)
        {
          GArray *list = (GArray *) (gsize) sim_idmap_get (c->by_page, p, 0);
          if (list == NULL)
            continue;
          for (guint i = 0; i < list->len; i++)
            {
              guint idx = g_array_index (list, guint, i);
              if (g_array_index (c->lives, Life, idx).live)
                reveal (c, idx, ev, SIM_UNTRACED_BY_PAGE_FREE);
            }
          sim_idmap_remove (c->by_page, p, NULL);
          g_array_unref (list);
        }
    }
}

void
ref_untraced_collector_feed (RefUntracedCollector *u, const SimTraceStrings *strs,
                             const SimTraceEvent *ev, guint n)
{
  for (guint i = 0; i < n; i++, u->c.index++)
    collect_event (&u->c, strs, &ev[i]);
}

void
ref_untraced_collector_free (RefUntracedCollector *u)
{
  if (u == NULL)
    return;
  Collect *c = &u->c;
  g_array_unref (c->lives);
  sim_idmap_free (c->live_of);
  guint64 cur = 0;
  for (SimIdPair *e; (e = sim_idmap_next (c->by_page, &cur)) != NULL;)
    g_array_unref ((GArray *) (gsize) e->value);
  sim_idmap_free (c->by_page);
  g_hash_table_destroy (c->rcu_cache);
  g_hash_table_destroy (c->tasks);
  sim_idmap_free (c->ended);
  g_array_unref (c->ts);
  g_ptr_array_unref (c->mms);
  sim_untraced_set_clear (&u->set);
  g_free (u);
}

void
ref_untraced_collector_finish (RefUntracedCollector *u, SimUntracedSet *out)
{
  g_array_sort (u->set.frees, by_place);
  *out = u->set;
  memset (&u->set, 0, sizeof u->set);
  ref_untraced_collector_free (u);
}
