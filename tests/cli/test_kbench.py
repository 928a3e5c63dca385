"""vernier kbench and the kernel module it reads, and vernier trace in the
same kernel. This machine's own kernel may not load modules (nor trace),
so the module is built against the headers of the kernel
scripts/install-deps unpacked (the same Debian package version, so its
vermagic matches), packed with BusyBox, a static vernier (with vernier
trace and libbpf when their static archives are installed) and a static
workload into an initramfs, and loaded in that kernel booted under QEMU
(vm.py). Timings under emulation mean nothing; what is checked is that
every number is consistent, bad knob values are refused, the module
unloads cleanly, even mid-run, a failed allocation (a test hook of the
module) frees what the run made, and vernier trace counts exactly the
calls the workload made. The tool's own reading, errors and reports are checked on this
machine too, against a fake sysfs folder (VERNIER_KBENCH_SYSFS)."""
import json
import random
import statistics
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import vm
from conftest import SOURCE, run, static_tool_sources, static_trace, validate

TARGETS = ["empty", "fib_lookup", "get_random_u32", "kmalloc_64", "ktime_get"]


# ---- the tool against a fake module folder ---------------------------------

def fake_module(root, cycles):
    """A folder shaped like the module's: each target's knobs, its run
    summary and samples (cycles[target]: the calls' counts)."""
    for t, xs in cycles.items():
        d = root / t
        d.mkdir(parents=True)
        for k in ("loop_count", "warmup", "irqs_off"):
            (d / k).write_text("0\n")
        s = sorted(xs)
        (d / "run").write_text(f"min {s[0]} max {s[-1]} count {len(xs)} p50 {s[len(s) // 2]} "
                               f"p90 {s[-1]} p95 {s[-1]} p99 {s[-1]} mad 0\n")
        (d / "samples").write_text("".join("%20d\n" % x for x in xs))
    (root / "fib_lookup" / "dst").write_text("127.0.0.1\n")
    return root


@pytest.fixture
def fake(tmp_path):
    rng = random.Random(7)
    return fake_module(tmp_path / "vernier", {
        "empty": [100 + rng.randrange(5) for _ in range(200)],
        "ktime_get": [300 + rng.randrange(20) for _ in range(200)],
        "fib_lookup": [900 + rng.randrange(50) for _ in range(200)],
    })


def kbench(root, *args):
    return run("kbench", *args, env={"VERNIER_KBENCH_SYSFS": str(root)})


def test_results_are_the_calls_in_ns_net_of_the_empty_target(fake):
    p = kbench(fake, "--json", "-", "--loop-count", "200", "--warmup", "7", "--dst", "10.1.2.3")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    validate(d, "results-1.json")
    hz = d["clock"]["counter_hz"]
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert sorted(rows) == ["empty", "fib_lookup", "ktime_get"]
    empty = sorted(int(x) for x in (fake / "empty" / "samples").read_text().split())
    overhead = (empty[99] + empty[100]) / 2 * 1e9 / hz
    k = rows["ktime_get"]
    assert k["overhead"]["ns"] == pytest.approx(overhead, rel=1e-6)
    raw = [int(x) for x in (fake / "ktime_get" / "samples").read_text().split()]
    assert [s["value"] for s in k["samples"]] == pytest.approx([x * 1e9 / hz for x in raw], rel=1e-6)
    assert k["stats"]["median"] == pytest.approx(statistics.median(raw) * 1e9 / hz - overhead, rel=1e-6)
    # The knobs were written as asked, the parameter only where it exists.
    assert (fake / "ktime_get" / "loop_count").read_text() == "200\n"
    assert (fake / "ktime_get" / "warmup").read_text() == "7\n"
    assert (fake / "ktime_get" / "irqs_off").read_text() == "0\n"
    assert (fake / "fib_lookup" / "dst").read_text() == "10.1.2.3"
    assert not (fake / "ktime_get" / "dst").exists()


def test_named_targets_only_and_the_table(fake):
    p = kbench(fake, "ktime_get", "--hist")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split()[0] == "benchmark"
    assert [l.split()[0] for l in lines[1:2]] == ["ktime_get"]
    assert not any(l.startswith(("empty ", "fib_lookup ")) for l in lines)
    assert "vernier_kbench" in p.stdout
    assert max(len(l) for l in p.stdout.splitlines()) <= 120


