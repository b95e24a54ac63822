/* slub-create.c - kmem_cache_create, boot and the model's lifetime.
 *
 * Which kernel.  mm/slub.c of each era: kmem_cache_open / do_kmem_cache_create
 * (sizes and merging are slub-size.c's, from calculate_sizes and
 * find_mergeable), the placement of kmem_cache, kmem_cache_node and
 * kmem_cache_cpu at simulated addresses as each era places them (the
 * PCPU_* layouts in slub-internal.h), 6.18's per-CPU sheaves and barns
 * for caches with a sheaf_capacity, and kmem_cache_init's kmalloc caches.
 *
 * What it leaves out.  kmem_cache_destroy and kmem_cache_shrink; sysfs;
 * the kernel's own boot-time allocations other than the caches'
 * structures.  Parameters beyond the kernel's boot parameters are parsed
 * here (SimSlubExtras in slub.h).
 */
#include "models/alloc/slub-internal.h"

/* ------------------------------------------------------------------ */
/* Creation                                                            */

/* The name slabinfo shows: a merged cache (more than one user) by its
 * unique id (":t-0000256"), any other cache by its own name — what
 * rename_slabs() in tools/slub/slabinfo.c does without -f. */
static char *
display_name (SimSlub *m, const SimSlubCache *sc)
{
  if (sc->refcount > 1)
    return sim_slub_cache_sysfs_name (m->set, sc);
  return g_strdup (sc->name);
}

static gboolean give_sheaves (SimSlub *m, SimOp *op, SlubCache *s, guint sheaf_capacity,
                              GError **error);

/* Place the kernel structures of a new cache: kmem_cache on node 0,
 * kmem_cache_node on each node, kmem_cache_cpu in each CPU's per-CPU
 * area (its node's static area). */
