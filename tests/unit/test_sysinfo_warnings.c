/* The rules that turn a snapshot into warnings, one setting at a time, on
 * snapshots built in the test (vn_sysinfo_derive_warnings does no I/O). */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parse/sysinfo_parse.h"
#include "machine/sysinfo_api.h"

/* The ids docs/env.md documents; scripts match them, so a new one must be
 * documented before this list grows. */
static const char *const documented_ids[] = {
    "governor", "turbo", "smt", "hypervisor", "load",
    "clocksource", "aslr", "perf_paranoid", "tsc_not_invariant",
};

static const vn_warning *find(const vn_sysinfo *s, const char *id)
{
    for (int i = 0; i < s->nwarnings; i++)
        if (strcmp(s->warnings[i].id, id) == 0)
            return &s->warnings[i];
    return NULL;
}

/* Derives and checks that exactly one warning came out, with this id. */
static const vn_warning *only(vn_sysinfo *s, const char *id)
{
    vn_sysinfo_derive_warnings(s);
    if (s->nwarnings != 1)
        fail_msg("expected only '%s', got %d warnings (first '%s')", id, s->nwarnings,
                 s->nwarnings ? s->warnings[0].id : "");
    assert_string_equal(s->warnings[0].id, id);
    assert_true(s->warnings[0].message[0] != '\0');
    assert_true(s->warnings[0].fix[0] != '\0');
    assert_null(strchr(s->warnings[0].message, '\n'));
    return &s->warnings[0];
}

static void none(vn_sysinfo *s)
{
    vn_sysinfo_derive_warnings(s);
    if (s->nwarnings != 0)
        fail_msg("expected no warning, got '%s': %s", s->warnings[0].id, s->warnings[0].message);
}

static void contains(const char *haystack, const char *needle)
{
    const char *at = strstr(haystack, needle);
    if (!at)
        fail_msg("'%s' does not contain '%s'", haystack, needle);
}

/* Checks the numbers text gives, in order, against want ("1.42 2"): the
 * values a warning reports, whatever the words around them. A digit inside
 * a name (cpu0, clocksource0) is part of the name. */
static void numbers_are(const char *text, const char *want)
{
    char got[256] = "";
    size_t len = 0;
    for (const char *p = text; *p && len < sizeof got;) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
        } else if (isdigit((unsigned char)*p) && (p == text || p[-1] != '.')) {
            size_t n = strspn(p, "0123456789.");
            while (n && p[n - 1] == '.')
                n--;
            len += (size_t)snprintf(got + len, sizeof got - len, "%s%.*s", len ? " " : "", (int)n, p);
            p += n;
        } else {
            p++;
        }
    }
    if (strcmp(got, want) != 0) {
        fail_msg("'%s' gives the numbers '%s', not '%s'", text, got, want);
    }
}

static void unknown_gives_nothing(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    none(&s);
    /* CPUs whose cpufreq settings are all unknown say nothing either. */
    vn_cpu_freq cpus[2];
    memset(cpus, 0, sizeof cpus);
    cpus[0].cur_khz = cpus[0].min_khz = cpus[0].max_khz = -1;
    cpus[1] = cpus[0];
    cpus[1].cpu = 1;
    s.cpus = cpus;
    s.ncpus = 2;
    none(&s);
}

static void governor(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    vn_cpu_freq cpus[4];
    memset(cpus, 0, sizeof cpus);
    for (int i = 0; i < 4; i++) {
        cpus[i].cpu = i;
        snprintf(cpus[i].governor, sizeof cpus[i].governor, "performance");
    }
    s.cpus = cpus;
    s.ncpus = 4;
    none(&s);

    /* The CPU and its governor; the fix sets the one wanted. */
    snprintf(cpus[2].governor, sizeof cpus[2].governor, "powersave");
    const vn_warning *w = only(&s, "governor");
    contains(w->message, "'powersave'");
    numbers_are(w->message, "2");
    contains(w->fix, "performance");

    /* The first CPU, and how many of those known are not "performance". */
    snprintf(cpus[3].governor, sizeof cpus[3].governor, "schedutil");
    cpus[0].governor[0] = '\0'; /* unknown: counted neither way */
    w = only(&s, "governor");
    contains(w->message, "'powersave'");
    numbers_are(w->message, "2 2 3");
}

