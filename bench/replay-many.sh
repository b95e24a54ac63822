#!/bin/sh
# bench/replay-many.sh - read once, replay many (issue 12 items 1 and 5):
# `slabsim run` with one and with four allocators beside the yardstick
# `gzip -dc TRACE | wc -l` of the same file (targets: one allocator <= 1.3x,
# four allocators <= 2.5x).
#
# The host is shared (2 vCPUs, other engineers' builds and tests), so single
# runs mean little: the commands run interleaved, ROUNDS times round-robin,
# and the medians are reported, each with the peak RSS of its median run.
# BASE=path/to/another/slabsim adds that binary's runs (the same commands)
# interleaved with ours, for a before/after table measured side by side.
#
# Usage: bench/replay-many.sh [TRACE] [ROUNDS]   (builds build-rel/ if needed)
# Env:   JOBS (default: the CPUs), ALLOCS (the four), ONE (the one-allocator run,
#        default slub@6.18, as bench/run.sh), BASE (optional).
set -eu
cd "$(dirname "$0")/.."
T=${1:-traces/samples/hackbench-T-g2-l50.trace.gz}
ROUNDS=${2:-7}
JOBS=${JOBS:-$(nproc)}
ALLOCS=${ALLOCS:-"slab slub@2.6.34 slub@6.18 slqb"}
[ -d build-rel ] || meson setup build-rel --buildtype=release >/dev/null
meson compile -C build-rel slabsim >/dev/null
NEW=build-rel/slabsim
FIRST=${ONE:-slub@6.18}
FOUR=""
for a in $ALLOCS; do FOUR="$FOUR -a $a"; done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# name|command, one a line; run round-robin
{
  echo "gzip|gzip -dc $T | wc -l"
  echo "new1|$NEW run -a $FIRST $T"
  echo "new4|$NEW run --jobs $JOBS $FOUR $T"
  echo "new4j1|$NEW run --jobs 1 $FOUR $T"
  if [ -n "${BASE:-}" ]; then
    echo "base1|$BASE run -a $FIRST $T"
    echo "base4|$BASE run $FOUR $T"
  fi
} > "$TMP/cmds"

r=0
while [ $r -lt "$ROUNDS" ]; do
  while IFS='|' read -r name cmd; do
    s=$(date +%s%N)
    /usr/bin/time -f "%M %U %S" -o "$TMP/rss" sh -c "$cmd" >/dev/null 2>&1
    e=$(date +%s%N)
    set -- $(tail -1 "$TMP/rss")
    echo "$(( (e - s) / 1000000 )) $1 $(echo "($2 + $3) * 1000 / 1" | bc)" >> "$TMP/$name"
  done < "$TMP/cmds"
  r=$((r + 1))
done

median () {   # "ms rss cpu-ms" of the median run of $1 (by elapsed)
  sort -n "$TMP/$1" | sed -n "$(( ($(wc -l < "$TMP/$1") + 1) / 2 ))p"
}
cpu_median () {   # the median CPU time (user + sys, ms) of $1's runs
  cut -d' ' -f3 "$TMP/$1" | sort -n | sed -n "$(( ($(wc -l < "$TMP/$1") + 1) / 2 ))p"
}
g=$(median gzip | cut -d' ' -f1)
gc=$(cpu_median gzip)
events=$(gzip -dc "$T" | grep -c -E 'kmalloc|kfree|kmem_cache_(alloc|free)' || true)
echo "trace: $T ($events slab events), $ROUNDS interleaved rounds, medians; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %10s %7s %10s %7s %9s\n' "command" "elapsed" "x gzip" "CPU" "x gzip" "peak RSS"
while IFS='|' read -r name cmd; do
  set -- $(median "$name")
  c=$(cpu_median "$name")
  printf '%-44s %7d ms %6.2fx %7d ms %6.2fx %6d MB\n' "$name: $(echo "$cmd" | cut -c1-36)" "$1" \
    "$(echo "$1 / $g" | bc -l)" "$c" "$(echo "$c / $gc" | bc -l)" "$(( $2 / 1024 ))"
done < "$TMP/cmds"
