/* The statistics module on samples small enough to check by hand: every
 * expected number below is derived in the comment next to it from the
 * definition (numpy's linear percentiles, the binomial coverage of order
 * statistics, Tukey's fences, Spearman's rho), not taken from a run. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/format.h"
#include "main/all.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))
#define REL(a, b, tol) assert_true(fabs((a) - (b)) <= (tol) * fabs(b))

static void one_value(void **state)
{
    (void)state;
    const double x[] = {4.5};
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, 1, &s), 0);
    assert_int_equal(s.n, 1);
    assert_true(s.min == 4.5 && s.max == 4.5 && s.mean == 4.5 && s.median == 4.5);
    for (size_t i = 0; i < VN_STATS_NPCT; i++)
        assert_true(s.pct[i] == 4.5);
    /* Nothing about spread can be said from one value. */
    assert_true(isnan(s.stddev) && isnan(s.sem) && isnan(s.cv));
    assert_true(isnan(s.mean_ci[0]) && isnan(s.mean_ci[1]));
    assert_true(isnan(s.median_ci[0]) && isnan(s.median_ci[1]));
    assert_true(isnan(s.median_ci_level));
    assert_true(s.mad == 0 && s.iqr == 0);
    assert_true(s.modality == 2); /* one value: one mode */
    assert_true(isnan(s.drift) && isnan(s.drift_p));
}

static void two_values(void **state)
{
    (void)state;
    const double x[] = {3, 1};
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, 2, &s), 0);
    assert_true(s.mean == 2 && s.median == 2);
    /* variance ((1-2)^2 + (3-2)^2) / (2-1) = 2; sem = sqrt(2)/sqrt(2) = 1 */
    REL(s.stddev, sqrt(2.0), 1e-15);
    REL(s.sem, 1.0, 1e-15);
    /* t(0.975, 1) = tan(pi * 0.475): the Cauchy quantile */
    double t1 = tan(M_PI * 0.475);
    REL(s.mean_ci[0], 2 - t1, 1e-12);
    REL(s.mean_ci[1], 2 + t1, 1e-12);
    /* [x(1), x(2)] covers the median unless both values fall on one side:
     * 1 - 2/4 = 0.5 */
    assert_true(s.median_ci[0] == 1 && s.median_ci[1] == 3);
    assert_true(s.median_ci_level == 0.5);
    assert_true(s.mad == 1);       /* |1-2|, |3-2| */
    assert_true(s.pct[3] == 1.5);  /* p25: index 0.25 between 1 and 3 */
    assert_true(s.iqr == 1);       /* 2.5 - 1.5 */
    assert_true(isnan(s.drift));   /* no trend from two points */
    REL(s.cv, sqrt(2.0) / 2, 1e-15);
}

static void constant_values(void **state)
{
    (void)state;
    double x[10];
    for (int i = 0; i < 10; i++)
        x[i] = 7.25;
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, 10, &s), 0);
    assert_true(s.mean == 7.25 && s.stddev == 0 && s.cv == 0 && s.mad == 0 && s.iqr == 0);
    assert_true(s.mean_ci[0] == 7.25 && s.mean_ci[1] == 7.25);
    assert_int_equal(s.outliers.low_severe + s.outliers.low_mild + s.outliers.high_mild +
                         s.outliers.high_severe,
                     0);
    assert_true(s.modality == 2);
    assert_true(isnan(s.drift)); /* all ranks tie: no correlation */
    vn_histogram h = {0};
    assert_int_equal(vn_histogram_compute(x, 10, 0, &h), 0);
    assert_int_equal(h.nbins, 1);
    assert_true(h.width == 0 && h.lo == 7.25);
    assert_int_equal(h.counts[0], 10);
    vn_histogram_free(&h);
}

static void percentiles_of_one_to_ten(void **state)
{
    (void)state;
    /* Shuffled 1..10. numpy's linear percentile p sits at index h = 9p/100
     * between sorted[floor(h)] and the next: p1 -> 1.09, p5 -> 1.45,
     * p10 -> 1.9, p25 -> 3.25, p50 -> 5.5, p75 -> 7.75, p90 -> 9.1,
     * p95 -> 9.55, p99 -> 9.91. */
    const double x[] = {7, 2, 9, 1, 10, 4, 3, 8, 6, 5};
    const double want[VN_STATS_NPCT] = {1.09, 1.45, 1.9, 3.25, 5.5, 7.75, 9.1, 9.55, 9.91};
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, 10, &s), 0);
    for (size_t i = 0; i < VN_STATS_NPCT; i++)
        NEAR(s.pct[i], want[i], 1e-12);
    assert_true(s.median == 5.5);
    assert_true(s.mean == 5.5);
    REL(s.stddev, sqrt(55.0 / 6), 1e-14); /* sum (i - 5.5)^2 = 82.5, / 9 */
    /* |x - 5.5| = 0.5,0.5,1.5,1.5,...,4.5,4.5: the median is 2.5 */
    assert_true(s.mad == 2.5);
    REL(s.mad_scaled, 2.5 * 1.4826, 1e-15);
    /* n = 10: [x(2), x(9)] covers 1 - 2 (1 + 10) / 1024; [x(3), x(8)]
     * only 1 - 2 (1 + 10 + 45) / 1024 = 0.89 */
    assert_true(s.median_ci[0] == 2 && s.median_ci[1] == 9);
    assert_true(s.median_ci_level == 1002.0 / 1024);

    const double sorted[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assert_true(vn_percentile_sorted(sorted, 10, 0) == 1);
    assert_true(vn_percentile_sorted(sorted, 10, 100) == 10);
    assert_true(isnan(vn_percentile_sorted(sorted, 10, -1)));
    assert_true(isnan(vn_percentile_sorted(sorted, 10, 100.5)));
    assert_true(isnan(vn_percentile_sorted(sorted, 10, NAN)));
    assert_true(isnan(vn_percentile_sorted(sorted, 0, 50)));
}

