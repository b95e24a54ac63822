/* reader.c - the kmem trace reader: buffering, sniffing, and the text parser.
 *
 * Follows the TP_printk formats of include/trace/events/kmem.h from 2.6.31 to
 * 6.18 and the line prefixes of the three tools that print them:
 *
 *   tracefs trace:     comm-pid [cpu] flags timestamp: event: fields
 *   trace-cmd report:  comm-pid [cpu] timestamp: event:   fields   (+ cpus= header)
 *   perf script:       comm tid [cpu] timestamp: kmem:event: fields
 *
 * A line is parsed in place in the read buffer by hand (memchr and digit
 * loops; no regex, no allocation per line): the CPU is the first "[digits]",
 * the timestamp the first "digits.digits:" token after it, the event name the
 * text up to the next ": ", and the fields key=value pairs found by name, in
 * any order, so that every era's field set reads the same way.  Fields we do
 * not know are ignored (a later kernel may add some); a field we need that is
 * missing or does not parse is an error naming file, line and what was
 * expected, or, when lenient, a counted skipped line.
 *
 * Event lines of events we do not read (sched_switch, rss_stat, a kmem event
 * newer than this reader) are skipped and counted by name in
 * stats.other_events: `perf record -e 'kmem:*'` records events such as
 * rss_stat and mm_page_alloc_extfrag that carry no allocator state, and
 * failing on them would make the commonest recording unreadable.
 *
 * Left out: xz/zstd (gzip only; GIO ships a zlib converter, the others would
 * be new dependencies) and the raw binary buffers.  Gzip files of several
 * members (cat a.gz b.gz) are read whole (sim/core/gzip-input.h).
 */
#include "traces/reader-private.h"
#include "traces/reader-fields.h"
#include "sim/core/errors.h"
#include "sim/core/gzip-input.h"
#include "sim/core/stdin.h"

#include <string.h>

#define READ_CHUNK   (1u << 20)        /* the read buffer's starting size */
#define MAX_LINE     (16u << 20)       /* a longer "line" is not a trace */
#define SNIFF_BYTES  (64u << 10)

static const char native_magic[8] = { (char) 0x89, 'S', 'L', 'A', 'B', 'T', 'R', '\n' };
/* trace-cmd's trace.dat (traces/reader-tracecmd.c) */
static const char dat_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* ---- kinds and gfp ---------------------------------------------------- */

static const char *const kind_names[] = {
#define KIND_NAME(id, name) name,
  SIM_TRACE_KINDS (KIND_NAME)
#undef KIND_NAME
};

const char *
sim_trace_kind_name (SimTraceKind kind)
{
  g_return_val_if_fail ((guint) kind < SIM_TRACE_N_KINDS, "?");
  return kind_names[kind];
}

/* Their lengths: every trace line's event name is looked up, so the
 * lengths are compared first and at most two names share one. */
static const guint8 kind_lens[] = {
#define KIND_LEN(id, name) sizeof (name) - 1,
  SIM_TRACE_KINDS (KIND_LEN)
#undef KIND_LEN
};

int
sim_trace_kind_from_name (const char *name, gsize len)
{
  for (int k = 0; k < SIM_TRACE_N_KINDS; k++)
    if (kind_lens[k] == len && memcmp (kind_names[k], name, len) == 0)
      return k;
  return -1;
}

static const char *const format_names[] = {
  "auto", "ftrace", "trace-cmd", "perf-script", "native", "trace-cmd-dat",
};

const char *
sim_trace_format_name (SimTraceFormat f)
{
  g_return_val_if_fail ((guint) f < G_N_ELEMENTS (format_names), "?");
  return format_names[f];
}

/* The composite GFP_* names, as the kernel's gfp.h of the 4.x-6.x eras defines
 * them in terms of __GFP_ bits (older "GFP_KERNEL" meant the same). */
static const struct { const char *name; guint32 bits; } gfp_composites[] = {
  { "GFP_ATOMIC",   SIM_GFP (HIGH) | SIM_GFP (ATOMIC) | SIM_GFP (KSWAPD_RECLAIM) },
  { "GFP_KERNEL",   SIM_GFP (DIRECT_RECLAIM) | SIM_GFP (KSWAPD_RECLAIM) | SIM_GFP (IO) | SIM_GFP (FS) },
  { "GFP_KERNEL_ACCOUNT", SIM_GFP (DIRECT_RECLAIM) | SIM_GFP (KSWAPD_RECLAIM) | SIM_GFP (IO) |
                          SIM_GFP (FS) | SIM_GFP (ACCOUNT) },
  { "GFP_NOWAIT",   SIM_GFP (KSWAPD_RECLAIM) },
  { "GFP_NOIO",     SIM_GFP (DIRECT_RECLAIM) | SIM_GFP (KSWAPD_RECLAIM) },
  { "GFP_NOFS",     SIM_GFP (DIRECT_RECLAIM) | SIM_GFP (KSWAPD_RECLAIM) | SIM_GFP (IO) },
  { "GFP_USER",     SIM_GFP (DIRECT_RECLAIM) | SIM_GFP (KSWAPD_RECLAIM) | SIM_GFP (IO) |
                    SIM_GFP (FS) | SIM_GFP (HARDWALL) },
  { "GFP_DMA",      SIM_GFP (DMA) },
  { "GFP_DMA32",    SIM_GFP (DMA32) },
  { "GFP_HIGHUSER", SIM_GFP (DIRECT_RECLAIM) | SIM_GFP (KSWAPD_RECLAIM) | SIM_GFP (IO) |
                    SIM_GFP (FS) | SIM_GFP (HARDWALL) | SIM_GFP (HIGHMEM) },
  { "GFP_HIGHUSER_MOVABLE", SIM_GFP (DIRECT_RECLAIM) | SIM_GFP (KSWAPD_RECLAIM) | SIM_GFP (IO) |
                            SIM_GFP (FS) | SIM_GFP (HARDWALL) | SIM_GFP (HIGHMEM) |
                            SIM_GFP (MOVABLE) },
  { "GFP_TRANSHUGE_LIGHT", SIM_GFP (HARDWALL) | SIM_GFP (HIGHMEM) | SIM_GFP (MOVABLE) |
                           SIM_GFP (COMP) | SIM_GFP (NOMEMALLOC) | SIM_GFP (NOWARN) },
  { "GFP_TRANSHUGE", SIM_GFP (HARDWALL) | SIM_GFP (HIGHMEM) | SIM_GFP (MOVABLE) |
                     SIM_GFP (COMP) | SIM_GFP (NOMEMALLOC) | SIM_GFP (NOWARN) |
                     SIM_GFP (DIRECT_RECLAIM) },
  { "GFP_NOWAIT|__GFP_NOWARN", SIM_GFP (KSWAPD_RECLAIM) | SIM_GFP (NOWARN) },
  { "GFP_WAIT",     SIM_GFP (WAIT) },
};

