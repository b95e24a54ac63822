/* digest.c - SHA-256 of files and strings; see digest.h. */
#include "sim/core/digest.h"
#include "sim/core/stdin.h"

#include <gio/gio.h>
#include <string.h>

#ifdef HAVE_LIBCRYPTO
#include <openssl/evp.h>

struct _SimSha256 {
  EVP_MD_CTX *ctx;
};

SimSha256 *
sim_sha256_new (void)
{
  SimSha256 *h = g_new (SimSha256, 1);
  h->ctx = EVP_MD_CTX_new ();
  if (h->ctx == NULL || EVP_DigestInit_ex (h->ctx, EVP_sha256 (), NULL) != 1)
    g_error ("libcrypto: cannot start a SHA-256");
  return h;
}

void
sim_sha256_update (SimSha256 *h, const void *data, gsize len)
{
  if (EVP_DigestUpdate (h->ctx, data, len) != 1)
    g_error ("libcrypto: SHA-256 update failed");
}

char *
sim_sha256_finish (SimSha256 *h)
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex (h->ctx, md, &n) != 1 || n != 32)
    g_error ("libcrypto: SHA-256 final failed");
  EVP_MD_CTX_free (h->ctx);
  g_free (h);
  char *hex = g_malloc (2 * 32 + 1);
  for (unsigned int i = 0; i < 32; i++)
    {
      hex[2 * i] = "0123456789abcdef"[md[i] >> 4];
      hex[2 * i + 1] = "0123456789abcdef"[md[i] & 15];
    }
  hex[64] = '\0';
  return hex;
}
#else
struct _SimSha256 {
  GChecksum *sum;
};

SimSha256 *
sim_sha256_new (void)
{
  SimSha256 *h = g_new (SimSha256, 1);
  h->sum = g_checksum_new (G_CHECKSUM_SHA256);
  return h;
}

void
sim_sha256_update (SimSha256 *h, const void *data, gsize len)
{
  g_checksum_update (h->sum, data, (gssize) len);
}

char *
sim_sha256_finish (SimSha256 *h)
{
  char *hex = g_strdup (g_checksum_get_string (h->sum));
  g_checksum_free (h->sum);
  g_free (h);
  return hex;
}
#endif

char *
sim_sha256_stream (GInputStream *in, guint64 *bytes, GError **error)
{
  SimSha256 *sum = sim_sha256_new ();
  guint64 total = 0;
  g_autofree guint8 *buf = g_malloc (1 << 20);
  for (;;)
    {
      gssize n = g_input_stream_read (in, buf, 1 << 20, NULL, error);
      if (n < 0)
        {
          g_free (sim_sha256_finish (sum));
          return NULL;
        }
      if (n == 0)
        break;
      sim_sha256_update (sum, buf, (gsize) n);
      total += (guint64) n;
    }
  if (bytes)
    *bytes = total;
  return sim_sha256_finish (sum);
}

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
  return sim_sha256_stream (G_INPUT_STREAM (in), bytes, error);
}

char *
sim_data_sha256 (const char *data, gssize len)
{
  SimSha256 *sum = sim_sha256_new ();
  sim_sha256_update (sum, data, len < 0 ? strlen (data) : (gsize) len);
  return sim_sha256_finish (sum);
}
