// Google Benchmark's side of bench/ablation.sh: the same workloads, the
// same code (ablation_workloads.h), written as its users would.
#include <benchmark/benchmark.h>

#include "ablation_workloads.h"

static void x_plus_x(benchmark::State &st)
{
    uint64_t x = 1;
    for (auto _ : st) {
        x += x;
        benchmark::DoNotOptimize(x);
    }
}
BENCHMARK(x_plus_x);

static void chain_100(benchmark::State &st)
{
    uint64_t x = 0, one = bench_one();
    for (auto _ : st)
        BENCH_ADDS(x, one, 100);
    benchmark::DoNotOptimize(x);
}
BENCHMARK(chain_100);

static void chain_1000(benchmark::State &st)
{
    uint64_t x = 0, one = bench_one();
    for (auto _ : st)
        BENCH_ADDS(x, one, 1000);
    benchmark::DoNotOptimize(x);
}
BENCHMARK(chain_1000);

static void qsort_1000(benchmark::State &st)
{
    for (auto _ : st) {
        abl_qsort();
        benchmark::DoNotOptimize(abl_sort_buf[0]);
    }
}
BENCHMARK(qsort_1000);

static void chase_256k(benchmark::State &st)
{
    for (auto _ : st)
        benchmark::DoNotOptimize(abl_walk());
}
BENCHMARK(chase_256k);

static void sleep_1ms(benchmark::State &st)
{
    for (auto _ : st)
        abl_sleep_1ms();
}
BENCHMARK(sleep_1ms);

int main(int argc, char **argv)
{
    abl_init();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
