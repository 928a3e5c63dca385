/* The engine's counters on a fake clock and a fake PMU (fake_pmu.h): counts
 * read at the edges of every sample, per iteration, with the empty loop's
 * counts (here: what the reads themselves add) taken off; the ratios; a
 * multiplexed group scaled and marked; missing events named once and never
 * fatal; counters off with "none"; several threads each with their own;
 * the same summary for vernier run's rows. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/internal.h"
#include "fake_pmu.h"
#include "run/run.h"
#include "main/all.h"

/* The fake machine: time in ns advances when the body says and by
 * read_cost at each timer read; per ns of body time the core runs 2 cycles
 * and 3 instructions, 1 branch every 10 ns; each counter read adds what a
 * read() system call would: 100 instructions, 250 cycles, 20 branches. */
static uint64_t read_cost;
static int page_every; /* a page fault every this many iterations; 0 none */

static uint64_t now(void *ctx)
{
    (void)ctx;
    uint64_t t = fake.now;
    fake.now += read_cost;
    return t;
}

static long counting_read(void *ctx, int fd, void *buf, size_t len)
{
    long n = fake_read(ctx, fd, buf, len);
    /* The read's own instructions land after the kernel sampled the counts,
     * so they show in the next read: in every sample once. */
    HWC(INSTRUCTIONS) += 100;
    HWC(CPU_CYCLES) += 250;
    HWC(BRANCH_INSTRUCTIONS) += 20;
    return n;
}

static vn__perf_sys sys;

static void work(uint64_t ns, uint64_t iter)
{
    fake.now += ns;
    HWC(CPU_CYCLES) += 2 * ns;
    HWC(INSTRUCTIONS) += 3 * ns;
    HWC(BRANCH_INSTRUCTIONS) += ns / 10;
    HWC(BRANCH_MISSES) += iter % 4 == 0;
    if (page_every && iter % (uint64_t)page_every == 0)
        SWC(PAGE_FAULTS)++;
}

static void body(vn_state *st)
{
    uint64_t i = 0;
    while (vn_next(st))
        work(10, i++);
}

/* The fake machine's suite; a branch probe and sample tags when given. */
static vn_suite *suite_with(int with_pmu, double (*probe)(void *), unsigned (*tags)(void *))
{
    sys = fake_sys;
    sys.read = counting_read;
    vn_suite *s = vn__suite_create(1);
    vn__hooks h = {0};
    h.now = now;
    h.timer_cost_ns = 20;
    h.timer_resolution_ns = 1;
    h.no_interference = 1;
    h.no_sysinfo = 1;
    h.perf = with_pmu ? &sys : NULL;
    h.branch_cycles = probe;
    h.sample_tags = tags;
    vn__suite_set_hooks(s, &h);
    return s;
}

static vn_suite *suite(int with_pmu) { return suite_with(with_pmu, NULL, NULL); }

static vn_config config(const char *counters)
{
    vn_config c;
    vn_config_init(&c);
    c.warmup = 0;
    c.min_sample_time = 0.001; /* the fake machine's times are set for 1 ms samples */
    c.counters = counters;
    return c;
}

static const vn_counter_result *counter(const vn_result *r, const char *name)
{
    for (int i = 0; i < r->ncounters; i++)
        if (!strcmp(r->counters[i].name, name))
            return &r->counters[i];
    fail_msg("no counter %s", name);
    return NULL;
}

static void setup_world(void)
{
    fake_reset(8);
    fake.now = 1000000;
    /* Time passes at the edges too, as it does for the kernel's enabled and
     * running times: an interval of no time has nothing to scale by. */
    read_cost = 5;
    page_every = 0;
}

