"""`vernier run` as a drop-in for hyperfine: invocations from hyperfine's
README and --help, unchanged but for shorter commands and fewer runs; its
export layouts; a shell only where a command needs one; the progress bar on
a terminal; and `vernier help CMD` against `vernier CMD --help`."""
import csv
import json
import os
import pty
import re
import select
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import (SOURCE, VERNIER, one_line_error, quantities, run, run_summaries,
                      stderr_on_a_terminal)

HF_KEYS = {"command", "mean", "stddev", "median", "user", "system", "min", "max", "times",
           "exit_codes"}


@pytest.fixture
def work(tmp_path):
    """A directory with what the examples expect: files to dump and grep, a
    Makefile, a main.cpp."""
    (tmp_path / "file").write_bytes(bytes(range(256)) * 16)
    (tmp_path / "a.txt").write_text("TODO one\nnothing\n")
    (tmp_path / "b.txt").write_text("TODO two\n")
    (tmp_path / "main.cpp").write_text("int main() { return 0; }\n")
    (tmp_path / "Makefile").write_text("all:\n\t@true\nclean:\n\t@true\n")
    return tmp_path


def hf_json(path, ncommands, nruns=None):
    d = json.loads(path.read_text())
    assert len(d["results"]) == ncommands
    for r in d["results"]:
        assert HF_KEYS <= set(r), set(r)
        if nruns is not None:
            assert len(r["times"]) == nruns and len(r["exit_codes"]) == nruns
        assert r["min"] <= r["median"] <= r["max"]
        assert r["median"] == pytest.approx(statistics.median(r["times"]), rel=1e-9)
        assert r["mean"] == pytest.approx(statistics.fmean(r["times"]), rel=1e-6)
    return d


# Each: the invocation (hyperfine's words), the commands it makes, the runs
# of each (None: adaptive). Sleeps are shortened and run counts small.
EXAMPLES = [
    ("'sleep 0.01' -M 3", 1, None),
    ("--runs 5 'sleep 0.01'", 1, 5),
    ("-r 2 'hexdump file' 'xxd file'", 2, 2),
    ("--warmup 3 -r 2 'grep -R TODO *'", 1, 2),
    ("--prepare 'sync; echo 3 > /dev/null' -r 2 'grep -R TODO *'", 1, 2),
    ("--prepare 'make clean' --parameter-scan num_threads 1 3 -r 2 'make -j {num_threads}'", 3, 2),
    ("--parameter-scan delay 0.01 0.03 -D 0.01 -r 2 'sleep {delay}'", 3, 2),
    ("-P threads 1 2 -r 2 'make -j {threads}'", 2, 2),
    ("-S bash -P size 0 2 -r 2 'sleep 0.00$((2**{size}))'", 3, 2),
    ("-L compiler gcc,clang -r 2 '{compiler} -fsyntax-only main.cpp'", 2, 2),
    ("-N --warmup 5 -r 3 'grep TODO a.txt'", 1, 3),
    ("--shell=none -r 3 'sleep 0.01'", 1, 3),
    ("--shell zsh -r 2 'for i in {1..100}; do echo test; done'", 1, 2),
    ("-S 'bash --norc' -r 2 'echo test'", 1, 2),
    ("-r 3 -n fast -n slow 'sleep 0.01' 'sleep 0.02'", 2, 3),
    ("--ignore-failure -r 2 'grep NOTHING a.txt'", 1, 2),
    ("--output=pipe -r 3 'cat file'", 1, 3),
    ("--style basic -r 2 'sleep 0.01' --export-markdown results.md", 1, 2),
    ("-r 3 'sleep 0.01' 'sleep 0.02' --export-json results.json", 2, 3),
    ("-i -r 2 --export-csv results.csv -L n 1,2 'sh -c \"exit {n}\"'", 2, 2),
]


