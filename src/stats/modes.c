/* How many modes a sample has, and where: Silverman's critical-bandwidth
 * test (B. W. Silverman, "Using kernel density estimates to investigate
 * multimodality", J. R. Statist. Soc. B 43, 1981).
 *
 * A Gaussian kernel density estimate loses modes, never gains them, as its
 * bandwidth h grows (Silverman's theorem). The critical bandwidth h_k is
 * the smallest h whose estimate has at most k modes: data with more than k
 * real modes need a wide kernel to smooth them into k, so h_k is large. Is
 * it larger than chance allows? The smoothed bootstrap answers: samples drawn
 * from the estimate at h_k itself (which has k modes), rescaled to the
 * data's variance, show more than k modes at h_k as often as chance gives a
 * critical bandwidth that large. That share is the p-value of "k modes
 * suffice"; the count is the first k, from 1 up, that is not rejected.
 *
 * Why this test: it answers "how many" and "where" from one estimate, where
 * Hartigan's dip test only tells one mode from more; and it needs no table
 * of a null distribution, the bootstrap calibrates it for each sample.
 *
 * Choices made here, each for a reason:
 * - Far outliers (beyond 3 times the range of the middle 90% of the values,
 *   past that range) are left out: they would spread the grid so wide that
 *   the body of the data fell between two of its points. Modes are counted
 *   only over the range of the values kept, in the bootstrap samples too
 *   (Hall and York, "On the calibration of Silverman's test for
 *   multimodality", 2001, count modes on a fixed interval for this reason).
 * - A mode must hold MINSHARE of the values (its basin, between the lowest
 *   points of the estimate around it); a lighter one joins its neighbour.
 *   A few outliers close together are then not a mode, nor is a bump that
 *   could not change what the median says. The bootstrap counts the same
 *   way, so the test stays calibrated for the count it reports.
 * - Values on a lattice (integer nanoseconds, clock ticks) are spread over
 *   the lattice cells around them first (see unlattice): the estimate of a
 *   lattice is a comb at small h, which the continuous bootstrap samples
 *   never are, so every lattice would look multimodal.
 * - The estimate is computed on a grid from linearly binned values (as in
 *   Silverman's algorithm AS 176, Applied Statistics 31, 1982), with PER_H
 *   grid steps to a bandwidth: fine enough that binning moves the estimate
 *   by about a percent, and coarse enough that a wide bandwidth costs few
 *   points. The cost then does not grow with the number of values.
 * - More than MAXN values are thinned to MAXN evenly spaced order statistics,
 *   which keep the shape of the sample and bound the bootstrap's cost. The
 *   thinned sample is smoother than a random one, so the test only becomes
 *   more cautious, at sizes where it detects any clear mode anyway.
 * - The bootstrap stops early by Besag and Clifford's sequential rule
 *   ("Sequential Monte Carlo p-values", Biometrika 78, 1991): after STOP
 *   samples with more modes, p = STOP / drawn; else after BOOT samples,
 *   p = (exceeding + 1) / (BOOT + 1). A sample with one plain mode then
 *   costs some 20 bootstrap samples instead of BOOT.
 * - The bootstrap draws from a fixed seed, so equal input gives equal
 *   output. */
#include "stats/stats_api.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define MIN_N 10       /* fewer values say nothing about modes */
#define MAXN 2048      /* values the test looks at, at most */
#define PER_H 5        /* grid steps to a bandwidth */
#define MAXCORE 1024   /* grid points over the values' range, at most */
#define MAXPAD (4 * PER_H + 1) /* grid points beyond it on each side: 4 bandwidths */
#define BOOT 100       /* bootstrap samples at most: p-values down to 0.01 */
#define STOP 5         /* exceeding samples after which the bootstrap stops */
#define ALPHA 0.05     /* the level of each test "k modes suffice" */
#define MINSHARE 0.05  /* the least share of the values a mode holds */
#define MINCOUNT 6     /* and the fewest values: fewer are a tail's clump, not a mode */
#define BISECT 14      /* halvings of log h: the critical bandwidth to 0.03% */
#define SEED 0x6d6f646573ull

/* ---- random numbers -------------------------------------------------------- */

typedef vn__srng rng;

/* Uniform on [0, 1), 53 bits. */
static double rng_unif(rng *r)
{
    return (double)(vn__srng_next(r) >> 11) * 0x1p-53;
}

/* A standard normal by Marsaglia's polar method, two at a time: no sine
 * or cosine, which would cost more than the rest of a bootstrap draw. */
static double rng_normal(rng *r)
{
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    double u, v, q;
    do {
        u = 2 * rng_unif(r) - 1;
        v = 2 * rng_unif(r) - 1;
        q = u * u + v * v;
    } while (q >= 1 || q == 0);
    double f = sqrt(-2 * log(q) / q);
    r->spare = v * f;
    r->has_spare = 1;
    return u * f;
}

