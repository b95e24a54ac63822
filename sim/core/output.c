/* output.c - output files; see output.h for the rules.
 *
 * Why not g_file_set_contents or g_file_replace: both rename a temporary
 * file over whatever the name is (a symbolic link becomes a regular file;
 * as root, /dev/null does too), or refuse anything that is not a regular
 * file, and their messages name the temporary file.  Here the path is
 * classified first, and only a regular file (or a new name) is replaced.
 *
 * The stream is a small GOutputStream over a file descriptor of our own, so
 * that write errors carry the user's path and the build needs nothing
 * beyond gio-2.0.
 */
#include "sim/core/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

/* ------------------------------------------------------------------ */
/* A GOutputStream writing to a descriptor it does not own. */

#define SIM_TYPE_FD_OUTPUT_STREAM (sim_fd_output_stream_get_type ())
G_DECLARE_FINAL_TYPE (SimFdOutputStream, sim_fd_output_stream, SIM, FD_OUTPUT_STREAM,
                      GOutputStream)

struct _SimFdOutputStream {
  GOutputStream parent;
  int fd;
  char *path;                    /* the user's, for messages */
};

G_DEFINE_TYPE (SimFdOutputStream, sim_fd_output_stream, G_TYPE_OUTPUT_STREAM)

static gssize
fd_write (GOutputStream *stream, const void *buffer, gsize count, GCancellable *cancellable,
          GError **error)
{
  SimFdOutputStream *s = SIM_FD_OUTPUT_STREAM (stream);
  (void) cancellable;
  for (;;)
    {
      gssize n = write (s->fd, buffer, MIN (count, (gsize) G_MAXSSIZE));
      if (n >= 0)
        return n;
      int e = errno;
      if (e == EINTR)
        continue;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: cannot write: %s",
                   s->path, g_strerror (e));
      return -1;
    }
}

static gboolean
fd_close (GOutputStream *stream, GCancellable *cancellable, GError **error)
{
  /* The descriptor belongs to the SimOutput: commit closes it. */
  (void) stream;
  (void) cancellable;
  (void) error;
  return TRUE;
}

static void
fd_finalize (GObject *object)
{
  g_free (SIM_FD_OUTPUT_STREAM (object)->path);
  G_OBJECT_CLASS (sim_fd_output_stream_parent_class)->finalize (object);
}

static void
sim_fd_output_stream_class_init (SimFdOutputStreamClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fd_finalize;
  G_OUTPUT_STREAM_CLASS (klass)->write_fn = fd_write;
  G_OUTPUT_STREAM_CLASS (klass)->close_fn = fd_close;
}

static void
sim_fd_output_stream_init (SimFdOutputStream *s)
{
  s->fd = -1;
}

static GOutputStream *
fd_stream_new (int fd, const char *path)
{
  SimFdOutputStream *s = g_object_new (SIM_TYPE_FD_OUTPUT_STREAM, NULL);
  s->fd = fd;
  s->path = g_strdup (path);
  return G_OUTPUT_STREAM (s);
}

/* ------------------------------------------------------------------ */
/* What a path names. */

typedef enum {
  KIND_DESCRIPTOR,               /* "-", /dev/stdout, /dev/fd/N: an open descriptor */
  KIND_THROUGH,                  /* FIFO, character device: open and write */
  KIND_REPLACE,                  /* regular file or new name: temporary + rename */
} Kind;

typedef struct {
  Kind kind;
  int fd;                        /* KIND_DESCRIPTOR */
  char *target;                  /* KIND_REPLACE: the final name (links followed) */
  gboolean exists;               /* KIND_REPLACE: target exists */
  mode_t mode;                   /* ...and its permission bits */
} Where;

static gboolean
io_error (GError **error, int e, const char *path, const char *what)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: %s%s%s", path,
               what ? what : "", what ? ": " : "", g_strerror (e));
  return FALSE;
}

