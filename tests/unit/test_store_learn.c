/* What the store's earlier results say of the next run (vn__store_between,
 * vn__store_widen): the variation between runs beyond each run's own
 * error, measured on series drawn with known parts, and kept apart from a
 * change of the code. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/internal.h"
#include "store/changes.h"
#include "store/store.h"
#include "main/all.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double normal(vn_rng *r)
{
    double u = 1 - vn_rng_double(r), v = vn_rng_double(r);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Results whose level moves between runs by tau (relative) and whose own
 * estimate errs by se (relative): how far one headline falls from the
 * next is both, tau^2 + se^2. What is learned is a bound on that distance
 * (the interval for the next run, 1.96 x sqrt(2 var)), which the next
 * result falls within about 95% of the time, so var reads a little over
 * tau^2 + se^2 (the bound's own spread, as a t quantile over a z one);
 * a step of the level in the last result, too recent to be a change
 * point, hardly counts. */
static void what_moves_a_headline_from_run_to_run(void **state)
{
    (void)state;
    vn_rng g;
    vn_rng_seed(&g, 11);
    const double taus[] = {0, 0.01, 0.03}, se = 0.01;
    for (size_t t = 0; t < 3; t++) {
        double sum = 0;
        const int reps = 2000;
        int used = 0, held = 0;
        for (int r = 0; r < reps; r++) {
            double x[31], e[31];
            for (int i = 0; i < 31; i++) {
                x[i] = 100 * exp(taus[t] * normal(&g) + se * normal(&g));
                e[i] = se * x[i];
            }
            double var;
            size_t m;
            /* A change point found in noise (p <= 0.001, by chance) may
             * leave too few results after it: rarely. */
            int rc = vn__store_between(x, e, 30, 5, 30, &var, &m);
            assert_true(rc == 0 || rc == VN_ENOENT);
            if (rc == 0) {
                sum += var;
                used++;
                held += fabs(log(x[30] / x[29])) <= 1.959963984540054 * sqrt(2 * var);
            }
        }
        assert_true(used >= reps - 20);
        double mean = sum / used;
        double want = taus[t] * taus[t] + se * se;
        print_message("tau %.0f%%: sd found %.4f, sqrt(tau^2 + se^2) %.4f, next held %.3f\n",
                      100 * taus[t], sqrt(mean), sqrt(want), (double)held / used);
        assert_true(mean >= 0.9 * want && mean <= 1.4 * want);
        /* (the linear percentile's rank, 1 + 0.95 x 28 of 29, held it
         * about 92% of the time) */
        assert_true(fabs((double)held / used - 0.95) <= 0.02);
        /* The same with its last result 10% slower. */
        double x[30];
        for (int i = 0; i < 30; i++)
            x[i] = 100 * exp(taus[t] * normal(&g) + se * normal(&g)) * (i == 29 ? 1.1 : 1);
        double var;
        size_t m;
        assert_int_equal(vn__store_between(x, NULL, 30, 5, 30, &var, &m), 0);
        assert_true(sqrt(var) < 3 * sqrt(want));
    }
}

/* Runs that mostly agree (1% apart) but of which one in ten met a state
 * that made the whole run 40% slower: the next run lands that far from
 * this one about one time in five, and the interval for it says so; the
 * median of the distances would not have seen the jumps. */
static void rare_jumps_of_whole_runs_are_seen(void **state)
{
    (void)state;
    vn_rng g;
    vn_rng_seed(&g, 9);
    double x[30];
    for (int i = 0; i < 30; i++)
        x[i] = 100 * exp(0.01 * normal(&g)) * (i % 10 == 4 ? 1.4 : 1);
    double var;
    size_t m;
    assert_int_equal(vn__store_between(x, NULL, 30, 5, 30, &var, &m), 0);
    double half = 1.959963984540054 * sqrt(2 * var);
    print_message("half-width for the next run: %.3f (a jump: %.3f)\n", half, log(1.4));
    assert_true(half > 0.8 * log(1.4));
    /* Their median alone: about 1.96 x 1.4%. */
    double d[29];
    for (int i = 1; i < 30; i++)
        d[i - 1] = fabs(log(x[i]) - log(x[i - 1]));
    qsort(d, 29, sizeof *d, by_value);
    assert_true(1.959963984540054 * d[14] / 0.6744897501960817 < 0.1);
}

