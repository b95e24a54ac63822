/* stream.c - decode a trace once, in chunks; see stream.h.
 *
 * The strings table is two-level (pages of 4096 pointers under a fixed
 * directory) so that appending never moves an entry another thread may be
 * reading: the reader's own table (a GPtrArray) reallocates as it grows.
 * Each chunk's new strings are copied from the reader once, after the
 * chunk is decoded and before it is handed out.
 */
#include "traces/stream.h"
#include "traces/native.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"
#include "sim/core/digest.h"
#include "slabsim-config.h"

#include <errno.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>
#include <utime.h>
#include <glib/gstdio.h>

#define PAGE_BITS 12
#define PAGE_SIZE (1u << PAGE_BITS)
#define DIR_SIZE  (1u << 16)      /* 268 M strings: far more than any trace holds */

typedef struct {
  const char *s;
  guint32     len;
} StrEntry;

struct _SimTraceStrings {
  StrEntry   *dir[DIR_SIZE];
  guint32     n;
  GStringChunk *chunk;
};

const char *
sim_trace_strings_get (const SimTraceStrings *t, guint32 id)
{
  if (id == 0 || id > t->n)
    return "";
  return t->dir[(id - 1) >> PAGE_BITS][(id - 1) & (PAGE_SIZE - 1)].s;
}

guint32
sim_trace_strings_len (const SimTraceStrings *t, guint32 id)
{
  if (id == 0 || id > t->n)
    return 0;
  return t->dir[(id - 1) >> PAGE_BITS][(id - 1) & (PAGE_SIZE - 1)].len;
}

guint32
sim_trace_strings_count (const SimTraceStrings *t)
{
  return t->n;
}

static gboolean
strings_append (SimTraceStrings *t, const char *s, gsize len)
{
  guint32 i = t->n;
  if ((i >> PAGE_BITS) >= DIR_SIZE)
    return FALSE;
  if (t->dir[i >> PAGE_BITS] == NULL)
    t->dir[i >> PAGE_BITS] = g_new0 (StrEntry, PAGE_SIZE);
  StrEntry *e = &t->dir[i >> PAGE_BITS][i & (PAGE_SIZE - 1)];
  e->s = g_string_chunk_insert_len (t->chunk, s, (gssize) len);
  e->len = (guint32) len;
  t->n = i + 1;
  return TRUE;
}

/* ---- the spool read as it is written (sim_trace_stream_follow) ---------- */

enum { TAIL_WRITING, TAIL_COMPLETE, TAIL_ABANDONED };

/* What the writer has flushed, shared by the stream that writes the spool
 * and the followers that read it (each holds a reference). */
typedef struct {
  gint    ref;
  GMutex  lock;
  GCond   cond;
  int     fd;                 /* our own descriptor of the spool */
  guint64 published;          /* bytes flushed to it */
  int     state;
} SpoolTail;

static SpoolTail *
spool_tail_ref (SpoolTail *t)
{
  g_atomic_int_inc (&t->ref);
  return t;
}

static void
spool_tail_unref (SpoolTail *t)
{
  if (t == NULL || !g_atomic_int_dec_and_test (&t->ref))
    return;
  close (t->fd);
  g_mutex_clear (&t->lock);
  g_cond_clear (&t->cond);
  g_free (t);
}

/* Guards a stream's tail pointer: the pre-pass thread drops it when the
 * spool ends while another thread may be taking a follower's reference
 * (sim_trace_stream_follow); without it a short trace could free the
 * tail between the follower's test and its reference. */
static GMutex tail_ptr_lock;

static SpoolTail *
stream_tail_take (SpoolTail **slot)
{
  g_mutex_lock (&tail_ptr_lock);
  SpoolTail *t = *slot;
  *slot = NULL;
  g_mutex_unlock (&tail_ptr_lock);
  return t;
}

static void
spool_tail_publish (SpoolTail *t, guint64 bytes, int state)
{
  g_mutex_lock (&t->lock);
  if (t->state == TAIL_WRITING)
    {
      if (bytes > t->published)
        t->published = bytes;
      t->state = state;
    }
  g_cond_broadcast (&t->cond);
  g_mutex_unlock (&t->lock);
}

