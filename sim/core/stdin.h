/* stdin.h - a trace read from standard input, readable more than once.
 *
 * `run -` and `validate -` read their trace more than once (the provenance
 * hash, validate's recorded side and its two replays, a second decode when
 * the replay's spool cannot be written: sim/run/prepass.h), which a pipe
 * cannot give back.  sim_stdin_spool copies a pipe or terminal into
 * an unlinked temporary file once, before anything reads it; afterwards
 * every open of "-" reads that copy from its start.  A regular file
 * redirected to standard input needs no copy: /dev/stdin reopens it at
 * offset 0. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Make standard input re-readable (a no-op when it already is, or after a
 * first call).  FALSE with @error set when the copy fails (e.g. the
 * temporary directory is full); nothing has been read by a model then. */
gboolean sim_stdin_spool (GError **error);

/* The path that opens standard input's bytes from the start: the spooled
 * copy, or "/dev/stdin". */
const char *sim_stdin_path (void);

G_END_DECLS
