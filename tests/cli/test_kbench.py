"""vernier kbench and the kernel module it reads, and vernier trace in the
same kernel. This machine's own kernel may not load modules (nor trace),
so the module is built against the headers of the kernel
scripts/install-deps unpacked (the same Debian package version, so its
vermagic matches), packed with BusyBox, a static vernier (with vernier
trace and libbpf when their static archives are installed) and a static
workload into an initramfs, and loaded in that kernel booted under QEMU
(vm.py), with two CPUs. What is checked: every number is consistent; bad
knob values are refused; a long run with interrupts off leaves no RCU
stall, soft lockup or hung task in the kernel's log, and keeps interrupts
off no longer than the chunk bound; knobs read at once during a run; a
signal to the writer cancels a run within 100 ms; reading every file
starts nothing; a run on two CPUs shows the contention of a shared
counter; the module cannot be unloaded mid-run; a failed allocation (a
test hook of the module) frees what the run made; and vernier trace counts
exactly the calls the workload made. The tool's own reading, errors and
reports are checked on this machine too, against a fake module folder
(VERNIER_KBENCH_DIR)."""
import base64
import errno
import gzip
import os
import json
import random
import statistics
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import vm
from conftest import (BUILT_BY_THE_TEST, SOURCE, one_line_error, quantities, run, sanitized,
                      static_tool_sources, static_trace, validate)

TARGETS = ["delay", "empty", "fib_lookup", "get_random_u32", "kmalloc_64", "ktime_get",
           "recurse", "shared_counter", "spin_lock"]


# ---- the tool against a fake module folder ---------------------------------

def fake_module(root, cycles):
    """A folder shaped like the module's: each target's knobs, its run
    summary and samples (cycles[target]: the calls' counts)."""
    for t, xs in cycles.items():
        d = root / t
        d.mkdir(parents=True)
        for k in ("loop_count", "warmup", "irqs_off", "chunk_us", "cpus", "seed", "run"):
            (d / k).write_text("0\n")
        (d / "description").write_text(f"{t}(): what it calls\n")
        s = sorted(xs)
        (d / "result").write_text(f"min {s[0]} max {s[-1]} count {len(xs)} p50 {s[len(s) // 2]} "
                                  f"p90 {s[-1]} p95 {s[-1]} p99 {s[-1]} mad 0\n"
                                  "dropped migrated 0 backwards 0 jumps 0\n"
                                  "chunks 1 longest_off_cycles 0\n")
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
    return run("kbench", *args, env={"VERNIER_KBENCH_DIR": str(root)})


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
    # Each run began with the module's defaults and ended freeing its
    # samples in the module.
    assert (fake / "ktime_get" / "run").read_text() == "clear\n"
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


def test_a_counter_that_moves_in_units_rounds_by_the_unit(tmp_path):
    # Every count a multiple of 26 ticks, as a counter a hypervisor
    # advances 26 at a time reads: the rounding is 26 ticks, not one, and
    # a row that reads the same count every time still has an interval.
    rng = random.Random(3)
    root = fake_module(tmp_path / "vernier", {
        "empty": [26 * rng.choice((3, 4, 4, 5)) for _ in range(200)],
        "ktime_get": [26 * 12] * 200,
        "fib_lookup": [26 * rng.choice((30, 31, 33)) for _ in range(200)],
    })
    d = json.loads(kbench(root, "--json", "-").stdout)
    hz = d["clock"]["counter_hz"]
    assert abs(d["clock"]["resolution_ns"] - 26e9 / hz) < 1e-9 * d["clock"]["resolution_ns"]
    row = {b["name"]: b for b in d["benchmarks"]}["ktime_get"]
    lo, hi = row["headline"]["ci"]
    # Half a step either side at least (13 ticks), not half a tick.
    assert hi - row["headline"]["value"] >= 0.99 * 13e9 / hz
    assert row["headline"]["value"] - lo >= 0.99 * 13e9 / hz
    # A fine counter (counts 1 tick apart) rounds by one tick.
    d = json.loads(kbench(fake_module(tmp_path / "fine", {
        "empty": [100 + rng.randrange(5) for _ in range(200)],
        "ktime_get": [300 + rng.randrange(20) for _ in range(200)],
        "fib_lookup": [900 + rng.randrange(50) for _ in range(200)]}), "--json", "-").stdout)
    assert abs(d["clock"]["resolution_ns"] - 1e9 / d["clock"]["counter_hz"]) < 1e-12


def test_the_explain_the_findings_point_to_is_there(fake):
    p = kbench(fake)
    assert p.returncode == 0, p.stderr
    assert "more: --explain" in p.stdout, p.stdout
    e = kbench(fake, "--explain")
    assert e.returncode == 0, e.stderr
    assert "--explain" not in e.stdout, e.stdout
    # The long form says more than the short one, below the same table.
    assert len(e.stdout) > len(p.stdout)
    assert e.stdout.splitlines()[:4] == p.stdout.splitlines()[:4]


