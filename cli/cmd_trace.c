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
#include "base/format.h"
#include "base/interrupt.h"
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
            "usage: vernier trace [OPTIONS] FUNCTION...\n"
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
            "root (CAP_BPF and CAP_PERFMON). Several functions, or a pattern such as\n"
            "'vfs_*' (at most 32 functions), are traced at once, a row each.\n"
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
            "  --store URL     also keep the results in the store vernier history reads\n"
            "                  (also $VERNIER_STORE); --commit, --branch and --tag\n"
            "                  KEY=VALUE as for vernier store add; --store-samples\n"
            "                  keeps every call's time too\n"
            "  --explain       say what each finding means\n"
            "  -h, --help      show this help\n"
            "\n"
            "Ctrl-C stops the trace early and reports the calls so far.\n"
            "\n"
            "Exit status: 0 on success, 1 when the function cannot be traced (not\n"
            "root, no BTF and no kprobes, an unknown function, the kernel refused)\n"
            "or no call was seen, 2 for a usage error, 130 after Ctrl-C.\n");
}

#define MAX_FUNCS 32

typedef struct opts {
    const char *json;
#ifndef VN_NO_COMPARE
    vn_cli_store store;
#endif
    const char *args[MAX_FUNCS]; /* as typed, patterns among them */
    size_t nargs;
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
#ifndef VN_NO_COMPARE
        VN_CLI_STORE_OPTIONS,
#endif
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
#ifndef VN_NO_COMPARE
        VN_CLI_STORE_CASES:
            if (vn_cli_store_opts(CMD, c, optarg, &o->store))
                return VN_EXIT_USAGE;
            break;
#endif
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
    if (argc - optind > MAX_FUNCS)
        return vn_cli_usage_error(CMD, "at most %d functions at once", MAX_FUNCS);
    for (int a = optind; a < argc; a++) {
        const char *f = argv[a];
        size_t len = strlen(f);
        if (!len || len > 127 || strspn(f, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_.*?[]") != len)
            return vn_cli_usage_error(CMD, "'%s' is not a kernel function's name (letters, digits, "
                                      "'_' and '.') or a pattern of them (* ? [...])", f);
        o->args[o->nargs++] = f;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (o->cpu >= 0 && ncpu > 0 && o->cpu >= ncpu)
        return vn_cli_usage_error(CMD, "--cpu %ld: this machine has CPUs 0 to %ld", o->cpu, ncpu - 1);
    return -1;
}

/* One function's calls; total and max are shared by all the functions. */
typedef struct sink_ctx {
    vn__trace_calls calls, interval;
    uint64_t max, *total;
    int err;
} sink_ctx;

static int keep_call(const struct vn_trace_event *e, void *p)
{
    sink_ctx *s = p;
    /* Calls past the limit, in the same poll, are not kept: the count asked
     * for is the count reported. */
    if (*s->total >= s->max || s->err)
        return 0;
    ++*s->total;
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

/* A function being traced: its probes, its calls, what its report says. */
typedef struct fn {
    char *name;
    vn__tracer *t;
    sink_ctx s;
    vn__trace_info info;
} fn;

/* One line a function for the interval that just ended, as funclatency -i
 * prints a histogram: the time, the calls, their median, p99 and maximum
 * (and the function, when there are several). Then the interval starts
 * again. */
static void interval_lines(const opts *o, fn *fs, size_t n)
{
    FILE *out = o->json && !strcmp(o->json, "-") ? stderr : stdout;
    char when[16];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%H:%M:%S", localtime_r(&now, &tm));
    for (size_t i = 0; i < n; i++) {
        vn__trace_calls *c = &fs[i].s.interval;
        char who[80] = "";
        if (n > 1)
            snprintf(who, sizeof who, "  %s", fs[i].name);
        if (!c->n) {
            fprintf(out, "%s%s  0 calls\n", when, who);
        } else {
            qsort(c->ns, c->n, sizeof *c->ns, by_ns);
            char a[32], b[32], m[32];
            fprintf(out, "%s%s  %llu calls  median %s  p99 %s  max %s\n", when, who,
                    (unsigned long long)c->seen,
                    vn__fmt_ns(a, sizeof a, vn_percentile_sorted(c->ns, c->n, 50)),
                    vn__fmt_ns(b, sizeof b, vn_percentile_sorted(c->ns, c->n, 99)),
                    vn__fmt_ns(m, sizeof m, c->ns[c->n - 1]));
        }
        c->n = 0;
        c->seen = 0;
    }
    fflush(out);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int sink_err(const fn *fs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fs[i].s.err)
            return fs[i].s.err;
    return 0;
}

/* Polls every function's ring buffer, the last one waiting up to ms. */
static int poll_all(fn *fs, size_t n, int ms)
{
    int got = 0;
    for (size_t i = 0; i < n; i++) {
        int r = vn__trace_poll(fs[i].t, i + 1 == n ? ms : 0);
        if (r < 0)
            return r;
        got += r;
    }
    return got;
}

/* Reads the ring buffers until the duration, the count, the process's exit
 * or a signal; returns 0 or a negative code. */
static int collect(const opts *o, fn *fs, size_t n, uint64_t *total, uint64_t max, int pidfd,
                   double *elapsed)
{
    double t0 = now_s(), end = t0 + o->duration, tick = t0 + o->interval;
    int err = 0, gone = 0;
    while (!err && !sink_err(fs, n) && *total < max && !vn__interrupted) {
        double now = now_s(), left = end - now;
        if (o->interval > 0 && now >= tick) {
            interval_lines(o, fs, n);
            tick += o->interval;
        }
        if (left <= 0 || gone)
            break;
        if (o->interval > 0 && tick - now < left)
            left = tick - now;
        int ms = left < 0.1 ? (int)(left * 1000) + 1 : 100;
        err = poll_all(fs, n, ms);
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
        while (*total < max && !sink_err(fs, n) && (err = poll_all(fs, n, 0)) > 0)
            ;
    return err < 0 ? err : sink_err(fs, n);
}

static int report(const opts *o, const vn_results *r)
{
    int status = vn_cli_report_results(CMD, r, o->json, o->hist,
                                       vn_cli_report_flags(stdout) |
                                           (o->explain ? VN_REPORT_EXPLAIN : 0));
#ifndef VN_NO_COMPARE
    if (!status)
        status = vn_cli_store_results(CMD, &o->store, r, o->json);
#endif
    return status;
}

/* The functions the arguments name: each name checked against kallsyms,
 * each pattern expanded there. 0, else an exit status after a message. */
static int functions(const opts *o, fn *fs, size_t *n)
{
    *n = 0;
    for (size_t a = 0; a < o->nargs; a++) {
        const char *arg = o->args[a];
        FILE *f = fopen("/proc/kallsyms", "r");
        if (!f)
            return vn_cli_fail(CMD, "cannot read /proc/kallsyms: %s", strerror(errno));
        if (strpbrk(arg, "*?[")) {
            char *names[MAX_FUNCS];
            size_t got = 0;
            int rc = vn__kallsyms_match(f, arg, names, MAX_FUNCS, &got);
            fclose(f);
            for (size_t i = 0; i < got; i++) {
                int dup = 0;
                for (size_t k = 0; k < *n && !dup; k++)
                    dup = !strcmp(fs[k].name, names[i]);
                if (dup || *n == MAX_FUNCS)
                    free(names[i]);
                else
                    fs[(*n)++].name = names[i];
            }
            if (rc == VN_E2BIG_MATCHES || (got && *n == MAX_FUNCS && a + 1 < o->nargs))
                return vn_cli_usage_error(CMD, "'%s' matches more than %d functions; narrow it",
                                          arg, MAX_FUNCS);
            if (rc)
                return vn_cli_fail(CMD, "%s", vn_strerror(rc));
            if (!got)
                return vn_cli_fail(CMD, "no kernel function matches '%s' (/proc/kallsyms)", arg);
            continue;
        }
        int type = vn__kallsyms_type(f, arg);
        fclose(f);
        if (!type)
            return vn_cli_fail(CMD, "unknown function '%s': not in the kernel's symbols "
                               "(/proc/kallsyms)", arg);
        if (type != 't' && type != 'T')
            return vn_cli_fail(CMD, "'%s' is not a function (kallsyms type '%c')", arg, type);
        int dup = 0;
        for (size_t k = 0; k < *n && !dup; k++)
            dup = !strcmp(fs[k].name, arg);
        if (!dup && !(fs[(*n)++].name = strdup(arg)))
            return vn_cli_fail(CMD, "%s", vn_strerror(VN_ENOMEM));
    }
    return 0;
}

/* Checks what can be checked before the kernel is asked, so that each
 * failure names its cause. */
static int preflight(const opts *o, fn *fs, size_t *n, int *pidfd)
{
    *pidfd = -1;
    if (!vn__trace_built())
        return vn_cli_fail(CMD, "this vernier was built without libbpf; install libbpf-dev and "
                           "clang (scripts/install-deps) and rebuild");
    if (!vn__trace_capable())
        return vn_cli_fail(CMD, "needs root (CAP_BPF and CAP_PERFMON)");
    int rc = functions(o, fs, n);
    if (rc)
        return rc;
    if (o->pid) {
        *pidfd = (int)syscall(SYS_pidfd_open, (pid_t)o->pid, 0);
        if (*pidfd < 0 && errno == ESRCH)
            return vn_cli_fail(CMD, "--pid %ld: no such process", o->pid);
    }
    return 0;
}

/* The ring buffer of each of n functions: 16 MiB shared, a power of two of
 * at least 1 MiB each. */
static uint32_t ringbuf_each(size_t n)
{
    uint32_t b = VN_TRACE_RINGBUF_BYTES;
    while (n > 1 && b > (1u << 20)) {
        b /= 2;
        n = (n + 1) / 2;
    }
    return b;
}

/* The probe cost of each mode the functions use, measured once a mode. */
static void probe_costs(fn *fs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < i && fs[k].info.mode != fs[i].info.mode)
            k++;
        if (k < i) {
            fs[i].info.probe_ns = fs[k].info.probe_ns;
            memcpy(fs[i].info.probe, fs[k].info.probe, sizeof fs[i].info.probe);
        } else if (vn__trace_probe_cost(fs[i].info.mode, &fs[i].info.probe_ns, fs[i].info.probe,
                                        sizeof fs[i].info.probe)) {
            fs[i].info.probe_ns = NAN;
        }
    }
}

static int trace(const opts *o)
{
    fn fs[MAX_FUNCS];
    memset(fs, 0, sizeof fs);
    size_t n = 0;
    int pidfd = -1, rc = 0;
    uint64_t total = 0, max = o->calls ? o->calls : (uint64_t)MAX_CALLS;
    int status = preflight(o, fs, &n, &pidfd);
    char why[640];
    for (size_t i = 0; !status && i < n; i++) {
        fn *f = &fs[i];
        f->s.max = max;
        f->s.total = &total;
        f->s.interval.keep = o->interval > 0 ? INTERVAL_KEEP : 0;
        vn__trace_opts to = {.func = f->name, .pid = (uint32_t)o->pid, .cpu = (int)o->cpu,
                             .force_kprobe = o->force_kprobe, .ringbuf_bytes = ringbuf_each(n)};
        if ((rc = vn__trace_open(&to, keep_call, &f->s, &f->t, why, sizeof why)) != 0)
            status = vn_cli_fail(CMD, "%s", why);
        f->info.func = f->name;
        f->info.mode = f->t ? vn__trace_mode_of(f->t) : VN__TRACE_FENTRY;
        f->info.fallback = f->t ? vn__trace_fallback(f->t) : "";
        f->info.probe_ns = NAN;
        f->info.no_breakdown = n > 1;
    }
    /* Before the trace's own probes are attached, so that the getppid
     * calls it makes are never among the calls traced. */
    if (!status)
        probe_costs(fs, n);
    vn__interrupt_catch();
    for (size_t i = 0; !status && i < n; i++)
        if ((rc = vn__trace_attach(fs[i].t, why, sizeof why)) != 0)
            status = vn_cli_fail(CMD, "%s", why);
    double elapsed = 0;
    if (!status) {
        /* The line a script waits for before it starts the calls. */
        if (n == 1)
            fprintf(stderr, "vernier trace: tracing %s with %s; Ctrl-C to stop\n", fs[0].name,
                    vn__trace_mode_name(fs[0].info.mode));
        else
            fprintf(stderr, "vernier trace: tracing %zu functions (%s, ...); Ctrl-C to stop\n", n,
                    fs[0].name);
        rc = collect(o, fs, n, &total, max, pidfd, &elapsed);
        for (size_t i = 0; i < n; i++) {
            fs[i].info.elapsed = elapsed;
            fs[i].info.interrupted = vn__interrupted != 0;
            vn__trace_losses_of(fs[i].t, &fs[i].info.lost);
        }
        if (rc)
            status = vn_cli_fail(CMD, "reading the calls failed: %s", vn_strerror(rc));
    }
    for (size_t i = 0; i < n; i++) {
        vn__trace_close(fs[i].t);
        fs[i].t = NULL;
    }
    if (pidfd >= 0)
        close(pidfd);
    if (!status && !total)
        status = vn_cli_fail(CMD, "no calls of %s%s%s in %.1f s%s", n > 1 ? "any of " : "'",
                             n > 1 ? "the functions" : fs[0].name, n > 1 ? "" : "'", elapsed,
                             o->pid || o->cpu >= 0 ? " (with the --pid and --cpu filters)" : "");
    vn_results r;
    memset(&r, 0, sizeof r);
    int made = 0;
    for (size_t i = 0; !status && i < n; i++) {
        if (!fs[i].s.calls.n)
            continue;
        rc = made ? vn__trace_view_add(&r, &fs[i].s.calls, &fs[i].info)
                  : vn__trace_view(&fs[i].s.calls, &fs[i].info, &r);
        made = made || !rc;
        if (rc)
            status = vn_cli_fail(CMD, "cannot summarize the calls: %s", vn_strerror(rc));
    }
    /* A function of several with no call is said, not left out silently. */
    for (size_t i = 0; !status && i < n; i++) {
        char brief[200];
        snprintf(brief, sizeof brief, "no calls of %s", fs[i].name);
        if (!fs[i].s.calls.n && (rc = vn_results_add_finding(&r, "trace_none", brief, NULL)))
            status = vn_cli_fail(CMD, "%s", vn_strerror(rc));
    }
    if (!status) {
        vn_sysinfo_collect(&r.env);
        status = report(o, &r);
    }
    vn__interrupt_restore();
    if (!status && vn__interrupted) {
        fprintf(stderr, "vernier trace: interrupted; the calls so far were reported\n");
        status = vn__interrupt_exit_code();
    }
    if (made)
        vn__results_clear(&r);
    for (size_t i = 0; i < n; i++) {
        vn__trace_calls_free(&fs[i].s.calls);
        vn__trace_calls_free(&fs[i].s.interval);
        free(fs[i].name);
    }
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
