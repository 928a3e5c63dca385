/* Google Benchmark's layout of the engine's results, from a fixture whose
 * every number is known: which samples become repetitions, what is taken
 * off them, the aggregates, the families, and the rows that become errors.
 * The whole document is compared with tests/golden/results-gbench.json, and
 * the properties that matter are checked on their own. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/format.h"
#include "report/results.h"
#include "results_fixture.h"

#define NBENCH 6

/* n samples of value v0 + k * step, k = 0.., each with a CPU time 0.5 ns
 * under it; sample 2 is preempted. Each was taken in a process of its own,
 * whose value is that sample net of the empty loop (the preempted one's
 * process has none: its one sample was left out). */
static void samples(vn_result *res, size_t n, double v0, double step)
{
    res->samples = calloc(n, sizeof *res->samples);
    res->processes = calloc(n, sizeof *res->processes);
    assert_non_null(res->samples);
    assert_non_null(res->processes);
    res->nsamples = res->nprocesses = n;
    double om = isfinite(res->overhead_ns) ? res->overhead_ns : 0;
    for (size_t k = 0; k < n; k++) {
        vn_sample *s = &res->samples[k];
        s->value = v0 + (double)k * step;
        s->cpu_ns = s->value - 0.5;
        s->iters = res->iters;
        s->ref_ns = 0.385;
        s->tags = k == 2 ? VN_TAG_PREEMPTED : 0;
        s->process = (int)k;
        vn_process_result *q = &res->processes[k];
        q->value = k == 2 ? NAN : s->value - om;
        q->overhead_ns = res->overhead_ns;
        q->samples = 1;
        q->used = k != 2;
        q->probe = q->cycles = NAN;
    }
}

static void fixture(vn_results *r)
{
    fx_results_init(r, "sysroot-vm");
    r->counter_hz = 2596098000.0;
    r->optimized = 1;
    r->bench = calloc(NBENCH, sizeof *r->bench);
    assert_non_null(r->bench);

    /* Two rows of one benchmark, a parameter each: one family. The first
     * declares bytes and counts instructions. */
    vn_result *res = fx_add(r, "sum/n=64", 4096, 0.25);
    snprintf(res->param_name, sizeof res->param_name, "n");
    res->bytes_per_iter = 256;
    samples(res, 5, 10.25, 0.5);
    res->ncounters = 1;
    snprintf(res->counters[0].name, sizeof res->counters[0].name, "instructions");
    res->counters[0].value = 130;
    res = fx_add(r, "sum/n=128", 2048, 0.25);
    snprintf(res->param_name, sizeof res->param_name, "n");
    samples(res, 4, 20.25, 1);
    /* No empty-loop sample kept: nothing was taken off. */
    res = fx_add(r, "unknown_overhead", 1024, NAN);
    samples(res, 3, 7, 1);
    res = fx_add(r, "bound", 1048576, 0.3);
    samples(res, 4, 0.31, 0.01);
    res->upper_bound = 1;
    res->bound_ns = 0.31;
    /* A bound's process gives its fastest sample, the empty loop in it. */
    for (size_t k = 0; k < res->nprocesses; k++) {
        res->processes[k].upper_bound = 1;
        if (k != 2)
            res->processes[k].value = res->samples[k].value;
    }
    res = fx_add(r, "no_device", 0, NAN);
    res->stop = VN_STOP_SKIPPED;
    snprintf(res->error, sizeof res->error, "no /dev/cpu_dma_latency here");
    res = fx_add(r, "broken", 0, NAN);
    res->stop = VN_STOP_FAILED;
    snprintf(res->error, sizeof res->error, "could not allocate 1 GiB");
}

static void fixture_free(vn_results *r)
{
    for (size_t i = 0; i < r->nbench; i++) {
        free(r->bench[i].samples);
        free(r->bench[i].processes);
    }
    free(r->bench);
    vn_sysinfo_free(&r->env);
}

static void render(vn_buf *b)
{
    vn_results r;
    fixture(&r);
    vn_buf_init(b, 0);
    assert_int_equal(vn_report_results_gbench(&r, "./prog", "2024-05-01T12:00:00+02:00", b), 0);
    assert_non_null(b->data);
    fixture_free(&r);
}

static void golden_file(void **state)
{
    (void)state;
    vn_buf b;
    render(&b);
    check_golden("results-gbench.json", &b);
    vn_buf_free(&b);
}

