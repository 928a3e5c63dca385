"""vernier compare as a CI gate that cannot pass by accident: nothing in
common is exit 4 with the reason; a file with two benchmarks of one name,
or a time below 0 or out of range, is refused naming the place; Google
Benchmark files written with only their aggregates are compared; names
written differently by different tools pair by their form, or by --map."""
import json
import re

import numpy as np
import pytest
from scipy import stats

from conftest import error_line, names_in, run, validate


def write(path, doc):
    path.write_text(json.dumps(doc))
    return str(path)


def hyperfine(results):
    return {"results": [{"command": c, "times": t} for c, t in results]}


def gbench(entries):
    return {"context": {"host_name": "h", "num_cpus": 2}, "benchmarks": entries}


def gb_rep(name, t, i, reps):
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": reps,
            "repetition_index": i, "threads": 1, "iterations": 100, "real_time": t,
            "cpu_time": t, "time_unit": "ns"}


def gb_aggs(name, values):
    """The aggregates Google Benchmark writes of values (its repetitions),
    as --benchmark_report_aggregates_only leaves them."""
    v = np.array(values, dtype=float)
    out = []
    for agg, x in (("mean", v.mean()), ("median", np.median(v)), ("stddev", v.std(ddof=1)),
                   ("cv", v.std(ddof=1) / v.mean())):
        out.append({"name": f"{name}_{agg}", "run_name": name, "run_type": "aggregate",
                    "repetitions": len(v), "threads": 1, "aggregate_name": agg,
                    "aggregate_unit": "percentage" if agg == "cv" else "time",
                    "iterations": len(v), "real_time": x, "cpu_time": x, "time_unit": "ns"})
    return out


def compare_json(*args, code):
    p = run("compare", "--json", "-", *args, check=code)
    doc = json.loads(p.stdout)
    validate(doc, "compare-1.json")
    return doc


# ---- nothing to judge ----------------------------------------------------------------

def test_nothing_in_common_is_exit_4_with_the_reason(tmp_path):
    a = write(tmp_path / "a.json", hyperfine([("make", [1.0, 1.1]), ("test", [2.0, 2.1])]))
    b = write(tmp_path / "b.json", hyperfine([("build", [1.0, 1.1])]))
    for extra in ([], ["--fail-on-regression"]):
        # The first line says why, and the option that pairs other names;
        # every name of either side is listed.
        p = run("compare", *extra, a, b, check=4)
        assert "--map" in p.stdout.splitlines()[0], p.stdout
        assert names_in(p.stdout, "make", "test", "build"), p.stdout
    doc = compare_json(a, b, code=4)
    assert doc["benchmarks"] == [] and doc["only_base"] == ["make", "test"]
    assert doc["only_new"] == ["build"] and doc["not_comparable"] == []


def test_only_benchmarks_not_comparable_is_exit_4(tmp_path):
    # One run a side: a median each, but common names with nothing to
    # compare (a median of 0 on BASE).
    a = write(tmp_path / "a.json", hyperfine([("x", [0.0, 0.0, 0.0])]))
    b = write(tmp_path / "b.json", hyperfine([("x", [1.0, 1.0, 1.0])]))
    p = run("compare", "--fail-on-regression", a, b, check=4)
    assert names_in(p.stdout, "x"), p.stdout
    doc = compare_json("--fail-on-regression", a, b, code=4)
    assert doc["benchmarks"] == [] and [s["name"] for s in doc["not_comparable"]] == ["x"]
    assert doc["only_base"] == [] and doc["only_new"] == []


def test_an_empty_side_is_exit_4(tmp_path):
    a = write(tmp_path / "a.json", hyperfine([]))
    b = write(tmp_path / "b.json", hyperfine([("x", [1.0, 1.0])]))
    run("compare", a, b, check=4)
    doc = compare_json(a, b, code=4)
    assert doc["benchmarks"] == [] and doc["only_base"] == [] and doc["only_new"] == ["x"]


# ---- files refused --------------------------------------------------------------------

