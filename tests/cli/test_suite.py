"""vernier suite: the registry, the command line, and the loop and syscall
families in --quick mode. The other families have test files of their own
(test_suite_FAMILY.py)."""
import re

import pytest

from conftest import SOURCE, run, suite_quick as quick


def registry():
    """(family, name) of every benchmark, as src/suite/registry.h lists them."""
    text = (SOURCE / "src" / "suite" / "registry.h").read_text()
    return re.findall(r'X\((\w+), "([\w.]+)"', text)


def test_list_shows_every_benchmark_of_the_registry_once():
    p = run("suite", "--list", check=0)
    names = [line.split()[0] for line in p.stdout.splitlines()]
    assert names == [n for _, n in registry()]
    assert all(len(line) <= 130 for line in p.stdout.splitlines())
    # A family selects its benchmarks, a name just one.
    p = run("suite", "--list", "syscall", check=0)
    assert [line.split()[0] for line in p.stdout.splitlines()] == [n for f, n in registry() if f == "syscall"]
    p = run("suite", "--list", "syscall.time", check=0)
    assert [line.split()[0] for line in p.stdout.splitlines()] == ["syscall.time"]
    # A dotted prefix between the two selects the names it begins, whole
    # parts only.
    p = run("suite", "--list", "memory.latency", check=0)
    assert [line.split()[0] for line in p.stdout.splitlines()] == [
        n for _, n in registry() if n.startswith("memory.latency.")]
    assert len(p.stdout.splitlines()) >= 2
    assert run("suite", "--list", "memory.lat").returncode == 2


def test_bad_input_is_a_usage_error_with_one_line():
    for args, words in [(["nosuch"], "no benchmark or family 'nosuch'"),
                        (["--sizes", "4,x"], "--sizes '4,x'"),
                        (["--sizes", "0"], "--sizes '0'"),
                        (["--sizes", "2G"], "--sizes '2G'"),
                        (["--cpus", "0"], "--cpus '0'"),
                        (["--cpus", "0,99999"], "--cpus '0,99999'"),
                        (["--bogus"], "--bogus"),
                        (["--max-time"], "--max-time")]:
        p = run("suite", *args)
        assert p.returncode == 2, (args, p.stderr)
        assert words in p.stderr and len(p.stderr.strip().splitlines()) == 1, (args, p.stderr)
        assert p.stdout == ""


def test_loop_rows_and_their_fitted_line():
    d, p = quick("loop")
    rows = {b["name"]: b for b in d["benchmarks"]}
    counts = [10 ** k for k in range(2, 8)]
    assert list(rows) == [f"loop/n={n}" for n in counts]
    for n in counts:
        b = rows[f"loop/n={n}"]
        assert b["params"] == {"n": n}
        # One call a sample, timed whole: no empty loop taken off.
        assert all(s["iters"] == 1 for s in b["samples"])
        assert b["stats"]["median"] > 0
    # Time grows with the count: ten times the count, several times the time
    # once the fixed part no longer dominates.
    med = [rows[f"loop/n={n}"]["stats"]["median"] for n in counts]
    assert med[-1] > 100 * med[2]
    fit = [f for f in d["findings"] if f["id"] == "loop.fit"]
    assert len(fit) == 1 and fit[0]["explanation"]
    m = re.match(r"loop: ([\d.e+-]+) ns an iteration, ([\d.e+-]+) ns fixed", fit[0]["brief"])
    assert m, fit[0]["brief"]
    per = float(m.group(1))
    # The fitted cost of an iteration is of the long loops' own time per
    # iteration (within a factor that a loaded machine cannot break: their
    # fastest sample is the loop undisturbed, their median may not be).
    fastest = rows[f"loop/n={counts[-1]}"]["stats"]["min"] / counts[-1]
    assert fastest / 3 < per < fastest * 3
    assert fit[0]["brief"] in p.stderr


def test_syscall_rows_kernel_entry_against_the_vdso():
    d, p = quick("syscall")
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert set(rows) == {"syscall.getppid", "syscall.getpid", "syscall.clock_gettime.vdso",
                         "syscall.clock_gettime.syscall", "syscall.gettimeofday", "syscall.time"}
    for b in rows.values():
        assert b["error"] is None and b["stats"]["median"] > 0, b["name"]
    # The same clock read through the vDSO costs less than by entering the kernel.
    assert rows["syscall.clock_gettime.vdso"]["stats"]["median"] < rows["syscall.clock_gettime.syscall"]["stats"]["median"]
    f = [f for f in d["findings"] if f["id"] == "syscall.entry"]
    assert len(f) == 1 and f[0]["brief"].startswith("syscall")
    assert len(f[0]["brief"]) <= 100
    # Kernel entry (getppid), the vDSO's clock and the same clock by a
    # system call, in that order: each its row's median, in ns.
    said = [float(v) for v in re.findall(r"(?<![\w.])(\d+(?:\.\d+)?(?:e[+-]?\d+)?) ns\b", f[0]["brief"])]
    medians = [rows[n]["stats"]["median"] for n in ("syscall.getppid", "syscall.clock_gettime.vdso",
                                                     "syscall.clock_gettime.syscall")]
    assert said == pytest.approx(medians, rel=0.01), f[0]["brief"]
    if d["clock"]["counter_hz"]:
        assert "ticks" in f[0]["brief"]


def test_engine_options_pass_through_and_console_lines_fit():
    p = run("suite", "--quick", "--quiet", "syscall.time", "--filter", "time", "--csv", "-", check=0, timeout=120)
    lines = p.stdout.splitlines()
    assert lines[0].startswith("name,") and len(lines) == 2 and lines[1].startswith("syscall.time,")
    p = run("suite", "--quick", "--quiet", "syscall", check=0, timeout=120)
    for line in p.stdout.splitlines()[1:]:
        if line and not line.startswith("syscall."):
            assert len(line) <= 100, line
