/* The ratio of two medians with a bootstrap interval (stats.h).
 *
 * The interval is the percentile bootstrap (Efron and Tibshirani, "An
 * Introduction to the Bootstrap", 1993, ch. 13): the ratio is computed
 * again on many resamples drawn with replacement, and the 2.5th and 97.5th
 * percentiles of those ratios are its ends. Paired values are resampled as
 * pairs: the same indices on both sides, so what moved both values of a
 * pair (the machine's speed in that moment) moves both medians alike and
 * cancels in their ratio. The generator's seed is fixed, so equal input
 * always gives an equal interval. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rng.h"
#include "stats/stats_api.h"

#define RESAMPLES 2000
#define SEED 0x726174696full /* "ratio" */

/* The k-th smallest of x[0..n) (0-based), reordering x: Wirth's selection,
 * linear on average, with no allocation. */
static double select_k(double *x, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        double pivot = x[kk];
        ptrdiff_t i = lo, j = hi;
        do {
            while (x[i] < pivot)
                i++;
            while (pivot < x[j])
                j--;
            if (i <= j) {
                double t = x[i];
                x[i++] = x[j];
                x[j--] = t;
            }
        } while (i <= j);
        if (j < kk)
            lo = i;
        if (kk < i)
            hi = j;
    }
    return x[kk];
}

/* The median of x[0..n), n >= 1, reordering x. */
static double median_in_place(double *x, size_t n)
{
    double upper = select_k(x, n, n / 2);
    if (n % 2)
        return upper;
    /* Everything before n/2 is now at most the upper middle: the lower
     * middle is the largest of them. */
    double lower = x[0];
    for (size_t i = 1; i < n / 2; i++)
        lower = x[i] > lower ? x[i] : lower;
    return (lower + upper) / 2;
}

double vn__median_of(const double *x, size_t n)
{
    double *y = malloc((n ? n : 1) * sizeof *y), med = NAN;
    size_t m = 0;
    for (size_t i = 0; y && i < n; i++)
        if (isfinite(x[i]))
            y[m++] = x[i];
    if (m)
        med = median_in_place(y, m);
    free(y);
    return med;
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* A ratio of two medians of times: the denominator's must be above zero,
 * or the ratio says nothing (an infinite one sorts above every other). */
static double ratio_of(double num, double den)
{
    return den > 0 ? num / den : INFINITY;
}

int vn__ratio_boot(const double *a, size_t na, const double *b, size_t nb, int paired,
                   size_t resamples, uint64_t seed, vn_ratio *out)
{
    if (!a || !b || !out || na == 0 || nb == 0 || (paired && na != nb) || resamples == 0 ||
        !all_finite(a, na) || !all_finite(b, nb))
        return VN_EINVAL;
    double *wa = malloc((na + nb) * sizeof *wa);
    double *r = malloc(resamples * sizeof *r);
    if (!wa || !r) {
        free(wa);
        free(r);
        return VN_ENOMEM;
    }
    double *wb = wa + na;
    memcpy(wa, a, na * sizeof *wa);
    memcpy(wb, b, nb * sizeof *wb);
    double ma = median_in_place(wa, na), mb = median_in_place(wb, nb);
    if (!(ma > 0) || !(mb > 0)) {
        free(wa);
        free(r);
        return VN_ERANGE;
    }
    vn_ratio res = {mb / ma, {NAN, NAN}, paired ? na : (na < nb ? na : nb), paired != 0};
    if (res.n >= VN_RATIO_MIN) {
        vn__srng g;
        vn__srng_seed(&g, seed);
        for (size_t k = 0; k < resamples; k++) {
            if (paired) {
                for (size_t i = 0; i < na; i++) {
                    size_t at = vn__srng_index(&g, na);
                    wa[i] = a[at];
                    wb[i] = b[at];
                }
            } else {
                for (size_t i = 0; i < na; i++)
                    wa[i] = a[vn__srng_index(&g, na)];
                for (size_t i = 0; i < nb; i++)
                    wb[i] = b[vn__srng_index(&g, nb)];
            }
            r[k] = ratio_of(median_in_place(wb, nb), median_in_place(wa, na));
        }
        qsort(r, resamples, sizeof *r, vn__cmp_double);
        /* The order statistics at the 2.5% and 97.5% ranks, as the
         * percentile method takes them: no interpolation, which an
         * infinite ratio would turn into NaN. */
        size_t lo = (size_t)floor(0.025 * (double)resamples);
        size_t hi = (size_t)ceil(0.975 * (double)resamples);
        res.ci[0] = r[lo < resamples ? lo : resamples - 1];
        res.ci[1] = r[hi > 0 ? hi - 1 : 0];
    }
    free(wa);
    free(r);
    *out = res;
    return 0;
}

int vn_ratio_paired(const double *a, const double *b, size_t n, vn_ratio *out)
{
    return vn__ratio_boot(a, n, b, n, 1, RESAMPLES, SEED, out);
}

int vn_ratio_unpaired(const double *a, size_t na, const double *b, size_t nb, vn_ratio *out)
{
    return vn__ratio_boot(a, na, b, nb, 0, RESAMPLES, SEED, out);
}
