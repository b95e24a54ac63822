/* world.h - the machine an allocator-model test drives a model on:
 * nehalem-ep-2s (with overrides), its memory system, the page allocator of
 * the model's kernel era, optionally an engine, and the SimAllocEnv that
 * ties them together.  Shared by the directed tests of every model. */
#pragma once

#include "tests/testutil.h"
#include "models/alloc/alloc.h"
#include "models/page/page-alloc.h"
#include "sim/config/machine.h"

typedef struct {
  SimMachine   *machine;
  SimMemSys    *mem;
  SimPageAlloc *pages;
  SimEngine    *eng;           /* NULL unless asked for */
  SimAllocEnv   env;
  SimAllocSpec *spec;          /* the parsed allocator spec */
  const SimAllocOps *ops;      /* the model's ops table */
  gpointer      model;         /* set by the test once it has made the model */
  SimOp         op;            /* the operation of the helpers below */
} TuWorld;

/* Build the world for allocator @spec_text ("slab", "slub@2.6.34:...");
 * @managed_bytes 0 = the page allocator's default per node. */
void tu_world_init  (TuWorld *w, const char *spec_text, const char *const *overrides,
                     guint64 managed_bytes, gboolean engine);
void tu_world_clear (TuWorld *w);

/* Fail the test with @error's message when @model is NULL. */
void tu_world_assert_model (gconstpointer model, GError *error);

/* Through the model's ops table, each call at time 0 on @cpu:
 * allocate @n objects of cache @id (each must succeed), free them, and run
 * the invariant checker (failing the test with its message). */
void tu_world_alloc_n (TuWorld *w, SimCacheId id, guint cpu, SimAddr *objs, guint n);
void tu_world_free_n  (TuWorld *w, guint cpu, const SimAddr *objs, guint n);
void tu_world_check   (TuWorld *w);
