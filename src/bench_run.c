/* The measurement: calibration, warmup, adaptive sampling with the empty
 * loop interleaved, interference tags, reference cycles, and the numbers
 * and warnings of each result. */
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_decide.h"
#include "bench_internal.h"
#include "format.h"
#include "idle_internal.h"
#include "sysinfo_parse.h"
#include "stats_internal.h"

#define EMPTY_EVERY 8        /* one empty-loop sample per this many samples */
#define EMPTY_FIRST 5        /* empty-loop samples before sampling starts */
#define MAX_ITERS ((uint64_t)1 << 40)
#define FLAT_FROM 24         /* from 2^24 iterations, calibration checks that they run */
#define EMPTY_SELF_RATIO 1.02 /* an empty-loop sample this much over its fastest was shared */
#define EMPTY_SELF_ITERS 1000 /* iterations an empty-loop sample needs to be judged by itself */
#define EXTRA_EVERY 4         /* at most one empty-loop sample out of turn per this many */

/* A growable array of samples. */
typedef struct samples {
    vn_sample *v;
    size_t n, cap;
} samples;

static int push_sample(samples *s, vn_sample x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        vn_sample *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return VN_ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

typedef struct dbuf {
    double *v;
    size_t n, cap;
} dbuf;

static int push_double(dbuf *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        double *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return VN_ENOMEM;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = x;
    return 0;
}

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

static void auxes_free(struct auxes *a) { free(a->after.v), free(a->cpu_share.v); }

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

static void low3_add(low3 *l, double x)
{
    if (!(isfinite(x) && x > 0 && x < l->v[FLOOR_KEEP - 1]))
        return;
    int i = FLOOR_KEEP - 1;
    for (; i > 0 && l->v[i - 1] > x; i--)
        l->v[i] = l->v[i - 1];
    l->v[i] = x;
}

static double low3_floor(const low3 *l)
{
    double f = NAN;
    for (int i = 0; i < FLOOR_KEEP && isfinite(l->v[i]); i++)
        f = l->v[i];
    return f;
}

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

/* Times the taken-branch probe against a reference measured shortly
 * before (right before, or before the sample it follows), adds it to the
 * suite's fastest, and gives it to the sample before it as the probe after
 * that sample. NAN where the timer's cost and resolution are over 2% of a
 * probe's half (a syscall clock, cpuid;rdtsc in a VM): it could not tell a
 * shared core from its own reads. */
static double probe_branch(job *j, double ref)
{
    if (!j->floors || (isfinite(ref) && !(j->cost_ns + j->res_ns <= 0.02 * VN__PROBE_BRANCHES * ref)))
        return NAN;
    double b = vn__branch_cycles(&j->run, ref);
    low3_add(&j->floors->branch, b);
    if (j->floors->pend) {
        j->floors->pend->after.v[j->floors->pend_i] = b;
        j->floors->pend = NULL;
    }
    return b;
}

static double branch_floor(const job *j) { return j->floors ? low3_floor(&j->floors->branch) : NAN; }

static double shared_threshold(const job *j)
{
    double f = branch_floor(j);
    return isfinite(f) ? VN__SHARED_RATIO * f : INFINITY;
}

/* Tags the samples taken while the core's front end was shared: the probe
 * before the sample, or the one after it, read over thr. A sample mostly
 * off the CPU (asleep, waiting) lost little to a shared core, whatever the
 * probes say, and is never tagged. Sets the tag afresh each time, since the
 * floor under thr only ever falls. */
static void tag_probed(vn_sample *v, const struct auxes *a, double thr)
{
    for (size_t i = 0; i < a->after.n; i++) {
        int shared = !(a->cpu_share.v[i] < VN__ON_CPU_MIN) &&
                     (v[i].branch_cycles > thr || a->after.v[i] > thr);
        if (shared)
            v[i].tags |= VN_TAG_SHARED_CORE;
        else
            v[i].tags &= ~(unsigned)VN_TAG_SHARED_CORE;
    }
}

/* In a row where the probes saw the core shared, a shared spell shorter
 * than a sample can begin and end between two quiet probes and slow that
 * sample alone (here, samples of a chain of adds between quiet probes read
 * 0 to 10% slow, in no relation to the probes). Noise like that only adds
 * time, so the samples it spared pile up at the mode of the untagged ones
 * (vn_half_sample_mode), m, and the others spread above it. The spread
 * below m, s (the median distance to m, x 1.4826, as a MAD), is the
 * benchmark's own; a sample more than max(3 s, 1% of m) above m is taken
 * for one that shared its core part of the time, and tagged too. Where the
 * probes never saw the core shared, nothing is tagged this way: a slow
 * sample is then the benchmark's own. (bench_internal.h) */
int vn__tag_slow_tail(vn_sample *v, const double *cpu_share, size_t n)
{
#define CANDIDATE(i) (!v[i].tags && !(cpu_share && cpu_share[i] < VN__ON_CPU_MIN))
    size_t shared = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        shared += (v[i].tags & VN_TAG_SHARED_CORE) != 0;
        m += CANDIDATE(i);
    }
    /* One probe an interrupt slowed must not cut off a benchmark's own
     * slow tail on a quiet machine: a few shared samples, at least one in
     * fifty, show the core was really shared. */
    if (shared < 3 || shared * 50 < n || m < VN__SLOW_TAIL_MIN)
        return 0;
    double *x = malloc(m * sizeof *x);
    if (!x)
        return VN_ENOMEM;
    for (size_t i = 0, k = 0; i < n; i++)
        if (CANDIDATE(i))
            x[k++] = v[i].value;
    qsort(x, m, sizeof *x, vn__cmp_double);
    double mode = vn_half_sample_mode(x, m);
    /* The distances below the mode, nearest first. */
    size_t below = 0;
    while (below < m && x[below] <= mode)
        below++;
    for (size_t i = 0; i < below / 2; i++) {
        double t = x[i];
        x[i] = x[below - 1 - i];
        x[below - 1 - i] = t;
    }
    for (size_t i = 0; i < below; i++)
        x[i] = mode - x[i];
    double s = 1.4826 * vn_percentile_sorted(x, below, 50);
    double fence = mode + fmax(3 * s, 0.01 * mode);
    for (size_t i = 0; i < n; i++)
        if (CANDIDATE(i) && v[i].value > fence)
            v[i].tags |= VN_TAG_SHARED_CORE;
#undef CANDIDATE
    free(x);
    return 0;
}

/* Both ways of telling the samples that ran on a shared core; a holds one
 * entry per sample of v. */
static int tag_shared(vn_sample *v, const struct auxes *a, double thr)
{
    tag_probed(v, a, thr);
    return vn__tag_slow_tail(v, a->cpu_share.v, a->after.n);
}

/* The row's own time so far: since it began, less the other rows' turns. */
static double elapsed_ns(job *j)
{
    return j->spent_ns + vn__timer_delta_ns(&j->run, vn__timer_read(&j->run) - j->resumed);
}

/* Was the run stopped (Ctrl-C, the caller's flag)? */
static int stopping(const job *j) { return j->cfg.stop_flag && *j->cfg.stop_flag; }

/* Runs fn once with iters iterations. Returns 0 and the sample's total ns,
 * or 1 when the benchmark failed (the message is in j->run.error). */
