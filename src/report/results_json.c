/* The engine's results as a vernier.results/1 JSON document: everything
 * measured, raw samples included, so any other view can be made from it
 * later. docs/schema/results-1.json describes it field by field.
 *
 * What a program reads of a row (its name, parameter, unit, figures,
 * samples, warnings, counters, baseline) comes through vernier/results.h,
 * as the other reporters read it. The rest is the engine's own account,
 * which only this document carries, and is read from the row directly: the
 * statistics object whole (vernier.stats/1), how the headline's variation
 * splits, its serial correlation and the per-process table it averages,
 * the counts of tagged samples, the reference clock, the empty loop in
 * cycles and each counter's empty-loop count, the per-thread medians, the
 * share on the CPU, the settings the row ran with, what the ratio rests
 * on; and the run's context (machine, clock, settings, counters). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results.h"

/* The names of the tags set in mask, as an array. */
static void tag_array(vn__json *j, const char *key, unsigned mask)
{
    vn__json_arr_begin(j, key);
    for (size_t i = 0; i < sizeof vn__tag_names / sizeof vn__tag_names[0]; i++)
        if (mask & vn__tag_names[i].bit)
            vn__json_str(j, NULL, vn__tag_names[i].name);
    vn__json_arr_end(j);
}

/* One sample per line: a pretty document with thousands of samples would
 * otherwise take seven lines for each of them. */
static void sample(vn__json *j, const vn_sample *s, size_t ncounters, const vn_proc_usage *u)
{
    int pretty = j->pretty;
    vn__json_obj_begin(j, NULL);
    j->pretty = 0;
    vn__json_num(j, "value", s->value);
    vn__json_uint(j, "iters", s->iters);
    tag_array(j, "tags", s->tags);
    vn__json_num(j, "ref_ns", s->ref_ns);
    vn__json_int(j, "thread", s->thread);
    if (!u) {
        vn__json_int(j, "process", s->process);
        vn__json_int(j, "block", s->block);
        vn__json_num(j, "branch_cycles", s->branch_cycles);
        vn__json_num(j, "cpu_ns", s->cpu_ns);
    }
    /* A run of a command (vernier run): what wait4() said about it. */
    if (u) {
        vn__json_num(j, "user", u->user_ns);
        vn__json_num(j, "sys", u->sys_ns);
        vn__json_int(j, "maxrss_kib", u->maxrss_kib);
        vn__json_int(j, "minflt", u->minflt);
        vn__json_int(j, "majflt", u->majflt);
        vn__json_int(j, "nvcsw", u->nvcsw);
        vn__json_int(j, "nivcsw", u->nivcsw);
        if (u->tree_peak_kib >= 0)
            vn__json_int(j, "tree_peak_kib", u->tree_peak_kib);
        else
            vn__json_null(j, "tree_peak_kib");
        if (u->signal) {
            char name[32];
            const char *abbrev = sigabbrev_np(u->signal);
            snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "UNKNOWN");
            vn__json_null(j, "exit_status");
            vn__json_str(j, "signal", name);
        } else {
            vn__json_int(j, "exit_status", u->exit_status);
            vn__json_null(j, "signal");
        }
        vn__json_bool(j, "timed_out", u->timed_out);
    }
    /* Per iteration as measured, in the order of counters.opened. */
    if (s->counts && ncounters > 0) {
        vn__json_arr_begin(j, "counters");
        for (size_t i = 0; i < ncounters; i++)
            vn__json_num(j, NULL, s->counts[i]);
        vn__json_arr_end(j);
    }
    vn__json_obj_end(j);
    j->pretty = pretty;
}

static void throughput(vn__json *j, const vn_result *r)
{
    vn__json_obj_begin(j, "throughput");
    vn__json_num(j, "bytes_per_iter", vn_result_figure(r, VN_BYTES_PER_ITER));
    vn__json_num(j, "items_per_iter", vn_result_figure(r, VN_ITEMS_PER_ITER));
    vn__json_num(j, "bytes_per_sec", vn_result_figure(r, VN_BYTES_PER_SEC));
    vn__json_num(j, "items_per_sec", vn_result_figure(r, VN_ITEMS_PER_SEC));
    vn__json_obj_end(j);
}

