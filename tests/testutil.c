/* testutil.c - see testutil.h. */
#include "tests/testutil.h"

#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <unistd.h>

static const char *
env_or (const char *name, const char *fallback)
{
  const char *v = g_getenv (name);
  return v ? v : fallback;
}

const char *
tu_source_root (void)
{
  return env_or ("SLABSIM_SOURCE_ROOT", ".");
}

const char *
tu_shared_dir (void)
{
  return env_or ("SLABSIM_SHARED", "../shared");
}

const char *
tu_exe (void)
{
  return env_or ("SLABSIM_EXE", "slabsim");
}

char *
tu_source_path (const char *rel)
{
  return g_build_filename (tu_source_root (), rel, NULL);
}

int
tu_run_stdin (char **out, char **err, const char *input, const char *const *args)
{
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) tu_exe ());
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (char *) *a);
  g_ptr_array_add (argv, NULL);

  GError *error = NULL;
  GSubprocessFlags flags = G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE;
  if (input)
    flags |= G_SUBPROCESS_FLAGS_STDIN_PIPE;
  GSubprocess *p = g_subprocess_newv ((const char *const *) argv->pdata, flags, &error);
  g_ptr_array_free (argv, TRUE);
  if (p == NULL)
    {
      print_error ("spawn %s: %s\n", tu_exe (), error->message);
      fail ();
    }
  char *o = NULL, *e = NULL;
  if (!g_subprocess_communicate_utf8 (p, input, NULL, &o, &e, &error))
    {
      print_error ("communicate: %s\n", error->message);
      fail ();
    }
  int status = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
  g_object_unref (p);
  if (out)
    *out = o;
  else
    g_free (o);
  if (err)
    *err = e;
  else
    g_free (e);
  return status;
}


int
tu_run (char **out, char **err, const char *const *args)
{
  return tu_run_stdin (out, err, NULL, args);
}

/* Every file tu_write_temp made, removed when the test program exits (a
 * test that fails part-way never reaches its own unlink, and ~100 callers
 * would each need one); a fork's child leaves with _exit, which skips it. */
static GPtrArray *temp_files;
static GMutex temp_lock;

static void
remove_temp_files (void)
{
  for (guint i = 0; i < temp_files->len; i++)
    g_unlink (g_ptr_array_index (temp_files, i));
  g_ptr_array_free (temp_files, TRUE);
  temp_files = NULL;
}

char *
tu_write_temp (const char *suffix, const char *contents, gssize len)
{
  g_autofree char *tmpl = g_strdup_printf ("slabsim-test-XXXXXX%s", suffix ? suffix : "");
  char *path = NULL;
  GError *error = NULL;
  int fd = g_file_open_tmp (tmpl, &path, &error);
  if (fd < 0)
    {
      print_error ("tmp: %s\n", error->message);
      fail ();
    }
  close (fd);
  g_mutex_lock (&temp_lock);
  if (temp_files == NULL)
    {
      temp_files = g_ptr_array_new_with_free_func (g_free);
      atexit (remove_temp_files);
    }
  g_ptr_array_add (temp_files, g_strdup (path));
  g_mutex_unlock (&temp_lock);
  if (!g_file_set_contents (path, contents, len, &error))
    {
      print_error ("write %s: %s\n", path, error->message);
      fail ();
    }
  return path;
}

guint64
tu_json_uint (const char *json, const char *anchor, const char *key)
{
  const char *p = anchor ? strstr (json, anchor) : json;
  if (p == NULL)
    {
      print_error ("no %s in output\n", anchor);
      fail ();
    }
  g_autofree char *k = g_strdup_printf ("\"%s\": ", key);
  const char *q = strstr (p, k);
  if (q == NULL)
    {
      print_error ("no key %s after %s\n", key, anchor ? anchor : "(start)");
      fail ();
    }
  return g_ascii_strtoull (q + strlen (k), NULL, 10);
}

void
tu_assert_ok (gboolean ok, const GError *error)
{
  if (!ok)
    {
      print_error ("%s\n", error ? error->message : "(no error)");
      fail ();
    }
}

const char *
tu_after_first_line (const char *out)
{
  const char *nl = strchr (out, '\n');
  assert_non_null (nl);
  return nl + 1;
}

guint
tu_count (const char *hay, const char *needle)
{
  guint n = 0;
  for (const char *p = hay; (p = strstr (p, needle)); p += strlen (needle))
    n++;
  return n;
}

char *
tu_trace_gen (const char *workload, const char *kernel, const char *const *extra)
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

gboolean
tu_golden_matches (const char *rel, const char *actual)
{
  g_autofree char *path = tu_source_path (rel);
  g_autofree char *want = NULL;
  if (!g_file_get_contents (path, &want, NULL, NULL))
    {
      print_error ("missing golden %s (run scripts/regen-goldens)\n", path);
      return FALSE;
    }
  if (strcmp (actual, want) != 0)
    {
      print_error ("%s differs from the output (after an intended change run "
                   "scripts/regen-goldens and explain the diff):\n%s\n", path, actual);
      return FALSE;
    }
  return TRUE;
}

char *
tu_sweep_on_trace (const char *rel_yaml, const char *trace)
{
  g_autofree char *yaml_path = tu_source_path (rel_yaml);
  g_autofree char *yaml = NULL;
  assert_true (g_file_get_contents (yaml_path, &yaml, NULL, NULL));
  const char *line = strstr (yaml, "\ntrace: ");
  assert_non_null (line);
  const char *eol = strchr (line + 1, '\n');
  assert_non_null (eol);
  g_autofree char *head = g_strndup (yaml, (gsize) (line - yaml));
  g_autofree char *text = g_strdup_printf ("%s\ntrace: %s%s", head, trace, eol);
  return tu_write_temp (".yaml", text, -1);
}
