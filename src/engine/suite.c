/* Running a suite: the rows in turn or taking turns, pinned, each with
 * its result and warnings. */
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/abi.h"
#include "engine.h"
#include "results.h"
#include "clock/internal.h"
#include "base/format.h"
#include "idle_internal.h"
#include "base/progress.h"
#include "parse/sysinfo_parse.h"

/* ---- Running a suite ------------------------------------------------------- */

int vn__pin(int cpu, cpu_set_t *old)
{
    if (sched_getaffinity(0, sizeof *old, old) != 0)
        return -1;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0 ? 0 : -1;
}

/* A row's result before it is measured: its name, and null (NAN) for
 * every number, so that a row that fails before its summary says null,
 * not a 0 that looks measured. */
void vn__row_result_init(vn_result *res, const vn__bench *b, size_t k)
{
    memset(res, 0, sizeof *res);
    res->on_cpu = NAN;
    res->overhead_ns = res->overhead_ci[0] = res->overhead_ci[1] = NAN;
    res->ref_ns = res->ref_spread = res->cycles = res->overhead_cycles = NAN;
    res->overhead_cycles_spread = NAN;
    res->bytes_per_iter = res->items_per_iter = NAN;
    res->cycles_ci[0] = res->cycles_ci[1] = NAN;
    res->est_ci[0] = res->est_ci[1] = res->cycles_est_ci[0] = res->cycles_est_ci[1] = NAN;
    res->share_processes = res->share_blocks = res->share_samples = NAN;
    res->bytes_per_sec = res->items_per_sec = NAN;
    res->unit = "ns";
    res->threads = 1;
    if (b->nvalues) {
        res->param = b->values[k];
        snprintf(res->param_name, sizeof res->param_name, "%s",
                 b->opts.param_name ? b->opts.param_name : "n");
    }
    vn__row_name(b, k, res->name, sizeof res->name);
}

/* The job of one row, with the benchmark's own settings applied; NULL with
 * *rc set when memory ran out or its own timer is unknown. */
job *vn__job_new(const vn__bench *b, vn_result *res, const vn_config *cfg, const vn__hooks *hooks,
                    const vn_results *out, vn_counters *ctr, vn__evict *evict, struct floors *floors,
                    int *rc)
{
    job *j = calloc(1, sizeof *j);
    if (!j) {
        *rc = VN_ENOMEM;
        return NULL;
    }
    j->b = b;
    j->res = res;
    j->cfg = *cfg;
    if (b->opts.max_time > 0)
        j->cfg.max_time = b->opts.max_time;
    if (b->opts.precision > 0)
        j->cfg.precision = b->opts.precision;
    if (b->opts.min_samples > 0)
        j->cfg.min_samples = b->opts.min_samples;
    if (j->cfg.max_samples < j->cfg.min_samples)
        j->cfg.max_samples = j->cfg.min_samples;
    if ((*rc = vn__policy_init(&j->pol, &j->cfg)) != 0) {
        free(j);
        return NULL;
    }
    if (isnan(j->pol.alone_probe))
        j->pol.alone_probe = vn__alone_probe_for(out->env.hypervisor, out->env.smt);
    j->hooks = hooks;
    j->timer = out->timer;
    j->cost_ns = out->timer_cost_ns;
    j->res_ns = out->timer_resolution_ns;
    if (b->opts.timer && !hooks) {
        char why[64];
        *rc = vn__timer_choose(b->opts.timer, &j->timer, why, sizeof why, &j->cost_ns, &j->res_ns);
        if (*rc) {
            free(j);
            return NULL;
        }
    }
    j->evict = evict;
    j->interference = !(hooks && hooks->no_interference);
    j->floors = floors;
    j->run.timer = j->timer;
    j->run.timer_cost_ns = j->cost_ns;
    j->run.hooks = hooks;
    j->run.user = b->opts.user;
    j->run.param = res->param;
    j->run.bytes = j->run.items = -1;
    j->run.ctr = ctr;
    j->nctr = ctr ? vn_counters_n(ctr) : 0;
    j->st.run = &j->run;
    return j;
}

/* The processes a run measures in: 1 without the program's own main to
 * start again (launch NULL), a test's fake machine or threads started
 * together; else as asked (0: as many as the variation asks for). -1 for
 * a count that cannot be. */
static int processes_of(const vn_config *cfg, const vn__hooks *hooks, const vn__launch *launch)
{
    if (cfg->processes < 0 || cfg->processes > 1000)
        return -1;
    if (cfg->processes == 1)
        return 1;
    if (!launch || hooks || cfg->threads > 1)
        return cfg->processes == 0 ? 1 : -1;
    return cfg->processes;
}

