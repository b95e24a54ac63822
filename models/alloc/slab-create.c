/* slab-create.c - kmem_cache_create and its sizing, the general caches,
 * the parameters, and the SLAB model's lifetime.
 *
 * Which kernel.  mm/slab.c of 2.6.34 and 2.6.23: kmem_cache_create's
 * alignment and on/off-slab choice, calculate_slab_order over
 * cache_estimate (the order-0 preference, slab_break_gfp_order and the
 * 1/8 waste limit), colouring, enable_cpucache's default limit,
 * batchcount and shared by object size (then the tunings a user would
 * write to /proc/slabinfo), the kmalloc_node of the per-CPU arrays,
 * kmem_list3 and alien arrays on their node, and kmem_cache_init's general
 * caches (the array-cache and kmem_list3 sizes first, then each size-N
 * and its DMA twin, as kmalloc_sizes.h lists them for the era's
 * L1_CACHE_BYTES).  The era table and the parameters live here too.
 *
 * What it leaves out.  kmem_cache_destroy and kmem_cache_shrink; cache
 * merging (SLAB has none); the bootstrap phases of kmem_cache_init
 * (cache_cache, the static initarray and initkmem_list3: every cache gets
 * its final structures at once); the DEBUG limit cap; CPU and memory
 * hotplug.  The kernel kmallocs the per-cache structures from the general
 * caches; the model carves them from pages of their node instead
 * (kmalloc_node_meta) so the general caches count only the workload.
 */
#include "models/alloc/slab-internal.h"

static const char *const path_keys[N_PATHS] = { SLAB_PATHS (SIM_PATH_KEY_) };

static const SlabEra eras[] = {
  { "2.6.34", SIM_SLAB_2_6_34, FALSE, 64, FALSE },
  { "2.6.23", SIM_SLAB_2_6_23, TRUE, 128, TRUE },
};

/* ------------------------------------------------------------------ */
/* Cache creation                                                      */

/* cache_estimate */
static void
cache_estimate (guint order, guint32 size, guint32 align, gboolean off_slab,
                guint64 *left_over, guint32 *num)
{
  guint64 slab = (guint64) SIM_PAGE_SIZE << order;
  guint64 nr, mgmt;
  if (off_slab)
    {
      mgmt = 0;
      nr = slab / size;
    }
  else
    {
      nr = (slab - SLAB_DESC_SIZE) / (size + BUFCTL_SIZE);
      if (((SLAB_DESC_SIZE + nr * BUFCTL_SIZE + align - 1) / align * align) + nr * size > slab)
        nr--;
      mgmt = (SLAB_DESC_SIZE + nr * BUFCTL_SIZE + align - 1) / align * align;
    }
  if (nr > SLAB_LIMIT)
    nr = SLAB_LIMIT;
  *num = (guint32) nr;
  *left_over = slab - nr * size - mgmt;
}

static guint64
calculate_slab_order (SimSlab *m, SlabCache *c, guint32 size, guint32 align)
{
  guint64 left_over = 0;
  for (guint order = 0; order <= KMALLOC_MAX_ORDER; order++)
    {
      guint32 num;
      guint64 remainder;
      cache_estimate (order, size, align, c->off_slab, &remainder, &num);
      if (num == 0)
        continue;
      if (c->off_slab)
        {
          /* cache_grow must not loop: the bufctl array has to fit in a
           * general cache smaller than the object. */
          guint64 offslab_limit = (size - SLAB_DESC_SIZE) / BUFCTL_SIZE;
          if (num > offslab_limit)
            break;
        }
      c->num = num;
      c->gfporder = order;
      left_over = remainder;
      if (c->flags & SIM_SLAB_RECLAIM_ACCOUNT)
        break;
      if (order >= m->break_gfp_order)
        break;
      if (left_over * 8 <= ((guint64) SIM_PAGE_SIZE << order))
        break;
    }
  return left_over;
}

