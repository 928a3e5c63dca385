/* Change points in a series of results (vernier history check): where the
 * level of a benchmark moved, found by E-Divisive on the means (Matteson
 * and James 2014, with alpha = 2, as Apache Otava and MongoDB's
 * signal-processing-algorithms use it), each split kept when a permutation
 * test says the series' own variation would not make one as large. Pure. */
#ifndef VN_STORE_CHANGES_H
#define VN_STORE_CHANGES_H

#include <stddef.h>
#include <stdint.h>

typedef struct vn__store_change {
    size_t index;        /* the first result after the change */
    double ratio;        /* the mean of the segment after it over the one before */
    double lo, hi;       /* its 95% interval (Welch, on the results' log means) */
    double p;            /* the permutation test's p-value */
} vn__store_change;

typedef struct vn__store_changes {
    vn__store_change *at; /* by index */
    size_t n;
} vn__store_changes;

/* The change points of x[0..n) (each a result's headline, all above 0),
 * each with p <= pmax, found with `perms` permutations a test from a
 * generator seeded with seed (the same series gives the same answer).
 * Segments hold at least min_size results. 0, VN_EINVAL, VN_ENOMEM. */
int vn__store_changes_find(const double *x, size_t n, double pmax, size_t perms, size_t min_size,
                           uint64_t seed, vn__store_changes *out);
void vn__store_changes_free(vn__store_changes *c);

#endif
