/* The pure arithmetic of the clock probes, shared with the tests: private
 * to the library (not installed). */
#ifndef VN_PROBE_INTERNAL_H
#define VN_PROBE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "clock/probe.h"

/* Bins the differences of n consecutive reads into out (see vn_delta_dist). */
int vn__delta_dist_from_reads(const uint64_t *reads, size_t n, vn_delta_dist *out);
/* Smallest and median (lower median over the forward steps) non-zero step;
 * VN_ENOENT when the clock never moved. */
int vn__delta_dist_resolution(const vn_delta_dist *d, uint64_t *min, uint64_t *median);

#endif