static int run_sample(job *j, vn_bench_fn fn, int user_hooks, uint64_t iters, double *ns,
                      unsigned *tags)
{
    struct vn__run *r = &j->run;
    r->iters = iters;
    r->phase = 0;
    r->t_start = r->t_end = 0;
    j->st.run = r;
    *tags = 0;
    /* Each sample's data is its setup's: one that fails before it sets any
     * must not hand the teardown what the last sample's teardown freed
     * (the usual teardown frees vn_state_data(), and would free it twice). */
    if (user_hooks && j->b->opts.setup) {
        r->data = NULL;
        j->b->opts.setup(&j->st);
    }
    /* The empty loop's samples are evicted for too: a cold sample pays for
     * fetching the timing code and the loop, and the empty loop measured
     * the same way takes that back out. */
    if (j->evict)
        vn__evict_run(j->evict);
    struct rusage ru0, ru1;
    int cpu0 = -1;
    /* The thread's CPU time from the scheduler's own count: getrusage's
     * user and system times move only at ticks on many kernels. */
    struct timespec c0;
    int have_c0 = 0;
    if (j->interference) {
        getrusage(RUSAGE_THREAD, &ru0);
        cpu0 = sched_getcpu();
        have_c0 = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0) == 0;
    }
    if (!r->failed) {
        /* The last thing before the call: the timer; just before it the
         * counters, so their system call stays outside the timed region. */
        j->st.remaining = iters;
        r->phase = 1;
        if (r->ctr)
            r->ctr_ok = vn_counters_read(r->ctr, &r->c0) == 0;
        r->t_start = vn__timer_read(r);
        fn(&j->st);
    }
    if (user_hooks && j->hooks && j->hooks->sample_tags)
        *tags = j->hooks->sample_tags(j->hooks->ctx);
    else if (!user_hooks && j->hooks && j->hooks->empty_tags)
        *tags = j->hooks->empty_tags(j->hooks->ctx);
    j->cpu_ns = NAN;
    if (j->interference) {
        int cpu1 = sched_getcpu();
        getrusage(RUSAGE_THREAD, &ru1);
        struct timespec c1;
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1) == 0 && have_c0)
            j->cpu_ns = (double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec);
        if (ru1.ru_nivcsw != ru0.ru_nivcsw)
            *tags |= VN_TAG_PREEMPTED;
        if (cpu0 != cpu1)
            *tags |= VN_TAG_MIGRATED;
    }
    if (user_hooks && j->b->opts.teardown) {
        j->b->opts.teardown(&j->st);
        if (j->b->opts.setup)
            r->data = NULL; /* the teardown had it */
    }
    if (r->failed)
        return 1;
    if (r->phase != 2) {
        r->failed = 1;
        snprintf(r->error, sizeof r->error, "%s",
                 j->st.remaining == iters ? "the function never called vn_next()"
                                          : "the function left its vn_next() loop before it ended");
        return 1;
    }
    *ns = vn__timer_delta_ns(r, r->t_end - r->t_start);
    if (j->hooks && j->hooks->cpu_ns)
        j->cpu_ns = j->hooks->cpu_ns(j->hooks->ctx, *ns);
    if (r->ctr)
        vn__bench_counters_sample(r, iters);
    return 0;
}

/* The median of the finite values of x (n of them); NAN for none, or when
 * memory ran out. */
static double median_of(const double *x, size_t n)
{
    double *y = malloc((n ? n : 1) * sizeof *y), med = NAN, lo, hi;
    size_t m = 0;
    for (size_t i = 0; y && i < n; i++)
        if (isfinite(x[i]))
            y[m++] = x[i];
    if (m && vn_median_ci(y, m, &med, &lo, &hi) != 0)
        med = NAN;
    free(y);
    return med;
}

/* The last sample's counts (n of them) at the end of d. */
static int push_counts(dbuf *d, const struct vn__run *r)
{
    int rc = 0;
    for (size_t i = 0, n = vn_counters_n(r->ctr); i < n && rc == 0; i++)
        rc = push_double(d, r->cur[i]);
    return rc;
}

/* The batch: double the iterations (GMPBench's method) until one sample
 * lasts at least 1000 x (timer cost + resolution), so the timer's error is
 * under 0.1% of it, and at least the minimum sample time. 1 when the
 * benchmark failed or its iterations do not run (j->run.error says which),
 * 2 when the run was stopped (Ctrl-C) meanwhile. */
static int calibrate(job *j, uint64_t *iters_out, double *threshold_out, double *cap_out)
{
    double threshold = 1000.0 * (j->cost_ns + j->res_ns);
    if (!(threshold >= j->cfg.min_sample_time * 1e9))
        threshold = j->cfg.min_sample_time * 1e9;
    /* A coarse timer (monotonic_coarse: 4 ms) would ask for 4 s samples;
     * the budget must still hold the minimum samples, and the timer_bound
     * warning then says the timer's error is more than 0.1%. */
    double cap = j->cfg.max_time * 1e9 / (double)(j->cfg.min_samples + 1);
    if (threshold > cap) {
        threshold = cap;
        /* Only when the timer's share is what the cap cut: a short budget
         * that merely shortens samples below the minimum sample time leaves
         * the timer's error as small as ever. */
        j->timer_capped = cap < 1000.0 * (j->cost_ns + j->res_ns);
    }
    uint64_t iters = 1;
    double took[64]; /* by doubling: took[k] for 2^k iterations */
    for (int k = 0;; k++) {
        double ns;
        unsigned tags;
        /* Ctrl-C between calibration samples too: one iteration of some
         * benchmarks takes seconds. */
        if (stopping(j))
            return 2;
        if (run_sample(j, j->b->fn, 1, iters, &ns, &tags))
            return 1;
        took[k] = ns;
        /* With --cold only the first iteration finds the caches cold, so a
         * sample is one iteration whatever the timer's resolution. */
        if (j->cfg.cold || iters >= MAX_ITERS)
            break;
        /* A thousand times the iterations in under twice the time: they
         * do not run. The compiler removed the loop, or computed what it
         * does without running it. A real loop, even one that runs a
         * hundred iterations a nanosecond, takes about 0.17 ms for 2^24
         * of them, against the timer's tens of ns for 2^14; one with a
         * fixed cost in each sample reaches the threshold before 2^24
         * unless that cost is under a millisecond, and then the thousand-
         * fold iterations more than double it unless each takes under
         * 0.06 ns. An interrupted sample could fake it, so the fastest of
         * three of each size decides. A timer too coarse to see either
         * (both read 0) leaves it to the second test: no loop runs a
         * thousand iterations a nanosecond, so that many for each ns of
         * the threshold that still fall short do not run either. Doubling
         * on would reach 2^40 iterations, and the empty loop would take
         * minutes to run that many. */
        int flat = 0;
        if (k >= FLAT_FROM && ns < 2 * took[k - 10]) {
            double small = took[k - 10], big = ns, x;
            for (int r = 0; r < 2; r++) {
                if (run_sample(j, j->b->fn, 1, iters >> 10, &x, &tags))
                    return 1;
                small = fmin(small, x);
                if (run_sample(j, j->b->fn, 1, iters, &x, &tags))
                    return 1;
                big = fmin(big, x);
            }
            flat = big < 2 * small;
        }
        if (flat || (k >= 10 && ns < threshold && (double)iters >= 1000 * threshold)) {
            char a[32], b[32];
            snprintf(j->run.error, sizeof j->run.error,
                     "%llu iterations took %s and %llu took %s: they do not run, so there is "
                     "nothing to time; the compiler removed the loop or computed its result "
                     "without it (make each iteration's result matter with vn_keep())",
                     (unsigned long long)iters, vn__fmt_ns(b, sizeof b, ns),
                     (unsigned long long)(iters >> 10), vn__fmt_ns(a, sizeof a, took[k - 10]));
            return 1;
        }
        /* The first sample to reach the threshold may be the first to touch
         * its memory, or meet cold caches: slower than the samples after
         * warmup, which would then fall short of it (here, sum_arrays' first
         * 256 iterations reached 1 ms and the later ones took 0.65 ms). A
         * second one at the same size must reach it too. */
        if (ns >= threshold) {
            /* Past the budget's share of a sample (one iteration of seconds,
             * say): no longer sample fits, so a second one could only make
             * the run later. */
            if (ns >= cap)
                break;
            if (stopping(j))
                return 2;
            if (run_sample(j, j->b->fn, 1, iters, &ns, &tags))
                return 1;
            if (ns >= threshold)
                break;
        }
        iters *= 2;
    }
    *iters_out = iters;
    *threshold_out = threshold;
    *cap_out = cap;
    return 0;
}

/* The empty loop's samples, one entry each in ns, cyc and branch: time per
 * iteration, the same in reference cycles (the reference measured right
 * before, as for every sample of the body; NAN without one), the slower of
 * the taken-branch probes before and after it; and the counters. */
typedef struct empties {
    dbuf ns, cyc, branch, counts;
} empties;

static void empties_free(empties *e)
{
    free(e->ns.v), free(e->cyc.v), free(e->branch.v), free(e->counts.v);
}

