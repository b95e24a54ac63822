/* test-run-parallel.c - read once, replay many (issue 12 item 1): the
 * allocators of one `slabsim run` replay one decoded stream on a thread
 * pool, and the bytes out do not depend on the number of threads; the
 * decoded-trace cache serves a trace only while its bytes are unchanged. */
#include "tests/testutil.h"
#include "traces/account.h"

#include <string.h>
#include <unistd.h>
#include <utime.h>
#include <glib/gstdio.h>

/* Generated traces: "multi" spans several decoded chunks (SIM_TRACE_CHUNK
 * is 16384 events), "small" and "other" are one chunk each. */
static char *multi, *small, *other;

static int
setup (void **state)
{
  (void) state;
  const char *m[] = { "--loops", "22", NULL };
  const char *s[] = { "--loops", "3", NULL };
  const char *o[] = { "--loops", "4", "--seed", "2", NULL };
  multi = tu_trace_gen ("hackbench", "2.6.34", m);
  small = tu_trace_gen ("hackbench", "2.6.34", s);
  other = tu_trace_gen ("hackbench", "6.18", o);
  return 0;
}

static int
teardown (void **state)
{
  (void) state;
  g_unlink (multi);
  g_unlink (small);
  g_unlink (other);
  g_free (multi);
  g_free (small);
  g_free (other);
  return 0;
}

static const char *const four[] = { "-a", "slub@2.6.34", "-a", "slab", "-a", "slqb",
                                    "-a", "slub@6.18", NULL };

/* slabsim run ARGS... TRACE; the exit status in *rc, stdout returned,
 * stderr in *err_out when asked for. */
static char *
run (int *rc, char **err_out, const char *const *args, const char *trace)
{
  GPtrArray *a = g_ptr_array_new ();
  g_ptr_array_add (a, (char *) "run");
  for (const char *const *p = args; p && *p; p++)
    g_ptr_array_add (a, (char *) *p);
  g_ptr_array_add (a, (char *) trace);
  g_ptr_array_add (a, NULL);
  char *out = NULL, *err = NULL;
  *rc = tu_run (&out, &err, (const char *const *) a->pdata);
  g_ptr_array_free (a, TRUE);
  if (err_out)
    *err_out = err;
  else
    g_free (err);
  return out;
}

static char *
run_ok (const char *const *args, const char *trace)
{
  int rc;
  g_autofree char *err = NULL;
  char *out = run (&rc, &err, args, trace);
  if (rc != 0)
    {
      print_error ("run %s: exit %d\n%s\n", trace, rc, err);
      fail ();
    }
  return out;
}

/* @base, then "--jobs" @jobs, then @fmt's --format. */
static char *
run_jobs (const char *trace, const char *jobs, const char *fmt)
{
  const char *args[16];
  guint n = 0;
  for (const char *const *p = four; *p; p++)
    args[n++] = *p;
  args[n++] = "--jobs";
  args[n++] = jobs;
  args[n++] = "--format";
  args[n++] = fmt;
  args[n] = NULL;
  return run_ok (args, trace);
}

/* Four allocators on 1, 2 and 4 threads: the same text and the same JSON. */
static void
test_jobs_identical (void **state)
{
  (void) state;
  const char *fmts[] = { "text", "json" };
  const char *other_jobs[] = { "4", "2" };
  for (guint f = 0; f < G_N_ELEMENTS (fmts); f++)
    {
      g_autofree char *one = run_jobs (multi, "1", fmts[f]);
      g_autofree char *many = run_jobs (multi, other_jobs[f], fmts[f]);
      assert_true (strlen (one) > 1000);
      assert_string_equal (one, many);
    }
  g_autofree char *json = run_jobs (multi, "2", "json");
  assert_true (tu_json_uint (json, "\"replay\": {", "events") > 2 * 16384);
}

/* Fewer threads than allocators: each lane replays one chunk a turn and
 * moves between threads from chunk to chunk (sim/run/replay.c lane_run);
 * with as many threads as allocators each keeps its thread.  Every
 * interleaving gives the bytes of the one-thread-per-lane run. */
static void
test_turns_identical (void **state)
{
  (void) state;
  g_autofree char *own = run_jobs (multi, "4", "json");
  assert_true (tu_json_uint (own, "\"replay\": {", "events") > 2 * 16384);
  const char *turns[] = { "1", "2", "3" };
  for (guint j = 0; j < G_N_ELEMENTS (turns); j++)
    {
      g_autofree char *t = run_jobs (multi, turns[j], "json");
      assert_string_equal (own, t);
    }
}

