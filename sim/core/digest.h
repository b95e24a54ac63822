/* digest.h - content hashes for provenance: which bytes a result came from.
 *
 * A run's JSON names its trace and machine file with their SHA-256, so a
 * result found months later can be matched to its inputs (docs/run.md). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* SHA-256 of the file at @path as lowercase hex, read in pieces (traces
 * are large); NULL with @error set if it cannot be read.  @bytes, if not
 * NULL, gets the file's size. */
char *sim_file_sha256 (const char *path, guint64 *bytes, GError **error);

/* SHA-256 of @len bytes at @data as lowercase hex (-1: a C string). */
char *sim_data_sha256 (const char *data, gssize len);

G_END_DECLS
