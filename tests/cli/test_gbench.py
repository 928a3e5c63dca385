"""Google Benchmark's JSON layout (--json FILE --format gbench): read back
by vernier compare against the vernier.results/1 of the same run, its
fields checked against a file Google Benchmark itself wrote, and read by
Google Benchmark's own compare.py (Debian's libbenchmark-tools) beside a
Google Benchmark program of the same benchmarks."""
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import BUILD, SOURCE, error_line, run
from test_engine_cli import QUICK, link_libs
from test_run import fake

COMPARE_PY = Path("/usr/share/benchmark/compare.py")

# The same three benchmarks in both programs: two sums of different sizes
# and one that fails, so the error entries meet too. No counters: they would
# be members Google Benchmark's file has not.
VERNIER_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <vernier.h>

static int data[4096];

static void sum(vn_state *st, int n)
{
    while (vn_next(st)) {
        int s = 0;
        for (int i = 0; i < n; i++)
            s += data[i];
        vn_keep(s);
    }
}
static void sum_64(vn_state *st) { sum(st, 64); }
static void sum_4096(vn_state *st) { sum(st, 4096); }
static void fails(vn_state *st) { vn_state_fail(st, "no such device"); }

/* With GBENCH_TOO=FILE, the results are also written in Google Benchmark's
 * layout through the library's reporter: two files of one run. */
int main(int argc, char **argv)
{
    for (int i = 0; i < 4096; i++)
        data[i] = i * argc;
    vn_bench_opts bytes;
    vn_bench_opts_init(&bytes);
    bytes.bytes_per_iter = 4096 * sizeof(int);
    bytes.items_per_iter = 4096;
    vn_suite *s = vn_suite_create();
    vn_suite_add(s, "sum_64", sum_64, NULL);
    vn_suite_add(s, "sum_4096", sum_4096, &bytes);
    vn_suite_add(s, "fails", fails, NULL);
    vn_results *res = NULL;
    int rc = vn_suite_main(s, argc, argv, &res);
    const char *path = getenv("GBENCH_TOO");
    if (path) {
        vn_buf b;
        char date[40];
        vn_buf_init(&b, VN_RESULTS_BUF_MAX);
        if (vn_report_results_gbench(res, argv[0], vn_report_gbench_date(date, sizeof date, 0), &b) ||
            vn_write_file_atomic(path, b.data, b.len))
            rc = 3;
        vn_buf_free(&b);
    }
    vn_results_free(res);
    vn_suite_destroy(s);
    return rc;
}
"""

GBENCH_PROGRAM = r"""
#include <benchmark/benchmark.h>

static int data[4096];

static void sum(benchmark::State &st, int n)
{
    for (auto _ : st) {
        int s = 0;
        for (int i = 0; i < n; i++)
            s += data[i];
        benchmark::DoNotOptimize(s);
    }
}
static void sum_64(benchmark::State &st) { sum(st, 64); }
static void sum_4096(benchmark::State &st)
{
    sum(st, 4096);
    st.SetBytesProcessed(st.iterations() * 4096 * sizeof(int));
    st.SetItemsProcessed(st.iterations() * 4096);
}
static void fails(benchmark::State &st)
{
    st.SkipWithError("no such device");
    for (auto _ : st) {
    }
}
BENCHMARK(sum_64);
BENCHMARK(sum_4096);
BENCHMARK(fails);

