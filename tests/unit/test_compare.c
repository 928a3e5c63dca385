/* vernier compare's reader and arithmetic on small hand-made inputs: which
 * values each format gives, where a malformed file is wrong, how sides
 * pool, and the ratios, intervals, verdicts and geometric mean. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare/compare.h"

static int read_text(vn__cmp_side *s, const char *text, vn__cmp_error *e)
{
    return vn__cmp_read(s, text, strlen(text), e);
}

static const vn__cmp_bench *bench(const vn__cmp_side *s, const char *name)
{
    for (size_t i = 0; i < s->nbench; i++)
        if (!strcmp(s->bench[i].name, name))
            return &s->bench[i];
    return NULL;
}

static void vernier_code_uses_the_headline_samples(void **state)
{
    (void)state;
    /* The preempted sample is left out; the empty loop (1 ns) is taken off. */
    const char *doc =
        "{\"schema\":\"vernier.results/1\",\"kind\":\"code\",\"env\":{\"kernel\":\"6.1\","
        "\"cpu\":{\"model\":\"X\",\"logical\":4},\"cpufreq\":[{\"governor\":null},{\"governor\":\"powersave\"}]},"
        "\"benchmarks\":[{\"name\":\"f/n=8\",\"params\":{\"n\":8},\"left_out\":[\"preempted\",\"migrated\"],"
        "\"overhead\":{\"ns\":1},\"upper_bound\":false,\"stop\":\"precision\",\"error\":null,"
        "\"samples\":[{\"value\":10,\"tags\":[]},{\"value\":12,\"tags\":[]},{\"value\":11,\"tags\":[]},"
        "{\"value\":100,\"tags\":[\"preempted\"]}],"
        "\"counters\":{\"instructions\":{\"value\":42}}},"
        "{\"name\":\"tiny\",\"upper_bound\":true,\"bound_ns\":0.31,\"samples\":[{\"value\":1,\"tags\":[]}]},"
        "{\"name\":\"broken\",\"stop\":\"failed\",\"error\":\"setup returned -1\",\"samples\":[]}]}";
    vn__cmp_side s;
    vn__cmp_side_init(&s);
    vn__cmp_error e;
    assert_int_equal(read_text(&s, doc, &e), 0);
    assert_int_equal(s.formats, VN__CMP_CODE);
    const vn__cmp_bench *b = bench(&s, "f/n=8");
    assert_non_null(b);
    assert_int_equal(b->n, 3);
    assert_true(b->values[0] == 9 && b->values[1] == 11 && b->values[2] == 10);
    assert_int_equal(b->ninsn, 1);
    assert_true(b->insn[0] == 42);
    assert_int_equal(b->nparams, 1);
    assert_string_equal(b->params[0].key, "n");
    assert_string_equal(b->params[0].value, "8");
    /* No values: an upper bound, which the reason gives; a failure, with
     * the stop reason and the error the file holds. */
    b = bench(&s, "tiny");
    assert_int_equal(b->n, 0);
    assert_non_null(strstr(b->why, "< 0.31 ns"));
    b = bench(&s, "broken");
    assert_int_equal(b->n, 0);
    assert_int_equal(strncmp(b->why, "failed", 6), 0);
    /* The input's own error text, echoed back. */
    assert_non_null(strstr(b->why, "setup returned -1"));
    assert_string_equal(s.facts[VN__CMP_FACT_CPU], "X");
    assert_string_equal(s.facts[VN__CMP_FACT_CPUS], "4");
    assert_string_equal(s.facts[VN__CMP_FACT_GOVERNOR], "powersave");
    assert_string_equal(s.facts[VN__CMP_FACT_KERNEL], "6.1");
    vn__cmp_side_free(&s);
}

static void commands_keep_the_raw_runs(void **state)
{
    (void)state;
    const char *doc = "{\"schema\":\"vernier.results/1\",\"kind\":\"commands\",\"benchmarks\":[{\"name\":\"sh\","
                      "\"overhead\":{\"ns\":5},\"samples\":[{\"value\":100,\"tags\":[\"preempted\"]},"
                      "{\"value\":200,\"tags\":[]}]}]}";
    vn__cmp_side s;
    vn__cmp_side_init(&s);
    vn__cmp_error e;
    assert_int_equal(read_text(&s, doc, &e), 0);
    assert_int_equal(s.formats, VN__CMP_COMMANDS);
    assert_int_equal(s.bench[0].n, 2);
    assert_true(s.bench[0].values[0] == 100 && s.bench[0].values[1] == 200);
    vn__cmp_side_free(&s);
}

