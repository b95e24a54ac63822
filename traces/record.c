/* record.c - "slabsim record": a kmem trace of one command through tracefs.
 *
 * It does, as a program, what shared/traces/README.md did by hand for the
 * reference traces (the tracefs ABI of Documentation/trace/ftrace.rst):
 *   mount -t tracefs nodev /sys/kernel/tracing    (if nothing is there)
 *   echo 0 > tracing_on                           (if it was on)
 *   echo nohash-ptr > trace_options               (real addresses, 5.12+)
 *   echo N > buffer_size_kb; : > trace            (size, clear)
 *   echo 1 > events/kmem/E/enable                 (each E that exists)
 *   echo 1 > tracing_on; COMMAND; echo 0 > tracing_on
 *   echo 0 > events/kmem/E/enable
 *   trace -> FILE (gzip for .gz); restore trace_options, buffer_size_kb
 *   and tracing_on
 * and counts lost events from per_cpu/cpuN/stats ("overrun:") and the
 * "[LOST N EVENTS]" markers of the text - before the options and the
 * buffer size are restored, since tracefs formats the text when it is read
 * (hash-ptr would apply again) and shrinking the buffer drops events.
 * Whatever happens after tracing was touched, the undo steps run (best
 * effort) before the error is returned.  Events are global: other processes' allocations are in the
 * trace too, as in the real recordings.
 *
 * Via trace-cmd (--via trace-cmd) the control sequence is the same and only
 * the copy differs: `trace-cmd extract -k -o FILE` takes the per-CPU binary
 * buffers into a trace.dat (with the event formats, kallsyms and task names
 * it needs), -k so that trace-cmd leaves tracefs as we set it and our own
 * restore runs as always.  Not `trace-cmd record -- COMMAND`: trace-cmd
 * 3.1.6 writes and reads function-tracer files (set_ftrace_pid,
 * set_ftrace_filter, /proc/sys/kernel/ftrace_enabled) even for an
 * events-only recording, and dies or crashes where the kernel refuses them
 * (lockdown, some guests: the one traces/samples' .dat was recorded on);
 * extract reads only the buffers, and the events are the same either way.
 * SLABSIM_TRACE_CMD names another trace-cmd (tests use a script).
 *
 * Left out: per-instance buffers (instances/), event filters and pid
 * filtering, the binary trace_pipe_raw path of our own.
 */
#include "traces/record.h"
#include "traces/reader.h"
#include "sim/core/errors.h"
#include "sim/core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

static const char *const default_events[] = {
  "kmalloc", "kfree", "kmem_cache_alloc", "kmem_cache_free",
  "mm_page_alloc", "mm_page_free", "mm_page_free_batched", "mm_page_pcpu_drain",
  NULL
};

const char *const *
sim_record_default_events (void)
{
  return default_events;
}

typedef struct {
  const SimRecordOptions *o;
  SimRecordResult *r;
  const char *root;
  GPtrArray *enabled;        /* event names enabled by us */
  char *saved_buffer_kb;
  gboolean hash_ptr_was_on, touched_hash_ptr, touched_buffer, tracing;
  gboolean tracing_was_on;   /* tracing_on read 1 before we started */
} Rec;

static char *
path_of (Rec *rec, const char *rel)
{
  return g_build_filename (rec->root, rel, NULL);
}

static gboolean
tfs_write (Rec *rec, const char *rel, const char *value, GError **error)
{
  g_autofree char *p = path_of (rec, rel);
  g_ptr_array_add (rec->r->writes,
                   g_strdup_printf ("echo %s > %s", *value ? value : "''", rel));
  int fd = open (p, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "tracefs: cannot open %s for writing: %s", p, g_strerror (e));
      return FALSE;
    }
  g_autofree char *line = *value ? g_strdup_printf ("%s\n", value) : g_strdup ("");
  gsize len = strlen (line);
  ssize_t n = len ? write (fd, line, len) : 0;
  int e = errno;
  close (fd);
  if (n < 0 || (gsize) n != len)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "tracefs: cannot write \"%s\" to %s: %s", value, p,
                   n < 0 ? g_strerror (e) : "short write");
      return FALSE;
    }
  return TRUE;
}

