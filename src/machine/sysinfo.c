/* The machine snapshot: reads /proc and /sys (under a root directory, so the
 * tests can point it at fixture trees), hands the text to the pure parsers in
 * sysinfo_parse.c, and adds what only system calls and CPUID know. A file the
 * running kernel does not have reads as unknown, never as a failure: most of
 * these files are optional (cpufreq is absent in most virtual machines, SMT
 * control in old kernels, intel_pstate on AMD). */
#include "machine/sysinfo_api.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/fileutil.h"
#include "parse/sysinfo_parse.h"
#include "clock/clock_api.h"

void vn__sysinfo_reset(vn_sysinfo *s)
{
    memset(s, 0, sizeof *s);
    s->logical_cpus = -1;
    s->physical_cores = -1;
    s->sockets = -1;
    s->smt = -1;
    s->mem_total_bytes = -1;
    s->mem_available_bytes = -1;
    s->turbo = -1;
    s->isolcpus_count = -1;
    s->nohz_full_count = -1;
    s->aslr = -1;
    s->perf_event_paranoid = VN_SYSINFO_PARANOID_UNKNOWN;
    s->perf_capable = -1;
    s->hypervisor = -1;
    s->loadavg[0] = s->loadavg[1] = s->loadavg[2] = NAN;
    s->tsc_invariant = -1;
    s->latency_request_us = -1;
}

/* Caps on what one file may hold. sysfs attributes are at most a page;
 * /proc/cpuinfo is about 1.5 KiB per CPU, so 4 MiB covers thousands of CPUs
 * and still stops a runaway read of something that is not what we think. */
#define SMALL_FILE_MAX 4096
#define CPUINFO_MAX ((size_t)4 << 20)

/* The root being read, with no trailing '/' (so "/" becomes ""). */
typedef struct reader {
    char root[PATH_MAX / 2];
} reader;

/* Copies src into dst, cutting it to fit: the fields are fixed-size and a
 * cut name is better than none. */
