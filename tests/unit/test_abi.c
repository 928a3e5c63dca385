/* Structs that grow (docs/layers.md): a caller's struct from an older
 * header keeps working, its missing fields taking their defaults, and one
 * that no _init set, or one from a newer header, is refused with VN_EABI. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/abi.h"
#include "engine/results.h"
#include "main/all.h"

/* Two layouts of one struct: the second added a field. */
typedef struct old_opts {
    size_t size;
    int a;
} old_opts;
typedef struct new_opts {
    size_t size;
    int a;
    double b;
} new_opts;

static void init_new(new_opts *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->a = 1;
    o->b = 2.5;
}

static void an_older_caller_gets_the_defaults_of_what_it_lacks(void **state)
{
    (void)state;
    old_opts old = {sizeof old, 7};
    new_opts full;
    init_new(&full);
    assert_int_equal(vn__abi_copy(&full, sizeof full, &old, VN__SIZE_THROUGH(old_opts, a)), 0);
    assert_int_equal(full.a, 7);          /* the caller's */
    assert_true(full.b == 2.5);           /* the default: its header had no b */
    assert_int_equal(full.size, sizeof full);

    new_opts cur;
    init_new(&cur);
    cur.b = 9;
    init_new(&full);
    assert_int_equal(vn__abi_copy(&full, sizeof full, &cur, VN__SIZE_THROUGH(old_opts, a)), 0);
    assert_true(full.b == 9);
}

static void a_size_no_init_set_is_refused(void **state)
{
    (void)state;
    new_opts full, keep;
    init_new(&full);
    keep = full;
    struct {
        size_t size;
        int a;
        double b, c;
    } newer = {sizeof newer, 3, 4, 5};
    assert_int_equal(vn__abi_copy(&full, sizeof full, &newer, VN__SIZE_THROUGH(old_opts, a)), VN_EABI);
    old_opts zero = {0, 3};
    assert_int_equal(vn__abi_copy(&full, sizeof full, &zero, VN__SIZE_THROUGH(old_opts, a)), VN_EABI);
    old_opts odd = {sizeof(new_opts) - 1, 3};
    assert_int_equal(vn__abi_copy(&full, sizeof full, &odd, VN__SIZE_THROUGH(old_opts, a)), VN_EABI);
    assert_memory_equal(&full, &keep, sizeof full); /* untouched */
    assert_non_null(strstr(vn_strerror(VN_EABI), "vernier.h"));
}

static int fake_exec(const vn_exec_opts *o, double *wall_ns, vn_proc_usage *u, char *err,
                     size_t errlen, void *ctx)
{
    (void)o, (void)err, (void)errlen;
    ++*(int *)ctx;
    memset(u, 0, sizeof *u);
    u->tree_peak_kib = -1;
    *wall_ns = 1e6;
    return VN_EXEC_OK;
}

static int run(vn_run_config *c, int *calls, char *err, size_t errlen)
{
    static const char *const cmds[] = {"true"};
    c->commands = cmds;
    c->ncommands = 1;
    c->runs = 3;
    c->tree_memory = 0;
    c->dma_latency_us = -1;
    c->executor = fake_exec;
    c->executor_ctx = calls;
    vn_run_results r;
    vn_run_results_init(&r);
    vn_run_compare *cmp = NULL;
    size_t ncmp = 0;
    vn_run_failure fail;
    int rc = vn_run_commands(c, &r, &cmp, &ncmp, &fail, err, errlen);
    if (rc == 0) {
        assert_int_equal(r.ncommands, 1);
        assert_int_equal(r.commands[0].size, sizeof r.commands[0]);
        assert_int_equal(r.commands[0].nsamples, 3);
        free(cmp);
        vn_run_results_free(&r);
    }
    return rc;
}

