/* sweep.h - parameter sweeps: plan, run, results ("slabsim sweep", "merge").
 *
 * A sweep file (docs/sweeps.md) names traces, machines, allocator specs and
 * axes over any parameter.  The plan expands it into numbered points; each
 * point is the full set of its parameters (defaults included) and has a
 * stable id, the first 16 hex digits of the SHA-256 of its canonical text
 * ("key=value" lines sorted by key), so the id does not depend on the
 * order of keys in the file nor on the other points.
 *
 * Running a point replays its trace (sim/run/replay.h) and writes one JSON
 * line to DIR/points/ID.jsonl through a temporary file and rename(), so a
 * reader never sees half a line and parallel workers and shards on a shared
 * file system cannot interleave.  The line records the SHA-256 of the trace
 * and of the machine it was computed from (inputs.c); a rerun skips every
 * point whose file holds a valid line of the same inputs and runs the others
 * again (empty, truncated or unparsable files, changed traces or machines).
 * DIR/results.jsonl is derived: the valid, current points present, by index.
 */
#pragma once

#include <glib.h>
#include "sim/config/machine.h"
#include "sim/config/yaml-tree.h"
#include "sim/run/replay.h"

G_BEGIN_DECLS

/* Errors of sweep results (missing or duplicate points, a directory of
 * another plan): exit 1.  Bad sweep files are SIM_CONFIG_ERROR (exit 2). */
#define SIM_SWEEP_ERROR (sim_sweep_error_quark ())
GQuark sim_sweep_error_quark (void);
typedef enum {
  SIM_SWEEP_ERROR_IO,
  SIM_SWEEP_ERROR_MISMATCH,      /* results of different plans */
  SIM_SWEEP_ERROR_INCOMPLETE,    /* missing points */
  SIM_SWEEP_ERROR_DUPLICATE,     /* a point present twice */
  SIM_SWEEP_ERROR_POINT,         /* a point's replay failed */
} SimSweepError;

#define SIM_SWEEP_ID_LEN 16

/* The most points a plan may have (docs/testing.md, "Limits"). */
#define SIM_SWEEP_MAX_POINTS 1000000u

typedef struct {
  char *key;                     /* "slub_max_order", "machine.numa", "touch" */
  char *value;                   /* as written */
} SimSweepParam;

typedef struct {
  guint   index;                 /* 0-based, in expansion order */
  char    id[SIM_SWEEP_ID_LEN + 1];
  GArray *params;                /* of SimSweepParam, sorted by key */
  char   *canonical;             /* "key=value\n"..., hashed into id */
  char   *trace;                 /* as written */
  char   *trace_path;            /* resolved against the sweep file */
  char   *spec;                  /* allocator spec with its parameters */
  SimReplayMode mode;
  SimTouch touch;
  guint   machine;               /* index into plan->machines */
} SimSweepPoint;

typedef struct {
  char      *name;               /* "name:" or the file's base name */
  char      *origin;             /* the sweep file */
  char       plan_id[SIM_SWEEP_ID_LEN + 1];  /* hash of the point ids */
  GPtrArray *points;             /* of SimSweepPoint */
  GPtrArray *machines;           /* SimMachine, one per distinct machine+overrides */
  GStrv      axes;               /* varying keys in the order of the file */
} SimSweepPlan;

SimSweepPlan *sim_sweep_plan_load (const char *path, GError **error);
SimSweepPlan *sim_sweep_plan_load_data (const char *yaml, gsize len, const char *origin,
                                        const char *base_dir, GError **error);
void          sim_sweep_plan_free (SimSweepPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimSweepPlan, sim_sweep_plan_free)

/* The value of @key in @p, or NULL. */
const char *sim_sweep_point_get (const SimSweepPoint *p, const char *key);

/* Progress of a run: called from the thread that waits for the workers,
 * never from a worker. */
typedef void (*SimSweepProgress) (guint done, guint total, gpointer user_data);

typedef struct {
  guint jobs;                    /* worker threads, >= 1 */
  guint shard, n_shards;         /* points with index % n_shards == shard */
  SimSweepProgress progress;     /* may be NULL */
  gpointer progress_data;
  /* The decoded-trace cache (traces/stream.h): NULL = a private
   * decoded copy per trace, removed at the end. */
  const char *trace_cache;
  guint64 trace_cache_max;
  guint ran, skipped, failed;    /* out */
  guint decoded;                 /* out: traces decoded for the points */
} SimSweepRunOptions;

/* Run the points of @plan selected by @opt into @dir (created).  Points
 * already in @dir are skipped.  Failed points are reported on stderr and
 * make the run fail after every other point has run. */
gboolean sim_sweep_run (const SimSweepPlan *plan, const char *dir,
                        SimSweepRunOptions *opt, GError **error);

/* The inputs of a plan's points as they are now: SHA-256 of each trace
 * (cached in @dir/traces.json by size, mtime and inode; @dir may be NULL)
 * and of each effective machine. */
typedef struct _SimSweepInputs SimSweepInputs;
SimSweepInputs *sim_sweep_inputs_new     (const SimSweepPlan *plan, const char *dir,
                                          GError **error);
void            sim_sweep_inputs_free    (SimSweepInputs *in);
const char     *sim_sweep_inputs_trace   (const SimSweepInputs *in, const SimSweepPoint *p);
const char     *sim_sweep_inputs_machine (const SimSweepInputs *in, const SimSweepPoint *p);

/* The JSON line of a finished point, "\n"-terminated; with @in (may be
 * NULL) it records the inputs ("inputs": {"trace_sha256", "machine_sha256"}). */
char *sim_sweep_point_line (const SimSweepPlan *plan, const SimSweepPoint *p,
                            const SimReplayResult *res, const SimSweepInputs *in);

/* ------------------------------------------------------------------ */
/* Results: the lines of sweep directories and JSONL files. */

typedef struct {
  char  *text;                   /* the line, "\n" included */
  char  *id;
  guint  index;
  guint  n_points;
  char  *plan;
  char  *where;                  /* "file:line" */
} SimSweepLine;

/* Read the lines of @path: a sweep directory (its points/) or a JSONL
 * file.  Appends SimSweepLine * to @lines. */
gboolean sim_sweep_read_lines (const char *path, GPtrArray *lines, GError **error);
void     sim_sweep_line_free (SimSweepLine *l);

/* Check that @lines hold every point of one plan exactly once and write
 * them, by index, to @out. */
gboolean sim_sweep_merge (GPtrArray *lines, const char *const *plan_dirs,
                          GString *out, GError **error);

G_END_DECLS