/* enable_cpucache's defaults, then the user's tunings. */
static void
choose_tunables (SimSlab *m, SlabCache *c)
{
  guint limit;
  if (c->buffer_size > 131072)
    limit = 1;
  else if (c->buffer_size > SIM_PAGE_SIZE)
    limit = 8;
  else if (c->buffer_size > 1024)
    limit = 24;
  else if (c->buffer_size > 256)
    limit = 54;
  else
    limit = 120;
  guint shared = (c->buffer_size <= SIM_PAGE_SIZE && m->env.n_cpus > 1) ? 8 : 0;
  guint batchcount = (limit + 1) / 2;

  const Tune *tunes[2] = { &m->all, NULL };
  for (guint i = 0; i < m->tunes->len; i++)
    if (strcmp (g_array_index (m->tunes, Tune, i).name, c->name) == 0)
      tunes[1] = &g_array_index (m->tunes, Tune, i);
  for (guint i = 0; i < 2; i++)
    {
      const Tune *t = tunes[i];
      if (t == NULL)
        continue;
      if (t->limit >= 0)
        {
          limit = (guint) t->limit;
          batchcount = (limit + 1) / 2;
        }
      if (t->batchcount >= 0)
        batchcount = (guint) t->batchcount;
      if (t->shared >= 0)
        shared = (guint) t->shared;
    }
  /* A global batchcount above a cache's own limit: the kernel refuses
   * such a tuning, the model clamps it to the limit. */
  if (batchcount > limit)
    batchcount = limit;
  c->limit = limit;
  c->batchcount = batchcount;
  c->shared = shared;
}

/* kmalloc_node for the allocator's own structures: the slot the general
 * cache for @size would give (same size class and alignment), carved from
 * pages of @node taken from the page allocator.  (The kernel takes them
 * from the size-N caches; keeping them apart keeps the general caches'
 * counts those of the workload.) */
static SimAddr
kmalloc_node_meta (SimSlab *m, SimOp *op, guint node, guint64 size)
{
  guint64 slot = 32;
  while (slot < size)
    slot = slot == 128 ? 192 : slot == 192 ? 256 : slot * 2;
  guint64 align = MIN (slot, 64);
  guint64 used = (m->arena_used[node] + align - 1) & ~(align - 1);
  if (m->arena_base[node] == 0 || used + slot > m->arena_size[node])
    {
      guint order = 4;                    /* 64 KiB at a time */
      while (((guint64) SIM_PAGE_SIZE << order) < slot)
        order++;
      SimAddr base = sim_page_alloc (m->env.pages, op, order, (gint) node,
                                     SIM_GFP_THISNODE, FALSE);
      if (base == 0)
        base = sim_page_alloc (m->env.pages, op, order, (gint) node, 0, FALSE);
      if (base == 0)
        /* No page left at all: the static area still holds it. */
        return sim_page_static_alloc (m->env.pages, node, slot, align);
      m->arena_base[node] = base;
      m->arena_size[node] = (guint64) SIM_PAGE_SIZE << order;
      used = 0;
    }
  m->arena_used[node] = used + slot;
  return m->arena_base[node] + used;
}

static ArrayCache *
array_cache_new (SimSlab *m, SimOp *op, guint node, guint entries, guint batchcount)
{
  ArrayCache *ac = g_new0 (ArrayCache, 1);
  ac->limit = entries;
  ac->batchcount = batchcount;
  ac->entry = g_new0 (SimAddr, MAX (entries, 1));
  /* kmalloc_node(sizeof (void *) * entries + sizeof (struct array_cache)) */
  ac->addr = kmalloc_node_meta (m, op, node, AC_ENTRY + 8 * (guint64) entries);
  sim_lock_init (&ac->lock, "array_cache");
  return ac;
}

static void
array_cache_free (ArrayCache *ac)
{
  if (ac == NULL)
    return;
  g_free (ac->entry);
  g_free (ac);
}

