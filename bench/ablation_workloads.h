/* The workloads of bench/ablation.sh, shared by its vernier and Google
 * Benchmark programs so both time the very same code (x += x is written
 * in each, as its users would): dependent chains of
 * 100 and 1000 adds (the second must read 10x the first), a qsort of 1000
 * ints, a pointer chase over 256 KiB and a 1 ms sleep. */
#ifndef VN_BENCH_ABLATION_WORKLOADS_H
#define VN_BENCH_ABLATION_WORKLOADS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "add_chain.h"

#define ABL_SORT_N 1000
#define ABL_CHASE_SLOTS (256 * 1024 / sizeof(void *))
#define ABL_CHASE_STEPS 1024 /* dependent loads per iteration */

static int abl_sort_src[ABL_SORT_N], abl_sort_buf[ABL_SORT_N];
static void *abl_chase[ABL_CHASE_SLOTS];
static void **abl_at;

static uint64_t abl_next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* Fixed inputs, the same in every process: random ints to sort, and one
 * cycle through every slot of the chase in a random order, so that the
 * prefetcher cannot guess the next load. */
static void abl_init(void)
{
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < ABL_SORT_N; i++)
        abl_sort_src[i] = (int)(abl_next(&s) >> 33);
    static size_t order[ABL_CHASE_SLOTS];
    for (size_t i = 0; i < ABL_CHASE_SLOTS; i++)
        order[i] = i;
    for (size_t i = ABL_CHASE_SLOTS - 1; i > 0; i--) {
        size_t k = abl_next(&s) % (i + 1), t = order[i];
        order[i] = order[k], order[k] = t;
    }
    for (size_t i = 0; i < ABL_CHASE_SLOTS; i++)
        abl_chase[order[i]] = &abl_chase[order[(i + 1) % ABL_CHASE_SLOTS]];
    abl_at = (void **)abl_chase[0];
}

static int abl_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* One iteration of each: the sort starts from the same unsorted copy. */
static inline void abl_qsort(void)
{
    memcpy(abl_sort_buf, abl_sort_src, sizeof abl_sort_buf);
    qsort(abl_sort_buf, ABL_SORT_N, sizeof abl_sort_buf[0], abl_cmp);
}

static inline void *abl_walk(void)
{
    void **p = abl_at;
    for (int i = 0; i < ABL_CHASE_STEPS; i++)
        p = (void **)*p;
    abl_at = p;
    return p;
}

static inline void abl_sleep_1ms(void)
{
    struct timespec ts = {0, 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

#endif
