/* What a row asks of its next process: how many samples, and what share
 * of its remaining budget (engine/plan.h). Pure. */
#include <math.h>
#include <string.h>

#include "plan.h"
#include "stats/levels.h"

/* What a later process costs before its first sample, from the last one,
 * and per sample over all. The first process calibrated and warmed up for
 * the whole warmup, which no later one does: after it alone, a later
 * one's is taken as two samples' time (its one warmup sample, a few of
 * its empty loop's, no longer than the body's, and the reference's
 * sizing, some microseconds), at most the first's. Taken
 * from the first, the second process of a chain took 10 samples where 5
 * would do. */
static void costs(const vn__part *parts, size_t k, double *fixed, double *per)
{
    double sampling = 0, n = 0;
    for (size_t i = 0; i < k; i++) {
        sampling += parts[i].elapsed_ns - parts[i].setup_ns;
        n += (double)parts[i].S.n;
    }
    *per = n > 0 ? sampling / n : NAN;
    *fixed = k ? parts[k - 1].setup_ns : 0;
    if (k == 1 && isfinite(*per))
        *fixed = fmin(*fixed, 2 * *per);
}

double vn__plan_least_ns(const vn__part *parts, size_t k, const vn__policy *p)
{
    double fixed, per;
    costs(parts, k, &fixed, &per);
    return isfinite(per) ? fixed + (double)p->process_samples * per : fixed;
}

void vn__plan_next(const vn__part *parts, size_t k, const vn__decision *proc,
                   const vn__row_decision *rd, const vn__policy *p, const vn__row_state *st,
                   vn__plan *out)
{
    double left = p->budget_ns - st->spent_ns;
    size_t most = p->max_samples > st->samples ? p->max_samples - st->samples : 1;
    out->samples = most;
    out->share_ns = left;
    /* A count asked for: what is left of the budget split evenly over the
     * processes to go, each taking the samples the split below asks for,
     * not all its share allows. */
    int counted = p->min_processes == p->max_processes;
    size_t counted_to_go = p->max_processes > k ? p->max_processes - k : 1;
    /* The first process takes half the fewest samples of a run (the later
     * ones bring the rest): enough for its own median and spread, and the
     * time that buys goes to the processes after it. */
    size_t first = p->min_samples / 2 > p->process_samples ? p->min_samples / 2 : p->process_samples;
    first = first < most ? first : most;
    if (counted && k == 0) {
        out->samples = first;
        out->share_ns = left / (double)counted_to_go;
        return;
    }
    if (k == 0) {
        /* The first process in at most a quarter of the budget, so that
         * the first two leave half of it to what they show is needed. */
        out->samples = first;
        out->share_ns = p->budget_ns / 4;
        return;
    }
    double fixed, per, within = 0;
    costs(parts, k, &fixed, &per);
    size_t nw = 0;
    for (size_t i = 0; i < k; i++) {
        if (isfinite(proc[i].var) && proc[i].used) {
            double scale = rd->cycles_headline && proc[i].value != 0 ? proc[i].cycles / proc[i].value : 1;
            within += proc[i].var * scale * scale * (double)proc[i].used;
            nw++;
        }
    }
    within = nw ? within / (double)nw : NAN;
    /* Between processes, from the spread of their values beyond what their
     * samples explain; with few processes that estimate is itself rough, so
     * it is drawn toward the middle ground that neither rules out, as much
     * variation between processes as one process's median has from its own
     * samples, weighted as one more process would be. A rough zero would
     * otherwise send all that is left of the budget to one process. */
    size_t last = parts[k - 1].S.n ? parts[k - 1].S.n : 1, most_yet = 0;
    for (size_t i = 0; i < k; i++)
        most_yet = parts[i].S.n > most_yet ? parts[i].S.n : most_yet;
    double prior = within / (double)last;
    double between = prior;
    if (k >= 2 && isfinite(rd->sd_processes) && isfinite(rd->within))
        between = ((double)(k - 1) * fmax(0, rd->sd_processes * rd->sd_processes - rd->within) + prior) /
                  (double)k;
    /* A process takes at most twice the samples any before it took: the
     * split moves toward the best one step at a time. */
    size_t cap = 2 * (most_yet ? most_yet : 1);
    size_t r = vn__levels_samples(fixed, per, within, between, p->process_samples,
                                  cap < most ? cap : most);
    /* The fewest samples asked for come first, whatever the split. */
    if (st->samples < p->min_samples && p->min_samples - st->samples > r)
        r = p->min_samples - st->samples < most ? p->min_samples - st->samples : most;
    out->samples = r;
    /* The processes the precision needs at r samples each, and this one's
     * share of what is left among them. */
    const vn__unit_view *h = rd->cycles_headline ? &rd->cycles : &rd->ns;
    double var = between + (isfinite(within) ? within / (double)r : 0);
    /* The headline is a quantile of the processes (their median, or a
     * low one), dearer than their mean. */
    if (!p->head_mean)
        var *= vn__levels_quantile_var(vn__policy_quantile(p));
    size_t need = vn__levels_needed(var, p->precision * fabs(h->value), k + 1, p->max_processes);
    size_t to_go = counted ? counted_to_go : need > k ? need - k : 1;
    double share = left / (double)to_go;
    double least = isfinite(per) ? fixed + (double)r * per : share;
    out->share_ns = st->samples < p->min_samples ? fmax(share, least) : fmin(left, fmax(share, least));
}

