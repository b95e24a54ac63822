/* test-trace-fast.c - the text parser's fast path reads what the careful
 * parser reads.
 *
 * traces/reader-fast.c reads the common line shapes and leaves every other
 * line to the careful parser (reader.c).  Each test reads the same bytes
 * twice, once with the fast path and once with every line through the
 * careful parser (r->careful_only), and compares all that a reader hands
 * out: every event (memcmp), the interned strings in order, the counters,
 * the other events' names, and the error message, strict and lenient.
 * The inputs: every text sample (and the shared traces), where the fast
 * path must read nearly every line; directed lines at each edge of it (a
 * line it must leave to the careful parser, a line ending where the read
 * buffer ends, a truncated last line); and lines of every sample mutated at
 * random (a fixed seed) among lines that fill the memos, so that near
 * misses of a memoised prefix or field tail are read too. */
#include "tests/testutil.h"
#include "traces/reader-private.h"
#include "sim/core/errors.h"

#include <string.h>

typedef struct {
  GArray    *ev;
  GPtrArray *strs;
  char      *stats;     /* the counters and other events, printed */
  char      *error;     /* NULL: read to the end */
  guint64    fast;      /* lines the fast path read */
  guint64    line_hits; /* of them through its line memo */
} Outcome;

static void
outcome_free (Outcome *o)
{
  g_array_free (o->ev, TRUE);
  g_ptr_array_free (o->strs, TRUE);
  g_free (o->stats);
  g_free (o->error);
  g_free (o);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Outcome, outcome_free)

static Outcome *
read_reader (SimTraceReader *r, gboolean careful, gboolean lenient)
{
  Outcome *o = g_new0 (Outcome, 1);
  o->ev = g_array_new (FALSE, FALSE, sizeof (SimTraceEvent));
  o->strs = g_ptr_array_new_with_free_func (g_free);
  r->careful_only = careful;
  sim_trace_reader_set_lenient (r, lenient);
  SimTraceEvent ev;
  GError *error = NULL;
  while (sim_trace_reader_next (r, &ev, &error))
    g_array_append_val (o->ev, ev);
  if (error)
    {
      o->error = g_strdup (error->message);
      g_error_free (error);
    }
  for (guint32 id = 1; id <= sim_trace_reader_n_strings (r); id++)
    g_ptr_array_add (o->strs, g_strndup (sim_trace_reader_string (r, id),
                                         sim_trace_reader_string_len (r, id)));
  const SimTraceStats *s = sim_trace_reader_stats (r);
  GString *t = g_string_new (NULL);
  g_string_append_printf (t, "events %" G_GUINT64_FORMAT " lost %" G_GUINT64_FORMAT "/%"
                          G_GUINT64_FORMAT " skipped %" G_GUINT64_FORMAT " malformed %"
                          G_GUINT64_FORMAT " hashed %" G_GUINT64_FORMAT " raw %" G_GUINT64_FORMAT,
                          s->events, s->lost_events, s->lost_markers, s->skipped_lines,
                          s->malformed_lines, s->hashed_ptrs, s->raw_ptrs);
  for (int k = 0; k < SIM_TRACE_N_KINDS; k++)
    g_string_append_printf (t, " %" G_GUINT64_FORMAT, s->by_kind[k]);
  g_autoptr (GPtrArray) names = sim_trace_stats_other_names (s);
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (t, " %s=%" G_GUINT64_FORMAT, (char *) names->pdata[i],
                            *(guint64 *) g_hash_table_lookup (s->other_events, names->pdata[i]));
  o->stats = g_string_free (t, FALSE);
  o->fast = sim_trace_fast_accepted (r);
  o->line_hits = sim_trace_fast_line_hits (r);
  sim_trace_reader_free (r);
  return o;
}

static Outcome *
read_text (const char *data, gsize len, gboolean careful, gboolean lenient)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (g_memdup2 (data, len), len,
                                                                     g_free);
  GError *error = NULL;
  SimTraceReader *r = sim_trace_reader_new (in, "t.trace", SIM_TRACE_FORMAT_FTRACE, &error);
  if (r == NULL)
    {
      print_error ("open: %s\n", error->message);
      fail ();
    }
  return read_reader (r, careful, lenient);
}

