/* slab-array.c - SLAB's per-CPU array caches, the shared and alien
 * arrays, and cache_reap, which drains them.
 *
 * Which kernel.  mm/slab.c of 2.6.34 and 2.6.23 (slab.c's essay says
 * where the two differ): cache_alloc_refill (the shared array first, then
 * up to batchcount objects from the partial and free slabs, cache_grow
 * when the node has none), cache_flusharray (batchcount objects into the
 * shared array, else back to their slabs through free_block),
 * transfer_objects, free_block, the NUMA alien arrays (cache_free_alien,
 * __drain_alien_cache), and the periodic cache_reap with drain_array,
 * drain_freelist and the alien round robin of reap_alien, scheduled as
 * the kernel's round_jiffies_relative places it.  Every array field and
 * entry the kernel reads or writes is an access to the array's simulated
 * address (SIM_MEM_CPU_SLAB); the memcpy and memmove of entries touch the
 * whole range they move.
 *
 * What it leaves out.  The bootstrap arrays and do_tune_cpucache's
 * replacement of arrays at run time (every cache has its final arrays
 * from creation); drain_cpu_caches and drain_alien_cache, which only
 * kmem_cache_shrink, kmem_cache_destroy and CPU hotplug call (an alien
 * array is drained by cache_reap, one node a run, and by a free that
 * finds it full); cache_reap's trylock of cache_chain_mutex, which
 * always succeeds.
 */
#include "models/alloc/slab-internal.h"

/* ------------------------------------------------------------------ */
/* Moving objects between arrays and slabs                             */

/* transfer_objects: up to @max entries from the top of @from onto @to. */
static guint
transfer_objects (SimSlab *m, SimOp *op, ArrayCache *to, ArrayCache *from, guint max)
{
  sim_op_path (op, &m->path[P_TRANSFER]);
  ac_rd (op, from, AC_AVAIL, 4);
  ac_rd (op, to, AC_AVAIL, 8);
  guint nr = MIN (MIN (from->avail, max), to->limit - to->avail);
  if (nr == 0)
    return 0;
  sim_op_path_n (op, &m->path[P_MOVE_ENTRY], nr);
  sim_op_touch_range (op, ac_entry_addr (from, from->avail - nr), 8 * nr, SIM_ACC_READ,
                      SIM_MEM_CPU_SLAB);
  sim_op_touch_range (op, ac_entry_addr (to, to->avail), 8 * nr, SIM_ACC_WRITE,
                      SIM_MEM_CPU_SLAB);
  memcpy (&to->entry[to->avail], &from->entry[from->avail - nr], nr * sizeof (SimAddr));
  from->avail -= nr;
  to->avail += nr;
  ac_wr (op, from, AC_AVAIL, 4);
  ac_wr (op, to, AC_AVAIL, 4);
  if (m->era->transfer_touches)
    {
      to->touched = 1;
      ac_wr (op, to, AC_TOUCHED, 4);
    }
  return nr;
}

/* free_block: give @nr objects back to their slabs on @node (list_lock
 * held).  @objs lives at simulated @objs_addr (0: on the stack). */
static void
free_block (SimSlab *m, SimOp *op, SlabCache *c, const SimAddr *objs, SimAddr objs_addr,
            guint nr, guint node)
{
  Node *n = nodelist (op, c, node);
  for (guint i = 0; i < nr; i++)
    {
      sim_op_path (op, &m->path[P_FREE_BLOCK]);
      if (objs_addr)
        sim_op_read (op, objs_addr + 8 * (SimAddr) i, 8, SIM_MEM_CPU_SLAB);
      SimAddr obj = objs[i];
      Slab *s = virt_to_slab (m, op, obj);
      g_assert (s != NULL && s->c == c && s->nodeid == node);
      list_del_slab (m, op, n, s);
      slab_put_obj (m, op, s, obj);
      stat_dec_active (m, op, c);
      n->free_objects++;
      l3_wr (op, n, L3_FREE_OBJECTS, 8);
      if (s->inuse == 0)
        {
          l3_rd (op, n, L3_FREE_LIMIT, 4);
          if (n->free_objects > n->free_limit)
            {
              n->free_objects -= c->num;
              l3_wr (op, n, L3_FREE_OBJECTS, 8);
              slab_destroy (m, op, c, s);
            }
          else
            list_add_slab (m, op, n, s, LIST_FREE, FALSE);
        }
      else
        /* To the tail: the longest time for the other objects to come
         * back too. */
        list_add_slab (m, op, n, s, LIST_PARTIAL, TRUE);
    }
}