def test_errors_say_what_to_do(fake, tmp_path):
    p = kbench(tmp_path / "absent")
    # The folder was named by VERNIER_KBENCH_DIR: the message names it and
    # the variable, not a module to load.
    line = one_line_error(p, 1, "VERNIER_KBENCH_DIR", str(tmp_path / "absent"))
    assert "insmod" not in line, line
    # An unknown target, and every target there is.
    p = kbench(fake, "nope")
    one_line_error(p, 2, "'nope'", *sorted(t.name for t in fake.iterdir()))
    for bad in (["--loop-count", "0"], ["--loop-count", "1000001"], ["--param", "dst"],
                ["--param", "=1"], ["--warmup", "x"]):
        p = kbench(fake, *bad)
        assert p.returncode == 2, (bad, p.stderr)
        assert len(p.stderr.splitlines()) == 1, p.stderr
    # A setting of fib_lookup alone, for ktime_get alone.
    p = kbench(fake, "ktime_get", "--dst", "1.2.3.4")
    one_line_error(p, 2, "'dst'")
    (fake / "ktime_get" / "samples").write_text("12\nx\n")
    p = kbench(fake, "ktime_get")
    one_line_error(p, 1, str(fake / "ktime_get" / "samples"))


def test_list(fake):
    p = kbench(fake, "--list")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert [l.split()[0] for l in lines] == ["empty", "fib_lookup", "ktime_get"]
    # Each target's description as the module gives it, then its own
    # settings with their values.
    empty = (fake / "empty" / "description").read_text().strip()
    fib = (fake / "fib_lookup" / "description").read_text().strip()
    assert lines[0].split(None, 1)[1] == empty, lines
    assert lines[1].split(None, 1)[1] == f"{fib} dst=127.0.0.1", lines


def test_a_run_on_two_cpus_is_a_row_per_cpu_and_one_for_all(fake):
    rng = random.Random(3)
    xs = {0: [500 + rng.randrange(9) for _ in range(120)], 1: [700 + rng.randrange(9) for _ in range(80)]}
    d = fake / "ktime_get"
    lines = []
    for c, v in xs.items():
        s = sorted(v)
        lines.append(f"cpu {c} min {s[0]} max {s[-1]} count {len(v)} p50 1 p90 1 p95 1 p99 1 mad 0\n")
    allv = xs[0] + xs[1]
    s = sorted(allv)
    (d / "result").write_text(f"min {s[0]} max {s[-1]} count 200 p50 1 p90 1 p95 1 p99 1 mad 0\n"
                              "dropped migrated 2 backwards 1 jumps 0\n"
                              "chunks 4 longest_off_cycles 2600000\n" + "".join(lines))
    (d / "samples").write_text("".join("%20d\n" % x for x in allv))
    p = kbench(fake, "--json", "-", "--cpus", "0-1", "ktime_get")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    validate(doc, "results-1.json")
    rows = {b["name"]: b for b in doc["benchmarks"]}
    assert list(rows) == ["ktime_get", "ktime_get/cpu=0", "ktime_get/cpu=1"]
    hz = doc["clock"]["counter_hz"]
    for name, v in (("ktime_get", allv), ("ktime_get/cpu=0", xs[0]), ("ktime_get/cpu=1", xs[1])):
        assert [x["value"] for x in rows[name]["samples"]] == pytest.approx([x * 1e9 / hz for x in v])
    assert (d / "cpus").read_text() == "0-1"
    # The dropped calls are said, with their kinds, on the row of all calls.
    # The numbers: 3 dropped of 203 calls; 2 changed CPU, the counter went
    # back in 1 and jumped in 0.
    w = {x["id"]: x for x in rows["ktime_get"]["warnings"]}
    assert [int(n) for n in re.findall(r"\d+", w["kbench_dropped"]["message"])] == [3, 203, 2, 1, 0], w
    assert "0-1" in doc["note"]
    p = kbench(fake, "--cpus", "0-1", "ktime_get")
    assert p.returncode == 0 and "ktime_get/cpu=1" in p.stdout
    for bad in ("x", "", "0;1"):
        p = kbench(fake, "--cpus", bad)
        one_line_error(p, 2, "--cpus", f"'{bad}'")


def test_an_upper_bound_has_the_calls_statistics_not_net(fake):
    """A target as fast as the empty loop is an upper bound (the fastest
    call); its statistics are of the calls as timed, never below zero."""
    rng = random.Random(5)
    xs = [100 + rng.randrange(5) for _ in range(200)]
    s = sorted(xs)
    d = fake / "ktime_get"
    d.joinpath("result").write_text(f"min {s[0]} max {s[-1]} count 200 p50 1 p90 1 p95 1 p99 1 mad 0\n")
    d.joinpath("samples").write_text("".join("%20d\n" % x for x in xs))
    p = kbench(fake, "--json", "-", "ktime_get")
    assert p.returncode == 0, p.stderr
    (b,) = json.loads(p.stdout)["benchmarks"]
    assert b["upper_bound"] is True
    assert b["stats"]["min"] > 0 and b["stats"]["min"] == min(x["value"] for x in b["samples"])


def test_the_result_parser_refuses_what_it_does_not_know(fake):
    d = fake / "ktime_get"
    good = d.joinpath("result").read_text()
    for bad in (good + "cpu 0 min 1\n", good + "dropped 1\n", good + "extra 1\n",
                good.replace("count 200", "count 0"),
                good + "cpu 0 min 1 max 2 count 5 p50 1 p90 1 p95 1 p99 1 mad 0\n"):
        d.joinpath("result").write_text(bad)
        p = kbench(fake, "ktime_get")
        one_line_error(p, 1, str(d / "result"))


