/* The engine's private structures, shared by bench*.c and the tests. */
#ifndef VN_BENCH_INTERNAL_H
#define VN_BENCH_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "counters/internal.h"
#include "engine/results.h"
#include "vernier/bench.h"

/* Replacements for the machine, so tests drive the engine deterministically:
 * a clock that returns what the test says, fixed timer facts, a fixed
 * reference cycle, and no interference probes. */
typedef struct vn__hooks {
    uint64_t (*now)(void *ctx);   /* ns; replaces the timer when set */
    void *ctx;
    double timer_cost_ns;         /* used instead of probing the timer */
    double timer_resolution_ns;
    double (*ref_ns)(void *ctx);  /* ns per reference cycle; NULL gives NAN */
    double (*branch_cycles)(void *ctx); /* the taken-branch probe; NULL gives NAN */
    double (*cpu_ns)(void *ctx, double wall_ns); /* a sample's CPU time, given its wall time */
    vn_bench_fn empty;            /* the empty loop, instead of the real one; NULL: the real one */
    int no_interference;          /* skip getrusage/getcpu around samples */
    unsigned (*sample_tags)(void *ctx); /* the tags of each sample, instead of probing */
    unsigned (*empty_tags)(void *ctx);  /* the same for the empty loop's samples */
    int no_sysinfo;               /* skip the machine snapshot */
    /* The perf_event_open system calls, for a fake PMU. With other hooks
     * set and this one NULL, the run has no counters at all, so the fake
     * clock's tests do not depend on the machine's PMU. */
    const vn__perf_sys *perf;
} vn__hooks;

/* What a benchmark function's state points at during a sample. */
struct vn__run {
    vn_clock_id timer;
    double timer_cost_ns;         /* one read of it (the reference loop grows with it) */
    int ref_blocks;               /* blocks of 100 adds a reference times; 0: none */
    double ref_extra_ns;          /* what the timer reads add to such a span */
    const vn__hooks *hooks;       /* NULL on the real machine */
    uint64_t iters;
    uint64_t t_start, t_end;      /* in the timer's unit */
    int phase;                    /* 0 not started, 1 running, 2 ended */
    void *data;
    void *user;
    int64_t param;
    double bytes, items;          /* per iteration; NAN unset */
    int failed;
    int skipped;                  /* vn_state_skip(): failed, as a skip */
    char error[256];
    double manual_ns;             /* vn_state_set_time() this sample; NAN none */
    /* Counters read at the edges of a sample, next to the timer; NULL when
     * none are counting. */
    vn_counters *ctr;
    vn_counts c0, c1;
    int ctr_ok;                   /* both reads of this sample succeeded */
    double cur[VN_COUNTERS_MAX];  /* the last sample's counts per iteration */
    uint32_t cur_scaled;
};

typedef struct vn__bench {
    char name[128];
    vn_bench_fn fn;
    vn_bench_opts opts;
    int64_t *values;              /* the parameter's values, owned (copied) */
    size_t nvalues;
} vn__bench;

struct vn_suite {
    vn__bench *v;
    size_t n, cap;
    int optimized;
    int has_hooks;
    vn__hooks hooks;
    vn_suite_after_fn after;
    void *after_ctx;
    int no_fit;                   /* no complexity lines (vn__suite_no_fit) */
};

void vn__suite_set_hooks(vn_suite *s, const vn__hooks *h);
/* No complexity line for s's sweeps: for suites whose sweeps say what they
 * mean in lines of their own, such as vernier suite's. */
void vn__suite_no_fit(vn_suite *s);

/* ---- Rows together (engine/compare.c) ---- */

/* VN_ENOENT, with a line saying what is wrong in why (of n bytes; NULL
 * for none), when a benchmark of s names a baseline that is no row of s,
 * or cfg->baseline names no row that runs (after cfg->filter). */
