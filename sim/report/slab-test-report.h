/* slab-test-report.h - render "slabsim slab-test" results.
 *
 * Text is the slab_test module's own kernel log, line for line and with
 * its integer arithmetic (cycles = loop time / count, truncated; the
 * concurrent Average = sum over CPUs / CPUs / count), so it can be set
 * beside what has been posted to linux-mm since 2007.  JSON is one object
 * per (test, size) with the printed values and the exact means, for fit
 * scripts (docs/slab-test.md).
 */
#pragma once

#include <glib.h>
#include "sim/run/slab-test.h"

G_BEGIN_DECLS

char *sim_slab_test_report_text (const SimSlabTestResult *r);
char *sim_slab_test_report_json (const SimSlabTestResult *r);

G_END_DECLS
