/* memsys.c - placeholder; the cache hierarchy lands here. */
#include "models/cache/memsys.h"
