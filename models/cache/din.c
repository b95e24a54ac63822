/* din.c - see din.h.  Reads through GIO so that a gzip stream and a plain
 * file (or a pipe) share one code path: GFileInputStream or stdin, sniffed
 * through a GBufferedInputStream, wrapped in a decompressor of every gzip
 * member (sim/core/gzip-input.h) when the first two bytes are gzip's magic.
 * Batched reading (cachesim's) parses a plain regular file in place from a
 * mapping instead (parse_mapped): the same lines, records and errors
 * without the copy into a buffer; a file truncated by another process
 * while it is read is an error there, never a SIGBUS (see map_plain).
 *
 * One parse loop (parse_lines) serves both interfaces: sim_din_read calls
 * its function per record; sim_din_read_batches fills arrays of SimMemRef
 * and hands them to the consumer directly, or through a ring of DIN_RING
 * batches from a reader thread.  In the ring, the reader publishes a batch
 * by counting it produced and the consumer frees it by counting it consumed,
 * both under one mutex; an error of the reader is kept until the consumer
 * has taken every batch before it, so that the first error in trace order
 * is the one reported, as without the thread. */
#include "models/cache/din.h"
#include "sim/core/errors.h"
#include "sim/core/gzip-input.h"

#include <gio/gio.h>
#include <string.h>
#ifdef G_OS_UNIX
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#if defined (__SSE2__)
#include <emmintrin.h>
#endif

#define DIN_BUF (1u << 20)

/* Batched reading: accesses per batch (64 KiB of SimMemRef), and how many
 * batches the reader thread may be ahead of the replay.  A batch is handed
 * over under a mutex, so the hand-over costs nothing next to 4096 accesses;
 * the ring is small enough to stay in the host's caches. */
#define DIN_BATCH 4096
#define DIN_RING  8

#define ALWAYS_INLINE inline __attribute__ ((always_inline))

G_STATIC_ASSERT (SIM_MACHINE_MAX_CPUS <= G_MAXUINT16);
G_STATIC_ASSERT ((int) SIM_DIN_READ == (int) SIM_ACC_READ
                 && (int) SIM_DIN_WRITE == (int) SIM_ACC_WRITE
                 && (int) SIM_DIN_RMW == (int) SIM_ACC_RMW);

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

/* The operation letters' SimDinOp plus one; 0 for anything else. */
static const guint8 opval1[256] = {
  ['r'] = SIM_DIN_READ + 1, ['0'] = SIM_DIN_READ + 1,
  ['w'] = SIM_DIN_WRITE + 1, ['1'] = SIM_DIN_WRITE + 1,
  ['i'] = SIM_DIN_IFETCH + 1, ['2'] = SIM_DIN_IFETCH + 1,
  ['m'] = SIM_DIN_RMW + 1,
};

/* Hex digit value; 0xff for anything else. */
static const guint8 hexval[256] = {
#define X16 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, \
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
  X16, X16, X16,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  X16,
  0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  X16, X16, X16, X16, X16, X16, X16, X16, X16
#undef X16
};

/* Up to @max hex digits at @q (no 0x) into *@out; returns the end of the
 * digits (@q itself when there are none).  Unrolled: a digit costs a table
 * load, a test and a shift-or, with no counter. */
static ALWAYS_INLINE const char *
hex_digits (const char *q, guint max, guint64 *out)
{
  guint64 v = 0;
#pragma GCC unroll 16
  for (guint i = 0; i < max; i++)
    {
      guint64 d = hexval[(guint8) q[i]];
      if (d > 15)
        {
          *out = v;
          return q + i;
        }
      v = (v << 4) | d;
    }
  *out = v;
  return q + max;
}

