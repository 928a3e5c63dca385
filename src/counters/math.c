/* The arithmetic of counters, apart from the system calls so the tests can
 * feed it fixtures: scaling a multiplexed count, the counts between two
 * reads per iteration, the medians with the empty loop's counts taken off,
 * the ratios, and the plan of groups. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stats/internal.h"

double vn_counter_scale(uint64_t value, uint64_t enabled, uint64_t running, int *scaled)
{
    if (scaled)
        *scaled = 0;
    /* An event that never ran has no count at all: 0 would claim the code
     * did nothing, and value * enabled / 0 would be infinite. */
    if (running == 0)
        return NAN;
    if (running >= enabled)
        return (double)value;
    if (scaled)
        *scaled = 1;
    /* The ratio first: value * enabled would overflow 64 bits for counts
     * above 2^64 / enabled, and in double it costs nothing to avoid. */
    return (double)value * ((double)enabled / (double)running);
}

void vn__ctr_delta(const vn_counts *a, const vn_counts *b, uint64_t iters, double *out,
                   uint32_t *scaled)
{
    *scaled = 0;
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++) {
        const vn_count *x = &a->v[i], *y = &b->v[i];
        /* Counters only grow; a later read below an earlier one means the
         * two do not belong together (a reset in between). */
        if (y->value < x->value || y->enabled < x->enabled || y->running < x->running ||
            iters == 0) {
            out[i] = NAN;
            continue;
        }
        /* Each interval is scaled by its own times: a group may have run
         * all of one sample and half of the next. */
        int s;
        double v = vn_counter_scale(y->value - x->value, y->enabled - x->enabled,
                                    y->running - x->running, &s);
        out[i] = v / (double)iters;
        if (s && i < 32)
            *scaled |= 1u << i;
    }
}

double vn__ctr_median(const double *table, size_t rows, size_t ncols, size_t k,
                      const unsigned char *use)
{
    double *v = malloc((rows ? rows : 1) * sizeof *v);
    if (!v)
        return NAN;
    size_t m = 0;
    for (size_t r = 0; r < rows; r++) {
        double x = table[r * ncols + k];
        if ((!use || use[r]) && isfinite(x))
            v[m++] = x;
    }
    double med = NAN;
    if (m) {
        qsort(v, m, sizeof *v, vn__cmp_double);
        med = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
    }
    free(v);
    return med;
}

void vn__ctr_summarize(const double *samples, const uint32_t *sample_scaled, size_t nsamples,
                       const unsigned char *use, const double *empty, size_t nempty,
                       const unsigned char *empty_use, size_t ncols, double *net,
                       double *overhead, int *scaled_any)
{
    for (size_t k = 0; k < ncols; k++) {
        double med = vn__ctr_median(samples, nsamples, ncols, k, use);
        double om = nempty ? vn__ctr_median(empty, nempty, ncols, k, empty_use) : NAN;
        overhead[k] = om;
        /* The empty loop's counts are the loop's own instructions and
         * branches and the reads at its edges; every sample has them too.
         * When they are unknown nothing is taken off, and the NAN overhead
         * says so. Below zero is noise around a body that adds nothing. */
        double v = isfinite(om) ? med - om : med;
        net[k] = isfinite(v) && v < 0 ? 0 : v;
        scaled_any[k] = 0;
        for (size_t r = 0; r < nsamples && k < 32; r++)
            if ((!use || use[r]) && sample_scaled && (sample_scaled[r] >> k & 1u))
                scaled_any[k] = 1;
    }
}

static double value_of(const vn_counter_result *c, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].name, name))
            return c[i].value;
    return NAN;
}

static double ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && b > 0 ? a / b : NAN;
}

void vn__ctr_derive(const vn_counter_result *c, size_t n, double bytes_per_iter,
                    vn_counter_derived *out)
{
    double insn = value_of(c, n, "instructions");
    out->ipc = ratio(insn, value_of(c, n, "cycles"));
    out->branch_miss_pct = 100 * ratio(value_of(c, n, "branch-misses"), value_of(c, n, "branches"));
    out->cache_miss_pct =
        100 * ratio(value_of(c, n, "cache-misses"), value_of(c, n, "cache-references"));
    out->insn_per_byte = ratio(insn, bytes_per_iter);
}

int vn__ctr_plan_groups(const int *hardware, size_t n, size_t max_hw, int *group_of)
{
    if (max_hw < 1)
        max_hw = 1;
    int has_sw = 0;
    for (size_t i = 0; i < n; i++)
        has_sw |= !hardware[i];
    int next = has_sw, cur = -1;
    size_t in_cur = 0;
    for (size_t i = 0; i < n; i++) {
        if (!hardware[i]) {
            group_of[i] = 0;
            continue;
        }
        if (cur < 0 || in_cur >= max_hw) {
            cur = next++;
            in_cur = 0;
        }
        group_of[i] = cur;
        in_cur++;
    }
    return next;
}
