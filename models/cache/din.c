/* din.c - see din.h.  Reads through GIO so that a gzip stream and a plain
 * file (or a pipe) share one code path: GFileInputStream or stdin, sniffed
 * through a GBufferedInputStream, wrapped in a decompressor of every gzip
 * member (sim/core/gzip-input.h) when the first two bytes are gzip's magic. */
#include "models/cache/din.h"
#include "sim/core/errors.h"
#include "sim/core/gzip-input.h"

#include <gio/gio.h>
#include <string.h>

#define DIN_BUF (1u << 20)

/* Hex digit value plus one; 0 for anything else (zero-filled by default). */
static const guint8 hexval1[256] = {
  ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
  ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
  ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

/* Parse a hex number at *p; FALSE if there is none or it overflows 64 bits. */
static inline gboolean
parse_hex (const char **pp, const char *end, guint64 *out)
{
  const char *p = *pp;
  if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')
      && hexval1[(guint8) p[2]] != 0)
    p += 2;
  const char *start = p;
  guint64 v = 0;
  while (p < end)
    {
      guint8 d1 = hexval1[(guint8) *p];
      if (d1 == 0)
        break;
      guint8 d = (guint8) (d1 - 1);
      if (v >> 60)
        return FALSE;
      v = (v << 4) | d;
      p++;
    }
  if (p == start || (p < end && !is_blank (*p)))
    return FALSE;
  *pp = p;
  *out = v;
  return TRUE;
}

int
sim_din_parse_line (const char *p, const char *end, SimDinRecord *rec,
                    const char **what)
{
  while (p < end && is_blank (*p))
    p++;
  if (p == end || *p == '#')
    return 1;
  switch (*p)
    {
    case 'r': case '0': rec->op = SIM_DIN_READ; break;
    case 'w': case '1': rec->op = SIM_DIN_WRITE; break;
    case 'i': case '2': rec->op = SIM_DIN_IFETCH; break;
    case 'm': rec->op = SIM_DIN_RMW; break;
    default:
      *what = "an operation r, w, i, m (or Dinero's 0, 1, 2)";
      return -1;
    }
  p++;
  if (p == end)
    {
      *what = "a hexadecimal address after the operation";
      return -1;
    }
  if (!is_blank (*p))
    {
      *what = "an operation r, w, i, m (or Dinero's 0, 1, 2) followed by a blank";
      return -1;
    }
  while (p < end && is_blank (*p))
    p++;
  if (p == end)
    {
      *what = "a hexadecimal address";
      return -1;
    }
  if (!parse_hex (&p, end, &rec->addr))
    {
      *what = "a hexadecimal address of at most 64 bits";
      return -1;
    }
  while (p < end && is_blank (*p))
    p++;
  guint64 size;
  if (p == end)
    {
      *what = "a hexadecimal size after the address";
      return -1;
    }
  if (!parse_hex (&p, end, &size) || size == 0 || size > G_MAXUINT32)
    {
      *what = "a hexadecimal size between 1 and ffffffff";
      return -1;
    }
  rec->size = (guint32) size;
  while (p < end && is_blank (*p))
    p++;
  rec->cpu = 0;
  if (p < end && *p != '#')
    {
      guint64 cpu = 0;
      const char *start = p;
      while (p < end && *p >= '0' && *p <= '9' && cpu < G_MAXUINT32)
        cpu = cpu * 10 + (guint64) (*p++ - '0');
      if (p == start || cpu >= G_MAXUINT32 || (p < end && !is_blank (*p)))
        {
          *what = "a decimal CPU number as the optional fourth field";
          return -1;
        }
      rec->cpu = (guint32) cpu;
      while (p < end && is_blank (*p))
        p++;
      if (p < end && *p != '#')
        {
          *what = "at most four fields (OP ADDR SIZE [CPU])";
          return -1;
        }
    }
  return 0;
}

/* The common shape "OP HEX HEX[ DEC]\n" with single blanks and no 0x,
 * parsed without looking for the newline first.  Anything else (and every
 * error) goes to sim_din_parse_line.  Needs 48 readable bytes at *pp. */
