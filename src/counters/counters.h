/* Performance counters through perf_event_open: time says how long, counters
 * say why (cycles, instructions, branch and cache misses, page faults).
 *
 *     vn_counters *c;
 *     char why[256];
 *     if (vn_counters_open("instructions,page-faults", 0, 0, &c, why, sizeof why) == 0) {
 *         vn_counts a, b;
 *         vn_counters_enable(c);
 *         vn_counters_read(c, &a);
 *         work();
 *         vn_counters_read(c, &b);
 *         ...                                  // b.v[i].value - a.v[i].value, scaled
 *         vn_counters_destroy(c);
 *     }
 *
 * An event this machine cannot count is never an error: it is left out, and
 * vn_counters_info() says which ones and why, with the fix. Only a list that
 * names no known event is an error (VN_ENOENT, VN_ENOTSUP). */
#ifndef VERNIER_COUNTERS_H
#define VERNIER_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vernier/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many events in one list; longer names are refused. */
#define VN_COUNTERS_MAX 32
#define VN_COUNTER_NAME_MAX 64

/* ---- The events vernier knows by a generic name ----------------------------- */

enum {
    VN_COUNTER_EXCLUDE_USER = 1u << 0,   /* counts kernel mode only (":k") */
    VN_COUNTER_EXCLUDE_KERNEL = 1u << 1, /* counts user mode only (":u") */
};

/* One row of the registry. type and config are perf_event_attr's (the
 * PERF_TYPE_* and PERF_COUNT_* values of <linux/perf_event.h>). */
typedef struct vn_counter_event {
    const char *name;        /* what --counters takes: "instructions", "instructions:u" */
    uint32_t type;
    uint64_t config;
    unsigned exclude;        /* VN_COUNTER_EXCLUDE_* */
    const char *unit;        /* "count", or "ns" for task-clock */
    int is_default;          /* one of the events "default" stands for */
    int kernel_side;         /* counted in kernel code only (context switches): a
                                user-only fallback would always read 0 */
    const char *column;      /* short console header: "insn", "faults" */
    const char *description;
} vn_counter_event;

/* The registry, in the order lists and reports use. */
const vn_counter_event *vn_counter_events(size_t *n);
/* The generic event of that name, or NULL. */
const vn_counter_event *vn_counter_event_find(const char *name);
/* 1 when this build resolves named PMU events (libpfm4), such as
 * INST_RETIRED.ANY or MEM_LOAD_RETIRED.L3_MISS. */
int vn_counters_have_pfm(void);

/* Checks a list without opening anything: "default", "none", and names
 * separated by commas ("default,page-faults" adds to the defaults). 0 when
 * it is good; VN_ENOENT for an unknown name, VN_ENOTSUP for a named PMU
 * event in a build without libpfm4, VN_ERANGE for too many events, VN_EINVAL
 * for a malformed list; then why holds one line saying what to do. */
int vn_counters_check(const char *list, char *why, size_t whylen);

/* ---- What opened and what did not ------------------------------------------- */

/* Why an event is missing, one value per explanation, for code and tests
 * that must not read the sentence; the reason and the fix say it to people. */
typedef enum vn_counter_cause {
    VN_COUNTER_OPENED = 0,       /* not missing */
    VN_COUNTER_VM_NO_PMU,        /* the hypervisor exposes no PMU to the guest */
    VN_COUNTER_NO_PMU_DRIVER,    /* bare metal, but the kernel has no driver for the PMU */
    VN_COUNTER_NO_EVENT,         /* the PMU has no such event */
    VN_COUNTER_MODE_UNSUPPORTED, /* the PMU cannot count it as asked (user and kernel apart) */
    VN_COUNTER_REJECTED,         /* the kernel rejected the event's settings */
    VN_COUNTER_NO_SOFTWARE_EVENT, /* the kernel lacks this software event */
    VN_COUNTER_UNRESOLVED,       /* a named PMU event libpfm4 does not know here */
    VN_COUNTER_PARANOID,         /* perf_event_paranoid forbids it without privileges */
    VN_COUNTER_BLOCKED,          /* refused although allowed: seccomp or a security module */
    VN_COUNTER_NO_PERF_EVENTS,   /* the kernel has no perf events at all */
    VN_COUNTER_NO_FDS,           /* out of file descriptors */
    VN_COUNTER_PMU_BUSY,         /* another program holds the PMU exclusively */
    VN_COUNTER_OTHER_ERRNO,      /* any other errno: the reason names it */
} vn_counter_cause;

typedef struct vn_counter_status {
    char name[VN_COUNTER_NAME_MAX];
    const char *unit;        /* "count" or "ns" */
    int opened;              /* 1 counting; 0 missing */
    int group;               /* the group it is read with, -1 when missing */
    int user_only;           /* the kernel-mode part is not counted (perf_event_paranoid) */
    int err;                 /* errno of the failed open when missing, else 0 */
    vn_counter_cause cause;  /* why it is missing, VN_COUNTER_OPENED when opened */
    char reason[192];        /* why it is missing, "" when opened */
    char fix[192];           /* what would make it work, "" when nothing can */
} vn_counter_status;

