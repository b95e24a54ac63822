/* sweep-report.c - the renderers of "slabsim report"; see sweep-report.h. */
#include "sim/report/sweep-report.h"
#include "sim/report/svg.h"
#include "slabsim-config.h"

#include <math.h>
#include <string.h>

#define TEXT_WIDTH 100
#define METRIC_COL 18     /* " %9s %7s": value and %change */

static const char *const default_metrics[] = {
  "alloc_fast_pct", "l1d_misses_per_op", "footprint_kib", "alloc_cycles", NULL
};

static const SimReportEntry *
entry (const SimReportData *d, guint i)
{
  return g_ptr_array_index (d->entries, i);
}

/* The values every result shares: trace, machine, allocator. */
static char *
common (const SimReportData *d, const char *what)
{
  GPtrArray *seen = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < d->entries->len; i++)
    {
      const SimReportEntry *e = entry (d, i);
      g_autofree char *both = NULL;
      const char *v = strcmp (what, "trace") == 0 ? e->trace
                      : strcmp (what, "machine") == 0 ? e->machine
                      : strcmp (what, "version") == 0 ? e->version
                      : strcmp (what, "trace_sha256") == 0 ? e->trace_sha256
                      : strcmp (what, "machine_sha256") == 0 ? e->machine_sha256
                      : sim_report_entry_param (e, "allocator");
      if (strcmp (what, "machine_sha256") == 0 && e->machine_sha256)
        v = both = g_strdup_printf ("%s %s", e->machine_file ? e->machine_file : e->machine,
                                    e->machine_sha256);
      if (v == NULL)
        {
          if (strcmp (what, "trace") && strcmp (what, "machine") && strcmp (what, "allocator"))
            continue;           /* not recorded by older outputs: say nothing */
          v = "?";
        }
      gboolean have = FALSE;
      for (guint k = 0; k < seen->len && !have; k++)
        have = strcmp (g_ptr_array_index (seen, k), v) == 0;
      if (!have)
        g_ptr_array_add (seen, g_strdup (v));
    }
  if (seen->len == 0)
    {
      g_ptr_array_unref (seen);
      return NULL;
    }
  g_ptr_array_add (seen, NULL);
  char *s = g_strjoinv (", ", (char **) seen->pdata);
  g_ptr_array_unref (seen);
  return s;
}

static const char *
param_or_dash (const SimReportEntry *e, const char *key)
{
  const char *v = sim_report_entry_param (e, key);
  return v ? v : "-";
}

/* ------------------------------------------------------------------ */
/* Text                                                                */

/* Which inputs and which slabsim made the results: full hashes, one per
 * line, wrapped so no line passes the text width. */
static void
text_provenance (GString *o, const SimReportData *d)
{
  static const char *const what[] = { "trace_sha256", "machine_sha256", "version" };
  static const char *const label[] = { "trace sha256:", "machine file:", "slabsim:" };
  for (guint k = 0; k < G_N_ELEMENTS (what); k++)
    {
      g_autofree char *v = common (d, what[k]);
      if (v == NULL)
        continue;
      g_auto (GStrv) parts = g_strsplit (v, ", ", -1);
      for (guint i = 0; parts[i]; i++)
        g_string_append_printf (o, "%-14s%s\n", i ? "" : label[k], parts[i]);
    }
}

/* "label: a, b, c" wrapped at the text width on the ", " between items. */
static void
text_wrapped (GString *o, const char *label, const char *list)
{
  g_auto (GStrv) parts = g_strsplit (list, ", ", -1);
  gsize start = o->len;
  g_string_append (o, label);
  for (guint i = 0; parts[i]; i++)
    {
      gsize line_len = o->len - start;
      if (i > 0 && line_len + 2 + strlen (parts[i]) > TEXT_WIDTH)
        {
          g_string_append (o, ",\n");
          start = o->len;
          g_string_append_printf (o, "%*s%s", (int) strlen (label), "", parts[i]);
        }
      else
        g_string_append_printf (o, "%s%s", i ? ", " : "", parts[i]);
    }
  g_string_append_c (o, '\n');
}

