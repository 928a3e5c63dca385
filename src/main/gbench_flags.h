/* Google Benchmark's --benchmark_* flags in a benchmark program's command
 * line (main/gbench_flags.c): what they ask, as vernier's own options and
 * the few settings that have none but shape the Google Benchmark file. */
#ifndef VN_BENCH_GBENCH_FLAGS_H
#define VN_BENCH_GBENCH_FLAGS_H

#include <stddef.h>

#include "report/report.h"

enum { VN__GB_CONSOLE, VN__GB_JSON, VN__GB_CSV };

typedef struct vn__gbench_flags {
    char **argv;              /* the command line with each flag turned into vernier's options */
    int argc;
    size_t cap;
    int any;                  /* a --benchmark_ flag was given */
    const char *out;          /* --benchmark_out in Google Benchmark's JSON; NULL none */
    int out_format;           /* --benchmark_out_format: VN__GB_JSON or VN__GB_CSV */
    int format;               /* --benchmark_format: what standard output gets */
    int repetitions;          /* --benchmark_repetitions, 0 not given */
    double min_time;          /* --benchmark_min_time in seconds, 0 not given */
    int no_color;             /* --benchmark_color=false */
    const char *negative_filter; /* --benchmark_filter=-REGEX: the regex, to leave out */
    vn_report_gbench_opts gb; /* time unit, aggregates only, context: for its file */
    const char *context[32];
    size_t ncontext;
    char *owned[48];          /* values made here */
    size_t nowned;
} vn__gbench_flags;

/* Turns argv's --benchmark_* flags (before a "--") into f. 0; 2 after a
 * one-line message on stderr for a flag with no vernier equivalent or a
 * bad value; VN_ENOMEM. f is freed by vn__gbench_flags_free either way. */
int vn__gbench_flags_take(int argc, char **argv, const char *prog, vn__gbench_flags *f);
/* A negative filter (--benchmark_filter=-REGEX) turned into --filter
 * of the names, of the program's n, that REGEX does not match. 0; 2
 * after a message when it leaves none or is no regex; VN_ENOMEM. */
int vn__gbench_flags_resolve(vn__gbench_flags *f, const char *const *names, size_t n,
                             const char *prog);
void vn__gbench_flags_free(vn__gbench_flags *f);

#endif
