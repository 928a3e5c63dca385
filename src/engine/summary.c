/* A row's numbers from its parts (its samples from each process) and the
 * one decision on them (no clocks, no I/O). */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "stats/internal.h"
#include "stats/levels.h"

void vn__part_free(vn__part *q)
{
    if (!q)
        return;
    free(q->S.v);
    free(q->cpu_share.v);
    free(q->counts.v);
    vn__empties_free(&q->E);
    memset(q, 0, sizeof *q);
}

/* The view of a row the decision takes: its samples, and the empty loop's
 * numbers from each kind of moments. 0, or VN_ENOMEM. */
int vn__view_row(const vn_sample *v, size_t n, const empties *E, const vn__policy *pol, double thr,
                 double efloor, uint64_t iters, double floor_ns, vn__row_view *rv)
{
    *rv = (vn__row_view){.v = v, .n = n, .floor_ns = floor_ns, .on_cpu = NAN};
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

/* The view of part q. */
static int part_view(const vn__part *q, const vn__policy *pol, vn__row_view *rv)
{
    int rc = vn__view_row(q->S.v, q->S.n, &q->E, pol, q->thr, q->efloor, q->iters, q->floor_ns, rv);
    rv->on_cpu = vn__median_of(q->cpu_share.v, q->cpu_share.n);
    return rc;
}

int vn__decide_parts(const vn__part *parts, size_t k, const vn__policy *pol, const vn__row_state *st,
                     vn__decision *proc, vn__row_decision *row)
{
    /* Which tags leave the headline is decided once, over every sample of
     * the row: the headline rests on the same kinds of samples in every
     * process. */
    size_t n = 0;
    int probed = 0;
    for (size_t i = 0; i < k; i++)
        n += parts[i].S.n;
    vn_sample *all = malloc((n ? n : 1) * sizeof *all);
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!all || !x) {
        free(all), free(x);
        return VN_ENOMEM;
    }
    n = 0;
    for (size_t i = 0; i < k; i++) {
        if (parts[i].S.n)
            memcpy(all + n, parts[i].S.v, parts[i].S.n * sizeof *all);
        n += parts[i].S.n;
        for (size_t s = 0; s < parts[i].S.n; s++)
            probed |= isfinite(parts[i].S.v[s].branch_cycles);
    }
    vn__row_view pooled = {.v = all, .n = n, .probed = probed};
    int waiting;
    unsigned skip = vn__left_out(&pooled, pol, x, &waiting);
    free(all), free(x);
    int rc = 0;
    for (size_t i = 0; i < k && rc == 0; i++) {
        vn__row_view rv;
        if ((rc = part_view(&parts[i], pol, &rv)) != 0)
            break;
        rv.skip_given = 1;
        rv.skip = skip;
        rv.elapsed_ns = parts[i].elapsed_ns;
        rv.streak = k == 1 ? st->streak : 0;
        rc = vn__decide(&rv, pol, &proc[i]);
    }
    if (rc == 0)
        vn__ref_off(proc, k, st->ref_mid, pol);
    return rc ? rc : vn__decide_row(proc, k, pol, st, row);
}

/* The empty loop of each process, of the kind of moments its decision
 * took; used[], when not NULL, marks the empty-loop samples it comes from,
 * the parts' empty loops one after another. */
static int empties_of(const vn__part *parts, size_t k, const vn__policy *pol,
                      const vn__decision *proc, empty_stats *es, unsigned char *used)
{
    size_t at = 0;
    for (size_t i = 0; i < k; i++) {
        const vn__part *q = &parts[i];
        int rc = vn__empty_summary(&q->E, proc[i].quiet, pol->empty_matched, q->thr, q->efloor,
                                   q->iters, &es[i], used ? used + at : NULL);
        if (rc)
            return rc;
        /* No empty-loop sample (the run stopped before one, or every one
         * was preempted): the overhead is unknown, not 0, though nothing
         * is subtracted. */
        if (!q->E.ns.n)
            es[i].om = es[i].olo = es[i].ohi = NAN;
        at += q->E.ns.n;
    }
    return 0;
}

