/* Statistics of a sample: pure functions of their input (see
 * vernier/stats.h). Nothing here reads a clock, a file or a global, so the
 * tests can check every number against an independent implementation.
 *
 * Accuracy matters more than speed here: a summary is computed once per
 * benchmark, while a wrong digit in it misleads every reader. Sums are
 * compensated, the variance is the corrected two-pass formula, and the
 * special functions (stats/special.c) are written out so their accuracy is
 * known on every libc. Histograms are in stats/hist.c. */
#include "internal.h"
#include "stats/stats_api.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const double vn_stats_pct[VN_STATS_NPCT] = {1, 5, 10, 25, 50, 75, 90, 95, 99};

/* ---- compensated summation ---------------------------------------------- */

/* Neumaier's variant of Kahan summation: the low-order bits each addition
 * loses are kept in c, also when the new term is larger than the sum. A
 * million terms then sum with the error of a few, not of a million. */
typedef struct ksum {
    double s, c;
} ksum;

static void ksum_add(ksum *k, double v)
{
    double t = k->s + v;
    if (fabs(k->s) >= fabs(v))
        k->c += (k->s - t) + v;
    else
        k->c += (v - t) + k->s;
    k->s = t;
}

static double ksum_get(const ksum *k) { return k->s + k->c; }

/* ---- order statistics ----------------------------------------------------- */

double vn_half_sample_mode(const double *sorted, size_t n)
{
    if (!sorted || n == 0)
        return NAN;
    /* Bickel and Fruehwirth's recursion: keep the shortest run of
     * ceil(len/2) consecutive sorted values (the first of equal ones) until
     * three or fewer remain; the densest region shrinks to a point. */
    size_t lo = 0, len = n;
    while (len > 3) {
        size_t h = (len + 1) / 2, best = lo;
        double w = INFINITY;
        for (size_t i = lo; i + h <= lo + len; i++)
            if (sorted[i + h - 1] - sorted[i] < w) {
                w = sorted[i + h - 1] - sorted[i];
                best = i;
            }
        lo = best;
        len = h;
    }
    const double *x = sorted + lo;
    if (len == 3) {
        double a = x[1] - x[0], b = x[2] - x[1];
        return a < b ? (x[0] + x[1]) / 2 : a > b ? (x[1] + x[2]) / 2 : x[1];
    }
    return len == 2 ? (x[0] + x[1]) / 2 : x[0];
}

/* The narrowest symmetric interval of order statistics [x(k), x(n+1-k)]
 * (1-based) that covers the median with probability >= 0.95, for n >= 2.
 *
 * It misses the population median exactly when fewer than k or more than
 * n-k of the values lie below it, so its coverage is P(k <= B <= n-k) for
 * B ~ Binomial(n, 1/2), whatever the distribution. Starting from the middle,
 * k steps down (the interval widens by one value at each end) until the
 * coverage reaches 95%; the first k that does gives the narrowest interval.
 * Up to n = 58 the sums are exact in integers (C(58, 29) * 29 and
 * 20 * 2^58 fit in 64 bits), so the 95% test has no rounding at all. */
static size_t median_ci_k(size_t n, double *coverage)
{
    size_t k = n / 2;
    if (n <= 58) {
        uint64_t ck = 1, sum = 0, all = (uint64_t)1 << n;
        for (size_t j = 0; j < k; j++)
            ck = ck * (n - j) / (j + 1); /* C(n, j+1), exact at each step */
        for (;;) {
            sum += (k == n - k) ? ck : 2 * ck;
            if (20 * sum >= 19 * all || k == 1)
                break;
            ck = ck * k / (n - k + 1); /* C(n, k-1) */
            k--;
        }
        *coverage = ldexp((double)sum, -(int)n);
        return k;
    }
    double pk = exp(vn__log_binom_half(n, k)), cov = 0;
    for (;;) {
        cov += (k == n - k) ? pk : 2 * pk;
        if (cov >= 0.95 || k == 1)
            break;
        pk *= (double)k / (double)(n - k + 1); /* P(B = k-1) from P(B = k) */
        k--;
    }
    *coverage = cov > 1.0 ? 1.0 : cov;
    return k;
}

void vn_median_ci_ranks(size_t n, size_t *lo, size_t *hi, double *coverage)
{
    size_t l = 0, h = 0;
    double cov = 0.0;
    if (n >= 2) {
        size_t k = median_ci_k(n, &cov);
        l = k - 1;
        h = n - k;
    }
    if (lo)
        *lo = l;
    if (hi)
        *hi = h;
    if (coverage)
        *coverage = cov;
}

