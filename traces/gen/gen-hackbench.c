/* gen-hackbench.c - `hackbench -g G -l L` (rt-tests, threads or processes).
 *
 * The workload: G groups of 20 receivers and 20 senders.  Each receiver
 * owns one UNIX stream socket pair; all 20 senders of its group write to
 * it.  Each sender writes L rounds of one --size-byte message (default
 * 100) to each of the 20 receivers; each receiver reads 20*L messages.
 *
 * The kernel paths: unix_stream_sendmsg -> sock_alloc_send_pskb ->
 * __alloc_skb on the sender's CPU (kmem_cache_alloc of skbuff_head_cache,
 * then kmalloc of the linear data, sized as the era's __alloc_skb rounds
 * it: 512 bytes for 100-byte messages on every era from 2.6.34, 1024 with
 * the 2.6.28-2.6.33 skb_shared_info); unix_stream_read_generic on the
 * receiver's CPU consumes the skb: kfree of the data from skb_release_data,
 * kmem_cache_free of the head.  Both on the receiver's CPU, so every free is
 * a cross-CPU free when sender and receiver run on different CPUs.
 * Sockets are bounded: a sender blocks while its receiver's queue holds
 * more than sk_sndbuf bytes of skb truesize, so allocations and frees
 * interleave as in the kernel.  Tasks are placed round-robin in creation
 * order (the 20 receivers of a group, then its 20 senders) or at random
 * with --random-placement; a task keeps its CPU.
 *
 * A message longer than min(sk_sndbuf/2 - 64, SKB_MAX_ALLOC) bytes goes
 * out as several skbs, as unix_stream_sendmsg cuts it (the paged skbs of
 * later kernels are not modelled); the default 100 bytes is one skb.
 *
 * Left out (present in real traces, see docs/trace-gen.md): the 81
 * one-byte ready/wake-up messages of the start-up handshake, thread
 * creation (task_struct, pid, vmap stacks), socket creation and teardown,
 * slab page churn beyond the first growth of each cache.  So the counts are
 * exact: 2*G*20*20*L allocations on senders' CPUs, as many frees on
 * receivers' CPUs.
 */
#include "traces/gen/gen-net.h"

#define HB_FDS 20

typedef struct {
  SimGenSkbQueue q;
  guint64 expect, got;
} HbReceiver;

typedef struct {
  HbReceiver *rcv;      /* HB_FDS receivers of the group */
  guint64 sent, total;  /* skbs */
  guint   segs;         /* skbs per message */
} HbSender;

/* unix_stream_sendmsg cuts a message into skbs of at most
 * min(sk_sndbuf/2 - 64, SKB_MAX_ALLOC) bytes (SKB_MAX_ALLOC: an order-2
 * allocation minus the shared info). */
static guint
chunk (SimGen *g)
{
  const SimGenEra *era = &sim_gen_options (g)->era;
  guint max_alloc = 16384 - ((era->shinfo + 63u) & ~63u);
  return MIN (sim_gen_sndbuf (g) / 2 - 64, max_alloc);
}

static void
group_free (gpointer p)
{
  HbReceiver *r = p;
  for (guint i = 0; i < HB_FDS; i++)
    sim_gen_skbq_clear (&r[i].q);
  g_free (r);
}

static SimGenStep
sender_step (SimGen *g, SimGenTask *t)
{
  HbSender *s = t->data;
  if (s->sent == s->total)
    return SIM_GEN_DONE;
  HbReceiver *r = &s->rcv[(s->sent / s->segs) % HB_FDS];
  if (r->q.bytes >= sim_gen_sndbuf (g))
    return SIM_GEN_BLOCKED;
  SimGenSkb skb;
  /* syscall entry, copy from user, queueing */
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 200, 600));
  guint size = sim_gen_options (g)->size;
  guint part = s->sent % s->segs;
  guint bytes = part + 1 < s->segs ? chunk (g) : size - (s->segs - 1) * chunk (g);
  sim_gen_skb_alloc (g, t, SIM_GEN_NET_UNIX, bytes, &skb);
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 300, 900));
  skb.when = sim_gen_now (g, t->cpu);
  sim_gen_skbq_push (&r->q, &skb);
  s->sent++;
  return s->sent == s->total ? SIM_GEN_DONE : SIM_GEN_RAN;
}

static SimGenStep
receiver_step (SimGen *g, SimGenTask *t)
{
  HbReceiver *r = t->data;
  if (r->got == r->expect)
    return SIM_GEN_DONE;
  const SimGenSkb *p = sim_gen_skbq_peek (&r->q, sim_gen_now (g, t->cpu));
  if (p == NULL)
    return SIM_GEN_BLOCKED;
  SimGenSkb skb = *p;
  sim_gen_skbq_pop (&r->q);
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 200, 700));
  sim_gen_skb_free (g, t, SIM_GEN_NET_UNIX, &skb);
  r->got++;
  return r->got == r->expect ? SIM_GEN_DONE : SIM_GEN_RAN;
}

static gboolean
setup (SimGen *g, const SimGenOptions *o, GError **error)
{
  (void) error;
  guint idx = 0;
  guint c = chunk (g);
  guint segs = (o->size + c - 1) / c;
  for (guint grp = 0; grp < o->groups; grp++)
    {
      HbReceiver *rcv = g_new0 (HbReceiver, HB_FDS);
      sim_gen_own (g, rcv, group_free);
      for (guint i = 0; i < HB_FDS; i++)
        {
          sim_gen_skbq_init (&rcv[i].q);
          rcv[i].expect = (guint64) HB_FDS * o->loops * segs;
          SimGenTask *t = sim_gen_spawn (g, "hackbench", sim_gen_place (g, idx++),
                                         receiver_step, &rcv[i]);
          t->destroy = sim_gen_not_owned;
        }
      for (guint i = 0; i < HB_FDS; i++)
        {
          HbSender *s = g_new0 (HbSender, 1);
          s->rcv = rcv;
          s->total = (guint64) HB_FDS * o->loops * segs;
          s->segs = segs;
          sim_gen_spawn (g, "hackbench", sim_gen_place (g, idx++), sender_step, s);
        }
    }
  return TRUE;
}

const SimGenWorkload sim_gen_hackbench = {
  "hackbench", "hackbench -g G -l L: 20 senders x 20 receivers per group over UNIX sockets",
  1, 50, 100, setup
};
