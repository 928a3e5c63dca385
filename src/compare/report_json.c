/* The comparison as vernier.compare/1 JSON (docs/schema/compare-1.json):
 * every number the console shows, the method's settings, and the machines. */
#include <math.h>

#include "compare.h"
#include "base/json.h"

static const char *const verdict_ids[] = {"no_change", "faster", "slower", "no_interval"};
static const char *const fact_ids[VN__CMP_NFACTS] = {
    "cpu_model", "cpus", "mhz", "governor", "frequency_scaling", "kernel", "host",
};

static void formats(vn__json *j, unsigned bits)
{
    static const char *const ids[] = {"code", "commands", "gbench", "hyperfine"};
    vn__json_arr_begin(j, "formats");
    for (unsigned i = 0; i < 4; i++)
        if (bits & (1u << i))
            vn__json_str(j, NULL, ids[i]);
    vn__json_arr_end(j);
}

static void side(vn__json *j, const char *key, const char *const *files, size_t nfiles,
                 unsigned bits, const char *const *facts)
{
    vn__json_obj_begin(j, key);
    vn__json_arr_begin(j, "files");
    for (size_t i = 0; i < nfiles; i++)
        vn__json_str(j, NULL, files[i]);
    vn__json_arr_end(j);
    formats(j, bits);
    vn__json_obj_begin(j, "machine");
    for (int f = 0; f < VN__CMP_NFACTS; f++)
        vn__json_str(j, fact_ids[f], facts[f]);
    vn__json_obj_end(j);
    vn__json_obj_end(j);
}

static void interval(vn__json *j, const char *key, double lo, double hi)
{
    if (isnan(lo)) {
        vn__json_null(j, key);
        return;
    }
    vn__json_arr_begin(j, key);
    vn__json_num(j, NULL, lo);
    vn__json_num(j, NULL, hi);
    vn__json_arr_end(j);
}

static void one_side(vn__json *j, const char *key, const vn__cmp_bench *b, double median,
                     double insn, size_t units, int cycles)
{
    vn__json_obj_begin(j, key);
    vn__json_uint(j, "n", b->n);
    vn__json_uint(j, "units", units);
    vn__json_num(j, "median_ns", cycles ? NAN : median);
    vn__json_num(j, "cycles", cycles ? median : NAN);
    vn__json_num(j, "instructions", insn);
    vn__json_obj_end(j);
}

static void row(vn__json *j, const vn__cmp_row *w)
{
    vn__json_obj_begin(j, NULL);
    vn__json_str(j, "name", w->name);
    vn__json_str(j, "new_name", w->new_name ? w->new_name : w->name);
    vn__json_str(j, "paired_by", vn__cmp_rule_name(w->rule));
    vn__json_obj_begin(j, "params");
    for (size_t i = 0; i < w->base->nparams; i++)
        vn__json_str(j, w->base->params[i].key, w->base->params[i].value);
    vn__json_obj_end(j);
    one_side(j, "base", w->base, w->base_median, w->insn_base, w->units_base, w->cycles);
    one_side(j, "new", w->new_, w->new_median, w->insn_new, w->units_new, w->cycles);
    vn__json_str(j, "method", w->method);
    vn__json_str(j, "unit", w->cycles ? "cycles" : "ns");
    vn__json_str(j, "unit_by", w->unit_by); /* NULL: null */
    vn__json_num(j, "ratio", w->ratio);
    interval(j, "ci", w->lo, w->hi);
    vn__json_num(j, "p", w->p);
    vn__json_str(j, "verdict", verdict_ids[w->verdict]);
    vn__json_uint(j, "learned_from", w->learned_from);
    vn__json_bool(j, "within_next_run", w->within_next_run != 0);
    vn__json_num(j, "threshold", w->threshold);
    vn__json_bool(j, "within_reach", w->within_reach != 0);
    if (isnan(w->fast_ratio)) {
        vn__json_null(j, "fast_end");
    } else {
        vn__json_obj_begin(j, "fast_end");
        vn__json_num(j, "quantile", VN__CMP_FAST_END);
        vn__json_num(j, "ratio", w->fast_ratio);
        interval(j, "ci", w->fast_lo, w->fast_hi);
        vn__json_obj_end(j);
    }
    vn__json_bool(j, "fast_end_still", w->fast_end_still != 0);
    vn__json_str(j, "state_matched", w->state_matched); /* NULL: null */
    vn__json_str(j, "state_bound", w->state_bound); /* NULL: null */
    vn__json_num(j, "instructions_ratio", w->insn_ratio);
    vn__json_obj_end(j);
}

