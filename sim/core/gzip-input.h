/* gzip-input.h - reading gzip data of any number of members.
 *
 * A gzip file may be several members one after the other (RFC 1952 section
 * 2.2): `cat a.gz b.gz > t.gz`, gzip of concatenated chunks, recorders that
 * append.  gzip -d reads them all; GIO's GZlibDecompressor stops at the end
 * of the first and a GConverterInputStream over it reports end of file
 * there, so a trace would be read only in part, silently.  This stream
 * decompresses every member.
 *
 * Every reader of gzip input (trace readers, the din reader of cachesim)
 * opens its stream through sim_gzip_input_new().
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A stream of the decompressed bytes of every gzip member of @base, which
 * must start with a member (the magic 1f 8b).  Zero bytes after the last
 * member are ignored, as gzip -d does; anything else after a member that
 * is not another member is an error (G_IO_ERROR_INVALID_DATA, with the
 * byte offset).  Closing it closes @base. */
GInputStream *sim_gzip_input_new (GInputStream *base);

/* The number of members begun so far (for tests and diagnostics). */
guint sim_gzip_input_members (GInputStream *stream);

G_END_DECLS
