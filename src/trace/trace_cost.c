/* The probes' own cost: what an entry and a return probe add to one call,
 * measured on a function this process can call a known number of times
 * with almost no work of its own, the getppid system call. The loop is
 * timed without the probes, then with them (filtered to this process, so
 * nothing else is recorded), and the medians' difference is the cost. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace.h"

/* Rounds a side, and calls a round: a round is about a millisecond and
 * fits the ring buffer many times over, which is drained between rounds.
 * The whole measurement is some 70000 system calls, well under a second
 * after the probes' load; its spread and its time, apart from the load's,
 * are reported beside it. */
#define ROUNDS 11
#define CALLS 3000

/* The getppid system call's kernel function, by architecture and age. */
static const char *const getppid_funcs[] = {
    "__x64_sys_getppid", "__arm64_sys_getppid", "__do_sys_getppid", "__se_sys_getppid",
    "sys_getppid",
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double round_ns(void)
{
    double t0 = now_ns();
    for (int i = 0; i < CALLS; i++)
        syscall(SYS_getppid);
    return (now_ns() - t0) / CALLS;
}

static int count_call(const struct vn_trace_event *e, void *ctx)
{
    (void)e;
    ++*(size_t *)ctx;
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return vn_percentile_sorted(v, n, 50);
}

/* Drains the ring buffer until it is empty. */
static int drain(vn__tracer *t)
{
    int got;
    while ((got = vn__trace_poll(t, 0)) > 0)
        ;
    return got;
}

/* The cost on one function and its spread (half the interquartile range of
 * the probed rounds, each less the bare rounds' median), and how long the
 * probes took to load and attach (load_s) and the rounds to run (run_s):
 * 0, or a negative code with the reason in why. */
static int cost_on(const char *func, vn__trace_mode m, double *ns, double *spread, double *load_s,
                   double *run_s, char *why, size_t n)
{
    double t0 = now_ns();
    vn__trace_opts o = {.func = func, .pid = (uint32_t)getpid(), .cpu = -1,
                        .force_kprobe = m == VN__TRACE_KPROBE};
    vn__tracer *t = NULL;
    size_t seen = 0;
    int err = vn__trace_open(&o, count_call, &seen, &t, why, n);
    if (err)
        return err;
    /* The same mode as the trace, or the cost would be another probe's. */
    if (vn__trace_mode_of(t) != m) {
        vn__trace_close(t);
        snprintf(why, n, "%s cannot be traced with %s", func, vn__trace_mode_name(m));
        return VN_ENOTSUP;
    }
    double bare[ROUNDS], probed[ROUNDS];
    double t1 = now_ns();
    round_ns(); /* warm the loop and the system call's path */
    for (int r = 0; r < ROUNDS; r++)
        bare[r] = round_ns();
    double t2 = now_ns();
    err = vn__trace_attach(t, why, n);
    double t3 = now_ns();
    for (int r = 0; !err && r < ROUNDS; r++) {
        probed[r] = round_ns();
        if (drain(t) < 0) {
            err = VN_EIO;
            snprintf(why, n, "cannot read the ring buffer");
        }
    }
    double t4 = now_ns();
    *load_s = (t1 - t0 + t3 - t2) / 1e9;
    *run_s = (t2 - t1 + t4 - t3) / 1e9;
    vn__trace_losses lost;
    vn__trace_losses_of(t, &lost);
    vn__trace_close(t);
    if (err)
        return err;
    /* The probes must have seen every call, or this function is not the
     * one the system call runs (an inlined copy's symbol). */
    if (seen + lost.events + lost.starts + lost.kernel != (size_t)ROUNDS * CALLS) {
        snprintf(why, n, "the probes on %s saw %zu of %d calls", func, seen, ROUNDS * CALLS);
        return VN_EIO;
    }
    double base = median(bare, ROUNDS);
    *ns = median(probed, ROUNDS) - base;
    /* probed is sorted now. */
    *spread = (vn_percentile_sorted(probed, ROUNDS, 75) - vn_percentile_sorted(probed, ROUNDS, 25)) / 2;
    return 0;
}

int vn__trace_probe_cost(vn__trace_mode m, double *ns, char *desc, size_t n)
{
    int err = VN_ENOENT;
    char why[256] = "no getppid function in the kernel's symbols";
    for (size_t i = 0; i < sizeof getppid_funcs / sizeof *getppid_funcs; i++) {
        const char *func = getppid_funcs[i];
        FILE *f = fopen("/proc/kallsyms", "r");
        int type = f ? vn__kallsyms_type(f, func) : 0;
        if (f)
            fclose(f);
        if (!type)
            continue;
        double spread, load, run;
        err = cost_on(func, m, ns, &spread, &load, &run, why, sizeof why);
        if (!err) {
            snprintf(desc, n, "+-%.0f ns, %s on %s, %.2f s + %.2f s load", spread,
                     vn__trace_mode_name(m), func, run, load);
            return 0;
        }
    }
    snprintf(desc, n, "%s", why);
    return err;
}
