/* Shared between the clock files; not part of the public API. */
#ifndef VN_CLOCK_INTERNAL_H
#define VN_CLOCK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "clock/clock_api.h"

/* The counter facts, queried once per process. */
const vn_tsc_info *vn__tsc_facts(void);
/* Queries them now (per architecture: clock/x86.c, clock/arm64.c). */
void vn__tsc_query_uncached(vn_tsc_info *out);

/* One clock_gettime in ns; inline so a probe of a POSIX clock measures the
 * call itself, not a dispatch around it. */
static inline uint64_t vn__posix_read(clockid_t c)
{
    struct timespec ts = {0, 0};
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Pure: the counter rate from two bracketed reference points. Each point is
 * the counter read between two reference reads r0 <= r1 (ns). Returns the
 * rate in Hz and the error bound in ppm from the bracket widths. */
int vn__calibration_from_points(uint64_t ra0, uint64_t c0, uint64_t ra1,
                                uint64_t rb0, uint64_t c1, uint64_t rb1,
                                double *hz, double *error_ppm);

/* From now on vn_counter_calibration() answers c, without measuring: a
 * worker process takes the rate the program that started it measured.
 * Called before any other thread runs (calibrate.c). */
void vn__counter_calibration_preset(const vn_calibration *c);

/* The clocksource, the counter's facts and its calibration: the parts of a
 * clocks report that need no probing (clocks_report.c). */
struct vn_clocks_report;
void vn__clocks_report_basics(struct vn_clocks_report *r);

#endif
