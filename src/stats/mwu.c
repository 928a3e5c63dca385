/* The Mann-Whitney U test, with scipy.stats.mannwhitneyu's default choice of
 * method, so a p-value vernier prints is the one a reader checking it with
 * scipy gets: the exact distribution of U for small samples without ties,
 * the normal approximation otherwise. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "stats/stats_api.h"

/* scipy's rule (_mwu_choose_method): the exact distribution when one sample
 * has at most this many values and no two values are equal. */
#define EXACT_MAX_N 8

/* P(U <= k) under the null for samples of m and n values, from the
 * generating function of U, the Gaussian binomial coefficient
 * [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Only the
 * coefficients up to q^k are kept, which the products and quotients below
 * never read past. Every partial product is itself a Gaussian binomial,
 * with counts no larger than the final ones, so doubles keep about 15
 * digits of the tail even where the counts pass 2^53. NaN without memory. */
static double exact_cdf(size_t m, size_t n, size_t k)
{
    double *c = calloc(k + 1, sizeof *c);
    if (!c)
        return NAN;
    c[0] = 1;
    for (size_t i = 1; i <= m; i++) {
        size_t up = n + i;
        for (size_t j = k + 1; j-- > up;) /* downward: each c[j - up] is still the old one */
            c[j] -= c[j - up];
        for (size_t j = i; j <= k; j++)
            c[j] += c[j - i];
    }
    double sum = 0, total = 1;
    for (size_t j = 0; j <= k; j++)
        sum += c[j];
    free(c);
    for (size_t i = 1; i <= m; i++)
        total = total * (double)(n + i) / (double)i; /* binom(m + n, m) */
    return sum / total;
}

int vn_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u, double *p)
{
    if (!a || !b || !na || !nb || !u || !p)
        return VN_EINVAL;
    size_t n = na + nb;
    vn__ranked *r = malloc(n * sizeof *r);
    if (!r)
        return VN_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        double v = i < na ? a[i] : b[i - na];
        if (isnan(v)) {
            free(r);
            return VN_EINVAL;
        }
        r[i] = (vn__ranked){v, i};
    }
    qsort(r, n, sizeof *r, vn__cmp_ranked);
    /* Average ranks for ties; the tie term sum(t^3 - t) for the variance. */
    double ra = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && r[j + 1].v == r[i].v)
            j++;
        double rank = ((double)i + (double)j) / 2.0 + 1.0, t = (double)(j - i + 1);
        for (size_t k = i; k <= j; k++)
            if (r[k].i < na)
                ra += rank;
        ties += t * t * t - t;
        i = j + 1;
    }
    free(r);
    double dna = (double)na, dnb = (double)nb, dn = (double)n;
    double u1 = ra - dna * (dna + 1) / 2.0;
    double big = fmax(u1, dna * dnb - u1);
    if ((na <= EXACT_MAX_N || nb <= EXACT_MAX_N) && ties == 0) {
        /* Without ties U is a whole number; the two-sided p-value is twice
         * the tail beyond the larger U, which by symmetry is the lower
         * tail up to the smaller one. */
        size_t small = (size_t)(dna * dnb - big);
        double pv = 2 * exact_cdf(na < nb ? na : nb, na < nb ? nb : na, small);
        if (isnan(pv))
            return VN_ENOMEM;
        *u = u1;
        *p = pv > 1 ? 1 : pv;
        return 0;
    }
    *u = u1;
    double mu = dna * dnb / 2.0;
    double var = dna * dnb / 12.0 * ((dn + 1) - ties / (dn * (dn - 1)));
    if (!(var > 0)) {
        *p = 1.0; /* every value tied: no evidence of any difference */
        return 0;
    }
    /* The continuity correction: U moves in steps, the normal curve does not. */
    double z = (big - mu - 0.5) / sqrt(var);
    double pv = erfc(z / sqrt(2.0));
    *p = pv > 1 ? 1 : pv;
    return 0;
}
