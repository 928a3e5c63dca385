/* A fake PMU under the counters' system-call table (vn__perf_sys), so the
 * opening, grouping and reading code runs deterministically on any machine:
 * with or without hardware events, with a given number of counters per
 * group, with perf_event_paranoid refusing the kernel part, with an old
 * kernel's refusal of inherited group reads, and with multiplexing.
 *
 * The counts are the test's: fake_count[] per event kind grows as the test
 * says; a group counts from its enable, and a multiplexed group counts half
 * the time (and half the events). Include after <cmocka.h>. */
#ifndef VN_TEST_FAKE_PMU_H
#define VN_TEST_FAKE_PMU_H

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "counters/internal.h"

#define FAKE_FDS 64

typedef struct fake_pmu {
    /* The machine. */
    int hardware;            /* hardware and cache events exist */
    size_t max_hw;           /* hardware events one group can hold */
    int deny_kernel;         /* EACCES unless exclude_kernel (perf_event_paranoid 2) */
    int old_inherit;         /* EINVAL for inherit with PERF_FORMAT_GROUP */
    int multiplex;           /* hardware groups run half the time */
    int never_runs;          /* hardware groups never run */
    int fail_reads;          /* read() fails */
    vn__perf_facts facts;
    /* The world: counts of each event kind and the time. */
    uint64_t count[PERF_COUNT_HW_MAX + PERF_COUNT_SW_MAX + 8];
    uint64_t now;            /* ns */
    /* Open events. */
    struct {
        int used;
        struct perf_event_attr attr;
        int leader;          /* its own fd for a leader */
        int enabled;
        uint64_t base;       /* count at enable */
        uint64_t t0;         /* time at enable */
        uint64_t acc, acc_en, acc_run; /* totals of earlier enabled spells */
        pid_t pid;
    } ev[FAKE_FDS];
    int opens, reads, ioctls;
    int max_open;            /* most events open at once */
} fake_pmu;

static fake_pmu fake;

/* An index into fake.count for an event: hardware kinds first. */
static size_t fake_kind(const struct perf_event_attr *a)
{
    if (a->type == PERF_TYPE_SOFTWARE)
        return PERF_COUNT_HW_MAX + (size_t)a->config;
    if (a->type == PERF_TYPE_HARDWARE)
        return (size_t)a->config;
    return PERF_COUNT_HW_MAX + PERF_COUNT_SW_MAX; /* every cache event */
}

static int fake_is_hw(const struct perf_event_attr *a) { return a->type != PERF_TYPE_SOFTWARE; }

static int fake_open(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                     unsigned long flags)
{
    (void)ctx;
    (void)cpu;
    (void)flags;
    fake.opens++;
    if (a->size != sizeof *a)
        return -E2BIG;
    if (fake_is_hw(a) && !fake.hardware)
        return -ENOENT;
    if (fake.deny_kernel && !a->exclude_kernel)
        return -EACCES;
    if (fake.old_inherit && a->inherit && (a->read_format & PERF_FORMAT_GROUP))
        return -EINVAL;
    if (group_fd >= 0) {
        if (group_fd >= FAKE_FDS || !fake.ev[group_fd].used || fake.ev[group_fd].leader != group_fd)
            return -EBADF;
        size_t hw = (size_t)fake_is_hw(a);
        for (int i = 0; i < FAKE_FDS; i++)
            if (fake.ev[i].used && fake.ev[i].leader == group_fd)
                hw += (size_t)fake_is_hw(&fake.ev[i].attr);
        /* What x86 says when a group cannot be scheduled. */
        if (hw > fake.max_hw)
            return -EINVAL;
    }
    for (int fd = 3; fd < FAKE_FDS; fd++) {
        if (fake.ev[fd].used)
            continue;
        memset(&fake.ev[fd], 0, sizeof fake.ev[fd]);
        fake.ev[fd].used = 1;
        fake.ev[fd].attr = *a;
        fake.ev[fd].leader = group_fd >= 0 ? group_fd : fd;
        fake.ev[fd].pid = pid;
        /* A member opened enabled counts with its leader. */
        fake.ev[fd].enabled = !a->disabled && group_fd >= 0 && fake.ev[group_fd].enabled;
        fake.ev[fd].base = fake.count[fake_kind(a)];
        fake.ev[fd].t0 = fake.now;
        int n = 0;
        for (int i = 0; i < FAKE_FDS; i++)
            n += fake.ev[i].used;
        if (n > fake.max_open)
            fake.max_open = n;
        return fd;
    }
    return -EMFILE;
}

static int fake_running_share(int fd) /* 0 never, 1 half, 2 all */
{
    int hw = 0;
    int lead = fake.ev[fd].leader;
    for (int i = 0; i < FAKE_FDS; i++)
        if (fake.ev[i].used && fake.ev[i].leader == lead)
            hw |= fake_is_hw(&fake.ev[i].attr);
    if (!hw)
        return 2;
    return fake.never_runs ? 0 : fake.multiplex ? 1 : 2;
}

