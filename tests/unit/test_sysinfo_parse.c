/* The pure parsers of /proc and /sys text, fed captured and hand-written
 * fixtures (see tests/fixtures/README.md for where each comes from). */
#include <limits.h>
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

static char *slurp(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", VN_FIXTURES, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open fixture %s", path);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* ---- /proc/cpuinfo ------------------------------------------------------ */

static void cpuinfo_amd_kvm_guest(void **state)
{
    (void)state;
    char *t = slurp("cpuinfo/amd-epyc-kvm-2cpu.txt");
    vn__cpuinfo ci;
    assert_int_equal(vn__parse_cpuinfo(t, &ci), 0);
    /* The fixture's own text, which is what the parser must give back. */
    assert_string_equal(ci.model, "AMD EPYC");
    assert_string_equal(ci.vendor, "AuthenticAMD");
    assert_string_equal(ci.microcode, "0x1000065");
    assert_int_equal(ci.processors, 2);
    assert_int_equal(ci.physical_cores, 2);
    assert_int_equal(ci.sockets, 1);
    assert_int_equal(ci.siblings, 2);
    assert_int_equal(ci.cpu_cores, 2);
    assert_int_equal(ci.has_x86_flags, 1);
    assert_int_equal(vn__cpuinfo_has_flag(t, "hypervisor"), 1);
    assert_int_equal(vn__cpuinfo_has_flag(t, "constant_tsc"), 1);
    assert_int_equal(vn__cpuinfo_has_flag(t, "nonstop_tsc"), 1);
    assert_int_equal(vn__cpuinfo_has_flag(t, "fpu"), 1);                 /* first word */
    assert_int_equal(vn__cpuinfo_has_flag(t, "avx512_vp2intersect"), 1); /* last word */
    /* Whole words only: "avx512" is a prefix of several flags, not a flag. */
    assert_int_equal(vn__cpuinfo_has_flag(t, "avx512"), 0);
    assert_int_equal(vn__cpuinfo_has_flag(t, "ht"), 1);
    /* "spectre_v1" is on the bugs line, not the flags line. */
    assert_int_equal(vn__cpuinfo_has_flag(t, "spectre_v1"), 0);
    free(t);
}

static void cpuinfo_intel_laptop(void **state)
{
    (void)state;
    char *t = slurp("cpuinfo/intel-i7-1165g7-4c8t.txt");
    vn__cpuinfo ci;
    assert_int_equal(vn__parse_cpuinfo(t, &ci), 0);
    /* The fixture's own text, which is what the parser must give back. */
    assert_string_equal(ci.model, "11th Gen Intel(R) Core(TM) i7-1165G7 @ 2.80GHz");
    assert_string_equal(ci.vendor, "GenuineIntel");
    assert_string_equal(ci.microcode, "0xa4");
    assert_int_equal(ci.processors, 8);
    assert_int_equal(ci.physical_cores, 4); /* core ids 0-3, each twice */
    assert_int_equal(ci.sockets, 1);
    assert_int_equal(ci.siblings, 8);
    assert_int_equal(ci.cpu_cores, 4);
    assert_int_equal(vn__cpuinfo_has_flag(t, "hypervisor"), 0);
    assert_int_equal(vn__cpuinfo_has_flag(t, "constant_tsc"), 1);
    assert_int_equal(vn__cpuinfo_has_flag(t, "hwp"), 1);
    /* "preemption_timer" is only on the "vmx flags" line, whose key is not "flags". */
    assert_int_equal(vn__cpuinfo_has_flag(t, "preemption_timer"), 0);
    free(t);
}

static void cpuinfo_two_sockets(void **state)
{
    (void)state;
    char *t = slurp("sysroot-tuned/proc/cpuinfo");
    vn__cpuinfo ci;
    assert_int_equal(vn__parse_cpuinfo(t, &ci), 0);
    assert_int_equal(ci.processors, 8);
    /* Core ids repeat across sockets; the pair (socket, core) is unique. */
    assert_int_equal(ci.physical_cores, 8);
    assert_int_equal(ci.sockets, 2);
    free(t);
}

