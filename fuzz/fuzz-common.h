/* fuzz-common.h - the body shared by the fuzz targets (fuzz/README.md). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "traces/reader.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
/* Read @data as @format (strict, then lenient), through the accounting. */
int sim_fuzz_run (const uint8_t *data, size_t size, SimTraceFormat format);
