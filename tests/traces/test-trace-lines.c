/* test-trace-lines.c - every kernel era's line forms parse, in-process.
 *
 * Hand-written lines in the TP_printk formats of include/trace/events/kmem.h
 * (2.6.3x, 4.x/5.x, 6.x) and the prefixes of tracefs, trace-cmd report and
 * perf script; NULL spellings; LOST markers; hashed pointers. */
#include "tests/testutil.h"
#include "traces/reader.h"
#include "traces/account.h"
#include "sim/core/errors.h"

#include <string.h>

typedef struct {
  SimTraceReader *r;
  GArray *ev;
  SimTraceAccount *acc;
} Read;

static Read
read_all (const char *text, gboolean lenient)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (g_strdup (text), -1, g_free);
  GError *error = NULL;
  Read rd = { sim_trace_reader_new (in, "test.trace", SIM_TRACE_FORMAT_AUTO, &error),
              g_array_new (FALSE, TRUE, sizeof (SimTraceEvent)), sim_trace_account_new () };
  if (rd.r == NULL)
    {
      print_error ("open: %s\n", error->message);
      fail ();
    }
  sim_trace_reader_set_lenient (rd.r, lenient);
  SimTraceEvent e;
  while (sim_trace_reader_next (rd.r, &e, &error))
    {
      g_array_append_val (rd.ev, e);
      sim_trace_account_event (rd.acc, &e, NULL);
    }
  if (error)
    {
      print_error ("read: %s\n", error->message);
      fail ();
    }
  return rd;
}

static void
read_free (Read *rd)
{
  sim_trace_reader_free (rd->r);
  g_array_free (rd->ev, TRUE);
  sim_trace_account_free (rd->acc);
}

#define EV(rd, i) (&g_array_index ((rd).ev, SimTraceEvent, (i)))
#define STR(rd, id) sim_trace_reader_string ((rd).r, (id))

