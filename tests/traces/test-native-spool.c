/* test-native-spool.c - the spool variant of the native format
 * (traces/native.h): the events a spool holds read back exactly as the
 * public format gives them, in batches of any size and over block
 * boundaries, whichever fields repeat; corruption is named as in a public
 * file; the public writer still writes version 1. */
#include "tests/testutil.h"
#include "tests/traces/one-kmalloc.h"
#include "traces/reader.h"
#include "traces/native.h"

#include <string.h>

/* @n events of every kind whose fields take every varint length, and
 * repeat the previous event of the same kind's value about half the time
 * (so that records carry every mask), from seed @seed. */
static void
make_events (SimTraceEvent *evs, guint n, guint32 nstr, guint64 seed)
{
  guint64 x = seed;
  SimTraceEvent last[SIM_TRACE_N_KINDS];
  memset (last, 0, sizeof last);
  for (guint i = 0; i < n; i++)
    {
#define R() (x = x * 6364136223846793005u + 1442695040888963407u)
#define V(k) (R () >> (63 - ((i + (k)) % 64)))
#define PICK(k, fresh) ((R () >> 40) & 1 ? (fresh) : last[kind].k)
      SimTraceKind kind = (SimTraceKind) ((R () >> 33) % SIM_TRACE_N_KINDS);
      SimTraceEvent e = { 0 };
      e.kind = kind;
      e.cpu = PICK (cpu, i % 5 == 0 ? -1 : (gint32) (V (1) & G_MAXINT32));
      e.ts_ns = V (2);
      e.line = V (3);
      e.ptr = V (4);
      e.call_site_id = PICK (call_site_id, (guint32) (V (5) % (nstr + 1)));
      e.call_site = PICK (call_site, V (6));
      e.bytes_req = PICK (bytes_req, V (7));
      e.bytes_alloc = PICK (bytes_alloc, V (8));
      e.gfp = PICK (gfp, (guint32) V (9));
      e.gfp_id = PICK (gfp_id, (guint32) (V (10) % (nstr + 1)));
      e.cache_id = PICK (cache_id, (guint32) (V (11) % (nstr + 1)));
      e.comm_id = PICK (comm_id, (guint32) (V (12) % (nstr + 1)));
      e.pid = PICK (pid, (gint32) V (13));
      e.node = PICK (node, (gint32) V (14));
      e.order = PICK (order, (gint32) V (15));
      e.migratetype = PICK (migratetype, (gint32) V (16));
      e.accounted = PICK (accounted, (gint32) V (17));
      e.pfn = PICK (pfn, V (18));
#undef PICK
#undef V
#undef R
      evs[i] = e;
      last[kind] = e;
    }
}

static GBytes *
write_events (SimTraceReader *r, const SimTraceEvent *evs, guint n, gboolean spool)
{
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (SimNativeWriter) w = spool ? sim_native_writer_new_spool (mem, r, NULL)
                                        : sim_native_writer_new (mem, r, NULL);
  assert_non_null (w);
  /* in uneven pieces, as the spool is written a chunk at a time */
  for (guint i = 0; i < n;)
    {
      guint take = MIN (n - i, 1 + (i * 7919u) % 3000u);
      assert_true (sim_native_writer_add_many (w, evs + i, take, NULL));
      i += take;
    }
  assert_true (sim_native_writer_finish (w, NULL));
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
}

static SimTraceReader *
open_bytes (GBytes *b)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (b);
  GError *error = NULL;
  SimTraceReader *r = sim_trace_reader_new (in, "x.spool", SIM_TRACE_FORMAT_AUTO, &error);
  g_assert_no_error (error);
  assert_non_null (r);
  return r;
}

/* Read all of @b in batches of @batch (0: one at a time) into @got. */
static guint
read_all (GBytes *b, SimTraceEvent *got, guint cap, guint batch, GError **error)
{
  g_autoptr (SimTraceReader) r = open_bytes (b);
  guint k = 0;
  if (batch == 0)
    while (k < cap && sim_trace_reader_next (r, &got[k], error))
      k++;
  else
    while (k < cap && *error == NULL)
      {
        guint m = sim_trace_reader_next_n (r, got + k, MIN (batch, cap - k), error);
        if (m == 0)
          break;
        k += m;
      }
  return k;
}

static guint32
file_version (GBytes *b)
{
  const guint8 *d = g_bytes_get_data (b, NULL);
  return d[8] | d[9] << 8 | d[10] << 16 | (guint32) d[11] << 24;
}

