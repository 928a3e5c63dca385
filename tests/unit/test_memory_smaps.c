/* vn__smaps_huge_kb on /proc/self/smaps text: the mapping that holds an
 * address, its size and how much of it is huge pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "suite/memory_huge.h"
#include "vernier/base.h"

static const char smaps[] =
    "55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]\n"
    "Size:                132 kB\n"
    "KernelPageSize:         4 kB\n"
    "AnonHugePages:          0 kB\n"
    "7f0000000000-7f0020000000 rw-p 00000000 00:00 0 \n"
    "Size:             524288 kB\n"
    "KernelPageSize:         4 kB\n"
    "Rss:              524288 kB\n"
    "AnonHugePages:    522240 kB\n"
    "THPeligible:    1\n"
    "7f0020000000-7f0020200000 rw-p 00000000 00:00 0\n"
    "Size:               2048 kB\n"
    "AnonHugePages:         0 kB\n"
    "7ffd1c9d0000-7ffd1c9f1000 rw-p 00000000 00:00 0                          [stack]\n"
    "Size:                132 kB";

static void the_mapping_that_holds_the_address(void **s)
{
    (void)s;
    long long size, huge;
    assert_int_equal(vn__smaps_huge_kb(smaps, 0x7f0010000000u, &size, &huge), 0);
    assert_true(size == 524288 && huge == 522240);
    /* Its first byte is in it, its end is the next one's. */
    assert_int_equal(vn__smaps_huge_kb(smaps, 0x7f0000000000u, &size, &huge), 0);
    assert_true(size == 524288);
    assert_int_equal(vn__smaps_huge_kb(smaps, 0x7f0020000000u, &size, &huge), 0);
    assert_true(size == 2048 && huge == 0);
}

static void no_mapping_or_no_line_is_enoent(void **s)
{
    (void)s;
    long long size = -5, huge = -5;
    assert_int_equal(vn__smaps_huge_kb(smaps, 0x1000u, &size, &huge), VN_ENOENT);
    /* The stack's lines end before AnonHugePages. */
    assert_int_equal(vn__smaps_huge_kb(smaps, 0x7ffd1c9d0000u, &size, &huge), VN_ENOENT);
    assert_true(size == -5 && huge == -5);
    assert_int_equal(vn__smaps_huge_kb("", 0x1000u, &size, &huge), VN_ENOENT);
    assert_int_equal(vn__smaps_huge_kb("zzzz-\nSize: x\n", 0x1000u, &size, &huge), VN_ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_mapping_that_holds_the_address),
        cmocka_unit_test(no_mapping_or_no_line_is_enoent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
