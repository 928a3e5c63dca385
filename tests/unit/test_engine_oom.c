/* Memory running out anywhere in a run: every allocation the engine makes
 * during vn_suite_run() is made to fail in turn, with the rows one after
 * another and taking turns. The run must return VN_ENOMEM or succeed, never
 * crash, and (checked by LeakSanitizer in the sanitizer build) free what it
 * took. The allocator is wrapped at link time (-Wl,--wrap, tests/CMakeLists.txt),
 * so only this program's and the static library's calls are counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench_internal.h"
#include "vernier.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

/* While armed, allocation number fail_at (counting from 1) fails. */
static int armed;
static long count, fail_at;

static int fails(void) { return armed && ++count == fail_at; }
void *__wrap_malloc(size_t n) { return fails() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fails() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fails() ? NULL : __real_realloc(p, n); }

/* A fake machine: time moves only as the benchmarks say. */
static uint64_t fake_now;
static unsigned noisy_no;

static uint64_t now(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static double ref(void *ctx)
{
    (void)ctx;
    return 0.5;
}

static double probe(void *ctx)
{
    (void)ctx;
    return 1.0;
}

static void steady(vn_state *st)
{
    while (vn_next(st))
        fake_now += 10;
}

static void noisy(vn_state *st)
{
    uint64_t c = 8 + noisy_no++ % 7;
    while (vn_next(st))
        fake_now += c;
}

static void failing(vn_state *st)
{
    while (vn_next(st)) {
        fake_now += 10;
        vn_state_fail(st, "the input was wrong");
    }
}

/* One run of four rows, one of which fails and one of which runs to its
 * budget; the allocation fail_at fails (0: none). Returns vn_suite_run's
 * code, and the allocations it made in *made. */
static int run_once(long fail, int interleave, long *made)
{
    fake_now = 1000000;
    noisy_no = 0;
    vn_suite *s = vn__suite_create(1);
    assert_non_null(s);
    vn__hooks h = {0};
    h.now = now;
    h.timer_cost_ns = 20;
    h.timer_resolution_ns = 1;
    h.ref_ns = ref;
    h.branch_cycles = probe;
    h.no_interference = 1;
    h.no_sysinfo = 1;
    vn__suite_set_hooks(s, &h);
    assert_int_equal(vn_suite_add(s, "steady", steady, NULL), 0);
    assert_int_equal(vn_suite_add(s, "noisy", noisy, NULL), 0);
    assert_int_equal(vn_suite_add(s, "failing", failing, NULL), 0);
    assert_int_equal(vn_suite_add(s, "steady2", steady, NULL), 0);
    vn_config c;
    vn_config_init(&c);
    c.warmup = 0.002;
    c.precision = 0.001;
    c.max_time = 0.02;
    c.interleave = interleave;
    vn_results r;
    count = 0;
    fail_at = fail;
    armed = 1;
    int rc = vn_suite_run(s, &c, &r);
    armed = 0;
    *made = count;
    if (rc == 0) {
        assert_int_equal(r.nbench, 4);
        assert_int_equal(r.bench[2].stop, VN_STOP_FAILED);
        vn_results_free(&r);
    }
    vn_suite_destroy(s);
    return rc;
}

static void each_allocation_may_fail(void **state)
{
    (void)state;
    for (int interleave = 0; interleave <= 1; interleave++) {
        long made;
        assert_int_equal(run_once(0, interleave, &made), 0);
        assert_true(made > 20);
        print_message("%ld allocations with the rows %s\n", made,
                      interleave ? "in turns" : "one after another");
        for (long k = 1; k <= made; k++) {
            long ignored;
            int rc = run_once(k, interleave, &ignored);
            if (rc != 0 && rc != VN_ENOMEM)
                fail_msg("allocation %ld of %ld (interleave %d): code %d", k, made, interleave, rc);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_allocation_may_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