static void
text_header (GString *o, const SimReportData *d)
{
  const SimReportEntry *b = entry (d, d->baseline);
  g_autofree char *tr = common (d, "trace"), *ma = common (d, "machine"),
                  *al = common (d, "allocator");
  g_string_append_printf (o, "slabsim report: %s (%u result%s)\n", d->title, d->entries->len,
                          d->entries->len == 1 ? "" : "s");
  text_wrapped (o, "trace:     ", tr);
  text_wrapped (o, "machine:   ", ma);
  text_wrapped (o, "allocator: ", al);
  if (d->axes->len)
    {
      g_string_append (o, "varying:   ");
      for (guint k = 0; k < d->axes->len; k++)
        g_string_append_printf (o, "%s%s", k ? ", " : "", (char *) g_ptr_array_index (d->axes, k));
      g_string_append_c (o, '\n');
    }
  g_string_append_printf (o, "baseline:  #%u %s%s%s%s\n", b->index, b->label,
                          b->id ? " (" : "", b->id ? b->id : "", b->id ? ")" : "");
  text_provenance (o, d);
}

static void
text_table (GString *o, const SimReportData *d, const SimReportMetric *const *ms, guint n_ms)
{
  /* Axis columns, or the allocator label for plain run results. */
  guint n_ax = d->axes->len;
  guint *aw = g_new0 (guint, MAX (n_ax, 1));
  guint axes_w = 5;                      /* "%3u* " index and baseline mark */
  for (guint k = 0; k < n_ax; k++)
    {
      const char *key = sim_report_short_key (g_ptr_array_index (d->axes, k));
      aw[k] = (guint) strlen (key);
      for (guint i = 0; i < d->entries->len; i++)
        aw[k] = MAX (aw[k], (guint) strlen (param_or_dash (entry (d, i), g_ptr_array_index (d->axes, k))));
      /* Labels in full: one axis may take what one metric block leaves;
       * several share it. */
      aw[k] = MIN (aw[k], n_ax == 1 ? (guint) (TEXT_WIDTH - 6 - METRIC_COL) : 24u);
      axes_w += aw[k] + 1;
    }
  guint per_block = axes_w < TEXT_WIDTH ? (TEXT_WIDTH - axes_w) / METRIC_COL : 1;
  per_block = MAX (per_block, 1u);
  const SimReportEntry *b = entry (d, d->baseline);
  for (guint m0 = 0; m0 < n_ms; m0 += per_block)
    {
      guint m1 = MIN (n_ms, m0 + per_block);
      g_string_append_c (o, '\n');
      g_string_append_printf (o, "%*s", (int) axes_w, "");
      for (guint m = m0; m < m1; m++)
        g_string_append_printf (o, " %*s", METRIC_COL - 1, ms[m]->abbrev);
      g_string_append_c (o, '\n');
      g_string_append (o, "  #  ");
      for (guint k = 0; k < n_ax; k++)
        g_string_append_printf (o, "%-*.*s ", aw[k], aw[k],
                                sim_report_short_key (g_ptr_array_index (d->axes, k)));
      for (guint m = m0; m < m1; m++)
        g_string_append_printf (o, " %9s %7s", "value", "%change");
      g_string_append_c (o, '\n');
      for (guint i = 0; i < d->entries->len; i++)
        {
          const SimReportEntry *e = entry (d, i);
          g_string_append_printf (o, "%3u%c ", e->index, i == d->baseline ? '*' : ' ');
          for (guint k = 0; k < n_ax; k++)
            g_string_append_printf (o, "%-*.*s ", aw[k], aw[k], param_or_dash (e, g_ptr_array_index (d->axes, k)));
          for (guint m = m0; m < m1; m++)
            {
              double v = ms[m]->get (e->result), bv = ms[m]->get (b->result);
              g_autofree char *vs = sim_report_num (v, ms[m]->decimals);
              g_autofree char *cs = i == d->baseline ? g_strdup ("base") : sim_report_change (v, bv);
              g_string_append_printf (o, " %9s %7s", vs, cs);
            }
          /* No trailing blanks: a mail client may keep them. */
          while (o->len && o->str[o->len - 1] == ' ')
            g_string_truncate (o, o->len - 1);
          g_string_append_c (o, '\n');
        }
    }
  g_free (aw);
}

/* Facets: one entry for each distinct combination of the axes past the
 * first two. */