/* Both outcomes equal; on a difference, say where (and @what). */
static void
assert_same (const Outcome *a, const Outcome *b, const char *what)
{
  gboolean ok = TRUE;
  if (g_strcmp0 (a->error, b->error) != 0)
    {
      print_error ("%s: error fast \"%s\", careful \"%s\"\n", what, a->error ? a->error : "-",
                   b->error ? b->error : "-");
      ok = FALSE;
    }
  if (a->ev->len != b->ev->len)
    {
      print_error ("%s: %u events fast, %u careful\n", what, a->ev->len, b->ev->len);
      ok = FALSE;
    }
  for (guint i = 0; ok && i < a->ev->len; i++)
    {
      const SimTraceEvent *x = &g_array_index (a->ev, SimTraceEvent, i);
      const SimTraceEvent *y = &g_array_index (b->ev, SimTraceEvent, i);
      if (memcmp (x, y, sizeof *x) != 0)
        {
          print_error ("%s: event %u (line %" G_GUINT64_FORMAT ") differs: kind %d/%d cpu %d/%d "
                       "pid %d/%d ts %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ptr %" G_GINT64_MODIFIER
                       "x/%" G_GINT64_MODIFIER "x comm %u/%u call_site %u/%u cache %u/%u gfp %u/%u "
                       "node %d/%d order %d/%d acc %d/%d req %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                       "\n", what, i, y->line, x->kind, y->kind, x->cpu, y->cpu, x->pid, y->pid,
                       x->ts_ns, y->ts_ns, x->ptr, y->ptr, x->comm_id, y->comm_id,
                       x->call_site_id, y->call_site_id, x->cache_id, y->cache_id, x->gfp_id,
                       y->gfp_id, x->node, y->node, x->order, y->order, x->accounted,
                       y->accounted, x->bytes_req, y->bytes_req);
          ok = FALSE;
        }
    }
  if (ok && a->strs->len != b->strs->len)
    {
      print_error ("%s: %u strings fast, %u careful\n", what, a->strs->len, b->strs->len);
      ok = FALSE;
    }
  for (guint i = 0; ok && i < a->strs->len; i++)
    if (strcmp (a->strs->pdata[i], b->strs->pdata[i]) != 0)
      {
        print_error ("%s: string %u \"%s\" fast, \"%s\" careful\n", what, i + 1,
                     (char *) a->strs->pdata[i], (char *) b->strs->pdata[i]);
        ok = FALSE;
      }
  if (ok && strcmp (a->stats, b->stats) != 0)
    {
      print_error ("%s: counters fast %s\ncareful %s\n", what, a->stats, b->stats);
      ok = FALSE;
    }
  if (!ok)
    fail ();
}

/* Read @data both ways, strict and lenient, and compare; the fast path's
 * line count of the lenient reading (which reads every line). */
static guint64
check_text (const char *data, gsize len, const char *what)
{
  guint64 fast = 0;
  for (int lenient = 0; lenient < 2; lenient++)
    {
      g_autoptr (Outcome) a = read_text (data, len, FALSE, lenient);
      g_autoptr (Outcome) b = read_text (data, len, TRUE, lenient);
      g_assert_cmpuint (b->fast, ==, 0);
      assert_same (a, b, what);
      if (lenient)
        fast = a->fast;
    }
  return fast;
}

/* The decompressed text of a sample, or NULL when it is not there. */
static GBytes *
sample_text (const char *path)
{
  g_autoptr (GFile) f = g_file_new_for_path (path);
  g_autoptr (GInputStream) raw = G_INPUT_STREAM (g_file_read (f, NULL, NULL));
  if (raw == NULL)
    return NULL;
  g_autoptr (GInputStream) in = raw;
  raw = NULL;
  if (g_str_has_suffix (path, ".gz"))
    {
      g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
      GInputStream *c = g_converter_input_stream_new (in, G_CONVERTER (z));
      g_object_unref (in);
      in = c;
    }
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  if (g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, NULL) < 0)
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

static const char *const text_samples[] = {
  "traces/samples/hackbench-T-g2-l50.trace.gz",
  "traces/samples/hackbench-T-g1-l50.perf-script.gz",
  "traces/samples/hackbench-T-g1-l2.report.gz",
  "traces/samples/udp-4k.trace.gz",
  "traces/samples/udp-4k-1cpu.trace.gz",
  "traces/samples/vma-churn-8x2000.trace.gz",
};