static const char *const gfp_bit_names[] = {
#define GFP_NAME(id, name) name,
  SIM_GFP_FLAGS (GFP_NAME)
#undef GFP_NAME
};

static guint32
gfp_one (const char *s, gsize len)
{
  for (guint i = 0; i < G_N_ELEMENTS (gfp_composites); i++)
    if (strlen (gfp_composites[i].name) == len && memcmp (gfp_composites[i].name, s, len) == 0)
      return gfp_composites[i].bits;
  for (guint i = 0; i < SIM_GFP_N_BITS; i++)
    {
      const char *n = gfp_bit_names[i];
      gsize nl = strlen (n);
      if (nl == len && memcmp (n, s, len) == 0)
        return 1u << i;
      /* very old kernels print GFP_ZERO for __GFP_ZERO */
      if (nl - 2 == len && memcmp (n + 2, s, len) == 0)
        return 1u << i;
    }
  return 0;
}

guint32
sim_trace_gfp_parse (const char *s, gsize len)
{
  guint32 bits = 0;
  const char *e = s + len;
  while (s < e)
    {
      const char *bar = memchr (s, '|', e - s);
      const char *t = bar ? bar : e;
      bits |= gfp_one (s, t - s);
      s = bar ? bar + 1 : e;
    }
  return bits;
}

/* ---- string interning ------------------------------------------------- */

static inline guint64
hash_bytes (const char *s, gsize len)
{
  guint64 h = 0x243f6a8885a308d3ull ^ len;
  while (len >= 8)
    {
      guint64 w;
      memcpy (&w, s, 8);
      h = (h ^ w) * 0x9e3779b97f4a7c15ull;
      h ^= h >> 29;
      s += 8;
      len -= 8;
    }
  guint64 w = 0;
  memcpy (&w, s, len);
  h = (h ^ w) * 0x9e3779b97f4a7c15ull;
  h ^= h >> 32;
  return h;
}

void
sim_strtab_init (SimStrtab *t)
{
  t->chunk = g_string_chunk_new (4096);
  t->strs = g_ptr_array_new ();
  t->lens = g_array_new (FALSE, FALSE, sizeof (guint32));
  t->gfp = g_array_new (FALSE, FALSE, sizeof (guint32));
  t->mask = 255;
  t->slots = g_new0 (guint32, t->mask + 1);
}

void
sim_strtab_clear (SimStrtab *t)
{
  if (t->chunk)
    g_string_chunk_free (t->chunk);
  if (t->strs)
    g_ptr_array_free (t->strs, TRUE);
  if (t->lens)
    g_array_free (t->lens, TRUE);
  if (t->gfp)
    g_array_free (t->gfp, TRUE);
  g_free (t->slots);
  memset (t, 0, sizeof *t);
}

static void
strtab_insert_slot (SimStrtab *t, guint32 id)
{
  const char *s = g_ptr_array_index (t->strs, id - 1);
  guint32 len = g_array_index (t->lens, guint32, id - 1);
  guint32 i = (guint32) hash_bytes (s, len) & t->mask;
  while (t->slots[i])
    i = (i + 1) & t->mask;
  t->slots[i] = id;
}

guint32
sim_strtab_append (SimStrtab *t, const char *s, gsize len)
{
  const char *copy = g_string_chunk_insert_len (t->chunk, s, len);
  guint32 l32 = (guint32) len, nogfp = ~0u;
  g_ptr_array_add (t->strs, (gpointer) copy);
  g_array_append_val (t->lens, l32);
  g_array_append_val (t->gfp, nogfp);
  guint32 id = t->strs->len;
  if ((guint64) id * 2 > t->mask)
    {
      g_free (t->slots);
      t->mask = t->mask * 2 + 1;
      t->slots = g_new0 (guint32, t->mask + 1);
      for (guint32 j = 1; j <= id; j++)
        strtab_insert_slot (t, j);
    }
  else
    strtab_insert_slot (t, id);
  return id;
}