/* The percentile that bounds the next distance: rank p (n + 1) of n. Of
 * 1..19 the 95th is the largest (rank 19), the 50th the 10th, the 5th the
 * smallest; of 1..29, rank 28.5. Over series of 20 normal results the
 * next run's distance from the last falls under it 95% of the time, where
 * the linear percentile's rank 1 + 0.95 x 18 = 18.1 holds it about 90.5%. */
static void the_percentile_bounds_the_next_distance(void **state)
{
    (void)state;
    double s[29];
    for (int i = 0; i < 29; i++)
        s[i] = i + 1;
    assert_float_equal(vn__percentile_next_sorted(s, 19, 95), 19, 0);
    assert_float_equal(vn__percentile_next_sorted(s, 19, 50), 10, 1e-12);
    assert_float_equal(vn__percentile_next_sorted(s, 19, 5), 1, 0);
    assert_float_equal(vn__percentile_next_sorted(s, 19, 0), 1, 0);
    assert_float_equal(vn__percentile_next_sorted(s, 29, 95), 28.5, 1e-12);
    assert_float_equal(vn__percentile_next_sorted(s, 1, 95), 1, 0);
    assert_true(isnan(vn__percentile_next_sorted(s, 0, 95)));
    assert_true(isnan(vn__percentile_next_sorted(s, 19, 101)));
    vn_rng g;
    vn_rng_seed(&g, 21);
    const int reps = 20000;
    int held = 0, held_linear = 0;
    for (int r = 0; r < reps; r++) {
        double x[21], d[19];
        for (int i = 0; i < 21; i++)
            x[i] = normal(&g);
        for (int i = 1; i < 20; i++)
            d[i - 1] = fabs(x[i] - x[i - 1]);
        qsort(d, 19, sizeof *d, by_value);
        double next = fabs(x[20] - x[19]);
        held += next <= vn__percentile_next_sorted(d, 19, 95);
        held_linear += next <= vn_percentile_sorted(d, 19, 95);
    }
    print_message("next distance held: %.3f (linear rank %.3f)\n", (double)held / reps,
                  (double)held_linear / reps);
    assert_true(fabs((double)held / reps - 0.95) < 0.01);
    assert_true(fabs((double)held_linear / reps - 0.905) < 0.01);
}

/* A series whose code got 10% slower at its 20th result: the variation
 * between runs comes from the results after the change, so the step is
 * not taken for drift. */
static void a_change_of_the_code_is_not_drift(void **state)
{
    (void)state;
    vn_rng g;
    vn_rng_seed(&g, 5);
    double x[40];
    for (int i = 0; i < 40; i++)
        x[i] = 100 * (i >= 20 ? 1.1 : 1.0) * (1 + 0.005 * normal(&g));
    double var;
    size_t m;
    assert_int_equal(vn__store_between(x, NULL, 40, 5, 30, &var, &m), 0);
    assert_int_equal(m, 20);
    assert_true(sqrt(var) < 0.01);
    /* Too few after it: nothing learned. */
    assert_int_equal(vn__store_between(x, NULL, 23, 5, 30, &var, &m), VN_ENOENT);
    assert_float_equal(var, 0, 0);
}

/* A new result's interval after a series of results spread 3% between
 * runs: widened to about t(m - 1) x 3% beside its own; not at all after
 * fewer than the least asked, nor from results older than max_age. */
