/* fuzz-yaml.h - what the configuration fuzz targets share (fuzz/README.md):
 * fuzz-machine (a machine file, --set overrides, the "machine show" round
 * trip) and fuzz-sweep (a sweep plan). */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
/* The input cut at its NUL bytes, as GBytes whose data is NUL-terminated
 * (the terminator not counted); always at least one part. */
GPtrArray *sim_fuzz_split (const uint8_t *data, size_t size);
