/* The plots of a page as gnuplot commands: per benchmark a histogram and
 * a CDF of its values, the median and its 95% interval marked; per sweep
 * the medians against the parameter with their intervals, on log axes,
 * and the complexity fit; for a comparison the ratios as bars coloured by
 * verdict, with their intervals. Pure: the model in, text out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "internal.h"

const char *const vn__rep_side_color[2] = {"#3366aa", "#dd7722"};

const char *vn__rep_verdict_color(vn__cmp_verdict v)
{
    switch (v) {
    case VN__CMP_FASTER: return "#2e7d32";
    case VN__CMP_SLOWER: return "#c62828";
    case VN__CMP_SAME: return "#8a8a8a";
    default: return "#c8c8c8";
    }
}

char *vn__rep_fmt_ns(char *s, size_t n, double ns)
{
    return vn__fmt_ns(s, n, ns);
}

/* A unit that keeps the axis' numbers short: its name, and ns per unit. */
static const char *unit(double ns, double *per)
{
    double a = fabs(ns);
    *per = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
    return a >= 1e9 ? "s" : a >= 1e6 ? "ms" : a >= 1e3 ? "us" : "ns";
}

/* Text from the files inside a gnuplot string: in single quotes nothing
 * is an escape but '' for a quote; in a data block's double quotes a '"'
 * cannot be written, so it becomes a '. Control characters become '?'. */
static int gp_str(vn_buf *b, const char *s, char quote)
{
    int rc = vn_buf_printf(b, "%c", quote);
    for (; !rc && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'' && quote == '\'')
            rc = vn_buf_puts(b, "''");
        else if (c == '"' && quote == '"')
            rc = vn_buf_puts(b, "'");
        else
            rc = vn_buf_printf(b, "%c", c < 0x20 || c == 0x7f ? '?' : (char)c);
    }
    return rc ? rc : vn_buf_printf(b, "%c", quote);
}

static const char *side_name(const vn__rep_model *m, int side)
{
    return m->nsides == 1 ? "samples" : side ? "new" : "base";
}

/* The title of a series in a key: "base: median 1.23 us (1.22-1.24)". */
static int series_title(vn_buf *b, const vn__rep_model *m, int side, const vn__rep_series *s)
{
    char med[32], lo[32], hi[32], t[160];
    if (!isfinite(s->st.median_ci[0]) || !isfinite(s->st.median_ci[1]))
        /* One value, or too few for an interval: the key says so. */
        snprintf(t, sizeof t, "%s: %s %s (%s)", side_name(m, side), s->n == 1 ? "one value," : "median",
                 vn__rep_fmt_ns(med, sizeof med, s->st.median),
                 s->n == 1 ? "no distribution to draw" : "too few values for an interval");
    else
        snprintf(t, sizeof t, "%s: median %s (%s to %s, 95%%)", side_name(m, side),
                 vn__rep_fmt_ns(med, sizeof med, s->st.median),
                 vn__rep_fmt_ns(lo, sizeof lo, s->st.median_ci[0]),
                 vn__rep_fmt_ns(hi, sizeof hi, s->st.median_ci[1]));
    return gp_str(b, t, '\'');
}

static int common(vn_buf *b, const char *title)
{
    int rc = vn_buf_puts(b, "reset\nset grid back lc rgb '#dddddd'\nset border 3\n"
                            "set tics nomirror\nset key top left opaque\nset title ");
    if (!rc)
        rc = gp_str(b, title, '\'');
    return rc ? rc : vn_buf_puts(b, "\n");
}

/* The median as a line and its interval as a band, behind the data. */
static int marks(vn_buf *b, const vn__rep_series *s, double per, int side)
{
    const char *c = vn__rep_side_color[side];
    if (!isfinite(s->st.median))
        return 0;
    /* No interval (one value, too few): the median alone. */
    if (!isfinite(s->st.median_ci[0]) || !isfinite(s->st.median_ci[1]))
        return vn_buf_printf(b, "set arrow from first %.9g, graph 0 to first %.9g, graph 1 nohead "
                                "lc rgb '%s' lw 2 front\n",
                             s->st.median / per, s->st.median / per, c);
    return vn_buf_printf(b,
                         "set object rect from first %.9g, graph 0 to first %.9g, graph 1 "
                         "fc rgb '%s' fs transparent solid 0.18 noborder behind\n"
                         "set arrow from first %.9g, graph 0 to first %.9g, graph 1 nohead "
                         "lc rgb '%s' lw 2 front\n",
                         s->st.median_ci[0] / per, s->st.median_ci[1] / per, c,
                         s->st.median / per, s->st.median / per, c);
}

