/* vn_sysinfo_collect_at on fixture trees shaped like /proc and /sys of five
 * machines (tests/fixtures/sysroot-*), and the exact warnings each gets. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "machine/sysinfo_api.h"
#include "parse/sysinfo_parse.h"

static void collect(const char *tree, vn_sysinfo *s)
{
    char root[4096];
    snprintf(root, sizeof root, "%s/%s", VN_FIXTURES, tree);
    int rc = vn_sysinfo_collect_at(root, s);
    if (rc)
        fail_msg("collect_at(%s) = %d (%s)", root, rc, vn_strerror(rc));
}

/* The text of a file of a fixture tree (static, until the next call). */
static const char *fixture_text(const char *tree, const char *rel)
{
    static char text[1 << 16];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", VN_FIXTURES, tree, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open fixture %s", path);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* What the tree's own files say, through the parsers test_sysinfo_parse
 * checks: the collector must carry it over as it is. */
static const char *model_in(const char *tree)
{
    static vn__cpuinfo ci;
    assert_int_equal(vn__parse_cpuinfo(fixture_text(tree, "proc/cpuinfo"), &ci), 0);
    assert_true(ci.model[0] != '\0');
    return ci.model;
}

static const char *words_in(const char *tree, const char *rel)
{
    static char words[256];
    assert_true(vn__parse_words(fixture_text(tree, rel), words, sizeof words) > 1);
    return words;
}

static const char *line_in(const char *tree, const char *rel)
{
    static char line[256];
    assert_true(vn__parse_line(fixture_text(tree, rel), line, sizeof line) > 0);
    return line;
}

/* Checks the set of warning ids, in any order. ids is NULL-terminated. */
static void expect_ids(const vn_sysinfo *s, const char *const *ids)
{
    int n = 0;
    for (; ids[n]; n++) {
        int found = 0;
        for (int i = 0; i < s->nwarnings; i++)
            found |= strcmp(s->warnings[i].id, ids[n]) == 0;
        if (!found)
            fail_msg("missing warning '%s'", ids[n]);
    }
    if (s->nwarnings != n) {
        for (int i = 0; i < s->nwarnings; i++)
            print_message("got %s: %s\n", s->warnings[i].id, s->warnings[i].message);
        fail_msg("expected %d warnings, got %d", n, s->nwarnings);
    }
}

static void laptop(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-laptop", &s);
    assert_string_equal(s.hostname, "laptop");
    assert_string_equal(s.kernel, "6.1.0-18-amd64");
    assert_string_equal(s.arch, ""); /* only uname knows it */
    assert_string_equal(s.cpu_model, model_in("sysroot-laptop"));
    assert_string_equal(s.cpu_vendor, "GenuineIntel");
    assert_int_equal(s.logical_cpus, 8);
    assert_int_equal(s.physical_cores, 4);
    assert_int_equal(s.sockets, 1);
    assert_int_equal(s.smt, 1);

    assert_int_equal(s.ncaches, 4);
    assert_int_equal(s.caches[0].level, 1);
    assert_string_equal(s.caches[0].type, "Data");
    assert_int_equal(s.caches[0].size_bytes, 48 * 1024);
    assert_int_equal(s.caches[0].shared_cpus, 2);
    assert_string_equal(s.caches[1].type, "Instruction");
    assert_int_equal(s.caches[2].size_bytes, 1280 * 1024);
    assert_int_equal(s.caches[3].level, 3);
    assert_int_equal(s.caches[3].size_bytes, 12288 * 1024);
    assert_int_equal(s.caches[3].shared_cpus, 8);

    assert_int_equal(s.mem_total_bytes, 16132468LL * 1024);
    assert_int_equal(s.mem_available_bytes, 9876544LL * 1024);

    assert_int_equal(s.ncpus, 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(s.cpus[i].cpu, i);
        assert_string_equal(s.cpus[i].governor, "powersave");
        assert_string_equal(s.cpus[i].driver, "intel_pstate");
        assert_int_equal(s.cpus[i].min_khz, 400000);
        assert_int_equal(s.cpus[i].max_khz, 4700000);
    }
    assert_int_equal(s.cpus[6].cur_khz, 4100004);
    assert_int_equal(s.turbo, 1); /* no_turbo 0 */
    assert_string_equal(s.turbo_source, "intel_pstate/no_turbo");
    assert_int_equal(s.isolcpus_count, 0); /* "isolated" exists and is empty */
    assert_int_equal(s.nohz_full_count, 0); /* not on the boot line */
    assert_int_equal(s.aslr, 2);
    assert_int_equal(s.perf_event_paranoid, 2);
    assert_int_equal(s.perf_capable, 0);
    assert_int_equal(s.hypervisor, 0);
    assert_true(fabs(s.loadavg[0] - 0.52) < 1e-9);
    assert_true(fabs(s.loadavg[2] - 0.58) < 1e-9);
    assert_string_equal(s.clocksource, "hpet");
    assert_string_equal(s.clocksource_available,
                        words_in("sysroot-laptop",
                                 "sys/devices/system/clocksource/clocksource0/available_clocksource"));
    assert_int_equal(vn__word_in_list(s.clocksource_available, "tsc"), 1);
    assert_int_equal(s.tsc_invariant, 1);

    /* Idle states in order, the disabled one marked; nobody asks for a
     * latency (the request file reads the kernel's no-request value). */
    assert_string_equal(s.idle_driver, "intel_idle");
    assert_string_equal(s.idle_governor, "menu");
    assert_int_equal(s.nidle, 5);
    assert_string_equal(s.idle[3].name, "C6");
    assert_int_equal(s.idle[3].exit_us, 170);
    assert_int_equal(s.idle[3].disabled, 0);
    assert_string_equal(s.idle[4].name, "C10");
    assert_int_equal(s.idle[4].disabled, 1);
    assert_int_equal(s.latency_request_us, VN_SYSINFO_NO_LATENCY_REQUEST);
    static const char *const ids[] = {"governor", "turbo", "smt", "clocksource",
                                      "aslr", "perf_paranoid", NULL};
    expect_ids(&s, ids);
    vn_sysinfo_free(&s);
    assert_null(s.cpus);
    vn_sysinfo_free(&s); /* twice is harmless */
}