/* The parts' samples one after another into the result, each with its
 * process and block, their counts with them; the parts' arrays are freed. */
static int gather(vn_result *res, vn__part *parts, size_t k, size_t nctr)
{
    size_t n = 0;
    for (size_t i = 0; i < k; i++)
        n += parts[i].S.n;
    res->samples = malloc((n ? n : 1) * sizeof *res->samples);
    res->sample_counts = nctr ? malloc((n ? n : 1) * nctr * sizeof *res->sample_counts) : NULL;
    if (!res->samples || (nctr && !res->sample_counts))
        return VN_ENOMEM;
    size_t at = 0;
    for (size_t i = 0; i < k; i++) {
        const vn__part *q = &parts[i];
        for (size_t s = 0; s < q->S.n; s++) {
            vn_sample x = q->S.v[s];
            x.process = (int)i; /* the processes a row ran in are the first k */
            x.block = 2 * s >= q->S.n;
            x.counts = NULL;
            res->samples[at + s] = x;
        }
        if (nctr && q->counts.n == q->S.n * nctr)
            memcpy(res->sample_counts + at * nctr, q->counts.v, q->counts.n * sizeof(double));
        else if (nctr)
            for (size_t c = 0; c < q->S.n * nctr; c++)
                res->sample_counts[at * nctr + c] = NAN;
        at += q->S.n;
    }
    res->nsamples = n;
    return 0;
}

/* The counters net of the empty-loop samples the time used, over every
 * process: the parts' empty-loop counts one after another. */
static int counters_of(vn_result *res, const vn__part *parts, size_t k, const vn_counters *c,
                       size_t nctr, const unsigned char *used)
{
    size_t ne = 0;
    for (size_t i = 0; i < k; i++)
        ne += parts[i].E.ns.n;
    double *empty = malloc((ne ? ne : 1) * nctr * sizeof *empty);
    if (!empty)
        return VN_ENOMEM;
    size_t at = 0;
    for (size_t i = 0; i < k; i++) {
        const vn__part *q = &parts[i];
        for (size_t e = 0; e < q->E.ns.n * nctr; e++)
            empty[at * nctr + e] = q->E.counts.n == q->E.ns.n * nctr ? q->E.counts.v[e] : NAN;
        at += q->E.ns.n;
    }
    double *counts = res->sample_counts;
    res->sample_counts = NULL;
    int rc = vn__bench_counters_finish(res, c, counts, empty, ne, used);
    free(empty);
    return rc;
}

/* The pooled numbers of the result: the statistics of the headline's
 * samples, each net of its own process's empty loop (for a bound, of the
 * loop with the body), the reference, the CPU time. */
static int pooled(vn_result *res, const vn__row_decision *rd, const empty_stats *es)
{
    size_t n = res->nsamples;
    double *net = malloc((n ? n : 1) * sizeof *net), *ref = malloc((n ? n : 1) * sizeof *ref);
    double *cpu = malloc((n ? n : 1) * sizeof *cpu);
    if (!net || !ref || !cpu) {
        free(net), free(ref), free(cpu);
        return VN_ENOMEM;
    }
    size_t m = 0, nr = 0, nc = 0;
    for (size_t i = 0; i < n; i++) {
        const vn_sample *s = &res->samples[i];
        double om = rd->bound || !isfinite(es[s->process].om) ? 0 : es[s->process].om;
        if (isfinite(s->ref_ns) && s->ref_ns > 0)
            ref[nr++] = s->ref_ns;
        if (s->tags & res->left_out)
            continue;
        net[m++] = s->value - om;
        if (isfinite(s->cpu_ns))
            cpu[nc++] = s->cpu_ns - om;
    }
    memset(&res->stats, 0, sizeof res->stats);
    int rc = m ? vn_stats_compute(net, m, &res->stats) : 0;
    res->ref_ns = res->ref_spread = res->cpu_ns = NAN;
    if (nr) {
        qsort(ref, nr, sizeof *ref, vn__cmp_double);
        res->ref_ns = vn_percentile_sorted(ref, nr, 50);
        res->ref_spread = (vn_percentile_sorted(ref, nr, 90) - vn_percentile_sorted(ref, nr, 10)) /
                          res->ref_ns;
    }
    if (nc) {
        qsort(cpu, nc, sizeof *cpu, vn__cmp_double);
        res->cpu_ns = vn_percentile_sorted(cpu, nc, 50);
    }
    free(net), free(ref), free(cpu);
    return rc;
}