static void threads(vn__json *j, const vn_result *r)
{
    int n = (int)vn_result_figure(r, VN_THREADS);
    if (n <= 1) {
        vn__json_null(j, "threads");
        return;
    }
    vn__json_obj_begin(j, "threads");
    vn__json_int(j, "count", n);
    vn__json_arr_begin(j, "median_ns");
    for (int i = 0; r->thread_median && i < n; i++)
        vn__json_num(j, NULL, r->thread_median[i]);
    vn__json_arr_end(j);
    vn__json_num(j, "total_iter_per_sec", vn_result_figure(r, VN_ITERS_PER_SEC));
    vn__json_obj_end(j);
}

/* Per event: net per iteration, whether scaled, the unit, and the empty
 * loop's own count that was taken off; then the ratios. Both null when the
 * run had no counters. */
static void counters(vn__json *j, const vn_result *r, int on)
{
    if (!on) {
        vn__json_null(j, "counters");
        vn__json_null(j, "derived");
        return;
    }
    vn__json_obj_begin(j, "counters");
    uint32_t scaled = (uint32_t)vn_result_figure(r, VN_COUNTERS_SCALED);
    for (size_t i = 0; i < vn_result_counters(r); i++) {
        double value = NAN;
        vn__json_obj_begin(j, vn_result_counter(r, i, &value));
        vn__json_num(j, "value", value);
        vn__json_bool(j, "scaled", (scaled >> i & 1u) != 0);
        vn__json_str(j, "unit", vn_result_text(r, VN_TEXT_COUNTER_UNIT, i));
        /* The empty loop's count, which only this document carries. */
        vn__json_num(j, "overhead", r->counters[i].overhead);
        vn__json_obj_end(j);
    }
    vn__json_obj_end(j);
    /* Each NAN without counters. */
    vn__json_obj_begin(j, "derived");
    vn__json_num(j, "ipc", vn_result_figure(r, VN_IPC));
    vn__json_num(j, "branch_miss_pct", vn_result_figure(r, VN_BRANCH_MISS_PCT));
    vn__json_num(j, "cache_miss_pct", vn_result_figure(r, VN_CACHE_MISS_PCT));
    vn__json_num(j, "insn_per_byte", vn_result_figure(r, VN_INSN_PER_BYTE));
    vn__json_obj_end(j);
}

/* Two numbers as an array, such as an interval's ends. */
static void pair(vn__json *j, const char *key, const double v[2])
{
    vn__json_arr_begin(j, key);
    vn__json_num(j, NULL, v[0]);
    vn__json_num(j, NULL, v[1]);
    vn__json_arr_end(j);
}

/* The row compared with a baseline: its name, the ratio of the medians and
 * its interval, and what they rest on; null without a baseline. */
static void baseline(vn__json *j, const vn_result *r)
{
    const char *name = vn_result_text(r, VN_TEXT_BASELINE, 0);
    if (!name[0]) {
        vn__json_null(j, "baseline");
        return;
    }
    vn__json_obj_begin(j, "baseline");
    vn__json_str(j, "name", name);
    vn__json_num(j, "ratio", vn_result_figure(r, VN_RATIO));
    const double ci[2] = {vn_result_figure(r, VN_RATIO_LO), vn_result_figure(r, VN_RATIO_HI)};
    pair(j, "ci", ci);
    vn__json_uint(j, "n", r->ratio_n);
    vn__json_bool(j, "paired", r->ratio_paired != 0);
    vn__json_bool(j, "processes", r->ratio_processes != 0);
    vn__json_uint(j, "other_state", r->ratio_other);
    vn__json_obj_end(j);
}

/* The headline as it compares across runs: its unit (cycles for a body on
 * the CPU, whose clock moves), value and interval, in each unit, and what it rests
 * on: how many processes, and how its variation splits between them, the
 * halves of each process's samples, and the samples. */
