// The same API from C++: VN_BENCH, vn_next, vn_keep and vn_main, and
// VN_BENCH_WITH for options (VN_BENCH_OPTS needs C++20's designated
// initializers; this form works in every standard).
#include <vector>

#include <vernier.h>

static void vector_sum(vn_state *st)
{
    std::vector<int> v(1024, 3);
    while (vn_next(st)) {
        long s = 0;
        for (int x : v)
            s += x;
        vn_keep(s);
    }
}
VN_BENCH(vector_sum);

// One row per length, 64 to 4096 ints, with the ints summed a second as
// the throughput.
static void vector_sum_n(vn_state *st)
{
    std::vector<int> v(static_cast<size_t>(vn_state_param(st)), 3);
    vn_state_set_items(st, static_cast<double>(v.size()));
    while (vn_next(st)) {
        long s = 0;
        for (int x : v)
            s += x;
        vn_keep(s);
    }
}
VN_BENCH_WITH(vector_sum_n, o)
{
    o->param_name = "ints";
    o->range_lo = 64;
    o->range_hi = 4096;
    o->range_mult = 8;
}

int main(int argc, char **argv) { return vn_main(argc, argv); }
