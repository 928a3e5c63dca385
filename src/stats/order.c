/* Order statistics of sorted values: the percentiles that both the summary
 * (stats.c) and the search for modes (stats/modes.c) read. A file of its own
 * below both, so neither has to call the other for it. */
#include <math.h>

#include "stats/internal.h"
#include "stats/stats_api.h"

/* The value at 0-based rank h between two order statistics, clamped to
 * the smallest and largest, and its lerp, which starts from the nearer of
 * the two so the result is exact at both ends and never leaves the pair. */
static double at_rank(const double *sorted, size_t n, double h)
{
    if (!(h > 0))
        return sorted[0];
    double fl = floor(h);
    size_t i = (size_t)fl;
    if (i >= n - 1)
        return sorted[n - 1];
    double g = h - fl, a = sorted[i], b = sorted[i + 1], d = b - a;
    return g >= 0.5 ? b - d * (1.0 - g) : a + d * g;
}

double vn_percentile_sorted(const double *sorted, size_t n, double p)
{
    if (!sorted || n == 0 || !(p >= 0 && p <= 100))
        return NAN;
    /* numpy's "linear" method: the virtual index (n - 1) q. */
    return at_rank(sorted, n, (double)(n - 1) * (p / 100.0));
}

double vn__percentile_next_sorted(const double *sorted, size_t n, double p)
{
    if (!sorted || n == 0 || !(p >= 0 && p <= 100))
        return NAN;
    /* 1-based rank (n + 1) q, 0-based one less. */
    return at_rank(sorted, n, (double)(n + 1) * (p / 100.0) - 1);
}
