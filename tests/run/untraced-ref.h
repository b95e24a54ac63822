/* untraced-ref.h - the old untraced-free inference (untraced-ref.c), the
 * reference the bounded one must agree with. */
#pragma once

#include "sim/run/untraced.h"

typedef struct _RefUntracedCollector RefUntracedCollector;
RefUntracedCollector *ref_untraced_collector_new (guint64 grace_period_ns);
void ref_untraced_collector_feed (RefUntracedCollector *u, const SimTraceStrings *strs,
                                  const SimTraceEvent *ev, guint n);
void ref_untraced_collector_finish (RefUntracedCollector *u, SimUntracedSet *out);
void ref_untraced_collector_free (RefUntracedCollector *u);
