/* slub-size.c - SLUB's cache sizing code, era by era.
 *
 * What it models: the arithmetic by which SLUB turns kmem_cache_create()'s
 * arguments into a cache geometry, as written in mm/slub.c of 2.6.23 and
 * 2.6.34 and in mm/slub.c plus mm/slab_common.c of 6.18 (x86-64, 4 KiB
 * pages, 64-byte cache lines):
 *   calculate_alignment()   hardware-cache alignment and the arch minimum;
 *   calculate_sizes()       word rounding, free-pointer placement (first
 *                           word, middle of the object, or behind it),
 *                           alignment of the stride;
 *   slab_order() / calc_slab_order() / calculate_order()
 *                           the search over waste fractions and object
 *                           counts, its single-object fallbacks, and the
 *                           automatic slub_min_objects from the CPU count;
 *   s->min                  the order-fallback geometry get_order(size);
 *   set_min_partial()       and the per-era MIN_PARTIAL / MAX_PARTIAL;
 *   set_cpu_partial()       6.18's object limit and slab conversion;
 *   s->sheaf_capacity       6.18's opt-in kmem_cache_args.sheaf_capacity,
 *                           7.x's calculate_sheaf_capacity() for every cache
 *                           and bootstrap_cache_sheaves() for kmalloc;
 *   find_mergeable() / slab_unmergeable() / create_unique_id()
 *                           cache merging and its ":t-0000256" names.
 * Arithmetic is done the way the kernel's C types do it, including the
 * 32-bit int products of 2.6.23 and 2.6.34, so that odd parameters give the
 * kernel's odd answers rather than mathematically nicer ones.
 *
 * What it leaves out: debug metadata (red zones, poisoning, user tracking,
 * KASAN), which no cache has unless slub_debug is given; CONFIG_SLUB_TINY;
 * SLAB_ACCOUNT and DMA32; pages other than 4 KiB.  The runtime behaviour
 * (per-CPU slabs, partial lists, sheaves) belongs to the SLUB model that
 * uses these numbers.  docs/models/slub-sizing.md lists every decision.
 */
#include "models/alloc/slub-size.h"
#include "models/alloc/kmalloc-classes.h"
#include "sim/core/errors.h"

#include <string.h>

#define WORD 8u   /* sizeof (void *) on x86-64 */

/* The eras.  Values are from the sources named in the docs; a new kernel is
 * a new row (for example 2.6.33 sizes like 2.6.34). */
/* What every era has from the machine, not the kernel: x86-64 with 4 KiB
 * pages and 64-byte lines, MAX_ORDER 10, ARCH_SLAB_MINALIGN 8. */
#define X86_64_4K \
    .page_shift = 12, .cache_line = 64, .max_page_order = 10, .arch_slab_minalign = 8
/* What the two 2.6 kernels share and later kernels changed: page->objects
 * is a u16, the free pointer is the first word (no freeptr_offset), no cpu
 * partial slabs, newest-first merging, no slab_* spellings or slab_merge,
 * long kmalloc names, no SLAB_KMALLOC alignment or memcg NO_MERGE. */
#define SLUB_2_6 \
    .max_objs_per_slab = 65535, \
    .freeptr_rule = SIM_SLUB_FREEPTR_FIRST_WORD, .freeptr_offset_arg = FALSE, \
    .cpu_partial_rule = SIM_SLUB_CPU_PARTIAL_NONE, \
    .merge_oldest_first = FALSE, .slab_spelling = FALSE, .merge_param = FALSE, \
    .kmalloc_short_names = FALSE, .kmalloc_pow2_align = FALSE, .kmalloc_unmergeable = FALSE
/* 7.0 sizes and names its caches as 6.18 does (only the per-CPU layer
 * changed: sheaves for every cache, no cpu partial slabs), so the two rows
 * share these fields instead of repeating them. */
#define SIZES_6_18 \
    X86_64_4K, \
    .default_min_order = 0, .default_max_order = 3, .default_min_objects = 0, \
    .max_objs_per_slab = 32767, \
    .order_rule = SIM_SLUB_ORDER_6_18, .order_fallback = TRUE, \
    .freeptr_rule = SIM_SLUB_FREEPTR_MIDDLE, .freeptr_offset_arg = TRUE, \
    .hwalign_rule = SIM_SLUB_HWALIGN_SHRINK, \
    .min_partial_rule = SIM_SLUB_MIN_PARTIAL_HALF_ILOG2, .min_partial = 5, .max_partial = 10
