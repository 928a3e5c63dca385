/* vernier trace: the time of every call of one kernel function on the live
 * system, through BPF probes on its entry and return (src/trace/), with
 * the statistics, histogram and JSON every other command gives. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "format.h"
#include "interrupt.h"
#include "trace/trace.h"

#define CMD "trace"

/* The most calls --calls may ask for. The calls kept are bounded apart
 * from it (VN__TRACE_KEEP, a uniform sample beyond). */
#define MAX_CALLS 1e12
/* Calls kept an interval of -i, a uniform sample beyond. */
#define INTERVAL_KEEP 100000u

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vernier trace [OPTIONS] FUNCTION\n"
            "\n"
            "Time every call of the kernel function FUNCTION on the live system, from\n"
            "its entry to its return, with BPF probes: fentry/fexit where the kernel's\n"
            "BTF describes the function, kprobe/kretprobe otherwise. Report the exact\n"
            "median with its 95%% CI, percentiles, MAD, the calls per CPU and per\n"
            "process, an exact log2 histogram of every call, what went untimed, and\n"
            "the probes' own cost per call, measured on the getppid system call\n"
            "before tracing. A call inside a call (recursion, an interrupt) is timed\n"
            "on its own. At most 250000 calls are kept, a uniform sample of them\n"
            "beyond, so memory stays under 128 MiB however long the trace. Needs\n"
            "root (CAP_BPF and CAP_PERFMON).\n"
            "\n"
            "Options:\n"
            "  --duration SEC  stop after SEC seconds (default 10)\n"
            "  --calls N       stop after N calls\n"
            "  -i, --interval SEC  also print a line every SEC seconds: the calls of\n"
            "                  that interval, their median, p99 and maximum\n"
            "  --pid PID       keep only the calls made by process PID; stop when it\n"
            "                  exits\n"
            "  --cpu CPU       keep only the calls made on CPU\n"
            "  --kprobe        use kprobes even where fentry/fexit would do\n"
            "  --hist          also draw the distribution of the calls\n"
            "  --json FILE     also write vernier.results/1 JSON to FILE; '-' writes\n"
            "                  only the JSON to standard output\n"
            "  --explain       say what each finding means\n"
            "  -h, --help      show this help\n"
            "\n"
            "Ctrl-C stops the trace early and reports the calls so far.\n"
            "\n"
            "Exit status: 0 on success, 1 when the function cannot be traced (not\n"
            "root, no BTF and no kprobes, an unknown function, the kernel refused)\n"
            "or no call was seen, 2 for a usage error, 130 after Ctrl-C.\n");
}

typedef struct opts {
    const char *func, *json;
    double duration, interval;
    uint64_t calls;
    long pid;
    long cpu;
    int force_kprobe, hist, explain;
} opts;

