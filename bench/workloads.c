/* The workloads of bench/engine.sh: x += x, a 10 ms sleep and random
 * amounts of work (examples/, included below; bench/gbench_workloads.cc has
 * them for Google Benchmark), and
 * dependent chains of 100, 1000 and 10000 adds: each must measure 10x the
 * one before if the loop's own cost is subtracted right and nothing else
 * leaks in. Six benchmarks also make the table whose findings must fit
 * below it in a few lines (tests/cli/test_engine_cli.py). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>

#include "vernier.h"
#include "add_chain.h"


static void chain100(vn_state *st)
{
    uint64_t x = 0, one = bench_one();
    while (vn_next(st))
        BENCH_ADDS(x, one, 100);
    vn_keep(x);
}
VN_BENCH(chain100);

static void chain1000(vn_state *st)
{
    uint64_t x = 0, one = bench_one();
    while (vn_next(st))
        BENCH_ADDS(x, one, 1000);
    vn_keep(x);
}
VN_BENCH(chain1000);

static void chain10000(vn_state *st)
{
    uint64_t x = 0, one = bench_one();
    while (vn_next(st))
        BENCH_ADDS(x, one, 10000);
    vn_keep(x);
}
VN_BENCH(chain10000);

/* The same three workloads as the examples, their very code. */
#define VN_EXAMPLE_NO_MAIN
#include "../examples/x_plus_x.c"
#include "../examples/sleep_10ms.c"
#include "../examples/random_work.c"

int main(int argc, char **argv) { return vn_main(argc, argv); }
