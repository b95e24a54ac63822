/* untraced.c - the frees a recording shows only by their consequences;
 * see untraced.h for the rules and why. */
#include "sim/run/untraced.h"
#include "sim/run/kernel-caches.h"
#include "traces/stream.h"
#include "traces/internal.h"
#include "traces/decisions.h"
#include "sim/core/idmap.h"
#include "sim/core/hostmem.h"

#include <string.h>

#define MAX_BLOCK_ORDER 10                                        /* MAX_PAGE_ORDER */
#define NIL G_MAXUINT32                                           /* no slot */

/* Memory: the pass keeps what is live, not what the trace has seen (issue
 * 12: a 290 M-event trace once took 11 GB here).  A lifetime is a record
 * in a slot array whose slots are reused when it ends (an explicit free or
 * a reveal); the records of a page, and the nodes of a maple tree, are
 * doubly linked lists through those records (in allocation order, as the
 * reveals visit them), unlinked when a lifetime ends, so a page's entry in
 * by_page exists only while it holds a live lifetime; an address space is
 * freed when no task and no live node refers to it, a task when it refers
 * to none.  Timestamps are kept only for the window a placement can look
 * into (see place()). */

/* An address space whose maple tree the trace shows being built and torn
 * down: the live nodes allocated for it. */
typedef struct {
  guint32  head, tail;       /* slots of its live nodes, allocation order */
  guint32  refs;             /* tasks' cur/next/fork + live nodes' mm */
  guint32  at;               /* its index in Collect.mms */
  gboolean lazy;             /* made up for a task first seen mid-life */
} Mm;

typedef struct {
  guint64 ptr;
  guint64 line;
  guint64 index;             /* ordinal of its allocation event */
  guint64 ts;
  Mm     *mm;                /* holds a reference while live */
  guint32 page_prev, page_next;  /* its page's live lifetimes; page_next
                                  * links the free slots when not live */
  guint32 mm_prev, mm_next;  /* its tree's live nodes (while in_mm) */
  guint32 cpu;
  guint8  rcu;               /* an mm maple tree node: kfree_rcu while its mm lives */
  guint8  live;
  guint8  paged;             /* on its page's list */
  guint8  in_mm;             /* on mm's list (a destroyed tree's root is not) */
} Life;

/* What a task is doing with address spaces (each a reference). */
typedef struct {
  Mm *cur;                   /* the mm it runs in */
  Mm *next;                  /* exec: mm_alloc'd, not yet switched to */
  Mm *fork;                  /* fork: the child's mm being duplicated */
} Task;

typedef struct {
  Life       *lives;         /* lives_cap Life slots, lives_made of them used:
                              * never more than the most ever live */
  guint32     lives_cap;
  guint32     lives_made;
  guint32     free_slot;     /* first free slot (NIL: none), linked by page_next */
  guint64     live_records;
  SimIdMap   *live_of;       /* ptr -> slot (SimIdPair) */
  SimIdMap   *by_page;       /* pfn -> head slot << 32 | tail slot, pages with a live lifetime */
  const SimTraceStrings *memo_strs;  /* the strings memo's ids are of */
  GArray     *memo;          /* guint16 STR_* flags by interned string id */
  GHashTable *tasks;         /* pid -> Task */
  SimIdMap   *ended;         /* ptrs whose lifetime a page free or tree end closed (a set) */
  GPtrArray  *mms;           /* Mm *, owned; live ones only */
  guint64     gp;
  guint64     index;         /* ordinal of the event being read */
  /* The timestamp window (place()): ts of ordinal i, for win_first <= i <
   * index + 1, at win[i & win_mask]. */
  guint64    *win;
  guint64     win_mask;
  guint64     win_first;
  guint64     max_ts;        /* latest timestamp so far */
  guint64     slack;         /* most a timestamp has run behind max_ts */
  guint64     dropped_max;   /* latest timestamp dropped from the window */
  gboolean    dropped;
  guint64     window_peak;
  guint64     unsure;
  SimUntracedSet *out;
} Collect;

static guint64
pfn_of (guint64 ptr)
{
  return (ptr - SIM_DIRECT_MAP_BASE) >> 12;
}

static inline Life *
life_at (Collect *c, guint32 slot)
{
  return &c->lives[slot];
}