@pytest.mark.parametrize("line,ncmds,nruns", EXAMPLES, ids=[e[0][:40] for e in EXAMPLES])
def test_hyperfine_examples(work, line, ncmds, nruns):
    for tool in ("zsh", "xxd", "hexdump", "clang", "gcc", "make", "bash"):
        if re.search(rf"\b{tool}\b", line) and not shutil.which(tool):
            pytest.skip(f"{tool} is not installed (scripts/install-deps installs it)")
    words = ["run"] + __import__("shlex").split(line) + ["--export-json", "hf.json"]
    if "--export-json" in line:
        words = words[:-2]
    p = run(*words, cwd=work, timeout=120)
    assert p.returncode == 0, (line, p.stderr)
    out = work / ("results.json" if "--export-json" in line else "hf.json")
    d = hf_json(out, ncmds, nruns)
    # The report names every command once.
    for r in d["results"]:
        assert r["command"] in p.stdout
    if "-n fast" in line:
        assert [r["command"] for r in d["results"]] == ["fast", "slow"]
    if "-L" in line or "-P" in line or "--parameter" in line:
        assert all("parameters" in r for r in d["results"])
    if "--ignore-failure" in line or line.startswith("-i"):
        assert any(c != 0 for r in d["results"] for c in r["exit_codes"])
    if "--export-markdown" in line:
        md = (work / "results.md").read_text().splitlines()
        assert md[0] == "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |"
        assert md[1] == "|:---|---:|---:|---:|---:|" and len(md) == 2 + ncmds
    if "--export-csv" in line:
        rows = list(csv.reader((work / "results.csv").open()))
        assert rows[0] == ["command", "mean", "stddev", "median", "user", "system", "min", "max",
                           "parameter_n"]
        assert [r[-1] for r in rows[1:]] == ["1", "2"]


def test_options_after_the_commands_and_dashdash(tmp_path):
    p = run("run", "sleep 0.01", "-r", "2", "--export-json", str(tmp_path / "a.json"), "-N")
    assert p.returncode == 0, p.stderr
    hf_json(tmp_path / "a.json", 1, 2)
    # "--" still ends the options: what follows is one command's words.
    p = run("run", "-r", "2", "--export-json", str(tmp_path / "b.json"), "--", "sh", "-c", "exit 0")
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "b.json").read_text())["results"][0]["command"] == "sh -c 'exit 0'"


def test_a_shell_only_where_needed(tmp_path):
    p = run("run", "-r", "3", "--json", "-", "true", "true | cat")
    assert p.returncode == 0, p.stderr
    b = json.loads(p.stdout)["benchmarks"]
    plain, piped = b[0], b[1]
    assert plain.get("overhead", {}).get("ns", 0) in (0, None)
    assert piped["overhead"]["ns"] > 0
    # The console (on stderr, beside the JSON) gives the shell's start-up
    # taken off, on the row of the runs, for the piped command alone.
    rows = run_summaries(p.stderr)
    assert len(quantities(rows["true | cat"]["runs"])) == 1, rows
    assert quantities(rows["true"]["runs"]) == [], rows


def test_output_to_a_file_and_inherit(tmp_path):
    out = tmp_path / "out.txt"
    p = run("run", "-r", "2", "--output", str(out), "echo hello")
    assert p.returncode == 0, p.stderr
    assert out.read_text() == "hello\n"
    p = run("run", "-r", "2", "--output=inherit", "--style", "none", "echo inherited")
    assert p.returncode == 0 and p.stdout == "inherited\ninherited\n", p.stdout


def test_style_none_prints_no_report(tmp_path):
    p = run("run", "-r", "2", "--style", "none", "true", "--export-json", str(tmp_path / "x.json"))
    assert p.returncode == 0 and p.stdout == "" and p.stderr == ""
    hf_json(tmp_path / "x.json", 1, 2)


def on_a_terminal(*args):
    """Runs vernier with stderr on a pty (stdout a pipe); its stderr's text."""
    return stderr_on_a_terminal([VERNIER, *args])


def test_progress_bar_on_a_terminal_only():
    err, proc = on_a_terminal("run", "-r", "8", "-n", "napping", "sleep 0.05")
    assert proc.returncode == 0
    bars = re.findall(r"napping\s+\[[#-]+\]\s+(\d+)/(\d+)\s+ETA", err)
    assert bars, err
    assert all(int(d) <= int(p) == 8 for d, p in bars)
    assert err.endswith("\r\x1b[K")  # the line is wiped before the report
    for quiet in (["--quiet"], ["--style", "basic"], ["--style", "none"]):
        err, proc = on_a_terminal("run", "-r", "8", *quiet, "sleep 0.05")
        assert proc.returncode == 0 and "ETA" not in err, (quiet, err)
    p = run("run", "-r", "8", "sleep 0.05")
    assert "ETA" not in p.stderr