typedef struct {
  GInputStream parent;
  SpoolTail   *tail;
  guint64      off;
} TailStream;

typedef struct {
  GInputStreamClass parent_class;
} TailStreamClass;

GType tail_stream_get_type (void);
G_DEFINE_TYPE (TailStream, tail_stream, G_TYPE_INPUT_STREAM)

/* Up to @count of the bytes published: wait while there are none yet and
 * the writer is still writing; 0 at the end of a complete spool. */
static gssize
tail_stream_read (GInputStream *in, void *buf, gsize count, GCancellable *cancel,
                  GError **error)
{
  (void) cancel;
  TailStream *ts = (TailStream *) in;
  SpoolTail *t = ts->tail;
  g_mutex_lock (&t->lock);
  while (ts->off >= t->published && t->state == TAIL_WRITING)
    g_cond_wait (&t->cond, &t->lock);
  guint64 avail = t->published - MIN (ts->off, t->published);
  int state = t->state;
  g_mutex_unlock (&t->lock);
  if (avail == 0)
    {
      if (state == TAIL_COMPLETE)
        return 0;
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "the spool being followed was abandoned");
      return -1;
    }
  gsize want = (gsize) MIN ((guint64) count, avail);
  gssize n;
  do
    n = pread (t->fd, buf, want, (off_t) ts->off);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    {
      int e = n < 0 ? errno : EIO;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "spool: %s", g_strerror (e));
      return -1;
    }
  ts->off += (guint64) n;
  return n;
}

static void
tail_stream_finalize (GObject *o)
{
  spool_tail_unref (((TailStream *) o)->tail);
  G_OBJECT_CLASS (tail_stream_parent_class)->finalize (o);
}

static void
tail_stream_class_init (TailStreamClass *k)
{
  G_INPUT_STREAM_CLASS (k)->read_fn = tail_stream_read;
  G_OBJECT_CLASS (k)->finalize = tail_stream_finalize;
}

static void
tail_stream_init (TailStream *ts)
{
  (void) ts;
}

/* ---- the stream ----------------------------------------------------------- */

struct _SimTraceStream {
  gint             ref;
  SimTraceReader  *reader;
  char            *name;
  SimTraceFormat   format;
  SimTraceStrings *strings;
  SimTraceEvent   *buf[SIM_TRACE_MAX_BUFFERS];
  guint            n_buf, cur;
  guint64          n_chunks;     /* chunks handed out (their sizes: chunk_size) */
  gboolean         done;
  GError          *pending;      /* a trace error after the events handed out */
  /* the decoded-trace cache */
  gboolean         cached;       /* a hit: reading the cached native file */
  char            *cache_dir, *cache_path;
  guint64          cache_max;
  SimOutput       *cache_out;    /* a miss: writing the native file */
  GOutputStream   *cache_stream;
  SimNativeWriter *writer;
  /* keep: the events written to an unlinked native file as they are
   * decoded, for sim_trace_stream_again (a text trace only) */
  gboolean         keep;
  char            *path, *read_path;   /* what a second reading opens otherwise */
  gboolean         lenient;
  int              spool_fd;           /* -1: none */
  char            *spool_path;         /* /proc/self/fd/N */
  GOutputStream   *spool_stream;
  SimNativeWriter *spool_writer;
  gboolean         spooled;            /* complete */
  SpoolTail       *tail;               /* what followers may read of it */
};

/* Counts of readers the streams opened, by kind (sim_trace_stream_counts). */
static gint n_text_decodes, n_native_reads;

static void
count_open (SimTraceReader *r)
{
  if (sim_trace_reader_format (r) == SIM_TRACE_FORMAT_NATIVE)
    g_atomic_int_inc (&n_native_reads);
  else
    g_atomic_int_inc (&n_text_decodes);
}

void
sim_trace_stream_counts (guint *text_decodes, guint *native_reads)
{
  if (text_decodes)
    *text_decodes = (guint) g_atomic_int_get (&n_text_decodes);
  if (native_reads)
    *native_reads = (guint) g_atomic_int_get (&n_native_reads);
}

