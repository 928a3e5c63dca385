/* The in-process engine: time a piece of C code and report a result that can
 * be trusted, with how sure it is and why.
 *
 *     static void sum(vn_state *st) {
 *         int *a = vn_state_data(st);              // prepared untimed by a setup hook
 *         while (vn_next(st))                      // a decrement and a branch per iteration
 *             vn_keep(sum_of_two_arrays(a, N));    // keeps the result alive
 *     }
 *     VN_BENCH(sum);
 *     int main(int argc, char **argv) { return vn_main(argc, argv); }
 *
 * The engine calls the function once per sample, with setup and teardown
 * hooks untimed around it. It reads the timer just before the call;
 * vn_next() counts the sample's iterations down inline, and reads the timer
 * again, out of line, when they run out. */
#ifndef VERNIER_BENCH_H
#define VERNIER_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "vernier/base.h"
#include "vernier/config.h"
#include "vernier/results.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define VN_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define VN_LIKELY(x) (x)
#endif

/* ---- The state a benchmark function sees ----------------------------------- */

/* Only `remaining` is public, because vn_next() reads it inline; everything
 * else is private to the engine. */
typedef struct vn_state {
    uint64_t remaining;        /* iterations left in this sample */
    struct vn__run *run;       /* private */
} vn_state;

/* Out of line: called when the iterations run out; reads the timer. */
void vn__state_end(vn_state *st);

/* The loop condition: a decrement and a predicted branch. The call at the
 * end is on the loop's exit, never inside it, so the compiler can keep the
 * count in a register for the whole loop; a call that could return into
 * the loop would force it through memory on every iteration, which costs
 * several cycles on cores without memory renaming. */
static inline int vn_next(vn_state *st)
{
    if (VN_LIKELY(st->remaining != 0)) {
        st->remaining--;
        return 1;
    }
    vn__state_end(st);
    return 0;
}

/* Per-sample data a setup hook prepared (vn_state_set_data), or NULL. With
 * a setup hook, the data is NULL again before each setup, so a teardown
 * that frees it never sees what an earlier sample's teardown freed (when a
 * setup fails with vn_state_fail before it sets any, say). */
void *vn_state_data(const vn_state *st);
void  vn_state_set_data(vn_state *st, void *data);
/* The user pointer given when the benchmark was added. */
void *vn_state_user(const vn_state *st);
/* The parameter of this row (see vn_bench_opts.param_*), 0 without one. */
int64_t vn_state_param(const vn_state *st);
/* Iterations of the current sample (for code that needs the count). */
uint64_t vn_state_iterations(const vn_state *st);
/* Throughput of one iteration, when it depends on the parameter; call it
 * before the loop. Overrides the bytes/items given in the options. A
 * negative, infinite or NaN value fails the row (vn_state_fail). */
void vn_state_set_bytes(vn_state *st, double bytes_per_iter);
void vn_state_set_items(vn_state *st, double items_per_iter);
/* Marks the benchmark as failed with a message; the loop then ends at once. */
void vn_state_fail(vn_state *st, const char *message);
/* Skips this row: the machine cannot run it (no loopback, no huge pages,
 * not root). The row is reported as skipped with the reason, and does not
 * count as a failure. Call it before or instead of the vn_next() loop. */
void vn_state_skip(vn_state *st, const char *reason);
/* With vn_bench_opts.manual_time: the time of this sample's iterations, in
 * ns, as the function measured it; calls within a sample add up. */
void vn_state_set_time(vn_state *st, double ns);

/* ---- Keeping the compiler honest ------------------------------------------- */

/* vn_keep(x): the value of x must be computed, as if something read it, but
 * nothing is stored: the value stays in a register (like Google Benchmark's
 * DoNotOptimize, without the memory round trip). An input of an empty asm,
 * not an output: an output ("+r") would make the compiler copy x to a second
 * register every iteration whenever x stays live (x += x), an instruction
 * the benchmark never asked for. For scalars and pointers; for an aggregate
 * keep its address and call vn_clobber(). Floating-point values stay in
 * their own registers ("r" would move a
 * double from an SSE register to a general one every iteration); a long
 * double, which lives on the x87 stack and fits no register an asm input
 * can name, is stored once to memory. */
#if defined(__x86_64__) || defined(__i386__)
#define VN__FREG "x"
#elif defined(__aarch64__)
#define VN__FREG "w"
#else
#define VN__FREG "g"
#endif
#if defined(__cplusplus)
extern "C++" {
template <class T> static inline void vn_keep(T v) { __asm__ __volatile__("" : : "r"(v)); }
static inline void vn_keep(float v) { __asm__ __volatile__("" : : VN__FREG(v)); }
static inline void vn_keep(double v) { __asm__ __volatile__("" : : VN__FREG(v)); }
static inline void vn_keep(long double v) { __asm__ __volatile__("" : : "m"(v)); }
}
#else
/* "+ 0" drops const, so a const value can be kept too. The type tests are
 * constants, so only the asm of the value's kind is compiled, at -O0 too. */