static char *
tfs_read (Rec *rec, const char *rel)
{
  g_autofree char *p = path_of (rec, rel);
  char *s = NULL;
  if (!g_file_get_contents (p, &s, NULL, NULL))
    return NULL;
  return s;
}

static gboolean
find_tracefs (char **root, GError **error)
{
  const char *env = g_getenv ("SLABSIM_TRACEFS");
  if (env && *env)
    {
      g_autofree char *t = g_build_filename (env, "trace", NULL);
      if (!g_file_test (t, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                       "tracefs unavailable: SLABSIM_TRACEFS=%s has no \"trace\" file", env);
          return FALSE;
        }
      *root = g_strdup (env);
      return TRUE;
    }
  if (g_file_test ("/sys/kernel/tracing/trace", G_FILE_TEST_EXISTS))
    {
      *root = g_strdup ("/sys/kernel/tracing");
      return TRUE;
    }
  int merr = 0;
  if (g_file_test ("/sys/kernel/tracing", G_FILE_TEST_IS_DIR))
    {
      if (mount ("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0
          && g_file_test ("/sys/kernel/tracing/trace", G_FILE_TEST_EXISTS))
        {
          *root = g_strdup ("/sys/kernel/tracing");
          return TRUE;
        }
      merr = errno;
    }
  if (g_file_test ("/sys/kernel/debug/tracing/trace", G_FILE_TEST_EXISTS))
    {
      *root = g_strdup ("/sys/kernel/debug/tracing");
      return TRUE;
    }
  g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
               "tracefs unavailable: nothing at /sys/kernel/tracing or "
               "/sys/kernel/debug/tracing%s%s",
               merr ? " and mounting tracefs failed: " : "",
               merr ? g_strerror (merr) : "");
  return FALSE;
}

/* Stop tracing and disable what we enabled; errors are warnings only. */
static void
stop (Rec *rec)
{
  GError *e = NULL;
  if (rec->tracing && !tfs_write (rec, "tracing_on", "0", &e))
    {
      g_ptr_array_add (rec->r->warnings, g_strdup (e->message));
      g_clear_error (&e);
    }
  rec->tracing = FALSE;
  for (guint i = 0; i < rec->enabled->len; i++)
    {
      g_autofree char *rel = g_strdup_printf ("events/kmem/%s/enable",
                                              (char *) g_ptr_array_index (rec->enabled, i));
      if (!tfs_write (rec, rel, "0", &e))
        {
          g_ptr_array_add (rec->r->warnings, g_strdup (e->message));
          g_clear_error (&e);
        }
    }
  g_ptr_array_set_size (rec->enabled, 0);
}

/* Put options and buffer size back.  Only after `trace` was copied: the
 * text is formatted when read (hash-ptr applies then), and shrinking the
 * buffer drops what it holds. */
static void
restore (Rec *rec)
{
  GError *e = NULL;
  if (rec->touched_hash_ptr && rec->hash_ptr_was_on
      && !tfs_write (rec, "trace_options", "hash-ptr", &e))
    {
      g_ptr_array_add (rec->r->warnings, g_strdup (e->message));
      g_clear_error (&e);
    }
  rec->touched_hash_ptr = FALSE;
  if (rec->touched_buffer && rec->saved_buffer_kb
      && !tfs_write (rec, "buffer_size_kb", rec->saved_buffer_kb, &e))
    {
      g_ptr_array_add (rec->r->warnings, g_strdup (e->message));
      g_clear_error (&e);
    }
  rec->touched_buffer = FALSE;
  /* tracing_on is 1 by default; with our events disabled, turning it back
   * on records nothing of ours */
  if (rec->tracing_was_on && !tfs_write (rec, "tracing_on", "1", &e))
    {
      g_ptr_array_add (rec->r->warnings, g_strdup (e->message));
      g_clear_error (&e);
    }
  rec->tracing_was_on = FALSE;
}

