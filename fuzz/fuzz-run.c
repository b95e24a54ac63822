/* fuzz-run.c - libFuzzer target: trace bytes -> reader -> replay through
 * an allocator model, with the invariant checker on, on small machines.
 *
 * The first input byte picks the allocator and era (every model the
 * simulator has, all of their eras), the machine (a 4-CPU UMA Core 2, a
 * 16-CPU two-node Nehalem, both with small caches) and the replay flags
 * (touch whole objects, lenient reading; replay is always ordered);
 * the rest is the trace, read in whatever format it sniffs as (text,
 * gzip, native).  A bad trace, a trace with more CPUs than the machine and
 * a trace that exhausts simulated memory are errors, as for a user;
 * a broken invariant (--check, or a free the model does not own), a GLib
 * warning or critical (the fatal log writer aborts), a crash or a
 * sanitizer report are bugs. */
#define _GNU_SOURCE 1
#include "fuzz/fuzz-common.h"
#include "sim/core/errors.h"
#include "sim/config/machine.h"
#include "sim/run/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const specs[] = {
  "slub@2.6.23", "slub@2.6.33", "slub@2.6.34", "slub@6.18",
  "slab@2.6.23", "slab@2.6.34", "slqb",
};

static SimMachine *machines[2];

static void
load_machines (void)
{
  if (machines[0])
    return;
  static const char *const small[] = {
    "caches.L1d.size=4K", "caches.L2.size=16K", "caches.L3.size=64K", NULL,
  };
  static const char *const core2[] = {
    "caches.L1d.size=4K", "caches.L2.size=16K", NULL,
  };
  GError *error = NULL;
  machines[0] = sim_machine_load ("core2-quad", core2, &error);
  g_assert_no_error (error);
  machines[1] = sim_machine_load ("nehalem-ep-2s", small, &error);
  g_assert_no_error (error);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  sim_install_fatal_log_writer (TRUE);
  if (size < 1)
    return 0;
  load_machines ();
  guint pick = data[0];
  const char *spec = specs[pick % G_N_ELEMENTS (specs)];
  pick /= G_N_ELEMENTS (specs);
  const SimMachine *m = machines[pick % 2];
  pick /= 2;

  /* The replay reads a path: a memfd holds the trace without touching disk. */
  int fd = memfd_create ("fuzz-trace", MFD_CLOEXEC);
  g_assert (fd >= 0);
  for (size_t off = 1; off < size; )
    {
      ssize_t n = write (fd, data + off, size - off);
      g_assert (n > 0);
      off += (size_t) n;
    }
  char path[64];
  g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);

  SimReplayOptions opt = {
    /* ordered replay only: a timed replay runs the models' periodic work
     * (SLAB's cache_reap every 2 s per CPU, SLQB's trim) for the whole
     * time the trace spans, so a mutated timestamp of 10^4 s costs
     * minutes under the sanitizers; its rules are in tests/ instead */
    .machine = m, .mode = SIM_REPLAY_ORDERED,
    .touch = (pick & 1) ? SIM_TOUCH_OBJECT : SIM_TOUCH_LINE,
    /* the check runs at the end: sim_page_check walks every frame, and
     * checking every N events made the target 30 times slower */
    .check = TRUE, .lenient = (pick & 2) != 0,
  };
  SimReplayResult res;
  GError *error = NULL;
  gboolean ok = sim_replay_run (path, spec, &opt, &res, &error);
  close (fd);
  if (!ok)
    {
      /* what a user may cause is an error; a broken invariant is a bug */
      if (g_error_matches (error, SIM_MODEL_ERROR, SIM_MODEL_ERROR_INVARIANT))
        {
          fprintf (stderr, "fuzz-replay: %s: %s\n", spec, error->message);
          abort ();
        }
      g_clear_error (&error);
    }
  sim_replay_result_clear (&res);
  return 0;
}