static void cpuinfo_arm64(void **state)
{
    (void)state;
    char *t = slurp("cpuinfo/arm64-neoverse-n1-4cpu.txt");
    vn__cpuinfo ci;
    assert_int_equal(vn__parse_cpuinfo(t, &ci), 0);
    assert_int_equal(ci.processors, 4);
    assert_string_equal(ci.model, "");
    assert_string_equal(ci.vendor, "");
    assert_string_equal(ci.microcode, "");
    assert_int_equal(ci.physical_cores, -1);
    assert_int_equal(ci.sockets, -1);
    assert_int_equal(ci.has_x86_flags, 0);
    assert_int_equal(vn__cpuinfo_has_flag(t, "asimd"), 1); /* "Features" */
    assert_int_equal(vn__cpuinfo_has_flag(t, "hypervisor"), 0);
    free(t);
}

static void cpuinfo_incomplete(void **state)
{
    (void)state;
    vn__cpuinfo ci;
    assert_int_equal(vn__parse_cpuinfo("", &ci), 0);
    assert_int_equal(ci.processors, 0);
    assert_int_equal(ci.physical_cores, -1);
    assert_int_equal(ci.siblings, -1);
    assert_int_equal(vn__parse_cpuinfo(NULL, &ci), 0);
    assert_int_equal(ci.processors, 0);
    assert_int_equal(vn__cpuinfo_has_flag("processor\t: 0\n", "fpu"), -1);

    /* One processor without "core id" makes the core count unknown, not a
     * count of the others. */
    const char *partial = "processor\t: 0\nphysical id\t: 0\ncore id\t\t: 0\n\n"
                          "processor\t: 1\nphysical id\t: 0\n\n";
    assert_int_equal(vn__parse_cpuinfo(partial, &ci), 0);
    assert_int_equal(ci.processors, 2);
    assert_int_equal(ci.physical_cores, -1);
    assert_int_equal(ci.sockets, -1);

    /* No trailing newline, junk lines, and a value with a colon inside. */
    const char *odd = "garbage without colon\nprocessor : 0\nmodel name : A: B \n"
                      "physical id : 3\ncore id : 7";
    assert_int_equal(vn__parse_cpuinfo(odd, &ci), 0);
    assert_int_equal(ci.processors, 1);
    assert_string_equal(ci.model, "A: B");
    assert_int_equal(ci.physical_cores, 1);
    assert_int_equal(ci.sockets, 1);
}

/* ---- CPU lists ---------------------------------------------------------- */

static void cpulist_valid(void **state)
{
    (void)state;
    int cpus[16];
    assert_int_equal(vn__parse_cpulist("0-3,8,10-11\n", cpus, 16), 7);
    const int want[] = {0, 1, 2, 3, 8, 10, 11};
    for (int i = 0; i < 7; i++)
        assert_int_equal(cpus[i], want[i]);
    assert_int_equal(vn__parse_cpulist("5", cpus, 16), 1);
    assert_int_equal(cpus[0], 5);
    assert_int_equal(vn__parse_cpulist("", NULL, 0), 0);
    assert_int_equal(vn__parse_cpulist("\n", NULL, 0), 0);
    assert_int_equal(vn__parse_cpulist("  0-1 \n", NULL, 0), 2);
    assert_int_equal(vn__parse_cpulist("3-3", NULL, 0), 1);
    assert_int_equal(vn__parse_cpulist("65535", NULL, 0), 1);
    assert_int_equal(vn__parse_cpulist("0-8191", NULL, 0), 8192);

    /* The used/group stride of isolcpus=: two of every four. */
    assert_int_equal(vn__parse_cpulist("0-15:2/4", cpus, 16), 8);
    const int strided[] = {0, 1, 4, 5, 8, 9, 12, 13};
    for (int i = 0; i < 8; i++)
        assert_int_equal(cpus[i], strided[i]);
}

static void cpulist_truncates_to_max(void **state)
{
    (void)state;
    int cpus[4] = {-7, -7, -7, -7};
    assert_int_equal(vn__parse_cpulist("0-9", cpus, 3), 10);
    assert_int_equal(cpus[0], 0);
    assert_int_equal(cpus[2], 2);
    assert_int_equal(cpus[3], -7); /* never written past max */
}

static void cpulist_malformed(void **state)
{
    (void)state;
    static const char *bad[] = {
        "3-1", "1,", ",1", "a", "1-", "-1", "1--2", "1,,2", "1 2", "0x3", "1-2-3",
        "0-3:0/4", "0-3:5/4", "0-3:2", "0-3:2/", "0-3:2/0", "65536", "99999999999999999999",
        "0-65536", "2\n3",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = vn__parse_cpulist(bad[i], NULL, 0);
        if (rc != VN_EINVAL)
            fail_msg("'%s' parsed as %d, expected VN_EINVAL", bad[i], rc);
    }
    assert_int_equal(vn__parse_cpulist(NULL, NULL, 0), VN_EINVAL);
}