static int count(const char *s, const char *key)
{
    int n = 0;
    for (const char *p = strstr(s, key); p; p = strstr(p + 1, key))
        n++;
    return n;
}

static void repetitions_are_the_processes_net(void **state)
{
    (void)state;
    vn_buf b;
    render(&b);
    const char *s = b.data;
    /* sum/n=64: processes of one sample each, 10.25, 10.75, (11.25
     * preempted, so that process has no value), 11.75, 12.25 less 0.25 of
     * empty loop: four repetitions. */
    assert_int_equal(count(s, "\"name\": \"sum/n=64\""), 4);
    assert_non_null(strstr(s, "\"real_time\": 10,"));
    assert_non_null(strstr(s, "\"real_time\": 10.5,"));
    /* 11 only as the mean and the median: the preempted sample is not one. */
    assert_int_equal(count(s, "\"real_time\": 11,"), 2);
    assert_non_null(strstr(s, "\"real_time\": 11.5,"));
    assert_non_null(strstr(s, "\"real_time\": 12,"));
    assert_non_null(strstr(s, "\"repetition_index\": 3,"));
    /* Its CPU time net of the same empty loop, its throughput from its own
     * time: 256 bytes in 10 ns. */
    assert_non_null(strstr(s, "\"cpu_time\": 9.5,"));
    assert_non_null(strstr(s, "\"bytes_per_second\": 25600000000"));
    assert_non_null(strstr(s, "\"instructions\": 130"));
    /* The aggregates of 10, 10.5, 11.5, 12. */
    assert_non_null(strstr(s, "\"name\": \"sum/n=64_mean\""));
    assert_non_null(strstr(s, "\"real_time\": 11,\n      \"cpu_time\": 10.5,"));
    assert_non_null(strstr(s, "\"name\": \"sum/n=64_median\""));
    assert_non_null(strstr(s, "\"name\": \"sum/n=64_cv\""));
    /* The second row of the family, and a family of its own after. */
    const char *second = strstr(s, "\"name\": \"sum/n=128\"");
    assert_non_null(second);
    assert_non_null(strstr(second, "\"family_index\": 0,\n      \"per_family_instance_index\": 1,"));
    const char *third = strstr(s, "\"name\": \"unknown_overhead\"");
    assert_non_null(third);
    assert_non_null(strstr(third, "\"family_index\": 1,\n      \"per_family_instance_index\": 0,"));
    /* An overhead no empty-loop sample measured takes nothing off. */
    assert_non_null(strstr(third, "\"real_time\": 7,"));
    vn_buf_free(&b);
}

static void rows_with_nothing_are_errors_and_bounds_are_labelled(void **state)
{
    (void)state;
    vn_buf b;
    render(&b);
    const char *s = b.data;
    assert_int_equal(count(s, "\"error_occurred\": true"), 2);
    /* Each error's message is its row's own; a skipped row's says it was
     * skipped, by its stop's name. */
    vn_results r;
    fixture(&r);
    const vn_result *skipped = &r.bench[4], *failed = &r.bench[5];
    assert_int_equal(skipped->stop, VN_STOP_SKIPPED);
    assert_int_equal(failed->stop, VN_STOP_FAILED);
    const char *m = strstr(strstr(s, "\"name\": \"no_device\""), "\"error_message\": \"");
    assert_non_null(m);
    m += strlen("\"error_message\": \"");
    assert_int_equal(strncmp(m, vn_stop_name(VN_STOP_SKIPPED), strlen(vn_stop_name(VN_STOP_SKIPPED))), 0);
    const char *end = strchr(m, '"');
    assert_non_null(strstr(m, skipped->error));
    assert_true(strstr(m, skipped->error) + strlen(skipped->error) == end);
    m = strstr(strstr(s, "\"name\": \"broken\""), "\"error_message\": \"");
    assert_non_null(m);
    m += strlen("\"error_message\": \"");
    assert_int_equal(strncmp(m, failed->error, strlen(failed->error)), 0);
    assert_int_equal(m[strlen(failed->error)], '"');
    fixture_free(&r);
    /* One entry each, no aggregates, and times of 0 as Google Benchmark
     * writes an error's. */
    const char *e = strstr(s, "\"error_occurred\": true");
    assert_non_null(strstr(e, "\"real_time\": 0,\n      \"cpu_time\": 0,"));
    /* A bound: each process's fastest sample, labelled, as repetitions
     * (three: the preempted one's process has none), and aggregates, so
     * that a reader's geometric mean of times has a time for it. */
    assert_int_equal(count(s, "\"name\": \"bound\""), 3);
    /* The label is the one the reader of such files knows a bound by. */
    assert_int_equal(count(s, "\"label\": \"" VN__GBENCH_BOUND "\""), 3);
    const char *bound = strstr(s, "\"name\": \"bound\"");
    assert_non_null(strstr(bound, "\"real_time\": 0.31,"));
    assert_non_null(strstr(s, "\"name\": \"bound_mean\""));
    vn_buf_free(&b);
}