static void tuned_server(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-tuned", &s);
    assert_int_equal(s.logical_cpus, 8);
    assert_int_equal(s.physical_cores, 8);
    assert_int_equal(s.sockets, 2);
    assert_int_equal(s.smt, 0);
    assert_int_equal(s.turbo, 0); /* no_turbo 1 */
    assert_string_equal(s.isolcpus, "2-3,6-7");
    assert_int_equal(s.isolcpus_count, 4);
    assert_string_equal(s.nohz_full, "2-3,6-7");
    assert_int_equal(s.nohz_full_count, 4);
    assert_int_equal(s.aslr, 0);
    assert_int_equal(s.perf_event_paranoid, 1);
    assert_string_equal(s.clocksource, "tsc");
    assert_int_equal(s.caches[3].shared_cpus, 4);
    assert_int_equal(s.mem_total_bytes, 131895652LL * 1024);
    assert_int_equal(s.latency_request_us, 0); /* held, as tuned's profiles do */
    assert_int_equal(s.nidle, 0);
    assert_int_equal(s.nwarnings, 0);
    vn_sysinfo_free(&s);
}

static void busy_desktop(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-desktop", &s);
    assert_string_equal(s.cpu_model, model_in("sysroot-desktop"));
    assert_int_equal(s.logical_cpus, 8);
    /* Siblings are numbered side by side (0-1, 2-3, ...) here. */
    assert_int_equal(s.physical_cores, 4);
    assert_int_equal(s.sockets, 1);
    /* No smt/active on this kernel: more CPUs than cores means SMT. */
    assert_int_equal(s.smt, 1);
    assert_int_equal(s.turbo, 1);
    assert_string_equal(s.turbo_source, "cpufreq/boost");
    assert_int_equal(s.perf_event_paranoid, -1);
    assert_int_equal(s.perf_capable, -1); /* no proc/self/status */
    assert_string_equal(s.cpus[0].driver, "acpi-cpufreq");
    assert_true(fabs(s.loadavg[0] - 9.5) < 1e-9);

    static const char *const ids[] = {"turbo", "smt", "load", NULL};
    expect_ids(&s, ids);
    for (int i = 0; i < s.nwarnings; i++) {
        if (strcmp(s.warnings[i].id, "turbo") == 0)
            assert_string_equal(s.warnings[i].fix, "echo 0 > /sys/devices/system/cpu/cpufreq/boost");
        if (strcmp(s.warnings[i].id, "load") == 0)
            assert_non_null(strstr(s.warnings[i].message, "9.50")); /* the load it warns of */
    }
    vn_sysinfo_free(&s);
}

