/* gen-net.c - sk_buff allocation as __alloc_skb does it, per era.
 *
 * The kernel paths imitated:
 *  - __alloc_skb takes the head from skbuff_head_cache (TCP: the
 *    skbuff_fclone_cache pair) with kmem_cache_alloc_node, then the linear
 *    data with kmalloc_node_track_caller (kmalloc_reserve from 3.6) of
 *    SKB_DATA_ALIGN(size) + sizeof (struct skb_shared_info) bytes; from
 *    3.2 the shared info is SKB_DATA_ALIGNed too, from 6.2 the sum is
 *    rounded up to the kmalloc bucket before the call (so bytes_req equals
 *    bytes_alloc, as the 6.18 traces show: 100-byte messages ask for 512,
 *    4096-byte datagrams for 8192).  Before 6.1 both are *_node events.
 *  - UNIX stream sockets allocate the message size; UDP (ip_append_data)
 *    payload + 28 bytes of headers + hh_len 16 + 15; TCP before 4.17 a
 *    whole page worth of linear data per skb (select_size with SG, which
 *    is why tbench hammered kmalloc-4096), from 4.17 only MAX_TCP_HEADER
 *    (320) linear with the payload in page fragments, and from 6.3 that
 *    small head comes from the skbuff_small_head cache.
 *  - kfree_skb/consume_skb: skb_release_data kfrees the data,
 *    kfree_skbmem frees the head (the 6.18 UNIX receive path inlines it
 *    into unix_stream_read_generic, which is the call site printed).
 * Call sites of 6.18 are the ones in the real traces; those of older eras
 * name the right functions with offsets of our own (they print as raw
 * addresses before 5.4 anyway).  Page-fragment refills of TCP are left out.
 */
#include "traces/gen/gen-net.h"

#define MAX_TCP_HEADER 320u

typedef enum { SITES_OLD, SITES_MID, SITES_MODERN } SiteSet;

static SiteSet
site_set (SimGen *g)
{
  guint v = sim_gen_options (g)->era.version;
  return v >= SIM_GEN_KVER (6, 1, 0) ? SITES_MODERN
       : v >= SIM_GEN_KVER (5, 4, 0) ? SITES_MID : SITES_OLD;
}

static const char *
pick (SimGen *g, const char *old, const char *mid, const char *modern)
{
  switch (site_set (g))
    {
    case SITES_OLD: return old;
    case SITES_MID: return mid;
    default: return modern;
    }
}

guint
sim_gen_sndbuf (SimGen *g)
{
  /* net.core.wmem_default: (sizeof(sk_buff) + 256) * 256 = 124928 on
   * 2.6.3x x86-64, 212992 on current kernels. */
  return sim_gen_options (g)->era.version < SIM_GEN_KVER (3, 0, 0) ? 124928 : 212992;
}

static guint
tcp_linear (const SimGenEra *era)
{
  /* select_size: SKB_MAX_HEAD(MAX_TCP_HEADER), to which sk_stream_alloc_skb
   * adds MAX_TCP_HEADER back: a page minus the aligned shared info. */
  if (era->version < SIM_GEN_KVER (4, 17, 0))
    return 4096 - ((era->shinfo + 63u) & ~63u);
  return MAX_TCP_HEADER;
}

