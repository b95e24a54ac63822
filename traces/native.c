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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
  /* The spool variant (native.h): records coded against the block's
   * previous record of their kind (all zero at a block's start). */
  gboolean        spool;
  SimTraceEvent   prev[SIM_TRACE_N_KINDS];
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
  if (w->spool)
    memset (w->prev, 0, sizeof w->prev);
  return TRUE;
}

static SimNativeWriter *
writer_new (GOutputStream *out, SimTraceReader *src, guint32 version, GError **error)
{
  guint8 h[HEADER_SIZE];
  memcpy (h, magic, 8);
  put_u32 (h + 8, version);
  put_u32 (h + 12, (guint32) sim_trace_reader_source_format (src));
  if (!g_output_stream_write_all (out, h, sizeof h, NULL, NULL, error))
    return NULL;
  SimNativeWriter *w = g_new0 (SimNativeWriter, 1);
  w->out = g_object_ref (out);
  w->src = src;
  w->rec_cap = SIM_NATIVE_BLOCK_EVENTS * 32;
  w->rec = g_malloc (w->rec_cap);
  w->spool = version == SIM_NATIVE_SPOOL_VERSION;
  return w;
}

SimNativeWriter *
sim_native_writer_new (GOutputStream *out, SimTraceReader *src, GError **error)
{
  return writer_new (out, src, SIM_NATIVE_VERSION, error);
}

SimNativeWriter *
sim_native_writer_new_spool (GOutputStream *out, SimTraceReader *src, GError **error)
{
  return writer_new (out, src, SIM_NATIVE_SPOOL_VERSION, error);
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

/* The spool's integers (native.h): a prefix varint, whose first byte's
 * trailing zeros say how many bytes follow, so that the reader takes it
 * from one load and a shift.  Stores 8 bytes at @p whatever the length
 * (the caller has room); the byte after it. */
static inline guint8 *
put_pvar_at (guint8 *p, guint64 v)
{
  if (v < 0x80)
    {
      *p = (guint8) (v << 1 | 1);
      return p + 1;
    }
  guint n = (guint) (64 - __builtin_clzll (v) + 6) / 7;     /* 7-bit groups: 2..10 */
  if (n > 8)
    {
      *p = 0;
      guint64 le = GUINT64_TO_LE (v);
      memcpy (p + 1, &le, 8);
      return p + 9;
    }
  guint64 w = GUINT64_TO_LE (v << n | G_GUINT64_CONSTANT (1) << (n - 1));
  memcpy (p, &w, 8);
  return p + n;
}

G_STATIC_ASSERT (G_STRUCT_OFFSET (SimTraceEvent, call_site) == 16
                 && G_STRUCT_OFFSET (SimTraceEvent, line) == 48
                 && G_STRUCT_OFFSET (SimTraceEvent, kind) == 56
                 && sizeof (SimTraceEvent) == 104);

/* The spool mask (native.h) of @ev against @prev: which of its 20 words
 * differ (four 16-byte compares on x86-64). */
static inline guint32
spool_mask (const SimTraceEvent *ev, const SimTraceEvent *prev)
{
  const guint8 *a = (const guint8 *) ev, *b = (const guint8 *) prev;
#ifdef __SSE2__
  guint32 m = 0;
  for (guint v = 0; v < 2; v++)
    {
      __m128i x = _mm_loadu_si128 ((const __m128i *) (gconstpointer) (a + 16 + 16 * v));
      __m128i y = _mm_loadu_si128 ((const __m128i *) (gconstpointer) (b + 16 + 16 * v));
      m |= (guint32) _mm_movemask_ps (_mm_castsi128_ps (_mm_cmpeq_epi32 (x, y))) << (4 * v);
    }
  for (guint v = 0; v < 3; v++)
    {
      __m128i x = _mm_loadu_si128 ((const __m128i *) (gconstpointer) (a + 56 + 16 * v));
      __m128i y = _mm_loadu_si128 ((const __m128i *) (gconstpointer) (b + 56 + 16 * v));
      m |= (guint32) _mm_movemask_ps (_mm_castsi128_ps (_mm_cmpeq_epi32 (x, y)))
           << (SIM_SPOOL_WORDS_LO + 4 * v);
    }
  return ~m & ((1u << SIM_SPOOL_MASK_BITS) - 1);
#else
  guint32 m = 0;
  for (guint j = 0; j < SIM_SPOOL_MASK_BITS; j++)
    {
      gsize off = j < SIM_SPOOL_WORDS_LO ? 16 + 4 * j : 56 + 4 * (j - SIM_SPOOL_WORDS_LO);
      m |= (guint32) (memcmp (a + off, b + off, 4) != 0) << j;
    }
  return m;
#endif
}

/* A spool record (native.h): the kind, the deltas of ts_ns, line and ptr,
 * the mask of the words that differ from @prev (the block's previous
 * record of this kind), and those words, lowest bit first; @prev becomes
 * this record. */
static inline guint8 *
put_spool_record (guint8 *p, const SimTraceEvent *ev, SimTraceEvent *prev, guint64 *ts,
                  guint64 *line, guint64 *ptr)
{
  *p++ = (guint8) ev->kind;
  p = put_pvar_at (p, zigzag ((gint64) (ev->ts_ns - *ts)));
  p = put_pvar_at (p, zigzag ((gint64) (ev->line - *line)));
  p = put_pvar_at (p, zigzag ((gint64) (ev->ptr - *ptr)));
  /* (the kind is the record's own; a block's first record of a kind
   * compares with zeros) */
  guint32 mask = spool_mask (ev, prev) & ~(1u << SIM_SPOOL_KIND_BIT);
  p = put_pvar_at (p, mask);
  const guint8 *w = (const guint8 *) ev;
  for (guint32 m = mask; m; m &= m - 1)
    {
      guint j = (guint) __builtin_ctz (m);
      guint32 v;
      memcpy (&v, w + (j < SIM_SPOOL_WORDS_LO ? 16 + 4 * j : 24 + 4 * j), 4);
      p = put_pvar_at (p, v);
    }
  *prev = *ev;
  *ts = ev->ts_ns;
  *line = ev->line;
  *ptr = ev->ptr;
  return p;
}

/* A record is a kind byte and 19 varints: room for the longest is made
 * first, so the varints are stored with no check a byte (the spool of
 * every text `run` goes through here).  A spool record is at most a kind
 * byte, four nine-byte prefix varints and 20 of five bytes (32-bit words),
 * the last stored as 8 bytes past its end at most: within the same room. */
#define RECORD_MAX (1 + 19 * VAR_MAX)
G_STATIC_ASSERT (1 + 4 * 9 + 20 * 5 + 8 <= RECORD_MAX);

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
          p = w->spool ? put_spool_record (p, &ev[i + k], &w->prev[ev[i + k].kind], &ts, &line,
                                           &ptr)
                       : put_record (p, &ev[i + k], &ts, &line, &ptr);
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

