/* What the rows of a run say together, once they have run: each row's
 * ratio to its baseline row, with a line below the table for each, and the
 * complexity of each benchmark swept over a parameter (Google Benchmark's
 * BigO), a line each. docs/compare-in-process.md describes both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>

#include "internal.h"
#include "stats/levels.h"
#include "base/format.h"

/* Fewest rows with a median for a complexity fit: through fewer points,
 * several forms fit about as well and the choice says little. */
#define FIT_MIN_ROWS 4
/* A best form whose residuals are over this share of the mean time fits
 * no better than a guess, and is said so. */
#define FIT_POOR 0.20

/* Whether suite s has a row of that name. */
static int has_row(const vn_suite *s, const char *name, const regex_t *re)
{
    char row[sizeof ((vn_result *)0)->name];
    for (size_t i = 0; i < s->n; i++)
        for (size_t k = 0; k < (s->v[i].nvalues ? s->v[i].nvalues : 1); k++) {
            vn__row_name(&s->v[i], k, row, sizeof row);
            if (!strcmp(row, name) && (!re || regexec(re, row, 0, NULL, 0) == 0))
                return 1;
        }
    return 0;
}

int vn__baselines_check(const vn_suite *s, const vn_config *cfg, char *why, size_t n)
{
    char dummy[1];
    if (!why)
        why = dummy, n = sizeof dummy;
    for (size_t i = 0; i < s->n; i++) {
        const char *b = s->v[i].opts.baseline;
        if (b && !has_row(s, b, NULL)) {
            snprintf(why, n, "the benchmark '%s' names the baseline '%s', which is no row of this "
                     "program (--list shows their names)", s->v[i].name, b);
            return VN_ENOENT;
        }
    }
    if (!cfg->baseline)
        return 0;
    if (!has_row(s, cfg->baseline, NULL)) {
        snprintf(why, n, "--baseline '%s' names no benchmark (--list shows their names)",
                 cfg->baseline);
        return VN_ENOENT;
    }
    regex_t re;
    if (cfg->filter && regcomp(&re, cfg->filter, REG_EXTENDED | REG_NOSUB) == 0) {
        int kept = has_row(s, cfg->baseline, &re);
        regfree(&re);
        if (!kept) {
            snprintf(why, n, "--baseline '%s' does not run: --filter '%s' leaves it out",
                     cfg->baseline, cfg->filter);
            return VN_ENOENT;
        }
    }
    return 0;
}

static const vn_result *row_named(const vn_results *r, const char *name)
{
    for (size_t i = 0; i < r->nbench; i++)
        if (!strcmp(r->bench[i].name, name))
            return &r->bench[i];
    return NULL;
}

static int has_median(const vn_result *x)
{
    return !x->error[0] && x->stats.n > 0 && !x->upper_bound;
}

/* A sample's time net of its own process's empty loop, as the headline has it. */
static double net(const vn_result *x, size_t k)
{
    int p = x->samples[k].process;
    double om = x->processes && (size_t)p < x->nprocesses ? x->processes[p].overhead_ns
                                                          : x->overhead_ns;
    return x->samples[k].value - (isfinite(om) ? om : 0);
}

/* Both processes have a median above 0. */
static int usable(const vn_process_result *a, const vn_process_result *b)
{
    return !a->upper_bound && !b->upper_bound && a->value > 0 && b->value > 0;
}

/* Row x against its baseline over the processes both ran in: each
 * process's ratio of the two medians (the rows took turns in it, so what
 * moved the machine there moved both), and the median of those with the
 * median's interval across processes (vn__levels_ratio). Over the
 * processes both headlines rest on, where two or more do, so that the
 * ratio speaks of the core state the rows' figures do; then, as a next
 * run may meet the state they were left out for throughout, the interval
 * reaches the median of their ratios however far off (policy reach_within
 * bounds a headline's reach, not a ratio's): the demo's sums, one row on
 * its two processes with a core of their own and eighteen shared, read
 * 0.58x in the shared ones and 1.11x and 0.60x in the own ones. 1 when
 * there are not two processes. */
