#!/usr/bin/env python3
"""The figures of bench/coverage.sh from the files it kept in DIR.

A chain whose headlines spread more than 1.03 in cycles names the runs
that read 3% or more slow in cycles at the same on-CPU share: a state of
the host that cycles cannot cancel (docs/engine.md, item 8).

A run's headline for a workload is read from its JSON: the "headline"
object when the file has one (its unit, value and interval), else the
median in ns and its interval from "stats" (files written before there was
a headline object). An upper bound has no interval: its coverage is not
counted, and its spread is that of the bounds.
"""
import json
import os
import statistics
import sys
import types

PRECISION = 0.01  # the precision asked, the default


def headline(bench, unit=None):
    """(unit, value, lo, hi, bound) of one benchmark of a results file, in
    unit when given and the file has it, else in the headline's own."""
    h = bench.get("headline")
    if h:
        units = h.get("units") or {}
        want = unit or h["unit"]
        if want in units:
            u = units[want]
            return want, u["value"], u["ci"][0], u["ci"][1], h.get("bound", False)
        return h["unit"], h["value"], h["ci"][0], h["ci"][1], h.get("bound", False)
    if bench.get("upper_bound"):
        return "ns", bench["bound_ns"], None, None, True
    s = bench.get("stats") or {}
    if unit == "cycles" and bench.get("cycles") is not None:
        return "cycles", bench["cycles"], None, None, False
    ci = s.get("median_ci") or [None, None]
    return "ns", s.get("median"), ci[0], ci[1], False


def est_interval(bench, unit):
    """The estimate's own interval (headline.est_ci, the printed one over
    sqrt(2)) when the headline is in unit; (None, None) otherwise."""
    h = bench.get("headline") or {}
    ci = h.get("est_ci")
    if not ci or h.get("unit") != unit or h.get("bound"):
        return None, None
    return ci[0], ci[1]


def probe(bench):
    """The median taken-branch probe of the processes a headline rests on
    (those not left out as shared or empty); None without probes."""
    ps = [q.get("probe") for q in bench.get("processes") or []
          if not q.get("shared") and not q.get("left_out")]
    ps = [x for x in ps if x]
    return statistics.median(ps) if ps else None


def on_cpu(bench):
    """The median over one run's samples of CPU time over wall time; None
    where the samples lack it."""
    ss = bench.get("samples") or []
    cpu = [x["cpu_ns"] / x["value"] for x in ss if x.get("cpu_ns") and x.get("value")]
    return statistics.median(cpu) if cpu else None


def unseen(runs, name):
    """The runs (numbered from 1) whose headline in cycles reads 3% or more
    over the runs' median at an on-CPU share within 1% of theirs: a
    slowdown that the probe, and so cycles, did not see, nor the on-CPU
    time."""
    rows = [(i, headline(r[name], "cycles")[1], on_cpu(r[name]))
            for i, r in enumerate(runs, 1) if name in r]
    rows = [x for x in rows if x[1] and x[2]]
    if len(rows) < 3:
        return []
    v, o = (statistics.median(x[k] for x in rows) for k in (1, 2))
    return [i for i, val, cpu in rows if val >= 1.03 * v and abs(cpu / o - 1) <= 0.01]


def same_state(a, b):
    """Both runs' headlines rest on processes in one core state, as vernier
    compare judges it: neither's headline says its core was shared through
    the run while the other's does not, and where neither run told its
    processes apart (headline core "own"), their probes within 1.1x
    (unknown counts as same)."""
    ca, cb = ((x.get("headline") or {}).get("core") for x in (a, b))
    if (ca == "shared") != (cb == "shared"):
        return False
    if "own" in (ca, cb):
        return True
    x, y = probe(a), probe(b)
    return x is None or y is None or max(x, y) / min(x, y) <= 1.1


def load(path):
    try:
        with open(path) as f:
            return {b["name"]: b for b in json.load(f)["benchmarks"]}
    except (OSError, ValueError, KeyError):
        return None


def conditions(files):
    """The conditions of a kept set (quiet, stress, quiet+alt, ...), quiet
    first, from the names of its runs' files."""
    return sorted({f.split("-")[0] for f in files if f.endswith(".json") and "-base-" in f},
                  key=lambda c: (c != "quiet", c))


def run_count(files, cond):
    """How many runs of cond were kept: COND-base-1.json, -2, ... in a row."""
    i = 0
    while f"{cond}-base-{i + 1}.json" in files:
        i += 1
    return i


def base_runs(d, files, cond):
    """The readable runs of cond, in order: {name: benchmark} each."""
    runs = (load(os.path.join(d, f"{cond}-base-{i}.json")) for i in range(1, run_count(files, cond) + 1))
    return [r for r in runs if r]