#define KMALLOC_6_18 \
    .merge_oldest_first = TRUE, .id_letter_t = FALSE, \
    .slab_spelling = TRUE, .merge_param = TRUE, .orders_adjust = TRUE, \
    .kmalloc_shift_high = 13, .kmalloc_shift_max = 22, \
    .kmalloc_96_max_min_size = 32, .kmalloc_192_max_min_size = 64, \
    .kmalloc_passthrough = TRUE, .kmalloc_short_names = TRUE, \
    .kmalloc_pow2_align = TRUE, .kmalloc_unmergeable = TRUE

static const SimSlubEra eras[] = {
  {
    .kernel = "6.18", .summary = "6.18.2: per-CPU partial lists, free pointer mid-object, short kmalloc names",
    SIZES_6_18,
    .cpu_partial_rule = SIM_SLUB_CPU_PARTIAL_HALF_FULL,
    .sheaf_rule = SIM_SLUB_SHEAVES_OPT_IN,
    KMALLOC_6_18,
  },
  {
    .kernel = "7.0", .summary = "7.0: sheaves for every cache (calculate_sheaf_capacity), no cpu partial slabs; sizes as 6.18",
    SIZES_6_18,
    .cpu_partial_rule = SIM_SLUB_CPU_PARTIAL_NONE,
    .sheaf_rule = SIM_SLUB_SHEAVES_ALL,
    KMALLOC_6_18,
  },
  {
    .kernel = "2.6.34", .summary = "2.6.34: this_cpu conversion, order fallback, min_objects from nr_cpu_ids",
    X86_64_4K,
    SLUB_2_6,
    .default_min_order = 0, .default_max_order = 3, .default_min_objects = 0,
    .order_rule = SIM_SLUB_ORDER_2_6_34, .order_fallback = TRUE,
    .hwalign_rule = SIM_SLUB_HWALIGN_SHRINK,
    .min_partial_rule = SIM_SLUB_MIN_PARTIAL_ILOG2, .min_partial = 5, .max_partial = 10,
    .id_letter_t = TRUE,
    .kmalloc_shift_high = 13, .kmalloc_shift_max = 22,
    .kmalloc_96_max_min_size = 32, .kmalloc_192_max_min_size = 64,
    .kmalloc_passthrough = TRUE,
  },
  {
    .kernel = "2.6.23", .summary = "2.6.23: first default SLUB, fixed min_objects 4, max order 1, no pass-through",
    X86_64_4K,
    SLUB_2_6,
    .default_min_order = 0, .default_max_order = 1, .default_min_objects = 4,
    .order_rule = SIM_SLUB_ORDER_2_6_23, .order_fallback = FALSE,
    .hwalign_rule = SIM_SLUB_HWALIGN_HALF_LINE,
    .min_partial_rule = SIM_SLUB_MIN_PARTIAL_FIXED, .min_partial = 2, .max_partial = 10,
    .id_letter_t = FALSE,
    .kmalloc_shift_high = 22, .kmalloc_shift_max = 22,
    .kmalloc_96_max_min_size = 64, .kmalloc_192_max_min_size = 128,
    .kmalloc_passthrough = FALSE,
  },
  { NULL }
};

const SimSlubEra *
sim_slub_eras (void)
{
  return eras;
}

const SimSlubEra *
sim_slub_era_lookup (const char *kernel, GError **error)
{
  if (kernel == NULL)
    return &eras[0];
  /* slub@7.x names the 7.0 era (the SLUB model's own alias). */
  if (strcmp (kernel, "7.x") == 0)
    kernel = "7.0";
  for (const SimSlubEra *e = eras; e->kernel; e++)
    if (strcmp (e->kernel, kernel) == 0)
      return e;
  GString *known = g_string_new (NULL);
  for (const SimSlubEra *e = eras; e->kernel; e++)
    g_string_append_printf (known, "%s%s", known->len ? ", " : "", e->kernel);
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
               "slub: unknown kernel \"%s\" (expected one of: %s)", kernel, known->str);
  g_string_free (known, TRUE);
  return NULL;
}

/* ---- kernel integer helpers ------------------------------------------ */

static guint
fls64_ (guint64 x)
{
  return x ? 64 - (guint) __builtin_clzll (x) : 0;
}

