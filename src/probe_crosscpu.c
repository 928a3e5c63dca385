/* Do the clocks of different CPUs agree? A thread hops from CPU to CPU and
 * compares its first read on the new CPU with its last read on the old one.
 * A later read that is smaller means the two CPUs' clocks disagree by more
 * than the migration took; TSCs that are not synchronized show exactly this. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "arch.h"
#include "clock_internal.h"
#include "vernier/probe.h"

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
    return ctx.rc;
}