static void per_iteration_net_of_the_loop(void **state)
{
    (void)state;
    setup_world();
    page_every = 4;
    vn_suite *s = suite(1);
    vn_bench_opts o = {0};
    o.bytes_per_iter = 8;
    assert_int_equal(vn_suite_add(s, "b", body, &o), 0);
    vn_config c = config("default,page-faults");
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->ncounters, 7);
    assert_string_equal(r.counters.requested, "default,page-faults");
    assert_int_equal(r.counters.nopened, 7);

    /* 10 ns per iteration: 30 instructions, 20 cycles, 1 branch, a miss
     * every 4th, a fault every 4th. Two groups (hardware, software) make
     * two reads per edge, whose 200 instructions per sample are in the
     * empty loop's samples too, and come off. */
    assert_int_equal(r.counters.ngroups, 2);
    const vn_counter_result *insn = counter(b, "instructions");
    assert_true(fabs(insn->value - 30) < 1e-9);
    assert_true(fabs(insn->overhead - 200.0 / (double)b->iters) < 1e-12);
    assert_int_equal(insn->scaled, 0);
    assert_string_equal(insn->unit, "count");
    assert_true(fabs(counter(b, "cycles")->value - 20) < 1e-9);
    assert_true(fabs(counter(b, "branches")->value - 1) < 1e-9);
    assert_true(fabs(counter(b, "branch-misses")->value - 0.25) < 1e-3);
    assert_true(fabs(counter(b, "page-faults")->value - 0.25) < 1e-3);
    assert_true(fabs(b->derived.ipc - 1.5) < 1e-9);
    assert_true(fabs(b->derived.branch_miss_pct - 25) < 0.1);
    assert_true(isnan(b->derived.cache_miss_pct)); /* no cache references at all */
    assert_true(fabs(b->derived.insn_per_byte - 30.0 / 8) < 1e-9);

    /* Every sample carries its own counts, as measured. */
    for (size_t i = 0; i < b->nsamples; i++) {
        assert_non_null(b->samples[i].counts);
        assert_true(fabs(b->samples[i].counts[1] - (30 + 200.0 / (double)b->iters)) < 1e-9);
        assert_int_equal(b->samples[i].counts_scaled, 0);
    }
    assert_ptr_equal(b->samples[0].counts, b->sample_counts);
    vn__results_clear(&r);
    vn_suite_destroy(s);
    assert_int_equal(fake_open_fds(), 0);
}

/* 1 when the line that starts at line holds with. */
static int line_has(const char *line, const char *with)
{
    const char *w = strstr(line, with);
    return w && w + strlen(with) <= line + strcspn(line, "\n");
}

/* The first line of text that starts with prefix and holds with, or NULL. */
static const char *line_with(const char *text, const char *prefix, const char *with)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, prefix, strlen(prefix)) && line_has(p, with))
            return p;
    return NULL;
}

/* How many lines of text start with prefix. */
static size_t lines_starting(const char *text, const char *prefix)
{
    size_t n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += !strncmp(p, prefix, strlen(prefix));
    return n;
}

