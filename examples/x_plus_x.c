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

int main(int argc, char **argv) { return vn_main(argc, argv); }