/* ---- the density estimate on a grid ----------------------------------------- */

/* The grid: npts points lo + j * step, of which [core, core + ncore) span
 * the values' range; the pad beyond it on both sides holds the bootstrap
 * values that fall outside that range, and lets the slope at its ends be
 * seen. */
typedef struct grid {
    double lo, step;
    size_t npts, core, ncore;
    double w[MAXCORE + 2 * MAXPAD]; /* binned weights */
    double f[MAXCORE + 2 * MAXPAD]; /* the estimate */
    double k[MAXPAD + 1];           /* kernel taps */
    size_t pk[MAXCORE], vl[MAXCORE]; /* modes and the dips between them */
    double mass[MAXCORE];            /* the weight of each mode's basin */
} grid;

/* Lays the grid for bandwidth h over [lo, lo + range]. */
static void grid_set(grid *g, double lo, double range, double h)
{
    double step = fmax(h / PER_H, range / (MAXCORE - 1));
    size_t ncore = (size_t)ceil(range / step) + 1;
    if (ncore > MAXCORE)
        ncore = MAXCORE;
    g->step = range / (double)(ncore - 1);
    size_t pad = (size_t)ceil(4 * h / g->step);
    g->core = pad < MAXPAD ? pad : MAXPAD;
    g->ncore = ncore;
    g->npts = ncore + 2 * g->core;
    g->lo = lo - (double)g->core * g->step;
}

/* Linear binning: each value splits its unit weight between the two grid
 * points around it; values beyond the grid are dropped. */
static void bin(grid *g, const double *y, size_t n)
{
    memset(g->w, 0, g->npts * sizeof *g->w);
    double last = (double)(g->npts - 1);
    for (size_t i = 0; i < n; i++) {
        double t = (y[i] - g->lo) / g->step;
        if (!(t >= 0) || t > last)
            continue;
        size_t j = (size_t)t;
        if (j >= g->npts - 1) {
            g->w[g->npts - 1] += 1;
            continue;
        }
        double frac = t - (double)j;
        g->w[j] += 1 - frac;
        g->w[j + 1] += frac;
    }
}

/* The Gaussian estimate with bandwidth h at every grid point, up to a
 * constant factor (which does not move modes): the binned weights convolved
 * with the kernel, cut at 4 h where it falls below 0.04% of its peak. */
static void kde(grid *g, double h)
{
    size_t taps = (size_t)ceil(4 * h / g->step);
    if (taps > MAXPAD)
        taps = MAXPAD;
    if (taps > g->npts - 1)
        taps = g->npts - 1;
    for (size_t t = 0; t <= taps; t++) {
        double z = (double)t * g->step / h;
        g->k[t] = exp(-0.5 * z * z);
    }
    size_t n = g->npts;
    for (size_t j = 0; j < n; j++) {
        double sum = g->w[j] * g->k[0];
        size_t lo = j < taps ? j : taps, hi = n - 1 - j < taps ? n - 1 - j : taps;
        for (size_t t = 1; t <= lo; t++)
            sum += g->w[j - t] * g->k[t];
        for (size_t t = 1; t <= hi; t++)
            sum += g->w[j + t] * g->k[t];
        g->f[j] = sum;
    }
}

/* The modes of the estimate inside the core, each holding at least
 * MINSHARE of the values. A mode is a grid point where the estimate stops
 * rising and starts falling; steps smaller than a billionth of the peak are
 * rounding, not slope. Beyond the grid the estimate rises towards the values
 * on the left and falls on the right. Then the basins (the values between
 * the lowest points around each mode) are weighed, and the lightest, while
 * under MINSHARE, joins the neighbour across the shallower of its two dips.
 * Stores up to max grid indices in at and shares of the values in share
 * (either may be NULL) and returns the count (which may exceed max). */