static SlubCache *
model_cache_new (SimSlub *m, SimOp *op, SimSlubCache *sc, guint sheaf_capacity,
                 gint kmalloc_index, GError **error)
{
  SlubCache *s = g_new0 (SlubCache, 1);
  s->sc = sc;
  s->g = sc->geo;
  if (m->p.cpu_partial >= 0 && m->era->cpu_partial)
    {
      s->g.cpu_partial = (guint) m->p.cpu_partial;
      s->g.cpu_partial_slabs = s->g.objects ? (s->g.cpu_partial * 2 + s->g.objects - 1) / s->g.objects : 0;
    }
  if (!m->era->cpu_partial)
    s->g.cpu_partial = s->g.cpu_partial_slabs = 0;
  if (m->p.min_partial >= 0)
    s->g.min_partial = (guint) m->p.min_partial;
  s->name = display_name (m, sc);
  s->aliases = g_ptr_array_new_with_free_func (g_free);
  s->flags = sc->geo.flags;

  guint kc_size = m->era->kmem_cache_size + (m->era->sheaves_all ? 16 : 8) * m->n_nodes
                  + (m->era->cpu_ptr_array ? 8 * m->env.n_cpus : 0);
  const SlubEra *e = m->era;
  if ((e->pcpu_layout == PCPU_STATIC_ARRAY || e->pcpu_layout == PCPU_KMALLOC_STATIC)
      && kmalloc_index >= 0)
    {
      /* kmalloc_caches[] is a static array of struct kmem_cache: one
       * cache's tail shares a line with the next one's head. */
      if (m->kmalloc_kc == 0)
        m->kmalloc_kc = sim_page_static_alloc (m->env.pages, 0,
                                               (guint64) m->n_kmalloc * kc_size, 64);
      s->addr = m->kmalloc_kc + (guint64) kmalloc_index * kc_size;
    }
  else
    s->addr = sim_page_static_alloc (m->env.pages, 0, kc_size, 64);
  s->node = g_new0 (SlubNode, m->n_nodes);
  for (guint n = 0; n < m->n_nodes; n++)
    {
      /* 2.6.33/34 embed node 0's kmem_cache_node in kmem_cache (local_node:
       * kmalloc caches always use it for node 0, other caches for the node
       * of their kmem_cache, node 0 here). */
      if (n == 0 && e->local_node)
        s->node[n].addr = s->addr + e->local_node;
      else
        s->node[n].addr = sim_page_static_alloc (m->env.pages, n, 64, 64);
      sim_lock_init (&s->node[n].list_lock, "list_lock");
    }
  guint n_stats = e->sheaves_all ? slub_n_stats_7
                  : e->id == SIM_SLUB_6_18 ? SIM_SLUB_N_STATS
                  : e->pcpu_layout != PCPU_PACKED ? CLASSIC_2_6_N_STATS
                  : SIM_SLUB_N_CLASSIC_STATS;
  /* stat[] is in kmem_cache_cpu only in a CONFIG_SLUB_STATS build. */
  guint cc_size = e->cpu_stat_offset + (e->stats && m->p.stats ? 4 * n_stats : 0);
  if (cc_size < 24)
    cc_size = 24;
  cc_size = (cc_size + 7) & ~7u;                /* sizeof, pointer-aligned */
  s->cpu = g_new0 (CpuSlab, m->env.n_cpus);
  if (e->pcpu_layout != PCPU_PACKED && m->pcpu_unit == NULL)
    {
      /* kmem_cache_init's first cache, kmalloc_caches[0] (the
       * kmem_cache_node cache, not a cache the model replays), takes slot
       * 0 of 2.6.33's array and index 0 of 2.6.34's.  6.18's boot caches
       * (kmem_cache, kmem_cache_node) take the first dynamic bytes. */
      m->pcpu_slots = 1;
      if (e->pcpu_layout == PCPU_DYNAMIC)
        m->pcpu_dyn = 2 * ((cc_size + 15) & ~15u);
      m->pcpu_unit = g_new0 (SimAddr, m->env.n_cpus);
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        m->pcpu_unit[cpu] = sim_page_static_alloc (m->env.pages, node_of_cpu (m, cpu),
                                                   PCPU_UNIT_SIZE, 4096);
    }
  /* The per-CPU unit: 2.6.33's kmem_cache_cpu[NR_KMEM_CACHE_CPU], or
   * 2.6.34's kmalloc_percpu[] followed by the alloc_percpu area. */
  guint64 off = 0;
  gboolean in_unit = FALSE;
  if (e->pcpu_layout == PCPU_STATIC_ARRAY && m->pcpu_slots < NR_KMEM_CACHE_CPU)
    {
      off = (guint64) m->pcpu_slots++ * cc_size;
      in_unit = TRUE;
    }
  else if (e->pcpu_layout == PCPU_KMALLOC_STATIC)
    {
      guint64 statics = (guint64) m->n_kmalloc * cc_size;
      if (kmalloc_index >= 0)
        off = (guint64) kmalloc_index * cc_size;
      else
        {
          off = statics + m->pcpu_dyn;
          m->pcpu_dyn += cc_size;
        }
      in_unit = off + cc_size <= PCPU_UNIT_SIZE;
    }
  else if (e->pcpu_layout == PCPU_DYNAMIC)
    {
      off = (m->pcpu_dyn + 15) & ~(guint64) 15;
      m->pcpu_dyn = (guint) (off + cc_size);
      in_unit = off + cc_size <= PCPU_UNIT_SIZE;
    }
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      s->cpu[cpu].freelist = NIL;
      s->cpu[cpu].node = -1;
      s->cpu[cpu].tid = cpu;
      if (in_unit)
        s->cpu[cpu].addr = m->pcpu_unit[cpu] + off;
      else if (e->pcpu_layout != PCPU_PACKED)
        /* 2.6.33's table overflow: kmalloc_node of a cache-line-aligned
         * structure on the CPU's node. */
        s->cpu[cpu].addr = sim_page_static_alloc (m->env.pages, node_of_cpu (m, cpu),
                                                  (cc_size + 63) & ~63u, 64);
      else
        s->cpu[cpu].addr = sim_page_static_alloc (m->env.pages, node_of_cpu (m, cpu),
                                                  cc_size, 8);
    }
  /* kmem_cache_open writes the structure. */
  sim_op_touch_range (op, s->addr, kc_size, SIM_ACC_WRITE, SIM_MEM_CACHE_META);
  /* 7.x: every cache's capacity by calculate_sheaf_capacity, the
   * argument being kmem_cache_args.sheaf_capacity; the kmalloc caches
   * get theirs after bootstrap (bootstrap_kmalloc_sheaves). */
  if (e->sheaves_all)
    sheaf_capacity = kmalloc_index >= 0 ? 0 : slub_sheaf_capacity_7 (m, s, sheaf_capacity);
  if (sheaf_capacity > 0 && !give_sheaves (m, op, s, sheaf_capacity, error))
    {
      g_free (s->cpu);
      g_free (s->node);
      g_ptr_array_unref (s->aliases);
      g_free (s->name);
      g_free (s);
      return NULL;
    }
  s->id = m->caches->len;
  g_ptr_array_add (m->caches, s);
  g_hash_table_insert (m->model_of, sc, s);
  g_hash_table_insert (m->by_name, g_strdup (sc->name), s);
  return s;
}