static double scale_of(const vn__rep_bench *r, const char **name)
{
    double per, med = r->s[0].n ? r->s[0].st.median : r->s[1].st.median;
    *name = unit(med, &per);
    return per;
}

/* The plot command of each side's data block ($h0, $c1, ...) with its key. */
static int plot_sides(vn_buf *b, const vn__rep_model *m, const vn__rep_bench *r, char block,
                      const char *with)
{
    int rc = 0;
    const char *sep = "plot ";
    for (int s = 0; s < 2 && !rc; s++) {
        if (!r->s[s].n)
            continue;
        rc = vn_buf_printf(b, "%s$%c%d using 1:2 with %s lc rgb '%s' title ", sep, block, s, with,
                           vn__rep_side_color[s]);
        if (!rc)
            rc = series_title(b, m, s, &r->s[s]);
        sep = ", \\\n     ";
    }
    return rc ? rc : vn_buf_puts(b, "\n");
}

static int hist(const vn__rep_model *m, const vn__rep_bench *r, vn_buf *b)
{
    const char *u;
    double per = scale_of(r, &u), lo = INFINITY, hi = -INFINITY;
    size_t most = 0;
    for (int s = 0; s < 2; s++)
        if (r->s[s].n) {
            lo = fmin(lo, r->s[s].sorted[0]);
            hi = fmax(hi, r->s[s].sorted[r->s[s].n - 1]);
            most = r->s[s].n > most ? r->s[s].n : most;
        }
    int same = !(hi > lo);
    if (same) { /* every value the same: one bin of some width */
        double w = fabs(lo) * 0.01 + 1e-9;
        lo -= w, hi += w;
    }
    /* About the square root of the count, as a first look at the shape. */
    size_t nb = (size_t)ceil(sqrt((double)most));
    nb = nb < 5 ? 5 : nb > 40 ? 40 : nb;
    double w = (hi - lo) / (double)nb;
    int rc = common(b, r->name);
    if (!rc)
        rc = vn_buf_printf(b, "set xlabel 'time per iteration (%s)'\nset ylabel 'samples'\n"
                              "set yrange [0:*]\nset boxwidth %.9g absolute\n"
                              "set style fill transparent solid 0.5 noborder\n",
                           u, w / per);
    if (!rc && same)
        rc = vn_buf_printf(b, "set xrange [%.9g:%.9g]\nset label 'every value the same' at graph "
                              "0.5, graph 0.9 center\n", lo / per, hi / per);
    for (int s = 0; s < 2 && !rc; s++) {
        if (!r->s[s].n)
            continue;
        rc = vn_buf_printf(b, "$h%d << EOD\n", s);
        size_t k = 0;
        for (size_t i = 0; i < nb && !rc; i++) {
            size_t c = 0;
            double top = i + 1 == nb ? INFINITY : lo + w * (double)(i + 1);
            while (k < r->s[s].n && r->s[s].sorted[k] < top)
                k++, c++;
            rc = vn_buf_printf(b, "%.9g %zu\n", (lo + w * ((double)i + 0.5)) / per, c);
        }
        if (!rc)
            rc = vn_buf_puts(b, "EOD\n");
        if (!rc)
            rc = marks(b, &r->s[s], per, s);
    }
    return rc ? rc : plot_sides(b, m, r, 'h', "boxes");
}

static int cdf(const vn__rep_model *m, const vn__rep_bench *r, vn_buf *b)
{
    const char *u;
    double per = scale_of(r, &u);
    int rc = common(b, r->name);
    if (!rc)
        rc = vn_buf_printf(b, "set xlabel 'time per iteration (%s)'\n"
                              "set ylabel 'fraction of samples at or below'\nset yrange [0:1]\n"
                              "set key bottom right\n", u);
    /* Every value the same: a range around it, as the histogram's bin. */
    double lo = INFINITY, hi = -INFINITY;
    for (int s = 0; s < 2; s++)
        if (r->s[s].n) {
            lo = fmin(lo, r->s[s].sorted[0]);
            hi = fmax(hi, r->s[s].sorted[r->s[s].n - 1]);
        }
    if (!rc && isfinite(lo) && !(hi > lo)) {
        double w = fabs(lo) * 0.01 + 1e-9;
        rc = vn_buf_printf(b, "set xrange [%.9g:%.9g]\n", (lo - w) / per, (hi + w) / per);
    }
    for (int s = 0; s < 2 && !rc; s++) {
        const vn__rep_series *v = &r->s[s];
        if (!v->n)
            continue;
        rc = vn_buf_printf(b, "$c%d << EOD\n%.9g 0\n", s, v->sorted[0] / per);
        /* At most 500 steps: a page of many benchmarks stays small. */
        size_t steps = v->n < 500 ? v->n : 500;
        for (size_t k = 0; k < steps && !rc; k++) {
            size_t i = steps == v->n ? k : (size_t)((double)(k + 1) * (double)v->n / (double)steps) - 1;
            rc = vn_buf_printf(b, "%.9g %.9g\n", v->sorted[i] / per, (double)(i + 1) / (double)v->n);
        }
        if (!rc)
            rc = vn_buf_puts(b, "EOD\n");
        if (!rc)
            rc = marks(b, v, per, s);
    }
    return rc ? rc : plot_sides(b, m, r, 'c', "steps lw 2");
}