static gboolean
setup (Rec *rec, GError **error)
{
  const SimRecordOptions *o = rec->o;
  g_autofree char *on = tfs_read (rec, "tracing_on");
  rec->tracing_was_on = on && on[0] == '1';
  /* Stop first, so that what we clear stays clear until the command runs. */
  if (rec->tracing_was_on)
    {
      rec->tracing = TRUE;
      if (!tfs_write (rec, "tracing_on", "0", error))
        return FALSE;
    }
  /* hash-ptr exists from 5.12; trace_options lists it as "hash-ptr" or
   * "nohash-ptr". */
  g_autofree char *opts = tfs_read (rec, "trace_options");
  if (opts == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "tracefs unavailable: cannot read %s/trace_options", rec->root);
      return FALSE;
    }
  g_auto (GStrv) lines = g_strsplit (opts, "\n", -1);
  gboolean known = FALSE;
  for (char **l = lines; *l; l++)
    {
      if (strcmp (*l, "hash-ptr") == 0)
        known = rec->hash_ptr_was_on = TRUE;
      else if (strcmp (*l, "nohash-ptr") == 0)
        known = TRUE;
    }
  if (known)
    {
      rec->touched_hash_ptr = TRUE;
      if (!tfs_write (rec, "trace_options", "nohash-ptr", error))
        return FALSE;
    }
  else
    g_ptr_array_add (rec->r->warnings,
                     g_strdup ("this kernel has no hash-ptr trace option; pointers are "
                               "printed as the kernel's %p does (hashed from 4.15)"));
  if (o->buffer_kb)
    {
      char *old = tfs_read (rec, "buffer_size_kb");
      if (old)
        {
          /* "7 (expanded: 1408)" before the buffer was first used: the
           * size it will have is the expanded one */
          const char *ex = strstr (old, "(expanded: ");
          if (ex)
            {
              char *v = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                         g_ascii_strtoull (ex + 11, NULL, 10));
              g_free (old);
              old = v;
            }
          g_strstrip (old);
          char *sp = strchr (old, ' ');
          if (sp)
            *sp = '\0';
        }
      rec->saved_buffer_kb = old;
      rec->touched_buffer = TRUE;
      g_autofree char *v = g_strdup_printf ("%u", o->buffer_kb);
      if (!tfs_write (rec, "buffer_size_kb", v, error))
        return FALSE;
    }
  if (!tfs_write (rec, "trace", "", error))
    return FALSE;
  for (char **e = o->events; *e; e++)
    {
      g_autofree char *rel = g_strdup_printf ("events/kmem/%s/enable", *e);
      g_autofree char *p = path_of (rec, rel);
      if (!g_file_test (p, G_FILE_TEST_EXISTS))
        {
          g_ptr_array_add (rec->r->warnings,
                           g_strdup_printf ("event kmem:%s does not exist on this kernel; skipped", *e));
          continue;
        }
      g_ptr_array_add (rec->enabled, g_strdup (*e));
      if (!tfs_write (rec, rel, "1", error))
        return FALSE;
    }
  if (rec->enabled->len == 0)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_UNSUPPORTED,
                   "none of the requested kmem events exists under %s/events/kmem", rec->root);
      return FALSE;
    }
  rec->tracing = TRUE;
  return tfs_write (rec, "tracing_on", "1", error);
}

static gboolean
run_command (Rec *rec, const char *prog, GError **error)
{
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) prog);
  for (char **a = rec->o->argv + 1; *a; a++)
    g_ptr_array_add (argv, *a);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GSubprocess) p = g_subprocess_newv ((const char *const *) argv->pdata,
                                                 G_SUBPROCESS_FLAGS_NONE, error);
  g_ptr_array_free (argv, TRUE);
  if (p == NULL || !g_subprocess_wait (p, NULL, error))
    {
      g_prefix_error (error, "%s: ", rec->o->argv[0]);
      return FALSE;
    }
  rec->r->exit_status = g_subprocess_get_if_exited (p)
                        ? g_subprocess_get_exit_status (p)
                        : 128 + g_subprocess_get_term_sig (p);
  return TRUE;
}

static void
count_overrun (Rec *rec)
{
  g_autofree char *dir = path_of (rec, "per_cpu");
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  const char *name;
  while ((name = g_dir_read_name (d)))
    {
      if (!g_str_has_prefix (name, "cpu"))
        continue;
      g_autofree char *rel = g_build_filename ("per_cpu", name, "stats", NULL);
      g_autofree char *s = tfs_read (rec, rel);
      const char *ov = s ? strstr (s, "overrun:") : NULL;
      if (ov)
        rec->r->lost_overrun += g_ascii_strtoull (ov + 8, NULL, 10);
    }
  g_dir_close (d);
}

