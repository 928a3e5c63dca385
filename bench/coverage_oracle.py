#!/usr/bin/env python3
"""How wide an interval for the next run must be, from the runs themselves.

For each condition and workload of the files bench/coverage.sh kept in DIR
(OUT=DIR): the standard deviation s of the logs of the headlines across
the runs (in the first run's unit), the half-width of the interval that
holds the next run's headline 95% of the time if s were known exactly
(exp(1.96 sqrt(2) s) - 1: the difference of two runs), how often that
interval held run i+1 around run i over the back-to-back pairs, and the
goal's limit on the mean half-width: the half-range of the headlines plus
the precision asked (1%). Where the known-s interval is wider than the
limit, no interval that keeps the promise about the next run can meet it.

    build/venv/bin/python bench/coverage_oracle.py DIR
"""
import math
import os
import statistics
import sys

from coverage_report import PRECISION, base_runs, conditions, headline


def main(d):
    files = os.listdir(d)
    for cond in conditions(files):
        runs = base_runs(d, files, cond)
        if not runs:
            continue
        print(f"{cond}: {len(runs)} runs")
        print(f"{'workload':<15}{'unit':>7}{'known-s 95%':>13}{'held':>6}{'half-range+p':>14}  fits")
        for name in runs[0]:
            unit = headline(runs[0][name])[0]
            vals = []
            for r in runs:
                if name in r:
                    u, v, _, _, bound = headline(r[name], unit)
                    vals.append(v if v and v > 0 and not bound else None)
            good = [v for v in vals if v]
            if len(good) < 3:
                continue
            s = statistics.stdev([math.log(v) for v in good])
            half = 1.959963984540054 * math.sqrt(2) * s
            pairs = [(a, b) for a, b in zip(vals, vals[1:]) if a and b]
            held = sum(abs(math.log(b / a)) <= half for a, b in pairs) / len(pairs) if pairs else float("nan")
            mid = statistics.median(good)
            limit = (max(good) - min(good)) / 2 / mid + PRECISION
            print(f"{name:<15}{unit:>7}{100 * (math.exp(half) - 1):>12.1f}%{100 * held:>5.0f}%"
                  f"{100 * limit:>13.1f}%  {'yes' if math.exp(half) - 1 <= limit else 'no'}")
        print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    main(sys.argv[1])
