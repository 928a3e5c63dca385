/* aarch64: the generic timer's virtual counter stands in for the TSC. Its
 * rate is architected to be constant and is published in CNTFRQ_EL0. */
#include "arch.h"

#ifdef VN_HAVE_CNTVCT
#include <string.h>

#include "internal.h"

void vn__tsc_query_uncached(vn_tsc_info *out)
{
    memset(out, 0, sizeof *out);
    out->present = 1;
    out->invariant = 1;
    out->constant = 1;
    out->nonstop = 1;
    out->rdtscp = 0;
    out->hypervisor = -1;
    uint64_t f = vn__cntfrq();
    if (f) {
        out->freq_hz_cpuid = (double)f;
        out->freq_source = "cntfrq_el0";
    }
}
#elif !defined(VN_HAVE_TSC)
#include <string.h>

#include "internal.h"

/* No counter on this architecture: only the POSIX clocks exist. */
void vn__tsc_query_uncached(vn_tsc_info *out)
{
    memset(out, 0, sizeof *out);
    out->hypervisor = -1;
}
#else
typedef int vn__clock_arm64_unused;
#endif
