// The trio of bench/time.sh (x += x, a 10 ms sleep, random work) written for
// nanobench, as its users would write them, to time the two side by side.
// nanobench is one header and is not packaged by Debian: bench/time.sh
// builds this file only when NANOBENCH_H names that header.
#define ANKERL_NANOBENCH_IMPLEMENT
#include <nanobench.h>

#include <cstdint>
#include <time.h>

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

int main()
{
    ankerl::nanobench::Bench b;
    uint64_t x = 1;
    b.run("x_plus_x", [&] {
        x += x;
        ankerl::nanobench::doNotOptimizeAway(x);
    });
    b.run("sleep_10ms", [] {
        struct timespec ts = {0, 10 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    });
    // The same generator and amounts as examples/random_work.c.
    uint64_t s[4], seed = 2024;
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        s[i] = z ^ (z >> 31);
    }
    uint64_t h = 0;
    b.run("random_work", [&] {
        uint64_t v = s[1] * 5, r = ((v << 7) | (v >> 57)) * 9, t = s[1] << 17;
        s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t;
        s[3] = (s[3] << 45) | (s[3] >> 19);
        uint64_t rounds = 1 + (uint64_t)(((unsigned __int128)r * 64) >> 64);
        for (uint64_t i = 0; i < rounds; i++)
            h = mix(h + i);
        ankerl::nanobench::doNotOptimizeAway(h);
    });
    return 0;
}
