#!/usr/bin/env python3
"""The chains' figures in cycles, on kept runs, with a row's cycles at the
clock's rate where its processes held their ns steadier (ns_at_clock).

A row on the CPU whose processes hold their ns steadier than their cycles
has an ns headline; its figure in cycles beside it is what the next run's
figure in cycles is held against. For every set bench/coverage.sh kept
(OUT=DIR) and condition, this script takes each such run's cycles as they
were, and as the engine's vn__at_clock gives them: the ns headline at the
second-highest rate (cycles a ns) of the processes the headline rests on
(the higher of two), the interval's width kept as a share, its reach to
processes left out for their core state at their ns times that rate. It
prints, for the chain of adds and the chain of divisions, the spread of
the headlines in cycles from run to run and the coverage of the next
run's headline in cycles (coverage_report.figures), both ways, and the
totals.

    build/venv/bin/python bench/clock_replay.py [--as-read] DIR [DIR...]

The engine moves a row's cycles only where a process of the row read its
probe on a shared core (vn__sibling_met): elsewhere the rates part as
the clock moves, which a body bound by memory does not follow. Runs made
with ns_at_clock on (from 2026-12-04) hold the moved figure wherever the
ns were steadier; --as-read takes those runs and gives every row the
rule no longer moves its cycles as read again (the headline's quantile
of its processes' cycles, the interval's width kept as a share), and
prints every workload's spread and coverage both ways.
"""
import copy
import os
import sys

import coverage_report as cr
from reach_replay import left_for_state, next_run, percentile

CHAINS = ("chain_1000", "div_chain")
ALONE = 1.3  # the alone_probe of an x86 guest (vn__alone_probe_for)


def sibling_met(b):
    """vn__sibling_met: a process b's headline rests on (whose rates the
    move takes) read its probe on a shared core."""
    return any(p.get("shared") or (p.get("probe") or 0) >= ALONE for p in b.get("processes") or []
               if not p.get("left_out") or p.get("ref_off"))


def ns_headline(b):
    """b's headline where it is in ns, not a bound, with cycles beside it."""
    h = b.get("headline")
    ok = h and not h.get("bound") and h.get("unit") == "ns" and "cycles" in h.get("units", {})
    return h if ok else None


def as_read(b):
    """Benchmark b, written with its cycles at the clock's rate, with the
    cycles as read where no process met a busy sibling; else b."""
    h = ns_headline(b)
    x = sorted(p["cycles"] for p in b.get("processes") or []
               if not p.get("left_out") and (p.get("cycles") or 0) > 0)
    if not h or sibling_met(b) or len(x) < 2 or not h["units"]["cycles"].get("value"):
        return b
    h = copy.deepcopy(h)
    c = h["units"]["cycles"]
    s = percentile(x, h.get("quantile") or 0.5) / c["value"]
    for key in ("ci", "est_ci"):
        if c.get(key):
            c[key] = [v * s for v in c[key]]
    c["value"] *= s
    return dict(b, headline=h)


def at_clock(b):
    """Benchmark b with its cycles moved as vn__at_clock moves them, where
    its headline is ns and it has cycles; else b. A run that left processes
    out for their core state reaches them (vn__reach_other_state) at their
    ns times the rate, from its own interval without the reach (est_ci
    widened for the next run, as the engine widens it)."""
    h = ns_headline(b)
    if not h or not sibling_met(b):
        return b
    rates = sorted((p["cycles"] / p["value"] for p in b.get("processes") or []
                    if not p.get("left_out") and p.get("cycles") and (p.get("value") or 0) > 0),
                   reverse=True)
    c = h["units"]["cycles"]
    if len(rates) < 2 or not c.get("value"):
        return b
    rate = rates[1 if len(rates) >= 3 else 0]
    s = h["units"]["ns"]["value"] * rate / c["value"]
    if not s > 0:
        return b
    others = [p["value"] * rate for p in left_for_state(b) if (p.get("value") or 0) > 0]
    h = copy.deepcopy(h)
    c = h["units"]["cycles"]
    if others and c.get("est_ci"):
        c["ci"] = list(next_run(c["value"], *c["est_ci"]))
    for key in ("ci", "est_ci"):
        if c.get(key):
            c[key] = [x * s for x in c[key]]
    c["value"] *= s
    if others and c.get("est_ci"):
        at = percentile(sorted(others), h.get("quantile") or 0.5)
        c["ci"] = [min(c["ci"][0], at), max(c["ci"][1], at)]
    return dict(b, headline=h)


def main(dirs, back=False):
    """Each set-condition's figures as its runs were and as the rule
    leaves them: moved to the clock's rate (the chains, in runs read as
    they were), or back as read (--as-read: every workload)."""
    change, names = (as_read, None) if back else (at_clock, CHAINS)
    first, second = ("as written", "as read") if back else ("as read", "at clock")
    total = {}
    print(f"{'set condition':<22}{'workload':<15}{'spread ' + first:>19}{second:>9}"
          f"{'cover ' + first:>19}{second:>10}")
    for d in dirs:
        files = os.listdir(d)
        for cond in cr.conditions(files):
            base = cr.base_runs(d, files, cond)
            if not base:
                continue
            moved = [{n: change(b) for n, b in r.items()} for r in base]
            where = f"{os.path.basename(os.path.normpath(d))} {cond}"
            for name in names or base[0]:
                a, b = cr.figures(base, name), cr.figures(moved, name)
                if a.unit != "cycles" or not a.tries:
                    continue
                t = total.setdefault(name, [0, 0, 0, 0])
                t[0] += a.hit
                t[1] += a.tries
                t[2] += b.hit
                t[3] += b.tries
                print(f"{where:<22}{name:<15}{max(a.vals) / min(a.vals):>19.3f}"
                      f"{max(b.vals) / min(b.vals):>9.3f}{a.hit:>13}/{a.tries:<5}"
                      f"{b.hit:>4}/{b.tries:<5}")
    for name, t in total.items():
        if t[1]:
            print(f"{name}: next run covered in {100 * t[0] / t[1]:.1f}% of {t[1]} tries "
                  f"{first}, {100 * t[2] / t[3]:.1f}% {second}")


if __name__ == "__main__":
    back = sys.argv[1:2] == ["--as-read"]
    if len(sys.argv) < 2 + back:
        sys.exit("usage: bench/clock_replay.py [--as-read] DIR [DIR...]")
    main(sys.argv[1 + back:], back)
