/* The ratio of two medians with its bootstrap interval, and the complexity
 * fit of a sweep: checked against the exact bootstrap distribution,
 * enumerated on small data, and on generated data whose answer is known
 * (a scale factor, a form of growth). The data come from a generator
 * seeded here, so every run tests the same values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/internal.h"
#include "main/all.h"

#include "seeded.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *x, size_t n)
{
    double s[16];
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The share of the exact distribution d[0..n) (sorted) below v, and at or
 * below it. */
static void cdf_at(const double *d, size_t n, double v, double *below, double *upto)
{
    size_t lt = 0, le = 0;
    for (size_t i = 0; i < n; i++) {
        lt += d[i] < v;
        le += d[i] <= v;
    }
    *below = (double)lt / (double)n;
    *upto = (double)le / (double)n;
}

/* An end of a percentile interval is a quantile of the exact bootstrap
 * distribution: at most share of it lies below, at least share at or
 * below, within what 20000 resamples can tell. */
static void assert_quantile(const double *d, size_t n, double v, double share)
{
    double below, upto;
    cdf_at(d, n, v, &below, &upto);
    assert_true(below <= share + 0.006);
    assert_true(upto >= share - 0.006);
}

#define N6 6
#define ALL6 46656 /* 6^6 resamples of 6 values */

/* Resample number t of all ALL6: the pairs of a and b at the indices
 * whose base-6 digits t is, into ra and rb. */
static void resample(size_t t, const double *a, const double *b, double *ra, double *rb)
{
    for (size_t i = 0; i < N6; i++, t /= N6) {
        ra[i] = a[t % N6];
        rb[i] = b[t % N6];
    }
}

/* Every resample of 6 pairs, enumerated: the exact bootstrap distribution
 * of the ratio that the seeded resamples estimate. */
static void paired_matches_the_exact_bootstrap(void **state)
{
    (void)state;
    const double a[N6] = {10, 12, 11, 15, 10.5, 13};
    const double b[N6] = {6, 7.5, 6.2, 8, 6.1, 9};
    double *d = malloc(ALL6 * sizeof *d);
    assert_non_null(d);
    for (size_t t = 0; t < ALL6; t++) {
        double ra[N6], rb[N6];
        resample(t, a, b, ra, rb);
        d[t] = median(rb, N6) / median(ra, N6);
    }
    qsort(d, ALL6, sizeof *d, cmp);
    vn_ratio r;
    assert_int_equal(vn__ratio_boot(a, N6, b, N6, 1, 20000, 1, &r), 0);
    assert_true(r.paired && r.n == N6);
    assert_true(fabs(r.ratio - median(b, N6) / median(a, N6)) < 1e-12);
    assert_quantile(d, ALL6, r.ci[0], 0.025);
    assert_quantile(d, ALL6, r.ci[1], 0.975);
    free(d);
}

/* Unpaired, the two medians are resampled on their own: the exact
 * distribution of the ratio is that of each median, combined. */
static void unpaired_matches_the_exact_bootstrap(void **state)
{
    (void)state;
    const double a[N6] = {10, 12, 11, 15, 10.5, 13};
    const double b[N6] = {6, 7.5, 6.2, 8, 6.1, 9};
    double *ma = malloc(ALL6 * sizeof *ma), *mb = malloc(ALL6 * sizeof *mb);
    assert_true(ma && mb);
    for (size_t t = 0; t < ALL6; t++) {
        double ra[N6], rb[N6];
        resample(t, a, b, ra, rb);
        ma[t] = median(ra, N6);
        mb[t] = median(rb, N6);
    }
    /* The ratio's distribution on a grid of both medians' own: each
     * median takes few values, so count them, then combine the counts. */
    qsort(ma, ALL6, sizeof *ma, cmp);
    qsort(mb, ALL6, sizeof *mb, cmp);
    double va[64], vb[64], ca[64] = {0}, cb[64] = {0};
    size_t na = 0, nb = 0;
    for (size_t t = 0; t < ALL6; t++) {
        if (!na || ma[t] != va[na - 1])
            va[na++] = ma[t];
        ca[na - 1]++;
        if (!nb || mb[t] != vb[nb - 1])
            vb[nb++] = mb[t];
        cb[nb - 1]++;
    }
    assert_true(na < 64 && nb < 64);
    vn_ratio r;
    assert_int_equal(vn__ratio_boot(a, N6, b, N6, 0, 20000, 3, &r), 0);
    assert_false(r.paired);
    for (int end = 0; end < 2; end++) {
        double below = 0, upto = 0;
        for (size_t i = 0; i < na; i++)
            for (size_t k = 0; k < nb; k++) {
                double v = vb[k] / va[i], w = ca[i] * cb[k] / ((double)ALL6 * ALL6);
                below += v < r.ci[end] ? w : 0;
                upto += v <= r.ci[end] ? w : 0;
            }
        double share = end ? 0.975 : 0.025;
        assert_true(below <= share + 0.006);
        assert_true(upto >= share - 0.006);
    }
    free(ma);
    free(mb);
}