static int ratio_processes(vn_result *x, const vn_result *base)
{
    size_t k = x->nprocesses < base->nprocesses ? x->nprocesses : base->nprocesses, m = 0;
    if (k < 2 || !x->processes || !base->processes)
        return 1;
    double *num = malloc(3 * k * sizeof *num);
    if (!num)
        return VN_ENOMEM;
    double *den = num + k, *other = den + k;
    size_t kept = 0, nother = 0;
    for (size_t i = 0; i < k; i++)
        kept += usable(&x->processes[i], &base->processes[i]) && !x->processes[i].left_out &&
                !base->processes[i].left_out;
    x->ratio_range[0] = INFINITY;
    x->ratio_range[1] = -INFINITY;
    for (size_t i = 0; i < k; i++) {
        const vn_process_result *a = &x->processes[i], *b = &base->processes[i];
        if (!usable(a, b))
            continue;
        double r = a->value / b->value;
        x->ratio_range[0] = fmin(x->ratio_range[0], r);
        x->ratio_range[1] = fmax(x->ratio_range[1], r);
        if (kept >= 2 && (a->left_out || b->left_out)) {
            if (vn__left_for_state(x, a) || vn__left_for_state(base, b))
                other[nother++] = r;
            continue;
        }
        num[m] = a->value;
        den[m++] = b->value;
    }
    int rc = m >= 2 ? vn__levels_ratio(num, den, m, &x->ratio, &x->ratio_ci[0], &x->ratio_ci[1]) : 1;
    if (rc == 0)
        vn__reach(x->ratio_ci, other, nother, 0.5);
    free(num);
    if (rc == VN_ERANGE)
        return 1;
    if (rc == 0) {
        x->ratio_n = m;
        x->ratio_other = nother;
        x->ratio_paired = 1;
        x->ratio_processes = 1;
    }
    return rc;
}

/* The headline samples of a row, net. */
static size_t headline_samples(const vn_result *x, double *out)
{
    size_t n = 0;
    for (size_t k = 0; k < x->nsamples; k++)
        if (!(x->samples[k].tags & x->left_out))
            out[n++] = net(x, k);
    return n;
}

/* Row x against its baseline base. Over processes when both ran in
 * several; in one process, paired when the rows took turns (the k-th
 * samples of both were taken in the same round), pairs where either sample
 * is left out of its headline dropped, else (or with too few pairs) each
 * row's headline samples on their own; with too few of those for an
 * interval, the ratio of the headlines alone. A ratio asked for is always
 * given: its interval is as wide as the data allow, or absent. */
static int ratio_of(vn_result *x, const vn_result *base, int paired)
{
    x->ratio = x->ratio_ci[0] = x->ratio_ci[1] = NAN;
    x->ratio_n = 0;
    x->ratio_paired = paired;
    x->ratio_processes = 0;
    if (x == base) {
        if (has_median(x)) {
            x->ratio = x->ratio_ci[0] = x->ratio_ci[1] = 1;
            x->ratio_n = x->nprocesses > 1 ? x->nprocesses : x->headline_samples;
            x->ratio_processes = x->nprocesses > 1;
        }
        return 0;
    }
    if (!has_median(x) || !has_median(base))
        return 0;
    int rc = ratio_processes(x, base);
    if (rc <= 0)
        return rc;
    double *a = malloc((base->nsamples + x->nsamples + 1) * sizeof *a);
    if (!a)
        return VN_ENOMEM;
    double *b = a + base->nsamples;
    size_t na = 0, nb = 0;
    if (paired) {
        for (size_t k = 0; k < base->nsamples && k < x->nsamples; k++)
            if (!(base->samples[k].tags & base->left_out) && !(x->samples[k].tags & x->left_out)) {
                a[na++] = net(base, k);
                b[nb++] = net(x, k);
            }
    }
    vn_ratio q;
    if (paired && na >= VN_RATIO_MIN) {
        rc = vn_ratio_paired(a, b, na, &q);
    } else {
        /* Too few samples taken together (most of either row's left out):
         * each row's headline samples on their own. */
        x->ratio_paired = 0;
        na = headline_samples(base, a);
        nb = headline_samples(x, b);
        rc = !na || !nb ? VN_ERANGE : vn_ratio_unpaired(a, na, b, nb, &q);
    }
    free(a);
    if (rc == VN_ERANGE) {
        /* No sample median above 0: the headlines' ratio, no interval. */
        x->ratio = x->stats.median / base->stats.median;
        x->ratio_n = 0;
        return 0;
    }
    if (rc)
        return rc;
    x->ratio = q.ratio;
    x->ratio_ci[0] = q.ci[0];
    x->ratio_ci[1] = q.ci[1];
    x->ratio_n = q.n;
    return 0;
}

