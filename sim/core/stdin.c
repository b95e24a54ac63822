/* stdin.c - standard input spooled for re-reading; see stdin.h. */
#include "sim/core/stdin.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The spooled copy's /proc/self/fd path: the file is unlinked as soon as
 * it is made, so nothing is left behind however the process ends, and the
 * descriptor keeps it alive until exit. */
static char *spool_path;

const char *
sim_stdin_path (void)
{
  return spool_path ? spool_path : "/dev/stdin";
}

gboolean
sim_stdin_spool (GError **error)
{
  if (spool_path)
    return TRUE;
  struct stat st;
  if (fstat (STDIN_FILENO, &st) == 0 && S_ISREG (st.st_mode))
    return TRUE;
  g_autofree char *tmp = NULL;
  int fd = g_file_open_tmp ("slabsim-stdin-XXXXXX", &tmp, error);
  if (fd < 0)
    return FALSE;
  g_unlink (tmp);
  char *buf = g_malloc (1 << 16);
  gboolean ok = TRUE;
  for (;;)
    {
      ssize_t n = read (STDIN_FILENO, buf, 1 << 16);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                       "(stdin): %s", g_strerror (errno));
          ok = FALSE;
          break;
        }
      if (n == 0)
        break;
      for (ssize_t off = 0; off < n;)
        {
          ssize_t w = write (fd, buf + off, (size_t) (n - off));
          if (w < 0 && errno == EINTR)
            continue;
          if (w < 0)
            {
              g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
                           "(stdin): copying to a temporary file in %s: %s",
                           g_get_tmp_dir (), g_strerror (errno));
              ok = FALSE;
              break;
            }
          off += w;
        }
      if (!ok)
        break;
    }
  g_free (buf);
  if (!ok)
    {
      close (fd);
      return FALSE;
    }
  spool_path = g_strdup_printf ("/proc/self/fd/%d", fd);
  return TRUE;
}
