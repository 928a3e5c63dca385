/* Counters in the reporters, on results built by hand: a run whose default
 * hardware events were split into two groups, with one event scaled, two
 * events missing for different reasons, two counting user mode only, and
 * software events beside them. Each view is compared with a golden file
 * (results-counters.*), and what matters is checked on its own too. */
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
#include "main/all.h"
#include "text_checks.h"

#define NSAMPLES 12
#define NEV 9

/* The events that opened, in read order, with the body's net count per
 * iteration and the empty loop's (a decrement and a branch: 2 instructions,
 * 1 branch, about 1 cycle). */
static const struct {
    const char *name;
    const char *unit;
    double net, overhead;
    int scaled;
} sum_events[NEV] = {
    {"cycles", "count", 3100, 1.02, 0},
    {"instructions", "count", 9230, 2.0, 0},
    {"branches", "count", 1030, 1.0, 0},
    {"branch-misses", "count", 2.5, 0, 0},
    {"cache-references", "count", 64.2, 0.001, 1},
    {"cache-misses", "count", 3.1, 0, 1},
    {"task-clock", "ns", 1234.5, 0.31, 0},
    {"page-faults", "count", 0.00012, 0, 0},
    {"context-switches", "count", 0, 0, 0},
};

static void info(vn_counter_info *ci)
{
    memset(ci, 0, sizeof *ci);
    snprintf(ci->requested, sizeof ci->requested,
             "default,L1-dcache-loads,instructions:k,task-clock,page-faults,context-switches");
    /* The request's order, with the two missing ones where they were asked. */
    static const char *order[] = {"cycles",          "instructions",     "branches",
                                  "branch-misses",   "cache-references", "cache-misses",
                                  "L1-dcache-loads", "instructions:k",   "task-clock",
                                  "page-faults",     "context-switches"};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        vn_counter_status *s = &ci->ev[ci->n++];
        snprintf(s->name, sizeof s->name, "%s", order[i]);
        s->unit = !strcmp(order[i], "task-clock") ? "ns" : "count";
        s->opened = 1;
        s->group = i < 4 ? 1 : i < 6 ? 2 : 0;
        if (!strcmp(order[i], "L1-dcache-loads")) {
            s->opened = 0;
            s->group = -1;
            s->err = 2;
            snprintf(s->reason, sizeof s->reason, "this CPU's PMU has no such event");
            snprintf(s->fix, sizeof s->fix, "choose another event (perf list shows this CPU's)");
        } else if (!strcmp(order[i], "instructions:k")) {
            s->opened = 0;
            s->group = -1;
            s->err = 13;
            snprintf(s->reason, sizeof s->reason,
                     "perf_event_paranoid is 2, which keeps unprivileged processes from counting "
                     "kernel-mode events");
            snprintf(s->fix, sizeof s->fix,
                     "sysctl kernel.perf_event_paranoid=1 (or give the program CAP_PERFMON)");
        }
        if (!strcmp(order[i], "cycles") || !strcmp(order[i], "instructions"))
            s->user_only = 1;
        ci->nopened += (size_t)s->opened;
    }
    ci->ngroups = 3;
    ci->split = 1;
    ci->max_group = 4;
    ci->grouped = 1;
}

static vn_result *add(vn_results *r, const char *name)
{
    vn_result *res = fx_add(r, name, 256, 0.31);
    res->ref_spread = 0.01;
    res->cycles = 0;
    res->elapsed = 0.2;
    return res;
}

/* Samples whose counts scatter around the net value plus the overhead, and
 * the result's counters from them, as the engine keeps them. */