static void ties_and_mad(void **state)
{
    (void)state;
    /* median (2 + 2) / 2 = 2; |x - 2| sorted 0 0 0 1 1 98: median 0.5 */
    const double x[] = {2, 100, 1, 2, 3, 2};
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, 6, &s), 0);
    assert_true(s.median == 2);
    assert_true(s.mad == 0.5);
    /* p25 at index 1.25 of 1 2 2 2 3 100 -> 2; p75 at 3.75 -> 2.75 */
    assert_true(s.pct[3] == 2 && s.pct[5] == 2.75);
}

static void tukey_fences(void **state)
{
    (void)state;
    /* 10..29 with -30, -20, 45, 60 added: 24 values. Sorted, p25 is at index
     * 5.75 (13 and 14: 13.75) and p75 at 17.25 (25 and 26: 25.25), IQR
     * 11.5. Fences: mild below -3.5 or above 42.5, severe below -20.75 or
     * above 59.75. So -30 is low severe, -20 low mild, 45 high mild, 60
     * high severe. */
    double x[24];
    size_t n = 0;
    for (int v = 10; v <= 29; v++)
        x[n++] = v;
    x[n++] = 60;
    x[n++] = -20;
    x[n++] = 45;
    x[n++] = -30;
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, n, &s), 0);
    assert_true(s.pct[3] == 13.75 && s.pct[5] == 25.25 && s.iqr == 11.5);
    assert_int_equal(s.outliers.low_severe, 1);
    assert_int_equal(s.outliers.low_mild, 1);
    assert_int_equal(s.outliers.high_mild, 1);
    assert_int_equal(s.outliers.high_severe, 1);

    /* With more than half the values equal the IQR is 0 and every other
     * value is beyond 3 IQR. */
    const double y[] = {5, 5, 5, 5, 5, 5, 6, 4};
    assert_int_equal(vn_stats_compute(y, 8, &s), 0);
    assert_int_equal(s.outliers.high_severe, 1);
    assert_int_equal(s.outliers.low_severe, 1);
    assert_int_equal(s.outliers.high_mild + s.outliers.low_mild, 0);
}

/* Exact binomial coverage of [x(k), x(n+1-k)] from Pascal's triangle in
 * doubles (exact up to n = 56): an implementation independent of the one
 * under test. */
static double pascal_coverage(size_t n, size_t k)
{
    double row[64] = {1};
    for (size_t i = 1; i <= n; i++)
        for (size_t j = i; j > 0; j--)
            row[j] += row[j - 1];
    double in = 0;
    for (size_t j = k; j + k <= n; j++)
        in += row[j];
    return ldexp(in, -(int)n);
}