/* fls() of an int argument: negative values have bit 31 set. */
static int
fls_int (gint64 x)
{
  return (int) fls64_ ((guint32) x);
}

/* The kernel multiplies two ints and keeps an int: wrap like x86 does. */
static gint64
int_mul (gint64 a, gint64 b)
{
  return (gint32) (guint32) ((guint64) a * (guint64) b);
}

/* An int compared with an unsigned long is sign-extended first. */
static guint64
int_to_ulong (gint64 v)
{
  return (guint64) v;
}

static guint
get_order_ (const SimSlubEra *era, guint64 size)
{
  /* get_order(0) is undefined in the kernel; callers never pass 0. */
  return fls64_ ((size - 1) >> era->page_shift);
}

static guint
ilog2_ (guint64 n)
{
  return fls64_ (n) - 1;
}

static guint64
align_up (guint64 x, guint64 a)
{
  return (x + a - 1) & ~(a - 1);
}

/* ---- parameters -------------------------------------------------------- */

void
sim_slub_config_init (SimSlubConfig *cfg, const SimSlubEra *era, guint nr_cpus)
{
  g_return_if_fail (cfg != NULL && era != NULL);
  memset (cfg, 0, sizeof *cfg);
  cfg->era = era;
  cfg->min_order = era->default_min_order;
  cfg->max_order = era->default_max_order;
  cfg->min_objects = era->default_min_objects;
  cfg->nomerge = FALSE;
  cfg->nr_cpus = nr_cpus ? nr_cpus : 1;
}

typedef enum { P_MIN_ORDER, P_MAX_ORDER, P_MIN_OBJECTS, P_NOMERGE, P_MERGE } ParamId;

typedef struct {
  const char *name;
  ParamId id;
  gboolean slab_spelling;   /* only where the era has slab_* names */
  gboolean merge_param;     /* only where slab_merge exists */
} ParamName;

static const ParamName param_names[] = {
  { "slub_min_order",   P_MIN_ORDER,   FALSE, FALSE },
  { "slub_max_order",   P_MAX_ORDER,   FALSE, FALSE },
  { "slub_min_objects", P_MIN_OBJECTS, FALSE, FALSE },
  { "slub_nomerge",     P_NOMERGE,     FALSE, FALSE },
  { "slub_merge",       P_MERGE,       FALSE, TRUE },
  { "slab_min_order",   P_MIN_ORDER,   TRUE,  FALSE },
  { "slab_max_order",   P_MAX_ORDER,   TRUE,  FALSE },
  { "slab_min_objects", P_MIN_OBJECTS, TRUE,  FALSE },
  { "slab_nomerge",     P_NOMERGE,     TRUE,  FALSE },
  { "slab_merge",       P_MERGE,       TRUE,  TRUE },
};

/* The slab_* spellings are 6.1's names for the same variables; older
 * kernels only knew slub_* (slab_max_order belonged to SLAB there), but a
 * user comparing eras writes one spec, so every era accepts both. */
static gboolean
param_known (const SimSlubEra *era, const ParamName *p)
{
  return !p->merge_param || era->merge_param;
}

char *
sim_slub_param_names (const SimSlubEra *era)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (param_names); i++)
    if (param_known (era, &param_names[i]))
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", param_names[i].name);
  return g_string_free (s, FALSE);
}