static void headline(vn__json *j, const vn_result *r)
{
    double bound_ns = vn_result_figure(r, VN_BOUND);
    int bound = !isnan(bound_ns);
    /* None for a failed row: a command that failed on a run keeps the
     * runs before it in its statistics, but they are no answer. */
    if ((vn_result_figure(r, VN_N) == 0 || vn_result_stop(r) == VN_STOP_FAILED) && !bound) {
        vn__json_null(j, "headline");
        return;
    }
    vn__json_obj_begin(j, "headline");
    int cyc = vn_result_figure(r, VN_CYCLES_HEADLINE) != 0;
    double cycles = vn_result_figure(r, VN_CYCLES);
    vn__json_str(j, "unit", cyc ? "cycles" : "ns");
    /* Each interval is NAN for an upper bound. */
    const double ns[2] = {vn_result_figure(r, VN_CI_LO), vn_result_figure(r, VN_CI_HI)};
    const double cy[2] = {vn_result_figure(r, VN_CYCLES_LO), vn_result_figure(r, VN_CYCLES_HI)};
    double ns_value = bound ? bound_ns : vn_result_figure(r, VN_MEDIAN);
    vn__json_num(j, "value", cyc ? cycles : ns_value);
    pair(j, "ci", cyc ? cy : ns);
    /* The estimate's own interval, which the precision asked is held to
     * ("ci" is for the next run's headline): the engine's detail, which
     * only this document carries. */
    const double nan2[2] = {NAN, NAN};
    pair(j, "est_ci", bound ? nan2 : cyc ? r->cycles_est_ci : r->est_ci);
    vn__json_bool(j, "bound", bound);
    vn__json_obj_begin(j, "units");
    vn__json_obj_begin(j, "ns");
    vn__json_num(j, "value", ns_value);
    pair(j, "ci", ns);
    pair(j, "est_ci", bound ? nan2 : r->est_ci);
    vn__json_obj_end(j);
    if (isfinite(cycles)) {
        vn__json_obj_begin(j, "cycles");
        vn__json_num(j, "value", cycles);
        pair(j, "ci", cy);
        pair(j, "est_ci", bound ? nan2 : r->cycles_est_ci);
        vn__json_obj_end(j);
    }
    vn__json_obj_end(j);
    /* What the headline rests on: the engine's own account of its
     * processes and of how its variation splits, which only this document
     * carries. */
    vn__json_uint(j, "processes", r->nprocesses);
    vn__json_obj_begin(j, "variation");
    vn__json_num(j, "processes", r->share_processes);
    vn__json_num(j, "blocks", r->share_blocks);
    vn__json_num(j, "samples", r->share_samples);
    vn__json_obj_end(j);
    vn__json_num(j, "serial", r->serial >= 1 ? r->serial : NAN); /* NAN: not across processes */
    /* null where no quantile of processes is (one process, their mean,
     * or a result the engine did not summarize). */
    vn__json_num(j, "quantile", r->head_quantile > 0 ? r->head_quantile : NAN);
    vn__json_bool(j, "processes_disagree", r->processes_disagree != 0);
    vn__json_uint(j, "processes_left_out", r->processes_left_out);
    vn__json_uint(j, "processes_ref_off", r->processes_ref_off);
    /* The core's state the headline rests on, as the run's probes tell
     * it: "shared" or "own" when they fell in two groups ("both" when the
     * row read alike in the two and rests on all), null when they did not
     * and no process could be told from another. */
    int split = 0;
    for (size_t i = 0; r->processes && i < r->nprocesses; i++)
        split |= r->processes[i].shared;
    vn__json_str(j, "core", r->on_shared      ? "shared"
                            : r->states_alike ? "both"
                            : split           ? "own"
                                              : NULL);
    /* The processes left out for the other core state, at the headline's
     * quantile over the headline, and whether its interval reaches them;
     * null where none were left out for their state. */
    int other = isfinite(r->other_state) && r->other_state > 0;
    vn__json_num(j, "other_state_ratio", other ? r->other_state : NAN);
    vn__json_bool(j, "reaches_other_state", other ? r->other_reached : -1);
    vn__json_obj_end(j);
}