static GPtrArray *
facets (const SimReportData *d)
{
  GPtrArray *out = g_ptr_array_new ();
  if (d->axes->len <= 2)
    {
      g_ptr_array_add (out, NULL);
      return out;
    }
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < d->entries->len; i++)
    {
      GString *k = g_string_new (NULL);
      for (guint a = 2; a < d->axes->len; a++)
        g_string_append_printf (k, "%s\n", param_or_dash (entry (d, i), g_ptr_array_index (d->axes, a)));
      if (!g_hash_table_contains (seen, k->str))
        {
          g_hash_table_add (seen, g_strdup (k->str));
          g_ptr_array_add (out, (gpointer) entry (d, i));
        }
      g_string_free (k, TRUE);
    }
  g_hash_table_destroy (seen);
  return out;
}

static gboolean
in_facet (const SimReportData *d, const SimReportEntry *e, const SimReportEntry *facet)
{
  for (guint a = 2; facet && a < d->axes->len; a++)
    if (g_strcmp0 (sim_report_entry_param (e, g_ptr_array_index (d->axes, a)),
                   sim_report_entry_param (facet, g_ptr_array_index (d->axes, a))) != 0)
      return FALSE;
  return TRUE;
}

/* The metric over the first two axes as a grid of cells: text or Markdown. */
static void
grid_table (GString *o, const SimReportData *d, const SimReportMetric *m,
            const SimReportEntry *facet, gboolean markdown)
{
  const char *ykey = g_ptr_array_index (d->axes, 0);
  const char *xkey = d->axes->len > 1 ? g_ptr_array_index (d->axes, 1) : NULL;
  g_autoptr (GPtrArray) ys = sim_svg_axis_values (d, ykey);
  g_autoptr (GPtrArray) xs = xkey ? sim_svg_axis_values (d, xkey) : g_ptr_array_new ();
  if (!xkey)
    g_ptr_array_add (xs, (gpointer) "");
  GString *facet_s = g_string_new (NULL);
  for (guint a = 2; facet && a < d->axes->len; a++)
    g_string_append_printf (facet_s, ", %s=%s", (char *) g_ptr_array_index (d->axes, a),
                            param_or_dash (facet, g_ptr_array_index (d->axes, a)));
  g_autofree char *corner = xkey ? g_strdup_printf ("%s \\ %s", sim_report_short_key (ykey),
                                                    sim_report_short_key (xkey))
                                 : g_strdup (sim_report_short_key (ykey));
  guint cw = 9, lw = MAX ((guint) strlen (corner), 6u);
  for (guint y = 0; y < ys->len; y++)
    lw = MAX (lw, (guint) strlen (g_ptr_array_index (ys, y)) + 1);
  for (guint x = 0; x < xs->len; x++)
    cw = MAX (cw, (guint) strlen (g_ptr_array_index (xs, x)) + 1);
  if (!markdown && lw + cw * xs->len > TEXT_WIDTH)
    {
      g_string_append_printf (o, "\n%s: %u columns do not fit in %u characters; see the "
                              "table above\n", m->title, xs->len, TEXT_WIDTH);
      g_string_free (facet_s, TRUE);
      return;
    }
  if (markdown)
    g_string_append_printf (o, "\n### %s by %s%s%s%s\n\n", m->title, ykey, xkey ? " and " : "",
                            xkey ? xkey : "", facet_s->str);
  else
    g_string_append_printf (o, "\n%s (%s) by %s%s%s%s\n", m->title,
                            m->higher_is_better ? "higher is better" : "lower is better",
                            ykey, xkey ? " and " : "", xkey ? xkey : "", facet_s->str);
  g_string_free (facet_s, TRUE);
  if (markdown)
    {
      g_string_append_printf (o, "| %s |", corner);
      for (guint x = 0; x < xs->len; x++)
        g_string_append_printf (o, " %s |", (char *) g_ptr_array_index (xs, x));
      g_string_append (o, "\n|---|");
      for (guint x = 0; x < xs->len; x++)
        g_string_append (o, "---:|");
      g_string_append_c (o, '\n');
    }
  else
    {
      g_string_append_printf (o, "%-*s", lw, corner);
      for (guint x = 0; x < xs->len; x++)
        g_string_append_printf (o, "%*s", cw, (char *) g_ptr_array_index (xs, x));
      g_string_append_c (o, '\n');
    }
  for (guint y = 0; y < ys->len; y++)
    {
      const char *yv = g_ptr_array_index (ys, y);
      if (markdown)
        g_string_append_printf (o, "| %s |", yv);
      else
        g_string_append_printf (o, "%-*s", lw, yv);
      for (guint x = 0; x < xs->len; x++)
        {
          const SimReportEntry *hit = NULL;
          for (guint i = 0; i < d->entries->len && !hit; i++)
            {
              const SimReportEntry *e = entry (d, i);
              if (in_facet (d, e, facet) && strcmp (param_or_dash (e, ykey), yv) == 0
                  && (!xkey || strcmp (param_or_dash (e, xkey), g_ptr_array_index (xs, x)) == 0))
                hit = e;
            }
          g_autofree char *vs = hit ? sim_report_num (m->get (hit->result), m->decimals)
                                    : g_strdup ("-");
          if (markdown)
            g_string_append_printf (o, " %s%s%s |", hit == entry (d, d->baseline) ? "**" : "", vs,
                                    hit == entry (d, d->baseline) ? "**" : "");
          else
            g_string_append_printf (o, "%*s", cw, vs);
        }
      g_string_append_c (o, '\n');
    }
}

