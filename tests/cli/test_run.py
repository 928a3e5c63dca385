"""End-to-end tests of `vernier run`: deterministic reports through the fake
executor, then real runs: per-run memory, interleaving, parameters, and
every failure the issue names."""
import errno
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import (VERNIER, lines_in, one_line_error, pid_gone, quantities, run, run_summaries,
                      next_run, sanitized, validate, wait_until)

PY = sys.executable


def fake(tmp_path, lines):
    p = tmp_path / "fake.txt"
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def cpu_list(cpus):
    """CPU numbers as Linux and vernier write a list of them: "0-3,6"."""
    out, cpus = [], sorted(cpus)
    while cpus:
        last = 0
        while last + 1 < len(cpus) and cpus[last + 1] == cpus[last] + 1:
            last += 1
        out.append(f"{cpus[0]}-{cpus[last]}" if last else str(cpus[0]))
        cpus = cpus[last + 1:]
    return ",".join(out)


def comparison(console):
    """The lines of the console's comparison: the fastest command's, then
    one a command it was compared with."""
    lines = console.splitlines()
    start = lines.index("Comparison") + 1
    end = lines.index("", start)
    return lines[start:end]


# ---- Deterministic: the fake executor ----------------------------------------

def test_fake_runs_give_exact_statistics(tmp_path):
    f = fake(tmp_path, ["10 4 1 2048 0", "12 4 1 2048 0", "11 4 1 2048 0", "13 4 1 4096 0", "9 4 1 2048 0"])
    p = run("run", "--fake-exec", f, "--runs", "5", "--json", "-", "prog --flag", check=0)
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    b = d["benchmarks"][0]
    assert b["name"] == "prog --flag"
    assert [s["value"] for s in b["samples"]] == [10e6, 12e6, 11e6, 13e6, 9e6]
    assert b["stats"]["median"] == 11e6
    assert b["stats"]["min"] == 9e6 and b["stats"]["max"] == 13e6
    assert [s["maxrss_kib"] for s in b["samples"]] == [2048, 2048, 2048, 4096, 2048]
    assert all(s["user"] == 4e6 and s["sys"] == 1e6 and s["exit_status"] == 0 and s["signal"] is None
               for s in b["samples"])
    assert b["stop"] == "max_samples"
    # --runs 5 fixes both the fewest and the most.
    assert d["config"]["min_samples"] == 5 and d["config"]["max_samples"] == 5
    # The console summary went to stderr, since stdout carries the JSON:
    # the median, then the mean CPU times and the median peak memory.
    rows = run_summaries(p.stderr)["prog --flag"]
    assert quantities(rows["median"])[0] == "11.0 ms"
    assert quantities(rows["user"]) == ["4.00 ms", "1.00 ms", "2.0 MiB"]


def test_the_interval_is_for_the_next_run(tmp_path):
    """A command's headline carries the next run's interval (its runs'
    median's own, widened by sqrt(2) on the log scale) and the estimate's
    own, and the console shows the first with the second beside it."""
    f = fake(tmp_path, [f"{10 + (i * 7) % 5} 4 1 2048 0" for i in range(20)])
    p = run("run", "--fake-exec", f, "--runs", "20", "--json", "-", "prog", check=0)
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    b = d["benchmarks"][0]
    h = b["headline"]
    v, (lo, hi), (elo, ehi) = h["value"], h["ci"], h["est_ci"]
    assert v == b["stats"]["median"] and h["unit"] == "ns" and not h["bound"]
    assert h["ci"] == b["stats"]["median_ci"]
    assert lo < elo < v < ehi < hi
    assert [lo, hi] == pytest.approx(next_run(v, elo, ehi), rel=1e-9)
    # The console: the next run's half-width first, the estimate's beside it.
    pcts = [float(x) for x in re.findall(r"\+-([\d.]+)%", run_summaries(p.stderr)["prog"]["median"])]
    half = 100 * max(v - lo, hi - v) / v
    own = 100 * max(v - elo, ehi - v) / v
    assert pcts[0] == pytest.approx(half, rel=0.05) and pcts[1] == pytest.approx(own, rel=0.05)


@pytest.mark.parametrize("names", [("--max-time", "--min-samples", "--max-samples"),
                                   ("--min-time", "--min-runs", "--max-runs")])
def test_engine_names_and_hyperfine_names_stop_alike(tmp_path, names):
    # Runs of 50, 150 and 100 ms in turn never make the median precise to 1%:
    # they go on until 1 s of them has passed (11 runs, 1.1 s), and the
    # budget is what stopped them.
    f = fake(tmp_path, ["%d 0 0 100 0" % (50, 150, 100)[i % 3] for i in range(40)])
    budget, fewest, most = names
    p = run("run", "--fake-exec", f, budget, "1", fewest, "3", "--json", "-", "x", check=0)
    b = json.loads(p.stdout)["benchmarks"][0]
    assert len(b["samples"]) == 11 and b["stop"] == "max_time"
    assert "--max-time" in next(w["message"] for w in b["warnings"] if w["id"] == "max_time")
    p = run("run", "--fake-exec", f, fewest, "4", most, "4", "--json", "-", "x", check=0)
    b = json.loads(p.stdout)["benchmarks"][0]
    assert len(b["samples"]) == 4 and b["stop"] == "max_samples"
    # Runs all alike are precise at the most runs: that is what stopped them.
    same = fake(tmp_path, ["10 0 0 100 0"] * 40)
    p = run("run", "--fake-exec", same, fewest, "8", most, "8", "--json", "-", "x", check=0)
    b = json.loads(p.stdout)["benchmarks"][0]
    assert len(b["samples"]) == 8 and b["stop"] == "precision"
    assert not {w["id"] for w in b["warnings"]} & {"max_samples", "max_time"}, b["warnings"]
    # A count asked for stopped them, however precise: they sought nothing.
    p = run("run", "--fake-exec", same, "--runs", "8", "--json", "-", "x", check=0)
    b = json.loads(p.stdout)["benchmarks"][0]
    assert len(b["samples"]) == 8 and b["stop"] == "max_samples"
    assert not {w["id"] for w in b["warnings"]} & {"max_samples", "max_time"}, b["warnings"]
    # The message names the options as they were typed, with their values.
    p = run("run", fewest, "5", most, "4", "true")
    one_line_error(p, 2, f"{most} (4)", f"{fewest} (5)")
    p = run("run", "-m", "5", "-M", "4", "true")
    one_line_error(p, 2, "-M (4)", "-m (5)")
    p = run("run", "-m", "0", "true")
    one_line_error(p, 2, "-m ", "1000000", "'0'")
    p = run("run", "-r", "3", "--max-runs", "5", "true")
    one_line_error(p, 2, "-r ", "--max-runs")