/* init_kmem_cache_nodes' barns and init_percpu_sheaves' empty main
 * sheaves, kzalloc'ed on the creating CPU.  6.18 places each barn in its
 * node's static area; 7.x kmalloc_node()s it as the kernel does. */
static gboolean
give_sheaves (SimSlub *m, SimOp *op, SlubCache *s, guint sheaf_capacity, GError **error)
{
  s->sheaf_capacity = sheaf_capacity;
  Barn *barn = g_new0 (Barn, m->n_nodes);
  for (guint n = 0; n < m->n_nodes; n++)
    {
      if (m->era->sheaves_all)
        /* kmalloc_node (sizeof (struct node_barn), GFP_KERNEL, n) */
        barn[n].addr = sim_slub_kmalloc (m, op, BARN_SIZE, (gint) n, SIM_GFP_WAIT);
      else
        barn[n].addr = sim_page_static_alloc (m->env.pages, n, 64, 64);
      sim_lock_init (&barn[n].lock, "barn_lock");
      g_queue_init (&barn[n].full);
      g_queue_init (&barn[n].empty);
      if (barn[n].addr == 0)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_OUT_OF_MEMORY,
                       "simulated memory exhausted allocating the barns of %s; the "
                       "machine's memory per node is too small", s->name);
          for (guint j = 0; j < n; j++)
            sim_slub_free (m, op, barn[j].addr);
          g_free (barn);
          s->sheaf_capacity = 0;
          return FALSE;
        }
      sim_op_touch_range (op, barn[n].addr, m->era->sheaves_all ? BARN_SIZE : 64,
                          SIM_ACC_WRITE, SIM_MEM_CACHE_META);
    }
  /* The sheaves are in place only once every CPU has its main sheaf:
   * until then (a kmalloc cache allocating its own sheaves at bootstrap)
   * the cache is served by the slabs. */
  Pcs *pcs = g_new0 (Pcs, m->env.n_cpus);
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    pcs[cpu].addr = sim_page_static_alloc (m->env.pages, node_of_cpu (m, cpu), PCS_SIZE, 8);
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      pcs[cpu].main = alloc_empty_sheaf (m, op, s, SIM_GFP_WAIT);
      if (pcs[cpu].main == NULL)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_OUT_OF_MEMORY,
                       "simulated memory exhausted allocating the sheaves of %s; the "
                       "machine's memory per node is too small", s->name);
          for (guint j = 0; j < cpu; j++)
            free_empty_sheaf (m, op, s, pcs[j].main);
          for (guint n = 0; m->era->sheaves_all && n < m->n_nodes; n++)
            sim_slub_free (m, op, barn[n].addr);
          g_free (pcs);
          g_free (barn);
          s->sheaf_capacity = 0;
          return FALSE;
        }
      sim_op_write (op, pcs[cpu].addr + PCS_MAIN, 8, SIM_MEM_CPU_SLAB);
    }
  s->barn = barn;
  s->pcs = pcs;
  return TRUE;
}

static guint32
slub_flags (const SimSlub *m, guint32 f)
{
  guint32 r = 0;
  if ((f & SIM_SLAB_USERCOPY) && (m->era->id == SIM_SLUB_6_18 || m->era->sheaves_all))
    r |= SIM_SLUB_NO_MERGE;
  if (f & SIM_SLAB_HWCACHE_ALIGN)
    r |= SIM_SLUB_HWCACHE_ALIGN;
  if (f & SIM_SLAB_TYPESAFE_BY_RCU)
    r |= SIM_SLUB_TYPESAFE_BY_RCU;
  if (f & SIM_SLAB_CTOR)
    r |= SIM_SLUB_CTOR;
  if (f & SIM_SLAB_RECLAIM_ACCOUNT)
    r |= SIM_SLUB_RECLAIM_ACCOUNT;
  if (f & SIM_SLAB_CACHE_DMA)
    r |= SIM_SLUB_CACHE_DMA;
  if (f & SIM_SLAB_FREEPTR_OFFSET)
    r |= SIM_SLUB_FREEPTR_OFFSET;
  return r;
}

