/* The counter's facts (CPUID and /proc/cpuinfo), queried once per process.
 * A file of its own below both the clock table and the calibration, which
 * each ask for them, so neither has to call the other to get them. */
#include <pthread.h>

#include "internal.h"
#include "clock/clock_api.h"

/* The CPU facts are read once; CPUID does not change while we run. */
static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;
static vn_tsc_info tsc_facts;

static void tsc_facts_init(void) { vn__tsc_query_uncached(&tsc_facts); }

const vn_tsc_info *vn__tsc_facts(void)
{
    pthread_once(&tsc_once, tsc_facts_init);
    return &tsc_facts;
}

int vn_tsc_query(vn_tsc_info *out)
{
    if (!out)
        return VN_EINVAL;
    *out = *vn__tsc_facts();
    return out->present ? 0 : VN_ENOTSUP;
}