guint32
sim_strtab_intern (SimStrtab *t, const char *s, gsize len)
{
  guint32 i = (guint32) hash_bytes (s, len) & t->mask;
  for (;;)
    {
      guint32 id = t->slots[i];
      if (id == 0)
        break;
      if (g_array_index (t->lens, guint32, id - 1) == len &&
          memcmp (g_ptr_array_index (t->strs, id - 1), s, len) == 0)
        return id;
      i = (i + 1) & t->mask;
    }
  return sim_strtab_append (t, s, len);
}

guint32
sim_strtab_gfp (SimStrtab *t, guint32 id)
{
  if (id == 0 || id > t->strs->len)
    return 0;
  guint32 *g = &g_array_index (t->gfp, guint32, id - 1);
  if (*g == ~0u)
    *g = sim_trace_gfp_parse (g_ptr_array_index (t->strs, id - 1),
                              g_array_index (t->lens, guint32, id - 1));
  return *g;
}

/* ---- stats ------------------------------------------------------------- */

void
sim_trace_stats_add_other (SimTraceStats *s, const char *name, gsize len, guint64 n)
{
  g_autofree char *key = g_strndup (name, len);
  guint64 *c = g_hash_table_lookup (s->other_events, key);
  if (c == NULL)
    {
      c = g_new0 (guint64, 1);
      g_hash_table_insert (s->other_events, g_steal_pointer (&key), c);
    }
  *c += n;
}

static gint
cmp_str (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

GPtrArray *
sim_trace_stats_other_names (const SimTraceStats *s)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, s->other_events);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_ptr_array_add (names, k);
  g_ptr_array_sort (names, cmp_str);
  return names;
}

gboolean
sim_trace_stats_hashed (const SimTraceStats *s)
{
  return s->hashed_ptrs > s->raw_ptrs;
}

/* ---- buffer ----------------------------------------------------------- */

gssize
sim_trace_reader_fill (SimTraceReader *r, gsize need, GError **error)
{
  if (r->end - r->pos >= need || r->eof)
    return r->end - r->pos;
  if (r->pos > 0)
    {
      memmove (r->buf, r->buf + r->pos, r->end - r->pos);
      r->consumed += r->pos;
      r->end -= r->pos;
      r->pos = 0;
    }
  if (need > r->cap)
    {
      gsize cap = r->cap;
      while (cap < need)
        cap *= 2;
      r->buf = g_realloc (r->buf, cap);
      r->cap = cap;
    }
  while (r->end < need && !r->eof)
    {
      GError *local = NULL;
      gssize n = g_input_stream_read (r->in, r->buf + r->end, r->cap - r->end, NULL, &local);
      if (n < 0)
        {
          gboolean partial = g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT);
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                       "%s: %s after %" G_GUINT64_FORMAT " bytes: %s", r->name,
                       partial ? "truncated compressed stream" : "read error",
                       r->consumed + r->end, local->message);
          g_error_free (local);
          return -1;
        }
      if (n == 0)
        {
          r->eof = TRUE;
          /* perf's output ended: it must have ended well (reader-perf.c). */
          if (r->perf && !sim_trace_perf_finish (r, r->consumed + r->end, error))
            return -1;
        }
      r->end += n;
    }
  return r->end - r->pos;
}

/* ---- opening and sniffing --------------------------------------------- */

static gboolean
looks_binary (const char *p, gsize n, gsize *at)
{
  for (gsize i = 0; i < n; i++)
    {
      guchar c = p[i];
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
        {
          *at = i;
          return TRUE;
        }
    }
  return FALSE;
}

/* Which text tool printed this: header lines decide, else the first event line. */
static SimTraceFormat
sniff_text (const char *p, gsize n)
{
  const char *e = p + n;
  while (p < e)
    {
      const char *nl = memchr (p, '\n', e - p);
      const char *le = nl ? nl : e;
      while (p < le && (*p == ' ' || *p == '\t'))
        p++;
      gsize len = le - p;
      if (len >= 8 && memcmp (p, "# tracer", 8) == 0)
        return SIM_TRACE_FORMAT_FTRACE;
      if ((len >= 5 && memcmp (p, "cpus=", 5) == 0) ||
          (len >= 9 && memcmp (p, "version =", 9) == 0))
        return SIM_TRACE_FORMAT_TRACE_CMD;
      if (len > 0 && *p != '#')
        {
          for (const char *q = p; q + 6 < le; q++)
            if (q[0] == ' ' && memcmp (q + 1, "kmem:", 5) == 0)
              return SIM_TRACE_FORMAT_PERF;
          if (memchr (p, '[', len))
            return SIM_TRACE_FORMAT_FTRACE;
        }
      p = le + 1;
    }
  return SIM_TRACE_FORMAT_FTRACE;
}

/* @path and @f, when given, name a file perf can reopen (sim_trace_reader_open);
 * a trace.dat is opened from @f directly instead of from a copy. */
