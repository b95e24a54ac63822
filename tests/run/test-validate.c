/* test-validate.c - "slabsim validate", "run --emit-trace" and
 * "--warm unknown-frees" end to end.
 *
 *  - On the three shared 6.18 traces the recorded side equals the counts an
 *    independent reader made (../shared/reference/validation.md), and with
 *    slub@6.18 on the 2-CPU recording-vm every busy cache either agrees
 *    within max(3%, 2 slabs) or carries the reason it does not.
 *  - A replay emitted as a trace reads back as what the replay did
 *    (trace info), and validating it against the same model agrees exactly,
 *    cache by cache, field by field.
 *  - Warm start places the objects freed but never allocated, replays their
 *    frees, and needs fewer new slabs than a cold start. */
#include "tests/testutil.h"
#include "sim/run/validate.h"
#include "sim/report/validate-report.h"
#include "traces/stream.h"

#include <glib/gstdio.h>
#include <string.h>

static char *
validate_json (const char *trace_rel, const char *const *extra)
{
  g_autofree char *path = g_path_is_absolute (trace_rel) ? g_strdup (trace_rel)
                                                         : tu_source_path (trace_rel);
  GPtrArray *args = g_ptr_array_new ();
  g_ptr_array_add (args, (gpointer) "validate");
  g_ptr_array_add (args, (gpointer) "--format");
  g_ptr_array_add (args, (gpointer) "json");
  for (guint i = 0; extra && extra[i]; i++)
    g_ptr_array_add (args, (gpointer) extra[i]);
  g_ptr_array_add (args, path);
  g_ptr_array_add (args, NULL);
  char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, (const char *const *) args->pdata);
  g_ptr_array_unref (args);
  if (rc != 0)
    {
      print_error ("validate %s: exit %d\n%s\n", trace_rel, rc, err);
      fail ();
    }
  g_free (err);
  return out;
}

/* The object of cache @name in a validate report. */
static const char *
cache_obj (const char *js, const char *name)
{
  g_autofree char *anchor = g_strdup_printf ("\"name\": \"%s\",", name);
  const char *p = strstr (js, anchor);
  if (p == NULL)
    {
      print_error ("no cache %s in\n%s\n", name, js);
      fail ();
    }
  return p;
}

static guint64
side (const char *js, const char *name, const char *which, const char *key)
{
  g_autofree char *anchor = g_strdup_printf ("\"%s\": {", which);
  return tu_json_uint (cache_obj (js, name), anchor, key);
}

typedef struct {
  const char *trace, *cache;
  guint64 new_slabs, freed_slabs, allocs;
} Recorded;

/* ../shared/reference/validation.md (an independent reader); allocs by
 * grep of the trace (bytes_alloc=512 with __GFP_ACCOUNT: kmalloc-cg-512). */
static const Recorded recorded[] = {
  { "traces/samples/hackbench-T-g2-l50.trace.gz", "kmalloc-cg-512", 1097, 1089, 40081 },
  { "traces/samples/hackbench-T-g2-l50.trace.gz", "skbuff_head_cache", 1089, 1082, 40081 },
  { "traces/samples/hackbench-T-g1-l50.perf-script.gz", "kmalloc-cg-512", 601, 588, 20041 },
  { "traces/samples/udp-4k.trace.gz", "kmalloc-8k", 23, 16, 20000 },
};

