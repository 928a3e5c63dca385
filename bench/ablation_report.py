"""Summarizes bench/ablation.sh: per condition and variant, each workload's
spread across the processes (max/min of the headline, in ns and reference
cycles), the wall time per process, the samples behind the headline and
the chain ratio, marked against the goals. Medians and ratios, no opinions.

usage: ablation_report.py DIR RUNS CONDITION..."""
import json
import statistics
import sys
from pathlib import Path

out, runs, conds = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
WORK = ["x_plus_x", "chain_100", "chain_1000", "qsort_1000", "chase_256k", "sleep_1ms"]
variants = [v.split("=")[0] for v in (out / "variants").read_text().split()]
GOAL_CYC, GOAL_NS, GOAL_RATIO, GOAL_SAMPLES = 1.03, 1.05, 0.02, 20


def headline(b):
    """The median, or the upper bound when the body cannot be told apart
    from the empty loop."""
    return b["bound_ns"] if b["upper_bound"] else (b["stats"] or {}).get("median")


def spread(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return max(xs) / min(xs) if xs else float("nan")


def mark(ok):
    return " " if ok else "*"


def vernier(cond, name):
    rows, walls = [], []
    for i in range(1, runs + 1):
        f = out / f"{cond}-{name}-{i}"
        d = json.loads(f.with_suffix(".json").read_text())
        rows.append({b["name"]: b for b in d["benchmarks"]})
        walls.append(int(f.with_suffix(".us").read_text()) / 1e6)
    return rows, walls


def gbench(cond):
    rows, walls = [], []
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    for i in range(1, runs + 1):
        f = out / f"{cond}-gbench-{i}"
        d = json.loads(f.with_suffix(".json").read_text())
        rows.append({b["name"]: b for b in d["benchmarks"]})
        walls.append(int(f.with_suffix(".us").read_text()) / 1e6)
    ns = {w: [r[w]["real_time"] * unit[r[w]["time_unit"]] for r in rows] for w in WORK}
    iters = {w: [r[w]["iterations"] for r in rows] for w in WORK}
    return ns, iters, walls


machine = (out / "machine").read_text().split(None, 1)[-1].strip() if (out / "machine").exists() else "?"
print(f"CPU: {machine}; {runs} processes per variant, pinned to CPU {(out / 'cpu').read_text().strip()}")
print("spread = max/min of the headline across the processes, ns | reference cycles;"
      f" * misses the goal (<= {GOAL_NS} ns, <= {GOAL_CYC} cycles, ratio 10 +-2%, >= {GOAL_SAMPLES} samples)")
hdr = "".join(f" {w:>15}" for w in WORK)
for cond in conds:
    print(f"\n== {cond} ==")
    print(f"{'variant':<19}{hdr}  {'wall s':>6} {'samples':>9} {'ratio':>7} {'in 2%':>5}")
    for name in variants:
        rows, walls = vernier(cond, name)
        cells = ""
        for w in WORK:
            sn = spread([headline(r[w]) for r in rows])
            sc = spread([r[w]["cycles"] for r in rows])
            cells += f" {sn:6.3f}{mark(sn <= GOAL_NS)}|{sc:6.3f}{mark(sc <= GOAL_CYC)}"
        samples = [r[w]["headline_samples"] for r in rows for w in WORK]
        ratios = [headline(r["chain_1000"]) / headline(r["chain_100"]) for r in rows]
        within = sum(abs(x / 10 - 1) <= GOAL_RATIO for x in ratios)
        smin, smed = min(samples), statistics.median(samples)
        print(f"{name:<19}{cells}  {statistics.median(walls):6.2f} {smed:4.0f}/{smin:<3d}{mark(smin >= GOAL_SAMPLES)}"
              f" {statistics.median(ratios):7.3f} {within:3d}/{runs}")
    ns, iters, walls = gbench(cond)
    cells = "".join(f" {spread(ns[w]):6.3f}{mark(spread(ns[w]) <= GOAL_NS)}|{'-':>7}" for w in WORK)
    ratios = [a / b for a, b in zip(ns["chain_1000"], ns["chain_100"])]
    within = sum(abs(x / 10 - 1) <= GOAL_RATIO for x in ratios)
    its = min(min(v) for v in iters.values())
    print(f"{'google-benchmark':<19}{cells}  {statistics.median(walls):6.2f} {'it>=' + str(its):>9}  "
          f"{statistics.median(ratios):7.3f} {within:3d}/{runs}")
    print("headlines (median of the processes, defaults | google-benchmark): " + ", ".join(
        f"{w} {statistics.median(headline(r[w]) for r in vernier(cond, 'defaults')[0]):.4g}"
        f" | {statistics.median(ns[w]):.4g} ns" for w in WORK))
    three = [int((out / f"{cond}-three-{i}.us").read_text()) / 1e6 for i in range(1, runs + 1)]
    print(f"time goal, bench/workloads x_plus_x+sleep_10ms+random_work, wall s per process: median "
          f"{statistics.median(three):.2f}{mark(statistics.median(three) < 1)} "
          f"(min {min(three):.2f}, max {max(three):.2f}; goal < 1 s)")
print("\nsamples: median/min over every workload and process of headline_samples;"
      " wall s: median per process of all the workloads;"
      " ratio: median of chain_1000/chain_100, and processes within 10 +-2%")
