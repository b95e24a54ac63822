/* reader-tracecmd.c - the reader's decoder of trace-cmd's trace.dat, through
 * libtracecmd and libtraceevent (trace-cmd 3.x; file versions 6 and 7,
 * compressed or not).
 *
 * `trace-cmd record -e kmem:...` is how most kernel people record, and its
 * trace.dat holds the ring buffer's binary records plus everything needed
 * to print them (the events' formats, kallsyms, saved task names).  The
 * events must come out exactly as the text reader makes them from the same
 * file's `trace-cmd report -t` text, so the decoder does what report does:
 * records in timestamp order across CPUs (the lowest CPU first on equal
 * timestamps, as tracecmd_peek_next_data picks), each one's fields printed
 * with the event's own print format by tep_print_event (the kernel's
 * TP_printk: gfp_flags as names, call_site as sym+0xoff from the file's
 * kallsyms), and that "key=value" text read by the text parser's field scan
 * (sim_trace_text_fields).  So every era's field set reads the same way as
 * in text: no name= before 6.18 / 5.12, node= and accounted= only where the
 * kernel prints them, the *_node events of older kernels.  Task names come
 * from the file's saved cmdlines, as report prints them ("<...>" when the
 * kernel did not save one).  No plugins are loaded (TRACECMD_FL_LOAD_NO_
 * PLUGINS): what a system's plugins add to report's lines (plugin_kmem's
 * "(func+off)" before the fields) is not a field, and the result must not
 * depend on the machine that reads the file.
 *
 * Dropped events (record->missed_events) count as report's "CPU:N [M EVENTS
 * DROPPED]" markers do in text: lost_markers, and lost_events when the ring
 * buffer kept the count.  Events we do not read are counted by name in
 * other_events, as in text.
 *
 * libtracecmd reads from a file descriptor and seeks, so the trace.dat is
 * opened from its path when it is a regular file; from standard input, a
 * gzip-compressed one or a memory stream (the fuzzer), the bytes are first
 * copied into an unlinked temporary file.  Before libtracecmd sees the
 * file, its fixed head (magic, version, endianness, long size, page size,
 * compression) is checked here, so that a file libtracecmd would refuse at
 * that point gets a precise error, and so that every later refusal happens
 * after libtracecmd owns the descriptor (tracecmd_open_fd closes it then;
 * an early refusal would leak it).  Left out: trace-cmd's buffer instances
 * (-B: only the top-level buffer is read) and guest/host merged traces.
 */
#include "traces/reader-private.h"
#include "sim/core/errors.h"

#include <string.h>

#ifdef HAVE_LIBTRACECMD

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <trace-cmd/trace-cmd.h>

typedef struct _SimTraceDat SimTraceDat;

struct _SimTraceDat {
  struct tracecmd_input *h;
  struct tep_handle *tep;
  int ncpu;
  struct tep_record **next;     /* per CPU: the next record, NULL when drained */
  gboolean *drained;
  struct trace_seq seq;
  guint64 records;              /* records handed out so far (all events) */
};

static gpointer
quiet_libs (gpointer data)
{
  (void) data;
  /* the reader never prints: libtracecmd's and libtraceevent's warnings
   * would go to stderr */
  tracecmd_set_loglevel (TEP_LOG_NONE);
  tep_set_loglevel (TEP_LOG_NONE);
  return NULL;
}

/* A copy of r->buf's unread bytes and the rest of r->in in an unlinked
 * temporary file; its descriptor at offset 0, or -1 with @error set. */
