/* The engine's counters: opened once per run, read at the edges of every
 * sample next to the timer, and summarized per iteration with the empty
 * loop's own counts taken off, the way the time is. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int vn__bench_counters_open(const vn_config *cfg, const vn__hooks *hooks, vn_counters **out,
                            vn_counter_info *info)
{
    *out = NULL;
    memset(info, 0, sizeof *info);
    const char *list = cfg->counters ? cfg->counters : "default";
    /* A test's fake machine has no PMU unless the test brings one. */
    if (!strcmp(list, "none") || (hooks && !hooks->perf))
        return 0;
    vn_counters *c;
    int rc = vn__counters_open_sys(hooks ? hooks->perf : NULL, list, 0, 0, &c, NULL, 0);
    if (rc)
        return rc;
    vn_counters_info(c, info);
    /* The counters run for the whole run; samples read differences. A
     * failed enable leaves them stopped, which the reads then show as
     * counts that never ran (unknown), not as zeros. */
    if (vn_counters_n(c) == 0 || vn_counters_enable(c) != 0) {
        vn_counters_destroy(c);
        return 0;
    }
    *out = c;
    return 0;
}

vn_counters *vn__bench_counters_again(const vn_counters *c)
{
    vn_counters *d;
    if (!c || vn__counters_reopen(c, &d) != 0)
        return NULL;
    int same = vn_counters_n(d) == vn_counters_n(c);
    for (size_t i = 0; same && i < vn_counters_n(c); i++)
        same = !strcmp(vn_counters_name(c, i), vn_counters_name(d, i));
    if (!same || vn_counters_enable(d) != 0) {
        vn_counters_destroy(d);
        return NULL;
    }
    return d;
}

void vn__bench_counters_sample(struct vn__run *r, uint64_t iters)
{
    size_t n = vn_counters_n(r->ctr);
    r->cur_scaled = 0;
    if (r->ctr_ok) {
        vn__ctr_delta(&r->c0, &r->c1, iters, r->cur, &r->cur_scaled);
    } else {
        for (size_t i = 0; i < n; i++)
            r->cur[i] = NAN;
    }
}

int vn__counter_summary(const vn_counters *c, double *counts, vn_sample *samples, size_t nsamples,
                        unsigned left_out, const double *empty, size_t nempty,
                        const unsigned char *empty_use, double bytes_per_iter,
                        vn_counter_result *out, vn_counter_derived *derived)
{
    size_t n = vn_counters_n(c);
    for (size_t i = 0; i < nsamples; i++)
        samples[i].counts = counts ? counts + i * n : NULL;
    if (!n)
        return 0;
    /* The same samples as the headline time: those without a tag it
     * leaves out. */
    unsigned char *use = malloc(nsamples ? nsamples : 1);
    uint32_t *scaled = malloc((nsamples ? nsamples : 1) * sizeof *scaled);
    if (!use || !scaled) {
        free(use);
        free(scaled);
        return VN_ENOMEM;
    }
    for (size_t i = 0; i < nsamples; i++) {
        use[i] = !(samples[i].tags & left_out);
        scaled[i] = samples[i].counts_scaled;
    }
    double net[VN_COUNTERS_MAX], over[VN_COUNTERS_MAX];
    int any[VN_COUNTERS_MAX];
    if (counts)
        vn__ctr_summarize(counts, scaled, nsamples, use, empty, nempty, empty_use, n, net, over,
                          any);
    for (size_t k = 0; k < n; k++) {
        vn_counter_result *cr = &out[k];
        memset(cr, 0, sizeof *cr);
        snprintf(cr->name, sizeof cr->name, "%s", vn_counters_name(c, k));
        cr->unit = vn_counters_unit(c, k);
        cr->value = counts ? net[k] : NAN;
        cr->overhead = counts ? over[k] : NAN;
        cr->scaled = counts ? any[k] : 0;
    }
    vn__ctr_derive(out, n, bytes_per_iter, derived);
    free(use);
    free(scaled);
    return 0;
}

int vn__bench_counters_finish(vn_result *res, const vn_counters *c, double *sample_counts,
                              const double *empty, size_t nempty, const unsigned char *empty_use)
{
    res->ncounters = (int)vn_counters_n(c);
    res->sample_counts = sample_counts;
    return vn__counter_summary(c, sample_counts, res->samples, res->nsamples, res->left_out, empty,
                               nempty, empty_use, res->bytes_per_iter, res->counters,
                               &res->derived);
}
