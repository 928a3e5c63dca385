/* The reporters of the in-process engine's results, on results built by
 * hand: a plain result with throughput, one that is only an upper bound,
 * a failed one, one run on four threads, a noisy one with warnings and
 * tagged samples, and one whose name holds a comma, quotes and a pipe and
 * whose cycles are unknown. Each view is compared with a golden file in
 * tests/golden/ (see golden.h), and the properties that matter are checked
 * on their own so a wrong golden file cannot hide them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "results_fixture.h"

#include "golden.h"
#include "base/format.h"
#include "report/internal.h"
#include "text_checks.h"

/* ---- Fixtures -------------------------------------------------------------- */

#define NBENCH 6
#define OVERHEAD 0.31

static vn_result *add(vn_results *r, const char *name)
{
    vn_result *res = fx_add(r, name, 1024, OVERHEAD);
    res->ref_spread = 0.012;
    res->elapsed = 0.25;
    return res;
}

/* n samples of net time around `net` (ns per iteration) with a relative
 * spread `amp`, in a fixed irregular order; the overhead is added back,
 * since samples hold what was measured. */
static void samples(vn_result *res, size_t n, double net, double amp)
{
    res->samples = calloc(n, sizeof *res->samples);
    assert_non_null(res->samples);
    res->nsamples = n;
    res->headline_samples = n;
    /* A body that computes: its thread is on the CPU the whole sample. */
    res->cpu_ns = net * 0.99;
    for (size_t i = 0; i < n; i++) {
        double wave = (double)((int)((i * 7) % 11) - 5) / 5;
        vn_sample *s = &res->samples[i];
        s->value = net * (1 + amp * wave) + OVERHEAD;
        s->iters = res->iters;
        s->ref_ns = 0.385 + 0.001 * (double)(i % 3);
        s->branch_cycles = 1.0 + 0.002 * (double)(i % 3);
        s->cpu_ns = s->value * 0.99;
    }
}

static void tag(vn_result *res, size_t i, unsigned tags)
{
    res->samples[i].tags = tags;
    res->samples[i].value *= 3; /* a preempted sample is slow */
    res->ntagged++;
    res->headline_samples--;
    if (tags & VN_TAG_SHARED_CORE) {
        res->samples[i].branch_cycles = 2.1;
        res->nshared++;
    }
}

/* The statistics the engine keeps: over the untagged samples, net of the
 * overhead; cycles and throughput from the median. */
static void finish(vn_result *res)
{
    double *x = malloc((res->nsamples + 1) * sizeof *x);
    assert_non_null(x);
    size_t n = 0;
    for (size_t i = 0; i < res->nsamples; i++)
        if (!res->samples[i].tags)
            x[n++] = res->samples[i].value - res->overhead_ns;
    if (n)
        assert_int_equal(vn_stats_compute(x, n, &res->stats), 0);
    free(x);
    double m = res->stats.median;
    if (isfinite(res->ref_ns))
        res->cycles = m / res->ref_ns;
    if (isfinite(res->bytes_per_iter))
        res->bytes_per_sec = res->bytes_per_iter / m * 1e9;
    if (isfinite(res->items_per_iter))
        res->items_per_sec = res->items_per_iter / m * 1e9;
}

/* A warning with its brief; NULL for none, so the console makes one from
 * the message. */
static void warn(vn_result *res, const char *id, const char *brief, const char *message)
{
    vn_bench_warning *w = &res->warnings[res->nwarnings++];
    snprintf(w->id, sizeof w->id, "%s", id);
    snprintf(w->brief, sizeof w->brief, "%s", brief ? brief : "");
    snprintf(w->message, sizeof w->message, "%s", message);
}

#define TRICKY "parse,\"quoted\"|pipe/long_name_for_alignment"

static void fixture(vn_results *r)
{
    fx_results_init(r, "sysroot-vm");
    assert_true(r->env.nwarnings > 0);
    r->timer = VN_CLOCK_TSC_LFENCE;
    snprintf(r->timer_reason, sizeof r->timer_reason,
             "the TSC is invariant and agrees across CPUs");
    r->timer_cost_ns = 16.9;
    r->timer_resolution_ns = 10.0;
    r->counter_hz = 2596098000.0;
    r->config = (vn_config){.max_time = 1, .precision = 1, .min_samples = 10,
                            .max_samples = 10000, .warmup = 0.02, .min_sample_time = 0.001,
                            .cpu = -1, .threads = 1};
    r->optimized = 1;
    r->bench = calloc(NBENCH, sizeof *r->bench);
    assert_non_null(r->bench);

    /* A plain result with a parameter and a throughput. */
    vn_result *res = add(r, "sum/n=1024");
    snprintf(res->param_name, sizeof res->param_name, "n");
    res->param = 1024;
    res->bytes_per_iter = 4096;
    samples(res, 24, 1234.5, 0.002);
    finish(res);
    warn(res, "interference", "3/24 samples preempted or moved, left out",
         "3 of 24 samples were preempted or migrated and are left out of the headline");
    /* Measured in four processes, the last on a shared core; the clock
     * moved, so its headline that compares across runs is in cycles. */
    r->processes = 4;
    r->processes_wall = 1.3;
    res->nprocesses = 4;
    res->processes = calloc(4, sizeof *res->processes);
    assert_non_null(res->processes);
    for (size_t i = 0; i < res->nsamples; i++) {
        res->samples[i].process = (int)(i % 4);
        res->samples[i].block = i >= 12;
    }
    for (int k = 0; k < 4; k++) {
        vn_process_result *q = &res->processes[k];
        q->value = 1234.5 * (1 + 0.004 * k);
        q->cycles = 3206.5 + 0.5 * k;
        q->overhead_ns = OVERHEAD;
        q->samples = q->used = 6;
        q->run_process = k < 3 ? (size_t)k : 7; /* the last came back for the late look */
        q->elapsed = 0.06;
        q->probe = k == 3 ? 1.72 : 1.01;
        q->shared = k == 3;
        q->left_out = k == 3;
    }
    res->processes_left_out = 1;
    res->cycles_headline = 1;
    res->cycles = 3207;
    res->cycles_ci[0] = 3205.4;
    res->cycles_ci[1] = 3208.6;
    res->stats.median_ci_level = 0.95;
    res->share_processes = 0.25;
    res->share_blocks = 0.05;
    res->share_samples = 0.70;


    /* Not distinguishable from the empty loop: the net values straddle 0. */
    res = add(r, "empty");
    res->iters = 1048576;
    samples(res, 30, 0.02, 1.5);
    finish(res);
    res->upper_bound = 1;
    res->bound_ns = 0.31;
    res->cycles = 0.31 / 0.385; /* the bound in reference cycles */
    res->stop = VN_STOP_MAX_TIME;
    warn(res, "dead_code", NULL, "the body takes no measurable time; the compiler may have removed it");
    warn(res, "max_time", "CI +-2.0%, +-1% asked; budget spent waiting for quiet moments",
         "budget 1 s spent waiting for quiet moments; CI +-2.0% for +-1% asked");

    /* Failed before any sample. */
    res = add(r, "broken");
    res->iters = 0;
    res->stop = VN_STOP_FAILED;
    snprintf(res->error, sizeof res->error, "could not allocate 1 GiB");

    /* Four threads, each with its own median. */
    res = add(r, "contended/threads=4");
    samples(res, 20, 52.5, 0.01);
    for (size_t i = 0; i < res->nsamples; i++)
        res->samples[i].thread = (int)(i % 4);
    finish(res);
    res->threads = 4;
    res->thread_median = calloc(4, sizeof *res->thread_median);
    assert_non_null(res->thread_median);
    res->total_iter_per_sec = 0;
    for (int t = 0; t < 4; t++) {
        res->thread_median[t] = 52.5 * (1 + 0.01 * t);
        res->total_iter_per_sec += 1e9 / res->thread_median[t];
    }

    /* Noisy: tagged samples left out, several warnings, one of them an id
     * without a letter of its own. */
    res = add(r, "noisy");
    res->iters = 16;
    samples(res, 40, 81234.0, 0.3);
    tag(res, 3, VN_TAG_PREEMPTED);
    tag(res, 17, VN_TAG_PREEMPTED | VN_TAG_MIGRATED);
    for (size_t i = 25; i < 30; i++)
        tag(res, i, VN_TAG_SHARED_CORE);
    finish(res);
    res->stop = VN_STOP_MAX_TIME;
    warn(res, "high_variance", "18.0% spread, scaled MAD / median",
         "the samples vary by 18% (MAD/median); close other programs");
    warn(res, "drift", NULL, "the samples grow over time (Spearman 0.62, p < 0.001)");
    warn(res, "interference", "2/40 samples preempted or moved, left out",
         "2 of 40 samples were preempted or migrated and are left out of the headline");
    warn(res, "shared_core", "5/40 samples, left out: sharing slowed this body",
         "5 of 40 samples ran on a shared core; left out: sharing slowed this body");
    warn(res, "max_time", "CI +-19%, +-1% asked; budget spent waiting for quiet moments",
         "budget 1 s spent waiting for quiet moments; CI +-19% for +-1% asked");
    warn(res, "custom_check", NULL, "a warning id the console has no letter for");

    /* A name that needs quoting in CSV and escaping in Markdown; no
     * reference cycle, so cycles are unknown; items rather than bytes. */
    res = add(r, TRICKY);
    res->ref_ns = NAN;
    res->ref_spread = NAN;
    res->overhead_cycles = res->overhead_cycles_spread = NAN;
    res->items_per_iter = 100;
    samples(res, 12, 7.25, 0.01);
    for (size_t i = 0; i < res->nsamples; i++)
        res->samples[i].ref_ns = res->samples[i].branch_cycles = NAN;
    finish(res);
    res->stop = VN_STOP_MAX_SAMPLES;
    assert_int_equal(r->nbench, NBENCH);

    /* Compared with a baseline: the first row (1 against itself), the
     * noisy one with an interval, the bound with no ratio at all. */
    const vn_result *base = &r->bench[0];
    for (size_t i = 0; i < NBENCH; i++) {
        res = &r->bench[i];
        if (i != 0 && strcmp(res->name, "noisy") && strcmp(res->name, "empty"))
            continue;
        snprintf(res->baseline, sizeof res->baseline, "%s", base->name);
        res->ratio_paired = 1;
        res->ratio_n = res->upper_bound ? 0 : 21;
        res->ratio = res->upper_bound ? NAN : res->stats.median / base->stats.median;
        res->ratio_ci[0] = res->upper_bound ? NAN : i ? res->ratio * 0.93 : 1;
        res->ratio_ci[1] = res->upper_bound ? NAN : i ? res->ratio * 1.19 : 1;
    }
}