static SimTraceReader *
reader_new (GInputStream *in, const char *name, const char *path, GFile *f,
            SimTraceFormat format, GError **error)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (in), NULL);
  g_autoptr (SimTraceReader) r = g_new0 (SimTraceReader, 1);
  r->name = g_strdup (name ? name : "(stream)");
  r->cap = READ_CHUNK;
  r->buf = g_malloc (r->cap);
  sim_strtab_init (&r->strs);
  r->stats.other_events = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  /* gzip: peek at the magic through a buffered stream, then decompress. */
  g_autoptr (GInputStream) bis = g_buffered_input_stream_new_sized (in, 4096);
  gsize avail = 0;
  while (avail < 8)
    {
      gssize n = g_buffered_input_stream_fill (G_BUFFERED_INPUT_STREAM (bis), 8 - avail, NULL, error);
      if (n < 0)
        {
          g_prefix_error (error, "%s: ", r->name);
          return NULL;
        }
      if (n == 0)
        break;
      avail = g_buffered_input_stream_get_available (G_BUFFERED_INPUT_STREAM (bis));
    }
  gsize plen;
  const guchar *peek = g_buffered_input_stream_peek_buffer (G_BUFFERED_INPUT_STREAM (bis), &plen);
  if (plen >= 2 && peek[0] == 0x1f && peek[1] == 0x8b)
    {
      r->in = sim_gzip_input_new (bis);   /* every member, see gzip-input.h */
      f = NULL;                           /* a trace.dat in it is read from a copy */
    }
  else if (format == SIM_TRACE_FORMAT_AUTO && sim_trace_perf_magic (peek, plen))
    {
      if (path == NULL)
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                       "%s: a perf.data can only be read from a file", r->name);
          return NULL;
        }
      r->in = sim_trace_perf_open (r, path, f, error);   /* its `perf script` text */
      if (r->in == NULL)
        return NULL;
      format = SIM_TRACE_FORMAT_PERF;
    }
  else
    r->in = g_object_ref (bis);

  if (sim_trace_reader_fill (r, SNIFF_BYTES, error) < 0)
    return NULL;
  gsize n = r->end - r->pos;
  if (format == SIM_TRACE_FORMAT_AUTO)
    {
      if (n >= sizeof native_magic && memcmp (r->buf, native_magic, sizeof native_magic) == 0)
        format = SIM_TRACE_FORMAT_NATIVE;
      else if (sim_trace_perf_magic (r->buf, n))
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                       "%s: a compressed perf.data cannot be read (perf needs the file): "
                       "decompress it first", r->name);
          return NULL;
        }
      else if (n >= sizeof dat_magic && memcmp (r->buf, dat_magic, sizeof dat_magic) == 0)
        format = SIM_TRACE_FORMAT_TRACE_CMD_DAT;
      else
        {
          gsize at;
          if (looks_binary (r->buf, MIN (n, SNIFF_BYTES), &at))
            {
              g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_FORMAT,
                           "%s: not a kmem trace: binary data at byte %" G_GSIZE_FORMAT
                           " (expected ftrace or perf script text, gzip-compressed or not, "
                           "or a slabsim native trace)", r->name, at);
              return NULL;
            }
          format = sniff_text (r->buf, n);
        }
    }
  r->format = r->source_format = format;
  if (format == SIM_TRACE_FORMAT_NATIVE && !sim_trace_native_open (r, error))
    return NULL;
  if (format == SIM_TRACE_FORMAT_TRACE_CMD_DAT)
    {
      g_autofree char *file = f ? g_file_get_path (f) : NULL;
      if (!sim_trace_dat_open (r, file, error))
        return NULL;
    }
  return g_steal_pointer (&r);
}

SimTraceReader *
sim_trace_reader_new (GInputStream *in, const char *name, SimTraceFormat format,
                      GError **error)
{
  return reader_new (in, name, NULL, NULL, format, error);
}

SimTraceReader *
sim_trace_reader_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  gboolean is_stdin = strcmp (path, "-") == 0;
  g_autoptr (GFile) f = is_stdin ? g_file_new_for_path (sim_stdin_path ())
                                 : g_file_new_for_commandline_arg (path);
  GError *local = NULL;
  g_autoptr (GInputStream) in = G_INPUT_STREAM (g_file_read (f, NULL, &local));
  if (in == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: %s", path, local->message);
      g_error_free (local);
      return NULL;
    }
  return reader_new (in, is_stdin ? "(stdin)" : path, path, f, SIM_TRACE_FORMAT_AUTO, error);
}

void
sim_trace_reader_free (SimTraceReader *r)
{
  if (r == NULL)
    return;
  sim_trace_dat_close (r);
  g_clear_object (&r->in);
  sim_trace_perf_free (r->perf);
  g_free (r->name);
  g_free (r->buf);
  sim_trace_fast_free (r->fast);
  sim_strtab_clear (&r->strs);
  if (r->stats.other_events)
    g_hash_table_unref (r->stats.other_events);
  g_clear_error (&r->sticky);
  g_free (r);
}

void
sim_trace_reader_set_lenient (SimTraceReader *r, gboolean lenient)
{
  r->lenient = lenient;
}

const SimTraceStats *
sim_trace_reader_stats (SimTraceReader *r)
{
  return &r->stats;
}

SimTraceFormat
sim_trace_reader_format (SimTraceReader *r)
{
  return r->format;
}

SimTraceFormat
sim_trace_reader_source_format (SimTraceReader *r)
{
  return r->source_format;
}

const char *
sim_trace_reader_name (SimTraceReader *r)
{
  return r->name;
}

const char *
sim_trace_reader_string (SimTraceReader *r, guint32 id)
{
  if (id == 0 || id > r->strs.strs->len)
    return "";
  return g_ptr_array_index (r->strs.strs, id - 1);
}

guint32
sim_trace_reader_string_len (SimTraceReader *r, guint32 id)
{
  if (id == 0 || id > r->strs.strs->len)
    return 0;
  return g_array_index (r->strs.lens, guint32, id - 1);
}

guint32
sim_trace_reader_n_strings (SimTraceReader *r)
{
  return r->strs.strs->len;
}

