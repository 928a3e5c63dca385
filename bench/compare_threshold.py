#!/usr/bin/env python3
"""False alarms and power of `vernier compare` at other thresholds,
recomputed on the runs bench/coverage.sh kept (OUT=DIR): run i against
run i+1 (the same binary: a "slower" is a false alarm) and against the
runs with a planted slowdown of 3% and 10% taken right after it (a
"slower" finds it; a pair it declined, the core states apart, is a try
that found nothing). Compare is seeded, so each threshold sees the same
intervals.

    bench/compare_threshold.py DIR PCT [PCT...]   (e.g. 2 1 0.5)
    VERNIER=build/vernier by default
"""
import collections
import glob
import json
import os
import subprocess
import sys

from coverage_report import verdicts_of


def verdicts(tool, thr, a, b):
    p = subprocess.run([tool, "compare", "--threshold", thr, "--json", "-", a, b],
                       capture_output=True, text=True)
    try:
        return verdicts_of(json.loads(p.stdout))
    except (ValueError, KeyError, TypeError):
        return {}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d, thrs = sys.argv[1], sys.argv[2:]
    tool = os.environ.get("VERNIER", "build/vernier")
    for cond in ("quiet", "stress"):
        runs = len(glob.glob(os.path.join(d, f"{cond}-base-*.json")))
        if runs < 2:
            continue
        for thr in thrs:
            false, tries = collections.Counter(), collections.Counter()
            found = {3: collections.Counter(), 10: collections.Counter()}
            planted = {3: collections.Counter(), 10: collections.Counter()}
            for i in range(1, runs):
                base = os.path.join(d, f"{cond}-base-{i}.json")
                for name, v in verdicts(tool, thr, base, os.path.join(d, f"{cond}-base-{i + 1}.json")).items():
                    tries[name] += v != "no_interval"
                    false[name] += v == "slower"
                for pct in (3, 10):
                    slow = os.path.join(d, f"{cond}-slow{pct}-{i}.json")
                    if os.path.exists(slow):
                        for name, v in verdicts(tool, thr, base, slow).items():
                            planted[pct][name] += v != "no_interval"
                            found[pct][name] += v == "slower"
            print(f"{cond}, threshold {thr}%: false alarms "
                  + ", ".join(f"{n} {false[n]}/{tries[n]}" for n in sorted(tries))
                  + "; found: "
                  + ", ".join(f"{n} {found[p][n]}/{planted[p][n]} at {p}%"
                              for p in (3, 10) for n in sorted(planted[p])))


if __name__ == "__main__":
    main()
