/* gen-netperf.c - netperf UDP_STREAM over loopback (the "UDP-U-4k" test).
 *
 * The workload: --groups pairs (default 1) of a sender and a receiver
 * thread; each sender sends --loops datagrams (default 20000) of --size
 * bytes (default 4096) to its receiver.  Sender i runs on the CPU of
 * placement slot 2i, its receiver on slot 2i+1 (so on 2 CPUs: sender on
 * CPU 0, receiver on CPU 1, as in shared/traces/udp-4k.trace.gz).
 *
 * The kernel paths: udp_sendmsg -> ip_append_data -> sock_alloc_send_skb
 * -> __alloc_skb on the sender's CPU: a skbuff_head_cache head and a
 * kmalloc of SKB_DATA_ALIGN(4096 + 28 + 16 + 15) + shared info: an 8 KiB
 * kmalloc on every era with a kmalloc-8192 cache (2.6.30 on), and a pass
 * to the page allocator (order 1) on 2.6.24-2.6.29 - the regression of
 * the Jan 2009 "SLUB: revert direct page allocator pass through" thread.
 * The datagram is looped back and queued to the receiver.
 *  - Before 6.0 the receiver frees it on its own CPU after copying
 *    (skb_free_datagram: kfree of the data, kmem_cache_free of the head):
 *    every free is cross-CPU.
 *  - From 6.0 (the 6.18 trace shows it) udp_recvmsg hands the skb back to
 *    the CPU that allocated it (skb_attempt_defer_free); that CPU frees the
 *    data in softirq (kfree from skb_release_data, flags "..s1.") and puts
 *    the head in its per-CPU skb cache, which goes back to the slab with
 *    kmem_cache_free_bulk - no tracepoint.  So the head is allocated again
 *    while a reader still sees it live (an "implicit" free), and
 *    __ip_make_skb prints a kfree(NULL) per datagram.
 * Sockets: the sender blocks while the receiver's queue holds more than
 * sk_rcvbuf (the era's default) of truesize; real UDP drops instead, which
 * netperf's pacing rarely shows on loopback.
 */
#include "traces/gen/gen-net.h"

typedef struct {
  SimGenSkbQueue q;         /* receiver's queue */
  SimGenSkbQueue deferred;  /* skbs handed back to the sender's CPU */
  guint64 total, sent, got;
  gboolean defer;
} UdpPair;

static void
pair_free (gpointer p)
{
  UdpPair *u = p;
  sim_gen_skbq_clear (&u->q);
  sim_gen_skbq_clear (&u->deferred);
  g_free (u);
}

static void
drain_deferred (SimGen *g, SimGenTask *t, UdpPair *u)
{
  const SimGenSkb *p;
  int n = 0;
  while (n < 8 && (p = sim_gen_skbq_peek (&u->deferred, sim_gen_now (g, t->cpu))))
    {
      SimGenSkb skb = *p;
      sim_gen_skbq_pop (&u->deferred);
      t->ctx = SIM_GEN_CTX_SOFTIRQ;
      sim_gen_skb_free_data (g, t, SIM_GEN_NET_UDP, &skb);
      sim_gen_free_silent (g, t, skb.head);
      t->ctx = SIM_GEN_CTX_TASK;
      n++;
    }
}

static SimGenStep
sender_step (SimGen *g, SimGenTask *t)
{
  UdpPair *u = t->data;
  if (u->defer)
    drain_deferred (g, t, u);
  if (u->sent == u->total)
    {
      /* stay until every deferred skb came back */
      if (!u->defer || (u->got == u->total && sim_gen_skbq_len (&u->deferred) == 0))
        return SIM_GEN_DONE;
      return SIM_GEN_BLOCKED;
    }
  if (u->q.bytes >= sim_gen_sndbuf (g))
    return SIM_GEN_BLOCKED;
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 150, 400));
  if (u->defer)
    sim_gen_kfree (g, t, 0, "__ip_make_skb+0x31c/0x5a0");
  SimGenSkb skb;
  sim_gen_skb_alloc (g, t, SIM_GEN_NET_UDP, sim_gen_options (g)->size, &skb);
  /* copy of the payload and the loopback transmit */
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 400, 1200));
  skb.when = sim_gen_now (g, t->cpu);
  sim_gen_skbq_push (&u->q, &skb);
  u->sent++;
  return SIM_GEN_RAN;
}

static SimGenStep
receiver_step (SimGen *g, SimGenTask *t)
{
  UdpPair *u = t->data;
  if (u->got == u->total)
    return SIM_GEN_DONE;
  const SimGenSkb *p = sim_gen_skbq_peek (&u->q, sim_gen_now (g, t->cpu));
  if (p == NULL)
    return SIM_GEN_BLOCKED;
  SimGenSkb skb = *p;
  sim_gen_skbq_pop (&u->q);
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 500, 1500));
  if (u->defer)
    {
      skb.when = sim_gen_now (g, t->cpu);
      sim_gen_skbq_push (&u->deferred, &skb);
    }
  else
    sim_gen_skb_free (g, t, SIM_GEN_NET_UDP, &skb);
  u->got++;
  return u->got == u->total ? SIM_GEN_DONE : SIM_GEN_RAN;
}

static gboolean
setup (SimGen *g, const SimGenOptions *o, GError **error)
{
  (void) error;
  for (guint i = 0; i < o->groups; i++)
    {
      UdpPair *u = g_new0 (UdpPair, 1);
      sim_gen_own (g, u, pair_free);
      sim_gen_skbq_init (&u->q);
      sim_gen_skbq_init (&u->deferred);
      u->total = o->loops;
      u->defer = o->era.version >= SIM_GEN_KVER (6, 0, 0);
      sim_gen_spawn_pair (g, i, "netperf", sender_step, "netserver", receiver_step, u);
    }
  return TRUE;
}

const SimGenWorkload sim_gen_netperf_udp = {
  "netperf-udp", "netperf UDP_STREAM over loopback: sender and receiver on different CPUs",
  1, 20000, 4096, setup
};
