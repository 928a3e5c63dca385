/* Hardware counters on the real machine: instructions and branches of a
 * loop whose instruction count is known, cycles beside them, the user-mode
 * part no larger than the whole, and the engine's per-iteration counts of
 * a body of one add. Where the machine has no PMU (a virtual machine
 * without a virtual PMU) or may not use it, this exits 77 with the reason:
 * a skip, never a pass. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "main/all.h"

static vn_counters *ctr;

static double delta(const vn_counts *a, const vn_counts *b, const char *name)
{
    for (size_t i = 0; i < vn_counters_n(ctr); i++)
        if (!strcmp(vn_counters_name(ctr, i), name))
            return vn_counter_scale(b->v[i].value - a->v[i].value, b->v[i].enabled - a->v[i].enabled,
                                    b->v[i].running - a->v[i].running, NULL);
    return NAN;
}

/* A loop of N iterations the compiler cannot remove or unroll away: at
 * least a few instructions and one branch each. */
#define N 10000000
static void loop(void)
{
    for (long i = 0; i < N; i++)
        __asm__ __volatile__("" : : "r"(i) : "memory");
}

static void known_loop(void **state)
{
    (void)state;
    vn_counts a, b;
    assert_int_equal(vn_counters_read(ctr, &a), 0);
    loop();
    assert_int_equal(vn_counters_read(ctr, &b), 0);
    double insn = delta(&a, &b, "instructions"), br = delta(&a, &b, "branches");
    double cyc = delta(&a, &b, "cycles"), user = delta(&a, &b, "instructions:u");
    printf("%d iterations: %.0f instructions (%.0f in user mode), %.0f branches, %.0f cycles\n", N,
           insn, user, br, cyc);
    assert_true(insn >= 2.0 * N && insn < 20.0 * N);
    assert_true(br >= 0.9 * N && br < 3.0 * N);
    assert_true(cyc > 0.2 * N);
    if (isfinite(user))
        assert_true(user <= insn * 1.01);
}

static void add_body(vn_state *st)
{
    unsigned long x = 1;
    while (vn_next(st)) {
        x += x;
        vn_keep(x);
    }
}

static void the_engine_counts_one_add(void **state)
{
    (void)state;
    /* examples/x_plus_x's body through the engine: the loop's increment and
     * branch come off with the empty loop's counts. */
    vn_suite *s = vn_suite_create();
    assert_int_equal(vn_suite_add(s, "add", add_body, NULL), 0);
    vn_config c;
    vn_config_init(&c);
    c.max_time = 0.3;
    c.counters = "instructions,branches,cycles";
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    for (int i = 0; i < b->ncounters; i++)
        printf("%s: %.3f per iteration net, %.3f the empty loop's\n", b->counters[i].name,
               b->counters[i].value, b->counters[i].overhead);
    assert_true(b->ncounters == 3);
    assert_true(fabs(b->counters[0].value - 1) < 0.2); /* one add */
    assert_true(b->counters[1].value < 0.2);           /* no branch of its own */
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

int main(void)
{
    char why[512];
    if (vn_counters_open("instructions,branches,cycles,instructions:u", 0, 0, &ctr, why,
                         sizeof why) != 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    vn_counter_info ci;
    vn_counters_info(ctr, &ci);
    for (size_t i = 0; i < ci.n; i++)
        if (!ci.ev[i].opened && strcmp(ci.ev[i].name, "instructions:u") != 0) {
            printf("skip: hardware counters are not available here: %s cannot be counted: %s "
                   "(fix: %s)\n",
                   ci.ev[i].name, ci.ev[i].reason, ci.ev[i].fix);
            vn_counters_destroy(ctr);
            return 77;
        }
    vn_counters_enable(ctr);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_loop),
        cmocka_unit_test(the_engine_counts_one_add),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    vn_counters_destroy(ctr);
    return rc;
}