static void median_ci_ranks(void **state)
{
    (void)state;
    /* Derived by hand from Binomial(n, 1/2): n, lo, hi (0-based), and the
     * coverage's numerator over 2^n. For n <= 8 only [min, max] comes close;
     * n = 9: [x(2), x(8)] covers 1 - 2(1+9)/512 = 492/512; n = 12:
     * [x(3), x(10)] covers 1 - 2(1+12+66)/4096 = 3938/4096 while [x(4),
     * x(9)] covers only 1 - 2(1+12+66+220)/4096 = 0.854. */
    static const struct {
        size_t n, lo, hi;
        double num;
    } want[] = {{2, 0, 1, 2},      {3, 0, 2, 6},      {4, 0, 3, 14},    {5, 0, 4, 30},
                {6, 0, 5, 62},     {7, 0, 6, 126},    {8, 0, 7, 254},   {9, 1, 7, 492},
                {10, 1, 8, 1002},  {11, 1, 9, 2024},  {12, 2, 9, 3938}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        size_t lo = 99, hi = 99;
        double cov = -1;
        vn_median_ci_ranks(want[i].n, &lo, &hi, &cov);
        assert_int_equal(lo, want[i].lo);
        assert_int_equal(hi, want[i].hi);
        assert_true(cov == ldexp(want[i].num, -(int)want[i].n));
    }
    size_t lo = 9, hi = 9;
    double cov = 9;
    vn_median_ci_ranks(1, &lo, &hi, &cov);
    assert_true(lo == 0 && hi == 0 && cov == 0);
    vn_median_ci_ranks(0, NULL, NULL, NULL); /* NULLs are allowed */

    /* From n = 6 on: symmetric, at least 95%, and the next narrower pair
     * falls short. */
    for (size_t n = 6; n <= 56; n++) {
        vn_median_ci_ranks(n, &lo, &hi, &cov);
        size_t k = lo + 1;
        assert_int_equal(hi, n - k);
        double c = pascal_coverage(n, k);
        assert_true(c >= 0.95);
        NEAR(cov, c, 1e-15);
        if (k + 1 <= n - k - 1)
            assert_true(pascal_coverage(n, k + 1) < 0.95);
    }
    /* Large n: the interval is about n/2 -+ 0.98 sqrt(n), by the normal
     * approximation, with coverage just above 95%. */
    vn_median_ci_ranks(1000000, &lo, &hi, &cov);
    assert_true(lo > 500000 - 1000 && lo < 500000 - 960);
    assert_int_equal(hi, 1000000 - 1 - lo);
    assert_true(cov >= 0.95 && cov < 0.9502);
}

static void t_quantiles(void **state)
{
    (void)state;
    /* df 1 and 2 have closed forms: tan(pi (p - 1/2)) and
     * (2p - 1) / sqrt(2 p (1 - p)). The others are the printed table values
     * (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.2) to their 12+ digits. */
    REL(vn_t975(1), tan(M_PI * 0.475), 1e-12);
    REL(vn_t975(2), 0.95 / sqrt(2 * 0.975 * 0.025), 1e-12);
    NEAR(vn_t975(5), 2.570581835636314, 1e-9);
    NEAR(vn_t975(30), 2.042272456301238, 1e-9);
    NEAR(vn_t975(1000), 1.962339080826408, 1e-9);
    NEAR(vn_t975(1e9), 1.959963986912325, 1e-9);
    NEAR(vn_t975(INFINITY), 1.959963984540054, 1e-12);
    /* Across the switch from the exact computation to the series (at 1000
     * degrees of freedom) as well: scipy's stats.t.ppf(0.975, df), to
     * within a few ulps. */
    static const double scipy[][2] = {
        {3, 3.1824463052837078},   {10, 2.228138851986274},  {100, 1.9839715185235518},
        {200, 1.9718962236339088}, {999, 1.9623414611334493}, {5000, 1.9604385517065073},
    };
    for (size_t i = 0; i < sizeof scipy / sizeof scipy[0]; i++)
        REL(vn_t975(scipy[i][0]), scipy[i][1], 1e-13);
    assert_true(isnan(vn_t975(0.5)));
    assert_true(isnan(vn_t975(NAN)));
    /* Monotone: more degrees of freedom, a narrower interval. */
    double prev = INFINITY;
    for (double df = 1; df < 5000; df *= 1.37) {
        double t = vn_t975(df);
        assert_true(t < prev);
        prev = t;
    }
}

static void drift_by_hand(void **state)
{
    (void)state;
    vn_stats s;
    const double up[] = {1, 2, 3, 4, 5, 6};
    assert_int_equal(vn_stats_compute(up, 6, &s), 0);
    assert_true(s.drift == 1 && s.drift_p == 0);
    const double down[] = {6, 5, 4, 3, 2, 1};
    assert_int_equal(vn_stats_compute(down, 6, &s), 0);
    assert_true(s.drift == -1 && s.drift_p == 0);
    /* Ranks 1 3 2 4 against positions 1 2 3 4: sum d^2 = 2, rho = 1 -
     * 6*2/(4*15) = 0.8. With n - 2 = 2 degrees of freedom the two-sided
     * p-value of the t statistic is exactly 1 - |rho|. */
    const double a[] = {1, 3, 2, 4};
    assert_int_equal(vn_stats_compute(a, 4, &s), 0);
    REL(s.drift, 0.8, 1e-14);
    REL(s.drift_p, 0.2, 1e-12);
    /* Ties share their average rank: 1 2.5 2.5 4 against 1 2 3 4 gives
     * covariance 4.5 over sqrt(4.5 * 5): rho = sqrt(0.9). */
    const double t[] = {1, 2, 2, 3};
    assert_int_equal(vn_stats_compute(t, 4, &s), 0);
    REL(s.drift, sqrt(0.9), 1e-14);
    REL(s.drift_p, 1 - sqrt(0.9), 1e-11);
}