# ---- the module, in a kernel of its own ---------------------------------------

HEADERS = Path("/lib/modules") / (vm.kernel_release() or "none") / "build" \
    if vm.KERNEL.is_file() else None

# How many times the workload calls getppid while vernier traces it.
CALLS = 12345

# Every target runs through vernier kbench; then the module's own files are
# checked by hand: bad values written to the knobs must fail (the shell's
# echo reports the write's error), a user who is not root cannot set them,
# and after rmmod nothing is left. Then the safety of runs: a 5-second run
# with interrupts off, during which every knob is read and every file
# walked; a run cancelled by a signal; rmmod refused mid-run. Then vernier
# trace counts the workload's getppid calls with each kind of probe.
INIT = vm.INIT_START + r"""ip link set lo up
mount -t debugfs none /sys/kernel/debug
mkdir -p /out /etc
echo 'nobody:x:65534:65534::/:/bin/sh' > /etc/passwd
echo 2 > /proc/sys/kernel/hung_task_timeout_secs 2> /dev/null
cd /v
K=/sys/kernel/debug/vernier
# Hundredths of a second since boot.
up() { cut -d' ' -f1 /proc/uptime | tr -d .; }
state() { cut -d' ' -f3 /proc/$1/stat 2> /dev/null; }
# until_running PID TARGET: waits until the module runs TARGET, or PID has
# ended.
until_running() {
    while [ "$(cat $K/running 2> /dev/null)" != "$2" ] && [ -n "$(state $1)" ] && [ "$(state $1)" != Z ]; do
        :
    done
}
insmod ./vernier_kbench.ko > /out/insmod 2>&1; echo $? >> /out/insmod
ls $K > /out/targets
./vernier kbench --loop-count 3000 --warmup 20 --json /out/all.json > /out/all.out 2>&1
echo $? > /out/all.rc
./vernier kbench --irqs-off --loop-count 500 --dst 10.9.8.0 --dst-range 200 --json /out/irqs.json \
    kmalloc_64 fib_lookup > /out/irqs.out 2>&1
echo $? > /out/irqs.rc
# Nothing carries over: this run has the defaults (10000 calls, one route).
./vernier kbench --json /out/default.json ktime_get fib_lookup > /out/default.out 2>&1
echo $? > /out/default.rc
cat $K/fib_lookup/dst $K/fib_lookup/dst_range > /out/default.knobs
./vernier kbench --list > /out/list 2>&1
# The contention of a shared counter and a shared lock: alone, then on
# both CPUs at once.
./vernier kbench --loop-count 10000 --json /out/one.json shared_counter spin_lock > /out/one.out 2>&1
echo $? > /out/one.rc
cat $K/spin_lock/contended > /out/contended
./vernier kbench --cpus 0-1 --loop-count 10000 --json /out/two.json shared_counter spin_lock \
    > /out/two.out 2>&1
echo $? > /out/two.rc
# A host busy with other work may run the guest's two CPUs one after the
# other for a whole run: then the lock is never found taken, which shows
# nothing either way, and the run is tried again (at most 4 times more).
c=$(cat $K/spin_lock/contended); i=0
while [ "$c" = 0 ] && [ $i -lt 4 ]; do
    ./vernier kbench --cpus 0-1 --loop-count 10000 spin_lock > /dev/null 2>&1
    c=$(cat $K/spin_lock/contended); i=$((i + 1))
done
echo "$c $i" >> /out/contended
./vernier kbench --cpus 0-1 --loop-count 600000 ktime_get > /out/toomany.out 2>&1
echo $? > /out/toomany.rc
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
    for v in 0 10001 x; do
        echo "$v" > $K/ktime_get/chunk_us && echo "chunk_us $v accepted" || echo "chunk_us $v refused"
    done
    for v in 2 0-7 x; do
        echo "$v" > $K/ktime_get/cpus && echo "cpus $v accepted" || echo "cpus $v refused"
    done
    for v in 1.2.3 300.1.1.1 '10.0.0.1 x' ''; do
        echo "$v" > $K/fib_lookup/dst && echo "dst $v accepted" || echo "dst $v refused"
    done
    for v in 0 16777217; do
        echo "$v" > $K/fib_lookup/dst_range && echo "dst_range $v accepted" || echo "dst_range $v refused"
    done
    for v in walk ''; do
        echo "$v" > $K/ktime_get/run && echo "run '$v' accepted" || echo "run '$v' refused"
    done
    echo 7 > $K/ktime_get/loop_count && echo "loop_count 7 accepted"
    cat $K/ktime_get/loop_count
} > /out/knobs 2>&1
echo run > $K/ktime_get/run; echo $? > /out/run.rc
cat $K/ktime_get/result > /out/result 2>&1
wc -l < $K/ktime_get/samples > /out/nsamples
cat $K/ktime_get/hist > /out/hist 2>&1
echo clear > $K/ktime_get/run
wc -c < $K/ktime_get/samples > /out/cleared
cat $K/ktime_get/run > /out/readrun 2>&1; echo $? >> /out/readrun
su nobody -s /bin/sh -c './vernier kbench ktime_get' > /out/user.out 2>&1
echo $? > /out/user.rc

# Five seconds with interrupts off, in chunks: 10^6 calls of 5 us. While it
# runs: every knob read (each must return at once), every file walked as a
# support tool would (nothing may start a run), rmmod (refused: in use).
D=$K/delay
echo 5 > $D/delay_us; echo 1000000 > $D/loop_count; echo 0 > $D/warmup; echo 1 > $D/irqs_off
# Meanwhile files are made and removed, and a removed inode is freed after
# an RCU grace period: grace periods are always pending, so a CPU that kept
# interrupts off for 3 s would stall one and the kernel would say so.
(while [ ! -e /tmp/stop ]; do touch /tmp/x; rm /tmp/x; done) &
(echo run > $D/run; echo $? > /out/long.rc) &
w=$!
until_running $w delay
{
    rmmod vernier_kbench 2>&1; echo "rmmod $?"
    kill -0 $w && echo "still running"
    for f in loop_count warmup irqs_off chunk_us cpus seed delay_us description; do
        a=$(up); cat $D/$f > /dev/null; echo "$f $(( $(up) - a ))"
    done
    a=$(up); grep -r . $K > /dev/null 2>&1; echo "grep $(( $(up) - a ))"
    kill -0 $w && echo "still running"
} > /out/during 2>&1
wait $w
touch /tmp/stop
cat $D/result > /out/long.result
# After the walk, only the runs made on purpose have results.
for t in $(ls $K); do [ -d $K/$t ] && echo "$t $(wc -c < $K/$t/result)"; done > /out/walked

# A signal to the writer cancels its run: the time from kill to its end.
echo 1 > $D/delay_us
(echo run > $D/run) 2> /out/cancel.err &
w=$!
until_running $w delay
a=$(up); kill -TERM $w; wait $w; echo "cancel $? $(( $(up) - a ))" > /out/cancel
rmmod vernier_kbench > /out/rmmod 2>&1; echo $? >> /out/rmmod
ls $K > /out/after 2>&1; echo $? >> /out/after
./vernier kbench > /out/unloaded.out 2>&1; echo $? > /out/unloaded.rc

# The cleanup paths. fail_alloc=N, a test hook set at load, fails the Nth
# allocation of a run's arrays (three a run: the samples, the sorted copy,
# its room): 4 is the samples of the second run, 6 its room, made after
# its calls. The failed run must fail with ENOMEM, free what it made
# (VmallocUsed, in kB: a million calls take 8, 8 and 16 MB), and keep the
# last run's result; the next run must work, and rmmod too.
vmalloc() { awk '/^VmallocUsed/ {print $2}' /proc/meminfo; }
for n in 4 6; do
    {
        insmod ./vernier_kbench.ko fail_alloc=$n; echo "insmod $?"
        echo 5 > $K/empty/loop_count
        echo run > $K/empty/run; echo "run $?"
        echo 1000000 > $K/empty/loop_count
        a=$(vmalloc)
        echo run > $K/empty/run; echo "run $?"
        echo "vmalloc $a $(vmalloc)"
        echo "samples $(wc -l < $K/empty/samples)"
        echo 7 > $K/empty/loop_count
        echo run > $K/empty/run; echo "run $?"
        head -1 $K/empty/result
        rmmod vernier_kbench; echo "rmmod $?"
    } > /out/fail$n 2>&1
done

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
mount -t tracefs nodev /sys/kernel/tracing
./vernier trace native_sched_clock > /out/notrace.out 2>&1; echo $? > /out/notrace.rc

# background NAME ARGS...: vernier trace ARGS in the background, into
# /out/NAME.*, once its probes are attached.
background() {
    n=$1; shift
    : > /out/$n.json
    ./vernier trace --json /out/$n.json "$@" > /out/$n.out 2> /out/$n.err &
    t=$!
    i=0
    while [ $i -lt 600 ] && kill -0 $t 2> /dev/null && ! grep -q 'vernier trace: tracing' /out/$n.err; do
        sleep 0.1; i=$((i + 1))
    done
}
# 30 sleeps of 2 s at once: more calls in flight than a kretprobe has
# instances (10 on two CPUs), none too many for fentry/fexit.
for kind in fentry kprobe; do
    [ $kind = kprobe ] && k=--kprobe || k=
    background sleeps.$kind $k --duration 4 hrtimer_nanosleep
    for i in $(seq 30); do sleep 2 & done
    wait $t; echo $? > /out/sleeps.$kind.rc
done
# A function that calls itself: 500 calls of depth 4 are 2000 calls,
# each inner one timed inside its outer one. Every second a line.
insmod ./vernier_kbench.ko
echo 500 > $K/recurse/loop_count; echo 0 > $K/recurse/warmup; echo 4 > $K/recurse/depth
background recurse -i 1 --duration 3 vk_recurse
echo run > $K/recurse/run
wait $t; echo $? > /out/recurse.rc
# Two functions at once, one named by a pattern: a row each.
background multi --duration 3 vk_recurse '__x64_sys_getpp*'
echo run > $K/recurse/run
echo go | ./getppid_calls 300
wait $t; echo $? > /out/multi.rc
rmmod vernier_kbench
dmesg | grep -E '@DMESG_BAD@' > /out/dmesg
stty -F /dev/ttyS1 raw -echo
{
    # Compressed: the JSON files are tens of megabytes, and a serial port
    # under emulation is slow.
    for f in /out/*; do echo "=== $(basename $f)"; gzip -c $f | base64; done
    echo "=== done"
} > /dev/ttyS1
sync
poweroff -f
""".replace("@CALLS@", str(CALLS)).replace("@DMESG_BAD@", vm.DMESG_BAD)

