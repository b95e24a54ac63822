/* slab.c - SLAB, as in Linux 2.6.23 and 2.6.34 (mm/slab.c).
 *
 * Which kernel.  The paths follow mm/slab.c of 2.6.34 and 2.6.23 (read in
 * the trees cited by shared/reference/allocators.md §0, T34 and T23); the
 * two differ in almost nothing the model can see:
 *
 *   2.6.23  transfer_objects() marks the receiving array touched, so a
 *           refill from the shared array touches the CPU's array (which
 *           the refill does anyway) and an alien drain into a node's shared
 *           array marks that shared array touched (it then survives one
 *           reap untouched-drain).
 *   2.6.34  transfer_objects() touches nothing; cache_alloc_refill marks
 *           the shared array touched when it took objects from it.
 * Everything else the model does (array caches, shared and alien arrays,
 * slab lists, colouring, on/off-slab management, calculate_slab_order,
 * enable_cpucache, cache_reap) is the same text in both.
 *
 * What the model keeps.  struct kmem_cache with array[NR_CPUS] (one
 * pointer per CPU; NR_CPUS = the machine's CPU count), the tunables and
 * nodelists[]; one struct array_cache per CPU (avail, limit, batchcount,
 * touched, lock, entry[]) placed on the CPU's node; per node a kmem_list3
 * (slabs_partial, slabs_full, slabs_free, free_objects, free_limit,
 * colour_next, list_lock, shared, alien, next_reap, free_touched), its
 * shared array (shared * batchcount entries) and, on NUMA machines, one
 * alien array per other node (limit 12); struct slab {list, colouroff,
 * s_mem, inuse, free, nodeid} followed by the kmem_bufctl_t array, inside
 * the slab (after the colour offset) or off-slab in an object of the
 * general cache that fits (allocated and freed through this model, as
 * alloc_slabmgmt and slab_destroy do); the struct page of every slab page
 * carrying the cache and slab pointers (slab_map_pages).  The array
 * caches, kmem_list3 and alien pointer arrays, which the kernel kmallocs
 * on their node once per cache, get kmalloc-sized slots in pages of that
 * node taken from the page allocator (not objects of the general caches,
 * whose counts stay the workload's); kmem_cache (from cache_cache, not
 * modelled) and malloc_sizes[] sit in the static area of node 0.
 *
 * Every load and store those paths make on these structures goes to the
 * cache model at the structure's simulated address: array_cache fields
 * and entries (SIM_MEM_CPU_SLAB), bufctl entries (SIM_MEM_FREEPTR),
 * struct page (SIM_MEM_STRUCT_PAGE), kmem_cache / kmem_list3 / struct slab
 * and the list links in it (SIM_MEM_CACHE_META), lock words (SIM_MEM_LOCK).
 * list_lock and the alien array locks are engine locks.
 *
 * Periodic work.  cache_reap runs on every CPU: first ~1 s after the
 * model starts, then every REAPTIMEOUT_CPUC = 2 s, as the kernel's
 * round_jiffies_relative places it (whole seconds minus 3 jiffies per CPU
 * number).  Jiffies tick at the era's HZ (sim_kernel_hz: 250 for 2.6.23,
 * 1000 for 2.6.34, as x86-64's defconfig of each sets it), or hz=N.  For every cache, each run drains one of its node's
 * alien arrays (round robin over the nodes), drains the CPU's array unless
 * it was touched, and when its node's next_reap (every 4 s,
 * REAPTIMEOUT_LIST3, first jittered by the kmem_cache address) has passed,
 * drains the node's shared array and destroys some free slabs.
 * With an engine (env->eng) these are engine events; without one (unit
 * tests) nothing runs until sim_slab_reap() is called.
 *
 * Counting.  The STATS counters exist only in CONFIG_DEBUG_SLAB kernels,
 * whose debug features this model leaves out; they are kept here at no
 * simulated cost unless slab_stats=1, which charges their updates (atomic
 * increments on the shared kmem_cache line) as a STATS kernel makes them.
 *
 * What it leaves out.  Debugging (red zones, poisoning, user store,
 * FORCED_DEBUG, the DEBUG limit cap of 32), kmemleak/kmemcheck, CPU and
 * memory hotplug, kmem_cache_shrink/destroy, mempolicy and cpuset
 * spreading (alternate_node_alloc), SLAB_DESTROY_BY_RCU's deferred page
 * freeing (pages are freed at once), the cache_chain_mutex (cache_reap's
 * trylock always succeeds), the bootstrap array caches (every cache has its
 * final tunables from the start), cache_cache itself, and interrupts: an
 * operation runs to completion on its CPU.  ZONE_DMA does not exist in the
 * page model: the size-N(DMA) caches take normal pages.
 *
 * The files.  The model is split along mm/slab.c's seams (slab-internal.h
 * lists them): this file has the allocation and free entry points, the
 * NUMA fallback, kmalloc and the ops table; slab-array.c the array
 * caches (refill, flush, alien arrays) and cache_reap; slab-grow.c the
 * slab lists, cache_grow and slab_destroy; slab-create.c
 * kmem_cache_create, the general caches, the parameters and the model's
 * lifetime; slab-check.c introspection and the invariant checker.
 */
