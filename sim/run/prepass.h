/* prepass.h - what a replay must know before its first event, gathered in
 * the one decode of the trace.
 *
 * Three answers need the whole trace (or events after the one they are
 * about) before the replay can start:
 *   - which mm_page_alloc events were slab pages (sim/run/page-events.h:
 *     decided by the allocations that follow);
 *   - the frees the trace shows only by their consequences
 *     (sim/run/untraced.h: a kfree_rcu is placed a grace period before
 *     evidence that comes later);
 *   - with --warm, the objects freed and never allocated (sim/run/warm.h:
 *     any free up to the last event may be one).
 * Each used to read the trace by itself.  sim_prepass_read feeds all three
 * (and the trace summary of run's JSON) from one stream, chunk by chunk,
 * while the stream keeps what it decoded for the replays
 * (sim_trace_stream_again): a text trace is parsed once per run.  The
 * answers are those of the separate passes (tests/run/test-prepass.c
 * compares them); each collector sees the same events in the same order.
 */
#pragma once

#include "sim/run/page-events.h"
#include "sim/run/untraced.h"
#include "sim/run/warm.h"
#include "traces/info.h"

G_BEGIN_DECLS

typedef struct {
  gboolean      warm;             /* collect the warm set */
  guint64       grace_period_ns;  /* the machine's, for the untraced kfree_rcu */
  SimTraceInfo *info;             /* fed the same events too (NULL: none) */
} SimPrepassOptions;

typedef struct {
  SimPageClass   pages;
  SimUntracedSet untraced;
  SimWarmSet     warm;
  gboolean       have_warm;
} SimPrepass;

/* Read @stream to its end (open it with keep to replay it afterwards).
 * Errors are the trace's; @out is then cleared. */
gboolean sim_prepass_read (SimTraceStream *stream, const SimPrepassOptions *opt,
                           SimPrepass *out, GError **error);
void sim_prepass_clear (SimPrepass *p);

G_END_DECLS
