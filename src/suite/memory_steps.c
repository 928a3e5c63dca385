/* The levels of a load-latency curve: where it is flat (a cache holds the
 * buffer) and where it steps up (the buffer no longer fits), named after
 * the caches the machine reports. Pure: the curve comes in as numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite/memory_steps.h"

/* Points of a curve at most; a sweep from 4 KiB to 1 GiB in steps of x2
 * has 19. */
#define MAX_POINTS 64

/* The cost of one more flat segment, in squared log-latency. Two plateaus
 * of two points each, a factor r apart, lower the squared error by
 * log(r)^2 when split: 0.07 for r = 1.3, so real steps split; noise of
 * +-10% around one plateau lowers it by about 0.03 at the best split, so
 * it does not. */
#define SEGMENT_COST 0.05

/* Neighbouring plateaus closer than this factor are one level: a cache
 * level's latency creeps up with the buffer (TLB misses, a shared cache's
 * neighbours), while the steps between levels are factors of 2 and more. */
#define SAME_LEVEL 1.5

/* Without cache sizes, the last plateau is DRAM when it is this many times
 * slower than the first: memory takes tens of L1 latencies to answer, the
 * largest cache about ten. */
#define DRAM_OVER_L1 20.0

typedef struct point {
    double size, ns;
} point;

typedef struct plateau {
    size_t first, last; /* indices into the sorted points */
} plateau;

