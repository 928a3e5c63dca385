/* A clock's reading in nanoseconds, as a double: for the bench programs
 * that time themselves without vernier (warm_state.c, spans.c). Include
 * after a feature macro that declares clock_gettime (_POSIX_C_SOURCE
 * 200809L; _GNU_SOURCE for CLOCK_MONOTONIC_RAW). */
#ifndef VN_BENCH_NOW_NS_H
#define VN_BENCH_NOW_NS_H

#include <time.h>

static inline double now_ns_of(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#endif
