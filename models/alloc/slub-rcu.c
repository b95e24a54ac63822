/* slub-rcu.c - kfree_rcu in SLUB with sheaves: the rcu_free sheaf.
 *
 * Which kernel.  6.18: mm/slab_common.c kvfree_call_rcu -> kfree_rcu_sheaf,
 * and mm/slub.c __kfree_rcu_sheaf, rcu_free_sheaf, rcu_free_sheaf_nobarn
 * and the rcu_free step of pcs_flush_all (the "slab: add sheaf support for
 * batching kfree_rcu() operations" patch of the SLUB percpu sheaves
 * series, with the fix that returns a sheaf to the barn of sheaf->node
 * rather than of the CPU the callback ran on).  7.x runs the same code for
 * every cache, since every cache has sheaves there.
 *
 * What the kernel does.  kfree_rcu (obj) of an object in a cache with
 * sheaves, of this CPU's node, goes into the CPU's rcu_free sheaf: an
 * empty spare, or an empty sheaf from the barn, or (GFP_NOWAIT) a new one
 * becomes rcu_free when there is none.  The object is stored at
 * objects[size++]; when that fills the sheaf it is taken off the CPU,
 * stamped with the node and handed to call_rcu.  After the grace period
 * rcu_free_sheaf runs on that CPU: the free hooks run per object
 * (__rcu_free_sheaf_prepare), then the sheaf goes to the node's barn as a
 * full sheaf unless the barn already holds MAX_FULL_SHEAVES (a racy
 * read: data_race(barn->nr_full)); otherwise its objects go back to the
 * slabs (sheaf_flush_unused: __kmem_cache_free_bulk on the callback's
 * CPU) and the empty sheaf goes to the barn unless that holds
 * MAX_EMPTY_SHEAVES, else it is kfree'd.  kfree_rcu of anything else
 * (another node's object, a cache without sheaves, a large kmalloc, or a
 * failed sheaf allocation) takes kvfree_call_rcu's batching, which frees
 * the objects after a grace period (kfree_bulk); the model frees each one
 * with kfree from its own RCU callback (sim_alloc_call_rcu_free).
 *
 * None of this has a kmem tracepoint: neither kfree_rcu, nor the callback,
 * nor __kmem_cache_free_bulk prints kmem_cache_free.  A recording shows
 * such objects only when their pointers come back or their slab page is
 * freed (docs/models/slub.md, "kfree_rcu").
 *
 * Every access goes to the cache model: the pcs lock byte and its
 * rcu_free and spare pointers, the sheaf's size, node, slot and rcu_head,
 * the barn as in slub-sheaves.c, and per object in the callback the
 * struct page virt_to_slab reads.  Grace periods come from SimAllocEnv.rcu
 * (sim/core/rcu.h); without one (drivers with no workload clock) the
 * callback runs at once.
 *
 * Left out: call_rcu's own instructions and rcu_data accesses (no measured
 * path row: the cost of queueing is not charged), the memcg and
 * alloc-tagging hooks' work beyond the struct slab read, kvfree_rcu's
 * krcp pages and its batching delay (KFREE_DRAIN_JIFFIES), the
 * flush_all_rcu_sheaves and kvfree_rcu_barrier paths of cache destruction,
 * and the trylock failures of interrupt context.
 */
#include "models/alloc/slub-internal.h"

/* rcu_free_sheaf / rcu_free_sheaf_nobarn after the grace period, on @op's
 * CPU. */
static void
rcu_free_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh, gboolean barn_ok)
{
  /* __rcu_free_sheaf_prepare: the free hooks look up each object's slab
   * (memcg_slab_free_hook reads slab->obj_exts). */
  for (guint i = 0; i < sh->size; i++)
    {
      sim_op_path (op, &m->path[P_BULK_OBJECT]);
      sim_op_read (op, sheaf_slot (sh, i), 8, SIM_MEM_CPU_SLAB);
      Slab *slab = slab_of_addr (m, op, sh->objects[i]);
      g_assert (slab != NULL && slab->s == s);
      rd_page (op, slab);
    }
  if (!barn_ok)
    {
      sheaf_flush_unused (m, op, s, sh);
      free_empty_sheaf (m, op, s, sh);
      return;
    }
  sim_op_read (op, sh->addr + SH_NODE, 4, SIM_MEM_CPU_SLAB);
  rd_kc (op, s, m->era->kmem_cache_size + 8 * sh->node);
  sim_op_read (op, s->node[sh->node].addr + KN_BARN, 8, SIM_MEM_CACHE_META);
  Barn *barn = &s->barn[sh->node];
  if (sh->size > 0)
    {
      /* data_race (barn->nr_full) < MAX_FULL_SHEAVES, outside the lock */
      sim_op_read (op, barn->addr + BARN_NR_FULL, 4, SIM_MEM_CACHE_META);
      if (barn->full.length < MAX_FULL_SHEAVES)
        {
          stat (m, op, s, SIM_SLUB_BARN_PUT);
          barn_put_sheaf (m, op, barn, sh, TRUE);
          return;
        }
      stat (m, op, s, SIM_SLUB_BARN_PUT_FAIL);
      sheaf_flush_unused (m, op, s, sh);
    }
  sim_op_read (op, barn->addr + BARN_NR_EMPTY, 4, SIM_MEM_CACHE_META);
  if (barn->empty.length < MAX_EMPTY_SHEAVES)
    barn_put_sheaf (m, op, barn, sh, FALSE);
  else
    free_empty_sheaf (m, op, s, sh);
}

typedef struct {
  SimSlub *m;
  Sheaf   *sh;
  gboolean barn;
} RcuSheaf;

