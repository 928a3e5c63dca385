/* The one decision of a benchmark row (bench_decide.h). */
#include <math.h>
#include <stdlib.h>

#include "bench_decide.h"
#include "bench_internal.h"
#include "vernier/base.h"
#include "vernier/stats.h"

int vn__policy_init(vn__policy *p, const vn_config *cfg)
{
    /* Filled in a copy, so that p stays untouched on a bad override. */
    vn__policy d, *p_out = p;
    p = &d;
    p->precision = cfg->precision / 100.0;
    p->min_samples = cfg->min_samples;
    p->max_samples = cfg->max_samples;
    p->budget_ns = cfg->max_time * 1e9;
    /* Half the minimum, and never under 5: a headline on fewer would rest
     * on almost nothing, so then the tagged samples count after all. */
    p->min_untagged = cfg->min_samples / 2 > 5 ? cfg->min_samples / 2 : 5;
    /* Below 6 samples no pair of order statistics covers the median at 95%. */
    p->min_interval = 6;
    /* One fast sample may be a lucky one; five within the precision of it
     * show the machine can run the body that fast again. */
    p->fastest_agree = 5;
    /* The empty loop subtracted from samples of one kind of moments comes
     * from that kind alone once there are enough of them for an interval:
     * a shared core slows a loop of taken branches, the empty one too. */
    p->empty_matched = 5;
    /* The empty loop stands for the benchmark's loop only up to code
     * placement, which moves a loop's cost by a fraction of a cycle. */
    p->indistinct_share = 0.5;
    /* Shared-core samples leave the headline only when sharing moves this
     * body's time beyond the precision asked; otherwise they are as good as
     * quiet ones, and waiting for quiet moments would buy nothing. */
    p->shared_slower = 1.0;
    p->shared_evidence = 2;
    p->shared_ratio = VN__SHARED_RATIO;
    if (vn__policy_parse(p, cfg->policy, NULL, 0) != 0)
        return VN_EINVAL;
    *p_out = d;
    return 0;
}

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
static unsigned left_out(const vn__row_view *r, const vn__policy *p, double *x, int *waiting)
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

int vn__decide(const vn__row_view *r, const vn__policy *p, vn__decision *d)
{
    *d = (vn__decision){.verdict = VN__GO_ON, .head = VN__HEAD_NONE, .value = NAN, .lo = NAN,
                        .hi = NAN, .raw_median = NAN, .raw_lo = NAN, .raw_hi = NAN,
                        .fastest = INFINITY, .ref = INFINITY, .half_pct = NAN};
    double *x = malloc((r->n ? r->n : 1) * sizeof *x);
    if (!x)
        return VN_ENOMEM;
    d->skip = left_out(r, p, x, &d->waiting);
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
    free(x);

    if (d->used && indistinct(d, e, p)) {
        /* Only an upper bound is honest. Every sample of the loop with the
         * body bounds the body, and interference only ever adds time, so
         * the tightest bound that holds is the fastest sample (Chen and
         * Revels, "Robust benchmarking in noisy environments", 2016). */
        d->head = VN__HEAD_FASTEST;
        d->value = fmax(d->fastest, r->floor_ns);
        d->precise = d->used >= p->min_interval && d->agree >= p->fastest_agree;
    } else if (d->used) {
        d->head = VN__HEAD_MEDIAN;
        d->value = d->raw_median - e->om;
        d->lo = d->raw_lo - e->om;
        d->hi = d->raw_hi - e->om;
        double half = fmax(d->value - d->lo, d->hi - d->value);
        if (d->value > 0)
            d->half_pct = 100 * half / d->value;
        d->precise = d->used >= p->min_interval && d->value > 0 && half <= p->precision * d->value;
    }
    /* The minimum counts the samples the headline rests on: a row whose
     * samples were preempted goes on (within the budget) until that many
     * remain. */
    int ready = d->precise && !d->waiting && d->used >= p->min_samples;
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