/* What the pass asks of an event's strings (its call site and its cache
 * name), answered once per interned string: an interned string never
 * changes, so the answers are those the string tests would give each
 * time, without a strcmp or a table lookup an event. */
enum {
  STR_KNOWN        = 1 << 0,   /* the flags below are set */
  STR_INTERNAL     = 1 << 1,   /* sim_trace_internal_alloc_site */
  STR_MT_DESTROY   = 1 << 2,   /* site_is __mt_destroy */
  STR_FORK         = 1 << 3,   /* site_is copy_process or dup_mm */
  STR_MM_ALLOC     = 1 << 4,   /* site_is mm_alloc */
  STR_MT_DUP       = 1 << 5,   /* site_is __mt_dup, mas_dup_alloc or mas_dup_build */
  STR_MM_STRUCT    = 1 << 6,   /* the name "mm_struct" */
  STR_MAPLE_TREE   = 1 << 7,   /* a cache whose untraced frees are a maple tree's */
};

static gboolean
str_site_is (const char *site, const char *fn)
{
  gsize n = strlen (fn);
  return strncmp (site, fn, n) == 0 && (site[n] == '+' || site[n] == '.' || site[n] == '\0');
}

static guint
str_flags_of (const char *s)
{
  guint f = STR_KNOWN;
  if (sim_trace_internal_alloc_site (s))
    f |= STR_INTERNAL;
  if (str_site_is (s, "__mt_destroy"))
    f |= STR_MT_DESTROY;
  if (str_site_is (s, "copy_process") || str_site_is (s, "dup_mm"))
    f |= STR_FORK;
  if (str_site_is (s, "mm_alloc"))
    f |= STR_MM_ALLOC;
  if (str_site_is (s, "__mt_dup") || str_site_is (s, "mas_dup_alloc")
      || str_site_is (s, "mas_dup_build"))
    f |= STR_MT_DUP;
  if (strcmp (s, "mm_struct") == 0)
    f |= STR_MM_STRUCT;
  const SimKernelCache *kc = sim_kernel_cache_lookup (s);
  if (kc && kc->untraced_free == SIM_KC_UNTRACED_MAPLE_TREE)
    f |= STR_MAPLE_TREE;
  return f;
}

/* str_flags' first look at a string: the tests, then the memo (not for
 * an id not yet defined, which reads as "" for now). */
static G_GNUC_NO_INLINE guint
str_flags_slow (Collect *c, const SimTraceStrings *r, guint32 id)
{
  guint f = str_flags_of (sim_trace_strings_get (r, id));
  if (id != 0 && id > sim_trace_strings_count (r))
    return f;
  if (r != c->memo_strs)
    {
      g_array_set_size (c->memo, 0);
      c->memo_strs = r;
    }
  if (id >= c->memo->len)
    g_array_set_size (c->memo, id + 1);
  g_array_index (c->memo, guint16, id) = (guint16) f;
  return f;
}

/* The STR_* flags of string @id of @r ("" for 0 or an id not defined). */
static inline guint
str_flags (Collect *c, const SimTraceStrings *r, guint32 id)
{
  if (G_LIKELY (r == c->memo_strs && id < c->memo->len))
    {
      guint f = g_array_index (c->memo, guint16, id);
      if (G_LIKELY (f))
        return f;
    }
  return str_flags_slow (c, r, id);
}

static gboolean
cache_is_rcu (Collect *c, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  if (sim_trace_kind_is_kmalloc (ev->kind) || ev->cache_id == 0)
    return FALSE;
  return (str_flags (c, r, ev->cache_id) & STR_MAPLE_TREE) != 0;
}

static void
mm_ref (Mm *mm)
{
  if (mm)
    mm->refs++;
}

static void
mm_unref (Collect *c, Mm *mm)
{
  if (mm == NULL || --mm->refs > 0)
    return;
  /* nobody can name it again: no task runs in it, no live node is in it */
  g_assert (mm->head == NIL);
  guint32 at = mm->at;
  g_ptr_array_steal_index_fast (c->mms, at);     /* the last one moves into its place */
  if (at < c->mms->len)
    ((Mm *) g_ptr_array_index (c->mms, at))->at = at;
  g_free (mm);
}

/* *@field = @mm, references counted. */
static void
mm_assign (Collect *c, Mm **field, Mm *mm)
{
  mm_ref (mm);
  mm_unref (c, *field);
  *field = mm;
}

