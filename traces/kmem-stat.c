/* kmem-stat.c - perf kmem stat's tables from a trace; see kmem-stat.h.
 *
 * Follows what tools/perf/builtin-kmem.c computes and prints (its column
 * layout and number formats, written from its output, not its code):
 * an allocation adds bytes_alloc and bytes_req to its call site and to
 * its pointer, and remembers its CPU; a free of a pointer last allocated
 * on another CPU is a ping-pong for that pointer and for the call site
 * that allocated it; frag is 100 - 100 * req / alloc.  perf resolves call
 * sites to "symbol+offset"; slabsim prints the trace's own symbol the same
 * way ("__fput+141"), or the address when the trace has only that.
 */
#include "traces/kmem-stat.h"
#include "traces/stream.h"
#include "sim/core/errors.h"

#include <string.h>

typedef struct {
  char   *key;               /* call site text, or the pointer as "0x..." */
  guint64 ptr;               /* for --alloc: numeric sort */
  guint64 bytes_alloc, bytes_req, hit, pingpong;
  gint    alloc_cpu;         /* --alloc: CPU of the live allocation, -1 none */
  char   *site;              /* --alloc: the call site of the last allocation */
  /* --page */
  gint    order, migratetype;
  guint32 gfp_id;
} KStat;

static void
kstat_free (KStat *s)
{
  g_free (s->key);
  g_free (s->site);
  g_free (s);
}

static const char *const slab_keys[] = { "ptr", "callsite", "bytes", "hit", "pingpong", "frag", NULL };
static const char *const page_keys[] = { "page", "callsite", "bytes", "hit", "order", "migtype", "gfp", NULL };

const char *
sim_kmem_stat_sort_keys (gboolean page)
{
  return page ? "page, callsite, bytes, hit, order, migtype, gfp"
              : "ptr, callsite, bytes, hit, pingpong, frag";
}

gboolean
sim_kmem_stat_check_sort (const char *sort, gboolean page, GError **error)
{
  if (sort == NULL)
    return TRUE;
  g_auto (GStrv) parts = g_strsplit (sort, ",", -1);
  for (guint i = 0; parts[i]; i++)
    if (!g_strv_contains (page ? page_keys : slab_keys, g_strstrip (parts[i])))
      {
        g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                     "-s %s: unknown sort key \"%s\" (expected %s)", sort, parts[i],
                     sim_kmem_stat_sort_keys (page));
        return FALSE;
      }
  return TRUE;
}

/* "copy_process+0x1a5/0x1d80" -> "copy_process+1a5", as perf prints a
 * resolved symbol; a bare address as "0xffffffff81234567". */
static char *
site_name (const SimTraceStrings *st, const SimTraceEvent *ev)
{
  const char *s = ev->call_site_id ? sim_trace_strings_get (st, ev->call_site_id) : NULL;
  if (s && *s && !g_ascii_isdigit (*s))
    {
      const char *plus = strchr (s, '+');
      if (plus && plus[1] == '0' && plus[2] == 'x')
        {
          const char *slash = strchr (plus, '/');
          gsize off_len = slash ? (gsize) (slash - plus - 3) : strlen (plus + 3);
          return g_strdup_printf ("%.*s+%.*s", (int) (plus - s), s, (int) off_len, plus + 3);
        }
      return g_strdup (s);
    }
  return g_strdup_printf ("%#" G_GINT64_MODIFIER "x", ev->call_site);
}

static KStat *
lookup (GHashTable *h, const char *key)
{
  KStat *s = g_hash_table_lookup (h, key);
  if (s == NULL)
    {
      s = g_new0 (KStat, 1);
      s->key = g_strdup (key);
      s->alloc_cpu = -1;
      s->order = s->migratetype = -1;
      g_hash_table_insert (h, s->key, s);
    }
  return s;
}

static double
frag (const KStat *s)
{
  return s->bytes_alloc ? 100.0 - 100.0 * (double) s->bytes_req / (double) s->bytes_alloc : 0.0;
}