static void measured(vn_result *res, double ns, double scale)
{
    res->nsamples = NSAMPLES;
    res->headline_samples = NSAMPLES;
    res->samples = calloc(NSAMPLES, sizeof *res->samples);
    res->sample_counts = calloc(NSAMPLES * NEV, sizeof *res->sample_counts);
    assert_non_null(res->samples);
    assert_non_null(res->sample_counts);
    double x[NSAMPLES];
    for (size_t i = 0; i < NSAMPLES; i++) {
        double wave = (double)((int)((i * 5) % 7) - 3) / 300;
        vn_sample *s = &res->samples[i];
        s->value = ns * (1 + wave) + res->overhead_ns;
        s->iters = res->iters;
        s->ref_ns = 0.385;
        s->branch_cycles = 1.0;
        s->cpu_ns = NAN; /* unknown: the reporters write null */
        x[i] = s->value - res->overhead_ns;
        double *c = res->sample_counts + i * NEV;
        for (size_t k = 0; k < NEV; k++) {
            c[k] = sum_events[k].net * scale * (1 + wave) + sum_events[k].overhead;
            if (sum_events[k].scaled && i % 3 == 0)
                s->counts_scaled |= 1u << k;
        }
        s->counts = c;
    }
    assert_int_equal(vn_stats_compute(x, NSAMPLES, &res->stats), 0);
    res->ncounters = NEV;
    for (size_t k = 0; k < NEV; k++) {
        vn_counter_result *cr = &res->counters[k];
        snprintf(cr->name, sizeof cr->name, "%s", sum_events[k].name);
        cr->unit = sum_events[k].unit;
        cr->value = sum_events[k].net * scale;
        cr->overhead = sum_events[k].overhead;
        cr->scaled = sum_events[k].scaled;
    }
    res->derived.ipc = res->counters[1].value / res->counters[0].value;
    res->derived.branch_miss_pct = 100 * res->counters[3].value / res->counters[2].value;
    res->derived.cache_miss_pct = 100 * res->counters[5].value / res->counters[4].value;
    res->derived.insn_per_byte = NAN;
    res->cycles = res->stats.median / res->ref_ns;
}

static void fixture(vn_results *r)
{
    fx_results_init(r, "sysroot-minimal");
    r->timer = VN_CLOCK_MONOTONIC;
    snprintf(r->timer_reason, sizeof r->timer_reason, "a fixture");
    r->timer_cost_ns = 20;
    r->timer_resolution_ns = 1;
    r->counter_hz = NAN;
    r->config = (vn_config){.max_time = 1, .precision = 1, .min_samples = 10,
                            .max_samples = 10000, .warmup = 0.02, .min_sample_time = 0.001,
                            .cpu = -1, .threads = 1};
    r->config.counters = "default,L1-dcache-loads,instructions:k,task-clock,page-faults,"
                         "context-switches";
    r->optimized = 1;
    info(&r->counters);
    r->bench = calloc(3, sizeof *r->bench);
    assert_non_null(r->bench);

    vn_result *res = add(r, "sum/n=1024");
    res->bytes_per_iter = 4096;
    measured(res, 1234.5, 1);
    res->derived.insn_per_byte = res->counters[1].value / 4096;
    res->bytes_per_sec = 4096 / (res->stats.median * 1e-9);

    /* One sample whose groups never ran: its counts are unknown. */
    res = add(r, "sum/n=64");
    measured(res, 80.2, 1.0 / 16);
    for (size_t k = 0; k < NEV; k++)
        res->sample_counts[3 * NEV + k] = NAN;

    res = add(r, "broken");
    res->iters = 0;
    res->stop = VN_STOP_FAILED;
    res->ncounters = NEV;
    for (size_t k = 0; k < NEV; k++) {
        snprintf(res->counters[k].name, sizeof res->counters[k].name, "%s", sum_events[k].name);
        res->counters[k].unit = sum_events[k].unit;
        res->counters[k].value = res->counters[k].overhead = NAN;
    }
    res->derived.ipc = res->derived.branch_miss_pct = NAN;
    res->derived.cache_miss_pct = res->derived.insn_per_byte = NAN;
    snprintf(res->error, sizeof res->error, "the input was wrong");
}

static void fixture_free(vn_results *r)
{
    for (size_t i = 0; i < r->nbench; i++) {
        free(r->bench[i].samples);
        free(r->bench[i].sample_counts);
    }
    free(r->bench);
    vn_sysinfo_free(&r->env);
}


static void render(const vn_results *r, report_fn fn, vn_buf *b)
{
    vn_buf_init(b, 0);
    assert_int_equal(fn(r, b), 0);
    assert_non_null(b->data);
}

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