SimCacheId
sim_slub_cache_create (SimSlub *m, SimOp *op, const SimCacheSpec *spec, GError **error)
{
  SlubCache *existing = g_hash_table_lookup (m->by_name, spec->name);
  if (existing)
    return existing->id;
  SimSlubCacheArgs args = {
    .name = spec->name,
    .object_size = spec->object_size,
    .align = spec->align,
    .flags = slub_flags (m, spec->flags),
  };
  if ((spec->flags & SIM_SLAB_FREEPTR_OFFSET) && m->cfg.era->freeptr_offset_arg)
    args.freeptr_offset = 0;
  /* Sheaves are 6.18's and need a non-debug cache (the model has no debug
   * caches).  A cache with sheaves is never merged (slab_unmergeable
   * tests s->cpu_sheaves; __kmem_cache_create_args skips the alias
   * search when sheaf_capacity is set). */
  guint sheaf_capacity = m->era->id == SIM_SLUB_6_18 || m->era->sheaves_all
                         ? spec->sheaf_capacity : 0;
  /* The whole-run and per-cache sim_ knobs replace 6.18's requested
   * capacity (7.x applies them in slub_sheaf_capacity_7). */
  if (m->era->id == SIM_SLUB_6_18 && sheaf_capacity > 0)
    {
      gpointer v;
      if (m->p.sheaf_capacity_of
          && g_hash_table_lookup_extended (m->p.sheaf_capacity_of, spec->name, NULL, &v))
        sheaf_capacity = GPOINTER_TO_UINT (v);
      else if (m->p.sheaf_capacity >= 0)
        sheaf_capacity = (guint) m->p.sheaf_capacity;
    }
  if (sheaf_capacity > 0)
    args.flags |= SIM_SLUB_NO_MERGE;
  gboolean merged = FALSE;
  SimSlubCache *sc = sim_slub_cache_set_create (m->set, &args, &merged, error);
  if (sc == NULL)
    return SIM_CACHE_NONE;
  SlubCache *s = g_hash_table_lookup (m->model_of, sc);
  if (s == NULL)
    {
      s = model_cache_new (m, op, sc, sheaf_capacity, -1, error);
      if (s == NULL)
        return SIM_CACHE_NONE;
    }
  else
    {
      /* Merged: the kernel keeps one kmem_cache; the new name becomes an
       * alias (and slabinfo shows the unique id). */
      g_ptr_array_add (s->aliases, g_strdup (spec->name));
      g_hash_table_insert (m->by_name, g_strdup (spec->name), s);
      g_free (s->name);
      s->name = display_name (m, sc);
    }
  return s->id;
}

SimCacheId
sim_slub_kmalloc_cache (SimSlub *m, gsize size, guint32 gfp)
{
  (void) gfp;      /* DMA kmalloc caches are not modelled: served by the normal ones */
  if (m->p.pass_through > 0 && (gint64) size > m->p.pass_through)
    return SIM_CACHE_NONE;
  /* Sizes up to 192 are always a cache's (every era's top is larger), and
   * the caches are fixed once made: the table holds what follows. */
  if (size <= SLUB_KMALLOC_SMALL && m->kmalloc_small_ready)
    return m->kmalloc_small[(MAX (size, 1) - 1) / 8];
  SimKmallocClass k = sim_kmalloc_classify (m->cfg.era, MAX (size, 1));
  if (k.kind != SIM_KMALLOC_CACHE)
    {
      /* pass_through=off keeps large kmallocs in the largest caches the
       * era has while they fit. */
      if (m->p.pass_through == 0)
        for (guint i = 0; i < m->n_kmalloc; i++)
          if (m->kmalloc[i] && m->kmalloc[i]->g.object_size >= size)
            return m->kmalloc[i]->id;
      return SIM_CACHE_NONE;
    }
  if (k.index >= m->n_kmalloc || m->kmalloc[k.index] == NULL)
    return SIM_CACHE_NONE;
  return m->kmalloc[k.index]->id;
}

