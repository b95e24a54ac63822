/* run-report.c - text and JSON output of "slabsim run"; see run-report.h. */
#include "sim/report/run-report.h"
#include "sim/core/json.h"
#include "sim/core/digest.h"
#include "slabsim-config.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* Derived numbers, computed once for both renderers                   */

static guint64
level_accesses (const SimLevelStats *l)
{
  return l->accesses[SIM_ACC_READ] + l->accesses[SIM_ACC_WRITE] + l->accesses[SIM_ACC_RMW];
}

static guint64
level_misses (const SimLevelStats *l)
{
  return l->misses[SIM_ACC_READ] + l->misses[SIM_ACC_WRITE] + l->misses[SIM_ACC_RMW];
}

static guint64
pct_int (guint64 part, guint64 whole)
{
  /* slabinfo's %Fast: integer division, 0 for an empty denominator. */
  return whole ? part * 100 / whole : 0;
}

static double
mean (guint64 total, guint64 count)
{
  return count ? (double) total / (double) count : 0.0;
}

static char *
lower (const char *s)
{
  return g_ascii_strdown (s, -1);
}

/* Caches in slabinfo -A order: most active first (alloc + free), then by
 * name so ties are stable. */
static gint
cmp_activity (gconstpointer a, gconstpointer b)
{
  const SimAllocCacheRow *x = *(const SimAllocCacheRow *const *) a;
  const SimAllocCacheRow *y = *(const SimAllocCacheRow *const *) b;
  guint64 ax = x->alloc + x->free, ay = y->alloc + y->free;
  if (ax != ay)
    return ax > ay ? -1 : 1;
  return strcmp (x->name, y->name);
}

static GPtrArray *
active_rows (const SimReplayResult *res)
{
  GPtrArray *rows = g_ptr_array_new ();
  for (guint i = 0; i < res->alloc.rows->len; i++)
    {
      SimAllocCacheRow *row = &g_array_index (res->alloc.rows, SimAllocCacheRow, i);
      if (row->alloc + row->free > 0)
        g_ptr_array_add (rows, row);
    }
  g_ptr_array_sort (rows, cmp_activity);
  return rows;
}

static guint64
total_bytes (const SimReplayResult *res)
{
  guint64 b = res->alloc.large_pages * 4096;
  for (guint i = 0; i < res->alloc.rows->len; i++)
    b += g_array_index (res->alloc.rows, SimAllocCacheRow, i).bytes;
  return b;
}

/* The metrics of the side-by-side comparison, in one table so the text
 * and the order cannot drift. */
typedef struct {
  const char *name;
  double (*get) (const SimReplayResult *r);
  int decimals;
} Metric;

static double m_alloc_mean (const SimReplayResult *r) { return mean (r->alloc_cycles.total, r->alloc_cycles.count); }
static double m_free_mean (const SimReplayResult *r) { return mean (r->free_cycles.total, r->free_cycles.count); }
static double m_alloc_p99 (const SimReplayResult *r) { return (double) sim_cycle_hist_percentile (&r->alloc_cycles, 99); }
static double m_free_p99 (const SimReplayResult *r) { return (double) sim_cycle_hist_percentile (&r->free_cycles, 99); }
static double m_op_cycles (const SimReplayResult *r) { return (double) (r->alloc_cycles.total + r->free_cycles.total); }
static double m_l1_miss (const SimReplayResult *r) { return (double) level_misses (&r->mem.level[0]); }
static double m_l1_acc (const SimReplayResult *r) { return (double) level_accesses (&r->mem.level[0]); }
static double m_hitm (const SimReplayResult *r) { return (double) r->mem.hitm; }
static double m_lock_wait (const SimReplayResult *r) { return (double) r->lock_wait_cycles; }
static double m_sim_cycles (const SimReplayResult *r) { return (double) r->sim_cycles; }
static double m_page_allocs (const SimReplayResult *r) { return (double) r->pages.alloc; }
static double m_zone_lock (const SimReplayResult *r) { return (double) r->pages.zone_lock_acquisitions; }
static double m_footprint_kb (const SimReplayResult *r) { return (double) total_bytes (r) / 1024.0; }

/* Share of the allocations (@frees: of the frees) of every cache that
 * took the fast path, in percent. */
static double
fastpath_pct (const SimReplayResult *r, gboolean frees)
{
  guint64 a = 0, f = 0;
  for (guint i = 0; i < r->alloc.rows->len; i++)
    {
      const SimAllocCacheRow *row = &g_array_index (r->alloc.rows, SimAllocCacheRow, i);
      a += frees ? row->free : row->alloc;
      f += frees ? row->free_fast : row->alloc_fast;
    }
  return a ? 100.0 * (double) f / (double) a : 0.0;
}

static double m_fast_alloc (const SimReplayResult *r) { return fastpath_pct (r, FALSE); }
static double m_fast_free (const SimReplayResult *r) { return fastpath_pct (r, TRUE); }