static int
spool (SimTraceReader *r, GError **error)
{
  g_autofree char *tmp = NULL;
  GError *local = NULL;
  int fd = g_file_open_tmp ("slabsim-dat-XXXXXX", &tmp, &local);
  if (fd < 0)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "%s: cannot copy the trace.dat to a temporary file: %s", r->name,
                   local->message);
      g_error_free (local);
      return -1;
    }
  g_unlink (tmp);
  gboolean ok = TRUE;
  for (;;)
    {
      const char *p = r->buf + r->pos;
      gsize n = r->end - r->pos;
      while (n > 0 && ok)
        {
          ssize_t w = write (fd, p, n);
          if (w < 0 && errno == EINTR)
            continue;
          if (w <= 0)
            {
              int e = errno;
              g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                           "%s: cannot copy the trace.dat to a temporary file: %s", r->name,
                           w < 0 ? g_strerror (e) : "short write");
              ok = FALSE;
            }
          else
            p += w, n -= w;
        }
      r->pos = r->end;
      if (!ok || r->eof)
        break;
      if (sim_trace_reader_fill (r, r->cap, error) < 0)
        {
          ok = FALSE;
          break;
        }
    }
  if (ok && lseek (fd, 0, SEEK_SET) != 0)
    {
      int e = errno;
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: %s", r->name, g_strerror (e));
      ok = FALSE;
    }
  if (!ok)
    {
      close (fd);
      return -1;
    }
  return fd;
}

static gboolean
read_at (int fd, guint64 off, void *buf, gsize len)
{
  gsize got = 0;
  while (got < len)
    {
      ssize_t n = pread (fd, (char *) buf + got, len - got, (off_t) (off + got));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      got += n;
    }
  return TRUE;
}

/* A NUL-terminated string of at most @max bytes at @*off; FALSE if there is
 * none. */
static gboolean
read_str (int fd, guint64 *off, char *out, gsize max)
{
  for (gsize i = 0; i < max; i++)
    {
      if (!read_at (fd, *off + i, out + i, 1))
        return FALSE;
      if (out[i] == '\0')
        {
          *off += i + 1;
          return TRUE;
        }
    }
  return FALSE;
}

#define DAT_ERR(r, fmt, ...)                                                    \
  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,               \
               "%s: expected a trace-cmd trace.dat: " fmt, (r)->name, __VA_ARGS__)

/* The fixed head tracecmd_alloc_fd reads (trace-cmd.dat(5)): magic
 * "\x17\x08\x44tracing", the version as a decimal string, endianness,
 * long size, page size, and from version 7 the compression's name and
 * version and the first option section's offset. */
