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
