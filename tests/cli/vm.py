"""Booting a small Linux under QEMU for the tests that need a kernel of
their own (tests/cli/test_cgroup_v2.py, test_kbench.py): Debian's kernel,
unpacked by scripts/install-deps into build/vm/vmlinuz; an initramfs of
BusyBox and what the test puts in it; KVM when it works, else emulation.
The guest sends its results over the second serial port (ttyS1), which
nothing but the test's init script writes to: the kernel's messages go to
the first one (the console), so they never mix with the results."""
import os
import platform
import shutil
import subprocess
import tempfile
import time

from conftest import BUILD, loads_nothing_at_run_time, sanitized

KERNEL = BUILD / "vm" / "vmlinuz"
QEMU = shutil.which("qemu-system-x86_64")
BUSYBOX = shutil.which("busybox")


def static(path):
    """Whether the program at path runs in a guest with no libraries."""
    return path is not None and loads_nothing_at_run_time(path)


def needs():
    """What booting the guest needs: (missing, reason) pairs; a test skips
    with the first reason whose thing is missing."""
    # The sanitized build's reason first: its build folder has no kernel of
    # its own (install-deps unpacks it into build/), and the reason it
    # would give would blame install-deps for what is by design.
    return [
        (sanitized(), "a sanitized vernier needs its runtime's environment, not a bare initramfs"),
        (platform.machine() != "x86_64", "boots an x86-64 kernel"),
        (QEMU is None, "qemu-system-x86_64 is not installed (scripts/install-deps)"),
        (not KERNEL.is_file(), f"no kernel at {KERNEL}: scripts/install-deps could not download one"),
        (not static(BUSYBOX), "a static busybox is not installed (busybox-static)"),
        (shutil.which("cpio") is None, "cpio is not installed"),
    ]


def kernel_release(path=KERNEL):
    """The release of a bzImage ("6.1.0-56-amd64"), read from its setup
    header's kernel_version string; None when it has none."""
    data = path.read_bytes()[:0x10000]
    if len(data) < 0x210 or data[0x202:0x206] != b"HdrS":
        return None
    at = int.from_bytes(data[0x20E:0x210], "little") + 0x200
    end = data.find(b"\0", at)
    words = data[at:end].split() if at < len(data) and end > at else []
    return words[0].decode() if words else None


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
# has said nothing by then (its console is empty) is stopped and booted
# again under emulation.
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
                        if console.exists() and console.stat().st_size > 0:
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


# How every init script starts: BusyBox's commands on PATH, and the file
# systems a program expects.
INIT_START = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
"""


def new_root(tmp):
    """An initramfs tree with BusyBox at /bin/busybox and the usual mount
    points; the test adds its files, then calls boot()."""
    root = tmp / "initramfs"
    for d in ("bin", "proc", "sys", "dev", "tmp", "v"):
        (root / d).mkdir(parents=True)
    shutil.copy(BUSYBOX, root / "bin" / "busybox")
    return root


class Boot:
    """One boot: what came back on the results port, and what explains a
    failure (the accelerator, QEMU's stderr, the console)."""

    def __init__(self, results, accel, stderr, console):
        self.results, self.accel, self.stderr, self.console = results, accel, stderr, console

    def explain(self, why):
        return (f"{why} (accel {self.accel})\n"
                f"--- qemu stderr\n{self.stderr[-2000:]}\n--- results port\n{self.results[-4000:]}\n"
                f"--- console\n{self.console[-6000:]}")


# Every guest has two CPUs: a kernel that runs work on several CPUs at once
# is the kernel that locks, RCU and the module's parallel runs meet. The
# detectors of a stuck CPU are made quick, so a test that ran with
# interrupts off too long sees it in a few seconds, not twenty: an RCU
# stall after 3 s, a soft lockup after 2 s (twice watchdog_thresh).
APPEND = "console=ttyS0 panic=-1 rcupdate.rcu_cpu_stall_timeout=3 watchdog_thresh=1"

# What in a guest's kernel log says something went wrong: the tests that
# boot one check it after their runs.
DMESG_BAD = (r"BUG|WARNING|Oops|kmemleak|Call Trace|blocked for more than|rcu: INFO|"
             r"detected stall|soft lockup|hung_task")


def boot(root, init, timeout=300, memory="512", cpus=2):
    """Packs root with init as /init into an initramfs, boots it, and
    returns the Boot. The init script should write its results to
    /dev/ttyS1 (after `stty -F /dev/ttyS1 raw -echo`), then sync and
    `poweroff -f`: closing a serial port waits until what was written to it
    has gone out, so the results are on the host before the power goes."""
    (root / "init").write_text(init)
    (root / "init").chmod(0o755)
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, text=True, check=True).stdout
    image = root.parent / "initramfs.cpio"
    with open(image, "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files.encode(),
                       stdout=f, check=True)
    console, results = root.parent / "console.txt", root.parent / "results.txt"
    accel, stderr = run_guest(["-m", memory, "-smp", str(cpus), "-no-reboot", "-display", "none",
                               "-monitor", "none",
                               "-serial", f"file:{console}", "-serial", f"file:{results}",
                               "-kernel", str(KERNEL), "-initrd", str(image),
                               "-append", APPEND], console, timeout=timeout)
    text = results.read_text(errors="replace") if results.exists() else ""
    raw = console.read_text(errors="replace") if console.exists() else ""
    return Boot(text, accel, stderr, raw)
