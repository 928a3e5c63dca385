/* Reporters of one sample's statistics: the vernier.stats/1 JSON document
 * and the stats object every results file embeds, and the console summary.
 * The distribution graph is in stats/hist.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "internal.h"

/* ---- JSON ------------------------------------------------------------------ */

static void pair(vn__json *j, const char *key, const double v[2])
{
    vn__json_arr_begin(j, key);
    vn__json_num(j, NULL, v[0]);
    vn__json_num(j, NULL, v[1]);
    vn__json_arr_end(j);
}

void vn__json_stats(vn__json *j, const char *key, const vn_stats *s)
{
    vn__json_obj_begin(j, key);
    vn__json_uint(j, "n", s->n);
    vn__json_num(j, "min", s->min);
    vn__json_num(j, "max", s->max);
    vn__json_num(j, "mean", s->mean);
    vn__json_num(j, "stddev", s->stddev);
    vn__json_num(j, "sem", s->sem);
    pair(j, "mean_ci", s->mean_ci);
    vn__json_num(j, "median", s->median);
    pair(j, "median_ci", s->median_ci);
    vn__json_num(j, "median_ci_level", s->median_ci_level);
    vn__json_num(j, "mad", s->mad);
    vn__json_num(j, "mad_scaled", s->mad_scaled);
    vn__json_num(j, "iqr", s->iqr);
    vn__json_num(j, "cv", s->cv);
    vn__json_obj_begin(j, "percentiles");
    for (size_t i = 0; i < VN_STATS_NPCT; i++) {
        char k[16];
        snprintf(k, sizeof k, "%g", vn_stats_pct[i]);
        vn__json_num(j, k, s->pct[i]);
    }
    vn__json_obj_end(j);
    vn__json_obj_begin(j, "outliers");
    vn__json_uint(j, "low_severe", s->outliers.low_severe);
    vn__json_uint(j, "low_mild", s->outliers.low_mild);
    vn__json_uint(j, "high_mild", s->outliers.high_mild);
    vn__json_uint(j, "high_severe", s->outliers.high_severe);
    vn__json_obj_end(j);
    vn__json_num(j, "modality", s->modality);
    vn__json_obj_begin(j, "modes");
    vn__json_str(j, "test", "silverman");
    vn__json_uint(j, "count", s->modes.count);
    vn__json_arr_begin(j, "at");
    for (size_t i = 0; i < s->modes.count; i++)
        vn__json_num(j, NULL, s->modes.at[i]);
    vn__json_arr_end(j);
    vn__json_arr_begin(j, "share");
    for (size_t i = 0; i < s->modes.count; i++)
        vn__json_num(j, NULL, s->modes.share[i]);
    vn__json_arr_end(j);
    vn__json_num(j, "h_crit", s->modes.h_crit);
    vn__json_num(j, "p", s->modes.p);
    vn__json_obj_end(j);
    vn__json_num(j, "drift", s->drift);
    vn__json_num(j, "drift_p", s->drift_p);
    vn__json_obj_end(j);
}

