/* The integer statistics the kernel module prints (src/stats/int.c) against
 * the library's floating-point ones, on fixed and random data: each
 * percentile and the MAD must be the floating-point value rounded to the
 * nearest integer, so the module and vernier kbench never disagree by more
 * than the rounding. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/int.h"
#include "main/all.h"

/* Rounding to the nearest integer: at most half a unit away. A tie may go
 * either way in floating point, whose rank p/100 x (n - 1) is not exact. */
static void near_half(vn__u64 got, double want)
{
    if (fabs((double)got - want) > 0.5 + 1e-9 * fabs(want))
        fail_msg("integer %llu, floating point %.6f", (unsigned long long)got, want);
}

/* Sorts a copy with vn__isort, summarizes it both ways and compares. */
static void check_against_float(const vn__u64 *x, size_t n)
{
    vn__u64 *sorted = malloc(n * sizeof *sorted), *scratch = malloc(2 * n * sizeof *scratch);
    double *d = malloc(n * sizeof *d);
    assert_non_null(sorted);
    assert_non_null(scratch);
    assert_non_null(d);
    memcpy(sorted, x, n * sizeof *x);
    vn__isort(sorted, n, scratch);
    for (size_t i = 0; i < n; i++) {
        d[i] = (double)x[i];
        if (i)
            assert_true(sorted[i - 1] <= sorted[i]);
    }
    vn__istats is;
    assert_int_equal(vn__istats_sorted(sorted, n, scratch, &is), 0);
    vn_stats fs;
    assert_int_equal(vn_stats_compute(d, n, &fs), 0);
    assert_true((double)is.min == fs.min && (double)is.max == fs.max);
    assert_int_equal(is.count, n);
    /* vn_stats_pct: 1 5 10 25 50 75 90 95 99 */
    near_half(is.p50, fs.pct[4]);
    near_half(is.p90, fs.pct[6]);
    near_half(is.p95, fs.pct[7]);
    near_half(is.p99, fs.pct[8]);
    near_half(is.mad, fs.mad);
    for (unsigned p = 0; p <= 100; p++) {
        double want;
        for (size_t i = 0; i < n; i++)
            d[i] = (double)sorted[i];
        want = vn_percentile_sorted(d, n, p);
        near_half(vn__ipercentile_sorted(sorted, n, p), want);
    }
    assert_true(is.min <= is.p50 && is.p50 <= is.p90 && is.p90 <= is.p95 &&
                is.p95 <= is.p99 && is.p99 <= is.max);
    free(sorted);
    free(scratch);
    free(d);
}

static void fixed_data(void **state)
{
    (void)state;
    const vn__u64 one[] = {42};
    const vn__u64 two[] = {10, 11};             /* median 10.5, MAD 0.5 */
    const vn__u64 ten[] = {9, 1, 8, 2, 7, 3, 6, 4, 5, 10};
    const vn__u64 spike[] = {30, 30, 31, 30, 29, 30, 4000, 30, 31, 30, 30};
    check_against_float(one, 1);
    check_against_float(two, 2);
    check_against_float(ten, 10);
    check_against_float(spike, 11);

    /* By hand: 1..10 has p50 5.5 (rounds up to 6), p90 9.1, p99 9.91,
     * and |x - 5.5| is 0.5 .. 4.5, whose median 2.5 rounds up to 3. */
    vn__u64 s[10], scratch[20];
    memcpy(s, ten, sizeof s);
    vn__isort(s, 10, scratch);
    vn__istats is;
    assert_int_equal(vn__istats_sorted(s, 10, scratch, &is), 0);
    assert_int_equal(is.p50, 6);
    assert_int_equal(is.p90, 9);
    assert_int_equal(is.p99, 10);
    assert_int_equal(is.mad, 3);
    assert_int_equal(vn__istats_sorted(s, 0, scratch, &is), -1);
}

