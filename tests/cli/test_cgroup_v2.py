"""`vernier run`'s tree peak under cgroup v2, for real: this machine may have
its memory controller on cgroup v1, so the test boots a small Linux under
QEMU (Debian's kernel, unpacked by scripts/install-deps; BusyBox; vernier and
the libraries it links) whose only cgroup hierarchy is v2, and runs vernier
there in the places a real system puts it: the root group, a group with
processes of its own (a login session's scope), and a group where nothing
enables the memory controller."""
import json
import platform
import re
import shutil
import subprocess
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


pytestmark = [
    pytest.mark.skipif(platform.machine() != "x86_64", reason="boots an x86-64 kernel"),
    pytest.mark.skipif(QEMU is None, reason="qemu-system-x86_64 is not installed (scripts/install-deps)"),
    pytest.mark.skipif(not KERNEL.is_file(), reason=f"no kernel at {KERNEL}: scripts/install-deps could not download one"),
    pytest.mark.skipif(not static(BUSYBOX), reason="a static busybox is not installed (busybox-static)"),
    pytest.mark.skipif(shutil.which("cpio") is None, reason="cpio is not installed"),
    pytest.mark.skipif(sanitized(),
                       reason="a sanitized vernier needs its runtime's environment, not a bare initramfs"),
]

# Each scenario prints its JSON between markers; dd with a 64 MiB block
# allocates and touches 64 MiB, and `true` after it touches almost nothing.
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
scenario() {
    echo "== $1"
    ./vernier run --runs 2 --shell --json /tmp/out.json 'dd if=/dev/zero of=/dev/null bs=64M count=1' true \
        > /tmp/err.txt 2>&1
    echo "rc=$?"
    echo "-- json"; cat /tmp/out.json; echo; echo "-- output"; cat /tmp/err.txt; echo "-- groups"
    find /sys/fs/cgroup -name 'vernier-*'
    echo "== end"
}
scenario root
echo "== leftover"
./vernier run --runs 2 --shell --json /tmp/out.json 'sleep 5 & true' > /tmp/err.txt 2>&1
echo "rc=$?"
echo "-- json"; cat /tmp/out.json; echo; echo "-- output"; cat /tmp/err.txt; echo "-- groups"
find /sys/fs/cgroup -name 'vernier-*'
echo "== end"
killall sleep; sleep 0.5
for g in $(find /sys/fs/cgroup -name 'vernier-*'); do rmdir "$g"; done
mkdir /sys/fs/cgroup/session
echo $$ > /sys/fs/cgroup/session/cgroup.procs
scenario session
mkdir -p /sys/fs/cgroup/bare/inner
echo $$ > /sys/fs/cgroup/bare/inner/cgroup.procs
scenario bare
poweroff -f
"""


def libs(path):
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True).stdout
    return [Path(m) for m in re.findall(r"(/\S+) \(0x", out)]


@pytest.fixture(scope="module")
def boot(tmp_path_factory):
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
    p = subprocess.run([QEMU, "-m", "512", "-smp", "1", "-nographic", "-no-reboot",
                        "-kernel", str(KERNEL), "-initrd", str(image),
                        "-append", "console=ttyS0 quiet panic=-1"],
                       capture_output=True, text=True, timeout=240)
    # The firmware clears the screen with escape sequences before our lines.
    out = re.sub(r"\x1b(\[[0-9;?]*[A-Za-z]|c)", "", p.stdout.replace("\r", ""))
    scenarios = {}
    for name, body in re.findall(r"^== (\w+)\n(.*?)^== end$", out, re.M | re.S):
        rc = int(re.search(r"^rc=(\d+)$", body, re.M).group(1))
        js = body.split("-- json\n", 1)[1].split("\n-- output\n", 1)[0]
        err = body.split("-- output\n", 1)[1].split("-- groups\n", 1)[0]
        groups = body.split("-- groups\n", 1)[1].split()
        scenarios[name] = (rc, json.loads(js), err, groups)
    assert set(scenarios) == {"root", "leftover", "session", "bare"}, out[-3000:]
    return scenarios


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
    assert "not enabled for the groups below /sys/fs/cgroup/bare/inner nor below its parent" in err
    assert "5.19" not in err
