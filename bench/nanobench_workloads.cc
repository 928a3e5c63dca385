// The trio of bench/time.sh (x += x, a 10 ms sleep, random work) written for
// nanobench, as its users would write them, to time the two side by side.
// nanobench is one header and is not packaged by Debian: bench/time.sh
// builds this file only when NANOBENCH_H names that header.
#define ANKERL_NANOBENCH_IMPLEMENT
#include <nanobench.h>

#include <cstdint>
#include <time.h>

#include "random_work.h"

int main()
{
    ankerl::nanobench::Bench b;
    uint64_t x = 1;
    b.run("x_plus_x", [&] {
        x += x;
        ankerl::nanobench::doNotOptimizeAway(x);
    });
    b.run("sleep_10ms", [] {
        struct timespec ts = {0, 10 * 1000 * 1000};
        while (nanosleep(&ts, &ts) != 0)
            ;
    });
    // The same generator and amounts as examples/random_work.c.
    struct random_work w(2024);
    b.run("random_work", [&] { ankerl::nanobench::doNotOptimizeAway(w.call()); });
    return 0;
}
