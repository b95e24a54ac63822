/* test-sweep-run.c - running sweeps: shards merged equal the unsharded run
 * byte for byte, reruns skip finished points, merge finds missing and
 * duplicate points, and nothing is printed on a non-terminal stderr. */
#include "tests/testutil.h"

#include <string.h>
#include <glib/gstdio.h>

static char *tmp;      /* a fresh directory for this run */
static char *yaml;

static char *
slurp (const char *path)
{
  char *text = NULL;
  GError *error = NULL;
  if (!g_file_get_contents (path, &text, NULL, &error))
    {
      print_error ("%s\n", error->message);
      fail ();
    }
  return text;
}

static char *
sub (const char *name)
{
  return g_build_filename (tmp, name, NULL);
}

static int
sweep (char **err, const char *dir, const char *shard)
{
  g_autofree char *out = NULL;
  const char *args[] = { "sweep", yaml, "--jobs", "2", "-o", dir,
                         shard ? "--shard" : NULL, shard, NULL };
  int rc = tu_run (&out, err, args);
  assert_string_equal (out, "");
  return rc;
}

static void
test_shards_merge_to_unsharded (void **state)
{
  (void) state;
  g_autofree char *all = sub ("all"), *s0 = sub ("s0"), *s1 = sub ("s1");
  g_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL;
  assert_int_equal (sweep (&e1, all, NULL), 0);
  /* Quiet when stderr is not a terminal. */
  assert_string_equal (e1, "");
  assert_int_equal (sweep (&e2, s0, "0/2"), 0);
  assert_int_equal (sweep (&e3, s1, "1/2"), 0);

  g_autofree char *res_path = g_build_filename (all, "results.jsonl", NULL);
  g_autofree char *unsharded = slurp (res_path);
  guint lines = 0;
  for (const char *p = unsharded; *p; p++)
    lines += *p == '\n';
  assert_int_equal (lines, 4);
  tu_assert_contains (unsharded, "\"index\":3,\"points\":4,");

  g_autofree char *merged = sub ("merged.jsonl");
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "merge", s1, s0, "-o", merged, NULL }), 0);
  g_autofree char *m = slurp (merged);
  assert_string_equal (m, unsharded);

  /* A shard alone is 2 of 4 points: merge names the missing ones by id. */
  g_autofree char *out2 = NULL, *err2 = NULL;
  assert_int_equal (tu_run (&out2, &err2, (const char *[]) { "merge", s0, NULL }), 1);
  tu_assert_contains (err2, "2 of 4 points missing");
  /* Point 1 is in shard 1; its id is in the unsharded results. */
  const char *l1 = strchr (unsharded, '\n') + 1;
  g_autofree char *id1 = g_strndup (l1 + strlen ("{\"id\":\""), 16);
  g_autofree char *needle = g_strdup_printf ("1 (%s)", id1);
  tu_assert_contains (err2, needle);

  /* The same shard twice: duplicates. */
  g_autofree char *out3 = NULL, *err3 = NULL;
  assert_int_equal (tu_run (&out3, &err3, (const char *[]) { "merge", s0, s1, s0, NULL }), 1);
  tu_assert_contains (err3, "2 duplicate points");
  tu_assert_contains (err3, "point 0 (");

  /* Merge of a merged file is itself. */
  g_autofree char *out4 = NULL;
  assert_int_equal (tu_run (&out4, NULL, (const char *[]) { "merge", merged, NULL }), 0);
  assert_string_equal (out4, unsharded);
}

