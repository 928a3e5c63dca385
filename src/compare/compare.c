/* The comparison of two sides, pure arithmetic: per benchmark the ratio of the headlines
 * with its interval (the headlines' own over processes, a bootstrap over runs or samples), the
 * Mann-Whitney p-value and a verdict; over them all the geometric mean of the ratios. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"
#include "compare.h"
#include "state.h"
#include "stats/internal.h"
#include "stats/levels.h"
#include "stats/stats_api.h"

const char *vn__cmp_verdict_name(vn__cmp_verdict v)
{
    static const char *const names[] = {"no change", "faster", "slower", "no interval"};
    return (unsigned)v < 4 ? names[v] : "?";
}

void vn__cmp_options_init(vn__cmp_options *o)
{
    o->threshold = 0.02;
    o->threshold_from_files = 1;
    o->resamples = 10000;
    o->seed = 0x76636d7031ull; /* any fixed number: the point is that it is fixed */
    o->maps = NULL;
    o->nmaps = 0;
}

static double median_of(const double *sorted, size_t n) { return vn_percentile_sorted(sorted, n, 50); }

typedef struct work {
    const vn__cmp_options *o;
    vn__cmp_boot boot;
} work;

/* The median of x[0..n), unsorted; NAN when out of memory. */
static double median_copy(const double *x, size_t n)
{
    double *s = vn__sorted_copy(x, n);
    double m = s ? median_of(s, n) : NAN;
    free(s);
    return m;
}

/* Whether v lies within the interval side x promised for its next run's
 * headline, in the unit compared (u its units in that unit): the one its
 * run printed, or for several files pooled (no one run's), the one the
 * same arithmetic gives all their processes (vn__levels). */
static int within_next_run(const vn__cmp_bench *x, int cyc, const double *u, double v, double low)
{
    double lo = x->next_lo[cyc], hi = x->next_hi[cyc];
    if (x->next_files != 1 || !(lo <= hi)) {
        vn__levels l;
        const vn__levels_opts o = {.gate = 1, .low = low, .ranks = VN__LEVELS_HEAD_RANKS};
        if (x->nunits < 2 || vn__levels_compute_with(u, NULL, x->nunits, &o, &l))
            return 0;
        lo = low > 0 ? l.low_lo : l.median_lo, hi = low > 0 ? l.low_hi : l.median_hi;
        vn__levels_next_run(low > 0 ? l.low : l.median, &lo, &hi);
    }
    return lo <= v && v <= hi;
}

/* Both sides measured in two processes or more: the processes are the
 * units (Kalibera and Jones, ISMM 2013). The ratio is that of the
 * headlines, the quantile of the processes' values both runs' headlines
 * were (else their median), as each run reported them; its interval joins
 * the two headlines' own intervals (vn__levels_ratio_headlines), so that
 * it speaks of the figures compared, not of the mean logs a few slow
 * processes widen (docs/compare.md). In reference cycles when either
 * side's headline was (a body on the CPU) and both have them, unless unit
 * (1 ns, 2 cycles) says otherwise for the reason why (row->unit_by). */
static int process_interval(const vn__cmp_bench *b, const vn__cmp_bench *n, vn__cmp_row *row,
                            int unit, const char *why)
{
    int head = b->cycles_headline || n->cycles_headline;
    int cyc = unit ? unit == 2 : head;
    for (size_t i = 0; cyc && i < b->nunits; i++)
        cyc = isfinite(b->units_cycles[i]) && b->units_cycles[i] > 0;
    for (size_t i = 0; cyc && i < n->nunits; i++)
        cyc = isfinite(n->units_cycles[i]) && n->units_cycles[i] > 0;
    const double *ub = cyc ? b->units_cycles : b->units, *un = cyc ? n->units_cycles : n->units;
    row->cycles = cyc;
    row->unit_by = unit && cyc != head ? why : "headline";
    double low = b->low == n->low ? b->low : 0, heads[2];
    int rc = vn__levels_ratio_headlines(ub, b->nunits, un, n->nunits, low, heads, &row->ratio,
                                        &row->lo, &row->hi);
    if (rc == VN_ERANGE)
        return 1;
    if (rc)
        return rc;
    row->base_median = heads[0];
    row->new_median = heads[1];
    row->within_next_run = within_next_run(b, cyc, ub, row->new_median, low) ||
                           within_next_run(n, cyc, un, row->base_median, low);
    if (!(low > 0 && low <= VN__CMP_FAST_END)) {
        rc = vn__levels_ratio_headlines(ub, b->nunits, un, n->nunits, VN__CMP_FAST_END, NULL,
                                        &row->fast_ratio, &row->fast_lo, &row->fast_hi);
        if (rc)
            return rc;
    }
    double u;
    if (vn_mann_whitney(ub, b->nunits, un, n->nunits, &u, &row->p) != 0)
        row->p = NAN;
    return 0;
}

