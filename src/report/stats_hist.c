/* The distribution of a sample as a text graph, in the style of Vincent
 * Bernat's write-up on benchmarking Linux kernel functions: one row per bin,
 * "value │ bars │ count", where a dense glyph (▒) shows the bin's share of
 * all values and a light one (░) continues to the cumulative share, so the
 * shape and the percentiles read off the same rows. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "stats/internal.h"
#include "internal.h"

#define COLS 48     /* width of the bar area, in glyphs: 100% of the values */
#define MAX_ROWS 24 /* enough to see a shape, few enough for one screen */
#define MIN_ROWS 8

static const char DENSE[] = "\xe2\x96\x92";  /* ▒ */
static const char LIGHT[] = "\xe2\x96\x91";  /* ░ */
static const char AXIS[] = "\xe2\x94\x82";   /* │ */
static const char MIDDLE[] = "\xe2\x94\x8a"; /* ┊ */

/* Labels of one column share a unit and enough decimals to tell the rows
 * apart; like is the column's largest magnitude, step the row width. */
typedef struct hfmt {
    const char *unit;
    int ns;
    int whole; /* whole-number rows of plain numbers: labels without decimals */
    double like, step;
} hfmt;

static const char *label(const hfmt *f, char *buf, size_t n, double v)
{
    if (f->ns)
        return vn__fmt_ns_as(buf, n, v, f->like, f->step);
    if (f->whole && fabs(v) < 1e15) {
        snprintf(buf, n, "%.0f", v);
        return buf;
    }
    return vn__fmt_num_as(buf, n, v, f->like, f->step);
}

/* (Samples a few parts in a million apart: 3 significant digits of a
 * maximum of 3.0826 ns read "3.08 ns", below a median of 3.082591 ns.) */
double vn__shown_step(const vn_stats *st, double v, double step)
{
    int severe = v < st->pct[3] - 3 * st->iqr || v > st->pct[5] + 3 * st->iqr;
    return severe ? fabs(v - st->median) / 10 : step;
}

/* An extreme beyond the graph, shown as vn__shown_step says. */
static const char *extreme(const hfmt *f, const vn_stats *st, char *buf, size_t n, double v)
{
    double step = vn__shown_step(st, v, 0);
    if (f->ns)
        return vn__fmt_ns_as(buf, n, v, v, step);
    return vn__fmt_num_as(buf, n, v, v, step);
}

/* A value for the summary line: no space inside, so each key=value is one
 * word ("p50=1.23us"). */
static const char *word(const hfmt *f, char *buf, size_t n, double v, double step)
{
    if (f->ns)
        vn__fmt_ns_as(buf, n, v, v, step);
    else
        vn__fmt_num_as(buf, n, v, v, step);
    char *sp = strchr(buf, ' ');
    if (sp)
        memmove(sp, sp + 1, strlen(sp));
    return buf;
}

static int repeat(vn_buf *o, const char *glyph, size_t k)
{
    int rc = 0;
    for (size_t i = 0; i < k; i++)
        rc |= vn_buf_puts(o, glyph);
    return rc;
}

static int integral(const double *s, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (s[i] != floor(s[i]) || fabs(s[i]) > 4503599627370496.0) /* 2^52 */
            return 0;
    return 1;
}

static size_t cols_for(uint64_t part, size_t n)
{
    return (size_t)floor((double)part / (double)n * COLS + 0.5);
}