/* A row while it samples: what measure() kept in locals when a row ran
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
    size_t last_extra;           /* when the last empty-loop sample out of turn was */
    int probed;                  /* some sample ran on the CPU with a probe */
    int waiting;                 /* the last stop test waited for quiet moments */
};

/* One sample of the empty loop; a preempted or migrated one is dropped. 0,
 * or a negative code when memory ran out. */
static int empty_sample(job *j, uint64_t iters, empties *e)
{
    struct vn__run *r = &j->run;
    double ref = vn__ref_ns_per_cycle(r), ns;
    double before = probe_branch(j, ref);
    unsigned tags;
    vn_bench_fn loop = j->hooks && j->hooks->empty ? j->hooks->empty : vn__empty_loop;
    if (run_sample(j, loop, 0, iters, &ns, &tags) != 0 || tags)
        return 0;
    double after = probe_branch(j, ref);
    double cyc = isfinite(ref) && ref > 0 ? ns / (double)iters / ref : NAN;
    if (j->w && iters >= EMPTY_SELF_ITERS)
        low3_add(&j->w->empty_low, cyc);
    int rc = push_double(&e->ns, ns / (double)iters);
    if (rc == 0)
        rc = push_double(&e->cyc, cyc);
    if (rc == 0)
        rc = push_double(&e->branch, fmax(before, after));
    if (rc == 0 && r->ctr)
        rc = push_counts(&e->counts, r);
    return rc;
}

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

/* Was empty-loop sample i taken on a core of its own? Its probes say so,
 * and so does the sample itself, a loop of taken branches too: a sharing
 * that began and ended inside it shows only there, so it must be within
 * EMPTY_SELF_RATIO of efloor, the third fastest the empty loop ran in this
 * row, in reference cycles (quiet samples of the empty loop agree within
 * half a percent). That needs samples of EMPTY_SELF_ITERS iterations or
 * more, where the loop and not the timer's own cost is what they measure;
 * for shorter ones efloor is NAN (row_empty_floor). */
static int empty_quiet(const empties *E, size_t i, double thr, double efloor)
{
    return !(E->branch.v[i] > thr) && !(E->cyc.v[i] > EMPTY_SELF_RATIO * efloor);
}

static double row_empty_floor(const job *j, uint64_t iters)
{
    return iters >= EMPTY_SELF_ITERS && j->w ? low3_floor(&j->w->empty_low) : NAN;
}

static size_t quiet_empties(const empties *E, double thr, double efloor)
{
    size_t q = 0;
    for (size_t i = 0; i < E->ns.n; i++)
        q += empty_quiet(E, i, thr, efloor);
    return q;
}

/* used, when not NULL, gets 1 for each empty-loop sample the numbers come
 * from. */
static int empty_summary(const empties *E, int quiet, double thr, double efloor, uint64_t iters,
                         empty_stats *o, unsigned char *used)
{
    o->om = o->olo = o->ohi = 0;
    o->oc = o->spread = NAN;
    o->kind = 0;
    size_t n = E->ns.n;
    if (!n)
        return 0;
    size_t q = quiet_empties(E, thr, efloor), kind = quiet ? q : n - q;
    int all = kind == 0;
    o->kind = kind;
    double *ns = malloc(n * sizeof *ns), *cyc = malloc(n * sizeof *cyc);
    if (!ns || !cyc) {
        free(ns), free(cyc);
        return VN_ENOMEM;
    }
    size_t m = 0, mc = 0;
    for (size_t i = 0; i < n; i++) {
        int use = all || empty_quiet(E, i, thr, efloor) == quiet;
        if (used)
            used[i] = (unsigned char)use;
        if (!use)
            continue;
        ns[m++] = E->ns.v[i];
        if (isfinite(E->cyc.v[i]))
            cyc[mc++] = E->cyc.v[i];
    }
    int rc = vn_median_ci(ns, m, &o->om, &o->olo, &o->ohi);
    if (rc == 0 && mc) {
        qsort(cyc, mc, sizeof *cyc, vn__cmp_double);
        o->oc = vn_percentile_sorted(cyc, mc, 50);
        /* The spread needs a few samples, long enough (1000 iterations)
         * for the loop, not the timer's own cost, to be what they measure. */
        if (mc >= EMPTY_FIRST && iters >= EMPTY_SELF_ITERS)
            o->spread = (vn_percentile_sorted(cyc, mc, 90) - vn_percentile_sorted(cyc, mc, 10)) /
                        o->oc;
    }
    free(ns), free(cyc);
    return rc;
}

/* The view of a row the decision takes: its samples, and the empty loop's
 * numbers from each kind of moments. 0, or VN_ENOMEM. */
static int row_view(const vn_sample *v, size_t n, const empties *E, double thr, double efloor,
                    uint64_t iters, double floor_ns, vn__row_view *rv)
{
    *rv = (vn__row_view){.v = v, .n = n, .floor_ns = floor_ns};
    for (int quiet = 0; quiet < 2; quiet++) {
        empty_stats es;
        int rc = empty_summary(E, quiet, thr, efloor, iters, &es, NULL);
        if (rc)
            return rc;
        rv->empty[quiet] = (vn__empty_view){es.om, es.olo, es.ohi, es.kind};
    }
    for (size_t i = 0; i < n; i++)
        rv->probed |= isfinite(v[i].branch_cycles);
    return 0;
}

/* Fills the result's numbers from the samples and the decision on them (no
 * clocks, no I/O). floor_ns is the smallest difference per iteration the
 * timer can show: its resolution over the iterations of a sample. thr is
 * the taken-branch probe over which a sample ran on a shared core
 * (tag_shared, done before), efloor the empty loop's fastest (empty_quiet);
 * empty_used, when not NULL, gets 1 for each empty-loop sample the overhead
 * comes from. The decision goes to *d. */