/* Each allocator's report in a four-allocator run is its report when run
 * alone (the allocators share the decoded events, nothing else). */
static void
test_same_as_alone (void **state)
{
  (void) state;
  g_autofree char *all = run_jobs (multi, "4", "text");
  for (guint i = 1; four[i - 1]; i += 4)
    {
      const char *args[] = { "-a", four[i], NULL };
      g_autofree char *alone = run_ok (args, multi);
      /* the report's own section: from its "== spec" line to the blank
       * line before the next one */
      const char *sec = strstr (alone, "\n== ");
      assert_non_null (sec);
      tu_assert_contains (all, sec + 1);
    }
}

/* A trace that breaks in the middle: the error is the one a serial run
 * reports, whatever the threads, and the replays before it are not
 * reported. */
static void
test_error_identical (void **state)
{
  (void) state;
  GString *t = g_string_new (NULL);
  for (int i = 0; i < 40000; i++)
    g_string_append_printf (t, "  bash-1  [00%d] .....   1.%06d: kmalloc: call_site=a+0x1/0x2 "
                            "ptr=ffff8881%08x bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL\n",
                            i % 2, i, i * 64);
  g_string_append (t, "  bash-1  [000] .....   2.000000: kmalloc: call_site=a ptr=zz\n");
  g_autofree char *path = tu_write_temp (".trace", t->str, (gssize) t->len);
  g_string_free (t, TRUE);
  char *errs[3];
  const char *jobs[] = { "1", "4", "2" };
  for (guint j = 0; j < G_N_ELEMENTS (jobs); j++)
    {
      const char *args[16];
      guint n = 0;
      for (const char *const *p = four; *p; p++)
        args[n++] = *p;
      args[n++] = "--jobs";
      args[n++] = jobs[j];
      args[n] = NULL;
      int rc;
      g_autofree char *out = run (&rc, &errs[j], args, path);
      assert_int_equal (rc, 1);
      assert_string_equal (out, "");
      tu_assert_contains (errs[j], ":40001:");
    }
  assert_string_equal (errs[0], errs[1]);
  assert_string_equal (errs[0], errs[2]);
  for (guint j = 0; j < G_N_ELEMENTS (jobs); j++)
    g_free (errs[j]);
  g_unlink (path);
}

static guint
count_entries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    n += g_str_has_suffix (name, ".slabtr") && name[0] != '.';
  return n;
}

static char *
only_entry (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".slabtr") && name[0] != '.')
      return g_build_filename (dir, name, NULL);
  return NULL;
}

static gboolean
copy_file (const char *from, const char *to)
{
  g_autofree char *data = NULL;
  gsize len;
  return g_file_get_contents (from, &data, &len, NULL)
         && g_file_set_contents (to, data, (gssize) len, NULL);
}

/* The cache: a first run writes an entry, a second is served from it (a
 * planted entry proves it), a trace whose bytes changed (same name, size
 * and time) is decoded afresh, and --lenient has entries of its own. */