/* The run, into results in this library's own layout. */
static int run_suite(vn_suite *s, const vn_config *cfg_in, vn_results *out, const vn__launch *launch)
{
    /* The caller's settings may come from an older header: what they lack
     * keeps the defaults. The first layout with a size ends at interleave. */
    vn_config cfg;
    vn_config_init(&cfg);
    if (cfg_in && vn__abi_copy(&cfg, sizeof cfg, cfg_in, VN__SIZE_THROUGH(vn_config, interleave)))
        return VN_EABI;
    /* Within the command line's limits, too: an endless warmup or budget
     * would never end, and min_samples + 1 must not wrap. */
    if (!(cfg.max_time > 0 && cfg.max_time <= 86400) ||
        !(cfg.precision > 0 && isfinite(cfg.precision)) || cfg.min_samples < 1 ||
        cfg.max_samples < cfg.min_samples || cfg.max_samples > 10000000 || cfg.threads < 1 ||
        cfg.threads > 1024 || !(cfg.warmup >= 0 && cfg.warmup <= 3600) ||
        !(cfg.min_sample_time > 0 && cfg.min_sample_time <= 86400) ||
        /* Pinned, all threads would share one CPU; cold, one thread's
         * eviction would run while the others time. */
        (cfg.threads > 1 && (cfg.cpu >= 0 || cfg.cold)))
        return VN_EINVAL;
    /* A CPU-time clock cannot time threads together: the process's counts
     * every thread's time in each sample, a thread's own is no span of wall
     * time across threads. */
    vn_clock_id named;
    if (cfg.threads > 1 && cfg.timer && vn_clock_lookup(cfg.timer, &named) == 0 &&
        (vn_clock_flags(named) & VN_CLOCK_F_CPUTIME))
        return VN_EINVAL;
    /* Threads started together take no turns. */
    if (cfg.threads > 1)
        cfg.interleave = 0;
    const vn__hooks *hooks = s->has_hooks ? &s->hooks : NULL;
    int procs = processes_of(&cfg, hooks, launch);
    if (procs < 0)
        return VN_EINVAL;
    cfg.processes = procs;
    regex_t re;
    if (cfg.filter && regcomp(&re, cfg.filter, REG_EXTENDED | REG_NOSUB) != 0)
        return VN_EINVAL;
    if (vn__baselines_check(s, &cfg, NULL, 0) != 0) {
        if (cfg.filter)
            regfree(&re);
        return VN_ENOENT;
    }
    vn__policy pol;
    if (vn__policy_init(&pol, &cfg) != 0) {
        if (cfg.filter)
            regfree(&re);
        return VN_EINVAL;
    }

    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->result_size = sizeof(vn_result);
    out->config = cfg;
    out->optimized = s->optimized;
    int rc = 0;
    size_t nrows = 0;
    vn_counters *ctr = NULL;
    cpu_set_t old;
    int pinned = 0;
    int idle_fd = -1;
    out->config.dma_latency_us = -1;
    if (cfg.cpu >= 0) {
        if (cfg.cpu >= CPU_SETSIZE || vn__pin(cfg.cpu, &old) != 0) {
            rc = VN_EINVAL;
            goto done;
        }
        pinned = 1;
    }
    if (hooks && hooks->no_sysinfo) {
        vn__sysinfo_reset(&out->env);
    } else if ((rc = vn_sysinfo_collect(&out->env)) != 0) {
        goto done;
    }
    /* Held for the whole suite, once the machine's state is recorded: a
     * benchmark that sleeps or waits then wakes without the exit latency of
     * a deep idle state (see idle.c). Without root the states stay as they
     * are, and the results say so. */
    if (!hooks) {
        char why[160];
        idle_fd = vn__idle_hold_for(cfg.dma_latency_us, out->env.hypervisor,
                                    &out->config.dma_latency_us, why, sizeof why);
    }
    if (hooks && hooks->now) {
        out->timer = VN_CLOCK_MONOTONIC;
        snprintf(out->timer_reason, sizeof out->timer_reason, "a test clock");
        out->timer_cost_ns = hooks->timer_cost_ns;
        out->timer_resolution_ns = hooks->timer_resolution_ns;
    } else if ((rc = vn__timer_choose(cfg.timer, &out->timer, out->timer_reason,
                                      sizeof out->timer_reason, &out->timer_cost_ns,
                                      &out->timer_resolution_ns)) != 0) {
        goto done;
    }
    out->counter_hz = NAN;
    if (!hooks && (vn_clock_flags(out->timer) & VN_CLOCK_F_COUNTER)) {
        const vn_calibration *c = vn_counter_calibration();
        out->counter_hz = c ? c->hz : NAN;
    }
    /* Opened once, after pinning, on this thread; missing events are named
     * in out->counters, never an error. */
    if ((rc = vn__bench_counters_open(&cfg, hooks, &ctr, &out->counters)) != 0)
        goto done;

    /* The rows: every benchmark, times every parameter value. */
    for (size_t i = 0; i < s->n; i++)
        nrows += s->v[i].nvalues ? s->v[i].nvalues : 1;
    out->bench = calloc(nrows ? nrows : 1, sizeof *out->bench);
    if (!out->bench) {
        rc = VN_ENOMEM;
        goto done;
    }
    vn__evict evict = {0};
    if (cfg.cold && (rc = vn__evict_init(&evict, &out->env)) != 0)
        goto done;
    struct floors floors = {LOW3_NONE, NULL, 0};
    job **jobs = calloc(nrows ? nrows : 1, sizeof *jobs);
    const vn__bench **of = calloc(nrows ? nrows : 1, sizeof *of);
    size_t nj = 0;
    if (!jobs || !of) {
        rc = VN_ENOMEM;
        goto rows_done;
    }
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        const vn__bench *b = &s->v[i];
        size_t nv = b->nvalues ? b->nvalues : 1;
        for (size_t k = 0; k < nv && rc == 0; k++) {
            vn_result *res = &out->bench[nj];
            vn__row_result_init(res, b, k);
            if (cfg.filter && regexec(&re, res->name, 0, NULL, 0) != 0)
                continue;
            /* The benchmark's own baseline, as its other settings, before
             * the run's. */
            const char *base = b->opts.baseline ? b->opts.baseline : cfg.baseline;
            snprintf(res->baseline, sizeof res->baseline, "%s", base ? base : "");
            of[nj] = b;
            if (!(jobs[nj] = vn__job_new(b, res, &cfg, hooks, out, ctr, cfg.cold ? &evict : NULL,
                                     cfg.threads > 1 ? NULL : &floors, &rc)))
                break;
            nj++;
        }
    }
    if (rc == 0 && procs != 1)
        rc = vn__run_processes(jobs, nj, &cfg, launch, out);
    else if (rc == 0)
        rc = vn__run_rows(jobs, nj, &cfg, 0x7665726e696572u, out);
    for (size_t i = 0; i < nj; i++) {
        for (size_t k = 0; k < jobs[i]->nparts; k++)
            vn__part_free(&jobs[i]->parts[k]);
        free(jobs[i]->parts);
        free(jobs[i]);
    }
    if (rc == 0)
        rc = vn__compare_rows(out, of, !s->no_fit);