int main(int argc, char **argv)
{
    for (int i = 0; i < 4096; i++)
        data[i] = i * argc;
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    return 0;
}
"""

RUN = [*QUICK, "--counters", "none"]
AGGREGATES = ["mean", "median", "stddev", "cv"]


@pytest.fixture(scope="module")
def vernier_prog(tmp_path_factory):
    d = tmp_path_factory.mktemp("vn")
    src = d / "prog.c"
    src.write_text(VERNIER_PROGRAM)
    exe = d / "prog"
    subprocess.run(["cc", "-std=c11", "-O2", "-I", str(SOURCE / "include"), str(src),
                    str(BUILD / "libvernier.a"), *link_libs(), "-o", str(exe)], check=True)
    return exe


@pytest.fixture(scope="module")
def one_run(vernier_prog, tmp_path_factory):
    """One run of the program, written both ways: (vernier.results/1, gbench)."""
    d = tmp_path_factory.mktemp("run")
    v, g = d / "v.json", d / "g.json"
    p = subprocess.run([str(vernier_prog), *RUN, "--json", str(v)], capture_output=True, text=True,
                       timeout=120, env={"GBENCH_TOO": str(g), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 1, p.stderr  # fails fails, as it should
    return v, g


@pytest.fixture(scope="module")
def real_gbench(tmp_path_factory):
    """A file Google Benchmark wrote, with 10 repetitions of the same three
    benchmarks, or a skip saying what is missing."""
    cxx = shutil.which("g++")
    if not cxx:
        pytest.skip("no g++: scripts/install-deps --test installs it")
    if not Path("/usr/include/benchmark/benchmark.h").exists():
        pytest.skip("no Google Benchmark: scripts/install-deps --test installs libbenchmark-dev")
    d = tmp_path_factory.mktemp("gb")
    src = d / "gb.cc"
    src.write_text(GBENCH_PROGRAM)
    exe = d / "gb"
    subprocess.run([cxx, "-O2", str(src), "-o", str(exe), "-lbenchmark", "-lpthread"], check=True)
    out = d / "gb.json"
    subprocess.run([str(exe), "--benchmark_repetitions=10", "--benchmark_min_time=0.01",
                    f"--benchmark_out={out}", "--benchmark_out_format=json"],
                   check=True, capture_output=True, timeout=300)
    return json.loads(out.read_text())


def headline_processes(row, all_of_them=False):
    """The processes a row's headline rests on (with all_of_them, every
    process with a value, as the repetitions of the gbench layout): each
    one's value (its median net of its own empty loop) and the iterations
    of its samples it rests on."""
    out = []
    for k, p in enumerate(row["processes"]):
        if p["value"] is None or p["value"] <= 0:
            continue
        if not all_of_them and (p["left_out"] or p["upper_bound"]):
            continue
        iters = sum(s["iters"] for s in row["samples"]
                    if s["process"] == k and not set(s["tags"]) & set(row["left_out"]))
        out.append((p["value"], iters))
    return out


def iterations_of(doc, name):
    return [b for b in doc["benchmarks"] if b["name"] == name and b["run_type"] == "iteration"]


# ---- Round trip: vernier compare reads it as the same run ------------------------------

def test_each_process_is_a_repetition(one_run):
    v, g = (json.loads(p.read_text()) for p in one_run)
    rows = {r["name"]: r for r in v["benchmarks"]}
    for name in ("sum_64", "sum_4096"):
        procs = headline_processes(rows[name], all_of_them=True)
        want = [value for value, _ in procs]
        got = iterations_of(g, name)
        # Every process with a value, each a repetition, in order, with the
        # iterations of its samples; those the headline left out labelled.
        assert len(want) >= 2
        assert [e["real_time"] for e in got] == want
        assert [e["repetition_index"] for e in got] == list(range(len(want)))
        assert {e["repetitions"] for e in got} == {len(want)}
        assert [e["iterations"] for e in got] == [iters for _, iters in procs]
        kept = [value for value, _ in headline_processes(rows[name])]
        assert sum("label" in e for e in got) == len(want) - len(kept)
        # The headline is the lower quartile of those it rests on
        # (Hyndman and Fan's definition 8).
        assert rows[name]["headline"]["quantile"] == 0.25
        want_q = np.quantile(kept, 0.25, method="median_unbiased")
        assert want_q == pytest.approx(rows[name]["stats"]["median"], rel=1e-12)
        # Then the aggregates of the same values, as Google Benchmark
        # writes them after the repetitions.
        aggs = {b["aggregate_name"]: b for b in g["benchmarks"]
                if b["run_name"] == name and b["run_type"] == "aggregate"}
        assert list(aggs) == AGGREGATES
        assert aggs["mean"]["real_time"] == pytest.approx(np.mean(want), rel=1e-12)
        assert aggs["median"]["real_time"] == pytest.approx(np.median(want), rel=1e-12)
        assert aggs["stddev"]["real_time"] == pytest.approx(np.std(want, ddof=1), rel=1e-9)
        assert aggs["cv"]["real_time"] == pytest.approx(np.std(want, ddof=1) / np.mean(want), rel=1e-9)
        assert aggs["cv"]["aggregate_unit"] == "percentage" and aggs["mean"]["aggregate_unit"] == "time"
        assert aggs["mean"]["name"] == name + "_mean"
    # Throughput per repetition, from its own time.
    for e in iterations_of(g, "sum_4096"):
        assert e["bytes_per_second"] == pytest.approx(4096 * 4 / (e["real_time"] * 1e-9), rel=1e-12)
        assert e["items_per_second"] == pytest.approx(4096 / (e["real_time"] * 1e-9), rel=1e-12)
    assert all("bytes_per_second" not in e for e in iterations_of(g, "sum_64"))
    # The failed row is Google Benchmark's error, with the message the
    # program failed it with, as the vernier.results/1 of the run has it.
    [err] = iterations_of(g, "fails")
    assert rows["fails"]["stop"] == "failed"
    assert err["error_occurred"] is True and err["error_message"] == rows["fails"]["error"]
    assert f'vn_state_fail(st, "{err["error_message"]}")' in VERNIER_PROGRAM
    assert err["real_time"] == 0 and err["cpu_time"] == 0


def test_vernier_compare_reads_it_as_the_same_run(one_run):
    v, g = one_run
    p = run("compare", str(v), str(g), "--json", "-", check=0)
    d = json.loads(p.stdout)
    rows = {r["name"]: r for r in d["benchmarks"]}
    assert sorted(rows) == ["sum_4096", "sum_64"]
    for r in rows.values():
        # The same processes on both sides, as runs (the Google Benchmark
        # file's repetitions): the same median, a ratio of 1, and no
        # difference in ranks at all.
        assert r["method"] == "runs"
        assert r["base"]["units"] == r["new"]["units"] >= 1
        assert r["base"]["median_ns"] == pytest.approx(r["new"]["median_ns"], rel=1e-12)
        assert r["ratio"] == pytest.approx(1, rel=1e-12) and r["p"] == 1
        # A side the headline rests on one process of (the other left out,
        # its core in another state) has no interval, and so no verdict.
        want = "no_change" if r["base"]["units"] >= 2 else "no_interval"
        assert r["verdict"] == want, r
    assert [x["name"] for x in d["not_comparable"]] == ["fails"]
    assert not d["only_base"] and not d["only_new"]


def test_the_context_is_the_machine_of_the_run(one_run):
    v, g = (json.loads(p.read_text()) for p in one_run)
    c, env = g["context"], v["env"]
    assert c["host_name"] == env["hostname"]
    assert c["num_cpus"] == env["cpu"]["logical"]
    assert c["executable"].endswith("/prog")
    # The program dated it at the epoch, in local time with the offset.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", c["date"])
    assert c["date"][:19] == time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(0))
    assert [(x["type"], x["level"], x["size"]) for x in c["caches"]] == \
        [(x["type"], x["level"], x["size_bytes"]) for x in env["caches"]]
    assert c["load_avg"] == env["loadavg"]
    assert c["library_build_type"] == "release"  # the program was built with -O2


# ---- Field names and types as Google Benchmark writes them -------------------------------

def kinds(entry):
    """Each member's JSON type, as a dict."""
    return {k: type(v).__name__.replace("int", "float") for k, v in entry.items()}