static int ratios(const vn__rep_model *m, vn_buf *b, int *width)
{
    const vn__cmp_result *c = &m->cmp;
    int rc = common(b, "new / base: ratio of medians with its 95% interval (below 1 is faster)");
    if (!rc)
        rc = vn_buf_printf(b, "set ylabel 'ratio'\nset yrange [0:*]\nset xrange [-0.6:%zu.4]\n"
                              "set boxwidth 0.6\nset style fill solid 0.75 noborder\n"
                              "set xtics rotate by -40 left\nset grid noxtics\nset key top right\n"
                              "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 "
                              "lc rgb '#444444' front\n$r << EOD\n",
                           c->nrows - 1);
    for (size_t i = 0; i < c->nrows && !rc; i++) {
        const vn__cmp_row *row = &c->rows[i];
        unsigned rgb = 0;
        sscanf(vn__rep_verdict_color(row->verdict) + 1, "%x", &rgb);
        rc = gp_str(b, row->name, '"');
        if (!rc)
            rc = vn_buf_printf(b, " %.9g %.9g %.9g %u\n", row->ratio,
                               isnan(row->lo) ? row->ratio : row->lo,
                               isnan(row->hi) ? row->ratio : row->hi, rgb);
    }
    if (!rc)
        rc = vn_buf_puts(b, "EOD\nplot $r using 0:2:5:xtic(1) with boxes lc rgb variable notitle, \\\n"
                            "     $r using 0:2:3:4 with yerrorbars pt -1 lc rgb '#222222' "
                            "title '95% interval'");
    /* The colours' key: one empty series each. */
    static const vn__cmp_verdict order[] = {VN__CMP_FASTER, VN__CMP_SLOWER, VN__CMP_SAME,
                                            VN__CMP_NO_INTERVAL};
    for (size_t i = 0; i < 4 && !rc; i++)
        if (c->count[order[i]])
            rc = vn_buf_printf(b, ", \\\n     NaN with boxes lc rgb '%s' title '%s'",
                               vn__rep_verdict_color(order[i]), vn__cmp_verdict_name(order[i]));
    *width = (int)(c->nrows * 28 + 200);
    *width = *width < 720 ? 720 : *width > 1800 ? 1800 : *width;
    return rc ? rc : vn_buf_puts(b, "\n");
}

/* c x f(n) in gnuplot's words, logarithms base 2 as the fit's. */
static const char *form(vn_bigo o)
{
    static const char *const f[VN_BIGO_COUNT] = {"1", "log(x)/log(2)", "x",
                                                 "x*log(x)/log(2)", "x**2", "x**3"};
    return (unsigned)o < VN_BIGO_COUNT ? f[o] : "NaN";
}