rows_done:
    free(jobs);
    free(of);
    vn__evict_free(&evict);
    if (rc == 0 && s->after)
        rc = s->after(out, s->after_ctx);
    if (cfg.progress)
        fprintf(stderr, "\r\033[K");
done:
    vn_counters_destroy(ctr);
    vn__idle_release(idle_fd);
    if (pinned)
        sched_setaffinity(0, sizeof old, &old);
    if (cfg.filter)
        regfree(&re);
    /* Rows in turns end in any order, and a row that failed to summarize
     * holds its samples already: every row is freed, the unused ones being
     * zeroed. */
    if (rc) {
        if (out->bench)
            out->nbench = nrows;
        vn__results_clear(out);
    }
    return rc;
}

int vn__suite_run_launched(vn_suite *s, const vn_config *cfg, vn_results *out, size_t out_size,
                           const vn__launch *launch)
{
    if (!s || !out)
        return VN_EINVAL;
    if (out_size < VN__RESULTS_FIRST)
        return VN_EABI;
    /* Filled whole here, then as much as the caller's struct holds. */
    vn_results full;
    int rc = run_suite(s, cfg, &full, launch);
    return rc ? rc : vn__results_give(out, out_size, &full);
}

int vn__suite_run(vn_suite *s, const vn_config *cfg, vn_results *out, size_t out_size)
{
    return vn__suite_run_launched(s, cfg, out, out_size, NULL);
}

int vn_suite_run(vn_suite *s, const vn_config *cfg, vn_results **out)
{
    if (!out)
        return VN_EINVAL;
    *out = NULL;
    vn_results *r = calloc(1, sizeof *r);
    if (!r)
        return VN_ENOMEM;
    int rc = vn__suite_run(s, cfg, r, sizeof *r);
    if (rc)
        free(r);
    else
        *out = r;
    return rc;
}
