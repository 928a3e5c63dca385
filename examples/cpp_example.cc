// Benchmarks in C++ with <vernier.hpp>: capturing lambdas, a parameter
// sweep, a setup and a teardown run untimed around every sample, and the
// command line of every vernier benchmark program (--json, --filter, ...).
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <vernier.hpp>

int main(int argc, char **argv)
{
    vernier::suite s;

    // Captured by reference: the program's own vector. clobber() says its
    // memory may have changed, so the sum is not hoisted out of the loop.
    std::vector<int> v(1024, 3);
    s.add("vector_sum", [&v](vernier::state &st) {
        for (auto _ : st) {
            vernier::clobber();
            vernier::keep(std::accumulate(v.begin(), v.end(), 0L));
        }
    });

    // Captured by value: the lambda keeps its own copy of the text, whose
    // length is the throughput in bytes.
    std::string text;
    for (int i = 0; i < 16; i++)
        text += "the quick brown fox jumps over the lazy dog. ";
    s.add("count_spaces", [text](vernier::state &st) {
        st.set_bytes(static_cast<double>(text.size()));
        while (st.next()) {
            vernier::clobber();
            vernier::keep(std::count(text.begin(), text.end(), ' '));
        }
    });

    // A sweep: one row per length, 64 to 4096 ints, with the ints summed a
    // second as the throughput.
    s.add("vector_sum_n", [](vernier::state &st) {
        std::vector<int> w(static_cast<std::size_t>(st.param()), 3);
        st.set_items(static_cast<double>(w.size()));
        for (auto _ : st) {
            vernier::clobber();
            vernier::keep(std::accumulate(w.begin(), w.end(), 0L));
        }
    }).range("ints", 64, 4096, 8);

    // A map built untimed before each sample (its size is the row's
    // parameter) and emptied after it; the benchmark times the lookups,
    // each size against the smallest map (a ratio and a line each).
    std::map<std::int64_t, std::int64_t> m;
    s.add("map_find", [&m](vernier::state &st) {
        vn_rng r;
        vn_rng_seed(&r, 42);
        std::uint64_t n = static_cast<std::uint64_t>(st.param());
        for (auto _ : st) {
            auto it = m.find(static_cast<std::int64_t>(vn_rng_below(&r, n)));
            if (it == m.end()) {
                st.fail("a key is missing from the map");
                break;
            }
            vernier::keep(it->second);
        }
    })
        .param("keys", {64, 4096})
        .baseline("map_find/keys=64")
        .setup([&m](vernier::state &st) {
            for (std::int64_t k = 0; k < st.param(); k++)
                m[k] = k * k;
        })
        .teardown([&m](vernier::state &) { m.clear(); });

    return s.main(argc, argv);
}