static void
test_cache (void **state)
{
  (void) state;
  g_autofree char *dir = g_dir_make_tmp ("slabsim-cache-XXXXXX", NULL);
  g_autofree char *tmp = g_dir_make_tmp ("slabsim-trace-XXXXXX", NULL);
  g_setenv ("SLABSIM_TRACE_CACHE_DIR", dir, TRUE);
  const char *udp = small, *hb = other;
  g_autofree char *trace = g_build_filename (tmp, "t.trace", NULL);
  assert_true (copy_file (udp, trace));
  const char *plain[] = { "-a", "slub@2.6.34", "--format", "json", NULL };
  const char *cached[] = { "-a", "slub@2.6.34", "--format", "json", "--trace-cache", NULL };

  g_autofree char *want = run_ok (plain, trace);
  assert_int_equal (count_entries (dir), 0);          /* off unless asked for */
  g_autofree char *first = run_ok (cached, trace);
  assert_string_equal (first, want);
  assert_int_equal (count_entries (dir), 1);
  g_autofree char *second = run_ok (cached, trace);
  assert_string_equal (second, want);                 /* served from the entry */

  /* Plant another trace's decoding under this trace's key: a run that
   * reads the entry reports that other trace's events. */
  g_autofree char *entry = only_entry (dir);
  g_autofree char *hb_nat = g_build_filename (tmp, "hb.slabtr", NULL);
  {
    const char *conv[] = { "trace", "convert", hb, "-o", hb_nat, NULL };
    g_autofree char *o = NULL, *e = NULL;
    assert_int_equal (tu_run (&o, &e, conv), 0);
  }
  g_autofree char *saved = g_build_filename (tmp, "saved.slabtr", NULL);
  assert_true (copy_file (entry, saved));
  assert_true (copy_file (hb_nat, entry));
  g_autofree char *planted = run_ok (cached, trace);
  assert_true (tu_json_uint (planted, "\"replay\": {", "events")
               != tu_json_uint (want, "\"replay\": {", "events"));
  assert_true (copy_file (saved, entry));

  /* The trace changes under the same name, size and modification time:
   * not served from the old entry, but decoded and cached afresh. */
  g_autofree char *pt = g_build_filename (tmp, "p.trace", NULL);
  GString *text = g_string_new (NULL);
  for (int i = 0; i < 200; i++)
    g_string_append_printf (text, "  bash-1  [000] .....   1.%06d: kmalloc: call_site=a+0x1/0x2 "
                            "ptr=ffff8881%08x bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL\n",
                            i, i * 64);
  assert_true (g_file_set_contents (pt, text->str, (gssize) text->len, NULL));
  g_autofree char *p_want = run_ok (plain, pt);
  g_autofree char *p_got = run_ok (cached, pt);
  assert_string_equal (p_got, p_want);
  assert_int_equal (count_entries (dir), 2);
  struct stat st;
  assert_int_equal (g_stat (pt, &st), 0);
  char *at = strstr (text->str, "bytes_req=64 bytes_alloc=64");
  memcpy (at, "bytes_req=96 bytes_alloc=96", 27);   /* same length */
  assert_true (g_file_set_contents (pt, text->str, (gssize) text->len, NULL));
  g_string_free (text, TRUE);
  struct utimbuf ut = { st.st_atime, st.st_mtime };
  assert_int_equal (utime (pt, &ut), 0);
  g_autofree char *p_want2 = run_ok (plain, pt);
  assert_string_not_equal (p_want2, p_want);
  g_autofree char *p_got2 = run_ok (cached, pt);
  assert_string_equal (p_got2, p_want2);
  assert_int_equal (count_entries (dir), 3);
  /* and a trace that does not read to its end is never cached */
  assert_true (g_file_set_contents (pt, "  bash-1  [000] .....   1.000000: kmalloc: ptr=zz\n", -1,
                                    NULL));
  int rc;
  g_autofree char *err = NULL;
  g_autofree char *bad = run (&rc, &err, cached, pt);
  assert_int_equal (rc, 1);
  tu_assert_contains (err, "p.trace:1:");
  assert_int_equal (count_entries (dir), 3);

  /* --lenient decodes differently (malformed lines skipped): its entry
   * is its own, and a strict run still fails on the bad line. */
  const char *bad_line = "  bash-1  [000] .....   2.000000: kmalloc: call_site=a ptr=zz\n";
  g_autofree char *lt = g_build_filename (tmp, "l.trace", NULL);
  g_autofree char *ltext = g_strconcat ("  bash-1  [000] .....   1.000000: kmalloc: call_site=a "
                                        "ptr=ffff888100000000 bytes_req=64 bytes_alloc=64 "
                                        "gfp_flags=GFP_KERNEL\n", bad_line, NULL);
  assert_true (g_file_set_contents (lt, ltext, -1, NULL));
  const char *lenient[] = { "-a", "slub@2.6.34", "--lenient", "--trace-cache", NULL };
  g_autofree char *lo = run_ok (lenient, lt);
  assert_int_equal (count_entries (dir), 4);
  const char *strict[] = { "-a", "slub@2.6.34", "--trace-cache", NULL };
  g_autofree char *serr = NULL;
  g_autofree char *so = run (&rc, &serr, strict, lt);
  assert_int_equal (rc, 1);
  tu_assert_contains (serr, "l.trace:2:");

  /* The bound: with 1 MiB allowed, an older entry over it goes. */
  g_autofree char *old = g_build_filename (dir, "0000-old.slabtr", NULL);
  g_autofree char *big = g_malloc0 (2 << 20);
  assert_true (g_file_set_contents (old, big, 2 << 20, NULL));
  struct utimbuf past = { 1000, 1000 };
  utime (old, &past);
  g_setenv ("SLABSIM_TRACE_CACHE_MAX_MB", "1", TRUE);
  g_autofree char *t2 = g_build_filename (tmp, "t2.trace", NULL);
  assert_true (copy_file (hb, t2));     /* not cached yet: written, then trimmed */
  g_autofree char *o2 = run_ok (cached, t2);
  assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
  g_unsetenv ("SLABSIM_TRACE_CACHE_MAX_MB");
  g_unsetenv ("SLABSIM_TRACE_CACHE_DIR");

  g_autofree char *rm = g_strdup_printf ("rm -rf '%s' '%s'", dir, tmp);
  assert_int_equal (system (rm), 0);
}

