/* The settings that hurt measurement, derived from a snapshot without any
 * I/O so the rules can be tested on fixtures. Each warning has an id that
 * scripts may match, so ids never change once released; messages may.
 * A value that is unknown never produces a warning: vernier says what it
 * knows to be wrong, and "unknown" is shown as such in the report instead. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parse/sysinfo_parse.h"
#include "machine/sysinfo_api.h"

/* brief: the few words the console's one line of machine warnings gives it. */
VN_PRINTF(5, 6)
static void add(vn_sysinfo *s, const char *id, const char *brief, const char *fix,
                const char *fmt, ...)
{
    if (s->nwarnings >= VN_SYSINFO_MAX_WARNINGS)
        return;
    vn_warning *w = &s->warnings[s->nwarnings++];
    snprintf(w->id, sizeof w->id, "%s", id);
    snprintf(w->brief, sizeof w->brief, "%s", brief);
    snprintf(w->fix, sizeof w->fix, "%s", fix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->message, sizeof w->message, fmt, ap);
    va_end(ap);
}

static void check_governor(vn_sysinfo *s)
{
    /* Any governor but "performance" lets the frequency follow the load, so
     * the first iterations of a benchmark run at a lower clock than the rest
     * and the result depends on what ran just before. */
    int bad = 0, known = 0;
    const vn_cpu_freq *first = NULL;
    for (int i = 0; i < s->ncpus; i++) {
        const vn_cpu_freq *f = &s->cpus[i];
        if (!f->governor[0])
            continue;
        known++;
        if (strcmp(f->governor, "performance") != 0) {
            if (!first)
                first = f;
            bad++;
        }
    }
    if (!first)
        return;
    const char *fix = "cpupower frequency-set -g performance";
    char brief[64];
    snprintf(brief, sizeof brief, "governor '%.24s'%s", first->governor,
             bad > 1 ? " on several CPUs" : "");
    if (bad == 1)
        add(s, "governor", brief, fix, "CPU %d governor is '%s', not 'performance'", first->cpu,
            first->governor);
    else
        add(s, "governor", brief, fix, "CPU %d governor is '%s' (%d of %d CPUs not 'performance')",
            first->cpu, first->governor, bad, known);
}

static void check_turbo(vn_sysinfo *s)
{
    /* Turbo frequencies depend on temperature, power budget and how many
     * cores are busy, so two runs of the same code get different clocks. */
    if (s->turbo != 1)
        return;
    const char *src = s->turbo_source;
    if (strcmp(src, "intel_pstate/no_turbo") == 0)
        add(s, "turbo", "turbo on", "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo",
            "turbo boost is on (intel_pstate/no_turbo is 0)");
    else if (strcmp(src, "cpufreq/boost") == 0)
        add(s, "turbo", "turbo on", "echo 0 > /sys/devices/system/cpu/cpufreq/boost",
            "turbo boost is on (cpufreq/boost is 1)");
    else if (src[0])
        add(s, "turbo", "turbo on", "echo 0 | tee /sys/devices/system/cpu/cpu*/cpufreq/boost",
            "turbo boost is on (%s is 1)", src);
    else
        add(s, "turbo", "turbo on", "turn turbo boost off in the firmware (BIOS/UEFI) settings",
            "turbo boost is on");
}

static void check_smt(vn_sysinfo *s)
{
    /* A sibling thread shares the core's execution units, caches and branch
     * predictors; whatever it runs slows the benchmark by a varying amount. */
    if (s->smt != 1)
        return;
    const char *fix = "echo off > /sys/devices/system/cpu/smt/control, or pin the benchmark "
                      "with taskset -c to a core whose sibling thread is idle";
    if (s->logical_cpus > 0 && s->physical_cores > 0)
        add(s, "smt", "SMT on", fix, "SMT is active: %d logical CPUs on %d cores share execution units",
            s->logical_cpus, s->physical_cores);
    else
        add(s, "smt", "SMT on", fix, "SMT is active: sibling threads share a core's execution units");
}

static void check_hypervisor(vn_sysinfo *s)
{
    /* The host schedules the vCPUs: timings include its interrupts and
     * exits, and time the vCPU was not running at all (steal time). */
    if (s->hypervisor != 1)
        return;
    const char *fix = "measure on bare metal, or pin the vCPUs to isolated host cores";
    char brief[64];
    snprintf(brief, sizeof brief, "hypervisor%s%.24s%s", s->hypervisor_vendor[0] ? " (" : "",
             s->hypervisor_vendor, s->hypervisor_vendor[0] ? ")" : "");
    if (s->hypervisor_vendor[0])
        add(s, "hypervisor", brief, fix,
            "running under a hypervisor (%s): timings include its noise and steal time",
            s->hypervisor_vendor);
    else
        add(s, "hypervisor", brief, fix,
            "running under a hypervisor: timings include its noise and steal time");
}

