/* The policy of the one decision (decide.h): every threshold it applies,
 * its defaults, and the overrides of --policy (policy.c). */
#ifndef VN_ENGINE_POLICY_H
#define VN_ENGINE_POLICY_H

#include <math.h>
#include <stddef.h>

#include "vernier/config.h"

/* Every threshold of the decision, with its unit and why. docs/engine.md
 * lists them in one table; vn__policy_init() sets the defaults. */
typedef struct vn__policy {
    double precision;        /* fraction: the median's 95% interval within +-this of it */
    size_t min_samples;      /* samples: no stop before this many */
    size_t max_samples;      /* samples: stop at this many, precise or not */
    double budget_ns;        /* ns of the row's own time: stop after it, precise or not */
    size_t min_untagged;     /* samples: tagged ones leave the headline only while this many stay */
    size_t min_interval;     /* samples: fewest for a 95% interval of a median from order statistics */
    size_t fastest_agree;    /* samples within the precision of the fastest that reproduce it */
    size_t bound_settled;    /* processes in a row that found no lower floor settle a bound */
    size_t empty_matched;    /* empty-loop samples of one kind of moments to subtract those alone */
    double indistinct_share; /* share of the empty loop: a smaller difference is code placement */
    double shared_slower;    /* in units of precision: shared samples this much slower leave */
    size_t shared_evidence;  /* quiet samples needed before their speed is taken as evidence */
    double shared_ratio;     /* x the run's third-fastest probe: a slower probe saw a shared core */
    /* The precision must hold at this many stop tests in a row: a rule that
     * stops the first time an interval looks narrow stops when its spread
     * happens to read small, and its intervals then hold less often than
     * they say (Chow and Robbins's fixed-width rule, tested again and
     * again; the error rate is measured in tests/unit/test_sequential.c). */
    size_t confirm;
    /* Processes (vn__decide_row): the fewest an interval across them rests
     * on, the most a row runs in, and the fewest samples in each. */
    size_t min_processes, max_processes, process_samples;
    /* Reference cycles replace ns as the unit that compares across runs
     * when the variance of their logs across processes is at most this
     * share of ns's: the core's clock moved, and dividing by it took most
     * of the variation away. */
    double cycles_gain;
    /* 1: a body on the CPU compares across runs in reference cycles
     * unless its own values agree better in ns (vn__decide_row); 0: only
     * when they agree better in cycles, the clock having moved during
     * the run. */
    size_t cycles_first;
    /* 1: a row on the CPU whose processes hold their ns steadier than
     * their cycles, one the headline rests on beside a busy sibling
     * (vn__sibling_met), gives its cycles at the clock's rate the
     * reference read where nothing slowed it (vn__at_clock); 0: its
     * processes' cycles as they read. */
    size_t ns_at_clock;
    /* 1: below 8 processes, a headline's interval is no narrower than
     * the one the median of their own values' variances gives, with the
     * normal quantile (vn__levels_compute); 0 (the default): their spread
     * alone. */
    size_t within_floor;
    /* The processes of a run (every row's) whose taken-branch probes fall
     * in two groups, further apart than this ratio, ran on a core of their
     * own (the lower group) or while a second hardware thread shared it
     * (vn__probe_limit): a shared one's value leaves the headline while
     * processes on a core of their own remain (vn__decide_row). The
     * sample-level tag (shared_ratio) judges single samples within a
     * process instead. */
    double process_shared_ratio;
    /* Over 0: the run's processes are told apart by a fence instead of a
     * gap: one whose probe reads over the run's third-fastest times this
     * ratio ran on a shared core, when that third-fastest reads under
     * alone_probe (a core of its own); 0: the widest gap. */
    double process_fence;
    /* Over 0: a headline on a core of its own reaches, for the next run,
     * the processes left out for a shared core only where their reading
     * at the headline's quantile lies within this ratio of the headline
     * (vn__reach_other_state); farther, the interval stays the state's
     * and the row's result names the other state's ratio. 0: it always
     * reaches them. */
    double reach_within;
    /* Cycles a branch: a row every process of which read the taken-branch
     * probe at this or more (the median of its samples'), none told apart
     * from the others as shared, ran while a second hardware thread shared
     * the core through the run (the probe's loop takes one reference
     * cycle a branch on a core of its own that takes a branch a cycle, as
     * x86 cores and Arm's server cores do: its counter's add is the
     * reference's, and the branch is the front end's limit); shared_core
     * says so, and changes no number. NAN: vn__alone_probe_for the
     * machine; inf: off. */
    double alone_probe;
    /* 1: a run whose processes fell in two groups by their probes rests a
     * row's headline on the shared ones when fewer than the headline's
     * quantile of them (a quarter, for the lower quartile) had a core of
     * their own: two or three processes give an interval of their quartile
     * from nought to twice it, seventeen one of a few percent, of the
     * state most of the run was in. 0 (the default): on those with a core
     * of their own whenever there are two or more (policy.c says why). */
    size_t shared_most;
    /* 1 (the default): a row that reached its precision in the first half
     * of a run's time or of its processes, not an upper bound, takes one
     * more process at its end (vn__plan_late); 0: it stops there. */
    size_t late_look;
    /* 1 (the default): a row that reached its precision with every process
     * on a core shared with a busy sibling thread goes on while another row
     * of the run does (vn__plan_wait_own), until it meets a core of its own;
     * 0: it stops there. */
    size_t wait_own;
    /* 1 (the default): a row whose processes in the two core states read
     * the body alike (their medians within the precision) rests its
     * headline on all of them, none left out (vn__decide_row); 2: so too
     * when either group's median lies within the interval of the other's
     * median; 0: on those with a core of their own all the same. */
    size_t states_alike;
    /* 1: the shared group reads alike also when it reads faster than the
     * own one by more than the precision, as a sibling thread only slows
     * the body; 0 (the default): alike only within the precision either
     * way. */
    size_t states_one_sided;
    /* 1 (the default): the two groups read alike also when their values
     * at the headline's quantile lie within the precision of each other,
     * in ns or in cycles; 0: only their medians, in cycles where every
     * process has them. */
    size_t alike_low;
    /* 1: where the two groups read alike in one unit alone, the row's
     * figure in the other unit rests on the processes with a core of their
     * own (two or more): in it the shared ones' reference, or their body,
     * moved apart (vn__decide_row). 0 (the default): on all of them too. */
    size_t alike_view;
    /* 1: a row whose processes the probe told apart with one alone on a
     * core of its own, fewer than the headline's quantile of them, says
     * its core was shared (its headline, on all of them, is a shared
     * core's), as one none was told apart in does: compare reads it so,
     * and wait_own takes it back. 0 (the default): it says own. */
    size_t lone_own;
    /* A process whose reference (the median ns a cycle of a row's samples
     * there) reads this fraction or more over the run's (the median of
     * every process's, every row), while the row's value there in ns does
     * not follow it (under the geometric middle of the two, against the
     * row's processes' median), measured its reference on a slowed core
     * and not the body: its cycles read low, and its probe (a ratio to
     * the same reference) may read a core of its own where the core was
     * shared. It leaves the row's headline while two or more others
     * remain (vn__decide_row). A clock that fell moves the body's ns with
     * the reference, and such a process stays. 0 (the default): off. */
    double ref_off;
    /* MiB: each worker process takes, touches and keeps a random amount
     * between half this and this before any benchmark code runs, so that
     * what the benchmarks allocate lands on other physical pages than in
     * the worker before it (which freed the ones the next would get). 0:
     * off (the default: bench/RESULTS.md, 2026-11-29). */
    size_t layout_mb;
    /* A worker after the first process warms a row up until two warmup
     * samples in a row agree (within twice the first process's spread,
     * and at least the precision), for at most this many times the
     * warmup: a body whose setup just filled a cache with its buffers
     * runs from it at first, and the few samples a later process takes
     * would read that transient, not the settled speed. 0 (the default):
     * one warmup sample; at 2 an 8 MiB pointer chase held the next run
     * more often on a quiet machine and less often on a loaded one, and
     * the runs took 12% longer; two later A/B sets alike (bench/RESULTS.md,
     * 2026-11-29 and 2026-11-30). */
    double settle;
    /* 1: in a worker, the rows take turns a sample each, as in one
     * process; 0 (the default): each runs to its end, in an order of the
     * worker's own, the processes being the turns. Rows that take turns a
     * sample at a time fill the caches for each other: a table that fits
     * a cache is walked from memory whenever a larger buffer ran just
     * before it. */
    size_t sample_turns;
    /* 1: over processes the headline is their mean, with Student's
     * t-interval; 0 (the default): the quantile head_low says, with its
     * interval (stats/levels.h), which a few processes in another state of
     * the machine move less (bench/RESULTS.md, 2026-11-29). */
    size_t head_mean;
    /* 1: over processes the median's interval takes their spread as Qn
     * (stats/levels.h); 0 (the default): as their interquartile range. */
    size_t spread_qn;
    /* The batch factor widens the median's interval only where the
     * processes' ranks differ between its 4 batches with p below this; 1
     * (the default): always. */
    double batch_gate;
    /* 1: from 5 processes the median's standard error is Maritz and
     * Jarrett's (stats/levels.h); 0 (the default): the spread's. */
    size_t median_mj;
    /* 1: the median's batch factor reads the signs about it
     * (stats/levels.h); 0 (the default): the batches' medians. */
    size_t batch_signs;
    /* 1 to 49: over processes the headline is their head_low% quantile
     * with its interval (stats/levels.h, vn__levels low): a neighbour or a
     * slower state of the host only adds time, and moves a low quantile
     * less than the median (bench/RESULTS.md, 2026-12-01). 25 (the
     * default): their lower quartile; 0, or 50 and more: their median.
     * vernier compare compares the quantile both sides' headlines were. */
    size_t head_low;
    /* 1 (the default): over processes the headline's interval is no
     * narrower than its quantile's rank interval (stats/levels.h,
     * vn__levels_opts ranks); 0: the standard error's alone. */
    size_t head_ranks;
    /* Processes: from this many on, a row whose interval across them,
     * narrowed as more processes would narrow it (the root of the count,
     * and Student's t), would still be wider than the precision at the
     * most processes stops there: a stop for futility, as a group
     * sequential design stops a trial whose answer more subjects would
     * not sharpen enough. Its interval is the one of the processes it
     * has, no narrower for the ones it did not run. SIZE_MAX (inf): off,
     * the row runs to the most processes. */
    size_t futile_after;
    /* 0 in a worker process: its rows stop at the samples and the share of
     * the budget the plan gave them, never on precision (the processes
     * together decide that). */
    int stop_on_precision;
} vn__policy;

