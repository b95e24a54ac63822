/* test-din.c - the din reader (models/cache/din.h): the fast path (lines of
 * the common shape, hex addresses converted sixteen bytes at a time) agrees
 * with the line parser on random lines of every shape; batched reading, with
 * and without its reader thread, hands over exactly the data records of
 * sim_din_read in order, stops when the consumer fails, and reports a bad
 * line or CPU at its line after everything before it; a plain file that
 * shrinks while it is read is an error, not a SIGBUS. */
#include "tests/testutil.h"
#include "models/cache/din.h"

#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

typedef struct {
  GArray *recs;     /* SimDinRecord */
  GArray *lines;    /* guint64 */
} Collected;

static gboolean
collect (const SimDinRecord *rec, guint64 line, gpointer user_data, GError **error)
{
  Collected *c = user_data;
  (void) error;
  g_array_append_val (c->recs, *rec);
  g_array_append_val (c->lines, line);
  return TRUE;
}

/* A random field of hex digits: mostly well formed, sometimes long, empty
 * or with a character that is not a digit, in either case. */
static void
random_hex (GString *s, GRand *r, guint max)
{
  static const char digits[] = "0123456789abcdefABCDEF";
  static const char odd[] = "gGxX:/@`{ \t-";
  guint n = (guint) g_rand_int_range (r, 0, 10) == 0 ? (guint) g_rand_int_range (r, 0, 20)
                                                     : (guint) g_rand_int_range (r, 1, max + 1);
  if (g_rand_int_range (r, 0, 20) == 0)
    g_string_append (s, "0x");
  for (guint i = 0; i < n; i++)
    {
      if (g_rand_int_range (r, 0, 200) == 0)
        g_string_append_c (s, odd[g_rand_int_range (r, 0, sizeof odd - 1)]);
      else if (g_rand_int_range (r, 0, 300) == 0)
        g_string_append_c (s, (char) g_rand_int_range (r, 0x80, 0x100));
      else
        g_string_append_c (s, digits[g_rand_int_range (r, 0, sizeof digits - 1)]);
    }
}

/* One random line, without its newline. */
static void
random_line (GString *s, GRand *r)
{
  static const char ops[] = "rwim012x";
  g_string_truncate (s, 0);
  if (g_rand_int_range (r, 0, 100) == 0)
    {
      g_string_append (s, g_rand_boolean (r) ? "# comment" : "");
      return;
    }
  g_string_append_c (s, ops[g_rand_int_range (r, 0, g_rand_int_range (r, 0, 50) ? 7 : 8)]);
  g_string_append (s, g_rand_int_range (r, 0, 50) ? " " : "  ");
  random_hex (s, r, 16);
  g_string_append_c (s, ' ');
  random_hex (s, r, g_rand_int_range (r, 0, 4) ? 2 : 9);
  if (g_rand_boolean (r))
    g_string_append_printf (s, " %u", g_rand_int_range (r, 0, 4)
                                      ? (guint32) g_rand_int_range (r, 0, 16) : g_rand_int (r));
  if (g_rand_int_range (r, 0, 100) == 0)
    g_string_append (s, " 7");
}

static void
assert_same_record (const SimDinRecord *a, const SimDinRecord *b)
{
  assert_int_equal (a->op, b->op);
  assert_int_equal (a->addr, b->addr);
  assert_int_equal (a->size, b->size);
  assert_int_equal (a->cpu, b->cpu);
}

/* Each random line alone, followed by enough good lines that the reader's
 * fast path sees it, must read as sim_din_parse_line reads it. */
