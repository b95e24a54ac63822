/* views.c - slabinfo, slabtop and /proc/slabinfo from a run; see views.h.
 *
 * The column layouts and number formats follow the tools as the kernel
 * and procps print them (tools/mm/slabinfo.c's slabcache(), report(),
 * totals() and alias(); procps slabtop; mm/slab_common.c's cache_show and
 * 2.6.34's mm/slab.c s_show).  Written from their output formats, not
 * their code.  What a simulated cache cannot have is said, not invented:
 * no debug options are modelled (sanity checks, red zones, poisoning,
 * tracking are Off), and per-node counts are not kept per cache.
 */
#include "sim/report/views.h"
#include "sim/core/errors.h"

#include <string.h>

#define PAGE 4096u

static const struct { const char *name; SimViewKind kind; } view_names[] = {
  { "slabinfo", SIM_VIEW_SLABINFO },
  { "slabinfo-A", SIM_VIEW_SLABINFO_ACTIVITY },
  { "slabinfo-T", SIM_VIEW_SLABINFO_TOTALS },
  { "slabinfo-a", SIM_VIEW_SLABINFO_ALIASES },
  { "slabtop", SIM_VIEW_SLABTOP },
  { "proc-slabinfo", SIM_VIEW_PROC_SLABINFO },
};

const char *
sim_view_names (void)
{
  return "slabinfo, slabinfo-A, slabinfo-r=CACHE, slabinfo-T, slabinfo-a, slabtop, proc-slabinfo";
}

gboolean
sim_view_parse (const char *s, SimView *out, GError **error)
{
  memset (out, 0, sizeof *out);
  if (g_str_has_prefix (s, "slabinfo-r="))
    {
      if (s[11] == '\0')
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "--view slabinfo-r=CACHE: name a cache");
          return FALSE;
        }
      out->kind = SIM_VIEW_SLABINFO_REPORT;
      out->cache = g_strdup (s + 11);
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (view_names); i++)
    if (strcmp (s, view_names[i].name) == 0)
      {
        out->kind = view_names[i].kind;
        return TRUE;
      }
  g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
               "unknown view \"%s\" (expected one of: %s)", s, sim_view_names ());
  return FALSE;
}

void
sim_view_clear (SimView *v)
{
  g_clear_pointer (&v->cache, g_free);
}

/* ------------------------------------------------------------------ */
/* Per-cache numbers, derived once                                     */

static guint64
stat_of (const SimAllocCacheRow *r, const char *name)
{
  for (guint i = 0; i < r->n_stats; i++)
    if (strcmp (r->stat_names[i], name) == 0)
      return r->stats[i];
  return 0;
}

static guint64
slab_bytes (const SimAllocCacheRow *r)
{
  return r->slabs * ((guint64) PAGE << r->order);
}

static guint n_aliases (const SimAllocCacheRow *r)
{
  return r->aliases ? g_strv_length (r->aliases) : 0;
}

/* slabinfo's sizes: 1.2K, 3.4M, 5.6G (one decimal, truncated), bytes
 * below 1000. */
