/* syscall: what entering the kernel costs, against calls the vDSO answers
 * in user space. getppid by syscall(2) is a real entry and exit (libc
 * caches nothing for it); clock_gettime, gettimeofday and time go through
 * the vDSO, and clock_gettime once more by raw syscall for the same clock,
 * so the two ways sit side by side. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "suite/suite.h"

static void getppid_raw(vn_state *st)
{
    while (vn_next(st))
        vn_keep(syscall(SYS_getppid));
}

static void getpid_libc(vn_state *st)
{
    while (vn_next(st))
        vn_keep(getpid());
}

static void clock_vdso(vn_state *st)
{
    struct timespec ts;
    while (vn_next(st)) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        vn_keep(ts.tv_nsec);
    }
}

static void clock_raw(vn_state *st)
{
    struct timespec ts;
    while (vn_next(st)) {
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
        vn_keep(ts.tv_nsec);
    }
}

static void gettimeofday_vdso(vn_state *st)
{
    struct timeval tv;
    while (vn_next(st)) {
        gettimeofday(&tv, NULL);
        vn_keep(tv.tv_usec);
    }
}

static void time_vdso(vn_state *st)
{
    while (vn_next(st))
        vn_keep(time(NULL));
}

/* Each row in ns and in ticks of the TSC (when the timer is a counter),
 * the kernel's entry against the vDSO on one line. */
static int syscall_summary(vn_results *r, const vn__suite_ctx *ctx)
{
    (void)ctx;
    double entry = vn__suite_median(r, "syscall.getppid"), vdso = vn__suite_median(r, "syscall.clock_gettime.vdso"),
           raw = vn__suite_median(r, "syscall.clock_gettime.syscall"), hz = r->counter_hz;
    if (isnan(entry) && isnan(vdso))
        return 0;
    char brief[128], why[1024] = "";
    size_t len = 0;
    int ticks = isfinite(hz) && hz > 0;
    if (ticks)
        snprintf(brief, sizeof brief,
                 "syscall: kernel entry %.3g ns (%.0f ticks), vDSO clock %.3g ns (%.0f), by syscall %.3g ns",
                 entry, entry * hz * 1e-9, vdso, vdso * hz * 1e-9, raw);
    else
        snprintf(brief, sizeof brief, "syscall: kernel entry %.3g ns, vDSO clock %.3g ns, by syscall %.3g ns",
                 entry, vdso, raw);
    static const char *const rows[] = {"syscall.getppid", "syscall.getpid", "syscall.clock_gettime.vdso",
                                       "syscall.clock_gettime.syscall", "syscall.gettimeofday",
                                       "syscall.time"};
    len += (size_t)snprintf(why + len, sizeof why - len,
                            "Each call's median%s: ", ticks ? " in ns and in ticks of the timer's counter" : " in ns");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0] && len < sizeof why; i++) {
        double m = vn__suite_median(r, rows[i]);
        if (isnan(m))
            continue;
        if (ticks)
            len += (size_t)snprintf(why + len, sizeof why - len, "%s %.3g ns = %.0f ticks; ", rows[i], m,
                                    m * hz * 1e-9);
        else
            len += (size_t)snprintf(why + len, sizeof why - len, "%s %.3g ns; ", rows[i], m);
    }
    if (len < sizeof why)
        snprintf(why + len, sizeof why - len,
                 "getppid by syscall(2) enters the kernel every time; the vDSO answers clock_gettime, "
                 "gettimeofday and time in user space, so they cost no entry unless the clock source "
                 "forces one (then the vDSO and the syscall rows read alike).");
    return vn_results_add_finding(r, "syscall.entry", brief, why);
}

int vn__suite_syscall_getppid(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    int rc = vn__suite_summarize(ctx, syscall_summary);
    return rc ? rc : vn_suite_add(s, name, getppid_raw, NULL);
}

int vn__suite_syscall_getpid(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
    return vn_suite_add(s, name, getpid_libc, NULL);
}

int vn__suite_syscall_clock_gettime(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    int rc0 = vn__suite_summarize(ctx, syscall_summary);
    if (rc0)
        return rc0;
    char row[64];
    snprintf(row, sizeof row, "%s.vdso", name);
    int rc = vn_suite_add(s, row, clock_vdso, NULL);
    snprintf(row, sizeof row, "%s.syscall", name);
    return rc ? rc : vn_suite_add(s, row, clock_raw, NULL);
}

int vn__suite_syscall_gettimeofday(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
    return vn_suite_add(s, name, gettimeofday_vdso, NULL);
}

int vn__suite_syscall_time(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
    return vn_suite_add(s, name, time_vdso, NULL);
}
