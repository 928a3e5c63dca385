/* timer: how late a thread wakes against the time it asked to wake at,
 * cyclictest's measure, as a distribution. Each sample is one wake-up: the
 * time asked for is CLOCK_MONOTONIC's reading before the wait plus the
 * interval, the lateness is the reading right after it minus that, and
 * the engine's median, percentiles and histogram are of the lateness.
 *
 * Four ways to wait: nanosleep (relative), clock_nanosleep with
 * TIMER_ABSTIME (absolute), a timerfd set to an absolute time and read,
 * and epoll_pwait2 on an empty epoll set. The first two and epoll's
 * timeout are high-resolution timers the kernel may defer by the thread's
 * timer slack (prctl PR_GET_TIMERSLACK), so that it can serve several
 * with one interrupt; a timerfd is not, which the rows show side by side.
 * nanosleep runs once more with the slack at 1 ns, to show what the slack
 * alone costs. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "base/format.h"
#include "suite/suite.h"
#include "suite/timer.h"

/* epoll_pwait2 (Linux 5.11) takes its timeout as a timespec; glibc has
 * its wrapper from 2.35 on. Without either, epoll_wait's whole
 * milliseconds are all there is. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define HAVE_PWAIT2 1
#else
#define HAVE_PWAIT2 0
#endif

/* The intervals asked for, in us: below the default slack, at it, and
 * well above it. */
static const int64_t intervals[] = {1, 50, 1000};

/* What the rows share: made by the first sample that needs it, closed
 * when the suite ends. */
static struct {
    int registered; /* close_shared is on the suite's exit list */
    int tfd, epfd;  /* -1 until made */
    int pwait2;     /* epoll_pwait2: 1 the kernel has it, 0 not, -1 not asked yet */
    long slack_ns;  /* the thread's timer slack when the rows were added; -1 unknown */
    unsigned long early; /* samples whose clock read before the time asked (counted as 0) */
    pthread_t owner;     /* the thread that added the rows, and runs them */
    /* The slack a slack-1ns row's setup replaced, for its teardown to put
     * back: the rows take turns on one thread, and the others must find
     * the thread's own slack. -1: nothing to put back. */
    int saved_slack;
} sh = {.tfd = -1, .epfd = -1, .pwait2 = -1, .slack_ns = -1, .saved_slack = -1};

static void close_shared(void *arg)
{
    (void)arg;
    if (sh.tfd >= 0)
        close(sh.tfd);
    if (sh.epfd >= 0)
        close(sh.epfd);
    sh.registered = 0;
    sh.tfd = sh.epfd = sh.pwait2 = -1;
    sh.slack_ns = -1;
    sh.early = 0;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
    return (struct timespec){.tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
}

double vn__suite_lateness_ns(int64_t asked_ns, int64_t woke_ns, int *early)
{
    if (woke_ns < asked_ns) {
        *early = 1;
        return 0;
    }
    return (double)(woke_ns - asked_ns);
}

/* ---- The ways to wait: each waits interval ns from now, says in *asked
 * when it asked to wake, and returns 0 or -errno. A signal does not end a
 * sample early: each waits again for what is left of the same time. ---- */

static int wait_nanosleep(int64_t interval, int64_t *asked)
{
    *asked = now_ns() + interval;
    struct timespec req = ts_of(interval), rem;
    while (nanosleep(&req, &rem) != 0) {
        if (errno != EINTR)
            return -errno;
        req = rem;
    }
    return 0;
}

static int wait_abstime(int64_t interval, int64_t *asked)
{
    *asked = now_ns() + interval;
    struct timespec t = ts_of(*asked);
    int rc;
    while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL)) == EINTR)
        ;
    return -rc;
}

static int wait_timerfd(int64_t interval, int64_t *asked)
{
    *asked = now_ns() + interval;
    struct itimerspec it = {.it_value = ts_of(*asked)};
    if (timerfd_settime(sh.tfd, TFD_TIMER_ABSTIME, &it, NULL) != 0)
        return -errno;
    uint64_t expirations;
    ssize_t k;
    while ((k = read(sh.tfd, &expirations, sizeof expirations)) < 0 && errno == EINTR)
        ;
    return k == (ssize_t)sizeof expirations ? 0 : k < 0 ? -errno : -EIO;
}

static int wait_epoll(int64_t interval, int64_t *asked)
{
    *asked = now_ns() + interval;
    struct epoll_event ev;
    for (int64_t left = interval; left > 0; left = *asked - now_ns()) {
        int k;
#if HAVE_PWAIT2
        struct timespec to = ts_of(left);
        if (sh.pwait2 == 1)
            k = epoll_pwait2(sh.epfd, &ev, 1, &to, NULL);
        else
#endif
            k = epoll_wait(sh.epfd, &ev, 1, (int)((left + 999999) / 1000000));
        if (k >= 0)
            return 0; /* the set is empty: only the timeout ends the wait */
        if (errno != EINTR)
            return -errno;
    }
    return 0;
}