/* The descriptor that @path names without a file behind it, or -1. */
static int
descriptor_of (const char *path)
{
  if (strcmp (path, "-") == 0 || strcmp (path, "/dev/stdout") == 0)
    return 1;
  if (strcmp (path, "/dev/stderr") == 0)
    return 2;
  const char *num = NULL;
  if (g_str_has_prefix (path, "/dev/fd/"))
    num = path + 8;
  else if (g_str_has_prefix (path, "/proc/self/fd/"))
    num = path + 14;
  if (num == NULL || !g_ascii_isdigit (*num))
    return -1;
  char *end = NULL;
  guint64 v = g_ascii_strtoull (num, &end, 10);
  return *end == '\0' && v <= G_MAXINT ? (int) v : -1;
}

/* Follow the symbolic links of the last component of @path: the name a
 * rename must replace.  Links in the folders above need no care: the
 * temporary file goes to the same (real) folder either way. */
static char *
follow_links (const char *path, GError **error)
{
  char *cur = g_strdup (path);
  for (int depth = 0; depth < 40; depth++)
    {
      struct stat st;
      if (lstat (cur, &st) != 0 || !S_ISLNK (st.st_mode))
        return cur;
      g_autofree char *link = g_file_read_link (cur, NULL);
      if (link == NULL)
        {
          int e = errno;
          g_free (cur);
          io_error (error, e, path, "cannot read the symbolic link");
          return NULL;
        }
      g_autofree char *dir = g_path_get_dirname (cur);
      char *next = g_path_is_absolute (link) ? g_strdup (link)
                                             : g_build_filename (dir, link, NULL);
      g_free (cur);
      cur = next;
    }
  g_free (cur);
  io_error (error, ELOOP, path, NULL);
  return NULL;
}

static gboolean
classify (const char *path, Where *w, GError **error)
{
  memset (w, 0, sizeof *w);
  w->fd = descriptor_of (path);
  if (w->fd >= 0)
    {
      w->kind = KIND_DESCRIPTOR;
      if (fcntl (w->fd, F_GETFD) == -1)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (EBADF),
                       "%s: file descriptor %d is not open", path, w->fd);
          return FALSE;
        }
      return TRUE;
    }
  if (*path == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_FILENAME,
                   "an empty output file name");
      return FALSE;
    }
  struct stat st;
  if (stat (path, &st) == 0)
    {
      if (S_ISFIFO (st.st_mode) || S_ISCHR (st.st_mode))
        {
          w->kind = KIND_THROUGH;
          return TRUE;
        }
      const char *what = S_ISDIR (st.st_mode) ? "a directory (expected a file name)"
                         : S_ISSOCK (st.st_mode) ? "a socket; refusing to write over it"
                         : S_ISBLK (st.st_mode) ? "a block device; refusing to write over it"
                         : S_ISREG (st.st_mode) ? NULL
                         : "not a regular file; refusing to write over it";
      if (what)
        {
          g_set_error (error, G_IO_ERROR, S_ISDIR (st.st_mode) ? G_IO_ERROR_IS_DIRECTORY
                                                                : G_IO_ERROR_NOT_REGULAR_FILE,
                       "%s is %s", path, what);
          return FALSE;
        }
      w->exists = TRUE;
      w->mode = st.st_mode & 07777;
    }
  else if (errno != ENOENT)
    return io_error (error, errno, path, NULL);

  w->kind = KIND_REPLACE;
  w->target = follow_links (path, error);
  if (w->target == NULL)
    return FALSE;
  g_autofree char *dir = g_path_get_dirname (w->target);
  struct stat ds;
  if (stat (dir, &ds) != 0)
    {
      int e = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: folder %s: %s", path, dir,
                   g_strerror (e));
      goto fail;
    }
  if (!S_ISDIR (ds.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY, "%s: %s is not a folder", path,
                   dir);
      goto fail;
    }
  if (access (dir, W_OK | X_OK) != 0)
    {
      int e = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e),
                   "%s: cannot create a file in folder %s: %s", path, dir, g_strerror (e));
      goto fail;
    }
  return TRUE;
fail:
  g_clear_pointer (&w->target, g_free);
  return FALSE;
}