/* Remove the first @nr entries of @ac, sliding the rest down (memmove). */
static void
ac_shift (SimSlab *m, SimOp *op, ArrayCache *ac, guint nr)
{
  ac->avail -= nr;
  ac_wr (op, ac, AC_AVAIL, 4);
  if (ac->avail)
    {
      sim_op_path_n (op, &m->path[P_MOVE_ENTRY], ac->avail);
      sim_op_touch_range (op, ac_entry_addr (ac, nr), 8 * (SimAddr) ac->avail, SIM_ACC_READ,
                          SIM_MEM_CPU_SLAB);
      sim_op_touch_range (op, ac_entry_addr (ac, 0), 8 * (SimAddr) ac->avail, SIM_ACC_WRITE,
                          SIM_MEM_CPU_SLAB);
      memmove (&ac->entry[0], &ac->entry[nr], ac->avail * sizeof (SimAddr));
    }
}

static void
drain_alien_one (SimSlab *m, SimOp *op, SlabCache *c, ArrayCache *ac, guint node)
{
  /* __drain_alien_cache: into the remote node's shared array first, the
   * rest back to the remote slabs. */
  sim_op_path (op, &m->path[P_DRAIN_ALIEN]);
  Node *rn = nodelist (op, c, node);
  ac_rd (op, ac, AC_AVAIL, 4);
  if (ac->avail == 0)
    return;
  list_lock (op, rn);
  l3_rd (op, rn, L3_SHARED, 8);
  if (rn->shared)
    transfer_objects (m, op, rn->shared, ac, ac->limit);
  free_block (m, op, c, ac->entry, ac_entry_addr (ac, 0), ac->avail, node);
  ac->avail = 0;
  ac_wr (op, ac, AC_AVAIL, 4);
  list_unlock (op, rn);
}

/* cache_free_alien: TRUE when @obj belongs to another node and was dealt
 * with here. */
gboolean
cache_free_alien (SimSlab *m, SimOp *op, SlabCache *c, SimAddr obj)
{
  Slab *s = virt_to_slab (m, op, obj);
  desc_rd (op, s, SL_NODEID, 2);
  guint node = node_of_cpu (m, op->cpu);
  guint nodeid = s->nodeid;
  if (nodeid == node)
    return FALSE;
  sim_op_path (op, &m->path[P_ALIEN]);
  Node *n = nodelist (op, c, node);
  stat (m, op, c, SIM_SLAB_NODE_FREES);
  l3_rd (op, n, L3_ALIEN, 8);
  if (n->alien && n->alien[nodeid])
    {
      ArrayCache *alien = n->alien[nodeid];
      sim_op_read (op, n->alien_addr + 8 * nodeid, 8, SIM_MEM_CACHE_META);
      sim_op_lock (op, &alien->lock, alien->addr + AC_LOCK);
      ac_rd (op, alien, AC_AVAIL, 8);
      if (alien->avail == alien->limit)
        {
          stat (m, op, c, SIM_SLAB_NODE_OVERFLOW);
          drain_alien_one (m, op, c, alien, nodeid);
        }
      alien->entry[alien->avail] = obj;
      sim_op_write (op, ac_entry_addr (alien, alien->avail), 8, SIM_MEM_CPU_SLAB);
      alien->avail++;
      ac_wr (op, alien, AC_AVAIL, 4);
      sim_op_unlock (op, &alien->lock, alien->addr + AC_LOCK);
    }
  else
    {
      Node *rn = nodelist (op, c, nodeid);
      list_lock (op, rn);
      free_block (m, op, c, &obj, 0, 1, nodeid);
      list_unlock (op, rn);
    }
  return TRUE;
}

