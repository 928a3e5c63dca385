/* The empty loop: its samples, which ran on a core of their own, and its
 * numbers from the kind of moments a row's samples come from. */
#include <stdlib.h>

#include "engine.h"
#include "stats/internal.h"

/* One sample of the empty loop; a preempted or migrated one is dropped. 0,
 * or a negative code when memory ran out. */
int vn__empty_sample(job *j, uint64_t iters, empties *e)
{
    /* A benchmark that times itself (manual_time) leaves the loop out of
     * its times: there is nothing to subtract. */
    if (j->b->opts.manual_time)
        return 0;
    struct vn__run *r = &j->run;
    double ref = vn__ref_ns_per_cycle(r), ns;
    double before = vn__probe_branch(j, ref);
    unsigned tags;
    vn_bench_fn loop = j->hooks && j->hooks->empty ? j->hooks->empty : vn__empty_loop;
    if (vn__run_sample(j, loop, 0, iters, &ns, &tags) != 0 || tags)
        return 0;
    double after = vn__probe_branch(j, ref);
    double cyc = isfinite(ref) && ref > 0 ? ns / (double)iters / ref : NAN;
    if (j->w && iters >= EMPTY_SELF_ITERS)
        vn__low3_add(&j->w->empty_low, cyc);
    int rc = vn__push_double(&e->ns, ns / (double)iters);
    if (rc == 0)
        rc = vn__push_double(&e->cyc, cyc);
    if (rc == 0)
        rc = vn__push_double(&e->branch, fmax(before, after));
    if (rc == 0 && r->ctr)
        rc = vn__push_counts(&e->counts, r);
    return rc;
}

/* Was empty-loop sample i taken on a core of its own? Its probes say so,
 * and so does the sample itself, a loop of taken branches too: a sharing
 * that began and ended inside it shows only there, so it must be within
 * EMPTY_SELF_RATIO of efloor, the third fastest the empty loop ran in this
 * row, in reference cycles (quiet samples of the empty loop agree within
 * half a percent). That needs samples of EMPTY_SELF_ITERS iterations or
 * more, where the loop and not the timer's own cost is what they measure;
 * for shorter ones efloor is NAN (row_empty_floor). */
static int empty_quiet(const empties *E, size_t i, double thr, double efloor)
{
    return !(E->branch.v[i] > thr) && !(E->cyc.v[i] > EMPTY_SELF_RATIO * efloor);
}

double vn__row_empty_floor(const job *j, uint64_t iters)
{
    return iters >= EMPTY_SELF_ITERS && j->w ? vn__low3_floor(&j->w->empty_low) : NAN;
}

static size_t quiet_empties(const empties *E, double thr, double efloor)
{
    size_t q = 0;
    for (size_t i = 0; i < E->ns.n; i++)
        q += empty_quiet(E, i, thr, efloor);
    return q;
}

/* The numbers come from the empty-loop samples of the kind of moments
 * asked for (quiet, or on a shared core) when there are min_kind of them,
 * else from all. used, when not NULL, gets 1 for each empty-loop sample
 * they come from. */
int vn__empty_summary(const empties *E, int quiet, size_t min_kind, double thr, double efloor,
                      uint64_t iters, empty_stats *o, unsigned char *used)
{
    o->om = o->olo = o->ohi = 0;
    o->oc = o->spread = NAN;
    o->kind = 0;
    size_t n = E->ns.n;
    if (!n)
        return 0;
    size_t q = quiet_empties(E, thr, efloor), kind = quiet ? q : n - q;
    int all = kind == 0 || kind < min_kind;
    o->kind = kind;
    double *ns = malloc(n * sizeof *ns), *cyc = malloc(n * sizeof *cyc);
    if (!ns || !cyc) {
        free(ns), free(cyc);
        return VN_ENOMEM;
    }
    size_t m = 0, mc = 0;
    for (size_t i = 0; i < n; i++) {
        int use = all || empty_quiet(E, i, thr, efloor) == quiet;
        if (used)
            used[i] = (unsigned char)use;
        if (!use)
            continue;
        ns[m++] = E->ns.v[i];
        if (isfinite(E->cyc.v[i]))
            cyc[mc++] = E->cyc.v[i];
    }
    int rc = vn_median_ci(ns, m, &o->om, &o->olo, &o->ohi);
    if (rc == 0 && mc) {
        qsort(cyc, mc, sizeof *cyc, vn__cmp_double);
        o->oc = vn_percentile_sorted(cyc, mc, 50);
        /* The spread needs a few samples, long enough (1000 iterations)
         * for the loop, not the timer's own cost, to be what they measure. */
        if (mc >= EMPTY_FIRST && iters >= EMPTY_SELF_ITERS)
            o->spread = (vn_percentile_sorted(cyc, mc, 90) - vn_percentile_sorted(cyc, mc, 10)) /
                        o->oc;
    }
    free(ns), free(cyc);
    return rc;
}