def test_fake_user_and_system_are_means(tmp_path):
    # Runs shorter than a tick are all user or all system: a median would
    # say 0 for both here; the means are 1.6 ms and 1 ms.
    f = fake(tmp_path, ["4 4 0 100 0", "4 0 1 100 0", "4 0 2 100 0", "4 4 0 300 0", "4 0 2 100 0"])
    p = run("run", "--fake-exec", f, "--runs", "5", "x", check=0)
    # The user and system times, then the median peak memory.
    assert quantities(run_summaries(p.stdout)["x"]["user"]) == ["1.60 ms", "1.00 ms", "100 KiB"], p.stdout


def test_fake_interleaving_and_comparison(tmp_path):
    # Runs alternate A B A B: odd lines belong to A, even ones to B.
    lines = []
    for i in range(12):
        lines.append("%d 0 0 100 0" % (20 + i % 3))   # A: 20..22 ms
        lines.append("%d 0 0 100 0" % (40 + i % 3))   # B: 40..42 ms
    f = fake(tmp_path, lines)
    p = run("run", "--fake-exec", f, "--runs", "12", "a", "b", check=0)
    # The fastest first, then the other with the ratio, its +- and p.
    fastest, other = comparison(p.stdout)
    assert "'a'" in fastest and "'b'" not in fastest, p.stdout
    m = re.search(r"([\d.]+) \+- ([\d.]+) .*'b'.* p < 0\.001", other)
    assert m, p.stdout
    assert float(m.group(1)) == pytest.approx(41 / 21, rel=0.01)


def test_fake_no_significant_difference(tmp_path):
    lines = ["%d 0 0 100 0" % v for v in (10, 11, 12, 11, 10, 12, 11, 10, 12, 11, 12, 10)]
    f = fake(tmp_path, lines)
    p = run("run", "--fake-exec", f, "--runs", "6", "a", "b", check=0)
    # One compared with the other, at a p far from significance, and no
    # ratio with a +- (which says that one is faster).
    _, other = comparison(p.stdout)
    assert "'a'" in other or "'b'" in other, p.stdout
    p_value = re.search(r"\bp = ([\d.]+)", other)
    assert p_value and float(p_value.group(1)) > 0.05, p.stdout
    assert "+-" not in other, p.stdout


def test_fake_shell_bound_is_the_fastest_run(tmp_path):
    # 33 runs of the empty shell at 5 ms (3 warm it up), then the command:
    # no slower than the shell, so only a bound is honest, and the fastest
    # run is the tightest one (the median would be 5.5 ms).
    lines = ["5 0 0 100 0"] * 33 + ["%s 0 0 100 0" % v for v in (5, 6, 4.8, 5.5, 7)]
    f = fake(tmp_path, lines)
    p = run("run", "--fake-exec", f, "--runs", "5", "--shell", "sh", "--json", "-", "cheap", check=0)
    b = json.loads(p.stdout)["benchmarks"][0]
    assert b["overhead"]["ns"] == 5e6
    assert b["upper_bound"] is True
    assert b["bound_ns"] == 4.8e6 and b["bound_rule"] == "fastest"
    assert "< 4.8" in p.stderr, p.stderr


def test_fake_shell_user_and_system_come_off_the_means(tmp_path):
    # The empty shell takes 1 ms of CPU that ticks split 2:1 between user
    # and system: means 0.667 and 0.333 ms (medians would say 1 and 0). The
    # command takes 1.2 ms of user time: 0.533 ms of it is its own.
    shell = (["2 1 0 100 0", "2 1 0 100 0", "2 0 1 100 0"] * 11)
    lines = shell + ["5 1.2 0 100 0"] * 5
    p = run("run", "--fake-exec", fake(tmp_path, lines), "--runs", "5", "--shell", "sh", "--json", "-",
            "work", check=0)
    assert quantities(run_summaries(p.stderr)["work"]["user"])[:2] == ["533 us", "0 ns"], p.stderr
    b = json.loads(p.stdout)["benchmarks"][0]
    validate(json.loads(p.stdout), "results-1.json")
    assert b["overhead"]["user_ns"] == pytest.approx(2e6 / 3, rel=1e-9)
    assert b["overhead"]["sys_ns"] == pytest.approx(1e6 / 3, rel=1e-9)
    # The runs keep their own numbers.
    assert [s["user"] for s in b["samples"]] == [1.2e6] * 5


def test_fake_parameters_substitute(tmp_path):
    f = fake(tmp_path, ["5 0 0 10 0"])
    p = run("run", "--fake-exec", f, "--runs", "2", "--param", "n=1,2,4", "--json", "-",
            "work --size {n}", check=0)
    d = json.loads(p.stdout)
    assert [b["name"] for b in d["benchmarks"]] == ["work --size 1", "work --size 2", "work --size 4"]
    assert [b["params"] for b in d["benchmarks"]] == [{"n": "1"}, {"n": "2"}, {"n": "4"}]
    p = run("run", "--fake-exec", f, "--runs", "1", "--param-range", "x=0:1:0.5", "--json", "-",
            "w {x}", check=0)
    assert [b["name"] for b in json.loads(p.stdout)["benchmarks"]] == ["w 0", "w 0.5", "w 1"]