/* Which quantile of the processes the headline is: 0.5 their median,
 * below by head_low; NAN for their mean (head_mean). */
static inline double vn__policy_quantile(const vn__policy *p)
{
    if (p->head_mean)
        return NAN;
    return p->head_low > 0 && p->head_low < 50 ? (double)p->head_low / 100 : 0.5;
}

/* The defaults, with the run's precision (percent), sample limits and
 * budget (seconds) from cfg, and then cfg->policy's overrides. 0, or
 * VN_EINVAL (p untouched) for an unknown name or a bad value there. */
int vn__policy_init(vn__policy *p, const vn_config *cfg);

/* The default alone_probe for the machine (hypervisor, smt: 1 yes, 0 no,
 * -1 unknown, as vn_sysinfo has them): 1.3 cycles a branch wherever a
 * second hardware thread may share the core (own probes read 1.00 to 1.10
 * there, shared ones 1.3 to 2.1, bench/RESULTS.md 2026-11-30); INFINITY
 * (off) with SMT off and no hypervisor known (the hypervisor is read from
 * x86's cpuid alone), where nothing shares a core and a slow probe is the
 * core's own front end. */
double vn__alone_probe_for(int hypervisor, int smt);

/* Applies overrides "NAME=VALUE,..." (NULL or "": none) to p. 0, or
 * VN_EINVAL with p untouched and, when why is not NULL, a line saying
 * what is wrong and which names there are. */
int vn__policy_parse(vn__policy *p, const char *text, char *why, size_t n);

#endif