#include "models/alloc/slab-internal.h"

/* ------------------------------------------------------------------ */
/* Counter names                                                       */

static const char *const stat_names[SIM_SLAB_N_STATS] = {
#define SLAB_STAT_NAME(e, n) n,
  SIM_SLAB_STATS (SLAB_STAT_NAME)
#undef SLAB_STAT_NAME
};

const char *
sim_slab_stat_name (SimSlabStat st)
{
  g_return_val_if_fail (st < SIM_SLAB_N_STATS, NULL);
  return stat_names[st];
}

/* ------------------------------------------------------------------ */
/* Allocation                                                          */

/* ____cache_alloc */
static SimAddr
cache_alloc_local (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp)
{
  ArrayCache *ac = cpu_cache_get (op, c);
  ac_rd (op, ac, AC_AVAIL, 4);
  if (ac->avail)
    {
      stat (m, op, c, SIM_SLAB_ALLOCHIT);
      ac->touched = 1;
      ac_wr (op, ac, AC_TOUCHED, 4);
      ac->avail--;
      sim_op_read (op, ac_entry_addr (ac, ac->avail), 8, SIM_MEM_CPU_SLAB);
      ac_wr (op, ac, AC_AVAIL, 4);
      return ac->entry[ac->avail];
    }
  stat (m, op, c, SIM_SLAB_ALLOCMISS);
  return cache_alloc_refill (m, op, c, gfp);
}

static SimAddr node_alloc (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp, guint nodeid);

/* fallback_alloc: any node's free objects, else pages from anywhere. */
static SimAddr
fallback_alloc (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp)
{
  if (gfp & SIM_GFP_THISNODE)
    return 0;
  guint local = node_of_cpu (m, op->cpu);
  for (;;)
    {
      for (guint i = 0; i < m->n_nodes; i++)
        {
          guint nid = (local + i) % m->n_nodes;
          Node *n = nodelist (op, c, nid);
          l3_rd (op, n, L3_FREE_OBJECTS, 8);
          if (n->free_objects)
            {
              SimAddr obj = node_alloc (m, op, c, gfp | SIM_GFP_THISNODE, nid);
              if (obj)
                return obj;
            }
        }
      SimAddr pages = kmem_getpages (m, op, c, gfp & ~SIM_GFP_THISNODE, (gint) local);
      if (pages == 0)
        return 0;
      guint nid = sim_page_node_of (m->env.pages, pages) % m->n_nodes;
      if (!cache_grow (m, op, c, gfp, nid, pages))
        return 0;
      SimAddr obj = node_alloc (m, op, c, gfp | SIM_GFP_THISNODE, nid);
      if (obj)
        return obj;
    }
}