static void gbench_repetitions_without_aggregates(void **state)
{
    (void)state;
    const char *a = "{\"context\":{\"host_name\":\"a\",\"num_cpus\":8,\"cpu_scaling_enabled\":true},"
                    "\"benchmarks\":[{\"name\":\"f\",\"run_type\":\"iteration\",\"real_time\":1.5,\"time_unit\":\"us\","
                    "\"INSTRUCTIONS\":300},"
                    "{\"name\":\"f\",\"run_type\":\"iteration\",\"real_time\":2,\"time_unit\":\"us\"},"
                    "{\"name\":\"f_mean\",\"run_type\":\"aggregate\",\"aggregate_name\":\"mean\",\"real_time\":1.75},"
                    "{\"name\":\"g\",\"error_occurred\":true,\"error_message\":\"no file\",\"real_time\":0}]}";
    const char *b = "{\"context\":{\"host_name\":\"b\"},\"benchmarks\":[{\"name\":\"f\",\"real_time\":3}]}";
    vn__cmp_side s;
    vn__cmp_side_init(&s);
    vn__cmp_error e;
    assert_int_equal(read_text(&s, a, &e), 0);
    assert_int_equal(s.nbench, 2);
    assert_int_equal(s.bench[0].n, 2);
    assert_true(s.bench[0].values[0] == 1500 && s.bench[0].values[1] == 2000);
    assert_true(s.bench[0].ninsn == 1 && s.bench[0].insn[0] == 300);
    assert_int_equal(s.bench[1].n, 0);
    assert_int_equal(strncmp(s.bench[1].why, "failed", 6), 0);
    /* The input's own error_message, echoed back. */
    assert_non_null(strstr(s.bench[1].why, "no file"));
    assert_string_equal(s.facts[VN__CMP_FACT_SCALING], "on");
    /* A second file pools with the first; the host it names differs. */
    assert_int_equal(read_text(&s, b, &e), 0);
    assert_int_equal(s.bench[0].n, 3);
    assert_true(s.bench[0].values[2] == 3);
    assert_string_equal(s.facts[VN__CMP_FACT_HOST], VN__CMP_FACT_VARIES);
    assert_string_equal(s.facts[VN__CMP_FACT_CPUS], "8");
    assert_int_equal(s.nfiles, 2);
    vn__cmp_side_free(&s);
}

static void hyperfine_times_or_median(void **state)
{
    (void)state;
    const char *doc = "{\"results\":[{\"command\":\"a\",\"times\":[0.001,0.002]},"
                      "{\"command\":\"b\",\"median\":0.5,\"mean\":9}]}";
    vn__cmp_side s;
    vn__cmp_side_init(&s);
    vn__cmp_error e;
    assert_int_equal(read_text(&s, doc, &e), 0);
    assert_int_equal(s.formats, VN__CMP_HYPERFINE);
    assert_true(s.bench[0].n == 2 && s.bench[0].values[0] == 1e6 && s.bench[0].values[1] == 2e6);
    assert_true(s.bench[1].n == 1 && s.bench[1].values[0] == 5e8);
    vn__cmp_side_free(&s);
}

static void errors_say_where(void **state)
{
    (void)state;
    vn__cmp_side s;
    vn__cmp_side_init(&s);
    vn__cmp_error e;
    /* Malformed JSON: where the parser stopped, from 1. */
    assert_int_equal(read_text(&s, "{\n  \"a\" 1}", &e), VN_EINVAL);
    assert_int_equal(e.line, 2);
    assert_int_equal(e.column, 7);
    assert_true(e.msg[0] != '\0');
    assert_null(strchr(e.msg, '\n'));
    char malformed[sizeof e.msg];
    snprintf(malformed, sizeof malformed, "%s", e.msg);
    /* Cut short: stopped at the end of the file, and said otherwise. */
    assert_int_equal(read_text(&s, "{\"results\": [\n", &e), VN_EINVAL);
    assert_int_equal(e.line, 2);
    assert_int_equal(e.column, 1);
    assert_string_not_equal(e.msg, malformed);
    assert_int_equal(read_text(&s, "{} x", &e), VN_EINVAL);
    assert_int_equal(e.column, 4);
    /* JSON, but not results: no position; the schema named. */
    assert_int_equal(read_text(&s, "{\"schema\":\"vernier.stats/1\"}", &e), VN_EINVAL);
    assert_int_equal(e.line, 0);
    assert_non_null(strstr(e.msg, "vernier.stats/1"));
    assert_int_equal(read_text(&s, "[]", &e), VN_EINVAL);
    assert_int_equal(e.line, 0);
    assert_true(e.msg[0] != '\0');
    /* A file that fails part way adds nothing to the side; the error names
     * the entry and the field it lacks. */
    assert_int_equal(read_text(&s, "{\"results\":[{\"command\":\"a\",\"times\":[1]},{\"times\":[1]}]}", &e),
                     VN_EINVAL);
    assert_int_equal(e.line, 0);
    assert_non_null(strstr(e.msg, "results[1]"));
    assert_non_null(strstr(e.msg, "command"));
    assert_int_equal(s.nbench, 0);
    assert_int_equal(read_text(&s, "{\"results\":[{\"command\":\"a\",\"times\":[1e999]}]}", &e), VN_EINVAL);
    vn__cmp_side_free(&s);
}

