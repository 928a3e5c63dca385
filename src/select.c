/* Which timer in-process measurement uses, and why (pure). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "vernier/probe.h"

static const vn_clock_probe *find(const vn_clocks_report *r, vn_clock_id id)
{
    for (size_t i = 0; i < r->nclocks; i++)
        if (r->clocks[i].id == id && r->clocks[i].available)
            return &r->clocks[i];
    return NULL;
}

void vn_clock_select(const vn_clocks_report *r, vn_clock_id *out, char *reason, size_t reasonlen)
{
    const vn_clock_probe *lf = find(r, VN_CLOCK_TSC_LFENCE);
    const vn_clock_probe *cp = find(r, VN_CLOCK_TSC_CPUID);
    const vn_clock_probe *cv = find(r, VN_CLOCK_CNTVCT);
    const vn_clock_probe *mono = find(r, VN_CLOCK_MONOTONIC);
    char a[32], b[32];
    int consistent = !r->crosscpu_done || r->crosscpu.tsc_backwards == 0;

    if (cv && consistent) {
        *out = VN_CLOCK_CNTVCT;
        vn__fmt_ns(a, sizeof a, cv->latency_ns);
        snprintf(reason, reasonlen,
                 "the aarch64 virtual counter runs at a constant architected rate and costs %s per read",
                 a);
        return;
    }
    if (lf && r->tsc.invariant == 1 && consistent) {
        *out = VN_CLOCK_TSC_LFENCE;
        vn__fmt_ns(a, sizeof a, lf->latency_ns);
        if (cp && isfinite(cp->latency_ns) && cp->latency_ns > 2 * lf->latency_ns) {
            vn__fmt_ns(b, sizeof b, cp->latency_ns);
            snprintf(reason, reasonlen,
                     "the TSC is invariant%s; cpuid;rdtsc costs %s per read%s, so lfence;rdtsc (%s) is used",
                     r->crosscpu_done && r->crosscpu.ncpus > 1 ? " and agrees across CPUs" : "", b,
                     r->tsc.hypervisor == 1 ? " inside a VM" : "", a);
        } else {
            snprintf(reason, reasonlen,
                     "the TSC is invariant%s; lfence;rdtsc orders the read and costs %s",
                     r->crosscpu_done && r->crosscpu.ncpus > 1 ? " and agrees across CPUs" : "", a);
        }
        return;
    }
    *out = VN_CLOCK_MONOTONIC;
    vn__fmt_ns(a, sizeof a, mono ? mono->latency_ns : NAN);
    if ((lf || cv) && !consistent)
        snprintf(reason, reasonlen,
                 "the CPU counter went backwards across CPUs, so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else if (lf && r->tsc.invariant != 1)
        snprintf(reason, reasonlen,
                 "the TSC is not invariant (its rate may follow the CPU's frequency), so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else
        snprintf(reason, reasonlen, "no usable CPU counter, so CLOCK_MONOTONIC (%s per read) is used",
                 a);
}