static void fixture_free(vn_results *r)
{
    for (size_t i = 0; i < r->nbench; i++) {
        free(r->bench[i].samples);
        free(r->bench[i].thread_median);
        free(r->bench[i].processes);
    }
    free(r->bench);
    vn_sysinfo_free(&r->env);
}

static int text_color(const vn_results *r, vn_buf *b)
{
    return vn_report_results_text(r, VN_REPORT_COLOR, b);
}
static int hist_plain(const vn_results *r, vn_buf *b) { return vn_report_results_hist(r, 0, b); }

static const struct {
    const char *name;
    report_fn fn;
} reports[] = {
    {"text", text_plain},       {"hist", hist_plain},
    {"json", vn_report_results_json}, {"csv", csv_summary},
    {"csv raw", csv_raw},       {"markdown", vn_report_results_markdown},
};

/* Runs one reporter into a fresh buffer the caller frees. */
static void render(const vn_results *r, report_fn fn, vn_buf *b)
{
    vn_buf_init(b, 0);
    assert_int_equal(fn(r, b), 0);
    assert_non_null(b->data);
}

/* The line of b that starts with prefix, copied into line. */
static int find_line(const char *text, const char *prefix, char *line, size_t n)
{
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!strncmp(p, prefix, strlen(prefix))) {
            snprintf(line, n, "%.*s", (int)len, p);
            return 1;
        }
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* ---- A strict JSON syntax check --------------------------------------------- */

/* Enough of RFC 8259 to tell a well-formed document from a broken one; the
 * schema itself is checked by tests/cli/test_results_schema.py. */
typedef struct jp {
    const char *p;
    int ok;
} jp;

static void ws(jp *j)
{
    while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
        j->p++;
}

static void value(jp *j, int depth);

static void jstring(jp *j)
{
    if (*j->p != '"') {
        j->ok = 0;
        return;
    }
    for (j->p++; *j->p != '"'; j->p++) {
        if (!*j->p || (unsigned char)*j->p < 0x20) {
            j->ok = 0;
            return;
        }
        if (*j->p == '\\') {
            j->p++;
            if (*j->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i])
                        j->ok = 0;
                j->p += 4;
            } else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) {
                j->ok = 0;
                return;
            }
        }
    }
    j->p++;
}

