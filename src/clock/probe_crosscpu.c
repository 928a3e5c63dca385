/* Do the clocks of different CPUs agree? A thread hops from CPU to CPU and
 * compares its first read on the new CPU with its last read on the old one.
 * A later read that is smaller means the two CPUs' clocks disagree by more
 * than the migration took; TSCs that are not synchronized show exactly this. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "arch.h"
#include "internal.h"
#include "clock/probe.h"

#define READS_PER_VISIT 64

typedef struct hop_ctx {
    unsigned rounds;
    vn_crosscpu *out;
    int rc;
} hop_ctx;

static uint64_t counter_now(void)
{
#ifdef VN_HAVE_COUNTER
    return vn__counter_ordered();
#else
    return 0;
#endif
}

static void *hop(void *arg)
{
    hop_ctx *ctx = arg;
    vn_crosscpu *o = ctx->out;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        ctx->rc = VN_ENOTSUP;
        return NULL;
    }
    int cpus[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[n++] = c;
    o->ncpus = n;
    uint64_t last_tsc = 0, last_mono = 0, max_tsc_back = 0, max_mono_back = 0;
    uint64_t max_tsc_step = 0, max_mono_step = 0;
    int have_last = 0;
    for (unsigned r = 0; r < ctx->rounds && n > 1; r++) {
        for (int i = 0; i < n; i++) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpus[i], &one);
            /* sched_setaffinity migrates the calling thread before it returns. */
            if (sched_setaffinity(0, sizeof one, &one) != 0) {
                ctx->rc = VN_ENOTSUP;
                return NULL;
            }
            uint64_t tsc = counter_now();
            uint64_t mono = vn__posix_read(CLOCK_MONOTONIC);
            if (have_last) {
                o->migrations++;
                if (tsc < last_tsc) {
                    o->tsc_backwards++;
                    if (last_tsc - tsc > max_tsc_back)
                        max_tsc_back = last_tsc - tsc;
                } else if (tsc - last_tsc > max_tsc_step) {
                    max_tsc_step = tsc - last_tsc;
                }
                if (mono < last_mono) {
                    o->mono_backwards++;
                    if (last_mono - mono > max_mono_back)
                        max_mono_back = last_mono - mono;
                } else if (mono - last_mono > max_mono_step) {
                    max_mono_step = mono - last_mono;
                }
            }
            /* Stay a moment so the last reads are truly from this CPU's
             * steady state, not from the tail of the migration. */
            for (int k = 0; k < READS_PER_VISIT; k++) {
                last_tsc = counter_now();
                last_mono = vn__posix_read(CLOCK_MONOTONIC);
            }
            have_last = 1;
        }
    }
    o->mono_max_step_ns = (double)max_mono_step;
    o->mono_max_backwards_ns = (double)max_mono_back;
    if (o->has_counter) {
        o->tsc_max_step_ns = vn_clock_delta_ns(VN_CLOCK_TSC, max_tsc_step);
        o->tsc_max_backwards_ns = vn_clock_delta_ns(VN_CLOCK_TSC, max_tsc_back);
    }
    return NULL;
}

/* ---- The warp check ------------------------------------------------------- */

typedef struct warp {
    atomic_int turn;      /* whose turn it is: 0 or 1 */
    atomic_int ready;
    atomic_int failed;    /* a side could not be pinned to its CPU */
    atomic_int stalled;   /* a turn waited past its deadline: the pair ends early */
    int cpu[2];
    unsigned iterations;
    /* Written only by the side whose turn it is: */
    int owner;
    uint64_t last_tsc, last_mono;
    uint64_t handoffs, tsc_back, mono_back, tsc_max_back, mono_max_back, min_gap;
} warp;

typedef struct warp_arg {
    warp *w;
    int side;
} warp_arg;

