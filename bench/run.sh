#!/bin/sh
# bench/run.sh - speed and memory of "slabsim run" on the bundled hackbench
# trace, beside the cost of just decompressing it (the issue's yardstick:
# a full replay should cost at most 3x `gzip -dc FILE | wc -l`).
# Usage: bench/run.sh [TRACE] [ALLOCATOR]   (builds build-rel/ if needed)
set -eu
cd "$(dirname "$0")/.."
T=${1:-traces/samples/hackbench-T-g2-l50.trace.gz}
A=${2:-slub@6.18}
[ -d build-rel ] || meson setup build-rel --buildtype=release >/dev/null
meson compile -C build-rel >/dev/null
best () {   # best of 5 wall-clock seconds of a shell command
  b=""
  for i in 1 2 3 4 5; do
    s=$(date +%s.%N); sh -c "$1" >/dev/null 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  printf '%.3f' "$b"
}
events=$(gzip -dc "$T" | grep -c -E 'kmalloc|kfree|kmem_cache_(alloc|free)' || true)
g=$(best "gzip -dc $T | wc -l")
r=$(best "build-rel/slabsim run -a $A --machine nehalem-ep-2s $T")
rss=$( { /usr/bin/time -f %M build-rel/slabsim run -a $A $T >/dev/null; } 2>&1 | tail -1)
echo "trace:            $T ($events slab events)"
echo "gzip -dc | wc -l: $g s"
echo "slabsim run:      $r s  ($(echo "$events / $r" | bc) events/s, $(echo "scale=2; $r / $g" | bc)x gzip), max RSS ${rss} KB"
