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
#include "sim/core/json.h"

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

/* How many rows of @v a table shows: its first @lines (-1: all). */
static guint
rows_shown (const GPtrArray *v, gint lines)
{
  return lines < 0 ? v->len : MIN ((guint) lines, v->len);
}

static void
slab_table (GString *o, GHashTable *h, const char *sort, gint lines, gboolean is_caller)
{
  g_autoptr (GPtrArray) v = sorted (h, sort, !is_caller);
  g_string_append_printf (o, "%.105s\n", dots);
  g_string_append_printf (o, " %-34s |", is_caller ? "Callsite" : "Alloc Ptr");
  g_string_append (o, " Total_alloc/Per | Total_req/Per   | Hit      | Ping-pong | Frag\n");
  g_string_append_printf (o, "%.105s\n", dots);
  guint n = rows_shown (v, lines);
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
  guint n = rows_shown (v, lines);
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

/* Everything the tables and the summaries are drawn from: one pass over
 * the trace, then text or JSON from the same numbers. */
typedef struct {
  SimTraceStream *st;        /* kept for the gfp strings */
  GHashTable *callers, *ptrs;
  guint64 req, alloc, freed, nr_allocs, nr_cross;
  guint64 pg_alloc, pg_alloc_pages, pg_free, pg_free_pages, pg_fail;
  guint64 pg_alloc_freed, pg_free_only;
  guint64 order_mig[11][5];
} KmemStat;

static void
kmem_stat_free (KmemStat *k)
{
  if (k == NULL)
    return;
  if (k->callers)
    g_hash_table_destroy (k->callers);
  if (k->ptrs)
    g_hash_table_destroy (k->ptrs);
  if (k->st)
    sim_trace_stream_free (k->st);
  g_free (k);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KmemStat, kmem_stat_free)

static KmemStat *
collect (const char *path, const SimKmemStatOptions *o, GError **error)
{
  SimTraceStreamOptions so = { .lenient = o->lenient };
  g_autoptr (KmemStat) k = g_new0 (KmemStat, 1);
  k->st = sim_trace_stream_open (path, &so, error);
  if (k->st == NULL)
    return NULL;
  SimTraceStream *st = k->st;
  k->callers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) kstat_free);
  k->ptrs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) kstat_free);
  GHashTable *callers = k->callers, *ptrs = k->ptrs;
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
            k->req += ev->bytes_req;
            k->alloc += ev->bytes_alloc;
            k->nr_allocs++;
          }
        else if (!o->page && (ev->kind == SIM_TRACE_KFREE || ev->kind == SIM_TRACE_CACHE_FREE))
          {
            if (ev->ptr == 0)
              continue;
            g_snprintf (pbuf, sizeof pbuf, "%#" G_GINT64_MODIFIER "x", ev->ptr);
            KStat *p = g_hash_table_lookup (ptrs, pbuf);
            if (p == NULL || p->alloc_cpu < 0)
              continue;             /* allocated before the recording */
            k->freed += p->hit ? p->bytes_alloc / p->hit : 0;
            if (ev->cpu != p->alloc_cpu)
              {
                p->pingpong++;
                k->nr_cross++;
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
                k->pg_fail++;
                continue;
              }
            k->pg_alloc++;
            k->pg_alloc_pages += 1ull << order;
            if (order < 11)
              k->order_mig[order][ev->migratetype >= 0 && ev->migratetype < 5 ? ev->migratetype : 0]++;
            gint64 pfn = (gint64) ev->pfn;
            if (!g_hash_table_contains (live_pfn, &pfn))
              g_hash_table_add (live_pfn, g_memdup2 (&pfn, sizeof pfn));
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
            k->pg_free++;
            k->pg_free_pages += 1ull << order;
            gint64 pfn = (gint64) ev->pfn;
            if (g_hash_table_remove (live_pfn, &pfn))
              k->pg_alloc_freed++;
            else
              k->pg_free_only++;
          }
      }
  g_hash_table_destroy (live_pfn);
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  return g_steal_pointer (&k);
}

