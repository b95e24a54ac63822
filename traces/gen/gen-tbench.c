/* gen-tbench.c - tbench (dbench's network half) over TCP loopback.
 *
 * The workload: --groups client/server pairs (default 4); each client
 * runs --loops request/response rounds (default 1000): it sends a small
 * request (64..511 bytes, seeded) and waits for the server's reply of
 * --size bytes (default 4096).  Client i and server i take placement
 * slots 2i and 2i+1.
 *
 * The kernel paths: tcp_sendmsg allocates fast-clone skbs
 * (skbuff_fclone_cache heads, the pair of sk_buffs of __alloc_skb with
 * fclone=1) on the sender's CPU.  Before 4.17 each skb gets a whole page
 * worth of linear data (select_size with scatter-gather: PAGE_SIZE minus
 * the aligned skb_shared_info, so the kmalloc lands in kmalloc-4096 /
 * size-4096 - the "kmalloc-4096 order 1" of the Sept 2007 tbench thread),
 * and a reply larger than that takes several skbs.  From 4.17 the linear
 * part is only MAX_TCP_HEADER (a kmalloc of 640 bytes, kmalloc-1024) with
 * the payload in page fragments, and from 6.3 that head comes from the
 * skbuff_small_head cache.  The receiver's CPU frees them (loopback
 * delivers the clone there and the ACK processed there releases the
 * original): kfree of the data (or kmem_cache_free of the small head),
 * kmem_cache_free of the fclone head.  Page-fragment refills and pure ACK
 * skbs are left out.
 */
#include "traces/gen/gen-net.h"

typedef struct {
  SimGenSkbQueue to_server, to_client;
  guint64 rounds, done_c, done_s;
  guint   pending_c;     /* skbs of the reply still to read */
  guint   pending_s;
} TbPair;

static void
pair_free (gpointer p)
{
  TbPair *b = p;
  sim_gen_skbq_clear (&b->to_server);
  sim_gen_skbq_clear (&b->to_client);
  g_free (b);
}

static guint
skbs_for (SimGen *g, guint bytes)
{
  /* payload per skb: the linear page minus headers before 4.17, a GSO
   * super-packet of page fragments after */
  const SimGenEra *era = &sim_gen_options (g)->era;
  guint cap = era->version < SIM_GEN_KVER (4, 17, 0)
              ? 4096 - ((era->shinfo + 63u) & ~63u) - 320 : 65536;
  return MAX (1u, (bytes + cap - 1) / cap);
}

static void
send_msg (SimGen *g, SimGenTask *t, SimGenSkbQueue *q, guint bytes)
{
  guint n = skbs_for (g, bytes);
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 300, 800));
  for (guint i = 0; i < n; i++)
    {
      SimGenSkb skb;
      sim_gen_skb_alloc (g, t, SIM_GEN_NET_TCP, bytes / n, &skb);
      skb.segs = n;
      sim_gen_spend (g, t->cpu, sim_gen_cost (g, 300, 1000));
      skb.when = sim_gen_now (g, t->cpu);
      sim_gen_skbq_push (q, &skb);
    }
}

/* Read one skb; TRUE when the message is complete. */
static gboolean
recv_skb (SimGen *g, SimGenTask *t, SimGenSkbQueue *q, guint *pending, gboolean *got)
{
  const SimGenSkb *p = sim_gen_skbq_peek (q, sim_gen_now (g, t->cpu));
  *got = p != NULL;
  if (p == NULL)
    return FALSE;
  SimGenSkb skb = *p;
  sim_gen_skbq_pop (q);
  if (*pending == 0)
    *pending = skb.segs;
  sim_gen_spend (g, t->cpu, sim_gen_cost (g, 300, 900));
  sim_gen_skb_free (g, t, SIM_GEN_NET_TCP, &skb);
  return --*pending == 0;
}

static SimGenStep
client_step (SimGen *g, SimGenTask *t)
{
  TbPair *b = t->data;
  if (t->state == 0)
    {
      if (b->done_c == b->rounds)
        return SIM_GEN_DONE;
      send_msg (g, t, &b->to_server, 64 + (guint) sim_rng_below (sim_gen_rng (g), 448));
      t->state = 1;
      return SIM_GEN_RAN;
    }
  gboolean got;
  if (recv_skb (g, t, &b->to_client, &b->pending_c, &got))
    {
      b->done_c++;
      t->state = 0;
    }
  return got ? SIM_GEN_RAN : SIM_GEN_BLOCKED;
}

static SimGenStep
server_step (SimGen *g, SimGenTask *t)
{
  TbPair *b = t->data;
  if (b->done_s == b->rounds)
    return SIM_GEN_DONE;
  gboolean got;
  if (recv_skb (g, t, &b->to_server, &b->pending_s, &got))
    {
      send_msg (g, t, &b->to_client, sim_gen_options (g)->size);
      b->done_s++;
    }
  return got ? SIM_GEN_RAN : SIM_GEN_BLOCKED;
}

static gboolean
setup (SimGen *g, const SimGenOptions *o, GError **error)
{
  (void) error;
  for (guint i = 0; i < o->groups; i++)
    {
      TbPair *b = g_new0 (TbPair, 1);
      sim_gen_own (g, b, pair_free);
      sim_gen_skbq_init (&b->to_server);
      sim_gen_skbq_init (&b->to_client);
      b->rounds = o->loops;
      sim_gen_spawn_pair (g, i, "tbench", client_step, "tbench_srv", server_step, b);
    }
  return TRUE;
}

const SimGenWorkload sim_gen_tbench = {
  "tbench", "tbench over TCP loopback: client/server pairs, 4 KiB-class buffers",
  4, 1000, 4096, setup
};