static const Metric metrics[] = {
  { "alloc cycles/op",        m_alloc_mean,   1 },
  { "free cycles/op",         m_free_mean,    1 },
  { "alloc cycles p99",       m_alloc_p99,    0 },
  { "free cycles p99",        m_free_p99,     0 },
  { "allocator cycles",       m_op_cycles,    0 },
  { "alloc fastpath %",       m_fast_alloc,   1 },
  { "free fastpath %",        m_fast_free,    1 },
  { "L1d accesses",           m_l1_acc,       0 },
  { "L1d misses",             m_l1_miss,      0 },
  { "HITM transfers",         m_hitm,         0 },
  { "lock wait cycles",       m_lock_wait,    0 },
  { "page allocations",       m_page_allocs,  0 },
  { "zone lock acquisitions", m_zone_lock,    0 },
  { "slab memory KiB",        m_footprint_kb, 0 },
  { "simulated cycles",       m_sim_cycles,   0 },
};

/* ------------------------------------------------------------------ */
/* Text                                                                */

/* Whether the statistics counters cost simulated time in this run. */
static void
text_counters (GString *o, const SimAllocReport *a)
{
  if (a->stats_param == NULL)
    return;
  if (a->stats_config == NULL)
    g_string_append_printf (o, "Counters: counted, not charged (this era has no statistics option)\n");
  else
    g_string_append_printf (o, "Counters (%s): counted, %s (%s=%d)\n", a->stats_config,
                            a->stats_charged ? "charged" : "not charged", a->stats_param,
                            a->stats_charged ? 1 : 0);
}

/* /sys/kernel/slab/CACHE/COUNTER, the non-zero ones, per cache. */
static void
text_cache_stats (GString *o, const SimAllocReport *a)
{
  g_string_append (o, "Counters by cache (/sys/kernel/slab/CACHE/, non-zero):\n");
  for (guint i = 0; i < a->rows->len; i++)
    {
      const SimAllocCacheRow *row = &g_array_index (a->rows, SimAllocCacheRow, i);
      GString *l = g_string_new (NULL);
      for (guint s = 0; s < row->n_stats; s++)
        if (row->stats[s])
          g_string_append_printf (l, " %s=%" G_GUINT64_FORMAT, row->stat_names[s], row->stats[s]);
      if (l->len)
        g_string_append_printf (o, "  %s:%s\n", row->name, l->str);
      g_string_free (l, TRUE);
    }
}