static void number(jp *j)
{
    const char *s = j->p;
    if (*j->p == '-')
        j->p++;
    if (*j->p == '0')
        j->p++;
    else if (*j->p >= '1' && *j->p <= '9')
        while (*j->p >= '0' && *j->p <= '9')
            j->p++;
    else
        j->ok = 0;
    if (*j->p == '.') {
        j->p++;
        if (!(*j->p >= '0' && *j->p <= '9'))
            j->ok = 0;
        while (*j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    if (*j->p == 'e' || *j->p == 'E') {
        j->p++;
        if (*j->p == '+' || *j->p == '-')
            j->p++;
        if (!(*j->p >= '0' && *j->p <= '9'))
            j->ok = 0;
        while (*j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    if (j->p == s)
        j->ok = 0;
}

static void members(jp *j, int depth, char close, int keyed)
{
    j->p++;
    ws(j);
    if (*j->p == close) {
        j->p++;
        return;
    }
    while (j->ok) {
        ws(j);
        if (keyed) {
            jstring(j);
            ws(j);
            if (*j->p != ':') {
                j->ok = 0;
                return;
            }
            j->p++;
        }
        value(j, depth + 1);
        ws(j);
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p != close)
            j->ok = 0;
        else
            j->p++;
        return;
    }
}

static void value(jp *j, int depth)
{
    ws(j);
    if (depth > 64 || !j->ok) {
        j->ok = 0;
        return;
    }
    if (*j->p == '{')
        members(j, depth, '}', 1);
    else if (*j->p == '[')
        members(j, depth, ']', 0);
    else if (*j->p == '"')
        jstring(j);
    else if (!strncmp(j->p, "true", 4))
        j->p += 4;
    else if (!strncmp(j->p, "false", 5))
        j->p += 5;
    else if (!strncmp(j->p, "null", 4))
        j->p += 4;
    else
        number(j);
}

static int json_ok(const char *s)
{
    jp j = {s, 1};
    value(&j, 0);
    ws(&j);
    return j.ok && *j.p == '\0';
}

/* ---- Tests ----------------------------------------------------------------- */

static void golden_files(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    static const char *const names[5] = {"results-main.txt", "results-main.md", "results-main.csv",
                                   "results-raw.csv", "results-main.json"};
    fx_check_golden_views(&r, names);
    /* --explain and the histograms, whose wording is held here only. */
    vn_buf b;
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_text(&r, VN_REPORT_EXPLAIN, &b), 0);
    check_golden("results-main-explain.txt", &b);
    vn_buf_free(&b);
    render(&r, hist_plain, &b);
    check_golden("results-main-hist.txt", &b);
    vn_buf_free(&b);
    fixture_free(&r);
}

/* The row of r whose name is name. */
static const vn_result *row(const vn_results *r, const char *name)
{
    for (size_t i = 0; i < r->nbench; i++)
        if (!strcmp(r->bench[i].name, name))
            return &r->bench[i];
    fail_msg("no row %s", name);
    return &r->bench[0]; /* not reached: fail_msg() ends the test */
}

/* The warning id of res; fails when res has none such. */
static const vn_bench_warning *warning(const vn_result *res, const char *id)
{
    for (int i = 0; i < res->nwarnings; i++)
        if (!strcmp(res->warnings[i].id, id))
            return &res->warnings[i];
    fail_msg("%s has no warning %s", res->name, id);
    return &res->warnings[0]; /* not reached */
}

/* The console's line for warning id, which starts with its mark and id
 * ("I interference: "), copied into line; fails when there is none or
 * more than one. */
static void finding(const char *text, char mark, const char *id, char *line, size_t n)
{
    char head[64];
    snprintf(head, sizeof head, "%c %s: ", mark, id);
    assert_int_equal(tc_lines(text, head), 1);
    assert_true(tc_line(text, head, line, n));
}

/* The upper-bound row shows the bound, rounded up, and nothing else that
 * could be read as a time: no negative number, no tiny net median. */
/* A parameter past 2^53, where a double rounds: JSON and CSV print it
 * whole, as the row's name does. */
static void large_parameter_is_exact(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_result *a = &r.bench[0];
    a->param = (1LL << 60) + 1;
    snprintf(a->name, sizeof a->name, "sum/n=%lld", (long long)a->param);
    vn_buf b;
    render(&r, vn_report_results_json, &b);
    assert_non_null(strstr(b.data, "\"n\": 1152921504606846977"));
    vn_buf_free(&b);
    render(&r, csv_summary, &b);
    assert_non_null(strstr(b.data, ",1152921504606846977,"));
    vn_buf_free(&b);
    fixture_free(&r);
}

static void upper_bound_row(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_result *e = &r.bench[1];
    assert_true(e->upper_bound);
    assert_true(e->stats.min < 0);    /* the fixture does hold negative net values */
    /* For a bound, cycles holds the bound in reference cycles too. */
    assert_true(fabs(e->cycles - 0.31 / 0.385) < 1e-12);

    vn_buf b;
    render(&r, text_plain, &b);
    char line[1024];
    assert_true(find_line(b.data, "empty ", line, sizeof line));
    assert_non_null(strstr(line, "< 0.31 ns"));
    assert_non_null(strstr(line, "< 0.9")); /* cycles: 0.31 / 0.385 rounded up */
    /* Three times only: the bound, the MAD (the noise) and the overhead. */
    int times = 0;
    for (const char *p = line; (p = strstr(p, " ns")) != NULL; p++)
        times++;
    assert_int_equal(times, 3);
    for (const char *p = line; *p; p++)
        if (*p == '-')
            assert_false(p[1] >= '0' && p[1] <= '9');
    vn_buf_free(&b);

    /* A bound that is not round is rounded up, never down. */
    e->bound_ns = 0.3012;
    render(&r, text_plain, &b);
    assert_true(find_line(b.data, "empty ", line, sizeof line));
    assert_non_null(strstr(line, "< 0.31 ns"));
    vn_buf_free(&b);

    render(&r, vn_report_results_markdown, &b);
    assert_true(find_line(b.data, "| empty ", line, sizeof line));
    assert_non_null(strstr(line, "| < 0.31 ns |"));
    for (const char *p = line; *p; p++)
        if (*p == '-')
            assert_false(p[1] >= '0' && p[1] <= '9');
    vn_buf_free(&b);

    /* CSV leaves the location of noise empty and gives the bound. */
    render(&r, csv_summary, &b);
    assert_true(find_line(b.data, "empty,", line, sizeof line));
    assert_null(strchr(line, '-'));
    assert_non_null(strstr(line, ",1,0.3012,"));
    vn_buf_free(&b);

    /* JSON keeps everything, with the flag, the bound and its rule beside
     * it; a row that is no bound has no rule. */
    render(&r, vn_report_results_json, &b);
    assert_non_null(strstr(b.data, "\"upper_bound\": true,\n      \"bound_ns\": 0.3012,\n"
                                   "      \"bound_rule\": \"fastest\","));
    assert_non_null(strstr(b.data, "\"upper_bound\": false,\n      \"bound_ns\": null,\n"
                                   "      \"bound_rule\": null,"));
    vn_buf_free(&b);
    fixture_free(&r);
}

static void text_table(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    render(&r, text_plain, &b);
    char line[1024], header[1024];

    /* Every column of a row ends where its header does, however long the
     * longest name is. */
    assert_true(find_line(b.data, "benchmark ", header, sizeof header));
    static const char *right[] = {"time", "mean", "MAD", "min", "p99", "cycles",
                                  "throughput", "samples", "overhead"};
    static const char *rows[] = {"sum/n=1024 ", "empty ", "contended/threads=4 ", "noisy ",
                                 "parse,"};
    for (size_t c = 0; c < sizeof right / sizeof right[0]; c++) {
        const char *h = strstr(header, right[c]);
        assert_non_null(h);
        size_t end = (size_t)(h - header) + strlen(right[c]);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            assert_true(find_line(b.data, rows[i], line, sizeof line));
            assert_true(strlen(line) >= end);
            assert_true(line[end - 1] != ' ');
            assert_true(line[end] == ' ' || line[end] == '\0');
        }
    }

    /* The +-% is the farther end of the median's interval from the median;
     * the threaded one's interval is lopsided, so the two ends differ. */
    const vn_stats *st = &r.bench[3].stats;
    double lo = st->median - st->median_ci[0], hi = st->median_ci[1] - st->median;
    assert_true(fabs(lo - hi) > 0.2 * fmax(lo, hi));
    char want[64];
    snprintf(want, sizeof want, " 52.5 ns +-%.1f%% ", fmax(lo, hi) / st->median * 100);
    assert_true(find_line(b.data, "contended/threads=4 ", line, sizeof line));
    assert_non_null(strstr(line, want));
    /* A headline in cycles (the clock moved) shows the interval of cycles,
     * marked c. */
    const vn_result *c0 = &r.bench[0];
    double half = fmax(c0->cycles - c0->cycles_ci[0], c0->cycles_ci[1] - c0->cycles);
    snprintf(want, sizeof want, " 1.23 us +-%.2f%%c ", half / c0->cycles * 100);
    assert_true(find_line(b.data, "sum/n=1024 ", line, sizeof line));
    assert_non_null(strstr(line, want));
    assert_non_null(strstr(line, " 4 ")); /* its processes */
    r.bench[0].cycles_headline = 0;
    st = &r.bench[0].stats;
    half = fmax(st->median - st->median_ci[0], st->median_ci[1] - st->median);
    snprintf(want, sizeof want, " 1.23 us +-%.*f%% ", half / st->median * 100 < 0.095 ? 2 : 1,
             half / st->median * 100);
    vn_buf plain;
    render(&r, text_plain, &plain);
    assert_true(find_line(plain.data, "sum/n=1024 ", line, sizeof line));
    vn_buf_free(&plain);
    assert_non_null(strstr(line, want));
    assert_non_null(strstr(line, " 24x1024 "));
    assert_non_null(strstr(line, " 3.32 GB/s "));
    assert_non_null(strstr(line, " 0.310 ns")); /* overhead */
    /* An interval too narrow for two decimals still has a width. */
    vn_stats keep = r.bench[0].stats;
    r.bench[0].stats.median_ci[0] = keep.median * (1 - 1.2e-5);
    r.bench[0].stats.median_ci[1] = keep.median * (1 + 1e-5);
    vn_buf narrow;
    render(&r, text_plain, &narrow);
    assert_true(find_line(narrow.data, "sum/n=1024 ", line, sizeof line));
    assert_non_null(strstr(line, " +-<0.01% "));
    r.bench[0].stats.median_ci[0] = r.bench[0].stats.median_ci[1] = keep.median;
    vn_buf_free(&narrow);
    render(&r, text_plain, &narrow);
    assert_true(find_line(narrow.data, "sum/n=1024 ", line, sizeof line));
    assert_non_null(strstr(line, " +-0% "));
    /* Two samples: [min, max] covers the median half the time, not 95%. */
    r.bench[0].stats.median_ci[0] = keep.median * 0.99;
    r.bench[0].stats.median_ci[1] = keep.median * 1.01;
    r.bench[0].stats.median_ci_level = 0.5;
    vn_buf_free(&narrow);
    render(&r, text_plain, &narrow);
    assert_true(find_line(narrow.data, "sum/n=1024 ", line, sizeof line));
    assert_null(strstr(line, "+-"));
    assert_non_null(strstr(line, " 1.23 us - "));
    r.bench[0].stats = keep;
    r.bench[0].cycles_headline = 1;
    vn_buf_free(&narrow);

    /* The failed row says why instead of numbers: its stop, its error. */
    const vn_result *broken = row(&r, "broken");
    assert_true(find_line(b.data, "broken ", line, sizeof line));
    assert_true(tc_in_order(line, vn_stop_name(broken->stop), broken->error, NULL));
    assert_null(strstr(line, " ns"));
    assert_null(strstr(line, "+-"));

    /* Threads: on the line under their row, how many, the rate of all
     * together and the median of each, in order. */
    const char *threads = strstr(b.data, "\ncontended/threads=4 ");
    assert_non_null(threads);
    threads = strchr(threads + 1, '\n') + 1;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(threads, "\n"), threads);
    assert_int_equal(strncmp(line, "  4 ", 4), 0);
    assert_true(tc_in_order(line, "75.1 Miter/s", "52.5 ns, 53.0 ns, 53.6 ns, 54.1 ns", NULL));

    /* Warning marks; below the table a line per id naming its rows, what
     * differs between them first and what they share once; a warning
     * without a brief shows its message's first clause; the machine's
     * warnings in a few words on one line, their fixes left to --explain. */
    assert_true(find_line(b.data, "noisy ", line, sizeof line));
    size_t len = strlen(line);
    assert_true(len > 7 && !strcmp(line + len - 7, " VDIHT!"));
    /* The first finding right after the table's blank line: each row with
     * what differs (its count), then once, in parentheses, what they
     * share. */
    assert_int_equal(strncmp(strstr(b.data, "\n\n") + 2, "I interference: ", 16), 0);
    finding(b.data, 'I', "interference", line, sizeof line);
    assert_true(tc_in_order(line, "sum/n=1024 3/24", "noisy 2/40", "(", NULL));
    assert_int_equal(line[strlen(line) - 1], ')');
    assert_ptr_equal(strchr(line, '('), strrchr(line, '('));
    /* Each row's interval, then once the precision asked. */
    finding(b.data, 'T', "max_time", line, sizeof line);
    assert_true(tc_in_order(line, "empty", "+-2.0%", "noisy", "+-19%", "(", "+-1%", NULL));
    assert_null(strstr(strstr(line, "+-1%") + 1, "+-1%"));
    /* A warning without a brief shows its message's first clause. */
    const vn_bench_warning *dead = warning(row(&r, "empty"), "dead_code");
    size_t clause = strcspn(dead->message, ";");
    assert_true(clause < strlen(dead->message));
    finding(b.data, 'Z', "dead_code", line, sizeof line);
    const char *open = strchr(line, '(');
    assert_true(tc_in_order(line, "empty", "(", NULL));
    assert_int_equal(strncmp(open + 1, dead->message, clause), 0);
    assert_string_equal(open + 1 + clause, ")");
    /* Past four lines of ids, the rest share the fourth, with their rows. */
    const char *fourth = strstr(b.data, "\n\n") + 2;
    for (int i = 0; i < 3; i++)
        fourth = strchr(fourth, '\n') + 1;
    assert_int_equal(strncmp(fourth, "also: ", 6), 0);
    assert_int_equal(strncmp(strchr(fourth, '\n') + 1, "machine: ", 9), 0);
    assert_true(tc_line(b.data, "also: ", line, sizeof line));
    assert_true(tc_in_order(line, "V high_variance (noisy)", "D drift (noisy)", "H shared_core (noisy)",
                            "! custom_check (noisy)", NULL));
    /* The machine's warnings in a few words each, on one line. */
    assert_true(tc_line(b.data, "machine: ", line, sizeof line));
    const char *at = line;
    for (int i = 0; i < r.env.nwarnings; i++) {
        at = strstr(at, r.env.warnings[i].brief);
        assert_non_null(at);
        at += strlen(r.env.warnings[i].brief);
        if (i + 1 < r.env.nwarnings)
            assert_int_equal(strncmp(at, ", ", 2), 0);
        else
            assert_int_equal(*at, '\0');
    }
    assert_null(strstr(b.data, "fix"));
    assert_null(strstr(b.data, "warn:"));
    /* Each id once, whatever the number of rows it touched. */
    assert_null(strstr(strstr(b.data, "I interference:") + 1, "I interference:"));
    /* One line per finding: none wider than a screen. */
    for (const char *p = strstr(b.data, "\n\n") + 2; *p;) {
        size_t n = strcspn(p, "\n");
        if (n > 100)
            fail_msg("a line of %zu columns: %.*s", n, (int)n, p);
        p += n + (p[n] == '\n');
    }

    /* Unknown cycles show as "-", the items rate in the throughput column. */
    assert_true(find_line(b.data, "parse,", line, sizeof line));
    assert_non_null(strstr(line, " - "));
    assert_non_null(strstr(line, " 13.8 Gitems/s "));

    /* The timer without why (--explain says), and where the rest is; the
     * rows that stopped at the budget are their max_time line's to name,
     * with no count of them beside the count of those that failed. */
    assert_true(tc_line(b.data, "timer: ", line, sizeof line));
    assert_true(tc_in_order(line, "tsc_lfence", "16.9 ns", "10.0 ns", NULL));
    assert_null(strstr(line, "--explain"));
    /* What the intervals saw, on the last line: no run sees the variation
     * between runs, and this one lasted 1.3 s over 4 processes. */
    assert_true(tc_line(b.data, "variation between runs not measured: ", line, sizeof line));
    assert_true(tc_in_order(line, "4 processes", "within 1.3 s", NULL));
    assert_string_equal(line + strlen(line) - strlen("--explain"), "--explain");
    assert_null(strstr(b.data, r.timer_reason));
    assert_null(strstr(b.data, "\n2 of 6 "));
    assert_non_null(strstr(b.data, "\n1 of 6 failed\n"));
    assert_null(strstr(b.data, "interrupted"));
    /* No line ends in a space. */
    assert_null(strstr(b.data, " \n"));
    vn_buf_free(&b);
    fixture_free(&r);
}

