#!/usr/bin/env python3
"""How `vernier compare`'s rule of no verdict within what a run promised
trades false alarms for power, recomputed on the comparisons
bench/coverage.sh kept (OUT=DIR...).

Each kept comparison over processes gives its interval of the ratio and
its threshold; the verdict before the rule is `slower` when the interval
lies above 1 + threshold (`faster` below 1 - threshold). The rule then
turns a verdict into `no change` when either side's headline lies within
an interval of the other side. Variants of that interval:
  next:  the one the other run printed for its next run's headline, in
         the comparison's unit (the rule of src/compare/compare.c);
  full:  the whole range of the other side's processes' values;
  trim:  that range less the most extreme process at each end per 8;
  and:   the whole range, both sides' headlines within the other's;
  both:  next or full;
  none:  no such rule.
Printed per variant: `slower` verdicts of a run against the next run of
the same binary (false alarms) per workload, and against a run with a
planted slowdown of 3% and 10% (chains only).
"""
import collections
import functools
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coverage_report import load  # noqa: E402

# Each run's file is read once, though compared against two or three others.
rows = functools.lru_cache(maxsize=None)(lambda path: load(path) or {})


def values(bench, unit):
    key = "cycles" if unit == "cycles" else "value"
    return [p[key] for p in bench.get("processes") or [] if not p["left_out"] and p.get(key) is not None]


def inside(x, v, trim=False):
    s = sorted(x)
    k = len(s) // 8 if trim else 0
    if len(s) - 2 * k >= 2:
        s = s[k:len(s) - k]
    return s[0] <= v <= s[-1]


def promised(bench, unit, v):
    """Whether v lies within the interval bench's run printed for its next
    run's headline, in unit."""
    ci = (((bench.get("headline") or {}).get("units") or {}).get(unit) or {}).get("ci")
    return bool(ci) and None not in ci and ci[0] <= v <= ci[1]


def full(b, n, *_):
    return inside(b, statistics.median(n)) or inside(n, statistics.median(b))


def next_run(b, n, bb, nb, unit):
    return promised(bb, unit, statistics.median(n)) or promised(nb, unit, statistics.median(b))


VARIANTS = {
    "next": next_run,
    "full": full,
    "trim": lambda b, n, *_: inside(b, statistics.median(n), True) or inside(n, statistics.median(b), True),
    "and": lambda b, n, *_: inside(b, statistics.median(n)) and inside(n, statistics.median(b)),
    "both": lambda *a: next_run(*a) or full(*a),
    "none": lambda *_: False,
}


def main(dirs):
    count = collections.defaultdict(collections.Counter)
    for d in dirs:
        for path in glob.glob(f"{d}/*-cmp-*.json"):
            kind = "base" if "-cmp-base-" in path else "slow3" if "-cmp-slow3-" in path else "slow10"
            with open(path) as f:
                c = json.load(f)
            t = c["method"]["threshold"]
            base, new = rows(c["base"]["files"][0]), rows(c["new"]["files"][0])
            for b in c["benchmarks"]:
                name = b["name"]
                if b.get("method") != "processes" or not b.get("ci") or name not in base or name not in new:
                    continue
                if kind != "base" and "chain" not in name:
                    continue
                ub, un = values(base[name], b["unit"]), values(new[name], b["unit"])
                if len(ub) < 2 or len(un) < 2:
                    continue
                lo, hi = b["ci"]
                moved = lo > 1 + t or hi < 1 - t
                for v, rule in VARIANTS.items():
                    key = (v, kind, name)
                    count[key]["tries"] += 1
                    count[key]["slower"] += moved and lo > 1 + t and not rule(
                        ub, un, base[name], new[name], b["unit"])
    for v in VARIANTS:
        print(v)
        for (vv, kind, name), c in sorted(count.items()):
            if vv == v:
                print(f"  {kind:<7}{name:<15}{c['slower']:>4}/{c['tries']} slower")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: compare_within.py DIR... (the OUT= folders of bench/coverage.sh)")
    main(sys.argv[1:])
