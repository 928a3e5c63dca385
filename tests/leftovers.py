"""Run last by ctest (it depends on every other test): after the whole
suite, nothing of vernier is left behind. No process runs from this build
(a vernier, vernier-spawn, a benchmark program, a command they started
that still runs from here), no cgroup vernier-PID of a dead PID remains,
and no folder vernier-suite-PID-* of a dead PID in the temporary folder."""
import os
import re
import sys
import tempfile
from pathlib import Path

build = Path(sys.argv[1]).resolve()
problems = []

for d in os.listdir("/proc"):
    if not d.isdigit() or int(d) == os.getpid():
        continue
    try:
        exe = Path(os.readlink(f"/proc/{d}/exe"))
        state = Path(f"/proc/{d}/stat").read_text().rsplit(") ", 1)[1].split()[0]
    except OSError:
        continue
    if state != "Z" and build in exe.parents:
        problems.append(f"process {d} still runs {exe}")


def dead(pid):
    try:
        os.kill(pid, 0)
        return False
    except ProcessLookupError:
        return True
    except PermissionError:
        return False


for root, dirs, _ in os.walk("/sys/fs/cgroup"):
    for name in dirs:
        m = re.fullmatch(r"vernier-(\d+)(-\d+)?", name)
        if m and dead(int(m.group(1))):
            problems.append(f"cgroup {os.path.join(root, name)} of a vernier that ended")

tmp = Path(os.environ.get("TMPDIR") or tempfile.gettempdir())
for p in tmp.glob("vernier-suite-*-*"):
    m = re.fullmatch(r"vernier-suite-(\d+)-\w{6}", p.name)
    if m and dead(int(m.group(1))):
        problems.append(f"folder {p} of a suite that ended")

if problems:
    print("left behind after the tests:\n  " + "\n  ".join(problems))
    sys.exit(1)
print("nothing left behind")
