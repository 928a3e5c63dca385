#!/usr/bin/env python3
"""What an interval for the next run would have held, recomputed on the
runs bench/coverage.sh kept (OUT=DIR).

A headline's interval today is Student's t across its k processes: where
the mean of all processes would be, t * s / sqrt(k). The next run's
headline is itself a mean of k' processes, so it lands around this one
with the variance of both: t * s * sqrt(1/k + 1/k'), the interval
widened by sqrt(1 + k/k'). For each pair of runs back to back (i, i+1),
this prints whether run i's interval held run i+1's headline, as it is
and so widened (k' = run i+1's processes), its mean half-width, and the
half-range of the headlines plus the precision (1%), the most the
interval may be wide.

Runs of a build that reports the interval for the next run (its headline
has est_ci, the estimate's own) are read from est_ci, so the widening
is not applied twice.

    bench/coverage_next_run.py DIR [CONDITION...]   (default: quiet stress)
"""
import glob
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coverage_report import headline  # noqa: E402

PRECISION = 1.0  # percent, the default


def runs_of(d, cond):
    files = glob.glob(os.path.join(d, f"{cond}-base-*.json"))
    files.sort(key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
    return [json.load(open(f)) for f in files]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    conds = sys.argv[2:] or ["quiet", "stress"]
    for cond in conds:
        runs = runs_of(d, cond)
        if len(runs) < 2:
            continue
        print(f"{cond}: {len(runs)} runs; coverage as is -> for the next run, "
              f"half-width as is -> for the next run (at most: half-range + {PRECISION:g}%)")
        own_all, next_all = [], []
        for name in [b["name"] for b in runs[0]["benchmarks"]]:
            hs = []
            for r in runs:
                b = next((x for x in r["benchmarks"] if x["name"] == name), None)
                if b is None:
                    continue
                _, v, lo, hi, bound = headline(b)
                # A build that reports the next run's interval keeps the
                # estimate's own as est_ci: that is the one to widen here.
                est = (b.get("headline") or {}).get("est_ci")
                if est and None not in est:
                    lo, hi = est
                k = (b.get("headline") or {}).get("processes") or 1
                hs.append((v, lo, hi, bound, k))
            vals = sorted(h[0] for h in hs if h[0])
            if len(vals) < 2:
                continue
            # The half-range over the middle 90% of the runs: one broken run
            # (a headline of 0, a bound) does not set the limit.
            cut = int(0.05 * len(vals))
            mid = vals[cut:len(vals) - cut] if len(vals) - 2 * cut >= 2 else vals
            limit = (mid[-1] - mid[0]) / 2 / statistics.median(vals) * 100 + PRECISION
            own = nxt = tot = 0
            w_own, w_next = [], []
            for a, b in zip(hs, hs[1:]):
                if a[3] or a[1] is None or b[0] is None:
                    continue
                half, c = (a[2] - a[1]) / 2, a[0]
                f = math.sqrt(1 + a[4] / max(b[4], 1))
                tot += 1
                own += abs(b[0] - c) <= half
                nxt += abs(b[0] - c) <= half * f
                w_own.append(half / c * 100)
                w_next.append(half * f / c * 100)
            if not tot:
                continue
            own_all.append(own / tot)
            next_all.append(nxt / tot)
            print(f"  {name:14} {100 * own / tot:4.0f}% -> {100 * nxt / tot:4.0f}%   "
                  f"{statistics.mean(w_own):6.2f}% -> {statistics.mean(w_next):6.2f}% (at most {limit:.2f}%)")
        if own_all:
            print(f"  {'mean':14} {100 * statistics.mean(own_all):4.0f}% -> {100 * statistics.mean(next_all):4.0f}%")


if __name__ == "__main__":
    main()