static void turbo(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    s.turbo = 0;
    snprintf(s.turbo_source, sizeof s.turbo_source, "intel_pstate/no_turbo");
    none(&s);

    s.turbo = 1;
    const vn_warning *w = only(&s, "turbo");
    assert_string_equal(w->fix, "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo");
    contains(w->message, "intel_pstate/no_turbo");
    numbers_are(w->message, "0");

    snprintf(s.turbo_source, sizeof s.turbo_source, "cpufreq/boost");
    w = only(&s, "turbo");
    assert_string_equal(w->fix, "echo 0 > /sys/devices/system/cpu/cpufreq/boost");

    snprintf(s.turbo_source, sizeof s.turbo_source, "cpu0/cpufreq/boost");
    w = only(&s, "turbo");
    contains(w->fix, "/sys/devices/system/cpu/cpu*/cpufreq/boost");
    contains(w->message, "cpu0/cpufreq/boost");
    numbers_are(w->message, "1");
}

static void smt(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    s.smt = 0;
    none(&s);
    s.smt = 1;
    s.logical_cpus = 8;
    s.physical_cores = 4;
    const vn_warning *w = only(&s, "smt");
    numbers_are(w->message, "8 4"); /* logical CPUs, cores */
    contains(w->fix, "/sys/devices/system/cpu/smt/control");
    contains(w->fix, "taskset -c");
}

static void hypervisor(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    s.hypervisor = 0;
    none(&s);
    s.hypervisor = 1;
    /* Named when CPUID names it. */
    const vn_warning *w = only(&s, "hypervisor");
    assert_null(strchr(w->message, '('));
    snprintf(s.hypervisor_vendor, sizeof s.hypervisor_vendor, "kvm");
    w = only(&s, "hypervisor");
    contains(w->message, "(kvm)");
    contains(w->brief, "kvm");
}

static void load(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    s.loadavg[0] = 1.42;
    none(&s); /* CPU count unknown: no threshold */

    s.logical_cpus = 2;
    /* The load and the CPUs; the fix gives the load to wait for. */
    const vn_warning *w = only(&s, "load");
    numbers_are(w->message, "1.42 2");
    numbers_are(w->fix, "1.00");

    s.loadavg[0] = 1.0; /* exactly half a task per CPU is still fine */
    none(&s);
    s.loadavg[0] = NAN;
    none(&s);
    s.logical_cpus = 1;
    s.loadavg[0] = 0.75;
    w = only(&s, "load");
    numbers_are(w->message, "0.75 1");
    numbers_are(w->fix, "0.50");
}

static void clocksource(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    snprintf(s.clocksource, sizeof s.clocksource, "tsc");
    none(&s);
    snprintf(s.clocksource, sizeof s.clocksource, "arch_sys_counter");
    none(&s);

    snprintf(s.clocksource, sizeof s.clocksource, "hpet");
    snprintf(s.clocksource_available, sizeof s.clocksource_available, "tsc hpet acpi_pm");
    /* The clocksource in use and the one to write instead. */
    const char *current = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
    const vn_warning *w = only(&s, "clocksource");
    contains(w->message, "'hpet'");
    contains(w->message, "'tsc'");
    contains(w->fix, current);
    contains(w->fix, "tsc");

    /* The TSC was rejected by the kernel: writing it would fail, so the fix
     * does not, and the message says what there is. */
    snprintf(s.clocksource_available, sizeof s.clocksource_available, "hpet acpi_pm");
    w = only(&s, "clocksource");
    contains(w->message, "'hpet'");
    contains(w->message, s.clocksource_available);
    assert_null(strstr(w->fix, current));
    contains(w->fix, "dmesg");

    /* Nothing known about the alternatives: suggest the TSC. */
    s.clocksource_available[0] = '\0';
    w = only(&s, "clocksource");
    contains(w->fix, current);
    contains(w->fix, "tsc");
}