static void multiplexed_counts_are_scaled(void **state)
{
    (void)state;
    setup_world();
    fake.multiplex = 1;
    vn_suite *s = suite(1);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = config("instructions,cycles");
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    const vn_counter_result *insn = counter(b, "instructions");
    /* Counted half the time, scaled back up (the halving rounds down by
     * less than a count per sample). */
    assert_true(fabs(insn->value - 30) < 0.01);
    assert_int_equal(insn->scaled, 1);
    assert_true(b->samples[0].counts_scaled == 3);
    vn_buf out;
    vn_buf_init(&out, 0);
    assert_int_equal(vn_report_results_text(&r, 0, &out), 0);
    /* The scaled value is marked, and a line of the counters says what the
     * mark means. */
    assert_non_null(line_with(out.data, "b ", "*"));
    assert_non_null(line_with(out.data, "counters: ", "*"));
    vn_buf_free(&out);
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void missing_events_are_named_not_fatal(void **state)
{
    (void)state;
    setup_world();
    fake_vm();
    fake.now = 1000000;
    read_cost = 5;
    page_every = 2;
    vn_suite *s = suite(1);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = config(NULL); /* the default set */
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(vn_results_at(&r, 0)->stop, VN_STOP_PRECISION);
    assert_true(fabs(vn_results_at(&r, 0)->stats.median - 10) < 1e-9);
    assert_string_equal(r.counters.requested, "default");
    assert_int_equal(r.counters.n, 6);
    assert_int_equal(r.counters.nopened, 0);
    assert_int_equal(vn_results_at(&r, 0)->ncounters, 0);
    assert_null(vn_results_at(&r, 0)->samples[0].counts);
    vn_buf out;
    vn_buf_init(&out, 0);
    assert_int_equal(vn_report_results_text(&r, 0, &out), 0);
    /* One cause for all six: a virtual machine without a PMU. */
    for (size_t i = 0; i < r.counters.n; i++)
        assert_int_equal(r.counters.ev[i].cause, VN_COUNTER_VM_NO_PMU);
    const char *reason = r.counters.ev[0].reason, *fix = r.counters.ev[0].fix;
    assert_true(reason[0] != '\0');
    /* Once, for all six, with the reason on one line of at most 100
     * characters; the fix is --explain's. */
    assert_int_equal(lines_starting(out.data, "counters: "), 1);
    const char *line = line_with(out.data, "counters: ", reason);
    assert_non_null(line);
    assert_true(strcspn(line, "\n") <= 100);
    assert_null(strstr(out.data, "fix:"));
    vn_buf_free(&out);
    /* --explain names all six on one line, then the reason and the fix. */
    vn_buf_init(&out, 0);
    assert_int_equal(vn_report_results_text(&r, VN_REPORT_EXPLAIN, &out), 0);
    line = line_with(out.data, "counters: ", "cache-misses");
    assert_non_null(line);
    for (size_t i = 0; i < r.counters.n; i++)
        assert_true(line_has(line, r.counters.ev[i].name));
    assert_non_null(strstr(line, reason));
    assert_non_null(strstr(strstr(line, reason), "fix:"));
    assert_true(fix[0] != '\0');
    assert_non_null(strstr(line, "pmu=on")); /* a word of the fix, which wraps */
    vn_buf_free(&out);
    vn__results_clear(&r);

    /* What does work is used. */
    c = config("default,page-faults");
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(vn_results_at(&r, 0)->ncounters, 1);
    assert_true(fabs(counter(vn_results_at(&r, 0), "page-faults")->value - 0.5) < 1e-3);
    assert_true(isnan(vn_results_at(&r, 0)->derived.ipc));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

static void counters_off(void **state)
{
    (void)state;
    setup_world();
    vn_suite *s = suite(1);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = config("none");
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_string_equal(r.counters.requested, "");
    assert_int_equal(vn_results_at(&r, 0)->ncounters, 0);
    assert_int_equal(fake.opens, 0);
    vn_buf out;
    vn_buf_init(&out, 0);
    assert_int_equal(vn_report_results_json(&r, &out), 0);
    assert_non_null(strstr(out.data, "\n  \"counters\": null,\n"));
    vn_buf_free(&out);
    vn__results_clear(&r);
    vn_suite_destroy(s);

    /* A fake clock without a fake PMU: no counters, whatever was asked, so
     * the engine's other tests do not depend on this machine. */
    s = suite(0);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    c = config("page-faults");
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_string_equal(r.counters.requested, "");
    vn__results_clear(&r);

    /* A list that names no event is the caller's error. */
    c = config("bogus");
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0); /* no PMU hook: never looked at */
    vn__results_clear(&r);
    vn_suite_destroy(s);
    s = suite(1);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_ENOENT);
    vn_suite_destroy(s);
}

static void failed_reads_give_unknown_counts(void **state)
{
    (void)state;
    setup_world();
    fake.fail_reads = 1;
    vn_suite *s = suite(1);
    assert_int_equal(vn_suite_add(s, "b", body, NULL), 0);
    vn_config c = config("instructions");
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    /* The time is measured all the same. */
    assert_true(fabs(vn_results_at(&r, 0)->stats.median - 10) < 1e-9);
    assert_true(isnan(counter(vn_results_at(&r, 0), "instructions")->value));
    assert_true(isnan(vn_results_at(&r, 0)->samples[0].counts[0]));
    vn__results_clear(&r);
    vn_suite_destroy(s);
}

/* The counters come from the headline's samples. Here three samples in
 * four are preempted and cost 100 times as much, and the core is shared
 * from the tenth millisecond on (calibration, at 1 us an iteration, takes
 * most of that), so too few samples carry no tag: the
 * headline leaves out the preempted ones only, and keeps the shared ones
 * (20 ns an iteration, 40 cycles). So must the counters, whose median over
 * every sample would be a preempted one's. */
static uint64_t shared_from;
static size_t body_no;

static double branch_probe(void *ctx)
{
    (void)ctx;
    return fake.now >= shared_from ? 2.0 : 1.0;
}

static unsigned preempted(void *ctx)
{
    (void)ctx;
    return (body_no - 1) % 4 != 3 ? VN_TAG_PREEMPTED : 0;
}

static void costly_body(vn_state *st)
{
    uint64_t ns = body_no % 4 != 3 ? 1000 : fake.now >= shared_from ? 20 : 10;
    body_no++;
    uint64_t i = 0;
    while (vn_next(st))
        work(ns, i++);
}

