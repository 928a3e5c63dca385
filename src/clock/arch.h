/* The CPU counter read inline, per architecture. Internal: the probe and the
 * calibration need these without a call in between, so they are static
 * inline here rather than out of line in clock/x86.c / clock/arm64.c. */
#ifndef VN_ARCH_H
#define VN_ARCH_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#define VN_HAVE_TSC 1

/* rdtsc alone is not ordered: it may read the counter before earlier
 * instructions finish and let later ones start before it. Used as is it
 * measures "somewhere around here". */
static inline uint64_t vn__rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* lfence waits until every earlier instruction has completed locally, so the
 * read cannot float above the code being timed (Intel SDM, RDTSC). */
static inline uint64_t vn__rdtsc_lfence(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

/* rdtscp waits for earlier instructions; the trailing lfence keeps later
 * ones from starting before the read, which rdtscp alone allows. */
static inline uint64_t vn__rdtscp_lfence(void)
{
    uint32_t lo, hi, aux;
    __asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

/* cpuid serializes everything (Intel's method in "How to Benchmark Code
 * Execution Times on Intel IA-32 and IA-64"), but a hypervisor traps it, so
 * inside a VM each read costs a VM exit. */
static inline uint64_t vn__cpuid_rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("xor %%eax, %%eax\n\tcpuid\n\trdtsc"
                         : "=a"(lo), "=d"(hi)
                         :
                         : "rbx", "rcx", "memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t vn__counter_ordered(void) { return vn__rdtsc_lfence(); }

#elif defined(__aarch64__)
#define VN_HAVE_CNTVCT 1

/* isb keeps the counter read from being taken before earlier instructions. */
static inline uint64_t vn__cntvct(void)
{
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
}

static inline uint64_t vn__cntfrq(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
    return v;
}

static inline uint64_t vn__counter_ordered(void) { return vn__cntvct(); }
#endif

#if defined(VN_HAVE_TSC) || defined(VN_HAVE_CNTVCT)
#define VN_HAVE_COUNTER 1
#endif

#endif
