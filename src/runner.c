/* vernier run: whole commands over many runs. Each command (times each
 * combination of parameter values) is a row; rows take turns run by run
 * (A B A B, or shuffled blocks), so drift in the machine hits all alike. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "abi.h"
#include "cgroup_internal.h"
#include "runner_internal.h"
#include "exec_internal.h"
#include "bench_internal.h"
#include "counters_internal.h"
#include "clock_internal.h"
#include "format.h"
#include "idle_internal.h"
#include "progress.h"
#include "sysinfo_parse.h"
#include "vernier/runner.h"
#include "run_input.h"
#include "stats_internal.h"

#define MAX_ROWS 10000
#define SHELL_RUNS 30

void vn_run_config_init(vn_run_config *c)
{
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    c->min_runs = 10;
    c->max_runs = 10000;
    c->min_time = 3.0;
    c->precision = 1.0;
    c->seed = 0x76657231;
    c->tree_memory = 1;
    c->cpu = -1;
    c->dma_latency_us = VN_DMA_LATENCY_AUTO;
}

void vn_run_results_init(vn_run_results *r)
{
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
}

void vn_run_results_free(vn_run_results *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->commands && i < r->ncommands; i++) {
        vn_run_result *x = &r->commands[i];
        free(x->command);
        for (size_t k = 0; k < x->nparams; k++) {
            free(x->pnames ? x->pnames[k] : NULL);
            free(x->pvalues ? x->pvalues[k] : NULL);
        }
        free(x->pnames);
        free(x->pvalues);
        free(x->samples);
        free(x->proc);
        free(x->sample_counts);
    }
    free(r->commands);
    vn_sysinfo_free(&r->env);
    size_t size = r->size;
    memset(r, 0, sizeof *r);
    r->size = size;
}

/* ---- Parameters --------------------------------------------------------------- */

static int push_value(char ***v, size_t *n, const char *s, size_t len)
{
    char **nv = realloc(*v, (*n + 2) * sizeof *nv);
    if (!nv)
        return VN_ENOMEM;
    *v = nv;
    char *c = malloc(len + 1);
    if (!c)
        return VN_ENOMEM;
    memcpy(c, s, len);
    c[len] = '\0';
    (*v)[(*n)++] = c;
    (*v)[*n] = NULL;
    return 0;
}

static void free_values(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int vn__param_list(const char *spec, char ***values, size_t *n, char *err, size_t errlen)
{
    *values = NULL;
    *n = 0;
    if (!spec || !*spec) {
        snprintf(err, errlen, "the list of values is empty");
        return VN_EINVAL;
    }
    for (const char *p = spec;;) {
        size_t l = strcspn(p, ",");
        if (l == 0) {
            snprintf(err, errlen, "'%s' has an empty value", spec);
            free_values(*values, *n);
            *values = NULL;
            *n = 0;
            return VN_EINVAL;
        }
        if (push_value(values, n, p, l)) {
            free_values(*values, *n);
            return VN_ENOMEM;
        }
        if (!p[l])
            break;
        p += l + 1;
    }
    return 0;
}

static int parse_num(const char *s, size_t len, double *out, int *decimal)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return VN_EINVAL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    double v = vn__strtod(buf, &end);
    if (*end || !isfinite(v) || buf[0] == ' ' || buf[0] == '+')
        return VN_EINVAL;
    if (strchr(buf, '.') || strchr(buf, 'e') || strchr(buf, 'E'))
        *decimal = 1;
    *out = v;
    return 0;
}

int vn__param_range(const char *spec, char ***values, size_t *n, char *err, size_t errlen)
{
    *values = NULL;
    *n = 0;
    double lo, hi, step = 1;
    int decimal = 0;
    const char *c1 = spec ? strchr(spec, ':') : NULL;
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || parse_num(spec, (size_t)(c1 - spec), &lo, &decimal) ||
        parse_num(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1), &hi, &decimal) ||
        (c2 && parse_num(c2 + 1, strlen(c2 + 1), &step, &decimal))) {
        snprintf(err, errlen, "'%s' is not LO:HI or LO:HI:STEP with numbers", spec ? spec : "");
        return VN_EINVAL;
    }
    /* Whole numbers are counted as such: past 2^53 a double would skip and
     * repeat values. */
    long long ilo = 0, ihi = 0, istep = 1;
    if (!decimal) {
        char *end;
        errno = 0;
        ilo = strtoll(spec, &end, 10);
        ihi = strtoll(c1 + 1, &end, 10);
        istep = c2 ? strtoll(c2 + 1, &end, 10) : 1;
        if (errno == ERANGE) {
            snprintf(err, errlen, "'%s' has a number too large for a 64-bit integer", spec);
            return VN_EINVAL;
        }
    }
    if (!(step > 0) || hi < lo || ihi < ilo) {
        snprintf(err, errlen, "'%s' needs LO <= HI and a positive STEP", spec);
        return VN_EINVAL;
    }
    double count = decimal ? floor((hi - lo) / step + 1e-9) + 1
                           : (double)(((unsigned long long)ihi - (unsigned long long)ilo) /
                                          (unsigned long long)istep + 1);
    if (count > 10000) {
        snprintf(err, errlen, "'%s' gives %.0f values; at most 10000", spec, count);
        return VN_EINVAL;
    }
    for (size_t i = 0; i < (size_t)count; i++) {
        char buf[64];
        double v = lo + (double)i * step;
        int l = decimal ? snprintf(buf, sizeof buf, "%.10g", v)
                        : snprintf(buf, sizeof buf, "%lld", ilo + (long long)i * istep);
        if (push_value(values, n, buf, (size_t)l)) {
            free_values(*values, *n);
            return VN_ENOMEM;
        }
    }
    return 0;
}