/* The empty loop over the processes: with one, its own numbers; with
 * several, the mean of their medians with its interval across them. */
static void overhead_of(vn_result *res, const empty_stats *es, size_t k)
{
    double *om = malloc(k * sizeof *om);
    size_t m = 0;
    double oc = 0, spread = NAN;
    size_t noc = 0;
    for (size_t i = 0; om && i < k; i++) {
        if (isfinite(es[i].om))
            om[m++] = es[i].om;
        if (isfinite(es[i].oc))
            oc += es[i].oc, noc++;
        if (isfinite(es[i].spread))
            spread = isfinite(spread) ? fmax(spread, es[i].spread) : es[i].spread;
    }
    res->overhead_ns = res->overhead_ci[0] = res->overhead_ci[1] = NAN;
    if (k == 1) {
        res->overhead_ns = es[0].om;
        res->overhead_ci[0] = es[0].olo;
        res->overhead_ci[1] = es[0].ohi;
    } else if (m) {
        vn__levels l;
        if (vn__levels_compute(om, NULL, m, &l) == 0) {
            res->overhead_ns = l.mean;
            res->overhead_ci[0] = isnan(l.lo) ? l.mean : l.lo;
            res->overhead_ci[1] = isnan(l.hi) ? l.mean : l.hi;
        }
    }
    res->overhead_cycles = noc ? oc / (double)noc : NAN;
    res->overhead_cycles_spread = spread;
    free(om);
}

/* The processes' own numbers, for the result. */
static int processes_of(vn_result *res, const vn__part *parts, size_t k, const vn__decision *proc,
                        const empty_stats *es, double limit, const vn__row_decision *rd)
{
    res->processes = calloc(k, sizeof *res->processes);
    if (!res->processes)
        return VN_ENOMEM;
    res->nprocesses = k;
    for (size_t i = 0; i < k; i++) {
        vn_process_result *p = &res->processes[i];
        p->value = proc[i].value;
        p->cycles = proc[i].cycles;
        p->overhead_ns = es[i].om;
        p->samples = parts[i].S.n;
        p->used = proc[i].used;
        p->run_process = parts[i].run_process;
        p->elapsed = parts[i].elapsed_ns / 1e9;
        p->upper_bound = proc[i].head == VN__HEAD_FASTEST;
        p->probe = proc[i].probe;
        p->shared = proc[i].probe > limit;
        p->ref_off = proc[i].ref_off;
        p->left_out = proc[i].head == VN__HEAD_NONE || p->ref_off ||
                      (rd->shared && p->shared != rd->on_shared);
    }
    return 0;
}

/* The interval printed is a promise about the next run's headline. A run
 * whose processes met both core states (some on a core of their own, some
 * sharing it with another hardware thread) rests its headline on one state,
 * but its next run may meet the other throughout and rest its headline
 * there: the promise reaches the headline's quantile of the processes left
 * out for their state, in ns and in cycles (in cycles their ns at the
 * clock's rate where the row's cycles were moved to it, vn__at_clock).
 * A headline on a core of its own reaches a shared state only within the
 * ratio within (over 0): a state farther off is one the next run rests on
 * only when shared throughout, and the row names it (other_state) rather
 * than promise it. The estimate's own interval (est_ci) stays that of the
 * state the headline rests on (docs/engine.md, step 18). */