/* A side of hyperfine results: one command per (name, values). */
static void side_of(vn__cmp_side *s, const char *name, const double *ns, size_t n)
{
    char doc[8192];
    int at = snprintf(doc, sizeof doc, "{\"results\":[{\"command\":\"%s\",\"times\":[", name);
    for (size_t i = 0; i < n; i++)
        at += snprintf(doc + at, sizeof doc - (size_t)at, "%s%.17g", i ? "," : "", ns[i] / 1e9);
    snprintf(doc + at, sizeof doc - (size_t)at, "]}]}");
    vn__cmp_error e;
    assert_int_equal(read_text(s, doc, &e), 0);
}

static void compare_one(const double *a, size_t na, const double *b, size_t nb, double threshold,
                        vn__cmp_result *r, vn__cmp_side *sa, vn__cmp_side *sb)
{
    vn__cmp_side_init(sa);
    vn__cmp_side_init(sb);
    side_of(sa, "x", a, na);
    side_of(sb, "x", b, nb);
    vn__cmp_options o;
    vn__cmp_options_init(&o);
    o.threshold = threshold;
    assert_int_equal(vn__cmp_compare(sa, sb, &o, r), 0);
}

/* The threshold is the precision both sides were measured to when both
 * say (the looser of the two), else the one given; --threshold wins. */
static void threshold_is_the_precision_the_files_asked(void **state)
{
    (void)state;
    double a[40], up[40];
    for (int i = 0; i < 40; i++) {
        a[i] = 1000 + (i * 37 % 40);
        up[i] = a[i] * 1.03;
    }
    const struct {
        double pa, pb;
        int from_files;
        double want;
        vn__cmp_verdict verdict;
    } cases[] = {
        {0.005, 0.002, 1, 0.005, VN__CMP_SLOWER}, /* +-0.5% asked: 3% is a change */
        {0.04, 0.005, 1, 0.04, VN__CMP_SAME},     /* the looser side's */
        {0.005, 0, 1, 0.05, VN__CMP_SAME},        /* one side says nothing: as given */
        {0.005, 0.005, 0, 0.05, VN__CMP_SAME},    /* --threshold given */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        vn__cmp_side sa, sb;
        vn__cmp_side_init(&sa);
        vn__cmp_side_init(&sb);
        side_of(&sa, "x", a, 40);
        side_of(&sb, "x", up, 40);
        sa.precision = cases[c].pa;
        sb.precision = cases[c].pb;
        vn__cmp_options o;
        vn__cmp_options_init(&o);
        o.threshold = 0.05;
        o.threshold_from_files = cases[c].from_files;
        vn__cmp_result r;
        assert_int_equal(vn__cmp_compare(&sa, &sb, &o, &r), 0);
        assert_float_equal(r.opt.threshold, cases[c].want, 1e-15);
        assert_int_equal(r.rows[0].verdict, cases[c].verdict);
        vn__cmp_result_free(&r);
        vn__cmp_side_free(&sa);
        vn__cmp_side_free(&sb);
    }
}

