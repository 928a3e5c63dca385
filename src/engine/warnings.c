/* The warnings of one result, from its numbers and the decision (pure). Each has an id
 * scripts can match; the message says what was seen, with the numbers, and the brief
 * says it in a few words, the numbers first, for the console's one line. */
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "internal.h"
#include "base/format.h"
#include "stats/internal.h"

vn_bench_warning *vn__warning_vadd(vn_bench_warning *list, int *n, const char *id,
                                   const char *fmt, va_list ap)
{
    if (*n >= VN_MAX_WARNINGS)
        return NULL;
    vn_bench_warning *w = &list[(*n)++];
    snprintf(w->id, sizeof w->id, "%s", id);
    w->brief[0] = '\0';
    int len = vsnprintf(w->message, sizeof w->message, fmt, ap);
    /* Too long for the message: cut at a word, and say so. */
    if (len >= (int)sizeof w->message) {
        size_t cut = sizeof w->message - 5; /* room for " ..." and its NUL */
        size_t k = cut;
        while (k > 0 && w->message[k] != ' ')
            k--;
        memcpy(w->message + (k > 0 ? k : cut), " ...", 5);
    }
    return w;
}

vn_bench_warning *vn__result_warn(vn_result *r, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vn_bench_warning *w = vn__warning_vadd(r->warnings, &r->nwarnings, id, fmt, ap);
    va_end(ap);
    return w;
}

void vn__warning_brief(vn_bench_warning *w, const char *fmt, ...)
{
    if (!w)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->brief, sizeof w->brief, fmt, ap);
    va_end(ap);
}

/* How many processes a precision would take, "~306", as a person reads
 * it: past a million, only that. */
static void processes_for(char *out, size_t n, double need)
{
    if (need < 1e6)
        snprintf(out, n, "~%.0f", need);
    else
        snprintf(out, n, "over a million");
}

/* Why sampling stopped at the budget, the most samples or the most
 * processes, and how far it got, from the decision that stopped it (the
 * row's over its processes, rd; d is one process's). The decision is
 * final: this only says what it found. */