static gboolean
check_head (SimTraceReader *r, int fd, GError **error)
{
  char buf[64];
  guint64 off = 10;
  struct stat st;
  if (fstat (fd, &st) != 0 || st.st_size < 10 || !read_at (fd, 0, buf, 10) ||
      memcmp (buf, "\x17\x08\x44tracing", 10) != 0)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s: expected a trace-cmd trace.dat starting \\x17\\x08\\x44tracing", r->name);
      return FALSE;
    }
  if (!read_str (fd, &off, buf, 8))
    {
      DAT_ERR (r, "%s", "a version string after the magic (the file is cut or corrupt)");
      return FALSE;
    }
  char *end = NULL;
  guint64 version = g_ascii_strtoull (buf, &end, 10);
  if (end == buf || *end != '\0' || version < 6 || version > 7)
    {
      g_autofree char *q = g_strescape (buf, NULL);
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                   "%s: trace.dat version \"%s\": expected 6 or 7 (trace-cmd 2.x-3.x; "
                   "convert an older file with a newer trace-cmd, or with trace-cmd report)",
                   r->name, q);
      return FALSE;
    }
  guint8 fixed[6];
  if (!read_at (fd, off, fixed, sizeof fixed))
    {
      DAT_ERR (r, "%s", "endianness, long size and page size after the version (the file is cut)");
      return FALSE;
    }
  off += sizeof fixed;
  if (fixed[0] > 1 || (fixed[1] != 4 && fixed[1] != 8))
    {
      DAT_ERR (r, "endianness 0 or 1 and a long size of 4 or 8 bytes, got %u and %u",
               fixed[0], fixed[1]);
      return FALSE;
    }
  guint32 page = fixed[0] ? ((guint32) fixed[2] << 24 | (guint32) fixed[3] << 16 |
                             (guint32) fixed[4] << 8 | fixed[5])
                          : ((guint32) fixed[5] << 24 | (guint32) fixed[4] << 16 |
                             (guint32) fixed[3] << 8 | fixed[2]);
  if (page < 1024 || page > (1u << 20) || (page & (page - 1)) != 0)
    {
      DAT_ERR (r, "a page size that is a power of two from 1 KiB to 1 MiB, got %u", page);
      return FALSE;
    }
  if (version >= 7)
    {
      char zname[32], zver[32];
      if (!read_str (fd, &off, zname, sizeof zname) || !read_str (fd, &off, zver, sizeof zver))
        {
          DAT_ERR (r, "%s", "the compression's name and version (the file is cut or corrupt)");
          return FALSE;
        }
      if (strcmp (zname, "none") != 0 && strcmp (zname, "zstd") != 0 && strcmp (zname, "zlib") != 0)
        {
          g_autofree char *q = g_strescape (zname, NULL);
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                       "%s: trace.dat compressed with \"%s\": expected none, zstd or zlib",
                       r->name, q);
          return FALSE;
        }
      guint8 o8[8];
      if (!read_at (fd, off, o8, sizeof o8))
        {
          DAT_ERR (r, "%s", "the offset of its first option section (the file is cut)");
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
sim_trace_dat_open (SimTraceReader *r, const char *file, GError **error)
{
  static GOnce once = G_ONCE_INIT;
  g_once (&once, quiet_libs, NULL);

  int fd = -1;
  if (file != NULL)
    {
      fd = open (file, O_RDONLY | O_CLOEXEC);
      struct stat st;
      if (fd >= 0 && (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)))
        {
          close (fd);
          fd = -1;
        }
    }
  if (fd < 0)
    fd = spool (r, error);
  if (fd < 0)
    return FALSE;
  /* the text buffer is not used again */
  r->pos = r->end;
  r->eof = TRUE;
  if (!check_head (r, fd, error))
    {
      close (fd);
      return FALSE;
    }

  struct tracecmd_input *h = tracecmd_open_fd (fd, TRACECMD_FL_LOAD_NO_PLUGINS);
  /* from here the descriptor is libtracecmd's (closed by tracecmd_close,
   * also when tracecmd_open_fd fails after check_head's checks) */
  if (h == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s: libtracecmd could not read this trace.dat's headers (event formats, "
                   "kallsyms, options or CPU data offsets): the file is cut or corrupt "
                   "(does `trace-cmd report -i %s` read it?)", r->name, r->name);
      return FALSE;
    }
  SimTraceDat *d = g_new0 (SimTraceDat, 1);
  r->dat = d;
  d->h = h;
  d->tep = tracecmd_get_tep (h);
  d->ncpu = d->tep ? tep_get_cpus (d->tep) : 0;
  if (d->tep == NULL || d->ncpu < 0 || d->ncpu > 65536)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s: expected a trace.dat with 0 to 65536 CPUs, got %d", r->name, d->ncpu);
      return FALSE;
    }
  d->next = g_new0 (struct tep_record *, MAX (d->ncpu, 1));
  d->drained = g_new0 (gboolean, MAX (d->ncpu, 1));
  trace_seq_init (&d->seq);
  return TRUE;
}

void
sim_trace_dat_close (SimTraceReader *r)
{
  SimTraceDat *d = r->dat;
  if (d == NULL)
    return;
  for (int c = 0; d->next && c < d->ncpu; c++)
    if (d->next[c])
      tracecmd_free_record (d->next[c]);
  g_free (d->next);
  g_free (d->drained);
  if (d->seq.buffer)
    trace_seq_destroy (&d->seq);
  tracecmd_close (d->h);
  g_free (d);
  r->dat = NULL;
}

/* The earliest pending record over all CPUs (the lowest CPU on a tie), or
 * NULL at the end. */