/* Whether word occurs in line as a whole: not inside a longer event name
 * ("instructions" is not in "instructions:k"). */
static int has_word(const char *line, const char *word)
{
    size_t k = strlen(word);
    for (const char *p = strstr(line, word); p; p = strstr(p + 1, word)) {
        char before = p == line ? ' ' : p[-1], after = p[k];
        int starts = before == ' ' || before == '(' || before == ',';
        int ends = after == '\0' || after == ' ' || after == ',' || after == ';' || after == ')' ||
                   (after == ':' && (p[k + 1] == ' ' || p[k + 1] == '\0'));
        if (starts && ends)
            return 1;
    }
    return 0;
}

/* The notes of text (lines that start with prefix, "counters: " on the
 * console) that hold word: how many, the first copied into line. */
static size_t counters_note(const char *text, const char *prefix, const char *word, char *line,
                            size_t n)
{
    size_t found = 0, k = strlen(prefix);
    char one[2048];
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(one, sizeof one, "%.*s", (int)len, p);
        if (!strncmp(one, prefix, k) && has_word(one + k, word) && found++ == 0)
            snprintf(line, n, "%s", one);
        p = e ? e + 1 : NULL;
    }
    return found;
}

/* The event the fixture asked for by name, as the run saw it. */
static const vn_counter_status *event(const vn_results *r, const char *name)
{
    for (size_t i = 0; i < r->counters.n; i++)
        if (!strcmp(r->counters.ev[i].name, name))
            return &r->counters.ev[i];
    fail_msg("no event %s", name);
    return &r->counters.ev[0]; /* not reached: fail_msg() ends the test */
}

/* The two events that did not open, each for its own reason. */
static const char *const missing[] = {"L1-dcache-loads", "instructions:k"};

static void render_env(const vn_sysinfo *si, vn_buf *b, int json)
{
    vn_buf_init(b, 0);
    assert_int_equal(json ? vn_report_env_json(si, b) : vn_report_env_text(si, 0, b), 0);
}

static void golden_files(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    static const char *const names[5] = {"results-counters.txt", "results-counters.md", "results-counters.csv",
                                   "results-counters-raw.csv", "results-counters.json"};
    fx_check_golden_views(&r, names);
    /* --explain: the notes on counters in full. */
    vn_buf b;
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_text(&r, VN_REPORT_EXPLAIN, &b), 0);
    check_golden("results-counters-explain.txt", &b);
    vn_buf_free(&b);
    fixture_free(&r);
}

