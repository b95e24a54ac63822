/* validate.c - the recording kernel's decisions beside a model's; see
 * validate.h and docs/validation.md. */
#include "sim/run/validate.h"
#include "sim/run/kernel-caches.h"
#include "traces/internal.h"
#include "traces/native.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include <string.h>

gboolean
sim_validate_within (guint64 recorded, guint64 model)
{
  guint64 diff = recorded > model ? recorded - model : model - recorded;
  /* 3% of the recorded count, or 2 slabs, whichever is larger. */
  return diff * 100 <= 3 * recorded || diff <= 2;
}

void
sim_validation_clear (SimValidation *v)
{
  if (v->rows)
    {
      for (guint i = 0; i < v->rows->len; i++)
        g_free (g_array_index (v->rows, SimValidateRow, i).why);
      g_array_unref (v->rows);
    }
  if (v->notes)
    g_ptr_array_unref (v->notes);
  sim_decisions_free (v->rec);
  sim_decisions_free (v->cold);
  sim_decisions_free (v->warm);
  sim_replay_result_clear (&v->cold_res);
  sim_replay_result_clear (&v->warm_res);
  g_free (v->trace);
  g_free (v->spec);
  g_free (v->allocator);
  g_free (v->kernel);
  memset (v, 0, sizeof *v);
}

/* The recorded side: every event of the trace. */
static gboolean
read_recorded (SimValidation *v, const char *trace, const char *read_path, gboolean lenient,
               GHashTable *internal, GError **error)
{
  SimTraceStreamOptions so = { .lenient = lenient, .read_path = read_path };
  g_autoptr (SimTraceStream) st_ = sim_trace_stream_open (trace, &so, error);
  if (st_ == NULL)
    return FALSE;
  const SimTraceStrings *r = sim_trace_stream_strings (st_);
  v->rec = sim_decisions_new ();
  const SimTraceEvent *evs;
  guint nev;
  GError *local = NULL;
  char buf[64];
  while (sim_trace_stream_next (st_, &evs, &nev, &local))
    for (guint i = 0; i < nev; i++)
    {
      const SimTraceEvent ev = evs[i];
      sim_decisions_event (v->rec, r, &ev);
      if (ev.kind == SIM_TRACE_CACHE_ALLOC && ev.cache_id && ev.accounted >= 0)
        v->trace_618 = TRUE;
      if (sim_trace_kind_is_slab_alloc (ev.kind) && ev.ptr
          && sim_trace_internal_alloc_site (sim_trace_strings_get (r, ev.call_site_id)))
        {
          const char *name = sim_decisions_cache_name (r, &ev, buf, sizeof buf);
          guint64 *n = g_hash_table_lookup (internal, name);
          if (n == NULL)
            {
              n = g_new0 (guint64, 1);
              g_hash_table_insert (internal, g_strdup (name), n);
            }
          (*n)++;
        }
    }
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  const SimTraceStats *st = sim_trace_stream_stats (st_);
  v->has_pcp_drain_events = st->by_kind[SIM_TRACE_PAGE_PCPU_DRAIN] > 0;
  v->lost_events = st->lost_events;
  v->hashed_ptrs = st->hashed_ptrs;
  v->raw_ptrs = st->raw_ptrs;
  if (sim_trace_stats_hashed (st))
    g_ptr_array_add (v->notes, g_strdup_printf (
      "pointers are hashed (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT "): the trace cannot "
      "tell slabs or reuse, so the recorded side is empty; record with nohash-ptr "
      "(docs/traces.md)", st->hashed_ptrs, st->hashed_ptrs + st->raw_ptrs));
  if (st->lost_events)
    g_ptr_array_add (v->notes, g_strdup_printf (
      "%" G_GUINT64_FORMAT " events were lost (%" G_GUINT64_FORMAT " LOST markers): slabs whose "
      "page events were lost count as pre-existing, and both sides miss the lost operations",
      st->lost_events, st->lost_markers));
  return TRUE;
}

/* Why a cache's counts differ, from what the trace shows about it; NULL
 * when nothing is known and @need_cause (a cache that is not busy). */