static void
mm_unlink (Collect *c, guint32 slot)
{
  Life *l = life_at (c, slot);
  Mm *mm = l->mm;
  if (l->mm_prev == NIL)
    mm->head = l->mm_next;
  else
    life_at (c, l->mm_prev)->mm_next = l->mm_next;
  if (l->mm_next == NIL)
    mm->tail = l->mm_prev;
  else
    life_at (c, l->mm_next)->mm_prev = l->mm_prev;
  l->in_mm = FALSE;
}

static void
page_link (Collect *c, guint32 slot)
{
  Life *l = life_at (c, slot);
  gboolean existed;
  SimIdPair *pg = sim_idmap_insert (c->by_page, pfn_of (l->ptr), &existed);
  l->page_next = NIL;
  if (!existed)
    {
      l->page_prev = NIL;
      pg->value = (guint64) slot << 32 | slot;
    }
  else
    {
      guint32 tail = (guint32) pg->value;
      l->page_prev = tail;
      life_at (c, tail)->page_next = slot;
      pg->value = (pg->value & G_GUINT64_CONSTANT (0xffffffff00000000)) | slot;
    }
  l->paged = TRUE;
}

static void
page_unlink (Collect *c, guint32 slot)
{
  Life *l = life_at (c, slot);
  l->paged = FALSE;
  if (l->page_prev != NIL && l->page_next != NIL)
    {
      /* inside the list: the page's head and tail stay (no map lookup,
       * which is a cache miss on a large trace) */
      life_at (c, l->page_prev)->page_next = l->page_next;
      life_at (c, l->page_next)->page_prev = l->page_prev;
      return;
    }
  SimIdPair *pg = sim_idmap_lookup (c->by_page, pfn_of (l->ptr));
  guint32 head = (guint32) (pg->value >> 32), tail = (guint32) pg->value;
  if (l->page_prev == NIL)
    head = l->page_next;
  else
    life_at (c, l->page_prev)->page_next = l->page_next;
  if (l->page_next == NIL)
    tail = l->page_prev;
  else
    life_at (c, l->page_next)->page_prev = l->page_prev;
  if (head == NIL)
    sim_idmap_remove_entry (c->by_page, pg);
  else
    pg->value = (guint64) head << 32 | tail;
}

/* A slot for a new lifetime (the caller fills it). */
static guint32
life_new (Collect *c)
{
  guint32 slot = c->free_slot;
  if (slot != NIL)
    c->free_slot = life_at (c, slot)->page_next;
  else
    {
      g_assert (c->lives_made < NIL);
      slot = c->lives_made++;
      /* grown by doubling, not a call a slot; on huge pages once it is
       * megabytes (a free's record is a random read: sim/core/hostmem.h) */
      if (slot >= c->lives_cap)
        {
          guint64 cap = MIN (MAX (1024u, (guint64) c->lives_cap * 2), (guint64) NIL);
          Life *n = sim_hostmem_alloc0 ((gsize) cap * sizeof (Life));
          if (c->lives_made > 1)
            memcpy (n, c->lives, (gsize) (c->lives_made - 1) * sizeof (Life));
          sim_hostmem_free (c->lives);
          c->lives = n;
          c->lives_cap = (guint32) cap;
        }
    }
  c->live_records++;
  return slot;
}

/* The lifetime in @slot is over (its ptr already out of live_of): out of
 * its lists, its slot free. */
static void
life_end (Collect *c, guint32 slot)
{
  Life *l = life_at (c, slot);
  l->live = FALSE;
  if (l->paged)
    page_unlink (c, slot);
  if (l->in_mm)
    mm_unlink (c, slot);
  Mm *mm = l->mm;
  l->mm = NULL;
  l->page_next = c->free_slot;
  c->free_slot = slot;
  c->live_records--;
  mm_unref (c, mm);
}

/* Event @c->index (timestamp @ts) joins the window; what no placement can
 * look at any more leaves it.
 *
 * What place() reads: a free is placed by a binary search over the
 * ordinals after its allocation and before its evidence, for the first
 * event later than its time x.  x is the evidence's time, or (kfree_rcu)
 * max (evidence time - gp, allocation time) >= evidence time - gp.  When
 * timestamps never run backwards, every event at or before max_ts - gp is
 * at or before any later x, so it answers "not later" to every probe and
 * need not be kept: the window holds the events within one grace period
 * of the latest, plus (if timestamps do run back) the most they have run
 * back so far.  A dropped ordinal reads as "not later" (place() counts it
 * as unsure if a dropped timestamp could have been later than x). */
