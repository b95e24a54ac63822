/* digest.c - SHA-256 of files and strings; see digest.h. */
#include "sim/core/digest.h"
#include "sim/core/stdin.h"

#include <gio/gio.h>
#include <string.h>

char *
sim_file_sha256 (const char *path, guint64 *bytes, GError **error)
{
  /* "-": standard input, re-read through its spooled copy (stdin.h). */
  gboolean is_stdin = strcmp (path, "-") == 0;
  g_autoptr (GFile) f = is_stdin ? g_file_new_for_path (sim_stdin_path ())
                                 : g_file_new_for_commandline_arg (path);
  g_autoptr (GFileInputStream) in = g_file_read (f, NULL, error);
  if (in == NULL)
    return NULL;
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint64 total = 0;
  guint8 *buf = g_malloc (1 << 16);
  for (;;)
    {
      gssize n = g_input_stream_read (G_INPUT_STREAM (in), buf, 1 << 16, NULL, error);
      if (n < 0)
        {
          g_free (buf);
          return NULL;
        }
      if (n == 0)
        break;
      g_checksum_update (sum, buf, n);
      total += (guint64) n;
    }
  g_free (buf);
  if (bytes)
    *bytes = total;
  return g_strdup (g_checksum_get_string (sum));
}

char *
sim_data_sha256 (const char *data, gssize len)
{
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data,
                                      len < 0 ? strlen (data) : (gsize) len);
}
