/* The smallest possible body: one dependent add per iteration. Its time is
 * one core cycle, so it shows the loop's own cost, the overhead subtraction
 * and the reference-cycle column at work. */
#include <vernier.h>

static void x_plus_x(vn_state *st)
{
    uint64_t x = 1;
    while (vn_next(st)) {
        x += x;
        vn_keep(x); /* the add must happen every iteration */
    }
}
VN_BENCH(x_plus_x);

/* bench/workloads.c includes this file for its function, with a main of its own. */
#ifndef VN_EXAMPLE_NO_MAIN
int main(int argc, char **argv) { return vn_main(argc, argv); }
#endif