/* A run sees the machine for seconds; the store's earlier runs saw it
 * over hours. How far a headline moves from one run to the next (each
 * run's own error included) is on both sides: the log ratio's half-width
 * becomes the wider of its own and two runs' difference. In the row's
 * unit (a chain of adds whose cycles kept within 0.5% moved 2.5% in ns
 * with the clock, bench/RESULTS.md), else in ns, which move further. */
static void widen_by_history(const vn__cmp_bench *b, vn__cmp_row *row)
{
    int c = row->cycles != 0 && b->hist_runs[1];
    if (!b->hist_runs[c] || !(b->hist_var[c] >= 0) || !(row->ratio > 0) || isnan(row->lo))
        return;
    double own = fmax(log(row->hi / row->ratio), log(row->ratio / row->lo));
    if (!isfinite(own))
        own = 0;
    double half = fmax(own, vn__levels_next_half(b->hist_var[c]));
    row->lo = row->ratio * exp(-half);
    row->hi = row->ratio * exp(half);
    row->learned_from = b->hist_runs[c];
}

/* Why one side of a benchmark gives nothing to compare; NULL when it does. */
static const char *why_not(const vn__cmp_bench *x, double median)
{
    if (!x->n && !x->agg_n)
        return x->why ? x->why : "no samples";
    /* NaN: the median was not asked for, another reason came first. */
    return isnan(median) || median > 0 ? NULL : "a median at or below 0";
}

static int add_skip(vn__cmp_result *r, const vn__cmp_bench *b, const vn__cmp_bench *n, double mb,
                    double mn)
{
    const char *wb = why_not(b, mb), *wn = why_not(n, mn);
    char why[600];
    snprintf(why, sizeof why, "%s%s%s%s%s", wb ? "in BASE: " : "", wb ? wb : "",
             wb && wn ? "; " : "", wn ? "in NEW: " : "", wn ? wn : "");
    vn__cmp_skip *s = &r->skipped[r->nskipped];
    s->name = b->name;
    s->why = strdup(why);
    if (!s->why)
        return VN_ENOMEM;
    r->nskipped++;
    return 0;
}

static double insn_median(const vn__cmp_bench *b)
{
    return b->ninsn ? median_copy(b->insn, b->ninsn) : NAN;
}

/* A side as a summary: Google Benchmark's aggregates when it has nothing
 * else; else the mean, deviation and count of its units (processes of
 * code) or its values (runs, repetitions), and their median. */
static int summary_of(const vn__cmp_bench *x, double *m, double *sd, size_t *k, double *med)
{
    if (!x->n) {
        *m = x->agg_mean, *sd = x->agg_sd, *k = x->agg_n, *med = x->agg_median;
        return 0;
    }
    const double *v = x->nunits ? x->units : x->values;
    size_t n = x->nunits ? x->nunits : x->n;
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    *m = s / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - *m) * (v[i] - *m);
    *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
    *k = n;
    *med = median_copy(v, n);
    return isnan(*med) ? VN_ENOMEM : 0;
}

/* A side with only aggregates: the ratio of the means, Welch's interval
 * and test on the log scale (vn__levels_ratio_summary). */
static int aggregate_row(vn__cmp_row *row, const vn__cmp_bench *b, const vn__cmp_bench *n)
{
    double mb, sb, mdb, mn, sn, mdn;
    size_t kb, kn;
    int rc = summary_of(b, &mb, &sb, &kb, &mdb);
    if (!rc)
        rc = summary_of(n, &mn, &sn, &kn, &mdn);
    if (rc)
        return rc;
    row->method = "aggregates";
    row->units_base = kb;
    row->units_new = kn;
    row->base_median = mb;
    row->new_median = mn;
    rc = vn__levels_ratio_summary(mb, sb, kb, mn, sn, kn, &row->ratio, &row->lo, &row->hi, &row->p);
    return rc == VN_ERANGE ? 1 : rc;
}

/* The verdict an interval [lo, hi] of a ratio gives past the threshold t. */
static vn__cmp_verdict verdict_of(double lo, double hi, double t)
{
    return isnan(lo) ? VN__CMP_NO_INTERVAL
           : hi < 1 - t ? VN__CMP_FASTER
           : lo > 1 + t ? VN__CMP_SLOWER
                        : VN__CMP_SAME;
}

