/* Two benchmarks for the test of a run's late look: "steady" costs the
 * same in every process, and reaches a loose precision in a few of them;
 * "varies" costs from 1 to 3 times as much, by a factor each process draws
 * from its pid, so its processes never agree and it runs to the most
 * processes, while "steady" has stopped long before. */
#include <stdint.h>
#include <unistd.h>

#include <vernier.h>

#define STEPS 1000

/* n dependent steps of a linear congruential generator, in a register. */
static uint64_t steps(uint64_t x, long n)
{
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        __asm__ __volatile__("" : "+r"(x));
    }
    return x;
}

static void steady(vn_state *st)
{
    uint64_t x = 0;
    while (vn_next(st))
        x = steps(x, STEPS);
    vn_keep(x);
}
VN_BENCH(steady);

static void varies(vn_state *st)
{
    /* The pid's hash, from 1 to 3 in 64 steps. */
    uint64_t h = (uint64_t)getpid() * 0x9e3779b97f4a7c15u;
    long n = STEPS + (long)((h >> 58) * STEPS / 32);
    uint64_t x = 0;
    while (vn_next(st))
        x = steps(x, n);
    vn_keep(x);
}
VN_BENCH(varies);

int main(int argc, char **argv) { return vn_main(argc, argv); }