#if defined (__SSE2__) && G_BYTE_ORDER == G_LITTLE_ENDIAN
/* Up to 16 hex digits at @q, as hex_digits (q, 16, out), with SSE2 (every
 * x86-64): the digits are found and converted sixteen bytes at a time, in
 * about 30 instructions whatever their number, against 7 a digit one by one
 * (an address is 7 to 12 digits in the traces cachesim is given).  Reads 16
 * bytes at @q. */
static inline const char *
hex_digits16 (const char *q, guint64 *out)
{
  __m128i c = _mm_loadu_si128 ((const __m128i *) q);
  /* Bytes >= 0x80 are negative to the signed compares and match neither. */
  __m128i dig = _mm_and_si128 (_mm_cmpgt_epi8 (c, _mm_set1_epi8 ('0' - 1)),
                               _mm_cmpgt_epi8 (_mm_set1_epi8 ('9' + 1), c));
  __m128i l = _mm_or_si128 (c, _mm_set1_epi8 (0x20));     /* A-F -> a-f */
  __m128i alp = _mm_and_si128 (_mm_cmpgt_epi8 (l, _mm_set1_epi8 ('a' - 1)),
                               _mm_cmpgt_epi8 (_mm_set1_epi8 ('f' + 1), l));
  guint m = (guint) _mm_movemask_epi8 (_mm_or_si128 (dig, alp));
  guint nd = (guint) __builtin_ctz (~m);                    /* bit 16 of ~m is set */
  if (nd == 0)
    return q;
  /* Digit values: the low nibble, plus 9 for a letter. */
  __m128i v = _mm_add_epi8 (_mm_and_si128 (c, _mm_set1_epi8 (0x0f)),
                            _mm_and_si128 (alp, _mm_set1_epi8 (9)));
  /* Pairs of digits into bytes, the first digit high: 16 digits -> 8 bytes. */
  __m128i pair = _mm_and_si128 (_mm_or_si128 (_mm_slli_epi16 (v, 4), _mm_srli_epi16 (v, 8)),
                                _mm_set1_epi16 (0x00ff));
  guint64 packed = (guint64) _mm_cvtsi128_si64 (_mm_packus_epi16 (pair, pair));
  /* The first digit is in the lowest byte: swap, then drop what follows the
   * digits (nd >= 1, so the shift is below 64). */
  *out = GUINT64_SWAP_LE_BE (packed) >> (4 * (16 - nd));
  return q + nd;
}
#else
static inline const char *
hex_digits16 (const char *q, guint64 *out)
{
  return hex_digits (q, 16, out);
}
#endif

/* The common shape "OP HEX HEX[ DEC]\n" with single blanks and no 0x,
 * parsed without looking for the newline first.  Anything else (and every
 * error) goes to sim_din_parse_line.  Needs 48 readable bytes at *pp. */