/* The "result" object of each line of a sweep's results.jsonl, in order. */
static char *
sweep_results (const char *yaml, const char *jobs, const char *dir, gboolean cache)
{
  const char *args[] = { "sweep", yaml, "--jobs", jobs, "-o", dir,
                         cache ? "--trace-cache" : NULL, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, args);
  if (rc != 0)
    {
      print_error ("sweep %s: exit %d\n%s\n", yaml, rc, err);
      fail ();
    }
  g_autofree char *path = g_build_filename (dir, "results.jsonl", NULL);
  g_autofree char *text = NULL;
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  GString *r = g_string_new (NULL);
  for (char *l = text; (l = strstr (l, "\"result\":")); l++)
    {
      char *nl = strchr (l, '\n');
      g_string_append_len (r, l, nl ? nl - l : (gssize) strlen (l));
      g_string_append_c (r, '\n');
    }
  return g_string_free (r, FALSE);
}

static char *
sweep_yaml (const char *tmp, const char *name, const char *trace, const char *orders)
{
  g_autofree char *y = g_strdup_printf ("name: %s\ntrace: %s\nmachine: nehalem-ep-2s\n"
                                        "allocator: slub@2.6.34\naxes:\n  - grid:\n"
                                        "      slub_max_order: %s\n", name, trace, orders);
  char *path = g_build_filename (tmp, name, NULL);
  assert_true (g_file_set_contents (path, y, -1, NULL));
  return path;
}

/* A sweep decodes a trace its points share once (a private native copy,
 * removed at the end, or the cache's entry with --trace-cache), and each
 * point's result is the one it has alone, read from the text. */
static void
test_sweep_decodes_once (void **state)
{
  (void) state;
  g_autofree char *tmp = g_dir_make_tmp ("slabsim-sweep-test-XXXXXX", NULL);
  g_autofree char *child_tmp = g_build_filename (tmp, "tmp", NULL);
  g_autofree char *cache = g_build_filename (tmp, "cache", NULL);
  assert_int_equal (g_mkdir (child_tmp, 0700), 0);
  const char *trace = small;
  g_autofree char *both = sweep_yaml (tmp, "both.yaml", trace, "[0, 3]");
  g_autofree char *y0 = sweep_yaml (tmp, "o0.yaml", trace, "[0]");
  g_autofree char *y3 = sweep_yaml (tmp, "o3.yaml", trace, "[3]");
  g_autofree char *d0 = g_build_filename (tmp, "d0", NULL);
  g_autofree char *d3 = g_build_filename (tmp, "d3", NULL);
  g_autofree char *db = g_build_filename (tmp, "db", NULL);
  g_autofree char *dc = g_build_filename (tmp, "dc", NULL);
  g_autofree char *r0 = sweep_results (y0, "1", d0, FALSE);
  g_autofree char *r3 = sweep_results (y3, "1", d3, FALSE);
  g_autofree char *alone = g_strconcat (r0, r3, NULL);
  g_setenv ("TMPDIR", child_tmp, TRUE);
  g_setenv ("SLABSIM_TRACE_CACHE_DIR", cache, TRUE);
  g_autofree char *rb = sweep_results (both, "2", db, FALSE);
  assert_string_equal (rb, alone);
  assert_int_equal (count_entries (child_tmp), 0);
  {
    g_autoptr (GDir) d = g_dir_open (child_tmp, 0, NULL);
    assert_null (g_dir_read_name (d));        /* the private copy is gone */
  }
  assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
  g_autofree char *rc = sweep_results (both, "2", dc, TRUE);
  assert_string_equal (rc, alone);
  assert_int_equal (count_entries (cache), 1);
  g_unsetenv ("TMPDIR");
  g_unsetenv ("SLABSIM_TRACE_CACHE_DIR");
  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", tmp);
  assert_int_equal (system (rm), 0);
}

