/* The engine, driven by a fake clock: calibration, the adaptive stop, the
 * time budget, overhead subtraction, the dead-code bound, interference tags,
 * reference cycles, parameters, failures and misuse, all deterministic. */
#include <math.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/format.h"
#include "engine/decide.h"
#include "engine/internal.h"
#include "engine/policy.h"
#include "main/all.h"
#include "text_checks.h"

/* ---- The fake machine ------------------------------------------------------ */

static uint64_t fake_now;      /* ns */
static uint64_t read_cost;     /* each clock read advances time this much */
static double costs[64];       /* ns per iteration, cycled per sample */
static size_t ncosts, sample_no;
static unsigned tag_every;     /* every tag_every-th sample is tagged preempted */
static double ref_value[3];    /* ns per reference cycle, in turn */
static size_t nref_values;     /* how many of ref_value take turns */
static size_t ref_calls;
static int setups, teardowns;
/* The core is shared (its front end busy with a second thread) from
 * shared_from to shared_to in fake ns: the taken-branch probe reads 1.6 to
 * 2.4 reference cycles a branch instead of 1, as a busy sibling's load
 * moves, and a body that starts then costs twice as much. With slow_core
 * set, the core itself takes 1.6 cycles a branch, steadily. */
static uint64_t shared_from, shared_to;
static int slow_core;
static unsigned probe_no;

static int shared_now(void) { return fake_now >= shared_from && fake_now < shared_to; }

static double branch_probe(void *ctx)
{
    (void)ctx;
    if (slow_core)
        return 1.6;
    return shared_now() ? 1.6 + 0.1 * (double)(probe_no++ % 9) : 1.0;
}

/* With asleep set, every sample spends nine tenths of its time off the
 * CPU. */
static int asleep;

/* Each quiet sample costs this many times its cost: time the probes cannot
 * see, such as the hypervisor taking the vCPU away. */
static double quiet_penalty;

static double cpu_time(void *ctx, double wall_ns)
{
    (void)ctx;
    return asleep ? 0.1 * wall_ns : wall_ns;
}

static uint64_t now(void *ctx)
{
    (void)ctx;
    uint64_t t = fake_now;
    fake_now += read_cost;
    return t;
}

/* Called after the sample's body ran, which counted it already. */
static unsigned tags(void *ctx)
{
    (void)ctx;
    return tag_every && (sample_no - 1) % tag_every == 0 ? VN_TAG_PREEMPTED : 0;
}

/* With ref_by_sample set, the reference read before a sample of the body
 * is the one of that sample's cost (ref_value[i % 2] for costs[i % 2]): a
 * clock that moves, and a body that follows it. */
static int ref_by_sample;

static double ref(void *ctx)
{
    (void)ctx;
    if (ref_by_sample)
        return ref_value[sample_no % 2];
    return ref_value[ref_calls++ % nref_values];
}

/* Each iteration costs the current sample's cost; tagged samples cost 1000x
 * (a preemption), which must not reach the headline. */
static void body(vn_state *st)
{
    double c = costs[sample_no % ncosts];
    if (tag_every && sample_no % tag_every == 0)
        c *= 1000;
    if (shared_now())
        c *= 2;
    else
        c *= quiet_penalty;
    sample_no++;
    double acc = 0;
    while (vn_next(st)) {
        acc += c;
        if (acc >= 1) {
            fake_now += (uint64_t)acc;
            acc -= (double)(uint64_t)acc;
        }
    }
}

static void reset_fake(void)
{
    fake_now = 1000000;
    read_cost = 0;
    ncosts = 1;
    costs[0] = 10;
    sample_no = 0;
    tag_every = 0;
    ref_value[0] = ref_value[1] = ref_value[2] = 0.5;
    nref_values = 2;
    ref_calls = 0;
    setups = teardowns = 0;
    shared_from = shared_to = 0;
    slow_core = 0;
    probe_no = 0;
    asleep = 0;
    quiet_penalty = 1;
}

/* The fake machine's clock and reference, no real probing; a test adds
 * the hooks it needs and makes a suite of them with suite_of(). */
static vn__hooks fake_hooks(double timer_cost)
{
    vn__hooks h = {0};
    h.now = now;
    h.timer_cost_ns = timer_cost;
    h.timer_resolution_ns = 1;
    h.ref_ns = ref;
    h.no_interference = 1;
    h.no_sysinfo = 1;
    return h;
}

static vn_suite *suite_of(const vn__hooks *h)
{
    vn_suite *s = vn__suite_create(1);
    vn__suite_set_hooks(s, h);
    return s;
}

static vn_suite *fake_suite(double timer_cost)
{
    vn__hooks h = fake_hooks(timer_cost);
    h.sample_tags = tags;
    return suite_of(&h);
}

/* A fresh fake machine and a suite of one row, "b", of body. */
static vn_suite *fake_row(double timer_cost)
{
    reset_fake();
    vn_suite *s = fake_suite(timer_cost);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    return s;
}

/* The sample-level shared-core rule, off by default, is on here: these
 * tests are about what it does when asked for. */
#define SHARED_ON "shared_ratio=1.1"

static vn_config quick_config(void)
{
    vn_config c;
    vn_config_init(&c);
    assert_true(c.min_sample_time == 0.00025);
    c.warmup = 0;
    /* The fake machine's cases are worked out in 1 ms samples. */
    c.min_sample_time = 0.001;
    c.policy = SHARED_ON;
    return c;
}

/* r's warning id; NULL when r has none such. */
static const vn_bench_warning *warning_of(const vn_result *r, const char *id)
{
    for (int i = 0; i < r->nwarnings; i++)
        if (!strcmp(r->warnings[i].id, id))
            return &r->warnings[i];
    return NULL;
}

/* The message of r's warning id; NULL when r has none such. */
static const char *warning_text(const vn_result *r, const char *id)
{
    const vn_bench_warning *w = warning_of(r, id);
    return w ? w->message : NULL;
}

static int has_warning(const vn_result *r, const char *id) { return warning_text(r, id) != NULL; }

/* How many warnings id r has. */
static int warnings_of(const vn_result *r, const char *id)
{
    int n = 0;
    for (int i = 0; i < r->nwarnings; i++)
        n += !strcmp(r->warnings[i].id, id);
    return n;
}

/* The samples of r that ran on a quiet core (not tagged shared_core). */
static size_t quiet_samples(const vn_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nsamples; i++)
        n += !(r->samples[i].tags & VN_TAG_SHARED_CORE);
    return n;
}

/* The quiet samples the default policy needs before their speed tells
 * whether sharing the core slows a body. */
static size_t shared_evidence(void)
{
    vn_config c;
    vn_config_init(&c);
    vn__policy p;
    assert_int_equal(vn__policy_init(&p, &c), 0);
    return p.shared_evidence;
}

/* r's samples on a shared core made its headline after all: none was left
 * out for it, and its shared_core warning counts them among r's samples. */
static void assert_shared_kept(const vn_result *r)
{
    assert_true(has_warning(r, "shared_core"));
    assert_int_equal(r->left_out & VN_TAG_SHARED_CORE, 0);
    char counts[64];
    snprintf(counts, sizeof counts, "%zu of %zu ", r->nshared, r->nsamples);
    assert_non_null(strstr(warning_text(r, "shared_core"), counts));
}

/* ---- Tests ----------------------------------------------------------------- */

/* body alone as "b" on a suite with the hooks h, exactly n samples. */
static const vn_result *run_hooked(const vn__hooks *h, size_t n, vn_results *r)
{
    vn_suite *s = suite_of(h);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    c.min_samples = c.max_samples = n;
    assert_int_equal(vn__suite_run_here(s, &c, r), 0);
    vn_suite_destroy(s);
    return vn_results_at(r, 0);
}

/* fn alone on the fake machine as it stands, with the configuration c. */
static const vn_result *run_alone_with(vn_results *r, vn_bench_fn fn, const vn_config *c)
{
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "b", fn, NULL), 0);
    assert_int_equal(vn__suite_run_here(s, c, r), 0);
    vn_suite_destroy(s);
    return vn_results_at(r, 0);
}

/* The same with quick_config(). */
static const vn_result *run_alone(vn_results *r, vn_bench_fn fn)
{
    vn_config c = quick_config();
    return run_alone_with(r, fn, &c);
}

/* A timer so costly that 1000 reads' worth (2 s) would not fit the budget:
 * a sample lasts at most the budget's share, max_time over min_samples + 1
 * (one more for calibration), and the row says the timer bounds it. */
static void calibration_stops_at_the_budgets_share(void **state)
{
    (void)state;
    vn_suite *s = fake_row(2e6);
    vn_config c = quick_config();
    c.max_time = 0.11;
    c.min_samples = 10;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    /* The share is 10 ms; at 10 ns an iteration 2^20 take 10.49 ms. */
    assert_int_equal(vn_results_at(&r, 0)->iters, 1 << 20);
    assert_true(has_warning(vn_results_at(&r, 0), "timer_bound"));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* The rule that makes a row an upper bound, case by case: the bottom of the
 * loop-with-body's interval at or below the top of the empty loop's, or a
 * difference under half the empty loop's cost. */
/* The batch calibration settles on for a timer of timer_cost ns, a body of
 * ns_per_iter and a minimum sample time. */
static uint64_t calibrated_iters(double timer_cost, double ns_per_iter, double min_sample_time)
{
    vn_suite *s = fake_row(timer_cost);
    costs[0] = ns_per_iter;
    vn_config c = quick_config();
    c.min_sample_time = min_sample_time;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    uint64_t iters = vn_results_at(&r, 0)->iters;
    vn__results_clear(&r);
    vn_suite_destroy(s);
    return iters;
}

static void calibration_doubles_to_the_threshold(void **state)
{
    (void)state;
    /* 1000 x (20 + 1) ns is below 1 ms, so a sample lasts >= 1 ms: at 10 ns
     * per iteration the first power of two reaching it is 2^17. */
    assert_int_equal(calibrated_iters(20, 10, 1e-3), 131072);
    assert_int_equal(calibrated_iters(20, 10, 1e-4), 16384); /* 163840 ns >= 100 us */
    /* A sample that lasts the threshold exactly is long enough: at
     * 976.5625 ns an iteration, 1024 take 1 ms to the nanosecond. */
    assert_int_equal(calibrated_iters(20, 976.5625, 1e-3), 1024);
    /* An expensive timer: 1000 x (2000 + 1) ns decides, not the 1 us minimum. */
    assert_int_equal(calibrated_iters(2000, 10, 1e-6), 262144);
}

/* Slow for its first cold_calls calls, as a body that touches its memory
 * for the first time: 20 ns an iteration, then 10. */
static unsigned cold_calls, calls_so_far;
/* The largest count run so far and the calls at it (cold_at_a_new_count). */
static uint64_t longest_run, new_count_calls;

/* The fake machine afresh, with a body cold for its first calls. */
static void start_cold(unsigned calls)
{
    reset_fake();
    cold_calls = calls;
    calls_so_far = 0;
    longest_run = new_count_calls = 0;
}

/* Iterations at warm ns each, or 20 while the body is cold. */
static void spend_cold(vn_state *st, uint64_t warm)
{
    uint64_t c = ++calls_so_far <= cold_calls ? 20 : warm;
    while (vn_next(st))
        fake_now += c;
}

static void cold_at_first(vn_state *st) { spend_cold(st, 10); }

static void calibration_needs_a_second_sample_at_the_threshold(void **state)
{
    (void)state;
    /* Calls 1 to 17 run 1 to 2^16 iterations at 20 ns: 2^16 is the first to
     * reach 1 ms, at 1.3 ms. The second call at that size runs at 10 ns,
     * 0.66 ms, short of it, so the size doubles once more. */
    start_cold(17);
    vn_results r;
    const vn_result *b = run_alone(&r, cold_at_first);
    assert_int_equal(b->iters, 131072);
    assert_true(fabs(b->stats.median - 10.0) < 1e-9);
    vn__results_clear(&r);
}

/* Cold for its first cold_calls calls (20 ns an iteration), and for the
 * first two calls of any count larger than it ran before (30 ns), as a
 * walk whose longer samples reach places of its table the shorter ones
 * never touched; 10 ns once warm. */

static void cold_at_a_new_count(vn_state *st)
{
    uint64_t n = vn_state_iterations(st), c = 10;
    if (n > longest_run) {
        longest_run = n;
        new_count_calls = 0;
    }
    if (++new_count_calls <= 2)
        c = 30;
    spend_cold(st, c);
}

/* Calibration, cold, settles on 2^16 (1.3 ms, twice); warm, 2^16 take
 * 0.66 ms, so the samples grow to 2^17 while the warmup runs, and the
 * warmup ends with samples of that count: no timed sample reads the
 * first two at a new count. */
static void the_warmup_ends_at_the_count_timed(void **state)
{
    (void)state;
    start_cold(18);
    vn_config c = quick_config();
    c.warmup = 0.01;
    vn_results r;
    const vn_result *b = run_alone_with(&r, cold_at_a_new_count, &c);
    assert_int_equal(b->iters, 131072);
    assert_true(vn_result_samples(b) >= 10);
    for (size_t i = 0; i < vn_result_samples(b); i++)
        assert_true(fabs(vn_result_sample(b, i)->value - 10.0) < 1e-9);
    vn__results_clear(&r);
}

static void steady_body_stops_at_min_samples(void **state)
{
    (void)state;
    reset_fake();
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "steady", body, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    /* Precise at the first look, 10 samples, and again at the next: the
     * precision must hold at two looks in a row. */
    assert_int_equal(b->nsamples, 11);
    assert_true(fabs(b->stats.median - 10.0) < 1e-9);
    assert_int_equal(b->upper_bound, 0);
    assert_true(fabs(b->cycles - 20.0) < 1e-9); /* 10 ns at 0.5 ns per cycle */
    assert_string_equal(b->name, "steady");
    assert_string_equal(b->unit, "ns");
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* A suite whose row "noisy" costs 8 to 15 ns an iteration in turn, never
 * reaching the precision c asks for (0.001%) within its budget (50 ms). */
static vn_suite *noisy_suite(vn_config *c)
{
    reset_fake();
    ncosts = 7;
    const double c7[] = {10, 13, 9, 15, 11, 8, 14};
    memcpy(costs, c7, sizeof c7);
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "noisy", body, NULL), 0);
    *c = quick_config();
    c->precision = 0.001;
    c->max_time = 0.05;
    return s;
}