static void rejects_bad_input(void **state)
{
    (void)state;
    vn_stats s, before;
    memset(&s, 0xA5, sizeof s);
    before = s;
    const double nan_in[] = {1, NAN, 3};
    const double inf_in[] = {1, 2, -INFINITY};
    const double wide[] = {-1e308, 1e308};
    assert_int_equal(vn_stats_compute(nan_in, 3, &s), VN_EINVAL);
    assert_int_equal(vn_stats_compute(inf_in, 3, &s), VN_EINVAL);
    assert_int_equal(vn_stats_compute(nan_in, 0, &s), VN_EINVAL);
    assert_int_equal(vn_stats_compute(NULL, 3, &s), VN_EINVAL);
    assert_int_equal(vn_stats_compute(nan_in, 1, NULL), VN_EINVAL);
    assert_int_equal(vn_stats_compute(wide, 2, &s), VN_ERANGE);
    /* A spread that fits, but a mean's interval that reaches past the
     * largest double. */
    const double high[] = {1e308, 1.7e308, 1.7e308};
    assert_int_equal(vn_stats_compute(high, 3, &s), VN_ERANGE);
    assert_memory_equal(&s, &before, sizeof s); /* untouched on failure */
    vn_histogram h = {0};
    assert_int_equal(vn_histogram_compute(nan_in, 3, 0, &h), VN_EINVAL);
    assert_int_equal(vn_histogram_compute(inf_in, 3, 0, &h), VN_EINVAL);
    assert_int_equal(vn_histogram_compute(nan_in, 0, 0, &h), VN_EINVAL);
    assert_int_equal(vn_histogram_compute(wide, 2, 0, &h), VN_ERANGE);
    assert_null(h.counts);
    vn_histogram_free(NULL);
}

static void caller_array_untouched(void **state)
{
    (void)state;
    double x[257], copy[257];
    uint64_t r = 12345;
    for (size_t i = 0; i < 257; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (double)(r >> 40) / 1000.0;
    }
    memcpy(copy, x, sizeof x);
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, 257, &s), 0);
    assert_memory_equal(x, copy, sizeof x);
    vn_histogram h = {0};
    assert_int_equal(vn_histogram_compute(x, 257, 0, &h), 0);
    assert_memory_equal(x, copy, sizeof x);
    vn_histogram_free(&h);
    vn_buf b;
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_histogram_text(x, 257, "ns", 0, &b), 0);
    assert_memory_equal(x, copy, sizeof x);
    vn_buf_free(&b);
}

static void large_offset_small_spread(void **state)
{
    (void)state;
    /* 1e12 + 1..4: mean 1e12 + 2.5, variance 5/3, both exact in doubles.
     * Summing squares of 1e12-sized values would leave no digit of it. */
    const double x[] = {1e12 + 1, 1e12 + 2, 1e12 + 3, 1e12 + 4};
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, 4, &s), 0);
    assert_true(s.mean == 1e12 + 2.5);
    REL(s.stddev, sqrt(5.0 / 3), 1e-12);

    /* 1e12, 1e12 + u, 1e12 + u with u one ulp (2^-13): the mean 1e12 + 2u/3
     * rounds to 1e12 + u, and the squares around that rounded mean sum to
     * u^2 instead of 2u^2/3. The corrected two-pass formula subtracts
     * (sum of deviations)^2 / n = u^2/3 and gets the variance u^2/3. */
    const double u = ldexp(1, -13);
    const double z[] = {1e12, 1e12 + u, 1e12 + u};
    assert_int_equal(vn_stats_compute(z, 3, &s), 0);
    REL(s.stddev, u / sqrt(3.0), 1e-12);

    /* A million values 1e12 + (i mod 7)/8. The offsets are small and exact,
     * so their own mean and variance (from a two-pass sum over them) are
     * the reference. */
    size_t n = 1000000;
    double *y = malloc(n * sizeof *y);
    assert_non_null(y);
    double so = 0, ss = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = 1e12 + (double)(i % 7) / 8;
        so += (double)(i % 7) / 8;
    }
    double mo = so / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += ((double)(i % 7) / 8 - mo) * ((double)(i % 7) / 8 - mo);
    assert_int_equal(vn_stats_compute(y, n, &s), 0);
    NEAR(s.mean, 1e12 + mo, 1.3e-4); /* within one ulp of 1e12 */
    REL(s.stddev, sqrt(ss / (double)(n - 1)), 1e-9);
    assert_true(s.median == 1e12 + 0.375); /* offsets 0..6 equally often: 3/8 */
    assert_true(s.min == 1e12 && s.max == 1e12 + 0.75);
    /* Far beyond 1e308 / n, the mean still does not overflow. */
    for (size_t i = 0; i < n; i++)
        y[i] = 1.5e308 + (double)(i % 2) * 1e307;
    assert_int_equal(vn_stats_compute(y, n, &s), 0);
    REL(s.mean, 1.55e308, 1e-12);
    REL(s.stddev, 0.5e307 * sqrt((double)n / (double)(n - 1)), 1e-9);
    free(y);
}