def verdicts_of(doc):
    """{name: verdict} of a `vernier compare --json` document; "declined" for
    a row it did not compare because the core states differed: a try that
    found nothing."""
    got = {b["name"]: b["verdict"] for b in doc["benchmarks"]}
    for w in doc.get("not_comparable") or []:
        if isinstance(w, dict) and "machines differed" in (w.get("reason") or ""):
            got.setdefault(w.get("name"), "declined")
    return got


def verdicts(path):
    """verdicts_of a comparison kept in path; {} when it cannot be read."""
    try:
        with open(path) as f:
            return verdicts_of(json.load(f))
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def wall(path):
    try:
        with open(path) as f:
            return int(f.read()) / 1000
    except (OSError, ValueError):
        return None


def needs(apart):
    """The half-width, as a share of each run's headline, that one interval
    of that width about every run would need to hold the next run's
    headline 95% of the time: the 95th percentile of how far apart the
    pairs' headlines are. The narrowest a fixed-width 95% promise can be;
    NAN without pairs."""
    if not apart:
        return float("nan")
    s = sorted(apart)
    return s[min(len(s) - 1, int(0.95 * len(s)))]


def figures(runs, name):
    """One workload's figures over a condition's runs ({name: benchmark}
    each, in order): the unit most headlines were in, the headlines
    (vals), their intervals' half-widths as shares (halves), how many were
    bounds, the process counts, and over the pairs of neighbouring runs
    each way: how often one's interval held the other's headline (hit of
    tries; shit of stries over pairs in one core state; ehit of etries
    with the estimate's own interval) and how far apart they were (apart);
    half (the mean half-width) and limit (the headlines' half-range plus
    the precision asked)."""
    # The unit most runs' headlines were in (a row's unit can differ
    # from run to run, and the first run's is no better a choice).
    units = [headline(r[name])[0] for r in runs if name in r]
    unit = max(dict.fromkeys(units), key=units.count)
    vals, halves, bounds, procs = [], [], 0, []
    for r in runs:
        if name not in r:
            continue
        u, v, lo, hi, bound = headline(r[name], unit)
        bounds += bool(bound)
        if v is None:
            continue
        vals.append(v)
        if lo is not None and hi is not None and v:
            # Half the interval's width, as a share of the headline:
            # an interval on the log scale is longer above it than
            # below, and the medians' half-range it is held to is
            # half of theirs too.
            halves.append((hi - lo) / 2 / abs(v))
        h = r[name].get("headline") or {}
        if h.get("processes"):
            procs.append(h["processes"])
    hit = tries = shit = stries = ehit = etries = 0
    apart = []
    for k in range(len(runs) - 1):
        a, b = runs[k].get(name), runs[k + 1].get(name)
        if not a or not b:
            continue
        for x, y in ((a, b), (b, a)):
            u, v, lo, hi, bound = headline(x, unit)
            _, w, _, _, _ = headline(y, u)
            if lo is None or hi is None or w is None or bound:
                continue
            tries += 1
            hit += lo <= w <= hi
            if v and w is not None:
                apart.append(abs(w / v - 1))
            elo, ehi = est_interval(x, u)
            if elo is not None:
                etries += 1
                ehit += elo <= w <= ehi
            if same_state(x, y):
                stries += 1
                shit += lo <= w <= hi
    mid = statistics.median(vals) if vals else float("nan")
    half_range = (max(vals) - min(vals)) / 2 / mid if vals and mid else float("nan")
    half = statistics.mean(halves) if halves else float("nan")
    return types.SimpleNamespace(
        unit=unit, vals=vals, halves=halves, bounds=bounds, procs=procs, hit=hit, tries=tries,
        shit=shit, stries=stries, ehit=ehit, etries=etries, apart=apart, half=half,
        limit=half_range + PRECISION)


