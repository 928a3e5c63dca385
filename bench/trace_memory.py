"""vernier trace on a long, hot trace, in the guest kernel of the VM tests:
a workload makes CALLS (default 30 million) getppid calls under
`vernier trace --pid`, between two traces of 200000 calls, a full record
each (under the 250000 kept). Prints each trace's report, the tool's peak
resident size (VmHWM) every 30 s, and the time from start to tracing (the
probes' load and cost measurement). The trace ends when the workload does,
so the probes are never detached while it runs.

    build/venv/bin/python bench/trace_memory.py [CALLS]

Needs what the VM test needs (scripts/install-deps --test): QEMU, the
unpacked kernel in build/vm, a static busybox, libbpf's static archives,
and a configured build/ with the BPF program."""
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "cli"))
import vm  # noqa: E402
from test_kbench import build_static_vernier, build_workload, static_trace  # noqa: E402

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 30_000_000

SCRIPT = r"""mount -t debugfs none /sys/kernel/debug
cd /v
mkdir /out
up() { cut -d' ' -f1 /proc/uptime | tr -d .; }
hwm() { awk '/^VmHWM/ {print $2}' /proc/$1/status 2> /dev/null; }
run() {
    mkfifo /tmp/go
    ./getppid_calls $2 < /tmp/go &
    w=$!
    a=$(up)
    ./vernier trace --pid $w --duration 900 __do_sys_getppid > /out/$1 2> /out/$1.err &
    t=$!
    while kill -0 $t 2> /dev/null && ! grep -q 'vernier trace: tracing' /out/$1.err; do :; done
    echo "hundredths of a second before tracing: $(( $(up) - a ))" > /out/$1.mem
    b=$(up)
    echo go > /tmp/go
    while kill -0 $t 2> /dev/null; do
        echo "at $(( $(up) - b )) hundredths: VmHWM $(hwm $t) kB" >> /out/$1.mem
        sleep 30
    done
    wait $t
    rm /tmp/go
}
run short1 200000
run long @CALLS@
run short2 200000
stty -F /dev/ttyS1 raw -echo
{ for f in /out/*; do echo "=== $(basename $f)"; cat $f; done; echo "=== done"; } > /dev/ttyS1
sync
poweroff -f
""".replace("@CALLS@", str(CALLS))


def main():
    for missing, reason in vm.needs():
        if missing:
            sys.exit(f"trace_memory: {reason}")
    args, why = static_trace()
    if args is None:
        sys.exit(f"trace_memory: {why}")
    with tempfile.TemporaryDirectory() as d:
        root = vm.new_root(pathlib.Path(d))
        build_static_vernier(root / "v" / "vernier", args)
        build_workload(root / "v" / "getppid_calls")
        g = vm.boot(root, vm.INIT_START + SCRIPT, timeout=1800, memory="1024")
        if "=== done" not in g.results:
            sys.exit(g.explain("the guest did not finish"))
        print(g.results)


if __name__ == "__main__":
    main()
