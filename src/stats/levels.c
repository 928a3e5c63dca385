/* Two levels of an experiment (stats/levels.h).
 *
 * Each process contributes one value, its own estimate (a median of its
 * samples); the processes are the units. Their median is the headline:
 * the processes of one run often split into most that agree and a few in
 * another state of the machine (a neighbour's burst, a slower clock), and
 * such a few move a mean, and with it where the next run's answer seems to
 * be, but not a median. Its interval is the median's normal-theory one,
 * Student's t with k - 1 degrees of freedom on sqrt(pi / 2) times a
 * robust spread of the values, so that what moves between processes
 * (layout, the machine's state over seconds) and what the samples inside
 * each leave uncertain are both in it, with no model of the lower level
 * (Kalibera and Jones 2013, section 4). The mean and its t-interval are
 * kept for the arithmetic that needs a mean (ratios, the store). The
 * variance of each value from its own samples is only used to say how the
 * variation splits, and how to spend the next process's time. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "levels.h"
#include "vernier/base.h"
#include "stats/stats_api.h"


double vn__levels_serial(const double *x, size_t k)
{
    if (!x || k < 4)
        return 1;
    double m = 0;
    for (size_t i = 0; i < k; i++)
        m += x[i];
    m /= (double)k;
    double ss = 0, lag = 0;
    for (size_t i = 0; i < k; i++) {
        ss += (x[i] - m) * (x[i] - m);
        if (i + 1 < k)
            lag += (x[i] - m) * (x[i + 1] - m);
    }
    double rho = ss > 0 ? lag / ss : 0;
    rho = fmin(fmax(rho, 0), 0.8);
    /* At most 9 exactly: (1 + 0.8) / (1 - 0.8) rounds to 9.000000000000002,
     * past the bound the JSON schema states. */
    return fmin((1 + rho) / (1 - rho), 9);
}

double vn__levels_quantile(const double *s, size_t n, double p)
{
    double h = ((double)n + 1.0 / 3) * p + 1.0 / 3;
    if (h <= 1)
        return s[0];
    if (h >= (double)n)
        return s[n - 1];
    size_t i = (size_t)h;
    return s[i - 1] + (h - (double)i) * (s[i] - s[i - 1]);
}

int vn__levels_alike_at(double *a, size_t na, double *b, size_t nb, double p, double t,
                        int one_sided)
{
    if (!na || !nb)
        return 0;
    qsort(a, na, sizeof *a, vn__cmp_double);
    qsort(b, nb, sizeof *b, vn__cmp_double);
    double qa = vn__levels_quantile(a, na, p), qb = vn__levels_quantile(b, nb, p);
    double d = qb / qa - 1;
    return qa > 0 && qb > 0 && (one_sided ? d : fabs(d)) <= t;
}

double vn__qn(const double *x, size_t k)
{
    if (!x || k < 2)
        return NAN;
    size_t np = k * (k - 1) / 2, h = k / 2 + 1, n = 0;
    double *d = malloc(np * sizeof *d);
    if (!d)
        return NAN;
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++)
            d[n++] = fabs(x[i] - x[j]);
    qsort(d, np, sizeof *d, vn__cmp_double);
    double q = d[h * (h - 1) / 2 - 1];
    free(d);
    /* Croux and Rousseeuw's factors that make it unbiased at few values. */
    static const double small[] = {0, 0, 0.399, 0.994, 0.512, 0.844, 0.611, 0.857, 0.669, 0.872};
    double c = k < 10 ? small[k] : (double)k / ((double)k + (k % 2 ? 1.4 : 3.8));
    return 2.2219 * q * c;
}

/* The half-width of the median's interval (vn__levels.median_lo) with no
 * serial correlation, no narrower than floor gives (below): t times the
 * median's standard error, Maritz and Jarrett's where o asks for it, else
 * sqrt(VN__MEDIAN_VAR / k) times a sigma of the values. */