static void noisy_body_runs_to_the_budget(void **state)
{
    (void)state;
    vn_config c;
    vn_suite *s = noisy_suite(&c);
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->stop, VN_STOP_MAX_TIME);
    assert_true(b->elapsed >= 0.05);
    /* Samples of ~1.4 ms each (about 11 ns x 131072): the budget of 50 ms
     * holds a few dozen, not hundreds. */
    assert_true(b->nsamples >= 10 && b->nsamples < 50);
    /* The warning gives the budget and the interval it got to; it spent
     * the budget on samples, not waiting for quiet moments. */
    assert_non_null(warning_text(b, "max_time"));
    assert_true(tc_in_order(warning_text(b, "max_time"), "0.05 s", "CI +-", NULL));
    assert_false(b->waited);
    assert_true(has_warning(b, "high_variance"));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void precision_stop_matches_an_independent_check(void **state)
{
    (void)state;
    reset_fake();
    ncosts = 5;
    const double c5[] = {10, 10.02, 9.99, 10.01, 10.03};
    memcpy(costs, c5, sizeof c5);
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    c.precision = 0.1;
    c.min_samples = 10;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    /* The stop must be the first n >= 10 at which the median's CI is within
     * 0.1% at that look and the one before: n and n - 1 meet it, and n - 2
     * (if >= 10) did not, or the stop would have come a sample sooner. */
    for (size_t n = b->nsamples - 2; n <= b->nsamples; n++) {
        if (n < 10)
            continue;
        double v[256];
        for (size_t i = 0; i < n; i++)
            v[i] = b->samples[i].value - b->overhead_ns;
        vn_stats st;
        assert_int_equal(vn_stats_compute(v, n, &st), 0);
        double half = fmax(st.median - st.median_ci[0], st.median_ci[1] - st.median);
        if (n + 2 > b->nsamples)
            assert_true(half <= 0.001 * st.median);
        else
            assert_true(half > 0.001 * st.median);
    }
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void overhead_is_measured_and_subtracted(void **state)
{
    (void)state;
    reset_fake();
    read_cost = 50000; /* each edge costs 50 us: visible in every sample */
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    double per_iter_overhead = 50000.0 / (double)b->iters;
    assert_true(fabs(b->overhead_ns - per_iter_overhead) < 1e-9);
    /* And in reference cycles: 0.5 ns each here. */
    assert_true(fabs(b->overhead_cycles - per_iter_overhead / 0.5) < 1e-9);
    assert_true(fabs(b->samples[0].value - (10.0 + per_iter_overhead)) < 1e-9);
    assert_true(fabs(b->stats.median - 10.0) < 1e-9);
    assert_int_equal(b->upper_bound, 0);
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void a_loop_as_costly_as_the_body_is_flagged(void **state)
{
    (void)state;
    reset_fake();
    /* 600 us of edges and 10 ns per iteration: 2^16 iterations are the
     * first to pass 1 ms, which makes the empty loop 9.2 ns per iteration,
     * 92% of the net time (and still under the half that would make the
     * result a mere bound). */
    read_cost = 600000;
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->iters, 65536);
    assert_true(fabs(b->overhead_ns - 600000.0 / 65536) < 1e-9);
    assert_int_equal(b->upper_bound, 0);
    assert_true(fabs(b->stats.median - 10.0) < 1e-9);
    assert_true(has_warning(b, "overhead_dominates"));
    vn__results_clear(&r);
    /* With a long body the loop is negligible and nothing is said. */
    reset_fake();
    costs[0] = 1000;
    read_cost = 3 * 1024;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_false(has_warning(vn_results_at(&r, 0), "overhead_dominates"));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void empty_body_gives_an_upper_bound(void **state)
{
    (void)state;
    reset_fake();
    /* The edges alone last a sample: one iteration, all of it overhead. */
    costs[0] = 0;
    read_cost = 2000000;
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "nothing", body, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->iters, 1);
    assert_int_equal(b->upper_bound, 1);
    /* Body and empty loop agree exactly; the bound is the loop with the
     * body, which the body cannot exceed. Never negative, never zero. */
    assert_true(fabs(b->bound_ns - b->samples[0].value) < 1e-9); /* all samples are equal */
    assert_true(b->bound_ns >= 2e6);
    /* Its statistics are of the loop with the body too: the net times
     * would be zero here, and noise around zero on a machine. */
    assert_true(fabs(b->stats.median - b->samples[0].value) < 1e-9);
    assert_true(fabs(b->stats.min - b->bound_ns) < 1e-9);
    /* It stopped on precision (of the bound), not at the time budget. */
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    /* In reference cycles too (0.5 ns each here). */
    assert_true(fabs(b->cycles - b->bound_ns / 0.5) < 1e-9);
    assert_true(has_warning(b, "dead_code"));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void tagged_samples_stay_out_of_the_headline(void **state)
{
    (void)state;
    reset_fake();
    tag_every = 4;
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    c.min_samples = 20;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    size_t tagged = 0;
    for (size_t i = 0; i < b->nsamples; i++)
        if (b->samples[i].tags) {
            tagged++;
            assert_true(b->samples[i].value > 1000); /* kept in the raw data */
        }
    assert_true(tagged > 0);
    assert_int_equal(b->ntagged, tagged);
    assert_int_equal(b->stats.n, b->nsamples - tagged);
    assert_true(fabs(b->stats.max - 10.0) < 1e-9);
    assert_true(has_warning(b, "interference"));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* The clock moves between 0.4 and 0.6 ns a cycle; the body's time in ns
 * moves with it (20 cycles: 8 or 12 ns), or does not (10 ns throughout).
 * Only when the body follows the clock are cycles the steadier headline:
 * then the speed_drift warning says so, and the interval is of cycles. */
static void speed_drift_is_reported(void **state)
{
    (void)state;
    for (int follows = 0; follows < 2; follows++) {
        reset_fake();
        ref_value[0] = 0.4;
        ref_value[1] = 0.6;
        ref_by_sample = follows;
        if (follows) {
            ncosts = 2;
            costs[0] = 8;
            costs[1] = 12;
        }
        vn_suite *s = fake_suite(20);
        assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
        vn_config c = quick_config();
        c.min_samples = c.max_samples = 30;
        vn_results r;
        assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
        const vn_result *b = vn_results_at(&r, 0);
        assert_true(b->ref_spread > 0.05);
        assert_int_equal(b->cycles_headline, follows);
        assert_int_equal(has_warning(b, "speed_drift"), follows);
        if (follows)
            assert_true(b->cycles_ci[1] - b->cycles_ci[0] < 0.1 * b->cycles);
        ref_by_sample = 0;
        vn__results_clear(&r);
        vn_suite_destroy(s);
    }
}

/* An empty loop whose cost moves from sample to sample while the reference
 * stays put: what a busy second hardware thread on the core does. While
 * the fake core is shared it costs twice its cost. */
static double empty_costs[2];
static size_t empty_no;

/* When empty_seq_n is set, the empty loop's samples cost empty_seq in
 * order instead, the last one from there on. */
static const double *empty_seq;
static size_t empty_seq_n;

static void fake_empty(vn_state *st)
{
    double base = empty_seq_n ? empty_seq[empty_no < empty_seq_n ? empty_no : empty_seq_n - 1]
                              : empty_costs[empty_no % 2];
    empty_no++;
    double c = base * (shared_now() ? 2 : 1), acc = 0;
    while (vn_next(st)) {
        acc += c;
        if (acc >= 1) {
            fake_now += (uint64_t)acc;
            acc -= (double)(uint64_t)acc;
        }
    }
}

/* A suite on the fake machine with the empty loop above and the taken-
 * branch probe given (NULL: none). */
static vn_suite *suite_probed_by(double (*probe)(void *ctx))
{
    vn__hooks h = fake_hooks(20);
    h.branch_cycles = probe;
    h.cpu_ns = cpu_time;
    h.empty = fake_empty;
    return suite_of(&h);
}

/* The same, with the probe that follows the shared spell when probe is set. */
static vn_suite *probe_suite(int probe) { return suite_probed_by(probe ? branch_probe : NULL); }

static const vn_result *run_with_empty(vn_results *r, double a, double b)
{
    reset_fake();
    empty_costs[0] = a;
    empty_costs[1] = b;
    empty_no = 0;
    vn_suite *s = probe_suite(0);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    c.min_samples = 80; /* 5 + 80 / 8 empty-loop samples: p10 and p90 of both kinds */
    c.max_samples = 80;
    assert_int_equal(vn__suite_run_here(s, &c, r), 0);
    vn_suite_destroy(s);
    return vn_results_at(r, 0);
}

static void a_slow_empty_loop_sample_is_left_out(void **state)
{
    (void)state;
    vn_results r;
    /* 1 and 1.5 ns per iteration, in turn, at 0.5 ns per reference cycle:
     * 2 and 3 cycles. The empty loop is a loop of taken branches itself, so
     * a sample of it 1.5 times its fastest ran on a shared core, even with
     * no probe to say so: the overhead is the quiet one, 1 ns. */
    const vn_result *b = run_with_empty(&r, 1.0, 1.5);
    assert_true(fabs(b->overhead_ns - 1.0) < 1e-9);
    assert_true(fabs(b->overhead_cycles - 2.0) < 1e-9);
    assert_true(fabs(b->overhead_cycles_spread) < 1e-9);
    assert_true(fabs(b->stats.median - 9.0) < 1e-9);
    assert_false(has_warning(b, "speed_drift"));
    vn__results_clear(&r);

    /* The same cost every time. */
    b = run_with_empty(&r, 1.0, 1.0);
    assert_true(fabs(b->overhead_cycles_spread) < 1e-9);
    assert_true(fabs(b->overhead_cycles - 2.0) < 1e-9);
    assert_false(has_warning(b, "shared_core"));
    vn__results_clear(&r);
}

/* How "b" runs on the fake machine: its costs per iteration in turn, the
 * empty loop's, both doubled while the core is shared from from_ms to to_ms
 * after the start (from before it when from_ms < 0; never when both are 0),
 * the branch probe hooked in or not, exactly n samples (0: the default
 * stop), and the time budget (0: the default). */
typedef struct fake_run {
    const double *costs;
    size_t ncosts;
    double empty;
    double from_ms, to_ms;
    int probe;
    size_t n;
    double max_time;
    int asleep;        /* every sample mostly off the CPU */
    double warmup;     /* seconds (0: none) */
    double ref;        /* ns per reference cycle (0: reset_fake()'s 0.5) */
    double empty_alt;  /* every other empty-loop sample costs this (0: empty) */
    double ref_step;   /* the reference reads ref, ref + step, ref + 2 step in turn */
    const char *policy; /* vn_config.policy (NULL: the defaults) */
} fake_run;

static const vn_result *run_on(vn_results *r, fake_run f)
{
    reset_fake();
    asleep = f.asleep;
    ncosts = f.ncosts;
    memcpy(costs, f.costs, f.ncosts * sizeof *costs);
    empty_costs[0] = empty_costs[1] = f.empty;
    if (f.empty_alt > 0)
        empty_costs[1] = f.empty_alt;
    empty_no = 0;
    if (f.ref > 0)
        ref_value[0] = ref_value[1] = ref_value[2] = f.ref;
    if (f.ref_step > 0) {
        ref_value[1] = ref_value[0] + f.ref_step;
        ref_value[2] = ref_value[0] + 2 * f.ref_step;
        nref_values = 3;
    }
    if (f.from_ms || f.to_ms) {
        shared_from = f.from_ms < 0 ? 0 : fake_now + (uint64_t)(f.from_ms * 1e6);
        shared_to = fake_now + (uint64_t)(f.to_ms * 1e6);
    }
    vn_suite *s = probe_suite(f.probe);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    if (f.n)
        c.min_samples = c.max_samples = f.n;
    if (f.max_time > 0)
        c.max_time = f.max_time;
    c.warmup = f.warmup;
    static char pol[256];
    snprintf(pol, sizeof pol, "%s%s%s", SHARED_ON, f.policy ? "," : "", f.policy ? f.policy : "");
    c.policy = pol;
    assert_int_equal(vn__suite_run_here(s, &c, r), 0);
    vn_suite_destroy(s);
    return vn_results_at(r, 0);
}

static const double ten_ns[] = {10};

static void a_shared_core_at_calibration_gives_longer_samples(void **state)
{
    (void)state;
    vn_results r;
    /* Quiet throughout: 10 ns, so 2^17 iterations reach 1 ms. */
    const vn_result *b = run_on(&r, (fake_run){ten_ns, 1, 1.0, 0, 0, 1, 20, 0, 0, 0.02, 0, 0, 0, NULL});
    assert_int_equal(b->iters, 131072);
    vn__results_clear(&r);
    /* Shared through calibration and warmup (20 ns, 2^16 iterations reach
     * 1 ms): the run has seen no faster probe to say the core is shared
     * (the rule calibrates on the run's own fastest probe and assumes no
     * speed of a quiet core), so the samples keep the size calibration
     * found. */
    b = run_on(&r, (fake_run){ten_ns, 1, 1.0, -1, 30, 1, 20, 0, 0, 0.02, 0, 0, 0, NULL});
    assert_int_equal(b->iters, 65536);
    vn__results_clear(&r);
    /* Without the probe, nothing says the core was shared: 2^16 stays. */
    b = run_on(&r, (fake_run){ten_ns, 1, 1.0, -1, 30, 0, 20, 0, 0, 0.02, 0, 0, 0, NULL});
    assert_int_equal(b->iters, 65536);
    vn__results_clear(&r);
}

/* Body 10 ns, empty loop 1 ns, the core shared from `from` to `to` ms. */
static const vn_result *run_shared(vn_results *r, double from_ms, double to_ms, int probe, size_t n)
{
    return run_on(r, (fake_run){ten_ns, 1, 1.0, from_ms, to_ms, probe, n, 0, 0, 0, 0, 0, 0, NULL});
}

static void shared_core_samples_stay_out_of_the_headline(void **state)
{
    (void)state;
    vn_results r;
    /* Shared from 20 to 45 ms: about a third of 60 samples of ~1.3 ms. */
    const vn_result *b = run_shared(&r, 20, 45, 1, 60);
    size_t shared = 0, slow = 0;
    for (size_t i = 0; i < b->nsamples; i++) {
        const vn_sample *x = &b->samples[i];
        assert_true(x->branch_cycles == 1.0 || (x->branch_cycles > 1.5 && x->branch_cycles < 2.5));
        /* Every sample that started on the shared core is tagged (its
         * probe before it), and so is the one running into it (the probe
         * after it): the tag follows the probes on both sides. */
        double after = i + 1 < b->nsamples ? b->samples[i + 1].branch_cycles : 1.0;
        int want = x->branch_cycles > 1.5 || after > 1.5;
        assert_int_equal((x->tags & VN_TAG_SHARED_CORE) != 0, want);
        shared += want;
        if (x->value > 15) {
            slow++;
            assert_true(x->tags & VN_TAG_SHARED_CORE);
        }
    }
    assert_true(slow >= 10 && shared >= slow && shared < b->nsamples / 2);
    assert_int_equal(b->nshared, shared);
    assert_int_equal(b->ntagged, shared);
    assert_int_equal(b->left_out, VN_TAG_PREEMPTED | VN_TAG_MIGRATED | VN_TAG_SHARED_CORE);
    /* The headline and the empty loop are the quiet core's: 10 - 1 ns. */
    assert_int_equal(b->stats.n, b->nsamples - shared);
    assert_true(fabs(b->overhead_ns - 1.0) < 1e-9);
    assert_true(fabs(b->stats.median - 9.0) < 1e-9);
    assert_true(fabs(b->stats.max - 9.0) < 1e-9);
    assert_true(fabs(b->cycles - 18.0) < 1e-9);
    assert_true(has_warning(b, "shared_core"));
    assert_false(has_warning(b, "interference"));
    vn__results_clear(&r);

    /* Shared from before the first sample to 80 ms: no quiet sample shows
     * that sharing slows this body, so the shared samples are the
     * measurement, precise within ten samples (and one more, to see it
     * hold again), and nothing waits for quiet moments that may never come. */
    b = run_shared(&r, -1, 80, 1, 0);
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    assert_int_equal(b->nsamples, 11);
    assert_int_equal(b->nshared, 11);
    assert_int_equal(b->left_out & VN_TAG_SHARED_CORE, 0);
    assert_true(fabs(b->stats.median - 18.0) < 1e-9);
    /* Kept, with too few quiet samples to compare them with. */
    assert_shared_kept(b);
    assert_true(quiet_samples(b) < shared_evidence());
    vn__results_clear(&r);

    /* Without the probe nothing is tagged, and the slow samples stay in. */
    b = run_shared(&r, 20, 45, 0, 60);
    assert_int_equal(b->nshared, 0);
    assert_true(b->stats.max > 15);
    assert_false(has_warning(b, "shared_core"));
    vn__results_clear(&r);
}

/* ---- Each rule of the engine switched off by its policy field ---- */

static void a_bad_policy_fails_before_measuring(void **state)
{
    (void)state;
    const char *bad[] = {"nope=1", "one_cycle=0", "shared_ratio=-1", "min_untagged=x", "shared_ratio"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vn_suite *s = fake_row(20);
        vn_config c = quick_config();
        c.policy = bad[i];
        vn_results r;
        assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
        assert_int_equal(sample_no, 0);
        vn_suite_destroy(s);
    }
}

static void shared_ratio_inf_never_tags_shared(void **state)
{
    (void)state;
    vn_results r;
    const vn_result *b =
        run_on(&r, (fake_run){ten_ns, 1, 1.0, 20, 45, 1, 60, 0, 0, 0, 0, 0, 0, "shared_ratio=inf"});
    assert_int_equal(b->nshared, 0);
    assert_true(b->stats.max > 15);
    vn__results_clear(&r);
    /* A threshold the shared probes (1.6 to 2.4) pass tags as before. */
    b = run_on(&r, (fake_run){ten_ns, 1, 1.0, 20, 45, 1, 60, 0, 0, 0, 0, 0, 0, "shared_ratio=1.5"});
    assert_true(b->nshared >= 10);
    assert_true(fabs(b->stats.max - 9.0) < 1e-9);
    vn__results_clear(&r);
}

static void a_core_shared_throughout_is_said(void **state)
{
    (void)state;
    vn_results r;
    /* Shared from before the start to long after the end: every probe
     * reads 1.6 to 2.4, the slower ones against the faster, and every
     * sample costs the shared core's price; a loop of taken branches never
     * ran a branch a cycle, and the probes spread as a busy sibling's do. */
    const vn_result *b = run_shared(&r, -1, 1e6, 1, 20);
    assert_true(fabs(b->stats.median - 18.0) < 1e-9);
    assert_true(has_warning(b, "shared_core"));
    assert_true(fabs(b->on_cpu - 1.0) < 1e-9);
    vn__results_clear(&r);
    /* The same core, for a benchmark that sleeps nine tenths of each
     * sample: a shared core hardly slows it, no sample is tagged, and
     * nothing is said. */
    b = run_on(&r, (fake_run){ten_ns, 1, 1.0, -1, 1e6, 1, 20, 0, 1, 0, 0, 0, 0, NULL});
    assert_true(fabs(b->on_cpu - 0.1) < 1e-9);
    assert_int_equal(b->nshared, 0);
    assert_false(has_warning(b, "shared_core"));
    vn__results_clear(&r);

    /* Shared from the first few samples on: too few quiet samples are left, so
     * the shared ones make the headline after all, and the warning says
     * so. */
    b = run_shared(&r, 6, 1e6, 1, 40);
    assert_true(b->nshared > b->nsamples - 5);
    assert_int_equal(b->left_out, VN_TAG_PREEMPTED | VN_TAG_MIGRATED);
    assert_int_equal(b->stats.n, b->nsamples);
    assert_true(fabs(b->stats.median - 18.0) < 1e-9);
    assert_shared_kept(b);
    vn__results_clear(&r);
}

/* A benchmark that sleeps through its samples lost little to a shared
 * core: the probes are kept, but nothing is tagged. */
static void samples_off_the_cpu_are_never_tagged(void **state)
{
    (void)state;
    vn_results r;
    const vn_result *b = run_on(&r, (fake_run){ten_ns, 1, 1.0, 20, 45, 1, 60, 0, 1, 0, 0, 0, 0, NULL});
    size_t probed_shared = 0;
    for (size_t i = 0; i < b->nsamples; i++)
        probed_shared += b->samples[i].branch_cycles > 1.5;
    assert_true(probed_shared >= 10);
    assert_int_equal(b->nshared, 0);
    assert_true(fabs(b->stats.max - 19.0) < 1e-9); /* the slow ones stay in */
    vn__results_clear(&r);
}

/* The empty loop's cost per iteration carries the timer's reads spread over
 * a sample's iterations, so a row of few iterations reads its empty loop
 * slower than a row of millions, however quiet: each row judges its own
 * empty loop, and the second row stops by precision rather than waiting
 * for empty-loop samples as fast as the first row's. */
static void param_cost_body(vn_state *st)
{
    double c = (double)vn_state_param(st), acc = 0;
    while (vn_next(st)) {
        acc += c;
        if (acc >= 1) {
            fake_now += (uint64_t)acc;
            acc -= (double)(uint64_t)acc;
        }
    }
}

static void each_row_judges_its_own_empty_loop(void **state)
{
    (void)state;
    reset_fake();
    read_cost = 20;
    empty_costs[0] = empty_costs[1] = 1.0;
    empty_no = 0;
    vn_suite *s = probe_suite(1);
    const int64_t costs2[] = {2, 2000};
    vn_bench_opts o = {0};
    o.param_values = costs2;
    o.param_count = 2;
    assert_int_equal(vn_suite_add(s, "b", param_cost_body, &o), 0);
    vn_config c = quick_config();
    c.max_time = 0.5;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(r.nbench, 2);
    assert_true(vn_results_at(&r, 0)->iters > 100 * vn_results_at(&r, 1)->iters);
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(vn_results_at(&r, k)->stop, VN_STOP_PRECISION);
        assert_true(vn_results_at(&r, k)->nsamples < 40);
    }
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* The core shared from 14 ms on; each quiet sample costs penalty times
 * its cost, a shared one twice; at most 40 samples, precision in %. */
static const vn_result *run_quiet_penalty(vn_results *r, double penalty, double precision)
{
    reset_fake();
    quiet_penalty = penalty;
    empty_costs[0] = empty_costs[1] = 1.0;
    empty_no = 0;
    shared_from = fake_now + 14000000;
    shared_to = UINT64_MAX;
    vn_suite *s = probe_suite(1);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    c.max_samples = 40;
    c.precision = precision;
    assert_int_equal(vn__suite_run_here(s, &c, r), 0);
    vn_suite_destroy(s);
    return vn_results_at(r, 0);
}

/* Quiet samples slower than the shared ones met something else: the
 * headline keeps the shared ones then, and leaves out only preemption and
 * migration. */
static void quiet_samples_slower_than_shared_ones_are_no_quiet_figure(void **state)
{
    (void)state;
    vn_results r;
    const vn_result *b = run_quiet_penalty(&r, 5, 1);
    size_t quiet = 0;
    for (size_t i = 0; i < b->nsamples; i++)
        quiet += !b->samples[i].tags;
    assert_true(quiet >= 5); /* enough to make the headline by their number */
    assert_int_equal(b->left_out, VN_TAG_PREEMPTED | VN_TAG_MIGRATED);
    /* Kept because they ran as fast as the quiet ones, not for want of
     * quiet ones, nor while waiting for more. */
    assert_shared_kept(b);
    assert_true(quiet >= shared_evidence());
    assert_false(b->waited);
    double fastest_quiet = INFINITY, slowest_shared = 0;
    for (size_t i = 0; i < b->nsamples; i++) {
        if (b->samples[i].tags & VN_TAG_SHARED_CORE)
            slowest_shared = fmax(slowest_shared, b->samples[i].value);
        else
            fastest_quiet = fmin(fastest_quiet, b->samples[i].value);
    }
    assert_true(slowest_shared <= fastest_quiet);
    vn__results_clear(&r);
}

/* Shared samples leave the headline only when they run slower than the
 * quiet ones by more than the precision asked for: within it, either set
 * gives the same headline, and waiting for quiet moments would buy
 * nothing. (A shared sample costs twice the body; a quiet one penalty
 * times it.) */
static void shared_samples_leave_only_when_sharing_slows_the_body(void **state)
{
    (void)state;
    vn_results r;
    /* Half the time: left out, and the headline is the quiet one. */
    const vn_result *b = run_quiet_penalty(&r, 1, 1);
    assert_int_equal(b->left_out, VN_TAG_PREEMPTED | VN_TAG_MIGRATED | VN_TAG_SHARED_CORE);
    assert_true(fabs(b->stats.median + b->overhead_ns - 10) < 1e-3);
    vn__results_clear(&r);
    /* 0.25% slower than the quiet ones, for 1% asked: kept. */
    b = run_quiet_penalty(&r, 1.995, 1);
    assert_int_equal(b->left_out, VN_TAG_PREEMPTED | VN_TAG_MIGRATED);
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    vn__results_clear(&r);
    /* The same for 0.2% asked: past it, left out. */
    b = run_quiet_penalty(&r, 1.995, 0.2);
    assert_int_equal(b->left_out, VN_TAG_PREEMPTED | VN_TAG_MIGRATED | VN_TAG_SHARED_CORE);
    vn__results_clear(&r);
}

/* A timer whose read costs more than 2% of a probe cannot tell a shared
 * core from its own cost: no probe is kept, and nothing is tagged. */
static void a_costly_timer_takes_no_probes(void **state)
{
    (void)state;
    vn_results r;
    reset_fake();
    empty_costs[0] = empty_costs[1] = 1.0;
    empty_no = 0;
    shared_from = fake_now + 10000000;
    shared_to = fake_now + 30000000;
    vn__hooks h = fake_hooks(100); /* 2% of 8000 branches at 0.5 ns a cycle is 80 */
    h.branch_cycles = branch_probe;
    h.empty = fake_empty;
    const vn_result *b = run_hooked(&h, 40, &r);
    for (size_t i = 0; i < b->nsamples; i++)
        assert_true(isnan(b->samples[i].branch_cycles));
    assert_int_equal(b->nshared, 0);
    vn__results_clear(&r);
}

/* A bound stops once its fastest sample is reproduced, but only on a core
 * seen quiet: costs of 1.0 to 1.9 ns next to an empty loop of 1.2 ns can
 * never give a median within 1%, yet every fourth sample is 1.0. With a
 * cycle of 0.2 ns the body is not known to add under one (the interval of
 * its median reaches 1.6 ns, 0.4 ns over the empty loop), so the bound is
 * that fastest sample. */
static const vn_result *run_bound(vn_results *r, int shared)
{
    const double c4[] = {1.0, 1.3, 1.6, 1.9};
    return run_on(r, (fake_run){c4, 4, 1.2, shared ? -1 : 0, shared ? 1e9 : 0, 1, 0, 0.1, 0, 0, 0.2, 0, 0, NULL});
}

static void a_bound_stops_when_its_fastest_sample_is_reproduced(void **state)
{
    (void)state;
    vn_results r;
    const vn_result *b = run_bound(&r, 0);
    assert_int_equal(b->upper_bound, 1);
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    assert_true(fabs(b->bound_ns - 1.0) < 1e-9);
    assert_true(fabs(b->cycles - 1.0 / 0.2) < 1e-9);
    size_t fastest = 0;
    for (size_t i = 0; i < b->nsamples; i++)
        fastest += b->samples[i].value <= 1.0 + 1e-9;
    assert_int_equal(fastest, 5);
    vn__results_clear(&r);

    /* A core shared throughout: no quiet sample shows that the sharing
     * slows this body, so the bound of its samples stops as soon as it is
     * reproduced, with no wait for quiet moments. */
    b = run_bound(&r, 1);
    assert_int_equal(b->upper_bound, 1);
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    assert_false(b->waited);
    assert_false(has_warning(b, "max_time"));
    vn__results_clear(&r);
}

/* A body that costs what the empty loop does (1 ns a loop quiet, 2 ns on
 * a core shared the whole time): the headline is the fastest sample, an
 * upper bound that is as repeatable as the machine, whatever a reference
 * cycle reads; with no quiet sample to compare, a shared core does not
 * make it wait for quiet moments. */
static void a_body_as_cheap_as_the_loop_is_bounded_by_its_fastest_sample(void **state)
{
    (void)state;
    for (int shared = 0; shared < 2; shared++) {
        vn_results r;
        const double one[] = {1.0};
        const vn_result *b = run_on(&r, (fake_run){one, 1, 1.0, shared ? -1 : 0, shared ? 1e9 : 0,
                                                   1, 0, 0.1, 0, 0, 0, 0, 0, NULL});
        assert_int_equal(b->upper_bound, 1);
        assert_true(fabs(b->bound_ns - (shared ? 2.0 : 1.0)) < 1e-5);
        assert_true(fabs(b->overhead_ns - (shared ? 2.0 : 1.0)) < 0.01);
        assert_int_equal(b->stop, VN_STOP_PRECISION);
        assert_false(b->waited);
        /* The warning gives the bound: the loop with the body at its fastest. */
        char bound[32];
        assert_non_null(strstr(warning_text(b, "dead_code"), vn__fmt_ns(bound, sizeof bound, b->bound_ns)));
        if (shared) {
            assert_shared_kept(b);
            assert_true(quiet_samples(b) < shared_evidence());
        }
        assert_false(has_warning(b, "max_time"));
        vn__results_clear(&r);
    }
}

/* The empty loop ran quiet (as fast as its fastest) three times, then
 * always slower, as if shared. The quiet samples of the body are matched
 * with the quiet empty-loop samples only when there are empty_matched (5)
 * of them: with three, the empty loop subtracted is all its samples';
 * with empty_matched=3, the three quiet ones. Neither waits for more. */
static void the_empty_loop_of_the_kind_needs_empty_matched_samples(void **state)
{
    (void)state;
    static const double seq[] = {1.0, 1.0, 1.0, 1.5};
    for (int three = 0; three < 2; three++) {
        empty_seq = seq;
        empty_seq_n = 4;
        vn_results r;
        /* Ten samples exactly: an empty loop this unsure (1.0 or 1.5) leaves
         * the net time short of the precision, as it should. */
        const vn_result *b = run_on(&r, (fake_run){(const double[]){3.0}, 1, 1.0, 0, 0, 1, 10, 0.1, 0,
                                                   0, 0, 0, 0, three ? "empty_matched=3" : NULL});
        empty_seq_n = 0;
        assert_int_equal(b->upper_bound, 0);
        /* Ten samples take six empty-loop ones (five first, one in eight):
         * three at 1.0 and three at 1.5, a median of 1.25 from all. */
        assert_true(fabs(b->overhead_ns - (three ? 1.0 : 1.25)) < 1e-5);
        assert_false(b->waited);
        vn__results_clear(&r);
    }
}

/* One probe, the spike-th, reads the core shared; the others quiet. It
 * records which row's sample ran last before it, whether it is the first
 * probe since, and which row's sample ran next. */
static long spike, probes_so_far, probes_since_sample;
static int last_row = -1, row_before_spike, row_after_spike, spike_first;
static size_t samples_of[2], sample_before_spike;

static double spike_probe(void *ctx)
{
    (void)ctx;
    probes_since_sample++;
    if (++probes_so_far != spike)
        return 1.0;
    row_before_spike = last_row;
    sample_before_spike = last_row >= 0 ? samples_of[last_row] : 0;
    spike_first = probes_since_sample == 1;
    return 3.0;
}

static void row_body(vn_state *st, int row)
{
    if (probes_so_far >= spike && row_after_spike < 0)
        row_after_spike = row;
    last_row = row;
    samples_of[row]++;
    probes_since_sample = 0;
    while (vn_next(st))
        fake_now += 10;
}
static void row_zero(vn_state *st) { row_body(st, 0); }
static void row_one(vn_state *st) { row_body(st, 1); }

static void the_probe_after_a_sample_is_the_next_one_whichever_row_takes_it(void **state)
{
    (void)state;
    /* For each of a run of probes in turn: the sample that ran last before
     * it, of either row, has it as its probe after when it is the first
     * probe since, and is tagged. */
    int other_row = 0;
    for (spike = 40; spike < 70; spike++) {
        reset_fake();
        probes_so_far = 0;
        last_row = row_after_spike = row_before_spike = -1;
        probes_since_sample = 0;
        empty_costs[0] = empty_costs[1] = 1.0;
        empty_no = 0;
        vn_suite *s = suite_probed_by(spike_probe);
        assert_int_equal(vn_suite_add(s, "zero", row_zero, NULL), 0);
        assert_int_equal(vn_suite_add(s, "one", row_one, NULL), 0);
        vn_config c = quick_config();
        c.min_samples = c.max_samples = 30;
        c.interleave = 1;
        samples_of[0] = samples_of[1] = 0;
        vn_results r;
        assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
        vn_suite_destroy(s);
        assert_true(row_before_spike >= 0);
        /* The calibration samples came first; the sample before the spike
         * is the row's (count - calibration count)-th of the run. */
        const vn_result *b = vn_results_at(&r, row_before_spike);
        size_t calib = samples_of[row_before_spike] - b->nsamples;
        if (spike_first && sample_before_spike > calib) {
            const vn_sample *v = &b->samples[sample_before_spike - calib - 1];
            assert_true(v->tags & VN_TAG_SHARED_CORE);
            /* Taken in the other row's turn: a probe after kept per row would
             * have been the row's own next one, quiet. */
            other_row += row_after_spike >= 0 && row_after_spike != row_before_spike;
        }
        vn__results_clear(&r);
    }
    assert_true(other_row > 0);
}

/* What is left of a loop the compiler removed: however many iterations
 * are asked for, the sample takes the same time. */
static uint64_t flat_most;

static void flat(vn_state *st)
{
    if (vn_state_iterations(st) > flat_most)
        flat_most = vn_state_iterations(st);
    fake_now += 20;
    while (vn_next(st)) {
    }
}

/* Half a millisecond in each sample whatever its iterations, then 0.1 ns
 * an iteration: the iterations run, though the fixed cost hides them at
 * first. */
static void fixed_then_fast(vn_state *st)
{
    fake_now += 500000;
    double acc = 0;
    while (vn_next(st)) {
        acc += 0.1;
        if (acc >= 1) {
            fake_now += 1;
            acc -= 1;
        }
    }
}

/* What the same removed loop reads with a timer too coarse to see it. */
static void flat_unseen(vn_state *st)
{
    if (vn_state_iterations(st) > flat_most)
        flat_most = vn_state_iterations(st);
    while (vn_next(st)) {
    }
}

/* 100 iterations a nanosecond, and the first sample of 2^14 iterations
 * interrupted for a millisecond. */
static int fast_interrupted_once;

static void fast_interrupted(vn_state *st)
{
    if (vn_state_iterations(st) == (uint64_t)1 << 14 && !fast_interrupted_once++)
        fake_now += 1000000;
    double acc = 0;
    while (vn_next(st)) {
        acc += 0.01;
        if (acc >= 1) {
            fake_now += 1;
            acc -= 1;
        }
    }
}

static void a_loop_that_does_not_run_fails(void **state)
{
    (void)state;
    reset_fake();
    flat_most = 0;
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "flat", flat, NULL), 0);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    ncosts = 1;
    costs[0] = 10;
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    /* Calibration stops at 2^24 iterations, not 2^40 (where the empty
     * loop would take minutes a sample), and the row says why it failed. */
    assert_int_equal(flat_most, (uint64_t)1 << 24);
    assert_int_equal(vn_results_at(&r, 0)->stop, VN_STOP_FAILED);
    /* The two sizes that took the same time, and what keeps a loop's
     * iterations from being removed. */
    assert_true(tc_in_order(vn_results_at(&r, 0)->error, "16777216", "20.0 ns", "16384", "20.0 ns",
                            "vn_keep()", NULL));
    /* A loop whose iterations run is measured as before. */
    assert_int_not_equal(vn_results_at(&r, 1)->stop, VN_STOP_FAILED);
    assert_true(fabs(vn_results_at(&r, 1)->stats.median - 10.0) < 1e-9);
    vn__results_clear(&r);
    vn_suite_destroy(s);
    /* A fixed cost in each sample is not taken for iterations that do not
     * run: 2^23 iterations (0.84 ms of them) reach the 1 ms threshold. */
    reset_fake();
    s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "fixed", fixed_then_fast, NULL), 0);
    c.max_time = 0.1;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_not_equal(vn_results_at(&r, 0)->stop, VN_STOP_FAILED);
    assert_int_equal(vn_results_at(&r, 0)->iters, (uint64_t)1 << 23);
    vn__results_clear(&r);
    vn_suite_destroy(s);
    /* An interrupted sample of 2^14 iterations makes 2^24 of a very fast
     * loop look no slower than it: the fastest of three of each decides. */
    reset_fake();
    fast_interrupted_once = 0;
    s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "fast", fast_interrupted, NULL), 0);
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    /* The first sample of 2^14 (1 ms: the threshold, so taken again), then
     * two more at the check. */
    assert_int_equal(fast_interrupted_once, 2 + 2);
    assert_int_not_equal(vn_results_at(&r, 0)->stop, VN_STOP_FAILED);
    vn__results_clear(&r);
    vn_suite_destroy(s);
    /* A timer that never moves sees no difference between the sizes: then
     * a thousand iterations for each ns of the 1 ms threshold (2^30) that
     * still fall short of it do not run either. */
    reset_fake();
    flat_most = 0;
    s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "unseen", flat_unseen, NULL), 0);
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(vn_results_at(&r, 0)->stop, VN_STOP_FAILED);
    assert_true(tc_in_order(vn_results_at(&r, 0)->error, "1073741824", "vn_keep()", NULL));
    assert_int_equal(flat_most, (uint64_t)1 << 30);
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void too_few_headline_samples_for_an_interval_say_so(void **state)
{
    (void)state;
    reset_fake();
    tag_every = 2; /* every other sample preempted, and left out */
    ncosts = 1;
    costs[0] = 10;
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    c.min_samples = c.max_samples = 10;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    size_t used = 0;
    for (size_t i = 0; i < b->nsamples; i++)
        used += !(b->samples[i].tags & b->left_out);
    /* Five samples are left: no interval of order statistics reaches 95%,
     * so the stop rule cannot be met, and the warning says why rather than
     * quoting the [min, max] interval as if it were one. */
    assert_int_equal(used, 5);
    assert_int_equal(b->stop, VN_STOP_MAX_SAMPLES);
    const char *why = warning_text(b, "max_samples");
    assert_non_null(why);
    assert_true(tc_in_order(why, " 5 ", "95%", NULL));
    assert_null(strstr(why, "+-"));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static unsigned preempted(void *ctx)
{
    (void)ctx;
    return VN_TAG_PREEMPTED;
}

/* Every sample preempted, the empty loop's too: those are dropped, so the
 * loop's overhead is unknown, reported as NaN (null, '-'), not as 0 with an
 * interval of [0, 0]; the headline is the time of the loop with the body. */
static void no_empty_loop_sample_kept_leaves_the_overhead_unknown(void **state)
{
    (void)state;
    reset_fake();
    tag_every = 1;
    vn__hooks h = fake_hooks(20);
    h.sample_tags = tags;
    h.empty_tags = preempted;
    vn_results r;
    const vn_result *b = run_hooked(&h, 10, &r);
    assert_int_equal(b->nsamples, 10);
    assert_true(isnan(b->overhead_ns) && isnan(b->overhead_ci[0]) && isnan(b->overhead_ci[1]));
    assert_true(b->stats.median > 9000 && b->stats.median < 11000); /* 10 ns x 1000, gross */
    vn__results_clear(&r);
}

/* A row stopped at a limit whose headline meets the precision all the same
 * (thread 0 decides for --threads on its own samples; the headline takes
 * every thread's): stopped for precision, with no warning. */
static void a_headline_precise_at_a_limit_stopped_for_precision(void **state)
{
    (void)state;
    vn_config c = quick_config();
    vn_sample v[10];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 10; i++) {
        v[i].value = 10;
        v[i].iters = 1000;
        v[i].branch_cycles = NAN;
    }
    for (int waited = 0; waited <= 1; waited++) {
        vn_result r;
        memset(&r, 0, sizeof r);
        r.samples = v;
        r.nsamples = 10;
        r.stop = VN_STOP_MAX_SAMPLES;
        r.waited = waited;
        assert_int_equal(vn_stats_compute((const double[]){10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, 10,
                                          &r.stats), 0);
        vn__policy pol;
        assert_int_equal(vn__policy_init(&pol, &c), 0);
        vn__row_view rv = {.v = v, .n = 10};
        vn__decision d;
        assert_int_equal(vn__decide(&rv, &pol, &d), 0);
        vn__row_decision rd = {.k = 1};
        vn__result_warnings(&r, &c, &pol, 1, &d, &rd);
        /* The decision that stopped the row is final: the warning says why
         * it stopped, whether it waited for quiet moments or not. */
        assert_int_equal(r.stop, VN_STOP_MAX_SAMPLES);
        assert_int_equal(has_warning(&r, "max_samples"), 1);
    }
}

/* Two processes of five on a shared core, kept as the two groups read
 * the body alike (states_alike 1) or could not be told apart (2): the
 * shared_core finding says which, in its brief and its message. */
static void processes_kept_on_a_shared_core_say_why(void **state)
{
    (void)state;
    vn_config c = quick_config();
    vn__policy pol;
    assert_int_equal(vn__policy_init(&pol, &c), 0);
    const char *briefs[] = {"2/5 processes on a shared core, read alike: headline on all",
                            "2/5 processes on a shared core, not told apart: headline on all"};
    const char *says[] = {"medians within the precision", "could not be told apart"};
    for (int how = 1; how <= 2; how++) {
        vn_process_result pr[5];
        memset(pr, 0, sizeof pr);
        for (int i = 0; i < 5; i++) {
            pr[i].probe = i < 2 ? 1.8 : 1.0;
            pr[i].shared = i < 2;
        }
        vn_result r;
        memset(&r, 0, sizeof r);
        assert_int_equal(vn_stats_compute((const double[]){10, 11, 12, 10, 11}, 5, &r.stats), 0);
        r.processes = pr;
        r.nprocesses = 5;
        r.states_alike = how;
        r.stop = VN_STOP_PRECISION;
        vn__row_decision rd = {.k = 5, .kept = 5, .half_pct = 0.5, .ns = {10, 9.95, 10.05}};
        vn__decision d;
        memset(&d, 0, sizeof d);
        vn__result_warnings(&r, &c, &pol, 1, &d, &rd);
        const vn_bench_warning *w = warning_of(&r, "shared_core");
        assert_non_null(w);
        assert_string_equal(w->brief, briefs[how - 1]);
        assert_non_null(strstr(w->message, says[how - 1]));
        assert_null(strstr(w->message, says[2 - how]));
    }
}

/* A row that ran the most processes before its interval was within the
 * precision says how far it got and how many processes the precision
 * would take at their spread, in one short line, its numbers first; with
 * no count known, or one no more than the processes it had (a row held
 * back by its fewest samples), it says only how far it got. */
static void the_most_processes_say_how_many_would_do(void **state)
{
    (void)state;
    vn_config c = quick_config();
    vn__policy pol;
    assert_int_equal(vn__policy_init(&pol, &c), 0);
    const double needs[] = {289, 4e7, NAN, 19};
    const char *briefs[] = {"est. +-3.9%, needs ~289 processes; +-1% asked",
                            "est. +-3.9%, needs over a million processes; +-1% asked",
                            "est. +-3.9%, +-1% asked; most processes run first",
                            "est. +-3.9%, +-1% asked; most processes run first"};
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++) {
        for (int waited = 0; waited <= 1; waited++) {
            vn_result r;
            memset(&r, 0, sizeof r);
            assert_int_equal(vn_stats_compute((const double[]){10, 11, 12, 10, 11, 12}, 6, &r.stats), 0);
            r.stop = VN_STOP_MAX_PROCESSES;
            r.waited = waited;
            vn__row_decision rd = {.k = 20, .kept = 19, .half_pct = 3.9, .need = needs[i],
                                   .ns = {10, 9.6, 10.4}};
            vn__decision d;
            memset(&d, 0, sizeof d);
            vn__result_warnings(&r, &c, &pol, 1, &d, &rd);
            const vn_bench_warning *w = warning_of(&r, "max_processes");
            assert_non_null(w);
            assert_int_equal(warnings_of(&r, "max_processes"), 1);
            if (i < 2) {
                assert_string_equal(w->brief, briefs[i]);
                assert_non_null(strstr(w->message, waited ? "all 20 processes ran (waiting for "
                                                          : "all 20 processes ran before the"));
                assert_non_null(strstr(w->message, "CI over 19 of them is +-3.9%"));
            } else if (!waited) {
                assert_string_equal(w->brief, briefs[i]);
            }
        }
    }
    /* A low quantile whose interval is over twice the median's: the
     * median's is given, with the switch; at half or more, it is not. */
    const double medians[] = {1.2, 2};
    for (size_t i = 0; i < 2; i++) {
        vn_result r;
        memset(&r, 0, sizeof r);
        assert_int_equal(vn_stats_compute((const double[]){10, 11, 12, 10, 11, 12}, 6, &r.stats), 0);
        r.stop = VN_STOP_MAX_PROCESSES;
        vn__row_decision rd = {.k = 20, .kept = 20, .half_pct = 3.9, .need = 289,
                               .median_half_pct = medians[i], .ns = {10, 9.6, 10.4}};
        vn__decision d;
        memset(&d, 0, sizeof d);
        vn__result_warnings(&r, &c, &pol, 1, &d, &rd);
        const vn_bench_warning *w = warning_of(&r, "max_processes");
        assert_non_null(w);
        if (i == 0) {
            assert_string_equal(w->brief, "est. +-3.9%, needs ~289 processes; +-1% asked; "
                                          "median +-1.2%");
            assert_non_null(strstr(w->message, "~289 processes; their median's is +-1.2% "
                                               "(--policy head_low=50)"));
        } else {
            assert_string_equal(w->brief, briefs[0]);
            assert_null(strstr(w->message, "median"));
        }
    }
}