/* --benchmark_time_unit, --benchmark_report_aggregates_only and
 * --benchmark_context, as the writer takes them. */
static void google_benchmarks_flags_shape_the_file(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    /* A process the headline left out is a repetition still, labelled. */
    r.bench[0].processes[1].left_out = 1;
    const char *ctx[] = {"ci=yes", "commit=abc"};
    vn__gbench_opts o = {"us", 1, ctx, 2};
    vn_buf b;
    vn_buf_init(&b, 0);
    assert_int_equal(vn__report_gbench(&r, NULL, "./prog", "d", &b, &o), 0);
    const char *s = b.data;
    assert_non_null(strstr(s, "\"ci\": \"yes\""));
    assert_non_null(strstr(s, "\"commit\": \"abc\""));
    /* Only aggregates: no repetition of sum/n=64, its mean in us (11 ns). */
    assert_int_equal(count(s, "\"name\": \"sum/n=64\""), 0);
    assert_int_equal(count(s, "\"run_type\": \"iteration\""), 2); /* the two errors */
    assert_non_null(strstr(s, "\"real_time\": 0.011,"));
    assert_int_equal(count(s, "\"time_unit\": \"ns\""), 2); /* the two errors */
    vn_buf_free(&b);
    /* All repetitions, the left-out one labelled. */
    o.aggregates_only = 0;
    vn_buf_init(&b, 0);
    assert_int_equal(vn__report_gbench(&r, NULL, "./prog", "d", &b, &o), 0);
    assert_int_equal(count(b.data, "\"name\": \"sum/n=64\""), 4);
    assert_int_equal(count(b.data, "\"label\": \"" VN__GBENCH_LEFT_OUT "\""), 1);
    vn_buf_free(&b);
    fixture_free(&r);
}

static void context_from_the_snapshot(void **state)
{
    (void)state;
    vn_buf b;
    render(&b);
    const char *s = b.data;
    assert_non_null(strstr(s, "\"date\": \"2024-05-01T12:00:00+02:00\""));
    assert_non_null(strstr(s, "\"executable\": \"./prog\""));
    /* The counter's rate, rounded to whole MHz. */
    assert_non_null(strstr(s, "\"mhz_per_cpu\": 2596,"));
    assert_non_null(strstr(s, "\"library_build_type\": \"release\""));
    vn_buf_free(&b);
}

static void date_as_google_benchmark_writes_it(void **state)
{
    (void)state;
    char d[40];
    setenv("TZ", "UTC", 1);
    tzset();
    assert_string_equal(vn_report_gbench_date(d, sizeof d, 0), "1970-01-01T00:00:00+00:00");
    setenv("TZ", "XXX-05:30", 1);
    tzset();
    assert_string_equal(vn_report_gbench_date(d, sizeof d, 86400), "1970-01-02T05:30:00+05:30");
    /* A buffer too small holds nothing rather than half a date. */
    assert_string_equal(vn_report_gbench_date(d, 10, 0), "");
    unsetenv("TZ");
    tzset();
}

static void bad_input(void **state)
{
    (void)state;
    vn_results r;
    memset(&r, 0, sizeof r);
    vn_buf b;
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_gbench(&r, NULL, NULL, &b), VN_EABI);
    assert_int_equal(vn_report_results_gbench(NULL, NULL, NULL, NULL), VN_EINVAL);
    vn_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_file),
        cmocka_unit_test(repetitions_are_the_processes_net),
        cmocka_unit_test(rows_with_nothing_are_errors_and_bounds_are_labelled),
        cmocka_unit_test(google_benchmarks_flags_shape_the_file),
        cmocka_unit_test(context_from_the_snapshot),
        cmocka_unit_test(date_as_google_benchmark_writes_it),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
