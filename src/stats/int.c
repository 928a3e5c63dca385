/* Integer statistics shared by libvernier and the kernel module (see
 * stats/int.h): only integer arithmetic, and no call outside this file, so
 * the one source builds in both places. */
#include "int.h"

/* Least-significant-digit radix sort, a byte a pass, and only as many
 * passes as the largest value has bytes (cycle counts rarely need more than
 * three): time linear in n whatever the values, which a kernel run needs
 * (a million calls sorted in a few milliseconds, no worst case), and
 * exact. Each pass is stable, so the order after the last is total. */
void vn__isort(vn__u64 *x, size_t n, vn__u64 *tmp)
{
    vn__u64 max = 0;
    for (size_t i = 0; i < n; i++)
        max = x[i] > max ? x[i] : max;
    vn__u64 *from = x, *to = tmp;
    unsigned shift = 0;
    for (; shift < 64 && (max >> shift) != 0; shift += 8) {
        unsigned count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(from[i] >> shift) & 0xff]++;
        unsigned at = 0;
        for (unsigned d = 0; d < 256; d++) {
            unsigned c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i] >> shift) & 0xff]++] = from[i];
        vn__u64 *t = from;
        from = to;
        to = t;
    }
    if (from != x)
        for (size_t i = 0; i < n; i++)
            x[i] = from[i];
}

/* a + (b - a) * num / den rounded to nearest (halves up), for a <= b and
 * num < den, without forming (b - a) * num, which could overflow. */
static vn__u64 between(vn__u64 a, vn__u64 b, vn__u64 num, vn__u64 den)
{
    vn__u64 d = b - a;
    return a + d / den * num + ((d % den) * num + den / 2) / den;
}

vn__u64 vn__ipercentile_sorted(const vn__u64 *sorted, size_t n, unsigned p)
{
    if (n == 0)
        return 0;
    if (p > 100)
        p = 100;
    /* numpy's linear rule: the value at rank p/100 x (n - 1), in hundredths. */
    vn__u64 rank = (vn__u64)p * (n - 1);
    size_t lo = (size_t)(rank / 100);
    vn__u64 frac = rank % 100;
    if (frac == 0 || lo + 1 >= n)
        return sorted[lo];
    return between(sorted[lo], sorted[lo + 1], frac, 100);
}

int vn__istats_sorted(const vn__u64 *sorted, size_t n, vn__u64 *scratch, vn__istats *out)
{
    if (n == 0)
        return -1;
    /* Twice the median is an integer even when the median is not, so the
     * deviations are exact in half units, and so is their median. */
    vn__u64 m2 = sorted[(n - 1) / 2] + sorted[n / 2];
    for (size_t i = 0; i < n; i++) {
        vn__u64 x2 = 2 * sorted[i];
        scratch[i] = x2 > m2 ? x2 - m2 : m2 - x2;
    }
    vn__isort(scratch, n, scratch + n);
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->count = n;
    out->p50 = vn__ipercentile_sorted(sorted, n, 50);
    out->p90 = vn__ipercentile_sorted(sorted, n, 90);
    out->p95 = vn__ipercentile_sorted(sorted, n, 95);
    out->p99 = vn__ipercentile_sorted(sorted, n, 99);
    /* Two middle deviations in half units: four times the MAD. */
    out->mad = (scratch[(n - 1) / 2] + scratch[n / 2] + 2) / 4;
    return 0;
}

/* Appends the digits of v, right-aligned in width, at buf + *at; -1 when
 * they do not fit in len (a NUL is left room for). */
