/* Least-squares fits (stats.h). */
#include <math.h>

#include "vernier/base.h"
#include "stats/stats_api.h"

int vn_fit_line(const double *x, const double *y, const double *w, size_t n, double *a, double *b,
                double *r2)
{
    if (!x || !y || !a || !b || n < 2)
        return VN_EINVAL;
    /* Means first, then the sums about them: the textbook sums of x^2 and
     * x y lose every digit when x spans 10^2 to 10^9. */
    double sw = 0, mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1;
        if (!(wi >= 0 && isfinite(wi)) || !isfinite(x[i]) || !isfinite(y[i]))
            return VN_EINVAL;
        sw += wi;
        mx += wi * x[i];
        my += wi * y[i];
    }
    if (!(sw > 0))
        return VN_EINVAL;
    mx /= sw;
    my /= sw;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1, dx = x[i] - mx, dy = y[i] - my;
        sxx += wi * dx * dx;
        sxy += wi * dx * dy;
        syy += wi * dy * dy;
    }
    if (!(sxx > 0))
        return VN_EINVAL;
    *b = sxy / sxx;
    *a = my - *b * mx;
    if (r2)
        *r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1;
    return 0;
}
