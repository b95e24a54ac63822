/* report-data.h - the report model: results read back from JSON, and the
 * metrics every renderer shows.
 *
 * "slabsim report" reads sweep lines (directories, merged JSONL) and
 * "run --format json" files into one list of entries; each entry is one
 * replay result with the parameters that tell it from the others.  The
 * metrics are one table (name, title, unit, direction, getter), so the
 * text, Markdown, SVG and HTML renderers cannot disagree on a number.
 */
#pragma once

#include <glib.h>
#include "sim/report/json-parse.h"

G_BEGIN_DECLS

typedef struct {
  char  *id;                /* sweep point id, NULL for run results */
  guint  index;             /* point index, or position among the inputs */
  GPtrArray *keys;          /* parameter names (char *), sorted */
  GPtrArray *values;        /* parallel to keys */
  const SimJsonValue *result;  /* the run JSON result object */
  char  *machine;
  char  *trace;
  char  *spec;              /* "slub@2.6.34:slub_max_order=1" */
  char  *label;             /* filled by sim_report_data_finish */
  /* Provenance, NULL when the input does not say (older outputs). */
  char  *version;           /* slabsim version that wrote the result */
  char  *trace_sha256;
  char  *machine_file;      /* "nehalem-ep-2s.yaml" */
  char  *machine_sha256;    /* of that file */
  /* A "run --format json" result: its allocator parameters ("key=value"),
   * folded into the "allocator" value by sim_report_data_finish. */
  GPtrArray *alloc_params;
} SimReportEntry;

typedef struct {
  GPtrArray *entries;       /* of SimReportEntry */
  GPtrArray *docs;          /* parsed inputs, owning the results */
  GPtrArray *axes;          /* varying parameter names (char *), sweep order */
  char      *title;         /* sweep name(s), or "run" */
  guint      baseline;      /* index into entries */
  /* |%change| below which a result is "the same" as the baseline: no
   * winner card, grey in the charts (report --threshold, default 1). */
  double     threshold;
} SimReportData;

SimReportData *sim_report_data_new (void);
void           sim_report_data_free (SimReportData *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimReportData, sim_report_data_free)

/* Read @path: a sweep directory, a JSONL file, or a run JSON file. */
gboolean sim_report_data_add (SimReportData *d, const char *path, GError **error);
/* The point files of sweep directory @dir (DIR/points/NAME.jsonl), sorted
 * by name so that order and errors do not depend on the file system; NULL
 * with @error when @dir has no points folder.  Free with
 * g_ptr_array_unref. */
GPtrArray *sim_report_sweep_point_files (const char *dir, GError **error);
/* Sort, find the varying parameters and labels; @baseline is a point id
 * (or a prefix of one) or an entry number, NULL for the first. */
gboolean sim_report_data_finish (SimReportData *d, const char *baseline, GError **error);

const char *sim_report_entry_param (const SimReportEntry *e, const char *key);
/* "slub_max_order" -> "max_order": the allocator prefix says nothing
 * inside one allocator's sweep (also "machine."); other keys unchanged. */
const char *sim_report_short_key (const char *key);

typedef struct {
  const char *name;         /* "alloc_fast_pct": what --metric takes */
  const char *title;        /* "alloc fastpath %" */
  const char *abbrev;       /* at most 9 characters, for text columns */
  int         decimals;
  gboolean    higher_is_better;
  double    (*get) (const SimJsonValue *result);
} SimReportMetric;

const SimReportMetric *sim_report_metrics (guint *n);
const SimReportMetric *sim_report_metric_lookup (const char *name);

/* Busiest caches of @result (alloc + free, then name), up to @max. */
GPtrArray *sim_report_busiest_caches (const SimJsonValue *result, guint max);
/* The cache of @result that serves what @name serves in another
 * allocator: the same name, an alias (a merged SLUB cache), or the same
 * kmalloc class under another era's name (SLAB's size-512, SLUB's
 * kmalloc-512, 6.18's kmalloc-1k for kmalloc-1024). */
const SimJsonValue *sim_report_find_cache (const SimJsonValue *result, const char *name);
/* "size-1024", "kmalloc-1k" -> "kmalloc-1024"; other names unchanged. */
char *sim_report_cache_key (const char *name);

/* Locale-independent number text: @decimals digits after the point. */
char *sim_report_num (double v, int decimals);
/* "+12.3%", "-0.4%", "0.0%" or "-" when @base is 0. */
char *sim_report_change (double v, double base);

G_END_DECLS
