/* digest.h - content hashes for provenance: which bytes a result came from.
 *
 * A run's JSON names its trace and machine file with their SHA-256, so a
 * result found months later can be matched to its inputs (docs/run.md). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* SHA-256 of the file at @path as lowercase hex, read in pieces (traces
 * are large); NULL with @error set if it cannot be read.  @bytes, if not
 * NULL, gets the file's size. */
char *sim_file_sha256 (const char *path, guint64 *bytes, GError **error);

/* SHA-256 of what @in yields to its end, read in 1 MiB pieces; NULL with
 * @in's read error.  @bytes, if not NULL, gets how many bytes that was.
 * Callers open the file as their paths mean it (a command-line argument,
 * a plain path, the spooled stdin). */
char *sim_sha256_stream (GInputStream *in, guint64 *bytes, GError **error);

/* SHA-256 of @len bytes at @data as lowercase hex (-1: a C string). */
char *sim_data_sha256 (const char *data, gssize len);

/* A SHA-256 fed in pieces: libcrypto's where the build has it (the CPU's
 * SHA instructions: a 7 GB native trace in ~5 s instead of GChecksum's
 * ~37 s), else GLib's; the same digest either way. */
typedef struct _SimSha256 SimSha256;
SimSha256 *sim_sha256_new (void);
void       sim_sha256_update (SimSha256 *h, const void *data, gsize len);
/* The digest as lowercase hex (g_free it); frees @h. */
char      *sim_sha256_finish (SimSha256 *h);

G_END_DECLS