static char *
render_text (const SimReportData *d, const SimReportMetric *const *ms, guint n_ms)
{
  GString *o = g_string_new (NULL);
  text_header (o, d);
  text_table (o, d, ms, n_ms);
  /* With one axis the table above already is the grid. */
  if (d->axes->len >= 2)
    {
      g_autoptr (GPtrArray) fs = facets (d);
      for (guint m = 0; m < n_ms; m++)
        for (guint f = 0; f < fs->len; f++)
          grid_table (o, d, ms[m], g_ptr_array_index (fs, f), FALSE);
    }
  g_string_append (o, "\n* baseline; %change = (value - baseline) / baseline\n");
  return g_string_free (o, FALSE);
}

/* ------------------------------------------------------------------ */
/* Markdown                                                            */

static void
md_cell (GString *o, const char *s)
{
  for (; *s; s++)
    {
      if (*s == '|')
        g_string_append_c (o, '\\');
      g_string_append_c (o, *s);
    }
}

static char *
render_markdown (const SimReportData *d, const SimReportMetric *const *ms, guint n_ms)
{
  GString *o = g_string_new (NULL);
  const SimReportEntry *b = entry (d, d->baseline);
  g_autofree char *tr = common (d, "trace"), *ma = common (d, "machine"),
                  *al = common (d, "allocator");
  g_string_append_printf (o, "# slabsim report: %s\n\n", d->title);
  g_string_append_printf (o, "- results: %u\n- trace: `%s`\n- machine: %s\n- allocator: %s\n",
                          d->entries->len, tr, ma, al);
  if (d->axes->len)
    {
      g_string_append (o, "- varying: ");
      for (guint k = 0; k < d->axes->len; k++)
        g_string_append_printf (o, "%s`%s`", k ? ", " : "", (char *) g_ptr_array_index (d->axes, k));
      g_string_append_c (o, '\n');
    }
  g_string_append_printf (o, "- baseline: #%u %s%s%s%s\n", b->index, b->label,
                          b->id ? " (`" : "", b->id ? b->id : "", b->id ? "`)" : "");
  {
    g_autofree char *ts = common (d, "trace_sha256"), *ms_ = common (d, "machine_sha256"),
                    *ver = common (d, "version");
    if (ts)
      g_string_append_printf (o, "- trace sha256: `%s`\n", ts);
    if (ms_)
      g_string_append_printf (o, "- machine file sha256: `%s`\n", ms_);
    if (ver)
      g_string_append_printf (o, "- slabsim: %s\n", ver);
  }
  g_string_append (o, "\n## Results\n\n| # |");
  for (guint k = 0; k < d->axes->len; k++)
    g_string_append_printf (o, " %s |", (char *) g_ptr_array_index (d->axes, k));
  for (guint m = 0; m < n_ms; m++)
    g_string_append_printf (o, " %s | %%change |", ms[m]->title);
  g_string_append (o, "\n|--:|");
  for (guint k = 0; k < d->axes->len; k++)
    g_string_append (o, "---|");
  for (guint m = 0; m < n_ms; m++)
    g_string_append (o, "--:|--:|");
  g_string_append_c (o, '\n');
  for (guint i = 0; i < d->entries->len; i++)
    {
      const SimReportEntry *e = entry (d, i);
      g_string_append_printf (o, "| %u%s |", e->index, i == d->baseline ? " (base)" : "");
      for (guint k = 0; k < d->axes->len; k++)
        {
          g_string_append_c (o, ' ');
          md_cell (o, param_or_dash (e, g_ptr_array_index (d->axes, k)));
          g_string_append (o, " |");
        }
      for (guint m = 0; m < n_ms; m++)
        {
          double v = ms[m]->get (e->result), bv = ms[m]->get (b->result);
          g_autofree char *vs = sim_report_num (v, ms[m]->decimals);
          g_autofree char *cs = i == d->baseline ? g_strdup ("") : sim_report_change (v, bv);
          g_string_append_printf (o, " %s | %s |", vs, cs);
        }
      g_string_append_c (o, '\n');
    }
  if (d->axes->len >= 2)
    {
      g_string_append (o, "\n## Over the sweep grid\n");
      g_autoptr (GPtrArray) fs = facets (d);
      for (guint m = 0; m < n_ms; m++)
        for (guint f = 0; f < fs->len; f++)
          grid_table (o, d, ms[m], g_ptr_array_index (fs, f), TRUE);
    }
  g_string_append (o, "\nBold: the baseline. %change = (value - baseline) / baseline.\n");
  return g_string_free (o, FALSE);
}