static double median_half(const double *value, const double *sorted, size_t k, double sd,
                          double floor, const vn__levels_opts *o)
{
    double t = vn_t975((double)(k - 1)), root = sqrt(VN__MEDIAN_VAR / (double)k);
    double se = o->mj && k >= 5 ? vn__levels_mj_se(sorted, k) : NAN;
    if (se > 0)
        return fmax(t * se, VN__Z975 * floor * root);
    double sigma = sd;
    if (k >= 5) {
        double iqr = vn__levels_quantile(sorted, k, 0.75) - vn__levels_quantile(sorted, k, 0.25);
        double q = o->qn ? vn__qn(value, k) : NAN;
        if (q > 0)
            sigma = q;
        else if (iqr > 0)
            sigma = iqr / 1.349;
    }
    return fmax(t * sigma, VN__Z975 * floor) * root;
}

#define BATCHES 4

double vn__levels_batch_factor(const double *x, size_t k, double half)
{
    return vn__levels_batch_factor_at(x, k, half, 0);
}

double vn__levels_batch_factor_at(const double *x, size_t k, double half, double p)
{
    if (!x || k < 2 * BATCHES || !(half > 0))
        return 1;
    double m[BATCHES], mean = 0, ss = 0;
    for (size_t b = 0; b < BATCHES; b++) {
        size_t from = b * k / BATCHES, to = (b + 1) * k / BATCHES;
        double *s = vn__sorted_copy(x + from, to - from);
        if (!s)
            return 1;
        size_t n = to - from;
        m[b] = p > 0 ? vn__levels_quantile(s, n, p) : vn_percentile_sorted(s, n, 50);
        free(s);
        mean += m[b] / BATCHES;
    }
    for (size_t b = 0; b < BATCHES; b++)
        ss += (m[b] - mean) * (m[b] - mean);
    /* Variances compared, not half-widths: the batches' standard error
     * against the one half gives (half over its own Student's t). Their
     * half-widths carry t for 3 degrees of freedom against t for k - 1,
     * so with no correlation at all their squared ratio is about (3.18 /
     * 2.09)^2 = 2.3 times a chi-square over its degrees of freedom at 20
     * values: in simulated runs of independent values, over 2 in 15-43%
     * of them (8 to 20 values), widening the interval by 18-40% on
     * average; as variances, over 2 in 4-5%, widening by 5-8%. Replayed
     * on 38 set-conditions of bench/coverage.sh (bench/RESULTS.md,
     * 2026-11-30): as many under the coverage goal, 28 workload-conditions
     * wider than the runs' half-range plus the precision against 35. At
     * 20 processes it costs width (9 against 3 of 96 recomputed), but run
     * both ways in a noisy hour (2026-12-01) the chase compared with
     * itself failed 5 and 3 times in 40 without it, once with it. */
    double bse = sqrt(ss / (BATCHES - 1) / BATCHES);
    double se = half / vn_t975((double)(k - 1));
    double f = (bse / se) * (bse / se);
    return fmin(fmax(f, 1), 9);
}

double vn__levels_sign_batch_factor(const double *x, size_t k, double median)
{
    if (!x || k < 2 * BATCHES || !isfinite(median))
        return 1;
    double b[BATCHES], all = 0, mean = 0, ss = 0;
    for (size_t j = 0; j < BATCHES; j++) {
        size_t from = j * k / BATCHES, to = (j + 1) * k / BATCHES;
        double up = 0;
        for (size_t i = from; i < to; i++)
            up += x[i] > median ? 1 : x[i] == median ? 0.5 : 0;
        all += up;
        b[j] = up / (double)(to - from);
        mean += b[j] / BATCHES;
    }
    for (size_t j = 0; j < BATCHES; j++)
        ss += (b[j] - mean) * (b[j] - mean);
    double p = all / (double)k, base = p * (1 - p) / ((double)k / BATCHES);
    if (!(base > 0))
        return 1;
    return fmin(fmax(ss / (BATCHES - 1) / base, 1), 9);
}

double vn__levels_share_factor(const double *x, size_t k, double q)
{
    if (!x || k < 4 || !isfinite(q))
        return 1;
    double *side = malloc(k * sizeof *side);
    if (!side)
        return vn__levels_sign_batch_factor(x, k, q);
    for (size_t i = 0; i < k; i++)
        side[i] = x[i] > q ? 1 : x[i] == q ? 0.5 : 0;
    /* All on one side: no share varies, and the lag-1 factor of a
     * constant series is 1. */
    double f = vn__levels_serial(side, k);
    free(side);
    return fmax(f, vn__levels_sign_batch_factor(x, k, q));
}

