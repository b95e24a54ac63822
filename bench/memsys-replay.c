/* memsys-replay.c - time the memory-system model alone, without trace
 * parsing: load a din trace into memory, then replay it through a
 * Nehalem-EP-like 2-socket machine built in C (the values of caches.md §3,
 * so no YAML loader is needed) or, with --cachegrind, through Cachegrind
 * mode (D1 32768,8,64, LL 8388608,16,64).  Prints the model's rate (it reads
 * the host clock: it is a benchmark, not part of the simulator) and the
 * counters, so that runs can be compared and the work is not optimised away.
 *
 * usage: memsys-replay [--cachegrind] TRACE
 */
#include "models/cache/memsys.h"
#include "models/cache/din.h"

#include <stdio.h>
#include <time.h>

/* CPU time of this thread in microseconds: on a shared host the wall clock
 * also counts the time other tenants held the CPU. */
static gint64
cpu_time_us (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

typedef struct {
  guint64 addr;
  guint16 size;
  guint8  cpu, kind;
} Rec;

static gboolean
load (const SimDinRecord *rec, guint64 line, gpointer user_data, GError **error)
{
  static const SimAccKind kind[] = { SIM_ACC_READ, SIM_ACC_WRITE, SIM_ACC_RMW };
  (void) line;
  (void) error;
  if (rec->op != SIM_DIN_IFETCH)
    {
      Rec r = { rec->addr, (guint16) MIN (rec->size, 64u), (guint8) (rec->cpu % 16),
                (guint8) kind[rec->op] };
      g_array_append_val ((GArray *) user_data, r);
    }
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
  gboolean cg = FALSE, refs = FALSE;
  int a = 1;
  for (; a < argc - 1; a++)
    if (g_strcmp0 (argv[a], "--cachegrind") == 0)
      cg = TRUE;
    else if (g_strcmp0 (argv[a], "--refs") == 0)
      refs = TRUE;
    else
      break;
  if (a != argc - 1)
    {
      fprintf (stderr, "usage: memsys-replay [--cachegrind] [--refs] TRACE\n");
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
  GArray *recs = g_array_new (FALSE, FALSE, sizeof (Rec));
  SimMemSys *ms = cg ? sim_memsys_new_cachegrind (32768, 8, 64, 8388608, 16, 64, &error)
                     : sim_memsys_new (&m, &error);
  if (ms == NULL || !sim_din_read (argv[argc - 1], load, recs, NULL, &error))
    {
      fprintf (stderr, "memsys-replay: %s\n", error->message);
      return 1;
    }
  gint64 t0 = g_get_monotonic_time (), c0 = cpu_time_us ();
  const Rec *r = (const Rec *) recs->data;
  /* As slabsim cachesim does: the sets of the access 16 ahead are
   * prefetched (SLABSIM_NO_PREFETCH=1 measures without). */
  guint ahead = g_getenv ("SLABSIM_NO_PREFETCH") ? 0 : 16;
  SimMemRef *batch = refs ? g_new (SimMemRef, 4096) : NULL;
  for (guint i = 0; refs && i < recs->len; i += 4096)
    {
      guint n = MIN (4096u, recs->len - i);
      for (guint j = 0; j < n; j++)
        batch[j] = (SimMemRef) { r[i + j].addr, r[i + j].size, cg ? 0 : r[i + j].cpu,
                                 r[i + j].kind, 0 };
      sim_memsys_access_refs (ms, batch, n);
    }
  g_free (batch);
  for (guint i = 0; !refs && i < recs->len; i++)
    {
      if (ahead && i + ahead < recs->len)
        sim_memsys_prefetch (ms, cg ? 0 : r[i + ahead].cpu, r[i + ahead].addr);
      sim_memsys_access (ms, cg ? 0 : r[i].cpu, r[i].addr, r[i].size, (SimAccKind) r[i].kind);
    }
  gint64 t1 = g_get_monotonic_time (), c1 = cpu_time_us ();
  printf ("%s model%s: %u accesses in %.3f s = %.1f M accesses/s (CPU time %.3f s = %.1f M/s)\n",
          cg ? "cachegrind" : "full", refs ? " (batches)" : "", recs->len, (double) (t1 - t0) / 1e6,
          (double) recs->len / (double) MAX (t1 - t0, 1), (double) (c1 - c0) / 1e6,
          (double) recs->len / (double) MAX (c1 - c0, 1));
  g_array_free (recs, TRUE);
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
