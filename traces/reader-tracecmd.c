/* reader-tracecmd.c - the reader's decoder of trace-cmd's trace.dat, through
 * libtracecmd and libtraceevent (trace-cmd 3.x: file versions 6 and 7,
 * compressed or not).
 *
 * `trace-cmd record -e kmem:...` is how most kernel people record, and its
 * trace.dat holds the ring buffer's binary records plus everything needed
 * to print them (the events' formats, kallsyms, saved task names).  The
 * events must come out exactly as the text reader makes them from the same
 * file's `trace-cmd report -t` text, so the decoder does what report does
 * and hands the text reader that text: records in timestamp order across
 * CPUs (the lowest CPU first on equal timestamps, as tracecmd_peek_next_data
 * picks), each printed as "comm-pid [cpu] sec.nsec: event: fields", the
 * fields by the event's own print format (the kernel's TP_printk: gfp_flags
 * as names, call_site as sym+0xoff from the file's kallsyms), dropped events
 * as report's "CPU:N [M EVENTS DROPPED]".  So every era's field set reads
 * as in text (no name= before 6.18 / 5.12, node= and accounted= only where
 * the kernel prints them, the *_node events of older kernels), and line
 * numbers in messages are those of the file's report.  No plugins are loaded
 * (TRACECMD_FL_LOAD_NO_PLUGINS): plugin_kmem's "(func+off)" before the
 * fields is not a field, and the result must not depend on the machine that
 * reads the file.
 *
 * libtracecmd 1.3 is not hardened against corrupt files (a cut trace.dat
 * crashes tracecmd_close inside tracecmd_open_fd), so it runs in a child
 * process that writes the text into a pipe; the parent reads the pipe as a
 * text trace (r->in) and, at its end, waits for the child: a failure or a
 * crash there is an error naming the file and how far its report got, never
 * a crash of slabsim.  The child is this same program started afresh
 * (posix_spawn of the file /proc/self/exe names, recognised before main by
 * dat_child_entry), not a fork: a fork of a process with threads (a run's
 * replay lanes, a sweep's pool, libFuzzer's) copies whatever locks those
 * threads held at that moment, and a child that then calls malloc can wait
 * for ever on an allocator lock no thread of its own will release (seen
 * under ASan).  Only where the program cannot be started again (no /proc)
 * is the child forked.  Before the child starts, the file's fixed head
 * (magic, version, endianness, long size, page size, compression) is
 * checked here, so the commonest mistakes get a precise message.
 * libtracecmd reads from a descriptor and seeks: a regular file is opened
 * from its path; standard input, a gzip-compressed trace.dat or a memory
 * stream (the fuzzer) is first copied into an unlinked temporary file.  Left out: trace-cmd's buffer
 * instances (-B: only the top-level buffer is read) and guest/host merged
 * traces.
 */
#define _GNU_SOURCE 1              /* pipe2, close_range, environ */
#include "traces/reader-private.h"
#include "sim/core/errors.h"

#include <string.h>

#ifdef HAVE_LIBTRACECMD

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include <gio/gunixinputstream.h>
#include <trace-cmd/trace-cmd.h>

typedef struct _SimTraceDat SimTraceDat;