static gboolean
copy_trace (Rec *rec, GError **error)
{
  const char *path = rec->o->output;
  g_autofree char *src = path_of (rec, "trace");
  g_autoptr (GFile) sf = g_file_new_for_path (src);
  g_autoptr (GFileInputStream) in = g_file_read (sf, NULL, error);
  if (in == NULL)
    return FALSE;
  /* Temporary file and rename (sim/core/output.h). */
  SimOutput *file = sim_output_open (path, error);
  if (file == NULL)
    return FALSE;
  g_autoptr (GOutputStream) out = NULL;
  if (g_str_has_suffix (path, ".gz"))
    {
      g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
      out = g_converter_output_stream_new (sim_output_stream (file), G_CONVERTER (z));
    }
  else
    out = g_object_ref (sim_output_stream (file));
  g_autoptr (GDataInputStream) din = g_data_input_stream_new (G_INPUT_STREAM (in));
  for (;;)
    {
      gsize len = 0;
      GError *e = NULL;
      g_autofree char *line = g_data_input_stream_read_line (din, &len, NULL, &e);
      if (line == NULL)
        {
          if (e)
            {
              g_propagate_prefixed_error (error, e, "%s: ", src);
              g_clear_object (&out);
              sim_output_abort (file);
              return FALSE;
            }
          break;
        }
      if (line[0] != '#')
        {
          const char *lost = strstr (line, "[LOST ");
          if (lost)
            rec->r->lost_markers += g_ascii_strtoull (lost + 6, NULL, 10);
          else if (len > 0)
            rec->r->lines++;
        }
      if (!g_output_stream_write_all (out, line, len, NULL, NULL, error)
          || !g_output_stream_write_all (out, "\n", 1, NULL, NULL, error))
        {
          g_clear_object (&out);
          sim_output_abort (file);
          return FALSE;
        }
    }
  if (!g_output_stream_close (out, NULL, error))
    {
      g_clear_object (&out);
      sim_output_abort (file);
      return FALSE;
    }
  g_clear_object (&out);
  return sim_output_commit (file, error);
}

/* The trace-cmd to run: SLABSIM_TRACE_CMD, else trace-cmd on the PATH. */
static char *
find_tracecmd (GError **error)
{
  const char *env = g_getenv ("SLABSIM_TRACE_CMD");
  char *p = env && *env ? g_strdup (env) : g_find_program_in_path ("trace-cmd");
  if (p == NULL || !g_file_test (p, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "--via trace-cmd: %s not found%s (install trace-cmd, or record "
                   "through tracefs without --via)", p ? p : "trace-cmd",
                   p ? "" : " on the PATH");
      g_free (p);
      return NULL;
    }
  return p;
}

/* `trace-cmd extract -k -o TMP` beside the output, then TMP -> output (a
 * failed extract leaves no file of ours and replaces none); the events are
 * counted by reading the trace.dat back. */