static void console_columns_and_notes(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    render(&r, text_plain, &b);
    char line[2048];
    assert_true(find_line(b.data, "benchmark ", line, sizeof line));
    /* Pairs fold into their ratio on the console; cycles go with IPC. */
    assert_non_null(strstr(line, " insn "));
    assert_non_null(strstr(line, " IPC "));
    assert_non_null(strstr(line, " br-miss% "));
    assert_non_null(strstr(line, " cache-miss% "));
    assert_non_null(strstr(line, " insn/B"));
    assert_non_null(strstr(line, " faults "));
    assert_non_null(strstr(line, " task-clock "));
    assert_null(strstr(line, " cyc "));
    assert_null(strstr(line, " br "));
    assert_null(strstr(line, " cache-ref "));

    assert_true(find_line(b.data, "sum/n=1024 ", line, sizeof line));
    assert_non_null(strstr(line, " 9230 "));   /* instructions per iteration */
    assert_non_null(strstr(line, " 2.98 "));   /* IPC: 9230 / 3100 */
    assert_non_null(strstr(line, " 0.24% "));  /* 2.5 / 1030 */
    assert_non_null(strstr(line, " 4.83%* ")); /* 3.1 / 64.2, both parts scaled */
    size_t len = strlen(line);                 /* 9230 instructions / 4096 bytes, last */
    assert_true(len > 5 && !strcmp(line + len - 5, " 2.25"));
    assert_non_null(strstr(line, " 0.00012 ")); /* a fault every 8000 iterations */
    assert_non_null(strstr(line, " 1.23 us ")); /* task-clock is a time */
    assert_true(find_line(b.data, "broken ", line, sizeof line));
    assert_true(tc_in_order(line, vn_stop_name(VN_STOP_FAILED), r.bench[2].error, NULL));

    /* Missing events: once, on a line each of at most 100 columns that
     * ends with the reason's first clause (a long reason is cut there);
     * the fixes, the whole reasons and the longer notes are --explain's. */
    for (size_t i = 0; i < 2; i++) {
        const vn_counter_status *ev = event(&r, missing[i]);
        assert_int_equal(counters_note(b.data, "counters: ", ev->name, line, sizeof line), 1);
        size_t clause = strcspn(ev->reason, ",;"), len = strlen(line);
        assert_true(len > clause && !strncmp(line + len - clause, ev->reason, clause));
        assert_null(strstr(b.data, ev->fix));
    }
    assert_true(strlen(event(&r, "instructions:k")->reason) >
                strcspn(event(&r, "instructions:k")->reason, ",;")); /* one was cut */
    /* The groups taking turns, at most 4 events each, and the mark of
     * their scaled values, on one line. */
    assert_int_equal(counters_note(b.data, "counters: ", "*", line, sizeof line), 1);
    assert_true(has_word(line, "4"));
    /* The events that count user mode only, those and no others, and the
     * setting that restricts them. */
    assert_int_equal(counters_note(b.data, "counters: ", "cycles", line, sizeof line), 1);
    assert_true(has_word(line, "instructions"));
    assert_false(has_word(line, "branches"));
    assert_non_null(strstr(line, "perf_event_paranoid"));
    assert_null(strstr(b.data, "fix:"));
    assert_true(tc_lines_within(strstr(b.data, "\n\n"), 100));
    vn_buf_free(&b);

    /* --explain: each missing event once more, with its whole reason and
     * its fix; the split into groups and the mark of scaled values each a
     * note of its own. */
    vn_buf_init(&b, 0);
    assert_int_equal(vn_report_results_text(&r, VN_REPORT_EXPLAIN, &b), 0);
    const char *more = strstr(strstr(b.data, "\n\n") + 2, "\n\n");
    assert_non_null(more);
    char *whole = tc_unwrap(more);
    assert_non_null(whole);
    for (size_t i = 0; i < 2; i++) {
        const vn_counter_status *ev = event(&r, missing[i]);
        assert_int_equal(counters_note(whole, "counters: ", ev->name, line, sizeof line), 1);
        assert_true(tc_in_order(line, ev->reason, ev->fix, NULL));
    }
    char groups[2048];
    assert_int_equal(counters_note(whole, "counters: ", "4", groups, sizeof groups), 1);
    assert_int_equal(counters_note(whole, "counters: ", "*", line, sizeof line), 1);
    assert_string_not_equal(groups, line);
    free(whole);
    assert_null(strstr(b.data, " \n"));
    assert_true(tc_lines_within(more, 100));
    vn_buf_free(&b);

    /* A run without counters says nothing about them. */
    memset(&r.counters, 0, sizeof r.counters);
    for (size_t i = 0; i < r.nbench; i++)
        r.bench[i].ncounters = 0;
    render(&r, text_plain, &b);
    assert_null(strstr(b.data, "counters:"));
    assert_null(strstr(b.data, "insn"));
    vn_buf_free(&b);
    fixture_free(&r);
}

static void scaled_values_are_marked(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    /* Show the pair's raw columns: without cache-references no ratio. */
    r.counters.ev[4].opened = 0;
    snprintf(r.counters.ev[4].reason, sizeof r.counters.ev[4].reason, "test");
    vn_buf b;
    render(&r, text_plain, &b);
    char line[2048];
    assert_true(find_line(b.data, "sum/n=1024 ", line, sizeof line));
    assert_non_null(strstr(line, " 3.10* ")); /* cache-misses, scaled */
    assert_true(find_line(b.data, "benchmark ", line, sizeof line));
    assert_non_null(strstr(line, " cache-miss "));
    assert_null(strstr(line, "cache-miss%"));
    vn_buf_free(&b);
    fixture_free(&r);
}

