"""`vernier trace`: a workload calls the getppid system call a known number
of times while vernier traces the system call's kernel function with
--pid, and the calls counted must be exactly that number; the JSON is a
valid vernier.results/1 document. Where this kernel cannot trace (no
libbpf in the build, not root, a kernel locked down, fentry refused and
no kprobes) the tracing tests skip saying why; the errors and options are
checked everywhere. test_kbench.py traces the same way in a kernel booted
under QEMU, with both kinds of probe, so the tracing is checked on every
machine that can boot it."""
import errno
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time

import pytest

from conftest import BUILD, VERNIER, one_line_error, run, validate

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


def bpf_built():
    """Whether this build has vernier trace's BPF program (libbpf and clang
    were found when it was configured)."""
    return (BUILD / "trace_bpf_obj.c").is_file()


NOT_BUILT = ("this build has no BPF program for vernier trace: install libbpf-dev and clang "
             "(scripts/install-deps --test) and rebuild")


def capable():
    """Whether this process may trace, by vernier's rule: CAP_SYS_ADMIN, or
    CAP_BPF (39) and CAP_PERFMON (38), among its effective capabilities."""
    with open("/proc/self/status") as f:
        eff = next(int(l.split()[1], 16) for l in f if l.startswith("CapEff:"))
    return bool(eff >> 21 & 1 or (eff >> 38 & 1 and eff >> 39 & 1))


def locked_down():
    """The kernel's lockdown mode when one is in force (it forbids reading
    kernel memory from BPF), else None."""
    try:
        with open("/sys/kernel/security/lockdown") as f:
            mode = re.search(r"\[(\w+)\]", f.read())
    except OSError:
        return None
    return mode.group(1) if mode and mode.group(1) != "none" else None


def cannot_trace():
    """Why nothing can be traced here, whatever the function, or None."""
    if not bpf_built():
        return NOT_BUILT
    if not capable():
        return "tracing needs root (CAP_BPF and CAP_PERFMON)"
    if locked_down():
        return f"the kernel is locked down ({locked_down()})"
    return None


@pytest.fixture(scope="module")
def func():
    """The getppid function vernier can trace here, or a skip with the reason."""
    why = cannot_trace()
    if why:
        pytest.skip(why)
    cands = getppid_candidates()
    if not cands:
        pytest.skip("no getppid system call function in /proc/kallsyms")
    # Without kprobes only fentry/fexit can attach, which the kernel may
    # refuse (no BTF of the function, a security policy): then the
    # machine cannot trace, and vernier's reason says why. With them, a
    # failure is vernier's.
    kprobes = "register_kprobe" in kallsyms()
    reasons = []
    for f in cands:
        p = run("trace", f, "--duration", "0.2", timeout=60)
        lines = p.stderr.strip().splitlines()
        # Attached: its first line came once the probes were in place, and
        # the trace went on (to exit 1 when no call came in 0.2 s).
        if p.returncode == 0 or (p.returncode == 1 and len(lines) >= 2):
            return f
        line = lines[-1] if lines else f"exit {p.returncode}"
        if kprobes:
            pytest.fail(f"vernier trace {f} failed: {line}")
        reasons.append(line)
    pytest.skip("this kernel has no kprobes, and fentry/fexit cannot attach: " + reasons[0])


def trace_workload(func, n, *extra):
    """Runs the workload under vernier trace --pid; returns (rc, stdout, stderr)."""
    w = subprocess.Popen([sys.executable, "-c", WORKLOAD, str(n)], stdin=subprocess.PIPE, text=True)
    t = subprocess.Popen([VERNIER, "trace", func, "--pid", str(w.pid), "--duration", "120", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The line vernier prints once its probes are attached, its first.
        ready, end = "", time.monotonic() + 60
        while not ready and time.monotonic() < end and t.poll() is None:
            if select.select([t.stderr], [], [], 1)[0]:
                ready = t.stderr.readline()
        assert func in ready, (ready, t.poll())
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


def test_console_report_says_mode_and_probe_cost(func, tmp_path):
    rc, out, err = trace_workload(func, 1000, "--hist", "--json", str(tmp_path / "t.json"))
    assert rc == 0, err
    briefs = {f["id"]: f["brief"] for f in json.loads((tmp_path / "t.json").read_text())["findings"]}
    # The finding of the calls names the function, the kind of probes and
    # the count; it and the probes' cost are lines of the console.
    trace = briefs["trace"]
    assert func in trace and re.search(r"\b1000\b", trace), trace
    assert "fentry/fexit" in trace or "kprobe/kretprobe" in trace, trace
    lines = out.splitlines()
    assert trace in lines and briefs["trace_probe_cost"] in lines, out


def test_calls_stops_at_the_count(func):
    rc, out, err = trace_workload(func, 3000, "--calls", "100", "--json", "-")
    assert rc == 0, err
    assert len(json.loads(out)["benchmarks"][0]["samples"]) == 100


def test_unknown_function():
    p = run("trace", "vernier_no_such_function", "--duration", "1")
    line = one_line_error(p, 1)
    # The build and the capabilities are checked first.
    if not bpf_built() or not capable():
        pytest.skip(line)
    # It names the function and where it looked.
    one_line_error(p, 1, "'vernier_no_such_function'", "/proc/kallsyms")


def test_not_root_is_refused():
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        pytest.skip("needs root and setpriv to drop to an unprivileged user")
    p = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                        "--inh-caps=-all", VERNIER, "trace", "vfs_read"],
                       capture_output=True, text=True, timeout=60)
    if not bpf_built():
        pytest.skip(NOT_BUILT)
    if p.returncode == 126 or os.strerror(errno.EACCES) in p.stderr:
        pytest.skip("the unprivileged user cannot run the build's vernier: " + p.stderr.strip())
    # It names the capabilities that tracing needs.
    one_line_error(p, 1, "CAP_BPF", "CAP_PERFMON")


# Each is a usage error of one line that names what was wrong: the option
# and the value given, the name that is not a function's, the limit.
@pytest.mark.parametrize("args, names", [
    ([], ("--help",)),
    ([f"f{i}" for i in range(33)], ("32",)),
    (["vfs_*;"], ("'vfs_*;'",)),
    (["vfs_read", "-i", "0"], ("--interval", "'0'")),
    (["vfs_read;ls"], ("'vfs_read;ls'",)),
    (["vfs_read", "--calls", "0"], ("--calls", "'0'")),
    (["vfs_read", "--calls", "1.5"], ("--calls", "'1.5'")),
    (["vfs_read", "--duration", "soon"], ("--duration", "'soon'")),
    (["vfs_read", "--pid", "-3"], ("--pid", "'-3'")),
    (["vfs_read", "--cpu", "8191"], ("--cpu 8191",)),
    (["vfs_read", "--json", ""], ("--json",)),
    (["vfs_read", "--frobnicate"], ("'--frobnicate'",)),
])
def test_usage_errors(args, names):
    if args[-2:] == ["--cpu", "8191"] and os.cpu_count() > 8191:
        pytest.skip("this machine has a CPU 8191")
    one_line_error(run("trace", *args), 2, *names)


def test_gone_pid_is_a_failure():
    p = subprocess.Popen(["true"])
    p.wait()
    r = run("trace", "vfs_read", "--pid", str(p.pid))
    line = one_line_error(r, 1)
    # The build and the capabilities are checked first.
    if bpf_built() and capable():
        assert f"--pid {p.pid}" in line, line
