/* cmd-geometry.c - "slabsim geometry": SLUB's sizing code on a list of
 * caches.
 *
 *   slabsim geometry --allocator slub@2.6.23:slub_max_order=3 --cpus 16 caches.tsv
 *   slabsim geometry --allocator slub@6.18 --kmalloc
 *
 * Input: TSV with the header "name object_size align flags"; flags is a
 * comma list (hwcache_align, typesafe_by_rcu, freeptr_offset[=N], ctor,
 * reclaim_account, cache_dma, sheaf_capacity=N) or "-".  Output: one row
 * per cache with the geometry /sys/kernel/slab shows; eras with sheaves
 * (6.18, 7.x) add sheaf_capacity.  --merge runs the rows through
 * kmem_cache_create()'s merging after the era's kmalloc caches and adds the
 * sysfs name each row ends up under.
 */
#include "sim/cli/cli.h"
#include "sim/core/errors.h"
#include "models/alloc/alloc-spec.h"
#include "models/alloc/kmalloc-classes.h"
#include "models/alloc/slub-size.h"

#include <stdio.h>
#include <string.h>

static const char input_header[] = "name\tobject_size\talign\tflags";

typedef struct {
  char *name;
  SimSlubCacheArgs args;
  guint line;
} Row;

static gboolean
parse_flags (const char *file, guint line, const char *text, SimSlubCacheArgs *args,
             GError **error)
{
  static const struct { guint flag; const char *name; } names[] = {
#define X(f, n) { f, n },
    SIM_SLUB_USER_FLAGS
#undef X
  };
  args->flags = 0;
  if (strcmp (text, "-") == 0)
    return TRUE;
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i]; i++)
    {
      const char *p = parts[i];
      if (g_str_has_prefix (p, "sheaf_capacity="))
        {
          /* kmem_cache_args.sheaf_capacity is an unsigned int; a sheaf of
           * more than 65535 pointers would be a kmalloc of over 512 KiB. */
          guint64 v;
          if (!g_ascii_string_to_unsigned (p + strlen ("sheaf_capacity="), 10, 1, 65535, &v,
                                           NULL))
            {
              g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                           "%s:%u: expected sheaf_capacity=N with N objects from 1 to 65535, "
                           "got \"%s\"", file, line, p);
              return FALSE;
            }
          args->sheaf_capacity = (guint) v;
          continue;
        }
      if (g_str_has_prefix (p, "freeptr_offset="))
        {
          guint64 v;
          if (!g_ascii_string_to_unsigned (p + strlen ("freeptr_offset="), 10, 0,
                                           G_MAXINT32, &v, NULL))
            {
              g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                           "%s:%u: expected freeptr_offset=N with N a byte offset, got \"%s\"",
                           file, line, p);
              return FALSE;
            }
          args->flags |= SIM_SLUB_FREEPTR_OFFSET;
          args->freeptr_offset = (guint) v;
          continue;
        }
      guint j;
      for (j = 0; j < G_N_ELEMENTS (names); j++)
        if (strcmp (p, names[j].name) == 0)
          break;
      if (j == G_N_ELEMENTS (names))
        {
          GString *ok = g_string_new (NULL);
          for (j = 0; j < G_N_ELEMENTS (names); j++)
            g_string_append_printf (ok, "%s%s%s", j ? ", " : "", names[j].name,
                                    names[j].flag == SIM_SLUB_FREEPTR_OFFSET ? "[=N]" : "");
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                       "%s:%u: expected flags as a comma list of %s, sheaf_capacity=N, "
                       "or \"-\"; got unknown flag \"%s\"", file, line, ok->str, p);
          g_string_free (ok, TRUE);
          return FALSE;
        }
      args->flags |= names[j].flag;
    }
  return TRUE;
}

static gboolean
parse_uint (const char *file, guint line, const char *column, const char *text,
            guint *out, GError **error)
{
  guint64 v;
  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXINT32, &v, NULL))
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s:%u: expected %s as a decimal number, got \"%s\"",
                   file, line, column, text);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static void
rows_free (GArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    g_free (g_array_index (rows, Row, i).name);
  g_array_free (rows, TRUE);
}

