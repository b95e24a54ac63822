/* views.h - the views kernel people already read, from a run's results:
 * tools/mm/slabinfo (default, -A activity, -r report of one cache, -T
 * totals, -a aliases), procps slabtop's summary and table, and
 * /proc/slabinfo version 2.1 (SLAB's tunables included).
 *
 * Each view is a function of one SimReplayResult, in the columns and
 * number formats the real tools print, so a reader can put a simulated
 * cache beside a real machine's; JSON carries the same rows with the
 * tools' column names as keys.  "slabsim run --view NAME" (docs/views.md).
 */
#pragma once

#include <glib.h>
#include "sim/run/replay.h"
#include "sim/core/json.h"

G_BEGIN_DECLS

typedef enum {
  SIM_VIEW_SLABINFO,          /* slabinfo */
  SIM_VIEW_SLABINFO_ACTIVITY, /* slabinfo -AD: Alloc Free %Fast Fallb O CmpX UL */
  SIM_VIEW_SLABINFO_REPORT,   /* slabinfo -r CACHE */
  SIM_VIEW_SLABINFO_TOTALS,   /* slabinfo -T */
  SIM_VIEW_SLABINFO_ALIASES,  /* slabinfo -a */
  SIM_VIEW_SLABTOP,           /* slabtop -o */
  SIM_VIEW_PROC_SLABINFO,     /* cat /proc/slabinfo */
} SimViewKind;

typedef struct {
  SimViewKind kind;
  char *cache;                /* slabinfo-r=CACHE */
} SimView;

/* Parse "slabinfo", "slabinfo-A", "slabinfo-r=CACHE", "slabinfo-T",
 * "slabinfo-a", "slabtop" or "proc-slabinfo"; usage error naming them. */
gboolean sim_view_parse (const char *s, SimView *out, GError **error);
void     sim_view_clear (SimView *v);
/* The names --view takes, for help and errors. */
const char *sim_view_names (void);

/* The view of @res as the tool prints it; NULL with @error when
 * slabinfo-r names a cache @res does not have. */
char *sim_view_text (const SimView *v, const SimReplayResult *res, GError **error);
/* The same rows as one JSON object written into @j; FALSE as above. */
gboolean sim_view_json (const SimView *v, const SimReplayResult *res, SimJson *j,
                        GError **error);

G_END_DECLS
