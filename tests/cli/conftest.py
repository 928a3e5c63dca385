"""Shared helpers for the end-to-end tests of the vernier tool."""
import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

VERNIER = os.environ.get("VERNIER", str(Path(__file__).resolve().parents[2] / "build" / "vernier"))
SOURCE = Path(os.environ.get("VN_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILD = Path(os.environ.get("VN_BUILD_DIR", SOURCE / "build"))


def cmake_cache(key):
    """The value of key in this build's CMakeCache.txt, "" when it is unset or
    the build has no cache."""
    path = BUILD / "CMakeCache.txt"
    m = re.search(rf"^{re.escape(key)}:\w+=(.*)$", path.read_text(), re.M) if path.exists() else None
    return m.group(1) if m else ""


def sanitized():
    return cmake_cache("VN_SANITIZE") == "ON"


# A test that builds the tool it runs (static, for a guest or another
# architecture) tests no part of the build under test: the sanitizer pass
# would run the same thing the plain pass runs.
BUILT_BY_THE_TEST = "runs a tool this test builds itself, not this build: the plain pass runs it"


def run(*args, check=None, timeout=60, env=None, **kw):
    """Runs vernier with args; returns the CompletedProcess (text mode)."""
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    if env:
        e.update(env)
    p = subprocess.run([VERNIER, *args], capture_output=True, text=True, timeout=timeout, env=e, **kw)
    if check is not None:
        assert p.returncode == check, (p.returncode, p.stdout, p.stderr)
    return p


def schema(name):
    return json.loads((SOURCE / "docs" / "schema" / name).read_text())


def _registry():
    """Every schema in docs/schema/, under its $id, which is its file name: a
    reference such as "env-1.json#/$defs/snapshot" resolves to its sibling
    by the standard rules, whether the schemas are registered by $id (as
    here) or loaded from files (relative to the referring file's URI)."""
    resources = []
    for f in sorted((SOURCE / "docs" / "schema").glob("*.json")):
        s = schema(f.name)
        assert s["$id"] == f.name, f"{f.name}: $id {s['$id']!r} is not the file's name"
        resources.append((s["$id"], Resource.from_contents(s)))
    return Registry().with_resources(resources)


SCHEMAS = _registry()


def validate(doc, name):
    """Validates doc against docs/schema/<name>, following references into the
    sibling schema files."""
    s = schema(name)
    jsonschema.Draft202012Validator.check_schema(s)
    jsonschema.Draft202012Validator(s, registry=SCHEMAS).validate(doc)


@pytest.fixture
def vernier():
    return run


def pytest_sessionfinish(session, exitstatus):
    """A file whose every test was skipped exits 77, which ctest shows as
    skipped: a machine that cannot run a test must not count as a pass."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or exitstatus != 0:
        return
    passed = len(reporter.stats.get("passed", []))
    skipped = len(reporter.stats.get("skipped", []))
    if skipped and not passed:
        session.exitstatus = 77


def wait_until(cond, timeout=60, what="the event"):
    """Waits until cond() is true: the event a test synchronizes on, looked
    at every 10 ms, never a fixed sleep; fails saying what did not come."""
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, f"{what} did not come within {timeout} s"
        time.sleep(0.01)


def lines_in(path):
    """How many lines the file at path holds (0 when it is not there yet)."""
    try:
        return path.read_text().count("\n")
    except FileNotFoundError:
        return 0


def pid_gone(pid):
    """Whether process pid has ended (gone, or a zombie left to reap)."""
    fields = stat_fields(pid)
    return fields is None or fields[0] == "Z"


def catches(pid, sig):
    """Whether process pid has a handler for signal sig (its SigCgt in
    /proc): a program of vernier's has set up its signals once it catches
    SIGTERM."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (int(sig) - 1) & 1)
    except (FileNotFoundError, ProcessLookupError):
        pass
    return False


def holds_open(pid, path):
    """Whether process pid has path open."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except (FileNotFoundError, ProcessLookupError):
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                return True
        except OSError:
            pass
    return False


def read_pty(fd, proc, timeout=60):
    """What proc writes to the pty whose master is fd, until it ends."""
    out = b""
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    return out.decode(errors="replace")


def stdout_on_a_terminal(argv, cols=None, env=None, timeout=60):
    """Runs argv with stdout on a pty cols columns wide (None: the pty's
    default), stderr to /dev/null: its stdout's text, line ends as a file
    has them, and the process."""
    master, slave = pty.openpty()
    if cols:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    proc = subprocess.Popen(argv, stdout=slave, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    try:
        return read_pty(master, proc, timeout).replace("\r\n", "\n"), proc
    finally:
        os.close(master)


def stderr_on_a_terminal(argv):
    """Runs argv with stderr on a pty (stdout a pipe): its stderr's text and
    the process."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    try:
        return read_pty(master, proc), proc
    finally:
        os.close(master)


def suite_quick(*args, timeout=300):
    """Runs `vernier suite --quick --quiet ARGS --json -`, which must exit 0
    with valid results: the results and the CompletedProcess."""
    p = run("suite", "--quick", "--quiet", *args, "--json", "-", timeout=timeout)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    return d, p


def adopt_orphans():
    """Makes this process the reaper of its descendants' orphans
    (PR_SET_CHILD_SUBREAPER): a child vernier leaves behind, running or a
    zombie it never waited for, becomes ours when vernier exits, where
    children() sees it."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(36, 1, 0, 0, 0) == 0, os.strerror(ctypes.get_errno())  # PR_SET_CHILD_SUBREAPER


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command's name (state, ppid,
    pgrp, session, ...), or None when the process is gone."""
    try:
        stat = Path("/proc", str(pid), "stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()


def children():
    """(pid, state) of every child of this process, adopted orphans too."""
    me, found = os.getpid(), []
    for d in os.listdir("/proc"):
        fields = stat_fields(d) if d.isdigit() else None
        if fields and int(fields[1]) == me:
            found.append((int(d), fields[0]))
    return found


def static_tool_sources():
    """The sources of a static vernier built by hand, for a machine with no
    libraries (the aarch64 emulator, a booted guest): without the helper
    programs, without vernier compare, report and the store (cJSON,
    SQLite), and vernier trace
    without libbpf or its BPF program (static_trace() adds them). Built
    with -DVN_NO_COMPARE."""
    dirs = [d for d in (SOURCE / "src").iterdir()
            if d.is_dir() and d.name not in ("compare", "htmlreport", "store")]
    return sorted(str(p) for d in (*dirs, SOURCE / "cli")
                  for p in d.glob("*.c")
                  if p.name not in ("spawn_helper.c", "noop_helper.c", "cmd_compare.c")
                  and not p.name.endswith(".bpf.c"))


# The Debian packages of the static archives a static vernier trace links.
STATIC_TRACE_PACKAGES = {"bpf": "libbpf-dev", "elf": "libelf-dev", "z": "zlib1g-dev"}


def static_trace():
    """What turns static_tool_sources()'s build into one with vernier trace,
    for a guest with a kernel that can trace: (arguments, None), the
    arguments to add to the compiler's after the sources (the define, the
    BPF program this build embedded, libbpf and what it needs statically),
    or (None, the reason it cannot be built here)."""
    obj = BUILD / "trace_bpf_obj.c"
    if not obj.is_file():
        return None, (f"this build has no BPF program ({obj}): configure it with libbpf-dev and "
                      "clang installed (scripts/install-deps --test)")
    p = subprocess.run(["pkg-config", "--static", "--libs", "libbpf"], capture_output=True, text=True)
    if p.returncode != 0:
        return None, "pkg-config does not know libbpf: install libbpf-dev (scripts/install-deps --test)"
    libs = p.stdout.split()
    for lib in (a[2:] for a in libs if a.startswith("-l")):
        found = subprocess.run(["gcc", f"-print-file-name=lib{lib}.a"], capture_output=True,
                               text=True).stdout.strip()
        if not os.path.isabs(found):
            package = STATIC_TRACE_PACKAGES.get(lib, f"the -dev package of lib{lib}")
            return None, (f"no static lib{lib}.a to link vernier trace into a static vernier: "
                          f"install {package} (scripts/install-deps --test)")
    return ["-DVN_HAVE_LIBBPF", str(obj), *libs], None


# In `make check` (VN_STRICT_DEPS=1), a test skipped for something that
# scripts/install-deps installs is a failure: the check installed it, so a
# skip there means the build or the test did not find it, and a skip that
# shows as a pass would hide that. Skips for what a machine lacks (KVM, a
# PMU, a kernel that traces) stay skips: their reasons do not name
# install-deps or a package left uninstalled.
INSTALLABLE = re.compile(r"install-deps|is not installed|not installed")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("VN_STRICT_DEPS") != "1" or not report.skipped:
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if INSTALLABLE.search(reason):
        report.outcome = "failed"
        report.longrepr = (f"skipped for what scripts/install-deps installs, which make check "
                           f"installed: {reason}")


def error_line(p, code, cmd, *names):
    """The one line on stderr with which `vernier CMD` refused something:
    one_line_error's checks, and the line starts with 'vernier CMD: '.
    Returns the line."""
    line = one_line_error(p, code, *(str(n) for n in names))
    assert line.startswith(f"vernier {cmd}: "), p.stderr
    return line


def names_in(text, *names):
    """Whether each of names (of benchmarks, commands, files) is in text as a
    whole name: 'x' is not found in 'x_plus_x' or 'BM_x/64'."""
    return all(re.search(rf"(?<![\w/=.-]){re.escape(str(n))}(?![\w/=.-])", text) for n in names)


def one_line(text):
    """The one line of a message (stderr), failing when there are more or
    none: an error is said in one line."""
    lines = text.strip("\n").splitlines()
    assert len(lines) == 1, text
    return lines[0]


def table_row(text, name):
    """The line of a console table whose first cell is name (a benchmark's
    name, as the table shows it); fails when there is none."""
    rows = [line for line in text.splitlines() if line.split(maxsplit=1)[:1] == [name]]
    assert rows, f"no row {name!r} in:\n{text}"
    return rows[0]


# ---- What an output means, not its words --------------------------------------
#
# A message's sentence may be reworded; what it is about may not: the exit
# code, the input it names (a file, an option, a value), the option it
# says to use, the numbers it shows, the ids of its findings. The one
# golden test of each output format (check_golden) keeps the words.

def one_line_error(p, code, *names):
    """Asserts that p (a CompletedProcess) exited with code and said why in
    one line of stderr naming each of names: the input the error is about
    and, when the message gives one, the option to use. Returns the
    line."""
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    line = one_line(p.stderr)
    for name in names:
        assert name in line, (name, line)
    return line


QUANTITY = re.compile(r"(?<![\w.+-])(?:\+-|-)?\d+(?:\.\d+)?(?:e[-+]?\d+)? (?:ns|us|ms|s|KiB|MiB|GiB)\b")


def quantities(text):
    """The numbers with a unit of time (ns, us, ms, s) or of memory (KiB,
    MiB, GiB) in text, in order, as printed: ["1.60 ms", "100 KiB",
    "+-3 ns"]."""
    return QUANTITY.findall(text)


def run_summaries(console):
    """The summaries of `vernier run`'s console, one a command: {command:
    {label: the rest of its line}}, from a command's name on a line of its
    own and the lines indented by two spaces below it ("  user     1.60
    ms ..." is {"user": "1.60 ms ..."})."""
    out, rows = {}, None
    for line in console.splitlines():
        if line and not line.startswith(" "):
            rows = out.setdefault(line, {})
            continue
        m = re.match(r"^  (\S+) +(.*)$", line)
        if m and rows is not None:
            rows[m.group(1)] = m.group(2)
    return {name: rows for name, rows in out.items() if rows}


def check_golden(name, text):
    """Compares text with tests/golden/NAME byte for byte: the one test of
    an output format that keeps its words. With VN_UPDATE_GOLDEN=1 it
    rewrites the file instead (then review the diff), as the reporters'
    golden tests do (tests/unit/golden.h)."""
    path = SOURCE / "tests" / "golden" / name
    if os.environ.get("VN_UPDATE_GOLDEN"):
        path.write_text(text)
        return
    assert path.is_file(), f"{path} is missing: VN_UPDATE_GOLDEN=1 writes it"
    want = path.read_text()
    assert text == want, f"the output differs from {path}:\n{text}"


def loads_nothing_at_run_time(path):
    """Whether the ELF program at path is static: among its program headers
    no interpreter (PT_INTERP) and no dynamic section (PT_DYNAMIC), so
    nothing is loaded or linked when it starts. False for a file that is
    not ELF."""
    import struct
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF":
        return False
    order = "<" if data[5] == 1 else ">"
    if data[4] == 2:  # ELFCLASS64
        (phoff,) = struct.unpack_from(order + "Q", data, 0x20)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x36)
    else:
        (phoff,) = struct.unpack_from(order + "I", data, 0x1C)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x2A)
    types = {struct.unpack_from(order + "I", data, phoff + i * phentsize)[0] for i in range(phnum)}
    return not types & {2, 3}  # PT_DYNAMIC, PT_INTERP


def next_run(value, lo, hi):
    """The interval for the next run from the estimate's own [lo, hi]: each
    side widened by sqrt(2) on the log scale (src/stats/levels.c); one that
    reaches 0 (an estimate's interval that said 0 for below it) on the
    linear scale, its lower end 0."""
    w = 2 ** 0.5
    if lo > 0:
        return [value * (lo / value) ** w, value * (hi / value) ** w]
    return [0, value + w * (hi - value)]