static void large_values_do_not_overflow(void **state)
{
    (void)state;
    /* The gap between neighbours times the fraction of the rank would
     * overflow 64 bits if it were formed directly. */
    const vn__u64 x[] = {1, UINT64_C(1) << 62};
    assert_true(vn__ipercentile_sorted(x, 2, 50) == (UINT64_C(1) << 61) + 1);
    assert_true(vn__ipercentile_sorted(x, 2, 100) == UINT64_C(1) << 62);
    assert_true(vn__ipercentile_sorted(x, 2, 0) == 1);
}

static void random_data(void **state)
{
    (void)state;
    vn_rng r;
    vn_rng_seed(&r, 12345);
    static vn__u64 x[5000];
    for (int round = 0; round < 60; round++) {
        size_t n = 1 + vn_rng_below(&r, round < 30 ? 40 : 5000);
        /* Cycle counts: a floor, a spread, and now and then a long one. */
        for (size_t i = 0; i < n; i++) {
            x[i] = 20 + vn_rng_below(&r, 1 + (uint64_t)round * 7);
            if (vn_rng_below(&r, 50) == 0)
                x[i] += vn_rng_below(&r, 100000);
        }
        check_against_float(x, n);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    vn__u64 x = *(const vn__u64 *)a, y = *(const vn__u64 *)b;
    return (x > y) - (x < y);
}

/* The radix sort against the C library's sort: values of every width (one
 * byte to all 64 bits, so every number of passes), many ties, and n = 0
 * and 1. */
static void radix_sort_agrees_with_qsort(void **state)
{
    (void)state;
    enum { N = 5000 };
    static vn__u64 x[N], y[N], tmp[N];
    uint64_t r = 88172645463325252u;
    for (unsigned bits = 0; bits <= 64; bits += 4) {
        for (size_t i = 0; i < N; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            x[i] = bits == 64 ? r : bits == 0 ? 0 : r & ((UINT64_C(1) << bits) - 1);
            if (i % 7 == 3)
                x[i] = x[i / 2]; /* ties */
        }
        size_t n = bits == 8 ? 1 : bits == 12 ? 0 : N;
        memcpy(y, x, n * sizeof *x);
        vn__isort(x, n, tmp);
        qsort(y, n, sizeof *y, cmp_u64);
        assert_memory_equal(x, y, n * sizeof *x);
    }
}

static void formats(void **state)
{
    (void)state;
    vn__istats s = {.min = 1, .max = 400, .count = 3, .p50 = 2, .p90 = 3, .p95 = 4,
                    .p99 = 5, .mad = 0};
    char buf[128];
    int len = vn__istats_format(&s, buf, sizeof buf);
    assert_string_equal(buf, "min 1 max 400 count 3 p50 2 p90 3 p95 4 p99 5 mad 0\n");
    assert_int_equal(len, (int)strlen(buf));
    assert_int_equal(vn__istats_format(&s, buf, 20), -1);

    char line[32];
    assert_int_equal(vn__iformat_line(1234, 8, line, sizeof line), 9);
    assert_memory_equal(line, "    1234\n", 9);
    assert_int_equal(vn__iformat_line(UINT64_MAX, 20, line, sizeof line), 21);
    assert_memory_equal(line, "18446744073709551615\n", 21);
    assert_int_equal(vn__iformat_line(1234, 8, line, 8), -1);

    /* Four bins of width 3 from 10: 10-12 holds 3, 13-15 none, 16-18 one,
     * 19-21 two; the fullest bin has the full bar of 40. */
    const vn__u64 v[] = {10, 11, 12, 17, 19, 20};
    char h[512];
    assert_true(vn__ihist_format(v, 6, 4, h, sizeof h) > 0);
    assert_string_equal(h, "10 12 3 ########################################\n"
                           "13 15 0\n"
                           "16 18 1 ##############\n"
                           "19 21 2 ###########################\n");
    assert_int_equal(vn__ihist_format(v, 6, 4, h, 30), -1);
    assert_int_equal(vn__ihist_format(v, 0, 4, h, sizeof h), -1);
}

/* x[0..count) from steps[i % n], sorted. */
static void fill(vn__u64 *x, const vn__u64 *steps, size_t n, size_t count)
{
    vn__u64 tmp[400];
    for (size_t i = 0; i < count; i++)
        x[i] = steps[i % n];
    vn__isort(x, count, tmp);
}

static void a_counter_that_moves_in_units_shows_them(void **state)
{
    (void)state;
    vn__u64 x[400], unit = 0;
    /* A counter moved 26 ticks at a time: counts of 26, 52, 78 and one
     * across an interrupt, 4888. */
    const vn__u64 coarse[] = {26, 52, 26, 26, 78, 52, 4888, 26};
    fill(x, coarse, 8, 100);
    assert_int_equal(vn__iunit_sorted(x, 100, &unit), 0);
    assert_int_equal(unit, 26);
    /* A few a tick short, as under emulation (2 of 400): still 26. Many
     * (1 in 8): no unit. */
    fill(x, coarse, 8, 400);
    x[10] = 25;
    x[300] = 77;
    vn__u64 tmp[400];
    vn__isort(x, 400, tmp);
    assert_int_equal(vn__iunit_sorted(x, 400, &unit), 0);
    assert_int_equal(unit, 26);
    const vn__u64 off[] = {26, 52, 26, 26, 78, 52, 4888, 25};
    fill(x, off, 8, 400);
    assert_int_equal(vn__iunit_sorted(x, 400, &unit), -1);
    /* Off the grid in many sizes, each under 1% of the counts but 2% of
     * them together: no unit; 3 of 400 are allowed. */
    fill(x, coarse, 8, 400);
    for (size_t i = 0; i < 8; i++)
        x[50 * i] = 1001 + 26 * i;
    vn__isort(x, 400, tmp);
    assert_int_equal(vn__iunit_sorted(x, 400, &unit), -1);
    fill(x, coarse, 8, 400);
    for (size_t i = 0; i < 3; i++)
        x[50 * i] = 1001 + 26 * i;
    vn__isort(x, 400, tmp);
    assert_int_equal(vn__iunit_sorted(x, 400, &unit), 0);
    assert_int_equal(unit, 26);
    /* A fine one read every 25 or 26 ticks: no unit over 1. */
    const vn__u64 fine[] = {26, 26, 52, 4888, 25};
    fill(x, fine, 5, 100);
    assert_int_equal(vn__iunit_sorted(x, 100, &unit), -1);
    /* Counts of many sizes, none 1% of them: nothing to go on. */
    for (size_t i = 0; i < 400; i++)
        x[i] = 26 * (i + 1);
    assert_int_equal(vn__iunit_sorted(x, 400, &unit), -1);
    /* One count repeated, or two sizes: a loop as regular as the reads,
     * not a unit; and too few counts to tell. */
    const vn__u64 one[] = {40}, two[] = {40, 80};
    fill(x, one, 1, 100);
    assert_int_equal(vn__iunit_sorted(x, 100, &unit), -1);
    fill(x, two, 2, 100);
    assert_int_equal(vn__iunit_sorted(x, 100, &unit), -1);
    fill(x, coarse, 8, 63);
    assert_int_equal(vn__iunit_sorted(x, 63, &unit), -1);
    fill(x, coarse, 8, 64);
    assert_int_equal(vn__iunit_sorted(x, 64, &unit), 0);
    assert_int_equal(unit, 26);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_data),
        cmocka_unit_test(large_values_do_not_overflow),
        cmocka_unit_test(random_data),
        cmocka_unit_test(radix_sort_agrees_with_qsort),
        cmocka_unit_test(formats),
        cmocka_unit_test(a_counter_that_moves_in_units_shows_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