/* Times that a common factor moves from one round to the next (the
 * machine's speed) and a little noise of their own: the row is 0.57 times
 * the baseline. Paired, the factor cancels and the interval is narrow
 * around 0.57; unpaired, it stays in both medians and the interval is wider,
 * but covers 0.57 too. */
static void a_known_scale_factor_is_recovered(void **state)
{
    (void)state;
    enum { n = 200 };
    double a[n], b[n];
    seed = 42;
    for (size_t k = 0; k < n; k++) {
        double machine = 1 + 0.5 * unif();
        a[k] = 100 * machine * (1 + 0.002 * (unif() - 0.5));
        b[k] = 57 * machine * (1 + 0.002 * (unif() - 0.5));
    }
    vn_ratio p, u;
    assert_int_equal(vn_ratio_paired(a, b, n, &p), 0);
    assert_int_equal(vn_ratio_unpaired(a, n, b, n, &u), 0);
    assert_true(p.ci[0] <= 0.57 && 0.57 <= p.ci[1]);
    assert_true(p.ci[1] - p.ci[0] < 0.57 * 0.01);
    assert_true(u.ci[0] <= 0.57 && 0.57 <= u.ci[1]);
    assert_true(u.ci[1] - u.ci[0] > 5 * (p.ci[1] - p.ci[0]));
    assert_true(p.ci[0] <= p.ratio && p.ratio <= p.ci[1]);

    /* Exactly proportional: every resample has the same ratio. */
    for (size_t k = 0; k < n; k++)
        b[k] = 1.74 * a[k];
    assert_int_equal(vn_ratio_paired(a, b, n, &p), 0);
    assert_true(fabs(p.ratio - 1.74) < 1e-12);
    assert_true(fabs(p.ci[0] - 1.74) < 1e-12 && fabs(p.ci[1] - 1.74) < 1e-12);
}

/* The same input gives the same interval, every time. */
static void deterministic(void **state)
{
    (void)state;
    enum { n = 50 };
    double a[n], b[n];
    seed = 7;
    for (size_t k = 0; k < n; k++) {
        a[k] = 10 + unif();
        b[k] = 10 + unif();
    }
    vn_ratio r1, r2, u1, u2;
    assert_int_equal(vn_ratio_paired(a, b, n, &r1), 0);
    assert_int_equal(vn_ratio_paired(a, b, n, &r2), 0);
    assert_int_equal(vn_ratio_unpaired(a, n, b, n - 3, &u1), 0);
    assert_int_equal(vn_ratio_unpaired(a, n, b, n - 3, &u2), 0);
    /* Field by field: the struct's padding is nobody's. */
    assert_true(r1.ratio == r2.ratio && r1.ci[0] == r2.ci[0] && r1.ci[1] == r2.ci[1]);
    assert_true(u1.ratio == u2.ratio && u1.ci[0] == u2.ci[0] && u1.ci[1] == u2.ci[1]);
    assert_int_equal(u1.n, n - 3);
    /* Two samples of one distribution: the interval holds 1. */
    assert_true(r1.ci[0] < 1 && 1 < r1.ci[1]);
}

static void edges_and_errors(void **state)
{
    (void)state;
    double a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {2, 4, 6, 8, 10, 12, 14, 16};
    vn_ratio r = {0};
    assert_int_equal(vn_ratio_paired(NULL, b, 8, &r), VN_EINVAL);
    assert_int_equal(vn_ratio_paired(a, b, 0, &r), VN_EINVAL);
    assert_int_equal(vn_ratio_unpaired(a, 8, b, 0, &r), VN_EINVAL);
    double nan[8];
    memcpy(nan, a, sizeof nan);
    nan[3] = NAN;
    assert_int_equal(vn_ratio_paired(nan, b, 8, &r), VN_EINVAL);
    /* A median of 0 or less: no ratio of times. */
    double zero[3] = {-1, 0, 1};
    assert_int_equal(vn_ratio_paired(zero, b, 3, &r), VN_ERANGE);
    assert_int_equal(vn_ratio_unpaired(b, 3, zero, 3, &r), VN_ERANGE);
    /* Too few pairs for an interval: the ratio, and no interval. */
    assert_int_equal(vn_ratio_paired(a, b, 5, &r), 0);
    assert_true(fabs(r.ratio - 2) < 1e-12 && r.n == 5);
    assert_true(isnan(r.ci[0]) && isnan(r.ci[1]));
    /* Even counts take the mean of the two middle values. */
    assert_int_equal(vn_ratio_unpaired(a, 8, b, 6, &r), 0);
    assert_true(fabs(r.ratio - 7 / 4.5) < 1e-12);
}

