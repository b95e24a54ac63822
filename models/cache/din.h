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
 * more than the cache simulation itself.
 */
#pragma once

#include <glib.h>

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

/* Parse one line (without its newline); exposed for tests.  Returns 0 on a
 * record, 1 for a blank or comment line, -1 with @what set to what was
 * expected. */
int sim_din_parse_line (const char *p, const char *end, SimDinRecord *rec,
                        const char **what);

G_END_DECLS
