/* Clocks: POSIX clocks, CPU time, and the CPU's own counter (the TSC on
 * x86-64, the virtual counter CNTVCT_EL0 on aarch64), behind one API. */
#ifndef VERNIER_CLOCK_H
#define VERNIER_CLOCK_H

#include <stdint.h>

#include "vernier/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every clock vernier knows. Names (vn_clock_name) are fixed so scripts can
 * rely on them. Counter clocks exist only on the architecture that has them;
 * vn_clock_exists() says which. */
typedef enum vn_clock_id {
    VN_CLOCK_MONOTONIC = 0,       /* "monotonic":         CLOCK_MONOTONIC through the vDSO */
    VN_CLOCK_MONOTONIC_RAW,       /* "monotonic_raw":     CLOCK_MONOTONIC_RAW, not slewed by NTP */
    VN_CLOCK_MONOTONIC_COARSE,    /* "monotonic_coarse":  CLOCK_MONOTONIC_COARSE, tick resolution */
    VN_CLOCK_REALTIME,            /* "realtime":          CLOCK_REALTIME, may jump */
    VN_CLOCK_BOOTTIME,            /* "boottime":          CLOCK_BOOTTIME, counts suspend */
    VN_CLOCK_PROCESS_CPUTIME,     /* "process_cputime":   CPU time of the process */
    VN_CLOCK_THREAD_CPUTIME,      /* "thread_cputime":    CPU time of the calling thread */
    VN_CLOCK_RUSAGE,              /* "rusage":            getrusage(RUSAGE_SELF) user + system */
    VN_CLOCK_MONOTONIC_SYSCALL,   /* "monotonic_syscall": CLOCK_MONOTONIC by a real system call */
    VN_CLOCK_TSC,                 /* "tsc":               rdtsc, unordered */
    VN_CLOCK_TSC_LFENCE,          /* "tsc_lfence":        lfence; rdtsc */
    VN_CLOCK_RDTSCP,              /* "rdtscp":            rdtscp; lfence */
    VN_CLOCK_TSC_CPUID,           /* "tsc_cpuid":         cpuid; rdtsc (fully serialized) */
    VN_CLOCK_CNTVCT,              /* "cntvct":            isb; mrs cntvct_el0 (aarch64) */
    VN_CLOCK_COUNT
} vn_clock_id;

enum {
    VN_CLOCK_F_COUNTER = 1u << 0,  /* reads CPU counter ticks, not nanoseconds */
    VN_CLOCK_F_CPUTIME = 1u << 1,  /* measures CPU time, not elapsed time */
    VN_CLOCK_F_SYSCALL = 1u << 2,  /* every read enters the kernel */
    VN_CLOCK_F_MONOTONIC = 1u << 3 /* never goes backwards by contract (per CPU for counters) */
};

const char *vn_clock_name(vn_clock_id id);          /* NULL for an id out of range */
const char *vn_clock_describe(vn_clock_id id);      /* one line: what a read does */
unsigned    vn_clock_flags(vn_clock_id id);
int         vn_clock_exists(vn_clock_id id);        /* compiled in for this architecture */
int         vn_clock_available(vn_clock_id id);     /* exists and works on this machine */
/* Looks a name up; VN_ENOENT when no clock of this build has it. */
int         vn_clock_lookup(const char *name, vn_clock_id *out);

/* One read in the clock's own unit: nanoseconds, or ticks for counters.
 * Out of line; the engine inlines its own timer reads at batch edges. */
uint64_t vn_clock_read(vn_clock_id id);
/* clock_getres() in ns, or one tick in ns for counters (needs calibration);
 * a negative code when unknown. */
int vn_clock_getres_ns(vn_clock_id id, double *ns);
/* Converts a difference of two reads to nanoseconds (calibrating the counter
 * on first use). */
double vn_clock_delta_ns(vn_clock_id id, uint64_t delta);

/* ---- The CPU counter ------------------------------------------------------ */

/* What CPUID and /proc/cpuinfo say about the counter. -1 means unknown. */
typedef struct vn_tsc_info {
    int present;          /* the counter exists and can be read from user space */
    int invariant;        /* constant rate in all power states (CPUID 0x80000007 EDX[8], or constant_tsc + nonstop_tsc) */
    int constant;         /* constant_tsc flag */
    int nonstop;          /* nonstop_tsc flag */
    int rdtscp;           /* the rdtscp instruction exists */
    int hypervisor;       /* CPUID.1:ECX[31]: running under a hypervisor */
    char cpu_vendor[16];  /* "GenuineIntel", "AuthenticAMD", ... or "" */
    char hypervisor_vendor[16]; /* "KVMKVMKVM", "Microsoft Hv", "VMwareVMware", ... or "" */
    double freq_hz_cpuid; /* from CPUID 0x15 (or 0x16, or the hypervisor's 0x40000010), 0 when not reported */
    const char *freq_source; /* which leaf gave freq_hz_cpuid, or NULL */
} vn_tsc_info;

int vn_tsc_query(vn_tsc_info *out);

/* Fixed-point conversion of ticks to nanoseconds that cannot overflow:
 * ns = (ticks * mult) >> 32 with a 128-bit product. */
typedef struct vn_tickconv {
    double hz;
    uint64_t mult;   /* 2^32 * 1e9 / hz */
} vn_tickconv;

int      vn_tickconv_init(vn_tickconv *c, double hz);   /* VN_EINVAL unless 1 kHz <= hz <= 100 GHz */
uint64_t vn_ticks_to_ns(const vn_tickconv *c, uint64_t ticks);

/* The counter's rate measured against CLOCK_MONOTONIC_RAW. */
typedef struct vn_calibration {
    double hz;            /* ticks per second */
    double error_ppm;     /* bound from the bracketing of the reference reads */
    double duration_ns;   /* how long the calibration took */
} vn_calibration;

/* Measures the counter's rate over about duration_us microseconds
 * (0 means the default of 20 ms). VN_ENOTSUP without a counter. */
int vn_counter_calibrate(unsigned duration_us, vn_calibration *out);
/* The process-wide calibration, made once on first use (thread-safe). */
const vn_calibration *vn_counter_calibration(void);

#ifdef __cplusplus
}
#endif
#endif
