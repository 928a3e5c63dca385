/* One sample: the timed call of the benchmark with its interference
 * readings, and the row's own time. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>

#include "engine.h"

/* The row's own time so far: since it began, less the other rows' turns. */
double vn__elapsed_ns(job *j)
{
    return j->spent_ns + vn__timer_delta_ns(&j->run, vn__timer_read(&j->run) - j->resumed);
}

/* Was the run stopped (Ctrl-C, the caller's flag)? */
int vn__stopping(const job *j) { return j->cfg.stop_flag && *j->cfg.stop_flag; }

/* Runs fn once with iters iterations. Returns 0 and the sample's total ns,
 * or 1 when the benchmark failed (the message is in j->run.error). */
int vn__run_sample(job *j, vn_bench_fn fn, int user_hooks, uint64_t iters, double *ns,
                      unsigned *tags)
{
    struct vn__run *r = &j->run;
    r->iters = iters;
    r->phase = 0;
    r->t_start = r->t_end = 0;
    r->manual_ns = NAN;
    j->st.run = r;
    *tags = 0;
    /* Each sample's data is its setup's: one that fails before it sets any
     * must not hand the teardown what the last sample's teardown freed
     * (the usual teardown frees vn_state_data(), and would free it twice). */
    if (user_hooks && j->b->opts.setup) {
        r->data = NULL;
        j->b->opts.setup(&j->st);
    }
    /* The empty loop's samples are evicted for too: a cold sample pays for
     * fetching the timing code and the loop, and the empty loop measured
     * the same way takes that back out. */
    if (j->evict)
        vn__evict_run(j->evict);
    struct rusage ru0, ru1;
    int cpu0 = -1;
    /* The thread's CPU time from the scheduler's own count: getrusage's
     * user and system times move only at ticks on many kernels. */
    struct timespec c0;
    int have_c0 = 0;
    if (j->interference) {
        getrusage(RUSAGE_THREAD, &ru0);
        cpu0 = sched_getcpu();
        have_c0 = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0) == 0;
    }
    if (!r->failed) {
        /* The last thing before the call: the timer; just before it the
         * counters, so their system call stays outside the timed region. */
        j->st.remaining = iters;
        r->phase = 1;
        if (r->ctr)
            r->ctr_ok = vn_counters_read(r->ctr, &r->c0) == 0;
        r->t_start = vn__timer_read(r);
        fn(&j->st);
    }
    if (user_hooks && j->hooks && j->hooks->sample_tags)
        *tags = j->hooks->sample_tags(j->hooks->ctx);
    else if (!user_hooks && j->hooks && j->hooks->empty_tags)
        *tags = j->hooks->empty_tags(j->hooks->ctx);
    j->cpu_ns = NAN;
    if (j->interference) {
        int cpu1 = sched_getcpu();
        getrusage(RUSAGE_THREAD, &ru1);
        struct timespec c1;
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1) == 0 && have_c0)
            j->cpu_ns = (double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec);
        if (ru1.ru_nivcsw != ru0.ru_nivcsw)
            *tags |= VN_TAG_PREEMPTED;
        if (cpu0 != cpu1)
            *tags |= VN_TAG_MIGRATED;
    }
    if (user_hooks && j->b->opts.teardown) {
        j->b->opts.teardown(&j->st);
        if (j->b->opts.setup)
            r->data = NULL; /* the teardown had it */
    }
    if (r->failed)
        return 1;
    if (r->phase != 2) {
        r->failed = 1;
        snprintf(r->error, sizeof r->error, "%s",
                 j->st.remaining == iters ? "the function never called vn_next()"
                                          : "the function left its vn_next() loop before it ended");
        return 1;
    }
    *ns = vn__timer_delta_ns(r, r->t_end - r->t_start);
    if (user_hooks && j->b->opts.manual_time) {
        if (isnan(r->manual_ns)) {
            r->failed = 1;
            snprintf(r->error, sizeof r->error, "%s",
                     "the benchmark times itself (manual_time) but called no vn_state_set_time()");
            return 1;
        }
        *ns = r->manual_ns;
        /* The thread's CPU time spans the whole call, not the stretch the
         * function timed: beside its time it would mean nothing. */
        j->cpu_ns = NAN;
    }
    if (j->hooks && j->hooks->cpu_ns)
        j->cpu_ns = j->hooks->cpu_ns(j->hooks->ctx, *ns);
    if (r->ctr)
        vn__bench_counters_sample(r, iters);
    return 0;
}
