#!/usr/bin/env python3
"""Whether the runs bench/coverage.sh kept say when the core was shared.

A run whose every process read the taken-branch probe at 1.3 cycles a
branch or more ran on a shared core throughout; in one with a process
under that, the processes apart from the rest are told apart by the gap
between the probes. For each set DIR and condition, printed: how many runs
were shared throughout, and how many runs read `x += x` over 1.3 cycles
(twice its cost alone, as a shared core makes it) with a `shared_core`
finding on that row and without one, in each kind of run; and the median
of a loop over two arrays (sum_two_loops) in shared runs over own ones.

    bench/core_state.py DIR [DIR...]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coverage_report import base_runs, conditions, headline  # noqa: E402

LEVEL = 1.3


def cycles(b):
    unit, value = headline(b, "cycles")[:2]
    return value if unit == "cycles" else None


def summary(runs):
    """One line on a condition's runs ({name: benchmark} each, in order)."""
    count = {}
    sums = {True: [], False: []}
    for r in runs:
        probes = [p["probe"] for b in r.values() for p in b.get("processes") or []
                  if p.get("probe")]
        if not probes:
            continue
        shared = min(probes) >= LEVEL
        x = r.get("x_plus_x")
        if x and cycles(x):
            said = any(w["id"] == "shared_core" for w in x.get("warnings") or [])
            key = (shared, cycles(x) > LEVEL, said)
            count[key] = count.get(key, 0) + 1
        s = r.get("sum_two_loops")
        if s and cycles(s):
            sums[shared].append(cycles(s))
    n = sum(count.values())
    whole = sum(v for k, v in count.items() if k[0])
    said = [count.get((sh, True, True), 0) for sh in (False, True)]
    silent = [count.get((sh, True, False), 0) for sh in (False, True)]
    base = statistics.median(sums[False]) if sums[False] else None
    ratio = f"; sum {statistics.median(sums[True]) / base:.2f}x" if base and sums[True] else ""
    return (f"shared throughout {whole}/{n}; x+=x slow, said/silent: own runs "
            f"{said[0]}/{silent[0]}, shared {said[1]}/{silent[1]}{ratio}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for d in sys.argv[1:]:
        files = os.listdir(d)
        for cond in conditions(files):
            print(f"{os.path.basename(d)} {cond}: {summary(base_runs(d, files, cond))}")


if __name__ == "__main__":
    main()