def test_errors_say_what_to_do(fake, tmp_path):
    p = kbench(tmp_path / "absent")
    assert p.returncode == 1
    # The folder was named by VERNIER_KBENCH_SYSFS: the message names it,
    # not a module to load.
    assert p.stderr == (f"vernier kbench: VERNIER_KBENCH_SYSFS names {tmp_path / 'absent'}, which "
                        "does not exist; unset it for the module's own folder, or point it at "
                        "one\n")
    p = kbench(fake, "nope")
    assert p.returncode == 2
    assert "unknown target 'nope'; the targets are: empty fib_lookup ktime_get" in p.stderr
    for bad in (["--loop-count", "0"], ["--loop-count", "1000001"], ["--param", "dst"],
                ["--param", "=1"], ["--warmup", "x"]):
        p = kbench(fake, *bad)
        assert p.returncode == 2, (bad, p.stderr)
        assert len(p.stderr.splitlines()) == 1, p.stderr
    p = kbench(fake, "ktime_get", "--dst", "1.2.3.4")
    assert p.returncode == 2 and "no target asked for has a setting 'dst'" in p.stderr
    (fake / "ktime_get" / "samples").write_text("12\nx\n")
    p = kbench(fake, "ktime_get")
    assert p.returncode == 1 and "not one count a line" in p.stderr


def test_list(fake):
    p = kbench(fake, "--list")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].split() == ["empty", "loop_count=0", "warmup=0", "irqs_off=0"]
    assert "dst=127.0.0.1" in p.stdout


# ---- the module, in a kernel of its own ---------------------------------------

HEADERS = Path("/lib/modules") / (vm.kernel_release() or "none") / "build" \
    if vm.KERNEL.is_file() else None

# How many times the workload calls getppid while vernier traces it.
CALLS = 12345

