/* Reporters of `vernier run`: the console summary of each command with the
 * comparison, and hyperfine's JSON layout for the tools built around it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "stats/internal.h"
#include "stats/levels.h"
#include "internal.h"
#include "results.h"
#include "run/runner.h"
#include "stats/stats_api.h"

#define BOLD(f) ((f) & VN_REPORT_COLOR ? "\033[1m" : "")
#define GREEN(f) ((f) & VN_REPORT_COLOR ? "\033[32m" : "")
#define YELLOW(f) ((f) & VN_REPORT_COLOR ? "\033[33m" : "")
#define RESET(f) ((f) & VN_REPORT_COLOR ? "\033[0m" : "")

enum { USER, SYS, RSS };

/* What a command is called in a report: its name (-n) or its command line. */
static const char *label(const vn_run_result *r)
{
    return r->named || !r->command ? r->name : r->command;
}

/* The mean or the median over the runs of one field of their usage. */
static double summary_of(const vn_run_result *r, int which, int mean)
{
    double *all = malloc((r->nsamples ? r->nsamples : 1) * sizeof *all);
    if (!all)
        return NAN;
    for (size_t i = 0; i < r->nsamples; i++) {
        const vn_proc_usage *u = &r->proc[i];
        all[i] = which == USER ? u->user_ns : which == SYS ? u->sys_ns : (double)u->maxrss_kib;
    }
    double m = NAN;
    vn_stats s;
    if (r->nsamples && vn_stats_compute(all, r->nsamples, &s) == 0)
        m = mean ? s.mean : s.median;
    free(all);
    return m;
}

static void fmt_kib(char *s, size_t n, double kib)
{
    if (!isfinite(kib))
        snprintf(s, n, "-");
    else if (kib >= 1024 * 1024)
        snprintf(s, n, "%.2f GiB", kib / 1024 / 1024);
    else if (kib >= 1024)
        snprintf(s, n, "%.1f MiB", kib / 1024);
    else
        snprintf(s, n, "%.0f KiB", kib);
}

static const char *stop_words(vn_stop s)
{
    switch (s) {
    case VN_STOP_PRECISION: return "the median is within the precision asked for";
    case VN_STOP_MAX_TIME: return "the time budget ran out first";
    case VN_STOP_MAX_SAMPLES: return "the number of runs was reached";
    case VN_STOP_FAILED: return "a run failed";
    case VN_STOP_INTERRUPTED: return "interrupted";
    case VN_STOP_SKIPPED: return "skipped";
    case VN_STOP_MAX_PROCESSES: return "the most processes ran first";
    case VN_STOP_PROCESSES_VARY: return "the processes vary more than the precision allows";
    }
    return "?";
}

/* Below the summaries, the engine's findings of the shared view, a line
 * each naming the commands between quotes as the comparison does; with
 * VN_REPORT_EXPLAIN, what each means and what to do, in full. */
static int findings(const vn_run_results *res, unsigned flags, vn_buf *o)
{
    enum { QUOTED = sizeof res->commands[0].name + 2 };
    char (*quoted)[QUOTED] = calloc(res->ncommands ? res->ncommands : 1, sizeof *quoted);
    const char **names = calloc(res->ncommands ? res->ncommands : 1, sizeof *names);
    vn_results view;
    memset(&view, 0, sizeof view);
    int rc = quoted && names ? vn__run_view(res, &view) : VN_ENOMEM;
    for (size_t i = 0; !rc && i < res->ncommands; i++) {
        char shown[sizeof res->commands[0].name];
        vn__fmt_printable(shown, sizeof shown, label(&res->commands[i]));
        const char *q = vn__quote_for(shown);
        snprintf(quoted[i], sizeof quoted[i], "%s%s%s", q, shown, q);
        names[i] = quoted[i];
    }
    if (!rc)
        rc = vn__results_findings(&view, res, names, flags, o);
    if (!rc && res->interrupted)
        rc = vn_buf_puts(o, "interrupted: the runs so far are shown\n");
    if (!rc && (flags & VN_REPORT_EXPLAIN)) {
        rc = vn_buf_puts(o, "\n");
        if (!rc)
            rc = vn__results_explain(&view, res, names, flags, o);
    }
    vn__run_view_free(&view);
    free(quoted);
    free(names);
    return rc;
}

