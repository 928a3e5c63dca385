/* Fuzz target: CPUID decoding from arbitrary register values and cpuinfo
 * text. No register value may make the decoder misbehave, and a frequency it
 * reports must be positive and finite. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock/cpuid_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vn__cpuid_dump d;
    memset(&d, 0, sizeof d);
    size_t n = size < sizeof d ? size : sizeof d;
    memcpy(&d, data, n);
    char *text = malloc(size - n + 1);
    if (!text)
        return 0;
    memcpy(text, data + n, size - n);
    text[size - n] = '\0';
    vn_tsc_info t;
    vn__tsc_decode(&d, size > n ? text : NULL, &t);
    if (t.freq_hz_cpuid != 0 && !(t.freq_hz_cpuid > 0 && isfinite(t.freq_hz_cpuid)))
        abort();
    if (strlen(t.cpu_vendor) > 12 || strlen(t.hypervisor_vendor) > 12)
        abort();
    free(text);
    return 0;
}
