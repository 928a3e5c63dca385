/* vernier.hpp: the engine from C++, with lambdas and any other callable.
 *
 *     #include <vernier.hpp>
 *
 *     int main(int argc, char **argv) {
 *         std::vector<int> v(1024, 3);
 *         vernier::suite s;
 *         s.add("sum", [&](vernier::state &st) {
 *             for (auto _ : st)                    // or: while (st.next())
 *                 vernier::keep(std::accumulate(v.begin(), v.end(), 0L));
 *         });
 *         s.add("sum_n", [](vernier::state &st) { ... st.param() ... })
 *             .range("ints", 64, 4096, 8);
 *         return s.main(argc, argv);               // the options of vn_main()
 *     }
 *
 * Header-only, on top of the C API (vernier.h), from C++11 on. A benchmark
 * is kept as an object of its own type behind the C API's user pointer, and
 * a plain function passes each call from the engine on to it, so a
 * callable may capture anything, by value or by reference, and may be
 * move-only. That call happens once per sample, outside the loop, so it
 * costs nothing per iteration. An exception a benchmark, its setup or its
 * teardown throws never reaches the engine's C frames: it fails the row with
 * its message (vn_state_fail), and the others still run. */
#ifndef VERNIER_HPP
#define VERNIER_HPP

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "vernier.h"

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define VN__CXX_EXCEPTIONS 1
#else
#define VN__CXX_EXCEPTIONS 0
#endif

namespace vernier {

/* What a benchmark sees: the iterations of one sample, its parameter, and
 * the calls that set its throughput or fail it. Not copyable: the engine's
 * state is one per running sample, so a callable takes it by reference. */
class state {
public:
    explicit state(vn_state *st) : st_(st) {}
    state(const state &) = delete;
    state &operator=(const state &) = delete;

    /* The loop condition, as vn_next(): a decrement and a predicted branch. */
    bool next() { return vn_next(st_) != 0; }

    /* for (auto _ : st) { ... }: the same loop as while (st.next()). The
     * comparison with the end is where vn_next() runs, once per iteration.
     * The loop variable is of a type marked unused, so that -Wunused (GCC,
     * Clang) says nothing about a variable the loop never reads. */
    struct __attribute__((unused)) value {};
    class iterator {
    public:
        explicit iterator(vn_state *st) : st_(st) {}
        bool operator!=(const iterator &) const { return vn_next(st_) != 0; }
        iterator &operator++() { return *this; }
        value operator*() const { return value(); }

    private:
        vn_state *st_;
    };
    iterator begin() { return iterator(st_); }
    iterator end() { return iterator(st_); }

    /* The parameter of this row (see benchmark::param, ::range), 0 without. */
    std::int64_t param() const { return vn_state_param(st_); }
    std::uint64_t iterations() const { return vn_state_iterations(st_); }
    /* Throughput of one iteration, when it depends on the parameter; call
     * before the loop. */
    void set_bytes(double bytes_per_iter) { vn_state_set_bytes(st_, bytes_per_iter); }
    void set_items(double items_per_iter) { vn_state_set_items(st_, items_per_iter); }
    /* Fails the row with a message; the loop then ends at once. */
    void fail(const std::string &message) { vn_state_fail(st_, message.c_str()); }
    /* Skips the row: this machine cannot run it, for the reason given. */
    void skip(const std::string &reason) { vn_state_skip(st_, reason.c_str()); }
    /* With benchmark::manual_time(): this sample's time in ns. */
    void set_time(double ns) { vn_state_set_time(st_, ns); }
    /* The C state, for the C API's calls. */
    vn_state *c_state() const { return st_; }

private:
    vn_state *st_;
};

/* keep(x): x must be computed, as if something read it. A scalar or a
 * pointer stays in its register (vn_keep()); any other object is kept in
 * memory, its bytes as if read, but not what it points to: for that, call
 * clobber() too. */
template <class T>
inline typename std::enable_if<std::is_arithmetic<T>::value || std::is_pointer<T>::value ||
                               std::is_enum<T>::value>::type
keep(const T &v)
{
    vn_keep(v);
}

template <class T>
inline typename std::enable_if<!(std::is_arithmetic<T>::value || std::is_pointer<T>::value ||
                                 std::is_enum<T>::value)>::type
keep(const T &v)
{
    __asm__ __volatile__("" : : "m"(v));
}

/* Every value in memory may have been read and written here (vn_clobber()). */
inline void clobber() { vn_clobber(); }

namespace detail {

/* A callable of any type, called through one virtual function. */
struct callable {
    virtual ~callable() {}
    virtual void call(state &st) = 0;
};

template <class F> struct callable_of : callable {
    explicit callable_of(F &&fn) : f(std::move(fn)) {}
    explicit callable_of(const F &fn) : f(fn) {}
    void call(state &st) override { f(st); }
    F f;
};

template <class F> std::unique_ptr<callable> make_callable(F &&fn)
{
    typedef typename std::decay<F>::type G;
    return std::unique_ptr<callable>(new callable_of<G>(std::forward<F>(fn)));
}

/* Calls c with the engine's state; an exception fails the row instead of
 * unwinding through the engine's C frames, which were not built for it. */
inline void call_guarded(callable *c, vn_state *st)
{
    state s(st);
#if VN__CXX_EXCEPTIONS
    try {
        c->call(s);
    } catch (const std::exception &e) {
        vn_state_fail(st, e.what());
    } catch (...) {
        vn_state_fail(st, "an exception that is not a std::exception");
    }
#else
    c->call(s);
#endif
}

inline const char *prog_name(int argc, char **argv)
{
    const char *p = argc > 0 && argv[0] ? std::strrchr(argv[0], '/') : nullptr;
    return p ? p + 1 : argc > 0 && argv[0] ? argv[0] : "benchmark";
}

} // namespace detail

class suite;

/* One benchmark and its options, set by chained calls:
 *
 *     s.add("find", body).param("keys", {100, 10000}).setup(fill).max_time(0.5);
 *
 * Zero, or an option not given, means the run's setting (the command line). */
class benchmark {
public:
    benchmark(const benchmark &) = delete;
    benchmark &operator=(const benchmark &) = delete;

