/* The console table of the engine's results: one row per benchmark, then
 * the findings below it (results_findings.c: each warning id with the rows
 * it touched, the machine's warnings, the counters, the timer) and the rows
 * that did not stop at the precision asked for. With VN_REPORT_EXPLAIN,
 * what each finding means and what to do about it, every message in full.
 *
 * Rows are read through vernier/results.h, but for the per-thread medians
 * under a row run with --threads, an array no figure holds. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/results.h"
#include "base/format.h"
#include "results.h"

#define BOLD "\033[1m"
#define YELLOW "\033[33m"
#define RED "\033[31m"
#define RESET "\033[0m"

typedef vn__text text;

#define out(t, ...) vn__textf((t)->b, &(t)->err, __VA_ARGS__)
#define pad vn__text_pad

static int has_value(const char *s) { return s[0] && strcmp(s, "-") != 0; }

/* The separator before column k: the ci95 cell sits one space after the
 * median it belongs to, every other column two spaces after the previous. */
static const char *gap(int k) { return k == VN__COL_CI ? " " : "  "; }

/* Writes the cells of the shown columns; the last shown column is not
 * padded, so no line ends in spaces. `last` is that column's index. The
 * whole line is wrapped in line_color, the marks in marks_color (each NULL
 * for none). */
static void cells_row(text *t, const vn__col *cols, char cells[][VN__CELL], const int *shown,
                      const size_t *w, int last, const char *line_color, const char *marks_color)
{
    if (line_color)
        out(t, "%s", line_color);
    for (int k = 0; k < VN__NCOLS; k++) {
        if (!shown[k])
            continue;
        const char *s = cells[k];
        size_t sw = vn__text_width(s);
        size_t fill = w[k] > sw ? w[k] - sw : 0;
        if (k > 0)
            out(t, "%s", gap(k));
        int colored = k == VN__COL_MARKS && s[0] && marks_color;
        if (cols[k].right)
            pad(t, fill);
        out(t, "%s%s%s", colored ? marks_color : "", s, colored ? RESET : "");
        if (!cols[k].right && k != last)
            pad(t, fill);
    }
    /* An empty last cell (no warnings) leaves its gap behind: drop it. */
    while (!t->err && t->b->len && t->b->data[t->b->len - 1] == ' ')
        t->b->data[--t->b->len] = '\0';
    out(t, "%s\n", line_color ? RESET : "");
}

/* Per-thread medians under a row run with several threads: all of them up
 * to eight, beyond that their range, so one row never becomes a page; the
 * range too when the list would be wider than width (0: no limit). */
static void threads_line(text *t, const vn_result *r, size_t width)
{
    char a[32], b[32], list[8 * 34] = "";
    int threads = (int)vn_result_figure(r, VN_THREADS);
    size_t start = t->b->len;
    out(t, "  %d threads, together %s", threads,
        vn__fmt_rate(a, sizeof a, vn_result_figure(r, VN_ITERS_PER_SEC), "iter"));
    if (!r->thread_median) {
        out(t, "\n");
        return;
    }
    static const char per[] = "; median per thread with the loop";
    size_t used = 0;
    for (int i = 0; threads <= 8 && i < threads; i++) {
        int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : " ",
                         vn__fmt_ns(a, sizeof a, r->thread_median[i]));
        used += n > 0 && (size_t)n < sizeof list - used ? (size_t)n : 0;
    }
    if (threads <= 8 && (!width || t->b->len - start + strlen(per) + used <= width)) {
        out(t, "%s%s", per, list);
    } else {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < threads; i++) {
            lo = fmin(lo, r->thread_median[i]);
            hi = fmax(hi, r->thread_median[i]);
        }
        out(t, "; median per thread with the loop from %s to %s", vn__fmt_ns(a, sizeof a, lo),
            vn__fmt_ns(b, sizeof b, hi));
    }
    out(t, "\n");
}

/* The width of a line of the shown columns. */
static size_t line_width(const int *shown, const size_t *w)
{
    size_t n = 0;
    for (int k = 0; k < VN__NCOLS; k++)
        if (shown[k])
            n += w[k] + (k > 0 ? strlen(gap(k)) : 0);
    return n;
}

/* Leaves columns out, those a reader of the console needs least first,
 * until a line fits in width (0: no limit), and names them in left (n
 * bytes: "overhead, mean"). The headline (the name, the median, its
 * interval, the relative column) and the warning marks stay: the
 * findings below the table refer to the marks, and what the headline
 * says is the table's reason to be. */
