/* run-report.h - render the results of "slabsim run" as text or JSON.
 *
 * The replay (sim/run/replay.h) fills SimReplayResult; these functions only
 * format it.  Text is fixed-width, fit for a mailing-list post: a slabinfo
 * -AD style table per allocator (Name Objects Alloc Free %Fast Fallb O),
 * the memory-hierarchy and page-allocator summaries, and with several
 * allocators a side-by-side table with %change against the first.  JSON
 * keys are stable: new keys may be added, none renamed (docs/run.md).
 */
#pragma once

#include <glib.h>
#include "sim/run/replay.h"
#include "traces/info.h"
#include "sim/core/json.h"

G_BEGIN_DECLS

typedef struct {
  const char *trace;             /* path as given */
  const SimMachine *machine;
  const SimReplayOptions *opt;
  SimTraceInfo *info;            /* may be NULL */
  const SimReplayResult *results;
  guint n_results;
  /* Provenance (run JSON "provenance"; NULL/0: not known): the trace
   * file's SHA-256 and size, the machine file's SHA-256 and that of the
   * machine as resolved after --set overrides (sim_machine_to_yaml). */
  const char *trace_sha256;
  guint64 trace_bytes;
  const char *machine_file_sha256;
  const char *machine_resolved_sha256;
} SimRunReport;

/* Fill @r's provenance from its trace path and machine; the strings are
 * owned by @r's caller through @keep (freed with it). */
gboolean sim_run_report_provenance (SimRunReport *r, GPtrArray *keep, GError **error);

char *sim_run_report_text (const SimRunReport *r);
char *sim_run_report_json (const SimRunReport *r);

/* The "tool" key and object of a result: slabsim's name and version and
 * the replay and touch modes it ran with (the run report's, and every
 * sweep line's). */
void  sim_run_report_json_tool (SimJson *j, SimReplayMode mode, SimTouch touch);

/* One element of the JSON report's "results" array, written into @j
 * (used by "slabsim sweep" for its JSON lines). */
void  sim_run_report_json_result (SimJson *j, const SimMachine *machine,
                                  const SimReplayResult *res);

G_END_DECLS