/* The line below the table for row x, compared with base. */
static int ratio_line(vn_results *out, const vn_result *x, const vn_result *base)
{
    char brief[1024], why[2048], r[24], lo[24], hi[24], bound[32], on[96];
    if (x->error[0])
        return 0; /* its row says why it has no time */
    if (x->upper_bound) {
        /* A bound on the row is a bound on the ratio. */
        double rb = x->bound_ns / base->stats.median;
        vn__fmt_ratio(r, sizeof r, rb < 1 ? 1 / rb : rb);
        snprintf(brief, sizeof brief, "%s is %s %s %s than %s (an upper bound: < %s)", x->name,
                 rb < 1 ? "at least" : "at most", r, rb < 1 ? "faster" : "slower", base->name,
                 vn__fmt_ns_bound(bound, sizeof bound, x->bound_ns));
        snprintf(why, sizeof why, "%s cannot be told apart from its empty loop, so only its "
                 "bound compares: %s over the median of %s.", x->name, bound, base->name);
        return vn_results_add_finding(out, "baseline", brief, why);
    }
    if (isnan(x->ratio)) {
        snprintf(brief, sizeof brief, "%s: no ratio to %s (no median above 0)", x->name, base->name);
        return vn_results_add_finding(out, "baseline", brief, NULL);
    }
    int faster = x->ratio < 1;
    /* The line inverts a faster row's ratio, unless it says there is no
     * difference (the ratio as it is, its interval holding 1). */
    int same = x->ratio_ci[0] <= 1 && x->ratio_ci[1] >= 1;
    int invert = faster && !same;
    /* Wide: more than twice the precision asked either way (the looser of
     * the two rows', each the run's or its benchmark's own). Over processes
     * the reason is in the processes' own ratios, which the line gives in
     * its own direction. */
    double half = fmax(x->ratio_ci[1] / x->ratio, x->ratio / x->ratio_ci[0]) - 1;
    double asked = fmax(x->precision, base->precision) / 100;
    int wide = x->ratio_processes && half > 2 * asked;
    if (wide) {
        vn__fmt_ratio(lo, sizeof lo, invert ? 1 / x->ratio_range[1] : x->ratio_range[0]);
        vn__fmt_ratio(hi, sizeof hi, invert ? 1 / x->ratio_range[0] : x->ratio_range[1]);
        snprintf(on, sizeof on, ", 95%%, %zu processes, per process %s-%s", x->ratio_n, lo, hi);
    } else if (x->ratio_processes) {
        snprintf(on, sizeof on, ", 95%%, %zu processes", x->ratio_n);
    } else {
        snprintf(on, sizeof on, ", 95%%%s", x->ratio_paired ? "" : ", unpaired");
    }
    double v = faster ? 1 / x->ratio : x->ratio;
    vn__fmt_ratio(r, sizeof r, v);
    if (isnan(x->ratio_ci[0])) {
        snprintf(brief, sizeof brief, "%s is %s %s than %s (no interval: too few samples; --min-samples)",
                 x->name, r, faster ? "faster" : "slower", base->name);
    } else if (same) {
        vn__fmt_ratio(r, sizeof r, x->ratio);
        snprintf(brief, sizeof brief, "%s vs %s: no significant difference (%s, %s-%s%s)",
                 x->name, base->name, r, vn__fmt_ratio(lo, sizeof lo, x->ratio_ci[0]),
                 vn__fmt_ratio(hi, sizeof hi, x->ratio_ci[1]), on);
    } else {
        vn__fmt_ratio(lo, sizeof lo, faster ? 1 / x->ratio_ci[1] : x->ratio_ci[0]);
        vn__fmt_ratio(hi, sizeof hi, faster ? 1 / x->ratio_ci[0] : x->ratio_ci[1]);
        snprintf(brief, sizeof brief, "%s is %s %s than %s (%s-%s%s)", x->name, r,
                 faster ? "faster" : "slower", base->name, lo, hi, on);
    }
    char other[256] = "";
    if (x->ratio_other)
        snprintf(other, sizeof other, " Both headlines rest on these processes; %zu more, "
                 "left out of one for their core state (a sibling thread on the core), are left "
                 "out here, and the interval reaches the median of their ratios, the state a "
                 "next run may meet throughout.", x->ratio_other);
    if (x->ratio_processes)
        snprintf(why, sizeof why,
                 "%s over %s: in each of %zu processes both ran in, the ratio of their medians, "
                 "net of each row's empty loop there (the rows took turns, so what moved the "
                 "machine moved both); the ratio is the median of those, and the interval the "
                 "median's across the processes, from the spread of their logs, so it holds what "
                 "varied between processes too.%s%s",
                 x->name, base->name, x->ratio_n, other,
                 wide ? " It is wide (more than twice the precision asked) because the processes' "
                        "own ratios, in the range the line gives, differ: the rows run one after "
                        "the other in a process, and where a burst of other work met one and not "
                        "the other, that process's ratio is off. More processes (--processes N) "
                        "or a quieter machine narrow it."
                      : "");
    else
        snprintf(why, sizeof why,
                 "%s over %s: the ratio of their medians over %zu %s, net of each row's empty "
                 "loop; the interval is the percentile bootstrap of %s (2000 resamples, a fixed "
                 "seed)%s. In one process, it cannot see what varies between runs.",
                 x->name, base->name, x->ratio_n,
                 x->ratio_paired ? "pairs of samples taken in the same round, pairs with a "
                                   "sample left out of either headline dropped"
                                 : "samples at least on each side",
                 x->ratio_paired ? "the pairs, so what moved both rows alike cancels"
                                 : "each row's samples on their own",
                 x->ratio_paired ? "" : "; unpaired, as the rows did not take turns "
                                        "(--no-interleave or --threads) or too few samples "
                                        "were taken together, so drift between them is not "
                                        "cancelled");
    return vn_results_add_finding(out, "baseline", brief, why);
}

