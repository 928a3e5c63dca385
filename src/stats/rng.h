/* The generator the statistics' bootstraps draw from: xoshiro256**
 * (Blackman and Vigna), seeded by splitmix64, so that equal input and an
 * equal seed give equal answers on every machine. The engine's vn_rng is
 * the same generator, but it sits in a layer above the statistics. */
#ifndef VN_STATS_RNG_H
#define VN_STATS_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct vn__srng {
    uint64_t s[4];
    double spare;      /* a second normal deviate kept for the next call */
    int has_spare;
} vn__srng;

static inline uint64_t vn__srng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline void vn__srng_seed(vn__srng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
    r->has_spare = 0;
}

static inline uint64_t vn__srng_next(vn__srng *r)
{
    uint64_t *s = r->s;
    uint64_t out = vn__srng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = vn__srng_rotl(s[3], 45);
    return out;
}

/* An index below n, by Lemire's multiply-shift (its bias, under 2^-32 for
 * the sizes here, is far below a bootstrap's own noise). */
static inline size_t vn__srng_index(vn__srng *r, size_t n)
{
    return (size_t)(((vn__srng_next(r) >> 32) * (uint64_t)n) >> 32);
}

#endif
