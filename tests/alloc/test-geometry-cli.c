/* test-geometry-cli.c - "slabsim geometry": options, input errors, seeds. */
#include "tests/testutil.h"
#include <string.h>

#define HEADER "name\tobject_size\talign\tflags\n"

static int
run_input (const char *input, char **out, char **err, const char *const *extra)
{
  g_autofree char *path = tu_write_temp (".tsv", input, -1);
  const char *args[16] = { "geometry" };
  int n = 1;
  for (; extra && *extra; extra++)
    args[n++] = *extra;
  args[n++] = path;
  args[n] = NULL;
  int rc = tu_run (out, err, args);
  /* Error messages name the file: make them path-independent for checks. */
  if (err && *err)
    {
      char *p;
      while ((p = strstr (*err, path)) != NULL)
        {
          memmove (p + 4, p + strlen (path), strlen (p + strlen (path)) + 1);
          memcpy (p, "FILE", 4);
        }
    }
  return rc;
}

static void
test_seed_kmalloc_rows (void **state)
{
  (void) state;
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal (tu_run (&a, NULL, (const char *[]) { "geometry", "--allocator", "slub@2.6.23",
                                                         "--cpus", "16", "--kmalloc", NULL }), 0);
  tu_assert_contains (a, "name\tobject_size\tslab_size\torder\tobjs_per_slab\tcpu_partial\tmin_partial\n");
  tu_assert_contains (a, "kmalloc-4096\t4096\t4096\t1\t2\t0\t2\n");
  tu_assert_contains (a, "kmalloc-4194304\t4194304\t4194304\t10\t1\t0\t2\n");
  assert_int_equal (tu_run (&b, NULL, (const char *[]) { "geometry", "--allocator",
                      "slub@2.6.23:slub_max_order=3,slub_min_objects=8", "--cpus", "16",
                      "--kmalloc", NULL }), 0);
  tu_assert_contains (b, "kmalloc-4096\t4096\t4096\t3\t8\t0\t2\n");
  assert_int_equal (tu_run (&c, NULL, (const char *[]) { "geometry", "-a", "slub@2.6.34",
                                                         "-c", "16", "-k", NULL }), 0);
  tu_assert_contains (c, "kmalloc-256\t256\t256\t1\t32\t0\t8\n");
  tu_assert_contains (c, "kmalloc-1024\t1024\t1024\t3\t32\t0\t10\n");
  tu_assert_contains (c, "kmalloc-8192\t8192\t8192\t3\t4\t0\t10\n");
  assert_null (strstr (c, "kmalloc-16384"));
}

static void
test_file_and_stdin (void **state)
{
  (void) state;
  const char *in = HEADER "# a comment\n\nfoo\t100\t0\t-\nbar\t100\t0\tctor,hwcache_align\r\n";
  g_autofree char *out = NULL, *out2 = NULL;
  assert_int_equal (run_input (in, &out, NULL, (const char *[]) { "-a", "slub@6.18", NULL }), 0);
  assert_string_equal (out, "name\tobject_size\tslab_size\torder\tobjs_per_slab\tcpu_partial\tmin_partial\tsheaf_capacity\n"
                            "foo\t100\t104\t0\t39\t120\t5\t0\n"
                            "bar\t100\t128\t0\t32\t120\t5\t0\n");
  assert_int_equal (tu_run_stdin (&out2, NULL, in, (const char *[]) { "geometry", "-", NULL }), 0);
  assert_string_equal (out2, out);
}

static void
test_long_and_merge (void **state)
{
  (void) state;
  const char *in = HEADER "foo\t250\t0\t-\nbar\t256\t0\tctor\nfp\t100\t0\ttypesafe_by_rcu,freeptr_offset=16\n";
  g_autofree char *out = NULL, *out2 = NULL, *err = NULL;
  assert_int_equal (run_input (in, &out, NULL, (const char *[]) { "-a", "slub@6.18", "--long", NULL }), 0);
  tu_assert_contains (out, "\talign\tinuse\toffset\tmin_order\tmin_objs\tcpu_partial_slabs\n");
  tu_assert_contains (out, "fp\t100\t104\t0\t39\t120\t5\t0\t8\t104\t16\t0\t39\t7\n");
  assert_int_equal (run_input (in, &out2, &err, (const char *[]) { "-a", "slub@2.6.34", "--merge",
                                                                  "--cpus", "16", NULL }), 1);
  tu_assert_contains (err, "FILE:4: cache \"fp\": freeptr_offset does not exist in 2.6.34");
  g_autofree char *out3 = NULL;
  const char *in2 = HEADER "foo\t250\t0\t-\nbar\t256\t0\tctor\n";
  assert_int_equal (run_input (in2, &out3, NULL, (const char *[]) { "-a", "slub@2.6.34", "--merge",
                                                                   "--cpus", "16", NULL }), 0);
  tu_assert_contains (out3, "\tmin_partial\tsysfs_name\n");
  tu_assert_contains (out3, "foo\t256\t256\t1\t32\t0\t8\t:t-0000256\n");
  tu_assert_contains (out3, "bar\t256\t264\t1\t31\t0\t8\tbar\n");
}

