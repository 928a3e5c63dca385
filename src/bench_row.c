/* A row from start to end: calibration and warmup, samples with the empty
 * loop between them until the decision says stop, and its result. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_engine.h"


/* Starts a row: calibration, warmup and the first empty-loop samples. 0
 * with *state ROW_MORE, ROW_FAILED when the benchmark failed (its message
 * in j->run.error), or ROW_DONE when stopped (Ctrl-C) while warming up; a
 * negative code when memory ran out. */
int vn__row_begin(job *j, int *state)
{
    vn_result *res = j->res;
    struct rowrun *w = calloc(1, sizeof *w);
    if (!w)
        return VN_ENOMEM;
    j->w = w;
    w->empty_low = (low3)LOW3_NONE;
    j->resumed = vn__timer_read(&j->run);
    j->spent_ns = 0;
    *state = ROW_FAILED;
    double threshold, cap;
    int cal = vn__calibrate(j, &w->iters, &threshold, &cap);
    if (cal == 2) {
        /* Stopped while calibrating: the row ends with no samples. */
        res->stop = VN_STOP_INTERRUPTED;
        *state = ROW_DONE;
        return 0;
    }
    if (cal)
        return 0;
    res->iters = w->iters; /* a row stopped while warming up has its size too */

    /* Warmup: untimed samples until the warmup time has passed since the
     * row began (calibration counts: it ran the code too). */
    double fastest = INFINITY;
    while (vn__elapsed_ns(j) < j->cfg.warmup * 1e9) {
        double ns;
        unsigned tags;
        if (vn__stopping(j)) {
            /* Stopped while warming up: the row ends with no samples. */
            res->stop = VN_STOP_INTERRUPTED;
            *state = ROW_DONE;
            return 0;
        }
        if (vn__run_sample(j, j->b->fn, 1, w->iters, &ns, &tags))
            return 0;
        fastest = fmin(fastest, ns);
    }
    /* The fastest warmup sample must reach the threshold too, or the
     * samples are made longer. */
    /* The reference is sized and its reads' share measured now, when the
     * core has run this row's code for the warmup, not when the row was
     * made (before any row ran). */
    vn__ref_setup(&j->run, j->res_ns);
    /* As in calibration, the budget must still hold the minimum samples. */
    threshold = fmin(threshold, cap);
    while (!j->cfg.cold && !j->b->opts.iterations && fastest > 0 && fastest < threshold && w->iters < MAX_ITERS) {
        w->iters *= 2;
        fastest *= 2;
    }
    res->iters = w->iters;
    for (int k = 0; k < EMPTY_FIRST; k++) {
        int rc = vn__empty_sample(j, w->iters, &w->E);
        if (rc)
            return rc;
    }
    w->budget = j->cfg.max_time * 1e9;
    res->stop = VN_STOP_MAX_SAMPLES;
    *state = ROW_MORE;
    return 0;
}

/* The stop rule of a row: the decision (vn__decide) on its samples so far,
 * tagged afresh; w->waiting says whether it waits for quiet moments. *rc
 * an error that ends the run. */
static vn__verdict stop_test(job *j, int *rc)
{
    struct rowrun *w = j->w;
    samples *S = &w->S;
    double thr = vn__shared_threshold(j);
    vn__row_view rv;
    vn__decision d;
    vn__tag_shared(S->v, &w->A, thr);
    if ((*rc = vn__view_row(S->v, S->n, &w->E, &j->pol, thr, vn__row_empty_floor(j, w->iters),
                            w->iters, j->res_ns / (double)w->iters, &rv)) != 0)
        return VN__GO_ON;
    rv.elapsed_ns = vn__elapsed_ns(j);
    if ((*rc = vn__decide(&rv, &j->pol, &d)) != 0)
        return VN__GO_ON;
    w->waiting = d.waiting;
    return d.verdict;
}

/* One sample of a row (with the empty-loop samples due before it), then
 * the stop rule. *state stays ROW_MORE, or becomes ROW_DONE (res->stop
 * says why) or ROW_FAILED; a negative code when memory ran out. */
