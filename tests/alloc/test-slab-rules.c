/* test-slab-rules.c - directed tests, one per SLAB rule, driving the model
 * call by call and checking its arrays, lists and STATS counters against
 * what mm/slab.c of 2.6.34 (and 2.6.23 where it differs) does
 * (models/alloc/slab*.c, docs/models/slab.md).
 *
 * The machine is nehalem-ep-2s: 16 CPUs, two NUMA nodes (socket-interleaved
 * numbering: even CPUs on node 0, odd CPUs on node 1, 8 per node), 64-byte
 * lines, 1 GiB managed per node (so slab_break_gfp_order = 1). */
#include "tests/alloc/world.h"
#include "models/alloc/slab.h"
#include "models/page/page-alloc.h"
#include "sim/config/machine.h"
#include "sim/core/errors.h"
#include "sim/core/rng.h"

#include <string.h>

typedef struct {
  TuWorld w;
  SimSlab *slab;
  SimOp op;
} Fix;

static Fix *
fix_new_mem (const char *spec_text, const char *const *overrides, gboolean engine,
             guint64 managed_bytes)
{
  Fix *f = g_new0 (Fix, 1);
  GError *error = NULL;
  tu_world_init (&f->w, spec_text, overrides, managed_bytes, engine);
  f->slab = sim_slab_new (f->w.spec, &f->w.env, &error);
  tu_world_assert_model (f->slab, error);
  f->w.model = f->slab;
  return f;
}

static Fix *
fix_new_full (const char *spec_text, const char *const *overrides, gboolean engine)
{
  return fix_new_mem (spec_text, overrides, engine, 0);
}

static Fix *
fix_new (const char *spec_text)
{
  return fix_new_full (spec_text, NULL, FALSE);
}

static void
fix_free (Fix *f)
{
  sim_slab_free_model (f->slab);
  tu_world_clear (&f->w);
  g_free (f);
}

static SimOp *
on_at (Fix *f, guint cpu, SimTime t)
{
  sim_op_begin (&f->op, f->w.mem, cpu, t);
  return &f->op;
}

static SimOp *
on (Fix *f, guint cpu)
{
  return on_at (f, cpu, 0);
}

static SimCacheId
cache (Fix *f, const char *name, guint size, guint32 flags)
{
  SimCacheSpec spec = { .name = name, .object_size = size, .flags = flags };
  GError *error = NULL;
  SimCacheId id = sim_slab_cache_create (f->slab, on (f, 0), &spec, &error);
  if (id == SIM_CACHE_NONE)
    print_error ("%s\n", error->message);
  assert_true (id != SIM_CACHE_NONE);
  return id;
}

static SimSlabCacheInfo
info (Fix *f, SimCacheId id)
{
  SimSlabCacheInfo in;
  sim_slab_cache_info (f->slab, id, &in);
  return in;
}

static SimSlabArrayInfo
cpu_array (Fix *f, SimCacheId id, guint cpu)
{
  SimSlabArrayInfo a;
  assert_true (sim_slab_cpu_array (f->slab, id, cpu, &a));
  return a;
}

static SimSlabArrayInfo
shared_array (Fix *f, SimCacheId id, guint node)
{
  SimSlabArrayInfo a;
  assert_true (sim_slab_shared_array (f->slab, id, node, &a));
  return a;
}

static SimSlabNodeInfo
node_info (Fix *f, SimCacheId id, guint node)
{
  SimSlabNodeInfo n;
  assert_true (sim_slab_node_info (f->slab, id, node, &n));
  return n;
}

/* ____cache_alloc / cache_alloc_refill: the first refill of an untouched
 * array moves min(batchcount, BATCHREFILL_LIMIT = 16) objects; once the
 * array has been touched the whole batchcount (60 for a 64-byte cache)
 * is wanted, limited by what the partial slab still has (59 - 16 = 43). */
static void
test_refill_batch (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  SimCacheId id = cache (f, "t64", 64, SIM_SLAB_HWCACHE_ALIGN);
  SimSlabCacheInfo in = info (f, id);
  assert_int_equal (in.limit, 120);
  assert_int_equal (in.batchcount, 60);
  assert_int_equal (in.num, 59);
  SimAddr objs[64];
  tu_world_alloc_n (&f->w, id, 0, objs, 1);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLAB_ALLOCMISS], 1);
  assert_int_equal (in.stat[SIM_SLAB_GROWN], 1);
  assert_int_equal (in.stat[SIM_SLAB_NUM_ALLOCATIONS], 16);
  SimSlabArrayInfo a = cpu_array (f, id, 0);
  assert_int_equal (a.avail, 15);
  assert_int_equal (a.touched, 1);
  tu_world_alloc_n (&f->w, id, 0, &objs[1], 15);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLAB_ALLOCHIT], 15);
  /* Second refill: touched, so batchcount 60, but the slab has only 43 left
   * and no new slab is grown while the array got something. */
  tu_world_alloc_n (&f->w, id, 0, &objs[16], 1);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLAB_ALLOCMISS], 2);
  assert_int_equal (in.stat[SIM_SLAB_NUM_ALLOCATIONS], 59);
  assert_int_equal (in.stat[SIM_SLAB_GROWN], 1);
  assert_int_equal (cpu_array (f, id, 0).avail, 42);
  assert_int_equal (node_info (f, id, 0).full, 1);
  assert_int_equal (node_info (f, id, 0).free_objects, 0);
  /* LIFO: the array hands back the last object put in. */
  assert_true (sim_slab_free (f->slab, on (f, 0), objs[3]));
  assert_true (sim_slab_cache_alloc (f->slab, on (f, 0), id, -1, 0) == objs[3]);
  tu_world_check (&f->w);
  fix_free (f);
}

/* cache_flusharray: a free into a full array moves the batchcount oldest
 * entries to the node's shared array when it has room; a refill on
 * another CPU of the node then takes from the shared array before the
 * slab lists (2.6.34 marks the shared array touched). */
