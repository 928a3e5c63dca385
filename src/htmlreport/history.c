/* vernier history --report: one self-contained page with a plot per
 * series (its headlines over the results, their intervals and the wider
 * ones history gives, the change points marked) and each series' change
 * points in a table. One gnuplot draws every plot, as for vernier report. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "run/exec_internal.h"
#include "internal.h"
#include "report.h"

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1280px;color:#222;padding:0 1em}\n"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}\n"
    "table{border-collapse:collapse;margin:0.8em 0;font-size:0.9em}\n"
    "th,td{border:1px solid #ddd;padding:0.2em 0.5em;text-align:left}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "figure{margin:0.5em 0}figure svg{max-width:100%;height:auto}\n"
    ".slower{color:#b22}.faster{color:#272}.machine{color:#555}\n";

/* Text for a gnuplot string in double quotes. */
static int gp_str(vn_buf *b, const char *s)
{
    int rc = vn_buf_puts(b, "\"");
    for (; !rc && *s; s++) {
        if (*s == '"' || *s == '\\')
            rc = vn_buf_printf(b, "\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            rc = vn_buf_printf(b, "%c", *s);
    }
    return rc ? rc : vn_buf_puts(b, "\"");
}

static const char *verdict_of(double ratio, double threshold)
{
    return ratio > 1 + threshold ? "slower" : ratio < 1 - threshold ? "faster" : "no change";
}

/* A commit for a label: its first 8 characters, or the result's number. */
static void label(char *s, size_t n, const vn__store_point *p, size_t i)
{
    if (p->commit[0])
        snprintf(s, n, "%.8s%s", p->commit, p->dirty > 0 ? "+" : "");
    else
        snprintf(s, n, "#%zu", i + 1);
}

static int plot_script(vn_buf *b, const vn__store_series *v, const vn__store_changes *ch)
{
    int rc = vn_buf_puts(b, "set terminal svg size 960,380 noenhanced font 'sans,10' "
                            "background rgb 'white'\nset output\nset title ");
    if (!rc)
        rc = gp_str(b, v->name);
    if (!rc)
        rc = vn_buf_printf(b, "\nset ylabel \"%s per iteration\"\nset grid ytics\nset key top "
                              "left opaque\nset xtics rotate by -45 nomirror (",
                           v->in_cycles ? "reference cycles" : "ns");
    /* At most about 30 labels along the axis. */
    size_t step = v->n > 30 ? (v->n + 29) / 30 : 1;
    for (size_t i = 0; !rc && i < v->n; i += step) {
        char l[32];
        label(l, sizeof l, &v->pt[i], i);
        rc = vn_buf_printf(b, "%s", i ? ", " : "");
        if (!rc)
            rc = gp_str(b, l);
        if (!rc)
            rc = vn_buf_printf(b, " %zu", i);
    }
    if (!rc)
        rc = vn_buf_printf(b, ")\nset xrange [-0.5:%zu.5]\nunset arrow\n", v->n ? v->n - 1 : 0);
    for (size_t c = 0; !rc && ch && c < ch->n; c++)
        rc = vn_buf_printf(b, "set arrow from %zu.5, graph 0 to %zu.5, graph 1 nohead lw 2 "
                              "lc rgb '%s' dt 2\n",
                           ch->at[c].index - 1, ch->at[c].index - 1,
                           ch->at[c].ratio > 1 ? "#b22222" : "#228b22");
    if (!rc)
        rc = vn_buf_puts(b, "$d << EOD\n");
    for (size_t i = 0; !rc && i < v->n; i++) {
        const vn__store_point *p = &v->pt[i];
        rc = vn_buf_printf(b, "%zu %.9g %.9g %.9g %.9g %.9g\n", i, p->value,
                           isfinite(p->lo) ? p->lo : p->value, isfinite(p->hi) ? p->hi : p->value,
                           isfinite(p->lo_h) ? p->lo_h : NAN, isfinite(p->hi_h) ? p->hi_h : NAN);
    }
    if (!rc)
        rc = vn_buf_puts(b, "EOD\nplot $d using 1:2:5:6 with yerrorbars pt 0 lc rgb '#bbbbbb' "
                            "title 'interval with history', "
                            "'' using 1:2:3:4 with yerrorbars pt 7 ps 0.5 lc rgb '#1f77b4' "
                            "title 'headline, 95% interval for the next run', "
                            "'' using 1:2 with lines lc rgb '#1f77b4' notitle\n");
    return rc;
}

static int changes_table(vn_buf *b, const vn__store_series *v, const vn__store_changes *ch,
                         double threshold)
{
    if (!ch)
        return 0;
    if (!ch->n)
        return vn_buf_puts(b, "<p>No change point.</p>\n");
    int rc = vn_buf_puts(b, "<table><tr><th>between</th><th>ratio</th><th>95% interval</th>"
                            "<th>p</th><th>verdict</th></tr>\n");
    for (size_t c = 0; !rc && c < ch->n; c++) {
        const vn__store_change *x = &ch->at[c];
        char a[32], z[32];
        label(a, sizeof a, &v->pt[x->index - 1], x->index - 1);
        label(z, sizeof z, &v->pt[x->index], x->index);
        const char *verdict = verdict_of(x->ratio, threshold);
        rc = vn_buf_puts(b, "<tr><td>");
        if (!rc)
            rc = vn__rep_esc(b, a);
        if (!rc)
            rc = vn_buf_puts(b, " .. ");
        if (!rc)
            rc = vn__rep_esc(b, z);
        if (!rc)
            rc = vn_buf_printf(b, "</td><td class=\"num\">%.4f</td><td class=\"num\">%.4f &ndash; "
                                  "%.4f</td><td class=\"num\">%.2g</td><td class=\"%s\">%s</td>"
                                  "</tr>\n",
                               x->ratio, x->lo, x->hi, x->p,
                               strcmp(verdict, "no change") ? verdict : "same", verdict);
    }
    return rc ? rc : vn_buf_puts(b, "</table>\n");
}

int vn__rep_history(const vn__store_series *v, size_t nv, const vn__store_changes *ch,
                    double threshold, const char *store, const vn__rep_options *o, vn_buf *out,
                    char *err, size_t errlen)
{
    char gp[4096];
    if (vn__which(o->gnuplot ? o->gnuplot : "gnuplot", gp, sizeof gp)) {
        snprintf(err, errlen, "gnuplot not found; install the Debian package gnuplot-nox");
        return VN_ENOENT;
    }
    vn_buf s, img, inl;
    vn_buf_init(&s, VN_RESULTS_BUF_MAX);
    vn_buf_init(&img, VN_RESULTS_BUF_MAX);
    vn_buf_init(&inl, VN_RESULTS_BUF_MAX);
    int rc = 0;
    for (size_t i = 0; i < nv && !rc; i++)
        rc = plot_script(&s, &v[i], ch ? &ch[i] : NULL);
    if (!rc && nv)
        rc = vn__rep_gnuplot(gp, s.data ? s.data : "", s.len, o->timeout_s ? o->timeout_s : 120,
                             &img, err, errlen);
    rc = rc ? rc
            : vn_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                               "<title>vernier history</title><style>");
    if (!rc)
        rc = vn_buf_puts(out, style);
    if (!rc)
        rc = vn_buf_puts(out, "</style></head><body>\n<h1>vernier history</h1>\n<p>From ");
    if (!rc)
        rc = vn__rep_esc(out, store);
    if (!rc)
        rc = vn_buf_printf(out, ": %zu series. Each point is a result: the median of its "
                                "processes, runs or repetitions, with its 95%% interval for the "
                                "next run, and in grey that interval widened by the variation "
                                "between the results before it. Dashed lines are change "
                                "points.</p>\n",
                           nv);
    const char *at = img.data ? img.data : "", *end = at + img.len;
    for (size_t i = 0; i < nv && !rc; i++) {
        const char *doc;
        size_t len;
        if (!vn__rep_next_doc(&at, end, "</svg>", &doc, &len)) {
            snprintf(err, errlen, "gnuplot drew %zu of the %zu plots", i, nv);
            rc = VN_EINVAL;
            break;
        }
        char prefix[32];
        snprintf(prefix, sizeof prefix, "h%zu-", i);
        vn_buf_reset(&inl);
        rc = vn__rep_svg_inline(doc, len, prefix, &inl);
        if (!rc)
            rc = vn_buf_puts(out, "<section class=\"series\"><h2>");
        if (!rc)
            rc = vn__rep_esc(out, v[i].name);
        if (!rc)
            rc = vn_buf_puts(out, "</h2>\n<p class=\"machine\">");
        if (!rc)
            rc = vn__rep_esc(out, v[i].machine);
        if (!rc)
            rc = vn_buf_printf(out, ": %zu results</p>\n<figure>", v[i].n);
        if (!rc)
            rc = vn_buf_append(out, inl.data, inl.len);
        if (!rc)
            rc = vn_buf_puts(out, "</figure>\n");
        if (!rc)
            rc = changes_table(out, &v[i], ch ? &ch[i] : NULL, threshold);
        if (!rc)
            rc = vn_buf_puts(out, "</section>\n");
    }
    if (!rc)
        rc = vn_buf_puts(out, "</body></html>\n");
    if (rc == VN_ENOMEM)
        snprintf(err, errlen, "out of memory");
    vn_buf_free(&s);
    vn_buf_free(&img);
    vn_buf_free(&inl);
    return rc;
}