def test_fake_export_hyperfine(tmp_path):
    f = fake(tmp_path, ["10 3 1 100 0", "30 3 1 100 0"])
    out = tmp_path / "hf.json"
    run("run", "--fake-exec", f, "--runs", "2", "--export-hyperfine", str(out), "x", check=0)
    d = json.loads(out.read_text())
    r = d["results"][0]
    assert r["command"] == "x"
    assert r["times"] == [0.01, 0.03]
    assert r["mean"] == pytest.approx(0.02) and r["median"] == pytest.approx(0.02)
    assert r["exit_codes"] == [0, 0]
    assert r["user"] == pytest.approx(0.003) and r["system"] == pytest.approx(0.001)


# ---- Real runs -------------------------------------------------------------

def test_per_run_max_rss_is_that_runs_own(tmp_path):
    # 200 MiB written byte by byte: every page of it is touched.
    big = "b = bytearray(b'x') * (200 << 20)"
    p = run("run", "--runs", "3", "--json", "-", f'{PY} -c "{big}"', "true", check=0, timeout=120)
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    rss_big = [s["maxrss_kib"] for s in d["benchmarks"][0]["samples"]]
    rss_true = [s["maxrss_kib"] for s in d["benchmarks"][1]["samples"]]
    assert min(rss_big) > 200 * 1024
    # `true` runs after the big one and still reports its own small peak:
    # about 1 MiB, as GNU time reports it, not vernier's own size.
    assert max(rss_true) < 2 * 1024


def test_tree_peak_counts_the_whole_process_tree():
    # The shell waits for python, which touches 200 MiB: the shell's own
    # peak is small, the tree's is not. Then `true`, whose tree peak starts
    # from a reset group.
    big = f"{PY} -c \"b = bytearray(b'x') * (200 << 20)\"; true"
    p = run("run", "--runs", "3", "--shell", "sh", "--json", "-", big, "true", check=0, timeout=120)
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    tree_big = [s["tree_peak_kib"] for s in d["benchmarks"][0]["samples"]]
    if any(t is None for t in tree_big):
        pytest.skip("no memory cgroup here: " + (d["note"] or p.stderr.strip().splitlines()[-1]))
    tree_true = [s["tree_peak_kib"] for s in d["benchmarks"][1]["samples"]]
    assert min(tree_big) > 190 * 1024
    assert max(tree_true) < 32 * 1024
    # The console has a row of it, in MiB (the largest run's).
    tree_row = run_summaries(p.stderr)[big]["tree"]
    assert quantities(tree_row) == ["%.1f MiB" % (max(tree_big) / 1024)], tree_row
    # The commands still start from the small helper, not from vernier.
    rss_true = [s["maxrss_kib"] for s in d["benchmarks"][1]["samples"]]
    assert max(rss_true) < 2 * 1024


def test_no_tree_peak_leaves_the_commands_in_vernier_s_cgroup(tmp_path):
    out = tmp_path / "cgroup.txt"
    with open("/proc/self/cgroup") as f:
        ours = f.read()
    cmd = ["--", "sh", "-c", f"cat /proc/self/cgroup > {out}"]
    p = run("run", "--runs", "1", "--json", "-", *cmd, check=0)
    d = json.loads(p.stdout)
    if d["benchmarks"][0]["samples"][0]["tree_peak_kib"] is None:
        pytest.skip("no memory cgroup here: " + (d["note"] or p.stderr.strip().splitlines()[-1]))
    # By default the command runs in a group of its own below ours.
    assert out.read_text() != ours
    p = run("run", "--runs", "1", "--no-tree-peak", "--json", "-", *cmd, check=0)
    assert out.read_text() == ours
    d = json.loads(p.stdout)
    assert all(s["tree_peak_kib"] is None for s in d["benchmarks"][0]["samples"])
    (rows,) = run_summaries(p.stderr).values()
    assert "tree" not in rows, p.stderr


def test_interleaving_order(tmp_path):
    log = tmp_path / "order.log"
    a = f"sh -c 'echo a >> {log}'"
    b = f"sh -c 'echo b >> {log}'"
    run("run", "--runs", "4", a, b, check=0)
    assert log.read_text().split() == ["a", "b"] * 4
    log.unlink()
    run("run", "--runs", "6", "--order", "random", "--seed", "3", a, b, check=0)
    seq = log.read_text().split()
    assert seq.count("a") == 6 and seq.count("b") == 6
    # Shuffled blocks: every pair of runs holds one of each.
    assert all(sorted(seq[i:i + 2]) == ["a", "b"] for i in range(0, 12, 2))
    assert seq != ["a", "b"] * 6
    log.unlink()
    # Blocks: each command's setup, warmup, runs and cleanup, then the next's.
    run("run", "--runs", "3", "--warmup", "1", "--order", "blocks", "--setup", f"echo setup >> {log}",
        "--cleanup", f"echo cleanup >> {log}", a, b, check=0)
    assert log.read_text().split() == (["setup"] + ["a"] * 4 + ["cleanup"] +
                                       ["setup"] + ["b"] * 4 + ["cleanup"])
    log.unlink()
    # A command whose setup ran is cleaned up even when none of its runs
    # could happen (here its prepare fails).
    p = run("run", "--runs", "3", "--order", "blocks", "--prepare", "exit 1", "--setup",
            f"echo setup >> {log}", "--cleanup", f"echo cleanup >> {log}", a)
    assert p.returncode == 1
    assert log.read_text().split() == ["setup", "cleanup"]


def test_cpu_pins_every_command(tmp_path):
    out = tmp_path / "cpus.txt"
    cpu = sorted(os.sched_getaffinity(0))[-1]
    p = run("run", "--runs", "2", "--cpu", str(cpu), "--json", "-", "--", "sh", "-c",
            f"grep Cpus_allowed_list /proc/self/status > {out}", check=0)
    assert out.read_text().split() == ["Cpus_allowed_list:", str(cpu)]
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    assert d["config"]["cpu"] == cpu
    # Not pinned: the config says so, and the command may run anywhere.
    p = run("run", "--runs", "1", "--json", "-", "--", "sh", "-c",
            f"grep Cpus_allowed_list /proc/self/status > {out}", check=0)
    assert json.loads(p.stdout)["config"]["cpu"] is None
    p = run("run", "--runs", "1", "--cpu", "1023", "true")
    one_line_error(p, 2, "1023", cpu_list(os.sched_getaffinity(0)))