static void the_runner_checks_its_config_size(void **state)
{
    (void)state;
    char err[256] = "";
    int calls = 0;
    vn_run_config c;
    vn_run_config_init(&c);
    assert_int_equal(c.size, sizeof c);
    assert_int_equal(run(&c, &calls, err, sizeof err), 0);
    assert_int_equal(calls, 3);

    /* Not set up by vn_run_config_init: refused before anything runs. */
    memset(&c, 0, sizeof c);
    calls = 0;
    assert_int_equal(run(&c, &calls, err, sizeof err), VN_EABI);
    assert_int_equal(calls, 0);
    assert_non_null(strstr(err, "vernier.h"));

    /* From a newer header than this library's. */
    vn_run_config_init(&c);
    c.size = sizeof c + sizeof(size_t);
    assert_int_equal(run(&c, &calls, err, sizeof err), VN_EABI);
    assert_int_equal(calls, 0);
}

/* A benchmark to run: one iteration that does nothing. */
static void nothing(vn_state *st)
{
    while (vn_next(st))
        ;
}

/* Settings for a short run that leaves the machine's idle states alone. */
static vn_config quick_config(void)
{
    vn_config c;
    vn_config_init(&c);
    assert_int_equal(c.size, sizeof c);
    c.max_time = 0.01;
    c.warmup = 0;
    c.dma_latency_us = -1;
    return c;
}

static void the_engine_checks_its_config_size(void **state)
{
    (void)state;
    vn_suite *s = vn_suite_create();
    assert_non_null(s);
    assert_int_equal(vn_suite_add(s, "nothing", nothing, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    /* A caller whose header ends at interleave: the rest keeps its
     * defaults, and the run goes ahead. */
    c.size = VN__SIZE_THROUGH(vn_config, interleave);
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(r.nbench, 1);
    vn__results_clear(&r);
    /* Not set up by vn_config_init, or from a newer header: refused. */
    c.size = 0;
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EABI);
    c.size = sizeof c + sizeof(size_t);
    assert_int_equal(vn__suite_run_here(s, &c, &r), VN_EABI);
    vn_suite_destroy(s);
}

/* The results are the caller's memory too: one not set up by
 * vn_run_results_init, or from another header, is refused before any run. */
static void the_runner_checks_its_results_size(void **state)
{
    (void)state;
    static const char *const cmds[] = {"true"};
    int calls = 0;
    vn_run_config c;
    vn_run_config_init(&c);
    c.commands = cmds;
    c.ncommands = 1;
    c.runs = 2;
    c.tree_memory = 0;
    c.dma_latency_us = -1;
    c.executor = fake_exec;
    c.executor_ctx = &calls;
    vn_run_compare *cmp = NULL;
    size_t ncmp = 0;
    vn_run_failure fail;
    char err[256] = "";
    size_t sizes[] = {0, sizeof(vn_run_results) - sizeof(size_t), sizeof(vn_run_results) + sizeof(size_t)};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        vn_run_results r;
        memset(&r, 0, sizeof r);
        r.size = sizes[i];
        assert_int_equal(vn_run_commands(&c, &r, &cmp, &ncmp, &fail, err, sizeof err), VN_EABI);
        assert_non_null(strstr(err, "vernier.h"));
    }
    assert_int_equal(calls, 0);
    vn_run_results_free(NULL);
}

/* The results are the library's to fill: it says how much of the struct it
 * filled and how far apart its rows are, and vn_results_at() steps by that. */