static void
test_fast_path_matches_line_parser (void **state)
{
  (void) state;
  g_autoptr (GRand) r = g_rand_new_with_seed (20261201);
  GString *line = g_string_new (NULL);
  g_autofree char *path = NULL;
  for (guint round = 0; round < 1500; round++)
    {
      GString *text = g_string_new (NULL);
      SimDinRecord want[8];
      int want_r[8];
      const char *what[8];
      for (guint i = 0; i < 8; i++)
        {
          random_line (line, r);
          what[i] = NULL;
          want_r[i] = sim_din_parse_line (line->str, line->str + line->len, &want[i], &what[i]);
          g_string_append_len (text, line->str, (gssize) line->len);
          g_string_append_c (text, '\n');
        }
      /* The fast path needs 48 bytes after a line's start. */
      g_string_append (text, "r 0 1\nr 0 1\nr 0 1\nr 0 1\nr 0 1\nr 0 1\nr 0 1\nr 0 1\nr 0 1\n");
      g_free (path);
      path = tu_write_temp (".din", text->str, (gssize) text->len);
      Collected c = { g_array_new (FALSE, FALSE, sizeof (SimDinRecord)),
                      g_array_new (FALSE, FALSE, sizeof (guint64)) };
      g_autoptr (GError) err = NULL;
      gboolean ok = sim_din_read (path, collect, &c, NULL, &err);
      guint k = 0, i;
      for (i = 0; i < 8 && want_r[i] >= 0; i++)
        if (want_r[i] == 0)
          {
            assert_true (k < c.recs->len);
            assert_same_record (&g_array_index (c.recs, SimDinRecord, k), &want[i]);
            assert_int_equal (g_array_index (c.lines, guint64, k), i + 1);
            k++;
          }
      if (i < 8)
        {
          /* The first bad line stops the read with its line and reason. */
          assert_false (ok);
          assert_int_equal (k, c.recs->len);
          g_autofree char *at = g_strdup_printf (":%u: expected %s", i + 1, what[i]);
          tu_assert_contains (err->message, at);
        }
      else
        {
          assert_true (ok);
          assert_int_equal (c.recs->len, k + 9);
        }
      g_array_free (c.recs, TRUE);
      g_array_free (c.lines, TRUE);
      g_string_free (text, TRUE);
      g_unlink (path);
    }
  g_string_free (line, TRUE);
}

/* A trace of @n lines over several batches and ring turns: mixed shapes
 * (fast and slow path), comments, blank lines, instruction fetches. */
static char *
mixed_trace (guint n, guint n_cpus, guint bad_at, const char *bad)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (7);
  GString *s = g_string_new (NULL);
  for (guint i = 1; i <= n; i++)
    {
      if (i == bad_at)
        {
          g_string_append (s, bad);
          continue;
        }
      guint64 a = ((guint64) g_rand_int (r) << 12) ^ g_rand_int (r);
      guint k = (guint) g_rand_int_range (r, 0, 100);
      guint cpu = (guint) g_rand_int_range (r, 0, n_cpus);
      if (k < 2)
        g_string_append (s, k ? "\n" : "# comment\n");
      else if (k < 12)
        g_string_append_printf (s, "i %" G_GINT64_MODIFIER "x 4\n", a);
      else if (k < 16)
        g_string_append_printf (s, "m\t0x%" G_GINT64_MODIFIER "X  8  %u\n", a, cpu);
      else if (k < 50)
        g_string_append_printf (s, "w %" G_GINT64_MODIFIER "x %x %u\n", a, 1 + k % 16, cpu);
      else
        g_string_append_printf (s, "%c %" G_GINT64_MODIFIER "x 8\n", k & 1 ? 'r' : '0', a);
    }
  return g_string_free (s, FALSE);
}

typedef struct {
  GArray  *refs;        /* SimMemRef */
  guint64  ifetch, n_kind[SIM_ACC_N];
  gsize    fail_after;  /* fail when this many refs were seen (0: never) */
  guint    batches;
  const char *shrink;   /* truncate this file on the first batch ... */
  gsize    shrink_to;   /* ... to this many bytes */
} Gathered;

static gboolean
gather (const SimDinBatch *b, gpointer user_data, GError **error)
{
  Gathered *g = user_data;
  g->batches++;
  g_array_append_vals (g->refs, b->ref, (guint) b->n);
  g->ifetch += b->ifetch;
  guint64 sum = 0;
  for (guint k = 0; k < SIM_ACC_N; k++)
    {
      g->n_kind[k] += b->n_kind[k];
      sum += b->n_kind[k];
    }
  assert_int_equal (sum, b->n);
  if (g->shrink && g->batches == 1)
    assert_int_equal (truncate (g->shrink, (off_t) g->shrink_to), 0);
  if (g->fail_after && g->refs->len >= g->fail_after)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "consumer stops after %u",
                   g->refs->len);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_batches (const char *path, guint threads, gboolean cpu_zero, Gathered *g,
              guint64 *n_lines, GError **error)
{
  SimDinBatchOptions opt = { threads, 16, cpu_zero };
  memset (g, 0, sizeof *g);
  g->refs = g_array_new (FALSE, FALSE, sizeof (SimMemRef));
  return sim_din_read_batches (path, &opt, gather, g, n_lines, error);
}

/* The batches of the trace at @path (@lines lines), with and without the
 * reader thread, with and without cpu_zero, against sim_din_read's records
 * (which go through the stream and its buffer). */
