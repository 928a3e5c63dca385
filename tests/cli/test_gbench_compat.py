"""A script written for a Google Benchmark binary runs a vernier binary of
the same benchmarks unchanged: the same flags, files Google Benchmark's
compare.py reads, and vernier compare pairing the two programs' names.
compare.py's OVERALL_GEOMEAN of two files of one vernier binary stays
within +-0.05 of 0 (or within twice what two files of the Google Benchmark
binary give in the same run, on a machine too noisy for that)."""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUILD, SOURCE, VERNIER, sanitized
from test_engine_cli import link_libs

COMPARE_PY = Path("/usr/share/benchmark/compare.py")

GBENCH_PROGRAM = r"""
#include <benchmark/benchmark.h>

static void BM_chain(benchmark::State &st)
{
    long n = st.range(0);
    unsigned x = 1;
    for (auto _ : st) {
        for (long i = 0; i < n; i++) {
            x = x * 3 + 1;
            benchmark::DoNotOptimize(x);
        }
    }
}
BENCHMARK(BM_chain)->Arg(64)->Arg(512);

static void BM_spin(benchmark::State &st)
{
    unsigned x = 7;
    for (auto _ : st) {
        for (int i = 0; i < 100; i++) {
            x ^= x << 3;
            benchmark::DoNotOptimize(x);
        }
    }
}
BENCHMARK(BM_spin);
BENCHMARK_MAIN();
"""

VERNIER_PROGRAM = r"""
#include <vernier.h>

static void chain(vn_state *st)
{
    long n = (long)vn_state_param(st);
    unsigned x = 1;
    while (vn_next(st)) {
        for (long i = 0; i < n; i++) {
            x = x * 3 + 1;
            vn_keep(x);
        }
    }
}
static const int64_t sizes[] = {64, 512};
VN_BENCH_OPTS(chain, .param_name = "n", .param_values = sizes, .param_count = 2);

static void spin(vn_state *st)
{
    unsigned x = 7;
    while (vn_next(st)) {
        for (int i = 0; i < 100; i++) {
            x ^= x << 3;
            vn_keep(x);
        }
    }
}
VN_BENCH(spin);

int main(int argc, char **argv) { return vn_main(argc, argv); }
"""

