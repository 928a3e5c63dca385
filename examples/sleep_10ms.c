#define _POSIX_C_SOURCE 200809L /* nanosleep */
/* A 10 ms sleep: long samples of one iteration each, and a time that says
 * more about the kernel's timers than about the code. */
#include <time.h>

#include <vernier.h>

static void sleep_10ms(vn_state *st)
{
    while (vn_next(st)) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
}
VN_BENCH(sleep_10ms);

/* bench/workloads.c includes this file for its function, with a main of its own. */
#ifndef VN_EXAMPLE_NO_MAIN
int main(int argc, char **argv) { return vn_main(argc, argv); }
#endif