/* A row stopped on its precision over four processes of value 10, their
 * probes as given and nothing else set: r's processes are q. */
static void four_processes(vn_result *r, vn_process_result q[4], const double probe[4])
{
    memset(r, 0, sizeof *r);
    memset(q, 0, 4 * sizeof *q);
    for (int k = 0; k < 4; k++) {
        q[k].value = 10;
        q[k].probe = probe[k];
    }
    assert_int_equal(vn_stats_compute((const double[]){10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, 10,
                                      &r->stats), 0);
    r->stop = VN_STOP_PRECISION;
    r->processes = q;
    r->nprocesses = 4;
}

/* r's warnings under pol, and its warning id (NULL: none). */
static const vn_bench_warning *warned(vn_result *r, const vn_config *c, const vn__policy *pol,
                                      const char *id)
{
    vn__row_decision rd = {.k = r->nprocesses};
    vn__decision d;
    memset(&d, 0, sizeof d);
    vn__result_warnings(r, c, pol, 1, &d, &rd);
    return warning_of(r, id);
}

/* Processes on a shared core and on a core of their own: left out when
 * two or more had their own, kept (and said so) when one alone had, the
 * headline when none had, or when too few had for theirs (case 3: one of
 * four left out, vn__decide_row's shared_most). */
static void processes_on_a_shared_core_are_named(void **state)
{
    (void)state;
    vn_config c = quick_config();
    vn__policy pol;
    assert_int_equal(vn__policy_init(&pol, &c), 0);
    for (int cs = 0; cs <= 3; cs++) {
        int own = cs == 3 ? 1 : cs;
        vn_result r;
        vn_process_result q[4];
        double probes[4];
        for (int k = 0; k < 4; k++)
            probes[k] = k < own ? 1.0 : 1.8;
        four_processes(&r, q, probes);
        for (int k = 0; k < 4; k++) {
            q[k].shared = k >= own;
            q[k].left_out = (own == 2 && k >= own) || (cs == 3 && k < own);
        }
        r.processes_left_out = own == 2 ? 2 : cs == 3 ? 1 : 0;
        r.on_shared = own == 0 || cs == 3;
        pol.alone_probe = 1.3; /* all four over it when none had a core of its own */
        const vn_bench_warning *w = warned(&r, &c, &pol, "shared_core");
        assert_non_null(w);
        assert_int_equal(warnings_of(&r, "shared_core"), 1); /* one finding, not two */
        const char *want[] = {"4/4 processes on a shared core: its headline",
                              "3/4 processes on a shared core, kept: one alone has no interval",
                              "2/4 processes on a shared core, left out; interval reaches them",
                              "3/4 processes on a shared core: its headline; interval reaches the others"};
        assert_string_equal(w->brief, want[cs]);
        if (cs != 2)
            continue;
        /* Left out too far off for the interval (policy reach_within):
         * named with their ratio; reached, as before. */
        for (int reached = 0; reached < 2; reached++) {
            r.nwarnings = 0;
            r.other_state = 1.71, r.other_reached = reached;
            w = warned(&r, &c, &pol, "shared_core");
            assert_non_null(w);
            assert_true((strcmp(w->brief, want[2]) == 0) == reached);
            assert_true((strstr(w->brief, "1.71x") == NULL) == reached);
            assert_true((strstr(w->message, "1.71x") == NULL) == reached);
            assert_true((strstr(w->message, "reach_within=0") == NULL) == reached);
        }
    }
}

/* A run that met both core states promises its next run's headline in
 * either: the interval reaches the headline's quartile of the processes
 * left out for the other state, in ns and in cycles, whichever state the
 * headline rests on; kept processes, processes with no headline of their
 * own (NAN, as the engine gives them), upper bounds, and a run with none
 * left out leave it as it was. */
static void the_interval_reaches_the_other_state(void **state)
{
    (void)state;
    const double ns[6] = {100, 100, 100, 150, 160, 170}, cyc[6] = {200, 200, 200, 300, 320, 340};
    for (int on_shared = 0; on_shared < 2; on_shared++)
        for (int none = 0; none < 2; none++) {
            vn_result r;
            vn_process_result q[7];
            memset(&r, 0, sizeof r);
            memset(q, 0, sizeof q);
            for (int k = 0; k < 6; k++) {
                /* The headline's state first: own at 100, shared at 150+. */
                int other = k >= 3;
                q[k].value = on_shared ? 250 - ns[k] : ns[k];
                q[k].cycles = on_shared ? 500 - cyc[k] : cyc[k];
                q[k].shared = on_shared ? !other : other;
                q[k].left_out = other && !none;
            }
            q[5].value = q[5].cycles = NAN; /* left out with no value of its own */
            q[6] = q[4];                    /* an upper bound, far off */
            q[6].value *= 0.01, q[6].cycles *= 0.01, q[6].upper_bound = 1;
            r.processes = q;
            r.nprocesses = 7;
            r.on_shared = on_shared;
            double h = on_shared ? 150 : 100, hc = on_shared ? 300 : 200;
            r.stats.median_ci[0] = h - 1, r.stats.median_ci[1] = h + 1;
            r.cycles_ci[0] = hc - 2, r.cycles_ci[1] = hc + 2;
            assert_int_equal(vn__reach_other_state(&r, 0.25, NAN, 0), 0);
            if (none) {
                assert_true(r.stats.median_ci[0] == h - 1 && r.stats.median_ci[1] == h + 1);
                assert_true(r.cycles_ci[0] == hc - 2 && r.cycles_ci[1] == hc + 2);
            } else if (!on_shared) { /* the quartile of 150 and 160: 152.5 */
                assert_true(r.stats.median_ci[0] == 99 && fabs(r.stats.median_ci[1] - 152.5) < 1e-9);
                assert_true(r.cycles_ci[0] == 198 && fabs(r.cycles_ci[1] - 305) < 1e-9);
            } else { /* own ones at 100 and 90 below a shared headline: 92.5 */
                assert_true(fabs(r.stats.median_ci[0] - 92.5) < 1e-9 && r.stats.median_ci[1] == 151);
                assert_true(fabs(r.cycles_ci[0] - 185) < 1e-9 && r.cycles_ci[1] == 302);
            }
            /* Cycles moved to the clock's rate (vn__at_clock): the others'
             * ns at that rate, 152.5 x 3, not their cycles as read. */
            if (!none && !on_shared) {
                r.cycles_ci[0] = hc - 2, r.cycles_ci[1] = hc + 2;
                assert_int_equal(vn__reach_other_state(&r, 0.25, 3, 0), 0);
                assert_true(r.cycles_ci[0] == 198 && fabs(r.cycles_ci[1] - 457.5) < 1e-9);
            }
            /* Within a ratio of the headline (policy reach_within): the
             * others at 1.525x of an own headline of 100 are named and
             * not reached under 1.5, reached at 1.6; a shared headline
             * reaches its own ones (0.62x) whatever the ratio. */
            r.stats.median = h, r.cycles = hc;
            for (int within = 15; within <= 16; within++) {
                r.stats.median_ci[0] = h - 1, r.stats.median_ci[1] = h + 1;
                r.cycles_ci[0] = hc - 2, r.cycles_ci[1] = hc + 2;
                assert_int_equal(vn__reach_other_state(&r, 0.25, NAN, within / 10.0), 0);
                int reached = !none && (on_shared || within == 16);
                assert_int_equal(r.other_reached, reached);
                if (none) {
                    assert_true(isnan(r.other_state));
                    continue;
                }
                assert_true(fabs(r.other_state - (on_shared ? 92.5 / 150 : 1.525)) < 1e-9);
                assert_true(r.stats.median_ci[1] == (reached && !on_shared ? 152.5 : h + 1));
                assert_true(fabs(r.cycles_ci[1] - (reached && !on_shared ? 305 : hc + 2)) < 1e-9);
                assert_true(fabs(r.stats.median_ci[0] - (reached && on_shared ? 92.5 : h - 1)) <
                            1e-9);
            }
        }
}

/* A row every process of which read the probe over the level a core of
 * its own reads, none told apart as shared: the core was shared through
 * the run, and shared_core says so, once; one process under the level, or
 * the level off, and it is silent, as it is where no process has a probe.
 * Where the samples' own tags speak (over a tenth of them, or kept), they
 * say it instead; a few tagged and left out, and the row's is said. */
static void a_core_shared_through_the_run_is_named(void **state)
{
    (void)state;
    vn_config c = quick_config();
    vn__policy pol;
    assert_int_equal(vn__policy_init(&pol, &c), 0);
    const double probes[][4] = {{1.8, 1.9, 1.85, 1.8}, {1.0, 1.9, 1.85, 1.8},
                                {NAN, NAN, NAN, NAN}, {1.8, NAN, 1.8, 1.8}};
    const double levels[] = {1.3, NAN, INFINITY};
    const char *who[] = {"all 4 of its processes read the taken-branch probe at 1.80 to 1.90 cycles",
                         NULL, NULL,
                         "all 3 of its 4 processes with a probe read the taken-branch probe at 1.80 cycles"};
    for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++)
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            vn_result r;
            vn_process_result q[4];
            four_processes(&r, q, probes[k]);
            pol.alone_probe = levels[l];
            /* As vn__decide_row decides it (test_decide.c
             * a_core_shared_through_the_run_is_decided). */
            r.on_shared = l == 0 && who[k] != NULL;
            const vn_bench_warning *w = warned(&r, &c, &pol, "shared_core");
            if (l != 0 || !who[k]) {
                assert_null(w);
                continue;
            }
            assert_non_null(w);
            assert_int_equal(warnings_of(&r, "shared_core"), 1);
            assert_string_equal(w->brief, "probe 1.80 cycles a branch: core shared through the run");
            assert_non_null(strstr(w->message, who[k]));
        }
    /* One middle reading under the level, the rest over it (decided shared
     * when under fewer than the headline's quantile, test_decide.c
     * most_processes_shared_is_a_shared_core): the finding counts those
     * over it and says most of the run. */
    {
        vn_result r;
        vn_process_result q[4];
        const double mixed[4] = {1.21, 1.8, 1.85, 1.9};
        four_processes(&r, q, mixed);
        pol.alone_probe = 1.3;
        r.on_shared = 1;
        const vn_bench_warning *w = warned(&r, &c, &pol, "shared_core");
        assert_non_null(w);
        assert_int_equal(warnings_of(&r, "shared_core"), 1);
        /* The three over the level, 1.80 to 1.90, not the one under it;
         * and a brief other than a row shared throughout gets. */
        assert_non_null(strstr(w->message, "3 of"));
        assert_non_null(strstr(w->message, "1.80 to 1.90"));
        assert_null(strstr(w->message, "1.21"));
        char most[sizeof w->brief];
        snprintf(most, sizeof most, "%s", w->brief);
        vn_result all;
        vn_process_result qa[4];
        four_processes(&all, qa, probes[0]);
        all.on_shared = 1;
        const vn_bench_warning *wa = warned(&all, &c, &pol, "shared_core");
        assert_non_null(wa);
        assert_true(strcmp(most, wa->brief) != 0);
    }
    /* The samples' tags: 20 of 100 left out speak; 5 of 100 left out do
     * not, and the row's finding does; 5 kept speak. */
    const size_t tagged[] = {20, 5, 5};
    const unsigned left[] = {VN_TAG_SHARED_CORE, VN_TAG_SHARED_CORE, 0};
    for (size_t t = 0; t < 3; t++) {
        vn_result r;
        vn_process_result q[4];
        vn_sample smp[100];
        memset(smp, 0, sizeof smp);
        for (size_t i = 0; i < 100; i++) {
            smp[i].value = 10;
            smp[i].tags = i < tagged[t] ? VN_TAG_SHARED_CORE : 0;
        }
        four_processes(&r, q, probes[0]);
        r.on_shared = 1;
        r.samples = smp;
        r.nsamples = 100;
        r.nshared = tagged[t];
        r.left_out = left[t];
        pol.alone_probe = 1.3;
        const vn_bench_warning *w = warned(&r, &c, &pol, "shared_core");
        assert_non_null(w);
        assert_int_equal(warnings_of(&r, "shared_core"), 1);
        assert_int_equal(strstr(w->brief, "samples") != NULL, t != 1);
    }
}

