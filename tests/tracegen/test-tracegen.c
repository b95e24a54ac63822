/* test-tracegen.c - "slabsim trace gen": determinism, option errors, the
 * per-era line forms (checked by a small strict parser of our own), the
 * alloc/free balance and counts each documented model implies, gzip. */
#include "tests/testutil.h"
#include "traces/gen/gen-common.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

/* ---- running the generator ---- */

static char *
gen_path (const char *suffix)
{
  g_autofree char *p = tu_write_temp (suffix, "", 0);
  return g_steal_pointer (&p);
}

/* Generate with @args (NULL-terminated, after "trace gen") into a fresh
 * file; returns the file's text (decompressed for .gz). */
static char *
gen (const char *suffix, const char *const *args)
{
  g_autofree char *path = gen_path (suffix);
  GPtrArray *a = g_ptr_array_new ();
  g_ptr_array_add (a, (gpointer) "trace");
  g_ptr_array_add (a, (gpointer) "gen");
  for (const char *const *p = args; *p; p++)
    g_ptr_array_add (a, (gpointer) *p);
  g_ptr_array_add (a, (gpointer) "-o");
  g_ptr_array_add (a, path);
  g_ptr_array_add (a, NULL);
  g_autofree char *err = NULL;
  int st = tu_run (NULL, &err, (const char *const *) a->pdata);
  g_ptr_array_free (a, TRUE);
  if (st != 0)
    {
      print_error ("trace gen failed (%d): %s\n", st, err);
      fail ();
    }
  char *text = NULL;
  gsize len = 0;
  GError *e = NULL;
  if (g_str_has_suffix (suffix, ".gz"))
    {
      g_autoptr (GFile) f = g_file_new_for_path (path);
      g_autoptr (GFileInputStream) in = g_file_read (f, NULL, &e);
      assert_non_null (in);
      g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      g_autoptr (GInputStream) cin = g_converter_input_stream_new (G_INPUT_STREAM (in),
                                                                  G_CONVERTER (z));
      g_autoptr (GMemoryOutputStream) mem =
        G_MEMORY_OUTPUT_STREAM (g_memory_output_stream_new_resizable ());
      gssize n = g_output_stream_splice (G_OUTPUT_STREAM (mem), cin,
                                         G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &e);
      if (n < 0)
        {
          print_error ("not valid gzip: %s\n", e->message);
          fail ();
        }
      g_output_stream_write_all (G_OUTPUT_STREAM (mem), "", 1, NULL, NULL, NULL);
      len = g_memory_output_stream_get_data_size (mem);
      text = g_memory_output_stream_steal_data (mem);
      (void) len;
    }
  else
    assert_true (g_file_get_contents (path, &text, &len, &e));
  g_unlink (path);
  return text;
}

/* ---- a strict line parser ---- */

typedef enum { ERA_OLD, ERA_IRQ, ERA_MODERN } Prefix;

typedef struct {
  const char *comm_end;
  int   pid, cpu;
  char  flags[8];
  guint64 ts_us;
  char  event[32];
  GHashTable *f;     /* key -> value */
  GPtrArray *keys;   /* in order */
} Line;

static void
line_clear (Line *l)
{
  if (l->f)
    g_hash_table_destroy (l->f);
  if (l->keys)
    g_ptr_array_free (l->keys, TRUE);
  memset (l, 0, sizeof *l);
}

/* Parse one event line of @p's prefix form; fails the test on any
 * deviation. */
static void
parse_line (Prefix p, const char *s, Line *l)
{
  memset (l, 0, sizeof *l);
  /* comm is right-justified in 16 columns, then -pid left-justified in 5
   * (7 from 5.11), then " [ccc] ". */
  int pidw = p == ERA_MODERN ? 7 : 5;
  int bracket = 16 + 1 + pidw + 1;
  if ((int) strlen (s) < bracket + 6 || s[bracket] != '[' || s[bracket + 4] != ']'
      || s[bracket - 1] != ' ')
    {
      print_error ("bad prefix columns: \"%s\"\n", s);
      fail ();
    }
  const char *dash = NULL;
  for (const char *c = s + 16; c > s; c--)
    if (*c == '-')
      {
        dash = c;
        break;
      }
  assert_non_null (dash);
  l->pid = atoi (dash + 1);
  l->cpu = atoi (s + bracket + 1);
  const char *q = s + bracket + 5;
  assert_int_equal (*q, ' ');
  q++;
  int nflags = p == ERA_OLD ? 0 : p == ERA_IRQ ? 4 : 5;
  if (nflags)
    {
      memcpy (l->flags, q, nflags);
      for (int i = 0; i < nflags; i++)
        assert_true (strchr (".dNnshH1234567890Xb", q[i]) != NULL);
      q += nflags;
      assert_int_equal (*q, ' ');
      q++;
    }
  /* " %5lu.%06lu: " */
  char *end = NULL;
  while (*q == ' ')
    q++;
  guint64 sec = g_ascii_strtoull (q, &end, 10);
  assert_int_equal (*end, '.');
  const char *us = end + 1;
  guint64 usec = g_ascii_strtoull (us, &end, 10);
  assert_int_equal (end - us, 6);
  assert_true (strncmp (end, ": ", 2) == 0);
  l->ts_us = sec * 1000000 + usec;
  q = end + 2;
  const char *colon = strstr (q, ": ");
  assert_non_null (colon);
  g_strlcpy (l->event, q, MIN ((gsize) (colon - q) + 1, sizeof l->event));
  l->f = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  l->keys = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) toks = g_strsplit (colon + 2, " ", -1);
  for (char **t = toks; *t; t++)
    {
      char *eq = strchr (*t, '=');
      if (eq == NULL || eq == *t || eq[1] == '\0')
        {
          print_error ("bad field \"%s\" in \"%s\"\n", *t, s);
          fail ();
        }
      g_ptr_array_add (l->keys, g_strndup (*t, eq - *t));
      g_hash_table_insert (l->f, g_strndup (*t, eq - *t), g_strdup (eq + 1));
    }
}