static void markdown_has_every_event(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    render(&r, vn_report_results_markdown, &b);
    char line[4096];
    assert_true(find_line(b.data, "| benchmark ", line, sizeof line));
    for (size_t k = 1; k < NEV; k++) {
        char want[64];
        snprintf(want, sizeof want, "| %s |", sum_events[k].name);
        assert_non_null(strstr(line, want));
    }
    /* Apart from the reference cycles' column. */
    assert_non_null(strstr(line, "| cycles | throughput |"));
    assert_non_null(strstr(line, "| cycles (PMU) | instructions |"));
    assert_non_null(strstr(line, "| IPC | br-miss% | cache-miss% | insn/B |"));
    /* The notes: a missing event once, with its whole reason and fix. */
    const vn_counter_status *ev = event(&r, "L1-dcache-loads");
    assert_int_equal(counters_note(b.data, "- counters: ", ev->name, line, sizeof line), 1);
    assert_true(tc_in_order(line, ev->reason, ev->fix, NULL));
    vn_buf_free(&b);
    fixture_free(&r);
}

static void csv_columns(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    render(&r, csv_summary, &b);
    char line[4096];
    assert_true(find_line(b.data, "name,", line, sizeof line));
    assert_non_null(strstr(line, ",warnings,baseline,ratio,ratio_lo,ratio_hi,counter.cycles,counter.instructions,"
                                 "counter.branches,counter.branch-misses,"
                                 "counter.cache-references,counter.cache-misses,"
                                 "counter.task-clock,counter.page-faults,"
                                 "counter.context-switches,counters_scaled,ipc,branch_miss_pct,"
                                 "cache_miss_pct,insn_per_byte"));
    assert_true(find_line(b.data, "sum/n=1024,", line, sizeof line));
    assert_non_null(strstr(line, ",3100,9230,1030,2.5,64.2,3.1,1234.5,0.00012,0,"
                                 "cache-references;cache-misses,"));
    assert_true(find_line(b.data, "broken,", line, sizeof line));
    assert_non_null(strstr(line, ",,,,,,,,,,,,,"));
    vn_buf_free(&b);

    render(&r, csv_raw, &b);
    assert_true(find_line(b.data, "name,", line, sizeof line));
    assert_string_equal(line, "name,param,sample,value,iters,tags,ref_ns,thread,branch_cycles,"
                              "counter.cycles,"
                              "counter.instructions,counter.branches,counter.branch-misses,"
                              "counter.cache-references,counter.cache-misses,"
                              "counter.task-clock,counter.page-faults,counter.context-switches");
    /* The unknown sample has empty fields, not NaN. */
    assert_null(strstr(b.data, "nan"));
    vn_buf_free(&b);
    fixture_free(&r);
}

static void json_members(void **state)
{
    (void)state;
    vn_results r;
    fixture(&r);
    vn_buf b;
    render(&r, vn_report_results_json, &b);
    assert_non_null(strstr(b.data, "\"instructions\": {\n          \"value\": 9230,\n"
                                   "          \"scaled\": false,\n          \"unit\": \"count\",\n"
                                   "          \"overhead\": 2\n        },"));
    assert_non_null(strstr(b.data, "\"cache-misses\": {\n          \"value\": 3.1,\n"
                                   "          \"scaled\": true,"));
    assert_non_null(strstr(b.data, "\"unit\": \"ns\""));
    assert_non_null(strstr(b.data, "\"derived\": {\n        \"ipc\": "));
    assert_non_null(strstr(b.data, "\"requested\": \"default,L1-dcache-loads,instructions:k,"));
    assert_non_null(strstr(b.data, "\"name\": \"instructions:k\",\n        \"errno\": 13,"));
    assert_non_null(strstr(b.data, "\"user_only\": [\n      \"cycles\",\n      \"instructions\"\n"));
    assert_non_null(strstr(b.data, "\"groups\": 3,\n    \"split\": true,\n    \"max_group\": 4\n"));
    /* Per sample, in the order of opened; unknown counts are null. */
    assert_non_null(strstr(b.data, ",\"thread\":0,\"process\":0,\"block\":0,\"branch_cycles\":1,\"cpu_ns\":null,\"counters\":[null,null,"));
    assert_null(strstr(b.data, "nan"));
    vn_buf_free(&b);
    fixture_free(&r);
}