DMA = "/dev/cpu_dma_latency"
# Run as the command: whether vernier (its parent or grandparent, with the
# spawn helper between) holds the request file open, and the strictest
# request in force, which other processes (a parallel test) may also make.
READ_DMA = """import os, struct, sys
def parent(pid):
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
def holds(pid):
    d = f"/proc/{pid}/fd"
    return any(os.readlink(f"{d}/{f}") == "/dev/cpu_dma_latency" for f in os.listdir(d))
p = os.getppid()
held = holds(p) or holds(parent(p))
try:
    value = struct.unpack("i", open("/dev/cpu_dma_latency", "rb").read(4))[0]
except OSError:  # not root, or no such device (a container)
    value = -1
open(sys.argv[1], "w").write(f"{int(held)} {value}")
"""


def says_dma_latency(d):
    """Whether the results' note tells of --dma-latency: the note of a
    latency asked for that could not be held, which names the option."""
    return "--dma-latency" in (d["note"] or "")


def test_dma_latency_is_held_while_the_runs_last(tmp_path):
    out = tmp_path / "latency.txt"
    if not (os.path.exists(DMA) and os.access(DMA, os.R_OK | os.W_OK)):
        # Without the file, or without root: the runs go on, the idle
        # states are left alone, and the results say so.
        p = run("run", "--runs", "1", "--dma-latency", "7", "--json", "-", "true", check=0)
        d = json.loads(p.stdout)
        assert d["config"]["dma_latency_us"] is None
        assert says_dma_latency(d), d["note"]
        return
    p = run("run", "--runs", "1", "--dma-latency", "7", "--json", "-", "--", PY, "-c", READ_DMA,
            str(out), check=0)
    held, value = map(int, out.read_text().split())
    assert held == 1
    assert value <= 7  # ours, or a stricter one of another process
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    assert d["config"]["dma_latency_us"] == 7
    assert not says_dma_latency(d), d["note"]
    p = run("run", "--runs", "1", "--dma-latency", "off", "--json", "-", "--", PY, "-c", READ_DMA,
            str(out), check=0)
    assert out.read_text().split()[0] == "0"
    d = json.loads(p.stdout)
    assert d["config"]["dma_latency_us"] is None
    assert not says_dma_latency(d), d["note"]


def test_dma_latency_auto_holds_it_only_in_a_vm(tmp_path):
    out = tmp_path / "latency.txt"
    p = run("run", "--runs", "1", "--json", "-", "--", PY, "-c", READ_DMA, str(out), check=0)
    d = json.loads(p.stdout)
    vm = d["env"]["hypervisor"]["present"] is True
    root = os.path.exists(DMA) and os.access(DMA, os.R_OK | os.W_OK)
    # The default: 0 under a hypervisor (a halted vCPU is slow to wake), the
    # idle states left alone on bare metal (polling cores cost the measured
    # one its turbo clock).
    assert d["config"]["dma_latency_us"] == (0 if vm and root else None)
    # Whether vernier holds the file open is seen without root too.
    assert out.read_text().split()[0] == ("1" if vm and root else "0")
    # Not asked for explicitly: no note when it cannot be held.
    assert not says_dma_latency(d), d["note"]
    p2 = run("run", "--runs", "1", "--dma-latency", "auto", "--json", "-", "true", check=0)
    assert json.loads(p2.stdout)["config"]["dma_latency_us"] == d["config"]["dma_latency_us"]


def test_prepare_setup_cleanup_and_dashdash(tmp_path):
    log = tmp_path / "hooks.log"
    run("run", "--runs", "3", "--setup", f"echo setup >> {log}", "--prepare", f"echo prepare >> {log}",
        "--cleanup", f"echo cleanup >> {log}", "--", "sh", "-c", f"echo run >> {log}", check=0)
    assert log.read_text().split() == ["setup", "prepare", "run", "prepare", "run", "prepare", "run",
                                       "cleanup"]


def test_sleep_reads_its_duration():
    p = run("run", "--runs", "5", "--json", "-", "sleep 0.05", check=0)
    b = json.loads(p.stdout)["benchmarks"][0]
    # Never shorter than the sleep; the start of a process (slower under the
    # sanitizers, and on a busy machine) adds a few ms, not another sleep:
    # the fastest run shows it, where a busy moment may slow the median.
    assert 50.0e6 <= b["stats"]["min"] < 100e6
    assert b["stats"]["median"] >= 50.0e6


def test_shell_mode_subtracts_the_shell():
    p = run("run", "--runs", "5", "--shell", "sh", "--json", "-", "sleep 0.05 && true", check=0)
    b = json.loads(p.stdout)["benchmarks"][0]
    shell = b["overhead"]["ns"]
    assert 100e3 < shell < 100e6  # starting sh -c '' takes a while, not forever
    raw = sorted(s["value"] for s in b["samples"])[2]
    # The headline is the runs' median less the shell's own start-up.
    assert b["stats"]["median"] == pytest.approx(raw - shell, rel=1e-9)
    assert 49e6 <= b["stats"]["median"]
    assert b["stats"]["min"] < 100e6


def test_input_file_is_stdin(tmp_path):
    inp = tmp_path / "in.txt"
    inp.write_text("x\n" * 10)
    out = tmp_path / "n.txt"
    run("run", "--runs", "1", "--input", str(inp), "--", "sh", "-c", f"wc -l > {out}", check=0)
    assert out.read_text().strip() == "10"


# ---- Failures ------------------------------------------------------------------

