/* The results of a run of benchmarks (vernier/bench.h runs them), read
 * through functions: each row's name and other texts, its headline and
 * interval and the other figures, its samples with their interference
 * tags, its warnings and counters, and the run's findings. The reporters
 * (vernier/report.h) take them whole, and read each row through these same
 * functions. The structs are the library's own, so they grow without
 * breaking a program built against an older header. */
#ifndef VERNIER_RESULTS_H
#define VERNIER_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "vernier/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per sample: the tags of interference seen while it ran. */
enum {
    VN_TAG_PREEMPTED = 1u << 0, /* involuntary context switch during the sample */
    VN_TAG_MIGRATED = 1u << 1,  /* ended on another CPU than it started on */
    /* The core's front end was shared while it ran: a loop of taken
     * branches timed right before or right after it took over 1.1 times
     * the third fastest such probe of the run so far. A
     * second hardware thread on the core (under a hypervisor, perhaps the
     * host's) halves what short loops get, while a chain of adds does not
     * notice. A sample mostly off the CPU is never tagged so. */
    VN_TAG_SHARED_CORE = 1u << 2,
};

typedef struct vn_sample {
    double value;      /* ns per iteration, as measured (overhead not subtracted) */
    uint64_t iters;
    unsigned tags;
    double ref_ns;     /* ns per reference cycle measured next to this sample; NAN unknown */
    int thread;        /* which thread took it (0 without --threads) */
    /* Per iteration, as measured (the empty loop not subtracted), one per
     * counter of the result; NAN where an event did not count. NULL
     * without counters. Points into the result's sample_counts. */
    const double *counts;
    uint32_t counts_scaled;    /* bit i: counts[i] is scaled (multiplexed) */
    /* Reference cycles per iteration of a loop of taken branches, timed
     * right before this sample: about 1 on a core of its own, about 2 on a
     * shared one (VN_TAG_SHARED_CORE); NAN unknown. */
    double branch_cycles;
    /* The thread's CPU time across the sample, per iteration, as measured
     * (CLOCK_THREAD_CPUTIME_ID; the empty loop not subtracted); NAN
     * unknown. Under the wall time when the thread waited or was preempted. */
    double cpu_ns;
    /* The process that took it (0, 1, ...; 0 when measured in one) and its
     * block there: 0 for the first half of the process's samples of the
     * row, 1 for the second. */
    int process, block;
} vn_sample;

typedef enum vn_stop {
    VN_STOP_PRECISION,   /* the median's CI reached the precision asked for */
    VN_STOP_MAX_TIME,    /* the time budget ran out first */
    VN_STOP_MAX_SAMPLES,
    VN_STOP_FAILED,      /* vn_state_fail() was called */
    VN_STOP_INTERRUPTED,
    VN_STOP_SKIPPED,     /* vn_state_skip(): the machine cannot run it; error says why */
    VN_STOP_MAX_PROCESSES, /* the most processes (vn_config.processes) ran first */
    VN_STOP_PROCESSES_VARY /* the processes vary too much for the precision within the most */
} vn_stop;

const char *vn_stop_name(vn_stop s);

/* The results of a run, and one row of them (a benchmark, or one value of
 * its parameter). */
typedef struct vn_results vn_results;
typedef struct vn_result vn_result;

/* How many rows, and row i of them (NULL past the end or for NULL). */
size_t vn_results_count(const vn_results *r);
const vn_result *vn_results_at(const vn_results *r, size_t i);

/* The figures of a row, in ns per iteration unless said (NAN when the row
 * has none: no samples summarized, as for a failed row, no interval, no
 * cycles). The values after VN_PROCESSES were added in 0.8. */