static void
spool_abandon (SimTraceStream *s)
{
  /* A spool that cannot be written is not an error: a second reading
   * decodes the trace again instead. */
  g_clear_pointer (&s->spool_writer, sim_native_writer_free);
  g_clear_object (&s->spool_stream);
  SpoolTail *t = stream_tail_take (&s->tail);
  if (t)
    spool_tail_publish (t, 0, TAIL_ABANDONED);
  spool_tail_unref (t);
  if (s->spool_fd >= 0)
    close (s->spool_fd);
  s->spool_fd = -1;
  g_clear_pointer (&s->spool_path, g_free);
  s->spooled = FALSE;
}

/* Start the spool: an unlinked temporary file, reopened through
 * /proc/self/fd so that nothing is left behind however the process ends. */
static void
spool_start (SimTraceStream *s)
{
  g_autofree char *tmp = NULL;
  s->spool_fd = g_file_open_tmp ("slabsim-spool-XXXXXX.slabtr", &tmp, NULL);
  if (s->spool_fd < 0)
    return;
  s->spool_path = g_strdup_printf ("/proc/self/fd/%d", s->spool_fd);
  g_autoptr (GFile) f = g_file_new_for_path (s->spool_path);
  g_autoptr (GFileOutputStream) out = g_file_append_to (f, G_FILE_CREATE_NONE, NULL, NULL);
  g_unlink (tmp);
  if (out == NULL)
    {
      spool_abandon (s);
      return;
    }
  s->spool_stream = g_buffered_output_stream_new_sized (G_OUTPUT_STREAM (out), 1 << 20);
  /* The spool variant (traces/native.h): the spool is ours and read back
   * by this process alone, in a fraction of the public record's decode. */
  s->spool_writer = sim_native_writer_new_spool (s->spool_stream, s->reader, NULL);
  if (s->spool_writer == NULL)
    {
      spool_abandon (s);
      return;
    }
  int fd = dup (s->spool_fd);
  if (fd < 0)
    return;                   /* no follower: the spool still serves again */
  s->tail = g_new0 (SpoolTail, 1);
  s->tail->ref = 1;
  s->tail->fd = fd;
  g_mutex_init (&s->tail->lock);
  g_cond_init (&s->tail->cond);
}

/* The spool's size on disk: what a follower may read. */
static guint64
spool_size (SimTraceStream *s)
{
  struct stat st;
  return fstat (s->spool_fd, &st) == 0 ? (guint64) st.st_size : 0;
}

/* After a chunk: flush it to the spool so that followers can read it. */
static void
spool_publish (SimTraceStream *s)
{
  if (s->tail == NULL || s->spool_writer == NULL)
    return;
  if (!g_output_stream_flush (s->spool_stream, NULL, NULL))
    {
      spool_abandon (s);
      return;
    }
  spool_tail_publish (s->tail, spool_size (s), TAIL_WRITING);
}

static void
spool_finish (SimTraceStream *s)
{
  if (s->spool_writer == NULL)
    return;
  if (!sim_native_writer_finish (s->spool_writer, NULL))
    {
      spool_abandon (s);
      return;
    }
  g_clear_pointer (&s->spool_writer, sim_native_writer_free);
  g_clear_object (&s->spool_stream);
  s->spooled = TRUE;
  SpoolTail *t = stream_tail_take (&s->tail);
  if (t)
    {
      spool_tail_publish (t, spool_size (s), TAIL_COMPLETE);
      spool_tail_unref (t);
    }
}

static void
cache_abandon (SimTraceStream *s)
{
  /* A cache entry that cannot be written is not an error of the run: the
   * replay goes on, and the entry is left out (no partial file remains). */
  g_clear_pointer (&s->writer, sim_native_writer_free);
  g_clear_object (&s->cache_stream);
  if (s->cache_out)
    sim_output_abort (s->cache_out);
  s->cache_out = NULL;
}

SimTraceStream *
sim_trace_stream_ref (SimTraceStream *s)
{
  g_atomic_int_inc (&s->ref);
  return s;
}