void
cache_flusharray (SimSlab *m, SimOp *op, SlabCache *c, ArrayCache *ac)
{
  sim_op_path (op, &m->path[P_FLUSH]);
  guint node = node_of_cpu (m, op->cpu);
  ac_rd (op, ac, AC_BATCHCOUNT, 4);
  guint batchcount = ac->batchcount;
  Node *n = nodelist (op, c, node);
  list_lock (op, n);
  l3_rd (op, n, L3_SHARED, 8);
  gboolean done = FALSE;
  if (n->shared)
    {
      ArrayCache *sh = n->shared;
      ac_rd (op, sh, AC_AVAIL, 8);
      guint max = sh->limit - sh->avail;
      if (max)
        {
          if (batchcount > max)
            batchcount = max;
          sim_op_path_n (op, &m->path[P_MOVE_ENTRY], batchcount);
          sim_op_touch_range (op, ac_entry_addr (ac, 0), 8 * (SimAddr) batchcount,
                              SIM_ACC_READ, SIM_MEM_CPU_SLAB);
          sim_op_touch_range (op, ac_entry_addr (sh, sh->avail), 8 * (SimAddr) batchcount,
                              SIM_ACC_WRITE, SIM_MEM_CPU_SLAB);
          memcpy (&sh->entry[sh->avail], &ac->entry[0], batchcount * sizeof (SimAddr));
          sh->avail += batchcount;
          ac_wr (op, sh, AC_AVAIL, 4);
          done = TRUE;
        }
    }
  if (!done)
    free_block (m, op, c, ac->entry, ac_entry_addr (ac, 0), batchcount, node);
  /* STATS: max_freeable = the longest slabs_free seen here. */
  if (n->lists[LIST_FREE].n > c->stat[SIM_SLAB_MAX_FREEABLE])
    {
      c->stat[SIM_SLAB_MAX_FREEABLE] = n->lists[LIST_FREE].n;
      if (m->stats_cost)
        sim_op_write (op, c->fixed + KC_STATS + 8 * (SIM_SLAB_MAX_FREEABLE - SIM_SLAB_NUM_ACTIVE),
                      8, SIM_MEM_CACHE_META);
    }
  list_unlock (op, n);
  ac_shift (m, op, ac, batchcount);
}

/* ------------------------------------------------------------------ */
/* Refill                                                              */

