/* The registry of generic events, the parser of --counters lists, and the
 * explanations of events that do not open. All pure: no system calls. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "machine/sysinfo_api.h"

/* The generic cache events are one config word: which cache, which kind of
 * access, and whether the hits or the misses are counted. */
#define CACHE(id, op, result) \
    ((uint64_t)(id) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

#define HW PERF_TYPE_HARDWARE
#define HWC PERF_TYPE_HW_CACHE
#define SW PERF_TYPE_SOFTWARE
#define XK VN_COUNTER_EXCLUDE_KERNEL
#define XU VN_COUNTER_EXCLUDE_USER

/* The names are perf's, so a reader of `perf stat` output knows them; the
 * user/kernel split uses perf's ":u" and ":k" suffixes for the same reason. */
static const vn_counter_event events[] = {
    {"cycles", HW, PERF_COUNT_HW_CPU_CYCLES, 0, "count", 1, 0, "cyc",
     "core clock cycles while the code ran; unlike the TSC they slow down and speed up with the "
     "core's frequency"},
    {"instructions", HW, PERF_COUNT_HW_INSTRUCTIONS, 0, "count", 1, 0, "insn",
     "instructions retired (completed), user and kernel mode"},
    {"branches", HW, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, "count", 1, 0, "br",
     "branch instructions retired"},
    {"branch-misses", HW, PERF_COUNT_HW_BRANCH_MISSES, 0, "count", 1, 0, "br-miss",
     "branches the predictor got wrong; each costs a pipeline refill (15-20 cycles on "
     "current cores)"},
    {"cache-references", HW, PERF_COUNT_HW_CACHE_REFERENCES, 0, "count", 1, 0, "cache-ref",
     "accesses the CPU counts as last-level cache references (what counts varies by CPU)"},
    {"cache-misses", HW, PERF_COUNT_HW_CACHE_MISSES, 0, "count", 1, 0, "cache-miss",
     "of those, the ones that missed the last-level cache and went to memory"},
    {"L1-dcache-loads", HWC,
     CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
     0, "count", 0, 0, "L1d-ld", "loads from the level 1 data cache"},
    {"L1-dcache-load-misses", HWC,
     CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
     0, "count", 0, 0, "L1d-miss", "loads that missed the level 1 data cache"},
    {"LLC-loads", HWC,
     CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS),
     0, "count", 0, 0, "LLC-ld", "loads that reached the last-level cache"},
    {"LLC-load-misses", HWC,
     CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
     0, "count", 0, 0, "LLC-miss", "loads that missed the last-level cache (served from memory)"},
    {"instructions:u", HW, PERF_COUNT_HW_INSTRUCTIONS, XK, "count", 0, 0, "insn:u",
     "instructions retired in user mode: the program's own code"},
    {"instructions:k", HW, PERF_COUNT_HW_INSTRUCTIONS, XU, "count", 0, 0, "insn:k",
     "instructions retired in kernel mode on the program's behalf: system calls, page faults"},
    {"task-clock", SW, PERF_COUNT_SW_TASK_CLOCK, 0, "ns", 0, 0, "task-clock",
     "CPU time the task ran, in ns (time spent waiting or sleeping is not counted)"},
    {"page-faults", SW, PERF_COUNT_SW_PAGE_FAULTS, 0, "count", 0, 0, "faults",
     "page faults: first touches of new memory, copy-on-write, pages read back in"},
    {"context-switches", SW, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, "count", 0, 1, "cs",
     "times the task left the CPU: sleeping, waiting, or preempted"},
    {"cpu-migrations", SW, PERF_COUNT_SW_CPU_MIGRATIONS, 0, "count", 0, 1, "migr",
     "times the task moved to another CPU (its caches stay behind)"},
};
#define NEVENTS (sizeof events / sizeof events[0])

const vn_counter_event *vn_counter_events(size_t *n)
{
    if (n)
        *n = NEVENTS;
    return events;
}

const vn_counter_event *vn_counter_event_find(const char *name)
{
    for (size_t i = 0; name && i < NEVENTS; i++)
        if (!strcmp(events[i].name, name))
            return &events[i];
    return NULL;
}

/* ---- Lists ------------------------------------------------------------------ */

static void say(char *why, size_t n, const char *fmt, const char *a, const char *b)
{
    if (why && n)
        snprintf(why, n, fmt, a, b);
}

/* "default, none, cycles, instructions, ...": every name a list may hold. */
static void all_names(char *out, size_t n)
{
    size_t len = (size_t)snprintf(out, n, "default, none");
    for (size_t i = 0; i < NEVENTS && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, ", %s", events[i].name);
}

