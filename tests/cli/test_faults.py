"""The faults of the bad-input matrix, each a reproduction that failed
before its fix (the test names the fault by its number in the list it came
from), and the siblings found in the other commands: an input file
destroyed, a page that cannot be drawn for ordinary data, processes and
folders left behind, messages that say the wrong thing."""
import errno
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (BUILD, VERNIER, adopt_orphans, children, one_line, run, sanitized, stat_fields,
                      stderr_on_a_terminal)


def write(path, doc):
    path.write_text(json.dumps(doc))
    return str(path)


def hyperfine(results):
    return {"results": [{"command": c, "times": t} for c, t in results]}


# ---- 1: a page for any valid input -------------------------------------------------------

@pytest.mark.parametrize("times, reason", [([0.5], "one value, 500 ms (no distribution to draw)"),
                                           ([0.5, 0.5, 0.5], "every value the same")])
def test_1_report_draws_one_value_and_equal_values(tmp_path, times, reason):
    if not shutil.which("gnuplot"):
        pytest.fail("no gnuplot: scripts/install-deps --test installs gnuplot-nox")
    f = write(tmp_path / "r.json", hyperfine([("a", times)]))
    p = run("report", f, "-o", str(tmp_path / "r.html"), timeout=120)
    assert p.returncode == 0, p.stderr
    assert reason in (tmp_path / "r.html").read_text()


# ---- 2: compare is linear, with progress on a terminal ------------------------------------

def test_2_a_large_file_shows_its_reading_on_a_terminal(tmp_path):
    n = 1_300_000  # about 18 MB: over the 16 MiB from which the reading is shown
    text = '{"results":[{"command":"a","times":[' + ",".join(["0.00123456789"] * n) + "]}]}"
    (tmp_path / "a.json").write_text(text)
    err, proc = stderr_on_a_terminal([VERNIER, "compare", str(tmp_path / "a.json"),
                                      str(tmp_path / "a.json")])
    assert proc.returncode == 0
    # The file being read, and its size in MiB.
    mib = (tmp_path / "a.json").stat().st_size / (1 << 20)
    assert f"'{tmp_path / 'a.json'}'" in err and re.search(rf"\b({int(mib)}|{round(mib)}) MiB\b", err), err
    assert err.endswith("\r\x1b[K")  # wiped before the report


# ---- 3: --input - is capped; a closed standard input is named ------------------------------

def test_3_input_from_a_pipe_is_capped():
    p = subprocess.run(f"yes | {VERNIER} run --runs 1 --input - cat", shell=True,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    # The input named, with the most it keeps.
    line = one_line(p.stderr)
    assert "--input '-'" in line and re.search(r"\b256 MiB\b", line), line


def test_3_a_closed_standard_input_is_not_read():
    for args in (["run", "--runs", "1", "--input", "-", "cat"], ["stats"], ["compare", "-", "x.json"]):
        p = subprocess.run([VERNIER, *args], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=60, pass_fds=(), close_fds=True,
                           preexec_fn=lambda: os.close(0))
        assert p.returncode == 1, (args, p.stderr)
        # One line naming the descriptor, and for --input the option.
        line = one_line(p.stderr)
        assert re.search(r"\b0\b", line), (args, line)
        assert "--input" in line or "--input" not in args, (args, line)


# ---- 4: JSON to /dev/stdout is JSON alone ----------------------------------------------------

@pytest.mark.parametrize("args", [["stats", "--json", "/dev/stdout", "NUMBERS"],
                                  ["env", "--json", "/dev/stdout"],
                                  ["clocks", "--json", "/dev/stdout"],
                                  ["compare", "--json", "/dev/stdout", "A", "A"],
                                  ["compare", "--markdown", "/dev/stdout", "A", "A"]])
def test_4_json_to_dev_stdout_is_alone_there(tmp_path, args):
    (tmp_path / "n.txt").write_text("1\n2\n3\n4\n")
    a = write(tmp_path / "a.json", hyperfine([("x", [1.0, 1.1, 1.2])]))
    args = [a if w == "A" else str(tmp_path / "n.txt") if w == "NUMBERS" else w for w in args]
    p = run(*args, timeout=120)
    assert p.returncode == 0, p.stderr
    if "--markdown" in args:
        # What '-' writes there, and nothing of the console's table: each
        # line of the table is a Markdown row, the header, the rule and x.
        alone = run(*["-" if w == "/dev/stdout" else w for w in args], timeout=120)
        assert alone.returncode == 0, alone.stderr
        assert p.stdout == alone.stdout
        assert [line.split("|")[1].strip() for line in p.stdout.splitlines()
                if line.startswith("|")] == ["benchmark", ":--", "x"]
        assert not any(line.startswith("benchmark") for line in p.stdout.splitlines())
    else:
        json.loads(p.stdout)


# ---- 5: a read-only output file is refused ------------------------------------------------

def as_nobody(cmd, cwd):
    """cmd run as the user nobody when this is root (root writes any file)."""
    if os.geteuid() != 0:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)
    os.chmod(cwd, 0o777)
    return subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd],
                          cwd=cwd, capture_output=True, text=True, timeout=60)


