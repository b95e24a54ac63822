/* info.c - `slabsim trace info`: one pass of the reader and the accounting.
 *
 * The JSON keys are stable (docs/traces.md); keys inside objects are in a
 * fixed order, maps (by_event, other_events, caches) are sorted by name.
 * A cache is the event's name= or, when the event has none, the kmalloc size
 * class "kmalloc-N" by bytes_alloc (what perf kmem's per-site table leaves
 * implicit).  frag_pct is perf kmem's 100 - 100 * bytes_req / bytes_alloc.
 */
#include "traces/info.h"

#include "sim/core/json.h"

#include <string.h>

struct _SimTraceInfo {
  SimTraceStream  *stream;    /* a reference: strings, statistics, format, name */
  SimTraceAccount *account;
  guint64          first_ts, last_ts;
  gboolean         have_ts;
  GArray          *cpu_seen;   /* guint8 per CPU number */
  guint            ncpus;
};

#define MAX_CPU_TRACKED (1 << 16)

SimTraceInfo *
sim_trace_info_new (SimTraceStream *stream)
{
  SimTraceInfo *info = g_new0 (SimTraceInfo, 1);
  info->stream = sim_trace_stream_ref (stream);
  info->account = sim_trace_account_new ();
  info->cpu_seen = g_array_new (FALSE, TRUE, 1);
  return info;
}

void
sim_trace_info_add (SimTraceInfo *info, const SimTraceEvent *evs, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      const SimTraceEvent *ev = &evs[i];
      if (i + SIM_ACCOUNT_PREFETCH_AHEAD < n)
        sim_trace_account_prefetch (info->account, evs[i + SIM_ACCOUNT_PREFETCH_AHEAD].ptr);
      if (!info->have_ts)
        info->first_ts = ev->ts_ns, info->have_ts = TRUE;
      info->last_ts = ev->ts_ns;
      if (ev->cpu >= 0 && ev->cpu < MAX_CPU_TRACKED)
        {
          if ((guint) ev->cpu >= info->cpu_seen->len)
            g_array_set_size (info->cpu_seen, ev->cpu + 1);
          guint8 *s = &g_array_index (info->cpu_seen, guint8, ev->cpu);
          if (!*s)
            *s = 1, info->ncpus++;
        }
      sim_trace_account_event (info->account, ev, NULL);
    }
}

SimTraceInfo *
sim_trace_info_collect (const char *path, gboolean lenient, GError **error)
{
  SimTraceStreamOptions so = { .lenient = lenient };
  g_autoptr (SimTraceStream) st = sim_trace_stream_open (path, &so, error);
  if (st == NULL)
    return NULL;
  g_autoptr (SimTraceInfo) info = sim_trace_info_new (st);
  const SimTraceEvent *ev;
  guint n;
  GError *local = NULL;
  while (sim_trace_stream_next (st, &ev, &n, &local))
    sim_trace_info_add (info, ev, n);
  if (local)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  return g_steal_pointer (&info);
}

void
sim_trace_info_free (SimTraceInfo *info)
{
  if (info == NULL)
    return;
  sim_trace_stream_free (info->stream);
  sim_trace_account_free (info->account);
  if (info->cpu_seen)
    g_array_free (info->cpu_seen, TRUE);
  g_free (info);
}

const SimTraceStats *
sim_trace_info_stats (SimTraceInfo *info)
{
  return sim_trace_stream_stats (info->stream);
}

const char *
sim_trace_info_name (SimTraceInfo *info)
{
  return sim_trace_stream_name (info->stream);
}

SimTraceAccount *
sim_trace_info_account (SimTraceInfo *info)
{
  return info->account;
}

typedef struct {
  char *name;
  SimAccountCache c;
} NamedCache;

static gint
cmp_named (gconstpointer a, gconstpointer b)
{
  return strcmp (((const NamedCache *) a)->name, ((const NamedCache *) b)->name);
}

/* Caches by name, entries of the same name merged. */
static GArray *
named_caches (SimTraceInfo *info)
{
  guint n;
  const SimAccountCache *cs = sim_trace_account_caches (info->account, &n);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (NamedCache));
  for (guint i = 0; i < n; i++)
    {
      NamedCache nc = { NULL, cs[i] };
      if (cs[i].key & SIM_ACCOUNT_KEY_SIZE_CLASS)
        nc.name = g_strdup_printf ("kmalloc-%" G_GUINT64_FORMAT,
                                   cs[i].key & ~SIM_ACCOUNT_KEY_SIZE_CLASS);
      else
        nc.name = g_strdup (sim_trace_strings_get (sim_trace_stream_strings (info->stream),
                                                      (guint32) cs[i].key));
      g_array_append_val (out, nc);
    }
  g_array_sort (out, cmp_named);
  guint w = 0;
  for (guint i = 0; i < out->len; i++)
    {
      NamedCache *a = &g_array_index (out, NamedCache, i);
      if (w > 0 && strcmp (g_array_index (out, NamedCache, w - 1).name, a->name) == 0)
        {
          SimAccountCache *d = &g_array_index (out, NamedCache, w - 1).c;
          d->allocs += a->c.allocs;
          d->frees += a->c.frees;
          d->bytes_req += a->c.bytes_req;
          d->bytes_alloc += a->c.bytes_alloc;
          d->cross_cpu_frees += a->c.cross_cpu_frees;
          d->implicit_frees += a->c.implicit_frees;
          g_free (a->name);
        }
      else
        g_array_index (out, NamedCache, w++) = *a;
    }
  g_array_set_size (out, w);
  return out;
}

