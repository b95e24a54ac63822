/* cpu-map.h - which machine CPU replays each CPU of the trace (--cpu-map).
 *
 * A trace names the CPUs of the machine that recorded it; the simulated
 * machine may be larger, and numbered differently.  The map sends trace CPU
 * t to machine CPU map[t]:
 *
 *   compact (the default)  the machine's CPUs in the order socket 0 first,
 *            and within a socket one thread per core first (socket, then
 *            thread, then core): a 2-CPU recording replays on two cores of
 *            one socket, as it ran, whatever the machine's numbering
 *            (socket-interleaved Nehalem numbers CPU 1 on the other socket);
 *   LIST     "2,3,0" or "0-3,8-11": trace CPU i runs on the i-th machine CPU
 *            listed.  Every entry must exist on the machine and appear once.
 *
 * Internally the map is always a permutation of all machine CPUs (a LIST is
 * completed with the CPUs it does not name, in compact order), so that the
 * model's own events on a CPU no trace CPU maps to (SLAB's cache_reap on
 * every CPU) still have a trace-side number when the replay is emitted as a
 * trace; a trace event on a CPU past the LIST is an error, never a guess.
 */
#pragma once

#include <glib.h>
#include "sim/config/machine.h"

G_BEGIN_DECLS

typedef struct {
  guint  n_cpus;          /* the machine's */
  guint *to_machine;      /* [n_cpus] trace CPU -> machine CPU */
  guint *to_trace;        /* [n_cpus] its inverse */
  guint  given;           /* trace CPUs the map was asked for: the LIST's length, or n_cpus */
  gboolean compact;       /* no LIST: the default */
} SimCpuMap;

/* Build the map for @m from @list (NULL or "" or "compact": the default).
 * Errors (SIM_USAGE_ERROR): an entry that is not a CPU number or range, a
 * CPU the machine does not have, a CPU listed twice. */
gboolean sim_cpu_map_init  (SimCpuMap *map, const SimMachine *m, const char *list,
                            GError **error);
void     sim_cpu_map_clear (SimCpuMap *map);

/* Machine CPU @i of the compact order (0 <= i < m->n_cpus). */
void     sim_cpu_map_compact_order (const SimMachine *m, guint *order);

G_END_DECLS