/* sim_sheaf_capacity=N (every cache with sheaves) or
 * sim_sheaf_capacity=CACHE:N+CACHE:N (those caches; the others keep the
 * kernel's rule). */
static gboolean
parse_sheaf_capacity (SimSlubExtras *x, const SimAllocParam *p, GError **error)
{
  if (strchr (p->value, ':') == NULL)
    {
      guint v;
      if (!sim_alloc_param_uint (p, 65535, &v, error))
        return FALSE;
      x->sheaf_capacity = (gint) v;
      return TRUE;
    }
  if (x->sheaf_capacity_of == NULL)
    x->sheaf_capacity_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) items = g_strsplit (p->value, "+", -1);
  for (guint i = 0; items[i]; i++)
    {
      const char *colon = strrchr (items[i], ':');
      char *end = NULL;
      guint64 v = colon ? g_ascii_strtoull (colon + 1, &end, 10) : 0;
      if (colon == NULL || colon == items[i] || end == colon + 1 || *end != '\0' || v > 65535)
        {
          g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                       "sim_sheaf_capacity=%s: expected N or CACHE:N+CACHE:N with N 0..65535, "
                       "got '%s'", p->value, items[i]);
          return FALSE;
        }
      g_hash_table_insert (x->sheaf_capacity_of, g_strndup (items[i], colon - items[i]),
                           GUINT_TO_POINTER ((guint) v));
    }
  return TRUE;
}

/* The model's parameters beyond the sizing code's boot parameters
 * (slub-size.c), and which eras have the variable each one sets: a
 * parameter an era does not have is an error, not silently ignored. */
typedef enum { X_ALL, X_CPU_PARTIAL, X_MIN_PARTIAL, X_SHEAVES } ExtraNeed;

static const struct {
  const char *name;
  ExtraNeed   need;
} extra_params[] = {
  { "pass_through",       X_ALL },
  { "cpu_partial",        X_CPU_PARTIAL },   /* kmem_cache.cpu_partial, 3.1 on */
  { "min_partial",        X_MIN_PARTIAL },   /* 2.6.23 has the constant MIN_PARTIAL */
  { "slub_stats",         X_ALL },           /* =1 needs CONFIG_SLUB_STATS (checked later) */
  { "sim_sheaf_capacity", X_SHEAVES },
  { "sim_barn_max_full",  X_SHEAVES },
  { "sim_barn_max_empty", X_SHEAVES },
};

static gboolean
extra_known (const SlubEra *era, ExtraNeed need)
{
  switch (need)
    {
    case X_CPU_PARTIAL: return era->cpu_partial;
    case X_MIN_PARTIAL: return era->min_partial_fixed == 0;
    case X_SHEAVES:     return era->sheaves_all || era->id == SIM_SLUB_6_18;
    case X_ALL:         break;
    }
  return TRUE;
}

static const SlubEra *
era_named (const char *kernel)
{
  if (kernel == NULL)
    kernel = "6.18";
  if (strcmp (kernel, "7.x") == 0)
    kernel = "7.0";                    /* the newest 7 era */
  for (guint i = 0; i < slub_n_eras; i++)
    if (strcmp (slub_eras[i].name, kernel) == 0)
      return &slub_eras[i];
  return NULL;
}

/* The sizing code's spellings (for the era whose sizing this era uses,
 * as sim_slub_new() passes it on) and the model's own. */
