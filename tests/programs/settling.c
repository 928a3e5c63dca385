/* Two benchmarks for the tests of how a worker process runs its rows.
 *
 * "ramp" settles after a transient, as a body does whose setup just filled
 * a cache: in each process an iteration costs a quarter of the settled
 * cost at first, twice as much for every RAMP_NS of CPU time the body has
 * run, and the settled cost from then on. The cost is work (dependent
 * steps in a register), and the clock is the thread's CPU time, so a busy
 * machine slows both alike; the steady rise leaves no two samples of the
 * transient alike.
 *
 * "flat" costs the same from the start. With TURNS_LOG set, each call of
 * either body appends its letter (r or f) and the process id to that file,
 * so a test can see the order the rows took turns in, process by process. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <vernier.h>

#define SETTLED 1000  /* steps per iteration once settled */
#define RAMP_NS 4e6   /* CPU time in which the cost doubles, twice */

static void log_call(char row)
{
    const char *path = getenv("TURNS_LOG");
    if (!path)
        return;
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%ld %c\n", (long)getpid(), row);
        fclose(f);
    }
}

/* n dependent steps of a linear congruential generator, in a register
 * (through memory, a step's cost would depend on where the stack sits,
 * which differs from process to process). */
static uint64_t steps(uint64_t x, long n)
{
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        __asm__ __volatile__("" : "+r"(x));
    }
    return x;
}

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void ramp(vn_state *st)
{
    static double start = -1;
    uint64_t x = 0;
    log_call('r');
    double now = cpu_ns();
    if (start < 0)
        start = now;
    double doublings = (now - start) / RAMP_NS;
    long n = doublings >= 2 ? SETTLED : (long)(SETTLED / 4 * pow(2, doublings));
    while (vn_next(st))
        x = steps(x, n);
    vn_keep(x);
}
VN_BENCH(ramp);

static void flat(vn_state *st)
{
    uint64_t x = 0;
    log_call('f');
    while (vn_next(st))
        x = steps(x, SETTLED);
    vn_keep(x);
}
VN_BENCH(flat);

int main(int argc, char **argv) { return vn_main(argc, argv); }
