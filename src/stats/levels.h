/* Two levels of an experiment: processes, each a fresh address-space
 * layout and a stretch of the machine's time, then samples inside each
 * (Kalibera and Jones, "Rigorous Benchmarking in Reasonable Time", ISMM
 * 2013). Pure arithmetic on the processes' own estimates: the intervals of
 * their mean and median, how the variation splits between the levels, and how a time
 * budget is best split between more processes and more samples in each.
 * Private to the library (the engine and the comparison use it). */
#ifndef VN_STATS_LEVELS_H
#define VN_STATS_LEVELS_H

#include <math.h>
#include <stddef.h>

/* Processes' estimates together. */
typedef struct vn__levels {
    size_t k;          /* processes */
    double mean;       /* the mean of their values */
    double lo, hi;     /* its 95% Student t-interval, k - 1 degrees of freedom, its variance
                          times the larger of vn__levels_serial and
                          vn__levels_batch_factor for the mean; NAN for k < 2 */
    double sd;         /* the values' standard deviation across processes (NAN for k < 2) */
    double within;     /* the mean variance of one value from its own samples (NAN unknown) */
    double between;    /* the variance between processes beyond that: max(0, sd^2 - within) */
    double share;      /* between / (between + within): the share of one process's
                          variation that another process, not more samples, would see */
    double serial;     /* how much the order the processes ran in widens the variance of
                          the median: the larger of vn__levels_serial (runs of like
                          values) and vn__levels_batch_factor (states that last a few
                          processes) */
    double median;     /* the median of the values: the headline, which one process in
                          an unusual state moves no more than any other */
    double median_lo, median_hi; /* its 95% interval, NAN for k < 2: t(k - 1) x sigma x
                          sqrt(VN__MEDIAN_VAR x serial / k), the normal-theory standard
                          error of a median, sigma the values' interquartile range over
                          1.349 for k >= 5 (quartiles by Hyndman and Fan's definition 8,
                          whose sigma is nearly unbiased at these few values), so that a
                          tail of slow processes widens it no more than it moves the
                          median; sd for fewer values, or where the quartiles meet;
                          no narrower than its rank interval with opts ranks */
    double low;        /* with vn__levels_opts low: that quantile of the values
                          (vn__levels_quantile), else NAN; serial is then its own */
    double low_lo, low_hi; /* its 95% interval: t(k - 1) x Maritz and Jarrett's standard
                          error (vn__levels_mj_se_at, m = low x k rounded) x sqrt(serial)
                          from 5 values, t(k - 1) x sd x sqrt(vn__levels_quantile_var(low)
                          x serial / k) below; no narrower than its rank interval with
                          opts ranks; NAN for k < 2 */
} vn__levels;

/* The variance of the median of normal values over that of their mean:
 * what the median's interval (vn__levels) and the plan of how many
 * processes it needs take it to cost. */
#define VN__MEDIAN_VAR (M_PI / 2)

/* How much the variance of the mean of x[0..k), values in the order they
 * were taken, grows because neighbours are alike: a state of the machine
 * that lasts longer than one process (a neighbour's cache use, a shared
 * core) makes runs of like values, and the mean of k such values varies
 * as much as that of fewer independent ones. The lag-1 autocorrelation
 * rho of an AR(1) model gives the factor (1 + rho) / (1 - rho) (the
 * effective sample size of a correlated series, as in batch-means and
 * Newey-West variance estimates); rho is taken in [0, 0.8] (at most 9x,
 * as an estimate from a handful of values is itself rough) and the
 * factor is 1 for fewer than 4 values. */
double vn__levels_serial(const double *x, size_t k);

/* The levels of k values, with var[i] the variance of value i from its own
 * samples (NAN where unknown; var may be NULL). Below 8 values, the
 * intervals are no narrower than the median of those variances gives with
 * the normal quantile: values that agree more closely than their samples
 * allow did so by chance. VN_EINVAL for k = 0 or a value that is not
 * finite. */
int vn__levels_compute(const double *value, const double *var, size_t k, vn__levels *out);