/* The words of a, split at spaces, occur in b in the same order. */
static int words_within(const char *a, const char *b)
{
    char x[1024];
    size_t len = strlen(a);
    if (len >= sizeof x)
        return 0;
    memcpy(x, a, len + 1);
    const char *at = b;
    for (char *save = NULL, *w = strtok_r(x, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        size_t n = strlen(w);
        const char *hit = at;
        /* A whole word: bounded by spaces or the line's ends. */
        while ((hit = strstr(hit, w)) && ((hit > b && hit[-1] != ' ') || (hit[n] && hit[n] != ' ')))
            hit++;
        if (!hit)
            return 0;
        at = hit + n;
    }
    return 1;
}

/* The table's lines (the header, then a line per row) of a console report. */
static size_t table_lines(const char *text, char lines[][1024], size_t most)
{
    size_t n = 0;
    for (const char *p = text; p && *p && *p != '\n' && n < most;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(lines[n++], 1024, "%.*s", (int)len, p);
        p = e ? e + 1 : NULL;
    }
    return n;
}

/* On a terminal (VN_REPORT_WIDTH) the table fits its width: the columns a
 * reader needs least leave first, one line says which, and the cells that
 * stay are the wide table's, in their places. */
static void table_fits_the_width(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf full;
    render(&r, text_plain, &full);
    char wide[16][1024];
    size_t n = table_lines(full.data, wide, 16), widest = 0;
    assert_true(n > NBENCH / 2);
    for (size_t i = 0; i < n; i++)
        widest = strlen(wide[i]) > widest ? strlen(wide[i]) : widest;
    assert_true(widest > 100); /* else the fixture tests nothing here */
    assert_null(strstr(full.data, "left out to fit"));

    static const char *order[] = {"overhead",   "mean", "min",     "MAD",   "p99",
                                  "throughput", "cpu",  "samples", "procs", "cycles"};
    /* Every width from the table's own down to 1. */
    for (size_t width = widest; width >= 1; width--) {
        vn_buf b;
        vn_buf_init(&b, 0);
        assert_int_equal(vn_report_results_text(&r, VN_REPORT_WIDTH(width), &b), 0);
        if (width == widest) {
            assert_string_equal(b.data, full.data);
            vn_buf_free(&b);
            continue;
        }
        /* The table's lines, then the note right under them, once. */
        char narrow[16][1024], note[1024], head[1040], named[1040];
        assert_int_equal(table_lines(b.data, narrow, 16), n + 1);
        assert_int_equal(tc_lines(b.data, "left out to fit "), 1);
        assert_true(find_line(narrow[n], "left out to fit ", note, sizeof note));
        assert_true(strlen(note) <= 100);
        const char *colon = strstr(note, ": ");
        assert_non_null(colon);
        snprintf(named, sizeof named, ", %s, ", colon + 2);
        snprintf(head, sizeof head, " %s ", narrow[0]);
        /* The columns left out are the first of the order, each named in
         * the note; the headline and the marks stay. */
        int gone = 1, some_stay = 0;
        for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
            char word[32], item[32];
            snprintf(word, sizeof word, " %s ", order[k]);
            snprintf(item, sizeof item, ", %s, ", order[k]);
            int in_note = strstr(named, item) != NULL, in_head = strstr(head, word) != NULL;
            assert_true(in_note != in_head);
            if (in_head)
                gone = 0, some_stay = 1;
            else
                assert_true(gone);
        }
        for (const char *const *h = (const char *const[]){"benchmark", "time", "ci95", "relative",
                                                          "warn", NULL};
             *h; h++)
            assert_non_null(strstr(narrow[0], *h));
        if (width == widest - 1) {
            char want[64];
            snprintf(want, sizeof want, "left out to fit %zu columns: overhead", width);
            assert_string_equal(note, want);
        }
        /* The header and every row of cells fit while a column could
         * still leave (a failed row's message and a line of per-thread
         * medians are not cells). */
        for (size_t i = 0; i < n && some_stay; i++)
            if (narrow[i][0] != ' ' && !strstr(narrow[i], " failed: "))
                assert_true(strlen(narrow[i]) <= width);
        /* A row's cells are the wide row's; a line of per-thread medians
         * too long for the width gives their range instead. */
        for (size_t i = 0; i < n; i++)
            assert_true(narrow[i][0] == ' ' ? !strncmp(narrow[i], wide[i], strcspn(wide[i], ";"))
                                            : words_within(narrow[i], wide[i]));
        vn_buf_free(&b);
    }
    vn_buf_free(&full);
    fixture_free(&r);
}