static void counters_follow_the_headline(void **state)
{
    (void)state;
    setup_world();
    vn_suite *s = suite_with(1, branch_probe, preempted);
    shared_from = fake.now + 10000000;
    body_no = 0;
    assert_int_equal(vn_suite_add(s, "b", costly_body, NULL), 0);
    vn_config c = config("default");
    /* Forty samples, ten of them free of preemption (min_untagged=5 lets
     * the preempted ones leave with that few), most of those shared. */
    c.min_samples = c.max_samples = 40;
    /* The sample-level shared-core tag, off by default, is on here. */
    c.policy = "min_untagged=5,shared_ratio=1.1";
    vn_results r;
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    const vn_result *b = vn_results_at(&r, 0);
    assert_int_equal(b->nsamples, 40);
    assert_int_equal(b->left_out, VN_TAG_PREEMPTED | VN_TAG_MIGRATED);
    assert_true(b->ntagged > 30);
    assert_true(fabs(b->stats.median - 20) < 0.5);
    assert_true(fabs(counter(b, "cycles")->value - 40) < 1);
    assert_true(fabs(counter(b, "instructions")->value - 60) < 1);
    vn__results_clear(&r);
    vn_suite_destroy(s);
    assert_int_equal(fake_open_fds(), 0);
}

/* A command's row and the engine's make one summary of the same counts:
 * the median per event over the samples used, no empty loop for a command,
 * and the same ratios. Here every sample is used by both. */
static void runs_and_rows_summarize_alike(void **state)
{
    (void)state;
    setup_world();
    sys = fake_sys;
    vn_counters *c;
    assert_int_equal(vn__counters_open_sys(&sys, "cycles,instructions,branches", 0, 0, &c, NULL, 0),
                     0);
    enum { N = 7, E = 3 };
    assert_int_equal(vn_counters_n(c), E);
    static const double counts[N * E] = {
        200, 300, 10,  210, 330, 11,  190, 290, 9,  205, 310, 12,
        400, 620, 20,  198, 305, 10,  202, NAN, 10,
    };
    vn_sample bs[N], rs[N];
    memset(bs, 0, sizeof bs);
    for (size_t i = 0; i < N; i++)
        bs[i].counts_scaled = i == 4 ? 2u : 0u; /* instructions scaled once */
    memcpy(rs, bs, sizeof rs);
    double *bc = malloc(sizeof counts), *rc = malloc(sizeof counts);
    assert_non_null(bc);
    assert_non_null(rc);
    memcpy(bc, counts, sizeof counts);
    memcpy(rc, counts, sizeof counts);

    vn_result b;
    memset(&b, 0, sizeof b);
    b.samples = bs;
    b.nsamples = N;
    b.bytes_per_iter = NAN;
    vn_run_result x;
    memset(&x, 0, sizeof x);
    x.samples = rs;
    x.nsamples = N;
    assert_int_equal(vn__bench_counters_finish(&b, c, bc, NULL, 0, NULL), 0);
    assert_int_equal(vn__run_counters_finish(&x, c, rc), 0);

    assert_int_equal(b.ncounters, E);
    assert_int_equal(x.ncounters, E);
    assert_ptr_equal(rs[3].counts, rc + 3 * E);
    assert_ptr_equal(bs[3].counts, bc + 3 * E);
    for (size_t k = 0; k < E; k++) {
        assert_string_equal(b.counters[k].name, x.counters[k].name);
        assert_string_equal(b.counters[k].unit, x.counters[k].unit);
        assert_true(b.counters[k].value == x.counters[k].value);
        /* Nothing taken off: no empty loop's counts, for either. */
        assert_true(isnan(b.counters[k].overhead) && isnan(x.counters[k].overhead));
        assert_int_equal(b.counters[k].scaled, x.counters[k].scaled);
    }
    /* And what they agree on is the median of the samples. */
    assert_true(b.counters[0].value == 202);
    assert_true(b.counters[1].value == 307.5);
    assert_int_equal(b.counters[1].scaled, 1);
    assert_int_equal(b.counters[0].scaled, 0);
    assert_true(b.derived.ipc == x.derived.ipc);
    assert_true(fabs(b.derived.ipc - 307.5 / 202) < 1e-12);
    assert_true(isnan(b.derived.insn_per_byte) && isnan(x.derived.insn_per_byte));
    free(bc);
    free(rc);
    vn_counters_destroy(c);
    assert_int_equal(fake_open_fds(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_iteration_net_of_the_loop),
        cmocka_unit_test(multiplexed_counts_are_scaled),
        cmocka_unit_test(missing_events_are_named_not_fatal),
        cmocka_unit_test(counters_off),
        cmocka_unit_test(failed_reads_give_unknown_counts),
        cmocka_unit_test(counters_follow_the_headline),
        cmocka_unit_test(runs_and_rows_summarize_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
