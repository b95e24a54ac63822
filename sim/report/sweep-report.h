/* sweep-report.h - "slabsim report": results as text, Markdown, HTML, SVG.
 *
 * One report model (report-data.h), four renderers.  Text is fixed-width,
 * at most 100 columns, for a mailing-list post: a table with one row per
 * result and, for each chosen metric, its value and LKP-style %change
 * against the baseline, then the metric over the sweep grid.  Markdown
 * carries the same tables for review documents.  HTML is one
 * self-contained page (inline CSS and SVG, no script, no external
 * resource); SVG is the first heat map alone.  All output is a function of
 * the input bytes only.
 */
#pragma once

#include <glib.h>
#include "sim/report/report-data.h"

G_BEGIN_DECLS

typedef enum {
  SIM_REPORT_TEXT,
  SIM_REPORT_MARKDOWN,
  SIM_REPORT_HTML,
  SIM_REPORT_SVG,
} SimReportFormat;

/* @metrics: what to tabulate and map (NULL-terminated; NULL: the default
 * set: alloc fastpath %, L1d misses per op, slab memory, alloc cycles). */
char *sim_report_render (const SimReportData *d, SimReportFormat format,
                         const SimReportMetric *const *metrics);

G_END_DECLS
