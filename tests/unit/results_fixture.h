/* What the reporter tests share: a result row with the defaults a measured
 * row has, and rendering a report into a buffer. */
#ifndef VN_TEST_RESULTS_FIXTURE_H
#define VN_TEST_RESULTS_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "golden.h"
#include "main/all.h"

typedef int (*report_fn)(const vn_results *r, vn_buf *b);

static inline int text_plain(const vn_results *r, vn_buf *b) { return vn_report_results_text(r, 0, b); }
static inline int csv_summary(const vn_results *r, vn_buf *b) { return vn_report_results_csv(r, 0, b); }
static inline int csv_raw(const vn_results *r, vn_buf *b) { return vn_report_results_csv(r, 1, b); }

/* r as the library fills it before any row: zeroed, with its sizes set
 * (so the reporters read the rows) and the machine read from the fixture
 * tree tests/fixtures/sysroot. */
static inline void fx_results_init(vn_results *r, const char *sysroot)
{
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    r->result_size = sizeof(vn_result);
    char root[4096];
    snprintf(root, sizeof root, "%s/%s", VN_FIXTURES, sysroot);
    assert_int_equal(vn_sysinfo_collect_at(root, &r->env), 0);
}

/* Appends a row to r->bench (room for it is the caller's) with what the
 * engine fills for every measured row; the test sets the rest. */
static inline vn_result *fx_add(vn_results *r, const char *name, uint64_t iters, double overhead)
{
    vn_result *res = &r->bench[r->nbench++];
    memset(res, 0, sizeof *res);
    snprintf(res->name, sizeof res->name, "%s", name);
    res->unit = "ns";
    res->iters = iters;
    res->overhead_ns = overhead;
    res->overhead_ci[0] = 0.30;
    res->overhead_ci[1] = 0.32;
    res->overhead_cycles = overhead / 0.385;
    res->overhead_cycles_spread = 0.02;
    res->ref_ns = 0.385;
    res->cycles = NAN;
    res->bytes_per_iter = res->items_per_iter = NAN;
    res->bytes_per_sec = res->items_per_sec = NAN;
    res->threads = 1;
    res->stop = VN_STOP_PRECISION;
    res->left_out = VN_TAG_PREEMPTED | VN_TAG_MIGRATED | VN_TAG_SHARED_CORE;
    res->max_time = 1;
    res->precision = 1;
    res->min_samples = 10;
    res->timer = VN_CLOCK_TSC_LFENCE;
    res->on_cpu = 0.98;
    res->cpu_ns = NAN;
    res->cycles_ci[0] = res->cycles_ci[1] = NAN;
    res->est_ci[0] = res->est_ci[1] = res->cycles_est_ci[0] = res->cycles_est_ci[1] = NAN;
    res->share_processes = res->share_blocks = res->share_samples = NAN;
    return res;
}

/* Renders r in the five views and compares each with its golden file:
 * names[] are the files of text, Markdown, CSV, raw CSV and JSON. */
static inline void fx_check_golden_views(const vn_results *r, const char *const names[5])
{
    const report_fn fns[5] = {text_plain, vn_report_results_markdown, csv_summary, csv_raw,
                              vn_report_results_json};
    for (size_t i = 0; i < 5; i++) {
        vn_buf b;
        vn_buf_init(&b, 0);
        assert_int_equal(fns[i](r, &b), 0);
        assert_non_null(b.data);
        check_golden(names[i], &b);
        vn_buf_free(&b);
    }
}

#endif
