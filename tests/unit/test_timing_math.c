/* The pure arithmetic behind `vernier clocks`: delta distributions,
 * resolution, calibration from bracketed points, tick conversion without
 * overflow, duration formatting and the choice of timer. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "clock/probe_internal.h"
#include "clock/internal.h"
#include "base/format.h"
#include "main/all.h"
#include "golden.h"

static void delta_distribution(void **state)
{
    (void)state;
    const uint64_t reads[] = {100, 110, 110, 130, 120, 140, 160, 161};
    vn_delta_dist d;
    assert_int_equal(vn__delta_dist_from_reads(reads, 8, &d), 0);
    assert_int_equal(d.pairs, 7);
    assert_int_equal(d.zero, 1);
    assert_int_equal(d.backwards, 1);
    assert_int_equal(d.max_backwards, 10);
    /* Forward deltas: 10, 20, 20, 20, 1 -> bins 1:1, 10:1, 20:3. */
    assert_int_equal(d.nbins, 3);
    assert_int_equal(d.bins[0].delta, 1);
    assert_int_equal(d.bins[0].count, 1);
    assert_int_equal(d.bins[1].delta, 10);
    assert_int_equal(d.bins[1].count, 1);
    assert_int_equal(d.bins[2].delta, 20);
    assert_int_equal(d.bins[2].count, 3);
    uint64_t mn = 0, med = 0;
    assert_int_equal(vn__delta_dist_resolution(&d, &mn, &med), 0);
    assert_int_equal(mn, 1);
    assert_int_equal(med, 20);
    vn_delta_dist_free(&d);
    vn_delta_dist_free(&d); /* idempotent */
}

static void lower_median_of_even_count(void **state)
{
    (void)state;
    const uint64_t reads[] = {0, 5, 10, 17, 24};
    vn_delta_dist d;
    assert_int_equal(vn__delta_dist_from_reads(reads, 5, &d), 0);
    uint64_t mn, med;
    assert_int_equal(vn__delta_dist_resolution(&d, &mn, &med), 0);
    assert_int_equal(mn, 5);
    assert_int_equal(med, 5); /* steps 5 5 7 7: the lower median */
    vn_delta_dist_free(&d);
}

static void clock_that_never_moves(void **state)
{
    (void)state;
    const uint64_t reads[] = {7, 7, 7, 7};
    vn_delta_dist d;
    assert_int_equal(vn__delta_dist_from_reads(reads, 4, &d), 0);
    assert_int_equal(d.zero, 3);
    assert_int_equal(d.nbins, 0);
    assert_int_equal(vn__delta_dist_resolution(&d, NULL, NULL), VN_ENOENT);
    vn_delta_dist_free(&d);
    assert_int_equal(vn__delta_dist_from_reads(reads, 1, &d), 0);
    assert_int_equal(d.pairs, 0);
    assert_int_equal(vn__delta_dist_from_reads(NULL, 3, &d), VN_EINVAL);
}

static void calibration_from_points(void **state)
{
    (void)state;
    double hz, ppm;
    /* 2.6e7 ticks in 10 ms exactly, brackets of 100 ns at each end. */
    assert_int_equal(vn__calibration_from_points(1000, 5000, 1100, 10001000, 26005000, 10001100,
                                                 &hz, &ppm),
                     0);
    assert_true(fabs(hz - 2.6e9) < 1e-3);
    assert_true(fabs(ppm - 10.0) < 1e-9); /* (50 + 50) ns of 10 ms */
    /* Asymmetric brackets move the middles. */
    assert_int_equal(vn__calibration_from_points(0, 0, 200, 1000100, 1000000, 1000100, &hz, &ppm), 0);
    assert_true(fabs(hz - 1e9) < 1e-3);
    assert_true(fabs(ppm - 100.0) < 1e-9);
    /* Reversed or empty intervals are refused. */
    assert_int_equal(vn__calibration_from_points(100, 0, 50, 200, 10, 300, &hz, &ppm), VN_EINVAL);
    assert_int_equal(vn__calibration_from_points(0, 10, 10, 100, 10, 110, &hz, &ppm), VN_EINVAL);
    assert_int_equal(vn__calibration_from_points(0, 0, 100, 50, 10, 60, &hz, &ppm), VN_EINVAL);
}

