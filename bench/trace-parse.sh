#!/bin/sh
# Trace reader speed: MB/s parsing ftrace text from gzip and from a plain
# file, events/s from the native format, and `slabsim trace info` against
# `gzip -dc FILE | wc -l` on the same file.  Results go in docs/perf/traces.md.
#
#   bench/trace-parse.sh [BUILD_DIR] [COPIES]
#
# BUILD_DIR (default build-release) is configured as a release build if it
# does not exist.  The input is COPIES (default 8) concatenated copies of
# traces/samples/hackbench-T-g2-l50.trace.gz, built in a temporary directory
# and deleted afterwards (never committed).  Each figure is the best of 3 runs.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build-release}
N=${2:-8}
if [ ! -d "$B" ]; then
  meson setup "$B" -Dbuildtype=release -Dtests=false >/dev/null
fi
meson compile -C "$B" >/dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# A parse-only driver: the reader loop and nothing else.
cat > "$T/parse.c" <<'C'
#include "traces/reader.h"
#include <stdio.h>
int
main (int argc, char **argv)
{
  GError *e = NULL;
  SimTraceReader *r = sim_trace_reader_open (argv[1], &e);
  if (r == NULL)
    return 1;
  SimTraceEvent ev;
  guint64 n = 0, x = 0;
  while (sim_trace_reader_next (r, &ev, &e))
    n++, x ^= ev.ptr;
  if (e)
    return 1;
  printf ("%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", n, x & 1);
  sim_trace_reader_free (r);
  return 0;
}
C
cc -O2 -I. -I"$B" $(pkg-config --cflags gio-2.0) "$T/parse.c" "$B/libslabsim-core.a" \
  $(pkg-config --libs gio-2.0 yaml-0.1) -lm -o "$T/parse"

zcat traces/samples/hackbench-T-g2-l50.trace.gz > "$T/one.txt"
i=0
: > "$T/big.txt"
while [ $i -lt "$N" ]; do cat "$T/one.txt" >> "$T/big.txt"; i=$((i + 1)); done
gzip -6 -c "$T/big.txt" > "$T/big.txt.gz"
"$B/slabsim" trace convert "$T/big.txt.gz" -o "$T/big.slabsim" >/dev/null

bytes=$(wc -c < "$T/big.txt")
events=$("$T/parse" "$T/big.slabsim" | cut -d' ' -f1)

# best wall time of 3 runs of "$@", in seconds
best () {
  b=
  for k in 1 2 3; do
    s=$(date +%s.%N)
    "$@" >/dev/null
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
gz_wc () { gzip -dc "$T/big.txt.gz" | wc -l; }

t_gz=$(best "$T/parse" "$T/big.txt.gz")
t_txt=$(best "$T/parse" "$T/big.txt")
t_nat=$(best "$T/parse" "$T/big.slabsim")
t_info=$(best "$B/slabsim" trace info --format json "$T/big.txt.gz")
t_info_nat=$(best "$B/slabsim" trace info --format json "$T/big.slabsim")
t_wc=$(best gz_wc)

mb=$(echo "$bytes / 1000000" | bc -l)
printf 'input: %d copies of hackbench-T-g2-l50: %.1f MB text, %d events, gzip %d bytes, native %d bytes\n' \
  "$N" "$mb" "$events" "$(wc -c < "$T/big.txt.gz")" "$(wc -c < "$T/big.slabsim")"
printf 'parse ftrace text from gzip:   %6.3f s  %7.1f MB/s  %5.2f M events/s\n' "$t_gz" "$(echo "$mb / $t_gz" | bc -l)" "$(echo "$events / $t_gz / 1000000" | bc -l)"
printf 'parse ftrace text, plain file: %6.3f s  %7.1f MB/s  %5.2f M events/s\n' "$t_txt" "$(echo "$mb / $t_txt" | bc -l)" "$(echo "$events / $t_txt / 1000000" | bc -l)"
printf 'parse native:                  %6.3f s  %5.2f M events/s  (%.1fx faster than gzip text)\n' "$t_nat" "$(echo "$events / $t_nat / 1000000" | bc -l)" "$(echo "$t_gz / $t_nat" | bc -l)"
printf 'trace info, gzip text:         %6.3f s\n' "$t_info"
printf 'trace info, native:            %6.3f s\n' "$t_info_nat"
printf 'gzip -dc FILE | wc -l:         %6.3f s  (trace info / this = %.2f)\n' "$t_wc" "$(echo "$t_info / $t_wc" | bc -l)"
