#!/bin/sh
# bench/run.sh - speed and memory of "slabsim run" (one allocator) beside the
# cost of just decompressing the same file (issue 12's yardstick: a replay
# of gzip text within 1.3x `gzip -dc FILE | wc -l`).
# Usage: [RUNS=N] bench/run.sh [TRACE] [ALLOCATOR] [BUILD_DIR]
#   (default: the bundled hackbench trace, slub@6.18, build-rel/, 5 runs)
# The two commands run alternately (interleaved), RUNS times each; printed
# are the medians of elapsed and of CPU (user + sys) seconds, and the ratios
# of the medians.  On a shared host the CPU ratio is the steadier one.
set -eu
cd "$(dirname "$0")/.."
T=${1:-traces/samples/hackbench-T-g2-l50.trace.gz}
A=${2:-slub@6.18}
B=${3:-build-rel}
RUNS=${RUNS:-5}
[ -d "$B" ] || meson setup "$B" --buildtype=release >/dev/null
meson compile -C "$B" slabsim >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one LABEL CMD: append "elapsed cpu maxrss_kb" of one run to $tmp/LABEL
one () {
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" sh -c "$2" >/dev/null 2>&1
  awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >> "$tmp/$1"
}
med () {   # median of column $2 of file $1
  sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
i=0
while [ $i -lt "$RUNS" ]; do
  one gz "gzip -dc '$T' | wc -l"
  one run "$B/slabsim run -a $A --machine nehalem-ep-2s '$T'"
  i=$((i + 1))
done
events=$("$B/slabsim" trace info --format json "$T" | grep -o '"events": *[0-9]*' | head -1 | tr -dc 0-9)
ge=$(med "$tmp/gz" 1); gc=$(med "$tmp/gz" 2)
re=$(med "$tmp/run" 1); rc=$(med "$tmp/run" 2); rss=$(med "$tmp/run" 3)
echo "trace:            $T (${events:-?} events), $RUNS interleaved runs, medians"
echo "host load:        $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "gzip -dc | wc -l: elapsed $ge s, cpu $gc s"
echo "slabsim run -a $A: elapsed $re s, cpu $rc s, max RSS $rss KB"
echo "ratio:            elapsed $(echo "scale=2; $re / $ge" | bc)x, cpu $(echo "scale=2; $rc / $gc" | bc)x"
