/* The progress line: its parts, its width, and the estimate of the time left. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "base/progress.h"

static void test_parts_and_estimate(void **state)
{
    (void)state;
    char s[256];
    size_t n = vn__progress_line(s, sizeof s, "sleep 0.1", 10, 40, 5.0, 80);
    assert_int_equal(n, strlen(s));
    assert_true(n <= 80);
    assert_non_null(strstr(s, "sleep 0.1"));
    assert_non_null(strstr(s, "10/40"));
    /* 10 runs in 5 s: 30 more take 15 s. */
    assert_non_null(strstr(s, "ETA 0:15"));
    /* A quarter of the bar is filled. */
    const char *l = strchr(s, '['), *r = strchr(s, ']');
    assert_non_null(l);
    assert_non_null(r);
    size_t bar = (size_t)(r - l - 1), fill = 0;
    for (const char *c = l + 1; c < r; c++)
        fill += *c == '#';
    assert_true(bar >= 4);
    assert_int_equal(fill, bar / 4);
}

static void test_no_estimate_before_the_first_run(void **state)
{
    (void)state;
    char s[256];
    vn__progress_line(s, sizeof s, "x", 0, 10, 0.5, 60);
    assert_non_null(strstr(s, "0/10"));
    assert_non_null(strstr(s, "ETA -"));
    vn__progress_line(s, sizeof s, "x", 9, 10, 9.0, 60);
    assert_non_null(strstr(s, "ETA 1.0 s"));
    vn__progress_line(s, sizeof s, "x", 1, 10000, 2.0, 60);
    assert_non_null(strstr(s, "ETA 5h33"));
}

static void test_a_long_name_is_cut_to_the_width(void **state)
{
    (void)state;
    char name[300], s[512];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    for (int w = 20; w <= 200; w += 7) {
        size_t n = vn__progress_line(s, sizeof s, name, 3, 7, 1.0, w);
        assert_int_equal(n, (size_t)w);
        assert_non_null(strstr(s, "3/7"));
        assert_non_null(strstr(s, "..."));
    }
    /* Narrower than 20 is drawn at 20; a small buffer is never overrun. */
    assert_int_equal(vn__progress_line(s, sizeof s, name, 3, 7, 1.0, 5), 20);
    char tiny[8];
    size_t n = vn__progress_line(tiny, sizeof tiny, name, 3, 7, 1.0, 80);
    assert_true(n < sizeof tiny);
    assert_int_equal(strlen(tiny), n);
}

static void test_done_beyond_the_plan_is_all_done(void **state)
{
    (void)state;
    char s[256];
    vn__progress_line(s, sizeof s, "y", 12, 10, 3.0, 80);
    assert_non_null(strstr(s, "12/12"));
    assert_non_null(strstr(s, "ETA 0.0 s"));
    const char *l = strchr(s, '['), *r = strchr(s, ']');
    assert_non_null(l);
    for (const char *c = l + 1; c < r; c++)
        assert_int_equal(*c, '#');
}

static void test_a_name_is_cut_between_characters(void **state)
{
    (void)state;
    char name[200] = "", s[256];
    for (int i = 0; i < 60; i++)
        strcat(name, "\xc3\xa9"); /* é, two bytes */
    vn__progress_line(s, sizeof s, name, 1, 2, 1.0, 40);
    const char *dots = strstr(s, "...");
    assert_non_null(dots);
    /* The byte before the dots ends a character: it is a second byte. */
    assert_int_equal((unsigned char)dots[-1], 0xa9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_and_estimate),
        cmocka_unit_test(test_no_estimate_before_the_first_run),
        cmocka_unit_test(test_a_long_name_is_cut_to_the_width),
        cmocka_unit_test(test_done_beyond_the_plan_is_all_done),
        cmocka_unit_test(test_a_name_is_cut_between_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
