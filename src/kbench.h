/* vernier kbench: the kernel module's sysfs files read into the engine's
 * results, so every reporter and vernier compare work on kernel results.
 * Pure: the caller reads and writes the files; this parses their text and
 * builds the results. Private to the tool. */
#ifndef VN_KBENCH_H
#define VN_KBENCH_H

#include <stddef.h>
#include <stdint.h>

#include "stats_int.h"
#include "vernier/bench.h"
#include "vernier/stats.h"

/* One target's run: its name, the module's summary in cycles ("run") and
 * each call's cycles ("samples"), owned. */
typedef struct vn__kbench_row {
    char name[64];
    vn__istats cycles;
    uint64_t *samples;
    size_t n;
} vn__kbench_row;

/* Parses "min A max B count C p50 D p90 E p95 F p99 G mad H\n", the text of
 * a target's "run" file. 0, or VN_EINVAL for anything else. */
int vn__kbench_parse_run(const char *text, vn__istats *out);

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
