"""End-to-end tests of benchmark programs built with vn_main(): the examples,
run for real with short budgets, their options, their outputs and their
failures. Timing goals live in bench/; these check behavior and sanity."""
import csv
import errno
import io
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import (stderr_on_a_terminal, BUILD, SOURCE, catches, cmake_cache, one_line, sanitized,
                      next_run, table_row, validate, wait_until)
from conftest import run as run_vernier

EX = BUILD / "examples"
QUICK = ["--quiet", "--max-time", "0.2", "--warmup", "0.005"]


def run_ex(name, *args, check=None, timeout=120, env=None):
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    if env:
        e.update(env)
    p = subprocess.run([str(EX / name), *args], capture_output=True, text=True, timeout=timeout, env=e)
    if check is not None:
        assert p.returncode == check, (p.returncode, p.stdout, p.stderr)
    return p


def results(name, *args):
    p = run_ex(name, *QUICK, *args, "--json", "-", check=0)
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    return d, p


def test_x_plus_x_runs_and_reports():
    d, p = results("x_plus_x")
    b = d["benchmarks"][0]
    assert b["name"] == "x_plus_x" and b["unit"] == "ns"
    assert d["optimized"] is True
    ref = b["ref"]["ns_per_cycle"]
    assert ref and 0.05 < ref < 5
    # Either a net time with its empty loop, or an upper bound: never both,
    # never a negative time.
    if b["upper_bound"]:
        assert b["bound_ns"] > 0
        # The bound is the fastest of the samples the headline uses: not
        # left out by their tags, nor with their process (another core
        # state).
        procs = b["processes"]
        used = [s for s in b["samples"] if not set(s["tags"]) & set(b["left_out"])
                and not procs[s["process"]]["left_out"]]
        fastest = min(s["value"] for s in used)
        assert b["bound_rule"] == "fastest"
        assert b["bound_ns"] == pytest.approx(fastest, rel=1e-9)
    else:
        assert b["stats"]["median"] > 0 and b["bound_ns"] is None and b["bound_rule"] is None
    assert b["overhead"]["ns"] > 0
    # It computes: on the CPU for most of each sample, less what a host
    # steals from the vCPU (a sleep is on it for a hundredth).
    assert b["on_cpu"] > 0.1
    # It declared no bytes or items per iteration: null, not a measured 0.
    assert set(b["throughput"].values()) == {None}
    # The console table went to stderr, since stdout carries the JSON.
    assert "x_plus_x" in p.stderr and " time " in p.stderr


@pytest.mark.skipif(sanitized(), reason="the sanitizers keep the count in memory and check its shadow "
                    "byte every iteration, so the loop is not the one-cycle loop; the optimized build checks it")
def test_x_plus_x_costs_about_one_reference_cycle():
    d, _ = results("x_plus_x")
    b = d["benchmarks"][0]
    # The empty loop's own cost is about one cycle (a decrement and a
    # branch), and the loop with x += x costs about the same: the add runs
    # in the loop's shadow. Either a small net time or an upper bound.
    ref = b["ref"]["ns_per_cycle"]
    # On a core shared with a busy second hardware thread a taken branch a
    # cycle becomes one in two. The headline reads such a core when the
    # core was shared the whole run, and shared_core then says so.
    shared = any(w["id"] == "shared_core" for w in b["warnings"])
    assert b["overhead"]["ns"] / ref < (6 if shared else 3)
    # A bound's statistics are of the loop with the body, not net.
    gross = b["stats"]["median"] + (0 if b["upper_bound"] else b["overhead"]["ns"])
    assert 0.3 < gross / ref < (8 if shared else 4)


def test_a_core_shared_through_the_run_is_said():
    # Every process of a row on the CPU reads the probe at about one cycle
    # a branch, or more on a shared core: with the level at 0.5 the finding
    # is on each such row (unless some of its processes were told apart as
    # shared, which shared_core says in its own words), and on no row
    # without probes (a sleep); off, it is on none of them.
    for level, want in (("0.5", True), ("inf", False)):
        d, _ = results("sum_arrays", "--policy", f"alone_probe={level}")
        probed = 0
        for b in d["benchmarks"]:
            probes = [p["probe"] for p in b["processes"] if p["probe"] is not None]
            said = [w for w in b["warnings"] if w["brief"].endswith("core shared through the run")]
            if not probes or any(p["shared"] for p in b["processes"]):
                assert not said
                continue
            probed += 1
            assert bool(said) == want, (level, b["name"], probes, b["warnings"])
            # The headline rests on a shared core, as the JSON says.
            assert (b["headline"]["core"] == "shared") == want
            if said:
                assert said[0]["id"] == "shared_core"
                assert said[0]["brief"] == (f"probe {min(probes):.2f} cycles a branch: "
                                            "core shared through the run")
        if not probed:
            pytest.skip("no row had a probe: the timer costs too much to time the taken-branch loop")


def test_sleep_reads_ten_milliseconds():
    d, _ = results("sleep_10ms", "--min-samples", "5")
    b = d["benchmarks"][0]
    assert b["iters"] == 1
    # Never less than the sleep; waking a halted vCPU (no latency request
    # held without root) and a busy host add to some samples, and two
    # sleeps an iteration would read 20 ms.
    assert 10.0e6 <= b["stats"]["min"] < 12.0e6
    assert 10.0e6 <= b["stats"]["median"] < 16.0e6
    assert b["upper_bound"] is False
    # Asleep nearly all of each sample: a shared core is no concern of it,
    # and the CPU column shows the thread barely ran.
    assert b["on_cpu"] < 0.5
    assert b["cpu_ns"] is not None and 0 <= b["cpu_ns"] < 0.2 * b["stats"]["median"]
    assert all(s["cpu_ns"] is None or s["cpu_ns"] < s["value"] for s in b["samples"])
    assert "shared_core" not in {w["id"] for w in b["warnings"]}
    assert len(b["samples"]) >= 5


def test_the_interval_is_for_the_next_run():
    """Each row's interval is the next run's: the estimate's own (est_ci,
    which the precision is held to) widened by sqrt(2) on the log scale,
    in the headline's unit and in ns; the table's +- is the next run's."""
    d, p = results("random_work", "--processes", "3")
    b = d["benchmarks"][0]
    h = b["headline"]
    assert h["processes"] == 3 and not h["bound"]
    v, (lo, hi), (elo, ehi) = h["value"], h["ci"], h["est_ci"]
    # Three processes far apart (a loaded machine, the sanitizers) can give
    # an interval that reaches below 0: both then say 0.
    assert (lo < elo or lo == elo == 0) and elo < v < ehi < hi
    # A process left out for its core state (a neighbour on the core's
    # other hardware thread) is one the next run may meet throughout: the
    # interval reaches the headline's quantile of those (numpy's linear one,
    # engine/summary.c).
    key = "cycles" if h["unit"] == "cycles" else "value"
    other = [q[key] for q in b["processes"] if q["left_out"] and not q["upper_bound"]
             and q["shared"] != (h["core"] == "shared") and q[key]]
    want = next_run(v, elo, ehi)
    if other:
        at = float(np.percentile(other, 100 * (h["quantile"] or 0.5)))
        want = [min(want[0], at), max(want[1], at)]
    assert [lo, hi] == pytest.approx(want, rel=1e-6)
    ns = h["units"]["ns"]
    assert ns["ci"] == b["stats"]["median_ci"]
    if h["unit"] == "ns":
        assert ns["ci"] == h["ci"]
    # The table's +-: the next run's half-width in percent of the headline.
    pct = float(re.search(r"\+-([\d.]+)%", table_row(p.stderr, b["name"])).group(1))
    assert pct == pytest.approx(100 * max(v - lo, hi - v) / v, rel=0.06, abs=0.06)