void
sim_trace_stream_free (SimTraceStream *s)
{
  if (s == NULL || !g_atomic_int_dec_and_test (&s->ref))
    return;
  cache_abandon (s);
  spool_abandon (s);
  sim_trace_reader_free (s->reader);
  g_free (s->name);
  g_free (s->path);
  g_free (s->read_path);
  if (s->strings)
    {
      for (guint i = 0; i < DIR_SIZE && s->strings->dir[i]; i++)
        g_free (s->strings->dir[i]);
      g_string_chunk_free (s->strings->chunk);
      g_free (s->strings);
    }
  for (guint i = 0; i < SIM_TRACE_MAX_BUFFERS; i++)
    g_free (s->buf[i]);
  g_clear_error (&s->pending);
  g_free (s->cache_dir);
  g_free (s->cache_path);
  g_free (s);
}

char *
sim_trace_file_sha256 (const char *path, GError **error)
{
  g_autoptr (GFile) f = g_file_new_for_commandline_arg (path);
  GError *local = NULL;
  g_autoptr (GFileInputStream) in = g_file_read (f, NULL, &local);
  char *sha = in ? sim_sha256_stream (G_INPUT_STREAM (in), NULL, &local) : NULL;
  if (sha == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: %s", path, local->message);
      g_error_free (local);
    }
  return sha;
}

char *
sim_trace_cache_default_dir (void)
{
  const char *d = g_getenv ("SLABSIM_TRACE_CACHE_DIR");
  if (d && *d)
    return g_strdup (d);
  return g_build_filename (g_get_user_cache_dir (), "slabsim", "traces", NULL);
}

guint64
sim_trace_cache_default_max (void)
{
  const char *m = g_getenv ("SLABSIM_TRACE_CACHE_MAX_MB");
  guint64 mb;
  if (m && g_ascii_string_to_unsigned (m, 10, 1, G_MAXUINT32, &mb, NULL))
    return mb << 20;
  return SIM_TRACE_CACHE_MAX_DEFAULT;
}

gboolean
sim_trace_cache_env_enabled (void)
{
  const char *e = g_getenv ("SLABSIM_TRACE_CACHE");
  return e && *e && strcmp (e, "0") != 0;
}

/* Mark a hit as recently used (the bound evicts by modification time). */
static void
cache_touch (const char *path)
{
  g_utime (path, NULL);
}

typedef struct {
  char   *path;
  gint64  mtime_ns;
  guint64 size;
} CacheFile;

static gint
cmp_cache_file (gconstpointer a, gconstpointer b)
{
  const CacheFile *x = a, *y = b;
  if (x->mtime_ns != y->mtime_ns)
    return x->mtime_ns < y->mtime_ns ? -1 : 1;
  return strcmp (x->path, y->path);
}

/* Trim the cache to its bound, oldest entries first; @keep (just written)
 * stays even when it alone exceeds the bound. */
static void
cache_trim (const char *dir, guint64 max, const char *keep)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  g_autoptr (GArray) files = g_array_new (FALSE, FALSE, sizeof (CacheFile));
  guint64 total = 0;
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      if (!g_str_has_suffix (name, ".slabtr") || name[0] == '.')
        continue;
      char *path = g_build_filename (dir, name, NULL);
      struct stat st;
      if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
        {
          g_free (path);
          continue;
        }
      CacheFile f = { path, (gint64) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                      (guint64) st.st_size };
      total += f.size;
      g_array_append_val (files, f);
    }
  g_array_sort (files, cmp_cache_file);
  for (guint i = 0; i < files->len; i++)
    {
      CacheFile *f = &g_array_index (files, CacheFile, i);
      if (total > max && strcmp (f->path, keep) != 0 && g_unlink (f->path) == 0)
        total -= f->size;
      g_free (f->path);
    }
}

/* The cache entry's file name: what the events were decoded from and how. */
static char *
cache_key (const char *sha, gboolean lenient)
{
  return g_strdup_printf ("%s-n%d-%s%s.slabtr", sha, SIM_NATIVE_VERSION, SLABSIM_VERSION,
                          lenient ? "-lenient" : "");
}

