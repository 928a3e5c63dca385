// The same API from C++: VN_BENCH, vn_next, vn_keep and vn_main.
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

int main(int argc, char **argv) { return vn_main(argc, argv); }
