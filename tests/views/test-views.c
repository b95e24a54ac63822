/* test-views.c - "run --view": slabinfo (default, -A, -r, -T, -a),
 * slabtop and /proc/slabinfo of SLAB, SLUB 2.6.34 and SLQB on a real trace
 * equal their goldens (tests/golden/views/, text and JSON; regenerate with
 * scripts/regen-goldens), and the views agree with the run's JSON. */
#include "tests/testutil.h"

#include <glib/gstdio.h>

#include <string.h>

static const char *const views[] = {
  "slabinfo", "slabinfo-A", "slabinfo-T", "slabinfo-a", "slabtop", "proc-slabinfo",
  "slabinfo-r=skbuff_head_cache",
};

static char *
run_view (const char *view, gboolean json)
{
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  char *out = NULL;
  g_autofree char *err = NULL;
  int rc = tu_run (&out, &err, (const char *[]) { "run", "-a", "slab", "-a", "slub@2.6.34", "-a",
                                                  "slqb", "--view", view, "--format",
                                                  json ? "json" : "text", trace, NULL });
  if (rc != 0)
    {
      print_error ("--view %s: exit %d: %s\n", view, rc, err);
      fail ();
    }
  return out;
}

static void
test_goldens (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    for (int json = 0; json < 2; json++)
      {
        g_autofree char *out = run_view (views[i], json);
        g_autofree char *name = g_strdup (views[i]);
        g_strdelimit (name, "=", '-');
        g_autofree char *rel = g_strdup_printf ("tests/golden/views/%s.%s", name, json ? "json" : "txt");
        assert_true (tu_golden_matches (rel, out));
        assert_null (strstr (out, "(null)"));
      }
}

/* The columns the tools print, and numbers that hold whatever the model:
 * /proc/slabinfo's header; SLAB's tunables are not SLUB's zeros; slabinfo
 * -a lists the names :t-0000256 serves; slabinfo -r names every counter. */
static void
test_formats (void **state)
{
  (void) state;
  g_autofree char *proc = run_view ("proc-slabinfo", FALSE);
  tu_assert_contains (proc, "slabinfo - version: 2.1\n# name            <active_objs> <num_objs> "
                            "<objsize> <objperslab> <pagesperslab> : tunables <limit> "
                            "<batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> "
                            "<sharedavail>\n");
  /* SLAB (first) has tunables; SLUB's are 0 0 0. */
  const char *slab_part = strstr (proc, "== slab@");
  const char *slub_part = strstr (proc, "== slub@");
  assert_non_null (slab_part);
  assert_non_null (slub_part);
  g_autofree char *slab_txt = g_strndup (slab_part, slub_part - slab_part);
  tu_assert_contains (slab_txt, "size-512 ");
  assert_null (strstr (slab_txt, "size-512                0      0    512    8    1 : tunables    0    0    0"));
  tu_assert_contains (slub_part, ": tunables    0    0    0 : slabdata");
  /* /proc/slabinfo names a merged SLUB cache by its first cache. */
  assert_null (strstr (slub_part, ":t-0000256 "));

  g_autofree char *def = run_view ("slabinfo", FALSE);
  tu_assert_contains (def, "Name                   Objects Objsize           Space "
                           "Slabs/Part/Cpu  O/S O %Fr %Ef Flg\n");
  g_autofree char *act = run_view ("slabinfo-A", FALSE);
  tu_assert_contains (act, "Name                   Objects      Alloc       Free   %Fast Fallb O CmpX   UL\n");
  g_autofree char *al = run_view ("slabinfo-a", FALSE);
  tu_assert_contains (al, ":t-0000256   <- kmalloc-256 maple_node skbuff_head_cache");
  g_autofree char *top = run_view ("slabtop", FALSE);
  tu_assert_contains (top, " Active / Total Objects (% used)    : ");
  tu_assert_contains (top, "  OBJS ACTIVE  USE OBJ SIZE  SLABS OBJ/SLAB CACHE SIZE NAME\n");
  g_autofree char *rep = run_view ("slabinfo-r=skbuff_head_cache", FALSE);
  tu_assert_contains (rep, "Slabcache: :t-0000256 ");
  tu_assert_contains (rep, "Counters (sysfs names)");
  tu_assert_contains (rep, "alloc_fastpath ");
  tu_assert_contains (rep, "deactivate_remote_frees ");
  g_autofree char *tot = run_view ("slabinfo-T", FALSE);
  tu_assert_contains (tot, "Slabcache Totals\n----------------\n");
}

/* The slabinfo view's Objects and slabs are the run JSON's. */
static void
test_agrees_with_run_json (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *js = NULL, *vjs = NULL;
  assert_int_equal (tu_run (&js, NULL, (const char *[]) { "run", "-a", "slub@2.6.34", "--format",
                                                          "json", trace, NULL }), 0);
  assert_int_equal (tu_run (&vjs, NULL, (const char *[]) { "run", "-a", "slub@2.6.34", "--view",
                                                           "slabinfo", "--format", "json", trace,
                                                           NULL }), 0);
  const char *a = strstr (js, "\"name\": \":t-0000256\"");
  const char *b = strstr (vjs, "\"name\": \":t-0000256\"");
  assert_non_null (a);
  assert_non_null (b);
  assert_int_equal (tu_json_uint (a, NULL, "objects"), tu_json_uint (b, NULL, "objects"));
  assert_int_equal (tu_json_uint (a, NULL, "slabs"), tu_json_uint (b, NULL, "slabs"));
  /* partial + cpu slabs never exceed the slabs. */
  assert_true (tu_json_uint (b, NULL, "partial") + tu_json_uint (b, NULL, "cpu_slabs")
               <= tu_json_uint (b, NULL, "slabs"));
}