static char *
store_size (guint64 v)
{
  guint64 div = 1;
  char unit = 0;
  if (v > 1000000000ull)
    div = 100000000ull, unit = 'G';
  else if (v > 1000000ull)
    div = 100000ull, unit = 'M';
  else if (v > 1000ull)
    div = 100ull, unit = 'K';
  if (unit == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT, v);
  guint64 q = v / div;
  return g_strdup_printf ("%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT "%c", q / 10, q % 10, unit);
}

static char *
flags_of (const SimAllocCacheRow *r)
{
  GString *f = g_string_new (NULL);
  if (n_aliases (r))
    g_string_append_c (f, '*');
  if (r->flags & SIM_SLAB_CACHE_DMA)
    g_string_append_c (f, 'd');
  if (r->flags & SIM_SLAB_HWCACHE_ALIGN)
    g_string_append_c (f, 'A');
  if (r->flags & SIM_SLAB_RECLAIM_ACCOUNT)
    g_string_append_c (f, 'a');
  return g_string_free (f, FALSE);
}

/* slabinfo sorts by name, case-insensitively; -A by activity. */
static gint
cmp_name (gconstpointer a, gconstpointer b)
{
  const SimAllocCacheRow *x = *(const SimAllocCacheRow *const *) a;
  const SimAllocCacheRow *y = *(const SimAllocCacheRow *const *) b;
  gint c = g_ascii_strcasecmp (x->name, y->name);
  return c ? c : strcmp (x->name, y->name);
}

static gint
cmp_name_str (gconstpointer a, gconstpointer b)
{
  const char *x = *(const char *const *) a, *y = *(const char *const *) b;
  gint c = g_ascii_strcasecmp (x, y);
  return c ? c : strcmp (x, y);
}

static gint
cmp_activity (gconstpointer a, gconstpointer b)
{
  const SimAllocCacheRow *x = *(const SimAllocCacheRow *const *) a;
  const SimAllocCacheRow *y = *(const SimAllocCacheRow *const *) b;
  guint64 ax = x->alloc + x->free, ay = y->alloc + y->free;
  if (ax != ay)
    return ax > ay ? -1 : 1;
  return cmp_name (a, b);
}

/* slabtop's default order: most objects first. */
static gint
cmp_objects (gconstpointer a, gconstpointer b)
{
  const SimAllocCacheRow *x = *(const SimAllocCacheRow *const *) a;
  const SimAllocCacheRow *y = *(const SimAllocCacheRow *const *) b;
  if (x->total_objects != y->total_objects)
    return x->total_objects > y->total_objects ? -1 : 1;
  return cmp_name (a, b);
}

/* The caches with slabs (slabinfo skips empty ones by default), sorted. */
static GPtrArray *
rows (const SimReplayResult *res, GCompareFunc cmp, gboolean with_empty)
{
  GPtrArray *out = g_ptr_array_new ();
  for (guint i = 0; i < res->alloc.rows->len; i++)
    {
      SimAllocCacheRow *r = &g_array_index (res->alloc.rows, SimAllocCacheRow, i);
      if (with_empty || r->slabs > 0)
        g_ptr_array_add (out, r);
    }
  if (cmp)
    g_ptr_array_sort (out, cmp);
  return out;
}

static const SimAllocCacheRow *
find_row (const SimReplayResult *res, const char *name)
{
  for (guint i = 0; i < res->alloc.rows->len; i++)
    {
      const SimAllocCacheRow *r = &g_array_index (res->alloc.rows, SimAllocCacheRow, i);
      if (strcmp (r->name, name) == 0)
        return r;
    }
  for (guint i = 0; i < res->alloc.rows->len; i++)
    {
      const SimAllocCacheRow *r = &g_array_index (res->alloc.rows, SimAllocCacheRow, i);
      for (char **a = r->aliases; a && *a; a++)
        if (strcmp (*a, name) == 0)
          return r;
    }
  return NULL;
}

static guint
pct (guint64 part, guint64 whole, guint if_zero)
{
  return whole ? (guint) (part * 100 / whole) : if_zero;
}

/* ------------------------------------------------------------------ */
/* slabinfo                                                            */

static void
slabinfo_default (GString *o, const SimReplayResult *res)
{
  g_autoptr (GPtrArray) rs = rows (res, cmp_name, FALSE);
  g_string_append (o, "Name                   Objects Objsize           Space "
                      "Slabs/Part/Cpu  O/S O %Fr %Ef Flg\n");
  for (guint i = 0; i < rs->len; i++)
    {
      const SimAllocCacheRow *r = g_ptr_array_index (rs, i);
      g_autofree char *space = store_size (slab_bytes (r));
      g_autofree char *dist = g_strdup_printf ("%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%"
                                               G_GUINT64_FORMAT, r->slabs - r->cpu_slabs,
                                               r->partial_slabs, r->cpu_slabs);
      g_autofree char *fl = flags_of (r);
      g_string_append_printf (o, "%-21s %8" G_GUINT64_FORMAT " %7u %15s %14s %4u %1u %3u %3u %s",
                              r->name, r->objects, r->object_size, space, dist,
                              r->objs_per_slab, r->order, pct (r->partial_slabs, r->slabs, 100),
                              pct (r->objects * r->object_size, slab_bytes (r), 100), fl);
      while (o->str[o->len - 1] == ' ')
        g_string_truncate (o, o->len - 1);
      g_string_append_c (o, '\n');
    }
}

static void
slabinfo_activity (GString *o, const SimReplayResult *res)
{
  g_autoptr (GPtrArray) rs = rows (res, cmp_activity, FALSE);
  g_string_append (o, "Name                   Objects      Alloc       Free   %Fast Fallb O CmpX   UL\n");
  for (guint i = 0; i < rs->len; i++)
    {
      const SimAllocCacheRow *r = g_ptr_array_index (rs, i);
      g_string_append_printf (o, "%-21s %8" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT " %10"
                              G_GUINT64_FORMAT " %3u %3u %5" G_GUINT64_FORMAT " %1u %4"
                              G_GUINT64_FORMAT " %4" G_GUINT64_FORMAT "\n",
                              r->name, r->objects, r->alloc, r->free,
                              pct (r->alloc_fast, r->alloc, 0), pct (r->free_fast, r->free, 0),
                              r->order_fallback, r->order,
                              stat_of (r, "cmpxchg_double_fail"),
                              stat_of (r, "cmpxchg_double_cpu_fail"));
    }
}

static void
perf_line (GString *o, const char *label, guint64 a, guint64 f, guint64 ta, guint64 tf)
{
  g_string_append_printf (o, "%-20s %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %3u %3u\n",
                          label, a, f, pct (a, ta, 0), pct (f, tf, 0));
}

static void
slabinfo_report (GString *o, const SimReplayResult *res, const SimAllocCacheRow *r)
{
  guint64 slab = (guint64) PAGE << r->order;
  g_string_append_printf (o, "\nSlabcache: %-15s  Aliases: %2u Order : %2u Objects: %" G_GUINT64_FORMAT "\n",
                          r->name, n_aliases (r), r->order, r->objects);
  if (r->flags & SIM_SLAB_HWCACHE_ALIGN)
    g_string_append (o, "** Hardware cacheline aligned\n");
  if (r->flags & SIM_SLAB_CACHE_DMA)
    g_string_append (o, "** Memory is allocated in a special DMA zone\n");
  if (r->flags & SIM_SLAB_TYPESAFE_BY_RCU)
    g_string_append (o, "** Slabs are destroyed via RCU\n");
  if (r->flags & SIM_SLAB_RECLAIM_ACCOUNT)
    g_string_append (o, "** Reclaim accounting active\n");
  g_string_append (o, "\nSizes (bytes)     Slabs              Debug                Memory\n"
                      "------------------------------------------------------------------------\n");
  guint64 full = r->slabs >= r->partial_slabs + r->cpu_slabs ? r->slabs - r->partial_slabs - r->cpu_slabs : 0;
  guint64 used = r->objects * r->object_size;
  g_string_append_printf (o, "Object : %7u  Total  : %7" G_GUINT64_FORMAT "   Sanity Checks : Off  Total: %7"
                          G_GUINT64_FORMAT "\n", r->object_size, r->slabs, slab_bytes (r));
  g_string_append_printf (o, "SlabObj: %7u  Full   : %7" G_GUINT64_FORMAT "   Redzoning     : Off  Used : %7"
                          G_GUINT64_FORMAT "\n", r->slab_size, full, used);
  g_string_append_printf (o, "SlabSiz: %7" G_GUINT64_FORMAT "  Partial: %7" G_GUINT64_FORMAT
                          "   Poisoning     : Off  Loss : %7" G_GUINT64_FORMAT "\n", slab,
                          r->partial_slabs, slab_bytes (r) - MIN (used, slab_bytes (r)));
  g_string_append_printf (o, "Loss   : %7u  CpuSlab: %7" G_GUINT64_FORMAT "   Tracking      : Off  Lalig: %7"
                          G_GUINT64_FORMAT "\n", r->slab_size - r->object_size, r->cpu_slabs,
                          (guint64) (r->slab_size - r->object_size) * r->objects);
  guint64 pad = slab >= (guint64) r->objs_per_slab * r->slab_size ? slab - (guint64) r->objs_per_slab * r->slab_size : 0;
  g_string_append_printf (o, "Align  : %7u  Objects: %7u   Tracing       : Off  Lpadd: %7"
                          G_GUINT64_FORMAT "\n", r->align, r->objs_per_slab, pad * r->slabs);

  guint64 af = stat_of (r, "alloc_fastpath"), ff = stat_of (r, "free_fastpath");
  guint64 ta = r->alloc, tf = r->free;
  if (ta && r->n_stats && strcmp (res->allocator, "slub") == 0)
    {
      g_string_append (o, "\nSlab Perf Counter       Alloc     Free %Al %Fr\n"
                          "--------------------------------------------------\n");
      perf_line (o, "Fastpath", af, ff, ta, tf);
      perf_line (o, "Slowpath", ta - af, stat_of (r, "free_slowpath"), ta, tf);
      perf_line (o, "Page Alloc", stat_of (r, "alloc_slab"), stat_of (r, "free_slab"), ta, tf);
      perf_line (o, "Add partial", stat_of (r, "deactivate_to_head") + stat_of (r, "deactivate_to_tail"),
                 stat_of (r, "free_add_partial"), ta, tf);
      perf_line (o, "Remove partial", stat_of (r, "alloc_from_partial"),
                 stat_of (r, "free_remove_partial"), ta, tf);
      perf_line (o, "Cpu partial list", stat_of (r, "cpu_partial_alloc"),
                 stat_of (r, "cpu_partial_free"), ta, tf);
      perf_line (o, "RemoteObj/SlabFrozen", stat_of (r, "deactivate_remote_frees"),
                 stat_of (r, "free_frozen"), ta, tf);
      g_string_append_printf (o, "Total                %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT "\n\n",
                              ta, tf);
      if (stat_of (r, "cpuslab_flush"))
        g_string_append_printf (o, "Flushes %8" G_GUINT64_FORMAT "\n", stat_of (r, "cpuslab_flush"));
      static const struct { const char *label, *stat; } deact[] = {
        { "Slab full", "deactivate_full" }, { "Slab empty", "deactivate_empty" },
        { "Moved to head of partial list", "deactivate_to_head" },
        { "Moved to tail of partial list", "deactivate_to_tail" },
        { "Deactivation bypass", "deactivate_bypass" },
        { "Refilled from foreign frees", "alloc_refill" },
        { "Node mismatch", "alloc_node_mismatch" },
      };
      guint64 total = 0;
      for (guint k = 0; k < 5; k++)
        total += stat_of (r, deact[k].stat);
      if (total)
        {
          g_string_append (o, "\nSlab Deactivation             Occurrences %\n"
                              "-------------------------------------------------\n");
          for (guint k = 0; k < G_N_ELEMENTS (deact); k++)
            g_string_append_printf (o, "%-29s %7" G_GUINT64_FORMAT "  %3u%%\n", deact[k].label,
                                    stat_of (r, deact[k].stat), pct (stat_of (r, deact[k].stat), total, 0));
        }
      if (stat_of (r, "cmpxchg_double_fail") || stat_of (r, "cmpxchg_double_cpu_fail"))
        g_string_append_printf (o, "\nCmpxchg_double Looping\n------------------------\n"
                                "Locked Cmpxchg Double redos   %" G_GUINT64_FORMAT
                                "\nUnlocked Cmpxchg Double redos %" G_GUINT64_FORMAT "\n",
                                stat_of (r, "cmpxchg_double_fail"), stat_of (r, "cmpxchg_double_cpu_fail"));
    }
  /* Every counter the model keeps, by its sysfs (or STATS) name. */
  if (r->n_stats)
    {
      g_string_append (o, "\nCounters (sysfs names)\n------------------------------------------\n");
      for (guint s = 0; s < r->n_stats; s++)
        g_string_append_printf (o, "%-30s %11" G_GUINT64_FORMAT "\n", r->stat_names[s], r->stats[s]);
    }
  if (n_aliases (r))
    {
      g_string_append (o, "\nAliases:");
      for (char **a = r->aliases; *a; a++)
        g_string_append_printf (o, " %s", *a);
      g_string_append_c (o, '\n');
    }
}

typedef struct { guint64 min, max, total; } Agg;

static void
agg_add (Agg *a, guint64 v)
{
  a->min = MIN (a->min, v);
  a->max = MAX (a->max, v);
  a->total += v;
}

static void
totals_line (GString *o, const char *label, const Agg *a, guint n, const char *pct_sign,
             guint64 total_override, gboolean have_total)
{
  g_autofree char *b1 = store_size (n ? a->total / n : 0), *b2 = store_size (a->min),
                  *b3 = store_size (a->max), *b4 = store_size (have_total ? total_override : a->total);
  g_string_append_printf (o, "%-9s %15s%s %15s%s %15s%s", label, b1, pct_sign, b2, pct_sign, b3, pct_sign);
  if (have_total || !*pct_sign)
    g_string_append_printf (o, " %15s%s", b4, pct_sign);
  g_string_append_c (o, '\n');
}

static void
slabinfo_totals (GString *o, const SimReplayResult *res)
{
  g_autoptr (GPtrArray) all = rows (res, NULL, TRUE);
  guint used = 0, aliases = 0, targets = 0;
  Agg objsize = { G_MAXUINT64, 0, 0 }, partial = objsize, slabs = objsize, size = objsize,
      usedb = objsize, waste = objsize, objects = objsize, objwaste = objsize, memobj = objsize,
      ppart = objsize, partobj = objsize, ppartobj = objsize;
  guint64 total_objwaste = 0, total_objsize = 0;
  for (guint i = 0; i < all->len; i++)
    {
      const SimAllocCacheRow *r = g_ptr_array_index (all, i);
      aliases += n_aliases (r);
      targets += r->name[0] == ':';
      if (!r->slabs || !r->objects)
        continue;
      used++;
      guint64 sz = slab_bytes (r), u = r->objects * r->object_size;
      agg_add (&objsize, r->object_size);
      agg_add (&partial, r->partial_slabs);
      agg_add (&slabs, r->slabs);
      agg_add (&size, sz);
      agg_add (&usedb, u);
      agg_add (&waste, sz - MIN (u, sz));
      agg_add (&objects, r->objects);
      agg_add (&objwaste, r->slab_size - r->object_size);
      agg_add (&memobj, r->slab_size);
      agg_add (&ppart, MIN (100u, pct (r->partial_slabs, r->slabs, 0)));
      agg_add (&partobj, r->objects_partial);
      agg_add (&ppartobj, MIN (100u, pct (r->objects_partial, r->objects, 0)));
      total_objwaste += r->objects * (r->slab_size - r->object_size);
      total_objsize += r->objects * r->slab_size;
    }
  if (objects.total == 0 || used == 0)
    {
      g_string_append (o, objects.total == 0 ? "No objects\n" : "No slabs\n");
      return;
    }
  g_string_append (o, "Slabcache Totals\n----------------\n");
  g_string_append_printf (o, "Slabcaches : %15u   Aliases  : %11u->%-3u  Active:    %3u\n",
                          all->len, aliases, targets, used);
  g_autofree char *b1 = store_size (size.total), *b2 = store_size (waste.total),
                  *b3 = store_size (usedb.total ? waste.total * 100 / usedb.total : 0);
  g_string_append_printf (o, "Memory used: %15s   # Loss   : %15s   MRatio:%6s%%\n", b1, b2, b3);
  g_autofree char *c1 = store_size (objects.total), *c2 = store_size (partobj.total),
                  *c3 = store_size (partobj.total * 100 / objects.total);
  g_string_append_printf (o, "# Objects  : %15s   # PartObj: %15s   ORatio:%6s%%\n", c1, c2, c3);
  g_string_append (o, "\nPer Cache         Average              Min              Max            Total\n"
                      "----------------------------------------------------------------------------\n");
  totals_line (o, "#Objects", &objects, used, "", 0, FALSE);
  totals_line (o, "#Slabs", &slabs, used, "", 0, FALSE);
  totals_line (o, "#PartSlab", &partial, used, "", 0, FALSE);
  {
    g_autofree char *a1 = store_size (ppart.total / used), *a2 = store_size (ppart.min),
                    *a3 = store_size (ppart.max), *a4 = store_size (partial.total * 100 / slabs.total);
    g_string_append_printf (o, "%%PartSlab%15s%% %15s%% %15s%% %15s%%\n", a1, a2, a3, a4);
  }
  totals_line (o, "PartObjs", &partobj, used, "", 0, FALSE);
  {
    g_autofree char *a1 = store_size (ppartobj.total / used), *a2 = store_size (ppartobj.min),
                    *a3 = store_size (ppartobj.max), *a4 = store_size (partobj.total * 100 / objects.total);
    g_string_append_printf (o, "%% PartObj%15s%% %15s%% %15s%% %15s%%\n", a1, a2, a3, a4);
  }
  totals_line (o, "Memory", &size, used, "", 0, FALSE);
  totals_line (o, "Used", &usedb, used, "", 0, FALSE);
  totals_line (o, "Loss", &waste, used, "", 0, FALSE);
  g_string_append (o, "\nPer Object        Average              Min              Max\n"
                      "-----------------------------------------------------------\n");
  g_autofree char *m1 = store_size (total_objsize / objects.total), *m2 = store_size (memobj.min),
                  *m3 = store_size (memobj.max);
  g_string_append_printf (o, "Memory    %15s  %15s  %15s\n", m1, m2, m3);
  g_autofree char *u1 = store_size (usedb.total / objects.total), *u2 = store_size (objsize.min),
                  *u3 = store_size (objsize.max);
  g_string_append_printf (o, "User      %15s  %15s  %15s\n", u1, u2, u3);
  g_autofree char *l1 = store_size (total_objwaste / objects.total), *l2 = store_size (objwaste.min),
                  *l3 = store_size (objwaste.max);
  g_string_append_printf (o, "Loss      %15s  %15s  %15s\n", l1, l2, l3);
}

static void
slabinfo_aliases (GString *o, const SimReplayResult *res)
{
  g_autoptr (GPtrArray) all = rows (res, cmp_name, TRUE);
  gboolean any = FALSE;
  for (guint i = 0; i < all->len; i++)
    {
      const SimAllocCacheRow *r = g_ptr_array_index (all, i);
      /* slabinfo shows a target with more than one name by default. */
      if (n_aliases (r) < 2)
        continue;
      g_autoptr (GPtrArray) names = g_ptr_array_new ();
      for (char **a = r->aliases; *a; a++)
        g_ptr_array_add (names, *a);
      g_ptr_array_sort (names, (GCompareFunc) cmp_name_str);
      g_string_append_printf (o, "\n%-12s <-", r->name);
      for (guint k = 0; k < names->len; k++)
        g_string_append_printf (o, " %s", (char *) g_ptr_array_index (names, k));
      any = TRUE;
    }
  if (any)
    g_string_append_c (o, '\n');
}

/* ------------------------------------------------------------------ */
/* slabtop and /proc/slabinfo                                          */

static void
slabtop (GString *o, const SimReplayResult *res)
{
  g_autoptr (GPtrArray) all = rows (res, NULL, TRUE);
  guint64 act_objs = 0, objs = 0, act_slabs = 0, slabs = 0, act_caches = 0;
  double act_size = 0, size = 0, min_obj = G_MAXDOUBLE, max_obj = 0;
  for (guint i = 0; i < all->len; i++)
    {
      const SimAllocCacheRow *r = g_ptr_array_index (all, i);
      act_objs += r->objects;
      objs += r->total_objects;
      act_slabs += r->active_slabs;
      slabs += r->slabs;
      act_caches += r->objects > 0;
      act_size += (double) r->objects * r->slab_size;
      size += (double) r->total_objects * r->slab_size;
      min_obj = MIN (min_obj, r->slab_size);
      max_obj = MAX (max_obj, r->slab_size);
    }
  if (all->len == 0)
    min_obj = 0;
  char b[6][G_ASCII_DTOSTR_BUF_SIZE];
#define F(i, fmt, v) g_ascii_formatd (b[i], sizeof b[i], fmt, v)
  F (0, "%.1f", objs ? 100.0 * act_objs / objs : 0);
  g_string_append_printf (o, " Active / Total Objects (%% used)    : %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
                          " (%s%%)\n", act_objs, objs, b[0]);
  F (0, "%.1f", slabs ? 100.0 * act_slabs / slabs : 0);
  g_string_append_printf (o, " Active / Total Slabs (%% used)      : %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
                          " (%s%%)\n", act_slabs, slabs, b[0]);
  F (0, "%.1f", all->len ? 100.0 * act_caches / all->len : 0);
  g_string_append_printf (o, " Active / Total Caches (%% used)     : %" G_GUINT64_FORMAT " / %u (%s%%)\n",
                          act_caches, all->len, b[0]);
  F (0, "%.2f", act_size / 1024.0);
  F (1, "%.2f", size / 1024.0);
  F (2, "%.1f", size > 0 ? 100.0 * act_size / size : 0);
  g_string_append_printf (o, " Active / Total Size (%% used)       : %sK / %sK (%s%%)\n", b[0], b[1], b[2]);
  F (0, "%.2f", min_obj / 1024.0);
  F (1, "%.2f", objs ? size / objs / 1024.0 : 0);
  F (2, "%.2f", max_obj / 1024.0);
  g_string_append_printf (o, " Minimum / Average / Maximum Object : %sK / %sK / %sK\n\n", b[0], b[1], b[2]);
  g_string_append (o, "  OBJS ACTIVE  USE OBJ SIZE  SLABS OBJ/SLAB CACHE SIZE NAME\n");
  g_ptr_array_sort (all, cmp_objects);
  for (guint i = 0; i < all->len; i++)
    {
      const SimAllocCacheRow *r = g_ptr_array_index (all, i);
      if (r->total_objects == 0)
        continue;
      F (0, "%7.2f", r->slab_size / 1024.0);
      g_string_append_printf (o, "%6" G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT " %3u%% %sK %6"
                              G_GUINT64_FORMAT " %8u %9" G_GUINT64_FORMAT "K %s\n",
                              r->total_objects, r->objects, pct (r->objects, r->total_objects, 0),
                              b[0], r->slabs, r->objs_per_slab, slab_bytes (r) / 1024,
                              r->proc_name ? r->proc_name : r->name);
    }
#undef F
}

static void
proc_slabinfo (GString *o, const SimReplayResult *res)
{
  g_string_append (o, "slabinfo - version: 2.1\n"
                      "# name            <active_objs> <num_objs> <objsize> <objperslab> "
                      "<pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata "
                      "<active_slabs> <num_slabs> <sharedavail>\n");
  /* The kernel lists caches newest first (list_add to slab_caches). */
  for (guint i = res->alloc.rows->len; i-- > 0;)
    {
      const SimAllocCacheRow *r = &g_array_index (res->alloc.rows, SimAllocCacheRow, i);
      g_string_append_printf (o, "%-17s %6" G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT " %6u %4u %4u"
                              " : tunables %4u %4u %4u : slabdata %6" G_GUINT64_FORMAT " %6"
                              G_GUINT64_FORMAT " %6" G_GUINT64_FORMAT "\n",
                              r->proc_name ? r->proc_name : r->name, r->objects, r->total_objects,
                              r->slab_size, r->objs_per_slab, 1u << r->order, r->limit,
                              r->batchcount, r->shared, r->active_slabs, r->slabs, r->shared_avail);
    }
}

char *
sim_view_text (const SimView *v, const SimReplayResult *res, GError **error)
{
  GString *o = g_string_new (NULL);
  switch (v->kind)
    {
    case SIM_VIEW_SLABINFO:
      slabinfo_default (o, res);
      break;
    case SIM_VIEW_SLABINFO_ACTIVITY:
      slabinfo_activity (o, res);
      break;
    case SIM_VIEW_SLABINFO_REPORT:
      {
        const SimAllocCacheRow *r = find_row (res, v->cache);
        if (r == NULL)
          {
            g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                         "--view slabinfo-r=%s: %s@%s has no cache of that name", v->cache,
                         res->allocator, res->kernel);
            g_string_free (o, TRUE);
            return NULL;
          }
        slabinfo_report (o, res, r);
      }
      break;
    case SIM_VIEW_SLABINFO_TOTALS:
      slabinfo_totals (o, res);
      break;
    case SIM_VIEW_SLABINFO_ALIASES:
      slabinfo_aliases (o, res);
      break;
    case SIM_VIEW_SLABTOP:
      slabtop (o, res);
      break;
    case SIM_VIEW_PROC_SLABINFO:
      proc_slabinfo (o, res);
      break;
    }
  return g_string_free (o, FALSE);
}