void
sim_gen_skb_alloc (SimGen *g, SimGenTask *t, SimGenProto proto, guint payload,
                   SimGenSkb *skb)
{
  const SimGenEra *era = &sim_gen_options (g)->era;
  gboolean tcp = proto == SIM_GEN_NET_TCP;
  gboolean unix_ = proto == SIM_GEN_NET_UNIX;
  gboolean acct = unix_ && era->version >= SIM_GEN_KVER (4, 5, 0);
  guint head_size = tcp ? 2 * era->sk_buff_size + 4 : era->sk_buff_size;
  SimGenCache *headc = sim_gen_cache (g, tcp ? "skbuff_fclone_cache" : "skbuff_head_cache",
                                      head_size, head_size <= 256 ? 256 : 512,
                                      head_size <= 256 ? 0 : 1);
  const char *hgfp = acct ? "GFP_KERNEL_ACCOUNT" : "GFP_KERNEL";
  const char *dgfp = era->version < SIM_GEN_KVER (3, 6, 0) ? hgfp
                   : acct ? "GFP_KERNEL_ACCOUNT|__GFP_NOWARN|__GFP_NOMEMALLOC"
                   : "GFP_KERNEL|__GFP_NOWARN|__GFP_NOMEMALLOC";

  skb->bytes = payload;
  skb->segs = 1;
  skb->head = sim_gen_cache_alloc (g, t, headc,
                                   pick (g, "__alloc_skb+0x4e/0x1c0", "__alloc_skb+0x4f/0x1f0",
                                         "__alloc_skb+0x179/0x1b0"),
                                   sim_gen_gfp (g, hgfp), TRUE, acct);
  guint linear = unix_ ? payload
               : proto == SIM_GEN_NET_UDP ? payload + 28 + 16 + 15
               : tcp_linear (era);
  const char *dsite = tcp
    ? pick (g, "tcp_sendmsg+0x1c5/0xb20", "sk_stream_alloc_skb+0x4d/0x2b0", "__alloc_skb+0x86/0x1b0")
    : pick (g, "sock_alloc_send_pskb+0x1a5/0x2f0", "alloc_skb_with_frags+0x56/0x1c0",
            "__alloc_skb+0x86/0x1b0");
  if (tcp && era->version >= SIM_GEN_KVER (6, 3, 0))
    {
      /* SKB_HEAD_ALIGN(MAX_TCP_HEADER) = 640 fits skbuff_small_head. */
      SimGenCache *small = sim_gen_cache (g, "skbuff_small_head", 640, 640, 2);
      skb->data = sim_gen_cache_alloc (g, t, small, "__alloc_skb+0x111/0x1b0",
                                       sim_gen_gfp (g, dgfp), TRUE, FALSE);
      skb->truesize = 640 + 512 + payload;
    }
  else
    {
      guint req = sim_gen_skb_data_req (era, linear);
      skb->data = sim_gen_kmalloc (g, t, req, dsite, sim_gen_gfp (g, dgfp), TRUE, acct);
      guint cls = sim_gen_kmalloc_class (era, req);
      skb->truesize = (cls ? cls : req) + (tcp ? 512 : 256)
                      + (tcp && era->version >= SIM_GEN_KVER (4, 17, 0) ? payload : 0);
    }
}

void
sim_gen_skb_free_data (SimGen *g, SimGenTask *t, SimGenProto proto,
                       const SimGenSkb *skb)
{
  const SimGenEra *era = &sim_gen_options (g)->era;
  if (proto == SIM_GEN_NET_TCP && era->version >= SIM_GEN_KVER (6, 3, 0))
    sim_gen_cache_free (g, t, skb->data, "skb_free_head+0x8c/0xa0");
  else
    sim_gen_kfree (g, t, skb->data,
                   pick (g, "skb_release_data+0x8d/0xd0", "skb_release_data+0x11e/0x170",
                         "skb_release_data+0x16b/0x1d0"));
}

void
sim_gen_skb_free (SimGen *g, SimGenTask *t, SimGenProto proto, const SimGenSkb *skb)
{
  sim_gen_skb_free_data (g, t, proto, skb);
  const char *site = proto == SIM_GEN_NET_UNIX
    ? pick (g, "kfree_skbmem+0x3b/0x90", "kfree_skbmem+0x4e/0x60",
            "unix_stream_read_generic+0xba4/0xcd0")
    : pick (g, "kfree_skbmem+0x3b/0x90", "kfree_skbmem+0x4e/0x60", "kfree_skbmem+0x6c/0x80");
  sim_gen_cache_free (g, t, skb->head, site);
}

void
sim_gen_skbq_init (SimGenSkbQueue *q)
{
  q->skbs = g_array_new (FALSE, FALSE, sizeof (SimGenSkb));
  q->head = 0;
  q->bytes = 0;
}

void
sim_gen_skbq_clear (SimGenSkbQueue *q)
{
  if (q->skbs)
    g_array_free (q->skbs, TRUE);
  q->skbs = NULL;
}

void
sim_gen_skbq_push (SimGenSkbQueue *q, const SimGenSkb *skb)
{
  g_array_append_val (q->skbs, *skb);
  q->bytes += skb->truesize;
}

const SimGenSkb *
sim_gen_skbq_peek (SimGenSkbQueue *q, guint64 now)
{
  if (q->head >= q->skbs->len)
    return NULL;
  const SimGenSkb *s = &g_array_index (q->skbs, SimGenSkb, q->head);
  return s->when <= now ? s : NULL;
}

void
sim_gen_skbq_pop (SimGenSkbQueue *q)
{
  g_assert (q->head < q->skbs->len);
  q->bytes -= g_array_index (q->skbs, SimGenSkb, q->head).truesize;
  q->head++;
  if (q->head == q->skbs->len || q->head > 1024)
    {
      g_array_remove_range (q->skbs, 0, q->head);
      q->head = 0;
    }
}

guint
sim_gen_skbq_len (const SimGenSkbQueue *q)
{
  return q->skbs->len - q->head;
}