static void
check_batches_equal_records (const char *path, guint64 n)
{
  Collected c = { g_array_new (FALSE, FALSE, sizeof (SimDinRecord)),
                  g_array_new (FALSE, FALSE, sizeof (guint64)) };
  guint64 lines = 0;
  assert_true (sim_din_read (path, collect, &c, &lines, NULL));
  assert_int_equal (lines, n);
  for (guint threads = 1; threads <= 2; threads++)
    for (guint cz = 0; cz < 2; cz++)
      {
        Gathered g;
        guint64 bl = 0;
        g_autoptr (GError) err = NULL;
        assert_true (read_batches (path, threads, cz, &g, &bl, &err));
        assert_int_equal (bl, lines);
        assert_true (g.batches > 8 * 2);   /* the ring turned */
        guint64 ifetch = 0, kind[SIM_ACC_N] = { 0 };
        guint k = 0;
        for (guint i = 0; i < c.recs->len; i++)
          {
            const SimDinRecord *rec = &g_array_index (c.recs, SimDinRecord, i);
            if (rec->op == SIM_DIN_IFETCH)
              {
                ifetch++;
                continue;
              }
            assert_true (k < g.refs->len);
            const SimMemRef *ref = &g_array_index (g.refs, SimMemRef, k++);
            assert_int_equal (ref->addr, rec->addr);
            assert_int_equal (ref->size, rec->size);
            assert_int_equal (ref->cpu, cz ? 0 : rec->cpu);
            assert_int_equal (ref->kind, (guint) rec->op);
            kind[rec->op]++;
          }
        assert_int_equal (k, g.refs->len);
        assert_int_equal (ifetch, g.ifetch);
        for (guint i = 0; i < SIM_ACC_N; i++)
          assert_int_equal (kind[i], g.n_kind[i]);
        g_array_free (g.refs, TRUE);
      }
  g_array_free (c.recs, TRUE);
  g_array_free (c.lines, TRUE);
}

static void
test_batches_equal_records (void **state)
{
  (void) state;
  g_autofree char *text = mixed_trace (100000, 16, 0, NULL);
  g_autofree char *path = tu_write_temp (".din", text, -1);
  check_batches_equal_records (path, 100000);
  g_unlink (path);
}

/* din.c's stream buffer: a line this long or longer is an error. */
#define DIN_BUF (1u << 20)

/* Batched reading of a plain file parses it from a mapping, a window of
 * 4 MiB at a time: a trace over several windows (lines across their ends)
 * reads as through the stream, and a line of DIN_BUF bytes or more is the
 * same error at the same line, where it starts in one window and ends in
 * the next too; a line one byte shorter is read. */
static void
test_mapped_as_stream (void **state)
{
  (void) state;
  g_autofree char *text = mixed_trace (700000, 16, 0, NULL);
  assert_true (strlen (text) > 2 * (4u << 20));   /* three windows */
  g_autofree char *path = tu_write_temp (".din", text, -1);
  check_batches_equal_records (path, 700000);
  g_unlink (path);
  /* Long lines: blanks before a record, or a comment, of @len bytes in all
   * (without the newline), at line 200001, about 3.6 MB in (its end in the
   * second window when it is long), or as the last line without its
   * newline. */
  for (guint last = 0; last < 2; last++)
    for (guint len = DIN_BUF - 1; len <= DIN_BUF + 1; len++)
      for (guint comment = 0; comment < 2; comment++)
        {
          g_autofree char *head = mixed_trace (200000, 16, 0, NULL);
          GString *t = g_string_new (head);
          gsize start = t->len;
          if (comment)
            g_string_append_c (t, '#');
          g_string_append_printf (t, "%*s", (int) (len - (t->len - start) - 6), "");
          g_string_append (t, "r 10 8");
          assert_int_equal (t->len - start, len);
          if (!last)
            g_string_append (t, "\nw 20 4\n");
          g_autofree char *p = tu_write_temp (".din", t->str, (gssize) t->len);
          Collected c = { g_array_new (FALSE, FALSE, sizeof (SimDinRecord)),
                          g_array_new (FALSE, FALSE, sizeof (guint64)) };
          g_autoptr (GError) serr = NULL;
          gboolean sok = sim_din_read (p, collect, &c, NULL, &serr);
          assert_true (sok == (len < DIN_BUF));
          if (!sok)
            {
              g_autofree char *want = g_strdup_printf ("%s:200001: line longer than %u bytes",
                                                       p, DIN_BUF);
              assert_string_equal (serr->message, want);
            }
          for (guint threads = 1; threads <= 2; threads++)
            {
              Gathered g;
              g_autoptr (GError) err = NULL;
              gboolean ok = read_batches (p, threads, FALSE, &g, NULL, &err);
              assert_true (ok == sok);
              if (!ok)
                assert_string_equal (err->message, serr->message);
              guint data = 0;
              for (guint i = 0; i < c.recs->len; i++)
                data += g_array_index (c.recs, SimDinRecord, i).op != SIM_DIN_IFETCH;
              assert_int_equal (g.refs->len, data);
              if (ok)
                {
                  const SimMemRef *x = &g_array_index (g.refs, SimMemRef, g.refs->len - 1);
                  assert_int_equal (x->addr, last ? (comment ? x->addr : 0x10) : 0x20);
                }
              g_array_free (g.refs, TRUE);
            }
          g_array_free (c.recs, TRUE);
          g_array_free (c.lines, TRUE);
          g_string_free (t, TRUE);
          g_unlink (p);
        }
}