/* ---- the text line parser --------------------------------------------- */

typedef enum { LINE_EVENT, LINE_SKIP, LINE_BAD } LineResult;

/* A malformed-line message; the caller prefixes "file:line: ". */
static LineResult
bad (GString **msg, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static LineResult
bad (GString **msg, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  *msg = g_string_new (NULL);
  g_string_vprintf (*msg, fmt, ap);
  va_end (ap);
  return LINE_BAD;
}

/* A value, quoted for a message, cut to a sane length. */
static char *
quote (const char *v, gsize len)
{
  if (len > 40)
    return g_strdup_printf ("\"%.40s...\"", v);
  GString *s = g_string_new ("\"");
  for (gsize i = 0; i < len; i++)
    {
      guchar c = v[i];
      if (c < 0x20 || c >= 0x7f)
        g_string_append_printf (s, "\\x%02x", c);
      else
        g_string_append_c (s, c);
    }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

static const char *
first_missing (guint need, guint have)
{
  static const char *const names[] = {
    "call_site=", "ptr=", "bytes_req=", "bytes_alloc=", "gfp_flags=", "page=", "pfn=", "order=",
  };
  guint miss = need & ~have;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (miss & (1u << i))
      return names[i];
  return "?";
}


static LineResult
parse_fields (SimTraceReader *r, const char *q, const char *e, SimTraceEvent *ev,
              GString **msg)
{
  guint have = 0;
  int ptr_digits = 0;
  /* Each event kind prints its fields in one order: the key that came
   * after the previous one last time (r->next_key) is checked first, and
   * only when it is not there is the key scanned for and looked up. */
  guint8 *next_key = r->next_key[ev->kind];
  guint prev = KEY_NONE;
  while (q < e)
    {
      while (q < e && *q == ' ')
        q++;
      if (q >= e)
        break;
      const char *k = q;
      gsize klen;
      guint id = next_key[prev];
      if (G_LIKELY (key_at (q, e, id, &klen)))
        q += klen;
      else
        {
          q = scan2 (q, e, '=', ' ');
          if (q >= e || *q == ' ')
            continue;                 /* a stray word: ignore */
          klen = q - k;
          id = key_id (k, klen);
          next_key[prev] = (guint8) (id == KEY_OTHER ? KEY_NONE : id);
        }
      prev = id;
      const char *v = ++q;
      q = scan1 (q, e, ' ');
      const char *ve = q;
      if (ve == v)
        {
          /* "ptr=  (null)": %p right-justified the NULL */
          const char *t = q;
          while (t < e && *t == ' ')
            t++;
          const char *te = t;
          while (te < e && *te != ' ')
            te++;
          if (te > t && memchr (t, '=', te - t) == NULL)
            v = t, ve = q = te;
        }
      else
        {
          /* "call_site=xfs_foo+0x12/0x40 [xfs]": %pS names the module */
          const char *t = q;
          while (t < e && *t == ' ')
            t++;
          if (t < e && *t == '[')
            {
              const char *te = t;
              while (te < e && *te != ' ')
                te++;
              if (te[-1] == ']' && memchr (t, '=', te - t) == NULL)
                ve = q = te;
            }
          else
            q = t;   /* the spaces the next key's scan would skip */
        }
      gsize vlen = ve - v;

#define EXPECT(what) do {                                                   \
          g_autofree char *qv_ = quote (v, vlen);                           \
          return bad (msg, "expected %s after %.*s=, got %s", what,         \
                      (int) klen, k, qv_);                                  \
        } while (0)
      switch (id)
        {
        case KEY_PTR:
          if (!parse_ptr (v, vlen, &ev->ptr, &ptr_digits))
            EXPECT ("a hexadecimal pointer or (null)");
          have |= F_PTR;
          break;
        case KEY_PFN:
          {
            gboolean hex = vlen > 2 && v[0] == '0' && v[1] == 'x';
            int d;
            if (hex ? !parse_ptr (v, vlen, &ev->pfn, &d) : !parse_dec (v, vlen, &ev->pfn))
              EXPECT ("a page frame number");
            have |= F_PFN;
          }
          break;
        case KEY_NAME:
          ev->cache_id = intern_memo (r, MEMO_NAME, v, vlen);
          break;
        case KEY_NODE:
          if (!parse_int (v, vlen, &ev->node))
            EXPECT ("a node number");
          break;
        case KEY_PAGE:
          {
            int d;
            if (!parse_ptr (v, vlen, &ev->ptr, &d))
              EXPECT ("a struct page pointer or (null)");
            have |= F_PAGE;
          }
          break;
        case KEY_ORDER:
          if (!parse_int (v, vlen, &ev->order) || ev->order < 0)
            EXPECT ("a non-negative page order");
          have |= F_ORDER;
          break;
        case KEY_CALL_SITE:
          {
            int d;
            ev->call_site_id = intern_memo (r, MEMO_CALL_SITE, v, vlen);
            if (!parse_ptr (v, vlen, &ev->call_site, &d))
              ev->call_site = 0;   /* symbolic: sym+0xoff/0xlen */
            have |= F_CALL_SITE;
          }
          break;
        case KEY_BYTES_REQ:
          if (!parse_dec_in (v, vlen, e, &ev->bytes_req))
            EXPECT ("a non-negative decimal size");
          if (ev->bytes_req > G_MAXINT64)
            EXPECT ("a size below 2^63");
          have |= F_BYTES_REQ;
          break;
        case KEY_GFP_FLAGS:
          ev->gfp_id = intern_memo (r, MEMO_GFP, v, vlen);
          ev->gfp = sim_strtab_gfp (&r->strs, ev->gfp_id);
          have |= F_GFP;
          break;
        case KEY_ACCOUNTED:
          if ((vlen == 4 && memcmp (v, "true", 4) == 0) || (vlen == 1 && *v == '1'))
            ev->accounted = 1;
          else if ((vlen == 5 && memcmp (v, "false", 5) == 0) || (vlen == 1 && *v == '0'))
            ev->accounted = 0;
          else
            EXPECT ("true or false");
          break;
        case KEY_BYTES_ALLOC:
          if (!parse_dec_in (v, vlen, e, &ev->bytes_alloc))
            EXPECT ("a non-negative decimal size");
          if (ev->bytes_alloc > G_MAXINT64)
            EXPECT ("a size below 2^63");
          have |= F_BYTES_ALLOC;
          break;
        case KEY_MIGRATETYPE:
          if (!parse_int (v, vlen, &ev->migratetype))
            EXPECT ("a migrate type number");
          break;
        default:
          break;
        }
#undef EXPECT
    }

  guint need;
  if (sim_trace_kind_is_slab_alloc (ev->kind))
    need = F_CALL_SITE | F_PTR | F_BYTES_REQ | F_BYTES_ALLOC | F_GFP;
  else if (sim_trace_kind_is_slab_free (ev->kind))
    need = F_CALL_SITE | F_PTR;
  else
    {
      /* page events: page= and/or pfn= (one suffices), order= */
      need = F_ORDER;
      if (!(have & (F_PAGE | F_PFN)))
        need |= F_PFN;
      if (ev->kind == SIM_TRACE_PAGE_ALLOC)
        need |= F_GFP;
    }
  if ((need & have) != need)
    return bad (msg, "expected field %s in a %s event", first_missing (need, have),
                sim_trace_kind_name (ev->kind));

  if (ev->ptr != 0 && (sim_trace_kind_is_slab_alloc (ev->kind) ||
                       sim_trace_kind_is_slab_free (ev->kind)))
    {
      if (ptr_digits == 16 && (ev->ptr >> 32) == 0)
        r->stats.hashed_ptrs++;
      else if ((ev->ptr >> 32) != 0)
        r->stats.raw_ptrs++;
    }
  return LINE_EVENT;
}

/* "CPU:3 [LOST 123 EVENTS]" (ftrace), "CPU:3 [123 EVENTS DROPPED]" or
 * "CPU:3 [EVENTS DROPPED]" (trace-cmd report; the count when the ring
 * buffer kept it) and perf's PERF_RECORD_LOST / PERF_RECORD_LOST_SAMPLES
 * lines ("... PERF_RECORD_LOST lost 17" or with an id: the count is the
 * number after "lost"). */
static gboolean
parse_lost (SimTraceReader *r, const char *p, gsize len)
{
  const char *e = p + len;
  const char *m = g_strstr_len (p, len, "[LOST ");
  const char *num = NULL;
  if (m)
    num = m + 6;
  else if (len >= 5 && memcmp (p, "CPU:", 4) == 0 &&
           (m = g_strstr_len (p, len, "EVENTS DROPPED]")) != NULL)
    {
      const char *lb = memchr (p, '[', m - p);
      if (lb == NULL)
        return FALSE;
      num = lb + 1;          /* no digits there: a marker without a count */
    }
  else if ((m = g_strstr_len (p, len, "PERF_RECORD_LOST")) != NULL)
    {
      const char *l = g_strstr_len (m, e - m, "lost ");
      num = l ? l + 5 : NULL;
      if (num == NULL)
        {
          /* no count printed: count the marker only */
          r->stats.lost_markers++;
          return TRUE;
        }
    }
  else
    return FALSE;
  while (num < e && *num == ' ')
    num++;
  guint64 n = 0;
  const char *d = num;
  while (d < e && *d >= '0' && *d <= '9')
    n = n * 10 + (guint) (*d++ - '0');
  r->stats.lost_markers++;
  r->stats.lost_events += n;
  return TRUE;
}

static LineResult
parse_line (SimTraceReader *r, const char *p, const char *e, SimTraceEvent *ev,
            GString **msg)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  /* ftrace pads the task name to 16 columns: spaces a word at a time, up
   * to the first byte that is not one */
  while (e - p >= 8)
    {
      guint64 w;
      memcpy (&w, p, 8);
      guint64 x = w ^ (SWAR_ONES * ' ');
      if (x)
        {
          p += __builtin_ctzll (x) >> 3;
          break;
        }
      p += 8;
    }
#endif
  while (p < e && (*p == ' ' || *p == '\t'))
    p++;
  if (p == e || *p == '#')
    {
      r->stats.skipped_lines++;
      return LINE_SKIP;
    }

  /* the CPU: the first "[digits]".  A "[-digits]" or a number past
   * G_MAXINT32 is remembered as a bad CPU field: it is the CPU only if no
   * good "[digits]" follows (a task name may hold brackets), and then the
   * line is an error once we know it is an event we read. */
  const char *lb = p, *rb = NULL;
  const char *bad_lb = NULL, *bad_rb = NULL;
  gint32 cpu = 0;
  for (;;)
    {
      lb = memchr (lb, '[', e - lb);
      if (lb == NULL)
        break;
      const char *d = lb + 1;
      gboolean neg = d < e && *d == '-';
      d += neg;
      const char *digits = d;
      guint64 c = 0;
      while (d < e && *d >= '0' && *d <= '9')
        {
          if (c <= G_MAXINT32)
            c = c * 10 + (guint) (*d - '0');
          d++;
        }
      if (d > digits && d < e && *d == ']')
        {
          if (!neg && c <= G_MAXINT32)
            {
              cpu = (gint32) c;
              rb = d;
              break;
            }
          if (bad_lb == NULL)
            bad_lb = lb, bad_rb = d;
        }
      lb++;
    }
  if (rb == NULL && bad_lb != NULL)
    lb = bad_lb, rb = bad_rb;

  /* the timestamp: the first "digits[.digits]:" token after the CPU, past
   * the irq-info flags ftrace may print.  perf script of a per-task
   * recording prints no CPU: then the timestamp is the first
   * "digits.digits:" token after the task, and the CPU is unknown (-1). */
  const char *q = rb ? rb + 1 : p;
  const char *ts = NULL, *ts_end = NULL;
  for (int tok = 0; tok < (rb ? 3 : 8) && q < e; tok++)
    {
      while (q < e && *q == ' ')
        q++;
      const char *t = q;
      q = scan1 (q, e, ' ');
      if (q - t >= 2 && q[-1] == ':' && *t >= '0' && *t <= '9' &&
          (rb || memchr (t, '.', q - t)))
        {
          ts = t;
          ts_end = q - 1;
          break;
        }
    }
  if (ts == NULL)
    goto other;
  if (rb == NULL)
    {
      if (ts == p)
        goto other;
      cpu = -1;
      lb = ts;
    }
  guint64 sec = 0, ns = 0;
  gboolean ts_overflow = FALSE;
  {
    const char *d = ts;
    while (d < ts_end && *d >= '0' && *d <= '9')
      sec = sec * 10 + (guint) (*d++ - '0');
    /* nanoseconds must fit 64 bits: at most 18446744073.709551615 s
     * (an 11-digit second count; more digits wrapped above) */
    if (d - ts > 11 || sec > G_MAXUINT64 / 1000000000ull)
      ts_overflow = TRUE;
    if (d < ts_end && *d == '.')
      {
        d++;
        int nd = 0;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
        /* ftrace's microseconds (6 digits) or up to 8, at once */
        gsize fl = ts_end - d;
        if (fl >= 1 && fl <= 8 && e - d >= 8 && dec8 (d, (guint) fl, &ns))
          {
            d = ts_end;
            nd = (int) fl;
          }
#endif
        while (d < ts_end && *d >= '0' && *d <= '9' && nd < 9)
          ns = ns * 10 + (guint) (*d++ - '0'), nd++;
        while (d < ts_end && *d >= '0' && *d <= '9')
          d++;
        for (; nd < 9; nd++)
          ns *= 10;
      }
    if (d != ts_end)
      goto other;
    if (!ts_overflow && sec * 1000000000ull > G_MAXUINT64 - ns)
      ts_overflow = TRUE;
  }

  /* the event name, up to ": " (or ':' at the end of the line) */
  while (q < e && *q == ' ')
    q++;
  const char *name = q;
  const char *base = name;      /* past the last ':' inside the name */
  for (;;)
    {
      q = scan1 (q, e, ':');
      if (q >= e || q + 1 == e || q[1] == ' ')
        break;
      base = ++q;
    }
  if (q >= e)
    goto other;
  const char *name_end = q++;
  gboolean kmem_prefix = base - name == 5 && memcmp (name, "kmem:", 5) == 0;
  int kind = (base == name || kmem_prefix) ? sim_trace_kind_from_name (base, name_end - base) : -1;
  if (kind < 0)
    {
      if (name_end - name >= 16 && memcmp (name, "PERF_RECORD_LOST", 16) == 0 &&
          parse_lost (r, name, e - name))
        {
          r->stats.skipped_lines++;
          return LINE_SKIP;
        }
      sim_trace_stats_add_other (&r->stats, name, name_end - name, 1);
      r->stats.skipped_lines++;
      return LINE_SKIP;
    }

  if (G_UNLIKELY (rb == bad_rb && bad_rb != NULL))
    {
      g_autofree char *qv = quote (bad_lb, bad_rb + 1 - bad_lb);
      return bad (msg, "expected a CPU number from 0 to %d in [cpu], got %s", G_MAXINT32, qv);
    }
  if (G_UNLIKELY (ts_overflow))
    {
      g_autofree char *qv = quote (ts, ts_end - ts);
      return bad (msg, "expected a timestamp of at most 18446744073.709551615 seconds "
                  "(nanoseconds in 64 bits), got %s", qv);
    }

  memset (ev, 0, sizeof *ev);
  ev->kind = (SimTraceKind) kind;
  ev->cpu = cpu;
  ev->ts_ns = sec * 1000000000ull + ns;
  ev->node = ev->order = ev->migratetype = ev->accounted = -1;
  ev->pid = -1;

  /* the task: "comm-pid" (ftrace), "comm tid" or "comm pid/tid" (perf) */
  {
    const char *te = lb;
    while (te > p && te[-1] == ' ')
      te--;
    const char *d = te;
    while (d > p && d[-1] >= '0' && d[-1] <= '9')
      d--;
    if (d < te && d > p && d[-1] == '/')
      {
        /* pid/tid: keep the tid */
        const char *s = d - 1;
        while (s > p && s[-1] >= '0' && s[-1] <= '9')
          s--;
        guint64 x;
        if (parse_dec (d, te - d, &x))
          ev->pid = (gint32) x;
        d = s;
        te = s;
      }
    else if (d < te)
      {
        guint64 x;
        if (parse_dec (d, te - d, &x) && x <= G_MAXINT32)
          ev->pid = (gint32) x;
        te = d;
      }
    if (te > p && (te[-1] == '-' || te[-1] == ' '))
      te--;
    while (te > p && te[-1] == ' ')
      te--;
    if (te > p)
      ev->comm_id = intern_memo (r, MEMO_COMM, p, te - p);
  }

  return parse_fields (r, q, e, ev, msg);

other:
  if (parse_lost (r, p, e - p))
    {
      r->stats.skipped_lines++;
      return LINE_SKIP;
    }
  {
    gsize at;
    if (looks_binary (p, e - p, &at))
      return bad (msg, "expected a trace line, found binary data (byte 0x%02x at column %"
                  G_GSIZE_FORMAT ")", (guchar) p[at], at + 1);
  }
  r->stats.skipped_lines++;
  r->unrecognised++;
  return LINE_SKIP;
}