/* The verdict of row's interval past the change it has to pass: the
 * threshold, or the half-width a side's run reached where it stopped short
 * of the precision it sought (vn__cmp_bench reached), in the unit compared,
 * where wider; within_reach where only that made it no change. Processes
 * that disagree beyond the precision asked mark a machine whose state
 * moves, between runs as well, and such a run resolved no finer change:
 * replayed on six kept sets, the pointer chase's false alarms fell from
 * 5.4% to 3.5% of tries (bench/RESULTS.md, 2026-12-04). */
static void judge(const work *w, vn__cmp_row *row, const vn__cmp_bench *b, const vn__cmp_bench *n)
{
    int u = row->cycles != 0;
    double t = w->o->threshold;
    row->threshold = fmax(t, fmax(b->reached[u], n->reached[u]));
    row->verdict = verdict_of(row->lo, row->hi, row->threshold);
    row->within_reach = row->verdict == VN__CMP_SAME &&
                        verdict_of(row->lo, row->hi, t) != VN__CMP_SAME;
}

/* A row of b and n with nothing known yet. */
static vn__cmp_row blank_row(const vn__cmp_bench *b, const vn__cmp_bench *n)
{
    return (vn__cmp_row){.name = b->name, .base = b, .new_ = n, .lo = NAN, .hi = NAN, .p = NAN,
                         .insn_base = NAN, .insn_new = NAN, .insn_ratio = NAN,
                         .fast_ratio = NAN, .fast_lo = NAN, .fast_hi = NAN, .threshold = NAN};
}

/* Adds the row name to r's skipped ones: the sides met different core
 * states (shared the side on the shared one). 0 or VN_ENOMEM. */
static int state_skip(vn__cmp_result *r, const char *name, const char *shared, double pb,
                      double pn)
{
    char why[256], probes[64] = "";
    if (pb > 0 && pn > 0)
        snprintf(probes, sizeof probes, " (branch probe %.2f against %.2f)", fmax(pb, pn),
                 fmin(pb, pn));
    snprintf(why, sizeof why, "the core was shared with another hardware thread in %s%s: "
             "the machines differed; run both again", shared, probes);
    vn__cmp_skip *s = &r->skipped[r->nskipped];
    s->name = name;
    if (!(s->why = strdup(why)))
        return VN_ENOMEM;
    r->nskipped++;
    r->state_differs++;
    return 0;
}