/* The accounting shared by the lanes (traces/account.h: the feeding thread
 * gives each event a slot, each lane keeps its words by slot) against a
 * lane's own accounting, event by event on a random stream with every
 * case: an allocation of a live pointer (implicit free), a failed one, a
 * free of a live object on its CPU or another, of NULL, of an unknown or
 * already freed pointer; and a look-up of a pointer between events, as an
 * untraced free's.  The lane's word found through the slot is the word its
 * own accounting holds, every time, and the counts agree. */
static void
test_account_slots (void **state)
{
  (void) state;
  g_autoptr (SimTraceAccount) own = sim_trace_account_new ();
  g_autoptr (SimTraceAccount) shared = sim_trace_account_new ();
  g_autoptr (GArray) words = g_array_new (FALSE, TRUE, sizeof (guint64));
  GRand *r = g_rand_new_with_seed (12);
  guint64 word = 100, peak = 0;
  guint implicit = 0, live_frees = 0, unknown = 0, nulls = 0, failed = 0, found = 0;
  const SimTraceKind allocs[] = { SIM_TRACE_KMALLOC, SIM_TRACE_CACHE_ALLOC };
  const SimTraceKind frees[] = { SIM_TRACE_KFREE, SIM_TRACE_CACHE_FREE };
  for (guint i = 0; i < 200000; i++)
    {
      /* a pool of 4096 pointers: the live set grows to ~2 k and pointers
       * come back while still live */
      guint64 ptr = 0xffff888100000000ull + 64 * (guint64) g_rand_int_range (r, 0, 4096);
      gboolean alloc = g_rand_int_range (r, 0, 100) < 52;
      if (g_rand_int_range (r, 0, 100) < 2)
        ptr = 0;
      SimTraceEvent ev = { .kind = alloc ? allocs[i % 2] : frees[i % 2], .ptr = ptr,
                           .cpu = g_rand_int_range (r, 0, 4), .cache_id = i % 2 ? i % 7 : 0,
                           .bytes_req = 8 << (i % 5), .bytes_alloc = 8 << (i % 5) };
      SimAccountResult res;
      sim_trace_account_event (own, &ev, &res);
      guint32 slot = sim_trace_account_slot (shared, &ev);
      if (alloc && ptr == 0)
        {
          failed++;
          assert_null (res.live);
          assert_int_equal (slot, SIM_ACCOUNT_NO_SLOT);
        }
      else if (alloc)
        {
          guint32 s = slot & ~SIM_ACCOUNT_SLOT_IMPLICIT;
          assert_true (s < sim_trace_account_n_slots (shared));
          if (s >= words->len)
            g_array_set_size (words, s + 1);
          assert_int_equal ((slot & SIM_ACCOUNT_SLOT_IMPLICIT) != 0, res.implicit);
          if (res.implicit)
            {
              implicit++;
              assert_int_equal (g_array_index (words, guint64, s), res.implicit_old.user);
            }
          /* what a lane does with a new object: a word of its own */
          g_array_index (words, guint64, s) = res.live->user = word++;
        }
      else if (res.free_class == SIM_FREE_SAME_CPU || res.free_class == SIM_FREE_CROSS_CPU)
        {
          live_frees++;
          assert_int_not_equal (slot, SIM_ACCOUNT_NO_SLOT);
          assert_int_equal (g_array_index (words, guint64, slot), res.freed.user);
        }
      else
        {
          nulls += res.free_class == SIM_FREE_NULL;
          unknown += res.free_class == SIM_FREE_UNKNOWN;
          assert_int_equal (slot, SIM_ACCOUNT_NO_SLOT);
        }
      if (i % 7 == 0)
        {
          /* an untraced free's look-up, and the lane marking the object */
          guint64 p = 0xffff888100000000ull + 64 * (guint64) g_rand_int_range (r, 0, 4096);
          SimLiveObject *o = sim_trace_account_lookup (own, p);
          guint32 s = sim_trace_account_slot_of (shared, p);
          assert_int_equal (o == NULL, s == SIM_ACCOUNT_NO_SLOT);
          if (o)
            {
              found++;
              assert_int_equal (g_array_index (words, guint64, s), o->user);
              g_array_index (words, guint64, s) = o->user = word++;
            }
        }
      peak = MAX (peak, sim_trace_account_counts (own)->live_at_end);
    }
  g_rand_free (r);
  assert_memory_equal (sim_trace_account_counts (own), sim_trace_account_counts (shared),
                       sizeof (SimAccountCounts));
  guint n_own, n_shared;
  const SimAccountCache *c_own = sim_trace_account_caches (own, &n_own);
  const SimAccountCache *c_shared = sim_trace_account_caches (shared, &n_shared);
  assert_int_equal (n_own, n_shared);
  assert_memory_equal (c_own, c_shared, n_own * sizeof (SimAccountCache));
  /* Freed slots are taken again: as many as were ever live at once. */
  assert_int_equal (sim_trace_account_n_slots (shared), peak);
  assert_true (implicit > 1000 && live_frees > 10000 && unknown > 1000 && nulls > 500
               && failed > 500 && found > 1000);
}

