/* Reporters: results in, bytes out. They open no files and read no globals;
 * the caller decides where the bytes go (see vn_write_file_atomic). */
#ifndef VERNIER_REPORT_H
#define VERNIER_REPORT_H

#include <time.h>

#include "vernier/base.h"
#include "vernier/results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* VN_REPORT_COLOR: ANSI colors. VN_REPORT_EXPLAIN: the console reports of
 * results add, after their one-line findings, what each warning means and
 * what to do about it, with every message in full. */
enum { VN_REPORT_COLOR = 1u << 0, VN_REPORT_EXPLAIN = 1u << 1 };
/* VN_REPORT_WIDTH(cols), or'ed into the flags of vn_report_results_text:
 * its table fits in cols columns (1 to 65535: a terminal's width). While
 * it is wider, it leaves out the columns a reader needs least, in this
 * order: overhead, mean, min, MAD, p99, throughput, cpu, samples, procs,
 * cycles, then the counters' from the last; the name, the median, its
 * interval, the relative column and the warnings stay. A line below the
 * table names what it left out. Without it (0), every column, as a file
 * or a pipe wants them. */
#define VN_REPORT_WIDTH(cols) (((unsigned)(cols) & 0xffffu) << 16)

/* Results of the in-process engine (vernier.results/1 and its views). */
int vn_report_results_text(const vn_results *r, unsigned flags, vn_buf *out);
int vn_report_results_hist(const vn_results *r, unsigned flags, vn_buf *out);
int vn_report_results_json(const vn_results *r, vn_buf *out);
int vn_report_results_csv(const vn_results *r, int raw, vn_buf *out);
int vn_report_results_markdown(const vn_results *r, vn_buf *out);
/* Google Benchmark's JSON layout (--benchmark_format=json, as its 1.7
 * writes it), for its compare.py and the tools that read its files: one
 * entry of run_type "iteration" per process a row ran in, as a
 * repetition, then the mean, median, stddev and cv; a row that failed or
 * was skipped is an entry with error_occurred. docs/compare.md has the
 * mapping. The results do not say which program ran or when: executable
 * and date fill the context's fields of those names (NULL: ""), date as
 * vn_report_gbench_date() writes it. */
int vn_report_results_gbench(const vn_results *r, const char *executable, const char *date,
                             vn_buf *out);
/* How Google Benchmark's flags shape its file: the unit of its times
 * (--benchmark_time_unit: "ns", "us", "ms" or "s"; NULL: ns), only the
 * aggregates (--benchmark_report_aggregates_only), and ncontext KEY=VALUE
 * pairs added to its context (--benchmark_context). Zeroed: as
 * vn_report_results_gbench() writes. */
typedef struct vn_report_gbench_opts {
    const char *time_unit;
    int aggregates_only;
    const char *const *context;
    size_t ncontext;
} vn_report_gbench_opts;
int vn_report_results_gbench_opts(const vn_results *r, const char *executable, const char *date,
                                  const vn_report_gbench_opts *opts, vn_buf *out);
/* t in local time as Google Benchmark dates its files,
 * "2024-05-01T12:00:00+02:00", in buf (n bytes, 32 are enough); returns
 * buf, "" when t cannot be converted. */
char *vn_report_gbench_date(char *buf, size_t n, time_t t);

#ifdef __cplusplus
}
#endif
#endif