typedef enum vn_figure {
    VN_MEDIAN,          /* the headline, in ns: one process's median net of the empty loop;
                           across processes, the lower quartile of those (their median with
                           --policy head_low=50), as the table's time column */
    VN_CI_LO,           /* its 95% interval for the next run's headline: where another
                           invocation's answer falls (the estimate's own is sqrt(2) narrower) */
    VN_CI_HI,
    VN_MEAN,            /* of the headline's samples */
    VN_STDDEV,
    VN_MIN,
    VN_MAX,
    VN_P90,
    VN_P99,
    VN_MAD,             /* median absolute deviation */
    VN_OVERHEAD,        /* the empty loop per iteration, subtracted from the above */
    VN_CYCLES,          /* the headline in reference cycles (for an upper bound, the bound) */
    VN_BOUND,           /* an upper bound: what the body costs less than; NAN when measured */
    VN_BYTES_PER_SEC,   /* from the median, with vn_state_set_bytes() */
    VN_ITEMS_PER_SEC,
    VN_RATIO,           /* against the --baseline row, and its 95% interval */
    VN_RATIO_LO,
    VN_RATIO_HI,
    VN_ITERS_PER_SEC,   /* with threads: all of them together */
    VN_ELAPSED,         /* seconds the row took */
    VN_SAMPLES,         /* how many samples the headline rests on */
    VN_PROCESSES,       /* how many processes the row ran in */
    VN_PARAM,           /* the parameter's value (VN_TEXT_PARAM names it), exact up to 2^53;
                           NAN without a parameter */
    VN_ITERS,           /* iterations per sample */
    VN_N,               /* how many samples VN_MEAN to VN_MAD and the percentiles are of;
                           0 for none */
    VN_CI_LEVEL,        /* the exact coverage of the order-statistics interval of the
                           samples' median that the next run's interval starts from in one
                           process: 0.95 or more when the samples allow, less for very few */
    VN_P1,              /* the other percentiles of the headline's samples */
    VN_P5,
    VN_P10,
    VN_P25,
    VN_P50,
    VN_P75,
    VN_P95,
    VN_CPU,             /* the thread's CPU time per iteration, net of the empty loop as the
                           median is: under it when the thread waited or was preempted;
                           for an upper bound, of the loop with the body */
    VN_CYCLES_LO,       /* VN_CYCLES' 95% interval (NAN for an upper bound) */
    VN_CYCLES_HI,
    VN_CYCLES_HEADLINE, /* 1 when VN_CYCLES is the headline that compares across runs (the
                           core's clock moved, and the samples agree better in cycles), else 0 */
    VN_OVERHEAD_LO,     /* VN_OVERHEAD's 95% interval */
    VN_OVERHEAD_HI,
    VN_BYTES_PER_ITER,  /* what VN_BYTES_PER_SEC and VN_ITEMS_PER_SEC count per iteration */
    VN_ITEMS_PER_ITER,
    VN_THREADS,         /* how many threads ran the body at once (1 without --threads) */
    VN_LEFT_OUT,        /* the tags (VN_TAG_*) whose samples the headline leaves out */
    VN_IPC,             /* with counters: instructions per cycle, */
    VN_BRANCH_MISS_PCT, /* branch misses per 100 branches, */
    VN_CACHE_MISS_PCT,  /* cache misses per 100 references, */
    VN_INSN_PER_BYTE,   /* instructions per byte (vn_state_set_bytes()) */
    VN_COUNTERS_SCALED  /* bit i: counter i's value is an estimate, scaled up because the
                           kernel counted it only part of the time (multiplexed) */
} vn_figure;

/* The texts of a row: which one, and for the texts of a warning or a
 * counter, its index i (read by those only). */
typedef enum vn_text {
    VN_TEXT_NAME,           /* "fn" or "fn/param=value" */
    VN_TEXT_ERROR,          /* for VN_STOP_FAILED and VN_STOP_SKIPPED, why; "" otherwise */
    VN_TEXT_UNIT,           /* what the figures are in: "ns" */
    VN_TEXT_PARAM,          /* the parameter's name ("n"), "" without one; VN_PARAM its value */
    VN_TEXT_BASELINE,       /* the row VN_RATIO is against, "" without a baseline */
    VN_TEXT_WARNING,        /* warning i's message in full, with its numbers */
    VN_TEXT_WARNING_BRIEF,  /* warning i's own one-line brief, "" when it has none */
    VN_TEXT_COUNTER_UNIT    /* counter i's unit: "count", or "ns" for a time */
} vn_text;

/* A text of the row, as long as it is; NULL for a NULL row, an unknown
 * which, or i past the end of the warnings or counters. Valid until
 * vn_results_free(). */
const char *vn_result_text(const vn_result *b, vn_text which, size_t i);
double vn_result_figure(const vn_result *b, vn_figure f);

/* The row's name, and its error (vn_result_text()). */
static inline const char *vn_result_name(const vn_result *b)
{
    return vn_result_text(b, VN_TEXT_NAME, 0);
}
static inline const char *vn_result_error(const vn_result *b)
{
    return vn_result_text(b, VN_TEXT_ERROR, 0);
}
/* Why it stopped; for VN_STOP_FAILED and VN_STOP_SKIPPED, the message
 * (vn_result_error(), "" otherwise). */
vn_stop vn_result_stop(const vn_result *b);
/* Its samples, tagged ones too: how many, and sample i (NULL past the
 * end). One at a time, so that a vn_sample that gains fields still reads
 * right in a program built against an older header. */
size_t vn_result_samples(const vn_result *b);
const vn_sample *vn_result_sample(const vn_result *b, size_t i);
/* Its warnings: how many, and warning i's stable id (NULL past the end),
 * with its one-line brief into *brief when brief is not NULL (its own, or
 * its message when it has none). */
size_t vn_result_warnings(const vn_result *b);
const char *vn_result_warning(const vn_result *b, size_t i, const char **brief);
/* Its counters: how many, and counter i's name (NULL past the end), with
 * its value per iteration, net of the empty loop's, into *value when value
 * is not NULL (NAN where it did not count). */
size_t vn_result_counters(const vn_result *b);
const char *vn_result_counter(const vn_result *b, size_t i, double *value);

/* The run's findings (a fit, the steps of a sweep): how many, and finding
 * i's stable id (NULL past the end), its brief into *brief. */
size_t vn_results_findings(const vn_results *r);
const char *vn_results_finding(const vn_results *r, size_t i, const char **brief);
/* Adds a finding to r: brief is one line (cut at 127 bytes), explanation
 * (may be NULL) its long form. 0, VN_EINVAL, or VN_ENOMEM. */
int vn_results_add_finding(vn_results *r, const char *id, const char *brief, const char *explanation);

/* Frees results vn_suite_run() or vn_suite_main() gave; NULL is nothing. */
void vn_results_free(vn_results *r);

#ifdef __cplusplus
}
#endif
#endif
