#!/usr/bin/env python3
"""case-004.py - the numbers of docs/case-studies/004-sheaves-7x-vs-618.md.

    scripts/case-004.py [BUILD_DIR] > table.md

Runs `slabsim run -a slub@6.18 -a slub@7.x --format json` on the four seed
workloads (trace gen) and the recorded traces, on the 2-CPU recording VM
and on the two-socket nehalem-ep-2s, and prints one markdown row per
(workload, machine, era)."""
import json, os, subprocess, sys, tempfile

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, "build")
slabsim = os.path.join(build, "slabsim")
tmp = tempfile.mkdtemp(prefix="case004-")

def gen(workload, cpus, sockets):
    out = os.path.join(tmp, f"{workload}-{cpus}.trace")
    subprocess.run([slabsim, "trace", "gen", workload, "--cpus", str(cpus),
                    "--machine-sockets", str(sockets), "-o", out], check=True)
    return out

def run(trace, machine, extra=()):
    r = subprocess.run([slabsim, "run", "-a", "slub@6.18", "-a", "slub@7.x", "-m", machine,
                        "--format", "json", *extra, trace], check=True, capture_output=True,
                       text=True)
    return json.loads(r.stdout)["results"]

def row(name, machine, r):
    tot = {}
    for c in r["caches"]:
        for k, v in c["stats"].items():
            tot[k] = tot.get(k, 0) + v
    rp, t, m = r["replay"], r["timing"], r["memory"]["by_structure"]
    allocs = rp["allocs"] or 1
    frees = (rp["frees"] + rp["implicit_frees"] + rp.get("untraced_page_frees", 0)
             + rp.get("untraced_kfree_rcu", 0)) or 1
    slow_a = 100.0 * tot.get("alloc_slowpath", 0) / allocs
    slow_f = 100.0 * tot.get("free_slowpath", 0) / frees
    barn = tot.get("barn_get", 0) + tot.get("barn_put", 0)
    return ("| %s | %s | %s | %.1f | %.1f | %d | %d | %d | %d | %.0f / %d / %d | %.0f / %d / %d "
            "| %d | %d | %d / %d |" % (
        name, machine, r["kernel"], 100 - slow_a, 100 - slow_f, m["cpu_slab"]["l1d"],
        m["cache_meta"]["l1d"], m["freeptr"]["l1d"], m["struct_page"]["l1d"],
        t["alloc_cycles_mean"], t["alloc_cycles_p50"], t["alloc_cycles_p99"],
        t["free_cycles_mean"], t["free_cycles_p50"], t["free_cycles_p99"],
        t["lock_wait_cycles"], barn, r["footprint_bytes"] // 1024,
        r["footprint_peak_bytes"] // 1024))

print("| workload | machine | era | alloc fast % | free fast % | L1d misses: per-CPU (sheaf arrays, "
      "kmem_cache_cpu) | kmem_cache/node/barn | free pointers | struct slab | alloc cycles mean / "
      "p50 / p99 | free cycles mean / p50 / p99 | lock wait cycles | barn get+put | slab KiB end / peak |")
print("| --- " * 15 + "|")
seeds = [("tbench", "000"), ("kbuild", "001"), ("netperf-udp", "002"), ("hackbench", "003")]
for w, _ in seeds:
    for machine, cpus, sockets in (("recording-vm", 2, 1), ("nehalem-ep-2s", 16, 2)):
        tr = gen(w, cpus, sockets)
        for r in run(tr, machine):
            print(row(w + " (gen)", machine, r))
        os.unlink(tr)
real = ["traces/samples/hackbench-T-g2-l50.trace.gz", "traces/samples/hackbench-T-g1-l50.perf-script.gz",
        "traces/samples/udp-4k.trace.gz", "traces/samples/vma-churn-8x2000.trace.gz"]
for tr in real:
    name = os.path.basename(tr).split(".")[0]
    for machine, extra in (("recording-vm", ()), ("nehalem-ep-2s", ("--cpu-map", "0,1"))):
        for r in run(os.path.join(top, tr), machine, extra):
            print(row(name, machine, r))
os.rmdir(tmp)
