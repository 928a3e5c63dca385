/* Pieces shared between reporters inside libvernier. */
#ifndef VN_REPORT_INTERNAL_H
#define VN_REPORT_INTERNAL_H

#include "../json.h"
#include "vernier/report.h"

/* The machine snapshot as a JSON object member; every results file embeds it. */
void vn__json_sysinfo(vn__json *j, const char *key, const vn_sysinfo *s);

#endif