static void
test_2_6_3x (void **state)
{
  (void) state;
  Read rd = read_all (
    "# tracer: nop\n"
    "#\n"
    "#           TASK-PID    CPU#    TIMESTAMP  FUNCTION\n"
    "#              | |       |          |         |\n"
    "            bash-2013  [001]  1234.567890: kmalloc: call_site=ffffffff8110a2b3 ptr=ffff88003d8e4000 bytes_req=300 bytes_alloc=512 gfp_flags=GFP_KERNEL\n"
    "            bash-2013  [001]  1234.567891: kmalloc_node: call_site=ffffffff8110a2b3 ptr=ffff88003d8e4400 bytes_req=100 bytes_alloc=128 gfp_flags=GFP_KERNEL|GFP_ZERO node=0\n"
    "            bash-2013  [000]  1234.567892: kmem_cache_alloc_node: call_site=ffffffff81234567 ptr=ffff88003d8e5000 bytes_req=192 bytes_alloc=192 gfp_flags=GFP_ATOMIC node=1\n"
    "            bash-2013  [000]  1234.567892: kmem_cache_alloc: call_site=ffffffff81234567 ptr=ffff88003d8e5100 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_KERNEL|GFP_DMA\n"
    "            bash-2013  [001]  1234.567893: kfree: call_site=ffffffff8110a300 ptr=(null)\n"
    "            bash-2013  [000]  1234.567894: kmem_cache_free: call_site=ffffffff8110a300 ptr=ffff88003d8e5000\n"
    "            bash-2013  [001]  1234.567894: kfree: call_site=ffffffff8110a300 ptr=ffff88003d8e4000\n"
    "          <idle>-0     [000]  1234.567895: mm_page_free_direct: page=ffffea0000d6a1c0 pfn=3516935 order=0\n"
    "          <idle>-0     [000]  1234.567896: mm_pagevec_free: page=ffffea0000d6a200 pfn=3516936 order=0 cold=0\n"
    "          <idle>-0     [001]  1234.567897: mm_page_alloc: page=ffffea0000d6a1c0 pfn=3516935 order=1 migratetype=2 gfp_flags=GFP_KERNEL\n"
    "          <idle>-0     [001]  1234.567898: mm_page_pcpu_drain: page=ffffea0000d6a1c0 pfn=3516935 order=0 migratetype=1\n",
    FALSE);
  assert_int_equal (rd.ev->len, 11);
  SimTraceEvent *e = EV (rd, 0);
  assert_int_equal (e->kind, SIM_TRACE_KMALLOC);
  assert_int_equal (e->cpu, 1);
  assert_int_equal (e->pid, 2013);
  assert_string_equal (STR (rd, e->comm_id), "bash");
  assert_true (e->ts_ns == G_GUINT64_CONSTANT (1234567890000));
  assert_true (e->ptr == G_GUINT64_CONSTANT (0xffff88003d8e4000));
  assert_true (e->call_site == G_GUINT64_CONSTANT (0xffffffff8110a2b3));
  assert_int_equal (e->bytes_req, 300);
  assert_int_equal (e->bytes_alloc, 512);
  assert_int_equal (e->cache_id, 0);
  assert_int_equal (e->node, -1);
  assert_int_equal (e->accounted, -1);
  assert_string_equal (STR (rd, e->gfp_id), "GFP_KERNEL");
  assert_true (e->gfp & SIM_GFP (FS));
  assert_false (e->gfp & SIM_GFP (ZERO));
  assert_int_equal (e->line, 5);
  e = EV (rd, 1);
  assert_int_equal (e->kind, SIM_TRACE_KMALLOC_NODE);
  assert_int_equal (e->node, 0);
  assert_true (e->gfp & SIM_GFP (ZERO));
  e = EV (rd, 2);
  assert_int_equal (e->kind, SIM_TRACE_CACHE_ALLOC_NODE);
  assert_int_equal (e->node, 1);
  assert_true (e->gfp & SIM_GFP (HIGH));
  assert_true (EV (rd, 3)->gfp & SIM_GFP (DMA));
  assert_int_equal (EV (rd, 4)->kind, SIM_TRACE_KFREE);
  assert_true (EV (rd, 4)->ptr == 0);
  assert_int_equal (EV (rd, 5)->kind, SIM_TRACE_CACHE_FREE);
  e = EV (rd, 7);
  assert_int_equal (e->kind, SIM_TRACE_PAGE_FREE_DIRECT);
  assert_int_equal (e->pfn, 3516935);
  assert_true (e->ptr == G_GUINT64_CONSTANT (0xffffea0000d6a1c0));
  assert_int_equal (e->order, 0);
  assert_string_equal (STR (rd, e->comm_id), "<idle>");
  assert_int_equal (e->pid, 0);
  assert_int_equal (EV (rd, 8)->kind, SIM_TRACE_PAGEVEC_FREE);
  e = EV (rd, 9);
  assert_int_equal (e->kind, SIM_TRACE_PAGE_ALLOC);
  assert_int_equal (e->order, 1);
  assert_int_equal (e->migratetype, 2);
  assert_int_equal (EV (rd, 10)->kind, SIM_TRACE_PAGE_PCPU_DRAIN);

  const SimAccountCounts *c = sim_trace_account_counts (rd.acc);
  assert_int_equal (c->allocs, 4);
  assert_int_equal (c->frees, 3);
  assert_int_equal (c->null_frees, 1);
  assert_int_equal (c->same_cpu_frees, 2);
  assert_int_equal (c->live_at_end, 2);
  const SimTraceStats *s = sim_trace_reader_stats (rd.r);
  assert_int_equal (s->skipped_lines, 4);
  assert_int_equal (sim_trace_reader_format (rd.r), SIM_TRACE_FORMAT_FTRACE);
  assert_false (sim_trace_stats_hashed (s));
  read_free (&rd);
}

