/* Helpers the statistics share with the reporters inside libvernier. */
#ifndef VN_STATS_INTERNAL_H
#define VN_STATS_INTERNAL_H

#include <stddef.h>

/* A sorted copy of x[0..n) (ascending; the caller frees it), or NULL when
 * memory runs out. The caller's array is never reordered. */
double *vn__sorted_copy(const double *x, size_t n);

/* Ascending order of doubles, for qsort. */
int vn__cmp_double(const void *a, const void *b);

#endif
