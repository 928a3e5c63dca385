"""vernier compare end to end: files of every format it reads, made by the
real programs (a benchmark program, vernier run, vernier suite, a Google
Benchmark program, hyperfine), the p-values against scipy, the intervals
against a bootstrap in numpy, verdicts and exit codes, and the errors."""
import copy
import errno
import json
import math
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from conftest import BUILD, SOURCE, check_golden, error_line, names_in, run, validate

SUM_ARRAYS = BUILD / "examples" / "sum_arrays"
GBENCH = BUILD / "bench" / "bench_gbench_ablation"


def write(path, doc):
    path.write_text(json.dumps(doc))
    return str(path)


def compare(*args, check=0, **kw):
    """The comparison as JSON (validated against the schema), and the console."""
    p = run("compare", "--json", "-", *args, check=check, **kw)
    doc = json.loads(p.stdout)
    validate(doc, "compare-1.json")
    return doc


def rows(doc):
    return {r["name"]: r for r in doc["benchmarks"]}


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    """A real vernier.results/1 of kind commands, the template for synthetic
    data: its samples are replaced, the rest of the file is vernier's."""
    d = tmp_path_factory.mktemp("run")
    path = d / "run.json"
    run("run", "--runs", "3", "--json", str(path), "true", check=0, timeout=120)
    return json.loads(path.read_text())


def commands_doc(template, benches):
    """template with one benchmark per (name, values in ns)."""
    doc = copy.deepcopy(template)
    row = doc["benchmarks"][0]
    doc["benchmarks"] = []
    for name, values in benches.items():
        r = copy.deepcopy(row)
        r["name"] = name
        r["samples"] = [dict(row["samples"][0], value=float(v), tags=[]) for v in values]
        doc["benchmarks"].append(r)
    return doc


def data(seed):
    rng = np.random.default_rng(seed)
    return {
        "shifted": (rng.normal(1000, 30, 40), rng.normal(1060, 30, 45)),
        "ties": (rng.integers(100, 106, 30).astype(float), rng.integers(101, 107, 25).astype(float)),
        "exact": (rng.normal(500, 10, 5), rng.normal(530, 10, 7)),  # scipy's exact method
        "lopsided": (rng.normal(500, 10, 6), rng.normal(505, 10, 60)),
        "lognormal": (rng.lognormal(6, 0.3, 200), rng.lognormal(6, 0.3, 150)),
    }


def test_p_values_and_ratios_match_scipy(tmp_path, run_file):
    d = data(1)
    base = write(tmp_path / "base.json", commands_doc(run_file, {k: v[0] for k, v in d.items()}))
    new = write(tmp_path / "new.json", commands_doc(run_file, {k: v[1] for k, v in d.items()}))
    doc = compare(base, new)
    got = rows(doc)
    assert set(got) == set(d)
    for name, (a, b) in d.items():
        r = got[name]
        assert r["p"] == pytest.approx(mannwhitneyu(a, b, alternative="two-sided").pvalue, rel=1e-9)
        assert r["base"]["n"] == len(a) and r["new"]["n"] == len(b)
        assert r["base"]["median_ns"] == pytest.approx(np.median(a), rel=1e-12)
        assert r["ratio"] == pytest.approx(np.median(b) / np.median(a), rel=1e-12)
    ratios = [r["ratio"] for r in doc["benchmarks"]]
    assert doc["geomean"]["ratio"] == pytest.approx(math.exp(np.mean(np.log(ratios))), rel=1e-12)


def bootstrap(a, b, resamples=10000, seed=0):
    """The method docs/compare.md states: each side resampled on its own, the
    ratio of the resamples' medians, its 2.5th and 97.5th percentiles."""
    rng = np.random.default_rng(seed)
    ma = np.median(rng.choice(a, (resamples, len(a))), axis=1)
    mb = np.median(rng.choice(b, (resamples, len(b))), axis=1)
    return np.percentile(mb / ma, [2.5, 97.5])


def test_interval_is_the_bootstrap_and_holds_the_true_ratio(tmp_path, run_file):
    rng = np.random.default_rng(7)
    benches = {}
    for i, (n, sigma, scale) in enumerate([(30, 0.05, 1.25), (60, 0.2, 0.8), (12, 0.02, 1.0)]):
        # NEW is BASE's distribution scaled: the true ratio of the medians is scale.
        benches["b%d" % i] = (rng.lognormal(5, sigma, n), scale * rng.lognormal(5, sigma, n), scale)
    base = write(tmp_path / "base.json", commands_doc(run_file, {k: v[0] for k, v in benches.items()}))
    new = write(tmp_path / "new.json", commands_doc(run_file, {k: v[1] for k, v in benches.items()}))
    got = rows(compare(base, new))
    for name, (a, b, scale) in benches.items():
        lo, hi = got[name]["ci"]
        assert lo <= got[name]["ratio"] <= hi
        assert lo < scale < hi, (name, lo, hi, scale)
        # The same method with another generator: the ends agree within the
        # Monte Carlo error of 10000 resamples, a small part of the width.
        ref = bootstrap(a, b)
        width = ref[1] - ref[0]
        assert abs(lo - ref[0]) < 0.1 * width and abs(hi - ref[1]) < 0.1 * width, (name, lo, hi, ref)


def test_verdicts_threshold_and_exit_codes(tmp_path, run_file):
    rng = np.random.default_rng(3)
    a = rng.normal(1000, 5, 30)
    base = write(tmp_path / "base.json", commands_doc(run_file, {"f": a, "g": a}))
    slower = write(tmp_path / "slower.json", commands_doc(run_file, {"f": a * 1.2, "g": a * 0.7}))
    same = write(tmp_path / "same.json", commands_doc(run_file, {"f": a, "g": a}))
    got = rows(compare(base, slower))
    assert got["f"]["verdict"] == "slower" and got["f"]["ci"][0] > 1.02
    assert got["g"]["verdict"] == "faster" and got["g"]["ci"][1] < 0.98
    p = run("compare", "--fail-on-regression", base, slower, check=3)
    assert "slower" in p.stdout
    run("compare", "--fail-on-regression", slower, base, check=3)  # g is slower the other way
    got = rows(compare(base, same, "--fail-on-regression"))
    assert got["f"]["verdict"] == "no_change" and got["f"]["ratio"] == 1 and got["f"]["p"] == 1
    # A threshold wider than the change: no change, no failure.
    doc = compare("--threshold", "35", "--fail-on-regression", base, slower)
    assert {r["verdict"] for r in doc["benchmarks"]} == {"no_change"}
    assert doc["method"]["threshold"] == 0.35


