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

/* ---- the pipelined pre-pass ---------------------------------------------
 *
 * The replays need the answers only for the events they have reached, so
 * `run` with a thread to spare starts them while the pre-pass is still
 * reading (sim/run/replay.c): the pre-pass runs on a thread of its own and
 * hands out, chunk by chunk (the stream's: SIM_TRACE_CHUNK events but the
 * first few), the
 * answers that chunk's events need:
 *   - the page classes of its mm_page_alloc events.  An answer is final
 *     when the block is claimed by a slab allocation or freed; a page that
 *     is neither (page cache, anonymous memory) stays open to the end of
 *     the trace, and the first of them comes within a few dozen events of
 *     the start on every trace we have, so waiting for final answers would
 *     serialise the run again.  The chunk's answers are therefore taken
 *     once the pre-pass has read SIM_TRACE_CHUNK (16 k) events past its
 *     end (a slab page is claimed within 940 events of its allocation on
 *     every trace in traces/samples and ../shared/traces);
 *   - the untraced frees placed before its events' ends (their
 *     before_index in the chunk).  A free found later is placed at or
 *     after its evidence's time less a grace period, so once the
 *     pre-pass has read an event of time T, a chunk whose events are all
 *     at or before T - grace period gets no more frees (timestamps in
 *     order).
 * Both are checked, not assumed: a slab page claimed after its chunk was
 * handed out, or a free placed in a chunk already handed out (timestamps
 * out of order), makes finish say the chunks were not exact, and the run
 * replays again from the complete answers, serially, as before.  Which
 * happens depends only on the trace, never on timing; the results are
 * always those of the serial run. */

typedef struct {
  guint64        first;           /* ordinal of its first event */
  guint          n_events;
  SimPageClass   pages;           /* its page allocations' answers (a chunk view) */
  SimUntracedSet untraced;        /* frees with before_index in it (the last: all left) */
} SimPrepassChunk;

typedef struct _SimPrepassPipe SimPrepassPipe;

/* Start reading @stream (opened with keep) on a thread of its own; @opt
 * must not ask for the warm set (it needs the whole trace first). */
SimPrepassPipe *sim_prepass_pipe_start (SimTraceStream *stream, const SimPrepassOptions *opt);
/* The answers for chunk @p (from 0), waiting until they are handed out;
 * NULL when no more will be (the trace ended before it, a trace error, or
 * a check failed).  Valid until the pipe is freed. */
const SimPrepassChunk *sim_prepass_pipe_chunk (SimPrepassPipe *pp, guint64 p);
/* Wait for the pre-pass to end: the complete answers into @out as
 * sim_prepass_read gives them, and *@exact whether every chunk handed
 * out held the final answers.  Errors are the trace's (@out cleared). */
gboolean sim_prepass_pipe_finish (SimPrepassPipe *pp, SimPrepass *out, gboolean *exact,
                                  GError **error);
/* Time the callers of sim_prepass_pipe_chunk spent waiting, in ns. */
guint64 sim_prepass_pipe_waited_ns (SimPrepassPipe *pp);
/* After finish: how many events the pre-pass had read when it handed out
 * the first chunk (0: none was), which is what
 * the replays wait for before they start.  A chunk is handed out as soon as
 * both conditions above hold (they are checked every PIECE = 1024 events
 * read), and the stream's first chunks are small (128, 256, ... events:
 * sim_trace_stream_next), so on a short trace the replays start once the
 * pre-pass is a grace period of trace time past the first 128 events. */
guint64 sim_prepass_pipe_first_read (SimPrepassPipe *pp);
/* After finish (or to abandon it: waits for the thread). */
void sim_prepass_pipe_free (SimPrepassPipe *pp);

G_END_DECLS