def test_missing_command_fails_before_any_run():
    p = run("run", "--runs", "2", "true", "no-such-program-xyz")
    # It names the program, and --shell for a shell command.
    one_line_error(p, 1, "'no-such-program-xyz'", "--shell")
    assert p.stdout == ""


def test_a_command_with_quotes_is_named_between_the_other_quotes():
    # 'sh -c 'exit 3'' reads as two quoted strings with a word between.
    # The command, then its exit status.
    p = run("run", "--runs", "3", "sh -c 'exit 3'")
    line = one_line_error(p, 1, "\"sh -c 'exit 3'\"")
    assert re.search(r"\b3\b", line.split("\"sh -c 'exit 3'\"", 1)[1]), line
    p = run("run", "--runs", "2", "--prepare", "sh -c 'exit 4'", "true")
    line = one_line_error(p, 1, "\"sh -c 'exit 4'\"")
    assert re.search(r"\b4\b", line.split("\"sh -c 'exit 4'\"", 1)[1]), line
    p = run("run", "--runs", "3", "true", "sh -c 'true'")
    assert "\"sh -c 'true'\"" in p.stdout and "'sh -c 'true''" not in p.stdout, p.stdout
    # 'true' is named on its own too, not only inside "sh -c 'true'".
    assert any(re.search(r"(?:^|\s)'true'(?:\s|$)", line) for line in comparison(p.stdout)), p.stdout
    # Found wanting before any run, the same way.
    p = run("run", "--", "it's")
    one_line_error(p, 1, "\"it's\"", "--shell")
    # Options may come after the commands, as in hyperfine: an unknown one is named.
    p = run("run", "true", "--it's")
    one_line_error(p, 2, "'--it's'")


def test_nonzero_exit_stops_and_names_the_option(tmp_path):
    out = tmp_path / "r.json"
    p = run("run", "--runs", "3", "--json", str(out), "false")
    one_line_error(p, 1, "'false'", "--ignore-failure")
    # The first run failed, with status 1, and stopped the runs.
    b = json.loads(out.read_text())["benchmarks"][0]
    assert b["stop"] == "failed" and [s["exit_status"] for s in b["samples"]] == [1]
    p = run("run", "--runs", "3", "--ignore-failure", "--json", "-", "false")
    assert p.returncode == 0
    b = json.loads(p.stdout)["benchmarks"][0]
    assert [s["exit_status"] for s in b["samples"]] == [1, 1, 1]
    assert any(w["id"] == "failed_runs" for w in b["warnings"])


def test_signal_is_named():
    p = run("run", "--runs", "2", "--", "sh", "-c", "kill -SEGV $$")
    assert p.returncode == 1
    assert "SIGSEGV" in p.stderr


def test_timeout_kills_the_process_group(tmp_path):
    marker, pidfile = tmp_path / "survivor", tmp_path / "pid"
    # The child's own child writes its pid, then would touch the marker
    # after 1.5 s if it survived.
    cmd = f"sh -c 'sh -c \"echo \\$\\$ > {pidfile}; sleep 1.5; touch {marker}\" & sleep 10'"
    t0 = time.time()
    p = run("run", "--runs", "1", "--timeout", "0.3", cmd)
    assert time.time() - t0 < 5
    one_line_error(p, 1, "--timeout", "0.3")
    wait_until(lambda: lines_in(pidfile) == 1, what="the grandchild's pid")
    pid = int(pidfile.read_text())
    wait_until(lambda: pid_gone(pid), timeout=5, what=f"the end of the grandchild {pid}")
    assert not marker.exists()


