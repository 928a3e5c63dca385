/* The bootstrap interval of a ratio of two medians, for vernier compare:
 * each side resampled on its own, in a stream of random numbers seeded by
 * the benchmark's name. */
#ifndef VN_COMPARE_BOOTSTRAP_H
#define VN_COMPARE_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

/* What the resamples of one comparison share: B ratios, the counts of
 * draws per index, and the stream's seed. */
typedef struct vn__cmp_boot {
    size_t resamples;
    uint64_t seed;
    double *boot;    /* resamples of one benchmark's ratio (resamples of them) */
    size_t *cnt;
    size_t cntcap;
} vn__cmp_boot;

/* The bootstrap interval of median(sn) / median(sb) (sb[0..nb) and
 * sn[0..nn) sorted): each side resampled on its own (the two are
 * independent runs), the ratio of the resamples' medians taken, and the
 * 2.5th and 97.5th percentiles of those ratios into lo and hi. VN_ENOMEM
 * when out of memory. */
int vn__cmp_bootstrap(vn__cmp_boot *w, const double *sb, size_t nb, const double *sn, size_t nn,
                      const char *name, double *lo, double *hi);

#endif