static void
window_push (Collect *c, guint64 ts)
{
  if (c->index == 0 || ts > c->max_ts)
    c->max_ts = ts;
  else if (c->max_ts - ts > c->slack)
    c->slack = c->max_ts - ts;
  guint64 len = c->index - c->win_first;
  if (len > c->win_mask)
    {
      /* full: double it; ordinals keep their place modulo the new size */
      guint64 size = (c->win_mask + 1) * 2;
      guint64 *w = g_new (guint64, size);
      for (guint64 i = c->win_first; i < c->index; i++)
        w[i & (size - 1)] = c->win[i & c->win_mask];
      g_free (c->win);
      c->win = w;
      c->win_mask = size - 1;
    }
  c->win[c->index & c->win_mask] = ts;
  guint64 span = c->gp + c->slack;
  if (c->max_ts >= span)
    {
      guint64 before = c->max_ts - span;
      while (c->win_first < c->index)
        {
          guint64 t = c->win[c->win_first & c->win_mask];
          if (t > before)
            break;
          if (!c->dropped || t > c->dropped_max)
            c->dropped_max = t;
          c->dropped = TRUE;
          c->win_first++;
        }
    }
  if (c->index + 1 - c->win_first > c->window_peak)
    c->window_peak = c->index + 1 - c->win_first;
}

/* Where in the stream a free of time @x of the lifetime allocated at
 * ordinal @alloc goes: before the first event later than @x (timestamps
 * are in order in a trace; if not, the bounds still keep it inside its own
 * lifetime), after its allocation, before the evidence (this event).  The
 * search probes the ordinals it always has; see window_push() for which
 * are kept. */
static guint64
place (Collect *c, guint64 alloc, guint64 x)
{
  guint64 lo = alloc + 1, hi = c->index;
  if (x >= c->max_ts)
    return hi;             /* no event so far is later */
  gboolean blind = FALSE;
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      gboolean later;
      if (mid >= c->win_first)
        later = c->win[mid & c->win_mask] > x;
      else
        {
          later = FALSE;
          blind = TRUE;
        }
      if (later)
        hi = mid;
      else
        lo = mid + 1;
    }
  if (blind && c->dropped && c->dropped_max > x)
    c->unsure++;
  return lo;
}

/* The lifetime in @slot ended with no free event; the evidence is @ev.
 * Its ptr's entry in live_of is the caller's to remove (or to reuse). */
static void
reveal_ended (Collect *c, guint32 slot, const SimTraceEvent *ev, SimUntracedEvidence why)
{
  Life *l = life_at (c, slot);
  if (why == SIM_UNTRACED_BY_REUSE)
    c->out->by_reuse++;
  else if (why == SIM_UNTRACED_BY_PAGE_FREE)
    c->out->by_page_free++;
  else
    c->out->by_mm_destroy++;
  if (why != SIM_UNTRACED_BY_REUSE)
    sim_idmap_insert (c->ended, l->ptr, NULL);
  SimUntracedFree f = { .ptr = l->ptr, .alloc_line = l->line, .evidence = why };
  gboolean made = TRUE;
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
    made = FALSE;          /* the replay's implicit free handles it */
  if (made)
    {
      f.before_index = place (c, l->index, f.ts_ns);
      g_array_append_val (c->out->frees, f);
    }
  life_end (c, slot);
}

/* reveal_ended, its ptr out of live_of. */
static void
reveal (Collect *c, guint32 slot, const SimTraceEvent *ev, SimUntracedEvidence why)
{
  sim_idmap_remove (c->live_of, life_at (c, slot)->ptr, NULL);
  reveal_ended (c, slot, ev, why);
}

