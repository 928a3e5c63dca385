/* The engine's results as a vernier.results/1 JSON document: everything
 * measured, raw samples included, so any other view can be made from it
 * later. docs/schema/results-1.json describes it field by field. */
#include <math.h>
#include <string.h>

#include "results.h"

/* One sample per line: a pretty document with thousands of samples would
 * otherwise take seven lines for each of them. */
static void sample(vn__json *j, const vn_sample *s)
{
    int pretty = j->pretty;
    vn__json_obj_begin(j, NULL);
    j->pretty = 0;
    vn__json_num(j, "value", s->value);
    vn__json_uint(j, "iters", s->iters);
    vn__json_arr_begin(j, "tags");
    for (size_t i = 0; i < sizeof vn__tag_names / sizeof vn__tag_names[0]; i++)
        if (s->tags & vn__tag_names[i].bit)
            vn__json_str(j, NULL, vn__tag_names[i].name);
    vn__json_arr_end(j);
    vn__json_num(j, "ref_ns", s->ref_ns);
    vn__json_int(j, "thread", s->thread);
    vn__json_obj_end(j);
    j->pretty = pretty;
}

static void throughput(vn__json *j, const vn_result *r)
{
    vn__json_obj_begin(j, "throughput");
    vn__json_num(j, "bytes_per_iter", r->bytes_per_iter);
    vn__json_num(j, "items_per_iter", r->items_per_iter);
    vn__json_num(j, "bytes_per_sec", r->bytes_per_sec);
    vn__json_num(j, "items_per_sec", r->items_per_sec);
    vn__json_obj_end(j);
}

static void threads(vn__json *j, const vn_result *r)
{
    if (r->threads <= 1) {
        vn__json_null(j, "threads");
        return;
    }
    vn__json_obj_begin(j, "threads");
    vn__json_int(j, "count", r->threads);
    vn__json_arr_begin(j, "median_ns");
    for (int i = 0; r->thread_median && i < r->threads; i++)
        vn__json_num(j, NULL, r->thread_median[i]);
    vn__json_arr_end(j);
    vn__json_num(j, "total_iter_per_sec", r->total_iter_per_sec);
    vn__json_obj_end(j);
}

static void benchmark(vn__json *j, const vn_result *r)
{
    vn__json_obj_begin(j, NULL);
    vn__json_str(j, "name", r->name);
    vn__json_obj_begin(j, "params");
    if (r->param_name[0])
        vn__json_int(j, r->param_name, r->param);
    vn__json_obj_end(j);
    vn__json_str(j, "unit", r->unit ? r->unit : "ns");
    vn__json_uint(j, "iters", r->iters);

    vn__json_arr_begin(j, "samples");
    for (size_t i = 0; r->samples && i < r->nsamples; i++)
        sample(j, &r->samples[i]);
    vn__json_arr_end(j);
    /* A summary of no samples would be all zeros that look measured. */
    if (r->stats.n > 0)
        vn__json_stats(j, "stats", &r->stats);
    else
        vn__json_null(j, "stats");
    vn__json_uint(j, "tagged", r->ntagged);

    vn__json_obj_begin(j, "overhead");
    vn__json_num(j, "ns", r->overhead_ns);
    vn__json_arr_begin(j, "ci");
    vn__json_num(j, NULL, r->overhead_ci[0]);
    vn__json_num(j, NULL, r->overhead_ci[1]);
    vn__json_arr_end(j);
    vn__json_obj_end(j);

    vn__json_bool(j, "upper_bound", r->upper_bound != 0);
    vn__json_num(j, "bound_ns", r->upper_bound ? r->bound_ns : NAN);
    vn__json_num(j, "cycles", r->cycles);
    vn__json_obj_begin(j, "ref");
    vn__json_num(j, "ns_per_cycle", r->ref_ns);
    vn__json_num(j, "spread", r->ref_spread);
    vn__json_obj_end(j);
    throughput(j, r);
    threads(j, r);
    const char *stop = vn_stop_name(r->stop);
    vn__json_str(j, "stop", stop ? stop : "unknown");
    vn__json_num(j, "elapsed_s", r->elapsed);
    vn__json_str(j, "error", r->error[0] ? r->error : NULL);

    vn__json_arr_begin(j, "warnings");
    for (int i = 0; i < r->nwarnings && i < VN_MAX_WARNINGS; i++) {
        vn__json_obj_begin(j, NULL);
        vn__json_str(j, "id", r->warnings[i].id);
        vn__json_str(j, "message", r->warnings[i].message);
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
    vn__json_str(j, "timer", c->timer);
    vn__json_str(j, "filter", c->filter);
    vn__json_obj_end(j);
}

int vn_report_results_json(const vn_results *r, vn_buf *out)
{
    if (!r || !out || (r->nbench && !r->bench))
        return VN_EINVAL;
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

    vn__json_arr_begin(&j, "benchmarks");
    for (size_t i = 0; i < r->nbench; i++)
        benchmark(&j, &r->bench[i]);
    vn__json_arr_end(&j);
    vn__json_obj_end(&j);
    return vn__json_finish(&j);
}
