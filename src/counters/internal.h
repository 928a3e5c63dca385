/* The parts of the counters that the engine and the tests share: parsed
 * event lists, the pure arithmetic (counters/math.c), the parser of what
 * read() returns (counters/read.c), the explanations of failures, and the
 * system-call table that tests replace with a fake PMU. */
#ifndef VN_COUNTERS_INTERNAL_H
#define VN_COUNTERS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "counters/counters.h"

/* ---- Parsed lists (counters/table.c) ------------------------------------------ */

/* One event to open: a generic event, or a named PMU event that libpfm4
 * encoded (or could not: unresolved). */
typedef struct vn__ctr_spec {
    char name[VN_COUNTER_NAME_MAX];
    const vn_counter_event *generic;  /* NULL for a named PMU event */
    uint32_t type;
    uint64_t config, config1, config2;
    unsigned exclude;                 /* VN_COUNTER_EXCLUDE_* */
    int kernel_side;
    const char *unit;
    int hardware;                     /* takes one of the PMU's counters */
    int unresolved;                   /* a named event libpfm4 does not know here */
    char pmus[96];                    /* then: the PMUs libpfm4 searched */
} vn__ctr_spec;

/* Encodes a name that is not generic; 0 on success, VN_ENOENT when the
 * encoder does not know it (then spec->pmus says where it looked). */
typedef int (*vn__ctr_resolver)(const char *name, vn__ctr_spec *spec);

/* Splits list into specs ("default" expands, repeats are dropped). Without
 * a resolver, a name that looks like a PMU event (upper case, '.', "::")
 * gives VN_ENOTSUP (it needs libpfm4) and any other unknown name VN_ENOENT.
 * With one, an unknown PMU-looking name becomes an unresolved spec (missing
 * when opened, since another CPU may have it), and other unknown names are
 * VN_ENOENT. why gets one line on failure. */
int vn__ctr_parse_list(const char *list, vn__ctr_resolver resolve, vn__ctr_spec *out, size_t max,
                       size_t *n, char *why, size_t whylen);

/* The libpfm4 resolver, or NULL in a build without it (counters/pfm.c). */
vn__ctr_resolver vn__ctr_pfm_resolver(void);

/* ---- Why an event did not open (counters/table.c) ------------------------------- */

/* What the kernel and the machine say, for the explanations. */
typedef struct vn__perf_facts {
    int paranoid;            /* perf_event_paranoid; VN_SYSINFO_PARANOID_UNKNOWN */
    int capable;             /* CAP_PERFMON or CAP_SYS_ADMIN: 1, 0, -1 unknown */
    int hypervisor;          /* 1, 0, -1 unknown */
    char hypervisor_vendor[32];
    int cpu_pmu;             /* the kernel registered a core PMU: 1, 0, -1 unknown */
} vn__perf_facts;

/* The reason and the fix for an event that failed to open with errno err
 * (a positive errno), and the cause they explain. Pure: tests feed it every
 * case. */
vn_counter_cause vn__ctr_explain(const vn__ctr_spec *spec, int err, const vn__perf_facts *f,
                                 char *reason, size_t rlen, char *fix, size_t flen);

/* ---- Arithmetic (counters/math.c) -------------------------------------------------- */

/* Per event, the counts between two reads divided by iters, each scaled by
 * its own enabled/running over the interval. out[i] is NAN when the event
 * did not run in the interval or a read is inconsistent (b before a); bit
 * i of *scaled is set when out[i] is an estimate. */
void vn__ctr_delta(const vn_counts *a, const vn_counts *b, uint64_t iters, double *out,
                   uint32_t *scaled);

/* The median of the finite values of column k of a rows x ncols table,
 * taking only rows whose use[] is non-zero (use NULL: all). NAN when none. */
double vn__ctr_median(const double *table, size_t rows, size_t ncols, size_t k,
                     const unsigned char *use);

/* One benchmark's counters: medians over the samples in use, minus the
 * medians of the empty loop's samples in empty_use (NULL: all); a net value
 * below zero is noise in the loop's own counts and is 0. scaled_any[k] says
 * whether any used sample was scaled. */
void vn__ctr_summarize(const double *samples, const uint32_t *sample_scaled, size_t nsamples,
                       const unsigned char *use, const double *empty, size_t nempty,
                       const unsigned char *empty_use, size_t ncols, double *net,
                       double *overhead, int *scaled_any);

/* The ratios from net values by event name (NAN where a part is missing,
 * unknown or zero). bytes_per_iter is NAN without a throughput. */
void vn__ctr_derive(const vn_counter_result *c, size_t n, double bytes_per_iter,
                    vn_counter_derived *out);

/* Greedy groups: software events share group 0 (they take no hardware
 * counter, and a group that cannot be scheduled would stop them too);
 * hardware events fill groups of at most max_hw, in order. Writes each
 * event's group and returns the number of groups. */
int vn__ctr_plan_groups(const int *hardware, size_t n, size_t max_hw, int *group_of);

/* ---- What read() returns (counters/read.c) ---------------------------------------- */

/* Parses a read() of a perf event fd with the given read_format bits
 * (PERF_FORMAT_GROUP, _TOTAL_TIME_ENABLED, _TOTAL_TIME_RUNNING, _ID, _LOST).
 * With PERF_FORMAT_ID the values are matched to ids[] (n of them, the
 * members in the caller's order); without it they are taken in order.
 * Fills out[0..n-1]. VN_EINVAL when len does not match the layout, the
 * group holds another number of events, or an id is unknown. */
int vn__ctr_parse_read(const void *buf, size_t len, uint64_t read_format, const uint64_t *ids,
                       size_t n, vn_count *out);

/* ---- The system calls, replaceable by tests ---------------------------------------- */

struct perf_event_attr;

typedef struct vn__perf_sys {
    /* Each returns >= 0 on success and a negative errno on failure. */
    int (*open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                unsigned long flags);
    long (*read)(void *ctx, int fd, void *buf, size_t len);
    int (*ioctl)(void *ctx, int fd, unsigned long request, unsigned long arg);
    void (*close)(void *ctx, int fd);
    void (*facts)(void *ctx, vn__perf_facts *out);
    void *ctx;
} vn__perf_sys;

/* The real kernel. */
extern const vn__perf_sys vn__perf_sys_real;

/* vn_counters_open with another system-call table (sys NULL: the real one). */
int vn__counters_open_sys(const vn__perf_sys *sys, const char *list, pid_t pid, unsigned flags,
                          vn_counters **out, char *why, size_t whylen);
/* The same list opened again through the same table, on the calling thread
 * when c counts the calling thread (pid 0). */
int vn__counters_reopen(const vn_counters *c, vn_counters **out);
/* vn_counters_probe with another system-call table. */
int vn__counters_probe_sys(const vn__perf_sys *sys, vn_counter_info *out);

#endif