def test_console_lines_and_markdown(tmp_path, run_file):
    a = np.linspace(1000, 1100, 20)
    long = "x" * 150
    base = write(tmp_path / "base.json", commands_doc(run_file, {"f": a, long: a, "old": a}))
    new = write(tmp_path / "new.json", commands_doc(run_file, {"f": a * 2, long: a, "added": a}))
    md = tmp_path / "out.md"
    p = run("compare", "--markdown", str(md), base, new, check=0)
    doc = compare(base, new)
    assert doc["counts"] == {"faster": 0, "slower": 1, "no_change": 1, "no_interval": 0}
    assert doc["geomean"]["benchmarks"] == 2
    assert doc["only_base"] == ["old"] and doc["only_new"] == ["added"]
    lines = p.stdout.splitlines()
    assert lines[0].split()[:3] == ["benchmark", "BASE", "NEW"]
    assert all(len(line) <= 100 for line in lines), lines
    assert any(line.startswith("f ") and "2.000x" in line and "slower" in line for line in lines)
    # The geometric mean under the table, and every name of one side only.
    assert sum(f"{doc['geomean']['ratio']:.3f}x" in line for line in lines) == 1, lines
    assert names_in(p.stdout, "old", "added"), lines
    # The Markdown table: its columns, and the slower row's verdict in bold.
    text = md.read_text()
    table = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
             if line.startswith("|")]
    assert table[0] == ["benchmark", "BASE", "NEW", "ratio", "95% CI", "p", "verdict"], table
    (f,) = [row for row in table if row[0] == "f"]
    assert f[6] == "**slower**", f
    assert not list(tmp_path.glob("out.md.tmp.*"))
    # '-' puts the table alone on standard output.
    p = run("compare", "--markdown", "-", base, new, check=0)
    assert p.stdout == text


def gb_side(host, entries):
    """A Google Benchmark file of entries, written on host."""
    return {"context": {"host_name": host, "num_cpus": 2}, "benchmarks": entries}


def gb_reps(name, values, **extra):
    """One entry of run_type iteration per value (ns), as repetitions."""
    return [{"name": name, "run_name": name, "run_type": "iteration", "repetitions": len(values),
             "repetition_index": i, "threads": 1, "iterations": 100, "real_time": v, "cpu_time": v,
             "time_unit": "ns", **extra} for i, v in enumerate(values)]


def gb_aggregates(name, values):
    """The mean, median, stddev and cv of values, as Google Benchmark writes
    them with --benchmark_report_aggregates_only."""
    v = np.array(values, dtype=float)
    return [{"name": f"{name}_{agg}", "run_name": name, "run_type": "aggregate",
             "repetitions": len(v), "threads": 1, "aggregate_name": agg,
             "aggregate_unit": "percentage" if agg == "cv" else "time", "iterations": len(v),
             "real_time": x, "cpu_time": x, "time_unit": "ns"}
            for agg, x in (("mean", v.mean()), ("median", np.median(v)), ("stddev", v.std(ddof=1)),
                           ("cv", v.std(ddof=1) / v.mean()))]


def test_golden_console_and_markdown(tmp_path):
    """The golden of the console and of the Markdown table, the one test
    that holds their wording: two fixed files with a row of each verdict,
    one compared by the means of Google Benchmark's aggregates, one paired
    by its name's form, one with instructions, one only in each side, one
    that failed, on two machines. The intervals are seeded: the same files
    always print the same bytes (tests/golden/compare-main.txt is what
    `vernier compare --markdown compare-main.md base.json new.json` prints
    in the folder of the two files this test writes)."""
    v = [100, 102, 98, 101, 99, 103, 97, 100]
    x = lambda k: [k * t for t in v]
    base = gb_side("alpha", gb_reps("BM_slower", x(1)) + gb_reps("BM_faster", x(3))
                   + gb_reps("BM_same", x(0.5)) + gb_reps("BM_copy/64", x(0.2))
                   + gb_reps("BM_old", v) + gb_reps("BM_one", [50])
                   + gb_aggregates("BM_agg", x(7)) + gb_reps("BM_err", v)
                   + gb_reps("BM_count", v, instructions=500.0))
    new = gb_side("beta", gb_reps("BM_slower", x(2)) + gb_reps("BM_faster", x(1.5))
                  + gb_reps("BM_same", x(0.5)) + gb_reps("BM_copy/64/real_time", x(0.2))
                  + gb_reps("BM_added", v)
                  + gb_reps("BM_one", [60]) + gb_aggregates("BM_agg", x(7.7))
                  + [dict(gb_reps("BM_err", [0])[0], error_occurred=True, error_message="lost")]
                  + gb_reps("BM_count", v, instructions=400.0))
    write(tmp_path / "base.json", base)
    write(tmp_path / "new.json", new)
    p = run("compare", "--markdown", "compare-main.md", "base.json", "new.json", check=0, cwd=tmp_path)
    assert p.stderr == ""
    check_golden("compare-main.txt", p.stdout)
    check_golden("compare-main.md", (tmp_path / "compare-main.md").read_text())
    # What the golden shows is what the JSON says.
    doc = compare("base.json", "new.json", cwd=tmp_path)
    assert {r["name"]: r["verdict"] for r in doc["benchmarks"]} == {
        "BM_slower": "slower", "BM_faster": "faster", "BM_same": "no_change", "BM_copy/64": "no_change",
        "BM_one": "no_interval", "BM_agg": "slower", "BM_count": "no_change"}
    assert rows(doc)["BM_agg"]["method"] == "aggregates"
    assert rows(doc)["BM_copy/64"]["new_name"] == "BM_copy/64/real_time"
    assert doc["paired"]["name_form"] == 1
    assert doc["only_base"] == ["BM_old"] and doc["only_new"] == ["BM_added"]
    assert [s["name"] for s in doc["not_comparable"]] == ["BM_err"]
    assert doc["machines_differ"] == ["host"]


def test_aggregates_without_a_deviation_say_why_there_is_no_interval(tmp_path):
    """Google Benchmark's aggregates without stddev or cv: a ratio of the
    means, no interval, no verdict, a p of null in a document the schema
    takes, and a note that names the aggregates (not 'one value')."""
    def bare(name, mean):
        return [a for a in gb_aggregates(name, [mean] * 5) if a["aggregate_name"] in ("mean", "median")]
    base = write(tmp_path / "base.json", gb_side("m", bare("BM_x", 100)))
    new = write(tmp_path / "new.json", gb_side("m", bare("BM_x", 110)))
    r = rows(compare(base, new))["BM_x"]
    assert r["method"] == "aggregates" and r["verdict"] == "no_interval"
    assert r["ratio"] == pytest.approx(1.1) and r["ci"] is None and r["p"] is None
    p = run("compare", base, new, check=0)
    assert "aggregates without a stddev" in p.stdout and "one value on a side" not in p.stdout


def test_threshold_is_the_precision_the_files_asked(tmp_path, run_file):
    """Between vernier's files whose runs sought a precision (a row stopped
    on it, or short of it at the most processes the engine chose) the
    threshold is that precision (the looser side's); a run of fixed count,
    or another tool's file on a side, keeps 2%; --threshold wins."""
    a = np.linspace(1000, 1030, 40)
    def side(name, values, precision, stop="precision"):
        doc = commands_doc(run_file, {"f": values})
        doc["config"]["precision"] = precision
        doc["benchmarks"][0]["stop"] = stop
        return write(tmp_path / name, doc)
    base, new = side("base.json", a, 1), side("new.json", a * 1.025, 1)
    doc = compare(base, new)
    assert doc["method"]["threshold"] == 0.01
    assert rows(doc)["f"]["verdict"] == "slower" and rows(doc)["f"]["ci"][0] > 1.01
    loose = side("loose.json", a, 3)
    doc = compare(loose, new)
    assert doc["method"]["threshold"] == 0.03
    assert rows(doc)["f"]["verdict"] == "no_change"
    doc = compare("--threshold", "3", base, new)
    assert doc["method"]["threshold"] == 0.03
    assert rows(doc)["f"]["verdict"] == "no_change"
    # A row that ran the most processes the engine chose short of it, or
    # stopped for futility, sought it too; one that ran a count of
    # processes asked for did not.
    for stop in ("max_processes", "processes_vary"):
        doc = compare(side("most.json", a, 1, stop=stop), loose)
        assert doc["method"]["threshold"] == 0.03
        assert compare(side("most.json", a, 1, stop=stop), new)["method"]["threshold"] == 0.01
    doc = commands_doc(run_file, {"f": a})
    doc["config"].update(precision=1, processes=6)
    doc["benchmarks"][0]["stop"] = "max_processes"
    assert compare(write(tmp_path / "six.json", doc), new)["method"]["threshold"] == 0.02
    # Runs of a fixed count did not seek the precision they carry.
    fixed = side("fixed.json", a, 1, stop="max_samples")
    assert compare(fixed, new)["method"]["threshold"] == 0.02
    # Nor does a side that holds another tool's file as well.
    hf = write(tmp_path / "hf.json", {"results": [{"command": "f", "times": list(a * 1e-9)}]})
    assert compare(base, hf, "--", new)["method"]["threshold"] == 0.02