static void fit(const vn__col *cols, int *shown, const size_t *w, size_t width, char *left,
                size_t n)
{
    static const int first[] = {VN__COL_OVERHEAD, VN__COL_MEAN,    VN__COL_MIN,   VN__COL_MAD,
                                VN__COL_P99,      VN__COL_RATE,    VN__COL_CPU,   VN__COL_SAMPLES,
                                VN__COL_PROCS,    VN__COL_CYCLES};
    int order[sizeof first / sizeof first[0] + VN__MAX_CCOLS];
    size_t m = 0;
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
        order[m++] = first[i];
    for (int k = VN__COL_MARKS - 1; k >= VN__COL_CTR; k--)
        order[m++] = k;
    left[0] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < m && width && line_width(shown, w) > width; i++) {
        int k = order[i];
        if (!shown[k])
            continue;
        shown[k] = 0;
        int wrote = snprintf(left + len, n - len, "%s%s", len ? ", " : "", cols[k].header);
        if (wrote > 0 && (size_t)wrote < n - len)
            len += (size_t)wrote;
    }
}

static void table(text *t, const vn_results *r, const vn__col *cols, vn__cells *rows, size_t width)
{
    int shown[VN__NCOLS];
    size_t w[VN__NCOLS];
    char header[VN__NCOLS][VN__CELL];
    for (int k = 0; k < VN__NCOLS; k++) {
        snprintf(header[k], sizeof header[k], "%s", cols[k].header ? cols[k].header : "");
        w[k] = vn__text_width(header[k]);
        shown[k] = !cols[k].optional;
        for (size_t i = 0; i < vn_results_count(r); i++) {
            if (rows[i].failed && k != VN__COL_NAME)
                continue;
            size_t cw = vn__text_width(rows[i].s[k]);
            if (cw > w[k])
                w[k] = cw;
            if (has_value(rows[i].s[k]))
                shown[k] = 1;
        }
    }
    char left[VN__CELL];
    fit(cols, shown, w, width, left, sizeof left);
    int last = 0;
    for (int k = 0; k < VN__NCOLS; k++)
        if (shown[k])
            last = k;

    cells_row(t, cols, header, shown, w, last, t->color ? BOLD : NULL, NULL);

    for (size_t i = 0; i < vn_results_count(r); i++) {
        const vn_result *res = vn_results_at(r, i);
        if (rows[i].failed) {
            out(t, "%s", rows[i].s[VN__COL_NAME]);
            pad(t, w[VN__COL_NAME] - vn__text_width(rows[i].s[VN__COL_NAME]));
            char why[VN__CELL];
            int skipped = vn_result_stop(res) == VN_STOP_SKIPPED;
            out(t, "  %s%s: %s%s\n", t->color && !skipped ? RED : "", skipped ? "skipped" : "failed",
                vn__fmt_printable(why, sizeof why, vn_result_error(res)),
                t->color && !skipped ? RESET : "");
            continue;
        }
        cells_row(t, cols, rows[i].s, shown, w, last, NULL, t->color ? YELLOW : NULL);
        if (vn_result_figure(res, VN_THREADS) > 1)
            threads_line(t, res, width);
    }
    if (left[0])
        out(t, "left out to fit %zu columns: %s\n", width, left);
}

int vn_report_results_text(const vn_results *r, unsigned flags, vn_buf *b)
{
    if (!b)
        return VN_EINVAL;
    int bad = vn__results_check(r);
    if (bad)
        return bad;
    text t = {b, (flags & VN_REPORT_COLOR) != 0, 0};
    size_t n = vn_results_count(r);
    vn__cells *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return VN_ENOMEM;
    vn__col cols[VN__NCOLS];
    vn__results_layout(r, 1, cols);
    for (size_t i = 0; i < n; i++) {
        vn__results_cells(vn_results_at(r, i), &rows[i]);
        vn__results_counter_cells(cols, vn_results_at(r, i), &rows[i]);
    }

    if (n)
        table(&t, r, cols, rows, (flags >> 16) & 0xffffu);
    else
        out(&t, "no benchmarks ran%s%s%s\n", r->config.filter ? " (none matches '" : "",
            r->config.filter ? r->config.filter : "", r->config.filter ? "')" : "");

    out(&t, "\n");
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names)
        t.err = VN_ENOMEM;
    for (size_t i = 0; names && i < n; i++)
        names[i] = rows[i].s[VN__COL_NAME];
    if (!t.err)
        t.err = vn__results_findings(r, NULL, names, flags | VN__FINDINGS_TIMER, b);
    if (!t.err)
        t.err = vn__results_stop_notes(r, NULL, "", 0, b);
    if (!t.err && (flags & VN_REPORT_EXPLAIN)) {
        out(&t, "\n");
        if (!t.err)
            t.err = vn__results_explain(r, NULL, names, flags | VN__FINDINGS_TIMER, b);
    }
    free(names);
    free(rows);
    return t.err;
}
