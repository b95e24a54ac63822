#!/bin/sh
# bench/sweep-scale.sh - does a sweep still scale with --jobs (issue 12
# item 5: >= 1.8x from --jobs 1 to --jobs 2)?  The sweep decodes each trace
# once (sim/sweep/run.c), then the points replay from the decoded copy.
#
# Interleaved rounds on the shared host, medians, each into a fresh
# directory (a directory already holding the points would skip them).
# The speed-up needs a second idle vCPU: with the host's load above 2 the
# other threads take it, so read the CPU column too (the work done).
# BASE=path/to/another/slabsim adds its runs, interleaved.
#
# Usage: bench/sweep-scale.sh [SWEEP.yaml] [ROUNDS]   (builds build-rel/)
set -eu
cd "$(dirname "$0")/.."
SW=${1:-configs/sweeps/slub-order.yaml}
ROUNDS=${2:-5}
[ -d build-rel ] || meson setup build-rel --buildtype=release >/dev/null
meson compile -C build-rel slabsim >/dev/null
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
{
  echo "j1|build-rel/slabsim sweep $SW --jobs 1"
  echo "j2|build-rel/slabsim sweep $SW --jobs 2"
  if [ -n "${BASE:-}" ]; then
    echo "base-j1|$BASE sweep $SW --jobs 1"
    echo "base-j2|$BASE sweep $SW --jobs 2"
  fi
} > "$TMP/cmds"
r=0
while [ $r -lt "$ROUNDS" ]; do
  while IFS='|' read -r name cmd; do
    rm -rf "$TMP/out"
    s=$(date +%s%N)
    /usr/bin/time -f "%M %U %S" -o "$TMP/rss" sh -c "$cmd -o $TMP/out" >/dev/null 2>&1
    e=$(date +%s%N)
    set -- $(tail -1 "$TMP/rss")
    echo "$(( (e - s) / 1000000 )) $1 $(echo "($2 + $3) * 1000 / 1" | bc)" >> "$TMP/$name"
  done < "$TMP/cmds"
  r=$((r + 1))
done
median () {
  sort -n "$TMP/$1" | sed -n "$(( ($(wc -l < "$TMP/$1") + 1) / 2 ))p"
}
echo "sweep: $SW ($(build-rel/slabsim sweep "$SW" --list | wc -l) lines of plan), $ROUNDS interleaved rounds, medians; load: $(cut -d' ' -f1-3 /proc/loadavg)"
while IFS='|' read -r name cmd; do
  set -- $(median "$name")
  c=$(cut -d' ' -f3 "$TMP/$name" | sort -n | sed -n "$(( ($(wc -l < "$TMP/$name") + 1) / 2 ))p")
  printf '%-8s elapsed %7d ms  CPU %7d ms  peak RSS %4d MB\n' "$name" "$1" "$c" "$(( $2 / 1024 ))"
done < "$TMP/cmds"
j1=$(median j1 | cut -d' ' -f1); j2=$(median j2 | cut -d' ' -f1)
printf 'speed-up --jobs 2 / --jobs 1: %.2fx\n' "$(echo "$j1 / $j2" | bc -l)"
l1=$(cut -d' ' -f1 /proc/loadavg)
if [ "$(echo "$l1 > 2" | bc)" = 1 ]; then
  echo "load $l1 > 2 on $(nproc) vCPUs: the second worker had no idle vCPU, so the wall-clock"
  echo "speed-up says little; the CPU column is the work each variant did"
fi
if [ -n "${BASE:-}" ]; then
  b1=$(median base-j1 | cut -d' ' -f1); b2=$(median base-j2 | cut -d' ' -f1)
  printf 'BASE speed-up: %.2fx\n' "$(echo "$b1 / $b2" | bc -l)"
fi
