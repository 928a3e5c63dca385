/* Statistics that survive noise: pure functions of their input, no I/O, no
 * clocks. Everything the engine, `vernier stats` and the reporters show is
 * computed here, so every runner gets the same numbers. */
#ifndef VERNIER_STATS_H
#define VERNIER_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "vernier/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The percentiles every summary carries, in this order. */
#define VN_STATS_NPCT 9
extern const double vn_stats_pct[VN_STATS_NPCT]; /* 1 5 10 25 50 75 90 95 99 */

/* Tukey's fences on the quartiles: mild beyond 1.5 IQR, severe beyond 3 IQR. */
typedef struct vn_outliers {
    size_t low_severe, low_mild, high_mild, high_severe;
} vn_outliers;

/* The most modes vn_modes_sorted reports. */
#define VN_MODES_MAX 6

/* The modes of a sample, found by Silverman's critical-bandwidth test
 * (Silverman, "Using kernel density estimates to investigate multimodality",
 * 1981): count is the fewest modes k whose test "k modes suffice" is not
 * rejected at the 5% level, and the modes are those of the Gaussian kernel
 * density estimate with the smallest bandwidth that shows k of them.
 * docs/stats.md describes the method and how well it detects modes. */
typedef struct vn_modes {
    size_t count;                /* modes found; 0 when too few values to test (< 10) */
    double at[VN_MODES_MAX];     /* where each mode is, ascending */
    double share[VN_MODES_MAX];  /* the fraction of the values (those the test keeps)
                                    between the lowest points around each mode */
    double h_crit;               /* the test's statistic: the smallest bandwidth whose
                                    estimate has one mode (NaN when not tested) */
    double p;                    /* the p-value of "one mode" (NaN when not tested);
                                    count >= 2 exactly when it is below 0.05 */
} vn_modes;

/* A summary of n values. Values that cannot be computed for this n (the
 * standard deviation of one value, say) are NAN. */
typedef struct vn_stats {
    size_t n;
    double min, max;
    double mean;
    double stddev;        /* sample standard deviation (n - 1) */
    double sem;           /* standard error of the mean */
    double mean_ci[2];    /* 95% Student t-interval of the mean */
    double median;
    double median_ci[2];  /* distribution-free 95% interval from order statistics */
    double median_ci_level; /* the interval's exact coverage (>= 0.95 when n allows, else less; NAN for n = 1) */
    double mad;           /* median absolute deviation from the median */
    double mad_scaled;    /* mad x 1.4826: estimates the stddev of normal data */
    double iqr;           /* p75 - p25 */
    double cv;            /* stddev / mean */
    double pct[VN_STATS_NPCT]; /* percentiles, numpy's default (linear) definition */
    vn_outliers outliers;
    vn_modes modes;       /* Silverman's test: how many modes, and where */
    double modality;      /* mvalue of the histogram: ~2 unimodal, >= 2.8 suggests several modes;
                             NaN when too few values to show a dip (about n < 16) */
    double drift;         /* Spearman rank correlation of value against position (NaN for n < 3
                             or constant values) */
    double drift_p;       /* two-sided p-value of drift (t approximation, as scipy's spearmanr) */
} vn_stats;

/* Summarizes x[0..n) (which is only read). VN_EINVAL for n == 0, a NULL
 * pointer, or a NaN or infinite value (which is an error, not a number);
 * VN_ERANGE when max - min, or the t-interval of the mean, overflows a double;
 * VN_ENOMEM. On failure *out
 * is untouched. docs/stats.md defines each number. */
int vn_stats_compute(const double *x, size_t n, vn_stats *out);

/* The p-th percentile (0..100) of sorted values, interpolating linearly
 * between order statistics exactly as numpy.percentile does by default. */
double vn_percentile_sorted(const double *sorted, size_t n, double p);

