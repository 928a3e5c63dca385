/* A row measured on several threads at once (--threads). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

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
    /* Every thread's timed samples and their counts, in the order they
     * ended, and the decision's state: one stop rule for all threads,
     * asked by whichever thread adds a sample at a check point. A sample
     * that ends once the threads are stopping is not added: the others
     * had stopped, so it ran under less contention than the rest. */
    pthread_mutex_t lock;
    samples all;
    dbuf counts;
    vn__row_view view;          /* the empty loop's numbers, measured before */
    const vn__policy *pol;
    size_t streak;
    int rc;
} shared;

typedef struct tctx {
    job j;
    int index;
    shared *sh;
    int failed;
    int rc;
    size_t nctr;                 /* counters per sample (the main thread's) */
    vn_counters *own;            /* this thread's own group; NULL: counts unknown */
    uint64_t began, ended;       /* timer readings: past the barrier, the end of its last kept sample */
    double iters_done;           /* iterations of its samples the result keeps */
} tctx;

/* Stops every thread for the reason given, unless something stopped them
 * first (Ctrl-C, a limit, a failure): the first to stop them says why. */
static void stop_threads(shared *sh, vn_stop why)
{
    int running = 0;
    if (atomic_compare_exchange_strong(&sh->stop, &running, 1))
        atomic_store(&sh->reason, (int)why);
}

/* Adds thread t's sample s (counts in t->j.run.cur) to all of them, and,
 * at a check point, asks the decision; the lock is held throughout, so the
 * samples it decides on are exactly those the result keeps. Whether s was
 * kept: one that ends after another thread stopped the run is not. */
static int add_sample(tctx *t, const vn_sample *s)
{
    shared *sh = t->sh;
    pthread_mutex_lock(&sh->lock);
    if (atomic_load(&sh->stop)) {
        pthread_mutex_unlock(&sh->lock);
        return 0;
    }
    int rc = vn__push_sample(&sh->all, *s);
    for (size_t k = 0; k < t->nctr && rc == 0; k++)
        rc = vn__push_double(&sh->counts, t->own ? t->j.run.cur[k] : NAN);
    size_t n = sh->all.n;
    if (rc == 0 && (n < 64 || n % (n / 32) == 0 || n >= sh->pol->max_samples)) {
        vn__row_view rv = sh->view;
        rv.v = sh->all.v;
        rv.n = n;
        rv.elapsed_ns = vn__elapsed_ns(&t->j);
        rv.streak = sh->streak;
        vn__decision d;
        if ((rc = vn__decide(&rv, sh->pol, &d)) == 0) {
            sh->streak = d.precise ? sh->streak + 1 : 0;
            if (d.verdict != VN__GO_ON)
                stop_threads(sh, vn__stop_of(d.verdict));
        }
    }
    if (rc) {
        sh->rc = rc;
        atomic_store(&sh->stop, 1);
    }
    pthread_mutex_unlock(&sh->lock);
    return rc == 0;
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
        uint64_t end = vn__timer_read(&j->run);
        s.value = ns / (double)sh->iters;
        s.cpu_ns = j->cpu_ns / (double)sh->iters;
        s.iters = sh->iters;
        s.counts_scaled = t->own ? j->run.cur_scaled : 0;
        /* The rate together counts the samples the result keeps, up to
         * the end of the last of them, so that it follows from them. */
        if (add_sample(t, &s)) {
            t->iters_done += (double)sh->iters;
            t->ended = end;
        }
    }
    return NULL;
}

int vn__measure_threads(job *j)
{
    vn_result *res = j->res;
    int n = j->cfg.threads;
    int rc = 0;
    empties E = {0};
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
    sh.reason = VN_STOP_FAILED; /* until the decision, or Ctrl-C, says why they stopped */
    sh.pol = &j->pol;
    pthread_mutex_init(&sh.lock, NULL);
    /* No probes: the empty loop's one set of numbers stands for both kinds
     * of moments. */
    if (rc == 0)
        rc = vn__view_row(NULL, 0, &E, &j->pol, INFINITY, NAN, iters, j->res_ns / (double)iters,
                          &sh.view);
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

    res->threads = n;
    res->total_iter_per_sec = 0;
    for (int i = 0; i < started; i++)
        if (t[i].failed && !res->error[0]) {
            res->stop = t[i].j.run.skipped ? VN_STOP_SKIPPED : VN_STOP_FAILED;
            snprintf(res->error, sizeof res->error, "%s", t[i].j.run.error);
        }
    for (int i = 0; i < n; i++)
        vn_counters_destroy(t[i].own);
    pthread_mutex_destroy(&sh.lock);
    if (sh.rc)
        rc = sh.rc;
    if (res->stop != VN_STOP_FAILED && res->stop != VN_STOP_SKIPPED)
        res->stop = (vn_stop)atomic_load(&sh.reason);
    /* One part: every thread's samples, as the decision saw them. */
    vn__part q = {.state = res->stop == VN_STOP_FAILED || res->stop == VN_STOP_SKIPPED ? ROW_FAILED
                                                                                      : ROW_DONE,
                  .stop = res->stop, .iters = iters, .thr = INFINITY, .efloor = NAN,
                  .floor_ns = j->res_ns / (double)iters, .bytes = t[0].j.run.bytes,
                  .items = t[0].j.run.items, .S = sh.all, .counts = sh.counts, .E = E};
    snprintf(q.error, sizeof q.error, "%s", res->error);
    for (size_t k = 0; rc == 0 && k < q.S.n; k++)
        rc = vn__push_double(&q.cpu_share, NAN);
    q.elapsed_ns = vn__elapsed_ns(j);
    j->parts = &q;
    j->nparts = 1;
    vn__throughput_of(j, res);
    j->parts = NULL;
    j->nparts = 0;
    vn__row_state st = {q.elapsed_ns, q.S.n, sh.streak ? sh.streak - 1 : 0, 0, NAN, NAN};
    vn_stop stop = res->stop;
    char error[sizeof res->error];
    memcpy(error, res->error, sizeof error);
    if (rc == 0)
        rc = vn__summarize(res, &q, 1, &j->pol, &st, j->run.ctr, nctr, &j->dec, &j->rdec);
    else
        vn__part_free(&q);
    res->stop = stop;
    memcpy(res->error, error, sizeof error);
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
    free(t), free(tid);
    res->elapsed = vn__elapsed_ns(j) / 1e9;
    return rc;
}

