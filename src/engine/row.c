/* A row from start to end: calibration and warmup, samples with the empty
 * loop between them until the decision says stop, and its result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "stats/internal.h"


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
    double threshold = 0, cap = INFINITY;
    /* A worker after the first process has the iterations the first one
     * calibrated: the same size of sample in every process. */
    int cal = j->fixed_iters ? (w->iters = j->fixed_iters, 0)
                             : vn__calibrate(j, &w->iters, &threshold, &cap);
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
     * row began (calibration counts: it ran the code too). A worker after
     * the first process runs one (policy settle: more): the first process
     * warmed the machine up (its clock, the caches of the program's
     * files). The fastest warmup sample must reach the threshold too, or
     * the samples are made longer, as soon as one falls short: a count
     * calibrated while the caches were cold is often half of what a warm
     * body needs. The warmup then goes on at the new count, and ends with
     * at least WARM_AT_SIZE samples of it: a longer sample reaches what a
     * shorter one did not (a walk through more of a table, here the second
     * half of 262,144 places), which a few milliseconds without it leave
     * cold, and the first samples at a count the warmup never ran read
     * 10-40% slow (bench/RESULTS.md, 2026-11-30). */
    threshold = fmin(threshold, cap); /* as in calibration: the budget must hold the minimum samples */
    int grows = !j->cfg.cold && !j->b->opts.iterations;
    double fastest = INFINITY;
    int warm = 0, at_size = WARM_AT_SIZE;
    /* A later worker goes on until two warmup samples in a row agree
     * (policy settle), for at most settle times the warmup: a body whose
     * buffers its setup just filled runs from the caches at first, and
     * the few samples a later process takes would read that transient,
     * not the settled speed. */
    int settling = j->fixed_iters && j->pol.settle > 0 && j->settle_tol > 0;
    double settle_ns = settling ? j->pol.settle * j->cfg.warmup * 1e9 : 0, last = NAN;
    int settled = !settling;
    while (vn__elapsed_ns(j) < (j->fixed_iters ? 0 : j->cfg.warmup * 1e9) || (j->fixed_iters && !warm) ||
           (!settled && vn__elapsed_ns(j) < settle_ns) || at_size < WARM_AT_SIZE) {
        warm = 1;
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
        at_size++;
        /* A sample preempted or moved says nothing of the body's speed. */
        settled = settled || (!tags && last > 0 && fabs(ns / last - 1) <= j->settle_tol);
        last = tags ? NAN : ns;
        uint64_t before = w->iters;
        while (grows && fastest > 0 && fastest < threshold && w->iters < MAX_ITERS) {
            w->iters *= 2;
            fastest *= 2;
        }
        if (w->iters != before) {
            at_size = 0;
            last = NAN;
        }
    }
    /* The reference is sized and its reads' share measured now, when the
     * core has run this row's code for the warmup, not when the row was
     * made (before any row ran). */
    vn__ref_setup(&j->run, j->res_ns);
    res->iters = w->iters;
    /* A worker after the first process takes fewer: each process has its
     * own empty loop, and the one in eight later ones add to it. */
    for (int k = 0; k < (j->fixed_iters ? EMPTY_FIRST_LATER : EMPTY_FIRST); k++) {
        int rc = vn__empty_sample(j, w->iters, &w->E);
        if (rc)
            return rc;
    }
    w->setup_ns = vn__elapsed_ns(j);
    w->budget = j->pol.budget_ns;
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
    rv.streak = w->streak;
    if ((*rc = vn__decide(&rv, &j->pol, &d)) != 0)
        return VN__GO_ON;
    w->waiting = d.waiting;
    w->streak = d.precise ? w->streak + 1 : 0;
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
    w->probed |= vn__on_cpu(cpu_share) && isfinite(s.branch_cycles);
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
    int enough = S->n >= j->pol.min_samples;
    int limit = S->n >= j->pol.max_samples || (enough && vn__elapsed_ns(j) >= w->budget);
    if (!limit && (!enough || (S->n >= 64 && S->n % (S->n / 32) != 0)))
        return 0;
    vn__verdict v = stop_test(j, &rc);
    if (v != VN__GO_ON) {
        res->stop = vn__stop_of(v);
        res->waited = v != VN__STOP_PRECISE && w->waiting;
        *state = ROW_DONE;
    }
    return rc;
}