static void fake_value(int fd, uint64_t *v, uint64_t *en, uint64_t *run)
{
    uint64_t c = fake.ev[fd].acc, e = fake.ev[fd].acc_en, r = fake.ev[fd].acc_run;
    if (fake.ev[fd].enabled) {
        int share = fake_running_share(fd);
        uint64_t dt = fake.now - fake.ev[fd].t0;
        uint64_t dc = fake.count[fake_kind(&fake.ev[fd].attr)] - fake.ev[fd].base;
        c += share == 2 ? dc : share == 1 ? dc / 2 : 0;
        e += dt;
        r += share == 2 ? dt : share == 1 ? dt / 2 : 0;
    }
    *v = c;
    *en = e;
    *run = r;
}

static long fake_read(void *ctx, int fd, void *buf, size_t len)
{
    (void)ctx;
    fake.reads++;
    if (fake.fail_reads)
        return -EIO;
    if (fd < 0 || fd >= FAKE_FDS || !fake.ev[fd].used)
        return -EBADF;
    const struct perf_event_attr *a = &fake.ev[fd].attr;
    uint64_t w[3 + 3 * FAKE_FDS];
    size_t n = 0;
    uint64_t v, en, run;
    if (a->read_format & PERF_FORMAT_GROUP) {
        size_t nr = 0;
        for (int i = 0; i < FAKE_FDS; i++)
            nr += fake.ev[i].used && fake.ev[i].leader == fd;
        w[n++] = nr;
        fake_value(fd, &v, &en, &run);
        if (a->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
            w[n++] = en;
        if (a->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
            w[n++] = run;
        for (int i = 0; i < FAKE_FDS; i++) {
            if (!fake.ev[i].used || fake.ev[i].leader != fd)
                continue;
            fake_value(i, &v, &en, &run);
            w[n++] = v;
            if (a->read_format & PERF_FORMAT_ID)
                w[n++] = 1000 + (uint64_t)i;
        }
    } else {
        fake_value(fd, &v, &en, &run);
        w[n++] = v;
        if (a->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
            w[n++] = en;
        if (a->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
            w[n++] = run;
        if (a->read_format & PERF_FORMAT_ID)
            w[n++] = 1000 + (uint64_t)fd;
    }
    if (n * 8 > len)
        return -ENOSPC;
    memcpy(buf, w, n * 8);
    return (long)(n * 8);
}

static void fake_set_enabled(int fd, int on)
{
    if (fake.ev[fd].enabled == on)
        return;
    if (on) {
        fake.ev[fd].base = fake.count[fake_kind(&fake.ev[fd].attr)];
        fake.ev[fd].t0 = fake.now;
    } else {
        fake_value(fd, &fake.ev[fd].acc, &fake.ev[fd].acc_en, &fake.ev[fd].acc_run);
    }
    fake.ev[fd].enabled = on;
}

static int fake_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
    (void)ctx;
    fake.ioctls++;
    if (fd < 0 || fd >= FAKE_FDS || !fake.ev[fd].used)
        return -EBADF;
    if (req == PERF_EVENT_IOC_ID) {
        *(uint64_t *)arg = 1000 + (uint64_t)fd;
        return 0;
    }
    int group = arg & PERF_IOC_FLAG_GROUP;
    for (int i = 0; i < FAKE_FDS; i++) {
        if (!fake.ev[i].used || (i != fd && !(group && fake.ev[i].leader == fd)))
            continue;
        if (req == PERF_EVENT_IOC_ENABLE)
            fake_set_enabled(i, 1);
        else if (req == PERF_EVENT_IOC_DISABLE)
            fake_set_enabled(i, 0);
        else if (req == PERF_EVENT_IOC_RESET) {
            fake.ev[i].acc = 0;
            fake.ev[i].base = fake.count[fake_kind(&fake.ev[i].attr)];
        } else
            return -ENOTTY;
    }
    return 0;
}

static void fake_close(void *ctx, int fd)
{
    (void)ctx;
    if (fd >= 0 && fd < FAKE_FDS)
        fake.ev[fd].used = 0;
}

static void fake_facts(void *ctx, vn__perf_facts *f)
{
    (void)ctx;
    *f = fake.facts;
}

static const vn__perf_sys fake_sys = {fake_open, fake_read, fake_ioctl, fake_close, fake_facts,
                                      NULL};

/* A machine with a PMU of max_hw counters per group, nothing denied. */
static void fake_reset(size_t max_hw)
{
    memset(&fake, 0, sizeof fake);
    fake.hardware = 1;
    fake.max_hw = max_hw;
    fake.facts = (vn__perf_facts){1, 0, 0, "", 1};
}

/* This machine: a KVM guest without a virtual PMU. */
static void fake_vm(void)
{
    fake_reset(0);
    fake.hardware = 0;
    fake.facts = (vn__perf_facts){2, 1, 1, "kvm", 0};
}

static int fake_open_fds(void)
{
    int n = 0;
    for (int i = 0; i < FAKE_FDS; i++)
        n += fake.ev[i].used;
    return n;
}

#define HWC(k) fake.count[PERF_COUNT_HW_##k]
#define SWC(k) fake.count[PERF_COUNT_HW_MAX + PERF_COUNT_SW_##k]

#endif