static void kvm_guest(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-vm", &s);
    assert_string_equal(s.cpu_model, model_in("sysroot-vm"));
    assert_int_equal(s.logical_cpus, 2);
    assert_int_equal(s.physical_cores, 2);
    assert_int_equal(s.smt, 0);
    assert_int_equal(s.hypervisor, 1);
    assert_string_equal(s.hypervisor_vendor, ""); /* only CPUID names it */
    /* No cpufreq at all: every CPU is listed, with nothing known. */
    assert_int_equal(s.ncpus, 2);
    assert_string_equal(s.cpus[1].governor, "");
    assert_int_equal(s.cpus[1].max_khz, -1);
    assert_int_equal(s.turbo, -1);
    /* No sysfs isolation files: the boot line is read, up to "--". */
    assert_string_equal(s.isolcpus, "1");
    assert_int_equal(s.isolcpus_count, 1);
    assert_int_equal(s.nohz_full_count, 0);
    assert_int_equal(s.perf_event_paranoid, 3);
    assert_int_equal(s.perf_capable, 1); /* root: the paranoid level does not apply */
    assert_string_equal(s.clocksource, "kvm-clock");
    /* haltpoll: its governor file is the read-only one. */
    assert_string_equal(s.idle_driver, "haltpoll");
    assert_string_equal(s.idle_governor, "haltpoll");
    assert_int_equal(s.nidle, 2);
    assert_string_equal(s.idle[1].name,
                        line_in("sysroot-vm", "sys/devices/system/cpu/cpu0/cpuidle/state1/name"));
    assert_int_equal(s.idle[1].exit_us, 1);
    assert_int_equal(s.latency_request_us, -1); /* no file: unknown */

    static const char *const ids[] = {"hypervisor", "load", "clocksource", "aslr", NULL};
    expect_ids(&s, ids);
    vn_sysinfo_free(&s);
}

static void assert_all_unknown_but_cpus(const vn_sysinfo *s)
{
    assert_int_equal(s->physical_cores, -1);
    assert_int_equal(s->sockets, -1);
    assert_int_equal(s->smt, -1);
    assert_int_equal(s->ncaches, 0);
    assert_int_equal(s->mem_total_bytes, -1);
    assert_int_equal(s->ncpus, 0);
    assert_null(s->cpus);
    assert_int_equal(s->turbo, -1);
    assert_int_equal(s->isolcpus_count, -1);
    assert_int_equal(s->nohz_full_count, -1);
    assert_int_equal(s->aslr, -1);
    assert_int_equal(s->perf_event_paranoid, VN_SYSINFO_PARANOID_UNKNOWN);
    assert_int_equal(s->perf_capable, -1);
    assert_int_equal(s->hypervisor, -1);
    assert_true(isnan(s->loadavg[0]));
    assert_string_equal(s->clocksource, "");
    assert_int_equal(s->tsc_invariant, -1);
    assert_int_equal(s->nidle, 0);
    assert_string_equal(s->idle_driver, "");
    assert_int_equal(s->latency_request_us, -1);
    assert_int_equal(s->nwarnings, 0);
}

static void minimal_arm64(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-minimal", &s);
    assert_int_equal(s.logical_cpus, 4); /* from cpuinfo, without "online" */
    assert_string_equal(s.cpu_model, "");
    assert_all_unknown_but_cpus(&s);
    vn_sysinfo_free(&s);
}

static void empty_root(void **state)
{
    (void)state;
    char dir[] = "/tmp/vn-empty-root-XXXXXX";
    assert_non_null(mkdtemp(dir));
    vn_sysinfo s;
    int rc = vn_sysinfo_collect_at(dir, &s);
    rmdir(dir);
    assert_int_equal(rc, 0);
    assert_int_equal(s.logical_cpus, -1);
    assert_all_unknown_but_cpus(&s);
    vn_sysinfo_free(&s);
}

static void bad_roots(void **state)
{
    (void)state;
    vn_sysinfo s;
    memset(&s, 0x33, sizeof s);
    assert_int_equal(vn_sysinfo_collect_at("/nonexistent/vernier-root", &s), VN_ENOENT);
    assert_int_equal(vn_sysinfo_collect_at(VN_FIXTURES "/sysroot-minimal/proc/cpuinfo", &s),
                     -ENOTDIR);
    assert_int_equal(vn_sysinfo_collect_at("", &s), VN_EINVAL);
    assert_int_equal(vn_sysinfo_collect_at(NULL, &s), VN_EINVAL);
    assert_int_equal(vn_sysinfo_collect_at(VN_FIXTURES, NULL), VN_EINVAL);
    /* The output is left alone on failure. */
    assert_int_equal(s.logical_cpus, 0x33333333);
}

static void trailing_slash(void **state)
{
    (void)state;
    vn_sysinfo s;
    collect("sysroot-tuned/", &s);
    assert_int_equal(s.sockets, 2);
    vn_sysinfo_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(laptop),
        cmocka_unit_test(tuned_server),
        cmocka_unit_test(busy_desktop),
        cmocka_unit_test(kvm_guest),
        cmocka_unit_test(minimal_arm64),
        cmocka_unit_test(empty_root),
        cmocka_unit_test(bad_roots),
        cmocka_unit_test(trailing_slash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