# The script, as a Google Benchmark user wrote it: only $BIN changes.
SCRIPT = r"""#!/bin/sh
set -eu
BIN=$1
OUT=$2
"$BIN" --benchmark_list_tests=true > "$OUT/list.txt"
for i in 1 2; do
    "$BIN" --benchmark_filter='chain|spin' --benchmark_repetitions=5 \
        --benchmark_min_time=0.02 --benchmark_enable_random_interleaving=true \
        --benchmark_out="$OUT/run$i.json" --benchmark_out_format=json \
        --benchmark_display_aggregates_only=true --benchmark_color=false \
        --benchmark_context=job=ci > "$OUT/console$i.txt"
done
"$BIN" --benchmark_filter=-spin --benchmark_repetitions=3 --benchmark_min_time=0.02 \
    --benchmark_report_aggregates_only=true --benchmark_format=json \
    --benchmark_time_unit=us > "$OUT/aggregates.json"
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    cxx = shutil.which("g++")
    if not cxx:
        pytest.fail("no g++: scripts/install-deps --test installs it")
    if not Path("/usr/include/benchmark/benchmark.h").exists():
        pytest.fail("no Google Benchmark: scripts/install-deps --test installs libbenchmark-dev")
    d = tmp_path_factory.mktemp("progs")
    (d / "gb.cc").write_text(GBENCH_PROGRAM)
    (d / "vn.c").write_text(VERNIER_PROGRAM)
    subprocess.run([cxx, "-O2", str(d / "gb.cc"), "-o", str(d / "gb"), "-lbenchmark", "-lpthread"],
                   check=True)
    subprocess.run(["cc", "-std=c11", "-O2", "-I", str(SOURCE / "include"), str(d / "vn.c"),
                    str(BUILD / "libvernier.a"), *link_libs(), "-o", str(d / "vn")], check=True)
    (d / "bench.sh").write_text(SCRIPT)
    return d


def run_rounds(programs, tmp_path_factory):
    """The script run against both binaries, twice each, taking turns so
    both meet the same machine: {"gb": [dir, dir], "vn": [dir, dir]}."""
    out = {"gb": [], "vn": []}
    for _ in range(2):
        for tool in ("gb", "vn"):
            o = tmp_path_factory.mktemp(tool)
            p = subprocess.run(["sh", str(programs / "bench.sh"), str(programs / tool), str(o)],
                               capture_output=True, text=True, timeout=300)
            assert p.returncode == 0, (tool, p.stdout, p.stderr)
            out[tool].append(o)
    return out


@pytest.fixture(scope="module")
def outputs(programs, tmp_path_factory):
    out = run_rounds(programs, tmp_path_factory)
    return {"gb": out["gb"][0], "vn": out["vn"][0], "all": out}


def entries(doc, run_type):
    return [b for b in doc["benchmarks"] if b["run_type"] == run_type]


def test_the_script_runs_both_and_lists_the_same_benchmarks(outputs):
    gb = (outputs["gb"] / "list.txt").read_text().split()
    vn = (outputs["vn"] / "list.txt").read_text().split()
    assert gb == ["BM_chain/64", "BM_chain/512", "BM_spin"]
    assert vn == ["chain/n=64", "chain/n=512", "spin"]


def test_files_have_google_benchmarks_repetitions_and_aggregates(outputs):
    for tool in ("gb", "vn"):
        doc = json.loads((outputs[tool] / "run1.json").read_text())
        assert doc["context"]["job"] == "ci"
        reps = entries(doc, "iteration")
        names = sorted({e["run_name"] for e in reps})
        assert len(names) == 3
        for n in names:
            mine = [e for e in reps if e["run_name"] == n]
            # Google Benchmark writes every repetition; vernier one for each
            # process that gave a value, and a process whose samples were
            # all left out gives none (tests/unit/test_results_gbench.c),
            # which a sanitized build's slow processes met once in CI.
            k = len(mine)
            assert k == 5 if tool == "gb" else 4 <= k <= 5, (tool, n, k)
            assert [e["repetition_index"] for e in mine] == list(range(k))
            assert {e["repetitions"] for e in mine} == {k}
            assert all(e["threads"] == 1 and e["iterations"] >= 1 for e in mine)
            aggs = [e["aggregate_name"] for e in entries(doc, "aggregate") if e["run_name"] == n]
            assert aggs == ["mean", "median", "stddev", "cv"]


def test_aggregates_only_in_the_unit_asked(outputs):
    for tool in ("gb", "vn"):
        doc = json.loads((outputs[tool] / "aggregates.json").read_text())
        assert entries(doc, "iteration") == []
        aggs = entries(doc, "aggregate")
        assert {e["time_unit"] for e in aggs} == {"us"}
        assert sorted({e["run_name"] for e in aggs}) == (
            ["BM_chain/512", "BM_chain/64"] if tool == "gb" else ["chain/n=512", "chain/n=64"])


def geomean(a, b):
    p = subprocess.run([sys.executable, str(COMPARE_PY), "--no-color", "benchmarks", str(a), str(b)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    m = re.search(r"^OVERALL_GEOMEAN\s+([-+]\d+\.\d+)\s+([-+]\d+\.\d+)", p.stdout, re.M)
    assert m, p.stdout
    return float(m.group(1))


def geomean_noise(rounds):
    """For each tool, the median distance of OVERALL_GEOMEAN from 0 over
    the six pairs of its four files."""
    noise = {}
    for tool in ("gb", "vn"):
        files = [d / f"run{i}.json" for d in rounds[tool] for i in (1, 2)]
        g = [abs(geomean(a, b)) for k, a in enumerate(files) for b in files[k + 1:]]
        noise[tool] = sorted(g)[len(g) // 2]
    return noise


def test_compare_py_geomean_of_one_binary_is_near_zero(outputs, programs, tmp_path_factory):
    """The median distance of OVERALL_GEOMEAN from 0: within 0.05 for
    vernier's, or within twice Google Benchmark's own on a machine noisier
    than that. A geometric mean that weighed benchmarks by unequal counts
    of entries would be off by far more (+4.1 once, with an entry per
    sample), in every try. A neighbour on the host that takes the core
    for a second can shift one tool's rounds and not the other's (CI once
    measured 0.067 against 0.009), so a miss is measured again, from
    fresh rounds, once."""
    if not COMPARE_PY.exists():
        pytest.fail("no compare.py: scripts/install-deps --test installs libbenchmark-tools")
    if sanitized():
        pytest.skip("a sanitized build's timings are the sanitizer's: its noise is not compared "
                    "with Google Benchmark's")
    tries = [geomean_noise(outputs["all"])]
    if tries[0]["vn"] > max(0.05, 2 * tries[0]["gb"]):
        tries.append(geomean_noise(run_rounds(programs, tmp_path_factory)))
    noise = tries[-1]
    assert noise["vn"] <= max(0.05, 2 * noise["gb"]), tries


def test_vernier_compare_pairs_the_two_programs(outputs):
    # Google Benchmark's aggregates against vernier's: names in either
    # tool's form, compared by their means.
    p = subprocess.run([str(VERNIER), "compare", "--json", "-", str(outputs["gb"] / "aggregates.json"),
                        str(outputs["vn"] / "aggregates.json")], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads(p.stdout)
    got = {r["name"]: (r["new_name"], r["paired_by"], r["method"]) for r in doc["benchmarks"]}
    assert got == {"BM_chain/64": ("chain/n=64", "name form", "aggregates"),
                   "BM_chain/512": ("chain/n=512", "name form", "aggregates")}
    # Repetitions against processes: the three pair by their names' form.
    p = subprocess.run([str(VERNIER), "compare", "--json", "-", str(outputs["gb"] / "run1.json"),
                        str(outputs["vn"] / "run1.json")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads(p.stdout)
    assert doc["paired"] == {"name": 0, "map": 0, "name_form": 3}, doc["paired"]
    assert len(doc["benchmarks"]) + len(doc["not_comparable"]) == 3