FILES = {"insmod", "targets", "all.json", "all.out", "all.rc", "irqs.json", "irqs.out", "irqs.rc",
         "default.json", "default.out", "default.rc", "default.knobs", "list", "one.json", "one.out",
         "one.rc", "two.json", "two.out", "two.rc", "contended", "toomany.out", "toomany.rc",
         "knobs", "run.rc", "result", "nsamples", "hist", "cleared", "readrun", "user.out",
         "user.rc", "during", "long.rc", "long.result", "walked", "cancel", "cancel.err", "rmmod",
         "after",
         "unloaded.out", "unloaded.rc", "unknown.out", "unknown.rc", "fail4", "fail6", "dmesg",
         *(f"{kind}.{ext}" for kind in ("kprobe", "fentry") for ext in ("json", "out", "err", "rc", "wrc")),
         "notrace.out", "notrace.rc",
         *(f"{n}.{ext}" for n in ("sleeps.fentry", "sleeps.kprobe", "recurse", "multi")
           for ext in ("json", "out", "err", "rc"))}


def target_calls(target):
    """What kernel/targets/TARGET.c says its target calls (its .calls), the
    description the module gives and vernier kbench --list prints."""
    src = (SOURCE / "kernel" / "targets" / f"{target}.c").read_text()
    m = re.search(r'\.calls\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*)+),', src)
    assert m, f"no .calls in kernel/targets/{target}.c"
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))


