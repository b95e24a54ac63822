/* slab-test-report.c - the slab_test module's lines and a JSON form; see
 * slab-test-report.h.  The text follows the module posted in 2009-2011
 * (tests/slab_test.c, "(C) 2009 Linux Foundation"): the headings and the
 * printk formats below are that file's, the kernel log prefix left out. */
#include "sim/report/slab-test-report.h"
#include "sim/core/json.h"

static guint64
per_op (guint64 total, guint count)
{
  return total / count;
}

static void
text_concurrent (GString *s, const SimSlabTestResult *r, const SimSlabTestRow *row)
{
  gboolean two = row->kind == SIM_SLAB_TEST_ROW_CONCURRENT;
  g_string_append_printf (s, "%s(%u):", two ? "Kmalloc N*alloc N*free" : "Kmalloc N*(alloc free)",
                          row->size);
  guint64 sum1 = 0, sum2 = 0;
  for (guint c = 0; c < r->n_cpus; c++)
    {
      sum1 += row->cpu_p1[c];
      g_string_append_printf (s, " %u=%" G_GUINT64_FORMAT, c, per_op (row->cpu_p1[c], r->count));
      if (two)
        {
          sum2 += row->cpu_p2[c];
          g_string_append_printf (s, "/%" G_GUINT64_FORMAT, per_op (row->cpu_p2[c], r->count));
        }
    }
  g_string_append_printf (s, " Average=%" G_GUINT64_FORMAT, sum1 / r->n_cpus / r->count);
  if (two)
    g_string_append_printf (s, "/%" G_GUINT64_FORMAT, sum2 / r->n_cpus / r->count);
  g_string_append_c (s, '\n');
}

char *
sim_slab_test_report_text (const SimSlabTestResult *r)
{
  GString *s = g_string_new ("test init\n");
  gboolean single = (r->tests & (SIM_SLAB_TEST_REPEAT | SIM_SLAB_TEST_PAIR
                                 | SIM_SLAB_TEST_CACHE)) != 0;
  if (single)
    g_string_append (s, "Single thread testing\n=====================\n");
  SimSlabTestRowKind last = (SimSlabTestRowKind) -1;
  for (guint i = 0; i < r->rows->len; i++)
    {
      const SimSlabTestRow *row = &g_array_index (r->rows, SimSlabTestRow, i);
      if (row->kind != last)
        {
          if (row->kind == SIM_SLAB_TEST_ROW_REPEAT)
            g_string_append (s, "1. Kmalloc: Repeatedly allocate then free test\n");
          else if (row->kind == SIM_SLAB_TEST_ROW_PAIR)
            g_string_append (s, "2. Kmalloc: alloc/free test\n");
          else if (row->kind == SIM_SLAB_TEST_ROW_CONCURRENT)
            g_string_append (s, "Concurrent allocs\n=================\n");
          else if (row->kind == SIM_SLAB_TEST_ROW_CACHE_PAIR)
            g_string_append (s, "kmem_cache: alloc/free test (time_bench_kmem_cache1)\n");
          last = row->kind;
        }
      switch (row->kind)
        {
        case SIM_SLAB_TEST_ROW_REPEAT:
          g_string_append_printf (s, "%u times kmalloc(%u) -> %" G_GUINT64_FORMAT " cycles kfree -> %"
                                  G_GUINT64_FORMAT " cycles\n", r->count, row->size,
                                  per_op (row->p1, r->count), per_op (row->p2, r->count));
          break;
        case SIM_SLAB_TEST_ROW_PAIR:
          g_string_append_printf (s, "%u times kmalloc(%u)/kfree -> %" G_GUINT64_FORMAT " cycles\n",
                                  r->count, row->size, per_op (row->p1, r->count));
          break;
        case SIM_SLAB_TEST_ROW_CONCURRENT:
        case SIM_SLAB_TEST_ROW_CONCURRENT_PAIR:
          text_concurrent (s, r, row);
          break;
        case SIM_SLAB_TEST_ROW_CACHE_PAIR:
          g_string_append_printf (s, "%u times kmem_cache_alloc(%u)/kmem_cache_free -> %"
                                  G_GUINT64_FORMAT " cycles\n",
                                  r->count, row->size, per_op (row->p1, r->count));
          break;
        }
    }
  return g_string_free (s, FALSE);
}