static void
test_flush_to_shared_and_refill_from_it (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab@2.6.34");
  SimCacheId id = cache (f, "t64", 64, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr *objs = g_new (SimAddr, 200);
  tu_world_alloc_n (&f->w, id, 0, objs, 200);
  SimSlabArrayInfo a = cpu_array (f, id, 0);
  guint frees = a.limit - a.avail;
  tu_world_free_n (&f->w, 0, objs, frees);                   /* array exactly full */
  assert_int_equal (cpu_array (f, id, 0).avail, 120);
  assert_int_equal (shared_array (f, id, 0).limit, 8 * 60);
  assert_int_equal (shared_array (f, id, 0).avail, 0);
  SimSlabCacheInfo before = info (f, id);
  tu_world_free_n (&f->w, 0, &objs[frees], 1);
  SimSlabCacheInfo after = info (f, id);
  assert_int_equal (after.stat[SIM_SLAB_FREEMISS], before.stat[SIM_SLAB_FREEMISS] + 1);
  assert_int_equal (shared_array (f, id, 0).avail, 60);
  assert_int_equal (cpu_array (f, id, 0).avail, 120 - 60 + 1);
  tu_world_check (&f->w);
  /* CPU 2 is on node 0 too: its first refill takes 16 from the shared
   * array and touches no slab. */
  guint64 taken = after.stat[SIM_SLAB_NUM_ALLOCATIONS];
  SimAddr x = sim_slab_cache_alloc (f->slab, on (f, 2), id, -1, 0);
  assert_true (x != 0);
  assert_int_equal (shared_array (f, id, 0).avail, 60 - 16);
  assert_int_equal (shared_array (f, id, 0).touched, 1);
  assert_int_equal (cpu_array (f, id, 2).avail, 15);
  assert_int_equal (info (f, id).stat[SIM_SLAB_NUM_ALLOCATIONS], taken);
  tu_world_check (&f->w);
  g_free (objs);
  fix_free (f);

  /* 2.6.23: transfer_objects marks the receiving array instead. */
  f = fix_new ("slab@2.6.23");
  id = cache (f, "t64", 64, SIM_SLAB_HWCACHE_ALIGN);
  objs = g_new (SimAddr, 200);
  tu_world_alloc_n (&f->w, id, 0, objs, 200);
  a = cpu_array (f, id, 0);
  tu_world_free_n (&f->w, 0, objs, a.limit - a.avail + 1);
  assert_int_equal (shared_array (f, id, 0).avail, 60);
  assert_true (sim_slab_cache_alloc (f->slab, on (f, 2), id, -1, 0) != 0);
  assert_int_equal (shared_array (f, id, 0).avail, 44);
  assert_int_equal (shared_array (f, id, 0).touched, 0);
  tu_world_check (&f->w);
  g_free (objs);
  fix_free (f);
}

/* With the shared array full, cache_flusharray gives batchcount objects
 * back to their slabs (free_block): free_objects grows by batchcount. */
static void
test_flush_free_block_when_shared_full (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab:slabinfo=tsh:4:2:1");
  SimCacheId id = cache (f, "tsh", 64, SIM_SLAB_HWCACHE_ALIGN);
  SimSlabCacheInfo in = info (f, id);
  assert_int_equal (in.limit, 4);
  assert_int_equal (in.batchcount, 2);
  assert_int_equal (in.shared_limit, 2);
  SimAddr objs[20];
  tu_world_alloc_n (&f->w, id, 0, objs, 20);
  tu_world_free_n (&f->w, 0, objs, 4 - cpu_array (f, id, 0).avail);
  tu_world_free_n (&f->w, 0, &objs[10], 1);                  /* first flush: to shared */
  assert_int_equal (shared_array (f, id, 0).avail, 2);
  tu_world_free_n (&f->w, 0, &objs[11], 1);                  /* array full again */
  assert_int_equal (cpu_array (f, id, 0).avail, 4);
  guint64 fo = node_info (f, id, 0).free_objects;
  tu_world_free_n (&f->w, 0, &objs[13], 1);                  /* shared full: free_block */
  assert_int_equal (shared_array (f, id, 0).avail, 2);
  assert_int_equal (node_info (f, id, 0).free_objects, fo + 2);
  assert_int_equal (cpu_array (f, id, 0).avail, 3);
  tu_world_check (&f->w);
  fix_free (f);
}

/* NUMA: a free on node 1 of a node-0 object goes to node 1's alien array
 * for node 0 (limit 12); the 13th such free overflows it and
 * __drain_alien_cache moves the 12 into node 0's shared array. */
static void
test_alien_free_and_drain (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  SimCacheId id = cache (f, "t256", 256, SIM_SLAB_HWCACHE_ALIGN);
  SimSlabCacheInfo in = info (f, id);
  assert_int_equal (in.alien_limit, 12);
  SimAddr objs[13];
  tu_world_alloc_n (&f->w, id, 0, objs, 13);                 /* cpu 0: node 0 */
  guint node;
  assert_true (sim_slab_object_slab (f->slab, objs[0], NULL, NULL, NULL, &node));
  assert_int_equal (node, 0);
  tu_world_free_n (&f->w, 1, objs, 12);                      /* cpu 1: node 1 */
  SimSlabArrayInfo al;
  assert_true (sim_slab_alien_array (f->slab, id, 1, 0, &al));
  assert_int_equal (al.avail, 12);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLAB_NODE_FREES], 12);
  assert_int_equal (in.stat[SIM_SLAB_FREEHIT] + in.stat[SIM_SLAB_FREEMISS], 0);
  assert_int_equal (cpu_array (f, id, 1).avail, 0);
  tu_world_check (&f->w);
  tu_world_free_n (&f->w, 1, &objs[12], 1);
  assert_true (sim_slab_alien_array (f->slab, id, 1, 0, &al));
  assert_int_equal (al.avail, 1);
  in = info (f, id);
  assert_int_equal (in.stat[SIM_SLAB_NODE_OVERFLOW], 1);
  assert_int_equal (in.stat[SIM_SLAB_NODE_FREES], 13);
  assert_int_equal (shared_array (f, id, 0).avail, 12);
  tu_world_check (&f->w);
  fix_free (f);

  /* noaliencache: the remote free goes straight to the remote slab. */
  f = fix_new ("slab:noaliencache");
  id = cache (f, "t256", 256, SIM_SLAB_HWCACHE_ALIGN);
  assert_false (sim_slab_alien_array (f->slab, id, 1, 0, &al));
  tu_world_alloc_n (&f->w, id, 0, objs, 2);
  guint64 fo = node_info (f, id, 0).free_objects;
  tu_world_free_n (&f->w, 1, objs, 1);
  assert_int_equal (node_info (f, id, 0).free_objects, fo + 1);
  tu_world_check (&f->w);
  fix_free (f);
}

/* cache_reap's drain_array: a touched array only loses its touched flag;
 * an untouched one gives back (limit + 4) / 5 objects, or (avail + 1) / 2
 * when that is more than it has. */
