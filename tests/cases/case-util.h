/* case-util.h - helpers shared by the case-study tests: generate a trace,
 * run slabsim on it, read numbers out of the run JSON. */
#ifndef SLABSIM_TESTS_CASE_UTIL_H
#define SLABSIM_TESTS_CASE_UTIL_H

#include "tests/testutil.h"

#include <string.h>
#include <glib/gstdio.h>

/* The unsigned number of "key": after the first @anchor. */
G_GNUC_UNUSED static guint64
cu_uint (const char *json, const char *anchor, const char *key)
{
  const char *p = strstr (json, anchor);
  if (p == NULL)
    {
      print_error ("no %s in output\n", anchor);
      fail ();
    }
  g_autofree char *k = g_strdup_printf ("\"%s\": ", key);
  const char *q = strstr (p, k);
  if (q == NULL)
    {
      print_error ("no %s after %s in output\n", key, anchor);
      fail ();
    }
  return g_ascii_strtoull (q + strlen (k), NULL, 10);
}

/* slabsim trace gen WORKLOAD --kernel KERNEL --seed 1 EXTRA... into a
 * temporary file (the caller unlinks it). */
G_GNUC_UNUSED static char *
cu_gen (const char *workload, const char *kernel, const char *const *extra)
{
  char *path = tu_write_temp (".txt.gz", "", 0);
  GPtrArray *args = g_ptr_array_new ();
  const char *base[] = { "trace", "gen", workload, "--kernel", kernel, "--seed", "1", "-o", path };
  for (guint i = 0; i < G_N_ELEMENTS (base); i++)
    g_ptr_array_add (args, (gpointer) base[i]);
  for (const char *const *e = extra; e && *e; e++)
    g_ptr_array_add (args, (gpointer) *e);
  g_ptr_array_add (args, NULL);
  g_autofree char *err = NULL;
  int rc = tu_run (NULL, &err, (const char *const *) args->pdata);
  g_ptr_array_free (args, TRUE);
  if (rc != 0)
    {
      print_error ("trace gen: %s\n", err);
      fail ();
    }
  return path;
}

/* slabsim run --format json --machine MACHINE --touch TOUCH -a SPEC TRACE. */
G_GNUC_UNUSED static char *
cu_run (const char *trace, const char *machine, const char *touch, const char *spec)
{
  char *out = NULL;
  g_autofree char *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "run", "--format", "json", "--machine", machine,
                                                  "--touch", touch, "-a", spec, trace, NULL });
  if (rc != 0)
    {
      print_error ("run %s: %s\n", spec, err);
      fail ();
    }
  return out;
}

/* Allocator cycles: every alloc and free, instructions and memory. */
G_GNUC_UNUSED static double
cu_cycles (const char *js)
{
  return (double) (cu_uint (js, "\"timing\": {", "alloc_cycles_total")
                   + cu_uint (js, "\"timing\": {", "free_cycles_total"));
}

/* L1d misses of the whole run, and of one kind of structure. */
G_GNUC_UNUSED static double
cu_l1_misses (const char *js)
{
  return (double) cu_uint (js, "\"memory\": {", "misses");
}

G_GNUC_UNUSED static double
cu_l1_of (const char *js, const char *structure)
{
  g_autofree char *anchor = g_strdup_printf ("\"%s\": {", structure);
  return (double) cu_uint (strstr (js, "\"by_structure\""), anchor, "l1d");
}

/* Remove a directory tree the test made. */
G_GNUC_UNUSED static void
cu_rmtree (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  if (d != NULL)
    {
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          cu_rmtree (child);
        }
      g_dir_close (d);
    }
  g_remove (path);
}

#endif