static gboolean
open_cached (SimTraceStream *s, const char *path, const SimTraceStreamOptions *opt,
             GError **error)
{
  g_autofree char *sha = sim_trace_file_sha256 (path, error);
  if (sha == NULL)
    return FALSE;
  s->cache_dir = g_strdup (opt->cache_dir);
  s->cache_max = opt->cache_max ? opt->cache_max : SIM_TRACE_CACHE_MAX_DEFAULT;
  g_autofree char *key = cache_key (sha, opt->lenient);
  s->cache_path = g_build_filename (opt->cache_dir, key, NULL);
  if (g_file_test (s->cache_path, G_FILE_TEST_IS_REGULAR))
    {
      s->reader = sim_trace_reader_open (s->cache_path, error);
      if (s->reader == NULL)
        return FALSE;
      if (sim_trace_reader_format (s->reader) != SIM_TRACE_FORMAT_NATIVE)
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_FORMAT,
                       "%s: the decoded-trace cache holds a file that is not a native trace "
                       "(remove it)", s->cache_path);
          return FALSE;
        }
      s->cached = TRUE;
      s->format = sim_trace_reader_source_format (s->reader);
      cache_touch (s->cache_path);
      return TRUE;
    }
  s->reader = sim_trace_reader_open (path, error);
  if (s->reader == NULL)
    return FALSE;
  if (sim_trace_reader_format (s->reader) == SIM_TRACE_FORMAT_NATIVE)
    return TRUE;         /* already as fast as the cache would make it */
  if (g_mkdir_with_parents (opt->cache_dir, 0777) != 0)
    return TRUE;         /* no cache, but the replay goes on */
  s->cache_out = sim_output_open (s->cache_path, NULL);
  if (s->cache_out == NULL)
    return TRUE;
  s->cache_stream = g_buffered_output_stream_new_sized (sim_output_stream (s->cache_out),
                                                        1 << 20);
  s->writer = sim_native_writer_new (s->cache_stream, s->reader, NULL);
  if (s->writer == NULL)
    cache_abandon (s);
  return TRUE;
}

SimTraceStream *
sim_trace_stream_open (const char *path, const SimTraceStreamOptions *opt, GError **error)
{
  static const SimTraceStreamOptions none = { 0 };
  if (opt == NULL)
    opt = &none;
  g_autoptr (SimTraceStream) s = g_new0 (SimTraceStream, 1);
  s->ref = 1;
  s->spool_fd = -1;
  s->name = g_strdup (strcmp (path, "-") == 0 ? "(stdin)" : path);
  s->strings = g_new0 (SimTraceStrings, 1);
  s->strings->chunk = g_string_chunk_new (4096);
  if (opt->read_path)
    s->reader = sim_trace_reader_open (opt->read_path, error);
  else if (opt->cache_dir && strcmp (path, "-") != 0)
    {
      if (!open_cached (s, path, opt, error))
        return NULL;
    }
  else
    s->reader = sim_trace_reader_open (path, error);
  if (s->reader == NULL)
    return NULL;
  count_open (s->reader);
  sim_trace_reader_set_lenient (s->reader, opt->lenient);
  if (!s->cached)
    s->format = opt->read_path ? sim_trace_reader_source_format (s->reader)
                               : sim_trace_reader_format (s->reader);
  s->n_buf = 2;
  s->keep = opt->keep;
  s->lenient = opt->lenient;
  s->path = g_strdup (path);
  s->read_path = g_strdup (s->cached ? s->cache_path : opt->read_path);
  if (s->keep && sim_trace_reader_format (s->reader) != SIM_TRACE_FORMAT_NATIVE)
    spool_start (s);
  return g_steal_pointer (&s);
}

static gboolean
sync_strings (SimTraceStream *s, GError **error)
{
  guint32 n = sim_trace_reader_n_strings (s->reader);
  for (guint32 id = s->strings->n + 1; id <= n; id++)
    if (!strings_append (s->strings, sim_trace_reader_string (s->reader, id),
                         sim_trace_reader_string_len (s->reader, id)))
      {
        g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                     "%s: more than %u distinct strings", s->name, DIR_SIZE * PAGE_SIZE);
        return FALSE;
      }
  return TRUE;
}