def test_instructions_and_machines(tmp_path, run_file):
    a = np.linspace(1000, 1100, 20)
    base = commands_doc(run_file, {"f": a})
    new = copy.deepcopy(base)
    base["benchmarks"][0]["counters"] = {"instructions": {"value": 500.0, "scaled": False,
                                                          "unit": "count", "overhead": 0.0}}
    new["benchmarks"][0]["counters"] = {"instructions": {"value": 400.0, "scaled": False,
                                                         "unit": "count", "overhead": 0.0}}
    # Short names, so the line has room for both values whatever this
    # machine's own names are.
    base["env"]["cpu"]["model"], base["env"]["kernel"] = "Some-CPU", "6.1.0"
    new["env"]["cpu"]["model"] = "Another-CPU"
    new["env"]["kernel"] = "9.9.9"
    b, n = write(tmp_path / "b.json", base), write(tmp_path / "n.json", new)
    doc = compare(b, n)
    r = doc["benchmarks"][0]
    assert r["instructions_ratio"] == pytest.approx(0.8)
    assert r["base"]["instructions"] == 500 and r["new"]["instructions"] == 400
    assert set(doc["machines_differ"]) == {"cpu_model", "kernel"}
    assert doc["new"]["machine"]["cpu_model"] == "Another-CPU"
    p = run("compare", b, n, check=0)
    assert "instr" in p.stdout.splitlines()[0] and "0.800x" in p.stdout
    # One line says how the machines differ, with what each side says.
    warn = [line for line in p.stdout.splitlines() if "9.9.9" in line]
    assert len(warn) == 1 and names_in(warn[0], "Another-CPU", base["env"]["cpu"]["model"],
                                       base["env"]["kernel"]), warn
    # Names too long for one line: the same line names the facts, not the
    # values, and keeps to the width.
    short = p.stdout.splitlines()
    at = short.index(warn[0])
    long_model = "A much longer processor name, with a frequency @ 2.60GHz"
    new["env"]["cpu"]["model"] = long_model
    n = write(tmp_path / "n.json", new)
    lines = run("compare", b, n, check=0).stdout.splitlines()
    assert len(lines) == len(short) and lines[:at] == short[:at], lines
    assert lines[at] and not names_in(lines[at], "9.9.9") and not names_in(lines[at], long_model)
    assert len(lines[at]) <= 100, lines[at]


def test_not_comparable_rows_are_listed(tmp_path, run_file):
    a = np.linspace(1000, 1100, 20)
    base = commands_doc(run_file, {"bound": a, "failed": a, "ok": a})
    new = copy.deepcopy(base)
    nb = new["benchmarks"]
    nb[0].update(upper_bound=True, bound_ns=0.31, bound_rule="fastest")
    nb[1].update(stop="failed", error="'x' exited with status 1", samples=[])
    doc = compare(write(tmp_path / "b.json", base), write(tmp_path / "n.json", new))
    # Each with its reason: the side, and the bound or the row's own error.
    why = {s["name"]: s["reason"] for s in doc["not_comparable"]}
    assert set(why) == {"bound", "failed"}
    assert "NEW" in why["bound"] and "BASE" not in why["bound"] and "0.31 ns" in why["bound"], why
    assert "NEW" in why["failed"] and "BASE" not in why["failed"], why
    assert nb[1]["error"] in why["failed"], why
    assert [r["name"] for r in doc["benchmarks"]] == ["ok"]


def test_several_files_a_side_pool(tmp_path, run_file):
    rng = np.random.default_rng(5)
    parts = [rng.normal(1000, 20, 10) for _ in range(4)]
    files = [write(tmp_path / ("%d.json" % i), commands_doc(run_file, {"f": p})) for i, p in enumerate(parts)]
    doc = compare(files[0], files[1], "--", files[2], files[3])
    r = doc["benchmarks"][0]
    a, b = np.concatenate(parts[:2]), np.concatenate(parts[2:])
    assert r["base"]["n"] == 20 and r["new"]["n"] == 20
    assert r["ratio"] == pytest.approx(np.median(b) / np.median(a), rel=1e-12)
    assert r["p"] == pytest.approx(mannwhitneyu(a, b).pvalue, rel=1e-9)
    assert doc["base"]["files"] == files[:2] and doc["new"]["files"] == files[2:]


def test_benchmark_program_results(tmp_path):
    if not SUM_ARRAYS.exists():
        pytest.skip("examples/sum_arrays is not built")
    path = tmp_path / "code.json"
    subprocess.run([str(SUM_ARRAYS), "--max-time", "0.2", "--json", str(path)], check=True,
                   capture_output=True, timeout=120)
    res = json.loads(path.read_text())
    doc = compare(str(path), str(path))
    got = rows(doc)
    assert doc["base"]["formats"] == ["code"]
    for b in res["benchmarks"]:
        if b["upper_bound"]:
            continue
        # The headline's samples, each net of its own process's empty loop,
        # those of processes it left out left out too.
        # (A process whose empty-loop samples were all left out has none of
        # its own: the row's is taken.)
        procs = b["processes"]

        def overhead(p):
            return p["overhead_ns"] if p["overhead_ns"] is not None else b["overhead"]["ns"]

        vals = [s["value"] - overhead(procs[s["process"]]) for s in b["samples"]
                if not set(s["tags"]) & set(b["left_out"]) and not procs[s["process"]]["left_out"]]
        # The units: its processes' own values, whose quantile (the lower
        # quartile by default) is the headline.
        units = [p["value"] for p in procs if not p["left_out"] and not p["upper_bound"]]
        r = got[b["name"]]
        assert r["base"]["n"] == len(vals) == b["headline_samples"]
        assert r["base"]["units"] == len(units)
        if len(units) >= 2:
            assert r["method"] == "processes"
            key = "cycles" if r["unit"] == "cycles" else "median_ns"
            want = [p["cycles"] for p in procs if not p["left_out"]] if key == "cycles" else units
            q = b["headline"]["quantile"]
            assert q == 0.25
            assert r["base"][key] == pytest.approx(np.quantile(want, q, method="median_unbiased"),
                                                   rel=1e-9)
            unit = "cycles" if key == "cycles" else "ns"
            assert r["base"][key] == pytest.approx(b["headline"]["units"][unit]["value"], rel=1e-9)
        assert r["ratio"] == 1 and r["verdict"] == "no_change"


