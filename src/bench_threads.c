/* A row measured on several threads at once (--threads). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_engine.h"

/* ---- Several threads at once ----------------------------------------------- */

/* Threads that start at different moments measure different machines: the
 * first ones run alone. So every thread runs untimed samples until all have
 * arrived, then they pass a barrier together and only then start timing.
 * The barrier is two counters rather than a pthread barrier, so that when a
 * thread cannot be started the main thread can let the others through by
 * counting the missing ones in, all at once. */
typedef struct shared {
    int n;
    uint64_t iters;
    atomic_int arrived;
    atomic_int ready;           /* at the barrier */
    atomic_int stop;
    atomic_int reason;          /* a vn_stop, set by whoever stops the threads first */
    atomic_size_t taken;        /* timed samples of all threads */
    double om, olo, ohi;        /* the empty loop, measured before: median, its CI */
    size_t nempty;              /* its samples */
} shared;

typedef struct tctx {
    job j;
    int index;
    shared *sh;
    samples S;
    int failed;
    int rc;
    size_t nctr;                 /* counters per sample (the main thread's) */
    vn_counters *own;            /* this thread's own group; NULL: counts unknown */
    dbuf counts;
    uint64_t began, ended;       /* timer readings: past the barrier, out of the loop */
    double iters_done;           /* iterations of its timed samples */
} tctx;

/* Stops every thread for the reason given, unless something stopped them
 * first (Ctrl-C, a limit, a failure): the first to stop them says why. */
static void stop_threads(shared *sh, vn_stop why)
{
    int running = 0;
    if (atomic_compare_exchange_strong(&sh->stop, &running, 1))
        atomic_store(&sh->reason, (int)why);
}

static void *thread_main(void *arg)
{
    tctx *t = arg;
    job *j = &t->j;
    shared *sh = t->sh;
    double ns;
    unsigned tags;
    /* A counter group counts the thread that opened it (pid 0), so each
     * thread opens its own. */
    if (t->nctr)
        t->own = vn__bench_counters_again(j->run.ctr);
    j->run.ctr = t->own;
    atomic_fetch_add(&sh->arrived, 1);
    /* Ctrl-C must not wait for a thousand threads to start on two CPUs. */
    int stopped = 0;
    while (atomic_load(&sh->arrived) < sh->n && !t->failed &&
           !(stopped = vn__stopping(j)))
        t->failed = vn__run_sample(j, j->b->fn, 1, 1, &ns, &tags);
    if (stopped)
        stop_threads(sh, VN_STOP_INTERRUPTED);
    atomic_fetch_add(&sh->ready, 1);
    while (atomic_load(&sh->ready) < sh->n)
        sched_yield(); /* more threads than CPUs: let the last ones get there */
    if (t->failed) {
        atomic_store(&sh->stop, 1);
        return NULL;
    }
    double budget = j->cfg.max_time * 1e9;
    t->began = vn__timer_read(&j->run);
    while (!atomic_load(&sh->stop)) {
        if (vn__stopping(j)) {
            stop_threads(sh, VN_STOP_INTERRUPTED);
            break;
        }
        vn_sample s = {0};
        s.thread = t->index;
        s.ref_ns = vn__ref_ns_per_cycle(&j->run);
        s.branch_cycles = NAN; /* the threads share cores on purpose */
        if (vn__run_sample(j, j->b->fn, 1, sh->iters, &ns, &s.tags)) {
            t->failed = 1;
            atomic_store(&sh->stop, 1);
            break;
        }
        if (vn__stopping(j)) { /* cut short, as in row_step */
            stop_threads(sh, VN_STOP_INTERRUPTED);
            break;
        }
        s.value = ns / (double)sh->iters;
        s.cpu_ns = j->cpu_ns / (double)sh->iters;
        s.iters = sh->iters;
        t->iters_done += (double)sh->iters;
        s.counts_scaled = t->own ? j->run.cur_scaled : 0;
        for (size_t k = 0; k < t->nctr && !t->rc; k++)
            t->rc = vn__push_double(&t->counts, t->own ? j->run.cur[k] : NAN);
        if (t->rc || (t->rc = vn__push_sample(&t->S, s)) != 0) {
            atomic_store(&sh->stop, 1);
            break;
        }
        /* The budget, on the samples of all threads (the headline pools
         * them), by whichever thread sees it spent: with more threads than
         * CPUs thread 0 runs a small share of the time, and would reach the
         * minimum samples of its own long after the budget. */
        size_t all = atomic_fetch_add(&sh->taken, 1) + 1;
        if (all >= j->cfg.min_samples && vn__elapsed_ns(j) >= budget) {
            stop_threads(sh, VN_STOP_MAX_TIME);
            break;
        }
        if (t->index != 0)
            continue;
        /* Thread 0 decides for all, on its own samples: they are measured
         * under the same contention as everyone's. A limit stops them; the
         * headline, of every thread's samples, may still meet the precision,
         * and then says so (stopped_at_a_limit(), bench_warnings.c). */
        int enough = t->S.n >= j->cfg.min_samples;
        if (t->S.n >= j->cfg.max_samples) {
            stop_threads(sh, VN_STOP_MAX_SAMPLES);
        } else if (enough && (t->S.n < 64 || t->S.n % (t->S.n / 32) == 0)) {
            /* No probes: the empty loop's one set of numbers stands for
             * both kinds of moments. */
            vn__empty_view e = {sh->om, sh->olo, sh->ohi, sh->nempty};
            vn__row_view rv = {.v = t->S.v, .n = t->S.n, .empty = {e, e},
                               .floor_ns = j->res_ns / (double)sh->iters};
            vn__decision d;
            if ((t->rc = vn__decide(&rv, &j->pol, &d)) == 0 && d.precise)
                stop_threads(sh, VN_STOP_PRECISION);
        }
    }
    t->ended = vn__timer_read(&j->run);
    return NULL;
}