/* ------------------------------------------------------------------ */
/* HTML                                                                */

static const char css[] =
  "body{margin:0;background:#f5f7fa;color:#1f2933;"
  "font:14px/1.45 'DejaVu Sans',Helvetica,Arial,sans-serif}\n"
  "main{max-width:1180px;margin:0 auto;padding:28px 32px 48px}\n"
  "h1{font-size:24px;margin:0 0 4px}\n"
  "h2{font-size:17px;margin:36px 0 6px}\n"
  "p.lead{color:#52606d;margin:0 0 18px}\n"
  "p.note{color:#616e7c;font-size:12.5px;margin:4px 0 10px}\n"
  "dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0 0 18px;"
  "font-size:13px}\n"
  "dl.meta dt{color:#616e7c}dl.meta dd{margin:0;font-family:'DejaVu Sans Mono',monospace}\n"
  ".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(250px,1fr));gap:14px}\n"
  ".card{background:#fff;border-radius:10px;padding:14px 16px;"
  "box-shadow:0 1px 3px rgba(31,41,51,.12)}\n"
  ".card .k{color:#616e7c;font-size:12.5px}\n"
  ".card .v{font-size:26px;font-weight:bold;margin:2px 0}\n"
  ".card .w{font-size:12.5px;color:#52606d}\n"
  ".card .chg{font-size:14px}\n"
  ".panel{background:#fff;border-radius:10px;padding:12px 14px;margin:10px 0;"
  "box-shadow:0 1px 3px rgba(31,41,51,.12);overflow-x:auto}\n"
  ".maps{display:flex;flex-wrap:wrap;gap:14px}\n"
  ".maps .panel{margin:0}\n"
  "table{border-collapse:collapse;font-size:12.5px;background:#fff}\n"
  "th,td{padding:4px 9px;text-align:right;white-space:nowrap}\n"
  "th{background:#e4e7eb;position:sticky;top:0}\n"
  "td.p,th.p{text-align:left;font-family:'DejaVu Sans Mono',monospace}\n"
  "tr:nth-child(even) td{background:#f8f9fb}\n"
  "tr.base td{background:#fff4e5;font-weight:bold}\n"
  ".better{color:#1b7f3b}.worse{color:#b42318}.same{color:#9aa5b1}\n"
  "footer{margin-top:36px;color:#9aa5b1;font-size:12px}\n"
  "svg{max-width:100%;height:auto}\n"
  /* Print and PDF: every column kept (no scrolling box to cut it), tables
   * shrink to the page, panels not split across pages. */
  "@page{size:A4 landscape;margin:12mm}\n"
  "@media print{body{background:#fff;font-size:11px}main{max-width:none;padding:0}"
  ".panel,.card{box-shadow:none;border:1px solid #cbd2d9;overflow:visible;"
  "break-inside:avoid}th{position:static}table{font-size:9px;width:100%}"
  "th,td{padding:2px 4px;white-space:normal}td.p{word-break:break-all}"
  ".maps{display:block}}\n";

static const char *
change_class (const SimReportMetric *m, double v, double base)
{
  if (base == 0.0 || fabs (100.0 * (v - base) / base) < 0.5)
    return "same";
  gboolean up = v > base;
  return up == m->higher_is_better ? "better" : "worse";
}

