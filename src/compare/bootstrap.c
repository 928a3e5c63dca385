/* The bootstrap of vernier compare (bootstrap.h): resamples drawn from
 * splitmix64 streams, so that every machine draws the same ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap.h"
#include "stats/internal.h"
#include "stats/stats_api.h"
#include "vernier/base.h"

/* The interval's level: the 2.5th and 97.5th percentiles of the resamples. */
#define LO_PCT 2.5
#define HI_PCT 97.5

/* splitmix64: small, fast, and the same sequence on every machine. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n): draws past the last whole multiple of n are redrawn,
 * so no index is favoured. */
static size_t below(uint64_t *s, size_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, r;
    do
        r = next(s);
    while (r >= limit);
    return (size_t)(r % n);
}

/* Each benchmark draws from its own stream, seeded by its name, so its
 * interval does not depend on which other benchmarks the files hold. */
static uint64_t stream(uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return seed ^ h;
}

/* The median of n values drawn with replacement from sorted[0..n): the
 * draws are counted per index (cnt, n zeroed entries) instead of sorted,
 * since the order of the indices is the order of the values. */
static double resample_median(const double *sorted, size_t n, size_t *cnt, uint64_t *rng)
{
    memset(cnt, 0, n * sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        cnt[below(rng, n)]++;
    size_t want_lo = (n - 1) / 2, want_hi = n / 2, seen = 0;
    double lo = NAN;
    for (size_t j = 0; j < n; j++) {
        seen += cnt[j];
        if (isnan(lo) && seen > want_lo)
            lo = sorted[j];
        if (seen > want_hi)
            return (lo + sorted[j]) / 2;
    }
    return lo;
}


/* A side this large draws each resample's median from its distribution
 * over ranks instead of drawing n values: the same bootstrap in
 * O(n + B log n) rather than O(B n), so that millions of runs compare in
 * seconds. Below it, the draws are made one by one. */
#define FAST_N 2000

/* The distribution over ranks of one order statistic of a resample of n
 * sorted values (position k, from 0): it is at or below the value of rank
 * j when at least k + 1 of the n draws are, a Binomial(n, (j + 1) / n)
 * count, so P = I_p(k + 1, n - k), the regularized incomplete beta. Only
 * the ranks where that moves off 0 and 1 are kept: from first, cdf[0..m). */
typedef struct rank_cdf {
    size_t first, m;
    double *cdf;
} rank_cdf;

static int rank_cdf_make(size_t n, size_t k, rank_cdf *r)
{
    /* The order statistic's rank spreads about sqrt(n) / 2: 12 of those on
     * either side hold all but 1e-30 of it. */
    size_t half = (size_t)(6 * sqrt((double)n)) + 16;
    size_t lo = k > half ? k - half : 0, hi = k + half < n ? k + half : n - 1;
    r->first = lo;
    r->m = hi - lo + 1;
    r->cdf = malloc(r->m * sizeof *r->cdf);
    if (!r->cdf)
        return VN_ENOMEM;
    double a = (double)(k + 1), b = (double)(n - k);
    for (size_t j = lo; j <= hi; j++) {
        double p = (double)(j + 1) / (double)n;
        r->cdf[j - lo] = j + 1 == n ? 1 : vn__ibeta(a, b, p, 1 - p);
    }
    r->cdf[r->m - 1] = 1;
    return 0;
}

/* The rank whose cumulative probability first reaches u. */
static size_t rank_draw(const rank_cdf *r, double u)
{
    size_t lo = 0, hi = r->m - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->cdf[mid] >= u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return r->first + lo;
}

/* The median of a resample of a large side: its two middle order
 * statistics, each from its own exact distribution, drawn with one
 * uniform number (for an odd n they are one). */
typedef struct fast_side {
    rank_cdf lo, hi;
    int odd;
} fast_side;

static int fast_make(size_t n, fast_side *f)
{
    memset(f, 0, sizeof *f);
    f->odd = n % 2 == 1;
    int rc = rank_cdf_make(n, (n - 1) / 2, &f->lo);
    if (!rc && !f->odd)
        rc = rank_cdf_make(n, n / 2, &f->hi);
    return rc;
}

static void fast_free(fast_side *f)
{
    free(f->lo.cdf);
    free(f->hi.cdf);
}

static double fast_median(const double *sorted, const fast_side *f, uint64_t *rng)
{
    double u = ((double)(next(rng) >> 11) + 0.5) / 9007199254740992.0;
    double a = sorted[rank_draw(&f->lo, u)];
    return f->odd ? a : (a + sorted[rank_draw(&f->hi, u)]) / 2;
}

static double ratio_of(double num, double den)
{
    if (den <= 0)
        return num > 0 ? INFINITY : NAN;
    return num / den;
}

int vn__cmp_bootstrap(vn__cmp_boot *w, const double *sb, size_t nb, const double *sn, size_t nn,
                      const char *name, double *lo, double *hi)
{
    size_t need = nb > nn ? nb : nn, B = w->resamples;
    if (need > w->cntcap) {
        size_t *c = realloc(w->cnt, need * sizeof *c);
        if (!c)
            return VN_ENOMEM;
        w->cnt = c;
        w->cntcap = need;
    }
    uint64_t rng = stream(w->seed, name);
    fast_side fb, fn;
    int fast_b = nb >= FAST_N, fast_n = nn >= FAST_N, rc = 0;
    memset(&fb, 0, sizeof fb);
    memset(&fn, 0, sizeof fn);
    if (fast_b)
        rc = fast_make(nb, &fb);
    if (!rc && fast_n)
        rc = fast_make(nn, &fn);
    for (size_t b = 0; !rc && b < B; b++) {
        double mb = fast_b ? fast_median(sb, &fb, &rng) : resample_median(sb, nb, w->cnt, &rng);
        double mn = fast_n ? fast_median(sn, &fn, &rng) : resample_median(sn, nn, w->cnt, &rng);
        double r = ratio_of(mn, mb);
        w->boot[b] = isnan(r) ? INFINITY : r;
    }
    fast_free(&fb);
    fast_free(&fn);
    if (rc)
        return rc;
    qsort(w->boot, B, sizeof *w->boot, vn__cmp_double);
    *lo = vn_percentile_sorted(w->boot, B, LO_PCT);
    *hi = vn_percentile_sorted(w->boot, B, HI_PCT);
    /* Resamples with a median of 0 on BASE have no finite ratio: an end
     * between two of them is unbounded, not unknown. */
    if (isnan(*hi))
        *hi = INFINITY;
    if (isnan(*lo))
        *lo = INFINITY;
    return 0;
}
