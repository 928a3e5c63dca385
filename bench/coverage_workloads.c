/* The workloads of bench/coverage.sh, which measures whether one run's
 * interval holds the next run's answer: dependent chains of adds and of
 * divisions (steady, compute-bound), a random table walk and an 8 MiB
 * pointer chase (memory-bound), the demo's two loops over two arrays, a
 * one-cycle body (x += x) and a 1 ms sleep.
 *
 * VN_COVERAGE_SLOWER=3 or =10 plants a slowdown of that many percent in the
 * two chains (1030 or 1100 adds instead of 1000, 103 or 110 divisions
 * instead of 100), so that the script can count how often a comparison
 * finds it. Only the standard API is used, so the program builds against
 * any version of the library. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vernier.h"
#include "add_chain.h"
#include "ring.h"
#include "table_walk.h"


static int slower(void)
{
    const char *s = getenv("VN_COVERAGE_SLOWER");
    return s ? atoi(s) : 0;
}

static void chain_1000(vn_state *st)
{
    uint64_t x = 0, one = bench_one();
    int p = slower();
    if (p == 10)
        while (vn_next(st))
            BENCH_ADDS(x, one, 1100);
    else if (p == 3)
        while (vn_next(st))
            BENCH_ADDS(x, one, 1030);
    else
        while (vn_next(st))
            BENCH_ADDS(x, one, 1000);
    vn_keep(x);
}
VN_BENCH(chain_1000);

/* Each division depends on the one before: its latency, not its
 * throughput. The divisor is read from memory, so it is no constant the
 * compiler could turn into a multiplication. */
static volatile uint64_t divisor = 3;

static void div_chain(vn_state *st)
{
    uint64_t x = ~0ull, d = divisor;
    int n = 100 + slower();
    while (vn_next(st)) {
        for (int i = 0; i < n; i++) {
            x = x / d + 0x9e3779b97f4a7c15ull;
            vn_keep(x);
        }
    }
}
VN_BENCH(div_chain);

static uint32_t *table;

static void table_setup(vn_state *st)
{
    if (table)
        return;
    table = malloc(TABLE_SLOTS * sizeof *table);
    if (!table) {
        vn_state_fail(st, "out of memory");
        return;
    }
    vn_rng r;
    vn_rng_seed(&r, 11);
    for (size_t i = 0; i < TABLE_SLOTS; i++)
        table[i] = (uint32_t)vn_rng_below(&r, TABLE_SLOTS);
}

/* 256 lookups at random places of a 4 MiB table (bench/table_walk.h):
 * independent loads, many in flight at once, so the walk is bound by the
 * memory system's throughput. */
static void table_walk(vn_state *st)
{
    uint64_t at = 1;
    uint32_t sum = 0;
    while (vn_next(st)) {
        table_walk_256(table, &at, &sum);
        vn_keep(sum);
    }
}
VN_BENCH_OPTS(table_walk, .setup = table_setup);

#define CHASE_SLOTS ((8u << 20) / sizeof(void *))
static void **chase, **chase_at;

/* One cycle through every slot of 8 MiB in a random order (bench/ring.h). */
static void chase_setup(vn_state *st)
{
    if (chase)
        return;
    chase_at = ring_new(CHASE_SLOTS, 12, &chase);
    if (!chase_at)
        vn_state_fail(st, "out of memory");
}

static void chase_8m(vn_state *st)
{
    void **p = chase_at;
    while (vn_next(st)) {
        for (int i = 0; i < 256; i++)
            p = (void **)*p;
        vn_keep(p);
    }
    chase_at = p;
}
VN_BENCH_OPTS(chase_8m, .setup = chase_setup);

#define SUM_N (1 << 14)
static int *arrays;

static void sum_setup(vn_state *st)
{
    if (arrays)
        return;
    arrays = malloc(2 * SUM_N * sizeof *arrays);
    if (!arrays) {
        vn_state_fail(st, "out of memory");
        return;
    }
    vn_rng r;
    vn_rng_seed(&r, 7);
    for (int i = 0; i < 2 * SUM_N; i++)
        arrays[i] = (int)vn_rng_below(&r, 1000);
}

/* The demo's slower way: the two arrays summed in two loops. */
static void sum_two_loops(vn_state *st)
{
    const int *a = arrays, *b = arrays + SUM_N;
    while (vn_next(st)) {
        int s1 = 0, s2 = 0;
        for (int i = 0; i < SUM_N; i++)
            s1 += a[i];
        for (int i = 0; i < SUM_N; i++)
            s2 += b[i];
        vn_keep(s1 + s2);
    }
}
VN_BENCH_OPTS(sum_two_loops, .setup = sum_setup);

static void x_plus_x(vn_state *st)
{
    uint64_t x = 1;
    while (vn_next(st)) {
        x += x;
        vn_keep(x);
    }
}
VN_BENCH(x_plus_x);

static void sleep_1ms(vn_state *st)
{
    while (vn_next(st)) {
        struct timespec ts = {0, 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
}
VN_BENCH(sleep_1ms);

int main(int argc, char **argv) { return vn_main(argc, argv); }