def test_two_benchmarks_of_one_name_are_refused(tmp_path, run_file):
    dup = write(tmp_path / "h.json", hyperfine([("a", [0.1, 0.2]), ("a", [5.0])]))
    ok = write(tmp_path / "ok.json", hyperfine([("a", [0.1, 0.2])]))
    # Each refusal names the file, the place of the second one, and the name.
    p = run("compare", dup, ok, check=1)
    error_line(p, 1, "compare", f"'{dup}'", "results[1]", "'a'")
    # Google Benchmark: two runs of 2 repetitions pasted into one file; the
    # third entry of 'f' is one too many.
    two = gbench([gb_rep("f", 10, i % 2, 2) for i in range(4)])
    g = write(tmp_path / "g.json", two)
    p = run("compare", g, g, check=1)
    line = error_line(p, 1, "compare", f"'{g}'", "benchmarks[2]", "'f'")
    assert {"2", "3"} <= set(re.findall(r"\b\d+\b", line.replace(g, ""))), line
    # Two aggregates of one kind.
    g2 = write(tmp_path / "g2.json", gbench(gb_aggs("f", [1, 2, 3]) * 2))
    p = run("compare", g2, g2, check=1)
    error_line(p, 1, "compare", f"'{g2}'", "'mean'", "'f'")
    # vernier's own.
    doc = dict(run_file)
    doc["benchmarks"] = [run_file["benchmarks"][0]] * 2
    v = write(tmp_path / "v.json", doc)
    p = run("compare", v, v, check=1)
    error_line(p, 1, "compare", f"'{v}'", "benchmarks[1]", "'true'")
    # Repetitions of one run are one benchmark, not duplicates.
    reps = write(tmp_path / "r.json", gbench([gb_rep("f", 10 + i, i, 3) for i in range(3)]))
    run("compare", reps, reps, check=0)


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "run.json"
    run("run", "--runs", "3", "--json", str(path), "true", check=0, timeout=120)
    return json.loads(path.read_text())


def test_negative_or_huge_times_are_refused_with_the_place(tmp_path, run_file):
    ok = write(tmp_path / "ok.json", hyperfine([("a", [0.1, 0.2])]))
    neg = write(tmp_path / "neg.json", hyperfine([("a", [0.1, -0.2])]))
    # Each names the file, the place, the benchmark, and the value read.
    p = run("compare", neg, ok, check=1)
    error_line(p, 1, "compare", f"'{neg}'", "results[0].times[1]", "'a'", "-0.2 s")
    g = write(tmp_path / "g.json", gbench([gb_rep("f", -3, 0, 1)]))
    p = run("compare", g, g, check=1)
    error_line(p, 1, "compare", f"'{g}'", "benchmarks[0]", "'f'", "real_time", "-3 ns")
    (tmp_path / "big.json").write_text(json.dumps(gbench([gb_rep("f", 1, 0, 1)])).replace(
        '"real_time": 1,', '"real_time": 1e999,'))
    p = run("compare", str(tmp_path / "big.json"), ok, check=1)
    error_line(p, 1, "compare", tmp_path / "big.json", "benchmarks[0]", "'f'", "real_time")
    doc = json.loads(json.dumps(run_file))
    doc["benchmarks"][0]["samples"][1]["value"] = -5.0
    v = write(tmp_path / "v.json", doc)
    p = run("compare", v, v, check=1)
    error_line(p, 1, "compare", f"'{v}'", "benchmarks[0]", "'true'", "samples[1]", "-5 ns")
    text = json.dumps(run_file).replace('"value": ', '"value": 1e999, "x": ', 1)
    (tmp_path / "v2.json").write_text(text)
    p = run("compare", str(tmp_path / "v2.json"), v, check=1)
    error_line(p, 1, "compare", tmp_path / "v2.json", "samples[0]")


def test_hyperfine_zero_times_read_as_written(tmp_path):
    # hyperfine clamps a run net of the shell's start-up at 0.
    a = write(tmp_path / "a.json", hyperfine([("a", [0.0, 0.001, 0.002, 0.001])]))
    b = write(tmp_path / "b.json", hyperfine([("a", [0.001, 0.001, 0.002, 0.001])]))
    doc = compare_json(a, b, code=0)
    row = doc["benchmarks"][0]
    assert row["base"]["n"] == 4 and row["base"]["median_ns"] == pytest.approx(1e6)


# ---- aggregates only ------------------------------------------------------------------