static void *warp_thread(void *arg)
{
    warp_arg *a = arg;
    warp *w = a->w;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(w->cpu[a->side], &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        atomic_store(&w->failed, 1);
    atomic_fetch_add(&w->ready, 1);
    while (atomic_load(&w->ready) < 2)
        ;
    /* The two sides take strict turns, so every read follows a read on the
     * other CPU. On a busy machine the other side may wait for its CPU
     * behind other work: a side that spins long yields its CPU, and one
     * whose turn has not come within a second (the other vCPU descheduled
     * for good) ends the pair early rather than hang, keeping the handoffs
     * it saw. */
    for (unsigned i = 0; i < w->iterations && !atomic_load(&w->failed) && !atomic_load(&w->stalled);
         i++) {
        unsigned spins = 0;
        uint64_t deadline = 0;
        while (atomic_load_explicit(&w->turn, memory_order_acquire) != a->side) {
            if (++spins % 4096 != 0)
                continue;
            if (atomic_load(&w->failed) || atomic_load(&w->stalled))
                return NULL;
            uint64_t now = vn__posix_read(CLOCK_MONOTONIC);
            if (!deadline)
                deadline = now + 1000000000u;
            else if (now > deadline) {
                atomic_store(&w->stalled, 1);
                return NULL;
            }
            sched_yield();
        }
        /* Read after taking the turn: the other side's read happened before
         * it handed the turn over, so with agreeing clocks now >= last. */
        uint64_t tsc = counter_now();
        uint64_t mono = vn__posix_read(CLOCK_MONOTONIC);
        if (w->owner >= 0 && w->owner != a->side) {
            w->handoffs++;
            if (tsc < w->last_tsc) {
                w->tsc_back++;
                if (w->last_tsc - tsc > w->tsc_max_back)
                    w->tsc_max_back = w->last_tsc - tsc;
            } else if (tsc - w->last_tsc < w->min_gap) {
                w->min_gap = tsc - w->last_tsc;
            }
            if (mono < w->last_mono) {
                w->mono_back++;
                if (w->last_mono - mono > w->mono_max_back)
                    w->mono_max_back = w->last_mono - mono;
            }
        }
        w->owner = a->side;
        w->last_tsc = tsc;
        w->last_mono = mono;
        atomic_store_explicit(&w->turn, 1 - a->side, memory_order_release);
    }
    return NULL;
}

/* CPU 0 (the first allowed) against each other allowed CPU, up to 16 pairs. */
static int warp_check(const int *cpus, int n, unsigned iterations, vn_crosscpu *o)
{
    uint64_t min_gap = UINT64_MAX, tsc_max = 0, mono_max = 0;
    for (int k = 1; k < n && k <= 16; k++) {
        warp w;
        memset(&w, 0, sizeof w);
        w.cpu[0] = cpus[0];
        w.cpu[1] = cpus[k];
        w.iterations = iterations;
        w.owner = -1;
        w.min_gap = UINT64_MAX;
        pthread_t t[2];
        warp_arg args[2] = {{&w, 0}, {&w, 1}};
        int started = 0;
        for (int s = 0; s < 2; s++)
            if (pthread_create(&t[s], NULL, warp_thread, &args[s]) == 0)
                started++;
        if (started < 2) {
            /* Let the one that started go on alone and end. */
            atomic_store(&w.failed, 1);
            atomic_store(&w.ready, 2);
        }
        for (int s = 0; s < started; s++)
            pthread_join(t[s], NULL);
        /* Pinning failed, or not one handoff in a second: nothing measured. */
        if (atomic_load(&w.failed) || w.handoffs == 0)
            return VN_ENOTSUP;
        o->warp_pairs++;
        o->warp_handoffs += w.handoffs;
        o->warp_tsc_backwards += w.tsc_back;
        o->warp_mono_backwards += w.mono_back;
        if (w.tsc_max_back > tsc_max)
            tsc_max = w.tsc_max_back;
        if (w.mono_max_back > mono_max)
            mono_max = w.mono_max_back;
        if (w.min_gap < min_gap)
            min_gap = w.min_gap;
    }
    o->warp_mono_max_backwards_ns = (double)mono_max;
    if (o->has_counter) {
        o->warp_tsc_max_backwards_ns = vn_clock_delta_ns(VN_CLOCK_TSC, tsc_max);
        o->warp_resolution_ns = min_gap == UINT64_MAX ? NAN : vn_clock_delta_ns(VN_CLOCK_TSC, min_gap);
    } else {
        o->warp_tsc_max_backwards_ns = o->warp_resolution_ns = NAN;
    }
    return 0;
}

int vn_probe_crosscpu(unsigned rounds, vn_crosscpu *out)
{
    if (!out)
        return VN_EINVAL;
    memset(out, 0, sizeof *out);
#ifdef VN_HAVE_COUNTER
    out->has_counter = vn__tsc_facts()->present == 1;
#endif
    if (out->has_counter)
        (void)vn_counter_calibration(); /* before hopping, so it is not timed inside */
    hop_ctx ctx = {rounds ? rounds : 20, out, 0};
    /* A thread of its own, so the caller's CPU affinity is never touched. */
    pthread_t t;
    if (pthread_create(&t, NULL, hop, &ctx) != 0)
        return VN_ENOMEM;
    pthread_join(t, NULL);
    if (!out->has_counter)
        out->tsc_max_step_ns = out->tsc_max_backwards_ns = NAN;
    if (ctx.rc)
        return ctx.rc;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return VN_ENOTSUP;
    int cpus[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[n++] = c;
    out->warp_resolution_ns = NAN;
    return warp_check(cpus, n, 500u * ctx.rounds, out);
}
