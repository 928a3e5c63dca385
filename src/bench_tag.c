/* Interference tagging: the taken-branch probes next to each sample, the
 * suite's fastest of them, and the samples taken while the core was shared. */
#include <stdlib.h>

#include "bench_engine.h"
#include "stats_internal.h"

void vn__low3_add(low3 *l, double x)
{
    if (!(isfinite(x) && x > 0 && x < l->v[FLOOR_KEEP - 1]))
        return;
    int i = FLOOR_KEEP - 1;
    for (; i > 0 && l->v[i - 1] > x; i--)
        l->v[i] = l->v[i - 1];
    l->v[i] = x;
}

double vn__low3_floor(const low3 *l)
{
    double f = NAN;
    for (int i = 0; i < FLOOR_KEEP && isfinite(l->v[i]); i++)
        f = l->v[i];
    return f;
}

/* Times the taken-branch probe against a reference measured shortly
 * before (right before, or before the sample it follows), adds it to the
 * suite's fastest, and gives it to the sample before it as the probe after
 * that sample. NAN where the timer's cost and resolution are over 2% of a
 * probe's half (a syscall clock, cpuid;rdtsc in a VM): it could not tell a
 * shared core from its own reads. */
double vn__probe_branch(job *j, double ref)
{
    if (!j->floors || (isfinite(ref) && !(j->cost_ns + j->res_ns <= 0.02 * VN__PROBE_BRANCHES * ref)))
        return NAN;
    double b = vn__branch_cycles(&j->run, ref);
    vn__low3_add(&j->floors->branch, b);
    if (j->floors->pend) {
        j->floors->pend->after.v[j->floors->pend_i] = b;
        j->floors->pend = NULL;
    }
    return b;
}

double vn__branch_floor(const job *j) { return j->floors ? vn__low3_floor(&j->floors->branch) : NAN; }

double vn__shared_threshold(const job *j)
{
    double f = vn__branch_floor(j);
    return isfinite(f) ? j->pol.shared_ratio * f : INFINITY;
}

/* Tags the samples taken while the core's front end was shared: the probe
 * before the sample, or the one after it, read over thr. A sample mostly
 * off the CPU (asleep, waiting) lost little to a shared core, whatever the
 * probes say, and is never tagged. Sets the tag afresh each time, since the
 * floor under thr only ever falls. */
static void tag_probed(vn_sample *v, const struct auxes *a, double thr)
{
    for (size_t i = 0; i < a->after.n; i++) {
        int shared = !(a->cpu_share.v[i] < VN__ON_CPU_MIN) &&
                     (v[i].branch_cycles > thr || a->after.v[i] > thr);
        if (shared)
            v[i].tags |= VN_TAG_SHARED_CORE;
        else
            v[i].tags &= ~(unsigned)VN_TAG_SHARED_CORE;
    }
}

/* In a row where the probes saw the core shared, a shared spell shorter
 * than a sample can begin and end between two quiet probes and slow that
 * sample alone (here, samples of a chain of adds between quiet probes read
 * 0 to 10% slow, in no relation to the probes). Noise like that only adds
 * time, so the samples it spared pile up at the mode of the untagged ones
 * (vn_half_sample_mode), m, and the others spread above it. The spread
 * below m, s (the median distance to m, x 1.4826, as a MAD), is the
 * benchmark's own; a sample more than max(3 s, 1% of m) above m is taken
 * for one that shared its core part of the time, and tagged too. Where the
 * probes never saw the core shared, nothing is tagged this way: a slow
 * sample is then the benchmark's own. (bench_internal.h) */
int vn__tag_slow_tail(vn_sample *v, const double *cpu_share, size_t n)
{
#define CANDIDATE(i) (!v[i].tags && !(cpu_share && cpu_share[i] < VN__ON_CPU_MIN))
    size_t shared = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        shared += (v[i].tags & VN_TAG_SHARED_CORE) != 0;
        m += CANDIDATE(i);
    }
    /* One probe an interrupt slowed must not cut off a benchmark's own
     * slow tail on a quiet machine: a few shared samples, at least one in
     * fifty, show the core was really shared. */
    if (shared < 3 || shared * 50 < n || m < VN__SLOW_TAIL_MIN)
        return 0;
    double *x = malloc(m * sizeof *x);
    if (!x)
        return VN_ENOMEM;
    for (size_t i = 0, k = 0; i < n; i++)
        if (CANDIDATE(i))
            x[k++] = v[i].value;
    qsort(x, m, sizeof *x, vn__cmp_double);
    double mode = vn_half_sample_mode(x, m);
    /* The distances below the mode, nearest first. */
    size_t below = 0;
    while (below < m && x[below] <= mode)
        below++;
    for (size_t i = 0; i < below / 2; i++) {
        double t = x[i];
        x[i] = x[below - 1 - i];
        x[below - 1 - i] = t;
    }
    for (size_t i = 0; i < below; i++)
        x[i] = mode - x[i];
    double s = 1.4826 * vn_percentile_sorted(x, below, 50);
    double fence = mode + fmax(3 * s, 0.01 * mode);
    for (size_t i = 0; i < n; i++)
        if (CANDIDATE(i) && v[i].value > fence)
            v[i].tags |= VN_TAG_SHARED_CORE;
#undef CANDIDATE
    free(x);
    return 0;
}

/* Both ways of telling the samples that ran on a shared core (the second
 * unless p switches it off); a holds one entry per sample of v. */
int vn__tag_shared(vn_sample *v, const struct auxes *a, double thr, const vn__policy *p)
{
    tag_probed(v, a, thr);
    return p->slow_tail ? vn__tag_slow_tail(v, a->cpu_share.v, a->after.n) : 0;
}
