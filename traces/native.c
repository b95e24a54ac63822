/* native.c - slabsim's native trace format: the writer (the decoder is the
 * reader's, traces/reader-native.c).
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
#include "sim/core/errors.h"

#include <string.h>

#define HEADER_SIZE SIM_NATIVE_HEADER_SIZE
#define BLOCK_HEADER_SIZE SIM_NATIVE_BLOCK_HEADER_SIZE
#define MAX_PAYLOAD SIM_NATIVE_MAX_PAYLOAD
enum { BLOCK_STRINGS = SIM_NATIVE_BLOCK_STRINGS, BLOCK_EVENTS = SIM_NATIVE_BLOCK_EVENTS_TYPE,
       BLOCK_TRAILER = SIM_NATIVE_BLOCK_TRAILER };
static const guint8 *const magic = (const guint8 *) SIM_NATIVE_MAGIC;
#define STRINGS_SPLIT (8u << 20)  /* a writer's S block stays well under MAX_PAYLOAD */

/* ---- little-endian and varints ------------------------------------------- */

static inline void
put_u32 (guint8 *p, guint32 v)
{
  p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}

#define VAR_MAX 10        /* bytes of a 64-bit varint */

/* Write @v at @p; the byte after it. */
static inline guint8 *
put_var_at (guint8 *p, guint64 v)
{
  while (v >= 0x80)
    {
      *p++ = (guint8) (v | 0x80);
      v >>= 7;
    }
  *p++ = (guint8) v;
  return p;
}

static inline void
put_var (GByteArray *b, guint64 v)
{
  guint8 tmp[VAR_MAX];
  g_byte_array_append (b, tmp, (guint) (put_var_at (tmp, v) - tmp));
}

static inline guint64
zigzag (gint64 v)
{
  return ((guint64) v << 1) ^ (guint64) (v >> 63);
}

/* ---- writer -------------------------------------------------------------- */

struct _SimNativeWriter {
  GOutputStream  *out;
  SimTraceReader *src;
  guint8         *rec;       /* the current event block's payload */
  gsize           rec_len, rec_cap;
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
      gsize len = sim_trace_reader_string_len (w->src, id);
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
      !write_block (w, BLOCK_EVENTS, w->n, w->rec, w->rec_len, error))
    return FALSE;
  w->rec_len = 0;
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
  w->rec_cap = SIM_NATIVE_BLOCK_EVENTS * 32;
  w->rec = g_malloc (w->rec_cap);
  return w;
}

/* One record at @p (room for the longest made), the predictors in
 * *@ts, *@line, *@ptr; the byte after it. */
static inline guint8 *
put_record (guint8 *p, const SimTraceEvent *ev, guint64 *ts, guint64 *line, guint64 *ptr)
{
  *p++ = (guint8) ev->kind;
  p = put_var_at (p, (guint32) ev->cpu);
  p = put_var_at (p, zigzag ((gint64) (ev->ts_ns - *ts)));
  p = put_var_at (p, zigzag ((gint64) (ev->line - *line)));
  p = put_var_at (p, zigzag ((gint64) (ev->ptr - *ptr)));
  p = put_var_at (p, ev->call_site_id);
  p = put_var_at (p, ev->call_site);
  p = put_var_at (p, ev->bytes_req);
  p = put_var_at (p, ev->bytes_alloc);
  p = put_var_at (p, ev->gfp);
  p = put_var_at (p, ev->gfp_id);
  p = put_var_at (p, ev->cache_id);
  p = put_var_at (p, ev->comm_id);
  p = put_var_at (p, zigzag (ev->pid));
  p = put_var_at (p, zigzag (ev->node));
  p = put_var_at (p, zigzag (ev->order));
  p = put_var_at (p, zigzag (ev->migratetype));
  p = put_var_at (p, zigzag (ev->accounted));
  p = put_var_at (p, ev->pfn);
  *ts = ev->ts_ns;
  *line = ev->line;
  *ptr = ev->ptr;
  return p;
}

/* A record is a kind byte and 19 varints: room for the longest is made
 * first, so the varints are stored with no check a byte (the spool of
 * every text `run` goes through here). */
#define RECORD_MAX (1 + 19 * VAR_MAX)

gboolean
sim_native_writer_add (SimNativeWriter *w, const SimTraceEvent *ev, GError **error)
{
  return sim_native_writer_add_many (w, ev, 1, error);
}

gboolean
sim_native_writer_add_many (SimNativeWriter *w, const SimTraceEvent *ev, guint n,
                            GError **error)
{
  /* The block's state in locals for the run of records up to its end:
   * the same bytes as one call a record. */
  guint i = 0;
  while (i < n)
    {
      guint room = SIM_NATIVE_BLOCK_EVENTS - w->n;
      guint take = MIN (room, n - i);
      guint8 *p = w->rec + w->rec_len;
      guint64 ts = w->ts, line = w->line, ptr = w->ptr;
      for (guint k = 0; k < take; k++)
        {
          if (G_UNLIKELY (w->rec_cap - (gsize) (p - w->rec) < RECORD_MAX))
            {
              gsize at = (gsize) (p - w->rec);
              w->rec_cap *= 2;
              w->rec = g_realloc (w->rec, w->rec_cap);
              p = w->rec + at;
            }
          p = put_record (p, &ev[i + k], &ts, &line, &ptr);
        }
      w->ts = ts, w->line = line, w->ptr = ptr;
      w->rec_len = (gsize) (p - w->rec);
      w->events += take;
      w->n += take;
      i += take;
      if (w->n == SIM_NATIVE_BLOCK_EVENTS && !flush_events (w, error))
        return FALSE;
    }
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
  g_free (w->rec);
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
  return sim_native_convert_reader (r, out_path, events_out, error);
}

gboolean
sim_native_convert_reader (SimTraceReader *r, const char *out_path, guint64 *events_out,
                           GError **error)
{
  /* Temporary file and rename (sim/core/output.h): a failure leaves an
   * older file of that name as it was. */
  SimOutput *file = sim_output_open (out_path, error);
  if (file == NULL)
    return FALSE;
  g_autoptr (GOutputStream) out = g_buffered_output_stream_new_sized (sim_output_stream (file),
                                                                      1 << 20);
  GError *local = NULL;   /* write errors: they name out_path */
  GError *read_error = NULL;   /* the trace's (seen even when the caller passes no @error) */
  g_autoptr (SimNativeWriter) w = sim_native_writer_new (out, r, &local);
  SimTraceEvent ev;
  gboolean read_failed = FALSE;
  if (w != NULL)
    {
      while (sim_trace_reader_next (r, &ev, &read_error))
        if (!sim_native_writer_add (w, &ev, &local))
          break;
      read_failed = local == NULL && read_error != NULL;
      if (local == NULL && !read_failed)
        sim_native_writer_finish (w, &local);
    }
  g_clear_pointer (&w, sim_native_writer_free);
  g_clear_object (&out);
  if (read_failed || local)
    {
      if (local)
        g_set_error_literal (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, local->message);
      else
        g_propagate_error (error, g_steal_pointer (&read_error));
      g_clear_error (&read_error);
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