static char *
why_far (const SimValidateRow *row, const char *allocator, gboolean need_cause)
{
  const SimDecisionCache *rec = row->rec;
  const SimKernelCache *kc = sim_kernel_cache_lookup (row->name);
  GString *w = g_string_new (NULL);
  if (kc && kc->untraced_free == SIM_KC_UNTRACED_MAPLE_TREE)
    g_string_append (w, "most of its frees have no tracepoint in 6.18 (kfree_rcu into the "
                        "rcu_free sheaf, kmem_cache_free_bulk when a tree is destroyed): the "
                        "replay infers them from pointers coming back, freed slab pages and "
                        "destroyed trees (sim/run/untraced.h) and places each kfree_rcu a "
                        "grace period before its evidence, so the model's frees come as early "
                        "as the evidence allows, not when the kernel made them; objects the "
                        "trace never shows again stay live in the model");
  else if (kc && kc->sheaf_capacity)
    g_string_append (w, "a sheaf cache (6.18): objects come back through sheaves from many "
                        "slabs, and SLAB_TYPESAFE_BY_RCU defers its slab frees by a grace "
                        "period, which the model does not");
  if (rec && rec->implicit * 10 > rec->allocs)
    g_string_append_printf (w, "%s%" G_GUINT64_FORMAT " of its %" G_GUINT64_FORMAT " allocations "
                            "reuse a pointer still live: the kernel recycled those objects on "
                            "paths with no tracepoint (per-CPU skb caches, bulk frees), so its "
                            "slab turnover for them is invisible; the model frees each just "
                            "before, on the allocating CPU", w->len ? "; " : "", rec->implicit,
                            rec->allocs);
  /* The vectors themselves the model makes (docs/models/slub.md): a
   * cause only with the slabs from before the recording, below. */
  if (row->internal_allocs && !need_cause)
    g_string_append_printf (w, "%s%" G_GUINT64_FORMAT " of its objects were the recording "
                            "kernel's obj_exts vectors (%s makes its own, one per slab of "
                            "accounted objects, docs/models/slub.md)", w->len ? "; " : "",
                            row->internal_allocs, allocator);
  if (w->len == 0 && need_cause)
    {
      g_string_free (w, TRUE);
      return NULL;
    }
  guint64 cold_new = row->cold ? row->cold->new_slabs : 0;
  if (rec && cold_new > rec->new_slabs && rec->distinct_slabs > rec->new_slabs)
    g_string_append_printf (w, "%sthe kernel served objects from %" G_GUINT64_FORMAT " slabs "
                            "that existed before recording started; a model starting empty "
                            "needs new slabs for them", w->len ? "; " : "",
                            rec->distinct_slabs - rec->new_slabs);
  if (w->len == 0)
    g_string_append (w, "no known cause: a difference between the model and the kernel");
  return g_string_free (w, FALSE);
}

static int
row_cmp (gconstpointer a, gconstpointer b)
{
  return strcmp (((const SimValidateRow *) a)->name, ((const SimValidateRow *) b)->name);
}

/* The trace decoded once into a native file, which the recorded side and
 * both replays then read instead of decoding the text three times (as a
 * sweep reads a trace its points share).  The file is an unlinked
 * temporary one (*fd), named through /proc/self/fd like the stream's
 * spool, so that nothing is left behind however the process ends.  NULL
 * when the trace is native already (read as it is) or cannot be decoded
 * or written: then each reading meets the trace as before, errors and
 * all. */
static char *
decode_once (const char *trace, gboolean lenient, int *fd)
{
  *fd = -1;
  {
    g_autoptr (SimTraceReader) r = sim_trace_reader_open (trace, NULL);
    if (r == NULL || sim_trace_reader_format (r) == SIM_TRACE_FORMAT_NATIVE)
      return NULL;
  }
  g_autofree char *tmp = NULL;
  *fd = g_file_open_tmp ("slabsim-validate-XXXXXX.slabtr", &tmp, NULL);
  if (*fd < 0)
    return NULL;
  g_unlink (tmp);
  char *path = g_strdup_printf ("/proc/self/fd/%d", *fd);
  if (!sim_native_convert (trace, path, lenient, NULL, NULL))
    g_clear_pointer (&path, g_free);
  return path;
}

