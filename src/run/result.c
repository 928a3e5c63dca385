/* vernier run's results: each row's numbers, warnings and counters from
 * its runs, and the comparison of the rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/format.h"
#include "engine/internal.h"

#include "run.h"

/* Adds a warning to a command's row, as vn__result_warn does to the
 * engine's; the brief is vn__warning_brief's to add. */
VN_PRINTF(3, 4)
static vn_bench_warning *run_warn(vn_run_result *res, const char *id, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vn_bench_warning *w = vn__warning_vadd(res->warnings, &res->nwarnings, id, fmt, ap);
    va_end(ap);
    return w;
}

/* The warnings of one command's runs (pure, from the numbers). Each brief
 * puts its numbers first and what every command would share after them,
 * so that the console names the commands with their numbers on one line. */
static void run_warnings(vn_run_result *res, const row *r, const vn_run_config *c,
                         const vn__shell_time *sh)
{
    const vn_stats *s = &res->stats;
    if (!s->n)
        return;
    if (s->median < 5e6)
        vn__warning_brief(run_warn(res, "too_short",
             "each run takes only %.3g ms: starting a process is a large part of that; time "
             "more work per run if you can",
             s->median / 1e6), "%.3g ms per run; starting a process is much of that",
             s->median / 1e6);
    double first = res->nsamples ? res->samples[0].value - res->shell_ns : NAN;
    double iqr = s->iqr;
    if (res->nsamples >= 5 && first > s->median * 1.5 && first > s->pct[6] + 3 * iqr)
        vn__warning_brief(run_warn(res, "slow_first_run",
             "the first run took %.3g ms against a median of %.3g ms: caches were cold; add "
             "--warmup 1 (or --prepare to measure every run cold)",
             first / 1e6, s->median / 1e6), "%.3g ms first vs %.3g ms median; cold caches",
             first / 1e6, s->median / 1e6);
    size_t severe = s->outliers.high_severe + s->outliers.low_severe;
    if (severe)
        vn__warning_brief(run_warn(res, "outliers",
             "%zu of %zu runs were far from the rest (beyond 3 IQR): other work on the machine; "
             "they are kept, and the median ignores them",
             severe, (size_t)s->n), "%zu/%zu runs beyond 3 IQR, kept", severe, (size_t)s->n);
    double rel = s->median != 0 ? s->mad_scaled / fabs(s->median) : NAN;
    if (rel > 0.05)
        vn__warning_brief(run_warn(res, "high_variance",
             "runs vary by %.1f%% (scaled MAD / median)", 100 * rel),
             "%.1f%% spread, scaled MAD / median", 100 * rel);
    if (s->n >= 20 && s->modality >= 2.8)
        vn__warning_brief(run_warn(res, "multimodal",
             "the run times have several modes (mvalue %.1f): see --hist", s->modality),
             "mvalue %.1f: several modes; see --hist", s->modality);
    if (s->n >= 10 && s->drift_p < 0.001 && fabs(s->drift) >= 0.3)
        vn__warning_brief(run_warn(res, "drift",
             "the run time %s over the runs (rank correlation %.2f with run order)",
             s->drift > 0 ? "grew" : "shrank", s->drift),
             "%s, rank correlation %.2f", s->drift > 0 ? "grew" : "shrank", s->drift);
    if (r->stop == VN_STOP_MAX_TIME) {
        double half = fmax(s->median - s->median_ci[0], s->median_ci[1] - s->median);
        char got[32], asked[32], secs[32];
        vn__fmt_pct(got, sizeof got, 100 * half / fabs(s->median));
        vn__fmt_pct(asked, sizeof asked, c->precision);
        vn__fmt_exact(secs, sizeof secs, c->min_time);
        /* Where the shell's start-up alone is known to no better than
         * asked, more runs of the command cannot reach it: say so. */
        double sh_half = fmax(sh->wall - sh->lo, sh->hi - sh->wall);
        char advice[256], tail[96];
        if (sh->n && sh_half >= c->precision / 100 * fabs(s->median)) {
            snprintf(advice, sizeof advice,
                     ": the shell's start-up, taken off every run, is known to +-%.3g us over "
                     "%zu runs; run the command without a shell (-N) or give it more work",
                     sh_half / 1e3, sh->n);
            snprintf(tail, sizeof tail, "the shell's start-up +-%.3g us (-N)", sh_half / 1e3);
        } else {
            snprintf(advice, sizeof advice, "; more runs with --max-time or --max-samples");
            snprintf(tail, sizeof tail, "%s s of runs spent", secs);
        }
        vn__warning_brief(run_warn(res, "max_time",
             "%s s of runs did not make the median's 95%% CI +-%s (it is +-%s)%s", secs, asked,
             got, advice),
             "est. +-%s, +-%s asked; %s", got, asked, tail);
    }
    if (r->failed_runs && c->ignore_failure)
        vn__warning_brief(run_warn(res, "failed_runs",
             "%zu of %zu runs failed (kept with --ignore-failure)",
             r->failed_runs, (size_t)res->nsamples),
             "%zu/%zu runs failed, kept (--ignore-failure)", r->failed_runs,
             (size_t)res->nsamples);
}

/* Turns a row into a result; shell start-up subtracted from the stats (sh:
 * all 0 for a row run without a shell). */