static void
html_cards (GString *o, const SimReportData *d, const SimReportMetric *const *ms, guint n_ms)
{
  const SimReportEntry *b = entry (d, d->baseline);
  g_autofree char *th = sim_report_num (d->threshold, 1);
  g_string_append_printf (o, "<p class=\"note\">Best result per metric, named only when it "
                          "differs from the baseline by at least %s%% (<code>--threshold</code>)."
                          "</p>\n<div class=\"cards\">\n", th);
  for (guint m = 0; m < n_ms; m++)
    {
      guint best = d->baseline;
      for (guint i = 0; i < d->entries->len; i++)
        {
          double v = ms[m]->get (entry (d, i)->result), bv = ms[m]->get (entry (d, best)->result);
          if (ms[m]->higher_is_better ? v > bv : v < bv)
            best = i;
        }
      const SimReportEntry *e = entry (d, best);
      double v = ms[m]->get (e->result), bv = ms[m]->get (b->result);
      /* A winner only beyond the threshold: a 0.3% lead is noise in a
       * design review, whatever the simulator's determinism. */
      if (best != d->baseline && (bv == 0.0 || fabs (100.0 * (v - bv) / bv) < d->threshold))
        best = d->baseline;
      e = entry (d, best);
      v = ms[m]->get (e->result);
      g_autofree char *vs = sim_report_num (v, ms[m]->decimals);
      g_autofree char *bs = sim_report_num (bv, ms[m]->decimals);
      g_autofree char *cs = sim_report_change (v, bv);
      g_string_append (o, "<div class=\"card\"><div class=\"k\">best ");
      sim_svg_escape (o, ms[m]->title);
      g_string_append_printf (o, "</div><div class=\"v\">%s <span class=\"chg %s\">%s</span></div>"
                              "<div class=\"w\">", vs, change_class (ms[m], v, bv),
                              best == d->baseline ? "" : cs);
      if (best == d->baseline)
        {
          g_string_append_printf (o, "no result beats the baseline by %s%% or more", th);
        }
      else
        {
          g_string_append_printf (o, "#%u ", e->index);
          sim_svg_escape (o, e->label);
          g_string_append_printf (o, " (baseline %s)", bs);
        }
      g_string_append (o, "</div></div>\n");
    }
  g_string_append (o, "</div>\n");
}

static void
html_table (GString *o, const SimReportData *d, const SimReportMetric *const *ms, guint n_ms)
{
  const SimReportEntry *b = entry (d, d->baseline);
  g_string_append (o, "<div class=\"panel\"><table>\n<tr><th class=\"p\">#</th>");
  for (guint k = 0; k < d->axes->len; k++)
    {
      g_string_append (o, "<th class=\"p\">");
      sim_svg_escape (o, g_ptr_array_index (d->axes, k));
      g_string_append (o, "</th>");
    }
  for (guint m = 0; m < n_ms; m++)
    {
      g_string_append (o, "<th>");
      sim_svg_escape (o, ms[m]->title);
      g_string_append (o, "</th><th>%change</th>");
    }
  g_string_append (o, "<th class=\"p\">id</th></tr>\n");
  for (guint i = 0; i < d->entries->len; i++)
    {
      const SimReportEntry *e = entry (d, i);
      g_string_append_printf (o, "<tr%s><td class=\"p\">%u</td>",
                              i == d->baseline ? " class=\"base\"" : "", e->index);
      for (guint k = 0; k < d->axes->len; k++)
        {
          g_string_append (o, "<td class=\"p\">");
          sim_svg_escape (o, param_or_dash (e, g_ptr_array_index (d->axes, k)));
          g_string_append (o, "</td>");
        }
      for (guint m = 0; m < n_ms; m++)
        {
          double v = ms[m]->get (e->result), bv = ms[m]->get (b->result);
          g_autofree char *vs = sim_report_num (v, ms[m]->decimals);
          g_autofree char *cs = i == d->baseline ? g_strdup ("baseline") : sim_report_change (v, bv);
          g_string_append_printf (o, "<td>%s</td><td class=\"%s\">%s</td>", vs,
                                  i == d->baseline ? "same" : change_class (ms[m], v, bv), cs);
        }
      g_string_append (o, "<td class=\"p\">");
      sim_svg_escape (o, e->id ? e->id : "");
      g_string_append (o, "</td></tr>\n");
    }
  g_string_append (o, "</table></div>\n");
}

