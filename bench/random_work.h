// The random amounts of work of examples/random_work.c, for the versions of
// the trio written for other tools (gbench_workloads.cc,
// nanobench_workloads.cc): vernier's generator (xoshiro256** seeded by
// splitmix64) and its hash, so that every tool sees the same amounts.
#ifndef VN_BENCH_RANDOM_WORK_H
#define VN_BENCH_RANDOM_WORK_H

#include <cstdint>

struct random_work {
    uint64_t s[4];
    uint64_t h = 0;

    explicit random_work(uint64_t seed)
    {
        for (auto &x : s) {
            uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            x = z ^ (z >> 31);
        }
    }

    // One call: 1 to 64 rounds of the hash, as the generator draws.
    uint64_t call()
    {
        uint64_t v = s[1] * 5, r = ((v << 7) | (v >> 57)) * 9, t = s[1] << 17;
        s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t;
        s[3] = (s[3] << 45) | (s[3] >> 19);
        uint64_t rounds = 1 + (uint64_t)(((unsigned __int128)r * 64) >> 64);
        for (uint64_t i = 0; i < rounds; i++) {
            uint64_t g = h + i;
            g ^= g >> 33;
            g *= 0xff51afd7ed558ccdull;
            h = g ^ (g >> 33);
        }
        return h;
    }
};

#endif
