/* native.c - slabsim's native trace format: writer and decoder.
 *
 * The layout is documented byte by byte in docs/trace-format.md.  Its design
 * follows what kmemtrace's relay format (2.6.29-2.6.35) got right: explicit
 * sizes so a reader can skip what it does not know, and self-contained
 * blocks.  Every block carries a CRC-32 of its payload, so a flipped bit or
 * a cut file is detected and named (block number and byte offset) instead of
 * silently replaying garbage.  Records are varint-coded with the timestamp,
 * source line and pointer stored as deltas from the previous record of the
 * same block (the predictors reset at each block).
 */
#include "traces/native.h"
#include "sim/core/output.h"
#include "traces/reader-private.h"
#include "sim/core/errors.h"

#include <string.h>

static const guint8 magic[8] = { 0x89, 'S', 'L', 'A', 'B', 'T', 'R', '\n' };
#define HEADER_SIZE 16
#define BLOCK_HEADER_SIZE 16
#define MAX_PAYLOAD (16u << 20)
#define STRINGS_SPLIT (8u << 20)  /* a writer's S block stays well under MAX_PAYLOAD */

enum { BLOCK_STRINGS = 'S', BLOCK_EVENTS = 'E', BLOCK_TRAILER = 'T' };

/* ---- CRC-32 ------------------------------------------------------------ */

/* Slice-by-8: eight tables so the checksum keeps up with the decoder. */
static guint32 crc_table[8][256];

static gpointer
crc_init (gpointer data)
{
  (void) data;
  for (guint32 i = 0; i < 256; i++)
    {
      guint32 c = i;
      for (int k = 0; k < 8; k++)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      crc_table[0][i] = c;
    }
  for (guint32 i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++)
      crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
  return NULL;
}