/* ____cache_alloc_node: one object straight from @nodeid's lists. */
static SimAddr
node_alloc (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp, guint nodeid)
{
  sim_op_path (op, &m->path[P_NODE_ALLOC]);
  Node *n = nodelist (op, c, nodeid);
  for (;;)
    {
      list_lock (op, n);
      Slab *s = first_slab (op, n);
      if (s)
        {
          stat (m, op, c, SIM_SLAB_NODE_ALLOCS);
          stat (m, op, c, SIM_SLAB_NUM_ACTIVE);
          SimAddr obj = slab_get_obj (m, op, s);
          n->free_objects--;
          l3_wr (op, n, L3_FREE_OBJECTS, 8);
          list_del_slab (m, op, n, s);
          list_add_slab (m, op, n, s, s->free == BUFCTL_END ? LIST_FULL : LIST_PARTIAL, FALSE);
          list_unlock (op, n);
          return obj;
        }
      list_unlock (op, n);
      if (!cache_grow (m, op, c, gfp | SIM_GFP_THISNODE, nodeid, 0))
        return fallback_alloc (m, op, c, gfp);
    }
}

/* __cache_alloc / __cache_alloc_node without the debug and trace hooks. */
SimAddr
cache_alloc_node (SimSlab *m, SimOp *op, SlabCache *c, gint nodeid, guint32 gfp)
{
  sim_op_path (op, &m->path[P_FAST_ALLOC]);
  sim_op_irqsave (op);                         /* local_irq_save in __cache_alloc */
  guint local = node_of_cpu (m, op->cpu);
  SimAddr obj = 0;
  if (nodeid == SIM_NUMA_NO_NODE)
    {
      /* __do_cache_alloc */
      obj = cache_alloc_local (m, op, c, gfp);
      if (obj == 0)
        obj = node_alloc (m, op, c, gfp, local);
    }
  else
    {
      guint nid = (guint) nodeid % m->n_nodes;
      if (nid == local)
        obj = cache_alloc_local (m, op, c, gfp);
      if (obj == 0)
        obj = node_alloc (m, op, c, gfp, nid);
    }
  sim_op_irqrestore (op);                      /* before the __GFP_ZERO memset */
  if (obj == 0)
    return 0;
  if (gfp & SIM_GFP_ZERO)
    {
      rd_kc (op, c, KC_BUFFER_SIZE, 4);
      sim_op_touch_range (op, obj, c->buffer_size, SIM_ACC_WRITE, SIM_MEM_OBJECT);
    }
  c->live++;
  return obj;
}

SimAddr
sim_slab_cache_alloc (SimSlab *m, SimOp *op, SimCacheId id, gint node, guint32 gfp)
{
  g_return_val_if_fail (id < m->caches->len, 0);
  return cache_alloc_node (m, op, g_ptr_array_index (m->caches, id), node, gfp);
}

/* ------------------------------------------------------------------ */
/* Free                                                                */

/* __cache_free */
void
cache_free (SimSlab *m, SimOp *op, SlabCache *c, SimAddr obj)
{
  sim_op_path (op, &m->path[P_FAST_FREE]);
  /* kmem_cache_free and kfree run __cache_free between local_irq_save
   * and local_irq_restore. */
  sim_op_irqsave (op);
  c->live--;
  ArrayCache *ac = cpu_cache_get (op, c);
  if (m->n_nodes > 1 && cache_free_alien (m, op, c, obj))
    {
      sim_op_irqrestore (op);
      return;
    }
  ac_rd (op, ac, AC_AVAIL, 8);
  if (ac->avail < ac->limit)
    stat (m, op, c, SIM_SLAB_FREEHIT);
  else
    {
      stat (m, op, c, SIM_SLAB_FREEMISS);
      cache_flusharray (m, op, c, ac);
    }
  ac->entry[ac->avail] = obj;
  sim_op_write (op, ac_entry_addr (ac, ac->avail), 8, SIM_MEM_CPU_SLAB);
  ac->avail++;
  ac_wr (op, ac, AC_AVAIL, 4);
  sim_op_irqrestore (op);
}

/* virt_to_cache: the cache pointer in the object's struct page
 * (page->lru.next); the kfree row counts it with kfree's own test. */
static void
virt_to_cache (SimSlab *m, SimOp *op, SimAddr page)
{
  sim_op_path (op, &m->path[P_KFREE]);
  SimAddr pg = sim_page_struct (m->env.pages, page);
  sim_op_read (op, pg + PG_FLAGS, 8, SIM_MEM_STRUCT_PAGE);
  sim_op_read (op, pg + PG_LRU, 8, SIM_MEM_STRUCT_PAGE);
}