/* The line for row x against a baseline that is an upper bound (its body
 * no slower than its empty loop): x's median over the bound is a bound on
 * the ratio, from below; two bounds bound nothing. */
static int bound_line(vn_results *out, const vn_result *x, const vn_result *base)
{
    char brief[1024], why[1024], r[24], b[32], a[32];
    if (x->error[0] || (!x->upper_bound && !has_median(x)))
        return 0; /* its row says why it has no time */
    vn__fmt_ns_bound(b, sizeof b, base->bound_ns);
    if (!x->upper_bound && !(x->stats.median > 0 && base->bound_ns > 0)) {
        snprintf(brief, sizeof brief, "%s: no ratio to %s (no median above 0)", x->name,
                 base->name);
        return vn_results_add_finding(out, "baseline", brief, NULL);
    }
    if (x->upper_bound) {
        snprintf(brief, sizeof brief, "%s vs %s: both upper bounds (< %s, < %s): no ratio",
                 x->name, base->name, vn__fmt_ns_bound(a, sizeof a, x->bound_ns), b);
        snprintf(why, sizeof why, "neither %s nor %s can be told apart from its empty loop, so "
                 "no ratio of them is known: give each iteration more work (a loop inside the "
                 "body) and divide, or compare with a baseline that takes measurable time.",
                 x->name, base->name);
        return vn_results_add_finding(out, "baseline", brief, why);
    }
    /* base < bound, so x / base > x / bound. */
    double rb = x->stats.median / base->bound_ns;
    vn__fmt_ratio(r, sizeof r, rb < 1 ? 1 / rb : rb);
    snprintf(brief, sizeof brief, "%s is %s %s %s than %s (< %s, a bound)", x->name,
             rb < 1 ? "at most" : "at least", r, rb < 1 ? "faster" : "slower", base->name, b);
    snprintf(why, sizeof why, "%s, the baseline, cannot be told apart from its empty loop, so "
             "only its bound compares: the median of %s over %s.", base->name, x->name, b);
    return vn_results_add_finding(out, "baseline", brief, why);
}

/* The comparisons: ratios for every row with a baseline that ran, and a
 * line for each row but the baseline itself. */