guint32
sim_native_crc32 (guint32 crc, const void *data, gsize len)
{
  static GOnce once = G_ONCE_INIT;
  g_once (&once, crc_init, NULL);
  const guint8 *p = data;
  crc = ~crc;
  while (len >= 8)
    {
      guint32 lo = crc ^ ((guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
                          (guint32) p[3] << 24);
      crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
            crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
            crc_table[3][p[4]] ^ crc_table[2][p[5]] ^ crc_table[1][p[6]] ^ crc_table[0][p[7]];
      p += 8;
      len -= 8;
    }
  while (len--)
    crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}

/* ---- little-endian and varints ------------------------------------------- */

static inline void
put_u32 (guint8 *p, guint32 v)
{
  p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}

static inline guint32
get_u32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static inline void
put_var (GByteArray *b, guint64 v)
{
  guint8 tmp[10];
  int n = 0;
  while (v >= 0x80)
    {
      tmp[n++] = (guint8) (v | 0x80);
      v >>= 7;
    }
  tmp[n++] = (guint8) v;
  g_byte_array_append (b, tmp, n);
}

static inline guint64
zigzag (gint64 v)
{
  return ((guint64) v << 1) ^ (guint64) (v >> 63);
}

static inline gint64
unzigzag (guint64 v)
{
  return (gint64) (v >> 1) ^ -(gint64) (v & 1);
}

/* ---- writer -------------------------------------------------------------- */

struct _SimNativeWriter {
  GOutputStream  *out;
  SimTraceReader *src;
  GByteArray     *rec;       /* the current event block's payload */
  guint32         n;         /* records in it */
  guint32         strings_written;
  guint64         ts, line, ptr;
  guint64         events;
};

static gboolean
write_block (SimNativeWriter *w, guint8 type, guint32 count, const guint8 *payload,
             gsize len, GError **error)
{
  guint8 h[BLOCK_HEADER_SIZE] = { type, 0, 0, 0 };
  put_u32 (h + 4, (guint32) len);
  put_u32 (h + 8, count);
  put_u32 (h + 12, sim_native_crc32 (0, payload, len));
  if (!g_output_stream_write_all (w->out, h, sizeof h, NULL, NULL, error) ||
      !g_output_stream_write_all (w->out, payload, len, NULL, NULL, error))
    return FALSE;
  return TRUE;
}

static gboolean
flush_strings (SimNativeWriter *w, GError **error)
{
  guint32 n = sim_trace_reader_n_strings (w->src);
  g_autoptr (GByteArray) b = g_byte_array_new ();
  guint32 first = w->strings_written + 1;
  for (guint32 id = first; id <= n; id++)
    {
      const char *s = sim_trace_reader_string (w->src, id);
      gsize len = g_array_index (w->src->strs.lens, guint32, id - 1);
      put_var (b, len);
      g_byte_array_append (b, (const guint8 *) s, len);
      if (b->len >= STRINGS_SPLIT || id == n)
        {
          if (!write_block (w, BLOCK_STRINGS, id - first + 1, b->data, b->len, error))
            return FALSE;
          g_byte_array_set_size (b, 0);
          first = id + 1;
          w->strings_written = id;
        }
    }
  return TRUE;
}

static gboolean
flush_events (SimNativeWriter *w, GError **error)
{
  if (w->n == 0)
    return TRUE;
  if (!flush_strings (w, error) ||
      !write_block (w, BLOCK_EVENTS, w->n, w->rec->data, w->rec->len, error))
    return FALSE;
  g_byte_array_set_size (w->rec, 0);
  w->n = 0;
  w->ts = w->line = w->ptr = 0;
  return TRUE;
}

SimNativeWriter *
sim_native_writer_new (GOutputStream *out, SimTraceReader *src, GError **error)
{
  guint8 h[HEADER_SIZE];
  memcpy (h, magic, 8);
  put_u32 (h + 8, SIM_NATIVE_VERSION);
  put_u32 (h + 12, (guint32) sim_trace_reader_source_format (src));
  if (!g_output_stream_write_all (out, h, sizeof h, NULL, NULL, error))
    return NULL;
  SimNativeWriter *w = g_new0 (SimNativeWriter, 1);
  w->out = g_object_ref (out);
  w->src = src;
  w->rec = g_byte_array_sized_new (SIM_NATIVE_BLOCK_EVENTS * 32);
  return w;
}

gboolean
sim_native_writer_add (SimNativeWriter *w, const SimTraceEvent *ev, GError **error)
{
  GByteArray *b = w->rec;
  guint8 kind = (guint8) ev->kind;
  g_byte_array_append (b, &kind, 1);
  put_var (b, (guint32) ev->cpu);
  put_var (b, zigzag ((gint64) (ev->ts_ns - w->ts)));
  put_var (b, zigzag ((gint64) (ev->line - w->line)));
  put_var (b, zigzag ((gint64) (ev->ptr - w->ptr)));
  put_var (b, ev->call_site_id);
  put_var (b, ev->call_site);
  put_var (b, ev->bytes_req);
  put_var (b, ev->bytes_alloc);
  put_var (b, ev->gfp);
  put_var (b, ev->gfp_id);
  put_var (b, ev->cache_id);
  put_var (b, ev->comm_id);
  put_var (b, zigzag (ev->pid));
  put_var (b, zigzag (ev->node));
  put_var (b, zigzag (ev->order));
  put_var (b, zigzag (ev->migratetype));
  put_var (b, zigzag (ev->accounted));
  put_var (b, ev->pfn);
  w->ts = ev->ts_ns;
  w->line = ev->line;
  w->ptr = ev->ptr;
  w->events++;
  if (++w->n == SIM_NATIVE_BLOCK_EVENTS)
    return flush_events (w, error);
  return TRUE;
}

gboolean
sim_native_writer_finish (SimNativeWriter *w, GError **error)
{
  if (!flush_events (w, error) || !flush_strings (w, error))
    return FALSE;
  const SimTraceStats *s = sim_trace_reader_stats (w->src);
  g_autoptr (GByteArray) b = g_byte_array_new ();
  put_var (b, w->events);
  put_var (b, s->lost_events);
  put_var (b, s->lost_markers);
  put_var (b, s->skipped_lines);
  put_var (b, s->malformed_lines);
  put_var (b, s->hashed_ptrs);
  put_var (b, s->raw_ptrs);
  /* other events, sorted by name so the file is deterministic */
  g_autoptr (GPtrArray) names = sim_trace_stats_other_names (s);
  put_var (b, names->len);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      put_var (b, strlen (name));
      g_byte_array_append (b, (const guint8 *) name, strlen (name));
      put_var (b, *(guint64 *) g_hash_table_lookup (s->other_events, name));
    }
  if (!write_block (w, BLOCK_TRAILER, 0, b->data, b->len, error))
    return FALSE;
  return g_output_stream_close (w->out, NULL, error);
}