SimAddr
cache_alloc_refill (SimSlab *m, SimOp *op, SlabCache *c, guint32 gfp)
{
  sim_op_path (op, &m->path[P_REFILL]);
  for (;;)
    {
      guint node = node_of_cpu (m, op->cpu);
      ArrayCache *ac = cpu_cache_get (op, c);
      ac_rd (op, ac, AC_AVAIL, 16);
      guint batchcount = ac->batchcount;
      if (!ac->touched && batchcount > BATCHREFILL_LIMIT)
        batchcount = BATCHREFILL_LIMIT;
      Node *n = nodelist (op, c, node);
      list_lock (op, n);
      l3_rd (op, n, L3_SHARED, 8);
      gboolean done = FALSE;
      if (n->shared && transfer_objects (m, op, ac, n->shared, batchcount))
        {
          if (!m->era->transfer_touches)
            {
              n->shared->touched = 1;
              ac_wr (op, n->shared, AC_TOUCHED, 4);
            }
          done = TRUE;
        }
      while (!done && batchcount > 0)
        {
          Slab *s = first_slab (op, n);
          if (s == NULL)
            break;
          rd_kc (op, c, KC_NUM, 4);
          while (s->inuse < c->num && batchcount > 0)
            {
              batchcount--;
              stat (m, op, c, SIM_SLAB_NUM_ALLOCATIONS);
              stat (m, op, c, SIM_SLAB_NUM_ACTIVE);
              SimAddr obj = slab_get_obj (m, op, s);
              ac->entry[ac->avail] = obj;
              sim_op_write (op, ac_entry_addr (ac, ac->avail), 8, SIM_MEM_CPU_SLAB);
              ac->avail++;
            }
          list_del_slab (m, op, n, s);
          list_add_slab (m, op, n, s, s->free == BUFCTL_END ? LIST_FULL : LIST_PARTIAL, FALSE);
        }
      if (!done)
        {
          /* must_grow: */
          n->free_objects -= ac->avail;
          l3_wr (op, n, L3_FREE_OBJECTS, 8);
          ac_wr (op, ac, AC_AVAIL, 4);
        }
      list_unlock (op, n);
      if (ac->avail == 0)
        {
          gboolean x = cache_grow (m, op, c, gfp | SIM_GFP_THISNODE, node, 0);
          if (!x && ac->avail == 0)
            return 0;
          if (ac->avail == 0)
            continue;
        }
      ac->touched = 1;
      ac->avail--;
      ac_wr (op, ac, AC_AVAIL, 16);
      sim_op_read (op, ac_entry_addr (ac, ac->avail), 8, SIM_MEM_CPU_SLAB);
      return ac->entry[ac->avail];
    }
}

/* ------------------------------------------------------------------ */
/* cache_reap                                                          */

static void
drain_array (SimSlab *m, SimOp *op, SlabCache *c, Node *n, ArrayCache *ac, gboolean force,
             guint node)
{
  sim_op_path (op, &m->path[P_DRAIN_ARRAY]);
  if (ac == NULL)
    return;
  ac_rd (op, ac, AC_AVAIL, 16);
  if (ac->avail == 0)
    return;
  if (ac->touched && !force)
    {
      ac->touched = 0;
      ac_wr (op, ac, AC_TOUCHED, 4);
      return;
    }
  list_lock (op, n);
  if (ac->avail)
    {
      guint tofree = force ? ac->avail : (ac->limit + 4) / 5;
      if (tofree > ac->avail)
        tofree = (ac->avail + 1) / 2;
      free_block (m, op, c, ac->entry, ac_entry_addr (ac, 0), tofree, node);
      ac_shift (m, op, ac, tofree);
    }
  list_unlock (op, n);
}

static guint
drain_freelist (SimSlab *m, SimOp *op, SlabCache *c, Node *n, guint tofree)
{
  guint nr = 0;
  while (nr < tofree)
    {
      l3_rd (op, n, L3_FREE, 16);
      if (n->lists[LIST_FREE].n == 0)
        break;
      list_lock (op, n);
      Slab *s = n->lists[LIST_FREE].tail;
      list_del_slab (m, op, n, s);
      n->free_objects -= c->num;
      l3_wr (op, n, L3_FREE_OBJECTS, 8);
      list_unlock (op, n);
      slab_destroy (m, op, c, s);
      nr++;
    }
  return nr;
}

static void
reap_alien (SimSlab *m, SimOp *op, SlabCache *c, Node *n)
{
  guint node = m->reap_node[op->cpu];
  l3_rd (op, n, L3_ALIEN, 8);
  if (n->alien == NULL)
    return;
  ArrayCache *ac = n->alien[node];
  sim_op_read (op, n->alien_addr + 8 * node, 8, SIM_MEM_CACHE_META);
  if (ac == NULL)
    return;
  ac_rd (op, ac, AC_AVAIL, 4);
  if (ac->avail == 0)
    return;
  /* spin_trylock_irq: skip when another CPU holds it now. */
  sim_op_access (op, ac->addr + AC_LOCK, 4, SIM_ACC_RMW, SIM_MEM_LOCK);
  if (!op->uncharged && sim_lock_busy (&ac->lock, op->cpu, op->t))
    return;
  if (!op->uncharged)
    sim_lock_acquire (&ac->lock, op->cpu, op->t);
  drain_alien_one (m, op, c, ac, node);
  sim_op_unlock (op, &ac->lock, ac->addr + AC_LOCK);
}

