/* The engine's timer, its reference cycle, and cache eviction. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "clock/arch.h"
#include "internal.h"
#include "clock/internal.h"
#include "stats/internal.h"
#include "clock/probe.h"

uint64_t vn__timer_read(const struct vn__run *r)
{
    if (r->hooks && r->hooks->now)
        return r->hooks->now(r->hooks->ctx);
    /* Inline reads for the clocks the engine selects, so a sample edge does
     * not pay for a call through vn_clock_read(). */
    switch (r->timer) {
#ifdef VN_HAVE_TSC
    case VN_CLOCK_TSC_LFENCE: return vn__rdtsc_lfence();
    case VN_CLOCK_RDTSCP: return vn__rdtscp_lfence();
#endif
#ifdef VN_HAVE_CNTVCT
    case VN_CLOCK_CNTVCT: return vn__cntvct();
#endif
    case VN_CLOCK_MONOTONIC: return vn__posix_read(CLOCK_MONOTONIC);
    default: return vn_clock_read(r->timer);
    }
}

double vn__timer_delta_ns(const struct vn__run *r, uint64_t delta)
{
    if (r->hooks && r->hooks->now)
        return (double)delta;
    return vn_clock_delta_ns(r->timer, delta);
}

static const vn_clock_probe *probe_of(const vn_clocks_report *rep, vn_clock_id id)
{
    for (size_t i = 0; i < rep->nclocks; i++)
        if (rep->clocks[i].id == id)
            return &rep->clocks[i];
    return NULL;
}

int vn__timer_choose(const char *name, vn_clock_id *id, char *reason, size_t reasonlen,
                     double *cost_ns, double *resolution_ns)
{
    /* A short version of `vernier clocks`: only the candidates, with small
     * budgets, so a benchmark program starts in milliseconds. */
    vn_clocks_report *rep = calloc(1, sizeof *rep);
    if (!rep)
        return VN_ENOMEM;
    vn_probe_opts quick = {300, 300, 4096};
    vn__clocks_report_basics(rep);
    vn_clock_id forced = VN_CLOCK_COUNT;
    if (name) {
        if (vn_clock_lookup(name, &forced) != 0) {
            free(rep);
            return VN_ENOENT;
        }
        if (!vn_clock_available(forced)) {
            free(rep);
            return VN_ENOTSUP;
        }
    }
    const vn_clock_id candidates[] = {VN_CLOCK_MONOTONIC, VN_CLOCK_TSC_LFENCE, VN_CLOCK_TSC_CPUID,
                                      VN_CLOCK_CNTVCT, forced};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        vn_clock_id c = candidates[i];
        if (c == VN_CLOCK_COUNT || !vn_clock_exists(c) || probe_of(rep, c))
            continue;
        /* An unavailable clock is kept too: its probe says so, and the
         * selection skips it. */
        vn_probe_clock(c, &quick, &rep->clocks[rep->nclocks]);
        rep->nclocks++;
    }
    if (!name) {
        if (vn_probe_crosscpu(2, &rep->crosscpu) == 0)
            rep->crosscpu_done = 1;
        vn_clock_select(rep, id, reason, reasonlen);
    } else {
        *id = forced;
        snprintf(reason, reasonlen, "chosen with --timer");
    }
    const vn_clock_probe *p = probe_of(rep, *id);
    *cost_ns = p && isfinite(p->latency_ns) ? p->latency_ns : NAN;
    /* The resolution that matters is the clock's unit or its smallest
     * observed step, whichever is larger; with a fast clock the observed
     * step is bounded by the read itself, which the cost already counts,
     * unless every step was a multiple of one unit: a counter a hypervisor
     * advances 26 ticks at a time rounds each read to 26 ticks, however
     * fine its nominal tick (vn__iunit_sorted). */
    double res = p ? p->getres_ns : NAN;
    if (p && isfinite(p->resolution_ns) && p->resolution_ns > p->latency_ns * 2)
        res = p->resolution_ns;
    if (p && p->unit_ns > 0 && !(p->unit_ns <= res))
        res = p->unit_ns;
    *resolution_ns = isfinite(res) ? res : 1.0;
    free(rep);
    return 0;
}

