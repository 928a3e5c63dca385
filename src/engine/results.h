/* The engine's results as a struct that grows (docs/layers.md): how much of
 * a vn_results and of its rows every caller holds, and the handing over of
 * results to a caller whose header may be older or newer than the
 * library's. */
#ifndef VN_BENCH_RESULTS_H
#define VN_BENCH_RESULTS_H

#include <stddef.h>

#include "base/abi.h"
#include "vernier/bench.h"
#include "clock/clock_api.h"
#include "counters/counters.h"
#include "stats/stats_api.h"
#include "machine/sysinfo_api.h"

/* The library's own layout of the results that vernier/results.h names
 * (programs read them through its functions; the library's own code and
 * its tests read the fields). */
#define VN_MAX_WARNINGS 16

/* A warning on one result: a stable id scripts can match, the message in
 * full with its numbers, and the brief the console shows on its one line
 * ("" when the message is short enough to be its own brief). */
typedef struct vn_bench_warning {
    char id[32];
    char message[384];
    char brief[96];
} vn_bench_warning;

/* One process's part of a row, when the row ran in several
 * (vn_config.processes): its own estimate, which the headline averages. */
typedef struct vn_process_result {
    double value;              /* its median ns per iteration, net of its own empty loop; for
                                  an upper bound, its fastest sample of the loop with the body */
    double cycles;             /* the same in reference cycles; NAN without references */
    double overhead_ns;        /* its empty loop per iteration */
    size_t samples;            /* samples it took of the row */
    size_t used;               /* of which the headline rests on */
    size_t run_process;        /* which of the run's processes it was, 0 the first */
    double elapsed;            /* seconds of the row's own time in it */
    int upper_bound;           /* it could not tell the body from the empty loop */
    /* The median of its samples' taken-branch probes, in reference cycles
     * a branch (NAN without probes), and whether that read the core as
     * shared with another hardware thread: over the run's lowest process
     * by the policy's ratio (1.1). Such a process leaves the headline while
     * processes on a core of their own remain. */
    double probe;
    int shared;
    int left_out;              /* not in the headline: it ran on a shared core while others
                                  had one of their own, its reference read slow while the
                                  body did not (ref_off), or every sample of it was left out */
    int ref_off;               /* its reference read slow while the body did not (policy
                                  ref_off): its cycles are not the body's */
} vn_process_result;

