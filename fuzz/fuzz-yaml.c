/* fuzz-yaml.c - input splitting for the configuration fuzz targets.  A NUL
 * byte cannot occur in a YAML text the loader accepts, so it is a free
 * separator between a file and the --set lines that go with it. */
#include "fuzz/fuzz-yaml.h"

#include <string.h>

GPtrArray *
sim_fuzz_split (const uint8_t *data, size_t size)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  size_t start = 0;
  for (size_t i = 0; i <= size; i++)
    if (i == size || data[i] == '\0')
      {
        size_t n = i - start;
        char *buf = g_malloc (n + 1);
        if (n)
          memcpy (buf, data + start, n);
        buf[n] = '\0';
        g_ptr_array_add (parts, g_bytes_new_take (buf, n));
        start = i + 1;
      }
  return parts;
}