static void
test_rerun_skips_finished_points (void **state)
{
  (void) state;
  g_autofree char *dir = sub ("rerun");
  g_autofree char *err = NULL;
  assert_int_equal (sweep (&err, dir, "0/2"), 0);
  g_autofree char *pdir = g_build_filename (dir, "points", NULL);
  GDir *d = g_dir_open (pdir, 0, NULL);
  assert_non_null (d);
  const char *name = g_dir_read_name (d);
  assert_non_null (name);
  g_autofree char *victim = g_build_filename (pdir, name, NULL);
  g_dir_close (d);
  /* Mark a finished point: a rerun must not replay it again. */
  g_autofree char *orig = slurp (victim);
  g_autofree char *marked = g_strdup (orig);
  char *p = strstr (marked, "\"sweep\":\"");
  assert_non_null (p);
  p[9] = 'X';
  assert_true (g_file_set_contents (victim, marked, -1, NULL));
  g_autofree char *err2 = NULL;
  assert_int_equal (sweep (&err2, dir, NULL), 0);
  g_autofree char *after = slurp (victim);
  assert_string_equal (after, marked);
  /* ... and the other shard's points were added. */
  g_autofree char *res = g_build_filename (dir, "results.jsonl", NULL);
  g_autofree char *all = slurp (res);
  guint lines = 0;
  for (const char *q = all; *q; q++)
    lines += *q == '\n';
  assert_int_equal (lines, 4);
}