int vn__baselines_check(const vn_suite *s, const vn_config *cfg, char *why, size_t n);
/* Once the rows have run: each row's ratio to its baseline (the rows name
 * it in their baseline field) with a finding per row, and with fit, a
 * complexity finding per benchmark with a parameter. of[i] is the
 * benchmark of row i of out, which is in the library's own layout. */
int vn__compare_rows(vn_results *out, const vn__bench *const *of, int fit);
/* The name of benchmark b's row for parameter value k (k unused without
 * values): "name", or "name/param=value", as results and --filter see it. */
void vn__row_name(const vn__bench *b, size_t k, char *name, size_t len);

/* One timer read, in the timer's unit (inline counter reads on x86/arm). */
uint64_t vn__timer_read(const struct vn__run *r);
/* A difference of two reads in ns. */
double vn__timer_delta_ns(const struct vn__run *r, uint64_t delta);

/* The timer vernier clocks would select, found by a quick probe of the
 * candidates: id, reason, cost of one read and its resolution in ns. */
int vn__timer_choose(const char *name, vn_clock_id *id, char *reason, size_t reasonlen,
                     double *cost_ns, double *resolution_ns);

/* Sizes the reference loop for r's timer (its cost and resolution_ns) and
 * measures, once, what the timer reads add to a span of it; with no
 * reference (no such loop compiled, a timer too coarse, or hooks) it sets
 * ref_blocks to 0. */
void vn__ref_setup(struct vn__run *r, double resolution_ns);

/* ns per cycle of a dependent chain of register adds, one cycle each on
 * every out-of-order core since the 1990s (adds of a constant some cores
 * fold, several a cycle: time_add_blocks); NAN where there is no
 * reference. */
double vn__ref_ns_per_cycle(const struct vn__run *r);

/* Reference cycles per iteration of a loop that is nothing but a taken
 * branch, VN__PROBE_BRANCHES of them twice, the faster of the two, timed
 * right now (ref_ns: a reference measured shortly before).
 * One on every core that takes a branch a cycle, when the core is its own;
 * about two while a second hardware thread shares its front end, which the
 * chain of adds does not feel. NAN where no such loop is compiled. */
double vn__branch_cycles(const struct vn__run *r, double ref_ns);
#define VN__PROBE_BRANCHES 8000  /* a half: about 2.5-5 us */

/* By default (vn__policy.shared_ratio), a probe this many times slower
 * than the third fastest of the run: the core's front end was shared
 * (VN_TAG_SHARED_CORE). Quiet probes read
 * within a few percent of each other; shared ones 1.5 to 2.5 times the
 * quiet ones, with a few at 1.1 to 1.2 (a lighter load on the other
 * thread). */
#define VN__SHARED_RATIO 1.10

/* A sample that spent less than this share of its wall time on the CPU
 * was asleep or waiting, which a shared core does not slow: it is never
 * tagged VN_TAG_SHARED_CORE. */
#define VN__ON_CPU_MIN 0.5

/* A share of wall time on the CPU at or over VN__ON_CPU_MIN; one not known
 * (NAN) counts as on the CPU, the state no measurement contradicts. */
static inline int vn__on_cpu(double share) { return !(share < VN__ON_CPU_MIN); }

/* Writes over a buffer larger than the caches, so the next sample starts
 * cold. The buffer is sized once from the machine snapshot. */
typedef struct vn__evict {
    unsigned char *buf;
    size_t len;
} vn__evict;
int  vn__evict_init(vn__evict *e, const vn_sysinfo *env);
void vn__evict_run(vn__evict *e);
void vn__evict_free(vn__evict *e);

/* The empty loop (engine/empty.c, always compiled with optimization). */
void vn__empty_loop(vn_state *st);

/* ---- Counters (engine/counters.c) ---- */

/* Opens the counters cfg asks for on the calling thread (through the hooks'
 * fake PMU when there are hooks), enables them, and describes them in info.
 * *out is NULL when counters are off or none could be opened. */
int vn__bench_counters_open(const vn_config *cfg, const vn__hooks *hooks, vn_counters **out,
                            vn_counter_info *info);