int vn_report_stats_json(const vn_stats *s, const vn_histogram *h, const char *unit, vn_buf *out)
{
    if (!s || !out || (h && h->nbins && !h->counts))
        return VN_EINVAL;
    vn__json j;
    vn__json_init(&j, out, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_str(&j, "schema", "vernier.stats/1");
    vn__json_str(&j, "vernier_version", vn_version());
    vn__json_str(&j, "unit", unit && unit[0] ? unit : NULL);
    vn__json_stats(&j, "stats", s);
    if (h) {
        vn__json_obj_begin(&j, "histogram");
        vn__json_num(&j, "lo", h->lo);
        vn__json_num(&j, "width", h->width);
        vn__json_arr_begin(&j, "counts");
        for (size_t i = 0; i < h->nbins; i++)
            vn__json_uint(&j, NULL, h->counts[i]);
        vn__json_arr_end(&j);
        vn__json_uint(&j, "below", h->below);
        vn__json_uint(&j, "above", h->above);
        /* The CDF at each bin's upper edge: the cumulative graph's data. */
        double *cdf = malloc((h->nbins ? h->nbins : 1) * sizeof *cdf);
        if (!cdf)
            return VN_ENOMEM;
        vn_histogram_cdf(h, cdf);
        vn__json_arr_begin(&j, "cdf");
        for (size_t i = 0; i < h->nbins; i++)
            vn__json_num(&j, NULL, cdf[i]);
        vn__json_arr_end(&j);
        free(cdf);
        vn__json_obj_end(&j);
    } else {
        vn__json_null(&j, "histogram");
    }
    vn__json_obj_end(&j);
    return vn__json_finish(&j);
}

/* ---- console summary -------------------------------------------------------- */

#define BOLD(f) ((f) & VN_REPORT_COLOR ? "\033[1m" : "")
#define YELLOW(f) ((f) & VN_REPORT_COLOR ? "\033[33m" : "")
#define RESET(f) ((f) & VN_REPORT_COLOR ? "\033[0m" : "")

/* How values are written: durations scaled when the unit is ns, else plain
 * numbers followed by the unit; with decimals down to step, so numbers that
 * differ within the spread being reported do not print the same. */
typedef struct vfmt {
    const char *unit;
    int ns;
    double step;
} vfmt;

/* A severe outlier (beyond 3 IQR) is shown with a step of its own
 * (vn__shown_step). */
static vfmt for_value(const vfmt *f, const vn_stats *s, double v)
{
    vfmt g = *f;
    g.step = vn__shown_step(s, v, f->step);
    return g;
}

static const char *val(const vfmt *f, char *buf, size_t n, double v)
{
    if (f->ns)
        return vn__fmt_ns_as(buf, n, v, v, f->step);
    char num[64];
    vn__fmt_num_as(num, sizeof num, v, v, f->step);
    /* The number, then " unit" as far as buf holds it: a unit too long
     * for the column is cut, the number never. */
    if (!n)
        return buf;
    size_t used = 0;
    const char *parts[] = {num, f->unit && isfinite(v) ? " " : "", f->unit && isfinite(v) ? f->unit : ""};
    for (int i = 0; i < 3; i++)
        for (const char *c = parts[i]; *c && used + 1 < n; c++)
            buf[used++] = *c;
    buf[used] = '\0';
    return buf;
}

static double pos_min(double a, double b)
{
    int ga = a > 0 && isfinite(a), gb = b > 0 && isfinite(b);
    return ga && gb ? fmin(a, b) : ga ? a : gb ? b : 0;
}

/* A share in percent with about 2 significant digits and no exponent. */
static const char *percent(char *buf, size_t n, double p)
{
    double a = fabs(p);
    if (a != 0 && a < 0.005) /* not 0.00%: there is a spread */
        snprintf(buf, n, "%s<0.01%%", p < 0 ? "-" : "");
    else
        snprintf(buf, n, "%.*f%%", a == 0 ? 0 : a < 0.995 ? 2 : a < 9.95 ? 1 : 0, p);
    return buf;
}

#define INDENT 12
#define WIDTH 78

/* A remark in plain words under the numbers, wrapped at spaces to WIDTH
 * columns and indented under the values. */
static int note(vn_buf *o, unsigned flags, const char *text)
{
    int rc = vn_buf_printf(o, "%*s%snote: ", INDENT, "", YELLOW(flags));
    size_t col = INDENT + 6;
    const char *p = text;
    while (*p) {
        size_t w = strcspn(p, " ");
        if (col > INDENT + 6 && col + 1 + w > WIDTH) {
            rc |= vn_buf_printf(o, "%s\n%*s%s", RESET(flags), INDENT + 6, "", YELLOW(flags));
            col = INDENT + 6;
        } else if (col > INDENT + 6) {
            rc |= vn_buf_puts(o, " ");
            col++;
        }
        rc |= vn_buf_append(o, p, w);
        col += w;
        p += w;
        while (*p == ' ')
            p++;
    }
    return rc | vn_buf_printf(o, "%s\n", RESET(flags));
}

int vn_report_stats_text(const vn_stats *s, const char *unit, unsigned flags, vn_buf *o)
{
    if (!s || !o || s->n == 0)
        return VN_EINVAL;
    vfmt f = {unit && unit[0] ? unit : NULL, unit && strcmp(unit, "ns") == 0, 0};
    double half = fmax(s->median - s->median_ci[0], s->median_ci[1] - s->median);
    double spread = s->mad > 0 ? s->mad : s->iqr > 0 ? s->iqr : s->stddev;
    /* A tenth of the smaller of the median's CI and the spread: enough
     * digits to tell the CI's ends from the median, no more. */
    f.step = pos_min(half, spread) / 10;
    char a[96], b[96], c[96], pc[32], text[512];
    int rc = 0;
    const double m = s->median;

    rc |= vn_buf_printf(o, "%-*s%zu%s%s\n", INDENT, "values", s->n, f.unit ? ", in " : "",
                        f.unit ? f.unit : "");
    rc |= vn_buf_printf(o, "%-*s%s%s%s", INDENT, "median", BOLD(flags), val(&f, a, sizeof a, m),
                        RESET(flags));
    if (s->n >= 2) {
        rc |= vn_buf_printf(o, " +- %s", val(&f, a, sizeof a, half));
        /* No percentage past what a double holds (1e308 around 3). */
        if (m != 0 && isfinite(half / fabs(m) * 100))
            rc |= vn_buf_printf(o, " (+-%s)", percent(pc, sizeof pc, half / fabs(m) * 100));
        rc |= vn_buf_printf(o, "\n%*s95%% CI [%s, %s] from order statistics, coverage %.4g%%",
                            INDENT, "", val(&f, b, sizeof b, s->median_ci[0]),
                            val(&f, c, sizeof c, s->median_ci[1]), 100 * s->median_ci_level);
    }
    rc |= vn_buf_puts(o, "\n");
    if (s->n >= 2 && s->median_ci_level < 0.95)
        rc |= note(o, flags,
                   "below 6 values no interval of order statistics reaches 95%; this one "
                   "is [min, max], the widest there is");

    rc |= vn_buf_printf(o, "%-*s%s", INDENT, "mean", val(&f, a, sizeof a, s->mean));
    if (s->n >= 2) {
        /* Halved first: the two ends may each be near the largest double. */
        double mh = s->mean_ci[1] / 2 - s->mean_ci[0] / 2;
        rc |= vn_buf_printf(o, " +- %s", val(&f, a, sizeof a, mh));
        if (s->mean != 0 && isfinite(mh / fabs(s->mean) * 100))
            rc |= vn_buf_printf(o, " (+-%s)", percent(pc, sizeof pc, mh / fabs(s->mean) * 100));
        rc |= vn_buf_printf(o, "\n%*s95%% CI [%s, %s] from Student's t", INDENT, "",
                            val(&f, b, sizeof b, s->mean_ci[0]),
                            val(&f, c, sizeof c, s->mean_ci[1]));
    }
    rc |= vn_buf_puts(o, "\n");
    /* Measures of spread to 3 significant digits: their own uncertainty
     * is larger than that. */
    vfmt f3 = f;
    f3.step = 0;
    rc |= vn_buf_printf(o, "%-*s%s", INDENT, "stddev", val(&f3, a, sizeof a, s->stddev));
    if (isfinite(s->cv))
        rc |= vn_buf_printf(o, ", cv %s", percent(pc, sizeof pc, 100 * s->cv));
    rc |= vn_buf_puts(o, "\n");
    rc |= vn_buf_printf(o, "%-*s%s, x 1.4826 = %s\n", INDENT, "MAD", val(&f3, a, sizeof a, s->mad),
                        val(&f3, b, sizeof b, s->mad_scaled));
    rc |= vn_buf_printf(o, "%-*s%s\n", INDENT, "IQR", val(&f3, a, sizeof a, s->iqr));
    vfmt fx = for_value(&f, s, s->min);
    rc |= vn_buf_printf(o, "%-*s%s\n", INDENT, "min", val(&fx, a, sizeof a, s->min));
    fx = for_value(&f, s, s->max);
    rc |= vn_buf_printf(o, "%-*s%s\n", INDENT, "max", val(&fx, a, sizeof a, s->max));

    /* Percentiles in columns, as many to a line as fit in WIDTH. */
    char cell[VN_STATS_NPCT][112];
    size_t cw = 0;
    for (size_t i = 0; i < VN_STATS_NPCT; i++) {
        char lab[16];
        snprintf(lab, sizeof lab, "p%g", vn_stats_pct[i]);
        fx = for_value(&f, s, s->pct[i]);
        snprintf(cell[i], sizeof cell[i], "%-4s%s", lab, val(&fx, a, sizeof a, s->pct[i]));
        if (strlen(cell[i]) > cw)
            cw = strlen(cell[i]);
    }
    size_t per = (WIDTH - INDENT + 2) / (cw + 2);
    if (per < 1)
        per = 1;
    rc |= vn_buf_printf(o, "%-*s", INDENT, "percentiles");
    for (size_t i = 0; i < VN_STATS_NPCT; i++) {
        int last = i + 1 == VN_STATS_NPCT || (i + 1) % per == 0;
        rc |= vn_buf_printf(o, "%-*s", last ? 0 : (int)cw + 2, cell[i]);
        if (last)
            rc |= vn_buf_printf(o, "\n%*s", i + 1 == VN_STATS_NPCT ? 0 : INDENT, "");
    }

    const vn_outliers *u = &s->outliers;
    size_t nout = u->low_severe + u->low_mild + u->high_mild + u->high_severe;
    rc |= vn_buf_printf(o, "%-*s%zu of %zu (%s) beyond Tukey's fences", INDENT, "outliers", nout,
                        s->n, percent(pc, sizeof pc, 100.0 * (double)nout / (double)s->n));
    if (nout) {
        const char *sep = ": ";
        const struct {
            size_t v;
            const char *what;
        } parts[] = {{u->low_severe, "low severe"},
                     {u->low_mild, "low mild"},
                     {u->high_mild, "high mild"},
                     {u->high_severe, "high severe"}};
        for (size_t i = 0; i < 4; i++)
            if (parts[i].v) {
                rc |= vn_buf_printf(o, "%s%zu %s", sep, parts[i].v, parts[i].what);
                sep = ", ";
            }
    }
    rc |= vn_buf_puts(o, "\n");
    size_t severe = u->low_severe + u->high_severe;
    if (severe && m != 0 && isfinite(s->mean)) {
        snprintf(text, sizeof text,
                 "%zu severe outlier%s (beyond 3 IQR) put%s the mean %s %s the median: the "
                 "median and percentiles describe the usual value, the mean the rare ones too",
                 severe, severe == 1 ? "" : "s", severe == 1 ? "s" : "",
                 percent(pc, sizeof pc, fabs(s->mean - m) / fabs(m) * 100),
                 s->mean >= m ? "above" : "below");
        rc |= note(o, flags, text);
    }

    const vn_modes *md = &s->modes;
    char mv[64];
    if (md->count >= 2) {
        static const char *const words[] = {"", "one", "two", "three", "four", "five", "six"};
        rc |= vn_buf_printf(o, "%-*s%s, near", INDENT, "modes",
                            md->count < 7 ? words[md->count] : "several");
        for (size_t i = 0; i < md->count; i++)
            rc |= vn_buf_printf(o, "%s %s (%s)",
                                i == 0 ? "" : i + 1 == md->count ? " and" : ",",
                                val(&f, mv, sizeof mv, md->at[i]),
                                percent(pc, sizeof pc, 100 * md->share[i]));
        rc |= vn_buf_printf(o, " (one mode: p = %.2g)\n", md->p);
        rc |= note(o, flags,
                   "the values cluster in more than one place (Silverman's test: one mode is "
                   "rejected at p < 0.05), so no single number describes them; look at the "
                   "histogram (--hist) before trusting the median or the mean");
    } else if (md->count == 1) {
        rc |= vn_buf_printf(o, "%-*sone, near %s (one mode: p = %.2g)\n", INDENT, "modes",
                            val(&f, mv, sizeof mv, md->at[0]), md->p);
    } else {
        rc |= vn_buf_printf(o, "%-*s- (too few values to tell modes apart)\n", INDENT, "modes");
    }

    if (isfinite(s->drift)) {
        /* The t approximation of the p-value is poor below 10 values (with
         * 3, every ordering has p 1/3 or more, yet it says 0), so a trend
         * is claimed only from 10 on, as the engine does. */
        int sig = s->drift_p < 0.01 && s->n >= 10;
        rc |= vn_buf_printf(o, "%-*s%+.3f rank correlation with the order of the values, p = %.2g%s\n",
                            INDENT, "drift", s->drift, s->drift_p,
                            sig ? "" : s->n < 10 ? ": too few values to tell a trend" : ": no trend");
        if (sig) {
            snprintf(text, sizeof text,
                     "the values %s over the run: conditions changed while measuring (warm-up, "
                     "CPU frequency or temperature, a growing cache or heap), and the summary "
                     "mixes before and after",
                     s->drift > 0 ? "rise" : "fall");
            rc |= note(o, flags, text);
        }
    } else {
        rc |= vn_buf_printf(o, "%-*s- (needs 3 or more values, not all equal)\n", INDENT, "drift");
    }
    return rc ? VN_ENOMEM : 0;
}