static void the_engine_sets_its_results_sizes(void **state)
{
    (void)state;
    vn_suite *s = vn_suite_create();
    assert_non_null(s);
    assert_int_equal(vn_suite_add(s, "a", nothing, NULL), 0);
    assert_int_equal(vn_suite_add(s, "b", nothing, NULL), 0);
    vn_config c = quick_config();
    vn_results r;
    memset(&r, 0xa5, sizeof r);
    assert_int_equal(vn__suite_run_here(s, &c, &r), 0);
    assert_int_equal(r.size, sizeof r);
    assert_int_equal(r.result_size, sizeof(vn_result));
    assert_int_equal(r.nbench, 2);
    assert_ptr_equal(vn_results_at(&r, 0), r.bench);
    assert_string_equal(vn_results_at(&r, 1)->name, "b");
    assert_null(vn_results_at(&r, 2));
    assert_null(vn_results_at(NULL, 0));
    vn__results_clear(&r);
    assert_null(vn_results_at(&r, 0));

    /* A caller whose header is newer than the library: the fields the
     * library does not know are zero, size says where its own end, and
     * nothing past the caller's struct is written. */
    unsigned char buf[sizeof(vn_results) + 64 + 16];
    memset(buf, 0xa5, sizeof buf);
    vn_results *big = (vn_results *)(void *)buf;
    assert_int_equal(vn__suite_run(s, &c, big, sizeof(vn_results) + 64), 0);
    assert_int_equal(big->size, sizeof(vn_results));
    for (size_t i = sizeof(vn_results); i < sizeof(vn_results) + 64; i++)
        assert_int_equal(buf[i], 0);
    for (size_t i = sizeof(vn_results) + 64; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0xa5);
    vn__results_clear(big);

    /* Smaller than the first layout: no library made such a header. */
    memset(&r, 0xa5, sizeof r);
    vn_results keep = r;
    assert_int_equal(vn__suite_run(s, &c, &r, VN__RESULTS_FIRST - 1), VN_EABI);
    assert_memory_equal(&r, &keep, sizeof r); /* untouched */
    vn_suite_destroy(s);
}

/* Equal, or both NAN. */
static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static void work(vn_state *st)
{
    unsigned x = 1;
    while (vn_next(st))
        x = x * 3 + 1;
    vn_keep(x);
}

static int find_something(vn_results *r, void *ctx)
{
    (void)ctx;
    return vn_results_add_finding(r, "fit", "a one-line finding", NULL);
}

/* The public results: allocated by vn_suite_run(), read through functions
 * that give what the library's own layout holds, each safe on NULL and past
 * the end, and freed whole by vn_results_free(). */