int vn_report_run_text(const vn_run_results *res, const vn_run_compare *cmp, size_t ncmp,
                       unsigned flags, vn_buf *o)
{
    int rc = 0;
    char a[40], b[40], c[40], d[40];
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *r = &res->commands[i];
        const vn_stats *s = &r->stats;
        rc |= vn_buf_printf(o, "%s%s%s\n", BOLD(flags), label(r), RESET(flags));
        if (!r->nsamples) {
            rc |= vn_buf_printf(o, "  no runs%s%s\n\n", r->error[0] ? ": " : "", r->error);
            continue;
        }
        if (r->upper_bound) {
            rc |= vn_buf_printf(o, "  median   < %s (no slower than starting the shell)\n",
                                vn__fmt_ns(a, sizeof a, r->bound_ns));
        } else {
            /* The interval shown first is where the next run's median
             * falls (vn__levels_next_run), as every row of vernier's
             * shows it; this run's own is beside it. */
            double lo = s->median_ci[0], hi = s->median_ci[1];
            vn__levels_next_run(s->median, &lo, &hi);
            double half = fmax(s->median - lo, hi - s->median);
            double own = fmax(s->median - s->median_ci[0], s->median_ci[1] - s->median);
            rc |= vn_buf_printf(o, "  median   %s%s%s", GREEN(flags),
                                vn__fmt_ns(a, sizeof a, s->median), RESET(flags));
            /* One run has no interval and no spread: say nothing rather than "nan". */
            char pct[32], pct_own[32];
            if (isfinite(half) && s->n > 1)
                rc |= vn_buf_printf(o, " +-%s  (next run %s .. %s; this run's CI +-%s at %.1f%%)",
                                    vn__fmt_pct(pct, sizeof pct, 100 * half / s->median),
                                    vn__fmt_ns(b, sizeof b, lo), vn__fmt_ns(c, sizeof c, hi),
                                    vn__fmt_pct(pct_own, sizeof pct_own, 100 * own / s->median),
                                    100 * s->median_ci_level);
            rc |= vn_buf_puts(o, "\n");
            if (s->n > 1)
                rc |= vn_buf_printf(o, "  mean     %s +- %s (standard deviation)\n",
                                    vn__fmt_ns(a, sizeof a, s->mean),
                                    vn__fmt_ns(b, sizeof b, s->stddev));
            rc |= vn_buf_printf(o, "  range    %s .. %s\n", vn__fmt_ns(a, sizeof a, s->min),
                                vn__fmt_ns(b, sizeof b, s->max));
        }
        /* User and system time are means: the kernel measures a run's CPU
         * time exactly but, unless it accounts at every kernel entry, splits
         * it between user and system in proportion to the timer ticks that
         * fell in each, so a run shorter than a tick is all user or all
         * system, and a median of such runs says 0 for one of them. The
         * mean is right on average. */
        fmt_kib(d, sizeof d, summary_of(r, RSS, 0));
        rc |= vn_buf_printf(o, "  user     %s   system %s (means)   max RSS %s (median)\n",
                            vn__fmt_ns(a, sizeof a, fmax(0, summary_of(r, USER, 1) - r->shell_user_ns)),
                            vn__fmt_ns(b, sizeof b, fmax(0, summary_of(r, SYS, 1) - r->shell_sys_ns)), d);
        if (r->ncounters) {
            rc |= vn_buf_puts(o, "  counters ");
            for (int k = 0; k < r->ncounters; k++) {
                const vn_counter_result *cr = &r->counters[k];
                char v[40];
                if (!isfinite(cr->value))
                    snprintf(v, sizeof v, "-");
                else if (cr->unit && !strcmp(cr->unit, "ns"))
                    vn__fmt_ns(v, sizeof v, cr->value);
                else
                    vn__fmt_count(v, sizeof v, cr->value);
                rc |= vn_buf_printf(o, "%s%s %s%s", k ? ", " : "", cr->name, v, cr->scaled ? "*" : "");
            }
            rc |= vn_buf_puts(o, " (medians of the runs)\n");
        }
        long long tree = -1;
        for (size_t k = 0; k < r->nsamples; k++)
            if (r->proc[k].tree_peak_kib > tree)
                tree = r->proc[k].tree_peak_kib;
        if (tree >= 0) {
            fmt_kib(d, sizeof d, (double)tree);
            rc |= vn_buf_printf(o, "  tree     peak memory of the whole process tree %s (largest run)\n", d);
        }
        rc |= vn_buf_printf(o, "  runs     %zu (%s)", r->nsamples, stop_words(r->stop));
        if (r->shell_ns > 0)
            rc |= vn_buf_printf(o, "; through a shell, its start-up (%s) subtracted",
                                vn__fmt_ns(a, sizeof a, r->shell_ns));
        rc |= vn_buf_puts(o, "\n");
        if (r->error[0])
            rc |= vn_buf_printf(o, "  %sfailed   %s%s\n", YELLOW(flags), r->error, RESET(flags));
        rc |= vn_buf_puts(o, "\n");
    }
    if (ncmp) {
        const vn_run_result *f = &res->commands[cmp[0].fastest];
        const char *fname = label(f);
        const char *fq = vn__quote_for(fname);
        rc |= vn_buf_printf(o, "%sComparison%s\n  %s%s%s ran\n", BOLD(flags), RESET(flags), fq,
                            fname, fq);
        for (size_t i = 0; i < ncmp; i++) {
            const vn_run_result *x = &res->commands[cmp[i].other];
            const char *name = label(x);
            const char *q = vn__quote_for(name);
            char p[32];
            if (cmp[i].p < 0.001)
                snprintf(p, sizeof p, "p < 0.001");
            else
                snprintf(p, sizeof p, "p = %.2g", cmp[i].p);
            /* As many decimals as show the +- to one significant digit, at
             * least two: "1.19 +- 0.02", "1.194 +- 0.006". */
            int dec = 2;
            if (cmp[i].ratio_err > 0 && isfinite(cmp[i].ratio_err))
                dec = (int)fmax(2, fmin(6, 1 - floor(log10(cmp[i].ratio_err)) - 1));
            if (cmp[i].significant)
                rc |= vn_buf_printf(o, "    %s%.*f +- %.*f%s times faster than %s%s%s (Mann-Whitney %s)\n",
                                    GREEN(flags), dec, cmp[i].ratio, dec, cmp[i].ratio_err,
                                    RESET(flags), q, name, q, p);
            else
                rc |= vn_buf_printf(o, "    no significant difference from %s%s%s (ratio %.3g, Mann-Whitney %s)\n",
                                    q, name, q, cmp[i].ratio, p);
        }
        rc |= vn_buf_puts(o, "\n");
    }
    rc |= findings(res, flags, o);
    return rc ? VN_ENOMEM : 0;
}