/* `vernier env`'s counters: a section only when probed; the working ones
 * on one line, the others by reason with the fix. */
static void env_section(void **state)
{
    (void)state;
    vn_sysinfo si;
    char root[4096];
    snprintf(root, sizeof root, "%s/sysroot-vm", VN_FIXTURES);
    assert_int_equal(vn_sysinfo_collect_at(root, &si), 0);
    assert_null(si.counters);
    vn_buf b;
    render_env(&si, &b, 0);
    assert_null(strstr(b.data, "Counters"));
    vn_buf_free(&b);
    render_env(&si, &b, 1);
    assert_non_null(strstr(b.data, "\n  \"counters\": null\n}"));
    vn_buf_free(&b);

    vn_results r;
    fixture(&r);
    si.counters = malloc(sizeof *si.counters);
    assert_non_null(si.counters);
    *si.counters = r.counters;
    si.counters->ev[9].user_only = 1; /* page-faults */
    render_env(&si, &b, 0);
    /* First the events that work, in the request's order, on one line; a
     * mark after each that counts user mode only, and after no other. */
    /* Rows wrapped at 100 columns are read joined again (a line indented
     * 5 or more continues the one before, but a reason's and a fix's). */
    assert_true(tc_lines_within(b.data, 100));
    char *whole = tc_unwrap_rows(b.data, 5, (const char *const[]){"why: ", "fix: ", NULL});
    assert_non_null(whole);
    const char *sec = strstr(whole, "\nCounters\n");
    assert_non_null(sec);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(sec + 10, "\n"), sec + 10);
    const char *at = line;
    for (size_t i = 0; i < si.counters->n; i++) {
        const vn_counter_status *ev = &si.counters->ev[i];
        if (!ev->opened) {
            assert_false(has_word(line, ev->name));
            continue;
        }
        at = strstr(at, ev->name);
        assert_non_null(at);
        at += strlen(ev->name);
        assert_int_equal(at[0] == ' ' && at[1] == '(', ev->user_only);
    }
    /* Then each that does not, on a line of its own, followed by its
     * reason and its fix, each on a line. */
    for (size_t i = 0; i < 2; i++) {
        const vn_counter_status *ev = event(&r, missing[i]);
        char tail[sizeof ev->name + 4];
        snprintf(tail, sizeof tail, " %s\n", ev->name);
        const char *row = strstr(sec, tail);
        assert_non_null(row);
        row += strlen(tail);
        const char *why = strstr(row, ev->reason), *fix = strstr(row, ev->fix);
        assert_true(why && fix && why < fix);
        assert_ptr_equal(why + strlen(ev->reason), strchr(row, '\n'));
        assert_ptr_equal(fix + strlen(ev->fix), strchr(strchr(row, '\n') + 1, '\n'));
    }
    /* Last, whether events named by the PMU work, and how to ask for one. */
    const char *end = strstr(sec + 1, "\n\n");
    assert_non_null(end);
    const char *last = end;
    while (last > sec && last[-1] != '\n')
        last--;
    assert_true(tc_in_order(last, "--counters", "\n\n", NULL));
    free(whole);
    vn_buf_free(&b);
    render_env(&si, &b, 1);
    assert_non_null(strstr(b.data, "\"name\": \"L1-dcache-loads\",\n        \"works\": false,\n"
                                   "        \"user_only\": false,\n        \"errno\": 2,"));
    assert_non_null(strstr(b.data, "\"name\": \"cycles\",\n        \"works\": true,\n"
                                   "        \"user_only\": true,\n        \"errno\": null,\n"
                                   "        \"reason\": null,\n        \"fix\": null\n"));
    vn_buf_free(&b);
    vn_sysinfo_free(&si); /* frees the counters too */
    assert_null(si.counters);
    fixture_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_files),
        cmocka_unit_test(console_columns_and_notes),
        cmocka_unit_test(scaled_values_are_marked),
        cmocka_unit_test(markdown_has_every_event),
        cmocka_unit_test(csv_columns),
        cmocka_unit_test(json_members),
        cmocka_unit_test(env_section),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