gboolean
sim_slab_free (SimSlab *m, SimOp *op, SimAddr addr)
{
  Slab *s = object_slab (m, addr);
  if (s == NULL)
    return FALSE;
  /* kfree finds the cache through struct page (virt_to_cache:
   * virt_to_head_page, page_get_cache). */
  virt_to_cache (m, op, addr & ~(SimAddr) (SIM_PAGE_SIZE - 1));
  cache_free (m, op, s->c, addr);
  return TRUE;
}

/* kmem_cache_free; FALSE if @addr is not an object slot of the model's. */
gboolean
sim_slab_cache_free (SimSlab *m, SimOp *op, SimAddr addr)
{
  Slab *s = object_slab (m, addr);
  if (s == NULL)
    return FALSE;
  /* kmem_cache_free is handed the cache; 2.6.23 still looks it up in
   * struct page to check it (BUG_ON), 2.6.34 does not. */
  if (m->era->cache_free_checks)
    virt_to_cache (m, op, addr & ~(SimAddr) (SIM_PAGE_SIZE - 1));
  cache_free (m, op, s->c, addr);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* kmalloc                                                             */

/* &malloc_sizes[@i].cs_cachep, or .cs_dmacachep for GFP_DMA. */
static inline SimAddr
malloc_sizes_cachep (const SimSlab *m, guint i, guint32 gfp)
{
  return m->malloc_sizes_addr + 24 * (SimAddr) i + ((gfp & SIM_GFP_DMA) ? 16 : 8);
}

SlabCache *
find_general_cachep (SimSlab *m, SimOp *op, gsize size, guint32 gfp)
{
  guint i = 0;
  for (;; i++)
    {
      if (op)
        {
          sim_op_path (op, &m->path[P_KMALLOC_STEP]);
          sim_op_read (op, m->malloc_sizes_addr + 24 * (SimAddr) i, 8, SIM_MEM_CACHE_META);
        }
      if (i == m->n_sizes || size <= m->sizes[i])
        break;
    }
  if (i == m->n_sizes)
    return NULL;
  if (op)
    sim_op_read (op, malloc_sizes_cachep (m, i, gfp), 8, SIM_MEM_CACHE_META);
  return (gfp & SIM_GFP_DMA) ? m->size_dma_cache[i] : m->size_cache[i];
}

SimCacheId
sim_slab_kmalloc_cache (SimSlab *m, gsize size, guint32 gfp)
{
  SlabCache *c = find_general_cachep (m, NULL, MAX (size, 1), gfp);
  return c ? c->id : SIM_CACHE_NONE;
}

guint64
sim_slab_kmalloc_max (SimSlab *m)
{
  return m->n_sizes ? m->sizes[m->n_sizes - 1] : 0;
}

SimAddr
sim_slab_kmalloc (SimSlab *m, SimOp *op, gsize size, gint node, guint32 gfp)
{
  /* SLAB of these eras has no page-allocator pass-through: above the
   * largest general cache kmalloc fails.
   *
   * slab_def.h's kmalloc picks the cache at compile time when the size is
   * a constant (__builtin_constant_p): one load of
   * malloc_sizes[i].cs_cachep (cs_dmacachep for GFP_DMA), then
   * kmem_cache_alloc; only a variable size goes through __kmalloc and
   * __find_general_cachep's walk.  A trace cannot tell the two apart;
   * most kmalloc call sites pass a constant (sizeof a structure), so the
   * model charges the compile-time path for every kmalloc
   * (docs/models/slab.md). */
  /* find_general_cachep's answer without its charges, and its index, from
   * one walk of the sizes (host speed only). */
  guint i = 0;
  while (i < m->n_sizes && MAX (size, 1) > m->sizes[i])
    i++;
  if (i == m->n_sizes)
    return 0;
  SlabCache *c = (gfp & SIM_GFP_DMA) ? m->size_dma_cache[i] : m->size_cache[i];
  if (c == NULL)
    return 0;
  sim_op_read (op, malloc_sizes_cachep (m, i, gfp), 8, SIM_MEM_CACHE_META);
  return cache_alloc_node (m, op, c, node, gfp);
}

/* ------------------------------------------------------------------ */
/* The ops table                                                       */

SIM_ALLOC_OPS_FORWARDERS (sim_slab)

static const char *
ops_kernel (gpointer m)
{
  return ((SimSlab *) m)->kernel;
}

static char *
ops_params (gpointer mp)
{
  SimSlab *m = mp;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "slab_stats=%d,hz=%u", m->stats_cost ? 1 : 0, m->hz);
  if (m->all.limit >= 0)
    g_string_append_printf (s, ",limit=%d", m->all.limit);
  if (m->all.batchcount >= 0)
    g_string_append_printf (s, ",batchcount=%d", m->all.batchcount);
  if (m->all.shared >= 0)
    g_string_append_printf (s, ",shared=%d", m->all.shared);
  if (m->tunes->len)
    {
      g_string_append (s, ",slabinfo=");
      for (guint i = 0; i < m->tunes->len; i++)
        {
          const Tune *t = &g_array_index (m->tunes, Tune, i);
          g_string_append_printf (s, "%s%s:%d:%d:%d", i ? ";" : "", t->name, t->limit,
                                  t->batchcount, t->shared);
        }
    }
  if (m->noalien_given)
    g_string_append (s, ",noaliencache");
  return g_string_free (s, FALSE);
}

