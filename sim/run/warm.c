/* warm.c - collect the objects a trace frees but never allocated; see
 * warm.h for the layout and why. */
#include "sim/run/warm.h"
#include "traces/stream.h"
#include "traces/account.h"
#include "traces/internal.h"

#include <string.h>

typedef struct {
  char   *cache;             /* NULL: kmalloc */
  guint64 bytes_req, bytes_alloc;
  guint32 gfp;
} Class;

static void
class_free (gpointer p)
{
  Class *c = p;
  g_free (c->cache);
  g_free (c);
}

typedef struct {
  guint64 ptr;
  guint   cpu;
  char   *cache;             /* name= of a kmem_cache_free, else NULL */
} Pending;

void
sim_warm_set_clear (SimWarmSet *s)
{
  if (s->objects)
    {
      for (guint i = 0; i < s->objects->len; i++)
        g_free (g_array_index (s->objects, SimWarmObject, i).cache);
      g_array_unref (s->objects);
    }
  memset (s, 0, sizeof *s);
}

static int
cmp_obj (gconstpointer a, gconstpointer b)
{
  const SimWarmObject *x = a, *y = b;
  int c = g_strcmp0 (x->cache, y->cache);
  if (c)
    return c;
  if (x->bytes_alloc != y->bytes_alloc)
    return x->bytes_alloc < y->bytes_alloc ? -1 : 1;
  return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

struct _SimWarmCollector {
  SimTraceAccount *acct;
  /* page (ptr >> 12) -> Class of the trace's allocations there; cache name
   * -> Class (sizes) of its first allocation. */
  GHashTable *by_page, *by_cache;
  GHashTable *seen;
  GArray     *pend;          /* Pending */
};

SimWarmCollector *
sim_warm_collector_new (void)
{
  SimWarmCollector *w = g_new0 (SimWarmCollector, 1);
  w->acct = sim_trace_account_new ();
  w->by_page = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, class_free);
  w->by_cache = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, class_free);
  w->seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  w->pend = g_array_new (FALSE, FALSE, sizeof (Pending));
  return w;
}

void
sim_warm_collector_free (SimWarmCollector *w)
{
  if (w == NULL)
    return;
  for (guint i = 0; i < w->pend->len; i++)
    g_free (g_array_index (w->pend, Pending, i).cache);
  g_array_unref (w->pend);
  g_hash_table_destroy (w->seen);
  g_hash_table_destroy (w->by_cache);
  g_hash_table_destroy (w->by_page);
  sim_trace_account_free (w->acct);
  g_free (w);
}

void
sim_warm_collector_feed (SimWarmCollector *w, const SimTraceStrings *r,
                         const SimTraceEvent *evs, guint nev)
{
  for (guint e = 0; e < nev; e++)
    {
      const SimTraceEvent ev = evs[e];
      SimAccountResult res;
      sim_trace_account_event (w->acct, &ev, &res);
      const char *site = sim_trace_strings_get (r, ev.call_site_id);
      if (sim_trace_kind_is_slab_alloc (ev.kind) && ev.ptr)
        {
          if (sim_trace_internal_alloc_site (site))
            continue;
          guint64 *k = g_new (guint64, 1);
          *k = ev.ptr;
          g_hash_table_add (w->seen, k);
          const char *name = sim_trace_kind_is_kmalloc (ev.kind) ? NULL
                             : sim_trace_strings_get (r, ev.cache_id);
          if (name && *name == '\0')
            name = NULL;
          if (!sim_trace_kind_is_kmalloc (ev.kind) && name == NULL)
            continue;            /* older traces: no name to place a free by */
          Class c = { .cache = NULL, .bytes_req = ev.bytes_req,
                      .bytes_alloc = ev.bytes_alloc, .gfp = ev.gfp };
          guint64 page = ev.ptr >> 12;
          if (!g_hash_table_contains (w->by_page, &page))
            {
              guint64 *pk = g_new (guint64, 1);
              *pk = page;
              Class *pc = g_new (Class, 1);
              *pc = c;
              pc->cache = g_strdup (name);
              g_hash_table_insert (w->by_page, pk, pc);
            }
          if (name && !g_hash_table_contains (w->by_cache, name))
            {
              Class *cc = g_new (Class, 1);
              *cc = c;
              cc->cache = g_strdup (name);
              g_hash_table_insert (w->by_cache, cc->cache, cc);
            }
        }
      else if (sim_trace_kind_is_slab_free (ev.kind) && res.free_class == SIM_FREE_UNKNOWN)
        {
          if (sim_trace_internal_free_site (site) || g_hash_table_contains (w->seen, &ev.ptr))
            continue;
          const char *name = ev.kind == SIM_TRACE_CACHE_FREE
                             ? sim_trace_strings_get (r, ev.cache_id) : NULL;
          Pending p = { .ptr = ev.ptr, .cpu = ev.cpu >= 0 ? (guint) ev.cpu : 0,
                        .cache = name && *name ? g_strdup (name) : NULL };
          g_array_append_val (w->pend, p);
          /* A second unknown free of the same pointer is a double free. */
          guint64 *k = g_new (guint64, 1);
          *k = ev.ptr;
          g_hash_table_add (w->seen, k);
        }
    }
}

void
sim_warm_collector_finish (SimWarmCollector *w, SimWarmSet *out)
{
  memset (out, 0, sizeof *out);
  out->objects = g_array_new (FALSE, FALSE, sizeof (SimWarmObject));
  for (guint i = 0; i < w->pend->len; i++)
    {
      Pending *p = &g_array_index (w->pend, Pending, i);
      const Class *c = NULL;
      if (p->cache)
        c = g_hash_table_lookup (w->by_cache, p->cache);
      else
        {
          guint64 page = p->ptr >> 12;
          c = g_hash_table_lookup (w->by_page, &page);
        }
      if (c == NULL)
        {
          out->unplaced++;
          continue;
        }
      SimWarmObject o = { .ptr = p->ptr, .cpu = p->cpu, .cache = g_strdup (c->cache),
                          .bytes_req = c->bytes_req, .bytes_alloc = c->bytes_alloc,
                          .gfp = c->gfp };
      g_array_append_val (out->objects, o);
    }
  g_array_sort (out->objects, cmp_obj);
  sim_warm_collector_free (w);
}

gboolean
sim_warm_collect (const char *trace, gboolean lenient, SimWarmSet *out, GError **error)
{
  memset (out, 0, sizeof *out);
  SimTraceStreamOptions so = { .lenient = lenient };
  g_autoptr (SimTraceStream) st = sim_trace_stream_open (trace, &so, error);
  if (st == NULL)
    return FALSE;
  SimWarmCollector *w = sim_warm_collector_new ();
  const SimTraceEvent *evs;
  guint nev;
  GError *local = NULL;
  while (sim_trace_stream_next (st, &evs, &nev, &local))
    sim_warm_collector_feed (w, sim_trace_stream_strings (st), evs, nev);
  if (local)
    {
      g_propagate_error (error, local);
      sim_warm_collector_free (w);
      return FALSE;
    }
  sim_warm_collector_finish (w, out);
  return TRUE;
}