def record(line):
    """A line of the module's result file, "[WORD] KEY N KEY N ...", as
    (WORD, {KEY: N, ...}), WORD "" when the line has none."""
    words = line.split()
    head = words.pop(0) if len(words) % 2 else ""
    return head, dict(zip(words[::2], map(int, words[1::2])))


def ends_with_errno(line, code):
    """Whether line (a shell's or cat's report of a failed write or read)
    ends with the text of errno code: the error the module returned."""
    return line.endswith(": " + os.strerror(code))


def parse_files(text):
    """{name: text} of the files the guest sent (each gzipped, in base64);
    ValueError when the transfer is incomplete, so a short one is never
    taken for results."""
    if not re.search(r"^=== done$", text, re.M):
        raise ValueError("the results port has no '=== done' line: the guest did not finish")
    files = dict(re.findall(r"^=== (\S+)\n(.*?)(?=^=== )", text, re.M | re.S))
    if set(files) != FILES:
        raise ValueError(f"files {sorted(files)}, expected {sorted(FILES)}")
    try:
        return {k: gzip.decompress(base64.b64decode(v)).decode(errors="replace")
                for k, v in files.items()}
    except (ValueError, OSError, EOFError) as e:
        raise ValueError(f"a file did not arrive whole: {e}") from e


def test_the_files_parser_refuses_what_is_incomplete():
    x = base64.encodebytes(gzip.compress(b"x\n")).decode()
    whole = "".join(f"=== {f}\n{x}" for f in sorted(FILES))
    assert parse_files(whole + "=== done\n")["result"] == "x\n"
    with pytest.raises(ValueError, match="done"):
        parse_files(whole)
    with pytest.raises(ValueError, match="expected"):
        parse_files("=== run\n1\n=== done\n")
    with pytest.raises(ValueError, match="whole"):
        parse_files(whole.replace(x, x[:10] + "\n", 1) + "=== done\n")


def build_module(tmp):
    """The module, built from a copy of kernel/ and the shared source it
    includes, so the source tree gets no build products."""
    shutil.copytree(SOURCE / "kernel", tmp / "kernel", ignore=shutil.ignore_patterns("*.o", "*.ko", ".*.cmd"))
    (tmp / "src" / "stats").mkdir(parents=True)
    for f in ("stats/int.c", "stats/int.h"):
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
    if sanitized():
        pytest.skip(BUILT_BY_THE_TEST)
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
    assert guest["targets"].split() == sorted(TARGETS + ["running"])
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


def test_interrupts_off_a_parameter_and_nothing_carried_over(guest):
    assert guest["irqs.rc"].strip() == "0", guest["irqs.out"]
    d = json.loads(guest["irqs.json"])
    assert [b["name"] for b in d["benchmarks"]] == ["kmalloc_64", "fib_lookup"]
    assert all(len(b["samples"]) == 500 for b in d["benchmarks"])
    # With interrupts off the note gives the longest stretch of it, in us;
    # without, it has no such time.
    (longest,) = quantities(d["note"])
    assert longest.endswith(" us") and float(longest.split()[0]) > 0, d["note"]
    # The next run without options has the defaults, whatever the last set.
    assert guest["default.rc"].strip() == "0", guest["default.out"]
    default = json.loads(guest["default.json"])
    assert [len(b["samples"]) for b in default["benchmarks"]] == [10000] * 2
    assert quantities(default["note"]) == [], default["note"]
    assert guest["default.knobs"].split() == ["127.0.0.1", "1"]