static gsize
ops_ksize (gpointer mp, SimAddr addr)
{
  SimSlab *m = mp;
  const Slab *s = slab_at (m, addr & ~(SimAddr) (SIM_PAGE_SIZE - 1));
  return s ? s->c->buffer_size : 0;
}

static void
ops_report (gpointer mp, SimAllocReport *out)
{
  SimSlab *m = mp;
  for (guint i = 0; i < m->caches->len; i++)
    {
      SimSlabCacheInfo info;
      sim_slab_cache_info (m, i, &info);
      SimAllocCacheRow row = { 0 };
      row.name = g_strdup (info.name);
      row.aliases = g_new0 (char *, 1);
      row.object_size = info.object_size;
      row.slab_size = info.buffer_size;
      row.order = info.gfporder;
      row.objs_per_slab = info.num;
      /* %Fast: the array hits.  Allocations and frees that bypass the
       * CPU's array (____cache_alloc_node for another node, frees of
       * remote objects to the alien arrays) count as slow. */
      row.alloc_fast = info.stat[SIM_SLAB_ALLOCHIT];
      row.alloc = row.alloc_fast + info.stat[SIM_SLAB_ALLOCMISS] + info.stat[SIM_SLAB_NODE_ALLOCS];
      row.free_fast = info.stat[SIM_SLAB_FREEHIT];
      row.free = row.free_fast + info.stat[SIM_SLAB_FREEMISS] + info.stat[SIM_SLAB_NODE_FREES];
      row.objects = info.active_objs;
      row.slabs = info.slabs;
      row.total_objects = info.slabs * info.num;
      row.partial_slabs = info.partial_slabs;
      row.active_slabs = info.full_slabs + info.partial_slabs;
      /* Objects in use in partial slabs: all in use less the full slabs'. */
      row.objects_partial = info.active_objs - MIN (info.active_objs, info.full_slabs * info.num);
      row.align = info.align;
      row.flags = ((const SlabCache *) g_ptr_array_index (m->caches, i))->flags;
      row.limit = info.limit;
      row.batchcount = info.batchcount;
      row.shared = info.shared;
      row.shared_avail = info.shared_avail;
      row.bytes = info.slabs * ((guint64) SIM_PAGE_SIZE << info.gfporder);
      row.n_stats = SIM_SLAB_N_STATS;
      row.stat_names = stat_names;
      row.stats = g_memdup2 (info.stat, sizeof info.stat);
      g_array_append_val (out->rows, row);
    }
  out->large_pages = 0;
  /* mm/slab.c's STATS is 1 only with CONFIG_DEBUG_SLAB (default n). */
  out->stats_config = "STATS of CONFIG_DEBUG_SLAB";
  out->stats_param = "slab_stats";
  out->stats_charged = m->stats_cost;
}

static const char *const slab_kernels[] = { "2.6.34", "2.6.23", NULL };

SIM_ALLOC_OPS_TABLE (slab, slab_kernels)