char *vn__param_substitute(const char *text, const vn_run_param *params, size_t nparams,
                          const size_t *choice)
{
    if (!text)
        return NULL;
    vn_buf b;
    vn_buf_init(&b, 0);
    int rc = 0;
    for (const char *p = text; *p && rc == 0;) {
        int done = 0;
        if (*p == '{') {
            for (size_t i = 0; i < nparams; i++) {
                size_t l = strlen(params[i].name);
                if (!strncmp(p + 1, params[i].name, l) && p[1 + l] == '}') {
                    rc = vn_buf_puts(&b, params[i].values[choice[i]]);
                    p += l + 2;
                    done = 1;
                    break;
                }
            }
        }
        if (!done)
            rc = vn_buf_append(&b, p++, 1);
    }
    if (rc == 0 && !b.data)
        rc = vn_buf_append(&b, "", 0);
    if (rc) {
        vn_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* ---- The commands' output through a pipe (--output pipe) ----------------------- */

/* A pipe whose far end a thread reads and throws away: a command whose
 * output goes to a pipe may behave as it does in a shell pipeline, unlike
 * one writing to /dev/null. The commands open the pipe's write end by its
 * /proc path, so the helper that spawns them needs no descriptor passed. */
typedef struct drain {
    int r, w;
    int stop[2];               /* written to end the thread */
    int running;
    pthread_t thread;
} drain;

/* Reads and drops what the commands write until the write end is closed by
 * all, or until drain_stop() says to stop: something a command left
 * running may hold the write end for good. The thread ends by returning,
 * never by cancellation, which is not safe to interrupt a read with under
 * every runtime (AddressSanitizer's thread teardown, for one). */
static void *drain_loop(void *arg)
{
    drain *d = arg;
    char buf[65536];
    struct pollfd pf[2] = {{d->r, POLLIN, 0}, {d->stop[0], POLLIN, 0}};
    for (;;) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return NULL;
        }
        if (pf[1].revents)
            return NULL;
        if (pf[0].revents) {
            ssize_t n = read(d->r, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                return NULL;
        }
    }
}

static int drain_start(drain *d)
{
    int fd[2];
    d->r = d->w = d->stop[0] = d->stop[1] = -1;
    d->running = 0;
    if (pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(d->stop, O_CLOEXEC) != 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    d->r = fd[0];
    d->w = fd[1];
    if (pthread_create(&d->thread, NULL, drain_loop, d) != 0) {
        close(fd[0]);
        close(fd[1]);
        close(d->stop[0]);
        close(d->stop[1]);
        d->r = d->w = d->stop[0] = d->stop[1] = -1;
        errno = EAGAIN;
        return -1;
    }
    d->running = 1;
    return 0;
}

/* Closes the write end and tells the thread to stop, then waits for it. */
static void drain_stop(drain *d)
{
    if (d->w >= 0)
        close(d->w);
    if (d->running) {
        char one = 1;
        while (write(d->stop[1], &one, 1) < 0 && errno == EINTR)
            ;
        pthread_join(d->thread, NULL);
    }
    for (int i = 0; i < 2; i++)
        if (d->stop[i] >= 0)
            close(d->stop[i]);
    if (d->r >= 0)
        close(d->r);
    d->r = d->w = d->stop[0] = d->stop[1] = -1;
    d->running = 0;
}

/* ---- Rows -------------------------------------------------------------------- */

typedef struct row {
    char *text;                /* the command after substitution */
    char *label;               /* its name (-n) after substitution, or NULL */
    int shell;                 /* 1: run through the shell */
    char **argv;               /* what is executed */
    char *path;                /* argv[0]'s file, found before any run */
    char *prepare, *setup, *cleanup;
    size_t *choice;            /* the parameter values of this row */
    double *wall;              /* per timed run, ns as measured */
    double *counts;            /* per timed run, the counters' values (ncounters each) */
    vn_proc_usage *use;
    size_t n, cap;
    size_t warmed;
    int finished, cleaned, set_up;
    double spent_ns;           /* sum of this row's timed runs */
    vn_stop stop;
    size_t failed_runs;
    char error[256];
} row;

static void free_rows(row *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].text);
        free(r[i].path);
        vn__words_free(r[i].argv);
        free(r[i].prepare);
        free(r[i].label);
        free(r[i].setup);
        free(r[i].cleanup);
        free(r[i].choice);
        free(r[i].wall);
        free(r[i].counts);
        free(r[i].use);
    }
    free(r);
}

/* The shell's words ("bash --norc"), then -c and the text. */
static char **shell_argv(const vn_run_config *c, const char *text)
{
    char **w = NULL, why[128];
    int n = 0;
    if (vn__split_words(c->shell_cmd ? c->shell_cmd : "sh", &w, &n, why, sizeof why) != 0 || !n)
        return NULL;
    char **v = calloc((size_t)n + 3, sizeof *v);
    if (!v) {
        vn__words_free(w);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        v[i] = w[i];
    free(w); /* the words now belong to v */
    v[n] = strdup("-c");
    v[n + 1] = strdup(text);
    if (!v[n] || !v[n + 1]) {
        vn__words_free(v);
        return NULL;
    }
    return v;
}

static int default_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                        size_t errlen, void *ctx)
{
    (void)ctx;
    return vn_exec(o, wall_ns, u, err, errlen);
}

typedef struct runctx {
    const vn_run_config *c;
    vn_executor exec;
    const char *cgroup;        /* NULL, or cgbuf */
    char cgbuf[1200];
    char first_group[1200];    /* the first group; renewed ones are first_group-1, -2, ... */
    char renew_why[1400];      /* why a fresh group could not be made */
    unsigned cg_seq;           /* groups made after the first, one per run without resets */
    int peak_resets;           /* 0 once the peak could be neither reset nor renewed */
    int helper_in_group;       /* the helper, and so each command, is in the cgroup */
    int peak_fd;               /* the cgroup's peak file, open for its life */
    /* Counters: the first run's handle names the events for the whole run;
     * every run opens its own on its child. */
    vn_counters *first;
    vn_counters *cur;
    size_t ncounters;
    char why[256];
    const char *shell_path;    /* the shell, found once; NULL: searched at each spawn */
    char **hook_shell;         /* the shell's words, for the hooks */
    const char *stdout_path;   /* the commands' standard output (--output FILE or pipe) */
    uint64_t t_start, t_drawn; /* when the runs began and the progress was last drawn */
    size_t planned_extra;      /* warmup runs, counted in the progress */
    vn__spawner *spawner;      /* vernier-spawn, when the run has one */
    vn__run_input input;       /* the copy of an input read only once */
} runctx;

/* Between the child's fork and its exec: counters that start at the exec
 * and follow the command's own children. */
static int attach_counters(pid_t pid, void *ctx)
{
    runctx *x = ctx;
    x->cur = NULL;
    if (vn_counters_open_child(x->c->counters, pid, &x->cur, x->why, sizeof x->why) != 0)
        x->cur = NULL; /* counted as unknown for this run; the run itself goes on */
    return 0;
}

/* The counts of the run that just ended, in the first run's event order;
 * NAN where an event did not count. */
static void take_counts(runctx *x, double *out)
{
    for (size_t i = 0; i < x->ncounters; i++)
        out[i] = NAN;
    vn_counts n;
    if (!x->cur || vn_counters_read(x->cur, &n) != 0)
        goto done;
    vn_counts zero;
    memset(&zero, 0, sizeof zero);
    zero.n = n.n;
    double v[VN_COUNTERS_MAX];
    uint32_t scaled = 0;
    vn__ctr_delta(&zero, &n, 1, v, &scaled);
    for (size_t i = 0; i < x->ncounters; i++)
        for (size_t k = 0; k < vn_counters_n(x->cur); k++)
            if (!strcmp(vn_counters_name(x->first, i), vn_counters_name(x->cur, k)))
                out[i] = v[k];
done:
    if (x->cur != x->first)
        vn_counters_destroy(x->cur);
    x->cur = NULL;
}

/* Adds a sentence to the run's note, after any already there. */
VN_PRINTF(2, 3)
static void add_note(vn_run_results *r, const char *fmt, ...)
{
    size_t l = strlen(r->note);
    if (l && l + 2 < sizeof r->note) {
        memcpy(r->note + l, "; ", 3);
        l += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + l, sizeof r->note - l, fmt, ap);
    va_end(ap);
}

static int o_counting(const runctx *x)
{
    return x->c->counters && strcmp(x->c->counters, "none") != 0 && !x->c->executor;
}

/* For a kernel that keeps memory.peak at the largest value so far (cgroup
 * v2 before Linux 6.12): the next run starts in a new group, whose peak
 * starts from nothing, and the old one is removed. 0, or -1 when that
 * cannot be done (the caller then says each peak is the largest so far). */
