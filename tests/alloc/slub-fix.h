/* slub-fix.h - the fixture of the SLUB directed tests (test-slub-sheaves,
 * test-slub-7): a model on its TuWorld, one operation at a time on a
 * chosen CPU, with the cycles of every operation summed, and the
 * alloc/free/check helpers those tests share.  Header-only: each test is
 * one executable. */
#pragma once

#include "tests/alloc/world.h"
#include "models/alloc/slub.h"

typedef struct {
  TuWorld w;
  SimSlub *slub;
  SimOp op;
  guint64 cycles;                  /* summed over every operation */
} Fix;

static inline Fix *
fix_new_on (const char *spec_text, const char *const *overrides)
{
  Fix *f = g_new0 (Fix, 1);
  GError *error = NULL;
  tu_world_init (&f->w, spec_text, overrides, 0, FALSE);
  f->slub = sim_slub_new (f->w.spec, &f->w.env, &error);
  tu_world_assert_model (f->slub, error);
  return f;
}

/* One node unless the test is about NUMA. */
static inline Fix *
fix_new (const char *spec_text)
{
  return fix_new_on (spec_text, (const char *[]) { "numa=false", NULL });
}

static inline void
fix_free (Fix *f)
{
  sim_slub_free_model (f->slub);
  tu_world_clear (&f->w);
  g_free (f);
}

static inline SimOp *
on (Fix *f, guint cpu)
{
  sim_op_begin (&f->op, f->w.mem, cpu, 0);
  return &f->op;
}

static inline void
done (Fix *f)
{
  f->cycles += sim_op_cycles (&f->op);
}

static inline SimCacheId
cache (Fix *f, const char *name, guint size, guint32 capacity)
{
  SimCacheSpec spec = { .name = name, .object_size = size, .sheaf_capacity = capacity };
  GError *error = NULL;
  SimCacheId id = sim_slub_cache_create (f->slub, on (f, 0), &spec, &error);
  assert_true (id != SIM_CACHE_NONE);
  return id;
}

static inline void
info (Fix *f, SimCacheId id, SimSlubCacheInfo *out)
{
  sim_slub_cache_info (f->slub, id, out);
  sim_slub_cache_info_clear (out);
}

static inline void
check (Fix *f)
{
  GError *error = NULL;
  if (!sim_slub_check (f->slub, &error))
    {
      print_error ("invariant: %s\n", error->message);
      fail ();
    }
}

static inline SimAddr
alloc1 (Fix *f, SimCacheId id, guint cpu, gint node, guint32 gfp)
{
  SimAddr a = sim_slub_cache_alloc (f->slub, on (f, cpu), id, node, gfp);
  done (f);
  assert_true (a != 0);
  return a;
}

static inline void
free1 (Fix *f, guint cpu, SimAddr a)
{
  assert_true (sim_slub_free (f->slub, on (f, cpu), a));
  done (f);
}

/* Allocations that may sleep (GFP_KERNEL): the only ones that refill. */
static inline void
alloc_n (Fix *f, SimCacheId id, guint cpu, SimAddr *objs, guint n)
{
  for (guint i = 0; i < n; i++)
    objs[i] = alloc1 (f, id, cpu, SIM_NUMA_NO_NODE, SIM_GFP_WAIT);
}

static inline void
free_n (Fix *f, guint cpu, SimAddr *objs, guint n)
{
  for (guint i = 0; i < n; i++)
    free1 (f, cpu, objs[i]);
}
