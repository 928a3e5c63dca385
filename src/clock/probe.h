/* Timer characterization: know a clock before trusting it.
 * Latency (cost of one read), observed resolution (smallest and median
 * non-zero step between consecutive reads), clock_getres, backward steps, the
 * distribution of deltas between consecutive reads, and a cross-CPU check. */
#ifndef VERNIER_PROBE_H
#define VERNIER_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "vernier/base.h"
#include "clock/clock_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Deltas between consecutive reads (pure) ------------------------------- */

typedef struct vn_delta_bin {
    uint64_t delta;   /* in the clock's unit (ns or ticks) */
    uint64_t count;
} vn_delta_bin;

/* The distribution of differences between consecutive reads: bins of equal
 * non-zero forward deltas in ascending order, plus the reads that did not
 * move and the ones that went backwards. */
typedef struct vn_delta_dist {
    vn_delta_bin *bins;   /* owned */
    size_t nbins;
    uint64_t zero;        /* consecutive reads that returned the same value */
    uint64_t backwards;   /* later read smaller than the earlier one */
    uint64_t pairs;       /* n - 1 */
    uint64_t max_backwards; /* largest backward step, 0 if none */
    double ns_per_unit;   /* ns per delta unit (1 for ns clocks); NAN unknown */
} vn_delta_dist;

/* The most reads a probe stores (80 MB of them). */
#define VN_PROBE_MAX_READS ((size_t)10000000)

void vn_delta_dist_free(vn_delta_dist *d);

/* ---- Probing one clock ---------------------------------------------------- */

typedef struct vn_clock_probe {
    vn_clock_id id;
    int available;
    double latency_ns;           /* cost of one read, from batched reads; NAN unknown */
    double resolution_ns;        /* smallest non-zero step; NAN if it never moved */
    double resolution_median_ns; /* median non-zero step */
    double unit_ns;              /* every step a multiple of it (vn__iunit_sorted), NAN when
                                    none over one of the clock's units shows */
    double getres_ns;            /* clock_getres, or one tick for counters; NAN unknown */
    uint64_t backwards;          /* consecutive reads that went backwards */
    uint64_t reads;              /* reads made for the resolution test */
} vn_clock_probe;

typedef struct vn_probe_opts {
    unsigned latency_us;     /* time spent measuring latency (default 4000) */
    unsigned resolution_us;  /* time spent reading for resolution (default 4000; a coarse clock reads for 4 of its ticks and at least 16 steps, at most 50 ms) */
    size_t max_reads;        /* cap on the reads stored for resolution (default 1 << 16) */
} vn_probe_opts;

int vn_probe_clock(vn_clock_id id, const vn_probe_opts *opts, vn_clock_probe *out);

/* Reads the clock n times (2 .. VN_PROBE_MAX_READS) back to back and bins
 * the deltas; d->ns_per_unit is set from the calibration. */
int vn_probe_distribution(vn_clock_id id, size_t n, vn_delta_dist *out);

/* ---- Across CPUs ---------------------------------------------------------- */

/* Two checks that the CPUs' clocks agree, for the counter and for
 * CLOCK_MONOTONIC:
 * - migration: a thread pinned to each CPU in turn compares its first read
 *   on a CPU with its last read on the previous one. It sees only offsets
 *   larger than a migration takes (tens of microseconds).
 * - warp: two threads on two CPUs take strict turns, each reading the clock
 *   and comparing with the other's last read (the method of the kernel's
 *   check_tsc_warp). It sees offsets down to the time of one
 *   handoff, reported as warp_resolution_ns. */
typedef struct vn_crosscpu {
    int ncpus;                 /* CPUs visited */
    uint64_t migrations;
    uint64_t tsc_backwards;    /* 0 when no counter */
    uint64_t mono_backwards;
    double tsc_max_step_ns;    /* largest forward step across a migration */
    double mono_max_step_ns;
    double tsc_max_backwards_ns;  /* largest backward step, 0 if none */
    double mono_max_backwards_ns;
    int has_counter;
    int warp_pairs;            /* CPU pairs checked (CPU 0 with each other) */
    uint64_t warp_handoffs;    /* turns that followed a turn on the other CPU */
    uint64_t warp_tsc_backwards;
    uint64_t warp_mono_backwards;
    double warp_tsc_max_backwards_ns;
    double warp_mono_max_backwards_ns;
    double warp_resolution_ns; /* smallest forward step across a handoff: smaller offsets go unseen */
} vn_crosscpu;

/* rounds: passes over all allowed CPUs (0 means 20). VN_ENOTSUP when the
 * thread cannot be pinned. */
int vn_probe_crosscpu(unsigned rounds, vn_crosscpu *out);

/* ---- Everything `vernier clocks` shows ----------------------------------------- */

typedef struct vn_clocks_report {
    char clocksource[32];            /* "" unknown */
    char clocksource_available[128];
    vn_tsc_info tsc;
    int tsc_calibrated;              /* 1 when calib holds a measurement */
    vn_calibration calib;
    vn_clock_probe clocks[VN_CLOCK_COUNT];
    size_t nclocks;                  /* the clocks that exist in this build, in id order */
    int crosscpu_done;
    vn_crosscpu crosscpu;
    vn_clock_id selected;
    char selected_reason[256];
} vn_clocks_report;

int vn_clocks_report_collect(vn_clocks_report *out);

/* Why the timer was chosen, one value per reason, for code and tests that
 * must not read the sentence. */
typedef enum vn_clock_why {
    VN_CLOCK_WHY_ARCH_COUNTER,   /* the aarch64 virtual counter, constant by architecture */
    VN_CLOCK_WHY_INVARIANT_TSC,  /* an invariant, consistent, calibrated TSC */
    VN_CLOCK_WHY_TSC_CPUID_COSTLY, /* the same, cpuid;rdtsc over twice lfence;rdtsc's cost */
    VN_CLOCK_WHY_TSC_UNSTABLE,   /* the kernel dropped the TSC from its clocksources */
    VN_CLOCK_WHY_BACKWARDS,      /* the CPU counter went backwards across CPUs */
    VN_CLOCK_WHY_UNCALIBRATED,   /* the TSC's rate could not be measured */
    VN_CLOCK_WHY_NOT_INVARIANT,  /* the TSC's rate may follow the CPU's frequency */
    VN_CLOCK_WHY_NO_COUNTER,     /* no CPU counter to read */
} vn_clock_why;

/* Chooses the timer for in-process measurement from what was measured
 * (pure): the ordered counter read when the counter is invariant, present,
 * and consistent across CPUs; otherwise CLOCK_MONOTONIC. The reason says
 * why to people; the value returned says it to code. */
vn_clock_why vn_clock_select(const vn_clocks_report *r, vn_clock_id *out, char *reason,
                             size_t reasonlen);

/* The reason for that choice as a stable id, for scripts and tests (the
 * sentence vn_clock_select() writes is for people): "tsc_cpuid_costly" or
 * "tsc_invariant" when the TSC is chosen, "cntvct" for the aarch64
 * counter, else why CLOCK_MONOTONIC is: "tsc_unstable",
 * "counter_backwards", "tsc_uncalibrated", "tsc_not_invariant",
 * "no_counter". */
const char *vn_clock_select_id(const vn_clocks_report *r);

#ifdef __cplusplus
}
#endif
#endif
