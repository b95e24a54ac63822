/* hostmem.c - large zeroed arrays on huge pages; see hostmem.h. */
#include "sim/core/hostmem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

gpointer
sim_hostmem_try_alloc0 (gsize bytes)
{
  if (bytes < SIM_HOSTMEM_HUGE)
    return g_try_malloc0 (MAX (bytes, 1));
  gsize rounded = (bytes + SIM_HOSTMEM_HUGE - 1) & ~(SIM_HOSTMEM_HUGE - 1);
  if (rounded < bytes)
    return NULL;
  void *p = NULL;
  if (posix_memalign (&p, SIM_HOSTMEM_HUGE, rounded) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  /* Before the first touch, so that the pages are huge from the start. */
  madvise (p, rounded, MADV_HUGEPAGE);
#endif
  memset (p, 0, bytes);
  return p;
}

gpointer
sim_hostmem_alloc0 (gsize bytes)
{
  gpointer p = sim_hostmem_try_alloc0 (bytes);
  if (p == NULL)
    g_error ("%s: failed to allocate %" G_GSIZE_FORMAT " bytes", G_STRLOC, bytes);
  return p;
}

void
sim_hostmem_free (gpointer p)
{
  free (p);   /* g_malloc0 (GLib's system malloc) and posix_memalign both */
}