/* A bad line (or a CPU out of range) deep in the trace: the same message
 * with and without the thread, and every data record before it handed over. */
static void
expect_error_at (guint bad_at, const char *bad, const char *msg)
{
  g_autofree char *text = mixed_trace (60000, 16, bad_at, bad);
  g_autofree char *path = tu_write_temp (".din", text, -1);
  Collected c = { g_array_new (FALSE, FALSE, sizeof (SimDinRecord)),
                  g_array_new (FALSE, FALSE, sizeof (guint64)) };
  (void) sim_din_read (path, collect, &c, NULL, NULL);
  guint before = 0;
  for (guint i = 0; i < c.recs->len; i++)
    if (g_array_index (c.lines, guint64, i) < bad_at
        && g_array_index (c.recs, SimDinRecord, i).op != SIM_DIN_IFETCH)
      before++;
  g_autofree char *want = g_strdup_printf ("%s:%u: expected %s", path, bad_at, msg);
  for (guint threads = 1; threads <= 2; threads++)
    {
      Gathered g;
      g_autoptr (GError) err = NULL;
      assert_false (read_batches (path, threads, FALSE, &g, NULL, &err));
      assert_non_null (err);
      assert_string_equal (err->message, want);
      assert_int_equal (g.refs->len, before);
      g_array_free (g.refs, TRUE);
    }
  g_array_free (c.recs, TRUE);
  g_array_free (c.lines, TRUE);
  g_unlink (path);
}

static void
test_errors_at_their_line (void **state)
{
  (void) state;
  expect_error_at (45678, "r 12 zz\n", "a hexadecimal size between 1 and ffffffff");
  expect_error_at (3, "q 12 4\n", "an operation r, w, i, m (or Dinero's 0, 1, 2)");
  expect_error_at (59999, "w 1000 8 16\n",
                   "a CPU below 16 (the machine's CPU count), got 16");
  expect_error_at (20001, "r 1000 8 99999\n",
                   "a CPU below 16 (the machine's CPU count), got 99999");
}

/* The consumer fails part-way: its error comes back, the reader (thread)
 * stops, nothing leaks (the ASan build runs this too). */
static void
test_consumer_failure_stops_reader (void **state)
{
  (void) state;
  g_autofree char *text = mixed_trace (200000, 16, 150000, "r bad 8\n");
  g_autofree char *path = tu_write_temp (".din", text, -1);
  for (guint threads = 1; threads <= 2; threads++)
    for (gsize after = 1; after <= 100000; after *= 100)
      {
        Gathered g;
        SimDinBatchOptions opt = { threads, 16, FALSE };
        memset (&g, 0, sizeof g);
        g.refs = g_array_new (FALSE, FALSE, sizeof (SimMemRef));
        g.fail_after = after;
        g_autoptr (GError) err = NULL;
        assert_false (sim_din_read_batches (path, &opt, gather, &g, NULL, &err));
        assert_non_null (err);
        /* The consumer's error, not the bad line's that follows it. */
        tu_assert_contains (err->message, "consumer stops after");
        assert_true (g.refs->len >= after && g.refs->len < after + 4096);
        g_array_free (g.refs, TRUE);
      }
  g_unlink (path);
}

/* The window hook (din.h): truncate the file before its second window. */
typedef struct {
  const char *path;
  gsize       to;
  guint       calls;
} Shrink;

static void
shrink_before_window (const char *name, guint64 offset, gpointer user_data)
{
  Shrink *sh = user_data;
  (void) name;
  sh->calls++;
  if (offset > 0 && sh->calls == 2)
    assert_int_equal (truncate (sh->path, (off_t) sh->to), 0);
}

/* A trace of @text truncated to @to bytes while it is read: by the
 * consumer on its first batch (@by_hook FALSE: the reader is then inside
 * the first window, at most a ring of batches ahead, and runs into the
 * pages past the new end: without din.c's SIGBUS handler the process
 * dies), or before the second window (the fstat there).  Either way, with
 * and without the reader thread: the error names the file and the byte
 * @at, the start of the first line not handed over, and the records
 * handed over are exactly those of the lines before @at. */