void
sim_native_writer_free (SimNativeWriter *w)
{
  if (w == NULL)
    return;
  g_clear_object (&w->out);
  g_byte_array_unref (w->rec);
  g_free (w);
}

gboolean
sim_native_convert (const char *in_path, const char *out_path, gboolean lenient,
                    guint64 *events_out, GError **error)
{
  if (!sim_output_check (out_path, error))
    return FALSE;
  g_autoptr (SimTraceReader) r = sim_trace_reader_open (in_path, error);
  if (r == NULL)
    return FALSE;
  sim_trace_reader_set_lenient (r, lenient);
  /* Temporary file and rename (sim/core/output.h): a failure leaves an
   * older file of that name as it was. */
  SimOutput *file = sim_output_open (out_path, error);
  if (file == NULL)
    return FALSE;
  g_autoptr (GOutputStream) out = g_buffered_output_stream_new_sized (sim_output_stream (file),
                                                                      1 << 20);
  GError *local = NULL;   /* write errors: they name out_path */
  g_autoptr (SimNativeWriter) w = sim_native_writer_new (out, r, &local);
  SimTraceEvent ev;
  gboolean read_failed = FALSE;
  if (w != NULL)
    {
      while (sim_trace_reader_next (r, &ev, error))
        if (!sim_native_writer_add (w, &ev, &local))
          break;
      read_failed = local == NULL && error && *error;
      if (local == NULL && !read_failed)
        sim_native_writer_finish (w, &local);
    }
  g_clear_pointer (&w, sim_native_writer_free);
  g_clear_object (&out);
  if (read_failed || local)
    {
      if (local)
        g_set_error_literal (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, local->message);
      g_clear_error (&local);
      sim_output_abort (file);
      return FALSE;
    }
  if (!sim_output_commit (file, error))
    return FALSE;
  if (events_out)
    *events_out = sim_trace_reader_stats (r)->events;
  return TRUE;
}

/* ---- decoder ------------------------------------------------------------- */

#define NAT_ERR(r, fmt, ...)                                                    \
  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,               \
               "%s: block %" G_GUINT64_FORMAT " at byte %" G_GUINT64_FORMAT ": " fmt, \
               (r)->name, (r)->nat.block, (r)->nat.block_offset, __VA_ARGS__)

gboolean
sim_trace_native_open (SimTraceReader *r, GError **error)
{
  gssize n = sim_trace_reader_fill (r, HEADER_SIZE, error);
  if (n < 0)
    return FALSE;
  const guint8 *h = (const guint8 *) r->buf + r->pos;
  if (n < HEADER_SIZE || memcmp (h, magic, 8) != 0)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_FORMAT,
                   "%s: expected a slabsim native trace header (%d bytes starting \\x89SLABTR\\n)",
                   r->name, HEADER_SIZE);
      return FALSE;
    }
  guint32 version = get_u32 (h + 8), src = get_u32 (h + 12);
  if (version != SIM_NATIVE_VERSION)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                   "%s: native trace version %u, expected %u (convert the text trace again)",
                   r->name, version, SIM_NATIVE_VERSION);
      return FALSE;
    }
  r->source_format = (src >= SIM_TRACE_FORMAT_FTRACE && src <= SIM_TRACE_FORMAT_NATIVE)
                     ? (SimTraceFormat) src : SIM_TRACE_FORMAT_FTRACE;
  r->pos += HEADER_SIZE;
  return TRUE;
}

static inline gboolean
get_var (const guint8 **pp, const guint8 *e, guint64 *out)
{
  const guint8 *p = *pp;
  if (G_LIKELY (p < e && *p < 0x80))
    {
      *out = *p;
      *pp = p + 1;
      return TRUE;
    }
  guint64 v = 0;
  for (int shift = 0; shift < 64; shift += 7)
    {
      if (p >= e)
        return FALSE;
      guint8 c = *p++;
      v |= (guint64) (c & 0x7f) << shift;
      if (!(c & 0x80))
        {
          *out = v;
          *pp = p;
          return TRUE;
        }
    }
  return FALSE;
}