/* kmem_cache_args.sheaf_capacity (6.18): the cache gets exactly what it
 * asked for, every other cache none, and a cache that asked is never
 * merged (__kmem_cache_create_args skips __kmem_cache_alias for it,
 * slab_unmergeable refuses a cache with cpu_sheaves).  Eras before 6.18
 * print no column and refuse the flag, as they refuse freeptr_offset. */
static void
test_sheaf_capacity (void **state)
{
  (void) state;
  const char *in = HEADER "maple_node\t256\t256\tsheaf_capacity=32\n"
                          "plain256\t256\t256\t-\n"
                          "big\t3000\t0\tsheaf_capacity=7\n";
  g_autofree char *out = NULL, *out2 = NULL, *err = NULL, *k = NULL, *old = NULL;
  assert_int_equal (run_input (in, &out, NULL, (const char *[]) { "-a", "slub@6.18", "-c", "2",
                                                                 "--merge", NULL }), 0);
  tu_assert_contains (out, "\tmin_partial\tsheaf_capacity\tsysfs_name\n");
  tu_assert_contains (out, "maple_node\t256\t256\t0\t16\t52\t5\t32\tmaple_node\n");
  /* plain256 merges into kmalloc-256 (created first), not into maple_node. */
  tu_assert_contains (out, "plain256\t256\t256\t0\t16\t52\t5\t0\t:0000256\n");
  tu_assert_contains (out, "big\t3000\t3000\t3\t10\t24\t5\t7\tbig\n");
  /* 6.18's kmalloc caches have no sheaves. */
  assert_int_equal (tu_run (&k, NULL, (const char *[]) { "geometry", "-a", "slub@6.18", "-k", NULL }), 0);
  tu_assert_contains (k, "\tmin_partial\tsheaf_capacity\n");
  tu_assert_contains (k, "kmalloc-8k\t8192\t8192\t3\t4\t6\t6\t0\n");
  assert_int_equal (tu_run (&old, NULL, (const char *[]) { "geometry", "-a", "slub@2.6.34", "-k", NULL }), 0);
  assert_null (strstr (old, "sheaf_capacity"));
  assert_int_equal (run_input (in, &out2, &err, (const char *[]) { "-a", "slub@2.6.34", NULL }), 1);
  tu_assert_contains (err, "FILE:2: cache \"maple_node\": sheaf_capacity does not exist in 2.6.34 "
                           "(kmem_cache_args.sheaf_capacity arrived in 6.18)");

  /* 7.x (slub@7.x = 7.0): every cache has sheaves, by
   * calculate_sheaf_capacity (26 -> 28 for 256-byte slots, 60 below 256,
   * 12 from 1 KiB, 4 from a page), the request kept when larger; the
   * kmalloc caches get theirs too; no cpu partial slabs (0). */
  g_autofree char *o7 = NULL, *k7 = NULL;
  assert_int_equal (run_input (in, &o7, NULL, (const char *[]) { "-a", "slub@7.x", "-c", "2",
                                                                "--merge", NULL }), 0);
  tu_assert_contains (o7, "maple_node\t256\t256\t0\t16\t0\t5\t32\tmaple_node\n");
  tu_assert_contains (o7, "big\t3000\t3000\t3\t10\t0\t5\t12\tbig\n");
  assert_int_equal (tu_run (&k7, NULL, (const char *[]) { "geometry", "-a", "slub@7.x", "-c", "2", "-k", NULL }), 0);
  tu_assert_contains (k7, "kmalloc-8\t8\t8\t0\t512\t0\t5\t60\n");
  tu_assert_contains (k7, "kmalloc-192\t192\t192\t0\t21\t0\t5\t60\n");
  tu_assert_contains (k7, "kmalloc-256\t256\t256\t0\t16\t0\t5\t28\n");
  tu_assert_contains (k7, "kmalloc-1k\t1024\t1024\t2\t16\t0\t5\t12\n");
  tu_assert_contains (k7, "kmalloc-4k\t4096\t4096\t3\t8\t0\t6\t4\n");
}

static void
expect_input_error (const char *input, const char *needle)
{
  g_autofree char *out = NULL, *err = NULL;
  int rc = run_input (input, &out, &err, NULL);
  if (rc != 1)
    print_error ("exit %d, stderr %s\n", rc, err);
  assert_int_equal (rc, 1);
  tu_assert_contains (err, needle);
  assert_string_equal (out, "");
}

