/* Fuzz target: the two parsers of the counters. A --counters list comes
 * from the user; a read() buffer from the kernel, whose layout depends on
 * flags and kernel version. Neither may crash, read out of bounds or give
 * more events than fit; a buffer that parses must give counts that scale
 * to a number or to unknown, never to infinity. */
#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counters/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void list(const uint8_t *data, size_t size)
{
    char s[1024];
    size_t n = size < sizeof s - 1 ? size : sizeof s - 1;
    memcpy(s, data, n);
    s[n] = '\0';
    vn__ctr_spec specs[VN_COUNTERS_MAX];
    size_t k = 99;
    char why[1536];
    if (vn__ctr_parse_list(s, NULL, specs, VN_COUNTERS_MAX, &k, why, sizeof why) == 0) {
        if (k > VN_COUNTERS_MAX)
            abort();
        for (size_t i = 0; i < k; i++)
            if (!specs[i].generic || vn_counter_event_find(specs[i].name) != specs[i].generic)
                abort();
    } else if (!memchr(why, '\0', sizeof why)) {
        abort();
    }
    vn_counters_check(s, why, sizeof why);
}

static void buffer(const uint8_t *data, size_t size)
{
    static const uint64_t formats[] = {
        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
            PERF_FORMAT_ID,
        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
            PERF_FORMAT_ID | (1u << 4),
        PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID,
        PERF_FORMAT_GROUP,
        0,
    };
    if (size < 1)
        return;
    size_t n = 1 + data[0] % VN_COUNTERS_MAX;
    uint64_t ids[VN_COUNTERS_MAX];
    for (size_t i = 0; i < n; i++)
        ids[i] = 1000 + i;
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        vn_count out[VN_COUNTERS_MAX];
        size_t m = formats[f] & PERF_FORMAT_GROUP ? n : 1;
        if (vn__ctr_parse_read(data + 1, size - 1, formats[f], ids, m, out) != 0)
            continue;
        for (size_t i = 0; i < m; i++) {
            double v = vn_counter_scale(out[i].value, out[i].enabled, out[i].running, NULL);
            if (isinf(v))
                abort();
        }
        vn_counts a = {0}, b = {0};
        a.n = b.n = m;
        memcpy(b.v, out, m * sizeof out[0]);
        double per[VN_COUNTERS_MAX];
        uint32_t scaled;
        vn__ctr_delta(&a, &b, 1 + data[0], per, &scaled);
        for (size_t i = 0; i < m; i++)
            if (isinf(per[i]) || per[i] < 0)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    list(data, size);
    buffer(data, size);
    return 0;
}