static gboolean
read_trailer (SimTraceReader *r, const guint8 *p, const guint8 *e, GError **error)
{
  SimTraceStats *s = &r->stats;
  guint64 events, nother;
  if (!get_var (&p, e, &events) || !get_var (&p, e, &s->lost_events) ||
      !get_var (&p, e, &s->lost_markers) || !get_var (&p, e, &s->skipped_lines) ||
      !get_var (&p, e, &s->malformed_lines) || !get_var (&p, e, &s->hashed_ptrs) ||
      !get_var (&p, e, &s->raw_ptrs) || !get_var (&p, e, &nother))
    {
      NAT_ERR (r, "%s", "expected the trailer's counters");
      return FALSE;
    }
  for (guint64 i = 0; i < nother; i++)
    {
      guint64 len, count;
      if (!get_var (&p, e, &len) || len > (guint64) (e - p))
        {
          NAT_ERR (r, "%s", "expected an event name in the trailer");
          return FALSE;
        }
      const char *name = (const char *) p;
      p += len;
      if (!get_var (&p, e, &count))
        {
          NAT_ERR (r, "%s", "expected an event count in the trailer");
          return FALSE;
        }
      sim_trace_stats_add_other (s, name, len, count);
    }
  if (p != e)
    {
      NAT_ERR (r, "%s", "unexpected bytes at the end of the trailer");
      return FALSE;
    }
  if (events != s->events)
    {
      NAT_ERR (r, "the trailer counts %" G_GUINT64_FORMAT " events, the file holds %"
               G_GUINT64_FORMAT, events, s->events);
      return FALSE;
    }
  return TRUE;
}

/* Read the next block header and payload; event blocks become current. */
static gboolean
next_block (SimTraceReader *r, GError **error)
{
  r->nat.block_offset = r->consumed + r->pos;
  r->nat.block++;
  gssize n = sim_trace_reader_fill (r, BLOCK_HEADER_SIZE, error);
  if (n < 0)
    return FALSE;
  if (n == 0)
    {
      NAT_ERR (r, "%s", "the file ends without its trailer block (truncated?)");
      return FALSE;
    }
  if (n < BLOCK_HEADER_SIZE)
    {
      NAT_ERR (r, "expected a %d-byte block header, the file ends after %" G_GSIZE_FORMAT
               " (truncated?)", BLOCK_HEADER_SIZE, (gsize) n);
      return FALSE;
    }
  const guint8 *h = (const guint8 *) r->buf + r->pos;
  guint8 type = h[0];
  guint32 len = get_u32 (h + 4), count = get_u32 (h + 8), crc = get_u32 (h + 12);
  if ((type != BLOCK_STRINGS && type != BLOCK_EVENTS && type != BLOCK_TRAILER) ||
      h[1] || h[2] || h[3])
    {
      NAT_ERR (r, "expected a block type S, E or T, found byte 0x%02x", type);
      return FALSE;
    }
  if (len > MAX_PAYLOAD)
    {
      NAT_ERR (r, "block length %u exceeds the limit of %u bytes", len, MAX_PAYLOAD);
      return FALSE;
    }
  n = sim_trace_reader_fill (r, BLOCK_HEADER_SIZE + (gsize) len, error);
  if (n < 0)
    return FALSE;
  if ((gsize) n < BLOCK_HEADER_SIZE + (gsize) len)
    {
      NAT_ERR (r, "the %c block needs %u payload bytes, the file ends after %" G_GSIZE_FORMAT
               " (truncated?)", type, len, (gsize) n - BLOCK_HEADER_SIZE);
      return FALSE;
    }
  const guint8 *p = (const guint8 *) r->buf + r->pos + BLOCK_HEADER_SIZE;
  const guint8 *e = p + len;
  r->pos += BLOCK_HEADER_SIZE + len;
  guint32 got = sim_native_crc32 (0, p, len);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  /* let the fuzzer past the checksum into the decoder */
  got = crc;
#endif
  if (got != crc)
    {
      NAT_ERR (r, "checksum mismatch in the %c block (stored %08x, computed %08x): the file is corrupt",
               type, crc, got);
      return FALSE;
    }
  switch (type)
    {
    case BLOCK_STRINGS:
      for (guint32 i = 0; i < count; i++)
        {
          guint64 sl;
          if (!get_var (&p, e, &sl) || sl > (guint64) (e - p))
            {
              NAT_ERR (r, "string %u runs past the end of the block", i);
              return FALSE;
            }
          sim_strtab_append (&r->strs, (const char *) p, sl);
          p += sl;
        }
      if (p != e)
        {
          NAT_ERR (r, "%s", "unexpected bytes after the block's strings");
          return FALSE;
        }
      return TRUE;
    case BLOCK_EVENTS:
      r->nat.p = p;
      r->nat.e = e;
      r->nat.left = count;
      r->nat.ts = r->nat.line = r->nat.ptr = 0;
      return TRUE;
    default:
      if (!read_trailer (r, p, e, error))
        return FALSE;
      r->nat.trailer = TRUE;
      if (sim_trace_reader_fill (r, 1, error) != 0)
        {
          if (error && *error == NULL)
            {
              r->nat.block++;
              r->nat.block_offset = r->consumed + r->pos;
              NAT_ERR (r, "%s", "unexpected data after the trailer block");
            }
          return FALSE;
        }
      return TRUE;
    }
}

