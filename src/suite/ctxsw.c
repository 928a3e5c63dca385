/* ctxsw: what a context switch costs, by lmbench's lat_ctx and `perf bench
 * sched pipe` method: two threads pass a one-byte token back and forth
 * through two pipes, each blocking in read() until the other writes.
 * Both on one CPU, each round trip is two switches, and the row reports
 * half of it: one switch. On two CPUs nobody switches (each side waits on
 * its own CPU): half a round trip is then a wake-up across CPUs, reported
 * so. Threads of one process, as `perf bench sched pipe -T`: no address
 * space changes with a switch (lat_ctx's processes pay for that too). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/format.h"
#include "suite/suite.h"

typedef struct ctxsw {
    int two;                  /* the peer on another CPU */
    int cpu_a, cpu_b;         /* --cpus, or -1 */
    int state;                /* 0 not opened yet, 1 open, -1 cannot be (why), -2 failed */
    char why[160];
    int here, there;          /* the CPUs of the benchmark thread and of the peer */
    int ping[2], pong[2];
    pthread_t thread;
    int started;
    cpu_set_t saved;          /* the benchmark thread's CPUs outside the samples */
    int pinned;
} ctxsw;

/* One byte into fd (out) or out of it, whatever signals come. 0 or -1. */
static int token(int fd, int out)
{
    char tok = 't';
    ssize_t k;
    while ((k = out ? write(fd, &tok, 1) : read(fd, &tok, 1)) < 0 && errno == EINTR)
        ;
    return k == 1 ? 0 : -1;
}

/* Hands each token back until the benchmark closes its end. */
static void *peer(void *arg)
{
    ctxsw *c = arg;
    while (token(c->ping[0], 0) == 0 && token(c->pong[1], 1) == 0)
        ;
    return NULL;
}

/* The two CPUs: --cpus A,B (A for both on one CPU), else the first CPUs
 * this thread may run on. 0, or -1 with the reason in why. */
