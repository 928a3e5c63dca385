/* The comparison of two sides, pure arithmetic: per benchmark the ratio of
 * the medians with a bootstrap interval, the Mann-Whitney p-value and a
 * verdict; over them all the geometric mean of the ratios. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "stats_internal.h"
#include "vernier/stats.h"

/* The interval's level: the 2.5th and 97.5th percentiles of the resamples. */
#define LO_PCT 2.5
#define HI_PCT 97.5

const char *vn__cmp_verdict_name(vn__cmp_verdict v)
{
    static const char *const names[] = {"no change", "faster", "slower", "no interval"};
    return (unsigned)v < 4 ? names[v] : "?";
}

void vn__cmp_options_init(vn__cmp_options *o)
{
    o->threshold = 0.02;
    o->resamples = 10000;
    o->seed = 0x76636d7031ull; /* any fixed number: the point is that it is fixed */
}

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

static double median_of(const double *sorted, size_t n) { return vn_percentile_sorted(sorted, n, 50); }

static double ratio_of(double num, double den)
{
    if (den <= 0)
        return num > 0 ? INFINITY : NAN;
    return num / den;
}

typedef struct work {
    const vn__cmp_options *o;
    double *boot;    /* resamples of one benchmark's ratio */
    double *logsum;  /* per resample, the sum of the rows' log ratios (the geometric mean's) */
    size_t *cnt;
    size_t cntcap;
    int geo_ok;      /* every resample so far had a finite log ratio */
    size_t with_interval;
} work;

/* The bootstrap interval of new/base: each side resampled on its own (the
 * two are independent runs), the ratio of the resamples' medians taken,
 * and the percentile interval of those ratios. */
static int interval(work *w, const double *sb, size_t nb, const double *sn, size_t nn,
                    const char *name, vn__cmp_row *row)
{
    size_t need = nb > nn ? nb : nn, B = w->o->resamples;
    if (need > w->cntcap) {
        size_t *c = realloc(w->cnt, need * sizeof *c);
        if (!c)
            return VN_ENOMEM;
        w->cnt = c;
        w->cntcap = need;
    }
    uint64_t rng = stream(w->o->seed, name);
    for (size_t b = 0; b < B; b++) {
        double mb = resample_median(sb, nb, w->cnt, &rng);
        double mn = resample_median(sn, nn, w->cnt, &rng);
        double r = ratio_of(mn, mb), l = log(r);
        w->boot[b] = isnan(r) ? INFINITY : r;
        if (isfinite(l))
            w->logsum[b] += l;
        else
            w->geo_ok = 0;
    }
    qsort(w->boot, B, sizeof *w->boot, vn__cmp_double);
    row->lo = vn_percentile_sorted(w->boot, B, LO_PCT);
    row->hi = vn_percentile_sorted(w->boot, B, HI_PCT);
    w->with_interval++;
    return 0;
}

/* Why one side of a benchmark gives nothing to compare; NULL when it does. */
static const char *why_not(const vn__cmp_bench *x, double median)
{
    if (!x->n)
        return x->why ? x->why : "no samples";
    /* NaN: the median was not asked for, another reason came first. */
    return isnan(median) || median > 0 ? NULL : "a median at or below 0";
}

static int add_skip(vn__cmp_result *r, const vn__cmp_bench *b, const vn__cmp_bench *n, double mb,
                    double mn)
{
    const char *wb = why_not(b, mb), *wn = why_not(n, mn);
    char why[600];
    snprintf(why, sizeof why, "%s%s%s%s%s", wb ? "in BASE: " : "", wb ? wb : "",
             wb && wn ? "; " : "", wn ? "in NEW: " : "", wn ? wn : "");
    vn__cmp_skip *s = &r->skipped[r->nskipped];
    s->name = b->name;
    s->why = strdup(why);
    if (!s->why)
        return VN_ENOMEM;
    r->nskipped++;
    return 0;
}

static double insn_median(const vn__cmp_bench *b)
{
    if (!b->ninsn)
        return NAN;
    double *s = vn__sorted_copy(b->insn, b->ninsn);
    double m = s ? median_of(s, b->ninsn) : NAN;
    free(s);
    return m;
}