/* A trace with every kind of event the accounting tells apart, over
 * several chunks: allocations of live pointers (implicit frees), failed
 * ones, the recording kernel's own (internal), kmallocs too large for
 * some kernels (refused), frees of NULL, of unknown and of already freed
 * pointers, and maple_node pointers that come back (untraced frees, made
 * as kfree_rcu a grace period before). */
static char *
accounting_trace (void)
{
  GRand *r = g_rand_new_with_seed (7);
  GString *t = g_string_new (NULL);
  guint64 live[4096];
  const char *name[4096];
  guint n_live = 0;
  const char *caches[] = { "filp", "names_cache", "maple_node", "skbuff_head_cache" };
  const guint sizes[] = { 256, 4096, 256, 232 };
  for (guint i = 0; i < 40000; i++)
    {
      guint cpu = g_rand_int_range (r, 0, 4);
      GString *l = g_string_new (NULL);
      g_string_printf (l, "  hackbench-%u  [%03u] .....   1.%06u: ", 4000 + cpu, cpu, 20 * i);
      guint k = g_rand_int_range (r, 0, 100);
      if (i % 250 == 0)
        {
          /* three maple_nodes whose pointers come back at once: each
           * untraced kfree_rcu is placed just after its own allocation,
           * between the others' (the frees' slots are found exactly
           * there) */
          for (guint b = 0; b < 6; b++)
            g_string_append_printf (l, "%.*skmem_cache_alloc: call_site=mas_alloc_nodes+0x1/0x2 "
                                    "ptr=%016" G_GINT64_MODIFIER "x name=maple_node bytes_req=256 "
                                    "bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1 "
                                    "accounted=false\n", b ? (int) (strchr (l->str, ':') - l->str + 2) : 0,
                                    l->str, (guint64) (0xffff888300000000ull + 64 * (i + b % 3)));
          g_string_append (t, l->str);
          g_string_printf (l, "  hackbench-%u  [%03u] .....   1.%06u: ", 4000 + cpu, cpu, 20 * i);
        }
      if (k < 46 || n_live == 0)
        {
          guint64 p;
          gboolean again = n_live && g_rand_int_range (r, 0, 100) < 5;
          guint j = again ? (guint) g_rand_int_range (r, 0, n_live) : n_live;
          p = again ? live[j] : 0xffff888100000000ull + 64 * (guint64) g_rand_int_range (r, 0, 1 << 16);
          if (g_rand_int_range (r, 0, 100) < 1)
            p = 0;
          guint c = g_rand_int_range (r, 0, 8);
          const char *nm = NULL;
          if (c < 4)
            {
              nm = caches[c];
              g_string_append_printf (l, "kmem_cache_alloc: call_site=a+0x1/0x2 ptr=%016" G_GINT64_MODIFIER
                                      "x name=%s bytes_req=%u bytes_alloc=%u gfp_flags=GFP_KERNEL "
                                      "node=-1 accounted=false\n", p, nm, sizes[c], sizes[c]);
            }
          else
            {
              const char *site = c == 4 ? "alloc_slab_obj_exts" : "b";
              guint sz = c == 5 ? 3 << 20 : 8u << g_rand_int_range (r, 0, 10);
              g_string_append_printf (l, "kmalloc: call_site=%s+0x1/0x2 ptr=%016" G_GINT64_MODIFIER
                                      "x bytes_req=%u bytes_alloc=%u gfp_flags=GFP_KERNEL "
                                      "node=-1 accounted=false\n", site, p, sz,
                                      c == 5 ? 4 << 20 : sz);
            }
          if (p && !again && n_live < G_N_ELEMENTS (live))
            j = n_live++;
          if (p && j < n_live)
            live[j] = p, name[j] = nm;
        }
      else if (k < 50)
        g_string_append (l, "kfree: call_site=c+0x1/0x2 ptr=0000000000000000\n");
      else if (k < 54)
        g_string_append_printf (l, "kfree: call_site=c+0x1/0x2 ptr=%016" G_GINT64_MODIFIER "x\n",
                                (guint64) (0xffff888200000000ull
                                           + 64 * (guint64) g_rand_int_range (r, 0, 1 << 16)));
      else
        {
          guint j = g_rand_int_range (r, 0, n_live);
          guint64 p = live[j];
          const char *nm = name[j];
          live[j] = live[--n_live];
          name[j] = name[n_live];
          if (nm && g_rand_int_range (r, 0, 100) < 70)
            g_string_append_printf (l, "kmem_cache_free: call_site=c+0x1/0x2 ptr=%016"
                                    G_GINT64_MODIFIER "x name=%s\n", p, nm);
          else
            g_string_append_printf (l, "kfree: call_site=%s+0x1/0x2 ptr=%016" G_GINT64_MODIFIER
                                    "x\n", k < 57 ? "__free_slab" : "c", p);
          if (g_rand_int_range (r, 0, 100) < 2)   /* and a double free */
            g_string_append_printf (l, "%.*skfree: call_site=c+0x1/0x2 ptr=%016" G_GINT64_MODIFIER
                                    "x\n", (int) (strchr (l->str, ':') - l->str + 2), l->str, p);
        }
      g_string_append (t, l->str);
      g_string_free (l, TRUE);
    }
  g_rand_free (r);
  char *path = tu_write_temp (".trace", t->str, (gssize) t->len);
  g_string_free (t, TRUE);
  return path;
}