/* ---- sizes, integers, lines, words -------------------------------------- */

static void sizes(void **state)
{
    (void)state;
    long long v = 0;
    assert_int_equal(vn__parse_size("32K", &v), 0);
    assert_int_equal(v, 32768);
    assert_int_equal(vn__parse_size("1024 KB", &v), 0); /* cpuinfo "cache size" */
    assert_int_equal(v, 1048576);
    assert_int_equal(vn__parse_size("8M\n", &v), 0);
    assert_int_equal(v, 8388608);
    assert_int_equal(vn__parse_size("1G", &v), 0);
    assert_int_equal(v, 1073741824LL);
    assert_int_equal(vn__parse_size("48KiB", &v), 0);
    assert_int_equal(v, 49152);
    assert_int_equal(vn__parse_size("512", &v), 0);
    assert_int_equal(v, 512);
    assert_int_equal(vn__parse_size("32768K", &v), 0);
    assert_int_equal(v, 33554432);

    v = 99;
    static const char *bad[] = {"", "K", "12Q", "-1K", "1.5M", "8 M B x", "M8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (vn__parse_size(bad[i], &v) != VN_EINVAL)
            fail_msg("'%s' accepted", bad[i]);
    assert_int_equal(v, 99); /* untouched on failure */
    assert_int_equal(vn__parse_size("99999999999999999999K", &v), VN_ERANGE);
    assert_int_equal(vn__parse_size("9007199254740993M", &v), VN_ERANGE);
}

static void integers(void **state)
{
    (void)state;
    long long v = 0;
    assert_int_equal(vn__parse_int("2\n", &v), 0);
    assert_int_equal(v, 2);
    assert_int_equal(vn__parse_int("-1\n", &v), 0); /* perf_event_paranoid */
    assert_int_equal(v, -1);
    assert_int_equal(vn__parse_int(" 4700000 ", &v), 0);
    assert_int_equal(v, 4700000);
    assert_int_equal(vn__parse_int("-9223372036854775808", &v), 0);
    assert_true(v == LLONG_MIN);
    v = 5;
    assert_int_equal(vn__parse_int("", &v), VN_EINVAL);
    assert_int_equal(vn__parse_int("\n", &v), VN_EINVAL);
    assert_int_equal(vn__parse_int("1x", &v), VN_EINVAL);
    assert_int_equal(vn__parse_int("1 2", &v), VN_EINVAL);
    assert_int_equal(vn__parse_int("-", &v), VN_EINVAL);
    assert_int_equal(vn__parse_int("9223372036854775808", &v), VN_ERANGE);
    assert_int_equal(v, 5);
}

static void lines_and_words(void **state)
{
    (void)state;
    char out[16];
    assert_int_equal(vn__parse_line("  hpet \nsecond line", out, sizeof out), 4);
    assert_string_equal(out, "hpet");
    assert_int_equal(vn__parse_line("\n", out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(vn__parse_line("0123456789abcdefXYZ", out, 8), 7);
    assert_string_equal(out, "0123456");

    /* The words joined by single spaces. */
    char list[64], all[64];
    assert_int_equal(vn__parse_words("tsc hpet acpi_pm \n", all, sizeof all), 3);
    /* The input's own words are the subject, compared whole. */
    assert_string_equal(all, "tsc hpet acpi_pm");
    assert_int_equal(vn__parse_words("tsc kvm-clock \n", list, sizeof list), 2);
    /* A '-' inside a word keeps it one: the input's own words, compared whole. */
    assert_string_equal(list, "tsc kvm-clock");
    assert_int_equal(vn__parse_words("  \n", list, sizeof list), 0);
    assert_string_equal(list, "");
    /* A word that does not fit is left out whole, never cut: the words
     * that fit are the list's first ones, up to a space of the whole. */
    char small[9];
    assert_int_equal(vn__parse_words("tsc hpet acpi_pm", small, sizeof small), 2);
    assert_int_equal(strlen(small), 8);
    assert_memory_equal(small, all, 8);
    assert_int_equal(all[8], ' ');
    assert_int_equal(vn__parse_words("tsc hpet acpi_pm", small, 8), 1);
    assert_string_equal(small, "tsc");

    assert_int_equal(vn__word_in_list("tsc hpet", "tsc"), 1);
    assert_int_equal(vn__word_in_list("tsc hpet", "hpet"), 1);
    assert_int_equal(vn__word_in_list("tsc hpet", "ts"), 0);
    assert_int_equal(vn__word_in_list("kvm-clock", "tsc"), 0);
    assert_int_equal(vn__word_in_list("", "tsc"), 0);
    assert_int_equal(vn__word_in_list("tsc", ""), 0);
}

/* ---- /proc/meminfo, /proc/loadavg --------------------------------------- */

static void meminfo(void **state)
{
    (void)state;
    const char *text = "MemTotal:       24684092 kB\nMemFree:        24050232 kB\n"
                       "MemAvailable:   24361176 kB\nBuffers:            1852 kB\n";
    long long total = 0, avail = 0;
    assert_int_equal(vn__parse_meminfo(text, &total, &avail), 0);
    assert_int_equal(total, 24684092LL * 1024);
    assert_int_equal(avail, 24361176LL * 1024);

    /* Kernels before 3.14 have no MemAvailable. */
    assert_int_equal(vn__parse_meminfo("MemTotal: 1000 kB\nMemFree: 10 kB\n", &total, &avail), 0);
    assert_int_equal(total, 1024000);
    assert_int_equal(avail, -1);

    assert_int_equal(vn__parse_meminfo("MemFree: 10 kB\n", &total, &avail), VN_EINVAL);
    assert_int_equal(total, -1);
    assert_int_equal(vn__parse_meminfo("MemTotal: lots\n", &total, &avail), VN_EINVAL);
    assert_int_equal(vn__parse_meminfo("MemTotal: 12 MB\n", &total, &avail), VN_EINVAL);
}

static void loadavg(void **state)
{
    (void)state;
    double v[3] = {0, 0, 0};
    assert_int_equal(vn__parse_loadavg("0.35 0.17 0.07 1/82 3424\n", v), 0);
    assert_true(fabs(v[0] - 0.35) < 1e-9);
    assert_true(fabs(v[1] - 0.17) < 1e-9);
    assert_true(fabs(v[2] - 0.07) < 1e-9);
    assert_int_equal(vn__parse_loadavg("12 3.5 0", v), 0);
    assert_true(v[0] == 12 && v[1] == 3.5 && v[2] == 0);

    double keep[3] = {7, 7, 7};
    static const char *bad[] = {"", "abc", "1.0 2.0", "-1.0 0 0", "1,5 2 3", "1.0x 2 3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (vn__parse_loadavg(bad[i], keep) != VN_EINVAL)
            fail_msg("'%s' accepted", bad[i]);
    assert_true(keep[0] == 7 && keep[1] == 7 && keep[2] == 7);
}

/* ---- /proc/cmdline ------------------------------------------------------ */

static void cmdline(void **state)
{
    (void)state;
    char v[64];
    /* Shaped like the boot line of the VM the tests first ran on: what
     * follows "--" belongs to init. */
    const char *vm = "console=ttyS0 quiet reboot=k panic=1 psi=1 rdinit=/init -- --init-flag "
                     "isolcpus=0";
    assert_int_equal(vn__cmdline_param(vm, "isolcpus", v, sizeof v), 0);
    assert_string_equal(v, "");
    assert_int_equal(vn__cmdline_param(vm, "panic", v, sizeof v), 1);
    assert_string_equal(v, "1");
    assert_int_equal(vn__cmdline_param(vm, "quiet", v, sizeof v), 1);
    assert_string_equal(v, "");

    const char *tuned = "BOOT_IMAGE=/vmlinuz ro isolcpus=nohz,domain,2-3,6-7 nohz_full=2-3,6-7\n";
    assert_int_equal(vn__cmdline_param(tuned, "isolcpus", v, sizeof v), 1);
    assert_string_equal(v, "nohz,domain,2-3,6-7");
    assert_string_equal(vn__isolcpus_list(v), "2-3,6-7");
    assert_int_equal(vn__cmdline_param(tuned, "nohz_full", v, sizeof v), 1);
    assert_string_equal(v, "2-3,6-7");

    /* The last occurrence wins; prefixes and suffixes do not match. */
    assert_int_equal(vn__cmdline_param("isolcpus=1 isolcpus=2", "isolcpus", v, sizeof v), 1);
    assert_string_equal(v, "2");
    assert_int_equal(vn__cmdline_param("isolcpusx=1 xisolcpus=2", "isolcpus", v, sizeof v), 0);

    /* Quotes around the value or the whole word protect spaces. */
    const char *quoted = "dyndbg=\"file x.c +p\" \"acpi_osi=Windows 2015\" isolcpus=3";
    assert_int_equal(vn__cmdline_param(quoted, "dyndbg", v, sizeof v), 1);
    assert_string_equal(v, "file x.c +p");
    assert_int_equal(vn__cmdline_param(quoted, "acpi_osi", v, sizeof v), 1);
    assert_string_equal(v, "Windows 2015");
    assert_int_equal(vn__cmdline_param(quoted, "isolcpus", v, sizeof v), 1);
    assert_string_equal(v, "3");

    /* A value longer than the buffer is cut, and still terminated. */
    char tiny[4];
    assert_int_equal(vn__cmdline_param("isolcpus=0-1,4-5", "isolcpus", tiny, sizeof tiny), 1);
    assert_string_equal(tiny, "0-1");

    assert_string_equal(vn__isolcpus_list("2-3"), "2-3");
    assert_string_equal(vn__isolcpus_list("domain,managed_irq,1"), "1");
}

/* ---- capabilities and hypervisors --------------------------------------- */

static void perf_capable(void **state)
{
    (void)state;
    assert_int_equal(vn__parse_perf_capable("Name:\tx\nCapEff:\t0000000000000000\n"), 0);
    assert_int_equal(vn__parse_perf_capable("CapEff:\t000001ffffffffff\n"), 1);
    assert_int_equal(vn__parse_perf_capable("CapEff:\t0000004000000000\n"), 1); /* CAP_PERFMON */
    assert_int_equal(vn__parse_perf_capable("CapEff:\t0000000000200000\n"), 1); /* CAP_SYS_ADMIN */
    assert_int_equal(vn__parse_perf_capable("CapEff:\t00000000001fffff\n"), 0); /* bits 0-20 */
    assert_int_equal(vn__parse_perf_capable("CapPrm:\t000001ffffffffff\n"), -1);
    assert_int_equal(vn__parse_perf_capable("CapEff:\tzz\n"), -1);
    assert_int_equal(vn__parse_perf_capable("CapEff:\t\n"), -1);
    assert_int_equal(vn__parse_perf_capable(NULL), -1);
}

static void hypervisor_names(void **state)
{
    (void)state;
    char n[32];
    vn__hypervisor_name("KVMKVMKVM", n, sizeof n);
    assert_string_equal(n, "kvm");
    vn__hypervisor_name("Microsoft Hv", n, sizeof n);
    assert_string_equal(n, "hyperv");
    vn__hypervisor_name("VMwareVMware", n, sizeof n);
    assert_string_equal(n, "vmware");
    vn__hypervisor_name("bhyve bhyve ", n, sizeof n);
    assert_string_equal(n, "bhyve");
    vn__hypervisor_name("  NewVisor   ", n, sizeof n);
    assert_string_equal(n, "NewVisor");
    vn__hypervisor_name(NULL, n, sizeof n);
    assert_string_equal(n, "");
}

static void reset_is_all_unknown(void **state)
{
    (void)state;
    vn_sysinfo s;
    memset(&s, 0x5a, sizeof s);
    vn__sysinfo_reset(&s);
    assert_int_equal(s.logical_cpus, -1);
    assert_int_equal(s.smt, -1);
    assert_int_equal(s.turbo, -1);
    assert_int_equal(s.aslr, -1);
    assert_int_equal(s.perf_event_paranoid, VN_SYSINFO_PARANOID_UNKNOWN);
    assert_int_equal(s.isolcpus_count, -1);
    assert_true(isnan(s.loadavg[0]) && isnan(s.loadavg[2]));
    assert_null(s.cpus);
    assert_int_equal(s.ncpus, 0);
    assert_int_equal(s.nwarnings, 0);
    assert_string_equal(s.clocksource, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpuinfo_amd_kvm_guest),
        cmocka_unit_test(cpuinfo_intel_laptop),
        cmocka_unit_test(cpuinfo_two_sockets),
        cmocka_unit_test(cpuinfo_arm64),
        cmocka_unit_test(cpuinfo_incomplete),
        cmocka_unit_test(cpulist_valid),
        cmocka_unit_test(cpulist_truncates_to_max),
        cmocka_unit_test(cpulist_malformed),
        cmocka_unit_test(sizes),
        cmocka_unit_test(integers),
        cmocka_unit_test(lines_and_words),
        cmocka_unit_test(meminfo),
        cmocka_unit_test(loadavg),
        cmocka_unit_test(cmdline),
        cmocka_unit_test(perf_capable),
        cmocka_unit_test(hypervisor_names),
        cmocka_unit_test(reset_is_all_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