static void
text_one (GString *o, const SimRunReport *r, const SimReplayResult *res)
{
  g_string_append_printf (o, "\n== %s@%s (%s)\n\n", res->allocator, res->kernel, res->params);
  g_string_append_printf (o, "%-21s %8s %10s %10s %-7s %5s %1s\n",
                          "Name", "Objects", "Alloc", "Free", "%Fast", "Fallb", "O");
  GPtrArray *rows = active_rows (res);
  for (guint i = 0; i < rows->len; i++)
    {
      const SimAllocCacheRow *row = g_ptr_array_index (rows, i);
      g_string_append_printf (o, "%-21s %8" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %10"
                              G_GUINT64_FORMAT " %3" G_GUINT64_FORMAT " %3" G_GUINT64_FORMAT
                              " %5" G_GUINT64_FORMAT " %1u\n",
                              row->name, row->objects, row->alloc, row->free,
                              pct_int (row->alloc_fast, row->alloc),
                              pct_int (row->free_fast, row->free), row->order_fallback,
                              row->order);
    }
  /* A merged cache's id says nothing to a reader of the trace: name every
   * cache it serves, the tracepoints' name first. */
  gboolean any = FALSE;
  for (guint i = 0; i < rows->len; i++)
    {
      const SimAllocCacheRow *row = g_ptr_array_index (rows, i);
      if (row->aliases == NULL || row->aliases[0] == NULL)
        continue;
      if (!any)
        g_string_append (o, "Merged caches and the names they serve:\n");
      any = TRUE;
      GString *l = g_string_new (NULL);
      g_string_append_printf (l, "  %-21s", row->name);
      for (char **a = row->aliases; *a; a++)
        {
          if (l->len + 1 + strlen (*a) > 99)
            {
              g_string_append_printf (o, "%s\n", l->str);
              g_string_assign (l, "                       ");
            }
          g_string_append_printf (l, " %s", *a);
        }
      g_string_append_printf (o, "%s\n", l->str);
      g_string_free (l, TRUE);
    }
  g_ptr_array_unref (rows);
  text_counters (o, &res->alloc);
  if (res->alloc.stats_in_text)
    text_cache_stats (o, &res->alloc);

  g_string_append_printf (o, "\n%-24s %14s %14s %7s\n", "Memory hierarchy", "accesses", "misses", "miss%");
  for (guint l = 0; l < r->machine->n_levels; l++)
    {
      guint64 a = level_accesses (&res->mem.level[l]), m = level_misses (&res->mem.level[l]);
      g_string_append_printf (o, "  %-22s %14" G_GUINT64_FORMAT " %14" G_GUINT64_FORMAT " %6.2f%%\n",
                              r->machine->levels[l].name, a, m, a ? 100.0 * (double) m / (double) a : 0.0);
    }
  g_string_append_printf (o, "  %-22s %14" G_GUINT64_FORMAT " local, %" G_GUINT64_FORMAT " remote\n",
                          "DRAM", res->mem.dram_local, res->mem.dram_remote);
  g_string_append_printf (o, "  %-22s %" G_GUINT64_FORMAT " invalidations, %" G_GUINT64_FORMAT
                          " HITM, %" G_GUINT64_FORMAT " cross-socket\n", "coherence",
                          res->mem.invalidations_sent, res->mem.hitm, res->mem.cross_socket);
  g_string_append (o, "  L1d misses by structure:");
  for (guint c = 0; c < SIM_MEM_N_CLASSES; c++)
    if (res->mem.class_misses[c][0])
      g_string_append_printf (o, " %s %" G_GUINT64_FORMAT, sim_mem_class_name (c),
                              res->mem.class_misses[c][0]);
  g_string_append_c (o, '\n');
  if (res->mem_per_cpu)
    for (guint cpu = 0; cpu < res->n_cpus; cpu++)
      {
        const SimCpuMemStats *cs = &res->mem_per_cpu[cpu];
        if (level_accesses (&cs->level[0]) == 0)
          continue;
        g_string_append_printf (o, "  cpu%-3u L1d %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                                " misses, %" G_GUINT64_FORMAT " HITM\n", cpu,
                                level_misses (&cs->level[0]), level_accesses (&cs->level[0]), cs->hitm);
      }

  g_string_append_printf (o, "\nPage allocator: %" G_GUINT64_FORMAT " allocs, %" G_GUINT64_FORMAT
                          " frees, %" G_GUINT64_FORMAT " pcp hits; zone lock %" G_GUINT64_FORMAT
                          " acquisitions, %" G_GUINT64_FORMAT " cycles waited\n",
                          res->pages.alloc, res->pages.free, res->pages.pcp_hits,
                          res->pages.zone_lock_acquisitions, res->pages.zone_lock_wait_cycles);
  g_string_append_printf (o, "Timing: %" G_GUINT64_FORMAT " allocs at %.1f cycles (p99 %" G_GUINT64_FORMAT
                          "), %" G_GUINT64_FORMAT " frees at %.1f cycles (p99 %" G_GUINT64_FORMAT
                          "); lock waits %" G_GUINT64_FORMAT " cycles; simulated %" G_GUINT64_FORMAT
                          " cycles\n",
                          res->alloc_cycles.count, mean (res->alloc_cycles.total, res->alloc_cycles.count),
                          sim_cycle_hist_percentile (&res->alloc_cycles, 99),
                          res->free_cycles.count, mean (res->free_cycles.total, res->free_cycles.count),
                          sim_cycle_hist_percentile (&res->free_cycles, 99),
                          res->lock_wait_cycles, res->sim_cycles);
  g_string_append_printf (o, "Replay: %" G_GUINT64_FORMAT " allocs, %" G_GUINT64_FORMAT " frees, %"
                          G_GUINT64_FORMAT " implicit frees; skipped %" G_GUINT64_FORMAT
                          " failed allocs, %" G_GUINT64_FORMAT " NULL frees, %" G_GUINT64_FORMAT
                          " unknown frees\n",
                          res->allocs_replayed, res->frees_replayed, res->implicit_frees_replayed,
                          res->skipped_failed_allocs, res->skipped_null_frees,
                          res->skipped_unknown_frees);
  if (res->untraced_by_reuse || res->untraced_by_page_free || res->untraced_by_mm_destroy
      || res->rcu_callbacks || res->rcu_pending)
    g_string_append_printf (o, "Untraced frees (no kmem event; seen by %" G_GUINT64_FORMAT
                            " pointers reused, %" G_GUINT64_FORMAT " in freed slab pages, %"
                            G_GUINT64_FORMAT " in destroyed maple trees): %" G_GUINT64_FORMAT
                            " replayed as kfree at the evidence, %" G_GUINT64_FORMAT
                            " as kfree_rcu (%" G_GUINT64_FORMAT " later freed by the trace: "
                            "wrongly inferred); RCU callbacks %" G_GUINT64_FORMAT " run, %"
                            G_GUINT64_FORMAT " still waiting at the end\n",
                            res->untraced_by_reuse, res->untraced_by_page_free,
                            res->untraced_by_mm_destroy, res->untraced_page_frees,
                            res->untraced_kfree_rcu, res->untraced_contradicted,
                            res->rcu_callbacks, res->rcu_pending);
  g_string_append_printf (o, "Recording kernel's own allocations left out: %" G_GUINT64_FORMAT
                          " allocs, %" G_GUINT64_FORMAT " frees (obj_exts vectors, sheaves)\n",
                          res->skipped_internal_allocs, res->skipped_internal_frees);
  if (res->slab_page_allocs || res->other_page_allocs || res->slab_page_frees
      || res->other_page_frees || res->page_frees_unknown || res->pcp_drain_events)
    {
      g_string_append_printf (o, "Trace page events: slab pages %" G_GUINT64_FORMAT " allocs, %"
                              G_GUINT64_FORMAT " frees (the recording kernel's, not replayed); "
                              "other pages %" G_GUINT64_FORMAT " allocs, %" G_GUINT64_FORMAT
                              " frees, ", res->slab_page_allocs, res->slab_page_frees,
                              res->other_page_allocs, res->other_page_frees);
      if (res->page_events_replayed)
        g_string_append_printf (o, "replayed (%" G_GUINT64_FORMAT " allocs, %" G_GUINT64_FORMAT
                                " frees, %" G_GUINT64_FORMAT " cycles)", res->page_allocs_replayed,
                                res->page_frees_replayed, res->page_event_cycles);
      else
        g_string_append (o, "ignored (--page-events ignore)");
      g_string_append_printf (o, "; %" G_GUINT64_FORMAT " frees of pages from before the trace, %"
                              G_GUINT64_FORMAT " repeated (mm_page_free_batched), %"
                              G_GUINT64_FORMAT " pcp drains recorded (not replayed)\n",
                              res->page_frees_unknown, res->page_frees_repeated,
                              res->pcp_drain_events);
    }
  if (res->warm_objects || res->warm_unplaced)
    g_string_append_printf (o, "Warm start: %" G_GUINT64_FORMAT " objects freed but never "
                            "allocated placed before the replay, %" G_GUINT64_FORMAT " of their "
                            "frees replayed, %" G_GUINT64_FORMAT " could not be placed\n",
                            res->warm_objects, res->warm_frees, res->warm_unplaced);
  if (res->events_without_cpu)
    g_string_append_printf (o, "Note: %" G_GUINT64_FORMAT " events had no CPU in the trace "
                            "(a per-task perf recording) and were replayed on CPU 0\n",
                            res->events_without_cpu);
  if (res->refused_allocs || res->skipped_refused_frees)
    g_string_append_printf (o, "Refused: %" G_GUINT64_FORMAT " kmallocs larger than the allocator "
                            "serves (NULL in that kernel), %" G_GUINT64_FORMAT " frees of them\n",
                            res->refused_allocs, res->skipped_refused_frees);
}

