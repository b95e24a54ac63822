/* din.h - reader of Dinero IV "extended din" address traces, plain or gzip.
 *
 * One access per line:   OP ADDR SIZE [CPU]
 *   OP    r or 0 = data read, w or 1 = data write, i or 2 = instruction
 *         fetch, m = read-modify-write (a slabsim extension)
 *   ADDR  hexadecimal, "0x" optional
 *   SIZE  hexadecimal byte count > 0, "0x" optional
 *   CPU   optional decimal CPU number (a slabsim extension); default 0
 * Fields are separated by blanks; blank lines and lines starting with '#'
 * are skipped.  A gzip file is recognised by its magic bytes, not its name.
 * Errors name "file:line:" and what was expected.
 *
 * The parser works by hand on large buffers: GScanner or sscanf would cost
 * more than the cache simulation itself.  For a replay it can run on a
 * thread of its own and hand over batches of accesses
 * (sim_din_read_batches), so that reading and simulating overlap.
 */
#pragma once

#include <glib.h>
#include "models/cache/memsys.h"

G_BEGIN_DECLS

typedef enum {
  SIM_DIN_READ,
  SIM_DIN_WRITE,
  SIM_DIN_RMW,
  SIM_DIN_IFETCH,
} SimDinOp;

typedef struct {
  guint64  addr;
  guint32  size;
  guint32  cpu;
  SimDinOp op;
} SimDinRecord;

/* Called for every record; return FALSE (with @error set) to stop.
 * @line is the record's line number, for messages. */
typedef gboolean (*SimDinFunc) (const SimDinRecord *rec, guint64 line,
                                gpointer user_data, GError **error);

/* Read the trace at @path ("-" = standard input) and call @fn for each
 * record.  Errors are SIM_TRACE_ERROR (exit 1).  @n_lines gets the number of
 * lines read (may be NULL). */
gboolean sim_din_read (const char *path, SimDinFunc fn, gpointer user_data,
                       guint64 *n_lines, GError **error);

/* Batched reading for a replay (slabsim cachesim): the data accesses as
 * arrays of SimMemRef, in trace order, with the instruction fetches only
 * counted.  With @threads >= 2 the file is read, decompressed and parsed on
 * a thread of its own, a few batches ahead of @fn, which runs on the
 * caller's thread; with 1 everything runs on the caller's thread.  The
 * batches, and so everything @fn computes, are the same either way.
 *
 * Errors are reported as sim_din_read reports them, at the same line: the
 * first error in trace order wins, and every record before a bad line has
 * been handed to @fn before the error is returned.  If @fn fails, reading
 * stops (the reader thread is told and joined) and @fn's error is returned.
 * A plain file that another process truncates while it is read is an
 * error too ("file shrank while being read", at the first byte whose line
 * was not handed over), not a crash. */
typedef struct {
  guint    threads;       /* 1: no reader thread; >= 2: one reader thread */
  guint32  cpu_limit;     /* a data access's CPU field must be below this (the
                             machine's CPU count, 1 .. SIM_MACHINE_MAX_CPUS),
                             else an error at its line */
  gboolean cpu_zero;      /* every access goes to CPU 0 (Cachegrind: one CPU);
                             the CPU field is then not checked, cpu_limit unused */
} SimDinBatchOptions;

typedef struct {
  const SimMemRef *ref;               /* data accesses (r, w, m), in order */
  gsize            n;
  guint64          ifetch;            /* instruction fetches among the same lines */
  guint64          n_kind[SIM_ACC_N]; /* of @ref, by SimAccKind */
} SimDinBatch;

typedef gboolean (*SimDinBatchFunc) (const SimDinBatch *batch, gpointer user_data,
                                     GError **error);

gboolean sim_din_read_batches (const char *path, const SimDinBatchOptions *opt,
                               SimDinBatchFunc fn, gpointer user_data,
                               guint64 *n_lines, GError **error);

/* For tests only: @fn is called on the reader's thread before each window
 * (4 MiB) of a plain file that sim_din_read_batches reads from a mapping,
 * with the byte offset the window starts at (0 first); NULL: none.  A test
 * truncates the file there, deterministically (tests/cache/test-din.c). */
typedef void (*SimDinWindowHook) (const char *name, guint64 offset, gpointer user_data);
void sim_din_set_window_hook (SimDinWindowHook fn, gpointer user_data);

/* Parse one line (without its newline); exposed for tests.  Returns 0 on a
 * record, 1 for a blank or comment line, -1 with @what set to what was
 * expected. */
int sim_din_parse_line (const char *p, const char *end, SimDinRecord *rec,
                        const char **what);

G_END_DECLS