def test_5_a_read_only_output_is_refused_and_kept(tmp_path):
    (tmp_path / "n.txt").write_text("1\n2\n3\n")
    out = tmp_path / "out.json"
    out.write_text("precious")
    os.chmod(out, 0o444)
    os.chmod(tmp_path / "n.txt", 0o444)
    if os.geteuid() == 0:
        os.chown(out, 65534, 65534)
    for cmd in ([VERNIER, "stats", "--json", "out.json", "n.txt"],
                [VERNIER, "env", "--json", "out.json"]):
        p = as_nobody(cmd, tmp_path)
        assert p.returncode == 1, p.stderr
        line = one_line(p.stderr)
        assert "out.json" in line and os.strerror(errno.EACCES) in line
        assert out.read_text() == "precious"


# ---- 6: an output that is an input is refused before any work -----------------------------

def test_6_an_output_that_is_an_input_is_refused(tmp_path):
    a = write(tmp_path / "a.json", hyperfine([("x", [1.0, 1.1, 1.2])]))
    n = tmp_path / "n.txt"
    n.write_text("1\n2\n3\n")
    (tmp_path / "link.json").symlink_to(tmp_path / "a.json")
    before = Path(a).read_text()
    for args in (["report", a, "-o", a],
                 ["report", a, "-o", str(tmp_path / "link.json")],
                 ["compare", "--json", a, a, a],
                 ["compare", "--markdown", str(tmp_path / "link.json"), a, a],
                 ["stats", "--json", str(n), str(n)],
                 ["run", "--runs", "1", "--json", str(n), "--input", str(n), "cat"]):
        p = run(*args, timeout=60)
        assert p.returncode == 2, (args, p.stderr)
        # The output's option and its path named, and the input it is.
        flag = next(w for w in args if w in ("-o", "--json", "--markdown"))
        at = args.index(flag) + 1
        inputs = [w for i, w in enumerate(args) if i != at and os.path.exists(w)
                  and os.path.samefile(w, args[at])]
        line = one_line(p.stderr)
        assert f"{flag} '{args[at]}'" in line and any(f"'{w}'" in line for w in inputs), line
    assert Path(a).read_text() == before and n.read_text() == "1\n2\n3\n"


# ---- 7: nothing survives vernier killed with -9 ------------------------------------------

def cgroups_of(pid):
    out = []
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        for d in dirs:
            if re.fullmatch(rf"vernier-{pid}(-\d+)?", d):
                out.append(os.path.join(root, d))
    return out