void vn__plan_together(job **jobs, size_t n)
{
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < n; i++) {
            const char *base = jobs[i]->res->baseline;
            for (size_t b = 0; base[0] && b < n; b++) {
                if (b == i || strcmp(jobs[b]->res->name, base))
                    continue;
                for (int side = 0; side < 2; side++) {
                    job *x = side ? jobs[b] : jobs[i], *y = side ? jobs[i] : jobs[b];
                    if (x->done && !y->done &&
                        (x->res->stop == VN_STOP_PRECISION ||
                         x->res->stop == VN_STOP_PROCESSES_VARY)) {
                        x->done = 0;
                        again = 1;
                    }
                }
            }
        }
    }
}

/* The row's processes all came in the first half of the run's time, or
 * of its processes (the first, which warms every row up, may take most of
 * the time of a short run). */
static int early(const job *j, uint64_t t0, uint64_t now, size_t processes)
{
    const vn__part *last = &j->parts[j->nparts - 1];
    int in_time = last->end_ns >= t0 && 2 * (last->end_ns - t0) < now - t0;
    return in_time || 2 * (last->run_process + 1) < processes;
}

/* The processes of a row that reached its precision early all ran within
 * a stretch of the run, and agree in the state the machine had then (its
 * clock, its neighbours, a core shared or not); the rows that went on met
 * later ones. A next run meets yet another, and the row's interval promises
 * where its headline falls. One more process at the end shows whether the
 * row still reads as it did: if so the interval holds, if not it widens
 * and the row goes on as its decision says. A count given (--processes N)
 * already spans the run. An upper bound (a body no slower than the empty
 * loop) promises only that no run reads it slower, and another process
 * would only look for a lower floor. A run looks once: the rows taken up
 * end it, and rows early against that later end do not come back. */
size_t vn__plan_late(job **jobs, size_t n, uint64_t t0, uint64_t now, size_t processes)
{
    for (size_t i = 0; i < n; i++)
        if (jobs[i]->looked_late)
            return 0;
    size_t back = 0;
    for (size_t i = 0; i < n; i++) {
        job *j = jobs[i];
        const vn__policy *p = &j->pol;
        if (!p->late_look || j->looked_late || !j->done || !j->nparts ||
            j->res->stop != VN_STOP_PRECISION || j->rdec.bound ||
            p->min_processes == p->max_processes ||
            !early(j, t0, now, processes) ||
            !(j->rstate.spent_ns + j->rstate.next_cost_ns < p->budget_ns))
            continue;
        j->looked_late = 1;
        j->done = 0;
        back++;
    }
    if (back)
        vn__plan_together(jobs, n);
    return back;
}

size_t vn__plan_wait_own(job **jobs, size_t n)
{
    size_t going = 0, back = 0;
    for (size_t i = 0; i < n; i++)
        going += !jobs[i]->done;
    for (size_t i = 0; going && i < n; i++) {
        job *j = jobs[i];
        const vn__policy *p = &j->pol;
        if (!p->wait_own || !j->done || !j->nparts || j->res->stop != VN_STOP_PRECISION ||
            !j->rdec.on_shared || j->rdec.bound || p->min_processes == p->max_processes ||
            j->nparts >= p->max_processes ||
            !(j->rstate.spent_ns + j->rstate.next_cost_ns < p->budget_ns))
            continue;
        j->done = 0;
        back++;
    }
    if (back)
        vn__plan_together(jobs, n);
    return back;
}