static gboolean
text_next (SimTraceReader *r, SimTraceEvent *ev, GError **error)
{
  for (;;)
    {
      char *line = r->buf + r->pos;
      char *nl = memchr (line, '\n', r->end - r->pos);
      gboolean cut = FALSE;
      if (nl == NULL)
        {
          if (!r->eof)
            {
              gsize have = r->end - r->pos;
              if (have >= MAX_LINE)
                {
                  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                               "%s:%" G_GUINT64_FORMAT ": expected a line of at most %u bytes",
                               r->name, r->lineno + 1, MAX_LINE);
                  return FALSE;
                }
              if (sim_trace_reader_fill (r, have + 1 > r->cap / 2 ? have + 1 : r->cap, error) < 0)
                return FALSE;
              continue;
            }
          if (r->pos == r->end)
            {
              if (r->dat && !sim_trace_dat_finish (r, error))
                return FALSE;
              if (r->perf && r->stats.events == 0)
                {
                  /* A perf.data of other events (cpu-clock, cycles) is no
                   * empty trace: say what it is. */
                  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_FORMAT,
                               "%s: no kmem tracepoint samples in this perf.data (perf script "
                               "printed %" G_GUINT64_FORMAT " lines, none a kmem event); record "
                               "with perf record -e 'kmem:*'", r->name, r->lineno);
                  return FALSE;
                }
              if (r->stats.events == 0 && r->unrecognised > 0 && r->stats.lost_markers == 0 &&
                  g_hash_table_size (r->stats.other_events) == 0)
                {
                  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_FORMAT,
                               "%s: expected kmem trace events (ftrace or perf script text), "
                               "found none in %" G_GUINT64_FORMAT " lines", r->name, r->lineno);
                  return FALSE;
                }
              r->done = TRUE;
              return FALSE;
            }
          nl = r->buf + r->end;
          cut = TRUE;
        }
      char *le = nl;
      if (le > line && le[-1] == '\r')
        le--;
      r->pos = (nl - r->buf) + (cut ? 0 : 1);
      r->lineno++;
      GString *msg = NULL;
      LineResult res = !r->careful_only && sim_trace_fast_line (r, line, le, ev)
                         ? LINE_EVENT : parse_line (r, line, le, ev, &msg);
      if (res == LINE_EVENT)
        {
          ev->line = r->lineno;
          r->stats.events++;
          r->stats.by_kind[ev->kind]++;
          return TRUE;
        }
      if (res == LINE_SKIP)
        continue;
      if (r->lenient)
        {
          r->stats.malformed_lines++;
          g_string_free (msg, TRUE);
          continue;
        }
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s:%" G_GUINT64_FORMAT ": %s%s", r->name, r->lineno, msg->str,
                   cut ? " (the last line has no newline: is the file truncated?)" : "");
      g_string_free (msg, TRUE);
      return FALSE;
    }
}