static void the_public_results_are_read_through_functions(void **state)
{
    (void)state;
    vn_suite *s = vn_suite_create();
    assert_non_null(s);
    assert_int_equal(vn_suite_add(s, "a", work, NULL), 0);
    assert_int_equal(vn_suite_add(s, "b", work, NULL), 0);
    vn_suite_set_after(s, find_something, NULL);
    vn_config c = quick_config();
    c.processes = 1;
    c.counters = "task-clock";
    vn_results *r = (vn_results *)1;
    assert_int_equal(vn_suite_run(NULL, &c, &r), VN_EINVAL);
    assert_null(r);
    assert_int_equal(vn_suite_run(s, &c, NULL), VN_EINVAL);
    assert_int_equal(vn_suite_run(s, &c, &r), 0);
    assert_non_null(r);
    assert_int_equal(vn_results_count(r), 2);
    for (size_t i = 0; i < 2; i++) {
        const vn_result *b = vn_results_at(r, i);
        assert_ptr_equal(b, (const vn_result *)((const char *)r->bench + i * r->result_size));
        assert_string_equal(vn_result_name(b), i ? "b" : "a");
        assert_int_equal(vn_result_stop(b), b->stop);
        assert_string_equal(vn_result_error(b), "");
        /* The figures are the fields the reporters print. */
        if (b->upper_bound) {
            assert_true(isnan(vn_result_figure(b, VN_MEDIAN)));
            assert_true(same(vn_result_figure(b, VN_BOUND), b->bound_ns));
        } else {
            assert_true(same(vn_result_figure(b, VN_MEDIAN), b->stats.median));
            assert_true(same(vn_result_figure(b, VN_CI_LO), b->stats.median_ci[0]));
            assert_true(same(vn_result_figure(b, VN_CI_HI), b->stats.median_ci[1]));
            assert_true(isnan(vn_result_figure(b, VN_BOUND)));
            /* The next run's interval holds the estimate's, which holds
             * the headline. */
            double lo = vn_result_figure(b, VN_CI_LO), hi = vn_result_figure(b, VN_CI_HI);
            if (isfinite(lo) && isfinite(b->est_ci[0]))
                assert_true(lo <= b->est_ci[0] && b->est_ci[0] <= b->stats.median &&
                            b->stats.median <= b->est_ci[1] && b->est_ci[1] <= hi);
        }
        assert_true(same(vn_result_figure(b, VN_MEAN), b->stats.mean));
        assert_true(same(vn_result_figure(b, VN_P99), b->stats.pct[8]));
        assert_true(same(vn_result_figure(b, VN_OVERHEAD), b->overhead_ns));
        assert_true(vn_result_figure(b, VN_SAMPLES) == (double)b->headline_samples);
        assert_true(vn_result_figure(b, VN_PROCESSES) == 1);
        assert_true(isnan(vn_result_figure(b, VN_RATIO))); /* no baseline */
        assert_true(isnan(vn_result_figure(b, (vn_figure)999)));
        /* The figures added in 0.8 are the fields the reporters print too. */
        assert_true(vn_result_figure(b, VN_N) == (double)b->stats.n);
        assert_true(vn_result_figure(b, VN_ITERS) == (double)b->iters);
        assert_true(vn_result_figure(b, VN_THREADS) == 1);
        assert_true(vn_result_figure(b, VN_LEFT_OUT) == b->left_out);
        assert_true(same(vn_result_figure(b, VN_CPU), b->cpu_ns));
        assert_true(same(vn_result_figure(b, VN_OVERHEAD_LO), b->overhead_ci[0]));
        assert_true(same(vn_result_figure(b, VN_OVERHEAD_HI), b->overhead_ci[1]));
        assert_true(same(vn_result_figure(b, VN_P50), b->stats.pct[4]));
        assert_true(same(vn_result_figure(b, VN_BYTES_PER_ITER), b->bytes_per_iter));
        assert_true(isnan(vn_result_figure(b, VN_PARAM)));  /* no parameter */
        assert_string_equal(vn_result_text(b, VN_TEXT_UNIT, 0), "ns");
        assert_string_equal(vn_result_text(b, VN_TEXT_PARAM, 0), "");
        assert_string_equal(vn_result_text(b, VN_TEXT_BASELINE, 0), "");
        assert_ptr_equal(vn_result_text(b, VN_TEXT_NAME, 0), vn_result_name(b));
        /* Every sample, one at a time, then NULL. */
        assert_int_equal(vn_result_samples(b), b->nsamples);
        assert_true(b->nsamples > 0);
        for (size_t k = 0; k < b->nsamples; k++)
            assert_ptr_equal(vn_result_sample(b, k), &b->samples[k]);
        assert_null(vn_result_sample(b, b->nsamples));
        /* Warnings and counters by index, with their brief and value. */
        assert_int_equal(vn_result_warnings(b), (size_t)b->nwarnings);
        for (size_t k = 0; k < vn_result_warnings(b); k++) {
            const char *brief = NULL;
            assert_string_equal(vn_result_warning(b, k, &brief), b->warnings[k].id);
            assert_non_null(brief);
            assert_true(*brief != 0);
        }
        assert_null(vn_result_warning(b, vn_result_warnings(b), NULL));
        assert_int_equal(vn_result_counters(b), (size_t)b->ncounters);
        for (size_t k = 0; k < vn_result_counters(b); k++) {
            double v = 0;
            assert_string_equal(vn_result_counter(b, k, &v), b->counters[k].name);
            assert_true(v == b->counters[k].value || (isnan(v) && isnan(b->counters[k].value)));
        }
        assert_null(vn_result_counter(b, vn_result_counters(b), NULL));
        for (size_t k = 0; k < vn_result_counters(b); k++)
            assert_non_null(vn_result_text(b, VN_TEXT_COUNTER_UNIT, k));
        assert_null(vn_result_text(b, VN_TEXT_COUNTER_UNIT, vn_result_counters(b)));
        for (size_t k = 0; k < vn_result_warnings(b); k++)
            assert_string_equal(vn_result_text(b, VN_TEXT_WARNING, k), b->warnings[k].message);
        assert_null(vn_result_text(b, VN_TEXT_WARNING, vn_result_warnings(b)));
    }
    assert_null(vn_results_at(r, 2));
    /* The finding the after hook added, with the brief the layout holds. */
    assert_int_equal(vn_results_findings(r), 1);
    const char *brief = NULL;
    assert_string_equal(vn_results_finding(r, 0, &brief), "fit");
    assert_non_null(brief);
    assert_string_equal(brief, r->findings[0].brief);
    assert_null(vn_results_finding(r, 1, &brief));
    vn_results_free(r);
    /* NULL everywhere: nothing, and no crash. */
    assert_int_equal(vn_results_count(NULL), 0);
    assert_null(vn_result_name(NULL));
    assert_null(vn_result_error(NULL));
    assert_null(vn_result_text(NULL, VN_TEXT_UNIT, 0));
    assert_true(isnan(vn_result_figure(NULL, VN_MEDIAN)));
    assert_int_equal(vn_result_samples(NULL), 0);
    assert_null(vn_result_sample(NULL, 0));
    assert_int_equal(vn_result_warnings(NULL), 0);
    assert_int_equal(vn_result_counters(NULL), 0);
    assert_int_equal(vn_results_findings(NULL), 0);
    vn_results_free(NULL);
    vn_suite_destroy(s);
}