char **
sim_alloc_slub_param_names (const char *kernel)
{
  const SlubEra *era = era_named (kernel);
  if (era == NULL)
    return NULL;
  const char *sizing = era->id == SIM_SLUB_2_6_33 ? "2.6.34" : era->sheaves_all ? "6.18" : era->name;
  const SimSlubEra *se = sim_slub_era_lookup (sizing, NULL);
  g_autofree char *size_names = se ? sim_slub_param_names (se) : g_strdup ("");
  g_auto (GStrv) sv = g_strsplit (size_names, ", ", -1);
  GPtrArray *out = g_ptr_array_new ();
  for (char **n = sv; *n; n++)
    if (**n)
      g_ptr_array_add (out, g_strdup (*n));
  for (guint i = 0; i < G_N_ELEMENTS (extra_params); i++)
    if (extra_known (era, extra_params[i].need))
      g_ptr_array_add (out, g_strdup (extra_params[i].name));
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static gboolean
parse_extras (const SlubEra *era, SimSlubExtras *x, const SimAllocSpec *spec,
              SimAllocSpec *rest, GError **error)
{
  x->pass_through = -1;
  x->cpu_partial = -1;
  x->min_partial = -1;
  /* CONFIG_SLUB_STATS is default n in every era that has it. */
  x->stats = FALSE;
  x->sheaf_capacity = -1;
  x->sheaf_capacity_of = NULL;
  x->barn_max_full = MAX_FULL_SHEAVES;
  x->barn_max_empty = MAX_EMPTY_SHEAVES;
  for (guint i = 0; i < spec->params->len; i++)
    {
      const SimAllocParam *p = &g_array_index (spec->params, SimAllocParam, i);
      guint v;
      for (guint j = 0; j < G_N_ELEMENTS (extra_params); j++)
        if (strcmp (p->key, extra_params[j].name) == 0 && !extra_known (era, extra_params[j].need))
          {
            g_auto (GStrv) names = sim_alloc_slub_param_names (era->name);
            g_autofree char *list = g_strjoinv (", ", names);
            g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY,
                         "slub@%s: parameter \"%s\" does not exist in this kernel "
                         "(slub@%s takes: %s)", era->name, p->key, era->name, list);
            return FALSE;
          }
      if (g_strcmp0 (p->key, "pass_through") == 0)
        {
          if (g_strcmp0 (p->value, "off") == 0)
            x->pass_through = 0;
          else if (!sim_alloc_param_uint (p, G_MAXINT32, &v, error))
            return FALSE;
          else
            x->pass_through = v;
        }
      else if (g_strcmp0 (p->key, "cpu_partial") == 0)
        {
          if (!sim_alloc_param_uint (p, 100000, &v, error))
            return FALSE;
          x->cpu_partial = (gint) v;
        }
      else if (g_strcmp0 (p->key, "min_partial") == 0)
        {
          if (!sim_alloc_param_uint (p, 1000, &v, error))
            return FALSE;
          x->min_partial = (gint) v;
        }
      else if (g_strcmp0 (p->key, "sim_sheaf_capacity") == 0)
        {
          if (!parse_sheaf_capacity (x, p, error))
            return FALSE;
        }
      else if (g_strcmp0 (p->key, "sim_barn_max_full") == 0
               || g_strcmp0 (p->key, "sim_barn_max_empty") == 0)
        {
          if (!sim_alloc_param_uint (p, 100000, &v, error))
            return FALSE;
          if (g_strcmp0 (p->key, "sim_barn_max_full") == 0)
            x->barn_max_full = v;
          else
            x->barn_max_empty = v;
        }
      else if (g_strcmp0 (p->key, "slub_stats") == 0)
        {
          if (!sim_alloc_param_uint (p, 1, &v, error))
            return FALSE;
          x->stats = v != 0;
        }
      else
        {
          SimAllocParam copy = { g_strdup (p->key), g_strdup (p->value) };
          g_array_append_val (rest->params, copy);
        }
    }
  return TRUE;
}

/* bootstrap_kmalloc_sheaves (7.x): once every kmalloc cache exists,
 * each gets its barns and sheaves, allocated with kmalloc itself (a
 * cache still without sheaves is served by its slabs meanwhile). */
static gboolean
bootstrap_kmalloc_sheaves (SimSlub *m, SimOp *op, GError **error)
{
  for (guint k = 0; k < m->n_kmalloc; k++)
    {
      SlubCache *s = m->kmalloc[k];
      if (s == NULL || s->pcs != NULL)
        continue;
      guint capacity = slub_sheaf_capacity_7 (m, s, 0);
      if (capacity > 0 && !give_sheaves (m, op, s, capacity, error))
        return FALSE;
    }
  return TRUE;
}

/* A model refused before it made anything: free what parsing made. */
static SimSlub *
abandon_early (SimSlub *m)
{
  if (m->p.sheaf_capacity_of)
    g_hash_table_destroy (m->p.sheaf_capacity_of);
  g_free (m->kernel);
  g_free (m);
  return NULL;
}

