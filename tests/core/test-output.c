/* test-output.c - output files (sim/core/output.h): what each kind of path
 * becomes, that a failed write leaves the old file alone, and that every
 * verb writing a file goes through the same rules and checks its -o before
 * doing the work. */
#include "tests/testutil.h"
#include "sim/core/output.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>

static char *
make_dir (void)
{
  char *d = g_dir_make_tmp ("slabsim-output-XXXXXX", NULL);
  assert_non_null (d);
  return d;
}

static void
remove_tree (const char *path)
{
  struct stat st;
  if (lstat (path, &st) == 0 && S_ISDIR (st.st_mode))
    {
      chmod (path, 0700);
      GDir *d = g_dir_open (path, 0, NULL);
      const char *n;
      while (d && (n = g_dir_read_name (d)))
        {
          g_autofree char *p = g_build_filename (path, n, NULL);
          remove_tree (p);
        }
      if (d)
        g_dir_close (d);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static char *
slurp (const char *path)
{
  char *s = NULL;
  if (!g_file_get_contents (path, &s, NULL, NULL))
    return NULL;
  return s;
}

static gint
cmp_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in @dir, sorted, joined by spaces: no temporary file left. */
static char *
listing (const char *dir)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *n;
  while (d && (n = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (n));
  if (d)
    g_dir_close (d);
  g_ptr_array_sort (names, cmp_names);
  g_ptr_array_add (names, NULL);
  char *s = g_strjoinv (" ", (char **) names->pdata);
  g_ptr_array_free (names, TRUE);
  return s;
}

static void
test_regular_file (void **state)
{
  (void) state;
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "out.txt", NULL);
  GError *error = NULL;
  assert_true (sim_output_write (path, "first\n", -1, &error));
  g_autofree char *a = slurp (path);
  assert_string_equal (a, "first\n");
  /* Replacing keeps the old file's permission bits. */
  assert_int_equal (chmod (path, 0640), 0);
  assert_true (sim_output_write (path, "second\n", -1, &error));
  g_autofree char *b = slurp (path);
  assert_string_equal (b, "second\n");
  struct stat st;
  assert_int_equal (stat (path, &st), 0);
  assert_int_equal (st.st_mode & 07777, 0640);
  g_autofree char *ls = listing (dir);
  assert_string_equal (ls, "out.txt");
  remove_tree (dir);
}

static void
test_symlink_followed (void **state)
{
  (void) state;
  g_autofree char *dir = make_dir ();
  g_autofree char *a = g_build_filename (dir, "a", NULL);
  g_autofree char *b = g_build_filename (dir, "b", NULL);
  g_mkdir (a, 0700);
  g_mkdir (b, 0700);
  g_autofree char *real = g_build_filename (b, "real.json", NULL);
  g_autofree char *link = g_build_filename (a, "link.json", NULL);
  g_autofree char *link2 = g_build_filename (a, "link2.json", NULL);
  assert_true (g_file_set_contents (real, "old\n", -1, NULL));
  /* A relative link, through a second link: both are followed. */
  assert_int_equal (symlink ("../b/real.json", link), 0);
  assert_int_equal (symlink ("link.json", link2), 0);
  GError *error = NULL;
  assert_true (sim_output_write (link2, "new\n", -1, &error));
  g_assert_no_error (error);
  struct stat st;
  assert_int_equal (lstat (link, &st), 0);
  assert_true (S_ISLNK (st.st_mode));
  assert_int_equal (lstat (link2, &st), 0);
  assert_true (S_ISLNK (st.st_mode));
  g_autofree char *got = slurp (real);
  assert_string_equal (got, "new\n");
  /* The rename happened in the target's folder: nothing left in either. */
  g_autofree char *la = listing (a), *lb = listing (b);
  assert_string_equal (la, "link.json link2.json");
  assert_string_equal (lb, "real.json");

  /* A dangling link: the file it names is created. */
  g_autofree char *dangling = g_build_filename (a, "dangling", NULL);
  assert_int_equal (symlink ("../b/new.json", dangling), 0);
  assert_true (sim_output_write (dangling, "x", -1, &error));
  g_autofree char *newf = g_build_filename (b, "new.json", NULL);
  g_autofree char *x = slurp (newf);
  assert_string_equal (x, "x");
  assert_int_equal (lstat (dangling, &st), 0);
  assert_true (S_ISLNK (st.st_mode));
  remove_tree (dir);
}

typedef struct {
  char *path;
  GString *got;
} FifoReader;

static gpointer
read_fifo (gpointer data)
{
  FifoReader *r = data;
  FILE *f = fopen (r->path, "r");
  if (f == NULL)
    return NULL;
  char buf[256];
  size_t n;
  while ((n = fread (buf, 1, sizeof buf, f)) > 0)
    g_string_append_len (r->got, buf, (gssize) n);
  fclose (f);
  return NULL;
}

static void
test_fifo_written_through (void **state)
{
  (void) state;
  g_autofree char *dir = make_dir ();
  g_autofree char *fifo = g_build_filename (dir, "pipe", NULL);
  assert_int_equal (mkfifo (fifo, 0600), 0);
  FifoReader r = { fifo, g_string_new (NULL) };
  GThread *t = g_thread_new ("fifo-reader", read_fifo, &r);
  GError *error = NULL;
  assert_true (sim_output_check (fifo, &error));
  assert_true (sim_output_write (fifo, "through the pipe\n", -1, &error));
  g_assert_no_error (error);
  g_thread_join (t);
  assert_string_equal (r.got->str, "through the pipe\n");
  struct stat st;
  assert_int_equal (lstat (fifo, &st), 0);
  assert_true (S_ISFIFO (st.st_mode));
  g_autofree char *ls = listing (dir);
  assert_string_equal (ls, "pipe");
  g_string_free (r.got, TRUE);
  remove_tree (dir);
}

static void
test_dev_null (void **state)
{
  (void) state;
  if (geteuid () != 0)
    {
      /* Only root could replace /dev/null; as anyone else the rename
       * would fail whatever the helper does, so the case proves nothing. */
      fprintf (stderr, "# /dev/null: not root, case skipped\n");
      return;
    }
  struct stat before, after;
  assert_int_equal (stat ("/dev/null", &before), 0);
  assert_true (S_ISCHR (before.st_mode));
  GError *error = NULL;
  assert_true (sim_output_write ("/dev/null", "gone\n", -1, &error));
  assert_int_equal (stat ("/dev/null", &after), 0);
  assert_true (S_ISCHR (after.st_mode));
  assert_int_equal (before.st_rdev, after.st_rdev);
  assert_int_equal (before.st_ino, after.st_ino);
  /* Nothing was left in /dev either. */
  GDir *d = g_dir_open ("/dev", 0, NULL);
  const char *n;
  while (d && (n = g_dir_read_name (d)))
    assert_false (g_str_has_prefix (n, ".null."));
  g_dir_close (d);
}

static void
test_descriptor (void **state)
{
  (void) state;
  int p[2];
  assert_int_equal (pipe (p), 0);
  g_autofree char *path = g_strdup_printf ("/dev/fd/%d", p[1]);
  GError *error = NULL;
  assert_true (sim_output_write (path, "fd\n", -1, &error));
  close (p[1]);
  char buf[16] = { 0 };
  assert_int_equal (read (p[0], buf, sizeof buf - 1), 3);
  assert_string_equal (buf, "fd\n");
  close (p[0]);
  /* A closed descriptor is an error naming the path. */
  assert_false (sim_output_check (path, &error));
  tu_assert_contains (error->message, path);
  g_clear_error (&error);
}

static void
test_refused (void **state)
{
  (void) state;
  g_autofree char *dir = make_dir ();
  GError *error = NULL;
  assert_false (sim_output_check (dir, &error));
  tu_assert_contains (error->message, dir);
  tu_assert_contains (error->message, "is a directory");
  g_clear_error (&error);
  assert_false (sim_output_write (dir, "x", -1, &error));
  tu_assert_contains (error->message, "is a directory");
  g_clear_error (&error);

  g_autofree char *sock = g_build_filename (dir, "sock", NULL);
  int s = socket (AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  g_strlcpy (sa.sun_path, sock, sizeof sa.sun_path);
  assert_int_equal (bind (s, (struct sockaddr *) &sa, sizeof sa), 0);
  assert_false (sim_output_write (sock, "x", -1, &error));
  tu_assert_contains (error->message, sock);
  tu_assert_contains (error->message, "is a socket");
  g_clear_error (&error);
  close (s);
  struct stat st;
  assert_int_equal (lstat (sock, &st), 0);
  assert_true (S_ISSOCK (st.st_mode));

  g_autofree char *missing = g_build_filename (dir, "no", "such", "x.json", NULL);
  assert_false (sim_output_check (missing, &error));
  tu_assert_contains (error->message, missing);
  g_clear_error (&error);
  remove_tree (dir);
}

/* Run @fn in a child process; returns its exit status (0: its checks held). */
static int
in_child (int (*fn) (gpointer), gpointer data)
{
  fflush (NULL);
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    _exit (fn (data));
  int status = 0;
  assert_int_equal (waitpid (pid, &status, 0), pid);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 100;
}

/* 0 when writing a big buffer to @path fails with a message that names it
 * (and no temporary file). */
static int
write_must_fail (gpointer data)
{
  const char *path = data;
  gsize n = 1 << 20;
  char *big = g_malloc (n);
  memset (big, 'z', n);
  GError *error = NULL;
  if (sim_output_write (path, big, (gssize) n, &error))
    return 1;
  fprintf (stderr, "# child: %s\n", error->message);
  if (strstr (error->message, path) == NULL)
    return 2;
  if (strstr (error->message, "/.") != NULL)   /* a temporary ".NAME.XXXXXX" */
    return 3;
  return 0;
}

static int
write_with_small_fsize (gpointer data)
{
  /* A full disk, as far as this process can tell: writes past 4 KiB fail
   * with EFBIG instead of killing the process. */
  signal (SIGXFSZ, SIG_IGN);
  struct rlimit rl = { 4096, 4096 };
  if (setrlimit (RLIMIT_FSIZE, &rl) != 0)
    return 10;
  return write_must_fail (data);
}

static void
test_failed_write_keeps_target (void **state)
{
  (void) state;
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "results.jsonl", NULL);
  assert_true (g_file_set_contents (path, "precious\n", -1, NULL));
  assert_int_equal (in_child (write_with_small_fsize, path), 0);
  g_autofree char *got = slurp (path);
  assert_string_equal (got, "precious\n");
  g_autofree char *ls = listing (dir);
  assert_string_equal (ls, "results.jsonl");

  /* A new name: nothing at all is left. */
  g_autofree char *fresh = g_build_filename (dir, "new.jsonl", NULL);
  assert_int_equal (in_child (write_with_small_fsize, fresh), 0);
  g_autofree char *ls2 = listing (dir);
  assert_string_equal (ls2, "results.jsonl");
  remove_tree (dir);
}

static int
write_as_nobody (gpointer data)
{
  if (geteuid () == 0)
    {
      struct passwd *pw = getpwnam ("nobody");
      if (pw == NULL || setgid (pw->pw_gid) != 0 || setuid (pw->pw_uid) != 0)
        return 11;
    }
  GError *error = NULL;
  if (sim_output_check (data, &error))
    return 12;
  g_clear_error (&error);
  return write_must_fail (data);
}

static void
test_read_only_folder (void **state)
{
  (void) state;
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "report.txt", NULL);
  assert_true (g_file_set_contents (path, "keep me\n", -1, NULL));
  assert_int_equal (chmod (path, 0644), 0);
  /* Readable and searchable by all (a root test drops to nobody), writable
   * by none. */
  assert_int_equal (chmod (dir, 0555), 0);
  assert_int_equal (in_child (write_as_nobody, path), 0);
  g_autofree char *got = slurp (path);
  assert_string_equal (got, "keep me\n");
  g_autofree char *ls = listing (dir);
  assert_string_equal (ls, "report.txt");
  remove_tree (dir);
}

