/* vn_modes_sorted on generated samples: mixtures of normals whose modes are
 * plain (each holding a quarter or more of the values, 6 or more standard
 * deviations apart) must be found where they were planted, and single
 * normal and lognormal samples must not alarm. The samples come from a
 * generator seeded here, so every run tests the same values. Shares stay
 * fractions after small clusters are merged. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "main/all.h"

#include "seeded.h"

static double normal(double mu, double sd)
{
    return mu + sd * sqrt(-2 * log(unif())) * cos(6.283185307179586 * unif());
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static vn_modes modes_of(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp);
    vn_modes m;
    assert_int_equal(vn_modes_sorted(x, n, &m), 0);
    return m;
}

/* The case vernier stats once read as one mode: 300 values around 100 and
 * 100 around 130, each with a standard deviation of 4. */
static void two_unequal_modes(void **state)
{
    (void)state;
    seed = 1;
    double x[400];
    for (size_t i = 0; i < 400; i++)
        x[i] = i < 300 ? normal(100, 4) : normal(130, 4);
    vn_modes m = modes_of(x, 400);
    assert_int_equal(m.count, 2);
    assert_true(fabs(m.at[0] - 100) < 3 && fabs(m.at[1] - 130) < 4);
    assert_true(fabs(m.share[0] - 0.75) < 0.03 && fabs(m.share[1] - 0.25) < 0.03);
    assert_true(m.p < 0.05);
    assert_true(m.h_crit > 4); /* one mode needs a kernel wider than either hump */
    /* vn_stats_compute carries the same answer. */
    vn_stats s;
    assert_int_equal(vn_stats_compute(x, 400, &s), 0);
    assert_int_equal(s.modes.count, 2);
    assert_true(s.modes.at[0] == m.at[0] && s.modes.p == m.p);
}

static void equal_and_minor_modes(void **state)
{
    (void)state;
    double *x = malloc(1000 * sizeof *x);
    assert_non_null(x);
    /* 50/50 and 90/10, 30% apart with a 4% spread each, 200 and 1000 values. */
    const struct {
        double share;
        size_t n;
    } cases[] = {{0.5, 200}, {0.9, 1000}};
    for (size_t c = 0; c < 2; c++) {
        seed = 10 + c;
        for (size_t i = 0; i < cases[c].n; i++)
            x[i] = unif() < cases[c].share ? normal(100, 4) : normal(130, 5.2);
        vn_modes m = modes_of(x, cases[c].n);
        assert_int_equal(m.count, 2);
        assert_true(fabs(m.at[0] - 100) < 3 && fabs(m.at[1] - 130) < 5);
        assert_true(fabs(m.share[0] - cases[c].share) < 0.06);
    }
    /* Three modes, 200 values each. */
    seed = 20;
    for (size_t i = 0; i < 600; i++)
        x[i] = normal(100 + 30 * (double)(i % 3), 3);
    vn_modes m = modes_of(x, 600);
    assert_int_equal(m.count, 3);
    for (size_t j = 0; j < 3; j++)
        assert_true(fabs(m.at[j] - (100 + 30 * (double)j)) < 3);
    /* Integer values (whole nanoseconds) of the first case: the lattice
     * must not hide the modes, nor make a comb of them. */
    seed = 1;
    for (size_t i = 0; i < 400; i++)
        x[i] = nearbyint(i < 300 ? normal(100, 4) : normal(130, 4));
    m = modes_of(x, 400);
    assert_int_equal(m.count, 2);
    assert_true(fabs(m.at[0] - 100) < 3 && fabs(m.at[1] - 130) < 4);
    free(x);
}

/* Single normals and lognormals of several sizes and shapes: one mode,
 * near the true one. The test's false alarm rate is a few percent, so a
 * handful of fixed samples is expected to pass, and does. */
static void one_mode_does_not_alarm(void **state)
{
    (void)state;
    double *x = malloc(2000 * sizeof *x);
    assert_non_null(x);
    const size_t sizes[] = {50, 200, 2000};
    for (size_t k = 0; k < 3; k++) {
        seed = 100 + k;
        for (size_t i = 0; i < sizes[k]; i++)
            x[i] = normal(100, 4);
        vn_modes m = modes_of(x, sizes[k]);
        assert_int_equal(m.count, 1);
        assert_true(fabs(m.at[0] - 100) < 4 && m.share[0] == 1 && m.p >= 0.05);
    }
    const double sigmas[] = {0.1, 0.25, 0.5};
    for (size_t k = 0; k < 3; k++) {
        seed = 200 + k;
        for (size_t i = 0; i < 1000; i++)
            x[i] = 100 * exp(normal(0, sigmas[k]));
        vn_modes m = modes_of(x, 1000);
        assert_int_equal(m.count, 1);
        /* The lognormal's mode is 100 exp(-sigma^2). */
        double mode = 100 * exp(-sigmas[k] * sigmas[k]);
        assert_true(fabs(m.at[0] - mode) < 0.3 * mode);
    }
    /* Integers 10..14 held 100, 200, 400, 200, 100 times: one mode at 12. */
    const int reps[] = {100, 200, 400, 200, 100};
    size_t n = 0;
    for (int v = 0; v < 5; v++)
        for (int r = 0; r < reps[v]; r++)
            x[n++] = 10 + v;
    vn_modes m = modes_of(x, n);
    assert_int_equal(m.count, 1);
    assert_true(fabs(m.at[0] - 12) < 0.5);
    free(x);
}