static guint
count_lines (const char *s)
{
  guint n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

static void
gen_trace (const char *path, const char *seed)
{
  g_autofree char *err = NULL;
  int rc = tu_run (NULL, &err, (const char *[]) { "trace", "gen", "hackbench", "--loops", "2",
                                                  "--seed", seed, "-o", path, NULL });
  if (rc != 0)
    print_error ("trace gen: %s\n", err);
  assert_int_equal (rc, 0);
}

/* The point files of @dir in index order (the plan has two). */
static void
point_files (const char *dir, char *files[2])
{
  g_autofree char *plan_path = g_build_filename (dir, "plan.json", NULL);
  g_autofree char *plan = slurp (plan_path);
  const char *p = plan;
  for (guint i = 0; i < 2; i++)
    {
      p = strstr (p, "\"id\": \"");
      assert_non_null (p);
      p += 7;
      g_autofree char *id = g_strndup (p, 16);
      g_autofree char *name = g_strdup_printf ("%s.jsonl", id);
      files[i] = g_build_filename (dir, "points", name, NULL);
    }
}

/* Resume trusts a point only when its file is one valid line of this
 * point computed from the same trace and machine contents (issue 9 item 6:
 * a new trace under the old name reused old results; an empty or truncated
 * point file counted as done and reached results.jsonl). */
static void
test_resume_checks_inputs (void **state)
{
  (void) state;
  g_autofree char *dir = sub ("resume");
  g_autofree char *trace = sub ("resume.trace.gz");
  g_autofree char *machine = sub ("resume-machine.yaml");
  g_autofree char *ryaml = sub ("resume.yaml");
  gen_trace (trace, "1");
  g_autofree char *nehalem = tu_source_path ("configs/machines/nehalem-ep-2s.yaml");
  g_autofree char *mtext = slurp (nehalem);
  assert_true (g_file_set_contents (machine, mtext, -1, NULL));
  g_autofree char *text = g_strdup_printf ("name: resume\ntrace: %s\nmachine: %s\n"
                                           "allocator: slub@6.18\naxes:\n"
                                           "  - grid: {slub_max_order: [1, 3]}\n",
                                           trace, machine);
  assert_true (g_file_set_contents (ryaml, text, -1, NULL));
  const char *run[] = { "sweep", ryaml, "-o", dir, NULL };
  const char *shard1[] = { "sweep", ryaml, "-o", dir, "--shard", "1/2", NULL };

  g_autofree char *e0 = NULL;
  assert_int_equal (tu_run (NULL, &e0, run), 0);
  g_autofree char *res_path = g_build_filename (dir, "results.jsonl", NULL);
  g_autofree char *first = slurp (res_path);
  assert_int_equal (count_lines (first), 2);
  /* The line records the trace's SHA-256. */
  g_autofree char *tbytes = NULL;
  gsize tlen;
  assert_true (g_file_get_contents (trace, &tbytes, &tlen, NULL));
  g_autofree char *tsha = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (guchar *) tbytes,
                                                       tlen);
  g_autofree char *want = g_strdup_printf ("\"inputs\":{\"trace_sha256\":\"%s\",", tsha);
  tu_assert_contains (first, want);

  char *pf[2];
  point_files (dir, pf);
  g_autofree char *line0 = slurp (pf[0]);

  /* Broken point files are run again; nothing broken reaches results. */
  assert_true (g_file_set_contents (pf[0], line0, (gssize) strlen (line0) / 2, NULL));
  assert_true (g_file_set_contents (pf[1], "", 0, NULL));
  g_autofree char *e1 = NULL;
  assert_int_equal (tu_run (NULL, &e1, run), 0);
  tu_assert_contains (e1, "point 0 (");
  tu_assert_contains (e1, "not one whole line (truncated?); running it again");
  tu_assert_contains (e1, "point 1 (");
  tu_assert_contains (e1, "its file is empty; running it again");
  g_autofree char *second = slurp (res_path);
  assert_string_equal (second, first);

  assert_true (g_file_set_contents (pf[1], "{\"id\": broken\n", -1, NULL));
  g_autofree char *e2 = NULL;
  assert_int_equal (tu_run (NULL, &e2, shard1), 0);
  tu_assert_contains (e2, "point 1 (");
  tu_assert_contains (e2, "does not parse");
  g_autofree char *e2b = NULL;
  /* Another shard's broken file is left out of this shard's results. */
  assert_true (g_file_set_contents (pf[1], "", 0, NULL));
  const char *shard0[] = { "sweep", ryaml, "-o", dir, "--shard", "0/2", NULL };
  assert_int_equal (tu_run (NULL, &e2b, shard0), 0);
  tu_assert_contains (e2b, "point 1 (");
  tu_assert_contains (e2b, "left out of results.jsonl");
  g_autofree char *partial = slurp (res_path);
  assert_int_equal (count_lines (partial), 1);
  g_autofree char *e2c = NULL;
  assert_int_equal (tu_run (NULL, &e2c, run), 0);
  g_autofree char *healed = slurp (res_path);
  assert_string_equal (healed, first);

  /* Same content, new mtime and inode: nothing runs again. */
  g_autofree char *copy = g_strdup_printf ("%s.tmp", trace);
  assert_true (g_file_set_contents (copy, tbytes, (gssize) tlen, NULL));
  assert_int_equal (g_rename (copy, trace), 0);
  g_autofree char *e3 = NULL;
  assert_int_equal (tu_run (NULL, &e3, run), 0);
  assert_string_equal (e3, "");

  /* A different trace under the same name: every point runs again, with
   * the same ids. */
  gen_trace (trace, "2");
  g_autofree char *e4 = NULL;
  assert_int_equal (tu_run (NULL, &e4, run), 0);
  g_autofree char *why = g_strdup_printf ("trace %s changed since it ran; running it again",
                                          trace);
  tu_assert_contains (e4, why);
  g_autofree char *third = slurp (res_path);
  assert_int_equal (count_lines (third), 2);
  assert_string_not_equal (third, first);
  char *pf2[2];
  point_files (dir, pf2);
  assert_string_equal (pf2[0], pf[0]);
  assert_string_equal (pf2[1], pf[1]);

  /* The machine: a comment is not a change, a value is. */
  g_autofree char *commented = g_strdup_printf ("# a comment\n%s", mtext);
  assert_true (g_file_set_contents (machine, commented, -1, NULL));
  g_autofree char *e5 = NULL;
  assert_int_equal (tu_run (NULL, &e5, run), 0);
  assert_string_equal (e5, "");
  g_autofree char *reseeded = g_strdup (commented);
  char *seed = strstr (reseeded, "\nseed: 1");
  assert_non_null (seed);
  seed[7] = '2';
  assert_true (g_file_set_contents (machine, reseeded, -1, NULL));
  g_autofree char *e6 = NULL;
  assert_int_equal (tu_run (NULL, &e6, run), 0);
  tu_assert_contains (e6, "machine ");
  tu_assert_contains (e6, "changed since it ran; running it again");
  for (guint i = 0; i < 2; i++)
    {
      g_free (pf[i]);
      g_free (pf2[i]);
    }
}

