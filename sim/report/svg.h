/* svg.h - hand-written SVG charts of report data (see docs/reports.md).
 *
 * Every chart is built from integers and numbers printed with
 * g_ascii_formatd at fixed precision, in entry order, so the bytes depend
 * only on the data: the golden tests compare them.  @standalone adds the
 * XML namespace a .svg file needs; inline in HTML it is left out.
 */
#pragma once

#include <glib.h>
#include "sim/report/report-data.h"

G_BEGIN_DECLS

/* A heat map of @m over @xkey (columns) and @ykey (rows; NULL for one row)
 * for the entries of @d whose other axes equal those of @facet (an entry;
 * NULL: all entries).  NULL when the keys are not axes of @d. */
char *sim_svg_heatmap (const SimReportData *d, const SimReportMetric *m, const char *xkey,
                       const char *ykey, const SimReportEntry *facet, gboolean standalone);
/* Cycles per operation per entry: p50-p90 bar, whisker to p99, mean dot. */
char *sim_svg_cycles (const SimReportData *d, gboolean standalone);
/* Fastpath % of the busiest caches across entries: range, dots, baseline. */
char *sim_svg_caches (const SimReportData *d, gboolean standalone);

/* Distinct values of @key over @d's entries: numeric order when every
 * value is a number, else first appearance. */
GPtrArray *sim_svg_axis_values (const SimReportData *d, const char *key);

G_END_DECLS
