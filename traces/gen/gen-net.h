/* gen-net.h - sk_buff allocation and freeing as __alloc_skb and
 * kfree_skb do it in each kernel era, shared by the network generators
 * (hackbench over UNIX sockets, netperf UDP, tbench TCP). */
#pragma once

#include "traces/gen/gen-common.h"

G_BEGIN_DECLS

typedef enum {
  SIM_GEN_NET_UNIX,   /* af_unix stream: accounted (GFP_KERNEL_ACCOUNT) */
  SIM_GEN_NET_UDP,    /* ip_append_data -> sock_alloc_send_skb */
  SIM_GEN_NET_TCP,    /* tcp_sendmsg: fclone heads */
} SimGenProto;

typedef struct {
  guint64 head, data;     /* data is 0 when the payload went to page frags */
  guint64 when;           /* ns: time it became visible to the receiver */
  guint   truesize;
  guint   bytes;          /* payload */
  guint   segs;           /* skbs of the message this one belongs to */
} SimGenSkb;

/* Allocate an skb for @payload bytes of @proto (head and linear data) on
 * @t's CPU and fill @skb. */
void sim_gen_skb_alloc (SimGen *g, SimGenTask *t, SimGenProto proto,
                        guint payload, SimGenSkb *skb);
/* Free both halves with the events of kfree_skb/consume_skb. */
void sim_gen_skb_free (SimGen *g, SimGenTask *t, SimGenProto proto,
                       const SimGenSkb *skb);
/* Only the data (the head goes back silently: per-CPU skb cache). */
void sim_gen_skb_free_data (SimGen *g, SimGenTask *t, SimGenProto proto,
                            const SimGenSkb *skb);

/* A FIFO of skbs with a byte count (a socket receive queue). */
typedef struct {
  GArray *skbs;
  guint   head;
  guint64 bytes;
} SimGenSkbQueue;

void       sim_gen_skbq_init (SimGenSkbQueue *q);
void       sim_gen_skbq_clear (SimGenSkbQueue *q);
void       sim_gen_skbq_push (SimGenSkbQueue *q, const SimGenSkb *skb);
/* The oldest skb visible at @now, or NULL. */
const SimGenSkb *sim_gen_skbq_peek (SimGenSkbQueue *q, guint64 now);
void       sim_gen_skbq_pop (SimGenSkbQueue *q);
guint      sim_gen_skbq_len (const SimGenSkbQueue *q);

/* Default socket send buffer of the era (net.core.wmem_default). */
guint      sim_gen_sndbuf (SimGen *g);

G_END_DECLS