static int row_of(work *w, vn__cmp_result *r, const vn__cmp_bench *b, const vn__cmp_bench *n)
{
    if (!b->n || !n->n) {
        vn__cmp_row row = blank_row(b, n);
        int rc = aggregate_row(&row, b, n);
        if (rc == 1)
            return add_skip(r, b, n, b->n ? NAN : b->agg_mean, n->n ? NAN : n->agg_mean);
        if (rc)
            return rc;
        judge(w, &row, b, n);
        r->count[row.verdict]++;
        r->rows[r->nrows++] = row;
        return 0;
    }
    int procs = b->nunits && n->nunits;
    /* A core shared with another hardware thread on one side and not on
     * the other: the two measured different machines, and only a verdict
     * the state cannot have made is honest (vn__cmp_state_stands, in ns),
     * unless the other run's processes that shared theirs too can stand
     * for it (vn__cmp_match_state). */
    double pb = procs ? vn__cmp_probe(b) : NAN, pn = procs ? vn__cmp_probe(n) : NAN;
    /* The units each side read alike in both states, if it met both. */
    double q = b->low > 0 && b->low == n->low ? b->low : 0.5;
    int ab = procs ? vn__cmp_alike_units(b, q, w->o->threshold) : 0;
    int an = procs ? vn__cmp_alike_units(n, q, w->o->threshold) : 0;
    const char *side = procs ? vn__cmp_shared_side(b, n, pb, pn, ab || an) : NULL;
    vn__cmp_row row = blank_row(b, n);
    vn__cmp_bench alt[2];
    const vn__cmp_bench *cb = b, *cn = n; /* the processes compared */
    if (side) {
        /* Through BASE's left-out processes or NEW's, whichever leaves
         * more on the smaller side compared (BASE's when as many). */
        size_t mb = vn__cmp_match_state(b, n, pb, pn, &alt[0]);
        size_t mn = vn__cmp_match_state(n, b, pn, pb, &alt[1]);
        if (mb || mn) {
            int via_base = mb >= mn;
            *(via_base ? &cb : &cn) = &alt[!via_base];
            row.state_matched = via_base ? "BASE" : "NEW";
            r->state_matched++;
            side = NULL;
        }
    }
    /* Without two processes a side there is no interval over processes,
     * and no verdict across the states. */
    if (side && (b->nunits < 2 || n->nunits < 2))
        return state_skip(r, b->name, side, pb, pn);
    /* Against a file of runs or repetitions, a side of code results
     * resamples its processes as runs: the same unit on both sides. */
    const double *vb = !procs && b->nunits ? b->units : b->values;
    const double *vn = !procs && n->nunits ? n->units : n->values;
    size_t nb = !procs && b->nunits ? b->nunits : b->n, nn = !procs && n->nunits ? n->nunits : n->n;
    double *sb = vn__sorted_copy(vb, nb), *sn = vn__sorted_copy(vn, nn);
    int rc = sb && sn ? 0 : VN_ENOMEM;
    row.method = "runs";
    row.units_base = nb;
    row.units_new = nn;
    if (!rc && procs && cb->nunits >= 2 && cn->nunits >= 2) {
        row.method = "processes";
        row.units_base = cb->nunits;
        row.units_new = cn->nunits;
        /* In ns between sides that met different core states, the unit
         * in which a sibling only adds time; in the unit a side read alike
         * in both states and not the other, where the sides do not say
         * otherwise: the one that compares across them; else in the one
         * both sides' processes hold steadier (vn__cmp_steadier_unit). */
        int only = side || (ab | an) == 1 ? 1 : (ab | an) == 2 ? 2 : 0;
        const char *why = side ? "state" : only ? "alike" : "steadier";
        if (!only && (only = vn__cmp_steadier_unit(b, n)) < 0)
            rc = VN_ENOMEM;
        if (!rc)
            rc = process_interval(cb, cn, &row, only, why);
        if (rc == 1) { /* a process at or below 0: the samples decide */
            rc = 0;
            procs = 1;
            row.method = "samples";
            row.unit_by = NULL;
            row.cycles = 0;
        }
    } else if (procs) {
        /* One process a side: its samples are all there is, and they cannot
         * see what varies between runs (a layout, the machine's state). */
        row.method = "samples";
        row.units_base = b->nunits;
        row.units_new = n->nunits;
        r->one_process++;
    }
    if (!rc && strcmp(row.method, "processes")) {
        row.base_median = median_of(sb, nb);
        row.new_median = median_of(sn, nn);
        if (!(row.base_median > 0 && row.new_median > 0)) {
            rc = add_skip(r, b, n, row.base_median, row.new_median);
            goto done;
        }
        row.ratio = row.new_median / row.base_median;
        double u;
        rc = vn_mann_whitney(vb, nb, vn, nn, &u, &row.p);
        if (!rc && nb >= 2 && nn >= 2)
            rc = vn__cmp_bootstrap(&w->boot, sb, nb, sn, nn, b->name, &row.lo, &row.hi);
    }
    if (rc)
        goto done;
    widen_by_history(b, &row);
    judge(w, &row, b, n);
    /* A state of the machine that lasts a run moves all its processes
     * together, unseen by an interval taken across them; each run's printed
     * interval is its promise about the next run, and a headline the other
     * run promised differs by no more than a next run does: no change
     * (docs/compare.md). */
    if (row.within_next_run && (row.verdict == VN__CMP_FASTER || row.verdict == VN__CMP_SLOWER))
        row.verdict = VN__CMP_SAME;
    else
        row.within_next_run = 0;
    /* Code that runs slower is slower in its fastest processes too; a
     * state of the machine that slowed some processes (a neighbour in the
     * shared cache) leaves the fastest where they were. A verdict stands
     * only where the fast ends moved past the threshold the same way. */
    row.fast_end_still = (row.verdict == VN__CMP_FASTER || row.verdict == VN__CMP_SLOWER) &&
                         !isnan(row.fast_ratio) &&
                         verdict_of(row.fast_lo, row.fast_hi, row.threshold) != row.verdict;
    if (row.fast_end_still)
        row.verdict = VN__CMP_SAME;
    int stands = side && !strcmp(row.method, "processes") &&
                 (row.verdict == VN__CMP_SLOWER || row.verdict == VN__CMP_FASTER) &&
                 vn__cmp_state_stands(side, row.verdict == VN__CMP_SLOWER);
    if (side && !stands) {
        rc = state_skip(r, b->name, side, pb, pn);
        goto done;
    }
    if (side) {
        row.state_bound = side;
        r->state_bound++;
    }
    row.insn_base = insn_median(b);
    row.insn_new = insn_median(n);
    row.insn_ratio = row.insn_base > 0 && row.insn_new >= 0 ? row.insn_new / row.insn_base : NAN;
    if (isnan(row.insn_ratio))
        row.insn_base = row.insn_new = NAN;
    r->count[row.verdict]++;
    r->rows[r->nrows++] = row;
done:
    free(sb);
    free(sn);
    return rc;
}