/* A row whose every field is known, as the engine fills one. */
static void known_row(vn_result *x)
{
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "sum/n=64");
    snprintf(x->param_name, sizeof x->param_name, "n");
    x->param = 64;
    x->iters = 4096;
    x->stop = VN_STOP_PRECISION;
    x->stats.n = 12;
    x->stats.median = 10;
    x->stats.median_ci[0] = 9.5;
    x->stats.median_ci[1] = 10.5;
    x->stats.median_ci_level = 0.96;
    for (int i = 0; i < VN_STATS_NPCT; i++)
        x->stats.pct[i] = 8 + i;
    x->cpu_ns = 9.9;
    x->overhead_ns = 0.3;
    x->overhead_ci[0] = 0.29;
    x->overhead_ci[1] = 0.31;
    x->cycles = 26;
    x->cycles_ci[0] = 25.5;
    x->cycles_ci[1] = 26.5;
    x->cycles_headline = 1;
    x->bytes_per_iter = 256;
    x->items_per_iter = NAN;
    x->threads = 4;
    x->left_out = VN_TAG_PREEMPTED | VN_TAG_MIGRATED;
    snprintf(x->baseline, sizeof x->baseline, "base");
    x->ratio = 0.5;
    x->ratio_ci[0] = 0.45;
    x->ratio_ci[1] = 0.55;
    x->ncounters = 2;
    snprintf(x->counters[0].name, sizeof x->counters[0].name, "instructions");
    x->counters[0].value = 100;
    snprintf(x->counters[1].name, sizeof x->counters[1].name, "task-clock");
    x->counters[1].value = 9.8;
    x->counters[1].unit = "ns";
    x->counters[1].scaled = 1;
    x->derived.ipc = 3.85;
    x->derived.branch_miss_pct = x->derived.cache_miss_pct = NAN;
    x->derived.insn_per_byte = 0.39;
    x->nwarnings = 2;
    snprintf(x->warnings[0].id, sizeof x->warnings[0].id, "drift");
    snprintf(x->warnings[0].message, sizeof x->warnings[0].message, "the samples grow over time");
    snprintf(x->warnings[1].id, sizeof x->warnings[1].id, "high_variance");
    snprintf(x->warnings[1].message, sizeof x->warnings[1].message, "the samples vary by 18%%");
    snprintf(x->warnings[1].brief, sizeof x->warnings[1].brief, "18%% spread");
}

/* The texts of a row and the figures added in 0.8: each the field the
 * reporters print, with what it depends on (samples, a parameter, a
 * baseline, counters, not being an upper bound); NULL or NAN for a NULL
 * row, an unknown text or figure, and a warning or counter past the end. */
