#!/bin/sh
# bench/run-ab.sh - an old and a new slabsim binary, interleaved, on one trace
# and several allocators: medians of CPU (user + sys) and elapsed seconds and
# of the peak RSS, per allocator and binary.  For speed claims on a shared
# host, where only old/new pairs run side by side say anything.
# Usage: BASE=OLD_EXE [NEW=NEW_EXE] [ROUNDS=N] [ALLOCATORS="a b"] bench/run-ab.sh [TRACE]
#   (defaults: NEW build-rel/slabsim, 7 rounds, "slub@6.18 slab slqb", the
#   bundled hackbench trace; the machine is nehalem-ep-2s named by its file,
#   so both binaries resolve the same YAML whatever their source trees)
set -eu
cd "$(dirname "$0")/.."
: "${BASE:?set BASE to the old slabsim executable}"
NEW=${NEW:-build-rel/slabsim}
ROUNDS=${ROUNDS:-7}
ALLOCATORS=${ALLOCATORS:-"slub@6.18 slab slqb"}
T=${1:-traces/samples/hackbench-T-g2-l50.trace.gz}
M=$(pwd)/configs/machines/nehalem-ep-2s.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
med () {   # median of column $2 of file $1
  sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
i=0
while [ "$i" -lt "$ROUNDS" ]; do
  for a in $ALLOCATORS; do
    for b in old new; do
      exe=$BASE; [ $b = new ] && exe=$NEW
      /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$exe" run -a "$a" -m "$M" "$T" >/dev/null
      awk '{ printf "%s %.3f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >> "$tmp/$a.$b"
    done
  done
  i=$((i + 1))
done
echo "trace: $T, $ROUNDS interleaved rounds, medians; host load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
for a in $ALLOCATORS; do
  for b in old new; do
    echo "$a $b: cpu $(med "$tmp/$a.$b" 2) s, elapsed $(med "$tmp/$a.$b" 1) s, max RSS $(med "$tmp/$a.$b" 3) KB"
  done
done