static void verdicts_follow_the_interval(void **state)
{
    (void)state;
    double a[40], half[40], up[40];
    for (int i = 0; i < 40; i++) {
        a[i] = 1000 + (i * 37 % 40);   /* 1000..1039, shuffled */
        half[i] = a[i] / 2;
        up[i] = a[i] * 1.01;
    }
    vn__cmp_side sa, sb;
    vn__cmp_result r;
    compare_one(a, 40, half, 40, 0.02, &r, &sa, &sb);
    assert_int_equal(r.nrows, 1);
    assert_true(fabs(r.rows[0].ratio - 0.5) < 1e-12);
    assert_true(r.rows[0].lo <= 0.5 && r.rows[0].hi >= 0.5 && r.rows[0].hi < 0.98);
    assert_int_equal(r.rows[0].verdict, VN__CMP_FASTER);
    assert_true(r.rows[0].p < 1e-10);
    double lo = r.rows[0].lo, hi = r.rows[0].hi;
    vn__cmp_result_free(&r);
    vn__cmp_side_free(&sa);
    vn__cmp_side_free(&sb);
    /* The same files, the same interval: the bootstrap is seeded. */
    compare_one(a, 40, half, 40, 0.02, &r, &sa, &sb);
    assert_true(r.rows[0].lo == lo && r.rows[0].hi == hi);
    vn__cmp_result_free(&r);
    vn__cmp_side_free(&sa);
    vn__cmp_side_free(&sb);
    /* 1% slower: within a 2% threshold no change, beyond 0.1% slower. */
    compare_one(a, 40, up, 40, 0.02, &r, &sa, &sb);
    assert_int_equal(r.rows[0].verdict, VN__CMP_SAME);
    vn__cmp_result_free(&r);
    vn__cmp_side_free(&sa);
    vn__cmp_side_free(&sb);
    compare_one(a, 40, up, 40, 0.001, &r, &sa, &sb);
    assert_true(r.rows[0].lo > 1.001);
    assert_int_equal(r.rows[0].verdict, VN__CMP_SLOWER);
    assert_int_equal(r.count[VN__CMP_SLOWER], 1);
    vn__cmp_result_free(&r);
    vn__cmp_side_free(&sa);
    vn__cmp_side_free(&sb);
    /* One value a side: a ratio, but no interval and no verdict. */
    compare_one(a, 1, half, 1, 0.02, &r, &sa, &sb);
    assert_int_equal(r.rows[0].verdict, VN__CMP_NO_INTERVAL);
    assert_true(isnan(r.rows[0].lo) && isnan(r.geo_lo));
    assert_true(fabs(r.geomean - 0.5) < 1e-12);
    vn__cmp_result_free(&r);
    vn__cmp_side_free(&sa);
    vn__cmp_side_free(&sb);
}

/* A side of code results from one run: eight processes at the given ns
 * (cycles three times that), its headline printed with next-run interval
 * [lo, hi] in ns (NAN: none printed). */
/* A run of n processes in ns (cycles three times as many), with the
 * interval it printed for the next run (none for NaN); its headline their
 * lower quartile when quartile, else their median. */
static void run_doc(vn__cmp_side *s, const double *ns, int n, double lo, double hi, int quartile)
{
    char doc[16384], ci[128] = "";
    int at = snprintf(doc, sizeof doc,
                      "{\"schema\":\"vernier.results/1\",\"kind\":\"code\",\"benchmarks\":[{"
                      "\"name\":\"x\",\"overhead\":{\"ns\":0},\"samples\":[");
    for (int i = 0; i < n; i++)
        at += snprintf(doc + at, sizeof doc - (size_t)at, "%s{\"value\":%g,\"process\":%d}",
                       i ? "," : "", ns[i], i);
    at += snprintf(doc + at, sizeof doc - (size_t)at, "],\"processes\":[");
    for (int i = 0; i < n; i++)
        at += snprintf(doc + at, sizeof doc - (size_t)at, "%s{\"value\":%g,\"cycles\":%g}",
                       i ? "," : "", ns[i], 3 * ns[i]);
    if (!isnan(lo))
        snprintf(ci, sizeof ci, ",\"units\":{\"ns\":{\"ci\":[%g,%g]},\"cycles\":{\"ci\":[%g,%g]}}",
                 lo, hi, 3 * lo, 3 * hi);
    snprintf(doc + at, sizeof doc - (size_t)at, "],\"headline\":{\"unit\":\"ns\"%s%s}}]}",
             quartile ? ",\"quantile\":0.25" : "", ci);
    vn__cmp_error e;
    assert_int_equal(read_text(s, doc, &e), 0);
}

static void run_of(vn__cmp_side *s, const double *ns, double lo, double hi)
{
    run_doc(s, ns, 8, lo, hi, 0);
}

/* The one row of comparing sb with sa by default, compared over their
 * processes; r to be freed. */