static GArray *
read_rows (const char *file, GError **error)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  GError *local = NULL;
  const char *shown = strcmp (file, "-") == 0 ? "<stdin>" : file;

  if (strcmp (file, "-") == 0)
    {
      GString *s = g_string_new (NULL);
      char buf[65536];
      size_t n;
      while ((n = fread (buf, 1, sizeof buf, stdin)) > 0)
        g_string_append_len (s, buf, (gssize) n);
      len = s->len;
      contents = g_string_free (s, FALSE);
    }
  else if (!g_file_get_contents (file, &contents, &len, &local))
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s", local->message);
      g_error_free (local);
      return NULL;
    }
  if (strlen (contents) != len)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s: expected a text file, found a NUL byte", shown);
      return NULL;
    }

  GArray *rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
  gboolean header = FALSE;
  for (guint i = 0; lines[i]; i++)
    {
      guint line = i + 1;
      char *l = lines[i];
      gsize ll = strlen (l);
      if (ll && l[ll - 1] == '\r')
        l[--ll] = '\0';
      if (ll == 0 || l[0] == '#')
        continue;
      if (!header)
        {
          if (strcmp (l, input_header) != 0)
            {
              g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                           "%s:%u: expected the header \"name<TAB>object_size<TAB>align"
                           "<TAB>flags\"", shown, line);
              rows_free (rows);
              return NULL;
            }
          header = TRUE;
          continue;
        }
      g_auto (GStrv) col = g_strsplit (l, "\t", -1);
      guint ncol = g_strv_length (col);
      if (ncol != 4)
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                       "%s:%u: expected 4 tab-separated columns (name, object_size, "
                       "align, flags), got %u", shown, line, ncol);
          rows_free (rows);
          return NULL;
        }
      Row r = { NULL, { 0 }, line };
      if (col[0][0] == '\0')
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                       "%s:%u: expected a cache name, got an empty column", shown, line);
          rows_free (rows);
          return NULL;
        }
      if (!parse_uint (shown, line, "object_size", col[1], &r.args.object_size, error)
          || !parse_uint (shown, line, "align", col[2], &r.args.align, error)
          || !parse_flags (shown, line, col[3], &r.args, error))
        {
          rows_free (rows);
          return NULL;
        }
      r.name = g_strdup (col[0]);
      r.args.name = r.name;
      g_array_append_val (rows, r);
    }
  if (!header)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s:1: expected the header \"name<TAB>object_size<TAB>align<TAB>flags\","
                   " got an empty file", shown);
      rows_free (rows);
      return NULL;
    }
  return rows;
}

static void
print_header (GString *out, gboolean lng, gboolean merge, gboolean sheaves)
{
  g_string_append (out, "name\tobject_size\tslab_size\torder\tobjs_per_slab\tcpu_partial\tmin_partial");
  if (sheaves)
    g_string_append (out, "\tsheaf_capacity");
  if (lng)
    g_string_append (out, "\talign\tinuse\toffset\tmin_order\tmin_objs\tcpu_partial_slabs");
  if (merge)
    g_string_append (out, "\tsysfs_name");
  g_string_append_c (out, '\n');
}

static void
print_row (GString *out, const char *name, const SimSlubGeometry *g, gboolean lng,
           gboolean sheaves)
{
  g_string_append_printf (out, "%s\t%u\t%u\t%u\t%u\t%u\t%u", name, g->object_size, g->size,
                          g->order, g->objects, g->cpu_partial, g->min_partial);
  if (sheaves)
    g_string_append_printf (out, "\t%u", g->sheaf_capacity);
  if (lng)
    g_string_append_printf (out, "\t%u\t%u\t%u\t%u\t%u\t%u", g->align, g->inuse, g->offset,
                            g->min_order, g->min_objects, g->cpu_partial_slabs);
}