gboolean
sim_output_check (const char *path, GError **error)
{
  Where w;
  gboolean ok = classify (path ? path : "-", &w, error);
  g_free (w.target);
  return ok;
}

/* ------------------------------------------------------------------ */

struct _SimOutput {
  char *path;                    /* as the user wrote it */
  Where where;
  char *tmp;                     /* KIND_REPLACE: the temporary file */
  int fd;
  GOutputStream *stream;
};

static void
output_free (SimOutput *o)
{
  if (o->fd >= 0)
    close (o->fd);
  if (o->tmp)
    g_unlink (o->tmp);
  g_clear_object (&o->stream);
  g_free (o->tmp);
  g_free (o->where.target);
  g_free (o->path);
  g_free (o);
}

SimOutput *
sim_output_open (const char *path, GError **error)
{
  SimOutput *o = g_new0 (SimOutput, 1);
  o->path = g_strdup (path ? path : "-");
  o->fd = -1;
  if (!classify (o->path, &o->where, error))
    {
      output_free (o);
      return NULL;
    }
  switch (o->where.kind)
    {
    case KIND_DESCRIPTOR:
      /* What stdio holds must come first. */
      fflush (o->where.fd == 2 ? stderr : stdout);
      o->fd = dup (o->where.fd);
      if (o->fd < 0)
        {
          io_error (error, errno, o->path, NULL);
          output_free (o);
          return NULL;
        }
      break;
    case KIND_THROUGH:
      do
        o->fd = open (o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
      while (o->fd < 0 && errno == EINTR);
      if (o->fd < 0)
        {
          io_error (error, errno, o->path, NULL);
          output_free (o);
          return NULL;
        }
      break;
    case KIND_REPLACE:
      {
        g_autofree char *dir = g_path_get_dirname (o->where.target);
        g_autofree char *base = g_path_get_basename (o->where.target);
        g_autofree char *name = g_strdup_printf (".%s.XXXXXX", base);
        o->tmp = g_build_filename (dir, name, NULL);
        o->fd = g_mkstemp_full (o->tmp, O_WRONLY | O_CLOEXEC, 0666);
        if (o->fd < 0)
          {
            int e = errno;
            g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e),
                         "%s: cannot create a file in folder %s: %s", o->path, dir,
                         g_strerror (e));
            g_clear_pointer (&o->tmp, g_free);
            output_free (o);
            return NULL;
          }
        if (o->where.exists)
          (void) fchmod (o->fd, o->where.mode);   /* best effort: the old file's bits */
      }
      break;
    }
  o->stream = fd_stream_new (o->fd, o->path);
  return o;
}

GOutputStream *
sim_output_stream (SimOutput *out)
{
  g_return_val_if_fail (out != NULL, NULL);
  return out->stream;
}

gboolean
sim_output_commit (SimOutput *o, GError **error)
{
  g_return_val_if_fail (o != NULL, FALSE);
  gboolean ok = TRUE;
  if (o->where.kind == KIND_REPLACE && fsync (o->fd) != 0)
    ok = io_error (error, errno, o->path, "cannot write");
  int fd = o->fd;
  o->fd = -1;
  if (close (fd) != 0 && ok && errno != EINTR)
    ok = io_error (error, errno, o->path, "cannot write");
  if (ok && o->where.kind == KIND_REPLACE)
    {
      if (g_rename (o->tmp, o->where.target) != 0)
        ok = io_error (error, errno, o->path, "cannot move the new file into place");
      else
        g_clear_pointer (&o->tmp, g_free);   /* renamed: nothing to remove */
    }
  output_free (o);
  return ok;
}

void
sim_output_abort (SimOutput *out)
{
  if (out)
    output_free (out);
}

gboolean
sim_output_write (const char *path, const void *data, gssize len, GError **error)
{
  SimOutput *o = sim_output_open (path, error);
  if (o == NULL)
    return FALSE;
  gsize n = len < 0 ? strlen (data) : (gsize) len;
  if (!g_output_stream_write_all (o->stream, data, n, NULL, NULL, error))
    {
      sim_output_abort (o);
      return FALSE;
    }
  return sim_output_commit (o, error);
}
