/* CPUID decoding from register values of real CPUs, and cpuinfo flag parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "clock/cpuid_decode.h"

static void vendor(uint32_t regs[3], const char *s)
{
    char v[12] = {0};
    memcpy(v, s, strlen(s) < 12 ? strlen(s) : 12);
    memcpy(regs, v, 12);
}

/* Leaf 0x15 with the crystal given: TSC = crystal * EBX / EAX. */
static void xeon_crystal_ratio(void **state)
{
    (void)state;
    vn__cpuid_dump d = {0};
    d.max_leaf = 0x16;
    vendor(d.vendor, "GenuineIntel");
    d.l1_edx = 1u << 4;
    d.l15_eax = 2;
    d.l15_ebx = 168;
    d.l15_ecx = 25000000;
    d.l16_eax = 2000;
    d.max_ext = 0x80000008;
    d.e1_edx = 1u << 27;
    d.e7_edx = 1u << 8;
    vn_tsc_info t;
    vn__tsc_decode(&d, NULL, &t);
    assert_string_equal(t.cpu_vendor, "GenuineIntel");
    assert_int_equal(t.present, 1);
    assert_int_equal(t.invariant, 1);
    assert_int_equal(t.rdtscp, 1);
    assert_int_equal(t.hypervisor, 0);
    assert_string_equal(t.hypervisor_vendor, "");
    assert_true(t.freq_hz_cpuid == 2100000000.0);
    assert_string_equal(t.freq_source, "cpuid 0x15");
    assert_int_equal(t.constant, -1); /* no cpuinfo text given */
}

/* Client parts report the ratio but not the crystal: fall back to 0x16. */
static void client_without_crystal(void **state)
{
    (void)state;
    vn__cpuid_dump d = {0};
    d.max_leaf = 0x16;
    vendor(d.vendor, "GenuineIntel");
    d.l1_edx = 1u << 4;
    d.l15_eax = 2;
    d.l15_ebx = 242;
    d.l15_ecx = 0;
    d.l16_eax = 2900 | (3900u << 16) /* not part of EAX, must be masked */;
    d.max_ext = 0x80000008;
    d.e7_edx = 1u << 8;
    vn_tsc_info t;
    vn__tsc_decode(&d, NULL, &t);
    assert_true(t.freq_hz_cpuid == 2900e6);
    assert_string_equal(t.freq_source, "cpuid 0x16");
    assert_int_equal(t.rdtscp, 0);
}

/* An AMD EPYC guest under KVM: invariant, no frequency leaf at all. */
static void amd_epyc_kvm_guest(void **state)
{
    (void)state;
    vn__cpuid_dump d = {0};
    d.max_leaf = 0x1c;
    vendor(d.vendor, "AuthenticAMD");
    d.l1_ecx = 1u << 31;
    d.l1_edx = 1u << 4;
    d.max_ext = 0x80000021;
    d.e1_edx = 1u << 27;
    d.e7_edx = 0x100;
    d.hv_max = 0x40000001;
    vendor(d.hv_vendor, "KVMKVMKVM");
    vn_tsc_info t;
    vn__tsc_decode(&d, "processor\t: 0\nflags\t\t: fpu tsc msr rdtscp constant_tsc nonstop_tsc hypervisor\n", &t);
    assert_string_equal(t.cpu_vendor, "AuthenticAMD");
    assert_int_equal(t.hypervisor, 1);
    assert_string_equal(t.hypervisor_vendor, "KVMKVMKVM");
    assert_int_equal(t.invariant, 1);
    assert_int_equal(t.constant, 1);
    assert_int_equal(t.nonstop, 1);
    assert_true(t.freq_hz_cpuid == 0.0);
    assert_null(t.freq_source);
}

/* VMware (and KVM with the leaf exposed) publish the TSC rate in kHz. */
static void hypervisor_frequency_leaf(void **state)
{
    (void)state;
    vn__cpuid_dump d = {0};
    d.max_leaf = 0xd;
    vendor(d.vendor, "GenuineIntel");
    d.l1_ecx = 1u << 31;
    d.l1_edx = 1u << 4;
    d.hv_max = 0x40000010;
    vendor(d.hv_vendor, "VMwareVMware");
    d.hv10_eax = 2095078;
    vn_tsc_info t;
    vn__tsc_decode(&d, NULL, &t);
    assert_string_equal(t.hypervisor_vendor, "VMwareVMware");
    assert_true(t.freq_hz_cpuid == 2095078e3);
    assert_string_equal(t.freq_source, "cpuid 0x40000010");
    /* The hypervisor leaf is ignored when no hypervisor is present. */
    d.l1_ecx = 0;
    vn__tsc_decode(&d, NULL, &t);
    assert_true(t.freq_hz_cpuid == 0.0);
    assert_string_equal(t.hypervisor_vendor, "");
}

/* An old part: constant rate but stops in deep C-states, so not invariant. */
static void constant_but_not_nonstop(void **state)
{
    (void)state;
    vn__cpuid_dump d = {0};
    d.max_leaf = 0xb;
    vendor(d.vendor, "GenuineIntel");
    d.l1_edx = 1u << 4;
    d.max_ext = 0x80000008;
    vn_tsc_info t;
    vn__tsc_decode(&d, "flags : fpu tsc constant_tsc tsc_known_freq\n", &t);
    assert_int_equal(t.constant, 1);
    assert_int_equal(t.nonstop, 0);
    assert_int_equal(t.invariant, 0);
    vn__tsc_decode(&d, "flags : fpu tsc constant_tsc nonstop_tsc\n", &t);
    assert_int_equal(t.invariant, 1);
    /* A CPU without a TSC at all. */
    memset(&d, 0, sizeof d);
    vn__tsc_decode(&d, "flags : fpu vme\n", &t);
    assert_int_equal(t.present, 0);
    assert_int_equal(t.invariant, 0);
}

/* cpuinfo without an x86 flags line (arm64) says nothing about the TSC. */
static void cpuinfo_without_flags_line(void **state)
{
    (void)state;
    vn__cpuid_dump d = {0};
    d.l1_edx = 1u << 4;
    vn_tsc_info t;
    vn__tsc_decode(&d, "processor\t: 0\nBogoMIPS\t: 50.00\n", &t);
    assert_int_equal(t.constant, -1);
    assert_int_equal(t.nonstop, -1);
    assert_int_equal(t.present, 1);
    /* Flags are matched as whole words: tsc_known_freq is not tsc. */
    memset(&d, 0, sizeof d);
    vn__tsc_decode(&d, "flags : fpu tsc_known_freq nonstop_tsc_x constant_tsc\n", &t);
    assert_int_equal(t.present, 0);
    assert_int_equal(t.nonstop, 0);
    assert_int_equal(t.constant, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(xeon_crystal_ratio),       cmocka_unit_test(client_without_crystal),
        cmocka_unit_test(amd_epyc_kvm_guest),       cmocka_unit_test(hypervisor_frequency_leaf),
        cmocka_unit_test(constant_but_not_nonstop), cmocka_unit_test(cpuinfo_without_flags_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
