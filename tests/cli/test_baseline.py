"""Rows compared in-process: --baseline NAME and vn_bench_opts.baseline give
each row the ratio of its headline to the baseline's, with an interval
across the processes both ran in (or, in one process, from the pairs of
samples taken in the same round), as a column, a line below the table and
JSON; and a sweep over a parameter gets its complexity line."""
import json
import math
import re
import statistics
import subprocess

import pytest

from conftest import BUILD, names_in, validate
from test_engine_cli import QUICK, compile_program, results, run_ex

PROGRAM = BUILD / "tests" / "programs" / "sweep"
# A ratio as the reports write it: "1.64x", "12.3x", "250x", "0.0042x".
X = r"([\d.e-]+)x"


def run_sweep(*args, check=0):
    p = subprocess.run([str(PROGRAM), *QUICK, *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == check, (p.returncode, p.stdout, p.stderr)
    return p


def sweep_results(*args):
    p = run_sweep(*args, "--json", "-")
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    return d, p


def the_line(text, row, base):
    below = text.split("\n\n", 1)[1]
    (line,) = [ln for ln in below.splitlines() if ln.split()[:1] == [row] and names_in(ln, base)]
    return line


PER_PROCESS = re.compile(r", per process " + X + "-" + X + r"\)$")


def per_process(text, row, base):
    """The least and the most of the processes' own ratios, which the line
    gives when its interval is wide; None when it does not."""
    m = PER_PROCESS.search(the_line(text, row, base))
    return (float(m.group(1)), float(m.group(2))) if m else None


def ratio_line(text, row, base):
    """The line below the table for row against base, as (word, ratio, lo,
    hi, on): word its direction ("faster", "slower", or "same" when it
    says neither), the ratios in the order it gives them (the ratio, then
    the ends of its interval, None without one), and what the interval
    rests on at its end: ", N processes", ", unpaired" (samples of one
    process that did not take turns) or None (pairs of samples)."""
    line = PER_PROCESS.sub(")", the_line(text, row, base))
    ratios = [float(r) for r in re.findall(r"(?<![\w/=])(\d[\d.e-]*)x\b", line)]
    words = re.findall(r"\w+", line)
    word = "faster" if "faster" in words else "slower" if "slower" in words else "same"
    if len(ratios) == 1:
        return word, ratios[0], None, None, None
    assert len(ratios) == 3, line
    procs = re.search(r"\b(\d+) processes\)$", line)
    on = f", {procs.group(1)} processes" if procs else ", unpaired" if "unpaired" in words else None
    return (word, *ratios, on)


def check_line_and_json(text, row, base, b):
    """The line says what the JSON holds: the direction from the interval,
    the ratio inverted for a faster row."""
    word, r, lo, hi, on = ratio_line(text, row, base)
    assert b["name"] == base
    if lo is None:  # a loaded machine left too few samples
        assert b["ci"] == [None, None] and b["n"] < 6
        assert abs(r - (1 / b["ratio"] if word == "faster" else b["ratio"])) < 0.01 * r + 0.005
        return
    assert (on == ", unpaired") == (not b["paired"])
    assert (on is not None and on.endswith(" processes")) == b["processes"]
    if b["processes"]:
        assert on == f", {b['n']} processes"
    if word == "faster":
        assert b["ci"][1] < 1
        want = (1 / b["ratio"], 1 / b["ci"][1], 1 / b["ci"][0])
    elif word == "slower":
        assert b["ci"][0] > 1
        want = (b["ratio"], b["ci"][0], b["ci"][1])
    else:
        assert b["ci"][0] <= 1 <= b["ci"][1]
        want = (b["ratio"], b["ci"][0], b["ci"][1])
    for shown, exact in zip((r, lo, hi), want):
        assert abs(shown - exact) <= 0.01 * exact + 0.005, (shown, exact)


def process_ratios(rows, row, base, which="all"):
    """Each process's ratio of row to base, where both have a median above 0:
    of all of them; of those both headlines rest on ("kept", where two or
    more are, else all); or of those either left out for its core state
    ("other", where two or more are kept)."""
    def other(r, p):
        return p["left_out"] and not p.get("ref_off") and p["shared"] != (r["headline"]["core"] == "shared")

    pairs = [(m, t) for m, t in zip(rows[row]["processes"], rows[base]["processes"])
             if (m["value"] or 0) > 0 and (t["value"] or 0) > 0
             and not m["upper_bound"] and not t["upper_bound"]]
    kept = [(m, t) for m, t in pairs if not m["left_out"] and not t["left_out"]]
    if which == "kept" and len(kept) >= 2:
        pairs = kept
    elif which == "other":
        pairs = [(m, t) for m, t in pairs if len(kept) >= 2
                 and (other(rows[row], m) or other(rows[base], t))]
    return [m["value"] / t["value"] for m, t in pairs]


def check_wide(d, text, precision, row="merged_loop", base="two_loops"):
    """A wide interval (over twice the precision asked, either way) gives
    its reason: the least and the most of the processes' own ratios, in the
    line's direction (inverted only where it says faster). Whether it was
    wide."""
    rows = {b["name"]: b for b in d["benchmarks"]}
    b = rows[row]["baseline"]
    ratios = process_ratios(rows, row, base)
    wide = max(b["ci"][1] / b["ratio"], b["ratio"] / b["ci"][0]) - 1 > 2 * precision
    per = per_process(text, row, base)
    assert (per is not None) == wide, (per, b)
    if per:
        faster = ratio_line(text, row, base)[0] == "faster"
        want = (1 / max(ratios), 1 / min(ratios)) if faster else (min(ratios), max(ratios))
        for shown, exact in zip(per, want):
            assert abs(shown - exact) <= 0.01 * exact + 0.005, (per, want)
    return wide


def test_sum_arrays_compares_through_the_baseline():
    d, p = results("sum_arrays", "--baseline", "two_loops")
    rows = {b["name"]: b for b in d["benchmarks"]}
    two, merged = rows["two_loops"], rows["merged_loop"]
    assert two["baseline"]["ratio"] == 1 and two["baseline"]["ci"] == [1, 1]
    b = merged["baseline"]
    # Over the processes both ran in, paired by process: the median of their
    # ratios (of their logs, for an even count), so that one process a
    # burst met on one row only moves it no more than any other.
    assert b["processes"] and b["paired"] and b["n"] >= 2
    assert b["n"] <= min(two["headline"]["processes"], merged["headline"]["processes"])
    # Over the processes both headlines rest on (the core state the rows'
    # figures speak of), the interval reaching the median ratio of those
    # either left out for their state.
    ratios = process_ratios(rows, "merged_loop", "two_loops")
    kept = process_ratios(rows, "merged_loop", "two_loops", "kept")
    other = process_ratios(rows, "merged_loop", "two_loops", "other")
    assert min(kept) * (1 - 1e-9) <= b["ratio"] <= max(kept) * (1 + 1e-9)
    assert b["n"] == len(kept) and b["other_state"] == len(other)
    median_log = statistics.median(math.log(r) for r in kept)
    assert b["ratio"] == pytest.approx(math.exp(median_log), rel=1e-9)
    assert b["ci"][0] <= b["ratio"] <= b["ci"][1]
    if other:
        reach = statistics.median(other)
        assert b["ci"][0] * (1 - 1e-9) <= reach <= b["ci"][1] * (1 + 1e-9)
    # The ratio of the headlines, each a low quantile of its row's processes,
    # lies within the least and the most of the processes' own ratios when
    # both rows rest on every process: each process of merged_loop is its
    # ratio times two_loops', and a quantile keeps that order. How near the
    # paired ratio it is depends on the hour (the sums' processes spread
    # 1.9x in a busy one, each row's quantile then picked from another
    # process); the pairs are what cancel it.
    whole = all(not r["headline"]["processes_left_out"] for r in (two, merged))
    if whole and len(ratios) == len(two["processes"]) == len(merged["processes"]):
        headline = merged["stats"]["median"] / two["stats"]["median"]
        assert min(ratios) * (1 - 1e-6) <= headline <= max(ratios) * (1 + 1e-6), (headline, ratios)
    text = p.stderr  # the JSON went to stdout, the table to stderr
    check_line_and_json(text, "merged_loop", "two_loops", b)
    check_wide(d, text, 0.01)
    # Asked for +-0.001%, the least --precision takes, the interval is wide
    # (two loops' processes agree within +-0.1% on a quiet machine, but not
    # within that), and says why.
    d2, p2 = results("sum_arrays", "--baseline", "two_loops", "--precision", "0.001")
    assert check_wide(d2, p2.stderr, 0.00001)
    # The relative column: 1.00x for the baseline, the ratio for the other.
    header = next(line for line in text.splitlines() if line.startswith("benchmark"))
    assert "relative" in header.split()
    table = text.split("\n\n")[0].splitlines()
    for line in table:
        if line.startswith("two_loops "):
            assert " 1.00x " in line
        if line.startswith("merged_loop "):
            assert re.search(rf" {b['ratio']:.2f}x ", line), line
    # Without --baseline: no column, no finding, no line but the row's own,
    # null in the JSON.
    d, p = results("sum_arrays")
    assert all(r["baseline"] is None for r in d["benchmarks"])
    assert not [f for f in d["findings"] if f["id"] == "baseline"]
    lines = p.stderr.splitlines()
    header = next(line for line in lines if line.startswith("benchmark"))
    assert "relative" not in header.split()
    assert len([line for line in lines if line.startswith("merged_loop ")]) == 1, p.stderr


def test_without_turns_the_samples_are_not_paired():
    # In one process, rows that did not take turns have no pairs of samples.
    d, p = results("sum_arrays", "--baseline", "two_loops", "--no-interleave", "--processes", "1")
    b = {r["name"]: r for r in d["benchmarks"]}["merged_loop"]["baseline"]
    assert b["paired"] is False and b["processes"] is False
    check_line_and_json(p.stderr, "merged_loop", "two_loops", b)
    # Over processes they took turns in each process all the same: the
    # ratios of the processes are the pairs.
    d, p = results("sum_arrays", "--baseline", "two_loops", "--no-interleave", "--processes", "3")
    b = {r["name"]: r for r in d["benchmarks"]}["merged_loop"]["baseline"]
    assert b["processes"] is True and b["n"] <= 3
    check_line_and_json(p.stderr, "merged_loop", "two_loops", b)


def test_a_benchmarks_own_baseline_and_its_complexity():
    d, p = sweep_results("--baseline", "fixed")
    rows = {b["name"]: b for b in d["benchmarks"]}
    # The sweep keeps its own baseline; the other rows take --baseline's.
    for n in (64, 128, 256, 512, 1024):
        assert rows[f"grow/n={n}"]["baseline"]["name"] == "grow/n=64"
    assert rows["fixed"]["baseline"]["ratio"] == 1
    # Sixteen times the multiplies take far more than twice the time.
    big = rows["grow/n=1024"]["baseline"]
    assert big["ratio"] > 2
    check_line_and_json(p.stderr, "grow/n=1024", "grow/n=64", big)
    # Every row over processes with an interval says why where it is wide,
    # in its line's direction, which for a row no different from its
    # baseline is the ratio as it is, even below 1.
    for name, r in rows.items():
        bl = r["baseline"]
        if bl["processes"] and bl["name"] != name and bl["ci"][0] is not None:
            check_wide(d, p.stderr, 0.01, name, bl["name"])
    # A bound gives a bound on the ratio, and says so. (The empty loop's own
    # body is one almost always; code placement can still tell the two
    # apart.)
    nothing = rows["nothing"]
    if nothing["upper_bound"]:
        # Its line names both rows, the least ratio (fixed's median over the
        # bound) and the bound.
        assert nothing["baseline"]["ratio"] is None
        (line,) = [f["brief"] for f in d["findings"]
                   if f["id"] == "baseline" and f["brief"].split()[:1] == ["nothing"]]
        assert line in p.stderr.splitlines() and names_in(line, "fixed"), line
        m = re.search(rf" {X} .* < ([\d.]+) ([nu]s)\)$", line)
        assert m, line
        # The bound shown is rounded up to two significant digits, so that it
        # stays a bound: at or above the bound, by at most one step of the
        # second digit (10% at 1.0).
        bound = float(m.group(2)) * (1000 if m.group(3) == "us" else 1)
        assert nothing["bound_ns"] * (1 - 1e-9) <= bound <= nothing["bound_ns"] * 1.1 * (1 + 1e-9), \
            (line, nothing["bound_ns"])
        least = rows["fixed"]["stats"]["median"] / nothing["bound_ns"]
        assert abs(float(m.group(1)) / least - 1) < 0.05, (line, least)
    else:
        check_line_and_json(p.stderr, "nothing", "fixed", nothing["baseline"])
    # One line per row but the baselines themselves.
    lines = [f for f in d["findings"] if f["id"] == "baseline"]
    assert len(lines) == 4 + 1 + 0, lines  # grow/n=128..1024, nothing
    # n multiplies an iteration: the time grows as n, one line for the sweep.
    fits = [f for f in d["findings"] if f["id"] == "complexity"]
    assert len(fits) == 1, fits
    # The line: the sweep, the fit O(n) with its coefficient, then the next
    # best fit; the error of the fit (%) below that of the next best.
    brief = fits[0]["brief"]
    assert brief.split()[0] == "grow:", brief
    assert re.findall(r"O\(([^)]+)\)", brief)[0] == "n", brief
    errors = [float(e) for e in re.findall(r"([\d.]+)%", brief)]
    assert len(errors) == 2 and errors[0] < errors[1], brief
    # The coefficient times n is about the row's median.
    coef = re.search(r"([\d.]+) ns x n\b", brief)
    at = rows["grow/n=1024"]["stats"]["median"]
    assert coef and 0.7 < float(coef.group(1)) * 1024 / at < 1.4, brief
    assert fits[0]["brief"] in p.stderr


def test_unknown_baselines_are_usage_errors(tmp_path):
    # One line naming the option and its value, the option that lists the
    # names, the --filter that leaves the baseline out.
    for args, names in [
        (["--baseline", "nope"], ["--baseline 'nope'", "--list"]),
        (["--baseline", "grow"], ["--baseline 'grow'"]),
        (["--baseline", "fixed", "--filter", "grow"], ["--baseline 'fixed'", "--filter 'grow'"]),
    ]:
        p = run_sweep(*args, check=2)
        assert p.stderr.count("\n") == 1 and all(n in p.stderr for n in names), (names, p.stderr)
        assert p.stdout == ""
    # A benchmark whose own baseline is no row: the program's usage is wrong.
    exe = compile_program(tmp_path, r"""
#include <vernier.h>
static void a(vn_state *st) { unsigned x = 1; while (vn_next(st)) { x = x * 3 + 1; vn_keep(x); } }
VN_BENCH_OPTS(a, .baseline = "b");
int main(int argc, char **argv) { return vn_main(argc, argv); }
""")
    p = subprocess.run([str(exe), "--quiet"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "'a'" in p.stderr and "'b'" in p.stderr, p.stderr


def test_help_and_list_still_work_with_a_wrong_baseline():
    assert "--baseline" in run_ex("sum_arrays", "--help", check=0).stdout.split()
    p = run_sweep("--baseline", "nope", "--list")
    assert "grow/n=64" in p.stdout.split()


BOUND = r"""
#include <vernier.h>
static void nothing(vn_state *st) { while (vn_next(st)) vn_keep(0); }
static void also_nothing(vn_state *st) { while (vn_next(st)) vn_keep(1); }
static void chain(vn_state *st)
{
    unsigned x = 1;
    while (vn_next(st)) {
        for (int i = 0; i < 200; i++) {
            x = x * 3 + 1;
            vn_keep(x);
        }
    }
}
VN_BENCH(nothing);
VN_BENCH(also_nothing);
VN_BENCH(chain);
int main(int argc, char **argv) { return vn_main(argc, argv); }
"""


def test_a_baseline_that_is_a_bound_bounds_each_ratio(tmp_path):
    """A baseline no slower than its empty loop has only a bound (< b): each
    row still gets its line, the least its ratio can be; a row that is a
    bound too gets one that says nothing can be known, and why."""
    exe = compile_program(tmp_path, BOUND)
    p = subprocess.run([str(exe), *QUICK, "--baseline", "nothing", "--json", "-"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    rows = {b["name"]: b for b in d["benchmarks"]}
    if not rows["nothing"]["upper_bound"]:
        pytest.skip("the empty body read slower than its empty loop on this run")
    lines = [f["brief"] for f in d["findings"] if f["id"] == "baseline"]
    (line,) = [ln for ln in lines if ln.startswith("chain ")]
    m = re.fullmatch(r"chain is at least " + X + r" slower than nothing \(< ([\d.]+) ns, a bound\)",
                     line)
    assert m, line
    # The bound on the ratio is chain's median over the baseline's bound.
    bound_ns = rows["nothing"]["bound_ns"]
    assert math.isclose(float(m.group(1)), rows["chain"]["stats"]["median"] / bound_ns, rel_tol=0.01)
    if rows["also_nothing"]["upper_bound"]:
        (other,) = [ln for ln in lines if ln.startswith("also_nothing ")]
        assert "both upper bounds" in other and "no ratio" in other, other
    # Every row but the baseline has its line: none is left without an answer.
    assert len(lines) == 2, lines