SimSlub *
sim_slub_new (const SimAllocSpec *spec, const SimAllocEnv *env, GError **error)
{
  const char *kernel = spec->kernel ? spec->kernel : "6.18";
  const SlubEra *era = era_named (kernel);
  if (era == NULL)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "slub: no model of kernel %s (known: 2.6.23, 2.6.33, 2.6.34, 6.18, "
                   "7.0 (also 7.x))", kernel);
      return NULL;
    }
  SimSlub *m = g_new0 (SimSlub, 1);
  m->era = era;
  m->env = *env;
  m->kernel = g_strdup (era->name);
  m->n_nodes = env->machine->numa ? env->machine->sockets : 1;
  g_autofree char *table = g_strconcat ("slub-", era->name, NULL);
  if (!sim_paths_load (table, path_keys, N_PATHS, m->path, error))
    {
      g_free (m->kernel);
      g_free (m);
      return NULL;
    }

  /* 2.6.33 sizes its caches exactly as 2.6.34 does; only the per-CPU
   * layout differs.  7.x keeps 6.18's calculate_sizes, calculate_order,
   * min_partial and kmalloc classes. */
  SimAllocSpec sizing = { .name = spec->name,
                          .kernel = (char *) (era->id == SIM_SLUB_2_6_33 ? "2.6.34"
                                              : era->sheaves_all ? "6.18" : era->name),
                          .params = g_array_new (FALSE, TRUE, sizeof (SimAllocParam)) };
  gboolean ok = parse_extras (era, &m->p, spec, &sizing, error)
                && sim_slub_config_from_spec (&m->cfg, &sizing, env->n_cpus, error);
  for (guint i = 0; i < sizing.params->len; i++)
    {
      g_free (g_array_index (sizing.params, SimAllocParam, i).key);
      g_free (g_array_index (sizing.params, SimAllocParam, i).value);
    }
  g_array_free (sizing.params, TRUE);
  if (!ok)
    {
      /* The sizing code lists its boot parameters; the model's own come on
       * top. */
      if (error && *error && g_error_matches (*error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_UNKNOWN_KEY)
          && g_str_has_suffix ((*error)->message, ")")
          && strstr ((*error)->message, "expected one of: "))
        {
          char *msg = g_strndup ((*error)->message,
                                 strstr ((*error)->message, "expected one of: ") - (*error)->message);
          g_auto (GStrv) names = sim_alloc_slub_param_names (era->name);
          g_autofree char *list = g_strjoinv (", ", names);
          g_free ((*error)->message);
          (*error)->message = g_strconcat (msg, "expected one of: ", list, ")", NULL);
          g_free (msg);
        }
      return abandon_early (m);
    }
  if (m->p.pass_through < 0)
    m->p.pass_through = -1;
  if (m->p.stats && !era->stats)
    {
      /* CONFIG_SLUB_STATS came with 2.6.25: there is nothing to charge. */
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "slub@%s: slub_stats=1: this kernel has no CONFIG_SLUB_STATS (added in 2.6.25)",
                   era->name);
      return abandon_early (m);
    }
  if (!era->sheaves_all && era->id != SIM_SLUB_6_18
      && (m->p.sheaf_capacity >= 0 || m->p.sheaf_capacity_of))
    {
      g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE,
                   "slub@%s: sim_sheaf_capacity: this kernel has no sheaves (6.18 and 7.x do)",
                   era->name);
      return abandon_early (m);
    }

  m->kmalloc_max = sim_kmalloc_max_size (m->cfg.era);
  m->caches = g_ptr_array_new ();
  m->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  m->model_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  m->slab_of = sim_idmap_new (sizeof (SimIdPair), 0);
  m->large = sim_idmap_new (sizeof (SimIdPair), 0);
  m->set = sim_slub_cache_set_new (&m->cfg);
  if (!sim_kmalloc_create_caches (m->set, error))
    {
      sim_slub_free_model (m);
      return NULL;
    }
  /* Mirror the kmalloc caches create_kmalloc_caches made. */
  SimOp op;
  sim_op_begin_uncharged (&op, env->mem, 0, 0);
  GArray *idx = sim_kmalloc_cache_indexes (m->cfg.era);
  guint max_index = 0;
  for (guint i = 0; i < idx->len; i++)
    max_index = MAX (max_index, g_array_index (idx, guint, i));
  m->n_kmalloc = max_index + 1;
  m->kmalloc = g_new0 (SlubCache *, m->n_kmalloc);
  for (guint i = 0; i < idx->len; i++)
    {
      guint k = g_array_index (idx, guint, i);
      char *name = sim_kmalloc_cache_name (m->cfg.era, k);
      SimSlubCache *sc = NULL;
      for (guint j = 0; j < m->set->caches->len && sc == NULL; j++)
        {
          SimSlubCache *c = g_ptr_array_index (m->set->caches, j);
          if (strcmp (c->name, name) == 0)
            sc = c;
        }
      if (sc)
        {
          SlubCache *s = g_hash_table_lookup (m->model_of, sc);
          m->kmalloc[k] = s ? s : model_cache_new (m, &op, sc, 0, (gint) k, NULL);
          if (m->kmalloc[k])
            m->kmalloc[k]->is_kmalloc = TRUE;
        }
      g_free (name);
    }
  g_array_unref (idx);
  /* The same answers in a table for the small sizes (size_index's range):
   * every size of an 8-byte step (8k-7..8k) has the same cache. */
  for (guint i = 0; i < SLUB_KMALLOC_SMALL / 8; i++)
    {
      SimKmallocClass k = sim_kmalloc_classify (m->cfg.era, 8 * (i + 1));
      g_assert (k.kind == SIM_KMALLOC_CACHE);
      m->kmalloc_small[i] = k.index < m->n_kmalloc && m->kmalloc[k.index]
                            ? m->kmalloc[k.index]->id : SIM_CACHE_NONE;
    }
  m->kmalloc_small_ready = TRUE;
  if (era->sheaves_all && !bootstrap_kmalloc_sheaves (m, &op, error))
    {
      sim_slub_free_model (m);
      return NULL;
    }
  return m;
}

