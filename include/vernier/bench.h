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
#include "vernier/clock.h"
#include "vernier/counters.h"
#include "vernier/stats.h"
#include "vernier/sysinfo.h"

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

/* Settings of a run; vn_config_init() fills the defaults. */
typedef struct vn_config {
    /* sizeof (vn_config), set by vn_config_init: a program built against an
     * older header, whose struct ends sooner, keeps the defaults of what it
     * lacks; a size no vn_config_init set makes vn_suite_run() return
     * VN_EABI. Always start from vn_config_init(). */
    size_t size;
    double max_time;           /* seconds per benchmark (default 1; at most 86400) */
    double precision;          /* percent (default 1) */
    size_t min_samples;        /* default 10 */
    size_t max_samples;        /* default 10000; at most 10^7 */
    double warmup;             /* seconds of untimed warmup (default 0.02; at most 3600) */
    double min_sample_time;    /* seconds a sample lasts at least (default 0.001) */
    int cpu;                   /* pin to this CPU; -1 no pinning */
    int threads;               /* default 1; above 1 not with cpu, cold or a CPU-time timer */
    int cold;                  /* evict the caches before each sample */
    const char *timer;         /* NULL: the timer `vernier clocks` selects */
    const char *filter;        /* POSIX extended regex on names; NULL all */
    int progress;              /* show progress on stderr */
    /* Performance counters (vernier/counters.h): NULL or "default" for the
     * default set, "none" for none, or a list of names. Events this machine
     * cannot count are named once in the results and left out; a name that
     * is no event makes vn_suite_run() return VN_ENOENT (VN_ENOTSUP for a
     * vendor's event name in a build without libpfm4), which
     * vn_counters_check() tells beforehand, with a message. */
    const char *counters;
    /* When set, checked between samples: non-zero stops the run, which then
     * reports what it has (vn_main points it at its SIGINT/SIGTERM flag). */
    const volatile int *stop_flag;
    /* Hold the CPUs' wake-up latency under this many microseconds while
     * measuring, through /dev/cpu_dma_latency, so that no sample pays the
     * exit from a deep idle state, as cyclictest does; -1 leaves the idle
     * states alone; VN_DMA_LATENCY_AUTO (the default) is 0 under a
     * hypervisor and -1 on bare metal, where every idle core polling could
     * lower the turbo clock of the one being measured. It takes root; in
     * the results, the value that was held, or -1 when none was. */
    int dma_latency_us;
    /* Non-zero (the default): the benchmarks take turns, one sample each in
     * an order shuffled every round, rather than each running to its end
     * before the next begins; each keeps its own time budget and stop rule.
     * Rows compared with each other then meet the same machine, when its
     * speed or a neighbour on the core changes over seconds. With threads
     * the rows run one after another, and the results record 0. */
    int interleave;
    /* For experiments on the engine itself: overrides of the thresholds
     * of its decision, "NAME=VALUE,..." (docs/engine.md lists the names,
     * such as shared_ratio=inf or shared_evidence=inf, which switch a rule off).
     * NULL (the default): every rule as documented. An unknown name or a
     * bad value makes vn_suite_run() return VN_EINVAL before measuring. */
    const char *policy;
    /* The row every other row is compared with (--baseline NAME), for the
     * benchmarks that name no baseline of their own; NULL: none. It must
     * name a row that runs (after the filter), or vn_suite_run() returns
     * VN_ENOENT before measuring. */
    const char *baseline;
    /* How many processes measure each benchmark: 1 measures in this
     * process only; N > 1 in exactly N fresh processes, one after another;
     * 0 (the default) as many as the variation between them asks for, 2
     * to 20. Each process is the program started again as a worker (a new
     * address-space layout, environment size and stack offset), and the
     * interval of every headline is taken across them. More than one needs
     * the program's own main, which the workers run again: vn_main() or
     * vn_suite_main(); vn_suite_run() measures in this process (0 means 1
     * there, and N > 1 is VN_EINVAL). */
    int processes;
} vn_config;

#define VN_DMA_LATENCY_AUTO (-2)

void vn_config_init(vn_config *c);

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

/* Per sample: the tags of interference seen while it ran. */
enum {
    VN_TAG_PREEMPTED = 1u << 0, /* involuntary context switch during the sample */
    VN_TAG_MIGRATED = 1u << 1,  /* ended on another CPU than it started on */
    /* The core's front end was shared while it ran: a loop of taken
     * branches timed right before or right after it took over 1.1 times
     * the third fastest such probe of the run so far. A
     * second hardware thread on the core (under a hypervisor, perhaps the
     * host's) halves what short loops get, while a chain of adds does not
     * notice. A sample mostly off the CPU is never tagged so. */
    VN_TAG_SHARED_CORE = 1u << 2,
};

