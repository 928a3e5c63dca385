/* The special functions the statistics need (log-gamma, the incomplete
 * beta, Student's t quantile, binomial probabilities), written out so their
 * accuracy is known on every libc. Pure. */
#include "internal.h"
#include "stats/stats_api.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LN_SQRT_2PI 0.91893853320467274178 /* log(sqrt(2 pi)) */

/* The remainder of Stirling's series, lgamma(x) - ((x - 1/2) log x - x +
 * log sqrt(2 pi)), from the Bernoulli numbers B2..B14. For x >= 10 the first
 * omitted term is below 1e-16 of the result. */
static double stirling_rest(double x)
{
    double r = 1.0 / x, r2 = r * r;
    return r * (1.0 / 12 -
                r2 * (1.0 / 360 -
                      r2 * (1.0 / 1260 -
                            r2 * (1.0 / 1680 -
                                  r2 * (1.0 / 1188 - r2 * (691.0 / 360360 - r2 / 156))))));
}

/* log Gamma(x) for x > 0. libm's lgamma writes the global signgam, a data
 * race in a threaded host, and its accuracy varies between libcs; this one is
 * Stirling's series after shifting x up to 10 with Gamma(x+1) = x Gamma(x). */
static double lgam(double x)
{
    double p = 1.0;
    while (x < 10.0) {
        p *= x;
        x += 1.0;
    }
    return (x - 0.5) * log(x) - x + LN_SQRT_2PI + stirling_rest(x) - log(p);
}

/* log Gamma(a + b) - log Gamma(a). For large a both terms are huge and
 * nearly equal, and subtracting them would lose the digits that matter (at
 * a = 5e5 about nine of them); written out from Stirling's series the
 * difference has no such cancellation. */
static double lgam_ratio(double a, double b)
{
    if (a < 10.0)
        return lgam(a + b) - lgam(a);
    return (a - 0.5) * log1p(b / a) + b * log(a + b) - b + stirling_rest(a + b) - stirling_rest(a);
}

/* log B(a, b) = log Gamma(a) + log Gamma(b) - log Gamma(a + b). */
static double lbeta(double a, double b)
{
    double big = a > b ? a : b, small = a > b ? b : a;
    return lgam(small) - lgam_ratio(big, small);
}

/* The continued fraction of the regularized incomplete beta function
 * (DLMF 8.17.22), evaluated by the modified Lentz method: I_x(a, b) =
 * x^a y^b / (a B(a, b)) / (1 + d1 / (1 + d2 / (1 + ...))). It converges
 * quickly for x < (a + 1) / (a + b + 2), which the caller arranges. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    /* f = 1 + d1 / (1 + d2 / (1 + ...)) by Lentz: f_j = f_{j-1} c_j d_j. */
    double f = 1.0, c = 1.0, d = 0.0;
    for (int j = 1; j < 20000; j++) {
        double num;
        if (j % 2) {
            double m = (double)(j - 1) / 2;
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        } else {
            double m = (double)j / 2;
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        }
        d = 1.0 + num * d;
        if (fabs(d) < tiny)
            d = tiny;
        d = 1.0 / d;
        c = 1.0 + num / c;
        if (fabs(c) < tiny)
            c = tiny;
        double step = c * d;
        f *= step;
        if (fabs(step - 1.0) <= 2 * DBL_EPSILON)
            break;
    }
    return 1.0 / f;
}

/* The regularized incomplete beta function I_x(a, b), with y = 1 - x given
 * by the caller at full precision (1 - x loses digits when x is near 1). */
double vn__ibeta(double a, double b, double x, double y)
{
    if (!(x > 0))
        return 0.0;
    if (!(y > 0))
        return 1.0;
    double lx = x < 0.5 ? log(x) : log1p(-y);
    double ly = y < 0.5 ? log(y) : log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return exp(a * lx + b * ly - lbeta(a, b)) / a * beta_cf(a, b, x);
    return 1.0 - exp(a * lx + b * ly - lbeta(a, b)) / b * beta_cf(b, a, y);
}

