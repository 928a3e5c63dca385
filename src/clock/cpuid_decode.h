/* CPUID facts about the counter and the hypervisor, decoded by pure code
 * from register values so tests can feed any CPU's registers. */
#ifndef VN_CPUID_DECODE_H
#define VN_CPUID_DECODE_H

#include <stdint.h>

#include "clock/clock_api.h"

/* The raw registers vernier reads; leaves the CPU does not have are zero. */
typedef struct vn__cpuid_dump {
    uint32_t max_leaf;           /* leaf 0 EAX */
    uint32_t vendor[3];          /* leaf 0 EBX, EDX, ECX */
    uint32_t l1_ecx, l1_edx;     /* leaf 1 */
    uint32_t l15_eax, l15_ebx, l15_ecx; /* TSC/crystal ratio and crystal Hz */
    uint32_t l16_eax;            /* base frequency, MHz */
    uint32_t max_ext;            /* leaf 0x80000000 EAX */
    uint32_t e1_edx;             /* leaf 0x80000001 EDX: bit 27 rdtscp */
    uint32_t e7_edx;             /* leaf 0x80000007 EDX: bit 8 invariant TSC */
    uint32_t hv_max;             /* leaf 0x40000000 EAX */
    uint32_t hv_vendor[3];       /* leaf 0x40000000 EBX, ECX, EDX */
    uint32_t hv10_eax;           /* leaf 0x40000010 EAX: TSC kHz (VMware, KVM) */
} vn__cpuid_dump;

/* Fills d from the running CPU; returns 0, or VN_ENOTSUP off x86. */
int vn__cpuid_read(vn__cpuid_dump *d);

/* Decodes d, and the flags of a /proc/cpuinfo text when not NULL (the
 * kernel's constant_tsc / nonstop_tsc are honored there), into out. */
void vn__tsc_decode(const vn__cpuid_dump *d, const char *cpuinfo, vn_tsc_info *out);

#endif