static int renew_group(runctx *x)
{
    char next[sizeof x->cgbuf];
    if (vn__cgroup_create_next(x->first_group, ++x->cg_seq, next, sizeof next, x->renew_why,
                              sizeof x->renew_why) != 0)
        return -1;
    int fd = vn__cgroup_peak_open(next);
    int e = fd < 0 ? -fd : 0;
    if (fd >= 0 && x->helper_in_group)
        e = -vn__cgroup_join(next, vn__spawner_pid(x->spawner));
    if (e) {
        snprintf(x->renew_why, sizeof x->renew_why, "%s: %s", next, strerror(e));
        if (fd >= 0)
            close(fd);
        vn__cgroup_remove(next);
        return -1;
    }
    close(x->peak_fd);
    /* Empty now (the run was reaped, the helper moved on) unless the
     * command left something running in it; sweep_groups() tries again at
     * the end. */
    rmdir(x->cgbuf);
    memcpy(x->cgbuf, next, sizeof next);
    x->peak_fd = fd;
    return 0;
}

/* The groups renew_group() left behind because a command left something
 * running in them (named as vn__cgroup_create_next names them): one more try
 * each, waiting for what is exiting, and a note for those that stay. */
static void sweep_groups(runctx *x, vn_run_results *results, int report)
{
    size_t left = 0;
    char first[sizeof x->first_group + 16] = "";
    for (unsigned k = 0; k < x->cg_seq; k++) {
        char dir[sizeof first];
        if (k == 0)
            snprintf(dir, sizeof dir, "%s", x->first_group);
        else
            snprintf(dir, sizeof dir, "%s-%u", x->first_group, k);
        if (rmdir(dir) == 0 || errno == ENOENT || vn__cgroup_remove(dir) == 0)
            continue;
        if (!left++)
            memcpy(first, dir, sizeof first);
    }
    if (left == 1 && report)
        add_note(results,
                 "the cgroup %s could not be removed: something a command started is still in "
                 "it; remove it with rmdir once that has ended",
                 first);
    else if (left && report)
        add_note(results,
                 "%zu cgroups, %s and others numbered like it, could not be removed: something "
                 "the commands started is still in them; remove them with rmdir once that has "
                 "ended",
                 left, first);
}

/* Runs argv once with the run's settings; fills wall and usage. */
static int run_once(runctx *x, char *const *argv, const char *path, int show, double *wall,
                    vn_proc_usage *u, char *err, size_t errlen)
{
    vn_exec_opts o;
    memset(&o, 0, sizeof o);
    o.argv = argv;
    o.path = path;
    o.spawner = x->spawner;
    o.stdin_path = x->input.fd >= 0 ? x->input.path : x->c->input;
    o.stdout_path = show ? NULL : x->stdout_path;
    o.show_output = show;
    o.timeout = x->c->timeout;
    o.stop_flag = x->c->stop_flag;
    o.cgroup = x->helper_in_group ? NULL : x->cgroup;
    if (x->c->counters && strcmp(x->c->counters, "none") != 0 && !x->c->executor) {
        o.on_spawn = attach_counters;
        o.ctx = x;
    }
    int rc = x->exec(&o, wall, u, err, errlen, x->c->executor_ctx);
    if (rc >= 0 && x->cgroup) {
        long long kib;
        if (vn__cgroup_peak(x->peak_fd, &kib) == 0) {
            if (kib < 0) {
                kib = -kib - 1;
                if (renew_group(x) != 0)
                    x->peak_resets = 0;
            }
            u->tree_peak_kib = kib;
        }
    }
    return rc;
}

/* Counters of a run nobody keeps (a hook, a warmup run). */
static void drop_counts(runctx *x)
{
    if (x->cur && x->cur != x->first)
        vn_counters_destroy(x->cur);
    x->cur = NULL;
}

/* A shell hook (--prepare, --setup, --cleanup): untimed, must succeed. */
static int hook(runctx *x, const char *what, const char *cmd, vn_run_failure *fail)
{
    if (!cmd)
        return 0;
    char **argv = shell_argv(x->c, cmd);
    if (!argv) {
        fail->failed = 1;
        snprintf(fail->message, sizeof fail->message, "out of memory for the %s command", what);
        return 1;
    }
    double wall;
    vn_proc_usage u;
    char err[256] = "";
    int rc = run_once(x, argv, x->shell_path, x->c->show_output, &wall, &u, err, sizeof err);
    vn__words_free(argv);
    drop_counts(x);
    if (rc == VN_EXEC_INTERRUPTED)
        return 1;
    if (rc < 0 || rc == VN_EXEC_TIMED_OUT || u.exit_status != 0) {
        fail->failed = 1;
        const char *q = vn__quote_for(cmd);
        if (rc < 0)
            snprintf(fail->message, sizeof fail->message, "the %s command %s%s%s could not run: %s",
                     what, q, cmd, q, err);
        else if (rc == VN_EXEC_TIMED_OUT)
            snprintf(fail->message, sizeof fail->message,
                     "the %s command %s%s%s ran past the timeout and was stopped", what, q, cmd, q);
        else if (u.signal)
            snprintf(fail->message, sizeof fail->message, "the %s command %s%s%s was killed by SIG%s",
                     what, q, cmd, q, sigabbrev_np(u.signal));
        else
            snprintf(fail->message, sizeof fail->message,
                     "the %s command %s%s%s exited with status %d; it must succeed", what, q, cmd, q,
                     u.exit_status);
        return 1;
    }
    return 0;
}

static int grow(row *r)
{
    if (r->n < r->cap)
        return 0;
    size_t cap = r->cap ? r->cap * 2 : 64;
    double *w = realloc(r->wall, cap * sizeof *w);
    if (!w)
        return VN_ENOMEM;
    r->wall = w;
    vn_proc_usage *u = realloc(r->use, cap * sizeof *u);
    if (!u)
        return VN_ENOMEM;
    r->use = u;
    double *c = realloc(r->counts, cap * VN_COUNTERS_MAX * sizeof *c);
    if (!c)
        return VN_ENOMEM;
    r->counts = c;
    r->cap = cap;
    return 0;
}


/* Is this row done? Exactly --runs, or: at least --min-samples and either
 * the median known to the precision asked for or --max-time spent; never
 * more than --max-samples. r->stop says which. */
static void check_done(const vn_run_config *c, row *r, double shell_ns)
{
    if (c->runs) {
        if (r->n >= c->runs) {
            r->finished = 1;
            r->stop = VN_STOP_MAX_SAMPLES;
        }
        return;
    }
    /* At the most runs the precision is tested a last time: met there, it
     * is what stopped the row. */
    int last = r->n >= c->max_runs;
    if (last) {
        r->finished = 1;
        r->stop = VN_STOP_MAX_SAMPLES;
    }
    if (r->n < c->min_runs)
        return;
    double med, lo, hi;
    if (r->n >= 6 && vn_median_ci(r->wall, r->n, &med, &lo, &hi) == 0) {
        med -= shell_ns, lo -= shell_ns, hi -= shell_ns;
        if (med > 0 && fmax(med - lo, hi - med) <= c->precision / 100.0 * med) {
            r->finished = 1;
            r->stop = VN_STOP_PRECISION;
            return;
        }
    }
    if (!last && r->spent_ns >= c->min_time * 1e9) {
        r->finished = 1;
        r->stop = VN_STOP_MAX_TIME;
    }
}