static gboolean
param_bool (const SimAllocParam *p, gboolean *out, GError **error)
{
  if (p->value == NULL || strcmp (p->value, "1") == 0)
    *out = TRUE;
  else if (strcmp (p->value, "0") == 0)
    *out = FALSE;
  else
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "parameter \"%s\" takes no value (or 0/1), got \"%s\"", p->key, p->value);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_slub_config_apply (SimSlubConfig *cfg, const SimAllocSpec *spec, GError **error)
{
  const SimSlubEra *era = cfg->era;
  guint seen = 0;

  for (guint i = 0; i < spec->params->len; i++)
    {
      const SimAllocParam *p = &g_array_index (spec->params, SimAllocParam, i);
      const ParamName *pn = NULL;
      for (guint j = 0; j < G_N_ELEMENTS (param_names); j++)
        if (strcmp (param_names[j].name, p->key) == 0 && param_known (era, &param_names[j]))
          pn = &param_names[j];
      if (pn == NULL)
        {
          g_autofree char *names = sim_slub_param_names (era);
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY,
                       "slub@%s: unknown parameter \"%s\" (expected one of: %s)",
                       era->kernel, p->key, names);
          return FALSE;
        }
      /* slab_max_order and slub_max_order are one variable: giving both
       * is the same mistake as giving one twice. */
      if (seen & (1u << pn->id) && pn->id != P_NOMERGE && pn->id != P_MERGE)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_DUPLICATE_KEY,
                       "slub@%s: parameter \"%s\" sets a value already given",
                       era->kernel, p->key);
          return FALSE;
        }
      seen |= 1u << pn->id;

      guint v = 0;
      gboolean b = FALSE;
      switch (pn->id)
        {
        case P_MIN_ORDER:
          if (!sim_alloc_param_uint (p, era->max_page_order, &v, error))
            return FALSE;
          cfg->min_order = v;
          /* 6.x setup_slub_min_order() raises the maximum with it. */
          if (era->orders_adjust && cfg->min_order > cfg->max_order)
            cfg->max_order = cfg->min_order;
          break;
        case P_MAX_ORDER:
          if (!sim_alloc_param_uint (p, G_MAXINT, &v, error))
            return FALSE;
          if (era->order_rule == SIM_SLUB_ORDER_2_6_23)
            {
              /* 2.6.23 does not clamp; orders above MAX_ORDER-1 would make
               * every slab allocation of such a cache fail. */
              if (v > era->max_page_order)
                {
                  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                               "parameter \"%s\": %u is above the page allocator's highest "
                               "order %u (2.6.23 does not clamp it; expected 0 to %u)",
                               p->key, v, era->max_page_order, era->max_page_order);
                  return FALSE;
                }
            }
          else if (v > era->max_page_order)
            v = era->max_page_order;   /* setup_slub_max_order() clamps */
          cfg->max_order = v;
          if (era->orders_adjust && cfg->min_order > cfg->max_order)
            cfg->min_order = cfg->max_order;
          break;
        case P_MIN_OBJECTS:
          if (!sim_alloc_param_uint (p, 65535, &v, error))
            return FALSE;
          cfg->min_objects = v;
          break;
        case P_NOMERGE:
          if (!param_bool (p, &b, error))
            return FALSE;
          cfg->nomerge = b;
          break;
        case P_MERGE:
          if (!param_bool (p, &b, error))
            return FALSE;
          cfg->nomerge = !b;
          break;
        }
    }
  return TRUE;
}

gboolean
sim_slub_config_from_spec (SimSlubConfig *cfg, const SimAllocSpec *spec, guint nr_cpus,
                           GError **error)
{
  if (strcmp (spec->name, "slub") != 0)
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "unknown allocator \"%s\" (expected slub)", spec->name);
      return FALSE;
    }
  const SimSlubEra *era = sim_slub_era_lookup (spec->kernel, error);
  if (era == NULL)
    return FALSE;
  sim_slub_config_init (cfg, era, nr_cpus);
  return sim_slub_config_apply (cfg, spec, error);
}

/* ---- alignment and order ---------------------------------------------- */

guint
sim_slub_calculate_alignment (const SimSlubEra *era, guint flags, guint align, guint size)
{
  if (era->hwalign_rule == SIM_SLUB_HWALIGN_HALF_LINE)
    {
      /* 2.6.23 returns early, so a cache-line alignment is not rounded
       * and a small requested alignment is not word-rounded either when
       * it is below the arch minimum. */
      if ((flags & SIM_SLUB_HWCACHE_ALIGN) && size > era->cache_line / 2)
        return MAX (align, era->cache_line);
      if (align < era->arch_slab_minalign)
        return era->arch_slab_minalign;
      return (guint) align_up (align, WORD);
    }
  if (flags & SIM_SLUB_HWCACHE_ALIGN)
    {
      guint ralign = era->cache_line;
      while (size <= ralign / 2)
        ralign /= 2;
      align = MAX (align, ralign);
    }
  align = MAX (align, era->arch_slab_minalign);
  return (guint) align_up (align, WORD);
}

