/* The reporters of what only the vernier tool shows (the public ones, of a
 * run of benchmarks, are in vernier/report.h): the clocks, the machine,
 * the statistics of one sample, and vernier run's results in vernier's
 * layouts and hyperfine's. Results in, bytes out, as there. */
#ifndef VN_REPORT_REPORT_H
#define VN_REPORT_REPORT_H

#include <stddef.h>

#include "clock/probe.h"
#include "machine/sysinfo_api.h"
#include "run/runner.h"
#include "stats/stats_api.h"
#include "vernier/report.h"

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

/* vernier run's results (run/runner.h). The console summary with the
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

#endif
