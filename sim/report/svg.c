/* svg.c - charts for "slabsim report"; see svg.h.
 *
 * Design choices, for readers of a design review rather than of numbers:
 * heat maps and bars use one diverging scale centred on the baseline:
 * blue better, orange worse, whichever way the metric points, its strength
 * the |%change| up to a fixed saturation (so a 3% spread never looks like
 * a 50% one), grey within the report's threshold; each cell prints its
 * value and %change and has a tooltip, and the baseline is outlined;
 * distributions show median, p90, p99 and mean per result on one shared
 * axis; per-cache charts show where every result falls, with the baseline
 * marked, rather than a forest of bars.
 */
#include "sim/report/svg.h"

#include <math.h>
#include <string.h>

#define FONT "font-family=\"DejaVu Sans,Helvetica,Arial,sans-serif\""
#define INK "#1f2933"
#define MUTED "#616e7c"
#define GRID "#e4e7eb"
#define ACCENT "#e4572e"
#define MAIN "#3b528b"

/* Coordinates with one decimal, no locale. */
static const char *
f1 (char *buf, double v)
{
  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.1f", v);
  if (g_str_has_suffix (buf, ".0"))
    buf[strlen (buf) - 2] = '\0';
  if (strcmp (buf, "-0") == 0)
    strcpy (buf, "0");
  return buf;
}

void
sim_svg_escape (GString *o, const char *s)
{
  for (; *s; s++)
    switch (*s)
      {
      case '<': g_string_append (o, "&lt;"); break;
      case '>': g_string_append (o, "&gt;"); break;
      case '&': g_string_append (o, "&amp;"); break;
      case '"': g_string_append (o, "&quot;"); break;
      default: g_string_append_c (o, *s);
      }
}

/* The entry to draw @j-th (0 to entries - 1) so that the baseline comes
 * last, on top of the others: the others in order, then the baseline. */
static guint
baseline_last (const SimReportData *d, guint j)
{
  if (j < d->baseline)
    return j;
  return j + 1 < d->entries->len ? j + 1 : d->baseline;
}

/* Cache @name of the @j-th entry drawn (baseline_last), NULL when that
 * result has none; @i is set to the entry's index. */
static const SimJsonValue *
drawn_cache (const SimReportData *d, guint j, const char *name, guint *i)
{
  *i = baseline_last (d, j);
  const SimReportEntry *e = g_ptr_array_index (d->entries, *i);
  return sim_report_find_cache (e->result, name);
}

static void
svg_begin (GString *o, double w, double h, gboolean standalone, const char *title)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (o, "<svg%s width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" "
                          "role=\"img\" " FONT " font-size=\"12\">\n",
                          standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "",
                          f1 (a, w), f1 (b, h), a, b);
  g_string_append (o, "<title>");
  sim_svg_escape (o, title);
  g_string_append (o, "</title>\n");
  /* A file of its own goes on slides and dark pages: give it a ground. */
  if (standalone)
    g_string_append (o, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
}

static void
text (GString *o, double x, double y, const char *anchor, const char *attrs, const char *s)
{
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (o, "<text x=\"%s\" y=\"%s\"%s%s%s %s>", f1 (a, x), f1 (b, y),
                          anchor ? " text-anchor=\"" : "", anchor ? anchor : "",
                          anchor ? "\"" : "", attrs ? attrs : "");
  sim_svg_escape (o, s);
  g_string_append (o, "</text>\n");
}

