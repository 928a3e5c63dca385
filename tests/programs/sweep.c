/* For the tests of --baseline and of the complexity fit: a sweep whose
 * time grows as n (n dependent multiplies an iteration) compared with its
 * own smallest row, a row of fixed work, and a body the empty loop cannot
 * be told apart from (an upper bound, which has no ratio). */
#include <vernier.h>

#include "multiplies.h"

static void grow(vn_state *st) { multiplies(st, (uint64_t)vn_state_param(st)); }
VN_BENCH_WITH(grow, o)
{
    static const int64_t n[] = {64, 128, 256, 512, 1024};
    o->param_values = n;
    o->param_count = sizeof n / sizeof n[0];
    o->baseline = "grow/n=64";
}

static void fixed(vn_state *st) { multiplies(st, 100); }
VN_BENCH(fixed);

/* The empty loop itself (src/engine/empty.c): nothing to tell apart. */
static void nothing(vn_state *st)
{
    while (vn_next(st))
        __asm__ __volatile__("");
}
VN_BENCH(nothing);

int main(int argc, char **argv) { return vn_main(argc, argv); }
