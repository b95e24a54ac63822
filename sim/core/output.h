/* output.h - writing a file the user named (-o FILE), the one way every verb does it.
 *
 * What the path names decides how it is written (docs/design.md, "Output files"):
 *
 *   a regular file or a new name   a temporary file in the same folder, fsync, rename over
 *                                  the name: a reader sees the old file or the whole new one,
 *                                  and a failed write (a full disk) leaves the old one as it
 *                                  was and no temporary file behind; the old file's
 *                                  permission bits are kept.
 *   a symbolic link                followed to its final target (a dangling link: the name it
 *                                  points to), which is written as above, the rename done in
 *                                  the target's folder; the link stays a link.
 *   "-", /dev/stdout, /dev/stderr, written through the open descriptor, no rename.
 *   /dev/fd/N, /proc/self/fd/N
 *   a FIFO or a character device   written through (opened for writing, no rename):
 *   (/dev/null, a terminal)        replacing it would destroy it.
 *   a directory, a socket, a       refused with an error naming the path.
 *   block device
 *
 * Every message names the path as the user wrote it, never the temporary
 * file.  Errors are G_IO_ERROR (exit 1).  sim_output_check() classifies the
 * path without writing anything: verbs call it before the work, so a long
 * replay never runs only to fail on its output.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _SimOutput SimOutput;

/* TRUE when @path can be written as above (its folder exists and is
 * writable, it is not a directory, socket or block device).  "-" and NULL
 * are standard output. */
gboolean       sim_output_check  (const char *path, GError **error);

/* Open @path for writing (a FIFO blocks until a reader opens it, as a
 * shell's redirection does). */
SimOutput     *sim_output_open   (const char *path, GError **error);
/* The stream to write to; owned by @out.  Its write errors name the path.
 * Closing it (or a converter stream over it) does not commit. */
GOutputStream *sim_output_stream (SimOutput *out);
/* Finish: fsync and rename into place (or close the descriptor written
 * through).  Frees @out, also on failure, after removing the temporary
 * file. */
gboolean       sim_output_commit (SimOutput *out, GError **error);
/* Give up: remove the temporary file, leave the target alone; frees @out.
 * NULL is ignored. */
void           sim_output_abort  (SimOutput *out);

/* The whole of @data (@len bytes, -1: a string) to @path in one call. */
gboolean       sim_output_write  (const char *path, const void *data, gssize len,
                                  GError **error);

G_END_DECLS
