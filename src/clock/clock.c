/* The clock table and reads for every clock, dispatched by id. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "internal.h"
#include "cpuid_decode.h"
#include "clock/clock_api.h"

#define MONO VN_CLOCK_F_MONOTONIC
#define CTR VN_CLOCK_F_COUNTER
#define CPU VN_CLOCK_F_CPUTIME
#define SYS VN_CLOCK_F_SYSCALL

/* The one table of clocks: names, descriptions, flags and the POSIX clock
 * behind each (-1 for clocks that are not clock_gettime). */
static const struct {
    const char *name;
    const char *desc;
    unsigned flags;
    clockid_t posix;
} clocks[VN_CLOCK_COUNT] = {
    [VN_CLOCK_MONOTONIC] = {"monotonic", "clock_gettime(CLOCK_MONOTONIC), through the vDSO", MONO, CLOCK_MONOTONIC},
    [VN_CLOCK_MONOTONIC_RAW] = {"monotonic_raw", "clock_gettime(CLOCK_MONOTONIC_RAW), not slewed by NTP", MONO, CLOCK_MONOTONIC_RAW},
    [VN_CLOCK_MONOTONIC_COARSE] = {"monotonic_coarse", "clock_gettime(CLOCK_MONOTONIC_COARSE), advances once per tick", MONO, CLOCK_MONOTONIC_COARSE},
    [VN_CLOCK_REALTIME] = {"realtime", "clock_gettime(CLOCK_REALTIME), wall time that may jump", 0, CLOCK_REALTIME},
    [VN_CLOCK_BOOTTIME] = {"boottime", "clock_gettime(CLOCK_BOOTTIME), counts time suspended", MONO, CLOCK_BOOTTIME},
    [VN_CLOCK_PROCESS_CPUTIME] = {"process_cputime", "clock_gettime(CLOCK_PROCESS_CPUTIME_ID), CPU time of all threads", MONO | CPU | SYS, CLOCK_PROCESS_CPUTIME_ID},
    [VN_CLOCK_THREAD_CPUTIME] = {"thread_cputime", "clock_gettime(CLOCK_THREAD_CPUTIME_ID), CPU time of this thread", MONO | CPU | SYS, CLOCK_THREAD_CPUTIME_ID},
    [VN_CLOCK_RUSAGE] = {"rusage", "getrusage(RUSAGE_SELF) user + system time, microseconds", MONO | CPU | SYS, (clockid_t)-1},
    [VN_CLOCK_MONOTONIC_SYSCALL] = {"monotonic_syscall", "CLOCK_MONOTONIC by syscall(SYS_clock_gettime), bypassing the vDSO", MONO | SYS, (clockid_t)-1},
    [VN_CLOCK_TSC] = {"tsc", "rdtsc, unordered: may run before earlier instructions finish", MONO | CTR, (clockid_t)-1},
    [VN_CLOCK_TSC_LFENCE] = {"tsc_lfence", "lfence; rdtsc: waits for earlier instructions", MONO | CTR, (clockid_t)-1},
    [VN_CLOCK_RDTSCP] = {"rdtscp", "rdtscp; lfence: waits for earlier, holds later instructions", MONO | CTR, (clockid_t)-1},
    [VN_CLOCK_TSC_CPUID] = {"tsc_cpuid", "cpuid; rdtsc: fully serialized (Intel's method)", MONO | CTR, (clockid_t)-1},
    [VN_CLOCK_CNTVCT] = {"cntvct", "isb; mrs cntvct_el0: the aarch64 virtual counter", MONO | CTR, (clockid_t)-1},
};

static int valid(vn_clock_id id) { return (unsigned)id < VN_CLOCK_COUNT; }

const char *vn_clock_name(vn_clock_id id) { return valid(id) ? clocks[id].name : NULL; }
const char *vn_clock_describe(vn_clock_id id) { return valid(id) ? clocks[id].desc : NULL; }
unsigned vn_clock_flags(vn_clock_id id) { return valid(id) ? clocks[id].flags : 0; }

