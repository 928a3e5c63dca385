/* The engine's own types and the functions its files share (private):
 * the growable arrays, a row while it runs (job), the empty loop's samples,
 * and one declaration per job of the engine, grouped by the file that does
 * it. The public surface is include/vernier/bench.h; the decision is
 * engine/decide.h. */
#ifndef VN_BENCH_ENGINE_H
#define VN_BENCH_ENGINE_H

#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "internal.h"
#include "vernier/bench.h"

#define EMPTY_EVERY 8        /* one empty-loop sample per this many samples */
#define EMPTY_FIRST 5        /* empty-loop samples before sampling starts */
#define EMPTY_FIRST_LATER 3  /* the same in a worker process after the first */
#define MAX_ITERS ((uint64_t)1 << 40)
#define WARM_AT_SIZE 2       /* warmup samples at the count timed, after it grew */
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
/* The empty loop's samples, one entry each in ns, cyc and branch: time per
 * iteration, the same in reference cycles (the reference measured right
 * before, as for every sample of the body; NAN without one), the slower of
 * the taken-branch probes before and after it; and the counters. */
typedef struct empties {
    dbuf ns, cyc, branch, counts;
} empties;

/* A row's samples from one process, raw, as the engine keeps them until
 * the row's result is made: from this process when it measures alone,
 * from each worker process it ran in otherwise (engine/procs.c). */
typedef struct vn__part {
    int process;                 /* 0, 1, ...: the row's */
    size_t run_process;          /* the run's process it came from, 0 the first */
    uint64_t end_ns;             /* CLOCK_MONOTONIC when that process's answer was read */
    int state;                   /* ROW_DONE, ROW_FAILED */
    vn_stop stop;                /* why the row stopped in that process */
    int skipped;                 /* failed as a skip (vn_state_skip) */
    char error[256];
    uint64_t iters;
    double thr;                  /* the probe over which a sample ran on a shared core */
    double efloor;               /* the empty loop's floor in reference cycles (NAN none) */
    double floor_ns;             /* the smallest difference per iteration the timer shows */
    double elapsed_ns;           /* the row's own time in the process */
    double setup_ns;             /* of which before its first sample: calibration, warmup,
                                    the first empty-loop samples */
    double bytes, items;         /* per iteration as the function set them; -1 unset */
    int timer_capped, waited;
    samples S;
    dbuf cpu_share;              /* per sample: the share of its wall time on the CPU */
    dbuf counts;                 /* per sample, the counters' counts (nctr each) */
    empties E;
} vn__part;

void vn__part_free(vn__part *q);

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
    vn__row_decision rdec;       /* the same over its processes */
    vn__policy pol;              /* the decision's thresholds and the rules' switches, from cfg */
    /* Its samples from each process it ran in so far, and how it stands. */
    vn__part *parts;
    size_t nparts, capparts;
    vn__row_state rstate;
    int done;                    /* no more processes: rstate's last look decided */
    int looked_late;             /* taken up again for the run's late look (plan.c) */
    uint64_t fixed_iters;        /* a worker's iterations per sample from the plan; 0: calibrate */
    int worker;                  /* a worker's row: its part is sent, not summarized */
    double settle_tol;           /* a worker's warmup ends when two samples agree this well */
    size_t nctr;                 /* counters per sample of its parts */
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
    size_t streak;               /* stop tests in a row, up to the last, at which the precision held */
    double setup_ns;             /* the row's own time before its first sample */
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

/* engine/buf.c: the growable arrays. */
int vn__push_sample(samples *s, vn_sample x);
int vn__push_double(dbuf *d, double x);
void vn__auxes_free(struct auxes *a);
void vn__empties_free(empties *e);
int vn__push_counts(dbuf *d, const struct vn__run *r);

/* engine/tag.c: the suite's fastest probes, and the samples taken on a shared core. */
void vn__low3_add(low3 *l, double x);
double vn__low3_floor(const low3 *l);
double vn__probe_branch(job *j, double ref);
double vn__branch_floor(const job *j);
double vn__shared_threshold(const job *j);
void vn__tag_shared(vn_sample *v, const struct auxes *a, double thr);