static void
test_4x_5x (void **state)
{
  (void) state;
  Read rd = read_all (
    "  kworker/0:1H-123   [000] d..1   512.000100: kmalloc: call_site=__alloc_skb+0x87/0x1d0 ptr=ffff9a0b3c4d5e00 bytes_req=640 bytes_alloc=1024 gfp_flags=GFP_ATOMIC|__GFP_NOWARN\n"
    "  kworker/0:1H-123   [000] d..1   512.000101: kmem_cache_alloc: call_site=__alloc_skb+0x4f/0x1d0 ptr=ffff9a0b3c4d6000 bytes_req=224 bytes_alloc=256 gfp_flags=GFP_ATOMIC|__GFP_NOWARN\n"
    "  Web Content-4001   [001] ....   512.000200: kfree: call_site=skb_release_data+0x10e/0x150 [xt_foo] ptr=ffff9a0b3c4d5e00\n"
    "  Web Content-4001   [001] ....   512.000201: kmem_cache_free: call_site=kfree_skbmem+0x4e/0x60 ptr=ffff9a0b3c4d6000 name=skbuff_head_cache\n"
    "          <idle>-0   [001] ..s.   512.000300: mm_page_alloc: page=000000006a1b2c3d pfn=1234567 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n"
    "          <idle>-0   [001] ..s.   512.000301: mm_page_free: page=000000006a1b2c3d pfn=1234567 order=0\n"
    "          <idle>-0   [001] ..s.   512.000302: mm_page_free_batched: page=000000006a1b2c3d pfn=1234568 order=0\n",
    FALSE);
  assert_int_equal (rd.ev->len, 7);
  SimTraceEvent *e = EV (rd, 0);
  assert_int_equal (e->kind, SIM_TRACE_KMALLOC);
  assert_string_equal (STR (rd, e->comm_id), "kworker/0:1H");
  assert_int_equal (e->pid, 123);
  assert_string_equal (STR (rd, e->call_site_id), "__alloc_skb+0x87/0x1d0");
  assert_true (e->call_site == 0);
  assert_true (e->gfp & SIM_GFP (NOWARN));
  e = EV (rd, 2);
  assert_string_equal (STR (rd, e->comm_id), "Web Content");
  assert_int_equal (e->pid, 4001);
  assert_int_equal (e->cpu, 1);
  assert_string_equal (STR (rd, e->call_site_id), "skb_release_data+0x10e/0x150 [xt_foo]");
  assert_true (e->ptr == G_GUINT64_CONSTANT (0xffff9a0b3c4d5e00));
  assert_string_equal (STR (rd, EV (rd, 3)->cache_id), "skbuff_head_cache");
  assert_int_equal (EV (rd, 4)->pfn, 1234567);
  assert_int_equal (EV (rd, 6)->kind, SIM_TRACE_PAGE_FREE_BATCHED);
  const SimAccountCounts *c = sim_trace_account_counts (rd.acc);
  assert_int_equal (c->cross_cpu_frees, 2);
  assert_int_equal (c->live_at_end, 0);
  read_free (&rd);
}