static int summarize(vn_result *res, const empties *E, const vn_config *cfg, double floor_ns,
                     double thr, double efloor, unsigned char *empty_used, vn__decision *d)
{
    size_t n = res->nsamples;
    vn__policy pol;
    vn__policy_init(&pol, cfg);
    vn__row_view rv;
    int rc = row_view(res->samples, n, E, thr, efloor, res->iters, floor_ns, &rv);
    if (rc == 0)
        rc = vn__decide(&rv, &pol, d);
    if (rc)
        return rc;
    double *net = malloc((n ? n : 1) * sizeof *net);
    double *cyc = malloc((n ? n : 1) * sizeof *cyc);
    double *ref = malloc((n ? n : 1) * sizeof *ref);
    if (!net || !cyc || !ref) {
        free(net), free(cyc), free(ref);
        return VN_ENOMEM;
    }
    unsigned skip = d->skip;
    res->left_out = skip;
    res->headline_samples = d->used;
    res->upper_bound = d->head == VN__HEAD_FASTEST || d->head == VN__HEAD_CYCLE;
    res->bound_one_cycle = d->head == VN__HEAD_CYCLE;
    res->bound_ns = res->upper_bound ? d->value : NAN;
    res->ntagged = res->nshared = 0;
    for (size_t i = 0; i < n; i++) {
        res->ntagged += res->samples[i].tags != 0;
        res->nshared += (res->samples[i].tags & VN_TAG_SHARED_CORE) != 0;
    }
    /* The empty loop of the kind of moments the decision took. */
    empty_stats es;
    if ((rc = empty_summary(E, d->quiet, thr, efloor, res->iters, &es, empty_used)) != 0) {
        free(net), free(cyc), free(ref);
        return rc;
    }
    /* For a bound the statistics are of the loop with the body: the net
     * times are noise around zero, negative half the time, and their
     * modes and drift would describe nothing. */
    double om = res->upper_bound ? 0 : es.om;
    res->overhead_ns = es.om;
    res->overhead_ci[0] = es.olo;
    res->overhead_ci[1] = es.ohi;
    res->overhead_cycles = es.oc;
    res->overhead_cycles_spread = es.spread;
    /* No empty-loop sample kept (the run stopped before one, or every one
     * was preempted or migrated): the overhead is unknown, not 0, though
     * nothing is subtracted. */
    if (!E->ns.n)
        res->overhead_ns = res->overhead_ci[0] = res->overhead_ci[1] = NAN;

    size_t m = 0, nc = 0, nr = 0;
    for (size_t i = 0; i < n; i++) {
        const vn_sample *s = &res->samples[i];
        if (isfinite(s->ref_ns) && s->ref_ns > 0)
            ref[nr++] = s->ref_ns;
        if (s->tags & skip)
            continue;
        net[m] = s->value - om;
        if (isfinite(s->ref_ns) && s->ref_ns > 0)
            cyc[nc++] = net[m] / s->ref_ns;
        m++;
    }
    memset(&res->stats, 0, sizeof res->stats);
    if (m)
        rc = vn_stats_compute(net, m, &res->stats);
    if (nr) {
        qsort(ref, nr, sizeof *ref, vn__cmp_double);
        res->ref_ns = vn_percentile_sorted(ref, nr, 50);
        res->ref_spread = (vn_percentile_sorted(ref, nr, 90) - vn_percentile_sorted(ref, nr, 10)) /
                          res->ref_ns;
    } else {
        res->ref_ns = res->ref_spread = NAN;
    }
    if (res->bound_one_cycle) {
        res->cycles = 1;
    } else if (res->upper_bound && nc) {
        /* The bound in reference cycles: the fastest of the samples the
         * headline uses over the fastest of their references. Both minima
         * are what the machine did at its fastest during the run, when the
         * loop and the reference ran at the same clock; noise only ever
         * lengthens either. Dividing each sample by its own reference
         * instead and taking the smallest quotient picks the sample whose
         * reference happened to run slow (the reference takes microseconds,
         * the sample a millisecond, and the clock moves in between), and
         * reads a dependent add under one cycle, which no loop can take. */
        double best = INFINITY;
        for (size_t i = 0; i < n; i++) {
            const vn_sample *s = &res->samples[i];
            if (!(s->tags & skip) && isfinite(s->ref_ns) && s->ref_ns > 0)
                best = fmin(best, s->value);
        }
        res->cycles = best / d->ref;
    } else if (nc && !res->upper_bound) {
        qsort(cyc, nc, sizeof *cyc, vn__cmp_double);
        res->cycles = vn_percentile_sorted(cyc, nc, 50);
    } else {
        res->cycles = NAN;
    }
    double per = res->upper_bound ? NAN : res->stats.median * 1e-9;
    res->bytes_per_sec = res->bytes_per_iter > 0 ? res->bytes_per_iter / per : NAN;
    res->items_per_sec = res->items_per_iter > 0 ? res->items_per_iter / per : NAN;
    free(net), free(cyc), free(ref);
    return rc;
}

/* Bytes and items per iteration: what the function set on its state, else
 * what the options said; NAN (null in JSON) when neither said any. */
static void throughput_of(const job *j, vn_result *res)
{
    res->bytes_per_iter = j->run.bytes >= 0 ? j->run.bytes : j->b->opts.bytes_per_iter;
    res->items_per_iter = j->run.items >= 0 ? j->run.items : j->b->opts.items_per_iter;
    if (!(res->bytes_per_iter > 0))
        res->bytes_per_iter = NAN;
    if (!(res->items_per_iter > 0))
        res->items_per_iter = NAN;
}

/* What a row is doing between its turns. */
enum { ROW_MORE, ROW_DONE, ROW_FAILED };

/* Starts a row: calibration, warmup and the first empty-loop samples. 0
 * with *state ROW_MORE, ROW_FAILED when the benchmark failed (its message
 * in j->run.error), or ROW_DONE when stopped (Ctrl-C) while warming up; a
 * negative code when memory ran out. */
static int row_begin(job *j, int *state)
{
    vn_result *res = j->res;
    struct rowrun *w = calloc(1, sizeof *w);
    if (!w)
        return VN_ENOMEM;
    j->w = w;
    w->empty_low = (low3)LOW3_NONE;
    w->last_extra = NO_SAMPLE;
    j->resumed = vn__timer_read(&j->run);
    j->spent_ns = 0;
    *state = ROW_FAILED;
    double threshold, cap;
    int cal = calibrate(j, &w->iters, &threshold, &cap);
    if (cal == 2) {
        /* Stopped while calibrating: the row ends with no samples. */
        res->stop = VN_STOP_INTERRUPTED;
        *state = ROW_DONE;
        return 0;
    }
    if (cal)
        return 0;
    res->iters = w->iters; /* a row stopped while warming up has its size too */

    /* Warmup: untimed samples until the warmup time has passed since the
     * row began (calibration counts: it ran the code too). */
    double fastest = INFINITY;
    while (elapsed_ns(j) < j->cfg.warmup * 1e9) {
        double ns;
        unsigned tags;
        if (stopping(j)) {
            /* Stopped while warming up: the row ends with no samples. */
            res->stop = VN_STOP_INTERRUPTED;
            *state = ROW_DONE;
            return 0;
        }
        if (run_sample(j, j->b->fn, 1, w->iters, &ns, &tags))
            return 0;
        fastest = fmin(fastest, ns);
    }
    /* The fastest warmup sample must reach the threshold too, or the
     * samples are made longer. On a core shared with a busy second hardware
     * thread now, a loop may run up to as much faster later as the taken-
     * branch probe is slower now than the fastest the run has seen: then
     * by that much more. */
    /* The reference is sized and its reads' share measured now, when the
     * core has run this row's code for the warmup, not when the row was
     * made (before any row ran). */
    vn__ref_setup(&j->run, j->res_ns);
    double b = probe_branch(j, vn__ref_ns_per_cycle(&j->run)) / branch_floor(j);
    if (b > VN__SHARED_RATIO)
        threshold *= fmin(b, 4);
    /* As in calibration, the budget must still hold the minimum samples. */
    threshold = fmin(threshold, cap);
    while (!j->cfg.cold && fastest > 0 && fastest < threshold && w->iters < MAX_ITERS) {
        w->iters *= 2;
        fastest *= 2;
    }
    res->iters = w->iters;
    for (int k = 0; k < EMPTY_FIRST; k++) {
        int rc = empty_sample(j, w->iters, &w->E);
        if (rc)
            return rc;
    }
    w->budget = j->cfg.max_time * 1e9;
    res->stop = VN_STOP_MAX_SAMPLES;
    *state = ROW_MORE;
    return 0;
}

/* The stop rule of a row: the decision (vn__decide) on its samples so far,
 * tagged afresh; w->waiting says whether it waits for quiet moments. *rc
 * an error that ends the run. */
static vn__verdict stop_test(job *j, int *rc)
{
    struct rowrun *w = j->w;
    samples *S = &w->S;
    double thr = shared_threshold(j);
    vn__policy pol;
    vn__row_view rv;
    vn__decision d;
    vn__policy_init(&pol, &j->cfg);
    if ((*rc = tag_shared(S->v, &w->A, thr)) != 0 ||
        (*rc = row_view(S->v, S->n, &w->E, thr, row_empty_floor(j, w->iters), w->iters,
                        j->res_ns / (double)w->iters, &rv)) != 0)
        return VN__GO_ON;
    rv.elapsed_ns = elapsed_ns(j);
    if ((*rc = vn__decide(&rv, &pol, &d)) != 0)
        return VN__GO_ON;
    w->waiting = d.waiting;
    return d.verdict;
}

/* One sample of a row (with the empty-loop samples due before it), then
 * the stop rule. *state stays ROW_MORE, or becomes ROW_DONE (res->stop
 * says why) or ROW_FAILED; a negative code when memory ran out. */