static int by_size(const void *a, const void *b)
{
    double x = ((const point *)a)->size, y = ((const point *)b)->size;
    return (x > y) - (x < y);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_ns(const point *p, size_t first, size_t last)
{
    double v[MAX_POINTS];
    size_t n = last - first + 1;
    for (size_t i = 0; i < n; i++)
        v[i] = p[first + i].ns;
    qsort(v, n, sizeof v[0], by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Merges neighbours a small factor apart into one level: the points of a
 * cache level may split into segments of one point each when its latency
 * creeps up with the buffer. Returns how many are left. */
static size_t merge_near(const point *pt, plateau *pl, size_t np)
{
    for (size_t i = 1; i < np;) {
        double a = median_ns(pt, pl[i - 1].first, pl[i - 1].last), b = median_ns(pt, pl[i].first, pl[i].last);
        if (b < SAME_LEVEL * a && a < SAME_LEVEL * b) {
            pl[i - 1].last = pl[i].last;
            memmove(&pl[i], &pl[i + 1], (np - i - 1) * sizeof pl[0]);
            np--;
        } else
            i++;
    }
    return np;
}

/* The flat segments of y (log latency) that minimise the squared error
 * plus SEGMENT_COST each (optimal partitioning, by dynamic programming
 * over where the last segment begins). Fills seg; returns how many. */
static size_t segments(const double *y, size_t n, plateau *seg)
{
    double s1[MAX_POINTS + 1] = {0}, s2[MAX_POINTS + 1] = {0}, best[MAX_POINTS + 1];
    size_t from[MAX_POINTS + 1];
    for (size_t i = 0; i < n; i++) {
        s1[i + 1] = s1[i] + y[i];
        s2[i + 1] = s2[i] + y[i] * y[i];
    }
    best[0] = 0;
    for (size_t j = 1; j <= n; j++) {
        best[j] = INFINITY;
        for (size_t i = 0; i < j; i++) {
            double k = (double)(j - i), sum = s1[j] - s1[i];
            double sse = fmax(0, s2[j] - s2[i] - sum * sum / k);
            double c = best[i] + sse + SEGMENT_COST;
            if (c < best[j]) {
                best[j] = c;
                from[j] = i;
            }
        }
    }
    size_t ns = 0;
    for (size_t j = n; j > 0; j = from[j])
        seg[ns++] = (plateau){from[j], j - 1};
    for (size_t i = 0; i < ns / 2; i++) {
        plateau t = seg[i];
        seg[i] = seg[ns - 1 - i];
        seg[ns - 1 - i] = t;
    }
    return ns;
}

/* Which cache a plateau is, from the middle of its sizes: the number of
 * caches smaller than it (0: L1); ncaches or more: beyond them all. The
 * middle, not the ends, so that a transition point taken into the plateau
 * does not move it a level. A lone point that ends the sweep is where a
 * level begins, and a buffer as large as a cache is no longer held by it
 * (the cache holds code, page tables and, when shared, the neighbours'
 * lines too): there a cache of the same size counts as smaller. */
static size_t level_by_size(const plateau *p, const point *pt, int lone_end, const long long *caches,
                            size_t ncaches)
{
    double mid = sqrt(pt[p->first].size * pt[p->last].size);
    size_t k = 0;
    for (size_t i = 0; i < ncaches; i++)
        k += caches[i] > 0 && ((double)caches[i] < mid || (lone_end && (double)caches[i] == mid));
    return k;
}

size_t vn__mem_steps(const double *size, const double *ns, size_t n, const long long *caches,
                     size_t ncaches, vn__mem_level *out, size_t max)
{
    point pt[MAX_POINTS];
    size_t k = 0;
    for (size_t i = 0; i < n && k < MAX_POINTS; i++)
        if (isfinite(size[i]) && size[i] > 0 && isfinite(ns[i]) && ns[i] > 0)
            pt[k++] = (point){size[i], ns[i]};
    if (k == 0 || max == 0)
        return 0;
    qsort(pt, k, sizeof pt[0], by_size);
    double y[MAX_POINTS];
    for (size_t i = 0; i < k; i++)
        y[i] = log(pt[i].ns);
    plateau seg[MAX_POINTS], pl[MAX_POINTS];
    size_t nseg = merge_near(pt, seg, segments(y, k, seg)), np = 0;
    /* A lone point between two segments is the buffer half in one level
     * and half in the next: a transition, no level. At either end of the
     * sweep it is the level the sweep begins or ends in. */
    for (size_t i = 0; i < nseg; i++)
        if (seg[i].last > seg[i].first || i == 0 || i == nseg - 1)
            pl[np++] = seg[i];
    np = merge_near(pt, pl, np);
    size_t nl = 0, last_level = (size_t)-1;
    double first_ns = median_ns(pt, pl[0].first, pl[0].last);
    for (size_t i = 0; i < np && nl < max; i++) {
        vn__mem_level *l = &out[nl];
        size_t lv;
        double m = median_ns(pt, pl[i].first, pl[i].last);
        if (ncaches > 0)
            lv = level_by_size(&pl[i], pt, i > 0 && pl[i].first == k - 1, caches, ncaches);
        else
            lv = i + 1 == np && np > 1 && m >= DRAM_OVER_L1 * first_ns ? (size_t)-2 : i;
        /* A second plateau of the same level (a shared cache's neighbours,
         * say) is a step within it; the level is where it is fastest. All
         * beyond the caches is memory. */
        if (ncaches > 0 && lv > ncaches)
            lv = ncaches;
        if (lv == last_level)
            continue;
        last_level = lv;
        int dram = lv == (size_t)-2 || (ncaches > 0 && lv >= ncaches);
        if (dram)
            snprintf(l->name, sizeof l->name, "DRAM");
        else
            snprintf(l->name, sizeof l->name, "L%u", (unsigned)(lv + 1) % 100u);
        l->ns = m;
        l->from = pt[pl[i].first].size;
        l->to = pt[pl[i].last].size;
        l->cache = !dram && lv < ncaches ? caches[lv] : 0;
        nl++;
    }
    return nl;
}

void vn__mem_fmt_size(double bytes, char *buf, size_t len)
{
    static const char unit[] = "GMK";
    for (int i = 0; i < 3; i++) {
        double u = ldexp(1, 10 * (3 - i));
        if (bytes >= u && fmod(bytes, u) == 0) {
            snprintf(buf, len, "%.0f%c", bytes / u, unit[i]);
            return;
        }
    }
    snprintf(buf, len, "%.0f", bytes);
}

/* The line with or without its parts: to = the sizes each level reaches,
 * with_caches = the reported caches at its end. */
static int brief(const vn__mem_level *lv, size_t n, const long long *caches, size_t ncaches, int to,
                 int with_caches, char *buf, size_t len)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, len, "memory:");
    for (size_t i = 0; i < n && at < len; i++) {
        char s[24] = "";
        if (to && strcmp(lv[i].name, "DRAM")) {
            char z[16];
            vn__mem_fmt_size(lv[i].to, z, sizeof z);
            snprintf(s, sizeof s, " to %s", z);
        }
        /* Two digits, without an exponent: 1.2, 12, 230. */
        at += (size_t)snprintf(buf + at, len - at, lv[i].ns < 9.95 ? "%s %s %.2g ns%s" : "%s %s %.0f ns%s",
                               i ? "," : "", lv[i].name, lv[i].ns, s);
    }
    if (with_caches && ncaches > 0 && at < len) {
        at += (size_t)snprintf(buf + at, len - at, " (caches ");
        for (size_t i = 0; i < ncaches && at < len; i++) {
            char z[16];
            vn__mem_fmt_size((double)caches[i], z, sizeof z);
            at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "/" : "", z);
        }
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, ")");
    }
    return at <= 100 && at < len;
}

void vn__mem_steps_brief(const vn__mem_level *lv, size_t n, const long long *caches, size_t ncaches,
                         char *buf, size_t len)
{
    /* Shorter forms until it fits on its line: the explanation has it all. */
    if (!brief(lv, n, caches, ncaches, 1, 1, buf, len) && !brief(lv, n, caches, ncaches, 1, 0, buf, len) &&
        !brief(lv, n, caches, ncaches, 0, 0, buf, len) && len > 100)
        buf[100] = '\0';
}