def test_interrupt_writes_complete_files(tmp_path):
    out, runs = tmp_path / "r.json", tmp_path / "runs"
    proc = subprocess.Popen([VERNIER, "run", "--runs", "1000", "--json", str(out),
                             f"sh -c 'echo >> {runs}; sleep 0.05'"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Interrupted once a few runs ended (each one writes a line first).
    wait_until(lambda: lines_in(runs) >= 5 or proc.poll() is not None, what="five runs")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    d = json.loads(out.read_text())
    validate(d, "results-1.json")
    assert d["interrupted"] is True
    assert 3 <= len(d["benchmarks"][0]["samples"]) < 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "runs"]


def test_a_signal_once_the_runs_are_over_changes_nothing(tmp_path):
    # The JSON of 5000 runs is more than a pipe holds, so vernier is still
    # writing it when the first bytes can be read: SIGTERM then comes after
    # the last run. The results are whole, and the file, the console and the
    # exit status all say so (before, the file said "interrupted": false
    # while the console said interrupted and the exit was 143).
    f = fake(tmp_path, ["1 0 0 100 0", "2 0 0 100 0"])
    proc = subprocess.Popen([VERNIER, "run", "--fake-exec", f, "--runs", "5000", "--json", "-", "true"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no JSON came"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert len(out) > 4 * 65536
    d = json.loads(out)
    assert d["interrupted"] is False and len(d["benchmarks"][0]["samples"]) == 5000
    assert proc.returncode == 0, err
    assert b"interrupted" not in err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_write_complete_files(tmp_path, sig):
    out, runs = tmp_path / "r.json", tmp_path / "runs"
    proc = subprocess.Popen([VERNIER, "run", "--runs", "1000", "--json", str(out),
                             f"sh -c 'echo >> {runs}; sleep 0.05'"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: lines_in(runs) >= 5 or proc.poll() is not None, what="five runs")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 128 + sig, err
    assert "interrupted" in err
    d = json.loads(out.read_text())
    assert d["interrupted"] is True
    assert 3 <= len(d["benchmarks"][0]["samples"]) < 1000


def test_a_write_removes_what_killed_writers_left(tmp_path):
    # A writer killed mid-write (kill -9) leaves its temporary file, named
    # for the results file and its pid. The next write to that path removes
    # it, once that pid names no process and no one holds the file's lock;
    # nothing else is touched.
    import fcntl
    dead = int(open("/proc/sys/kernel/pid_max").read())  # no process has it
    stale = [f"r.json.tmp.{dead}.aB3xY9", f"r.json.tmp.{dead}.zzzzzz"]
    kept = [f"r.json.tmp.{os.getpid()}.aB3xY9",   # a live writer
            f"r.json.tmp.{dead}.aB3xY",           # not the pattern
            f"r.json.tmp.{dead}.aB3xY9.x",
            f"r.json.tmp.x{dead}.aB3xY9",
            f"other.json.tmp.{dead}.aB3xY9",      # another path's
            f"r.json.tmp.{dead}.locked"]          # its writer holds the lock
    for n in stale + kept:
        (tmp_path / n).write_text("partial")
    held = open(tmp_path / kept[-1])
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        f = fake(tmp_path, ["1 0 0 100 0"])
        run("run", "--fake-exec", f, "--runs", "2", "--json", str(tmp_path / "r.json"), "true", check=0)
    finally:
        held.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept + ["r.json", "fake.txt"])


# Each is a usage error of one line that names what was wrong (the option,
# the value given) and, when it says one, what to use instead.
@pytest.mark.parametrize("args,names", [
    (["--runs", "-1", "true"], ("--runs", "'-1'")),
    (["--runs", "0", "true"], ("--runs", "'0'")),
    (["--param", "n", "true"], ("--param", "'n'")),
    (["--param", "n=", "true"], ("--param",)),
    (["--param-range", "n=5:1", "true"], ("--param-range", "'5:1'")),
    (["--param-range", "n=1:x", "true"], ("--param-range", "'1:x'")),
    (["--order", "sideways", "true"], ("--order", "'sideways'", "'alternate'", "'random'", "'blocks'")),
    (["--cpu", "-1", "true"], ("--cpu", "'-1'")),
    (["--dma-latency", "-1", "true"], ("--dma-latency", "'-1'")),
    (["--dma-latency", "5us", "true"], ("--dma-latency", "'5us'")),
    (["--dma-latency", "2000000", "true"], ("--dma-latency", "'2000000'")),
    (["--timeout", "0", "true"], ("--timeout", "'0'")),
    (["--bogus", "true"], ("'--bogus'",)),
    (["--ma", "3", "true"], ("'--ma'", "--max-runs", "--max-samples", "--max-time")),
    (["-S", "", "true"], ("-S/--shell", "''")),
    (["-S", "no-such-shell-xyz", "true"], ("'no-such-shell-xyz'", "-S/--shell")),
    (["-N", "ls | wc -l"], ("'ls | wc -l'", "'|'", "-N")),
    (["--shell=none", "echo $HOME"], ("'echo $HOME'", "'$'", "--shell=none")),
    (["-n", "a", "-n", "b", "true"], ("-n/--command-name", "2", "1")),
    (["-p", "true", "-p", "true", "true", "true", "true"], ("-p/--prepare", "2", "3")),
    (["-D", "1", "true"], ("-D/--parameter-step-size", "-P/--parameter-scan")),
    (["true", "-P", "x", "1"], ("-P/--parameter-scan",)),
    (["-L", "x"], ("-L/--parameter-list",)),
    (["--style", "loud", "true"], ("--style", "'loud'")),
    (["-u", "hour", "true"], ("-u/--time-unit", "'hour'")),
    (["-q", "true"], ("'-q'",)),
    (["-x", "true"], ("'-x'",)),
    ([], ("--help",)),
    (["--runs", "3", "--min-runs", "2", "true"], ("--runs", "--min-runs")),
    (["--runs", "3", "--max-samples", "9", "true"], ("--runs", "--max-samples")),
    (["--max-time", "-1", "true"], ("--max-time", "'-1'")),
    (["--raw", "true"], ("--raw", "--csv")),
    (["'unterminated"], ("\"'unterminated\"",)),
    ([""], ("''",)),
    (["--", ""], ("1",)),
    (["--shell", "sh", "  "], ("1",)),
    (["--json", "same", "--markdown", "same", "true"], ("--json", "--markdown", "'same'")),
    (["--param", "N=1,2", "echo hi"], ("{N}",)),
])
def test_bad_options_exit_2(args, names):
    one_line_error(run("run", *args), 2, *names)


def test_help():
    p = run("run", "--help", check=0)
    for opt in ("--warmup", "--runs", "--min-samples", "--max-samples", "--max-time", "--min-runs",
                "--max-runs", "--min-time", "--quiet", "--order", "--prepare", "--setup",
                "--cleanup", "--param", "--param-range", "--timeout", "--shell", "--ignore-failure",
                "--show-output", "--input", "--json", "--csv", "--markdown", "--export-hyperfine"):
        assert opt in p.stdout, opt


# ---- Counters per run ------------------------------------------------------------

def test_counters_follow_the_command_and_its_children():
    # A shell whose child touches 2000 new pages (one byte each, without
    # huge pages, so each is one fault) and sleeps three times.
    code = ("import mmap; m = mmap.mmap(-1, 2000 * 4096); m.madvise(mmap.MADV_NOHUGEPAGE); "
            "[m.__setitem__(i * 4096, 1) for i in range(2000)]")
    touch = f'{PY} -c "{code}"'
    cmd = f"sh -c '{touch}; sleep 0.001; sleep 0.001; sleep 0.001'"
    p = run("run", "--runs", "3", "--counters", "page-faults,context-switches,task-clock", "--json", "-",
            cmd, check=0, timeout=120)
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    assert d["counters"]["requested"] == "page-faults,context-switches,task-clock"
    missing = d["counters"]["missing"]
    if missing:
        # perf_event_paranoid 2 keeps an unprivileged process from counting
        # kernel-mode events; a container may refuse perf_event_open. Each
        # is said, with why. EBUSY: another user holds the events. Any
        # other error (EINVAL for these software events: a wrong attribute)
        # is a fault of ours, not of the host.
        refused = {errno.EPERM, errno.EACCES, errno.ENOENT, errno.ENODEV, errno.ENOSYS, errno.EOPNOTSUPP,
                   errno.EBUSY}
        for m in missing:
            assert m["reason"] and m["errno"] in refused, m
        pytest.skip("counters cannot be opened here: " + "; ".join(f'{m["name"]}: {m["reason"]}'
                                                                    for m in missing))
    c = d["benchmarks"][0]["counters"]
    assert c["page-faults"]["value"] >= 2000
    assert c["context-switches"]["value"] >= 3
    assert c["task-clock"]["value"] > 0
    assert all(len(s["counters"]) == 3 for s in d["benchmarks"][0]["samples"])
    # The console has a row of them, each named, and a line on what they
    # count below the summaries.
    (rows,) = run_summaries(p.stderr).values()
    assert all(name in rows["counters"] for name in c), rows
    assert any(line.startswith("counters: ") for line in p.stderr.splitlines()), p.stderr


def test_unknown_counter_is_a_usage_error():
    # It names the counter asked for and the one meant among those known.
    p = run("run", "--counters", "cycels", "true")
    one_line_error(p, 2, "'cycels'", "cycles")


def test_fake_csv_views(tmp_path):
    f = fake(tmp_path, ["10 4 1 2048 0", "12 5 2 4096 3"])
    raw = tmp_path / "raw.csv"
    summary = tmp_path / "s.csv"
    run("run", "--fake-exec", f, "--runs", "2", "--ignore-failure", "--param", "n=7",
        "--csv", str(raw), "--raw", "x {n}", check=0)
    lines = raw.read_text().splitlines()
    assert lines[0].endswith(",user,sys,maxrss_kib,minflt,majflt,nvcsw,nivcsw,exit_status,signal")
    assert lines[1].split(",")[:4] == ["x 7", "n=7", "0", "10000000"]
    row2 = lines[2].split(",")
    assert row2[8:11] == ["5000000", "2000000", "4096"] and row2[-2:] == ["3", ""]
    run("run", "--fake-exec", f, "--runs", "2", "--ignore-failure", "--csv", str(summary), "x", check=0)
    head, row = summary.read_text().splitlines()
    cols = dict(zip(head.split(","), row.split(",")))
    assert cols["median"] == "11000000" and cols["n"] == "2"


def test_fake_views_leave_what_a_command_has_not_unknown(tmp_path):
    # A command's runs have no CPU time per iteration nor reference cycles:
    # the CSV leaves them empty, and Markdown shows no column for them.
    f = fake(tmp_path, ["10 4 1 2048 0", "12 5 2 4096 0"])
    summary, md = tmp_path / "s.csv", tmp_path / "t.md"
    run("run", "--fake-exec", f, "--runs", "2", "--csv", str(summary), "--markdown", str(md), "x")
    head, row = summary.read_text().splitlines()
    cols = dict(zip(head.split(","), row.split(",")))
    assert cols["cpu"] == "" and cols["cycles"] == "" and cols["median"] == "11000000"
    header = md.read_text().splitlines()[0]
    assert "| time |" in header and "cpu" not in header and "cycles" not in header


def test_parameters_go_into_words_as_given(tmp_path):
    out = tmp_path / "o.txt"
    run("run", "--runs", "1", "--param", "f=it's", "--", "sh", "-c", f"printf '%s' \"$0\" > {out}", "{f}",
        check=0)
    assert out.read_text() == "it's"
    p = run("run", "--fake-exec", fake(tmp_path, ["1"]), "--runs", "1", "--param", "n=2", "--json", "-",
            "--", "echo", "{n}", "x", check=0)
    assert json.loads(p.stdout)["benchmarks"][0]["name"] == "echo 2 x"


def test_cleanup_runs_after_a_failure_in_warmup(tmp_path):
    log, out = tmp_path / "log", tmp_path / "r.json"
    p = run("run", "--warmup", "1", "--setup", f"echo setup >> {log}", "--cleanup", f"echo cleanup >> {log}",
            "--json", str(out), "false")
    one_line_error(p, 1, "'false'", "--ignore-failure")
    # It failed in the warmup: no run was timed.
    b = json.loads(out.read_text())["benchmarks"][0]
    assert b["stop"] == "failed" and b["samples"] == []
    assert log.read_text().split() == ["setup", "cleanup"]


def test_outputs_are_checked_before_any_run(tmp_path):
    marker = tmp_path / "ran"
    p = run("run", "--runs", "1", "--json", "/nonexistent/dir/r.json", "--", "touch", str(marker))
    assert p.returncode == 1 and "/nonexistent/dir/r.json" in p.stderr
    assert not marker.exists()
    p = run("run", "--runs", "1", "--json", "-", "--csv", "-", "true")
    one_line_error(p, 2, "'-'")


@pytest.mark.parametrize("opt", ["--runs", "--warmup", "--min-runs", "--max-runs", "--min-samples",
                                 "--max-samples"])
def test_whole_numbers_say_so(opt):
    p = run("run", opt, "1.5", "true")
    one_line_error(p, 2, f"{opt} ", "'1.5'")


def test_a_command_gets_no_descriptor_of_vernier():
    # vernier is started here with only 0, 1 and 2 open: the command must
    # see those and nothing of vernier's own (its helper's pipes).
    code = "import os; print('fds', sorted(int(f) for f in os.listdir('/proc/self/fd')))"
    p = run("run", "--runs", "1", "--show-output", "--", PY, "-c", code, check=0)
    line = next(l for l in p.stdout.splitlines() if l.startswith("fds "))
    # The fourth is the one listdir opened to read the directory.
    assert line == "fds [0, 1, 2, 3]", p.stdout


def test_background_children_end_with_their_run(tmp_path):
    pids = tmp_path / "pids"
    cmd = f"sh -c 'sleep 77 & echo $! >> {pids}'"
    run("run", "--runs", "3", cmd, check=0)
    left = [int(x) for x in pids.read_text().split()]
    assert len(left) == 3
    # Each run's group was killed as the run ended: every child ends (the
    # kill may land a moment after vernier exits).
    try:
        wait_until(lambda: all(pid_gone(pid) for pid in left), timeout=10,
                   what="the end of the background children")
    finally:
        for pid in left:
            if not pid_gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_helper_killed_under_a_command_ends_the_run_at_once(tmp_path):
    # The command kills vernier's helper, its parent, and lives on: vernier
    # must not wait on it (before, the command held the helper's report
    # pipe open and vernier waited for ever, deaf to --timeout and Ctrl-C).
    mark = tmp_path / "pid"
    cmd = f"sh -c 'echo $$ > {mark}; kill -9 $PPID; sleep 30'"
    start = time.monotonic()
    p = run("run", "--runs", "2", "--timeout", "0.5", cmd, timeout=60)
    took = time.monotonic() - start
    try:
        pid = int(mark.read_text())
        os.kill(pid, signal.SIGKILL)
    except (FileNotFoundError, ProcessLookupError, ValueError):
        pass
    assert took < 10
    # The failure is the helper's, which is named.
    one_line_error(p, 1, "vernier-spawn")


def test_requests_to_the_helper_hold_no_uninitialised_bytes():
    # The request header has padding; valgrind flags any byte of it that
    # goes down the pipe unset.
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed (scripts/install-deps installs it)")
    if sanitized():
        pytest.skip("valgrind cannot run a program built with AddressSanitizer")
    p = subprocess.run(["valgrind", "-q", "--error-exitcode=99", VERNIER, "run", "--runs", "2",
                        "--quiet", "true"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


def test_a_directory_that_takes_no_new_files_is_named(tmp_path):
    # /proc/version exists, but no file can be made beside it to rename:
    # "No such file or directory" would send the reader looking for a typo.
    p = run("run", "--runs", "1", "--json", "/proc/version", "true")
    line = one_line_error(p, 1, "'/proc/version'", "'/proc'")
    assert os.strerror(errno.ENOENT) not in line, line
    # A directory that is not there is still said to be missing (ENOENT).
    missing = str(tmp_path / "no" / "r.json")
    p = run("run", "--runs", "1", "--json", missing, "true")
    one_line_error(p, 1, f"'{missing}'", os.strerror(errno.ENOENT))


@pytest.mark.parametrize("extra", [[], ["--counters", "task-clock"]])
def test_a_script_whose_interpreter_is_missing_names_the_interpreter(tmp_path, extra):
    # The exec fails with ENOENT, as if the script were missing; from the
    # helper and from vernier itself (--counters) alike.
    script = tmp_path / "s.sh"
    script.write_text("#! /no/such/interpreter -e\necho hi\n")
    script.chmod(0o755)
    p = run("run", "--runs", "1", *extra, str(script))
    line = one_line_error(p, 1, f"'{script}'", "'/no/such/interpreter'")
    assert os.strerror(errno.ENOENT) not in line, line


def test_a_report_that_cannot_be_written_says_why(tmp_path):
    f = fake(tmp_path, ["1 0 0 100 0"])
    with open("/dev/full", "w") as full:
        p = subprocess.run([VERNIER, "run", "--fake-exec", f, "--runs", "2", "true"], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    # The reason is the write's error, ENOSPC.
    line = one_line_error(p, 1)
    assert line.endswith(os.strerror(errno.ENOSPC)), line


def test_a_cpu_this_process_may_not_use_is_a_usage_error():
    # As in a benchmark program (vn_main): exit 2, before any run.
    cpu = max(os.sched_getaffinity(0)) + 1
    if cpu > 1023:
        pytest.skip("this process may use every CPU number --cpu takes")
    p = run("run", "--cpu", str(cpu), "true")
    # It names the CPU asked for and those this process may use.
    one_line_error(p, 2, str(cpu), cpu_list(os.sched_getaffinity(0)))
    assert p.stdout == ""


def test_input_that_is_a_directory_is_refused(tmp_path):
    p = run("run", "--runs", "1", "--input", str(tmp_path), "cat")
    one_line_error(p, 1, "--input", f"'{tmp_path}'")


def test_a_directory_is_not_a_program(tmp_path):
    p = run("run", "--runs", "1", str(tmp_path))
    # Found before any run; not sent looking for it (or to --shell) as a
    # program that is missing would be.
    line = one_line_error(p, 1, f"'{tmp_path}'")
    assert "--shell" not in line and p.stdout == "", line


def test_shown_output_keeps_away_from_a_report_on_stdout():
    p = run("run", "--runs", "2", "--show-output", "--json", "-", "echo NOISE", check=0)
    d = json.loads(p.stdout)  # the JSON alone
    assert len(d["benchmarks"][0]["samples"]) == 2
    assert "NOISE" in p.stderr


def test_a_failed_cleanup_is_in_the_results(tmp_path):
    out = tmp_path / "r.json"
    p = run("run", "--runs", "2", "--cleanup", "false", "--json", str(out), "true")
    assert p.returncode == 1
    b = json.loads(out.read_text())["benchmarks"][0]
    assert len(b["samples"]) == 2  # the runs stand
    # The error names the cleanup command, then its exit status.
    assert "'false'" in b["error"], b["error"]
    assert re.search(r"\b1\b", b["error"].split("'false'", 1)[1]), b["error"]


def test_whole_number_ranges_past_2_to_the_53(tmp_path):
    f = fake(tmp_path, ["1"] * 10)
    p = run("run", "--fake-exec", f, "--runs", "1", "--param-range", "N=9007199254740993:9007199254740995",
            "--json", "-", "x {N}", check=0)
    assert [b["params"]["N"] for b in json.loads(p.stdout)["benchmarks"]] == \
        ["9007199254740993", "9007199254740994", "9007199254740995"]


def test_fake_runs_that_cannot_be_read_say_why(tmp_path):
    f = fake(tmp_path, ["1e400"])
    p = run("run", "--fake-exec", f, "--runs", "1", "x")
    # The file, the line, and the format it expects.
    one_line_error(p, 1, f, "line 1", "WALL_MS")
    p = run("run", "--fake-exec", str(tmp_path), "--runs", "1", "x")
    one_line_error(p, 1, f"'{tmp_path}'", os.strerror(errno.EISDIR))