/* Every sample and shared trace reads the same both ways (opened as slabsim
 * opens them), and the fast path reads nearly all of its lines. */
static void
test_samples (void **state)
{
  (void) state;
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (text_samples); i++)
    g_ptr_array_add (paths, tu_source_path (text_samples[i]));
  const char *shared[] = { "hackbench-T-g2-l50.trace.gz", "hackbench-T-g1-l50.perf-script.gz",
                           "udp-4k.trace.gz" };
  for (guint i = 0; i < G_N_ELEMENTS (shared); i++)
    {
      char *p = g_build_filename (tu_shared_dir (), "traces", shared[i], NULL);
      if (g_file_test (p, G_FILE_TEST_EXISTS))
        g_ptr_array_add (paths, p);
      else
        g_free (p);
    }
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = paths->pdata[i];
      Outcome *o[2];
      for (int careful = 0; careful < 2; careful++)
        {
          GError *error = NULL;
          SimTraceReader *r = sim_trace_reader_open (path, &error);
          assert_non_null (r);
          o[careful] = read_reader (r, careful, FALSE);
        }
      assert_same (o[0], o[1], path);
      assert_null (o[0]->error);
      /* every event line of these traces has the common shape */
      if (o[0]->fast * 1000 < o[0]->ev->len * 999)
        {
          print_error ("%s: the fast path read %" G_GUINT64_FORMAT " of %u events\n", path,
                       o[0]->fast, o[0]->ev->len);
          fail ();
        }
      /* and its line memo more than half of them (58-99.7 % on these
       * traces, 95 % on the bundled one) */
      if (o[0]->line_hits * 2 < o[0]->ev->len)
        {
          print_error ("%s: the line memo read %" G_GUINT64_FORMAT " of %u events\n", path,
                       o[0]->line_hits, o[0]->ev->len);
          fail ();
        }
      outcome_free (o[0]);
      outcome_free (o[1]);
    }
}

#define HDR "# tracer: nop\n"
#define ALLOC "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: " \
  "call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 " \
  "bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
#define FREE "  record-kmem.sh-4314    [000] .....   294.738521: kmem_cache_free: " \
  "call_site=vfs_fstatat+0x71/0xb0 ptr=ffff888100ceb000 name=names_cache\n"

/* Lines the fast path must leave to the careful parser, each after lines
 * that fill its memos with a near twin: read the same both ways, and the
 * line is not the fast path's. */