def test_fields_are_those_google_benchmark_writes(one_run, real_gbench):
    _, g = one_run
    mine = json.loads(g.read_text())
    theirs = real_gbench
    assert list(mine) == list(theirs) == ["context", "benchmarks"]
    ctx = kinds(mine["context"])
    assert ctx == kinds(theirs["context"])
    assert kinds(mine["context"]["caches"][0]) == kinds(theirs["context"]["caches"][0])
    # Each kind of entry has Google Benchmark's members, of its types and
    # in its order: a repetition, one with a throughput, an aggregate of
    # time and one of a percentage, an error.
    def first(doc, name, run_type="iteration"):
        entries = [b for b in doc["benchmarks"] if b["name"] == name and b["run_type"] == run_type]
        # An entry with a label (a process the headline left out) if any is
        # checked below; the first without one here.
        return next((b for b in entries if "label" not in b), entries[0])
    for name, rt in [("sum_64", "iteration"), ("sum_4096", "iteration"), ("sum_64_mean", "aggregate"),
                     ("sum_64_cv", "aggregate"), ("sum_4096_median", "aggregate"), ("fails", "iteration")]:
        a, b = first(mine, name, rt), first(theirs, name, rt)
        assert list(a) == list(b), name
        assert kinds(a) == kinds(b), name
        assert a["time_unit"] == "ns"
        # A label, where there is one, comes last, as Google Benchmark
        # writes its labels.
        for e in mine["benchmarks"]:
            if e["name"] == name and e["run_type"] == rt and "label" in e:
                assert list(e) == list(b) + ["label"], name


# ---- Google Benchmark's compare.py reads it ---------------------------------------------

