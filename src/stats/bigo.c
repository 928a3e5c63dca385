/* The complexity of a sweep (stats.h): time = c x f(n) for each form f,
 * as Google Benchmark's BigO fit does it (its complexity.cc): c by least
 * squares through the origin, sum t f / sum f^2, and the RMS of the
 * residuals divided by the mean time, which makes fits of different forms
 * and of different benchmarks comparable. The lowest wins; O(1) wins a tie,
 * then the simpler form. Logarithms are base 2, as there. */
#include <math.h>

#include "stats/stats_api.h"

static double form(vn_bigo b, double n)
{
    switch (b) {
    case VN_BIGO_1: return 1;
    case VN_BIGO_LOGN: return log2(n);
    case VN_BIGO_N: return n;
    case VN_BIGO_NLOGN: return n * log2(n);
    case VN_BIGO_N2: return n * n;
    case VN_BIGO_N3: return n * n * n;
    default: return NAN;
    }
}

const char *vn_bigo_name(vn_bigo b)
{
    static const char *const names[VN_BIGO_COUNT] = {"1", "log n", "n", "n log n", "n^2", "n^3"};
    return (unsigned)b < VN_BIGO_COUNT ? names[b] : "?";
}

int vn_fit_bigo(const double *n, const double *t, size_t count, vn_bigo_fit *out)
{
    if (!n || !t || !out || count < 2)
        return VN_EINVAL;
    double mean = 0;
    for (size_t i = 0; i < count; i++) {
        if (!(n[i] >= 1) || !isfinite(n[i]) || !isfinite(t[i]))
            return VN_EINVAL;
        mean += t[i];
    }
    mean /= (double)count;
    if (!(mean > 0))
        return VN_EINVAL;
    vn_bigo_fit f;
    f.best = f.next = VN_BIGO_1;
    for (int b = 0; b < VN_BIGO_COUNT; b++) {
        double sff = 0, stf = 0, ss = 0;
        for (size_t i = 0; i < count; i++) {
            double g = form((vn_bigo)b, n[i]);
            sff += g * g;
            stf += t[i] * g;
        }
        /* log n of n = 1 everywhere, or a cube past the doubles: this form
         * cannot be fitted, and loses to every other. */
        if (!(sff > 0) || !isfinite(sff)) {
            f.coef[b] = NAN;
            f.rms[b] = INFINITY;
            continue;
        }
        f.coef[b] = stf / sff;
        for (size_t i = 0; i < count; i++) {
            double e = t[i] - f.coef[b] * form((vn_bigo)b, n[i]);
            ss += e * e;
        }
        f.rms[b] = sqrt(ss / (double)count) / mean;
    }
    for (int b = 1; b < VN_BIGO_COUNT; b++)
        if (f.rms[b] < f.rms[f.best])
            f.best = (vn_bigo)b;
    f.next = f.best == VN_BIGO_1 ? VN_BIGO_LOGN : VN_BIGO_1;
    for (int b = 0; b < VN_BIGO_COUNT; b++)
        if (b != (int)f.best && f.rms[b] < f.rms[f.next])
            f.next = (vn_bigo)b;
    *out = f;
    return 0;
}