/* ---- the verbs ---------------------------------------------------------- */

static void
test_verbs_follow_symlinks (void **state)
{
  (void) state;
  g_autofree char *dir = make_dir ();
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *fixture = tu_source_path ("tests/golden/report/fixture.jsonl");
  struct {
    const char *name;
    const char *args[12];
  } verbs[] = {
    { "run", { "run", trace, "-o", NULL } },
    { "merge", { "merge", fixture, "-o", NULL } },
    { "report", { "report", fixture, "-o", NULL } },
    { "trace gen", { "trace", "gen", "hackbench", "--loops", "1", "-o", NULL } },
    { "trace convert", { "trace", "convert", trace, "-o", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (verbs); i++)
    {
      g_autofree char *real = g_strdup_printf ("%s/real-%u.txt", dir, i);
      g_autofree char *link = g_strdup_printf ("%s/link-%u.txt", dir, i);
      assert_true (g_file_set_contents (real, "old", -1, NULL));
      assert_int_equal (symlink (real, link), 0);
      const char **a = verbs[i].args;
      guint k = 0;
      while (a[k])
        k++;
      a[k] = link;
      g_autofree char *err = NULL;
      int st = tu_run (NULL, &err, a);
      if (st != 0)
        print_error ("%s: %s\n", verbs[i].name, err);
      assert_int_equal (st, 0);
      struct stat sb;
      assert_int_equal (lstat (link, &sb), 0);
      assert_true (S_ISLNK (sb.st_mode));
      g_autofree char *got = slurp (real);
      assert_true (strlen (got) > 3);
    }
  remove_tree (dir);
}

/* -o is checked before the work: with a directory as output and an input
 * that does not exist, the error is about the output. */
static void
test_verbs_check_output_first (void **state)
{
  (void) state;
  g_autofree char *dir = make_dir ();
  const char *missing = "/nonexistent/input.trace.gz";
  const char *const cases[][8] = {
    { "run", missing, "-o", dir, NULL },
    { "merge", missing, "-o", dir, NULL },
    { "report", missing, "--format", "text", "-o", dir, NULL },
    { "trace", "convert", missing, "-o", dir, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      assert_int_equal (tu_run (NULL, &err, cases[i]), 1);
      tu_assert_contains (err, dir);
      tu_assert_contains (err, "is a directory");
    }
  /* trace gen: with no usable temporary folder the body could not even
   * start; the output is refused first. */
  g_autofree char *err = NULL;
  const char *const gen[] = { "trace", "gen", "hackbench", "-o", dir, NULL };
  g_setenv ("TMPDIR", "/nonexistent", TRUE);
  int st = tu_run (NULL, &err, gen);
  g_unsetenv ("TMPDIR");
  assert_int_equal (st, 1);
  tu_assert_contains (err, "is a directory");
  /* record: the output is refused before tracefs or root are looked at. */
  g_autofree char *err2 = NULL;
  g_setenv ("SLABSIM_RECORD_EUID", "1000", TRUE);
  st = tu_run (NULL, &err2, (const char *const[]) { "record", "-o", dir, "--", "true", NULL });
  g_unsetenv ("SLABSIM_RECORD_EUID");
  assert_int_equal (st, 1);
  tu_assert_contains (err2, "is a directory");
  remove_tree (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_regular_file),
    cmocka_unit_test (test_symlink_followed),
    cmocka_unit_test (test_fifo_written_through),
    cmocka_unit_test (test_dev_null),
    cmocka_unit_test (test_descriptor),
    cmocka_unit_test (test_refused),
    cmocka_unit_test (test_failed_write_keeps_target),
    cmocka_unit_test (test_read_only_folder),
    cmocka_unit_test (test_verbs_follow_symlinks),
    cmocka_unit_test (test_verbs_check_output_first),
  };
  return cmocka_run_group_tests_name ("output", tests, NULL, NULL);
}