/* The summaries' internal fragmentation: the share of the allocated
 * bytes that were not requested, in percent. */
static double
frag_pct (const KmemStat *k)
{
  return k->alloc ? 100.0 * (double) (k->alloc - k->req) / (double) k->alloc : 0.0;
}

/* Page allocations never freed in the trace (perf's alloc-only requests). */
static guint64
alloc_only (const KmemStat *k)
{
  return k->pg_alloc - MIN (k->pg_alloc, k->pg_alloc_freed);
}

static const char *
sort_of (const SimKmemStatOptions *o)
{
  return o->sort ? o->sort : o->page ? "bytes,hit" : "frag,hit,bytes";
}

char *
sim_kmem_stat_text (const char *path, const SimKmemStatOptions *o, GError **error)
{
  g_autoptr (KmemStat) k = collect (path, o, error);
  if (k == NULL)
    return NULL;
  const char *sort = sort_of (o);
  GString *out = g_string_new (NULL);
  if (!o->page)
    {
      if (o->caller)
        slab_table (out, k->callers, sort, o->lines, TRUE);
      if (o->alloc)
        slab_table (out, k->ptrs, sort, o->lines, FALSE);
      char fr[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (fr, sizeof fr, "%f", frag_pct (k));
      g_string_append_printf (out, "\nSUMMARY (SLAB allocator)\n========================\n"
                              "Total bytes requested: %" G_GUINT64_FORMAT "\n"
                              "Total bytes allocated: %" G_GUINT64_FORMAT "\n"
                              "Total bytes freed:     %" G_GUINT64_FORMAT "\n"
                              "Net total bytes allocated: %" G_GINT64_FORMAT "\n"
                              "Total bytes wasted on internal fragmentation: %" G_GUINT64_FORMAT "\n"
                              "Internal fragmentation: %s%%\n"
                              "Cross CPU allocations: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "\n",
                              k->req, k->alloc, k->freed, (gint64) (k->alloc - k->freed),
                              k->alloc - k->req, fr, k->nr_cross, k->nr_allocs);
    }
  else
    {
      if (o->caller)
        page_table (out, k->callers, sort, o->lines, TRUE, sim_trace_stream_strings (k->st));
      if (o->alloc)
        page_table (out, k->ptrs, sort, o->lines, FALSE, sim_trace_stream_strings (k->st));
      g_string_append_printf (out, "\nSUMMARY (page allocator)\n========================\n"
                              "%-30s: %16" G_GUINT64_FORMAT "   [ %16" G_GUINT64_FORMAT " KB ]\n"
                              "%-30s: %16" G_GUINT64_FORMAT "   [ %16" G_GUINT64_FORMAT " KB ]\n\n"
                              "%-30s: %16" G_GUINT64_FORMAT "\n"
                              "%-30s: %16" G_GUINT64_FORMAT "\n"
                              "%-30s: %16" G_GUINT64_FORMAT "\n\n"
                              "%-30s: %16" G_GUINT64_FORMAT "\n\n",
                              "Total allocation requests", k->pg_alloc, k->pg_alloc_pages * 4,
                              "Total free requests", k->pg_free, k->pg_free_pages * 4,
                              "Total alloc+freed requests", k->pg_alloc_freed,
                              "Total alloc-only requests", alloc_only (k),
                              "Total free-only requests", k->pg_free_only,
                              "Total allocation failures", k->pg_fail);
      g_string_append (out, "Order     Unmovable       Movable   Reclaimable    HighAtomic  CMA/Isolated\n"
                            "-----  ------------  ------------  ------------  ------------  ------------\n");
      for (guint o2 = 0; o2 < 11; o2++)
        {
          g_string_append_printf (out, "%5u", o2);
          for (guint m = 0; m < 5; m++)
            if (k->order_mig[o2][m])
              g_string_append_printf (out, "  %12" G_GUINT64_FORMAT, k->order_mig[o2][m]);
            else
              g_string_append_printf (out, "  %12s", ".");
          g_string_append_c (out, '\n');
        }
    }
  return g_string_free (out, FALSE);
}

/* ---- JSON: the same rows and summaries, by name ---------------------- */

/* Migrate types in JSON: the kernel's MIGRATE_* names, lower case. */
static const char *const migrate_keys[] = { "unmovable", "movable", "reclaimable", "highatomic",
                                            "cma_isolate" };

/* A table's row count (all of them) and the opened array of its first
 * @lines rows (-1: all); returns how many rows to write. */
static guint
json_rows_begin (SimJson *j, const GPtrArray *v, gint lines, gboolean is_caller)
{
  sim_json_key (j, is_caller ? "caller_rows" : "alloc_rows");
  sim_json_uint (j, v->len);
  sim_json_key (j, is_caller ? "caller" : "alloc");
  sim_json_begin_array (j);
  return rows_shown (v, lines);
}

static void
json_slab_rows (SimJson *j, GHashTable *h, const char *sort, gint lines, gboolean is_caller)
{
  g_autoptr (GPtrArray) v = sorted (h, sort, !is_caller);
  guint n = json_rows_begin (j, v, lines, is_caller);
  for (guint i = 0; i < n; i++)
    {
      const KStat *s = g_ptr_array_index (v, i);
      sim_json_begin_object (j);
      if (is_caller)
        {
          sim_json_key (j, "callsite");
          sim_json_string (j, s->key);
        }
      else
        {
          sim_json_key (j, "ptr");
          sim_json_string (j, s->key);      /* a string: 64 bits do not fit a double */
          sim_json_key (j, "callsite");
          sim_json_string (j, s->site ? s->site : "");
        }
      sim_json_key (j, "bytes_alloc");
      sim_json_uint (j, s->bytes_alloc);
      sim_json_key (j, "bytes_alloc_per_hit");
      sim_json_uint (j, s->hit ? s->bytes_alloc / s->hit : 0);
      sim_json_key (j, "bytes_req");
      sim_json_uint (j, s->bytes_req);
      sim_json_key (j, "bytes_req_per_hit");
      sim_json_uint (j, s->hit ? s->bytes_req / s->hit : 0);
      sim_json_key (j, "hit");
      sim_json_uint (j, s->hit);
      sim_json_key (j, "pingpong");
      sim_json_uint (j, s->pingpong);
      sim_json_key (j, "frag_pct");
      sim_json_double (j, frag (s), 3);
      sim_json_end_object (j);
    }
  sim_json_end_array (j);
}

static void
json_page_rows (SimJson *j, GHashTable *h, const char *sort, gint lines, gboolean is_caller,
                const SimTraceStrings *st)
{
  g_autoptr (GPtrArray) v = sorted (h, sort, !is_caller);
  guint n = json_rows_begin (j, v, lines, is_caller);
  for (guint i = 0; i < n; i++)
    {
      const KStat *s = g_ptr_array_index (v, i);
      sim_json_begin_object (j);
      if (!is_caller)
        {
          sim_json_key (j, "pfn");
          sim_json_uint (j, s->ptr);
        }
      sim_json_key (j, "bytes_alloc");
      sim_json_uint (j, s->bytes_alloc);
      sim_json_key (j, "hit");
      sim_json_uint (j, s->hit);
      sim_json_key (j, "order");
      sim_json_int (j, s->order);
      sim_json_key (j, "migratetype");
      if (s->migratetype >= 0 && s->migratetype < (gint) G_N_ELEMENTS (migrate_keys))
        sim_json_string (j, migrate_keys[s->migratetype]);
      else
        sim_json_null (j);
      sim_json_key (j, "gfp_flags");
      sim_json_string (j, s->gfp_id ? sim_trace_strings_get (st, s->gfp_id) : "");
      sim_json_key (j, "callsite");
      if (s->site && strcmp (s->site, "-") != 0)
        sim_json_string (j, s->site);
      else
        sim_json_null (j);
      sim_json_end_object (j);
    }
  sim_json_end_array (j);
}

char *
sim_kmem_stat_json (const char *path, const SimKmemStatOptions *o, GError **error)
{
  g_autoptr (KmemStat) k = collect (path, o, error);
  if (k == NULL)
    return NULL;
  const char *sort = sort_of (o);
  GString *out = g_string_new (NULL);
  SimJson j;
  sim_json_init (&j, out);
  sim_json_begin_object (&j);
  sim_json_key (&j, "view");
  sim_json_string (&j, o->page ? "perf-kmem-page" : "perf-kmem");
  sim_json_key (&j, "sort");
  sim_json_begin_array (&j);
  {
    g_auto (GStrv) parts = g_strsplit (sort, ",", -1);
    for (guint i = 0; parts[i]; i++)
      sim_json_string (&j, g_strstrip (parts[i]));
  }
  sim_json_end_array (&j);
  sim_json_key (&j, "lines");
  if (o->lines < 0)
    sim_json_null (&j);
  else
    sim_json_uint (&j, (guint64) o->lines);
  if (!o->page)
    {
      if (o->caller)
        json_slab_rows (&j, k->callers, sort, o->lines, TRUE);
      if (o->alloc)
        json_slab_rows (&j, k->ptrs, sort, o->lines, FALSE);
      sim_json_key (&j, "summary");
      sim_json_begin_object (&j);
      sim_json_key (&j, "bytes_req");
      sim_json_uint (&j, k->req);
      sim_json_key (&j, "bytes_alloc");
      sim_json_uint (&j, k->alloc);
      sim_json_key (&j, "bytes_freed");
      sim_json_uint (&j, k->freed);
      sim_json_key (&j, "net_bytes_alloc");
      sim_json_int (&j, (gint64) (k->alloc - k->freed));
      sim_json_key (&j, "bytes_wasted");
      sim_json_uint (&j, k->alloc - k->req);
      sim_json_key (&j, "frag_pct");
      sim_json_double (&j, frag_pct (k), 6);
      sim_json_key (&j, "cross_cpu_allocs");
      sim_json_uint (&j, k->nr_cross);
      sim_json_key (&j, "allocs");
      sim_json_uint (&j, k->nr_allocs);
      sim_json_end_object (&j);
    }
  else
    {
      const SimTraceStrings *strs = sim_trace_stream_strings (k->st);
      if (o->caller)
        json_page_rows (&j, k->callers, sort, o->lines, TRUE, strs);
      if (o->alloc)
        json_page_rows (&j, k->ptrs, sort, o->lines, FALSE, strs);
      sim_json_key (&j, "summary");
      sim_json_begin_object (&j);
      sim_json_key (&j, "alloc_requests");
      sim_json_uint (&j, k->pg_alloc);
      sim_json_key (&j, "alloc_kb");
      sim_json_uint (&j, k->pg_alloc_pages * 4);
      sim_json_key (&j, "free_requests");
      sim_json_uint (&j, k->pg_free);
      sim_json_key (&j, "free_kb");
      sim_json_uint (&j, k->pg_free_pages * 4);
      sim_json_key (&j, "alloc_freed_requests");
      sim_json_uint (&j, k->pg_alloc_freed);
      sim_json_key (&j, "alloc_only_requests");
      sim_json_uint (&j, alloc_only (k));
      sim_json_key (&j, "free_only_requests");
      sim_json_uint (&j, k->pg_free_only);
      sim_json_key (&j, "alloc_failures");
      sim_json_uint (&j, k->pg_fail);
      sim_json_end_object (&j);
      /* The order by migrate-type table: one object per order, every type. */
      sim_json_key (&j, "orders");
      sim_json_begin_array (&j);
      for (guint o2 = 0; o2 < 11; o2++)
        {
          sim_json_begin_object (&j);
          sim_json_key (&j, "order");
          sim_json_uint (&j, o2);
          for (guint m = 0; m < 5; m++)
            {
              sim_json_key (&j, migrate_keys[m]);
              sim_json_uint (&j, k->order_mig[o2][m]);
            }
          sim_json_end_object (&j);
        }
      sim_json_end_array (&j);
    }
  sim_json_end_object (&j);
  g_string_append_c (out, '\n');
  return g_string_free (out, FALSE);
}
