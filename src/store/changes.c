/* E-Divisive on the means (changes.h). With alpha = 2 the energy
 * statistic of a split at t of n values is t (n - t) / n times the squared
 * difference of the two sides' means; the best split of a segment is the
 * largest. Taken on the logs of the results, each far off its neighbours
 * replaced by their median: on planted series (tests/cli/
 * test_history_otava.py) a 10% shift behind two outliers was missed on the
 * raw values, by vernier and by Apache Otava alike. Ranks found it too,
 * but a shift in the last few results (a new regression) cannot reach
 * significance on ranks, whose extremes the middle splits outweigh. Splits are added one at a time, the best over every segment
 * first (hierarchical, as the E-Divisive paper does), and each must beat
 * the same statistic on permutations of its segment: the series' own
 * scatter, not a model of it, sets the bar, so a noisy series needs a
 * larger move. A shift is reported as a ratio of the segments' geometric
 * means. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/internal.h"
#include "stats/levels.h"
#include "store/changes.h"
#include "vernier/base.h"
#include "vernier/bench.h"
#include "stats/stats_api.h"

/* The best split of v[0..n) and its statistic, from prefix sums. */
static double best_split(const double *v, size_t n, size_t min_size, size_t *at)
{
    double total = 0, left = 0, best = -1;
    for (size_t i = 0; i < n; i++)
        total += v[i];
    *at = 0;
    for (size_t t = 1; t < n; t++) {
        left += v[t - 1];
        if (t < min_size || n - t < min_size)
            continue;
        double d = left / (double)t - (total - left) / (double)(n - t);
        double q = (double)t * (double)(n - t) / (double)n * d * d;
        if (q > best) {
            best = q;
            *at = t;
        }
    }
    return best;
}

/* The permutation test of the best split of v[0..n): the share of
 * shuffles whose best split is at least as strong, (1 + k) / (1 + perms).
 * It stops as soon as k shows p above pmax (Besag and Clifford's
 * sequential test), and then returns an estimate above pmax: most splits
 * tested are not changes, and are told so after a few shuffles. */
static double p_value(const double *v, size_t n, size_t min_size, double q, size_t perms,
                      double pmax, vn_rng *g, double *tmp)
{
    size_t ge = 0, enough = (size_t)(pmax * (double)(perms + 1));
    memcpy(tmp, v, n * sizeof *tmp);
    for (size_t r = 0; r < perms; r++) {
        if (ge > enough)
            return (1.0 + (double)ge) / (1.0 + (double)r);
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)(vn_rng_double(g) * (double)(i + 1));
            if (j > i)
                j = i;
            double t = tmp[i];
            tmp[i] = tmp[j];
            tmp[j] = t;
        }
        size_t at;
        ge += best_split(tmp, n, min_size, &at) >= q * (1 - 1e-12);
    }
    return (1.0 + (double)ge) / (1.0 + (double)perms);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *s, size_t n)
{
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* log x[i] into l, a Hampel filter over it: a result further than 4
 * robust deviations (1.4826 x the MAD of every result's distance to the
 * median of its window of 5) from its window's median becomes that
 * median. A shift moves whole windows with it, an outlier only itself. */
static int hampel_logs(const double *x, size_t n, double *l)
{
    double *med = malloc(2 * n * sizeof *med);
    if (!med)
        return VN_ENOMEM;
    double *r = med + n, w[5];
    for (size_t i = 0; i < n; i++)
        l[i] = log(x[i]);
    for (size_t i = 0; i < n; i++) {
        size_t a = i >= 2 ? i - 2 : 0, b = i + 3 < n ? i + 3 : n, k = 0;
        for (size_t j = a; j < b; j++)
            w[k++] = l[j];
        qsort(w, k, sizeof *w, by_value);
        med[i] = median_sorted(w, k);
        r[i] = fabs(l[i] - med[i]);
    }
    double *s = malloc(n * sizeof *s);
    if (!s) {
        free(med);
        return VN_ENOMEM;
    }
    memcpy(s, r, n * sizeof *s);
    qsort(s, n, sizeof *s, by_value);
    double sigma = 1.4826 * median_sorted(s, n);
    free(s);
    for (size_t i = 0; sigma > 0 && i < n; i++)
        if (r[i] > 4 * sigma)
            l[i] = med[i];
    free(med);
    return 0;
}

static int by_index(const void *a, const void *b)
{
    const vn__store_change *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

int vn__store_changes_find(const double *x, size_t n, double pmax, size_t perms, size_t min_size,
                           uint64_t seed, vn__store_changes *out)
{
    memset(out, 0, sizeof *out);
    if (!x || !(pmax > 0) || min_size < 1)
        return VN_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0) || !isfinite(x[i]))
            return VN_EINVAL;
    if (n < 2 * min_size)
        return 0;
    double *l = malloc(2 * n * sizeof *l);
    size_t *cut = malloc((n + 1) * sizeof *cut); /* segment bounds, sorted */
    vn__store_change *at = malloc(n * sizeof *at);
    if (!l || !cut || !at) {
        free(l);
        free(cut);
        free(at);
        return VN_ENOMEM;
    }
    /* The statistic on the logs, a result far off its neighbours replaced
     * by their median (a Hampel filter): one run that met a noisy
     * neighbour would move a mean without bound, and hide a shift or make
     * one. */
    if (hampel_logs(x, n, l) != 0) {
        free(l);
        free(cut);
        free(at);
        return VN_ENOMEM;
    }
    double *tmp = l + n;
    vn_rng g;
    vn_rng_seed(&g, seed);
    size_t ncut = 2, nch = 0;
    cut[0] = 0;
    cut[1] = n;
    for (;;) {
        /* The strongest split over every segment. */
        double best = -1;
        size_t seg = 0, split = 0;
        for (size_t s = 0; s + 1 < ncut; s++) {
            size_t a = cut[s], len = cut[s + 1] - a, t;
            if (len < 2 * min_size)
                continue;
            double q = best_split(l + a, len, min_size, &t);
            if (q > best) {
                best = q;
                seg = s;
                split = a + t;
            }
        }
        if (!(best > 0))
            break;
        size_t a = cut[seg], b = cut[seg + 1];
        double p = p_value(l + a, b - a, min_size, best, perms, pmax, &g, tmp);
        if (p > pmax)
            break;
        /* The shift: the segment after over the one before, with Welch's
         * interval of the ratio of their geometric means. */
        vn__store_change *c = &at[nch++];
        c->index = split;
        c->p = p;
        if (vn__levels_ratio_unpaired(x + a, split - a, x + split, b - split, &c->ratio, &c->lo,
                                      &c->hi) != 0)
            c->ratio = c->lo = c->hi = NAN;
        memmove(cut + seg + 2, cut + seg + 1, (ncut - seg - 1) * sizeof *cut);
        cut[seg + 1] = split;
        ncut++;
    }
    free(l);
    free(cut);
    qsort(at, nch, sizeof *at, by_index);
    /* Each shift against its neighbours in the final segmentation: the
     * segment before it and the one after, as a reader compares them. */
    if (nch) {
        for (size_t i = 0; i < nch; i++) {
            size_t a = i ? at[i - 1].index : 0, s = at[i].index, b = i + 1 < nch ? at[i + 1].index : n;
            double p = at[i].p;
            if (vn__levels_ratio_unpaired(x + a, s - a, x + s, b - s, &at[i].ratio, &at[i].lo,
                                          &at[i].hi) != 0)
                at[i].ratio = at[i].lo = at[i].hi = NAN;
            at[i].p = p;
        }
        out->at = at;
        out->n = nch;
    } else {
        free(at);
    }
    return 0;
}

