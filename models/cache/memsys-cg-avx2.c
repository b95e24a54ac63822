/* memsys-cg-avx2.c - Cachegrind mode's batch loop for the default ways (8
 * and 16) compiled with -mavx2 (models/cache/meson.build), so that its
 * 16-way LL lookup is memsys-cg-loop.h's cg_ref_16_avx2.  The build targets
 * plain x86-64, so this file is the only code that may use AVX2:
 * memsys-cg.c calls it only when the host has AVX2 (cg_host_simd), and
 * nothing here is called from anywhere else. */
#include "models/cache/memsys-cg-loop.h"

#ifndef __AVX2__
#error "memsys-cg-avx2.c is built with -mavx2"
#endif

guint
memsys_cg_refs_avx2 (SimMemSys *ms, const SimMemRef *refs, gsize n, gboolean deep)
{
  return deep ? cg_refs (ms, refs, n, 8, 16, CG_AVX2) : cg_refs (ms, refs, n, 8, 16, CG_LOOP);
}