static inline gboolean
fast_line (const char **pp, SimDinRecord *rec)
{
  const char *q = *pp;
  guint op1 = opval1[(guint8) q[0]];
  if (op1 == 0 || q[1] != ' ')
    return FALSE;
  guint64 a, size;
  const char *e = hex_digits16 (q + 2, &a);
  if (e == q + 2 || *e != ' ')
    return FALSE;
  q = e + 1;
  e = hex_digits (q, 8, &size);
  if (e == q || size == 0)
    return FALSE;
  q = e;
  guint32 cpu = 0;
  if (*q == ' ')
    {
      q++;
      guint n = 0;
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
  rec->op = (SimDinOp) (op1 - 1);
  rec->addr = a;
  rec->size = (guint32) size;
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

/* Where a record goes: FALSE stops the parse (with @error set, or not when
 * the consumer stopped it, see Batcher.stopped). */
typedef gboolean (*Sink) (gpointer ctx, const SimDinRecord *rec, guint64 line, GError **error);

/* The lines of [*@pp, @end) that end in a newline (and, when @eof, a last
 * one without it), each record handed to @sink; *@pp is left at the first
 * line not parsed.  FALSE on an error (or a stop by the sink).  A line of
 * @max_line bytes or more is an error, as the stream's buffer makes it
 * (parse_stream passes G_MAXSIZE and checks its buffer itself).
 * ALWAYS_INLINE with a constant @sink, so that each caller gets its own copy
 * with the sink inlined (no indirect call per record).  *@line counts
 * lines. */
static ALWAYS_INLINE gboolean
parse_lines (const char **pp, const char *end, gboolean eof, gsize max_line, const char *name,
             Sink sink, gpointer ctx, guint64 *line_io, GError **error)
{
  const char *p = *pp;
  guint64 line = *line_io;
  gboolean ok = TRUE;
  for (;;)
    {
      /* rec's address never escapes (the slow path has its own), so
       * the compiler keeps it in registers. */
      SimDinRecord rec, slow;
      if (end - p >= 48 && fast_line (&p, &rec))
        {
          /* 48 bytes hold any line the fast path accepts, so it never
           * reads past the buffer. */
          line++;
          if (!sink (ctx, &rec, line, error))
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
      if (G_UNLIKELY ((gsize) (nl - p) >= max_line))
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                       "%s:%" G_GUINT64_FORMAT ": line longer than %u bytes",
                       name, line + 1, DIN_BUF);
          ok = FALSE;
          break;
        }
      line++;
      const char *what = NULL;
      int r = sim_din_parse_line (p, nl, &slow, &what);
      if (r < 0)
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                       "%s:%" G_GUINT64_FORMAT ": expected %s", name, line, what);
          ok = FALSE;
          break;
        }
      if (r == 0 && !sink (ctx, &slow, line, error))
        {
          ok = FALSE;
          break;
        }
      p = nl < end ? nl + 1 : end;
    }
  *pp = p;
  *line_io = line;
  return ok;
}

/* Read @in to its end, handing every record to @sink (parse_lines). */
static ALWAYS_INLINE gboolean
parse_stream (GInputStream *in, const char *name, Sink sink, gpointer ctx, guint64 *line_out,
              GError **error)
{
  /* Lines never span reads: the unfinished tail moves to the front. */
  g_autofree char *buf = g_malloc (DIN_BUF);
  gsize have = 0;
  guint64 line = 0;
  gboolean eof = FALSE, ok = TRUE;
  GError *local = NULL;
  while (ok && !eof)
    {
      if (have == DIN_BUF)
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                       "%s:%" G_GUINT64_FORMAT ": line longer than %u bytes",
                       name, line + 1, DIN_BUF);
          ok = FALSE;
          break;
        }
      gssize n = g_input_stream_read (in, buf + have, DIN_BUF - have, NULL, &local);
      if (n < 0)
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                       "%s:%" G_GUINT64_FORMAT ": %s (truncated or corrupt input?)",
                       name, line + 1, local->message);
          g_error_free (local);
          ok = FALSE;
          break;
        }
      eof = n == 0;
      have += (gsize) n;
      const char *p = buf, *end = buf + have;
      ok = parse_lines (&p, end, eof, G_MAXSIZE, name, sink, ctx, &line, error);
      have = (gsize) (end - p);
      memmove (buf, p, have);
    }
  *line_out = line;
  return ok;
}

#ifdef G_OS_UNIX
/* A plain file read in place from a mapping (map_plain): no copy into a
 * buffer (the kernel's copy was a fifth of the reader's time on a plain
 * trace; read() into a reused buffer measured +25 % CPU, all of it system
 * time, docs/perf/tidy-12.md).  The file is parsed a window at a time, and
 * each window's pages are dropped from the mapping once parsed, so that the
 * resident set stays a window's size; the page cache keeps them, as after a
 * read.
 *
 * A file that another process truncates while it is read here would end
 * the process with SIGBUS (a page of the mapping past the new end of the
 * file): instead it is an error, "file shrank while being read", at the
 * first byte whose line was not handed over, with every record before it
 * handed over, as for a bad line.  Two guards make it so:
 * - before each window, fstat: a file now shorter is read to its new size,
 *   never its unfinished last line, and the error follows;
 * - during a window, a SIGBUS handler (din_sigbus; installed for the
 *   process when a file is mapped, passing any other SIGBUS on) that finds the fault inside the
 *   window its thread is reading maps zero pages over the rest of the
 *   mapping and returns: the load is retried and reads zeros, which no line
 *   accepts (a line ends in a newline, and a NUL is no field), so the parse
 *   stops at the line the truncation cut, and the error follows.
 * A truncation inside the last page, which the kernel zero-fills without a
 * fault, stops the parse the same way, and the fstat after the window tells
 * it from a bad line.  A file that grows is read to its size when opened. */