static void
test_bad_shard_and_other_plan (void **state)
{
  (void) state;
  g_autofree char *dir = sub ("bad");
  g_autofree char *err = NULL;
  assert_int_equal (sweep (&err, dir, "2/2"), 2);
  tu_assert_contains (err, "--shard \"2/2\" is not I/N");
  /* A directory of another plan is refused. */
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *text = g_strdup_printf ("trace: %s\nallocator: slub@6.18\n", trace);
  g_autofree char *y2 = tu_write_temp (".yaml", text, -1);
  g_autofree char *all = sub ("all");
  g_autofree char *out = NULL, *err2 = NULL;
  assert_int_equal (tu_run (&out, &err2, (const char *[]) { "sweep", y2, "-o", all, NULL }), 1);
  tu_assert_contains (err2, "holds the results of another plan");
  g_unlink (y2);
}

static void
test_slurm_array_selects_shard (void **state)
{
  (void) state;
  /* --array=1-2: task 2 is the second shard, 1/2 counting from 0. */
  g_setenv ("SLURM_ARRAY_TASK_ID", "2", TRUE);
  g_setenv ("SLURM_ARRAY_TASK_MIN", "1", TRUE);
  g_setenv ("SLURM_ARRAY_TASK_COUNT", "2", TRUE);
  g_autofree char *dir = sub ("slurm"), *err = NULL;
  int rc = sweep (&err, dir, NULL);
  g_unsetenv ("SLURM_ARRAY_TASK_ID");
  g_unsetenv ("SLURM_ARRAY_TASK_MIN");
  g_unsetenv ("SLURM_ARRAY_TASK_COUNT");
  assert_int_equal (rc, 0);
  g_autofree char *res = g_build_filename (dir, "results.jsonl", NULL);
  g_autofree char *lines = slurp (res);
  tu_assert_contains (lines, "\"index\":1,");
  tu_assert_contains (lines, "\"index\":3,");
  assert_null (strstr (lines, "\"index\":0,"));
  assert_null (strstr (lines, "\"index\":2,"));
  /* --list prints the plan and runs nothing. */
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "sweep", yaml, "--list", NULL }), 0);
  tu_assert_contains (out, "3\t");
  tu_assert_contains (out, "\tslub@2.6.34:slub_max_order=3,slub_min_objects=32\tslub_max_order=3\t"
                           "slub_min_objects=32\n");
}

static void
test_failed_point_reported_and_retried (void **state)
{
  (void) state;
  /* A trace that exists but does not parse fails at run time, in its
   * worker: the other point still runs and is kept. */
  g_autofree char *bad = g_build_filename (tmp, "bad.trace", NULL);
  assert_true (g_file_set_contents (bad, "this is not a kmem trace\n", -1, NULL));
  g_autofree char *good = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *text = g_strdup_printf ("trace: [%s, %s]\nallocator: slub@2.6.34\n", good, bad);
  g_autofree char *y = g_build_filename (tmp, "fail.yaml", NULL);
  assert_true (g_file_set_contents (y, text, -1, NULL));
  g_autofree char *dir = sub ("fail");
  g_autofree char *out = NULL, *err = NULL;
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "sweep", y, "--jobs", "2", "-o", dir, NULL }), 1);
  tu_assert_contains (err, "slabsim: sweep: point 1 (");
  tu_assert_contains (err, "bad.trace");
  g_autofree char *res = g_build_filename (dir, "results.jsonl", NULL);
  g_autofree char *all = slurp (res);
  tu_assert_contains (all, "\"index\":0,");
  assert_null (strstr (all, "\"index\":1,"));
  /* Rerun: point 0 is skipped, point 1 fails again. */
  g_autofree char *err2 = NULL, *out2 = NULL;
  assert_int_equal (tu_run (&out2, &err2, (const char *[]) { "sweep", y, "-o", dir, NULL }), 1);
  tu_assert_contains (err2, "point 1 (");
  assert_null (strstr (err2, "point 0 ("));
}

