/* The one decision of a benchmark row (engine/decide.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/abi.h"
#include "decide.h"
#include "internal.h"
#include "vernier/base.h"
#include "stats/internal.h"
#include "stats/levels.h"
#include "stats/stats_api.h"

/* The median of the values of the samples whose tags, masked, equal want;
 * NAN for none. x is scratch room for n values. */
static double median_where(const vn_sample *v, size_t n, unsigned mask, unsigned want, double *x,
                           size_t *count)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((v[i].tags & mask) == want)
            x[m++] = v[i].value;
    *count = m;
    double med = NAN, lo, hi;
    if (m && vn_median_ci(x, m, &med, &lo, &hi) != 0)
        med = NAN;
    return med;
}

/* Which tags keep a sample out of the headline, and whether sampling should
 * wait for quiet moments. Preempted and migrated samples leave while enough
 * others stay. Samples from a shared core leave only when the quiet ones
 * show that sharing slows this body: their median above the quiet one by
 * more than the precision asked. With too few quiet samples to judge by,
 * but some that already read that much faster, sampling waits for more of
 * them (within the budget); with none, nothing shows that the sharing
 * matters, and the shared samples count. */
unsigned vn__left_out(const vn__row_view *r, const vn__policy *p, double *x, int *waiting)
{
    const unsigned pm = VN_TAG_PREEMPTED | VN_TAG_MIGRATED, all = pm | VN_TAG_SHARED_CORE;
    size_t free_of_pm = 0;
    for (size_t i = 0; i < r->n; i++)
        free_of_pm += !(r->v[i].tags & pm);
    unsigned skip = free_of_pm >= p->min_untagged ? pm : 0;
    *waiting = 0;
    if (!r->probed)
        return skip;
    size_t nq, ns;
    double mq = median_where(r->v, r->n, all, 0, x, &nq);
    double ms = median_where(r->v, r->n, all, VN_TAG_SHARED_CORE, x, &ns);
    int slower = ns > 0 && nq >= p->shared_evidence && ms > mq * (1 + p->shared_slower * p->precision);
    if (slower && nq >= p->min_untagged)
        skip |= all;
    else if (slower)
        *waiting = 1;
    return skip;
}

static double fastest_ref(const vn_sample *v, size_t n, unsigned skip)
{
    double f = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (!(v[i].tags & skip) && isfinite(v[i].ref_ns) && v[i].ref_ns > 0)
            f = fmin(f, v[i].ref_ns);
    return f;
}

/* Is the body not distinguishable from the empty loop (om, its interval
 * [olo, ohi])? Either the lowest plausible time of the loop with the body
 * is at or below the highest plausible time of the empty loop, or the
 * difference is within code placement's error, or the net median is not
 * above zero. */
static int indistinct(const vn__decision *d, const vn__empty_view *e, const vn__policy *p)
{
    return d->raw_lo - e->ohi <= 0 || d->raw_median - e->om < p->indistinct_share * e->om ||
           d->raw_median - e->om <= 0;
}

/* The median of x[0..n) and the variance of that median, from the MAD of
 * the values: (pi / 2) (1.4826 MAD)^2 / n, the large-sample variance of a
 * median of normal values, which stays sensible down to a few samples
 * where the order statistics' interval is coarse. x is reordered. */
static double median_and_var(double *x, size_t n, double *var)
{
    *var = NAN;
    if (!n)
        return NAN;
    qsort(x, n, sizeof *x, vn__cmp_double);
    double m = vn_percentile_sorted(x, n, 50);
    double *dev = malloc(n * sizeof *dev);
    if (!dev)
        return m;
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(x[i] - m);
    qsort(dev, n, sizeof *dev, vn__cmp_double);
    double mad = 1.482602218505602 * vn_percentile_sorted(dev, n, 50);
    free(dev);
    *var = n >= 2 ? VN__MEDIAN_VAR * mad * mad / (double)n : NAN;
    return m;
}

/* The relative spread of x[0..n) (reordered): MAD / |median|. */
static double rel_mad(double *x, size_t n)
{
    double var, m = median_and_var(x, n, &var);
    return n >= 2 && m != 0 ? sqrt(var * (double)n / VN__MEDIAN_VAR) / fabs(m) : NAN;
}