void
sim_slab_reap (SimSlab *m, SimOp *op)
{
  sim_op_path (op, &m->path[P_REAP]);
  guint node = node_of_cpu (m, op->cpu);
  /* cache_chain is newest first (list_add). */
  for (guint i = m->caches->len; i-- > 0;)
    {
      SlabCache *c = g_ptr_array_index (m->caches, i);
      sim_op_path (op, &m->path[P_REAP_CACHE]);
      Node *n = nodelist (op, c, node);
      reap_alien (m, op, c, n);
      drain_array (m, op, c, n, cpu_cache_get (op, c), FALSE, node);
      l3_rd (op, n, L3_NEXT_REAP, 8);
      guint64 jiffies = jiffies_at (m, op->t);
      if (n->next_reap > jiffies)
        continue;
      n->next_reap = jiffies + REAPTIMEOUT_LIST3_S * m->hz;
      l3_wr (op, n, L3_NEXT_REAP, 8);
      drain_array (m, op, c, n, n->shared, FALSE, node);
      l3_rd (op, n, L3_FREE_TOUCHED, 4);
      if (n->free_touched)
        {
          n->free_touched = FALSE;
          l3_wr (op, n, L3_FREE_TOUCHED, 4);
        }
      else
        {
          rd_kc (op, c, KC_NUM, 4);
          guint freed = drain_freelist (m, op, c, n,
                                        (n->free_limit + 5 * c->num - 1) / (5 * c->num));
          stat_add (m, op, c, SIM_SLAB_REAPED, freed);
        }
    }
  /* next_reap_node: round robin over the nodes. */
  m->reap_node[op->cpu] = (m->reap_node[op->cpu] + 1) % m->n_nodes;
}

/* __round_jiffies: to a whole second (down within the first quarter),
 * skewed by 3 jiffies per CPU so the CPUs do not reap in lockstep. */
static guint64
round_jiffies (guint64 j, guint cpu, guint64 now, guint hz)
{
  guint64 original = j;
  j += 3 * (guint64) cpu;
  guint64 rem = j % hz;
  j = rem < hz / 4 ? j - rem : j - rem + hz;
  j -= 3 * (guint64) cpu;
  return j <= now ? original : j;
}

static void reap_event (SimEngine *eng, gpointer data, guint64 arg);

void
schedule_reap (SimSlab *m, guint cpu, guint64 jiffies_now, guint64 delay)
{
  guint64 at = round_jiffies (jiffies_now + delay, cpu, jiffies_now, m->hz);
  m->reap_event[cpu] = sim_engine_schedule (m->env.eng, at * m->cycles_per_jiffy, cpu,
                                            reap_event, m, cpu);
}

static void
reap_event (SimEngine *eng, gpointer data, guint64 arg)
{
  SimSlab *m = data;
  guint cpu = (guint) arg;
  m->reap_event[cpu] = 0;
  sim_engine_cpu_sync (eng, cpu, sim_engine_now (eng));
  SimOp op;
  sim_op_begin (&op, m->env.mem, cpu, sim_engine_cpu_clock (eng, cpu));
  sim_slab_reap (m, &op);
  sim_engine_cpu_advance (eng, cpu, sim_op_cycles (&op));
  schedule_reap (m, cpu, jiffies_at (m, op.t), REAPTIMEOUT_CPUC_S * m->hz);
}

guint64
sim_slab_cycles_per_jiffy (const SimSlab *m)
{
  return m->cycles_per_jiffy;
}

guint
sim_slab_hz (const SimSlab *m)
{
  return m->hz;
}
