/* Reporters: results in, bytes out. They open no files and read no globals;
 * the caller decides where the bytes go (see vn_write_file_atomic). */
#ifndef VERNIER_REPORT_H
#define VERNIER_REPORT_H

#include <time.h>

#include "vernier/base.h"
#include "vernier/bench.h"
#include "vernier/probe.h"
#include "vernier/runner.h"
#include "vernier/stats.h"
#include "vernier/sysinfo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* VN_REPORT_COLOR: ANSI colors. VN_REPORT_EXPLAIN: the console reports of
 * results add, after their one-line findings, what each warning means and
 * what to do about it, with every message in full. */
enum { VN_REPORT_COLOR = 1u << 0, VN_REPORT_EXPLAIN = 1u << 1 };

/* vernier.clocks/1 JSON and the console table of `vernier clocks`. */
int vn_report_clocks_json(const vn_clocks_report *r, vn_buf *out);
int vn_report_clocks_text(const vn_clocks_report *r, unsigned flags, vn_buf *out);
/* The delta table of one clock: delta in the clock's unit and in ns -> count. */
int vn_report_distribution_text(vn_clock_id id, const vn_delta_dist *d, unsigned flags, vn_buf *out);
int vn_report_distribution_json(vn_clock_id id, const vn_delta_dist *d, vn_buf *out);

/* vernier.env/1 JSON and the console report of `vernier env`. */
int vn_report_env_json(const vn_sysinfo *s, vn_buf *out);
int vn_report_env_text(const vn_sysinfo *s, unsigned flags, vn_buf *out);

/* The statistics of one sample (vernier/stats.h). unit names the unit of
 * the values, or is NULL; "ns" shows them as durations scaled to us, ms and
 * s. vernier.stats/1 JSON, with the histogram when h is not NULL; the
 * console summary; and the distribution as a text graph of each bin's share
 * and the cumulative share, with a one-line summary (x need not be sorted;
 * it is not modified). */
int vn_report_stats_json(const vn_stats *s, const vn_histogram *h, const char *unit, vn_buf *out);
int vn_report_stats_text(const vn_stats *s, const char *unit, unsigned flags, vn_buf *out);
int vn_report_histogram_text(const double *x, size_t n, const char *unit, unsigned flags,
                             vn_buf *out);

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

/* vernier run's results (vernier/runner.h). The console summary with the
 * comparison; the vernier.results/1 document ("kind": "commands", each
 * sample a run with its usage), its CSV (raw: one row per run), Markdown
 * and histogram views, made by the same writers as the engine's. */
int vn_report_run_text(const vn_run_results *r, const vn_run_compare *cmp, size_t ncmp,
                       unsigned flags, vn_buf *out);
int vn_report_run_json(const vn_run_results *r, vn_buf *out);
int vn_report_run_csv(const vn_run_results *r, int raw, vn_buf *out);
int vn_report_run_markdown(const vn_run_results *r, vn_buf *out);
int vn_report_run_hist(const vn_run_results *r, unsigned flags, vn_buf *out);
/* Google Benchmark's JSON layout of the runs: each run of a command is a
 * repetition of one iteration, its wall time and its user plus system time
 * net of the shell's start-up. */
int vn_report_run_gbench(const vn_run_results *r, const char *executable, const char *date,
                         vn_buf *out);
/* hyperfine's layouts: --export-json; --export-csv (seconds, one row per
 * command, parameter_NAME columns); --export-markdown (a table in unit_s
 * seconds: 1e-3 for milliseconds; 0 chooses as hyperfine does). */
int vn_report_hyperfine_json(const vn_run_results *r, vn_buf *out);
int vn_report_hyperfine_csv(const vn_run_results *r, vn_buf *out);
int vn_report_hyperfine_markdown(const vn_run_results *r, double unit_s, vn_buf *out);

#ifdef __cplusplus
}
#endif
#endif
