/* Interference tagging: the taken-branch probes next to each sample, the
 * suite's fastest of them, and the samples taken while the core was shared. */
#include <stdlib.h>

#include "engine.h"
#include "stats/internal.h"

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
        int shared = vn__on_cpu(a->cpu_share.v[i]) &&
                     (v[i].branch_cycles > thr || a->after.v[i] > thr);
        if (shared)
            v[i].tags |= VN_TAG_SHARED_CORE;
        else
            v[i].tags &= ~(unsigned)VN_TAG_SHARED_CORE;
    }
}

/* Tags the samples that ran on a shared core; a holds one entry per
 * sample of v. */
void vn__tag_shared(vn_sample *v, const struct auxes *a, double thr)
{
    tag_probed(v, a, thr);
}
