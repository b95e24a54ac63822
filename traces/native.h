/* native.h - slabsim's own binary kmem trace format (docs/trace-format.md).
 *
 * A text trace is parsed once by `slabsim trace convert` into a compact,
 * versioned, checksummed file that every reader entry point reads back
 * (sim_trace_reader_open sniffs its magic) many times faster than the text.
 * The writer takes events from a SimTraceReader so the string ids it stores
 * are the reader's own; the reader statistics (lost events, skipped lines,
 * other events) go into a trailer so a converted trace summarises exactly as
 * its source did.
 */
#pragma once

#include "traces/reader.h"

G_BEGIN_DECLS

#define SIM_NATIVE_VERSION 1
#define SIM_NATIVE_BLOCK_EVENTS 4096

/* The layout (docs/trace-format.md), shared by the writer (native.c) and
 * the reader's decoder (reader-native.c). */
#define SIM_NATIVE_MAGIC "\x89SLABTR\n"          /* 8 bytes */
#define SIM_NATIVE_HEADER_SIZE 16
#define SIM_NATIVE_BLOCK_HEADER_SIZE 16
#define SIM_NATIVE_MAX_PAYLOAD (16u << 20)
/* A spool record's mask (SIM_NATIVE_SPOOL_VERSION): bit j names 32-bit
 * word j of the event's fields after ts_ns and ptr (call_site, pfn,
 * bytes_req, bytes_alloc: 8 words), and bit 8 + j word j from kind on
 * (kind, cpu, pid, node, order, migratetype, accounted, gfp, gfp_id,
 * cache_id, call_site_id, comm_id: 12 words); line is a delta of its own.
 * The spool is read back by the process that wrote it, so the layout of
 * SimTraceEvent is the record's (traces/native.c asserts it). */
#define SIM_SPOOL_WORDS_LO   8          /* from offset 16 */
#define SIM_SPOOL_WORDS_HI   12         /* from offset 56 */
#define SIM_SPOOL_MASK_BITS  (SIM_SPOOL_WORDS_LO + SIM_SPOOL_WORDS_HI)
#define SIM_SPOOL_KIND_BIT   SIM_SPOOL_WORDS_LO   /* never set: the record's kind is its own */
enum { SIM_NATIVE_BLOCK_STRINGS = 'S', SIM_NATIVE_BLOCK_EVENTS_TYPE = 'E',
       SIM_NATIVE_BLOCK_TRAILER = 'T' };

typedef struct _SimNativeWriter SimNativeWriter;

/* Write to @out (a ref is taken); @src supplies the strings the events refer to. */
SimNativeWriter *sim_native_writer_new (GOutputStream *out, SimTraceReader *src,
                                        GError **error);

/* The spool variant (docs/trace-format.md, "The spool"): the same blocks,
 * header version SIM_NATIVE_SPOOL_VERSION, and records that store only the
 * 32-bit words of an event that differ from the previous record of the
 * same kind in their block.  slabsim writes it only to the private, unlinked spool a `run`
 * replays from (traces/stream.c), which the same process reads back; it is
 * not a file format (no file slabsim writes for others uses it) and may
 * change with any build. */
#define SIM_NATIVE_SPOOL_VERSION 0x80000001u
SimNativeWriter *sim_native_writer_new_spool (GOutputStream *out, SimTraceReader *src,
                                              GError **error);
gboolean sim_native_writer_add (SimNativeWriter *w, const SimTraceEvent *ev, GError **error);
/* sim_native_writer_add of @n events in turn (the same bytes); FALSE at
 * the first that fails. */
gboolean sim_native_writer_add_many (SimNativeWriter *w, const SimTraceEvent *ev, guint n,
                                     GError **error);
/* Flush, write the trailer with @src's statistics, and close the stream. */
gboolean sim_native_writer_finish (SimNativeWriter *w, GError **error);
void sim_native_writer_free (SimNativeWriter *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimNativeWriter, sim_native_writer_free)

/* Convert the trace at @in_path into a native file at @out_path; @lenient as
 * in trace info. */
gboolean sim_native_convert (const char *in_path, const char *out_path, gboolean lenient,
                             guint64 *events_out, GError **error);

/* The same from an open reader (read to its end). */
gboolean sim_native_convert_reader (SimTraceReader *r, const char *out_path,
                                    guint64 *events_out, GError **error);

/* CRC-32 (IEEE 802.3, as zlib and gzip compute it). */
guint32 sim_native_crc32 (guint32 crc, const void *data, gsize len);

G_END_DECLS
