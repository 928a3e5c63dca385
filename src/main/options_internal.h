/* What main.c parses vn_main()'s options with (options.c): their ids and
 * the checks of their values, each error a line that says what to give
 * instead. Private to src/main/. */
#ifndef VN_MAIN_OPTIONS_INTERNAL_H
#define VN_MAIN_OPTIONS_INTERNAL_H

#include <stdio.h>

enum {
    O_LIST = 256, O_FILTER, O_JSON, O_CSV, O_RAW, O_MD, O_HIST, O_EXPLAIN, O_PRECISION, O_MAXTIME,
    O_MINSAMPLES, O_MAXSAMPLES, O_WARMUP, O_CPU, O_TIMER, O_THREADS, O_COLD, O_INTERLEAVE, O_NO_INTERLEAVE, O_COUNTERS, O_QUIET,
    O_DMA, O_POLICY, O_BASELINE, O_FORMAT, O_REPORT, O_STORE, O_PROCESSES, O_MINSAMPLETIME, O_HELP
};
#define VN__MAIN_NOPTIONS (O_HELP - O_LIST + 1)

/* The program's name as its messages start: argv[0] without its folder. */
const char *vn__main_prog_name(const char *argv0);
/* --help: what the program does, every option, Google Benchmark's flags. */
void vn__main_help(const char *prog);
/* "PROG: " fmt (with a and b) "; see 'PROG --help'" on stderr; 2. */
int vn__main_usage_error(const char *prog, const char *fmt, const char *a, const char *b);
/* s as a number from lo to hi into out: 0, or 2 after a message naming
 * opt (out is NAN then). */
int vn__main_num(const char *prog, const char *opt, const char *s, double lo, double hi, double *out);
/* s as a whole number of decimal digits only (a count, a CPU), from lo to
 * hi, into out: 0, or 2 after a message naming opt and what it takes. */
int vn__main_whole(const char *prog, const char *opt, const char *s, double lo, double hi,
                   const char *what, double *out);

#endif
