#!/bin/sh
# bench/replay-big.sh - a seed-scale trace replayed by one allocator: a
# generated hackbench trace of about 300 M events (seed 003 ran
# `hackbench 150 thread 1000`, ~282 M events), in slabsim's native format,
# replayed on nehalem-ep-2s; prints elapsed and CPU time and the peak RSS,
# which must stay bounded by the live objects, not grow with the trace.
# Usage: bench/replay-big.sh [ALLOCATOR] [LOOPS] [BUILD_DIR]
#   (default slub@6.18, 1210 loops of 150 groups on 16 CPUs = ~300 M events)
# The trace is kept in $TMPDIR/slabsim-bench-big (about 8 GB; generating it
# takes ~15 CPU minutes, mostly the generator, once).  Run it on a quiet host.
set -eu
cd "$(dirname "$0")/.."
A=${1:-slub@6.18}
L=${2:-1210}
B=${3:-build-rel}
[ -d "$B" ] || meson setup "$B" --buildtype=release >/dev/null
meson compile -C "$B" slabsim >/dev/null
work=${TMPDIR:-/tmp}/slabsim-bench-big
mkdir -p "$work"
T=$work/hackbench-g150-l$L-c16.slabsim
if [ ! -s "$T" ]; then
  "$B/slabsim" trace gen hackbench --groups 150 --loops "$L" --cpus 16 -o /dev/stdout \
      2>"$work/gen.log" | "$B/slabsim" trace convert - -o "$T" >/dev/null
fi
echo "trace: $T ($(du -h "$T" | cut -f1)), host load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "slabsim run -a $A: elapsed %e s, user %U s, sys %S s, max RSS %M KB" \
  "$B/slabsim" run -a "$A" --machine nehalem-ep-2s --format json "$T" > "$work/run.json"
grep -o '"events": *[0-9]*' "$work/run.json" | head -1
