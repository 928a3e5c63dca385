/* The timer family's arithmetic: a wake-up's lateness, and the finding's
 * one line, which must fit the console whatever the numbers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "suite/timer.h"

static void lateness_is_woke_minus_asked(void **state)
{
    (void)state;
    int early = 0;
    assert_true(vn__suite_lateness_ns(1000, 1000, &early) == 0);
    assert_true(vn__suite_lateness_ns(1000, 58000, &early) == 57000);
    /* Past 2^31 ns, as a monotonic clock soon is after boot. */
    int64_t t = (int64_t)5e12;
    assert_true(vn__suite_lateness_ns(t, t + 3000000000LL, &early) == 3e9);
    assert_int_equal(early, 0);
}

static void an_early_clock_counts_as_zero_and_says_so(void **state)
{
    (void)state;
    int early = 0;
    assert_true(vn__suite_lateness_ns(5000, 4990, &early) == 0);
    assert_int_equal(early, 1);
    /* A later on-time wake-up does not clear what was seen. */
    assert_true(vn__suite_lateness_ns(5000, 6000, &early) == 1000);
    assert_int_equal(early, 1);
}

/* How many parts the line has: what was measured, separated by "; ". */
static size_t parts(const char *line)
{
    size_t n = 1;
    for (const char *p = strstr(line, "; "); p; p = strstr(p + 2, "; "))
        n++;
    return n;
}

static size_t count(const char *hay, const char *needle)
{
    size_t k = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        k++;
    return k;
}

static void the_brief_says_slack_median_p99_and_1ns(void **state)
{
    (void)state;
    char b[128];
    vn__suite_timer_brief(b, sizeof b, 50000, 57300, 120000, 4120);
    /* The golden of this line: its whole wording, once. */
    assert_string_equal(b, "timer: slack 50.0 us (prctl); nanosleep 1 us: median 57.3 us late, p99 120 us; "
                           "1 ns slack: 4.12 us");
    /* What did not run is left out, not shown as a number. */
    vn__suite_timer_brief(b, sizeof b, 50000, NAN, NAN, NAN);
    assert_int_equal(parts(b), 1);
    assert_non_null(strstr(b, "50.0 us"));
    vn__suite_timer_brief(b, sizeof b, 50000, NAN, NAN, 4120);
    assert_int_equal(parts(b), 2);
    assert_non_null(strstr(b, "4.12 us"));
    /* A slack unknown is said, with no number. */
    vn__suite_timer_brief(b, sizeof b, -1, NAN, NAN, 4120);
    assert_int_equal(parts(b), 2);
    assert_true(strcspn(b, "0123456789") > strcspn(b, ";"));
    assert_non_null(strstr(b, "4.12 us"));
}

static void the_brief_fits_100_characters_for_any_numbers(void **state)
{
    (void)state;
    static const double v[] = {0, 0.123, 999.9, 1.2345e6, 123.45e6, 999e6, 1e12, 1e300, NAN};
    char b[128], full[128];
    size_t n = sizeof v / sizeof v[0], longest = 0;
    vn__suite_timer_brief(full, sizeof full, 50000, 57300, 120000, 4120);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            vn__suite_timer_brief(b, sizeof b, v[i], v[j], v[(i + j) % n], v[(i * j) % n]);
            assert_true(strlen(b) <= 100);
            assert_memory_equal(b, full, strcspn(full, "0123456789"));
            longest = strlen(b) > longest ? strlen(b) : longest;
        }
    /* The cut was needed somewhere: the test reached the limit. */
    assert_int_equal(longest, 100);
    /* Durations under a second are never cut: every part, every number. */
    vn__suite_timer_brief(b, sizeof b, 123e6, 123.4e6, 999.4e6, 12.34e6);
    assert_int_equal(parts(b), 3);
    assert_int_equal(count(b, "123 ms"), 2);
    assert_non_null(strstr(b, "999 ms"));
    assert_string_equal(b + strlen(b) - strlen("12.3 ms"), "12.3 ms");
    vn__suite_timer_brief(b, sizeof b, 1.234e6, 1.234e6, 1.234e6, 1.234e6);
    assert_int_equal(parts(b), 3);
    assert_int_equal(count(b, "1.23 ms"), 4);
    /* A small buffer is filled and ended, not overrun: the line's start. */
    char small[8];
    memset(small, 'x', sizeof small);
    vn__suite_timer_brief(small, sizeof small, 50000, 57300, 120000, 4120);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, full, sizeof small - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lateness_is_woke_minus_asked),
        cmocka_unit_test(an_early_clock_counts_as_zero_and_says_so),
        cmocka_unit_test(the_brief_says_slack_median_p99_and_1ns),
        cmocka_unit_test(the_brief_fits_100_characters_for_any_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
