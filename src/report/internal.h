/* Pieces shared between reporters inside libvernier. */
#ifndef VN_REPORT_INTERNAL_H
#define VN_REPORT_INTERNAL_H

#include "base/json.h"
#include "report/report.h"

/* printf into b unless *err is set; the first failure is kept in *err, so a
 * reporter checks once at the end instead of after every line. */
void vn__textf(vn_buf *b, int *err, const char *fmt, ...) VN_PRINTF(3, 4);

/* The machine snapshot as a JSON object member; every results file embeds it. */
void vn__json_sysinfo(vn__json *j, const char *key, const vn_sysinfo *s);

/* The statistics object of vernier.stats/1 ("$defs/stats" in
 * docs/schema/stats-1.json) as a member; results files embed the same
 * object per benchmark. Values that are NaN are null. */
void vn__json_stats(vn__json *j, const char *key, const vn_stats *s);

/* The step to show v with, among values shown with this step (a tenth of
 * their spread): for a severe outlier (beyond 3 IQR) a tenth of its
 * distance from the median, since the digits that tell the usual values
 * apart mean nothing at 1000 times their size, yet an outlier a few parts
 * in a million away must not print on the wrong side of the median. */
double vn__shown_step(const vn_stats *st, double v, double step);

#endif
