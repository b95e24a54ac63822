/* prepass.c - the page classes, untraced frees and warm set from one
 * decode; see prepass.h. */
#include "sim/run/prepass.h"

#include <string.h>

gboolean
sim_prepass_read (SimTraceStream *stream, const SimPrepassOptions *opt, SimPrepass *out,
                  GError **error)
{
  memset (out, 0, sizeof *out);
  const SimTraceStrings *strs = sim_trace_stream_strings (stream);
  SimPageClassCollector *pc = sim_page_class_collector_new (&out->pages);
  SimUntracedCollector *uc = sim_untraced_collector_new (opt->grace_period_ns);
  SimWarmCollector *wc = opt->warm ? sim_warm_collector_new () : NULL;
  const SimTraceEvent *ev;
  guint n;
  GError *local = NULL;
  while (sim_trace_stream_next (stream, &ev, &n, &local))
    {
      sim_page_class_collector_feed (pc, strs, ev, n);
      sim_untraced_collector_feed (uc, strs, ev, n);
      if (wc)
        sim_warm_collector_feed (wc, strs, ev, n);
      if (opt->info)
        sim_trace_info_add (opt->info, ev, n);
    }
  sim_page_class_collector_finish (pc);
  if (local)
    {
      sim_untraced_collector_free (uc);
      sim_warm_collector_free (wc);
      sim_prepass_clear (out);
      g_propagate_error (error, local);
      return FALSE;
    }
  sim_untraced_collector_finish (uc, &out->untraced);
  if (wc)
    {
      sim_warm_collector_finish (wc, &out->warm);
      out->have_warm = TRUE;
    }
  return TRUE;
}

void
sim_prepass_clear (SimPrepass *p)
{
  sim_page_class_clear (&p->pages);
  sim_untraced_set_clear (&p->untraced);
  if (p->have_warm)
    sim_warm_set_clear (&p->warm);
  memset (p, 0, sizeof *p);
}

/* ---- the pipelined pre-pass (prepass.h) ---------------------------------- */

/* A chunk the pre-pass has read. */
typedef struct {
  guint64 first;
  guint   n;
  guint64 ord0, ord1;             /* its page allocations' ordinals */
  guint64 max_ts;                 /* the latest time up to its end */
} ChunkMeta;

struct _SimPrepassPipe {
  SimTraceStream   *stream;
  SimPrepassOptions opt;
  GThread          *thread;
  GMutex            lock;
  GCond             cond;
  GPtrArray        *chunks;       /* SimPrepassChunk *, handed out (lock) */
  gboolean          ended;        /* no more will be (lock) */
  guint64           waited_ns;    /* (lock) */
  guint64           waited_first_ns;  /* of it for chunk 0 (lock) */
  /* the thread's */
  GArray           *meta;         /* ChunkMeta of every chunk read */
  GArray           *held;         /* SimUntracedFree found, not yet handed out, as made */
  guint64           handed_end;   /* first event after the chunks handed out */
  guint64           first_read;   /* events read when chunk 0 was handed out */
  guint64           read;         /* events read */
  guint64           frozen_ord_end, frozen_slab;
  gboolean          broken;       /* a free placed in a chunk handed out */
  /* the outcome, read after the join */
  gboolean          ok, exact, taken;
  GError           *error;
  SimPrepass        out;
};

static void
pipe_chunk_free (gpointer p)
{
  SimPrepassChunk *c = p;
  g_free ((gpointer) c->pages.slab);
  sim_untraced_set_clear (&c->untraced);
  g_free (c);
}

/* Hand out the chunk @m with the answers known now; the number of slab
 * pages among them. */
static guint64
hand_out (SimPrepassPipe *pp, const ChunkMeta *m, GHashTable *slab, gboolean last)
{
  SimPrepassChunk *c = g_new0 (SimPrepassChunk, 1);
  c->first = m->first;
  c->n_events = m->n;
  guint64 n = m->ord1 - m->ord0, slabs = 0;
  guint8 *bits = g_malloc0 (MAX (n, 1));
  for (guint64 o = m->ord0; o < m->ord1; o++)
    if (g_hash_table_contains (slab, GSIZE_TO_POINTER ((gsize) o + 1)))
      {
        bits[o - m->ord0] = 1;
        slabs++;
      }
  c->pages = (SimPageClass) { .base = m->ord0, .n = n, .slab = bits };
  /* The frees placed in it, sorted as the whole set would be: all of
   * them are at or after the chunks handed out before. */
  c->untraced.frees = g_array_new (FALSE, FALSE, sizeof (SimUntracedFree));
  guint64 end = m->first + m->n;
  guint keep = 0;
  for (guint i = 0; i < pp->held->len; i++)
    {
      const SimUntracedFree *f = &g_array_index (pp->held, SimUntracedFree, i);
      if (last || f->before_index < end)
        g_array_append_vals (c->untraced.frees, f, 1);
      else
        g_array_index (pp->held, SimUntracedFree, keep++) = *f;
    }
  g_array_set_size (pp->held, keep);
  sim_untraced_frees_sort (c->untraced.frees);
  if (pp->handed_end == 0)
    pp->first_read = pp->read;
  pp->handed_end = end;
  g_mutex_lock (&pp->lock);
  g_ptr_array_add (pp->chunks, c);
  g_cond_broadcast (&pp->cond);
  g_mutex_unlock (&pp->lock);
  return slabs;
}