static void
test_6x (void **state)
{
  (void) state;
  Read rd = read_all (
    "  hackbench-4321    [001] .....   294.738517: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
    "  hackbench-4321    [001] .....   294.738520: kmalloc: call_site=lsm_blob_alloc+0x3b/0x60 ptr=ffff88810024ee50 bytes_req=11 bytes_alloc=16 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO node=0 accounted=true\n"
    "  hackbench-4321    [001] .....   294.738521: kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=ffff888100ceb000 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
    "  hackbench-4321    [000] .....   294.738527: kmem_cache_free: call_site=vfs_fstatat+0x71/0xb0 ptr=ffff888100ceb000 name=names_cache\n"
    "  hackbench-4321    [000] .....   294.738528: kmem_cache_free: call_site=vfs_fstatat+0x71/0xb0 ptr=ffff888100ceb000 name=names_cache\n"
    "  hackbench-4321    [000] .....   294.738529: kfree: call_site=ida_alloc_range+0x39b/0x400 ptr=0000000000000000\n"
    "  hackbench-4321    [000] .....   294.738530: mm_page_alloc: page=ffffea0004414b40 pfn=0x11052d order=0 migratetype=0 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP\n",
    FALSE);
  assert_int_equal (rd.ev->len, 7);
  SimTraceEvent *e = EV (rd, 0);
  assert_string_equal (STR (rd, e->cache_id), "names_cache");
  assert_int_equal (e->node, -1);
  assert_int_equal (e->accounted, 0);
  e = EV (rd, 1);
  assert_int_equal (e->accounted, 1);
  assert_int_equal (e->node, 0);
  assert_true (e->gfp & SIM_GFP (ACCOUNT));
  assert_true (e->gfp & SIM_GFP (ZERO));
  assert_int_equal (EV (rd, 6)->pfn, 0x11052d);
  assert_true (EV (rd, 6)->gfp & SIM_GFP (COMP));
  const SimAccountCounts *c = sim_trace_account_counts (rd.acc);
  assert_int_equal (c->allocs, 3);
  assert_int_equal (c->implicit_frees, 1);
  assert_int_equal (c->cross_cpu_frees, 1);
  assert_int_equal (c->unknown_frees, 1);
  assert_int_equal (c->null_frees, 1);
  assert_int_equal (c->live_at_end, 1);
  read_free (&rd);
}

static void
test_trace_cmd (void **state)
{
  (void) state;
  Read rd = read_all (
    "version = 6\n"
    "CPU 1 is empty\n"
    "cpus=2\n"
    "            bash-1234  [000]  5000.000001: kmalloc:              call_site=__kmalloc+0x10 ptr=0xffff888100000000 bytes_req=8 bytes_alloc=8 gfp_flags=GFP_KERNEL\n"
    "            bash-1234  [000]  5000.000002: kfree:                call_site=kfree_rcu+0x1 ptr=0xffff888100000000\n",
    FALSE);
  assert_int_equal (rd.ev->len, 2);
  assert_int_equal (sim_trace_reader_format (rd.r), SIM_TRACE_FORMAT_TRACE_CMD);
  assert_true (EV (rd, 0)->ptr == G_GUINT64_CONSTANT (0xffff888100000000));
  assert_int_equal (sim_trace_account_counts (rd.acc)->same_cpu_frees, 1);
  assert_int_equal (sim_trace_reader_stats (rd.r)->skipped_lines, 3);
  read_free (&rd);
}

static void
test_perf_script_nulls (void **state)
{
  (void) state;
  Read rd = read_all (
    "            perf 31103 [000]  1637.361225:          kmem:kmalloc: call_site=sched_setaffinity+0x127 ptr=0xffff88810442be80 bytes_req=32 bytes_alloc=32 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
    "            perf 31103 [001]  1637.361340:            kmem:kfree: call_site=sched_setaffinity+0x17b ptr=(nil)\n"
    "            perf 31103 [001]  1637.361341:            kmem:kfree: call_site=sched_setaffinity+0x17b ptr=0\n"
    "            bash  1/77 [001]  1637.361342:            kmem:kfree: call_site=sched_setaffinity+0x17b ptr=  (null)\n"
    "            perf 31103 [001]  1637.361343:          sched:sched_switch: prev_comm=perf prev_pid=31103\n"
    "            perf 31103 [001]  1637.361344:            kmem:rss_stat: mm_id=1 curr=1 type=MM_FILEPAGES size=4096B\n"
    "            perf 31103 [001]  1637.361345:            kmem:kfree: call_site=sched_setaffinity+0x17b ptr=0xffff88810442be80\n",
    FALSE);
  assert_int_equal (sim_trace_reader_format (rd.r), SIM_TRACE_FORMAT_PERF);
  assert_int_equal (rd.ev->len, 5);
  assert_int_equal (EV (rd, 0)->pid, 31103);
  assert_string_equal (STR (rd, EV (rd, 0)->comm_id), "perf");
  assert_int_equal (EV (rd, 3)->pid, 77);
  assert_string_equal (STR (rd, EV (rd, 3)->comm_id), "bash");
  const SimAccountCounts *c = sim_trace_account_counts (rd.acc);
  assert_int_equal (c->null_frees, 3);
  assert_int_equal (c->cross_cpu_frees, 1);
  const SimTraceStats *s = sim_trace_reader_stats (rd.r);
  assert_int_equal (g_hash_table_size (s->other_events), 2);
  assert_non_null (g_hash_table_lookup (s->other_events, "kmem:rss_stat"));
  assert_non_null (g_hash_table_lookup (s->other_events, "sched:sched_switch"));
  assert_int_equal (s->skipped_lines, 2);
  read_free (&rd);
}