static void
test_spool_reads_back (void **state)
{
  (void) state;
  g_autoptr (SimTraceReader) r = tt_one_kmalloc_reader (TRUE);
  const guint n = 3 * SIM_NATIVE_BLOCK_EVENTS + 321;
  g_autofree SimTraceEvent *evs = g_new (SimTraceEvent, n);
  g_autofree SimTraceEvent *want = g_new (SimTraceEvent, n + 1);
  g_autofree SimTraceEvent *got = g_new (SimTraceEvent, n + 1);
  for (guint64 seed = 1; seed <= 3; seed++)
    {
      make_events (evs, n, sim_trace_reader_n_strings (r), seed * 0x9e3779b97f4a7c15u);
      g_autoptr (GBytes) pub = write_events (r, evs, n, FALSE);
      g_autoptr (GBytes) spool = write_events (r, evs, n, TRUE);
      assert_int_equal (file_version (pub), 1);
      assert_int_equal (file_version (spool), SIM_NATIVE_SPOOL_VERSION);
      /* repeated fields are left out */
      assert_true (g_bytes_get_size (spool) < g_bytes_get_size (pub));
      GError *error = NULL;
      assert_int_equal (read_all (pub, want, n + 1, 4096, &error), n);
      g_assert_no_error (error);
      static const guint batches[] = { 0, 1, 3, 4095, 4096, 5000, 20000 };
      for (guint b = 0; b < G_N_ELEMENTS (batches); b++)
        {
          memset (got, 0xa5, sizeof *got * (n + 1));
          assert_int_equal (read_all (spool, got, n + 1, batches[b], &error), n);
          g_assert_no_error (error);
          for (guint i = 0; i < n; i++)
            if (memcmp (&want[i], &got[i], sizeof got[i]) != 0)
              {
                print_error ("seed %u batch %u: event %u differs\n", (guint) seed, batches[b], i);
                fail ();
              }
        }
    }
}

/* The first event block's payload, for corrupting (its CRC put right). */
static guint8 *
first_event_block (guint8 *d)
{
  guint8 *h = d + SIM_NATIVE_HEADER_SIZE;
  while (h[0] != SIM_NATIVE_BLOCK_EVENTS_TYPE)
    h += SIM_NATIVE_BLOCK_HEADER_SIZE + (h[4] | h[5] << 8 | h[6] << 16 | (guint32) h[7] << 24);
  return h;
}

static void
fix_crc (guint8 *h)
{
  guint32 len = h[4] | h[5] << 8 | h[6] << 16 | (guint32) h[7] << 24;
  guint32 c = sim_native_crc32 (0, h + SIM_NATIVE_BLOCK_HEADER_SIZE, len);
  h[12] = c, h[13] = c >> 8, h[14] = c >> 16, h[15] = c >> 24;
}

static char *
read_error (GBytes *b, guint batch, guint *k)
{
  const guint cap = 4 * SIM_NATIVE_BLOCK_EVENTS;
  g_autofree SimTraceEvent *got = g_new (SimTraceEvent, cap);
  GError *error = NULL;
  *k = read_all (b, got, cap, batch, &error);
  assert_non_null (error);
  char *msg = g_strdup (error->message);
  g_error_free (error);
  return msg;
}

/* A block that claims a record more than it holds, and a record whose
 * field mask names a field there is not, are errors naming block and
 * record, in any batch size. */
static void
test_spool_corrupt (void **state)
{
  (void) state;
  g_autoptr (SimTraceReader) r = tt_one_kmalloc_reader (TRUE);
  const guint n = SIM_NATIVE_BLOCK_EVENTS + 10;
  g_autofree SimTraceEvent *evs = g_new (SimTraceEvent, n);
  make_events (evs, n, sim_trace_reader_n_strings (r), 77);
  g_autoptr (GBytes) spool = write_events (r, evs, n, TRUE);
  gsize len;
  {
    guint8 *d = g_memdup2 (g_bytes_get_data (spool, &len), g_bytes_get_size (spool));
    first_event_block (d)[8]++;
    g_autoptr (GBytes) bad = g_bytes_new_take (d, len);
    for (guint batch = 0; batch <= 5000; batch += 2500)
      {
        guint k;
        g_autofree char *msg = read_error (bad, batch, &k);
        assert_int_equal (k, SIM_NATIVE_BLOCK_EVENTS);
        tu_assert_contains (msg, "x.spool: block 2 at byte ");
        tu_assert_contains (msg, "record 4096 runs past the end of the block");
      }
  }
  /* The first record replaced by one with a bad mask (the kind's bit) or
   * a word of more than 32 bits: kind 0, three zero deltas (prefix
   * varints 01), then the mask. */
  static const guint8 kind_bit[] = { 0, 1, 1, 1, 0x02, 0x04 };                /* 0x100 */
  static const guint8 wide[] = { 0, 1, 1, 1, 0x03, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                 0xff, 0xff };                                /* bit 0, 2^64-1 */
  static const struct { const guint8 *rec; gsize len; const char *msg; } cases[] = {
    { kind_bit, sizeof kind_bit,
      "record 0: expected a spool word mask below 0x100000 without bit 8, found 0x100" },
    { wide, sizeof wide, "record 0: expected a 32-bit spool word, found 18446744073709551615" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint8 *d = g_memdup2 (g_bytes_get_data (spool, &len), g_bytes_get_size (spool));
      guint8 *h = first_event_block (d);
      memcpy (h + SIM_NATIVE_BLOCK_HEADER_SIZE, cases[c].rec, cases[c].len);
      fix_crc (h);
      g_autoptr (GBytes) bad = g_bytes_new_take (d, len);
      guint k;
      g_autofree char *msg = read_error (bad, 100, &k);
      assert_int_equal (k, 0);
      tu_assert_contains (msg, cases[c].msg);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_spool_reads_back),
    cmocka_unit_test (test_spool_corrupt),
  };
  return cmocka_run_group_tests_name ("native-spool", tests, NULL, NULL);
}