static void
rect (GString *o, double x, double y, double w, double h, const char *attrs)
{
  char a[4][G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (o, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" %s/>\n",
                          f1 (a[0], x), f1 (a[1], y), f1 (a[2], w), f1 (a[3], h), attrs);
}

static void
line (GString *o, double x1, double y1, double x2, double y2, const char *attrs)
{
  char a[4][G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (o, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" %s/>\n",
                          f1 (a[0], x1), f1 (a[1], y1), f1 (a[2], x2), f1 (a[3], y2), attrs);
}

static void
circle (GString *o, double cx, double cy, double r, const char *attrs)
{
  char a[3][G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_printf (o, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" %s/>\n",
                          f1 (a[0], cx), f1 (a[1], cy), f1 (a[2], r), attrs);
}

/* A "nice" axis step (1, 2, 5 x 10^k) for about @n ticks over [0, max]. */
static double
nice_step (double max, int n)
{
  if (max <= 0)
    return 1;
  double raw = max / n, p = pow (10, floor (log10 (raw))), m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static double label_width (const SimReportData *d);

static gboolean
is_number (const char *s, double *v)
{
  char *end;
  if (s == NULL || *s == '\0')
    return FALSE;
  *v = g_ascii_strtod (s, &end);
  return *end == '\0';
}

typedef struct {
  char *s;
  double v;
  guint order;
} AxisVal;

static gint
cmp_axisval (gconstpointer a, gconstpointer b)
{
  const AxisVal *x = *(AxisVal *const *) a, *y = *(AxisVal *const *) b;
  if (x->v != y->v)
    return x->v < y->v ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

GPtrArray *
sim_svg_axis_values (const SimReportData *d, const char *key)
{
  GPtrArray *vals = g_ptr_array_new ();
  gboolean numeric = TRUE;
  for (guint i = 0; i < d->entries->len; i++)
    {
      const char *v = sim_report_entry_param (g_ptr_array_index (d->entries, i), key);
      if (v == NULL)
        v = "-";
      gboolean have = FALSE;
      for (guint k = 0; k < vals->len && !have; k++)
        have = strcmp (((AxisVal *) g_ptr_array_index (vals, k))->s, v) == 0;
      if (have)
        continue;
      AxisVal *av = g_new0 (AxisVal, 1);
      av->s = (char *) v;
      av->order = vals->len;
      numeric &= is_number (v, &av->v);
      g_ptr_array_add (vals, av);
    }
  if (!numeric)
    for (guint k = 0; k < vals->len; k++)
      ((AxisVal *) g_ptr_array_index (vals, k))->v = 0;
  g_ptr_array_sort (vals, cmp_axisval);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < vals->len; k++)
    {
      AxisVal *av = g_ptr_array_index (vals, k);
      g_ptr_array_add (out, g_strdup (av->s));
      g_free (av);
    }
  g_ptr_array_unref (vals);
  return out;
}

static gint
index_of (GPtrArray *vals, const char *v)
{
  for (guint k = 0; k < vals->len; k++)
    if (strcmp (g_ptr_array_index (vals, k), v ? v : "-") == 0)
      return (gint) k;
  return -1;
}

/* Does @e share every axis value of @facet other than @xkey and @ykey? */
static gboolean
in_facet (const SimReportData *d, const SimReportEntry *e, const SimReportEntry *facet,
          const char *xkey, const char *ykey)
{
  if (facet == NULL)
    return TRUE;
  for (guint k = 0; k < d->axes->len; k++)
    {
      const char *key = g_ptr_array_index (d->axes, k);
      if (g_strcmp0 (key, xkey) == 0 || g_strcmp0 (key, ykey) == 0)
        continue;
      if (g_strcmp0 (sim_report_entry_param (e, key), sim_report_entry_param (facet, key)) != 0)
        return FALSE;
    }
  return TRUE;
}

char *
sim_svg_heatmap (const SimReportData *d, const SimReportMetric *m, const char *xkey,
                 const char *ykey, const SimReportEntry *facet, gboolean standalone)
{
  g_autoptr (GPtrArray) xs = sim_svg_axis_values (d, xkey);
  g_autoptr (GPtrArray) ys = ykey ? sim_svg_axis_values (d, ykey) : NULL;
  guint nx = xs->len, ny = ys ? ys->len : 1;
  gint *cell = g_new (gint, nx * ny);
  for (guint i = 0; i < nx * ny; i++)
    cell[i] = -1;
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
  double bv = m->get (((const SimReportEntry *) g_ptr_array_index (d->entries, d->baseline))->result);
  for (guint i = 0; i < d->entries->len; i++)
    {
      const SimReportEntry *e = g_ptr_array_index (d->entries, i);
      if (!in_facet (d, e, facet, xkey, ykey))
        continue;
      gint x = index_of (xs, sim_report_entry_param (e, xkey));
      gint y = ykey ? index_of (ys, sim_report_entry_param (e, ykey)) : 0;
      if (x < 0 || y < 0 || cell[y * nx + x] >= 0)
        continue;
      cell[y * nx + x] = (gint) i;
      double v = m->get (e->result);
      lo = MIN (lo, v);
      hi = MAX (hi, v);
    }

  const double cw = 74, ch = 40, left = 100, top = 58, legend_w = 14;
  double gw = cw * nx, gh = ch * ny;
  double w = MAX (left + gw + 20 + legend_w + 80, 380), h = top + gh + 52;
  GString *o = g_string_new (NULL);
  g_autofree char *title = g_strdup_printf ("%s over %s%s%s", m->title, ykey ? ykey : "",
                                            ykey ? " x " : "", xkey);
  svg_begin (o, w, h, standalone, title);
  /* The facet (values of the other axes) belongs to the title: it is
   * what tells the maps of one metric apart. */
  GString *head = g_string_new (m->title);
  if (facet)
    for (guint k = 0; k < d->axes->len; k++)
      {
        const char *key = g_ptr_array_index (d->axes, k);
        if (g_strcmp0 (key, xkey) && g_strcmp0 (key, ykey))
          g_string_append_printf (head, ", %s=%s", key, sim_report_entry_param (facet, key));
      }
  text (o, 12, 20, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"" INK "\"", head->str);
  g_string_free (head, TRUE);
  text (o, 12, 38, NULL, "font-size=\"11\" fill=\"" MUTED "\"",
        m->higher_is_better ? "higher is better; blue better, orange worse than the baseline (outlined)"
                            : "lower is better; blue better, orange worse than the baseline (outlined)");

  int dec = MIN (m->decimals, 3);
  for (guint y = 0; y < ny; y++)
    for (guint x = 0; x < nx; x++)
      {
        double cx = left + x * cw, cy = top + y * ch;
        gint ei = cell[y * nx + x];
        if (ei < 0)
          {
            /* No result has these values: an empty cell, said so in its
             * tooltip, not a value. */
            g_string_append (o, "<g><title>no result for this combination</title>\n");
            rect (o, cx + 1, cy + 1, cw - 2, ch - 2, "fill=\"#f5f7fa\"");
            g_string_append (o, "</g>\n");
            continue;
          }
        const SimReportEntry *e = g_ptr_array_index (d->entries, ei);
        double v = m->get (e->result);
        /* Centred on the baseline: the colour says how far from it, in
         * %change, with one scale for every map (SIM_SVG_SATURATE_PCT). */
        char col[8];
        sim_svg_change_colour (m, v, bv, d->threshold, col);
        double pc = bv != 0.0 ? fabs (100.0 * (v - bv) / bv) : 0.0;
        gboolean dark = pc >= d->threshold && pc > 0.6 * SIM_SVG_SATURATE_PCT;
        g_autofree char *vs = sim_report_num (v, dec);
        g_autofree char *cs = (guint) ei == d->baseline ? g_strdup ("base") : sim_report_change (v, bv);
        g_string_append (o, "<g><title>");
        sim_svg_escape (o, e->label);
        g_string_append_printf (o, ": %s (%s)</title>\n", vs, cs);
        g_autofree char *fill = g_strdup_printf ("fill=\"%s\"", col);
        rect (o, cx + 1, cy + 1, cw - 2, ch - 2, fill);
        text (o, cx + cw / 2, cy + ch / 2 - 1, "middle",
              dark ? "fill=\"#ffffff\"" : "fill=\"" INK "\"", vs);
        text (o, cx + cw / 2, cy + ch / 2 + 12, "middle",
              dark ? "font-size=\"10\" fill=\"#ffffff\"" : "font-size=\"10\" fill=\"" MUTED "\"", cs);
        g_string_append (o, "</g>\n");
        if ((guint) ei == d->baseline)
          rect (o, cx + 2.5, cy + 2.5, cw - 5, ch - 5,
                "fill=\"none\" stroke=\"" ACCENT "\" stroke-width=\"3\"");
      }
  for (guint x = 0; x < nx; x++)
    text (o, left + x * cw + cw / 2, top + gh + 16, "middle", "fill=\"" INK "\"",
          g_ptr_array_index (xs, x));
  text (o, left + gw / 2, top + gh + 36, "middle", "fill=\"" MUTED "\"", xkey);
  for (guint y = 0; ys && y < ny; y++)
    text (o, left - 8, top + y * ch + ch / 2 + 4, "end", "fill=\"" INK "\"",
          g_ptr_array_index (ys, y));
  if (ykey)
    {
      char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *attrs = g_strdup_printf ("fill=\"" MUTED "\" transform=\"rotate(-90 %s %s)\"",
                                                f1 (a, left - 44), f1 (b, top + gh / 2));
      text (o, left - 44, top + gh / 2, "middle", attrs, ykey);
    }

  /* Legend: %change from the baseline, better (top) to worse (bottom),
   * the same scale in every map. */
  double lx = left + gw + 20;
  const int steps = 17;
  for (int s = 0; s < steps; s++)
    {
      char col[8];
      double good = SIM_SVG_SATURATE_PCT * (1.0 - 2.0 * s / (steps - 1));
      sim_svg_change_colour (m, 100.0 + (m->higher_is_better ? good : -good), 100.0,
                             d->threshold, col);
      g_autofree char *fill = g_strdup_printf ("fill=\"%s\"", col);
      rect (o, lx, top + gh * s / steps, legend_w, gh / steps + 0.5, fill);
    }
  g_autofree char *sat = sim_report_num (SIM_SVG_SATURATE_PCT, 0);
  g_autofree char *bs = g_strdup_printf ("%s%% better", sat);
  g_autofree char *ws = g_strdup_printf ("%s%% worse", sat);
  text (o, lx + legend_w + 4, top + 10, NULL, "font-size=\"10\" fill=\"" INK "\"", bs);
  text (o, lx + legend_w + 4, top + gh / 2 + 4, NULL, "font-size=\"10\" fill=\"" INK "\"", "same");
  text (o, lx + legend_w + 4, top + gh, NULL, "font-size=\"10\" fill=\"" INK "\"", ws);
  (void) lo;
  (void) hi;
  (void) dec;
  g_string_append (o, "</svg>\n");
  g_free (cell);
  return g_string_free (o, FALSE);
}

static void
x_axis (GString *o, double x0, double width, double y0, double y1, double min, double max,
        double step, const char *unit)
{
  for (double t = min; t <= max + step * 1e-9; t += step)
    {
      double x = x0 + width * (t - min) / (max - min);
      line (o, x, y0, x, y1, "stroke=\"" GRID "\"");
      g_autofree char *s = sim_report_num (t, step < 1 ? 1 : 0);
      text (o, x, y1 + 14, "middle", "font-size=\"10\" fill=\"" MUTED "\"", s);
    }
  text (o, x0 + width, y1 + 28, "end", "font-size=\"10\" fill=\"" MUTED "\"", unit);
}

char *
sim_svg_cycles (const SimReportData *d, gboolean standalone)
{
  guint n = MIN (d->entries->len, 60u);
  const double left = MAX (210.0, label_width (d)), pw = 300, gap = 40, top = 64, rh = 18;
  double w = left + 2 * pw + gap + 20, h = top + n * rh + 44;
  static const char *const kinds[2] = { "alloc", "free" };
  double max[2] = { 0, 0 };
  for (guint i = 0; i < n; i++)
    {
      const SimReportEntry *e = g_ptr_array_index (d->entries, i);
      for (int k = 0; k < 2; k++)
        {
          g_autofree char *key = g_strdup_printf ("%s_cycles_p99", kinds[k]);
          max[k] = MAX (max[k], sim_json_number (sim_json_get_path (e->result, "timing", key, NULL), 0));
        }
    }
  GString *o = g_string_new (NULL);
  svg_begin (o, w, h, standalone, "cycles per operation");
  text (o, 12, 20, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"" INK "\"",
        "Cycles per operation");
  /* Legend. */
  rect (o, 12, 31, 22, 8, "fill=\"" MAIN "\"");
  text (o, 40, 39, NULL, "font-size=\"11\" fill=\"" MUTED "\"", "p50 to p90");
  line (o, 118, 35, 140, 35, "stroke=\"#9aa5b1\" stroke-width=\"1.5\"");
  line (o, 140, 30, 140, 40, "stroke=\"" INK "\" stroke-width=\"1.5\"");
  text (o, 146, 39, NULL, "font-size=\"11\" fill=\"" MUTED "\"", "to p99");
  circle (o, 204, 35, 4, "fill=\"" ACCENT "\"");
  text (o, 212, 39, NULL, "font-size=\"11\" fill=\"" MUTED "\"", "mean");
  text (o, 262, 39, NULL, "font-size=\"11\" fill=\"" MUTED "\"",
        n < d->entries->len ? "(first 60 results)" : "");

  for (int k = 0; k < 2; k++)
    {
      double x0 = left + k * (pw + gap);
      double mx = max[k] > 0 ? max[k] * 1.05 : 1;
      double step = nice_step (mx, 5);
      mx = ceil (mx / step) * step;
      g_autofree char *ttl = g_strdup_printf ("%s", k == 0 ? "kmalloc / kmem_cache_alloc" : "kfree / kmem_cache_free");
      text (o, x0, top - 8, NULL, "font-weight=\"bold\" fill=\"" INK "\"", ttl);
      x_axis (o, x0, pw, top, top + n * rh, 0, mx, step, "cycles");
      for (guint i = 0; i < n; i++)
        {
          const SimReportEntry *e = g_ptr_array_index (d->entries, i);
          double y = top + i * rh + rh / 2;
          double v[5];
          static const char *const what[5] = { "p50", "p90", "p99", "mean", "max" };
          for (int q = 0; q < 5; q++)
            {
              g_autofree char *key = g_strdup_printf ("%s_cycles_%s", kinds[k], what[q]);
              v[q] = sim_json_number (sim_json_get_path (e->result, "timing", key, NULL), 0);
            }
          g_string_append (o, "<g><title>");
          sim_svg_escape (o, e->label);
          g_autofree char *s50 = sim_report_num (v[0], 0), *s90 = sim_report_num (v[1], 0),
                          *s99 = sim_report_num (v[2], 0), *smean = sim_report_num (v[3], 1);
          g_string_append_printf (o, ": %s p50 %s, p90 %s, p99 %s, mean %s cycles</title>\n",
                                  kinds[k], s50, s90, s99, smean);
          if (i % 2 == 0)
            rect (o, x0, y - rh / 2, pw, rh, "fill=\"#f5f7fa\" fill-opacity=\"0.6\"");
          line (o, x0 + pw * v[0] / mx, y, x0 + pw * v[2] / mx, y,
                "stroke=\"#9aa5b1\" stroke-width=\"1.5\"");
          line (o, x0 + pw * v[2] / mx, y - 5, x0 + pw * v[2] / mx, y + 5,
                "stroke=\"" INK "\" stroke-width=\"1.5\"");
          rect (o, x0 + pw * v[0] / mx, y - 4, MAX (pw * (v[1] - v[0]) / mx, 1.5), 8,
                "fill=\"" MAIN "\"");
          circle (o, x0 + pw * v[3] / mx, y, 3.5, "fill=\"" ACCENT "\" stroke=\"#ffffff\"");
          g_string_append (o, "</g>\n");
          if (k == 0)
            text (o, left - 10, y + 4, "end",
                  i == d->baseline ? "font-size=\"11\" font-weight=\"bold\" fill=\"" INK "\""
                                   : "font-size=\"11\" fill=\"" INK "\"", e->label);
        }
    }
  g_string_append (o, "</svg>\n");
  return g_string_free (o, FALSE);
}

static double
cache_fast (const SimJsonValue *c, const char *kind)
{
  g_autofree char *fk = g_strdup_printf ("%s_fast", kind);
  g_autofree char *pk = g_strdup_printf ("%s_fast_pct", kind);
  double tot = sim_json_number (sim_json_get (c, kind), 0);
  const SimJsonValue *f = sim_json_get (c, fk);
  if (f && tot > 0)
    return 100.0 * sim_json_number (f, 0) / tot;
  return sim_json_number (sim_json_get (c, pk), 0);
}

char *
sim_svg_caches (const SimReportData *d, gboolean standalone)
{
  const SimReportEntry *base = g_ptr_array_index (d->entries, d->baseline);
  g_autoptr (GPtrArray) names = sim_report_busiest_caches (base->result, 8);
  const double left = 160, pw = 290, gap = 50, top = 66, rh = 26;
  guint n = names->len;
  double w = left + 2 * pw + gap + 30, h = top + n * rh + 44;
  static const char *const kinds[2] = { "alloc", "free" };
  GString *o = g_string_new (NULL);
  svg_begin (o, w, h, standalone, "fastpath per cache");
  text (o, 12, 20, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"" INK "\"",
        "Fastpath % of the busiest caches");
  circle (o, 16, 35, 4, "fill=\"" MAIN "\" fill-opacity=\"0.5\"");
  text (o, 24, 39, NULL, "font-size=\"11\" fill=\"" MUTED "\"", "one dot per result");
  circle (o, 140, 35, 5, "fill=\"" ACCENT "\"");
  text (o, 149, 39, NULL, "font-size=\"11\" fill=\"" MUTED "\"", "baseline");
  line (o, 206, 35, 230, 35, "stroke=\"#9aa5b1\" stroke-width=\"6\" stroke-linecap=\"round\"");
  text (o, 236, 39, NULL, "font-size=\"11\" fill=\"" MUTED "\"",
        "range over all results; caches ordered by baseline activity");
  for (int k = 0; k < 2; k++)
    {
      double x0 = left + k * (pw + gap);
      text (o, x0, top - 8, NULL, "font-weight=\"bold\" fill=\"" INK "\"",
            k == 0 ? "alloc fastpath %" : "free fastpath %");
      /* Zoom on the range the results span: fast paths often differ by
       * a few percent near 100. */
      double min = 100;
      for (guint c = 0; c < n; c++)
        for (guint i = 0; i < d->entries->len; i++)
          {
            const SimJsonValue *cv = sim_report_find_cache (((SimReportEntry *) g_ptr_array_index (d->entries, i))->result,
                                                            g_ptr_array_index (names, c));
            if (cv)
              min = MIN (min, cache_fast (cv, kinds[k]));
          }
      double step = nice_step (MAX (100 - min, 10), 5);
      min = floor (min / step) * step;
      if (min >= 100)
        min = 100 - step;
      x_axis (o, x0, pw, top, top + n * rh, min, 100, step, "%");
#define XP(v) (x0 + pw * ((v) - min) / (100 - min))
      for (guint c = 0; c < n; c++)
        {
          const char *name = g_ptr_array_index (names, c);
          double y = top + c * rh + rh / 2, lo = 101, hi = -1;
          for (guint j = 0; j < d->entries->len; j++)
            {
              guint i;
              const SimJsonValue *cv = drawn_cache (d, j, name, &i);
              if (cv == NULL)
                continue;
              double v = cache_fast (cv, kinds[k]);
              lo = MIN (lo, v);
              hi = MAX (hi, v);
            }
          if (hi >= 0)
            line (o, XP (lo), y, XP (hi), y,
                  "stroke=\"#cbd2d9\" stroke-width=\"8\" stroke-linecap=\"round\"");
          for (guint j = 0; j < d->entries->len; j++)
            {
              guint i;
              const SimJsonValue *cv = drawn_cache (d, j, name, &i);
              if (cv == NULL)
                continue;
              const SimReportEntry *e = g_ptr_array_index (d->entries, i);
              /* Which cache of this result was matched: another era's
               * name for the class, or the merged cache holding it. */
              g_string_append (o, "<g><title>");
              sim_svg_escape (o, e->label);
              g_autofree char *fv = sim_report_num (cache_fast (cv, kinds[k]), 1);
              g_string_append_printf (o, ": %s %s fastpath %s%%", sim_json_str (sim_json_get (cv, "name"), "?"),
                                      kinds[k], fv);
              g_string_append (o, "</title>\n");
              circle (o, XP (cache_fast (cv, kinds[k])), y, i == d->baseline ? 5 : 3.5,
                      i == d->baseline ? "fill=\"" ACCENT "\" stroke=\"#ffffff\""
                                       : "fill=\"" MAIN "\" fill-opacity=\"0.5\"");
              g_string_append (o, "</g>\n");
            }

          if (k == 0)
            text (o, left - 10, y + 4, "end", "font-size=\"11\" fill=\"" INK "\"", name);
        }
#undef XP
    }
  g_string_append (o, "</svg>\n");
  return g_string_free (o, FALSE);
}

/* ------------------------------------------------------------------ */
/* Comparisons: bars, trade-off                                        */

/* The colour of a %change against the baseline, oriented so that better
 * is blue and worse is orange whichever way the metric points; the
 * strength grows with |%change| up to SIM_SVG_SATURATE_PCT, so a 3%
 * spread stays pale and a 50% one is strong.  Within @threshold: grey. */
void
sim_svg_change_colour (const SimReportMetric *m, double v, double base, double threshold,
                       char out[8])
{
  static const guint8 grey[3] = { 0xcb, 0xd2, 0xd9 };
  static const guint8 better[3] = { 0x21, 0x66, 0xac };
  static const guint8 worse[3] = { 0xd9, 0x5f, 0x0e };
  static const guint8 pale[3] = { 0xe4, 0xe7, 0xeb };
  double pc = base != 0.0 ? 100.0 * (v - base) / base : 0.0;
  if (fabs (pc) < threshold || base == 0.0)
    {
      g_snprintf (out, 8, "#%02x%02x%02x", grey[0], grey[1], grey[2]);
      return;
    }
  gboolean good = (pc > 0) == m->higher_is_better;
  const guint8 *to = good ? better : worse;
  double t = 0.25 + 0.75 * MIN (fabs (pc) / SIM_SVG_SATURATE_PCT, 1.0);
  guint rgb[3];
  for (guint k = 0; k < 3; k++)
    rgb[k] = (guint) lround (pale[k] + t * ((double) to[k] - pale[k]));
  g_snprintf (out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static double
label_width (const SimReportData *d)
{
  guint n = 0;
  for (guint i = 0; i < d->entries->len; i++)
    n = MAX (n, (guint) strlen (((SimReportEntry *) g_ptr_array_index (d->entries, i))->label));
  /* About 6.6 px a character at 11 px DejaVu Sans; never cut. */
  return MAX (120.0, 6.6 * n + 24);
}

char *
sim_svg_bars (const SimReportData *d, const SimReportMetric *m, double threshold,
              gboolean standalone)
{
  const SimReportEntry *b = g_ptr_array_index (d->entries, d->baseline);
  guint n = d->entries->len;
  const double left = label_width (d), pw = 300, top = 50, rh = 22, right = 150;
  double w = left + pw + right, h = top + n * rh + 30;
  double bv = m->get (b->result), mx = 0;
  for (guint i = 0; i < n; i++)
    mx = MAX (mx, m->get (((SimReportEntry *) g_ptr_array_index (d->entries, i))->result));
  double step = nice_step (mx > 0 ? mx : 1, 4);
  double top_v = mx > 0 ? ceil (mx * 1.02 / step) * step : 1;
  GString *o = g_string_new (NULL);
  svg_begin (o, w, h, standalone, m->title);
  text (o, 12, 20, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"" INK "\"", m->title);
  g_autofree char *th = sim_report_num (threshold, 1), *sat = sim_report_num (SIM_SVG_SATURATE_PCT, 0);
  g_autofree char *sub = g_strdup_printf ("%s is better; colour: %%change against the baseline, "
                                          "blue better, orange worse (grey within %s%%, full at %s%%)",
                                          m->higher_is_better ? "higher" : "lower", th, sat);
  text (o, 12, 36, NULL, "font-size=\"11\" fill=\"" MUTED "\"", sub);
  x_axis (o, left, pw, top, top + n * rh, 0, top_v, step, "");
  int dec = MIN (m->decimals, 3);
  for (guint i = 0; i < n; i++)
    {
      const SimReportEntry *e = g_ptr_array_index (d->entries, i);
      double v = m->get (e->result), y = top + i * rh;
      char col[8];
      sim_svg_change_colour (m, v, bv, threshold, col);
      g_autofree char *vs = sim_report_num (v, dec);
      g_autofree char *cs = i == d->baseline ? g_strdup ("baseline") : sim_report_change (v, bv);
      g_string_append (o, "<g><title>");
      sim_svg_escape (o, e->label);
      g_string_append_printf (o, ": %s %s (", vs, m->title);
      sim_svg_escape (o, cs);
      g_string_append (o, ")</title>\n");
      g_autofree char *fill = g_strdup_printf ("fill=\"%s\"%s", col,
                                               i == d->baseline ? " stroke=\"" INK "\" stroke-width=\"1.5\"" : "");
      rect (o, left, y + 4, MAX (pw * v / top_v, 1.0), rh - 8, fill);
      text (o, left - 8, y + rh / 2 + 4, "end",
            i == d->baseline ? "font-size=\"11\" font-weight=\"bold\" fill=\"" INK "\""
                             : "font-size=\"11\" fill=\"" INK "\"", e->label);
      g_autofree char *vt = g_strdup_printf ("%s  %s", vs, cs);
      text (o, left + pw + 8, y + rh / 2 + 4, NULL, "font-size=\"11\" fill=\"" INK "\"", vt);
      g_string_append (o, "</g>\n");
    }
  g_string_append (o, "</svg>\n");
  return g_string_free (o, FALSE);
}

char *
sim_svg_tradeoff (const SimReportData *d, const SimReportMetric *mx_m, const SimReportMetric *my_m,
                  gboolean standalone)
{
  guint n = d->entries->len;
  const double left = 70, top = 50, pw = 420, ph = 260;
  double w = left + pw + 40 + label_width (d), h = top + ph + 50;
  double xmax = 0, ymax = 0;
  for (guint i = 0; i < n; i++)
    {
      const SimReportEntry *e = g_ptr_array_index (d->entries, i);
      xmax = MAX (xmax, mx_m->get (e->result));
      ymax = MAX (ymax, my_m->get (e->result));
    }
  double xs = nice_step (xmax > 0 ? xmax : 1, 5), ys = nice_step (ymax > 0 ? ymax : 1, 5);
  xmax = xmax > 0 ? ceil (xmax * 1.05 / xs) * xs : 1;
  ymax = ymax > 0 ? ceil (ymax * 1.05 / ys) * ys : 1;
  GString *o = g_string_new (NULL);
  g_autofree char *title = g_strdup_printf ("%s against %s", my_m->title, mx_m->title);
  svg_begin (o, w, h, standalone, title);
  text (o, 12, 20, NULL, "font-size=\"14\" font-weight=\"bold\" fill=\"" INK "\"",
        "Memory against cost");
  text (o, 12, 36, NULL, "font-size=\"11\" fill=\"" MUTED "\"",
        "one labelled dot per result; lower left is better on both; orange: baseline");
  x_axis (o, left, pw, top, top + ph, 0, xmax, xs, mx_m->title);
  for (double t = 0; t <= ymax + ys * 1e-9; t += ys)
    {
      double y = top + ph - ph * t / ymax;
      line (o, left, y, left + pw, y, "stroke=\"" GRID "\"");
      g_autofree char *s = sim_report_num (t, ys < 1 ? 1 : 0);
      text (o, left - 6, y + 4, "end", "font-size=\"10\" fill=\"" MUTED "\"", s);
    }
  {
    char a[G_ASCII_DTOSTR_BUF_SIZE], b2[G_ASCII_DTOSTR_BUF_SIZE];
    g_autofree char *attrs = g_strdup_printf ("font-size=\"10\" fill=\"" MUTED "\" "
                                              "transform=\"rotate(-90 %s %s)\"",
                                              f1 (a, 16), f1 (b2, top + ph / 2));
    text (o, 16, top + ph / 2, "middle", attrs, my_m->title);
  }
  for (guint i = 0; i < n; i++)
    {
      const SimReportEntry *e = g_ptr_array_index (d->entries, i);
      double xv = mx_m->get (e->result), yv = my_m->get (e->result);
      double cx = left + pw * xv / xmax, cy = top + ph - ph * yv / ymax;
      g_autofree char *xs_ = sim_report_num (xv, mx_m->decimals);
      g_autofree char *ys_ = sim_report_num (yv, my_m->decimals);
      g_string_append (o, "<g><title>");
      sim_svg_escape (o, e->label);
      g_string_append_printf (o, ": %s ", xs_);
      sim_svg_escape (o, mx_m->title);
      g_string_append_printf (o, ", %s ", ys_);
      sim_svg_escape (o, my_m->title);
      g_string_append (o, "</title>\n");
      circle (o, cx, cy, i == d->baseline ? 6 : 5,
              i == d->baseline ? "fill=\"" ACCENT "\" stroke=\"#ffffff\""
                               : "fill=\"" MAIN "\" stroke=\"#ffffff\"");
      /* Numbered dots, the numbers keyed beside the plot: labels of
       * nearby results would overlap on the plot itself. */
      g_autofree char *num = g_strdup_printf ("%u", e->index);
      text (o, cx + 8, cy - 6, NULL, "font-size=\"10\" fill=\"" INK "\"", num);
      g_string_append (o, "</g>\n");
      g_autofree char *key = g_strdup_printf ("%u  %s", e->index, e->label);
      text (o, left + pw + 30, top + 10 + i * 16, NULL,
            i == d->baseline ? "font-size=\"11\" font-weight=\"bold\" fill=\"" INK "\""
                             : "font-size=\"11\" fill=\"" INK "\"", key);
    }
  g_string_append (o, "</svg>\n");
  return g_string_free (o, FALSE);
}