/* Each process's own estimate, which the headline averages. */
static void processes(vn__json *j, const vn_result *r)
{
    vn__json_arr_begin(j, "processes");
    for (size_t i = 0; r->processes && i < r->nprocesses; i++) {
        const vn_process_result *p = &r->processes[i];
        int pretty = j->pretty;
        vn__json_obj_begin(j, NULL);
        j->pretty = 0;
        vn__json_num(j, "value", p->value);
        vn__json_num(j, "cycles", p->cycles);
        vn__json_num(j, "overhead_ns", p->overhead_ns);
        vn__json_uint(j, "samples", p->samples);
        vn__json_uint(j, "used", p->used);
        vn__json_uint(j, "run_process", p->run_process);
        vn__json_num(j, "elapsed_s", p->elapsed);
        vn__json_bool(j, "upper_bound", p->upper_bound != 0);
        vn__json_num(j, "probe", p->probe);
        vn__json_bool(j, "shared", p->shared != 0);
        vn__json_bool(j, "left_out", p->left_out != 0);
        vn__json_bool(j, "ref_off", p->ref_off != 0);
        vn__json_obj_end(j);
        j->pretty = pretty;
    }
    vn__json_arr_end(j);
}

/* One row; x is the command's own part of it for vernier run (its command
 * line, parameters, each run's usage, the shell's start-up), NULL for the
 * engine's rows. */
static void benchmark(vn__json *j, const vn_result *r, int counters_on, const vn_run_result *x)
{
    vn__json_obj_begin(j, NULL);
    vn__json_str(j, "name", vn_result_name(r));
    vn__json_obj_begin(j, "params");
    const char *param = vn_result_text(r, VN_TEXT_PARAM, 0);
    if (x && x->nparams) {
        for (size_t i = 0; i < x->nparams; i++)
            vn__json_str(j, x->pnames[i], x->pvalues[i]);
    } else if (param[0]) {
        vn__json_int(j, param, vn__param_value(r));
    }
    vn__json_obj_end(j);
    if (x)
        vn__json_str(j, "command", x->command);
    vn__json_str(j, "unit", vn_result_text(r, VN_TEXT_UNIT, 0));
    vn__json_uint(j, "iters", (uint64_t)vn_result_figure(r, VN_ITERS));

    vn__json_arr_begin(j, "samples");
    const vn_sample *s;
    for (size_t i = 0; (s = vn_result_sample(r, i)) != NULL; i++)
        sample(j, s, vn_result_counters(r), x ? &x->proc[i] : NULL);
    vn__json_arr_end(j);
    /* A summary of no samples would be all zeros that look measured. The
     * summary is the statistics' own object (vernier.stats/1), whole. */
    if (vn_result_figure(r, VN_N) > 0)
        vn__json_stats(j, "stats", &r->stats);
    else
        vn__json_null(j, "stats");
    unsigned left_out = (unsigned)vn_result_figure(r, VN_LEFT_OUT);
    vn__json_uint(j, "tagged", r->ntagged);
    if (!x) {
        vn__json_uint(j, "shared_core", r->nshared);
        tag_array(j, "left_out", left_out);
    }

    vn__json_obj_begin(j, "overhead");
    vn__json_num(j, "ns", vn_result_figure(r, VN_OVERHEAD));
    const double oci[2] = {vn_result_figure(r, VN_OVERHEAD_LO),
                           vn_result_figure(r, VN_OVERHEAD_HI)};
    pair(j, "ci", oci);
    vn__json_num(j, "cycles", r->overhead_cycles);
    if (!x)
        vn__json_num(j, "cycles_spread", r->overhead_cycles_spread);
    if (x && (x->shell_user_ns > 0 || x->shell_sys_ns > 0)) {
        vn__json_num(j, "user_ns", x->shell_user_ns);
        vn__json_num(j, "sys_ns", x->shell_sys_ns);
    }
    /* Runs shorter than the shell's start-up: hyperfine's exports write 0. */
    if (x)
        vn__json_uint(j, "clamped_runs", vn__run_clamped(x));
    vn__json_obj_end(j);

    double bound = vn_result_figure(r, VN_BOUND);
    vn__json_bool(j, "upper_bound", !isnan(bound));
    vn__json_num(j, "bound_ns", bound);
    vn__json_str(j, "bound_rule", isnan(bound) ? NULL : "fastest");
    if (x)
        vn__json_str(j, "headline_samples", NULL);
    else
        vn__json_uint(j, "headline_samples", (size_t)vn_result_figure(r, VN_SAMPLES));
    vn__json_num(j, "cycles", vn_result_figure(r, VN_CYCLES));
    vn__json_num(j, "cpu_ns", x ? NAN : vn_result_figure(r, VN_CPU));
    /* A command's headline too: the runs' median, the next run's
     * interval and the estimate's (each run is a process of its own). */
    headline(j, r);
    if (!x)
        processes(j, r);
    vn__json_obj_begin(j, "ref");
    vn__json_num(j, "ns_per_cycle", r->ref_ns);
    vn__json_num(j, "spread", r->ref_spread);
    vn__json_obj_end(j);
    throughput(j, r);
    threads(j, r);
    const char *stop = vn_stop_name(vn_result_stop(r));
    vn__json_str(j, "stop", stop ? stop : "unknown");
    vn__json_num(j, "elapsed_s", vn_result_figure(r, VN_ELAPSED));
    /* In-process: the share on the CPU, and the settings in force for this
     * row, which a benchmark may set for itself; runs of commands have
     * theirs in config. */
    if (!x) {
        vn__json_num(j, "on_cpu", r->on_cpu);
        vn__json_obj_begin(j, "settings");
        vn__json_num(j, "max_time", r->max_time);
        vn__json_num(j, "precision", r->precision);
        vn__json_uint(j, "min_samples", r->min_samples);
        vn__json_str(j, "timer", vn_clock_name(r->timer));
        vn__json_obj_end(j);
        baseline(j, r);
    }
    const char *error = vn_result_error(r);
    vn__json_str(j, "error", error[0] ? error : NULL);
    counters(j, r, counters_on);

    vn__json_arr_begin(j, "warnings");
    for (size_t i = 0; i < vn_result_warnings(r); i++) {
        const char *id = vn_result_warning(r, i, NULL);
        vn__json_obj_begin(j, NULL);
        vn__json_str(j, "id", id);
        vn__json_str(j, "message", vn_result_text(r, VN_TEXT_WARNING, i));
        char brief[VN__CELL];
        vn__warning_brief_of(r, i, brief, sizeof brief);
        vn__json_str(j, "brief", brief);
        vn__json_str(j, "explanation", vn__warning_explanation(id));
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);
    vn__json_obj_end(j);
}

