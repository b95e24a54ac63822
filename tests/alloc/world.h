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
} TuWorld;

/* Build the world for allocator @spec_text ("slab", "slub@2.6.34:...");
 * @managed_bytes 0 = the page allocator's default per node. */
void tu_world_init  (TuWorld *w, const char *spec_text, const char *const *overrides,
                     guint64 managed_bytes, gboolean engine);
void tu_world_clear (TuWorld *w);

/* Fail the test with @error's message when @model is NULL. */
void tu_world_assert_model (gconstpointer model, GError *error);