static const vn__cmp_row *process_row(const vn__cmp_side *sa, const vn__cmp_side *sb,
                                      vn__cmp_result *r)
{
    vn__cmp_options o;
    vn__cmp_options_init(&o);
    assert_int_equal(vn__cmp_compare(sa, sb, &o, r), 0);
    assert_int_equal(r->nrows, 1);
    assert_string_equal(r->rows[0].method, "processes");
    return &r->rows[0];
}

/* Each run's printed interval is its promise about the next run: a
 * headline within the other run's is no change, though the interval of
 * the ratio over the processes lies above 1. */
static void a_headline_the_other_run_promised_is_no_change(void **state)
{
    (void)state;
    const double tight[8] = {100, 101, 99, 100.5, 99.5, 100, 100.2, 100.1};
    const double spread[8] = {90, 110, 95, 105, 100, 85, 115, 100};
    const double near[8] = {130, 130.5, 129.5, 130, 130.2, 129.8, 130, 130.1};
    /* Past the spread's own median interval (100 +-12.3%), within the one
     * it gives the next run ([83.1, 117.8]). */
    const double mid[8] = {117, 117.5, 116.5, 117, 117.2, 116.8, 117, 117.1};
    const double far[8] = {160, 160.5, 159.5, 160, 160.2, 159.8, 160, 160.1};
    const struct {
        const double *base, *new_;
        double base_lo, base_hi, new_lo, new_hi;
        int pool_base;   /* 1: BASE twice; 2: a file where it failed, then BASE */
        vn__cmp_verdict verdict;
    } cases[] = {
        {tight, near, 95, 135, 129, 131, 0, VN__CMP_SAME},   /* 130 within BASE's [95, 135] */
        {tight, near, 99, 101, 60, 140, 0, VN__CMP_SAME},    /* 100 within NEW's [60, 140] */
        {tight, far, 95, 135, 159, 161, 0, VN__CMP_SLOWER},  /* beyond both */
        {tight, near, 99, 101, 129, 131, 0, VN__CMP_SLOWER}, /* each run sure of itself */
        /* None printed: the one the processes give, narrow, then wide */
        {tight, near, NAN, NAN, 129, 131, 0, VN__CMP_SLOWER},
        {spread, mid, NAN, NAN, 116, 118, 0, VN__CMP_SAME},
        /* Two files pooled: no one run's promise; the processes' own */
        {tight, near, 95, 135, 129, 131, 1, VN__CMP_SLOWER},
        /* A file that gave no headline, then one run's: that run's */
        {tight, near, 95, 135, 129, 131, 2, VN__CMP_SAME},
    };
    const char *failed = "{\"schema\":\"vernier.results/1\",\"kind\":\"code\",\"benchmarks\":"
                         "[{\"name\":\"x\",\"stop\":\"failed\",\"error\":\"boom\",\"samples\":[]}]}";
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        vn__cmp_side sa, sb;
        vn__cmp_side_init(&sa);
        vn__cmp_side_init(&sb);
        vn__cmp_error e;
        if (cases[c].pool_base == 2)
            assert_int_equal(read_text(&sa, failed, &e), 0);
        run_of(&sa, cases[c].base, cases[c].base_lo, cases[c].base_hi);
        if (cases[c].pool_base == 1)
            run_of(&sa, cases[c].base, cases[c].base_lo, cases[c].base_hi);
        run_of(&sb, cases[c].new_, cases[c].new_lo, cases[c].new_hi);
        vn__cmp_result r;
        const vn__cmp_row *w = process_row(&sa, &sb, &r);
        assert_true(w->lo > 1.02);
        assert_int_equal(w->verdict, cases[c].verdict);
        assert_int_equal(w->within_next_run, cases[c].verdict == VN__CMP_SAME);
        assert_int_equal(w->units_base, cases[c].pool_base == 1 ? 16 : 8); /* processes pool */
        vn__cmp_result_free(&r);
        vn__cmp_side_free(&sa);
        vn__cmp_side_free(&sb);
    }
}

/* Processes in two states of the machine (a buffer in the host's shared
 * cache, or not). One run met only the fast one, near 100 ns; the next
 * met it in 3 processes of 20 and the slow one, near 125-140, in the
 * rest. Its quartile moves by a quarter, beyond both runs' intervals,
 * while its fastest tenth stays: no change, said so; and the other way
 * round, faster is no change too. Every process 10% slower, code that got
 * slower, is slower. */
