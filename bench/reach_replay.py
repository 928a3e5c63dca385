#!/usr/bin/env python3
"""What the reach to the other core state costs and buys, on kept runs.

A row whose processes met both core states rests its headline on one and
its interval, a promise about the next run, reaches the headline's quantile
of the processes left out for the other state (docs/engine.md). For every
set bench/coverage.sh kept (OUT=DIR) and condition, this script takes each
run's interval as it was, and as it would have been without the reach
(the estimate's own interval, est_ci, widened for the next run as the
engine widens it), under a few rules of when to reach (the engine's
policy reach_within among them) and of how far (all the way, or a share
of the way from the headline to the other state), and prints per
rule, as bench/coverage.sh counts them (coverage_report.figures): the
mean coverage of the next run's headline, the workloads under 65%, and
the set-conditions where a workload's mean half-width passed the
half-range of the headlines plus the precision (1%). Then each
workload's coverage under each rule.

    build/venv/bin/python bench/reach_replay.py [--alt] DIR [DIR...]

--alt takes the arm run with ALT's options (COND+alt) instead of the plain one.
The runs replayed must have been written with the full reach: before the
engine's reach_within, or with --policy reach_within=0.
"""
import json
import math
import os
import statistics
import sys

import coverage_report as cr

W = math.sqrt(2)  # the next run's interval: the estimate's, widened on the log scale


def next_run(v, lo, hi):
    """The engine's vn__levels_next_run of an estimate's interval."""
    if v > 0 and lo > 0 and hi > 0:
        lo, hi = v * (lo / v) ** W, v * (hi / v) ** W
    else:
        lo, hi = v - W * (v - lo), v + W * (hi - v)
    return (0 if v > 0 and lo < 0 else lo), hi


def next_in_other_state(left, rest, tail=0.025):
    """Whether a next run of as many processes, each in the other state as
    often as here and independently, keeps fewer than two in this one (and
    so rests its headline on the other) at least tail of the time."""
    n = left + rest
    p = left / n
    return sum(math.comb(n, j) * (1 - p) ** j * p ** (n - j) for j in range(2)) >= tail


def percentile(x, q):
    """vn_percentile_sorted (numpy's "linear") of sorted x at the share q."""
    pos = q * (len(x) - 1)
    i = min(int(pos), len(x) - 2) if len(x) > 1 else 0
    return x[0] if len(x) == 1 else x[i] + (pos - i) * (x[i + 1] - x[i])


def other_state(b):
    """The engine's other_state: the headline's quantile of the processes
    left out for their state over the headline, in its unit, at least 1
    (a ratio under 1 inverted)."""
    h = b["headline"]
    at = left_at(b, h["unit"])
    if math.isnan(at) or not h.get("value"):
        return math.nan
    return max(at / h["value"], h["value"] / at)


def left_at(b, unit):
    """The headline's quantile of the processes b left out for their
    state, in unit ("cycles", else ns); NAN where none has a value."""
    key = "cycles" if unit == "cycles" else "value"
    x = sorted(p[key] for p in left_for_state(b) if (p.get(key) or 0) > 0)
    return percentile(x, b["headline"].get("quantile") or 0.5) if x else math.nan


def within(ratio):
    """reach_within: a headline on a shared core always reaches, as every
    headline does at 0; one on a core of its own where the other state
    lies within ratio of it."""
    return lambda b, left, rest: (ratio <= 0 or b["headline"].get("core") == "shared"
                                  or other_state(b) <= ratio)


RULES = {
    "within 1.4 (the default)": within(1.4),
    "within 1.3": within(1.3),
    "within 1.5": within(1.5),
    "always": lambda b, left, rest: True,
    "never": lambda b, left, rest: False,
    "2 or more left out": lambda b, left, rest: left >= 2,
    "left out >= half the rest": lambda b, left, rest: 2 * left >= rest,
    "left out >= the rest": lambda b, left, rest: left >= rest,
    "binomial, 2.5%": lambda b, left, rest: next_in_other_state(left, rest),
    "a quarter of the way": lambda b, left, rest: 0.25,
    "half the way": lambda b, left, rest: 0.5,
    "half, within 1.4": lambda b, left, rest: 1 if within(1.4)(b, left, rest) else 0.5,
}


def left_for_state(b):
    """The processes b's headline left out for their core state, as the
    engine's vn__left_for_state: not for a reference read slow, nor upper
    bounds."""
    on_shared = (b.get("headline") or {}).get("core") == "shared"
    return [p for p in b.get("processes") or [] if p.get("left_out") and not p.get("ref_off")
            and not p.get("upper_bound") and bool(p.get("shared")) != on_shared]


def variant(b, rule):
    """Benchmark b with its headline's intervals as rule would leave them."""
    h = b.get("headline")
    if not h or h.get("bound") or not h.get("processes_left_out"):
        return b
    left = len(left_for_state(b))
    rest = sum(1 for p in b.get("processes") or [] if not p.get("left_out"))
    way = float(rule(b, left, rest)) if left and rest else 1.0
    if way >= 1:
        return b
    h = json.loads(json.dumps(h))
    for key, u in h["units"].items():
        e = u.get("est_ci")
        if e and e[0] is not None and e[1] is not None:
            u["ci"] = list(next_run(u["value"], e[0], e[1]))
            # A rule between none and all: the interval reaches that share
            # of the way from the headline to the other state.
            at = u["value"] + way * (left_at(b, key) - u["value"])
            if way > 0 and not math.isnan(at):
                u["ci"] = [min(u["ci"][0], at), max(u["ci"][1], at)]
    h["ci"] = h["units"][h["unit"]]["ci"]
    return dict(b, headline=h)


def main(dirs, alt=False):
    means = {k: [] for k in RULES}
    wide = {k: [] for k in RULES}
    low = {k: 0 for k in RULES}
    per = {}
    for d in dirs:
        files = os.listdir(d)
        for cond in cr.conditions(files):
            if ("alt" in cond) != alt:
                continue
            base = cr.base_runs(d, files, cond)
            if not base:
                continue
            where = f"{os.path.basename(os.path.normpath(d))} {cond}"
            for key, rule in RULES.items():
                runs = [{n: variant(b, rule) for n, b in r.items()} for r in base]
                covs = []
                for name in base[0]:
                    f = cr.figures(runs, name)
                    if not f.tries:
                        continue
                    c, half, limit = f.hit / f.tries, f.half, f.limit
                    covs.append(c)
                    per.setdefault(name, {}).setdefault(key, []).append(c)
                    low[key] += c < 0.65
                    if half > limit:
                        wide[key].append(f"{where} {name} {100 * half:.1f}% > {100 * limit:.1f}%")
                means[key].append(statistics.mean(covs))
    print(f"{'reach':<26}{'mean cover':>11}{'under 65%':>10}{'wider':>7}")
    for key in RULES:
        print(f"{key:<26}{100 * statistics.mean(means[key]):>10.1f}%{low[key]:>10}"
              f"{len(wide[key]):>7}")
    for key in RULES:
        for w in wide[key]:
            print(f"  {key}: {w}")
    print("coverage of the next run, each workload, mean over the set-conditions:")
    for name, by in per.items():
        print(f"  {name:<15}" + " ".join(f"{100 * statistics.mean(by[k]):5.1f}" for k in RULES))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: bench/reach_replay.py DIR [DIR...]")
    alt = sys.argv[1] == "--alt"
    main(sys.argv[1 + alt:], alt)
