/* validate-report.h - render `slabsim validate` (sim/run/validate.h) as
 * fixed-width text or JSON (keys in docs/validation.md). */
#pragma once

#include "sim/run/validate.h"

G_BEGIN_DECLS

char *sim_validate_report_text (const SimValidation *v);
char *sim_validate_report_json (const SimValidation *v);
/* The one-line summary (also the text report's last line). */
char *sim_validate_summary (const SimValidation *v);

G_END_DECLS
