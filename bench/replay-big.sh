#!/bin/sh
# bench/replay-big.sh - a seed-scale trace replayed by one allocator: a
# generated hackbench trace of about 300 M events (seed 003 ran
# `hackbench 150 thread 1000`, ~282 M events), in slabsim's native format,
# replayed on nehalem-ep-2s; prints elapsed and CPU time and the peak RSS
# of the generation and of the replay (issue 12: the replay in <= 3 minutes,
# its memory bounded by the live objects, not growing with the trace).
# Usage: bench/replay-big.sh [ALLOCATOR] [LOOPS] [BUILD_DIR]
#   (default slub@6.18, 1210 loops of 150 groups on 16 CPUs = ~293 M events)
#   SLABSIM=path/to/slabsim uses that binary instead of building one (a
#   long run then survives rebuilds of the tree).
# The trace is written once with `trace gen --format native` (no text file:
# the text of 300 M events would be ~55 GB) and kept in
# $TMPDIR/slabsim-bench-big (~8 GB); later runs replay it again.  Both steps
# run under `nice`; the host load is printed before and after each step.
set -eu
cd "$(dirname "$0")/.."
A=${1:-slub@6.18}
L=${2:-1210}
B=${3:-build-rel}
if [ -z "${SLABSIM:-}" ]; then
  [ -d "$B" ] || meson setup "$B" --buildtype=release >/dev/null
  meson compile -C "$B" slabsim >/dev/null
  SLABSIM=$B/slabsim
fi
work=${TMPDIR:-/tmp}/slabsim-bench-big
mkdir -p "$work"
T=$work/hackbench-g150-l$L-c16.slabsim
load () { cut -d' ' -f1-3 /proc/loadavg; }
if [ ! -s "$T" ]; then
  echo "generating $T, load $(load)"
  /usr/bin/time -f "trace gen --format native: elapsed %e s, user %U s, sys %S s, max RSS %M KB" \
    nice "$SLABSIM" trace gen hackbench --groups 150 --loops "$L" --cpus 16 \
      --format native -o "$T"
  echo "load after generating: $(load)"
fi
echo "trace: $T ($(du -h "$T" | cut -f1)), load $(load)"
/usr/bin/time -f "slabsim run -a $A: elapsed %e s, user %U s, sys %S s, max RSS %M KB" \
  nice "$SLABSIM" run -a "$A" --machine nehalem-ep-2s --format json "$T" > "$work/run.json"
echo "load after the replay: $(load)"
grep -o '"events": *[0-9]*' "$work/run.json" | head -1