static void
assert_keys (const Line *l, const char *expected, const char *s)
{
  GString *got = g_string_new (NULL);
  for (guint i = 0; i < l->keys->len; i++)
    g_string_append_printf (got, "%s%s", i ? " " : "", (char *) l->keys->pdata[i]);
  if (strcmp (got->str, expected) != 0)
    {
      print_error ("fields of %s: got \"%s\", expected \"%s\" in:\n%s\n", l->event, got->str,
                   expected, s);
      fail ();
    }
  g_string_free (got, TRUE);
}

static const char *
fv (const Line *l, const char *k)
{
  return g_hash_table_lookup (l->f, k);
}

/* Field orders per era family, from include/trace/events/kmem.h. */
typedef struct {
  Prefix prefix;
  const char *kmalloc, *cache_alloc, *kfree, *cache_free;
  gboolean symbolic;
} Era;

static const Era era_618 = {
  ERA_MODERN,
  "call_site ptr bytes_req bytes_alloc gfp_flags node accounted",
  "call_site ptr name bytes_req bytes_alloc gfp_flags node accounted",
  "call_site ptr", "call_site ptr name", TRUE
};
static const Era era_515 = {
  ERA_MODERN,
  "call_site ptr bytes_req bytes_alloc gfp_flags",
  "call_site ptr bytes_req bytes_alloc gfp_flags",
  "call_site ptr", "call_site ptr name", TRUE
};
static const Era era_419 = {
  ERA_IRQ,
  "call_site ptr bytes_req bytes_alloc gfp_flags",
  "call_site ptr bytes_req bytes_alloc gfp_flags",
  "call_site ptr", "call_site ptr", FALSE
};
static const Era era_2634 = {
  ERA_OLD,
  "call_site ptr bytes_req bytes_alloc gfp_flags",
  "call_site ptr bytes_req bytes_alloc gfp_flags",
  "call_site ptr", "call_site ptr", FALSE
};

typedef struct {
  guint64 allocs, frees, null_frees, cross, implicit, lines, page_events;
  guint64 softirq_frees;
  GHashTable *live;          /* ptr -> alloc cpu+1 */
  GHashTable *alloc_pids, *free_pids;
  GHashTable *req_sizes;     /* "event bytes_req/bytes_alloc" -> count */
  GHashTable *names;         /* cache names seen */
  GHashTable *pages;         /* live "pfn" -> order+1 */
  guint64 exts_allocs, exts_frees;  /* slab bookkeeping (6.10+ memcg) */
  guint64 page_frees;
  guint64 header_entries;
} Stats;

static void
stats_clear (Stats *st)
{
  g_hash_table_destroy (st->live);
  g_hash_table_destroy (st->alloc_pids);
  g_hash_table_destroy (st->free_pids);
  g_hash_table_destroy (st->req_sizes);
  g_hash_table_destroy (st->names);
  g_hash_table_destroy (st->pages);
}

static void
check_site (const Era *era, const char *site, const char *s)
{
  gboolean ok;
  if (era->symbolic)
    ok = g_regex_match_simple ("^[A-Za-z_][A-Za-z0-9_.]*\\+0x[0-9a-f]+/0x[0-9a-f]+$", site, 0, 0);
  else
    ok = g_regex_match_simple ("^ffffffff[0-9a-f]{8}$", site, 0, 0);
  if (!ok)
    {
      print_error ("bad call_site \"%s\" in:\n%s\n", site, s);
      fail ();
    }
}

