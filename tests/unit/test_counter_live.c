/* The CPU counter of this machine: calibration and the cross-CPU checks.
 * Without a counter readable from user space the whole file is skipped
 * (exit 77), never passed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "main/all.h"

static void calibration_is_repeatable(void **state)
{
    (void)state;
    /* Five short calibrations agree with a long one within the errors the
     * two state (the half-widths of their brackets: a bound, since the
     * counter and CLOCK_MONOTONIC_RAW keep a constant ratio). Where a
     * clock read is slow (an emulated clocksource) the stated errors grow,
     * and the agreement asked for with them. */
    vn_calibration ref;
    assert_int_equal(vn_counter_calibrate(200000, &ref), 0);
    assert_true(ref.hz > 1e6);
    assert_true(ref.error_ppm < 500);
    for (int i = 0; i < 5; i++) {
        vn_calibration c;
        assert_int_equal(vn_counter_calibrate(0, &c), 0);
        assert_true(c.duration_ns < 100e6);
        assert_true(fabs(c.hz - ref.hz) / ref.hz * 1e6 <= c.error_ppm + ref.error_ppm + 1);
    }
    const vn_calibration *g = vn_counter_calibration();
    if (!g) {
        /* Every attempt was wider than 0.05%: possible only with slow reads. */
        assert_true(ref.error_ppm > 50);
        skip();
    }
    assert_true(fabs(g->hz - ref.hz) / ref.hz * 1e6 <= g->error_ppm + ref.error_ppm + 1);
    /* A counter delta of one second converts to one second. */
    assert_true(fabs(vn_clock_delta_ns(VN_CLOCK_TSC, (uint64_t)g->hz) - 1e9) < 1.0);
}

static void crosscpu_check(void **state)
{
    (void)state;
    vn_crosscpu x;
    int rc = vn_probe_crosscpu(3, &x);
    assert_int_equal(rc, 0);
    assert_true(x.ncpus >= 1);
    if (x.ncpus > 1)
        assert_int_equal(x.migrations, 3 * (uint64_t)x.ncpus - 1);
    assert_int_equal(x.mono_backwards, 0);
    if (x.ncpus > 1) {
        assert_int_equal(x.warp_pairs, x.ncpus - 1 < 16 ? x.ncpus - 1 : 16);
        assert_true(x.warp_handoffs > 0);
        /* CLOCK_MONOTONIC is one clock for the whole system: it never
         * goes backwards across a lock handoff. */
        assert_int_equal(x.warp_mono_backwards, 0);
        assert_true(x.warp_resolution_ns > 0);
    }
}

int main(void)
{
    vn_tsc_info t;
    if (vn_tsc_query(&t) != 0) {
        printf("skipped: no CPU counter readable from user space here\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(calibration_is_repeatable),
        cmocka_unit_test(crosscpu_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
