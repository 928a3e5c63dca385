/* Which timer in-process measurement uses, and why (pure). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/format.h"
#include "parse/sysinfo_parse.h"
#include "clock/probe.h"

static const vn_clock_probe *find(const vn_clocks_report *r, vn_clock_id id)
{
    for (size_t i = 0; i < r->nclocks; i++)
        if (r->clocks[i].id == id && r->clocks[i].available)
            return &r->clocks[i];
    return NULL;
}

/* The stable names of each way the choice can go (vn_clock_why), which
 * `vernier clocks --json` gives as selected.reason_id. */
static const char *const why_ids[] = {
    [VN_CLOCK_WHY_ARCH_COUNTER] = "cntvct",
    [VN_CLOCK_WHY_INVARIANT_TSC] = "tsc_invariant",
    [VN_CLOCK_WHY_TSC_CPUID_COSTLY] = "tsc_cpuid_costly",
    [VN_CLOCK_WHY_TSC_UNSTABLE] = "tsc_unstable",
    [VN_CLOCK_WHY_BACKWARDS] = "counter_backwards",
    [VN_CLOCK_WHY_UNCALIBRATED] = "tsc_uncalibrated",
    [VN_CLOCK_WHY_NOT_INVARIANT] = "tsc_not_invariant",
    [VN_CLOCK_WHY_NO_COUNTER] = "no_counter",
};

/* The one decision: which timer, and why. */
static vn_clock_why choose(const vn_clocks_report *r)
{
    const vn_clock_probe *lf = find(r, VN_CLOCK_TSC_LFENCE);
    const vn_clock_probe *cp = find(r, VN_CLOCK_TSC_CPUID);
    const vn_clock_probe *cv = find(r, VN_CLOCK_CNTVCT);
    int consistent = !r->crosscpu_done ||
                     (r->crosscpu.tsc_backwards == 0 && r->crosscpu.warp_tsc_backwards == 0);
    /* The kernel tests the TSC at boot and while it runs; when it finds it
     * unstable it drops "tsc" from the clocksources it offers. Its verdict
     * weighs more than our short checks. */
    int kernel_distrusts = lf && r->clocksource_available[0] &&
                           !vn__word_in_list(r->clocksource_available, "tsc");
    int calibrated = r->tsc_calibrated || !r->tsc.present;

    if (cv && consistent)
        return VN_CLOCK_WHY_ARCH_COUNTER;
    if (lf && r->tsc.invariant == 1 && consistent && !kernel_distrusts && calibrated)
        return cp && isfinite(cp->latency_ns) && cp->latency_ns > 2 * lf->latency_ns
                   ? VN_CLOCK_WHY_TSC_CPUID_COSTLY
                   : VN_CLOCK_WHY_INVARIANT_TSC;
    if (kernel_distrusts)
        return VN_CLOCK_WHY_TSC_UNSTABLE;
    if ((lf || cv) && !consistent)
        return VN_CLOCK_WHY_BACKWARDS;
    if (lf && r->tsc.invariant == 1 && !calibrated)
        return VN_CLOCK_WHY_UNCALIBRATED;
    if (lf && r->tsc.invariant != 1)
        return VN_CLOCK_WHY_NOT_INVARIANT;
    return VN_CLOCK_WHY_NO_COUNTER;
}

const char *vn_clock_select_id(const vn_clocks_report *r)
{
    return why_ids[choose(r)];
}

vn_clock_why vn_clock_select(const vn_clocks_report *r, vn_clock_id *out, char *reason,
                             size_t reasonlen)
{
    const vn_clock_probe *lf = find(r, VN_CLOCK_TSC_LFENCE);
    const vn_clock_probe *cp = find(r, VN_CLOCK_TSC_CPUID);
    const vn_clock_probe *cv = find(r, VN_CLOCK_CNTVCT);
    const vn_clock_probe *mono = find(r, VN_CLOCK_MONOTONIC);
    const char *agrees = r->crosscpu_done && r->crosscpu.ncpus > 1 ? " and agrees across CPUs" : "";
    char a[32], b[32];
    vn_clock_why sel = choose(r);

    if (sel == VN_CLOCK_WHY_ARCH_COUNTER) {
        *out = VN_CLOCK_CNTVCT;
        vn__fmt_ns(a, sizeof a, cv->latency_ns);
        snprintf(reason, reasonlen,
                 "the aarch64 virtual counter runs at a constant architected rate and costs %s per read",
                 a);
        return sel;
    }
    if (sel == VN_CLOCK_WHY_TSC_CPUID_COSTLY || sel == VN_CLOCK_WHY_INVARIANT_TSC) {
        *out = VN_CLOCK_TSC_LFENCE;
        vn__fmt_ns(a, sizeof a, lf->latency_ns);
        if (sel == VN_CLOCK_WHY_TSC_CPUID_COSTLY) {
            vn__fmt_ns(b, sizeof b, cp->latency_ns);
            snprintf(reason, reasonlen,
                     "the TSC is invariant%s; cpuid;rdtsc costs %s per read%s, so lfence;rdtsc (%s) is used",
                     agrees, b, r->tsc.hypervisor == 1 ? " inside a VM" : "", a);
        } else {
            snprintf(reason, reasonlen,
                     "the TSC is invariant%s; lfence;rdtsc orders the read and costs %s", agrees, a);
        }
        return sel;
    }
    *out = VN_CLOCK_MONOTONIC;
    vn__fmt_ns(a, sizeof a, mono ? mono->latency_ns : NAN);
    if (sel == VN_CLOCK_WHY_TSC_UNSTABLE)
        snprintf(reason, reasonlen,
                 "the kernel marked the TSC unstable (it is not among the available clocksources), "
                 "so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else if (sel == VN_CLOCK_WHY_BACKWARDS)
        snprintf(reason, reasonlen,
                 "the CPU counter went backwards across CPUs, so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else if (sel == VN_CLOCK_WHY_UNCALIBRATED)
        snprintf(reason, reasonlen,
                 "the TSC's rate could not be measured to 0.05%%, so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else if (sel == VN_CLOCK_WHY_NOT_INVARIANT)
        snprintf(reason, reasonlen,
                 "the TSC is not invariant (its rate may follow the CPU's frequency), so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else
        snprintf(reason, reasonlen, "no usable CPU counter, so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    return sel;
}
