// The workloads of bench/engine.sh written for Google Benchmark, as its
// users would write them, to compare the two side by side.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <time.h>

static void x_plus_x(benchmark::State &st)
{
    uint64_t x = 1;
    for (auto _ : st) {
        x += x;
        benchmark::DoNotOptimize(x);
    }
}
BENCHMARK(x_plus_x);

static void sleep_10ms(benchmark::State &st)
{
    for (auto _ : st) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
}
BENCHMARK(sleep_10ms);

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

// The same generator and amounts as examples/random_work.c.
static void random_work(benchmark::State &st)
{
    uint64_t s[4], seed = 2024;
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        s[i] = z ^ (z >> 31);
    }
    uint64_t h = 0;
    for (auto _ : st) {
        uint64_t x = s[1] * 5, r = ((x << 7) | (x >> 57)) * 9, t = s[1] << 17;
        s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t;
        s[3] = (s[3] << 45) | (s[3] >> 19);
        uint64_t rounds = 1 + (uint64_t)(((unsigned __int128)r * 64) >> 64);
        for (uint64_t i = 0; i < rounds; i++)
            h = mix(h + i);
        benchmark::DoNotOptimize(h);
    }
}
BENCHMARK(random_work);

BENCHMARK_MAIN();