typedef struct vn_sample {
    double value;      /* ns per iteration, as measured (overhead not subtracted) */
    uint64_t iters;
    unsigned tags;
    double ref_ns;     /* ns per reference cycle measured next to this sample; NAN unknown */
    int thread;        /* which thread took it (0 without --threads) */
    /* Per iteration, as measured (the empty loop not subtracted), one per
     * counter of the result; NAN where an event did not count. NULL
     * without counters. Points into the result's sample_counts. */
    const double *counts;
    uint32_t counts_scaled;    /* bit i: counts[i] is scaled (multiplexed) */
    /* Reference cycles per iteration of a loop of taken branches, timed
     * right before this sample: about 1 on a core of its own, about 2 on a
     * shared one (VN_TAG_SHARED_CORE); NAN unknown. */
    double branch_cycles;
    /* The thread's CPU time across the sample, per iteration, as measured
     * (CLOCK_THREAD_CPUTIME_ID; the empty loop not subtracted); NAN
     * unknown. Under the wall time when the thread waited or was preempted. */
    double cpu_ns;
    /* The process that took it (0, 1, ...; 0 when measured in one) and its
     * block there: 0 for the first half of the process's samples of the
     * row, 1 for the second. */
    int process, block;
} vn_sample;

#define VN_MAX_WARNINGS 16

/* A warning on one result: a stable id scripts can match, the message in
 * full with its numbers, and the brief the console shows on its one line
 * ("" when the message is short enough to be its own brief). */
typedef struct vn_bench_warning {
    char id[32];
    char message[384];
    char brief[96];
} vn_bench_warning;

typedef enum vn_stop {
    VN_STOP_PRECISION,   /* the median's CI reached the precision asked for */
    VN_STOP_MAX_TIME,    /* the time budget ran out first */
    VN_STOP_MAX_SAMPLES,
    VN_STOP_FAILED,      /* vn_state_fail() was called */
    VN_STOP_INTERRUPTED,
    VN_STOP_SKIPPED,     /* vn_state_skip(): the machine cannot run it; error says why */
    VN_STOP_MAX_PROCESSES /* the most processes (vn_config.processes) ran first */
} vn_stop;

const char *vn_stop_name(vn_stop s);

/* One process's part of a row, when the row ran in several
 * (vn_config.processes): its own estimate, which the headline averages. */
typedef struct vn_process_result {
    double value;              /* its median ns per iteration, net of its own empty loop; for
                                  an upper bound, its fastest sample of the loop with the body */
    double cycles;             /* the same in reference cycles; NAN without references */
    double overhead_ns;        /* its empty loop per iteration */
    size_t samples;            /* samples it took of the row */
    size_t used;               /* of which the headline rests on */
    double elapsed;            /* seconds of the row's own time in it */
    int upper_bound;           /* it could not tell the body from the empty loop */
    /* The median of its samples' taken-branch probes, in reference cycles
     * a branch (NAN without probes), and whether that read the core as
     * shared with another hardware thread: over the run's lowest process
     * by the policy's ratio (1.1). Such a process leaves the headline while
     * processes on a core of their own remain. */
    double probe;
    int shared;
    int left_out;              /* not in the headline: it ran on a shared core while others
                                  had one of their own, or every sample of it was left out */
} vn_process_result;