gboolean
sim_trace_reader_next (SimTraceReader *r, SimTraceEvent *ev, GError **error)
{
  g_return_val_if_fail (r != NULL && ev != NULL, FALSE);
  if (r->sticky)
    {
      g_propagate_error (error, g_error_copy (r->sticky));
      return FALSE;
    }
  if (r->done)
    return FALSE;
  GError *local = NULL;
  /* a trace.dat is read as the text its child process prints */
  gboolean ok = r->format == SIM_TRACE_FORMAT_NATIVE ? sim_trace_native_next (r, ev, &local)
                                                     : text_next (r, ev, &local);
  if (local)
    {
      r->sticky = g_error_copy (local);
      g_propagate_error (error, local);
    }
  return ok;
}

guint
sim_trace_reader_next_n (SimTraceReader *r, SimTraceEvent *ev, guint max, GError **error)
{
  g_return_val_if_fail (r != NULL && ev != NULL, 0);
  if (r->sticky)
    {
      g_propagate_error (error, g_error_copy (r->sticky));
      return 0;
    }
  if (r->done)
    return 0;
  /* the native decoder's batch, or text lines: no call an event */
  GError *local = NULL;
  guint k = 0;
  if (r->format == SIM_TRACE_FORMAT_NATIVE)
    k = sim_trace_native_next_n (r, ev, max, &local);
  else
    while (k < max && text_next (r, &ev[k], &local))
      k++;
  if (local)
    {
      r->sticky = g_error_copy (local);
      g_propagate_error (error, local);
    }
  return k;
}