static void
expect_shrink (const char *text, gsize to, gboolean by_hook, gsize at)
{
  g_autofree char *head_path = tu_write_temp (".din", text, (gssize) at);
  Gathered want;
  assert_true (read_batches (head_path, 1, FALSE, &want, NULL, NULL));
  for (guint threads = 1; threads <= 2; threads++)
    {
      g_autofree char *path = tu_write_temp (".din", text, -1);
      Gathered g;
      SimDinBatchOptions opt = { threads, 16, FALSE };
      memset (&g, 0, sizeof g);
      g.refs = g_array_new (FALSE, FALSE, sizeof (SimMemRef));
      Shrink sh = { path, to, 0 };
      if (by_hook)
        sim_din_set_window_hook (shrink_before_window, &sh);
      else
        {
          g.shrink = path;
          g.shrink_to = to;
        }
      g_autoptr (GError) err = NULL;
      gboolean ok = sim_din_read_batches (path, &opt, gather, &g, NULL, &err);
      sim_din_set_window_hook (NULL, NULL);
      assert_false (ok);
      g_autofree char *msg = g_strdup_printf ("%s: file shrank while being read (at byte %"
                                              G_GSIZE_FORMAT "; %" G_GSIZE_FORMAT
                                              " bytes when opened, %" G_GSIZE_FORMAT " now)",
                                              path, at, strlen (text), to);
      assert_string_equal (err->message, msg);
      assert_int_equal (g.refs->len, want.refs->len);
      assert_memory_equal (g.refs->data, want.refs->data, want.refs->len * sizeof (SimMemRef));
      assert_int_equal (g.ifetch, want.ifetch);
      g_array_free (g.refs, TRUE);
      g_unlink (path);
    }
  g_array_free (want.refs, TRUE);
  g_unlink (head_path);
}

/* Where the line holding byte @x starts. */
static gsize
line_start (const char *text, gsize x)
{
  while (x > 0 && text[x - 1] != '\n')
    x--;
  return x;
}

static void
test_shrinking_file (void **state)
{
  (void) state;
  g_autofree char *text = mixed_trace (700000, 16, 0, NULL);
  gsize len = strlen (text), window = 4u << 20;
  assert_true (len > 2 * window);
  /* In the first window, inside a line and at a line's start. */
  gsize x = 2000003;
  expect_shrink (text, x, FALSE, line_start (text, x));
  expect_shrink (text, line_start (text, x), FALSE, line_start (text, x));
  /* Before the second window: to a size inside it; to one the reader has
   * passed (the error at the line the first window ended in). */
  x = window + 1500007;
  expect_shrink (text, x, TRUE, line_start (text, x));
  expect_shrink (text, 1000, TRUE, line_start (text, window));
  /* One window; inside its last page, which the kernel zero-fills past the
   * new end without a fault: the parse stops at the zeros, and the fstat
   * after it says why. */
  g_autofree char *small = mixed_trace (100000, 16, 0, NULL);
  gsize slen = strlen (small), last_page = (slen - 1) & ~(gsize) 4095;
  x = last_page + (slen - last_page) / 2;
  expect_shrink (small, x, FALSE, line_start (small, x));
}

static void
test_empty_and_missing (void **state)
{
  (void) state;
  g_autofree char *path = tu_write_temp (".din", "# nothing\n\n", -1);
  for (guint threads = 1; threads <= 2; threads++)
    {
      Gathered g;
      guint64 lines = 0;
      assert_true (read_batches (path, threads, TRUE, &g, &lines, NULL));
      assert_int_equal (lines, 2);
      assert_int_equal (g.refs->len, 0);
      g_array_free (g.refs, TRUE);
      g_autoptr (GError) err = NULL;
      assert_false (read_batches ("/nonexistent/t.din", threads, TRUE, &g, NULL, &err));
      tu_assert_contains (err->message, "/nonexistent/t.din: ");
      g_array_free (g.refs, TRUE);
    }
  g_unlink (path);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fast_path_matches_line_parser),
    cmocka_unit_test (test_batches_equal_records),
    cmocka_unit_test (test_mapped_as_stream),
    cmocka_unit_test (test_errors_at_their_line),
    cmocka_unit_test (test_consumer_failure_stops_reader),
    cmocka_unit_test (test_shrinking_file),
    cmocka_unit_test (test_empty_and_missing),
  };
  return cmocka_run_group_tests_name ("cache-din", tests, NULL, NULL);
}