static SlabCache *
cache_new (SimSlab *m, SimOp *op, const SimCacheSpec *spec, gboolean general, GError **error)
{
  guint32 flags = spec->flags;
  guint32 size = spec->object_size;
  if (size < BYTES_PER_WORD || size > KMALLOC_MAX_SIZE)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "slab: kmem_cache_create(\"%s\"): object size %u outside %u..%u",
                   spec->name, size, BYTES_PER_WORD, KMALLOC_MAX_SIZE);
      return NULL;
    }
  if (spec->align & (spec->align - 1))
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "slab: kmem_cache_create(\"%s\"): alignment %u is not a power of two",
                   spec->name, spec->align);
      return NULL;
    }
  size = (size + BYTES_PER_WORD - 1) & ~(BYTES_PER_WORD - 1);
  guint32 ralign;
  if (flags & SIM_SLAB_HWCACHE_ALIGN)
    {
      ralign = m->line;
      while (size <= ralign / 2)
        ralign /= 2;
    }
  else
    ralign = BYTES_PER_WORD;
  if (ralign < spec->align)
    ralign = spec->align;
  guint32 align = ralign;

  SlabCache *c = g_new0 (SlabCache, 1);
  c->name = g_strdup (spec->name);
  c->object_size = spec->object_size;
  c->flags = flags;
  c->general = general;
  c->align = align;
  /* Off-slab management for objects of PAGE_SIZE/8 and more (all general
   * caches below 512 bytes exist by then, so slab_early_init is over). */
  c->off_slab = size >= (SIM_PAGE_SIZE >> 3);
  size = (size + align - 1) / align * align;
  guint64 left_over = calculate_slab_order (m, c, size, align);
  if (c->num == 0)
    {
      g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                   "slab: kmem_cache_create(\"%s\"): no slab order holds an object of %u bytes",
                   spec->name, size);
      g_free (c->name);
      g_free (c);
      return NULL;
    }
  guint32 slab_size = (c->num * BUFCTL_SIZE + SLAB_DESC_SIZE + align - 1) / align * align;
  if (c->off_slab && left_over >= slab_size)
    {
      /* Room enough after all: back on-slab, at the expense of colours. */
      c->off_slab = FALSE;
      left_over -= slab_size;
    }
  if (c->off_slab)
    slab_size = c->num * BUFCTL_SIZE + SLAB_DESC_SIZE;
  c->colour_off = MAX (m->line, align);
  c->colour = (guint32) (left_over / c->colour_off);
  c->slab_size = slab_size;
  c->buffer_size = size;
  if (c->off_slab)
    {
      c->slabp_cache = find_general_cachep (m, NULL, slab_size, 0);
      if (c->slabp_cache == NULL || c->slabp_cache == c)
        {
          g_set_error (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVALID_PARAM,
                       "slab: kmem_cache_create(\"%s\"): no general cache for %u bytes of "
                       "off-slab management", spec->name, slab_size);
          g_free (c->name);
          g_free (c);
          return NULL;
        }
    }
  choose_tunables (m, c);

  /* The structures: kmem_cache on node 0, per node a kmem_list3, its
   * shared array and alien arrays, per CPU an array_cache on the CPU's
   * node. */
  guint kc_fixed = 8 * m->env.n_cpus;
  c->nodelists_off = kc_fixed + KC_FIXED_SIZE + (m->stats_cost ? KC_STATS_SIZE : 0);
  guint kc_size = c->nodelists_off + 8 * m->n_nodes;
  c->addr = sim_page_static_alloc (m->env.pages, 0, kc_size, m->line);
  c->fixed = c->addr + kc_fixed;
  sim_op_touch_range (op, c->addr, kc_size, SIM_ACC_WRITE, SIM_MEM_CACHE_META);

  c->array = g_new0 (ArrayCache *, m->env.n_cpus);
  for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
    {
      c->array[cpu] = array_cache_new (m, op, node_of_cpu (m, cpu), c->limit, c->batchcount);
      ac_wr (op, c->array[cpu], AC_AVAIL, 24);
    }
  c->node = g_new0 (Node, m->n_nodes);
  guint64 jiffies = jiffies_at (m, op->t);
  for (guint nd = 0; nd < m->n_nodes; nd++)
    {
      Node *n = &c->node[nd];
      n->addr = kmalloc_node_meta (m, op, nd, L3_SIZE);
      sim_lock_init (&n->list_lock, "list_lock");
      guint64 list3 = REAPTIMEOUT_LIST3_S * m->hz;
      n->next_reap = jiffies + list3 + c->addr % list3;
      n->free_limit = (1 + m->cpus_on_node[nd]) * c->batchcount + c->num;
      if (c->shared)
        {
          n->shared = array_cache_new (m, op, nd, c->shared * c->batchcount, 0xbaadf00du);
          ac_wr (op, n->shared, AC_AVAIL, 24);
        }
      if (m->use_alien && m->n_nodes > 1)
        {
          guint alimit = c->limit > 1 ? ALIEN_LIMIT : c->limit;
          n->alien = g_new0 (ArrayCache *, m->n_nodes);
          n->alien_addr = kmalloc_node_meta (m, op, nd, 8 * m->n_nodes);
          for (guint r = 0; r < m->n_nodes; r++)
            if (r != nd)
              {
                n->alien[r] = array_cache_new (m, op, nd, alimit, 0xbaadf00du);
                ac_wr (op, n->alien[r], AC_AVAIL, 24);
              }
        }
      sim_op_touch_range (op, n->addr, L3_SIZE, SIM_ACC_WRITE, SIM_MEM_CACHE_META);
    }
  c->id = m->caches->len;
  g_ptr_array_add (m->caches, c);
  g_hash_table_insert (m->by_name, c->name, c);
  return c;
}