static void
test_fallbacks (void **state)
{
  (void) state;
  static const char *const lines[] = {
    /* a task name with a bracket before the CPU */
    "  kworker/[x]-4314    [000] .....   294.738521: kmem_cache_free: call_site=a+0x1/0x2 ptr=ffff888100ceb000 name=n\n",
    /* "[-1]" first: a bad CPU field unless a good one follows */
    "  a-1 [-1] b [001] .....   294.738521: kmem_cache_free: call_site=a+0x1/0x2 ptr=ffff888100ceb000 name=n\n",
    "  record-kmem.sh-4314    [-01] .....   294.738521: kmem_cache_free: call_site=a+0x1/0x2 ptr=ffff888100ceb000 name=n\n",
    /* a CPU of eight digits, of 2^31 */
    "  record-kmem.sh-4314    [12345678] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    "  record-kmem.sh-4314    [2147483648] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    /* a tab before the task */
    "\trecord-kmem.sh-4314    [000] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    /* timestamps: no fraction, an empty one, ten fraction digits, eleven
     * and twenty second digits, a letter */
    "  record-kmem.sh-4314    [000] .....   294: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000 name=n\n",
    "  record-kmem.sh-4314    [000] .....   294.: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000 name=n\n",
    "  record-kmem.sh-4314    [000] .....   294.1234567891: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    "  record-kmem.sh-4314    [000] .....   12345678901.5: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    "  record-kmem.sh-4314    [000] .....   99999999999999999999.5: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    "  record-kmem.sh-4314    [000] .....   294.73x521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    /* the timestamp as the fourth token */
    "  record-kmem.sh-4314    [000] a b c 294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    /* events we do not read, a LOST marker */
    "  record-kmem.sh-4314    [000] .....   294.738521: sched_switch: prev_comm=a prev_pid=1 next_comm=b\n",
    "  record-kmem.sh-4314    [000] .....   294.738521: foo:kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000\n",
    "CPU:0 [LOST 123 EVENTS]                                                         \n",
    /* empty values, a module name after a %pS, keys twice */
    "  record-kmem.sh-4314    [000] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=  (null)\n",
    "  record-kmem.sh-4314    [000] .....   294.738521: kfree: call_site=xfs_foo+0x12/0x40 [xfs] ptr=ffff888100ceb000\n",
    "  record-kmem.sh-4314    [000] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000 ptr=ffff888100ceb008\n",
    "  record-kmem.sh-4314    [000] .....   294.738521: kmem_cache_free: call_site=vfs_fstatat+0x71/0xb0 ptr=ffff888100ceb000 name=names_cache name=filp\n",
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false name=x\n",
    /* bad values: errors, or skipped and counted when lenient */
    "  record-kmem.sh-4314    [000] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff88810Xceb000\n",
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=40a6 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false\n",
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=99999999999999999999 gfp_flags=GFP_KERNEL node=-1 accounted=false\n",
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=maybe\n",
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=x accounted=false\n",
    "  record-kmem.sh-4314    [000] .....   294.738521: mm_page_alloc: page=ffffea00050d4ec0 pfn=0x14353b order=-1 migratetype=1 gfp_flags=GFP_USER\n",
    /* a field missing */
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false\n",
    "  record-kmem.sh-4314    [000] .....   294.738521: kfree: call_site=a+0x1/0x2 ptrx=ffff888100ceb000\n",
    /* too short for the fast path */
    "a-1 [0] 1.5: kfree: ptr=1\n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *text = g_strconcat (HDR, ALLOC, FREE, ALLOC, FREE, lines[i], ALLOC, NULL);
      guint64 fast = check_text (text, strlen (text), lines[i]);
      if (fast != 5)
        {
          print_error ("%s: the fast path read %" G_GUINT64_FORMAT " lines\n", lines[i], fast);
          fail ();
        }
      g_autofree char *alone = g_strconcat (HDR, ALLOC, lines[i], NULL);
      g_assert_cmpuint (check_text (alone, strlen (alone), lines[i]), ==, 1);
    }
}

/* Lines the fast path reads, with their edges: a value at the end of the
 * line, a line ending exactly where the read buffer does (nothing after it
 * is readable: ASan and valgrind see a read past it), a truncated last line. */
static void
test_edges (void **state)
{
  (void) state;
  static const char *const lines[] = {
    /* the last field's value ends the line: no 16 bytes after it */
    "  record-kmem.sh-4314    [000] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000",
    "  record-kmem.sh-4314    [000] .....   294.738521: kmem_cache_free: call_site=a+0x1/0x2 ptr=ffff888100ceb000 name=n",
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=g+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=1",
    "            perf 31103 [001]  1637.361340:            kmem:kfree: call_site=sched_setaffinity+0x17b ptr=0xffff88810442be80",
    " sched-messaging-12621 [000] 23897.752814610: kmem_cache_free:      (__fput+0x141) call_site=__fput+0x141 ptr=0xffff8881ac320bb8 name=lsm_file_cache",
    "         slabsim-21741   [000] ..... 13821.127066: mm_page_alloc: page=ffffea0004dd1a00 pfn=0x137468 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP",
    "         slabsim-21741   [000] ..... 13821.127066: mm_page_free: page=ffffea0004dd1a00 pfn=1258600 order=10",
    /* a truncated last line: an error (or a skipped line) both ways */
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff8881",
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=4",
    "  record-kmem.sh-4314    [000] .....   294.7385",
    /* a task of only digits, pid/tid, no task */
    "    4314    [000] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000",
    "     perf 31103/31104 [001]  1637.361340:  kmem:kfree: call_site=sched_setaffinity+0x17b ptr=0xffff88810442be80",
    "              [001]  1637.361340:  kmem:kfree: call_site=sched_setaffinity+0x17b ptr=0xffff88810442be80",
    "  a-99999999999999999999    [000] .....   294.738521: kfree: call_site=a+0x1/0x2 ptr=ffff888100ceb000",
  };
  /* a buffer of READ_CHUNK (reader.c) bytes exactly: 1 MiB */
  const gsize chunk = 1u << 20;
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *text = g_strconcat (HDR, ALLOC, FREE, lines[i], NULL);
      check_text (text, strlen (text), lines[i]);
      /* the same line ending the first read buffer, and, with a newline, the
       * whole input at exactly its size */
      for (int nl = 0; nl < 2; nl++)
        {
          gsize ll = strlen (lines[i]) + nl;
          GString *big = g_string_new (HDR);
          while (big->len + strlen (ALLOC) + ll <= chunk)
            g_string_append (big, ALLOC);
          while (big->len + ll < chunk)
            g_string_append_c (big, '#');   /* lengthen the last comment */
          if (big->str[big->len - 1] == '#')
            big->str[big->len - 1] = '\n';
          g_string_append (big, lines[i]);
          if (nl)
            g_string_append_c (big, '\n');
          g_assert_cmpuint (big->len, ==, chunk);
          check_text (big->str, big->len, lines[i]);
          g_string_free (big, TRUE);
        }
    }
}

