/* alloc.c - helpers shared by the allocator models; see alloc.h. */
#include "models/alloc/alloc.h"

void
sim_op_touch_range (SimOp *op, SimAddr addr, guint64 len, SimAccKind kind, SimMemClass cls)
{
  /* One access per cache line the range covers, as a memset/memcpy loop
   * would (the hardware does it in wider stores, but every line is
   * touched once). */
  if (len == 0)
    return;
  SimAddr end = addr + len;
  SimAddr a = addr & ~(SimAddr) 63;
  for (; a < end; a += 64)
    {
      SimAddr s = MAX (a, addr);
      SimAddr e = MIN (a + 64, end);
      sim_op_access (op, s, (guint32) (e - s), kind, cls);
    }
}

void
sim_alloc_report_init (SimAllocReport *r)
{
  r->rows = g_array_new (FALSE, TRUE, sizeof (SimAllocCacheRow));
  r->large_pages = 0;
}

void
sim_alloc_report_clear (SimAllocReport *r)
{
  if (r->rows == NULL)
    return;
  for (guint i = 0; i < r->rows->len; i++)
    {
      SimAllocCacheRow *row = &g_array_index (r->rows, SimAllocCacheRow, i);
      g_free (row->name);
      g_strfreev (row->aliases);
      g_free (row->stats);
    }
  g_array_unref (r->rows);
  r->rows = NULL;
}
