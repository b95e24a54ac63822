/* progress.c - see progress.h. */
#include "sim/sweep/progress.h"

#include <stdio.h>
#include <unistd.h>

void
sim_progress_init (SimProgress *p)
{
  p->enabled = isatty (STDERR_FILENO) && g_getenv ("SLABSIM_NO_PROGRESS") == NULL;
  p->start_us = g_get_monotonic_time ();
  p->last_us = 0;
  p->drawn = FALSE;
}

static void
fmt_duration (char *buf, gsize n, double s)
{
  guint64 t = (guint64) (s + 0.5);
  if (t >= 3600)
    g_snprintf (buf, n, "%" G_GUINT64_FORMAT ":%02u:%02u", t / 3600, (guint) (t / 60 % 60),
                (guint) (t % 60));
  else
    g_snprintf (buf, n, "%u:%02u", (guint) (t / 60), (guint) (t % 60));
}

void
sim_progress_update (SimProgress *p, const char *label, guint64 done, guint64 total,
                     const char *unit)
{
  if (!p->enabled)
    return;
  gint64 now = g_get_monotonic_time ();
  if (p->drawn && now - p->last_us < 100000 && (total == 0 || done < total))
    return;
  p->last_us = now;
  double secs = (double) (now - p->start_us) / 1e6;
  double rate = secs > 0 ? (double) done / secs : 0.0;
  char rbuf[32], ebuf[32], tbuf[32];
  g_ascii_formatd (rbuf, sizeof rbuf, rate >= 100 ? "%.0f" : "%.1f", rate);
  fmt_duration (tbuf, sizeof tbuf, secs);
  GString *line = g_string_new (NULL);
  if (label)
    g_string_append_printf (line, "%s: ", label);
  if (total)
    g_string_append_printf (line, "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " %s (%u%%)",
                            done, total, unit, (guint) (done * 100 / total));
  else
    g_string_append_printf (line, "%" G_GUINT64_FORMAT " %s", done, unit);
  g_string_append_printf (line, ", %s %s/s, elapsed %s", rbuf, unit, tbuf);
  if (total && done > 0 && done < total && rate > 0)
    {
      fmt_duration (ebuf, sizeof ebuf, (double) (total - done) / rate);
      g_string_append_printf (line, ", ETA %s", ebuf);
    }
  fprintf (stderr, "\r\033[K%s", line->str);
  fflush (stderr);
  g_string_free (line, TRUE);
  p->drawn = TRUE;
}

void
sim_progress_finish (SimProgress *p)
{
  if (p->enabled && p->drawn)
    {
      fputs ("\r\033[K", stderr);
      fflush (stderr);
    }
  p->drawn = FALSE;
}
