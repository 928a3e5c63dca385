/* Ratios over processes (stats/levels.h): of two rows measured in the
 * same processes, and of two runs' headlines, each with its interval, as
 * vn__levels gives those of one set of processes; and from summaries
 * alone. (Welch's interval of two runs' mean logs, which needs the serial
 * factor's internals, stays in levels.c.) */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "levels.h"
#include "stats/stats_api.h"
#include "vernier/base.h"

int vn__levels_ratio(const double *num, const double *den, size_t k, double *ratio, double *lo,
                     double *hi)
{
    if (!num || !den || k == 0)
        return VN_EINVAL;
    double *x = malloc(k * sizeof *x);
    if (!x)
        return VN_ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < k && rc == 0; i++) {
        if (!(num[i] > 0) || !(den[i] > 0) || !isfinite(num[i]) || !isfinite(den[i]))
            rc = VN_ERANGE;
        else
            x[i] = log(num[i] / den[i]);
    }
    vn__levels v;
    if (rc == 0)
        rc = vn__levels_compute(x, NULL, k, &v);
    free(x);
    if (rc)
        return rc;
    /* The median of the logs, with the median's interval, as the headline
     * over processes: a process where a burst met one row and not the
     * other gives a ratio far off, which moves a mean of logs (and widens
     * its t-interval) as much as it is off, and a median no more than any
     * other process. */
    *ratio = exp(v.median);
    *lo = isnan(v.median_lo) ? NAN : exp(v.median_lo);
    *hi = isnan(v.median_hi) ? NAN : exp(v.median_hi);
    return 0;
}

/* A headline of x[0..k) and its interval's half-width on the log scale:
 * the wider of its two sides. */
static int headline_log(const double *x, size_t k, double low, double *value, double *half)
{
    for (size_t i = 0; i < k; i++)
        if (!(x[i] > 0))
            return VN_ERANGE;
    /* The standard error's interval alone, not the one from ranks a run
     * prints (vn__levels_opts ranks): replayed on four sets of kept runs,
     * the ranks found a planted 3% slowdown of a division chain in 47% of
     * tries where this finds 53%, with as few false alarms within a point
     * (bench/RESULTS.md, 2026-12-02). */
    const vn__levels_opts o = {.gate = 1, .low = low > 0 && low < 0.5 ? low : 0};
    vn__levels l;
    int rc = vn__levels_compute_with(x, NULL, k, &o, &l);
    if (rc)
        return rc;
    int q = o.low > 0;
    double v = q ? l.low : l.median, lo = q ? l.low_lo : l.median_lo;
    double hi = q ? l.low_hi : l.median_hi;
    *value = v;
    *half = NAN;
    if (k >= 2 && v > 0 && hi >= v && lo <= v)
        *half = fmax(log(hi / v), lo > 0 ? log(v / lo) : (v - lo) / v);
    return 0;
}

int vn__levels_ratio_headlines(const double *a, size_t na, const double *b, size_t nb, double low,
                               double head[2], double *ratio, double *lo, double *hi)
{
    if (!a || !b || na == 0 || nb == 0 || !ratio || !lo || !hi)
        return VN_EINVAL;
    double va, ha, vb, hb;
    int rc = headline_log(a, na, low, &va, &ha);
    if (!rc)
        rc = headline_log(b, nb, low, &vb, &hb);
    if (rc)
        return rc;
    if (head) {
        head[0] = va;
        head[1] = vb;
    }
    *ratio = vb / va;
    double half = hypot(ha, hb);
    *lo = isnan(half) ? NAN : *ratio * exp(-half);
    *hi = isnan(half) ? NAN : *ratio * exp(half);
    return 0;
}

int vn__levels_ratio_summary(double ma, double sa, size_t na, double mb, double sb, size_t nb,
                             double *ratio, double *lo, double *hi, double *p)
{
    if (!(ma > 0) || !(mb > 0) || !isfinite(ma) || !isfinite(mb))
        return VN_ERANGE;
    *ratio = mb / ma;
    *lo = *hi = *p = NAN;
    if (na < 2 || nb < 2 || !(sa >= 0) || !(sb >= 0))
        return 0;
    double ca = sa / ma, cb = sb / mb;
    double va = ca * ca / (double)na, vb = cb * cb / (double)nb, se2 = va + vb;
    if (!(se2 > 0)) {
        *lo = *hi = *ratio;
        *p = *ratio == 1 ? 1 : 0;
        return 0;
    }
    double df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
    double d = log(*ratio), se = sqrt(se2);
    double half = vn_t975(fmax(1, df)) * se;
    *lo = exp(d - half);
    *hi = exp(d + half);
    *p = vn__t_p_two_sided(d / se, fmax(1, df));
    return 0;
}