static void stopped_at_a_limit(vn_result *r, const vn_config *cfg, const vn__policy *p,
                               const vn__decision *d0, const vn__row_decision *rd)
{
    if (rd->k > 1 && r->stop == VN_STOP_MAX_PROCESSES && !rd->bound && isfinite(rd->half_pct) &&
        rd->need > (double)rd->kept) {
        /* All processes ran: how many the precision would take at their
         * spread (vn__decide_row's count, k times the square of the
         * half-width over the precision). */
        char a[32], b[32], n[32], m[32], med[96] = "", medb[48] = "";
        vn__fmt_pct(a, sizeof a, rd->half_pct);
        vn__fmt_pct(b, sizeof b, cfg->precision);
        processes_for(n, sizeof n, rd->need);
        /* A low quantile next to a few much faster processes (layouts)
         * is unsteady where their median is not: said, with the switch. */
        if (rd->median_half_pct > 0 && rd->median_half_pct < rd->half_pct / 2) {
            vn__fmt_pct(m, sizeof m, rd->median_half_pct);
            snprintf(med, sizeof med, "; their median's is +-%s (--policy head_low=50)", m);
            snprintf(medb, sizeof medb, "; median +-%s", m);
        }
        vn__warning_brief(vn__result_warn(r, "max_processes",
             "all %zu processes ran%s before the precision was reached: the estimate's CI over "
             "%zu of them is +-%s; +-%s would take %s processes%s",
             rd->k, r->waited ? " (waiting for quiet moments)" : "", rd->kept, a, b, n, med),
             "est. +-%s, needs %s processes; +-%s asked%s", a, n, b, medb);
        return;
    }
    const char *id = r->stop == VN_STOP_MAX_TIME      ? "max_time"
                     : r->stop == VN_STOP_MAX_SAMPLES ? "max_samples"
                                                      : "max_processes";
    vn__decision dv = *d0, *d = &dv;
    if (rd->k > 1) {
        /* Over processes: the interval across them, or the bound of all. */
        d->head = rd->bound ? VN__HEAD_FASTEST : VN__HEAD_MEDIAN;
        d->half_pct = rd->half_pct;
        d->used = rd->used;
        d->value = rd->ns.value;
        d->lo = rd->ns.lo;
        d->hi = rd->ns.hi;
    }
    char what[64];
    if (r->stop == VN_STOP_MAX_TIME)
        snprintf(what, sizeof what, "budget %.3g s", cfg->max_time);
    else if (r->stop == VN_STOP_MAX_SAMPLES)
        snprintf(what, sizeof what, "most samples (%zu)", cfg->max_samples);
    else
        snprintf(what, sizeof what, "most processes (%zu)", p->max_processes);
    /* got: how far it got; brief: the same in fewer words, its numbers first
     * and what all rows share (the precision asked) after them. */
    char got[120], brief[96], a[32], b[32];
    vn__fmt_pct(b, sizeof b, cfg->precision);
    if (d->head == VN__HEAD_FASTEST) {
        snprintf(got, sizeof got, "%zu of %zu samples within +-%s of the fastest", d->agree,
                 p->fastest_agree, b);
        snprintf(brief, sizeof brief, "%zu/%zu within +-%s of the fastest", d->agree,
                 p->fastest_agree, b);
    } else if (rd->k > 1 && !isfinite(d->half_pct)) {
        snprintf(got, sizeof got, "no interval across %zu processes", rd->k);
        snprintf(brief, sizeof brief, "no interval");
    } else if (rd->k <= 1 && d->used < p->min_interval) {
        snprintf(got, sizeof got, "%zu sample%s left, too few for a 95%% CI", d->used,
                 d->used == 1 ? "" : "s");
        snprintf(brief, sizeof brief, "%zu left, too few for a CI", d->used);
    } else if (isfinite(d->half_pct)) {
        /* The estimate's interval, which the precision is asked of; the
         * table's ci95 is the next run's, sqrt(2) wider. */
        snprintf(got, sizeof got, "the estimate's CI +-%s for +-%s asked",
                 vn__fmt_pct(a, sizeof a, d->half_pct), b);
        snprintf(brief, sizeof brief, "est. +-%s, +-%s asked", a, b);
    } else { /* a median of 0 or less has no relative interval */
        snprintf(got, sizeof got, "median %s, CI +-%s",
                 vn__fmt_ns(a, sizeof a, d->value),
                 vn__fmt_ns(b, sizeof b, fmax(d->value - d->lo, d->hi - d->value)));
        snprintf(brief, sizeof brief, "CI +-%s", b);
    }
    const char *spent = r->stop == VN_STOP_MAX_TIME      ? "budget spent"
                        : r->stop == VN_STOP_MAX_SAMPLES ? "most samples taken"
                                                         : "most processes run";
    if (r->waited)
        vn__warning_brief(vn__result_warn(r, id, "%s spent waiting for quiet moments; %s", what,
                                          got),
                          "%s; %s waiting for quiet moments", brief, spent);
    else
        vn__warning_brief(vn__result_warn(r, id, "%s spent before the precision was reached; %s",
                                          what, got),
                          "%s; %s first", brief, spent);
}

/* The finding of a row on a core shared through the run (on_shared with
 * none told apart, vn__decide_row), from the n of its probed processes
 * with a probe that read it at alone_probe or more, lo to hi: the core was
 * shared for most of each, so none can stand for a core of its own (or
 * too few did for the headline to be theirs), and code bound by the
 * core's throughput (x += x, a loop over two arrays) read slower than it
 * runs alone, while a chain of adds does not notice. */