/* P(T > t) for Student's t with df degrees of freedom, t >= 0:
 * I_{df/(df+t^2)}(df/2, 1/2) / 2. */
static double t_upper(double t, double df)
{
    double t2 = t * t;
    return 0.5 * vn__ibeta(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

double vn__t_p_two_sided(double t, double df)
{
    if (!(df > 0) || isnan(t))
        return NAN;
    return fmin(1, 2 * t_upper(fabs(t), df));
}

static double t_density(double t, double df)
{
    return exp(lgam_ratio(df / 2, 0.5) - 0.5 * log(df * M_PI) -
               (df + 1) / 2 * log1p(t * t / df));
}

double vn_t975(double df)
{
    if (!(df >= 1))
        return NAN;
    if (df >= 1000) {
        /* Fisher and Cornish's expansion of t in powers of 1/df around the
         * normal quantile (Abramowitz and Stegun 26.7.5). From df = 1000 the
         * first omitted term is below 1e-15, while the incomplete beta
         * function loses digits there over thousands of continued-fraction
         * terms. */
        const double z = VN__Z975, z2 = z * z;
        double g1 = (z2 + 1) * z / 4;
        double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
        double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
        double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
        double r = 1 / df;
        return z + r * (g1 + r * (g2 + r * (g3 + r * g4)));
    }
    /* Newton's method on P(T > t) = 0.025. That tail is convex and
     * decreasing, so from a start below the root every step lands below it
     * again and the iteration climbs to the root without overshooting. The
     * normal quantile is such a start (the t distribution's tails are
     * heavier), and Cornish and Fisher's first correction moves it close
     * without passing the root. */
    double t = VN__Z975 + (VN__Z975 * VN__Z975 * VN__Z975 + VN__Z975) / (4 * df);
    double lo = VN__Z975;
    if (t_upper(t, df) < 0.025)
        t = lo;
    for (int i = 0; i < 200; i++) {
        double step = (t_upper(t, df) - 0.025) / t_density(t, df);
        double next = t + step;
        if (!(next > lo)) /* rounding at the root; keep the bracket */
            next = lo;
        if (fabs(next - t) <= 4 * DBL_EPSILON * t) {
            t = next;
            break;
        }
        if (next > t)
            lo = t;
        t = next;
    }
    return t;
}

/* x log(x / m) + m - x, the deviance term of Catherine Loader's "Fast and
 * accurate computation of binomial probabilities" (2000). Near x = m both
 * parts nearly cancel; the series in v = (x - m) / (x + m) keeps the digits. */
static double bd0(double x, double m)
{
    if (fabs(x - m) < 0.1 * (x + m)) {
        double v = (x - m) / (x + m), v2 = v * v;
        double s = (x - m) * v, term = 2 * x * v;
        for (int j = 1; j < 1000; j++) {
            term *= v2;
            double s1 = s + term / (2 * j + 1);
            if (s1 == s)
                break;
            s = s1;
        }
        return s;
    }
    return x * log(x / m) + m - x;
}

/* log P(B = k) for B ~ Binomial(n, 1/2). Small n use log-gamma directly;
 * larger n use Loader's saddle-point form, which has no cancellation
 * between terms of size n log n. */
double vn__log_binom_half(size_t n, size_t k)
{
    double dn = (double)n, dk = (double)k, dm = (double)(n - k);
    if (dk < 10 || dm < 10)
        return lgam(dn + 1) - lgam(dk + 1) - lgam(dm + 1) - dn * M_LN2;
    return 0.5 * log(dn / (2 * M_PI * dk * dm)) - bd0(dk, dn / 2) - bd0(dm, dn / 2) +
           stirling_rest(dn) - stirling_rest(dk) - stirling_rest(dm);
}

