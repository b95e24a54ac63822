#!/bin/sh
# bench/slab-test.sh - run time of "slabsim slab-test": the module's three
# sections at the default count (10000) on the calibration machines, and
# the simulated operations per second.
# Usage: bench/slab-test.sh [ALLOCATOR] [COUNT]   (builds build-rel/ if needed)
set -eu
cd "$(dirname "$0")/.."
A=${1:-slub@6.18}
N=${2:-10000}
[ -d build-rel ] || meson setup build-rel --buildtype=release >/dev/null
meson compile -C build-rel >/dev/null
best () {   # best of 3 wall-clock seconds of a shell command
  b=""
  for i in 1 2 3; do
    s=$(date +%s.%N); sh -c "$1" >/dev/null 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  printf '%.3f' "$b"
}
printf '%-14s %5s %12s %9s %12s %10s\n' machine cpus "allocator ops" "time (s)" "ops/s" "max RSS KB"
for m in pentium4 athlon64-x2 haswell zen1 broadwell-ep ivybridge-ep; do
  cpus=$(build-rel/slabsim slab-test -m "$m" -a "$A" --count 1 --test concurrent --format json \
         | awk -F': ' '/"cpus"/{gsub(/,/,"",$2); print $2}')
  # tests 1, 2: 12 sizes x 2N calls each; concurrent: 10 sizes x 2 loops x 2N calls per CPU
  ops=$(( 12 * 2 * N * 2 + cpus * 10 * 2 * 2 * N ))
  t=$(best "build-rel/slabsim slab-test -m $m -a $A --count $N")
  rss=$( { /usr/bin/time -f %M build-rel/slabsim slab-test -m "$m" -a "$A" --count "$N" >/dev/null; } 2>&1 | tail -1)
  printf '%-14s %5s %12s %9s %12s %10s\n' "$m" "$cpus" "$ops" "$t" "$(echo "$ops / $t" | bc)" "$rss"
done
