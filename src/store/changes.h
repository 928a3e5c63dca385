/* Change points in a series of results (vernier history check): where the
 * level of a benchmark moved, found by E-Divisive on the means (Matteson
 * and James 2014, with alpha = 2, as Apache Otava and MongoDB's
 * signal-processing-algorithms use it) of the results' logs, far-off ones
 * held back, each split
 * kept when a permutation test says the series' own variation would not
 * make one as large. Pure. */
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

/* What earlier runs say of the next one. A run cannot see how the
 * machine drifts over minutes and hours; earlier runs of the same
 * benchmark on the same machine have. Of the results x[0..n) (headlines
 * above 0, oldest first), those after the last change point (so that a
 * change of the code is not taken for drift) and at most the last `most`:
 * how far one run's headline falls from the next one's (the median
 * distance between neighbours' logs as a standard deviation of one
 * result, median |d| / (0.6745 x sqrt 2), robust to a step too recent to
 * be a change point), squared, as *var (log scale): everything that moves
 * a headline from run to run, each run's own error included, since a
 * run whose processes agreed by chance (an interval of 0.01%) moves as
 * much as the others. How many results it rests on goes in *m. se is not
 * used (NULL allowed). Returns 0 when at least `least` results are there,
 * else VN_ENOENT (then *var is 0). */
int vn__store_between(const double *x, const double *se, size_t n, size_t least, size_t most,
                      double *var, size_t *m);