static void every_text_and_figure_reads_its_field(void **state)
{
    (void)state;
    vn_result x;
    known_row(&x);
    const vn_result *b = &x;
    assert_string_equal(vn_result_text(b, VN_TEXT_NAME, 0), "sum/n=64");
    assert_string_equal(vn_result_name(b), "sum/n=64");
    assert_string_equal(vn_result_text(b, VN_TEXT_ERROR, 0), "");
    assert_string_equal(vn_result_error(b), "");
    assert_string_equal(vn_result_text(b, VN_TEXT_UNIT, 0), "ns"); /* unit NULL: ns */
    x.unit = "cycles";
    assert_string_equal(vn_result_text(b, VN_TEXT_UNIT, 7), "cycles"); /* i is not read */
    assert_string_equal(vn_result_text(b, VN_TEXT_PARAM, 0), "n");
    assert_string_equal(vn_result_text(b, VN_TEXT_BASELINE, 0), "base");
    assert_ptr_equal(vn_result_text(b, VN_TEXT_WARNING, 0), x.warnings[0].message);
    assert_string_equal(vn_result_text(b, VN_TEXT_WARNING_BRIEF, 0), "");
    assert_ptr_equal(vn_result_text(b, VN_TEXT_WARNING, 1), x.warnings[1].message);
    assert_string_equal(vn_result_text(b, VN_TEXT_WARNING_BRIEF, 1), "18% spread");
    assert_null(vn_result_text(b, VN_TEXT_WARNING, 2));
    assert_null(vn_result_text(b, VN_TEXT_WARNING_BRIEF, 2));
    assert_string_equal(vn_result_text(b, VN_TEXT_COUNTER_UNIT, 0), "count"); /* unit NULL */
    assert_string_equal(vn_result_text(b, VN_TEXT_COUNTER_UNIT, 1), "ns");
    assert_null(vn_result_text(b, VN_TEXT_COUNTER_UNIT, 2));
    assert_null(vn_result_text(b, (vn_text)99, 0));
    const char *brief = NULL;
    assert_string_equal(vn_result_warning(b, 0, &brief), "drift");
    assert_ptr_equal(brief, x.warnings[0].message); /* no brief: the message */
    assert_string_equal(vn_result_warning(b, 1, &brief), "high_variance");
    assert_string_equal(brief, "18% spread");

    assert_true(vn_result_figure(b, VN_PARAM) == 64);
    assert_true(vn_result_figure(b, VN_ITERS) == 4096);
    assert_true(vn_result_figure(b, VN_N) == 12);
    assert_true(vn_result_figure(b, VN_CI_LEVEL) == 0.96);
    const vn_figure pct[] = {VN_P1, VN_P5, VN_P10, VN_P25, VN_P50, VN_P75, VN_P90, VN_P95, VN_P99};
    for (int i = 0; i < VN_STATS_NPCT; i++)
        assert_true(vn_result_figure(b, pct[i]) == 8 + i);
    assert_true(vn_result_figure(b, VN_CPU) == 9.9);
    assert_true(vn_result_figure(b, VN_CYCLES_LO) == 25.5);
    assert_true(vn_result_figure(b, VN_CYCLES_HI) == 26.5);
    assert_true(vn_result_figure(b, VN_CYCLES_HEADLINE) == 1);
    assert_true(vn_result_figure(b, VN_OVERHEAD_LO) == 0.29);
    assert_true(vn_result_figure(b, VN_OVERHEAD_HI) == 0.31);
    assert_true(vn_result_figure(b, VN_BYTES_PER_ITER) == 256);
    assert_true(isnan(vn_result_figure(b, VN_ITEMS_PER_ITER)));
    assert_true(vn_result_figure(b, VN_THREADS) == 4);
    assert_true(vn_result_figure(b, VN_LEFT_OUT) == (VN_TAG_PREEMPTED | VN_TAG_MIGRATED));
    assert_true(vn_result_figure(b, VN_IPC) == 3.85);
    assert_true(isnan(vn_result_figure(b, VN_BRANCH_MISS_PCT)));
    assert_true(isnan(vn_result_figure(b, VN_CACHE_MISS_PCT)));
    assert_true(vn_result_figure(b, VN_INSN_PER_BYTE) == 0.39);
    assert_true(vn_result_figure(b, VN_COUNTERS_SCALED) == 2); /* the second counter */
    assert_true(vn_result_figure(b, VN_RATIO) == 0.5);
    assert_true(isnan(vn_result_figure(b, (vn_figure)(VN_COUNTERS_SCALED + 1))));

    /* Cycles that moved less than the ns: the headline is the median. */
    x.cycles_headline = 0;
    assert_true(vn_result_figure(b, VN_CYCLES_HEADLINE) == 0);
    x.cycles_headline = 1;
    x.cycles = NAN;
    assert_true(vn_result_figure(b, VN_CYCLES_HEADLINE) == 0);

    /* An upper bound: no median, no interval, no level; the percentiles of
     * the loop with the body stay. */
    known_row(&x);
    x.upper_bound = 1;
    x.bound_ns = 0.31;
    assert_true(vn_result_figure(b, VN_BOUND) == 0.31);
    assert_true(isnan(vn_result_figure(b, VN_MEDIAN)));
    assert_true(isnan(vn_result_figure(b, VN_CI_LEVEL)));
    assert_true(isnan(vn_result_figure(b, VN_CYCLES_LO)));
    assert_true(isnan(vn_result_figure(b, VN_CYCLES_HI)));
    assert_true(vn_result_figure(b, VN_P50) == 12);

    /* No samples summarized (a failed row): no statistics; no parameter,
     * baseline or counters: NAN, "" and 0, whatever the fields hold. */
    known_row(&x);
    x.stats.n = 0;
    x.stop = VN_STOP_FAILED;
    snprintf(x.error, sizeof x.error, "could not allocate 1 GiB");
    x.param_name[0] = x.baseline[0] = '\0';
    x.ncounters = 0;
    memset(&x.derived, 0, sizeof x.derived);
    x.counters[0].scaled = 1;
    x.threads = 0;
    assert_ptr_equal(vn_result_error(b), x.error);
    assert_true(vn_result_figure(b, VN_N) == 0);
    const vn_figure stats[] = {VN_MEDIAN, VN_CI_LO, VN_CI_HI, VN_CI_LEVEL, VN_MEAN, VN_MAD,
                               VN_P1,     VN_P50,   VN_P99};
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
        assert_true(isnan(vn_result_figure(b, stats[i])));
    assert_true(isnan(vn_result_figure(b, VN_PARAM)));
    assert_true(isnan(vn_result_figure(b, VN_RATIO)));
    assert_true(isnan(vn_result_figure(b, VN_IPC)));
    assert_true(isnan(vn_result_figure(b, VN_INSN_PER_BYTE)));
    assert_true(vn_result_figure(b, VN_COUNTERS_SCALED) == 0);
    assert_true(vn_result_figure(b, VN_THREADS) == 1);
    assert_null(vn_result_text(b, VN_TEXT_COUNTER_UNIT, 0));

    /* Counts past the arrays are read no further than the arrays. */
    known_row(&x);
    x.nwarnings = VN_MAX_WARNINGS + 5;
    x.ncounters = VN_COUNTERS_MAX + 5;
    assert_int_equal(vn_result_warnings(b), VN_MAX_WARNINGS);
    assert_int_equal(vn_result_counters(b), VN_COUNTERS_MAX);
    assert_null(vn_result_text(b, VN_TEXT_WARNING, VN_MAX_WARNINGS));
    assert_null(vn_result_warning(b, VN_MAX_WARNINGS, NULL));
    assert_null(vn_result_text(b, VN_TEXT_COUNTER_UNIT, VN_COUNTERS_MAX));
    assert_null(vn_result_counter(b, VN_COUNTERS_MAX, NULL));
    x.nwarnings = -1;
    x.ncounters = -1;
    assert_int_equal(vn_result_warnings(b), 0);
    assert_int_equal(vn_result_counters(b), 0);

    /* Samples counted but not there: none to read. */
    x.nsamples = 3;
    x.samples = NULL;
    assert_null(vn_result_sample(b, 0));

    /* A NULL row: NULL texts and NAN figures. */
    for (int t = VN_TEXT_NAME; t <= VN_TEXT_COUNTER_UNIT; t++)
        assert_null(vn_result_text(NULL, (vn_text)t, 0));
    for (int f = VN_MEDIAN; f <= VN_COUNTERS_SCALED; f++)
        assert_true(isnan(vn_result_figure(NULL, (vn_figure)f)));
    assert_null(vn_result_error(NULL));
}