static int row_step(job *j, int *state)
{
    vn_result *res = j->res;
    struct vn__run *r = &j->run;
    struct rowrun *w = j->w;
    samples *S = &w->S;
    size_t k = w->k++;
    int rc;
    if (stopping(j)) {
        res->stop = VN_STOP_INTERRUPTED;
        *state = ROW_DONE;
        return 0;
    }
    if (k % EMPTY_EVERY == EMPTY_EVERY - 1 && (rc = empty_sample(j, w->iters, &w->E)) != 0)
        return rc;
    vn_sample s = {0};
    s.ref_ns = vn__ref_ns_per_cycle(r);
    s.branch_cycles = probe_branch(j, s.ref_ns);
    /* A quiet moment, and too few empty-loop samples from quiet moments to
     * subtract from the quiet samples: one more now, where it has a chance,
     * rather than one in eight whenever; at most one such in EXTRA_EVERY
     * samples, so a row whose empty loop never reads quiet does not spend
     * half its budget on it. */
    double thr = shared_threshold(j);
    if (s.branch_cycles <= thr && (w->last_extra == NO_SAMPLE || k >= w->last_extra + EXTRA_EVERY) &&
        quiet_empties(&w->E, thr, row_empty_floor(j, w->iters)) < EMPTY_FIRST) {
        w->last_extra = k;
        if ((rc = empty_sample(j, w->iters, &w->E)) != 0)
            return rc;
        s.ref_ns = vn__ref_ns_per_cycle(r);
        s.branch_cycles = probe_branch(j, s.ref_ns);
    }
    double ns;
    if (run_sample(j, j->b->fn, 1, w->iters, &ns, &s.tags)) {
        *state = ROW_FAILED;
        return 0;
    }
    /* The signal that stopped the run came during this sample, and may
     * have cut a sleep or a wait in it short (the handlers do not restart
     * them): it is not a measurement. */
    if (stopping(j)) {
        res->stop = VN_STOP_INTERRUPTED;
        *state = ROW_DONE;
        return 0;
    }
    s.value = ns / (double)w->iters;
    s.iters = w->iters;
    s.counts_scaled = r->ctr ? r->cur_scaled : 0;
    /* Under half of it on the CPU: asleep or waiting (tag_probed). */
    double cpu_share = j->cpu_ns / ns;
    w->probed |= !(cpu_share < VN__ON_CPU_MIN) && isfinite(s.branch_cycles);
    if ((rc = push_sample(S, s)) != 0 || (rc = push_double(&w->A.after, NAN)) != 0 ||
        (rc = push_double(&w->A.cpu_share, cpu_share)) != 0 ||
        (r->ctr && (rc = push_counts(&w->counts, r)) != 0))
        return rc;
    /* The next probe, this row's or another's, is the one after it (a row
     * whose timer is too costly to probe leaves the one waiting as it is). */
    if (j->floors && isfinite(s.branch_cycles)) {
        j->floors->pend = &w->A;
        j->floors->pend_i = S->n - 1;
    }

    /* The stop test sorts the samples, so past 64 samples it runs only
     * every n/32 samples (a few percent of extra samples at most, and no
     * quadratic cost), but always at the most samples or the end of the
     * budget, where the decision is to stop: for precision, met at last,
     * or at the limit, and then the result says whether it was waiting for
     * quiet moments rather than for precision. */
    int enough = S->n >= j->cfg.min_samples;
    int limit = S->n >= j->cfg.max_samples || (enough && elapsed_ns(j) >= w->budget);
    if (!limit && (!enough || (S->n >= 64 && S->n % (S->n / 32) != 0)))
        return 0;
    vn__verdict v = stop_test(j, &rc);
    if (v != VN__GO_ON) {
        res->stop = v == VN__STOP_PRECISE ? VN_STOP_PRECISION
                  : v == VN__STOP_MAX_SAMPLES ? VN_STOP_MAX_SAMPLES : VN_STOP_MAX_TIME;
        res->waited = v != VN__STOP_PRECISE && w->waiting;
        *state = ROW_DONE;
    }
    return rc;
}

/* Ends a row: its result from the samples (ROW_DONE), or what it had when
 * the benchmark failed (ROW_FAILED); then frees the row's state, also when
 * rc, an error that ends the whole run, is passed in (and returned). */
static int row_end(job *j, int state, int rc)
{
    vn_result *res = j->res;
    struct rowrun *w = j->w;
    unsigned char *empty_used = NULL;
    if (!w)
        return rc;
    struct vn__run *r = &j->run;
    samples *S = &w->S;
    if (rc)
        goto out;
    if (state == ROW_FAILED) {
        res->stop = VN_STOP_FAILED;
        snprintf(res->error, sizeof res->error, "%s", r->error);
        res->samples = S->v;
        res->nsamples = S->n;
        S->v = NULL;
        /* Which samples the headline would have left out. */
        vn__policy pol;
        vn__row_view rv = {.v = res->samples, .n = res->nsamples};
        vn__policy_init(&pol, &j->cfg);
        if ((rc = vn__decide(&rv, &pol, &j->dec)) != 0)
            goto out;
        res->left_out = j->dec.skip;
        /* The samples before the failure keep their counts. */
        if (r->ctr) {
            vn__bench_counters_finish(res, r->ctr, w->counts.v, w->E.counts.v,
                                      w->E.counts.n / vn_counters_n(r->ctr), NULL);
            w->counts.v = NULL;
        }
        goto out;
    }
    /* The probe after the last sample, so it is judged on both sides too.
     * It can retag the last samples after the stop was decided on them;
     * the headline then rests on what is known at the end, a sample or two
     * different from what the stop rule saw. */
    probe_branch(j, vn__ref_ns_per_cycle(r));
    if ((rc = tag_shared(S->v, &w->A, shared_threshold(j))) != 0)
        goto out;
    res->samples = S->v;
    res->nsamples = S->n;
    S->v = NULL;
    throughput_of(j, res);
    res->on_cpu = median_of(w->A.cpu_share.v, w->A.cpu_share.n);
    empty_used = calloc(w->E.ns.n ? w->E.ns.n : 1, 1);
    if (!empty_used) {
        rc = VN_ENOMEM;
        goto out;
    }
    rc = summarize(res, &w->E, &j->cfg, j->res_ns / (double)res->iters, shared_threshold(j),
                   row_empty_floor(j, w->iters), empty_used, &j->dec);
    /* The counters net of the same empty-loop samples as the time. */
    if (rc == 0 && r->ctr) {
        rc = vn__bench_counters_finish(res, r->ctr, w->counts.v, w->E.counts.v,
                                       w->E.counts.n / vn_counters_n(r->ctr), empty_used);
        w->counts.v = NULL;
    }
out:
    /* No probe may write into this row's arrays once they are gone. */
    if (j->floors && j->floors->pend == &w->A)
        j->floors->pend = NULL;
    free(S->v);
    auxes_free(&w->A);
    free(w->counts.v);
    free(empty_used);
    empties_free(&w->E);
    free(w);
    j->w = NULL;
    res->elapsed = elapsed_ns(j) / 1e9;
    return rc;
}

/* Measures one row single-threaded, from start to end. Returns 0 (the
 * result says whether the benchmark failed), or a negative code when
 * vernier itself failed. */
static int measure(job *j)
{
    int state;
    int rc = row_begin(j, &state);
    while (rc == 0 && state == ROW_MORE)
        rc = row_step(j, &state);
    return row_end(j, state, rc);
}

/* ---- Several threads at once ----------------------------------------------- */

/* Threads that start at different moments measure different machines: the
 * first ones run alone. So every thread runs untimed samples until all have
 * arrived, then they pass a barrier together and only then start timing.
 * The barrier is two counters rather than a pthread barrier, so that when a
 * thread cannot be started the main thread can let the others through by
 * counting the missing ones in, all at once. */
typedef struct shared {
    int n;
    uint64_t iters;
    atomic_int arrived;
    atomic_int ready;           /* at the barrier */
    atomic_int stop;
    atomic_int reason;          /* a vn_stop, set by whoever stops the threads first */
    atomic_size_t taken;        /* timed samples of all threads */
    double om, olo, ohi;        /* the empty loop, measured before: median, its CI */
    size_t nempty;              /* its samples */
} shared;

typedef struct tctx {
    job j;
    int index;
    shared *sh;
    samples S;
    int failed;
    int rc;
    size_t nctr;                 /* counters per sample (the main thread's) */
    vn_counters *own;            /* this thread's own group; NULL: counts unknown */
    dbuf counts;
    uint64_t began, ended;       /* timer readings: past the barrier, out of the loop */
    double iters_done;           /* iterations of its timed samples */
} tctx;

/* Stops every thread for the reason given, unless something stopped them
 * first (Ctrl-C, a limit, a failure): the first to stop them says why. */