static Mm *
mm_new (Collect *c, gboolean lazy)
{
  Mm *mm = g_new0 (Mm, 1);
  mm->head = mm->tail = NIL;
  mm->lazy = lazy;
  mm->at = c->mms->len;
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

/* A task that refers to no address space is as good as one never seen. */
static void
task_done (Collect *c, gint32 pid, Task *t)
{
  if (t->cur == NULL && t->next == NULL && t->fork == NULL)
    g_hash_table_remove (c->tasks, GINT_TO_POINTER (pid));
}

/* The tree of @mm is gone: every node of it still live was freed. */
static void
mm_destroy (Collect *c, Mm *mm, const SimTraceEvent *ev)
{
  mm_ref (mm);             /* its last nodes may hold its last references */
  for (guint32 s = mm->head; s != NIL;)
    {
      Life *l = life_at (c, s);
      guint32 next = l->mm_next;
      mm_unlink (c, s);
      /* The root itself is the traced kfree @ev: it stays live, off the list. */
      if (l->live && l->mm == mm && l->ptr != ev->ptr)
        reveal (c, s, ev, SIM_UNTRACED_BY_MM_DESTROY);
      s = next;
    }
  mm_unref (c, mm);
}

/* site_is (@ev's call site, one of the functions of @flag). */
static gboolean
site_is (Collect *c, const SimTraceStrings *r, const SimTraceEvent *ev, guint flag)
{
  return (str_flags (c, r, ev->call_site_id) & flag) != 0;
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
      if (ev->cache_id == 0 || !(str_flags (c, r, ev->cache_id) & STR_MM_STRUCT))
        return;
      Task *t = task_of (c, ev->pid);
      if (site_is (c, r, ev, STR_FORK))
        mm_assign (c, &t->fork, mm_new (c, FALSE));
      else if (site_is (c, r, ev, STR_MM_ALLOC))
        mm_assign (c, &t->next, mm_new (c, FALSE));
      task_done (c, ev->pid, t);
      return;
    }
  if (ev->kind != SIM_TRACE_KFREE || !site_is (c, r, ev, STR_MT_DESTROY))
    return;
  Task *t = task_of (c, ev->pid);
  const SimIdPair *v = sim_idmap_lookup (c->live_of, ev->ptr);
  /* The root's Life stays live (the kfree that follows ends it), and with
   * it its reference to root. */
  Mm *root = v ? life_at (c, (guint32) v->value)->mm : NULL;
  if (root)
    mm_destroy (c, root, ev);
  if (t->cur && t->cur != root && (t->cur->lazy || root == NULL))
    mm_destroy (c, t->cur, ev);
  Mm *next = t->next;
  t->next = NULL;          /* its reference moves to cur */
  mm_unref (c, t->cur);
  t->cur = next;
  mm_assign (c, &t->fork, NULL);
  task_done (c, ev->pid, t);
}

/* Which mm a new maple node of @ev's task belongs to. */
static Mm *
mm_for_node (Collect *c, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  if (ev->pid < 0)
    return NULL;
  Task *t = task_of (c, ev->pid);
  if (site_is (c, r, ev, STR_MT_DUP) && t->fork)
    return t->fork;
  if (t->next)
    return t->next;
  if (t->cur == NULL)
    mm_assign (c, &t->cur, mm_new (c, TRUE));
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

struct _SimUntracedCollector {
  Collect        c;
  SimUntracedSet set;
  guint          handed;     /* frees sim_untraced_collector_new_frees returned */
};

SimUntracedCollector *
sim_untraced_collector_new (guint64 grace_period_ns)
{
  SimUntracedCollector *u = g_new0 (SimUntracedCollector, 1);
  u->set.frees = g_array_new (FALSE, FALSE, sizeof (SimUntracedFree));
  u->c = (Collect) {
    .free_slot = NIL,
    .live_of = sim_idmap_new (sizeof (SimIdPair), 0),
    .by_page = sim_idmap_new (sizeof (SimIdPair), 0),
    .memo = g_array_new (FALSE, TRUE, sizeof (guint16)),
    .tasks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free),
    .ended = sim_idmap_new (8, 0),
    .mms = g_ptr_array_new_with_free_func (g_free),
    .gp = grace_period_ns,
    .win = g_new (guint64, 1024),
    .win_mask = 1023,
    .out = &u->set,
  };
  return u;
}