/* A program built against an older header, whose vn_result is smaller than
 * the library's: the rows are the library's size apart, and only its
 * stride finds the second one. Here the library's rows are 64 bytes larger
 * than the test's. */
static void the_rows_are_found_by_the_librarys_stride(void **state)
{
    (void)state;
    enum { N = 3, MORE = 64 };
    size_t stride = sizeof(vn_result) + MORE;
    char *rows = calloc(N, stride);
    assert_non_null(rows);
    const char *names[N] = {"first", "second", "third"};
    for (size_t i = 0; i < N; i++) {
        vn_result *x = (vn_result *)(void *)(rows + i * stride);
        snprintf(x->name, sizeof x->name, "%s", names[i]);
        x->unit = "ns";
        x->iters = 1;
        x->stop = VN_STOP_PRECISION;
        x->cycles = x->ref_ns = x->cpu_ns = x->on_cpu = NAN;
        x->bytes_per_sec = x->items_per_sec = NAN;
        x->threads = 1;
        /* Freed by vn_results_free, which must find each row to free it. */
        x->samples = calloc(1, sizeof *x->samples);
        assert_non_null(x->samples);
    }
    vn_results r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.result_size = stride;
    r.bench = (vn_result *)(void *)rows;
    r.nbench = N;
    r.optimized = 1;
    vn_config_init(&r.config);
    for (size_t i = 0; i < N; i++) {
        assert_ptr_equal(vn_results_at(&r, i), rows + i * stride);
        assert_string_equal(vn_results_at(&r, i)->name, names[i]);
    }
    assert_null(vn_results_at(&r, N));

    /* The reporters walk the rows the same way. */
    vn_buf b;
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_csv(&r, 0, &b), 0);
    for (size_t i = 0; i < N; i++) {
        char line[32];
        snprintf(line, sizeof line, "\n%s,", names[i]);
        assert_non_null(strstr(b.data, line));
    }
    vn_buf_free(&b);

    /* Sizes no library set: refused before any row is read. */
    vn_buf_init(&b, 0);
    r.result_size = sizeof(vn_result) - 8;
    assert_int_equal(vn_report_results_json(&r, &b), VN_EABI);
    /* Rows of an older library, smaller than this one's, are still found;
     * rows smaller than the first layout are no library's. */
    assert_non_null(vn_results_at(&r, 0));
    r.result_size = VN__RESULT_FIRST - 8;
    assert_null(vn_results_at(&r, 0));
    r.result_size = 0;
    assert_null(vn_results_at(&r, 0));
    r.result_size = stride;
    r.size = 0;
    assert_int_equal(vn_report_results_text(&r, 0, &b), VN_EABI);
    assert_int_equal(vn_report_results_markdown(&r, &b), VN_EABI);
    r.size = sizeof r;
    vn_buf_free(&b);
    vn__results_clear(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_older_caller_gets_the_defaults_of_what_it_lacks),
        cmocka_unit_test(a_size_no_init_set_is_refused),
        cmocka_unit_test(the_runner_checks_its_config_size),
        cmocka_unit_test(the_engine_checks_its_config_size),
        cmocka_unit_test(the_runner_checks_its_results_size),
        cmocka_unit_test(the_engine_sets_its_results_sizes),
        cmocka_unit_test(the_rows_are_found_by_the_librarys_stride),
        cmocka_unit_test(the_public_results_are_read_through_functions),
        cmocka_unit_test(every_text_and_figure_reads_its_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