static void stop_threads(shared *sh, vn_stop why)
{
    int running = 0;
    if (atomic_compare_exchange_strong(&sh->stop, &running, 1))
        atomic_store(&sh->reason, (int)why);
}

static void *thread_main(void *arg)
{
    tctx *t = arg;
    job *j = &t->j;
    shared *sh = t->sh;
    double ns;
    unsigned tags;
    /* A counter group counts the thread that opened it (pid 0), so each
     * thread opens its own. */
    if (t->nctr)
        t->own = vn__bench_counters_again(j->run.ctr);
    j->run.ctr = t->own;
    atomic_fetch_add(&sh->arrived, 1);
    /* Ctrl-C must not wait for a thousand threads to start on two CPUs. */
    int stopped = 0;
    while (atomic_load(&sh->arrived) < sh->n && !t->failed &&
           !(stopped = stopping(j)))
        t->failed = run_sample(j, j->b->fn, 1, 1, &ns, &tags);
    if (stopped)
        stop_threads(sh, VN_STOP_INTERRUPTED);
    atomic_fetch_add(&sh->ready, 1);
    while (atomic_load(&sh->ready) < sh->n)
        sched_yield(); /* more threads than CPUs: let the last ones get there */
    if (t->failed) {
        atomic_store(&sh->stop, 1);
        return NULL;
    }
    double budget = j->cfg.max_time * 1e9;
    vn__policy pol;
    vn__policy_init(&pol, &j->cfg);
    t->began = vn__timer_read(&j->run);
    while (!atomic_load(&sh->stop)) {
        if (stopping(j)) {
            stop_threads(sh, VN_STOP_INTERRUPTED);
            break;
        }
        vn_sample s = {0};
        s.thread = t->index;
        s.ref_ns = vn__ref_ns_per_cycle(&j->run);
        s.branch_cycles = NAN; /* the threads share cores on purpose */
        if (run_sample(j, j->b->fn, 1, sh->iters, &ns, &s.tags)) {
            t->failed = 1;
            atomic_store(&sh->stop, 1);
            break;
        }
        if (stopping(j)) { /* cut short, as in row_step */
            stop_threads(sh, VN_STOP_INTERRUPTED);
            break;
        }
        s.value = ns / (double)sh->iters;
        s.iters = sh->iters;
        t->iters_done += (double)sh->iters;
        s.counts_scaled = t->own ? j->run.cur_scaled : 0;
        for (size_t k = 0; k < t->nctr && !t->rc; k++)
            t->rc = push_double(&t->counts, t->own ? j->run.cur[k] : NAN);
        if (t->rc || (t->rc = push_sample(&t->S, s)) != 0) {
            atomic_store(&sh->stop, 1);
            break;
        }
        /* The budget, on the samples of all threads (the headline pools
         * them), by whichever thread sees it spent: with more threads than
         * CPUs thread 0 runs a small share of the time, and would reach the
         * minimum samples of its own long after the budget. */
        size_t all = atomic_fetch_add(&sh->taken, 1) + 1;
        if (all >= j->cfg.min_samples && elapsed_ns(j) >= budget) {
            stop_threads(sh, VN_STOP_MAX_TIME);
            break;
        }
        if (t->index != 0)
            continue;
        /* Thread 0 decides for all, on its own samples: they are measured
         * under the same contention as everyone's. A limit stops them; the
         * headline, of every thread's samples, may still meet the precision,
         * and then says so (stopped_at_a_limit(), bench_warnings.c). */
        int enough = t->S.n >= j->cfg.min_samples;
        if (t->S.n >= j->cfg.max_samples) {
            stop_threads(sh, VN_STOP_MAX_SAMPLES);
        } else if (enough && (t->S.n < 64 || t->S.n % (t->S.n / 32) == 0)) {
            /* No probes: the empty loop's one set of numbers stands for
             * both kinds of moments. */
            vn__empty_view e = {sh->om, sh->olo, sh->ohi, sh->nempty};
            vn__row_view rv = {.v = t->S.v, .n = t->S.n, .empty = {e, e},
                               .floor_ns = j->res_ns / (double)sh->iters};
            vn__decision d;
            if ((t->rc = vn__decide(&rv, &pol, &d)) == 0 && d.precise)
                stop_threads(sh, VN_STOP_PRECISION);
        }
    }
    t->ended = vn__timer_read(&j->run);
    return NULL;
}

static int measure_threads(job *j)
{
    vn_result *res = j->res;
    int n = j->cfg.threads;
    int rc = 0;
    empties E = {0};
    dbuf all_counts = {0};
    size_t nctr = j->run.ctr ? vn_counters_n(j->run.ctr) : 0;
    j->resumed = vn__timer_read(&j->run);
    uint64_t iters;
    double threshold, cap;
    int cal = calibrate(j, &iters, &threshold, &cap);
    if (cal == 2) {
        res->stop = VN_STOP_INTERRUPTED;
        return 0;
    }
    if (cal) {
        res->stop = VN_STOP_FAILED;
        snprintf(res->error, sizeof res->error, "%s", j->run.error);
        return 0;
    }
    res->iters = iters;
    vn__ref_setup(&j->run, j->res_ns); /* before the threads copy the run */
    for (int k = 0; k < EMPTY_FIRST * 2 && rc == 0; k++)
        rc = empty_sample(j, iters, &E);
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.n = n;
    sh.iters = iters;
    sh.reason = VN_STOP_MAX_SAMPLES;
    if (E.ns.n)
        vn_median_ci(E.ns.v, E.ns.n, &sh.om, &sh.olo, &sh.ohi);
    sh.nempty = E.ns.n;
    tctx *t = calloc((size_t)n, sizeof *t);
    pthread_t *tid = calloc((size_t)n, sizeof *tid);
    res->thread_median = calloc((size_t)n, sizeof *res->thread_median);
    if (!t || !tid || !res->thread_median) {
        free(t), free(tid), empties_free(&E);
        return VN_ENOMEM;
    }
    int started = 0, err = 0;
    for (int i = 0; i < n; i++) {
        t[i].j = *j;
        t[i].j.st.run = &t[i].j.run;
        t[i].index = i;
        t[i].sh = &sh;
        t[i].nctr = nctr;
        if ((err = pthread_create(&tid[i], NULL, thread_main, &t[i])) != 0)
            break;
        started++;
    }
    if (started < n) {
        /* The row fails: the threads that started are stopped, and let past
         * the barrier by counting the missing ones in. */
        atomic_store(&sh.stop, 1);
        atomic_fetch_add(&sh.arrived, n - started);
        atomic_fetch_add(&sh.ready, n - started);
        res->stop = VN_STOP_FAILED;
        snprintf(res->error, sizeof res->error, "could not start thread %d of %d: %s", started + 1, n,
                 strerror(err));
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);

    samples all = {0};
    res->threads = n;
    res->total_iter_per_sec = 0;
    for (int i = 0; i < started && rc == 0; i++) {
        if (t[i].failed && !res->error[0]) {
            res->stop = VN_STOP_FAILED;
            snprintf(res->error, sizeof res->error, "%s", t[i].j.run.error);
        }
        if (t[i].rc)
            rc = t[i].rc;
        for (size_t k = 0; k < t[i].S.n && rc == 0; k++) {
            rc = push_sample(&all, t[i].S.v[k]);
            for (size_t c = 0; c < nctr && rc == 0; c++)
                rc = push_double(&all_counts, t[i].counts.v[k * nctr + c]);
        }
    }
    for (int i = 0; i < n; i++) {
        free(t[i].S.v);
        free(t[i].counts.v);
        vn_counters_destroy(t[i].own);
    }
    if (res->stop != VN_STOP_FAILED)
        res->stop = (vn_stop)atomic_load(&sh.reason);
    res->samples = all.v;
    res->nsamples = all.n;
    if (rc == 0 && res->stop != VN_STOP_FAILED) {
        throughput_of(&t[0].j, res);
        rc = summarize(res, &E, &j->cfg, j->res_ns / (double)res->iters,
                       INFINITY, NAN, NULL, &j->dec);
    }
    if (nctr && rc == 0) {
        rc = vn__bench_counters_finish(res, j->run.ctr, all_counts.v, E.counts.v,
                                       E.counts.n / nctr, NULL);
        all_counts.v = NULL;
    }
    free(all_counts.v);
    /* Each thread's median of the samples the headline uses, as measured:
     * the loop with the body, its own cost included. The empty loop was
     * measured on one thread before the others started, so it is not the
     * loop these threads ran; and a rate from a net time counts the loop as
     * free (here, a thread-private increment whose net median was 0.05 ns
     * made 21 Giter/s of one thread whose loop took 0.36 ns). Together is
     * what the threads did: all their iterations over the wall time from
     * the first to start timing to the last to stop. Not 1e9 / median per
     * thread: the median leaves out the samples other threads preempted, so
     * 1000 threads taking turns on 2 CPUs would read 1000 times one; nor
     * each thread's iterations over its own span, summed: threads taking
     * turns one after another would each read a CPU of their own. */
    uint64_t first = 0, last = 0;
    double iters_all = 0;
    for (int i = 0; i < n; i++) {
        if (!t[i].iters_done)
            continue;
        if (!iters_all || (int64_t)(t[i].began - first) < 0)
            first = t[i].began;
        if (!iters_all || (int64_t)(t[i].ended - last) > 0)
            last = t[i].ended;
        iters_all += t[i].iters_done;
    }
    double span = iters_all ? vn__timer_delta_ns(&j->run, last - first) : 0;
    if (span > 0)
        res->total_iter_per_sec = iters_all / span * 1e9;
    for (int i = 0; i < n; i++) {
        dbuf mine = {0};
        for (size_t k = 0; k < res->nsamples && rc == 0; k++)
            if (res->samples[k].thread == i && !(res->samples[k].tags & res->left_out))
                rc = push_double(&mine, res->samples[k].value);
        double med = NAN, lo, hi;
        if (mine.n)
            vn_median_ci(mine.v, mine.n, &med, &lo, &hi);
        free(mine.v);
        res->thread_median[i] = med;
    }
    free(t), free(tid), empties_free(&E);
    res->elapsed = elapsed_ns(j) / 1e9;
    return rc;
}