/* One event, the c->index'th of the trace. */
static void
collect_event (Collect *c, const SimTraceStrings *r, const SimTraceEvent *ev)
{
  window_push (c, ev->ts_ns);
  mm_event (c, r, ev);
  if (sim_trace_kind_is_slab_alloc (ev->kind))
    {
      if (ev->ptr == 0)
        return;
      SimIdPair *e = sim_idmap_lookup (c->ended, ev->ptr);
      if (e)
        {
          sim_idmap_remove_entry (c->ended, e);
          c->out->reused_after++;
        }
      if (site_is (c, r, ev, STR_INTERNAL))
        {
          /* the recording kernel's own object: a live one before it is
           * revealed, and it is not tracked */
          SimIdPair *v = sim_idmap_lookup (c->live_of, ev->ptr);
          if (v)
            reveal (c, (guint32) v->value, ev, SIM_UNTRACED_BY_REUSE);
          return;
        }
      /* One probe of live_of: a live lifetime of this ptr is revealed
       * (reused), and the entry then names the new one.  Nothing until
       * the entry is written touches live_of. */
      gboolean existed;
      SimIdPair *v = sim_idmap_insert (c->live_of, ev->ptr, &existed);
      if (existed)
        reveal_ended (c, (guint32) v->value, ev, SIM_UNTRACED_BY_REUSE);
      gboolean rcu = cache_is_rcu (c, r, ev);
      Mm *mm = rcu ? mm_for_node (c, r, ev) : NULL;
      guint32 slot = life_new (c);
      Life *l = life_at (c, slot);
      *l = (Life) { .ptr = ev->ptr, .line = ev->line, .index = c->index, .ts = ev->ts_ns,
                    .cpu = ev->cpu >= 0 ? (guint) ev->cpu : 0, .rcu = rcu, .live = TRUE,
                    .mm = mm, .mm_next = NIL, .mm_prev = NIL };
      if (mm)
        {
          mm_ref (mm);
          l->mm_prev = mm->tail;
          if (mm->tail == NIL)
            mm->head = slot;
          else
            life_at (c, mm->tail)->mm_next = slot;
          mm->tail = slot;
          l->in_mm = TRUE;
        }
      v->value = slot;
      if (sim_in_direct_map (ev->ptr))
        page_link (c, slot);
    }
  else if (sim_trace_kind_is_slab_free (ev->kind))
    {
      /* A free of what the evidence said was gone: the inference was
       * wrong about it (a tree's node that outlived the tree, say). */
      SimIdPair *e = ev->ptr ? sim_idmap_lookup (c->ended, ev->ptr) : NULL;
      if (e)
        {
          sim_idmap_remove_entry (c->ended, e);
          c->out->contradicted++;
        }
      guint64 v;
      if (ev->ptr && sim_idmap_take (c->live_of, ev->ptr, &v))
        life_end (c, (guint32) v);
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
          SimIdPair *pg = sim_idmap_lookup (c->by_page, p);
          if (pg == NULL)
            continue;
          /* the page's list leaves the map first: the reveals end every
           * lifetime on it without unlinking one by one */
          guint32 s = (guint32) (pg->value >> 32);
          sim_idmap_remove_entry (c->by_page, pg);
          while (s != NIL)
            {
              Life *l = life_at (c, s);
              guint32 next = l->page_next;
              l->paged = FALSE;
              g_assert (l->live);
              reveal (c, s, ev, SIM_UNTRACED_BY_PAGE_FREE);
              s = next;
            }
        }
    }
}

/* Hints for the events ahead of the one being collected (sim_idmap_prefetch:
 * on a long trace live_of, by_page and the records are tens of megabytes
 * read at random).  In three steps, each reading what the one before
 * brought in: 8 events ahead the ptr's live_of slot (and an allocation's
 * page), 4 ahead a free's record, 2 ahead its page neighbours, which its
 * unlinking writes.  Reads only: nothing here changes the maps. */
#define AHEAD_SLOT   8
#define AHEAD_RECORD 4
#define AHEAD_LINKS  2