def main(d):
    files = os.listdir(d)
    conds = conditions(files)
    machine = open(os.path.join(d, "machine")).read().strip() if "machine" in files else "?"
    print(f"machine: {machine}")
    for cond in conds:
        runs = base_runs(d, files, cond)
        if not runs:
            continue
        n = len(runs)
        times = [wall(os.path.join(d, f"{cond}-base-{k}.ms")) for k in range(1, n + 1)]
        times = [t for t in times if t is not None]
        print(f"\n{cond}: {n} runs, wall time per run: median {statistics.median(times):.2f} s "
              f"({min(times):.2f}-{max(times):.2f})")
        print(f"{'workload':<15}{'unit':>7}{'spread':>8}{'half':>8}{'needs':>7}{'limit':>8}"
              f"{'cover':>7}{'same':>6}{'est':>5}{'false':>7}{'3%':>6}{'10%':>6}{'procs':>6}")
        names = list(runs[0].keys())
        covs, scovs, wide, low, missed = [], [], [], [], []
        for name in names:
            f = figures(runs, name)
            unit, vals, bounds, procs = f.unit, f.vals, f.bounds, f.procs
            hit, tries, shit, stries = f.hit, f.tries, f.shit, f.stries
            ehit, etries, apart = f.ehit, f.etries, f.apart
            # How many of each kind of comparison called the workload
            # slower, of how many made: against the next run ("base"), and
            # against one with a planted slowdown of 3% or 10% (the chains).
            chain = "chain" in name
            # And how many of the rest were declined because the core
            # states differed (the machines did, not the code).
            counts = {"slow3": (0, 0), "slow10": (0, 0)}
            declined = {}
            for kind in ("base", "slow3", "slow10") if chain else ("base",):
                got = [verdicts(os.path.join(d, f"{cond}-cmp-{kind}-{k}.json")).get(name)
                       for k in range(1, n)]
                got = [v for v in got if v is not None]
                counts[kind] = got.count("slower"), len(got)
                declined[kind] = got.count("declined")

            def share(kind):
                got, tot = counts[kind]
                return f"{got}/{tot}" if tot else "-"

            # The other goals: false alarms in at most 5% of the tries (2
            # of 40, and of 38 when two runs had no comparison); on the
            # chains, a planted 10% found in 95% or more, 3% in 50%, and
            # their headlines within 1.03 of each other.
            got, tot = counts["base"]
            if tot and got > round(0.05 * tot):
                missed.append(f"  {name} false alarms {got}/{tot} > 5%")
            for kind, least in (("slow10", 0.95), ("slow3", 0.5)):
                got, tot = counts[kind]
                if tot and got < least * tot:
                    off = declined.get(kind)
                    why = f" ({off} declined: core states differed)" if off else ""
                    missed.append(f"  {name} {kind[4:]}% found {got}/{tot} < "
                                  f"{100 * least:.0f}%{why}")
            spread = max(vals) / min(vals) if vals and min(vals) > 0 else float("nan")
            if chain and unit == "cycles" and spread > 1.03:
                line = f"  {name} spread {spread:.3f} > 1.03 in cycles"
                hid = unseen(runs, name)
                if hid:
                    line += ("; 3%+ slower in cycles, same on-CPU share: run"
                             + ("s" if len(hid) > 1 else "") + " #" + ", #".join(map(str, hid)))
                missed.append(line)
            cov = hit / tries if tries else None
            if cov is not None:
                covs.append(cov)
                if cov < 0.65:
                    low.append(name)
            scov = shit / stries if stries else None
            if scov is not None:
                scovs.append(scov)
            half, need, limit = f.half, needs(apart), f.limit
            if half > limit:
                line = f"  {name} {100 * half:.2f}% > {100 * limit:.2f}%, needs {100 * need:.2f}%"
                if need > limit:  # so apart has pairs: needs() is NAN without
                    fits = sum(a <= limit for a in apart) / len(apart)
                    line += (f": no fixed-width 95% interval fits; one as wide as the limit "
                             f"holds {100 * fits:.0f}%")
                wide.append(line)
            print(f"{name:<15}{unit:>7}{spread:>8.3f}{100 * half:>7.2f}%{100 * need:>6.2f}%{100 * limit:>7.2f}%"
                  f"{(f'{100 * cov:.0f}%' if cov is not None else ('bound' if bounds else '-')):>7}"
                  f"{(f'{100 * scov:.0f}%' if scov is not None else '-'):>6}"
                  f"{(f'{100 * ehit / etries:.0f}%' if etries else '-'):>5}"
                  f"{share('base'):>7}{share('slow3') if chain else '':>6}"
                  f"{share('slow10') if chain else '':>6}"
                  f"{(f'{statistics.median(procs):.0f}' if procs else '-'):>6}")
        if covs:
            print(f"mean coverage over the workloads with an interval: {100 * statistics.mean(covs):.0f}%"
                  + (f"; over pairs in one core state ('same'): {100 * statistics.mean(scovs):.0f}%"
                     if scovs else ""))
        if covs:
            # The goals of bench/coverage.sh in one line, a line for each
            # workload wider than its limit, then one for each other goal
            # missed (false alarms, power, the chains' spread).
            others = (f"{len(missed)} other goal{'s' if len(missed) > 1 else ''} missed"
                      if missed else "the other goals met")
            print(f"goals: mean coverage {100 * statistics.mean(covs):.0f}% "
                  f"({'>=' if statistics.mean(covs) >= 0.8 else 'under'} 80%), "
                  + (f"under 65%: {', '.join(low)}" if low else "each >= 65%") + f", {others}, "
                  + (f"{len(wide)} wider than the limit" if wide else "none wider than the limit")
                  + (":" if wide or missed else ""))
            for line in wide + missed:
                print(line)
        from core_state import summary  # pylint: disable=import-outside-toplevel
        print(f"core: {summary(runs)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