static void
test_shared_traces (void **state)
{
  (void) state;
  const char *traces[] = { "traces/samples/hackbench-T-g2-l50.trace.gz",
                           "traces/samples/hackbench-T-g1-l50.perf-script.gz",
                           "traces/samples/udp-4k.trace.gz" };
  for (guint t = 0; t < G_N_ELEMENTS (traces); t++)
    {
      g_autofree char *js = validate_json (traces[t], NULL);
      /* 6.18 traces get the recording VM by default. */
      tu_assert_contains (js, "\"machine\": \"recording-vm\"");
      tu_assert_contains (js, "\"kernel\": \"6.18\"");
      for (guint i = 0; i < G_N_ELEMENTS (recorded); i++)
        {
          if (strcmp (recorded[i].trace, traces[t]) != 0)
            continue;
          const char *c = recorded[i].cache;
          assert_int_equal (side (js, c, "recorded", "new_slabs"), recorded[i].new_slabs);
          assert_int_equal (side (js, c, "recorded", "freed_slabs"), recorded[i].freed_slabs);
          assert_int_equal (side (js, c, "recorded", "allocs"), recorded[i].allocs);
        }
      /* Every busy cache agrees within max(3%, 2 slabs), from a cold and
       * from a warm start, or says why not. */
      guint busy = 0;
      for (const char *p = js; (p = strstr (p, "\"busy\": true")); p++)
        {
          busy++;
          const char *obj_end = strstr (p, "\"why\": ");
          assert_non_null (obj_end);
          gboolean agree = strncmp (strstr (p, "\"agree_cold\": "), "\"agree_cold\": true", 18) == 0
                           && strncmp (strstr (p, "\"agree_warm\": "), "\"agree_warm\": true", 18) == 0;
          if (!agree)
            assert_true (strncmp (obj_end, "\"why\": null", 11) != 0);
          /* The caches of the reference table agree. */
          const char *name = g_strrstr_len (js, p - js, "\"name\": \"");
          for (guint i = 0; i < G_N_ELEMENTS (recorded); i++)
            if (strcmp (recorded[i].trace, traces[t]) == 0
                && strncmp (name + 9, recorded[i].cache, strlen (recorded[i].cache)) == 0
                && name[9 + strlen (recorded[i].cache)] == '"')
              assert_true (agree);
        }
      assert_int_equal (tu_json_uint (js, NULL, "busy"), busy);
      /* The cache holding the recording kernel's obj_exts vectors says so. */
      if (t == 0)
        tu_assert_contains (cache_obj (js, "kmalloc-128"),
                            "2195 of its objects were the recording kernel's obj_exts vectors");
      assert_true (busy >= 1);
    }
}

/* The text report: the table, far-off caches with their reasons, the
 * notes and the summary line. */
static void
test_text (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "validate", path, NULL }), 0);
  tu_assert_contains (out, "against slub@6.18 on recording-vm (2 CPUs)");
  tu_assert_contains (out, "kmalloc-8k                20000 |     23 ");
  tu_assert_contains (out, "skbuff_head_cache (not busy): 19901 of its 20000 allocations reuse a "
                           "pointer still live");
  tu_assert_contains (out, "maple_node (not busy): most of its frees have no tracepoint in 6.18 "
                           "(kfree_rcu into the rcu_free sheaf, kmem_cache_free_bulk when a tree "
                           "is destroyed)");
  tu_assert_contains (out, "freelist randomisation");
  tu_assert_contains (out, "no mm_page_pcpu_drain events");
  tu_assert_contains (out, "1 busy caches (>= 20 new slabs), new and freed slabs within 3% or 2 "
                           "slabs: 1 cold, 1 warm");
  /* The other shared traces: their summary line states the agreement. */
  const struct { const char *trace, *summary; } sums[] = {
    { "traces/samples/hackbench-T-g2-l50.trace.gz",
      "3 busy caches (>= 20 new slabs), new and freed slabs within 3% or 2 slabs: 2 cold, 2 warm" },
    { "traces/samples/hackbench-T-g1-l50.perf-script.gz",
      "2 busy caches (>= 20 new slabs), new and freed slabs within 3% or 2 slabs: 2 cold, 2 warm" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sums); i++)
    {
      g_autofree char *p = tu_source_path (sums[i].trace);
      g_autofree char *o = NULL;
      assert_int_equal (tu_run (&o, NULL, (const char *[]) { "validate", p, NULL }), 0);
      tu_assert_contains (o, sums[i].summary);
      tu_assert_contains (o, "kmalloc-cg-512 ");
      tu_assert_contains (o, "What the trace cannot tell:");
    }
  /* Another era: said so. */
  g_autofree char *o3 = NULL;
  assert_int_equal (tu_run (&o3, NULL, (const char *[]) { "validate", "-a", "slub@2.6.34", path,
                                                          NULL }), 0);
  tu_assert_contains (o3, "the model is slub@2.6.34");
  /* Bad usage. */
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "validate", NULL }), 2);
  tu_assert_contains (err, "validate: expected exactly one TRACE");
}