static size_t modes_of(grid *g, size_t *at, double *share, size_t max)
{
    const double *f = g->f;
    double top = 0;
    for (size_t j = 0; j < g->npts; j++)
        if (f[j] > top)
            top = f[j];
    double tol = top * 1e-9;
    size_t from = g->core, to = g->core + g->ncore, c = 0;
    size_t *pk = g->pk;
    /* The direction of the last step taken in earnest: +1 up, -1 down;
     * where the core begins, the slope coming in from the pad. */
    int dir = 1;
    for (size_t j = from; j > 1; j--) {
        double d = f[j - 1] - f[j - 2];
        if (fabs(d) > tol) {
            dir = d > 0 ? 1 : -1;
            break;
        }
    }
    size_t peak = from;
    double prev = from > 0 ? f[from - 1] : -INFINITY;
    for (size_t j = from; j < to; j++) {
        double d = f[j] - prev;
        if (d > tol) {
            dir = 1;
            peak = j;
        } else if (d < -tol) {
            if (dir == 1)
                pk[c++] = peak;
            dir = -1;
        } else if (dir == 1 && f[j] > f[peak]) {
            peak = j;
        }
        prev = f[j];
    }
    /* Still rising at the core's end: a mode there unless the pad keeps
     * rising past it. */
    if (dir == 1) {
        int falls = 1;
        for (size_t j = to; j < g->npts; j++) {
            double d = f[j] - f[j - 1];
            if (d > tol) {
                falls = 0;
                break;
            }
            if (d < -tol)
                break;
        }
        if (falls)
            pk[c++] = peak;
    }
    if (c == 0) /* flat to rounding: one mode, at the highest point */
        pk[c++] = peak;

    /* vl[i] (0 < i < c) is the lowest point between modes i - 1 and i. */
    size_t *vl = g->vl;
    double *mass = g->mass, total = 0;
    for (size_t i = 1; i < c; i++) {
        vl[i] = pk[i - 1];
        for (size_t j = pk[i - 1]; j <= pk[i]; j++)
            if (f[j] < f[vl[i]])
                vl[i] = j;
    }
    for (size_t i = 0; i < c; i++) {
        size_t a = i ? vl[i] : 0, b = i + 1 < c ? vl[i + 1] : g->npts;
        mass[i] = 0;
        for (size_t j = a; j < b; j++)
            mass[i] += g->w[j];
        total += mass[i];
    }
    while (c > 1) {
        size_t i = 0;
        for (size_t j = 1; j < c; j++)
            if (mass[j] < mass[i])
                i = j;
        if (mass[i] >= MINSHARE * total && mass[i] >= MINCOUNT)
            break;
        /* The neighbour across the higher dip; r is the right one of the two. */
        size_t r = i == 0 ? 1 : i == c - 1 ? i : f[vl[i]] > f[vl[i + 1]] ? i : i + 1;
        size_t l = r - 1;
        mass[l] += mass[r];
        if (f[pk[r]] > f[pk[l]])
            pk[l] = pk[r];
        for (size_t j = r; j + 1 < c; j++) {
            pk[j] = pk[j + 1];
            mass[j] = mass[j + 1];
            vl[j] = vl[j + 1];
        }
        c--;
    }
    for (size_t i = 0; i < c && i < max; i++) {
        if (at)
            at[i] = pk[i];
        /* Merged masses are summed in another order than total: the last
         * bit can put one share above 1. */
        if (share)
            share[i] = total > 0 ? fmin(1.0, mass[i] / total) : NAN;
    }
    return c;
}

/* The data the test looks at: n values (not necessarily in order) spanning
 * [lo, lo + range], their mean and variance, and a grid to estimate on. */
typedef struct sample {
    const double *y;
    size_t n;
    double lo, range, mean, var;
    grid *g;
} sample;

/* The modes of the data's estimate at bandwidth h; their grid indices go
 * to at (up to max) when it is not NULL. */
static size_t data_modes(const sample *d, double h, size_t *at, double *share, size_t max)
{
    grid_set(d->g, d->lo, d->range, h);
    bin(d->g, d->y, d->n);
    kde(d->g, h);
    return modes_of(d->g, at, share, max);
}

/* The critical bandwidth: the smallest h (to BISECT halvings of log h,
 * between PER_H of the finest grid's steps and the whole range) whose
 * estimate has at most k modes. */