/* ---- Running a suite ------------------------------------------------------- */

static void progress(const vn_config *c, const char *name, size_t i, size_t n)
{
    if (!c->progress)
        return;
    char shown[sizeof ((vn_result *)0)->name];
    fprintf(stderr, "\r\033[K[%zu/%zu] %s ...", i + 1, n, vn__fmt_printable(shown, sizeof shown, name));
    fflush(stderr);
}

static int pin(int cpu, cpu_set_t *old)
{
    if (sched_getaffinity(0, sizeof *old, old) != 0)
        return -1;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0 ? 0 : -1;
}

/* A row's result before it is measured: its name, and null (NAN) for
 * every number, so that a row that fails before its summary says null,
 * not a 0 that looks measured. */
static void row_result_init(vn_result *res, const vn__bench *b, size_t k)
{
    memset(res, 0, sizeof *res);
    res->on_cpu = NAN;
    res->overhead_ns = res->overhead_ci[0] = res->overhead_ci[1] = NAN;
    res->ref_ns = res->ref_spread = res->cycles = res->overhead_cycles = NAN;
    res->overhead_cycles_spread = NAN;
    res->bytes_per_iter = res->items_per_iter = NAN;
    res->bytes_per_sec = res->items_per_sec = NAN;
    res->unit = "ns";
    res->threads = 1;
    if (b->nvalues) {
        res->param = b->values[k];
        snprintf(res->param_name, sizeof res->param_name, "%s",
                 b->opts.param_name ? b->opts.param_name : "n");
    }
    vn__row_name(b, k, res->name, sizeof res->name);
}

void vn__row_name(const vn__bench *b, size_t k, char *name, size_t len)
{
    if (b->nvalues)
        snprintf(name, len, "%s/%s=%lld", b->name, b->opts.param_name ? b->opts.param_name : "n",
                 (long long)b->values[k]);
    else
        snprintf(name, len, "%s", b->name);
}

/* The job of one row, with the benchmark's own settings applied; NULL with
 * *rc set when memory ran out or its own timer is unknown. */
static job *job_new(const vn__bench *b, vn_result *res, const vn_config *cfg, const vn__hooks *hooks,
                    const vn_results *out, vn_counters *ctr, vn__evict *evict, struct floors *floors,
                    int *rc)
{
    job *j = calloc(1, sizeof *j);
    if (!j) {
        *rc = VN_ENOMEM;
        return NULL;
    }
    j->b = b;
    j->res = res;
    j->cfg = *cfg;
    if (b->opts.max_time > 0)
        j->cfg.max_time = b->opts.max_time;
    if (b->opts.precision > 0)
        j->cfg.precision = b->opts.precision;
    if (b->opts.min_samples > 0)
        j->cfg.min_samples = b->opts.min_samples;
    if (j->cfg.max_samples < j->cfg.min_samples)
        j->cfg.max_samples = j->cfg.min_samples;
    j->hooks = hooks;
    j->timer = out->timer;
    j->cost_ns = out->timer_cost_ns;
    j->res_ns = out->timer_resolution_ns;
    if (b->opts.timer && !hooks) {
        char why[64];
        *rc = vn__timer_choose(b->opts.timer, &j->timer, why, sizeof why, &j->cost_ns, &j->res_ns);
        if (*rc) {
            free(j);
            return NULL;
        }
    }
    j->evict = evict;
    j->interference = !(hooks && hooks->no_interference);
    j->floors = floors;
    j->run.timer = j->timer;
    j->run.timer_cost_ns = j->cost_ns;
    j->run.hooks = hooks;
    j->run.user = b->opts.user;
    j->run.param = res->param;
    j->run.bytes = j->run.items = -1;
    j->run.ctr = ctr;
    j->st.run = &j->run;
    return j;
}

/* A measured row's warnings, and its place in the results. */
static void row_done(job *j, vn_results *out)
{
    vn_result *res = j->res;
    res->max_time = j->cfg.max_time;
    res->precision = j->cfg.precision;
    res->min_samples = j->cfg.min_samples;
    res->timer = j->timer;
    vn__result_warnings(res, &j->cfg, out->optimized, &j->dec);
    char cost[32], step[32];
    if (j->timer_capped)
        vn__result_warn(res, "timer_bound",
                        "the timer (%s, %s per read, steps of %s) is too coarse for "
                        "samples that fit the time budget: its error is more than 0.1%% of a sample",
                        vn_clock_name(j->timer), vn__fmt_ns(cost, sizeof cost, j->cost_ns),
                        vn__fmt_ns(step, sizeof step, j->res_ns));
    out->nbench++;
    if (res->stop == VN_STOP_INTERRUPTED)
        out->interrupted = 1;
}

/* Each row from start to end, one after another. */
static int run_in_turn(job **jobs, size_t n, const vn_config *cfg, vn_results *out)
{
    for (size_t i = 0; i < n; i++) {
        if (cfg->stop_flag && *cfg->stop_flag) {
            out->interrupted = 1;
            break;
        }
        progress(cfg, jobs[i]->res->name, i, n);
        job *j = jobs[i];
        int rc = cfg->threads > 1 ? measure_threads(j) : measure(j);
        if (rc)
            return rc;
        row_done(j, out);
    }
    return 0;
}

/* The rows take turns, a sample each, in an order shuffled every round
 * (as Google Benchmark's random interleaving does), so that a machine
 * whose speed or neighbours change over seconds affects them alike, and
 * the rows compare under the same conditions. Each row keeps its own
 * budget, counted in its own turns, and its own stop rule; all begin
 * (calibration, warmup) before the first turn, and each ends as soon as it
 * stops, so that its probe after and its time are its own. */