static void
test_perf_script_without_cpu (void **state)
{
  (void) state;
  /* perf script of a per-task recording has no [cpu] column */
  Read rd = read_all (
    "       hackbench  4242  1637.361225:          kmem:kmalloc: call_site=x+0x1 ptr=0xffff88810442be80 bytes_req=32 bytes_alloc=32 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
    "       hackbench  4242  1637.361226:            kmem:kfree: call_site=y+0x1 ptr=0xffff88810442be80\n",
    FALSE);
  assert_int_equal (rd.ev->len, 2);
  assert_int_equal (sim_trace_reader_format (rd.r), SIM_TRACE_FORMAT_PERF);
  assert_int_equal (EV (rd, 0)->cpu, -1);
  assert_int_equal (EV (rd, 0)->pid, 4242);
  assert_string_equal (STR (rd, EV (rd, 0)->comm_id), "hackbench");
  assert_true (EV (rd, 1)->ts_ns == G_GUINT64_CONSTANT (1637361226000));
  assert_int_equal (sim_trace_account_counts (rd.acc)->same_cpu_frees, 1);
  read_free (&rd);
}

static void
test_lost_markers (void **state)
{
  (void) state;
  Read rd = read_all (
    "  bash-1  [000] .....   1.000001: kfree: call_site=a+0x1/0x2 ptr=0000000000000000\n"
    "CPU:1 [LOST 42 EVENTS]\n"
    "  bash-1  [001] .....   1.000002: kfree: call_site=a+0x1/0x2 ptr=0000000000000000\n"
    "CPU:0 [LOST 8 EVENTS]\n"
    "            perf 31103 [001]  1637.361343: PERF_RECORD_LOST lost 17\n",
    FALSE);
  const SimTraceStats *s = sim_trace_reader_stats (rd.r);
  assert_int_equal (s->lost_events, 42 + 8 + 17);
  assert_int_equal (s->lost_markers, 3);
  assert_int_equal (rd.ev->len, 2);
  read_free (&rd);
}

static void
test_hashed_pointers (void **state)
{
  (void) state;
  Read rd = read_all (
    "  cat-4242 [003] ..... 4582.696626: kmem_cache_alloc: call_site=getname_flags+0x47/0x1f0 ptr=00000000e70e10e0 name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false\n"
    "  cat-4242 [002] ..... 4582.696627: kmem_cache_free: call_site=putname+0x47/0x1f0 ptr=00000000e70e10e0 name=names_cache\n"
    "  cat-4242 [002] ..... 4582.696628: kfree: call_site=putname+0x47/0x1f0 ptr=0000000000000000\n",
    FALSE);
  const SimTraceStats *s = sim_trace_reader_stats (rd.r);
  assert_true (sim_trace_stats_hashed (s));
  assert_int_equal (s->hashed_ptrs, 2);
  /* pairing still works */
  assert_int_equal (sim_trace_account_counts (rd.acc)->cross_cpu_frees, 1);
  read_free (&rd);

  /* real 64-bit pointers are not hashed */
  rd = read_all ("  cat-1 [000] ..... 1.0: kfree: call_site=a+0x1/0x2 ptr=ffff888100000000\n", FALSE);
  assert_false (sim_trace_stats_hashed (sim_trace_reader_stats (rd.r)));
  read_free (&rd);
}