static void a_warning_too_long_is_cut_at_a_word(void **state)
{
    (void)state;
    vn_result r;
    memset(&r, 0, sizeof r);
    char word[] = "abcdefghi ";
    char longer[1000] = "";
    for (int i = 0; i < 90; i++)
        strcat(longer, word);
    vn__result_warn(&r, "x", "%s", longer);
    const char *m = r.warnings[0].message;
    size_t n = strlen(m);
    assert_true(n < sizeof r.warnings[0].message);
    assert_string_equal(m + n - 4, " ...");
    assert_string_equal(m + n - 13, "abcdefghi ..."); /* a whole word before it */
    vn__result_warn(&r, "y", "short");
    assert_string_equal(r.warnings[1].message, "short");
    /* A space at every place near the end, in the last warning there is
     * room for: " ..." and its NUL stay inside the message, and the count
     * after it is untouched. */
    size_t z = sizeof r.warnings[0].message;
    for (size_t at = z - 8; at < z + 2; at++) {
        char text[600];
        memset(text, 'a', sizeof text - 1);
        text[sizeof text - 1] = '\0';
        text[at] = ' ';
        memset(&r, 0, sizeof r);
        r.nwarnings = VN_MAX_WARNINGS - 1;
        vn__result_warn(&r, "z", "%s", text);
        assert_int_equal(r.nwarnings, VN_MAX_WARNINGS);
        m = r.warnings[VN_MAX_WARNINGS - 1].message;
        assert_true(memchr(m, '\0', z) != NULL);
        n = strlen(m);
        assert_string_equal(m + n - 4, " ...");
        assert_true(n == (at <= z - 5 ? at + 4 : z - 1));
    }
    /* No space at all: cut where the room ends. */
    char none[600];
    memset(none, 'b', sizeof none - 1);
    none[sizeof none - 1] = '\0';
    memset(&r, 0, sizeof r);
    vn__result_warn(&r, "w", "%s", none);
    assert_int_equal(strlen(r.warnings[0].message), z - 1);
}

