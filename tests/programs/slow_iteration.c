/* One iteration that takes 1 s, sleeping through signals: calibration
 * alone takes two of them, so a Ctrl-C during the first must stop the run
 * before the second begins. */
#define _POSIX_C_SOURCE 200809L /* clock_nanosleep */
#include <time.h>

#include <vernier.h>

static void slow(vn_state *st)
{
    while (vn_next(st)) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += 1;
        /* A signal wakes the sleep early; the iteration still lasts 1 s. */
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) != 0)
            ;
    }
}
VN_BENCH(slow);

int main(int argc, char **argv) { return vn_main(argc, argv); }