static int sweep(const vn__rep_model *m, const vn__rep_sweep *sw, vn_buf *b)
{
    double top = 0, per;
    int logx = 1, logy = 1;
    for (size_t i = 0; i < sw->n; i++) {
        logx &= sw->x[i] > 0;
        for (int s = 0; s < m->nsides; s++) {
            const vn__rep_series *v = &m->bench[sw->bench[i]].s[s];
            if (v->n)
                top = fmax(top, v->st.median);
        }
    }
    const char *u = unit(top, &per);
    int rc = common(b, sw->title);
    if (!rc)
        rc = vn_buf_printf(b, "set xlabel ");
    if (!rc)
        rc = gp_str(b, sw->key, '\'');
    if (!rc)
        rc = vn_buf_printf(b, "\nset ylabel 'median time per iteration (%s)'\n%s%s", u,
                           logx ? "set logscale x 2\nset format x '%g'\n" : "",
                           logy ? "set logscale y 10\nset format y '%g'\n" : "");
    for (int s = 0; s < m->nsides && !rc; s++) {
        rc = vn_buf_printf(b, "$s%d << EOD\n", s);
        for (size_t i = 0; i < sw->n && !rc; i++) {
            const vn__rep_series *v = &m->bench[sw->bench[i]].s[s];
            /* A log axis has no place for a time of 0 or less. */
            if (!v->n || (logy && v->st.median <= 0))
                continue;
            double lo = v->st.median_ci[0] > 0 ? v->st.median_ci[0] : v->st.median;
            rc = vn_buf_printf(b, "%.9g %.9g %.9g %.9g\n", sw->x[i], v->st.median / per, lo / per,
                               v->st.median_ci[1] / per);
        }
        if (!rc)
            rc = vn_buf_puts(b, "EOD\n");
    }
    for (int s = 0; s < m->nsides && !rc; s++) {
        rc = vn_buf_printf(b, "%s$s%d using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.7 lc rgb '%s' "
                              "title '%s'",
                           s ? ", \\\n     " : "plot ", s, vn__rep_side_color[s],
                           m->nsides == 1 ? "median, 95% interval" : side_name(m, s));
        const vn_bigo_fit *f = &sw->fit[s];
        /* A form that fits badly is no line to draw; the page says so. */
        if (!rc && sw->fitted[s] && f->rms[f->best] <= 0.2)
            rc = vn_buf_printf(b, ", \\\n     %.9g*%s with lines dt 2 lw 2 lc rgb '%s' "
                                  "title '%sO(%s) fit, RMS %.1f%%'",
                               f->coef[f->best] / per, form(f->best), vn__rep_side_color[s],
                               m->nsides == 1 ? "" : s ? "new: " : "base: ", vn_bigo_name(f->best),
                               f->rms[f->best] * 100);
    }
    return rc ? rc : vn_buf_puts(b, "\n");
}

int vn__rep_plots(const vn__rep_model *m, vn__rep_plot **out, size_t *n)
{
    size_t cap = 1 + m->nsweep + 2 * m->nbench, k = 0;
    vn__rep_plot *p = calloc(cap, sizeof *p);
    if (!p)
        return VN_ENOMEM;
    if (m->nsides == 2 && m->cmp.nrows)
        p[k++] = (vn__rep_plot){VN__REP_RATIOS, 0};
    for (size_t i = 0; i < m->nsweep; i++)
        p[k++] = (vn__rep_plot){VN__REP_SWEEP, i};
    for (size_t i = 0; i < m->nbench; i++)
        if (m->bench[i].s[0].n || m->bench[i].s[1].n) {
            p[k++] = (vn__rep_plot){VN__REP_HIST, i};
            p[k++] = (vn__rep_plot){VN__REP_CDF, i};
        }
    *out = p;
    *n = k;
    return 0;
}

int vn__rep_plot_script(const vn__rep_model *m, const vn__rep_plot *p, vn_buf *out, int *width,
                        int *height)
{
    *width = 560;
    *height = 340;
    switch (p->kind) {
    case VN__REP_RATIOS: *height = 420; return ratios(m, out, width);
    case VN__REP_SWEEP: *width = 720; *height = 420; return sweep(m, &m->sweep[p->index], out);
    case VN__REP_HIST: return hist(m, &m->bench[p->index], out);
    case VN__REP_CDF: return cdf(m, &m->bench[p->index], out);
    }
    return VN_EINVAL;
}

void vn__rep_plot_name(const vn__rep_model *m, const vn__rep_plot *p, char *out, size_t n)
{
    static const char *const kind[] = {"ratios", "sweep", "hist", "cdf"};
    const char *what = p->kind == VN__REP_RATIOS  ? "comparison"
                       : p->kind == VN__REP_SWEEP ? m->sweep[p->index].title
                                                  : m->bench[p->index].name;
    int k = snprintf(out, n, "%s-%zu-", kind[p->kind], p->index);
    /* Only letters, digits, '.', '-' and '_': a name from the files must
     * not reach another folder ("../") or need quoting. */
    for (size_t i = k > 0 ? (size_t)k : 0, j = 0; i + 1 < n && what[j] && j < 60; i++, j++) {
        char c = what[j];
        out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                         c == '.' || c == '-' || c == '_'
                     ? c
                     : '_';
        out[i + 1] = '\0';
    }
}