def test_a_headline_the_other_run_promised_is_no_change(tmp_path):
    """Two runs whose ratio's interval over the processes parts from 1, but
    one run printed an interval for its next run that holds the other's
    headline (its processes met a state of the machine that lasts a run):
    no change, within_next_run; the same runs with the other headline
    beyond both printed intervals: slower, and --fail-on-regression fails."""
    if not SUM_ARRAYS.exists():
        pytest.skip("examples/sum_arrays is not built")
    path = tmp_path / "code.json"
    subprocess.run([str(SUM_ARRAYS), "--max-time", "0.2", "--processes", "8", "--json", str(path)],
                   check=True, capture_output=True, timeout=120)
    res = json.loads(path.read_text())

    def with_values(values, lo, hi, est=None):
        """The run with those processes, printing [lo, hi]; est: the
        estimate's own interval in its state (None: a file from before
        units carried it)."""
        doc = copy.deepcopy(res)
        for b in doc["benchmarks"]:
            for p, v in zip(b["processes"], values):
                p.update(value=v, cycles=3 * v, left_out=False, upper_bound=False)
            units = b["headline"]["units"]
            for unit, f in (("ns", 1), ("cycles", 3)):
                if unit not in units:
                    continue
                units[unit]["ci"] = [f * lo, f * hi]
                units[unit].pop("est_ci", None)
                if est:
                    units[unit]["est_ci"] = [None if x is None else f * x for x in est]
        return doc

    # BASE: processes near 100, one at 140; its run printed [90, 150].
    base = write(tmp_path / "base.json", with_values([100, 101, 99, 140, 100.5, 99.5, 100, 100.2], 90, 150))
    # NEW: every process near 130, within BASE's interval; then near 160, beyond it.
    near = write(tmp_path / "near.json",
                 with_values([130, 130.5, 129.5, 130, 130.2, 129.8, 130, 130], 129, 131))
    far = write(tmp_path / "far.json",
                with_values([160, 160.5, 159.5, 160, 160.2, 159.8, 160, 160], 159, 161))
    r = rows(compare(base, near))["two_loops"]
    assert r["method"] == "processes" and r["ci"][0] > 1.02, r
    assert r["verdict"] == "no_change" and r["within_next_run"] is True
    p = run("compare", "--fail-on-regression", base, near, check=0)
    assert "lies within the interval the other run printed" in p.stdout + p.stderr
    r = rows(compare("--fail-on-regression", base, far, check=3))["two_loops"]
    assert r["verdict"] == "slower" and r["within_next_run"] is False
    # A run that met both core states prints an interval reaching the
    # processes it left out for the other one; within one state, compare
    # holds it to its estimate's own interval widened for the next run
    # (99-101 -> about 98.6-101.4), which 130 is beyond.
    reach = write(tmp_path / "reach.json",
                  with_values([100, 101, 99, 140, 100.5, 99.5, 100, 100.2], 90, 150, est=(99, 101)))
    r = rows(compare("--fail-on-regression", reach, near, check=3))["two_loops"]
    assert r["verdict"] == "slower" and r["within_next_run"] is False
    # A row with no estimate of its own (est_ci null) is held to what it
    # printed, as a file from before est_ci.
    nulls = write(tmp_path / "nulls.json",
                  with_values([100, 101, 99, 140, 100.5, 99.5, 100, 100.2], 90, 150,
                              est=(None, None)))
    r = rows(compare(nulls, near))["two_loops"]
    assert r["verdict"] == "no_change" and r["within_next_run"] is True


def quartile_run(values, lo, hi):
    """A benchmark program's results as far as compare reads them: one row
    whose processes read values (ns), its headline their lower quartile,
    with the interval it printed for the next run."""
    return {"schema": "vernier.results/1", "kind": "code", "benchmarks": [{
        "name": "x", "overhead": {"ns": 0},
        "samples": [{"value": v, "process": i} for i, v in enumerate(values)],
        "processes": [{"value": v} for v in values],
        "headline": {"unit": "ns", "quantile": 0.25, "units": {"ns": {"ci": [lo, hi]}}}}]}


