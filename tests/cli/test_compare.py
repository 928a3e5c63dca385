"""vernier compare end to end: files of every format it reads, made by the
real programs (a benchmark program, vernier run, vernier suite, a Google
Benchmark program, hyperfine), the p-values against scipy, the intervals
against a bootstrap in numpy, verdicts and exit codes, and the errors."""
import copy
import json
import math
import re
import shutil
import subprocess

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from conftest import BUILD, run, validate

SUM_ARRAYS = BUILD / "examples" / "sum_arrays"
GBENCH = BUILD / "bench" / "bench_gbench_ablation"


def write(path, doc):
    path.write_text(json.dumps(doc))
    return str(path)


def compare(*args, check=0):
    """The comparison as JSON (validated against the schema), and the console."""
    p = run("compare", "--json", "-", *args, check=check)
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
    lines = p.stdout.splitlines()
    assert lines[0].split()[:3] == ["benchmark", "BASE", "NEW"]
    assert all(len(line) <= 100 for line in lines), lines
    assert any(line.startswith("f ") and "2.000x" in line and "slower" in line for line in lines)
    assert any(line.startswith("geometric mean") and "of 2: 0 faster, 1 slower" in line for line in lines)
    assert "only in BASE (1): old" in lines and "only in NEW (1): added" in lines
    text = md.read_text()
    assert "| benchmark | BASE | NEW | ratio | 95% CI | p | verdict |" in text
    assert "| f | " in text and "**slower**" in text
    assert not list(tmp_path.glob("out.md.tmp.*"))
    # '-' puts the table alone on standard output.
    p = run("compare", "--markdown", "-", base, new, check=0)
    assert p.stdout == text


def test_instructions_and_machines(tmp_path, run_file):
    a = np.linspace(1000, 1100, 20)
    base = commands_doc(run_file, {"f": a})
    new = copy.deepcopy(base)
    base["benchmarks"][0]["counters"] = {"instructions": {"value": 500.0, "scaled": False,
                                                          "unit": "count", "overhead": 0.0}}
    new["benchmarks"][0]["counters"] = {"instructions": {"value": 400.0, "scaled": False,
                                                         "unit": "count", "overhead": 0.0}}
    new["env"]["cpu"]["model"] = "Another CPU"
    new["env"]["kernel"] = "9.9.9"
    b, n = write(tmp_path / "b.json", base), write(tmp_path / "n.json", new)
    doc = compare(b, n)
    r = doc["benchmarks"][0]
    assert r["instructions_ratio"] == pytest.approx(0.8)
    assert r["base"]["instructions"] == 500 and r["new"]["instructions"] == 400
    assert set(doc["machines_differ"]) == {"cpu_model", "kernel"}
    assert doc["new"]["machine"]["cpu_model"] == "Another CPU"
    p = run("compare", b, n, check=0)
    assert "instr" in p.stdout.splitlines()[0] and "0.800x" in p.stdout
    warn = [line for line in p.stdout.splitlines() if line.startswith("warning: the machines differ")]
    assert len(warn) == 1 and "CPU model" in warn[0] and "kernel" in warn[0]


def test_not_comparable_rows_are_listed(tmp_path, run_file):
    a = np.linspace(1000, 1100, 20)
    base = commands_doc(run_file, {"bound": a, "failed": a, "ok": a})
    new = copy.deepcopy(base)
    nb = new["benchmarks"]
    nb[0].update(upper_bound=True, bound_ns=0.31, bound_rule="fastest")
    nb[1].update(stop="failed", error="'x' exited with status 1", samples=[])
    doc = compare(write(tmp_path / "b.json", base), write(tmp_path / "n.json", new))
    why = {s["name"]: s["reason"] for s in doc["not_comparable"]}
    assert why == {"bound": "in NEW: an upper bound (< 0.31 ns)",
                   "failed": "in NEW: failed: 'x' exited with status 1"}
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
        procs = b["processes"]
        vals = [s["value"] - procs[s["process"]]["overhead_ns"] for s in b["samples"]
                if not set(s["tags"]) & set(b["left_out"]) and not procs[s["process"]]["left_out"]]
        # The units: its processes' own values, as the headline averages them.
        units = [p["value"] for p in procs if not p["left_out"] and not p["upper_bound"]]
        r = got[b["name"]]
        assert r["base"]["n"] == len(vals) == b["headline_samples"]
        assert r["base"]["units"] == len(units)
        if len(units) >= 2:
            assert r["method"] == "processes"
            key = "cycles" if r["unit"] == "cycles" else "median_ns"
            want = [p["cycles"] for p in procs if not p["left_out"]] if key == "cycles" else units
            assert r["base"][key] == pytest.approx(np.mean(want), rel=1e-9)
        assert r["ratio"] == 1 and r["verdict"] == "no_change"


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
    p = run("compare", str(one), str(one), check=0)
    assert "no interval" in p.stdout and "one value on a side" in p.stdout
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
        p = run("compare", good, str(cut), check=1)
        line = text[:at].count("\n") + 1
        m = re.match(r"vernier compare: '(.*)', line (\d+), column (\d+): (.*)\n$", p.stderr)
        assert m and m.group(1) == str(cut) and int(m.group(2)) in (line - 1, line), (at, p.stderr)
        assert "cut short" in m.group(4) and p.stdout == "", (at, text[:at][-20:], p.stderr)
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "results": [1,, 2]\n}\n')
    p = run("compare", str(bad), good, check=1)
    assert p.stderr == "vernier compare: '%s', line 2, column 17: malformed JSON\n" % bad
    for doc, what in [({"schema": "vernier.env/1"}, "vernier.env/1 holds no benchmarks"),
                      ({"schema": "vernier.results/2"}, "from a newer vernier"),
                      ({"rows": []}, "not results vernier reads"),
                      ([1, 2], "not results vernier reads")]:
        p = run("compare", good, write(tmp_path / "other.json", doc), check=1)
        assert what in p.stderr and "other.json" in p.stderr and len(p.stderr.splitlines()) == 1
    p = run("compare", good, str(tmp_path / "absent.json"), check=1)
    assert "absent.json" in p.stderr


def test_usage_errors(tmp_path, run_file):
    good = write(tmp_path / "good.json", run_file)
    for args in [[good], [good, good, good], [good, "--"], ["--", good],
                 ["--threshold", "x", good, good], ["--threshold", "100", good, good],
                 ["--bogus", good, good], ["--json", "-", "--markdown", "-", good, good],
                 ["-", "-"]]:
        p = run("compare", *args, check=2)
        assert len(p.stderr.splitlines()) == 1 and "vernier compare --help" in p.stderr, args
    p = run("compare", "--help", check=0)
    assert p.stdout.startswith("usage: vernier compare")
    # Standard input is a file like any other.
    p = run("compare", "--json", "-", "-", good, input=(tmp_path / "good.json").read_text(), check=0)
    assert json.loads(p.stdout)["benchmarks"][0]["ratio"] == 1