/* 2.6.23 slab_order(): sizes and counts are ints. */
static gint64
slab_order_2623 (const SimSlubConfig *cfg, gint64 size, gint64 min_objects,
                 gint64 max_order, gint64 fract)
{
  const SimSlubEra *era = cfg->era;
  guint64 page = 1ull << era->page_shift;
  gint64 min_order = cfg->min_order;
  gint64 max_objs = era->max_objs_per_slab;

  while (min_order > 0 && (page << min_order) >= int_to_ulong (int_mul (max_objs, size)))
    min_order--;

  gint64 order = MAX (min_order, (gint64) fls_int (int_mul (min_objects, size) - 1)
                                 - (gint64) era->page_shift);
  for (; order <= max_order; order++)
    {
      guint64 slab = page << order;
      if (slab < int_to_ulong (int_mul (min_objects, size)))
        continue;
      guint64 rem = slab % (guint64) size;
      if (rem <= slab / (guint64) fract)
        break;
      if (slab * 2 >= int_to_ulong (int_mul (max_objs, size)))
        break;
    }
  return order;
}

static int
calculate_order_2623 (const SimSlubConfig *cfg, guint size)
{
  gint64 max_order = cfg->max_order;
  gint64 o;
  for (gint64 m = cfg->min_objects; m > 1; m /= 2)
    for (gint64 f = 8; f >= 4; f /= 2)
      {
        o = slab_order_2623 (cfg, size, m, max_order, f);
        if (o <= max_order)
          return (int) o;
      }
  o = slab_order_2623 (cfg, size, 1, max_order, 1);
  if (o <= max_order)
    return (int) o;
  /* "order <= MAX_ORDER": one order more than the page allocator has. */
  gint64 kmax = cfg->era->max_page_order + 1;
  o = slab_order_2623 (cfg, size, 1, kmax, 1);
  if (o <= kmax)
    return (int) o;
  return -1;
}

/* 2.6.34 slab_order(). */
static gint64
slab_order_2634 (const SimSlubConfig *cfg, gint64 size, gint64 min_objects,
                 gint64 max_order, gint64 fract)
{
  const SimSlubEra *era = cfg->era;
  guint64 page = 1ull << era->page_shift;
  gint64 min_order = cfg->min_order;

  if ((page << min_order) / (guint64) size > era->max_objs_per_slab)
    return (gint64) get_order_ (era, int_to_ulong (int_mul (size, era->max_objs_per_slab))) - 1;

  gint64 order = MAX (min_order, (gint64) fls_int (int_mul (min_objects, size) - 1)
                                 - (gint64) era->page_shift);
  for (; order <= max_order; order++)
    {
      guint64 slab = page << order;
      if (slab < int_to_ulong (int_mul (min_objects, size)))
        continue;
      if (slab % (guint64) size <= slab / (guint64) fract)
        break;
    }
  return order;
}

static guint
auto_min_objects (const SimSlubConfig *cfg)
{
  return 4 * (fls64_ (cfg->nr_cpus) + 1);
}

static int
calculate_order_2634 (const SimSlubConfig *cfg, guint size)
{
  const SimSlubEra *era = cfg->era;
  gint64 max_order = cfg->max_order;
  gint64 m = cfg->min_objects ? cfg->min_objects : auto_min_objects (cfg);
  gint64 max_objects = (gint64) (((guint64) 1 << era->page_shift << cfg->max_order) / size);
  gint64 o;

  m = MIN (m, max_objects);
  for (; m > 1; m--)
    for (gint64 f = 16; f >= 4; f /= 2)
      {
        o = slab_order_2634 (cfg, size, m, max_order, f);
        if (o <= max_order)
          return (int) o;
      }
  o = slab_order_2634 (cfg, size, 1, max_order, 1);
  if (o <= max_order)
    return (int) o;
  gint64 kmax = era->max_page_order + 1;      /* MAX_ORDER, exclusive */
  o = slab_order_2634 (cfg, size, 1, kmax, 1);
  if (o < kmax)
    return (int) o;
  return -1;
}

/* 6.18 calculate_order() with calc_slab_order(): unsigned int arithmetic. */
static int
calculate_order_618 (const SimSlubConfig *cfg, guint size)
{
  const SimSlubEra *era = cfg->era;
  guint32 page = 1u << era->page_shift;
  guint32 min_objects = cfg->min_objects ? cfg->min_objects : auto_min_objects (cfg);
  guint32 max_objects = MAX ((page << cfg->max_order) / size, 1u);

  min_objects = MIN (min_objects, max_objects);
  guint32 min_order = MAX (cfg->min_order, get_order_ (era, (guint32) (min_objects * size)));
  if (((guint64) page << min_order) / size > era->max_objs_per_slab)
    return (int) get_order_ (era, (guint32) (size * era->max_objs_per_slab)) - 1;

  for (guint32 fraction = 16; fraction > 1; fraction /= 2)
    {
      guint32 order;
      for (order = min_order; order <= cfg->max_order; order++)
        {
          guint64 slab = (guint64) page << order;
          if (slab % size <= slab / fraction)
            break;
        }
      if (order <= cfg->max_order)
        return (int) order;
    }
  guint order = get_order_ (era, size);
  if (order <= era->max_page_order)
    return (int) order;
  return -1;
}

