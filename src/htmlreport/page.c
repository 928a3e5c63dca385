/* The page itself: one HTML file with its style sheet and every plot
 * inline, so it opens anywhere with nothing to fetch (no script, no font,
 * no image from elsewhere). Every string from the files is escaped. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1280px;color:#222;padding:0 1em}\n"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1.05em}\n"
    "table{border-collapse:collapse;margin:0.8em 0;font-size:0.9em}\n"
    "caption{text-align:left;font-weight:bold;padding:0.3em 0}\n"
    "th,td{border:1px solid #ddd;padding:0.2em 0.5em;text-align:left;vertical-align:top}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "figure{margin:0.5em 0;display:inline-block;vertical-align:top}\n"
    "figure svg{max-width:100%;height:auto}figcaption{font-size:0.85em;color:#555}\n"
    ".verdict{font-weight:bold}nav a{margin-right:1em}.why{color:#a33}\n";

/* A figure: the plot's SVG, which gnuplot escaped its text in. */
static int figure(vn_buf *b, const vn__rep_plot *plots, const char *const *svg, size_t n,
                  vn__rep_kind kind, size_t index, const char *caption)
{
    static const char *const kinds[] = {"ratios", "sweep", "hist", "cdf"};
    for (size_t i = 0; i < n; i++) {
        if (plots[i].kind != kind || plots[i].index != index)
            continue;
        int rc = vn_buf_printf(b, "<figure class=\"plot\" data-plot=\"%s\">\n", kinds[kind]);
        if (!rc)
            rc = vn_buf_puts(b, svg[i]);
        if (!rc && caption) {
            rc = vn_buf_puts(b, "<figcaption>");
            if (!rc)
                rc = vn__rep_esc(b, caption);
            if (!rc)
                rc = vn_buf_puts(b, "</figcaption>");
        }
        return rc ? rc : vn_buf_puts(b, "</figure>\n");
    }
    return 0;
}

static int cell_ns(vn_buf *b, double ns)
{
    char t[32];
    return vn_buf_printf(b, "<td class=\"num\">%s</td>", isnan(ns) ? "&ndash;" : vn__rep_fmt_ns(t, sizeof t, ns));
}

static int comparison(vn_buf *b, const vn__rep_model *m, const vn__rep_plot *plots,
                      const char *const *svg, size_t n)
{
    const vn__cmp_result *c = &m->cmp;
    int rc = vn_buf_printf(b, "<section id=\"comparison\"><h2>Comparison: new against base</h2>\n"
                              "<p>%zu faster, %zu slower, %zu no change, %zu without an interval "
                              "(threshold %.3g%%).",
                           c->count[VN__CMP_FASTER], c->count[VN__CMP_SLOWER],
                           c->count[VN__CMP_SAME], c->count[VN__CMP_NO_INTERVAL],
                           c->opt.threshold * 100);
    if (!rc && !isnan(c->geomean))
        rc = vn_buf_printf(b, " Geometric mean of the ratios: %.3f", c->geomean);
    if (!rc && !isnan(c->geomean) && !isnan(c->geo_lo))
        rc = vn_buf_printf(b, " (%.3f to %.3f, 95%%)", c->geo_lo, c->geo_hi);
    if (!rc)
        rc = vn_buf_puts(b, "</p>\n");
    if (!rc)
        rc = figure(b, plots, svg, n, VN__REP_RATIOS, 0, NULL);
    if (!rc && c->nrows)
        rc = vn_buf_puts(b, "<table class=\"list compare\"><tr><th>benchmark</th><th>base time</th>"
                            "<th>new time</th><th>ratio</th><th>95% interval</th><th>p</th>"
                            "<th>verdict</th></tr>\n");
    for (size_t i = 0; i < c->nrows && !rc; i++) {
        const vn__cmp_row *r = &c->rows[i];
        rc = vn_buf_puts(b, "<tr><td>");
        if (!rc)
            rc = vn__rep_esc(b, r->name);
        if (!rc)
            rc = vn_buf_puts(b, "</td>");
        if (!rc)
            rc = cell_ns(b, r->base_median);
        if (!rc)
            rc = cell_ns(b, r->new_median);
        if (!rc)
            rc = vn_buf_printf(b, "<td class=\"num\">%.3f</td>", r->ratio);
        if (!rc && isnan(r->lo))
            rc = vn_buf_puts(b, "<td class=\"num\">&ndash;</td>");
        else if (!rc)
            rc = vn_buf_printf(b, "<td class=\"num\">%.3f to %.3f</td>", r->lo, r->hi);
        /* Why an interval past the threshold is still no change (compare.md). */
        const char *why = r->within_next_run ? " (within the interval a run printed for the next)"
                          : r->fast_end_still ? " (the fastest tenth of the processes did not move)"
                          : r->within_reach   ? " (within the precision a run reached)"
                                              : "";
        if (!rc)
            rc = vn_buf_printf(b, "<td class=\"num\">%.3g</td><td class=\"verdict\" style=\"color:%s\">"
                                  "%s%s</td></tr>\n",
                               r->p, vn__rep_verdict_color(r->verdict),
                               vn__cmp_verdict_name(r->verdict), why);
    }
    if (!rc && c->nrows)
        rc = vn_buf_puts(b, "</table>\n");
    for (size_t i = 0; i < c->nskipped && !rc; i++) {
        rc = vn_buf_puts(b, "<p class=\"why\">Not compared: ");
        if (!rc)
            rc = vn__rep_esc(b, c->skipped[i].name);
        if (!rc)
            rc = vn_buf_puts(b, ", ");
        if (!rc)
            rc = vn__rep_esc(b, c->skipped[i].why);
        if (!rc)
            rc = vn_buf_puts(b, "</p>\n");
    }
    for (int side = 0; side < 2 && !rc; side++) {
        size_t k = side ? c->nonly_new : c->nonly_base;
        const char **names = side ? c->only_new : c->only_base;
        if (k)
            rc = vn_buf_printf(b, "<p>Only in %s: ", side ? "new" : "base");
        for (size_t i = 0; i < k && !rc; i++) {
            rc = vn_buf_puts(b, i ? ", " : "");
            if (!rc)
                rc = vn__rep_esc(b, names[i]);
        }
        if (!rc && k)
            rc = vn_buf_puts(b, "</p>\n");
    }
    return rc ? rc : vn_buf_puts(b, "</section>\n");
}