typedef struct vn_result {
    char name[192];            /* "fn" or "fn/param=value" */
    char param_name[32];       /* "" without a parameter */
    int64_t param;
    const char *unit;          /* "ns" (per iteration) */
    vn_sample *samples;        /* every sample, tagged ones too; owned */
    size_t nsamples;
    size_t ntagged;            /* samples with any tag */
    vn_stats stats;            /* of the headline's samples (no tag in left_out), overhead
                                * subtracted; for an upper bound, of the loop with the body */
    uint64_t iters;            /* iterations per sample */
    double overhead_ns;        /* the empty loop, per iteration */
    double overhead_ci[2];
    int upper_bound;           /* 1: the body is not distinguishable from the empty loop */
    double bound_ns;           /* then: what the body costs less than, the fastest of the
                                * headline's samples of the loop with the body */
    double ref_ns;             /* median ns per reference cycle */
    double ref_spread;         /* (p90 - p10) / median of the reference, a fraction */
    double cycles;             /* median reference cycles per iteration */
    double bytes_per_iter, items_per_iter;
    double bytes_per_sec, items_per_sec;  /* from the median; NAN without */
    int threads;
    double *thread_median;     /* per thread median ns/iter of the loop with the body (not net
                                  of the empty loop), owned (threads > 1) */
    double total_iter_per_sec; /* all threads together: their iterations over the wall time
                                  from the first to start timing to the last to stop */
    vn_stop stop;
    double elapsed;            /* seconds spent on this benchmark */
    char error[256];           /* vn_state_fail() message, or "" */
    vn_bench_warning warnings[VN_MAX_WARNINGS];
    int nwarnings;
    /* Counters per iteration, net of the empty loop's (see vn_counter_result),
     * in the order of vn_results.counters' opened events. */
    vn_counter_result counters[VN_COUNTERS_MAX];
    int ncounters;
    vn_counter_derived derived;
    double *sample_counts;     /* nsamples x ncounters, owned; what samples[i].counts point into */
    double overhead_cycles;    /* the empty loop in reference cycles per iteration; NaN unknown */
    /* (p90 - p10) / median of the empty loop in reference cycles, over the
     * empty-loop samples the overhead comes from, a fraction; NAN unknown
     * (fewer than 5, samples under 1000 iterations, no reference). */
    double overhead_cycles_spread;
    size_t nshared;            /* samples tagged VN_TAG_SHARED_CORE (counted in ntagged too) */
    /* The tags whose samples the headline leaves out: all of them, unless
     * too few samples carry none or those are slower than the shared-core
     * ones; then preemption and migration only, unless too few are free of
     * those too; then none. */
    unsigned left_out;
    /* In-process: the settings this row ran with, the run's or the
     * benchmark's own (vn_bench_opts) where it set them; timer is the clock
     * its samples were read with. */
    double max_time, precision;
    size_t min_samples;
    vn_clock_id timer;
    /* In-process, stopped at the budget or the most samples: 1 when the
     * last stop test went on waiting for moments when the core was its own
     * (or for empty-loop samples from such moments), not for precision. */
    int waited;
    /* In-process: the median share of a sample's wall time its thread spent
     * on the CPU (CLOCK_THREAD_CPUTIME_ID), about 1 for code that computes
     * and near 0 for code that sleeps or waits; NAN unknown. */
    double on_cpu;
    /* In-process: how many samples the headline rests on (those with no tag
     * in left_out). */
    size_t headline_samples;
    /* In-process: the median CPU time per iteration of the headline's
     * samples, net of the empty loop like the median (for an upper bound,
     * of the loop with the body), as Google Benchmark's "CPU" beside its
     * "Time": well under the median when the thread waited, slept or was
     * kept off the CPU; NAN unknown. */
    double cpu_ns;
    /* In-process, compared with a baseline row: its name ("" for none, and
     * then the rest is unset), the ratio of this row's median to the
     * baseline's over the samples both kept (1 for the baseline itself;
     * NAN when either has no median, such as an upper bound), its 95%
     * interval (NAN with too few samples), and how many pairs it rests on.
     * ratio_paired: the k-th samples of the two rows were taken in the same
     * round (rows taking turns) and resampled as pairs; 0: each row's
     * samples on their own (vn_ratio_paired, vn_ratio_unpaired). */
    char baseline[192];
    double ratio;
    double ratio_ci[2];
    size_t ratio_n;
    int ratio_paired;
    /* The processes the row ran in (vn_config.processes), nprocesses of
     * them, owned. stats.median and stats.median_ci are the headline in ns:
     * with one process, its median net of the empty loop, with an interval
     * that carries the empty loop's uncertainty too; with several, the
     * quantile head_quantile of their medians (the lower quartile by
     * default), with its interval across them (vn__levels).
     * median_ci is that interval made one for the next run's headline
     * (vn__levels_next_run): where another invocation's answer falls, the
     * promise a person acts on; est_ci is the estimate's own, which the
     * precision asked is held to (NAN ends without an interval). */
    double est_ci[2], cycles_est_ci[2];
    size_t nprocesses;
    vn_process_result *processes;
    /* cycles' own interval (NAN unknown), and whether cycles is the unit
     * that compares across runs: a body on the CPU whose samples, or
     * processes, agree no better in ns than in cycles (the core's clock
     * moves between runs too), or any body that agrees better in cycles. */
    double cycles_ci[2];
    int cycles_headline;
    int clock_moved;           /* the values agree better in cycles than in ns beyond chance:
                                  the core's clock moved while the row ran */
    /* How the variance of one process's value splits: between processes,
     * between the halves of a process's samples, and what its samples
     * leave uncertain (shares adding up to 1; share_processes NAN with one
     * process). */
    double share_processes, share_blocks, share_samples;
    /* The processes' values fall far apart beyond their own samples'
     * uncertainty and the precision asked (code layout, or the machine's
     * state), or some gave an upper bound and some a median. */
    int processes_disagree;
    /* Which quantile of the processes' values the headline is: 0.25 their
     * lower quartile (policy head_low's default), 0.5 their median; NAN
     * for their mean (head_mean) or a row measured in one process. */
    double head_quantile;
    /* When the run's processes fell in two groups by their taken-branch
     * probes (a core of their own, or one shared with another hardware
     * thread): the row's processes on a shared core, left out of the
     * headline because others had a core of their own; and on_shared, every
     * process of the row ran on a shared core (or all but fewer than the
     * headline's quantile of them), so the headline did too. */
    size_t processes_left_out;
    int on_shared;
    /* The headline's quantile of the processes left out for the other
     * core state over the headline, in its unit (NAN where none are), and
     * whether the interval reaches it (vn__reach_other_state). */
    double other_state;
    int other_reached;
    /* The run's processes fell in two groups, and the row's read the body
     * alike in both (their medians within the precision: 1), or too few
     * or too scattered in one state to tell them apart (2): the headline
     * rests on all of them, and a run in either state compares with it. */
    int states_alike;
    /* Processes left out of the headline for a reference that read slow
     * while the body did not (policy ref_off). */
    size_t processes_ref_off;
    /* Ratio with a baseline over several processes: the median of the
     * per-process ratios, with the median's interval (ratio_n processes),
     * and the least and the most of those ratios (of every process both
     * ran in). ratio_other: the processes left out of the ratio because
     * either headline left them out for their core state, whose median
     * ratio the interval reaches (engine/compare.c). */
    int ratio_processes;
    double ratio_range[2];
    size_t ratio_other;
    /* How much the headline's variance grew because its processes, in the
     * order they ran, came in runs of like values (a state of the machine
     * lasting longer than one process): (1 + rho) / (1 - rho) for their
     * lag-1 autocorrelation rho in [0, 0.8]; 1 when they did not, or with
     * fewer than 4 processes. */
    double serial;
} vn_result;

