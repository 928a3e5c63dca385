/* The layout of what read() returns on a perf event fd, parsed from byte
 * buffers built here word by word: group reads with times and ids (in the
 * kernel's order or another), a single event, the lost count of newer
 * kernels, and every way a buffer can be wrong. */
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "counters/internal.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1u << 4)
#endif

#define FULL (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
              PERF_FORMAT_ID)

static void group_with_ids(void **state)
{
    (void)state;
    /* nr, time_enabled, time_running, then {value, id} per member. */
    const uint64_t buf[] = {3, 5000, 2500, 111, 70, 222, 71, 333, 72};
    const uint64_t ids[] = {70, 71, 72};
    vn_count out[3];
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf, FULL, ids, 3, out), 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(out[i].enabled, 5000);
        assert_int_equal(out[i].running, 2500);
    }
    assert_int_equal(out[0].value, 111);
    assert_int_equal(out[1].value, 222);
    assert_int_equal(out[2].value, 333);

    /* Matched by id, whatever order the kernel lists them in. */
    const uint64_t ids2[] = {72, 70, 71};
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf, FULL, ids2, 3, out), 0);
    assert_int_equal(out[0].value, 333);
    assert_int_equal(out[1].value, 111);
    assert_int_equal(out[2].value, 222);

    /* Without ids from the caller: in the order given. */
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf, FULL, NULL, 3, out), 0);
    assert_int_equal(out[2].value, 333);
}

static void unaligned_and_lost(void **state)
{
    (void)state;
    /* The same words one byte into a buffer: no aligned loads assumed. */
    const uint64_t words[] = {2, 900, 900, 5, 1, 0, 6, 2, 0};
    unsigned char bytes[sizeof words + 1];
    memcpy(bytes + 1, words, sizeof words);
    const uint64_t ids[] = {1, 2};
    vn_count out[2];
    /* With PERF_FORMAT_LOST each member has a third word. */
    assert_int_equal(vn__ctr_parse_read(bytes + 1, sizeof words, FULL | PERF_FORMAT_LOST, ids, 2,
                                        out),
                     0);
    assert_int_equal(out[0].value, 5);
    assert_int_equal(out[1].value, 6);
    assert_int_equal(out[1].running, 900);
}

static void single_events(void **state)
{
    (void)state;
    vn_count out[1];
    /* value, enabled, running, id. */
    const uint64_t one[] = {42, 1000, 600, 9};
    const uint64_t id = 9;
    uint64_t fmt = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
    assert_int_equal(vn__ctr_parse_read(one, sizeof one, fmt, &id, 1, out), 0);
    assert_int_equal(out[0].value, 42);
    assert_int_equal(out[0].enabled, 1000);
    assert_int_equal(out[0].running, 600);
    const uint64_t other = 8;
    assert_int_equal(vn__ctr_parse_read(one, sizeof one, fmt, &other, 1, out), VN_EINVAL);
    /* Just the value: the times read as 0, which scaling takes as unknown. */
    const uint64_t bare[] = {42};
    assert_int_equal(vn__ctr_parse_read(bare, sizeof bare, 0, NULL, 1, out), 0);
    assert_int_equal(out[0].value, 42);
    assert_int_equal(out[0].running, 0);
    /* Only the enabled time. */
    const uint64_t en[] = {42, 77};
    assert_int_equal(vn__ctr_parse_read(en, sizeof en, PERF_FORMAT_TOTAL_TIME_ENABLED, NULL, 1,
                                        out),
                     0);
    assert_int_equal(out[0].enabled, 77);
}

static void malformed(void **state)
{
    (void)state;
    const uint64_t buf[] = {3, 5000, 2500, 111, 70, 222, 71, 333, 72};
    const uint64_t ids[] = {70, 71, 72};
    vn_count out[3] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}};
    /* Short, long, and not a whole number of words. */
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf - 8, FULL, ids, 3, out), VN_EINVAL);
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf + 0, FULL, ids, 2, out), VN_EINVAL);
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf - 3, FULL, ids, 3, out), VN_EINVAL);
    assert_int_equal(vn__ctr_parse_read(buf, 0, FULL, ids, 3, out), VN_EINVAL);
    /* The group holds another number of events than we opened. */
    const uint64_t four[] = {4, 5000, 2500, 111, 70, 222, 71, 333, 72};
    assert_int_equal(vn__ctr_parse_read(four, sizeof four, FULL, ids, 3, out), VN_EINVAL);
    /* An id we do not know, and one id twice. */
    const uint64_t stranger[] = {3, 5000, 2500, 111, 70, 222, 99, 333, 72};
    assert_int_equal(vn__ctr_parse_read(stranger, sizeof stranger, FULL, ids, 3, out), VN_EINVAL);
    const uint64_t twice[] = {3, 5000, 2500, 111, 70, 222, 70, 333, 72};
    assert_int_equal(vn__ctr_parse_read(twice, sizeof twice, FULL, ids, 3, out), VN_EINVAL);
    /* Bad arguments. */
    assert_int_equal(vn__ctr_parse_read(NULL, 8, FULL, ids, 3, out), VN_EINVAL);
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf, FULL, ids, 0, out), VN_EINVAL);
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf, FULL, ids, VN_COUNTERS_MAX + 1, out),
                     VN_EINVAL);
    /* A failed parse leaves the output as it was. */
    for (int i = 0; i < 3; i++)
        assert_true(out[i].value == 1 && out[i].enabled == 2 && out[i].running == 3);
}

static void the_largest_group(void **state)
{
    (void)state;
    uint64_t buf[3 + 2 * VN_COUNTERS_MAX], ids[VN_COUNTERS_MAX];
    buf[0] = VN_COUNTERS_MAX;
    buf[1] = 10;
    buf[2] = 10;
    for (int i = 0; i < VN_COUNTERS_MAX; i++) {
        buf[3 + 2 * i] = (uint64_t)i * 1000;
        buf[4 + 2 * i] = ids[VN_COUNTERS_MAX - 1 - i] = 500 + (uint64_t)i;
    }
    vn_count out[VN_COUNTERS_MAX];
    assert_int_equal(vn__ctr_parse_read(buf, sizeof buf, FULL, ids, VN_COUNTERS_MAX, out), 0);
    assert_int_equal(out[0].value, (VN_COUNTERS_MAX - 1) * 1000);
    assert_int_equal(out[VN_COUNTERS_MAX - 1].value, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(group_with_ids), cmocka_unit_test(unaligned_and_lost),
        cmocka_unit_test(single_events),  cmocka_unit_test(malformed),
        cmocka_unit_test(the_largest_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
