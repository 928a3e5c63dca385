/* A snapshot of the machine, and the warnings that follow from it: can this
 * machine be trusted for a measurement? */
#ifndef VERNIER_SYSINFO_H
#define VERNIER_SYSINFO_H

#include <stddef.h>

#include "vernier/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A setting that hurts measurement: a stable id scripts can match
 * ("governor", "turbo", "smt", "hypervisor", "load", "clocksource", "aslr",
 * "perf_paranoid", "tsc_not_invariant", ...), what is wrong, and the fix. */
typedef struct vn_warning {
    char id[32];
    char message[256];
    char fix[256];
    char brief[64];  /* a few words for the console's one line: "ASLR on" */
} vn_warning;

typedef struct vn_cache_info {
    int level;            /* 1, 2, 3 */
    char type[16];        /* "Data", "Instruction", "Unified" */
    long long size_bytes; /* -1 unknown */
    int shared_cpus;      /* logical CPUs sharing it, -1 unknown */
} vn_cache_info;

typedef struct vn_cpu_freq {
    int cpu;
    char governor[32];    /* "" unknown */
    char driver[32];      /* scaling_driver, "" unknown */
    long long cur_khz, min_khz, max_khz; /* -1 unknown */
} vn_cpu_freq;

#define VN_SYSINFO_MAX_CACHES 8
#define VN_SYSINFO_MAX_WARNINGS 32
#define VN_SYSINFO_MAX_IDLE 10

/* Unknown values: -1 for counts and flags, "" for strings, NAN for doubles. */
typedef struct vn_sysinfo {
    char hostname[64];
    char kernel[64];          /* uname release */
    char kernel_version[128]; /* uname version */
    char arch[32];            /* uname machine */
    char cpu_model[128];
    char cpu_vendor[32];
    int logical_cpus;         /* online */
    int physical_cores;
    int sockets;
    int smt;                  /* 1 when SMT is active (sibling threads share a core) */
    vn_cache_info caches[VN_SYSINFO_MAX_CACHES];
    int ncaches;
    long long mem_total_bytes;
    long long mem_available_bytes;
    vn_cpu_freq *cpus;        /* one per online CPU, owned */
    int ncpus;
    int turbo;                /* 1 boost on, 0 off */
    char turbo_source[64];    /* which file told: intel_pstate/no_turbo or cpufreq/boost */
    char isolcpus[128];       /* CPU list kept away from the scheduler, "" none or unknown */
    int isolcpus_count;       /* CPUs in isolcpus: 0 none, -1 unknown */
    char nohz_full[128];      /* CPU list without the scheduler tick, "" none or unknown */
    int nohz_full_count;      /* CPUs in nohz_full: 0 none, -1 unknown */
    int aslr;                 /* randomize_va_space: 0, 1, 2 */
    int perf_event_paranoid;  /* -1 .. 4; -100 unknown (since -1 is a real value) */
    int perf_capable;         /* 1 when CAP_PERFMON or CAP_SYS_ADMIN lifts the paranoid limit */
    int hypervisor;           /* 1 running under a hypervisor */
    char hypervisor_vendor[32]; /* short name: "kvm", "hyperv", "vmware", "xen", ... */
    double loadavg[3];
    char clocksource[32];
    char clocksource_available[128];
    int tsc_invariant;
    vn_warning warnings[VN_SYSINFO_MAX_WARNINGS];
    int nwarnings;
    /* Which performance counters work here (vernier/counters.h); owned,
     * NULL unless vn_sysinfo_probe_counters() ran. */
    struct vn_counter_info *counters;
    /* CPU idle states (cpuidle), as CPU 0 has them: the driver, the
     * governor, and each state's name and exit latency in microseconds as
     * the driver declares it (on a VM the real wake-up from a halt is far
     * longer: the host must run the vCPU again). nidle = 0: no cpuidle. */
    char idle_driver[32];
    char idle_governor[32];
    int nidle;
    struct {
        char name[16];
        int exit_us;          /* -1 unknown */
        int disabled;
    } idle[VN_SYSINFO_MAX_IDLE];
    /* The CPU latency request in force (/dev/cpu_dma_latency, readable by
     * root): microseconds, VN_SYSINFO_NO_LATENCY_REQUEST when nobody asks,
     * -1 unknown. vernier itself asks for 0 while it measures. */
    int latency_request_us;
    /* The first CPU's microcode revision as /proc/cpuinfo gives it
     * ("0xb000040"); "" unknown (not x86, or not said). A revision changes
     * what some instructions cost: two runs on different ones are two
     * machines. */
    char microcode[32];
} vn_sysinfo;

#define VN_SYSINFO_NO_LATENCY_REQUEST 2000000000

#define VN_SYSINFO_PARANOID_UNKNOWN (-100)

/* Reads the machine from /proc and /sys (and CPUID), then derives the
 * warnings. A file that does not exist on this kernel reads as unknown,
 * never as a failure. Free with vn_sysinfo_free. */
int  vn_sysinfo_collect(vn_sysinfo *out);
/* The same, reading only files under root instead of "/" (for tests with
 * fixture trees): no CPUID and no uname; kernel and hostname come from
 * root/proc/sys/kernel, hypervisor and TSC facts from the flags in
 * root/proc/cpuinfo, capabilities from root/proc/self/status. VN_ENOENT
 * (or another negative errno) when root is not a readable directory. */
int  vn_sysinfo_collect_at(const char *root, vn_sysinfo *out);
void vn_sysinfo_free(vn_sysinfo *s);
/* Tries every generic counter on the calling thread (vn_counters_probe)
 * and keeps the answer in s->counters. Separate from the collectors, so a
 * snapshot of a fixture tree never depends on the machine it is read on. */
int  vn_sysinfo_probe_counters(vn_sysinfo *s);
/* Recomputes s->warnings from the other fields (pure). */
void vn_sysinfo_derive_warnings(vn_sysinfo *s);

#ifdef __cplusplus
}
#endif
#endif