/* ------------------------------------------------------------------ */
/* JSON: the rows, keyed by the tools' column names                    */

static void
json_row (SimJson *j, const SimAllocCacheRow *r)
{
  sim_json_begin_object (j);
  sim_json_key (j, "name");
  sim_json_string (j, r->name);
  sim_json_key (j, "proc_name");
  sim_json_string (j, r->proc_name ? r->proc_name : r->name);
  sim_json_key (j, "aliases");
  sim_json_begin_array (j);
  for (char **a = r->aliases; a && *a; a++)
    sim_json_string (j, *a);
  sim_json_end_array (j);
#define U(k, v) do { sim_json_key (j, k); sim_json_uint (j, v); } while (0)
  U ("objects", r->objects);
  U ("num_objs", r->total_objects);
  U ("object_size", r->object_size);
  U ("slab_size", r->slab_size);
  U ("space", slab_bytes (r));
  U ("slabs", r->slabs);
  U ("partial", r->partial_slabs);
  U ("cpu_slabs", r->cpu_slabs);
  U ("objects_partial", r->objects_partial);
  U ("objs_per_slab", r->objs_per_slab);
  U ("order", r->order);
  U ("pct_free", pct (r->partial_slabs, r->slabs, 100));
  U ("pct_eff", pct (r->objects * r->object_size, slab_bytes (r), 100));
  g_autofree char *fl = flags_of (r);
  sim_json_key (j, "flags");
  sim_json_string (j, fl);
  U ("alloc", r->alloc);
  U ("free", r->free);
  U ("alloc_fast_pct", pct (r->alloc_fast, r->alloc, 0));
  U ("free_fast_pct", pct (r->free_fast, r->free, 0));
  U ("order_fallback", r->order_fallback);
  U ("cmpx", stat_of (r, "cmpxchg_double_fail"));
  U ("ul", stat_of (r, "cmpxchg_double_cpu_fail"));
  U ("limit", r->limit);
  U ("batchcount", r->batchcount);
  U ("sharedfactor", r->shared);
  U ("active_slabs", r->active_slabs);
  U ("sharedavail", r->shared_avail);
  U ("pagesperslab", 1u << r->order);
  sim_json_key (j, "counters");
  sim_json_begin_object (j);
  for (guint s = 0; s < r->n_stats; s++)
    U (r->stat_names[s], r->stats[s]);
  sim_json_end_object (j);
#undef U
  sim_json_end_object (j);
}