static void modality_scores(void **state)
{
    (void)state;
    /* 27 distinct values give k = ceil(0.8 * 27^(1/3)) = 3 bins over
     * [0, 3]: 13 in the first, 1 in the middle, 13 in the last. The
     * travel 13 + 12 + 12 + 13 over the highest bin 13 is 50/13. */
    double x[27];
    size_t n = 0;
    for (int i = 0; i < 13; i++)
        x[n++] = i / 13.0;
    x[n++] = 1.5;
    for (int i = 0; i < 13; i++)
        x[n++] = 3 - i / 13.0;
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, n, &s), 0);
    REL(s.modality, 50.0 / 13, 1e-15);
    /* The same three bins holding 5, 17, 5: one hump, 2. */
    n = 0;
    for (int i = 0; i < 5; i++)
        x[n++] = i / 5.0;
    for (int i = 0; i < 17; i++)
        x[n++] = 1 + i / 17.0;
    for (int i = 0; i < 5; i++)
        x[n++] = 3 - i / 5.0;
    assert_int_equal(vn_stats_compute(x, n, &s), 0);
    assert_true(s.modality == 2);
    /* Ten values: two bins cannot show a dip. */
    assert_int_equal(vn_stats_compute(x, 10, &s), 0);
    assert_true(isnan(s.modality));

    /* Integers 10..14 held 100, 200, 400, 200, 100 times: one mode. Bins
     * of half a unit would alternate between full and empty and score far
     * above 2; lattice-aligned bins give exactly 2. */
    double *y = malloc(1000 * sizeof *y);
    assert_non_null(y);
    const int reps[] = {100, 200, 400, 200, 100};
    n = 0;
    for (int v = 0; v < 5; v++)
        for (int r = 0; r < reps[v]; r++)
            y[n++] = 10 + v;
    assert_int_equal(vn_stats_compute(y, n, &s), 0);
    assert_true(s.modality == 2);
    /* Two equal clusters far apart: travel up, down, up, down. */
    for (size_t i = 0; i < 1000; i++)
        y[i] = (i % 2 ? 1000.0 : 0.0) + (double)(i % 50) / 10;
    assert_int_equal(vn_stats_compute(y, 1000, &s), 0);
    assert_true(s.modality >= 3.9);
    free(y);
}

/* The half-sample mode by hand: each step keeps the shortest run of
 * ceil(len/2) sorted values. */
static void half_sample_mode(void **state)
{
    (void)state;
    assert_true(isnan(vn_half_sample_mode(NULL, 0)));
    const double one[] = {4};
    assert_true(vn_half_sample_mode(one, 1) == 4);
    const double two[] = {1, 3};
    assert_true(vn_half_sample_mode(two, 2) == 2);
    /* Three: the middle one with the nearer neighbour, or alone at equal
     * distances. */
    const double near_low[] = {1, 2, 5}, near_high[] = {1, 4, 5}, even[] = {1, 3, 5};
    assert_true(vn_half_sample_mode(near_low, 3) == 1.5);
    assert_true(vn_half_sample_mode(near_high, 3) == 4.5);
    assert_true(vn_half_sample_mode(even, 3) == 3);
    /* 10 values: runs of 5, the shortest is {4, 5, 6, 7, 8} (width 4);
     * then runs of 3, all of width 2, and the first is kept, {4, 5, 6},
     * whose gaps are equal: 5. */
    const double ten[] = {1, 4, 5, 6, 7, 8, 12, 15, 18, 20};
    assert_true(vn_half_sample_mode(ten, 10) == 5);
    /* A peak of a quarter of the values beats a broad spread of the rest,
     * which a median would follow. */
    double x[40];
    for (int i = 0; i < 10; i++)
        x[i] = 100 + 0.01 * i;
    for (int i = 10; i < 40; i++)
        x[i] = 101 + 0.5 * (i - 10);
    double mode = vn_half_sample_mode(x, 40);
    assert_true(mode >= 100 && mode <= 100.1);
    assert_true(vn_percentile_sorted(x, 40, 50) > 104);
}