typedef struct vn_counter_info {
    char requested[256];     /* the list as given; "" when counters were off */
    size_t n;                /* events asked for, after "default" was expanded */
    vn_counter_status ev[VN_COUNTERS_MAX];
    size_t nopened;
    int ngroups;             /* groups the opened events are read in */
    int split;               /* 1: the hardware events did not fit one group */
    int max_group;           /* then: hardware events per group */
    int grouped;             /* 1: read with PERF_FORMAT_GROUP; 0: one read per event */
} vn_counter_info;

/* ---- Reading ------------------------------------------------------------------ */

/* One event at one moment, as the kernel gives it: the count and how long
 * the event was enabled and actually counting (running < enabled when the
 * kernel time-shared the hardware counters between groups). */
typedef struct vn_count {
    uint64_t value;
    uint64_t enabled;        /* ns */
    uint64_t running;        /* ns */
} vn_count;

/* One read of every opened event, in the order vn_counters_name() gives. */
typedef struct vn_counts {
    size_t n;
    vn_count v[VN_COUNTERS_MAX];
} vn_counts;

/* A count scaled to the whole enabled time: value * enabled / running. Sets
 * *scaled (when not NULL) to 1 when running < enabled, that is when the
 * value is an estimate. When running is 0 the event never counted and the
 * value is unknown: NAN, never 0 and never infinity. */
double vn_counter_scale(uint64_t value, uint64_t enabled, uint64_t running, int *scaled);

/* ---- Handles ----------------------------------------------------------------- */

typedef struct vn_counters vn_counters;

enum {
    /* pid is a child that has not called exec yet: the events start
     * disabled and are enabled by the exec (enable_on_exec), and count the
     * child's own children too (inherit). See vn_counters_open_child(). */
    VN_COUNTERS_CHILD = 1u << 0,
};

/* Opens the events of list on pid (0: the calling thread) and creates a
 * handle (free with vn_counters_destroy). Events this machine cannot count
 * are left out and named by vn_counters_info(); even a handle with nothing
 * open is a success. The events start disabled: vn_counters_enable(). On
 * an error *out is untouched and why (when not NULL) says what to do. */
int vn_counters_open(const char *list, pid_t pid, unsigned flags, vn_counters **out, char *why,
                     size_t whylen);

/* For a command: fork(); in the child, wait (for example on a pipe) until
 * the parent has called this with the child's pid; then exec. Counting
 * starts at the exec, so the fork and the wait are not counted, and covers
 * every process the command starts. After wait4() has reaped the child,
 * vn_counters_read() gives the totals: the kernel adds the counts of each
 * exited process to the events the parent holds. */
int vn_counters_open_child(const char *list, pid_t pid, vn_counters **out, char *why,
                           size_t whylen);

void vn_counters_destroy(vn_counters *c);

/* The events that are counting, in read order. */
size_t vn_counters_n(const vn_counters *c);
const char *vn_counters_name(const vn_counters *c, size_t i);
const char *vn_counters_unit(const vn_counters *c, size_t i);
/* Which events opened, which did not and why, and how they are grouped. */
void vn_counters_info(const vn_counters *c, vn_counter_info *out);

/* Start, stop and zero every group at once (PERF_IOC_FLAG_GROUP). */
int vn_counters_enable(vn_counters *c);
int vn_counters_disable(vn_counters *c);
int vn_counters_reset(vn_counters *c);
/* The current counts: one read() per group. VN_EIO when the kernel refuses
 * a read; out is then untouched. */
int vn_counters_read(vn_counters *c, vn_counts *out);

/* Tries every generic event on the calling thread, closing each at once:
 * which counters work on this machine, and why the others do not. */
int vn_counters_probe(vn_counter_info *out);

/* ---- Per-iteration results of the in-process engine ---------------------------- */

/* One event of one benchmark: per iteration, the median of the untagged
 * samples minus the median of the empty loop's samples. */
typedef struct vn_counter_result {
    char name[VN_COUNTER_NAME_MAX];
    const char *unit;        /* "count" or "ns" */
    double value;            /* net per iteration; NAN when unknown */
    double overhead;         /* the empty loop's per iteration; NAN when unknown */
    int scaled;              /* some samples were multiplexed and scaled */
} vn_counter_result;

/* Ratios of the net values; NAN when a part is missing or zero. */
typedef struct vn_counter_derived {
    double ipc;              /* instructions / cycles */
    double branch_miss_pct;  /* 100 * branch-misses / branches */
    double cache_miss_pct;   /* 100 * cache-misses / cache-references */
    double insn_per_byte;    /* instructions / bytes per iteration (with a throughput) */
} vn_counter_derived;

#ifdef __cplusplus
}
#endif
#endif
