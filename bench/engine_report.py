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
    from the empty loop (then it is printed with a '<')."""
    return b["bound_ns"] if b["upper_bound"] else b["stats"]["median"]


v = [vernier(i) for i in range(1, runs + 1)]
g = [gbench(i) for i in range(1, runs + 1)]
print(f"{runs} separate runs of each tool; time per iteration")
print(f"{'workload':<12} {'tool':<16} {'median':>12} {'min':>12} {'max':>12} {'max/min':>8}")
for w in WORK:
    for tool, vals in (("vernier", [headline(r[w]) for r in v]),
                       ("vernier cycles", [headline(r[w]) / r[w]["ref"]["ns_per_cycle"] for r in v]),
                       ("google-benchmark", [r[w] for r in g])):
        if any(x is None for x in vals):
            print(f"{w:<12} {tool:<16} {'n/a':>12}")
            continue
        unit = "cyc" if "cycles" in tool else "ns"
        print(f"{w:<12} {tool:<16} {statistics.median(vals):>9.4g} {unit:<2} {min(vals):>9.4g} {unit:<2}"
              f" {max(vals):>9.4g} {unit:<2} {max(vals) / min(vals):>8.3f}")
# Each process of x += x next to its own empty loop, which is the
# contention it met: a taken branch every cycle, like x += x, slows while
# a second hardware thread on the core is busy, and the reference chain of
# adds does not.
print("\nx_plus_x per process: the headline in reference cycles, the empty loop's own cost"
      " (median, spread p10-p90), Google Benchmark's time of the same round")
quiet_cost = min(r["x_plus_x"]["overhead"]["cycles"] or float("inf") for r in v)
quiet = []
for i, r in enumerate(v):
    b = r["x_plus_x"]
    o = b["overhead"]
    spread = o.get("cycles_spread")
    shared = any(w["id"] == "shared_core" for w in b["warnings"])
    calm = not shared and o["cycles"] is not None and o["cycles"] <= 1.02 * quiet_cost
    if calm:
        quiet.append(headline(b) / b["ref"]["ns_per_cycle"])
    print(f"  run {i + 1}: {headline(b) / b['ref']['ns_per_cycle']:.3f} cycles; empty loop "
          f"{o['cycles']:.3f} cycles, spread {'n/a' if spread is None else f'{spread:.3f}'}"
          f"{' (shared_core)' if shared else ''}; google-benchmark {g[i]['x_plus_x']:.4g} ns")
if len(quiet) >= 2:
    print(f"  the {len(quiet)} runs whose empty loop was steady and within 2% of the cheapest run's:"
          f" x_plus_x max/min {max(quiet) / min(quiet):.3f} in cycles")
else:
    print(f"  {len(quiet)} run(s) had a steady empty loop within 2% of the cheapest run's")

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
    # cycle measured next to it, the median of those.
    if r["x_plus_x"]["overhead"]["cycles"]:
        loop.append(r["x_plus_x"]["overhead"]["cycles"])
if loop:
    print(f"loop's own cost (empty loop, reference cycles per iteration): median {statistics.median(loop):.2f}, "
          f"min {min(loop):.2f}, max {max(loop):.2f}")
ratios, cratios = [], []
for i in range(1, runs + 1):
    d = {b["name"]: b for b in json.loads((out / f"chain-{i}.json").read_text())["benchmarks"]}
    ratios.append(d["chain1000"]["stats"]["median"] / d["chain100"]["stats"]["median"])
    # In reference cycles too: the two run one after the other, and a change
    # of the machine's speed between them moves the ratio in ns only.
    if d["chain1000"]["cycles"] and d["chain100"]["cycles"]:
        cratios.append(d["chain1000"]["cycles"] / d["chain100"]["cycles"])
print(f"chain of 1000 adds / chain of 100 adds: median {statistics.median(ratios):.3f}, "
      f"range {min(ratios):.3f} .. {max(ratios):.3f} in ns (goal 10.0 +-2%)")
if cratios:
    print(f"  the same in reference cycles: median {statistics.median(cratios):.3f}, "
          f"range {min(cratios):.3f} .. {max(cratios):.3f}")