    /* One row per value, named "name/param=value" (param default "n"). */
    benchmark &param(const std::string &name, std::vector<std::int64_t> values)
    {
        param_name_ = name;
        values_ = std::move(values);
        lo_ = hi_ = mult_ = 0;
        list_ = true;
        return *this;
    }
    /* One row per value from lo to hi, multiplied by mult each step; hi is
     * always one of them. */
    benchmark &range(const std::string &name, std::int64_t lo, std::int64_t hi, std::int64_t mult = 2)
    {
        param_name_ = name;
        values_.clear();
        list_ = false;
        lo_ = lo;
        hi_ = hi;
        mult_ = mult;
        return *this;
    }
    benchmark &bytes_per_iter(double bytes) { opts_.bytes_per_iter = bytes; return *this; }
    benchmark &items_per_iter(double items) { opts_.items_per_iter = items; return *this; }
    /* Seconds of this benchmark's budget. */
    benchmark &max_time(double seconds) { opts_.max_time = seconds; return *this; }
    /* Percent: the +- of the median's 95% CI to stop at. */
    benchmark &precision(double percent) { opts_.precision = percent; return *this; }
    benchmark &min_samples(std::size_t n) { opts_.min_samples = n; return *this; }
    /* Iterations of every sample, fixed rather than calibrated (1: each
     * call seen alone). */
    benchmark &iterations(std::uint64_t n) { opts_.iterations = n; return *this; }
    /* The body times itself and reports with state::set_time(). */
    benchmark &manual_time() { opts_.manual_time = 1; return *this; }
    /* A clock name, as `vernier clocks` lists them. */
    benchmark &timer(const std::string &name)
    {
        timer_ = name;
        has_timer_ = true;
        return *this;
    }
    /* The row this benchmark's rows are compared with ("name", or
     * "name/n=64" for a row of a sweep): a ratio and a line each. It takes
     * the place of the run's --baseline for these rows. */
    benchmark &baseline(const std::string &row)
    {
        baseline_ = row;
        has_baseline_ = true;
        return *this;
    }
    /* Run untimed before and after every sample, on the sample's thread,
     * with its state (its parameter): a teardown runs after a setup that
     * failed too. With --threads every thread runs them, so what they share
     * with the benchmark must be one per thread or safe to share. */
    template <class F> benchmark &setup(F &&fn)
    {
        setup_ = detail::make_callable(std::forward<F>(fn));
        return *this;
    }
    template <class F> benchmark &teardown(F &&fn)
    {
        teardown_ = detail::make_callable(std::forward<F>(fn));
        return *this;
    }

    const std::string &name() const { return name_; }

private:
    friend class suite;

    benchmark(std::string name, std::unique_ptr<detail::callable> body)
        : name_(std::move(name)), body_(std::move(body)), opts_(), lo_(0), hi_(0), mult_(0),
          list_(false), has_timer_(false), has_baseline_(false)
    {
    }

    static benchmark *of(vn_state *st) { return static_cast<benchmark *>(vn_state_user(st)); }
    static void run_body(vn_state *st) { detail::call_guarded(of(st)->body_.get(), st); }
    static void run_setup(vn_state *st) { detail::call_guarded(of(st)->setup_.get(), st); }
    static void run_teardown(vn_state *st) { detail::call_guarded(of(st)->teardown_.get(), st); }

