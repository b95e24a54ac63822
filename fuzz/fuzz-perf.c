/* fuzz-perf.c - libFuzzer target: the reader forced to the perf format. */
#include "fuzz/fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return sim_fuzz_run (data, size, SIM_TRACE_FORMAT_PERF);
}