/* The runs as hyperfine exports them: each net of the shell's start-up
 * and clamped at 0 as hyperfine clamps it (a run shorter than the shell's
 * mean start-up), with the summary of those times. */
typedef struct hf_times {
    double *t;                          /* ns, per run */
    double mean, sd, median, min, max;  /* of t; sd 0 for one run */
} hf_times;

static int hf_times_of(const vn_run_result *r, hf_times *h)
{
    size_t n = r->nsamples;
    h->t = malloc((n ? n : 1) * sizeof *h->t);
    double *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!h->t || !sorted) {
        free(h->t), free(sorted);
        h->t = NULL;
        return VN_ENOMEM;
    }
    double sum = 0, ss = 0;
    for (size_t k = 0; k < n; k++) {
        h->t[k] = sorted[k] = fmax(0, r->samples[k].value - r->shell_ns);
        sum += h->t[k];
    }
    h->mean = n ? sum / (double)n : NAN;
    for (size_t k = 0; k < n; k++)
        ss += (h->t[k] - h->mean) * (h->t[k] - h->mean);
    h->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
    qsort(sorted, n, sizeof *sorted, vn__cmp_double);
    h->median = n ? vn_percentile_sorted(sorted, n, 50) : NAN;
    h->min = n ? sorted[0] : NAN;
    h->max = n ? sorted[n - 1] : NAN;
    free(sorted);
    return 0;
}