/* A number in [lo, hi] for opt. */
static int number(const char *opt, const char *s, double lo, double hi, int whole, double *out)
{
    char *end;
    errno = 0;
    double v = vn__strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < lo || v > hi || (whole && v != floor(v))) {
        char a[32], b[32];
        return vn_cli_usage_error(CMD, "%s needs a %snumber from %s to %s, not '%s'", opt,
                                  whole ? "whole " : "", vn__fmt_exact(a, sizeof a, lo),
                                  vn__fmt_exact(b, sizeof b, hi), s);
    }
    *out = v;
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    static const struct option longopts[] = {
        {"duration", required_argument, NULL, 'd'},
        {"calls", required_argument, NULL, 'n'},
        {"interval", required_argument, NULL, 'i'},
        {"pid", required_argument, NULL, 'p'},
        {"cpu", required_argument, NULL, 'c'},
        {"kprobe", no_argument, NULL, 'k'},
        {"hist", no_argument, NULL, 'H'},
        {"json", required_argument, NULL, 'j'},
        {"explain", no_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->duration = 10;
    o->cpu = -1;
    double v;
    int c;
    optind = 1;
    while ((c = vn_cli_getopt(CMD, argc, argv, "hi:", longopts)) != -1) {
        switch (c) {
        case 'd':
            if (number("--duration", optarg, 0.001, 1e6, 0, &o->duration))
                return VN_EXIT_USAGE;
            break;
        case 'n':
            if (number("--calls", optarg, 1, MAX_CALLS, 1, &v))
                return VN_EXIT_USAGE;
            o->calls = (uint64_t)v;
            break;
        case 'i':
            if (number("--interval", optarg, 0.01, 1e6, 0, &o->interval))
                return VN_EXIT_USAGE;
            break;
        case 'p':
            if (number("--pid", optarg, 1, 4194304, 1, &v))
                return VN_EXIT_USAGE;
            o->pid = (long)v;
            break;
        case 'c':
            if (number("--cpu", optarg, 0, 8191, 1, &v))
                return VN_EXIT_USAGE;
            o->cpu = (long)v;
            break;
        case 'k': o->force_kprobe = 1; break;
        case 'H': o->hist = 1; break;
        case 'e': o->explain = 1; break;
        case 'j':
            if (vn_cli_check_path(CMD, "--json", optarg))
                return VN_EXIT_USAGE;
            o->json = optarg;
            break;
        case 'h':
            usage(stdout);
            return vn_cli_flushed(CMD) ? VN_EXIT_FAIL : -2;
        default:
            return VN_EXIT_USAGE;
        }
    }
    if (optind >= argc)
        return vn_cli_usage_error(CMD, "name the kernel function to trace");
    if (argc - optind > 1)
        return vn_cli_usage_error(CMD, "unexpected argument '%s'; give one FUNCTION",
                                  argv[optind + 1]);
    o->func = argv[optind];
    size_t len = strlen(o->func);
    if (!len || len > 127 || strspn(o->func, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_.") != len)
        return vn_cli_usage_error(CMD, "'%s' is not a kernel function's name (letters, digits, "
                                  "'_' and '.')", o->func);
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (o->cpu >= 0 && ncpu > 0 && o->cpu >= ncpu)
        return vn_cli_usage_error(CMD, "--cpu %ld: this machine has CPUs 0 to %ld", o->cpu, ncpu - 1);
    return -1;
}

typedef struct sink_ctx {
    vn__trace_calls calls, interval;
    uint64_t max;
    int err;
} sink_ctx;

static int keep_call(const struct vn_trace_event *e, void *p)
{
    sink_ctx *s = p;
    /* Calls past the limit, in the same poll, are not kept: the count asked
     * for is the count reported. */
    if (s->calls.seen >= s->max || s->err)
        return 0;
    s->err = vn__trace_calls_add(&s->calls, e);
    if (!s->err && s->interval.keep)
        s->err = vn__trace_calls_add(&s->interval, e);
    return 0;
}

static int by_ns(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One line for the interval that just ended, as funclatency -i prints a
 * histogram: the time, the calls, their median, p99 and maximum. Then the
 * interval starts again. */
static void interval_line(const opts *o, sink_ctx *s)
{
    vn__trace_calls *c = &s->interval;
    FILE *out = o->json && !strcmp(o->json, "-") ? stderr : stdout;
    char when[16];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%H:%M:%S", localtime_r(&now, &tm));
    if (!c->n) {
        fprintf(out, "%s  0 calls\n", when);
    } else {
        qsort(c->ns, c->n, sizeof *c->ns, by_ns);
        char a[32], b[32], m[32];
        fprintf(out, "%s  %llu calls  median %s  p99 %s  max %s\n", when,
                (unsigned long long)c->seen, vn__fmt_ns(a, sizeof a, vn_percentile_sorted(c->ns, c->n, 50)),
                vn__fmt_ns(b, sizeof b, vn_percentile_sorted(c->ns, c->n, 99)),
                vn__fmt_ns(m, sizeof m, c->ns[c->n - 1]));
    }
    fflush(out);
    c->n = 0;
    c->seen = 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Reads the ring buffer until the duration, the count, the process's exit
 * or a signal; returns 0 or a negative code. */
static int collect(const opts *o, vn__tracer *t, sink_ctx *s, int pidfd, double *elapsed)
{
    double t0 = now_s(), end = t0 + o->duration, tick = t0 + o->interval;
    int err = 0, gone = 0;
    while (!err && !s->err && s->calls.seen < s->max && !vn__interrupted) {
        double now = now_s(), left = end - now;
        if (o->interval > 0 && now >= tick) {
            interval_line(o, s);
            tick += o->interval;
        }
        if (left <= 0 || gone)
            break;
        if (o->interval > 0 && tick - now < left)
            left = tick - now;
        int ms = left < 0.1 ? (int)(left * 1000) + 1 : 100;
        err = vn__trace_poll(t, ms);
        err = err < 0 ? err : 0;
        if (pidfd >= 0) {
            struct pollfd p = {pidfd, POLLIN, 0};
            gone = poll(&p, 1, 0) > 0;
        }
    }
    *elapsed = now_s() - t0;
    /* What the probes wrote before the loop ended, the calls of a process
     * that just exited among them. */
    if (!err && !vn__interrupted)
        while (s->calls.seen < s->max && !s->err && (err = vn__trace_poll(t, 0)) > 0)
            ;
    return err < 0 ? err : s->err;
}

static int report(const opts *o, const vn_results *r)
{
    return vn_cli_report_results(CMD, r, o->json, o->hist,
                                 vn_cli_report_flags(stdout) | (o->explain ? VN_REPORT_EXPLAIN : 0));
}

/* Checks what can be checked before the kernel is asked, so that each
 * failure names its cause. */
static int preflight(const opts *o, int *pidfd)
{
    if (!vn__trace_built())
        return vn_cli_fail(CMD, "this vernier was built without libbpf; install libbpf-dev and "
                           "clang (scripts/install-deps) and rebuild");
    if (!vn__trace_capable())
        return vn_cli_fail(CMD, "needs root (CAP_BPF and CAP_PERFMON)");
    FILE *f = fopen("/proc/kallsyms", "r");
    if (!f)
        return vn_cli_fail(CMD, "cannot read /proc/kallsyms: %s", strerror(errno));
    int type = vn__kallsyms_type(f, o->func);
    fclose(f);
    if (!type)
        return vn_cli_fail(CMD, "unknown function '%s': not in the kernel's symbols "
                           "(/proc/kallsyms)", o->func);
    if (type != 't' && type != 'T')
        return vn_cli_fail(CMD, "'%s' is not a function (kallsyms type '%c')", o->func, type);
    *pidfd = -1;
    if (o->pid) {
        *pidfd = (int)syscall(SYS_pidfd_open, (pid_t)o->pid, 0);
        if (*pidfd < 0 && errno == ESRCH)
            return vn_cli_fail(CMD, "--pid %ld: no such process", o->pid);
    }
    return 0;
}

static int trace(const opts *o)
{
    int pidfd = -1;
    int status = preflight(o, &pidfd);
    if (status)
        return status;
    sink_ctx s;
    memset(&s, 0, sizeof s);
    s.max = o->calls ? o->calls : (uint64_t)MAX_CALLS;
    s.interval.keep = o->interval > 0 ? INTERVAL_KEEP : 0;
    vn__trace_opts to = {o->func, (uint32_t)o->pid, (int)o->cpu, o->force_kprobe};
    vn__tracer *t = NULL;
    char why[640];
    int rc = vn__trace_open(&to, keep_call, &s, &t, why, sizeof why);
    if (rc) {
        if (pidfd >= 0)
            close(pidfd);
        return vn_cli_fail(CMD, "%s", why);
    }
    vn__trace_info info;
    memset(&info, 0, sizeof info);
    info.func = o->func;
    info.mode = vn__trace_mode_of(t);
    info.fallback = vn__trace_fallback(t);
    info.probe_ns = NAN;
    /* Before the trace's own probes are attached, so that the getppid
     * calls it makes are never among the calls traced. */
    if (vn__trace_probe_cost(info.mode, &info.probe_ns, info.probe, sizeof info.probe))
        info.probe_ns = NAN;

    vn__interrupt_catch();
    rc = vn__trace_attach(t, why, sizeof why);
    if (rc)
        status = vn_cli_fail(CMD, "%s", why);
    else {
        /* The line a script waits for before it starts the calls. */
        fprintf(stderr, "vernier trace: tracing %s with %s; Ctrl-C to stop\n", o->func,
                vn__trace_mode_name(info.mode));
        rc = collect(o, t, &s, pidfd, &info.elapsed);
        info.interrupted = vn__interrupted != 0;
        vn__trace_losses_of(t, &info.lost);
        if (rc)
            status = vn_cli_fail(CMD, "reading the calls of '%s' failed: %s", o->func, vn_strerror(rc));
    }
    vn__trace_close(t);
    if (pidfd >= 0)
        close(pidfd);
    if (!status && !s.calls.n)
        status = vn_cli_fail(CMD, "no calls of '%s' in %.1f s%s", o->func, info.elapsed,
                             o->pid || o->cpu >= 0 ? " (with the --pid and --cpu filters)" : "");
    vn_results r;
    memset(&r, 0, sizeof r);
    if (!status && (rc = vn__trace_view(&s.calls, &info, &r)))
        status = vn_cli_fail(CMD, "cannot summarize the calls: %s", vn_strerror(rc));
    if (!status) {
        vn_sysinfo_collect(&r.env);
        status = report(o, &r);
    }
    vn__interrupt_restore();
    if (!status && info.interrupted) {
        fprintf(stderr, "vernier trace: interrupted; the calls so far were reported\n");
        status = vn__interrupt_exit_code();
    }
    vn_results_free(&r);
    vn__trace_calls_free(&s.calls);
    vn__trace_calls_free(&s.interval);
    return status;
}

int cmd_trace(int argc, char **argv)
{
    opts o;
    int status = parse(argc, argv, &o);
    if (status == -2)
        return VN_EXIT_OK;
    return status >= 0 ? status : trace(&o);
}