/* With two or more allocators the lanes share one accounting (done once
 * on the feeding thread, sim/run/replay.c); with one, the lane keeps its
 * own.  Every allocator's report in a shared run is its report alone, on
 * one thread and on two (the pipelined pre-pass), for a trace with every
 * case the accounting tells apart, and the cases do occur. */
static void
test_accounting_shared (void **state)
{
  (void) state;
  g_autofree char *trace = accounting_trace ();
  const char *specs[] = { "slub@6.18", "slab", "slqb", "slub@2.6.34" };
  const char *jobs[] = { "1", "2" };
  for (guint j = 0; j < G_N_ELEMENTS (jobs); j++)
    for (guint n = 2; n <= 4; n += 2)
      {
        const char *args[16];
        guint k = 0;
        for (guint i = 0; i < n; i++)
          {
            args[k++] = "-a";
            args[k++] = specs[i];
          }
        args[k++] = "--jobs";
        args[k++] = jobs[j];
        args[k] = NULL;
        g_autofree char *all = run_ok (args, trace);
        for (guint i = 0; i < n; i++)
          {
            const char *one[] = { "-a", specs[i], "--jobs", jobs[j], NULL };
            g_autofree char *alone = run_ok (one, trace);
            const char *sec = strstr (alone, "\n== ");
            assert_non_null (sec);
            tu_assert_contains (all, sec + 1);
          }
      }
  const char *json[] = { "-a", "slqb", "-a", "slub@6.18", "--format", "json", NULL };
  g_autofree char *out = run_ok (json, trace);
  assert_true (tu_json_uint (out, "\"replay\": {", "events") > 2 * 16384);
  const char *cases[] = { "implicit_frees", "untraced_kfree_rcu", "skipped_failed_allocs",
                          "skipped_null_frees", "skipped_unknown_frees",
                          "skipped_internal_allocs", "skipped_internal_frees",
                          "refused_allocs", "skipped_refused_frees" };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (tu_json_uint (out, "\"replay\": {", cases[i]) == 0)
      {
        print_error ("no %s in the first replay\n", cases[i]);
        fail ();
      }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_jobs_identical),
    cmocka_unit_test (test_turns_identical),
    cmocka_unit_test (test_same_as_alone),
    cmocka_unit_test (test_account_slots),
    cmocka_unit_test (test_accounting_shared),
    cmocka_unit_test (test_error_identical),
    cmocka_unit_test (test_cache),
    cmocka_unit_test (test_sweep_decodes_once),
  };
  return cmocka_run_group_tests_name ("run-parallel", tests, setup, teardown);
}