static void
sheaf_destroy (Sheaf *sh)
{
  if (sh)
    {
      g_free (sh->objects);
      g_free (sh);
    }
}

void
sim_slub_free_model (SimSlub *m)
{
  if (m == NULL)
    return;
  if (m->slab_of)
    {
      guint64 cur = 0;
      for (SimIdPair *e; (e = sim_idmap_next (m->slab_of, &cur)) != NULL;)
        g_free ((gpointer) (gsize) e->value);
      sim_idmap_free (m->slab_of);
    }
  if (m->caches)
    {
      for (guint i = 0; i < m->caches->len; i++)
        {
          SlubCache *s = g_ptr_array_index (m->caches, i);
          for (guint cpu = 0; s->pcs && cpu < m->env.n_cpus; cpu++)
            {
              sheaf_destroy (s->pcs[cpu].main);
              sheaf_destroy (s->pcs[cpu].spare);
              sheaf_destroy (s->pcs[cpu].rcu_free);
            }
          /* Sheaves whose grace period never ended (the RCU callbacks are
           * dropped with the replay's SimRcu). */
          g_queue_clear_full (&s->rcu_inflight, (GDestroyNotify) sheaf_destroy);
          for (guint n = 0; s->barn && n < m->n_nodes; n++)
            {
              g_queue_clear_full (&s->barn[n].full, (GDestroyNotify) sheaf_destroy);
              g_queue_clear_full (&s->barn[n].empty, (GDestroyNotify) sheaf_destroy);
            }
          g_free (s->pcs);
          g_free (s->barn);
          g_free (s->name);
          g_ptr_array_unref (s->aliases);
          g_free (s->cpu);
          g_free (s->node);
          g_free (s);
        }
      g_ptr_array_unref (m->caches);
    }
  if (m->by_name)
    g_hash_table_destroy (m->by_name);
  if (m->model_of)
    g_hash_table_destroy (m->model_of);
  if (m->large)
    sim_idmap_free (m->large);
  if (m->set)
    sim_slub_cache_set_free (m->set);
  g_free (m->kmalloc);
  g_free (m->pcpu_unit);
  if (m->p.sheaf_capacity_of)
    g_hash_table_destroy (m->p.sheaf_capacity_of);
  g_free (m->kernel);
  g_free (m);
}