/* The interval of a median net of the empty loop, in a unit of which one
 * is scale ns: the raw median's order-statistic interval [lo, hi] around
 * raw, no narrower than the timer's rounding (q ns either side), and the
 * empty loop's own interval e, both uncertainties in quadrature as two
 * independent estimates' half-widths add. A NAN end stays NAN. */
static void net_interval(double raw, double lo, double hi, double value, double q,
                         const vn__empty_view *e, double scale, double *out_lo, double *out_hi)
{
    double elo = isfinite(e->olo) ? (e->om - e->olo) / scale : 0;
    double ehi = isfinite(e->ohi) ? (e->ohi - e->om) / scale : 0;
    double below = raw - lo, above = hi - raw;
    q /= scale;
    *out_lo = value - hypot(isnan(below) ? below : fmax(below, q), ehi);
    *out_hi = value + hypot(isnan(above) ? above : fmax(above, q), elo);
}

/* The numbers in reference cycles of the used samples, net of the empty
 * loop's median (e NULL: of none): their median and its interval, widened
 * as the ns one is, and for a bound the fastest sample over the fastest
 * reference. Both minima are what the machine did at its fastest, when
 * the loop and the reference ran at the same clock; dividing each sample
 * by its own reference and taking the smallest quotient instead would
 * pick a sample whose reference happened to run slow, and read a
 * dependent add under one cycle. x is scratch room for n values. */
static void in_cycles(const vn__row_view *r, vn__decision *d, const vn__empty_view *e, double *x,
                      const vn__policy *p)
{
    double om = e ? e->om : 0;
    size_t m = 0;
    double fastest = INFINITY;
    for (size_t i = 0; i < r->n; i++) {
        const vn_sample *s = &r->v[i];
        if ((s->tags & d->skip) || !(isfinite(s->ref_ns) && s->ref_ns > 0))
            continue;
        x[m++] = (s->value - om) / s->ref_ns;
        fastest = fmin(fastest, s->value);
    }
    if (!m)
        return;
    if (d->head == VN__HEAD_FASTEST) {
        d->cycles = fastest / d->ref;
        return;
    }
    /* The same samples in ns, beside their cycles, for the test of which
     * varies less. */
    double *ns = malloc(m * sizeof *ns);
    if (ns) {
        size_t k = 0;
        for (size_t i = 0; i < r->n; i++) {
            const vn_sample *s = &r->v[i];
            if (!(s->tags & d->skip) && isfinite(s->ref_ns) && s->ref_ns > 0)
                ns[k++] = s->value - om;
        }
        int which = vn__levels_which_steadier(ns, x, m, p->cycles_gain);
        d->cycles_steadier = which == 1;
        d->ns_steadier = which == -1;
        free(ns);
    }
    double med, lo, hi;
    if (vn_median_ci(x, m, &med, &lo, &hi) == 0) {
        d->cycles = med;
        d->cycles_lo = lo;
        d->cycles_hi = hi;
        /* ns of the empty loop and of the rounding over the samples'
         * reference: the fastest, as the bound's cycles take it. */
        if (e && d->ref > 0 && isfinite(d->ref))
            net_interval(med, lo, hi, med, VN__Z975 * sqrt(d->qvar), e, d->ref, &d->cycles_lo,
                         &d->cycles_hi);
    }
    d->rel_mad_cycles = rel_mad(x, m);
}

/* The two halves of the used samples, in the order taken: each one's
 * median net of om, and its variance. */
static void blocks(const vn__row_view *r, vn__decision *d, double om, double *x)
{
    size_t half = d->used / 2, k = 0, m[2] = {0, 0};
    if (half < 2)
        return;
    double *part[2] = {x, x + half};
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].tags & d->skip)
            continue;
        int b = k++ < half ? 0 : 1;
        part[b][m[b]++] = r->v[i].value - om;
    }
    for (int b = 0; b < 2; b++)
        d->block[b] = median_and_var(part[b], m[b], &d->block_var[b]);
}

/* How many decisions this process took: tests check that every engine
 * asks this one function (tests/unit/test_one_decision.c). */
static atomic_size_t decisions;

size_t vn__decisions(void) { return atomic_load(&decisions); }