static int put_num(char *buf, size_t len, size_t *at, vn__u64 v, unsigned width)
{
    char d[20];
    unsigned k = 0;
    do {
        d[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    unsigned pad = width > k ? width - k : 0;
    if (*at + pad + k + 1 > len)
        return -1;
    while (pad--)
        buf[(*at)++] = ' ';
    while (k)
        buf[(*at)++] = d[--k];
    buf[*at] = '\0';
    return 0;
}

static int put_str(char *buf, size_t len, size_t *at, const char *s)
{
    size_t k = 0;
    while (s[k])
        k++;
    if (*at + k + 1 > len)
        return -1;
    for (size_t i = 0; i < k; i++)
        buf[(*at)++] = s[i];
    buf[*at] = '\0';
    return 0;
}

int vn__istats_format(const vn__istats *s, char *buf, size_t len)
{
    static const char *const names[] = {"min ", " max ", " count ", " p50 ",
                                        " p90 ", " p95 ", " p99 ", " mad "};
    const vn__u64 v[] = {s->min, s->max, s->count, s->p50, s->p90, s->p95, s->p99, s->mad};
    size_t at = 0;
    for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++)
        if (put_str(buf, len, &at, names[i]) || put_num(buf, len, &at, v[i], 0))
            return -1;
    if (put_str(buf, len, &at, "\n"))
        return -1;
    return (int)at;
}

#define BAR 40

int vn__ihist_format(const vn__u64 *sorted, size_t n, unsigned nbins, char *buf, size_t len)
{
    if (n == 0 || nbins == 0)
        return -1;
    vn__u64 lo = sorted[0], width = (sorted[n - 1] - lo) / nbins + 1;
    size_t at = 0, i = 0, most = 0;
    /* Two passes over the bins: the first finds the fullest, which the
     * second scales the bars to. */
    for (int pass = 0; pass < 2; pass++) {
        i = 0;
        for (unsigned b = 0; b < nbins; b++) {
            vn__u64 top = lo + width * (b + 1) - 1;
            size_t count = 0;
            while (i < n && (b + 1 == nbins || sorted[i] <= top))
                i++, count++;
            if (pass == 0) {
                most = count > most ? count : most;
                continue;
            }
            if (put_num(buf, len, &at, lo + width * b, 0) || put_str(buf, len, &at, " ") ||
                put_num(buf, len, &at, top, 0) || put_str(buf, len, &at, " ") ||
                put_num(buf, len, &at, count, 0) || put_str(buf, len, &at, count ? " " : ""))
                return -1;
            /* At least one mark for a bin that holds anything. */
            size_t marks = count ? (count * BAR + most - 1) / most : 0;
            while (marks--)
                if (put_str(buf, len, &at, "#"))
                    return -1;
            if (put_str(buf, len, &at, "\n"))
                return -1;
        }
    }
    return (int)at;
}

int vn__iformat_line(vn__u64 v, unsigned width, char *buf, size_t len)
{
    char line[48];
    size_t at = 0;
    if (width > 40 || put_num(line, sizeof line, &at, v, width) || at + 1 > len)
        return -1;
    for (size_t i = 0; i < at; i++)
        buf[i] = line[i];
    buf[at] = '\n';
    return (int)at + 1;
}

int vn__iunit_sorted(const vn__u64 *sorted, size_t n, vn__u64 *unit)
{
    /* The divisor of the sizes seen in 1% of the counts or more. */
    vn__u64 g = 0;
    int common = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && sorted[j] == sorted[i]; j++)
            ;
        if (100 * (vn__u64)(j - i) < n)
            continue;
        vn__u64 u = sorted[i], v = g;
        while (v) {
            vn__u64 t = u % v;
            u = v;
            v = t;
        }
        g = u;
        common++;
    }
    if (n < 64 || common < 2 || g < 2)
        return -1;
    /* Held by all but 1% of them, in 3 sizes or more. */
    vn__u64 on = 0;
    int sizes = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && sorted[j] == sorted[i]; j++)
            ;
        if (sorted[i] % g == 0) {
            on += j - i;
            sizes++;
        }
    }
    if (sizes < 3 || 100 * on < 99 * (vn__u64)n)
        return -1;
    *unit = g;
    return 0;
}
