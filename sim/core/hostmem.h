/* hostmem.h - host memory for the large tables that long traces probe at
 * random (the live-object maps, the untraced pass's lifetime records).
 *
 * Why: on a long trace these tables are tens of megabytes and each probe
 * lands on a host line and a host page of its own.  On the project's host
 * (a KVM guest) a random read from a 16 MiB table costs ~450 ns with
 * 4 KiB pages and ~340 ns with 2 MiB ones, against ~50 ns from a 1 MiB
 * table (docs/perf/bigreplay-12.md): the page walk under nested paging is
 * about a third of it, and a software prefetch that misses the TLB waits
 * for that walk.  So an array of 2 MiB or more is aligned to 2 MiB and
 * offered to the kernel as transparent huge pages (madvise: a hint; where
 * THP is off, or "never", it is plain aligned memory).  Smaller arrays come
 * from g_malloc0 as before.  Contents are zeroed; either kind is freed with
 * sim_hostmem_free (both end in free()). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The size from which an array is aligned and offered as huge pages. */
#define SIM_HOSTMEM_HUGE ((gsize) 2 << 20)

/* @bytes of zeroed memory; NULL if the host refuses (the caller reports
 * what it was for). */
gpointer sim_hostmem_try_alloc0 (gsize bytes);
/* The same, aborting as g_malloc0 does when the host refuses. */
gpointer sim_hostmem_alloc0 (gsize bytes);
void sim_hostmem_free (gpointer p);

G_END_DECLS