/* Parse a whole trace strictly and account every alloc and free. */
static void
scan (const char *text, const Era *era, Stats *st)
{
  memset (st, 0, sizeof *st);
  st->live = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  st->alloc_pids = g_hash_table_new (g_direct_hash, g_direct_equal);
  st->free_pids = g_hash_table_new (g_direct_hash, g_direct_equal);
  st->req_sizes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  st->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  st->pages = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  assert_string_equal (lines[0], "# tracer: nop");
  guint64 last_ts = 0;
  for (char **ln = lines; *ln; ln++)
    {
      const char *s = *ln;
      if (*s == '\0')
        continue;
      if (*s == '#')
        {
          const char *e = strstr (s, "entries-in-buffer/entries-written: ");
          if (e)
            st->header_entries = g_ascii_strtoull (e + 35, NULL, 10);
          continue;
        }
      Line l;
      parse_line (era->prefix, s, &l);
      st->lines++;
      assert_true (l.ts_us >= last_ts);
      last_ts = l.ts_us;
      gboolean node_ev = g_str_has_suffix (l.event, "_node");
      g_autofree char *ev = node_ev ? g_strndup (l.event, strlen (l.event) - 5) : g_strdup (l.event);
      if (strcmp (ev, "kmalloc") == 0 || strcmp (ev, "kmem_cache_alloc") == 0)
        {
          gboolean cache = strcmp (ev, "kmem_cache_alloc") == 0;
          g_autofree char *exp = g_strdup_printf ("%s%s", cache ? era->cache_alloc : era->kmalloc,
                                                  node_ev ? " node" : "");
          assert_keys (&l, exp, s);
          assert_false (node_ev && era == &era_618);
          check_site (era, fv (&l, "call_site"), s);
          assert_true (g_regex_match_simple ("^[0-9a-f]{16}$", fv (&l, "ptr"), 0, 0));
          const char *ptr = fv (&l, "ptr");
          if (g_hash_table_contains (st->live, ptr))
            st->implicit++;
          g_hash_table_replace (st->live, g_strdup (ptr), GINT_TO_POINTER (l.cpu + 1));
          g_hash_table_add (st->alloc_pids, GINT_TO_POINTER (l.pid));
          g_autofree char *k = g_strdup_printf ("%s %s/%s", ev, fv (&l, "bytes_req"),
                                                fv (&l, "bytes_alloc"));
          g_hash_table_replace (st->req_sizes, g_steal_pointer (&k), NULL);
          if (g_str_has_prefix (fv (&l, "call_site"), "alloc_slab_obj_exts+"))
            st->exts_allocs++;
          assert_true (atoi (fv (&l, "bytes_req")) <= atoi (fv (&l, "bytes_alloc")));
          if (cache && fv (&l, "name"))
            g_hash_table_replace (st->names, g_strdup (fv (&l, "name")), NULL);
          st->allocs++;
        }
      else if (strcmp (ev, "kfree") == 0 || strcmp (ev, "kmem_cache_free") == 0)
        {
          gboolean cache = strcmp (ev, "kmem_cache_free") == 0;
          assert_false (node_ev);
          assert_keys (&l, cache ? era->cache_free : era->kfree, s);
          check_site (era, fv (&l, "call_site"), s);
          const char *ptr = fv (&l, "ptr");
          gboolean bookkeeping = g_str_has_prefix (fv (&l, "call_site"), "__free_slab+");
          st->frees++;
          if (bookkeeping)
            st->exts_frees++;
          if (strcmp (ptr, "0000000000000000") == 0 || strcmp (ptr, "(null)") == 0)
            {
              assert_false (cache);
              st->null_frees++;
              continue;
            }
          gpointer cpu1 = g_hash_table_lookup (st->live, ptr);
          if (cpu1 == NULL)
            {
              print_error ("free of a pointer that is not live:\n%s\n", s);
              fail ();
            }
          if (GPOINTER_TO_INT (cpu1) - 1 != l.cpu && !bookkeeping)
            st->cross++;
          if (l.flags[2] == 's')
            st->softirq_frees++;
          g_hash_table_remove (st->live, ptr);
          g_hash_table_add (st->free_pids, GINT_TO_POINTER (l.pid));
        }
      else if (strcmp (l.event, "mm_page_alloc") == 0)
        {
          /* a page is not handed out twice */
          assert_false (g_hash_table_contains (st->pages, fv (&l, "pfn")));
          g_hash_table_insert (st->pages, g_strdup (fv (&l, "pfn")),
                               GINT_TO_POINTER (atoi (fv (&l, "order")) + 1));
          st->page_events++;
        }
      else if (strcmp (l.event, "mm_page_free") == 0 || strcmp (l.event, "mm_page_free_direct") == 0)
        {
          /* only pages that were allocated, with their order */
          gpointer o = g_hash_table_lookup (st->pages, fv (&l, "pfn"));
          assert_non_null (o);
          assert_int_equal (GPOINTER_TO_INT (o) - 1, atoi (fv (&l, "order")));
          g_hash_table_remove (st->pages, fv (&l, "pfn"));
          st->page_events++;
          st->page_frees++;
        }
      else
        {
          print_error ("unexpected event %s\n", l.event);
          fail ();
        }
      line_clear (&l);
    }
  if (era->prefix != ERA_OLD)
    assert_int_equal (st->header_entries, st->lines);
}

static gboolean
has_size (Stats *st, const char *k)
{
  return g_hash_table_contains (st->req_sizes, k);
}

/* ---- tests ---- */

/* kmalloc size classes (with 96 and 192) and the largest cache per era,
 * in-process through the library. */
