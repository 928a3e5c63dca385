/* The one decision of a benchmark row: from a view of its samples and a
 * policy, whether sampling goes on or stops (and why), which samples the
 * headline rests on, and what the headline is (a median with its interval,
 * or an upper bound, and which). The stop test, the summary and the
 * warnings all ask vn__decide(); none works any of it out again. Pure: no
 * clock, no I/O, no global state, so tests drive it with synthetic rows. */
#ifndef VN_BENCH_DECIDE_H
#define VN_BENCH_DECIDE_H

#include <stddef.h>

#include "policy.h"
#include "vernier/bench.h"

/* The empty loop's median per iteration and its 95% interval, from the
 * empty-loop samples of one kind of moments (quiet or shared core) when
 * there are at least the policy's empty_matched of them, else from all;
 * n: how many of that kind there were. */
typedef struct vn__empty_view {
    double om, olo, ohi;
    size_t n;
} vn__empty_view;

typedef struct vn__row_view {
    const vn_sample *v;      /* every sample of the row, tagged ones too */
    size_t n;
    vn__empty_view empty[2]; /* [0] from shared moments, [1] from quiet ones */
    double floor_ns;         /* the smallest difference per iteration the timer shows */
    double elapsed_ns;       /* the row's own time so far */
    int probed;              /* the samples carry branch probes: shared-core tags mean something */
    size_t streak;           /* the stop tests just before this one at which the precision held */
    double on_cpu;           /* the samples' median share of their wall time on the CPU (NAN
                                unknown): a body that mostly waits is not slowed by a shared
                                core, and its probe says nothing of it */
    int skip_given;          /* skip below says which tags leave the headline (decided over
                                all the row's processes), rather than these samples alone */
    unsigned skip;
} vn__row_view;

typedef enum vn__verdict {
    VN__GO_ON = 0,
    VN__STOP_PRECISE,        /* the precision asked for is reached */
    VN__STOP_MAX_SAMPLES,
    VN__STOP_MAX_TIME,
    VN__STOP_MAX_PROCESSES,  /* a row over processes: the most of them ran */
    VN__STOP_PROCESSES_VARY, /* a row over processes: their spread would not reach the
                                precision within the most of them */
} vn__verdict;

typedef enum vn__headline {
    VN__HEAD_NONE = 0,       /* no sample to rest on */
    VN__HEAD_MEDIAN,         /* the median net of the empty loop, with its interval */
    VN__HEAD_FASTEST,        /* an upper bound: the fastest sample of the loop with the body */
} vn__headline;

typedef struct vn__decision {
    vn__verdict verdict;
    int precise;             /* the headline has the precision asked for */
    int waiting;             /* sampling goes on for quiet moments, not for precision */
    unsigned skip;           /* tags whose samples the headline leaves out */
    size_t used;             /* samples the headline rests on */
    int quiet;               /* most of them ran on a core of their own: empty[1] applies */
    vn__headline head;
    double value;            /* the median (net) or the bound, ns per iteration */
    double lo, hi;           /* the median's 95% interval (net); NAN for a bound */
    double raw_median, raw_lo, raw_hi; /* the loop with the body, before the empty loop */
    double fastest;          /* the fastest used sample */
    double ref;              /* the fastest reference of the used samples, ns a cycle */
    size_t agree;            /* used samples within the precision of the fastest */
    double half_pct;         /* the median's interval half-width in percent of it; NAN unknown */
    double var;              /* the variance of value from these samples (of the median,
                                from their MAD, and of the empty loop's median); NAN unknown */
    double qvar;             /* the least the timer's rounding leaves it uncertain by, as a
                                variance: half a step, (floor_ns / 2 / z)^2, which more samples
                                do not shrink (var keeps the shrinking (pi / 2) floor_ns^2 / 6 /
                                used as its floor); NAN unknown */
    double cycles;           /* value in reference cycles; NAN without references */
    double cycles_lo, cycles_hi; /* its interval (a median's); NAN for a bound */
    double rel_mad_ns, rel_mad_cycles; /* the used samples' spread (net), MAD / |median| */
    int cycles_steadier;     /* the used samples vary less in cycles than in ns, beyond
                                chance and by the policy's cycles_gain
                                (vn__levels_which_steadier) */
    int ns_steadier;         /* and the other way round: less in ns than in cycles */
    double on_cpu;           /* the row view's on_cpu */
    double block[2], block_var[2]; /* the median (net) of the first and second half of the
                                      used samples, and its variance; NAN with too few */
    double probe;            /* the median taken-branch probe of the samples, reference
                                cycles a branch; NAN without probes */
    double ref_mid;          /* the median reference of all the samples, ns a cycle; NAN
                                without references */
    int ref_off;             /* the reference read slow while the body did not
                                (vn__ref_off): this process leaves the row's headline */
} vn__decision;

/* Which tags keep a sample out of the headline, from the samples of r
 * (x: scratch room for r->n values); *waiting says whether sampling should
 * wait for quiet moments. */
unsigned vn__left_out(const vn__row_view *r, const vn__policy *p, double *x, int *waiting);

/* Decides a row's samples of one process. 0, or VN_ENOMEM (d then says go
 * on, with no headline). */
int vn__decide(const vn__row_view *row, const vn__policy *p, vn__decision *d);

/* The probe over which a process ran on a shared core, from the median
 * probes of all the run's processes (of every row; probes[0..n), NAN
 * skipped, reordered). With p->process_fence, the third-fastest times
 * that fence, where the third-fastest reads under p->alone_probe (a core
 * of its own), else INFINITY. Without, the middle of the widest gap
 * between two of them in ascending order when that gap is wider than
 * p->process_shared_ratio, else INFINITY. Pure. */