# Every target runs through vernier kbench; then the module's own files are
# checked by hand: bad values written to the knobs must fail (the shell's
# echo reports the write's error), a user who is not root cannot set them,
# and after rmmod nothing is left under /sys/kernel/vernier. Then vernier
# trace counts the workload's getppid calls with each kind of probe.
INIT = vm.INIT_START + r"""ip link set lo up
mkdir -p /out /etc
echo 'nobody:x:65534:65534::/:/bin/sh' > /etc/passwd
cd /v
insmod ./vernier_kbench.ko > /out/insmod 2>&1; echo $? >> /out/insmod
ls /sys/kernel/vernier > /out/targets
./vernier kbench --loop-count 3000 --warmup 20 --json /out/all.json > /out/all.out 2>&1
echo $? > /out/all.rc
./vernier kbench --irqs-off --loop-count 500 --dst 10.9.8.7 --json /out/irqs.json \
    kmalloc_64 fib_lookup > /out/irqs.out 2>&1
echo $? > /out/irqs.rc
K=/sys/kernel/vernier
{
    cat $K/fib_lookup/dst $K/kmalloc_64/irqs_off $K/ktime_get/loop_count
    for v in 0 -1 abc 1000001 99999999999 ''; do
        echo "$v" > $K/ktime_get/loop_count && echo "loop_count $v accepted" || echo "loop_count $v refused"
    done
    for v in 1000001 x; do
        echo "$v" > $K/ktime_get/warmup && echo "warmup $v accepted" || echo "warmup $v refused"
    done
    for v in 2 maybe; do
        echo "$v" > $K/ktime_get/irqs_off && echo "irqs_off $v accepted" || echo "irqs_off $v refused"
    done
    for v in 1.2.3 300.1.1.1 '10.0.0.1 x' ''; do
        echo "$v" > $K/fib_lookup/dst && echo "dst $v accepted" || echo "dst $v refused"
    done
    echo 7 > $K/ktime_get/loop_count && echo "loop_count 7 accepted"
    cat $K/ktime_get/loop_count
} > /out/knobs 2>&1
cat $K/ktime_get/run > /out/run 2>&1
wc -l < $K/ktime_get/samples > /out/nsamples
cat $K/ktime_get/hist > /out/hist 2>&1
su nobody -s /bin/sh -c './vernier kbench ktime_get' > /out/user.out 2>&1
echo $? > /out/user.rc
rmmod vernier_kbench > /out/rmmod 2>&1; echo $? >> /out/rmmod
ls /sys/kernel/vernier > /out/after 2>&1; echo $? >> /out/after
./vernier kbench > /out/unloaded.out 2>&1; echo $? > /out/unloaded.rc

# The cleanup paths. fail_alloc=N, a test hook set at load, fails the Nth
# allocation of a run's arrays: 3 is the first array of the second run, 4
# its second, made after the first. The failed run must fail its read with
# ENOMEM (dd reads with read(); BusyBox cat retries a failed sendfile with
# read, which would run again), free what it made (VmallocUsed, in kB: the
# arrays of a million calls are 8 and 16 MB, from vmalloc), and keep the
# last run's samples; the next run must work, and rmmod too.
vmalloc() { awk '/^VmallocUsed/ {print $2}' /proc/meminfo; }
for n in 3 4; do
    {
        insmod ./vernier_kbench.ko fail_alloc=$n; echo "insmod $?"
        echo 5 > $K/empty/loop_count
        dd if=$K/empty/run bs=4096 status=none > /dev/null; echo "run $?"
        echo 1000000 > $K/empty/loop_count
        a=$(vmalloc)
        dd if=$K/empty/run bs=4096 status=none; echo "run $?"
        echo "vmalloc $a $(vmalloc)"
        echo "samples $(wc -l < $K/empty/samples)"
        echo 7 > $K/empty/loop_count
        dd if=$K/empty/run bs=4096 status=none; echo "run $?"
        rmmod vernier_kbench; echo "rmmod $?"
    } > /out/fail$n 2>&1
done

# Unloading in the middle of the longest run the module allows (a million
# calls after a million untimed ones). rmmod starts once the reader is in
# vk_run, and is caught waiting for it (kernfs_drain, in the removal of
# the run's folder) while the reader still is inside: both stacks are
# sent. Then rmmod must succeed and the reader get the whole summary; its
# next read, which would find the end of the file, finds the file gone.
state() { cut -d' ' -f3 /proc/$1/stat 2> /dev/null; }
# until_in PID FUNCTION: waits until FUNCTION is on PID's kernel stack, or
# PID has ended.
until_in() {
    while ! grep -q "$2" /proc/$1/stack 2> /dev/null && [ -n "$(state $1)" ] && [ "$(state $1)" != Z ]; do
        :
    done
}
insmod ./vernier_kbench.ko
echo 1000000 > $K/kmalloc_64/loop_count
echo 1000000 > $K/kmalloc_64/warmup
cat $K/kmalloc_64/run > /out/midrun.run 2>&1 &
r=$!
until_in $r vk_run
rmmod vernier_kbench > /out/midrun.rmmod 2>&1 &
m=$!
until_in $m kernfs_drain
{
    echo "--- rmmod"; cat /proc/$m/stack
    echo "--- reader"; cat /proc/$r/stack
} > /out/midrun.stacks 2>&1
wait $r; echo $? > /out/midrun.rc
wait $m; echo $? >> /out/midrun.rmmod
{
    ls /sys/kernel/vernier; echo "ls $?"
    grep vernier_kbench /proc/modules; echo "modules $?"
} > /out/midrun.after 2>&1
dmesg | grep -E 'BUG|WARNING|Oops|kmemleak|Call Trace|blocked for more than' > /out/dmesg

# trace NAME ARGS...: vernier trace ARGS on the workload, into /out/NAME.*.
# The workload waits on a FIFO until vernier says its probes are attached
# (or has failed), so the calls traced must be exactly the calls made. The
# JSON file is made empty first, so that a failed trace still sends it.
trace() {
    n=$1; shift
    : > /out/$n.json
    mkfifo /tmp/go
    ./getppid_calls @CALLS@ < /tmp/go &
    w=$!
    ./vernier trace --pid $w --duration 60 --json /out/$n.json "$@" > /out/$n.out 2> /out/$n.err &
    t=$!
    i=0
    while [ $i -lt 600 ] && kill -0 $t 2> /dev/null && ! grep -q 'vernier trace: tracing' /out/$n.err; do
        sleep 0.1; i=$((i + 1))
    done
    echo go > /tmp/go
    wait $w; echo $? > /out/$n.wrc
    wait $t; echo $? > /out/$n.rc
    rm /tmp/go
}
trace kprobe --kprobe __x64_sys_getppid
trace fentry __do_sys_getppid
./vernier trace vernier_no_such_function > /out/unknown.out 2>&1; echo $? > /out/unknown.rc
stty -F /dev/ttyS1 raw -echo
{
    for f in /out/*; do echo "=== $(basename $f)"; cat $f; done
    echo "=== done"
} > /dev/ttyS1
sync
poweroff -f
""".replace("@CALLS@", str(CALLS))

