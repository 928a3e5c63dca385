# The two conditions the bench scripts measure in, sourced by them: the
# machine as it is ("quiet"), and with `stress-ng --cpu 1` busy on another
# CPU ("stress"). Every measured process is pinned (taskset) to CPU,
# stress-ng to STRESS_CPU.
#
#   bench_cpus PY      CPU (default: the last this process may use) and
#                      STRESS_CPU (default: the first other one; empty on
#                      a machine of one CPU)
#   bench_out          out: OUT if set (kept), else a temporary folder
#                      removed on exit
#   bench_condition C  starts stress-ng for C = stress, nothing for quiet
#   bench_quiet        stops it
# The exit trap stops stress-ng and removes a temporary out.

stress_pid=
bench_tmp_out=

bench_cpus() {
    local cpus c
    cpus=($("$1" -c 'import os; print(*sorted(os.sched_getaffinity(0)))'))
    CPU=${CPU:-${cpus[-1]}}
    if [ -z "${STRESS_CPU:-}" ]; then
        for c in "${cpus[@]}"; do
            if [ "$c" != "$CPU" ]; then STRESS_CPU=$c; break; fi
        done
    fi
}

bench_out() {
    if [ -n "${OUT:-}" ]; then
        out=$OUT
        mkdir -p "$out"
    else
        out=$(mktemp -d)
        bench_tmp_out=$out
    fi
}

bench_condition() {
    if [ "$1" = stress ]; then
        if [ -z "${STRESS_CPU:-}" ]; then
            echo "$0: no other CPU to run stress-ng on; CONDITIONS=quiet measures without it" >&2
            exit 2
        fi
        stress-ng --cpu 1 --taskset "$STRESS_CPU" --timeout 0 --quiet &
        stress_pid=$!
        sleep 1
    fi
}

bench_quiet() {
    if [ -n "$stress_pid" ]; then
        kill "$stress_pid" 2>/dev/null || true
        wait "$stress_pid" 2>/dev/null || true
        stress_pid=
    fi
}

bench_cleanup() {
    bench_quiet
    if [ -n "$bench_tmp_out" ]; then rm -rf "$bench_tmp_out"; fi
}
trap bench_cleanup EXIT