static void
test_lenient_counts (void **state)
{
  (void) state;
  Read rd = read_all (
    "  bash-1  [000] .....   1.000001: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000000 bytes_req=abc bytes_alloc=8 gfp_flags=GFP_KERNEL\n"
    "  bash-1  [000] .....   1.000002: kmalloc: call_site=a+0x1/0x2 ptr=ffff888100000000 bytes_req=-5 bytes_alloc=8 gfp_flags=GFP_KERNEL\n"
    "  bash-1  [000] .....   1.000003: kfree: call_site=a+0x1/0x2\n"
    "  bash-1  [000] .....   1.000004: kfree: call_site=a+0x1/0x2 ptr=0000000000000000\n",
    TRUE);
  assert_int_equal (sim_trace_reader_stats (rd.r)->malformed_lines, 3);
  assert_int_equal (rd.ev->len, 1);
  read_free (&rd);
}

static void
test_gfp_parse (void **state)
{
  (void) state;
  const char *s = "GFP_KERNEL|__GFP_ZERO|__GFP_RECLAIMABLE";
  guint32 g = sim_trace_gfp_parse (s, strlen (s));
  assert_true (g & SIM_GFP (ZERO));
  assert_true (g & SIM_GFP (RECLAIMABLE));
  assert_true (g & SIM_GFP (IO));
  assert_false (g & SIM_GFP (DMA));
  s = "0x4";
  assert_int_equal (sim_trace_gfp_parse (s, strlen (s)), 0);
}

/* The parser's word-at-a-time paths (eight hex digits of a pointer, the
 * timestamp's fraction, leading spaces, the guessed next key) read what a
 * byte at a time reads: every fraction length, every hex case, a bad digit
 * at each place of a pointer, keys in a changed order or twice. */