struct _SimTraceDat {
  pid_t pid;                    /* the child printing the records; 0 when reaped */
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

/* ---- the child: libtracecmd prints the records ---------------------------- */

/* A small buffered writer on the pipe (the child uses no GLib). */
typedef struct {
  int fd;
  gsize len;
  char buf[1 << 16];
} Out;

static gboolean
out_flush (Out *o)
{
  gsize done = 0;
  while (done < o->len)
    {
      ssize_t n = write (o->fd, o->buf + done, o->len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += n;
    }
  o->len = 0;
  return TRUE;
}

static gboolean
out_put (Out *o, const char *s, gsize len)
{
  while (len > 0)
    {
      if (o->len == sizeof o->buf && !out_flush (o))
        return FALSE;
      gsize n = MIN (len, sizeof o->buf - o->len);
      memcpy (o->buf + o->len, s, n);
      o->len += n;
      s += n;
      len -= n;
    }
  return TRUE;
}

/* The earliest pending record over all CPUs (the lowest CPU on a tie, as
 * tracecmd_peek_next_data picks), or NULL at the end. */
static struct tep_record *
take_next (struct tracecmd_input *h, int ncpu, struct tep_record **next, gboolean *drained,
           int *cpu)
{
  int best = -1;
  for (int c = 0; c < ncpu; c++)
    {
      if (next[c] == NULL && !drained[c])
        {
          next[c] = tracecmd_read_data (h, c);
          if (next[c] == NULL)
            drained[c] = TRUE;
        }
      if (next[c] && (best < 0 || next[c]->ts < next[best]->ts))
        best = c;
    }
  if (best < 0)
    return NULL;
  struct tep_record *rec = next[best];
  next[best] = NULL;
  *cpu = best;
  return rec;
}

enum { CHILD_OK = 0, CHILD_HEADERS = 3, CHILD_WRITE = 4, CHILD_CPUS = 5 };

/* Print every record of the trace.dat on @in as `trace-cmd report -t`
 * prints it (without plugins) to @out; the exit status says how it ended. */
static G_GNUC_NORETURN void
child_report (int in, int out)
{
  quiet_libs (NULL);
  struct tracecmd_input *h = tracecmd_open_fd (in, TRACECMD_FL_LOAD_NO_PLUGINS);
  if (h == NULL)
    _exit (CHILD_HEADERS);
  struct tep_handle *tep = tracecmd_get_tep (h);
  int ncpu = tep ? tep_get_cpus (tep) : -1;
  if (ncpu < 0 || ncpu > 65536)
    _exit (CHILD_CPUS);
  static Out o;
  o.fd = out;
  struct tep_record **next = calloc (MAX (ncpu, 1), sizeof *next);
  gboolean *drained = calloc (MAX (ncpu, 1), sizeof *drained);
  struct trace_seq seq;
  trace_seq_init (&seq);
  char line[160];
  int n = snprintf (line, sizeof line, "cpus=%d\n", ncpu);
  if (next == NULL || drained == NULL || !out_put (&o, line, n))
    _exit (CHILD_WRITE);
  int cpu;
  struct tep_record *rec;
  while ((rec = take_next (h, ncpu, next, drained, &cpu)) != NULL)
    {
      if (rec->missed_events > 0)
        n = snprintf (line, sizeof line, "CPU:%d [%lld EVENTS DROPPED]\n", cpu,
                      (long long) rec->missed_events);
      else if (rec->missed_events < 0)
        n = snprintf (line, sizeof line, "CPU:%d [EVENTS DROPPED]\n", cpu);
      else
        n = 0;
      if (n > 0 && !out_put (&o, line, n))
        _exit (CHILD_WRITE);
      struct tep_event *event = tep_find_event_by_record (tep, rec);
      int pid = tep_data_pid (tep, rec);
      const char *comm = tep_data_comm_from_pid (tep, pid);
      trace_seq_reset (&seq);
      /* the task, CPU and time as report -t prints them; the event's own
       * print format for its fields */
      trace_seq_printf (&seq, "%16s-%-7d [%03d] %llu.%09llu: %s: ", comm ? comm : "<...>", pid,
                        cpu, (unsigned long long) (rec->ts / 1000000000ull),
                        (unsigned long long) (rec->ts % 1000000000ull),
                        event && event->name ? event->name : "[unknown event]");
      if (event)
        tep_print_event (tep, &seq, rec, "%s", TEP_PRINT_INFO);
      trace_seq_putc (&seq, '\n');
      trace_seq_terminate (&seq);
      /* a record's text never holds a newline but its own last one (a
       * string field could): the line reader must see one line */
      for (unsigned i = 0; seq.buffer && i + 1 < seq.len; i++)
        if (seq.buffer[i] == '\n' || seq.buffer[i] == '\0')
          seq.buffer[i] = ' ';
      if (seq.state != TRACE_SEQ__GOOD || !out_put (&o, seq.buffer, seq.len))
        _exit (CHILD_WRITE);
      tracecmd_free_record (rec);
    }
  if (!out_flush (&o))
    _exit (CHILD_WRITE);
  _exit (CHILD_OK);
}

/* ---- starting the child --------------------------------------------------- */

/* How the child knows it is one: its argv is exactly this one string and its
 * environment has DAT_CHILD_ENV=1.  Both, so that neither a user's
 * environment nor a program named oddly can turn slabsim into a reader of
 * descriptors 3 and 4. */
#define DAT_CHILD_ARGV0 "slabsim: trace.dat report"
#define DAT_CHILD_ENV "SLABSIM_TRACE_DAT_CHILD"

/* The signals the child must meet with their default action, whatever the
 * parent installed or ignored (a test harness's handler would run the
 * parent's code in the child; an ignored SIGPIPE would leave a child
 * writing to a reader that went away) */
static const int child_sigs[] = { SIGPIPE, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM };

/* Runs before main in every program that links the reader (slabsim, the
 * tests, the fuzzers): in the child started by start_child it never
 * returns.  glibc passes init_array functions argc, argv and envp.  The
 * pointer is placed in .init_array by hand (dat_child_init below), not with
 * __attribute__ ((constructor)): with -flto GCC merges the constructors into
 * one function that calls each without arguments, and then dropped this one
 * (argc undefined), so an LTO build could not read a trace.dat
 * (docs/perf/buildopt-12.md). */
static void
dat_child_entry (int argc, char **argv, char **envp)
{
  (void) envp;
  if (argc != 1 || argv == NULL || argv[0] == NULL || strcmp (argv[0], DAT_CHILD_ARGV0) != 0)
    return;
  const char *v = getenv (DAT_CHILD_ENV);
  if (v == NULL || strcmp (v, "1") != 0)
    return;
  close_range (5, ~0u, 0);
  child_report (3, 4);
}
__attribute__ ((used, section (".init_array"))) static void (*const dat_child_init) (int, char **,
                                                                                    char **)
  = dat_child_entry;

/* The fallback where /proc/self/exe cannot be run: a fork that goes
 * straight into the report. */
static pid_t
fork_child (int in, int out, int *err)
{
  pid_t pid = fork ();
  if (pid < 0)
    {
      *err = errno;
      return -1;
    }
  if (pid == 0)
    {
      for (guint i = 0; i < G_N_ELEMENTS (child_sigs); i++)
        signal (child_sigs[i], SIG_DFL);
      if (dup2 (in, 3) != 3 || dup2 (out, 4) != 4)
        _exit (CHILD_WRITE);
      close_range (5, ~0u, 0);
      child_report (3, 4);
    }
  return pid;
}

/* Start the child with the trace.dat on its descriptor 3 and the pipe's
 * write end on 4, every other descriptor but 0-2 closed; its pid, or -1
 * with *@err set. */
static pid_t
start_child (int fd, int pipe_w, int *err)
{
  /* copies at 5 or above, so that placing one at 3 or 4 cannot overwrite
   * the other before it is placed */
  int in = fcntl (fd, F_DUPFD_CLOEXEC, 5), out = fcntl (pipe_w, F_DUPFD_CLOEXEC, 5);
  if (in < 0 || out < 0)
    {
      *err = errno;
      if (in >= 0)
        close (in);
      if (out >= 0)
        close (out);
      return -1;
    }
  guint n_env = 0;
  while (environ[n_env] != NULL)
    n_env++;
  char **env = g_new (char *, n_env + 2);
  guint k = 0;
  for (guint i = 0; i < n_env; i++)
    if (!g_str_has_prefix (environ[i], DAT_CHILD_ENV "="))
      env[k++] = environ[i];
  env[k++] = (char *) DAT_CHILD_ENV "=1";
  env[k] = NULL;
  char *argv[] = { (char *) DAT_CHILD_ARGV0, NULL };

  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  sigset_t def, none;
  sigemptyset (&def);
  sigemptyset (&none);
  for (guint i = 0; i < G_N_ELEMENTS (child_sigs); i++)
    sigaddset (&def, child_sigs[i]);
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, in, 3);
  posix_spawn_file_actions_adddup2 (&fa, out, 4);
  posix_spawnattr_init (&at);
  posix_spawnattr_setflags (&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setsigdefault (&at, &def);
  posix_spawnattr_setsigmask (&at, &none);
  /* the program's path as the kernel links it: /proc/self/exe itself
   * would start valgrind's tool when run under valgrind, which shows its
   * client's path here; a program deleted since it started is run through
   * the link, which still reaches it */
  char exe[4096];
  ssize_t len = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0 || len >= (ssize_t) sizeof exe - 1)
    len = 0;
  exe[len] = '\0';
  if (len == 0 || exe[0] != '/' || g_str_has_suffix (exe, " (deleted)"))
    g_strlcpy (exe, "/proc/self/exe", sizeof exe);
  pid_t pid = -1;
  int rc = posix_spawn (&pid, exe, &fa, &at, argv, env);
  posix_spawnattr_destroy (&at);
  posix_spawn_file_actions_destroy (&fa);
  g_free (env);
  if (rc != 0)
    pid = fork_child (in, out, err);
  close (in);
  close (out);
  return pid;
}

/* ---- the parent: the text reader on the child's output ------------------- */

gboolean
sim_trace_dat_open (SimTraceReader *r, const char *file, GError **error)
{
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
  if (!check_head (r, fd, error))
    {
      close (fd);
      return FALSE;
    }

  int p[2];
  if (pipe2 (p, O_CLOEXEC) != 0)
    {
      int e = errno;
      close (fd);
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: pipe: %s", r->name,
                   g_strerror (e));
      return FALSE;
    }
  int e = 0;
  pid_t pid = start_child (fd, p[1], &e);
  if (pid < 0)
    {
      close (fd);
      close (p[0]);
      close (p[1]);
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "%s: cannot start the process that reads the trace.dat: %s", r->name,
                   g_strerror (e));
      return FALSE;
    }
  close (fd);
  close (p[1]);

  SimTraceDat *d = g_new0 (SimTraceDat, 1);
  d->pid = pid;
  r->dat = d;
  /* the text reader reads the child's lines from here on */
  g_clear_object (&r->in);
  r->in = g_unix_input_stream_new (p[0], TRUE);
  r->pos = r->end = 0;
  r->consumed = 0;
  r->eof = FALSE;
  /* the child's first line says it read the headers */
  if (sim_trace_reader_fill (r, 1, error) < 0)
    return FALSE;
  if (r->end == 0)
    return sim_trace_dat_finish (r, error);
  return TRUE;
}