/* A finding about the run as a whole, from its rows: id for scripts, one
 * line for the console (at most ~100 characters), and the explanation that
 * --explain and JSON carry. */
typedef struct vn_finding {
    char id[48];
    char brief[128];
    char *explanation;         /* owned; "" when none */
} vn_finding;

/* The results of a run. Programs get them allocated (vn_suite_run(),
 * vn_suite_main()) and read them through functions; the library's own code
 * fills a struct it holds, and keeps the sizes of the layout that grows:
 *
 * - size is how many bytes of this struct the library filled: its own
 *   sizeof (vn_results), or the caller's when that is smaller
 *   (vn__suite_run() and vn__suite_main() take the sizeof of the caller's
 *   struct, and the library writes no further). A field
 *   added after the first layout is there only when size covers it
 *   (offsetof + sizeof <= size); every field of the first layout always is.
 * - result_size is the library's sizeof (vn_result), the stride of the
 *   array bench points to. A program built against an older header, whose
 *   vn_result ends sooner, would find the second row in the middle of the
 *   first if it indexed r->bench[i]; vn_results_at(r, i) steps by
 *   result_size and finds each.
 *
 * The reporters refuse (VN_EABI) results whose size is below the first
 * layout, or with rows smaller than the library's own vn_result, which
 * they would read past: results that no library as new filled. */
typedef struct vn_results {
    size_t size;
    size_t result_size;
    vn_sysinfo env;
    vn_clock_id timer;
    char timer_reason[256];
    double timer_cost_ns;      /* cost of one timer read */
    double timer_resolution_ns;
    double counter_hz;         /* NAN when the timer is not a counter */
    vn_config config;
    vn_result *bench;          /* owned; rows result_size apart: use vn_results_at() */
    size_t nbench;
    int optimized;
    int interrupted;
    char note[512];            /* something the reader must know about the whole run, or "" */
    /* Which counters were asked for, which opened, which are missing and
     * why; requested is "" when counters were off. */
    vn_counter_info counters;
    /* What the program found across its rows (a fit, the steps of a
     * sweep), added by vn_results_add_finding(): owned. */
    vn_finding *findings;
    size_t nfindings;
    /* The worker processes that measured (0: this process alone), and the
     * wall time from the first's start to the last's end, in seconds. */
    size_t processes;
    double processes_wall;
} vn_results;

/* The run into out, a struct of out_size bytes the caller holds (the
 * library's own code and tests: vn_suite_run() allocates). *out owns its
 * memory (vn__results_clear). */
int vn__suite_run(vn_suite *s, const vn_config *cfg, vn_results *out, size_t out_size);
#define vn__suite_run_here(s, cfg, out) vn__suite_run((s), (cfg), (out), sizeof(vn_results))
/* vn_suite_main() with its results into keep (NULL: none), a struct of
 * keep_size bytes the caller holds. */
int vn__suite_main(vn_suite *s, int argc, char **argv, vn_results *keep, size_t keep_size);
/* Frees what r owns and zeroes it (r itself is the caller's). */
void vn__results_clear(vn_results *r);

/* The first layouts with a size: every vn_results and every row holds at
 * least these bytes, so the library reads their fields without a check. A
 * field added later is read only when size (or result_size) covers it. */
#define VN__RESULTS_FIRST VN__SIZE_THROUGH(vn_results, nfindings)
#define VN__RESULT_FIRST VN__SIZE_THROUGH(vn_result, cpu_ns)

/* Copies full, which the library filled in its own layout, to the caller's
 * dst of dst_size bytes (the sizeof of the caller's header): no more than
 * dst_size bytes, the rest of a larger dst zeroed, and sets size and
 * result_size. Then dst owns what full owned. VN_EABI, full freed and dst
 * untouched, for a dst_size below the first layout. */
int vn__results_give(vn_results *dst, size_t dst_size, vn_results *full);

/* Whether a reporter can read r: VN_EINVAL for NULL or rows missing,
 * VN_EABI for a size below the first layout or, with rows, a result_size
 * below this library's sizeof (vn_result), whose fields it would read past
 * the end of each row. */
int vn__results_check(const vn_results *r);

#endif
