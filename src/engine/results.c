/* The engine's results as a struct that grows: rows found by their stride,
 * freed, handed over to the caller and checked before a reporter reads
 * them (engine/results.h). */
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

/* Only the fields of the first layout, which every caller's struct holds:
 * what a newer library adds and owns is freed before the caller gets it
 * (vn__results_give). */
void vn_results_free(vn_results *r)
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
        vn_results_free(full);
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
