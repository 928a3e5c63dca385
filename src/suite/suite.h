/* `vernier suite`: microbenchmarks of the OS and the machine, each family
 * in its own file, every benchmark listed once in registry.h. Each adds its
 * rows to an engine suite, so every figure gets the engine's statistics,
 * warnings and outputs. Private to the tool (the vernier_private library). */
#ifndef VN_SUITE_H
#define VN_SUITE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/results.h"
#include "vernier/bench.h"

/* What the command line asked of the benchmarks, and what they share while
 * the suite runs: a temporary directory, and what to undo at the end. */
typedef struct vn__suite_ctx {
    int quick;                /* --quick: seconds in all, smaller sweeps */
    const int64_t *sizes;     /* --sizes: the sweep of every sized benchmark; NULL: its own */
    size_t nsizes;
    int cpu_a, cpu_b;         /* --cpus A,B: where the two ends run; -1: not placed */
    int nagle;                /* --nagle: TCP with Nagle's algorithm on */
    char tmpdir[256];         /* made by vn__suite_tmpdir() on first use; "" before */
    struct vn__suite_undo {
        void (*fn)(void *arg);
        void *arg;
    } *undo;
    size_t nundo, capundo;
    /* What a family says about its rows together, once they have run. */
    int (*summary[16])(vn_results *r, const struct vn__suite_ctx *ctx);
    size_t nsummary;
} vn__suite_ctx;

/* A family's summary: from the results of its rows (found by name; a row
 * may be missing, skipped or failed), vn_results_add_finding() lines of at
 * most ~100 characters each, with the long form as the explanation. */
typedef int (*vn__suite_summary_fn)(vn_results *r, const vn__suite_ctx *ctx);

/* Has fn run after the suite (once, however often it is asked). 0, or
 * VN_ENOMEM. */
int vn__suite_summarize(vn__suite_ctx *ctx, vn__suite_summary_fn fn);

/* The rows of r whose names start with prefix and carry a parameter (a
 * sweep): their parameters and headline medians (ns), in r's order, with
 * skipped, failed or bounded rows left out; at most max. How many. */
size_t vn__suite_sweep(const vn_results *r, const char *prefix, double *param, double *median,
                       size_t max);

/* Does row b have a headline median (it was neither skipped nor failed,
 * and is no bound)? */
int vn__suite_headline(const vn_result *b);

/* The row of r named name when it has a headline median; NULL otherwise. */
const vn_result *vn__suite_row(const vn_results *r, const char *name);

/* The headline median (ns) of the row named name; NAN when it has none
 * (missing, skipped, failed or only a bound). */
double vn__suite_median(const vn_results *r, const char *name);

/* CLOCK_MONOTONIC in ns, for a body that times itself (manual_time). */
double vn__suite_now_ns(void);

/* Runs fn(arg) when the suite is done (vn__suite_ctx_free), last added
 * first. 0, or VN_ENOMEM, having run fn(arg) at once. */
int vn__suite_on_exit(vn__suite_ctx *ctx, void (*fn)(void *arg), void *arg);

/* A temporary directory for the run, made on first use and removed with
 * everything in it at the end; NULL (errno set) when none can be made. */
const char *vn__suite_tmpdir(vn__suite_ctx *ctx);
/* Why vn__suite_tmpdir() returned NULL (errno as it left it), naming the
 * folder it tried: "TMPDIR '/x' cannot be used: No such file or
 * directory". */
void vn__suite_tmpdir_why(char *buf, size_t n);

void vn__suite_ctx_init(vn__suite_ctx *ctx);
void vn__suite_ctx_free(vn__suite_ctx *ctx);

/* The sweep of a sized benchmark: --sizes when given, else its own
 * default (quick when --quick). */
void vn__suite_sizes(const vn__suite_ctx *ctx, const int64_t *def, size_t ndef,
                     const int64_t *quick, size_t nquick, const int64_t **out, size_t *nout);

/* Adds a row per size (parameter "size") of fn, with o's other options
 * (o may be NULL); the sizes as vn__suite_sizes() picks them. */
int vn__suite_add_sized(vn_suite *s, const vn__suite_ctx *ctx, const char *name, vn_bench_fn fn,
                        const vn_bench_opts *o, const int64_t *def, size_t ndef,
                        const int64_t *quick, size_t nquick);

/* A size as --sizes takes it: "12", "4K", "1M", "1G" (whole multiples of
 * 1024 get their letter). Returns s. */
char *vn__suite_size_name(char *s, size_t n, int64_t bytes);

/* Runs the summaries (the engine's after-run hook, with ctx). */
int vn__suite_after(vn_results *r, void *ctx);

/* Pins the calling thread to CPU cpu (-1: leaves it as it is). 0, or
 * -errno. */
int vn__suite_pin(int cpu);

/* Starts fn(arg) on a thread of its own, pinned to CPU cpu (-1: where the
 * scheduler likes), with every signal blocked: Ctrl-C is the benchmark
 * thread's to see, and a write to a closed pipe is an error to report,
 * not SIGPIPE. 0, or a positive errno as pthread_create gives it. */
int vn__suite_thread(pthread_t *thread, int cpu, void *(*fn)(void *), void *arg);

/* Each family's add functions, as the registry names them. */
#include "suite/families.h"

#endif