def test_a_worker_takes_memory_before_the_benchmarks_when_asked():
    """--policy layout_mb=N: each worker takes and touches between N/2 and
    N MiB before any benchmark code runs (another physical layout each);
    off by default. The process tree's largest resident set shows it."""
    probe = ("import resource, subprocess, sys; "
             "p = subprocess.run(sys.argv[1:], capture_output=True); "
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)")

    def peak_mib(*args):
        p = subprocess.run([sys.executable, "-c", probe, str(EX / "x_plus_x"), *QUICK,
                            "--processes", "2", *args], capture_output=True, text=True, timeout=120)
        code, mib = map(int, p.stdout.split())
        assert code == 0, p.stderr
        return mib

    off, on = peak_mib(), peak_mib("--policy", "layout_mb=400")
    assert on >= 200 > off + 40, (off, on)


SETTLING = BUILD / "tests" / "programs" / "settling"


def turns_of(log):
    """The rows' calls (tests/programs/settling.c) as one string per
    process, in the order they came, such as 'rrrrffff'."""
    by = {}
    for line in log.read_text().split("\n"):
        if line:
            pid, row = line.split()
            by.setdefault(pid, []).append(row)
    return ["".join(v) for v in by.values()]


@pytest.mark.parametrize("policy,each", [(None, True), ("sample_turns=1", False)])
def test_over_processes_a_worker_runs_each_row_to_its_end(tmp_path, policy, each):
    """Over processes the processes are the turns: each runs the rows one
    after another (one letter's calls, then the other's), in an order of
    its own; with sample_turns=1 they take turns a sample each in every
    process, as in one."""
    log = tmp_path / "turns.log"
    args = [str(SETTLING), "--quiet", "--max-time", "0.3", "--processes", "12", "--json", "-"]
    if policy:
        args += ["--policy", policy]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "TURNS_LOG": str(log)})
    assert p.returncode == 0, p.stderr
    procs = turns_of(log)
    assert len(procs) == 12, procs
    switches = [sum(a != b for a, b in zip(s, s[1:])) for s in procs]
    if each:
        assert switches == [1] * 12, procs
        # Orders of their own: all twelve alike would be 1 in 2048.
        assert len({s[0] for s in procs}) == 2, "every worker ran the rows in the same order"
    else:
        assert all(n >= 4 for n in switches), procs


