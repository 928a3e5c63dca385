#!/usr/bin/env python3
"""The same benchmarks from two builds, taking turns run by run, so both
meet the same machine: for each benchmark of bench/workloads.c, the median
of its headlines over the runs of each build and their ratio, and the
median wall time of a run. For a change that should change no figure (a
reorganisation of the tree), the ratios should sit within what moves
between two runs of one build.

    bench/before_after.py BEFORE_BUILD [NOW_BUILD] [RUNS]

Each BUILD is a build folder with bench/bench_workloads in it (default
NOW_BUILD: build; RUNS: 7)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def one_run(exe, out):
    t0 = time.monotonic()
    subprocess.run([exe, "--quiet", "--json", out], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, timeout=600)
    wall = time.monotonic() - t0
    with open(out) as f:
        d = json.load(f)
    heads = {}
    for b in d["benchmarks"]:
        h = b.get("headline") or {}
        v = ((h.get("units") or {}).get("ns") or {}).get("value")  # in ns, whatever unit leads
        if v is None:
            v = b.get("bound_ns") if b.get("upper_bound") else b["stats"].get("median")
        heads[b["name"]] = v
    return wall, heads


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    before = sys.argv[1]
    now = sys.argv[2] if len(sys.argv) > 2 else "build"
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    exes = {"before": os.path.join(before, "bench", "bench_workloads"),
            "now": os.path.join(now, "bench", "bench_workloads")}
    walls = {k: [] for k in exes}
    heads = {k: {} for k in exes}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for k, exe in exes.items():
                w, h = one_run(exe, os.path.join(tmp, k + ".json"))
                walls[k].append(w)
                for name, v in h.items():
                    heads[k].setdefault(name, []).append(v)
    print(f"{runs} runs of each build, taking turns; medians")
    print(f"{'benchmark':14} {'before':>12} {'now':>12} {'ratio':>7}  (spread of now's runs)")
    for name in heads["now"]:
        a = [v for v in heads["before"].get(name, []) if v is not None]
        b = [v for v in heads["now"][name] if v is not None]
        if not a or not b:
            print(f"{name:14} {'-':>12} {'-':>12}")
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        spread = max(b) / min(b) if min(b) > 0 else float("nan")
        print(f"{name:14} {ma:10.4g} ns {mb:10.4g} ns {mb / ma:7.3f}  ({spread:.3f})")
    wa, wb = statistics.median(walls["before"]), statistics.median(walls["now"])
    print(f"{'wall per run':14} {wa:11.2f} s {wb:11.2f} s {wb / wa:7.3f}")


if __name__ == "__main__":
    main()
