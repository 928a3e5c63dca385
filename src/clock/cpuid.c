/* CPUID reading (x86 only) and its pure decoding. */
#include "cpuid_decode.h"

#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "parse/sysinfo_parse.h"
#include "vernier/base.h"

#if defined(VN_HAVE_TSC)
#include <cpuid.h>

int vn__cpuid_read(vn__cpuid_dump *d)
{
    unsigned a, b, c, e;
    memset(d, 0, sizeof *d);
    __cpuid(0, a, b, c, e);
    d->max_leaf = a;
    d->vendor[0] = b;
    d->vendor[1] = e;
    d->vendor[2] = c;
    if (d->max_leaf >= 1) {
        __cpuid(1, a, b, c, e);
        d->l1_ecx = c;
        d->l1_edx = e;
    }
    if (d->max_leaf >= 0x15) {
        __cpuid_count(0x15, 0, a, b, c, e);
        d->l15_eax = a;
        d->l15_ebx = b;
        d->l15_ecx = c;
    }
    if (d->max_leaf >= 0x16) {
        __cpuid_count(0x16, 0, a, b, c, e);
        d->l16_eax = a;
    }
    __cpuid(0x80000000, a, b, c, e);
    d->max_ext = a;
    if (d->max_ext >= 0x80000001) {
        __cpuid(0x80000001, a, b, c, e);
        d->e1_edx = e;
    }
    if (d->max_ext >= 0x80000007) {
        __cpuid(0x80000007, a, b, c, e);
        d->e7_edx = e;
    }
    /* The hypervisor leaves exist only when CPUID.1:ECX[31] says a
     * hypervisor is present; on bare metal 0x40000000 returns junk from the
     * highest basic leaf, so it is not read there. */
    if (d->l1_ecx & (1u << 31)) {
        __cpuid(0x40000000, a, b, c, e);
        d->hv_max = a;
        d->hv_vendor[0] = b;
        d->hv_vendor[1] = c;
        d->hv_vendor[2] = e;
        if (d->hv_max >= 0x40000010 && d->hv_max < 0x40010000) {
            __cpuid(0x40000010, a, b, c, e);
            d->hv10_eax = a;
        }
    }
    return 0;
}
#else
int vn__cpuid_read(vn__cpuid_dump *d)
{
    memset(d, 0, sizeof *d);
    return VN_ENOTSUP;
}
#endif

static void regs_to_str(const uint32_t r[3], char *out)
{
    memcpy(out, r, 12);
    out[12] = '\0';
    /* Vendor strings may be padded with NULs or spaces; trim the end. */
    for (int i = 11; i >= 0 && (out[i] == ' ' || out[i] == '\0'); i--)
        out[i] = '\0';
}

void vn__tsc_decode(const vn__cpuid_dump *d, const char *cpuinfo, vn_tsc_info *out)
{
    memset(out, 0, sizeof *out);
    regs_to_str(d->vendor, out->cpu_vendor);
    out->present = (d->l1_edx >> 4) & 1;
    out->rdtscp = d->max_ext >= 0x80000001 ? (int)((d->e1_edx >> 27) & 1) : 0;
    out->hypervisor = (int)((d->l1_ecx >> 31) & 1);
    if (out->hypervisor && d->hv_max >= 0x40000000)
        regs_to_str(d->hv_vendor, out->hypervisor_vendor);
    int cpuid_invariant = d->max_ext >= 0x80000007 ? (int)((d->e7_edx >> 8) & 1) : 0;
    out->constant = -1;
    out->nonstop = -1;
    if (cpuinfo && vn__cpuinfo_has_flag(cpuinfo, "tsc") >= 0) {
        out->constant = vn__cpuinfo_has_flag(cpuinfo, "constant_tsc");
        out->nonstop = vn__cpuinfo_has_flag(cpuinfo, "nonstop_tsc");
        out->present |= vn__cpuinfo_has_flag(cpuinfo, "tsc");
        out->rdtscp |= vn__cpuinfo_has_flag(cpuinfo, "rdtscp");
    }
    /* The kernel derives constant_tsc and nonstop_tsc from the same CPUID bit
     * and from per-model knowledge, so either source is enough. */
    out->invariant = cpuid_invariant || (out->constant == 1 && out->nonstop == 1);

    /* Leaf 0x15 gives TSC = crystal * EBX / EAX; the crystal (ECX) is often
     * 0 on client parts, and then the ratio alone says nothing. */
    if (d->max_leaf >= 0x15 && d->l15_eax && d->l15_ebx && d->l15_ecx) {
        out->freq_hz_cpuid = (double)d->l15_ecx * d->l15_ebx / d->l15_eax;
        out->freq_source = "cpuid 0x15";
    } else if (out->hypervisor && d->hv10_eax) {
        out->freq_hz_cpuid = d->hv10_eax * 1e3;
        out->freq_source = "cpuid 0x40000010";
    } else if (d->max_leaf >= 0x16 && (d->l16_eax & 0xffff)) {
        /* The base frequency, which Intel parts with invariant TSC run the TSC
         * at; AMD does not implement this leaf. */
        out->freq_hz_cpuid = (d->l16_eax & 0xffff) * 1e6;
        out->freq_source = "cpuid 0x16";
    }
}