void vn__store_changes_free(vn__store_changes *c)
{
    free(c->at);
    c->at = NULL;
    c->n = 0;
}

int vn__store_between(const double *x, const double *se, size_t n, size_t least, size_t most,
                      double *var, size_t *m)
{
    *var = 0;
    *m = 0;
    if (!x || n == 0 || least < 2)
        return VN_ENOENT;
    /* After the last change point of the results before. */
    size_t from = 0;
    vn__store_changes ch;
    if (vn__store_changes_find(x, n, 0.002, 999, 2, 0x5eed + n, &ch) == 0 && ch.n)
        from = ch.at[ch.n - 1].index;
    vn__store_changes_free(&ch);
    if (most && n - from > most)
        from = n - most;
    size_t k = n - from;
    *m = k;
    if (k < least)
        return VN_ENOENT;
    /* How far one result is from the next, as a standard deviation of
     * one result: from 20 results on, the 95th percentile q of the
     * distances between neighbours' logs taken as a bound on the next
     * distance (rank 0.95 (m + 1) of m, which the next falls under about
     * 95% of the time whatever their law: exactly so for exchangeable
     * distances, which neighbours sharing a result are nearly; simulated
     * in tests/unit/test_store_learn.c; the linear percentile's rank held it
     * 90% of the time at 19 distances), as q / (1.96 x sqrt 2), so that
     * the interval for the next run is q; with fewer,
     * too few for that percentile, their median as normal distances
     * would give it (median |d| / (0.6745 x sqrt 2) for d = x2 - x1).
     * Runs of a memory-bound body on a shared host mostly agree, but now
     * and then a whole run meets a neighbour's use of the cache: the
     * median of the distances does not see such jumps, the percentile
     * does (bench/RESULTS.md, 2026-12-01). A step of the level too recent
     * for a change point moves one distance, which the median leaves out
     * and the percentile takes in (at 19 distances it is their largest,
     * at 29 half of it): the next run is then held wider, not narrower;
     * slow drift moves them all. */
    double *d = malloc(k * sizeof *d);
    if (!d)
        return VN_ENOMEM;
    (void)se;
    for (size_t i = from; i < n; i++) {
        if (!(x[i] > 0) || !isfinite(x[i])) {
            free(d);
            return VN_EINVAL;
        }
        if (i > from)
            d[i - from - 1] = fabs(log(x[i]) - log(x[i - 1]));
    }
    qsort(d, k - 1, sizeof *d, by_value);
    double sd = k - 1 >= 19 ? vn__percentile_next_sorted(d, k - 1, 95) / (VN__Z975 * M_SQRT2)
                            : median_sorted(d, k - 1) / (0.6744897501960817 * M_SQRT2);
    free(d);
    *var = sd * sd;
    return 0;
}