int vn__measure_threads(job *j)
{
    vn_result *res = j->res;
    int n = j->cfg.threads;
    int rc = 0;
    empties E = {0};
    dbuf all_counts = {0};
    size_t nctr = j->run.ctr ? vn_counters_n(j->run.ctr) : 0;
    j->resumed = vn__timer_read(&j->run);
    uint64_t iters;
    double threshold, cap;
    int cal = vn__calibrate(j, &iters, &threshold, &cap);
    if (cal == 2) {
        res->stop = VN_STOP_INTERRUPTED;
        return 0;
    }
    if (cal) {
        res->stop = j->run.skipped ? VN_STOP_SKIPPED : VN_STOP_FAILED;
        snprintf(res->error, sizeof res->error, "%s", j->run.error);
        return 0;
    }
    res->iters = iters;
    vn__ref_setup(&j->run, j->res_ns); /* before the threads copy the run */
    for (int k = 0; k < EMPTY_FIRST * 2 && rc == 0; k++)
        rc = vn__empty_sample(j, iters, &E);
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.n = n;
    sh.iters = iters;
    sh.reason = VN_STOP_MAX_SAMPLES;
    if (E.ns.n)
        vn_median_ci(E.ns.v, E.ns.n, &sh.om, &sh.olo, &sh.ohi);
    sh.nempty = E.ns.n;
    tctx *t = calloc((size_t)n, sizeof *t);
    pthread_t *tid = calloc((size_t)n, sizeof *tid);
    res->thread_median = calloc((size_t)n, sizeof *res->thread_median);
    if (!t || !tid || !res->thread_median) {
        free(t), free(tid), vn__empties_free(&E);
        return VN_ENOMEM;
    }
    int started = 0, err = 0;
    for (int i = 0; i < n; i++) {
        t[i].j = *j;
        t[i].j.st.run = &t[i].j.run;
        t[i].index = i;
        t[i].sh = &sh;
        t[i].nctr = nctr;
        if ((err = pthread_create(&tid[i], NULL, thread_main, &t[i])) != 0)
            break;
        started++;
    }
    if (started < n) {
        /* The row fails: the threads that started are stopped, and let past
         * the barrier by counting the missing ones in. */
        atomic_store(&sh.stop, 1);
        atomic_fetch_add(&sh.arrived, n - started);
        atomic_fetch_add(&sh.ready, n - started);
        res->stop = VN_STOP_FAILED;
        snprintf(res->error, sizeof res->error, "could not start thread %d of %d: %s", started + 1, n,
                 strerror(err));
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);

    samples all = {0};
    res->threads = n;
    res->total_iter_per_sec = 0;
    for (int i = 0; i < started && rc == 0; i++) {
        if (t[i].failed && !res->error[0]) {
            res->stop = t[i].j.run.skipped ? VN_STOP_SKIPPED : VN_STOP_FAILED;
            snprintf(res->error, sizeof res->error, "%s", t[i].j.run.error);
        }
        if (t[i].rc)
            rc = t[i].rc;
        for (size_t k = 0; k < t[i].S.n && rc == 0; k++) {
            rc = vn__push_sample(&all, t[i].S.v[k]);
            for (size_t c = 0; c < nctr && rc == 0; c++)
                rc = vn__push_double(&all_counts, t[i].counts.v[k * nctr + c]);
        }
    }
    for (int i = 0; i < n; i++) {
        free(t[i].S.v);
        free(t[i].counts.v);
        vn_counters_destroy(t[i].own);
    }
    if (res->stop != VN_STOP_FAILED && res->stop != VN_STOP_SKIPPED)
        res->stop = (vn_stop)atomic_load(&sh.reason);
    res->samples = all.v;
    res->nsamples = all.n;
    if (rc == 0 && res->stop != VN_STOP_FAILED && res->stop != VN_STOP_SKIPPED) {
        vn__throughput_of(&t[0].j, res);
        rc = vn__summarize(res, &E, &j->pol, j->res_ns / (double)res->iters,
                       INFINITY, NAN, NULL, &j->dec);
    }
    if (nctr && rc == 0) {
        rc = vn__bench_counters_finish(res, j->run.ctr, all_counts.v, E.counts.v,
                                       E.counts.n / nctr, NULL);
        all_counts.v = NULL;
    }
    free(all_counts.v);
    /* Each thread's median of the samples the headline uses, as measured:
     * the loop with the body, its own cost included. The empty loop was
     * measured on one thread before the others started, so it is not the
     * loop these threads ran; and a rate from a net time counts the loop as
     * free (here, a thread-private increment whose net median was 0.05 ns
     * made 21 Giter/s of one thread whose loop took 0.36 ns). Together is
     * what the threads did: all their iterations over the wall time from
     * the first to start timing to the last to stop. Not 1e9 / median per
     * thread: the median leaves out the samples other threads preempted, so
     * 1000 threads taking turns on 2 CPUs would read 1000 times one; nor
     * each thread's iterations over its own span, summed: threads taking
     * turns one after another would each read a CPU of their own. */
    uint64_t first = 0, last = 0;
    double iters_all = 0;
    for (int i = 0; i < n; i++) {
        if (!t[i].iters_done)
            continue;
        if (!iters_all || (int64_t)(t[i].began - first) < 0)
            first = t[i].began;
        if (!iters_all || (int64_t)(t[i].ended - last) > 0)
            last = t[i].ended;
        iters_all += t[i].iters_done;
    }
    double span = iters_all ? vn__timer_delta_ns(&j->run, last - first) : 0;
    if (span > 0)
        res->total_iter_per_sec = iters_all / span * 1e9;
    for (int i = 0; i < n; i++) {
        dbuf mine = {0};
        for (size_t k = 0; k < res->nsamples && rc == 0; k++)
            if (res->samples[k].thread == i && !(res->samples[k].tags & res->left_out))
                rc = vn__push_double(&mine, res->samples[k].value);
        double med = NAN, lo, hi;
        if (mine.n)
            vn_median_ci(mine.v, mine.n, &med, &lo, &hi);
        free(mine.v);
        res->thread_median[i] = med;
    }
    free(t), free(tid), vn__empties_free(&E);
    res->elapsed = vn__elapsed_ns(j) / 1e9;
    return rc;
}

