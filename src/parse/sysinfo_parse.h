/* Pure parsers of the /proc and /sys text that the machine snapshot reads.
 * Each takes the text as an argument and does no I/O, so the unit tests feed
 * them fixtures captured from real machines. Text from the kernel ends with a
 * newline; every parser accepts it with or without one. */
#ifndef VN_SYSINFO_PARSE_H
#define VN_SYSINFO_PARSE_H

#include <stddef.h>

#include "vernier/base.h"

/* The highest CPU number a list may name. The kernel's own limit (NR_CPUS)
 * is 8192 today; the margin keeps room without letting a corrupt list make a
 * counting loop run for billions of steps. */
#define VN__CPU_MAX 65535

/* Sets every field of s to unknown (-1, "", NAN, VN_SYSINFO_PARANOID_UNKNOWN)
 * with no CPUs and no warnings. s must not own memory (see vn_sysinfo_free).
 * Defined in sysinfo.c, beside the snapshot it resets: the parsers sit below
 * the machine snapshot (the clocks read through them too), so they know the
 * struct only by name. */
struct vn_sysinfo;
void vn__sysinfo_reset(struct vn_sysinfo *s);

/* What /proc/cpuinfo says. -1 means the text did not say. */
typedef struct vn__cpuinfo {
    char model[128];      /* "model name" of the first processor, "" when absent */
    char vendor[32];      /* "vendor_id" of the first processor, "" when absent */
    int processors;       /* "processor" entries; 0 for empty text */
    int physical_cores;   /* distinct ("physical id", "core id") pairs */
    int sockets;          /* distinct "physical id" values */
    int siblings;         /* "siblings" (logical CPUs per socket) of the first processor */
    int cpu_cores;        /* "cpu cores" (cores per socket) of the first processor */
    int has_x86_flags;    /* 1 when a "flags" line exists (x86); arm64 says "Features" */
    char microcode[32];   /* "microcode" of the first processor, "" when absent */
} vn__cpuinfo;

/* Parses /proc/cpuinfo. VN_ENOMEM when the distinct-core table cannot grow. */
int vn__parse_cpuinfo(const char *text, vn__cpuinfo *out);

/* Whether the first processor's "flags" (x86) or "Features" (arm64) line
 * names flag as a whole word: 1 yes, 0 no, -1 when there is no such line. */
int vn__cpuinfo_has_flag(const char *text, const char *flag);

/* Parses a CPU list such as "0-3,8,10-11" or "0-15:2/4" (a range with a
 * used/group stride, as isolcpus= accepts). Stores up to max CPU numbers in
 * cpus (which may be NULL when max is 0) and returns how many CPUs the list
 * names, which may exceed max. Blank text is the empty list (0). Malformed
 * text, a descending range or a CPU above VN__CPU_MAX give VN_EINVAL. */
int vn__parse_cpulist(const char *text, int *cpus, int max);

/* A size as sysfs and cpuinfo print it: "32K", "1024 KB", "8M", "1G" or a
 * plain byte count. K, M and G are binary (1024) multiples there, whatever
 * the suffix's spelling. VN_EINVAL for junk, VN_ERANGE for an overflow. */
int vn__parse_size(const char *text, long long *bytes);

/* A decimal integer with optional sign and surrounding white space, as sysfs
 * files hold ("2\n"). VN_EINVAL for anything else, VN_ERANGE on overflow. */
int vn__parse_int(const char *text, long long *out);

/* Copies the first line of text without surrounding white space into out
 * (truncated to n - 1 bytes). Returns its length, 0 for blank text. */
size_t vn__parse_line(const char *text, char *out, size_t n);

/* Copies the white-space separated words of text into out, joined by single
 * spaces (the kernel ends available_clocksource with "tsc hpet \n").
 * Returns the number of words that fit; out is "" for none. */
int vn__parse_words(const char *text, char *out, size_t n);

/* Whether the space-separated list holds word exactly. */
int vn__word_in_list(const char *list, const char *word);

/* MemTotal and MemAvailable from /proc/meminfo in bytes, -1 for a missing
 * line. VN_EINVAL when neither line is there. */
int vn__parse_meminfo(const char *text, long long *total, long long *available);

/* The 1, 5 and 15 minute load averages from /proc/loadavg. VN_EINVAL when
 * the text does not start with three non-negative numbers. */
int vn__parse_loadavg(const char *text, double out[3]);

/* The value of the last "name=value" parameter on a kernel command line,
 * unquoted, into out. Words after a lone "--" go to init, not the kernel, so
 * they are not looked at. Returns 1 when found, 0 when not. A bare "name"
 * counts as found with an empty value. */
int vn__cmdline_param(const char *cmdline, const char *name, char *out, size_t n);

/* The CPU list inside an isolcpus= value, which may start with flags such
 * as "nohz,domain,managed_irq,2-3". Returns a pointer into value. */
const char *vn__isolcpus_list(const char *value);

/* Whether the effective capabilities in /proc/self/status ("CapEff:" in
 * hex) let perf_event_open ignore perf_event_paranoid: CAP_SYS_ADMIN (21) or
 * CAP_PERFMON (38). 1 yes, 0 no, -1 when the line is missing or malformed. */
int vn__parse_perf_capable(const char *status);

/* A short name for a CPUID hypervisor signature ("KVMKVMKVM" -> "kvm"); an
 * unknown signature is returned as given (trimmed) into out. */
void vn__hypervisor_name(const char *signature, char *out, size_t n);

#endif
