/* x86-64: the counter facts from CPUID and /proc/cpuinfo. The reads
 * themselves are inline in arch.h. */
#include "arch.h"

#ifdef VN_HAVE_TSC
#include <stdlib.h>

#include "internal.h"
#include "cpuid_decode.h"
#include "base/fileutil.h"

void vn__tsc_query_uncached(vn_tsc_info *out)
{
    vn__cpuid_dump d;
    vn__cpuid_read(&d);
    /* cpuinfo is large on many-CPU machines; the first CPU's block holds
     * the flags line, so 64 KiB is plenty. */
    size_t max = 64 << 10;
    char *text = malloc(max);
    int ok = text && vn__read_text("/proc/cpuinfo", text, max) > 0;
    vn__tsc_decode(&d, ok ? text : NULL, out);
    free(text);
}
#else
/* Keeps ISO C happy: a translation unit must declare something. */
typedef int vn__clock_x86_unused;
#endif
