/* Results files read into one model, and two sides of them compared:
 * `vernier compare`, and any report that shows a comparison, call this.
 *
 * A side is one or more files (repetitions of one build, say) of any
 * format vernier reads: its own vernier.results/1 (code or commands),
 * Google Benchmark's JSON and hyperfine's. Each benchmark of a side holds
 * every value its files gave, in ns per iteration, so repetitions pool.
 * The comparison is pure arithmetic on the two sides: ratios of medians
 * with bootstrap intervals, Mann-Whitney p-values, verdicts and their
 * geometric mean. docs/compare.md describes the method.
 *
 * Private to the tool (the vernier_private library); names are vn__cmp_. */
#ifndef VN_COMPARE_H
#define VN_COMPARE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "vernier/base.h"

#include "pair.h"
#include "side.h"

/* ---- the comparison ------------------------------------------------------- */

typedef enum vn__cmp_verdict {
    VN__CMP_SAME,        /* the interval reaches within the threshold of 1 */
    VN__CMP_FASTER,      /* the whole interval is below 1 - threshold */
    VN__CMP_SLOWER,      /* the whole interval is above 1 + threshold */
    VN__CMP_NO_INTERVAL, /* a side has one value: no interval, no verdict */
} vn__cmp_verdict;
/* "no change", "faster", "slower", "no interval". */
const char *vn__cmp_verdict_name(vn__cmp_verdict v);

typedef struct vn__cmp_options {
    double threshold;   /* a fraction: 0.02 calls 2% slower "no change" */
    /* Take the threshold from the files instead when both sides are
     * vernier's: the looser precision they were measured to (a change
     * smaller than that is one the runs were not asked to resolve). */
    int threshold_from_files;
    size_t resamples;   /* of the bootstrap, per side */
    uint64_t seed;      /* of the bootstrap, so the same files give the same intervals */
    const vn__cmp_map *maps; /* --map, tried in order; NULL for none */
    size_t nmaps;
} vn__cmp_options;
/* threshold 0.02 (from the files when they say), 10000 resamples, a
 * fixed seed. */
void vn__cmp_options_init(vn__cmp_options *o);

/* The quantile of the processes that stands for their fast end: a
 * slowdown of the code moves it with the headline, a state of the
 * machine that slowed some processes does not (docs/compare.md). */
#define VN__CMP_FAST_END 0.10

/* A benchmark on both sides with values to compare. */
typedef struct vn__cmp_row {
    const char *name;          /* the base side's */
    const char *new_name;      /* the new side's: another when not paired by name */
    vn__cmp_rule rule;         /* what paired them */
    const vn__cmp_bench *base, *new_;
    double base_median, new_median;   /* ns per iteration */
    double ratio;              /* new_median / base_median: below 1 is faster */
    double lo, hi;             /* its 95% interval; NaN without one */
    /* What was resampled: "processes" (vernier's code results, two or more
     * processes a side: the headlines' own intervals joined), "runs" (runs of
     * commands or repetitions: the bootstrap of the medians), "samples"
     * (code results with one process on a side: the bootstrap of the
     * samples, which cannot see what varies between runs), "aggregates"
     * (a side had only Google Benchmark's mean and deviation: Welch's
     * t-interval of the ratio of the means, by the delta method, and
     * Welch's t-test; base_median and new_median are then the means). */
    const char *method;
    size_t units_base, units_new;
    int cycles;                /* compared in reference cycles (the clock moved) */
    /* Method "processes": why the row's unit. "headline": a side's headline
     * was in cycles (then cycles), else ns; "alike": a side read the body
     * alike in both core states in this unit alone; "steadier": both
     * sides' processes hold this unit steadier (vn__cmp_steadier_unit);
     * "state": ns between sides in different core states (state_bound);
     * the last three only where they differ from the first. NULL otherwise. */
    const char *unit_by;
    double p;                  /* Mann-Whitney U two-sided p-value of the values */
    vn__cmp_verdict verdict;
    double insn_base, insn_new, insn_ratio; /* NaN unless both sides counted instructions */
    size_t learned_from;       /* earlier runs in the store whose variation between runs
                                  widened the interval (0: none) */
    int within_next_run;       /* processes a side, the interval on one side of 1: either
                                  side's headline lies within the interval the other run
                                  printed for its next run, so no change (compare.c) */
    /* Processes a side: the ratio of their fast ends (the lowest tenth,
     * VN__CMP_FAST_END) with its interval; NaN otherwise, or when the
     * headline is that low itself. */
    double fast_ratio, fast_lo, fast_hi;
    double threshold;          /* the change it had to pass: the threshold, or the half-width
                                  its runs reached where wider */
    int within_reach;          /* past the threshold, within the half-width a run reached: no
                                  change */
    int fast_end_still;        /* the headlines' interval lay past the threshold and the fast
                                  ends' did not: a state of the machine, so no change */
    /* "BASE" or "NEW": the sides' headlines rested on different core
     * states, and this side was compared through the processes its
     * headline left out because they met the other's (compare.c
     * match_state). NULL: each side's headline processes. */
    const char *state_matched;
    /* "BASE" or "NEW": the sides met different core states, this side the
     * shared one, and neither could be compared through processes in the
     * other's; compared in ns, where a busy sibling only adds time, the
     * row keeps a verdict the state cannot have made (the shared side
     * faster) and is declined otherwise (state.c). NULL: one state. */
    const char *state_bound;
} vn__cmp_row;