def test_a_state_that_slowed_some_processes_is_no_change(tmp_path):
    """One run's 20 processes all fast; the next's 3 fast and 17 met a
    slower state: the quartiles part beyond both intervals, the fast ends
    (their lowest tenth, Hyndman and Fan's definition 8 as numpy's
    median_unbiased) do not: no change, fast_end_still, a note, and the
    gate passes. Every process 10% slower: slower, and the gate fails."""
    tight = [100 + 0.1 * i for i in range(20)]
    few = [125 + 0.8 * i if i % 7 else 100 + 0.1 * (i // 7) for i in range(20)]
    base = write(tmp_path / "base.json", quartile_run(tight, 100.2, 100.9))
    mixed = write(tmp_path / "mixed.json", quartile_run(few, 120, 132))
    slower = write(tmp_path / "slower.json", quartile_run([1.1 * v for v in tight], 110.2, 111))
    r = rows(compare(base, mixed))["x"]
    assert r["method"] == "processes" and r["ci"][0] > 1.02, r
    fast = r["fast_end"]
    assert fast["quantile"] == 0.1
    want = np.quantile(few, 0.1, method="median_unbiased") / np.quantile(tight, 0.1,
                                                                         method="median_unbiased")
    assert fast["ratio"] == pytest.approx(want, rel=1e-12)
    assert fast["ci"][0] < 1.02 < fast["ci"][1]
    assert r["verdict"] == "no_change" and r["fast_end_still"] is True
    assert r["within_next_run"] is False
    p = run("compare", "--fail-on-regression", base, mixed, check=0)
    assert "the fastest tenth of the processes did not move" in p.stdout
    # The HTML page says why its verdict is no change, as the console does.
    page = tmp_path / "page.html"
    run("report", base, "--", mixed, "-o", str(page), check=0)
    assert "no change (the fastest tenth of the processes did not move)" in page.read_text()
    r = rows(compare("--fail-on-regression", base, slower, check=3))["x"]
    assert r["verdict"] == "slower" and r["fast_end_still"] is False
    assert r["fast_end"]["ratio"] == pytest.approx(1.1, rel=1e-9)


def short_run(values, half):
    """quartile_run's row stopped at the most processes short of the
    +-1% asked, its headline's own interval (est_ci) +-half about it."""
    doc = quartile_run(values, 0, 0)
    doc["config"] = {"precision": 1, "processes": "auto"}
    b = doc["benchmarks"][0]
    b["stop"] = "max_processes"
    q = float(np.quantile(values, 0.25, method="median_unbiased"))
    b["headline"]["units"]["ns"] = {"value": q, "est_ci": [q / (1 + half), q * (1 + half)],
                                    "ci": [q / (1 + 2 * half), q * (1 + 2 * half)]}
    return doc


def test_a_change_within_the_precision_a_run_reached_is_no_change(tmp_path):
    """Two runs whose row stopped short of the +-1% asked, at +-2.5%: a
    4.5% change whose interval lies past 1% but not past 2.5% is no
    change (within_reach, a note, the gate passes), the row's threshold
    the half-width reached; a 12% change is slower."""
    rng = np.random.default_rng(17)
    base = list(100 * np.exp(rng.normal(0, 0.015, 20)))
    new = list(1.045 * 100 * np.exp(rng.normal(0, 0.015, 20)))
    a = write(tmp_path / "a.json", short_run(base, 0.025))
    b = write(tmp_path / "b.json", short_run(new, 0.025))
    r = rows(compare("--fail-on-regression", a, b))["x"]
    assert r["threshold"] == pytest.approx(0.025, rel=1e-9)
    assert 1.01 < r["ci"][0] < 1 + r["threshold"] and r["fast_end"]["ci"][0] > 1.01, r
    assert r["within_reach"] is True and r["verdict"] == "no_change"
    assert r["within_next_run"] is False and r["fast_end_still"] is False
    # The console's note of it (docs/compare.md) prints under ASan too.
    assert run("compare", a, b).returncode == 0
    far = write(tmp_path / "far.json", short_run([1.12 * v for v in base], 0.025))
    r = rows(compare("--fail-on-regression", a, far, check=3))["x"]
    assert r["verdict"] == "slower" and r["within_reach"] is False
    # Runs of a count asked for sought no precision (2%), and two files a
    # side pool their processes: neither keeps a run's reach.
    fixed = []
    for name, values in (("fa", base), ("fb", new)):
        doc = short_run(values, 0.025)
        doc["config"]["processes"] = "20"
        fixed.append(write(tmp_path / f"{name}.json", doc))
    r = rows(compare(*fixed, check=0))["x"]
    assert r["threshold"] == pytest.approx(0.02) and r["within_reach"] is False, r
    r = rows(compare(a, a, "--", b, b, check=0))["x"]
    assert r["threshold"] == pytest.approx(0.01) and r["within_reach"] is False, r


def probed_run(values, probes, core, lo, hi, left_out=()):
    """quartile_run's row with each process's taken-branch probe, those at
    the indices left_out marked shared and left out, and the headline's
    core state."""
    doc = quartile_run(values, lo, hi)
    b = doc["benchmarks"][0]
    for i, (p, x) in enumerate(zip(b["processes"], probes)):
        p.update(probe=x, shared=i in left_out, left_out=i in left_out)
    b["headline"]["core"] = core
    return doc


def cycled(doc, per_ns, by="value"):
    """doc with its headline in reference cycles and each process's cycles
    its ns times per_ns of its value (or of its probe, by="probe")."""
    b = doc["benchmarks"][0]
    b["headline"]["unit"] = "cycles"
    for p in b["processes"]:
        p["cycles"] = p["value"] * per_ns(p[by])
    return doc


def test_a_run_that_told_its_cores_apart_is_compared(tmp_path):
    """A run whose processes the taken-branch probe told apart rests its
    headline on those with a core of their own, whatever the probes of the
    ones it kept read: compared with a run on its own core throughout, a
    10% slowdown is found. Two runs that told none apart and whose probes
    lie over a tenth apart, one whose headline says its core was shared
    through the run, or one that kept all its processes, most of them on
    a shared core, are not compared: the machines differed, and a gate
    with nothing compared fails (exit 4)."""
    own = [100 + 0.1 * i for i in range(8)]
    slow = [1.1 * v for v in own]
    base = write(tmp_path / "base.json", probed_run(own, [1.01] * 8, None, 100.2, 100.9))
    # Kept probes from 1.02 to 1.25, their median over a tenth above the
    # base's; three more, left out, on a shared core.
    told = write(tmp_path / "told.json",
                 probed_run(slow, [1.02, 1.05, 1.7, 1.12, 1.7, 1.2, 1.25, 1.7], "own",
                            110.2, 111, left_out=(2, 4, 7)))
    doc = compare("--fail-on-regression", base, told, check=3)
    assert rows(doc)["x"]["verdict"] == "slower" and doc["core_state_differs"] == 0
    assert rows(doc)["x"]["ratio"] == pytest.approx(
        np.quantile([slow[i] for i in (0, 1, 3, 5, 6)], 0.25, method="median_unbiased")
        / np.quantile(own, 0.25, method="median_unbiased"), rel=1e-12)
    untold = write(tmp_path / "untold.json", probed_run(slow, [1.2] * 8, None, 110.2, 111))
    shared = write(tmp_path / "shared.json", probed_run(slow, [1.6] * 8, "shared", 110.2, 111))
    # A run that rested on all its processes, one alone among them on a
    # core of its own, says "own", but its headline's processes read a
    # shared core's probe; they read the body unlike (the one 1.1 times
    # faster), so nothing shows the state does not move it.
    lone = [v / 1.1 if i == 0 else v for i, v in enumerate(slow)]
    alone = write(tmp_path / "alone.json",
                  probed_run(lone, [1.01] + [1.6] * 7, "own", 110.2, 111))
    for new in (untold, shared, alone):
        doc = compare("--fail-on-regression", base, new, check=4)
        assert "x" not in rows(doc) and doc["core_state_differs"] == 1
        why = doc["not_comparable"][0]
        assert why["name"] == "x" and "in NEW" in why["reason"] and "run both again" in why["reason"]
        assert "(branch probe 1." in why["reason"]
    # A headline that says its core was shared, with no probes to quote:
    # the reason says so without numbers.
    bare = quartile_run(slow, 110.2, 111)
    bare["benchmarks"][0]["headline"]["core"] = "shared"
    doc = compare(base, write(tmp_path / "bare.json", bare), check=4)
    reason = doc["not_comparable"][0]["reason"]
    assert reason.startswith("the core was shared with another hardware thread in NEW: ")
    assert "nan" not in reason


def test_a_verdict_the_core_state_cannot_make_stands(tmp_path):
    """Runs in different core states, neither with processes in the other's
    to compare through: a busy sibling on the core only adds time (in ns),
    so the side on a shared core reading faster was faster. A run on its
    own core 10% slower than one on a shared core is slower (the gate
    fails), and the same pair the other way about is faster, compared in ns
    though the headlines were in cycles, which the sibling's slowed
    reference lowers on the shared side. A run on its own core reading
    faster than, or as fast as, the shared one may be the state's doing:
    declined."""
    q = lambda v: np.quantile(v, 0.25, method="median_unbiased")
    per_ns = lambda probe: 3.0 / (1.3 if probe > 1.3 else 1.0)
    vals = [110 + 0.1 * i for i in range(8)]
    shared = write(tmp_path / "shared.json",
                   cycled(probed_run(vals, [1.6] * 8, "shared", 110.2, 111), per_ns, "probe"))
    slow = [1.1 * v for v in vals]
    own_slow = write(tmp_path / "own_slow.json",
                     cycled(probed_run(slow, [1.01] * 8, "own", 121.2, 122), per_ns, "probe"))
    doc = compare("--fail-on-regression", shared, own_slow, check=3)
    r = rows(doc)["x"]
    assert r["verdict"] == "slower" and r["state_bound"] == "BASE" and r["unit_by"] == "state"
    assert r["unit"] == "ns" and r["ratio"] == pytest.approx(q(slow) / q(vals), rel=1e-12)
    assert doc["core_state_bound"] == 1 and doc["core_state_differs"] == 0
    r = rows(compare("--fail-on-regression", own_slow, shared))["x"]
    assert r["verdict"] == "faster" and r["state_bound"] == "NEW"
    assert r["ratio"] == pytest.approx(q(vals) / q(slow), rel=1e-12)
    for v in ([v / 1.1 for v in vals], vals):
        own = write(tmp_path / "own.json",
                    cycled(probed_run(v, [1.01] * 8, "own", v[1], v[2]), per_ns, "probe"))
        doc = compare("--fail-on-regression", shared, own, check=4)
        assert "x" not in rows(doc) and doc["core_state_differs"] == 1
        assert doc["core_state_bound"] == 0


def test_runs_in_two_core_states_compare_in_the_one_they_share(tmp_path):
    """A run on a shared core throughout against one that told its
    processes apart: compared through the processes the latter left out
    because they shared their core too, both sides then in one state. Its
    kept processes (a core of their own) read 100 ns, its shared ones 150:
    the shared run's 10% slowdown (165) is found against those 150, not
    called 1.65x against the 100. With one process left out there is no
    interval to compare through: declined, as before. A run that told none
    apart, whose processes read the probe as the shared run's, met that
    state too; so did two runs that both said their core was shared."""
    own = [100 + 0.1 * i for i in range(8)]
    old_own = write(tmp_path / "old_own.json", probed_run(own, [1.01] * 8, "own", 100.2, 100.9))
    shared_vals = [150 + 0.2 * i for i in range(5)]
    values = own[:4] + shared_vals + own[4:]
    probes = [1.01] * 4 + [1.7] * 5 + [1.01] * 4
    base = write(tmp_path / "base.json",
                 probed_run(values, probes, "own", 100.2, 100.9, left_out=range(4, 9)))
    slow = [1.1 * v for v in shared_vals]
    new = write(tmp_path / "new.json", probed_run(slow, [1.72] * 5, "shared", 164, 167))
    doc = compare("--fail-on-regression", base, new, check=3)
    r = rows(doc)["x"]
    assert doc["core_state_differs"] == 0 and doc["core_state_matched"] == 1
    assert r["state_matched"] == "BASE" and r["base"]["units"] == 5 and r["verdict"] == "slower"
    q = lambda v: np.quantile(v, 0.25, method="median_unbiased")
    assert r["ratio"] == pytest.approx(q(slow) / q(shared_vals), rel=1e-12)
    p = run("compare", base, new, check=0)
    assert "1 compared through the processes one side left out for the core state" in p.stdout
    # The other way about: NEW told its processes apart, BASE was shared.
    r = rows(compare(new, base))["x"]
    assert r["state_matched"] == "NEW" and r["ratio"] == pytest.approx(q(shared_vals) / q(slow))
    one = write(tmp_path / "one.json",
                probed_run(own[:4] + [150] + own[4:], [1.01] * 4 + [1.7] + [1.01] * 4, "own",
                           100.2, 100.9, left_out=(4,)))
    doc = compare(one, new, check=4)
    assert "x" not in rows(doc) and doc["core_state_differs"] == 1
    assert doc["core_state_matched"] == 0
    untold = write(tmp_path / "untold.json",
                   probed_run(shared_vals, [1.65] * 5, None, 149, 151))
    for a, b in ((untold, new), (new, new)):
        doc = compare("--fail-on-regression", a, b, check=3 if a == untold else 0)
        r = rows(doc)["x"]
        assert doc["core_state_differs"] == 0 and r["state_matched"] is None, doc
    # An untold run whose probes read a tenth or more below the shared
    # run's was on a core of its own: declined.
    low = write(tmp_path / "low.json", probed_run(shared_vals, [1.4] * 5, None, 149, 151))
    assert compare(low, new, check=4)["core_state_differs"] == 1
    # Declined too: a shared side of one process (no interval to compare
    # through), and left-out processes whose probes (1.2) read nearer those
    # their run kept (1.01) than the shared side's (1.72).
    lone = write(tmp_path / "lone.json", probed_run(slow[:1], [1.72], "shared", 164, 167))
    mild = write(tmp_path / "mild.json",
                 probed_run(values, [1.01] * 4 + [1.2] * 5 + [1.01] * 4, "own", 100.2, 100.9,
                            left_out=range(4, 9)))
    for args in ((base, lone), (mild, new)):
        doc = compare(*args, check=4)
        assert doc["core_state_differs"] == 1 and doc["core_state_matched"] == 0, args
    # A side that pools a run on a shared core throughout with one that told
    # its processes apart is not shared throughout: compared through the
    # latter's left-out processes.
    r = rows(compare(base, new, "--", new))["x"]
    assert r["state_matched"] == "BASE" and r["ratio"] == pytest.approx(q(slow) / q(shared_vals))
    # In reference cycles, as a run whose clock moved reports them: the
    # left-out processes' cycles are compared, not their ns.
    # The base's shared processes ran at a slower clock: 2 cycles a ns
    # against the new run's 3, so in ns the new run reads 10% slower but
    # in cycles 65% slower.
    cb = write(tmp_path / "cb.json", cycled(probed_run(values, probes, "own", 100.2, 100.9,
                                                       left_out=range(4, 9)),
                                            lambda v: 2 if v > 140 else 3))
    cn = write(tmp_path / "cn.json", cycled(probed_run(slow, [1.72] * 5, "shared", 164, 167),
                                            lambda v: 3))
    r = rows(compare(cb, cn, check=0))["x"]
    assert r["unit"] == "cycles" and r["state_matched"] == "BASE"
    assert r["ratio"] == pytest.approx(1.65, rel=1e-9)
    # A run that rested its headline on the shared processes, too few of the
    # others having had a core of their own, left those few out: a run on a
    # core of its own throughout compares with them. Where either side's
    # left-out processes would do, those that leave more on the smaller side.
    left = [110 + 0.1 * i for i in range(3)]
    mostly = probed_run(left + slow + [1.1 * v for v in shared_vals[:1]], [1.01] * 3 + [1.72] * 6,
                        "shared", 164, 167, left_out=range(3))
    for p in mostly["benchmarks"][0]["processes"]:
        p["shared"] = p["probe"] > 1.5
    mostly = write(tmp_path / "mostly.json", mostly)
    r = rows(compare("--fail-on-regression", old_own, mostly, check=3))["x"]
    assert r["state_matched"] == "NEW" and r["new"]["units"] == 3
    assert r["ratio"] == pytest.approx(q(left) / q(own), rel=1e-12)
    r = rows(compare(base, mostly))["x"]
    kept = slow + [1.1 * v for v in shared_vals[:1]]
    assert r["state_matched"] == "BASE" and r["base"]["units"] == 5
    assert r["ratio"] == pytest.approx(q(kept) / q(shared_vals), rel=1e-12)
    # Pooled, the two runs' left-out processes are of both states: none
    # stands for the shared one, and the pair is declined.
    doc = compare(base, mostly, "--", new, check=4)
    assert "x" not in rows(doc) and doc["core_state_differs"] == 1


def test_a_run_alike_in_both_core_states_compares_with_either(tmp_path):
    """A run whose processes met both core states and read the body alike
    in them rests its headline on all of them ("both"): the state does not
    move this body, so it compares with a run on a shared core throughout
    (which a run resting on a core of its own would not, with nothing left
    out to compare through), and a planted 10% is found, pooled with a run
    on a core of its own too."""
    vals = [100 + 0.1 * i for i in range(8)]
    probes = [1.01] * 5 + [1.7] * 3
    both = write(tmp_path / "both.json", probed_run(vals, probes, "both", 100.2, 100.9))
    own = write(tmp_path / "own.json", probed_run(vals, [1.01] * 8, "own", 100.2, 100.9))
    slow = [1.1 * v for v in vals]
    shared = write(tmp_path / "shared.json", probed_run(slow, [1.72] * 8, "shared", 110, 111))
    doc = compare("--fail-on-regression", both, shared, check=3)
    r = rows(doc)["x"]
    assert doc["core_state_differs"] == 0 and r["state_matched"] is None
    assert r["verdict"] == "slower" and r["base"]["units"] == 8
    assert r["ratio"] == pytest.approx(1.1, rel=1e-9) and r["unit_by"] == "headline"
    assert rows(compare(shared, both))["x"]["verdict"] == "faster"
    doc = compare(own, shared, check=4)
    assert "x" not in rows(doc) and doc["core_state_differs"] == 1
    # Pooled with a run on its own core, the side still met both states
    # and read them alike.
    assert rows(compare(both, own, "--", shared, check=0))["x"]["verdict"] == "slower"


def test_a_run_untold_yet_alike_in_both_core_states_compares_with_either(tmp_path):
    """A run whose probes fill the range between the two core states (a
    sibling's load that came and went) tells no processes apart, yet some
    of them read the probe of a core of their own and two or more that of
    a shared one: when those two groups read the body alike, the
    state does not move it, and the run compares with one on a shared core
    throughout, as a run that said "both" does. So too with one alone on
    a core of its own, on which such a run rests all its processes; and
    where they read alike in ns alone, the pair compares in ns. Where
    the groups read the body differently, or the middle readings leave one
    shared process, the pair is declined as before."""
    vals = [100 + 0.1 * i for i in range(8)]
    slow = [1.1 * v for v in vals]
    shared = write(tmp_path / "shared.json", probed_run(slow, [1.72] * 8, "shared", 110, 111))
    spread = [1.01, 1.02, 1.08, 1.15, 1.22, 1.35, 1.6, 1.8]
    untold = write(tmp_path / "untold.json", probed_run(vals, spread, None, 100.2, 100.9))
    one = write(tmp_path / "one.json", probed_run(vals, [1.01] + [1.7] * 7, "own", 100.2, 100.9))
    for base in (untold, one):
        doc = compare("--fail-on-regression", base, shared, check=3)
        r = rows(doc)["x"]
        assert doc["core_state_differs"] == 0 and r["verdict"] == "slower", base
        assert r["ratio"] == pytest.approx(1.1, rel=1e-9)
        assert rows(compare(shared, base))["x"]["verdict"] == "faster"
    # A reference the sibling slowed: the shared processes read the body
    # alike in ns and 6% fewer cycles. The side read alike in ns alone, so
    # the pair compares in ns, where the same code reads no change against
    # a run on a shared core throughout, whose cycles read low too.
    clock = lambda p: 3.0 if p < 1.3 else 2.82
    ref = write(tmp_path / "ref.json",
                cycled(probed_run(vals, spread, None, 100.2, 100.9), clock, "probe"))
    same = write(tmp_path / "same.json",
                 cycled(probed_run(vals, [1.72] * 8, "shared", 100.2, 100.9), clock, "probe"))
    r = rows(compare("--fail-on-regression", ref, same, check=0))["x"]
    assert r["unit"] == "ns" and r["verdict"] == "no_change" and r["unit_by"] == "alike"
    assert r["ratio"] == pytest.approx(1, rel=1e-9)
    # Read differently: the shared processes 1.5 times the others.
    unlike = [v * (1.5 if p >= 1.3 else 1) for v, p in zip(vals, spread)]
    middle = [1.01, 1.02, 1.12, 1.15, 1.2, 1.22, 1.25, 1.6]
    for name, v, probes in (("unlike", unlike, spread), ("middle", vals, middle)):
        f = write(tmp_path / f"{name}.json", probed_run(v, probes, None, 100.2, 100.9))
        doc = compare(f, shared, check=4)
        assert "x" not in rows(doc) and doc["core_state_differs"] == 1, name


def test_the_unit_the_processes_hold_steady_compares(tmp_path):
    """A sibling thread slows the reference's chain of adds by a different
    amount from one process to the next. A body the reference's slowdown
    does not move (a chain of divisions) holds its ns and scatters in
    cycles: two runs on a shared core throughout, the second's reference
    5% slow in every process, compare in ns (no change; a planted 10%
    slower). A body that follows the reference (a chain of adds) holds its
    cycles and compares in them, whatever each headline's unit."""
    refs = [0.28, 0.28, 0.29, 0.30, 0.31, 0.28, 0.32, 0.295]
    slow_refs = [1.05 * r for r in refs[::-1]]

    def side(name, ns, ref, unit="cycles"):
        doc = probed_run(ns, [1.7] * len(ns), "shared", min(ns) * 0.99, max(ns) * 1.01)
        b = doc["benchmarks"][0]
        b["headline"]["unit"] = unit
        for p, r in zip(b["processes"], ref):
            p["cycles"] = p["value"] / r
        return write(tmp_path / f"{name}.json", doc)

    divs = [417 + 0.05 * i for i in range(8)]
    a = side("a", divs, refs)
    b = side("b", divs, slow_refs, unit="ns")
    r = rows(compare("--fail-on-regression", a, b, check=0))["x"]
    assert r["unit"] == "ns" and r["verdict"] == "no_change", r
    assert r["unit_by"] == "steadier"
    assert r["ratio"] == pytest.approx(1, abs=1e-3)
    # The console's note of it (docs/compare.md) prints under ASan too.
    assert run("compare", a, b, check=0).returncode == 0
    r = rows(compare("--fail-on-regression", a, side("c", [1.1 * v for v in divs], slow_refs),
                     check=3))["x"]
    assert r["unit"] == "ns" and r["verdict"] == "slower"
    assert r["ratio"] == pytest.approx(1.1, rel=1e-3)
    adds = [1000 + 0.1 * i for i in range(8)]
    a = side("adds_a", [c * x for c, x in zip(adds, refs)], refs, unit="ns")
    b = side("adds_b", [c * x for c, x in zip(adds, slow_refs)], slow_refs, unit="ns")
    r = rows(compare("--fail-on-regression", a, b, check=0))["x"]
    assert r["unit"] == "cycles" and r["verdict"] == "no_change", r
    assert r["unit_by"] == "steadier"
    assert r["ratio"] == pytest.approx(1, abs=1e-3)


def test_a_body_off_the_cpu_compares_in_ns(tmp_path):
    """A sleep's processes whose references happened to follow its ns read
    steadier in cycles; the next run's references read 5% faster, so its
    cycles 5% more, its ns the same. Off the CPU (on_cpu under a half) the
    clock does not scale the wait: compared in ns, no change; on the CPU,
    in the cycles its processes hold (slower)."""
    ns = [1.07e6 * (1 + 0.003 * ((i * 5) % 8 - 4)) for i in range(8)]

    def side(name, per, on_cpu):
        doc = probed_run(ns, [1.0] * len(ns), None, min(ns) * 0.99, max(ns) * 1.01)
        b = doc["benchmarks"][0]
        b["on_cpu"] = on_cpu
        for p in b["processes"]:
            p["cycles"] = 3.0e6 * per
        return write(tmp_path / f"{name}.json", doc)

    r = rows(compare("--fail-on-regression", side("a", 1, 0.02), side("b", 1.05, 0.02)))["x"]
    assert r["unit"] == "ns" and r["verdict"] == "no_change", r
    assert r["ratio"] == pytest.approx(1, abs=1e-3)
    r = rows(compare("--fail-on-regression", side("c", 1, 0.99), side("d", 1.05, 0.99),
                     check=3))["x"]
    assert r["unit"] == "cycles" and r["unit_by"] == "steadier" and r["verdict"] == "slower", r


def test_vernier_run_and_suite_results(tmp_path):
    runs = tmp_path / "run.json"
    run("run", "--runs", "5", "--json", str(runs), "true", "sleep 0.001", check=0, timeout=120)
    doc = compare(str(runs), str(runs))
    assert doc["base"]["formats"] == ["commands"]
    res = json.loads(runs.read_text())
    for b in res["benchmarks"]:
        r = rows(doc)[b["name"]]
        assert r["base"]["median_ns"] == pytest.approx(np.median([s["value"] for s in b["samples"]]))
    suite = tmp_path / "suite.json"
    run("suite", "--quick", "syscall", "--json", str(suite), check=0, timeout=200)
    doc = compare(str(suite), str(suite))
    res = json.loads(suite.read_text())
    names = {b["name"] for b in res["benchmarks"]}
    listed = set(rows(doc)) | {s["name"] for s in doc["not_comparable"]}
    assert listed == names and doc["only_base"] == [] and doc["only_new"] == []
    assert all(r["ratio"] == 1 for r in doc["benchmarks"])


def test_google_benchmark_json(tmp_path):
    if not GBENCH.exists():
        pytest.skip("no Google Benchmark program: libbenchmark-dev is not installed "
                    "(scripts/install-deps --bench)")
    def gb(name, *extra):
        path = tmp_path / name
        subprocess.run([str(GBENCH), "--benchmark_filter=^(x_plus_x|chain_100)$",
                        "--benchmark_min_time=0.01", "--benchmark_out=%s" % path,
                        "--benchmark_out_format=json", *extra],
                       check=True, capture_output=True, timeout=120)
        return path
    a = gb("a.json", "--benchmark_repetitions=4")
    b = gb("b.json", "--benchmark_repetitions=4")
    doc = compare(str(a), str(b))
    assert doc["base"]["formats"] == ["gbench"]
    got = rows(doc)
    assert set(got) == {"x_plus_x", "chain_100"}  # the aggregates are not benchmarks
    src = json.loads(a.read_text())
    for name, r in got.items():
        reps = [e["real_time"] for e in src["benchmarks"]
                if e["name"] == name and e["run_type"] == "iteration"]
        assert r["base"]["n"] == len(reps) == 4
        assert r["base"]["median_ns"] == pytest.approx(np.median(reps), rel=1e-9)
        assert r["ci"] is not None
    # Without repetitions one value a side: a ratio, no interval, no verdict.
    one = gb("one.json")
    doc = compare(str(one), str(one))
    assert {r["verdict"] for r in doc["benchmarks"]} == {"no_interval"}
    assert all(r["ci"] is None for r in doc["benchmarks"])
    # The console shows each row with its ratio and no interval.
    p = run("compare", str(one), str(one), check=0)
    for r in doc["benchmarks"]:
        (line,) = [line for line in p.stdout.splitlines() if line.split()[:1] == [r["name"]]]
        assert "1.000x" in line and not re.search(r"\dx-\d", line), line
    assert doc["base"]["machine"]["cpus"] == str(json.loads(one.read_text())["context"]["num_cpus"])


def test_hyperfine_json(tmp_path):
    if not shutil.which("hyperfine"):
        pytest.skip("hyperfine is not installed (scripts/install-deps --test)")
    def hf(name):
        path = tmp_path / name
        subprocess.run(["hyperfine", "-N", "--runs", "6", "--export-json", str(path), "true",
                        "sleep 0.002"], check=True, capture_output=True, timeout=120)
        return path
    a, b = hf("a.json"), hf("b.json")
    doc = compare(str(a), str(b))
    assert doc["base"]["formats"] == ["hyperfine"]
    src = {r["command"]: r["times"] for r in json.loads(a.read_text())["results"]}
    dst = {r["command"]: r["times"] for r in json.loads(b.read_text())["results"]}
    for name, r in rows(doc).items():
        assert r["base"]["n"] == 6
        assert r["base"]["median_ns"] == pytest.approx(np.median(src[name]) * 1e9, rel=1e-9)
        assert r["p"] == pytest.approx(mannwhitneyu(src[name], dst[name]).pvalue, rel=1e-9)


def test_bad_files_name_the_file_and_the_place(tmp_path, run_file):
    good = write(tmp_path / "good.json", run_file)
    text = json.dumps(run_file, indent=1)
    cut = tmp_path / "cut.json"
    # Cut anywhere: inside a number, a string, a word or between them.
    for at in sorted({1, len(text) // 3, len(text) // 2, len(text) - 2} | set(range(200, 260))):
        cut.write_text(text[:at])
        # The place a cut file ends at: its last line, where cJSON stopped.
        p = run("compare", good, str(cut), check=1)
        line = text[:at].count("\n") + 1
        err = error_line(p, 1, "compare", f"'{cut}'")
        m = re.search(r"'(.*)', line (\d+), column (\d+):", err)
        assert m and m.group(1) == str(cut) and int(m.group(2)) in (line - 1, line), (at, err)
        assert p.stdout == "", (at, text[:at][-20:], p.stdout)
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "results": [1,, 2]\n}\n')
    p = run("compare", str(bad), good, check=1)
    err = error_line(p, 1, "compare", f"'{bad}'")
    assert re.search(r"'(.*)', line (\d+), column (\d+):", err).groups() == (str(bad), "2", "17"), err
    # A document of another schema is named by its schema; anything else
    # hears which formats are read.
    for doc, names in [({"schema": "vernier.env/1"}, ["vernier.env/1", "vernier.results/1"]),
                       ({"schema": "vernier.results/2"}, ["vernier.results/2"]),
                       ({"rows": []}, ["vernier.results/1"]),
                       ([1, 2], ["vernier.results/1"])]:
        p = run("compare", good, write(tmp_path / "other.json", doc), check=1)
        error_line(p, 1, "compare", "'%s'" % (tmp_path / "other.json"), *names)
    absent = tmp_path / "absent.json"
    p = run("compare", good, str(absent), check=1)
    error_line(p, 1, "compare", f"'{absent}'", os.strerror(errno.ENOENT))


def test_usage_errors(tmp_path, run_file):
    good = write(tmp_path / "good.json", run_file)
    # Each names the option or argument that is wrong, and where the usage is.
    for args, names in [([good], []), ([good, good, good], []), ([good, "--"], ["'--'"]),
                        (["--", good], ["'--'"]),
                        (["--threshold", "x", good, good], ["--threshold", "'x'"]),
                        (["--threshold", "100", good, good], ["--threshold", "'100'"]),
                        (["--bogus", good, good], ["'--bogus'"]),
                        (["--json", "-", "--markdown", "-", good, good], ["--json", "--markdown"]),
                        (["-", "-"], ["'-'"])]:
        p = run("compare", *args, check=2)
        error_line(p, 2, "compare", *names, "--help")
    # The layout cli/cli.h fixes and scripts/helpdoc reads: "usage: " and
    # the command's words first.
    p = run("compare", "--help", check=0)
    first = p.stdout.splitlines()[0]
    assert first.startswith("usage: ") and first.split()[1:3] == ["vernier", "compare"], first
    # Standard input is a file like any other.
    p = run("compare", "--json", "-", "-", good, input=(tmp_path / "good.json").read_text(), check=0)
    assert json.loads(p.stdout)["benchmarks"][0]["ratio"] == 1
