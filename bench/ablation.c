/* vernier's side of bench/ablation.sh: the workloads of
 * ablation_workloads.h, run with the policy given by --policy. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "vernier.h"

#include "ablation_workloads.h"

/* One dependent add: about a cycle, as fast as a body gets, so that the
 * rules for bodies near or under a cycle (the bound, the empty loop's
 * share) are at work. */
static void x_plus_x(vn_state *st)
{
    uint64_t x = 1;
    while (vn_next(st)) {
        x += x;
        vn_keep(x);
    }
}
VN_BENCH(x_plus_x);

static void chain_100(vn_state *st)
{
    uint64_t x = 0, one = bench_one();
    while (vn_next(st))
        BENCH_ADDS(x, one, 100);
    vn_keep(x);
}
VN_BENCH(chain_100);

static void chain_1000(vn_state *st)
{
    uint64_t x = 0, one = bench_one();
    while (vn_next(st))
        BENCH_ADDS(x, one, 1000);
    vn_keep(x);
}
VN_BENCH(chain_1000);

static void qsort_1000(vn_state *st)
{
    while (vn_next(st)) {
        abl_qsort();
        vn_keep(abl_sort_buf[0]);
    }
}
VN_BENCH(qsort_1000);

static void chase_256k(vn_state *st)
{
    while (vn_next(st))
        vn_keep(abl_walk());
}
VN_BENCH(chase_256k);

static void sleep_1ms(vn_state *st)
{
    while (vn_next(st))
        abl_sleep_1ms();
}
VN_BENCH(sleep_1ms);

int main(int argc, char **argv)
{
    abl_init();
    return vn_main(argc, argv);
}
