/* Each call does a random amount of work (1 to 64 rounds of a hash): the
 * distribution of one call is wide, but a sample averages thousands of
 * calls, so the median of samples is still sharp. The generator is seeded,
 * so every run sees the same amounts. */
#include <vernier.h>

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static void random_work(vn_state *st)
{
    vn_rng rng;
    vn_rng_seed(&rng, 2024);
    uint64_t h = 0;
    while (vn_next(st)) {
        uint64_t rounds = 1 + vn_rng_below(&rng, 64);
        for (uint64_t i = 0; i < rounds; i++)
            h = mix(h + i);
        vn_keep(h);
    }
}
VN_BENCH(random_work);

/* bench/workloads.c includes this file for its function, with a main of its own. */
#ifndef VN_EXAMPLE_NO_MAIN
int main(int argc, char **argv) { return vn_main(argc, argv); }
#endif
