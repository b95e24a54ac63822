#!/bin/sh
# bench/run-vs-gzip.sh - an old and a new slabsim side by side on one `run`
# (issue 12's `run` targets): `gzip -dc TRACE | wc -l`, OLD run, NEW run in
# turn, ROUNDS times, then the medians of elapsed and CPU (user + sys)
# seconds and of peak RSS, and the CPU ratios to the yardstick.  On a shared
# host only interleaved medians mean anything; CPU is the steadier column.
# Usage: OLD=path/slabsim [NEW=build-rel/slabsim] bench/run-vs-gzip.sh TRACE ROUNDS RUN-ARGS...
#   e.g. OLD=/tmp/old/build-rel/slabsim bench/run-vs-gzip.sh traces/samples/hackbench-T-g2-l50.trace.gz 7 -a slub@6.18
set -eu
cd "$(dirname "$0")/.."
T=$1; R=$2; shift 2
: "${OLD:?set OLD to the old slabsim binary}"
NEW=${NEW:-build-rel/slabsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one () {
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" sh -c "$2" >/dev/null 2>&1
  awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >> "$tmp/$1"
}
i=0
while [ $i -lt "$R" ]; do
  one gz "gzip -dc '$T' | wc -l"
  one old "$OLD run $* '$T'"
  one new "$NEW run $* '$T'"
  i=$((i + 1))
done
med () { sort -g -k"$2","$2" "$tmp/$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
echo "trace $T, $R interleaved rounds, run $*; load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
for n in gz old new; do
  echo "$n: elapsed $(med $n 1) s, cpu $(med $n 2) s, max RSS $(med $n 3) KB"
done
echo "cpu x gzip: old $(echo "scale=2; $(med old 2) / $(med gz 2)" | bc), new $(echo "scale=2; $(med new 2) / $(med gz 2)" | bc)"