#include <signal.h>
#define DIN_WINDOW (4u << 20)
/* A window ends inside a line at most DIN_BUF long, so each one starts past
 * the one before. */
G_STATIC_ASSERT (DIN_WINDOW > DIN_BUF);

typedef struct {
  const char  *base;
  gsize        size;    /* the file's size when mapped */
  gsize        page;    /* the host's page size (a power of two) */
  int          fd;      /* kept open for fstat */
  /* Written by din_sigbus on the reading thread. */
  volatile sig_atomic_t faulted;
} Mapped;

/* The mapping the current thread is parsing, for din_sigbus (one a thread:
 * several readers may run at once). */
static __thread Mapped *din_reading;
static struct sigaction din_prev_sigbus;

static void
din_sigbus (int sig, siginfo_t *si, void *uc)
{
  Mapped *mf = din_reading;
  const char *a = si->si_addr;
  if (mf != NULL && si->si_code == BUS_ADRERR && a >= mf->base && a < mf->base + mf->size)
    {
      /* The rest of the mapping, from the faulting page, becomes zeros. */
      gsize from = (gsize) (a - mf->base) & ~(mf->page - 1);
      gsize len = ((mf->size + mf->page - 1) & ~(mf->page - 1)) - from;
      if (mmap ((void *) (mf->base + from), len, PROT_READ,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
        {
          mf->faulted = 1;
          return;
        }
    }
  /* Not ours: what was there before.  The default (or ignoring it) would
   * loop on the fault: restore it and return, the fault repeats and ends
   * the process as it would have without us. */
  if (din_prev_sigbus.sa_flags & SA_SIGINFO)
    din_prev_sigbus.sa_sigaction (sig, si, uc);
  else if (din_prev_sigbus.sa_handler != SIG_DFL && din_prev_sigbus.sa_handler != SIG_IGN)
    din_prev_sigbus.sa_handler (sig);
  else
    signal (SIGBUS, SIG_DFL);
}

/* Install din_sigbus unless it is the handler already (someone, e.g. a test
 * harness, may have replaced it since the last trace). */
static void
install_sigbus (void)
{
  static GMutex lock;
  g_mutex_lock (&lock);
  struct sigaction cur;
  if (sigaction (SIGBUS, NULL, &cur) == 0
      && !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == din_sigbus))
    {
      struct sigaction sa;
      memset (&sa, 0, sizeof sa);
      sa.sa_sigaction = din_sigbus;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset (&sa.sa_mask);
      sigaction (SIGBUS, &sa, &din_prev_sigbus);
    }
  g_mutex_unlock (&lock);
}

/* Test seam (din.h): called before each window. */
static SimDinWindowHook window_hook;
static gpointer window_hook_data;

void
sim_din_set_window_hook (SimDinWindowHook fn, gpointer user_data)
{
  window_hook = fn;
  window_hook_data = user_data;
}

/* Map @path if it is a plain regular file of at least two bytes that does
 * not start with gzip's magic; FALSE (no error) otherwise, and the stream
 * path opens it and reports what is wrong. */
static gboolean
map_plain (const char *path, Mapped *mf)
{
  if (strcmp (path, "-") == 0)
    return FALSE;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  struct stat sb;
  void *base = MAP_FAILED;
  if (fstat (fd, &sb) == 0 && S_ISREG (sb.st_mode) && sb.st_size >= 2
      && (guint64) sb.st_size <= G_MAXSIZE / 2)
    base = mmap (NULL, (gsize) sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED)
    {
      close (fd);
      return FALSE;
    }
  const guint8 *b = base;
  if (b[0] == 0x1f && b[1] == 0x8b)
    {
      munmap (base, (gsize) sb.st_size);
      close (fd);
      return FALSE;
    }
  (void) madvise (base, (gsize) sb.st_size, MADV_SEQUENTIAL);
  long page = sysconf (_SC_PAGESIZE);
  mf->base = base;
  mf->size = (gsize) sb.st_size;
  mf->page = page > 0 && (page & (page - 1)) == 0 ? (gsize) page : 4096;
  mf->fd = fd;
  mf->faulted = 0;
  install_sigbus ();
  return TRUE;
}

static void
unmap_plain (const Mapped *mf)
{
  munmap ((void *) mf->base, mf->size);
  close (mf->fd);
}

/* The file's size now (its size when mapped if fstat fails: then only a
 * fault can tell). */
static gsize
size_now (const Mapped *mf)
{
  struct stat sb;
  if (fstat (mf->fd, &sb) != 0 || sb.st_size < 0)
    return mf->size;
  return (guint64) sb.st_size < mf->size ? (gsize) sb.st_size : mf->size;
}

static ALWAYS_INLINE gboolean
parse_mapped (Mapped *mf, const char *name, Sink sink, gpointer ctx, guint64 *line_out,
              GError **error)
{
  const char *p = mf->base, *end = mf->base + mf->size;
  const char *kept = mf->base;   /* the first page not yet dropped */
  guint64 line = 0;
  gboolean ok = TRUE, shrank = FALSE;
  din_reading = mf;
  while (ok && p < end)
    {
      if (G_UNLIKELY (window_hook != NULL))
        window_hook (name, (guint64) (p - mf->base), window_hook_data);
      gsize now = size_now (mf);
      if (G_UNLIKELY (mf->base + now < end))
        {
          /* Read what is left, not its unfinished last line. */
          end = mf->base + now;
          shrank = TRUE;
          if (p >= end)
            break;
        }
      const char *w_end = (gsize) (end - p) > DIN_WINDOW ? p + DIN_WINDOW : end;
      ok = parse_lines (&p, w_end, w_end == end && !shrank, DIN_BUF, name, sink, ctx, &line,
                        error);
      if (G_UNLIKELY (mf->faulted || (!ok && size_now (mf) < mf->size)))
        {
          /* The parse stopped at the zeros past the new end (or at a bad
           * line, the file shrinking meanwhile): the truncation is what
           * went wrong. */
          g_clear_error (error);
          shrank = TRUE;
          ok = TRUE;
          break;
        }
      if (shrank && w_end == end)
        break;   /* what is left is the line the truncation cut */
      if (ok && w_end < end && (gsize) (w_end - p) >= DIN_BUF)
        {
          /* No line end in the window's last DIN_BUF bytes: a line that
           * long is an error (the stream's buffer is that long). */
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                       "%s:%" G_GUINT64_FORMAT ": line longer than %u bytes",
                       name, line + 1, DIN_BUF);
          ok = FALSE;
        }
      const char *drop = mf->base + ((gsize) (p - mf->base) & ~(mf->page - 1));
      if (drop > kept)
        {
          madvise ((void *) kept, (gsize) (drop - kept), MADV_DONTNEED);
          kept = drop;
        }
    }
  din_reading = NULL;
  if (ok && shrank)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "%s: file shrank while being read (at byte %" G_GUINT64_FORMAT
                   "; %" G_GUINT64_FORMAT " bytes when opened, %" G_GUINT64_FORMAT " now)",
                   name, (guint64) (p - mf->base), (guint64) mf->size,
                   (guint64) size_now (mf));
      ok = FALSE;
    }
  *line_out = line;
  return ok;
}
#else
void
sim_din_set_window_hook (SimDinWindowHook fn, gpointer user_data)
{
  (void) fn;
  (void) user_data;
}
#endif