static int row_of(work *w, vn__cmp_result *r, const vn__cmp_bench *b, const vn__cmp_bench *n)
{
    double *sb = vn__sorted_copy(b->values, b->n), *sn = vn__sorted_copy(n->values, n->n);
    int rc = sb && sn ? 0 : VN_ENOMEM;
    vn__cmp_row row = {.name = b->name, .base = b, .new_ = n, .lo = NAN, .hi = NAN};
    if (!rc) {
        row.base_median = median_of(sb, b->n);
        row.new_median = median_of(sn, n->n);
        if (!(row.base_median > 0 && row.new_median > 0)) {
            rc = add_skip(r, b, n, row.base_median, row.new_median);
            goto done;
        }
        row.ratio = row.new_median / row.base_median;
        double u;
        rc = vn_mann_whitney(b->values, b->n, n->values, n->n, &u, &row.p);
    }
    if (!rc && b->n >= 2 && n->n >= 2)
        rc = interval(w, sb, b->n, sn, n->n, b->name, &row);
    else if (!rc)
        for (size_t k = 0; k < w->o->resamples; k++)
            w->logsum[k] += log(row.ratio); /* no spread to draw: the ratio itself */
    if (rc)
        goto done;
    double t = w->o->threshold;
    row.verdict = isnan(row.lo) ? VN__CMP_NO_INTERVAL
                  : row.hi < 1 - t ? VN__CMP_FASTER
                  : row.lo > 1 + t ? VN__CMP_SLOWER
                                   : VN__CMP_SAME;
    row.insn_base = insn_median(b);
    row.insn_new = insn_median(n);
    row.insn_ratio = row.insn_base > 0 && row.insn_new >= 0 ? row.insn_new / row.insn_base : NAN;
    if (isnan(row.insn_ratio))
        row.insn_base = row.insn_new = NAN;
    r->count[row.verdict]++;
    r->rows[r->nrows++] = row;
done:
    free(sb);
    free(sn);
    return rc;
}

static const vn__cmp_bench *named(const vn__cmp_side *s, const char *name)
{
    for (size_t i = 0; i < s->nbench; i++)
        if (!strcmp(s->bench[i].name, name))
            return &s->bench[i];
    return NULL;
}

static void geomean(work *w, vn__cmp_result *r)
{
    r->geomean = r->geo_lo = r->geo_hi = NAN;
    if (!r->nrows)
        return;
    double sum = 0;
    for (size_t i = 0; i < r->nrows; i++)
        sum += log(r->rows[i].ratio);
    r->geomean = exp(sum / (double)r->nrows);
    if (!w->with_interval || !w->geo_ok)
        return;
    /* Resample b of the geometric mean combines resample b of every row:
     * its interval is the noise of the measurements, not of which
     * benchmarks were chosen. */
    size_t B = w->o->resamples;
    for (size_t b = 0; b < B; b++)
        w->boot[b] = exp(w->logsum[b] / (double)r->nrows);
    qsort(w->boot, B, sizeof *w->boot, vn__cmp_double);
    r->geo_lo = vn_percentile_sorted(w->boot, B, LO_PCT);
    r->geo_hi = vn_percentile_sorted(w->boot, B, HI_PCT);
}

int vn__cmp_compare(const vn__cmp_side *base, const vn__cmp_side *new_, const vn__cmp_options *o,
                    vn__cmp_result *out)
{
    vn__cmp_result r = {.opt = *o, .base_formats = base->formats, .new_formats = new_->formats};
    size_t nb = base->nbench ? base->nbench : 1, nn = new_->nbench ? new_->nbench : 1;
    work w = {.o = o, .geo_ok = 1};
    r.rows = calloc(nb, sizeof *r.rows);
    r.skipped = calloc(nb, sizeof *r.skipped);
    r.only_base = calloc(nb, sizeof *r.only_base);
    r.only_new = calloc(nn, sizeof *r.only_new);
    w.boot = malloc((o->resamples ? o->resamples : 1) * sizeof *w.boot);
    w.logsum = calloc(o->resamples ? o->resamples : 1, sizeof *w.logsum);
    int rc = r.rows && r.skipped && r.only_base && r.only_new && w.boot && w.logsum && o->resamples
                 ? 0
                 : o->resamples ? VN_ENOMEM : VN_EINVAL;
    for (size_t i = 0; !rc && i < base->nbench; i++) {
        const vn__cmp_bench *b = &base->bench[i], *n = named(new_, b->name);
        if (!n)
            r.only_base[r.nonly_base++] = b->name;
        else if (!b->n || !n->n)
            rc = add_skip(&r, b, n, NAN, NAN);
        else
            rc = row_of(&w, &r, b, n);
    }
    for (size_t i = 0; !rc && i < new_->nbench; i++)
        if (!named(base, new_->bench[i].name))
            r.only_new[r.nonly_new++] = new_->bench[i].name;
    if (!rc)
        geomean(&w, &r);
    for (int f = 0; f < VN__CMP_NFACTS; f++) {
        r.base_facts[f] = base->facts[f];
        r.new_facts[f] = new_->facts[f];
        if (base->facts[f] && new_->facts[f] && strcmp(base->facts[f], new_->facts[f]))
            r.differ |= 1u << f;
    }
    free(w.boot);
    free(w.logsum);
    free(w.cnt);
    if (rc) {
        vn__cmp_result_free(&r);
        return rc;
    }
    *out = r;
    return 0;
}

void vn__cmp_result_free(vn__cmp_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nskipped; i++)
        free(r->skipped[i].why);
    free(r->skipped);
    free(r->rows);
    free(r->only_base);
    free(r->only_new);
    memset(r, 0, sizeof *r);
}