static void throughout(vn_result *r, const vn__policy *p, double lo, double hi, size_t n,
                       size_t probed)
{
    char range[64], who[64];
    if (hi > lo * 1.005)
        snprintf(range, sizeof range, "%.2f to %.2f", lo, hi);
    else
        snprintf(range, sizeof range, "%.2f", lo);
    if (n == r->nprocesses)
        snprintf(who, sizeof who, n == 1 ? "its process" : "all %zu of its processes", n);
    else if (n == probed)
        snprintf(who, sizeof who, "all %zu of its %zu processes with a probe", n, r->nprocesses);
    else
        snprintf(who, sizeof who, "%zu of the %zu of its processes with a probe", n, probed);
    const char *most = n < probed ? "most of " : "";
    vn__warning_brief(vn__result_warn(r, "shared_core",
         "%s read the taken-branch probe at %s cycles a branch (%g or more; a core of its own "
         "takes one a cycle): a second hardware thread shared the core through %sthe run, so "
         "code bound by the core's throughput reads slower than it runs alone, and compares only "
         "with runs in that state (--policy alone_probe=inf: off)", who, range, p->alone_probe,
         most),
         "probe %.2f cycles a branch: core shared through %sthe run", lo, most);
}

void vn__result_warnings(vn_result *r, const vn_config *cfg, const vn__policy *p, int optimized,
                         const vn__decision *d, const vn__row_decision *rd)
{
    r->nwarnings = 0;
    if (!optimized)
        vn__warning_brief(vn__result_warn(r, "debug_build",
             "the benchmark was compiled without optimization: it measures code nobody ships "
             "(build with -O2)"), "compiled without optimization (build with -O2)");
    if (r->error[0] || r->stats.n == 0)
        return;
    const vn_stats *s = &r->stats;
    char f1[32], f2[32], f3[32], f4[32];
    vn_bench_warning *w = NULL;
    if (r->upper_bound)
        w = vn__result_warn(r, "dead_code",
             "the body cannot be told apart from the empty loop; the loop with it took "
             "%s per iteration at its fastest, an upper bound. The compiler may have "
             "removed the body "
             "(keep it with vn_keep()), or it runs in the shadow of the loop's own increment "
             "and branch",
             vn__fmt_ns(f1, sizeof f1, r->bound_ns));
    vn__warning_brief(w, "no slower than the empty loop: removed (see vn_keep()), or in its shadow");
    /* Subtracting the empty loop assumes the body's time adds to the
     * loop's; an out-of-order core overlaps them, so for a body not much
     * longer than the loop the net time is uncertain by up to the loop's own
     * cost, however sharp its interval. */
    if (!r->upper_bound && isfinite(r->overhead_ns) && r->overhead_ns > 0.25 * s->median) {
        w = vn__result_warn(r, "overhead_dominates",
             "the empty loop (%s) is %s of the net time: the body and the loop overlap "
             "in the core, so the net %s is uncertain by up to the loop's cost; the loop "
             "with the body takes %s",
             vn__fmt_ns(f1, sizeof f1, r->overhead_ns),
             vn__fmt_pct(f2, sizeof f2, 100 * r->overhead_ns / s->median),
             vn__fmt_ns(f3, sizeof f3, s->median),
             vn__fmt_ns(f4, sizeof f4, s->median + r->overhead_ns));
        vn__warning_brief(w, "%s is the empty loop's, so the net time is uncertain",
                          vn__fmt_pct(f2, sizeof f2, 100 * r->overhead_ns / s->median));
    }
    double rel = s->median != 0 ? s->mad_scaled / fabs(s->median) : NAN;
    if (!r->upper_bound && rel > 0.05)
        vn__warning_brief(vn__result_warn(r, "high_variance",
             "samples vary by %.1f%% (scaled MAD / median): the result depends on when it ran",
             100 * rel), "%.1f%% spread, scaled MAD / median", 100 * rel);
    /* Silverman's test of one mode (vn_modes), from as many samples as before. */
    if (s->n >= 20 && s->modes.count >= 2) {
        w = vn__result_warn(r, "multimodal",
             "the samples have %zu modes (Silverman's test, p = %.2g), %s %s %s %s: the median "
             "describes none of them; see --hist",
             s->modes.count, s->modes.p, s->modes.count == 2 ? "near" : "from near",
             vn__fmt_ns(f1, sizeof f1, s->modes.at[0]), s->modes.count == 2 ? "and" : "to",
             vn__fmt_ns(f2, sizeof f2, s->modes.at[s->modes.count - 1]));
        vn__warning_brief(w, "%zu modes, %s to %s; see --hist", s->modes.count, f1, f2);
    }
    /* Over processes, what moved from one to the next is in the interval
     * across them (and processes_disagree): a trend over the pooled
     * samples would say it twice. */
    if (r->nprocesses <= 1 && s->n >= 10 && s->drift_p < 0.001 && fabs(s->drift) >= 0.3)
        vn__warning_brief(vn__result_warn(r, "drift",
             "the time per iteration %s over the run (rank correlation %.2f with sample order)",
             s->drift > 0 ? "grew" : "shrank", s->drift),
             "%s, rank correlation %.2f", s->drift > 0 ? "grew" : "shrank", s->drift);
    /* Counted apart from the shared core: a sample both preempted and on a
     * shared core is in both counts. */
    const unsigned pm = VN_TAG_PREEMPTED | VN_TAG_MIGRATED;
    size_t ninterfered = 0;
    for (size_t i = 0; i < r->nsamples; i++)
        ninterfered += (r->samples[i].tags & pm) != 0;
    if (r->nsamples && ninterfered * 10 > r->nsamples)
        vn__warning_brief(vn__result_warn(r, "interference",
             "%zu of %zu samples were preempted or migrated and are %s", ninterfered,
             r->nsamples,
             r->left_out & pm ? "left out of the headline"
                              : "in the headline all the same: too few others were left"),
             "%zu/%zu samples preempted or moved, %s", ninterfered, r->nsamples,
             r->left_out & pm ? "left out" : "kept: too few others");
    if (r->stop == VN_STOP_MAX_TIME || r->stop == VN_STOP_MAX_SAMPLES ||
        r->stop == VN_STOP_MAX_PROCESSES)
        stopped_at_a_limit(r, cfg, p, d, rd);
    if (r->stop == VN_STOP_PROCESSES_VARY) {
        /* The processes the headline rests on (those on a shared core
         * left out when others had a core of their own, and those with no
         * value), and the count the precision would take, from the look
         * that stopped the row (not given when it found none). */
        size_t k = rd->kept;
        char a[32], b[32], n[32], need[96] = "";
        vn__fmt_pct(a, sizeof a, rd->half_pct);
        vn__fmt_pct(b, sizeof b, r->precision);
        if (isfinite(rd->need)) {
            processes_for(n, sizeof n, rd->need);
            snprintf(need, sizeof need, "; +-%s would take %s", b, n);
        }
        vn__warning_brief(vn__result_warn(r, "processes_vary",
             "the processes vary more than the precision allows (+-%s asked, at most %zu "
             "processes): the estimate's CI over %zu of them is +-%s%s", b, p->max_processes, k,
             a, need),
             "est. +-%s over %zu processes%s", a, k, need);
    }
    /* The reference loop is the machine's speed: when it moved, and the
     * samples (or the processes) agree better in cycles than in ns, the
     * decision made cycles the headline that compares across runs (for a
     * body on the CPU; one that mostly waits keeps ns, and this says
     * nothing). */
    if (r->clock_moved && r->cycles_headline) {
        double half = fmax(r->cycles - r->cycles_ci[0], r->cycles_ci[1] - r->cycles);
        char pct[32];
        vn__warning_brief(vn__result_warn(r, "speed_drift",
             "the core's clock moved while it ran (the reference add loop, p10-p90, moved %.1f%%), "
             "and its %s agree better in reference cycles than in ns: the headline that "
             "compares across runs is %.1f cycles +-%s, with the ns beside it",
             100 * r->ref_spread, r->nprocesses > 1 ? "processes" : "samples", r->cycles,
             vn__fmt_pct(pct, sizeof pct, 100 * half / r->cycles)),
             "clock moved: the headline is cycles (ci95 of cycles)");
    }
    /* Processes on a core shared with another hardware thread and on one
     * of their own, as the run's probes fell in two groups: the headline
     * rests on those with a core of their own, when there are two or more
     * and, with shared_most, the headline's quantile of them (else on the
     * shared ones); one alone has no spread between processes to give an
     * interval. Or the core was shared through the run (on_shared with
     * none told apart), unless the samples' own tags say it (below: kept,
     * or over a tenth of them left out). */
    int kept = r->nshared && !(r->left_out & VN_TAG_SHARED_CORE);
    int tags_speak = kept || (r->nsamples && r->nshared * 10 > r->nsamples);
    double lo = INFINITY, hi = -INFINITY;
    size_t shared = 0, kept_shared = 0, probed = 0;
    for (size_t i = 0; i < r->nprocesses; i++) {
        /* On a shared core through the run, as vn__decide_row counts:
         * the processes with a value (none is left out for its state). */
        double pr = r->processes[i].probe;
        int counted = isfinite(pr) && !(r->on_shared && r->processes[i].left_out);
        probed += counted;
        if (counted && (r->processes[i].shared || (r->on_shared && pr >= p->alone_probe))) {
            lo = fmin(lo, pr), hi = fmax(hi, pr);
            shared++;
            kept_shared += r->processes[i].shared && !r->processes[i].left_out;
        }
    }
    /* Every process on a shared core is kept when all were, so kept ones
     * or left-out ones cover the four cases. */
    if (kept_shared || r->processes_left_out) {
        /* What became of them, by whether the headline rests on them
         * (on_shared) and whether some processes were left out: the
         * headline; kept for want of a second process on a core of its
         * own; the headline, the others too few (shared_most); left out;
         * kept, as they read the body alike, or as too few in either
         * state told them apart (states_alike 1 or 2). */
        int how = r->states_alike ? 3 + r->states_alike
                                  : 2 * (r->processes_left_out > 0) + !r->on_shared;
        /* Left out, and too far off for the interval to promise their
         * state (policy reach_within): named with their ratio instead. */
        char far[256] = "", far_brief[64] = "";
        if (how == 3 && r->other_state > 0 && isfinite(r->other_state) && !r->other_reached) {
            snprintf(far, sizeof far,
                     ": left out, they read %.3gx the headline, a state the next run rests on "
                     "only on a core shared throughout; the interval does not reach it (--policy "
                     "reach_within=0 does)", r->other_state);
            snprintf(far_brief, sizeof far_brief, ", left out at %.3gx; interval not theirs",
                     r->other_state);
        }
        static const char *const what[] = {
            ": the headline rests on them, a shared core, and a run on a core of its own may "
            "be faster",
            ", and one alone had a core of its own: too few for an interval across processes, "
            "so the headline rests on all of them",
            ": the headline rests on them, a shared core, as too few of the others had one of "
            "their own for an interval (--policy shared_most=0: on those); the interval, a "
            "promise about the next run, reaches the others' reading, as that run may meet "
            "their state throughout",
            ": they measured the core's neighbour as much as the body, and are left out of the "
            "headline; its interval, a promise about the next run, reaches their reading, as "
            "that run may meet a shared core throughout",
            ", and read the body as those with a core of their own did (the two groups' "
            "medians within the precision): the headline rests on all of them "
            "(--policy states_alike=0: on those with a core of their own)",
            ", and the two states could not be told apart (either group's median within the "
            "interval of the other's: too few processes, or too scattered, in one of them): "
            "the headline rests on all of them, and may mix the states "
            "(--policy states_alike=1: only where they read alike)"};
        static const char *const brief[] = {": its headline", ", kept: one alone has no interval",
                                            ": its headline; interval reaches the others",
                                            ", left out; interval reaches them",
                                            ", read alike: headline on all",
                                            ", not told apart: headline on all"};
        vn__warning_brief(vn__result_warn(r, "shared_core",
             "%zu of its %zu processes ran while a second hardware thread shared the core "
             "(the taken-branch probe read %.2f to %.2f cycles a branch, over %.2g times the "
             "run's quiet processes)%s", shared, r->nprocesses, lo, hi,
             p->process_fence > 0 ? p->process_fence : p->process_shared_ratio,
             *far ? far : what[how]),
             "%zu/%zu processes on a shared core%s", shared, r->nprocesses,
             *far_brief ? far_brief : brief[how]);
    } else if (r->on_shared && shared && !tags_speak) {
        throughout(r, p, lo, hi, shared, probed); /* else the samples' tags speak (below) */
    }
    /* Processes that disagree beyond their own samples: a layout, or a
     * state of the machine, that some met and others did not. */
    if (r->processes_disagree && r->nprocesses > 1) {
        double lo = INFINITY, hi = -INFINITY;
        int cyc = r->cycles_headline;
        for (size_t i = 0; i < r->nprocesses; i++) {
            if (r->processes[i].left_out)
                continue;
            double v = cyc ? r->processes[i].cycles : r->processes[i].value;
            if (isfinite(v))
                lo = fmin(lo, v), hi = fmax(hi, v);
        }
        char a[32], b[32];
        if (cyc)
            snprintf(a, sizeof a, "%.4g cycles", lo), snprintf(b, sizeof b, "%.4g cycles", hi);
        else
            vn__fmt_ns(a, sizeof a, lo), vn__fmt_ns(b, sizeof b, hi);
        /* In runs of like values, the state lasted longer than a process:
         * the interval is widened for it (vn__levels_serial). */
        char runs[48] = "";
        if (r->serial >= 1.5)
            snprintf(runs, sizeof runs, ", in runs (interval %.1fx wider)", sqrt(r->serial));
        vn__warning_brief(vn__result_warn(r, "processes_disagree",
             "its %zu processes gave %s to %s, further apart than their own samples allow: the "
             "memory layout, or the machine's state, that some of them met and others did not "
             "moves this body; the interval across them says how much%s",
             r->nprocesses, a, b,
             r->serial >= 1.5 ? ". In the order they ran they came in runs of like values, a "
                                "state that lasted longer than one process, and the interval is "
                                "widened as for fewer independent processes"
                              : ""),
             "%s to %s over %zu processes%s", a, b, r->nprocesses, runs);
    }
    /* The reference chain of adds needs one ALU a cycle and does not feel a
     * second hardware thread on the core; a loop of taken branches shares
     * the front end with it and slows while that thread is busy (here,
     * under KVM: 1.00 reference cycles a branch while the host's sibling
     * thread was idle, 1.5 to 2.5 while it was not, in spells of a fraction
     * of a millisecond to seconds). Every sample has such a probe on both
     * sides, and shorter spells show as a slow tail (VN_TAG_SHARED_CORE,
     * engine/tag.c). */
    size_t quiet = 0;
    for (size_t i = 0; i < r->nsamples; i++)
        quiet += !(r->samples[i].tags & VN_TAG_SHARED_CORE);
    if (tags_speak) {
        const char *why = !kept ? "left out: sharing slowed this body"
                          : quiet < p->shared_evidence ? "kept: too few quiet ones to compare"
                          : d->waiting ? "kept: too few quiet ones, which ran faster"
                                       : "kept: they ran as fast as the quiet ones";
        vn__warning_brief(vn__result_warn(r, "shared_core",
                                          "%zu of %zu samples ran on a shared core; %s",
                                          r->nshared, r->nsamples, why),
                          "%zu/%zu samples, %s", r->nshared, r->nsamples, why);
    }
    /* More threads than CPUs to run them: they took turns, so a thread's
     * samples include waits for the others (those the scheduler counted are
     * tagged preempted and left out), and together is what the CPUs did. */
    cpu_set_t allowed;
    if (r->threads > 1 && sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
        r->threads > CPU_COUNT(&allowed))
        vn__warning_brief(vn__result_warn(r, "threads_oversubscribed",
             "%d threads ran on the %d CPUs this process may use, so they took turns: each "
             "thread's median is of the samples no turn interrupted, and the together rate "
             "is what the %d CPUs did, not what %d would",
             r->threads, CPU_COUNT(&allowed), CPU_COUNT(&allowed), r->threads),
             "%d threads took turns on %d CPUs", r->threads, CPU_COUNT(&allowed));
    double headline = r->upper_bound ? r->bound_ns : r->stats.median;
    if (cfg->cold && r->iters == 1 && headline < 1e3)
        vn__warning_brief(vn__result_warn(r, "timer_bound",
             "with --cold each sample is one iteration of %s: the timer's own cost and "
             "resolution are a large part of it",
             vn__fmt_ns(f1, sizeof f1, headline)),
             "%s a sample (--cold): the timer's cost weighs", f1);
}