def test_aggregates_only_files_are_compared(tmp_path):
    rng = np.random.default_rng(7)
    base = 100 + rng.normal(0, 2, 12)
    new = 110 + rng.normal(0, 2, 9)
    a = write(tmp_path / "a.json", gbench(gb_aggs("BM_f", base)))
    b = write(tmp_path / "b.json", gbench(gb_aggs("BM_f", new)))
    doc = compare_json("--fail-on-regression", a, b, code=3)
    row = doc["benchmarks"][0]
    assert row["method"] == "aggregates"
    assert row["base"]["units"] == 12 and row["new"]["units"] == 9 and row["base"]["n"] == 0
    # The ratio of the means, Welch's interval on the log scale (delta
    # method) and its test, from the summaries alone.
    r = new.mean() / base.mean()
    assert row["ratio"] == pytest.approx(r, rel=1e-9)
    va = (base.std(ddof=1) / base.mean()) ** 2 / 12
    vb = (new.std(ddof=1) / new.mean()) ** 2 / 9
    df = (va + vb) ** 2 / (va ** 2 / 11 + vb ** 2 / 8)
    half = stats.t.ppf(0.975, df) * np.sqrt(va + vb)
    assert row["ci"] == pytest.approx([r * np.exp(-half), r * np.exp(half)], rel=1e-6)
    t = np.log(r) / np.sqrt(va + vb)
    assert row["p"] == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-6)
    assert row["verdict"] == "slower"
    # The console's note of the rows compared by their means is in the
    # golden of the console (test_compare.py).
    # Against repetitions of the same values: the same numbers.
    c = write(tmp_path / "c.json", gbench([gb_rep("BM_f", x, i, 9) for i, x in enumerate(new)]))
    row2 = compare_json(a, c, code=0)["benchmarks"][0]
    assert row2["ratio"] == pytest.approx(r, rel=1e-9)
    assert row2["ci"] == pytest.approx(row["ci"], rel=1e-6)


# ---- names written differently --------------------------------------------------------

def test_names_pair_by_their_form(tmp_path):
    g = gbench([gb_rep(n, t, 0, 1) | {"repetitions": 3, "repetition_index": i}
                for n, t in (("BM_copy/64", 10), ("BM_copy/512", 40), ("BM_x/real_time", 5),
                             ("BM_y/threads:2", 7))
                for i in range(3)])
    h = hyperfine([("copy/size=64", [1e-8] * 3), ("copy/size=512", [4e-8] * 3),
                   ("x", [5e-9] * 3), ("y", [7e-9] * 3), ("z", [1e-9] * 3)])
    a, b = write(tmp_path / "g.json", g), write(tmp_path / "h.json", h)
    doc = compare_json(a, b, code=0)
    got = {r["name"]: (r["new_name"], r["paired_by"]) for r in doc["benchmarks"]}
    assert got == {"BM_copy/64": ("copy/size=64", "name form"),
                   "BM_copy/512": ("copy/size=512", "name form"),
                   "BM_x/real_time": ("x", "name form")}
    # threads:2 pairs only with a benchmark that ran on two threads.
    assert doc["only_base"] == ["BM_y/threads:2"] and doc["only_new"] == ["y", "z"]
    assert doc["paired"] == {"name": 0, "map": 0, "name_form": 3}
    # The console lists what the name form paired, each pair once.
    p = run("compare", a, b, check=0)
    for old, new in (("BM_copy/64", "copy/size=64"), ("BM_copy/512", "copy/size=512"),
                     ("BM_x/real_time", "x")):
        assert p.stdout.count(f"{old} = {new}") == 1, p.stdout


def test_map_pairs_the_rest_and_names_what_it_did(tmp_path):
    a = write(tmp_path / "a.json", hyperfine([("old_parse/1", [1.0, 1.1]), ("old_parse/2", [2.0, 2.1]),
                                              ("same", [1.0, 1.0])]))
    b = write(tmp_path / "b.json", hyperfine([("parse_v2/1", [1.0, 1.1]), ("parse_v2/2", [2.0, 2.1]),
                                              ("same", [1.0, 1.0])]))
    doc = compare_json("--map", r"old_parse/([0-9])=parse_v2/\1", a, b, code=0)
    got = {r["name"]: (r["new_name"], r["paired_by"]) for r in doc["benchmarks"]}
    assert got == {"old_parse/1": ("parse_v2/1", "--map"), "old_parse/2": ("parse_v2/2", "--map"),
                   "same": ("same", "name")}
    # An '=' in OLD is written '\='.
    c = write(tmp_path / "c.json", hyperfine([("f/n=64", [1.0, 1.1])]))
    d = write(tmp_path / "d.json", hyperfine([("g64", [1.0, 1.1])]))
    doc = compare_json("--map", r"f/n\=([0-9]+)=g\1", c, d, code=0)
    assert doc["benchmarks"][0]["new_name"] == "g64"


