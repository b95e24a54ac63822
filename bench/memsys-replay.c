/* memsys-replay.c - replay a din trace through a Nehalem-EP-like 2-socket
 * machine built in C (the values of caches.md §3), without the YAML loader:
 * bench/cachesim.sh uses it to time the full three-level coherent model on
 * its own.  Prints the total cycles and HITM count so the work cannot be
 * optimised away and runs can be compared.
 *
 * usage: memsys-replay TRACE
 */
#include "models/cache/memsys.h"
#include "models/cache/din.h"

#include <stdio.h>

static gboolean
replay (const SimDinRecord *rec, guint64 line, gpointer user_data, GError **error)
{
  SimMemSys *ms = user_data;
  static const SimAccKind kind[] = { SIM_ACC_READ, SIM_ACC_WRITE, SIM_ACC_RMW };
  (void) line;
  (void) error;
  if (rec->op != SIM_DIN_IFETCH)
    sim_memsys_access (ms, rec->cpu % sim_memsys_n_cpus (ms), rec->addr, rec->size,
                       kind[rec->op]);
  return TRUE;
}

static void
level (SimMachine *m, const char *name, guint64 size, guint ways, SimInclusion incl,
       guint shared, guint lat)
{
  SimCacheLevelSpec *s = &m->levels[m->n_levels++];
  *s = (SimCacheLevelSpec) { (char *) name, size, ways, 64, SIM_REPL_LRU, incl, shared, lat };
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: memsys-replay TRACE\n");
      return 2;
    }
  SimCpuPlace cpus[16];
  SimMachine m = {
    .name = (char *) "nehalem-ep-2s (built in)", .frequency_ghz = 2.93,
    .sockets = 2, .cores_per_socket = 4, .threads_per_core = 2, .n_cpus = 16, .cpus = cpus,
    .coherence = SIM_COH_MESIF, .lat_local_clean = 65, .lat_local_hitm = 75,
    .lat_remote_clean = 200, .lat_remote_hitm = 300, .numa = TRUE,
    .node_bytes = G_GUINT64_CONSTANT (6) << 30, .lat_dram_local = 176,
    .lat_dram_remote = 293, .seed = 1,
  };
  for (guint c = 0; c < 16; c++)
    cpus[c] = (SimCpuPlace) { c / 8, (c / 2) % 4, c % 2 };
  level (&m, "L1d", 32768, 8, SIM_INCL_NINE, 1, 4);
  level (&m, "L2", 262144, 8, SIM_INCL_NINE, 1, 10);
  level (&m, "L3", 8388608, 16, SIM_INCL_INCLUSIVE, 0, 40);
  GError *error = NULL;
  SimMemSys *ms = sim_memsys_new (&m, &error);
  if (ms == NULL || !sim_din_read (argv[1], replay, ms, NULL, &error))
    {
      fprintf (stderr, "memsys-replay: %s\n", error->message);
      return 1;
    }
  SimCpuMemStats t;
  sim_memsys_total_stats (ms, &t);
  printf ("cycles %" G_GUINT64_FORMAT " hitm %" G_GUINT64_FORMAT, t.cycles, t.hitm);
  for (guint l = 0; l < 3; l++)
    printf (" %s %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT, m.levels[l].name,
            t.level[l].misses[0] + t.level[l].misses[1] + t.level[l].misses[2],
            t.level[l].accesses[0] + t.level[l].accesses[1] + t.level[l].accesses[2]);
  printf ("\n");
  sim_memsys_free (ms);
  return 0;
}
