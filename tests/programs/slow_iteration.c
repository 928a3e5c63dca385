/* One iteration that takes 1 s (or SLOW_ITERATION_S seconds), sleeping
 * through signals: calibration alone takes two of them, so a Ctrl-C during
 * the first must stop the run before the second begins. Each iteration says
 * on stderr when it begins, so a test can time its signal from there rather
 * than from the program's start, which a busy machine delays. */
#define _POSIX_C_SOURCE 200809L /* clock_nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <vernier.h>

static void slow(vn_state *st)
{
    const char *env = getenv("SLOW_ITERATION_S");
    long seconds = env ? atol(env) : 1;
    while (vn_next(st)) {
        struct timespec until;
        fputs("slow_iteration: an iteration begins\n", stderr);
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += seconds > 0 ? seconds : 1;
        /* A signal wakes the sleep early; the iteration still lasts 1 s. */
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) != 0)
            ;
    }
}
VN_BENCH(slow);

int main(int argc, char **argv) { return vn_main(argc, argv); }