def test_a_form_two_benchmarks_share_pairs_neither(tmp_path):
    a = write(tmp_path / "a.json", hyperfine([("BM_f/64", [1.0, 1.1]), ("f/n=64", [1.0, 1.1])]))
    b = write(tmp_path / "b.json", hyperfine([("f/64/real_time", [1.0, 1.1])]))
    doc = compare_json(a, b, code=4)
    assert doc["only_base"] == ["BM_f/64", "f/n=64"] and doc["only_new"] == ["f/64/real_time"]
    assert doc["benchmarks"] == [] and doc["paired"] == {"name": 0, "map": 0, "name_form": 0}


@pytest.mark.parametrize("spec, names", [
    ("nothing", ["OLD=NEW"]),
    ("=x", ["OLD=NEW"]),
    ("x=", ["OLD=NEW"]),
    ("a(=b", []),  # a regex that does not compile
])
def test_bad_map_is_a_usage_error(tmp_path, spec, names):
    # The option, its value, the form it takes (as --help writes it) when
    # that was wrong, and where the usage is.
    a = write(tmp_path / "a.json", hyperfine([("a", [1.0])]))
    p = run("compare", "--map", spec, a, a, check=2)
    error_line(p, 2, "compare", "--map", f"'{spec}'", *names, "--help")


# ---- large files --------------------------------------------------------------------------

def test_a_large_side_draws_each_median_from_its_ranks(tmp_path):
    """From 2000 values a side, a resample's median is drawn from its exact
    distribution over ranks (a binomial) instead of by drawing every value:
    the same bootstrap interval as drawing them, to its Monte Carlo noise."""
    rng = np.random.default_rng(11)
    a = rng.lognormal(0, 0.3, 5001)
    b = rng.lognormal(0.01, 0.3, 4000)
    fa = write(tmp_path / "a.json", hyperfine([("x", list(a))]))
    fb = write(tmp_path / "b.json", hyperfine([("x", list(b))]))
    row = compare_json(fa, fb, code=0)["benchmarks"][0]
    boot = np.empty(4000)
    for i in range(len(boot)):
        boot[i] = np.median(rng.choice(b, b.size)) / np.median(rng.choice(a, a.size))
    lo, hi = np.percentile(boot, [2.5, 97.5])
    half = (hi - lo) / 2
    assert abs(row["ci"][0] - lo) < 0.15 * half and abs(row["ci"][1] - hi) < 0.15 * half, (
        row["ci"], lo, hi)
    assert row["ratio"] == pytest.approx(np.median(b) / np.median(a), rel=1e-12)


def test_threads_pair_with_a_run_on_as_many_threads(tmp_path, vernier_threads):
    """Google Benchmark's BM_x/threads:2 and a vernier x run with --threads 2
    are one benchmark; BM_x/threads:1 is another."""
    g = gbench([gb_rep("BM_spin/threads:1", 10, 0, 1) | {"threads": 1},
                gb_rep("BM_spin/threads:2", 10, 0, 1) | {"threads": 2}])
    a = write(tmp_path / "g.json", g)
    doc = compare_json(a, str(vernier_threads), code=0)
    got = {r["name"]: r["new_name"] for r in doc["benchmarks"]}
    assert got == {"BM_spin/threads:2": "spin"}
    assert doc["only_base"] == ["BM_spin/threads:1"]


@pytest.fixture(scope="module")
def vernier_threads(tmp_path_factory):
    """A benchmark program's results of spin, run on two threads."""
    from conftest import BUILD, SOURCE
    from test_engine_cli import link_libs
    import subprocess
    d = tmp_path_factory.mktemp("thr")
    (d / "p.c").write_text("#include <vernier.h>\nstatic void spin(vn_state *st) { unsigned x = 1; "
                           "while (vn_next(st)) { for (int i = 0; i < 200; i++) x = x * 3 + 1; "
                           "vn_keep(x); } }\nVN_BENCH(spin);\n"
                           "int main(int c, char **v) { return vn_main(c, v); }\n")
    subprocess.run(["cc", "-std=c11", "-O2", "-I", str(SOURCE / "include"), str(d / "p.c"),
                    str(BUILD / "libvernier.a"), *link_libs(), "-o", str(d / "p")], check=True)
    out = d / "r.json"
    subprocess.run([str(d / "p"), "--threads", "2", "--max-time", "0.1", "--quiet", "--json",
                    str(out)], check=True, capture_output=True, timeout=120)
    return out
