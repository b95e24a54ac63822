#!/usr/bin/env python3
"""fit-timing.py - fit the timing model's free parameter on the calibration set.

Runs `slabsim slab-test` for every table of ../shared/measurements/
slab-test-calibration.tsv that slabsim can reproduce (each table's machine,
allocator and era, below), and fits ONLY core.cpi, the cycles per plain
instruction, one value per machine whose CPU the tables name (docs/models/
timing.md says why it is the one free parameter).  Tables whose CPU is not
named are compared in shape only (each series divided by its own geometric
mean), never fitted.  Prints the fitted values and every table's residuals.

Usage: scripts/fit-timing.py [--slabsim PATH] [--measurements DIR] [--count N]
                             [--tables ID,...] [--tsv OUT]
Standard library only.  The fit: for each machine, the tables' points are
simulated at two cpi values; every point's cycles are linear in cpi to first
order (cycles = a + b * cpi), so the least-squares cpi on log(simulated /
measured) is found on that line by golden-section search over [0.05, 20] and
then checked by a third, real run at the fitted value, whose residuals are
the ones reported.  The search's lower bound is 1/core.width: no core
dispatches faster than its width.
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Each table: machine, allocator spec (the era that stands in, with STATS off
# as those kernels were configured), fit ("abs": the CPU is named, the table
# fits its machine's cpi; "shape": the CPU is unnamed, compared in shape only;
# "check": CPU only hinted, compared in absolute but not fitted) and why.
STATS_OFF = {"slub": ":slub_stats=0", "slab": "", "slqb": ""}
TABLES = {
    # 2.6.24-rc's __kmalloc hands sizes above PAGE_SIZE / 2 to __get_free_pages
    # (mm/slub.c of 2.6.24-rc3, quoted in "[BUG 2.6.24-rc3-git6] SLUB's ksize()
    # fails for size > 2048", linux-mm 2 Dec 2007,
    # <19f34abd0712020830y4825691atdfc9dac07ce4cb35@mail.gmail.com>); 2.6.23's
    # does not: pass_through=2048 gives the modelled era that kernel's rule.
    "S01-P4-HEAD-r1": ("pentium4", "slub@2.6.23:pass_through=2048", "abs",
                       "2.6.24-rc SLUB: 2.6.23 is the modelled era before the cmpxchg_local fast "
                       "path, with 2.6.24-rc's pass-through above PAGE_SIZE/2"),
    "S01-P4-HEAD-r2": ("pentium4", "slub@2.6.23:pass_through=2048", "abs", "the second run of r1"),
    "S01-AMD64-base": ("athlon64-x2", "slub@2.6.23:pass_through=2048", "abs", "as S01-P4"),
    "S02-SLAB-before": ("broadwell-ep", "slab@2.6.34", "shape",
                        "2016 SLAB: 2.6.34 is the latest SLAB era; CPU unnamed (TSC ~3.5 GHz)"),
    "S03-SLUB-before": ("broadwell-ep", "slub@6.18", "shape",
                        "4.6-era SLUB: 6.18 stands in (lockless tid fast path since 2.6.39)"),
    "S04-SLUB-before": ("ivybridge-ep", "slub@6.18", "shape",
                        "3.18 SLUB: 6.18 stands in; CPU named only in a later mail (S14)"),
    "S06-SLUB-before": ("nehalem-ep-2s", "slub@2.6.34", "shape",
                        "2.6.37 SLUB before the lockless fast path: 2.6.34 (irqs off) stands in"),
    "S07-A-base": ("haswell", "slub@6.18", "shape",
                   "5.19 SLUB on an arm64 VM in timer ticks: size-curve shape of tests 1-2 only "
                   "(its concurrent rows are a 32-vCPU VM no machine file describes)"),
    "S08-SLUB-orig": ("zen1", "slub@6.18", "abs", "5.8 SLUB: 6.18 stands in"),
    "S08-SLAB-orig": ("zen1", "slab@2.6.34", "abs", "5.8 SLAB: 2.6.34 stands in"),
    "S09-SLAB-base": ("nehalem-ep-2s", "slab@2.6.34", "shape",
                      "2016 SLAB concurrent test; CPU and CPU count unnamed"),
    "S10-SLUB-before": ("haswell", "slub@6.18", "shape", "3.18 SLUB, CPU unnamed: 6.18 stands in"),
    "S12-SLAB-before": ("broadwell-ep", "slab@2.6.34", "shape", "2016 SLAB, CPU unnamed"),
    "S14-SLUB-base": ("ivybridge-ep", "slub@6.18", "abs", "3.18 SLUB: 6.18 stands in"),
    "S15-SLUB-p2-infra": ("haswell", "slub@6.18", "abs", "4.1 SLUB: 6.18 stands in"),
    "S15-SLUB-p5-bulkfree": ("haswell", "slub@6.18", "abs", "4.1 SLUB: 6.18 stands in"),
    "S17-SLUB-nomemcg": ("haswell", "slub@6.18", "check",
                         "4.4 SLUB, CPU hinted (the same author's i7-4790K): checked, not fitted"),
    "S19-SLAB-bulk-simple-sep": ("haswell", "slab@2.6.34", "abs", "4.3 SLAB: 2.6.34 stands in"),
}
SKIPPED = {
    "S16-SLUB-prev-jul": "bulk API only (slab_bulk_test02), which slab-test does not run",
    "S18-SLUB-nomemcg-nosheaves": "slub_kunit sheaves microbenchmark, units unstated, no Zen 3 machine",
}
# Rows of time_bench tables that are one kmem_cache_alloc + kmem_cache_free of
# a 256-byte object: slab-test's kmem_cache test (time_bench_kmem_cache1's loop).
FASTPATH_NOTES = ("kmem fastpath reuse", "fast-path loop", "normal (non-bulk) fastpath")


def fastpath_row(r):
    n = r["notes"]
    if r["test"] == "other":
        return any(k in n for k in FASTPATH_NOTES)
    if r["test"] == "bulk":
        return n.startswith("bulk=1;") and "variant=fallback" in n
    return False


def points(rows):
    """(key, measured) pairs of a table: key = (test, size, what)."""
    out = []
    for r in rows:
        t, size = r["test"], r["size"]
        if t == "repeat":
            out.append((("repeat", int(size), "alloc"), float(r["alloc_cycles"])))
            out.append((("repeat", int(size), "free"), float(r["free_cycles"])))
        elif t == "pair":
            out.append((("pair", int(size), "pair"), float(r["pair_cycles"])))
        elif t == "concurrent" and r["concurrent_alloc"] and r["table_id"] != "S07-A-base":
            out.append((("concurrent", int(size), "alloc"), float(r["concurrent_alloc"])))
            out.append((("concurrent", int(size), "free"), float(r["concurrent_free"])))
        elif fastpath_row(r) and r["pair_cycles"]:
            out.append((("kmem-cache", 256, "pair"), float(r["pair_cycles"])))
    return out


def machine_width(exe, machine):
    """core.width of @machine (the fit's lower bound on cpi is 1/width)."""
    p = subprocess.run([exe, "machine", "show", machine], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("fit-timing: machine show %s failed: %s" % (machine, p.stderr.strip()))
    for line in p.stdout.splitlines():
        s = line.strip()
        if s.startswith("width:"):
            return int(s.split(":")[1].split("#")[0])
    return 1


def run_slab_test(exe, machine, alloc, tests, count, cpi):
    opt = {"kmem-cache": "kmem_cache"}
    args = [exe, "slab-test", "--machine", machine, "--allocator", alloc,
            "--test", ",".join(opt.get(t, t) for t in tests),
            "--count", str(count), "--format", "json"]
    if cpi is not None:
        args += ["--set", "core.cpi=%g" % cpi]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("fit-timing: %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    res = {}
    for r in json.loads(p.stdout)["results"]:
        t = r["test"]
        if t == "repeat" or t == "concurrent":
            res[(t, r["size"], "alloc")] = r["alloc_cycles_exact"]
            res[(t, r["size"], "free")] = r["free_cycles_exact"]
        elif t == "pair" or t == "kmem-cache":
            res[(t, r["size"], "pair")] = r["pair_cycles_exact"]
    return res


def simulate(exe, table, pts, count, cpi):
    machine, alloc, _, _ = TABLES[table]
    name = alloc.split("@")[0].split(":")[0]
    tests = sorted({k[0] for k, _ in pts})
    stats = STATS_OFF[name]
    if stats and ":" in alloc:
        stats = "," + stats[1:]
    sim = run_slab_test(exe, machine, alloc + stats, tests, count, cpi)
    return [sim[k] for k, _ in pts]


def golden(f, lo, hi, iters=80):
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    for _ in range(iters):
        if f(c) < f(d):
            b, d = d, c
            c = b - g * (b - a)
        else:
            a, c = c, d
            d = a + g * (b - a)
    return (a + b) / 2


def shape(v):
    gm = math.exp(sum(math.log(max(x, 1e-9)) for x in v) / len(v))
    return [x / gm for x in v]


def summary(res):
    a = [abs(x) for x in res]
    return sum(a) / len(a), max(a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slabsim", default=os.path.join(ROOT, "build", "slabsim"))
    ap.add_argument("--measurements", default=os.path.join(ROOT, "..", "shared", "measurements"))
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--tables", default=None)
    ap.add_argument("--tsv", default=None, help="write per-point residuals here")
    o = ap.parse_args()

    rows = {}
    with open(os.path.join(o.measurements, "slab-test-calibration.tsv"), newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows.setdefault(r["table_id"], []).append(r)
    want = o.tables.split(",") if o.tables else list(TABLES)
    pts = {t: points(rows[t]) for t in want if t in TABLES}

    # The fit: per machine, over its "abs" tables.
    fitted = {}
    by_machine = {}
    for t in pts:
        if TABLES[t][2] == "abs" and pts[t]:
            by_machine.setdefault(TABLES[t][0], []).append(t)
    for machine, tables in sorted(by_machine.items()):
        c0, c1 = 0.5, 1.5
        lines = []
        for t in tables:
            s0 = simulate(o.slabsim, t, pts[t], o.count, c0)
            s1 = simulate(o.slabsim, t, pts[t], o.count, c1)
            for (k, y), a0, a1 in zip(pts[t], s0, s1):
                b = (a1 - a0) / (c1 - c0)
                lines.append((a0 - b * c0, b, y))

        def cost(c):
            return sum(math.log(max(a + b * c, 1e-6) / y) ** 2 for a, b, y in lines)
        lo = math.ceil(1000.0 / machine_width(o.slabsim, machine)) / 1000.0
        fitted[machine] = round(golden(cost, lo, 20.0), 3)

    out_tsv = []
    print("# fitted core.cpi (cycles per plain instruction)")
    for m, c in sorted(fitted.items()):
        print("%-14s %.3f" % (m, c))
    print()
    print("# per table: fit, machine, allocator, points, mean |residual|, max |residual|")
    for t in want:
        if t in SKIPPED:
            print("%-26s skipped: %s" % (t, SKIPPED[t]))
            continue
        if t not in pts or not pts[t]:
            continue
        machine, alloc, kind, why = TABLES[t]
        cpi = fitted.get(machine)
        sim = simulate(o.slabsim, t, pts[t], o.count, cpi)
        meas = [y for _, y in pts[t]]
        if kind == "shape":
            ss, ms = shape(sim), shape(meas)
            res = [a / b - 1 for a, b in zip(ss, ms)]
        else:
            res = [a / b - 1 for a, b in zip(sim, meas)]
        mean, mx = summary(res)
        print("%-26s %-5s %-18s %-12s %3d  %6.1f%%  %6.1f%%  cpi=%s" % (
            t, kind, machine, alloc, len(res), 100 * mean, 100 * mx,
            "%.3f" % cpi if cpi else "as in file"))
        for (k, y), s, r in zip(pts[t], sim, res):
            out_tsv.append("%s\t%s\t%s\t%d\t%s\t%.1f\t%.1f\t%.4f" % (t, kind, k[0], k[1], k[2], y, s, r))
    if o.tsv:
        with open(o.tsv, "w") as f:
            f.write("table\tfit\ttest\tsize\twhat\tmeasured\tsimulated\tresidual\n")
            f.write("\n".join(out_tsv) + "\n")


if __name__ == "__main__":
    main()
