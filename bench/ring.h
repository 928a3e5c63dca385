/* A ring for pointer chases: every slot of a buffer points at the next in
 * one random cycle through them all, so that no prefetcher guesses the
 * next load. Shared by the bench programs that walk one. */
#ifndef VN_BENCH_RING_H
#define VN_BENCH_RING_H

#include <stdint.h>
#include <stdlib.h>
#include <vernier.h>

/* n slots in *slots (malloc'd; the caller keeps it), in the cycle that
 * seed draws; the slot to start from, NULL when memory ran out. */
static inline void **ring_new(size_t n, uint64_t seed, void ***slots)
{
    void **v = malloc(n * sizeof *v);
    size_t *order = malloc(n * sizeof *order);
    if (!v || !order) {
        free(v);
        free(order);
        return NULL;
    }
    vn_rng r;
    vn_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t k = (size_t)vn_rng_below(&r, i + 1), t = order[i];
        order[i] = order[k], order[k] = t;
    }
    for (size_t i = 0; i < n; i++)
        v[order[i]] = &v[order[(i + 1) % n]];
    void **start = v[order[0]];
    free(order);
    *slots = v;
    return start;
}

#endif