/* How the median's interval reads the values, for experiments on the
 * engine (its policy's spread_qn, batch_gate, median_mj, batch_signs,
 * head_low and head_ranks):
 * qn 1 takes their spread as Rousseeuw and Croux's Qn (82% efficient at
 * the normal, against the quartiles' 37%, and its breakdown 50% against
 * 25%) in place of the interquartile range, from 5 values; gate below 1
 * applies the batch factor only where the values' ranks differ between
 * the 4 batches by a one-way analysis of variance with p below gate.
 * {.gate = 1}: vn__levels_compute's (the engine's headline adds low and
 * ranks by its policy). */
typedef struct vn__levels_opts {
    int qn;
    double gate;
    /* 1: from 5 values the median's standard error is Maritz and Jarrett's,
     * the exact bootstrap variance of the median (in place of sigma x
     * sqrt(VN__MEDIAN_VAR / k)); 0: the spread's normal-theory one. */
    int mj;
    /* 1: the median's batch factor is that of the signs about the median
     * (vn__levels_sign_batch_factor); 0: that of the batches' medians. */
    int signs;
    /* In (0, 0.5): also the values' low-th quantile with its interval
     * (vn__levels low): noise that only adds time, a neighbour or a
     * slower state of the host, moves a low quantile of the processes less
     * than their median (Chen and Revels, "Robust benchmarking in noisy
     * environments", 2016, take the minimum). 0: none. */
    double low;
    /* 1: the median's and the low quantile's intervals are each no
     * narrower than the one their ranks give (vn__levels_rank_interval):
     * where the processes fall in states far apart, the quantile can move
     * to the other state, which an error read from the values next to it
     * cannot see. 0: the standard error's alone. */
    int ranks;
} vn__levels_opts;

/* ranks as a run's headline has it by default (policy head_ranks): what
 * vernier compare takes when it recomputes the interval a run printed. */
#define VN__LEVELS_HEAD_RANKS 1
int vn__levels_compute_with(const double *value, const double *var, size_t k,
                            const vn__levels_opts *o, vn__levels *out);

/* The distribution-free 95% interval of the p-quantile (p in (0, 1)) of
 * x[0..k), values in the order they were taken, s the same sorted: how
 * many values lie at or below the quantile is binomial, k p on average
 * with variance k p (1 - p) times the factor vn__levels_share_factor
 * gives, so the interval runs between the order statistics of ranks
 * k p -+ 1.96 times its root, rounded outward and held within 1..k
 * (Conover's large-sample interval of a quantile, "Practical
 * Nonparametric Statistics", 3.2, with the effective count of a
 * correlated series). A state that lasts several processes changes how
 * many fall below the quantile, and where the values sit in two groups
 * far apart, that count decides in which group the quantile lies; one
 * far value counts only by its rank. VN_EINVAL for k < 2 or p out of
 * (0, 1). */
int vn__levels_rank_interval(const double *x, const double *s, size_t k, double p, double *lo,
                             double *hi);

/* How much the order the values were taken in widens the variance of the
 * share of x[0..k) at or below q: the larger of the lag-1 factor of
 * vn__levels_serial and the batch factor of the 4 batches' shares
 * (vn__levels_sign_batch_factor), both read from the 0/1 sequence, so
 * that values far out, which the values' own autocorrelation weighs by
 * their distance, count only by their side of q. In [1, 9]. */
double vn__levels_share_factor(const double *x, size_t k, double q);

/* Rousseeuw and Croux's Qn of x[0..k): the h(h - 1)/2-th smallest of the
 * distances between pairs, h = k/2 + 1, times 2.2219 and the small-sample
 * factor, a sigma of normal values; NAN for k < 2. */
double vn__qn(const double *x, size_t k);

/* The batch-means form of vn__levels_serial for the median of x[0..k),
 * values in the order they were taken: cut in 4 batches of k/4 in that
 * order, the spread of the 4 batch medians gives the median's variance
 * under serial correlation of any reach within the run, where a state
 * that lasts a few processes and then changes leaves the lag-1
 * autocorrelation small. Returned as the factor on the variance of the
 * median's own interval, half its half-width with no correlation (with
 * Student's t for k - 1 degrees of freedom): the ratio of the two
 * variances, in [1, 9]; 1 for fewer than 8 values.
 * (Batch means: Law and Kelton, "Simulation Modeling and Analysis".) */