static inline gboolean
fast_line (const char **pp, SimDinRecord *rec)
{
  const char *q = *pp;
  switch (q[0])
    {
    case 'r': case '0': rec->op = SIM_DIN_READ; break;
    case 'w': case '1': rec->op = SIM_DIN_WRITE; break;
    case 'i': case '2': rec->op = SIM_DIN_IFETCH; break;
    case 'm': rec->op = SIM_DIN_RMW; break;
    default: return FALSE;
    }
  if (q[1] != ' ')
    return FALSE;
  q += 2;
  guint64 a = 0;
  guint n = 0;
  guint8 d;
  while (n < 16 && (d = hexval1[(guint8) *q]) != 0)
    {
      a = (a << 4) | (guint) (d - 1);
      q++;
      n++;
    }
  if (n == 0 || *q != ' ')
    return FALSE;
  q++;
  guint32 size = 0;
  n = 0;
  while (n < 8 && (d = hexval1[(guint8) *q]) != 0)
    {
      size = (size << 4) | (guint) (d - 1);
      q++;
      n++;
    }
  if (n == 0 || size == 0)
    return FALSE;
  guint32 cpu = 0;
  if (*q == ' ')
    {
      q++;
      n = 0;
      while (n < 9 && *q >= '0' && *q <= '9')
        {
          cpu = cpu * 10 + (guint32) (*q - '0');
          q++;
          n++;
        }
      if (n == 0)
        return FALSE;
    }
  if (*q != '\n')
    return FALSE;
  rec->addr = a;
  rec->size = size;
  rec->cpu = cpu;
  *pp = q + 1;
  return TRUE;
}

static GInputStream *
open_stream (const char *path, GError **error)
{
  /* /dev/stdin keeps us off gio-unix, which the build does not link. */
  g_autoptr (GFile) f = g_file_new_for_path (strcmp (path, "-") == 0 ? "/dev/stdin" : path);
  GInputStream *base = G_INPUT_STREAM (g_file_read (f, NULL, error));
  if (base == NULL)
    return NULL;
  GInputStream *buffered = g_buffered_input_stream_new_sized (base, 64 * 1024);
  g_object_unref (base);
  if (g_buffered_input_stream_fill (G_BUFFERED_INPUT_STREAM (buffered), 2, NULL, error) < 0)
    {
      g_object_unref (buffered);
      return NULL;
    }
  gsize avail = 0;
  const guint8 *peek = g_buffered_input_stream_peek_buffer (G_BUFFERED_INPUT_STREAM (buffered),
                                                           &avail);
  if (avail >= 2 && peek[0] == 0x1f && peek[1] == 0x8b)
    {
      GInputStream *conv = sim_gzip_input_new (buffered);   /* every member */
      g_object_unref (buffered);
      return conv;
    }
  return buffered;
}

gboolean
sim_din_read (const char *path, SimDinFunc fn, gpointer user_data,
              guint64 *n_lines, GError **error)
{
  const char *name = strcmp (path, "-") == 0 ? "<stdin>" : path;
  GError *local = NULL;
  g_autoptr (GInputStream) in = open_stream (path, &local);
  if (in == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: %s", name, local->message);
      g_error_free (local);
      return FALSE;
    }
  /* Lines never span reads: the unfinished tail moves to the front. */
  g_autofree char *buf = g_malloc (DIN_BUF);
  gsize have = 0;
  guint64 line = 0;
  gboolean eof = FALSE, ok = TRUE;
  while (ok && !eof)
    {
      if (have == DIN_BUF)
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                       "%s:%" G_GUINT64_FORMAT ": line longer than %u bytes",
                       name, line + 1, DIN_BUF);
          return FALSE;
        }
      gssize n = g_input_stream_read (in, buf + have, DIN_BUF - have, NULL, &local);
      if (n < 0)
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                       "%s:%" G_GUINT64_FORMAT ": %s (truncated or corrupt input?)",
                       name, line + 1, local->message);
          g_error_free (local);
          return FALSE;
        }
      eof = n == 0;
      have += (gsize) n;
      const char *p = buf, *end = buf + have;
      for (;;)
        {
          SimDinRecord rec;
          if (end - p >= 48 && fast_line (&p, &rec))
            {
              /* 48 bytes hold any line the fast path accepts, so it never
               * reads past the buffer. */
              line++;
              if (!fn (&rec, line, user_data, error))
                {
                  ok = FALSE;
                  break;
                }
              continue;
            }
          const char *nl = memchr (p, '\n', (gsize) (end - p));
          if (nl == NULL)
            {
              if (!eof || p == end)
                break;
              nl = end;   /* a last line without its newline */
            }
          line++;
          const char *what = NULL;
          int r = sim_din_parse_line (p, nl, &rec, &what);
          if (r < 0)
            {
              g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                           "%s:%" G_GUINT64_FORMAT ": expected %s", name, line, what);
              return FALSE;
            }
          if (r == 0 && !fn (&rec, line, user_data, error))
            {
              ok = FALSE;
              break;
            }
          p = nl < end ? nl + 1 : end;
        }
      have = (gsize) (end - p);
      memmove (buf, p, have);
    }
  if (n_lines)
    *n_lines = line;
  return ok;
}