static int compare(vn_results *out)
{
    int paired = out->config.interleave && out->config.threads <= 1;
    for (size_t i = 0; i < out->nbench; i++) {
        vn_result *x = &out->bench[i];
        if (!x->baseline[0])
            continue;
        const vn_result *base = row_named(out, x->baseline);
        int rc = base ? ratio_of(x, base, paired) : 0;
        if (!base) { /* left out by the filter: nothing to compare with */
            x->baseline[0] = '\0';
            continue;
        }
        if (rc)
            return rc;
    }
    /* A baseline that failed gives no ratio to any row: said once, not
     * once per row. One that is a bound bounds each row's ratio. */
    for (size_t i = 0; i < out->nbench; i++) {
        const vn_result *x = &out->bench[i];
        if (!x->baseline[0] || !strcmp(x->baseline, x->name))
            continue;
        const vn_result *base = row_named(out, x->baseline);
        int said = 0;
        for (size_t k = 0; k < i && !said; k++)
            said = !strcmp(out->bench[k].baseline, x->baseline) && strcmp(out->bench[k].name, x->baseline);
        int rc = 0;
        if (base->error[0] || (!base->upper_bound && !has_median(base))) {
            char brief[512];
            snprintf(brief, sizeof brief, "%s, the baseline, has no time: no ratios", base->name);
            if (!said)
                rc = vn_results_add_finding(out, "baseline", brief, NULL);
        } else if (!has_median(base)) {
            rc = bound_line(out, x, base);
        } else {
            rc = ratio_line(out, x, base);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* A fit's coefficient: 3 significant digits, below a nanosecond too
 * ("0.0104 ns x n"), where vn__fmt_ns keeps three decimals. */
static const char *coef(char *s, size_t n, double v)
{
    if (fabs(v) < 1)
        snprintf(s, n, "%.3g ns", v);
    else
        vn__fmt_ns(s, n, v);
    return s;
}

/* The complexity line of benchmark b, from its rows at [from, to). */
static int fit_line(vn_results *out, const vn__bench *b, size_t from, size_t to)
{
    double n[64], t[64];
    size_t m = 0;
    for (size_t i = from; i < to && m < 64; i++) {
        const vn_result *x = &out->bench[i];
        if (has_median(x) && x->param >= 1) {
            n[m] = (double)x->param;
            t[m++] = x->stats.median;
        }
    }
    vn_bigo_fit f;
    if (m < FIT_MIN_ROWS || vn_fit_bigo(n, t, m, &f) != 0)
        return 0;
    char brief[512], why[1024], c[32], p1[24], p2[24];
    double best = f.rms[f.best];
    vn__fmt_pct(p1, sizeof p1, 100 * best);
    vn__fmt_pct(p2, sizeof p2, 100 * f.rms[f.next]);
    if (best > FIT_POOR)
        snprintf(brief, sizeof brief, "%s: no form fits well (best O(%s), RMS %s)", b->name,
                 vn_bigo_name(f.best), p1);
    else
        snprintf(brief, sizeof brief, "%s: O(%s), %s%s%s, RMS %s (next best O(%s): %s)", b->name,
                 vn_bigo_name(f.best), coef(c, sizeof c, f.coef[f.best]),
                 f.best == VN_BIGO_1 ? "" : " x ", f.best == VN_BIGO_1 ? "" : vn_bigo_name(f.best),
                 p1, vn_bigo_name(f.next), p2);
    int len = snprintf(why, sizeof why,
                       "time = c x f(%s) by least squares through the medians of %zu rows, as "
                       "Google Benchmark's complexity fit (logarithms base 2); the RMS of the "
                       "residuals over the mean time, per form:",
                       b->opts.param_name ? b->opts.param_name : "n", m);
    for (int k = 0; k < VN_BIGO_COUNT && len > 0 && (size_t)len < sizeof why; k++) {
        vn__fmt_pct(p1, sizeof p1, 100 * f.rms[k]);
        len += snprintf(why + len, sizeof why - (size_t)len, "%s O(%s) %s", k ? "," : "",
                        vn_bigo_name((vn_bigo)k), isfinite(f.rms[k]) ? p1 : "-");
    }
    if (len > 0 && (size_t)len < sizeof why)
        snprintf(why + len, sizeof why - (size_t)len,
                 ". Over %.0f%% for the best: the time grows in steps (a cache left behind) or has "
                 "a fixed part no form has.", FIT_POOR * 100);
    return vn_results_add_finding(out, "complexity", brief, why);
}

int vn__compare_rows(vn_results *out, const vn__bench *const *of, int fit)
{
    int rc = compare(out);
    /* The rows of one benchmark are next to each other, in its order. */
    for (size_t i = 0; rc == 0 && fit && i < out->nbench;) {
        size_t k = i;
        while (k < out->nbench && of[k] == of[i])
            k++;
        if (of[i]->nvalues >= FIT_MIN_ROWS)
            rc = fit_line(out, of[i], i, k);
        i = k;
    }
    return rc;
}