static void
cache_finish (SimTraceStream *s)
{
  if (s->writer == NULL)
    return;
  if (!sim_native_writer_finish (s->writer, NULL))
    {
      cache_abandon (s);
      return;
    }
  g_clear_pointer (&s->writer, sim_native_writer_free);
  g_clear_object (&s->cache_stream);
  SimOutput *o = g_steal_pointer (&s->cache_out);
  if (sim_output_commit (o, NULL))
    cache_trim (s->cache_dir, s->cache_max, s->cache_path);
}

/* How many events chunk @i of every stream holds (all but the last):
 * SIM_TRACE_CHUNK, but the first seven are smaller (128, 256, ... 8 k).  A
 * pipelined run's replays wait for the pre-pass to hand out their first
 * chunk (sim/run/prepass.h), which it can do only when it has read the
 * chunk after it and a grace period of trace time beyond it: small first
 * chunks let them start sooner.  Every reading of a trace (the pre-pass's,
 * a follower, a second reading) cuts it at the same events; what a chunk
 * holds is only how the events are batched, never what they are. */
#define FIRST_CHUNK 128

static guint
chunk_size (guint64 i)
{
  return i < 7 ? FIRST_CHUNK << i : SIM_TRACE_CHUNK;
}

G_STATIC_ASSERT ((FIRST_CHUNK << 7) == SIM_TRACE_CHUNK);

gboolean
sim_trace_stream_next (SimTraceStream *s, const SimTraceEvent **ev, guint *n, GError **error)
{
  if (s->pending)
    {
      g_propagate_error (error, g_steal_pointer (&s->pending));
      s->done = TRUE;
      return FALSE;
    }
  if (s->done)
    return FALSE;
  s->cur = (s->cur + 1) % s->n_buf;
  if (s->buf[s->cur] == NULL)
    s->buf[s->cur] = g_new (SimTraceEvent, SIM_TRACE_CHUNK);
  SimTraceEvent *b = s->buf[s->cur];
  GError *local = NULL;
  guint want = chunk_size (s->n_chunks++);
  guint k = sim_trace_reader_next_n (s->reader, b, want, &local);
  GError *serr = NULL;
  if (!sync_strings (s, &serr))
    {
      g_clear_error (&local);
      local = serr;
      k = 0;
    }
  if (s->writer && !sim_native_writer_add_many (s->writer, b, k, NULL))
    cache_abandon (s);
  if (s->spool_writer && !sim_native_writer_add_many (s->spool_writer, b, k, NULL))
    spool_abandon (s);
  if (local)
    {
      cache_abandon (s);        /* never cache a trace that did not read to its end */
      spool_abandon (s);
      if (k == 0)
        {
          g_propagate_error (error, local);
          s->done = TRUE;
          return FALSE;
        }
      s->pending = local;
    }
  else if (k < want)
    {
      s->done = TRUE;
      cache_finish (s);
      spool_finish (s);
      if (k == 0)
        return FALSE;
    }
  else
    spool_publish (s);
  *ev = b;
  *n = k;
  return TRUE;
}

void
sim_trace_stream_set_buffers (SimTraceStream *s, guint n)
{
  g_return_if_fail (n >= 2 && n <= SIM_TRACE_MAX_BUFFERS);
  s->n_buf = n;
}

/* A second reading of @s through @r (NULL: the opening failed): a
 * stream of its own, with @s's name, format and leniency. */
static SimTraceStream *
stream_reading (SimTraceStream *s, SimTraceReader *r)
{
  if (r == NULL)
    return NULL;
  count_open (r);
  sim_trace_reader_set_lenient (r, s->lenient);
  SimTraceStream *a = g_new0 (SimTraceStream, 1);
  a->ref = 1;
  a->spool_fd = -1;
  a->reader = r;
  a->name = g_strdup (s->name);
  a->format = s->format;
  a->cached = s->cached;
  a->strings = g_new0 (SimTraceStrings, 1);
  a->strings->chunk = g_string_chunk_new (4096);
  a->n_buf = 2;
  return a;
}