static GInputStream *
open_named (const char *path, const char *name, GError **error)
{
  GError *local = NULL;
  GInputStream *in = open_stream (path, &local);
  if (in == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: %s", name, local->message);
      g_error_free (local);
    }
  return in;
}

/* ---- One record at a time ------------------------------------------------ */

typedef struct {
  SimDinFunc fn;
  gpointer   user_data;
} Call;

static inline gboolean
sink_call (gpointer ctx, const SimDinRecord *rec, guint64 line, GError **error)
{
  const Call *c = ctx;
  return c->fn (rec, line, c->user_data, error);
}

gboolean
sim_din_read (const char *path, SimDinFunc fn, gpointer user_data,
              guint64 *n_lines, GError **error)
{
  const char *name = strcmp (path, "-") == 0 ? "<stdin>" : path;
  g_autoptr (GInputStream) in = open_named (path, name, error);
  if (in == NULL)
    return FALSE;
  Call c = { fn, user_data };
  guint64 line = 0;
  gboolean ok = parse_stream (in, name, sink_call, &c, &line, error);
  if (n_lines)
    *n_lines = line;
  return ok;
}

/* ---- Batches, maybe from a reader thread --------------------------------- */

typedef struct {
  SimMemRef *ref;
  gsize      n;
  guint64    ifetch;
  guint64    n_kind[SIM_ACC_N];
} Batch;

