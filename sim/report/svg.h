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

/* Append @s to @o with <, >, & and " as entities: text or an attribute
 * value in SVG and in HTML. */
void  sim_svg_escape (GString *o, const char *s);

/* Colour scales of comparisons saturate at this |%change|. */
#define SIM_SVG_SATURATE_PCT 25.0

/* #rrggbb for @v against @base: grey within @threshold %, else blue
 * (better) or orange (worse), stronger up to SIM_SVG_SATURATE_PCT. */
void  sim_svg_change_colour (const SimReportMetric *m, double v, double base, double threshold,
                             char out[8]);
/* One labelled bar per entry (labels in full), coloured by %change
 * against the baseline, value and %change printed, a tooltip per bar. */
char *sim_svg_bars (const SimReportData *d, const SimReportMetric *m, double threshold,
                    gboolean standalone);
/* A scatter of @my against @mx, one numbered dot per entry with a key and
 * tooltips (the memory-vs-cycles trade-off). */
char *sim_svg_tradeoff (const SimReportData *d, const SimReportMetric *mx,
                        const SimReportMetric *my, gboolean standalone);

/* Distinct values of @key over @d's entries: numeric order when every
 * value is a number, else first appearance. */
GPtrArray *sim_svg_axis_values (const SimReportData *d, const char *key);

G_END_DECLS