FILES = {"insmod", "targets", "all.json", "all.out", "all.rc", "irqs.json", "irqs.out", "irqs.rc",
         "knobs", "run", "nsamples", "hist", "user.out", "user.rc", "rmmod", "after",
         "unloaded.out", "unloaded.rc", "unknown.out", "unknown.rc", "fail3", "fail4",
         "midrun.run", "midrun.rc", "midrun.rmmod", "midrun.stacks", "midrun.after", "dmesg",
         *(f"{kind}.{ext}" for kind in ("kprobe", "fentry") for ext in ("json", "out", "err", "rc", "wrc"))}


def parse_files(text):
    """{name: text} of the files the guest sent; ValueError when the
    transfer is incomplete, so a short one is never taken for results."""
    if not re.search(r"^=== done$", text, re.M):
        raise ValueError("the results port has no '=== done' line: the guest did not finish")
    files = dict(re.findall(r"^=== (\S+)\n(.*?)(?=^=== )", text, re.M | re.S))
    if set(files) != FILES:
        raise ValueError(f"files {sorted(files)}, expected {sorted(FILES)}")
    return files


def test_the_files_parser_refuses_what_is_incomplete():
    whole = "".join(f"=== {f}\nx\n" for f in sorted(FILES))
    assert parse_files(whole + "=== done\n")["run"] == "x\n"
    with pytest.raises(ValueError, match="done"):
        parse_files(whole)
    with pytest.raises(ValueError, match="expected"):
        parse_files("=== run\n1\n=== done\n")


def build_module(tmp):
    """The module, built from a copy of kernel/ and the shared source it
    includes, so the source tree gets no build products."""
    shutil.copytree(SOURCE / "kernel", tmp / "kernel", ignore=shutil.ignore_patterns("*.o", "*.ko", ".*.cmd"))
    (tmp / "src").mkdir()
    for f in ("stats_int.c", "stats_int.h"):
        shutil.copy(SOURCE / "src" / f, tmp / "src" / f)
    subprocess.run(["make", "-C", str(tmp / "kernel"), f"KDIR={HEADERS}"], check=True,
                   capture_output=True, timeout=300)
    return tmp / "kernel" / "vernier_kbench.ko"


def build_static_vernier(out, trace_args):
    """The tool, static, for a guest with no libraries: as the aarch64 test
    builds it, without the helpers and without vernier compare (cJSON);
    with vernier trace when trace_args (static_trace()) is not None."""
    sources = static_tool_sources()
    subprocess.run(["gcc", "-std=c11", "-D_GNU_SOURCE", "-DVN_NO_COMPARE", "-O1", "-Wall", "-Wextra",
                    "-Werror", "-I%s" % (SOURCE / "include"), "-I%s" % (SOURCE / "src"),
                    "-I%s" % (SOURCE / "cli"), "-static", *sources, *(trace_args or []),
                    "-lpthread", "-lm", "-o", str(out)], check=True, timeout=600)


def build_workload(out):
    subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-static",
                    str(SOURCE / "tests" / "programs" / "getppid_calls.c"), "-o", str(out)],
                   check=True, timeout=120)


@pytest.fixture(scope="module")
def trace_build():
    """static_trace(): (arguments, None), or (None, why vernier trace is not
    in the guest's vernier)."""
    return static_trace()