SimTraceStream *
sim_trace_stream_again (SimTraceStream *s, GError **error)
{
  g_return_val_if_fail (s->keep && s->done && s->pending == NULL, NULL);
  SimTraceReader *r;
  if (s->spooled)
    {
      g_autoptr (GFile) f = g_file_new_for_path (s->spool_path);
      g_autoptr (GFileInputStream) in = g_file_read (f, NULL, error);
      if (in == NULL)
        return NULL;
      r = sim_trace_reader_new (G_INPUT_STREAM (in), s->name, SIM_TRACE_FORMAT_AUTO, error);
    }
  else
    /* a native file (the trace, its conversion, the cached entry) or a
     * spool that could not be written: the same source again */
    r = sim_trace_reader_open (s->read_path ? s->read_path : s->path, error);
  return stream_reading (s, r);
}

SimTraceStream *
sim_trace_stream_follow (SimTraceStream *s, GError **error)
{
  g_return_val_if_fail (s->keep, NULL);
  SimTraceReader *r;
  g_mutex_lock (&tail_ptr_lock);
  SpoolTail *tail = s->tail ? spool_tail_ref (s->tail) : NULL;
  g_mutex_unlock (&tail_ptr_lock);
  if (tail)
    {
      TailStream *ts = g_object_new (tail_stream_get_type (), NULL);
      ts->tail = tail;
      r = sim_trace_reader_new (G_INPUT_STREAM (ts), s->name, SIM_TRACE_FORMAT_AUTO, error);
      g_object_unref (ts);
    }
  else if (sim_trace_reader_format (s->reader) == SIM_TRACE_FORMAT_NATIVE
           && strcmp (s->read_path ? s->read_path : s->path, "-") != 0)
    r = sim_trace_reader_open (s->read_path ? s->read_path : s->path, error);
  else
    return NULL;
  return stream_reading (s, r);
}

const SimTraceStrings *
sim_trace_stream_strings (SimTraceStream *s)
{
  return s->strings;
}

const char *
sim_trace_stream_name (SimTraceStream *s)
{
  return s->name;
}

const SimTraceStats *
sim_trace_stream_stats (SimTraceStream *s)
{
  return sim_trace_reader_stats (s->reader);
}

SimTraceFormat
sim_trace_stream_format (SimTraceStream *s)
{
  return s->format;
}

gboolean
sim_trace_stream_cached (SimTraceStream *s)
{
  return s->cached;
}

char *
sim_trace_decode_to (const char *trace, const char *dest, GError **error)
{
  {
    g_autoptr (SimTraceReader) r = sim_trace_reader_open (trace, error);
    if (r == NULL)
      return NULL;
    if (sim_trace_reader_format (r) == SIM_TRACE_FORMAT_NATIVE)
      return g_strdup (trace);
  }
  if (!sim_native_convert (trace, dest, FALSE, NULL, error))
    return NULL;
  return g_strdup (dest);
}

char *
sim_trace_cache_prepare (const char *trace, const char *dir, guint64 max, gboolean lenient,
                         GError **error)
{
  {
    g_autoptr (SimTraceReader) r = sim_trace_reader_open (trace, error);
    if (r == NULL)
      return NULL;
    if (sim_trace_reader_format (r) == SIM_TRACE_FORMAT_NATIVE)
      return g_strdup (trace);
  }
  g_autofree char *sha = sim_trace_file_sha256 (trace, error);
  if (sha == NULL)
    return NULL;
  g_autofree char *key = cache_key (sha, lenient);
  char *path = g_build_filename (dir, key, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      cache_touch (path);
      return path;
    }
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      int e = errno;
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: %s", dir, g_strerror (e));
      g_free (path);
      return NULL;
    }
  if (!sim_native_convert (trace, path, lenient, NULL, error))
    {
      g_free (path);
      return NULL;
    }
  cache_trim (dir, max ? max : SIM_TRACE_CACHE_MAX_DEFAULT, path);
  return path;
}
