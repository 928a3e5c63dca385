"""`vernier run`'s tree peak under cgroup v2, for real: this machine may have
its memory controller on cgroup v1, so the test boots a small Linux under
QEMU (Debian's kernel, unpacked by scripts/install-deps; BusyBox; vernier and
the libraries it links) whose only cgroup hierarchy is v2, and runs vernier
there in the places a real system puts it: the root group, a group with
processes of its own (a login session's scope), and a group where nothing
enables the memory controller."""
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import BUILD, VERNIER, sanitized

KERNEL = BUILD / "vm" / "vmlinuz"
QEMU = shutil.which("qemu-system-x86_64")
BUSYBOX = shutil.which("busybox")


def static(path):
    if path is None:
        return False
    out = subprocess.run(["ldd", path], capture_output=True, text=True)
    return "not a dynamic executable" in out.stdout + out.stderr


# What booting the guest needs; the parser's own test runs without it.
VM_NEEDS = [
    (platform.machine() != "x86_64", "boots an x86-64 kernel"),
    (QEMU is None, "qemu-system-x86_64 is not installed (scripts/install-deps)"),
    (not KERNEL.is_file(), f"no kernel at {KERNEL}: scripts/install-deps could not download one"),
    (not static(BUSYBOX), "a static busybox is not installed (busybox-static)"),
    (shutil.which("cpio") is None, "cpio is not installed"),
    (sanitized(), "a sanitized vernier needs its runtime's environment, not a bare initramfs"),
]

