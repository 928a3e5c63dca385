"""`vernier run`'s tree peak under cgroup v2, for real: this machine may have
its memory controller on cgroup v1, so the test boots a small Linux under
QEMU (Debian's kernel, unpacked by scripts/install-deps; BusyBox; vernier and
the libraries it links) whose only cgroup hierarchy is v2, and runs vernier
there in the places a real system puts it: the root group, a group with
processes of its own (a login session's scope), and a group where nothing
enables the memory controller."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import vm
from conftest import VERNIER

# What booting the guest needs; the parser's own test runs without it.
VM_NEEDS = vm.needs()

# Each scenario writes its results into a folder of its own under /out; at
# the end the guest sends that folder over the second serial port (vm.py
# says why). dd with a 64 MiB block allocates and touches 64 MiB, and
# `true` after it touches almost nothing.
INIT = vm.INIT_START + r"""mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
cd /v
measure() {
    d=/out/$1; shift
    mkdir -p $d
    ./vernier run --runs 2 --shell sh --json $d/json "$@" > $d/output 2>&1
    echo $? > $d/rc
    find /sys/fs/cgroup -name 'vernier-*' > $d/groups
    dmesg | grep -E '@DMESG_BAD@' > $d/dmesg
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
        for f in rc json output groups dmesg; do
            echo "=== $(basename $d) $f"; cat $d/$f
        done
    done
    echo "=== done"
} > /dev/ttyS1
sync
poweroff -f
""".replace("@DMESG_BAD@", vm.DMESG_BAD)

SCENARIOS = {"root", "leftover", "session", "bare"}


def parse_results(text):
    """The scenarios sent over the results port: {name: (rc, json, output,
    groups)}, and the kernel's log lines that say something went wrong after
    each, {name: text}, under the name "dmesg".
    Raises ValueError on anything incomplete, so a short transfer is never
    taken for a result."""
    if not re.search(r"^=== done$", text, re.M):
        raise ValueError("the results port has no '=== done' line: the guest did not finish")
    parts = {}
    for name, field, body in re.findall(r"^=== (\w+) (\w+)\n(.*?)(?=^=== )", text, re.M | re.S):
        parts.setdefault(name, {})[field] = body
    scenarios, dmesg = {}, {}
    fields = {"rc", "json", "output", "groups", "dmesg"}
    for name, f in parts.items():
        if set(f) != fields:
            raise ValueError(f"scenario {name} lacks {sorted(fields - set(f))}")
        scenarios[name] = (int(f["rc"]), json.loads(f["json"]), f["output"], f["groups"].split())
        dmesg[name] = f["dmesg"]
    if set(scenarios) != SCENARIOS:
        raise ValueError(f"scenarios {sorted(scenarios)}, expected {sorted(SCENARIOS)}")
    scenarios["dmesg"] = dmesg
    return scenarios


def libs(path):
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True).stdout
    return [Path(m) for m in re.findall(r"(/\S+) \(0x", out)]


@pytest.fixture(scope="module")
def boot(tmp_path_factory):
    for missing, reason in VM_NEEDS:
        if missing:
            pytest.skip(reason)
    root = vm.new_root(tmp_path_factory.mktemp("vm"))
    spawn = Path(VERNIER).parent / "vernier-spawn"
    for exe in (Path(VERNIER), spawn):
        shutil.copy(exe, root / "v" / exe.name)
        for lib in libs(exe):
            dest = root / lib.relative_to("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(lib.resolve(), dest)
    guest = vm.boot(root, INIT)
    try:
        return parse_results(guest.results)
    except ValueError as e:
        pytest.fail(guest.explain(str(e)))


def test_the_results_parser_refuses_what_is_incomplete():
    one = "=== {0} rc\n0\n=== {0} json\n{{}}\n=== {0} output\n\n=== {0} groups\n=== {0} dmesg\n"
    whole = "".join(one.format(n) for n in sorted(SCENARIOS))
    assert set(parse_results(whole + "=== done\n")) == SCENARIOS | {"dmesg"}
    with pytest.raises(ValueError, match="done"):
        parse_results(whole)
    with pytest.raises(ValueError, match="scenarios"):
        parse_results(one.format("root") + "=== done\n")
    with pytest.raises(ValueError, match="lacks"):
        parse_results(whole.replace("=== bare groups\n", "") + "=== done\n")


def peaks(d, i):
    return [s["tree_peak_kib"] for s in d["benchmarks"][i]["samples"]]


def tree_rows(err):
    """The summaries' rows of the tree's peak memory (labelled tree)."""
    return [line for line in err.splitlines() if line.split()[:1] == ["tree"]]


def notes(err):
    """The console's lines of the run's note (labelled note:)."""
    return [line for line in err.splitlines() if line.startswith("note: ")]


def test_root_group_measures_the_tree(boot):
    rc, d, err, groups = boot["root"]
    assert rc == 0, err
    assert min(peaks(d, 0)) >= 64 * 1024, peaks(d, 0)
    assert len(tree_rows(err)) == 2  # each command's summary shows it
    # Linux 6.12 resets memory.peak per open file; on an older kernel each
    # run gets a fresh group instead. Either way `true`, run after dd, shows
    # its own small tree, not dd's, and no note says each peak is the
    # largest so far (nor anything else).
    assert max(peaks(d, 1)) < 32 * 1024, peaks(d, 1)
    assert d["note"] is None and notes(err) == [], d["note"]
    assert groups == []  # removed afterwards


def test_what_a_command_leaves_running_ends_with_its_run(boot):
    # Each run leaves a sleep behind in the background: it is killed when
    # the run's command exits, so every group vernier made can be removed
    # (a group holding a live process cannot), and no note is needed.
    rc, d, err, groups = boot["leftover"]
    assert rc == 0, err
    assert groups == [], groups
    assert d["note"] is None and notes(err) == [], d["note"]


def test_a_group_with_processes_gets_a_group_beside_it(boot):
    # Such a group cannot enable memory for groups below it (only leaves
    # hold processes), so vernier's group goes beside it, under its parent.
    rc, d, err, groups = boot["session"]
    assert rc == 0, err
    assert d["note"] is None and notes(err) == [], d["note"]
    assert len(tree_rows(err)) == 2
    assert min(peaks(d, 0)) >= 64 * 1024, peaks(d, 0)
    assert max(peaks(d, 1)) < 32 * 1024, peaks(d, 1)
    assert groups == []


def test_no_memory_controller_is_said_plainly(boot):
    rc, d, err, groups = boot["bare"]
    assert rc == 0, err
    assert all(p is None for p in peaks(d, 0) + peaks(d, 1))
    assert tree_rows(err) == []
    # The JSON's note in full names the group and the file that would
    # enable the controller; the console says its start in one line.
    assert "/sys/fs/cgroup/bare/inner" in d["note"] and "cgroup.subtree_control" in d["note"]
    line, = notes(err)
    assert len(line) <= 100 and d["note"].startswith(line[len("note: "):].removesuffix(" ...")), line
    assert "5.19" not in d["note"]


def test_the_kernel_says_nothing_wrong_after_any_scenario(boot):
    """The guest has two CPUs; after each scenario its log has no BUG,
    WARNING, stall, lockup or hung task (vm.DMESG_BAD)."""
    assert boot["dmesg"] == {name: "" for name in SCENARIOS}, boot["dmesg"]