/* What the rows of one warning id share is said once, after what differs;
 * it never starts inside a number ("1.5%" ends "11.5%") nor takes a
 * number's unit from it ("12.5 ms", "42.03 cycles", "~80 processes" stay
 * whole). */
static void findings_keep_numbers_whole(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    for (size_t i = 0; i < r.nbench; i++)
        r.bench[i].nwarnings = 0;
    warn(&r.bench[0], "high_variance", "11.5% spread, scaled MAD / median", "m");
    warn(&r.bench[1], "high_variance", "1.5% spread, scaled MAD / median", "m");
    warn(&r.bench[0], "too_short", "12.5 ms per run; starting a process is much of that", "m");
    warn(&r.bench[1], "too_short", "2.5 ms per run; starting a process is much of that", "m");
    warn(&r.bench[0], "max_processes", "est. +-3.9%, needs ~306 processes; +-1% asked", "m");
    warn(&r.bench[1], "max_processes", "est. +-2%, needs ~80 processes; +-1% asked", "m");
    warn(&r.bench[0], "processes_disagree", "9.688 cycles to 42.03 cycles over 20 processes", "m");
    warn(&r.bench[1], "processes_disagree", "9.7 cycles to 12 cycles over 20 processes", "m");
    vn_buf b;
    render(&r, text_plain, &b);
    /* Each row with its whole number, then the rest of the briefs, the
     * part they share, once. */
    static const struct {
        char mark;
        const char *id, *first, *second;
        size_t number; /* the length of the second row's number and its space */
    } cases[] = {{'V', "high_variance", "sum/n=1024 11.5%,", "empty 1.5% (", 5},
                 {'!', "too_short", "sum/n=1024 12.5 ms,", "empty 2.5 ms (", 7}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char line[512];
        finding(b.data, cases[c].mark, cases[c].id, line, sizeof line);
        assert_true(tc_in_order(line, cases[c].first, cases[c].second, NULL));
        /* The shared part: the second row's brief after its number. */
        const char *shared = warning(&r.bench[1], cases[c].id)->brief + cases[c].number;
        const char *open = strchr(line, '(');
        assert_int_equal(strncmp(open + 1, shared, strlen(shared)), 0);
        assert_string_equal(open + 1 + strlen(shared), ")");
    }
    /* A count keeps what it counts: the rows too long to show whole, what
     * they share is "+-1% asked", not "processes; +-1% asked" after "~306". */
    char line[512];
    finding(b.data, 'X', "max_processes", line, sizeof line);
    assert_string_equal(line, "X max_processes: sum/n=1024, empty (+-1% asked)");
    finding(b.data, 'L', "processes_disagree", line, sizeof line);
    assert_string_equal(line, "L processes_disagree: sum/n=1024, empty (over 20 processes)");
    vn_buf_free(&b);
    fixture_free(&r);
}

