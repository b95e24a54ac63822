#!/bin/bash
# ab-memsys.sh - old against new build of the cache model, interleaved
# (docs/performance.md, issue 12 item 4).
#
# usage: [RUNS=N] bench/ab-memsys.sh OLD_BUILD NEW_BUILD
#
# Both directories are release builds (meson setup DIR --buildtype=release)
# holding slabsim and bench/memsys-replay.  Every command runs RUNS times
# (default 5) for each build in turn (old, new, old, new, ...), so that the
# host's load falls on both alike; printed are the medians of CPU time
# (user + sys; memsys-replay's own model-only CPU time) and the rate:
#   - slabsim cachesim --machine nehalem-ep-2s on gen-20m.din (plain)
#   - bench/memsys-replay on gen-20m.din and, when the walk can be built,
#     walk-20m.txt (the traces of bench/cachesim.sh, made here if missing)
#   - slabsim run -a slub@6.18 --machine nehalem-ep-2s on the bundled
#     hackbench trace (bench/run.sh's command)
# For a load-independent figure run callgrind on memsys-replay (see
# docs/perf/cachesim.md): this guest has no hardware counters for perf stat.
set -eu
[ $# -eq 2 ] || { echo "usage: [RUNS=N] $0 OLD_BUILD NEW_BUILD" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
old=$1 new=$2
for b in "$old" "$new"; do
  for f in slabsim bench/memsys-replay bench/gen-din; do
    [ -x "$b/$f" ] || { echo "$0: $b/$f: not built" >&2; exit 2; }
  done
done
RUNS=${RUNS:-5}
work=${TMPDIR:-/tmp}/slabsim-bench-cachesim
mkdir -p "$work"
N=20000000
gen=$work/gen-20m.din
[ -s "$gen" ] || "$new/bench/gen-din" $N 16 7 > "$gen"
walk=
src=$root/../shared/validation/cachegrind/walk.c
if [ -f "$src" ] && command -v cc >/dev/null; then
  walk=$work/walk-20m.txt
  if [ ! -s "$walk" ]; then
    cc -O2 -o "$work/walk" "$src"
    "$work/walk" 32768 $N 12345 30 0 8 "$walk" 2>/dev/null
  fi
fi
hb=$root/traces/samples/hackbench-T-g2-l50.trace.gz
log=$(mktemp)
trap 'rm -f "$log" "$log.t"' EXIT
# timed LABEL WHICH CMD...: CPU seconds of one run, appended to the log
timed () {
  local label=$1 which=$2; shift 2
  /usr/bin/time -f "%U %S" -o "$log.t" "$@" > /dev/null 2>&1
  echo "$label $which $(awk '{ print $1 + $2 }' "$log.t")" >> "$log"
}
# model LABEL WHICH BUILD TRACE: memsys-replay's own CPU time
model () {
  local t
  t=$("$3/bench/memsys-replay" "$4" | sed -n 's/.*CPU time \([0-9.]*\) s.*/\1/p')
  echo "$1 $2 $t" >> "$log"
}
for i in $(seq "$RUNS"); do
  for w in old new; do
    b=$old; [ $w = new ] && b=$new
    timed cachesim-gen-20m $w "$b/slabsim" cachesim --machine nehalem-ep-2s "$gen"
    model model-gen-20m $w "$b" "$gen"
    [ -z "$walk" ] || model model-walk-20m $w "$b" "$walk"
    timed run-hackbench $w "$b/slabsim" run -a slub@6.18 --machine nehalem-ep-2s "$hb"
  done
done
echo "$RUNS interleaved runs each, medians of CPU seconds; load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in cachesim-gen-20m model-gen-20m model-walk-20m run-hackbench; do
  grep -q "^$k " "$log" || continue
  line="$k"
  for w in old new; do
    m=$(grep "^$k $w " "$log" | awk '{ print $3 }' | sort -g \
        | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    case $k in
      run-*) line="$line  $w $m s" ;;
      *) line="$line  $w $m s ($(echo "$N / $m / 1000000" | bc -l | xargs printf '%.1f') M/s)" ;;
    esac
  done
  echo "$line"
done