@pytest.fixture(scope="module")
def guest(tmp_path_factory, trace_build):
    for missing, reason in vm.needs():
        if missing:
            pytest.skip(reason)
    if HEADERS is None or not (HEADERS / "Makefile").is_file():
        pytest.skip(f"no kernel headers at {HEADERS}: scripts/install-deps --test installs "
                    "those of the kernel it unpacked")
    if not shutil.which("make") or not shutil.which("gcc"):
        pytest.skip("make and gcc build the module")
    tmp = tmp_path_factory.mktemp("kbench")
    ko = build_module(tmp)
    root = vm.new_root(tmp)
    shutil.copy(ko, root / "v" / ko.name)
    build_static_vernier(root / "v" / "vernier", trace_build[0])
    build_workload(root / "v" / "getppid_calls")
    g = vm.boot(root, INIT, timeout=240)
    try:
        return parse_files(g.results)
    except ValueError as e:
        pytest.fail(g.explain(str(e)))


def test_every_target_runs_and_its_numbers_agree(guest):
    assert guest["insmod"].strip() == "0", guest["insmod"]
    assert guest["targets"].split() == TARGETS
    assert guest["all.rc"].strip() == "0", guest["all.out"]
    d = json.loads(guest["all.json"])
    validate(d, "results-1.json")
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert sorted(rows) == TARGETS
    for name, b in rows.items():
        s = b["stats"]
        assert len(b["samples"]) == 3000 and s["n"] == 3000, name
        assert all(x["iters"] == 1 and x["value"] > 0 for x in b["samples"]), name
        p = s["percentiles"]
        assert s["min"] <= p["50"] <= p["90"] <= p["95"] <= p["99"] <= s["max"], name
        # Every row but the empty one has the empty row's median taken off.
        assert b["overhead"]["ns"] == (0 if name == "empty" else
                                       pytest.approx(rows["empty"]["stats"]["median"], rel=1e-9)), name


def test_interrupts_off_and_a_parameter(guest):
    assert guest["irqs.rc"].strip() == "0", guest["irqs.out"]
    d = json.loads(guest["irqs.json"])
    assert [b["name"] for b in d["benchmarks"]] == ["kmalloc_64", "fib_lookup"]
    assert all(len(b["samples"]) == 500 for b in d["benchmarks"])
    assert "interrupts and preemption off" in d["note"]
    # The knobs stay as the last run set them.
    assert guest["knobs"].splitlines()[:3] == ["10.9.8.7", "1", "3000"]


def test_the_module_summary_and_samples(guest):
    m = re.fullmatch(r"min (\d+) max (\d+) count (\d+) p50 (\d+) p90 (\d+) p95 (\d+) p99 (\d+) mad (\d+)\n",
                     guest["run"])
    assert m, guest["run"]
    mn, mx, count, p50, p90, p95, p99, mad = map(int, m.groups())
    assert count == 7  # loop_count was set to 7 just before
    assert mn <= p50 <= p90 <= p95 <= p99 <= mx
    assert int(guest["nsamples"]) == 7
    bins = guest["hist"].splitlines()
    assert len(bins) == 20 and sum(int(b.split()[2]) for b in bins) == 7


def test_bad_knob_values_are_refused(guest):
    lines = guest["knobs"].splitlines()
    refused = [l for l in lines if l.endswith(" refused")]
    assert not [l for l in lines if l.endswith(" accepted") and l != "loop_count 7 accepted"], lines
    assert len(refused) == 6 + 2 + 2 + 4, lines
    # Each refusal is EINVAL, as the shell reports the failed write.
    assert all(lines[lines.index(l) - 1] == "sh: write error: Invalid argument" for l in refused), lines
    assert lines[-1] == "7"


def test_not_root_and_not_loaded_say_what_to_do(guest):
    assert guest["user.rc"].strip() == "1", guest["user.out"]
    assert "needs root (sudo)" in guest["user.out"]
    assert len(guest["user.out"].splitlines()) == 1
    assert guest["rmmod"].strip() == "0", guest["rmmod"]
    assert guest["after"].splitlines()[-1] != "0", guest["after"]
    assert guest["unloaded.rc"].strip() == "1"
    assert guest["unloaded.out"] == ("vernier kbench: /sys/kernel/vernier not found: load the module "
                                     "(sudo insmod kernel/vernier_kbench.ko)\n")


# ---- vernier trace, in the same kernel ----------------------------------------

@pytest.fixture(scope="module")
def traced(guest, trace_build):
    if trace_build[1]:
        pytest.skip(trace_build[1])
    return guest