static void
rm_rf (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      GDir *d = g_dir_open (path, 0, NULL);
      const char *n;
      while (d && (n = g_dir_read_name (d)))
        {
          g_autofree char *c = g_build_filename (path, n, NULL);
          rm_rf (c);
        }
      if (d)
        g_dir_close (d);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

/* The number of workers changes nothing in the output: --jobs 1 and
 * --jobs 2 (and more workers than points) write the same bytes, in the
 * results and in every point's file. */
static void
test_jobs_same_bytes (void **state)
{
  (void) state;
  static const char *const jobs[] = { "1", "2", "5" };
  g_autofree char *first = NULL;
  g_autofree char *first_dir = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (jobs); i++)
    {
      g_autofree char *name = g_strdup_printf ("jobs%s", jobs[i]);
      g_autofree char *dir = sub (name);
      g_autofree char *out = NULL, *err = NULL;
      assert_int_equal (tu_run (&out, &err, (const char *[]) { "sweep", yaml, "--jobs", jobs[i],
                                                               "-o", dir, NULL }), 0);
      g_autofree char *res_path = g_build_filename (dir, "results.jsonl", NULL);
      g_autofree char *res = slurp (res_path);
      tu_assert_contains (res, "\"index\":3,\"points\":4,");
      if (first == NULL)
        {
          first = g_steal_pointer (&res);
          first_dir = g_steal_pointer (&dir);
          continue;
        }
      assert_string_equal (res, first);
      g_autofree char *pdir = g_build_filename (first_dir, "points", NULL);
      GDir *d = g_dir_open (pdir, 0, NULL);
      assert_non_null (d);
      const char *n;
      guint files = 0;
      while ((n = g_dir_read_name (d)))
        {
          g_autofree char *a_path = g_build_filename (pdir, n, NULL);
          g_autofree char *b_path = g_build_filename (dir, "points", n, NULL);
          g_autofree char *a = slurp (a_path);
          g_autofree char *b = slurp (b_path);
          assert_string_equal (a, b);
          files++;
        }
      g_dir_close (d);
      assert_int_equal (files, 4);
    }
}

int
main (void)
{
  /* Tests may themselves run in a Slurm job array. */
  g_unsetenv ("SLURM_ARRAY_TASK_ID");
  g_unsetenv ("SLURM_ARRAY_TASK_MIN");
  g_unsetenv ("SLURM_ARRAY_TASK_COUNT");
  tmp = g_dir_make_tmp ("slabsim-sweep-XXXXXX", NULL);
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *text = g_strdup_printf ("name: t4\ntrace: %s\nallocator: slub@2.6.34\naxes:\n"
                                           "  - grid: {slub_max_order: [1, 3], "
                                           "slub_min_objects: [4, 32]}\n", trace);
  yaml = g_build_filename (tmp, "t4.yaml", NULL);
  g_file_set_contents (yaml, text, -1, NULL);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_shards_merge_to_unsharded),
    cmocka_unit_test (test_rerun_skips_finished_points),
    cmocka_unit_test (test_resume_checks_inputs),
    cmocka_unit_test (test_bad_shard_and_other_plan),
    cmocka_unit_test (test_failed_point_reported_and_retried),
    cmocka_unit_test (test_slurm_array_selects_shard),
    cmocka_unit_test (test_jobs_same_bytes),
  };
  int rc = cmocka_run_group_tests_name ("sweep-run", tests, NULL, NULL);
  rm_rf (tmp);
  g_free (yaml);
  g_free (tmp);
  return rc;
}
