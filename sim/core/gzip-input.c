/* gzip-input.c - every member of a gzip stream; see gzip-input.h.
 *
 * Our own input buffer in front of one GZlibDecompressor: when a member
 * ends (G_CONVERTER_FINISHED), the bytes after it are still ours, so the
 * next member's header can be checked and the decompressor reset for it.
 * (A GConverterInputStream keeps what it read ahead to itself and drops it
 * at the end of the first member.)
 */
#include "sim/core/gzip-input.h"

#include <string.h>

#define IN_CHUNK (64 * 1024)

#define SIM_TYPE_GZIP_INPUT (sim_gzip_input_get_type ())
G_DECLARE_FINAL_TYPE (SimGzipInput, sim_gzip_input, SIM, GZIP_INPUT, GInputStream)

struct _SimGzipInput {
  GInputStream parent;
  GInputStream *base;
  GConverter *z;
  guchar *buf;                   /* IN_CHUNK bytes of compressed input */
  gsize pos, len;                /* unread bytes: buf[pos..len) */
  guint64 consumed;              /* bytes of base before buf[pos]: offsets in messages */
  gboolean base_eof;
  gboolean between;              /* a member ended; the next has not begun */
  gboolean done;
  guint members;
};

G_DEFINE_TYPE (SimGzipInput, sim_gzip_input, G_TYPE_INPUT_STREAM)

/* Move the unread bytes to the front and read more after them. */
static gssize
refill (SimGzipInput *s, GCancellable *cancellable, GError **error)
{
  g_assert (s->len - s->pos < IN_CHUNK);   /* called only when the input is (nearly) used up */
  if (s->pos > 0)
    {
      memmove (s->buf, s->buf + s->pos, s->len - s->pos);
      s->len -= s->pos;
      s->pos = 0;
    }
  gssize n = g_input_stream_read (s->base, s->buf + s->len, IN_CHUNK - s->len, cancellable,
                                  error);
  if (n < 0)
    return -1;
  if (n == 0)
    s->base_eof = TRUE;
  s->len += (gsize) n;
  return n;
}

static void
advance (SimGzipInput *s, gsize n)
{
  s->pos += n;
  s->consumed += n;
}

/* Between members: skip zero padding; TRUE with s->done, or with the next
 * member begun. */
static gboolean
next_member (SimGzipInput *s, GCancellable *cancellable, GError **error)
{
  for (;;)
    {
      while (s->pos < s->len && s->buf[s->pos] == 0)
        advance (s, 1);
      gsize avail = s->len - s->pos;
      if (avail >= 2 || (s->base_eof && avail > 0))
        break;
      if (s->base_eof)
        {
          s->done = TRUE;
          return TRUE;
        }
      if (refill (s, cancellable, error) < 0)
        return FALSE;
    }
  if (s->len - s->pos < 2 || s->buf[s->pos] != 0x1f || s->buf[s->pos + 1] != 0x8b)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "data that is not gzip after gzip member %u, at byte %" G_GUINT64_FORMAT,
                   s->members, s->consumed);
      return FALSE;
    }
  g_converter_reset (s->z);
  s->between = FALSE;
  s->members++;
  return TRUE;
}

static gssize
gz_read (GInputStream *stream, void *buffer, gsize count, GCancellable *cancellable,
         GError **error)
{
  SimGzipInput *s = SIM_GZIP_INPUT (stream);
  for (;;)
    {
      if (s->done)
        return 0;
      if (s->between)
        {
          if (!next_member (s, cancellable, error))
            return -1;
          continue;
        }
      if (s->pos == s->len && !s->base_eof && refill (s, cancellable, error) < 0)
        return -1;
      gsize rd = 0, wr = 0;
      GError *local = NULL;
      GConverterResult res = g_converter_convert (s->z, s->buf + s->pos, s->len - s->pos,
                                                  buffer, count,
                                                  s->base_eof ? G_CONVERTER_INPUT_AT_END : 0,
                                                  &rd, &wr, &local);
      if (res == G_CONVERTER_ERROR)
        {
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) && !s->base_eof)
            {
              g_clear_error (&local);
              if (refill (s, cancellable, error) < 0)
                return -1;
              continue;
            }
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
            {
              g_clear_error (&local);
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT,
                           "gzip data ends in the middle of member %u (truncated file?)",
                           s->members);
              return -1;
            }
          g_propagate_error (error, local);
          return -1;
        }
      advance (s, rd);
      if (res == G_CONVERTER_FINISHED)
        s->between = TRUE;
      if (wr > 0)
        return (gssize) wr;
    }
}

static gboolean
gz_close (GInputStream *stream, GCancellable *cancellable, GError **error)
{
  return g_input_stream_close (SIM_GZIP_INPUT (stream)->base, cancellable, error);
}

static void
gz_finalize (GObject *object)
{
  SimGzipInput *s = SIM_GZIP_INPUT (object);
  g_clear_object (&s->base);
  g_clear_object (&s->z);
  g_free (s->buf);
  G_OBJECT_CLASS (sim_gzip_input_parent_class)->finalize (object);
}

static void
sim_gzip_input_class_init (SimGzipInputClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gz_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = gz_read;
  G_INPUT_STREAM_CLASS (klass)->close_fn = gz_close;
}

static void
sim_gzip_input_init (SimGzipInput *s)
{
  s->buf = g_malloc (IN_CHUNK);
}

GInputStream *
sim_gzip_input_new (GInputStream *base)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (base), NULL);
  SimGzipInput *s = g_object_new (SIM_TYPE_GZIP_INPUT, NULL);
  s->base = g_object_ref (base);
  s->z = G_CONVERTER (g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP));
  s->members = 1;
  return G_INPUT_STREAM (s);
}

guint
sim_gzip_input_members (GInputStream *stream)
{
  g_return_val_if_fail (SIM_IS_GZIP_INPUT (stream), 0);
  return SIM_GZIP_INPUT (stream)->members;
}
