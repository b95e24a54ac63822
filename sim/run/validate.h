/* validate.h - put the recording kernel's allocator decisions beside a
 * model's (`slabsim validate`, docs/validation.md).
 *
 * The recorded side is read from the trace alone (traces/decisions.h over
 * every event, the kernel's own obj_exts traffic included: it occupied the
 * recording kernel's slabs).  The model side is the same reading of the
 * replay's own events, once from a cold start and once warm
 * (--warm unknown-frees).  What the trace cannot tell is collected as notes.
 */
#pragma once

#include <glib.h>
#include "sim/run/replay.h"

G_BEGIN_DECLS

typedef struct {
  const char *name;               /* belongs to the recorded decisions */
  const SimDecisionCache *rec, *cold, *warm;   /* any may be NULL */
  gboolean busy;                  /* rec->new_slabs >= SIM_VALIDATE_BUSY */
  gboolean agree_cold, agree_warm;/* new and freed slabs within tolerance */
  guint64 internal_allocs;        /* of the recording kernel's own, in this cache */
  char   *why;                    /* for a busy cache that does not agree, else NULL */
} SimValidateRow;

#define SIM_VALIDATE_BUSY 20

typedef struct {
  char *trace;
  char *spec;                     /* as given */
  char *allocator, *kernel;       /* of the model */
  const SimMachine *machine;
  gboolean trace_618;             /* the trace has 6.18's field set */
  SimDecisions *rec, *cold, *warm;
  SimReplayResult cold_res, warm_res;
  GArray *rows;                   /* SimValidateRow, by name */
  GPtrArray *notes;               /* char*: what the trace cannot tell */
  guint busy, agree_cold, agree_warm;
  gboolean has_pcp_drain_events;
  guint64 lost_events, hashed_ptrs, raw_ptrs;
} SimValidation;

/* |model - recorded| within max(3% of recorded, 2 slabs). */
gboolean sim_validate_within (guint64 recorded, guint64 model);

gboolean sim_validate_run (const char *trace, const char *spec, const SimReplayOptions *opt,
                           SimValidation *out, GError **error);
void sim_validation_clear (SimValidation *v);

G_END_DECLS