def test_list_says_what_each_target_calls(guest):
    lines = guest["list"].splitlines()
    assert [l.split()[0] for l in lines] == ["empty"] + [t for t in TARGETS if t != "empty"]
    # Each line: the target, what it calls as its source says, then its own
    # settings (fib_lookup's at their defaults).
    for line in lines:
        target, rest = line.split(None, 1)
        assert rest.startswith(target_calls(target)), (line, target_calls(target))
    fib = next(l for l in lines if l.startswith("fib_lookup "))
    assert fib.split(None, 1)[1] == target_calls("fib_lookup") + " dst=127.0.0.1 dst_range=1", fib
    assert max(map(len, lines)) <= 100, lines


def test_the_module_summary_and_samples(guest):
    assert guest["run.rc"].strip() == "0"
    first, dropped, chunks = guest["result"].splitlines()
    m = re.fullmatch(r"min (\d+) max (\d+) count (\d+) p50 (\d+) p90 (\d+) p95 (\d+) p99 (\d+) mad (\d+)",
                     first)
    assert m, guest["result"]
    mn, mx, count, p50, p90, p95, p99, mad = map(int, m.groups())
    assert count == 7  # loop_count was set to 7 just before
    assert mn <= p50 <= p90 <= p95 <= p99 <= mx
    assert record(dropped) == ("dropped", {"migrated": 0, "backwards": 0, "jumps": 0})
    assert re.fullmatch(r"chunks \d+ longest_off_cycles 0", chunks)
    assert int(guest["nsamples"]) == 7
    bins = guest["hist"].splitlines()
    assert len(bins) == 20 and sum(int(b.split()[2]) for b in bins) == 7
    # "clear" freed the samples; reading "run" runs nothing and fails
    # (EINVAL, then cat's status).
    assert guest["cleared"].strip() == "0"
    read, status = guest["readrun"].splitlines()
    assert ends_with_errno(read, errno.EINVAL) and status == "1", guest["readrun"]


def test_bad_knob_values_are_refused(guest):
    lines = guest["knobs"].splitlines()
    refused = [l for l in lines if l.endswith(" refused")]
    assert not [l for l in lines if l.endswith(" accepted") and l != "loop_count 7 accepted"], lines
    assert len(refused) == 6 + 2 + 2 + 3 + 3 + 4 + 2 + 2, lines
    # Each refusal is EINVAL, as the shell reports the failed write.
    assert all(ends_with_errno(lines[lines.index(l) - 1], errno.EINVAL) for l in refused), lines
    assert lines[-1] == "7"
    # More calls over the CPUs than a run holds: a usage error, of one line
    # with the most calls a run holds and the option to lower.
    assert guest["toomany.rc"].strip() == "2", guest["toomany.out"]
    (line,) = guest["toomany.out"].splitlines()
    assert "1000000" in line and "--loop-count" in line, line


def test_not_root_and_not_loaded_say_what_to_do(guest):
    # One line: the folder it could not read, why (EACCES), and sudo.
    assert guest["user.rc"].strip() == "1", guest["user.out"]
    (line,) = guest["user.out"].splitlines()
    assert "/sys/kernel/debug/vernier" in line and os.strerror(errno.EACCES) in line, line
    assert "sudo" in line, line
    assert guest["rmmod"].strip() == "0", guest["rmmod"]
    assert guest["after"].splitlines()[-1] != "0", guest["after"]
    # Not loaded: the folder, and the module's file to load.
    assert guest["unloaded.rc"].strip() == "1"
    (line,) = guest["unloaded.out"].splitlines()
    assert "/sys/kernel/debug/vernier" in line and "kernel/vernier_kbench.ko" in line, line


def test_a_long_run_with_interrupts_off_is_safe(guest):
    """10^6 calls of 5 us with interrupts off: five seconds, with the RCU
    stall detector at 3 s and the soft lockup one at 2 s."""
    assert guest["long.rc"].strip() == "0"
    first, dropped, chunks = guest["long.result"].splitlines()
    assert record(first)[1]["count"] == 1000000, first
    mx = record(first)[1]["max"]
    n, longest = map(int, re.fullmatch(r"chunks (\d+) longest_off_cycles (\d+)", chunks).groups())
    # The longest stretch with interrupts off is the chunk bound (1000 us)
    # and one call more at most (under emulation a call can take
    # milliseconds when the host deschedules the guest), never the run.
    # The host can also deschedule the guest between two calls, which no
    # call's time holds: under a busy host (tests run two at a time) one
    # stretch read 7.9 ms where the bound and the longest call were 7.6.
    # A host that paused the guest that long inside a call can as well
    # between two: the bound allows the longest call twice.
    hz = json.loads(guest["all.json"])["clock"]["counter_hz"]
    assert longest <= 1000e-6 * hz * 1.05 + 2 * mx, (longest, mx, hz)
    # A chunk ends once it has lasted the bound, so it lasts at most that
    # and one call: the 10^6 calls, each at least the fastest, fill at
    # least this many (about 5000 at 5 us a call; fewer when a busy host
    # stretched some calls to milliseconds), where a run not cut up has 1.
    least = 1000000 * record(first)[1]["min"] / (1000e-6 * hz * 1.05 + mx)
    assert n >= least, (chunks, least)
    # During it: each knob read at once, the walk of every file too, rmmod
    # refused, the run still going. At once: in hundredths of a second on a
    # quiet host (0 to 5), at most a tenth of the run's 5 s on one busy
    # with the rest of the suite (6 seen), where a read that waited for the
    # run would take seconds.
    during = dict(l.rsplit(" ", 1) for l in guest["during"].splitlines() if l[-1].isdigit())
    for f in ("loop_count", "warmup", "irqs_off", "chunk_us", "cpus", "seed", "delay_us", "description"):
        assert int(during[f]) <= 50, guest["during"]
    print("hundredths of a second to walk every file during the run:", during["grep"])
    assert during["rmmod"] != "0", guest["during"]
    assert guest["during"].count("still running") == 2, guest["during"]
    # The walk started nothing: vernier kbench clears what it ran, ktime_get
    # was cleared by hand, so only delay, run by hand just now, has a result.
    walked = dict(l.split() for l in guest["walked"].splitlines())
    assert sorted(walked) == TARGETS
    assert [t for t, n in walked.items() if n != "0"] == ["delay"], walked
    # Nothing in the kernel's log: no stall, lockup, hung task or warning.
    assert guest["dmesg"] == "", guest["dmesg"]


