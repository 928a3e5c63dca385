/* A generator for the tests that make their data: seeded by the test, so
 * every run tests the same values. */
#ifndef VN_TEST_SEEDED_H
#define VN_TEST_SEEDED_H

#include <stdint.h>

static uint64_t seed;

/* splitmix64, as uniform on (0, 1). */
static double unif(void)
{
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1p-53;
}

#endif