static char *
render_html (const SimReportData *d, const SimReportMetric *const *ms, guint n_ms)
{
  GString *o = g_string_new (NULL);
  const SimReportEntry *b = entry (d, d->baseline);
  g_autofree char *tr = common (d, "trace"), *ma = common (d, "machine"),
                  *al = common (d, "allocator");
  g_string_append (o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<title>slabsim report: ");
  sim_svg_escape (o, d->title);
  g_string_append_printf (o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", css);
  g_string_append (o, "<h1>slabsim report: ");
  sim_svg_escape (o, d->title);
  g_string_append_printf (o, "</h1>\n<p class=\"lead\">%u result%s", d->entries->len,
                          d->entries->len == 1 ? "" : "s");
  if (d->axes->len)
    {
      g_string_append (o, " over ");
      for (guint k = 0; k < d->axes->len; k++)
        {
          g_string_append (o, k ? (k + 1 == d->axes->len ? " and " : ", ") : "");
          g_string_append (o, "<code>");
          sim_svg_escape (o, g_ptr_array_index (d->axes, k));
          g_string_append (o, "</code>");
        }
    }
  g_string_append (o, ", compared with the baseline.</p>\n<dl class=\"meta\">");
  const char *labels[] = { "trace", "machine", "allocator" };
  const char *vals[] = { tr, ma, al };
  for (guint i = 0; i < 3; i++)
    {
      g_string_append_printf (o, "<dt>%s</dt><dd>", labels[i]);
      sim_svg_escape (o, vals[i]);
      g_string_append (o, "</dd>");
    }
  g_string_append_printf (o, "<dt>baseline</dt><dd>#%u ", b->index);
  sim_svg_escape (o, b->label);
  if (b->id)
    g_string_append_printf (o, " (%s)", b->id);
  g_string_append (o, "</dd>");
  {
    static const char *const pk[] = { "trace_sha256", "machine_sha256", "version" };
    static const char *const pl[] = { "trace sha256", "machine file sha256", "slabsim" };
    for (guint i = 0; i < G_N_ELEMENTS (pk); i++)
      {
        g_autofree char *v = common (d, pk[i]);
        if (v == NULL)
          continue;
        g_string_append_printf (o, "<dt>%s</dt><dd>", pl[i]);
        sim_svg_escape (o, v);
        g_string_append (o, "</dd>");
      }
  }
  g_string_append (o, "</dl>\n");

  html_cards (o, d, ms, n_ms);

  if (d->axes->len <= 1)
    {
      /* A comparison, not a grid: one labelled bar per result and metric. */
      g_string_append (o, "<h2>Side by side</h2>\n<p class=\"note\">One bar per result; "
                       "the value and its %change against the baseline (outlined) at the "
                       "right; hover a bar for its label and value.</p>\n<div class=\"maps\">\n");
      guint nm;
      const SimReportMetric *allm = sim_report_metrics (&nm);
      for (guint m = 0; m < n_ms; m++)
        {
          g_autofree char *svg = sim_svg_bars (d, ms[m], d->threshold, FALSE);
          g_string_append_printf (o, "<div class=\"panel\">\n%s</div>\n", svg);
        }
      /* The metrics of the memory hierarchy, always: what the fast paths
       * cost further down. */
      static const char *const deep[] = { "l2_misses_per_op", "l3_misses_per_op",
                                          "remote_dram_per_kop", "hitm_per_kop", "peak_kib" };
      for (guint k = 0; k < G_N_ELEMENTS (deep); k++)
        {
          gboolean shown = FALSE;
          for (guint m = 0; m < n_ms; m++)
            shown |= strcmp (ms[m]->name, deep[k]) == 0;
          const SimReportMetric *dm = sim_report_metric_lookup (deep[k]);
          if (shown || dm == NULL)
            continue;
          g_autofree char *svg = sim_svg_bars (d, dm, d->threshold, FALSE);
          g_string_append_printf (o, "<div class=\"panel\">\n%s</div>\n", svg);
        }
      (void) allm;
      (void) nm;
      g_string_append (o, "</div>\n");
    }
  else
    {
      const char *ykey = d->axes->len > 1 ? g_ptr_array_index (d->axes, 0) : NULL;
      const char *xkey = d->axes->len > 1 ? g_ptr_array_index (d->axes, 1) : g_ptr_array_index (d->axes, 0);
      g_autofree char *th = sim_report_num (d->threshold, 1);
      g_string_append_printf (o, "<h2>Over the sweep grid</h2>\n<p class=\"note\">Each cell "
                              "is one result, its value and %%change against the baseline "
                              "(outlined); blue is better, orange worse, grey within %s%%; "
                              "the colour is full at %s%% in every map.</p>\n"
                              "<div class=\"maps\">\n", th, "25");
      g_autoptr (GPtrArray) fs = facets (d);
      for (guint f = 0; f < fs->len && f < 12; f++)
        for (guint m = 0; m < n_ms; m++)
          {
            g_autofree char *svg = sim_svg_heatmap (d, ms[m], xkey, ykey, g_ptr_array_index (fs, f),
                                                    FALSE);
            g_string_append_printf (o, "<div class=\"panel\">\n%s</div>\n", svg);
          }
      g_string_append (o, "</div>\n");
    }
  g_autofree char *caches = sim_svg_caches (d, FALSE);
  g_string_append_printf (o, "<h2>Busiest caches</h2>\n<p class=\"note\">Where each result "
                          "puts the fast paths of the eight caches the baseline uses most."
                          "</p>\n<div class=\"panel\">\n%s</div>\n", caches);
  g_autofree char *cycles = sim_svg_cycles (d, FALSE);
  g_string_append_printf (o, "<h2>Cost per operation</h2>\n<p class=\"note\">Simulated cycles "
                          "per allocation and per free, including cache misses and lock "
                          "waits.</p>\n<div class=\"panel\">\n%s</div>\n", cycles);
  {
    const SimReportMetric *mem = sim_report_metric_lookup ("peak_kib");
    const SimReportMetric *cyc = sim_report_metric_lookup ("op_cycles");
    gboolean have_peak = FALSE;
    for (guint i = 0; i < d->entries->len; i++)
      have_peak |= mem->get (entry (d, i)->result) > 0;
    if (!have_peak)
      mem = sim_report_metric_lookup ("footprint_kib");
    g_autofree char *tr_svg = sim_svg_tradeoff (d, mem, cyc, FALSE);
    g_string_append_printf (o, "<h2>Memory against cycles</h2>\n<p class=\"note\">Each "
                            "result's %s against its mean cycles per operation (allocations "
                            "and frees): the trade-off a design review weighs.</p>\n"
                            "<div class=\"panel\">\n%s</div>\n", mem->title, tr_svg);
  }
  g_string_append (o, "<h2>All results</h2>\n<p class=\"note\">%change against the baseline; "
                   "green is better, red worse, grey within 0.5%.</p>\n");
  html_table (o, d, ms, n_ms);
  g_string_append_printf (o, "<footer>Generated by slabsim %s report.</footer>\n</main>\n"
                          "</body>\n</html>\n", SLABSIM_VERSION);
  return g_string_free (o, FALSE);
}

char *
sim_report_render (const SimReportData *d, SimReportFormat format,
                   const SimReportMetric *const *metrics)
{
  GPtrArray *ms = g_ptr_array_new ();
  if (metrics)
    for (guint i = 0; metrics[i]; i++)
      g_ptr_array_add (ms, (gpointer) metrics[i]);
  else
    for (guint i = 0; default_metrics[i]; i++)
      g_ptr_array_add (ms, (gpointer) sim_report_metric_lookup (default_metrics[i]));
  const SimReportMetric *const *mv = (const SimReportMetric *const *) ms->pdata;
  char *out = NULL;
  switch (format)
    {
    case SIM_REPORT_TEXT:
      out = render_text (d, mv, ms->len);
      break;
    case SIM_REPORT_MARKDOWN:
      out = render_markdown (d, mv, ms->len);
      break;
    case SIM_REPORT_HTML:
      out = render_html (d, mv, ms->len);
      break;
    case SIM_REPORT_SVG:
      if (d->axes->len >= 1)
        {
          g_autoptr (GPtrArray) fs = facets (d);
          out = sim_svg_heatmap (d, mv[0], d->axes->len > 1 ? g_ptr_array_index (d->axes, 1)
                                                            : g_ptr_array_index (d->axes, 0),
                                 d->axes->len > 1 ? g_ptr_array_index (d->axes, 0) : NULL,
                                 g_ptr_array_index (fs, 0), TRUE);
        }
      else
        out = sim_svg_cycles (d, TRUE);
      break;
    }
  g_ptr_array_unref (ms);
  return out;
}
