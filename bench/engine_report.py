"""Summarizes bench/engine.sh: one table, medians and ratios, no opinions."""
import json
import statistics
import sys
from pathlib import Path

out, runs = Path(sys.argv[1]), int(sys.argv[2])
WORK = ["x_plus_x", "sleep_10ms", "random_work"]


def vernier(i):
    d = json.loads((out / f"vernier-{i}.json").read_text())
    return {b["name"]: b for b in d["benchmarks"]}


def gbench(i):
    d = json.loads((out / f"gbench-{i}.json").read_text())
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    return {b["name"]: b["real_time"] * unit[b["time_unit"]] for b in d["benchmarks"]}


def wall(tool, i):
    return int((out / f"{tool}-{i}.us").read_text()) / 1e6


def headline(b):
    """The median, or the upper bound when the body cannot be told apart
    from the empty loop: one reference cycle when the body adds under one
    to the loop, else the fastest sample of the loop with the body."""
    return b["bound_ns"] if b["upper_bound"] else b["stats"]["median"]


v = [vernier(i) for i in range(1, runs + 1)]
g = [gbench(i) for i in range(1, runs + 1)]
print(f"{runs} separate runs of each tool; time per iteration")
print(f"{'workload':<12} {'tool':<16} {'median':>12} {'min':>12} {'max':>12} {'max/min':>8}")
for w in WORK:
    # vernier's cycles are its own figure: the median of each sample over
    # the reference measured next to it, or for a bound 1 (one cycle) or
    # the fastest sample over the fastest reference.
    for tool, vals in (("vernier", [headline(r[w]) for r in v]),
                       ("vernier cycles", [r[w]["cycles"] for r in v]),
                       ("google-benchmark", [r[w] for r in g])):
        if any(x is None for x in vals):
            print(f"{w:<12} {tool:<16} {'n/a':>12}")
            continue
        unit = "cyc" if "cycles" in tool else "ns"
        print(f"{w:<12} {tool:<16} {statistics.median(vals):>9.4g} {unit:<2} {min(vals):>9.4g} {unit:<2}"
              f" {max(vals):>9.4g} {unit:<2} {max(vals) / min(vals):>8.3f}")

# How busy the core was: the share of samples that ran while something
# shared it (a second hardware thread, here the host's), which the headline
# leaves out while enough others are left.
print("\nper process: samples on a shared core (left out of the headline, or 'kept' when too few"
      " others were left or the others were slower), how an upper bound was found, and Google"
      " Benchmark's x_plus_x of the same round")
for i, r in enumerate(v):
    cells = []
    for w in WORK:
        b = r[w]
        n = len(b["samples"])
        kept = "" if "shared_core" in b["left_out"] or not b["shared_core"] else " kept"
        rule = f" (bound: {b['bound_rule']})" if b["upper_bound"] else ""
        cells.append(f"{w} {b['shared_core']}/{n}{kept}{rule}")
    print(f"  run {i + 1}: " + ", ".join(cells) + f"; google-benchmark {g[i]['x_plus_x']:.4g} ns")

vw = [wall("vernier", i) for i in range(1, runs + 1)]
slow = max(range(runs), key=lambda i: vw[i])
gw = [wall("gbench", i) for i in range(1, runs + 1)]
print(f"\nwall time of one run of the three: vernier median {statistics.median(vw):.2f} s "
      f"(max {max(vw):.2f} s), google-benchmark median {statistics.median(gw):.2f} s "
      f"(ratio {statistics.median(vw) / statistics.median(gw):.2f})")
print("  the slowest vernier run: " + ", ".join(
    f"{w} {v[slow][w]['elapsed_s']:.2f} s ({v[slow][w]['stop']}, {len(v[slow][w]['samples'])} samples)"
    for w in WORK))

loop = []
for r in v:
    # The engine's own figure: each empty-loop sample over the reference
    # cycle measured next to it, the median of those taken on a core of its
    # own.
    if r["x_plus_x"]["overhead"]["cycles"]:
        loop.append(r["x_plus_x"]["overhead"]["cycles"])
if loop:
    print(f"loop's own cost (empty loop, reference cycles per iteration): median {statistics.median(loop):.2f}, "
          f"min {min(loop):.2f}, max {max(loop):.2f}")
def chain_ratios(kind):
    """The ratio of the 1000-add chain to the 100-add chain in each run, in
    ns and in reference cycles; None when the runs of that kind are absent."""
    ns, cyc = [], []
    for i in range(1, runs + 1):
        f = out / f"{kind}-{i}.json"
        if not f.exists():
            return None
        d = {b["name"]: b for b in json.loads(f.read_text())["benchmarks"]}
        ns.append(d["chain1000"]["stats"]["median"] / d["chain100"]["stats"]["median"])
        if d["chain1000"]["cycles"] and d["chain100"]["cycles"]:
            cyc.append(d["chain1000"]["cycles"] / d["chain100"]["cycles"])
    return ns, cyc


def within(xs):
    return sum(9.8 <= x <= 10.2 for x in xs)


for kind, how in (("chain", "in turns (the default)"), ("chain-apart", "one after the other (--no-interleave)")):
    r = chain_ratios(kind)
    if r is None:
        continue
    ns, cyc = r
    print(f"chain of 1000 adds / chain of 100 adds, rows {how}: median {statistics.median(ns):.3f}, "
          f"range {min(ns):.3f} .. {max(ns):.3f} in ns, {within(ns)} of {len(ns)} within 10.0 +-2%")
    if cyc:
        print(f"  the same in reference cycles: median {statistics.median(cyc):.3f}, "
              f"range {min(cyc):.3f} .. {max(cyc):.3f}, {within(cyc)} of {len(cyc)} within")