static void
pipe_end (SimPrepassPipe *pp)
{
  g_mutex_lock (&pp->lock);
  pp->ended = TRUE;
  g_cond_broadcast (&pp->cond);
  g_mutex_unlock (&pp->lock);
}

/* The frees the collector found since the last call: held until their
 * chunk is handed out; one placed in a chunk already handed out breaks
 * the pipeline. */
static void
take_frees (SimPrepassPipe *pp, SimUntracedCollector *uc)
{
  guint n;
  const SimUntracedFree *f = sim_untraced_collector_new_frees (uc, &n);
  for (guint i = 0; i < n; i++)
    {
      if (f[i].before_index < pp->handed_end && !pp->broken)
        {
          pp->broken = TRUE;
          pipe_end (pp);
        }
      g_array_append_vals (pp->held, &f[i], 1);
    }
}

static gboolean
free_equal (const SimUntracedFree *a, const SimUntracedFree *b)
{
  return a->ts_ns == b->ts_ns && a->ptr == b->ptr && a->alloc_line == b->alloc_line
         && a->before_index == b->before_index && a->cpu == b->cpu && a->kind == b->kind
         && a->evidence == b->evidence;
}

/* How often (in events) the pre-pass looks for chunks to hand out. */
#define PIECE 1024

static gpointer
pipe_thread (gpointer data)
{
  SimPrepassPipe *pp = data;
  SimPrepass *out = &pp->out;
  memset (out, 0, sizeof *out);
  const SimTraceStrings *strs = sim_trace_stream_strings (pp->stream);
  SimPageClassCollector *pc = sim_page_class_collector_new (&out->pages);
  SimUntracedCollector *uc = sim_untraced_collector_new (pp->opt.grace_period_ns);
  const guint64 gp = pp->opt.grace_period_ns;
  guint64 index = 0, ord = 0, max_ts = 0;
  guint next = 0;
  const SimTraceEvent *ev;
  guint n;
  GError *local = NULL;
  while (sim_trace_stream_next (pp->stream, &ev, &n, &local))
    {
      ChunkMeta m = { .first = index, .n = n, .ord0 = ord };
      /* The chunk in pieces of at most PIECE events, and after each the
       * chunks that can be handed out are: the grace period below is
       * trace time, and on a short trace the first chunk waits for a
       * good part of it (sim_trace_stream_next's small first chunks).
       * The collectors see the same events in the same order. */
      for (guint at = 0; at < n;)
        {
          guint k = MIN (n - at, PIECE);
          const SimTraceEvent *e = ev + at;
          sim_page_class_collector_feed (pc, strs, e, k);
          sim_untraced_collector_feed (uc, strs, e, k);
          if (pp->opt.info)
            sim_trace_info_add (pp->opt.info, e, k);
          for (guint i = 0; i < k; i++)
            {
              /* The page allocations the replay counts (and decisions.c). */
              if (e[i].kind == SIM_TRACE_PAGE_ALLOC && (e[i].pfn || e[i].ptr))
                ord++;
              max_ts = MAX (max_ts, e[i].ts_ns);
            }
          at += k;
          pp->read += k;
          if (at == n)
            {
              m.ord1 = ord;
              m.max_ts = max_ts;
              index += n;
              g_array_append_val (pp->meta, m);
            }
          take_frees (pp, uc);
          /* Hand out each chunk once SIM_TRACE_CHUNK events after it
           * have been read (its page classes) and it lies a grace period
           * before the last event read (its untraced frees). */
          guint64 last_ts = e[k - 1].ts_ns;
          while (!pp->broken && next < pp->meta->len)
            {
              const ChunkMeta *mp = &g_array_index (pp->meta, ChunkMeta, next);
              if (pp->read < mp->first + mp->n + SIM_TRACE_CHUNK || last_ts < gp
                  || mp->max_ts > last_ts - gp)
                break;
              pp->frozen_slab += hand_out (pp, mp, out->pages.slab_allocs, FALSE);
              pp->frozen_ord_end = mp->ord1;
              next++;
            }
        }
    }
  sim_page_class_collector_finish (pc);
  if (local)
    {
      sim_untraced_collector_free (uc);
      sim_prepass_clear (out);
      pp->error = local;
      pipe_end (pp);
      return NULL;
    }
  take_frees (pp, uc);
  sim_untraced_collector_finish (uc, &out->untraced);
  /* A page handed out as not a slab's and claimed later. */
  guint64 slab_below = 0;
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, out->pages.slab_allocs);
  while (g_hash_table_iter_next (&it, &k, NULL))
    slab_below += (guint64) GPOINTER_TO_SIZE (k) - 1 < pp->frozen_ord_end;
  pp->exact = !pp->broken && slab_below == pp->frozen_slab;
  if (pp->exact)
    {
      for (; next < pp->meta->len; next++)
        hand_out (pp, &g_array_index (pp->meta, ChunkMeta, next), out->pages.slab_allocs,
                  next + 1 == pp->meta->len);
      /* The chunks' frees, one after the other, are the whole set. */
      const GArray *all = out->untraced.frees;
      guint at = 0;
      for (guint i = 0; i < pp->chunks->len && pp->exact; i++)
        {
          const GArray *cf = ((SimPrepassChunk *) g_ptr_array_index (pp->chunks, i))->untraced.frees;
          for (guint j = 0; j < cf->len && pp->exact; j++, at++)
            pp->exact = at < all->len
                        && free_equal (&g_array_index (cf, SimUntracedFree, j),
                                       &g_array_index (all, SimUntracedFree, at));
        }
      pp->exact = pp->exact && at == all->len;
    }
  pp->ok = TRUE;
  pipe_end (pp);
  return NULL;
}