typedef struct vn_result {
    char name[192];            /* "fn" or "fn/param=value" */
    char param_name[32];       /* "" without a parameter */
    int64_t param;
    const char *unit;          /* "ns" (per iteration) */
    vn_sample *samples;        /* every sample, tagged ones too; owned */
    size_t nsamples;
    size_t ntagged;            /* samples with any tag */
    vn_stats stats;            /* of the headline's samples (no tag in left_out), overhead
                                * subtracted; for an upper bound, of the loop with the body */
    uint64_t iters;            /* iterations per sample */
    double overhead_ns;        /* the empty loop, per iteration */
    double overhead_ci[2];
    int upper_bound;           /* 1: the body is not distinguishable from the empty loop */
    double bound_ns;           /* then: what the body costs less than, the fastest of the
                                * headline's samples of the loop with the body */
    double ref_ns;             /* median ns per reference cycle */
    double ref_spread;         /* (p90 - p10) / median of the reference, a fraction */
    double cycles;             /* median reference cycles per iteration */
    double bytes_per_iter, items_per_iter;
    double bytes_per_sec, items_per_sec;  /* from the median; NAN without */
    int threads;
    double *thread_median;     /* per thread median ns/iter of the loop with the body (not net
                                  of the empty loop), owned (threads > 1) */
    double total_iter_per_sec; /* all threads together: their iterations over the wall time
                                  from the first to start timing to the last to stop */
    vn_stop stop;
    double elapsed;            /* seconds spent on this benchmark */
    char error[256];           /* vn_state_fail() message, or "" */
    vn_bench_warning warnings[VN_MAX_WARNINGS];
    int nwarnings;
    /* Counters per iteration, net of the empty loop's (see vn_counter_result),
     * in the order of vn_results.counters' opened events. */
    vn_counter_result counters[VN_COUNTERS_MAX];
    int ncounters;
    vn_counter_derived derived;
    double *sample_counts;     /* nsamples x ncounters, owned; what samples[i].counts point into */
    double overhead_cycles;    /* the empty loop in reference cycles per iteration; NaN unknown */
    /* (p90 - p10) / median of the empty loop in reference cycles, over the
     * empty-loop samples the overhead comes from, a fraction; NAN unknown
     * (fewer than 5, samples under 1000 iterations, no reference). */
    double overhead_cycles_spread;
    size_t nshared;            /* samples tagged VN_TAG_SHARED_CORE (counted in ntagged too) */
    /* The tags whose samples the headline leaves out: all of them, unless
     * too few samples carry none or those are slower than the shared-core
     * ones; then preemption and migration only, unless too few are free of
     * those too; then none. */
    unsigned left_out;
    /* In-process: the settings this row ran with, the run's or the
     * benchmark's own (vn_bench_opts) where it set them; timer is the clock
     * its samples were read with. */
    double max_time, precision;
    size_t min_samples;
    vn_clock_id timer;
    /* In-process, stopped at the budget or the most samples: 1 when the
     * last stop test went on waiting for moments when the core was its own
     * (or for empty-loop samples from such moments), not for precision. */
    int waited;
    /* In-process: the median share of a sample's wall time its thread spent
     * on the CPU (CLOCK_THREAD_CPUTIME_ID), about 1 for code that computes
     * and near 0 for code that sleeps or waits; NAN unknown. */
    double on_cpu;
    /* In-process: how many samples the headline rests on (those with no tag
     * in left_out). */
    size_t headline_samples;
    /* In-process: the median CPU time per iteration of the headline's
     * samples, net of the empty loop like the median (for an upper bound,
     * of the loop with the body), as Google Benchmark's "CPU" beside its
     * "Time": well under the median when the thread waited, slept or was
     * kept off the CPU; NAN unknown. */
    double cpu_ns;
    /* In-process, compared with a baseline row: its name ("" for none, and
     * then the rest is unset), the ratio of this row's median to the
     * baseline's over the samples both kept (1 for the baseline itself;
     * NAN when either has no median, such as an upper bound), its 95%
     * interval (NAN with too few samples), and how many pairs it rests on.
     * ratio_paired: the k-th samples of the two rows were taken in the same
     * round (rows taking turns) and resampled as pairs; 0: each row's
     * samples on their own (vn_ratio_paired, vn_ratio_unpaired). */
    char baseline[192];
    double ratio;
    double ratio_ci[2];
    size_t ratio_n;
    int ratio_paired;
    /* The processes the row ran in (vn_config.processes), nprocesses of
     * them, owned. stats.median and stats.median_ci are the headline in ns:
     * with one process, its median net of the empty loop, with an interval
     * that carries the empty loop's uncertainty too; with several, the
     * mean of their medians, with Student's t-interval across them. */
    size_t nprocesses;
    vn_process_result *processes;
    /* cycles' own interval (NAN unknown), and whether cycles is the unit
     * that compares across runs: the core's clock moved while the row ran,
     * and its samples, or its processes, agree better in cycles than in ns. */
    double cycles_ci[2];
    int cycles_headline;
    /* How the variance of one process's value splits: between processes,
     * between the halves of a process's samples, and what its samples
     * leave uncertain (shares adding up to 1; share_processes NAN with one
     * process). */
    double share_processes, share_blocks, share_samples;
    /* The processes' values fall far apart beyond their own samples'
     * uncertainty and the precision asked (code layout, or the machine's
     * state), or some gave an upper bound and some a median. */
    int processes_disagree;
    /* When the run's processes fell in two groups by their taken-branch
     * probes (a core of their own, or one shared with another hardware
     * thread): the row's processes on a shared core, left out of the
     * headline because others had a core of their own; and on_shared, every
     * process of the row ran on a shared core, so the headline did too. */
    size_t processes_left_out;
    int on_shared;
    /* Ratio with a baseline over several processes: the mean of the
     * per-process log ratios, with Student's t-interval (ratio_n processes). */
    int ratio_processes;
    /* How much the headline's variance grew because its processes, in the
     * order they ran, came in runs of like values (a state of the machine
     * lasting longer than one process): (1 + rho) / (1 - rho) for their
     * lag-1 autocorrelation rho in [0, 0.8]; 1 when they did not, or with
     * fewer than 4 processes. */
    double serial;
} vn_result;