static void
test_reap_touched_and_untouched (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab:slabinfo=tr:10:5:0");
  SimCacheId id = cache (f, "tr", 64, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr o;
  tu_world_alloc_n (&f->w, id, 0, &o, 1);                    /* refill 5, one handed out */
  assert_int_equal (cpu_array (f, id, 0).avail, 4);
  assert_int_equal (cpu_array (f, id, 0).touched, 1);
  sim_slab_reap (f->slab, on (f, 0));
  assert_int_equal (cpu_array (f, id, 0).avail, 4);
  assert_int_equal (cpu_array (f, id, 0).touched, 0);
  sim_slab_reap (f->slab, on (f, 0));
  assert_int_equal (cpu_array (f, id, 0).avail, 4 - (10 + 4) / 5);
  tu_world_check (&f->w);
  fix_free (f);

  f = fix_new ("slab");
  id = cache (f, "t64", 64, SIM_SLAB_HWCACHE_ALIGN);
  tu_world_alloc_n (&f->w, id, 0, &o, 1);                    /* refill 16: 15 left */
  sim_slab_reap (f->slab, on (f, 0));
  assert_int_equal (cpu_array (f, id, 0).avail, 15);
  sim_slab_reap (f->slab, on (f, 0));
  /* (120 + 4) / 5 = 24 > 15: free (15 + 1) / 2 = 8 */
  assert_int_equal (cpu_array (f, id, 0).avail, 7);
  tu_world_check (&f->w);
  fix_free (f);
}

/* The node part of cache_reap (every REAPTIMEOUT_LIST3 = 4 s): the first
 * time after refills only clears free_touched; the next destroys
 * (free_limit + 5 num - 1) / (5 num) free slabs. */
static void
test_node_reap_frees_slabs (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab:slabinfo=tn:1:1:0");
  SimCacheId id = cache (f, "tn", 4096, 0);
  SimSlabCacheInfo in = info (f, id);
  assert_int_equal (in.num, 1);
  assert_true (in.off_slab);
  /* free_limit = (1 + 8 CPUs on the node) * 1 + 1 */
  assert_int_equal (node_info (f, id, 0).free_limit, 10);
  SimAddr objs[12];
  tu_world_alloc_n (&f->w, id, 0, objs, 12);
  assert_int_equal (info (f, id).slabs, 12);
  tu_world_free_n (&f->w, 0, objs, 12);
  /* The 11th empty slab pushed free_objects over free_limit: destroyed. */
  assert_int_equal (node_info (f, id, 0).free, 10);
  assert_int_equal (info (f, id).stat[SIM_SLAB_SLABS_DESTROYED], 1);
  SimAddr again;
  tu_world_alloc_n (&f->w, id, 0, &again, 1);                /* empties the cpu array */
  assert_int_equal (cpu_array (f, id, 0).avail, 0);
  SimSlabNodeInfo n = node_info (f, id, 0);
  assert_true (n.free_touched);
  guint64 cpj = sim_slab_cycles_per_jiffy (f->slab);
  guint64 hz = sim_slab_hz (f->slab);
  /* Before next_reap: nothing happens to the lists. */
  sim_slab_reap (f->slab, on_at (f, 0, (n.next_reap - 1) * cpj));
  assert_int_equal (node_info (f, id, 0).free, 10);
  assert_true (node_info (f, id, 0).free_touched);
  SimTime t1 = n.next_reap * cpj;
  sim_slab_reap (f->slab, on_at (f, 0, t1));
  n = node_info (f, id, 0);
  assert_false (n.free_touched);
  assert_int_equal (n.free, 10);
  assert_true (n.next_reap >= t1 / cpj + 4 * hz);
  sim_slab_reap (f->slab, on_at (f, 0, t1 + 4 * hz * cpj));
  assert_int_equal (node_info (f, id, 0).free, 10 - (10 + 5 - 1) / 5);
  assert_int_equal (info (f, id).stat[SIM_SLAB_REAPED], 2);
  tu_world_check (&f->w);
  fix_free (f);
}

/* cache_grow colours successive slabs of a node by colour_off (the line)
 * cycling through colour = left_over / colour_off values.  A 1100-byte
 * cache: buffer 1104, order 1, 7 objects, 464 bytes left, management
 * (80 bytes) moved back on-slab: 384 left, 6 colours. */
static void
test_colouring_cycles (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  SimCacheId id = cache (f, "tcol", 1100, 0);
  SimSlabCacheInfo in = info (f, id);
  assert_int_equal (in.buffer_size, 1104);
  assert_int_equal (in.gfporder, 1);
  assert_int_equal (in.num, 7);
  assert_false (in.off_slab);
  assert_int_equal (in.slab_size, 80);
  assert_int_equal (in.colour, 6);
  assert_int_equal (in.colour_off, 64);
  SimAddr objs[56];
  tu_world_alloc_n (&f->w, id, 0, objs, 56);
  assert_int_equal (info (f, id).slabs, 8);
  SimAddr seen[8];
  guint n_seen = 0;
  for (guint i = 0; i < 56; i++)
    {
      SimAddr pages, s_mem;
      guint colouroff;
      assert_true (sim_slab_object_slab (f->slab, objs[i], &pages, &s_mem, &colouroff, NULL));
      gboolean known = FALSE;
      for (guint k = 0; k < n_seen; k++)
        known |= seen[k] == pages;
      if (known)
        continue;
      /* on-slab: struct slab at the colour offset, objects after it */
      assert_int_equal (colouroff, (n_seen % 6) * 64 + 80);
      assert_true (s_mem == pages + colouroff);
      seen[n_seen++] = pages;
    }
  assert_int_equal (n_seen, 8);
  assert_int_equal (node_info (f, id, 0).colour_next, 8 % 6);
  tu_world_check (&f->w);
  fix_free (f);
}

/* Off-slab management from PAGE_SIZE/8 = 512 bytes on, in the general
 * cache that fits num * 4 + 48 bytes; back on-slab when the leftover
 * holds it. */
static void
test_on_off_slab (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  SimSlabCacheInfo in = info (f, sim_slab_cache_by_name (f->slab, "size-256"));
  assert_false (in.off_slab);
  in = info (f, sim_slab_cache_by_name (f->slab, "size-512"));
  assert_true (in.off_slab);
  assert_int_equal (in.slab_size, 8 * 4 + 48);
  assert_string_equal (in.slabp_cache, "size-128");
  in = info (f, sim_slab_cache_by_name (f->slab, "size-1024"));
  assert_true (in.off_slab);
  assert_string_equal (in.slabp_cache, "size-64");
  SimCacheId id = cache (f, "t1100", 1100, 0);
  assert_false (info (f, id).off_slab);

  /* An off-slab slab takes its struct slab from the general cache and
   * gives it back when the slab is destroyed. */
  SimCacheId s512 = sim_slab_cache_by_name (f->slab, "size-512");
  SimCacheId s128 = sim_slab_cache_by_name (f->slab, "size-128");
  guint64 live128 = info (f, s128).live;
  SimAddr o = sim_slab_kmalloc (f->slab, on (f, 0), 500, -1, 0);
  assert_true (o != 0);
  assert_int_equal (info (f, s512).slabs, 1);
  assert_int_equal (info (f, s128).live, live128 + 1);
  tu_world_check (&f->w);
  fix_free (f);
}

/* slab_break_gfp_order is 0 with 32 MiB of memory or less: the first
 * order that holds an object is taken (1100 bytes: order 0, 3 objects,
 * 784 left, management on-slab: 720 left, 11 colours). */
static void
test_break_order_small_memory (void **state)
{
  (void) state;
  Fix *f = fix_new_mem ("slab", NULL, FALSE, 4u << 20);
  SimSlabCacheInfo in = info (f, cache (f, "tsmall", 1100, 0));
  assert_int_equal (in.gfporder, 0);
  assert_int_equal (in.num, 3);
  assert_int_equal (in.colour, 11);
  /* size-8192 still needs order 1 */
  in = info (f, sim_slab_cache_by_name (f->slab, "size-8192"));
  assert_int_equal (in.gfporder, 1);
  fix_free (f);
}

/* enable_cpucache: limit by buffer size (1 above 128 KiB, 8 above a page,
 * 24 above 1 KiB, 54 above 256 bytes, else 120), batchcount (limit+1)/2,
 * shared 8 up to a page on SMP; alien arrays 12 (1 when limit is 1). */
static void
test_enable_cpucache_limits (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  static const struct { const char *name; guint limit, batch, shared, alien; } want[] = {
    { "size-32", 120, 60, 8, 12 },
    { "size-256", 120, 60, 8, 12 },
    { "size-512", 54, 27, 8, 12 },
    { "size-1024", 54, 27, 8, 12 },
    { "size-2048", 24, 12, 8, 12 },
    { "size-4096", 24, 12, 8, 12 },
    { "size-8192", 8, 4, 0, 12 },
    { "size-131072", 8, 4, 0, 12 },
    { "size-262144", 1, 1, 0, 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      SimCacheId id = sim_slab_cache_by_name (f->slab, want[i].name);
      assert_true (id != SIM_CACHE_NONE);
      SimSlabCacheInfo in = info (f, id);
      assert_int_equal (in.limit, want[i].limit);
      assert_int_equal (in.batchcount, want[i].batch);
      assert_int_equal (in.shared, want[i].shared);
      assert_int_equal (in.shared_limit, want[i].shared * want[i].batch);
      assert_int_equal (in.alien_limit, want[i].alien);
      SimSlabNodeInfo n = node_info (f, id, 1);
      assert_int_equal (n.free_limit, (1 + 8) * want[i].batch + in.num);
    }
  fix_free (f);
}

/* calculate_slab_order against mm/slab.c of 2.6.34 by hand (64-byte lines,
 * slab_break_gfp_order 1, sizeof (struct slab) 48, bufctl 4 bytes):
 *   size-32:  align 32; order 0: (4096-48)/36 = 112, mgmt ALIGN(496,32) =
 *             512, 512 + 112*32 = 4096 fits: 112 objects, 0 left.
 *   size-64:  align 64; (4048)/68 = 59, mgmt ALIGN(284,64) = 320, 320 +
 *             3776 = 4096: 59, 0 left.
 *   size-128: align 64; 4048/132 = 30, mgmt 192, 192 + 3840 = 4032: 30,
 *             64 left: 1 colour.
 *   size-192: 4048/196 = 20, mgmt 128, left 128: 2 colours.
 *   size-512: off-slab; 8 per page, 0 left.
 *   size-8192: order 0 holds none; order 1: 1 object (1 >= break order).
 *   size-131072: order 5, 1 object.
 *   user 100 bytes, no align: 104 stride, align 8: 4048/108 = 37, mgmt
 *             ALIGN(196,8) = 200, left 4096 - 3848 - 200 = 48 (48*8 <= 4096).
 *   user 1100 with SLAB_RECLAIM_ACCOUNT: first order that fits: order 0,
 *             3 objects, 784 left, management (60 -> 64) on-slab: 720 left,
 *             11 colours. */
static void
test_calculate_slab_order (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  static const struct { const char *name; guint buffer, order, num, colour; } want[] = {
    { "size-32", 32, 0, 112, 0 },
    { "size-64", 64, 0, 59, 0 },
    { "size-128", 128, 0, 30, 1 },
    { "size-192", 192, 0, 20, 2 },
    { "size-512", 512, 0, 8, 0 },
    { "size-8192", 8192, 1, 1, 0 },
    { "size-131072", 131072, 5, 1, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      SimSlabCacheInfo in = info (f, sim_slab_cache_by_name (f->slab, want[i].name));
      assert_int_equal (in.buffer_size, want[i].buffer);
      assert_int_equal (in.gfporder, want[i].order);
      assert_int_equal (in.num, want[i].num);
      assert_int_equal (in.colour, want[i].colour);
    }
  SimSlabCacheInfo in = info (f, cache (f, "t100", 100, 0));
  assert_int_equal (in.buffer_size, 104);
  assert_int_equal (in.num, 37);
  assert_int_equal (in.gfporder, 0);
  in = info (f, cache (f, "trec", 1100, SIM_SLAB_RECLAIM_ACCOUNT));
  assert_int_equal (in.gfporder, 0);
  assert_int_equal (in.num, 3);
  assert_false (in.off_slab);
  assert_int_equal (in.colour, 11);
  fix_free (f);
}

/* kmalloc goes to the first malloc_sizes[] entry that fits: no size-96
 * with 64-byte L1 lines, size-192 present, DMA twins for GFP_DMA, nothing
 * above KMALLOC_MAX_SIZE (4 MiB): SLAB has no pass-through. */
static void
test_kmalloc_classes (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  static const struct { gsize size; guint32 gfp; const char *name; } want[] = {
    { 1, 0, "size-32" }, { 32, 0, "size-32" }, { 33, 0, "size-64" },
    { 65, 0, "size-128" }, { 96, 0, "size-128" }, { 129, 0, "size-192" },
    { 193, 0, "size-256" }, { 4097, 0, "size-8192" }, { 131072, 0, "size-131072" },
    { 4194304, 0, "size-4194304" }, { 100, SIM_GFP_DMA, "size-128(DMA)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      SimCacheId id = sim_slab_kmalloc_cache (f->slab, want[i].size, want[i].gfp);
      assert_true (id != SIM_CACHE_NONE);
      assert_string_equal (info (f, id).name, want[i].name);
    }
  assert_true (sim_slab_cache_by_name (f->slab, "size-96") == SIM_CACHE_NONE);
  assert_true (sim_slab_kmalloc_cache (f->slab, 4194305, 0) == SIM_CACHE_NONE);
  assert_true (sim_slab_kmalloc (f->slab, on (f, 0), 4194305, -1, 0) == 0);
  SimAddr a = sim_slab_kmalloc (f->slab, on (f, 0), 100, -1, 0);
  assert_true (a != 0);
  const SimAllocOps *ops = sim_alloc_slab_ops ();
  assert_int_equal (ops->ksize (f->slab, a), 128);
  assert_true (sim_slab_free (f->slab, on (f, 0), a));
  tu_world_check (&f->w);
  fix_free (f);
}

/* Parameters: global tunables, slabinfo-style per-cache tunables, and
 * clear errors for everything else. */
static void
test_params (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab:limit=30,shared=2,slabinfo=size-64 10 5 1;tp:7:3:0");
  SimSlabCacheInfo in = info (f, cache (f, "tx", 64, 0));
  assert_int_equal (in.limit, 30);
  assert_int_equal (in.batchcount, 15);
  assert_int_equal (in.shared, 2);
  in = info (f, sim_slab_cache_by_name (f->slab, "size-64"));
  assert_int_equal (in.limit, 10);
  assert_int_equal (in.batchcount, 5);
  assert_int_equal (in.shared_limit, 5);
  in = info (f, cache (f, "tp", 64, 0));
  assert_int_equal (in.limit, 7);
  assert_int_equal (in.shared, 0);
  const SimAllocOps *ops = sim_alloc_slab_ops ();
  g_autofree char *p = ops->params (f->slab);
  assert_string_equal (p, "slab_stats=0,hz=1000,limit=30,shared=2,slabinfo=size-64:10:5:1;tp:7:3:0");
  fix_free (f);

  static const struct { const char *spec; const char *needle; } bad[] = {
    { "slab:bogus=1", "expected one of: limit, batchcount" },
    { "slab@2.6.99", "known: 2.6.34, 2.6.23" },
    { "slab:limit=0", "limit must be at least 1" },
    { "slab:limit=8,batchcount=9", "batchcount 9 is above limit 8" },
    { "slab:slabinfo=size-64:10", "is not CACHE:LIMIT:BATCHCOUNT:SHARED" },
    { "slab:slabinfo=size-64:10:20:0", "1 <= batchcount <= limit" },
    { "slab:slabinfo=a:2:1:0;a:3:1:0", "tuned twice" },
    { "slab:noaliencache=1", "takes no value" },
    { "slab:slab_stats=2", "slab_stats" },
  };
  SimMachine *mach = sim_machine_load ("nehalem-ep-2s", NULL, NULL);
  SimMemSys *mem = sim_memsys_new (mach, NULL);
  SimPageParams pp = { .era = SIM_PAGE_ERA_2_6_32 };
  SimPageAlloc *pages = sim_page_alloc_new (mach, mem, &pp, NULL);
  SimAllocEnv env = { .machine = mach, .mem = mem, .pages = pages, .n_cpus = mach->n_cpus };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse (bad[i].spec, &error);
      assert_non_null (spec);
      assert_null (sim_slab_new (spec, &env, &error));
      assert_non_null (error);
      if (strstr (error->message, bad[i].needle) == NULL)
        print_error ("%s: %s\n", bad[i].spec, error->message);
      assert_non_null (strstr (error->message, bad[i].needle));
      assert_int_equal (sim_error_exit_code (error), 2);
      if (i == 0)
        assert_true (error->domain == SIM_USAGE_ERROR);
      g_error_free (error);
    }
  sim_page_alloc_free (pages);
  sim_memsys_free (mem);
  sim_machine_free (mach);
}

/* The checker sees an object pushed twice onto a CPU's array. */
static void
test_checker_catches_corruption (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  SimCacheId id = cache (f, "tc", 64, 0);
  SimAddr objs[4];
  tu_world_alloc_n (&f->w, id, 0, objs, 4);
  tu_world_check (&f->w);
  assert_true (sim_slab_test_corrupt (f->slab, id, 0));
  GError *error = NULL;
  assert_false (sim_slab_check (f->slab, &error));
  assert_non_null (error);
  assert_non_null (strstr (error->message, "two places"));
  assert_true (error->domain == SIM_MODEL_ERROR);
  g_error_free (error);
  fix_free (f);
}

/* With an engine, cache_reap runs as events: every CPU's first run comes
 * at 1 s minus 3 jiffies per CPU number, the next ones 2 s apart; freeing
 * the model cancels them.  Jiffies tick at the era's HZ (x86-64 defconfig:
 * 1000 for 2.6.34, 250 for 2.6.23) unless hz= says otherwise. */
static void
check_reap_timer (const char *spec, guint hz, guint64 first)
{
  Fix *f = fix_new_full (spec, NULL, TRUE);
  assert_int_equal (sim_slab_hz (f->slab), hz);
  assert_int_equal (sim_engine_pending (f->w.eng), f->w.machine->n_cpus);
  guint64 cpj = sim_slab_cycles_per_jiffy (f->slab);
  assert_int_equal (cpj, (guint64) (2.93e9 / hz + 0.5));     /* 2.93 GHz */
  assert_int_equal (sim_engine_next_time (f->w.eng), first * cpj);
  SimCacheId id = cache (f, "te", 64, 0);
  SimAddr o;
  tu_world_alloc_n (&f->w, id, 0, &o, 1);
  assert_int_equal (cpu_array (f, id, 0).touched, 1);
  sim_engine_run (f->w.eng, hz * cpj - 1);        /* before cpu 0's first reap */
  assert_int_equal (cpu_array (f, id, 0).touched, 1);
  sim_engine_run (f->w.eng, hz * cpj);            /* cpu 0's first reap, at 1 s */
  assert_int_equal (cpu_array (f, id, 0).touched, 0);
  assert_int_equal (cpu_array (f, id, 0).avail, 15);
  assert_true (sim_engine_cpu_clock (f->w.eng, 0) > hz * cpj);
  sim_engine_run (f->w.eng, 3 * hz * cpj - 1);
  assert_int_equal (cpu_array (f, id, 0).avail, 15);
  sim_engine_run (f->w.eng, 3 * hz * cpj);        /* the one at 3 s */
  assert_int_equal (cpu_array (f, id, 0).avail, 7);
  assert_int_equal (sim_engine_pending (f->w.eng), f->w.machine->n_cpus);
  tu_world_check (&f->w);
  sim_slab_free_model (f->slab);
  f->slab = NULL;
  assert_int_equal (sim_engine_pending (f->w.eng), 0);
  fix_free (f);
}

static void
test_reap_timer_on_engine (void **state)
{
  (void) state;
  /* The first to run is the last of 16 CPUs, a second less 3 * 15
   * jiffies ... */
  check_reap_timer ("slab", 1000, 1000 - 45);
  check_reap_timer ("slab@2.6.34", 1000, 1000 - 45);
  check_reap_timer ("slab@2.6.23", 250, 250 - 45);
  check_reap_timer ("slab@2.6.34:hz=250", 250, 250 - 45);
  check_reap_timer ("slab:hz=300", 300, 300 - 45);
  /* ... except at HZ 100, where __round_jiffies rounds down only within
   * HZ/4 = 25 jiffies of the second: CPU 8 (100 + 24 -> 100, less 24)
   * comes first at 76, CPUs 9-15 round up. */
  check_reap_timer ("slab@2.6.23:hz=100", 100, 76);
}

/* hz= takes only what kernel/Kconfig.hz offers, with an error that says
 * so; the model is not made. */
static void
test_hz_validated (void **state)
{
  (void) state;
  const char *bad[] = { "slab:hz=200", "slab:hz=0", "slab:hz", "slab:hz=1k", "slab@2.6.23:hz=1001" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      TuWorld w;
      tu_world_init (&w, bad[i], NULL, 0, FALSE);
      SimSlab *m = sim_slab_new (w.spec, &w.env, &error);
      assert_null (m);
      assert_non_null (error);
      g_printerr ("%s: %s\n", bad[i], error->message);
      assert_non_null (strstr (error->message, "\"hz\""));
      tu_world_clear (&w);
    }
}

/* A non-NUMA machine: one node, no alien arrays, every CPU refills from
 * the same lists. */
static void
test_single_node (void **state)
{
  (void) state;
  Fix *f = fix_new_full ("slab", (const char *[]) { "numa=false", NULL }, FALSE);
  SimCacheId id = cache (f, "t1", 128, SIM_SLAB_HWCACHE_ALIGN);
  SimSlabArrayInfo al;
  assert_false (sim_slab_alien_array (f->slab, id, 0, 1, &al));
  assert_int_equal (node_info (f, id, 0).free_limit, (1 + 16) * 60 + 30);
  SimAddr objs[40];
  tu_world_alloc_n (&f->w, id, 0, objs, 20);
  tu_world_alloc_n (&f->w, id, 1, &objs[20], 20);
  tu_world_free_n (&f->w, 1, objs, 40);
  SimSlabCacheInfo in = info (f, id);
  assert_int_equal (in.stat[SIM_SLAB_NODE_FREES], 0);
  assert_int_equal (in.stat[SIM_SLAB_FREEHIT], 40);
  tu_world_check (&f->w);
  fix_free (f);
}

/* __GFP_ZERO clears buffer_size bytes: one access per line. */
static void
test_gfp_zero (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  SimCacheId id = cache (f, "tz", 512, 0);
  SimAddr o;
  tu_world_alloc_n (&f->w, id, 0, &o, 1);
  SimOp *op = on (f, 0);
  sim_slab_cache_alloc (f->slab, op, id, -1, 0);
  guint plain = op->cost.accesses;
  op = on (f, 0);
  sim_slab_cache_alloc (f->slab, op, id, -1, SIM_GFP_ZERO);
  assert_int_equal (op->cost.accesses, plain + 1 + 512 / 64);
  assert_false (sim_slab_free (f->slab, on (f, 0), 0x12345678));
  fix_free (f);
}

/* The report maps STATS onto the common columns. */
static void
test_report_rows (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  SimCacheId id = cache (f, "tr", 64, 0);
  SimAddr objs[30];
  tu_world_alloc_n (&f->w, id, 0, objs, 30);
  tu_world_free_n (&f->w, 0, objs, 20);
  tu_world_free_n (&f->w, 1, &objs[20], 10);                 /* remote: alien */
  const SimAllocOps *ops = sim_alloc_slab_ops ();
  SimAllocReport r;
  sim_alloc_report_init (&r);
  ops->report (f->slab, &r);
  const SimAllocCacheRow *row = NULL;
  for (guint i = 0; i < r.rows->len; i++)
    if (strcmp (g_array_index (r.rows, SimAllocCacheRow, i).name, "tr") == 0)
      row = &g_array_index (r.rows, SimAllocCacheRow, i);
  assert_non_null (row);
  assert_int_equal (row->alloc, 30);
  assert_int_equal (row->alloc_fast, 28);
  assert_int_equal (row->free, 30);
  assert_int_equal (row->free_fast, 20);
  assert_int_equal (row->objs_per_slab, 59);
  assert_int_equal (row->n_stats, SIM_SLAB_N_STATS);
  assert_string_equal (row->stat_names[0], "allochit");
  sim_alloc_report_clear (&r);
  fix_free (f);
}

/* Random allocations and frees on every CPU of both nodes, through
 * kmalloc and a cache with off-slab management, with cache_reap runs in
 * between: the invariant checker must hold throughout, and when every
 * object is freed and the arrays drained by repeated reaps nothing is
 * handed out. */
static void
test_random_stress (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab:slabinfo=tbig:8:4:2");
  SimCacheId big = cache (f, "tbig", 1024, 0);
  assert_true (info (f, big).off_slab);
  SimRng rng;
  sim_rng_init (&rng, 42, 0);
  enum { N = 3000 };
  SimAddr *live = g_new0 (SimAddr, N);
  guint n_live = 0;
  guint64 cpj = sim_slab_cycles_per_jiffy (f->slab);
  SimTime t = 0;
  for (guint step = 0; step < 40000; step++)
    {
      guint cpu = (guint) sim_rng_below (&rng, f->w.machine->n_cpus);
      t += cpj / 8;
      if (n_live < N && (n_live == 0 || sim_rng_below (&rng, 100) < 55))
        {
          SimAddr a;
          if (sim_rng_below (&rng, 3) == 0)
            a = sim_slab_cache_alloc (f->slab, on_at (f, cpu, t), big,
                                      sim_rng_below (&rng, 4) == 0 ? (gint) sim_rng_below (&rng, 2)
                                                                   : -1, 0);
          else
            a = sim_slab_kmalloc (f->slab, on_at (f, cpu, t), 1 + sim_rng_below (&rng, 3000), -1,
                                  sim_rng_below (&rng, 8) == 0 ? SIM_GFP_ZERO : 0);
          assert_true (a != 0);
          live[n_live++] = a;
        }
      else
        {
          guint k = (guint) sim_rng_below (&rng, n_live);
          assert_true (sim_slab_free (f->slab, on_at (f, cpu, t), live[k]));
          live[k] = live[--n_live];
        }
      if (step % 500 == 0)
        sim_slab_reap (f->slab, on_at (f, cpu, t));
      if (step % 2000 == 0)
        tu_world_check (&f->w);
    }
  tu_world_check (&f->w);
  for (guint i = 0; i < n_live; i++)
    assert_true (sim_slab_free (f->slab, on_at (f, i % f->w.machine->n_cpus, t), live[i]));
  tu_world_check (&f->w);
  /* Drain: alien arrays round robin, CPU arrays by fifths, shared arrays
   * and free slabs every 4 s. */
  for (guint r = 0; r < 200; r++)
    {
      t += 500 * cpj;
      for (guint cpu = 0; cpu < f->w.machine->n_cpus; cpu++)
        sim_slab_reap (f->slab, on_at (f, cpu, t));
    }
  tu_world_check (&f->w);
  SimSlabCacheInfo in = info (f, big);
  assert_int_equal (in.live, 0);
  assert_int_equal (in.active_objs, 0);
  assert_int_equal (in.stat[SIM_SLAB_NUM_ACTIVE], 0);
  assert_true (in.stat[SIM_SLAB_REAPED] > 0);
  assert_true (in.stat[SIM_SLAB_NODE_FREES] > 0);
  g_free (live);
  fix_free (f);
}

/* A 128-CPU machine with two hundred caches: the per-CPU arrays (1 KiB
 * each for small objects) live in their node's pages, so creating them
 * neither exhausts the static area nor mixes nodes. */
static void
test_many_caches_large_machine (void **state)
{
  (void) state;
  GError *error = NULL;
  SimMachine *mach = sim_machine_load ("nehalem-ep-2s",
                                       (const char *[]) { "topology.cores_per_socket=32", NULL },
                                       &error);
  assert_non_null (mach);
  assert_int_equal (mach->n_cpus, 128);
  SimMemSys *mem = sim_memsys_new (mach, &error);
  assert_non_null (mem);
  SimPageParams pp = { .era = SIM_PAGE_ERA_2_6_32 };
  SimPageAlloc *pages = sim_page_alloc_new (mach, mem, &pp, &error);
  assert_non_null (pages);
  SimAllocEnv env = { .machine = mach, .mem = mem, .pages = pages, .n_cpus = mach->n_cpus };
  g_autoptr (SimAllocSpec) spec = sim_alloc_spec_parse ("slab", &error);
  SimSlab *m = sim_slab_new (spec, &env, &error);
  assert_non_null (m);
  guint64 before = sim_page_allocated (pages);
  SimOp op;
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *name = g_strdup_printf ("cache%u", i);
      SimCacheSpec cs = { .name = name, .object_size = 16 + 8 * i };
      sim_op_begin (&op, mem, 0, 0);
      assert_true (sim_slab_cache_create (m, &op, &cs, &error) != SIM_CACHE_NONE);
    }
  /* 128 arrays of up to 1 KiB plus shared and alien arrays per cache */
  guint64 used = sim_page_allocated (pages) - before;
  assert_true (used >= 200 * 128 * 1024 / SIM_PAGE_SIZE / 2);
  SimCacheId id = sim_slab_cache_by_name (m, "cache199");
  sim_op_begin (&op, mem, 127, 0);
  SimAddr a = sim_slab_cache_alloc (m, &op, id, -1, 0);
  assert_true (a != 0);
  assert_true (sim_slab_free (m, &op, a));
  assert_true (sim_slab_check (m, &error));
  sim_slab_free_model (m);
  sim_page_alloc_free (pages);
  sim_memsys_free (mem);
  sim_machine_free (mach);
}

/* slab_stats=1 charges the STATS updates: an array hit is one atomic
 * increment of allochit in kmem_cache more. */
static void
test_stats_cost (void **state)
{
  (void) state;
  guint accesses[2];
  for (guint k = 0; k < 2; k++)
    {
      Fix *f = fix_new (k ? "slab:slab_stats=1" : "slab");
      SimCacheId id = cache (f, "ts", 64, 0);
      SimAddr o;
      tu_world_alloc_n (&f->w, id, 0, &o, 1);
      SimOp *op = on (f, 0);
      assert_true (sim_slab_cache_alloc (f->slab, op, id, -1, 0) != 0);
      accesses[k] = op->cost.accesses;
      assert_int_equal (info (f, id).stat[SIM_SLAB_ALLOCHIT], 1);
      fix_free (f);
    }
  assert_int_equal (accesses[1], accesses[0] + 1);
}

/* Same inputs, same cycles: a mixed workload run twice. */
/* kmem_cache_free against kfree (mm/slab.c): kfree finds the cache with
 * virt_to_cache (struct page), and so does 2.6.23's kmem_cache_free, for
 * its BUG_ON(virt_to_cache(objp) != cachep); 2.6.34's kmem_cache_free is
 * handed the cache and reads no struct page.  An array hit on the
 * allocating CPU, so only the entry path differs: in instructions, the
 * table's kfree row (17 in both eras), and in struct page reads. */
static void
free_path (const char *spec, gboolean use_kfree, guint64 *n_instr, guint32 *accesses)
{
  Fix *f = fix_new (spec);
  SimCacheId id = cache (f, "tk", 128, SIM_SLAB_HWCACHE_ALIGN);
  SimAddr a, b;
  tu_world_alloc_n (&f->w, id, 0, &a, 1);
  tu_world_alloc_n (&f->w, id, 0, &b, 1);
  SimOp *op = on (f, 0);
  assert_true (use_kfree ? sim_slab_free (f->slab, op, a) : sim_slab_cache_free (f->slab, op, a));
  *n_instr = op->cost.n_instr;
  *accesses = op->cost.accesses;
  assert_int_equal (cpu_array (f, id, 0).avail, 15);   /* refill 16, two out, one back */
  tu_world_check (&f->w);
  fix_free (f);
}

static void
test_kmem_cache_free_check (void **state)
{
  (void) state;
  guint64 i34c, i34k, i23c, i23k;
  guint32 a34c, a34k, a23c, a23k;
  free_path ("slab@2.6.34", FALSE, &i34c, &a34c);
  free_path ("slab@2.6.34", TRUE, &i34k, &a34k);
  free_path ("slab@2.6.23", FALSE, &i23c, &a23c);
  free_path ("slab@2.6.23", TRUE, &i23k, &a23k);
  g_printerr ("instructions kmem_cache_free/kfree: 2.6.34 %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
              ", 2.6.23 %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "\n", i34c, i34k, i23c, i23k);
  assert_int_equal (i34k, i34c + 17);
  assert_int_equal (a34k, a34c + 2);               /* page flags, page->lru */
  assert_int_equal (i23k, i23c);                   /* the BUG_ON's virt_to_cache */
  assert_int_equal (a23k, a23c);
}

static guint64
workload_cycles (void)
{
  Fix *f = fix_new ("slab");
  SimCacheId id = cache (f, "tw", 200, SIM_SLAB_HWCACHE_ALIGN);
  SimRng rng;
  sim_rng_init (&rng, 7, 1);
  SimAddr objs[500];
  guint n = 0;
  guint64 total = 0;
  SimTime clk[16] = { 0 };
  for (guint i = 0; i < 5000; i++)
    {
      guint cpu = (guint) sim_rng_below (&rng, 16);
      SimOp *op = on_at (f, cpu, clk[cpu]);
      if (n < 500 && (n == 0 || sim_rng_below (&rng, 2)))
        objs[n++] = sim_slab_cache_alloc (f->slab, op, id, -1, 0);
      else
        {
          guint k = (guint) sim_rng_below (&rng, n);
          assert_true (sim_slab_free (f->slab, op, objs[k]));
          objs[k] = objs[--n];
        }
      total += sim_op_cycles (op);
      clk[cpu] = op->t;
    }
  tu_world_check (&f->w);
  fix_free (f);
  return total;
}

static void
test_deterministic (void **state)
{
  (void) state;
  guint64 a = workload_cycles ();
  guint64 b = workload_cycles ();
  assert_true (a > 0);
  assert_int_equal (a, b);
}

/* 2.6.23 on a generic x86-64 build: X86_L1_CACHE_BYTES is 128 for
 * GENERIC_CPU (arch/x86_64/Kconfig), so kmalloc_sizes.h has neither
 * size-96 nor size-192 and 129..256 bytes go to size-256. */
static void
test_kmalloc_classes_2_6_23 (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab@2.6.23");
  assert_true (sim_slab_cache_by_name (f->slab, "size-96") == SIM_CACHE_NONE);
  assert_true (sim_slab_cache_by_name (f->slab, "size-192") == SIM_CACHE_NONE);
  SimCacheId id = sim_slab_kmalloc_cache (f->slab, 150, 0);
  assert_true (id != SIM_CACHE_NONE);
  assert_string_equal (info (f, id).name, "size-256");
  fix_free (f);
}

/* A constant-size kmalloc picks its cache at compile time (slab_def.h):
 * the cost does not grow with the size class's position in
 * malloc_sizes[] (no __find_general_cachep walk).  Warm each class first,
 * then compare a hot kmalloc of the smallest and of a large class. */
static void
test_kmalloc_no_walk (void **state)
{
  (void) state;
  Fix *f = fix_new ("slab");
  guint64 instr[2];
  gsize sizes[2] = { 32, 65536 };
  for (guint k = 0; k < 2; k++)
    {
      SimAddr a = sim_slab_kmalloc (f->slab, on (f, 0), sizes[k], -1, 0);
      SimAddr b = sim_slab_kmalloc (f->slab, on (f, 0), sizes[k], -1, 0);
      assert_true (a && b);
      assert_true (sim_slab_free (f->slab, on (f, 0), b));
      SimOp *op = on (f, 0);
      b = sim_slab_kmalloc (f->slab, op, sizes[k], -1, 0);
      assert_true (b != 0);
      instr[k] = op->cost.instr;
      assert_true (sim_slab_free (f->slab, on (f, 0), a));
      assert_true (sim_slab_free (f->slab, on (f, 0), b));
    }
  assert_int_equal (instr[0], instr[1]);
  tu_world_check (&f->w);
  fix_free (f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_refill_batch),
    cmocka_unit_test (test_flush_to_shared_and_refill_from_it),
    cmocka_unit_test (test_flush_free_block_when_shared_full),
    cmocka_unit_test (test_alien_free_and_drain),
    cmocka_unit_test (test_reap_touched_and_untouched),
    cmocka_unit_test (test_node_reap_frees_slabs),
    cmocka_unit_test (test_colouring_cycles),
    cmocka_unit_test (test_on_off_slab),
    cmocka_unit_test (test_enable_cpucache_limits),
    cmocka_unit_test (test_calculate_slab_order),
    cmocka_unit_test (test_break_order_small_memory),
    cmocka_unit_test (test_kmalloc_classes),
    cmocka_unit_test (test_kmalloc_classes_2_6_23),
    cmocka_unit_test (test_kmalloc_no_walk),
    cmocka_unit_test (test_params),
    cmocka_unit_test (test_checker_catches_corruption),
    cmocka_unit_test (test_reap_timer_on_engine),
    cmocka_unit_test (test_hz_validated),
    cmocka_unit_test (test_kmem_cache_free_check),
    cmocka_unit_test (test_single_node),
    cmocka_unit_test (test_gfp_zero),
    cmocka_unit_test (test_report_rows),
    cmocka_unit_test (test_random_stress),
    cmocka_unit_test (test_many_caches_large_machine),
    cmocka_unit_test (test_stats_cost),
    cmocka_unit_test (test_deterministic),
  };
  return cmocka_run_group_tests_name ("slab-rules", tests, NULL, NULL);
}