static void
free_named (GArray *a)
{
  for (guint i = 0; i < a->len; i++)
    g_free (g_array_index (a, NamedCache, i).name);
  g_array_free (a, TRUE);
}

static double
frag_pct (guint64 req, guint64 alloc)
{
  return alloc ? 100.0 - 100.0 * (double) req / (double) alloc : 0.0;
}

/* Event kinds in name order. */
static void
kinds_by_name (int order[SIM_TRACE_N_KINDS])
{
  for (int i = 0; i < SIM_TRACE_N_KINDS; i++)
    order[i] = i;
  for (int i = 1; i < SIM_TRACE_N_KINDS; i++)
    for (int j = i; j > 0 && strcmp (sim_trace_kind_name (order[j - 1]),
                                     sim_trace_kind_name (order[j])) > 0; j--)
      {
        int t = order[j];
        order[j] = order[j - 1];
        order[j - 1] = t;
      }
}

void
sim_trace_info_write_json (SimTraceInfo *info, SimJson *jp)
{
  const SimTraceStats *s = sim_trace_stream_stats (info->stream);
  const SimAccountCounts *c = sim_trace_account_counts (info->account);
#define j (*jp)
  sim_json_begin_object (&j);
  sim_json_key (&j, "format");
  sim_json_string (&j, sim_trace_format_name (sim_trace_stream_format (info->stream)));
  sim_json_key (&j, "events");
  sim_json_uint (&j, s->events);
  sim_json_key (&j, "by_event");
  sim_json_begin_object (&j);
  int order[SIM_TRACE_N_KINDS];
  kinds_by_name (order);
  for (int i = 0; i < SIM_TRACE_N_KINDS; i++)
    if (s->by_kind[order[i]])
      {
        sim_json_key (&j, sim_trace_kind_name (order[i]));
        sim_json_uint (&j, s->by_kind[order[i]]);
      }
  sim_json_end_object (&j);
#define COUNTER(name) sim_json_key (&j, #name); sim_json_uint (&j, c->name);
  SIM_ACCOUNT_COUNTERS (COUNTER)
#undef COUNTER
  sim_json_key (&j, "bytes_req");
  sim_json_uint (&j, c->bytes_req);
  sim_json_key (&j, "bytes_alloc");
  sim_json_uint (&j, c->bytes_alloc);
  sim_json_key (&j, "bytes_freed");
  sim_json_uint (&j, c->bytes_freed);
  sim_json_key (&j, "frag_pct");
  sim_json_double (&j, frag_pct (c->bytes_req, c->bytes_alloc), 3);
  sim_json_key (&j, "lost_events");
  sim_json_uint (&j, s->lost_events);
  sim_json_key (&j, "lost_markers");
  sim_json_uint (&j, s->lost_markers);
  sim_json_key (&j, "skipped_lines");
  sim_json_uint (&j, s->skipped_lines);
  sim_json_key (&j, "malformed_lines");
  sim_json_uint (&j, s->malformed_lines);
  sim_json_key (&j, "other_events");
  sim_json_begin_object (&j);
  {
    g_autoptr (GPtrArray) names = sim_trace_stats_other_names (s);
    for (guint i = 0; i < names->len; i++)
      {
        const char *name = g_ptr_array_index (names, i);
        sim_json_key (&j, name);
        sim_json_uint (&j, *(guint64 *) g_hash_table_lookup (s->other_events, name));
      }
  }
  sim_json_end_object (&j);
  sim_json_key (&j, "cpus");
  sim_json_uint (&j, info->ncpus);
  sim_json_key (&j, "first_ts");
  sim_json_uint (&j, info->first_ts);
  sim_json_key (&j, "last_ts");
  sim_json_uint (&j, info->last_ts);
  sim_json_key (&j, "hashed_pointers");
  sim_json_bool (&j, sim_trace_stats_hashed (s));
  sim_json_key (&j, "caches");
  sim_json_begin_object (&j);
  GArray *caches = named_caches (info);
  for (guint i = 0; i < caches->len; i++)
    {
      NamedCache *nc = &g_array_index (caches, NamedCache, i);
      sim_json_key (&j, nc->name);
      sim_json_begin_object (&j);
      sim_json_key (&j, "allocs");
      sim_json_uint (&j, nc->c.allocs);
      sim_json_key (&j, "frees");
      sim_json_uint (&j, nc->c.frees);
      sim_json_key (&j, "bytes_req");
      sim_json_uint (&j, nc->c.bytes_req);
      sim_json_key (&j, "bytes_alloc");
      sim_json_uint (&j, nc->c.bytes_alloc);
      sim_json_key (&j, "frag_pct");
      sim_json_double (&j, frag_pct (nc->c.bytes_req, nc->c.bytes_alloc), 3);
      sim_json_key (&j, "cross_cpu_frees");
      sim_json_uint (&j, nc->c.cross_cpu_frees);
      sim_json_key (&j, "implicit_frees");
      sim_json_uint (&j, nc->c.implicit_frees);
      sim_json_end_object (&j);
    }
  free_named (caches);
  sim_json_end_object (&j);
  sim_json_end_object (&j);
#undef j
}