def subcommands():
    top = run("--help").stdout
    return re.findall(r"^  (\w+)\s", top.split("Commands:")[1].split("Options:")[0], re.M)


def test_help_cmd_is_cmd_help():
    names = subcommands()
    assert {"run", "stats", "env", "clocks"} <= set(names)
    for name in names:
        a, b = run("help", name), run(name, "--help")
        assert a.returncode == b.returncode == 0
        assert a.stdout == b.stdout and f"vernier {name}" in a.stdout.splitlines()[0], name
    one_line_error(run("help", "nope"), 2, "'nope'")


def test_run_help_fits_in_100_columns():
    text = run("run", "--help").stdout
    assert max(len(l) for l in text.splitlines()) <= 100
    for opt in ("-N", "-w, --warmup", "-r, --runs", "-m, --min-runs", "-M, --max-runs", "-p, --prepare",
                "-c, --cleanup", "-n, --command-name", "-L, --parameter-list", "-P, --parameter-scan",
                "-D, --parameter-step-size", "-S, --shell", "-i, --ignore-failure", "--export-json",
                "--export-csv", "--export-markdown", "-u, --time-unit", "--input", "--output",
                "--style", "-s, --setup"):
        assert opt in text, opt


@pytest.mark.skipif(not shutil.which("hyperfine"), reason="hyperfine is not installed")
def test_same_invocations_as_hyperfine(tmp_path):
    """The same invocation through both tools: the same commands, runs and
    parameters in the same layout, and medians of the same size."""
    for args in (["-N", "-r", "5", "sleep 0.02"],
                 ["-r", "4", "-L", "d", "0.01,0.03", "sleep {d}"],
                 ["-r", "4", "sleep 0.02 && true"]):
        hp = subprocess.run(["hyperfine", "--style", "none", *args, "--export-json",
                             str(tmp_path / "h.json")], capture_output=True, text=True)
        assert hp.returncode == 0, hp.stderr
        p = run("run", "--style", "none", *args, "--export-json", str(tmp_path / "v.json"))
        assert p.returncode == 0, p.stderr
        h = json.loads((tmp_path / "h.json").read_text())["results"]
        v = json.loads((tmp_path / "v.json").read_text())["results"]
        assert [r["command"] for r in h] == [r["command"] for r in v]
        assert [r.get("parameters") for r in h] == [r.get("parameters") for r in v]
        for a, b in zip(h, v):
            assert set(a) == set(b) and len(a["times"]) == len(b["times"])
            # Timing is noisy on a shared machine: the same order of size only.
            assert 0.5 < b["median"] / a["median"] < 2, (a["median"], b["median"])


def test_prepare_counts_against_the_time_budget():
    """A slow --prepare takes fewer runs within the budget, as hyperfine's
    does, rather than a wait of the prepare times the runs."""
    t0 = time.monotonic()
    p = run("run", "-N", "-p", "sleep 0.02", "--max-time", "1", "--json", "-", "true", timeout=60)
    wall = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    b = json.loads(p.stdout)["benchmarks"][0]
    # Each run costs its prepare (20 ms or more) too: a second holds at most
    # about 50 of them, where runs alone would number hundreds.
    assert 10 <= len(b["samples"]) <= 60, len(b["samples"])
    assert wall < 3, wall


def test_exports_clamp_runs_shorter_than_the_shell():
    """Runs faster than the shell's start-up read below 0 net of it:
    hyperfine's layouts write 0 for them, as hyperfine does, and vernier's
    own JSON says how many there were."""
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        # A shell whose empty command (the start-up vernier measures first)
        # takes 50 ms longer than a real one: every run reads below it, on
        # any load, where `sh` itself leaves about half of them below.
        shell_path = d / "slow-empty-sh"
        shell_path.write_text('#!/bin/sh\n[ -n "$2" ] || sleep 0.05\nexec /bin/sh -c "$2"\n')
        shell_path.chmod(0o755)
        p = run("run", "-S", str(shell_path), "-r", "30", "--json", str(d / "v.json"),
                "--export-json", str(d / "h.json"), "--export-csv", str(d / "h.csv"),
                "--export-markdown", str(d / "h.md"), "true", timeout=120)
        assert p.returncode == 0, p.stderr
        v = json.loads((d / "v.json").read_text())["benchmarks"][0]
        shell = v["overhead"]["ns"]
        assert shell > 40e6
        below = sum(s["value"] - shell < 0 for s in v["samples"])
        assert below == len(v["samples"]) == 30
        assert v["overhead"]["clamped_runs"] == below
        h = json.loads((d / "h.json").read_text())["results"][0]
        assert min(h["times"]) >= 0 and h["min"] >= 0
        assert h["times"].count(0) == below
        want = [max(0.0, (s["value"] - shell) / 1e9) for s in v["samples"]]
        assert h["times"] == pytest.approx(want, abs=1e-12)
        assert h["mean"] == pytest.approx(sum(want) / len(want), rel=1e-9)
        rows = list(csv.reader((d / "h.csv").open()))
        assert all(float(x) >= 0 for x in rows[1][1:8])
        assert "-" not in (d / "h.md").read_text().split("\n")[2].replace("---", "")