int vn__left_for_state(const vn_result *res, const vn_process_result *p)
{
    return p->left_out && !p->upper_bound && !p->ref_off && p->shared != res->on_shared;
}

/* The value at quantile q of x[0..m), sorted in place; NAN for none. */
static double at_quantile(double *x, size_t m, double q)
{
    if (!m)
        return NAN;
    qsort(x, m, sizeof *x, vn__cmp_double);
    return vn_percentile_sorted(x, m, 100 * q);
}

static void reach_to(double ci[2], double at)
{
    if (isfinite(at) && ci[0] <= ci[1]) {
        ci[0] = fmin(ci[0], at);
        ci[1] = fmax(ci[1], at);
    }
}

void vn__reach(double ci[2], double *x, size_t m, double q)
{
    reach_to(ci, at_quantile(x, m, q));
}

int vn__reach_other_state(vn_result *res, double q, double rate, double within)
{
    size_t k = res->nprocesses, m = 0, mc = 0;
    res->other_state = NAN;
    res->other_reached = 0;
    double *v = malloc(2 * (k ? k : 1) * sizeof *v);
    if (!v)
        return VN_ENOMEM;
    double *c = v + k;
    for (size_t i = 0; i < k; i++) {
        /* Left out for its state; one left out with no value of its own
         * has NAN for it, and an upper bound is no value to reach. */
        const vn_process_result *p = &res->processes[i];
        if (!vn__left_for_state(res, p))
            continue;
        if (isfinite(p->value) && p->value > 0)
            v[m++] = p->value;
        double cyc = isfinite(rate) ? p->value * rate : p->cycles;
        if (isfinite(cyc) && cyc > 0)
            c[mc++] = cyc;
    }
    double at = at_quantile(v, m, q), atc = at_quantile(c, mc, q);
    /* In the headline's unit; in ns where the processes left out have no
     * cycles. */
    double r = res->cycles_headline && isfinite(atc) ? atc / res->cycles : at / res->stats.median;
    int known = isfinite(r) && r > 0;
    res->other_state = known ? r : NAN;
    int reach = res->on_shared || !(within > 0) || (known && fmax(r, 1 / r) <= within);
    res->other_reached = known && reach;
    if (reach) {
        reach_to(res->stats.median_ci, at);
        reach_to(res->cycles_ci, atc);
    }
    free(v);
    return 0;
}