/* Every byte of lines of each shape changed, one at a time, into a few
 * others, the changed line between two copies of the line itself (the
 * first fills the memos, the second must not be read from what the changed
 * line left in them). */
static void
test_near_misses (void **state)
{
  (void) state;
  static const char *const bases[] = {
    "  record-kmem.sh-4314    [000] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false",
    "  record-kmem.sh-4314    [000] .....   294.738521: kmem_cache_free: call_site=vfs_fstatat+0x71/0xb0 ptr=ffff888100ceb000 name=names_cache",
    "            perf 31103 [000]  1637.361225:          kmem:kmalloc: call_site=sched_setaffinity+0x127 ptr=0xffff88810442be80 bytes_req=32 bytes_alloc=32 gfp_flags=GFP_KERNEL node=-1 accounted=false",
    " sched-messaging-12621 [000] 23897.752814610: kmem_cache_free:      (__fput+0x141) call_site=__fput+0x141 ptr=0xffff8881ac320bb8 name=lsm_file_cache",
    "         slabsim-21741   [000] ..... 13821.127060: mm_page_alloc: page=ffffea00050d4ec0 pfn=0x14353b order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_ZERO|__GFP_COMP",
    "       record.sh-21802   [001] ..... 13821.127062: mm_page_free: page=ffffea00050d4ec0 pfn=1324347 order=0",
  };
  static const char subst[] = { ' ', '=', '[', 'x', '0' };
  guint64 fast = 0, n = 0;
  for (guint bi = 0; bi < G_N_ELEMENTS (bases); bi++)
    {
      const char *base = bases[bi];
      gsize len = strlen (base);
      for (gsize at = 0; at < len; at++)
        {
          GString *t = g_string_new (HDR);
          g_string_append_printf (t, "%s\n", base);
          char c = base[at];
          char next = g_ascii_isalnum (c) ? (c == '9' ? '0' : c == 'z' ? 'a' : c == 'Z' ? 'A'
                                             : (char) (c + 1)) : 'q';
          char variants[G_N_ELEMENTS (subst) + 1];
          variants[0] = next;
          memcpy (variants + 1, subst, sizeof subst);
          for (guint vi = 0; vi < G_N_ELEMENTS (variants); vi++)
            {
              if (variants[vi] == c)
                continue;
              gsize mark = t->len;
              g_string_append_printf (t, "%s\n%s\n", base, base);
              t->str[mark + at] = variants[vi];
              n++;
            }
          g_autofree char *what = g_strdup_printf ("%s, byte %" G_GSIZE_FORMAT, base, at);
          fast += check_text (t->str, t->len, what);
          g_string_free (t, TRUE);
        }
    }
  print_message ("# %" G_GUINT64_FORMAT " changed lines, %" G_GUINT64_FORMAT
                 " lines read by the fast path\n", n, fast);
  assert_true (fast > n);
}

/* Mutations of every sample's lines, each among unmutated lines of its
 * sample (which fill the memos with its near twins). */