int vn_report_histogram_text(const double *x, size_t n, const char *unit, unsigned flags,
                             vn_buf *o)
{
    if (!x || !o || n == 0)
        return VN_EINVAL;
    /* The summary line's numbers come from the statistics module itself, so
     * they agree with every other report of the same values. */
    vn_stats st;
    int rc = vn_stats_compute(x, n, &st);
    if (rc)
        return rc;
    double *s = vn__sorted_copy(x, n);
    if (!s)
        return VN_ENOMEM;
    int color = (flags & VN_REPORT_COLOR) != 0;
    hfmt f = {unit && unit[0] ? unit : NULL, unit && strcmp(unit, "ns") == 0, 0, 0, 0};

    /* The summary line first, as in the write-up: the numbers people quote. */
    double q1 = st.pct[3], q3 = st.pct[5], iqr = st.iqr;
    double sstep = (st.mad > 0 ? st.mad : iqr > 0 ? iqr : st.max - st.min) / 10;
    char w1[64], w2[64], w3[64], w4[64], w5[64], w6[64], w7[64];
    rc = vn_buf_printf(o, "min=%s max=%s count=%zu p50=%s p90=%s p95=%s p99=%s mad=%s%s%s%s\n",
                       word(&f, w1, sizeof w1, st.min, vn__shown_step(&st, st.min, sstep)),
                       word(&f, w2, sizeof w2, st.max, vn__shown_step(&st, st.max, sstep)), n,
                       word(&f, w3, sizeof w3, st.median, sstep),
                       word(&f, w4, sizeof w4, st.pct[6], vn__shown_step(&st, st.pct[6], sstep)),
                       word(&f, w5, sizeof w5, st.pct[7], vn__shown_step(&st, st.pct[7], sstep)),
                       word(&f, w6, sizeof w6, st.pct[8], vn__shown_step(&st, st.pct[8], sstep)),
                       word(&f, w7, sizeof w7, st.mad, sstep),
                       f.unit && !f.ns ? " (" : "", f.unit && !f.ns ? f.unit : "",
                       f.unit && !f.ns ? ")" : "");

    /* The rows span the values within Tukey's outer fences (3 IQR beyond
     * the quartiles). A preemption outlier at 1000x the median would
     * otherwise stretch the axis until every other value shared the first
     * row. The fences, rather than p1..p99, cut nothing from clean data:
     * only values that the summary itself calls severe outliers are set
     * apart, on a row of their own above or below the graph. When more than
     * half the values are equal the fences close up (IQR 0) and p1..p99,
     * then the whole range, is used instead. */
    double lo = fmax(s[0], q1 - 3 * iqr), hi = fmin(s[n - 1], q3 + 3 * iqr);
    if (!(hi > lo) && s[n - 1] > s[0]) {
        lo = vn_percentile_sorted(s, n, 1);
        hi = vn_percentile_sorted(s, n, 99);
        if (!(hi > lo)) {
            lo = s[0];
            hi = s[n - 1];
        }
    }
    size_t a = 0, b = n;
    while (a < n && s[a] < lo)
        a++;
    while (b > a && s[b - 1] > hi)
        b--;
    size_t m = b - a;
    lo = s[a];
    hi = s[b - 1];

    size_t rows = 1;
    double width = 0;
    if (hi > lo) {
        /* The Rice rule, 2 m^(1/3) rows: the rows already span only the
         * fenced range, so a width from the IQR (Freedman-Diaconis) would
         * only add its weakness, few rows when two modes widen the IQR. */
        double want = ceil(2 * cbrt((double)m));
        rows = want < MIN_ROWS ? MIN_ROWS : want > MAX_ROWS ? MAX_ROWS : (size_t)want;
        if (integral(s, a, b)) {
            /* Whole numbers (ns, cycles) get whole-number rows: a row 2.5
             * wide would hold two values or three in turn, a comb that is
             * not in the data. */
            width = ceil((hi - lo + 1) / (double)rows);
            rows = (size_t)((hi - lo) / width) + 1;
            f.whole = 1;
        } else {
            width = (hi - lo) / (double)rows;
        }
    }
    uint64_t *cnt = calloc(rows, sizeof *cnt);
    if (!cnt) {
        free(s);
        return VN_ENOMEM;
    }
    for (size_t i = a; i < b; i++) {
        size_t r = 0;
        if (width > 0) {
            double q = (s[i] - lo) / width;
            r = q >= (double)(rows - 1) ? rows - 1 : (size_t)q;
        }
        cnt[r]++;
    }

    /* Two significant digits of the row width, so rows 71 ns wide read
     * 0.355 us, 0.426 us rather than rounding to 0.35, 0.43. */
    f.like = fmax(fabs(lo), fabs(hi));
    f.step = width / 10;
    char lab[64];
    size_t lw = 5; /* "value" */
    for (size_t r = 0; r < rows; r++) {
        size_t l = strlen(label(&f, lab, sizeof lab, lo + (double)r * width));
        if (l > lw)
            lw = l;
    }
    char tl[80];
    if (a > 0) {
        snprintf(tl, sizeof tl, "< %s", label(&f, lab, sizeof lab, lo));
        if (strlen(tl) > lw)
            lw = strlen(tl);
    }
    if (b < n) {
        snprintf(tl, sizeof tl, "> %s", label(&f, lab, sizeof lab, hi));
        if (strlen(tl) > lw)
            lw = strlen(tl);
    }
    char cw[32];
    int cwidth = snprintf(cw, sizeof cw, "%zu", n);
    if (cwidth < 5)
        cwidth = 5;

    rc |= vn_buf_printf(o, "%*s %s", (int)lw, "value", AXIS);
    rc |= repeat(o, " ", COLS / 2);
    rc |= vn_buf_puts(o, MIDDLE);
    rc |= repeat(o, " ", COLS - COLS / 2 - 1);
    rc |= vn_buf_printf(o, " %*s\n", cwidth, "count");

    char ext[64];
    if (a > 0) {
        snprintf(tl, sizeof tl, "< %s", label(&f, lab, sizeof lab, lo));
        rc |= vn_buf_printf(o, "%s%*s %s %zu value%s, down to %s%s\n", color ? "\033[33m" : "",
                            (int)lw, tl, AXIS, a, a == 1 ? "" : "s",
                            extreme(&f, &st, ext, sizeof ext, s[0]), color ? "\033[0m" : "");
    }
    uint64_t cum = a;
    for (size_t r = 0; r < rows; r++) {
        cum += cnt[r];
        size_t dense = cols_for(cnt[r], n), total = cols_for(cum, n);
        rc |= vn_buf_printf(o, "%*s %s", (int)lw, label(&f, lab, sizeof lab, lo + (double)r * width),
                            AXIS);
        rc |= vn_buf_puts(o, color ? "\033[36m" : "");
        rc |= repeat(o, DENSE, dense);
        rc |= vn_buf_puts(o, color ? "\033[0m\033[2m" : "");
        rc |= repeat(o, LIGHT, total - dense);
        rc |= vn_buf_puts(o, color ? "\033[0m" : "");
        rc |= repeat(o, " ", COLS - total);
        rc |= vn_buf_printf(o, " %*llu\n", cwidth, (unsigned long long)cnt[r]);
    }
    if (b < n) {
        snprintf(tl, sizeof tl, "> %s", label(&f, lab, sizeof lab, hi));
        rc |= vn_buf_printf(o, "%s%*s %s %zu value%s, up to %s%s\n", color ? "\033[33m" : "",
                            (int)lw, tl, AXIS, n - b, n - b == 1 ? "" : "s",
                            extreme(&f, &st, ext, sizeof ext, s[n - 1]), color ? "\033[0m" : "");
    }
    free(cnt);
    free(s);
    return rc ? VN_ENOMEM : 0;
}