int vn__decide(const vn__row_view *r, const vn__policy *p, vn__decision *d)
{
    atomic_fetch_add(&decisions, 1);
    *d = (vn__decision){.verdict = VN__GO_ON, .head = VN__HEAD_NONE, .value = NAN, .lo = NAN,
                        .hi = NAN, .raw_median = NAN, .raw_lo = NAN, .raw_hi = NAN,
                        .fastest = INFINITY, .ref = INFINITY, .half_pct = NAN, .var = NAN, .qvar = NAN,
                        .cycles = NAN, .cycles_lo = NAN, .cycles_hi = NAN,
                        .rel_mad_ns = NAN, .rel_mad_cycles = NAN,
                        .block = {NAN, NAN}, .block_var = {NAN, NAN}, .probe = NAN,
                        .ref_mid = NAN, .on_cpu = r->on_cpu};
    double *x = malloc((r->n ? r->n : 1) * sizeof *x);
    if (!x)
        return VN_ENOMEM;
    d->skip = r->skip_given ? r->skip : vn__left_out(r, p, x, &d->waiting);
    size_t quiet = 0;
    for (size_t i = 0; i < r->n; i++)
        if (!(r->v[i].tags & d->skip)) {
            x[d->used++] = r->v[i].value;
            d->fastest = fmin(d->fastest, r->v[i].value);
            quiet += !(r->v[i].tags & VN_TAG_SHARED_CORE);
        }
    d->quiet = 2 * quiet >= d->used;
    const vn__empty_view *e = &r->empty[d->quiet];
    d->ref = fastest_ref(r->v, r->n, d->skip);
    if (d->used && vn_median_ci(x, d->used, &d->raw_median, &d->raw_lo, &d->raw_hi) != 0) {
        free(x);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < d->used; i++)
        d->agree += x[i] <= d->fastest * (1 + p->precision);
    double raw_var;
    median_and_var(x, d->used, &raw_var);
    /* A sample is a count of timer ticks over its iterations: it lies on
     * a grid of step floor_ns (the timer's resolution over them). A body
     * so steady that most samples read the same count has a MAD of 0, and
     * processes that each read it would agree exactly and print an
     * interval of no width. Yet a steady time between two grid points
     * reads as the nearer one in most samples, however many: the median
     * of the counts lies up to half a step from that of the times, and
     * more samples do not average it away (the mean would, the median
     * does not). So the interval of one process is no narrower than half
     * a step either side, as a variance: (floor_ns / 2 / z)^2 (over
     * processes, below 8 of them, it is the least their spread is taken
     * to be, vn__levels_compute). */
    double qvar = r->floor_ns > 0 && d->used ? (r->floor_ns / 2 / VN__Z975) *
                                                   (r->floor_ns / 2 / VN__Z975) : 0;
    /* The variance the plan of the next process's samples and the split
     * of the variation read (as var x used a sample) keeps the floor that
     * shrinks with the samples, each sample's rounding of floor_ns^2 / 6:
     * the half step bounds the interval, not what a sample varies by. */
    if (isfinite(raw_var) && r->floor_ns > 0 && d->used)
        raw_var = fmax(raw_var, VN__MEDIAN_VAR * r->floor_ns * r->floor_ns / 6 / (double)d->used);
    if (d->used)
        d->qvar = qvar;

    if (d->used && indistinct(d, e, p)) {
        /* Only an upper bound is honest. Every sample of the loop with the
         * body bounds the body, and interference only ever adds time, so
         * the tightest bound that holds is the fastest sample (Chen and
         * Revels, "Robust benchmarking in noisy environments", 2016). */
        d->head = VN__HEAD_FASTEST;
        d->value = fmax(d->fastest, r->floor_ns);
        d->precise = d->used >= p->min_interval && d->agree >= p->fastest_agree;
    } else if (d->used) {
        /* The median net of the empty loop. Its interval carries both
         * uncertainties, the body's median and the empty loop's, as two
         * independent estimates do: their half-widths in quadrature. */
        d->head = VN__HEAD_MEDIAN;
        d->value = d->raw_median - e->om;
        /* No narrower than the rounding; no interval stays none (NAN). */
        net_interval(d->raw_median, d->raw_lo, d->raw_hi, d->value, VN__Z975 * sqrt(qvar), e, 1,
                     &d->lo, &d->hi);
        double evar = isfinite(e->olo) && isfinite(e->ohi) ? vn__median_var(e->olo, e->ohi) : 0;
        d->var = raw_var + evar;
        double half = fmax(d->value - d->lo, d->hi - d->value);
        if (d->value > 0)
            d->half_pct = 100 * half / d->value;
        d->precise = d->used >= p->min_interval && d->value > 0 && half <= p->precision * d->value;
        for (size_t i = 0, k = 0; i < r->n; i++)
            if (!(r->v[i].tags & d->skip))
                x[k++] = r->v[i].value - e->om;
        d->rel_mad_ns = rel_mad(x, d->used);
    }
    size_t np = 0;
    for (size_t i = 0; i < r->n; i++)
        if (isfinite(r->v[i].branch_cycles))
            x[np++] = r->v[i].branch_cycles;
    if (np && vn__on_cpu(r->on_cpu)) {
        qsort(x, np, sizeof *x, vn__cmp_double);
        d->probe = vn_percentile_sorted(x, np, 50);
    }
    size_t nr = 0;
    for (size_t i = 0; i < r->n; i++)
        if (isfinite(r->v[i].ref_ns) && r->v[i].ref_ns > 0)
            x[nr++] = r->v[i].ref_ns;
    d->ref_mid = vn__median_of(x, nr);
    if (d->used) {
        in_cycles(r, d, d->head == VN__HEAD_MEDIAN ? e : NULL, x, p);
        blocks(r, d, d->head == VN__HEAD_MEDIAN ? e->om : 0, x);
    }
    free(x);
    /* The minimum counts the samples the headline rests on: a row whose
     * samples were preempted goes on (within the budget) until that many
     * remain. The precision must have held at the tests just before too
     * (p->confirm in a row). */
    /* The last look there can be (the most samples) is one look: no
     * repeated test to guard against. */
    int confirmed = r->streak + 1 >= p->confirm || r->n >= p->max_samples;
    int ready = p->stop_on_precision && d->precise && confirmed && !d->waiting &&
                d->used >= p->min_samples;
    if (r->n < p->min_samples && r->n < p->max_samples)
        d->verdict = VN__GO_ON;
    else if (ready)
        d->verdict = VN__STOP_PRECISE;
    else if (r->n >= p->max_samples)
        d->verdict = VN__STOP_MAX_SAMPLES;
    else if (r->elapsed_ns >= p->budget_ns)
        d->verdict = VN__STOP_MAX_TIME;
    return 0;
}