/* ---- What each row needs before it can wait: 0, or -1 with the reason
 * the machine cannot run it in why. ---- */

static int need_timerfd(int64_t interval, char *why, size_t n)
{
    (void)interval;
    if (sh.tfd < 0 && (sh.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)) < 0) {
        snprintf(why, n, "timerfd_create(CLOCK_MONOTONIC) refused: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static int need_epoll(int64_t interval, char *why, size_t n)
{
    if (sh.epfd < 0 && (sh.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        snprintf(why, n, "epoll_create1 refused: %s", strerror(errno));
        return -1;
    }
    if (sh.pwait2 < 0) {
        sh.pwait2 = 0;
#if HAVE_PWAIT2
        /* A zero timeout only asks whether the kernel has the call. */
        struct timespec zero = {0, 0};
        struct epoll_event ev;
        sh.pwait2 = epoll_pwait2(sh.epfd, &ev, 1, &zero, NULL) >= 0 || errno != ENOSYS;
#endif
    }
    if (!sh.pwait2 && interval % 1000000) {
        snprintf(why, n, "epoll_wait's timeout is whole ms and epoll_pwait2 (Linux 5.11) is missing");
        return -1;
    }
    return 0;
}

/* A row: how it waits, what it needs first, the call its errors name,
 * and the timer slack it runs with (0: the thread's own). */
struct method {
    int (*wait)(int64_t interval, int64_t *asked);
    int (*need)(int64_t interval, char *why, size_t n);
    const char *call;
    int slack_ns;
};

static struct method m_nanosleep = {wait_nanosleep, NULL, "nanosleep", 0};
static struct method m_nanosleep_1ns = {wait_nanosleep, NULL, "nanosleep", 1};
static struct method m_abstime = {wait_abstime, NULL, "clock_nanosleep", 0};
static struct method m_timerfd = {wait_timerfd, need_timerfd, "timerfd", 0};
static struct method m_epoll = {wait_epoll, need_epoll, "epoll", 0};

static void prepare(vn_state *st)
{
    const struct method *m = vn_state_user(st);
    char why[160];
    /* One timerfd and one count serve the rows, and a wake-up's lateness
     * is one thread's: several threads at once would share the timerfd
     * (one reader would wait for good) and each other's CPUs. */
    if (!pthread_equal(pthread_self(), sh.owner)) {
        vn_state_skip(st, "the timer rows run on one thread, not with --threads");
        return;
    }
    if (m->need && m->need(vn_state_param(st) * 1000, why, sizeof why) != 0) {
        vn_state_skip(st, why);
        return;
    }
    if (m->slack_ns) {
        int cur = prctl(PR_GET_TIMERSLACK);
        if (cur < 0 || prctl(PR_SET_TIMERSLACK, (unsigned long)m->slack_ns) != 0) {
            snprintf(why, sizeof why, "prctl(PR_SET_TIMERSLACK) refused: %s", strerror(errno));
            vn_state_skip(st, why);
            return;
        }
        sh.saved_slack = cur;
    }
}

static void restore(vn_state *st)
{
    (void)st;
    if (!pthread_equal(pthread_self(), sh.owner) || sh.saved_slack < 0)
        return;
    prctl(PR_SET_TIMERSLACK, (unsigned long)sh.saved_slack);
    sh.saved_slack = -1;
}

/* One wake-up a sample (iterations = 1), its lateness the sample's time. */
static void wake(vn_state *st)
{
    const struct method *m = vn_state_user(st);
    int64_t interval = vn_state_param(st) * 1000;
    while (vn_next(st)) {
        int64_t asked;
        int rc = m->wait(interval, &asked);
        int64_t woke = now_ns();
        if (rc) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s: %s", m->call, strerror(-rc));
            vn_state_fail(st, msg);
            continue;
        }
        int early = 0;
        vn_state_set_time(st, vn__suite_lateness_ns(asked, woke, &early));
        sh.early += (unsigned long)early;
    }
}

/* ---- The finding ---- */

char *vn__suite_timer_brief(char *buf, size_t n, double slack_ns, double median, double p99,
                            double median_1ns)
{
    char line[256], a[32], b[32], c[32], d[32];
    size_t len = (size_t)snprintf(line, sizeof line, "timer: slack %s (prctl)",
                                  slack_ns >= 0 ? vn__fmt_ns(a, sizeof a, slack_ns) : "unknown");
    if (!isnan(median))
        len += (size_t)snprintf(line + len, sizeof line - len, "; nanosleep 1 us: median %s late, p99 %s",
                                vn__fmt_ns(b, sizeof b, median), vn__fmt_ns(c, sizeof c, p99));
    if (!isnan(median_1ns))
        snprintf(line + len, sizeof line - len, "; 1 ns slack: %s", vn__fmt_ns(d, sizeof d, median_1ns));
    /* Durations under a second fit in 100 characters; longer ones, which
     * no timer here should take, are cut rather than wrap the console. */
    if (n) {
        size_t k = strlen(line), max = n - 1 < 100 ? n - 1 : 100;
        k = k < max ? k : max;
        memcpy(buf, line, k);
        buf[k] = 0;
    }
    return buf;
}

static const vn_result *row(const vn_results *r, const char *name)
{
    for (size_t i = 0; i < r->nbench; i++) {
        const vn_result *b = vn_results_at(r, i);
        if (!strcmp(b->name, name) && !b->error[0] && b->stats.n)
            return b;
    }
    return NULL;
}

static int timer_summary(vn_results *r, const vn__suite_ctx *ctx)
{
    (void)ctx;
    const vn_result *ns = row(r, "timer.nanosleep/us=1"), *ns1 = row(r, "timer.nanosleep.slack1ns/us=1");
    char brief[128], why[2048], x[32], y[32];
    vn__suite_timer_brief(brief, sizeof brief, (double)sh.slack_ns, ns ? ns->stats.median : NAN,
                          ns ? ns->stats.pct[VN_STATS_NPCT - 1] : NAN, ns1 ? ns1->stats.median : NAN);
    size_t len = (size_t)snprintf(
        why, sizeof why,
        "prctl(PR_GET_TIMERSLACK) says the kernel may defer this thread's timers by up to %s, so "
        "that one interrupt serves several: nanosleep, clock_nanosleep and epoll's timeout wake "
        "about that late whatever they ask, a timerfd (no slack) and a 1 ns slack do not. "
        "A SCHED_FIFO thread (cyclictest -p) has no slack and wakes ahead of normal ones; vernier "
        "does not raise its priority. Lateness, median (p99): ",
        sh.slack_ns >= 0 ? vn__fmt_ns(x, sizeof x, (double)sh.slack_ns) : "an unknown slack");
    int first = 1;
    for (size_t i = 0; i < r->nbench && len < sizeof why; i++) {
        const vn_result *b = vn_results_at(r, i);
        if (strncmp(b->name, "timer.", 6) || b->error[0] || !b->stats.n)
            continue;
        len += (size_t)snprintf(why + len, sizeof why - len, "%s%s %s (%s)", first ? "" : "; ", b->name,
                                vn__fmt_ns(x, sizeof x, b->stats.median),
                                vn__fmt_ns(y, sizeof y, b->stats.pct[VN_STATS_NPCT - 1]));
        first = 0;
    }
    if (len < sizeof why)
        len += (size_t)snprintf(why + len, sizeof why - len, "%s", first ? "no row ran." : ".");
    if (sh.early && len < sizeof why)
        snprintf(why + len, sizeof why - len,
                 " %lu samples read the clock before the time asked (a clock that disagrees between "
                 "CPUs) and count as 0.",
                 sh.early);
    return vn_results_add_finding(r, "timer.slack", brief, why);
}

/* ---- The registry's add functions ---- */

static int add_rows(vn_suite *s, vn__suite_ctx *ctx, const char *name, struct method *m)
{
    if (!sh.registered) {
        int rc = vn__suite_on_exit(ctx, close_shared, NULL);
        if (rc)
            return rc;
        sh.registered = 1;
        sh.owner = pthread_self();
        sh.slack_ns = prctl(PR_GET_TIMERSLACK);
    }
    int rc = vn__suite_summarize(ctx, timer_summary);
    if (rc)
        return rc;
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.setup = prepare;
    o.teardown = restore;
    o.user = m;
    o.iterations = 1;  /* one wake-up a sample: the distribution is of single wake-ups */
    o.manual_time = 1; /* the lateness, not the time the call took */
    /* A latency's tail is the point, and a median of a few wake-ups can be
     * precise long before a p99 means anything: enough samples for the p99
     * to lie among several, which the 1 ms rows still fit in the budget. */
    o.min_samples = ctx->quick ? 20 : 200;
    /* Intervals, not sizes: --sizes, in bytes, does not apply. */
    o.param_name = "us";
    o.param_values = intervals;
    o.param_count = sizeof intervals / sizeof intervals[0];
    return vn_suite_add(s, name, wake, &o);
}

int vn__suite_timer_nanosleep(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    char slack[64];
    snprintf(slack, sizeof slack, "%s.slack1ns", name);
    int rc = add_rows(s, ctx, name, &m_nanosleep);
    return rc ? rc : add_rows(s, ctx, slack, &m_nanosleep_1ns);
}

int vn__suite_timer_abstime(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_rows(s, ctx, name, &m_abstime);
}

int vn__suite_timer_timerfd(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_rows(s, ctx, name, &m_timerfd);
}

int vn__suite_timer_epoll(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    return add_rows(s, ctx, name, &m_epoll);
}