gboolean
sim_cmd_geometry (int argc, char **argv, GError **error)
{
  g_autofree char *spec_text = NULL;
  int cpus = 1;
  gboolean kmalloc = FALSE, lng = FALSE, merge = FALSE;
  GOptionEntry entries[] = {
    { "allocator", 'a', 0, G_OPTION_ARG_STRING, &spec_text,
      "allocator and kernel: slub[@2.6.23|@2.6.34|@6.18][:PARAM=VALUE,...] (default slub = 6.18)",
      "SPEC" },
    { "cpus", 'c', 0, G_OPTION_ARG_INT, &cpus,
      "CPUs of the machine (num_present_cpus = nr_cpu_ids), default 1", "N" },
    { "kmalloc", 'k', 0, G_OPTION_ARG_NONE, &kmalloc,
      "print the era's kmalloc caches instead of reading FILE", NULL },
    { "long", 'l', 0, G_OPTION_ARG_NONE, &lng,
      "add align, inuse, offset, min_order, min_objs, cpu_partial_slabs columns", NULL },
    { "merge", 'm', 0, G_OPTION_ARG_NONE, &merge,
      "merge caches as kmem_cache_create() does, after the kmalloc caches; add sysfs_name", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = sim_cli_context ("geometry", "FILE|-",
    "Compute SLUB cache geometry (order, objects per slab, partial limits) with the\n"
    "sizing code of a kernel era.  FILE is a TSV with the header\n"
    "name<TAB>object_size<TAB>align<TAB>flags; flags are a comma list of hwcache_align,\n"
    "typesafe_by_rcu, freeptr_offset[=N], ctor, reclaim_account, cache_dma,\n"
    "sheaf_capacity=N (kmem_cache_args.sheaf_capacity, 6.18+), or \"-\".  Eras with\n"
    "per-CPU sheaves (6.18, 7.x) print a sheaf_capacity column.\n"
    "Parameters: slub_min_order, slub_max_order, slub_min_objects, slub_nomerge\n"
    "(6.18 also slab_* spellings and slab_merge).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!sim_cli_parse (ctx, "geometry", &argc, &argv, error))
    return FALSE;

  if (cpus < 1 || cpus > 65536)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "geometry: --cpus must be from 1 to 65536, got %d", cpus);
      return FALSE;
    }
  if (kmalloc && argc > 1)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "geometry: --kmalloc takes no FILE");
      return FALSE;
    }
  if (!kmalloc && argc != 2)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_MISSING_ARGUMENT,
                   argc < 2 ? "geometry: expected a FILE (or - for standard input)"
                            : "geometry: expected one FILE, got %d", argc - 1);
      return FALSE;
    }

  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (spec_text ? spec_text : "slub", error);
  SimSlubConfig cfg;
  if (spec == NULL || !sim_slub_config_from_spec (&cfg, spec, (guint) cpus, error))
    {
      g_prefix_error (error, "geometry: ");
      return FALSE;
    }

  /* The sizing parameters as the era's parameter code left them, in the
   * model's canonical spelling (slub.c's ops_params), for the clamp
   * warning run and sweep print too. */
  {
    g_autofree char *held = g_strdup_printf ("slub_min_order=%u,slub_max_order=%u,"
                                             "slub_min_objects=%u", cfg.min_order,
                                             cfg.max_order, cfg.min_objects);
    sim_cli_warn_held_params ("geometry", spec_text ? spec_text : "slub", "slub",
                              cfg.era->kernel, held);
  }
  g_autoptr (GString) out = g_string_new (NULL);
  gboolean sheaves = cfg.era->sheaf_rule != SIM_SLUB_SHEAVES_NONE;
  if (kmalloc)
    {
      print_header (out, lng, FALSE, sheaves);
      g_autoptr (GArray) idx = sim_kmalloc_cache_indexes (cfg.era);
      /* Print by size: the creation order puts 96 and 192 first. */
      GArray *sorted = g_array_sized_new (FALSE, FALSE, sizeof (guint), idx->len);
      for (guint k = 0; k < idx->len; k++)
        {
          guint i = g_array_index (idx, guint, k);
          guint pos = sorted->len;
          while (pos > 0 && sim_kmalloc_index_size (g_array_index (sorted, guint, pos - 1))
                              > sim_kmalloc_index_size (i))
            pos--;
          g_array_insert_val (sorted, pos, i);
        }
      for (guint k = 0; k < sorted->len; k++)
        {
          SimSlubCacheArgs args;
          g_autofree char *name = NULL;
          SimSlubGeometry g;
          sim_kmalloc_cache_args (cfg.era, g_array_index (sorted, guint, k), &args, &name);
          if (!sim_slub_calculate (&cfg, &args, &g, error))
            {
              g_array_free (sorted, TRUE);
              g_prefix_error (error, "geometry: ");
              return FALSE;
            }
          print_row (out, name, &g, lng, sheaves);
          g_string_append_c (out, '\n');
        }
      g_array_free (sorted, TRUE);
      fputs (out->str, stdout);
      return TRUE;
    }

  const char *file = argv[1];
  const char *shown = strcmp (file, "-") == 0 ? "<stdin>" : file;
  GArray *rows = read_rows (file, error);
  if (rows == NULL)
    return FALSE;

  g_autoptr (SimSlubCacheSet) set = NULL;
  if (merge)
    {
      set = sim_slub_cache_set_new (&cfg);
      if (!sim_kmalloc_create_caches (set, error))
        {
          rows_free (rows);
          return FALSE;
        }
    }
  print_header (out, lng, merge, sheaves);
  for (guint i = 0; i < rows->len; i++)
    {
      Row *r = &g_array_index (rows, Row, i);
      SimSlubGeometry g;
      if (merge)
        {
          gboolean merged;
          SimSlubCache *c = sim_slub_cache_set_create (set, &r->args, &merged, error);
          if (c == NULL)
            {
              g_prefix_error (error, "%s:%u: ", shown, r->line);
              rows_free (rows);
              return FALSE;
            }
          g_autofree char *sysfs = sim_slub_cache_sysfs_name (set, c);
          print_row (out, r->name, &c->geo, lng, sheaves);
          g_string_append_printf (out, "\t%s\n", sysfs);
          continue;
        }
      if (!sim_slub_calculate (&cfg, &r->args, &g, error))
        {
          g_prefix_error (error, "%s:%u: ", shown, r->line);
          rows_free (rows);
          return FALSE;
        }
      print_row (out, r->name, &g, lng, sheaves);
      g_string_append_c (out, '\n');
    }
  rows_free (rows);
  fputs (out->str, stdout);
  return TRUE;
}
