#!/bin/sh
# Rebuild fuzz/corpus-yaml/, the seeds of fuzz-machine and fuzz-sweep
# (fuzz/README.md): the bundled machines and sweep plans, machines followed
# by NUL-separated --set lines, and the loader's bad-input cases.  Both
# targets replay every file (a plan is a bad machine and the other way
# round, which is fine).  Keep it small: a few dozen files, < 100 KiB.
set -eu
cd "$(dirname "$0")/.."
C=fuzz/corpus-yaml
rm -rf "$C"; mkdir -p "$C"
for f in configs/machines/*.yaml configs/sweeps/*.yaml; do
  cp "$f" "$C/$(basename "$(dirname "$f")")-$(basename "$f")"
done
M=configs/machines
# a machine, then one --set per NUL-separated part
withset () { out=$1; file=$2; shift 2; { cat "$file"; for s in "$@"; do printf '\0%s' "$s"; done; } > "$C/$out"; }
withset set-nehalem-l2 $M/nehalem-ep-2s.yaml caches.L2.size=512K numa=false
withset set-nehalem-flow $M/nehalem-ep-2s.yaml 'caches.L2={size: 512K, ways: 8, latency: 12, next: L3}'
withset set-opteron-cpus $M/opteron-2s.yaml topology.cores_per_socket=2 topology.sockets=4
withset set-core2-seed $M/core2-quad.yaml seed=7 caches.L1d.replacement=random
withset set-spr-odd $M/sapphire-rapids-2s.yaml caches.L2.size=3M caches.L2.ways=12
withset set-blank-key $M/core2-quad.yaml ' =1'
withset set-empty-seg $M/core2-quad.yaml 'caches..size=1' 'caches.=2'
withset set-huge-l3 $M/nehalem-ep-2s.yaml caches.L3.size=256G caches.L3.ways=1
withset set-ways-512 $M/nehalem-ep-2s.yaml caches.L1d.ways=512
withset set-bad-yaml $M/nehalem-ep-2s.yaml 'numa=[1, 2' 'machine.name={a: *b}'
withset set-cpu-map $M/core2-quad.yaml 'topology.cpus=[{cpu: 0, socket: 0, core: 0, thread: 0}, {cpu: 1, socket: 0, core: 2, thread: 0}, {cpu: 2, socket: 0, core: 1, thread: 0}, {cpu: 3, socket: 0, core: 3, thread: 0}]'
withset set-escapes $M/core2-quad.yaml 'description="a\x85b\u2028c\x80"' 'name="n\ufeff\t"'
pr () { printf '%s\n' "$2" > "$C/$1"; }
pr small-machine.yaml 'name: t
frequency: 2GHz
topology: {sockets: 2, cores_per_socket: 2, threads_per_core: 2, numbering: smt-adjacent}
caches:
  L1d: {size: 32K, ways: 8, latency: 4, next: L2, replacement: plru}
  L2: {size: 1M, ways: 16, latency: 20ns, shared: socket, inclusion: inclusive}
coherence: {protocol: moesi, local_clean: 10, local_hitm: 10, remote_clean: 20, remote_hitm: 20}
memory: {numa: true, node_size: 1G, local_latency: 50ns, remote_latency: 80ns}
seed: 0x10'
pr alias-machine.yaml 'name: a
frequency: 2930MHz
lat: &l 4 cycles
topology: {sockets: 1, cores_per_socket: 4}
caches:
  L1d: &c {size: 32K, ways: 8, latency: *l, next: L2}
  L2: {size: 8M, ways: 16, latency: 30, shared: 2}
coherence: {protocol: mesif, local_clean: 10, local_hitm: 10, remote_clean: 20, remote_hitm: 20}
memory: {numa: false, node_size: 4G, local_latency: 60ns, remote_latency: 60ns}'
pr dup-key.yaml 'name: x
frequency: 2GHz
frequency: 3GHz'
pr laughs.yaml 'a: &a [x, x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]'
pr self-alias.yaml 'a: &a [*a]'
python3 -c 'print("[" * 70 + "]" * 70)' > "$C/deep-flow.yaml"
pr two-docs.yaml 'name: a
---
name: b'
pr sweep-small.yaml 'name: small
trace: ../../traces/samples/udp-4k.trace.gz
machine: core2-quad
allocator: slub@6.18
axes:
  - grid:
      machine.caches.L2.size: [2M, 4M]
      touch: [none, line]'
pr sweep-zip.yaml 'trace: ../../traces/samples/udp-4k.trace.gz
machine: core2-quad
allocator: slab@2.6.34
axes:
  - zip:
      machine.numa: [false, true]
      replay: [ordered, timed]'
pr sweep-bad.yaml 'trace: nowhere.gz
machine: core2-quad
allocator: slub@6.18
axes: [{grid: {slub_max_order: 0..2}}, {list: [{slub_min_objects: 4}, {slub_min_objects: 8}]}]'
# found by fuzz-sweep: two equal points (a repeated list value) leaked the
# error's parameter text
pr sweep-dup-points.yaml 'trace: ../../traces/samples/udp-4k.trace.gz
machine: core2-quad
allocator: slub@2.6.34
axes:
  - grid:
      slub_min_objects: [4, 8, 8]'
ls "$C" | wc -l; du -sb "$C"