/* ---- the summary ------------------------------------------------------------- */

typedef vn__ranked ranked;

int vn__cmp_ranked(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

int vn__cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* A power of two near 1 / m: multiplying by it is exact, and brings values of
 * any magnitude near 1, so sums of up to 2^53 of them cannot overflow. */
static double unit_scale(double m)
{
    int e = 0;
    if (m > 0)
        frexp(m, &e);
    if (e < -1000)
        e = -1000;
    if (e > 1000)
        e = 1000;
    return ldexp(1.0, -e);
}

/* Mean and sample standard deviation in one place: the mean refined by a
 * second pass over the residuals, and the corrected two-pass sum of squares
 * sum((x - m)^2) - (sum(x - m))^2 / n, which cancels the rounding of m
 * itself. Values near 1e12 that differ in the sixth decimal keep every digit
 * of their spread. Both are computed on values scaled near 1, so neither the
 * sum nor the squares overflow for values near DBL_MAX. */
static void mean_sd(const double *x, size_t n, double maxabs, double *mean, double *sd)
{
    double sc = unit_scale(maxabs), dn = (double)n;
    ksum s = {0, 0};
    for (size_t i = 0; i < n; i++)
        ksum_add(&s, x[i] * sc);
    double m = ksum_get(&s) / dn;
    ksum r = {0, 0};
    for (size_t i = 0; i < n; i++)
        ksum_add(&r, x[i] * sc - m);
    m += ksum_get(&r) / dn;
    ksum d = {0, 0}, d2 = {0, 0};
    for (size_t i = 0; i < n; i++) {
        double e = x[i] * sc - m;
        ksum_add(&d, e);
        ksum_add(&d2, e * e);
    }
    double sd1 = ksum_get(&d);
    double ss = ksum_get(&d2) - sd1 * sd1 / dn;
    *mean = m / sc;
    *sd = n > 1 ? sqrt((ss > 0 ? ss : 0) / (dn - 1)) / sc : NAN;
}

/* Sorted absolute deviations from med, in O(n): below med they grow as the
 * index falls, above it as the index rises, so two sorted runs are merged. */
static void abs_devs_sorted(const double *s, size_t n, double med, double *out)
{
    size_t split = 0;
    while (split < n && s[split] < med)
        split++;
    size_t i = split, j = split, k = 0;
    while (i > 0 && j < n) {
        double a = med - s[i - 1], b = s[j] - med;
        if (a <= b) {
            out[k++] = a;
            i--;
        } else {
            out[k++] = b;
            j++;
        }
    }
    while (i > 0)
        out[k++] = med - s[--i];
    while (j < n)
        out[k++] = s[j++] - med;
}

/* Brendan Gregg's mvalue ("Frequency Trails: Modes and Modality"): the
 * histogram's total up-and-down travel, with empty bins padded at both ends,
 * divided by its highest bin. One hump travels up once and down once: 2.
 * Each further mode with a dip between adds up to 2 more.
 *
 * The score is only as good as its binning, chosen here as follows:
 * - The range is the values inside Tukey's outer fences (3 IQR beyond the
 *   quartiles), so a few preemption outliers far out cannot squeeze the
 *   body of the data into one bin.
 * - k = ceil(0.8 * cbrt(m)) bins for the m values in that range. A number of
 *   bins growing as m^(1/3) keeps the counting noise in bin heights, and so
 *   its contribution to the score, about constant as m grows. With 0.8,
 *   simulated unimodal samples (normal, lognormal, exponential, gamma,
 *   Student t) of 20 to 100000 values score 2.8 or more in under 1% of
 *   draws, while equal mixtures of normals 6 standard deviations apart
 *   reach 2.8 in most draws from 20 values and in all from 300.
 * - Data on a lattice (integer nanoseconds, clock ticks converted to ns)
 *   would give bins alternately holding one and two lattice points: a comb
 *   that looks like many modes. When values repeat and sit on a lattice of
 *   step g, bins are widened to a multiple of g and centred on it.
 * - Fewer than 3 bins cannot show a dip between two modes: the score is NaN
 *   there (about fewer than 16 values), except for constant data, which has
 *   exactly one mode (2). */
static double modality(const double *s, size_t n, double q1, double q3, int *err)
{
    double iqr = q3 - q1;
    double lo = fmax(s[0], q1 - 3 * iqr), hi = fmin(s[n - 1], q3 + 3 * iqr);
    size_t a = 0, b = n;
    while (a < n && s[a] < lo)
        a++;
    while (b > a && s[b - 1] > hi)
        b--;
    size_t m = b - a;
    if (m == 0)
        return 2.0;
    lo = s[a]; /* the bins span the values inside, which may not reach the fences */
    hi = s[b - 1];
    if (!(hi > lo))
        return 2.0;
    /* At most 199 here: the lattice below can add one bin, and 200 is the
     * most any histogram of this module has. */
    size_t k = (size_t)fmin(ceil(0.8 * cbrt((double)m)), 199);
    double width = (hi - lo) / (double)k, start = lo;

    /* The smallest step between distinct values, and how many there are. */
    double g = INFINITY;
    size_t distinct = 1;
    for (size_t i = a + 1; i < b; i++)
        if (s[i] != s[i - 1]) {
            distinct++;
            if (s[i] - s[i - 1] < g)
                g = s[i] - s[i - 1];
        }
    int lattice = distinct * 2 <= m && isfinite(g) && g > 0;
    for (size_t i = a; lattice && i < b; i++) {
        double r = (s[i] - lo) / g;
        /* Values converted from ticks are a lattice up to their rounding. */
        if (fabs(r - nearbyint(r)) > 1e-3)
            lattice = 0;
    }
    if (lattice) {
        width = ceil(width / g * (1 - 1e-12)) * g;
        if (width < g)
            width = g;
        start = lo - g / 2;
        k = (size_t)floor((hi - start) / width) + 1;
    }
    /* Values a few subnormals apart: a width that rounds to 0 would make
     * the first index 0 / 0. */
    if (k < 3 || !(width > 0))
        return NAN;
    uint64_t *c = calloc(k, sizeof *c);
    if (!c) {
        *err = VN_ENOMEM;
        return NAN;
    }
    for (size_t i = a; i < b; i++) {
        double f = (s[i] - start) / width;
        size_t j = f <= 0 ? 0 : f >= (double)(k - 1) ? k - 1 : (size_t)f;
        c[j]++;
    }
    uint64_t top = 0;
    double travel = (double)c[0] + (double)c[k - 1];
    for (size_t j = 0; j < k; j++) {
        if (c[j] > top)
            top = c[j];
        if (j)
            travel += c[j] > c[j - 1] ? (double)(c[j] - c[j - 1]) : (double)(c[j - 1] - c[j]);
    }
    free(c);
    return travel / (double)top;
}

/* Spearman's rank correlation between the values and their positions, and
 * its two-sided p-value, as scipy.stats.spearmanr computes them: Pearson's
 * correlation of the ranks (tied values share their average rank), then
 * t = r sqrt((n-2) / (1 - r^2)) against Student's t with n-2 degrees of
 * freedom. p = 2 P(T > |t|) simplifies to I_{1-r^2}((n-2)/2, 1/2). */
static void drift(const ranked *rk, size_t n, double *rho, double *p)
{
    *rho = *p = NAN;
    if (n < 3)
        return;
    double mid = ((double)n + 1) / 2;
    ksum sxy = {0, 0}, sxx = {0, 0};
    for (size_t s = 0; s < n;) {
        size_t e = s + 1;
        while (e < n && rk[e].v == rk[s].v)
            e++;
        double dr = ((double)s + 1 + (double)e) / 2 - mid; /* average of ranks s+1..e */
        for (size_t i = s; i < e; i++) {
            ksum_add(&sxy, dr * ((double)rk[i].i + 1 - mid));
            ksum_add(&sxx, dr * dr);
        }
        s = e;
    }
    double dn = (double)n;
    double syy = dn * (dn * dn - 1) / 12; /* positions 1..n have no ties */
    double vx = ksum_get(&sxx);
    if (!(vx > 0))
        return; /* constant data: no ranking, no correlation */
    double r = ksum_get(&sxy) / sqrt(vx * syy);
    if (r > 1)
        r = 1;
    if (r < -1)
        r = -1;
    *rho = r;
    *p = fabs(r) == 1 ? 0.0 : vn__ibeta((dn - 2) / 2, 0.5, (1 - r) * (1 + r), r * r);
}

int vn_stats_compute(const double *x, size_t n, vn_stats *out)
{
    if (!x || !out || n == 0)
        return VN_EINVAL;
    double maxabs = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return VN_EINVAL;
        if (fabs(x[i]) > maxabs)
            maxabs = fabs(x[i]);
    }
    if (n > SIZE_MAX / (sizeof(ranked) + sizeof(double)))
        return VN_ENOMEM;
    ranked *rk = malloc(n * sizeof *rk);
    double *s = malloc(n * sizeof *s);
    double *dev = malloc(n * sizeof *dev);
    if (!rk || !s || !dev) {
        free(rk);
        free(s);
        free(dev);
        return VN_ENOMEM;
    }
    /* One sort serves both the order statistics and the ranks for drift;
     * the caller's array is only read. */
    for (size_t i = 0; i < n; i++)
        rk[i] = (ranked){x[i], i};
    qsort(rk, n, sizeof *rk, vn__cmp_ranked);
    for (size_t i = 0; i < n; i++)
        s[i] = rk[i].v;

    int err = 0;
    vn_stats st;
    memset(&st, 0, sizeof st);
    st.n = n;
    st.min = s[0];
    st.max = s[n - 1];
    if (!isfinite(st.max - st.min)) {
        err = VN_ERANGE; /* the spread itself is not a double */
        goto done;
    }
    mean_sd(x, n, maxabs, &st.mean, &st.stddev);
    st.sem = st.stddev / sqrt((double)n);
    double half = n > 1 ? vn_t975((double)(n - 1)) * st.sem : NAN;
    st.mean_ci[0] = st.mean - half;
    st.mean_ci[1] = st.mean + half;
    if (n > 1 && !(isfinite(st.mean_ci[0]) && isfinite(st.mean_ci[1]))) {
        err = VN_ERANGE; /* the interval of the mean reaches past the largest double */
        goto done;
    }
    st.cv = n > 1 && st.mean != 0 ? st.stddev / fabs(st.mean) : NAN;

    for (size_t i = 0; i < VN_STATS_NPCT; i++)
        st.pct[i] = vn_percentile_sorted(s, n, vn_stats_pct[i]);
    st.median = vn_percentile_sorted(s, n, 50);
    size_t lo, hi;
    vn_median_ci_ranks(n, &lo, &hi, &st.median_ci_level);
    st.median_ci[0] = n > 1 ? s[lo] : NAN;
    st.median_ci[1] = n > 1 ? s[hi] : NAN;
    if (n < 2)
        st.median_ci_level = NAN; /* no interval, so no coverage to state */

    abs_devs_sorted(s, n, st.median, dev);
    st.mad = vn_percentile_sorted(dev, n, 50);
    st.mad_scaled = st.mad * 1.4826;

    double q1 = vn_percentile_sorted(s, n, 25), q3 = vn_percentile_sorted(s, n, 75);
    st.iqr = q3 - q1;
    /* Tukey's fences. A value on a fence is not beyond it. */
    double low_sev = q1 - 3 * st.iqr, low_mild = q1 - 1.5 * st.iqr;
    double high_mild = q3 + 1.5 * st.iqr, high_sev = q3 + 3 * st.iqr;
    for (size_t i = 0; i < n; i++) {
        double v = s[i];
        if (v < low_sev)
            st.outliers.low_severe++;
        else if (v < low_mild)
            st.outliers.low_mild++;
        else if (v > high_sev)
            st.outliers.high_severe++;
        else if (v > high_mild)
            st.outliers.high_mild++;
    }

    st.modality = modality(s, n, q1, q3, &err);
    if (err)
        goto done;
    err = vn_modes_sorted(s, n, &st.modes);
    if (err)
        goto done;
    drift(rk, n, &st.drift, &st.drift_p);
    *out = st;
done:
    free(rk);
    free(s);
    free(dev);
    return err;
}

double *vn__sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return NULL;
    if (n)
        memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, vn__cmp_double);
    return s;
}

int vn_median_ci(const double *x, size_t n, double *median, double *lo, double *hi)
{
    if (!x || !n || !median || !lo || !hi)
        return VN_EINVAL;
    double *s = vn__sorted_copy(x, n);
    if (!s)
        return VN_ENOMEM;
    size_t l, h;
    double cov;
    vn_median_ci_ranks(n, &l, &h, &cov);
    *median = vn_percentile_sorted(s, n, 50);
    *lo = s[l];
    *hi = s[h];
    free(s);
    return 0;
}