# Each scenario writes its results into a folder of its own under /out; at
# the end the guest sends that folder over the second serial port (ttyS1),
# which nothing but this script writes to: the kernel's messages go to the
# first one (the console), so they can never mix with the results. Closing a
# serial port waits until what was written to it has gone out, so the results
# are on the host before the power goes off. dd with a 64 MiB block allocates
# and touches 64 MiB, and `true` after it touches almost nothing.
INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
cd /v
measure() {
    d=/out/$1; shift
    mkdir -p $d
    ./vernier run --runs 2 --shell sh --json $d/json "$@" > $d/output 2>&1
    echo $? > $d/rc
    find /sys/fs/cgroup -name 'vernier-*' > $d/groups
}
measure root 'dd if=/dev/zero of=/dev/null bs=64M count=1' true
measure leftover 'sleep 5 & true'
killall sleep; sleep 0.5
for g in $(find /sys/fs/cgroup -name 'vernier-*'); do rmdir "$g"; done
mkdir /sys/fs/cgroup/session
echo $$ > /sys/fs/cgroup/session/cgroup.procs
measure session 'dd if=/dev/zero of=/dev/null bs=64M count=1' true
mkdir -p /sys/fs/cgroup/bare/inner
echo $$ > /sys/fs/cgroup/bare/inner/cgroup.procs
measure bare 'dd if=/dev/zero of=/dev/null bs=64M count=1' true
stty -F /dev/ttyS1 raw -echo
{
    for d in /out/*; do
        for f in rc json output groups; do
            echo "=== $(basename $d) $f"; cat $d/$f
        done
    done
    echo "=== done"
} > /dev/ttyS1
sync
poweroff -f
"""

SCENARIOS = {"root", "leftover", "session", "bare"}


def kvm_opens():
    """True when /dev/kvm can be opened: the first thing KVM needs."""
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
    except OSError:
        return False
    os.close(fd)
    return True


# Under KVM a kernel prints its banner within a fraction of a second. A nested
# hypervisor may open /dev/kvm and then never run the guest, so a guest that
# has said nothing by then is stopped and booted again under emulation.
KVM_BANNER_WAIT = 15


def run_guest(args, console, timeout):
    """Boots the guest: under KVM when it works, else emulated. Returns the
    accelerator used and QEMU's stderr."""
    accels = ["kvm", "tcg"] if kvm_opens() else ["tcg"]
    notes = []
    for accel in accels:
        console.unlink(missing_ok=True)
        with tempfile.TemporaryFile() as err:
            p = subprocess.Popen([QEMU, "-accel", accel] + args, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=err)
            try:
                if accel == "kvm":
                    end = time.monotonic() + KVM_BANNER_WAIT
                    while p.poll() is None and time.monotonic() < end:
                        if console.exists() and b"Linux version" in console.read_bytes():
                            break
                        time.sleep(0.2)
                    else:
                        if p.poll() is None or p.returncode != 0:
                            p.kill()
                            p.wait()
                            notes.append(f"kvm: no kernel banner in {KVM_BANNER_WAIT} s, emulating")
                            continue
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                notes.append(f"{accel}: still running after {timeout} s, stopped")
            err.seek(0)
            return accel, "\n".join(notes + [err.read().decode(errors="replace")])
    return accels[-1], "\n".join(notes)


def parse_results(text):
    """The scenarios sent over the results port: {name: (rc, json, output, groups)}.
    Raises ValueError on anything incomplete, so a short transfer is never
    taken for a result."""
    if not re.search(r"^=== done$", text, re.M):
        raise ValueError("the results port has no '=== done' line: the guest did not finish")
    parts = {}
    for name, field, body in re.findall(r"^=== (\w+) (\w+)\n(.*?)(?=^=== )", text, re.M | re.S):
        parts.setdefault(name, {})[field] = body
    scenarios = {}
    for name, f in parts.items():
        if set(f) != {"rc", "json", "output", "groups"}:
            raise ValueError(f"scenario {name} lacks {sorted({'rc', 'json', 'output', 'groups'} - set(f))}")
        scenarios[name] = (int(f["rc"]), json.loads(f["json"]), f["output"], f["groups"].split())
    if set(scenarios) != SCENARIOS:
        raise ValueError(f"scenarios {sorted(scenarios)}, expected {sorted(SCENARIOS)}")
    return scenarios


def libs(path):
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True).stdout
    return [Path(m) for m in re.findall(r"(/\S+) \(0x", out)]


@pytest.fixture(scope="module")
def boot(tmp_path_factory):
    for missing, reason in VM_NEEDS:
        if missing:
            pytest.skip(reason)
    root = tmp_path_factory.mktemp("initramfs")
    for d in ("bin", "proc", "sys", "dev", "tmp", "v"):
        (root / d).mkdir()
    shutil.copy(BUSYBOX, root / "bin" / "busybox")
    spawn = Path(VERNIER).parent / "vernier-spawn"
    for exe in (Path(VERNIER), spawn):
        shutil.copy(exe, root / "v" / exe.name)
        for lib in libs(exe):
            dest = root / lib.relative_to("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(lib.resolve(), dest)
    (root / "init").write_text(INIT)
    (root / "init").chmod(0o755)
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True, check=True).stdout
    image = root.parent / "initramfs.cpio"
    with open(image, "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files.encode(),
                       stdout=f, check=True)
    console, results = root.parent / "console.txt", root.parent / "results.txt"
    accel, stderr = run_guest(["-m", "512", "-smp", "1", "-no-reboot", "-display", "none",
                               "-monitor", "none",
                               "-serial", f"file:{console}", "-serial", f"file:{results}",
                               "-kernel", str(KERNEL), "-initrd", str(image),
                               "-append", "console=ttyS0 panic=-1"], console, timeout=300)
    text = results.read_text(errors="replace") if results.exists() else ""
    try:
        return parse_results(text)
    except ValueError as e:
        raw = console.read_text(errors="replace") if console.exists() else ""
        pytest.fail(f"{e} (accel {accel})\n"
                    f"--- qemu stderr\n{stderr[-2000:]}\n--- results port\n{text[-4000:]}\n"
                    f"--- console\n{raw[-6000:]}")


def test_the_results_parser_refuses_what_is_incomplete():
    one = "=== {0} rc\n0\n=== {0} json\n{{}}\n=== {0} output\n\n=== {0} groups\n"
    whole = "".join(one.format(n) for n in sorted(SCENARIOS))
    assert set(parse_results(whole + "=== done\n")) == SCENARIOS
    with pytest.raises(ValueError, match="done"):
        parse_results(whole)
    with pytest.raises(ValueError, match="scenarios"):
        parse_results(one.format("root") + "=== done\n")
    with pytest.raises(ValueError, match="lacks"):
        parse_results(whole.replace("=== bare groups\n", "") + "=== done\n")


def peaks(d, i):
    return [s["tree_peak_kib"] for s in d["benchmarks"][i]["samples"]]


def test_root_group_measures_the_tree(boot):
    rc, d, err, groups = boot["root"]
    assert rc == 0, err
    assert min(peaks(d, 0)) >= 64 * 1024, peaks(d, 0)
    assert "peak memory of the whole process tree" in err
    # Linux 6.12 resets memory.peak per open file; on an older kernel each
    # run gets a fresh group instead. Either way `true`, run after dd, shows
    # its own small tree, not dd's.
    assert max(peaks(d, 1)) < 32 * 1024, peaks(d, 1)
    assert "largest so far" not in err
    assert groups == []  # removed afterwards


def test_what_a_command_leaves_running_ends_with_its_run(boot):
    # Each run leaves a sleep behind in the background: it is killed when
    # the run's command exits, so every group vernier made can be removed
    # (a group holding a live process cannot), and no note is needed.
    rc, d, err, groups = boot["leftover"]
    assert rc == 0, err
    assert groups == [], groups
    assert "could not be removed" not in err, err


def test_a_group_with_processes_gets_a_group_beside_it(boot):
    # Such a group cannot enable memory for groups below it (only leaves
    # hold processes), so vernier's group goes beside it, under its parent.
    rc, d, err, groups = boot["session"]
    assert rc == 0, err
    assert "not measured" not in err, err
    assert min(peaks(d, 0)) >= 64 * 1024, peaks(d, 0)
    assert max(peaks(d, 1)) < 32 * 1024, peaks(d, 1)
    assert groups == []


def test_no_memory_controller_is_said_plainly(boot):
    rc, d, err, groups = boot["bare"]
    assert rc == 0, err
    assert all(p is None for p in peaks(d, 0) + peaks(d, 1))
    # The console says it in one line; the JSON's note in full.
    assert "not enabled for the groups below /sys/fs/cgroup/bare/inner nor below its parent" in d["note"]
    assert "note: the peak memory of whole process trees is not measured" in err
    assert "5.19" not in d["note"]