static void copy_str(char *dst, size_t n, const char *src)
{
    size_t len = strnlen(src, n - 1);
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* Like copy_str for a CPU list, but a list that does not fit ends in "..."
 * so that a reader never takes a cut list ("0-1" of "0-127") for the whole. */
static void copy_cpulist(char *dst, size_t n, const char *src)
{
    copy_str(dst, n, src);
    if (strlen(src) >= n && n > 4)
        memcpy(dst + n - 4, "...", 4);
}

static int make_path(const reader *r, const char *rel, char *out, size_t n)
{
    int len = snprintf(out, n, "%s/%s", r->root, rel);
    return len < 0 || (size_t)len >= n ? VN_ERANGE : 0;
}

/* Reads up to max - 1 bytes of root/rel into buf, NUL-terminated. Returns
 * the length, or a negative code when the file cannot be read. */
static long read_into(const reader *r, const char *rel, char *buf, size_t max)
{
    char path[PATH_MAX];
    if (make_path(r, rel, path, sizeof path))
        return VN_ERANGE;
    return vn__read_text(path, buf, max);
}

/* Reads a whole (bounded) file into a new buffer; NULL when unreadable.
 * A file longer than max is cut: the parsers then see a truncated last
 * entry, which they treat like any other incomplete text. */
static char *read_alloc(const reader *r, const char *rel, size_t max)
{
    size_t cap = 64 * 1024;
    if (cap > max)
        cap = max;
    for (;;) {
        char *buf = malloc(cap);
        if (!buf)
            return NULL;
        long n = read_into(r, rel, buf, cap);
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if ((size_t)n + 1 < cap || cap >= max)
            return buf;
        /* It filled the buffer: read again into a larger one, since a /proc
         * file cannot be resumed reliably where the last read stopped. */
        free(buf);
        cap = cap * 4 > max ? max : cap * 4;
    }
}

/* A small file's first line into out; 0 when it does not exist. */
static int read_line(const reader *r, const char *rel, char *out, size_t n)
{
    char buf[SMALL_FILE_MAX];
    if (read_into(r, rel, buf, sizeof buf) < 0) {
        if (n)
            out[0] = '\0';
        return 0;
    }
    vn__parse_line(buf, out, n);
    return 1;
}

/* A small file holding one integer; 0 when missing or not a number. */
static int read_ll(const reader *r, const char *rel, long long *out)
{
    char buf[SMALL_FILE_MAX];
    if (read_into(r, rel, buf, sizeof buf) < 0)
        return 0;
    return vn__parse_int(buf, out) == 0;
}

/* A small integer in [lo, hi] or the fallback. */
static int read_int_in(const reader *r, const char *rel, long long lo, long long hi, int fallback)
{
    long long v;
    if (!read_ll(r, rel, &v) || v < lo || v > hi)
        return fallback;
    return (int)v;
}

/* The first CPU of a CPU-list file, or -1. */
static int read_first_cpu(const reader *r, const char *rel)
{
    char buf[SMALL_FILE_MAX];
    int first;
    if (read_into(r, rel, buf, sizeof buf) < 0)
        return -1;
    return vn__parse_cpulist(buf, &first, 1) >= 1 ? first : -1;
}

static void cpu_path(char *out, size_t n, int cpu, const char *rest)
{
    snprintf(out, n, "sys/devices/system/cpu/cpu%d/%s", cpu, rest);
}

/* Counts cores and sockets from each online CPU's topology: a CPU is the
 * first of its core (or package) exactly once per core (or package), which
 * holds without assuming core ids are unique or dense. The newer file names
 * are tried first; older kernels only have the sibling lists. */
static void read_topology(const reader *r, const int *cpus, int n, vn_sysinfo *s)
{
    int cores = 0, sockets = 0, known = 1;
    for (int i = 0; i < n && known; i++) {
        char rel[128];
        cpu_path(rel, sizeof rel, cpus[i], "topology/core_cpus_list");
        int core_first = read_first_cpu(r, rel);
        if (core_first < 0) {
            cpu_path(rel, sizeof rel, cpus[i], "topology/thread_siblings_list");
            core_first = read_first_cpu(r, rel);
        }
        cpu_path(rel, sizeof rel, cpus[i], "topology/package_cpus_list");
        int pkg_first = read_first_cpu(r, rel);
        if (pkg_first < 0) {
            cpu_path(rel, sizeof rel, cpus[i], "topology/core_siblings_list");
            pkg_first = read_first_cpu(r, rel);
        }
        if (core_first < 0 || pkg_first < 0)
            known = 0;
        cores += core_first == cpus[i];
        sockets += pkg_first == cpus[i];
    }
    if (known && n > 0 && cores > 0 && sockets > 0) {
        s->physical_cores = cores;
        s->sockets = sockets;
    }
}

static void cache_path(char *out, size_t n, int cpu, int index, const char *name)
{
    snprintf(out, n, "sys/devices/system/cpu/cpu%d/cache/index%d/%s", cpu, index, name);
}

static void read_caches(const reader *r, int cpu, vn_sysinfo *s)
{
    /* One CPU's caches stand for all: mixed layouts (hybrid cores) exist,
     * but the snapshot names the caches of the first online CPU, where a
     * pinned benchmark usually runs. */
    for (int i = 0; i < 16 && s->ncaches < VN_SYSINFO_MAX_CACHES; i++) {
        char rel[128], buf[SMALL_FILE_MAX];
        long long level;
        cache_path(rel, sizeof rel, cpu, i, "level");
        if (!read_ll(r, rel, &level))
            break;
        vn_cache_info *c = &s->caches[s->ncaches];
        c->level = level >= 0 && level <= 9 ? (int)level : -1;
        cache_path(rel, sizeof rel, cpu, i, "type");
        read_line(r, rel, c->type, sizeof c->type);
        c->size_bytes = -1;
        cache_path(rel, sizeof rel, cpu, i, "size");
        if (read_into(r, rel, buf, sizeof buf) >= 0 && vn__parse_size(buf, &c->size_bytes))
            c->size_bytes = -1;
        c->shared_cpus = -1;
        cache_path(rel, sizeof rel, cpu, i, "shared_cpu_list");
        if (read_into(r, rel, buf, sizeof buf) >= 0) {
            int count = vn__parse_cpulist(buf, NULL, 0);
            c->shared_cpus = count > 0 ? count : -1;
        }
        s->ncaches++;
    }
}

static void read_khz(const reader *r, int cpu, const char *name, long long *out)
{
    char rel[128];
    cpu_path(rel, sizeof rel, cpu, name);
    long long v;
    *out = read_ll(r, rel, &v) && v >= 0 ? v : -1;
}

static int read_cpufreq(const reader *r, const int *cpus, int n, vn_sysinfo *s)
{
    if (n <= 0)
        return 0;
    s->cpus = calloc((size_t)n, sizeof *s->cpus);
    if (!s->cpus)
        return VN_ENOMEM;
    s->ncpus = n;
    for (int i = 0; i < n; i++) {
        vn_cpu_freq *f = &s->cpus[i];
        char rel[128];
        f->cpu = cpus[i];
        cpu_path(rel, sizeof rel, cpus[i], "cpufreq/scaling_governor");
        read_line(r, rel, f->governor, sizeof f->governor);
        cpu_path(rel, sizeof rel, cpus[i], "cpufreq/scaling_driver");
        read_line(r, rel, f->driver, sizeof f->driver);
        read_khz(r, cpus[i], "cpufreq/scaling_cur_freq", &f->cur_khz);
        read_khz(r, cpus[i], "cpufreq/scaling_min_freq", &f->min_khz);
        read_khz(r, cpus[i], "cpufreq/scaling_max_freq", &f->max_khz);
    }
    return 0;
}

static void read_turbo(const reader *r, vn_sysinfo *s)
{
    /* intel_pstate has its own switch and ignores cpufreq/boost; other
     * drivers (acpi-cpufreq, amd-pstate) use the global cpufreq/boost, and
     * since Linux 6.11 amd-pstate may offer only the per-policy file. */
    long long v;
    if (read_ll(r, "sys/devices/system/cpu/intel_pstate/no_turbo", &v) && (v == 0 || v == 1)) {
        s->turbo = v == 0;
        snprintf(s->turbo_source, sizeof s->turbo_source, "intel_pstate/no_turbo");
    } else if (read_ll(r, "sys/devices/system/cpu/cpufreq/boost", &v) && (v == 0 || v == 1)) {
        s->turbo = v == 1;
        snprintf(s->turbo_source, sizeof s->turbo_source, "cpufreq/boost");
    } else if (s->ncpus > 0) {
        char rel[128];
        cpu_path(rel, sizeof rel, s->cpus[0].cpu, "cpufreq/boost");
        if (read_ll(r, rel, &v) && (v == 0 || v == 1)) {
            s->turbo = v == 1;
            snprintf(s->turbo_source, sizeof s->turbo_source, "cpu%d/cpufreq/boost",
                     s->cpus[0].cpu);
        }
    }
}

/* Fills list/count from a sysfs CPU-list file; 0 when the file is missing. */
static int read_cpuset_file(const reader *r, const char *rel, char *list, size_t n, int *count)
{
    char buf[SMALL_FILE_MAX];
    if (read_into(r, rel, buf, sizeof buf) < 0)
        return 0;
    char line[256];
    vn__parse_line(buf, line, sizeof line);
    /* nohz_full prints "(null)" on kernels built with NO_HZ_FULL when the
     * boot line did not ask for it. */
    if (strcmp(line, "(null)") == 0)
        line[0] = '\0';
    int c = vn__parse_cpulist(line, NULL, 0);
    if (c < 0)
        return 0;
    copy_cpulist(list, n, line);
    *count = c;
    return 1;
}

static void read_isolation(const reader *r, vn_sysinfo *s)
{
    char *cmdline = read_alloc(r, "proc/cmdline", SMALL_FILE_MAX);
    char value[256];

    /* The sysfs files are what the kernel applied; the boot line is what
     * was asked for, kept as a fallback for kernels without the files. */
    if (!read_cpuset_file(r, "sys/devices/system/cpu/isolated", s->isolcpus, sizeof s->isolcpus,
                          &s->isolcpus_count) && cmdline) {
        if (vn__cmdline_param(cmdline, "isolcpus", value, sizeof value)) {
            const char *list = vn__isolcpus_list(value);
            int c = vn__parse_cpulist(list, NULL, 0);
            if (c >= 0) {
                copy_cpulist(s->isolcpus, sizeof s->isolcpus, list);
                s->isolcpus_count = c;
            }
        } else {
            s->isolcpus_count = 0;
        }
    }
    if (!read_cpuset_file(r, "sys/devices/system/cpu/nohz_full", s->nohz_full,
                          sizeof s->nohz_full, &s->nohz_full_count) && cmdline) {
        if (vn__cmdline_param(cmdline, "nohz_full", value, sizeof value)) {
            int c = vn__parse_cpulist(value, NULL, 0);
            if (c >= 0) {
                copy_cpulist(s->nohz_full, sizeof s->nohz_full, value);
                s->nohz_full_count = c;
            }
        } else {
            s->nohz_full_count = 0;
        }
    }
    free(cmdline);
}

/* Reads everything that files under r tell into s (already reset). */
static int collect_files(const reader *r, vn_sysinfo *s)
{
    char buf[SMALL_FILE_MAX];

    read_line(r, "proc/sys/kernel/hostname", s->hostname, sizeof s->hostname);
    read_line(r, "proc/sys/kernel/osrelease", s->kernel, sizeof s->kernel);
    read_line(r, "proc/sys/kernel/version", s->kernel_version, sizeof s->kernel_version);

    /* CPU identity and the fallbacks for topology come from cpuinfo. */
    vn__cpuinfo ci;
    memset(&ci, 0, sizeof ci);
    ci.physical_cores = ci.sockets = ci.siblings = ci.cpu_cores = -1;
    char *cpuinfo = read_alloc(r, "proc/cpuinfo", CPUINFO_MAX);
    if (cpuinfo) {
        int rc = vn__parse_cpuinfo(cpuinfo, &ci);
        if (rc) {
            free(cpuinfo);
            return rc;
        }
        copy_str(s->cpu_model, sizeof s->cpu_model, ci.model);
        copy_str(s->cpu_vendor, sizeof s->cpu_vendor, ci.vendor);
        copy_str(s->microcode, sizeof s->microcode, ci.microcode);
        /* Only x86 has these flags. On arm64 their absence from "Features"
         * says nothing, so both facts stay unknown there rather than "no".
         * An invariant TSC shows as a constant rate across P-states plus no
         * stop in deep C-states. */
        if (ci.has_x86_flags) {
            s->hypervisor = vn__cpuinfo_has_flag(cpuinfo, "hypervisor");
            s->tsc_invariant = vn__cpuinfo_has_flag(cpuinfo, "constant_tsc") == 1 &&
                               vn__cpuinfo_has_flag(cpuinfo, "nonstop_tsc") == 1;
        }
        free(cpuinfo);
    }

    /* The online CPUs name the per-CPU directories to read. */
    int *cpus = NULL, ncpus = 0;
    if (read_into(r, "sys/devices/system/cpu/online", buf, sizeof buf) >= 0) {
        int n = vn__parse_cpulist(buf, NULL, 0);
        if (n > 0) {
            cpus = malloc((size_t)n * sizeof *cpus);
            if (!cpus)
                return VN_ENOMEM;
            ncpus = vn__parse_cpulist(buf, cpus, n);
        }
    }
    if (ncpus > 0)
        s->logical_cpus = ncpus;
    else if (ci.processors > 0)
        s->logical_cpus = ci.processors;

    read_topology(r, cpus, ncpus, s);
    if (s->physical_cores < 0 && ci.physical_cores > 0) {
        s->physical_cores = ci.physical_cores;
        s->sockets = ci.sockets;
    }

    /* smt/active is the kernel's own answer (Linux 4.19+); before that,
     * more logical CPUs than cores means sibling threads are running. */
    long long v;
    if (read_ll(r, "sys/devices/system/cpu/smt/active", &v) && (v == 0 || v == 1))
        s->smt = (int)v;
    else if (s->logical_cpus > 0 && s->physical_cores > 0)
        s->smt = s->logical_cpus > s->physical_cores;
    else if (ci.siblings > 0 && ci.cpu_cores > 0)
        s->smt = ci.siblings > ci.cpu_cores;

    read_caches(r, ncpus > 0 ? cpus[0] : 0, s);

    char *meminfo = read_alloc(r, "proc/meminfo", 64 * 1024);
    if (meminfo) {
        vn__parse_meminfo(meminfo, &s->mem_total_bytes, &s->mem_available_bytes);
        free(meminfo);
    }

    int rc = read_cpufreq(r, cpus, ncpus, s);
    free(cpus);
    if (rc)
        return rc;
    read_turbo(r, s);
    read_isolation(r, s);

    s->aslr = read_int_in(r, "proc/sys/kernel/randomize_va_space", 0, 2, -1);
    s->perf_event_paranoid = read_int_in(r, "proc/sys/kernel/perf_event_paranoid", -1, 4,
                                         VN_SYSINFO_PARANOID_UNKNOWN);
    char *status = read_alloc(r, "proc/self/status", 64 * 1024);
    if (status) {
        s->perf_capable = vn__parse_perf_capable(status);
        free(status);
    }

    /* Xen publishes itself here (also to dom0, whose cpuinfo may lack the
     * hypervisor flag). */
    char hv[32];
    if (read_line(r, "sys/hypervisor/type", hv, sizeof hv) && hv[0]) {
        s->hypervisor = 1;
        copy_str(s->hypervisor_vendor, sizeof s->hypervisor_vendor, hv);
    }

    if (read_into(r, "proc/loadavg", buf, sizeof buf) >= 0)
        vn__parse_loadavg(buf, s->loadavg);

    read_line(r, "sys/devices/system/clocksource/clocksource0/current_clocksource",
              s->clocksource, sizeof s->clocksource);
    if (read_into(r, "sys/devices/system/clocksource/clocksource0/available_clocksource", buf,
                  sizeof buf) >= 0)
        vn__parse_words(buf, s->clocksource_available, sizeof s->clocksource_available);

    read_line(r, "sys/devices/system/cpu/cpuidle/current_driver", s->idle_driver,
              sizeof s->idle_driver);
    if (!read_line(r, "sys/devices/system/cpu/cpuidle/current_governor", s->idle_governor,
                   sizeof s->idle_governor))
        read_line(r, "sys/devices/system/cpu/cpuidle/current_governor_ro", s->idle_governor,
                  sizeof s->idle_governor);
    for (int i = 0; i < VN_SYSINFO_MAX_IDLE; i++) {
        char rel[96];
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu0/cpuidle/state%d/name", i);
        if (!read_line(r, rel, s->idle[i].name, sizeof s->idle[i].name))
            break;
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu0/cpuidle/state%d/latency", i);
        s->idle[i].exit_us = read_int_in(r, rel, 0, 100000000, -1);
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu0/cpuidle/state%d/disable", i);
        s->idle[i].disabled = read_int_in(r, rel, 0, 1, 0);
        s->nidle = i + 1;
    }
    /* Four bytes, the strictest request in force. Opening the file adds a
     * request of "no limit" for as long as it is open, which changes
     * nothing. */
    char path[PATH_MAX];
    if (make_path(r, "dev/cpu_dma_latency", path, sizeof path) == 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        int32_t v;
        if (fd >= 0 && read(fd, &v, sizeof v) == (ssize_t)sizeof v && v >= 0)
            s->latency_request_us = v;
        if (fd >= 0)
            close(fd);
    }
    return 0;
}

static int reader_init(reader *r, const char *root)
{
    if (!root || !*root)
        return VN_EINVAL;
    size_t len = strlen(root);
    while (len > 0 && root[len - 1] == '/')
        len--;
    if (len >= sizeof r->root)
        return VN_ERANGE;
    memcpy(r->root, root, len);
    r->root[len] = '\0';
    struct stat st;
    if (stat(root, &st) != 0)
        return -errno;
    if (!S_ISDIR(st.st_mode))
        return -ENOTDIR;
    return 0;
}

/* What only system calls and CPUID know: added to the file snapshot of the
 * running machine, never to a fixture tree's. */
static void add_live_facts(vn_sysinfo *s)
{
    struct utsname u;
    if (uname(&u) == 0) {
        copy_str(s->kernel, sizeof s->kernel, u.release);
        copy_str(s->kernel_version, sizeof s->kernel_version, u.version);
        copy_str(s->arch, sizeof s->arch, u.machine);
        if (!s->hostname[0])
            copy_str(s->hostname, sizeof s->hostname, u.nodename);
    }
    if (!s->hostname[0] && gethostname(s->hostname, sizeof s->hostname) != 0)
        s->hostname[0] = '\0';
    s->hostname[sizeof s->hostname - 1] = '\0';

    /* CPUID is the hardware's own word, so it overrides what cpuinfo's flags
     * implied; a field it leaves unknown keeps the cpuinfo answer. */
    vn_tsc_info t;
    if (vn_tsc_query(&t) == 0) {
        if (t.hypervisor >= 0 && s->hypervisor != 1)
            s->hypervisor = t.hypervisor;
        if (t.hypervisor_vendor[0] && !s->hypervisor_vendor[0])
            vn__hypervisor_name(t.hypervisor_vendor, s->hypervisor_vendor,
                                sizeof s->hypervisor_vendor);
        if (t.invariant >= 0)
            s->tsc_invariant = t.invariant;
        if (!s->cpu_vendor[0] && t.cpu_vendor[0])
            copy_str(s->cpu_vendor, sizeof s->cpu_vendor, t.cpu_vendor);
    }
}

static int collect(const char *root, int live, vn_sysinfo *out)
{
    if (!out)
        return VN_EINVAL;
    reader r;
    int rc = reader_init(&r, root);
    if (rc)
        return rc;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    rc = collect_files(&r, &s);
    if (rc) {
        vn_sysinfo_free(&s);
        return rc;
    }
    if (live)
        add_live_facts(&s);
    vn_sysinfo_derive_warnings(&s);
    *out = s;
    return 0;
}

int vn_sysinfo_collect_at(const char *root, vn_sysinfo *out) { return collect(root, 0, out); }

int vn_sysinfo_collect(vn_sysinfo *out) { return collect("/", 1, out); }

void vn_sysinfo_free(vn_sysinfo *s)
{
    if (!s)
        return;
    free(s->cpus);
    s->cpus = NULL;
    s->ncpus = 0;
    free(s->counters);
    s->counters = NULL;
}