static void precise_at_the_most_samples_says_nothing(void **state)
{
    (void)state;
    vn_results r;
    /* Exactly 20 samples asked for, all alike: the sample limit ends it,
     * but the precision was met there, so that is what stopped it, and
     * there is nothing to warn about. */
    const vn_result *b = run_on(&r, (fake_run){ten_ns, 1, 1.0, 0, 0, 1, 20, 0, 0, 0, 0, 0, 0, NULL});
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    assert_int_equal(b->nsamples, 20);
    assert_false(has_warning(b, "max_samples"));
    vn__results_clear(&r);
    /* An upper bound without probes stops on its median's interval, not on
     * samples agreeing with the fastest: 20 equal samples meet it too. */
    b = run_on(&r, (fake_run){(const double[]){1.0}, 1, 1.0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, NULL});
    assert_int_equal(b->upper_bound, 1);
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    assert_false(has_warning(b, "max_samples"));
    assert_false(b->waited);
    vn__results_clear(&r);
    /* A budget of 1 ms is spent at the first stop test (the tenth sample of
     * about 1 ms): the samples meet the precision there, but at one look
     * only, and the decision that stopped the row is the budget's. It says
     * how far it got. */
    b = run_on(&r, (fake_run){ten_ns, 1, 1.0, 0, 0, 1, 0, 0.001, 0, 0, 0, 0, 0, NULL});
    assert_int_equal(b->nsamples, 10);
    assert_int_equal(b->stop, VN_STOP_MAX_TIME);
    assert_true(has_warning(b, "max_time"));
    vn__results_clear(&r);
}