static void histogram_bins(void **state)
{
    (void)state;
    /* 0..99: IQR 74.25 - 24.75 = 49.5, Freedman-Diaconis width 2 * 49.5 /
     * 100^(1/3) = 21.3, so ceil(99 / 21.3) = 5 bins of 19.8: 20 values each. */
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = 99 - i;
    vn_histogram h = {0};
    assert_int_equal(vn_histogram_compute(x, 100, 0, &h), 0);
    assert_int_equal(h.nbins, 5);
    assert_true(h.lo == 0);
    REL(h.width, 19.8, 1e-15);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(h.counts[i], 20);
    assert_int_equal(h.n, 100);
    vn_histogram_free(&h);
    assert_null(h.counts);

    /* Values on the edges 0 1 2 3 4 of 4 bins: each edge opens its bin, the
     * maximum closes the last: 1 1 1 2. */
    const double e[] = {4, 3, 2, 1, 0};
    assert_int_equal(vn_histogram_compute(e, 5, 4, &h), 0);
    assert_int_equal(h.nbins, 4);
    assert_int_equal(h.counts[0], 1);
    assert_int_equal(h.counts[1], 1);
    assert_int_equal(h.counts[2], 1);
    assert_int_equal(h.counts[3], 2);
    vn_histogram_free(&h);

    /* The edges are lo + i * step as numpy computes them: edge 3 of 10 over
     * [0, 1] is 3 * 0.1 = 0.30000000000000004, so 0.3 is below it and in
     * bin 2 (its index (0.3 - 0) / 0.1 is 2.9999999999999996, below 3). */
    const double p3[] = {0, 0.3, 1};
    assert_int_equal(vn_histogram_compute(p3, 3, 10, &h), 0);
    assert_int_equal(h.counts[2], 1);
    assert_int_equal(h.counts[3], 0);
    vn_histogram_free(&h);
    /* Here the index rounds up to exactly 6.0, yet the value lies below
     * edge 6 (7 / 21 * 6 = 2.0): it belongs to bin 5, where numpy puts it. */
    const double p6[] = {0, 1.9999999999999998, 7};
    assert_int_equal(vn_histogram_compute(p6, 3, 21, &h), 0);
    assert_int_equal(h.counts[5], 1);
    assert_int_equal(h.counts[6], 0);
    vn_histogram_free(&h);

    /* And the other way: edge 1 of 3 over [1, 2] is 1 + 1/3, but
     * (edge - 1) * 3 rounds to just below 1; the value is still in bin 1. */
    const double e3[] = {1, 1.0 + 1.0 * ((2.0 - 1.0) / 3), 2};
    assert_int_equal(vn_histogram_compute(e3, 3, 3, &h), 0);
    assert_true(h.counts[0] == 1 && h.counts[1] == 1 && h.counts[2] == 1);
    vn_histogram_free(&h);

    /* IQR 0 (ten 1s and a 2): Sturges, ceil(log2(11) + 1) = 5 bins. */
    double t[11];
    for (int i = 0; i < 10; i++)
        t[i] = 1;
    t[10] = 2;
    assert_int_equal(vn_histogram_compute(t, 11, 0, &h), 0);
    assert_int_equal(h.nbins, 5);
    assert_int_equal(h.counts[0], 10);
    assert_int_equal(h.counts[4], 1);
    vn_histogram_free(&h);

    /* Many bins asked for, random values: every value counted once, the
     * maximum in the last bin, nothing past the range. */
    double *r = malloc(100000 * sizeof *r);
    assert_non_null(r);
    uint64_t z = 1;
    double mx = -1;
    for (size_t i = 0; i < 100000; i++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        r[i] = ldexp((double)(z >> 11), -53) * 3.7 - 1;
        mx = fmax(mx, r[i]);
    }
    for (size_t nb = 1; nb <= 200; nb += 37) {
        assert_int_equal(vn_histogram_compute(r, 100000, nb, &h), 0);
        uint64_t sum = 0;
        for (size_t i = 0; i < h.nbins; i++)
            sum += h.counts[i];
        assert_int_equal(sum, 100000);
        assert_true(h.counts[h.nbins - 1] > 0);
        vn_histogram_free(&h);
    }
    assert_int_equal(vn_histogram_compute(r, 100000, 0, &h), 0);
    assert_true(h.nbins >= 1 && h.nbins <= 200);
    NEAR(h.lo + (double)h.nbins * h.width, mx, 1e-12);
    vn_histogram_free(&h);
    free(r);
}

static void histogram_fenced(void **state)
{
    (void)state;
    /* 0..99 and two far outliers: quartiles 24.25 and 74.75, IQR 50.5,
     * outer fences -127.25 and 226.25. The bins span 0..99 as for those
     * values alone (5 bins of 19.8); -1000 and 1e9 are counted below and
     * above. */
    double x[102];
    for (int i = 0; i < 100; i++)
        x[i] = i;
    x[100] = 1e9;
    x[101] = -1000;
    vn_histogram h = {0};
    assert_int_equal(vn_histogram_compute_fenced(x, 102, 0, &h), 0);
    assert_true(h.lo == 0);
    assert_int_equal(h.nbins, 5);
    REL(h.width, 19.8, 1e-15);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(h.counts[i], 20);
    assert_int_equal(h.below, 1);
    assert_int_equal(h.above, 1);
    assert_int_equal(h.n, 102);
    double cdf[5];
    vn_histogram_cdf(&h, cdf);
    REL(cdf[0], 21.0 / 102, 1e-15);
    REL(cdf[4], 101.0 / 102, 1e-15);
    vn_histogram_free(&h);

    /* The plain histogram gives the outliers the axis: everything else in
     * one bin. */
    assert_int_equal(vn_histogram_compute(x, 102, 0, &h), 0);
    assert_true(h.below == 0 && h.above == 0);
    assert_true(h.counts[0] >= 100);
    vn_histogram_free(&h);

    /* A value on an outer fence is not beyond it. 0..19 with -26: quartiles
     * 4 and 14, so the lower fence is 4 - 3 x 10 = -26; 0..19 with 45:
     * quartiles 5 and 15, the upper fence 15 + 30 = 45. */
    double f[21];
    for (int i = 0; i < 20; i++)
        f[i] = i;
    f[20] = -26;
    assert_int_equal(vn_histogram_compute_fenced(f, 21, 0, &h), 0);
    assert_true(h.below == 0 && h.lo == -26);
    vn_histogram_free(&h);
    f[20] = 45;
    assert_int_equal(vn_histogram_compute_fenced(f, 21, 0, &h), 0);
    assert_true(h.above == 0);
    REL(h.lo + (double)h.nbins * h.width, 45.0, 1e-15);
    vn_histogram_free(&h);

    /* IQR 0: nothing is set apart. */
    const double t[] = {1, 1, 1, 1, 1, 1, 50};
    assert_int_equal(vn_histogram_compute_fenced(t, 7, 0, &h), 0);
    assert_true(h.below == 0 && h.above == 0 && h.lo == 1);
    REL(h.lo + (double)h.nbins * h.width, 50.0, 1e-15);
    vn_histogram_free(&h);

    const double bad[] = {1, NAN};
    assert_int_equal(vn_histogram_compute_fenced(bad, 2, 0, &h), VN_EINVAL);
    assert_int_equal(vn_histogram_compute_fenced(t, 0, 0, &h), VN_EINVAL);
}