/* A finding about the run as a whole, from its rows: id for scripts, one
 * line for the console (at most ~100 characters), and the explanation that
 * --explain and JSON carry. */
typedef struct vn_finding {
    char id[48];
    char brief[128];
    char *explanation;         /* owned; "" when none */
} vn_finding;

/* The results of a run. The library fills them and allocates their rows, so
 * both can grow without a new soname:
 *
 * - size is how many bytes of this struct the library filled: its own
 *   sizeof (vn_results), or the caller's when that is smaller
 *   (vn_suite_run() and vn_suite_main() pass the sizeof of the header the
 *   program was built with, and the library writes no further). A field
 *   added after the first layout is there only when size covers it
 *   (offsetof + sizeof <= size); every field of the first layout always is.
 * - result_size is the library's sizeof (vn_result), the stride of the
 *   array bench points to. A program built against an older header, whose
 *   vn_result ends sooner, would find the second row in the middle of the
 *   first if it indexed r->bench[i]; vn_results_at(r, i) steps by
 *   result_size and finds each. Programs should walk the rows with it.
 *
 * The reporters refuse (VN_EABI) results whose size is below the first
 * layout, or with rows smaller than the library's own vn_result, which
 * they would read past: results that no library as new filled. */
typedef struct vn_results {
    size_t size;
    size_t result_size;
    vn_sysinfo env;
    vn_clock_id timer;
    char timer_reason[256];
    double timer_cost_ns;      /* cost of one timer read */
    double timer_resolution_ns;
    double counter_hz;         /* NAN when the timer is not a counter */
    vn_config config;
    vn_result *bench;          /* owned; rows result_size apart: use vn_results_at() */
    size_t nbench;
    int optimized;
    int interrupted;
    char note[512];            /* something the reader must know about the whole run, or "" */
    /* Which counters were asked for, which opened, which are missing and
     * why; requested is "" when counters were off. */
    vn_counter_info counters;
    /* What the program found across its rows (a fit, the steps of a
     * sweep), added by vn_results_add_finding(): owned. */
    vn_finding *findings;
    size_t nfindings;
    /* The worker processes that measured (0: this process alone), and the
     * wall time from the first's start to the last's end, in seconds. */
    size_t processes;
    double processes_wall;
} vn_results;

/* Row i of the results (0 <= i < nbench), found result_size bytes apart;
 * NULL past the end, for NULL results, or a result_size no library set. */
const vn_result *vn_results_at(const vn_results *r, size_t i);

/* Runs every benchmark of the suite that matches cfg->filter. On success
 * *out owns its memory (vn_results_free). VN_EINVAL for settings out of
 * their range or that cannot go together (threads with cpu, cold or a
 * CPU-time timer), or a filter that is no regular expression; *out is
 * then untouched. A macro, so that the library learns the size of the
 * program's vn_results and writes no further. */
int vn__suite_run(vn_suite *s, const vn_config *cfg, vn_results *out, size_t out_size);
#define vn_suite_run(s, cfg, out) vn__suite_run((s), (cfg), (out), sizeof(vn_results))

/* Called by vn_suite_run() once the rows have run (interrupted or not) and
 * before anything is reported, with the results and ctx: the place for
 * what only all the rows together tell, said with vn_results_add_finding().
 * A non-zero return is the run's error. */
typedef int (*vn_suite_after_fn)(vn_results *r, void *ctx);
void vn_suite_set_after(vn_suite *s, vn_suite_after_fn fn, void *ctx);

/* Adds a finding to r: brief is one line (cut at 127 bytes), explanation
 * (may be NULL) its long form. 0, VN_EINVAL, or VN_ENOMEM. */
int vn_results_add_finding(vn_results *r, const char *id, const char *brief, const char *explanation);
void vn_results_free(vn_results *r);

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
 * program's own use after the reports (vn_results_free them); it is zeroed,
 * its sizes set, when nothing ran (--help, --list, a usage error). The
 * suite stays the caller's. A macro, as vn_suite_run is. */
int vn__suite_main(vn_suite *s, int argc, char **argv, vn_results *keep, size_t keep_size);
#define vn_suite_main(s, argc, argv, keep) \
    vn__suite_main((s), (argc), (argv), (keep), sizeof(vn_results))

#ifdef __cplusplus
}
#endif
#endif
