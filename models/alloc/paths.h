/* paths.h - per-era instruction counts of the kernel paths a model charges.
 *
 * Every allocator model (and the page allocator) charges the instructions
 * of a kernel path from a table of its era: configs/paths/MODEL-ERA.tsv,
 * one row per path with its count of plain x86-64 instructions, the
 * special instructions on it (locked RMWs, cmpxchg16b, irq save/restore,
 * this_cpu operations, preempt_disable/enable) in their own columns, the
 * method that produced the numbers and where they come from.  The tables
 * are data compiled into the program as a GResource (configs/paths/
 * meson.build), so a run never depends on files found at run time and the
 * same build always charges the same numbers; they are parsed and checked
 * when a model is created, and a bad row is an error naming the table's
 * file and line.  docs/models/paths.md describes the format and methods.
 *
 * A model lists its path keys once (an X-macro giving an enum and the key
 * strings), loads its era's table into an array indexed by that enum at
 * creation, and charges with sim_op_path (op, &m->path[P_...]): one array
 * index per charge, nothing looked up on the hot path.
 */
#pragma once

#include <glib.h>
#include "models/alloc/alloc.h"

G_BEGIN_DECLS

/* The special instructions a table counts apart from the plain ones: the
 * instructions whose cost depends on the microarchitecture and that the
 * timing model may charge from the machine description. */
typedef enum {
  SIM_PATH_LOCKED,      /* lock-prefixed RMW (cmpxchg, xadd, bts, inc) or xchg */
  SIM_PATH_CX16,        /* cmpxchg16b / this_cpu_cmpxchg_double */
  SIM_PATH_IRQ,         /* local_irq_save + local_irq_restore pairs */
  SIM_PATH_THIS_CPU,    /* %gs-relative this_cpu operations */
  SIM_PATH_PREEMPT,     /* preempt_disable + preempt_enable pairs */
  SIM_PATH_N_SPECIAL
} SimPathSpecial;

/* The x86-64 instructions one special operation is made of (an irq pair is
 * pushf; pop; cli ... push; popf, a preempt pair incl ... decl): what is
 * charged, one cycle each, until the machine gives special costs. */
extern const guint sim_path_special_instrs[SIM_PATH_N_SPECIAL];

typedef struct {
  guint32 instr;                         /* plain instructions */
  guint32 special[SIM_PATH_N_SPECIAL];
  guint32 total;                         /* every instruction of the path */
} SimPathCost;

/* One row of a table, as written. */
typedef struct {
  char       *path;                      /* the model's key: "fast_alloc" */
  char       *kernel;                    /* the kernel function or path */
  char       *method;                    /* objdump, source or estimate */
  char       *source;                    /* where the numbers come from */
  guint       line;
  SimPathCost cost;
} SimPathRow;

/* Every row of table @text (named @file in errors), in file order: a
 * GArray of SimPathRow that frees its rows, or NULL with SIM_CONFIG_ERROR
 * "FILE:LINE: ..." on a bad header or row or a path given twice. */
GArray *sim_paths_rows (const char *file, const char *text, GError **error);

/* Parse table @text (named @file in errors) for a model whose paths are
 * @keys[0..n_keys): every key must have exactly one row; @out[i] gets key
 * i's counts.  FALSE with SIM_CONFIG_ERROR "FILE:LINE: ..." on a bad row,
 * a duplicate or unknown path, or "FILE: no row for path KEY". */
gboolean sim_paths_parse (const char *file, const char *text, const char *const *keys,
                          guint n_keys, SimPathCost *out, GError **error);

/* The same for the compiled-in table @table ("slub-6.18"). */
gboolean sim_paths_load (const char *table, const char *const *keys, guint n_keys,
                         SimPathCost *out, GError **error);

/* The text of compiled-in table @table, NULL if there is none; its file
 * name in the source tree goes to @file. */
GBytes *sim_paths_table_bytes (const char *table, char **file);

/* The names of every compiled-in table ("page-2.6.23", ...), sorted. */
char **sim_paths_tables (void);

/* Charge path @c once, or @n times (one step of a loop). */
static inline void
sim_op_path (SimOp *op, const SimPathCost *c)
{
  sim_op_instr (op, c->total);
}

static inline void
sim_op_path_n (SimOp *op, const SimPathCost *c, guint n)
{
  sim_op_instr (op, c->total * n);
}

/* A model's path list: X (ENUM, "key") entries make P_ENUM indices and a
 * key array.  Used as SIM_PATHS_DEFINE (slub, SLUB_PATHS). */
#define SIM_PATH_ENUM_(e, k) P_##e,
#define SIM_PATH_KEY_(e, k)  k,
#define SIM_PATHS_DEFINE(LIST)                                                 \
  enum { LIST (SIM_PATH_ENUM_) N_PATHS };                                     \
  static const char *const path_keys[N_PATHS] = { LIST (SIM_PATH_KEY_) };

G_END_DECLS