def test_simple_commands_say_once_they_ran_without_a_shell():
    p = run("run", "-r", "2", "true", "sleep 0.001", "true | true")
    assert p.returncode == 0, p.stderr
    # One note names them, not the one that needs a shell, and the option
    # that would run them in sh.
    (note,) = [l for l in p.stdout.splitlines() if l.startswith("note: ")]
    assert "'true', 'sleep 0.001'" in note and "'true | true'" not in note, note
    assert "-S sh" in note, note
    for args in (["-N"], ["-S", "sh"]):
        p = run("run", "-r", "2", *args, "true")
        assert p.returncode == 0, p.stderr
        assert not [l for l in p.stdout.splitlines() if l.startswith("note: ") and "'true'" in l], p.stdout


def hyperfine_help_options():
    """The options `hyperfine --help` lists, each by its long name (or its
    short one when it has none): ["--warmup", ..., "-N", ...]."""
    text = subprocess.run(["hyperfine", "--help"], capture_output=True, text=True).stdout
    out = []
    for line in text.splitlines():
        m = re.match(r"^ {4}(?: {4})?(-[A-Za-z])?(?:, )?(--[a-z][a-z-]*)?(?: |$)", line)
        if m and (m.group(1) or m.group(2)):
            out.append(m.group(2) or m.group(1))
    return out


@pytest.mark.skipif(not shutil.which("hyperfine"), reason="hyperfine is not installed")
def test_the_table_of_hyperfine_options_is_complete():
    """docs/run.md has a row for every option the installed hyperfine
    lists, and every row marked yes is an option vernier run takes."""
    opts = hyperfine_help_options()
    assert {"--warmup", "--runs", "--prepare", "--export-json", "-N"} <= set(opts), opts
    doc = (SOURCE / "docs" / "run.md").read_text()
    rows = {}
    for line in doc.splitlines():
        cells = [c.strip() for c in line.split(" | ")]
        if line.startswith("| `") and len(cells) >= 3:
            for name in re.findall(r"`(-{1,2}[A-Za-z][\w-]*)", cells[0]):
                rows[name] = cells[1]
    missing = [o for o in opts if o not in rows]
    assert not missing, missing
    vhelp = run("run", "--help").stdout
    for name, yes in rows.items():
        if name in ("-V",) or not yes.startswith(("yes", "for ")):
            continue
        assert re.search(r"(^|[\s,])" + re.escape(name) + r"([\s,=]|$)", vhelp, re.M), name


@pytest.mark.skipif(not shutil.which("hyperfine"), reason="hyperfine is not installed")
def test_no_shell_takes_what_hyperfine_takes():
    """-N splits a command as hyperfine does: a '$' or a '|' inside quotes
    is a character of a word, not a shell's; only one outside quotes
    needs a shell."""
    for cmd in ["echo 'a|b'", "echo '$HOME'", 'printf "%s\\n" "x|y"']:
        h = subprocess.run(["hyperfine", "-N", "-r", "2", "--style", "none", cmd],
                           capture_output=True, text=True)
        assert h.returncode == 0, (cmd, h.stderr)
        p = run("run", "-N", "-r", "2", "--style", "none", cmd)
        assert p.returncode == 0, (cmd, p.stderr)
    p = run("run", "-N", "-r", "2", "echo a | cat")
    one_line_error(p, 2, "'echo a | cat'", "'|'", "-N")