static void config(vn__json *j, const vn_config *c)
{
    vn__json_obj_begin(j, "config");
    vn__json_num(j, "max_time", c->max_time);
    vn__json_num(j, "precision", c->precision);
    vn__json_uint(j, "min_samples", c->min_samples);
    vn__json_uint(j, "max_samples", c->max_samples);
    vn__json_num(j, "warmup", c->warmup);
    vn__json_num(j, "min_sample_time", c->min_sample_time);
    if (c->cpu < 0)
        vn__json_null(j, "cpu");
    else
        vn__json_int(j, "cpu", c->cpu);
    vn__json_int(j, "threads", c->threads);
    vn__json_bool(j, "cold", c->cold != 0);
    vn__json_bool(j, "interleave", c->interleave != 0);
    if (c->processes > 0)
        vn__json_int(j, "processes", c->processes);
    else
        vn__json_str(j, "processes", "auto");
    vn__json_str(j, "timer", c->timer);
    vn__json_str(j, "filter", c->filter);
    vn__json_str(j, "counters", c->counters);
    if (c->dma_latency_us < 0)
        vn__json_null(j, "dma_latency_us");
    else
        vn__json_int(j, "dma_latency_us", c->dma_latency_us);
    vn__json_obj_end(j);
}

/* The run's counters: what was asked for, what opened, what is missing
 * with the reason and the fix, and how the events were grouped; null when
 * counters were off. */
