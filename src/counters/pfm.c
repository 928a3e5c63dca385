/* Named PMU events (INST_RETIRED.ANY, MEM_LOAD_RETIRED.L3_MISS) through
 * libpfm4, which holds the event tables of every CPU that perf supports and
 * turns a name into perf_event_attr's type and config words. Optional: a
 * build without it knows the generic names only (VN_HAVE_LIBPFM unset).
 *
 * libpfm4's headers carry their own copy of struct perf_event_attr, which
 * clashes with <linux/perf_event.h>, so this file includes only theirs. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#ifdef VN_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
/* libpfm4 promises nothing about encoding from several threads at once, and
 * the engine opens counters from each of its threads. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int init_rc;

static void init(void) { init_rc = pfm_initialize(); }

/* The PMUs libpfm4 found on this machine, for the message when a name is
 * not among their events: "perf, perf_raw" on a machine without a PMU. */
static void present_pmus(char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    pfm_pmu_t p;
    pfm_for_all_pmus(p)
    {
        pfm_pmu_info_t info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present || !info.name)
            continue;
        int k = snprintf(out + len, n - len, "%s%s", len ? ", " : "", info.name);
        if (k < 0 || (size_t)k >= n - len)
            break;
        len += (size_t)k;
    }
}

static int encode(const char *name, struct perf_event_attr *a)
{
    pfm_perf_encode_arg_t arg;
    memset(a, 0, sizeof *a);
    memset(&arg, 0, sizeof arg);
    arg.attr = a;
    arg.size = sizeof arg;
    /* Both privilege levels unless the name says ":u" or ":k", like the
     * generic events. */
    return pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
}

static int resolve(const char *name, vn__ctr_spec *s)
{
    pthread_once(&once, init);
    pthread_mutex_lock(&lock);
    struct perf_event_attr a;
    int rc = init_rc == PFM_SUCCESS ? encode(name, &a) : init_rc;
    if (rc == PFM_ERR_NOTFOUND && strchr(name, '.')) {
        /* Intel's and perf's spelling joins event and unit mask with a dot
         * (INST_RETIRED.ANY); libpfm4's own separator is a colon. */
        char alt[VN_COUNTER_NAME_MAX];
        snprintf(alt, sizeof alt, "%s", name);
        for (char *p = alt; *p; p++)
            if (*p == '.')
                *p = ':';
        rc = encode(alt, &a);
    }
    if (rc != PFM_SUCCESS) {
        if (init_rc == PFM_SUCCESS)
            present_pmus(s->pmus, sizeof s->pmus);
        else
            snprintf(s->pmus, sizeof s->pmus, "libpfm4 did not start: %s", pfm_strerror(init_rc));
        pthread_mutex_unlock(&lock);
        return VN_ENOENT;
    }
    pthread_mutex_unlock(&lock);
    s->type = a.type;
    s->config = a.config;
    s->config1 = a.config1;
    s->config2 = a.config2;
    s->exclude = (a.exclude_user ? VN_COUNTER_EXCLUDE_USER : 0) |
                 (a.exclude_kernel ? VN_COUNTER_EXCLUDE_KERNEL : 0);
    s->hardware = a.type != PERF_TYPE_SOFTWARE;
    /* The two clock events count nanoseconds, not occurrences. */
    s->unit = a.type == PERF_TYPE_SOFTWARE && (a.config == PERF_COUNT_SW_TASK_CLOCK ||
                                               a.config == PERF_COUNT_SW_CPU_CLOCK)
                  ? "ns"
                  : "count";
    return 0;
}

vn__ctr_resolver vn__ctr_pfm_resolver(void) { return resolve; }
int vn_counters_have_pfm(void) { return 1; }

#else

vn__ctr_resolver vn__ctr_pfm_resolver(void) { return NULL; }
int vn_counters_have_pfm(void) { return 0; }

#endif