static void formats_for_columns(void **state)
{
    (void)state;
    char s[64];
    /* The unit follows like; the decimals show the step. */
    assert_string_equal(vn__fmt_ns_as(s, sizeof s, 1000400, 1000400, 400), "1.0004 ms");
    assert_string_equal(vn__fmt_ns_as(s, sizeof s, 900, 1500, 100), "0.90 us");
    assert_string_equal(vn__fmt_ns_as(s, sizeof s, 24, 24, 0), "24.0 ns");
    assert_string_equal(vn__fmt_ns_as(s, sizeof s, NAN, 1, 1), "-");
    /* Past a million seconds, exponent notation rather than 300 digits. */
    assert_string_equal(vn__fmt_ns_as(s, sizeof s, 2e40, 2e40, 1e39), "2e+31 s");
    assert_string_equal(vn__fmt_ns_as(s, sizeof s, 2e14, 2e14, 1e13), "200000 s");
    assert_string_equal(vn__fmt_num_as(s, sizeof s, 1e12 + 0.25, 1e12, 0.01), "1000000000000.25");
    assert_string_equal(vn__fmt_num_as(s, sizeof s, 3, 3, 0), "3.00");
    assert_string_equal(vn__fmt_num_as(s, sizeof s, 123456, 123456, 1000), "123456");
    assert_string_equal(vn__fmt_num_as(s, sizeof s, 2e20, 2e20, 1), "2e+20");
}

/* Number of times needle occurs in hay. */
static size_t count(const char *hay, const char *needle)
{
    size_t k = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        k++;
    return k;
}

/* The histogram's row whose label starts with mark ('<' below the lower
 * fence, '>' above the upper one), or NULL; *values is the count its text
 * gives after the axis. */
static const char *tail_row(const char *text, char mark, size_t *values)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *label = p + strspn(p, " ");
        const char *axis = strstr(p, "\xe2\x94\x82");
        if (*label == mark && axis && axis < p + strcspn(p, "\n")) {
            *values = (size_t)strtoul(axis + 3, NULL, 10);
            return p;
        }
    }
    return NULL;
}