static void
fmt_num (char *buf, gsize n, double v, int decimals)
{
  g_ascii_formatd (buf, n, decimals ? "%.1f" : "%.0f", v);
}

/* "slub@6.18", or with the parameters that differ from another result of
 * the same allocator: "slub@6.18:slub_max_order=1". */
static char *
run_label (const SimRunReport *r, guint i)
{
  const SimReplayResult *a = &r->results[i];
  GString *l = g_string_new (NULL);
  g_string_append_printf (l, "%s@%s", a->allocator, a->kernel);
  g_auto (GStrv) mine = g_strsplit (a->params ? a->params : "", ",", -1);
  guint n = 0;
  for (guint k = 0; mine[k]; k++)
    {
      gboolean differs = FALSE;
      for (guint j = 0; j < r->n_results && !differs; j++)
        {
          const SimReplayResult *b = &r->results[j];
          if (j == i || strcmp (a->allocator, b->allocator) || strcmp (a->kernel, b->kernel))
            continue;
          g_auto (GStrv) theirs = g_strsplit (b->params ? b->params : "", ",", -1);
          differs = !g_strv_contains ((const char *const *) theirs, mine[k]);
        }
      if (differs && *mine[k])
        g_string_append_printf (l, "%s%s", n++ ? "," : ":", mine[k]);
    }
  /* The same allocator with the same parameters twice: number them. */
  for (guint j = 0; j < r->n_results; j++)
    if (j != i && n == 0 && strcmp (a->allocator, r->results[j].allocator) == 0
        && strcmp (a->kernel, r->results[j].kernel) == 0 && g_strcmp0 (a->params, r->results[j].params) == 0)
      {
        g_string_append_printf (l, " #%u", i + 1);
        break;
      }
  return g_string_free (l, FALSE);
}