static struct tep_record *
take_next (SimTraceDat *d, int *cpu)
{
  int best = -1;
  for (int c = 0; c < d->ncpu; c++)
    {
      if (d->next[c] == NULL && !d->drained[c])
        {
          d->next[c] = tracecmd_read_data (d->h, c);
          if (d->next[c] == NULL)
            d->drained[c] = TRUE;
        }
      if (d->next[c] && (best < 0 || d->next[c]->ts < d->next[best]->ts))
        best = c;
    }
  if (best < 0)
    return NULL;
  struct tep_record *rec = d->next[best];
  d->next[best] = NULL;
  *cpu = best;
  return rec;
}

gboolean
sim_trace_dat_next (SimTraceReader *r, SimTraceEvent *ev, GError **error)
{
  SimTraceDat *d = r->dat;
  for (;;)
    {
      int cpu = 0;
      struct tep_record *rec = take_next (d, &cpu);
      if (rec == NULL)
        {
          r->done = TRUE;
          return FALSE;
        }
      d->records++;
      if (rec->missed_events != 0)
        {
          r->stats.lost_markers++;
          if (rec->missed_events > 0)
            r->stats.lost_events += (guint64) rec->missed_events;
        }
      struct tep_event *event = tep_find_event_by_record (d->tep, rec);
      int kind = event && event->name ? sim_trace_kind_from_name (event->name,
                                                                  strlen (event->name)) : -1;
      if (kind < 0)
        {
          /* as report prints it: the event's name, or its number */
          g_autofree char *name = event && event->name ? g_strdup (event->name)
                                  : g_strdup_printf ("[event %d]", tep_data_type (d->tep, rec));
          sim_trace_stats_add_other (&r->stats, name, strlen (name), 1);
          r->stats.skipped_lines++;
          tracecmd_free_record (rec);
          continue;
        }

      memset (ev, 0, sizeof *ev);
      ev->kind = (SimTraceKind) kind;
      ev->cpu = cpu;
      ev->ts_ns = rec->ts;
      ev->node = ev->order = ev->migratetype = ev->accounted = -1;
      ev->pid = tep_data_pid (d->tep, rec);
      if (ev->pid < -1)
        ev->pid = -1;
      const char *comm = tep_data_comm_from_pid (d->tep, ev->pid);
      if (comm && *comm)
        ev->comm_id = sim_trace_intern_comm (r, comm, strlen (comm));

      trace_seq_reset (&d->seq);
      tep_print_event (d->tep, &d->seq, rec, "%s", TEP_PRINT_INFO);
      trace_seq_terminate (&d->seq);
      GString *msg = NULL;
      gboolean ok = d->seq.state == TRACE_SEQ__GOOD &&
                    sim_trace_text_fields (r, d->seq.buffer, d->seq.buffer + d->seq.len, ev, &msg);
      if (d->seq.state != TRACE_SEQ__GOOD && msg == NULL)
        msg = g_string_new ("libtraceevent could not print the event's fields");
      tracecmd_free_record (rec);
      if (ok)
        {
          ev->line = d->records;
          r->stats.events++;
          r->stats.by_kind[ev->kind]++;
          return TRUE;
        }
      if (r->lenient)
        {
          r->stats.malformed_lines++;
          g_string_free (msg, TRUE);
          continue;
        }
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                   "%s: record %" G_GUINT64_FORMAT " (CPU %d, %s): %s", r->name, d->records, cpu,
                   sim_trace_kind_name (ev->kind), msg->str);
      g_string_free (msg, TRUE);
      return FALSE;
    }
}

#else /* !HAVE_LIBTRACECMD */

gboolean
sim_trace_dat_open (SimTraceReader *r, const char *file, GError **error)
{
  (void) file;
  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
               "%s: a trace-cmd trace.dat, but slabsim was built without libtracecmd; "
               "install libtracecmd-dev and rebuild, or convert it with "
               "`trace-cmd report -t -i %s > kmem.trace`", r->name, r->name);
  return FALSE;
}

gboolean
sim_trace_dat_next (SimTraceReader *r, SimTraceEvent *ev, GError **error)
{
  (void) r;
  (void) ev;
  (void) error;
  return FALSE;
}

void
sim_trace_dat_close (SimTraceReader *r)
{
  (void) r;
}

#endif