/* hyperfine's --export-json layout: seconds, the mean and standard
 * deviation first, and every run's time, so its plotting scripts work. */
int vn_report_hyperfine_json(const vn_run_results *res, vn_buf *out)
{
    vn__json j;
    vn__json_init(&j, out, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_arr_begin(&j, "results");
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *r = &res->commands[i];
        if (!r->nsamples)
            continue;
        hf_times h;
        if (hf_times_of(r, &h)) {
            vn__json_finish(&j);
            return VN_ENOMEM;
        }
        vn__json_obj_begin(&j, NULL);
        vn__json_str(&j, "command", label(r));
        vn__json_num(&j, "mean", h.mean / 1e9);
        vn__json_num(&j, "stddev", r->nsamples > 1 ? h.sd / 1e9 : NAN);
        vn__json_num(&j, "median", h.median / 1e9);
        double user = 0, sys = 0;
        for (size_t k = 0; k < r->nsamples; k++) {
            user += r->proc[k].user_ns;
            sys += r->proc[k].sys_ns;
        }
        vn__json_num(&j, "user", fmax(0, user / (double)r->nsamples - r->shell_user_ns) / 1e9);
        vn__json_num(&j, "system", fmax(0, sys / (double)r->nsamples - r->shell_sys_ns) / 1e9);
        vn__json_num(&j, "min", h.min / 1e9);
        vn__json_num(&j, "max", h.max / 1e9);
        vn__json_arr_begin(&j, "times");
        for (size_t k = 0; k < r->nsamples; k++)
            vn__json_num(&j, NULL, h.t[k] / 1e9);
        vn__json_arr_end(&j);
        free(h.t);
        vn__json_arr_begin(&j, "exit_codes");
        for (size_t k = 0; k < r->nsamples; k++) {
            if (r->proc[k].signal)
                vn__json_null(&j, NULL);
            else
                vn__json_int(&j, NULL, r->proc[k].exit_status);
        }
        vn__json_arr_end(&j);
        if (r->nparams) {
            vn__json_obj_begin(&j, "parameters");
            for (size_t k = 0; k < r->nparams; k++)
                vn__json_str(&j, r->pnames[k], r->pvalues[k]);
            vn__json_obj_end(&j);
        }
        vn__json_obj_end(&j);
    }
    vn__json_arr_end(&j);
    vn__json_obj_end(&j);
    return vn__json_finish(&j);
}

/* ---- hyperfine's CSV and Markdown -------------------------------------------- */

/* The mean user and system time of the runs, the shell's start-up taken off. */
static void cpu_means(const vn_run_result *r, double *user, double *sys)
{
    double u = 0, y = 0;
    for (size_t k = 0; k < r->nsamples; k++) {
        u += r->proc[k].user_ns;
        y += r->proc[k].sys_ns;
    }
    *user = fmax(0, u / (double)r->nsamples - r->shell_user_ns);
    *sys = fmax(0, y / (double)r->nsamples - r->shell_sys_ns);
}

