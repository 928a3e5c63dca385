/* The timer family's arithmetic (timer.c), apart from its clocks and
 * system calls, so that tests can feed it values. */
#ifndef VN_SUITE_TIMER_H
#define VN_SUITE_TIMER_H

#include <stddef.h>
#include <stdint.h>

/* How late a wake-up was, in ns: woke - asked, both CLOCK_MONOTONIC in
 * ns. A negative difference (a clock read before the time asked, which
 * one monotonic clock never gives, but a clock that disagrees between
 * CPUs can) is 0, the engine taking no negative time, and *early is set
 * to 1 then (else left alone). */
double vn__suite_lateness_ns(int64_t asked_ns, int64_t woke_ns, int *early);

/* The one line of the finding timer.slack, into buf (n bytes): the
 * thread's timer slack and, where they are not NaN, the median and p99 of
 * a 1 us nanosleep's lateness and the median under a 1 ns slack. At most
 * 100 characters for any values. Returns buf. */
char *vn__suite_timer_brief(char *buf, size_t n, double slack_ns, double median, double p99,
                            double median_1ns);

#endif