static void check_load(vn_sysinfo *s)
{
    /* Other runnable work preempts the benchmark and evicts its caches. Half
     * a runnable task per CPU is where that starts to show in the tails. */
    if (s->logical_cpus <= 0 || !isfinite(s->loadavg[0]))
        return;
    double limit = 0.5 * s->logical_cpus;
    if (s->loadavg[0] <= limit)
        return;
    char fix[128];
    snprintf(fix, sizeof fix, "stop other work, or wait until the load average is below %.2f",
             limit);
    char brief[64];
    snprintf(brief, sizeof brief, "load %.2f on %d CPU%s", s->loadavg[0], s->logical_cpus,
             s->logical_cpus == 1 ? "" : "s");
    add(s, "load", brief, fix, "load average %.2f on %d CPU%s", s->loadavg[0], s->logical_cpus,
        s->logical_cpus == 1 ? "" : "s");
}

static void check_clocksource(vn_sysinfo *s)
{
    /* With the TSC (x86) or the architected counter (arm64) clock_gettime
     * runs in the vDSO for tens of nanoseconds; with hpet or acpi_pm every
     * read is a system call and a slow device access, a microsecond or
     * more, which swamps short measurements. */
    if (!s->clocksource[0] || strcmp(s->clocksource, "tsc") == 0 ||
        strcmp(s->clocksource, "arch_sys_counter") == 0)
        return;
    const char *avail = s->clocksource_available;
    const char *better = NULL;
    if (vn__word_in_list(avail, "tsc"))
        better = "tsc";
    else if (vn__word_in_list(avail, "arch_sys_counter"))
        better = "arch_sys_counter";
    char brief[64];
    snprintf(brief, sizeof brief, "clocksource '%.32s'", s->clocksource);
    if (better || !avail[0]) {
        char fix[160];
        snprintf(fix, sizeof fix,
                 "echo %s > /sys/devices/system/clocksource/clocksource0/current_clocksource",
                 better ? better : "tsc");
        add(s, "clocksource", brief, fix, "clocksource is '%s', not '%s'", s->clocksource,
            better ? better : "tsc");
    } else {
        add(s, "clocksource", brief,
            "check 'dmesg | grep -i clocksource': a TSC the kernel marked unstable stays "
            "unusable until reboot (tsc=reliable on the boot line overrides the check)",
            "clocksource is '%s' and no TSC clocksource is available (have: %s)",
            s->clocksource, avail);
    }
}

static void check_aslr(vn_sysinfo *s)
{
    /* Randomized stack, heap and library addresses change alignment and
     * cache-set conflicts from run to run, a source of bimodal results. */
    if (s->aslr <= 0)
        return;
    add(s, "aslr", "ASLR on", "sysctl kernel.randomize_va_space=0, or run the benchmark under setarch -R",
        "ASLR is on (randomize_va_space is %d): memory layout changes between runs", s->aslr);
}

static void check_paranoid(vn_sysinfo *s)
{
    /* At 2 an unprivileged process may count only user-mode events, so
     * cycles spent in system calls and page faults go missing; above 2
     * (a Debian and Android patch) it may not open counters at all. */
    if (s->perf_event_paranoid == VN_SYSINFO_PARANOID_UNKNOWN || s->perf_event_paranoid < 2 ||
        s->perf_capable == 1)
        return;
    const char *fix = "sysctl kernel.perf_event_paranoid=1";
    char brief[64];
    snprintf(brief, sizeof brief, "perf_event_paranoid %d", s->perf_event_paranoid);
    if (s->perf_event_paranoid == 2)
        add(s, "perf_paranoid", brief, fix,
            "perf_event_paranoid is 2: unprivileged processes cannot count kernel-mode events");
    else
        add(s, "perf_paranoid", brief, fix,
            "perf_event_paranoid is %d: unprivileged processes cannot use hardware counters",
            s->perf_event_paranoid);
}

static void check_tsc(vn_sysinfo *s)
{
    /* A TSC whose rate follows the core clock, or that stops in deep sleep,
     * does not measure time. */
    if (s->tsc_invariant != 0)
        return;
    add(s, "tsc_not_invariant", "TSC not invariant",
        "nothing to set: vernier times with CLOCK_MONOTONIC here; do not time with raw rdtsc",
        "the TSC is not invariant: its rate may change with frequency or stop in idle states");
}

void vn_sysinfo_derive_warnings(vn_sysinfo *s)
{
    if (!s)
        return;
    s->nwarnings = 0;
    memset(s->warnings, 0, sizeof s->warnings);
    check_governor(s);
    check_turbo(s);
    check_smt(s);
    check_hypervisor(s);
    check_load(s);
    check_clocksource(s);
    check_aslr(s);
    check_paranoid(s);
    check_tsc(s);
}