/* The same events on the calling thread, for the threads of --threads;
 * NULL when they do not open the same way. */
vn_counters *vn__bench_counters_again(const vn_counters *c);
/* After a sample: its counts per iteration into r->cur (NAN when a read
 * failed). */
void vn__bench_counters_sample(struct vn__run *r, uint64_t iters);
/* A row's counters, the engine's or a command's, from the counts of its
 * samples (nsamples x the n events of c, per iteration; NULL when none were
 * read, which makes every value unknown): points each sample at its
 * counts, and fills out[0..n-1] with the median of each event over the
 * samples without a tag in left_out (0: all), net of the median of the
 * empty loop's counts (nempty x n; those in empty_use, or all when it is
 * NULL; none for a command), and derived with the ratios. */
int vn__counter_summary(const vn_counters *c, double *counts, vn_sample *samples, size_t nsamples,
                        unsigned left_out, const double *empty, size_t nempty,
                        const unsigned char *empty_use, double bytes_per_iter,
                        vn_counter_result *out, vn_counter_derived *derived);
/* The result's counters from its samples' counts (nsamples x n, taken over
 * by res; those without a tag in res->left_out used) and the empty loop's
 * (nempty x n; those in empty_use used, or all when it is NULL). */
int vn__bench_counters_finish(vn_result *res, const vn_counters *c, double *sample_counts,
                              const double *empty, size_t nempty, const unsigned char *empty_use);

/* Adds a warning (stable id, one-line message, cut at a word when too long)
 * to a list of n; the first VN_MAX_WARNINGS are kept. Returns it, or NULL
 * when it was not kept. The runner's rows keep theirs the same way. */
vn_bench_warning *vn__warning_vadd(vn_bench_warning *list, int *n, const char *id,
                                   const char *fmt, va_list ap);
/* Adds a warning (stable id, one-line message) to a result; the first
 * VN_MAX_WARNINGS are kept. Returns it, or NULL when it was not kept. */
vn_bench_warning *vn__result_warn(vn_result *r, const char *id, const char *fmt, ...)
    VN_PRINTF(3, 4);
/* Gives a warning (NULL: nothing) the brief the console shows: a few words
 * with the numbers first ("5/11 samples preempted or migrated, left out"),
 * so that the console can name several rows with one warning on one line. */
void vn__warning_brief(vn_bench_warning *w, const char *fmt, ...) VN_PRINTF(2, 3);

/* The warnings of one result, derived from its numbers and the decision on
 * its samples (engine/decide.h; pure). */
struct vn__decision;
struct vn__policy;
struct vn__row_decision;
void vn__result_warnings(vn_result *res, const vn_config *cfg, const struct vn__policy *p,
                         int optimized, const struct vn__decision *d,
                         const struct vn__row_decision *rd);
/* The interval of res's headline (ns and cycles), a promise about the next
 * run, widened to reach the headline's quantile q of the processes left
 * out for the other core state (engine/summary.c, pure); in cycles their
 * ns at rate where it is finite (the row's cycles moved to the clock's
 * rate, vn__at_clock), else their cycles; a headline on a core of its own
 * only where that quantile lies within the ratio within of it (over 0).
 * Sets res->other_state and other_reached. 0, or VN_ENOMEM. */
int vn__reach_other_state(vn_result *res, double q, double rate, double within);
/* Whether res's headline left process p out for its core state (not for a
 * reference read slow, nor an upper bound). */
int vn__left_for_state(const vn_result *res, const vn_process_result *p);
/* ci widened to reach the quantile q of x[0..m) (unsorted, sorted here; m
 * may be 0). */
void vn__reach(double ci[2], double *x, size_t m, double q);
/* vn_suite_add_registered(), and on an error the name of the benchmark that
 * could not be added in *bad (when bad is not NULL). */
int vn__suite_add_registered(vn_suite *s, const char **bad);

#endif