static gboolean
extract_dat (Rec *rec, const char *tracecmd, GError **error)
{
  const char *path = rec->o->output;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *tmp = g_build_filename (dir, ".slabsim-record-XXXXXX", NULL);
  int fd = g_mkstemp (tmp);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: cannot create a file "
                   "beside it: %s", path, g_strerror (e));
      return FALSE;
    }
  close (fd);
  g_ptr_array_add (rec->r->writes, g_strdup_printf ("trace-cmd extract -k -o %s", path));
  const char *argv[] = { tracecmd, "extract", "-k", "-o", tmp, NULL };
  g_autoptr (GSubprocess) p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                 G_SUBPROCESS_FLAGS_STDERR_MERGE, error);
  g_autoptr (GBytes) bytes = NULL;
  if (p == NULL || !g_subprocess_communicate (p, NULL, NULL, &bytes, NULL, error))
    {
      g_prefix_error (error, "%s: ", tracecmd);
      g_unlink (tmp);
      return FALSE;
    }
  gsize blen = 0;
  const char *bdata = bytes ? g_bytes_get_data (bytes, &blen) : NULL;
  g_autofree char *out = g_utf8_make_valid (bdata ? bdata : "", blen);
  if (!g_subprocess_get_if_exited (p) || g_subprocess_get_exit_status (p) != 0)
    {
      g_strstrip (out);
      const char *last = strrchr (out, '\n');
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "trace-cmd extract failed (%s %d)%s%s",
                   g_subprocess_get_if_exited (p) ? "exit status" : "signal",
                   g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p)
                                                  : g_subprocess_get_term_sig (p),
                   *out ? ": " : "", last ? last + 1 : out);
      g_unlink (tmp);
      return FALSE;
    }
  if (g_rename (tmp, path) != 0)
    {
      int e = errno;
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO, "%s: %s", path, g_strerror (e));
      g_unlink (tmp);
      return FALSE;
    }
  /* the file mode mkstemp gave (0600) is not what a recording should have */
  g_chmod (path, 0644);
  GError *e = NULL;
  g_autoptr (SimTraceReader) r = sim_trace_reader_open (path, &e);
  SimTraceEvent ev;
  while (r && sim_trace_reader_next (r, &ev, &e))
    ;
  if (e)
    {
      g_ptr_array_add (rec->r->warnings, g_strdup_printf ("the trace.dat does not read: %s",
                                                          e->message));
      g_error_free (e);
      return TRUE;
    }
  const SimTraceStats *st = sim_trace_reader_stats (r);
  rec->r->lines = st->events;
  rec->r->lost_markers += st->lost_events;
  return TRUE;
}

static gboolean
is_root (void)
{
  /* SLABSIM_RECORD_EUID lets the tests exercise the refusal as root. */
  const char *fake = g_getenv ("SLABSIM_RECORD_EUID");
  if (fake && *fake)
    return g_ascii_strtoull (fake, NULL, 10) == 0;
  return geteuid () == 0;
}

gboolean
sim_record_run (const SimRecordOptions *o, SimRecordResult *r, GError **error)
{
  g_return_val_if_fail (o && o->argv && o->argv[0] && o->output && o->events, FALSE);
  memset (r, 0, sizeof *r);
  r->warnings = g_ptr_array_new_with_free_func (g_free);
  r->writes = g_ptr_array_new_with_free_func (g_free);

  /* A fake tree (SLABSIM_TRACEFS) is writable without root. */
  const char *env = g_getenv ("SLABSIM_TRACEFS");
  if (!(env && *env) && !is_root ())
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "record needs root (tracefs writes)");
      return FALSE;
    }
  g_autofree char *prog = strchr (o->argv[0], '/')
    ? (g_file_test (o->argv[0], G_FILE_TEST_IS_EXECUTABLE) ? g_strdup (o->argv[0]) : NULL)
    : g_find_program_in_path (o->argv[0]);
  if (prog == NULL)
    {
      g_set_error (error, SIM_TRACE_ERROR, SIM_TRACE_ERROR_IO,
                   "command not found: %s", o->argv[0]);
      return FALSE;
    }
  g_autofree char *tracecmd = NULL;
  if (o->via_tracecmd && (tracecmd = find_tracecmd (error)) == NULL)
    return FALSE;
  if (!find_tracefs (&r->tracefs, error))
    return FALSE;

  Rec rec = { 0 };
  rec.o = o;
  rec.r = r;
  rec.root = r->tracefs;
  rec.enabled = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = setup (&rec, error) && run_command (&rec, prog, error);
  if (ok)
    ok = tfs_write (&rec, "tracing_on", "0", error);
  if (ok)
    rec.tracing = FALSE;
  stop (&rec);
  if (ok)
    {
      count_overrun (&rec);
      ok = o->via_tracecmd ? extract_dat (&rec, tracecmd, error) : copy_trace (&rec, error);
    }
  restore (&rec);
  g_ptr_array_free (rec.enabled, TRUE);
  g_free (rec.saved_buffer_kb);
  return ok;
}

void
sim_record_result_clear (SimRecordResult *r)
{
  g_clear_pointer (&r->tracefs, g_free);
  if (r->warnings)
    g_ptr_array_free (r->warnings, TRUE);
  if (r->writes)
    g_ptr_array_free (r->writes, TRUE);
  r->warnings = NULL;
  r->writes = NULL;
}