def alive_matching(pattern):
    """Pids of running (not zombie) processes whose command line has pattern."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = Path("/proc", d, "cmdline").read_text().replace("\0", " ")
            stat = Path("/proc", d, "stat").read_text()
        except OSError:
            continue
        if pattern in cmd and stat[stat.rindex(")") + 2] != "Z":
            out.append(int(d))
    return out


def test_7_kill_9_of_run_leaves_no_command_running(tmp_path):
    adopt_orphans()
    marker = "sleep 30.123"

    def commands():
        """The command's processes: their command line is the marker
        itself (vernier's own has it as an argument)."""
        return [p for p in alive_matching(marker)
                if Path(f"/proc/{p}/cmdline").read_bytes().startswith(b"sleep\0")]
    v = subprocess.Popen([VERNIER, "run", "--runs", "100", marker],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not commands():
            time.sleep(0.05)
        assert commands(), "the command never started"
        # vernier's own helper, not another test's.
        helpers = [p for p in alive_matching("vernier-spawn")
                   if (stat_fields(p) or [None, None])[1] == str(v.pid)]
        assert helpers
    finally:
        v.kill()
        v.wait()

    def left():
        return commands() + [p for p in helpers if p in alive_matching("vernier-spawn")]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and left():
        time.sleep(0.1)
    assert left() == []
    for pid, state in children():  # the zombies adopted
        if state == "Z":
            os.waitpid(pid, os.WNOHANG)
    # Its cgroup, if it made one, goes with the next run.
    run("run", "--runs", "1", "true", timeout=60)
    assert cgroups_of(v.pid) == []


def test_7_kill_9_of_suite_leaves_no_folder_after_the_next(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    v = subprocess.Popen([VERNIER, "suite", "file.write.file"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    mine = []
    while time.monotonic() < deadline and not mine:
        mine = list(tmp_path.glob(f"vernier-suite-{v.pid}-*"))
        time.sleep(0.05)
    assert mine, "the suite made no folder"
    v.kill()
    v.wait()
    assert mine[0].exists()  # kill -9: nothing could remove it then
    p = subprocess.run([VERNIER, "suite", "--quick", "--quiet", "file.stat"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert not mine[0].exists()
    assert list(tmp_path.glob("vernier-suite-*")) == []


# ---- 8: a signal during a write leaves no temporary file ------------------------------------

def test_8_sigint_during_the_final_write_leaves_no_temporary_file(tmp_path):
    if not shutil.which("strace"):
        pytest.fail("no strace: scripts/install-deps --test installs it")
    if sanitized():
        pytest.skip("strace and the sanitizers' own tracing do not mix")
    a = write(tmp_path / "a.json", hyperfine([("x", [0.1, 0.2, 0.3])]))
    out = tmp_path / "out.json"
    # The rename of the finished file is held back 2 s: Ctrl-C comes then.
    p = subprocess.Popen(["strace", "-f", "-o", "/dev/null", "-e", "trace=rename",
                          "-e", "inject=rename:delay_enter=2000000",
                          VERNIER, "stats", "--json", str(out), str(tmp_path / "n.txt")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    (tmp_path / "n.txt").write_text("1\n2\n3\n")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(tmp_path.glob("out.json.tmp.*")):
        time.sleep(0.01)
    assert list(tmp_path.glob("out.json.tmp.*")), "the write never began"
    kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
    for k in kids:
        os.kill(int(k), signal.SIGINT)
    p.wait(timeout=30)
    assert list(tmp_path.glob("out.json.tmp.*")) == []
    # Held until the file was whole: it is there, complete.
    assert json.loads(out.read_text())["schema"].startswith("vernier.stats/")
    del a


# ---- 9: every output is checked before the work --------------------------------------------

def test_9_png_folder_is_checked_before_the_page(tmp_path):
    a = write(tmp_path / "a.json", hyperfine([("x", [0.1, 0.2, 0.3])]))
    page = tmp_path / "page.html"
    p = run("report", a, "-o", str(page), "--png", "/proc/no/such/folder", timeout=60)
    assert p.returncode == 1 and "--png" in p.stderr, p.stderr
    assert not page.exists()


# ---- messages ------------------------------------------------------------------------------

@pytest.mark.parametrize("text, names", [
    ("", []),
    ("  \n\t\n", []),
    ("[" * 1200 + "]" * 1200, ["1000"]),  # the most levels read
    ('{"results":[{"command":"a","times":[1e999]}]}', ["times[0]", "'a'"]),  # where, and whose
])
def test_messages_of_json_readers(tmp_path, text, names):
    (tmp_path / "f.json").write_text(text)
    for cmd in (["compare", "F", "F"], ["report", "F", "-o", str(tmp_path / "p.html")]):
        args = [str(tmp_path / "f.json") if w == "F" else w for w in cmd]
        p = run(*args, timeout=60)
        line = one_line(p.stderr)
        assert p.returncode == 1 and str(tmp_path / "f.json") in line, (cmd, line)
        assert all(n in line for n in names), (cmd, line)


def test_messages_of_numbers():
    # The line and the value that is refused, on one line.
    for value in ("1e999", "nan"):
        p = run("stats", input=f"1\n{value}\n")
        line = one_line(p.stderr)
        assert p.returncode == 1 and f"'{value}'" in line and re.search(r"\b2\b", line), line


def test_messages_name_the_cause(tmp_path):
    out = tmp_path / "r.json"
    p = run("suite", "--quick", "--quiet", "file.stat", "--json", str(out), env={"TMPDIR": "/nonexistent"},
            timeout=120)
    assert p.returncode == 0, p.stderr
    row = json.loads(out.read_text())["benchmarks"][0]
    assert row["stop"] == "skipped"
    for cause in ("TMPDIR", "'/nonexistent'", os.strerror(errno.ENOENT)):
        assert cause in row["error"], row["error"]
    # The summary's last line: the row skipped, and why.
    last = p.stdout.strip().splitlines()[-1]
    assert "skipped" in last and row["error"] in last, last
    # The variable is blamed, not the module: no word of loading it (insmod)
    # or of debugfs, where it would be.
    p = run("kbench", env={"VERNIER_KBENCH_DIR": str(tmp_path / "nokb")})
    line = one_line(p.stderr)
    assert p.returncode == 1 and "VERNIER_KBENCH_DIR" in line and str(tmp_path / "nokb") in line
    assert "insmod" not in line and "debugfs" not in line
    tens = ",".join(str(i) for i in range(10))
    p = run("run", "-r", "1", "-L", "a", tens, "-L", "b", tens, "-L", "c", tens, "-L", "d",
            tens + ",10", "echo {a}{b}{c}{d}")
    line = one_line(p.stderr)
    assert p.returncode == 2 and "11000" in line and "10000" in line, line
    assert "-L" in line and "--help" in line
    p = run("run", "--param", "..=1", "-r", "1", "echo {..}")
    line = one_line(p.stderr)
    assert p.returncode == 2 and "--param" in line and "'..'" in line, line


def test_no_number_in_a_message_is_written_with_an_exponent(tmp_path):
    for args in (["run", "-m", "0", "true"], ["run", "--max-time", "-1", "true"],
                 ["trace", "--duration", "-1", "x"]):
        p = run(*args)
        assert p.returncode == 2, (args, p.stderr)
        assert not re.search(r"\de[+-]\d", p.stderr), p.stderr


def test_report_child_killed_by_a_signal_is_said(tmp_path):
    """A benchmark program's --report runs the vernier tool beside it; one
    killed by a signal is said to be, not to have failed to start."""
    from test_engine_cli import link_libs
    from conftest import SOURCE
    src = tmp_path / "p.c"
    src.write_text('#include <vernier.h>\nstatic void f(vn_state *st) { while (vn_next(st)) '
                   'vn_keep(1); }\nVN_BENCH(f);\nint main(int c, char **v) { return vn_main(c, v); }\n')
    subprocess.run(["cc", "-std=c11", "-O2", "-I", str(SOURCE / "include"), str(src),
                    str(BUILD / "libvernier.a"), *link_libs(), "-o", str(tmp_path / "p")], check=True)
    tool = tmp_path / "vernier"
    tool.write_text("#!/bin/sh\nkill -9 $$\n")
    tool.chmod(0o755)
    p = subprocess.run([str(tmp_path / "p"), "--processes", "1", "--max-time", "0.05", "--quiet",
                        "--report", str(tmp_path / "r.html")], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 1
    # Its line names the option, the tool and the signal, by number and name.
    line = next((x for x in p.stderr.splitlines() if str(tool) in x), "")
    assert "--report" in line and re.search(r"\b9\b", line), p.stderr
    assert signal.strsignal(signal.SIGKILL) in line, line
    assert not (tmp_path / "r.html").exists()