gboolean
sim_trace_native_next (SimTraceReader *r, SimTraceEvent *ev, GError **error)
{
  while (r->nat.left == 0)
    {
      if (r->nat.p != r->nat.e)
        {
          NAT_ERR (r, "%s", "unexpected bytes after the block's records");
          return FALSE;
        }
      if (r->nat.trailer)
        {
          r->done = TRUE;
          return FALSE;
        }
      if (!next_block (r, error))
        return FALSE;
    }
  const guint8 *p = r->nat.p, *e = r->nat.e;
  guint64 v[19];
  if (p >= e)
    goto short_record;
  v[0] = *p++;
  for (int i = 1; i < 19; i++)
    if (!get_var (&p, e, &v[i]))
      goto short_record;
  if (v[0] >= SIM_TRACE_N_KINDS)
    {
      NAT_ERR (r, "record %" G_GUINT64_FORMAT ": expected an event kind below %d, found %u",
               r->nat.records, SIM_TRACE_N_KINDS, (guint) v[0]);
      return FALSE;
    }
  /* the writer stores the CPU as a 32-bit pattern: -1 (none) or 0..2^31-1 */
  if (v[1] > G_MAXINT32 && v[1] != G_MAXUINT32)
    {
      NAT_ERR (r, "record %" G_GUINT64_FORMAT ": expected a CPU number from 0 to %d "
               "(or none), found %" G_GUINT64_FORMAT, r->nat.records, G_MAXINT32, v[1]);
      return FALSE;
    }
  guint32 nstr = r->strs.strs->len;
  if (v[5] > nstr || v[10] > nstr || v[11] > nstr || v[12] > nstr)
    {
      NAT_ERR (r, "record %" G_GUINT64_FORMAT ": a string id exceeds the %u strings defined",
               r->nat.records, nstr);
      return FALSE;
    }
  r->nat.ts += (guint64) unzigzag (v[2]);
  r->nat.line += (guint64) unzigzag (v[3]);
  r->nat.ptr += (guint64) unzigzag (v[4]);
  ev->kind = (SimTraceKind) v[0];
  ev->cpu = (gint32) v[1];
  ev->ts_ns = r->nat.ts;
  ev->line = r->nat.line;
  ev->ptr = r->nat.ptr;
  ev->call_site_id = (guint32) v[5];
  ev->call_site = v[6];
  ev->bytes_req = v[7];
  ev->bytes_alloc = v[8];
  ev->gfp = (guint32) v[9];
  ev->gfp_id = (guint32) v[10];
  ev->cache_id = (guint32) v[11];
  ev->comm_id = (guint32) v[12];
  ev->pid = (gint32) unzigzag (v[13]);
  ev->node = (gint32) unzigzag (v[14]);
  ev->order = (gint32) unzigzag (v[15]);
  ev->migratetype = (gint32) unzigzag (v[16]);
  ev->accounted = (gint32) unzigzag (v[17]);
  ev->pfn = v[18];
  r->nat.p = p;
  r->nat.left--;
  r->nat.records++;
  r->stats.events++;
  r->stats.by_kind[ev->kind]++;
  return TRUE;

short_record:
  NAT_ERR (r, "record %" G_GUINT64_FORMAT " runs past the end of the block", r->nat.records);
  return FALSE;
}
