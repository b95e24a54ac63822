/* info.h - the summary `slabsim trace info` prints: reader statistics,
 * exact accounting (traces/account.h) and per-cache totals, as JSON or as
 * text in the manner of `perf kmem stat`. */
#pragma once

#include "traces/stream.h"
#include "traces/account.h"
#include "sim/core/json.h"

G_BEGIN_DECLS

typedef struct _SimTraceInfo SimTraceInfo;

/* Read the whole trace at @path. */
SimTraceInfo *sim_trace_info_collect (const char *path, gboolean lenient, GError **error);
/* A summary fed by the caller with the events of @stream (a reference is
 * taken): `slabsim run` summarises the trace from the decode it replays. */
SimTraceInfo *sim_trace_info_new (SimTraceStream *stream);
void sim_trace_info_add (SimTraceInfo *info, const SimTraceEvent *ev, guint n);
void sim_trace_info_free (SimTraceInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimTraceInfo, sim_trace_info_free)

const SimTraceStats *sim_trace_info_stats (SimTraceInfo *info);
const char *sim_trace_info_name (SimTraceInfo *info);
SimTraceAccount *sim_trace_info_account (SimTraceInfo *info);

/* The summary as one JSON object written into @j (for reports that embed
 * it, such as "slabsim run"'s "trace" key). */
void sim_trace_info_write_json (SimTraceInfo *info, SimJson *j);

/* The summary; free with g_free. */
char *sim_trace_info_json (SimTraceInfo *info);
char *sim_trace_info_text (SimTraceInfo *info);

G_END_DECLS