static void
test_kmalloc_classes (void **state)
{
  (void) state;
  SimGenEra e;
  GError *err = NULL;
  assert_true (sim_gen_era_parse ("6.18", &e, &err));
  static const guint map[][2] = {
    { 1, 8 }, { 8, 8 }, { 9, 16 }, { 33, 64 }, { 64, 64 }, { 65, 96 }, { 96, 96 },
    { 97, 128 }, { 129, 192 }, { 192, 192 }, { 193, 256 }, { 257, 512 },
    { 4097, 8192 }, { 8192, 8192 }, { 8193, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    assert_int_equal (sim_gen_kmalloc_class (&e, map[i][0]), map[i][1]);
  assert_int_equal (sim_gen_skb_data_req (&e, 100), 512);
  assert_int_equal (sim_gen_skb_data_req (&e, 4096 + 59), 8192);
  assert_true (sim_gen_era_parse ("2.6.24", &e, &err));
  assert_int_equal (sim_gen_kmalloc_class (&e, 2048), 2048);
  assert_int_equal (sim_gen_kmalloc_class (&e, 2049), 0);
  assert_true (sim_gen_era_parse ("2.6.27", &e, &err));
  assert_int_equal (sim_gen_kmalloc_class (&e, 4096), 4096);
  assert_int_equal (sim_gen_kmalloc_class (&e, 4097), 0);
  assert_true (sim_gen_era_parse ("2.6.23", &e, &err));
  assert_int_equal (sim_gen_kmalloc_class (&e, 65536), 65536);
  assert_int_equal (sim_gen_skb_data_req (&e, 100), 128 + 312);
  assert_true (sim_gen_era_parse ("2.6.34", &e, &err));
  assert_int_equal (sim_gen_skb_data_req (&e, 100), 128 + 344);
  assert_true (sim_gen_era_parse ("3.10", &e, &err));
  assert_int_equal (sim_gen_skb_data_req (&e, 100), 128 + 320);
  assert_false (sim_gen_era_parse ("2.6", &e, &err));
  g_clear_error (&err);
  assert_false (sim_gen_era_parse ("6.18.", &e, &err));
  g_clear_error (&err);
  assert_false (sim_gen_era_parse ("6.19", &e, &err));
  g_clear_error (&err);
  assert_true (sim_gen_era_parse ("6.18.2", &e, &err));
}

static void
test_deterministic (void **state)
{
  (void) state;
  static const char *const w[] = { "hackbench", "netperf-udp", "tbench", "kbuild" };
  for (guint i = 0; i < G_N_ELEMENTS (w); i++)
    {
      const char *a1[] = { w[i], "--loops", "5", "--seed", "7", NULL };
      const char *a2[] = { w[i], "--loops", "5", "--seed", "8", NULL };
      g_autofree char *x = gen (".txt", a1);
      g_autofree char *y = gen (".txt", a1);
      g_autofree char *z = gen (".txt", a2);
      assert_string_equal (x, y);
      assert_true (strcmp (x, z) != 0);
    }
}

static void
test_gzip (void **state)
{
  (void) state;
  const char *a[] = { "hackbench", "--loops", "3", "--kernel", "2.6.34", NULL };
  g_autofree char *plain = gen (".txt", a);
  g_autofree char *unz = gen (".trace.gz", a);
  assert_string_equal (plain, unz);
}

static void
expect_usage (const char *const *args, const char *needle)
{
  g_autofree char *err = NULL;
  int st = tu_run (NULL, &err, args);
  if (st != 2)
    print_error ("exit %d, stderr: %s\n", st, err);
  assert_int_equal (st, 2);
  tu_assert_contains (err, needle);
}

static void
test_option_errors (void **state)
{
  (void) state;
  expect_usage ((const char *[]) { "trace", "gen", "fork-bomb", "-o", "x", NULL },
                "unknown workload \"fork-bomb\" (expected one of: hackbench, netperf-udp, tbench, kbuild, slab-test)");
  expect_usage ((const char *[]) { "trace", "gen", "-o", "x", NULL }, "a workload is required");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", NULL }, "an output file is required (-o FILE)");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--cpus", "0", "-o", "x", NULL },
                "--cpus: \"0\" is not a whole number in 1..4096");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--kernel", "7.1", "-o", "x", NULL },
                "--kernel: \"7.1\" is not a kernel version");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--kernel", "2.6.22", "-o", "x", NULL },
                "expected 2.6.23 ... 2.6.39");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--kernel", "6.x", "-o", "x", NULL },
                "\"6.x\"");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--loops", "-3", "-o", "x", NULL },
                "--loops");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--cpus", "2", "--machine-sockets", "4",
                                   "-o", "x", NULL }, "--machine-sockets 4 is more than --cpus 2");
  expect_usage ((const char *[]) { "trace", "gen", "kbuild", "--size", "10", "-o", "x", NULL },
                "--size does not apply to kbuild");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--format", "csv", "-o", "x", NULL },
                "--format: \"csv\" is not text or native");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--format", "native", "-o", "x.gz",
                                   NULL }, "--format native is not gzip-compressed");
  expect_usage ((const char *[]) { "trace", "gen", "hackbench", "--bogus", "-o", "x", NULL },
                "trace gen:");
}

static void
test_output_unwritable (void **state)
{
  (void) state;
  g_autofree char *err = NULL;
  int st = tu_run (NULL, &err, (const char *[]) { "trace", "gen", "hackbench", "--loops", "1",
                                                  "-o", "/nonexistent-dir/x.txt", NULL });
  assert_int_equal (st, 1);
  tu_assert_contains (err, "/nonexistent-dir/x.txt");
}

/* hackbench: every message is 2 allocs on the sender's CPU and 2 frees on
 * the receiver's; allocs = 2*G*20*20*L. */
