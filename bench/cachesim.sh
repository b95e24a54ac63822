#!/bin/bash
# cachesim.sh - throughput and memory of "slabsim cachesim" (docs/perf/cachesim.md).
#
# usage: [RUNS=N] [BASE=OLD_SLABSIM] bench/cachesim.sh [BUILD_DIR]
#        (default BUILD_DIR: build-rel, a release build)
#
# Every row is the median of RUNS runs (default 1): on a shared host single
# runs vary by tens of percent; the CPU column (user + sys) varies less than
# the elapsed one.  The rows of one group run interleaved (round-robin, RUNS
# rounds), so that the host's load falls on all of them alike: Cachegrind
# mode with the reader thread (--jobs 2, the default), without it (--jobs 1)
# and, with BASE set, the same commands of another slabsim binary (an older
# build to compare with).  The host's load average is printed before and
# after.  CG_ONLY=1 stops after the Cachegrind-mode rows.
# Generates a 20-million-access din trace with bench/gen-din (16 CPUs, private
# hot sets plus shared lines and locks; gzip and plain copies) and, when
# ../shared/validation/cachegrind/walk.c and cc exist, caches.md's walk stream
# (one CPU, 86 % D1 misses).  Times, beside the floor "gzip -dc | wc -l":
#   - slabsim cachesim --compat cachegrind (D1 32768,8,64, LL 8388608,16,64)
#   - slabsim cachesim --machine nehalem-ep-2s, if the machine loader is present
#   - bench/memsys-replay, the model alone on a trace loaded into memory
#     (cachegrind mode and a built-in Nehalem-EP 2-socket machine)
# and prints accesses/s and max RSS.  Takes a minute or two.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-rel}
if [ ! -x "$build/slabsim" ]; then
  meson setup "$build" "$root" --buildtype=release >/dev/null
fi
meson compile -C "$build" >/dev/null
work=${TMPDIR:-/tmp}/slabsim-bench-cachesim
mkdir -p "$work"
N=20000000
gz=$work/gen-20m.din.gz
plain=$work/gen-20m.din
[ -s "$gz" ] || "$build/bench/gen-din" $N 16 7 | gzip -1n > "$gz"
[ -s "$plain" ] || gzip -dc "$gz" > "$plain"
walk_trace=
walk_src=$root/../shared/validation/cachegrind/walk.c
if [ -f "$walk_src" ] && command -v cc >/dev/null; then
  walk_trace=$work/walk-20m.txt
  if [ ! -s "$walk_trace" ]; then
    cc -O2 -o "$work/walk" "$walk_src"
    "$work/walk" 32768 $N 12345 30 0 8 "$walk_trace" 2>/dev/null
  fi
fi

RUNS=${RUNS:-1}

# run LABEL COMMAND...: the median elapsed seconds of RUNS runs, with that
# run's user seconds and max RSS in KiB, and the median CPU (user + sys)
# seconds (the steadier figure on a shared host).
run () {
  local label=$1; shift
  local i rows=
  for i in $(seq "$RUNS"); do
    run1 "$@"
    rows="$rows$el $us $rss $(echo "$us + ${sy:-0}" | bc)
"
  done
  local mid=$(( (RUNS + 1) / 2 ))
  read -r best bus brss _ <<EOT
$(printf '%s' "$rows" | sort -g -k1,1 | sed -n "${mid}p")
EOT
  local cpu
  cpu=$(printf '%s' "$rows" | sort -g -k4,4 | sed -n "${mid}p" | cut -d' ' -f4)
  printf "%-58s %7.2f s  %6.1f M acc/s  cpu %5s s (%5.1f M/s)  maxrss %7d KiB\n" "$label" \
    "$best" "$(echo "$N / $best / 1000000" | bc -l)" "$cpu" \
    "$(echo "$N / $cpu / 1000000" | bc -l)" "$brss"
}

# run1 COMMAND...: sets el, us, rss.
run1 () {
  local out=$work/out.txt
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %U %M %S" -o "$work/time.txt" "$@" > "$out"
    read -r el us rss sy < "$work/time.txt"
  else
    local t0 t1 pid hwm=0
    t0=$(date +%s.%N)
    "$@" > "$out" & pid=$!
    while kill -0 $pid 2>/dev/null; do
      h=$(awk '/VmHWM/{print $2}' /proc/$pid/status 2>/dev/null || echo 0)
      [ "${h:-0}" -gt "$hwm" ] && hwm=$h
      sleep 0.05
    done
    wait $pid
    t1=$(date +%s.%N)
    el=$(echo "$t1 - $t0" | bc); us=0; sy=0; rss=$hwm
  fi
}

