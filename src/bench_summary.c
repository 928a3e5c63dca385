/* A row's numbers from its samples and the decision on them (no clocks,
 * no I/O). */
#include <stdlib.h>
#include <string.h>

#include "bench_engine.h"
#include "stats_internal.h"

/* The view of a row the decision takes: its samples, and the empty loop's
 * numbers from each kind of moments. 0, or VN_ENOMEM. */
int vn__view_row(const vn_sample *v, size_t n, const empties *E, const vn__policy *pol, double thr,
                 double efloor, uint64_t iters, double floor_ns, vn__row_view *rv)
{
    *rv = (vn__row_view){.v = v, .n = n, .floor_ns = floor_ns};
    for (int quiet = 0; quiet < 2; quiet++) {
        empty_stats es;
        int rc = vn__empty_summary(E, quiet, pol->empty_matched, thr, efloor, iters, &es, NULL);
        if (rc)
            return rc;
        rv->empty[quiet] = (vn__empty_view){es.om, es.olo, es.ohi, es.kind};
    }
    for (size_t i = 0; i < n; i++)
        rv->probed |= isfinite(v[i].branch_cycles);
    return 0;
}

/* Fills the result's numbers from the samples and the decision on them (no
 * clocks, no I/O). floor_ns is the smallest difference per iteration the
 * timer can show: its resolution over the iterations of a sample. thr is
 * the taken-branch probe over which a sample ran on a shared core
 * (tag_shared, done before), efloor the empty loop's fastest (empty_quiet);
 * empty_used, when not NULL, gets 1 for each empty-loop sample the overhead
 * comes from. The decision goes to *d. */
int vn__summarize(vn_result *res, const empties *E, const vn__policy *pol, double floor_ns,
                     double thr, double efloor, unsigned char *empty_used, vn__decision *d)
{
    size_t n = res->nsamples;
    vn__row_view rv;
    int rc = vn__view_row(res->samples, n, E, pol, thr, efloor, res->iters, floor_ns, &rv);
    if (rc == 0)
        rc = vn__decide(&rv, pol, d);
    if (rc)
        return rc;
    double *net = malloc((n ? n : 1) * sizeof *net);
    double *cyc = malloc((n ? n : 1) * sizeof *cyc);
    double *ref = malloc((n ? n : 1) * sizeof *ref);
    if (!net || !cyc || !ref) {
        free(net), free(cyc), free(ref);
        return VN_ENOMEM;
    }
    unsigned skip = d->skip;
    res->left_out = skip;
    res->headline_samples = d->used;
    res->upper_bound = d->head == VN__HEAD_FASTEST;
    res->bound_ns = res->upper_bound ? d->value : NAN;
    res->ntagged = res->nshared = 0;
    for (size_t i = 0; i < n; i++) {
        res->ntagged += res->samples[i].tags != 0;
        res->nshared += (res->samples[i].tags & VN_TAG_SHARED_CORE) != 0;
    }
    /* The empty loop of the kind of moments the decision took. */
    empty_stats es;
    if ((rc = vn__empty_summary(E, d->quiet, pol->empty_matched, thr, efloor, res->iters, &es,
                                 empty_used)) != 0) {
        free(net), free(cyc), free(ref);
        return rc;
    }
    /* For a bound the statistics are of the loop with the body: the net
     * times are noise around zero, negative half the time, and their
     * modes and drift would describe nothing. */
    double om = res->upper_bound ? 0 : es.om;
    res->overhead_ns = es.om;
    res->overhead_ci[0] = es.olo;
    res->overhead_ci[1] = es.ohi;
    res->overhead_cycles = es.oc;
    res->overhead_cycles_spread = es.spread;
    /* No empty-loop sample kept (the run stopped before one, or every one
     * was preempted or migrated): the overhead is unknown, not 0, though
     * nothing is subtracted. */
    if (!E->ns.n)
        res->overhead_ns = res->overhead_ci[0] = res->overhead_ci[1] = NAN;

    size_t m = 0, nc = 0, nr = 0;
    for (size_t i = 0; i < n; i++) {
        const vn_sample *s = &res->samples[i];
        if (isfinite(s->ref_ns) && s->ref_ns > 0)
            ref[nr++] = s->ref_ns;
        if (s->tags & skip)
            continue;
        net[m] = s->value - om;
        if (isfinite(s->ref_ns) && s->ref_ns > 0)
            cyc[nc++] = net[m] / s->ref_ns;
        m++;
    }
    memset(&res->stats, 0, sizeof res->stats);
    if (m)
        rc = vn_stats_compute(net, m, &res->stats);
    if (nr) {
        qsort(ref, nr, sizeof *ref, vn__cmp_double);
        res->ref_ns = vn_percentile_sorted(ref, nr, 50);
        res->ref_spread = (vn_percentile_sorted(ref, nr, 90) - vn_percentile_sorted(ref, nr, 10)) /
                          res->ref_ns;
    } else {
        res->ref_ns = res->ref_spread = NAN;
    }
    if (res->upper_bound && nc) {
        /* The bound in reference cycles: the fastest of the samples the
         * headline uses over the fastest of their references. Both minima
         * are what the machine did at its fastest during the run, when the
         * loop and the reference ran at the same clock; noise only ever
         * lengthens either. Dividing each sample by its own reference
         * instead and taking the smallest quotient picks the sample whose
         * reference happened to run slow (the reference takes microseconds,
         * the sample a millisecond, and the clock moves in between), and
         * reads a dependent add under one cycle, which no loop can take. */
        double best = INFINITY;
        for (size_t i = 0; i < n; i++) {
            const vn_sample *s = &res->samples[i];
            if (!(s->tags & skip) && isfinite(s->ref_ns) && s->ref_ns > 0)
                best = fmin(best, s->value);
        }
        res->cycles = best / d->ref;
    } else if (nc && !res->upper_bound) {
        qsort(cyc, nc, sizeof *cyc, vn__cmp_double);
        res->cycles = vn_percentile_sorted(cyc, nc, 50);
    } else {
        res->cycles = NAN;
    }
    /* The CPU time beside the wall time, net of the same empty loop. */
    size_t ncpu = 0;
    for (size_t i = 0; i < n; i++)
        if (!(res->samples[i].tags & skip) && isfinite(res->samples[i].cpu_ns))
            cyc[ncpu++] = res->samples[i].cpu_ns - om;
    res->cpu_ns = NAN;
    if (ncpu) {
        qsort(cyc, ncpu, sizeof *cyc, vn__cmp_double);
        res->cpu_ns = vn_percentile_sorted(cyc, ncpu, 50);
    }
    double per = res->upper_bound ? NAN : res->stats.median * 1e-9;
    res->bytes_per_sec = res->bytes_per_iter > 0 ? res->bytes_per_iter / per : NAN;
    res->items_per_sec = res->items_per_iter > 0 ? res->items_per_iter / per : NAN;
    free(net), free(cyc), free(ref);
    return rc;
}

/* Bytes and items per iteration: what the function set on its state, else
 * what the options said; NAN (null in JSON) when neither said any. */
void vn__throughput_of(const job *j, vn_result *res)
{
    res->bytes_per_iter = j->run.bytes >= 0 ? j->run.bytes : j->b->opts.bytes_per_iter;
    res->items_per_iter = j->run.items >= 0 ? j->run.items : j->b->opts.items_per_iter;
    if (!(res->bytes_per_iter > 0))
        res->bytes_per_iter = NAN;
    if (!(res->items_per_iter > 0))
        res->items_per_iter = NAN;
}