/* ---- the complexity fit ---- */

static double f_of(vn_bigo b, double n)
{
    switch (b) {
    case VN_BIGO_1: return 1;
    case VN_BIGO_LOGN: return log2(n);
    case VN_BIGO_N: return n;
    case VN_BIGO_NLOGN: return n * log2(n);
    case VN_BIGO_N2: return n * n;
    default: return n * n * n;
    }
}

/* Each form is found from exact times, with its coefficient; and from
 * times with 5% noise of their own, still the same form. */
static void each_form_is_found(void **state)
{
    (void)state;
    double n[11], t[11];
    for (size_t i = 0; i < 11; i++)
        n[i] = 8 << i; /* 8 .. 8192 */
    for (int b = 0; b < VN_BIGO_COUNT; b++) {
        vn_bigo_fit f;
        for (size_t i = 0; i < 11; i++)
            t[i] = 3.2 * f_of((vn_bigo)b, n[i]);
        assert_int_equal(vn_fit_bigo(n, t, 11, &f), 0);
        assert_int_equal(f.best, b);
        assert_true(fabs(f.coef[b] / 3.2 - 1) < 1e-9);
        assert_true(f.rms[b] < 1e-9);
        assert_true(f.next != f.best && f.rms[f.next] > 0.05);
        seed = 11 + (uint64_t)b;
        for (size_t i = 0; i < 11; i++)
            t[i] = 3.2 * f_of((vn_bigo)b, n[i]) * (1 + 0.1 * (unif() - 0.5));
        assert_int_equal(vn_fit_bigo(n, t, 11, &f), 0);
        assert_int_equal(f.best, b);
        assert_true(fabs(f.coef[b] / 3.2 - 1) < 0.05);
        assert_true(f.rms[b] < 0.05);
    }
    assert_string_equal(vn_bigo_name(VN_BIGO_NLOGN), "n log n");
    assert_string_equal(vn_bigo_name(VN_BIGO_N3), "n^3");
    assert_string_equal(vn_bigo_name(VN_BIGO_COUNT), "?");
}

/* Google Benchmark's numbers by hand: t = n fits O(n) exactly; t = 1, 2,
 * 4, 8 at n = 1..4 is none of the forms, and the RMS says how far. */
static void numbers_by_hand_and_a_curve_that_fits_none(void **state)
{
    (void)state;
    const double n[4] = {1, 2, 3, 4}, t[4] = {1, 2, 3, 4};
    vn_bigo_fit f;
    assert_int_equal(vn_fit_bigo(n, t, 4, &f), 0);
    assert_int_equal(f.best, VN_BIGO_N);
    assert_true(fabs(f.coef[VN_BIGO_N] - 1) < 1e-12);
    /* O(1): the mean, 2.5, and the RMS of -1.5 -0.5 0.5 1.5 over it. */
    assert_true(fabs(f.coef[VN_BIGO_1] - 2.5) < 1e-12);
    assert_true(fabs(f.rms[VN_BIGO_1] - sqrt(5.0 / 4) / 2.5) < 1e-12);

    /* A step, as a working set leaving a cache: flat, then ten times
     * slower, flat again. No form follows it. */
    double m[12], s[12];
    for (size_t i = 0; i < 12; i++) {
        m[i] = 16 << i;
        s[i] = i < 6 ? 1 : 10;
    }
    assert_int_equal(vn_fit_bigo(m, s, 12, &f), 0);
    assert_true(f.rms[f.best] > 0.2);

    /* n of 1 only: log n is 0 there, and that form cannot be fitted. */
    const double ones[3] = {1, 1, 1}, three[3] = {3, 3, 3};
    assert_int_equal(vn_fit_bigo(ones, three, 3, &f), 0);
    assert_int_equal(f.best, VN_BIGO_1);
    assert_true(isinf(f.rms[VN_BIGO_LOGN]));

    const double zero_n[2] = {0, 1}, neg_t[2] = {-1, -1};
    assert_int_equal(vn_fit_bigo(zero_n, t, 2, &f), VN_EINVAL);
    assert_int_equal(vn_fit_bigo(n, neg_t, 2, &f), VN_EINVAL);
    assert_int_equal(vn_fit_bigo(n, t, 1, &f), VN_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paired_matches_the_exact_bootstrap),
        cmocka_unit_test(unpaired_matches_the_exact_bootstrap),
        cmocka_unit_test(a_known_scale_factor_is_recovered),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(edges_and_errors),
        cmocka_unit_test(each_form_is_found),
        cmocka_unit_test(numbers_by_hand_and_a_curve_that_fits_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