static double critical(const sample *d, size_t k)
{
    double lo = PER_H * d->range / (MAXCORE - 1), hi = d->range;
    if (data_modes(d, lo, NULL, NULL, 0) <= k)
        return lo;
    for (int i = 0; i < BISECT; i++) {
        double mid = sqrt(lo * hi);
        if (data_modes(d, mid, NULL, NULL, 0) <= k)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The smoothed bootstrap's p-value of "k modes suffice" at the critical
 * bandwidth h: values y_J + h e (J a random index, e standard normal),
 * shrunk towards the mean so that their variance is the data's, with their
 * modes counted over the data's range. ys holds n values. */
static double boot_p(const sample *d, size_t k, double h, double *ys, rng *r)
{
    double shrink = 1 / sqrt(1 + h * h / d->var);
    size_t over = 0, drawn = 0;
    grid_set(d->g, d->lo, d->range, h);
    while (drawn < BOOT) {
        for (size_t i = 0; i < d->n; i++) {
            double v = d->y[vn__srng_index(r, d->n)] + h * rng_normal(r);
            ys[i] = d->mean + (v - d->mean) * shrink;
        }
        bin(d->g, ys, d->n);
        kde(d->g, h);
        drawn++;
        if (modes_of(d->g, NULL, NULL, 0) > k && ++over == STOP)
            return (double)STOP / (double)drawn;
    }
    return (double)(over + 1) / (double)(BOOT + 1);
}

/* Values on a lattice of step g (more than half of them repeats, and all
 * within 0.1% of a step of a lattice point, as values converted from ticks
 * are) are spread over the two cells around them with a triangular density
 * of half-width g, from the fixed seed. Their density is then the lattice's
 * counts joined by straight lines: spread uniformly over one cell instead,
 * a lattice point holding many values would be a flat top, whose random
 * bumps the test would take for modes. */
static void unlattice(double *y, size_t n, rng *r)
{
    double g = INFINITY;
    size_t distinct = 1;
    for (size_t i = 1; i < n; i++)
        if (y[i] != y[i - 1]) {
            distinct++;
            if (y[i] - y[i - 1] < g)
                g = y[i] - y[i - 1];
        }
    if (distinct * 2 > n || !isfinite(g) || !(g > 0))
        return;
    for (size_t i = 0; i < n; i++) {
        double q = (y[i] - y[0]) / g;
        if (fabs(q - nearbyint(q)) > 1e-3)
            return;
    }
    for (size_t i = 0; i < n; i++)
        y[i] += (rng_unif(r) + rng_unif(r) - 1) * g;
}

/* One mode at v holding everything. */
static void one_mode(vn_modes *res, double v)
{
    res->count = 1;
    res->at[0] = v;
    res->share[0] = 1;
    res->h_crit = 0;
    res->p = 1;
}

int vn_modes_sorted(const double *s, size_t n, vn_modes *out)
{
    if (!s || !n || !out)
        return VN_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(s[i]))
            return VN_EINVAL;
    vn_modes res;
    memset(&res, 0, sizeof res);
    res.h_crit = NAN;
    res.p = NAN;

    /* The values within 3 times the range of the middle 90% of them beyond
     * it: far outliers would spread the grid so wide that the body of the
     * data fell between two points, while a mode holding 5% or more of the
     * values is inside whatever its distance. */
    double p5 = vn_percentile_sorted(s, n, 5), p95 = vn_percentile_sorted(s, n, 95);
    double w90 = p95 - p5;
    size_t a = 0, b = n;
    while (s[a] < p5 - 3 * w90)
        a++;
    while (s[b - 1] > p95 + 3 * w90)
        b--;
    size_t m = b - a;
    if (m < MIN_N) {
        *out = res;
        return 0;
    }
    if (!isfinite(s[b - 1] - s[a])) /* the range itself is not a double */
        return VN_EINVAL;
    if (s[a] == s[b - 1]) {
        one_mode(&res, s[a]);
        *out = res;
        return 0;
    }

    size_t ny = m < MAXN ? m : MAXN;
    double *y = malloc(2 * ny * sizeof *y);
    grid *g = malloc(sizeof *g);
    if (!y || !g) {
        free(y);
        free(g);
        return VN_ENOMEM;
    }
    double *ys = y + ny;
    /* The test runs on the values mapped onto [0, 1], so that neither
     * their size nor their spread can overflow a sum or a square. */
    double base = s[a], scale = s[b - 1] - s[a];
    for (size_t i = 0; i < ny; i++)
        y[i] = (s[a + (size_t)(((double)i + 0.5) * (double)m / (double)ny)] - base) / scale;
    rng r;
    vn__srng_seed(&r, SEED);
    unlattice(y, ny, &r);

    sample d = {.y = y, .n = ny, .lo = INFINITY, .g = g};
    double hi = -INFINITY;
    for (size_t i = 0; i < ny; i++) {
        d.lo = fmin(d.lo, y[i]);
        hi = fmax(hi, y[i]);
        d.mean += y[i];
    }
    d.mean /= (double)ny;
    for (size_t i = 0; i < ny; i++)
        d.var += (y[i] - d.mean) * (y[i] - d.mean);
    d.var /= (double)(ny - 1);
    d.range = hi - d.lo;
    if (!(d.range / (MAXCORE - 1) > 0) || !(d.var > 0)) {
        /* Values a few units in the last place apart: one mode. */
        one_mode(&res, s[a + m / 2]);
        goto done;
    }

    size_t k = 1;
    double h;
    for (;; k++) {
        h = critical(&d, k);
        double p = boot_p(&d, k, h, ys, &r);
        if (k == 1) {
            res.h_crit = h * scale;
            res.p = p;
        }
        if (p >= ALPHA || k == VN_MODES_MAX)
            break;
    }

    /* The modes of the estimate at the critical bandwidth of k. */
    size_t at[VN_MODES_MAX];
    size_t c = data_modes(&d, h, at, res.share, VN_MODES_MAX);
    res.count = c < VN_MODES_MAX ? c : VN_MODES_MAX;
    for (size_t j = 0; j < res.count; j++)
        res.at[j] = base + (g->lo + (double)at[j] * g->step) * scale;
done:
    *out = res;
    free(y);
    free(g);
    return 0;
}