double vn__levels_batch_factor(const double *x, size_t k, double half);

/* The same for the median read through its signs: by Bahadur's
 * representation the median moves as the share of values above it does,
 * so the factor is the variance of that share's 4 batch means (each value
 * 1 above the median, 0 below, 1/2 at it) over the binomial p(1 - p) /
 * (k/4) independent values would give, in [1, 9]; 1 for fewer than 8
 * values. A slow few that come together move a batch median far, and the
 * median of all of them no further than the share they change. */
double vn__levels_sign_batch_factor(const double *x, size_t k, double median);

/* The p-quantile of n sorted values s by Hyndman and Fan's definition 8:
 * position (n + 1/3) p + 1/3, linear between order statistics. */
double vn__levels_quantile(const double *s, size_t n, double p);

/* Whether two groups of values, a[0..na) and b[0..nb) (sorted here, in
 * place), read alike at their p-quantiles: b's within t of a's, or, with
 * one_sided, b's lower by any amount. 0 when either group is empty or a
 * quantile is not above 0. */
int vn__levels_alike_at(double *a, size_t na, double *b, size_t nb, double p, double t,
                        int one_sided);

/* The variance of the p-quantile of normal values over that of their
 * mean, p (1 - p) / phi(z_p)^2: pi / 2 at the median, 1.857 at the
 * quartile; NAN outside (0, 1). */
double vn__levels_quantile_var(double p);

/* vn__levels_batch_factor with the batches' p-quantiles (p in (0, 1),
 * vn__levels_quantile) in place of their medians; p = 0: their medians. */
double vn__levels_batch_factor_at(const double *x, size_t k, double half, double p);

/* Maritz and Jarrett's standard error of the m-th order statistic of
 * sorted s[0..k) (1 <= m <= k), as vn__levels_mj_se below at m; NAN
 * for k < 2 or m out of range. */
double vn__levels_mj_se_at(const double *s, size_t k, size_t m);

/* Maritz and Jarrett's (1978) standard error of the median of sorted
 * s[0..k): the exact bootstrap variance of its m-th order statistic (m =
 * (k + 1) / 2), each value weighted by the chance that it is the median of
 * k values drawn again from them, I_{i/k}(m, k - m + 1) less I_{(i-1)/k}.
 * A few values far off count by how often they would become the median,
 * not by how far off they are. NAN for k < 2. */
double vn__levels_mj_se(const double *s, size_t k);

/* The interval of the next run's estimate, from the interval [*lo, *hi]
 * of this run's around value, both runs of the same design: the next
 * estimate differs from this one by both runs' errors, so the half-widths
 * grow by sqrt(1 + k/k') = sqrt(2) (the prediction interval of a new
 * mean, t s sqrt(1/k + 1/k')). On the log scale when all three are above
 * 0, so a wide interval of a time stays above 0; each side its own. For a
 * value above 0 whose interval reaches below 0, linear, its lower end then
 * 0: the values it describes (times, rates) are never below 0. NAN ends
 * stay NAN. */
void vn__levels_next_run(double value, double *lo, double *hi);

/* An interval's wider half as a share of its value above 0 (0.01: +-1%),
 * the measure the precision asked is held to; NAN without one. */
static inline double vn__levels_half_share(double value, double lo, double hi)
{
    return value > 0 && isfinite(lo) ? fmax(value - lo, hi - value) / value : NAN;
}

/* A headline's two intervals from the estimate's [lo, hi] around value:
 * est as it is (what the precision asked is held to) but for a lower end
 * below 0 of a value above 0, which is 0, next for the next run
 * (vn__levels_next_run), the one every report shows. */
void vn__levels_intervals(double value, double lo, double hi, double est[2], double next[2]);

/* The half-width of the 95% interval of a next run around this one when
 * one run's value varies with variance var from run to run (its own error
 * included): 1.96 sqrt(2 var), the spread of the difference of two runs.
 * In var's scale (the logs' for a variance of logs). */
double vn__levels_next_half(double var);