static void
test_hackbench_model (void **state)
{
  (void) state;
  const char *a[] = { "hackbench", "--groups", "2", "--loops", "3", "--cpus", "2", NULL };
  g_autofree char *t = gen (".txt", a);
  Stats st;
  scan (t, &era_618, &st);
  /* plus one obj_exts vector per slab that got a memcg-charged object,
   * freed with its slab */
  assert_true (st.exts_allocs > 0);
  assert_int_equal (st.allocs - st.exts_allocs, 2 * 2 * 20 * 20 * 3);
  assert_int_equal (st.frees - st.exts_frees, st.allocs - st.exts_allocs);
  assert_int_equal (g_hash_table_size (st.live), st.exts_allocs - st.exts_frees);
  assert_int_equal (st.null_frees, 0);
  assert_int_equal (st.implicit, 0);
  /* round-robin on 2 CPUs: receiver r on r%2, sender s on s%2, each
   * sender writes to all receivers: exactly half the messages cross. */
  assert_int_equal (st.cross, (st.frees - st.exts_frees) / 2);
  /* senders allocate, receivers free: disjoint sets of 40 tasks each */
  assert_int_equal (g_hash_table_size (st.alloc_pids), 40);
  assert_int_equal (g_hash_table_size (st.free_pids), 40);
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, st.alloc_pids);
  while (g_hash_table_iter_next (&it, &k, NULL))
    assert_false (g_hash_table_contains (st.free_pids, k));
  /* 6.18 sizes as in the real trace */
  assert_true (has_size (&st, "kmem_cache_alloc 224/256"));
  assert_true (has_size (&st, "kmalloc 512/512"));
  assert_true (g_hash_table_contains (st.names, "skbuff_head_cache"));
  assert_true (st.page_events > 0);
  /* emptied slabs go back (SLUB's discard_slab) */
  assert_true (st.page_frees > 0);
  tu_assert_contains (t, "kmem_cache_free: call_site=unix_stream_read_generic+0xba4/0xcd0 ptr=");
  tu_assert_contains (t, " name=skbuff_head_cache bytes_req=224 bytes_alloc=256 "
                         "gfp_flags=GFP_KERNEL_ACCOUNT node=-1 accounted=true");
  stats_clear (&st);

  /* without page events (and their slab bookkeeping) the counts are
   * exact; seeded placement keeps them */
  const char *b[] = { "hackbench", "--loops", "2", "--cpus", "4", "--random-placement",
                      "--no-page-events", NULL };
  g_autofree char *t2 = gen (".txt", b);
  scan (t2, &era_618, &st);
  assert_int_equal (st.allocs, 2 * 20 * 20 * 2);
  assert_int_equal (st.frees, st.allocs);
  assert_int_equal (st.page_events, 0);
  assert_int_equal (st.exts_allocs, 0);
  stats_clear (&st);
}

static void
test_hackbench_eras (void **state)
{
  (void) state;
  Stats st;
  /* 2.6.34: *_node events, raw call sites, no name=, 128+344 bytes */
  const char *a[] = { "hackbench", "--loops", "2", "--kernel", "2.6.34", NULL };
  g_autofree char *t = gen (".txt", a);
  tu_assert_contains (t, "#           TASK-PID    CPU#    TIMESTAMP  FUNCTION\n");
  assert_null (strstr (t, "name="));
  assert_null (strstr (t, "entries-in-buffer"));
  tu_assert_contains (t, ": kmem_cache_alloc_node: call_site=ffffffff");
  tu_assert_contains (t, " ptr=ffff880");
  scan (t, &era_2634, &st);
  assert_true (has_size (&st, "kmalloc 472/512"));
  assert_true (has_size (&st, "kmem_cache_alloc 232/256"));
  assert_int_equal (st.allocs, 2 * 20 * 20 * 2);
  assert_int_equal (st.frees, st.allocs);
  stats_clear (&st);

  /* 2.6.32: the DMA fields made skb_shared_info 496 bytes: kmalloc-1024 */
  const char *b[] = { "hackbench", "--loops", "1", "--kernel", "2.6.32", NULL };
  g_autofree char *t2 = gen (".txt", b);
  scan (t2, &era_2634, &st);
  assert_true (has_size (&st, "kmalloc 624/1024"));
  stats_clear (&st);

  /* 2.6.23: a 65000-byte message is cut into SKB_MAX_ALLOC pieces
   * (16384 - 320 = 16064 bytes each): 4 full skbs and one of 744 */
  const char *big[] = { "hackbench", "--loops", "1", "--size", "65000", "--kernel", "2.6.23", NULL };
  g_autofree char *tb = gen (".txt", big);
  scan (tb, &era_2634, &st);
  assert_true (has_size (&st, "kmalloc 16376/16384"));
  assert_true (has_size (&st, "kmalloc 1080/2048"));
  assert_int_equal (st.allocs, 2 * 20 * 20 * 5);
  assert_int_equal (st.frees, st.allocs);
  stats_clear (&st);

  /* 4.19: irq-info columns, hex call sites, 128 + SKB_DATA_ALIGN(320) */
  const char *c[] = { "hackbench", "--loops", "1", "--kernel", "4.19", NULL };
  g_autofree char *t3 = gen (".txt", c);
  tu_assert_contains (t3, "#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION\n");
  tu_assert_contains (t3, " ptr=ffff880");   /* PAGE_OFFSET moved in 4.20 */
  scan (t3, &era_419, &st);
  assert_true (has_size (&st, "kmalloc 448/512"));
  stats_clear (&st);

  /* 5.15: symbolic call sites, name= only on kmem_cache_free */
  const char *d[] = { "hackbench", "--loops", "1", "--kernel", "5.15", NULL };
  g_autofree char *t4 = gen (".txt", d);
  scan (t4, &era_515, &st);
  tu_assert_contains (t4, "kmem_cache_free: call_site=kfree_skbmem+");
  stats_clear (&st);
}

/* --machine-sockets: slab pages come from the allocating CPU's node;
 * node n's pages start at pfn 0x100000 + n*0x400000. */
static void
test_sockets (void **state)
{
  (void) state;
  const char *a[] = { "hackbench", "--loops", "2", "--cpus", "4", "--machine-sockets", "2", NULL };
  g_autofree char *t = gen (".txt", a);
  g_auto (GStrv) lines = g_strsplit (t, "\n", -1);
  guint checked = 0;
  for (char **l = lines; *l; l++)
    {
      const char *p = strstr (*l, "mm_page_alloc: ");
      if (p == NULL)
        continue;
      int cpu = atoi (strchr (*l, '[') + 1);
      const char *pfn = strstr (p, "pfn=0x");
      assert_non_null (pfn);
      guint64 v = g_ascii_strtoull (pfn + 6, NULL, 16);
      guint node = cpu / 2;
      assert_true (v >= 0x100000 + node * 0x400000u);
      assert_true (v < 0x100000 + (node + 1) * 0x400000u);
      checked++;
    }
  assert_true (checked >= 4);
}