/* Far outliers are left out, and a cluster of 3% is not a mode. */
static void outliers_and_small_clusters(void **state)
{
    (void)state;
    double x[1000];
    seed = 300;
    for (size_t i = 0; i < 500; i++)
        x[i] = i < 497 ? normal(100, 4) : 1e5 * (double)(i - 496);
    vn_modes m = modes_of(x, 500);
    assert_int_equal(m.count, 1);
    assert_true(fabs(m.at[0] - 100) < 3);
    seed = 301;
    for (size_t i = 0; i < 1000; i++)
        x[i] = i < 970 ? normal(100, 3) : normal(150, 3);
    m = modes_of(x, 1000);
    assert_int_equal(m.count, 1);
    /* At 15% the same cluster is a mode. */
    for (size_t i = 0; i < 1000; i++)
        x[i] = i < 850 ? normal(100, 3) : normal(150, 3);
    m = modes_of(x, 1000);
    assert_int_equal(m.count, 2);
}

static void edges_and_errors(void **state)
{
    (void)state;
    double x[40];
    for (size_t i = 0; i < 40; i++)
        x[i] = 7;
    vn_modes m;
    assert_int_equal(vn_modes_sorted(x, 40, &m), 0);
    assert_true(m.count == 1 && m.at[0] == 7 && m.share[0] == 1 && m.p == 1);
    /* Fewer than 10 values: not tested. */
    const double few[] = {1, 2, 3, 10, 11, 12, 20, 21, 22};
    assert_int_equal(vn_modes_sorted(few, 9, &m), 0);
    assert_true(m.count == 0 && isnan(m.p) && isnan(m.h_crit));
    /* The same values give the same answer: the bootstrap's seed is fixed. */
    seed = 400;
    for (size_t i = 0; i < 40; i++)
        x[i] = normal(i % 2 ? 10 : 13, 1);
    qsort(x, 40, sizeof *x, cmp);
    vn_modes a, b;
    assert_int_equal(vn_modes_sorted(x, 40, &a), 0);
    assert_int_equal(vn_modes_sorted(x, 40, &b), 0);
    assert_memory_equal(&a, &b, sizeof a);
    /* Bad input leaves *out untouched. */
    memset(&m, 0xab, sizeof m);
    vn_modes before = m;
    assert_int_equal(vn_modes_sorted(NULL, 3, &m), VN_EINVAL);
    assert_int_equal(vn_modes_sorted(x, 0, &m), VN_EINVAL);
    assert_int_equal(vn_modes_sorted(x, 3, NULL), VN_EINVAL);
    x[5] = NAN;
    assert_int_equal(vn_modes_sorted(x, 40, &m), VN_EINVAL);
    x[5] = INFINITY;
    assert_int_equal(vn_modes_sorted(x, 40, &m), VN_EINVAL);
    assert_memory_equal(&m, &before, sizeof m);
    /* Huge values: the test works on the values mapped onto [0, 1]. */
    seed = 1;
    for (size_t i = 0; i < 40; i++)
        x[i] = 1e300 * (i < 20 ? normal(1, 0.01) : normal(1.3, 0.01));
    m = modes_of(x, 40);
    assert_int_equal(m.count, 2);
    assert_true(fabs(m.at[1] / 1.3e300 - 1) < 0.02);
}

/* Shares are fractions: after small clusters are merged into their
 * neighbours none may pass 1 by a rounding bit (a schema bounds them), and
 * together they make the whole. Heavy tails with stray values give many
 * small clusters to merge. */
static void shares_are_fractions(void **state)
{
    (void)state;
    static double x[3000];
    for (unsigned s = 1; s <= 60; s++) {
        seed = s;
        size_t n = 500 + 250 * (s % 11);
        for (size_t i = 0; i < n; i++) {
            double u = unif();
            x[i] = u < 0.9 ? 9000 * exp(0.05 * normal(0, 1)) : u < 0.99 ? normal(11000, 900)
                                                                       : 20000 + 300000 * unif();
        }
        vn_modes m = modes_of(x, n);
        double sum = 0;
        for (size_t k = 0; k < m.count; k++) {
            assert_true(m.share[k] >= 0 && m.share[k] <= 1);
            sum += m.share[k];
        }
        assert_true(m.count >= 1 && fabs(sum - 1) < 1e-9);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_unequal_modes),
        cmocka_unit_test(equal_and_minor_modes),
        cmocka_unit_test(one_mode_does_not_alarm),
        cmocka_unit_test(outliers_and_small_clusters),
        cmocka_unit_test(edges_and_errors),
        cmocka_unit_test(shares_are_fractions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
