/* The random table walk of bench/coverage_workloads.c, one iteration of
 * it: 256 lookups at places of a 4 MiB table drawn by a linear
 * congruential generator. Shared with bench/warm_state.c, which times the
 * same walk without vernier. */
#ifndef VN_BENCH_TABLE_WALK_H
#define VN_BENCH_TABLE_WALK_H

#include <stdint.h>

#define TABLE_BITS 20 /* 2^20 slots of 4 bytes: 4 MiB */
#define TABLE_SLOTS (1u << TABLE_BITS)

/* 256 lookups from the generator's state *at, added to *sum. */
static inline void table_walk_256(const uint32_t *table, uint64_t *at, uint32_t *sum)
{
    uint64_t a = *at;
    uint32_t s = *sum;
    for (int i = 0; i < 256; i++) {
        a = a * 6364136223846793005ull + 1442695040888963407ull;
        s += table[a >> (64 - TABLE_BITS)];
    }
    *at = a;
    *sum = s;
}

#endif