def test_a_signal_cancels_a_run_within_100_ms(guest):
    _, status, hundredths = guest["cancel"].split()
    # The shell that wrote "run" died of SIGTERM, or saw its write fail
    # (EINTR).
    assert status == "143" or ends_with_errno(guest["cancel.err"].rstrip("\n"), errno.EINTR), \
        (status, guest["cancel.err"])
    assert int(hundredths) <= 10, guest["cancel"]


def test_two_cpus_show_the_contention_of_what_they_share(guest):
    assert guest["one.rc"].strip() == "0", guest["one.out"]
    assert guest["two.rc"].strip() == "0", guest["two.out"]
    one = {b["name"]: b for b in json.loads(guest["one.json"])["benchmarks"]}
    two = {b["name"]: b for b in json.loads(guest["two.json"])["benchmarks"]}
    for t in ("shared_counter", "spin_lock"):
        assert {f"{t}/cpu=0", f"{t}/cpu=1"} <= set(two), sorted(two)
        assert len(two[t]["samples"]) == len(two[f"{t}/cpu=0"]["samples"]) + \
            len(two[f"{t}/cpu=1"]["samples"])
        assert len(two[t]["samples"]) <= 20000
    # One lock taken by both CPUs on every call: alone, never found taken;
    # on two CPUs, found taken, so the CPUs ran their timed calls at once.
    # How often depends on how often the host runs the guest's two CPUs (its
    # threads) at the same moment: 2256 to 3435 of 20000 on a quiet host,
    # 0 to 155 with the rest of the suite beside it (a run is then tried
    # again). Once is beyond what one CPU alone shows (never). The cost it
    # adds is printed, not a stable figure under emulation.
    alone, together, tries = map(int, guest["contended"].split())
    assert alone == 0 and together > 0, guest["contended"]
    ratio = two["spin_lock"]["stats"]["mean"] / one["spin_lock"]["stats"]["mean"]
    print(f"spin_lock: one CPU mean {one['spin_lock']['stats']['mean']:.1f} ns, two CPUs "
          f"{two['spin_lock']['stats']['mean']:.1f} ns ({ratio:.2f}x), "
          f"{together} of 20000 calls found the lock taken (after {tries} runs again)")


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
    # The first line, once the probes are attached, names the function
    # and the kind of probes.
    ready = err.splitlines()[0]
    assert func in ready and probes in ready, ready
    d = json.loads(traced[f"{kind}.json"])
    validate(d, "results-1.json")
    (b,) = d["benchmarks"]
    assert b["name"] == func
    assert len(b["samples"]) == CALLS and b["stats"]["n"] == CALLS
    # Each call's time is a difference of two reads of the kernel's clock:
    # never below 0, nor near a second; a call can fall between two ticks
    # of an emulated guest's clock and read 0, but not the typical one.
    assert all(s["iters"] == 1 and 0 <= s["value"] < 1e9 for s in b["samples"])
    assert sorted(s["value"] for s in b["samples"])[CALLS // 2] > 0
    findings = {f["id"]: f for f in d["findings"]}
    # The finding of the calls: the function, the kind of probes, the count.
    trace = findings["trace"]["brief"]
    assert func in trace and probes in trace and re.search(rf"\b{CALLS}\b", trace), trace
    # Both kinds of probe attach to the getppid functions there, so the
    # probes' cost was measured, whatever it came to under emulation: ns
    # per call and its +-, the kind of probes, then the time of the rounds
    # and, apart, of the probes' load.
    cost = findings["trace_probe_cost"]["brief"]
    assert [q.split()[1] for q in quantities(cost)] == ["ns", "ns", "s", "s"], cost
    assert quantities(cost)[1].startswith("+-") and probes in cost, cost
    assert "trace_lost" not in findings
    # One process made every call: no per-process lines (the guest has two
    # CPUs, so the calls may have a line per CPU).
    assert "trace_pid" not in findings
    # The console prints the finding of the calls as a line.
    assert trace in traced[f"{kind}.out"].splitlines(), traced[f"{kind}.out"]


def findings_of(doc):
    return {f["id"]: f for f in doc["findings"]}


@pytest.mark.parametrize("kind", ["fentry", "kprobe"])
def test_trace_of_30_sleeps_at_once_counts_them_or_says_what_it_missed(traced, kind):
    err = traced[f"sleeps.{kind}.err"]
    assert traced[f"sleeps.{kind}.rc"].strip() == "0", err
    d = json.loads(traced[f"sleeps.{kind}.json"])
    f = findings_of(d)
    # The calls timed are the samples; those entered and not timed, the
    # number that leads the brief of trace_open.
    timed = len(d["benchmarks"][0]["samples"])
    m = re.match(r"\d+", f.get("trace_open", {}).get("brief", ""))
    open_ = int(m.group()) if m else 0
    print(f"{kind}: {timed} timed, {open_} entered without a return")
    # Every sleep is timed, or the ones that are not are counted.
    assert timed + open_ >= 30, (timed, open_, f)
    # fentry/fexit has no instances to run out of: every sleep is timed (a
    # sleep of the script itself may still be running at the end).
    if kind == "fentry":
        assert timed >= 30 and sum(s["value"] > 1.9e9 for s in d["benchmarks"][0]["samples"]) >= 30
    # The exact log2 histogram holds them: 2 s is in 2^30..2^31 ns.
    m = re.search(r"1073741824-2147483647 ns: (\d+)", f["trace_log2"]["explanation"])
    assert m and int(m.group(1)) >= (30 if kind == "fentry" else 10), f["trace_log2"]


def test_trace_of_a_recursive_function_times_every_level(traced):
    err = traced["recurse.err"]
    assert traced["recurse.rc"].strip() == "0", err
    d = json.loads(traced["recurse.json"])
    f = findings_of(d)
    trace = f["trace"]["brief"]
    assert "vk_recurse" in trace and "kprobe/kretprobe" in trace and re.search(r"\b2000\b", trace), f
    assert not {"trace_lost", "trace_open", "trace_unmatched"} & set(f), f
    (b,) = d["benchmarks"]
    assert len(b["samples"]) == 2000
    # Each level's call holds the ones inside it: four distinct durations a
    # call, the outermost the longest, so the slowest quarter of the calls
    # is the outermost: well above the fastest quarter, the innermost.
    v = sorted(s["value"] for s in b["samples"])
    assert v[1500] > v[499], (v[499], v[1500])
    # -i 1: a line a second, with the interval's calls.
    lines = [l for l in traced["recurse.out"].splitlines() if re.match(r"\d\d:\d\d:\d\d  \d+ calls", l)]
    assert 2 <= len(lines) <= 4, traced["recurse.out"]
    assert sum(int(l.split()[1]) for l in lines) <= 2000


def test_trace_of_two_functions_one_a_pattern_is_a_row_each(traced):
    assert traced["multi.rc"].strip() == "0", traced["multi.err"]
    # The first line, once the probes are attached, counts the functions
    # and names the first.
    ready = traced["multi.err"].splitlines()[0]
    assert re.search(r"\b2\b", ready) and "vk_recurse" in ready, ready
    d = json.loads(traced["multi.json"])
    validate(d, "results-1.json")
    rows = {b["name"]: b for b in d["benchmarks"]}
    assert sorted(rows) == ["__x64_sys_getppid", "vk_recurse"], sorted(rows)
    assert len(rows["vk_recurse"]["samples"]) == 2000
    assert len(rows["__x64_sys_getppid"]["samples"]) >= 300
    briefs = [f["brief"] for f in d["findings"] if f["id"] == "trace"]
    assert len(briefs) == 2 and any("vk_recurse" in b for b in briefs), briefs


def test_trace_of_a_notrace_function_says_so(traced):
    # One line naming the function and the kernel's list it is not in.
    assert traced["notrace.rc"].strip() == "1", traced["notrace.out"]
    (line,) = traced["notrace.out"].splitlines()
    assert "'native_sched_clock'" in line and "available_filter_functions" in line, line


def test_trace_unknown_function(traced):
    # One line naming the function and where it was looked for.
    assert traced["unknown.rc"].strip() == "1"
    (line,) = traced["unknown.out"].splitlines()
    assert "'vernier_no_such_function'" in line and "/proc/kallsyms" in line, line


# ---- the module's cleanup paths -----------------------------------------------

@pytest.mark.parametrize("n, leak_kb", [(4, 8 * 10**6 // 1024), (6, 16 * 10**6 // 1024)])
def test_a_failed_allocation_fails_the_run_and_frees_it(guest, n, leak_kb):
    lines = guest[f"fail{n}"].splitlines()
    assert lines[0] == "insmod 0", lines
    assert lines[1] == "run 0", lines
    # The write of the failed run (ENOMEM), then its status.
    assert ends_with_errno(lines[2], errno.ENOMEM), lines
    assert lines[3] == "run 1", lines
    # What the failed run allocated is freed: a leak would be all of it.
    before, after = map(int, lines[4].split()[1:])
    assert abs(after - before) < leak_kb // 8, (before, after, leak_kb)
    # The last run's samples are kept; the module still runs and unloads.
    assert lines[5] == "samples 5", lines
    assert lines[6] == "run 0", lines
    assert re.fullmatch(r"min \d+ max \d+ count 7 .*", lines[7]), lines
    assert lines[8:] == ["rmmod 0"], lines