static int run_interleaved(job **jobs, size_t n, const vn_config *cfg, vn_results *out)
{
    int rc = 0;
    int *state = malloc((n ? n : 1) * sizeof *state);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    unsigned char *ended = calloc(n ? n : 1, 1);
    size_t began = 0;
    if (!state || !order || !ended) {
        rc = VN_ENOMEM;
        goto out;
    }
#define END_ROW(i)                                                   \
    do {                                                             \
        ended[i] = 1;                                                \
        if ((rc = row_end(jobs[i], state[i], 0)) == 0) \
            row_done(jobs[i], out);                                  \
    } while (0)
    for (; began < n && rc == 0; began++) {
        /* Stopped: the rows not begun are not run, as one after another. */
        if (cfg->stop_flag && *cfg->stop_flag) {
            out->interrupted = 1;
            break;
        }
        progress(cfg, jobs[began]->res->name, began, n);
        rc = row_begin(jobs[began], &state[began]);
        if (rc == 0 && state[began] != ROW_MORE)
            END_ROW(began);
        else
            jobs[began]->spent_ns = elapsed_ns(jobs[began]);
    }
    vn_rng rng;
    vn_rng_seed(&rng, 0x7665726e696572u);
    for (;;) {
        size_t m = 0;
        for (size_t i = 0; i < began; i++)
            if (!ended[i])
                order[m++] = i;
        if (rc || m == 0)
            break;
        if (cfg->progress) {
            fprintf(stderr, "\r\033[K%zu rows in turns, %zu still sampling ...", n, m);
            fflush(stderr);
        }
        for (size_t i = m; i > 1; i--) {
            size_t r = (size_t)vn_rng_below(&rng, i), t = order[i - 1];
            order[i - 1] = order[r];
            order[r] = t;
        }
        for (size_t t = 0; t < m && rc == 0; t++) {
            size_t i = order[t];
            job *j = jobs[i];
            j->resumed = vn__timer_read(&j->run);
            rc = row_step(j, &state[i]);
            if (rc == 0 && state[i] != ROW_MORE)
                END_ROW(i);
            else
                j->spent_ns = elapsed_ns(j);
        }
    }
#undef END_ROW
    /* After an error, the rows still open are freed. */
    for (size_t i = 0; i < began; i++)
        if (!ended[i])
            rc = row_end(jobs[i], state[i], rc);
out:
    free(state);
    free(order);
    free(ended);
    return rc;
}

int vn_suite_run(vn_suite *s, const vn_config *cfg_in, vn_results *out)
{
    if (!s || !out)
        return VN_EINVAL;
    vn_config cfg;
    if (cfg_in)
        cfg = *cfg_in;
    else
        vn_config_init(&cfg);
    /* Within the command line's limits, too: an endless warmup or budget
     * would never end, and min_samples + 1 must not wrap. */
    if (!(cfg.max_time > 0 && cfg.max_time <= 86400) ||
        !(cfg.precision > 0 && isfinite(cfg.precision)) || cfg.min_samples < 1 ||
        cfg.max_samples < cfg.min_samples || cfg.max_samples > 10000000 || cfg.threads < 1 ||
        cfg.threads > 1024 || !(cfg.warmup >= 0 && cfg.warmup <= 3600) ||
        !(cfg.min_sample_time > 0 && cfg.min_sample_time <= 86400) ||
        /* Pinned, all threads would share one CPU; cold, one thread's
         * eviction would run while the others time. */
        (cfg.threads > 1 && (cfg.cpu >= 0 || cfg.cold)))
        return VN_EINVAL;
    /* A CPU-time clock cannot time threads together: the process's counts
     * every thread's time in each sample, a thread's own is no span of wall
     * time across threads. */
    vn_clock_id named;
    if (cfg.threads > 1 && cfg.timer && vn_clock_lookup(cfg.timer, &named) == 0 &&
        (vn_clock_flags(named) & VN_CLOCK_F_CPUTIME))
        return VN_EINVAL;
    /* Threads started together take no turns. */
    if (cfg.threads > 1)
        cfg.interleave = 0;
    regex_t re;
    if (cfg.filter && regcomp(&re, cfg.filter, REG_EXTENDED | REG_NOSUB) != 0)
        return VN_EINVAL;

    memset(out, 0, sizeof *out);
    out->config = cfg;
    out->optimized = s->optimized;
    const vn__hooks *hooks = s->has_hooks ? &s->hooks : NULL;
    int rc = 0;
    size_t nrows = 0;
    vn_counters *ctr = NULL;
    cpu_set_t old;
    int pinned = 0;
    int idle_fd = -1;
    out->config.dma_latency_us = -1;
    if (cfg.cpu >= 0) {
        if (cfg.cpu >= CPU_SETSIZE || pin(cfg.cpu, &old) != 0) {
            rc = VN_EINVAL;
            goto done;
        }
        pinned = 1;
    }
    if (hooks && hooks->no_sysinfo) {
        vn__sysinfo_reset(&out->env);
    } else if ((rc = vn_sysinfo_collect(&out->env)) != 0) {
        goto done;
    }
    /* Held for the whole suite, once the machine's state is recorded: a
     * benchmark that sleeps or waits then wakes without the exit latency of
     * a deep idle state (see idle.c). Without root the states stay as they
     * are, and the results say so. */
    if (!hooks) {
        char why[160];
        idle_fd = vn__idle_hold_for(cfg.dma_latency_us, out->env.hypervisor,
                                    &out->config.dma_latency_us, why, sizeof why);
    }
    if (hooks && hooks->now) {
        out->timer = VN_CLOCK_MONOTONIC;
        snprintf(out->timer_reason, sizeof out->timer_reason, "a test clock");
        out->timer_cost_ns = hooks->timer_cost_ns;
        out->timer_resolution_ns = hooks->timer_resolution_ns;
    } else if ((rc = vn__timer_choose(cfg.timer, &out->timer, out->timer_reason,
                                      sizeof out->timer_reason, &out->timer_cost_ns,
                                      &out->timer_resolution_ns)) != 0) {
        goto done;
    }
    out->counter_hz = NAN;
    if (!hooks && (vn_clock_flags(out->timer) & VN_CLOCK_F_COUNTER)) {
        const vn_calibration *c = vn_counter_calibration();
        out->counter_hz = c ? c->hz : NAN;
    }
    /* Opened once, after pinning, on this thread; missing events are named
     * in out->counters, never an error. */
    if ((rc = vn__bench_counters_open(&cfg, hooks, &ctr, &out->counters)) != 0)
        goto done;

    /* The rows: every benchmark, times every parameter value. */
    for (size_t i = 0; i < s->n; i++)
        nrows += s->v[i].nvalues ? s->v[i].nvalues : 1;
    out->bench = calloc(nrows ? nrows : 1, sizeof *out->bench);
    if (!out->bench) {
        rc = VN_ENOMEM;
        goto done;
    }
    vn__evict evict = {0};
    if (cfg.cold && (rc = vn__evict_init(&evict, &out->env)) != 0)
        goto done;
    struct floors floors = {LOW3_NONE, NULL, 0};
    job **jobs = calloc(nrows ? nrows : 1, sizeof *jobs);
    size_t nj = 0;
    if (!jobs) {
        rc = VN_ENOMEM;
        goto rows_done;
    }
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        const vn__bench *b = &s->v[i];
        size_t nv = b->nvalues ? b->nvalues : 1;
        for (size_t k = 0; k < nv && rc == 0; k++) {
            vn_result *res = &out->bench[nj];
            row_result_init(res, b, k);
            if (cfg.filter && regexec(&re, res->name, 0, NULL, 0) != 0)
                continue;
            if (!(jobs[nj] = job_new(b, res, &cfg, hooks, out, ctr, cfg.cold ? &evict : NULL,
                                     cfg.threads > 1 ? NULL : &floors, &rc)))
                break;
            nj++;
        }
    }
    if (rc == 0)
        rc = cfg.interleave ? run_interleaved(jobs, nj, &cfg, out) : run_in_turn(jobs, nj, &cfg, out);
    for (size_t i = 0; i < nj; i++)
        free(jobs[i]);
    free(jobs);
rows_done:
    vn__evict_free(&evict);
    if (cfg.progress)
        fprintf(stderr, "\r\033[K");
done:
    vn_counters_destroy(ctr);
    vn__idle_release(idle_fd);
    if (pinned)
        sched_setaffinity(0, sizeof old, &old);
    if (cfg.filter)
        regfree(&re);
    /* Rows in turns end in any order, and a row that failed to summarize
     * holds its samples already: every row is freed, the unused ones being
     * zeroed. */
    if (rc) {
        if (out->bench)
            out->nbench = nrows;
        vn_results_free(out);
    }
    return rc;
}