/* ---- The reference cycle ------------------------------------------------------- */

#define REF_BLOCKS 100         /* of 100 adds each: about 3 to 5 us */
#define REF_BLOCKS_MAX 400000  /* about 12 ms: a timer read of 500 us */
#define REF_SETUP_TRIES 11 /* odd: a median */

#if defined(__x86_64__) || defined(__aarch64__)
/* A value no core knows before it is loaded (time_add_blocks). */
static volatile uint64_t ref_one = 1;

/* The time of nblocks blocks of 100 dependent adds, with what the two
 * timer reads around them add. */
static double time_add_blocks(const struct vn__run *r, int nblocks)
{
    uint64_t x = 0, one = ref_one;
    uint64_t t0 = vn__timer_read(r);
    for (int i = 0; i < nblocks; i++) {
        /* A chain of dependent adds: each waits for the one before, so the
         * block takes 100 core cycles whatever the core's width. Adds of
         * a register, not of a constant: some cores fold a chain of adds
         * of a constant at rename, several a cycle and as many as the
         * other work on the core leaves room for (0.07-0.10 ns an add
         * against 0.35 for adds of a register, and for a multiply's three
         * cycles over three, on an Intel Xeon guest: bench/RESULTS.md,
         * 2026-12-03); a value loaded, not known, cannot be folded. */
#if defined(__x86_64__)
        __asm__ __volatile__(".rept 100\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
#else
        __asm__ __volatile__(".rept 100\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(one));
#endif
    }
    uint64_t t1 = vn__timer_read(r);
    return vn__timer_delta_ns(r, t1 - t0);
}
#endif

void vn__ref_setup(struct vn__run *r, double resolution_ns)
{
    r->ref_blocks = 0;
    r->ref_extra_ns = 0;
    if (r->hooks)
        return;
#if defined(__x86_64__) || defined(__aarch64__)
    /* A span of the reference is N blocks, at 0.25 ns an add (4 GHz): long
     * enough for the timer's step to be under 0.5% of it (a timer coarser
     * than that for any span allowed gives no reference: monotonic_coarse),
     * and for a read to be under 5% of it, since a costly read (a system
     * call, cpuid;rdtsc in a VM: microseconds here, a hundred elsewhere)
     * also varies from one read to the next. A timer of unknown cost gives
     * none either. */
    double cost = r->timer_cost_ns;
    double res = resolution_ns > 0 ? resolution_ns : 0;
    double blocks = ceil(res / (0.005 * 100 * 0.25));
    if (!(blocks <= REF_BLOCKS_MAX) || !(cost >= 0 && isfinite(cost)))
        return;
    blocks = fmax(blocks, REF_BLOCKS);
    blocks = fmax(blocks, fmin(ceil(cost / (0.05 * 100 * 0.25)), REF_BLOCKS_MAX));
    int n = (int)blocks;
    /* What the reads add to a span (about 10 ns of lfence;rdtsc here, one
     * step of its TSC; all of a trapped cpuid;rdtsc) is the same for N
     * blocks and for 2N: N, 2N, N again, the two N less the 2N, so a speed
     * that moves steadily cancels out; the median of several such, so an
     * interrupt in one does not count. It is no less than nothing and no
     * more than a read. */
    double d[REF_SETUP_TRIES];
    for (int k = 0; k < REF_SETUP_TRIES; k++) {
        double a1 = time_add_blocks(r, n);
        double b = time_add_blocks(r, 2 * n);
        double a2 = time_add_blocks(r, n);
        d[k] = a1 + a2 - b;
    }
    qsort(d, REF_SETUP_TRIES, sizeof d[0], vn__cmp_double);
    double extra = d[REF_SETUP_TRIES / 2];
    r->ref_extra_ns = isfinite(extra) ? fmax(0, fmin(extra, cost)) : 0;
    r->ref_blocks = n;
#else
    (void)resolution_ns;
#endif
}

double vn__ref_ns_per_cycle(const struct vn__run *r)
{
    if (r->hooks)
        return r->hooks->ref_ns ? r->hooks->ref_ns(r->hooks->ctx) : NAN;
#if defined(__x86_64__) || defined(__aarch64__)
    if (r->ref_blocks <= 0)
        return NAN;
    /* One span, twice, and the faster, less what the reads add to it: an
     * interrupt here can only make the cycle read long, and the faster of
     * two leaves most interrupts out. */
    int n = r->ref_blocks;
    double best = fmin(time_add_blocks(r, n), time_add_blocks(r, n));
    double ns = (best - r->ref_extra_ns) / (n * 100.0);
    /* A timer too coarse to see the span tells nothing. */
    return ns > 0 && isfinite(ns) ? ns : NAN;
#else
    return NAN;
#endif
}

double vn__branch_cycles(const struct vn__run *r, double ref_ns)
{
    if (r->hooks)
        return r->hooks->branch_cycles ? r->hooks->branch_cycles(r->hooks->ctx) : NAN;
    if (!(ref_ns > 0))
        return NAN;
#if defined(__x86_64__) || defined(__aarch64__)
    /* Twice, and the faster: an interrupt in one would otherwise read as a
     * shared core. The reads' own share of the span is left in: 8000
     * branches take 2.5 us at 3.2 GHz (1.6 us at 5), of which a read of the
     * default timer adds about 10 ns, well inside the probe's thresholds
     * (1.10 times its fastest; 1.5 cycles a branch). */
    double best = INFINITY;
    for (int half = 0; half < 2; half++) {
        uint64_t n = VN__PROBE_BRANCHES;
        uint64_t t0 = vn__timer_read(r);
        /* Nothing but the count and a taken branch back: the front end's
         * limit, one iteration a cycle, and nothing else. Aligned, so the
         * loop never straddles a fetch block (which costs a cycle on some
         * cores). */
#if defined(__x86_64__)
        __asm__ __volatile__(".p2align 5\n1:\n\tsub $1, %0\n\tjne 1b" : "+r"(n) : : "cc");
#else
        __asm__ __volatile__(".p2align 5\n1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#endif
        uint64_t t1 = vn__timer_read(r);
        best = fmin(best, vn__timer_delta_ns(r, t1 - t0) / VN__PROBE_BRANCHES);
    }
    return best > 0 ? best / ref_ns : NAN;
#else
    return NAN;
#endif
}

/* ---- Cold caches ------------------------------------------------------------- */

int vn__evict_init(vn__evict *e, const vn_sysinfo *env)
{
    /* Twice the sum of all cache levels is more than any replacement
     * policy keeps; 64 MiB when the caches are unknown. */
    size_t total = 0;
    if (env)
        for (int i = 0; i < env->ncaches; i++)
            if (env->caches[i].size_bytes > 0)
                total += (size_t)env->caches[i].size_bytes;
    e->len = total ? 2 * total : (size_t)64 << 20;
    /* Its own mapping, left out of any fork (MADV_DONTFORK): a benchmark
     * that forks must not pay for copying the page tables of tens of MiB
     * that are the engine's. */
    void *a = mmap(NULL, e->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED) {
        e->buf = NULL;
        return VN_ENOMEM;
    }
    madvise(a, e->len, MADV_DONTFORK);
    e->buf = a;
    memset(e->buf, 1, e->len);
    return 0;
}

void vn__evict_run(vn__evict *e)
{
    /* Writing every line makes the old contents of every cache dirty-evicted
     * or replaced; the volatile read-modify-write keeps it from being
     * turned into a memset the compiler could drop. */
    volatile unsigned char *p = e->buf;
    for (size_t i = 0; i < e->len; i += 64)
        p[i] = (unsigned char)(p[i] + 1);
}

void vn__evict_free(vn__evict *e)
{
    if (e->buf)
        munmap(e->buf, e->len);
    e->buf = NULL;
    e->len = 0;
}