/* A name that follows the vendors' spelling rather than perf's generic one:
 * INST_RETIRED.ANY, MEM_LOAD_RETIRED.L3_MISS, icl::CYCLE_ACTIVITY. The
 * generic names are all lower case without dots. */
static int looks_like_pmu_event(const char *s)
{
    if (strstr(s, "::") || strchr(s, '.'))
        return 1;
    for (; *s; s++)
        if (isupper((unsigned char)*s))
            return 1;
    return 0;
}

static int valid_chars(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_.:=-/", *s))
            return 0;
    return 1;
}

static int append(vn__ctr_spec *out, size_t max, size_t *n, const vn__ctr_spec *s)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(out[i].name, s->name))
            return 0;
    if (*n >= max)
        return VN_ERANGE;
    out[(*n)++] = *s;
    return 0;
}

static void spec_of(const vn_counter_event *e, vn__ctr_spec *s)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", e->name);
    s->generic = e;
    s->type = e->type;
    s->config = e->config;
    s->exclude = e->exclude;
    s->kernel_side = e->kernel_side;
    s->unit = e->unit;
    s->hardware = e->type != PERF_TYPE_SOFTWARE;
}

int vn__ctr_parse_list(const char *list, vn__ctr_resolver resolve, vn__ctr_spec *out, size_t max,
                       size_t *n, char *why, size_t whylen)
{
    *n = 0;
    if (!list)
        list = "default";
    char names[1024];
    int rc = 0;
    for (const char *p = list;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && isspace((unsigned char)*p))
            p++, len--;
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        char name[VN_COUNTER_NAME_MAX];
        if (len == 0) {
            say(why, whylen, "--counters has an empty name in '%s'%s", list, "");
            return VN_EINVAL;
        }
        if (len >= sizeof name) {
            say(why, whylen, "--counters has a name longer than 63 characters in '%s'%s", list, "");
            return VN_EINVAL;
        }
        memcpy(name, p, len);
        name[len] = '\0';

        vn__ctr_spec s;
        const vn_counter_event *g;
        if (!strcmp(name, "none")) {
            if (strcmp(list, "none") != 0) {
                say(why, whylen, "--counters: 'none' cannot be combined with other names%s%s", "",
                    "");
                return VN_EINVAL;
            }
        } else if (!strcmp(name, "default")) {
            for (size_t i = 0; i < NEVENTS && rc == 0; i++)
                if (events[i].is_default) {
                    spec_of(&events[i], &s);
                    rc = append(out, max, n, &s);
                }
        } else if ((g = vn_counter_event_find(name)) != NULL) {
            spec_of(g, &s);
            rc = append(out, max, n, &s);
        } else if (!valid_chars(name)) {
            say(why, whylen, "--counters: '%s' is not an event name%s", name, "");
            return VN_EINVAL;
        } else {
            memset(&s, 0, sizeof s);
            snprintf(s.name, sizeof s.name, "%s", name);
            s.unit = "count";
            s.hardware = 1;
            int found = resolve && resolve(name, &s) == 0;
            if (!found && !resolve && looks_like_pmu_event(name)) {
                /* A vendor's name is not a typo: say what is missing. */
                all_names(names, sizeof names);
                say(why, whylen,
                    "'%s' is a named PMU event, which needs libpfm4, and this vernier was built "
                    "without it (install libpfm4-dev and rebuild); generic names: %s",
                    name, names + strlen("default, none, "));
                return VN_ENOTSUP;
            }
            if (!found && !looks_like_pmu_event(name)) {
                all_names(names, sizeof names);
                say(why, whylen, "unknown counter '%s' (counters: %s)", name, names);
                return VN_ENOENT;
            }
            if (!found)
                s.unresolved = 1;
            rc = append(out, max, n, &s);
        }
        if (rc == VN_ERANGE) {
            char m[16];
            snprintf(m, sizeof m, "%zu", max);
            say(why, whylen, "--counters names more than %s events%s", m, "");
            return rc;
        }
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

int vn_counters_check(const char *list, char *why, size_t whylen)
{
    vn__ctr_spec specs[VN_COUNTERS_MAX];
    size_t n;
    return vn__ctr_parse_list(list, vn__ctr_pfm_resolver(), specs, VN_COUNTERS_MAX, &n, why,
                              whylen);
}

/* ---- Explanations --------------------------------------------------------------- */

VN_PRINTF(3, 4)
static void put(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

static const char vm_fix[] =
    "run on bare metal, or give the guest a virtual PMU (QEMU/KVM: -cpu host with pmu=on; "
    "VMware: virtualize CPU performance counters; cloud: an instance type that passes the PMU "
    "through)";

/* What a virtual machine's missing PMU looks like, and how to get one: the
 * cause, or VN_COUNTER_OPENED when the machine has a PMU. */
static vn_counter_cause no_pmu(const vn__perf_facts *f, char *reason, size_t rlen, char *fix,
                               size_t flen)
{
    if (f->cpu_pmu != 0)
        return VN_COUNTER_OPENED;
    if (f->hypervisor == 1) {
        if (f->hypervisor_vendor[0])
            put(reason, rlen, "the hypervisor (%s) exposes no PMU to this virtual machine",
                f->hypervisor_vendor);
        else
            put(reason, rlen, "the hypervisor exposes no PMU to this virtual machine");
        put(fix, flen, "%s", vm_fix);
        return VN_COUNTER_VM_NO_PMU;
    }
    put(reason, rlen, "the kernel has no PMU driver for this CPU");
    put(fix, flen, "a kernel that supports this CPU's performance counters");
    return VN_COUNTER_NO_PMU_DRIVER;
}

vn_counter_cause vn__ctr_explain(const vn__ctr_spec *s, int err, const vn__perf_facts *f,
                                 char *reason, size_t rlen, char *fix, size_t flen)
{
    put(reason, rlen, "%s", "");
    put(fix, flen, "%s", "");
    if (s->unresolved) {
        put(reason, rlen, "libpfm4 knows no event '%s' on this machine's PMUs (%s)", s->name,
            s->pmus[0] ? s->pmus : "none found");
        /* Without a PMU no vendor name can be found: say so in the fix. */
        if (f->cpu_pmu == 0 && f->hypervisor == 1)
            put(fix, flen, "%s", vm_fix);
        else
            put(fix, flen, "check the name against this CPU's events (perf list, or libpfm4's "
                           "showevtinfo)");
        return VN_COUNTER_UNRESOLVED;
    }
    int needs_kernel = !(s->exclude & VN_COUNTER_EXCLUDE_KERNEL);
    switch (err) {
    case EACCES:
    case EPERM:
        if (f->paranoid != VN_SYSINFO_PARANOID_UNKNOWN && f->capable != 1 &&
            f->paranoid >= (needs_kernel ? 2 : 3)) {
            put(reason, rlen,
                "perf_event_paranoid is %d, which keeps unprivileged processes from counting %s",
                f->paranoid, needs_kernel ? "kernel-mode events" : "any event");
            put(fix, flen, "sysctl kernel.perf_event_paranoid=%d (or give the program CAP_PERFMON)",
                needs_kernel ? 1 : 2);
            return VN_COUNTER_PARANOID;
        }
        put(reason, rlen,
            "perf_event_open was refused although perf_event_paranoid allows it: a seccomp "
            "filter (as in containers) or a security module blocks it");
        put(fix, flen,
            "allow perf_event_open: for a container, --cap-add PERFMON (CAP_SYS_ADMIN "
            "before Linux 5.8) or a seccomp profile that permits it");
        return VN_COUNTER_BLOCKED;
    case ENOSYS:
        put(reason, rlen, "this kernel has no perf events (CONFIG_PERF_EVENTS is off)");
        put(fix, flen, "a kernel built with CONFIG_PERF_EVENTS=y");
        return VN_COUNTER_NO_PERF_EVENTS;
    case EMFILE:
    case ENFILE:
        put(reason, rlen, "no file descriptors left (each event takes one)");
        put(fix, flen, "raise the limit (ulimit -n)");
        return VN_COUNTER_NO_FDS;
    case EBUSY:
        put(reason, rlen, "another program holds the PMU exclusively");
        put(fix, flen, "stop the other profiler");
        return VN_COUNTER_PMU_BUSY;
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
    case EINVAL:
        if (s->hardware) {
            vn_counter_cause c = no_pmu(f, reason, rlen, fix, flen);
            if (c != VN_COUNTER_OPENED)
                return c;
            put(fix, flen, "choose another event (perf list shows this CPU's)");
            if (err == EOPNOTSUPP) {
                put(reason, rlen,
                    "this CPU's PMU cannot count the event as asked (for example user and kernel "
                    "mode apart)");
                return VN_COUNTER_MODE_UNSUPPORTED;
            }
            if (err == EINVAL) {
                put(reason, rlen, "the kernel rejected the event's settings on this CPU");
                return VN_COUNTER_REJECTED;
            }
            put(reason, rlen, "this CPU's PMU has no such event");
            return VN_COUNTER_NO_EVENT;
        }
        put(reason, rlen, "this kernel does not have this software event");
        put(fix, flen, "a newer kernel");
        return VN_COUNTER_NO_SOFTWARE_EVENT;
    default:
        put(reason, rlen, "perf_event_open failed: %s", strerror(err));
        return VN_COUNTER_OTHER_ERRNO;
    }
}