int
sim_slub_calculate_order (const SimSlubConfig *cfg, guint size)
{
  g_return_val_if_fail (cfg != NULL && cfg->era != NULL && size > 0, -1);
  switch (cfg->era->order_rule)
    {
    case SIM_SLUB_ORDER_2_6_23:
      return calculate_order_2623 (cfg, size);
    case SIM_SLUB_ORDER_2_6_34:
      return calculate_order_2634 (cfg, size);
    case SIM_SLUB_ORDER_6_18:
      return calculate_order_618 (cfg, size);
    }
  g_return_val_if_reached (-1);
}

/* ---- the whole sizing ------------------------------------------------ */

static gboolean
model_error (GError **error, const SimSlubCacheArgs *args, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
model_error (GError **error, const SimSlubCacheArgs *args, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
               "cache \"%s\": %s", args->name ? args->name : "?", msg);
  return FALSE;
}

gboolean
sim_slub_calculate (const SimSlubConfig *cfg, const SimSlubCacheArgs *args,
                    SimSlubGeometry *out, GError **error)
{
  g_return_val_if_fail (cfg != NULL && cfg->era != NULL && args != NULL && out != NULL, FALSE);
  const SimSlubEra *era = cfg->era;
  guint64 page = 1ull << era->page_shift;
  guint64 kmalloc_max = 1ull << era->kmalloc_shift_max;
  guint flags = args->flags;

  if (args->object_size == 0 || args->object_size > kmalloc_max)
    return model_error (error, args, "object size %u is outside 1..%" G_GUINT64_FORMAT
                        " (KMALLOC_MAX_SIZE)", args->object_size, kmalloc_max);
  if (args->align & (args->align - 1))
    return model_error (error, args, "alignment %u is not a power of two", args->align);
  if (args->align > kmalloc_max)
    return model_error (error, args, "alignment %u is above KMALLOC_MAX_SIZE", args->align);
  if (flags & SIM_SLUB_FREEPTR_OFFSET)
    {
      if (!era->freeptr_offset_arg)
        return model_error (error, args, "freeptr_offset does not exist in %s "
                            "(kmem_cache_args.freeptr_offset arrived in 6.12)", era->kernel);
      /* create_cache() refuses these with -EINVAL. */
      if (!(flags & SIM_SLUB_TYPESAFE_BY_RCU))
        return model_error (error, args, "freeptr_offset needs typesafe_by_rcu");
      if (args->freeptr_offset >= args->object_size || args->freeptr_offset % WORD)
        return model_error (error, args, "freeptr_offset %u must be a multiple of %u "
                            "below the object size %u", args->freeptr_offset, WORD,
                            args->object_size);
    }

  if (args->sheaf_capacity && era->sheaf_rule == SIM_SLUB_SHEAVES_NONE)
    return model_error (error, args, "sheaf_capacity does not exist in %s "
                        "(kmem_cache_args.sheaf_capacity arrived in 6.18)", era->kernel);
  /* A cache asked for a capacity is never merged: 6.18 skips
   * __kmem_cache_alias() for it and slab_unmergeable() refuses any cache
   * with cpu_sheaves; 7.x sets SLAB_NO_MERGE on it ("mm/slab: make caches
   * with sheaves mergeable" keeps only those apart). */
  if (args->sheaf_capacity)
    flags |= SIM_SLUB_NO_MERGE;

  memset (out, 0, sizeof *out);
  out->flags = flags;
  out->object_size = args->object_size;

  guint64 size = align_up (args->object_size, WORD);
  out->inuse = (guint) size;
  gboolean behind = (flags & SIM_SLUB_CTOR) != 0;
  if (flags & SIM_SLUB_TYPESAFE_BY_RCU)
    behind = behind || !(flags & SIM_SLUB_FREEPTR_OFFSET);
  if (behind)
    {
      out->offset = (guint) size;
      size += WORD;
    }
  else if (flags & SIM_SLUB_FREEPTR_OFFSET)
    out->offset = args->freeptr_offset;
  else if (era->freeptr_rule == SIM_SLUB_FREEPTR_MIDDLE)
    out->offset = (args->object_size / 2) & ~(WORD - 1);
  else
    out->offset = 0;

  out->align = sim_slub_calculate_alignment (era, flags, args->align, args->object_size);
  size = align_up (size, out->align);
  if (size > G_MAXINT32)
    return model_error (error, args, "slot of %" G_GUINT64_FORMAT " bytes is too large", size);
  out->size = (guint) size;

  int order = sim_slub_calculate_order (cfg, out->size);
  if (order < 0)
    return model_error (error, args, "no slab order fits a %u-byte slot "
                        "(calculate_order() returns -ENOSYS)", out->size);
  out->order = (guint) order;
  out->objects = (guint) ((page << order) / out->size);
  if (out->objects == 0 || out->objects > era->max_objs_per_slab)
    return model_error (error, args, "order %d gives %u objects per slab (expected 1..%u)",
                        order, out->objects, era->max_objs_per_slab);

  if (era->order_fallback)
    {
      out->min_order = get_order_ (era, out->size);
      out->min_objects = (guint) ((page << out->min_order) / out->size);
    }
  else
    {
      out->min_order = out->order;
      out->min_objects = out->objects;
    }

  guint mp;
  switch (era->min_partial_rule)
    {
    case SIM_SLUB_MIN_PARTIAL_FIXED:
      mp = era->min_partial;
      break;
    case SIM_SLUB_MIN_PARTIAL_ILOG2:
      mp = CLAMP (ilog2_ (out->size), era->min_partial, era->max_partial);
      break;
    case SIM_SLUB_MIN_PARTIAL_HALF_ILOG2:
    default:
      mp = CLAMP (ilog2_ (out->size) / 2, era->min_partial, era->max_partial);
      break;
    }
  out->min_partial = mp;

  if (era->cpu_partial_rule == SIM_SLUB_CPU_PARTIAL_HALF_FULL)
    {
      guint nr;
      if (out->size >= page)
        nr = 6;
      else if (out->size >= 1024)
        nr = 24;
      else if (out->size >= 256)
        nr = 52;
      else
        nr = 120;
      out->cpu_partial = nr;
      out->cpu_partial_slabs = (nr * 2 + out->objects - 1) / out->objects;
    }
  out->sheaf_capacity = sim_slub_sheaf_capacity (era, out->size, args->sheaf_capacity, flags);
  return TRUE;
}