static void ticks_to_ns(void **state)
{
    (void)state;
    vn_tickconv c;
    assert_int_equal(vn_tickconv_init(&c, 2.5e9), 0);
    assert_int_equal(vn_ticks_to_ns(&c, 2500000000ull), 1000000000ull);
    assert_int_equal(vn_ticks_to_ns(&c, 0), 0);
    /* A century of ticks at 2.5 GHz does not overflow or lose its scale. */
    uint64_t t = 7884000000000000000ull; /* ~100 years */
    uint64_t ns = vn_ticks_to_ns(&c, t);
    long double want = (long double)t / 2.5L;
    assert_true(fabsl((long double)ns - want) / want < 1e-9L);
    /* The aarch64 generic timer's 24 MHz and 1 GHz rates. */
    assert_int_equal(vn_tickconv_init(&c, 24e6), 0);
    assert_int_equal(vn_ticks_to_ns(&c, 24000000), 1000000000ull);
    assert_int_equal(vn_tickconv_init(&c, 1e9), 0);
    assert_int_equal(vn_ticks_to_ns(&c, 123456789012345ull), 123456789012345ull);
    /* Saturates rather than wrapping when the answer cannot fit. */
    assert_int_equal(vn_tickconv_init(&c, 1e3), 0);
    assert_int_equal(vn_ticks_to_ns(&c, UINT64_MAX), UINT64_MAX);
    assert_int_equal(vn_tickconv_init(&c, 0), VN_EINVAL);
    assert_int_equal(vn_tickconv_init(&c, NAN), VN_EINVAL);
    assert_int_equal(vn_tickconv_init(&c, 1e12), VN_EINVAL);
}

static void duration_format(void **state)
{
    (void)state;
    char s[32];
    assert_string_equal(vn__fmt_ns(s, sizeof s, 24.04), "24.0 ns");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 0.385), "0.385 ns");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 461), "461 ns");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 999.7), "1.00 us");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 4263), "4.26 us");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 3999999), "4.00 ms");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 1.5e9), "1.50 s");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 125e9), "125 s");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 9.99e14), "999000 s");
    assert_string_equal(vn__fmt_ns(s, sizeof s, 1.234e40), "1.23e+31 s");
    assert_string_equal(vn__fmt_ns_bound(s, sizeof s, 1.234e40), "1.3e+31 s");
    assert_string_equal(vn__fmt_ns(s, sizeof s, NAN), "-");
    /* A headline in cycles keeps the width of the ns beside it. */
    assert_string_equal(vn__fmt_headline(s, sizeof s, 461, 0), "461 ns");
    assert_string_equal(vn__fmt_headline(s, sizeof s, 23630.56, 1), "23630.6c");
    assert_string_equal(vn__fmt_headline(s, sizeof s, 99999.6, 1), "100.0kc");
    assert_string_equal(vn__fmt_headline(s, sizeof s, 3185830.8, 1), "3185.8kc");
    assert_string_equal(vn__fmt_headline(s, sizeof s, 2.5e9, 1), "2500.0Mc");
    assert_string_equal(vn__fmt_headline(s, sizeof s, 2.5e12, 1), "2.5e+12c");
    assert_string_equal(vn__fmt_headline(s, sizeof s, NAN, 1), "-");
}

/* Counts and CPU numbers on the command line: decimal digits only. */
static void whole_numbers_are_digits(void **state)
{
    (void)state;
    unsigned long long v = 7;
    assert_int_equal(vn__parse_digits("0", &v), 0);
    assert_true(v == 0);
    assert_int_equal(vn__parse_digits("1024", &v), 0);
    assert_true(v == 1024);
    assert_int_equal(vn__parse_digits("18446744073709551615", &v), 0);
    assert_true(v == 18446744073709551615ull);
    static const char *const bad[] = {"", " 1", "1 ", "+1", "-1", "1e0", "0x1", "1.5",
                                      "18446744073709551616", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = 7;
        assert_int_equal(vn__parse_digits(bad[i], &v), -1);
        assert_true(v == 7);
    }
}

static void report_with(vn_clocks_report *r, int invariant, double lfence_ns, double cpuid_ns)
{
    memset(r, 0, sizeof *r);
    r->tsc.present = 1;
    r->tsc_calibrated = 1;
    snprintf(r->clocksource_available, sizeof r->clocksource_available, "tsc hpet acpi_pm");
    r->tsc.invariant = invariant;
    r->tsc.hypervisor = 1;
    const vn_clock_id ids[] = {VN_CLOCK_MONOTONIC, VN_CLOCK_TSC_LFENCE, VN_CLOCK_TSC_CPUID};
    const double lat[] = {24.0, lfence_ns, cpuid_ns};
    for (int i = 0; i < 3; i++) {
        r->clocks[i].id = ids[i];
        r->clocks[i].available = 1;
        r->clocks[i].latency_ns = lat[i];
    }
    r->nclocks = 3;
    r->crosscpu_done = 1;
    r->crosscpu.ncpus = 2;
    r->crosscpu.has_counter = 1;
}