static void
test_errors (void **state)
{
  (void) state;
  g_autofree char *trace = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *err = NULL, *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "--view", "slabinf", trace, NULL }), 2);
  tu_assert_contains (err, "unknown view \"slabinf\"");
  tu_assert_contains (err, "proc-slabinfo");
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "run", "--view", "slabinfo-r=nosuch",
                                                            trace, NULL }), 2);
  tu_assert_contains (err2, "no cache of that name");
}

/* slabinfo-r=CACHE is checked before the replay (sim/cli/cmd-run.c,
 * check_view_cache): a model's boot caches, or a cache the trace names
 * (made on first use), else an error with the nearest name, before any
 * output.  The post-replay error of views.c says less ("has no cache of
 * that name" alone): this one's "and the trace names none" shows which
 * check refused. */
static const char named[] =
  "# tracer: nop\n"
  "  t-1 [000] ..... 1.000001: kmem_cache_alloc: call_site=f+0x1/0x9 ptr=ffff888100002000 "
  "bytes_req=200 bytes_alloc=200 gfp_flags=GFP_KERNEL node=-1 accounted=false name=my_cache\n"
  "  t-1 [000] ..... 1.000002: kmem_cache_alloc: call_site=f+0x1/0x9 ptr=ffff888100003000 "
  "bytes_req=200 bytes_alloc=200 gfp_flags=GFP_KERNEL node=-1 accounted=false name=my_cache\n";
static const char unnamed[] =
  "# tracer: nop\n"
  "  t-1 [000] ..... 1.000001: kmem_cache_alloc: call_site=c0100000 ptr=ffff880100002000 "
  "bytes_req=192 bytes_alloc=192 gfp_flags=GFP_KERNEL\n";

static void
test_report_cache_checked_first (void **state)
{
  (void) state;
  g_autofree char *t1 = tu_write_temp (".trace", named, -1);
  g_autofree char *t2 = tu_write_temp (".trace", unnamed, -1);
  g_autofree char *out = NULL, *out2 = NULL, *out3 = NULL, *out4 = NULL, *out5 = NULL;
  g_autofree char *err = NULL, *err2 = NULL, *err3 = NULL, *err5 = NULL;
  /* Named by the trace only: made on first use, reported. */
  assert_int_equal (tu_run (&out, &err, (const char *[]) { "run", "-a", "slub@6.18", "--view",
                                                          "slabinfo-r=my_cache", t1, NULL }), 0);
  tu_assert_contains (out, "Slabcache: my_cache ");
  /* A typo: refused before anything is printed, with the trace's name. */
  assert_int_equal (tu_run (&out2, &err2, (const char *[]) { "run", "-a", "slub@6.18", "--view",
                                                            "slabinfo-r=my_cach", t1, NULL }), 2);
  assert_string_equal (out2, "");
  tu_assert_contains (err2, "slabsim: run: --view slabinfo-r=my_cach: slub@6.18 has no cache of "
                            "that name and the trace names none (did you mean \"my_cache\"?)\n");
  /* A boot cache's near miss: the model's names are candidates too. */
  assert_int_equal (tu_run (&out3, &err3, (const char *[]) { "run", "-a", "slub@6.18", "--view",
                                                            "slabinfo-r=kmalloc-51", t1, NULL }), 2);
  tu_assert_contains (err3, "(did you mean \"kmalloc-512\"?)");
  /* Each allocator is checked: SLAB's size-512 is not SLUB's. */
  g_autofree char *err4 = NULL;
  assert_int_equal (tu_run (&out4, &err4, (const char *[]) { "run", "-a", "slab", "-a", "slub@6.18",
                                                            "--view", "slabinfo-r=size-512", t1,
                                                            NULL }), 2);
  tu_assert_contains (err4, "slub@6.18 has no cache of that name");
  /* A cache event without name=: the replay's unnamed-SIZE, which
   * 2.6.34 merges into :t-0000192 (the report is the merged cache's). */
  assert_int_equal (tu_run (&out5, &err5, (const char *[]) { "run", "-a", "slub@2.6.34", "--view",
                                                            "slabinfo-r=unnamed-192", t2, NULL }), 0);
  tu_assert_contains (out5, "Slabcache: :t-0000192 ");
  tu_assert_contains (out5, "Aliases: kmalloc-192 unnamed-192\n");
  g_unlink (t1);
  g_unlink (t2);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_goldens),
    cmocka_unit_test (test_formats),
    cmocka_unit_test (test_agrees_with_run_json),
    cmocka_unit_test (test_errors),
    cmocka_unit_test (test_report_cache_checked_first),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