/* What the fit of a side of a sweep says, for the caption. */
static void fit_text(const vn__rep_model *m, const vn__rep_sweep *s, char *out, size_t n)
{
    out[0] = '\0';
    for (int side = 0; side < m->nsides; side++) {
        size_t k = strlen(out);
        const char *who = m->nsides == 1 ? "" : side ? "new: " : "base: ";
        const vn_bigo_fit *f = &s->fit[side];
        if (!s->fitted[side])
            snprintf(out + k, n - k, "%s%sno complexity fit (it needs 4 sizes of at least 1)",
                     k ? "; " : "", who);
        else if (f->rms[f->best] > 0.2)
            snprintf(out + k, n - k, "%s%sno form fits well (best O(%s), RMS %.0f%%)", k ? "; " : "",
                     who, vn_bigo_name(f->best), f->rms[f->best] * 100);
        else
            snprintf(out + k, n - k, "%s%sO(%s), RMS %.1f%% (next best O(%s): %.0f%%)",
                     k ? "; " : "", who, vn_bigo_name(f->best), f->rms[f->best] * 100,
                     vn_bigo_name(f->next), f->rms[f->next] * 100);
    }
}

static int sweeps(vn_buf *b, const vn__rep_model *m, const vn__rep_plot *plots,
                  const char *const *svg, size_t n)
{
    int rc = vn_buf_puts(b, "<section id=\"sweeps\"><h2>Sweeps</h2>\n<p>The median of each size "
                            "with its 95% interval, on log axes; the dashed line is the "
                            "complexity fit through the medians (forms 1, log n, n, n log n, "
                            "n^2, n^3; drawn when its RMS is at most 20%).</p>\n");
    for (size_t i = 0; i < m->nsweep && !rc; i++) {
        char cap[512];
        fit_text(m, &m->sweep[i], cap, sizeof cap);
        rc = vn_buf_puts(b, "<h3>");
        if (!rc)
            rc = vn__rep_esc(b, m->sweep[i].title);
        if (!rc)
            rc = vn_buf_puts(b, "</h3>\n");
        if (!rc)
            rc = figure(b, plots, svg, n, VN__REP_SWEEP, i, cap);
    }
    return rc ? rc : vn_buf_puts(b, "</section>\n");
}

static int stats_row(vn_buf *b, const vn__rep_model *m, const vn__rep_bench *r, int side)
{
    const vn__rep_series *s = &r->s[side];
    int rc = vn_buf_puts(b, "<tr><td>");
    if (!rc)
        rc = vn__rep_esc(b, r->name);
    if (!rc)
        rc = vn_buf_printf(b, "</td><td>%s</td>", m->nsides == 1 ? "" : side ? "new" : "base");
    if (!rc && !s->n) {
        const char *why = r->b[side] && r->b[side]->why ? r->b[side]->why : "no values";
        rc = vn_buf_puts(b, "<td colspan=\"8\" class=\"why\">");
        if (!rc)
            rc = vn__rep_esc(b, why);
        return rc ? rc : vn_buf_puts(b, "</td></tr>\n");
    }
    char lo[32], hi[32];
    if (!rc)
        rc = vn_buf_printf(b, "<td class=\"num\">%zu</td>", s->n);
    if (!rc)
        rc = cell_ns(b, s->st.median);
    if (!rc)
        rc = vn_buf_printf(b, "<td class=\"num\">%s to %s</td>",
                           vn__rep_fmt_ns(lo, sizeof lo, s->st.median_ci[0]),
                           vn__rep_fmt_ns(hi, sizeof hi, s->st.median_ci[1]));
    double more[] = {s->st.mean, s->st.stddev, s->st.min, s->st.pct[VN_STATS_NPCT - 1], s->st.max};
    for (size_t i = 0; i < sizeof more / sizeof more[0] && !rc; i++)
        rc = cell_ns(b, more[i]);
    return rc ? rc : vn_buf_puts(b, "</tr>\n");
}