static int place(ctxsw *c)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set)) {
        snprintf(c->why, sizeof c->why, "sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    int first = -1, second = -1;
    for (int i = 0; i < CPU_SETSIZE && second < 0; i++)
        if (CPU_ISSET(i, &set))
            first < 0 ? (first = i) : (second = i);
    c->here = c->cpu_a >= 0 ? c->cpu_a : first;
    if (!c->two)
        c->there = c->here;
    else if (c->cpu_b >= 0)
        c->there = c->cpu_b;
    else
        c->there = c->here == first ? second : first;
    if (c->two && c->there < 0) {
        snprintf(c->why, sizeof c->why, "one CPU to run on: a wake-up across CPUs needs two");
        return -1;
    }
    if (c->two && c->there == c->here) {
        snprintf(c->why, sizeof c->why, "--cpus names CPU %d twice: a wake-up across CPUs needs two", c->here);
        return -1;
    }
    return 0;
}

static int open_pair(ctxsw *c)
{
    if (place(c))
        return -1;
    if (pipe2(c->ping, O_CLOEXEC) || pipe2(c->pong, O_CLOEXEC)) {
        snprintf(c->why, sizeof c->why, "pipe: %s", strerror(errno));
        return -2;
    }
    int rc = vn__suite_thread(&c->thread, c->there, peer, c);
    if (rc) {
        snprintf(c->why, sizeof c->why, "cannot start the peer on CPU %d: %s", c->there, strerror(rc));
        return -1;
    }
    c->started = 1;
    return 1;
}

static void ctxsw_free(void *arg)
{
    ctxsw *c = arg;
    /* Closing the token's way in ends the peer's read, and so the peer. */
    if (c->ping[1] >= 0)
        close(c->ping[1]);
    if (c->started)
        pthread_join(c->thread, NULL);
    int fds[] = {c->ping[0], c->pong[0], c->pong[1]};
    for (size_t i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(c);
}

/* Before each sample: the pair (once), and this thread on its CPU, which
 * the teardown undoes, since the other rows run on this thread too. */
static void ctxsw_setup(vn_state *st)
{
    ctxsw *c = vn_state_user(st);
    if (c->state == 0)
        c->state = open_pair(c);
    if (c->state == -1) {
        vn_state_skip(st, c->why);
        return;
    }
    if (c->state == -2) {
        vn_state_fail(st, c->why);
        return;
    }
    c->pinned = sched_getaffinity(0, sizeof c->saved, &c->saved) == 0;
    int rc = c->pinned ? vn__suite_pin(c->here) : -errno;
    if (rc) {
        snprintf(c->why, sizeof c->why, "cannot run on CPU %d: %s", c->here, strerror(-rc));
        vn_state_skip(st, c->why);
    }
}

static void ctxsw_teardown(vn_state *st)
{
    ctxsw *c = vn_state_user(st);
    if (c->pinned)
        sched_setaffinity(0, sizeof c->saved, &c->saved);
    c->pinned = 0;
}

/* An iteration is a round trip of the token; its time, halved, is the
 * row's: one switch (or one wake-up across CPUs). */
static void ctxsw_body(vn_state *st)
{
    ctxsw *c = vn_state_user(st);
    double t0 = vn__suite_now_ns();
    while (vn_next(st))
        if (token(c->ping[1], 1) || token(c->pong[0], 0)) {
            char m[128];
            snprintf(m, sizeof m, "the token was lost: %s", errno ? strerror(errno) : "the peer is gone");
            vn_state_fail(st, m);
        }
    vn_state_set_time(st, (vn__suite_now_ns() - t0) / 2);
}

static int ctxsw_summary(vn_results *r, const vn__suite_ctx *ctx)
{
    (void)ctx;
    double one = vn__suite_median(r, "ctxsw.one_cpu"), two = vn__suite_median(r, "ctxsw.two_cpus");
    if (isnan(one) && isnan(two))
        return 0;
    char a[24], b[24], brief[128], why[512];
    vn__fmt_ns(a, sizeof a, one);
    vn__fmt_ns(b, sizeof b, two);
    if (isnan(two))
        snprintf(brief, sizeof brief, "ctxsw: %s a switch on one CPU", a);
    else if (isnan(one))
        snprintf(brief, sizeof brief, "ctxsw: %s a wake-up across two CPUs (half a round trip)", b);
    else
        snprintf(brief, sizeof brief, "ctxsw: %s a switch on one CPU; %s a wake-up across two (half a round trip)",
                 a, b);
    snprintf(why, sizeof why,
             "Two threads pass a byte through two pipes. On one CPU, every round trip is two "
             "context switches, and half of one is a switch with its pipe read and write: %s. "
             "On two CPUs neither thread leaves its CPU for the other: half a round trip is one "
             "wake-up of a thread sleeping on another CPU (an interrupt between CPUs, and the "
             "wait for an idle CPU to wake), %s, not a switch.",
             a, b);
    return vn_results_add_finding(r, "ctxsw", brief, why);
}

static int add(vn_suite *s, vn__suite_ctx *ctx, const char *name, int two)
{
    ctxsw *c = calloc(1, sizeof *c);
    if (!c)
        return VN_ENOMEM;
    c->ping[0] = c->ping[1] = c->pong[0] = c->pong[1] = -1;
    c->two = two;
    c->cpu_a = ctx->cpu_a;
    c->cpu_b = ctx->cpu_b;
    int rc = vn__suite_on_exit(ctx, ctxsw_free, c);
    if (!rc)
        rc = vn__suite_summarize(ctx, ctxsw_summary);
    if (rc)
        return rc;
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.setup = ctxsw_setup;
    o.teardown = ctxsw_teardown;
    o.user = c;
    o.manual_time = 1;
    return vn_suite_add(s, name, ctxsw_body, &o);
}

int vn__suite_ctxsw_one_cpu(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, 0);
}

int vn__suite_ctxsw_two_cpus(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add(s, ctx, name, 1);
}