def test_google_benchmarks_compare_py_reads_it(vernier_prog, real_gbench, tmp_path):
    if not COMPARE_PY.exists():
        pytest.skip("no compare.py: scripts/install-deps --test installs libbenchmark-tools")
    gb = tmp_path / "gbench.json"
    gb.write_text(json.dumps(real_gbench))
    vg = tmp_path / "vernier_gbench.json"
    # The command line's own option this time, not the library call.
    p = subprocess.run([str(vernier_prog), *RUN, "--json", str(vg), "--format", "gbench"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    mine = json.loads(vg.read_text())
    # compare.py's imports (numpy, scipy) are the test environment's.
    p = subprocess.run([sys.executable, str(COMPARE_PY), "--no-color", "benchmarks", str(gb), str(vg)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[1].split() == ["Benchmark", "Time", "CPU", "Time", "Old", "Time", "New", "CPU", "Old",
                                "CPU", "New"]
    rows = {}
    for ln in lines[3:]:
        w = ln.split()
        if len(w) == 7:
            rows.setdefault(w[0], []).append([float(x) for x in w[1:]])
    # Every benchmark, its repetitions paired up to the fewer of the two
    # sides, and every aggregate: a time comparison each.
    for name in ("sum_64", "sum_4096"):
        n = min(10, len(iterations_of(mine, name)))
        assert len(rows[name]) == n, (name, p.stdout)
        for agg in AGGREGATES:
            assert len(rows[f"{name}_{agg}"]) == 1
        # The new side's times are vernier's, to compare.py's whole ns.
        got = [r[3] for r in rows[name]]
        want = [round(e["real_time"]) for e in iterations_of(mine, name)[:n]]
        assert got == want
        # The U test over all the repetitions of each side.
        u = [ln for ln in lines if ln.startswith(f"{name}_pvalue")]
        # compare.py's own words, which say how many repetitions it read of each.
        assert len(u) == 1 and f"U Test, Repetitions: 10 vs {len(iterations_of(mine, name))}" in u[0]
    assert len(rows["fails"]) == 1


# ---- vernier run, vernier suite, and the option's misuse -------------------------------

def test_run_writes_each_run_as_a_repetition(tmp_path):
    f = fake(tmp_path, ["10 4 1 2048 0", "12 5 2 2048 0", "11 4 1 2048 0", "13 4 1 4096 0", "9 3 1 2048 0"])
    g, v = tmp_path / "g.json", tmp_path / "v.json"
    run("run", "--fake-exec", f, "--runs", "5", "-n", "prog", "--json", str(g), "--format", "gbench",
        "x", check=0)
    run("run", "--fake-exec", f, "--runs", "5", "-n", "prog", "--json", str(v), "x", check=0)
    d = json.loads(g.read_text())
    # The JSON value that stands for the program: the command's own words.
    assert d["context"]["executable"] == "vernier run"
    reps = iterations_of(d, "prog")
    assert [e["real_time"] for e in reps] == [10e6, 12e6, 11e6, 13e6, 9e6]
    assert [e["cpu_time"] for e in reps] == [5e6, 7e6, 5e6, 5e6, 4e6]  # user + sys
    assert {e["iterations"] for e in reps} == {1} and {e["repetitions"] for e in reps} == {5}
    med = next(b for b in d["benchmarks"] if b["name"] == "prog_median")
    assert med["real_time"] == 11e6 and med["cpu_time"] == 5e6
    p = run("compare", str(v), str(g), "--json", "-", check=0)
    [r] = json.loads(p.stdout)["benchmarks"]
    assert r["ratio"] == 1 and r["p"] == 1


def test_suite_passes_it_to_the_engine():
    p = run("suite", "--quick", "--quiet", "syscall.getppid", "--json", "-", "--format", "gbench",
            timeout=300, check=0)
    d = json.loads(p.stdout)
    # The JSON value that stands for the program: the command's own words.
    assert d["context"]["executable"] == "vernier suite"
    reps = iterations_of(d, "syscall.getppid")
    assert reps and all(e["real_time"] > 0 and e["time_unit"] == "ns" for e in reps)


@pytest.mark.parametrize("args, names", [
    (["--format", "gbench"], ["--format", "--json"]),  # the option it needs
    (["--json", "-", "--format", "xml"], ["--format", "'vernier'", "'gbench'", "'xml'"]),
])
def test_format_misused_is_a_usage_error(vernier_prog, tmp_path, args, names):
    # One line naming the option, the value refused and those it takes.
    p = subprocess.run([str(vernier_prog), *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
    assert all(n in p.stderr for n in names), (names, p.stderr)
    error_line(run("run", "--fake-exec", fake(tmp_path, ["1"]), *args, "x"), 2, "run", *names)
    error_line(run("suite", *args, "syscall.getppid"), 2, "suite", *names)