int vn__levels_rank_interval(const double *x, const double *s, size_t k, double p, double *lo,
                             double *hi)
{
    if (!x || !s || !lo || !hi || k < 2 || !(p > 0 && p < 1))
        return VN_EINVAL;
    double f = vn__levels_share_factor(x, k, vn__levels_quantile(s, k, p));
    double at = (double)k * p, d = VN__Z975 * sqrt(at * (1 - p) * f);
    /* Ranks from 1, outward to whole ones, within the values. */
    double l = fmax(floor(at - d), 1), u = fmin(ceil(at + d), (double)k);
    *lo = s[(size_t)l - 1];
    *hi = s[(size_t)u - 1];
    return 0;
}

/* [*lo, *hi] no narrower than the p-quantile's rank interval where o asks
 * for it (vn__levels_opts ranks). */
static void rank_widen(const double *x, const double *s, size_t k, double p,
                       const vn__levels_opts *o, double *lo, double *hi)
{
    double rlo, rhi;
    if (o->ranks && vn__levels_rank_interval(x, s, k, p, &rlo, &rhi) == 0) {
        *lo = fmin(*lo, rlo);
        *hi = fmax(*hi, rhi);
    }
}

double vn__levels_mj_se(const double *s, size_t k)
{
    return vn__levels_mj_se_at(s, k, (k + 1) / 2);
}

double vn__levels_mj_se_at(const double *s, size_t k, size_t m)
{
    if (!s || k < 2 || m < 1 || m > k)
        return NAN;
    double a = (double)m, b = (double)k - a + 1, prev = 0, c1 = 0, c2 = 0;
    /* About the m-th value, so that the two moments do not cancel. */
    double mid = s[m - 1];
    for (size_t i = 1; i <= k; i++) {
        double cdf = vn__ibeta(a, b, (double)i / (double)k, (double)(k - i) / (double)k);
        double w = cdf - prev, d = s[i - 1] - mid;
        prev = cdf;
        c1 += w * d;
        c2 += w * d * d;
    }
    return sqrt(fmax(c2 - c1 * c1, 0));
}

/* P of a one-way analysis of variance of the ranks of x[0..k) (ties
 * their mean rank) between the 4 batches vn__levels_batch_factor cuts:
 * whether the batches differ beyond chance. 1 for fewer than 8 values. */
static double batches_differ_p(const double *x, size_t k)
{
    if (k < 2 * BATCHES)
        return 1;
    double *r = malloc(k * sizeof *r);
    if (!r)
        return 1;
    for (size_t i = 0; i < k; i++) {
        double below = 0, same = 0;
        for (size_t j = 0; j < k; j++)
            below += x[j] < x[i], same += x[j] == x[i];
        r[i] = below + (same + 1) / 2;
    }
    double grand = ((double)k + 1) / 2, ssb = 0, ssw = 0;
    for (size_t b = 0; b < BATCHES; b++) {
        size_t from = b * k / BATCHES, to = (b + 1) * k / BATCHES;
        double m = 0;
        for (size_t i = from; i < to; i++)
            m += r[i] / (double)(to - from);
        ssb += (double)(to - from) * (m - grand) * (m - grand);
        for (size_t i = from; i < to; i++)
            ssw += (r[i] - m) * (r[i] - m);
    }
    free(r);
    double d1 = BATCHES - 1, d2 = (double)k - BATCHES;
    if (!(ssw > 0))
        return ssb > 0 ? 0 : 1;
    double f = (ssb / d1) / (ssw / d2);
    return vn__ibeta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f), d1 * f / (d2 + d1 * f));
}

/* The factor on the variance of an estimate over x[0..k) in the order the
 * values were taken: runs of like values (lag 1) or states that last a few
 * values (batches, the estimate's batch factor, where the batches differ
 * with p below gate), the larger. */
static double serial_factor(const double *x, size_t k, double gate, double batches)
{
    int on = gate >= 1 || batches_differ_p(x, k) < gate;
    return fmax(vn__levels_serial(x, k), on ? batches : 1);
}

/* The root of the median of the finite variances var[0..k); 0 for none. */
static double within_floor(const double *var, size_t k)
{
    double m = var ? vn__median_of(var, k) : NAN;
    return m > 0 ? sqrt(m) : 0;
}