static void
test_netperf_model (void **state)
{
  (void) state;
  Stats st;
  const guint n = 300;
  /* 6.18: the data comes back to the sender's CPU (softirq), the head is
   * recycled without a tracepoint, __ip_make_skb kfree(NULL)s. */
  const char *a[] = { "netperf-udp", "--loops", "300", NULL };
  g_autofree char *t = gen (".txt", a);
  scan (t, &era_618, &st);
  assert_int_equal (st.allocs, 2 * n);
  assert_int_equal (st.null_frees, n);
  assert_int_equal (st.frees, 2 * n);
  assert_int_equal (st.cross, 0);
  assert_int_equal (st.softirq_frees, n);
  assert_true (st.implicit > n / 2);
  assert_true (has_size (&st, "kmalloc 8192/8192"));
  stats_clear (&st);

  /* 2.6.34: the receiver frees both on its CPU; 4096+28+16+15 aligned to
   * 4160, plus 344 of shared info = 4504 in kmalloc-8192. */
  const char *b[] = { "netperf-udp", "--loops", "300", "--kernel", "2.6.34", NULL };
  g_autofree char *t2 = gen (".txt", b);
  scan (t2, &era_2634, &st);
  assert_int_equal (st.allocs, 2 * n);
  assert_int_equal (st.frees, 2 * n);
  assert_int_equal (st.cross, 2 * n);
  assert_int_equal (st.implicit, 0);
  assert_true (has_size (&st, "kmalloc 4504/8192"));
  stats_clear (&st);

  /* 2.6.24 passed > 2048 bytes to the page allocator: whole pages */
  const char *c[] = { "netperf-udp", "--loops", "20", "--kernel", "2.6.24", NULL };
  g_autofree char *t3 = gen (".txt", c);
  tu_assert_contains (t3, "bytes_req=4472 bytes_alloc=8192");
  tu_assert_contains (t3, "mm_page_free_direct: page=");
}

static void
test_tbench_model (void **state)
{
  (void) state;
  Stats st;
  /* 2.6.34: page-sized linear data (4096 - 384 + 344), 2 skbs per reply */
  const char *a[] = { "tbench", "--groups", "2", "--loops", "10", "--kernel", "2.6.34", NULL };
  g_autofree char *t = gen (".txt", a);
  scan (t, &era_2634, &st);
  assert_true (has_size (&st, "kmalloc 4056/4096"));
  assert_true (has_size (&st, "kmem_cache_alloc 468/512"));
  /* per round: 1 request skb + 2 reply skbs, 2 allocs each */
  assert_int_equal (st.allocs, 2 * 10 * (1 + 2) * 2);
  assert_int_equal (st.frees, st.allocs);
  assert_int_equal (st.cross, st.frees);
  stats_clear (&st);
  /* 6.18: small heads from skbuff_small_head */
  const char *b[] = { "tbench", "--groups", "1", "--loops", "10", NULL };
  g_autofree char *t2 = gen (".txt", b);
  scan (t2, &era_618, &st);
  assert_true (g_hash_table_contains (st.names, "skbuff_small_head"));
  assert_true (g_hash_table_contains (st.names, "skbuff_fclone_cache"));
  assert_int_equal (st.allocs, 10 * 2 * 2);
  stats_clear (&st);
}

static void
test_kbuild_model (void **state)
{
  (void) state;
  Stats st;
  const char *a[] = { "kbuild", "--groups", "3", "--loops", "8", "--cpus", "4", NULL };
  g_autofree char *t = gen (".txt", a);
  scan (t, &era_618, &st);
  static const char *const names[] = { "task_struct", "mm_struct", "vm_area_struct",
                                       "files_cache", "filp", "dentry", "names_cache" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    assert_true (g_hash_table_contains (st.names, names[i]));
  /* everything but the object files' dentries is freed */
  assert_true (g_hash_table_size (st.live) - (st.exts_allocs - st.exts_frees) <= 3 * 8);
  assert_true (st.cross > 0);
  assert_true (st.softirq_frees >= 3 * 8);   /* task_structs via RCU */
  tu_assert_contains (t, "             cc1-");
  stats_clear (&st);
  const char *b[] = { "kbuild", "--loops", "3", "--kernel", "2.6.34", NULL };
  g_autofree char *t2 = gen (".txt", b);
  scan (t2, &era_2634, &st);
  assert_null (strstr (t2, "lsm_file_cache"));
  stats_clear (&st);
}

/* Our parser and field orders for 6.18 accept every line of the real
 * 6.18 recording, and our header is the real header (but for the counts). */
static void
test_real_618_forms (void **state)
{
  (void) state;
  g_autofree char *path = tu_source_path ("traces/samples/hackbench-T-g2-l50.trace.gz");
  g_autoptr (GFile) f = g_file_new_for_path (path);
  g_autoptr (GFileInputStream) in = g_file_read (f, NULL, NULL);
  assert_non_null (in);
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) cin = g_converter_input_stream_new (G_INPUT_STREAM (in), G_CONVERTER (z));
  g_autoptr (GDataInputStream) d = g_data_input_stream_new (cin);
  const char *a[] = { "hackbench", "--loops", "1", NULL };
  g_autofree char *ours = gen (".txt", a);
  g_auto (GStrv) ol = g_strsplit (ours, "\n", -1);
  guint n = 0, kinds = 0;
  gboolean seen[4] = { FALSE, FALSE, FALSE, FALSE };
  for (;;)
    {
      g_autofree char *l = g_data_input_stream_read_line (d, NULL, NULL, NULL);
      if (l == NULL)
        break;
      if (l[0] == '#')
        {
          if (!strstr (l, "entries-in-buffer"))
            assert_string_equal (l, ol[n]);
          n++;
          continue;
        }
      Line p;
      parse_line (ERA_MODERN, l, &p);
      const char *exp = NULL;
      int k = -1;
      if (strcmp (p.event, "kmalloc") == 0)
        exp = era_618.kmalloc, k = 0;
      else if (strcmp (p.event, "kmem_cache_alloc") == 0)
        exp = era_618.cache_alloc, k = 1;
      else if (strcmp (p.event, "kfree") == 0)
        exp = era_618.kfree, k = 2;
      else if (strcmp (p.event, "kmem_cache_free") == 0)
        exp = era_618.cache_free, k = 3;
      if (exp)
        {
          assert_keys (&p, exp, l);
          check_site (&era_618, fv (&p, "call_site"), l);
          if (!seen[k])
            kinds++;
          seen[k] = TRUE;
        }
      line_clear (&p);
    }
  assert_int_equal (n, 12);
  assert_int_equal (kinds, 4);
}

