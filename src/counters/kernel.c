/* The real kernel under the counters' code (counters.c): perf_event_open(2)
 * and the calls on its file descriptors, and the facts that say why an
 * event cannot be counted (perf_event_paranoid, CAP_PERFMON, a hypervisor,
 * no core PMU). The tests put a fake PMU in its place. */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "base/fileutil.h"
#include "parse/sysinfo_parse.h"
#include "clock/clock_api.h"
#include "machine/sysinfo_api.h"

static int sys_open(void *ctx, struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
                    unsigned long flags)
{
    (void)ctx;
    /* glibc has no wrapper: the system call is the interface. */
    long fd = syscall(SYS_perf_event_open, a, pid, cpu, group_fd, flags);
    return fd < 0 ? -errno : (int)fd;
}

static long sys_read(void *ctx, int fd, void *buf, size_t len)
{
    (void)ctx;
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0)
            return (long)n;
        if (errno != EINTR)
            return -errno;
    }
}

static int sys_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
    (void)ctx;
    return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

static void sys_close(void *ctx, int fd)
{
    (void)ctx;
    close(fd);
}

/* Whether the kernel registered a PMU for the CPU's own counters. x86 calls
 * it "cpu" ("cpu_core" and "cpu_atom" on hybrid parts), arm64 "armv8_..."
 * and s390 "cpum_cf"; the core PMU of most architectures also takes the
 * fixed type PERF_TYPE_RAW. A virtual machine without a virtual PMU has
 * only the software ones ("software", "tracepoint", "breakpoint"). */
static int has_core_pmu(void)
{
    static const char dir[] = "/sys/bus/event_source/devices";
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (n[0] == '.')
            continue;
        if (!strcmp(n, "cpu") || !strncmp(n, "cpu_", 4) || !strncmp(n, "armv", 4) ||
            !strcmp(n, "cpum_cf")) {
            found = 1;
            break;
        }
        char path[512], text[32];
        long long type;
        snprintf(path, sizeof path, "%s/%s/type", dir, n);
        if (vn__read_text(path, text, sizeof text) > 0 && vn__parse_int(text, &type) == 0 &&
            type == PERF_TYPE_RAW)
            found = 1;
    }
    closedir(d);
    return found;
}

static void sys_facts(void *ctx, vn__perf_facts *f)
{
    (void)ctx;
    memset(f, 0, sizeof *f);
    char buf[64];
    long long v;
    f->paranoid = VN_SYSINFO_PARANOID_UNKNOWN;
    if (vn__read_text("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf) > 0 &&
        vn__parse_int(buf, &v) == 0)
        f->paranoid = (int)v;
    f->capable = -1;
    size_t cap = 64 * 1024;
    char *status = malloc(cap);
    if (status && vn__read_text("/proc/self/status", status, cap) > 0)
        f->capable = vn__parse_perf_capable(status);
    free(status);
    f->hypervisor = -1;
    vn_tsc_info t;
    if (vn_tsc_query(&t) == 0 || t.hypervisor >= 0) {
        f->hypervisor = t.hypervisor;
        if (t.hypervisor_vendor[0])
            vn__hypervisor_name(t.hypervisor_vendor, f->hypervisor_vendor,
                                sizeof f->hypervisor_vendor);
    }
    /* Xen says so here, also to guests whose CPUID does not. */
    if (vn__read_text("/sys/hypervisor/type", buf, sizeof buf) > 0 &&
        vn__parse_line(buf, f->hypervisor_vendor, sizeof f->hypervisor_vendor) > 0)
        f->hypervisor = 1;
    f->cpu_pmu = has_core_pmu();
}

const vn__perf_sys vn__perf_sys_real = {sys_open, sys_read, sys_ioctl, sys_close, sys_facts, NULL};
