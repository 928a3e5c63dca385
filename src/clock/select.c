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

/* Each way the choice can go, in the order it is decided; the ids are the
 * stable names `vernier clocks --json` gives them (selected.reason_id). */
typedef enum {
    SEL_CNTVCT,
    SEL_TSC_CPUID_COSTLY,
    SEL_TSC,
    SEL_TSC_UNSTABLE,
    SEL_COUNTER_BACKWARDS,
    SEL_TSC_UNCALIBRATED,
    SEL_TSC_NOT_INVARIANT,
    SEL_NO_COUNTER,
} selection;

static const char *const selection_ids[] = {
    "cntvct", "tsc_cpuid_costly", "tsc_invariant", "tsc_unstable", "counter_backwards",
    "tsc_uncalibrated", "tsc_not_invariant", "no_counter",
};

/* The one decision: which timer, and why. */
static selection choose(const vn_clocks_report *r)
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
        return SEL_CNTVCT;
    if (lf && r->tsc.invariant == 1 && consistent && !kernel_distrusts && calibrated)
        return cp && isfinite(cp->latency_ns) && cp->latency_ns > 2 * lf->latency_ns
                   ? SEL_TSC_CPUID_COSTLY
                   : SEL_TSC;
    if (kernel_distrusts)
        return SEL_TSC_UNSTABLE;
    if ((lf || cv) && !consistent)
        return SEL_COUNTER_BACKWARDS;
    if (lf && r->tsc.invariant == 1 && !calibrated)
        return SEL_TSC_UNCALIBRATED;
    if (lf && r->tsc.invariant != 1)
        return SEL_TSC_NOT_INVARIANT;
    return SEL_NO_COUNTER;
}

const char *vn_clock_select_id(const vn_clocks_report *r)
{
    return selection_ids[choose(r)];
}

void vn_clock_select(const vn_clocks_report *r, vn_clock_id *out, char *reason, size_t reasonlen)
{
    const vn_clock_probe *lf = find(r, VN_CLOCK_TSC_LFENCE);
    const vn_clock_probe *cp = find(r, VN_CLOCK_TSC_CPUID);
    const vn_clock_probe *cv = find(r, VN_CLOCK_CNTVCT);
    const vn_clock_probe *mono = find(r, VN_CLOCK_MONOTONIC);
    const char *agrees = r->crosscpu_done && r->crosscpu.ncpus > 1 ? " and agrees across CPUs" : "";
    char a[32], b[32];
    selection sel = choose(r);

    if (sel == SEL_CNTVCT) {
        *out = VN_CLOCK_CNTVCT;
        vn__fmt_ns(a, sizeof a, cv->latency_ns);
        snprintf(reason, reasonlen,
                 "the aarch64 virtual counter runs at a constant architected rate and costs %s per read",
                 a);
        return;
    }
    if (sel == SEL_TSC_CPUID_COSTLY || sel == SEL_TSC) {
        *out = VN_CLOCK_TSC_LFENCE;
        vn__fmt_ns(a, sizeof a, lf->latency_ns);
        if (sel == SEL_TSC_CPUID_COSTLY) {
            vn__fmt_ns(b, sizeof b, cp->latency_ns);
            snprintf(reason, reasonlen,
                     "the TSC is invariant%s; cpuid;rdtsc costs %s per read%s, so lfence;rdtsc (%s) is used",
                     agrees, b, r->tsc.hypervisor == 1 ? " inside a VM" : "", a);
        } else {
            snprintf(reason, reasonlen,
                     "the TSC is invariant%s; lfence;rdtsc orders the read and costs %s", agrees, a);
        }
        return;
    }
    *out = VN_CLOCK_MONOTONIC;
    vn__fmt_ns(a, sizeof a, mono ? mono->latency_ns : NAN);
    if (sel == SEL_TSC_UNSTABLE)
        snprintf(reason, reasonlen,
                 "the kernel marked the TSC unstable (it is not among the available clocksources), "
                 "so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else if (sel == SEL_COUNTER_BACKWARDS)
        snprintf(reason, reasonlen,
                 "the CPU counter went backwards across CPUs, so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else if (sel == SEL_TSC_UNCALIBRATED)
        snprintf(reason, reasonlen,
                 "the TSC's rate could not be measured to 0.05%%, so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else if (sel == SEL_TSC_NOT_INVARIANT)
        snprintf(reason, reasonlen,
                 "the TSC is not invariant (its rate may follow the CPU's frequency), so CLOCK_MONOTONIC (%s per read) is used",
                 a);
    else
        snprintf(reason, reasonlen, "no usable CPU counter, so CLOCK_MONOTONIC (%s per read) is used",
                 a);
}
