/* How long the warm state of a memory-bound body lasts on this machine,
 * without vernier: the table walk of bench/coverage_workloads.c (256
 * loads an iteration from a 4 MiB table, the same places in every sample
 * of one size), timed with CLOCK_MONOTONIC, in ns per iteration.
 *
 *   fresh     the first samples of this process after the table is filled
 *   warm      after 20 ms of walking at the size sampled
 *   smaller   after 20 ms of walking at half that size: a longer sample
 *             reaches places the shorter ones never touched
 *   spin/sleep after a pause of PAUSE ms that touches no memory
 *
 * Usage: bench_warm_state [ITERS (1024)] [PAUSE_MS (10)]; pin it
 * (taskset -c 1) for a steady reading. Each line is eight samples in the
 * order taken; the engine's warmup is judged by how many of the first are
 * slow (bench/RESULTS.md, 2026-11-30). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "now_ns.h"
#include "table_walk.h"

#define SAMPLES 8

static uint32_t *table;
static volatile uint32_t sink;

static double now_ns(void) { return now_ns_of(CLOCK_MONOTONIC); }

static uint32_t walk(long iters)
{
    uint64_t at = 1;
    uint32_t sum = 0;
    for (long k = 0; k < iters; k++)
        table_walk_256(table, &at, &sum);
    return sum;
}

static void walk_for(long iters, double ms)
{
    double t = now_ns();
    while (now_ns() - t < ms * 1e6)
        sink += walk(iters);
}

static void show(const char *what, long iters)
{
    printf("%-8s", what);
    for (int j = 0; j < SAMPLES; j++) {
        double a = now_ns();
        sink += walk(iters);
        printf(" %6.0f", (now_ns() - a) / (double)iters);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 1024;
    double pause = argc > 2 ? atof(argv[2]) : 10;
    if (iters < 2 || !(pause >= 0)) {
        fprintf(stderr, "usage: bench_warm_state [ITERS >= 2] [PAUSE_MS >= 0]\n");
        return 2;
    }
    table = malloc(TABLE_SLOTS * sizeof *table);
    if (!table) {
        fprintf(stderr, "bench_warm_state: out of memory\n");
        return 1;
    }
    uint64_t s = 11;
    for (size_t i = 0; i < TABLE_SLOTS; i++) {
        s = s * 6364136223846793005ull + 1;
        table[i] = (uint32_t)(s >> 40);
    }
    show("fresh", iters);
    walk_for(iters, 20);
    show("warm", iters);
    walk_for(iters / 2, 20);
    show("smaller", iters);
    walk_for(iters, 20);
    double t = now_ns();
    while (now_ns() - t < pause * 1e6)
        ;
    show("spin", iters);
    walk_for(iters, 20);
    struct timespec nap = {(time_t)(pause / 1000), (long)(pause * 1e6) % 1000000000L};
    nanosleep(&nap, NULL);
    show("sleep", iters);
    free(table);
    return 0;
}
