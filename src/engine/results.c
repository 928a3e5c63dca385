/* The engine's results as a struct that grows: rows found by their stride,
 * freed, handed over to the caller and checked before a reporter reads
 * them (engine/results.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

/* Row i, result_size bytes apart, which is the stride whoever filled the
 * results allocated them with. */
static vn_result *row_at(const vn_results *r, size_t i)
{
    if (!r || !r->bench || i >= r->nbench || r->result_size < VN__RESULT_FIRST)
        return NULL;
    return (vn_result *)(void *)((char *)r->bench + i * r->result_size);
}

const vn_result *vn_results_at(const vn_results *r, size_t i) { return row_at(r, i); }

size_t vn_results_count(const vn_results *r) { return r ? r->nbench : 0; }

/* Only the fields of the first layout, which every caller's struct holds:
 * what a newer library adds and owns is freed before the caller gets it
 * (vn__results_give). */
void vn__results_clear(vn_results *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nfindings; i++)
        free(r->findings[i].explanation);
    free(r->findings);
    r->findings = NULL;
    r->nfindings = 0;
    for (size_t i = 0; i < r->nbench; i++) {
        vn_result *x = row_at(r, i);
        if (!x)
            break;
        free(x->samples);
        free(x->thread_median);
        free(x->sample_counts);
        /* Rows are laid out by this library, result_size apart: a row wide
         * enough to hold processes[] owns it. */
        if (r->result_size >= VN__SIZE_THROUGH(vn_result, processes))
            free(x->processes);
    }
    free(r->bench);
    r->bench = NULL;
    r->nbench = 0;
    vn_sysinfo_free(&r->env);
}

int vn__results_give(vn_results *dst, size_t dst_size, vn_results *full)
{
    if (dst_size < VN__RESULTS_FIRST) {
        vn__results_clear(full);
        return VN_EABI;
    }
    /* A caller with an older header gets the fields its struct has. A
     * field added later that owns memory must be freed here when dst_size
     * leaves it out, since vn_results_free() will not see it. */
    size_t n = dst_size < sizeof *full ? dst_size : sizeof *full;
    full->size = n;
    full->result_size = sizeof(vn_result);
    memcpy(dst, full, n);
    /* A newer header's fields that this library does not know: zero, as
     * size says they were not filled. */
    if (dst_size > n)
        memset((char *)dst + n, 0, dst_size - n);
    return 0;
}

int vn__results_check(const vn_results *r)
{
    if (!r || (r->nbench && !r->bench))
        return VN_EINVAL;
    if (r->size < VN__RESULTS_FIRST || (r->nbench && r->result_size < sizeof(vn_result)))
        return VN_EABI;
    return 0;
}

void vn_results_free(vn_results *r)
{
    vn__results_clear(r);
    free(r);
}

/* ---- One row, read through functions (vernier/results.h) ------------------------- */

/* The warnings and counters a row holds: nwarnings and ncounters, never
 * past the arrays they count. */
static size_t nwarnings_of(const vn_result *b)
{
    if (!b || b->nwarnings <= 0)
        return 0;
    return b->nwarnings < VN_MAX_WARNINGS ? (size_t)b->nwarnings : VN_MAX_WARNINGS;
}

static size_t ncounters_of(const vn_result *b)
{
    if (!b || b->ncounters <= 0)
        return 0;
    return b->ncounters < VN_COUNTERS_MAX ? (size_t)b->ncounters : VN_COUNTERS_MAX;
}

const char *vn_result_text(const vn_result *b, vn_text which, size_t i)
{
    if (!b)
        return NULL;
    switch (which) {
    case VN_TEXT_NAME: return b->name;
    case VN_TEXT_ERROR: return b->error;
    case VN_TEXT_UNIT: return b->unit ? b->unit : "ns";
    case VN_TEXT_PARAM: return b->param_name;
    case VN_TEXT_BASELINE: return b->baseline;
    case VN_TEXT_WARNING: return i < nwarnings_of(b) ? b->warnings[i].message : NULL;
    case VN_TEXT_WARNING_BRIEF: return i < nwarnings_of(b) ? b->warnings[i].brief : NULL;
    case VN_TEXT_COUNTER_UNIT:
        if (i >= ncounters_of(b))
            return NULL;
        return b->counters[i].unit ? b->counters[i].unit : "count";
    }
    return NULL;
}

vn_stop vn_result_stop(const vn_result *b) { return b ? b->stop : VN_STOP_FAILED; }
size_t vn_result_samples(const vn_result *b) { return b ? b->nsamples : 0; }

const vn_sample *vn_result_sample(const vn_result *b, size_t i)
{
    return b && b->samples && i < b->nsamples ? &b->samples[i] : NULL;
}

/* Bit i for each of the row's counters that was scaled (multiplexed). */
static double counters_scaled(const vn_result *b)
{
    uint32_t mask = 0;
    for (size_t i = 0; i < ncounters_of(b); i++)
        if (b->counters[i].scaled)
            mask |= (uint32_t)1 << i;
    return (double)mask;
}