# Interleaved groups: add LABEL COMMAND... queues a row, flush runs the
# queued commands round-robin RUNS times and prints each row's medians.
q_labels=()
q_cmds=()
add () {
  q_labels+=("$1"); shift
  q_cmds+=("$(printf '%q ' "$@")")
}
flush () {
  local i k n=${#q_labels[@]} mid=$(( (RUNS + 1) / 2 ))
  for k in $(seq 0 $((n - 1))); do : > "$work/rows.$k"; done
  for i in $(seq "$RUNS"); do
    for k in $(seq 0 $((n - 1))); do
      eval "run1 ${q_cmds[$k]}"
      echo "$el $us $rss $(echo "$us + ${sy:-0}" | bc)" >> "$work/rows.$k"
    done
  done
  for k in $(seq 0 $((n - 1))); do
    local best brss cpu
    read -r best _ brss _ <<EOT
$(sort -g -k1,1 "$work/rows.$k" | sed -n "${mid}p")
EOT
    cpu=$(sort -g -k4,4 "$work/rows.$k" | sed -n "${mid}p" | cut -d' ' -f4)
    printf "%-58s %7.2f s  %6.1f M acc/s  cpu %5s s (%5.1f M/s)  maxrss %7d KiB\n" \
      "${q_labels[$k]}" "$best" "$(echo "$N / $best / 1000000" | bc -l)" "$cpu" \
      "$(echo "$N / $cpu / 1000000" | bc -l)" "$brss"
  done
  q_labels=()
  q_cmds=()
}

# replay ARGS...: the memsys-replay line with the median CPU-time rate of
# RUNS (interleaved): in batches through sim_memsys_access_refs, as the
# cachesim verb applies a trace (its own look-ahead prefetch), then one
# access at a time with and without sim_memsys_prefetch 16 ahead.
replay () {
  local i mid=$(( (RUNS + 1) / 2 ))
  for i in $(seq "$RUNS"); do
    "$build/bench/memsys-replay" --refs "$@" | head -1 | sed 's/^/batches:     /'
    "$build/bench/memsys-replay" "$@" | head -1 | sed 's/^/prefetch:    /'
    SLABSIM_NO_PREFETCH=1 "$build/bench/memsys-replay" "$@" | head -1 | sed 's/^/no prefetch: /'
  done > "$work/replay.txt"
  for k in "batches:" "prefetch:" "no prefetch:"; do
    grep "^$k" "$work/replay.txt" | awk -F'= ' '{ print $NF, $0 }' | sort -g | sed -n "${mid}p" \
      | cut -d' ' -f3-
  done
}

echo "trace: $N accesses; host: $(nproc) CPUs, $(uname -r); load: $(cut -d' ' -f1-3 /proc/loadavg)"
run "gzip -dc gen-20m.din.gz | wc -l" sh -c "gzip -dc '$gz' | wc -l"
cg=(cachesim --compat cachegrind --D1 32768,8,64 --LL 8388608,16,64)
for t in "gen-20m.din.gz:$gz" "gen-20m.din (plain):$plain" \
         ${walk_trace:+"walk-20m.txt (caches.md walk):$walk_trace"}; do
  name=${t%%:*} file=${t#*:}
  add "cachesim --compat cachegrind $name" "$build/slabsim" "${cg[@]}" "$file"
  add "  same, --jobs 1 (no reader thread)" "$build/slabsim" "${cg[@]}" --jobs 1 "$file"
  if [ -n "${BASE:-}" ]; then
    add "  same, BASE binary" "$BASE" "${cg[@]}" "$file"
  fi
  flush
done
if [ -n "${CG_ONLY:-}" ]; then   # CG_ONLY=1: the Cachegrind-mode rows only
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
if printf 'r 1000 8\n' | "$build/slabsim" cachesim --machine nehalem-ep-2s - >/dev/null 2>&1; then
  run "cachesim --machine nehalem-ep-2s gen-20m.din.gz" \
    "$build/slabsim" cachesim --machine nehalem-ep-2s "$gz"
  run "cachesim --machine nehalem-ep-2s gen-20m.din (plain)" \
    "$build/slabsim" cachesim --machine nehalem-ep-2s "$plain"
else
  echo "cachesim --machine nehalem-ep-2s: skipped (machine loader not available)"
fi
echo "model only (trace preloaded; the rate printed by memsys-replay, median CPU-time rate of $RUNS):"
replay --cachegrind "$plain"
[ -n "$walk_trace" ] && replay --cachegrind "$walk_trace"
replay "$plain"
[ -n "$walk_trace" ] && replay "$walk_trace"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
