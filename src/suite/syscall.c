/* syscall: what entering the kernel costs, against calls the vDSO answers
 * in user space. getppid by syscall(2) is a real entry and exit (libc
 * caches nothing for it); clock_gettime, gettimeofday and time go through
 * the vDSO, and clock_gettime once more by raw syscall for the same clock,
 * so the two ways sit side by side. */
#include <stdio.h>
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

int vn__suite_syscall_getppid(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
    return vn_suite_add(s, name, getppid_raw, NULL);
}

int vn__suite_syscall_getpid(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
    return vn_suite_add(s, name, getpid_libc, NULL);
}

int vn__suite_syscall_clock_gettime(vn_suite *s, vn__suite_ctx *ctx, const char *name)
{
    (void)ctx;
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