double vn__levels_quantile_var(double p)
{
    if (!(p > 0 && p < 1))
        return NAN;
    double z = 0; /* the normal's p-quantile, by Newton's method from 0 */
    for (int i = 0; i < 50; i++) {
        double f = 0.5 * erfc(-z / M_SQRT2) - p, d = exp(-z * z / 2) / sqrt(2 * M_PI);
        z -= f / d;
        if (fabs(f) < 1e-15)
            break;
    }
    double d = exp(-z * z / 2) / sqrt(2 * M_PI);
    return p * (1 - p) / (d * d);
}

/* The values' o->low quantile and its interval into l (stats/levels.h):
 * Maritz and Jarrett's standard error at order statistic m = pk rounded
 * (as Wilcox takes it) from 5 values, the normal-theory one on sd below;
 * no narrower than the floor gives; widened by the serial factor with the
 * batches' own quantiles; no narrower than its rank interval where o asks
 * for it. */
static void low_of(const double *value, const double *sorted, size_t k, double sd, double least,
                   const vn__levels_opts *o, vn__levels *l)
{
    double t = vn_t975((double)(k - 1)), root = sqrt(vn__levels_quantile_var(o->low) / (double)k);
    double m = floor(o->low * (double)k + 0.5);
    double se = k >= 5 ? vn__levels_mj_se_at(sorted, k, (size_t)fmin(fmax(m, 1), (double)k)) : NAN;
    double half = se > 0 ? t * se : t * sd * root;
    half = fmax(half, VN__Z975 * least * root);
    l->low = vn__levels_quantile(sorted, k, o->low);
    double batches = vn__levels_batch_factor_at(value, k, half, o->low);
    l->serial = serial_factor(value, k, o->gate, batches);
    half *= sqrt(l->serial);
    l->low_lo = l->low - half;
    l->low_hi = l->low + half;
    rank_widen(value, sorted, k, o->low, o, &l->low_lo, &l->low_hi);
}

int vn__levels_compute(const double *value, const double *var, size_t k, vn__levels *out)
{
    static const vn__levels_opts defaults = {.gate = 1};
    return vn__levels_compute_with(value, var, k, &defaults, out);
}

int vn__levels_compute_with(const double *value, const double *var, size_t k,
                            const vn__levels_opts *o, vn__levels *out)
{
    if (!value || !out || !o || k == 0)
        return VN_EINVAL;
    double sum = 0, vsum = 0;
    size_t nv = 0;
    for (size_t i = 0; i < k; i++) {
        if (!isfinite(value[i]))
            return VN_EINVAL;
        sum += value[i];
        if (var && isfinite(var[i]) && var[i] >= 0) {
            vsum += var[i];
            nv++;
        }
    }
    double *sorted = vn__sorted_copy(value, k);
    if (!sorted)
        return VN_ENOMEM;
    vn__levels l = {.k = k, .mean = sum / (double)k, .lo = NAN, .hi = NAN, .sd = NAN,
                    .within = nv ? vsum / (double)nv : NAN, .between = NAN, .share = NAN,
                    .serial = 1, .median_lo = NAN, .median_hi = NAN,
                    .low = NAN, .low_lo = NAN, .low_hi = NAN,
                    .median = vn_percentile_sorted(sorted, k, 50)};
    if (k >= 2) {
        double ss = 0;
        for (size_t i = 0; i < k; i++)
            ss += (value[i] - l.mean) * (value[i] - l.mean);
        l.sd = sqrt(ss / (double)(k - 1));
        /* Values that each carry their own sampling variance vary at
         * least that much from one to the next: a few that agree more
         * closely did so by chance (three processes of a 1 ms sleep within
         * 0.1% of each other, whose next run lay 0.5% away). So the
         * interval is no narrower than the one that variance alone gives,
         * the within level's share of the between level in Kalibera and
         * Jones's model: the root of the variances' median (as the
         * headline is a median: one process of few samples far apart does
         * not widen all) with the normal quantile, as it rests on all the
         * processes' samples, not on k - 1 degrees of freedom. Below 8
         * processes only: from there on their spread is estimated well
         * enough (in simulated runs of independent processes the floor
         * then only widened intervals that held already), and the batch
         * medians take over. */
        double floor = k < 2 * BATCHES ? within_floor(var, k) : 0;
        double half = fmax(vn_t975((double)(k - 1)) * l.sd, VN__Z975 * floor) / sqrt((double)k);
        half *= sqrt(serial_factor(value, k, o->gate, vn__levels_batch_factor(value, k, half)));
        l.lo = l.mean - half;
        l.hi = l.mean + half;
        double mhalf = median_half(value, sorted, k, l.sd, floor, o);
        l.serial = serial_factor(value, k, o->gate,
                                 o->signs ? vn__levels_sign_batch_factor(value, k, l.median)
                                          : vn__levels_batch_factor(value, k, mhalf));
        mhalf *= sqrt(l.serial);
        l.median_lo = l.median - mhalf;
        l.median_hi = l.median + mhalf;
        rank_widen(value, sorted, k, 0.5, o, &l.median_lo, &l.median_hi);
        if (o->low > 0 && o->low < 0.5)
            low_of(value, sorted, k, l.sd, floor, o, &l);
        if (isfinite(l.within)) {
            l.between = fmax(0, l.sd * l.sd - l.within);
            double all = l.between + l.within;
            l.share = all > 0 ? l.between / all : 0;
        }
    }
    free(sorted);
    *out = l;
    return 0;
}

