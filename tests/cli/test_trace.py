"""`vernier trace`: a workload calls the getppid system call a known number
of times while vernier traces the system call's kernel function with
--pid, and the calls counted must be exactly that number; the JSON is a
valid vernier.results/1 document. Where this kernel cannot trace (no
libbpf in the build, not root, fentry refused and no kprobes) the tracing
tests skip with vernier's own reason; the errors and options are checked
everywhere. test_kbench.py traces the same way in a kernel booted under
QEMU, with both kinds of probe, so the tracing is checked on every
machine that can boot it."""
import json
import os
import select
import shutil
import subprocess
import sys
import time

import pytest

from conftest import VERNIER, run, validate

# The getppid system call's kernel function, by architecture and age.
GETPPID = ("__x64_sys_getppid", "__arm64_sys_getppid", "__do_sys_getppid", "__se_sys_getppid")

# The workload: waits for a line, then calls getppid N times and exits.
WORKLOAD = "import os, sys\nn = int(sys.argv[1])\nsys.stdin.readline()\n" \
           "for _ in range(n):\n    os.getppid()\n"


def kallsyms():
    try:
        with open("/proc/kallsyms") as f:
            return {line.split()[2] for line in f if len(line.split()) >= 3}
    except OSError:
        return set()


def getppid_candidates():
    names = kallsyms()
    return [f for f in GETPPID if f in names]


# What the kernel or the build says when tracing cannot work at all here;
# anything else is a failure of vernier.
CANNOT = ("built without libbpf", "needs root", "no kprobes", "not permitted")


@pytest.fixture(scope="module")
def func():
    """The getppid function vernier can trace here, or a skip with the reason."""
    cands = getppid_candidates()
    if not cands:
        pytest.skip("no getppid system call function in /proc/kallsyms")
    reasons = []
    for f in cands:
        p = run("trace", f, "--duration", "0.2", timeout=60)
        if p.returncode in (0, 1) and ("tracing " + f) in p.stderr:
            return f
        line = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        if not any(c in line for c in CANNOT):
            pytest.fail(f"vernier trace {f} failed: {line}")
        reasons.append(line)
    pytest.skip("this machine cannot trace kernel functions: " + reasons[0])


def trace_workload(func, n, *extra):
    """Runs the workload under vernier trace --pid; returns (rc, stdout, stderr)."""
    w = subprocess.Popen([sys.executable, "-c", WORKLOAD, str(n)], stdin=subprocess.PIPE, text=True)
    t = subprocess.Popen([VERNIER, "trace", func, "--pid", str(w.pid), "--duration", "120", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The line vernier prints once its probes are attached.
        ready, end = "", time.monotonic() + 60
        while "tracing" not in ready and time.monotonic() < end and t.poll() is None:
            if select.select([t.stderr], [], [], 1)[0]:
                ready += t.stderr.readline()
        assert "tracing " + func in ready, (ready, t.poll())
        w.stdin.write("go\n")
        w.stdin.flush()
        assert w.wait(timeout=60) == 0
        out, err = t.communicate(timeout=60)
        return t.returncode, out, ready + err
    finally:
        for p in (w, t):
            if p.poll() is None:
                p.kill()
                p.wait()


def test_counts_every_call_of_the_workload(func):
    n = 5000
    rc, out, err = trace_workload(func, n, "--json", "-")
    assert rc == 0, err
    d = json.loads(out)
    validate(d, "results-1.json")
    (b,) = d["benchmarks"]
    assert b["name"] == func
    assert len(b["samples"]) == n
    assert all(s["value"] > 0 and s["iters"] == 1 for s in b["samples"])
    ids = [f["id"] for f in d.get("findings", [])]
    assert "trace" in ids and "trace_probe_cost" in ids
    assert "trace_lost" not in ids


def test_console_report_says_mode_and_probe_cost(func):
    rc, out, err = trace_workload(func, 1000, "--hist")
    assert rc == 0, err
    assert f"traced {func} with " in out
    assert "1000 calls" in out
    assert "probe cost" in out


def test_calls_stops_at_the_count(func):
    rc, out, err = trace_workload(func, 3000, "--calls", "100", "--json", "-")
    assert rc == 0, err
    assert len(json.loads(out)["benchmarks"][0]["samples"]) == 100


def test_unknown_function():
    p = run("trace", "vernier_no_such_function", "--duration", "1")
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    if "built without libbpf" in lines[0] or "needs root" in lines[0]:
        pytest.skip(lines[0])
    assert lines[0] == ("vernier trace: unknown function 'vernier_no_such_function': not in the "
                        "kernel's symbols (/proc/kallsyms)")


def test_not_root_is_refused():
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        pytest.skip("needs root and setpriv to drop to an unprivileged user")
    p = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                        "--inh-caps=-all", VERNIER, "trace", "vfs_read"],
                       capture_output=True, text=True, timeout=60)
    if "built without libbpf" in p.stderr:
        pytest.skip(p.stderr.strip())
    if p.returncode == 126 or "Permission denied" in p.stderr:
        pytest.skip("the unprivileged user cannot run the build's vernier: " + p.stderr.strip())
    assert (p.returncode, p.stderr) == (1, "vernier trace: needs root (CAP_BPF and CAP_PERFMON)\n")


@pytest.mark.parametrize("args, message", [
    ([], "name the kernel function to trace"),
    ([f"f{i}" for i in range(33)], "at most 32 functions at once"),
    (["vfs_*;"], "'vfs_*;' is not a kernel function's name"),
    (["vfs_read", "-i", "0"], "--interval needs a number from 0.01 to"),
    (["vfs_read;ls"], "'vfs_read;ls' is not a kernel function's name"),
    (["vfs_read", "--calls", "0"], "--calls needs a whole number from 1 to"),
    (["vfs_read", "--calls", "1.5"], "--calls needs a whole number from 1 to"),
    (["vfs_read", "--duration", "soon"], "--duration needs a number from 0.001 to"),
    (["vfs_read", "--pid", "-3"], "--pid needs a whole number from 1 to"),
    (["vfs_read", "--cpu", "8191"], "--cpu 8191: this machine has CPUs 0 to"),
    (["vfs_read", "--json", ""], "--json"),
    (["vfs_read", "--frobnicate"], "unknown option"),
])
def test_usage_errors(args, message):
    if args[-2:] == ["--cpu", "8191"] and os.cpu_count() > 8191:
        pytest.skip("this machine has a CPU 8191")
    p = run("trace", *args)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert message in p.stderr


def test_gone_pid_is_a_failure():
    p = subprocess.Popen(["true"])
    p.wait()
    r = run("trace", "vfs_read", "--pid", str(p.pid))
    assert r.returncode == 1
    if not any(c in r.stderr for c in ("built without libbpf", "needs root")):
        assert f"--pid {p.pid}: no such process" in r.stderr