/* The figures are the numbers the reporters print, each with the condition
 * under which it means something: the statistics need samples summarized
 * (a failed row has none), the median and its interval a row that is not
 * an upper bound; the rest are as the row holds them, NAN where unknown. */
double vn_result_figure(const vn_result *b, vn_figure f)
{
    if (!b)
        return NAN;
    const vn_stats *st = &b->stats;
    int measured = st->n > 0;
    int located = measured && !b->upper_bound;
    int counted = ncounters_of(b) > 0;
    switch (f) {
    case VN_MEDIAN: return located ? st->median : NAN;
    case VN_CI_LO: return located ? st->median_ci[0] : NAN;
    case VN_CI_HI: return located ? st->median_ci[1] : NAN;
    case VN_CI_LEVEL: return located ? st->median_ci_level : NAN;
    case VN_MEAN: return measured ? st->mean : NAN;
    case VN_STDDEV: return measured ? st->stddev : NAN;
    case VN_MIN: return measured ? st->min : NAN;
    case VN_MAX: return measured ? st->max : NAN;
    /* vn_stats_pct: 1 5 10 25 50 75 90 95 99 */
    case VN_P1: return measured ? st->pct[0] : NAN;
    case VN_P5: return measured ? st->pct[1] : NAN;
    case VN_P10: return measured ? st->pct[2] : NAN;
    case VN_P25: return measured ? st->pct[3] : NAN;
    case VN_P50: return measured ? st->pct[4] : NAN;
    case VN_P75: return measured ? st->pct[5] : NAN;
    case VN_P90: return measured ? st->pct[6] : NAN;
    case VN_P95: return measured ? st->pct[7] : NAN;
    case VN_P99: return measured ? st->pct[8] : NAN;
    case VN_MAD: return measured ? st->mad : NAN;
    case VN_N: return (double)st->n;
    case VN_OVERHEAD: return b->overhead_ns;
    case VN_OVERHEAD_LO: return b->overhead_ci[0];
    case VN_OVERHEAD_HI: return b->overhead_ci[1];
    case VN_CYCLES: return b->cycles;
    case VN_CYCLES_LO: return b->upper_bound ? NAN : b->cycles_ci[0];
    case VN_CYCLES_HI: return b->upper_bound ? NAN : b->cycles_ci[1];
    case VN_CYCLES_HEADLINE: return b->cycles_headline && isfinite(b->cycles);
    case VN_CPU: return b->cpu_ns;
    case VN_BOUND: return b->upper_bound ? b->bound_ns : NAN;
    case VN_BYTES_PER_SEC: return b->bytes_per_sec;
    case VN_ITEMS_PER_SEC: return b->items_per_sec;
    case VN_BYTES_PER_ITER: return b->bytes_per_iter;
    case VN_ITEMS_PER_ITER: return b->items_per_iter;
    case VN_RATIO: return b->baseline[0] ? b->ratio : NAN;
    case VN_RATIO_LO: return b->baseline[0] ? b->ratio_ci[0] : NAN;
    case VN_RATIO_HI: return b->baseline[0] ? b->ratio_ci[1] : NAN;
    case VN_THREADS: return b->threads > 1 ? b->threads : 1;
    case VN_ITERS_PER_SEC: return b->threads > 1 ? b->total_iter_per_sec : NAN;
    case VN_ELAPSED: return b->elapsed;
    case VN_SAMPLES: return (double)b->headline_samples;
    case VN_PROCESSES: return (double)(b->nprocesses ? b->nprocesses : 1);
    case VN_PARAM: return b->param_name[0] ? (double)b->param : NAN;
    case VN_ITERS: return (double)b->iters;
    case VN_LEFT_OUT: return b->left_out;
    case VN_IPC: return counted ? b->derived.ipc : NAN;
    case VN_BRANCH_MISS_PCT: return counted ? b->derived.branch_miss_pct : NAN;
    case VN_CACHE_MISS_PCT: return counted ? b->derived.cache_miss_pct : NAN;
    case VN_INSN_PER_BYTE: return counted ? b->derived.insn_per_byte : NAN;
    case VN_COUNTERS_SCALED: return counters_scaled(b);
    }
    return NAN;
}

size_t vn_result_warnings(const vn_result *b) { return nwarnings_of(b); }

const char *vn_result_warning(const vn_result *b, size_t i, const char **brief)
{
    if (i >= nwarnings_of(b))
        return NULL;
    const vn_bench_warning *w = &b->warnings[i];
    if (brief)
        *brief = w->brief[0] ? w->brief : w->message;
    return w->id;
}

size_t vn_result_counters(const vn_result *b) { return ncounters_of(b); }

const char *vn_result_counter(const vn_result *b, size_t i, double *value)
{
    if (i >= ncounters_of(b))
        return NULL;
    if (value)
        *value = b->counters[i].value;
    return b->counters[i].name;
}

size_t vn_results_findings(const vn_results *r) { return r ? r->nfindings : 0; }

const char *vn_results_finding(const vn_results *r, size_t i, const char **brief)
{
    if (i >= vn_results_findings(r))
        return NULL;
    if (brief)
        *brief = r->findings[i].brief;
    return r->findings[i].id;
}
