/* progress.h - a one-line progress display on stderr for long runs.
 *
 * Shown only when stderr is a terminal, so logs, pipes and tests see
 * nothing.  It reads the monotonic clock for the rate and the ETA: that
 * time never reaches any output file, which stays deterministic.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gboolean enabled;
  gint64   start_us;
  gint64   last_us;
  gboolean drawn;
} SimProgress;

void sim_progress_init   (SimProgress *p);
/* @done of @total (0 = unknown) @unit ("points", "events"); @label goes
 * first ("slub@2.6.34 2/3").  Redraws at most ten times a second. */
void sim_progress_update (SimProgress *p, const char *label, guint64 done, guint64 total,
                          const char *unit);
/* Clear the line. */
void sim_progress_finish (SimProgress *p);

G_END_DECLS
