/* A chain of n dependent register adds, x += one: each waits for the one
 * before, one core cycle each on any core. An add of a constant would not
 * do: some cores fold a chain of adds of a constant at rename, several a
 * cycle and as many as what else the core runs leaves room for (0.07-0.10
 * ns an add against 0.35 for register adds on an Intel Xeon guest,
 * bench/RESULTS.md, 2026-12-03). one comes from bench_one(), a value the
 * compiler, and so the core, cannot know before it is loaded. */
#ifndef VN_BENCH_ADD_CHAIN_H
#define VN_BENCH_ADD_CHAIN_H

#include <stdint.h>

#if defined(__x86_64__)
#define BENCH_ADDS(x, one, n) \
    __asm__ __volatile__(".rept " #n "\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one))
#elif defined(__aarch64__)
#define BENCH_ADDS(x, one, n) \
    __asm__ __volatile__(".rept " #n "\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(one))
#endif

static inline uint64_t bench_one(void)
{
    static volatile uint64_t one = 1;
    return one;
}

#endif
