/* The engine's own types and the functions its files share (private):
 * the growable arrays, a row while it runs (job), the empty loop's samples,
 * and one declaration per job of the engine, grouped by the file that does
 * it. The public surface is include/vernier/bench.h; the decision is
 * bench_decide.h. */
#ifndef VN_BENCH_ENGINE_H
#define VN_BENCH_ENGINE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_decide.h"
#include "bench_internal.h"
#include "vernier/bench.h"

#define EMPTY_EVERY 8        /* one empty-loop sample per this many samples */
#define EMPTY_FIRST 5        /* empty-loop samples before sampling starts */
#define MAX_ITERS ((uint64_t)1 << 40)
#define FLAT_FROM 24         /* from 2^24 iterations, calibration checks that they run */
#define EMPTY_SELF_RATIO 1.02 /* an empty-loop sample this much over its fastest was shared */
#define EMPTY_SELF_ITERS 1000 /* iterations an empty-loop sample needs to be judged by itself */

/* A growable array of samples. */
typedef struct samples {
    vn_sample *v;
    size_t n, cap;
} samples;
typedef struct dbuf {
    double *v;
    size_t n, cap;
} dbuf;
/* Everything one benchmark row needs while it runs. */
typedef struct job {
    const vn__bench *b;
    vn_config cfg;               /* with the benchmark's own settings applied */
    const vn__hooks *hooks;
    vn_clock_id timer;
    double cost_ns, res_ns;
    vn__evict *evict;
    int interference;            /* probe getrusage/getcpu around samples */
    int timer_capped;            /* samples shorter than 1000 x the timer's cost + resolution */
    struct vn__run run;          /* the state's private part */
    vn_state st;
    /* The row's own time: spent_ns in its turns before the one that began
     * at the timer read resumed (a row that runs alone has one turn, from
     * its start). */
    double spent_ns;
    uint64_t resumed;
    struct floors *floors;       /* NULL: no probes (--threads) */
    double cpu_ns;               /* the last sample's CPU time; NAN unknown */
    struct rowrun *w;            /* the row while it samples (row_begin); NULL with threads */
    vn_result *res;              /* where its result goes */
    vn__decision dec;            /* the decision on its samples at the end (summarize) */
    vn__policy pol;              /* the decision's thresholds and the rules' switches, from cfg */
} job;

#define NO_SAMPLE ((size_t)-1)

/* What the engine keeps of each sample beside what it reports, one entry
 * per sample in each: the first branch probe taken after it (before the
 * next sample, before an empty-loop sample in between, or at the very end;
 * NAN until taken), and the share of its wall time it spent on the CPU
 * (NAN unknown). */
struct auxes {
    dbuf after, cpu_share;
};
/* The fastest few readings of a kind over the whole suite so far, kept by
 * the rows together, so a row run in a busy spell is judged against a quiet
 * moment of an earlier one. The floor is the third fastest: one reading
 * whose reference an interrupt slowed reads too fast, and would make every
 * other look slow; until three are in, the slowest of them; NAN without
 * any. */
#define FLOOR_KEEP 3
typedef struct low3 {
    double v[FLOOR_KEEP];        /* ascending; INFINITY where none yet */
} low3;


#define LOW3_NONE {{INFINITY, INFINITY, INFINITY}}

/* The suite's: the probe is the same loop in every row. (The empty loop's
 * cost per iteration carries the timer's reads spread over the sample's
 * iterations, so its floor is each row's own.) The last sample of any row
 * waits here for the next probe, the one after it, whichever row takes it. */
struct floors {
    low3 branch;   /* taken-branch probes (vn__branch_cycles), reference cycles a branch */
    struct auxes *pend;   /* the probes after the samples of the row that sampled last; NULL none */
    size_t pend_i;        /* the sample waiting in it */
};