/* The text between "KEY": and the end of that block. */
static char *
block (const char *from, const char *key)
{
  g_autofree char *k = g_strdup_printf ("\"%s\": ", key);
  const char *p = strstr (from, k);
  assert_non_null (p);
  p += strlen (k);
  const char *e = *p == '{' ? strchr (p, '}') : p + 4;
  assert_non_null (e);
  return g_strndup (p, (gsize) (e - p));
}

/* Emit, read back, validate the emitted trace against the same model:
 * exact agreement. */
static void
test_emit_round_trip (void **state)
{
  (void) state;
  const char *suffixes[] = { ".trace.gz", ".trace" };
  const char *traces[] = { "traces/samples/udp-4k.trace.gz",
                           "traces/samples/hackbench-T-g1-l50.perf-script.gz" };
  for (guint s = 0; s < G_N_ELEMENTS (suffixes); s++)
    {
      g_autofree char *in = tu_source_path (traces[s]);
      g_autofree char *emitted = tu_write_temp (suffixes[s], "", 0);
      g_autofree char *rj = NULL;
      /* Page events ignored: the emitted trace then holds only the model's
       * own pages, every one of them read back as what it was.  (With the
       * trace's other pages replayed, a model slab page whose objects are
       * never handed out, filling a sheaf, cannot be told from them on
       * reading back, as in a kernel trace: docs/validation.md.) */
      assert_int_equal (tu_run (&rj, NULL, (const char *[]) { "run", "-a", "slub@6.18", "-m",
                                                              "recording-vm", "--format", "json",
                                                              "--page-events", "ignore",
                                                              "--emit-trace", emitted, in, NULL }),
                        0);
      const char *rb = "\"replay\": {";
      guint64 allocs = tu_json_uint (rj, rb, "allocs");
      guint64 frees = tu_json_uint (rj, rb, "frees");
      guint64 implicit = tu_json_uint (rj, rb, "implicit_frees");
      /* the model's own (sheaves), emitted as the kernel's would be */
      guint64 own_allocs = tu_json_uint (rj, rb, "model_internal_allocs");
      guint64 own_frees = tu_json_uint (rj, rb, "model_internal_frees");
      guint64 page_allocs = tu_json_uint (rj, "\"page_allocator\": {", "alloc");
      guint64 page_frees = tu_json_uint (rj, "\"page_allocator\": {", "free");

      /* trace info counts what the replay did: each replayed allocation and
       * free (implicit ones as kfree lines), and the model's pages. */
      g_autofree char *ij = NULL;
      assert_int_equal (tu_run (&ij, NULL, (const char *[]) { "trace", "info", "--format", "json",
                                                              emitted, NULL }), 0);
      assert_int_equal (tu_json_uint (ij, NULL, "allocs"), allocs + own_allocs);
      /* frees the trace showed only by their consequences are kfree lines
       * too (sim/run/untraced.h) */
      guint64 untraced = tu_json_uint (rj, rb, "untraced_page_frees")
                         + tu_json_uint (rj, rb, "untraced_kfree_rcu");
      assert_int_equal (tu_json_uint (ij, NULL, "frees"), frees + implicit + own_frees + untraced);
      assert_int_equal (tu_json_uint (ij, NULL, "unknown_frees"), 0);
      assert_int_equal (tu_json_uint (ij, NULL, "null_frees"), 0);
      assert_int_equal (tu_json_uint (ij, NULL, "implicit_frees"), 0);
      assert_int_equal (tu_json_uint (ij, NULL, "mm_page_alloc"), page_allocs);
      assert_int_equal (tu_json_uint (ij, NULL, "mm_page_free"), page_frees);

      /* The model's decisions read from its own trace are its decisions. */
      g_autofree char *vj = validate_json (emitted, (const char *[]) { "--page-events",
                                                                        "ignore", NULL });
      g_autofree char *rt = block (vj, "recorded_totals");
      g_autofree char *ct = block (vj, "cold_totals");
      assert_string_equal (rt, ct);
      guint caches = 0;
      for (const char *p = vj; (p = strstr (p, "\"name\": \"")); p++, caches++)
        {
          g_autofree char *r = block (p, "recorded");
          g_autofree char *c = block (p, "cold");
          if (strcmp (r, c) != 0)
            {
              print_error ("%.60s: recorded %s\ncold %s\n", p, r, c);
              fail ();
            }
          g_autofree char *ac = block (p, "agree_cold");
          (void) ac;
        }
      assert_true (caches > 10);
      g_unlink (emitted);
    }
}