/* A time above 0 is never below it: an interval of one that reaches below
 * 0 (a few processes far apart, Student's t with one or two degrees of
 * freedom) holds every time from 0 up, and says so with 0 rather than with
 * a negative time. A value at or below 0 keeps its bound. */
static double above_zero(double value, double lo)
{
    return value > 0 && lo < 0 ? 0 : lo;
}

void vn__levels_next_run(double value, double *lo, double *hi)
{
    const double w = sqrt(2);
    if (!isfinite(value))
        return;
    if (value > 0 && *lo > 0 && *hi > 0) {
        *lo = value * pow(*lo / value, w);
        *hi = value * pow(*hi / value, w);
    } else {
        *lo = value - w * (value - *lo);
        *hi = value + w * (*hi - value);
    }
    *lo = above_zero(value, *lo);
}

void vn__levels_intervals(double value, double lo, double hi, double est[2], double next[2])
{
    est[0] = above_zero(value, lo);
    next[0] = lo;
    est[1] = next[1] = hi;
    vn__levels_next_run(value, &next[0], &next[1]);
}

double vn__levels_next_half(double var) { return VN__Z975 * sqrt(2 * var); }

double vn__median_var(double lo, double hi)
{
    double h = (hi - lo) / (2 * VN__Z975);
    return isfinite(h) ? h * h : NAN;
}

/* The mean and variance of the logs of x[0..n); VN_ERANGE when a value is
 * not above 0. */
static int log_moments(const double *x, size_t n, double *mean, double *var)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0) || !isfinite(x[i]))
            return VN_ERANGE;
        s += log(x[i]);
    }
    *mean = s / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (log(x[i]) - *mean) * (log(x[i]) - *mean);
    *var = n >= 2 ? ss / (double)(n - 1) : NAN;
    /* The units in the order they ran: runs of like values widen the
     * variance of their mean (vn__levels_serial), and so do states that
     * last a few of them (vn__levels_batch_factor), as in the headline's
     * interval. */
    double *l = n >= 4 ? malloc(n * sizeof *l) : NULL;
    if (l) {
        for (size_t i = 0; i < n; i++)
            l[i] = log(x[i]);
        double half = vn_t975((double)(n - 1)) * sqrt(*var / (double)n);
        *var *= serial_factor(l, n, 1, vn__levels_batch_factor(l, n, half));
        free(l);
    }
    return 0;
}

int vn__levels_ratio_unpaired(const double *a, size_t na, const double *b, size_t nb, double *ratio,
                              double *lo, double *hi)
{
    if (!a || !b || na == 0 || nb == 0)
        return VN_EINVAL;
    double ma, va, mb, vb;
    int rc = log_moments(a, na, &ma, &va);
    if (rc == 0)
        rc = log_moments(b, nb, &mb, &vb);
    if (rc)
        return rc;
    *ratio = exp(mb - ma);
    *lo = *hi = NAN;
    if (na < 2 || nb < 2)
        return 0;
    /* Welch's interval: each side's own variance, and the
     * Welch-Satterthwaite degrees of freedom. */
    double sa = va / (double)na, sb = vb / (double)nb, se2 = sa + sb;
    if (!(se2 > 0)) {
        *lo = *hi = *ratio;
        return 0;
    }
    double df = se2 * se2 / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
    double half = vn_t975(fmax(1, df)) * sqrt(se2);
    *lo = exp(mb - ma - half);
    *hi = exp(mb - ma + half);
    return 0;
}