static inline void
collect_prefetch (const Collect *c, const SimTraceEvent *ev, guint n, guint i)
{
  if (i + AHEAD_SLOT < n && ev[i + AHEAD_SLOT].ptr)
    {
      const SimTraceEvent *e = &ev[i + AHEAD_SLOT];
      sim_idmap_prefetch (c->live_of, e->ptr);
      if (sim_trace_kind_is_slab_alloc (e->kind) && sim_in_direct_map (e->ptr))
        sim_idmap_prefetch (c->by_page, pfn_of (e->ptr));
    }
  if (i + AHEAD_RECORD < n && ev[i + AHEAD_RECORD].ptr
      && sim_trace_kind_is_slab_free (ev[i + AHEAD_RECORD].kind))
    {
      const SimIdPair *v = sim_idmap_lookup (c->live_of, ev[i + AHEAD_RECORD].ptr);
      if (v)
        __builtin_prefetch (&c->lives[v->value]);
    }
  if (i + AHEAD_LINKS < n && ev[i + AHEAD_LINKS].ptr
      && sim_trace_kind_is_slab_free (ev[i + AHEAD_LINKS].kind))
    {
      const SimIdPair *v = sim_idmap_lookup (c->live_of, ev[i + AHEAD_LINKS].ptr);
      if (v)
        {
          const Life *l = &c->lives[v->value];
          if (l->paged && l->page_prev != NIL)
            __builtin_prefetch (&c->lives[l->page_prev]);
          if (l->paged && l->page_next != NIL)
            __builtin_prefetch (&c->lives[l->page_next]);
        }
    }
}

void
sim_untraced_collector_feed (SimUntracedCollector *u, const SimTraceStrings *strs,
                             const SimTraceEvent *ev, guint n)
{
  for (guint i = 0; i < n; i++, u->c.index++)
    {
      collect_prefetch (&u->c, ev, n, i);
      collect_event (&u->c, strs, &ev[i]);
    }
}

guint64
sim_untraced_collector_final_before (const SimUntracedCollector *u)
{
  return u->c.win_first;
}

const GArray *
sim_untraced_collector_frees (const SimUntracedCollector *u)
{
  return u->set.frees;
}

void
sim_untraced_collector_stats (const SimUntracedCollector *u, SimUntracedStats *out)
{
  const Collect *c = &u->c;
  *out = (SimUntracedStats) {
    .records = c->live_records,
    .records_peak = c->lives_made,
    .pages = sim_idmap_size (c->by_page),
    .tasks = g_hash_table_size (c->tasks),
    .mms = c->mms->len,
    .ended = sim_idmap_size (c->ended),
    .window = c->index - c->win_first,
    .window_peak = c->window_peak,
    .frees = c->out->frees->len,
    .unsure = c->unsure,
  };
}

void
sim_untraced_collector_free (SimUntracedCollector *u)
{
  if (u == NULL)
    return;
  Collect *c = &u->c;
  sim_hostmem_free (c->lives);
  sim_idmap_free (c->live_of);
  sim_idmap_free (c->by_page);
  g_array_unref (c->memo);
  g_hash_table_destroy (c->tasks);
  sim_idmap_free (c->ended);
  g_free (c->win);
  g_ptr_array_unref (c->mms);
  sim_untraced_set_clear (&u->set);
  g_free (u);
}

const SimUntracedFree *
sim_untraced_collector_new_frees (SimUntracedCollector *u, guint *n)
{
  guint from = u->handed;
  u->handed = u->set.frees->len;
  *n = u->handed - from;
  return &g_array_index (u->set.frees, SimUntracedFree, from);
}

void
sim_untraced_frees_sort (GArray *frees)
{
  g_array_sort (frees, by_place);
}

void
sim_untraced_collector_finish (SimUntracedCollector *u, SimUntracedSet *out)
{
  g_array_sort (u->set.frees, by_place);
  *out = u->set;
  memset (&u->set, 0, sizeof u->set);
  sim_untraced_collector_free (u);
}

gboolean
sim_untraced_collect (const char *trace, gboolean lenient, guint64 grace_period_ns,
                      SimUntracedSet *out, GError **error)
{
  memset (out, 0, sizeof *out);
  SimTraceStreamOptions so = { .lenient = lenient };
  g_autoptr (SimTraceStream) st = sim_trace_stream_open (trace, &so, error);
  if (st == NULL)
    return FALSE;
  SimUntracedCollector *u = sim_untraced_collector_new (grace_period_ns);
  const SimTraceEvent *ev;
  guint n;
  GError *local = NULL;
  while (sim_trace_stream_next (st, &ev, &n, &local))
    sim_untraced_collector_feed (u, sim_trace_stream_strings (st), ev, n);
  if (local)
    {
      g_propagate_error (error, local);
      sim_untraced_collector_free (u);
      return FALSE;
    }
  sim_untraced_collector_finish (u, out);
  return TRUE;
}

void
sim_untraced_set_clear (SimUntracedSet *s)
{
  if (s->frees)
    g_array_unref (s->frees);
  memset (s, 0, sizeof *s);
}
