/* Fuzz target: the parser of `vernier stats` input, then the statistics and
 * every reporter of them on whatever numbers it accepts. The input is a
 * user's file: nothing in it may crash the tool, read out of bounds or
 * loop forever, and a parse that succeeds must give finite numbers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/numbers_parse.h"
#include "main/all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void summarize(const double *x, size_t n)
{
    vn_stats s;
    if (vn_stats_compute(x, n, &s))
        return;
    if (s.n != n || s.min > s.median || s.median > s.max)
        abort();
    vn_histogram h = {0};
    vn_buf b;
    vn_buf_init(&b, 0);
    if (vn_histogram_compute(x, n, 0, &h) == 0) {
        uint64_t sum = 0;
        for (size_t i = 0; i < h.nbins; i++)
            sum += h.counts[i];
        if (sum != n)
            abort();
    }
    vn_histogram f = {0};
    if (vn_histogram_compute_fenced(x, n, 0, &f) == 0) {
        uint64_t sum = f.below + f.above;
        for (size_t i = 0; i < f.nbins; i++)
            sum += f.counts[i];
        if (sum != n || f.nbins < 1 || f.nbins > 200)
            abort();
        vn_report_stats_json(&s, &f, "ns", &b);
        vn_histogram_free(&f);
    }
    vn_report_stats_json(&s, h.counts ? &h : NULL, "ns", &b);
    vn_report_stats_text(&s, "ns", VN_REPORT_COLOR, &b);
    vn_report_stats_text(&s, NULL, 0, &b);
    vn_report_histogram_text(x, n, "ns", 0, &b);
    vn_report_histogram_text(x, n, "cycles", VN_REPORT_COLOR, &b);
    vn_histogram_free(&h);
    vn_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Every mode on every input: one number per line, and columns 1 to 3
     * of a table. The statistics run on the first numbers that parse. */
    const char *text = (const char *)data;
    int summarized = 0;
    for (size_t column = 0; column < 4; column++) {
        double *x = NULL;
        size_t n = 0;
        vn__numbers_error e;
        int rc = vn__parse_numbers(text, size, column, &x, &n, &e);
        char msg[160];
        if (rc == VN_EINVAL) {
            if (e.line == 0 || strlen(e.token) >= sizeof e.token)
                abort();
            vn__numbers_strerror(&e, column, msg, sizeof msg);
        } else if (rc == 0) {
            for (size_t i = 0; i < n; i++)
                if (!isfinite(x[i]))
                    abort();
            if (n && !summarized) {
                summarize(x, n);
                summarized = 1;
            }
        }
        free(x);
    }
    return 0;
}