/* The shortest decimal that reads back as x, like hyperfine's own numbers. */
static int put_exact(vn_buf *o, double x)
{
    char s[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(s, sizeof s, "%.*g", p, x);
        if (strtod(s, NULL) == x)
            break;
    }
    return vn_buf_puts(o, s);
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static int put_csv_field(vn_buf *o, const char *s)
{
    if (!strpbrk(s, ",\"\r\n"))
        return vn_buf_puts(o, s);
    int rc = vn_buf_puts(o, "\"");
    for (const char *c = s; *c; c++)
        rc |= *c == '"' ? vn_buf_puts(o, "\"\"") : vn_buf_append(o, c, 1);
    return rc | vn_buf_puts(o, "\"");
}

int vn_report_hyperfine_csv(const vn_run_results *res, vn_buf *o)
{
    int rc = vn_buf_puts(o, "command,mean,stddev,median,user,system,min,max");
    const vn_run_result *first = NULL;
    for (size_t i = 0; i < res->ncommands && !first; i++)
        if (res->commands[i].nsamples)
            first = &res->commands[i];
    for (size_t k = 0; first && k < first->nparams; k++)
        rc |= vn_buf_printf(o, ",parameter_%s", first->pnames[k]);
    rc |= vn_buf_puts(o, "\n");
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *r = &res->commands[i];
        if (!r->nsamples)
            continue;
        hf_times h;
        if (hf_times_of(r, &h))
            return VN_ENOMEM;
        free(h.t);
        double user, sys;
        cpu_means(r, &user, &sys);
        double v[] = {h.mean, h.sd, h.median, user, sys, h.min, h.max};
        rc |= put_csv_field(o, label(r));
        for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
            rc |= vn_buf_puts(o, ",");
            rc |= put_exact(o, v[k] / 1e9);
        }
        for (size_t k = 0; k < r->nparams; k++) {
            rc |= vn_buf_puts(o, ",");
            rc |= put_csv_field(o, r->pvalues[k]);
        }
        rc |= vn_buf_puts(o, "\n");
    }
    return rc ? VN_ENOMEM : 0;
}

int vn_report_hyperfine_markdown(const vn_run_results *res, double unit_s, vn_buf *o)
{
    /* hyperfine's choice without --time-unit: seconds once the fastest mean
     * is a second or more, else milliseconds. */
    const vn_run_result *fast = NULL;
    hf_times hf = {0};
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *r = &res->commands[i];
        hf_times h;
        if (!r->nsamples)
            continue;
        if (hf_times_of(r, &h))
            return VN_ENOMEM;
        free(h.t);
        if (!fast || h.mean < hf.mean)
            fast = r, hf = h;
    }
    if (!(unit_s > 0))
        unit_s = fast && hf.mean >= 1e9 ? 1 : 1e-3;
    const char *name = unit_s >= 1 ? "s" : unit_s >= 1e-3 ? "ms" : unit_s >= 1e-6 ? "µs" : "ns";
    int dec = unit_s >= 1 ? 3 : 1;
    double scale = unit_s * 1e9;
    int rc = vn_buf_printf(o, "| Command | Mean [%s] | Min [%s] | Max [%s] | Relative |\n"
                              "|:---|---:|---:|---:|---:|\n", name, name, name);
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *r = &res->commands[i];
        if (!r->nsamples)
            continue;
        hf_times h;
        if (hf_times_of(r, &h))
            return VN_ENOMEM;
        free(h.t);
        double sd = h.sd;
        rc |= vn_buf_puts(o, "| `");
        for (const char *c = label(r); *c; c++)
            rc |= *c == '|' ? vn_buf_puts(o, "\\|") : vn_buf_append(o, c, 1);
        rc |= vn_buf_printf(o, "` | %.*f ± %.*f | %.*f | %.*f | ", dec, h.mean / scale, dec,
                            sd / scale, dec, h.min / scale, dec, h.max / scale);
        if (r == fast) {
            rc |= vn_buf_puts(o, "1.00 |\n");
            continue;
        }
        /* The ratio of the means, its error from both relative errors. */
        double fm = hf.mean, fs = hf.sd;
        double ratio = fm > 0 ? h.mean / fm : NAN;
        double err = ratio * sqrt(pow(h.mean > 0 ? sd / h.mean : 0, 2) + pow(fm > 0 ? fs / fm : 0, 2));
        rc |= vn_buf_printf(o, "%.2f ± %.2f |\n", ratio, err);
    }
    return rc ? VN_ENOMEM : 0;
}