@pytest.mark.parametrize("kind, func, probes", [
    ("kprobe", "__x64_sys_getppid", "kprobe/kretprobe"),
    ("fentry", "__do_sys_getppid", "fentry/fexit"),
])
def test_trace_counts_every_call_exactly(traced, kind, func, probes):
    err = traced[f"{kind}.err"]
    assert traced[f"{kind}.wrc"].strip() == "0", err
    assert traced[f"{kind}.rc"].strip() == "0", err
    assert err.splitlines()[0] == f"vernier trace: tracing {func} with {probes}; Ctrl-C to stop"
    d = json.loads(traced[f"{kind}.json"])
    validate(d, "results-1.json")
    (b,) = d["benchmarks"]
    assert b["name"] == func
    assert len(b["samples"]) == CALLS and b["stats"]["n"] == CALLS
    assert all(s["iters"] == 1 and s["value"] > 0 for s in b["samples"])
    findings = {f["id"]: f for f in d["findings"]}
    assert findings["trace"]["brief"].startswith(f"traced {func} with {probes}: {CALLS} calls in ")
    # Both kinds of probe attach to the getppid functions there, so the
    # probes' cost was measured, whatever it came to under emulation.
    assert re.match(rf"probe cost: -?\d+ ns per call \({re.escape(probes)} on ",
                    findings["trace_probe_cost"]["brief"])
    assert "trace_lost" not in findings
    # One process made every call: no per-process or per-CPU lines.
    assert not {"trace_pid", "trace_cpu"} & set(findings)
    assert f"traced {func} with {probes}: {CALLS} calls" in traced[f"{kind}.out"]


def test_trace_unknown_function(traced):
    assert traced["unknown.rc"].strip() == "1"
    assert traced["unknown.out"] == ("vernier trace: unknown function 'vernier_no_such_function': "
                                     "not in the kernel's symbols (/proc/kallsyms)\n")


# ---- the module's cleanup paths -----------------------------------------------

@pytest.mark.parametrize("n, leak_kb", [(3, 16 * 10**6 // 1024), (4, 8 * 10**6 // 1024)])
def test_a_failed_allocation_fails_the_run_and_frees_it(guest, n, leak_kb):
    lines = guest[f"fail{n}"].splitlines()
    assert lines[0] == "insmod 0", lines
    assert lines[1] == "run 0", lines
    # The read of the failed run, then its status.
    assert lines[2].endswith("/sys/kernel/vernier/empty/run: Cannot allocate memory"), lines
    assert lines[3] == "run 1", lines
    # What the failed run allocated is freed: a leak would be all of it.
    before, after = map(int, lines[4].split()[1:])
    assert abs(after - before) < leak_kb // 8, (before, after, leak_kb)
    # The last run's samples are kept; the module still runs and unloads.
    assert lines[5] == "samples 5", lines
    assert re.fullmatch(r"min \d+ max \d+ count 7 .*", lines[6]), lines
    assert lines[7:] == ["run 0", "rmmod 0"], lines


def test_unloading_mid_run_waits_for_the_run(guest):
    stacks = guest["midrun.stacks"]
    rmmod, reader = stacks.split("--- reader\n")
    # Both at once: rmmod waiting for the run's folder to be left, not
    # refused, and the reader still inside the run.
    assert "kernfs_drain" in rmmod and "delete_module" in rmmod, stacks
    assert "vk_run" in reader, stacks
    assert guest["midrun.rmmod"].strip() == "0", guest["midrun.rmmod"]
    # The reader got the whole summary of the longest run allowed; the
    # file was gone for its next read (cat reads until the end of file).
    summary, error = guest["midrun.run"].split("\n", 1)
    assert re.fullmatch(r"min \d+ max \d+ count 1000000 p50 \d+ p90 \d+ p95 \d+ p99 \d+ mad \d+",
                        summary), guest["midrun.run"]
    assert error == "cat: read error: No such device\n", guest["midrun.run"]
    assert guest["midrun.rc"].strip() == "1"
    after = guest["midrun.after"].splitlines()
    assert after[-1] == "modules 1" and after[-2] == "ls 1", after
    # No warning, oops or leak report from the kernel at any point.
    assert guest["dmesg"] == ""
