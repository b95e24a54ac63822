/* test-digest.c - the SHA-256 of provenance (sim/core/digest.c) is the
 * standard one whichever library computes it (libcrypto or GLib): fed whole
 * or in pieces, at every length around SHA-256's 64-byte block, and from a
 * file. */
#include "tests/testutil.h"
#include "sim/core/digest.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static void
test_known_value (void **state)
{
  (void) state;
  g_autofree char *h = sim_data_sha256 ("abc", -1);
  assert_string_equal (h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  g_autofree char *e = sim_data_sha256 ("", 0);
  assert_string_equal (e, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void
test_lengths_and_pieces (void **state)
{
  (void) state;
  guint8 buf[300];
  for (guint i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) (i * 7 + 1);
  for (gsize n = 0; n <= sizeof buf; n++)
    {
      g_autofree char *want = g_compute_checksum_for_data (G_CHECKSUM_SHA256, buf, n);
      g_autofree char *whole = sim_data_sha256 ((const char *) buf, (gssize) n);
      assert_string_equal (whole, want);
      /* in pieces of 1, 13 and 64 bytes */
      static const gsize steps[] = { 1, 13, 64 };
      for (guint s = 0; s < G_N_ELEMENTS (steps); s++)
        {
          SimSha256 *h = sim_sha256_new ();
          for (gsize o = 0; o < n; o += steps[s])
            sim_sha256_update (h, buf + o, MIN (steps[s], n - o));
          g_autofree char *got = sim_sha256_finish (h);
          assert_string_equal (got, want);
        }
    }
}

static void
test_file (void **state)
{
  (void) state;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("test-digest-XXXXXX", &path, NULL);
  assert_true (fd >= 0);
  close (fd);
  /* larger than the reader's 1 MiB buffer */
  gsize n = (3u << 20) + 17;
  g_autofree guint8 *data = g_malloc (n);
  for (gsize i = 0; i < n; i++)
    data[i] = (guint8) (i ^ (i >> 9));
  assert_true (g_file_set_contents (path, (const char *) data, (gssize) n, NULL));
  guint64 bytes = 0;
  GError *error = NULL;
  g_autofree char *got = sim_file_sha256 (path, &bytes, &error);
  assert_null (error);
  g_autofree char *want = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, n);
  assert_string_equal (got, want);
  assert_true (bytes == n);
  g_unlink (path);
  /* a file that is not there: an error naming it */
  assert_null (sim_file_sha256 (path, NULL, &error));
  assert_non_null (error);
  assert_non_null (strstr (error->message, "test-digest-"));
  g_clear_error (&error);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_known_value),
    cmocka_unit_test (test_lengths_and_pieces),
    cmocka_unit_test (test_file),
  };
  return cmocka_run_group_tests_name ("digest", tests, NULL, NULL);
}