/* Appends one sentence and its line end to g. */
static void keep(vn_buf *g, const char *why)
{
    assert_int_equal(vn_buf_printf(g, "%s\n", why), 0);
}

static void timer_selection(void **state)
{
    (void)state;
    vn_clocks_report r;
    vn_clock_id id;
    char why[256], other[256];
    /* Every sentence of the choice, in the order tested: the golden of
     * their wording (the rest asserts the choice and its numbers). */
    vn_buf g;
    vn_buf_init(&g, 0);
#if defined(__x86_64__)
    /* The ordered read, with the costs measured: cpuid;rdtsc's, far slower
     * inside a VM, and lfence;rdtsc's. */
    report_with(&r, 1, 16.3, 1900);
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_TSC_CPUID_COSTLY);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_TSC_LFENCE);
    assert_non_null(strstr(why, "cpuid;rdtsc"));
    assert_non_null(strstr(why, "1.90 us"));
    assert_non_null(strstr(why, "16.3 ns"));
    assert_null(strchr(why, '\n'));
    /* It says more when the CPUs were compared, and when in a VM. */
    r.crosscpu.ncpus = 1;
    vn_clock_select(&r, &id, other, sizeof other);
    assert_true(strlen(other) < strlen(why));
    r.crosscpu.ncpus = 2;
    r.tsc.hypervisor = 0;
    vn_clock_select(&r, &id, other, sizeof other);
    assert_true(strlen(other) < strlen(why));

    /* A cheap cpuid;rdtsc is not worth a word. */
    report_with(&r, 1, 16.3, 20);
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_INVARIANT_TSC);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_TSC_LFENCE);
    assert_null(strstr(why, "cpuid"));

    report_with(&r, 0, 16.3, 1900);
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_NOT_INVARIANT);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_MONOTONIC);
    assert_non_null(strstr(why, "24.0 ns"));

    report_with(&r, 1, 16.3, 1900);
    r.crosscpu.tsc_backwards = 3;
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_BACKWARDS);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_MONOTONIC);

    /* The warp check alone is enough to distrust the counter. */
    report_with(&r, 1, 16.3, 1900);
    r.crosscpu.warp_tsc_backwards = 1;
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_BACKWARDS);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_MONOTONIC);

    /* The kernel dropped tsc from its clocksources: it found it unstable. */
    report_with(&r, 1, 16.3, 1900);
    snprintf(r.clocksource_available, sizeof r.clocksource_available, "kvm-clock hpet");
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_TSC_UNSTABLE);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_MONOTONIC);

    /* Unknown clocksources say nothing either way. */
    report_with(&r, 1, 16.3, 1900);
    r.clocksource_available[0] = '\0';
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_TSC_CPUID_COSTLY);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_TSC_LFENCE);

    /* Without a calibration ticks cannot become time. */
    report_with(&r, 1, 16.3, 1900);
    r.tsc_calibrated = 0;
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_UNCALIBRATED);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_MONOTONIC);
#endif
    /* Without any counter the choice is always CLOCK_MONOTONIC, whose cost
     * the reason gives. */
    report_with(&r, 1, 16.3, 1900);
    r.nclocks = 1;
    assert_int_equal(vn_clock_select(&r, &id, why, sizeof why), VN_CLOCK_WHY_NO_COUNTER);
    keep(&g, why);
    assert_int_equal(id, VN_CLOCK_MONOTONIC);
    assert_non_null(strstr(why, "24.0 ns"));
    assert_null(strchr(why, '\n'));
#if defined(__x86_64__)
    check_golden("clock-reasons.txt", &g);
#endif
    vn_buf_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(delta_distribution),      cmocka_unit_test(lower_median_of_even_count),
        cmocka_unit_test(clock_that_never_moves),  cmocka_unit_test(calibration_from_points),
        cmocka_unit_test(ticks_to_ns),             cmocka_unit_test(duration_format),
        cmocka_unit_test(whole_numbers_are_digits),
        cmocka_unit_test(timer_selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