typedef struct {
  const char        *name;
  SimDinBatchOptions opt;
  GInputStream      *in;         /* the trace, unless it is mapped: */
  void              *mapped;     /* a Mapped (parse_mapped), or NULL */
  Batch             *cur;        /* being filled by the reader: */
  SimMemRef         *w, *w_end;  /* its next free ref and its end */
  guint64            ifetch, n_kind[SIM_ACC_N];   /* its counts so far */
  guint32            cpu_keep;   /* ~0, or 0 for opt.cpu_zero */
  guint32            cpu_limit;  /* opt.cpu_limit, or 1 for opt.cpu_zero */
  gboolean           threaded;
  gboolean           stopped;    /* the consumer failed: stop reading, no error of ours */
  /* Without a thread: the consumer, called when a batch is full. */
  SimDinBatchFunc    fn;
  gpointer           user_data;
  GError           **fn_error;
  /* With a thread: the ring.  Slot k % DIN_RING holds batch k; the reader
   * fills batch `produced` while the consumer reads batches `consumed` ..
   * `produced` - 1. */
  GMutex             mu;
  GCond              cond;
  Batch              ring[DIN_RING];
  guint64            produced, consumed;
  gboolean           waiting;    /* one side waits on cond (GLib's signal is a
                                    system call even when nobody waits) */
  gboolean           done;       /* the reader has published its last batch */
  gboolean           cancel;     /* the consumer failed */
  GError            *reader_error;
  guint64            n_lines;
} Batcher;

/* Start filling @bt. */
static void
batch_start (Batcher *b, Batch *bt)
{
  b->cur = bt;
  b->w = bt->ref;
  b->w_end = bt->ref + DIN_BATCH;
  b->ifetch = 0;
  memset (b->n_kind, 0, sizeof b->n_kind);
}

/* The current batch's counts into it, before it is handed over. */
static void
batch_finish (Batcher *b)
{
  Batch *bt = b->cur;
  bt->n = (gsize) (b->w - bt->ref);
  bt->ifetch = b->ifetch;
  memcpy (bt->n_kind, b->n_kind, sizeof bt->n_kind);
}