/* The half-sample mode of sorted values (Bickel and Fruehwirth, "On a fast,
 * robust estimator of the mode", 2006): the middle of the densest region.
 * Where noise only ever adds time, the samples it spared pile up at the
 * mode while the others spread above it, so the mode finds them however
 * many the others are, as long as they spread wider. NAN for n == 0. */
double vn_half_sample_mode(const double *sorted, size_t n);

/* The modes of sorted values (see vn_modes). Far outliers (beyond 3 times
 * the range from the 5th to the 95th percentile, past that range) are left
 * out, and a mode holding less than 5% of the values joins its neighbour,
 * so that outliers do not count as modes. Deterministic: the bootstrap inside
 * draws from a fixed seed, so the same values always give the same answer.
 * VN_EINVAL for a NULL pointer, n == 0 or a value that is not finite;
 * VN_ENOMEM. On failure *out is untouched. */
int vn_modes_sorted(const double *sorted, size_t n, vn_modes *out);

/* The distribution-free 95% interval of the median: 0-based indices lo and
 * hi into the n sorted values (the order statistics x(lo+1) and x(hi+1)),
 * and the interval's exact coverage P(lo+1 <= B <= hi) for B ~ Binomial(n,
 * 1/2). It is the narrowest symmetric pair (hi = n-1-lo) whose coverage is
 * >= 0.95. For 2 <= n < 6 no interval reaches 95%: the widest (min, max) is
 * returned with its lower coverage; n < 2 gives 0, 0 and coverage 0. Any
 * pointer may be NULL. */
void vn_median_ci_ranks(size_t n, size_t *lo, size_t *hi, double *coverage);

/* The median of x[0..n) and its distribution-free 95% interval (the order
 * statistics of vn_median_ci_ranks), without the rest of vn_stats_compute:
 * for stopping rules that ask after every sample. x is not changed.
 * VN_EINVAL for n == 0, VN_ENOMEM when the sorted copy cannot be made. */
int vn_median_ci(const double *x, size_t n, double *median, double *lo, double *hi);

/* The two-sided 97.5% quantile of Student's t with df degrees of freedom
 * (df >= 1), accurate to 1e-9. */
double vn_t975(double df);

/* The Mann-Whitney U test (Wilcoxon rank-sum) of two independent samples,
 * two-sided, as scipy.stats.mannwhitneyu computes it by default: when one
 * sample has at most 8 values and no two values are equal, from the exact
 * distribution of U; otherwise by the normal approximation with the tie
 * correction and the continuity correction. *u is the statistic of a (the
 * number of pairs in which a's value is the larger, ties counting one
 * half); *p the p-value: the chance of a difference at least this large in
 * rank if both came from one distribution. VN_EINVAL for an empty sample or
 * a NaN; VN_ENOMEM. On failure *u and *p are untouched. */
int vn_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u, double *p);

/* A histogram over [lo, lo + nbins * width]; below and above count the
 * values left outside it (always 0 from vn_histogram_compute). */
typedef struct vn_histogram {
    double lo;
    double width;
    size_t nbins;
    uint64_t *counts;   /* owned */
    size_t n;           /* all values, inside and outside the bins */
    uint64_t below, above;
} vn_histogram;

/* Bins x[0..n) into nbins equal bins from min to max: [lo + i*width,
 * lo + (i+1)*width), the last bin closed so the maximum is in it, with edges
 * computed as numpy.histogram computes them. nbins 0 chooses by the
 * Freedman-Diaconis rule (width 2 IQR n^(-1/3), Sturges's log2(n) + 1 bins
 * when the IQR is 0), clamped to 1..200. Either count is lowered to the
 * most bins whose edges all rise, for values a few units in the last place
 * apart (h->nbins says how many). Constant data give one bin of width 0. *out is overwritten (not freed) on success; release it with
 * vn_histogram_free. VN_EINVAL, VN_ERANGE and VN_ENOMEM as vn_stats_compute. */