/* A full file system, as far as the child can tell: files stop growing at
 * the limit (EFBIG, SIGXFSZ ignored).  Set between fork and exec. */
static rlim_t fsize_limit;

static void
limit_fsize (gpointer data)
{
  (void) data;
  signal (SIGXFSZ, SIG_IGN);
  struct rlimit rl = { fsize_limit, fsize_limit };
  setrlimit (RLIMIT_FSIZE, &rl);
}

static int
gen_limited (const char *out, char **err)
{
  g_autoptr (GSubprocessLauncher) l =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_child_setup (l, limit_fsize, NULL, NULL);
  GError *e = NULL;
  g_autoptr (GSubprocess) p = g_subprocess_launcher_spawn (l, &e, tu_exe (), "trace", "gen",
                                                           "hackbench", "--loops", "20", "-o",
                                                           out, NULL);
  assert_non_null (p);
  assert_true (g_subprocess_communicate_utf8 (p, NULL, NULL, NULL, err, &e));
  return g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
}

/* The output is written to a temporary file and renamed: when the disk
 * fills up, an older file of that name is left as it was and a new name
 * is not created (issue 9 item 14: a truncated trace was left behind). */
static void
test_full_disk_leaves_nothing_truncated (void **state)
{
  (void) state;
  g_autofree char *dir = g_dir_make_tmp ("slabsim-gen-full-XXXXXX", NULL);
  g_autofree char *ref = g_build_filename (dir, "ref.txt", NULL);
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "trace", "gen", "hackbench", "--loops",
                                                           "20", "-o", ref, NULL }), 0);
  struct stat st;
  assert_int_equal (g_stat (ref, &st), 0);
  /* The body (written first, to a temporary file) fits; the whole output,
   * header included, does not. */
  fsize_limit = (rlim_t) st.st_size - 1;

  g_autofree char *old = g_build_filename (dir, "old.txt", NULL);
  assert_true (g_file_set_contents (old, "an older trace\n", -1, NULL));
  g_autofree char *err1 = NULL;
  assert_int_equal (gen_limited (old, &err1), 1);
  tu_assert_contains (err1, old);
  tu_assert_contains (err1, "File too large");
  g_autofree char *kept = NULL;
  assert_true (g_file_get_contents (old, &kept, NULL, NULL));
  assert_string_equal (kept, "an older trace\n");

  g_autofree char *fresh = g_build_filename (dir, "new.txt", NULL);
  g_autofree char *err2 = NULL;
  assert_int_equal (gen_limited (fresh, &err2), 1);
  assert_false (g_file_test (fresh, G_FILE_TEST_EXISTS));

  /* Nothing but the two files we made. */
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *n;
  guint count = 0;
  while ((n = g_dir_read_name (d)))
    {
      count++;
      g_autofree char *p = g_build_filename (dir, n, NULL);
      g_unlink (p);
    }
  g_dir_close (d);
  assert_int_equal (count, 2);
  g_rmdir (dir);
}

/* The bytes of the generated text do not depend on how the writer formats
 * them: the SHA-256 of these traces were taken from the printf-based writer
 * that gen-writer.c had before its hand formatter (and before the
 * generator's own hash maps), one per prefix form, call-site rendering and
 * field set.  A deliberate change of the trace model changes them; then
 * say why in the commit. */