static gboolean
call_fn (Batcher *b, const Batch *bt, GError **error)
{
  SimDinBatch v = { bt->ref, bt->n, bt->ifetch, { 0 } };
  memcpy (v.n_kind, bt->n_kind, sizeof v.n_kind);
  return b->fn (&v, b->user_data, error);
}

/* The ring's two sides, with b->mu held: at most one of them waits at a
 * time (the ring cannot be empty and full at once). */
static void
wait (Batcher *b)
{
  b->waiting = TRUE;
  g_cond_wait (&b->cond, &b->mu);
}

static void
wake (Batcher *b)
{
  if (b->waiting)
    {
      b->waiting = FALSE;
      g_cond_signal (&b->cond);
    }
}

/* The current batch is complete (full, or the last): hand it over.  FALSE
 * when the consumer has failed.  @last: no batch follows, so do not wait
 * for a free slot. */
static G_GNUC_NO_INLINE gboolean
emit (Batcher *b, gboolean last)
{
  batch_finish (b);
  if (!b->threaded)
    {
      gboolean ok = call_fn (b, b->cur, b->fn_error);
      batch_start (b, b->cur);
      if (!ok)
        b->stopped = TRUE;
      return ok;
    }
  g_mutex_lock (&b->mu);
  b->produced++;
  /* The consumer waits for half a ring (see sim_din_read_batches). */
  if (last || b->produced - b->consumed >= DIN_RING / 2)
    wake (b);
  /* A full ring: wait until half of it is free again, so that the threads
   * hand over runs of DIN_RING / 2 batches instead of waking each other
   * (a futex call and a context switch on each side) for every batch. */
  if (b->produced - b->consumed == DIN_RING)
    while (!last && !b->cancel && b->produced - b->consumed > DIN_RING / 2)
      wait (b);
  gboolean ok = !b->cancel;
  g_mutex_unlock (&b->mu);
  if (!ok)
    b->stopped = TRUE;
  else if (!last)
    batch_start (b, &b->ring[b->produced % DIN_RING]);
  return ok;
}

static inline gboolean
sink_batch (gpointer ctx, const SimDinRecord *rec, guint64 line, GError **error)
{
  Batcher *b = ctx;
  if (rec->op == SIM_DIN_IFETCH)
    {
      b->ifetch++;
      return TRUE;
    }
  guint32 cpu = rec->cpu & b->cpu_keep;
  if (G_UNLIKELY (cpu >= b->cpu_limit))
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s:%" G_GUINT64_FORMAT ": expected a CPU below %u (the machine's "
                   "CPU count), got %u", b->name, line, b->cpu_limit, cpu);
      return FALSE;
    }
  *b->w++ = (SimMemRef) { rec->addr, rec->size, (guint16) cpu, (guint8) rec->op, 0 };
  b->n_kind[rec->op]++;
  return b->w < b->w_end || emit (b, FALSE);
}

/* Parse everything into batches; the first error in trace order wins: a
 * reader error is returned (in @reader_error) only after the records before
 * it were handed over and the consumer accepted them. */
static void
batch_all (Batcher *b, GError **reader_error)
{
  GError *perr = NULL;
  guint64 lines = 0;
  gboolean ok;
#ifdef G_OS_UNIX
  if (b->mapped)
    ok = parse_mapped (b->mapped, b->name, sink_batch, b, &lines, &perr);
  else
#endif
    ok = parse_stream (b->in, b->name, sink_batch, b, &lines, &perr);
  b->n_lines = lines;
  if (b->stopped)
    {
      g_clear_error (&perr);
      return;
    }
  (void) ok;
  if (!emit (b, TRUE))
    {
      g_clear_error (&perr);   /* an earlier error of the consumer's */
      return;
    }
  if (perr)
    g_propagate_error (reader_error, perr);
}

