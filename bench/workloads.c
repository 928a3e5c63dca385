/* The workloads of bench/engine.sh: x += x, a 10 ms sleep and random
 * amounts of work (the same as examples/ and bench/gbench_workloads.cc), and
 * dependent chains of 100 and 1000 adds: the second must measure 10x the
 * first if the loop's own cost is subtracted right and nothing else leaks
 * in. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>

#include <vernier.h>

#if defined(__x86_64__)
#define ADDS(n) __asm__ __volatile__(".rept " #n "\n\tadd $1, %0\n\t.endr" : "+r"(x))
#elif defined(__aarch64__)
#define ADDS(n) __asm__ __volatile__(".rept " #n "\n\tadd %0, %0, #1\n\t.endr" : "+r"(x))
#endif

static void chain100(vn_state *st)
{
    uint64_t x = 0;
    while (vn_next(st))
        ADDS(100);
    vn_keep(x);
}
VN_BENCH(chain100);

static void chain1000(vn_state *st)
{
    uint64_t x = 0;
    while (vn_next(st))
        ADDS(1000);
    vn_keep(x);
}
VN_BENCH(chain1000);

static void x_plus_x(vn_state *st)
{
    uint64_t x = 1;
    while (vn_next(st)) {
        x += x;
        vn_keep(x);
    }
}
VN_BENCH(x_plus_x);

static void sleep_10ms(vn_state *st)
{
    while (vn_next(st)) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
}
VN_BENCH(sleep_10ms);

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

int main(int argc, char **argv) { return vn_main(argc, argv); }
