/* record.h - record a kmem trace of a command through tracefs.
 *
 * The control sequence (docs/record.md): find or mount tracefs, switch
 * hash-ptr off, size and clear the buffer, enable the kmem events that
 * exist, tracing_on, run the command, tracing_off, disable the events,
 * count lost events and copy `trace` to the output (gzip for .gz), then
 * restore options and buffer size.  Via trace-cmd, the buffer is taken with
 * `trace-cmd extract -k` into a trace.dat instead of copying `trace`.
 * SLABSIM_TRACEFS names another tracefs root
 * (tests use a fake tree of plain files).  The module prints nothing: the
 * writes and warnings come back in SimRecordResult.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  const char *output;          /* FILE or FILE.gz */
  char      **events;          /* kmem event names, NULL-terminated */
  guint       buffer_kb;       /* 0: leave the buffer size alone */
  char      **argv;            /* the command */
  gboolean    via_tracecmd;    /* write a trace.dat with `trace-cmd extract` instead of
                                  copying the `trace` text (docs/record.md) */
} SimRecordOptions;

typedef struct {
  char     *tracefs;           /* the root used */
  guint64   lines;             /* event lines copied (via trace-cmd: events in the trace.dat) */
  guint64   lost_overrun;      /* sum of per_cpu/cpuN/stats overrun */
  guint64   lost_markers;      /* sum of [LOST N EVENTS] markers */
  int       exit_status;       /* of the command */
  GPtrArray *warnings;         /* char*: skipped events, ... */
  GPtrArray *writes;           /* char*: "echo VALUE > FILE", in order */
} SimRecordResult;

/* The default event list. */
const char *const *sim_record_default_events (void);

gboolean sim_record_run (const SimRecordOptions *o, SimRecordResult *r, GError **error);
void     sim_record_result_clear (SimRecordResult *r);

G_END_DECLS