static void names(vn__json *j, const char *key, const char *const *list, size_t n)
{
    vn__json_arr_begin(j, key);
    for (size_t i = 0; i < n; i++)
        vn__json_str(j, NULL, list[i]);
    vn__json_arr_end(j);
}

int vn__cmp_report_json(const vn__cmp_result *r, const vn__cmp_files *f, vn_buf *out)
{
    vn__json j;
    vn__json_init(&j, out, 1);
    vn__json_obj_begin(&j, NULL);
    vn__json_str(&j, "schema", "vernier.compare/1");
    vn__json_str(&j, "vernier_version", vn_version());
    side(&j, "base", f->base, f->nbase, r->base_formats, r->base_facts);
    side(&j, "new", f->new_, f->nnew, r->new_formats, r->new_facts);
    vn__json_obj_begin(&j, "method");
    vn__json_str(&j, "ratio", "headline(NEW) / headline(BASE): the quantile of their "
                 "processes' values both runs' headlines were (the lower quartile by default; "
                 "else their median), the medians of their runs or samples; the means of "
                 "aggregates");
    vn__json_str(&j, "interval", "processes: the two headlines' own intervals (Maritz and "
                 "Jarrett's error, widened where the processes ran in streaks), their log "
                 "half-widths added in quadrature; runs and samples: bootstrap percentile, "
                 "each side resampled on its own; aggregates: Welch's t-interval of the log "
                 "ratio of the means, each log mean's variance (sd / mean)^2 / n");
    vn__json_num(&j, "level", 0.95);
    vn__json_uint(&j, "resamples", r->opt.resamples);
    vn__json_uint(&j, "seed", r->opt.seed);
    vn__json_num(&j, "threshold", r->opt.threshold);
    vn__json_str(&j, "test", "Mann-Whitney U, two-sided (scipy.stats.mannwhitneyu's default method)");
    vn__json_obj_end(&j);
    vn__json_arr_begin(&j, "benchmarks");
    for (size_t i = 0; i < r->nrows; i++)
        row(&j, &r->rows[i]);
    vn__json_arr_end(&j);
    vn__json_obj_begin(&j, "geomean");
    vn__json_num(&j, "ratio", r->geomean);
    interval(&j, "ci", r->geo_lo, r->geo_hi);
    vn__json_uint(&j, "benchmarks", r->nrows);
    vn__json_obj_end(&j);
    vn__json_obj_begin(&j, "counts");
    for (int v = 0; v < 4; v++)
        vn__json_uint(&j, verdict_ids[v], r->count[v]);
    vn__json_obj_end(&j);
    vn__json_obj_begin(&j, "paired");
    vn__json_uint(&j, "name", r->paired[VN__CMP_RULE_NAME]);
    vn__json_uint(&j, "map", r->paired[VN__CMP_RULE_MAP]);
    vn__json_uint(&j, "name_form", r->paired[VN__CMP_RULE_FORM]);
    vn__json_obj_end(&j);
    vn__json_uint(&j, "one_process", r->one_process);
    vn__json_uint(&j, "core_state_differs", r->state_differs);
    vn__json_uint(&j, "core_state_matched", r->state_matched);
    vn__json_uint(&j, "core_state_bound", r->state_bound);
    vn__json_arr_begin(&j, "not_comparable");
    for (size_t i = 0; i < r->nskipped; i++) {
        vn__json_obj_begin(&j, NULL);
        vn__json_str(&j, "name", r->skipped[i].name);
        vn__json_str(&j, "reason", r->skipped[i].why);
        vn__json_obj_end(&j);
    }
    vn__json_arr_end(&j);
    names(&j, "only_base", r->only_base, r->nonly_base);
    names(&j, "only_new", r->only_new, r->nonly_new);
    vn__json_arr_begin(&j, "machines_differ");
    for (int i = 0; i < VN__CMP_NFACTS; i++)
        if (r->differ & (1u << i))
            vn__json_str(&j, NULL, fact_ids[i]);
    vn__json_arr_end(&j);
    vn__json_obj_end(&j);
    int rc = vn__json_finish(&j);
    return rc ? rc : vn_buf_puts(out, "\n");
}