/* The geometric mean of the rows' ratios, and its interval from theirs:
 * each row's log ratio taken as normal with the standard error its 95%
 * interval implies, the rows independent (separate benchmarks' noise), so
 * the interval is the noise of the measurements, not of which benchmarks
 * were chosen. No interval unless every row has one. */
static void geomean(vn__cmp_result *r)
{
    r->geomean = r->geo_lo = r->geo_hi = NAN;
    if (!r->nrows)
        return;
    double sum = 0, var = 0;
    int all = 1;
    for (size_t i = 0; i < r->nrows; i++) {
        const vn__cmp_row *w = &r->rows[i];
        sum += log(w->ratio);
        double se = (log(w->hi) - log(w->lo)) / (2 * 1.959963984540054);
        if (isfinite(se))
            var += se * se;
        else
            all = 0;
    }
    double m = sum / (double)r->nrows;
    r->geomean = exp(m);
    if (!all)
        return;
    double half = 1.959963984540054 * sqrt(var) / (double)r->nrows;
    r->geo_lo = exp(m - half);
    r->geo_hi = exp(m + half);
}

int vn__cmp_compare(const vn__cmp_side *base, const vn__cmp_side *new_, const vn__cmp_options *o,
                    vn__cmp_result *out)
{
    vn__cmp_result r = {.opt = *o, .base_formats = base->formats, .new_formats = new_->formats,
                        .nbase = base->nbench, .nnew = new_->nbench};
    if (o->threshold_from_files && base->precision > 0 && new_->precision > 0)
        r.opt.threshold = fmax(base->precision, new_->precision);
    size_t nb = base->nbench ? base->nbench : 1, nn = new_->nbench ? new_->nbench : 1;
    work w = {.o = &r.opt, .boot = {.resamples = o->resamples, .seed = o->seed}};
    vn__cmp_pairs pairs;
    int prc = vn__cmp_pair(base, new_, o->maps, o->nmaps, &pairs);
    if (prc)
        return prc;
    r.rows = calloc(nb, sizeof *r.rows);
    r.skipped = calloc(nb, sizeof *r.skipped);
    r.only_base = calloc(nb, sizeof *r.only_base);
    r.only_new = calloc(nn, sizeof *r.only_new);
    w.boot.boot = malloc((o->resamples ? o->resamples : 1) * sizeof *w.boot.boot);
    int rc = r.rows && r.skipped && r.only_base && r.only_new && w.boot.boot && o->resamples
                 ? 0
                 : o->resamples ? VN_ENOMEM : VN_EINVAL;
    for (size_t i = 0; !rc && i < base->nbench; i++) {
        const vn__cmp_bench *b = &base->bench[i];
        const vn__cmp_bench *n = pairs.to_new[i] != SIZE_MAX ? &new_->bench[pairs.to_new[i]] : NULL;
        if (!n) {
            r.only_base[r.nonly_base++] = b->name;
            continue;
        }
        size_t rows = r.nrows;
        r.paired[pairs.rule[i]]++;
        if ((!b->n && !b->agg_n) || (!n->n && !n->agg_n))
            rc = add_skip(&r, b, n, NAN, NAN);
        else
            rc = row_of(&w, &r, b, n);
        if (!rc && r.nrows > rows) {
            r.rows[rows].new_name = n->name;
            r.rows[rows].rule = (vn__cmp_rule)pairs.rule[i];
        }
    }
    for (size_t i = 0; !rc && i < new_->nbench; i++)
        if (pairs.from_base[i] == SIZE_MAX)
            r.only_new[r.nonly_new++] = new_->bench[i].name;
    vn__cmp_pairs_free(&pairs);
    if (!rc)
        geomean(&r);
    for (int f = 0; f < VN__CMP_NFACTS; f++) {
        r.base_facts[f] = base->facts[f];
        r.new_facts[f] = new_->facts[f];
        if (base->facts[f] && new_->facts[f] && strcmp(base->facts[f], new_->facts[f]))
            r.differ |= 1u << f;
    }
    free(w.boot.boot);
    free(w.boot.cnt);
    if (rc) {
        vn__cmp_result_free(&r);
        return rc;
    }
    *out = r;
    return 0;
}

void vn__cmp_result_free(vn__cmp_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nskipped; i++)
        free(r->skipped[i].why);
    free(r->skipped);
    free(r->rows);
    free(r->only_base);
    free(r->only_new);
    memset(r, 0, sizeof *r);
}