/* The order of one round: the rows not finished, in turn or shuffled; with
 * blocks, the first of them alone. */
static size_t round_order(row *rows, size_t n, const vn_run_config *c, vn_rng *rng, size_t *order)
{
    size_t k = 0;
    for (size_t i = 0; i < n && !(c->order_blocks && k); i++)
        if (!rows[i].finished)
            order[k++] = i;
    if (c->order_random)
        for (size_t i = k; i > 1; i--) {
            size_t j = (size_t)vn_rng_below(rng, i);
            size_t t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
    return k;
}

/* One line: what failed, where ("on run 3", "in warmup"), what to do. */
static void describe_failure(const row *r, const char *where, int rc, const vn_proc_usage *u,
                             const vn_run_config *c, char *out, size_t outlen)
{
    const char *keep = c->ignore_failure ? "" : "; use --ignore-failure to keep going";
    const char *q = vn__quote_for(r->text);
    if (rc == VN_EXEC_TIMED_OUT)
        snprintf(out, outlen,
                 "%s%.200s%s ran past the timeout of %g s %s and was stopped with its process "
                 "group; raise --timeout%s",
                 q, r->text, q, c->timeout, where, c->ignore_failure ? "" : " or use --ignore-failure");
    else if (u->signal)
        snprintf(out, outlen, "%s%.200s%s was killed by SIG%s (%s) %s%s", q, r->text, q,
                 sigabbrev_np(u->signal) ? sigabbrev_np(u->signal) : "?", strsignal(u->signal),
                 where, keep);
    else
        snprintf(out, outlen, "%s%.200s%s exited with status %d %s%s", q, r->text, q, u->exit_status,
                 where, keep);
}

/* One untimed warmup run of a row; 1 when the whole measurement must stop
 * (a failure, said in fail, or an interruption). */
static int warm(runctx *x, row *r, const vn_run_config *c, vn_run_failure *fail)
{
    double wall;
    vn_proc_usage u;
    char why[512] = "";
    int e = run_once(x, r->argv, r->shell ? x->shell_path : r->path, c->show_output, &wall, &u,
                     why, sizeof why);
    drop_counts(x);
    r->warmed++;
    if (e < 0) {
        snprintf(fail->message, sizeof fail->message, "%s", why);
        fail->failed = 1;
        return 1;
    }
    if (e == VN_EXEC_INTERRUPTED)
        return 1;
    if ((e == VN_EXEC_TIMED_OUT || u.exit_status || u.signal) && !c->ignore_failure) {
        describe_failure(r, "in warmup", e, &u, c, fail->message, sizeof fail->message);
        fail->failed = 1;
        return 1;
    }
    return 0;
}

/* How many timed runs a row will have: --runs, or, adaptive, what its
 * time budget allows at its pace so far, within --min/--max-samples. */
static size_t planned_runs(const vn_run_config *c, const row *r)
{
    if (c->runs)
        return c->runs;
    if (r->finished)
        return r->n;
    size_t p = c->min_runs;
    if (r->n) {
        double per = r->spent_ns / (double)r->n;
        double fit = per > 0 ? c->min_time * 1e9 / per : (double)c->max_runs;
        if (fit > (double)p)
            p = fit > (double)c->max_runs ? c->max_runs : (size_t)ceil(fit);
    }
    return p > r->n ? p : r->n;
}

/* The progress line on stderr, redrawn at most every PROGRESS_EVERY_NS:
 * drawing after every run of a millisecond command would cost more than
 * the command. Nothing is drawn before that much time has passed, so short
 * runs leave no trace. */
#define PROGRESS_EVERY_NS 100000000ull

static void progress(runctx *x, const row *rows, size_t nrows, const row *cur)
{
    const vn_run_config *c = x->c;
    if (!c->progress)
        return;
    uint64_t now = vn__posix_read(CLOCK_MONOTONIC);
    if (now - x->t_drawn < PROGRESS_EVERY_NS)
        return;
    x->t_drawn = now;
    size_t done = 0, planned = 0;
    for (size_t k = 0; k < nrows; k++) {
        done += rows[k].n + rows[k].warmed;
        planned += planned_runs(c, &rows[k]) + c->warmup;
    }
    struct winsize ws;
    int width = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
    char line[512];
    /* One column short of the width: a full line makes some terminals wrap. */
    vn__progress_line(line, sizeof line, cur->label ? cur->label : cur->text, done, planned,
                      (double)(now - x->t_start) / 1e9, width - 1);
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

/* Builds one row per parameter combination and command. */
static int build_rows(const vn_run_config *c, row **out, size_t *nout, char *err, size_t errlen)
{
    size_t combos = 1;
    for (size_t i = 0; i < c->nparams; i++) {
        if (!c->params[i].nvalues) {
            snprintf(err, errlen, "parameter '%s' has no values", c->params[i].name);
            return VN_EINVAL;
        }
        combos *= c->params[i].nvalues;
        if (combos * c->ncommands > MAX_ROWS) {
            snprintf(err, errlen, "the parameters give more than %d commands to run", MAX_ROWS);
            return VN_EINVAL;
        }
    }
    size_t n = combos * c->ncommands;
    row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return VN_ENOMEM;
    size_t k = 0;
    int rc = 0;
    for (size_t combo = 0; combo < combos && rc == 0; combo++) {
        for (size_t ci = 0; ci < c->ncommands && rc == 0; ci++) {
            row *r = &rows[k++];
            r->choice = calloc(c->nparams ? c->nparams : 1, sizeof *r->choice);
            if (!r->choice) {
                rc = VN_ENOMEM;
                break;
            }
            /* The first parameter varies slowest, like nested loops. */
            size_t rest = combo;
            for (size_t pi = c->nparams; pi-- > 0;) {
                r->choice[pi] = rest % c->params[pi].nvalues;
                rest /= c->params[pi].nvalues;
            }
            r->text = vn__param_substitute(c->commands[ci], c->params, c->nparams, r->choice);
            /* One --prepare per command, when given so; else one for all. */
            const char *prep = c->nprepares > ci ? c->prepares[ci] : c->prepare;
            r->prepare = vn__param_substitute(prep, c->params, c->nparams, r->choice);
            r->setup = vn__param_substitute(c->setup, c->params, c->nparams, r->choice);
            r->cleanup = vn__param_substitute(c->cleanup, c->params, c->nparams, r->choice);
            if (!r->text || (prep && !r->prepare) || (c->setup && !r->setup) ||
                (c->cleanup && !r->cleanup)) {
                rc = VN_ENOMEM;
                break;
            }
            if (ci < c->nnames && c->names[ci]) {
                r->label = vn__param_substitute(c->names[ci], c->params, c->nparams, r->choice);
                if (!r->label) {
                    rc = VN_ENOMEM;
                    break;
                }
            }
            char need[160] = "";
            int needs = vn__needs_shell(r->text, need, sizeof need);
            if (needs && c->shell < 0) {
                const char *q = vn__quote_for(r->text);
                snprintf(err, errlen, "%s%s%s needs a shell (%s); drop -N/--shell=none to run it "
                         "through sh", q, r->text, q, need);
                rc = VN_EINVAL;
                break;
            }
            if (c->shell > 0 || needs) {
                r->shell = 1;
                r->argv = shell_argv(c, r->text);
                if (!r->argv) {
                    const char *q = vn__quote_for(c->shell_cmd);
                    snprintf(err, errlen, "the shell %s%s%s is not a command line; give a program",
                             q, c->shell_cmd ? c->shell_cmd : "", q);
                    rc = VN_EINVAL;
                }
                continue;
            }
            /* Words first, then the parameters in each word: a value with a
             * quote or a blank in it stays one word, as given. */
            int argc;
            char why[128] = "";
            rc = vn__split_words(c->commands[ci], &r->argv, &argc, why, sizeof why);
            if (rc) {
                const char *q = vn__quote_for(c->commands[ci]);
                snprintf(err, errlen, "cannot split %s%s%s into words: %s", q, c->commands[ci], q,
                         why);
                break;
            }
            for (int w = 0; w < argc && rc == 0; w++) {
                char *sw = vn__param_substitute(r->argv[w], c->params, c->nparams, r->choice);
                if (!sw) {
                    rc = VN_ENOMEM;
                    break;
                }
                free(r->argv[w]);
                r->argv[w] = sw;
            }
            if (rc)
                break;
            /* A command that does not exist is an error before any run. */
            char path[4096];
            if (!c->executor && (rc = vn__which(r->argv[0], path, sizeof path)) == 0) {
                r->path = strdup(path);
                if (!r->path)
                    rc = VN_ENOMEM;
                continue;
            }
            if (rc == VN_ENOMEM)
                break;
            if (!c->executor) {
                const char *q = vn__quote_for(r->argv[0]);
                if (!*r->argv[0])
                    snprintf(err, errlen, "the command is empty; give a program to run");
                else
                    snprintf(err, errlen,
                             rc == -EACCES   ? "%s%s%s is not executable; check its permissions"
                             : rc == -EISDIR ? "%s%s%s is a directory, not a program; name the program in it"
                                             : "%s%s%s was not found; check the name, the PATH, or use "
                                               "--shell for a shell command",
                             q, r->argv[0], q);
                break;
            }
        }
    }
    if (rc) {
        free_rows(rows, n);
        return rc;
    }
    *out = rows;
    *nout = n;
    return 0;
}

/* The shell's own start-up: `SHELL -c ''` run SHELL_RUNS times, medians. */
static int measure_shell(runctx *x, double *wall, double *user, double *sys, char *err,
                         size_t errlen)
{
    char **argv = shell_argv(x->c, "");
    if (!argv)
        return VN_ENOMEM;
    double w[SHELL_RUNS], us[SHELL_RUNS], sy[SHELL_RUNS];
    for (int i = 0; i < SHELL_RUNS + 3; i++) {
        vn_proc_usage u;
        double t;
        int rc = run_once(x, argv, x->shell_path, 0, &t, &u, err, errlen);
        drop_counts(x);
        if (rc == VN_EXEC_OK && (u.exit_status || u.signal)) {
            snprintf(err, errlen, "the shell '%s' fails to run an empty command; give another",
                     argv[0]);
            rc = VN_EINVAL;
        }
        if (rc != VN_EXEC_OK) {
            vn__words_free(argv);
            return rc < 0 ? rc : VN_EINVAL;
        }
        if (i >= 3) { /* the first runs warm the caches */
            w[i - 3] = t;
            us[i - 3] = u.user_ns;
            sy[i - 3] = u.sys_ns;
        }
    }
    /* The wall time's median, like the headline it is taken from; user
     * and system time as means, like the summary they are taken from (the
     * kernel splits short runs' CPU time between the two by ticks). */
    vn__words_free(argv);
    qsort(w, SHELL_RUNS, sizeof *w, vn__cmp_double);
    *wall = vn_percentile_sorted(w, SHELL_RUNS, 50);
    double su = 0, ss = 0;
    for (int i = 0; i < SHELL_RUNS; i++)
        su += us[i], ss += sy[i];
    *user = su / SHELL_RUNS;
    *sys = ss / SHELL_RUNS;
    return 0;
}

/* Adds a warning to a command's row, as vn__result_warn does to the
 * engine's. */
VN_PRINTF(3, 4)
static void run_warn(vn_run_result *res, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vn__warning_vadd(res->warnings, &res->nwarnings, id, fmt, ap);
    va_end(ap);
}

/* The warnings of one command's runs (pure, from the numbers). */
static void run_warnings(vn_run_result *res, const row *r, const vn_run_config *c)
{
    const vn_stats *s = &res->stats;
    if (!s->n)
        return;
    if (s->median < 5e6)
        run_warn(res, "too_short",
             "each run takes only %.3g ms: starting a process is a large part of that; time "
             "more work per run if you can",
             s->median / 1e6);
    double first = res->nsamples ? res->samples[0].value - res->shell_ns : NAN;
    double iqr = s->iqr;
    if (res->nsamples >= 5 && first > s->median * 1.5 && first > s->pct[6] + 3 * iqr)
        run_warn(res, "slow_first_run",
             "the first run took %.3g ms against a median of %.3g ms: caches were cold; add "
             "--warmup 1 (or --prepare to measure every run cold)",
             first / 1e6, s->median / 1e6);
    size_t severe = s->outliers.high_severe + s->outliers.low_severe;
    if (severe)
        run_warn(res, "outliers",
             "%zu of %zu runs were far from the rest (beyond 3 IQR): other work on the machine; "
             "they are kept, and the median ignores them",
             severe, (size_t)s->n);
    double rel = s->median != 0 ? s->mad_scaled / fabs(s->median) : NAN;
    if (rel > 0.05)
        run_warn(res, "high_variance", "runs vary by %.1f%% (scaled MAD / median)", 100 * rel);
    if (s->n >= 20 && s->modality >= 2.8)
        run_warn(res, "multimodal",
             "the run times have several modes (mvalue %.1f): see --hist", s->modality);
    if (s->n >= 10 && s->drift_p < 0.001 && fabs(s->drift) >= 0.3)
        run_warn(res, "drift", "the run time %s over the runs (rank correlation %.2f with run order)",
             s->drift > 0 ? "grew" : "shrank", s->drift);
    if (r->stop == VN_STOP_MAX_TIME) {
        double half = fmax(s->median - s->median_ci[0], s->median_ci[1] - s->median);
        run_warn(res, "max_time",
             "%g s of runs did not make the median's 95%% CI +-%g%% (it is +-%.2g%%); more runs "
             "with --max-time or --max-samples",
             c->min_time, c->precision, 100 * half / fabs(s->median));
    }
    if (r->failed_runs && c->ignore_failure)
        run_warn(res, "failed_runs", "%zu of %zu runs failed (kept with --ignore-failure)",
             r->failed_runs, (size_t)res->nsamples);
}

/* Turns a row into a result; shell start-up subtracted from the stats. */
static int fill_result(vn_run_result *res, row *r, const vn_run_config *c, double shell_wall,
                       double shell_user, double shell_sys)
{
    memset(res, 0, sizeof *res);
    res->size = sizeof *res;
    res->stop = r->stop;
    res->command = strdup(r->text);
    if (!res->command)
        return VN_ENOMEM;
    snprintf(res->name, sizeof res->name, "%s", r->label ? r->label : r->text);
    res->named = r->label != NULL;
    if (!r->shell)
        shell_wall = shell_user = shell_sys = 0;
    res->samples = calloc(r->n ? r->n : 1, sizeof *res->samples);
    res->proc = calloc(r->n ? r->n : 1, sizeof *res->proc);
    double *net = malloc((r->n ? r->n : 1) * sizeof *net);
    if (!res->samples || !res->proc || !net) {
        free(net);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < r->n; i++) {
        res->samples[i].value = r->wall[i];
        res->samples[i].iters = 1;
        res->samples[i].ref_ns = NAN;
        res->samples[i].branch_cycles = NAN;
        res->samples[i].cpu_ns = NAN;
        res->proc[i] = r->use[i];
        net[i] = r->wall[i] - shell_wall;
    }
    res->nsamples = r->n;
    /* The shell's own share of user and system time goes from the summary,
     * mean from mean: per run, a tick-split time less a mean would go below
     * 0 as often as not. */
    res->shell_ns = shell_wall;
    res->shell_user_ns = shell_user;
    res->shell_sys_ns = shell_sys;
    int rc = r->n ? vn_stats_compute(net, r->n, &res->stats) : 0;
    if (rc == 0 && r->n && (res->stats.median <= 0 || (r->shell && res->stats.median_ci[0] <= 0))) {
        /* The command cannot be told apart from an empty shell: only a
         * bound is honest. Each run bounds the command, and the fastest is
         * the tightest bound, as for the engine's empty loop. */
        res->upper_bound = 1;
        res->bound_ns = r->wall[0];
        for (size_t i = 1; i < r->n; i++)
            res->bound_ns = fmin(res->bound_ns, r->wall[i]);
    }
    free(net);
    if (r->error[0])
        memcpy(res->error, r->error, sizeof res->error);
    run_warnings(res, r, c);
    return rc;
}

/* The row's counters from its runs' counts (nsamples x n, taken over):
 * the median of each event over the runs, with nothing taken off, since a
 * command has no empty loop; and the ratios between them. */
static int run_counters_finish(vn_run_result *res, const vn_counters *c, double *counts)
{
    size_t n = vn_counters_n(c);
    res->ncounters = (int)n;
    res->sample_counts = counts;
    for (size_t i = 0; i < res->nsamples; i++)
        res->samples[i].counts = counts + i * n;
    if (!n)
        return 0;
    unsigned char *use = malloc(res->nsamples ? res->nsamples : 1);
    uint32_t *scaled = malloc((res->nsamples ? res->nsamples : 1) * sizeof *scaled);
    if (!use || !scaled) {
        free(use);
        free(scaled);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < res->nsamples; i++) {
        use[i] = 1;
        scaled[i] = res->samples[i].counts_scaled;
    }
    double net[VN_COUNTERS_MAX], over[VN_COUNTERS_MAX];
    int any[VN_COUNTERS_MAX];
    vn__ctr_summarize(counts, scaled, res->nsamples, use, NULL, 0, NULL, n, net, over, any);
    for (size_t k = 0; k < n; k++) {
        vn_counter_result *cr = &res->counters[k];
        memset(cr, 0, sizeof *cr);
        snprintf(cr->name, sizeof cr->name, "%s", vn_counters_name(c, k));
        cr->unit = vn_counters_unit(c, k);
        cr->value = net[k];
        cr->overhead = over[k];
        cr->scaled = any[k];
    }
    vn__ctr_derive(res->counters, n, 0, &res->derived);
    free(use);
    free(scaled);
    return 0;
}

static int compare(const vn_run_results *res, vn_run_compare **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *r = &res->commands[i];
        if (!r->stats.n || r->upper_bound || r->error[0])
            continue;
        if (best == SIZE_MAX || r->stats.median < res->commands[best].stats.median)
            best = i;
    }
    if (best == SIZE_MAX || res->ncommands < 2)
        return 0;
    vn_run_compare *v = calloc(res->ncommands, sizeof *v);
    if (!v)
        return VN_ENOMEM;
    size_t k = 0;
    const vn_run_result *f = &res->commands[best];
    double *fa = malloc(f->nsamples * sizeof *fa);
    if (!fa) {
        free(v);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < f->nsamples; i++)
        fa[i] = f->samples[i].value;
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *o = &res->commands[i];
        if (i == best || !o->stats.n || o->upper_bound || o->error[0])
            continue;
        vn_run_compare *cmp = &v[k++];
        cmp->fastest = best;
        cmp->other = i;
        cmp->ratio = o->stats.median / f->stats.median;
        /* Relative half-widths of the two medians' intervals, combined in
         * quadrature: the ratio's interval, if the two are independent. */
        double ro = fmax(o->stats.median - o->stats.median_ci[0], o->stats.median_ci[1] - o->stats.median) /
                    o->stats.median;
        double rf = fmax(f->stats.median - f->stats.median_ci[0], f->stats.median_ci[1] - f->stats.median) /
                    f->stats.median;
        cmp->ratio_err = cmp->ratio * sqrt(ro * ro + rf * rf);
        double *oa = malloc(o->nsamples * sizeof *oa);
        if (!oa) {
            free(fa);
            free(v);
            return VN_ENOMEM;
        }
        for (size_t s = 0; s < o->nsamples; s++)
            oa[s] = o->samples[s].value;
        double u;
        if (vn_mann_whitney(oa, o->nsamples, fa, f->nsamples, &u, &cmp->p) != 0)
            cmp->p = NAN;
        cmp->significant = cmp->p < 0.05;
        free(oa);
    }
    free(fa);
    *out = v;
    *nout = k;
    return 0;
}