static void aslr(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    s.aslr = 0;
    none(&s);
    s.aslr = 1;
    only(&s, "aslr");
    s.aslr = 2;
    const vn_warning *w = only(&s, "aslr");
    contains(w->message, "randomize_va_space");
    numbers_are(w->message, "2");
    contains(w->fix, "kernel.randomize_va_space=0");
    contains(w->fix, "setarch -R");
}

static void perf_paranoid(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    s.perf_event_paranoid = -1; /* a real value: everything allowed */
    none(&s);
    s.perf_event_paranoid = 1;
    none(&s);
    s.perf_event_paranoid = 2;
    /* At 2 the kernel-mode events are lost; above, every counter. */
    const vn_warning *w = only(&s, "perf_paranoid");
    numbers_are(w->message, "2");
    contains(w->message, "kernel-mode");
    contains(w->fix, "kernel.perf_event_paranoid=1");
    s.perf_capable = 0;
    only(&s, "perf_paranoid");
    s.perf_event_paranoid = 3;
    w = only(&s, "perf_paranoid");
    numbers_are(w->message, "3");
    assert_null(strstr(w->message, "kernel-mode"));
    contains(w->fix, "kernel.perf_event_paranoid=1");
    /* CAP_PERFMON or CAP_SYS_ADMIN bypasses the setting. */
    s.perf_capable = 1;
    none(&s);
}

static void tsc(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    s.tsc_invariant = 1;
    none(&s);
    s.tsc_invariant = 0;
    const vn_warning *w = only(&s, "tsc_not_invariant");
    contains(w->fix, "CLOCK_MONOTONIC"); /* what vernier times with instead */
}

static void isolcpus_is_not_a_warning(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    s.isolcpus_count = 0;
    s.nohz_full_count = 0;
    none(&s);
}

static void everything_at_once_is_idempotent(void **state)
{
    (void)state;
    vn_sysinfo s;
    vn__sysinfo_reset(&s);
    vn_cpu_freq cpu;
    memset(&cpu, 0, sizeof cpu);
    snprintf(cpu.governor, sizeof cpu.governor, "ondemand");
    s.cpus = &cpu;
    s.ncpus = 1;
    s.turbo = 1;
    s.smt = 1;
    s.hypervisor = 1;
    s.logical_cpus = 1;
    s.loadavg[0] = 3;
    snprintf(s.clocksource, sizeof s.clocksource, "acpi_pm");
    s.aslr = 2;
    s.perf_event_paranoid = 4;
    s.tsc_invariant = 0;
    for (int round = 0; round < 2; round++) {
        vn_sysinfo_derive_warnings(&s);
        assert_int_equal(s.nwarnings, 9);
    }
    /* Every id is documented, and each appears once. */
    for (size_t k = 0; k < sizeof documented_ids / sizeof documented_ids[0]; k++)
        assert_non_null(find(&s, documented_ids[k]));
    for (int i = 0; i < s.nwarnings; i++)
        for (int k = i + 1; k < s.nwarnings; k++)
            assert_string_not_equal(s.warnings[i].id, s.warnings[k].id);
    vn_sysinfo_derive_warnings(NULL); /* no crash */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unknown_gives_nothing),
        cmocka_unit_test(governor),
        cmocka_unit_test(turbo),
        cmocka_unit_test(smt),
        cmocka_unit_test(hypervisor),
        cmocka_unit_test(load),
        cmocka_unit_test(clocksource),
        cmocka_unit_test(aslr),
        cmocka_unit_test(perf_paranoid),
        cmocka_unit_test(tsc),
        cmocka_unit_test(isolcpus_is_not_a_warning),
        cmocka_unit_test(everything_at_once_is_idempotent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