typedef struct {
  GPtrArray *keys;
  gboolean   by_ptr;
} SortCtx;

static gint
cmp_key (const KStat *a, const KStat *b, const char *k, gboolean by_ptr)
{
#define DESC(x, y) ((x) != (y) ? ((x) > (y) ? -1 : 1) : 0)
  if (strcmp (k, "ptr") == 0 || strcmp (k, "page") == 0)
    return by_ptr ? DESC (a->ptr, b->ptr) : -strcmp (a->key, b->key);
  if (strcmp (k, "callsite") == 0)
    return by_ptr ? -g_strcmp0 (a->site, b->site) : -strcmp (a->key, b->key);
  if (strcmp (k, "bytes") == 0)
    return DESC (a->bytes_alloc, b->bytes_alloc);
  if (strcmp (k, "hit") == 0)
    return DESC (a->hit, b->hit);
  if (strcmp (k, "pingpong") == 0)
    return DESC (a->pingpong, b->pingpong);
  if (strcmp (k, "frag") == 0)
    return DESC (frag (a), frag (b));
  if (strcmp (k, "order") == 0)
    return DESC (a->order, b->order);
  if (strcmp (k, "migtype") == 0)
    return DESC (a->migratetype, b->migratetype);
  if (strcmp (k, "gfp") == 0)
    return DESC (a->gfp_id, b->gfp_id);
  return 0;
#undef DESC
}

static gint
cmp_stats (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const SortCtx *c = data;
  const KStat *a = *(const KStat *const *) pa, *b = *(const KStat *const *) pb;
  for (guint i = 0; i < c->keys->len; i++)
    {
      gint r = cmp_key (a, b, g_ptr_array_index (c->keys, i), c->by_ptr);
      if (r)
        return r;
    }
  return strcmp (a->key, b->key);       /* a total order: same bytes every run */
}

static GPtrArray *
sorted (GHashTable *h, const char *sort, gboolean by_ptr)
{
  GPtrArray *v = g_ptr_array_new ();
  GHashTableIter it;
  gpointer k, val;
  g_hash_table_iter_init (&it, h);
  while (g_hash_table_iter_next (&it, &k, &val))
    g_ptr_array_add (v, val);
  SortCtx c = { g_ptr_array_new_with_free_func (g_free), by_ptr };
  g_auto (GStrv) parts = g_strsplit (sort, ",", -1);
  for (guint i = 0; parts[i]; i++)
    g_ptr_array_add (c.keys, g_strdup (g_strstrip (parts[i])));
  g_ptr_array_sort_with_data (v, cmp_stats, &c);
  g_ptr_array_unref (c.keys);
  return v;
}

static const char dots[] =
  "----------------------------------------------------------------------------------------------------"
  "----------------------------------------------------------------------------------------------------";