/* engine/sample.c: one sample, and the row's own time. */
double vn__elapsed_ns(job *j);
int vn__stopping(const job *j);
int vn__run_sample(job *j, vn_bench_fn fn, int user_hooks, uint64_t iters, double *ns,
                      unsigned *tags);

/* engine/calibrate.c: the batch size. */
int vn__calibrate(job *j, uint64_t *iters_out, double *threshold_out, double *cap_out);

/* engine/overhead.c: the empty loop. */
int vn__empty_sample(job *j, uint64_t iters, empties *e);
double vn__row_empty_floor(const job *j, uint64_t iters);
int vn__empty_summary(const empties *E, int quiet, size_t min_kind, double thr, double efloor,
                      uint64_t iters, empty_stats *o, unsigned char *used);

/* engine/summary.c: a row's numbers from its samples and the decision. */
int vn__view_row(const vn_sample *v, size_t n, const empties *E, const vn__policy *pol, double thr,
                 double efloor, uint64_t iters, double floor_ns, vn__row_view *rv);
/* The one decision on a row's parts (its samples from each process): the
 * tags left out over all of them, each process's own decision (proc, k of
 * them) and the row's over them all (vn__decide_row, with st). */
int vn__decide_parts(const vn__part *parts, size_t k, const vn__policy *pol, const vn__row_state *st,
                     vn__decision *proc, vn__row_decision *row);
/* The row's result from its parts and the decision on them: every sample
 * with its process and block, the statistics of the headline's samples,
 * the headline across processes, the counters (nctr per sample, c the
 * events, NULL for none). The parts' arrays are taken over. */
int vn__summarize(vn_result *res, vn__part *parts, size_t k, const vn__policy *pol,
                  const vn__row_state *st, const vn_counters *c, size_t nctr, vn__decision *d,
                  vn__row_decision *rd);
void vn__throughput_of(const job *j, vn_result *res);

/* engine/suite.c: a row's job, and the run's progress line. */
job *vn__job_new(const vn__bench *b, vn_result *res, const vn_config *cfg, const vn__hooks *hooks,
                 const vn_results *out, vn_counters *ctr, vn__evict *evict, struct floors *floors,
                 int *rc);
void vn__row_result_init(vn_result *res, const vn__bench *b, size_t k);
/* A measured row's warnings, and its place in the results. */
void vn__row_done(job *j, vn_results *out);
/* Pins the calling thread to cpu, the old affinity in *old: 0 or -1. */
int vn__pin(int cpu, cpu_set_t *old);
/* The rows taking turns (or one after another), in this process. */
int vn__run_rows(job **jobs, size_t n, const vn_config *cfg, uint64_t seed, vn_results *out);
/* The rows one after another, each to its end, in an order shuffled by
 * seed: a worker's turn at every row (policy sample_turns 0). */
int vn__run_rows_shuffled(job **jobs, size_t n, const vn_config *cfg, uint64_t seed,
                          vn_results *out);

/* engine/procs.c: the rows measured over worker processes. A run may
 * start them when the program's own main runs it (vn_main,
 * vn_suite_main): the workers run that main again. */
typedef struct vn__launch {
    const sigset_t *mask;        /* the signal mask the program's own code runs with */
} vn__launch;
int vn__run_processes(job **jobs, size_t n, const vn_config *cfg, const vn__launch *l,
                      vn_results *out);
/* vn_suite_run() for the program's own main (launch: it may start
 * workers); engine/suite.c. */
int vn__suite_run_launched(vn_suite *s, const vn_config *cfg, vn_results *out, size_t out_size,
                           const vn__launch *launch);
/* The part of a row from this process, made from what it sampled (w). */
int vn__part_of(job *j, int state, vn__part *q);

/* engine/row.c: a row, step by step (rows may take turns). */
int vn__row_begin(job *j, int *state);
int vn__row_step(job *j, int *state);
int vn__row_end(job *j, int state, int rc);
int vn__measure(job *j);

/* engine/threads.c: a row on several threads at once. */
int vn__measure_threads(job *j);

#endif