static void reports(void **state)
{
    (void)state;
    vn_buf b;
    vn_buf_init(&b, 0);
    vn_stats s;
    const double two[] = {1, 3};
    assert_int_equal(vn_stats_compute(two, 2, &s), 0);
    assert_int_equal(vn_report_stats_json(&s, NULL, NULL, &b), 0);
    assert_non_null(strstr(b.data, "\"schema\": \"vernier.stats/1\""));
    assert_non_null(strstr(b.data, "\"unit\": null"));
    assert_non_null(strstr(b.data, "\"median_ci_level\": 0.5"));
    assert_non_null(strstr(b.data, "\"modality\": null")); /* NaN is null */
    assert_non_null(strstr(b.data, "\"drift\": null"));
    assert_non_null(strstr(b.data, "\"histogram\": null"));
    assert_non_null(strstr(b.data, "\"25\": 1.5"));
    vn_buf_reset(&b);
    assert_int_equal(vn_report_stats_text(&s, "cycles", 0, &b), 0);
    assert_non_null(strstr(b.data, "2.00 cycles"));
    assert_null(strchr(b.data, '\033')); /* no color unless asked */
    assert_int_equal(vn_report_stats_text(NULL, NULL, 0, &b), VN_EINVAL);

    /* 200 values 100..299 and one at 1e6, far beyond the upper fence: the
     * graph spans 100..299 and the outlier gets its own row. */
    double x[201];
    for (int i = 0; i < 200; i++)
        x[i] = 100 + i;
    x[200] = 1e6;
    vn_buf_reset(&b);
    assert_int_equal(vn_report_histogram_text(x, 201, NULL, 0, &b), 0);
    assert_non_null(strstr(b.data, "count=201"));
    assert_non_null(strstr(b.data, "min=100"));
    /* The outlier's row: one value, the largest given. */
    size_t values = 0;
    const char *above = tail_row(b.data, '>', &values);
    assert_non_null(above);
    assert_int_equal(values, 1);
    assert_non_null(strstr(above, "1000000"));
    assert_true(strstr(above, "1000000") < above + strcspn(above, "\n"));
    assert_null(tail_row(b.data, '<', &values)); /* nothing below the lower fence */
    size_t rows = count(b.data, "\xe2\x94\x82"); /* the axis: header, rows, tail */
    assert_true(rows >= 1 + 8 + 1 && rows <= 1 + 24 + 1);
    /* The cumulative bar of the last row reaches 200/201 of 48 columns. */
    assert_int_equal(count(b.data, "\xe2\x96\x91") + count(b.data, "\xe2\x96\x92") > 0, 1);
    vn_buf_reset(&b);
    assert_int_equal(vn_report_histogram_text(x, 201, "ns", VN_REPORT_COLOR, &b), 0);
    assert_non_null(strchr(b.data, '\033'));
    assert_non_null(strstr(b.data, "max=1.00ms"));
    assert_int_equal(vn_report_histogram_text(x, 0, NULL, 0, &b), VN_EINVAL);
    vn_buf_free(&b);
}

/* The line through points spread over decades, as the loop suite's are:
 * 25 ns fixed and 0.3 ns a step, from 10^2 to 10^9 steps. The sums about
 * the means keep every digit the textbook sums would lose. */
static void fit_line_over_decades(void **state)
{
    (void)state;
    double x[8], y[8], w[8];
    for (int i = 0; i < 8; i++) {
        x[i] = pow(10, i + 2);
        y[i] = 25 + 0.3 * x[i];
        w[i] = 1 / (y[i] * y[i]);
    }
    double a, b, r2;
    assert_int_equal(vn_fit_line(x, y, NULL, 8, &a, &b, &r2), 0);
    assert_true(fabs(b - 0.3) < 1e-12);
    assert_true(fabs(r2 - 1) < 1e-12);
    /* Unweighted, the intercept is lost in the largest points' rounding;
     * weighted by 1/y^2 it is found. */
    assert_int_equal(vn_fit_line(x, y, w, 8, &a, &b, &r2), 0);
    assert_true(fabs(a - 25) < 1e-6);
    assert_true(fabs(b - 0.3) < 1e-12);
    /* Noise lowers r2; a point pulls the line its way. */
    y[3] *= 1.5;
    assert_int_equal(vn_fit_line(x, y, w, 8, &a, &b, &r2), 0);
    assert_true(r2 < 1 && r2 > 0.9);
    /* Too few points, all x equal, a NaN, a negative weight: refused. */
    assert_int_equal(vn_fit_line(x, y, NULL, 1, &a, &b, &r2), VN_EINVAL);
    double same[3] = {2, 2, 2}, ys[3] = {1, 2, 3}, nanw[3] = {1, -1, 1};
    assert_int_equal(vn_fit_line(same, ys, NULL, 3, &a, &b, NULL), VN_EINVAL);
    assert_int_equal(vn_fit_line(ys, ys, nanw, 3, &a, &b, NULL), VN_EINVAL);
    ys[1] = NAN;
    assert_int_equal(vn_fit_line(same, ys, NULL, 3, &a, &b, NULL), VN_EINVAL);
    /* Exact through three points, without a weight. */
    double x3[3] = {1, 2, 3}, y3[3] = {5, 7, 9};
    assert_int_equal(vn_fit_line(x3, y3, NULL, 3, &a, &b, &r2), 0);
    assert_true(fabs(a - 3) < 1e-12 && fabs(b - 2) < 1e-12 && fabs(r2 - 1) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_line_over_decades),
        cmocka_unit_test(one_value),
        cmocka_unit_test(two_values),
        cmocka_unit_test(constant_values),
        cmocka_unit_test(percentiles_of_one_to_ten),
        cmocka_unit_test(ties_and_mad),
        cmocka_unit_test(tukey_fences),
        cmocka_unit_test(median_ci_ranks),
        cmocka_unit_test(t_quantiles),
        cmocka_unit_test(drift_by_hand),
        cmocka_unit_test(rejects_bad_input),
        cmocka_unit_test(caller_array_untouched),
        cmocka_unit_test(large_offset_small_spread),
        cmocka_unit_test(modality_scores),
        cmocka_unit_test(half_sample_mode),
        cmocka_unit_test(histogram_bins),
        cmocka_unit_test(histogram_fenced),
        cmocka_unit_test(formats_for_columns),
        cmocka_unit_test(reports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
