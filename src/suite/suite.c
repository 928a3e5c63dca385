/* The suite's registry and what its benchmarks share (suite.h). */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "suite/suite.h"

void vn__suite_ctx_init(vn__suite_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->cpu_a = ctx->cpu_b = -1;
}

int vn__suite_on_exit(vn__suite_ctx *ctx, void (*fn)(void *arg), void *arg)
{
    if (ctx->nundo == ctx->capundo) {
        size_t cap = ctx->capundo ? 2 * ctx->capundo : 16;
        struct vn__suite_undo *u = realloc(ctx->undo, cap * sizeof *u);
        if (!u) {
            fn(arg);
            return VN_ENOMEM;
        }
        ctx->undo = u;
        ctx->capundo = cap;
    }
    ctx->undo[ctx->nundo++] = (struct vn__suite_undo){fn, arg};
    return 0;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* The folders vernier-suite-PID-<6 random characters> in base that a suite killed with
 * -9 left: removed, with what is in them, when that PID names no process.
 * A live PID's (a suite running now) stay. */
static void sweep_dead(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "vernier-suite-", 14))
            continue;
        char *end;
        long pid = strtol(e->d_name + 14, &end, 10);
        if (pid <= 0 || *end != '-' || strlen(end) != 7 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char dir[4200];
        if (snprintf(dir, sizeof dir, "%s/%s", base, e->d_name) < (int)sizeof dir)
            nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    closedir(d);
}

const char *vn__suite_tmpdir(vn__suite_ctx *ctx)
{
    if (ctx->tmpdir[0])
        return ctx->tmpdir;
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    sweep_dead(base);
    char t[sizeof ctx->tmpdir];
    /* Named with this process's PID, so that a later suite can tell a
     * folder a killed one left from one another suite is using now. */
    /* mkdtemp replaces the six X with random characters. */
    if (snprintf(t, sizeof t, "%s/vernier-suite-%ld-XXXXXX", base, (long)getpid()) >=
        (int)sizeof t) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (!mkdtemp(t))
        return NULL;
    memcpy(ctx->tmpdir, t, sizeof t);
    return ctx->tmpdir;
}

void vn__suite_tmpdir_why(char *buf, size_t n)
{
    int e = errno;
    const char *base = getenv("TMPDIR");
    if (base && *base)
        snprintf(buf, n, "TMPDIR '%.200s' cannot be used: %s",
                 base, strerror(e));
    else
        snprintf(buf, n, "/tmp cannot be used: %s",
                 strerror(e));
}

void vn__suite_ctx_free(vn__suite_ctx *ctx)
{
    while (ctx->nundo > 0) {
        struct vn__suite_undo u = ctx->undo[--ctx->nundo];
        u.fn(u.arg);
    }
    free(ctx->undo);
    ctx->undo = NULL;
    ctx->capundo = 0;
    /* Depth first, so each directory is empty when its turn comes. */
    if (ctx->tmpdir[0])
        nftw(ctx->tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    ctx->tmpdir[0] = 0;
}

void vn__suite_sizes(const vn__suite_ctx *ctx, const int64_t *def, size_t ndef,
                     const int64_t *quick, size_t nquick, const int64_t **out, size_t *nout)
{
    if (ctx->sizes) {
        *out = ctx->sizes;
        *nout = ctx->nsizes;
    } else if (ctx->quick && quick) {
        *out = quick;
        *nout = nquick;
    } else {
        *out = def;
        *nout = ndef;
    }
}

char *vn__suite_size_name(char *s, size_t n, int64_t bytes)
{
    static const char letter[] = "KMG";
    int k = -1;
    while (k < 2 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        k++;
    }
    if (k < 0)
        snprintf(s, n, "%lld", (long long)bytes);
    else
        snprintf(s, n, "%lld%c", (long long)bytes, letter[k]);
    return s;
}

int vn__suite_add_sized(vn_suite *s, const vn__suite_ctx *ctx, const char *name, vn_bench_fn fn,
                        const vn_bench_opts *o, const int64_t *def, size_t ndef,
                        const int64_t *quick, size_t nquick)
{
    vn_bench_opts opts;
    if (o)
        opts = *o;
    else
        vn_bench_opts_init(&opts);
    vn__suite_sizes(ctx, def, ndef, quick, nquick, &opts.param_values, &opts.param_count);
    opts.param_name = "size";
    return vn_suite_add(s, name, fn, &opts);
}

int vn__suite_summarize(vn__suite_ctx *ctx, vn__suite_summary_fn fn)
{
    for (size_t i = 0; i < ctx->nsummary; i++)
        if (ctx->summary[i] == fn)
            return 0;
    if (ctx->nsummary == sizeof ctx->summary / sizeof ctx->summary[0])
        return VN_ENOMEM;
    ctx->summary[ctx->nsummary++] = fn;
    return 0;
}

int vn__suite_after(vn_results *r, void *arg)
{
    const vn__suite_ctx *ctx = arg;
    int rc = 0;
    for (size_t i = 0; i < ctx->nsummary && rc == 0; i++)
        rc = ctx->summary[i](r, ctx);
    return rc;
}

size_t vn__suite_sweep(const vn_results *r, const char *prefix, double *param, double *median,
                       size_t max)
{
    size_t k = 0, len = strlen(prefix);
    for (size_t i = 0; i < r->nbench && k < max; i++) {
        const vn_result *b = vn_results_at(r, i);
        if (strncmp(b->name, prefix, len) || b->name[len] != '/' || !b->param_name[0] || !vn__suite_headline(b))
            continue;
        param[k] = (double)b->param;
        median[k] = b->stats.median;
        k++;
    }
    return k;
}

int vn__suite_headline(const vn_result *b) { return !b->error[0] && !b->upper_bound && b->stats.n > 0; }

const vn_result *vn__suite_row(const vn_results *r, const char *name)
{
    for (size_t i = 0; i < r->nbench; i++) {
        const vn_result *b = vn_results_at(r, i);
        if (!strcmp(b->name, name))
            return vn__suite_headline(b) ? b : NULL;
    }
    return NULL;
}

double vn__suite_median(const vn_results *r, const char *name)
{
    const vn_result *b = vn__suite_row(r, name);
    return b ? b->stats.median : NAN;
}

double vn__suite_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int vn__suite_pin(int cpu)
{
    if (cpu < 0)
        return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -errno;
}

int vn__suite_thread(pthread_t *thread, int cpu, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc)
        return rc;
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        rc = pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    }
    /* The new thread inherits the mask it is created under. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (!rc)
        rc = pthread_create(thread, &attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return rc;
}
