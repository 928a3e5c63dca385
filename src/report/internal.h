/* Pieces shared between reporters inside libvernier. */
#ifndef VN_REPORT_INTERNAL_H
#define VN_REPORT_INTERNAL_H

#include "../json.h"
#include "vernier/report.h"

/* The machine snapshot as a JSON object member; every results file embeds it. */
void vn__json_sysinfo(vn__json *j, const char *key, const vn_sysinfo *s);

/* The statistics object of vernier.stats/1 ("$defs/stats" in
 * docs/schema/stats-1.json) as a member; results files embed the same
 * object per benchmark. Values that are NaN are null. */
void vn__json_stats(vn__json *j, const char *key, const vn_stats *s);

#endif
