/* Helpers the statistics share with the reporters inside libvernier. */
#ifndef VN_STATS_INTERNAL_H
#define VN_STATS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "stats/stats_api.h"

/* The normal distribution's 97.5% quantile: the half-width of a 95%
 * interval in standard errors. */
#define VN__Z975 1.95996398454005423552

/* A sorted copy of x[0..n) (ascending; the caller frees it), or NULL when
 * memory runs out. The caller's array is never reordered. */
double *vn__sorted_copy(const double *x, size_t n);

/* The p-th percentile (0..100) of sorted values as a bound on the next
 * value drawn from the same law: the order statistic at rank p (n + 1)
 * (interpolated, clamped to the smallest and largest), which a new
 * exchangeable value falls under with probability p on average whatever
 * the law (Weibull's plotting position, Hyndman and Fan's type 6). The
 * linear rule of vn_percentile_sorted, rank 1 + p (n - 1), holds it with
 * probability (2p - 1) / (n + 1) less: at n = 19 its 95th percentile holds
 * the next value 90.5% of the time. NAN for n == 0. */
double vn__percentile_next_sorted(const double *sorted, size_t n, double p);

/* A value and where it was, so ranks can be taken back to their sample. */
typedef struct vn__ranked {
    double v;
    size_t i;
} vn__ranked;

/* Ascending order of values, ties by position, for qsort. */
int vn__cmp_ranked(const void *a, const void *b);

/* The median of the finite values of x[0..n), in linear time; NAN for
 * none, or when memory runs out. x is left as it is (stats/ratio.c). */
double vn__median_of(const double *x, size_t n);

/* Ascending order of doubles, for qsort. */
int vn__cmp_double(const void *a, const void *b);

/* I_x(a, b), the regularized incomplete beta function, with y = 1 - x
 * given too so a tail near 1 keeps its digits (stats/special.c). */
double vn__ibeta(double a, double b, double x, double y);
/* P(|T| >= |t|) for Student's t with df degrees of freedom; NAN for df <= 0. */
double vn__t_p_two_sided(double t, double df);

/* log P(B = k) for B ~ Binomial(n, 1/2) (stats/special.c). */
double vn__log_binom_half(size_t n, size_t k);

/* vn_ratio_paired (paired) or vn_ratio_unpaired with the number of
 * resamples and the seed given, for tests that check the bootstrap against
 * its exact distribution (stats/ratio.c). */
int vn__ratio_boot(const double *a, size_t na, const double *b, size_t nb, int paired,
                   size_t resamples, uint64_t seed, vn_ratio *out);

#endif
