/* Memory running out anywhere in a run: every allocation the engine makes
 * during vn__suite_run_here() is made to fail in turn, with the rows one after
 * another and taking turns. The run must return VN_ENOMEM or succeed, never
 * crash, and (checked by LeakSanitizer in the sanitizer build) free what it
 * took. The allocator is wrapped at link time (-Wl,--wrap, tests/CMakeLists.txt),
 * so only this program's and the static library's calls are counted. So is
 * pthread_create, for a row of threads of which one cannot be started. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/internal.h"
#include "main/all.h"

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

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

/* Threads started so far; number thread_fail_at (from 1; 0: none) fails. */
static int thread_fail_at, threads_made;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (++threads_made == thread_fail_at)
        return EAGAIN;
    return __real_pthread_create(t, a, fn, arg);
}

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

/* A suite on the fake machine, whose time is what now_of() says. */
static vn_suite *fake_machine(uint64_t (*now_of)(void *))
{
    vn_suite *s = vn__suite_create(1);
    assert_non_null(s);
    vn__hooks h = {0};
    h.now = now_of;
    h.timer_cost_ns = 20;
    h.timer_resolution_ns = 1;
    h.ref_ns = ref;
    h.branch_cycles = probe;
    h.no_interference = 1;
    h.no_sysinfo = 1;
    vn__suite_set_hooks(s, &h);
    return s;
}

/* One run of four rows, one of which fails and one of which runs to its
 * budget; the allocation fail_at fails (0: none). Returns vn_suite_run's
 * code, and the allocations it made in *made. */
static int run_once(long fail, int interleave, long *made)
{
    fake_now = 1000000;
    noisy_no = 0;
    vn_suite *s = fake_machine(now);
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
    int rc = vn__suite_run_here(s, &c, &r);
    armed = 0;
    *made = count;
    if (rc == 0) {
        assert_int_equal(r.nbench, 4);
        assert_int_equal(vn_results_at(&r, 2)->stop, VN_STOP_FAILED);
        vn__results_clear(&r);
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

/* The threads' machine: one clock that every thread's iterations move. */
static atomic_ullong shared_now;

static uint64_t now_shared(void *ctx)
{
    (void)ctx;
    return (uint64_t)atomic_load(&shared_now);
}

static void steady_shared(vn_state *st)
{
    while (vn_next(st))
        atomic_fetch_add(&shared_now, 10);
}

/* A row of 3 threads of which the first, second or third cannot be
 * started: the row fails and says which, the threads that started are
 * stopped (before the fix, the run waited for the missing ones at the
 * start barrier for ever), and the next row runs. */
static void a_thread_that_cannot_start_fails_its_row(void **state)
{
    (void)state;
    alarm(60); /* a run that waits for ever fails here, not at ctest's limit */
    for (int k = 0; k <= 3; k++) {
        atomic_store(&shared_now, 1000000);
        vn_suite *s = fake_machine(now_shared);
        assert_int_equal(vn_suite_add(s, "threads", steady_shared, NULL), 0);
        assert_int_equal(vn_suite_add(s, "after", steady_shared, NULL), 0);
        vn_config c;
        vn_config_init(&c);
        c.warmup = 0;
        c.max_time = 0.02;
        c.threads = 3;
        threads_made = 0;
        thread_fail_at = k;
        vn_results r;
        int rc = vn__suite_run_here(s, &c, &r);
        thread_fail_at = 0;
        assert_int_equal(rc, 0);
        assert_int_equal(r.nbench, 2);
        if (k) {
            char want[64];
            snprintf(want, sizeof want, "could not start thread %d of 3: ", k);
            assert_int_equal(vn_results_at(&r, 0)->stop, VN_STOP_FAILED);
            assert_non_null(strstr(vn_results_at(&r, 0)->error, want));
            /* The next row ran: its threads are counted from where the
             * failed row left off. */
            assert_int_equal(threads_made, k + 3);
        } else {
            assert_int_not_equal(vn_results_at(&r, 0)->stop, VN_STOP_FAILED);
            assert_int_equal(threads_made, 6);
        }
        assert_int_not_equal(vn_results_at(&r, 1)->stop, VN_STOP_FAILED);
        assert_true(vn_results_at(&r, 1)->nsamples >= 10);
        vn__results_clear(&r);
        vn_suite_destroy(s);
    }
    alarm(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_allocation_may_fail),
        cmocka_unit_test(a_thread_that_cannot_start_fails_its_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
