/* reader-perf.c - perf.data files, read through `perf script`.
 *
 * perf.data is perf's own container: its records' layout depends on the
 * perf version that wrote it and on each event's sample attributes, and perf
 * is the one reader that knows every version of it.  So when a trace starts
 * with perf's magic "PERFILE2" (file mode, or the pipe mode of `perf record
 * -o -`), the reader runs
 *
 *   perf script --force -F trace:comm,tid,cpu,time,event,trace -i /dev/stdin
 *
 * with a fresh descriptor on the file as the child's standard input, and
 * parses what perf prints exactly as it parses a `perf script` text file.
 * The fields are perf's defaults for tracepoint events, named so that a
 * ~/.perfconfig cannot change them: the replay of a perf.data and of the
 * text a plain `perf script` prints for it are the same (microsecond
 * timestamps included).  --force: perf refuses a file that another user owns;
 * the user named this one, and perf only reads it.
 *
 * perf seeks in a file-mode perf.data, so the bytes must be reopenable: a
 * named file, or standard input when it is a regular file or spooled
 * (sim/core/stdin.h; `run -` and `validate -` spool).  A perf.data piped to
 * another verb, or gzip-compressed, is refused with what to do instead.
 * Every open runs perf again (`run` opens its trace more than once);
 * `slabsim trace convert` to the native format reads it once for good.
 *
 * perf's standard error goes to an unlinked temporary file, not a pipe: a
 * pipe nobody drains could fill and stall perf while we read its output.  Its
 * first line is quoted when perf fails.  The check happens at the end of
 * perf's output, before the reader reports the end of the trace, so a perf
 * that dies half-way never passes for a short trace.
 */
#include "traces/reader-private.h"
#include "sim/core/errors.h"
#include "sim/core/stdin.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct _SimPerfScript {
  GSubprocess *proc;
  int          err_fd;      /* perf's standard error (unlinked temporary file) */
  gboolean     finished;    /* waited for */
};

gboolean
sim_trace_perf_magic (const void *p, gsize n)
{
  return n >= 8 && memcmp (p, "PERFILE2", 8) == 0;
}

/* A path that reopens @path's bytes from the start, or NULL when they
 * cannot be reread (a pipe on standard input that nobody spooled). */
static char *
reopenable_path (const char *path, GFile *f)
{
  if (strcmp (path, "-") == 0)
    {
      const char *p = sim_stdin_path ();
      struct stat st;
      if (strcmp (p, "/dev/stdin") != 0)
        return g_strdup (p);
      if (fstat (STDIN_FILENO, &st) == 0 && S_ISREG (st.st_mode))
        return g_strdup (p);
      return NULL;
    }
  return g_file_get_path (f);
}

/* The first line of perf's standard error that is not blank, trimmed, or "". */
static char *
first_stderr_line (int fd)
{
  char buf[1024];
  ssize_t n = pread (fd, buf, sizeof buf - 1, 0);
  if (n <= 0)
    return g_strdup ("");
  buf[n] = '\0';
  g_auto (GStrv) lines = g_strsplit (buf, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_strstrip (lines[i]);
      if (lines[i][0])
        return g_strdup (lines[i]);
    }
  return g_strdup ("");
}

GInputStream *
sim_trace_perf_open (SimTraceReader *r, const char *path, GFile *f, GError **error)
{
  g_autofree char *src = reopenable_path (path, f);
  if (src == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                   "%s: a perf.data on a pipe cannot be read (perf needs the file): "
                   "give its path, or convert it with `perf script -i FILE > FILE.txt`",
                   r->name);
      return NULL;
    }
  g_autofree char *perf = g_find_program_in_path ("perf");
  if (perf == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                   "%s: perf.data needs perf on the PATH (not found); or convert it with "
                   "`perf script -i FILE > FILE.txt` and read the text", r->name);
      return NULL;
    }
  int in_fd = g_open (src, O_RDONLY | O_CLOEXEC, 0);
  if (in_fd < 0)
    {
      int e = errno;
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: %s", r->name, g_strerror (e));
      return NULL;
    }
  g_autofree char *tmp = NULL;
  int err_fd = g_file_open_tmp ("slabsim-perf-XXXXXX", &tmp, error);
  if (err_fd < 0)
    {
      close (in_fd);
      g_prefix_error (error, "%s: perf's standard error: ", r->name);
      return NULL;
    }
  g_unlink (tmp);
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_take_stdin_fd (l, in_fd);
  g_subprocess_launcher_take_stderr_fd (l, dup (err_fd));
  const char *const argv[] = { perf, "script", "--force", "-F",
                               "trace:comm,tid,cpu,time,event,trace",
                               "-i", "/dev/stdin", NULL };
  GError *local = NULL;
  GSubprocess *proc = g_subprocess_launcher_spawnv (l, argv, &local);
  if (proc == NULL)
    {
      close (err_fd);
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: cannot run %s: %s",
                   r->name, perf, local->message);
      g_error_free (local);
      return NULL;
    }
  r->perf = g_new0 (SimPerfScript, 1);
  r->perf->proc = proc;
  r->perf->err_fd = err_fd;
  return g_object_ref (g_subprocess_get_stdout_pipe (proc));
}

gboolean
sim_trace_perf_finish (SimTraceReader *r, guint64 bytes, GError **error)
{
  SimPerfScript *p = r->perf;
  if (p == NULL || p->finished)
    return TRUE;
  p->finished = TRUE;
  GError *local = NULL;
  if (!g_subprocess_wait (p->proc, NULL, &local))
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: waiting for perf script: %s",
                   r->name, local->message);
      g_error_free (local);
      return FALSE;
    }
  g_autofree char *line = first_stderr_line (p->err_fd);
  if (g_subprocess_get_if_signaled (p->proc))
    {
      int sig = g_subprocess_get_term_sig (p->proc);
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "%s: perf script was killed by signal %d (%s) after %" G_GUINT64_FORMAT
                   " bytes of output", r->name, sig, g_strsignal (sig), bytes);
      return FALSE;
    }
  int status = g_subprocess_get_exit_status (p->proc);
  if (status != 0)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "%s: perf script failed (exit status %d): %s", r->name, status,
                   line[0] ? line : "(it printed no message)");
      return FALSE;
    }
  if (bytes == 0)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_FORMAT,
                   "%s: perf script printed nothing: expected kmem tracepoint samples "
                   "(perf record -e 'kmem:*')%s%s", r->name, line[0] ? "; perf said: " : "", line);
      return FALSE;
    }
  return TRUE;
}

void
sim_trace_perf_free (SimPerfScript *p)
{
  if (p == NULL)
    return;
  if (!p->finished)
    {
      /* The reader stopped before perf's end (an error, or a caller that
       * read only a prefix): stop perf rather than leave it blocked on a
       * full pipe, and reap it. */
      g_subprocess_force_exit (p->proc);
      g_subprocess_wait (p->proc, NULL, NULL);
    }
  g_object_unref (p->proc);
  close (p->err_fd);
  g_free (p);
}
