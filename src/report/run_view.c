/* vernier run's results in the views it shares with the engine: the
 * vernier.results/1 document, CSV, Markdown and the histograms. Each
 * command's row becomes a row of the engine's shape for them, borrowing
 * its samples, so that one writer makes each view for both; what only a
 * command has (its command line, parameters, each run's usage) the JSON
 * and CSV writers take from the runs themselves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "stats/levels.h"

/* What the engine would have measured and a command has not: unknown. */
static void row_of(const vn_run_result *x, vn_result *r)
{
    memset(r, 0, sizeof *r);
    memcpy(r->name, x->name, sizeof r->name);
    r->unit = "ns";
    r->samples = x->samples;
    r->nsamples = x->nsamples;
    r->headline_samples = x->nsamples;
    r->stats = x->stats;
    /* The interval every view shows is the next run's, as the engine's
     * rows show it: the median's own (order statistics over the runs) is
     * the estimate's, and the next invocation's median has an error of
     * its own (vn__levels_next_run). */
    r->est_ci[0] = r->est_ci[1] = r->cycles_est_ci[0] = r->cycles_est_ci[1] = NAN;
    r->cycles_ci[0] = r->cycles_ci[1] = NAN;
    r->share_processes = r->share_blocks = r->share_samples = NAN;
    if (!x->upper_bound && x->stats.n)
        vn__levels_intervals(x->stats.median, x->stats.median_ci[0], x->stats.median_ci[1],
                             r->est_ci, r->stats.median_ci);
    r->iters = 1;
    r->threads = 1;
    /* The shell's start-up is what is taken off every run, as the empty
     * loop is in-process. */
    r->overhead_ns = x->shell_ns;
    r->overhead_ci[0] = r->overhead_ci[1] = x->shell_ns;
    r->upper_bound = x->upper_bound;
    r->bound_ns = x->bound_ns;
    r->cycles = r->ref_ns = r->ref_spread = r->overhead_cycles = NAN;
    r->overhead_cycles_spread = NAN;
    r->bytes_per_sec = r->items_per_sec = NAN;
    r->cpu_ns = r->on_cpu = NAN;
    r->stop = x->stop;
    memcpy(r->error, x->error, sizeof r->error);
    memcpy(r->warnings, x->warnings, sizeof r->warnings);
    r->nwarnings = x->nwarnings;
    memcpy(r->counters, x->counters, sizeof r->counters);
    r->ncounters = x->ncounters;
    r->derived = x->derived;
}

int vn__run_view(const vn_run_results *runs, vn_results *view)
{
    memset(view, 0, sizeof *view);
    if (!runs || (runs->ncommands && !runs->commands))
        return VN_EINVAL;
    view->bench = calloc(runs->ncommands ? runs->ncommands : 1, sizeof *view->bench);
    if (!view->bench)
        return VN_ENOMEM;
    for (size_t i = 0; i < runs->ncommands; i++)
        row_of(&runs->commands[i], &view->bench[i]);
    view->nbench = runs->ncommands;
    view->size = sizeof *view;
    view->result_size = sizeof(vn_result);
    view->env = runs->env;
    view->timer = VN_CLOCK_MONOTONIC;
    snprintf(view->timer_reason, sizeof view->timer_reason,
             "wall time from the child's exec to its reaping, CLOCK_MONOTONIC");
    view->timer_cost_ns = NAN;
    view->timer_resolution_ns = 1;
    view->counter_hz = NAN;
    view->optimized = 1;
    view->interrupted = runs->interrupted;
    memcpy(view->note, runs->note, sizeof view->note);
    view->counters = runs->counters;
    vn_config_init(&view->config);
    view->config.min_samples = runs->min_runs;
    view->config.max_samples = runs->max_runs;
    view->config.max_time = runs->max_time;
    view->config.precision = runs->precision;
    view->config.warmup = 0;
    view->config.cpu = runs->cpu;
    view->config.interleave = runs->interleave;
    view->config.dma_latency_us = runs->dma_latency_us;
    return 0;
}

void vn__run_view_free(vn_results *view)
{
    free(view->bench);
    view->bench = NULL;
    view->nbench = 0;
}

int vn_report_run_json(const vn_run_results *runs, vn_buf *out)
{
    vn_results v;
    memset(&v, 0, sizeof v);
    int err = out ? vn__run_view(runs, &v) : VN_EINVAL;
    if (!err)
        err = vn__report_results_json(&v, runs, out);
    vn__run_view_free(&v);
    return err;
}

int vn_report_run_csv(const vn_run_results *runs, int raw, vn_buf *out)
{
    vn_results v;
    memset(&v, 0, sizeof v);
    int err = out ? vn__run_view(runs, &v) : VN_EINVAL;
    if (!err)
        err = vn__report_results_csv(&v, runs, raw, out);
    vn__run_view_free(&v);
    return err;
}

int vn_report_run_markdown(const vn_run_results *runs, vn_buf *out)
{
    vn_results v;
    memset(&v, 0, sizeof v);
    int err = out ? vn__run_view(runs, &v) : VN_EINVAL;
    if (!err)
        err = vn__report_results_markdown(&v, runs, out);
    vn__run_view_free(&v);
    return err;
}

int vn_report_run_hist(const vn_run_results *runs, unsigned flags, vn_buf *out)
{
    vn_results v;
    memset(&v, 0, sizeof v);
    int err = out ? vn__run_view(runs, &v) : VN_EINVAL;
    if (!err)
        err = vn_report_results_hist(&v, flags, out);
    vn__run_view_free(&v);
    return err;
}

int vn_report_run_gbench(const vn_run_results *runs, const char *executable, const char *date,
                         vn_buf *out)
{
    vn_results v;
    memset(&v, 0, sizeof v);
    int err = out ? vn__run_view(runs, &v) : VN_EINVAL;
    if (!err)
        err = vn__report_gbench(&v, runs, executable, date, out, NULL);
    vn__run_view_free(&v);
    return err;
}