int vn__part_of(job *j, int state, vn__part *q)
{
    struct rowrun *w = j->w;
    struct vn__run *r = &j->run;
    memset(q, 0, sizeof *q);
    q->state = state;
    q->stop = j->res->stop;
    q->skipped = r->skipped;
    if (state == ROW_FAILED) {
        q->stop = r->skipped ? VN_STOP_SKIPPED : VN_STOP_FAILED;
        snprintf(q->error, sizeof q->error, "%s", r->error);
    }
    q->iters = w->iters;
    q->thr = vn__shared_threshold(j);
    q->efloor = vn__row_empty_floor(j, w->iters);
    q->floor_ns = w->iters ? j->res_ns / (double)w->iters : NAN;
    q->elapsed_ns = vn__elapsed_ns(j);
    q->setup_ns = w->setup_ns;
    q->bytes = r->bytes;
    q->items = r->items;
    q->timer_capped = j->timer_capped;
    q->waited = j->res->waited;
    /* The arrays move to the part. */
    q->S = w->S;
    q->cpu_share = w->A.cpu_share;
    q->counts = w->counts;
    q->E = w->E;
    memset(&w->S, 0, sizeof w->S);
    memset(&w->A.cpu_share, 0, sizeof w->A.cpu_share);
    memset(&w->counts, 0, sizeof w->counts);
    memset(&w->E, 0, sizeof w->E);
    return 0;
}

/* Adds part q to the row's parts (taking it over). */
static int add_part(job *j, vn__part *q)
{
    if (j->nparts == j->capparts) {
        size_t cap = j->capparts ? 2 * j->capparts : 4;
        vn__part *p = realloc(j->parts, cap * sizeof *p);
        if (!p)
            return VN_ENOMEM;
        j->parts = p;
        j->capparts = cap;
    }
    j->parts[j->nparts++] = *q;
    return 0;
}

/* Ends a row in this process: its part from the samples (ROW_DONE), or
 * what it had when the benchmark failed (ROW_FAILED); a worker keeps it
 * to send, a row measured here alone makes its result from it. Then frees
 * the row's state, also when rc, an error that ends the whole run, is
 * passed in (and returned). The decision the stop test took is final:
 * nothing is tagged again after it. */
int vn__row_end(job *j, int state, int rc)
{
    vn_result *res = j->res;
    struct rowrun *w = j->w;
    if (!w)
        return rc;
    vn__part q;
    if (rc == 0) {
        vn__part_of(j, state, &q);
        q.process = (int)j->nparts;
        if ((rc = add_part(j, &q)) != 0)
            vn__part_free(&q);
    }
    if (rc == 0 && !j->worker) {
        if (state == ROW_FAILED) {
            res->stop = q.stop;
            snprintf(res->error, sizeof res->error, "%s", q.error);
        }
        vn__throughput_of(j, res);
        res->on_cpu = vn__median_of(j->parts[0].cpu_share.v, j->parts[0].cpu_share.n);
        j->rstate.spent_ns = q.elapsed_ns;
        j->rstate.samples = q.S.n;
        j->rstate.streak = w->streak ? w->streak - 1 : 0;
        rc = vn__summarize(res, j->parts, j->nparts, &j->pol, &j->rstate, j->run.ctr, j->nctr,
                           &j->dec, &j->rdec);
    }
    /* No probe may write into this row's arrays once they are gone. */
    if (j->floors && j->floors->pend == &w->A)
        j->floors->pend = NULL;
    free(w->S.v);
    vn__auxes_free(&w->A);
    free(w->counts.v);
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