static void
test_emit_errors (void **state)
{
  (void) state;
  g_autofree char *in = tu_source_path ("traces/samples/udp-4k.trace.gz");
  g_autofree char *err = NULL;
  /* Never replaces the input. */
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "run", "--emit-trace", in, in, NULL }),
                    2);
  tu_assert_contains (err, "is the input trace; refusing to replace it");
  g_autofree char *err2 = NULL;
  assert_int_equal (tu_run (NULL, &err2, (const char *[]) { "run", "-a", "slub", "-a", "slab",
                                                            "--emit-trace", "/tmp/x.trace", in,
                                                            NULL }), 2);
  tu_assert_contains (err2, "give one --allocator");
  g_autofree char *err3 = NULL;
  assert_int_equal (tu_run (NULL, &err3, (const char *[]) { "run", "--emit-trace",
                                                            "/nonexistent-dir/x.trace", in,
                                                            NULL }), 1);
  tu_assert_contains (err3, "--emit-trace: ");
  g_autofree char *err4 = NULL;
  assert_int_equal (tu_run (NULL, &err4, (const char *[]) { "run", "--warm", "all", in, NULL }), 2);
  tu_assert_contains (err4, "--warm takes none or unknown-frees");
}

/* 64 objects freed but never allocated (63 kmem_cache_free, one kfree placed
 * by its page), then 64 allocations; and a kfree with no evidence. */
static char *
warm_trace (void)
{
  GString *t = g_string_new (NULL);
  guint64 ts = 1000000;
#define LINE(fmt, ...) g_string_append_printf (t, "  w-1 [000] ..... 1.%06" G_GUINT64_FORMAT \
                                               ": " fmt "\n", ts++, __VA_ARGS__)
  LINE ("kmem_cache_alloc: call_site=a+0x1/0x2 ptr=%016" G_GINT64_MODIFIER "x name=foo "
        "bytes_req=256 bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1 accounted=false",
        G_GUINT64_CONSTANT (0xffff888100000000));
  for (guint i = 0; i < 63; i++)
    LINE ("kmem_cache_free: call_site=b+0x1/0x2 ptr=%016" G_GINT64_MODIFIER "x name=foo",
          G_GUINT64_CONSTANT (0xffff888100010000) + i * 256);
  /* In the page of the trace's first foo object: placed in foo. */
  LINE ("kfree: call_site=b+0x1/0x2 ptr=%016" G_GINT64_MODIFIER "x",
        G_GUINT64_CONSTANT (0xffff888100000100));
  LINE ("kfree: call_site=b+0x1/0x2 ptr=%016" G_GINT64_MODIFIER "x",
        G_GUINT64_CONSTANT (0xffff888107000000));
  for (guint i = 0; i < 64; i++)
    LINE ("kmem_cache_alloc: call_site=a+0x1/0x2 ptr=%016" G_GINT64_MODIFIER "x name=foo "
          "bytes_req=256 bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1 accounted=false",
          G_GUINT64_CONSTANT (0xffff888100020000) + i * 256);
#undef LINE
  char *path = tu_write_temp (".trace", t->str, (gssize) t->len);
  g_string_free (t, TRUE);
  return path;
}