static void growing_cost_is_drift(void **state)
{
    (void)state;
    reset_fake();
    ncosts = 60;
    for (size_t i = 0; i < ncosts; i++)
        costs[i] = 10 + 0.1 * (double)i;
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    c.min_samples = 40;
    c.max_samples = 40;
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->stop, VN_STOP_MAX_SAMPLES);
    assert_int_equal(b->nsamples, 40);
    assert_true(has_warning(b, "drift"));
    /* 10 to 14 ns: the median's interval is a few percent wide. */
    assert_non_null(warning_text(b, "max_samples"));
    assert_true(tc_in_order(warning_text(b, "max_samples"), "(40)", "CI +-", NULL));
    assert_false(b->waited);
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static int64_t seen_param;
static void *seen_user;

static void param_body(vn_state *st)
{
    seen_param = vn_state_param(st);
    seen_user = vn_state_user(st);
    vn_state_set_bytes(st, (double)vn_state_param(st));
    while (vn_next(st))
        fake_now += (uint64_t)vn_state_param(st);
}

static void parameters_give_rows(void **state)
{
    (void)state;
    reset_fake();
    vn_suite *s = fake_suite(20);
    int user;
    vn_bench_opts o = {0};
    o.range_lo = 8;
    o.range_hi = 8 << 10;
    o.param_name = "size";
    o.user = &user;
    assert_int_equal(vn_suite_add(s, "copy", param_body, &o), 0);
    vn_config c = quick_config();
    c.filter = "size=(8|64|8192)$";
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(r.nbench, 3);
    assert_string_equal(vn_results_at(&r, 0)->name, "copy/size=8");
    assert_string_equal(vn_results_at(&r, 1)->name, "copy/size=64");
    assert_string_equal(vn_results_at(&r, 2)->name, "copy/size=8192");
    assert_int_equal(vn_results_at(&r, 2)->param, 8192);
    assert_string_equal(vn_results_at(&r, 2)->param_name, "size");
    assert_ptr_equal(seen_user, &user);
    /* Time per iteration is the parameter in ns; bytes per iteration too, so
     * the throughput is 1 byte per ns: 1e9 bytes/s. */
    assert_true(fabs(vn_results_at(&r, 1)->stats.median - 64) < 1e-9);
    assert_true(fabs(vn_results_at(&r, 1)->bytes_per_sec - 1e9) < 1);
    vn__results_clear(&r);

    /* A range that does not land on hi still measures hi. */
    const int64_t list[] = {3, 5};
    vn_bench_opts l = {0};
    l.param_values = list;
    l.param_count = 2;
    assert_int_equal(vn_suite_add(s, "list", param_body, &l), 0);
    vn_bench_opts odd = {0};
    odd.range_lo = 1;
    odd.range_hi = 10;
    odd.range_mult = 3;
    assert_int_equal(vn_suite_add(s, "odd", param_body, &odd), 0);
    c.filter = "^(list|odd)";
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(r.nbench, 2 + 4);
    assert_string_equal(vn_results_at(&r, 1)->name, "list/n=5");
    assert_string_equal(vn_results_at(&r, 2)->name, "odd/n=1");
    assert_string_equal(vn_results_at(&r, 4)->name, "odd/n=9");
    assert_string_equal(vn_results_at(&r, 5)->name, "odd/n=10");
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void count_setup(vn_state *st)
{
    setups++;
    vn_state_set_data(st, &setups);
}

static void count_teardown(vn_state *st)
{
    (void)st;
    teardowns++;
}

static void *seen_data;

static void data_body(vn_state *st)
{
    seen_data = vn_state_data(st);
    while (vn_next(st))
        fake_now += 10;
}

static void setup_and_teardown_wrap_every_sample(void **state)
{
    (void)state;
    reset_fake();
    vn_suite *s = fake_suite(20);
    vn_bench_opts o = {0};
    o.setup = count_setup;
    o.teardown = count_teardown;
    assert_int_equal(vn_suite_add(s, "b", data_body, &o), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_true(setups > (int)vn_results_at(&r, 0)->nsamples);
    assert_int_equal(setups, teardowns);
    assert_ptr_equal(seen_data, &setups);
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* What alloc_setup says when it fails: the row's error is exactly it. */
#define SETUP_FAILS_WITH "no memory for the input"

/* The usual pattern: setup allocates, teardown frees. The third setup
 * fails before it allocates. */
static void alloc_setup(vn_state *st)
{
    if (++setups == 3) {
        vn_state_fail(st, SETUP_FAILS_WITH);
        return;
    }
    int *p = malloc(sizeof *p);
    assert_non_null(p);
    vn_state_set_data(st, p);
}

static int teardowns_without_data;

static void free_teardown(vn_state *st)
{
    teardowns++;
    teardowns_without_data += vn_state_data(st) == NULL;
    free(vn_state_data(st)); /* twice the same pointer: ASan and glibc abort */
}

static void a_failing_setup_hands_its_teardown_no_stale_data(void **state)
{
    (void)state;
    reset_fake();
    teardowns_without_data = 0;
    vn_suite *s = fake_suite(20);
    vn_bench_opts o = {0};
    o.setup = alloc_setup;
    o.teardown = free_teardown;
    assert_int_equal(vn_suite_add(s, "b", data_body, &o), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_string_equal(vn_results_at(&r, 0)->error, SETUP_FAILS_WITH);
    assert_int_equal(setups, 3);
    assert_int_equal(teardowns, 3);
    assert_int_equal(teardowns_without_data, 1); /* the third: NULL, not the second's */
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* What failing says: the row's error is exactly it. */
#define FAILING_SAYS "the input was wrong"

static void failing(vn_state *st)
{
    while (vn_next(st)) {
        fake_now += 10;
        vn_state_fail(st, FAILING_SAYS);
    }
}

static void never_loops(vn_state *st) { (void)st; }

static void leaves_early(vn_state *st)
{
    while (vn_next(st)) {
        fake_now += 10;
        break;
    }
}

static void failures_are_reported_not_fatal(void **state)
{
    (void)state;
    reset_fake();
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "failing", failing, NULL), 0);
    assert_int_equal(vn_suite_add(s, "never", never_loops, NULL), 0);
    assert_int_equal(vn_suite_add(s, "early", leaves_early, NULL), 0);
    assert_int_equal(vn_suite_add(s, "fine", body, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(r.nbench, 4);
    assert_int_equal(vn_results_at(&r, 0)->stop, VN_STOP_FAILED);
    assert_string_equal(vn_results_at(&r, 0)->error, FAILING_SAYS);
    /* A function that never loops and one that leaves the loop early both
     * fail, each naming the loop it misused, and told apart. */
    for (size_t i = 1; i <= 2; i++) {
        assert_int_equal(vn_results_at(&r, i)->stop, VN_STOP_FAILED);
        assert_non_null(strstr(vn_results_at(&r, i)->error, "vn_next()"));
    }
    assert_string_not_equal(vn_results_at(&r, 1)->error, vn_results_at(&r, 2)->error);
    assert_string_equal(vn_results_at(&r, 3)->error, "");
    assert_int_equal(vn_results_at(&r, 3)->stop, VN_STOP_PRECISION);
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* ---- Rows that take turns (--interleave) ------------------------------------ */

/* A machine that slows down as time passes, 1% every 10 ms of fake time,
 * and a log of which row each sample (with its setup) belongs to. */
static uint64_t slow_from;
static char turn_log[4096];
static size_t nturns;

static void drifting(vn_state *st, double cost)
{
    double c = cost * (1.0 + (double)(fake_now - slow_from) / 1e9), acc = 0;
    while (vn_next(st)) {
        acc += c;
        if (acc >= 1) {
            fake_now += (uint64_t)acc;
            acc -= (double)(uint64_t)acc;
        }
    }
}
static void ten(vn_state *st) { drifting(st, 10); }
static void hundred(vn_state *st) { drifting(st, 100); }
static void log_turn(vn_state *st)
{
    if (nturns < sizeof turn_log - 1)
        turn_log[nturns++] = *(const char *)vn_state_user(st);
}

/* "t" (10 ns) and "h" (100 ns) on the drifting machine, each for exactly n
 * samples; returns h's median over t's. */
static double drift_ratio(int interleave, size_t n, vn_results *r)
{
    reset_fake();
    slow_from = fake_now;
    nturns = 0;
    vn_suite *s = fake_suite(20);
    vn_bench_opts o = {0};
    o.setup = log_turn;
    o.user = (void *)"t";
    assert_int_equal(vn_suite_add(s, "t", ten, &o), 0);
    o.user = (void *)"h";
    assert_int_equal(vn_suite_add(s, "h", hundred, &o), 0);
    vn_config c = quick_config();
    c.min_samples = c.max_samples = n;
    c.interleave = interleave;
    assert_int_equal(vn__suite_run_here(s, &c, r), 0);
    vn_suite_destroy(s);
    assert_int_equal(r->nbench, 2);
    return vn_results_at(r, 1)->stats.median / vn_results_at(r, 0)->stats.median;
}

static void interleaved_rows_meet_the_same_machine(void **state)
{
    (void)state;
    vn_results r;
    /* One after the other, "h" runs on a machine slowed by t's samples and
     * reads more than 10x; taking turns, both meet the same slowing. */
    double apart = drift_ratio(0, 40, &r);
    assert_int_equal(r.config.interleave, 0);
    vn__results_clear(&r);
    assert_true(apart > 10.05);
    /* The log (calibration runs each row's setup too): every one of t's
     * samples, then every one of h's. */
    assert_true(nturns > 80);
    size_t i = 0;
    while (i < nturns && turn_log[i] == 't')
        i++;
    assert_true(i >= 40);
    for (; i < nturns; i++)
        assert_int_equal(turn_log[i], 'h');

    double together = drift_ratio(1, 40, &r);
    assert_int_equal(r.config.interleave, 1);
    assert_int_equal(vn_results_at(&r, 0)->nsamples, 40);
    assert_int_equal(vn_results_at(&r, 1)->nsamples, 40);
    assert_true(fabs(together - 10.0) < 0.25 * fabs(apart - 10.0));
    vn__results_clear(&r);
    /* After both calibrations, each round holds each row once, in a
     * shuffled order: both orders occur. */
    assert_true(nturns > 80);
    size_t calib = nturns - 80;
    int th = 0, ht = 0;
    for (i = calib; i < nturns; i += 2) {
        assert_true(turn_log[i] != turn_log[i + 1]);
        th += turn_log[i] == 't';
        ht += turn_log[i] == 'h';
    }
    assert_true(th > 5 && ht > 5);
}

static void steady_ten(vn_state *st)
{
    while (vn_next(st))
        fake_now += 10;
}

static void interleaved_rows_keep_their_own_budget(void **state)
{
    (void)state;
    vn_config c;
    vn_suite *s = noisy_suite(&c);
    assert_int_equal(vn_suite_add(s, "steady", steady_ten, NULL), 0);
    assert_int_equal(vn_suite_add(s, "failing", failing, NULL), 0);
    c.interleave = 1;
    vn_results r;
    slow_from = fake_now;
    uint64_t t0 = fake_now;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(r.nbench, 3);
    /* The noisy row runs to its budget, counted in its own turns only: about
     * its 50 ms, while the whole run took longer. */
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->stop, VN_STOP_MAX_TIME);
    assert_true(b->elapsed >= 0.05 && b->elapsed < 0.06);
    assert_true(b->nsamples >= 10 && b->nsamples < 50);
    assert_true((double)(fake_now - t0) / 1e9 > b->elapsed + 0.01);
    /* The steady one stops at its precision; the failing one fails alone. */
    assert_int_equal(vn_results_at(&r, 1)->stop, VN_STOP_PRECISION);
    assert_int_equal(vn_results_at(&r, 2)->stop, VN_STOP_FAILED);
    assert_string_equal(vn_results_at(&r, 2)->error, FAILING_SAYS);
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void misuse_returns_errors(void **state)
{
    (void)state;
    vn_suite *s = vn_suite_create();
    assert_non_null(s);
    assert_int_equal(vn_suite_add(s, NULL, body, NULL), VN_EINVAL);
    assert_int_equal(vn_suite_add(s, "", body, NULL), VN_EINVAL);
    assert_int_equal(vn_suite_add(s, "x", NULL, NULL), VN_EINVAL);
    assert_int_equal(vn_suite_add(s, "x", body, NULL), 0);
    assert_int_equal(vn_suite_add(s, "x", body, NULL), VN_EEXIST);
    vn_bench_opts o = {0};
    o.range_lo = 10;
    o.range_hi = 5;
    assert_int_equal(vn_suite_add(s, "bad_range", body, &o), VN_EINVAL);
    memset(&o, 0, sizeof o);
    o.timer = "sundial";
    assert_int_equal(vn_suite_add(s, "bad_timer", body, &o), VN_ENOENT);
    memset(&o, 0, sizeof o);
    o.max_time = -1;
    assert_int_equal(vn_suite_add(s, "bad_time", body, &o), VN_EINVAL);
    memset(&o, 0, sizeof o);
    o.bytes_per_iter = INFINITY;
    assert_int_equal(vn_suite_add(s, "bad_bytes", body, &o), VN_EINVAL);
    o.bytes_per_iter = 0;
    o.items_per_iter = NAN;
    assert_int_equal(vn_suite_add(s, "bad_items", body, &o), VN_EINVAL);
    /* Rows must have names of their own: "c" with size 1 makes the row
     * "c/size=1", which a benchmark of that name would repeat; so would a
     * list holding a value twice. Parameter names fit the results' 32 bytes. */
    memset(&o, 0, sizeof o);
    static const int64_t one[] = {1}, twice[] = {4, 4};
    o.param_name = "size";
    o.param_values = one;
    o.param_count = 1;
    assert_int_equal(vn_suite_add(s, "c", body, &o), 0);
    assert_int_equal(vn_suite_add(s, "c/size=1", body, NULL), VN_EEXIST);
    o.param_values = twice;
    o.param_count = 2;
    assert_int_equal(vn_suite_add(s, "d", body, &o), VN_EEXIST);
    assert_int_equal(vn_suite_add(s, "e/size=4", body, NULL), 0);
    o.param_count = 1;
    assert_int_equal(vn_suite_add(s, "e", body, &o), VN_EEXIST);
    o.param_name = "a_parameter_name_of_32_bytes_xyz";
    assert_int_equal(vn_suite_add(s, "f", body, &o), VN_ERANGE);
    o.param_name = "";
    assert_int_equal(vn_suite_add(s, "f", body, &o), VN_EINVAL);
    /* A count gone wrong must not wrap the bytes to copy. */
    o.param_name = NULL;
    o.param_values = one;
    o.param_count = (size_t)1 << 62;
    assert_int_equal(vn_suite_add(s, "g", body, &o), VN_EINVAL);
    vn_config c;
    vn_config_init(&c);
    c.filter = "(";
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
    vn_config_init(&c);
    c.precision = 0;
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
    /* Infinite settings would never end. */
    vn_config_init(&c);
    c.warmup = INFINITY;
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
    vn_config_init(&c);
    c.max_time = INFINITY;
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
    vn_config_init(&c);
    c.min_sample_time = INFINITY;
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
    vn_config_init(&c);
    c.warmup = 1e300; /* finite, and as endless */
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
    vn_config_init(&c);
    c.min_samples = c.max_samples = (size_t)-1; /* min_samples + 1 would wrap */
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
    /* A CPU-time clock cannot time threads together. */
    static const char *const cpu_time[] = {"process_cputime", "thread_cputime", "rusage"};
    for (size_t i = 0; i < sizeof cpu_time / sizeof cpu_time[0]; i++) {
        vn_config_init(&c);
        c.threads = 2;
        c.timer = cpu_time[i];
        assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EINVAL);
    }
    assert_int_equal(vn__suite_run_here(NULL, &c, &r), VN_EINVAL);
    vn_suite_destroy(s);
    vn_suite_destroy(NULL);
}

static void negative_bytes(vn_state *st)
{
    vn_state_set_bytes(st, -5);
    while (vn_next(st))
        fake_now += 10;
}

static void nan_items(vn_state *st)
{
    vn_state_set_items(st, NAN);
    while (vn_next(st))
        fake_now += 10;
}

static void a_bad_throughput_fails_its_row(void **state)
{
    (void)state;
    reset_fake();
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "bytes", negative_bytes, NULL), 0);
    assert_int_equal(vn_suite_add(s, "items", nan_items, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(vn_results_at(&r, 0)->stop, VN_STOP_FAILED);
    /* Each error names the call and the value it refused. */
    assert_true(tc_in_order(vn_results_at(&r, 0)->error, "vn_state_set_bytes()", "-5", NULL));
    assert_int_equal(vn_results_at(&r, 1)->stop, VN_STOP_FAILED);
    assert_true(tc_in_order(vn_results_at(&r, 1)->error, "vn_state_set_items()", "nan", NULL));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static volatile int stop_now;
static int stop_calls;

static void stops_the_run(vn_state *st)
{
    if (++stop_calls > 15)
        stop_now = 1;
    while (vn_next(st))
        fake_now += 10;
}

static void stop_flag_interrupts(void **state)
{
    (void)state;
    for (int interleave = 0; interleave <= 1; interleave++) {
        reset_fake();
        ncosts = 3;
        const double c3[] = {10, 20, 30};
        memcpy(costs, c3, sizeof c3);
        stop_now = 0;
        stop_calls = 0;
        vn_suite *s = fake_suite(20);
        assert_int_equal(vn_suite_add(s, "a", stops_the_run, NULL), 0);
        assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
        vn_config c = quick_config();
        c.precision = 0.0001;
        c.stop_flag = &stop_now;
        c.interleave = interleave;
        vn_results r;
        assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
        assert_int_equal(r.interrupted, 1);
        assert_int_equal(vn_results_at(&r, 0)->stop, VN_STOP_INTERRUPTED);
        /* The flag rose during a's calibration: b never began, either way. */
        assert_int_equal(r.nbench, 1);
        vn__results_clear(&r);
        vn_suite_destroy(s);
    }
}

static void debug_builds_are_flagged(void **state)
{
    (void)state;
    reset_fake();
    vn_suite *s = vn__suite_create(0);
    vn__hooks h = {0};
    h.now = now;
    h.timer_cost_ns = 20;
    h.timer_resolution_ns = 1;
    h.no_interference = 1;
    h.no_sysinfo = 1;
    vn__suite_set_hooks(s, &h);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_true(has_warning(vn_results_at(&r, 0), "debug_build"));
    assert_int_equal(r.optimized, 0);
    assert_true(isnan(vn_results_at(&r, 0)->cycles)); /* no reference loop */
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* With samples that differ (a busy machine), the bound is the fastest sample
 * of the loop with the body: every sample bounds the body, and that one is
 * the tightest. Not the median, which a busier run would raise. */
static void upper_bound_is_the_fastest_sample(void **state)
{
    (void)state;
    reset_fake();
    read_cost = 2000000; /* each sample one iteration, nearly all overhead */
    ncosts = 4;
    costs[0] = 3000, costs[1] = 1000, costs[2] = 4000, costs[3] = 2000;
    /* The reference reads differently from sample to sample, as the
     * machine's clock moves. */
    nref_values = 3;
    ref_value[0] = 0.5, ref_value[1] = 0.8, ref_value[2] = 0.65;
    vn_suite *s = fake_suite(20);
    assert_int_equal(vn_suite_add(s, "shadowed", body, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->iters, 1);
    assert_int_equal(b->upper_bound, 1);
    double mn = INFINITY, sum = 0;
    for (size_t i = 0; i < b->nsamples; i++) {
        mn = fmin(mn, b->samples[i].value);
        sum += b->samples[i].value;
    }
    /* The samples are the overhead plus 1000 .. 4000 ns, each cost as
     * often: the bound is the overhead plus 1000, below their mean. */
    assert_true(fabs(b->bound_ns - mn) < 1e-9);
    assert_true(fabs(b->bound_ns - (2 * read_cost + 1000)) < 1e-6 ||
                fabs(b->bound_ns - (read_cost + 1000)) < 1e-6);
    assert_true(b->bound_ns < sum / (double)b->nsamples - 500);
    /* In reference cycles: the fastest sample over the fastest reference,
     * not the smallest quotient of a sample and its own reference (that
     * would pick a fast sample whose reference read slow). */
    double fastest_ref = INFINITY;
    for (size_t i = 0; i < b->nsamples; i++)
        fastest_ref = fmin(fastest_ref, b->samples[i].ref_ns);
    assert_true(fabs(fastest_ref - 0.5) < 1e-12);
    assert_true(fabs(b->cycles - mn / 0.5) < 1e-9);
    assert_true(has_warning(b, "dead_code"));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void rng_is_seeded_and_bounded(void **state)
{
    (void)state;
    vn_rng a, b, z;
    vn_rng_seed(&a, 42);
    vn_rng_seed(&b, 42);
    vn_rng_seed(&z, 43);
    int differ = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = vn_rng_next(&a);
        assert_int_equal(x, vn_rng_next(&b));
        differ |= x != vn_rng_next(&z);
    }
    assert_true(differ);
    /* vn_rng_below stays below n and fills every bucket about evenly. */
    unsigned counts[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t v = vn_rng_below(&a, 10);
        assert_true(v < 10);
        counts[v]++;
    }
    for (int k = 0; k < 10; k++)
        assert_true(counts[k] > 9500 && counts[k] < 10500);
    assert_int_equal(vn_rng_below(&a, 0), 0);
    double d = vn_rng_double(&a);
    assert_true(d >= 0 && d < 1);
}

/* ---- Fixed iterations, manual time, skipped rows, the options' size ----- */

/* Each iteration reports 7 ns more than it took on the fake clock (10 ns):
 * a manual time must be what the function says, not what the clock read. */
static void manual_body(vn_state *st)
{
    uint64_t n = vn_state_iterations(st);
    body(st);
    vn_state_set_time(st, 17.0 * (double)n);
}

static const vn_result *run_opts(vn_results *r, const char *name, vn_bench_fn fn,
                                 const vn_bench_opts *o)
{
    reset_fake();
    empty_costs[0] = empty_costs[1] = 1.0;
    empty_no = 0;
    vn_suite *s = probe_suite(0);
    assert_int_equal(vn_suite_add(s, name, fn, o), 0);
    vn_config c = quick_config();
    c.min_samples = c.max_samples = 12;
    assert_int_equal(vn__suite_run_here(s, &c, r), 0);
    vn_suite_destroy(s);
    return vn_results_at(r, 0);
}

static void fixed_iterations_are_not_calibrated(void **state)
{
    (void)state;
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.iterations = 3;
    vn_results r;
    const vn_result *b = run_opts(&r, "b", body, &o);
    assert_int_equal(b->iters, 3);
    for (size_t i = 0; i < b->nsamples; i++)
        assert_int_equal(b->samples[i].iters, 3);
    assert_true(fabs(b->stats.median - 9.0) < 1e-6); /* 10 ns less the empty loop's 1 */
    vn__results_clear(&r);
    /* Calibrated, the same body runs far more iterations a sample. */
    b = run_opts(&r, "b", body, NULL);
    assert_true(b->iters > 1000);
    vn__results_clear(&r);
}

static void manual_time_is_what_the_function_says(void **state)
{
    (void)state;
    vn_bench_opts o;
    vn_bench_opts_init(&o);
    o.manual_time = 1;
    vn_results r;
    const vn_result *b = run_opts(&r, "b", manual_body, &o);
    assert_int_equal(b->stop, VN_STOP_PRECISION);
    /* 17 ns an iteration, with no empty loop taken or subtracted. */
    assert_true(fabs(b->stats.median - 17.0) < 1e-9);
    assert_true(fabs(b->samples[0].value - 17.0) < 1e-9);
    assert_int_equal(empty_no, 0);
    assert_false(b->upper_bound);
    vn__results_clear(&r);
    /* A function that says nothing fails its row, saying why. */
    b = run_opts(&r, "b", body, &o);
    assert_int_equal(b->stop, VN_STOP_FAILED);
    assert_non_null(strstr(b->error, "vn_state_set_time"));
    vn__results_clear(&r);
}

/* What skipping says: the row's error is exactly it. */
#define SKIPPING_SAYS "no loopback here"

static void skipping(vn_state *st) { vn_state_skip(st, SKIPPING_SAYS); }

static void a_skipped_row_says_why_and_is_no_failure(void **state)
{
    (void)state;
    vn_results r;
    const vn_result *b = run_opts(&r, "b", skipping, NULL);
    assert_int_equal(b->stop, VN_STOP_SKIPPED);
    assert_string_equal(b->error, SKIPPING_SAYS);
    assert_string_equal(vn_stop_name(b->stop), "skipped");
    /* The row's line says it was skipped, and why, in the function's own
     * words; nothing calls it a failure. */
    vn_buf out;
    vn_buf_init(&out, 0);
    assert_int_equal(vn_report_results_text(&r, 0, &out), 0);
    char line[512];
    assert_true(tc_line(out.data, "b ", line, sizeof line));
    assert_true(tc_in_order(line, vn_stop_name(VN_STOP_SKIPPED), SKIPPING_SAYS, NULL));
    assert_null(strstr(out.data, vn_stop_name(VN_STOP_FAILED)));
    vn_buf_free(&out);
    vn__results_clear(&r);
}

/* A program built before `iterations` existed hands a struct of size 0
 * (zeroed by hand) or of its own smaller size: what lies past it is not its
 * own, and must not be read. A size larger than this library's struct is
 * a newer header's: refused. */
static void the_options_struct_grows_by_its_size(void **state)
{
    (void)state;
    vn_bench_opts o;
    memset(&o, 0, sizeof o);
    o.iterations = 3; /* as if garbage past the first layout */
    vn_results r;
    const vn_result *b = run_opts(&r, "b", body, &o);
    assert_true(b->iters > 1000);
    vn__results_clear(&r);
    o.size = offsetof(vn_bench_opts, iterations);
    b = run_opts(&r, "b", body, &o);
    assert_true(b->iters > 1000);
    vn__results_clear(&r);
    o.size = sizeof o;
    b = run_opts(&r, "b", body, &o);
    assert_int_equal(b->iters, 3);
    vn__results_clear(&r);
    vn_suite *s = vn_suite_create();
    o.size = sizeof o + 8;
    assert_int_equal(vn_suite_add(s, "b", body, &o), VN_EABI);
    vn_suite_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_iterations_are_not_calibrated),
        cmocka_unit_test(manual_time_is_what_the_function_says),
        cmocka_unit_test(a_skipped_row_says_why_and_is_no_failure),
        cmocka_unit_test(the_options_struct_grows_by_its_size),
        cmocka_unit_test(a_bad_policy_fails_before_measuring),
        cmocka_unit_test(shared_ratio_inf_never_tags_shared),
        cmocka_unit_test(calibration_doubles_to_the_threshold),
        cmocka_unit_test(calibration_stops_at_the_budgets_share),
        cmocka_unit_test(calibration_needs_a_second_sample_at_the_threshold),
        cmocka_unit_test(the_warmup_ends_at_the_count_timed),
        cmocka_unit_test(a_shared_core_at_calibration_gives_longer_samples),
        cmocka_unit_test(steady_body_stops_at_min_samples),
        cmocka_unit_test(noisy_body_runs_to_the_budget),
        cmocka_unit_test(precision_stop_matches_an_independent_check),
        cmocka_unit_test(overhead_is_measured_and_subtracted),
        cmocka_unit_test(empty_body_gives_an_upper_bound),
        cmocka_unit_test(upper_bound_is_the_fastest_sample),
        cmocka_unit_test(a_body_as_cheap_as_the_loop_is_bounded_by_its_fastest_sample),
        cmocka_unit_test(the_empty_loop_of_the_kind_needs_empty_matched_samples),
        cmocka_unit_test(a_loop_as_costly_as_the_body_is_flagged),
        cmocka_unit_test(tagged_samples_stay_out_of_the_headline),
        cmocka_unit_test(speed_drift_is_reported),
        cmocka_unit_test(a_slow_empty_loop_sample_is_left_out),
        cmocka_unit_test(shared_core_samples_stay_out_of_the_headline),
        cmocka_unit_test(a_core_shared_throughout_is_said),
        cmocka_unit_test(samples_off_the_cpu_are_never_tagged),
        cmocka_unit_test(each_row_judges_its_own_empty_loop),
        cmocka_unit_test(a_costly_timer_takes_no_probes),
        cmocka_unit_test(quiet_samples_slower_than_shared_ones_are_no_quiet_figure),
        cmocka_unit_test(shared_samples_leave_only_when_sharing_slows_the_body),
        cmocka_unit_test(a_bound_stops_when_its_fastest_sample_is_reproduced),
        cmocka_unit_test(precise_at_the_most_samples_says_nothing),
        cmocka_unit_test(a_loop_that_does_not_run_fails),
        cmocka_unit_test(processes_on_a_shared_core_are_named),
        cmocka_unit_test(the_interval_reaches_the_other_state),
        cmocka_unit_test(a_core_shared_through_the_run_is_named),
        cmocka_unit_test(a_warning_too_long_is_cut_at_a_word),
        cmocka_unit_test(a_headline_precise_at_a_limit_stopped_for_precision),
        cmocka_unit_test(processes_kept_on_a_shared_core_say_why),
        cmocka_unit_test(the_most_processes_say_how_many_would_do),
        cmocka_unit_test(too_few_headline_samples_for_an_interval_say_so),
        cmocka_unit_test(no_empty_loop_sample_kept_leaves_the_overhead_unknown),
        cmocka_unit_test(the_probe_after_a_sample_is_the_next_one_whichever_row_takes_it),
        cmocka_unit_test(growing_cost_is_drift),
        cmocka_unit_test(parameters_give_rows),
        cmocka_unit_test(setup_and_teardown_wrap_every_sample),
        cmocka_unit_test(a_failing_setup_hands_its_teardown_no_stale_data),
        cmocka_unit_test(a_bad_throughput_fails_its_row),
        cmocka_unit_test(failures_are_reported_not_fatal),
        cmocka_unit_test(interleaved_rows_meet_the_same_machine),
        cmocka_unit_test(interleaved_rows_keep_their_own_budget),
        cmocka_unit_test(misuse_returns_errors),
        cmocka_unit_test(stop_flag_interrupts),
        cmocka_unit_test(debug_builds_are_flagged),
        cmocka_unit_test(rng_is_seeded_and_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