/* A note longer than a line is cut at a word to one line; --explain has it
 * whole. A short one is shown whole. */
static void note_is_one_line(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    snprintf(r.note, sizeof r.note, "%s",
             "the peak memory of whole process trees is not measured: no memory controller is "
             "enabled in the cgroup hierarchy; enable it, or pass --no-tree-peak to say this "
             "is meant");
    vn_buf b;
    render(&r, text_plain, &b);
    char line[512];
    assert_true(find_line(b.data, "note: ", line, sizeof line));
    assert_true(strlen(line) <= 100);
    assert_string_equal(line + strlen(line) - 4, " ...");
    /* The note's own start, cut after a whole word. */
    size_t kept = strlen(line) - strlen("note: ") - strlen(" ...");
    assert_int_equal(strncmp(line + strlen("note: "), r.note, kept), 0);
    assert_int_equal(r.note[kept], ' ');
    vn_buf_free(&b);
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_text(&r, VN_REPORT_EXPLAIN, &b), 0);
    const char *more = strstr(b.data, "\n\n");
    assert_non_null(more);
    char *whole = tc_unwrap(more);
    assert_non_null(whole);
    assert_non_null(strstr(whole, r.note));
    free(whole);
    vn_buf_free(&b);
    snprintf(r.note, sizeof r.note, "%s", "a short note");
    render(&r, text_plain, &b);
    assert_true(find_line(b.data, "note: ", line, sizeof line));
    assert_string_equal(line + strlen("note: "), r.note);
    vn_buf_free(&b);
    fixture_free(&r);
}

/* --explain: after the one-line findings, what each warning id means and
 * what to do about it, each row's message in full, the machine's fixes and
 * why the timer was chosen; wrapped at 100 columns. */
static void explain(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b, brief;
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_text(&r, VN_REPORT_EXPLAIN, &b), 0);
    render(&r, text_plain, &brief);
    /* The brief report first, whole, without the pointer to --explain. */
    char *cut = strstr(brief.data, "; more: --explain\n");
    assert_non_null(cut);
    memmove(cut, cut + strlen("; more: --explain"), strlen(cut + strlen("; more: --explain")) + 1);
    assert_int_equal(strncmp(b.data, brief.data, strlen(brief.data)), 0);
    const char *more = b.data + strlen(brief.data);
    assert_true(more[0] == '\n');
    /* Each id once, with its mark and an explanation after it; then, on
     * a line each, the messages of its rows, whole. */
    static const struct {
        char mark;
        const char *id;
    } ids[] = {{'I', "interference"}, {'Z', "dead_code"}, {'T', "max_time"},
               {'V', "high_variance"}, {'D', "drift"}, {'H', "shared_core"},
               {'!', "custom_check"}};
    char line[1024];
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char head[64];
        snprintf(head, sizeof head, "%c %s: ", ids[i].mark, ids[i].id);
        if (tc_lines(more + 1, head) != 1)
            fail_msg("--explain does not have %s once", ids[i].id);
        assert_true(tc_line(more + 1, head, line, sizeof line));
        assert_true(strlen(line) > strlen(head) + 20);
    }
    char *whole = tc_unwrap(more);
    assert_non_null(whole);
    for (size_t k = 0; k < r.nbench; k++) {
        const vn_result *res = &r.bench[k];
        for (int i = 0; i < res->nwarnings; i++) {
            char said[512];
            snprintf(said, sizeof said, " %s: %s", res->name, res->warnings[i].message);
            assert_non_null(strstr(whole, said));
        }
    }
    /* The machine's warnings by id, each with its message and fix whole. */
    for (int i = 0; i < r.env.nwarnings; i++) {
        const vn_warning *w = &r.env.warnings[i];
        char head[64];
        snprintf(head, sizeof head, "machine %s: ", w->id);
        assert_int_equal(tc_lines(more + 1, head), 1);
        assert_true(tc_in_order(whole, head, w->message, w->fix, NULL));
    }
    /* The timer with why it was chosen. */
    assert_true(tc_line(more + 1, "timer: ", line, sizeof line));
    assert_true(tc_in_order(whole, "timer: tsc_lfence,", r.timer_reason, NULL));
    free(whole);
    assert_true(tc_lines_within(more, 100));
    vn_buf_free(&b);
    vn_buf_free(&brief);
    fixture_free(&r);
}

static void optional_columns(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    /* With no throughput, no cycles and no warnings anywhere, those columns
     * are left out rather than filled with dashes. */
    for (size_t i = 0; i < r.nbench; i++) {
        r.bench[i].bytes_per_sec = r.bench[i].items_per_sec = NAN;
        r.bench[i].cycles = NAN;
        r.bench[i].ref_ns = NAN;
        r.bench[i].nwarnings = 0;
        r.bench[i].cpu_ns = NAN;
    }
    r.env.nwarnings = 0;
    r.interrupted = 1;
    vn_buf b;
    render(&r, text_plain, &b);
    char line[1024];
    assert_true(find_line(b.data, "benchmark ", line, sizeof line));
    assert_null(strstr(line, "throughput"));
    assert_null(strstr(line, "cycles"));
    assert_null(strstr(line, " cpu "));
    assert_null(strstr(line, "warn"));
    assert_null(strstr(b.data, "warn:"));
    assert_null(strstr(b.data, "machine:"));
    /* An interrupted run says so, on one line of its own at the end. */
    const char *last = b.data + b.len - 1;
    while (last > b.data && last[-1] != '\n')
        last--;
    assert_non_null(strstr(last, vn_stop_name(VN_STOP_INTERRUPTED)));
    vn_buf_free(&b);

    /* No benchmarks: one line instead of an empty table, naming the
     * filter that matched none. */
    r.nbench = 0;
    r.config.filter = "^nothing$";
    render(&r, text_plain, &b);
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(b.data, "\n"), b.data);
    assert_non_null(strstr(first, "'^nothing$'"));
    assert_int_equal(tc_lines(b.data, "benchmark "), 0);
    vn_buf_free(&b);
    render(&r, vn_report_results_markdown, &b);
    assert_true(b.len > 1 && b.data[0] != '|');
    assert_int_equal(tc_lines(b.data, "|"), 0);
    vn_buf_free(&b);
    r.nbench = NBENCH;
    fixture_free(&r);
}

/* The CPU time beside the wall time, and a headline that rests on few of
 * the samples says how few. */
static void cpu_and_few_samples(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_result *sum = &r.bench[0];
    sum->cpu_ns = 0.5 * sum->stats.median; /* a body that waits half the time */
    sum->headline_samples = 8;
    vn_buf b;
    render(&r, text_plain, &b);
    char line[1024], cpu[32];
    assert_true(find_line(b.data, "benchmark ", line, sizeof line));
    assert_non_null(strstr(line, " cpu "));
    assert_true(find_line(b.data, sum->name, line, sizeof line));
    char want[64];
    snprintf(want, sizeof want, " %s ", vn__fmt_ns(cpu, sizeof cpu, sum->cpu_ns));
    assert_non_null(strstr(line, want));
    snprintf(want, sizeof want, " 8/%zux", sum->nsamples);
    assert_non_null(strstr(line, want));
    vn_buf_free(&b);
    /* 20 samples or more need no mention. */
    sum->headline_samples = 20;
    render(&r, text_plain, &b);
    assert_true(find_line(b.data, sum->name, line, sizeof line));
    assert_null(strstr(line, "20/"));
    vn_buf_free(&b);
    fixture_free(&r);
}