static void a_state_that_slowed_some_processes_is_no_change(void **state)
{
    (void)state;
    enum { K = 20 };
    double tight[K], few[K], slower[K];
    for (int i = 0; i < K; i++) {
        tight[i] = 100 + 0.1 * i;
        few[i] = i % 7 ? 125 + 0.8 * i : 100 + 0.1 * (i / 7);
        slower[i] = 1.1 * tight[i];
    }
    const struct {
        const double *base, *new_;
        double base_ci[2], new_ci[2];
        vn__cmp_verdict verdict;
        int still;
    } cases[] = {
        {tight, few, {100.2, 100.9}, {120, 132}, VN__CMP_SAME, 1},
        {few, tight, {120, 132}, {100.2, 100.9}, VN__CMP_SAME, 1},
        {tight, slower, {100.2, 100.9}, {110.2, 111.0}, VN__CMP_SLOWER, 0},
        {tight, tight, {100.2, 100.9}, {100.2, 100.9}, VN__CMP_SAME, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        vn__cmp_side sa, sb;
        vn__cmp_side_init(&sa);
        vn__cmp_side_init(&sb);
        run_doc(&sa, cases[c].base, K, cases[c].base_ci[0], cases[c].base_ci[1], 1);
        run_doc(&sb, cases[c].new_, K, cases[c].new_ci[0], cases[c].new_ci[1], 1);
        vn__cmp_result r;
        const vn__cmp_row *w = process_row(&sa, &sb, &r);
        assert_int_equal(w->within_next_run, 0);
        if (cases[c].still)
            assert_true(w->lo > 1.02 || w->hi < 0.98); /* the headlines alone said apart */
        assert_true(fabs(w->fast_ratio - (cases[c].new_ == slower ? 1.1 : 1)) < 0.01);
        assert_true(w->fast_lo <= w->fast_ratio && w->fast_ratio <= w->fast_hi);
        assert_int_equal(w->verdict, cases[c].verdict);
        assert_int_equal(w->fast_end_still, cases[c].still);
        vn__cmp_result_free(&r);
        vn__cmp_side_free(&sa);
        vn__cmp_side_free(&sb);
    }
}

static void geomean_and_what_is_left_out(void **state)
{
    (void)state;
    double a[] = {10, 11, 12, 13}, b[] = {20, 22, 24, 26}, c[] = {5, 5.5, 6, 6.5};
    vn__cmp_side base, new_;
    vn__cmp_side_init(&base);
    vn__cmp_side_init(&new_);
    side_of(&base, "slow", a, 4);
    side_of(&base, "fast", a, 4);
    side_of(&base, "gone", a, 4);
    side_of(&new_, "slow", b, 4);
    side_of(&new_, "fast", c, 4);
    side_of(&new_, "added", c, 4);
    vn__cmp_error e;
    assert_int_equal(read_text(&base, "{\"results\":[{\"command\":\"nothing\",\"times\":[]}]}", &e), 0);
    side_of(&new_, "nothing", a, 4);
    vn__cmp_options o;
    vn__cmp_options_init(&o);
    vn__cmp_result r;
    assert_int_equal(vn__cmp_compare(&base, &new_, &o, &r), 0);
    assert_int_equal(r.nrows, 2);
    assert_true(fabs(r.geomean - 1) < 1e-12); /* sqrt(2 x 0.5) */
    assert_true(r.geo_lo <= 1 && r.geo_hi >= 1);
    assert_int_equal(r.nonly_base, 1);
    assert_string_equal(r.only_base[0], "gone");
    assert_int_equal(r.nonly_new, 1);
    assert_string_equal(r.only_new[0], "added");
    assert_int_equal(r.nskipped, 1);
    assert_string_equal(r.skipped[0].name, "nothing");
    /* Skipped for what BASE lacks, which the reason says. */
    assert_non_null(strstr(r.skipped[0].why, "BASE"));
    assert_null(strstr(r.skipped[0].why, "NEW"));
    vn__cmp_result_free(&r);
    vn__cmp_side_free(&base);
    vn__cmp_side_free(&new_);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vernier_code_uses_the_headline_samples),
        cmocka_unit_test(commands_keep_the_raw_runs),
        cmocka_unit_test(gbench_repetitions_without_aggregates),
        cmocka_unit_test(hyperfine_times_or_median),
        cmocka_unit_test(errors_say_where),
        cmocka_unit_test(verdicts_follow_the_interval),
        cmocka_unit_test(threshold_is_the_precision_the_files_asked),
        cmocka_unit_test(a_headline_the_other_run_promised_is_no_change),
        cmocka_unit_test(a_state_that_slowed_some_processes_is_no_change),
        cmocka_unit_test(geomean_and_what_is_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