size_t vn__levels_samples(double fixed_ns, double sample_ns, double within, double between,
                          size_t lo, size_t hi)
{
    if (hi < lo)
        hi = lo;
    if (!(between > 0) || !(within >= 0) || !(sample_ns > 0) || !(fixed_ns >= 0))
        return isfinite(between) && between == 0 ? hi : lo;
    double r = sqrt(fixed_ns * within / (sample_ns * between));
    if (!(r >= (double)lo))
        return lo;
    if (r >= (double)hi)
        return hi;
    return (size_t)ceil(r);
}

size_t vn__levels_needed(double var, double half, size_t k_from, size_t k_max)
{
    if (k_from < 2)
        k_from = 2;
    if (!(var >= 0) || !(half > 0))
        return k_max;
    for (size_t k = k_from; k < k_max; k++)
        if (vn_t975((double)(k - 1)) * sqrt(var / (double)k) <= half)
            return k;
    return k_max;
}

/* Whether v (sum of squares vv) varies less than u (vu) beyond chance, by
 * the share gain, given their cross products cuv over n pairs; u_varies
 * says u moves beyond the rounding of its logs (else there is nothing for
 * v to be steadier than). */
static int one_way(double vu, double vv, double cuv, size_t n, double gain, int u_varies)
{
    if (!u_varies || !(vu > 0) || vv > gain * vu)
        return 0;
    /* corr(u + v, u - v) from the sums of squares. */
    double cov = vu - vv, vs = vu + vv + 2 * cuv, vd = vu + vv - 2 * cuv;
    if (!(vs > 0) || !(vd > 0))
        return vv < vu;
    double r = cov / sqrt(vs * vd);
    if (!(r > 0))
        return 0;
    if (r >= 1)
        return 1;
    double t = r * sqrt((double)(n - 2)) / sqrt(1 - r * r);
    return t > vn_t975((double)(n - 2));
}

int vn__levels_which_steadier_in(const double *a, const double *b, const size_t *len,
                                 size_t groups, double gain)
{
    size_t n = 0;
    for (size_t g = 0; len && g < groups; g++)
        n += len[g];
    if (!a || !b || !groups || n < groups + 3)
        return 0;
    /* With u = ln a and v = ln b, each less its group's mean, cov(u + v,
     * u - v) = var u - var v: the variances are equal exactly when the sum
     * and the difference are uncorrelated, which Pearson's t-test with
     * n - groups - 1 degrees of freedom tests, either way round from the
     * same sums. */
    double vu = 0, vv = 0, cuv = 0;
    int a_varies = 0, b_varies = 0;
    for (size_t g = 0, at = 0; g < groups; at += len[g++]) {
        double su = 0, sv = 0, alo = INFINITY, ahi = 0, blo = INFINITY, bhi = 0;
        for (size_t i = at; i < at + len[g]; i++) {
            if (!(a[i] > 0) || !(b[i] > 0) || !isfinite(a[i]) || !isfinite(b[i]))
                return 0;
            su += log(a[i]);
            sv += log(b[i]);
            alo = fmin(alo, a[i]);
            ahi = fmax(ahi, a[i]);
            blo = fmin(blo, b[i]);
            bhi = fmax(bhi, b[i]);
        }
        double mu = len[g] ? su / (double)len[g] : 0, mv = len[g] ? sv / (double)len[g] : 0;
        for (size_t i = at; i < at + len[g]; i++) {
            double u = log(a[i]) - mu, v = log(b[i]) - mv;
            vu += u * u;
            vv += v * v;
            cuv += u * v;
        }
        a_varies |= ahi - alo > 1e-9 * ahi;
        b_varies |= bhi - blo > 1e-9 * bhi;
    }
    size_t m = n - groups + 1; /* one_way's n - 2 */
    if (one_way(vu, vv, cuv, m, gain, a_varies))
        return 1;
    return one_way(vv, vu, cuv, m, gain, b_varies) ? -1 : 0;
}

int vn__levels_which_steadier(const double *a, const double *b, size_t n, double gain)
{
    return vn__levels_which_steadier_in(a, b, &n, 1, gain);
}