static void a_new_interval_widens_by_what_the_series_saw(void **state)
{
    (void)state;
    vn_rng g;
    vn_rng_seed(&g, 3);
    vn__store_point p[20];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 20; i++) {
        p[i].time = 1000 + 60 * i;
        p[i].ns = p[i].value = 100 * exp(0.03 * normal(&g));
        p[i].cycles = 300 * exp(0.001 * normal(&g)); /* the clock moved, the cycles did not */
        p[i].lo = p[i].hi = p[i].value; /* no error of their own */
        p[i].nunits = 10;
    }
    double lo = 99, hi = 101;
    size_t m = vn__store_widen(p, 20, 3000, 100, &lo, &hi, 5, 30, 0, 0);
    assert_int_equal(m, 20);
    double half = (hi - lo) / 2;
    print_message("half-width with history: %.2f (own 1.00)\n", half);
    assert_true(half > 3 && half < 12);
    assert_float_equal(lo + hi, 200, 1e-9);
    /* In cycles (a series compared in them): they kept within 0.1%, so
     * the next run within about 1.96 x sqrt(2) x 0.1% of 300 (0.83); in
     * ns the same results moved 3%. */
    lo = 299.9, hi = 300.1;
    assert_int_equal(vn__store_widen(p, 20, 3000, 300, &lo, &hi, 5, 30, 0, 1), 20);
    print_message("in cycles: %.2f\n", (hi - lo) / 2);
    assert_true((hi - lo) / 2 > 0.3 && (hi - lo) / 2 < 1.5);
    lo = 299.9, hi = 300.1;
    assert_int_equal(vn__store_widen(p, 20, 3000, 300, &lo, &hi, 5, 30, 0, 0), 20);
    assert_true((hi - lo) / 2 > 9);
    /* Runs that step 3% apart every time: the next run lies one step
     * away. From 20 results the interval for it is the 95th percentile of
     * the steps, ln(1.03) = 2.96%; under 20, 1.96 x sqrt(2) x the standard
     * deviation of one run as normal steps would give it, median |d| /
     * (0.6745 sqrt 2), that is 1.96 x ln(1.03) / 0.6745 = 8.59%. */
    for (int i = 0; i < 20; i++)
        p[i].ns = p[i].value = i % 2 ? 103 : 100;
    lo = 99, hi = 101;
    assert_int_equal(vn__store_widen(p, 20, 3000, 100, &lo, &hi, 5, 30, 0, 0), 20);
    assert_float_equal((hi - lo) / 2, 100 * log(1.03), 1e-9);
    lo = 99, hi = 101;
    assert_int_equal(vn__store_widen(p, 19, 3000, 100, &lo, &hi, 5, 30, 0, 0), 19);
    assert_float_equal((hi - lo) / 2, 100 * 1.959963984540054 * log(1.03) / 0.6744897501960817, 1e-9);
    /* An own interval wider than that stays as it is. */
    lo = 80, hi = 120;
    vn__store_widen(p, 20, 3000, 100, &lo, &hi, 5, 30, 0, 0);
    assert_float_equal(lo, 80, 1e-12);
    assert_float_equal(hi, 120, 1e-12);
    lo = 99, hi = 101;
    assert_int_equal(vn__store_widen(p, 4, 3000, 100, &lo, &hi, 5, 30, 0, 0), 0);
    assert_float_equal(lo, 99, 0);
    /* All but the last 3 are older than an hour before 5000 s. */
    assert_int_equal(vn__store_widen(p, 20, 1000 + 60 * 19 + 100, 100, &lo, &hi, 5, 30, 150, 0), 0);
}

/* E-Divisive on ranks: a 10% step in 2% noise found where it is, with
 * its ratio; none in the same noise without it. */
static void a_step_is_found_and_noise_is_not(void **state)
{
    (void)state;
    vn_rng g;
    vn_rng_seed(&g, 9);
    double x[40], y[40];
    for (int i = 0; i < 40; i++) {
        y[i] = 100 * (1 + 0.02 * normal(&g));
        x[i] = y[i] * (i >= 25 ? 1.1 : 1);
    }
    vn__store_changes c;
    assert_int_equal(vn__store_changes_find(x, 40, 0.001, 9999, 2, 1, &c), 0);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.at[0].index, 25);
    assert_true(c.at[0].lo < 1.1 && 1.1 < c.at[0].hi);
    assert_true(c.at[0].p <= 0.001);
    vn__store_changes_free(&c);
    assert_int_equal(vn__store_changes_find(y, 40, 0.001, 9999, 2, 1, &c), 0);
    assert_int_equal(c.n, 0);
    /* Fewer than two segments' worth, or a value not above 0. */
    assert_int_equal(vn__store_changes_find(x, 3, 0.001, 99, 2, 1, &c), 0);
    assert_int_equal(c.n, 0);
    x[3] = 0;
    assert_int_equal(vn__store_changes_find(x, 40, 0.001, 99, 2, 1, &c), VN_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(what_moves_a_headline_from_run_to_run),
        cmocka_unit_test(a_change_of_the_code_is_not_drift),
        cmocka_unit_test(rare_jumps_of_whole_runs_are_seen),
        cmocka_unit_test(the_percentile_bounds_the_next_distance),
        cmocka_unit_test(a_new_interval_widens_by_what_the_series_saw),
        cmocka_unit_test(a_step_is_found_and_noise_is_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
