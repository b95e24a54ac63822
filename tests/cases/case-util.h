/* case-util.h - helpers shared by the case-study tests: generate a trace,
 * run slabsim on it, read numbers out of the run JSON. */
#ifndef SLABSIM_TESTS_CASE_UTIL_H
#define SLABSIM_TESTS_CASE_UTIL_H

#include "tests/testutil.h"

#include <string.h>
#include <glib/gstdio.h>

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

/* The same with machine overrides (--set KEY=VALUE each), NULL-terminated. */
G_GNUC_UNUSED static char *
cu_run_set (const char *trace, const char *machine, const char *touch, const char *spec,
            const char *const *set)
{
  GPtrArray *args = g_ptr_array_new ();
  const char *fixed[] = { "run", "--format", "json", "--machine", machine, "--touch", touch,
                          "-a", spec };
  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    g_ptr_array_add (args, (gpointer) fixed[i]);
  for (guint i = 0; set && set[i]; i++)
    {
      g_ptr_array_add (args, (gpointer) "--set");
      g_ptr_array_add (args, (gpointer) set[i]);
    }
  g_ptr_array_add (args, (gpointer) trace);
  g_ptr_array_add (args, NULL);
  char *out = NULL;
  g_autofree char *err = NULL;
  int rc = tu_run (&out, &err, (const char *const *) args->pdata);
  g_ptr_array_unref (args);
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
  return (double) (tu_json_uint (js, "\"timing\": {", "alloc_cycles_total")
                   + tu_json_uint (js, "\"timing\": {", "free_cycles_total"));
}

/* L1d misses of the whole run, and of one kind of structure. */
G_GNUC_UNUSED static double
cu_l1_misses (const char *js)
{
  return (double) tu_json_uint (js, "\"memory\": {", "misses");
}

G_GNUC_UNUSED static double
cu_l1_of (const char *js, const char *structure)
{
  g_autofree char *anchor = g_strdup_printf ("\"%s\": {", structure);
  return (double) tu_json_uint (strstr (js, "\"by_structure\""), anchor, "l1d");
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