/* The variance of a median of n samples, from the half-width of its 95%
 * interval: a normal approximation, ((hi - lo) / (2 x 1.96))^2. */
double vn__median_var(double lo, double hi);

/* The log of each value's ratio, their median and its interval (as
 * vn__levels has them), back in ratios: the ratio between two rows
 * measured in the same k processes (num[i] / den[i] in process i). VN_ERANGE
 * when a value is not above 0. */
int vn__levels_ratio(const double *num, const double *den, size_t k, double *ratio, double *lo,
                     double *hi);

/* The same for two independent sets of processes (two runs): the ratio of
 * the geometric means of b and a, with Welch's t-interval of the
 * difference of the mean logs. NAN ends when either side has fewer than 2. */
int vn__levels_ratio_unpaired(const double *a, size_t na, const double *b, size_t nb, double *ratio,
                              double *lo, double *hi);

/* The ratio of two independent sets' headlines (two runs' processes):
 * each set's low quantile (low in (0, 0.5)), else its median, b's over
 * a's; its interval from the interval each headline has on its own
 * (vn__levels_compute_with: Maritz and Jarrett's error, the serial
 * factor), their half-widths on the log scale added in quadrature. A
 * headline whose interval reaches 0 has the lower half-width the delta
 * method gives, its half-width over the value. The two headlines, a's
 * then b's, into head unless it is NULL. NAN ends when either side has
 * fewer than 2; VN_ERANGE when a value is not above 0. */
int vn__levels_ratio_headlines(const double *a, size_t na, const double *b, size_t nb, double low,
                               double head[2], double *ratio, double *lo, double *hi);

/* The same from summaries alone, each side's mean, standard deviation and
 * count (Google Benchmark's aggregates): the ratio mb / ma, with Welch's
 * t-interval of the difference of the log means, each log mean's variance
 * taken as (s / m)^2 / n (the delta method), and the two-sided p-value of
 * Welch's t-test on that scale. NAN ends and p with fewer than 2 a side
 * or a deviation unknown; VN_ERANGE when a mean is not above 0. */
int vn__levels_ratio_summary(double ma, double sa, size_t na, double mb, double sb, size_t nb,
                             double *ratio, double *lo, double *hi, double *p);

/* Kalibera and Jones's split of a budget between the levels. What one more
 * process costs before its first sample (calibration, warmup, the empty
 * loop) is fixed_ns, each sample sample_ns; per-sample variance scale
 * (the variance of a process's value times its samples) within, variance
 * between processes between. The samples per process that make the mean
 * most precise for the time: sqrt(fixed x within / (sample x between)),
 * within [lo, hi]; hi when nothing varies between processes. */
size_t vn__levels_samples(double fixed_ns, double sample_ns, double within, double between,
                          size_t lo, size_t hi);

/* The fewest processes, from k_from up to k_max, whose t-interval would be
 * within +-half of the mean when each process's value varies with
 * variance var: t(k - 1) x sqrt(var / k) <= half; k_max when none is. */
size_t vn__levels_needed(double var, double half, size_t k_from, size_t k_max);

/* Which of a[i] and b[i] varies less over n pairs measured together (a
 * unit's time in ns and in reference cycles, say), beyond chance: the
 * Pitman-Morgan test of two paired variances (Pitman 1939, Morgan 1939),
 * on the logs, one-sided at 2.5% either way, and by at least the share
 * gain of the variance (the steadier's at most gain x the other's). 1: b
 * varies less; -1: a does; 0: neither, fewer than 4 pairs, or a value not
 * above 0. */
int vn__levels_which_steadier(const double *a, const double *b, size_t n, double gain);

/* The gain the engine's unit of a row (policy cycles_gain) and compare's
 * unit of a row take by default: the steadier's variance at most half the
 * other's. */
#define VN__LEVELS_STEADIER_GAIN 0.5

/* The same over pairs in groups (len[g] pairs each, one after another in
 * a and b: the processes of two runs, say), each group about its own
 * means: what varies inside the groups, a shift between them left out. */
int vn__levels_which_steadier_in(const double *a, const double *b, const size_t *len,
                                 size_t groups, double gain);

#endif