/* A chain of adds, the reference, runs at most one add a cycle: a second
 * hardware thread busy beside it, or anything else that takes the core,
 * only slows it. A body on the CPU whose processes hold their ns steadier
 * than their cycles met a reference that moved while the body did not,
 * such as a chain of divisions beside a busy sibling, which slows the adds
 * and not the divisions; its cycles are then its ns at the rate of the
 * processes nothing slowed. The highest rate alone may be one process's
 * lucky moment: the second-highest (docs/engine.md, step 8). The engine
 * asks only where a process the headline rests on met a busy sibling
 * (vn__sibling_met): elsewhere the rates part because the clock itself
 * moved, which a body bound by memory does not follow, and the highest
 * rate is then one moment's, not the body's. */
double vn__at_clock(const vn__unit_view *ns, vn__unit_view *cycles, const double *x,
                    const double *c, size_t k)
{
    double first = 0, second = 0;
    for (size_t i = 0; i < k; i++) {
        double f = x[i] > 0 && c[i] > 0 ? c[i] / x[i] : 0;
        if (f > first)
            second = first, first = f;
        else if (f > second)
            second = f;
    }
    double rate = k >= 3 ? second : first, s = ns->value * rate / cycles->value;
    if (!(s > 0) || !isfinite(s))
        return NAN;
    cycles->value *= s;
    cycles->lo *= s;
    cycles->hi *= s;
    return rate;
}

int vn__sibling_met(const vn__decision *proc, size_t k, double limit, double alone)
{
    for (size_t i = 0; i < k; i++)
        if (proc[i].probe > limit || proc[i].probe >= alone)
            return 1;
    return 0;
}

vn_stop vn__stop_of(vn__verdict v)
{
    switch (v) {
    case VN__STOP_PRECISE: return VN_STOP_PRECISION;
    case VN__STOP_MAX_TIME: return VN_STOP_MAX_TIME;
    case VN__STOP_MAX_PROCESSES: return VN_STOP_MAX_PROCESSES;
    case VN__STOP_PROCESSES_VARY: return VN_STOP_PROCESSES_VARY;
    case VN__STOP_MAX_SAMPLES:
    case VN__GO_ON: break;
    }
    return VN_STOP_MAX_SAMPLES;
}