/* The empty loop's samples, one entry each in ns, cyc and branch: time per
 * iteration, the same in reference cycles (the reference measured right
 * before, as for every sample of the body; NAN without one), the slower of
 * the taken-branch probes before and after it; and the counters. */
typedef struct empties {
    dbuf ns, cyc, branch, counts;
} empties;
/* A row while it samples: what vn__measure() kept in locals when a row ran
 * from start to end in one go, kept here so that rows can take turns
 * (--interleave). */
struct rowrun {
    samples S;
    struct auxes A;
    empties E;
    low3 empty_low;
    dbuf counts;                 /* per sample, vn_counters_n() each */
    uint64_t iters;
    double budget;
    size_t k;                    /* samples asked for so far */
    int probed;                  /* some sample ran on the CPU with a probe */
    int waiting;                 /* the last stop test waited for quiet moments */
};

/* The empty loop's numbers: median ns with its interval, median reference
 * cycles and their spread. So that the loop subtracted ran like the samples
 * it is subtracted from, from the empty loop's samples taken on a core of
 * its own when most of those samples were (quiet set), else from those
 * taken on a shared one; from all when there are none of the kind. matched
 * says there are EMPTY_FIRST of the kind, enough for an interval. */
typedef struct empty_stats {
    double om, olo, ohi;   /* ns per iteration: median and its 95% interval */
    double oc, spread;     /* reference cycles: median, (p90 - p10) / median */
    size_t kind;           /* empty-loop samples of the kind asked for; 0: from all */
} empty_stats;

/* What a row is doing between its turns. */
enum { ROW_MORE, ROW_DONE, ROW_FAILED };

/* bench_buf.c: the growable arrays. */
int vn__push_sample(samples *s, vn_sample x);
int vn__push_double(dbuf *d, double x);
void vn__auxes_free(struct auxes *a);
void vn__empties_free(empties *e);
double vn__median_of(const double *x, size_t n);
int vn__push_counts(dbuf *d, const struct vn__run *r);

/* bench_tag.c: the suite's fastest probes, and the samples taken on a shared core. */
void vn__low3_add(low3 *l, double x);
double vn__low3_floor(const low3 *l);
double vn__probe_branch(job *j, double ref);
double vn__branch_floor(const job *j);
double vn__shared_threshold(const job *j);
void vn__tag_shared(vn_sample *v, const struct auxes *a, double thr);

/* bench_sample.c: one sample, and the row's own time. */
double vn__elapsed_ns(job *j);
int vn__stopping(const job *j);
int vn__run_sample(job *j, vn_bench_fn fn, int user_hooks, uint64_t iters, double *ns,
                      unsigned *tags);

/* bench_calibrate.c: the batch size. */
int vn__calibrate(job *j, uint64_t *iters_out, double *threshold_out, double *cap_out);

/* bench_overhead.c: the empty loop. */
int vn__empty_sample(job *j, uint64_t iters, empties *e);
double vn__row_empty_floor(const job *j, uint64_t iters);
int vn__empty_summary(const empties *E, int quiet, size_t min_kind, double thr, double efloor,
                      uint64_t iters, empty_stats *o, unsigned char *used);

/* bench_summary.c: a row's numbers from its samples and the decision. */
int vn__view_row(const vn_sample *v, size_t n, const empties *E, const vn__policy *pol, double thr,
                 double efloor, uint64_t iters, double floor_ns, vn__row_view *rv);
int vn__summarize(vn_result *res, const empties *E, const vn__policy *pol, double floor_ns,
                     double thr, double efloor, unsigned char *empty_used, vn__decision *d);
void vn__throughput_of(const job *j, vn_result *res);

/* bench_row.c: a row, step by step (rows may take turns). */
int vn__row_begin(job *j, int *state);
int vn__row_step(job *j, int *state);
int vn__row_end(job *j, int state, int rc);
int vn__measure(job *j);

/* bench_threads.c: a row on several threads at once. */
int vn__measure_threads(job *j);

#endif