static void
test_text_unchanged (void **state)
{
  (void) state;
  static const struct { const char *w, *kernel, *sha256; } ref[] = {
    { "hackbench", "2.6.23", "e644e16b727570115c443fd9f938e6fb5e052c3861ab1291b8d2a87a4d0350fc" },
    { "hackbench", "2.6.34", "d253bb8a9b1c3f506a5d76915f6a706af3f510778f485a615ebf4f5c519bed8b" },
    { "hackbench", "3.10", "3eec538d0fd0354af69dc261cae9c680da42bfffb145fbe3d69eee2e76de8be3" },
    { "hackbench", "4.19", "52b3f7f16a56e8ee234c88328b010652f12c1a8c9969c5dc50e02fd21cddfa4c" },
    { "hackbench", "5.10", "47d1030fae8ed1484d4ceeb049bf3e538f1f9bd86ad0356015efeaac4c172c4f" },
    { "hackbench", "5.15", "a2cdf7b252299fd3be0c23f7b41a1e955013d83bb9a840017a114ac7f2e9ed5d" },
    { "hackbench", "6.1", "66f6aa6ac35d23a78c02ed3e8a8ef8c694ba24533aaf39aaa1192ca10f53a78d" },
    { "hackbench", "6.18", "e6da93bc19861e0cbc67235003f6b844aa11274484960f9cb2738f1e27928b16" },
    { "kbuild", "6.18", "d9ad82710ad5c7106207583c69d7942afc0fd758dcd3e719c4f15b87fbd97ed5" },
    { "kbuild", "4.9", "bd9f83f9a2093f43772f6d41c54d8b754608db87c40ee3f12d8c7ddfc472ead5" },
    { "netperf-udp", "2.6.34", "d0bf0f000ecccf842519e9f257efff083e75e04e1b40487c1f9aa331ba263852" },
    { "tbench", "6.6", "2d7e94c89fff274446e39a50bc5faa8c878c69c7676cbfb251e2a7316d865af5" },
    { "slab-test", "2.6.34", "517b3106af2817af59fa069f76f5de2bdd72f47827435864fdc5c263c8dc0a80" },
    { "slab-test", "6.18", "4b77970d7bbe05b47c5e9b4c7132a7cba4b0b9184dd69eb195bfccb2beac65f3" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ref); i++)
    {
      const char *a[] = { ref[i].w, "--kernel", ref[i].kernel, "--cpus", "3",
                          "--machine-sockets", "2", "--loops", "3", NULL };
      g_autofree char *text = gen (".txt", a);
      g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
      if (strcmp (sum, ref[i].sha256) != 0)
        print_error ("%s --kernel %s: sha256 %s, expected %s\n", ref[i].w, ref[i].kernel,
                     sum, ref[i].sha256);
      assert_string_equal (sum, ref[i].sha256);
    }
}

static char *
file_bytes (const char *path, gsize *len)
{
  char *data = NULL;
  GError *e = NULL;
  if (!g_file_get_contents (path, &data, len, &e))
    {
      print_error ("%s: %s\n", path, e->message);
      fail ();
    }
  return data;
}

/* --format native parses the text as it is generated (no text file): the
 * result is byte for byte what trace convert makes of the text file. */
static void
test_native_is_convert (void **state)
{
  (void) state;
  static const char *const kernels[] = { "6.18", "4.19", "2.6.34" };
  static const char *const works[] = { "hackbench", "kbuild" };
  g_autofree char *dir = g_dir_make_tmp ("slabsim-gen-native-XXXXXX", NULL);
  g_autofree char *txt = g_build_filename (dir, "t.txt", NULL);
  g_autofree char *conv = g_build_filename (dir, "conv.slabsim", NULL);
  g_autofree char *nat = g_build_filename (dir, "nat.slabsim", NULL);
  for (guint k = 0; k < G_N_ELEMENTS (kernels); k++)
    for (guint w = 0; w < G_N_ELEMENTS (works); w++)
      {
        g_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL;
        const char *base[] = { "trace", "gen", works[w], "--kernel", kernels[k], "--cpus", "4",
                               "--machine-sockets", "2", "--loops", "4", "-o", txt, NULL };
        assert_int_equal (tu_run (NULL, &e1, base), 0);
        assert_int_equal (tu_run (NULL, &e2, (const char *[]) { "trace", "convert", txt, "-o",
                                                                conv, NULL }), 0);
        const char *native[] = { "trace", "gen", works[w], "--kernel", kernels[k], "--cpus", "4",
                                 "--machine-sockets", "2", "--loops", "4", "--format", "native",
                                 "-o", nat, NULL };
        assert_int_equal (tu_run (NULL, &e3, native), 0);
        /* the same counts in the summary line (up to the file name) */
        assert_non_null (strstr (e1, "->"));
        assert_non_null (strstr (e3, "->"));
        *strstr (e1, "->") = '\0';
        *strstr (e3, "->") = '\0';
        assert_string_equal (e1, e3);
        gsize n1 = 0, n2 = 0;
        g_autofree char *a = file_bytes (conv, &n1);
        g_autofree char *b = file_bytes (nat, &n2);
        assert_true (n1 > 1000);
        assert_int_equal (n1, n2);
        assert_memory_equal (a, b, n1);
        g_unlink (txt);
        g_unlink (conv);
        g_unlink (nat);
      }
  g_rmdir (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kmalloc_classes),
    cmocka_unit_test (test_deterministic),
    cmocka_unit_test (test_gzip),
    cmocka_unit_test (test_option_errors),
    cmocka_unit_test (test_output_unwritable),
    cmocka_unit_test (test_hackbench_model),
    cmocka_unit_test (test_hackbench_eras),
    cmocka_unit_test (test_sockets),
    cmocka_unit_test (test_netperf_model),
    cmocka_unit_test (test_tbench_model),
    cmocka_unit_test (test_kbuild_model),
    cmocka_unit_test (test_real_618_forms),
    cmocka_unit_test (test_full_disk_leaves_nothing_truncated),
    cmocka_unit_test (test_text_unchanged),
    cmocka_unit_test (test_native_is_convert),
  };
  return cmocka_run_group_tests_name ("tracegen", tests, NULL, NULL);
}