static void
test_warm (void **state)
{
  (void) state;
  g_autofree char *path = warm_trace ();
  g_autofree char *cold = NULL, *warm = NULL;
  assert_int_equal (tu_run (&cold, NULL, (const char *[]) { "run", "--check", "--format", "json",
                                                            "-m", "recording-vm", path, NULL }), 0);
  assert_int_equal (tu_run (&warm, NULL, (const char *[]) { "run", "--check", "--format", "json",
                                                            "-m", "recording-vm", "--warm",
                                                            "unknown-frees", path, NULL }), 0);
  const char *rb = "\"replay\": {";
  assert_int_equal (tu_json_uint (cold, rb, "skipped_unknown_frees"), 65);
  assert_int_equal (tu_json_uint (cold, rb, "frees"), 0);
  assert_int_equal (tu_json_uint (cold, rb, "warm_objects"), 0);
  assert_int_equal (tu_json_uint (warm, rb, "warm_objects"), 64);
  assert_int_equal (tu_json_uint (warm, rb, "warm_frees"), 64);
  assert_int_equal (tu_json_uint (warm, rb, "frees"), 64);
  assert_int_equal (tu_json_uint (warm, rb, "skipped_unknown_frees"), 1);
  assert_int_equal (tu_json_uint (warm, rb, "warm_unplaced"), 1);

  /* validate reports both ways: the cold model takes new slabs for all 65
   * allocations, the warm one reuses the 64 freed slots. */
  g_autofree char *vj = validate_json (path, NULL);
  guint64 cold_new = side (vj, "foo", "cold", "new_slabs");
  guint64 warm_new = side (vj, "foo", "warm", "new_slabs");
  assert_true (cold_new >= 2);
  assert_true (warm_new < cold_new);
  assert_int_equal (tu_json_uint (vj, NULL, "warm_objects"), 64);
  /* The recorded side knows no slab of foo was new: no page events. */
  assert_int_equal (side (vj, "foo", "recorded", "new_slabs"), 0);
  g_unlink (path);
}

/* The acceptance (issue 11): with slub@6.18 on the bundled 2-CPU
 * machine, every busy cache's new and freed slabs within max(3%, 2 slabs)
 * of the recorded kernel's, cold and warm, on all three shared traces;
 * a cache that is not says why.  The one exception today is listed with
 * its reason, not hidden: hackbench-T-g2-l50's kmalloc-128 holds the
 * recording kernel's obj_exts vectors, 13 of its 41 slabs predate the
 * recording (their vectors are freed from __free_slab, never allocated in
 * the trace, so warm start cannot place them) and a model starting empty
 * takes new slabs for them.  The sheaf caches (RCU-deferred frees, issue
 * 14) are not busy in these traces; where far off they must say why (the
 * grace period their frees wait for). */