static void
test_mutations (void **state)
{
  (void) state;
  static const char pool[] = " \t[]:=.-/x0189afAF()#,|_\x80\xff\r";
  GRand *rng = g_rand_new_with_seed (12);
  guint64 lines = 0, fast = 0;
  for (guint si = 0; si < G_N_ELEMENTS (text_samples); si++)
    {
      g_autofree char *path = tu_source_path (text_samples[si]);
      g_autoptr (GBytes) b = sample_text (path);
      assert_non_null (b);
      gsize n;
      const char *data = g_bytes_get_data (b, &n);
      /* a few hundred lines from the start of the events */
      g_autoptr (GPtrArray) pick = g_ptr_array_new_with_free_func (g_free);
      const char *p = data, *e = data + n;
      while (p < e && pick->len < 400)
        {
          const char *nl = memchr (p, '\n', e - p);
          const char *le = nl ? nl : e;
          if (le > p && *p != '#' && le - p > 20)
            g_ptr_array_add (pick, g_strndup (p, le - p));
          p = le + 1;
        }
      for (guint round = 0; round < 60; round++)
        {
          GString *t = g_string_new (HDR);
          for (guint j = 0; j < 60; j++)
            {
              const char *base = pick->pdata[g_rand_int_range (rng, 0, pick->len)];
              GString *l = g_string_new (base);
              guint edits = g_rand_int_range (rng, 0, 4);
              for (guint k = 0; k < edits && l->len > 0; k++)
                {
                  gsize at = g_rand_int_range (rng, 0, l->len);
                  char c = pool[g_rand_int_range (rng, 0, sizeof pool - 1)];
                  switch (g_rand_int_range (rng, 0, 9))
                    {
                    case 0: l->str[at] = c; break;
                    case 1: g_string_insert_c (l, at, c); break;
                    case 2: g_string_erase (l, at, 1); break;
                    case 3:
                      {
                        /* a letter or digit changed into another: a line
                         * that still reads, a near miss of a memo */
                        char d = l->str[at];
                        if (g_ascii_isdigit (d))
                          l->str[at] = d == '0' ? '9' : (char) (d - 1);
                        else if (g_ascii_islower (d))
                          l->str[at] = d == 'a' ? 'f' : (char) (d - 1);
                        else if (g_ascii_isupper (d))
                          l->str[at] = d == 'A' ? 'Z' : (char) (d - 1);
                      }
                      break;
                    case 4:
                      {
                        /* a field repeated at the end, or the line cut */
                        const char *sp = strrchr (l->str, ' ');
                        if (sp && g_rand_boolean (rng))
                          {
                            g_autofree char *f = g_strdup (sp);
                            g_string_append (l, f);
                          }
                        else
                          g_string_truncate (l, at);
                      }
                      break;
                    case 5:
                      g_string_insert (l, at, "  ");
                      break;
                    default:
                      /* (mostly) the near misses */
                      {
                        char d = l->str[at];
                        if (g_ascii_isdigit (d))
                          l->str[at] = d == '9' ? '0' : (char) (d + 1);
                        else if (g_ascii_isalpha (d) && d != 'z' && d != 'Z')
                          l->str[at] = (char) (d + 1);
                      }
                      break;
                    }
                }
              g_string_append_len (t, l->str, l->len);
              g_string_append_c (t, '\n');
              g_string_free (l, TRUE);
              lines++;
            }
          /* the last line unterminated half of the time */
          if (g_rand_boolean (rng))
            g_string_truncate (t, t->len - 1);
          g_autofree char *what = g_strdup_printf ("%s round %u", text_samples[si], round);
          fast += check_text (t->str, t->len, what);
          g_string_free (t, TRUE);
        }
    }
  g_rand_free (rng);
  /* the memos and the fast path were exercised, not bypassed */
  print_message ("# %" G_GUINT64_FORMAT " mutated lines, %" G_GUINT64_FORMAT
                 " read by the fast path\n", lines, fast);
  assert_true (fast > lines / 10);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_samples),
    cmocka_unit_test (test_fallbacks),
    cmocka_unit_test (test_edges),
    cmocka_unit_test (test_near_misses),
    cmocka_unit_test (test_mutations),
  };
  return cmocka_run_group_tests_name ("trace-fast", tests, NULL, NULL);
}