/* Wait for the child; FALSE with @error set when it did not end well. */
gboolean
sim_trace_dat_finish (SimTraceReader *r, GError **error)
{
  SimTraceDat *d = r->dat;
  if (d == NULL || d->pid <= 0)
    return TRUE;
  int status = 0;
  pid_t w;
  while ((w = waitpid (d->pid, &status, 0)) < 0 && errno == EINTR)
    ;
  d->pid = 0;
  if (w < 0)
    return TRUE;
  if (WIFEXITED (status) && WEXITSTATUS (status) == CHILD_OK)
    return TRUE;
  if (WIFEXITED (status) && WEXITSTATUS (status) == CHILD_HEADERS)
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                 "%s: libtracecmd could not read this trace.dat's headers (event formats, "
                 "kallsyms, options or CPU data offsets): the file is cut or corrupt "
                 "(does `trace-cmd report -i %s` read it?)", r->name, r->name);
  else if (WIFEXITED (status) && WEXITSTATUS (status) == CHILD_CPUS)
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                 "%s: expected a trace.dat with 0 to 65536 CPUs", r->name);
  else if (WIFSIGNALED (status))
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_MALFORMED,
                 "%s: libtracecmd crashed (signal %d) reading this trace.dat after %"
                 G_GUINT64_FORMAT " lines of its report: the file is corrupt", r->name,
                 WTERMSIG (status), r->lineno);
  else
    g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                 "%s: reading the trace.dat failed after %" G_GUINT64_FORMAT
                 " lines of its report (status %d)", r->name, r->lineno,
                 WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  return FALSE;
}

void
sim_trace_dat_close (SimTraceReader *r)
{
  SimTraceDat *d = r->dat;
  if (d == NULL)
    return;
  if (d->pid > 0)
    {
      /* the reader stopped early: end the child rather than wait for it */
      kill (d->pid, SIGKILL);
      int status;
      while (waitpid (d->pid, &status, 0) < 0 && errno == EINTR)
        ;
    }
  g_free (d);
  r->dat = NULL;
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
sim_trace_dat_finish (SimTraceReader *r, GError **error)
{
  (void) r;
  (void) error;
  return TRUE;
}

void
sim_trace_dat_close (SimTraceReader *r)
{
  (void) r;
}

#endif