    /* The C options; they point into this object, which outlives the run. */
    vn_bench_opts c_opts()
    {
        vn_bench_opts o = opts_;
        o.size = sizeof o;
        o.user = this;
        o.setup = setup_ ? run_setup : nullptr;
        o.teardown = teardown_ ? run_teardown : nullptr;
        /* An empty name or list is handed on, for the engine to refuse as
         * it refuses them from C: dropped, the benchmark would run as one
         * row under the wrong name. A list with no values is a pointer
         * without a count, which it refuses. */
        bool has_param = list_ || lo_ || hi_ || mult_;
        o.param_name = has_param ? param_name_.c_str() : nullptr;
        o.param_values = !list_ ? nullptr : values_.empty() ? &lo_ : values_.data();
        o.param_count = values_.size();
        o.range_lo = lo_;
        o.range_hi = hi_;
        o.range_mult = mult_;
        o.timer = has_timer_ ? timer_.c_str() : nullptr;
        o.baseline = has_baseline_ ? baseline_.c_str() : nullptr;
        return o;
    }

    std::string name_;
    std::unique_ptr<detail::callable> body_, setup_, teardown_;
    vn_bench_opts opts_;
    std::string param_name_, timer_, baseline_;
    std::vector<std::int64_t> values_;
    std::int64_t lo_, hi_, mult_;
    bool list_, has_timer_, has_baseline_;
};

/* Benchmarks added at run time, run with the options of vn_main(). The
 * suite owns them; they stay where they are, so a reference that add()
 * returned stays good while the suite lives. */
class suite {
public:
    suite() {}
    suite(const suite &) = delete;
    suite &operator=(const suite &) = delete;

    /* fn: any callable taking a vernier::state &. */
    template <class F> benchmark &add(std::string name, F &&fn)
    {
        benchmarks_.push_back(std::unique_ptr<benchmark>(
            new benchmark(std::move(name), detail::make_callable(std::forward<F>(fn)))));
        return *benchmarks_.back();
    }

    /* Also runs the benchmarks registered with VN_BENCH (C or C++), first. */
    suite &with_registered(bool on = true)
    {
        registered_ = on;
        return *this;
    }

    /* The whole program, as vn_suite_main(): parses the command line, runs,
     * prints and writes the reports. Returns the exit code: 0, 1 when a
     * benchmark failed (an exception included) or a file could not be
     * written, 2 for a usage error (a benchmark whose name or options the
     * engine refuses is one). keep, when not null, receives the results
     * (vn_results_free them), or null when nothing ran. */
    int main(int argc, char **argv, vn_results **keep = nullptr)
    {
        if (keep)
            *keep = nullptr;
        const char *prog = detail::prog_name(argc, argv);
        vn_suite *s = vn_suite_create();
        if (!s) {
            std::fprintf(stderr, "%s: out of memory\n", prog);
            return 1;
        }
        int rc = registered_ ? vn_suite_add_registered(s) : 0;
        const char *bad = "a VN_BENCH benchmark";
        for (std::size_t i = 0; rc == 0 && i < benchmarks_.size(); i++) {
            vn_bench_opts o = benchmarks_[i]->c_opts();
            rc = vn_suite_add(s, benchmarks_[i]->name_.c_str(), benchmark::run_body, &o);
            if (rc)
                bad = benchmarks_[i]->name_.c_str();
        }
        if (rc == VN_ENOMEM) {
            std::fprintf(stderr, "%s: out of memory\n", prog);
            rc = 1;
        } else if (rc) {
            std::fprintf(stderr, "%s: benchmark '%s' cannot be added: %s; give each its own name "
                         "and valid options\n", prog, bad, vn_strerror(rc));
            rc = 2;
        } else {
            rc = vn_suite_main(s, argc, argv, keep);
        }
        vn_suite_destroy(s);
        return rc;
    }

    std::size_t size() const { return benchmarks_.size(); }

private:
    std::vector<std::unique_ptr<benchmark>> benchmarks_;
    bool registered_ = false;
};

namespace detail {
/* Made on first use, so a registration from any file's static
 * initialization finds it, whatever order those run in. */
inline suite &default_suite()
{
    static suite s;
    return s;
}
} // namespace detail

/* Adds to the program's own suite, which vernier::main() runs; at namespace
 * scope, before main() runs:
 *
 *     static auto &sum = vernier::bench("sum", [](vernier::state &st) { ... });
 */
template <class F> benchmark &bench(std::string name, F &&fn)
{
    return detail::default_suite().add(std::move(name), std::forward<F>(fn));
}

/* Runs the benchmarks vernier::bench() added, after those registered with
 * VN_BENCH; as suite::main(). */
inline int main(int argc, char **argv, vn_results **keep = nullptr)
{
    return detail::default_suite().with_registered().main(argc, argv, keep);
}

} // namespace vernier

#endif