SimCacheId
sim_slab_cache_create (SimSlab *m, SimOp *op, const SimCacheSpec *spec, GError **error)
{
  /* The kernel refuses a duplicate name; a trace that creates a cache
   * again (a module reloaded without destroying it) gets the one that
   * exists. */
  SlabCache *c = g_hash_table_lookup (m->by_name, spec->name);
  if (c == NULL)
    c = cache_new (m, op, spec, FALSE, error);
  return c ? c->id : SIM_CACHE_NONE;
}

/* One general cache of kmem_cache_init, size-N or its DMA twin. */
static SlabCache *
general_cache_new (SimSlab *m, SimOp *op, guint32 size, gboolean dma, GError **error)
{
  g_autofree char *name = dma ? g_strdup_printf ("size-%u(DMA)", size)
                              : g_strdup_printf ("size-%u", size);
  SimCacheSpec spec = { .name = name, .object_size = size, .align = 8,
                        .flags = SIM_SLAB_HWCACHE_ALIGN | SIM_SLAB_PANIC
                                 | (dma ? SIM_SLAB_CACHE_DMA : 0) };
  return cache_new (m, op, &spec, TRUE, error);
}

/* kmem_cache_init: the general caches in the kernel's order (the array
 * cache and kmem_list3 sizes first, then each size and its DMA twin). */