/* The printed value and the exact mean of one loop total. */
static void
json_cycles (SimJson *j, const char *key, guint64 total, guint64 divisor)
{
  sim_json_key (j, key);
  sim_json_uint (j, total / divisor);
  g_autofree char *exact = g_strdup_printf ("%s_exact", key);
  sim_json_key (j, exact);
  sim_json_double (j, (double) total / (double) divisor, 3);
}

char *
sim_slab_test_report_json (const SimSlabTestResult *r)
{
  GString *s = g_string_new (NULL);
  SimJson j;
  sim_json_init (&j, s);
  sim_json_begin_object (&j);
  sim_json_key (&j, "machine");
  sim_json_string (&j, r->machine);
  sim_json_key (&j, "allocator");
  sim_json_string (&j, r->allocator);
  sim_json_key (&j, "kernel");
  sim_json_string (&j, r->kernel);
  sim_json_key (&j, "params");
  sim_json_string (&j, r->params);
  sim_json_key (&j, "count");
  sim_json_uint (&j, r->count);
  sim_json_key (&j, "cpus");
  sim_json_uint (&j, r->n_cpus);
  sim_json_key (&j, "frequency_ghz");
  sim_json_double (&j, r->frequency_ghz, 3);
  sim_json_key (&j, "tsc_ghz");
  sim_json_double (&j, r->tsc_ghz, 3);
  sim_json_key (&j, "cycles");
  sim_json_string (&j, "tsc");
  sim_json_key (&j, "lock_wait_cycles");
  sim_json_uint (&j, r->lock_wait_cycles);
  sim_json_key (&j, "results");
  sim_json_begin_array (&j);
  for (guint i = 0; i < r->rows->len; i++)
    {
      const SimSlabTestRow *row = &g_array_index (r->rows, SimSlabTestRow, i);
      sim_json_begin_object (&j);
      sim_json_key (&j, "test");
      sim_json_string (&j, sim_slab_test_row_name (row->kind));
      sim_json_key (&j, "size");
      sim_json_uint (&j, row->size);
      switch (row->kind)
        {
        case SIM_SLAB_TEST_ROW_REPEAT:
          json_cycles (&j, "alloc_cycles", row->p1, r->count);
          json_cycles (&j, "free_cycles", row->p2, r->count);
          break;
        case SIM_SLAB_TEST_ROW_PAIR:
        case SIM_SLAB_TEST_ROW_CACHE_PAIR:
          json_cycles (&j, "pair_cycles", row->p1, r->count);
          break;
        case SIM_SLAB_TEST_ROW_CONCURRENT:
        case SIM_SLAB_TEST_ROW_CONCURRENT_PAIR:
          {
            gboolean two = row->kind == SIM_SLAB_TEST_ROW_CONCURRENT;
            guint64 sum1 = 0, sum2 = 0;
            for (guint c = 0; c < r->n_cpus; c++)
              {
                sum1 += row->cpu_p1[c];
                sum2 += two ? row->cpu_p2[c] : 0;
              }
            /* Average as the module computes it: sum / CPUs / count. */
            guint64 div = (guint64) r->n_cpus * r->count;
            json_cycles (&j, two ? "alloc_cycles" : "pair_cycles", sum1, div);
            if (two)
              json_cycles (&j, "free_cycles", sum2, div);
            sim_json_key (&j, "per_cpu");
            sim_json_begin_array (&j);
            for (guint c = 0; c < r->n_cpus; c++)
              {
                sim_json_begin_object (&j);
                sim_json_key (&j, "cpu");
                sim_json_uint (&j, c);
                sim_json_key (&j, two ? "alloc_cycles" : "pair_cycles");
                sim_json_uint (&j, row->cpu_p1[c] / r->count);
                if (two)
                  {
                    sim_json_key (&j, "free_cycles");
                    sim_json_uint (&j, row->cpu_p2[c] / r->count);
                  }
                sim_json_end_object (&j);
              }
            sim_json_end_array (&j);
          }
          break;
        }
      sim_json_end_object (&j);
    }
  sim_json_end_array (&j);
  sim_json_end_object (&j);
  g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}
