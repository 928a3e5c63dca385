/* The clocks of this machine, read for real: names, monotonicity, the
 * counter's calibration, and the probe's sanity. Where the machine has no
 * counter, the counter tests are skipped, not passed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/results.h"
#include "main/all.h"

static void names_round_trip(void **state)
{
    (void)state;
    int n = 0;
    for (int i = 0; i < VN_CLOCK_COUNT; i++) {
        if (!vn_clock_exists((vn_clock_id)i))
            continue;
        vn_clock_id id;
        assert_int_equal(vn_clock_lookup(vn_clock_name((vn_clock_id)i), &id), 0);
        assert_int_equal(id, i);
        assert_non_null(vn_clock_describe(id));
        n++;
    }
#if defined(__x86_64__)
    assert_int_equal(n, 13);
    vn_clock_id id;
    assert_int_equal(vn_clock_lookup("cntvct", &id), VN_ENOENT);
#endif
    vn_clock_id id2;
    assert_int_equal(vn_clock_lookup("nosuch", &id2), VN_ENOENT);
    assert_int_equal(vn_clock_lookup(NULL, &id2), VN_EINVAL);
    assert_null(vn_clock_name(VN_CLOCK_COUNT));
}

static void monotonic_clocks_never_go_back(void **state)
{
    (void)state;
    for (int i = 0; i < VN_CLOCK_COUNT; i++) {
        vn_clock_id id = (vn_clock_id)i;
        if (!vn_clock_available(id) || !(vn_clock_flags(id) & VN_CLOCK_F_MONOTONIC))
            continue;
        uint64_t prev = vn_clock_read(id);
        for (int k = 0; k < 2000; k++) {
            uint64_t now = vn_clock_read(id);
            assert_true(now >= prev);
            prev = now;
        }
    }
}

static void probe_is_sane(void **state)
{
    (void)state;
    vn_clock_probe p;
    vn_probe_opts o = {1000, 1000, 4096};
    assert_int_equal(vn_probe_clock(VN_CLOCK_MONOTONIC, &o, &p), 0);
    assert_true(p.available);
    assert_true(p.latency_ns > 0 && p.latency_ns < 100000);
    assert_true(p.resolution_ns > 0 && p.resolution_ns <= p.resolution_median_ns);
    assert_true(p.getres_ns >= 1);
    assert_int_equal(p.backwards, 0);
    assert_true(p.reads > 1);
    /* The syscall path costs more than the vDSO path: it enters the kernel.
     * The vDSO reads the clock in user space only with a clocksource that
     * allows it; tsc and arch_sys_counter always do (hpet, acpi_pm and an
     * unstable kvm-clock fall back to the same system call). */
    vn_clock_probe s;
    assert_int_equal(vn_probe_clock(VN_CLOCK_MONOTONIC_SYSCALL, &o, &s), 0);
    char cs[64] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        if (!fgets(cs, sizeof cs, f))
            cs[0] = 0;
        fclose(f);
    }
    if (strcmp(cs, "tsc\n") == 0 || strcmp(cs, "arch_sys_counter\n") == 0)
        assert_true(s.latency_ns > p.latency_ns);
    assert_int_equal(vn_probe_clock(VN_CLOCK_COUNT, &o, &s), VN_EINVAL);
}

#if defined(__x86_64__) || defined(__aarch64__)
static volatile uint64_t one = 1;

/* 1000 dependent adds of a register: 1000 core cycles on any core. */
static void register_adds(vn_state *st)
{
    uint64_t x = 0, y = one;
    while (vn_next(st)) {
#if defined(__x86_64__)
        __asm__ __volatile__(".rept 1000\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(y));
#else
        __asm__ __volatile__(".rept 1000\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(y));
#endif
    }
    vn_keep(x);
}
#endif

/* The reference cycle is the core's: a chain of 1000 register adds reads
 * 1000 of them. A reference of adds of a constant, which some cores fold
 * several a cycle, read it as 4000-4500 on an Intel Xeon guest. */
static void the_reference_counts_core_cycles(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__aarch64__)
    vn_suite *s = vn_suite_create();
    assert_non_null(s);
    assert_int_equal(vn_suite_add(s, "adds", register_adds, NULL), 0);
    vn_config c;
    vn_config_init(&c);
    c.max_time = 0.2;
    c.counters = "none";
    c.dma_latency_us = -1;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    if (!isfinite(b->cycles)) {
        vn__results_clear(&r);
        vn_suite_destroy(s);
        skip(); /* a timer too coarse for a reference */
    }
    assert_true(b->cycles > 900 && b->cycles < 1150);
    vn__results_clear(&r);
    vn_suite_destroy(s);
#else
    skip();
#endif
}

static void distribution_counts_every_pair(void **state)
{
    (void)state;
    vn_delta_dist d;
    assert_int_equal(vn_probe_distribution(VN_CLOCK_MONOTONIC, 5000, &d), 0);
    uint64_t sum = d.zero + d.backwards;
    for (size_t i = 0; i < d.nbins; i++)
        sum += d.bins[i].count;
    assert_int_equal(sum, 4999);
    assert_int_equal(d.backwards, 0);
    vn_delta_dist_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(monotonic_clocks_never_go_back),
        cmocka_unit_test(probe_is_sane),
        cmocka_unit_test(distribution_counts_every_pair),
        cmocka_unit_test(the_reference_counts_core_cycles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