static gpointer
reader_thread (gpointer data)
{
  Batcher *b = data;
  GError *err = NULL;
  batch_all (b, &err);
  g_mutex_lock (&b->mu);
  b->reader_error = err;
  b->done = TRUE;
  wake (b);
  g_mutex_unlock (&b->mu);
  return NULL;
}

gboolean
sim_din_read_batches (const char *path, const SimDinBatchOptions *opt,
                      SimDinBatchFunc fn, gpointer user_data,
                      guint64 *n_lines, GError **error)
{
  g_return_val_if_fail (opt != NULL && fn != NULL, FALSE);
  g_return_val_if_fail (opt->cpu_zero
                        || (opt->cpu_limit >= 1 && opt->cpu_limit <= SIM_MACHINE_MAX_CPUS),
                        FALSE);
  const char *name = strcmp (path, "-") == 0 ? "<stdin>" : path;
  g_autoptr (GInputStream) in = NULL;
#ifdef G_OS_UNIX
  Mapped mf;
  gboolean mapped = map_plain (path, &mf);
#else
  gboolean mapped = FALSE;
#endif
  if (!mapped && (in = open_named (path, name, error)) == NULL)
    return FALSE;
  Batcher *b = g_new0 (Batcher, 1);
  b->name = name;
  b->opt = *opt;
  b->in = in;
#ifdef G_OS_UNIX
  b->mapped = mapped ? &mf : NULL;
#endif
  b->fn = fn;
  b->user_data = user_data;
  b->threaded = opt->threads >= 2;
  guint slots = b->threaded ? DIN_RING : 1;
  for (guint k = 0; k < slots; k++)
    b->ring[k].ref = g_new (SimMemRef, DIN_BATCH);
  b->cpu_keep = opt->cpu_zero ? 0 : G_MAXUINT32;
  b->cpu_limit = opt->cpu_zero ? 1 : opt->cpu_limit;
  batch_start (b, &b->ring[0]);
  gboolean ok;
  if (!b->threaded)
    {
      GError *fn_err = NULL, *reader_err = NULL;
      b->fn_error = &fn_err;
      batch_all (b, &reader_err);
      ok = !b->stopped && reader_err == NULL;
      GError *first = b->stopped ? fn_err : reader_err;
      if (first)
        g_propagate_error (error, first);
    }
  else
    {
      g_mutex_init (&b->mu);
      g_cond_init (&b->cond);
      GThread *t = g_thread_new ("din-reader", reader_thread, b);
      ok = TRUE;
      for (;;)
        {
          g_mutex_lock (&b->mu);
          /* An empty ring: wait for half of it (or the end), the mirror
           * of the reader's wait in emit.  One side waits at a time: the
           * reader only while more than half the ring is full, this side
           * only while less than half is. */
          if (b->consumed == b->produced)
            while (b->produced - b->consumed < DIN_RING / 2 && !b->done)
              wait (b);
          gboolean have = b->consumed < b->produced;
          g_mutex_unlock (&b->mu);
          if (!have)
            break;
          /* The reader does not touch slots consumed .. produced - 1. */
          ok = call_fn (b, &b->ring[b->consumed % DIN_RING], error);
          g_mutex_lock (&b->mu);
          b->consumed++;
          if (!ok)
            b->cancel = TRUE;
          if (!ok || b->produced - b->consumed <= DIN_RING / 2)
            wake (b);
          g_mutex_unlock (&b->mu);
          if (!ok)
            break;
        }
      g_thread_join (t);
      if (ok && b->reader_error)
        {
          g_propagate_error (error, b->reader_error);
          ok = FALSE;
        }
      else
        g_clear_error (&b->reader_error);
      g_mutex_clear (&b->mu);
      g_cond_clear (&b->cond);
    }
  if (ok && n_lines)
    *n_lines = b->n_lines;
  for (guint k = 0; k < slots; k++)
    g_free (b->ring[k].ref);
  g_free (b);
#ifdef G_OS_UNIX
  if (mapped)
    unmap_plain (&mf);
#endif
  return ok;
}
