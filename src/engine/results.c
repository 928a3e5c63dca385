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

const char *vn_result_name(const vn_result *b) { return b ? b->name : NULL; }
vn_stop vn_result_stop(const vn_result *b) { return b ? b->stop : VN_STOP_FAILED; }
const char *vn_result_error(const vn_result *b) { return b ? b->error : NULL; }
size_t vn_result_samples(const vn_result *b) { return b ? b->nsamples : 0; }

const vn_sample *vn_result_sample(const vn_result *b, size_t i)
{
    return b && i < b->nsamples ? &b->samples[i] : NULL;
}

double vn_result_figure(const vn_result *b, vn_figure f)
{
    if (!b)
        return NAN;
    const vn_stats *st = &b->stats;
    int measured = b->stop != VN_STOP_FAILED && b->stop != VN_STOP_SKIPPED && st->n > 0;
    switch (f) {
    case VN_MEDIAN: return measured && !b->upper_bound ? st->median : NAN;
    case VN_CI_LO: return measured && !b->upper_bound ? st->median_ci[0] : NAN;
    case VN_CI_HI: return measured && !b->upper_bound ? st->median_ci[1] : NAN;
    case VN_MEAN: return measured ? st->mean : NAN;
    case VN_STDDEV: return measured ? st->stddev : NAN;
    case VN_MIN: return measured ? st->min : NAN;
    case VN_MAX: return measured ? st->max : NAN;
    case VN_P90: return measured ? st->pct[6] : NAN; /* vn_stats_pct: 1 5 10 25 50 75 90 95 99 */
    case VN_P99: return measured ? st->pct[8] : NAN;
    case VN_MAD: return measured ? st->mad : NAN;
    case VN_OVERHEAD: return b->overhead_ns;
    case VN_CYCLES: return b->cycles;
    case VN_BOUND: return b->upper_bound ? b->bound_ns : NAN;
    case VN_BYTES_PER_SEC: return b->bytes_per_sec;
    case VN_ITEMS_PER_SEC: return b->items_per_sec;
    case VN_RATIO: return b->baseline[0] ? b->ratio : NAN;
    case VN_RATIO_LO: return b->baseline[0] ? b->ratio_ci[0] : NAN;
    case VN_RATIO_HI: return b->baseline[0] ? b->ratio_ci[1] : NAN;
    case VN_ITERS_PER_SEC: return b->threads > 1 ? b->total_iter_per_sec : NAN;
    case VN_ELAPSED: return b->elapsed;
    case VN_SAMPLES: return (double)b->headline_samples;
    case VN_PROCESSES: return (double)(b->nprocesses ? b->nprocesses : 1);
    }
    return NAN;
}

size_t vn_result_warnings(const vn_result *b) { return b && b->nwarnings > 0 ? (size_t)b->nwarnings : 0; }

const char *vn_result_warning(const vn_result *b, size_t i, const char **brief)
{
    if (i >= vn_result_warnings(b))
        return NULL;
    const vn_bench_warning *w = &b->warnings[i];
    if (brief)
        *brief = w->brief[0] ? w->brief : w->message;
    return w->id;
}

size_t vn_result_counters(const vn_result *b) { return b && b->ncounters > 0 ? (size_t)b->ncounters : 0; }

const char *vn_result_counter(const vn_result *b, size_t i, double *value)
{
    if (i >= vn_result_counters(b))
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
