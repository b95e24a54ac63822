/* untraced-mem.c - what the untraced-free inference holds (sim/run/
 * untraced.h, SimUntracedStats) as a trace is read: one line every
 * --every events and at the end, plus the process's peak RSS.  For
 * docs/perf/untraced-12.md: memory that follows the live objects, not the
 * trace's length.
 * Usage: untraced-mem TRACE [GRACE_PERIOD_NS [EVERY]] */
#include "sim/run/untraced.h"
#include "traces/stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long
peak_rss_kb (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets (line, sizeof line, f))
    if (strncmp (line, "VmHWM:", 6) == 0)
      kb = strtol (line + 6, NULL, 10);
  if (f)
    fclose (f);
  return kb;
}

static void
show (const SimUntracedCollector *u, guint64 events)
{
  SimUntracedStats s;
  sim_untraced_collector_stats (u, &s);
  printf ("events %" G_GUINT64_FORMAT ": records %" G_GUINT64_FORMAT " (peak %" G_GUINT64_FORMAT
          "), pages %" G_GUINT64_FORMAT ", tasks %" G_GUINT64_FORMAT ", mms %" G_GUINT64_FORMAT
          ", ended %" G_GUINT64_FORMAT ", window %" G_GUINT64_FORMAT " (peak %" G_GUINT64_FORMAT
          "), frees %" G_GUINT64_FORMAT ", unsure %" G_GUINT64_FORMAT ", final before %"
          G_GUINT64_FORMAT ", peak RSS %ld KB\n", events, s.records, s.records_peak, s.pages,
          s.tasks, s.mms, s.ended, s.window, s.window_peak, s.frees, s.unsure,
          sim_untraced_collector_final_before (u), peak_rss_kb ());
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: untraced-mem TRACE [GRACE_PERIOD_NS [EVERY]]\n");
      return 2;
    }
  guint64 gp = argc > 2 ? g_ascii_strtoull (argv[2], NULL, 10) : 16000000;
  guint64 every = argc > 3 ? g_ascii_strtoull (argv[3], NULL, 10) : 10000000;
  GError *error = NULL;
  SimTraceStreamOptions so = { 0 };
  SimTraceStream *st = sim_trace_stream_open (argv[1], &so, &error);
  if (st == NULL)
    {
      fprintf (stderr, "untraced-mem: %s\n", error->message);
      return 1;
    }
  SimUntracedCollector *u = sim_untraced_collector_new (gp);
  const SimTraceEvent *ev;
  guint n;
  guint64 events = 0, next = every;
  while (sim_trace_stream_next (st, &ev, &n, &error))
    {
      sim_untraced_collector_feed (u, sim_trace_stream_strings (st), ev, n);
      events += n;
      if (events >= next)
        {
          show (u, events);
          next += every;
        }
    }
  if (error)
    {
      fprintf (stderr, "untraced-mem: %s\n", error->message);
      return 1;
    }
  show (u, events);
  sim_untraced_collector_free (u);
  sim_trace_stream_free (st);
  return 0;
}