static void counter_info(vn__json *j, const vn_counter_info *ci)
{
    if (!ci->requested[0]) {
        vn__json_null(j, "counters");
        return;
    }
    vn__json_obj_begin(j, "counters");
    vn__json_str(j, "requested", ci->requested);
    vn__json_arr_begin(j, "opened");
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++)
        if (ci->ev[i].opened)
            vn__json_str(j, NULL, ci->ev[i].name);
    vn__json_arr_end(j);
    vn__json_arr_begin(j, "missing");
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++) {
        const vn_counter_status *s = &ci->ev[i];
        if (s->opened)
            continue;
        vn__json_obj_begin(j, NULL);
        vn__json_str(j, "name", s->name);
        vn__json_int(j, "errno", s->err);
        vn__json_str(j, "reason", s->reason[0] ? s->reason : "unknown");
        vn__json_str(j, "fix", s->fix[0] ? s->fix : NULL);
        vn__json_obj_end(j);
    }
    vn__json_arr_end(j);
    vn__json_arr_begin(j, "user_only");
    for (size_t i = 0; i < ci->n && i < VN_COUNTERS_MAX; i++)
        if (ci->ev[i].opened && ci->ev[i].user_only)
            vn__json_str(j, NULL, ci->ev[i].name);
    vn__json_arr_end(j);
    vn__json_int(j, "groups", ci->ngroups);
    vn__json_bool(j, "split", ci->split != 0);
    if (ci->split)
        vn__json_int(j, "max_group", ci->max_group);
    else
        vn__json_null(j, "max_group");
    vn__json_obj_end(j);
}

int vn__report_results_json(const vn_results *r, const vn_run_results *runs, vn_buf *out)
{
    if (!out)
        return VN_EINVAL;
    int bad = vn__results_check(r);
    if (bad)
        return bad;
    vn__json j;
    vn__json_init(&j, out, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_str(&j, "schema", "vernier.results/1");
    vn__json_str(&j, "vernier_version", vn_version());
    vn__json_sysinfo(&j, "env", &r->env);

    vn__json_obj_begin(&j, "clock");
    vn__json_str(&j, "name", vn_clock_name(r->timer));
    vn__json_str(&j, "reason", r->timer_reason[0] ? r->timer_reason : NULL);
    vn__json_num(&j, "cost_ns", r->timer_cost_ns);
    vn__json_num(&j, "resolution_ns", r->timer_resolution_ns);
    vn__json_num(&j, "counter_hz", r->counter_hz);
    vn__json_obj_end(&j);

    config(&j, &r->config);
    vn__json_bool(&j, "optimized", r->optimized != 0);
    vn__json_bool(&j, "interrupted", r->interrupted != 0);
    /* What the samples are: iterations of code in-process, or runs of commands. */
    vn__json_str(&j, "kind", runs ? "commands" : "code");
    vn__json_str(&j, "note", r->note[0] ? r->note : NULL);
    if (!runs) {
        vn__json_obj_begin(&j, "processes");
        vn__json_uint(&j, "count", r->processes);
        vn__json_num(&j, "wall_s", r->processes ? r->processes_wall : NAN);
        vn__json_obj_end(&j);
    }
    counter_info(&j, &r->counters);
    vn__json_arr_begin(&j, "findings");
    for (size_t i = 0; i < vn_results_findings(r); i++) {
        const char *brief = NULL, *id = vn_results_finding(r, i, &brief);
        vn__json_obj_begin(&j, NULL);
        vn__json_str(&j, "id", id);
        vn__json_str(&j, "brief", brief);
        vn__json_str(&j, "explanation", r->findings[i].explanation[0] ? r->findings[i].explanation : NULL);
        vn__json_obj_end(&j);
    }
    vn__json_arr_end(&j);

    vn__json_arr_begin(&j, "benchmarks");
    for (size_t i = 0; i < vn_results_count(r); i++)
        benchmark(&j, vn_results_at(r, i), r->counters.requested[0] != '\0',
                  runs ? &runs->commands[i] : NULL);
    vn__json_arr_end(&j);
    vn__json_obj_end(&j);
    return vn__json_finish(&j);
}

int vn_report_results_json(const vn_results *r, vn_buf *out)
{
    return vn__report_results_json(r, NULL, out);
}