double vn__probe_limit(double *probes, size_t n, const vn__policy *p);

/* Marks proc[i].ref_off, of a row's k processes, where p->ref_off is on:
 * a process with a median (not a bound) whose reference reads p->ref_off
 * or more over ref_mid (the run's, NAN unknown) while its value in ns
 * stays under the geometric middle of the two, against the median value of
 * the row's processes with one. None is marked unless two or more
 * others remain. Returns how many are marked. Pure. */
size_t vn__ref_off(vn__decision *proc, size_t k, double ref_mid, const vn__policy *p);

/* How many times vn__decide() ran in this process (for tests). */
size_t vn__decisions(void);

/* The stop a verdict gives a result: the one place a decision becomes a
 * result's reason to stop (VN__GO_ON has none: it gives max_samples). */
vn_stop vn__stop_of(vn__verdict v);

/* ---- A row over processes ------------------------------------------------- */

/* How a row stands across the processes it ran in so far. */
typedef struct vn__row_state {
    double spent_ns;         /* the row's own time in all of them */
    size_t samples;          /* its samples in all of them */
    size_t streak;           /* earlier looks (one after each process) at which the precision
                                held */
    double next_cost_ns;     /* the least another process would cost the row */
    double probe_limit;      /* a process whose median probe is over this ran on a shared
                                core (vn__probe_limit); INFINITY or NAN: the run's probes
                                fall in no two groups, and none is judged so */
    double ref_mid;          /* the median of the run's processes' references (of every
                                row, ns a cycle); NAN or 0 unknown */
} vn__row_state;

/* The headline in one unit: the policy's quantile of the processes' values
 * (vn__policy_quantile) with its interval (one process: that process's
 * median and interval). */
typedef struct vn__unit_view {
    double value, lo, hi;
} vn__unit_view;

/* The cycles of a row on the CPU whose k processes held their ns (x)
 * steadier than their cycles (c): *cycles, its interval's width kept as a
 * share, moved to the ns headline at the rate (cycles a ns) the second-
 * highest of the processes' c[i] / x[i] gives where k >= 3, the higher
 * of two otherwise (the engine asks from 4 processes, below which no unit
 * reads steadier). Returns that rate; NAN, *cycles left as it is, when it
 * is not a rate above 0. Pure. */
double vn__at_clock(const vn__unit_view *ns, vn__unit_view *cycles, const double *x,
                    const double *c, size_t k);
/* Whether one of the k processes read its taken-branch probe on a core
 * shared with a busy sibling thread: over the run's limit between the two
 * groups, or at alone (a core shared through the run) or more. Pure. */
int vn__sibling_met(const vn__decision *proc, size_t k, double limit, double alone);

typedef struct vn__row_decision {
    size_t k;                /* processes */
    vn__verdict verdict;     /* go on: another process */
    int precise;             /* at this look */
    int bound;               /* an upper bound (some process could not tell the body from the
                                empty loop): bound is the fastest sample of any process */
    double bound_value, bound_cycles;
    vn__unit_view ns, cycles; /* cycles NAN without references */
    int cycles_headline;     /* the unit that compares across runs is cycles */
    int clock_moved;         /* cycles agree better than ns beyond chance: the clock moved */
    double half_pct;         /* the headline's half-width, percent of it; NAN unknown */
    double median_half_pct;  /* with a low quantile the headline: the processes' median's
                                half-width in the same unit, percent of it; NAN otherwise */
    double need;             /* processes the precision would take at this spread (NAN
                                unknown) */
    size_t kept;             /* processes the headline rests on (with a value, and of the
                                core state it rests on) */
    /* How the variance of one process's value splits: between processes
     * (layout, the machine's state over seconds), between the two halves
     * of a process's samples, and what the samples leave uncertain; shares
     * that add up to 1, NAN with one process (its blocks and samples only). */
    double share_processes, share_blocks, share_samples;
    double sd_processes;     /* the spread of the values across processes (NAN for one) */
    double serial;           /* vn__levels_serial of the headline unit's values (1: none) */
    double within;           /* the mean variance of a process's value from its own samples */
    double clock_rate;       /* the rate (cycles a ns) cycles was moved to (vn__at_clock);
                                NAN: the processes' cycles as read */
    int disagree;            /* the processes' values fall in groups further apart than
                                their own uncertainty allows (layout), or some give a bound
                                and some a median */
    size_t used;             /* samples the headline rests on, over all processes */
    size_t shared;           /* processes on a shared core, left out of the headline for
                                others with a core of their own */
    int on_shared;           /* the row's headline is a shared core's: every process ran on
                                a core shared with another hardware thread (the run's others
                                had one of their own, or every probe read p->alone_probe or
                                more), or all but fewer than the headline's quantile did */
    int alike;               /* the run's processes fell in two core states and the row's
                                read the body alike in both (1), or too few or too scattered
                                in one state to tell them apart (2): the headline rests on
                                all */
    size_t ref_off;          /* processes left out of the headline for a reference that read
                                slow while the body did not (vn__ref_off) */
} vn__row_decision;

/* Decides a row over its processes: proc[i] is process i's own decision
 * (vn__decide), k >= 1 of them; st says how it stands. With
 * p->max_processes 1 the one process's own verdict stands; else the row
 * goes on, a process at a time, until the interval across them is within
 * the precision at p->confirm looks in a row (from p->min_processes on),
 * or the budget, the most processes or the most samples is reached, or
 * (from p->futile_after processes on) their spread shows that the most
 * processes would not reach the precision. */
int vn__decide_row(const vn__decision *proc, size_t k, const vn__policy *p, const vn__row_state *st,
                   vn__row_decision *out);

#endif