/* A benchmark on both sides that cannot be compared. */
typedef struct vn__cmp_skip {
    const char *name;
    char *why;                 /* "in NEW: an upper bound (< 0.31 ns)" */
} vn__cmp_skip;

typedef struct vn__cmp_result {
    vn__cmp_row *rows;
    size_t nrows;
    vn__cmp_skip *skipped;
    size_t nskipped;
    const char **only_base, **only_new; /* names found on one side only */
    size_t nonly_base, nonly_new;
    double geomean, geo_lo, geo_hi;     /* of the rows' ratios; NaN without rows, or
                                           lo and hi NaN when no row has an interval */
    size_t count[4];                    /* rows per vn__cmp_verdict */
    unsigned differ;                    /* bit i: vn__cmp_fact i differs between the sides */
    size_t one_process;                 /* rows compared on samples: a side had one process */
    size_t state_differs;               /* rows not compared: one side's core was shared */
    size_t state_matched;               /* rows compared in one core state all the same
                                           (vn__cmp_row state_matched) */
    size_t state_bound;                 /* rows whose verdict stands across core states
                                           (vn__cmp_row state_bound) */
    size_t paired[3];                   /* rows and skips per vn__cmp_rule */
    size_t nbase, nnew;                 /* benchmarks on each side */
    const char *base_facts[VN__CMP_NFACTS], *new_facts[VN__CMP_NFACTS];
    unsigned base_formats, new_formats;
    vn__cmp_options opt;
} vn__cmp_result;

/* Compares new against base. The result points into both sides, which
 * must outlive it. 0, VN_EINVAL for no resamples, or VN_ENOMEM; on failure
 * *out is untouched. */
int vn__cmp_compare(const vn__cmp_side *base, const vn__cmp_side *new_, const vn__cmp_options *o,
                    vn__cmp_result *out);
void vn__cmp_result_free(vn__cmp_result *r);

/* ---- reporters: the comparison in, bytes out ------------------------------ */

/* The files of each side, as the reports name them. */
typedef struct vn__cmp_files {
    const char *const *base, *const *new_;
    size_t nbase, nnew;
} vn__cmp_files;

/* The console: one line per benchmark, then the geometric mean, what could
 * not be compared and any warning, each one line of at most ~100 columns.
 * flags: VN_REPORT_COLOR. */
int vn__cmp_report_text(const vn__cmp_result *r, const vn__cmp_files *f, unsigned flags, vn_buf *out);
/* A Markdown table for a pull request's comment, with the same lines below. */
int vn__cmp_report_markdown(const vn__cmp_result *r, const vn__cmp_files *f, vn_buf *out);
/* vernier.compare/1 JSON (docs/schema/compare-1.json). */
int vn__cmp_report_json(const vn__cmp_result *r, const vn__cmp_files *f, vn_buf *out);

#endif