static gboolean
create_general_caches (SimSlab *m, SimOp *op, GError **error)
{
  static const guint32 all_sizes[] = {
    32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072,
    262144, 524288, 1048576, 2097152, 4194304,
  };
  m->sizes = g_new0 (guint32, G_N_ELEMENTS (all_sizes));
  for (guint i = 0; i < G_N_ELEMENTS (all_sizes); i++)
    {
      guint32 s = all_sizes[i];
      if ((s == 96 && m->era->l1_cache_bytes >= 64) || (s == 192 && m->era->l1_cache_bytes >= 128))
        continue;
      if (s > KMALLOC_MAX_SIZE)
        continue;
      m->sizes[m->n_sizes++] = s;
    }
  m->size_cache = g_new0 (SlabCache *, m->n_sizes);
  m->size_dma_cache = g_new0 (SlabCache *, m->n_sizes);
  m->malloc_sizes_addr = sim_page_static_alloc (m->env.pages, 0, 24 * (m->n_sizes + 1), 64);

  /* INDEX_AC: sizeof (struct arraycache_init) = 32; INDEX_L3:
   * sizeof (struct kmem_list3) = 104. */
  guint index_ac = 0, index_l3 = 0;
  while (m->sizes[index_ac] < 32)
    index_ac++;
  while (m->sizes[index_l3] < L3_SIZE)
    index_l3++;
  guint order[2] = { index_ac, index_l3 };
  for (guint k = 0; k < (index_ac == index_l3 ? 1u : 2u); k++)
    if ((m->size_cache[order[k]] = general_cache_new (m, op, m->sizes[order[k]], FALSE,
                                                      error)) == NULL)
      return FALSE;
  for (guint i = 0; i < m->n_sizes; i++)
    {
      if (m->size_cache[i] == NULL
          && (m->size_cache[i] = general_cache_new (m, op, m->sizes[i], FALSE, error)) == NULL)
        return FALSE;
      if ((m->size_dma_cache[i] = general_cache_new (m, op, m->sizes[i], TRUE, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Parameters                                                          */

/* Every era modelled takes the same ones (the tunables of
 * /proc/slabinfo, noaliencache, and the model's own slab_stats and hz). */
static const char *const param_list[] = {
  "limit", "batchcount", "shared", "slabinfo", "noaliencache", "slab_stats", "hz", NULL
};

char **
sim_alloc_slab_param_names (const char *kernel)
{
  (void) kernel;
  return g_strdupv ((char **) param_list);
}

static gboolean
bad_value (GError **error, const char *era, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
bad_value (GError **error, const char *era, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_CONFIG_ERROR, SIM_CONFIG_ERROR_BAD_VALUE, "slab@%s: %s", era, msg);
  return FALSE;
}

/* "NAME LIMIT BATCHCOUNT SHARED" (as written to /proc/slabinfo) or with
 * ':' between the fields; entries separated by ';'. */
static gboolean
parse_slabinfo (SimSlab *m, const char *value, GError **error)
{
  g_auto (GStrv) entries = g_strsplit (value, ";", -1);
  for (guint i = 0; entries[i]; i++)
    {
      g_strdelimit (entries[i], ":", ' ');
      g_auto (GStrv) f = g_strsplit_set (g_strstrip (entries[i]), " \t", -1);
      GPtrArray *w = g_ptr_array_new ();
      for (guint k = 0; f[k]; k++)
        if (f[k][0])
          g_ptr_array_add (w, f[k]);
      guint64 v[3] = { 0 };
      gboolean ok = w->len == 4;
      for (guint k = 0; ok && k < 3; k++)
        ok = g_ascii_string_to_unsigned (g_ptr_array_index (w, k + 1), 10, 0, 100000,
                                         &v[k], NULL);
      if (!ok)
        {
          g_ptr_array_unref (w);
          return bad_value (error, m->era->name,
                            "slabinfo entry \"%s\" is not CACHE:LIMIT:BATCHCOUNT:SHARED "
                            "(numbers up to 100000)", entries[i]);
        }
      if (v[0] < 1 || v[1] < 1 || v[1] > v[0])
        {
          g_ptr_array_unref (w);
          return bad_value (error, m->era->name,
                            "slabinfo entry \"%s\": need limit >= 1 and 1 <= batchcount <= limit",
                            entries[i]);
        }
      Tune t = { g_strdup (g_ptr_array_index (w, 0)), (gint) v[0], (gint) v[1], (gint) v[2] };
      g_ptr_array_unref (w);
      for (guint k = 0; k < m->tunes->len; k++)
        if (strcmp (g_array_index (m->tunes, Tune, k).name, t.name) == 0)
          {
            bad_value (error, m->era->name, "slabinfo: cache \"%s\" tuned twice", t.name);
            g_free (t.name);
            return FALSE;
          }
      g_array_append_val (m->tunes, t);
    }
  return TRUE;
}

static gboolean
parse_params (SimSlab *m, const SimAllocSpec *spec, GError **error)
{
  m->all = (Tune) { NULL, -1, -1, -1 };
  for (guint i = 0; i < spec->params->len; i++)
    {
      const SimAllocParam *p = &g_array_index (spec->params, SimAllocParam, i);
      guint v;
      if (strcmp (p->key, "limit") == 0 || strcmp (p->key, "batchcount") == 0
          || strcmp (p->key, "shared") == 0)
        {
          if (!sim_alloc_param_uint (p, 100000, &v, error))
            return FALSE;
          if (p->key[0] == 'l')
            {
              if (v < 1)
                return bad_value (error, m->era->name, "limit must be at least 1");
              m->all.limit = (gint) v;
            }
          else if (p->key[0] == 'b')
            {
              if (v < 1)
                return bad_value (error, m->era->name, "batchcount must be at least 1");
              m->all.batchcount = (gint) v;
            }
          else
            m->all.shared = (gint) v;
        }
      else if (strcmp (p->key, "slabinfo") == 0)
        {
          if (p->value == NULL)
            return bad_value (error, m->era->name,
                              "slabinfo needs a value (CACHE:LIMIT:BATCHCOUNT:SHARED;...)");
          if (!parse_slabinfo (m, p->value, error))
            return FALSE;
        }
      else if (strcmp (p->key, "noaliencache") == 0)
        {
          if (p->value)
            return bad_value (error, m->era->name, "noaliencache takes no value");
          m->use_alien = FALSE;
          m->noalien_given = TRUE;
        }
      else if (strcmp (p->key, "slab_stats") == 0)
        {
          if (!sim_alloc_param_uint (p, 1, &v, error))
            return FALSE;
          m->stats_cost = v != 0;
        }
      else if (strcmp (p->key, "hz") == 0)
        {
          if (!sim_alloc_param_hz (p, &m->hz, error))
            return FALSE;
        }
      else
        {
          g_autofree char *names = g_strjoinv (", ", (char **) param_list);
          g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                       "slab@%s: unknown parameter \"%s\" (expected one of: %s)",
                       m->era->name, p->key, names);
          return FALSE;
        }
    }
  if (m->all.limit >= 0 && m->all.batchcount > m->all.limit)
    return bad_value (error, m->era->name, "batchcount %d is above limit %d",
                      m->all.batchcount, m->all.limit);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Model creation                                                      */

SimSlab *
sim_slab_new (const SimAllocSpec *spec, const SimAllocEnv *env, GError **error)
{
  const char *kernel = spec->kernel ? spec->kernel : "2.6.34";
  const SlabEra *era = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (eras); i++)
    if (strcmp (eras[i].name, kernel) == 0)
      era = &eras[i];
  if (era == NULL)
    {
      g_set_error (error, SIM_USAGE_ERROR, SIM_USAGE_ERROR_BAD_OPTION,
                   "slab: no model of kernel %s (known: 2.6.34, 2.6.23)", kernel);
      return NULL;
    }
  SimSlab *m = g_new0 (SimSlab, 1);
  m->era = era;
  m->kernel = g_strdup (era->name);
  m->env = *env;
  m->n_nodes = env->machine->numa ? MAX (1u, env->machine->sockets) : 1;
  m->line = env->machine->n_levels ? env->machine->levels[0].line : 64;
  m->use_alien = m->n_nodes > 1;
  m->tunes = g_array_new (FALSE, TRUE, sizeof (Tune));
  m->caches = g_ptr_array_new ();
  m->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  m->slab_of = sim_idmap_new (sizeof (SimIdPair), 0);
  m->hz = sim_kernel_hz (era->name);
  g_autofree char *table = g_strconcat ("slab-", era->name, NULL);
  if (!sim_paths_load (table, path_keys, N_PATHS, m->path, error)
      || !parse_params (m, spec, error))
    {
      sim_slab_free_model (m);
      return NULL;
    }
  if (m->n_nodes == 1)
    m->use_alien = FALSE;
  m->cycles_per_jiffy = (guint64) (env->machine->frequency_ghz * 1e9 / m->hz + 0.5);
  if (m->cycles_per_jiffy == 0)
    m->cycles_per_jiffy = 1;
  m->cpus_on_node = g_new0 (guint, m->n_nodes);
  m->arena_base = g_new0 (SimAddr, m->n_nodes);
  m->arena_used = g_new0 (guint64, m->n_nodes);
  m->arena_size = g_new0 (guint64, m->n_nodes);
  m->reap_node = g_new0 (guint, env->n_cpus);
  m->reap_event = g_new0 (guint64, env->n_cpus);
  for (guint cpu = 0; cpu < env->n_cpus; cpu++)
    {
      m->cpus_on_node[node_of_cpu (m, cpu)]++;
      /* init_reap_node: the node after the CPU's own. */
      m->reap_node[cpu] = (node_of_cpu (m, cpu) + 1) % m->n_nodes;
    }
  /* Fragmentation resistance on small machines: order 1 only with more
   * than 32 MiB (totalram_pages). */
  guint64 pages = sim_page_allocated (env->pages);
  for (guint nd = 0; nd < sim_page_n_nodes (env->pages); nd++)
    for (guint o = 0; o < SIM_PAGE_MAX_ORDER; o++)
      pages += sim_page_nr_free (env->pages, nd, o) << o;
  m->break_gfp_order = pages > ((32u << 20) >> SIM_PAGE_SHIFT) ? BREAK_GFP_ORDER_HI
                                                                : BREAK_GFP_ORDER_LO;
  SimOp op;
  sim_op_begin_uncharged (&op, env->mem, 0, 0);
  if (!create_general_caches (m, &op, error))
    {
      g_prefix_error (error, "slab@%s: ", era->name);
      sim_slab_free_model (m);
      return NULL;
    }
  if (env->eng)
    for (guint cpu = 0; cpu < env->n_cpus; cpu++)
      schedule_reap (m, cpu, 0, m->hz);
  return m;
}

void
sim_slab_free_model (SimSlab *m)
{
  if (m == NULL)
    return;
  if (m->env.eng && m->reap_event)
    for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
      if (m->reap_event[cpu])
        sim_engine_cancel (m->env.eng, m->reap_event[cpu]);
  if (m->slab_of)
    sim_idmap_free (m->slab_of);
  for (guint i = 0; m->caches && i < m->caches->len; i++)
    {
      SlabCache *c = g_ptr_array_index (m->caches, i);
      for (guint cpu = 0; cpu < m->env.n_cpus; cpu++)
        array_cache_free (c->array[cpu]);
      for (guint nd = 0; nd < m->n_nodes; nd++)
        {
          array_cache_free (c->node[nd].shared);
          if (c->node[nd].alien)
            for (guint r = 0; r < m->n_nodes; r++)
              array_cache_free (c->node[nd].alien[r]);
          g_free (c->node[nd].alien);
        }
      /* Every slab is on one of its node's lists. */
      for (guint nd = 0; nd < m->n_nodes; nd++)
        for (guint l = LIST_PARTIAL; l <= LIST_FREE; l++)
          for (Slab *sl = c->node[nd].lists[l].head, *next; sl; sl = next)
            {
              next = sl->next;
              g_free (sl);
            }
      g_free (c->array);
      g_free (c->node);
      g_free (c->name);
      g_free (c);
    }
  if (m->caches)
    g_ptr_array_unref (m->caches);
  if (m->by_name)
    g_hash_table_destroy (m->by_name);
  for (guint i = 0; m->tunes && i < m->tunes->len; i++)
    g_free (g_array_index (m->tunes, Tune, i).name);
  if (m->tunes)
    g_array_free (m->tunes, TRUE);
  g_free (m->sizes);
  g_free (m->size_cache);
  g_free (m->size_dma_cache);
  g_free (m->cpus_on_node);
  g_free (m->arena_base);
  g_free (m->arena_used);
  g_free (m->arena_size);
  g_free (m->reap_node);
  g_free (m->reap_event);
  g_free (m->kernel);
  g_free (m);
}