static void
test_acceptance (void **state)
{
  (void) state;
  static const struct {
    const char *trace;
    guint busy;
    const char *far, *why;       /* the busy cache that may disagree, and its reason */
  } t[] = {
    { "traces/samples/hackbench-T-g2-l50.trace.gz", 3, "kmalloc-128",
      "slabs that existed before recording started" },
    { "traces/samples/hackbench-T-g1-l50.perf-script.gz", 2, NULL, NULL },
    { "traces/samples/udp-4k.trace.gz", 1, NULL, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    {
      g_autofree char *js = validate_json (t[i].trace, NULL);
      assert_int_equal (tu_json_uint (js, NULL, "busy"), t[i].busy);
      guint agree = 0;
      for (const char *p = js; (p = strstr (p, "\"busy\": true")); p++)
        {
          const char *name = g_strrstr_len (js, p - js, "\"name\": \"") + 9;
          g_autofree char *n = g_strndup (name, strcspn (name, "\""));
          gboolean cold = strncmp (strstr (p, "\"agree_cold\": "), "\"agree_cold\": true", 18) == 0;
          gboolean warm = strncmp (strstr (p, "\"agree_warm\": "), "\"agree_warm\": true", 18) == 0;
          if (cold && warm)
            {
              agree++;
              continue;
            }
          if (t[i].far == NULL || strcmp (n, t[i].far) != 0)
            {
              print_error ("%s: busy cache %s is outside max(3%%, 2 slabs)\n", t[i].trace, n);
              fail ();
            }
          const char *why = strstr (p, "\"why\": ");
          g_autofree char *w = g_strndup (why, strcspn (why, "\n"));
          tu_assert_contains (w, t[i].why);
        }
      assert_int_equal (agree, t[i].busy - (t[i].far ? 1 : 0));
      /* A sheaf cache far off names the RCU-deferred frees. */
      const char *sheaf[] = { "maple_node", "vm_area_struct" };
      for (guint k = 0; k < G_N_ELEMENTS (sheaf); k++)
        {
          g_autofree char *anchor = g_strdup_printf ("\"name\": \"%s\",", sheaf[k]);
          const char *c = strstr (js, anchor);
          if (c == NULL)
            continue;
          const char *why = strstr (c, "\"why\": ");
          if (strncmp (why, "\"why\": null", 11) != 0)
            {
              g_autofree char *w = g_strndup (why, strcspn (why, "\n"));
              tu_assert_contains (w, "grace period");
            }
        }
    }
}

/* validate decodes a text trace once (into a native file the recorded
 * side and both replays read), and reports what it reported when each of
 * them decoded the text itself. */
static void
test_decode_once (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path ("traces/samples/hackbench-T-g1-l2.report.gz");
  g_autoptr (SimMachine) m = sim_machine_load ("recording-vm", NULL, NULL);
  assert_non_null (m);
  SimReplayOptions opt = { .machine = m, .mode = SIM_REPLAY_ORDERED, .touch = SIM_TOUCH_LINE };
  guint t0, n0, t1, n1, t2, n2;
  GError *error = NULL;
  SimValidation v;
  sim_trace_stream_counts (&t0, &n0);
  if (!sim_validate_run (path, "slub", &opt, &v, &error))
    {
      print_error ("%s\n", error->message);
      fail ();
    }
  sim_trace_stream_counts (&t1, &n1);
  assert_int_equal (t1 - t0, 0);
  assert_true (n1 - n0 >= 3);
  g_autofree char *once = sim_validate_report_json (&v);
  sim_validation_clear (&v);
  /* the text itself as the file to read: three decodes, as before */
  opt.read_path = path;
  if (!sim_validate_run (path, "slub", &opt, &v, &error))
    {
      print_error ("%s\n", error->message);
      fail ();
    }
  sim_trace_stream_counts (&t2, &n2);
  assert_int_equal (t2 - t1, 3);
  g_autofree char *thrice = sim_validate_report_json (&v);
  sim_validation_clear (&v);
  assert_string_equal (once, thrice);

  /* a malformed line: the same error as when validate read the text
   * itself (the one decode must not stop quietly at it) */
  g_autofree char *dir = g_dir_make_tmp ("test-validate-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.trace", NULL);
  assert_true (g_file_set_contents (bad,
    "  bash-1  [000] .....   1.000001: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n"
    "  bash-1  [000] .....   1.000002: kfree: call_site=a+0x1/0x2 ptr=zfff888100000000\n", -1, NULL));
  opt.read_path = NULL;
  assert_false (sim_validate_run (bad, "slub", &opt, &v, &error));
  assert_non_null (error);
  g_autofree char *want = g_strdup_printf ("%s:2: expected a hexadecimal pointer or (null) after "
                                           "ptr=, got \"zfff888100000000\"", bad);
  assert_string_equal (error->message, want);
  g_clear_error (&error);
  sim_validation_clear (&v);
  g_unlink (bad);
  g_rmdir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_shared_traces),
    cmocka_unit_test (test_decode_once),
    cmocka_unit_test (test_text),
    cmocka_unit_test (test_emit_round_trip),
    cmocka_unit_test (test_emit_errors),
    cmocka_unit_test (test_warm),
    cmocka_unit_test (test_acceptance),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