static void
slab_table (GString *o, GHashTable *h, const char *sort, gint lines, gboolean is_caller)
{
  g_autoptr (GPtrArray) v = sorted (h, sort, !is_caller);
  g_string_append_printf (o, "%.105s\n", dots);
  g_string_append_printf (o, " %-34s |", is_caller ? "Callsite" : "Alloc Ptr");
  g_string_append (o, " Total_alloc/Per | Total_req/Per   | Hit      | Ping-pong | Frag\n");
  g_string_append_printf (o, "%.105s\n", dots);
  guint n = lines < 0 ? v->len : MIN ((guint) lines, v->len);
  for (guint i = 0; i < n; i++)
    {
      const KStat *s = g_ptr_array_index (v, i);
      char fr[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (fr, sizeof fr, "%6.3f", frag (s));
      g_string_append_printf (o, " %-34s | %9" G_GUINT64_FORMAT "/%-5" G_GUINT64_FORMAT " | %9"
                              G_GUINT64_FORMAT "/%-5" G_GUINT64_FORMAT " | %8" G_GUINT64_FORMAT
                              " | %9" G_GUINT64_FORMAT " | %s%%\n", s->key, s->bytes_alloc,
                              s->hit ? s->bytes_alloc / s->hit : 0, s->bytes_req,
                              s->hit ? s->bytes_req / s->hit : 0, s->hit, s->pingpong, fr);
    }
  if (n < v->len)
    g_string_append (o, " ...                                | ...             | ...             "
                        "| ...      | ...       | ...   \n");
  g_string_append_printf (o, "%.105s\n", dots);
}

/* Migrate types as kernels since 4.4 number them (MIGRATE_UNMOVABLE,
 * _MOVABLE, _RECLAIMABLE, _HIGHATOMIC, then CMA/ISOLATE), the kernels
 * that record the traces slabsim reads; perf's own table keeps 2.6's
 * order (reclaimable before movable). */
static const char *const migrate_names[] = { "UNMOVABL", "MOVABLE", "RECLAIM", "HIGHATOM",
                                             "CMA/ISLT" };

static const char *
migrate_name (gint m)
{
  return m >= 0 && m < (gint) G_N_ELEMENTS (migrate_names) ? migrate_names[m] : "UNKNOWN";
}

static void
page_table (GString *o, GHashTable *h, const char *sort, gint lines, gboolean is_caller,
            const SimTraceStrings *st)
{
  g_autoptr (GPtrArray) v = sorted (h, sort, !is_caller);
  g_string_append_printf (o, "%.105s\n", dots);
  if (is_caller)
    g_string_append (o, " Total alloc (KB) | Hits      | Order | Mig.type | GFP flags | Callsite\n");
  else
    g_string_append (o, " PFN              | Total alloc (KB) | Hits     | Order | Mig.type | GFP flags | Callsite\n");
  g_string_append_printf (o, "%.105s\n", dots);
  guint n = lines < 0 ? v->len : MIN ((guint) lines, v->len);
  for (guint i = 0; i < n; i++)
    {
      const KStat *s = g_ptr_array_index (v, i);
      const char *gfp = s->gfp_id ? sim_trace_strings_get (st, s->gfp_id) : "";
      if (is_caller)
        g_string_append_printf (o, " %16" G_GUINT64_FORMAT " | %9" G_GUINT64_FORMAT " | %5d | %8s | %-9s | %s\n",
                                s->bytes_alloc / 1024, s->hit, s->order, migrate_name (s->migratetype),
                                gfp, s->site ? s->site : "-");
      else
        g_string_append_printf (o, " %16" G_GUINT64_FORMAT " | %16" G_GUINT64_FORMAT " | %8" G_GUINT64_FORMAT
                                " | %5d | %8s | %-9s | %s\n", s->ptr, s->bytes_alloc / 1024, s->hit,
                                s->order, migrate_name (s->migratetype), gfp,
                                s->site ? s->site : "-");
    }
  if (n < v->len)
    g_string_append (o, " ...              | ...              | ...       | ...   | ...      | ...       | ...\n");
  g_string_append_printf (o, "%.105s\n", dots);
}

static gboolean
is_alloc (SimTraceKind k)
{
  return k == SIM_TRACE_KMALLOC || k == SIM_TRACE_KMALLOC_NODE || k == SIM_TRACE_CACHE_ALLOC
         || k == SIM_TRACE_CACHE_ALLOC_NODE;
}

static gboolean
is_page_free (SimTraceKind k)
{
  return k == SIM_TRACE_PAGE_FREE || k == SIM_TRACE_PAGE_FREE_BATCHED
         || k == SIM_TRACE_PAGE_FREE_DIRECT || k == SIM_TRACE_PAGEVEC_FREE;
}

char *
sim_kmem_stat_text (const char *path, const SimKmemStatOptions *o, GError **error)
{
  SimTraceStreamOptions so = { .lenient = o->lenient };
  g_autoptr (SimTraceStream) st = sim_trace_stream_open (path, &so, error);
  if (st == NULL)
    return NULL;
  const char *sort = o->sort ? o->sort : o->page ? "bytes,hit" : "frag,hit,bytes";
  GHashTable *callers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) kstat_free);
  GHashTable *ptrs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) kstat_free);
  guint64 req = 0, alloc = 0, freed = 0, nr_allocs = 0, nr_cross = 0;
  guint64 pg_alloc = 0, pg_alloc_pages = 0, pg_free = 0, pg_free_pages = 0, pg_fail = 0;
  guint64 pg_live = 0, pg_alloc_freed = 0, pg_free_only = 0;
  guint64 order_mig[11][5] = { { 0 } };
  /* --page: which PFNs are allocated now (alloc+freed vs alloc-only). */
  GHashTable *live_pfn = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  const SimTraceEvent *evs;
  guint n;
  GError *local = NULL;
  while (sim_trace_stream_next (st, &evs, &n, &local))
    for (guint i = 0; i < n; i++)
      {
        const SimTraceEvent *ev = &evs[i];
        const SimTraceStrings *strs = sim_trace_stream_strings (st);
        char pbuf[32];
        if (!o->page && is_alloc (ev->kind))
          {
            if (ev->ptr == 0)
              continue;             /* a failed allocation: perf counts nothing */
            g_autofree char *site = site_name (strs, ev);
            KStat *c = lookup (callers, site);
            g_snprintf (pbuf, sizeof pbuf, "%#" G_GINT64_MODIFIER "x", ev->ptr);
            KStat *p = lookup (ptrs, pbuf);
            p->ptr = ev->ptr;
            for (KStat *s = c; s; s = s == c ? p : NULL)
              {
                s->bytes_alloc += ev->bytes_alloc;
                s->bytes_req += ev->bytes_req;
                s->hit++;
              }
            p->alloc_cpu = ev->cpu;
            g_free (p->site);
            p->site = g_strdup (site);
            req += ev->bytes_req;
            alloc += ev->bytes_alloc;
            nr_allocs++;
          }
        else if (!o->page && (ev->kind == SIM_TRACE_KFREE || ev->kind == SIM_TRACE_CACHE_FREE))
          {
            if (ev->ptr == 0)
              continue;
            g_snprintf (pbuf, sizeof pbuf, "%#" G_GINT64_MODIFIER "x", ev->ptr);
            KStat *p = g_hash_table_lookup (ptrs, pbuf);
            if (p == NULL || p->alloc_cpu < 0)
              continue;             /* allocated before the recording */
            freed += p->hit ? p->bytes_alloc / p->hit : 0;
            if (ev->cpu != p->alloc_cpu)
              {
                p->pingpong++;
                nr_cross++;
                KStat *c = p->site ? g_hash_table_lookup (callers, p->site) : NULL;
                if (c)
                  c->pingpong++;
              }
            p->alloc_cpu = -1;
          }
        else if (o->page && ev->kind == SIM_TRACE_PAGE_ALLOC)
          {
            gint order = ev->order >= 0 ? ev->order : 0;
            if (ev->pfn == 0 && ev->ptr == 0)
              {
                pg_fail++;
                continue;
              }
            pg_alloc++;
            pg_alloc_pages += 1ull << order;
            if (order < 11)
              order_mig[order][ev->migratetype >= 0 && ev->migratetype < 5 ? ev->migratetype : 0]++;
            gint64 pfn = (gint64) ev->pfn;
            if (!g_hash_table_contains (live_pfn, &pfn))
              g_hash_table_add (live_pfn, g_memdup2 (&pfn, sizeof pfn));
            pg_live++;
            g_snprintf (pbuf, sizeof pbuf, "%" G_GUINT64_FORMAT, ev->pfn);
            KStat *p = lookup (ptrs, pbuf);
            p->ptr = ev->pfn;
            g_autofree char *site = ev->call_site || ev->call_site_id ? site_name (strs, ev) : g_strdup ("-");
            g_autofree char *ckey = g_strdup_printf ("%s\t%d\t%d\t%u", site, order, ev->migratetype, ev->gfp_id);
            KStat *c = lookup (callers, ckey);
            g_free (c->site);
            c->site = g_strdup (site);
            for (KStat *s = p; s; s = s == p ? c : NULL)
              {
                s->bytes_alloc += 4096ull << order;
                s->hit++;
                s->order = order;
                s->migratetype = ev->migratetype;
                s->gfp_id = ev->gfp_id;
              }
            g_free (p->site);
            p->site = g_strdup (site);
          }
        else if (o->page && is_page_free (ev->kind))
          {
            gint order = ev->order >= 0 ? ev->order : 0;
            pg_free++;
            pg_free_pages += 1ull << order;
            gint64 pfn = (gint64) ev->pfn;
            if (g_hash_table_remove (live_pfn, &pfn))
              pg_alloc_freed++;
            else
              pg_free_only++;
          }
      }
  g_hash_table_destroy (live_pfn);
  if (local)
    {
      g_propagate_error (error, local);
      g_hash_table_destroy (callers);
      g_hash_table_destroy (ptrs);
      return NULL;
    }
  GString *out = g_string_new (NULL);
  if (!o->page)
    {
      if (o->caller)
        slab_table (out, callers, sort, o->lines, TRUE);
      if (o->alloc)
        slab_table (out, ptrs, sort, o->lines, FALSE);
      char fr[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (fr, sizeof fr, "%f", alloc ? 100.0 * (double) (alloc - req) / (double) alloc : 0.0);
      g_string_append_printf (out, "\nSUMMARY (SLAB allocator)\n========================\n"
                              "Total bytes requested: %" G_GUINT64_FORMAT "\n"
                              "Total bytes allocated: %" G_GUINT64_FORMAT "\n"
                              "Total bytes freed:     %" G_GUINT64_FORMAT "\n"
                              "Net total bytes allocated: %" G_GINT64_FORMAT "\n"
                              "Total bytes wasted on internal fragmentation: %" G_GUINT64_FORMAT "\n"
                              "Internal fragmentation: %s%%\n"
                              "Cross CPU allocations: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "\n",
                              req, alloc, freed, (gint64) (alloc - freed), alloc - req, fr,
                              nr_cross, nr_allocs);
    }
  else
    {
      if (o->caller)
        page_table (out, callers, sort, o->lines, TRUE, sim_trace_stream_strings (st));
      if (o->alloc)
        page_table (out, ptrs, sort, o->lines, FALSE, sim_trace_stream_strings (st));
      g_string_append_printf (out, "\nSUMMARY (page allocator)\n========================\n"
                              "%-30s: %16" G_GUINT64_FORMAT "   [ %16" G_GUINT64_FORMAT " KB ]\n"
                              "%-30s: %16" G_GUINT64_FORMAT "   [ %16" G_GUINT64_FORMAT " KB ]\n\n"
                              "%-30s: %16" G_GUINT64_FORMAT "\n"
                              "%-30s: %16" G_GUINT64_FORMAT "\n"
                              "%-30s: %16" G_GUINT64_FORMAT "\n\n"
                              "%-30s: %16" G_GUINT64_FORMAT "\n\n",
                              "Total allocation requests", pg_alloc, pg_alloc_pages * 4,
                              "Total free requests", pg_free, pg_free_pages * 4,
                              "Total alloc+freed requests", pg_alloc_freed,
                              "Total alloc-only requests", pg_alloc - MIN (pg_alloc, pg_alloc_freed),
                              "Total free-only requests", pg_free_only,
                              "Total allocation failures", pg_fail);
      g_string_append (out, "Order     Unmovable       Movable   Reclaimable    HighAtomic  CMA/Isolated\n"
                            "-----  ------------  ------------  ------------  ------------  ------------\n");
      for (guint k = 0; k < 11; k++)
        {
          g_string_append_printf (out, "%5u", k);
          for (guint m = 0; m < 5; m++)
            if (order_mig[k][m])
              g_string_append_printf (out, "  %12" G_GUINT64_FORMAT, order_mig[k][m]);
            else
              g_string_append_printf (out, "  %12s", ".");
          g_string_append_c (out, '\n');
        }
      (void) pg_live;
    }
  g_hash_table_destroy (callers);
  g_hash_table_destroy (ptrs);
  return g_string_free (out, FALSE);
}
