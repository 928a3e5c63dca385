/* vernier kbench: the kernel module's sysfs files read into the engine's
 * results, so every reporter and vernier compare work on kernel results.
 * Pure: the caller reads and writes the files; this parses their text and
 * builds the results. Private to the tool. */
#ifndef VN_KBENCH_H
#define VN_KBENCH_H

#include <stddef.h>
#include <stdint.h>

#include "stats/int.h"
#include "vernier/bench.h"
#include "stats/stats_api.h"

/* The most CPUs of one parallel run the tool reports one by one. */
#define VN__KBENCH_MAX_CPUS 64

/* The text of a target's "result" file: the summary of every call kept in
 * cycles; the calls dropped (their two counter reads on two CPUs, the
 * second below the first, or more than a second apart); how many chunks
 * the calls ran in and the longest stretch with interrupts off, in cycles;
 * and for a run on several CPUs, each CPU's summary, in the order of the
 * CPUs' calls in "samples". */
typedef struct vn__kbench_summary {
    vn__istats all;
    uint64_t migrated, backwards, jumps;
    uint64_t chunks, longest_off;
    size_t ncpus;
    unsigned cpu[VN__KBENCH_MAX_CPUS];
    vn__istats per_cpu[VN__KBENCH_MAX_CPUS];
} vn__kbench_summary;

/* One row: its name, the run's summary, and the calls' cycles (owned),
 * all of them or one CPU's. */
typedef struct vn__kbench_row {
    char name[64];
    vn__kbench_summary sum;
    uint64_t *samples;
    size_t n;
} vn__kbench_row;

/* Parses a "result" file: its first line "min A max B count C p50 D p90 E
 * p95 F p99 G mad H", then optionally "dropped migrated A backwards B
 * jumps C", "chunks A longest_off_cycles B" and "cpu K <a first line's
 * fields>" lines. 0, or VN_EINVAL for anything else. */
int vn__kbench_parse_result(const char *text, vn__kbench_summary *out);

/* Parses the text of a "samples" file: one count per line, spaces before
 * it allowed. On success *out (malloc'd, the caller's) holds *n values.
 * VN_EINVAL for a line that is not a count, VN_ENOMEM. */
int vn__kbench_parse_samples(const char *text, size_t len, uint64_t **out, size_t *n);

/* The results of rows[0..n), in nanoseconds at hz counts a second: one
 * result per row, whose samples are its calls, with the median of the
 * row named "empty" (when there is one) as every other row's overhead,
 * taken off its statistics as the engine takes off its empty loop. The
 * rows' samples are not kept. The caller fills env and config, and frees
 * out with vn_results_free(). VN_EINVAL, VN_ENOMEM; out untouched then. */
int vn__kbench_results(const vn__kbench_row *rows, size_t n, double hz, vn_results *out);

#endif