int vn__summarize(vn_result *res, vn__part *parts, size_t k, const vn__policy *pol,
                  const vn__row_state *st, const vn_counters *c, size_t nctr, vn__decision *d,
                  vn__row_decision *rd)
{
    vn__decision *proc = calloc(k ? k : 1, sizeof *proc);
    empty_stats *es = calloc(k ? k : 1, sizeof *es);
    size_t ne = 0;
    for (size_t i = 0; i < k; i++)
        ne += parts[i].E.ns.n;
    unsigned char *used = calloc(ne ? ne : 1, 1);
    int rc = proc && es && used ? 0 : VN_ENOMEM;
    if (rc == 0)
        rc = vn__decide_parts(parts, k, pol, st, proc, rd);
    if (rc == 0)
        rc = empties_of(parts, k, pol, proc, es, used);
    if (rc == 0)
        rc = gather(res, parts, k, nctr);
    if (rc)
        goto out;
    *d = proc[0];
    res->left_out = proc[0].skip;
    res->headline_samples = rd->used;
    res->upper_bound = rd->bound;
    res->bound_ns = rd->bound ? rd->bound_value : NAN;
    res->ntagged = res->nshared = 0;
    for (size_t i = 0; i < res->nsamples; i++) {
        res->ntagged += res->samples[i].tags != 0;
        res->nshared += (res->samples[i].tags & VN_TAG_SHARED_CORE) != 0;
    }
    overhead_of(res, es, k);
    if ((rc = pooled(res, rd, es)) != 0)
        goto out;
    /* The headline: the decision's, which the statistics' median and its
     * interval then carry, so that every report shows the same number. */
    res->est_ci[0] = res->est_ci[1] = NAN;
    if (!rd->bound && res->stats.n) {
        res->stats.median = rd->ns.value;
        vn__levels_intervals(rd->ns.value, rd->ns.lo, rd->ns.hi, res->est_ci, res->stats.median_ci);
    }
    res->cycles = rd->bound ? rd->bound_cycles : rd->cycles.value;
    vn__levels_intervals(res->cycles, rd->bound ? NAN : rd->cycles.lo, rd->bound ? NAN : rd->cycles.hi,
                         res->cycles_est_ci, res->cycles_ci);
    res->cycles_headline = rd->cycles_headline && !rd->bound;
    res->clock_moved = rd->clock_moved && !rd->bound;
    res->share_processes = rd->share_processes;
    res->share_blocks = rd->share_blocks;
    res->share_samples = rd->share_samples;
    res->processes_disagree = rd->disagree;
    res->head_quantile = k < 2 ? NAN : vn__policy_quantile(pol);
    res->serial = rd->serial;
    double per = res->upper_bound || !res->stats.n ? NAN : res->stats.median * 1e-9;
    res->bytes_per_sec = res->bytes_per_iter > 0 ? res->bytes_per_iter / per : NAN;
    res->items_per_sec = res->items_per_iter > 0 ? res->items_per_iter / per : NAN;
    double limit = k > 1 && isfinite(st->probe_limit) ? st->probe_limit : INFINITY;
    if ((rc = processes_of(res, parts, k, proc, es, limit, rd)) != 0)
        goto out;
    res->processes_left_out = rd->shared;
    res->processes_ref_off = rd->ref_off;
    res->on_shared = rd->on_shared;
    res->states_alike = rd->alike;
    res->other_state = NAN;
    res->other_reached = 0;
    if (rd->shared && !rd->bound && res->stats.n &&
        (rc = vn__reach_other_state(res, vn__policy_quantile(pol), rd->clock_rate,
                                    pol->reach_within)) != 0)
        goto out;
    if (c && nctr)
        rc = counters_of(res, parts, k, c, nctr, used);
    /* A row that failed keeps its samples, and says nothing of them. */
    for (size_t i = 0; i < k && rc == 0; i++)
        if (parts[i].state == ROW_FAILED) {
            memset(&res->stats, 0, sizeof res->stats);
            res->upper_bound = 0;
            res->bound_ns = res->cycles = res->cycles_ci[0] = res->cycles_ci[1] = NAN;
            res->est_ci[0] = res->est_ci[1] = res->cycles_est_ci[0] = res->cycles_est_ci[1] = NAN;
            res->cycles_headline = res->clock_moved = res->other_reached = 0;
            res->other_state = NAN;
            break;
        }
out:
    for (size_t i = 0; i < k; i++)
        vn__part_free(&parts[i]);
    free(proc), free(es), free(used);
    return rc;
}

/* Bytes and items per iteration: what the function set on its state, else
 * what the options said; NAN (null in JSON) when neither said any. */
void vn__throughput_of(const job *j, vn_result *res)
{
    double bytes = j->run.bytes, items = j->run.items;
    for (size_t i = 0; i < j->nparts; i++) {
        if (j->parts[i].bytes >= 0)
            bytes = j->parts[i].bytes;
        if (j->parts[i].items >= 0)
            items = j->parts[i].items;
    }
    res->bytes_per_iter = bytes >= 0 ? bytes : j->b->opts.bytes_per_iter;
    res->items_per_iter = items >= 0 ? items : j->b->opts.items_per_iter;
    if (!(res->bytes_per_iter > 0))
        res->bytes_per_iter = NAN;
    if (!(res->items_per_iter > 0))
        res->items_per_iter = NAN;
}