int vn__row_step(job *j, int *state)
{
    vn_result *res = j->res;
    struct vn__run *r = &j->run;
    struct rowrun *w = j->w;
    samples *S = &w->S;
    size_t k = w->k++;
    int rc;
    if (vn__stopping(j)) {
        res->stop = VN_STOP_INTERRUPTED;
        *state = ROW_DONE;
        return 0;
    }
    if (k % EMPTY_EVERY == EMPTY_EVERY - 1 && (rc = vn__empty_sample(j, w->iters, &w->E)) != 0)
        return rc;
    vn_sample s = {0};
    s.ref_ns = vn__ref_ns_per_cycle(r);
    s.branch_cycles = vn__probe_branch(j, s.ref_ns);
    double ns;
    if (vn__run_sample(j, j->b->fn, 1, w->iters, &ns, &s.tags)) {
        *state = ROW_FAILED;
        return 0;
    }
    /* The signal that stopped the run came during this sample, and may
     * have cut a sleep or a wait in it short (the handlers do not restart
     * them): it is not a measurement. */
    if (vn__stopping(j)) {
        res->stop = VN_STOP_INTERRUPTED;
        *state = ROW_DONE;
        return 0;
    }
    s.value = ns / (double)w->iters;
    s.cpu_ns = j->cpu_ns / (double)w->iters;
    s.iters = w->iters;
    s.counts_scaled = r->ctr ? r->cur_scaled : 0;
    /* Under half of it on the CPU: asleep or waiting (tag_probed). */
    double cpu_share = j->cpu_ns / ns;
    w->probed |= !(cpu_share < VN__ON_CPU_MIN) && isfinite(s.branch_cycles);
    if ((rc = vn__push_sample(S, s)) != 0 || (rc = vn__push_double(&w->A.after, NAN)) != 0 ||
        (rc = vn__push_double(&w->A.cpu_share, cpu_share)) != 0 ||
        (r->ctr && (rc = vn__push_counts(&w->counts, r)) != 0))
        return rc;
    /* The next probe, this row's or another's, is the one after it (a row
     * whose timer is too costly to probe leaves the one waiting as it is). */
    if (j->floors && isfinite(s.branch_cycles)) {
        j->floors->pend = &w->A;
        j->floors->pend_i = S->n - 1;
    }

    /* The stop test sorts the samples, so past 64 samples it runs only
     * every n/32 samples (a few percent of extra samples at most, and no
     * quadratic cost), but always at the most samples or the end of the
     * budget, where the decision is to stop: for precision, met at last,
     * or at the limit, and then the result says whether it was waiting for
     * quiet moments rather than for precision. */
    int enough = S->n >= j->cfg.min_samples;
    int limit = S->n >= j->cfg.max_samples || (enough && vn__elapsed_ns(j) >= w->budget);
    if (!limit && (!enough || (S->n >= 64 && S->n % (S->n / 32) != 0)))
        return 0;
    vn__verdict v = stop_test(j, &rc);
    if (v != VN__GO_ON) {
        res->stop = v == VN__STOP_PRECISE ? VN_STOP_PRECISION
                  : v == VN__STOP_MAX_SAMPLES ? VN_STOP_MAX_SAMPLES : VN_STOP_MAX_TIME;
        res->waited = v != VN__STOP_PRECISE && w->waiting;
        *state = ROW_DONE;
    }
    return rc;
}

/* Ends a row: its result from the samples (ROW_DONE), or what it had when
 * the benchmark failed (ROW_FAILED); then frees the row's state, also when
 * rc, an error that ends the whole run, is passed in (and returned). */
int vn__row_end(job *j, int state, int rc)
{
    vn_result *res = j->res;
    struct rowrun *w = j->w;
    unsigned char *empty_used = NULL;
    if (!w)
        return rc;
    struct vn__run *r = &j->run;
    samples *S = &w->S;
    if (rc)
        goto out;
    if (state == ROW_FAILED) {
        res->stop = r->skipped ? VN_STOP_SKIPPED : VN_STOP_FAILED;
        snprintf(res->error, sizeof res->error, "%s", r->error);
        res->samples = S->v;
        res->nsamples = S->n;
        S->v = NULL;
        /* Which samples the headline would have left out. */
        vn__row_view rv = {.v = res->samples, .n = res->nsamples};
        if ((rc = vn__decide(&rv, &j->pol, &j->dec)) != 0)
            goto out;
        res->left_out = j->dec.skip;
        /* The samples before the failure keep their counts. */
        if (r->ctr) {
            vn__bench_counters_finish(res, r->ctr, w->counts.v, w->E.counts.v,
                                      w->E.counts.n / vn_counters_n(r->ctr), NULL);
            w->counts.v = NULL;
        }
        goto out;
    }
    /* The probe after the last sample, so it is judged on both sides too.
     * It can retag the last samples after the stop was decided on them;
     * the headline then rests on what is known at the end, a sample or two
     * different from what the stop rule saw. */
    vn__probe_branch(j, vn__ref_ns_per_cycle(r));
    vn__tag_shared(S->v, &w->A, vn__shared_threshold(j));
    res->samples = S->v;
    res->nsamples = S->n;
    S->v = NULL;
    vn__throughput_of(j, res);
    res->on_cpu = vn__median_of(w->A.cpu_share.v, w->A.cpu_share.n);
    empty_used = calloc(w->E.ns.n ? w->E.ns.n : 1, 1);
    if (!empty_used) {
        rc = VN_ENOMEM;
        goto out;
    }
    rc = vn__summarize(res, &w->E, &j->pol, j->res_ns / (double)res->iters, vn__shared_threshold(j),
                   vn__row_empty_floor(j, w->iters), empty_used, &j->dec);
    /* The counters net of the same empty-loop samples as the time. */
    if (rc == 0 && r->ctr) {
        rc = vn__bench_counters_finish(res, r->ctr, w->counts.v, w->E.counts.v,
                                       w->E.counts.n / vn_counters_n(r->ctr), empty_used);
        w->counts.v = NULL;
    }
out:
    /* No probe may write into this row's arrays once they are gone. */
    if (j->floors && j->floors->pend == &w->A)
        j->floors->pend = NULL;
    free(S->v);
    vn__auxes_free(&w->A);
    free(w->counts.v);
    free(empty_used);
    vn__empties_free(&w->E);
    free(w);
    j->w = NULL;
    res->elapsed = vn__elapsed_ns(j) / 1e9;
    return rc;
}

/* Measures one row single-threaded, from start to end. Returns 0 (the
 * result says whether the benchmark failed), or a negative code when
 * vernier itself failed. */
int vn__measure(job *j)
{
    int state;
    int rc = vn__row_begin(j, &state);
    while (rc == 0 && state == ROW_MORE)
        rc = vn__row_step(j, &state);
    return vn__row_end(j, state, rc);
}