static void
rcu_sheaf_cb (gpointer data, guint cpu, guint64 arg)
{
  (void) arg;
  RcuSheaf *r = data;
  SimSlub *m = r->m;
  SlubCache *s = r->sh->cache;
  gboolean removed = g_queue_remove (&s->rcu_inflight, r->sh);
  g_assert (removed);
  SimOp op;
  sim_alloc_deferred_begin (&m->env, &op, cpu);
  rcu_free_sheaf (m, &op, s, r->sh, r->barn);
  sim_alloc_deferred_end (&m->env, &op);
  g_free (r);
}

/* call_rcu (&sheaf->rcu_head, rcu_free_sheaf[_nobarn]) on @op's CPU.  The
 * sheaf is the model's (s->rcu_inflight) until the callback runs. */
void
call_rcu_sheaf (SimSlub *m, SimOp *op, SlubCache *s, Sheaf *sh, gboolean barn)
{
  sim_op_write (op, sh->addr + SH_RCU_HEAD, 16, SIM_MEM_CPU_SLAB);
  if (m->env.rcu == NULL)
    {
      rcu_free_sheaf (m, op, s, sh, barn);
      return;
    }
  g_queue_push_tail (&s->rcu_inflight, sh);
  RcuSheaf *r = g_new (RcuSheaf, 1);
  *r = (RcuSheaf) { .m = m, .sh = sh, .barn = barn };
  sim_rcu_call (m->env.rcu, op->cpu, rcu_sheaf_cb, r, 0, g_free);
}

/* __kfree_rcu_sheaf: TRUE when @addr went into this CPU's rcu_free sheaf,
 * FALSE (free_rcu_sheaf_fail) when no sheaf could be had. */
static gboolean
kfree_rcu_sheaf (SimSlub *m, SimOp *op, SlubCache *s, SimAddr addr)
{
  Pcs *pcs = &s->pcs[op->cpu];
  sim_op_path (op, &m->path[P_PCS_OP]);
  rd_kc (op, s, KC_CPU_SHEAVES);
  pcs_lock (op, pcs);
  sim_op_read (op, pcs->addr + PCS_RCU_FREE, 8, SIM_MEM_CPU_SLAB);
  if (pcs->rcu_free == NULL)
    {
      sim_op_read (op, pcs->addr + PCS_SPARE, 8, SIM_MEM_CPU_SLAB);
      if (pcs->spare)
        sim_op_read (op, pcs->spare->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
      if (pcs->spare && pcs->spare->size == 0)
        {
          pcs->rcu_free = pcs->spare;
          pcs->spare = NULL;
          sim_op_write (op, pcs->addr + PCS_SPARE, 16, SIM_MEM_CPU_SLAB);
        }
      else
        {
          Barn *barn = get_barn (m, op, s);
          Sheaf *empty = barn_get_empty_sheaf (m, op, barn);
          if (empty == NULL)
            {
              pcs_unlock (op, pcs);
              empty = alloc_empty_sheaf (m, op, s, 0);       /* GFP_NOWAIT */
              if (empty == NULL)
                {
                  stat (m, op, s, SIM_SLUB_FREE_RCU_SHEAF_FAIL);
                  return FALSE;
                }
              /* local_trylock again; nothing can have installed an
               * rcu_free sheaf meanwhile without interrupts. */
              pcs_lock (op, pcs);
              sim_op_read (op, pcs->addr + PCS_RCU_FREE, 8, SIM_MEM_CPU_SLAB);
            }
          pcs->rcu_free = empty;
          sim_op_write (op, pcs->addr + PCS_RCU_FREE, 8, SIM_MEM_CPU_SLAB);
        }
    }
  Sheaf *rs = pcs->rcu_free;
  sim_op_read (op, rs->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  rs->objects[rs->size] = addr;
  sim_op_write (op, sheaf_slot (rs, rs->size), 8, SIM_MEM_CPU_SLAB);
  rs->size++;
  sim_op_write (op, rs->addr + SH_SIZE, 4, SIM_MEM_CPU_SLAB);
  rd_kc (op, s, KC_SHEAF_CAPACITY);
  if (rs->size == s->sheaf_capacity)
    {
      /* Full: off the CPU, stamped with numa_mem_id(), to call_rcu before
       * the unlock (so a racing flush_all_rcu_sheaves cannot miss it). */
      pcs->rcu_free = NULL;
      sim_op_write (op, pcs->addr + PCS_RCU_FREE, 8, SIM_MEM_CPU_SLAB);
      rs->node = node_of_cpu (m, op->cpu);
      sim_op_write (op, rs->addr + SH_NODE, 4, SIM_MEM_CPU_SLAB);
      call_rcu_sheaf (m, op, s, rs, TRUE);
    }
  pcs_unlock (op, pcs);
  stat (m, op, s, SIM_SLUB_FREE_RCU_SHEAF);
  return TRUE;
}

gboolean
sim_slub_kfree_rcu (SimSlub *m, SimOp *op, SimAddr addr)
{
  /* kfree_rcu_sheaf: virt_to_folio, folio_test_slab, slab->slab_cache. */
  Slab *slab = slab_of_addr (m, op, addr);
  if (slab == NULL)
    {
      if (!sim_idmap_contains (m->large, addr))
        return FALSE;
      return sim_alloc_call_rcu_free (&m->env, op, (SimAllocFreeFn) sim_slub_free, m, addr);
    }
  rd_page (op, slab);
  SlubCache *s = slab->s;
  if (s->pcs && slab->node == node_of_cpu (m, op->cpu) && kfree_rcu_sheaf (m, op, s, addr))
    {
      s->live--;
      return TRUE;
    }
  /* kvfree_call_rcu's own batching: a kfree after the grace period. */
  return sim_alloc_call_rcu_free (&m->env, op, (SimAllocFreeFn) sim_slub_free, m, addr);
}
