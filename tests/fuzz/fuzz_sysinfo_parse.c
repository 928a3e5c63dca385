/* Fuzz target: every parser of /proc and /sys text, on the same input. The
 * kernel's text is outside input: a parser must never read out of bounds,
 * overflow, or loop forever on it, whatever it holds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysinfo_parse.h"
#include "machine/sysinfo_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t)
        return 0;
    memcpy(t, data, size);
    t[size] = '\0';

    vn__cpuinfo ci;
    vn__parse_cpuinfo(t, &ci);
    vn__cpuinfo_has_flag(t, "constant_tsc");
    int cpus[8];
    int n = vn__parse_cpulist(t, cpus, 8);
    if (n > 8 && n != VN_EINVAL)
        (void)cpus[7];
    long long v;
    vn__parse_size(t, &v);
    vn__parse_int(t, &v);
    char small[16], line[128];
    vn__parse_line(t, small, sizeof small);
    vn__parse_words(t, line, sizeof line);
    vn__word_in_list(t, "tsc");
    long long total, avail;
    vn__parse_meminfo(t, &total, &avail);
    double load[3];
    vn__parse_loadavg(t, load);
    if (vn__cmdline_param(t, "isolcpus", line, sizeof line) == 1)
        vn__parse_cpulist(vn__isolcpus_list(line), NULL, 0);
    vn__parse_perf_capable(t);
    vn__hypervisor_name(t, small, sizeof small);
    free(t);
    return 0;
}
