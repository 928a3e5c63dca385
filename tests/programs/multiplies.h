/* The body the test programs time: n dependent multiplies an iteration,
 * well above the loop's own cost, so their rows are measured rather than
 * bounds (in an optimized build). */
#ifndef VN_TEST_MULTIPLIES_H
#define VN_TEST_MULTIPLIES_H

#include <vernier.h>

static inline void multiplies(vn_state *st, uint64_t n)
{
    uint64_t x = 1;
    while (vn_next(st)) {
        for (uint64_t i = 0; i < n; i++)
            x = x * 6364136223846793005u + 1;
        vn_keep(x);
    }
}

#endif