static const char *
view_name (const SimView *v)
{
  if (v->kind == SIM_VIEW_SLABINFO_REPORT)
    return "slabinfo-r";
  for (guint i = 0; i < G_N_ELEMENTS (view_names); i++)
    if (view_names[i].kind == v->kind)
      return view_names[i].name;
  return "?";
}

gboolean
sim_view_json (const SimView *v, const SimReplayResult *res, SimJson *j, GError **error)
{
  GCompareFunc cmp = v->kind == SIM_VIEW_SLABINFO_ACTIVITY ? cmp_activity
                     : v->kind == SIM_VIEW_SLABTOP ? cmp_objects : cmp_name;
  const SimAllocCacheRow *one = NULL;
  if (v->kind == SIM_VIEW_SLABINFO_REPORT)
    {
      one = find_row (res, v->cache);
      if (one == NULL)
        {
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "--view slabinfo-r=%s: %s@%s has no cache of that name", v->cache,
                       res->allocator, res->kernel);
          return FALSE;
        }
    }
  sim_json_begin_object (j);
  sim_json_key (j, "view");
  sim_json_string (j, view_name (v));
  sim_json_key (j, "allocator");
  sim_json_string (j, res->allocator);
  sim_json_key (j, "kernel");
  sim_json_string (j, res->kernel);
  sim_json_key (j, "params");
  sim_json_string (j, res->params ? res->params : "");
  sim_json_key (j, "caches");
  sim_json_begin_array (j);
  if (one)
    json_row (j, one);
  else
    {
      /* slabinfo skips empty caches; slabtop, /proc/slabinfo and -T see all. */
      gboolean all = v->kind == SIM_VIEW_SLABTOP || v->kind == SIM_VIEW_PROC_SLABINFO
                     || v->kind == SIM_VIEW_SLABINFO_TOTALS;
      g_autoptr (GPtrArray) rs = rows (res, cmp, all);
      for (guint i = 0; i < rs->len; i++)
        {
          const SimAllocCacheRow *r = g_ptr_array_index (rs, i);
          if (v->kind == SIM_VIEW_SLABINFO_ALIASES && n_aliases (r) < 2)
            continue;
          json_row (j, r);
        }
    }
  sim_json_end_array (j);
  sim_json_end_object (j);
  return TRUE;
}