char *
sim_run_report_text (const SimRunReport *r)
{
  GString *o = g_string_new (NULL);
  g_string_append_printf (o, "slabsim run: %s on %s (%u CPUs), %s replay, touch %s\n", r->trace,
                          r->machine->name, r->machine->n_cpus,
                          r->opt->mode == SIM_REPLAY_TIMED ? "timed" : "ordered",
                          r->opt->touch == SIM_TOUCH_NONE ? "none"
                          : r->opt->touch == SIM_TOUCH_LINE ? "line" : "object");
  if (r->n_results > 0)
    {
      /* One CPU map for every allocator of the run. */
      g_autoptr (GPtrArray) notes = sim_replay_cpu_notes (&r->results[0], r->machine);
      for (guint i = 0; i < notes->len; i++)
        g_string_append_printf (o, "Note: %s\n", (const char *) g_ptr_array_index (notes, i));
    }
  for (guint i = 0; i < r->n_results; i++)
    text_one (o, r, &r->results[i]);

  if (r->n_results > 1)
    {
      /* LKP-style: each allocator's value and its %change against the
       * first, in blocks of columns that fit in 100 characters; the
       * headers name every result uniquely. */
      char **labels = g_new0 (char *, r->n_results + 1);
      for (guint i = 0; i < r->n_results; i++)
        labels[i] = run_label (r, i);
      guint width = 16;
      for (guint i = 0; i < r->n_results; i++)
        width = MAX (width, (guint) strlen (labels[i]));
      guint per = MAX (1u, (100 - 24) / (width + 10));
      for (guint i0 = 0; i0 < r->n_results; i0 += per)
        {
          guint i1 = MIN (r->n_results, i0 + per);
          g_string_append_printf (o, "\n%-24s", i0 == 0 ? "Comparison" : "Comparison (cont.)");
          for (guint i = i0; i < i1; i++)
            {
              if (i == 0)
                g_string_append_printf (o, " %*s", width, labels[i]);
              else
                g_string_append_printf (o, " %*s %8s", width, labels[i], "%change");
            }
          while (o->str[o->len - 1] == ' ')
            g_string_truncate (o, o->len - 1);
          g_string_append_c (o, '\n');
          for (guint k = 0; k < G_N_ELEMENTS (metrics); k++)
            {
              g_string_append_printf (o, "%-24s", metrics[k].name);
              double base = metrics[k].get (&r->results[0]);
              for (guint i = i0; i < i1; i++)
                {
                  char buf[G_ASCII_DTOSTR_BUF_SIZE];
                  double v = metrics[k].get (&r->results[i]);
                  fmt_num (buf, sizeof buf, v, metrics[k].decimals);
                  g_string_append_printf (o, " %*s", width, buf);
                  if (i == 0)
                    ;
                  else if (base != 0.0)
                    {
                      char pc[G_ASCII_DTOSTR_BUF_SIZE + 1];
                      double change = 100.0 * (v - base) / base;
                      if (change > -0.05 && change < 0.05)
                        change = 0.0;             /* no "-0.0%" */
                      g_ascii_formatd (pc, sizeof pc - 1, "%+.1f", change);
                      strcat (pc, "%");
                      g_string_append_printf (o, " %8s", pc);
                    }
                  else
                    g_string_append_printf (o, " %8s", "-");
                }
              while (o->str[o->len - 1] == ' ')
                g_string_truncate (o, o->len - 1);
              g_string_append_c (o, '\n');
            }
        }
      g_strfreev (labels);
    }
  return g_string_free (o, FALSE);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */

static void
json_params (SimJson *j, const char *params)
{
  sim_json_begin_object (j);
  g_auto (GStrv) parts = g_strsplit (params ? params : "", ",", -1);
  for (guint i = 0; parts[i]; i++)
    {
      if (*parts[i] == '\0')
        continue;
      char *eq = strchr (parts[i], '=');
      if (eq)
        {
          *eq = '\0';
          sim_json_key (j, parts[i]);
          sim_json_string (j, eq + 1);
        }
      else
        {
          sim_json_key (j, parts[i]);
          sim_json_bool (j, TRUE);
        }
    }
  sim_json_end_object (j);
}

static void
json_level (SimJson *j, const SimLevelStats *l)
{
  sim_json_begin_object (j);
  sim_json_key (j, "accesses");
  sim_json_uint (j, level_accesses (l));
  sim_json_key (j, "misses");
  sim_json_uint (j, level_misses (l));
  sim_json_key (j, "read_misses");
  sim_json_uint (j, l->misses[SIM_ACC_READ]);
  sim_json_key (j, "write_misses");
  sim_json_uint (j, l->misses[SIM_ACC_WRITE] + l->misses[SIM_ACC_RMW]);
  sim_json_key (j, "writebacks");
  sim_json_uint (j, l->writebacks);
  sim_json_end_object (j);
}

static void
json_memory (SimJson *j, const SimMachine *m, const SimCpuMemStats *s)
{
  sim_json_begin_object (j);
  for (guint l = 0; l < m->n_levels; l++)
    {
      g_autofree char *k = lower (m->levels[l].name);
      sim_json_key (j, k);
      json_level (j, &s->level[l]);
    }
  sim_json_key (j, "dram");
  sim_json_begin_object (j);
  sim_json_key (j, "local");
  sim_json_uint (j, s->dram_local);
  sim_json_key (j, "remote");
  sim_json_uint (j, s->dram_remote);
  sim_json_end_object (j);
  sim_json_key (j, "coherence");
  sim_json_begin_object (j);
  sim_json_key (j, "invalidations");
  sim_json_uint (j, s->invalidations_sent);
  sim_json_key (j, "back_invalidations");
  sim_json_uint (j, s->back_invalidations);
  sim_json_key (j, "hitm");
  sim_json_uint (j, s->hitm);
  sim_json_key (j, "cross_socket");
  sim_json_uint (j, s->cross_socket);
  sim_json_end_object (j);
  sim_json_key (j, "by_structure");
  sim_json_begin_object (j);
  for (guint c = 0; c < SIM_MEM_N_CLASSES; c++)
    {
      sim_json_key (j, sim_mem_class_name (c));
      sim_json_begin_object (j);
      for (guint l = 0; l < m->n_levels; l++)
        {
          g_autofree char *k = lower (m->levels[l].name);
          sim_json_key (j, k);
          sim_json_uint (j, s->class_misses[c][l]);
        }
      sim_json_end_object (j);
    }
  sim_json_end_object (j);
  sim_json_end_object (j);
}

void
sim_run_report_json_result (SimJson *j, const SimMachine *machine, const SimReplayResult *res)
{
  sim_json_begin_object (j);
  sim_json_key (j, "allocator");
  sim_json_string (j, res->allocator);
  sim_json_key (j, "kernel");
  sim_json_string (j, res->kernel);
  sim_json_key (j, "params");
  json_params (j, res->params);
  if (res->alloc.stats_param)
    {
      /* The caches' stats are counted in every run; "charged" says
       * whether their updates cost simulated time (the kernel option). */
      sim_json_key (j, "counters");
      sim_json_begin_object (j);
      sim_json_key (j, "config");
      if (res->alloc.stats_config)
        sim_json_string (j, res->alloc.stats_config);
      else
        sim_json_null (j);
      sim_json_key (j, "param");
      sim_json_string (j, res->alloc.stats_param);
      sim_json_key (j, "charged");
      sim_json_bool (j, res->alloc.stats_charged);
      sim_json_end_object (j);
    }

  sim_json_key (j, "caches");
  sim_json_begin_array (j);
  for (guint i = 0; i < res->alloc.rows->len; i++)
    {
      const SimAllocCacheRow *row = &g_array_index (res->alloc.rows, SimAllocCacheRow, i);
      sim_json_begin_object (j);
      sim_json_key (j, "name");
      sim_json_string (j, row->name);
      sim_json_key (j, "aliases");
      sim_json_begin_array (j);
      for (char **a = row->aliases; a && *a; a++)
        sim_json_string (j, *a);
      sim_json_end_array (j);
#define U(k, v) sim_json_key (j, k); sim_json_uint (j, v)
      U ("object_size", row->object_size);
      U ("slab_size", row->slab_size);
      U ("order", row->order);
      U ("objs_per_slab", row->objs_per_slab);
      U ("alloc", row->alloc);
      U ("free", row->free);
      U ("alloc_fast_pct", pct_int (row->alloc_fast, row->alloc));
      U ("free_fast_pct", pct_int (row->free_fast, row->free));
      U ("alloc_fast", row->alloc_fast);
      U ("free_fast", row->free_fast);
      U ("objects", row->objects);
      U ("slabs", row->slabs);
      U ("bytes", row->bytes);
      sim_json_key (j, "stats");
      sim_json_begin_object (j);
      for (guint s = 0; s < row->n_stats; s++)
        {
          U (row->stat_names[s], row->stats[s]);
        }
      sim_json_end_object (j);
      sim_json_end_object (j);
    }
  sim_json_end_array (j);

  sim_json_key (j, "page_allocator");
  sim_json_begin_object (j);
#define PAGE_STAT_JSON(f, name) U (name, res->pages.f);
  SIM_PAGE_STATS (PAGE_STAT_JSON)
#undef PAGE_STAT_JSON
  U ("large_kmalloc_pages", res->alloc.large_pages);
  sim_json_end_object (j);

  sim_json_key (j, "memory");
  json_memory (j, machine, &res->mem);
  if (res->mem_per_cpu)
    {
      sim_json_key (j, "memory_per_cpu");
      sim_json_begin_array (j);
      for (guint c = 0; c < res->n_cpus; c++)
        json_memory (j, machine, &res->mem_per_cpu[c]);
      sim_json_end_array (j);
    }

  sim_json_key (j, "footprint_bytes");
  sim_json_uint (j, total_bytes (res));
  /* The most pages the slab layer (and pass-through kmallocs) held at
   * once; footprint_bytes is the end of the run. */
  sim_json_key (j, "footprint_peak_bytes");
  sim_json_uint (j, res->pages.pages_peak * 4096);

  sim_json_key (j, "timing");
  sim_json_begin_object (j);
  U ("sim_cycles", res->sim_cycles);
  U ("alloc_cycles_total", res->alloc_cycles.total);
  U ("free_cycles_total", res->free_cycles.total);
  sim_json_key (j, "alloc_cycles_mean");
  sim_json_double (j, mean (res->alloc_cycles.total, res->alloc_cycles.count), 2);
  sim_json_key (j, "free_cycles_mean");
  sim_json_double (j, mean (res->free_cycles.total, res->free_cycles.count), 2);
  /* Nanoseconds at the machine's clock, beside the cycles. */
  sim_json_key (j, "frequency_ghz");
  sim_json_double (j, machine->frequency_ghz, 3);
  double ghz = machine->frequency_ghz > 0 ? machine->frequency_ghz : 1.0;
  sim_json_key (j, "alloc_ns_mean");
  sim_json_double (j, mean (res->alloc_cycles.total, res->alloc_cycles.count) / ghz, 2);
  sim_json_key (j, "free_ns_mean");
  sim_json_double (j, mean (res->free_cycles.total, res->free_cycles.count) / ghz, 2);
  U ("alloc_cycles_p99", sim_cycle_hist_percentile (&res->alloc_cycles, 99));
  U ("free_cycles_p99", sim_cycle_hist_percentile (&res->free_cycles, 99));
  U ("alloc_cycles_p50", sim_cycle_hist_percentile (&res->alloc_cycles, 50));
  U ("free_cycles_p50", sim_cycle_hist_percentile (&res->free_cycles, 50));
  U ("alloc_cycles_p90", sim_cycle_hist_percentile (&res->alloc_cycles, 90));
  U ("free_cycles_p90", sim_cycle_hist_percentile (&res->free_cycles, 90));
  U ("alloc_cycles_max", res->alloc_cycles.max);
  U ("free_cycles_max", res->free_cycles.max);
  U ("lock_wait_cycles", res->lock_wait_cycles);
  U ("alloc_instructions", res->alloc_instr);
  U ("alloc_memory_cycles", res->alloc_mem_cycles);
  U ("free_instructions", res->free_instr);
  U ("free_memory_cycles", res->free_mem_cycles);
  sim_json_end_object (j);

  sim_json_key (j, "replay");
  sim_json_begin_object (j);
  U ("events", res->events);
  U ("allocs", res->allocs_replayed);
  U ("frees", res->frees_replayed);
  U ("implicit_frees", res->implicit_frees_replayed);
  U ("untraced_by_reuse", res->untraced_by_reuse);
  U ("untraced_by_page_free", res->untraced_by_page_free);
  U ("untraced_by_mm_destroy", res->untraced_by_mm_destroy);
  U ("untraced_page_frees", res->untraced_page_frees);
  U ("untraced_kfree_rcu", res->untraced_kfree_rcu);
  U ("untraced_reused_after", res->untraced_reused_after);
  U ("untraced_contradicted", res->untraced_contradicted);
  U ("rcu_callbacks", res->rcu_callbacks);
  U ("rcu_pending", res->rcu_pending);
  U ("skipped_failed_allocs", res->skipped_failed_allocs);
  U ("skipped_null_frees", res->skipped_null_frees);
  U ("skipped_unknown_frees", res->skipped_unknown_frees);
  U ("skipped_internal_allocs", res->skipped_internal_allocs);
  U ("skipped_internal_frees", res->skipped_internal_frees);
  U ("model_internal_allocs", res->model_internal_allocs);
  U ("model_internal_frees", res->model_internal_frees);
  U ("warm_objects", res->warm_objects);
  U ("warm_frees", res->warm_frees);
  U ("warm_unplaced", res->warm_unplaced);
  U ("refused_allocs", res->refused_allocs);
  U ("skipped_refused_frees", res->skipped_refused_frees);
  U ("events_without_cpu", res->events_without_cpu);
  U ("caches_created", res->caches_created);
  sim_json_end_object (j);

  sim_json_key (j, "page_events");
  sim_json_begin_object (j);
  sim_json_key (j, "mode");
  sim_json_string (j, res->page_events_replayed ? "replay" : "ignore");
  U ("slab_page_allocs", res->slab_page_allocs);
  U ("slab_page_frees", res->slab_page_frees);
  U ("other_page_allocs", res->other_page_allocs);
  U ("other_page_frees", res->other_page_frees);
  U ("allocs_replayed", res->page_allocs_replayed);
  U ("frees_replayed", res->page_frees_replayed);
  U ("frees_unknown", res->page_frees_unknown);
  U ("frees_repeated", res->page_frees_repeated);
  U ("implicit_frees", res->page_implicit_frees);
  U ("pcp_drain_events", res->pcp_drain_events);
  U ("cycles", res->page_event_cycles);
#undef U
  sim_json_end_object (j);
  sim_json_end_object (j);
}

gboolean
sim_run_report_provenance (SimRunReport *r, GPtrArray *keep, GError **error)
{
  char *t = sim_file_sha256 (r->trace, &r->trace_bytes, error);
  if (t == NULL)
    return FALSE;
  g_ptr_array_add (keep, t);
  r->trace_sha256 = t;
  if (r->machine->source && g_file_test (r->machine->source, G_FILE_TEST_IS_REGULAR))
    {
      char *m = sim_file_sha256 (r->machine->source, NULL, error);
      if (m == NULL)
        return FALSE;
      g_ptr_array_add (keep, m);
      r->machine_file_sha256 = m;
    }
  char *res = sim_machine_sha256 (r->machine);
  g_ptr_array_add (keep, res);
  r->machine_resolved_sha256 = res;
  return TRUE;
}

void
sim_run_report_json_tool (SimJson *j, SimReplayMode mode, SimTouch touch)
{
  sim_json_key (j, "tool");
  sim_json_begin_object (j);
  sim_json_key (j, "name");
  sim_json_string (j, "slabsim");
  sim_json_key (j, "version");
  sim_json_string (j, SLABSIM_VERSION);
  sim_json_key (j, "replay");
  sim_json_string (j, mode == SIM_REPLAY_TIMED ? "timed" : "ordered");
  sim_json_key (j, "touch");
  sim_json_string (j, touch == SIM_TOUCH_NONE ? "none"
                   : touch == SIM_TOUCH_LINE ? "line" : "object");
  sim_json_end_object (j);
}

char *
sim_run_report_json (const SimRunReport *r)
{
  GString *o = g_string_new (NULL);
  SimJson j;
  sim_json_init (&j, o);
  sim_json_begin_object (&j);
  sim_run_report_json_tool (&j, r->opt->mode, r->opt->touch);

  sim_json_key (&j, "machine");
  sim_json_begin_object (&j);
  sim_json_key (&j, "name");
  sim_json_string (&j, r->machine->name);
  sim_json_key (&j, "cpus");
  sim_json_uint (&j, r->machine->n_cpus);
  sim_json_key (&j, "sockets");
  sim_json_uint (&j, r->machine->sockets);
  sim_json_key (&j, "numa");
  sim_json_bool (&j, r->machine->numa);
  sim_json_key (&j, "frequency_ghz");
  sim_json_double (&j, r->machine->frequency_ghz, 3);
  sim_json_end_object (&j);

  sim_json_key (&j, "provenance");
  sim_json_begin_object (&j);
  sim_json_key (&j, "slabsim_version");
  sim_json_string (&j, SLABSIM_VERSION);
  sim_json_key (&j, "trace_path");
  sim_json_string (&j, r->trace);
  sim_json_key (&j, "trace_sha256");
  if (r->trace_sha256)
    sim_json_string (&j, r->trace_sha256);
  else
    sim_json_null (&j);
  sim_json_key (&j, "trace_bytes");
  sim_json_uint (&j, r->trace_bytes);
  sim_json_key (&j, "machine_file");
  if (r->machine->source && g_path_is_absolute (r->machine->source))
    {
      /* The name, not the folder: a path names this checkout, and the
       * hash says which bytes it was. */
      g_autofree char *base = g_path_get_basename (r->machine->source);
      sim_json_string (&j, base);
    }
  else
    sim_json_string (&j, r->machine->source ? r->machine->source : "(builtin)");
  sim_json_key (&j, "machine_file_sha256");
  if (r->machine_file_sha256)
    sim_json_string (&j, r->machine_file_sha256);
  else
    sim_json_null (&j);
  sim_json_key (&j, "machine_resolved_sha256");
  if (r->machine_resolved_sha256)
    sim_json_string (&j, r->machine_resolved_sha256);
  else
    sim_json_null (&j);
  sim_json_end_object (&j);

  if (r->n_results > 0 && r->results[0].cpu_map)
    {
      const SimReplayResult *r0 = &r->results[0];
      sim_json_key (&j, "cpu_map");
      sim_json_begin_object (&j);
      sim_json_key (&j, "compact");
      sim_json_bool (&j, r0->cpu_map_compact);
      /* machine CPU of each trace CPU that had events, keyed by trace CPU */
      sim_json_key (&j, "cpus");
      sim_json_begin_object (&j);
      for (guint t = 0; t < r0->n_cpus; t++)
        if (r0->trace_cpu_used[t])
          {
            char k[16];
            g_snprintf (k, sizeof k, "%u", t);
            sim_json_key (&j, k);
            sim_json_uint (&j, r0->cpu_map[t]);
          }
      sim_json_end_object (&j);
      sim_json_key (&j, "trace_cpus");
      sim_json_uint (&j, sim_replay_trace_cpus (r0));
      sim_json_key (&j, "sockets_used");
      sim_json_uint (&j, sim_replay_sockets_used (r0, r->machine));
      sim_json_end_object (&j);
      sim_json_key (&j, "notes");
      sim_json_begin_array (&j);
      g_autoptr (GPtrArray) notes = sim_replay_cpu_notes (r0, r->machine);
      for (guint i = 0; i < notes->len; i++)
        sim_json_string (&j, g_ptr_array_index (notes, i));
      sim_json_end_array (&j);
    }

  sim_json_key (&j, "trace");
  if (r->info)
    sim_trace_info_write_json (r->info, &j);
  else
    sim_json_null (&j);

  sim_json_key (&j, "results");
  sim_json_begin_array (&j);
  for (guint i = 0; i < r->n_results; i++)
    sim_run_report_json_result (&j, r->machine, &r->results[i]);
  sim_json_end_array (&j);
  sim_json_end_object (&j);
  g_string_append_c (o, '\n');
  return g_string_free (o, FALSE);
}