/* Escape sequences only when asked for: none of the views may carry one
 * into a file or a pipe. */
static void color(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
        render(&r, reports[i].fn, &b);
        if (strchr(b.data, '\033'))
            fail_msg("%s output holds an escape sequence without VN_REPORT_COLOR", reports[i].name);
        vn_buf_free(&b);
    }
    render(&r, text_color, &b);
    assert_int_equal(strncmp(b.data, "\033[1mbenchmark ", 14), 0);
    assert_non_null(strstr(b.data, "\033[33mVDIHT!\033[0m\n"));
    /* The failed row's reason in red, to the end of its line. */
    const vn_result *broken = row(&r, "broken");
    const char *red = strstr(b.data, "\033[31m");
    assert_non_null(red);
    assert_true(tc_in_order(red, vn_stop_name(broken->stop), broken->error, "\033[0m\n", NULL));
    assert_ptr_equal(strstr(red, "\033[0m\n"), strstr(red, broken->error) + strlen(broken->error));
    assert_non_null(strstr(b.data, "\033[33mmachine: "));
    assert_non_null(strstr(b.data, "\033[33mI interference: "));
    /* Colors do not move the columns: stripped, the text is the plain one. */
    vn_buf plain;
    render(&r, text_plain, &plain);
    char *s = b.data, *d = b.data;
    while (*s) {
        if (*s == '\033') {
            s = strchr(s, 'm') + 1;
            continue;
        }
        *d++ = *s++;
    }
    *d = '\0';
    assert_string_equal(b.data, plain.data);
    vn_buf_free(&plain);
    vn_buf_free(&b);
    fixture_free(&r);
}

/* The field of CSV text under the header column, in the record that
 * starts with prefix (unquoted), copied into out; 0 when there is none. */
static int csv_cell(const char *text, const char *prefix, const char *column, char *out, size_t n)
{
    size_t col = 0;
    const char *h = text;
    for (;;) {
        size_t len = strcspn(h, ",\n");
        if (len == strlen(column) && !strncmp(h, column, len))
            break;
        if (h[len] != ',')
            return 0;
        h += len + 1;
        col++;
    }
    char line[2048];
    if (!find_line(text, prefix, line, sizeof line))
        return 0;
    const char *f = line;
    for (size_t i = 0; i < col; i++) {
        f = strchr(f, ',');
        if (!f)
            return 0;
        f++;
    }
    snprintf(out, n, "%.*s", (int)strcspn(f, ","), f);
    return 1;
}

/* Fields of one CSV record, RFC 4180: a quoted field may hold commas and
 * doubled quotes. Returns the count and advances *p past the record. */
static size_t csv_record(const char **p)
{
    size_t fields = 1;
    const char *s = *p;
    int quoted = 0;
    for (; *s; s++) {
        if (quoted) {
            if (*s == '"' && s[1] == '"')
                s++;
            else if (*s == '"')
                quoted = 0;
        } else if (*s == '"') {
            quoted = 1;
        } else if (*s == ',') {
            fields++;
        } else if (*s == '\n') {
            s++;
            break;
        }
    }
    *p = s;
    return fields;
}

static void csv(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    for (int raw = 0; raw <= 1; raw++) {
        vn_buf b;
        render(&r, raw ? csv_raw : csv_summary, &b);
        const char *p = b.data;
        size_t want = csv_record(&p), lines = 1;
        while (*p) {
            size_t got = csv_record(&p);
            if (got != want)
                fail_msg("%s CSV line %zu has %zu fields, the header %zu", raw ? "raw" : "summary",
                         lines + 1, got, want);
            lines++;
        }
        size_t total = 0;
        for (size_t i = 0; i < r.nbench; i++)
            total += r.bench[i].nsamples;
        assert_int_equal(lines, 1 + (raw ? total : r.nbench));
        assert_int_equal(b.data[b.len - 1], '\n');
        /* The name is quoted and its quotes doubled. */
        assert_non_null(strstr(b.data, "\n\"parse,\"\"quoted\"\"|pipe/long_name_for_alignment\","));
        if (raw) {
            assert_non_null(strstr(b.data, "\nnoisy,,17,"));
            assert_non_null(strstr(b.data, ",16,preempted;migrated,"));
            /* The sample on a shared core, with its slow probe. */
            assert_non_null(strstr(b.data, ",16,shared_core,0.387,0,2.1\n"));
            assert_non_null(strstr(b.data, "\nsum/n=1024,1024,0,"));
        } else {
            assert_int_equal(want, 36);
            /* The baseline's columns after the warnings: noisy's ratio
             * over the first row, with its interval. */
            const vn_result *noisy = vn_results_at(&r, 4);
            char tail[256], v[3][40];
            snprintf(tail, sizeof tail, ",high_variance;drift;interference;shared_core;max_time;"
                     "custom_check,sum/n=1024,%s,%s,%s\n",
                     vn__fmt_exact(v[0], sizeof v[0], noisy->ratio),
                     vn__fmt_exact(v[1], sizeof v[1], noisy->ratio_ci[0]),
                     vn__fmt_exact(v[2], sizeof v[2], noisy->ratio_ci[1]));
            assert_non_null(strstr(b.data, tail));
            assert_non_null(strstr(b.data, "\nempty,") && strstr(b.data, "max_time,,dead_code;max_time,sum/n=1024,,,\n"));
            /* The failed row: its stop and its own error in their columns,
             * no figures. */
            const vn_result *broken = row(&r, "broken");
            char cell[256];
            assert_true(csv_cell(b.data, "broken,", "stop", cell, sizeof cell));
            assert_string_equal(cell, vn_stop_name(broken->stop));
            assert_true(csv_cell(b.data, "broken,", "error", cell, sizeof cell));
            assert_string_equal(cell, broken->error);
            assert_true(csv_cell(b.data, "broken,", "median", cell, sizeof cell));
            assert_string_equal(cell, "");
        }
        vn_buf_free(&b);
    }
    fixture_free(&r);
}

/* Every '|' that is not escaped is a cell border. */
static size_t borders(const char *line)
{
    size_t n = 0;
    for (const char *p = line; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        n += *p == '|';
    }
    return n;
}

static void markdown(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    render(&r, vn_report_results_markdown, &b);
    char line[1024];
    assert_true(find_line(b.data, "| benchmark ", line, sizeof line));
    size_t cols = borders(line);
    assert_true(cols > 10);
    size_t rows = 0;
    for (const char *p = b.data; *p == '|';) {
        const char *e = strchr(p, '\n');
        snprintf(line, sizeof line, "%.*s", (int)(e - p), p);
        assert_int_equal(borders(line), cols);
        rows++;
        p = e + 1;
    }
    assert_int_equal(rows, 2 + NBENCH);
    assert_non_null(strstr(b.data, "| parse,\"quoted\"\\|pipe/long\\_name\\_for\\_alignment |"));
    /* The failed row: its stop and its own error in the cell after its
     * name. */
    const vn_result *broken = row(&r, "broken");
    assert_true(find_line(b.data, "| broken | ", line, sizeof line));
    assert_true(tc_in_order(line + strlen("| broken | "), vn_stop_name(broken->stop), broken->error,
                            " |", NULL));
    /* The notes: a row's warning by its id, with its message; the
     * machine's by theirs. */
    const vn_bench_warning *hv = warning(row(&r, "noisy"), "high_variance");
    assert_true(find_line(b.data, "- noisy: \\[high\\_variance\\] ", line, sizeof line));
    assert_int_equal(strcspn(hv->message, "\\_*|[]"), strlen(hv->message)); /* nothing to escape */
    assert_string_equal(line + strlen("- noisy: \\[high\\_variance\\] "), hv->message);
    assert_int_equal(tc_lines(b.data, "- machine: \\[hypervisor\\] "), 1);
    /* The rows stopped at the budget counted, pointing to their max_time
     * warnings. */
    assert_true(find_line(b.data, "- 2 of 6 ", line, sizeof line));
    assert_non_null(strstr(line, "max\\_time"));
    vn_buf_free(&b);
    fixture_free(&r);
}

