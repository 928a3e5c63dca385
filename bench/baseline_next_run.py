#!/usr/bin/env python3
"""How often one run's ratio to a baseline holds the next run's: two builds
of a program with a baseline row, run taking turns, N runs each (pinned to
one CPU when CPU is set). For each build: the share of runs whose 95%
interval held the next run's ratio (both ways), the median half-width, the
range of the ratios, and the runs whose ratio left processes out for their
core state (other_state).

    bench/baseline_next_run.py OLD_PROGRAM NEW_PROGRAM ROW BASELINE [N]

    e.g. bench/baseline_next_run.py old/sum_arrays build/examples/sum_arrays \\
             merged_loop two_loops 30
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile


def one(program, row, base, out):
    cmd = [program, "--baseline", base, "--json", out]
    if os.environ.get("CPU"):
        cmd = ["taskset", "-c", os.environ["CPU"]] + cmd
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    with open(out, encoding="utf-8") as f:
        d = json.load(f)
    b = {x["name"]: x for x in d["benchmarks"]}[row]["baseline"]
    return b["ratio"], b["ci"], b.get("other_state", 0)


def report(name, runs):
    held = tries = 0
    for i in range(len(runs) - 1):
        for a, b in ((runs[i], runs[i + 1]), (runs[i + 1], runs[i])):
            tries += 1
            held += a[1][0] <= b[0] <= a[1][1]
    half = statistics.median(math.log(r[1][1] / r[1][0]) / 2 for r in runs)
    ratios = [r[0] for r in runs]
    other = sum(1 for r in runs if r[2])
    print(f"{name}: next run held {held}/{tries} ({100 * held / tries:.0f}%), median half-width "
          f"+-{100 * (math.exp(half) - 1):.1f}%, ratios {min(ratios):.3f}-{max(ratios):.3f}, "
          f"runs with processes left out for their core state {other}/{len(runs)}")


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    old, new, row, base = argv[:4]
    n = int(argv[4]) if len(argv) > 4 else 30
    got = {old: [], new: []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(n):
            for p in (old, new):
                got[p].append(one(p, row, base, os.path.join(tmp, "r.json")))
    report("old", got[old])
    report("new", got[new])


if __name__ == "__main__":
    main(sys.argv[1:])