int  vn_histogram_compute(const double *x, size_t n, size_t nbins, vn_histogram *out);
/* The same, with the bins spanning only the values inside Tukey's outer
 * fences (3 IQR beyond the quartiles), so a few far outliers, counted in
 * below and above, cannot squeeze the body of the data into one bin. The
 * bins are those numpy.histogram gives for the values inside, with
 * Freedman-Diaconis computed on them. With an IQR of 0 (more than half the
 * values equal) nothing is set apart, as in vn_histogram_compute. */
int  vn_histogram_compute_fenced(const double *x, size_t n, size_t nbins, vn_histogram *out);
void vn_histogram_free(vn_histogram *h);

/* The empirical cumulative distribution at the histogram's bin edges:
 * out[i] is the fraction of all the values below the upper edge of bin i
 * (the last edge inclusive: 1 less the share above the bins). out has
 * h->nbins entries. */
void vn_histogram_cdf(const vn_histogram *h, double *out);

/* The least-squares line y = a + b x through n points (n >= 2, x not all
 * equal), weighted by w (NULL: all 1), with r2 the share of the variance
 * it explains (NULL to skip). 0, or VN_EINVAL. A fit in relative terms,
 * for points spread over decades, weights each by 1 / y^2. */
int vn_fit_line(const double *x, const double *y, const double *w, size_t n, double *a, double *b,
                double *r2);

/* The ratio of two medians, median(b) / median(a), with its 95% interval
 * by the percentile bootstrap: 2000 resamples drawn with replacement from
 * a fixed seed (equal input, equal answer), the ratio of the resampled
 * medians each time, and the 2.5th and 97.5th percentiles of those ratios.
 * vn_ratio_paired takes a[i] and b[i] as a pair (measured at the same
 * moment) and resamples pairs, so what moved both alike cancels in the
 * ratio; vn_ratio_unpaired resamples each side on its own. With fewer than
 * VN_RATIO_MIN pairs (values on either side), ci is NAN. An end of ci is
 * infinite when resamples put a median of a at or below 0. VN_EINVAL for a
 * NULL pointer, no values or one that is not finite; VN_ERANGE when a
 * median is 0 or less (a ratio of times needs both above 0); VN_ENOMEM. On
 * failure *out is untouched. */
typedef struct vn_ratio {
    double ratio;      /* median(b) / median(a) */
    double ci[2];      /* the 95% percentile interval; NAN with too few values */
    size_t n;          /* pairs, or the smaller side when unpaired */
    int paired;
} vn_ratio;

#define VN_RATIO_MIN 6

int vn_ratio_paired(const double *a, const double *b, size_t n, vn_ratio *out);
int vn_ratio_unpaired(const double *a, size_t na, const double *b, size_t nb, vn_ratio *out);

/* The complexity of a sweep, as Google Benchmark's BigO fit: for each form
 * f(n), time = coef x f(n) by least squares through the origin, and the
 * RMS of the residuals over the mean time; best is the form with the
 * lowest (O(1) on a tie), next the runner-up. Logarithms are base 2. */
typedef enum vn_bigo {
    VN_BIGO_1,
    VN_BIGO_LOGN,
    VN_BIGO_N,
    VN_BIGO_NLOGN,
    VN_BIGO_N2,
    VN_BIGO_N3,
    VN_BIGO_COUNT
} vn_bigo;

typedef struct vn_bigo_fit {
    vn_bigo best, next;
    double coef[VN_BIGO_COUNT]; /* time per unit of f(n); NAN where the form cannot fit */
    double rms[VN_BIGO_COUNT];  /* normalized RMS of the residuals; INFINITY there */
} vn_bigo_fit;

/* Fits times t[i] at sizes n[i] (count >= 2, every n >= 1, the mean time
 * above 0). 0, or VN_EINVAL; on failure *out is untouched. */
int vn_fit_bigo(const double *n, const double *t, size_t count, vn_bigo_fit *out);
/* "1", "log n", "n", "n log n", "n^2", "n^3"; "?" for no form. */
const char *vn_bigo_name(vn_bigo b);

#ifdef __cplusplus
}
#endif
#endif