static int benchmarks(vn_buf *b, const vn__rep_model *m, const vn__rep_plot *plots,
                      const char *const *svg, size_t n)
{
    int rc = vn_buf_puts(b, "<section id=\"benchmarks\"><h2>Benchmarks</h2>\n<p>Times per "
                            "iteration, from the samples the headline uses (net of the empty loop "
                            "for code). In the plots the line is the median and the band its "
                            "95% interval.</p>\n<table class=\"list stats\"><tr><th>benchmark</th>"
                            "<th></th><th>samples</th><th>median</th><th>95% interval</th>"
                            "<th>mean</th><th>stddev</th><th>min</th><th>p99</th><th>max</th>"
                            "</tr>\n");
    for (size_t i = 0; i < m->nbench && !rc; i++)
        for (int side = 0; side < m->nsides && !rc; side++)
            if (m->bench[i].b[side])
                rc = stats_row(b, m, &m->bench[i], side);
    if (!rc)
        rc = vn_buf_puts(b, "</table>\n");
    for (size_t i = 0; i < m->nbench && !rc; i++) {
        if (!m->bench[i].s[0].n && !m->bench[i].s[1].n)
            continue;
        rc = vn_buf_printf(b, "<div class=\"bench\" id=\"bench-%zu\"><h3>", i);
        if (!rc)
            rc = vn__rep_esc(b, m->bench[i].name);
        if (!rc)
            rc = vn_buf_puts(b, "</h3>\n");
        if (!rc)
            rc = figure(b, plots, svg, n, VN__REP_HIST, i, NULL);
        if (!rc)
            rc = figure(b, plots, svg, n, VN__REP_CDF, i, NULL);
        if (!rc)
            rc = vn_buf_puts(b, "</div>\n");
    }
    return rc ? rc : vn_buf_puts(b, "</section>\n");
}

static int machines(vn_buf *b, const vn__rep_model *m, const vn__rep_file *files, size_t nfiles)
{
    int rc = vn_buf_puts(b, "<section id=\"machine\"><h2>Machine, clock and configuration</h2>\n");
    for (size_t i = 0; i < nfiles && i < m->nroots && !rc; i++) {
        rc = vn_buf_puts(b, "<h3>");
        if (!rc)
            rc = vn__rep_esc(b, files[i].name);
        if (!rc && m->nsides == 2)
            rc = vn_buf_puts(b, files[i].side ? " (new)" : " (base)");
        if (!rc)
            rc = vn_buf_puts(b, "</h3>\n");
        size_t before = b->len;
        if (!rc)
            rc = vn__rep_tables(m->roots[i], b);
        if (!rc && b->len == before)
            rc = vn_buf_puts(b, "<p>This file does not describe its machine.</p>\n");
    }
    return rc ? rc : vn_buf_puts(b, "</section>\n");
}

int vn__rep_page(const vn__rep_model *m, const vn__rep_file *files, size_t nfiles,
                 const vn__rep_plot *plots, const char *const *svg, size_t nplots, vn_buf *out)
{
    int rc = vn_buf_printf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                "<meta name=\"viewport\" content=\"width=device-width\">\n"
                                "<title>vernier report</title>\n<style>\n%s</style>\n</head>\n"
                                "<body>\n<h1>vernier report</h1>\n<p class=\"files\">",
                           style);
    for (size_t i = 0; i < nfiles && !rc; i++) {
        rc = vn_buf_puts(out, i ? "; " : m->nsides == 2 ? "" : "Results: ");
        if (!rc && m->nsides == 2 && (i == 0 || files[i].side != files[i - 1].side))
            rc = vn_buf_puts(out, files[i].side ? "new: " : "base: ");
        if (!rc)
            rc = vn__rep_esc(out, files[i].name);
    }
    int cmp = m->nsides == 2;
    if (!rc)
        rc = vn_buf_printf(out, "</p>\n<nav>%s%s<a href=\"#benchmarks\">Benchmarks</a>"
                                "<a href=\"#machine\">Machine</a></nav>\n",
                           cmp ? "<a href=\"#comparison\">Comparison</a>" : "",
                           m->nsweep ? "<a href=\"#sweeps\">Sweeps</a>" : "");
    if (!rc && cmp)
        rc = comparison(out, m, plots, svg, nplots);
    if (!rc && m->nsweep)
        rc = sweeps(out, m, plots, svg, nplots);
    if (!rc)
        rc = benchmarks(out, m, plots, svg, nplots);
    if (!rc)
        rc = machines(out, m, files, nfiles);
    if (!rc)
        rc = vn_buf_printf(out, "<footer><p>Made by vernier %s; plots drawn by gnuplot.</p></footer>\n"
                                "</body>\n</html>\n", vn_version());
    return rc;
}