#define vn_keep(x)                                                               \
    do {                                                                         \
        __typeof__((x) + 0) vn__kept = (x);                                      \
        if (__builtin_types_compatible_p(__typeof__(vn__kept), long double))     \
            __asm__ __volatile__("" : : "m"(vn__kept));                          \
        else if (__builtin_types_compatible_p(__typeof__(vn__kept), double) ||   \
                 __builtin_types_compatible_p(__typeof__(vn__kept), float))      \
            __asm__ __volatile__("" : : VN__FREG(vn__kept));                     \
        else                                                                     \
            __asm__ __volatile__("" : : "r"(vn__kept));                          \
    } while (0)
#endif

/* vn_clobber(): every value in memory may have been read and written here,
 * so stores before it happen and loads after it are repeated. */
static inline void vn_clobber(void) { __asm__ __volatile__("" ::: "memory"); }

/* ---- A fast seeded generator for irregular inputs -------------------------- */

/* xoshiro256** (Blackman and Vigna): fast, good enough for choosing inputs,
 * and the same sequence for the same seed on every machine. */
typedef struct vn_rng {
    uint64_t s[4];
} vn_rng;

void vn_rng_seed(vn_rng *r, uint64_t seed);

static inline uint64_t vn_rng_next(vn_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* Uniform in [0, n) without modulo bias (Lemire's multiply-shift method). */
uint64_t vn_rng_below(vn_rng *r, uint64_t n);
/* Uniform in [0, 1). */
/* The header's casts and null pointers in C++'s own words, so a C++ program
 * built with -Wold-style-cast or -Wzero-as-null-pointer-constant stays quiet. */
#if defined(__cplusplus)
#define VN__TO_DOUBLE(x) static_cast<double>(x)
#define VN__NULL nullptr
#else
#define VN__TO_DOUBLE(x) ((double)(x))
#define VN__NULL NULL
#endif
static inline double vn_rng_double(vn_rng *r) { return VN__TO_DOUBLE(vn_rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

/* ---- Describing benchmarks ------------------------------------------------- */

typedef void (*vn_bench_fn)(vn_state *st);

/* Options of one benchmark; zero means "the default" everywhere. The
 * struct grows: size is sizeof (vn_bench_opts) as the program was built,
 * which VN_BENCH_OPTS, VN_BENCH_WITH and vn_bench_opts_init() set; 0 (a
 * struct zeroed by hand) has the fields through `timer` only, and the
 * later ones keep their defaults. */
typedef struct vn_bench_opts {
    size_t size;
    void (*setup)(vn_state *st);     /* untimed, before each sample */
    void (*teardown)(vn_state *st);  /* untimed, after each sample */
    void *user;                /* vn_state_user() */
    double bytes_per_iter;     /* throughput in bytes/s when set */
    double items_per_iter;     /* throughput in items/s when set */
    /* A parameter: each value gives its own row "name/param=value". Either a
     * list, or a range lo..hi multiplied by mult (default 2) each step. */
    const char *param_name;    /* default "n" */
    const int64_t *param_values;
    size_t param_count;
    int64_t range_lo, range_hi, range_mult;
    /* Per-benchmark settings; 0 takes the run's (command line) setting. */
    double max_time;           /* seconds */
    double precision;          /* percent, the +- of the median's 95% CI to stop at */
    size_t min_samples;
    const char *timer;         /* a clock name, e.g. "monotonic" */
    /* Fields from here on are read only when size covers them. */
    /* Iterations of every sample, fixed (0: calibrated by doubling). A body
     * whose every call must be seen alone, such as one timer wake-up, or a
     * loop timed whole at a count of its own, sets 1. The empty loop runs
     * the same count. */
    uint64_t iterations;
    /* Non-zero: the function times each sample itself and says how long it
     * took with vn_state_set_time(), as with Google Benchmark's
     * UseManualTime; no empty loop is subtracted from such times. */
    int manual_time;
    /* The row this benchmark's rows are compared with (a row name, exact,
     * such as "two_loops" or "copy/n=64"): each gets the ratio of its
     * median to that row's, with an interval, and a line below the table.
     * NULL: the run's vn_config.baseline (--baseline). A name that is no
     * row of the suite makes vn_suite_run() return VN_ENOENT. */
    const char *baseline;
} vn_bench_opts;

/* Zeroes o and sets its size: every option at its default. */
void vn_bench_opts_init(vn_bench_opts *o);

/* Registration before main() runs, by a constructor. */
typedef struct vn_bench_def {
    const char *name;
    vn_bench_fn fn;
    const vn_bench_opts *opts;
    struct vn_bench_def *next;
} vn_bench_def;

void vn__register(vn_bench_def *def);

#if defined(__GNUC__)
#define VN__CONSTRUCTOR __attribute__((constructor))
#else
#error "VN_BENCH needs GCC or Clang (constructor functions); use vn_suite_add instead"
#endif

/* Each ends with a declaration, so the ';' written after VN_BENCH(fn) ends
 * it and -Wpedantic sees no stray semicolon. VN_BENCH_OPTS takes at least
 * one option (ISO C wants an argument for its "..."); VN_BENCH is the form
 * without any. */
#define VN_BENCH_OPTS(fn, ...)                                                \
    static const vn_bench_opts vn__opts_##fn = {.size = sizeof(vn_bench_opts), __VA_ARGS__}; \
    static vn_bench_def vn__def_##fn = {#fn, fn, &vn__opts_##fn, VN__NULL};          \
    VN__CONSTRUCTOR static void vn__register_##fn(void) { vn__register(&vn__def_##fn); } \
    extern int vn__bench_semicolon

#define VN_BENCH(fn)                                      \
    static vn_bench_def vn__def_##fn = {#fn, fn, VN__NULL, VN__NULL}; \
    VN__CONSTRUCTOR static void vn__register_##fn(void) { vn__register(&vn__def_##fn); } \
    extern int vn__bench_semicolon

/* The options set by statements, in a body that follows the macro; o points
 * to them, zeroed:
 *
 *     VN_BENCH_WITH(copy, o) {
 *         o->range_lo = 8;
 *         o->range_hi = 8 << 10;
 *     }
 *
 * VN_BENCH_OPTS needs designated initializers, which C++ has only from
 * C++20, in declaration order, and which -Wextra then faults for every
 * field left out; this form is the same in C and in every C++ standard. The
 * body runs before main(), just before the benchmark is registered. */
#define VN_BENCH_WITH(fn, o)                                                  \
    static void vn__with_##fn(vn_bench_opts *o);                               \
    static vn_bench_opts vn__opts_##fn;                                        \
    static vn_bench_def vn__def_##fn = {#fn, fn, &vn__opts_##fn, VN__NULL};          \
    VN__CONSTRUCTOR static void vn__register_##fn(void)                        \
    {                                                                          \
        vn__opts_##fn.size = sizeof(vn_bench_opts);                            \
        vn__with_##fn(&vn__opts_##fn);                                         \
        vn__register(&vn__def_##fn);                                           \
    }                                                                          \
    static void vn__with_##fn(vn_bench_opts *o)

/* ---- Running them ------------------------------------------------------------ */


typedef struct vn_suite vn_suite;

/* VN_OPTIMIZED is whether the code that includes this header is optimized;
 * a benchmark compiled without optimization measures the wrong thing, so
 * the engine warns about it. */
#if defined(__OPTIMIZE__)
#define VN__OPTIMIZED 1
#else
#define VN__OPTIMIZED 0
#endif

vn_suite *vn__suite_create(int optimized);
#define vn_suite_create() vn__suite_create(VN__OPTIMIZED)
void vn_suite_destroy(vn_suite *s);
/* Adds a benchmark; opts may be NULL. VN_EINVAL for a NULL or empty name, a
 * NULL function or inconsistent options (a negative, infinite or NaN time,
 * precision, bytes or items per iteration; an empty parameter name);
 * VN_ERANGE for a name of 96 bytes or more or a parameter name of 32 or
 * more; VN_EEXIST when one of its rows would have the name of another row
 * (a duplicate name, "c" with a parameter size = 1 next to "c/size=1", a
 * list holding a value twice). */
int vn_suite_add(vn_suite *s, const char *name, vn_bench_fn fn, const vn_bench_opts *opts);
/* Adds every benchmark registered with VN_BENCH. */
int vn_suite_add_registered(vn_suite *s);

/* Runs every benchmark of the suite that matches cfg->filter; the results
 * into *out, which the caller frees with vn_results_free(). VN_EINVAL for
 * settings out of their range or that cannot go together (threads with
 * cpu, cold or a CPU-time timer), or a filter that is no regular
 * expression; VN_ENOMEM; *out is then NULL. */
int vn_suite_run(vn_suite *s, const vn_config *cfg, vn_results **out);

/* Called by vn_suite_run() once the rows have run (interrupted or not) and
 * before anything is reported, with the results and ctx: the place for
 * what only all the rows together tell, said with vn_results_add_finding().
 * A non-zero return is the run's error. */
typedef int (*vn_suite_after_fn)(vn_results *r, void *ctx);
void vn_suite_set_after(vn_suite *s, vn_suite_after_fn fn, void *ctx);

/* The whole program: parses the command line (the options of `vernier
 * --help`'s benchmark programs: --list, --filter, --json, ...), runs the
 * registered benchmarks, prints and writes the reports. Returns the exit
 * code: 0, 1 when a benchmark failed or a file could not be written, 2 for a
 * usage error. */
int vn__main(int argc, char **argv, int optimized);
#define vn_main(argc, argv) vn__main((argc), (argv), VN__OPTIMIZED)

/* The same program around a suite built at run time (vn_suite_create,
 * vn_suite_add): every option of vn_main(), the same reports and exit
 * codes. When keep is not NULL it receives the results of the run, for the
 * program's own use after the reports (vn_results_free them), or NULL when
 * nothing ran (--help, --list, a usage error). The suite stays the
 * caller's. */
int vn_suite_main(vn_suite *s, int argc, char **argv, vn_results **keep);

#ifdef __cplusplus
}
#endif
#endif