static gboolean validate_run (const char *trace, const char *spec, const SimReplayOptions *opt,
                              SimValidation *v, GError **error);

gboolean
sim_validate_run (const char *trace, const char *spec, const SimReplayOptions *opt,
                  SimValidation *v, GError **error)
{
  if (opt->read_path)
    return validate_run (trace, spec, opt, v, error);
  int fd;
  g_autofree char *native = decode_once (trace, opt->lenient, &fd);
  SimReplayOptions o = *opt;
  o.read_path = native;
  gboolean ok = validate_run (trace, spec, &o, v, error);
  if (fd >= 0)
    close (fd);
  return ok;
}

static gboolean
validate_run (const char *trace, const char *spec, const SimReplayOptions *opt,
              SimValidation *v, GError **error)
{
  memset (v, 0, sizeof *v);
  v->trace = g_strdup (trace);
  v->spec = g_strdup (spec);
  v->machine = opt->machine;
  v->notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) internal = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                           g_free);
  if (!read_recorded (v, trace, opt->read_path, opt->lenient, internal, error))
    return FALSE;

  SimReplayOptions o = *opt;
  o.emit = NULL;
  v->cold = sim_decisions_new ();
  o.modelled = v->cold;
  o.warm = FALSE;
  if (!sim_replay_run (trace, spec, &o, &v->cold_res, error))
    return FALSE;
  v->warm = sim_decisions_new ();
  o.modelled = v->warm;
  o.warm = TRUE;
  if (!sim_replay_run (trace, spec, &o, &v->warm_res, error))
    return FALSE;
  v->allocator = g_strdup (v->cold_res.allocator);
  v->kernel = g_strdup (v->cold_res.kernel);
  g_autofree char *model = g_strdup_printf ("%s@%s", v->allocator, v->kernel);

  /* Rows: every cache either side saw. */
  v->rows = g_array_new (FALSE, TRUE, sizeof (SimValidateRow));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  SimDecisions *sides[] = { v->rec, v->cold, v->warm };
  for (guint s = 0; s < G_N_ELEMENTS (sides); s++)
    {
      guint n;
      const SimDecisionCache *cs = sim_decisions_caches (sides[s], &n);
      for (guint i = 0; i < n; i++)
        {
          if (g_hash_table_contains (seen, cs[i].name))
            continue;
          /* Names owned by the side's own table (stable until freed). */
          const SimDecisionCache *own = sim_decisions_cache (sides[s], cs[i].name);
          g_hash_table_add (seen, own->name);
          SimValidateRow row = { .name = own->name };
          g_array_append_val (v->rows, row);
        }
    }
  g_array_sort (v->rows, row_cmp);
  for (guint i = 0; i < v->rows->len; i++)
    {
      SimValidateRow *row = &g_array_index (v->rows, SimValidateRow, i);
      row->rec = sim_decisions_cache (v->rec, row->name);
      row->cold = sim_decisions_cache (v->cold, row->name);
      row->warm = sim_decisions_cache (v->warm, row->name);
      guint64 *ni = g_hash_table_lookup (internal, row->name);
      row->internal_allocs = ni ? *ni : 0;
      row->busy = row->rec && row->rec->new_slabs >= SIM_VALIDATE_BUSY;
      if (!row->busy)
        {
          /* A small cache far off with a known cause is still worth a word. */
          guint64 rn = row->rec ? row->rec->new_slabs : 0, cn = row->cold ? row->cold->new_slabs : 0;
          guint64 rf = row->rec ? row->rec->freed_slabs : 0, cf = row->cold ? row->cold->freed_slabs : 0;
          if (!sim_validate_within (rn, cn) || !sim_validate_within (rf, cf))
            row->why = why_far (row, model, TRUE);
          continue;
        }
      v->busy++;
#define NEW(x) ((x) ? (x)->new_slabs : 0)
#define FREED(x) ((x) ? (x)->freed_slabs : 0)
      row->agree_cold = sim_validate_within (NEW (row->rec), NEW (row->cold))
                        && sim_validate_within (FREED (row->rec), FREED (row->cold));
      row->agree_warm = sim_validate_within (NEW (row->rec), NEW (row->warm))
                        && sim_validate_within (FREED (row->rec), FREED (row->warm));
#undef NEW
#undef FREED
      v->agree_cold += row->agree_cold;
      v->agree_warm += row->agree_warm;
      if (!row->agree_cold || !row->agree_warm)
        row->why = why_far (row, model, FALSE);
    }

  /* How the trace's CPUs sit on the machine (the same for both starts). */
  g_autoptr (GPtrArray) cpu_notes = sim_replay_cpu_notes (&v->cold_res, v->machine);
  for (guint i = 0; i < cpu_notes->len; i++)
    g_ptr_array_add (v->notes, g_strdup (g_ptr_array_index (cpu_notes, i)));
  /* What the trace cannot tell. */
  if (!v->trace_618)
    g_ptr_array_add (v->notes, g_strdup (
      "the trace does not have 6.18's field set (name= and accounted= on kmem_cache_alloc): "
      "it was recorded by another kernel, whose allocator slabsim may model differently or "
      "not at all; the recorded side is that kernel's decisions"));
  if (strcmp (v->kernel, "6.18") != 0 || strcmp (v->allocator, "slub") != 0)
    g_ptr_array_add (v->notes, g_strdup_printf (
      "the model is %s, the shared traces' kernel is slub 6.18: agreement is expected only "
      "from the era that recorded the trace", model));
  g_ptr_array_add (v->notes, g_strdup (
    "freelist randomisation (CONFIG_SLAB_FREELIST_RANDOM, on in the recording kernel) shuffles "
    "the objects of a new slab; the model hands them out in address order. Neither LIFO reuse "
    "nor same-slab runs depend on the order, but object addresses never match"));
  guint64 internal_total = v->cold_res.skipped_internal_allocs;
  if (internal_total)
    g_ptr_array_add (v->notes, g_strdup_printf (
      "%" G_GUINT64_FORMAT " allocations are the recording kernel's own (obj_exts vectors, "
      "sheaves): they occupied its slabs, so they count on the recorded side; they are not "
      "replayed, and %s makes its own (%" G_GUINT64_FORMAT " in the cold replay), which count "
      "on the model side (docs/models/slub.md)", internal_total, model,
      v->cold_res.model_internal_allocs));
  if (!v->has_pcp_drain_events)
    g_ptr_array_add (v->notes, g_strdup (
      "the trace has no mm_page_pcpu_drain events (the event was not recorded, or no drain "
      "fired): pcp drains cannot be compared"));
  const SimReplayResult *cr = &v->cold_res;
  if (cr->page_events_replayed)
    g_ptr_array_add (v->notes, g_strdup_printf (
      "the trace's page events: %" G_GUINT64_FORMAT " page allocations were the recording "
      "kernel's slab pages (the model takes its own); the other %" G_GUINT64_FORMAT " (page "
      "cache, anonymous pages, page tables) and %" G_GUINT64_FORMAT " of their frees are "
      "replayed through the model's page allocator, so its pcp lists and zone lock see that "
      "traffic too; %" G_GUINT64_FORMAT " frees were of pages from before the trace",
      cr->slab_page_allocs, cr->other_page_allocs, cr->page_frees_replayed,
      cr->page_frees_unknown));
  else
    g_ptr_array_add (v->notes, g_strdup (
      "--page-events ignore: the model's page allocator sees only its slab and large-kmalloc "
      "pages, not the trace's page cache and anonymous pages that share the pcp lists: its "
      "pcp drains are not like for like"));
  g_ptr_array_add (v->notes, g_strdup_printf (
    "slabs that existed before recording started are found from their objects (extent from "
    "the cache's order); warm start placed %" G_GUINT64_FORMAT " objects freed but never "
    "allocated in the trace (%" G_GUINT64_FORMAT " could not be placed)",
    v->warm_res.warm_objects, v->warm_res.warm_unplaced));
  return TRUE;
}