int vn_clock_exists(vn_clock_id id)
{
    if (!valid(id))
        return 0;
    switch (id) {
    case VN_CLOCK_TSC:
    case VN_CLOCK_TSC_LFENCE:
    case VN_CLOCK_RDTSCP:
    case VN_CLOCK_TSC_CPUID:
#ifdef VN_HAVE_TSC
        return 1;
#else
        return 0;
#endif
    case VN_CLOCK_CNTVCT:
#ifdef VN_HAVE_CNTVCT
        return 1;
#else
        return 0;
#endif
    default:
        return 1;
    }
}

int vn_clock_available(vn_clock_id id)
{
    if (!vn_clock_exists(id))
        return 0;
    switch (id) {
    case VN_CLOCK_TSC:
    case VN_CLOCK_TSC_LFENCE:
    case VN_CLOCK_TSC_CPUID:
    case VN_CLOCK_CNTVCT:
        return vn__tsc_facts()->present == 1;
    case VN_CLOCK_RDTSCP:
        return vn__tsc_facts()->present == 1 && vn__tsc_facts()->rdtscp == 1;
    case VN_CLOCK_RUSAGE:
    case VN_CLOCK_MONOTONIC_SYSCALL:
        return 1;
    default: {
        struct timespec ts;
        return clock_gettime(clocks[id].posix, &ts) == 0;
    }
    }
}

int vn_clock_lookup(const char *name, vn_clock_id *out)
{
    if (!name || !out)
        return VN_EINVAL;
    for (int i = 0; i < VN_CLOCK_COUNT; i++)
        if (vn_clock_exists((vn_clock_id)i) && !strcmp(name, clocks[i].name)) {
            *out = (vn_clock_id)i;
            return 0;
        }
    return VN_ENOENT;
}

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

uint64_t vn_clock_read(vn_clock_id id)
{
    switch (id) {
    case VN_CLOCK_RUSAGE: {
        struct rusage ru;
        memset(&ru, 0, sizeof ru);
        getrusage(RUSAGE_SELF, &ru);
        return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
               ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
    }
    case VN_CLOCK_MONOTONIC_SYSCALL: {
        struct timespec ts = {0, 0};
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
        return ts_ns(&ts);
    }
#ifdef VN_HAVE_TSC
    case VN_CLOCK_TSC: return vn__rdtsc();
    case VN_CLOCK_TSC_LFENCE: return vn__rdtsc_lfence();
    case VN_CLOCK_RDTSCP: return vn__rdtscp_lfence();
    case VN_CLOCK_TSC_CPUID: return vn__cpuid_rdtsc();
#endif
#ifdef VN_HAVE_CNTVCT
    case VN_CLOCK_CNTVCT: return vn__cntvct();
#endif
    default:
        if (vn_clock_exists(id) && clocks[id].posix != (clockid_t)-1)
            return vn__posix_read(clocks[id].posix);
        return 0;
    }
}

int vn_clock_getres_ns(vn_clock_id id, double *ns)
{
    if (!vn_clock_exists(id) || !ns)
        return VN_EINVAL;
    if (vn_clock_flags(id) & VN_CLOCK_F_COUNTER) {
        const vn_calibration *c = vn_counter_calibration();
        if (!c)
            return VN_ENOTSUP;
        *ns = 1e9 / c->hz;
        return 0;
    }
    if (id == VN_CLOCK_RUSAGE) {
        *ns = 1000.0; /* struct timeval carries microseconds */
        return 0;
    }
    clockid_t c = id == VN_CLOCK_MONOTONIC_SYSCALL ? CLOCK_MONOTONIC : clocks[id].posix;
    struct timespec ts;
    if (clock_getres(c, &ts) != 0)
        return VN_ENOTSUP;
    *ns = (double)ts_ns(&ts);
    return 0;
}

double vn_clock_delta_ns(vn_clock_id id, uint64_t delta)
{
    if (!(vn_clock_flags(id) & VN_CLOCK_F_COUNTER))
        return (double)delta;
    const vn_calibration *c = vn_counter_calibration();
    return c ? (double)delta * 1e9 / c->hz : NAN;
}