static void
test_input_errors (void **state)
{
  (void) state;
  expect_input_error ("", "slabsim: FILE:1: expected the header \"name<TAB>object_size<TAB>align<TAB>flags\"");
  expect_input_error ("name\tsize\talign\tflags\n", "FILE:1: expected the header");
  expect_input_error (HEADER "foo\t100\t0\n", "FILE:2: expected 4 tab-separated columns (name, object_size, align, flags), got 3");
  expect_input_error (HEADER "foo\t100\t0\t-\textra\n", "got 5");
  expect_input_error (HEADER "foo\t1e2\t0\t-\n", "FILE:2: expected object_size as a decimal number, got \"1e2\"");
  expect_input_error (HEADER "foo\t100\t-8\t-\n", "FILE:2: expected align as a decimal number, got \"-8\"");
  expect_input_error (HEADER "\n\nfoo\t100\t0\tctor,bogus\n", "FILE:4: expected flags as a comma list of hwcache_align, typesafe_by_rcu, freeptr_offset[=N], ctor, reclaim_account, cache_dma, sheaf_capacity=N, or \"-\"; got unknown flag \"bogus\"");
  expect_input_error (HEADER "foo\t100\t0\tsheaf_capacity=0\n", "FILE:2: expected sheaf_capacity=N with N objects from 1 to 65535, got \"sheaf_capacity=0\"");
  expect_input_error (HEADER "foo\t100\t0\tsheaf_capacity=\n", "FILE:2: expected sheaf_capacity=N");
  expect_input_error (HEADER "foo\t100\t0\tfreeptr_offset=x\n", "FILE:2: expected freeptr_offset=N");
  expect_input_error (HEADER "\t100\t0\t-\n", "FILE:2: expected a cache name");
  expect_input_error (HEADER "foo\t0\t0\t-\n", "FILE:2: cache \"foo\": object size 0 is outside");
  expect_input_error (HEADER "foo\t100\t24\t-\n", "FILE:2: cache \"foo\": alignment 24 is not a power of two");
  g_autofree char *err = NULL;
  assert_int_equal (tu_run (NULL, &err, (const char *[]) { "geometry", "/nonexistent/caches.tsv", NULL }), 1);
  tu_assert_contains (err, "/nonexistent/caches.tsv");
}

static void
expect_usage_error (const char *const *args, const char *needle)
{
  g_autofree char *out = NULL, *err = NULL;
  int rc = tu_run (&out, &err, args);
  if (rc != 2)
    print_error ("exit %d, stderr %s\n", rc, err);
  assert_int_equal (rc, 2);
  tu_assert_contains (err, needle);
}

static void
test_usage_errors (void **state)
{
  (void) state;
  expect_usage_error ((const char *[]) { "geometry", "-k", "-a", "slub@2.6.22", NULL },
                      "geometry: slub: unknown kernel \"2.6.22\" (expected one of: 6.18, 7.0, 2.6.34, 2.6.23)");
  expect_usage_error ((const char *[]) { "geometry", "-k", "-a", "slub@6.18:slub_max_oder=2", NULL },
                      "unknown parameter \"slub_max_oder\" (expected one of: slub_min_order, slub_max_order,");
  expect_usage_error ((const char *[]) { "geometry", "-k", "-a", "slub@2.6.23:slab_min_object=8", NULL },
                      "(expected one of: slub_min_order, slub_max_order, slub_min_objects, slub_nomerge, "
                      "slab_min_order, slab_max_order, slab_min_objects, slab_nomerge)");
  expect_usage_error ((const char *[]) { "geometry", "-k", "-a", "slqb", NULL },
                      "unknown allocator \"slqb\"");
  expect_usage_error ((const char *[]) { "geometry", "-k", "-a", "slub@", NULL },
                      "empty kernel version");
  expect_usage_error ((const char *[]) { "geometry", NULL }, "expected a FILE");
  expect_usage_error ((const char *[]) { "geometry", "a.tsv", "b.tsv", NULL }, "expected one FILE, got 2");
  expect_usage_error ((const char *[]) { "geometry", "-k", "a.tsv", NULL }, "--kmalloc takes no FILE");
  expect_usage_error ((const char *[]) { "geometry", "-k", "--cpus", "0", NULL }, "--cpus must be from 1");
  expect_usage_error ((const char *[]) { "geometry", "--bogus", NULL }, "slabsim: geometry:");
}

static void
test_help (void **state)
{
  (void) state;
  g_autofree char *out = NULL;
  assert_int_equal (tu_run (&out, NULL, (const char *[]) { "geometry", "--help", NULL }), 0);
  tu_assert_contains (out, "slabsim geometry");
  tu_assert_contains (out, "--allocator");
  tu_assert_contains (out, "--kmalloc");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_seed_kmalloc_rows),
    cmocka_unit_test (test_file_and_stdin),
    cmocka_unit_test (test_long_and_merge),
    cmocka_unit_test (test_sheaf_capacity),
    cmocka_unit_test (test_input_errors),
    cmocka_unit_test (test_usage_errors),
    cmocka_unit_test (test_help),
  };
  return cmocka_run_group_tests_name ("geometry-cli", tests, NULL, NULL);
}