static void
test_word_paths (void **state)
{
  (void) state;
  GString *t = g_string_new (NULL);
  /* fractions of 1 to 12 digits: nanoseconds from the first nine */
  const char *frac = "123456789012";
  for (guint n = 1; n <= 12; n++)
    g_string_append_printf (t, "%*sbash-7  [001] .... 42.%.*s: kfree: call_site=a+0x1/0x2 "
                            "ptr=ffff888100000040\n", (int) (n % 10), "", (int) n, frac);
  /* pointers: the cases of hex, the 0x prefix, fewer digits */
  g_string_append (t, "\tbash-7  [001] .... 43.000001: kfree: call_site=ffffffffA1b2C3d4 ptr=FFFF8881aBcDeF09\n");
  g_string_append (t, "bash-7  [001] .... 43.000002: kfree: call_site=a+0x1/0x2 ptr=0xffff888100000080\n");
  g_string_append (t, "bash-7  [001] .... 43.000003: kfree: call_site=a+0x1/0x2 ptr=888100000c0\n");
  /* the 6.18 order, then another order, a key twice (the last counts),
   * an unknown key between */
  g_string_append (t, "bash-7  [000] .... 44.000001: kmem_cache_alloc: call_site=b+0x1/0x2 ptr=ffff888100000100 name=filp bytes_req=256 bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1 accounted=true\n");
  g_string_append (t, "bash-7  [000] .... 44.000002: kmem_cache_alloc: ptr=ffff888100000200 call_site=b+0x1/0x2 gfp_flags=GFP_ATOMIC bytes_alloc=64 bytes_req=60 new=1 name=dentry accounted=false\n");
  g_string_append (t, "bash-7  [000] .... 44.000003: kmem_cache_alloc: call_site=b+0x1/0x2 ptr=ffff888100000300 ptr=ffff888100000340 name=filp bytes_req=256 bytes_alloc=256 gfp_flags=GFP_KERNEL node=1 accounted=true\n");
  Read rd = read_all (t->str, FALSE);
  assert_int_equal (rd.ev->len, 18);
  for (guint n = 1; n <= 12; n++)
    {
      guint64 ns = 0;
      for (guint i = 0; i < 9; i++)
        ns = ns * 10 + (i < n ? (guint) (frac[i] - '0') : 0);
      assert_true (EV (rd, n - 1)->ts_ns == 42 * G_GUINT64_CONSTANT (1000000000) + ns);
      assert_true (EV (rd, n - 1)->ptr == G_GUINT64_CONSTANT (0xffff888100000040));
      assert_int_equal (EV (rd, n - 1)->pid, 7);
      assert_string_equal (STR (rd, EV (rd, n - 1)->comm_id), "bash");
    }
  assert_true (EV (rd, 12)->ptr == G_GUINT64_CONSTANT (0xffff8881abcdef09));
  assert_true (EV (rd, 12)->call_site == G_GUINT64_CONSTANT (0xffffffffa1b2c3d4));
  assert_true (EV (rd, 13)->ptr == G_GUINT64_CONSTANT (0xffff888100000080));
  assert_true (EV (rd, 14)->ptr == G_GUINT64_CONSTANT (0x888100000c0));
  SimTraceEvent *e = EV (rd, 15);
  assert_true (e->ptr == G_GUINT64_CONSTANT (0xffff888100000100));
  assert_string_equal (STR (rd, e->cache_id), "filp");
  assert_int_equal (e->bytes_req, 256);
  assert_int_equal (e->accounted, 1);
  assert_int_equal (e->node, -1);
  e = EV (rd, 16);
  assert_true (e->ptr == G_GUINT64_CONSTANT (0xffff888100000200));
  assert_string_equal (STR (rd, e->cache_id), "dentry");
  assert_string_equal (STR (rd, e->gfp_id), "GFP_ATOMIC");
  assert_int_equal (e->bytes_req, 60);
  assert_int_equal (e->bytes_alloc, 64);
  assert_int_equal (e->accounted, 0);
  e = EV (rd, 17);
  assert_true (e->ptr == G_GUINT64_CONSTANT (0xffff888100000340));
  assert_int_equal (e->node, 1);
  read_free (&rd);

  /* a byte that is no hex digit at each of a pointer's sixteen places:
   * each line is malformed (lenient: counted), and non-lenient names it */
  g_string_truncate (t, 0);
  const char bad[] = "g:G/@`xZ\x7f";
  for (guint i = 0; i < 16; i++)
    {
      char ptr[17] = "ffff888100000040";
      ptr[i] = bad[i % (sizeof bad - 1)];
      g_string_append_printf (t, "bash-7  [001] .... 45.%06u: kfree: call_site=a+0x1/0x2 ptr=%s\n",
                              i, ptr);
    }
  rd = read_all (t->str, TRUE);
  assert_int_equal (rd.ev->len, 0);
  assert_int_equal (sim_trace_reader_stats (rd.r)->malformed_lines, 16);
  read_free (&rd);
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (
    "bash-7  [001] .... 45.000001: kfree: call_site=a+0x1/0x2 ptr=ffff88810000004g\n", -1, NULL);
  GError *error = NULL;
  g_autoptr (SimTraceReader) r = sim_trace_reader_new (in, "w.trace", SIM_TRACE_FORMAT_AUTO, &error);
  assert_non_null (r);
  SimTraceEvent ev;
  assert_false (sim_trace_reader_next (r, &ev, &error));
  assert_non_null (error);
  assert_string_equal (error->message, "w.trace:1: expected a hexadecimal pointer or (null) after "
                       "ptr=, got \"ffff88810000004g\"");
  g_clear_error (&error);
  g_string_free (t, TRUE);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_2_6_3x),
    cmocka_unit_test (test_4x_5x),
    cmocka_unit_test (test_6x),
    cmocka_unit_test (test_trace_cmd),
    cmocka_unit_test (test_perf_script_nulls),
    cmocka_unit_test (test_perf_script_without_cpu),
    cmocka_unit_test (test_lost_markers),
    cmocka_unit_test (test_hashed_pointers),
    cmocka_unit_test (test_lenient_counts),
    cmocka_unit_test (test_gfp_parse),
    cmocka_unit_test (test_word_paths),
  };
  return cmocka_run_group_tests_name ("trace-lines", tests, NULL, NULL);
}