guint
sim_slub_sheaf_capacity (const SimSlubEra *era, guint size, guint requested, guint flags)
{
  switch (era->sheaf_rule)
    {
    case SIM_SLUB_SHEAVES_NONE:
      return 0;
    case SIM_SLUB_SHEAVES_OPT_IN:
      /* do_kmem_cache_create(): s->sheaf_capacity = args->sheaf_capacity
       * (no debug caches, no SLUB_TINY here). */
      return requested;
    case SIM_SLUB_SHEAVES_ALL:
    default:
      break;
    }
  /* calculate_sheaf_capacity(): boot caches (SLAB_NO_OBJ_EXT) have none. */
  if (flags & SIM_SLUB_BOOT_CACHE)
    return 0;
  /* "roughly similar formula (divided by two as there are two percpu
   * sheaves) as what was used for percpu partial slabs" */
  guint64 page = 1ull << era->page_shift;
  guint capacity;
  if (size >= page)
    capacity = 4;
  else if (size >= 1024)
    capacity = 12;
  else if (size >= 256)
    capacity = 26;
  else
    capacity = 60;
  /* Grown so the sheaf exactly fills its kmalloc bucket
   * (kmalloc_size_roundup of struct_size). */
  SimKmallocClass k = sim_kmalloc_classify (era, SIM_SLUB_SHEAF_HEADER + (guint64) WORD * capacity);
  if (k.kind == SIM_KMALLOC_CACHE)
    capacity = (guint) ((k.bytes - SIM_SLUB_SHEAF_HEADER) / WORD);
  return MAX (capacity, requested);
}

