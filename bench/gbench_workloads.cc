// The workloads of bench/engine.sh written for Google Benchmark, as its
// users would write them, to compare the two side by side.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <time.h>

#include "random_work.h"

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

// The same generator and amounts as examples/random_work.c.
static void random_work(benchmark::State &st)
{
    struct random_work w(2024);
    for (auto _ : st) {
        uint64_t h = w.call();
        benchmark::DoNotOptimize(h);
    }
}
BENCHMARK(random_work);

BENCHMARK_MAIN();
