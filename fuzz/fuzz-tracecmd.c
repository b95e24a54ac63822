/* fuzz-tracecmd.c - libFuzzer target: the reader forced to trace-cmd's
 * trace.dat (traces/reader-tracecmd.c: the fixed-head checks, the copy to a
 * temporary file, the child process that prints the records through
 * libtracecmd, and the text parser on what it prints). */
#include "fuzz/fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return sim_fuzz_run (data, size, SIM_TRACE_FORMAT_TRACE_CMD_DAT);
}