char *
sim_slub_unique_id (const SimSlubEra *era, const SimSlubGeometry *g)
{
  GString *s = g_string_new (":");
  if (g->flags & SIM_SLUB_CACHE_DMA)
    g_string_append_c (s, 'd');
  if (g->flags & SIM_SLUB_RECLAIM_ACCOUNT)
    g_string_append_c (s, 'a');
  if (era->id_letter_t)
    g_string_append_c (s, 't');
  if (s->len > 1)
    g_string_append_c (s, '-');
  g_string_append_printf (s, "%07u", g->size);
  return g_string_free (s, FALSE);
}

/* ---- merging ------------------------------------------------------------ */

#define NEVER_MERGE (SIM_SLUB_TYPESAFE_BY_RCU | SIM_SLUB_NO_MERGE)
#define MERGE_SAME  (SIM_SLUB_RECLAIM_ACCOUNT | SIM_SLUB_CACHE_DMA)

SimSlubCacheSet *
sim_slub_cache_set_new (const SimSlubConfig *cfg)
{
  SimSlubCacheSet *set = g_new0 (SimSlubCacheSet, 1);
  set->cfg = *cfg;
  set->caches = g_ptr_array_new ();
  return set;
}

void
sim_slub_cache_set_free (SimSlubCacheSet *set)
{
  if (set == NULL)
    return;
  for (guint i = 0; i < set->caches->len; i++)
    {
      SimSlubCache *c = g_ptr_array_index (set->caches, i);
      g_free (c->name);
      g_ptr_array_free (c->aliases, TRUE);
      g_free (c);
    }
  g_ptr_array_free (set->caches, TRUE);
  g_free (set);
}

gboolean
sim_slub_cache_mergeable (const SimSlubCacheSet *set, const SimSlubCache *c)
{
  if (set->cfg.nomerge || (c->geo.flags & NEVER_MERGE) || (c->geo.flags & SIM_SLUB_CTOR))
    return FALSE;
  return c->refcount >= 0;
}

static SimSlubCache *
find_mergeable (SimSlubCacheSet *set, const SimSlubCacheArgs *args)
{
  const SimSlubEra *era = set->cfg.era;
  if (set->cfg.nomerge || (args->flags & SIM_SLUB_CTOR) || (args->flags & NEVER_MERGE)
      || args->sheaf_capacity)
    return NULL;

  guint64 size = align_up (args->object_size, WORD);
  guint align = sim_slub_calculate_alignment (era, args->flags, args->align, (guint) size);
  size = align_up (size, align);

  guint n = set->caches->len;
  for (guint k = 0; k < n; k++)
    {
      /* New caches are list_add()ed at the head: 2.6.x walks from the head
       * (newest first), slab_common.c walks in reverse (oldest first). */
      guint i = era->merge_oldest_first ? k : n - 1 - k;
      SimSlubCache *s = g_ptr_array_index (set->caches, i);
      if (!sim_slub_cache_mergeable (set, s))
        continue;
      if (size > s->geo.size)
        continue;
      if ((args->flags & MERGE_SAME) != (s->geo.flags & MERGE_SAME))
        continue;
      if ((s->geo.size & ~(align - 1)) != s->geo.size)
        continue;
      if (s->geo.size - size >= WORD)
        continue;
      return s;
    }
  return NULL;
}

SimSlubCache *
sim_slub_cache_set_create (SimSlubCacheSet *set, const SimSlubCacheArgs *args,
                           gboolean *merged, GError **error)
{
  g_return_val_if_fail (set != NULL && args != NULL, NULL);
  SimSlubCache *s = find_mergeable (set, args);
  if (s)
    {
      s->refcount++;
      s->geo.object_size = MAX (s->geo.object_size, args->object_size);
      s->geo.inuse = MAX (s->geo.inuse, (guint) align_up (args->object_size, WORD));
      g_ptr_array_add (s->aliases, g_strdup (args->name));
      if (merged)
        *merged = TRUE;
      return s;
    }
  SimSlubGeometry geo;
  if (!sim_slub_calculate (&set->cfg, args, &geo, error))
    return NULL;
  s = g_new0 (SimSlubCache, 1);
  s->name = g_strdup (args->name);
  s->geo = geo;
  s->refcount = 1;
  s->aliases = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (set->caches, s);
  if (merged)
    *merged = FALSE;
  return s;
}

char *
sim_slub_cache_sysfs_name (const SimSlubCacheSet *set, const SimSlubCache *c)
{
  if (sim_slub_cache_mergeable (set, c))
    return sim_slub_unique_id (set->cfg.era, &c->geo);
  return g_strdup (c->name);
}