char *
sim_trace_info_json (SimTraceInfo *info)
{
  GString *out = g_string_new (NULL);
  SimJson j;
  sim_json_init (&j, out);
  sim_trace_info_write_json (info, &j);
  return g_string_free (out, FALSE);
}

static char *
fmt_ts (guint64 ns)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT,
                          ns / 1000000000u, (ns % 1000000000u) / 1000u);
}

char *
sim_trace_info_text (SimTraceInfo *info)
{
  const SimTraceStats *s = sim_trace_stream_stats (info->stream);
  const SimAccountCounts *c = sim_trace_account_counts (info->account);
  GString *o = g_string_new (NULL);
  char fb[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *t0 = fmt_ts (info->first_ts), *t1 = fmt_ts (info->last_ts);

  g_string_append_printf (o, "Trace: %s (%s)\n", sim_trace_stream_name (info->stream),
                          sim_trace_format_name (sim_trace_stream_format (info->stream)));
  g_string_append_printf (o, "Events: %" G_GUINT64_FORMAT " on %u CPUs, %s .. %s\n",
                          s->events, info->ncpus, t0, t1);
  int order[SIM_TRACE_N_KINDS];
  kinds_by_name (order);
  for (int i = 0; i < SIM_TRACE_N_KINDS; i++)
    if (s->by_kind[order[i]])
      g_string_append_printf (o, "  %-28s %12" G_GUINT64_FORMAT "\n",
                              sim_trace_kind_name (order[i]), s->by_kind[order[i]]);
  g_string_append_printf (o, "Skipped lines: %" G_GUINT64_FORMAT ", malformed lines: %"
                          G_GUINT64_FORMAT ", lost events: %" G_GUINT64_FORMAT
                          " (%" G_GUINT64_FORMAT " markers)\n",
                          s->skipped_lines, s->malformed_lines, s->lost_events, s->lost_markers);
  if (sim_trace_stats_hashed (s))
    g_string_append (o, "Pointers: hashed (hash-ptr): allocs and frees pair, address locality is lost\n");

  g_string_append (o, "\nSUMMARY (SLAB allocator)\n========================\n");
  g_string_append_printf (o, "Total bytes requested: %" G_GUINT64_FORMAT "\n", c->bytes_req);
  g_string_append_printf (o, "Total bytes allocated: %" G_GUINT64_FORMAT "\n", c->bytes_alloc);
  g_string_append_printf (o, "Total bytes freed:     %" G_GUINT64_FORMAT "\n", c->bytes_freed);
  g_string_append_printf (o, "Net total bytes allocated: %" G_GINT64_FORMAT "\n",
                          (gint64) (c->bytes_alloc - c->bytes_freed));
  g_string_append_printf (o, "Total bytes wasted on internal fragmentation: %" G_GUINT64_FORMAT "\n",
                          c->bytes_alloc - c->bytes_req);
  g_string_append_printf (o, "Internal fragmentation: %s%%\n",
                          g_ascii_formatd (fb, sizeof fb, "%.6f", frag_pct (c->bytes_req, c->bytes_alloc)));
  g_string_append_printf (o, "Cross CPU allocations: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "\n",
                          c->cross_cpu_frees, c->allocs);

  g_string_append (o, "\nAllocs and frees\n================\n");
#define ROW(name) g_string_append_printf (o, "  %-16s %12" G_GUINT64_FORMAT "\n", #name, c->name);
  SIM_ACCOUNT_COUNTERS (ROW)
#undef ROW

  g_string_append (o, "\n");
  g_string_append_printf (o, " %-28s %10s %10s %14s %14s %8s %10s\n", "Cache", "Allocs", "Frees",
                          "Total_req", "Total_alloc", "Frag", "Ping-pong");
  for (int i = 0; i < 102; i++)
    g_string_append_c (o, '-');
  g_string_append_c (o, '\n');
  GArray *caches = named_caches (info);
  for (guint i = 0; i < caches->len; i++)
    {
      NamedCache *nc = &g_array_index (caches, NamedCache, i);
      g_string_append_printf (o, " %-28s %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT
                              " %14" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT " %7s%% %10"
                              G_GUINT64_FORMAT "\n", nc->name, nc->c.allocs, nc->c.frees,
                              nc->c.bytes_req, nc->c.bytes_alloc,
                              g_ascii_formatd (fb, sizeof fb, "%.3f",
                                               frag_pct (nc->c.bytes_req, nc->c.bytes_alloc)),
                              nc->c.cross_cpu_frees);
    }
  free_named (caches);
  return g_string_free (o, FALSE);
}