int vn__fill_result(vn_run_result *res, row *r, const vn_run_config *c,
                    const vn__shell_time *sh)
{
    memset(res, 0, sizeof *res);
    res->size = sizeof *res;
    res->stop = r->stop;
    res->command = strdup(r->text);
    if (!res->command)
        return VN_ENOMEM;
    snprintf(res->name, sizeof res->name, "%s", r->label ? r->label : r->text);
    res->named = r->label != NULL;
    res->samples = calloc(r->n ? r->n : 1, sizeof *res->samples);
    res->proc = calloc(r->n ? r->n : 1, sizeof *res->proc);
    double *net = malloc((r->n ? r->n : 1) * sizeof *net);
    if (!res->samples || !res->proc || !net) {
        free(net);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < r->n; i++) {
        res->samples[i].value = r->wall[i];
        res->samples[i].iters = 1;
        res->samples[i].ref_ns = NAN;
        res->samples[i].branch_cycles = NAN;
        res->samples[i].cpu_ns = NAN;
        res->proc[i] = r->use[i];
        net[i] = r->wall[i] - sh->wall;
    }
    res->nsamples = r->n;
    /* The shell's own share of user and system time goes from the summary,
     * mean from mean: per run, a tick-split time less a mean would go below
     * 0 as often as not. */
    res->shell_ns = sh->wall;
    res->shell_user_ns = sh->user;
    res->shell_sys_ns = sh->sys;
    int rc = r->n ? vn_stats_compute(net, r->n, &res->stats) : 0;
    /* The headline is the decision's, as every engine's: a command that
     * cannot be told apart from an empty shell is an upper bound, the
     * fastest run, as for the engine's empty loop. */
    vn__policy p;
    vn__run_policy(c, &p);
    vn_sample *v = rc == 0 && r->n ? malloc(r->n * sizeof *v) : NULL;
    if (v) {
        vn__row_view rv;
        vn__decision d;
        vn__runs_view(r, sh, v, &rv);
        rv.streak = 0;
        if ((rc = vn__decide(&rv, &p, &d)) == 0 && d.head == VN__HEAD_FASTEST) {
            res->upper_bound = 1;
            res->bound_ns = d.value;
        } else if (rc == 0 && d.head == VN__HEAD_MEDIAN) {
            /* Its interval carries both uncertainties, the runs' median's
             * and the shell's start-up's, as the engine's net of its empty
             * loop does. */
            res->stats.median = d.value;
            if (isfinite(d.lo) && isfinite(d.hi) && sh->n) {
                /* Two independent 95% intervals' half-widths added in
                 * quadrature: about 95%, whatever the runs' own had. */
                res->stats.median_ci[0] = d.lo, res->stats.median_ci[1] = d.hi;
                res->stats.median_ci_level = 0.95;
            }
        }
        free(v);
    } else if (rc == 0 && r->n) {
        rc = VN_ENOMEM;
    }
    free(net);
    if (r->error[0])
        memcpy(res->error, r->error, sizeof res->error);
    run_warnings(res, r, c, sh);
    return rc;
}

/* The row's counters from its runs' counts (nsamples x n, taken over):
 * the median of each event over the runs, with nothing taken off, since a
 * command has no empty loop; and the ratios between them. */
int vn__run_counters_finish(vn_run_result *res, const vn_counters *c, double *counts)
{
    res->ncounters = (int)vn_counters_n(c);
    res->sample_counts = counts;
    /* Every run counts; there is no throughput to divide by. */
    return vn__counter_summary(c, counts, res->samples, res->nsamples, 0, NULL, 0, NULL, NAN,
                               res->counters, &res->derived);
}

int vn__compare(const vn_run_results *res, vn_run_compare **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *r = &res->commands[i];
        if (!r->stats.n || r->upper_bound || r->error[0])
            continue;
        if (best == SIZE_MAX || r->stats.median < res->commands[best].stats.median)
            best = i;
    }
    if (best == SIZE_MAX || res->ncommands < 2)
        return 0;
    vn_run_compare *v = calloc(res->ncommands, sizeof *v);
    if (!v)
        return VN_ENOMEM;
    size_t k = 0;
    const vn_run_result *f = &res->commands[best];
    double *fa = malloc(f->nsamples * sizeof *fa);
    if (!fa) {
        free(v);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < f->nsamples; i++)
        fa[i] = f->samples[i].value;
    for (size_t i = 0; i < res->ncommands; i++) {
        const vn_run_result *o = &res->commands[i];
        if (i == best || !o->stats.n || o->upper_bound || o->error[0])
            continue;
        vn_run_compare *cmp = &v[k++];
        cmp->fastest = best;
        cmp->other = i;
        cmp->ratio = o->stats.median / f->stats.median;
        /* Relative half-widths of the two medians' intervals, combined in
         * quadrature: the ratio's interval, if the two are independent.
         * Two commands run through the shell share its start-up's error,
         * counted here in each: wider than it is, never narrower. */
        double ro = fmax(o->stats.median - o->stats.median_ci[0], o->stats.median_ci[1] - o->stats.median) /
                    o->stats.median;
        double rf = fmax(f->stats.median - f->stats.median_ci[0], f->stats.median_ci[1] - f->stats.median) /
                    f->stats.median;
        cmp->ratio_err = cmp->ratio * sqrt(ro * ro + rf * rf);
        double *oa = malloc(o->nsamples * sizeof *oa);
        if (!oa) {
            free(fa);
            free(v);
            return VN_ENOMEM;
        }
        for (size_t s = 0; s < o->nsamples; s++)
            oa[s] = o->samples[s].value;
        double u;
        if (vn_mann_whitney(oa, o->nsamples, fa, f->nsamples, &u, &cmp->p) != 0)
            cmp->p = NAN;
        cmp->significant = cmp->p < 0.05;
        free(oa);
    }
    free(fa);
    *out = v;
    *nout = k;
    return 0;
}
