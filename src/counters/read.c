/* What read() on a perf event returns, parsed without touching the kernel,
 * so the tests check the layout with byte buffers.
 *
 * With PERF_FORMAT_GROUP the leader's read gives the whole group at one
 * instant: the number of events, the times (enabled, running) shared by
 * the group, then per event its value, its id and its lost count, each
 * only when asked for. Without it, one event: value, times, id, lost. All
 * are native-endian 64-bit words. */
#include <linux/perf_event.h>
#include <string.h>

#include "internal.h"

/* PERF_FORMAT_LOST arrived in Linux 6.0; older headers lack the name, but
 * the bit means the same everywhere. */
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1u << 4)
#endif

int vn__ctr_parse_read(const void *buf, size_t len, uint64_t fmt, const uint64_t *ids, size_t n,
                       vn_count *out)
{
    if (!buf || !out || n == 0 || n > VN_COUNTERS_MAX || len % 8 != 0)
        return VN_EINVAL;
    int te = (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0;
    int tr = (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0;
    int id = (fmt & PERF_FORMAT_ID) != 0;
    int lost = (fmt & PERF_FORMAT_LOST) != 0;
    int group = (fmt & PERF_FORMAT_GROUP) != 0;
    size_t words = len / 8;
    uint64_t w[3 + 3 * VN_COUNTERS_MAX];
    size_t per = 1 + (size_t)id + (size_t)lost;
    size_t want = group ? 1 + (size_t)te + (size_t)tr + n * per
                        : (size_t)te + (size_t)tr + per;
    if (words != want || words > sizeof w / sizeof w[0])
        return VN_EINVAL;
    /* The caller's buffer need not be aligned for 64-bit loads. */
    memcpy(w, buf, len);

    size_t p = 0;
    uint64_t count = 1;
    if (group && (count = w[p++]) != n)
        return VN_EINVAL;
    uint64_t value = 0;
    if (!group)
        value = w[p++];
    /* Missing times read as 0, which vn_counter_scale takes as unknown. */
    uint64_t enabled = te ? w[p++] : 0;
    uint64_t running = tr ? w[p++] : 0;

    vn_count tmp[VN_COUNTERS_MAX];
    unsigned char seen[VN_COUNTERS_MAX] = {0};
    for (size_t j = 0; j < n; j++) {
        if (group)
            value = w[p++];
        uint64_t eid = id ? w[p++] : 0;
        if (lost)
            p++;
        size_t at = j;
        if (id && ids) {
            for (at = 0; at < n && ids[at] != eid; at++)
                ;
            if (at == n || seen[at])
                return VN_EINVAL;
        }
        seen[at] = 1;
        tmp[at].value = value;
        tmp[at].enabled = enabled;
        tmp[at].running = running;
    }
    memcpy(out, tmp, n * sizeof *out);
    return 0;
}