static void json(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    render(&r, vn_report_results_json, &b);
    assert_true(json_ok(b.data));
    assert_int_equal(strncmp(b.data, "{\n  \"schema\": \"vernier.results/1\",\n", 35), 0);
    assert_non_null(strstr(b.data, "\"params\": {\n        \"n\": 1024\n      },"));
    assert_non_null(strstr(b.data, "\"params\": {},"));
    assert_non_null(strstr(b.data, "\"cpu\": null,"));
    assert_non_null(strstr(b.data, "\"filter\": null,\n    \"counters\": null,\n"));
    /* The latency held: a number, or null when none was. */
    assert_non_null(strstr(b.data, "\"dma_latency_us\": 0\n"));
    r.config.dma_latency_us = -1;
    vn_buf_free(&b);
    render(&r, vn_report_results_json, &b);
    assert_non_null(strstr(b.data, "\"dma_latency_us\": null\n"));
    /* Counters were off in this run: null, not an empty object. */
    assert_non_null(strstr(b.data, "\n  \"counters\": null,\n"));
    assert_non_null(strstr(b.data, "\"counters\": null,\n      \"derived\": null,"));
    assert_non_null(strstr(b.data, "\"name\": \"tsc_lfence\","));
    /* One sample per line, tags by name. */
    assert_non_null(strstr(b.data, "\n        {\"value\":"));
    assert_non_null(strstr(b.data, ",\"iters\":16,\"tags\":[\"preempted\",\"migrated\"],"));
    assert_non_null(strstr(b.data, ",\"iters\":16,\"tags\":[\"shared_core\"],\"ref_ns\":0.387,"
                                   "\"thread\":0,\"process\":0,\"block\":0,\"branch_cycles\":2.1,\"cpu_ns\":"));
    assert_non_null(strstr(b.data, "\"tagged\": 7,\n      \"shared_core\": 5,\n      \"left_out\": [\n"
                                   "        \"preempted\",\n        \"migrated\",\n        \"shared_core\"\n"
                                   "      ],"));
    /* The failed row's error is its own. */
    const vn_result *broken = row(&r, "broken");
    const char *err = strstr(b.data, "\"error\": \"");
    assert_non_null(err);
    err += strlen("\"error\": \"");
    assert_int_equal(strncmp(err, broken->error, strlen(broken->error)), 0);
    assert_int_equal(strncmp(err + strlen(broken->error), "\",", 2), 0);
    assert_non_null(strstr(b.data, "\"stats\": null,")); /* the failed one has none */
    assert_non_null(strstr(b.data, "\"threads\": {\n        \"count\": 4,\n"));
    assert_non_null(strstr(b.data, "\"stop\": \"max_samples\","));
    assert_non_null(strstr(b.data, "\"name\": \"parse,\\\"quoted\\\"|pipe/long_name_for_alignment\""));
    /* An unknown number is null, never NaN. */
    assert_null(strstr(b.data, "nan"));
    assert_null(strstr(b.data, "inf"));

    /* The checker itself rejects what it should. */
    assert_false(json_ok("{\"a\": 1,}"));
    assert_false(json_ok("{\"a\": nan}"));
    assert_false(json_ok("[1, 2"));
    assert_false(json_ok("{\"a\" 1}"));
    assert_true(json_ok("{\"a\": [1, -2.5e3, \"x\\u00e9\", true, null, {}]}"));
    vn_buf_free(&b);
    fixture_free(&r);
}

/* The histograms show the untagged samples net of the overhead: the same
 * values the headline statistics summarize; for an upper bound, the loop
 * with the body, as its statistics are. */
static void histograms(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    render(&r, hist_plain, &b);

    /* The noisy one has tagged samples to leave out; the empty one is an
     * upper bound, whose net times would be noise around zero. Each
     * histogram follows a line of its row's name, its samples and what
     * was taken off them or left out. */
    static const struct {
        size_t index;
        size_t n;
        double net;
        const char *head, *first, *then;
    } cases[] = {
        {4, 33, OVERHEAD, "\nnoisy: 33 ", "0.310 ns", "(7 "},
        {1, 30, 0, "\nempty: 30 ", "< 0.31 ns\n", ""},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const vn_result *res = &r.bench[cases[c].index];
        double x[64];
        size_t n = 0;
        for (size_t i = 0; i < res->nsamples; i++)
            if (!res->samples[i].tags)
                x[n++] = res->samples[i].value - cases[c].net;
        assert_int_equal(n, cases[c].n);
        const char *head = strstr(b.data, cases[c].head);
        assert_non_null(head);
        const char *body = strchr(head + 1, '\n') + 1;
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(body - head), head);
        assert_true(tc_in_order(line, cases[c].first, cases[c].then, NULL));
        vn_buf want;
        vn_buf_init(&want, 0);
        assert_int_equal(vn_report_histogram_text(x, n, "ns", 0, &want), 0);
        assert_int_equal(strncmp(body, want.data, want.len), 0);
        vn_buf_free(&want);
    }
    /* No overhead named for the bound: its values are the loop's with
     * the body. */
    char line[512];
    assert_true(find_line(b.data, "empty: ", line, sizeof line));
    assert_null(strstr(line, "0.310 ns"));

    assert_int_equal(strncmp(b.data, "sum/n=1024: 24 ", 15), 0);
    const vn_result *broken = row(&r, "broken");
    assert_true(find_line(b.data, "broken: ", line, sizeof line));
    assert_true(tc_in_order(line, vn_stop_name(broken->stop), broken->error, NULL));
    vn_buf_free(&b);
    fixture_free(&r);
}

static void errors(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
        vn_buf_init(&b, 256); /* far too small for any of them */
        if (reports[i].fn(&r, &b) != VN_ENOMEM)
            fail_msg("%s: a full buffer is not reported as VN_ENOMEM", reports[i].name);
        vn_buf_free(&b);
        assert_int_equal(reports[i].fn(&r, NULL), VN_EINVAL);
        vn_buf_init(&b, 0);
        assert_int_equal(reports[i].fn(NULL, &b), VN_EINVAL);
        vn_buf_free(&b);
    }
    /* A count of benchmarks without the array is a bad argument too. */
    vn_result *saved = r.bench;
    r.bench = NULL;
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_json(&r, &b), VN_EINVAL);
    vn_buf_free(&b);
    r.bench = saved;
    fixture_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_files), cmocka_unit_test(upper_bound_row),
        cmocka_unit_test(large_parameter_is_exact),
        cmocka_unit_test(text_table),   cmocka_unit_test(table_fits_the_width),   cmocka_unit_test(explain),
        cmocka_unit_test(findings_keep_numbers_whole), cmocka_unit_test(note_is_one_line),
        cmocka_unit_test(optional_columns),
        cmocka_unit_test(color),        cmocka_unit_test(csv),
        cmocka_unit_test(markdown),     cmocka_unit_test(json),
        cmocka_unit_test(histograms),   cmocka_unit_test(errors),
        cmocka_unit_test(cpu_and_few_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