int vn_run_commands(const vn_run_config *given, vn_run_results *results, vn_run_compare **cmp,
                    size_t *ncmp, vn_run_failure *fail, char *err, size_t errlen)
{
    if (!given || !results || !cmp || !ncmp || !fail)
        return VN_EINVAL;
    /* The first layout of the results is the only one so far. */
    if (results->size != sizeof *results) {
        snprintf(err, errlen, "the results are %s", vn_strerror(VN_EABI));
        return VN_EABI;
    }
    /* The caller's config may come from an older header: what it lacks
     * keeps the defaults. The first layout with a size ends at dma_latency_us. */
    vn_run_config full;
    vn_run_config_init(&full);
    if (vn__abi_copy(&full, sizeof full, given, VN__SIZE_THROUGH(vn_run_config, dma_latency_us))) {
        snprintf(err, errlen, "the run settings are %s", vn_strerror(VN_EABI));
        return VN_EABI;
    }
    const vn_run_config *c = &full;
    if (!c->ncommands || !c->commands)
        return VN_EINVAL;
    memset(fail, 0, sizeof *fail);
    vn_run_results_init(results);
    *cmp = NULL;
    *ncmp = 0;
    if (c->max_runs < c->min_runs || !(c->precision > 0) || c->min_time < 0) {
        snprintf(err, errlen, "inconsistent run settings");
        return VN_EINVAL;
    }
    row *rows;
    size_t nrows;
    int rc = build_rows(c, &rows, &nrows, err, errlen);
    if (rc)
        return rc;
    char sh[4096];
    const char *shell_path = NULL;
    int any_shell = 0;
    for (size_t i = 0; i < nrows; i++)
        any_shell |= rows[i].shell;
    {
        char **sw = shell_argv(c, "");
        if (!sw) {
            snprintf(err, errlen, "the shell '%s' is not a command line; give a program",
                     c->shell_cmd ? c->shell_cmd : "");
            free_rows(rows, nrows);
            return VN_EINVAL;
        }
        int e = c->executor ? 0 : vn__which(sw[0], sh, sizeof sh);
        if (!c->executor && e == 0)
            shell_path = sh;
        else if (!c->executor && (any_shell || c->prepare || c->nprepares || c->setup || c->cleanup)) {
            const char *q = vn__quote_for(sw[0]);
            snprintf(err, errlen, "the shell %s%s%s was not found; check the name given to -S/--shell",
                     q, sw[0], q);
            vn__words_free(sw);
            free_rows(rows, nrows);
            return VN_EINVAL;
        }
        vn__words_free(sw);
    }
    drain dr;
    memset(&dr, 0, sizeof dr);
    dr.r = dr.w = dr.stop[0] = dr.stop[1] = -1;
    const char *stdout_path = NULL;
    char pipe_path[64];
    if (c->output_pipe && !c->executor) {
        if (drain_start(&dr) != 0) {
            snprintf(err, errlen, "cannot make a pipe for the commands' output: %s", strerror(errno));
            rc = VN_EIO;
            goto out_early;
        }
        snprintf(pipe_path, sizeof pipe_path, "/proc/%ld/fd/%d", (long)getpid(), dr.w);
        stdout_path = pipe_path;
    } else if (c->output_file) {
        stdout_path = c->output_file;
    }
    /* Pinned before the helper starts, so it and every command inherit the
     * CPU: on a VM one vCPU can run at two thirds of another's speed, and
     * unpinned, where each child lands would decide its time. */
    cpu_set_t old_mask;
    int pinned = 0;
    if (c->cpu >= 0 && !c->executor) {
        cpu_set_t one;
        CPU_ZERO(&one);
        if (c->cpu < CPU_SETSIZE)
            CPU_SET(c->cpu, &one);
        if (c->cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof old_mask, &old_mask) != 0 ||
            sched_setaffinity(0, sizeof one, &one) != 0) {
            int e = c->cpu >= CPU_SETSIZE ? EINVAL : errno;
            snprintf(err, errlen,
                     "cannot pin to CPU %d: %s; 'taskset -pc $$' shows the CPUs allowed here",
                     c->cpu, e == EINVAL ? "not a CPU this process may run on" : strerror(e));
            free_rows(rows, nrows);
            return VN_EINVAL;
        }
        pinned = 1;
    }
    runctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.exec = c->executor ? c->executor : default_exec;
    x.peak_resets = 1;
    x.shell_path = shell_path;
    x.stdout_path = stdout_path;
    x.input.fd = -1;
    /* Without the helper (not installed, or with counters, which must
     * attach from vernier itself) commands start from vernier directly. */
    if (c->helper && !c->executor && !o_counting(&x) &&
        vn__spawner_start(c->helper, &x.spawner, err, errlen) != 0)
        x.spawner = NULL;
    err[0] = '\0';
    if (!x.spawner && !c->executor && !o_counting(&x))
        add_note(results,
                 "vernier-spawn was not found, so commands start from vernier itself and a run's "
                 "max RSS cannot be below vernier's own; install vernier with make install");
    char cgdir[1200] = "";
    if (c->tree_memory && !c->executor) {
        char why[256];
        int fd = -1;
        if (vn__cgroup_create(cgdir, sizeof cgdir, why, sizeof why) == 0 &&
            (fd = vn__cgroup_peak_open(cgdir)) < 0) {
            snprintf(why, sizeof why, "cannot open the peak of %.180s: %s", cgdir, strerror(-fd));
            vn__cgroup_remove(cgdir);
        }
        if (fd >= 0) {
            memcpy(x.cgbuf, cgdir, sizeof x.cgbuf);
            memcpy(x.first_group, cgdir, sizeof x.first_group);
            x.cgroup = x.cgbuf;
            x.peak_fd = fd;
            /* The helper joins the group, and the commands it spawns start
             * in it: the cheap spawn and the helper's small RSS floor stay.
             * Its own pages stay charged where they were; what it allocates
             * from now on is a few requests' worth. */
            x.helper_in_group = x.spawner && vn__cgroup_join(cgdir, vn__spawner_pid(x.spawner)) == 0;
        } else {
            add_note(results, "the peak memory of whole process trees is not measured: %s", why);
        }
    }
    /* --runs N fixes both. */
    results->min_runs = c->runs ? c->runs : c->min_runs;
    results->max_runs = c->runs ? c->runs : c->max_runs;
    results->max_time = c->min_time > 0 ? c->min_time : 1;
    results->precision = c->precision;
    results->cpu = c->cpu;
    /* The commands take turns run by run, unless in blocks. */
    results->interleave = !c->order_blocks;
    if (!c->executor)
        vn_sysinfo_collect(&results->env);
    else
        vn__sysinfo_reset(&results->env);
    /* Every run has at least two wake-ups: vernier's when the command ends,
     * and the command's own whenever it sleeps or waits. From a deep idle
     * state each pays its exit latency, which depends on how long the CPU
     * idled (see idle.c). Held until the last run, once the machine's state
     * is recorded; a value asked for that cannot be held is a note. */
    int idle_fd = -1;
    results->dma_latency_us = -1;
    if (!c->executor) {
        char why[160];
        idle_fd = vn__idle_hold_for(c->dma_latency_us, results->env.hypervisor,
                                    &results->dma_latency_us, why, sizeof why);
        if (idle_fd < 0 && c->dma_latency_us >= 0)
            add_note(results,
                     "the CPUs' idle states were left as they are, so wake-ups may add to the "
                     "runs: %s; --dma-latency off says this is meant",
                     why);
    }

    double sh_wall = 0, sh_user = 0, sh_sys = 0;
    int stop = 0;
    if (c->input && !c->executor && vn__input_once(c->input)) {
        rc = vn__run_input_copy(c->input, c->timeout, c->stop_flag, &x.input, err, errlen);
        if (rc < 0)
            goto out;
        stop = rc == 1; /* interrupted before any run: reported with none */
        rc = 0;
    }
    if (!stop && any_shell && (rc = measure_shell(&x, &sh_wall, &sh_user, &sh_sys, err, errlen)) != 0) {
        if (c->stop_flag && *c->stop_flag) {
            /* Interrupted before any command ran: report that, with no runs. */
            rc = 0;
            stop = 1;
        } else {
            if (!err[0])
                snprintf(err, errlen, "cannot measure the start-up of the shell");
            goto out;
        }
    }
    vn_rng rng;
    vn_rng_seed(&rng, c->seed);
    size_t *order = malloc(nrows * sizeof *order);
    if (!order) {
        rc = VN_ENOMEM;
        goto out;
    }
    x.t_start = x.t_drawn = vn__posix_read(CLOCK_MONOTONIC);
    /* Setup once per row, then warmup runs, interleaved like the timed ones. */
    for (size_t i = 0; i < nrows && !stop && !c->order_blocks; i++) {
        stop = hook(&x, "setup", rows[i].setup, fail);
        rows[i].set_up = 1;
    }
    /* In blocks, each command's warmup comes right before its own runs. */
    for (size_t w = 0; w < c->warmup && !stop && !c->order_blocks; w++) {
        size_t k = round_order(rows, nrows, c, &rng, order);
        for (size_t o = 0; o < k && !stop; o++)
            stop = warm(&x, &rows[order[o]], c, fail) || (progress(&x, rows, nrows, &rows[order[o]]), 0);
    }
    while (!stop) {
        size_t k = round_order(rows, nrows, c, &rng, order);
        if (!k)
            break;
        for (size_t o = 0; o < k && !stop; o++) {
            row *r = &rows[order[o]];
            if (!r->set_up) {
                r->set_up = 1;
                stop = hook(&x, "setup", r->setup, fail);
            }
            while (r->warmed < c->warmup && !stop)
                stop = warm(&x, r, c, fail);
            if (stop || (c->stop_flag && *c->stop_flag)) {
                stop = 1;
                break;
            }
            if (hook(&x, "prepare", r->prepare, fail)) {
                stop = 1;
                break;
            }
            if ((rc = grow(r)) != 0)
                goto out_order;
            double wall;
            vn_proc_usage u;
            char why[512] = "";
            int e = run_once(&x, r->argv, r->shell ? x.shell_path : r->path, c->show_output, &wall,
                             &u, why, sizeof why);
            if (e < 0 || e == VN_EXEC_INTERRUPTED)
                drop_counts(&x);
            if (e < 0) {
                snprintf(fail->message, sizeof fail->message, "%s", why);
                snprintf(r->error, sizeof r->error, "%.255s", why);
                fail->failed = stop = 1;
                break;
            }
            /* A run that ended as Ctrl-C came may have ended because of it
             * (its group stopped by the spawner before the wait saw the
             * flag): interrupted, not failed, and not a run. */
            if (e == VN_EXEC_INTERRUPTED ||
                (c->stop_flag && *c->stop_flag && (u.exit_status || u.signal))) {
                if (e != VN_EXEC_INTERRUPTED)
                    drop_counts(&x);
                stop = 1;
                break;
            }
            if (o_counting(&x)) {
                if (!x.first) {
                    x.first = x.cur;
                    x.ncounters = x.first ? vn_counters_n(x.first) : 0;
                }
                take_counts(&x, r->counts + r->n * VN_COUNTERS_MAX);
            }
            r->wall[r->n] = wall;
            r->use[r->n] = u;
            r->n++;
            r->spent_ns += wall;
            if (e == VN_EXEC_TIMED_OUT || u.exit_status || u.signal) {
                r->failed_runs++;
                if (!c->ignore_failure) {
                    char where[32];
                    snprintf(where, sizeof where, "on run %zu", r->n);
                    describe_failure(r, where, e, &u, c, fail->message, sizeof fail->message);
                    snprintf(r->error, sizeof r->error, "%.255s", fail->message);
                    r->stop = VN_STOP_FAILED;
                    fail->failed = stop = 1;
                    break;
                }
            }
            check_done(c, r, r->shell ? sh_wall : 0);
            progress(&x, rows, nrows, r);
            if (r->finished && !r->cleaned) {
                r->cleaned = 1;
                if (hook(&x, "cleanup", r->cleanup, fail)) {
                    /* The runs stand; the results say the cleanup failed. */
                    snprintf(r->error, sizeof r->error, "%.255s", fail->message);
                    stop = 1;
                }
            }
        }
    }
    if (c->progress && x.t_drawn != x.t_start)
        fprintf(stderr, "\r\033[K");
    if (c->stop_flag && *c->stop_flag)
        results->interrupted = 1;
    /* Rows stopped early still clean up after themselves. */
    for (size_t i = 0; i < nrows; i++) {
        if (!rows[i].finished && rows[i].stop != VN_STOP_FAILED)
            rows[i].stop = results->interrupted ? VN_STOP_INTERRUPTED : VN_STOP_FAILED;
        if (!rows[i].cleaned && rows[i].cleanup && rows[i].set_up) {
            vn_run_failure ignored;
            memset(&ignored, 0, sizeof ignored);
            hook(&x, "cleanup", rows[i].cleanup, fail->failed ? &ignored : fail);
        }
    }
    results->commands = calloc(nrows, sizeof *results->commands);
    if (!results->commands) {
        rc = VN_ENOMEM;
        goto out_order;
    }
    for (size_t i = 0; i < nrows && rc == 0; i++) {
        rc = fill_result(&results->commands[i], &rows[i], c, sh_wall, sh_user, sh_sys);
        results->ncommands++;
        vn_run_result *res = &results->commands[i];
        if (rc == 0 && c->nparams) {
            res->pnames = calloc(c->nparams, sizeof *res->pnames);
            res->pvalues = calloc(c->nparams, sizeof *res->pvalues);
            if (!res->pnames || !res->pvalues) {
                rc = VN_ENOMEM;
                break;
            }
            res->nparams = c->nparams;
            for (size_t p = 0; p < c->nparams && rc == 0; p++) {
                res->pnames[p] = strdup(c->params[p].name);
                res->pvalues[p] = strdup(c->params[p].values[rows[i].choice[p]]);
                if (!res->pnames[p] || !res->pvalues[p])
                    rc = VN_ENOMEM;
            }
        }
    }
    if (rc == 0 && x.first) {
        vn_counters_info(x.first, &results->counters);
        snprintf(results->counters.requested, sizeof results->counters.requested, "%s", c->counters);
        for (size_t i = 0; i < nrows && rc == 0; i++) {
            vn_run_result *res = &results->commands[i];
            double *per = malloc((res->nsamples ? res->nsamples : 1) * x.ncounters * sizeof *per);
            if (!per) {
                rc = VN_ENOMEM;
                break;
            }
            for (size_t k = 0; k < res->nsamples; k++)
                memcpy(per + k * x.ncounters, rows[i].counts + k * VN_COUNTERS_MAX,
                       x.ncounters * sizeof *per);
            /* A command has no empty loop: its counts are its own. */
            rc = run_counters_finish(res, x.first, per);
        }
    }
    if (rc == 0 && o_counting(&x))
        add_note(results,
                 "with --counters each command is started from vernier itself (the counters "
                 "must attach before its exec), so a run's max RSS cannot be below vernier's own");
    if (rc == 0 && !x.peak_resets)
        add_note(results,
                 "each run's tree peak is the largest so far: this kernel cannot reset "
                 "memory.peak (Linux 6.12 can), and a fresh group per run could not be made "
                 "(%s)",
                 x.renew_why[0] ? x.renew_why : "no reason given");
    if (rc == 0)
        rc = compare(results, cmp, ncmp);
out_order:
    free(order);
out:
    vn__idle_release(idle_fd);
    vn__spawner_stop(x.spawner);
    vn__run_input_free(&x.input);
    if (pinned)
        sched_setaffinity(0, sizeof old_mask, &old_mask);
    drop_counts(&x);
    vn_counters_destroy(x.first);
    if (x.cgroup) {
        close(x.peak_fd);
        int e = vn__cgroup_remove(x.cgroup);
        if (e && rc == 0)
            add_note(results,
                     "the cgroup %s could not be removed (%s): something the commands started is "
                     "still in it; remove it with rmdir once that has ended",
                     x.cgroup, strerror(-e));
        sweep_groups(&x, results, rc == 0);
    }
out_early:
    drain_stop(&dr);
    free_rows(rows, nrows);
    if (rc) {
        vn_run_results_free(results);
        free(*cmp);
        *cmp = NULL;
        *ncmp = 0;
    }
    return rc;
}