def test_a_later_worker_warms_up_until_its_samples_settle(tmp_path):
    """A body whose first iterations in a process are cheaper (a cache its
    setup filled): the first process warms up for the whole warmup; with
    --policy settle=2 a later one warms up until two warmup samples agree,
    so its first sample reads the settled cost as the first process's do.
    By default (off) a later worker takes one warmup sample, and its first
    timed sample falls in the transient. (The transient's doublings are
    sized for samples of 1 ms.)"""
    def firsts(*extra):
        p = subprocess.run([str(SETTLING), "--quiet", "--filter", "ramp", "--max-time", "0.4",
                            "--warmup", "0.08", "--processes", "4", "--min-sample-time", "0.001",
                            "--json", "-", *extra],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        b = json.loads(p.stdout)["benchmarks"][0]
        # Each later process's first timed sample against the median of
        # its own later ones: the settled cost in the state the machine
        # was in for that process (the first process's samples, taken
        # earlier, once read 25-38% dearer than all three later ones).
        first, later = {}, {}
        for x in b["samples"]:
            if x["process"] in first:
                later.setdefault(x["process"], []).append(x["value"])
            else:
                first[x["process"]] = x["value"]
        return [first[k] / statistics.median(later[k]) for k in sorted(first)
                if k > 0 and later.get(k)]

    # Most of them: two warmup samples can agree by chance while a
    # neighbour slows the machine (one of three read 0.40 on a loaded host).
    # And the two must agree within twice the first process's spread: a
    # neighbour that spread its samples by 14% let two samples of the
    # transient, a fifth apart, agree (two of three read 0.57 and 0.58,
    # about one run in fifty on a host whose core was shared by turns).
    # A run is tried again then, up to three: with the rule broken every
    # later process reads the transient in every run.
    tries = [firsts("--policy", "settle=2")]
    while not (len(tries[-1]) == 3 and sorted(tries[-1])[1] > 0.85) and len(tries) < 3:
        tries.append(firsts("--policy", "settle=2"))
    on = tries[-1]
    assert len(on) == 3 and sorted(on)[1] > 0.85, tries
    # The default: the first timed sample of a later process is cheaper.
    off = firsts()
    assert len(off) == 3 and min(off) < 0.6, off


def quantile8(values, p):
    """Hyndman and Fan's definition 8 of the p-quantile, as the engine's."""
    s = sorted(values)
    h = (len(s) + 1 / 3) * p + 1 / 3
    if h <= 1:
        return s[0]
    if h >= len(s):
        return s[-1]
    i = int(h)
    return s[i - 1] + (h - i) * (s[i] - s[i - 1])


def test_a_row_that_stopped_early_comes_back_at_the_end_of_the_run():
    """A row that reached its precision while another went on takes one
    more process at the end of the run (the late look), and the JSON says
    which of the run's processes each of its processes was; with --policy
    late_look=0 it stops where it first stopped. (wait_own=0: on a core
    shared with a busy sibling the row would otherwise go on with the other
    one, waiting for a core of its own, and have no early stop to leave.)"""
    prog = BUILD / "tests" / "programs" / "two_paces"
    for policy, late in (("late_look=1,wait_own=0", True), ("late_look=0,wait_own=0", False)):
        # A busy moment can keep "steady" from its precision through the
        # whole run (it then runs in every process, with no early stop to
        # look at): up to three runs for one where it stopped early.
        for _ in range(3):
            p = subprocess.run([str(prog), "--quiet", "--max-time", "0.5", "--precision", "5",
                                "--policy", policy, "--json", "-"],
                               capture_output=True, text=True, timeout=120, check=True)
            d = json.loads(p.stdout)
            validate(d, "results-1.json")
            count = d["processes"]["count"]
            rows = {b["name"]: b for b in d["benchmarks"]}
            if len(rows["steady"]["processes"]) < count:
                break
        varies = [q["run_process"] for q in rows["varies"]["processes"]]
        assert varies == list(range(len(varies))), varies
        assert rows["steady"]["stop"] == "precision"
        steady = [q["run_process"] for q in rows["steady"]["processes"]]
        assert steady == sorted(steady) and max(steady) < count, (steady, count)
        gaps = [b - a for a, b in zip(steady, steady[1:]) if b - a > 1]
        if late:
            # It came back after every other row was done: the run's last
            # processes are its own.
            assert len(gaps) == 1 and max(steady) == count - 1, (steady, varies, count)
            assert steady[-1] > max(varies)
        else:
            assert not gaps and max(steady) < max(varies), (steady, varies)


def test_a_low_quantile_of_the_processes_is_the_headline(tmp_path):
    """By default each row's headline is the 25% quantile of its processes'
    values in the headline's unit, its interval about it, and the JSON says
    which quantile (0.5 with --policy head_low=50, their median); vernier
    compare of such a file takes the same quantile of the processes."""
    runs = {}
    for policy, q in ((None, 0.25), ("head_low=50", 0.5)):
        args = ["--processes", "6"] + (["--policy", policy] if policy else [])
        d, _ = results("sum_arrays", *args)
        path = tmp_path / f"{q}.json"
        path.write_text(json.dumps(d))
        runs[q] = (d, path)
        for b in d["benchmarks"]:
            h = b["headline"]
            assert h["quantile"] == q
            key = "cycles" if h["unit"] == "cycles" else "value"
            # The processes the headline rests on: not left out, and each
            # with a headline of its own (not an upper bound).
            values = [p[key] for p in b["processes"] if not p["left_out"] and not p["upper_bound"]]
            assert len(values) >= 2
            assert h["value"] == pytest.approx(quantile8(values, q), rel=1e-9), (b["name"], h,
                                                                                 b["processes"])
            assert h["ci"][0] <= h["value"] <= h["ci"][1]
    d, path = runs[0.25]
    p = run_vernier("compare", str(path), str(path), "--json", "-")
    c = json.loads(p.stdout)
    for row in c["benchmarks"]:
        b = next(b for b in d["benchmarks"] if b["name"] == row["name"])
        assert row["method"] == "processes" and row["ratio"] == 1
        # In the headline's unit, or in the one the processes hold steadier
        # (unit_by), which the headline gives too.
        side = row["base"]["cycles"] if row["unit"] == "cycles" else row["base"]["median_ns"]
        assert (row["unit"] == b["headline"]["unit"]) == (row["unit_by"] == "headline"), row
        want = b["headline"]["units"][row["unit"]]["value"]
        assert side == pytest.approx(want, rel=1e-9), (row, b["processes"])


def test_explain_says_what_the_time_of_processes_is():
    # --explain says once which quantile of its processes a row's time is,
    # as the run took it.
    for policy, said in ((None, "A row's time is the 25% quantile of its processes' values"),
                         ("head_low=50", "A row's time is the median of its processes' values.")):
        args = ["--processes", "3", "--explain"] + (["--policy", policy] if policy else [])
        p = run_ex("sum_arrays", *QUICK, *args, check=0)
        text = " ".join(p.stdout.split())
        assert said in text, p.stdout
    p = run_ex("sum_arrays", *QUICK, "--processes", "1", "--explain", check=0)
    assert "A row's time is" not in " ".join(p.stdout.split())


def test_progress_bar_on_a_terminal_only():
    # Two rows one after the other in this process: the bar names each,
    # counts rows done of two, and says the time left once a row has ended;
    # the line is wiped before the report. Not with --quiet, nor off a
    # terminal.
    argv = [str(EX / "sum_arrays"), "--no-interleave", "--max-time", "0.3", "--processes", "1"]
    err, proc = stderr_on_a_terminal(argv)
    assert proc.returncode == 0, err
    bars = re.findall(r"(two_loops|merged_loop)\s+\[[#-]+\]\s+(\d)/2", err)
    assert [b[0] for b in bars] == ["two_loops", "merged_loop"], err
    assert [b[1] for b in bars] == ["0", "1"]
    assert re.search(r"merged_loop\s+\[[#-]+\]\s+1/2\s+ETA", err), err
    assert err.endswith("\r\x1b[K")
    err, proc = stderr_on_a_terminal(argv + ["--quiet"])
    assert proc.returncode == 0 and "[#" not in err and "/2" not in err, err
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "\x1b[K" not in p.stderr
    # Over processes: the bar names the process that runs, and counts the
    # rows done of two, up to both.
    err, proc = stderr_on_a_terminal(argv[:-2] + ["--processes", "3"])
    assert proc.returncode == 0, err
    bars = re.findall(r"process (\d+)\s+\[[#-]+\]\s+(\d)/2", err)
    assert [b[0] for b in bars] == ["1", "2", "3"], err
    assert err.endswith("\r\x1b[K")


def test_cpu_time_follows_the_wall_time_of_code_that_computes():
    d, _ = results("random_work")
    b = d["benchmarks"][0]
    # On the CPU the whole sample: CPU time per iteration (the median of
    # the samples not left out, pooled over the processes) about the
    # median wall time of the same samples (never much over it; under it
    # only by what preemption took, and preempted samples are left out of
    # both). Not the headline: that is a quantile of the processes' own
    # medians, the lower quartile by default, which sits below the pooled
    # median by as much as the processes differ (24% under the sanitizers).
    wall = [s["value"] for s in b["samples"] if not set(s["tags"]) & set(b["left_out"])]
    assert 0.5 < b["cpu_ns"] / statistics.median(wall) < 1.2
    # The headline rests on the samples of its kept processes (those on a
    # core of their own, or all of them when fewer than two had one) that
    # carry no tag it leaves out.
    out = {i for i, p in enumerate(b["processes"]) if p["left_out"]}
    assert b["headline_samples"] == sum(1 for s in b["samples"]
                                        if not set(s["tags"]) & set(b["left_out"])
                                        and s["process"] not in out)


def test_dma_latency_is_held_and_recorded():
    dma = "/dev/cpu_dma_latency"
    held = os.path.exists(dma) and os.access(dma, os.W_OK)
    d, _ = results("sleep_10ms", "--min-samples", "5", "--dma-latency", "9")
    # The value in force, or null when it could not be held (not root).
    assert d["config"]["dma_latency_us"] == (9 if held else None)
    d, _ = results("sleep_10ms", "--min-samples", "5", "--dma-latency", "off")
    assert d["config"]["dma_latency_us"] is None
    # By default: 0 in a VM, nothing on bare metal.
    d, _ = results("sleep_10ms", "--min-samples", "5")
    vm = d["env"]["hypervisor"]["present"] is True
    assert d["config"]["dma_latency_us"] == (0 if vm and held else None)


def test_random_work_median_is_sharp_and_tagged_samples_are_kept():
    d, _ = results("random_work")
    b = d["benchmarks"][0]
    # The headline's samples are those without a tag it leaves out; the
    # others stay in the raw data.
    left_out = set(b["left_out"])
    assert b["stats"]["n"] == sum(1 for s in b["samples"] if not left_out & set(s["tags"]))
    assert b["tagged"] == sum(1 for s in b["samples"] if s["tags"])
    assert b["shared_core"] == sum("shared_core" in s["tags"] for s in b["samples"])
    assert all(s["iters"] == b["iters"] for s in b["samples"])
    assert b["stats"]["median_ci"][0] <= b["stats"]["median"] <= b["stats"]["median_ci"][1]
    assert b["stop"] in ("precision", "max_time", "max_processes", "processes_vary")


def test_min_sample_time_sizes_the_samples():
    """A sample lasts at least --min-sample-time: the batch doubles until
    it does, and calibration keeps the size in every process."""
    sizes = {}
    for t in ("0.0001", "0.004"):
        d, _ = results("random_work", "--min-sample-time", t, "--processes", "2")
        assert d["config"]["min_sample_time"] == float(t)
        b = d["benchmarks"][0]
        assert b["error"] is None and all(s["iters"] == b["iters"] for s in b["samples"])
        gross = (b["stats"]["median"] + b["overhead"]["ns"]) * b["iters"] / 1e9
        # The first sample to reach the threshold is taken again, so the
        # median sample reaches it too, give or take the machine's noise.
        assert gross >= 0.7 * float(t), (t, gross)
        sizes[t] = b["iters"]
    # The shorter one unless 1000 reads of the timer take longer: then the
    # timer's cost sizes it. By doubling, 40 times the time is about 32 to
    # 64 times the iterations.
    c = d["clock"]
    short = max(1e-4, 1000 * (c["cost_ns"] + c["resolution_ns"]) / 1e9)
    assert 0.4 * 0.004 / short <= sizes["0.004"] / sizes["0.0001"] <= 3.2 * 0.004 / short, sizes


def test_parameter_range_and_throughput():
    d, _ = results("memcpy_throughput")
    names = [b["name"] for b in d["benchmarks"]]
    assert names == ["copy/size=8", "copy/size=64", "copy/size=512", "copy/size=4096", "copy/size=8192"]
    for b in d["benchmarks"]:
        size = b["params"]["size"]
        assert b["throughput"]["bytes_per_iter"] == size
        if not b["upper_bound"]:
            assert b["throughput"]["bytes_per_sec"] == pytest.approx(size / (b["stats"]["median"] * 1e-9))


def test_threads_start_together_and_report_each():
    d, _ = results("atomic_counter", "--threads", "2")
    for b in d["benchmarks"]:
        assert b["threads"]["count"] == 2
        assert len(b["threads"]["median_ns"]) == 2
        assert {s["thread"] for s in b["samples"]} == {0, 1}
        # Each thread's median is of its samples as measured, the loop
        # included; together counts the iterations each thread ran over the
        # wall time it ran them in, so no thread is credited with more than
        # its fastest sample's rate.
        used = [s for s in b["samples"] if not set(s["tags"]) & set(b["left_out"])]
        fastest = []
        for t in (0, 1):
            mine = sorted(s["value"] for s in used if s["thread"] == t)
            if mine:
                assert b["threads"]["median_ns"][t] == pytest.approx(float(np.median(mine)), rel=1e-12)
            else:  # every sample of this thread was left out (a busy machine)
                assert b["threads"]["median_ns"][t] is None
            fastest.append(min(s["value"] for s in b["samples"] if s["thread"] == t))
        assert 0 < b["threads"]["total_iter_per_sec"] <= sum(1e9 / f for f in fastest)


def test_more_threads_than_cpus_take_turns():
    # Eight threads on the CPUs this process may use: they take turns, and
    # together they cannot run more iterations a second than that many CPUs
    # at the fastest sample's rate (a sum of per-thread rates from their
    # medians read eight times one CPU's). The warning says they shared.
    ncpu = len(os.sched_getaffinity(0))
    d, _ = results("random_work", "--threads", str(4 * ncpu))
    b = d["benchmarks"][0]
    fastest = min(s["value"] for s in b["samples"])
    assert b["threads"]["total_iter_per_sec"] <= 1.25 * ncpu * 1e9 / fastest
    ids = [w["id"] for w in b["warnings"]]
    assert "threads_oversubscribed" in ids


def test_cold_runs_one_iteration_per_sample():
    d, _ = results("memcpy_throughput", "--cold", "--filter", "size=8192$", "--max-time", "0.1")
    b = d["benchmarks"][0]
    assert b["iters"] == 1
    assert d["config"]["cold"] is True


def test_cpu_pinning_and_timer_choice():
    cpu = sorted(os.sched_getaffinity(0))[-1]
    d, _ = results("x_plus_x", "--cpu", str(cpu), "--timer", "monotonic")
    assert d["config"]["cpu"] == cpu
    assert d["clock"]["name"] == "monotonic"
    assert all(not s["tags"] or "migrated" not in s["tags"] for s in d["benchmarks"][0]["samples"])


def test_reference_cycle_does_not_depend_on_the_timer():
    # The reference add loop is timed with the run's timer; a costly one (a
    # system call, cpuid;rdtsc under a hypervisor: microseconds, a hundred on
    # some hosts) must not make the reference cycle longer, and every cycle
    # count smaller: cpuid;rdtsc once made them three times too few here, and
    # a third too few on a host where it costs about 100 us. A chain of 1000
    # dependent adds is 1000 cycles on any core and at any clock rate; a core
    # shared with another hardware thread can only make it read more (8%
    # more was seen here), never fewer; so can a sample the thread spent
    # partly off the CPU (a costly timer leaves few samples, and the headline
    # then keeps preempted ones), so the fastest sample is what is checked,
    # against the run's reference (one sample's own may be off by a few %).
    prog = BUILD / "bench" / "bench_workloads"
    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("the reference add loop exists on x86-64 and arm64 only")
    timers = ["tsc_lfence", "monotonic_syscall", "tsc_cpuid"] if platform.machine() == "x86_64" else \
        ["cntvct", "monotonic", "monotonic_syscall"]
    for timer in timers:
        p = subprocess.run([str(prog), *QUICK, "--filter", "^chain1000$", "--timer", timer, "--json", "-"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, (timer, p.stderr)
        b = json.loads(p.stdout)["benchmarks"][0]
        fastest = (min(s["value"] for s in b["samples"]) - b["overhead"]["ns"]) / b["ref"]["ns_per_cycle"]
        # Too short a reference (a read's cost taken off more than once)
        # would read too many.
        assert 0.85 * 1000 <= fastest <= 1.15 * 1000, (timer, fastest, b["cycles"], b["ref"])
    # A timer whose step is a large part of any span allowed gives no
    # reference at all, rather than one that is off by its step.
    p = subprocess.run([str(prog), *QUICK, "--filter", "^chain100$", "--timer", "monotonic_coarse",
                        "--json", "-"], capture_output=True, text=True, timeout=120)
    b = json.loads(p.stdout)["benchmarks"][0]
    assert b["ref"]["ns_per_cycle"] is None and b["cycles"] is None
    assert all(s["ref_ns"] is None for s in b["samples"])


def test_list_and_filter():
    p = run_ex("memcpy_throughput", "--list", check=0)
    assert p.stdout.split() == ["copy/size=8", "copy/size=64", "copy/size=512", "copy/size=4096",
                                "copy/size=8192"]
    p = run_ex("atomic_counter", "--list", "--filter", "^private", check=0)
    assert p.stdout.split() == ["private_increment"]


def test_csv_markdown_and_hist(tmp_path):
    csv, md = tmp_path / "r.csv", tmp_path / "r.md"
    p = run_ex("x_plus_x", *QUICK, "--csv", str(csv), "--markdown", str(md), "--hist", check=0)
    rows = csv.read_text().strip().splitlines()
    assert len(rows) == 2 and rows[1].startswith("x_plus_x,")
    assert re.search(r"^\| x\\_plus\\_x \| ", md.read_text(), re.M)  # Markdown escapes _
    assert "│" in p.stdout  # the distribution graph
    raw = tmp_path / "raw.csv"
    run_ex("x_plus_x", *QUICK, "--csv", str(raw), "--raw", check=0)
    lines = raw.read_text().strip().splitlines()
    assert len(lines) > 10  # one row per sample
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.md", "raw.csv"]


@pytest.mark.parametrize("args,needle", [
    (["--bogus"], "unknown option '--bogus'"),
    (["--precision", "0"], "--precision"),
    (["--precision", "abc"], "--precision"),
    (["--max-time", "-1"], "--max-time"),
    (["--min-samples", "2.5"], "--min-samples"),
    (["--min-sample-time", "0"], "--min-sample-time needs a number from"),
    (["--threads", "0"], "--threads"),
    (["--timer", "sundial"], "sundial"),
    (["--filter", "("], "--filter"),
    (["--raw"], "--raw"),
    (["--json"], "needs a value"),
    (["extra"], "unexpected argument"),
    (["--cpu", "4096"], "--cpu"),
    (["--dma-latency", "-3"], "--dma-latency"),
    (["--dma-latency", "1ms"], "--dma-latency"),
    (["--max-samples", "5"], "--max-samples (5) must be at least --min-samples (10)"),
    (["--list=yes"], "option '--list' takes no value"),
    (["--quiet", "-xq"], "unknown option '-x'"),
    (["--json", "same", "--csv", "same"], "--json and --csv would both write 'same'"),
    (["--quiet=1"], "option '--quiet' takes no value"),
    (["--max", "1"], "option '--max' is ambiguous: it could be --max-time, --max-samples"),
    (["--bogus=3"], "unknown option '--bogus'"),
    (["--json", ""], "--json needs a file name, or '-' for standard output"),
    (["--csv="], "--csv needs a file name"),
    (["--filter", "^nothing$"], "--filter '^nothing$' matches no benchmark"),
    (["--list", "--filter", "^nothing$"], "matches no benchmark (drop it to list them all)"),
    # Counts and CPU numbers are written in decimal digits: what strtod would
    # also take (hex, exponents, signs, spaces) is refused, with one message.
    (["--cpu", "0x1"], "--cpu needs a CPU number from 0 to"),
    (["--cpu", "1e0"], "--cpu needs a CPU number from 0 to"),
    (["--cpu", "+1"], "--cpu needs a CPU number from 0 to"),
    (["--cpu", " 1"], "--cpu needs a CPU number from 0 to"),
    (["--cpu", "1.5"], "--cpu needs a CPU number from 0 to"),
    (["--threads", "2e0"], "--threads needs a whole number from 1 to 1024, not '2e0'"),
    (["--min-samples", "1" + "0" * 20], "--min-samples needs a whole number"),
    (["--dma-latency", " 5"], "--dma-latency needs 'auto', 'off' or microseconds"),
    (["--max-time", " 0.1"], "--max-time needs a number"),
    # A CPU-time clock cannot time threads together.
    (["--threads", "2", "--timer", "process_cputime"], "--threads needs a clock of elapsed time"),
    (["--threads", "2", "--timer", "thread_cputime"], "--threads needs a clock of elapsed time"),
    (["--threads", "2", "--timer", "rusage"], "--threads needs a clock of elapsed time"),
])
def test_usage_errors_exit_2(args, needle):
    p = run_ex("x_plus_x", *args)
    assert p.returncode == 2, (args, p.stderr)
    assert needle in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert "--help" in p.stderr


def test_help_lists_every_option():
    p = run_ex("x_plus_x", "--help", check=0)
    for opt in ("--list", "--filter", "--json", "--csv", "--markdown", "--hist", "--precision",
                "--max-time", "--min-samples", "--min-sample-time", "--cpu", "--timer", "--threads", "--cold", "--dma-latency",
                "--help"):
        assert opt in p.stdout, opt
    # Every description starts in one column, after at least two spaces,
    # the longest option's too.
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith("  --")]
    starts = {re.search(r"\S  +(?=\S)", ln).end() for ln in rows}
    assert len(starts) == 1, rows
    assert run_ex("x_plus_x", "-h", check=0).stdout == p.stdout


def test_a_cpu_not_allowed_names_the_allowed_ones():
    allowed = sorted(os.sched_getaffinity(0))
    p = run_ex("x_plus_x", "--cpu", str(max(allowed) + 1))
    assert p.returncode == 2
    listed = re.search(r"it may use CPUs ([0-9,-]+)\)", p.stderr).group(1)
    named = set()
    for part in listed.split(","):
        lo, _, hi = part.partition("-")
        named.update(range(int(lo), int(hi or lo) + 1))
    assert named == set(allowed)


@pytest.mark.parametrize("args", [[*QUICK, "--max-time", "0.05"], ["--list"], ["--help"]])
def test_unwritable_standard_output_fails(args):
    # A report, a list or the help that cannot be written is a failure, not
    # a silent success.
    with open("/dev/full", "w") as full:
        p = subprocess.run([str(EX / "x_plus_x"), *args], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    assert p.returncode == 1, p.stderr
    # One line that says why: the disk of /dev/full is full.
    line = one_line(p.stderr)
    assert line.startswith("x_plus_x: ") and os.strerror(errno.ENOSPC) in line


def test_unwritable_output_fails_and_leaves_nothing(tmp_path):
    target = tmp_path / "no" / "r.json"
    p = run_ex("x_plus_x", *QUICK, "--json", str(target))
    assert p.returncode == 1
    line = one_line(p.stderr)
    assert str(target) in line and os.strerror(errno.ENOENT) in line
    assert not target.parent.exists()


def test_a_directory_that_takes_no_new_file_fails_before_measuring():
    # /proc/version exists and root passes access() on /proc, but no file can
    # be made beside it: found before any benchmark runs (the progress line
    # and the table never appear), with what to do.
    p = run_ex("x_plus_x", "--json", "/proc/version")
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == [
        "x_plus_x: cannot write '/proc/version': its directory '/proc' takes no new files; choose a "
        "path in a directory you can write"]
    assert p.stdout == ""


def test_a_report_that_cannot_be_written_says_why():
    with open("/dev/full", "w") as full:
        p = subprocess.run([str(EX / "x_plus_x"), "--max-time", "0.05"], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 1
    line = one_line(p.stderr)
    assert line.startswith("x_plus_x: ") and line.endswith(os.strerror(errno.ENOSPC))


def interrupted_run(cmd, out, after, ready=None, env=None, sig=signal.SIGINT):
    """Runs cmd, sends sig after `after` seconds (counted from the line
    `ready` on its stderr, when given), and returns the seconds it took to
    end after that, the results file it wrote (which must be valid and marked
    interrupted, with exit code 128 + sig: 130 for SIGINT) and its stderr."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=None if env is None else {**os.environ, **env})
    head = ""
    if ready is not None:
        while ready not in head:
            line = proc.stderr.readline()
            assert line, f"the program ended before saying {ready!r}: {head}"
            head += line
    else:
        # Started: it has set up its signals.
        wait_until(lambda: catches(proc.pid, sig) or proc.poll() is not None,
                   what="the program's signal handlers")
    time.sleep(after)  # how long it measures before the signal: part of the test, not a wait
    start = time.monotonic()
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    stderr = head + stderr
    took = time.monotonic() - start
    assert proc.returncode == 128 + sig, stderr
    d = json.loads(out.read_text())
    validate(d, "results-1.json")
    assert d["interrupted"] is True
    return took, d, stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interrupt_writes_complete_results(tmp_path, sig):
    # SIGTERM and SIGHUP (a closed terminal) end a run as Ctrl-C does.
    out = tmp_path / "r.json"
    # 2 s of measuring (more than 10 samples of 10 ms) once it has started.
    took, d, stderr = interrupted_run([str(EX / "sleep_10ms"), "--quiet", "--max-time", "30", "--precision",
                                       "0.001", "--min-samples", "100000", "--max-samples", "100000",
                                       "--json", str(out)], out, 2.0, sig=sig)
    assert "interrupted" in stderr
    assert d["benchmarks"][0]["stop"] == "interrupted"
    assert len(d["benchmarks"][0]["samples"]) > 10
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.mark.parametrize("order", ["--interleave", "--no-interleave"])
def test_interrupt_during_warmup_stops_at_once(tmp_path, order):
    # A 30 s warmup, stopped after 0.5 s: the run ends within seconds, not
    # at the end of the warmup, and the row says it was interrupted.
    out = tmp_path / "r.json"
    took, d, _ = interrupted_run([str(EX / "sum_arrays"), "--quiet", order, "--warmup", "30", "--json",
                               str(out)], out, 0.5)
    assert took < 5, "the warmup went on after Ctrl-C"
    first = d["benchmarks"][0]
    assert first["stop"] == "interrupted" and first["samples"] == []
    assert first["overhead"]["ns"] is None


def test_interrupt_during_calibration_stops_at_once(tmp_path):
    # Each iteration takes 3 s, so calibration takes two samples of one
    # iteration; a Ctrl-C 0.5 s into the first must end the run with it,
    # 2.5 s later, rather than start the second (5.5 s): the bound sits
    # between, with room for a busy machine on either side.
    out = tmp_path / "r.json"
    took, d, err = interrupted_run([str(BUILD / "tests" / "programs" / "slow_iteration"), "--quiet",
                                    "--max-time", "0.1", "--warmup", "0", "--json", str(out)], out, 0.5,
                                   ready="an iteration begins", env={"SLOW_ITERATION_S": "3"})
    assert took < 4.5, "calibration went on after Ctrl-C"
    assert err.count("an iteration begins") == 1, err
    assert d["benchmarks"][0]["stop"] == "interrupted" and d["benchmarks"][0]["samples"] == []


def test_a_signal_started_ignored_stays_ignored(tmp_path):
    # Started with SIGINT ignored (nohup, a background job without job
    # control), the program must not stop at a Ctrl-C meant for the
    # foreground: it runs to its end and exits 0.
    out = tmp_path / "r.json"
    proc = subprocess.Popen([str(EX / "sleep_10ms"), "--quiet", "--max-time", "1.5", "--precision", "0.001",
                             "--json", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    # Once it catches SIGTERM, it has set up its signals (and left SIGINT
    # ignored): the Ctrl-C comes after that.
    wait_until(lambda: catches(proc.pid, signal.SIGTERM) or proc.poll() is not None,
               what="the program's signal handlers")
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    d = json.loads(out.read_text())
    assert d["interrupted"] is False
    assert d["benchmarks"][0]["stop"] in ("max_time", "max_processes", "processes_vary")


def test_overlapping_runs_give_the_host_its_signal_handlers_back():
    # Two threads each in vn_suite_main, the second starting during the
    # first and ending after it: once both are done, SIGINT ends the
    # program again (tests/programs/two_mains.c raises it).
    p = subprocess.run([str(BUILD / "tests" / "programs" / "two_mains")], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == -signal.SIGINT, (p.returncode, p.stderr)


def test_too_many_min_samples_names_the_default_it_meets():
    p = run_ex("x_plus_x", "--min-samples", "20000")
    assert p.returncode == 2
    # The value, the default most it is over, and the option to raise.
    line = one_line(p.stderr)
    assert "--min-samples" in line and "20000" in line and "10000" in line and "--max-samples" in line, line


def test_sum_arrays_compares_the_two_loops():
    p = run_ex("sum_arrays", *QUICK, "--baseline", "two_loops", check=0, timeout=60)
    m = re.search(r"^merged_loop (is ([\d.]+)x (faster|slower) than|vs) two_loops", p.stdout, re.M)
    assert m, p.stdout
    assert m.group(2) is None or float(m.group(2)) >= 1.0


def test_a_suite_built_at_run_time_takes_every_option():
    # sum_arrays builds its suite with vn_suite_add and runs it with
    # vn_suite_main: the options, reports and exit codes of vn_main().
    assert run_ex("sum_arrays", "--list", check=0).stdout.split() == ["two_loops", "merged_loop"]
    p = run_ex("sum_arrays", "--max-time", "nope")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--max-time" in p.stderr
    d, p = results("sum_arrays", "--filter", "^merged")
    assert [b["name"] for b in d["benchmarks"]] == ["merged_loop"]
    assert d["benchmarks"][0]["throughput"]["bytes_per_iter"] == 2 * (1 << 14) * 4
    # With one of the two filtered out there is nothing to compare.
    assert d["benchmarks"][0]["baseline"] is None
    assert "usage:" in run_ex("sum_arrays", "--help", check=0).stdout


FAILING = r"""
#include <vernier.h>
static void fails(vn_state *st) {
    while (vn_next(st))
        vn_state_fail(st, "the input was rejected");
}
VN_BENCH(fails);
static void works(vn_state *st) {
    unsigned x = 1;
    while (vn_next(st)) { x = x * 3 + 1; vn_keep(x); }
}
VN_BENCH(works);
int main(int argc, char **argv) { return vn_main(argc, argv); }
"""


def compile_program(tmp_path, source, extra=()):
    """Builds a benchmark program against this build's static library."""
    src = tmp_path / "prog.c"
    src.write_text(source)
    exe = tmp_path / "prog"
    src_dir = Path(__file__).resolve().parents[2]
    subprocess.run(["cc", "-std=c11", "-O2", *extra, "-I", str(src_dir / "include"), str(src),
                    str(BUILD / "libvernier.a"), *link_libs(), "-o", str(exe)], check=True)
    return exe


def link_libs():
    """What a program needs next to libvernier.a in this build."""
    libs = ["-lpthread", "-lm"]
    pfm = cmake_cache("VN_PFM_LIB")
    if pfm and not pfm.endswith("NOTFOUND"):
        libs.append(pfm)
    if sanitized():
        libs.append("-fsanitize=address,undefined")
    return libs


def test_a_failed_benchmark_writes_valid_json(tmp_path):
    exe = compile_program(tmp_path, FAILING)
    p = subprocess.run([str(exe), *QUICK, "--json", "-"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1  # a benchmark failed
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    bad, good = d["benchmarks"]
    # The benchmark's own message, carried unchanged: its words are the subject.
    assert bad["error"] == "the input was rejected" and bad["stop"] == "failed"
    assert bad["cycles"] is None and bad["overhead"]["ns"] is None and bad["ref"]["ns_per_cycle"] is None
    assert good["error"] is None and good["stats"]["median"] > 0
    row = table_row(p.stderr, "fails")
    assert "failed" in row and bad["error"] in row


DUPLICATE = r"""
#include <vernier.h>
static void twice(vn_state *st) { while (vn_next(st)) vn_clobber(); }
VN_BENCH(twice);
/* A second registration under the same name, as a second file with its own
 * VN_BENCH(twice) would make. */
static vn_bench_def again = {"twice", twice, 0, 0};
__attribute__((constructor)) static void register_again(void) { vn__register(&again); }
int main(int argc, char **argv) { return vn_main(argc, argv); }
"""


NEWLINE_NAME = r"""
#include <vernier.h>
static void body(vn_state *st) { unsigned x = 1; while (vn_next(st)) { x += x; vn_keep(x); } }
int main(int argc, char **argv)
{
    vn_suite *s = vn_suite_create();
    vn_suite_add(s, "first\nrow", body, NULL);
    vn_suite_add(s, "second", body, NULL);
    int rc = vn_suite_main(s, argc, argv, NULL);
    vn_suite_destroy(s);
    return rc;
}
"""


def test_vernier_stats_reads_a_csv_with_a_line_break_in_a_name(tmp_path):
    # The CSV quotes a name holding a line break (as RFC 4180 allows), and
    # vernier stats reads its columns back.
    exe = compile_program(tmp_path, NEWLINE_NAME)
    csv_path = tmp_path / "r.csv"
    p = subprocess.run([str(exe), *QUICK, "--csv", str(csv_path)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    text = csv_path.read_text()
    assert '"first\nrow"' in text
    col = text.splitlines()[0].split(",").index("n") + 1
    p = subprocess.run([str(BUILD / "vernier"), "stats", "--column", str(col), "--json", "-", str(csv_path)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["name"] for r in rows] == ["first\nrow", "second"]
    assert json.loads(p.stdout)["stats"]["n"] == 2
    assert json.loads(p.stdout)["stats"]["max"] == max(float(r["n"]) for r in rows)


def test_a_duplicate_name_is_a_usage_error_that_names_it(tmp_path):
    exe = compile_program(tmp_path, DUPLICATE)
    p = subprocess.run([str(exe), "--quiet", "--json", str(tmp_path / "r.json")], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "'twice'" in p.stderr
    assert not (tmp_path / "r.json").exists()
    # The help needs no benchmark: it is shown, and the mistake too.
    p = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--max-time" in p.stdout and "'twice'" in p.stderr
    # Into a pipe nobody reads, the help is a write that fails, reported as
    # ever; SIGPIPE does not kill the program before the mistake is said.
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([str(exe), "--help"], stdout=w, stderr=subprocess.PIPE, text=True, timeout=60)
    os.close(w)
    assert p.returncode == 2, p.returncode
    assert os.strerror(errno.EPIPE) in p.stderr and "'twice'" in p.stderr


OWN_SETTINGS = r"""
#include <vernier.h>
static void own(vn_state *st) { while (vn_next(st)) vn_clobber(); }
VN_BENCH_OPTS(own, .max_time = 0.05, .precision = 5, .min_samples = 12, .timer = "monotonic");
static void plain(vn_state *st) { while (vn_next(st)) vn_clobber(); }
VN_BENCH(plain);
int main(int argc, char **argv) { return vn_main(argc, argv); }
"""


def test_each_row_records_the_settings_it_ran_with(tmp_path):
    exe = compile_program(tmp_path, OWN_SETTINGS)
    p = subprocess.run([str(exe), *QUICK, "--json", "-"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert rows["own"]["settings"] == {"max_time": 0.05, "precision": 5, "min_samples": 12, "timer": "monotonic"}
    assert rows["plain"]["settings"] == {"max_time": 0.2, "precision": 1, "min_samples": 10,
                                         "timer": d["clock"]["name"]}


def test_vn_bench_is_clean_under_pedantic(tmp_path):
    compile_program(tmp_path, FAILING, ["-Wall", "-Wextra", "-Wpedantic", "-Werror"])


WITH_OPTIONS = r"""
#include <vernier.h>
static void copy(vn_state *st)
{
    uint64_t x = 1;
    int64_t n = vn_state_param(st);
    while (vn_next(st)) {
        for (int64_t i = 0; i < n; i++)
            x = x * 6364136223846793005u + 1;
        vn_keep(x);
    }
}
VN_BENCH_WITH(copy, o) {
    o->param_name = "size";
    o->range_lo = 8;
    o->range_hi = 32;
    o->items_per_iter = 2;
    o->max_time = 0.05;
}
static void plain(vn_state *st)
{
    vn_rng r;
    vn_rng_seed(&r, 7);
    double sum = 0;
    while (vn_next(st)) {
        sum += vn_rng_double(&r);
        vn_keep(sum);
        vn_clobber();
    }
}
VN_BENCH(plain);
int main(int argc, char **argv) { return vn_main(argc, argv); }
"""


def test_options_by_statements_in_c_and_every_cpp_standard(tmp_path):
    # VN_BENCH_OPTS needs designated initializers, which C++ has only from
    # C++20 (and -Wextra faults the fields left out); VN_BENCH_WITH sets the
    # options by statements and must build warning-free in C11 and in C++11
    # to C++20 with both compilers, and register the parameter rows. The
    # header's inline code and macros must not trip C++'s own warnings
    # either (a C cast, 0 for a null pointer).
    flags = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
    cxx_flags = ["-Wold-style-cast", "-Wzero-as-null-pointer-constant"]
    exe = compile_program(tmp_path, WITH_OPTIONS, flags)
    src = tmp_path / "prog.cc"
    src.write_text(WITH_OPTIONS)
    libs = link_libs()
    built = 0
    for cxx in ("g++", "clang++"):
        if not shutil.which(cxx):
            continue
        for std in ("c++11", "c++14", "c++17", "c++20"):
            out = tmp_path / f"prog-{cxx}-{std}"
            subprocess.run([cxx, f"-std={std}", "-O2", *flags, *cxx_flags, "-I", str(SOURCE / "include"),
                            str(src), str(BUILD / "libvernier.a"), *libs, "-o", str(out)], check=True)
            built += 1
            exe = out
    assert built >= 4, "no C++ compiler: scripts/install-deps installs g++ and clang"
    p = subprocess.run([str(exe), *QUICK, "--json", "-"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert sorted(rows) == ["copy/size=16", "copy/size=32", "copy/size=8", "plain"]
    assert rows["copy/size=8"]["throughput"]["items_per_iter"] == 2
    assert rows["copy/size=8"]["settings"]["max_time"] == 0.05
    assert rows["plain"]["settings"]["max_time"] == 0.2


def test_one_output_per_stdout_and_threads_rules():
    p = run_ex("x_plus_x", "--json", "-", "--csv", "-")
    assert p.returncode == 2 and "'-'" in one_line(p.stderr) and "--help" in p.stderr
    p = run_ex("atomic_counter", "--threads", "2", "--cpu", "0")
    assert p.returncode == 2 and "--threads" in one_line(p.stderr) and "--cpu" in p.stderr
    p = run_ex("atomic_counter", "--threads", "2", "--cold")
    assert p.returncode == 2 and "--cold" in p.stderr
    p = run_ex("atomic_counter", "--threads", "2", "--interleave")
    assert p.returncode == 2 and "--interleave" in p.stderr


def test_one_file_under_two_spellings_and_stdout_by_name(tmp_path):
    # a.json and ./a.json are one file: the second output would overwrite
    # the first. Refused before the run, with both spellings named.
    p = subprocess.run([str(EX / "x_plus_x"), *QUICK, "--json", "a.json", "--csv", "./a.json"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 2
    line = one_line(p.stderr)
    assert "--json" in line and "'a.json'" in line and "--csv" in line and "'./a.json'" in line
    assert not (tmp_path / "a.json").exists()
    # /dev/stdout when standard output is a file: the JSON goes there as
    # with '-' (the table to standard error), and the file that holds it is
    # the one the shell opened, not a new one renamed over it.
    out, err = tmp_path / "out.json", tmp_path / "err.txt"
    with open(out, "w") as o, open(err, "w") as e:
        p = subprocess.run([str(EX / "x_plus_x"), *QUICK, "--json", "/dev/stdout"], stdout=o,
                           stderr=e, timeout=60)
        assert p.returncode == 0
        o.write("after\n")  # the shell's descriptor still names the file
    text = out.read_text()
    assert text.endswith("after\n")
    json.loads(text[:-len("after\n")])
    assert "benchmark" in err.read_text()
    p = run_ex("x_plus_x", *QUICK, "--json", "/dev/stdout", "--csv", "-")
    assert p.returncode == 2 and "'-'" in one_line(p.stderr) and "--help" in p.stderr


def test_a_reader_that_leaves_is_a_write_error_not_a_signal():
    # | head: the reader takes 10 bytes and leaves. The program must not die
    # of SIGPIPE (a host program would die with it): it says it could not
    # write, and exits 1.
    p = subprocess.Popen([str(EX / "memcpy_throughput"), *QUICK, "--min-samples", "300", "--csv", "-",
                          "--raw"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(10)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 1, err
    assert os.strerror(errno.EPIPE) in err


def test_interleaved_rows_each_keep_their_budget():
    # The memcpy example's five sizes take turns (the default); each row's
    # time is its own turns', so with a budget of 0.2 s none reads more
    # than about that, while the whole run holds all five.
    t0 = time.time()
    d, _ = results("memcpy_throughput")
    wall = time.time() - t0
    assert d["config"]["interleave"] is True
    rows = d["benchmarks"]
    assert [b["name"] for b in rows] == ["copy/size=8", "copy/size=64", "copy/size=512",
                                         "copy/size=4096", "copy/size=8192"]
    for b in rows:
        assert b["error"] is None and len(b["samples"]) >= 10
        # Past its budget a row ends within a few samples (the stop test runs
        # every n/32 samples past 64), however slow a loaded machine made
        # them; all five rows' turns would be about 1 s.
        longest = max(s["value"] * s["iters"] for s in b["samples"]) / 1e9
        assert b["elapsed_s"] < 0.75 or b["elapsed_s"] - 0.2 < 16 * longest, b["elapsed_s"]
    # Each row counts its own turns only: together they fit in the run.
    assert sum(b["elapsed_s"] for b in rows) <= wall
    d, _ = results("memcpy_throughput", "--no-interleave", "--interleave")
    assert d["config"]["interleave"] is True
    d, _ = results("memcpy_throughput", "--no-interleave")
    assert d["config"]["interleave"] is False
    # Threads started together take no turns: by default they run one row
    # after another, and the results say so.
    d, _ = results("atomic_counter", "--threads", "2")
    assert d["config"]["interleave"] is False and d["config"]["threads"] == 2


def test_a_coarse_timer_still_keeps_the_budget():
    t0 = time.time()
    d, _ = results("x_plus_x", "--timer", "monotonic_coarse", "--max-time", "0.3")
    assert time.time() - t0 < 10
    b = d["benchmarks"][0]
    assert any(w["id"] == "timer_bound" for w in b["warnings"])
    # A budget that only shortens samples below 1 ms, with a fine timer,
    # leaves the timer's error under 0.1% of each: no timer_bound then.
    # (0.2 s for 201 samples caps them at 0.995 ms, under the 1 ms minimum.)
    d, _ = results("random_work", "--min-samples", "200", "--max-time", "0.2", "--min-sample-time", "0.001")
    b = d["benchmarks"][0]
    assert d["clock"]["cost_ns"] + d["clock"]["resolution_ns"] < 0.995e3
    assert not any(w["id"] == "timer_bound" for w in b["warnings"])


REMOVED = r"""
#include <stdint.h>
#include <vernier.h>
static void nothing(vn_state *st) {
    while (vn_next(st)) {
    }
}
VN_BENCH(nothing);
static void kept(vn_state *st) {
    uint64_t x = 1;
    while (vn_next(st)) { x += x; vn_keep(x); }
}
VN_BENCH(kept);
int main(int argc, char **argv) { return vn_main(argc, argv); }
"""


def test_a_loop_the_compiler_removed_fails_at_once(tmp_path):
    # With nothing in it the compiler drops the loop: every sample takes
    # the same time however many iterations it asks for. Calibration sees
    # it instead of doubling to 2^40 iterations (then minutes a sample).
    if sanitized():
        pytest.skip("instrumented for the sanitizers, the loop is kept (the engine's side is "
                    "tested with a fake clock in test_engine)")
    exe = compile_program(tmp_path, REMOVED)
    start = time.monotonic()
    p = subprocess.run([str(exe), *QUICK, "--json", "-"], capture_output=True, text=True, timeout=120)
    assert time.monotonic() - start < 30
    assert p.returncode == 1, p.stderr
    rows = {b["name"]: b for b in json.loads(p.stdout)["benchmarks"]}
    assert rows["nothing"]["stop"] == "failed"
    # It says how many iterations took as long as 1024 times fewer, and the fix.
    why = rows["nothing"]["error"]
    counts = [int(n) for n in re.findall(r"\b\d+\b", why)]
    assert any(a == 1024 * b > 0 for a in counts for b in counts), why
    assert "vn_keep()" in why
    assert rows["kept"]["stop"] != "failed"


@pytest.fixture(scope="module")
def comma_locale(tmp_path_factory):
    """A locale whose decimal point is a comma (de_DE), compiled into a
    folder of its own with localedef, so no system locale is needed."""
    if not shutil.which("localedef"):
        pytest.skip("localedef is missing (Debian package libc-bin); scripts/install-deps installs it")
    d = tmp_path_factory.mktemp("locales")
    p = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", str(d / "de_DE.UTF-8")],
                       capture_output=True, text=True)
    if not (d / "de_DE.UTF-8").exists():
        pytest.skip(f"localedef could not build de_DE.UTF-8 (Debian package locales): {p.stderr.strip()}")
    return {"LOCPATH": str(d), "LC_ALL": "de_DE.UTF-8"}


def test_a_host_programs_locale_changes_no_number(comma_locale, tmp_path):
    # A program that calls setlocale(LC_ALL, "") under de_DE: its printf
    # writes 1,5. vn_main() must still take --max-time 0.2, write JSON
    # numbers and CSV fields with a dot, and give the host its locale back.
    prog = BUILD / "tests" / "programs" / "locale_host"
    j, c, m = tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.md"
    p = subprocess.run([str(prog), *QUICK, "--json", str(j), "--csv", str(c), "--markdown", str(m)],
                       capture_output=True, text=True, timeout=120, env={**os.environ, **comma_locale})
    assert p.returncode == 0, (p.stdout, p.stderr)
    before, table = p.stdout.split("\n", 1)  # the program's first line, then vn_main()'s
    assert before.endswith(": ,")  # the locale is in effect
    assert "after: 1,5" in p.stdout               # and back after vn_main()
    d = json.loads(j.read_text())
    validate(d, "results-1.json")
    assert [b["name"] for b in d["benchmarks"]] == ["chain/n=1", "chain/n=2"]
    assert all(b["stats"]["median"] > 0 for b in d["benchmarks"])
    rows = list(csv.reader(c.read_text().splitlines()))
    assert len(rows) == 3 and all(len(r) == len(rows[0]) for r in rows)
    # (A row may be an upper bound, whose median cell is empty: in the
    # sanitized build the loop around 8 multiplies is slow.)
    for r in rows[1:]:
        assert not any(re.fullmatch(r"-?\d+,\d+", f) for f in r), r
        assert any(re.fullmatch(r"-?\d+\.\d+(e[-+]\d+)?", f) for f in r), r
    # The console and markdown tables, too, read as the JSON does.
    assert re.search(r"\d\.\d+ ns", table) and not re.search(r"\d,\d+ ns", table)
    assert not re.search(r"\d,\d", m.read_text())


def test_names_and_messages_that_are_not_plain_ascii():
    # Wide characters keep the table aligned, a byte that is not UTF-8
    # becomes U+FFFD in the JSON (which stays valid UTF-8) and '?' on the
    # terminal, and no control character of a name or a failure message
    # reaches the terminal.
    prog = BUILD / "tests" / "programs" / "odd_names"
    p = subprocess.run([str(prog), *QUICK, "--json", "-"], capture_output=True, timeout=120)
    assert p.returncode == 1, p.stderr  # the failing benchmark
    d = json.loads(p.stdout.decode("utf-8"))
    validate(d, "results-1.json")
    names = [b["name"] for b in d["benchmarks"]]
    assert names == ["sort/日本", "sort/caf\ufffd", "sort/tab\there", "sort/plain", "broken"]
    # The failure message's own bytes, as each output carries them, are the subject here.
    assert d["benchmarks"][4]["error"] == "line one\nline two \x1b[31mred\x1b[0m caf\ufffd"
    table = p.stderr.decode("utf-8")
    assert "\x1b" not in table and "\t" not in table
    rows = {line.split()[0]: line for line in table.splitlines()
            if line.startswith(("sort/", "broken")) and not line.split()[0].endswith(":")}
    assert set(rows) == {"sort/日本", "sort/caf?", "sort/tab?here", "sort/plain", "broken"}
    # (the same message, its control characters and the byte shown as '?')
    assert "failed: line one?line two ?[31mred?[0m caf?" in rows["broken"]
    # The markdown file and --list get the same treatment.
    md = subprocess.run([str(prog), *QUICK, "--markdown", "-"], capture_output=True, timeout=120)
    text = md.stdout.decode("utf-8")
    assert "\x1b" not in text and "\t" not in text and "sort/caf?" in text and "sort/日本" in text
    listed = subprocess.run([str(prog), "--list"], capture_output=True, timeout=60).stdout.decode("utf-8")
    assert listed.split("\n")[:5] == ["sort/日本", "sort/caf?", "sort/tab?here", "sort/plain", "broken"]

    def column_of_median(line):
        # Where the median cell ends (it is right-aligned: "< 1.3 ns" and
        # "40.0 ns" end together), in terminal columns: 2 for each wide
        # character.
        cut = re.search(r"\d (ns|us|ms|s)\b", line).end()
        return len(line[:cut]) + sum(1 for ch in line[:cut] if ord(ch) >= 0x3000)
    cols = {column_of_median(rows[n]) for n in rows if n != "broken"}
    assert len(cols) == 1, rows
