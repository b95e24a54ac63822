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

gboolean
sim_warm_collect (const char *trace, gboolean lenient, SimWarmSet *out, GError **error)
{
  memset (out, 0, sizeof *out);
  SimTraceStreamOptions so = { .lenient = lenient };
  g_autoptr (SimTraceStream) st = sim_trace_stream_open (trace, &so, error);
  if (st == NULL)
    return FALSE;
  const SimTraceStrings *r = sim_trace_stream_strings (st);
  g_autoptr (SimTraceAccount) acct = sim_trace_account_new ();
  /* page (ptr >> 12) -> Class of the trace's allocations there; cache name
   * -> Class (sizes) of its first allocation. */
  g_autoptr (GHashTable) by_page = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                          class_free);
  g_autoptr (GHashTable) by_cache = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                           class_free);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GArray) pend = g_array_new (FALSE, FALSE, sizeof (Pending));
  const SimTraceEvent *evs;
  guint nev;
  GError *local = NULL;
  while (sim_trace_stream_next (st, &evs, &nev, &local))
    for (guint e = 0; e < nev; e++)
    {
      const SimTraceEvent ev = evs[e];
      SimAccountResult res;
      sim_trace_account_event (acct, &ev, &res);
      const char *site = sim_trace_strings_get (r, ev.call_site_id);
      if (sim_trace_kind_is_slab_alloc (ev.kind) && ev.ptr)
        {
          if (sim_trace_internal_alloc_site (site))
            continue;
          guint64 *k = g_new (guint64, 1);
          *k = ev.ptr;
          g_hash_table_add (seen, k);
          const char *name = sim_trace_kind_is_kmalloc (ev.kind) ? NULL
                             : sim_trace_strings_get (r, ev.cache_id);
          if (name && *name == '\0')
            name = NULL;
          if (!sim_trace_kind_is_kmalloc (ev.kind) && name == NULL)
            continue;            /* older traces: no name to place a free by */
          Class c = { .cache = g_strdup (name), .bytes_req = ev.bytes_req,
                      .bytes_alloc = ev.bytes_alloc, .gfp = ev.gfp };
          guint64 page = ev.ptr >> 12;
          if (!g_hash_table_contains (by_page, &page))
            {
              guint64 *pk = g_new (guint64, 1);
              *pk = page;
              Class *pc = g_new (Class, 1);
              *pc = c;
              pc->cache = g_strdup (name);
              g_hash_table_insert (by_page, pk, pc);
            }
          if (name && !g_hash_table_contains (by_cache, name))
            {
              Class *cc = g_new (Class, 1);
              *cc = c;
              cc->cache = g_strdup (name);
              g_hash_table_insert (by_cache, cc->cache, cc);
            }
          g_free (c.cache);
        }
      else if (sim_trace_kind_is_slab_free (ev.kind) && res.free_class == SIM_FREE_UNKNOWN)
        {
          if (sim_trace_internal_free_site (site) || g_hash_table_contains (seen, &ev.ptr))
            continue;
          const char *name = ev.kind == SIM_TRACE_CACHE_FREE
                             ? sim_trace_strings_get (r, ev.cache_id) : NULL;
          Pending p = { .ptr = ev.ptr, .cpu = ev.cpu >= 0 ? (guint) ev.cpu : 0,
                        .cache = name && *name ? g_strdup (name) : NULL };
          g_array_append_val (pend, p);
          /* A second unknown free of the same pointer is a double free. */
          guint64 *k = g_new (guint64, 1);
          *k = ev.ptr;
          g_hash_table_add (seen, k);
        }
    }
  if (local)
    {
      g_propagate_error (error, local);
      for (guint i = 0; i < pend->len; i++)
        g_free (g_array_index (pend, Pending, i).cache);
      return FALSE;
    }
  out->objects = g_array_new (FALSE, FALSE, sizeof (SimWarmObject));
  for (guint i = 0; i < pend->len; i++)
    {
      Pending *p = &g_array_index (pend, Pending, i);
      const Class *c = NULL;
      if (p->cache)
        c = g_hash_table_lookup (by_cache, p->cache);
      else
        {
          guint64 page = p->ptr >> 12;
          c = g_hash_table_lookup (by_page, &page);
        }
      if (c == NULL)
        {
          out->unplaced++;
          g_free (p->cache);
          continue;
        }
      SimWarmObject o = { .ptr = p->ptr, .cpu = p->cpu, .cache = g_strdup (c->cache),
                          .bytes_req = c->bytes_req, .bytes_alloc = c->bytes_alloc,
                          .gfp = c->gfp };
      g_array_append_val (out->objects, o);
      g_free (p->cache);
    }
  g_array_sort (out->objects, cmp_obj);
  return TRUE;
}