SimPrepassPipe *
sim_prepass_pipe_start (SimTraceStream *stream, const SimPrepassOptions *opt)
{
  g_return_val_if_fail (!opt->warm, NULL);
  SimPrepassPipe *pp = g_new0 (SimPrepassPipe, 1);
  pp->stream = stream;
  pp->opt = *opt;
  g_mutex_init (&pp->lock);
  g_cond_init (&pp->cond);
  pp->chunks = g_ptr_array_new_with_free_func (pipe_chunk_free);
  pp->meta = g_array_new (FALSE, FALSE, sizeof (ChunkMeta));
  pp->held = g_array_new (FALSE, FALSE, sizeof (SimUntracedFree));
  pp->thread = g_thread_new ("slabsim-prepass", pipe_thread, pp);
  return pp;
}

const SimPrepassChunk *
sim_prepass_pipe_chunk (SimPrepassPipe *pp, guint64 p)
{
  g_mutex_lock (&pp->lock);
  if (p >= pp->chunks->len && !pp->ended)
    {
      gint64 t0 = g_get_monotonic_time ();
      while (p >= pp->chunks->len && !pp->ended)
        g_cond_wait (&pp->cond, &pp->lock);
      guint64 w = (guint64) (g_get_monotonic_time () - t0) * 1000;
      pp->waited_ns += w;
      if (p == 0)
        pp->waited_first_ns = w;
    }
  const SimPrepassChunk *c = p < pp->chunks->len ? g_ptr_array_index (pp->chunks, p) : NULL;
  g_mutex_unlock (&pp->lock);
  return c;
}

static void
pipe_join (SimPrepassPipe *pp)
{
  if (pp->thread)
    g_thread_join (pp->thread);
  pp->thread = NULL;
}

gboolean
sim_prepass_pipe_finish (SimPrepassPipe *pp, SimPrepass *out, gboolean *exact, GError **error)
{
  pipe_join (pp);
  memset (out, 0, sizeof *out);
  *exact = FALSE;
  if (!pp->ok)
    {
      if (pp->error)
        g_propagate_error (error, g_steal_pointer (&pp->error));
      return FALSE;
    }
  *out = pp->out;
  pp->taken = TRUE;
  *exact = pp->exact;
  return TRUE;
}

guint64
sim_prepass_pipe_first_read (SimPrepassPipe *pp)
{
  return pp->first_read;
}

guint64
sim_prepass_pipe_waited_ns (SimPrepassPipe *pp)
{
  g_mutex_lock (&pp->lock);
  guint64 w = pp->waited_ns;
  g_mutex_unlock (&pp->lock);
  return w;
}

void
sim_prepass_pipe_free (SimPrepassPipe *pp)
{
  if (pp == NULL)
    return;
  pipe_join (pp);
  g_debug ("pipelined pre-pass: the first chunk handed out after %" G_GUINT64_FORMAT
           " of %" G_GUINT64_FORMAT " events read; the replays waited %.3f s for it, "
           "%.3f s for the others", pp->first_read, pp->read, pp->waited_first_ns / 1e9,
           (pp->waited_ns - pp->waited_first_ns) / 1e9);
  if (pp->ok && !pp->taken)
    sim_prepass_clear (&pp->out);
  g_clear_error (&pp->error);
  g_ptr_array_unref (pp->chunks);
  g_array_unref (pp->meta);
  g_array_unref (pp->held);
  g_mutex_clear (&pp->lock);
  g_cond_clear (&pp->cond);
  g_free (pp);
}
